"""The game's hot loops over plain arrays (see ARCHITECTURE.md): how near each chunk of the volume lies to the
actors, which the streaming asks for at each of its steps."""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def chunk_box_distances(local: np.ndarray, size: int, shape: np.ndarray, grid: np.ndarray, voxel_size: float,
                        out: np.ndarray) -> None:
    """Write into ``out`` (float64 of the chunk ``grid``'s shape) the distance (m) from each chunk's box of samples
    to the nearest of the points ``local`` ((k, 3) float64, in samples from the volume's origin; 0 inside a box).
    Chunk (i, j, k) holds the samples ``i * size .. min((i + 1) * size, shape[0] - 1)`` along x, the same along y
    and z. The squared gaps per axis are found once per point, then summed per chunk: what
    ``sqrt(min over points of (gx² + gy² + gz²))`` gives, the sum taken in that order (x, then y, then z)."""
    nx, ny, nz = grid[0], grid[1], grid[2]
    points = local.shape[0]
    gaps = [np.empty((n, points)) for n in (nx, ny, nz)]  # (chunk along the axis, point): points innermost
    for axis in range(3):
        g = gaps[axis]
        last = shape[axis] - 1
        for c in range(g.shape[0]):
            lo = c * size
            hi = min(lo + size, last)
            for p in range(points):
                at = local[p, axis]
                gap = max(max(lo - at, at - hi), 0.0)
                g[c, p] = gap * gap
    gx, gy, gz = gaps[0], gaps[1], gaps[2]
    xy = np.empty(points)
    for i in range(nx):
        for j in range(ny):
            for p in range(points):
                xy[p] = gx[i, p] + gy[j, p]
            for k in range(nz):
                best = np.inf
                for p in range(points):
                    best = min(best, xy[p] + gz[k, p])
                out[i, j, k] = math.sqrt(best) * voxel_size
