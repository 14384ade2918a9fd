"""Kernels that group a tile's walkable samples into *regions*: the parts of one level the outlines are traced
around.

A region is a set of samples of one level of one tile that are 4-connected, step to each other wherever two of
them are neighbours, and touch each other diagonally only where a third of their cells joins the two (no
*pinch*: a 2 x 2 block of cells holding exactly two diagonal cells of the region). A region's outline is
therefore one outer loop and its holes, all simple and apart from each other. Regions grow from the tile's
rectangles (``tile_rectangles``), which have these properties, by merging neighbouring ones while the union
keeps them. Cells are ``(i, k)`` of the region's grid.
"""

from __future__ import annotations

import numba
import numpy as np

from .samples import _root  # the islands' union-find: one root per region

_STEP_I = (1, -1, 0, 0)
_STEP_K = (0, 0, 1, -1)


@numba.njit(cache=True, nogil=True, inline="always")
def _cell_fits(links: np.ndarray, owner: np.ndarray, parent: np.ndarray, a: int, b: int, i: int, k: int, s: int,
               i_lo: int, k_lo: int, i_hi: int, k_hi: int) -> bool:
    """Whether cell (i, k) of region b (level s) may join region a: linked both ways to each neighbour of a, no
    pinch with a diagonal neighbour of a."""
    for d in range(4):
        ni, nk = i + _STEP_I[d], k + _STEP_K[d]
        if not (i_lo <= ni < i_hi and k_lo <= nk < k_hi):
            continue
        m = owner[ni - i_lo, nk - k_lo, s]
        if m >= 0 and _root(parent, m) == a:
            if links[d, i, k, s] != s or links[d ^ 1, ni, nk, s] != s:
                return False
    for di in (-1, 1):
        for dk in (-1, 1):
            ni, nk = i + di, k + dk
            if not (i_lo <= ni < i_hi and k_lo <= nk < k_hi):
                continue
            m = owner[ni - i_lo, nk - k_lo, s]
            if m < 0 or _root(parent, m) != a:
                continue
            joined = False
            for ci, ck in ((ni, k), (i, nk)):
                c = owner[ci - i_lo, ck - k_lo, s]
                if c >= 0 and (_root(parent, c) == a or _root(parent, c) == b):
                    joined = True
            if not joined:
                return False
    return True


@numba.njit(cache=True, nogil=True)
def _fits(links: np.ndarray, rects: np.ndarray, owner: np.ndarray, parent: np.ndarray, members: np.ndarray,
          after: np.ndarray, a: int, b: int, i_lo: int, k_lo: int, i_hi: int, k_hi: int) -> bool:
    """Whether regions a and b (roots) may merge: every pair of neighbouring cells across them linked both
    ways, and no pinch between a cell of b and a cell of a. Only the cells on the edge of b's rectangles are
    looked at: an inner cell's eight neighbours all lie in its own rectangle."""
    r = members[b]
    while r >= 0:
        s = rects[r, 0]
        i0, k0, i1, k1 = rects[r, 1], rects[r, 2], rects[r, 3], rects[r, 4]
        for i in range(i0, i1):
            edge = i == i0 or i == i1 - 1
            k = k0
            while k < k1:
                if not _cell_fits(links, owner, parent, a, b, i, k, s, i_lo, k_lo, i_hi, k_hi):
                    return False
                k = k + 1 if edge or k == k1 - 1 else k1 - 1
        r = after[r]
    return True


@numba.njit(cache=True, nogil=True)
def tile_regions(links: np.ndarray, rects: np.ndarray, levels: int, i_lo: int, k_lo: int, i_hi: int, k_hi: int,
                 region: np.ndarray) -> int:
    """Merge the rectangles ``rects[r] = (level, i0, k0, i1, k1)`` of the tile [i_lo, i_hi) x [k_lo, k_hi)
    (from ``tile_rectangles``; ``levels`` of samples) into regions (see the module's docstring). Neighbouring
    rectangles are tried in the order their cells meet (levels, then i, then k; +x before +z). Writes ``region[r]``
    (regions numbered by their first rectangle); returns the region count."""
    n = rects.shape[0]
    owner = np.full((i_hi - i_lo, k_hi - k_lo, levels), -1, np.int64)
    parent = np.arange(n)
    members = np.arange(n)  # first rectangle of a root's list
    last = np.arange(n)
    after = np.full(n, -1)
    for r in range(n):
        s = rects[r, 0]
        for i in range(rects[r, 1], rects[r, 3]):
            for k in range(rects[r, 2], rects[r, 4]):
                owner[i - i_lo, k - k_lo, s] = r
    for s in range(levels):
        for i in range(i_lo, i_hi):
            for k in range(k_lo, k_hi):
                r = owner[i - i_lo, k - k_lo, s]
                if r < 0:
                    continue
                for d in (0, 2):
                    ni, nk = i + _STEP_I[d], k + _STEP_K[d]
                    if ni >= i_hi or nk >= k_hi or links[d, i, k, s] != s:
                        continue
                    m = owner[ni - i_lo, nk - k_lo, s]
                    if m < 0:
                        continue
                    a, b = _root(parent, r), _root(parent, m)
                    if a == b:
                        continue
                    if b < a:
                        a, b = b, a
                    if not _fits(links, rects, owner, parent, members, after, a, b, i_lo, k_lo, i_hi, k_hi):
                        continue
                    parent[b] = a
                    after[last[a]] = members[b]
                    last[a] = last[b]
    count = 0
    number = np.full(n, -1)
    for r in range(n):
        root = _root(parent, r)
        if number[root] < 0:
            number[root] = count
            count += 1
        region[r] = number[root]
    return count


@numba.njit(cache=True, nogil=True)
def paint_regions(rects: np.ndarray, region: np.ndarray, i_lo: int, k_lo: int, label: np.ndarray) -> None:
    """``label[i - i_lo, k - k_lo, s] = region[r]`` over every cell of each rectangle r."""
    for r in range(rects.shape[0]):
        label[rects[r, 1] - i_lo:rects[r, 3] - i_lo, rects[r, 2] - k_lo:rects[r, 4] - k_lo, rects[r, 0]] = region[r]


@numba.njit(cache=True, nogil=True)
def region_cells(label: np.ndarray, rects: np.ndarray, region: np.ndarray, count: int, cells: np.ndarray,
                 bounds: np.ndarray, region_level: np.ndarray) -> int:
    """Each region's cells, from one counting sort of the tile's labels (``label[a, b, s] = g``, -1 where no
    region): region g's cells are ``cells[bounds[g]:bounds[g + 1]]``, rows ``(a, b)`` in the order of (a, b, s),
    as a stable sort of ``np.nonzero(label >= 0)`` by region gives them; ``region_level[g]``: the level of g's
    first rectangle (``rects[r] = (level, ...)``, ``region[r]`` its region). ``cells`` needs a row per
    labelled cell; ``bounds`` (count + 1,), ``region_level`` (count,). Returns the number of cells."""
    bounds[:] = 0
    for r in range(rects.shape[0] - 1, -1, -1):
        region_level[region[r]] = rects[r, 0]
    ni, nk, levels = label.shape
    for a in range(ni):
        for b in range(nk):
            for s in range(levels):
                g = label[a, b, s]
                if g >= 0:
                    bounds[g + 1] += 1
    for g in range(count):
        bounds[g + 1] += bounds[g]
    at = bounds[:count].copy()
    for a in range(ni):
        for b in range(nk):
            for s in range(levels):
                g = label[a, b, s]
                if g >= 0:
                    cells[at[g], 0] = a
                    cells[at[g], 1] = b
                    at[g] += 1
    return bounds[count]


@numba.njit(cache=True, nogil=True)
def area_links(links: np.ndarray, area: np.ndarray, i_lo: int, k_lo: int, i_hi: int, k_hi: int, out: np.ndarray
               ) -> None:
    """``out[d, i - i_lo, k - k_lo, s]``: ``links[d, i, k, s]`` over the tile [i_lo, i_hi) x [k_lo, k_hi), or -1
    where the neighbour it steps to has another area type (``area[i, k, s]``): what regions grow over, so that
    no region (and no polygon) holds two area types, while the links themselves (and the portals) stay."""
    nx, nz = area.shape[0], area.shape[1]
    levels = area.shape[2]
    for d in range(4):
        for i in range(i_lo, i_hi):
            for k in range(k_lo, k_hi):
                ni, nk = i + _STEP_I[d], k + _STEP_K[d]
                for s in range(levels):
                    t = links[d, i, k, s]
                    if t >= 0 and 0 <= ni < nx and 0 <= nk < nz and area[ni, nk, t] != area[i, k, s]:
                        t = -1
                    out[d, i - i_lo, k - k_lo, s] = t
