"""The height of the terrain under a point, smooth from voxel column to column: where an enemy's feet stand (and
where a player cutting the ground away from under them makes them fall)."""

from __future__ import annotations

import math

import numpy as np

from ..terrain import Volume

__all__ = ["ground_height"]


def ground_height(volume: Volume, x: float, z: float) -> float | None:
    """The terrain's height (m) at ``(x, z)``: the top surfaces of the four voxel columns around it, blended
    bilinearly (so feet rise and fall smoothly from column to column); None off the terrain.

    Examples
    --------
    >>> from voxelworld.terrain import Box, VoxelVolume
    >>> volume = VoxelVolume((16, 16, 16), voxel_size=0.5)
    >>> _ = volume.add(Box((0.0, 0.0, 0.0), (8.0, 2.0, 8.0)), "soil")
    >>> round(ground_height(volume, 3.0, 3.0), 2), ground_height(volume, -9.0, 3.0)
    (2.0, None)
    """
    ox, oy, oz = (float(v) for v in volume.origin)
    size = float(volume.voxel_size)
    u, v = (float(x) - ox) / size, (float(z) - oz) / size
    bu, bv = float(math.floor(u)), float(math.floor(v))
    fu, fv = u - bu, v - bv
    # The four columns as level.surface_height finds them (the voxel column nearest each corner) and its
    # arithmetic, in plain floats (the same IEEE operations as its NumPy scalars), read in one window.
    corners = []
    for di, dk in ((0, 0), (1, 0), (0, 1), (1, 1)):
        w = (fu if di else 1.0 - fu) * (fv if dk else 1.0 - fv)
        i = math.floor((ox + (bu + di) * size - ox) / size + 0.5)
        k = math.floor((oz + (bv + dk) * size - oz) / size + 0.5)
        if w > 0.0 and 0 <= i < volume.shape[0] and 0 <= k < volume.shape[2]:
            corners.append((w, i, k))
    if not corners:
        return None
    lo_i, lo_k = min(c[1] for c in corners), min(c[2] for c in corners)
    hi_i, hi_k = max(c[1] for c in corners) + 1, max(c[2] for c in corners) + 1
    window = volume.read_window((lo_i, 0, lo_k), (hi_i, volume.shape[1], hi_k), ("density",))["density"]
    solid = window >= volume.iso
    height, weight = 0.0, 0.0
    for w, i, k in corners:
        found = np.flatnonzero(solid[i - lo_i, :, k - lo_k])
        if len(found) == 0:
            continue
        column = window[i - lo_i, :, k - lo_k]
        j = int(found[-1])
        top = float(j)
        if j + 1 < len(column):  # the crossing between the last solid sample and the empty one above it
            top += (int(column[j]) - volume.iso) / max(int(column[j]) - int(column[j + 1]), 1)
        height, weight = height + w * (oy + top * size), weight + w
    return height / weight if weight > 0.0 else None
