"""Point queries on navmesh polygons: the bucket grid, locate, nearest point, the exact ray walk, area sampling.

Every polygon is convex and planar. Its arrays (built by :func:`voxelworld.navigation.index.navmesh_index`;
``locate`` and ``nearest`` take them as the named tuples of ``arrays.py``):

- ``vertices (n, 3)``, ``polygon_start (p + 1,)``, ``polygon_vertices``: the corners, as in the NavMesh;
- ``boxes (p, 6)``: ``x_min, x_max, z_min, z_max, y_min, y_max`` of its corners (m);
- ``surface``: the heights (an ``arrays.Surface``: each polygon's plane ``y = a x + b z + c`` (m) and its
  detail raster, bilinear, when it has one);
- the bucket grid: ``grid = (x0, z0, cell)`` (m), ``grid_shape = (nx, nz)``; bucket ``(i, k)`` (number
  ``i * nz + k``) covers ``x0 + [i, i + 1) * cell`` by ``z0 + [k, k + 1) * cell`` and lists, in
  ``bucket_polygons[bucket_start[b]:bucket_start[b + 1]]``, the polygons whose x-z box overlaps it (ascending).

Sides are taken on the x-z plane. ``EPS`` (m) is the tolerance of "on an edge".
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .arrays import BucketGrid, PolygonArrays, Surface
from .buckets import csr_buckets
from .detail import raster_height

EPS = 1e-9
FAN = 16  # polygons searched around a corner a walk leaves through


@njit(cache=True, nogil=True)
def bucket_index(at: float, origin: float, cell: float, n: int) -> int:
    """The bucket along one axis (of ``n``) holding the coordinate ``at`` (m), clamped to the grid. Clamped before
    it becomes an integer: a coordinate too far off for int64 (or NaN) gives an end bucket, not an undefined
    integer."""
    f = np.floor((at - origin) / cell)  # a float (numba's math.floor gives an int64 already)
    if not f > 0.0:  # NaN included
        return 0
    if f >= n - 1:
        return n - 1
    return int(f)


@njit(cache=True, nogil=True)
def _span(lo: float, hi: float, origin: float, cell: float, n: int) -> tuple[int, int]:
    """The buckets [first, last] along one axis that the interval [lo, hi] (m) overlaps (clamped to the grid)."""
    return bucket_index(lo - EPS, origin, cell, n), bucket_index(hi + EPS, origin, cell, n)


@njit(cache=True, nogil=True)
def polygon_geometry(vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Per polygon: its corners' box ``(x_min, x_max, z_min, z_max, y_min, y_max)`` (m) and its plane ``(a, b,
    c)`` (height ``a x + b z + c``, through the corners' mean along Newell's normal; flat where the normal
    lies on the x-z plane). A sum over the corners is the first term plus the sum of the others, the order in
    which numpy's ``reduceat`` added them when the planes were computed with it."""
    p = polygon_start.shape[0] - 1
    boxes, planes = np.empty((p, 6)), np.empty((p, 3))
    sums, heads = np.empty(6), np.empty(6)  # x, y, z of the corners; Newell's normal
    for q in range(p):
        first, last = polygon_start[q], polygon_start[q + 1]
        box = boxes[q]
        box[0], box[1], box[2], box[3], box[4], box[5] = np.inf, -np.inf, np.inf, -np.inf, np.inf, -np.inf
        sums[:] = 0.0
        for j in range(first, last):
            here = polygon_vertices[j]
            there = polygon_vertices[j + 1] if j + 1 < last else polygon_vertices[first]
            x, y, z = vertices[here, 0], vertices[here, 1], vertices[here, 2]
            tx, ty, tz = vertices[there, 0], vertices[there, 1], vertices[there, 2]
            box[0], box[1], box[2] = min(box[0], x), max(box[1], x), min(box[2], z)
            box[3], box[4], box[5] = max(box[3], z), min(box[4], y), max(box[5], y)
            terms = (x, y, z, (y - ty) * (z + tz), (z - tz) * (x + tx), (x - tx) * (y + ty))
            for t in range(6):
                if j == first:
                    heads[t] = terms[t]
                else:
                    sums[t] += terms[t]
        count = last - first
        mx, my, mz = (heads[0] + sums[0]) / count, (heads[1] + sums[1]) / count, (heads[2] + sums[2]) / count
        nx, ny, nz = heads[3] + sums[3], heads[4] + sums[4], heads[5] + sums[5]
        upright = abs(ny) > 1e-12 * max(math.sqrt(nx * nx + ny * ny + nz * nz), 1e-300)
        a, b = (-nx / ny, -nz / ny) if upright else (0.0, 0.0)
        planes[q, 0], planes[q, 1], planes[q, 2] = a, b, my - a * mx - b * mz
    return boxes, planes


@njit(cache=True, nogil=True)
def bucket_spans(boxes: np.ndarray, grid: np.ndarray, grid_shape: np.ndarray) -> tuple[np.ndarray, int]:
    """The buckets each polygon's x-z box overlaps: ``(i_first, i_last, k_first, k_last)`` per polygon, and how
    many bucket entries they make in all."""
    x0, z0, cell = grid[0], grid[1], grid[2]
    nx, nz = grid_shape[0], grid_shape[1]
    spans = np.empty((boxes.shape[0], 4), np.int64)
    entries = 0
    for q in range(boxes.shape[0]):
        spans[q, 0], spans[q, 1] = _span(boxes[q, 0], boxes[q, 1], x0, cell, nx)
        spans[q, 2], spans[q, 3] = _span(boxes[q, 2], boxes[q, 3], z0, cell, nz)
        entries += (spans[q, 1] - spans[q, 0] + 1) * (spans[q, 3] - spans[q, 2] + 1)
    return spans, entries


@njit(cache=True, nogil=True)
def bucket_grid(spans: np.ndarray, grid_shape: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bucket lists (CSR: ``bucket_start``, ``bucket_polygons``) of the polygons' :func:`bucket_spans`."""
    return csr_buckets(spans, grid_shape[0], grid_shape[1])


@njit(cache=True, nogil=True)
def inside(vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray, q: int, x: float, z: float
           ) -> bool:
    """Whether (x, z) lies in polygon q (on the x-z plane, its edges included within EPS)."""
    lo, hi = np.inf, -np.inf
    first, last = polygon_start[q], polygon_start[q + 1]
    for j in range(first, last):
        a = polygon_vertices[j]
        b = polygon_vertices[j + 1] if j + 1 < last else polygon_vertices[first]
        ex, ez = vertices[b, 0] - vertices[a, 0], vertices[b, 2] - vertices[a, 2]
        side = (ex * (z - vertices[a, 2]) - ez * (x - vertices[a, 0])) / max(math.sqrt(ex * ex + ez * ez), EPS)
        lo, hi = min(lo, side), max(hi, side)
    return lo >= -EPS or hi <= EPS


@njit(cache=True, nogil=True)
def height(surface: Surface, q: int, x: float, z: float) -> float:
    """The height (m) of polygon q's surface at (x, z): its detail's, else its plane's."""
    ni, nk = surface.detail_shape[q, 0], surface.detail_shape[q, 1]
    if ni > 0:
        origin = surface.detail_origin[q]
        return raster_height(surface.detail_heights, surface.detail_start[q], ni, nk, (x - origin[0]) / origin[2],
                             (z - origin[1]) / origin[2])
    planes = surface.planes
    return planes[q, 0] * x + planes[q, 1] * z + planes[q, 2]


@njit(cache=True, nogil=True)
def locate(polygons: PolygonArrays, buckets: BucketGrid, x: float, y: float, z: float) -> int:
    """The polygon containing (x, z) whose surface is nearest to height y (the lowest index on a tie), or -1.
    ``polygons``: a ``PolygonArrays``, ``buckets``: a ``BucketGrid``."""
    vertices, polygon_start, polygon_vertices, boxes, surface = polygons
    grid, grid_shape, bucket_start, bucket_polygons = buckets
    nx, nz = grid_shape[0], grid_shape[1]
    i, k = bucket_index(x, grid[0], grid[2], nx), bucket_index(z, grid[1], grid[2], nz)  # off the grid: its edge
    best, best_dy = -1, np.inf
    for j in range(bucket_start[i * nz + k], bucket_start[i * nz + k + 1]):
        q = bucket_polygons[j]
        if boxes[q, 0] - EPS <= x <= boxes[q, 1] + EPS and boxes[q, 2] - EPS <= z <= boxes[q, 3] + EPS \
                and inside(vertices, polygon_start, polygon_vertices, q, x, z):
            dy = abs(height(surface, q, x, z) - y)
            if dy < best_dy:
                best, best_dy = q, dy
    return best


@njit(cache=True, nogil=True)
def _closest(vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray, surface: Surface, q: int,
             x: float, y: float, z: float) -> tuple[float, float, float, float, bool]:
    """The point of polygon q nearest to (x, y, z) as numbers: ``(squared distance in 3-D, x, y, z, found)``
    (``found`` False: no side to be near, the distance infinite), with no array to write (so that :func:`nearest`
    allocates none). Over the polygon (on the x-z plane) it is the point of its surface straight above or below;
    beside it, the point of its surface on its sides nearest on the x-z plane (as Detour's
    ``closestPointOnPoly``)."""
    if inside(vertices, polygon_start, polygon_vertices, q, x, z):
        fy = height(surface, q, x, z)
        return (x - x) ** 2 + (fy - y) ** 2 + (z - z) ** 2, x, fy, z, True
    best, best_flat = np.inf, np.inf
    ox, oy, oz, found = x, np.nan, z, False
    first, last = polygon_start[q], polygon_start[q + 1]
    for j in range(first, last):  # outside: the nearest point of the sides on the x-z plane, on the surface
        u = polygon_vertices[j]
        v = polygon_vertices[j + 1] if j + 1 < last else polygon_vertices[first]
        ex, ez = vertices[v, 0] - vertices[u, 0], vertices[v, 2] - vertices[u, 2]
        wx, wz = x - vertices[u, 0], z - vertices[u, 2]
        length2 = ex * ex + ez * ez
        t = min(max((wx * ex + wz * ez) / length2, 0.0), 1.0) if length2 > 0.0 else 0.0
        px, pz = vertices[u, 0] + t * ex, vertices[u, 2] + t * ez
        flat = (px - x) ** 2 + (pz - z) ** 2
        if flat < best_flat:
            py = height(surface, q, px, pz)
            best, best_flat = flat + (py - y) ** 2, flat
            ox, oy, oz, found = px, py, pz, True
    return best, ox, oy, oz, found


@njit(cache=True, nogil=True)
def _box_distance2(x0: float, x1: float, z0: float, z1: float, x: float, z: float) -> float:
    dx = max(x0 - x, 0.0, x - x1)
    dz = max(z0 - z, 0.0, z - z1)
    return dx * dx + dz * dz


@njit(cache=True, nogil=True)
def _search_bucket(vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray, boxes: np.ndarray,
                   surface: Surface, bucket_start: np.ndarray, bucket_polygons: np.ndarray, b: int, x: float, y: float,
                   z: float, best: int, best_d2: float, out: np.ndarray) -> tuple[int, float]:
    for j in range(bucket_start[b], bucket_start[b + 1]):
        q = bucket_polygons[j]
        dy = max(boxes[q, 4] - y, 0.0, y - boxes[q, 5])
        if _box_distance2(boxes[q, 0], boxes[q, 1], boxes[q, 2], boxes[q, 3], x, z) + dy * dy > best_d2:
            continue
        d2, px, py, pz, _ = _closest(vertices, polygon_start, polygon_vertices, surface, q, x, y, z)
        if d2 < best_d2 or (d2 == best_d2 and q < best):  # the lowest index on a tie
            best, best_d2 = q, d2
            out[0], out[1], out[2] = px, py, pz
    return best, best_d2


@njit(cache=True, nogil=True)
def nearest(polygons: PolygonArrays, buckets: BucketGrid, x: float, y: float, z: float, out: np.ndarray) -> int:
    """The polygon nearest to (x, y, z) in 3-D (-1 when there is none) and its closest point, in ``out[:3]``.
    ``polygons``: a ``PolygonArrays``, ``buckets``: a ``BucketGrid``.

    Rings of buckets grow around the point's bucket until the x-z distance to every bucket not yet searched
    exceeds the best distance found (a lower bound of the 3-D distance)."""
    vertices, polygon_start, polygon_vertices, boxes, surface = polygons
    grid, grid_shape, bucket_start, bucket_polygons = buckets
    x0, z0, cell = grid[0], grid[1], grid[2]
    nx, nz = grid_shape[0], grid_shape[1]
    ci, ck = bucket_index(x, x0, cell, nx), bucket_index(z, z0, cell, nz)
    gx1, gz1 = x0 + nx * cell, z0 + nz * cell
    best, best_d2 = -1, np.inf
    for r in range(max(nx, nz) + 1):
        i0, i1, k0, k1 = ci - r, ci + r, ck - r, ck + r
        if r > 0:  # the buckets left lie beyond one of the searched square's open sides
            bound = np.inf
            if i0 + 1 > 0:
                bound = min(bound, _box_distance2(x0, x0 + (i0 + 1) * cell, z0, gz1, x, z))
            if i1 - 1 < nx - 1:
                bound = min(bound, _box_distance2(x0 + i1 * cell, gx1, z0, gz1, x, z))
            if k0 + 1 > 0:
                bound = min(bound, _box_distance2(x0, gx1, z0, z0 + (k0 + 1) * cell, x, z))
            if k1 - 1 < nz - 1:
                bound = min(bound, _box_distance2(x0, gx1, z0 + k1 * cell, gz1, x, z))
            if bound >= best_d2:
                break
        for i in range(max(i0, 0), min(i1, nx - 1) + 1):
            for k in range(max(k0, 0), min(k1, nz - 1) + 1):
                if i == i0 or i == i1 or k == k0 or k == k1:  # the ring only
                    best, best_d2 = _search_bucket(vertices, polygon_start, polygon_vertices, boxes, surface,
                                                   bucket_start, bucket_polygons, i * nz + k, x, y, z, best,
                                                   best_d2, out)
    return best


@njit(cache=True, nogil=True)
def winding(vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray, q: int) -> float:
    """Twice polygon q's signed area in the (x, z) coordinates: its sign tells which way its corners turn."""
    first, last = polygon_start[q], polygon_start[q + 1]
    area = 0.0
    for j in range(first, last):
        u = polygon_vertices[j]
        v = polygon_vertices[j + 1] if j + 1 < last else polygon_vertices[first]
        area += vertices[u, 0] * vertices[v, 2] - vertices[v, 0] * vertices[u, 2]
    return area


@njit(cache=True, nogil=True)
def clip(vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray, q: int, sx: float, sz: float,
         dx: float, dz: float, tolerance: float = EPS) -> tuple[float, float]:
    """The parameters (t_in, t_out) between which the line (sx, sz) + t (dx, dz) lies in polygon q (x-z plane,
    edges included within ``tolerance``, m); t_in > t_out when it misses."""
    first, last = polygon_start[q], polygon_start[q + 1]
    turn = 1.0 if winding(vertices, polygon_start, polygon_vertices, q) > 0.0 else -1.0  # turn * side >= 0 inside
    t_in, t_out = -np.inf, np.inf
    for j in range(first, last):
        u = polygon_vertices[j]
        v = polygon_vertices[j + 1] if j + 1 < last else polygon_vertices[first]
        ex, ez = vertices[v, 0] - vertices[u, 0], vertices[v, 2] - vertices[u, 2]
        length = max(math.sqrt(ex * ex + ez * ez), EPS)
        at0 = turn * (ex * (sz - vertices[u, 2]) - ez * (sx - vertices[u, 0])) / length + tolerance
        rate = turn * (ex * dz - ez * dx) / length
        if rate > 0.0:
            t_in = max(t_in, -at0 / rate)
        elif rate < 0.0:
            t_out = min(t_out, -at0 / rate)
        elif at0 < 0.0:
            return np.inf, -np.inf
    return t_in, t_out


@njit(cache=True, nogil=True)
def _on_segment(segment: np.ndarray, x: float, z: float) -> bool:
    """Whether (x, z) lies on the x-z shadow of a portal segment (2, 3), within EPS."""
    ex, ez = segment[1, 0] - segment[0, 0], segment[1, 2] - segment[0, 2]
    length2 = ex * ex + ez * ez
    wx, wz = x - segment[0, 0], z - segment[0, 2]
    t = min(max((wx * ex + wz * ez) / length2, 0.0), 1.0) if length2 > 0.0 else 0.0
    return (wx - t * ex) ** 2 + (wz - t * ez) ** 2 <= (10 * EPS) ** 2


@njit(cache=True, nogil=True)
def walk(vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray, link_start: np.ndarray,
         link_polygon: np.ndarray, link_portal: np.ndarray, portal_segments: np.ndarray, q: int, sx: float, sz: float,
         ex: float, ez: float, record: bool, out_polygons: np.ndarray, out_portals: np.ndarray, count: int
         ) -> tuple[float, int, int]:
    """Walk from (sx, sz) in polygon q straight towards (ex, ez), from polygon to polygon through the portals the
    segment crosses. Returns ``(t, polygon, count)``: the point ``s + t (e - s)`` reached (t = 1: the end), the
    polygon it lies in and, when ``record``, the count of polygons in ``out_polygons`` after appending each one
    entered (with its portal in ``out_portals``; the walk stops where they are full).

    Where the walk leaves a polygon through a point several polygons share (a corner), the polygons around the
    point are searched (breadth first, through portals holding it) for one the walk goes on in."""
    dx, dz = ex - sx, ez - sz
    t = 0.0
    fan = np.empty((FAN, 3), np.int64)  # polygon, index of the one reached from, portal crossed
    for _ in range(2 * polygon_start.shape[0] + 2):
        t_out = clip(vertices, polygon_start, polygon_vertices, q, sx, sz, dx, dz)[1]
        if t_out >= 1.0:
            return 1.0, q, count
        t = max(t, t_out)
        x, z = sx + t * dx, sz + t * dz
        fan[0, 0], fan[0, 1], fan[0, 2] = q, -1, -1
        size, found, best_t = 1, -1, t + EPS
        head = 0
        while head < size and found < 0:
            f = fan[head, 0]
            for j in range(link_start[f], link_start[f + 1]):
                n = link_polygon[j]
                if not _on_segment(portal_segments[link_portal[j]], x, z):
                    continue
                seen = False
                for m in range(size):
                    seen = seen or fan[m, 0] == n
                if seen or size == FAN:
                    continue
                fan[size, 0], fan[size, 1], fan[size, 2] = n, head, link_portal[j]
                n_in, n_out = clip(vertices, polygon_start, polygon_vertices, n, sx, sz, dx, dz)
                if n_in <= t + EPS and n_out > best_t:  # the neighbour the walk goes furthest in
                    found, best_t = size, n_out
                size += 1
            head += 1
        if found < 0:  # blocked: where the line leaves q exactly, not EPS beyond
            exact = clip(vertices, polygon_start, polygon_vertices, q, sx, sz, dx, dz, 0.0)[1]
            return min(t, max(exact, 0.0)), q, count
        if record:
            steps, m = 0, found
            while m > 0:
                steps, m = steps + 1, fan[m, 1]
            if count + steps > out_polygons.shape[0]:
                return t, q, count
            m = found
            for k in range(steps - 1, -1, -1):
                out_polygons[count + k], out_portals[count + k] = fan[m, 0], fan[m, 2]
                m = fan[m, 1]
            count += steps
        q = fan[found, 0]
    return t, q, count


@njit(cache=True, nogil=True)
def sample(vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray, surface: Surface,
           cumulative_area: np.ndarray, u: np.ndarray, out: np.ndarray) -> int:
    """A point spread evenly over the polygons from four uniform numbers ``u`` in [0, 1): the polygon by
    ``cumulative_area`` (m², ascending), a triangle of its fan by area, a point of the triangle. Written to
    ``out[:3]``; returns the polygon."""
    q = min(np.searchsorted(cumulative_area, u[0] * cumulative_area[-1], side="right"), len(cumulative_area) - 1)
    first, last = polygon_start[q], polygon_start[q + 1]
    o = polygon_vertices[first]
    total = 0.0
    for j in range(first + 1, last - 1):
        total += _fan_area(vertices, o, polygon_vertices[j], polygon_vertices[j + 1])
    pick, j = u[1] * total, first + 1
    while j < last - 2:
        pick -= _fan_area(vertices, o, polygon_vertices[j], polygon_vertices[j + 1])
        if pick < 0.0:
            break
        j += 1
    b, c = polygon_vertices[j], polygon_vertices[j + 1]
    r1, r2 = math.sqrt(u[2]), u[3]  # uniform on the triangle
    x = (1 - r1) * vertices[o, 0] + r1 * (1 - r2) * vertices[b, 0] + r1 * r2 * vertices[c, 0]
    z = (1 - r1) * vertices[o, 2] + r1 * (1 - r2) * vertices[b, 2] + r1 * r2 * vertices[c, 2]
    out[0], out[1], out[2] = x, height(surface, q, x, z), z
    return q


@njit(cache=True, nogil=True)
def _fan_area(vertices: np.ndarray, o: int, b: int, c: int) -> float:
    return 0.5 * abs((vertices[b, 0] - vertices[o, 0]) * (vertices[c, 2] - vertices[o, 2])
                     - (vertices[c, 0] - vertices[o, 0]) * (vertices[b, 2] - vertices[o, 2]))
