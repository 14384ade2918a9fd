"""Polyanya: the exact shortest path on the x-z plane over convex polygons (Cui, Harabor and Grastien,
"Compromise-free Pathfinding on a Navigation Mesh", IJCAI 2017), written from the paper's description.

A search node is a *root* (a point the path so far ends at: the start or a vertex it bent around), an
*interval* on a piece of a polygon's boundary ring that the root sees, and the polygon across it, which the
node expands into. Its cost is ``f = g + h``: ``g`` the length to the root, ``h`` the shortest way from the root
through the interval to the goal, nothing else in the way (:func:`heuristic`: the goal mirrored across the
interval's line when it lies on the root's side). Expanding a node projects the interval across its polygon
(:func:`cone_cut`): pieces of the far boundary inside the cone from the root are *observable* successors (same
root); pieces beside the cone are reached by bending at the interval's end, so they become successors rooted
there, but only when that end is a vertex that ends a wall (``corner``): bending anywhere else is never
shortest. A root the search already reached by a shorter way is pruned (the best ``g`` per vertex, stamped per
query). The first node to come out of the queue that finishes at the goal (its polygon is the goal's) gives the
shortest path: the chain of roots from the start, perhaps an interval's end, then the goal.

A root on the line of the interval it looks through (the start on a polygon's side, or a vertex looking along
a side) sees the whole polygon across; one on that line but off the interval first walks along the line to the
interval's end, which must then be a corner. Geometry on the x-z plane; a point within ``EPS`` (m) of a line is
on it, an interval's end within ``EPS`` of its piece's end is that end (so ``t`` is exactly 0 or 1 there).

Arrays: ``rings`` as built by ``paths.boundary_rings`` (an ``arrays.BoundaryRings``); ``surface`` (an
``arrays.Surface``) as in ``locate``. The scratch (an ``arrays.SearchScratch``), owned by a ``NavQuery`` and reused
(nothing is cleared between queries): ``node_f (cap, 4)``: f, then t_lo, t_hi of the interval (for a finishing node:
the point it bends at, x, z, y); ``node_i (cap, 3)``: the interval's piece, the root's record, the kind
(:data:`SEEN`, :data:`ALONG`, :data:`DONE`, :data:`DONE_VIA`); ``record_f (cap, 4)``: a root's x, z, y and g;
``record_i (cap, 2)``: its vertex (-1: the start) and the record it was reached from; ``heap (cap,)``: the queue
(lowest f first, then the earlier node); ``best_g (v,)`` and ``stamp (v,)``: the best g of each vertex and the query
that wrote it; ``counts (5,)``: nodes, queue size, records, the query counter, and whether a buffer ran full;
``entered (p, 2)`` and ``entered_g (p,)``: the query, the root's vertex (-1: the start) and its g of the last node
queued into each polygon from a root on its boundary.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .arrays import BoundaryRings, SearchScratch, Surface
from .locate import height

EPS = 1e-9  # m
TIE = 1e-9  # relative: a root reached again this close to its best g is kept (ties lead different ways)
SEEN, ALONG, DONE, DONE_VIA = 0, 1, 2, 3  # node kinds: root off the interval's line, on it, finishing nodes
NODES, QUEUED, RECORDS, QUERY, FULL = 0, 1, 2, 3, 4  # counts


@njit(cache=True, nogil=True, error_model="numpy")
def orient(ox: float, oz: float, ax: float, az: float, px: float, pz: float) -> float:
    """Twice the signed area of o, a, p (x-z plane): positive when p lies left of the line o -> a."""
    return (ax - ox) * (pz - oz) - (az - oz) * (px - ox)


@njit(cache=True, nogil=True, error_model="numpy")
def side(ox: float, oz: float, ax: float, az: float, px: float, pz: float) -> float:
    """The signed distance (m) of p from the line o -> a (positive: left), 0.0 within EPS."""
    length = math.sqrt((ax - ox) ** 2 + (az - oz) ** 2)
    if length == 0.0:
        return 0.0
    d = orient(ox, oz, ax, az, px, pz) / length
    return 0.0 if abs(d) <= EPS else d


@njit(cache=True, nogil=True, error_model="numpy")
def _snap(t: float, length: float) -> float:
    """t along a piece of ``length`` m, exactly 0 or 1 within EPS of its ends."""
    if t * length <= EPS:
        return 0.0
    if (1.0 - t) * length <= EPS:
        return 1.0
    return t


@njit(cache=True, nogil=True, error_model="numpy")
def cone_cut(rx: float, rz: float, lx: float, lz: float, hx: float, hz: float, ux: float, uz: float, vx: float,
             vz: float) -> tuple[float, float]:
    """Where the cone from root r through the interval l-h (r right of l -> h) cuts the piece u -> v of the far
    boundary (counter-clockwise, so walked from h's side towards l's): ``(tb, ta)`` with ``[0, tb]`` beside
    the cone on h's side, ``[tb, ta]`` inside it and ``[ta, 1]`` beside it on l's side."""
    length = math.sqrt((vx - ux) ** 2 + (vz - uz) ** 2)
    bu, bv = side(rx, rz, hx, hz, ux, uz), side(rx, rz, hx, hz, vx, vz)
    tb = 1.0 if bv < 0.0 else _snap(bu / (bu - bv), length) if bu < 0.0 else 0.0
    au, av = side(rx, rz, lx, lz, ux, uz), side(rx, rz, lx, lz, vx, vz)
    ta = 0.0 if au > 0.0 else _snap(au / (au - av), length) if av > 0.0 else 1.0
    return tb, max(ta, tb)


@njit(cache=True, nogil=True, error_model="numpy")
def heuristic(rx: float, rz: float, lx: float, lz: float, hx: float, hz: float, gx: float, gz: float) -> float:
    """The shortest way (m) from root r to goal g through a point of the interval l-h with nothing in the way;
    r must not lie on the interval's line."""
    ex, ez = hx - lx, hz - lz
    if orient(lx, lz, hx, hz, rx, rz) * orient(lx, lz, hx, hz, gx, gz) > 0.0:  # same side: mirror g
        k = 2.0 * ((gx - lx) * ex + (gz - lz) * ez) / (ex * ex + ez * ez)
        gx, gz = 2.0 * lx + k * ex - gx, 2.0 * lz + k * ez - gz
    if orient(rx, rz, gx, gz, lx, lz) * orient(rx, rz, gx, gz, hx, hz) <= 0.0:  # straight through
        return math.sqrt((gx - rx) ** 2 + (gz - rz) ** 2)
    return min(math.sqrt((lx - rx) ** 2 + (lz - rz) ** 2) + math.sqrt((gx - lx) ** 2 + (gz - lz) ** 2),
               math.sqrt((hx - rx) ** 2 + (hz - rz) ** 2) + math.sqrt((gx - hx) ** 2 + (gz - hz) ** 2))


@njit(cache=True, nogil=True, error_model="numpy")
def _next(ring_start: np.ndarray, ring_polygon: np.ndarray, k: int) -> int:
    return k + 1 if k + 1 < ring_start[ring_polygon[k] + 1] else ring_start[ring_polygon[k]]


# ------------------------------------------------------------------------------------------------ queue
@njit(cache=True, nogil=True, error_model="numpy")
def _before(node_f: np.ndarray, u: int, v: int) -> bool:
    return node_f[u, 0] < node_f[v, 0] or (node_f[u, 0] == node_f[v, 0] and u < v)


@njit(cache=True, nogil=True, error_model="numpy")
def _enqueue(heap: np.ndarray, node_f: np.ndarray, size: int, u: int) -> None:
    i = size
    heap[i] = u
    while i > 0:
        parent = (i - 1) >> 1
        if not _before(node_f, u, heap[parent]):
            break
        heap[i] = heap[parent]
        i = parent
    heap[i] = u


@njit(cache=True, nogil=True, error_model="numpy")
def _dequeue(heap: np.ndarray, node_f: np.ndarray, size: int) -> int:
    """Remove and return the queue's first node (it holds ``size`` nodes)."""
    top = heap[0]
    size -= 1
    last = heap[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and _before(node_f, heap[child + 1], heap[child]):
            child += 1
        if not _before(node_f, heap[child], last):
            break
        heap[i] = heap[child]
        i = child
    heap[i] = last
    return top


# -------------------------------------------------------------------------------------- nodes and roots
@njit(cache=True, nogil=True, inline="always", error_model="numpy")
def _root(rings: BoundaryRings, scratch: SearchScratch, parent: int, k: int) -> int:
    """The record of a root at ring point k reached straight from record ``parent``, or -1 when the vertex was
    reached by a shorter way (or the records are full)."""
    ring_xz, ring_y, ring_vertex = rings.ring_xz, rings.ring_y, rings.ring_vertex
    record_f, record_i, best_g, stamp = scratch.record_f, scratch.record_i, scratch.best_g, scratch.stamp
    counts = scratch.counts
    x, z = ring_xz[k, 0], ring_xz[k, 1]
    g = record_f[parent, 3] + math.sqrt((x - record_f[parent, 0]) ** 2 + (z - record_f[parent, 1]) ** 2)
    v = ring_vertex[k]
    if stamp[v] == counts[QUERY]:
        if g > best_g[v] * (1.0 + TIE) + EPS:
            return -1
        best_g[v] = min(best_g[v], g)
    else:
        stamp[v], best_g[v] = counts[QUERY], g
    m = counts[RECORDS]
    if m == record_f.shape[0]:
        counts[FULL] = 1
        return -1
    record_f[m, 0], record_f[m, 1], record_f[m, 2], record_f[m, 3] = x, z, ring_y[k], g
    record_i[m, 0], record_i[m, 1] = v, parent
    counts[RECORDS] = m + 1
    return m


@njit(cache=True, nogil=True, inline="always", error_model="numpy")
def _push(scratch: SearchScratch, record: int, piece: int, kind: int, f: float, a: float, b: float, c: float) -> None:
    node_f, node_i, heap, counts = scratch.node_f, scratch.node_i, scratch.heap, scratch.counts
    m = counts[NODES]
    if m == node_f.shape[0]:
        counts[FULL] = 1
        return
    node_f[m, 0], node_f[m, 1], node_f[m, 2], node_f[m, 3] = f, a, b, c
    node_i[m, 0], node_i[m, 1], node_i[m, 2] = piece, record, kind
    _enqueue(heap, node_f, counts[QUEUED], m)
    counts[NODES], counts[QUEUED] = m + 1, counts[QUEUED] + 1


@njit(cache=True, nogil=True, inline="always", error_model="numpy")
def _queue(rings: BoundaryRings, scratch: SearchScratch, gx: float, gz: float, record: int, piece: int, t_lo: float,
           t_hi: float, kind: int) -> None:
    """Queue the node looking from ``record`` through [t_lo, t_hi] of ``piece`` into the polygon it belongs to."""
    ring_start, ring_xz, ring_polygon = rings.ring_start, rings.ring_xz, rings.ring_polygon
    record_f = scratch.record_f
    rx, rz, g = record_f[record, 0], record_f[record, 1], record_f[record, 3]
    if kind == ALONG:
        h = math.sqrt((gx - rx) ** 2 + (gz - rz) ** 2)
    else:
        e = _next(ring_start, ring_polygon, piece)
        ux, uz, vx, vz = ring_xz[piece, 0], ring_xz[piece, 1], ring_xz[e, 0], ring_xz[e, 1]
        h = heuristic(rx, rz, (1.0 - t_lo) * ux + t_lo * vx, (1.0 - t_lo) * uz + t_lo * vz,
                      (1.0 - t_hi) * ux + t_hi * vx, (1.0 - t_hi) * uz + t_hi * vz, gx, gz)
    _push(scratch, record, piece, kind, g + h, t_lo, t_hi, 0.0)


@njit(cache=True, nogil=True, inline="always", error_model="numpy")
def _offer(rings: BoundaryRings, scratch: SearchScratch, gx: float, gz: float, record: int, k: int, t0: float, t1: float
           ) -> None:
    """The successor through [t0, t1] of piece k (of the polygon being expanded) seen from ``record``: queued
    into the polygon across, unless k is a wall. A root on k's line sees across only from within [t0, t1];
    from beyond it walks along the line to the nearer end, if that end is a corner."""
    ring_start, ring_xz, ring_polygon = rings.ring_start, rings.ring_xz, rings.ring_polygon
    ring_across, ring_twin = rings.ring_across, rings.ring_twin
    ring_vertex, corner = rings.ring_vertex, rings.corner
    if ring_across[k] < 0:
        return
    twin = ring_twin[k]
    e = _next(ring_start, ring_polygon, k)
    ux, uz, vx, vz = ring_xz[k, 0], ring_xz[k, 1], ring_xz[e, 0], ring_xz[e, 1]
    rx, rz = scratch.record_f[record, 0], scratch.record_f[record, 1]
    across = side(ux, uz, vx, vz, rx, rz)
    if across < 0.0:  # the root lies beyond k, in the polygon across (only rounding could put it there)
        return
    if across > 0.0:
        _queue(rings, scratch, gx, gz, record, twin, 1.0 - t1, 1.0 - t0, SEEN)
        return
    length = math.sqrt((vx - ux) ** 2 + (vz - uz) ** 2)
    t = ((rx - ux) * (vx - ux) + (rz - uz) * (vz - uz)) / (length * length)
    if (t0 - t) * length <= EPS and (t - t1) * length <= EPS:
        _queue(rings, scratch, gx, gz, record, twin, 1.0 - t1, 1.0 - t0, ALONG)
        return
    end = k if t < t0 else e
    if (t0 == 0.0 if t < t0 else t1 == 1.0) and corner[ring_vertex[end]]:
        bent = _root(rings, scratch, record, end)
        if bent >= 0:
            _queue(rings, scratch, gx, gz, bent, twin, 1.0 - t1, 1.0 - t0, ALONG)


@njit(cache=True, nogil=True, inline="always", error_model="numpy")
def _finish(scratch: SearchScratch, surface: Surface, q: int, record: int, kind: int, lx: float, lz: float, hx: float,
            hz: float, gx: float, gz: float) -> None:
    """Queue the node that ends the path at the goal (in polygon q, the node's): straight from the root when
    the goal is in the cone, else bending at the interval's end on its side."""
    record_f = scratch.record_f
    rx, rz, g = record_f[record, 0], record_f[record, 1], record_f[record, 3]
    via, vx, vz = 0, 0.0, 0.0
    if kind == SEEN:
        if side(rx, rz, hx, hz, gx, gz) < 0.0:
            via, vx, vz = 1, hx, hz
        elif side(rx, rz, lx, lz, gx, gz) > 0.0:
            via, vx, vz = 1, lx, lz
    if via:
        f = g + math.sqrt((vx - rx) ** 2 + (vz - rz) ** 2) + math.sqrt((gx - vx) ** 2 + (gz - vz) ** 2)
        _push(scratch, record, -1, DONE_VIA, f, vx, vz, height(surface, q, vx, vz))
    else:
        _push(scratch, record, -1, DONE, g + math.sqrt((gx - rx) ** 2 + (gz - rz) ** 2), 0.0, 0.0, 0.0)


@njit(cache=True, nogil=True, inline="always", error_model="numpy")
def _expand(rings: BoundaryRings, surface: Surface, scratch: SearchScratch, gx: float, gz: float, goal: int, node: int
            ) -> None:
    """The successors of a node (see the module's docstring)."""
    ring_start, ring_xz, ring_polygon = rings.ring_start, rings.ring_xz, rings.ring_polygon
    ring_across, ring_vertex, corner = rings.ring_across, rings.ring_vertex, rings.corner
    node_f, node_i, record_f = scratch.node_f, scratch.node_i, scratch.record_f
    k, record, kind = node_i[node, 0], node_i[node, 1], node_i[node, 2]
    q = ring_polygon[k]
    first, n = ring_start[q], ring_start[q + 1] - ring_start[q]
    e = _next(ring_start, ring_polygon, k)
    t_lo, t_hi = node_f[node, 1], node_f[node, 2]
    lx, lz = (1.0 - t_lo) * ring_xz[k, 0] + t_lo * ring_xz[e, 0], (1.0 - t_lo) * ring_xz[k, 1] + t_lo * ring_xz[e, 1]
    hx, hz = (1.0 - t_hi) * ring_xz[k, 0] + t_hi * ring_xz[e, 0], (1.0 - t_hi) * ring_xz[k, 1] + t_hi * ring_xz[e, 1]
    if q == goal:
        _finish(scratch, surface, q, record, kind, lx, lz, hx, hz, gx, gz)
    last = first + n - 1  # the pieces after k, round the ring: k + 1, ..., last, first, ..., k - 1 (no modulo)
    if kind == ALONG:  # the root is on the polygon's boundary: it sees all of it
        j = k
        for _ in range(1, n):
            j = j + 1 if j < last else first
            _offer(rings, scratch, gx, gz, record, j, 0.0, 1.0)
        return
    rx, rz = record_f[record, 0], record_f[record, 1]
    right = -2 if t_hi == 1.0 and corner[ring_vertex[e]] else -1  # -2: a root there, once needed
    left = -2 if t_lo == 0.0 and corner[ring_vertex[k]] else -1
    j = k
    for _ in range(1, n):
        j = j + 1 if j < last else first
        if ring_across[j] < 0:
            continue
        m = _next(ring_start, ring_polygon, j)
        tb, ta = cone_cut(rx, rz, lx, lz, hx, hz, ring_xz[j, 0], ring_xz[j, 1], ring_xz[m, 0], ring_xz[m, 1])
        if tb > 0.0 and right != -1:
            if right == -2:
                right = _root(rings, scratch, record, e)
            if right >= 0:
                _offer(rings, scratch, gx, gz, right, j, 0.0, tb)
        if ta > tb:
            _offer(rings, scratch, gx, gz, record, j, tb, ta)
        if ta < 1.0 and left != -1:
            if left == -2:
                left = _root(rings, scratch, record, k)
            if left >= 0:
                _offer(rings, scratch, gx, gz, left, j, ta, 1.0)


@njit(cache=True, nogil=True, error_model="numpy")
def _write_path(scratch: SearchScratch, node: int, start: np.ndarray, end: np.ndarray, out: np.ndarray) -> int:
    """The path of a finishing node into ``out`` as (x, y, z) rows: the start, the roots, the bend, the end.
    Returns the count of points, -1 when ``out`` is too short."""
    node_f, node_i, record_f, record_i = scratch.node_f, scratch.node_i, scratch.record_f, scratch.record_i
    via = node_i[node, 2] == DONE_VIA
    count, r = 1, node_i[node, 1]
    while r > 0:
        count, r = count + 1, record_i[r, 1]
    n = count + 1 + via
    if n > out.shape[0]:
        return -1
    out[0, 0], out[0, 1], out[0, 2] = start[0], start[1], start[2]
    r, i = node_i[node, 1], count - 1
    while r > 0:
        out[i, 0], out[i, 1], out[i, 2] = record_f[r, 0], record_f[r, 2], record_f[r, 1]
        r, i = record_i[r, 1], i - 1
    if via:
        out[count, 0], out[count, 1], out[count, 2] = node_f[node, 1], node_f[node, 3], node_f[node, 2]
    out[n - 1, 0], out[n - 1, 1], out[n - 1, 2] = end[0], end[1], end[2]
    return n


@njit(cache=True, nogil=True, error_model="numpy")
def search(rings: BoundaryRings, surface: Surface, scratch: SearchScratch, a: int, b: int, start: np.ndarray,
           end: np.ndarray, out: np.ndarray) -> int:
    """The shortest path on the x-z plane from ``start`` (in polygon a) to ``end`` (in polygon b, not a): its
    points written to ``out`` (x, y, z; roots at the height of the polygon they bend into). Returns their count,
    0 when no path joins them, -1 when a scratch buffer or ``out`` ran full."""
    ring_start = rings.ring_start
    node_f, node_i, record_f, record_i = scratch.node_f, scratch.node_i, scratch.record_f, scratch.record_i
    heap, best_g, counts = scratch.heap, scratch.best_g, scratch.counts
    counts[NODES], counts[QUEUED], counts[FULL] = 0, 0, 0
    counts[QUERY] += 1
    record_f[0, 0], record_f[0, 1], record_f[0, 2], record_f[0, 3] = start[0], start[2], start[1], 0.0
    record_i[0, 0], record_i[0, 1] = -1, -1
    counts[RECORDS] = 1
    gx, gz = end[0], end[2]
    for k in range(ring_start[a], ring_start[a + 1]):
        _offer(rings, scratch, gx, gz, 0, k, 0.0, 1.0)
    while counts[QUEUED] > 0 and counts[FULL] == 0:
        node = _dequeue(heap, node_f, counts[QUEUED])
        counts[QUEUED] -= 1
        kind, record = node_i[node, 2], node_i[node, 1]
        if kind == DONE or kind == DONE_VIA:
            return _write_path(scratch, node, start, end, out)
        v = record_i[record, 0]
        if v >= 0 and record_f[record, 3] > best_g[v] * (1.0 + TIE) + EPS:
            continue  # the vertex was reached by a shorter way since
        _expand(rings, surface, scratch, gx, gz, b, node)
    return -1 if counts[FULL] else 0
