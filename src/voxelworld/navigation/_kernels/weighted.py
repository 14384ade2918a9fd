"""Weighted paths: the least-cost path over polygons that cost a multiplier per metre, and off-mesh links.

Exact weighted-region shortest paths have no practical algorithm; as Detour, this searches a graph and then
straightens its answer. A polygon has one cost multiplier, so inside one polygon a straight segment is the
cheapest way between two points of its boundary; a least-cost path is therefore a chain of straight segments
whose bends lie on the portals (or at link ends). The graph (:class:`WeightedGraph`, built by
:func:`portal_nodes` once per navmesh index and filter) has:

- *nodes*: points along every portal, at most ``spacing`` m apart, its ends included (``node_portal``,
  ``node_t``: the portal and the fraction along it; ``node_polygons``: the two polygons it joins), then the two
  ends of every usable link (``node_portal`` -1, ``node_polygons[k, 0]`` the polygon it lies on);
- *edges*, made as the search goes: from a node to every node of each polygon it touches (cost: the 3-D length
  times the polygon's multiplier, ``polygon_cost``), and along a link from its start to its end, and back when
  it is bidirectional (``node_link``: the link leaving a node or -1, ``node_link_to``: the node it lands on;
  cost: its length times ``link_cost``).

:func:`weighted_path` adds the start and the end (nodes of their polygons), runs A* (the heuristic: the
cheapest multiplier times the straight 3-D distance, admissible and consistent), then moves each bend along its
portal to the least cost for its neighbours (the cost is convex in each bend: golden-section search, sweep after
sweep until nothing improves) and drops the points that do not bend (collinear, same multiplier).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .arrays import PolygonArrays, PolygonLinks, Surface
from .locate import height, walk

__all__ = ["WeightedGraph", "portal_nodes", "weighted_path", "GOLDEN_STEPS", "MAX_SWEEPS"]

GOLDEN_STEPS = 48  # golden-section steps per bend: its portal's fraction to 0.618^48 ~ 1e-10
MAX_SWEEPS = 200  # sweeps of the straightening at most
STRAIGHT = 1e-7  # m: a point this close to the segment joining its neighbours does not bend


class WeightedGraph(NamedTuple):
    """The weighted search's graph (see the module)."""

    node_xyz: np.ndarray
    node_portal: np.ndarray
    node_t: np.ndarray
    node_polygons: np.ndarray
    polygon_start: np.ndarray
    polygon_nodes: np.ndarray
    node_link: np.ndarray
    node_link_to: np.ndarray
    polygon_cost: np.ndarray
    link_cost: np.ndarray
    portal_segments: np.ndarray
    min_cost: float
    polygons: PolygonArrays  # the polygons and their links through the allowed portals, for straight walks
    links: PolygonLinks
    linked: bool  # whether any off-mesh link is in the graph (else islands tell where no way goes)


def portal_nodes(polygons: PolygonArrays, links: PolygonLinks, portals: np.ndarray, portal_segments: np.ndarray,
                 spacing: float, max_points: int, polygon_cost: np.ndarray, link_ends: np.ndarray,
                 link_end_polygon: np.ndarray, link_ids: np.ndarray, bidirectional: np.ndarray,
                 link_cost: np.ndarray) -> WeightedGraph:
    """The graph over the ``polygons`` joined by ``portals`` (r, 2) along ``portal_segments`` (r, 2, 3) (as
    ``links``):
    points at most ``spacing`` m apart on each portal (at most ``max_points``), and the usable links
    ``link_ids`` (their start and end, placed, as rows 2k and 2k + 1 of ``link_ends``, on the polygons
    ``link_end_polygon``). ``polygon_cost (p,)`` and ``link_cost`` (every link) are the multipliers (inf:
    excluded; the portals must join allowed polygons only)."""
    r, p = len(portals), len(polygons.polygon_start) - 1
    length = np.linalg.norm(portal_segments[:, 1] - portal_segments[:, 0], axis=1) if r else np.zeros(0)
    steps = np.clip(np.ceil(length / spacing), 1, max_points - 1).astype(np.int64)
    first = np.concatenate([[0], np.cumsum(steps + 1)]).astype(np.int64)
    node_portal = np.repeat(np.arange(r, dtype=np.int64), steps + 1)
    n_portal = len(node_portal)
    node_t = (np.arange(n_portal) - first[node_portal]) / steps[node_portal] if n_portal else np.zeros(0)
    a, b = portal_segments[node_portal, 0], portal_segments[node_portal, 1]
    xyz = a + node_t[:, None] * (b - a)
    if n_portal:
        xyz[:, 1] = _surface_heights(polygons.surface, portals[node_portal, 0], xyz)
    count = len(link_ids)
    node_xyz = np.ascontiguousarray(np.concatenate([xyz.reshape(-1, 3), link_ends.reshape(-1, 3)]))
    node_polygons = np.concatenate([portals[node_portal].reshape(-1, 2),
                                    np.stack([link_end_polygon, np.full(2 * count, -1)], axis=1).reshape(-1, 2)])
    node_link = np.full(len(node_xyz), -1, dtype=np.int64)
    node_link_to = np.full(len(node_xyz), -1, dtype=np.int64)
    starts = n_portal + 2 * np.arange(count, dtype=np.int64)
    node_link[starts], node_link_to[starts] = link_ids, starts + 1
    back = starts[bidirectional]
    node_link[back + 1], node_link_to[back + 1] = link_ids[bidirectional], back
    members = np.concatenate([np.arange(n_portal), np.arange(n_portal), n_portal + np.arange(2 * count)])
    owners = np.concatenate([node_polygons[:n_portal, 0], node_polygons[:n_portal, 1], link_end_polygon])
    order = np.argsort(owners, kind="stable")
    polygon_start = np.concatenate([[0], np.cumsum(np.bincount(owners, minlength=p))]).astype(np.int64)
    finite = np.concatenate([polygon_cost[np.isfinite(polygon_cost)], link_cost[link_ids]])
    min_cost = float(finite.min()) if len(finite) else 1.0
    return WeightedGraph(node_xyz, np.concatenate([node_portal, np.full(2 * count, -1)]).astype(np.int64),
                         np.concatenate([node_t, np.zeros(2 * count)]), np.ascontiguousarray(node_polygons, np.int64),
                         polygon_start, members[order].astype(np.int64), node_link, node_link_to,
                         np.ascontiguousarray(polygon_cost, np.float64), np.ascontiguousarray(link_cost, np.float64),
                         np.ascontiguousarray(portal_segments, np.float64), min_cost, polygons, links,
                         bool(count))


@njit(cache=True, nogil=True)
def _surface_heights(surface: Surface, polygon: np.ndarray, xyz: np.ndarray) -> np.ndarray:
    """The height of each point's polygon's surface under it."""
    out = np.empty(len(polygon))
    for k in range(len(polygon)):
        out[k] = height(surface, polygon[k], xyz[k, 0], xyz[k, 2])
    return out


@njit(cache=True, nogil=True, inline="always")
def _distance(pos: np.ndarray, i: int, j: int) -> float:
    return math.sqrt((pos[i, 0] - pos[j, 0]) ** 2 + (pos[i, 1] - pos[j, 1]) ** 2 + (pos[i, 2] - pos[j, 2]) ** 2)


@njit(cache=True, nogil=True)
def _sift_up(heap: np.ndarray, where: np.ndarray, key: np.ndarray, i: int) -> None:
    item = heap[i]
    while i > 0:
        up = (i - 1) >> 1
        if key[heap[up]] <= key[item]:
            break
        heap[i] = heap[up]
        where[heap[i]] = i
        i = up
    heap[i] = item
    where[item] = i


@njit(cache=True, nogil=True)
def _sift_down(heap: np.ndarray, where: np.ndarray, key: np.ndarray, size: int, i: int) -> None:
    item = heap[i]
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and key[heap[c + 1]] < key[heap[c]]:
            c += 1
        if key[heap[c]] >= key[item]:
            break
        heap[i] = heap[c]
        where[heap[i]] = i
        i = c
    heap[i] = item
    where[item] = i


@njit(cache=True, nogil=True)
def search(graph: WeightedGraph, a: int, start: np.ndarray, b: int, end: np.ndarray, pos: np.ndarray,
           parent: np.ndarray, via: np.ndarray) -> float:
    """A* from ``start`` (on polygon ``a``) to ``end`` (on ``b``) over the graph; ``pos (N + 2, 3)`` receives
    the nodes' points (the start as node N, the end as N + 1), ``parent`` each node's predecessor on its best
    way and ``via`` the edge it came by (a polygon, or -2 - the link). Returns the least cost (inf: no way)."""
    n = graph.node_xyz.shape[0]
    s, e = n, n + 1
    pos[:n] = graph.node_xyz
    pos[s] = start
    pos[e] = end
    g, f = np.full(n + 2, np.inf), np.empty(n + 2)
    where = np.full(n + 2, -1, np.int64)  # -1: never queued, -2: done, else its place in the heap
    heap = np.empty(n + 2, np.int64)
    h = graph.min_cost
    g[s], f[s], parent[s], via[s] = 0.0, h * _distance(pos, s, e), -1, -1
    heap[0], where[s], size = s, 0, 1
    costs, node_polygons, node_start, members = graph.polygon_cost, graph.node_polygons, graph.polygon_start, \
        graph.polygon_nodes
    while size:
        u = heap[0]
        where[u] = -2
        size -= 1
        if size:
            heap[0] = heap[size]
            where[heap[0]] = 0
            _sift_down(heap, where, f, size, 0)
        if u == e:
            break
        for side in range(2):
            if u == s:
                q = a if side == 0 else -1
            else:
                q = node_polygons[u, side]
            if q < 0:
                continue
            c = costs[q]
            for m in range(node_start[q], node_start[q + 1] + (1 if q == b else 0)):
                w = members[m] if m < node_start[q + 1] else e
                if w == u or where[w] == -2:
                    continue
                ng = g[u] + c * _distance(pos, u, w)
                if ng < g[w]:
                    g[w], f[w], parent[w], via[w] = ng, ng + h * _distance(pos, w, e), u, q
                    if where[w] == -1:
                        heap[size] = w
                        size += 1
                        _sift_up(heap, where, f, size - 1)
                    else:
                        _sift_up(heap, where, f, where[w])
        if u < n and graph.node_link[u] >= 0:
            j, w = graph.node_link[u], graph.node_link_to[u]
            if where[w] != -2:
                ng = g[u] + graph.link_cost[j] * _distance(pos, u, w)
                if ng < g[w]:
                    g[w], f[w], parent[w], via[w] = ng, ng + h * _distance(pos, w, e), u, -2 - j
                    if where[w] == -1:
                        heap[size] = w
                        size += 1
                        _sift_up(heap, where, f, size - 1)
                    else:
                        _sift_up(heap, where, f, where[w])
    return g[e]


@njit(cache=True, nogil=True)
def _bend_cost(seg: np.ndarray, t: float, px: float, py: float, pz: float, wp: float, nx: float, ny: float,
               nz: float, wn: float) -> float:
    x = seg[0, 0] + t * (seg[1, 0] - seg[0, 0])
    y = seg[0, 1] + t * (seg[1, 1] - seg[0, 1])
    z = seg[0, 2] + t * (seg[1, 2] - seg[0, 2])
    return wp * math.sqrt((x - px) ** 2 + (y - py) ** 2 + (z - pz) ** 2) \
        + wn * math.sqrt((x - nx) ** 2 + (y - ny) ** 2 + (z - nz) ** 2)


@njit(cache=True, nogil=True)
def straighten(points: np.ndarray, portal: np.ndarray, t: np.ndarray, weight: np.ndarray,
               portal_segments: np.ndarray) -> None:
    """Move each bend ``points[i]`` on a portal (``portal[i] >= 0``, at fraction ``t[i]``) along it to the
    least cost for its neighbours (``weight[i - 1]``, ``weight[i]``: the multipliers of the segments before and
    after it), sweep after sweep until a sweep gains (almost) nothing; in place."""
    m = points.shape[0]
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(MAX_SWEEPS):
        gained = 0.0
        for i in range(1, m - 1):
            r = portal[i]
            if r < 0:
                continue
            seg = portal_segments[r]
            px, py, pz, wp = points[i - 1, 0], points[i - 1, 1], points[i - 1, 2], weight[i - 1]
            nx, ny, nz, wn = points[i + 1, 0], points[i + 1, 1], points[i + 1, 2], weight[i]
            before = _bend_cost(seg, t[i], px, py, pz, wp, nx, ny, nz, wn)
            lo, hi = 0.0, 1.0
            x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
            f1 = _bend_cost(seg, x1, px, py, pz, wp, nx, ny, nz, wn)
            f2 = _bend_cost(seg, x2, px, py, pz, wp, nx, ny, nz, wn)
            for _ in range(GOLDEN_STEPS):
                if f1 <= f2:
                    hi, x2, f2 = x2, x1, f1
                    x1 = hi - ratio * (hi - lo)
                    f1 = _bend_cost(seg, x1, px, py, pz, wp, nx, ny, nz, wn)
                else:
                    lo, x1, f1 = x1, x2, f2
                    x2 = lo + ratio * (hi - lo)
                    f2 = _bend_cost(seg, x2, px, py, pz, wp, nx, ny, nz, wn)
            best, best_f = (x1, f1) if f1 <= f2 else (x2, f2)
            for end in (0.0, 1.0):  # the ends, which the bracketing only nears
                f_end = _bend_cost(seg, end, px, py, pz, wp, nx, ny, nz, wn)
                if f_end < best_f:
                    best, best_f = end, f_end
            if best_f < before:
                gained += before - best_f
                t[i] = best
                for c in range(3):
                    points[i, c] = seg[0, c] + best * (seg[1, c] - seg[0, c])
        if gained <= 1e-12:
            break


@njit(cache=True, nogil=True)
def _straight_cost(graph: WeightedGraph, q: int, a: np.ndarray, b: np.ndarray, crossed: np.ndarray,
                   unused: np.ndarray) -> float:
    """The multiplier of the polygons the straight segment from ``a`` (on polygon ``q``) to ``b`` crosses
    (x-z plane, walked through the allowed portals), or -1.0 when it leaves them or crosses two
    multipliers."""
    polygons, links = graph.polygons, graph.links
    t, _, count = walk(polygons.vertices, polygons.polygon_start, polygons.polygon_vertices, links.link_start,
                       links.link_polygon, links.link_portal, graph.portal_segments, q, a[0], a[2], b[0], b[2], True,
                       crossed, unused, 0)
    if t < 1.0:
        return -1.0
    c = graph.polygon_cost[q]
    for k in range(count):
        if graph.polygon_cost[crossed[k]] != c:
            return -1.0
    return c


@njit(cache=True, nogil=True)
def weighted_path(graph: WeightedGraph, a: int, start: np.ndarray, b: int, end: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, float, float]:
    """The least-cost path from ``start`` (on polygon ``a``) to ``end`` (on ``b``): ``(points (m, 3), offmesh
    (m - 1,) (the link each segment follows, -1: walked), length (m, 3-D), cost)``; no points when no way joins
    them."""
    n = graph.node_xyz.shape[0]
    pos = np.empty((n + 2, 3))
    parent, via = np.empty(n + 2, np.int64), np.empty(n + 2, np.int64)
    if not math.isfinite(search(graph, a, start, b, end, pos, parent, via)):
        return np.zeros((0, 3)), np.zeros(0, np.int64), 0.0, 0.0
    m, k = 1, n + 1
    while parent[k] >= 0:
        m, k = m + 1, parent[k]
    order = np.empty(m, np.int64)
    k = n + 1
    for i in range(m - 1, -1, -1):
        order[i], k = k, parent[k]
    points = np.empty((m, 3))
    portal, t = np.full(m, -1, np.int64), np.zeros(m)
    weight, offmesh = np.empty(m - 1), np.full(m - 1, -1, np.int64)
    polygon = np.full(m - 1, -1, np.int64)  # the polygon a walked segment lies in
    for i in range(m):
        k = order[i]
        points[i] = pos[k]
        if k < n:
            portal[i], t[i] = graph.node_portal[k], graph.node_t[k]
        if i:
            v = via[k]
            if v >= 0:
                weight[i - 1], polygon[i - 1] = graph.polygon_cost[v], v
            else:
                weight[i - 1], offmesh[i - 1] = graph.link_cost[-2 - v], -2 - v
    straighten(points, portal, t, weight, graph.portal_segments)
    # Drop the points that need not be there: where the segment before has no length, or where the straight
    # segment from the last point kept to the next point crosses polygons of one multiplier only and costs no
    # more (this drops the points that do not bend, and the bends the graph's points forced on a portal's end
    # where the best way passes beside it).
    keep = np.zeros(m, np.bool_)
    keep[0] = keep[m - 1] = True
    out_weight, out_offmesh = weight.copy(), offmesh.copy()
    crossed = np.empty(graph.polygon_cost.shape[0] + 1, np.int64)
    unused = np.empty(graph.polygon_cost.shape[0] + 1, np.int64)
    last, last_polygon = 0, polygon[0]
    for i in range(1, m - 1):
        drop = False
        if offmesh[i] < 0 and out_offmesh[last] < 0:
            here = math.sqrt((points[i, 0] - points[last, 0]) ** 2 + (points[i, 1] - points[last, 1]) ** 2
                             + (points[i, 2] - points[last, 2]) ** 2)
            if here <= STRAIGHT:
                drop = True
                out_weight[last], last_polygon = weight[i], polygon[i]
            else:
                c = _straight_cost(graph, last_polygon, points[last], points[i + 1], crossed, unused)
                ahead = math.sqrt((points[i + 1, 0] - points[i, 0]) ** 2 + (points[i + 1, 1] - points[i, 1]) ** 2
                                  + (points[i + 1, 2] - points[i, 2]) ** 2)
                if c >= 0.0:
                    across = math.sqrt((points[i + 1, 0] - points[last, 0]) ** 2
                                       + (points[i + 1, 1] - points[last, 1]) ** 2
                                       + (points[i + 1, 2] - points[last, 2]) ** 2)
                    if c * across <= out_weight[last] * here + weight[i] * ahead + 1e-12:
                        drop = True
                        out_weight[last] = c
        if not drop:
            keep[i] = True
            last, last_polygon = i, polygon[i]
            out_weight[last], out_offmesh[last] = weight[i], offmesh[i]
    kept = np.flatnonzero(keep)
    result = points[kept].copy()
    for j in range(1, len(kept) - 1):  # a bend on a portal: at the height of the polygons' surface there
        i = kept[j]
        if portal[i] >= 0:
            q = polygon[i] if polygon[i] >= 0 else polygon[i - 1]
            result[j, 1] = height(graph.polygons.surface, q, result[j, 0], result[j, 2])
    result_offmesh = np.empty(len(kept) - 1, np.int64)
    length = cost = 0.0
    for j in range(len(kept) - 1):
        i = kept[j]
        result_offmesh[j] = out_offmesh[i]
        step = math.sqrt((result[j + 1, 0] - result[j, 0]) ** 2 + (result[j + 1, 1] - result[j, 1]) ** 2
                         + (result[j + 1, 2] - result[j, 2]) ** 2)
        length += step
        cost += out_weight[i] * step
    return result, result_offmesh, length, cost
