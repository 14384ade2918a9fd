"""Kernels of the polygons' *detail*: the height of the walkable surface under a polygon, sampled on the bake's
grid (Recast's detail mesh does this job with triangles).

A polygon's detail is a raster of heights (m) at the centres of the grid cells its corners' box covers: the
heights of its region's samples, and, over cells the region has no sample in, the mean of the neighbours
filled before them (ring by ring outwards). Between cell centres the height is bilinear; beyond the outer
centres it is held. Raster ``r`` of ``nu`` x ``nv`` cells is stored row by row (``r[a * nv + b]``: cell a along
x, b along z).
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def fill_raster(height: np.ndarray, label: np.ndarray, g: int, s: int, u0: int, v0: int, nu: int, nv: int, i_lo: int,
                k_lo: int, out: np.ndarray) -> None:
    """Raster of region g (level s; ``label``: the tile's regions, tile-local from (i_lo, k_lo)) over the
    cells [u0, u0 + nu) x [v0, v0 + nv) of the grid, into ``out`` (nu * nv)."""
    known = np.zeros(nu * nv, np.bool_)
    count = 0
    for a in range(nu):
        for b in range(nv):
            i, k = u0 + a, v0 + b
            if label[i - i_lo, k - k_lo, s] == g:
                out[a * nv + b] = height[i, k, s]
                known[a * nv + b] = True
                count += 1
    if count == 0:
        out[:] = 0.0
        return
    fresh = np.empty(nu * nv, np.bool_)
    while count < nu * nv:
        fresh[:] = False
        for a in range(nu):
            for b in range(nv):
                if known[a * nv + b]:
                    continue
                total, n = 0.0, 0
                for na, nb in ((a - 1, b), (a + 1, b), (a, b - 1), (a, b + 1)):
                    if 0 <= na < nu and 0 <= nb < nv and known[na * nv + nb] and not fresh[na * nv + nb]:
                        total += out[na * nv + nb]
                        n += 1
                if n:
                    out[a * nv + b] = total / n
                    known[a * nv + b] = True
                    fresh[a * nv + b] = True
                    count += 1


@numba.njit(cache=True, nogil=True)
def raster_height(heights: np.ndarray, first: int, nu: int, nv: int, fu: float, fv: float) -> float:
    """The bilinear height (m) of the raster ``heights[first:first + nu * nv]`` at (fu, fv), in cells from its
    first cell's centre."""
    fu = min(max(fu, 0.0), nu - 1.0)
    fv = min(max(fv, 0.0), nv - 1.0)
    a = min(int(math.floor(fu)), max(nu - 2, 0))
    b = min(int(math.floor(fv)), max(nv - 2, 0))
    tu, tv = fu - a, fv - b
    a1, b1 = min(a + 1, nu - 1), min(b + 1, nv - 1)
    h00 = heights[first + a * nv + b]
    h01 = heights[first + a * nv + b1]
    h10 = heights[first + a1 * nv + b]
    h11 = heights[first + a1 * nv + b1]
    return (h00 * (1.0 - tv) + h01 * tv) * (1.0 - tu) + (h10 * (1.0 - tv) + h11 * tv) * tu


@numba.njit(cache=True, nogil=True)
def region_details(height: np.ndarray, label: np.ndarray, g: int, s: int, i_lo: int, k_lo: int, corners: np.ndarray,
                   start: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The details of region g's polygons (level s; ``label``: the tile's regions, tile-local from (i_lo,
    k_lo)): polygon q has the corners ``corners[start[q]:start[q + 1]]`` (grid points, whole cells). Returns
    ``boxes (p, 4)`` (each raster's first cell and size), the rasters one after the other, and the corners'
    heights on them."""
    p = start.shape[0] - 1
    boxes = np.empty((p, 4), np.int64)
    total = 0
    for q in range(p):
        u0, v0, u1, v1 = corners[start[q], 0], corners[start[q], 1], corners[start[q], 0], corners[start[q], 1]
        for c in range(start[q], start[q + 1]):
            u0, u1 = min(u0, corners[c, 0]), max(u1, corners[c, 0])
            v0, v1 = min(v0, corners[c, 1]), max(v1, corners[c, 1])
        boxes[q, 0], boxes[q, 1], boxes[q, 2], boxes[q, 3] = u0, v0, u1 - u0, v1 - v0
        total += (u1 - u0) * (v1 - v0)
    rasters = np.empty(total)
    heights = np.empty(corners.shape[0])
    first = 0
    for q in range(p):
        u0, v0, nu, nv = boxes[q, 0], boxes[q, 1], boxes[q, 2], boxes[q, 3]
        raster = rasters[first:first + nu * nv]
        fill_raster(height, label, g, s, u0, v0, nu, nv, i_lo, k_lo, raster)
        for c in range(start[q], start[q + 1]):
            heights[c] = raster_height(rasters, first, nu, nv, corners[c, 0] - u0 - 0.5, corners[c, 1] - v0 - 0.5)
        first += nu * nv
    return boxes, rasters, heights
