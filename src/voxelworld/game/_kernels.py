"""The game's hot loops over plain arrays (see ARCHITECTURE.md): how near each chunk of the volume lies to the
actors, which the streaming asks for at each of its steps."""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True, inline="always")
def _squared_gap(c: int, size: int, last: int, at: float) -> float:
    """The squared gap (samples²) along one axis from ``at`` to chunk ``c``'s samples ``c * size .. min((c + 1) *
    size, last)``, 0 within them."""
    lo = c * size
    gap = max(max(lo - at, at - min(lo + size, last)), 0.0)
    return gap * gap


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
        for c in range(g.shape[0]):
            for p in range(points):
                g[c, p] = _squared_gap(c, size, shape[axis] - 1, local[p, axis])
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


@numba.njit(cache=True, nogil=True)
def listed_chunk_distances(local: np.ndarray, size: int, shape: np.ndarray, chunks: np.ndarray, voxel_size: float,
                           out: np.ndarray) -> None:
    """:func:`chunk_box_distances` of the ``chunks`` listed ((n, 3) int64) alone, into ``out`` ((n,) float64): the
    same sums in the same order, so the same distances bit for bit (a few chunks need not cost the grid)."""
    for n in range(chunks.shape[0]):
        best = np.inf
        for p in range(local.shape[0]):
            xy = _squared_gap(chunks[n, 0], size, shape[0] - 1, local[p, 0]) + \
                _squared_gap(chunks[n, 1], size, shape[1] - 1, local[p, 1])
            best = min(best, xy + _squared_gap(chunks[n, 2], size, shape[2] - 1, local[p, 2]))
        out[n] = math.sqrt(best) * voxel_size


@numba.njit(cache=True, nogil=True)
def chunks_near_points(local: np.ndarray, size: int, grid: np.ndarray, reach: float) -> np.ndarray:
    """The flat indices (int64, sorted, each once) of the chunks of ``grid`` (chunks of ``size`` samples) whose
    index box, one chunk wider on the low side, holds the samples ``local[p] - reach .. local[p] + reach`` along
    every axis for some point p (``local``: (k, 3) float64 samples from the volume's origin): every chunk whose box
    of samples lies within ``reach`` samples of a point along each axis, and a few more."""
    marked = np.zeros(grid[0] * grid[1] * grid[2], dtype=np.bool_)
    count = 0
    lo = np.empty(3, dtype=np.int64)
    hi = np.empty(3, dtype=np.int64)
    for p in range(local.shape[0]):
        for axis in range(3):
            lo[axis] = min(max(int(math.floor((local[p, axis] - reach) / size)) - 1, 0), grid[axis] - 1)
            hi[axis] = min(max(int(math.floor((local[p, axis] + reach) / size)), -1), grid[axis] - 1)
        for i in range(lo[0], hi[0] + 1):
            for j in range(lo[1], hi[1] + 1):
                for k in range(lo[2], hi[2] + 1):
                    flat = (i * grid[1] + j) * grid[2] + k
                    if not marked[flat]:
                        marked[flat] = True
                        count += 1
    out = np.empty(count, dtype=np.int64)
    n = 0
    for flat in range(marked.shape[0]):
        if marked[flat]:
            out[n] = flat
            n += 1
    return out
