"""Numba kernels of the terrain wing: signed distances and voxel edits over plain arrays.

No Python objects in here: the public classes (:mod:`.volume`, :mod:`.edits`) validate, own the arrays and call
these. Every edit kernel visits only the voxel box ``lo..hi`` (inclusive index corners) it is given and reports
through the preallocated arrays of an :class:`EditTally`.

What the kernels take comes in named tuples (numba reads their fields like a struct), so calls stay short and
arguments cannot swap places: :class:`VoxelFields` (the volume's arrays), :class:`Grid` (where the voxels sit),
:class:`MaterialArrays` (the material table by id), :class:`ToolGate` (the hardness gate) and
:class:`EditTally` (what an edit reports).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np

# Columns of a primitive row: kind, point a (3), point b (3), radius, margin. A box is its corners a = min,
# b = max, so a point on a face is exactly on it (a centre and half extents would round).
PRIMITIVE_COLUMNS = 9
SPHERE, BOX, CAPSULE, CYLINDER = 0, 1, 2, 3

# Density ramp across a carved or added surface: 127.5 density steps per voxel of signed distance.
RAMP = 127.5

STAT_CHANGED = 0  # voxels whose density or materials changed
STAT_DAMAGED = 1  # voxels whose damage rose without giving way
STAT_BLOCKED = 2  # voxels the edit would have lowered but hardness held
STAT_DENSITY_REMOVED = 3  # sum of density decreases (1/255 voxel)
STAT_DENSITY_ADDED = 4  # sum of density increases (1/255 voxel)
STATS_LENGTH = 5

LIMIT = 2.0 ** 52  # voxel coordinates are clamped to +-LIMIT before rounding to integers


class VoxelFields(NamedTuple):
    """A volume's field arrays, all of the volume's shape and indexed ``[x, y, z]``."""

    density: np.ndarray  # uint8, 0 (empty) .. 255 (full)
    mat_a: np.ndarray  # uint8 material id (0 = none)
    mat_b: np.ndarray  # uint8 material id (0 = none)
    mix: np.ndarray  # uint8 share of mat_b, 0..255
    damage: np.ndarray  # uint16 damage units


class Grid(NamedTuple):
    """Where a volume's voxels sit and how they are grouped."""

    origin: np.ndarray  # float64 (3,), m: the sample of voxel (0, 0, 0)
    voxel_size: float  # m
    iso: int  # density at and above which a voxel is solid, 1..255
    chunk_size: int  # voxels per chunk edge, >= 1
    # int64 (3,): the voxel index of the field arrays' element [0, 0, 0]. Kernels take voxel indices of the whole
    # volume (positions, chunks) and read the arrays at index - offset: a dense volume passes its whole fields and
    # zeros, a sparse one a window gathered from its chunks, and both compute the same numbers.
    offset: np.ndarray


class MaterialArrays(NamedTuple):
    """A material table's lookups, 256 entries each, indexed by material id."""

    hardness: np.ndarray  # float64, hardness scale of the table
    interior: np.ndarray  # uint8, the id a fresh cut shows
    fragment_priority: np.ndarray  # int32, higher wins when a fragment takes one material
    min_fragment_size: np.ndarray  # int64 voxels: smaller floating pieces are erased
    kind: np.ndarray  # uint8, the lowest id of the materials of the same kind


class ToolGate(NamedTuple):
    """The hardness gate of ``remove`` and ``scrape`` (see ``voxelworld.terrain.Tool``)."""

    damage: int  # damage units each hit adds to a voxel of middling hardness
    gives_way_below: float  # hardness below which a voxel gives way at once
    unbreakable_from: float  # hardness from which a voxel never gives way
    breaks_at: int  # damage units at which a voxel of middling hardness gives way


class EditTally(NamedTuple):
    """What an edit kernel reports, in arrays the caller preallocates and zeroes."""

    chunk_flags: np.ndarray  # uint8 [cx, cy, cz]: 1 for each chunk in which some voxel field changed
    # int64 [256] per material id: the solid amount each material lost / gained, in 1/65025 voxel
    # (density * share, both 0..255), so sums are exact integers
    removed_units: np.ndarray
    added_units: np.ndarray
    stats: np.ndarray  # int64 [STATS_LENGTH]: counters indexed by the STAT_* constants


class FragmentScratch(NamedTuple):
    """Scratch of :func:`erase_small_components`: one slot per row (+ 1) or per possible run."""

    row_first: np.ndarray  # int32 [rows + 1]
    run_start: np.ndarray  # int32 [runs]
    run_end: np.ndarray  # int32 [runs]
    parent: np.ndarray  # int32 [runs]
    size: np.ndarray  # int64 [runs]
    best: np.ndarray  # int32 [runs]


@nb.njit(cache=True, inline="always")
def primitive_sdf(row, x, y, z):
    """Signed distance (m) from (x, y, z) to one primitive row."""
    kind = int(row[0])
    if kind == SPHERE:
        dx, dy, dz = x - row[1], y - row[2], z - row[3]
        d = math.sqrt(dx * dx + dy * dy + dz * dz) - row[7]
    elif kind == BOX:
        qx = max(row[1] - x, x - row[4])
        qy = max(row[2] - y, y - row[5])
        qz = max(row[3] - z, z - row[6])
        ox, oy, oz = max(qx, 0.0), max(qy, 0.0), max(qz, 0.0)
        d = math.sqrt(ox * ox + oy * oy + oz * oz) + min(max(qx, max(qy, qz)), 0.0)
    elif kind == CAPSULE:
        px, py, pz = x - row[1], y - row[2], z - row[3]
        bx, by, bz = row[4] - row[1], row[5] - row[2], row[6] - row[3]
        bb = bx * bx + by * by + bz * bz
        h = 0.0
        if bb > 0.0:
            h = min(max((px * bx + py * by + pz * bz) / bb, 0.0), 1.0)
        ex, ey, ez = px - bx * h, py - by * h, pz - bz * h
        d = math.sqrt(ex * ex + ey * ey + ez * ez) - row[7]
    else:  # CYLINDER: distance to the axis and to the cap planes, combined exactly
        px, py, pz = x - row[1], y - row[2], z - row[3]
        bx, by, bz = row[4] - row[1], row[5] - row[2], row[6] - row[3]
        length = math.sqrt(bx * bx + by * by + bz * bz)
        along = (px * bx + py * by + pz * bz) / length
        rx, ry, rz = px - bx * along / length, py - by * along / length, pz - bz * along / length
        radial = math.sqrt(rx * rx + ry * ry + rz * rz) - row[7]
        axial = abs(along - 0.5 * length) - 0.5 * length
        if radial < 0.0 and axial < 0.0:
            d = max(radial, axial)
        else:
            ra, aa = max(radial, 0.0), max(axial, 0.0)
            d = math.sqrt(ra * ra + aa * aa)
    return d - row[8]


@nb.njit(cache=True, inline="always")
def shape_sdf(primitives, x, y, z):
    """Signed distance (m) to the union of the primitive rows."""
    d = np.inf
    for p in range(primitives.shape[0]):
        d = min(d, primitive_sdf(primitives[p], x, y, z))
    return d


@nb.njit(cache=True)
def sdf_points(primitives, points, out):
    """``out[n]`` = signed distance of ``points[n]`` to the union of ``primitives``."""
    for n in range(points.shape[0]):
        out[n] = shape_sdf(primitives, points[n, 0], points[n, 1], points[n, 2])


@nb.njit(cache=True, inline="always")
def bounding_sphere(row):
    """Centre and radius (m) of a ball holding every point where the primitive's sdf <= 0."""
    kind = int(row[0])
    if kind == SPHERE:
        return row[1], row[2], row[3], row[7] + row[8]
    half = 0.5 * math.sqrt((row[4] - row[1]) ** 2 + (row[5] - row[2]) ** 2 + (row[6] - row[3]) ** 2)
    # Capsules and cylinders reach ``radius`` past their segment; a box's corners are the segment's ends.
    return 0.5 * (row[1] + row[4]), 0.5 * (row[2] + row[5]), 0.5 * (row[3] + row[6]), half + row[7] + row[8]


@nb.njit(cache=True)
def shape_bounds(primitives, out):
    """``out[0]`` / ``out[1]``: world corners (m) of the box holding every point where the sdf <= 0."""
    out[0, :] = np.inf
    out[1, :] = -np.inf
    for p in range(primitives.shape[0]):
        row = primitives[p]
        kind = int(row[0])
        for axis in range(3):
            a, b = row[1 + axis], row[4 + axis]
            if kind == SPHERE:
                low, high = a - row[7], a + row[7]
            else:  # box (radius 0), capsule, cylinder: the segment's box grown by the radius
                low, high = min(a, b) - row[7], max(a, b) + row[7]
            out[0, axis] = min(out[0, axis], low - row[8])
            out[1, axis] = max(out[1, axis], high + row[8])


@nb.njit(cache=True)
def voxel_box(primitives, reach, origin, voxel_size, shape, box):
    """``box[0]`` / ``box[1]``: inclusive index corners of the voxels whose samples lie in the shape's bounding
    box grown by ``reach`` (m), clipped to the volume. Returns False when no voxel does."""
    bounds = np.empty((2, 3))
    shape_bounds(primitives, bounds)
    inside = True
    for axis in range(3):
        # Clamped to +-2**52 voxels before rounding, so absurdly large shapes cannot overflow the indices.
        low = math.ceil(min(max((bounds[0, axis] - reach - origin[axis]) / voxel_size - 1e-9, -LIMIT), LIMIT))
        high = math.floor(min(max((bounds[1, axis] + reach - origin[axis]) / voxel_size + 1e-9, -LIMIT), LIMIT))
        box[0, axis] = max(low, 0)
        box[1, axis] = min(high, shape[axis] - 1)
        if box[0, axis] > box[1, axis]:
            inside = False
    return inside


@nb.njit(cache=True, inline="always")
def row_span(primitives, x, y, reach, z0, voxel_size, k_lo, k_hi):
    """The voxels ``k_first..k_last`` of the row at (x, y) that may lie within ``reach`` (m) of the shape, by
    each primitive's bounding sphere; empty (first > last) when none may."""
    first, last = k_hi + 1, k_lo - 1
    for p in range(primitives.shape[0]):
        cx, cy, cz, radius = bounding_sphere(primitives[p])
        rr = (radius + reach) ** 2 - (x - cx) ** 2 - (y - cy) ** 2
        if rr < 0.0:
            continue
        w = math.sqrt(rr) + 1e-9 * voxel_size
        low = min(max((cz - w - z0) / voxel_size, -LIMIT), LIMIT)
        high = min(max((cz + w - z0) / voxel_size, -LIMIT), LIMIT)
        first = min(first, max(int(math.ceil(low)), k_lo))
        last = max(last, min(int(math.floor(high)), k_hi))
    return first, last


@nb.njit(cache=True)
def exposure(density, offset, lo, hi, iso, below, spread_z, spread_y, exposed):
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
def ramp_density(iso, d_voxels):
    """Density at signed distance ``d_voxels`` (in voxels) outside a surface at ``iso``, clipped to 0..255."""
    v = min(max(iso + d_voxels * RAMP + 0.5, 0.0), 255.0)  # clamp first: floor of a huge value overflows
    return int(math.floor(v))


@nb.njit(cache=True, inline="always")
def account(old_d, old_a, old_b, old_mix, new_d, new_a, new_b, new_mix, removed_units, added_units):
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
def gate(hardness, damage, tool):
    """Hardness gate: returns (gives way, damage after this hit)."""
    if hardness < tool.gives_way_below:
        return True, damage
    if hardness >= tool.unbreakable_from:
        return False, damage
    damage = min(damage + tool.damage, 65535)
    return damage >= tool.breaks_at, damage


@nb.njit(cache=True, inline="always")
def dominant_material(mat_a, mat_b, mix):
    """The material with the larger share of a voxel (``mat_a`` on a tie)."""
    return mat_b if mix > 127 else mat_a


@nb.njit(cache=True)
def lower_density(fields, lo, hi, grid, primitives, reach, scrape_step, exposed, tool, materials, tally):
    """Lower density in the box ``lo..hi`` through the hardness gate: ``remove`` and ``scrape`` in one kernel.

    ``scrape_step == 0``: remove, ``density = min(old, ramp(sdf))``; ``reach`` (m) is how far outside the shape
    the ramp still lowers density; the gate hits the voxels the ramp would lower. ``scrape_step > 0``: scrape,
    the gate hits every voxel with density inside the shape, exposed or not, and a voxel loses ``scrape_step``
    only where ``exposed`` (from :func:`exposure`, the box's shape) is 1 and the hit breaks it.
    """
    density, mat_a, mat_b, mix, damage = fields
    origin, voxel_size, chunk_size = grid.origin, grid.voxel_size, grid.chunk_size
    hardness, removed_units = materials.hardness, tally.removed_units
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
                    target = max(old - scrape_step, 0)
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
def raise_density(fields, lo, hi, grid, primitives, reach, material, tally):
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
def remap_materials(fields, lo, hi, grid, primitives, new_id, tally):
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
def material_units(fields, out):
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


# ----------------------------------------------------------------------------------------------- fragments
# Connected solid components (6-connected, density >= iso) are found over runs: maximal stretches of solid
# voxels along z in one (x, y) row. Runs of neighbouring rows that overlap in z are joined with union-find.
# Terrain is mostly long runs, so this touches each voxel once and does little work per run.


@nb.njit(cache=True, inline="always")
def find_root(parent, r):
    while parent[r] != r:
        parent[r] = parent[parent[r]]  # path halving
        r = parent[r]
    return r


@nb.njit(cache=True, inline="always")
def join(parent, a, b):
    ra, rb = find_root(parent, a), find_root(parent, b)
    if ra < rb:
        parent[rb] = ra
    elif rb < ra:
        parent[ra] = rb


@nb.njit(cache=True)
def find_runs(density, offset, lo, hi, iso, row_first, run_start, run_end):
    """Fill the runs of the box ``lo..hi`` (``density`` holds the voxels from index ``offset`` on); the runs of
    row ``(i - lo0) * rows_y + (j - lo1)`` are ``row_first[row] .. row_first[row + 1] - 1``. Returns the number
    of runs."""
    count = 0
    row = 0
    for i in range(lo[0], hi[0] + 1):
        for j in range(lo[1], hi[1] + 1):
            row_first[row] = count
            column = density[i - offset[0], j - offset[1]]
            k = lo[2]
            while k <= hi[2]:
                if column[k - offset[2]] >= iso:
                    start = k
                    while k <= hi[2] and column[k - offset[2]] >= iso:
                        k += 1
                    run_start[count] = start
                    run_end[count] = k - 1
                    count += 1
                else:
                    k += 1
            row += 1
    row_first[row] = count
    return count


@nb.njit(cache=True)
def join_rows(row_first, run_start, run_end, parent, row_a, row_b):
    """Join every run of ``row_a`` with the runs of ``row_b`` that overlap it in z."""
    a, a_end = row_first[row_a], row_first[row_a + 1]
    b, b_end = row_first[row_b], row_first[row_b + 1]
    while a < a_end and b < b_end:
        if run_start[a] <= run_end[b] and run_start[b] <= run_end[a]:
            join(parent, a, b)
        if run_end[a] < run_end[b]:
            a += 1
        else:
            b += 1


@nb.njit(cache=True)
def erase_small_components(fields, lo, hi, grid, materials, scratch, tally):
    """Erase (density 0) the components wholly inside the box ``lo..hi`` (none of their voxels on its border)
    with fewer voxels than the minimum fragment size of their material: the dominant material of highest
    fragment priority among their voxels (lowest id on a tie). Below-iso voxels next to an erased voxel that
    no remaining solid voxel touches (26-neighbourhood) are erased too. Returns the number of components erased.

    The :class:`FragmentScratch` arrays are the caller's."""
    density, mat_a, mat_b, mix = fields.density, fields.mat_a, fields.mat_b, fields.mix
    iso, chunk_size, offset = grid.iso, grid.chunk_size, grid.offset
    o0, o1, o2 = offset[0], offset[1], offset[2]
    priority_by_id, min_size_by_id = materials.fragment_priority, materials.min_fragment_size
    row_first, run_start, run_end, parent, size, best = scratch
    rows_y = hi[1] - lo[1] + 1
    rows = (hi[0] - lo[0] + 1) * rows_y
    runs = find_runs(density, offset, lo, hi, iso, row_first, run_start, run_end)
    for r in range(runs):
        parent[r] = r
    for row in range(rows):
        if row >= rows_y:
            join_rows(row_first, run_start, run_end, parent, row, row - rows_y)
        if row % rows_y != 0:
            join_rows(row_first, run_start, run_end, parent, row, row - 1)
    # Sizes per root; size -1 marks a component on the border (kept whatever its size).
    for r in range(runs):
        size[r] = 0
    for row in range(rows):
        i, j = lo[0] + row // rows_y, lo[1] + row % rows_y
        on_side = i == lo[0] or i == hi[0] or j == lo[1] or j == hi[1]
        for r in range(row_first[row], row_first[row + 1]):
            root = find_root(parent, r)
            if on_side or run_start[r] == lo[2] or run_end[r] == hi[2]:
                size[root] = -1
            elif size[root] >= 0:
                size[root] += run_end[r] - run_start[r] + 1
    # The material of each inner component: highest fragment priority among its voxels' dominant materials.
    for r in range(runs):
        best[r] = -1
    for row in range(rows):
        i, j = lo[0] + row // rows_y, lo[1] + row % rows_y
        for r in range(row_first[row], row_first[row + 1]):
            root = find_root(parent, r)
            if size[root] <= 0:
                continue
            for k in range(run_start[r], run_end[r] + 1):
                m = dominant_material(mat_a[i - o0, j - o1, k - o2], mat_b[i - o0, j - o1, k - o2],
                                      mix[i - o0, j - o1, k - o2])
                b = best[root]
                if b < 0 or priority_by_id[m] > priority_by_id[b] or (
                        priority_by_id[m] == priority_by_id[b] and m < b):
                    best[root] = m
    erased = 0
    for r in range(runs):
        if parent[r] == r and size[r] > 0 and size[r] < min_size_by_id[best[r]]:
            erased += 1
        elif parent[r] == r:
            best[r] = -1  # kept
    for row in range(rows):
        i, j = lo[0] + row // rows_y, lo[1] + row % rows_y
        for r in range(row_first[row], row_first[row + 1]):
            root = find_root(parent, r)
            if size[root] <= 0 or best[root] < 0:
                continue
            for k in range(run_start[r], run_end[r] + 1):
                erase_voxel(fields, offset, i, j, k, chunk_size, tally)
    # The thin below-iso fringe a fragment leaves goes too, where no remaining solid voxel is next to it (a
    # window must reach one voxel past the box wherever the volume does).
    nx, ny, nz = o0 + density.shape[0], o1 + density.shape[1], o2 + density.shape[2]
    for row in range(rows):
        i, j = lo[0] + row // rows_y, lo[1] + row % rows_y
        for r in range(row_first[row], row_first[row + 1]):
            root = find_root(parent, r)
            if size[root] <= 0 or best[root] < 0:
                continue
            for k in range(run_start[r], run_end[r] + 1):
                for a in range(max(i - 1, o0), min(i + 2, nx)):
                    for b in range(max(j - 1, o1), min(j + 2, ny)):
                        for c in range(max(k - 1, o2), min(k + 2, nz)):
                            if density[a - o0, b - o1, c - o2] > 0 and not touches_solid(density, a - o0, b - o1,
                                                                                         c - o2, iso):
                                erase_voxel(fields, offset, a, b, c, chunk_size, tally)
    return erased


@nb.njit(cache=True, inline="always")
def touches_solid(density, i, j, k, iso):
    """Whether voxel (i, j, k) or one of its 26 neighbours (within the volume) is solid."""
    nx, ny, nz = density.shape
    for a in range(max(i - 1, 0), min(i + 2, nx)):
        for b in range(max(j - 1, 0), min(j + 2, ny)):
            for c in range(max(k - 1, 0), min(k + 2, nz)):
                if density[a, b, c] >= iso:
                    return True
    return False


@nb.njit(cache=True, inline="always")
def erase_voxel(fields, offset, i, j, k, chunk_size, tally):
    """Set voxel (i, j, k)'s density to 0 (the fields hold the voxels from index ``offset`` on) and account for it."""
    li, lj, lk = i - offset[0], j - offset[1], k - offset[2]
    old = np.int64(fields.density[li, lj, lk])
    a, b, m = np.int64(fields.mat_a[li, lj, lk]), np.int64(fields.mat_b[li, lj, lk]), np.int64(fields.mix[li, lj, lk])
    fields.density[li, lj, lk] = 0
    tally.chunk_flags[i // chunk_size, j // chunk_size, k // chunk_size] = 1
    tally.stats[STAT_CHANGED] += 1
    tally.stats[STAT_DENSITY_REMOVED] += old
    account(old, a, b, m, 0, a, b, m, tally.removed_units, tally.added_units)
