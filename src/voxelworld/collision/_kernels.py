"""Numba kernels of the collision wing: the queries on the bounding volume hierarchy.

Layout (built by :mod:`._build_kernels`): ``tri`` (m, 9) float64, each triangle's corner a and edges b - a,
c - a in leaf order, and ``order`` (m,) int64, the triangle index of each leaf slot (read only to report a hit
and to break ties). The tree is WIDTH (8) wide: ``box`` (nodes, 48) float32 and ``child`` (nodes, 16) int32
hold one node each, the boxes of its eight children axis by axis (lo x of the eight, lo y, lo z, hi x, hi y,
hi z: adjacent values, so one visit tests all eight with a few vector instructions) and their references
``child[n, 0:8]`` with counts ``child[n, 8:16]``: a count of 0 means an inner node (the reference is its node),
> 0 a leaf of that many triangles from slot ``reference``, -1 an empty slot (they come last; box lo inf, hi
-inf: never entered). ``root_box`` (6,) (lo xyz, hi xyz) and ``root`` (reference, count) describe the root the
same way. Boxes are rounded outwards to float32 (never smaller than their triangles) and the ray-box test
widens its exit by a few units in the last place, so a box never drops a triangle the triangle test would
hit: answers do not depend on the tree's shape."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ._build_kernels import WIDTH
from ._kernels_triangles import (
    ray_corner_edges,
    ray_triangle,  # noqa: F401 (navigation's bake reads it from here)
    segment_triangle_closest,
)

STACK = 256  # deeper than any tree the binned build makes over a few million triangles
TIE_SLACK = 1.0 + 1e-9  # see first_hit
COHERENT_BATCH = 4096  # rays: raycast traces a batch this large in coherent_order
KEY_BITS = 16  # bits of coherent_order's cell codes
RAY_BLOCK = 1024  # rays copied at a time by raycast (56 KiB: stays in the core's cache)
WIDEN = 1.0 + 6.0 * 2.0 ** -53  # the exit distance x (1 + 2 gamma_3): Ize, "Robust BVH ray traversal" (2013)


# ---------------------------------------------------------------------------------------------------- rays
@nb.njit(cache=True, nogil=True)
def unit_directions(directions: np.ndarray, out: np.ndarray) -> int:
    """``directions`` scaled to unit length into ``out``, as numpy's ``d / norm(d, axis=1)`` computes it (the
    same sums in the same order). Returns 0, or 1 when a direction is not finite, 2 when one is zero."""
    for r in range(directions.shape[0]):
        x, y, z = directions[r, 0], directions[r, 1], directions[r, 2]
        if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
            return 1
        length = math.sqrt(x * x + y * y + z * z)
        if length == 0.0:
            return 2
        out[r, 0], out[r, 1], out[r, 2] = x / length, y / length, z / length
    return 0


@nb.njit(cache=True, nogil=True)
def hit_details(origins: np.ndarray, directions: np.ndarray, distance: np.ndarray, triangle: np.ndarray,
                normals: np.ndarray, tri_material: np.ndarray, tri_object: np.ndarray, out_point: np.ndarray,
                out_normal: np.ndarray, out_material: np.ndarray, out_object: np.ndarray) -> None:
    """Point, normal (turned to face the ray's origin), material and object of each hit; NaN, NaN, 0 and -1 where
    a ray hit nothing (triangle -1)."""
    for r in range(triangle.shape[0]):
        t = triangle[r]
        if t < 0:
            for axis in range(3):
                out_point[r, axis] = np.nan
                out_normal[r, axis] = np.nan
            out_material[r], out_object[r] = 0, -1
            continue
        dist = distance[r]
        nx, ny, nz = normals[t, 0], normals[t, 1], normals[t, 2]
        if nx * directions[r, 0] + ny * directions[r, 1] + nz * directions[r, 2] > 0.0:
            nx, ny, nz = -nx, -ny, -nz
        for axis in range(3):
            out_point[r, axis] = origins[r, axis] + directions[r, axis] * dist
        out_normal[r, 0], out_normal[r, 1], out_normal[r, 2] = nx, ny, nz
        out_material[r], out_object[r] = tri_material[t], tri_object[t]


@nb.njit(cache=True, inline="always")
def inverse(d: float) -> float:
    """1 / d, and +inf for a zero component (either sign): that axis's lower face is then its near one."""
    return 1.0 / d if d != 0.0 else np.inf


@nb.njit(cache=True, inline="always")
def slab(box: np.ndarray, ox: float, oy: float, oz: float, ix: float, iy: float, iz: float, t_max: float) -> float:
    """Entry distance of the ray into ``box`` (lo xyz, hi xyz), inf when it misses or enters beyond t_max. An
    axis's distance is NaN (0 x inf) for a ray that does not move along it and lies in one of the box's faces:
    inside that slab from start to end. Python's max and min keep their first argument against a NaN, so
    starting from 0 (entry) and inf (exit) such an axis changes neither."""
    sx, sy, sz = (0, 3) if ix >= 0.0 else (3, 0), (1, 4) if iy >= 0.0 else (4, 1), (2, 5) if iz >= 0.0 else (5, 2)
    near = max(max(max(0.0, (np.float64(box[sx[0]]) - ox) * ix), (np.float64(box[sy[0]]) - oy) * iy),
               (np.float64(box[sz[0]]) - oz) * iz)
    far = min(min(min(np.inf, (np.float64(box[sx[1]]) - ox) * ix), (np.float64(box[sy[1]]) - oy) * iy),
              (np.float64(box[sz[1]]) - oz) * iz)
    return near if near <= min(far * WIDEN, t_max) else np.inf


@nb.njit(cache=True, inline="always")
def near_faces(ix: float, iy: float, iz: float) -> tuple[int, int, int]:
    """Where in a node's boxes the near face of each axis starts (lo when the ray moves up that axis, else hi);
    the far face of axis a starts at ``(3 + 2 a) WIDTH - near``."""
    return (0 if ix >= 0.0 else 3 * WIDTH, WIDTH if iy >= 0.0 else 4 * WIDTH,
            2 * WIDTH if iz >= 0.0 else 5 * WIDTH)


@nb.njit(cache=True, inline="always")
def slab_children(flat: np.ndarray, n: int, lanes: int, nx: int, ny: int, nz: int, ox: float, oy: float, oz: float,
                  ix: float, iy: float, iz: float, t_max: float, out: np.ndarray) -> None:
    """:func:`slab` for the ``lanes`` children of node n at once into ``out`` (``flat``: the boxes as one row).
    Unsigned indices from a run-time count let the compiler trace all the children with vector instructions:
    the same operations on each, the same answers to the last bit as one at a time."""
    start = np.uint64(n) * np.uint64(6 * WIDTH)
    px, py, pz = start + np.uint64(nx), start + np.uint64(ny), start + np.uint64(nz)
    fx = start + np.uint64(3 * WIDTH - nx)
    fy = start + np.uint64(5 * WIDTH - ny)
    fz = start + np.uint64(7 * WIDTH - nz)
    for s in range(lanes):
        u = np.uint64(s)
        near = max(max(max(0.0, (np.float64(flat[px + u]) - ox) * ix), (np.float64(flat[py + u]) - oy) * iy),
                   (np.float64(flat[pz + u]) - oz) * iz)
        far = min(min(min(np.inf, (np.float64(flat[fx + u]) - ox) * ix), (np.float64(flat[fy + u]) - oy) * iy),
                  (np.float64(flat[fz + u]) - oz) * iz)
        out[u] = near if near <= min(far * WIDEN, t_max) else np.inf


@nb.njit(cache=True, inline="always")
def slab_child(box: np.ndarray, n: int, s: int, nx: int, ny: int, nz: int, ox: float, oy: float, oz: float, ix: float,
               iy: float, iz: float, t_max: float) -> float:
    """:func:`slab` for child s of node n, the near faces found once per ray (:func:`near_faces`)."""
    near = max(max(max(0.0, (np.float64(box[n, nx + s]) - ox) * ix), (np.float64(box[n, ny + s]) - oy) * iy),
               (np.float64(box[n, nz + s]) - oz) * iz)
    far = min(min(min(np.inf, (np.float64(box[n, 3 * WIDTH - nx + s]) - ox) * ix),
                  (np.float64(box[n, 5 * WIDTH - ny + s]) - oy) * iy),
              (np.float64(box[n, 7 * WIDTH - nz + s]) - oz) * iz)
    return near if near <= min(far * WIDEN, t_max) else np.inf


@nb.njit(cache=True, inline="always")
def ray_triangle_at(tri: np.ndarray, q: int, ox: float, oy: float, oz: float, dx: float, dy: float,
                    dz: float) -> float:
    """:func:`ray_triangle` on the triangle in leaf slot q, from its stored corner and edges (the same values,
    the same operations: the same answer to the last bit)."""
    return ray_corner_edges(tri[q, 0], tri[q, 1], tri[q, 2], tri[q, 3], tri[q, 4], tri[q, 5], tri[q, 6], tri[q, 7],
                            tri[q, 8], ox, oy, oz, dx, dy, dz)


@nb.njit(cache=True, nogil=True)
def middle_points(root_box: np.ndarray, origins: np.ndarray, directions: np.ndarray, max_distance: np.ndarray,
                  out: np.ndarray) -> None:
    """The middle of each ray's stretch inside the box ``root_box`` (lo xyz, hi xyz) and within its max distance,
    or its origin when it misses the box: where a ray's search mostly goes, so rays whose middles are near each
    other read the same nodes and triangles (:func:`coherent_order` orders them by it)."""
    for r in range(origins.shape[0]):
        ox, oy, oz = origins[r, 0], origins[r, 1], origins[r, 2]
        dx, dy, dz = directions[r, 0], directions[r, 1], directions[r, 2]
        ix, iy, iz = inverse(dx), inverse(dy), inverse(dz)
        sx, sy, sz = (0, 3) if ix >= 0.0 else (3, 0), (1, 4) if iy >= 0.0 else (4, 1), (2, 5) if iz >= 0.0 else (5, 2)
        near = max(max(max(0.0, (np.float64(root_box[sx[0]]) - ox) * ix), (np.float64(root_box[sy[0]]) - oy) * iy),
                   (np.float64(root_box[sz[0]]) - oz) * iz)
        far = min(min(min(max_distance[r], (np.float64(root_box[sx[1]]) - ox) * ix),
                      (np.float64(root_box[sy[1]]) - oy) * iy), (np.float64(root_box[sz[1]]) - oz) * iz)
        t = 0.5 * (near + far) if near <= far else 0.0
        out[r, 0], out[r, 1], out[r, 2] = ox + dx * t, oy + dy * t, oz + dz * t


@nb.njit(cache=True, nogil=True)
def coherent_order(points: np.ndarray, sequence: np.ndarray) -> None:
    """An order of the rays in which neighbours are near each other: by a Morton code of their point's cell (a
    ray's origin, or its middle from :func:`middle_points`) in a grid of 2**16 cells over the points' box, its
    bits given in turn to the axis whose cells are longest (a counting sort, stable). Tracing a large batch in
    this order keeps the tree's nodes and triangles in cache from one ray to the next; each ray's answer is the
    same in any order."""
    rays = points.shape[0]
    low, extent = np.empty(3), np.empty(3)
    for axis in range(3):
        low[axis], high = np.inf, -np.inf
        for r in range(rays):
            low[axis], high = min(low[axis], points[r, axis]), max(high, points[r, axis])
        extent[axis] = high - low[axis]
    bits = np.zeros(3, dtype=np.int64)
    axis_of_bit = np.empty(KEY_BITS, dtype=np.int64)  # from the most significant
    for k in range(KEY_BITS):
        longest = 0
        for axis in range(1, 3):
            if extent[axis] / 2.0 ** bits[axis] > extent[longest] / 2.0 ** bits[longest]:
                longest = axis
        axis_of_bit[k] = longest
        bits[longest] += 1
    # spread[axis][cell]: that axis's bits of a cell, in their places in the key.
    spread_x = np.zeros(2 ** bits[0], dtype=np.int64)
    spread_y = np.zeros(2 ** bits[1], dtype=np.int64)
    spread_z = np.zeros(2 ** bits[2], dtype=np.int64)
    used = np.zeros(3, dtype=np.int64)
    for k in range(KEY_BITS):
        axis = axis_of_bit[k]
        used[axis] += 1
        spread = spread_x if axis == 0 else (spread_y if axis == 1 else spread_z)
        for cell in range(spread.shape[0]):
            spread[cell] |= ((cell >> (bits[axis] - used[axis])) & 1) << (KEY_BITS - 1 - k)
    scale = np.empty(3)
    for axis in range(3):
        scale[axis] = 2.0 ** bits[axis] / extent[axis] if extent[axis] > 0.0 else 0.0
    counts = np.zeros(2 ** KEY_BITS + 1, dtype=np.int64)
    keys = np.empty(rays, dtype=np.int64)
    for r in range(rays):
        cx = min(max(int((points[r, 0] - low[0]) * scale[0]), 0), spread_x.shape[0] - 1)
        cy = min(max(int((points[r, 1] - low[1]) * scale[1]), 0), spread_y.shape[0] - 1)
        cz = min(max(int((points[r, 2] - low[2]) * scale[2]), 0), spread_z.shape[0] - 1)
        key = spread_x[cx] | spread_y[cy] | spread_z[cz]
        keys[r] = key
        counts[key + 1] += 1
    for k in range(2 ** KEY_BITS):
        counts[k + 1] += counts[k]
    for r in range(rays):
        sequence[counts[keys[r]]] = r
        counts[keys[r]] += 1


@nb.njit(cache=True, inline="always")
def push_by_distance(stack_ref: np.ndarray, stack_count: np.ndarray, stack_entry: np.ndarray, base: int, top: int,
                     ref: int, count: int, entry: float) -> int:
    """Push a child onto the stack above ``base`` keeping that part sorted, nearest on top. Returns the new top."""
    j = top
    while j > base and stack_entry[j - 1] < entry:
        stack_ref[j], stack_count[j], stack_entry[j] = stack_ref[j - 1], stack_count[j - 1], stack_entry[j - 1]
        j -= 1
    stack_ref[j], stack_count[j], stack_entry[j] = ref, count, entry
    return top + 1


@nb.njit(cache=True, inline="always")
def first_hit(tri: np.ndarray, order: np.ndarray, box: np.ndarray, flat: np.ndarray, lanes: int, entries: np.ndarray,
              child: np.ndarray, root_box: np.ndarray, root: np.ndarray, stack_ref: np.ndarray,
              stack_count: np.ndarray, stack_entry: np.ndarray, ox: float, oy: float, oz: float, dx: float, dy: float,
              dz: float, limit: float) -> tuple[float, int, int]:
    """The ray's first hit within ``limit``: (distance, triangle, leaf slot), triangle -1 when none. Ties go to
    the lower triangle index, so the answer does not depend on the tree's shape. Front to back: of the children
    a node's ray enters (all tested at once into ``entries``; ``flat`` is ``box`` as one row, ``lanes`` its
    width as a run-time number), the nearest is searched at once and the others stacked by their entry distance
    (the nearer on top), skipped on pop if a hit nearer than that was found meanwhile. A box is kept a little
    past the best distance so far (TIE_SLACK): a triangle at that very distance, its distance rounded a unit
    below the box's entry, is still met, and a tie still goes to the lower index."""
    ix, iy, iz = inverse(dx), inverse(dy), inverse(dz)
    nx, ny, nz = near_faces(ix, iy, iz)
    best, best_t, best_q = limit, -1, -1
    ref, count = root[0], root[1]
    searching = slab(root_box, ox, oy, oz, ix, iy, iz, best * TIE_SLACK) < np.inf
    top = 0
    while searching:
        if count == 0:
            slab_children(flat, ref, lanes, nx, ny, nz, ox, oy, oz, ix, iy, iz, best * TIE_SLACK, entries)
            nearest, pick, entered = np.inf, -1, 0
            for s in range(WIDTH):
                if entries[s] < np.inf:
                    entered += 1
                    if entries[s] < nearest:
                        nearest, pick = entries[s], s
            if entered > 0:
                if entered > 1:
                    base = top
                    for s in range(WIDTH):
                        if entries[s] < np.inf and s != pick:
                            top = push_by_distance(stack_ref, stack_count, stack_entry, base, top, child[ref, s],
                                                   child[ref, WIDTH + s], entries[s])
                ref, count = child[ref, pick], child[ref, WIDTH + pick]
                continue
        else:
            for q in range(ref, ref + count):
                dist = ray_triangle_at(tri, q, ox, oy, oz, dx, dy, dz)
                if dist <= best:
                    t = order[q]
                    if dist < best or (best_t >= 0 and t < best_t):
                        best, best_t, best_q = dist, t, q
        searching = False
        while top > 0:
            top -= 1
            if stack_entry[top] <= best * TIE_SLACK:
                ref, count = stack_ref[top], stack_count[top]
                searching = True
                break
    return best, best_t, best_q


@nb.njit(cache=True, inline="always")
def facing_normal(tri: np.ndarray, q: int, dx: float, dy: float, dz: float) -> tuple[float, float, float]:
    """The unit normal of the triangle in leaf slot q (from its stored edges, as :func:`triangle_normals` computes
    it; zero for a degenerate one), turned to face the origin of a ray along (dx, dy, dz)."""
    ux, uy, uz = tri[q, 3], tri[q, 4], tri[q, 5]
    vx, vy, vz = tri[q, 6], tri[q, 7], tri[q, 8]
    nx = uy * vz - uz * vy
    ny = uz * vx - ux * vz
    nz = ux * vy - uy * vx
    length = math.sqrt(nx * nx + ny * ny + nz * nz)
    if length > 0.0:
        nx, ny, nz = nx / length, ny / length, nz / length
    else:
        nx = ny = nz = 0.0
    if nx * dx + ny * dy + nz * dz > 0.0:
        nx, ny, nz = -nx, -ny, -nz
    return nx, ny, nz


@nb.njit(cache=True, nogil=True)
def raycast(tri: np.ndarray, order: np.ndarray, box: np.ndarray, child: np.ndarray, root_box: np.ndarray,
            root: np.ndarray, tri_material: np.ndarray, tri_object: np.ndarray, origins: np.ndarray,
            directions: np.ndarray, max_distance: np.ndarray, out_distance: np.ndarray, out_triangle: np.ndarray,
            out_point: np.ndarray, out_normal: np.ndarray, out_material: np.ndarray, out_object: np.ndarray) -> None:
    """First hit of each ray (directions unit length; :func:`first_hit`), a batch of COHERENT_BATCH rays or more
    taken in :func:`coherent_order` of their middles in the tree's box (:func:`middle_points`): distance (inf:
    none), triangle (-1: none), point, the triangle's unit normal turned to face the ray's origin (computed as
    :func:`triangle_normals` does, from the edges at hand), material and object (NaN, NaN, 0, -1 for a miss).
    The rays are copied a block at a time (a simple loop whose reads overlap) before the block is traced."""
    stack_ref = np.empty(STACK, dtype=np.int64)
    stack_count = np.empty(STACK, dtype=np.int64)
    stack_entry = np.empty(STACK)
    block = np.empty((RAY_BLOCK, 7))
    flat, lanes, entries = box.reshape(box.size), box.shape[1] // 6, np.empty(WIDTH)
    if origins.shape[0] >= COHERENT_BATCH:
        sequence = np.empty(origins.shape[0], dtype=np.int64)
        middles = np.empty((origins.shape[0], 3))
        middle_points(root_box, origins, directions, max_distance, middles)
        coherent_order(middles, sequence)
    else:
        sequence = np.arange(origins.shape[0])
    for first in range(0, sequence.shape[0], RAY_BLOCK):
        size = min(RAY_BLOCK, sequence.shape[0] - first)
        for i in range(size):
            r = sequence[first + i]
            for axis in range(3):
                block[i, axis] = origins[r, axis]
                block[i, 3 + axis] = directions[r, axis]
            block[i, 6] = max_distance[r]
        for i in range(size):
            r = sequence[first + i]
            ox, oy, oz, dx, dy, dz = block[i, 0], block[i, 1], block[i, 2], block[i, 3], block[i, 4], block[i, 5]
            best, best_t, best_q = first_hit(tri, order, box, flat, lanes, entries, child, root_box, root, stack_ref,
                                             stack_count, stack_entry, ox, oy, oz, dx, dy, dz, block[i, 6])
            out_triangle[r] = best_t
            if best_t < 0:
                out_distance[r] = np.inf
                for axis in range(3):
                    out_point[r, axis] = np.nan
                    out_normal[r, axis] = np.nan
                out_material[r], out_object[r] = 0, -1
                continue
            out_distance[r] = best
            nx, ny, nz = facing_normal(tri, best_q, dx, dy, dz)
            out_point[r, 0], out_point[r, 1], out_point[r, 2] = ox + dx * best, oy + dy * best, oz + dz * best
            out_normal[r, 0], out_normal[r, 1], out_normal[r, 2] = nx, ny, nz
            out_material[r], out_object[r] = tri_material[best_t], tri_object[best_t]


@nb.njit(cache=True, nogil=True)
def raycast_all(tri: np.ndarray, order: np.ndarray, box: np.ndarray, child: np.ndarray, root_box: np.ndarray,
                root: np.ndarray, origins: np.ndarray, directions: np.ndarray, max_distance: np.ndarray,
                counts: np.ndarray, out_ray: np.ndarray, out_distance: np.ndarray, out_triangle: np.ndarray) -> None:
    """Every hit of each ray within its max distance. With ``out_ray`` empty, only counts hits per ray into
    ``counts``; else fills the hits in ray order (unsorted within a ray; the wrapper sorts)."""
    stack_ref = np.empty(STACK, dtype=np.int64)
    stack_count = np.empty(STACK, dtype=np.int64)
    fill = out_ray.shape[0] > 0
    k = 0
    for r in range(origins.shape[0]):
        ox, oy, oz = origins[r, 0], origins[r, 1], origins[r, 2]
        dx, dy, dz = directions[r, 0], directions[r, 1], directions[r, 2]
        ix, iy, iz = inverse(dx), inverse(dy), inverse(dz)
        limit = max_distance[r]
        reach = limit * TIE_SLACK  # as in first_hit: a hit at the limit, rounded, is still met
        found = 0
        top = 0
        nx, ny, nz = near_faces(ix, iy, iz)
        if slab(root_box, ox, oy, oz, ix, iy, iz, reach) < np.inf:
            stack_ref[0], stack_count[0] = root[0], root[1]
            top = 1
        while top > 0:
            top -= 1
            ref, count = stack_ref[top], stack_count[top]
            if count == 0:
                for s in range(WIDTH):
                    if child[ref, WIDTH + s] < 0:  # empty slots come last
                        break
                    if slab_child(box, ref, s, nx, ny, nz, ox, oy, oz, ix, iy, iz, reach) < np.inf:
                        stack_ref[top], stack_count[top] = child[ref, s], child[ref, WIDTH + s]
                        top += 1
                continue
            for q in range(ref, ref + count):
                dist = ray_triangle_at(tri, q, ox, oy, oz, dx, dy, dz)
                if dist < np.inf and dist <= limit:
                    if fill:
                        out_ray[k], out_distance[k], out_triangle[k] = r, dist, order[q]
                        k += 1
                    found += 1
        if not fill:
            counts[r] = found


# ------------------------------------------------------------------------------------------------ overlaps
@nb.njit(cache=True, inline="always")
def box_apart(box: np.ndarray, lo0: float, lo1: float, lo2: float, hi0: float, hi1: float, hi2: float) -> bool:
    """Whether the box ``box`` (lo xyz, hi xyz) and the box lo..hi are apart."""
    return box[0] > hi0 or box[3] < lo0 or box[1] > hi1 or box[4] < lo1 or box[2] > hi2 or box[5] < lo2


@nb.njit(cache=True, inline="always")
def child_apart(box: np.ndarray, n: int, s: int, lo0: float, lo1: float, lo2: float, hi0: float, hi1: float,
                hi2: float) -> bool:
    """Whether child s of node n and the box lo..hi are apart (an empty slot always is)."""
    return (box[n, s] > hi0 or box[n, 3 * WIDTH + s] < lo0 or box[n, WIDTH + s] > hi1
            or box[n, 4 * WIDTH + s] < lo1 or box[n, 2 * WIDTH + s] > hi2 or box[n, 5 * WIDTH + s] < lo2)


@nb.njit(cache=True, nogil=True)
def overlap(positions: np.ndarray, indices: np.ndarray, normals: np.ndarray, order: np.ndarray, box: np.ndarray,
            child: np.ndarray, root_box: np.ndarray, root: np.ndarray, starts: np.ndarray, ends: np.ndarray,
            radii: np.ndarray, counts: np.ndarray, out_query: np.ndarray, out_triangle: np.ndarray,
            out_point: np.ndarray, out_normal: np.ndarray, out_depth: np.ndarray) -> None:
    """Contacts of swept spheres (capsules; a sphere is a capsule whose ends coincide) with the triangles:
    every triangle closer than the radius to the segment start..end. Fills them in query order, triangle order
    within a query, as long as they fit (``counts`` gets every query's count either way: when their sum exceeds
    the outputs' length, call again with room for all). A contact's point is on the triangle, its normal points
    from the triangle towards the segment (the triangle's own normal when they touch), and its depth is radius
    minus distance."""
    stack_ref = np.empty(STACK, dtype=np.int64)
    stack_count = np.empty(STACK, dtype=np.int64)
    room = out_query.shape[0]
    k = 0
    for qi in range(starts.shape[0]):
        ax, ay, az = starts[qi, 0], starts[qi, 1], starts[qi, 2]
        bx, by, bz = ends[qi, 0], ends[qi, 1], ends[qi, 2]
        radius = radii[qi]
        lo0, lo1, lo2 = min(ax, bx) - radius, min(ay, by) - radius, min(az, bz) - radius
        hi0, hi1, hi2 = max(ax, bx) + radius, max(ay, by) + radius, max(az, bz) + radius
        found = 0
        top = 0
        if not box_apart(root_box, lo0, lo1, lo2, hi0, hi1, hi2):
            stack_ref[0], stack_count[0] = root[0], root[1]
            top = 1
        first = k
        while top > 0:
            top -= 1
            ref, count = stack_ref[top], stack_count[top]
            if count == 0:
                for s in range(WIDTH):
                    if child[ref, WIDTH + s] < 0:  # empty slots come last
                        break
                    if not child_apart(box, ref, s, lo0, lo1, lo2, hi0, hi1, hi2):
                        stack_ref[top], stack_count[top] = child[ref, s], child[ref, WIDTH + s]
                        top += 1
                continue
            for q in range(ref, ref + count):
                t = order[q]
                sx, sy, sz, tx, ty, tz = segment_triangle_closest(positions, indices, t, ax, ay, az, bx, by, bz)
                ux, uy, uz = sx - tx, sy - ty, sz - tz
                distance = math.sqrt(ux * ux + uy * uy + uz * uz)
                if distance > radius:
                    continue
                found += 1
                if k >= room:
                    continue
                if distance > 0.0:
                    nx, ny, nz = ux / distance, uy / distance, uz / distance
                else:
                    nx, ny, nz = normals[t, 0], normals[t, 1], normals[t, 2]
                out_query[k], out_triangle[k] = qi, t
                out_point[k, 0], out_point[k, 1], out_point[k, 2] = tx, ty, tz
                out_normal[k, 0], out_normal[k, 1], out_normal[k, 2] = nx, ny, nz
                out_depth[k] = radius - distance
                k += 1
        counts[qi] = found
        # Triangle order within the query: insertion sort of this query's contacts (few per query).
        for i in range(first + 1, k):
            j = i
            while j > first and out_triangle[j - 1] > out_triangle[j]:
                out_triangle[j - 1], out_triangle[j] = out_triangle[j], out_triangle[j - 1]
                out_depth[j - 1], out_depth[j] = out_depth[j], out_depth[j - 1]
                for axis in range(3):
                    out_point[j - 1, axis], out_point[j, axis] = out_point[j, axis], out_point[j - 1, axis]
                    out_normal[j - 1, axis], out_normal[j, axis] = out_normal[j, axis], out_normal[j - 1, axis]
                j -= 1
