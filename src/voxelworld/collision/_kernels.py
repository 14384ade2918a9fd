"""Numba kernels of the collision wing: a bounding volume hierarchy over triangles and the queries on it.

Layout (plain arrays, built by :func:`build`): ``node_lo`` / ``node_hi`` (nodes, 3) float64 boxes; ``node_a`` /
``node_b`` int64: for an inner node its two children, for a leaf ``-1 - start`` and the triangle count, where
``order[start:start + count]`` are the leaf's triangles. Node 0 is the root.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

LEAF_SIZE = 4
BINS = 16
EPSILON = 1e-12


# ---------------------------------------------------------------------------------------------------- build
@nb.njit(cache=True, nogil=True)
def triangle_boxes(positions, indices, lo, hi, centroids):
    for t in range(indices.shape[0]):
        for axis in range(3):
            a = positions[indices[t, 0], axis]
            b = positions[indices[t, 1], axis]
            c = positions[indices[t, 2], axis]
            lo[t, axis] = min(a, min(b, c))
            hi[t, axis] = max(a, max(b, c))
            centroids[t, axis] = (a + b + c) / 3.0


@nb.njit(cache=True, nogil=True)
def triangle_normals(positions, indices, normals):
    """Each triangle's unit normal (corners counter-clockwise seen from its front) into ``normals``; (0, 0, 0) for
    a degenerate one. The same operations in the same order as numpy's cross product and norm."""
    for t in range(indices.shape[0]):
        a, b, c = indices[t, 0], indices[t, 1], indices[t, 2]
        ux = positions[b, 0] - positions[a, 0]
        uy = positions[b, 1] - positions[a, 1]
        uz = positions[b, 2] - positions[a, 2]
        vx = positions[c, 0] - positions[a, 0]
        vy = positions[c, 1] - positions[a, 1]
        vz = positions[c, 2] - positions[a, 2]
        nx = uy * vz - uz * vy
        ny = uz * vx - ux * vz
        nz = ux * vy - uy * vx
        length = math.sqrt(nx * nx + ny * ny + nz * nz)
        if length > 0.0:
            normals[t, 0] = nx / length
            normals[t, 1] = ny / length
            normals[t, 2] = nz / length
        else:
            normals[t, 0] = 0.0
            normals[t, 1] = 0.0
            normals[t, 2] = 0.0


@nb.njit(cache=True, nogil=True)
def build(tri_lo, tri_hi, centroids, order, node_lo, node_hi, node_a, node_b):
    """Top-down build with the surface area heuristic over BINS bins per axis: each node splits its triangles
    where the children's expected ray cost (area x triangles) is least, down to LEAF_SIZE triangles (or stops
    where no split pays). Stable partitions keep the tree deterministic. Returns the node count."""
    n = order.shape[0]
    for t in range(n):
        order[t] = t
    stack_node = np.empty(256, dtype=np.int64)
    stack_start = np.empty(256, dtype=np.int64)
    stack_end = np.empty(256, dtype=np.int64)
    scratch = np.empty(n, dtype=np.int64)
    bin_lo = np.empty((BINS, 3))
    bin_hi = np.empty((BINS, 3))
    bin_count = np.empty(BINS, dtype=np.int64)
    right_area = np.empty(BINS)
    right_count = np.empty(BINS, dtype=np.int64)
    nodes = 1
    stack_node[0], stack_start[0], stack_end[0] = 0, 0, n
    depth = 1
    while depth > 0:
        depth -= 1
        node, start, end = stack_node[depth], stack_start[depth], stack_end[depth]
        clo0 = clo1 = clo2 = np.inf
        chi0 = chi1 = chi2 = -np.inf
        for axis in range(3):
            node_lo[node, axis] = np.inf
            node_hi[node, axis] = -np.inf
        for q in range(start, end):
            t = order[q]
            for axis in range(3):
                node_lo[node, axis] = min(node_lo[node, axis], tri_lo[t, axis])
                node_hi[node, axis] = max(node_hi[node, axis], tri_hi[t, axis])
            clo0, chi0 = min(clo0, centroids[t, 0]), max(chi0, centroids[t, 0])
            clo1, chi1 = min(clo1, centroids[t, 1]), max(chi1, centroids[t, 1])
            clo2, chi2 = min(clo2, centroids[t, 2]), max(chi2, centroids[t, 2])
        count = end - start
        if count <= LEAF_SIZE:
            node_a[node], node_b[node] = -1 - start, count
            continue
        best_cost, best_axis, best_bin = np.inf, -1, -1
        for axis in range(3):
            low = clo0 if axis == 0 else (clo1 if axis == 1 else clo2)
            high = chi0 if axis == 0 else (chi1 if axis == 1 else chi2)
            if high <= low:
                continue
            scale = BINS / (high - low)
            for k in range(BINS):
                bin_count[k] = 0
                for c in range(3):
                    bin_lo[k, c] = np.inf
                    bin_hi[k, c] = -np.inf
            for q in range(start, end):
                t = order[q]
                k = min(int((centroids[t, axis] - low) * scale), BINS - 1)
                bin_count[k] += 1
                for c in range(3):
                    bin_lo[k, c] = min(bin_lo[k, c], tri_lo[t, c])
                    bin_hi[k, c] = max(bin_hi[k, c], tri_hi[t, c])
            # Sweep from the right: area and count of bins k.. .
            x0 = y0 = z0 = np.inf
            x1 = y1 = z1 = -np.inf
            total = 0
            for k in range(BINS - 1, 0, -1):
                x0, y0, z0 = min(x0, bin_lo[k, 0]), min(y0, bin_lo[k, 1]), min(z0, bin_lo[k, 2])
                x1, y1, z1 = max(x1, bin_hi[k, 0]), max(y1, bin_hi[k, 1]), max(z1, bin_hi[k, 2])
                total += bin_count[k]
                right_count[k] = total
                right_area[k] = box_area(x0, y0, z0, x1, y1, z1) if total else 0.0
            x0 = y0 = z0 = np.inf
            x1 = y1 = z1 = -np.inf
            total = 0
            for k in range(BINS - 1):  # split between bin k and k + 1
                x0, y0, z0 = min(x0, bin_lo[k, 0]), min(y0, bin_lo[k, 1]), min(z0, bin_lo[k, 2])
                x1, y1, z1 = max(x1, bin_hi[k, 0]), max(y1, bin_hi[k, 1]), max(z1, bin_hi[k, 2])
                total += bin_count[k]
                if total == 0 or right_count[k + 1] == 0:
                    continue
                cost = box_area(x0, y0, z0, x1, y1, z1) * total + right_area[k + 1] * right_count[k + 1]
                if cost < best_cost:
                    best_cost, best_axis, best_bin = cost, axis, k
        if best_axis < 0:  # every centroid in one point: split the range in half
            middle = start + count // 2
        else:
            low = clo0 if best_axis == 0 else (clo1 if best_axis == 1 else clo2)
            high = chi0 if best_axis == 0 else (chi1 if best_axis == 1 else chi2)
            scale = BINS / (high - low)
            # Stable partition: the triangles of bins <= best_bin first, in their order.
            left = 0
            for q in range(start, end):
                t = order[q]
                if min(int((centroids[t, best_axis] - low) * scale), BINS - 1) <= best_bin:
                    scratch[left] = t
                    left += 1
            middle = start + left
            right = left
            for q in range(start, end):
                t = order[q]
                if min(int((centroids[t, best_axis] - low) * scale), BINS - 1) > best_bin:
                    scratch[right] = t
                    right += 1
            for q in range(count):
                order[start + q] = scratch[q]
        left_node, right_node = nodes, nodes + 1
        nodes += 2
        node_a[node], node_b[node] = left_node, right_node
        stack_node[depth], stack_start[depth], stack_end[depth] = right_node, middle, end
        depth += 1
        stack_node[depth], stack_start[depth], stack_end[depth] = left_node, start, middle
        depth += 1
    return nodes


@nb.njit(cache=True, nogil=True)
def offset_nodes(node_a, node_b, node_offset, tri_offset):
    """Move copied nodes to their place in a combined tree: children by ``node_offset``, leaves' first triangle
    by ``tri_offset`` (both per node)."""
    for i in range(node_a.shape[0]):
        if node_a[i] >= 0:
            node_a[i] += node_offset[i]
            node_b[i] += node_offset[i]
        else:
            node_a[i] -= tri_offset[i]


@nb.njit(cache=True, nogil=True)
def top_tree(root_lo, root_hi, roots, node_lo, node_hi, node_a, node_b):
    """The tree over P parts' root boxes that :meth:`TriangleBVH.combine` puts above them: P - 1 inner nodes
    numbered 0.. (children after their parent), whose children are other top nodes or the parts' roots
    (``roots[p]``, node numbers in the combined arrays). Each node splits its parts where the surface area
    heuristic (area x parts) is least, over the parts sorted by box centre along each axis (a stable sort:
    deterministic)."""
    parts = roots.shape[0]
    if parts < 2:
        return
    centres = (root_lo + root_hi) * 0.5
    order = np.arange(parts)
    best_order = np.empty(parts, dtype=np.int64)
    left_area = np.empty(parts)
    stack_node = np.empty(parts, dtype=np.int64)
    stack_start = np.empty(parts, dtype=np.int64)
    stack_end = np.empty(parts, dtype=np.int64)
    stack_node[0], stack_start[0], stack_end[0] = 0, 0, parts
    depth = 1
    nodes = 1
    while depth > 0:
        depth -= 1
        node, start, end = stack_node[depth], stack_start[depth], stack_end[depth]
        for axis in range(3):
            low, high = np.inf, -np.inf
            for q in range(start, end):
                low = min(low, root_lo[order[q], axis])
                high = max(high, root_hi[order[q], axis])
            node_lo[node, axis], node_hi[node, axis] = low, high
        count = end - start
        best_cost, best_split = np.inf, start + count // 2
        best_order[start:end] = order[start:end]
        for axis in range(3):
            sorted_ = order[start:end][np.argsort(centres[order[start:end], axis], kind="mergesort")]
            x0 = y0 = z0 = np.inf
            x1 = y1 = z1 = -np.inf
            for k in range(count - 1):
                p = sorted_[k]
                x0, y0, z0 = min(x0, root_lo[p, 0]), min(y0, root_lo[p, 1]), min(z0, root_lo[p, 2])
                x1, y1, z1 = max(x1, root_hi[p, 0]), max(y1, root_hi[p, 1]), max(z1, root_hi[p, 2])
                left_area[k] = box_area(x0, y0, z0, x1, y1, z1)
            x0 = y0 = z0 = np.inf
            x1 = y1 = z1 = -np.inf
            for k in range(count - 1, 0, -1):  # split between sorted k - 1 and k
                p = sorted_[k]
                x0, y0, z0 = min(x0, root_lo[p, 0]), min(y0, root_lo[p, 1]), min(z0, root_lo[p, 2])
                x1, y1, z1 = max(x1, root_hi[p, 0]), max(y1, root_hi[p, 1]), max(z1, root_hi[p, 2])
                cost = left_area[k - 1] * k + box_area(x0, y0, z0, x1, y1, z1) * (count - k)
                if cost < best_cost or (cost == best_cost and abs(2 * k - count) < abs(2 * (best_split - start)
                                                                                       - count)):
                    best_cost, best_split = cost, start + k
                    best_order[start:end] = sorted_
        order[start:end] = best_order[start:end]
        children = (start, best_split, best_split, end)
        for side in range(2):
            first, last = children[2 * side], children[2 * side + 1]
            if last - first == 1:
                child = roots[order[first]]
            else:
                child = nodes
                nodes += 1
                stack_node[depth], stack_start[depth], stack_end[depth] = child, first, last
                depth += 1
            if side == 0:
                node_a[node] = child
            else:
                node_b[node] = child


@nb.njit(cache=True, inline="always")
def box_area(x0, y0, z0, x1, y1, z1):
    dx, dy, dz = x1 - x0, y1 - y0, z1 - z0
    return dx * dy + dy * dz + dz * dx


@nb.njit(cache=True, nogil=True)
def refit(tri_lo, tri_hi, order, node_lo, node_hi, node_a, node_b, nodes):
    """Recompute every node's box from its triangles' boxes (children are numbered after their parent, so a
    backwards sweep sees children first)."""
    for node in range(nodes - 1, -1, -1):
        a, b = node_a[node], node_b[node]
        for axis in range(3):
            low, high = np.inf, -np.inf
            if a < 0:
                start = -1 - a
                for q in range(start, start + b):
                    low = min(low, tri_lo[order[q], axis])
                    high = max(high, tri_hi[order[q], axis])
            else:
                low = min(node_lo[a, axis], node_lo[b, axis])
                high = max(node_hi[a, axis], node_hi[b, axis])
            node_lo[node, axis], node_hi[node, axis] = low, high


# ---------------------------------------------------------------------------------------------------- rays
@nb.njit(cache=True, inline="always")
def ray_box(ox, oy, oz, ix, iy, iz, lo, hi, node, t_max):
    """Entry distance of the ray into node's box (inf when it misses or enters beyond t_max)."""
    t0 = (lo[node, 0] - ox) * ix
    t1 = (hi[node, 0] - ox) * ix
    near, far = min(t0, t1), max(t0, t1)
    t0 = (lo[node, 1] - oy) * iy
    t1 = (hi[node, 1] - oy) * iy
    near, far = max(near, min(t0, t1)), min(far, max(t0, t1))
    t0 = (lo[node, 2] - oz) * iz
    t1 = (hi[node, 2] - oz) * iz
    near, far = max(near, min(t0, t1)), min(far, max(t0, t1))
    if far < max(near, 0.0) or near > t_max:
        return np.inf
    return max(near, 0.0)


@nb.njit(cache=True, inline="always")
def ray_triangle(positions, indices, t, ox, oy, oz, dx, dy, dz):
    """Distance along the ray to triangle t (Moller-Trumbore, both sides), inf when it misses."""
    a, b, c = indices[t, 0], indices[t, 1], indices[t, 2]
    e1x, e1y, e1z = positions[b, 0] - positions[a, 0], positions[b, 1] - positions[a, 1], positions[b, 2] - positions[a, 2]
    e2x, e2y, e2z = positions[c, 0] - positions[a, 0], positions[c, 1] - positions[a, 1], positions[c, 2] - positions[a, 2]
    px, py, pz = dy * e2z - dz * e2y, dz * e2x - dx * e2z, dx * e2y - dy * e2x
    det = e1x * px + e1y * py + e1z * pz
    if abs(det) < EPSILON:
        return np.inf
    inv = 1.0 / det
    sx, sy, sz = ox - positions[a, 0], oy - positions[a, 1], oz - positions[a, 2]
    u = (sx * px + sy * py + sz * pz) * inv
    if u < 0.0 or u > 1.0:
        return np.inf
    qx, qy, qz = sy * e1z - sz * e1y, sz * e1x - sx * e1z, sx * e1y - sy * e1x
    v = (dx * qx + dy * qy + dz * qz) * inv
    if v < 0.0 or u + v > 1.0:
        return np.inf
    dist = (e2x * qx + e2y * qy + e2z * qz) * inv
    return dist if dist >= 0.0 else np.inf


@nb.njit(cache=True, nogil=True)
def raycast(positions, indices, order, node_lo, node_hi, node_a, node_b, origins, directions, max_distance,
            out_distance, out_triangle):
    """First hit of each ray (directions unit length): distance (inf: none) and triangle (-1: none). Ties go to
    the lower triangle index, so the answer does not depend on the tree's shape."""
    stack = np.empty(128, dtype=np.int64)
    entry = np.empty(128)  # where the ray enters each stacked node's box: stale entries are skipped on pop
    for r in range(origins.shape[0]):
        ox, oy, oz = origins[r, 0], origins[r, 1], origins[r, 2]
        dx, dy, dz = directions[r, 0], directions[r, 1], directions[r, 2]
        ix = 1.0 / dx if dx != 0.0 else np.inf
        iy = 1.0 / dy if dy != 0.0 else np.inf
        iz = 1.0 / dz if dz != 0.0 else np.inf
        best, best_t = max_distance[r], -1
        top = 0
        root = ray_box(ox, oy, oz, ix, iy, iz, node_lo, node_hi, 0, best)
        if root < np.inf:
            stack[0], entry[0] = 0, root
            top = 1
        while top > 0:
            top -= 1
            node = stack[top]
            if entry[top] > best:
                continue
            a, b = node_a[node], node_b[node]
            if a < 0:
                start = -1 - a
                for q in range(start, start + b):
                    t = order[q]
                    dist = ray_triangle(positions, indices, t, ox, oy, oz, dx, dy, dz)
                    if dist < best or (dist == best and best_t >= 0 and t < best_t):
                        best, best_t = dist, t
            else:
                na = ray_box(ox, oy, oz, ix, iy, iz, node_lo, node_hi, a, best)
                nb_ = ray_box(ox, oy, oz, ix, iy, iz, node_lo, node_hi, b, best)
                # Nearer child last on the stack, so it is searched first and prunes the other.
                if na <= nb_:
                    if nb_ < np.inf:
                        stack[top], entry[top] = b, nb_
                        top += 1
                    if na < np.inf:
                        stack[top], entry[top] = a, na
                        top += 1
                else:
                    if na < np.inf:
                        stack[top], entry[top] = a, na
                        top += 1
                    if nb_ < np.inf:
                        stack[top], entry[top] = b, nb_
                        top += 1
        out_triangle[r] = best_t
        out_distance[r] = best if best_t >= 0 else np.inf


@nb.njit(cache=True, nogil=True)
def raycast_all(positions, indices, order, node_lo, node_hi, node_a, node_b, origins, directions, max_distance,
                counts, out_ray, out_distance, out_triangle):
    """Every hit of each ray within its max distance. With ``out_ray`` empty, only counts hits per ray into
    ``counts``; else fills the hits in ray order (unsorted within a ray; the wrapper sorts)."""
    stack = np.empty(128, dtype=np.int64)
    fill = out_ray.shape[0] > 0
    k = 0
    for r in range(origins.shape[0]):
        ox, oy, oz = origins[r, 0], origins[r, 1], origins[r, 2]
        dx, dy, dz = directions[r, 0], directions[r, 1], directions[r, 2]
        ix = 1.0 / dx if dx != 0.0 else np.inf
        iy = 1.0 / dy if dy != 0.0 else np.inf
        iz = 1.0 / dz if dz != 0.0 else np.inf
        limit = max_distance[r]
        found = 0
        stack[0] = 0
        top = 1
        while top > 0:
            top -= 1
            node = stack[top]
            if ray_box(ox, oy, oz, ix, iy, iz, node_lo, node_hi, node, limit) == np.inf:
                continue
            a, b = node_a[node], node_b[node]
            if a < 0:
                start = -1 - a
                for q in range(start, start + b):
                    t = order[q]
                    dist = ray_triangle(positions, indices, t, ox, oy, oz, dx, dy, dz)
                    if dist < np.inf and dist <= limit:
                        if fill:
                            out_ray[k], out_distance[k], out_triangle[k] = r, dist, t
                            k += 1
                        found += 1
            else:
                stack[top] = a
                stack[top + 1] = b
                top += 2
        if not fill:
            counts[r] = found


# ------------------------------------------------------------------------------------------- closest points
@nb.njit(cache=True, inline="always")
def closest_on_triangle(positions, indices, t, px, py, pz):
    """The point of triangle t closest to (px, py, pz) (regions of the triangle's Voronoi diagram)."""
    a, b, c = indices[t, 0], indices[t, 1], indices[t, 2]
    ax, ay, az = positions[a, 0], positions[a, 1], positions[a, 2]
    bx, by, bz = positions[b, 0], positions[b, 1], positions[b, 2]
    cx, cy, cz = positions[c, 0], positions[c, 1], positions[c, 2]
    abx, aby, abz = bx - ax, by - ay, bz - az
    acx, acy, acz = cx - ax, cy - ay, cz - az
    apx, apy, apz = px - ax, py - ay, pz - az
    d1 = abx * apx + aby * apy + abz * apz
    d2 = acx * apx + acy * apy + acz * apz
    if d1 <= 0.0 and d2 <= 0.0:
        return ax, ay, az
    bpx, bpy, bpz = px - bx, py - by, pz - bz
    d3 = abx * bpx + aby * bpy + abz * bpz
    d4 = acx * bpx + acy * bpy + acz * bpz
    if d3 >= 0.0 and d4 <= d3:
        return bx, by, bz
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        v = d1 / (d1 - d3) if d1 != d3 else 0.0  # equal only on a degenerate (zero-length) edge
        return ax + v * abx, ay + v * aby, az + v * abz
    cpx, cpy, cpz = px - cx, py - cy, pz - cz
    d5 = abx * cpx + aby * cpy + abz * cpz
    d6 = acx * cpx + acy * cpy + acz * cpz
    if d6 >= 0.0 and d5 <= d6:
        return cx, cy, cz
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        w = d2 / (d2 - d6) if d2 != d6 else 0.0
        return ax + w * acx, ay + w * acy, az + w * acz
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        span = (d4 - d3) + (d5 - d6)
        w = (d4 - d3) / span if span != 0.0 else 0.0
        return bx + w * (cx - bx), by + w * (cy - by), bz + w * (cz - bz)
    total = va + vb + vc
    if total == 0.0:  # a degenerate (zero-area) triangle: the nearest point of its edges
        return degenerate_closest(ax, ay, az, bx, by, bz, cx, cy, cz, px, py, pz)
    denom = 1.0 / total
    v = vb * denom
    w = vc * denom
    return ax + abx * v + acx * w, ay + aby * v + acy * w, az + abz * v + acz * w


@nb.njit(cache=True, inline="always")
def closest_segment_point(ax, ay, az, bx, by, bz, px, py, pz):
    """The point of segment ab closest to p."""
    ux, uy, uz = bx - ax, by - ay, bz - az
    uu = ux * ux + uy * uy + uz * uz
    s = 0.0
    if uu > 0.0:
        s = min(max(((px - ax) * ux + (py - ay) * uy + (pz - az) * uz) / uu, 0.0), 1.0)
    return ax + s * ux, ay + s * uy, az + s * uz


@nb.njit(cache=True)
def degenerate_closest(ax, ay, az, bx, by, bz, cx, cy, cz, px, py, pz):
    """The point nearest p on the three edges of a triangle with no area."""
    best = np.inf
    rx = ry = rz = 0.0
    for e in range(3):
        if e == 0:
            qx, qy, qz = closest_segment_point(ax, ay, az, bx, by, bz, px, py, pz)
        elif e == 1:
            qx, qy, qz = closest_segment_point(bx, by, bz, cx, cy, cz, px, py, pz)
        else:
            qx, qy, qz = closest_segment_point(cx, cy, cz, ax, ay, az, px, py, pz)
        d = (qx - px) ** 2 + (qy - py) ** 2 + (qz - pz) ** 2
        if d < best:
            best, rx, ry, rz = d, qx, qy, qz
    return rx, ry, rz


@nb.njit(cache=True, inline="always")
def segment_triangle_closest(positions, indices, t, ax, ay, az, bx, by, bz):
    """Closest points (on the segment, on the triangle) between segment ab and triangle t: the segment's
    crossing if it crosses, else the best of the segment's ends against the triangle and the triangle's
    edges against the segment (alternating projection, a few rounds, is exact enough for contacts)."""
    dx, dy, dz = bx - ax, by - ay, bz - az
    length = math.sqrt(dx * dx + dy * dy + dz * dz)
    if length > 0.0:
        dist = ray_triangle(positions, indices, t, ax, ay, az, dx / length, dy / length, dz / length)
        if dist <= length:
            x, y, z = ax + dx * dist / length, ay + dy * dist / length, az + dz * dist / length
            return x, y, z, x, y, z
    best = np.inf
    rx = ry = rz = qx = qy = qz = 0.0
    # Candidate 1 and 2: the segment's ends.
    for end in range(2):
        sx, sy, sz = (ax, ay, az) if end == 0 else (bx, by, bz)
        tx, ty, tz = closest_on_triangle(positions, indices, t, sx, sy, sz)
        d = (sx - tx) ** 2 + (sy - ty) ** 2 + (sz - tz) ** 2
        if d < best:
            best, rx, ry, rz, qx, qy, qz = d, sx, sy, sz, tx, ty, tz
    # Candidates 3-5: each triangle edge against the segment (closest points between two segments).
    for e in range(3):
        i0, i1 = indices[t, e], indices[t, (e + 1) % 3]
        cx, cy, cz = positions[i0, 0], positions[i0, 1], positions[i0, 2]
        ex, ey, ez = positions[i1, 0] - cx, positions[i1, 1] - cy, positions[i1, 2] - cz
        # Standard closest points between segments p(s) = a + s d and q(u) = c + u e.
        rrx, rry, rrz = ax - cx, ay - cy, az - cz
        aa = dx * dx + dy * dy + dz * dz
        ee = ex * ex + ey * ey + ez * ez
        f = ex * rrx + ey * rry + ez * rrz
        s = u = 0.0
        if aa <= EPSILON and ee <= EPSILON:
            s = u = 0.0
        elif aa <= EPSILON:
            u = min(max(f / ee, 0.0), 1.0)
        else:
            cc = dx * rrx + dy * rry + dz * rrz
            if ee <= EPSILON:
                s = min(max(-cc / aa, 0.0), 1.0)
            else:
                bb = dx * ex + dy * ey + dz * ez
                denom = aa * ee - bb * bb
                s = min(max((bb * f - cc * ee) / denom, 0.0), 1.0) if denom != 0.0 else 0.0
                u = (bb * s + f) / ee
                if u < 0.0:
                    u = 0.0
                    s = min(max(-cc / aa, 0.0), 1.0)
                elif u > 1.0:
                    u = 1.0
                    s = min(max((bb - cc) / aa, 0.0), 1.0)
        sx, sy, sz = ax + s * dx, ay + s * dy, az + s * dz
        tx, ty, tz = cx + u * ex, cy + u * ey, cz + u * ez
        d = (sx - tx) ** 2 + (sy - ty) ** 2 + (sz - tz) ** 2
        if d < best:
            best, rx, ry, rz, qx, qy, qz = d, sx, sy, sz, tx, ty, tz
    return rx, ry, rz, qx, qy, qz


@nb.njit(cache=True, nogil=True)
def overlap(positions, indices, normals, order, node_lo, node_hi, node_a, node_b, starts, ends, radii, counts,
            out_query, out_triangle, out_point, out_normal, out_depth):
    """Contacts of swept spheres (capsules; a sphere is a capsule whose ends coincide) with the triangles:
    every triangle closer than the radius to the segment start..end. With ``out_query`` empty, only counts
    contacts per query; else fills them in query order, triangle order within a query, as long as they fit
    (``counts`` gets every query's count either way: when their sum exceeds the outputs' length, call again
    with room for all). A contact's point is on the triangle, its normal points from the triangle towards the
    segment (the triangle's own normal when they touch), and its depth is radius minus distance."""
    stack = np.empty(128, dtype=np.int64)
    room = out_query.shape[0]
    k = 0
    for qi in range(starts.shape[0]):
        ax, ay, az = starts[qi, 0], starts[qi, 1], starts[qi, 2]
        bx, by, bz = ends[qi, 0], ends[qi, 1], ends[qi, 2]
        radius = radii[qi]
        lo0, lo1, lo2 = min(ax, bx) - radius, min(ay, by) - radius, min(az, bz) - radius
        hi0, hi1, hi2 = max(ax, bx) + radius, max(ay, by) + radius, max(az, bz) + radius
        found = 0
        stack[0] = 0
        top = 1
        first = k
        while top > 0:
            top -= 1
            node = stack[top]
            if (node_lo[node, 0] > hi0 or node_hi[node, 0] < lo0 or node_lo[node, 1] > hi1 or node_hi[node, 1] < lo1
                    or node_lo[node, 2] > hi2 or node_hi[node, 2] < lo2):
                continue
            a, b = node_a[node], node_b[node]
            if a >= 0:
                stack[top] = a
                stack[top + 1] = b
                top += 2
                continue
            start = -1 - a
            for q in range(start, start + b):
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
