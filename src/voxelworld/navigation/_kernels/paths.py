"""Shortest paths on a navmesh: the polygons' boundary rings the search walks, and the query itself.

The search (``polyanya.py``) needs a *conforming* boundary: every side of a polygon split at the ends of the
portals lying on it, so that each piece has at most one polygon across it. :func:`boundary_rings` builds it, in
CSR form over the polygons (the fields of ``arrays.BoundaryRings``):

- ``ring_start (p + 1,)``: polygon q's pieces are ``ring_start[q]:ring_start[q + 1]``, counter-clockwise on the
  x-z plane (x right, z up: positive area), whatever the order of its corners in ``polygon_vertices``;
- ``ring_xz (n, 2)``, ``ring_y (n,)``: the point each piece starts at (m), its height on the polygon's plane; a
  piece ends where the next one of its ring starts;
- ``ring_polygon (n,)``: the polygon a piece belongs to; ``ring_across (n,)``: the polygon across it through a
  portal (-1: a wall); ``ring_twin (n,)``: the same portal as a piece of the polygon across (-1 for a wall),
  running the other way;
- ``ring_vertex (n,)``: the *vertex* a point is: points of different polygons joined through a portal's end are
  one vertex (so a point where a table top overhangs the floor stays two vertices); ``corner (v,)``: whether a
  vertex ends a wall piece (a place a shortest path can bend around; being generous here costs only time).

A portal lies on a side when both its ends are within ``TOLERANCE`` of the side's line and span; an end that
close to a corner is the corner. Points of one grid are computed alike, so shared points match bit for bit.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .arrays import BoundaryRings, BucketGrid, PathQuery, PolygonArrays, SearchScratch, Surface
from .locate import height, nearest, winding
from .polyanya import EPS, search

TOLERANCE = 1e-9  # m


@njit(cache=True, nogil=True, inline="always")
def _on_side(ex: float, ez: float, length: float, px: float, pz: float) -> tuple[float, bool]:
    """Where a point (px, pz), relative to a side's start, lies along the side (ex, ez) of ``length``, as a
    fraction of it, and whether it lies on the side (within TOLERANCE of its line and span)."""
    off = abs(ex * pz - ez * px) / length
    t = (ex * px + ez * pz) / (length * length)
    return t, off <= TOLERANCE and -TOLERANCE <= t * length <= length + TOLERANCE


@njit(cache=True, nogil=True, inline="always")
def _find(parent: np.ndarray, i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(cache=True, nogil=True)
def boundary_rings(vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray, surface: Surface,
                   portals: np.ndarray, portal_segments: np.ndarray, link_start: np.ndarray, link_portal: np.ndarray,
                   room: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                       np.ndarray, np.ndarray]:
    """The conforming boundary of every polygon (see the module's docstring): returns ``(ring_start, ring_xz,
    ring_y, ring_polygon, ring_across, ring_twin, ring_vertex, corner)``, with room for ``room`` pieces; when
    they need more (only degenerate polygons, whose sides overlap, find a portal on several sides), every array
    but ``ring_start`` is empty and ``ring_start[-1]`` is -1: ask again with more room. (:func:`ring_pieces` of
    every polygon, then :func:`ring_joins`.)"""
    p = polygon_start.shape[0] - 1
    ring_start = np.zeros(p + 1, np.int64)
    ring_end, ring_xz, ring_y, ring_across, ring_portal = ring_pieces(
        vertices, polygon_start, polygon_vertices, surface, portals, portal_segments, link_start, link_portal, 0, p,
        room)
    if p and ring_end[-1] < 0:
        ring_start[p] = -1
        none = np.empty(0, np.int64)
        return (ring_start, ring_xz, ring_y, none, none.copy(), none.copy(), none.copy(), np.zeros(0, np.bool_))
    ring_start[1:] = ring_end
    ring_polygon = np.empty(len(ring_y), np.int64)
    for q in range(p):
        ring_polygon[ring_start[q]:ring_start[q + 1]] = q
    ring_twin, ring_vertex, corner = ring_joins(ring_start, ring_polygon, ring_across, ring_portal, portals)
    return ring_start, ring_xz, ring_y, ring_polygon, ring_across, ring_twin, ring_vertex, corner


@njit(cache=True, nogil=True)
def ring_pieces(vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray, surface: Surface,
                portals: np.ndarray, portal_segments: np.ndarray, link_start: np.ndarray, link_portal: np.ndarray,
                q0: int, q1: int, room: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The pieces of the rings of the polygons [q0, q1) (see the module's docstring), each polygon's read from its
    own corners, surface and portals only: ``(ring_end, ring_xz, ring_y, ring_across, ring_portal)``, polygon q0 +
    j's pieces ending at ``ring_end[j]``, each piece's polygon across (before :func:`ring_joins` finds the portals
    seen from one side only) and portal (-1: a wall). With room for ``room`` pieces; when they need more, the
    pieces are empty and ``ring_end[-1]`` is -1."""
    ring_end = np.zeros(q1 - q0, np.int64)
    ring_xz, ring_y = np.empty((room, 2)), np.empty(room)
    ring_across, ring_portal = np.empty(room, np.int64), np.empty(room, np.int64)
    found = np.empty((max(link_start[-1], 1), 4))

    # Inner functions: numba compiles them into the loop (a helper taking the arrays would pay reference
    # counting on every call).
    def add(n: int, q: int, x: float, z: float, across: int, portal: int) -> int:
        ring_xz[n, 0], ring_xz[n, 1] = x, z
        ring_y[n] = height(surface, q, x, z)
        ring_across[n], ring_portal[n] = across, portal
        return n + 1

    def portals_on_side(ux: float, uz: float, vx: float, vz: float, q: int) -> int:
        """The portals of polygon q lying on the side u-v: rows ``(t0, t1, portal, end at t0)`` of ``found``
        (fractions along the side), sorted by t0; returns their count."""
        ex, ez = vx - ux, vz - uz
        length = math.sqrt(ex * ex + ez * ez)
        count = 0
        for j in range(link_start[q], link_start[q + 1]):
            r = link_portal[j]
            px, pz = portal_segments[r, 0, 0] - ux, portal_segments[r, 0, 2] - uz
            if abs(ex * pz - ez * px) > 2.0 * TOLERANCE * length:
                continue  # far off the side's line (what _on_side tells, without its divisions)
            ta, on_a = _on_side(ex, ez, length, px, pz)
            tb, on_b = _on_side(ex, ez, length, portal_segments[r, 1, 0] - ux, portal_segments[r, 1, 2] - uz)
            if not (on_a and on_b) or abs(tb - ta) * length <= TOLERANCE:
                continue
            e0 = 0 if ta < tb else 1
            found[count, 0], found[count, 1] = (ta, tb) if e0 == 0 else (tb, ta)
            found[count, 2], found[count, 3] = r, e0
            k = count  # insertion sort on t0 (few portals per side)
            while k > 0 and found[k - 1, 0] > found[k, 0]:
                for c in range(4):
                    found[k - 1, c], found[k, c] = found[k, c], found[k - 1, c]
                k -= 1
            count += 1
        return count

    n = 0
    for q in range(q0, q1):
        turn = winding(vertices, polygon_start, polygon_vertices, q)
        first, last = polygon_start[q], polygon_start[q + 1]
        m = last - first
        for i in range(m):
            # Corners counter-clockwise on the x-z plane, whatever their order in polygon_vertices.
            j = (i + 1) % m
            u = polygon_vertices[first + i] if turn >= 0.0 else polygon_vertices[last - 1 - i]
            v = polygon_vertices[first + j] if turn >= 0.0 else polygon_vertices[last - 1 - j]
            ux, uz, vx, vz = vertices[u, 0], vertices[u, 2], vertices[v, 0], vertices[v, 2]
            length = math.sqrt((vx - ux) ** 2 + (vz - uz) ** 2)
            if length <= TOLERANCE:
                continue
            count = portals_on_side(ux, uz, vx, vz, q)
            if n + 1 + 2 * count > room:  # a wall before each portal, the portal, a wall after the last
                ring_end[-1] = -1
                none = np.empty(0, np.int64)
                return ring_end, ring_xz[:0].copy(), ring_y[:0].copy(), none, none.copy()
            at, ax, az = 0.0, ux, uz  # how far along the side the pieces reach, and that point
            for k in range(count):
                t0, t1, r, e0 = found[k, 0], found[k, 1], int(found[k, 2]), int(found[k, 3])
                if t1 * length <= at * length + TOLERANCE:
                    continue  # overlaps the portal before it (not expected)
                if t0 * length > at * length + TOLERANCE:  # a wall up to the portal
                    n = add(n, q, ax, az, -1, -1)
                    ax, az = portal_segments[r, e0, 0], portal_segments[r, e0, 2]
                other = portals[r, 1] if portals[r, 0] == q else portals[r, 0]
                n = add(n, q, ax, az, other, r)
                at = t1
                if (1.0 - t1) * length <= TOLERANCE:
                    at, ax, az = 1.0, vx, vz
                else:
                    ax, az = portal_segments[r, 1 - e0, 0], portal_segments[r, 1 - e0, 2]
            if (1.0 - at) * length > TOLERANCE:
                n = add(n, q, ax, az, -1, -1)
        ring_end[q - q0] = n
    return ring_end, ring_xz[:n].copy(), ring_y[:n].copy(), ring_across[:n].copy(), ring_portal[:n].copy()


@njit(cache=True, nogil=True)
def ring_joins(ring_start: np.ndarray, ring_polygon: np.ndarray, ring_across: np.ndarray, ring_portal: np.ndarray,
               portals: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What joins the polygons' :func:`ring_pieces` (``ring_polygon``: each piece's polygon): ``(ring_twin,
    ring_vertex, corner)`` (see the module's docstring); a piece whose portal the polygon across does not hold
    becomes a wall (``ring_across`` -1, in place)."""
    p, n, r_count = ring_start.shape[0] - 1, ring_across.shape[0], portals.shape[0]
    side = np.full((r_count, 2), -1, np.int64)  # each portal's piece in the ring of portals[r, 0] and [r, 1]
    for k in range(n):
        r = ring_portal[k]
        if r >= 0:
            side[r, 0 if portals[r, 0] == ring_polygon[k] else 1] = k
    following = np.empty(n, np.int64)  # the piece after each in its ring (where it ends)
    for q in range(p):
        for k in range(ring_start[q], ring_start[q + 1]):
            following[k] = k + 1 if k + 1 < ring_start[q + 1] else ring_start[q]
    ring_twin = np.full(n, -1, np.int64)
    parent = np.arange(n)
    for r in range(r_count):
        a, b = side[r, 0], side[r, 1]
        if a < 0 or b < 0:
            continue
        ring_twin[a], ring_twin[b] = b, a
        # The pieces run opposite ways: a's start is b's end and a's end b's start.
        for x, y in ((a, following[b]), (following[a], b)):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            while parent[y] != y:
                parent[y] = parent[parent[y]]
                y = parent[y]
            parent[max(x, y)] = min(x, y)
    for k in range(n):
        if ring_across[k] >= 0 and ring_twin[k] < 0:
            ring_across[k] = -1  # a portal found on one side only: a wall
    ring_vertex = np.empty(n, np.int64)
    label = np.full(n, -1, np.int64)
    count = 0
    for k in range(n):
        # A piece's parent comes before it (a root is its group's lowest piece), and was pointed at its root just
        # before: one step finds k's root.
        root = parent[parent[k]]
        parent[k] = root
        if label[root] < 0:
            label[root] = count
            count += 1
        ring_vertex[k] = label[root]
    corner = np.zeros(count, np.bool_)
    for k in range(n):
        if ring_across[k] < 0:
            corner[ring_vertex[k]] = True
            corner[ring_vertex[following[k]]] = True
    return ring_twin, ring_vertex, corner


@njit(cache=True, nogil=True)
def polygon_links(p: int, portals: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each of ``p`` polygons' neighbours through the ``portals``, in CSR form: polygon q's are
    ``link_polygon[link_start[q]:link_start[q + 1]]`` through the portals ``link_portal[...]``, by ascending
    portal. Returns ``(link_start, link_polygon, link_portal)``."""
    link_start = np.zeros(p + 1, np.int64)
    for r in range(portals.shape[0]):
        link_start[portals[r, 0] + 1] += 1
        link_start[portals[r, 1] + 1] += 1
    for q in range(p):
        link_start[q + 1] += link_start[q]
    fill = link_start[:-1].copy()
    link_polygon, link_portal = np.empty(link_start[p], np.int64), np.empty(link_start[p], np.int64)
    for r in range(portals.shape[0]):
        for e in range(2):
            q = portals[r, e]
            link_polygon[fill[q]], link_portal[fill[q]] = portals[r, 1 - e], r
            fill[q] += 1
    return link_start, link_polygon, link_portal


@njit(cache=True, nogil=True)
def polygon_islands(p: int, portals: np.ndarray) -> np.ndarray:
    """The connected group of every one of ``p`` polygons through the ``portals`` (pairs of polygons), numbered
    in the order of their lowest polygon."""
    parent = np.arange(p)
    for r in range(portals.shape[0]):
        a, b = _find(parent, portals[r, 0]), _find(parent, portals[r, 1])
        parent[max(a, b)] = min(a, b)  # a group's root stays its lowest polygon
    island = np.empty(p, np.int64)
    count = 0
    for q in range(p):
        root = _find(parent, q)
        if root == q:
            island[q] = count
            count += 1
        else:
            island[q] = island[root]
    return island


@njit(cache=True, nogil=True)
def path_query(polygons: PolygonArrays, buckets: BucketGrid, island: np.ndarray, rings: BoundaryRings,
               scratch: SearchScratch, path: np.ndarray) -> PathQuery:
    """The :class:`~.arrays.PathQuery` holding a navmesh index's arrays (``polygons``: a ``PolygonArrays``,
    ``buckets``: a ``BucketGrid``, ``island``: each polygon's island, ``rings``: the ``BoundaryRings`` of
    :func:`boundary_rings`), a query's ``scratch`` (a ``SearchScratch``, see ``polyanya.search``) and its
    ``path`` buffer (m, 3), for :func:`find_path`."""
    return PathQuery(polygons, buckets, island, rings, scratch, path)


@njit(cache=True, nogil=True)
def find_path(query: PathQuery, sx: float, sy: float, sz: float, ex: float, ey: float, ez: float) -> tuple[int, float]:
    """Snap the start (sx, sy, sz) and the end (ex, ey, ez) to their nearest polygons and search: writes the
    path's points to ``query.path`` and returns (their count, the length in 3-D), (0, 0.0) when no path joins
    them, or (-1, 0.0) when the scratch (or the path buffer) is too small (grow it and ask again). ``query``: a
    :class:`~.arrays.PathQuery` (see :func:`path_query`), whose scratch's ``snapped`` receives the snapped
    points. ``NavQuery`` calls it through its compiled entry point (``query.compiled_entry``), so that it takes
    this query type and six floats only.

    numba's cache keys a kernel on its own file's text: this one holds compiled copies of ``locate.nearest`` and
    ``polyanya.search``, so a change to those files alone would leave it stale: change this docstring with them."""
    polygons, buckets, island, rings = query.polygons, query.buckets, query.island, query.rings
    scratch, out = query.scratch, query.path
    snapped = scratch.snapped
    a = nearest(polygons, buckets, sx, sy, sz, snapped[0])
    b = nearest(polygons, buckets, ex, ey, ez, snapped[1])
    if a < 0 or b < 0 or island[a] != island[b]:
        return 0, 0.0
    if a == b:
        n = 2
        out[0], out[1] = snapped[0], snapped[1]
    else:
        n = search(rings, polygons.surface, scratch, a, b, snapped[0], snapped[1], out)
        if n <= 0:
            return n, 0.0
    length = 0.0
    for i in range(1, n):
        length += math.sqrt((out[i, 0] - out[i - 1, 0]) ** 2 + (out[i, 1] - out[i - 1, 1]) ** 2
                            + (out[i, 2] - out[i - 1, 2]) ** 2)
    return n, length


__all__ = ["boundary_rings", "ring_pieces", "ring_joins", "find_path", "path_query", "polygon_islands", "polygon_links",
           "TOLERANCE", "EPS"]
