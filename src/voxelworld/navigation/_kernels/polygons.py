"""Kernels that turn walkable samples into rectangles of cells and find the portals between them.

A region's samples are ``height[i, k, s]`` (m, NaN where not walkable) for column (i, k) and level s, and
``links[d, i, k, s]``: the level of the neighbour in direction d (0: +x, 1: -x, 2: +z, 3: -z) that the sample
steps to, or -1. Heights are in metres, positions in cells of the region's grid.
"""

import numba
import numpy as np


@numba.njit(cache=True)
def _plane(height, s, i0, k0, i1, k1):
    """Least-squares plane through the cells' heights: (height at the rectangle's centre, slope along i per
    cell, slope along k per cell, largest distance of a cell's height from the plane). On a full rectangle of
    cells the cross term vanishes, so each slope is a one-dimensional fit."""
    n = (i1 - i0) * (k1 - k0)
    ci = 0.5 * (i0 + i1 - 1)
    ck = 0.5 * (k0 + k1 - 1)
    total = 0.0
    for i in range(i0, i1):
        for k in range(k0, k1):
            total += height[i, k, s]
    mean = total / n
    sih = 0.0
    sii = 0.0
    skh = 0.0
    skk = 0.0
    for i in range(i0, i1):
        for k in range(k0, k1):
            h = height[i, k, s] - mean
            sih += (i - ci) * h
            sii += (i - ci) * (i - ci)
            skh += (k - ck) * h
            skk += (k - ck) * (k - ck)
    slope_i = sih / sii if sii > 0.0 else 0.0
    slope_k = skh / skk if skk > 0.0 else 0.0
    worst = 0.0
    for i in range(i0, i1):
        for k in range(k0, k1):
            off = abs(height[i, k, s] - (mean + slope_i * (i - ci) + slope_k * (k - ck)))
            if off > worst:
                worst = off
    return mean, slope_i, slope_k, worst


@numba.njit(cache=True)
def tile_rectangles(height, links, i_lo, k_lo, i_hi, k_hi, height_error, rects, planes):
    """Greedy cover of the walkable samples of columns [i_lo, i_hi) x [k_lo, k_hi) by rectangles, level by
    level, row by row: a rectangle grows along k, then along i, while every cell is free, linked to its
    neighbours inside it on the same level, and within ``height_error`` (m) of the least-squares plane of its
    cells. Writes ``rects[r] = (level, i0, k0, i1, k1)`` (half-open) and ``planes[r] = (height at the centre,
    slope per cell along i, along k)``; returns the count. ``rects`` must hold one row per cell of the tile."""
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
                while (k1 < k_hi and free[i - i_lo, k1 - k_lo] and links[2, i, k1 - 1, s] == s
                       and _plane(height, s, i, k, i + 1, k1 + 1)[3] <= height_error):
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
                    if not ok or _plane(height, s, i, k, i1 + 1, k1)[3] > height_error:
                        break
                    i1 += 1
                for ii in range(i, i1):
                    for kk in range(k, k1):
                        free[ii - i_lo, kk - k_lo] = False
                mean, slope_i, slope_k, _ = _plane(height, s, i, k, i1, k1)
                rects[count, 0] = s
                rects[count, 1] = i
                rects[count, 2] = k
                rects[count, 3] = i1
                rects[count, 4] = k1
                planes[count, 0] = mean
                planes[count, 1] = slope_i
                planes[count, 2] = slope_k
                count += 1
                k = k1
    return count


@numba.njit(cache=True)
def rectangle_portals(links, owner, rects, out):
    """The stretches of the +x and +z sides of each rectangle over which its cells link to cells of another
    rectangle (``owner[i, k, s]``: the rectangle of each sample, -1 for none). Writes ``out[p] = (rectangle,
    neighbour, axis (0: the side i = i1, 2: the side k = k1), first, last + 1)`` with first/last the cell
    indices along the side; returns the count. ``out`` needs a row per cell on the rectangles' sides."""
    nx, nz = owner.shape[0], owner.shape[1]
    count = 0
    for r in range(rects.shape[0]):
        s, i0, k0, i1, k1 = rects[r, 0], rects[r, 1], rects[r, 2], rects[r, 3], rects[r, 4]
        for axis in (0, 2):
            if axis == 0:
                if i1 >= nx:
                    continue
                lo, hi = k0, k1
            else:
                if k1 >= nz:
                    continue
                lo, hi = i0, i1
            current = -1
            start = lo
            for t in range(lo, hi + 1):
                other = -1
                if t < hi:
                    if axis == 0:
                        level = links[0, i1 - 1, t, s]
                        if level >= 0:
                            other = owner[i1, t, level]
                    else:
                        level = links[2, t, k1 - 1, s]
                        if level >= 0:
                            other = owner[t, k1, level]
                if other != current:
                    if current >= 0:
                        out[count, 0] = r
                        out[count, 1] = current
                        out[count, 2] = axis
                        out[count, 3] = start
                        out[count, 4] = t
                        count += 1
                    current = other
                    start = t
    return count


@numba.njit(cache=True)
def fill_owner(rects, owner):
    """``owner[i, k, s] = r`` for every cell (i, k) of rectangle r on level s (``owner`` preset to -1)."""
    for r in range(rects.shape[0]):
        s, i0, k0, i1, k1 = rects[r, 0], rects[r, 1], rects[r, 2], rects[r, 3], rects[r, 4]
        for i in range(i0, i1):
            for k in range(k0, k1):
                owner[i, k, s] = r


@numba.njit(cache=True, inline="always")
def _plane_height(rects, planes, r, u, v):
    """Height (m) of rectangle r's plane at grid coordinates (u, v) in cells (cell centres at i + 0.5)."""
    ci = 0.5 * (rects[r, 1] + rects[r, 3])
    ck = 0.5 * (rects[r, 2] + rects[r, 4])
    return planes[r, 0] + planes[r, 1] * (u - ci) + planes[r, 2] * (v - ck)


@numba.njit(cache=True)
def rectangle_mesh(rects, planes, links, owner, x0, z0, cell, triangles):
    """The polygons of a region's rectangles (``rects[r] = (level, i0, k0, i1, k1)``, ``planes[r]`` as
    :func:`tile_rectangles` writes them) on its grid (origin ``x0``, ``z0``, ``cell`` in m): each rectangle's
    corners (x0, z0) (x0, z1) (x1, z1) (x1, z0) on its plane, counter-clockwise seen from above; as one polygon
    of four corners, or (``triangles``) two triangles split along (x0, z0)-(x1, z1), the first holding the sides
    x = x0 and z = z1, the second z = z0 and x = x1. ``owner`` (the grid's shape, all -1) is scratch.

    Returns ``vertices (4n, 3)``, ``corners`` (indices into them, 4 or 3 per polygon), ``levels`` (per
    polygon), ``pairs (r, 2)`` (the two polygons of each portal, lower first; rectangles' portals as
    :func:`rectangle_portals` finds them, then each rectangle's diagonal) and ``segments (r, 2, 3)`` (m; a
    portal's ends at the mean height of the two planes)."""
    n = rects.shape[0]
    vertices = np.empty((4 * n, 3))
    for r in range(n):
        for c in range(4):
            u = rects[r, 1] if c < 2 else rects[r, 3]
            v = rects[r, 2] if c == 0 or c == 3 else rects[r, 4]
            vertices[4 * r + c, 0] = x0 + u * cell
            vertices[4 * r + c, 1] = _plane_height(rects, planes, r, float(u), float(v))
            vertices[4 * r + c, 2] = z0 + v * cell
    fill_owner(rects, owner)
    room = 1
    for r in range(n):
        room += 2 * ((rects[r, 3] - rects[r, 1]) + (rects[r, 4] - rects[r, 2]))
    found = np.empty((room, 5), np.int64)
    count = rectangle_portals(links, owner, rects, found)
    for r in range(n):  # leave the scratch as it was given
        for i in range(rects[r, 1], rects[r, 3]):
            for k in range(rects[r, 2], rects[r, 4]):
                owner[i, k, rects[r, 0]] = -1
    total = count + (n if triangles else 0)
    pairs = np.empty((total, 2), np.int64)
    segments = np.empty((total, 2, 3))
    for p in range(count):
        r, m, axis, first, last = found[p, 0], found[p, 1], found[p, 2], found[p, 3], found[p, 4]
        on_x = axis == 0
        ends = ((float(rects[r, 3]), float(first)), (float(rects[r, 3]), float(last))) if on_x else \
            ((float(first), float(rects[r, 4])), (float(last), float(rects[r, 4])))
        for e in range(2):
            u, v = ends[e]
            segments[p, e, 0] = x0 + u * cell
            segments[p, e, 1] = 0.5 * (_plane_height(rects, planes, r, u, v) + _plane_height(rects, planes, m, u, v))
            segments[p, e, 2] = z0 + v * cell
        a, b = (r, m) if not triangles else ((2 * r + 1, 2 * m) if on_x else (2 * r, 2 * m + 1))
        pairs[p, 0], pairs[p, 1] = min(a, b), max(a, b)
    corner_count = 3 if triangles else 4
    polygons = 2 * n if triangles else n
    corners = np.empty(polygons * corner_count, np.int64)
    levels = np.empty(polygons, np.int64)
    for r in range(n):
        base = 4 * r
        if triangles:
            for j, c in enumerate((0, 1, 2, 0, 2, 3)):
                corners[6 * r + j] = base + c
            levels[2 * r], levels[2 * r + 1] = rects[r, 0], rects[r, 0]
            pairs[count + r, 0], pairs[count + r, 1] = 2 * r, 2 * r + 1
            segments[count + r, 0, :] = vertices[base]
            segments[count + r, 1, :] = vertices[base + 2]
        else:
            for c in range(4):
                corners[4 * r + c] = base + c
            levels[r] = rects[r, 0]
    return vertices, corners, levels, pairs, segments
