"""How near a grid of tiles lies to some points on the x-z plane (the tiles a streaming navmesh keeps)."""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def tile_distances(x0: float, z0: float, size: float, x_end: float, z_end: float, points: np.ndarray, within: float,
                   out: np.ndarray) -> None:
    """Write into ``out`` ((tiles x, tiles z) float64) each tile's x-z distance (m) from the nearest of ``points``
    ((n, 3) float64; 0 inside the tile), where that is at most ``within`` m; +inf elsewhere. Tile (i, k) spans
    ``x0 + i * size .. min(x0 + (i + 1) * size, x_end)`` along x, the same along z. Only the tiles near each point
    are looked at: the cost grows with the points, not with the grid."""
    ntx, ntz = out.shape
    out[:, :] = np.inf
    for p in range(points.shape[0]):
        px, pz = points[p, 0], points[p, 2]
        i0 = max(int(math.floor((px - within - x0) / size)) - 1, 0)
        i1 = min(int(math.floor((px + within - x0) / size)) + 1, ntx - 1)
        k0 = max(int(math.floor((pz - within - z0) / size)) - 1, 0)
        k1 = min(int(math.floor((pz + within - z0) / size)) + 1, ntz - 1)
        for i in range(i0, i1 + 1):
            lo_x = x0 + i * size
            dx = max(max(lo_x - px, px - min(lo_x + size, x_end)), 0.0)
            for k in range(k0, k1 + 1):
                lo_z = z0 + k * size
                dz = max(max(lo_z - pz, pz - min(lo_z + size, z_end)), 0.0)
                d = math.hypot(dx, dz)
                if d <= within and d < out[i, k]:
                    out[i, k] = d
