"""Short paths on a navmesh: lazy Theta* over the portals' end points, then the funnel through the corridor.

The search graph: a node per end of every portal (node ``2 r + e`` is end ``e`` of portal ``r``), plus the
start (``2 R``) and the end (``2 R + 1``). Two nodes are joined, at their 3-D distance, when one polygon has both
(a convex polygon holds the segment between them); a portal's end belongs to both its polygons.

Why not plain A* on that graph: its paths must touch a portal end in every polygon they cross, so on long thin
polygons (or long portals) they overestimate a route's length by up to 2-3 times and can pick the wrong side of
a hole; the funnel then only tightens the path inside that wrong corridor. Lazy Theta* lets a node be reached
straight from its predecessor's predecessor when a walk over the mesh (``locate.walk``) finds the way clear, so
the costs compared are close to the true lengths. It is still not exact (the side of a hole is chosen on costs
that can be a few per cent high): an exact search over the polygons (Polyanya, Cui, Harabor and Grastien 2017)
is the way to within 1% everywhere. The corridor is the polygons the path's straight stretches cross, and the
funnel pulls it tight.

Arrays besides those of ``locate``: ``portals (R, 2)`` and ``portal_segments (R, 2, 3)`` as in the NavMesh;
``link_start (p + 1,)``, ``link_polygon``, ``link_portal``: the neighbours of polygon q and the portals to them,
``link_*[link_start[q]:link_start[q + 1]]``, by ascending portal; ``centres (p, 2)``: each polygon's mean corner
(x, z); ``island (p,)``: the connected group of each polygon. Per-query scratch (``search``, owned by the
NavMesh and reused, so nothing is cleared between queries): ``costs (2 R + 2, 2)`` the cost from the start and
the cost plus the straight line to the end; ``nodes (2 R + 2, 7)`` the node reached from in a straight line, the
node reached from along the graph and the polygon of that edge, the polygon the path arrives in, the query that
last touched it, the heap, and each node's place in the heap (-1: settled, -2: not yet seen); ``search[0]`` the query counter.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .locate import height, nearest, walk

PARENT, GRAPH, VIA, ARRIVE, STAMP, HEAP, PLACE = 0, 1, 2, 3, 4, 5, 6
SETTLED, UNSEEN = -1, -2
LEVEL_TOLERANCE = 1.0  # m: a point reached by a walk is the node's when this close in height


@njit(cache=True)
def _before(costs, u, v):
    """Heap order: lower estimate first, then the lower node (deterministic ties)."""
    return costs[u, 1] < costs[v, 1] or (costs[u, 1] == costs[v, 1] and u < v)


@njit(cache=True)
def _sift_up(nodes, costs, i):
    heap = nodes[:, HEAP]
    while i > 0:
        parent = (i - 1) >> 1
        u, v = heap[i], heap[parent]
        if not _before(costs, u, v):
            break
        heap[i], heap[parent] = v, u
        nodes[v, PLACE], nodes[u, PLACE] = i, parent
        i = parent


@njit(cache=True)
def _pop(nodes, costs, size):
    """Remove and return the heap's first node (the heap holds ``size`` nodes)."""
    heap = nodes[:, HEAP]
    top = heap[0]
    size -= 1
    heap[0] = heap[size]
    nodes[heap[0], PLACE] = 0
    i = 0
    while True:
        left, smallest = 2 * i + 1, i
        if left < size and _before(costs, heap[left], heap[smallest]):
            smallest = left
        if left + 1 < size and _before(costs, heap[left + 1], heap[smallest]):
            smallest = left + 1
        if smallest == i:
            break
        u, v = heap[i], heap[smallest]
        heap[i], heap[smallest] = v, u
        nodes[v, PLACE], nodes[u, PLACE] = i, smallest
        i = smallest
    nodes[top, PLACE] = SETTLED
    return top


@njit(cache=True)
def _distance(a, b):
    return math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2)


@njit(cache=True)
def _position(portal_segments, start, end, u):
    first = 2 * len(portal_segments)
    return start if u == first else end if u == first + 1 else portal_segments[u >> 1, u & 1]


@njit(cache=True)
def _push(nodes, costs, size, v):
    nodes[size, HEAP], nodes[v, PLACE] = v, size
    _sift_up(nodes, costs, size)
    return size + 1


@njit(cache=True)
def _relax(nodes, costs, query, size, v, cost, to_end, parent, graph, q):
    """Reach node v at ``cost`` in a straight line from node ``parent`` (graph edge from ``graph`` in polygon q)."""
    if nodes[v, STAMP] != query:
        nodes[v, STAMP], nodes[v, PLACE] = query, UNSEEN
        costs[v, 0] = np.inf
    if nodes[v, PLACE] == SETTLED or cost >= costs[v, 0]:
        return size
    costs[v, 0], costs[v, 1] = cost, cost + to_end
    nodes[v, PARENT], nodes[v, GRAPH], nodes[v, VIA] = parent, graph, q
    if nodes[v, PLACE] == UNSEEN:
        return _push(nodes, costs, size, v)
    _sift_up(nodes, costs, nodes[v, PLACE])
    return size


@njit(cache=True)
def _sees(mesh, links, portal_segments, q, here, there, fan_polygons, fan_portals):
    """The polygon a straight walk from ``here`` (in polygon q) reaches ``there`` in, or -1 when it is blocked."""
    vertices, polygon_start, polygon_vertices = mesh[0], mesh[1], mesh[2]
    t, reached, _ = walk(vertices, polygon_start, polygon_vertices, links[0], links[1], links[2], portal_segments,
                         q, here[0], here[2], there[0], there[2], False, fan_polygons, fan_portals, 0)
    return reached if t >= 1.0 else -1


@njit(cache=True)
def _settle(mesh, links, portals, portal_segments, a, b, start, end, costs, nodes, query, u, spare_polygons,
            spare_portals):
    """Lazy Theta*: check that node u sees the node it was reached from in a straight line; if not, take the
    best settled node of a polygon it shares with u instead. Returns whether u's cost stayed as it was."""
    first, last = 2 * len(portals), 2 * len(portals) + 1
    parent = nodes[u, PARENT]
    here = _position(portal_segments, start, end, u)
    if parent == nodes[u, GRAPH]:  # an edge within one polygon
        nodes[u, ARRIVE] = nodes[u, VIA]
        return True
    reached = _sees(mesh, links, portal_segments, nodes[parent, ARRIVE], _position(portal_segments, start, end,
                                                                                  parent), here, spare_polygons,
                    spare_portals)
    # On the same level: a walk could come to the same x and z above or below (portal ends stand between the
    # heights of their two polygons, up to half a step from either).
    if reached >= 0 and abs(height(mesh[4], reached, here[0], here[2]) - here[1]) <= LEVEL_TOLERANCE:
        nodes[u, ARRIVE] = reached
        return True
    best, best_w, best_q = np.inf, -1, -1
    for side in range(1 if u == last else 2):
        q = b if u == last else portals[u >> 1, side]
        if q == a and _distance(start, here) < best:
            best, best_w, best_q = _distance(start, here), first, q
        for j in range(links[0][q], links[0][q + 1]):
            r = links[2][j]
            for e in range(2):
                w = 2 * r + e
                if w != u and nodes[w, STAMP] == query and nodes[w, PLACE] == SETTLED:
                    cost = costs[w, 0] + _distance(portal_segments[r, e], here)
                    if cost < best:
                        best, best_w, best_q = cost, w, q
    costs[u, 1] += best - costs[u, 0]
    costs[u, 0] = best
    nodes[u, PARENT], nodes[u, GRAPH], nodes[u, VIA] = best_w, best_w, best_q
    return False


@njit(cache=True)
def search(mesh, links, portals, portal_segments, a, b, start, end, costs, nodes, query, spare_polygons,
           spare_portals):
    """Lazy Theta* from ``start`` in polygon a to ``end`` in polygon b over the portal end points (straight-line
    heuristic): a node reached from u is first taken to be reached straight from u's own predecessor, which
    is checked by walking the mesh when the node comes out of the heap. Returns whether the end was reached;
    the path's corners are then read back through ``nodes[:, PARENT]`` from node ``2 R + 1``."""
    link_start, link_portal = links[0], links[2]
    first, last = 2 * len(portals), 2 * len(portals) + 1
    nodes[first, STAMP], nodes[first, PARENT], nodes[first, GRAPH] = query, -1, -1
    nodes[first, VIA], nodes[first, ARRIVE] = a, a
    costs[first, 0], costs[first, 1] = 0.0, _distance(start, end)
    nodes[0, HEAP], nodes[first, PLACE] = first, 0
    nodes[last, STAMP] = -1  # so that a stale settled end is not taken for this query's
    size = 1
    while size > 0:
        u = _pop(nodes, costs, size)
        size -= 1
        if u != first and not _settle(mesh, links, portals, portal_segments, a, b, start, end, costs, nodes, query,
                                      u, spare_polygons, spare_portals):
            nodes[u, PLACE] = UNSEEN  # its cost grew: back into the heap
            size = _push(nodes, costs, size, u)
            continue
        if u == last:
            return True
        parent = first if u == first else nodes[u, PARENT]
        origin = _position(portal_segments, start, end, parent)
        for side in range(1 if u == first else 2):
            q = a if u == first else portals[u >> 1, side]
            if q == b:
                size = _relax(nodes, costs, query, size, last, costs[parent, 0] + _distance(origin, end), 0.0,
                              parent, u, q)
            for j in range(link_start[q], link_start[q + 1]):
                r = link_portal[j]
                for e in range(2):
                    v = 2 * r + e
                    if v != u:
                        there = portal_segments[r, e]
                        size = _relax(nodes, costs, query, size, v, costs[parent, 0] + _distance(origin, there),
                                      _distance(there, end), parent, u, q)
    return False


@njit(cache=True)
def corridor(mesh, links, portals, portal_segments, a, start, end, nodes, places, out_polygons, out_portals):
    """The corridor of the path :func:`search` found: the polygons its straight stretches cross, in order, each
    with the portal it is entered through (-1 for a), in ``out_*``; returns their count (0 if a stretch could
    not be walked). A stretch that comes back to a polygon already in the corridor is cut out (the polygon is
    convex: the path may cross it directly). ``places (p, 2)`` is scratch: a polygon's place in the corridor and
    the query that wrote it. The path's nodes are first stored at the far end of ``out_portals``."""
    last = 2 * len(portals) + 1
    capacity = out_portals.shape[0]
    length, v = 0, last
    while v >= 0:
        length += 1
        out_portals[capacity - length] = v
        v = nodes[v, PARENT]
    query = nodes[last, STAMP]
    out_polygons[0], out_portals[0] = a, -1
    places[a, 0], places[a, 1] = 0, query
    count, q = 1, a
    limit = out_polygons[:capacity - length]
    for i in range(capacity - length, capacity - 1):
        here = _position(portal_segments, start, end, out_portals[i])
        there = _position(portal_segments, start, end, out_portals[i + 1])
        begin = count
        t, q, count = walk(mesh[0], mesh[1], mesh[2], links[0], links[1], links[2], portal_segments, q, here[0],
                           here[2], there[0], there[2], True, limit, out_portals, count)
        if t < 1.0:
            return 0
        kept = begin
        for k in range(begin, count):  # cut loops; writes never pass reads
            r = out_polygons[k]
            if places[r, 1] == query and places[r, 0] < kept and out_polygons[places[r, 0]] == r:
                kept = places[r, 0] + 1
            else:
                places[r, 0], places[r, 1] = kept, query
                out_polygons[kept], out_portals[kept] = r, out_portals[k]
                kept += 1
        count = kept
    return count


@njit(cache=True)
def _triarea2(a, b, c):
    """Twice the signed area of triangle abc on the x-z plane (the funnel's side test)."""
    return (c[0] - a[0]) * (b[2] - a[2]) - (b[0] - a[0]) * (c[2] - a[2])


@njit(cache=True)
def _inside(apex, edge, point, sign):
    """Whether ``point`` lies strictly on the funnel's side of the edge apex-edge (``sign`` 1: right of the left
    edge, -1: left of the right edge), or on the edge's line no further than its end (a funnel closed to a line,
    as when the apex lies on the line of the next portal)."""
    area = sign * _triarea2(apex, edge, point)
    if area != 0.0:
        return area > 0.0
    dx, dz = edge[0] - apex[0], edge[2] - apex[2]
    px, pz = point[0] - apex[0], point[2] - apex[2]
    return px * dx + pz * dz >= 0.0 and px * px + pz * pz <= dx * dx + dz * dz


@njit(cache=True)
def _same(a, b):
    return abs(a[0] - b[0]) < 1e-9 and abs(a[2] - b[2]) < 1e-9


@njit(cache=True)
def funnel(portal_segments, centres, polygons, portals, count, start, end, sides, out):
    """The funnel algorithm ("simple stupid funnel") on the x-z plane through the corridor (``count`` polygons,
    each entered through ``portals[i]``): writes the path's corners, start and end included, to ``out`` and
    returns how many. ``sides (count + 1, 2, 3)`` is scratch for the portals' left and right ends."""
    sides[0, 0], sides[0, 1] = start, start
    for i in range(1, count):
        p0, p1 = portal_segments[portals[i], 0], portal_segments[portals[i], 1]
        # Left and right as seen walking out of the previous polygon, from its centre c over the portal's middle.
        cx, cz = centres[polygons[i - 1], 0], centres[polygons[i - 1], 1]
        mx, mz = 0.5 * (p0[0] + p1[0]), 0.5 * (p0[2] + p1[2])
        if (p0[0] - cx) * (mz - cz) - (mx - cx) * (p0[2] - cz) < 0.0:
            sides[i, 0], sides[i, 1] = p0, p1
        else:
            sides[i, 0], sides[i, 1] = p1, p0
    sides[count, 0], sides[count, 1] = end, end
    n = 1
    out[0] = start
    apex, left, right = start, start, start
    apex_i = left_i = right_i = 0
    i = 1
    while i <= count:
        new_left, new_right = sides[i, 0], sides[i, 1]
        if _same(right, new_right):  # the same point, through a later portal
            right_i = i
        elif _triarea2(apex, right, new_right) <= 0.0:  # the right edge can tighten
            if _same(apex, right) or _inside(apex, left, new_right, 1.0):
                right, right_i = new_right, i
            else:  # it crossed the left edge: the left end is a corner of the path
                out[n] = left
                n += 1
                apex, apex_i = left, left_i
                right, left_i, right_i = apex, apex_i, apex_i
                i = apex_i + 1
                continue
        if _same(left, new_left):
            left_i = i
        elif _triarea2(apex, left, new_left) >= 0.0:  # the left edge can tighten
            if _same(apex, left) or _inside(apex, right, new_left, -1.0):
                left, left_i = new_left, i
            else:
                out[n] = right
                n += 1
                apex, apex_i = right, right_i
                left, left_i, right_i = apex, apex_i, apex_i
                i = apex_i + 1
                continue
        i += 1
    out[n] = end
    n += 1
    kept = 1  # a corner reached through several portals at once is kept once
    for j in range(1, n):
        if not _same(out[kept - 1], out[j]):
            out[kept] = out[j]
            kept += 1
    if kept == 1:
        out[1] = end
        kept = 2
    return kept


@njit(cache=True)
def find_path(mesh, index, links, graph, scratch, start, end, out):
    """Snap ``start`` and ``end`` to their nearest polygons, search, pull the string: writes the path's corners to
    ``out`` and returns (their count, the length in 3-D), or (0, 0.0) when no path joins them.

    ``mesh = (vertices, polygon_start, polygon_vertices, boxes, planes)``, ``index = (grid, grid_shape,
    bucket_start, bucket_polygons)``, ``links = (link_start, link_polygon, link_portal)``, ``graph = (portals,
    portal_segments, centres, island)``, ``scratch = (costs, nodes, places, corridor_polygons,
    corridor_portals, sides, counter)``."""
    vertices, polygon_start, polygon_vertices, boxes, planes = mesh
    grid, grid_shape, bucket_start, bucket_polygons = index
    portals, portal_segments, centres, island = graph
    costs, nodes, places, corridor_polygons, corridor_portals, sides, counter = scratch
    snapped = np.empty((2, 3))
    a = nearest(vertices, polygon_start, polygon_vertices, boxes, planes, grid, grid_shape, bucket_start,
                bucket_polygons, start[0], start[1], start[2], snapped[0])
    b = nearest(vertices, polygon_start, polygon_vertices, boxes, planes, grid, grid_shape, bucket_start,
                bucket_polygons, end[0], end[1], end[2], snapped[1])
    if a < 0 or b < 0 or island[a] != island[b]:
        return 0, 0.0
    if a == b:
        count = 1
        corridor_polygons[0], corridor_portals[0] = a, -1
    else:
        counter[0] += 1
        if not search(mesh, links, portals, portal_segments, a, b, snapped[0], snapped[1], costs, nodes, counter[0],
                      corridor_polygons, corridor_portals):
            return 0, 0.0
        count = corridor(mesh, links, portals, portal_segments, a, snapped[0], snapped[1], nodes, places,
                         corridor_polygons, corridor_portals)
        if count == 0:
            return 0, 0.0
    n = funnel(portal_segments, centres, corridor_polygons, corridor_portals, count, snapped[0], snapped[1],
               sides, out)
    length = 0.0
    for i in range(1, n):
        length += _distance(out[i - 1], out[i])
    return n, length
