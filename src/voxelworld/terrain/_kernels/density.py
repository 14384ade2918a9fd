"""The voxel edits: lowering density through the hardness gate (``remove``, ``scrape``), raising it (``add``),
remapping materials (``paint``, ``expose_interior``, ``convert``), and the solid amount per material they report.

Every edit kernel visits only the voxel box ``lo..hi`` (inclusive index corners) it is given and reports through
the preallocated arrays of an :class:`~.arguments.EditTally`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numba as nb
import numpy as np

from .arguments import STAT_BLOCKED, STAT_CHANGED, STAT_DAMAGED, STAT_DENSITY_ADDED, STAT_DENSITY_REMOVED
from .sdf import row_span, shape_sdf

if TYPE_CHECKING:
    from .arguments import EditTally, Grid, MaterialArrays, ToolGate, VoxelFields

    # A whole number in a kernel: a Python int or a numpy integer read from an array (an int64 to numba).
    Whole = int | np.integer

__all__ = ["RAMP", "exposure", "ramp_density", "account", "gate", "dominant_material", "lower_density",
           "raise_density", "remap_materials", "material_units"]

# Density ramp across a carved or added surface: 127.5 density steps per voxel of signed distance.
RAMP = 127.5


@nb.njit(cache=True)
def exposure(density: np.ndarray, offset: np.ndarray, lo: np.ndarray, hi: np.ndarray, iso: int, below: np.ndarray,
             spread_z: np.ndarray, spread_y: np.ndarray, exposed: np.ndarray) -> None:
    """``exposed[a, b, c]`` = 1 where voxel ``lo + (a, b, c)`` has a voxel below iso in its 3x3x3 neighbourhood
    (itself included, within the volume). A separable dilation: below-iso flags over the box grown by one,
    then maxima along z, y and x. Shapes: ``below`` box + 2 on each axis; ``spread_z`` (+2, +2, +0);
    ``spread_y`` (+2, +0, +0); ``exposed`` the box. ``density`` holds the voxels from index ``offset`` on
    (a window must reach one voxel past the box wherever the volume does)."""
    o0, o1, o2 = offset[0], offset[1], offset[2]
    nx, ny, nz = density.shape
    ex, ey, ez = below.shape
    for a in range(ex):
        i = lo[0] - 1 + a
        for b in range(ey):
            j = lo[1] - 1 + b
            for c in range(ez):
                k = lo[2] - 1 + c
                inside = o0 <= i < o0 + nx and o1 <= j < o1 + ny and o2 <= k < o2 + nz
                below[a, b, c] = 1 if inside and density[i - o0, j - o1, k - o2] < iso else 0
    for a in range(ex):
        for b in range(ey):
            for c in range(ez - 2):
                spread_z[a, b, c] = below[a, b, c] | below[a, b, c + 1] | below[a, b, c + 2]
    for a in range(ex):
        for b in range(ey - 2):
            for c in range(ez - 2):
                spread_y[a, b, c] = spread_z[a, b, c] | spread_z[a, b + 1, c] | spread_z[a, b + 2, c]
    for a in range(ex - 2):
        for b in range(ey - 2):
            for c in range(ez - 2):
                exposed[a, b, c] = spread_y[a, b, c] | spread_y[a + 1, b, c] | spread_y[a + 2, b, c]


@nb.njit(cache=True, inline="always")
def ramp_density(iso: int, d_voxels: float) -> int:
    """Density at signed distance ``d_voxels`` (in voxels) outside a surface at ``iso``, clipped to 0..255."""
    v = min(max(iso + d_voxels * RAMP + 0.5, 0.0), 255.0)  # clamp first: floor of a huge value overflows
    return int(math.floor(v))


@nb.njit(cache=True, inline="always")
def account(old_d: Whole, old_a: Whole, old_b: Whole, old_mix: Whole, new_d: Whole, new_a: Whole, new_b: Whole,
            new_mix: Whole, removed_units: np.ndarray, added_units: np.ndarray) -> None:
    """Add one voxel's change of solid amount per material to ``removed_units`` / ``added_units``."""
    ids = (old_a, old_b, new_a, new_b)
    amounts = (-old_d * (255 - old_mix), -old_d * old_mix, new_d * (255 - new_mix), new_d * new_mix)
    for i in range(4):
        m = ids[i]
        seen = False
        for j in range(i):
            if ids[j] == m:
                seen = True
        if seen:
            continue
        net = 0
        for j in range(i, 4):
            if ids[j] == m:
                net += amounts[j]
        if net > 0:
            added_units[m] += net
        elif net < 0:
            removed_units[m] -= net


@nb.njit(cache=True, inline="always")
def gate(hardness: float, damage: Whole, tool: ToolGate) -> tuple[bool | np.bool_, Whole]:
    """Hardness gate: returns (gives way, damage after this hit)."""
    if hardness < tool.gives_way_below:
        return True, damage
    if hardness >= tool.unbreakable_from:
        return False, damage
    damage = min(damage + tool.damage, 65535)
    return damage >= tool.breaks_at, damage


@nb.njit(cache=True, inline="always")
def dominant_material(mat_a: Whole, mat_b: Whole, mix: Whole) -> Whole:
    """The material with the larger share of a voxel (``mat_a`` on a tie)."""
    return mat_b if mix > 127 else mat_a


@nb.njit(cache=True)
def lower_density(fields: VoxelFields, lo: np.ndarray, hi: np.ndarray, grid: Grid, primitives: np.ndarray, reach: float,
                  scrape_step: int, exposed: np.ndarray, tool: ToolGate, materials: MaterialArrays,
                  tally: EditTally) -> None:
    """Lower density in the box ``lo..hi`` through the hardness gate: ``remove`` and ``scrape`` in one kernel.

    ``scrape_step == 0``: remove, ``density = min(old, ramp(sdf))``; ``reach`` (m) is how far outside the shape
    the ramp still lowers density; the gate hits the voxels the ramp would lower. ``scrape_step > 0``: scrape,
    the gate hits every voxel with density inside the shape, exposed or not, and a voxel loses ``scrape_step``
    only where ``exposed`` (from :func:`exposure`, the box's shape) is 1 and the hit breaks it.
    """
    density, mat_a, mat_b, mix, damage = fields
    origin, voxel_size, chunk_size = grid.origin, grid.voxel_size, grid.chunk_size
    hardness, removed_units = materials.hardness, tally.removed_units
    lost: Whole  # a sum of numpy integers
    changed = damaged = blocked = lost = 0
    per_voxel = 1.0 / voxel_size
    o0, o1, o2 = grid.offset[0], grid.offset[1], grid.offset[2]
    for i in range(lo[0], hi[0] + 1):
        x = origin[0] + i * voxel_size
        ci = i // chunk_size
        li = i - o0
        for j in range(lo[1], hi[1] + 1):
            y = origin[1] + j * voxel_size
            cj = j // chunk_size
            lj = j - o1
            first, last = row_span(primitives, x, y, reach, origin[2], voxel_size, lo[2], hi[2])
            ck = first // chunk_size
            next_chunk = (ck + 1) * chunk_size
            for k in range(first, last + 1):
                if k == next_chunk:
                    ck += 1
                    next_chunk += chunk_size
                lk = k - o2
                old = np.int64(density[li, lj, lk])
                if old == 0:
                    continue
                d = shape_sdf(primitives, x, y, origin[2] + k * voxel_size)
                lowers = True
                if scrape_step > 0:
                    if d > 0.0:
                        continue
                    lowers = exposed[i - lo[0], j - lo[1], k - lo[2]] != 0
                    # numpy's stubs type max() of an int64 and an int as a comparison protocol
                    target: Whole = max(old - scrape_step, 0)  # type: ignore[assignment]
                else:
                    target = ramp_density(grid.iso, d * per_voxel)
                    if target >= old:
                        continue
                a, b, m = np.int64(mat_a[li, lj, lk]), np.int64(mat_b[li, lj, lk]), np.int64(mix[li, lj, lk])
                old_damage = np.int64(damage[li, lj, lk])
                gives_way, new_damage = gate(hardness[dominant_material(a, b, m)], old_damage, tool)
                if new_damage != old_damage:
                    damage[li, lj, lk] = new_damage
                    tally.chunk_flags[ci, cj, ck] = 1
                if not (lowers and gives_way):  # a hidden voxel keeps its density until it is exposed
                    if lowers:
                        blocked += 1
                    if new_damage != old_damage:
                        damaged += 1
                    continue
                density[li, lj, lk] = target
                tally.chunk_flags[ci, cj, ck] = 1
                changed += 1
                loss = old - target
                lost += loss
                # Density loss keeps the mix: each slot loses its share.
                removed_units[a] += loss * (255 - m)
                removed_units[b] += loss * m
    tally.stats[STAT_CHANGED] += changed
    tally.stats[STAT_DAMAGED] += damaged
    tally.stats[STAT_BLOCKED] += blocked
    tally.stats[STAT_DENSITY_REMOVED] += lost


@nb.njit(cache=True)
def raise_density(fields: VoxelFields, lo: np.ndarray, hi: np.ndarray, grid: Grid, primitives: np.ndarray, reach: float,
                  material: int, tally: EditTally) -> None:
    """``add``: ``density = max(old, ramp(-sdf))``; a voxel that gains density becomes wholly ``material``.
    ``reach`` (m): how far outside the shape the ramp still raises density."""
    density, mat_a, mat_b, mix, damage = fields
    origin, voxel_size, chunk_size = grid.origin, grid.voxel_size, grid.chunk_size
    o0, o1, o2 = grid.offset[0], grid.offset[1], grid.offset[2]
    for i in range(lo[0], hi[0] + 1):
        x = origin[0] + i * voxel_size
        li = i - o0
        for j in range(lo[1], hi[1] + 1):
            y = origin[1] + j * voxel_size
            lj = j - o1
            first, last = row_span(primitives, x, y, reach, origin[2], voxel_size, lo[2], hi[2])
            for k in range(first, last + 1):
                lk = k - o2
                old = np.int64(density[li, lj, lk])
                if old == 255:
                    continue
                d = shape_sdf(primitives, x, y, origin[2] + k * voxel_size)
                target = ramp_density(grid.iso, -d / voxel_size)
                if target <= old:
                    continue
                a, b, m = np.int64(mat_a[li, lj, lk]), np.int64(mat_b[li, lj, lk]), np.int64(mix[li, lj, lk])
                density[li, lj, lk] = target
                mat_a[li, lj, lk] = material
                mat_b[li, lj, lk] = 0
                mix[li, lj, lk] = 0
                damage[li, lj, lk] = 0
                tally.chunk_flags[i // chunk_size, j // chunk_size, k // chunk_size] = 1
                tally.stats[STAT_CHANGED] += 1
                tally.stats[STAT_DENSITY_ADDED] += target - old
                account(old, a, b, m, target, material, 0, 0, tally.removed_units, tally.added_units)


@nb.njit(cache=True)
def remap_materials(fields: VoxelFields, lo: np.ndarray, hi: np.ndarray, grid: Grid, primitives: np.ndarray,
                    new_id: np.ndarray, tally: EditTally) -> None:
    """Inside the shape (sdf <= 0), ``mat_a = new_id[mat_a]`` and ``mat_b = new_id[mat_b]``.

    ``paint`` maps every id to one material; ``expose_interior`` maps each material to its interior; ``convert``
    maps one material to another.
    """
    density, mat_a, mat_b, mix = fields.density, fields.mat_a, fields.mat_b, fields.mix
    origin, voxel_size, chunk_size = grid.origin, grid.voxel_size, grid.chunk_size
    o0, o1, o2 = grid.offset[0], grid.offset[1], grid.offset[2]
    for i in range(lo[0], hi[0] + 1):
        x = origin[0] + i * voxel_size
        li = i - o0
        for j in range(lo[1], hi[1] + 1):
            y = origin[1] + j * voxel_size
            lj = j - o1
            first, last = row_span(primitives, x, y, 0.0, origin[2], voxel_size, lo[2], hi[2])
            for k in range(first, last + 1):
                lk = k - o2
                a, b = np.int64(mat_a[li, lj, lk]), np.int64(mat_b[li, lj, lk])
                na, nb_ = np.int64(new_id[a]), np.int64(new_id[b])
                if na == a and nb_ == b:
                    continue
                if shape_sdf(primitives, x, y, origin[2] + k * voxel_size) > 0.0:
                    continue
                mat_a[li, lj, lk] = na
                mat_b[li, lj, lk] = nb_
                tally.chunk_flags[i // chunk_size, j // chunk_size, k // chunk_size] = 1
                tally.stats[STAT_CHANGED] += 1
                d, m = np.int64(density[li, lj, lk]), np.int64(mix[li, lj, lk])
                account(d, a, b, m, d, na, nb_, m, tally.removed_units, tally.added_units)


@nb.njit(cache=True)
def material_units(fields: VoxelFields, out: np.ndarray) -> None:
    """``out[m]`` += solid amount of material ``m`` over the whole volume, in 1/65025 voxel."""
    density, mat_a, mat_b, mix = fields.density, fields.mat_a, fields.mat_b, fields.mix
    nx, ny, nz = density.shape
    for i in range(nx):
        for j in range(ny):
            for k in range(nz):
                d = np.int64(density[i, j, k])
                if d == 0:
                    continue
                m = np.int64(mix[i, j, k])
                out[mat_a[i, j, k]] += d * (255 - m)
                out[mat_b[i, j, k]] += d * m
