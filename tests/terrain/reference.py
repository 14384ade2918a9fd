"""Plain-Python references for the terrain kernels, written from the documented rules, for small volumes."""

from __future__ import annotations

import math

import numpy as np

RAMP = 127.5


def ramp(iso: int, d_voxels: float) -> int:
    return int(min(max(math.floor(iso + d_voxels * RAMP + 0.5), 0), 255))


def sample_sdf(volume, shape) -> np.ndarray:
    """Signed distance of every voxel sample of ``volume`` to ``shape``."""
    idx = np.stack(np.meshgrid(*[np.arange(n) for n in volume.shape], indexing="ij"), axis=-1)
    return shape.sdf(volume.origin + idx * volume.voxel_size)


def dominant(a: int, b: int, mix: int) -> int:
    return b if mix > 127 else a


def lower(volume, shape, tool, step: int = 0) -> dict:
    """Reference ``remove`` (step 0) or ``scrape`` (step > 0): returns the expected fields and counters.

    ``remove`` hits the voxels whose density its ramp would lower. ``scrape`` hits every voxel with density
    inside the shape, exposed or not (hidden rock takes damage too); only an exposed voxel (a below-iso voxel in
    its 3x3x3 neighbourhood before the call) that the hit breaks loses density."""
    f = {name: getattr(volume, name).astype(np.int64).copy() for name in ("density", "mat_a", "mat_b", "mix",
                                                                           "damage")}
    before = f["density"].copy()
    sdf = sample_sdf(volume, shape)
    hardness = volume.materials.hardness_by_id
    nx, ny, nz = volume.shape
    counts = {"changed": 0, "blocked": 0, "damaged": 0}
    for i in range(nx):
        for j in range(ny):
            for k in range(nz):
                old = int(before[i, j, k])
                if old == 0:
                    continue
                lowers = True
                if step:
                    if sdf[i, j, k] > 0:
                        continue
                    neighbours = before[max(i - 1, 0):i + 2, max(j - 1, 0):j + 2, max(k - 1, 0):k + 2]
                    lowers = bool((neighbours < volume.iso).any())
                    target = max(old - step, 0)
                else:
                    target = ramp(volume.iso, sdf[i, j, k] / volume.voxel_size)
                    if target >= old:
                        continue
                h = hardness[dominant(f["mat_a"][i, j, k], f["mat_b"][i, j, k], f["mix"][i, j, k])]
                rose = False
                if h < tool.gives_way_below:
                    gives = True
                elif h >= tool.unbreakable_from:
                    gives = False
                else:
                    old_damage = int(f["damage"][i, j, k])
                    new_damage = min(old_damage + tool.damage, 65535)
                    f["damage"][i, j, k] = new_damage
                    rose = new_damage != old_damage
                    gives = new_damage >= tool.breaks_at
                if not lowers:  # hidden: damaged, but it keeps its density until it is exposed
                    counts["damaged"] += rose
                elif gives:
                    f["density"][i, j, k] = target
                    counts["changed"] += 1
                else:
                    counts["blocked"] += 1
                    counts["damaged"] += rose
    return {"fields": f, **counts}


def material_amounts(volume) -> dict[int, int]:
    """Solid amount per material id in 1/65025 voxel."""
    out: dict[int, int] = {}
    d = volume.density.astype(np.int64)
    m = volume.mix.astype(np.int64)
    for ids, share in ((volume.mat_a, 255 - m), (volume.mat_b, m)):
        for material in np.unique(ids):
            amount = int((d * share)[ids == material].sum())
            if amount:
                out[int(material)] = out.get(int(material), 0) + amount
    return out


def remove_fragments(volume, lo, hi) -> np.ndarray:
    """Reference ``remove_fragments`` over the inclusive index box lo..hi: the expected density array.

    Plain flood fill (6-connected) over solid voxels of the box; a component with a voxel on the box's outer
    layer is kept; otherwise its material is the dominant material of highest fragment priority (lowest id on a
    tie) and it is erased when smaller than that material's minimum fragment size. Then every voxel with
    density > 0 next to (26-neighbourhood) an erased voxel that touches no remaining solid voxel goes too.
    """
    table = volume.materials
    density = volume.density.astype(np.int64).copy()
    solid = density >= volume.iso
    seen = np.zeros(volume.shape, dtype=bool)
    erased = []
    for start in map(tuple, np.argwhere(solid)):
        if seen[start] or not all(lo[a] <= start[a] <= hi[a] for a in range(3)):
            continue
        component, stack, seen[start] = [], [start], True
        while stack:
            voxel = stack.pop()
            component.append(voxel)
            for axis in range(3):
                for step in (-1, 1):
                    n = list(voxel)
                    n[axis] += step
                    n = tuple(n)
                    if all(lo[a] <= n[a] <= hi[a] for a in range(3)) and solid[n] and not seen[n]:
                        seen[n] = True
                        stack.append(n)
        if any(v[a] in (lo[a], hi[a]) for v in component for a in range(3)):
            continue
        materials = {dominant(int(volume.mat_a[v]), int(volume.mat_b[v]), int(volume.mix[v])) for v in component}
        material = min(materials, key=lambda m: (-int(table.fragment_priority_by_id[m]), m))
        if len(component) < table.min_fragment_size_by_id[material]:
            erased.extend(component)
    for v in erased:
        density[v] = 0
    for v in erased:
        for n in np.ndindex(3, 3, 3):
            p = tuple(v[a] + n[a] - 1 for a in range(3))
            if not all(0 <= p[a] < volume.shape[a] for a in range(3)) or density[p] == 0:
                continue
            window = tuple(slice(max(p[a] - 1, 0), p[a] + 2) for a in range(3))
            if not (density[window] >= volume.iso).any():
                density[p] = 0
    return density
