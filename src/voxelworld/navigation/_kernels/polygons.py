"""Kernels that cover walkable samples with rectangles of cells and find the portals along the grid's lines.

A region's samples are ``height[i, k, s]`` (m, NaN where not walkable) for column (i, k) and level s, and
``links[d, i, k, s]``: the level of the neighbour in direction d (0: +x, 1: -x, 2: +z, 3: -z) that the sample
steps to, or -1. Positions are in cells of the region's grid.
"""

from __future__ import annotations

import numba
import numpy as np

from .detail import raster_height
from .outlines import CLIFF, OUT


@numba.njit(cache=True, nogil=True)
def tile_rectangles(height: np.ndarray, links: np.ndarray, i_lo: int, k_lo: int, i_hi: int, k_hi: int, rects: np.ndarray
                    ) -> int:
    """Greedy cover of the walkable samples of columns [i_lo, i_hi) x [k_lo, k_hi) by rectangles, level by
    level, row by row: a rectangle grows along k, then along i, while every cell is free and linked to its
    neighbours inside it on the same level. Writes ``rects[r] = (level, i0, k0, i1, k1)`` (half-open); returns
    the count. ``rects`` must hold one row per cell of the tile."""
    levels = height.shape[2]
    free = np.empty((i_hi - i_lo, k_hi - k_lo), dtype=np.bool_)
    count = 0
    for s in range(levels):
        for i in range(i_lo, i_hi):
            for k in range(k_lo, k_hi):
                free[i - i_lo, k - k_lo] = not np.isnan(height[i, k, s])
        for i in range(i_lo, i_hi):
            k = k_lo
            while k < k_hi:
                if not free[i - i_lo, k - k_lo]:
                    k += 1
                    continue
                k1 = k + 1
                while k1 < k_hi and free[i - i_lo, k1 - k_lo] and links[2, i, k1 - 1, s] == s:
                    k1 += 1
                i1 = i + 1
                while i1 < i_hi:
                    ok = True
                    for kk in range(k, k1):
                        if not free[i1 - i_lo, kk - k_lo] or links[0, i1 - 1, kk, s] != s:
                            ok = False
                            break
                        if kk + 1 < k1 and links[2, i1, kk, s] != s:
                            ok = False
                            break
                    if not ok:
                        break
                    i1 += 1
                for ii in range(i, i1):
                    for kk in range(k, k1):
                        free[ii - i_lo, kk - k_lo] = False
                rects[count, 0] = s
                rects[count, 1] = i
                rects[count, 2] = k
                rects[count, 3] = i1
                rects[count, 4] = k1
                count += 1
                k = k1
    return count


@numba.njit(cache=True, nogil=True)
def held_sides(points: np.ndarray, poly: np.ndarray, poly_labels: np.ndarray, size: np.ndarray, keep: np.ndarray,
               first: int, i_lo: int, k_lo: int, out: np.ndarray) -> int:
    """The samples' sides the polygons ``poly[q, :size[q]]`` (points' indices, counter-clockwise in (i, k),
    tile-local) hold along their sides whose label ``keep`` accepts (``keep[0]``: tile's edge, ``keep[1]``: a
    region stepped to): writes ``out[w] = (first + q, d, i, k)`` (sample (i, k) of the grid, side d) for each
    cell side along them; returns the count. Such sides run along the grid's lines."""
    count = 0
    for q in range(poly.shape[0]):
        n = size[q]
        for j in range(n):
            side = poly_labels[q, j]
            if not ((side == OUT and keep[0]) or (0 <= side < CLIFF and keep[1])):
                continue
            u0, v0 = points[poly[q, j], 0], points[poly[q, j], 1]
            u1, v1 = points[poly[q, (j + 1) % n], 0], points[poly[q, (j + 1) % n], 1]
            if v0 == v1:
                d, lo, hi = (3, u0, u1) if u1 > u0 else (2, u1, u0)
                for u in range(lo, hi):
                    out[count, 0], out[count, 1] = first + q, d
                    out[count, 2], out[count, 3] = u + i_lo, (v0 if d == 3 else v0 - 1) + k_lo
                    count += 1
            elif u0 == u1:
                d, lo, hi = (0, v0, v1) if v1 > v0 else (1, v1, v0)
                for v in range(lo, hi):
                    out[count, 0], out[count, 1] = first + q, d
                    out[count, 2], out[count, 3] = (u0 - 1 if d == 0 else u0) + i_lo, v + k_lo
                    count += 1
    return count


@numba.njit(cache=True, nogil=True)
def grid_portals(polygon: np.ndarray, d: np.ndarray, i: np.ndarray, k: np.ndarray, s: np.ndarray, step: np.ndarray,
                 nx: int, nz: int, levels: int) -> np.ndarray:
    """The portals along the grid's lines (see ``polygons.side_portals``): rows ``(polygon, d, i, k, s)`` of the
    held sides (a side listed twice: the later row holds it) with ``step``, the level each one steps to across it
    (-1: none), on a grid of ``nx`` x ``nz`` columns and ``levels`` levels. Returns rows ``(polygon, neighbour,
    axis, line, first, last)`` by axis, level, line and first point (runs along one line with the same two
    polygons joined)."""
    n = polygon.shape[0]
    key = np.empty(n, np.int64)
    for r in range(n):
        key[r] = ((d[r] * nx + i[r]) * nz + k[r]) * levels + s[r]
    order = np.argsort(key, kind="mergesort")
    last = np.empty(n, np.int64)  # the later row of each side, by key
    m = 0
    for j in range(n):
        if j == n - 1 or key[order[j + 1]] != key[order[j]]:
            last[m] = order[j]
            m += 1
    side_key = np.empty(m, np.int64)
    for j in range(m):
        side_key[j] = key[last[j]]
    found_a = np.empty(m, np.int64)
    found_b = np.empty(m, np.int64)
    found_sort = np.empty(m, np.int64)
    found_axis = np.empty(m, np.int64)
    found_line = np.empty(m, np.int64)
    found_along = np.empty(m, np.int64)
    found_level = np.empty(m, np.int64)
    span = max(nx, nz) + 1
    f = 0
    for j in range(m):
        r = last[j]
        t = step[r]
        if t < 0:
            continue
        wanted = (((d[r] + 1) * nx + i[r] + (d[r] == 0)) * nz + k[r] + (d[r] == 2)) * levels + t
        at = min(np.searchsorted(side_key, wanted), m - 1)
        if side_key[at] != wanted:
            continue
        b = polygon[last[at]]
        if b < 0 or b == polygon[r]:
            continue
        found_a[f], found_b[f], found_level[f] = polygon[r], b, s[r]
        found_axis[f] = 0 if d[r] == 0 else 2
        found_line[f], found_along[f] = (i[r], k[r]) if d[r] == 0 else (k[r], i[r])
        found_sort[f] = (((found_axis[f] // 2) * levels + s[r]) * span + found_line[f]) * span + found_along[f]
        f += 1
    by = np.argsort(found_sort[:f], kind="mergesort")  # axis, level, line, first point; stable
    out = np.empty((f, 6), np.int64)
    rows = 0
    for j in range(f):
        e = by[j]
        if j > 0:
            p = by[j - 1]
            if found_a[e] == found_a[p] and found_b[e] == found_b[p] and found_axis[e] == found_axis[p] \
                    and found_level[e] == found_level[p] and found_line[e] == found_line[p] \
                    and found_along[e] == found_along[p] + 1:
                out[rows - 1, 5] = found_along[e] + 1  # the run goes on
                continue
        out[rows, 0], out[rows, 1], out[rows, 2] = found_a[e], found_b[e], found_axis[e]
        out[rows, 3], out[rows, 4], out[rows, 5] = found_line[e] + 1, found_along[e], found_along[e] + 1
        rows += 1
    return out[:rows]


@numba.njit(cache=True, nogil=True)
def held_side_steps(sides: np.ndarray, links: np.ndarray, out: np.ndarray) -> None:
    """``polygons.side_steps`` of ``sides (w, 5)`` rows ``(polygon, d, i, k, s)`` on the grid of ``links`` (from
    column (0, 0)): ``out[r]``, the level sample (i, k, s) steps to across its +x or +z side d, or -1."""
    nx, nz = links.shape[1], links.shape[2]
    for r in range(sides.shape[0]):
        d, i, k, s = sides[r, 1], sides[r, 2], sides[r, 3], sides[r, 4]
        if (d == 0 or d == 2) and i + (d == 0) < nx and k + (d == 2) < nz:
            out[r] = links[d, i, k, s]
        else:
            out[r] = -1


@numba.njit(cache=True, nogil=True)
def joined_portals(sides: np.ndarray, steps: np.ndarray, nx: int, nz: int, levels: int, inner: np.ndarray,
                   inner_segments: np.ndarray, boxes: np.ndarray, starts: np.ndarray, details: np.ndarray, x0: float,
                   z0: float, cell: float) -> tuple[np.ndarray, np.ndarray]:
    """A region's portals: its tiles' ``inner`` ones (r, 2) with their ``inner_segments`` (r, 2, 3), then those
    along the grid's lines (``grid_portals`` of the held ``sides`` (w, 5) with their ``steps``), whose segments'
    ends lie at the mean height of the two polygons' details (``boxes`` (p, 4), rasters from ``starts`` in
    ``details``) on the grid from ``(x0, z0)`` (m) of spacing ``cell`` (m). Returns the pairs, each (lower,
    higher), and their segments, by pair (stable: as the rows came on a tie)."""
    grid = grid_portals(np.ascontiguousarray(sides[:, 0]), np.ascontiguousarray(sides[:, 1]),
                        np.ascontiguousarray(sides[:, 2]), np.ascontiguousarray(sides[:, 3]),
                        np.ascontiguousarray(sides[:, 4]), steps, nx, nz, levels)
    r0, f = inner.shape[0], grid.shape[0]
    pairs = np.empty((r0 + f, 2), np.int64)
    segments = np.empty((r0 + f, 2, 3))
    for e in range(r0):
        pairs[e, 0], pairs[e, 1] = min(inner[e, 0], inner[e, 1]), max(inner[e, 0], inner[e, 1])
        segments[e] = inner_segments[e]
    for e in range(f):
        a, b, axis, line = grid[e, 0], grid[e, 1], grid[e, 2], grid[e, 3]
        pairs[r0 + e, 0], pairs[r0 + e, 1] = min(a, b), max(a, b)
        for end in range(2):
            along = grid[e, 4 + end]
            gi, gk = (line, along) if axis == 0 else (along, line)
            segments[r0 + e, end, 0] = x0 + gi * cell
            segments[r0 + e, end, 2] = z0 + gk * cell
            ha = raster_height(details, starts[a], boxes[a, 2], boxes[a, 3], gi - boxes[a, 0] - 0.5,
                               gk - boxes[a, 1] - 0.5)
            hb = raster_height(details, starts[b], boxes[b, 2], boxes[b, 3], gi - boxes[b, 0] - 0.5,
                               gk - boxes[b, 1] - 0.5)
            segments[r0 + e, end, 1] = 0.5 * (ha + hb)
    polygons = max(boxes.shape[0], 1)
    key = np.empty(r0 + f, np.int64)
    for e in range(r0 + f):
        key[e] = pairs[e, 0] * polygons + pairs[e, 1]
    order = np.argsort(key, kind="mergesort")
    return pairs[order], segments[order]


@numba.njit(cache=True, nogil=True)
def portal_segments(pairs: np.ndarray, ends: np.ndarray, boxes: np.ndarray, starts: np.ndarray, details: np.ndarray,
                    x0: float, z0: float, cell: float, out: np.ndarray) -> None:
    """``out[r]`` (2, 3): portal r's segment (m) on the grid from ``(x0, z0)`` of spacing ``cell``, its ends at the
    grid points ``ends[r]`` (2, 2), each at the mean height of the details of the two polygons ``pairs[r]``
    (``boxes`` (p, 4), rasters from ``starts`` in ``details``)."""
    for r in range(pairs.shape[0]):
        a, b = pairs[r, 0], pairs[r, 1]
        for end in range(2):
            gi, gk = ends[r, end, 0], ends[r, end, 1]
            out[r, end, 0] = x0 + gi * cell
            out[r, end, 2] = z0 + gk * cell
            ha = raster_height(details, starts[a], boxes[a, 2], boxes[a, 3], gi - boxes[a, 0] - 0.5,
                               gk - boxes[a, 1] - 0.5)
            hb = raster_height(details, starts[b], boxes[b, 2], boxes[b, 3], gi - boxes[b, 0] - 0.5,
                               gk - boxes[b, 1] - 0.5)
            out[r, end, 1] = 0.5 * (ha + hb)
