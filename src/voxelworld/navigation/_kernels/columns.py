"""Vertical rays through the triangles over a block of a region's cells: which triangles each cell can meet, and
every hit of rays falling straight down.

The rays of a bake all fall straight down inside a block of cells, so instead of a tree, each cell lists the
triangles whose x-z box overlaps it (``bin_triangles``), and a ray tests every triangle of its cell
(``vertical_hits``) with the collision wing's ray-triangle test. A ray thus meets exactly the triangles that
test accepts, at the distances it gives, whichever block it is cast in. (A ray cast through a
:class:`~voxelworld.collision.TriangleBVH` meets the same ones, except that the tree's box test can drop a
triangle whose corner lies right under the ray, and which one depends on the tree.)
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ...collision._kernels import ray_triangle
from .buckets import csr_buckets

SLACK = 1e-9  # m, per metre of coordinate: how far a box is widened so that rounding loses no triangle


@numba.njit(cache=True, nogil=True)
def _cells(lo: float, hi: float, origin: float, cell: float, n: int) -> tuple[int, int]:
    """The cells [first, last] along one axis that the interval [lo, hi] (m, widened by SLACK) overlaps,
    clamped to the block's n cells from ``origin``; first > last when it misses them."""
    first = int(math.floor((lo - SLACK * (1.0 + abs(lo)) - origin) / cell))
    last = int(math.floor((hi + SLACK * (1.0 + abs(hi)) - origin) / cell))
    return max(first, 0), min(last, n - 1)


@numba.njit(cache=True, nogil=True)
def _cell_of(x: float, z: float, x0: float, z0: float, cell: float, nx: int, nz: int) -> int:
    """The cell of the block that the point (x, z) (m) lies in."""
    i = min(max(int(math.floor((x - x0) / cell)), 0), nx - 1)
    k = min(max(int(math.floor((z - z0) / cell)), 0), nz - 1)
    return i * nz + k


@numba.njit(cache=True, nogil=True)
def bin_triangles(boxes: np.ndarray, x0: float, z0: float, cell: float, nx: int, nz: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The triangles whose x-z box ``boxes[t] = (x_min, x_max, z_min, z_max)`` (m) overlaps each cell of a block
    of ``nx`` by ``nz`` cells of ``cell`` m from ``(x0, z0)``, in CSR form: cell ``i * nz + k`` holds
    ``members[start[c]:start[c + 1]]``, ascending."""
    spans = np.empty((boxes.shape[0], 4), np.int64)
    for t in range(boxes.shape[0]):
        spans[t, 0], spans[t, 1] = _cells(boxes[t, 0], boxes[t, 1], x0, cell, nx)
        spans[t, 2], spans[t, 3] = _cells(boxes[t, 2], boxes[t, 3], z0, cell, nz)
    return csr_buckets(spans, nx, nz)


@numba.njit(cache=True, nogil=True, inline="always")
def _ray_hits(positions: np.ndarray, indices: np.ndarray, start: np.ndarray, members: np.ndarray, c: int, x: float,
              z: float, top: float, depth: float, r: int, ray: np.ndarray, distance: np.ndarray, triangle: np.ndarray,
              n: int) -> int:
    """Append the hits of ray ``r`` at ``(x, z)`` on the triangles of cell ``c`` from ``top`` down to ``top -
    depth`` to ``ray``, ``distance`` and ``triangle`` from row ``n``, by distance, then by triangle; returns the
    rows filled."""
    first = n
    for j in range(start[c], start[c + 1]):
        t = members[j]
        d = ray_triangle(positions, indices, t, x, top, z, 0.0, -1.0, 0.0)
        if d < np.inf and d <= depth:
            h = n  # insertion by distance; triangles come in ascending order, so ties keep it
            while h > first and distance[h - 1] > d:
                ray[h], distance[h], triangle[h] = ray[h - 1], distance[h - 1], triangle[h - 1]
                h -= 1
            ray[h], distance[h], triangle[h] = r, d, t
            n += 1
    return n


@numba.njit(cache=True, nogil=True)
def vertical_hits(positions: np.ndarray, indices: np.ndarray, start: np.ndarray, members: np.ndarray, x0: float,
                  z0: float, cell: float, nx: int, nz: int, x: np.ndarray, z: np.ndarray, top: float, depth: float
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every hit of rays falling from height ``top`` (m) at ``(x[r], z[r])`` (inside the block that ``start``
    and ``members`` bin) down to ``top - depth``: ``(ray, distance from top, triangle)``, sorted by ray, then
    by distance, then by triangle."""
    room = 0
    for r in range(x.shape[0]):
        c = _cell_of(x[r], z[r], x0, z0, cell, nx, nz)
        room += start[c + 1] - start[c]
    ray, distance, triangle = np.empty(room, np.int64), np.empty(room), np.empty(room, np.int64)
    n = 0
    for r in range(x.shape[0]):
        c = _cell_of(x[r], z[r], x0, z0, cell, nx, nz)
        n = _ray_hits(positions, indices, start, members, c, x[r], z[r], top, depth, r, ray, distance, triangle, n)
    return ray[:n], distance[:n], triangle[:n]


@numba.njit(cache=True, nogil=True)
def column_hits(positions: np.ndarray, indices: np.ndarray, start: np.ndarray, members: np.ndarray, nx: int, nz: int,
                gx0: float, gz0: float, cell: float, i0: int, k0: int, top: float, depth: float, bottom: float,
                up: np.ndarray, proxy: np.ndarray, area: np.ndarray, landing: bool
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every hit of the column rays of a binned block of ``nx`` x ``nz`` cells, columns ``[i0, i0 + nx) x [k0, k0 +
    nz)`` of a grid from ``(gx0, gz0)`` (ray ``i * nz + k`` falls through the centre of the block's cell (i, k),
    at ``gx0 + (i0 + i + 0.5) * cell``, likewise along z) from ``top`` down to ``top - depth``, as
    :func:`vertical_hits` finds them: ray, height (m) and the hit triangle's ``up``, ``proxy`` and ``area``; a
    ray that meets nothing lands, with ``landing``, on ``bottom`` facing up (1.0, no proxy, area 0)."""
    room = start[nx * nz] + (nx * nz if landing else 0)
    ray, distance, triangle = np.empty(room, np.int64), np.empty(room), np.empty(room, np.int64)
    n = 0
    for i in range(nx):
        for k in range(nz):
            r = i * nz + k
            before = n
            n = _ray_hits(positions, indices, start, members, r, gx0 + (i0 + i + 0.5) * cell,
                          gz0 + (k0 + k + 0.5) * cell, top, depth, r, ray, distance, triangle, n)
            if landing and n == before:
                ray[n], distance[n], triangle[n] = r, depth, -1
                n += 1
    height, hit_up = np.empty(n), np.empty(n)
    hit_proxy, hit_area = np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.int64)
    for h in range(n):
        t = triangle[h]
        height[h] = top - distance[h] if t >= 0 else bottom
        hit_up[h] = up[t] if t >= 0 else 1.0
        hit_proxy[h] = proxy[t] if t >= 0 else False
        hit_area[h] = area[t] if t >= 0 else 0
    return ray[:n].copy(), height, hit_up, hit_proxy, hit_area


@numba.njit(cache=True, nogil=True)
def triangle_boxes(positions: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each triangle's x-z box ``(x_min, x_max, z_min, z_max)`` (m), the box of them all, and each one's up
    component: the y of its unit normal as wound (0 for a degenerate one), computed as the collision wing's
    :class:`~voxelworld.collision.TriangleBVH` computes its normals (numpy's cross product and norm)."""
    m = indices.shape[0]
    boxes, up = np.empty((m, 4)), np.empty(m)
    whole = np.array([np.inf, -np.inf, np.inf, -np.inf])
    for t in range(m):
        a, b, c = indices[t, 0], indices[t, 1], indices[t, 2]
        boxes[t, 0] = min(positions[a, 0], positions[b, 0], positions[c, 0])
        boxes[t, 1] = max(positions[a, 0], positions[b, 0], positions[c, 0])
        boxes[t, 2] = min(positions[a, 2], positions[b, 2], positions[c, 2])
        boxes[t, 3] = max(positions[a, 2], positions[b, 2], positions[c, 2])
        whole[0], whole[1] = min(whole[0], boxes[t, 0]), max(whole[1], boxes[t, 1])
        whole[2], whole[3] = min(whole[2], boxes[t, 2]), max(whole[3], boxes[t, 3])
        ux, uy = positions[b, 0] - positions[a, 0], positions[b, 1] - positions[a, 1]
        uz = positions[b, 2] - positions[a, 2]
        vx, vy = positions[c, 0] - positions[a, 0], positions[c, 1] - positions[a, 1]
        vz = positions[c, 2] - positions[a, 2]
        nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
        length = math.sqrt(nx * nx + ny * ny + nz * nz)
        up[t] = ny / length if length > 0 else 0.0
    return boxes, whole, up
