"""A region's outline cut into convex polygons in one call: traced, simplified (trying each pair of errors in
turn until the loops are valid), holes bridged, ear clipped and merged (``outlines`` and ``triangles`` hold the
steps), and what the tile keeps of them (corners, details, held sides, shared and inner sides) in another. One
call per step of a region instead of dozens from Python: a tile re-baked every frame pays for the work, not for
the calls.

Numba's cache keys a kernel on its own file only: the kernels here compile the steps' code into themselves, so a
change to a step (in ``outlines``, ``triangles``, ``detail`` or ``polygons``) must touch this file too (a line
below) or a stale cache goes on running the old step.
"""

# Steps last changed: cliffs only where both sides see one; a chord blocked by the cells it encloses; a short loop's added
# point re-simplifies the two stretches it splits; crossings bucketed by row in room made once (outlines).

from __future__ import annotations

import numba
import numpy as np

from .detail import region_details
from .outlines import CLIFF, loops_valid, simplify_forced, trace
from .polygons import held_sides
from .triangles import bridge_holes, ear_clip, merge_convex


@numba.njit(cache=True, nogil=True)
def _failed() -> tuple[bool, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return (False, np.empty((0, 2), np.int64), np.empty((0, 1), np.int64), np.empty((0, 1), np.int64),
            np.empty(0, np.int64), np.empty((0, 4), np.int64))


@numba.njit(cache=True, nogil=True)
def outline_polygons(label: np.ndarray, links: np.ndarray, g: int, cells: np.ndarray, i_lo: int, k_lo: int, i_hi: int,
                     k_hi: int, claim: np.ndarray, region_level: np.ndarray, errors: np.ndarray, max_corners: int,
                     force: np.ndarray, want: np.ndarray) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                                  np.ndarray]:
    """The convex polygons of region g of a tile (its cells ``cells[c] = (a, b)``, tile-local; ``label``: the
    tile's regions; ``claim`` as ``outlines.claims`` gives it; ``region_level[h]``: region h's level):
    ``(ok, points, poly, labels, size, pairs)``: the tile-local grid points, polygon q's point indices
    ``poly[q, :size[q]]`` (counter-clockwise in (i, k)) and its sides' labels, the inner sides (p, q, a, b);
    ``ok`` False (and empty arrays) when the outline cannot be cut. ``errors[e] = (wall, shared)``: the errors
    (cells; < 0: exact) to simplify with, tried in turn. ``force``, ``want`` (tile-local grid points, (i_hi - i_lo
    + 1, k_hi - k_lo + 1) bool): the points every outline keeps, and where the points its short loops needed
    inside a stretch shared with another region are marked (``outlines.simplify_forced``)."""
    room = 4 * cells.shape[0] + 4
    points = np.empty((room, 2), np.int64)
    labels = np.empty(room, np.int64)
    loop_start = np.empty(room + 1, np.int64)
    loops = trace(label, links, g, region_level[g], cells, i_lo, k_lo, i_hi, k_hi, points, labels, loop_start)
    if loops <= 0:
        return _failed()
    keep = np.zeros(room, np.bool_)
    valid = False
    order = np.empty(0, np.int64)
    starts = np.empty(0, np.int64)
    for e in range(errors.shape[0]):
        simplify_forced(points, labels, loop_start, loops, errors[e, 0], errors[e, 1], claim, region_level, g, keep,
                        force, want)
        order = np.flatnonzero(keep[:loop_start[loops]])
        starts = np.searchsorted(order, loop_start[:loops + 1])
        if loops_valid(points, starts, loops, order):
            valid = True
            break
    if not valid:
        return _failed()
    ring = np.empty(order.shape[0] + 2 * loops, np.int64)
    ring_labels = np.empty(ring.shape[0], np.int64)
    n = bridge_holes(points, order, labels[order], starts, loops, ring, ring_labels)
    if n < 0:
        return _failed()
    triangles = np.empty((n - 2, 3), np.int64)
    triangle_labels = np.empty((n - 2, 3), np.int64)
    if ear_clip(points, ring, ring_labels, n, triangles, triangle_labels) != n - 2:
        return _failed()
    poly = np.empty((n - 2, max(max_corners, 3)), np.int64)
    poly_labels = np.empty_like(poly)
    size = np.empty(n - 2, np.int64)
    pairs = np.empty((3 * (n - 2), 4), np.int64)
    inner = merge_convex(points, triangles, triangle_labels, n - 2, max_corners, poly, poly_labels, size, pairs)
    renumber = np.full(n - 2, -1, np.int64)
    alive = 0
    for q in range(n - 2):
        if size[q] > 0:
            renumber[q] = alive
            alive += 1
    kept_poly = np.empty((alive, poly.shape[1]), np.int64)
    kept_labels = np.empty((alive, poly.shape[1]), np.int64)
    kept_size = np.empty(alive, np.int64)
    for q in range(n - 2):
        if size[q] > 0:
            kept_poly[renumber[q]] = poly[q]
            kept_labels[renumber[q]] = poly_labels[q]
            kept_size[renumber[q]] = size[q]
    kept_pairs = pairs[:inner].copy()
    for e in range(inner):
        kept_pairs[e, 0], kept_pairs[e, 1] = renumber[kept_pairs[e, 0]], renumber[kept_pairs[e, 1]]
    return True, points, kept_poly, kept_labels, kept_size, kept_pairs


@numba.njit(cache=True, nogil=True)
def region_pieces(points: np.ndarray, poly: np.ndarray, labels: np.ndarray, size: np.ndarray, pairs: np.ndarray, g: int,
                  s: int, height: np.ndarray, label: np.ndarray, i_lo: int, k_lo: int, keep: np.ndarray, first: int,
                  shared_too: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                             np.ndarray, np.ndarray, np.ndarray]:
    """What a tile keeps of region g's polygons (level s; ``outline_polygons``' output, numbered from ``first``
    in the tile): ``(corners, start, boxes, rasters, heights, sides, shared, inner, inner_ends)``: each polygon's
    corners on the grid, clockwise in (i, k) (counter-clockwise seen from above), from ``start[q]``; their details
    (``detail.region_details``); the samples' sides they hold whose label ``keep`` accepts
    (``polygons.held_sides``); with ``shared_too``, each side shared with another region as a row (the lower
    region, the higher, the polygon, the side's two tile-local points); the inner sides' polygons and grid
    ends."""
    p = size.shape[0]
    start = np.empty(p + 1, np.int64)
    start[0] = 0
    for q in range(p):
        start[q + 1] = start[q] + size[q]
    corners = np.empty((start[p], 2), np.int64)
    for q in range(p):
        for c in range(size[q]):
            point = poly[q, size[q] - 1 - c]
            corners[start[q] + c, 0] = points[point, 0] + i_lo
            corners[start[q] + c, 1] = points[point, 1] + k_lo
    boxes, rasters, heights = region_details(height, label, g, s, i_lo, k_lo, corners, start)
    out = np.empty((start[p] + 4 * points.shape[0], 4), np.int64)
    sides = out[:held_sides(points, poly, labels, size, keep, first, i_lo, k_lo, out)]
    rows = 0
    if shared_too:
        for q in range(p):
            for j in range(size[q]):
                if 0 <= labels[q, j] < CLIFF:
                    rows += 1
    shared = np.empty((rows, 7), np.int64)
    r = 0
    if shared_too:
        for q in range(p):
            for j in range(size[q]):
                across = labels[q, j]
                if 0 <= across < CLIFF:
                    a, b = poly[q, j], poly[q, (j + 1) % size[q]]
                    shared[r, 0], shared[r, 1], shared[r, 2] = min(across, g), max(across, g), first + q
                    shared[r, 3], shared[r, 4], shared[r, 5], shared[r, 6] = points[a, 0], points[a, 1], \
                        points[b, 0], points[b, 1]
                    r += 1
    inner = np.empty((pairs.shape[0], 2), np.int64)
    inner_ends = np.empty((pairs.shape[0], 2, 2), np.int64)
    for e in range(pairs.shape[0]):
        inner[e, 0], inner[e, 1] = pairs[e, 0] + first, pairs[e, 1] + first
        for end in range(2):
            inner_ends[e, end, 0] = points[pairs[e, 2 + end], 0] + i_lo
            inner_ends[e, end, 1] = points[pairs[e, 2 + end], 1] + k_lo
    return corners, start, boxes, rasters, heights, sides, shared, inner, inner_ends


@numba.njit(cache=True, nogil=True)
def shared_portals(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The portals of the simplified sides two regions of a tile share (``polygons._shared_portals``): ``rows``
    (n, 7), each (the lower region, the higher, the polygon, a side's two tile-local points), as ``region_pieces``
    gives them. A side is held by one polygon of each region, with the same two points in either order: rows are
    ordered by (regions, lower point, higher point) then as they came, and each row equal in those to the row
    before it pairs with it. Returns the pairs (the row met first's polygon, the other's) and each portal's ends
    (as the second row holds them)."""
    n = rows.shape[0]
    keys = np.empty((n, 6), np.int64)
    span_r, span_p = 1, 1
    for r in range(n):
        a0, a1, b0, b1 = rows[r, 3], rows[r, 4], rows[r, 5], rows[r, 6]
        if a0 > b0 or (a0 == b0 and a1 > b1):
            a0, a1, b0, b1 = b0, b1, a0, a1
        keys[r, 0], keys[r, 1], keys[r, 2], keys[r, 3], keys[r, 4], keys[r, 5] = rows[r, 0], rows[r, 1], a0, a1, b0, b1
        span_r = max(span_r, rows[r, 1] + 1, rows[r, 0] + 1)
        span_p = max(span_p, a0 + 1, a1 + 1, b0 + 1, b1 + 1)
    key = np.empty(n, np.int64)  # the six keys as one number (regions < 2^17, points < 2^7 in a tile: no overflow)
    for r in range(n):
        key[r] = ((((keys[r, 0] * span_r + keys[r, 1]) * span_p + keys[r, 2]) * span_p + keys[r, 3]) * span_p
                  + keys[r, 4]) * span_p + keys[r, 5]
    order = np.argsort(key, kind="mergesort")
    count = 0
    for j in range(n - 1):
        if key[order[j]] == key[order[j + 1]]:
            count += 1
    pairs = np.empty((count, 2), np.int64)
    ends = np.empty((count, 2, 2), np.int64)
    e = 0
    for j in range(n - 1):
        first, second = order[j], order[j + 1]
        if key[first] == key[second]:
            pairs[e, 0], pairs[e, 1] = rows[first, 2], rows[second, 2]
            ends[e, 0, 0], ends[e, 0, 1] = rows[second, 3], rows[second, 4]
            ends[e, 1, 0], ends[e, 1, 1] = rows[second, 5], rows[second, 6]
            e += 1
    return pairs, ends
