"""Numba kernels that build, refit and combine the collision wing's bounding volume hierarchy.

:func:`build` makes a binary tree over the triangles (every node a box; a leaf ``-1 - start`` and a count into
``order``); :func:`collapse` turns it into the wide tree the queries read (see :mod:`._kernels`): each node
holds the boxes of up to WIDTH (8) children (float32, rounded outwards, so a box never shrinks) and their
references, and the triangles' corner and edges are kept in leaf order (:func:`triangle_data`).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

LEAF_SIZE = 4
BINS = 16
WIDTH = 8  # children per node of the query layout
PART = -2  # the count :func:`top_tree` gives a slot that holds a part's root (its reference: the part)


@nb.njit(cache=True, nogil=True)
def triangle_boxes(positions: np.ndarray, indices: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                   centroids: np.ndarray) -> None:
    for t in range(indices.shape[0]):
        for axis in range(3):
            a = positions[indices[t, 0], axis]
            b = positions[indices[t, 1], axis]
            c = positions[indices[t, 2], axis]
            lo[t, axis] = min(a, min(b, c))
            hi[t, axis] = max(a, max(b, c))
            centroids[t, axis] = (a + b + c) / 3.0


@nb.njit(cache=True, nogil=True)
def triangle_normals(positions: np.ndarray, indices: np.ndarray, normals: np.ndarray) -> None:
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
def triangle_data(positions: np.ndarray, indices: np.ndarray, order: np.ndarray, tri: np.ndarray) -> None:
    """Corner a and edges b - a, c - a of each triangle in leaf order (``tri[q]`` for triangle ``order[q]``): the
    ray test reads them contiguously, with the very values it would compute from the positions."""
    for q in range(order.shape[0]):
        t = order[q]
        a, b, c = indices[t, 0], indices[t, 1], indices[t, 2]
        for axis in range(3):
            tri[q, axis] = positions[a, axis]
            tri[q, 3 + axis] = positions[b, axis] - positions[a, axis]
            tri[q, 6 + axis] = positions[c, axis] - positions[a, axis]


@nb.njit(cache=True, nogil=True)
def build(tri_lo: np.ndarray, tri_hi: np.ndarray, centroids: np.ndarray, order: np.ndarray, node_lo: np.ndarray,
          node_hi: np.ndarray, node_a: np.ndarray, node_b: np.ndarray) -> int:
    """Top-down build with the surface area heuristic over BINS bins per axis: each node splits its triangles
    where the children's expected ray cost (area x triangles) is least, down to LEAF_SIZE triangles. Stable
    partitions keep the tree deterministic. Returns the node count."""
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


@nb.njit(cache=True, inline="always")
def box_area(x0: float, y0: float, z0: float, x1: float, y1: float, z1: float) -> float:
    dx, dy, dz = x1 - x0, y1 - y0, z1 - z0
    return dx * dy + dy * dz + dz * dx


@nb.njit(cache=True, inline="always")
def down(x: float) -> np.float32:
    """The largest float32 <= x."""
    f = np.float32(x)
    return np.nextafter(f, np.float32(-np.inf)) if np.float64(f) > x else f


@nb.njit(cache=True, inline="always")
def up(x: float) -> np.float32:
    """The smallest float32 >= x."""
    f = np.float32(x)
    return np.nextafter(f, np.float32(np.inf)) if np.float64(f) < x else f


@nb.njit(cache=True, inline="always")
def node_area(node_lo: np.ndarray, node_hi: np.ndarray, n: int) -> float:
    return box_area(node_lo[n, 0], node_lo[n, 1], node_lo[n, 2], node_hi[n, 0], node_hi[n, 1], node_hi[n, 2])


@nb.njit(cache=True, nogil=True)
def collapse(node_lo: np.ndarray, node_hi: np.ndarray, node_a: np.ndarray, node_b: np.ndarray, box: np.ndarray,
             child: np.ndarray, root_box: np.ndarray, root: np.ndarray, parts: bool) -> int:
    """The wide query layout from binary nodes (node 0 the root, as :func:`build` leaves them): each wide node
    takes a binary node's two children, then splits its largest inner child (by surface area, the first of equal
    ones) into its two until it has WIDTH or only leaves. Nodes are numbered depth first, children after their
    parent. ``box[n]`` holds the children's boxes rounded outwards to float32, axis by axis (lo x of the WIDTH,
    lo y, lo z, hi x, hi y, hi z), ``child[n]`` their references then their counts: count 0 an inner node (the
    reference: its node), > 0 a leaf (its first triangle slot), -1 an empty slot (box lo inf, hi -inf, which no
    query enters). With ``parts``, a binary leaf ``-1 - p`` is the root of part p (slot: reference p, count
    PART) instead of triangles. ``root_box`` and ``root`` get the root's box and (reference, count).
    Returns the node count."""
    for axis in range(3):
        root_box[axis], root_box[3 + axis] = down(node_lo[0, axis]), up(node_hi[0, axis])
    if node_a[0] < 0:  # the root is a leaf
        root[0], root[1] = (-1 - node_a[0], PART) if parts else (-1 - node_a[0], node_b[0])
        return 0
    root[0], root[1] = 0, 0
    pending = np.empty(node_a.shape[0], dtype=np.int64)  # binary nodes still to become wide nodes
    parent = np.empty(node_a.shape[0], dtype=np.int64)  # ... and the slot (4 x node + slot) that points to them
    slots = np.empty(WIDTH, dtype=np.int64)
    areas = np.empty(WIDTH)
    pending[0], parent[0] = 0, -1
    depth, count = 1, 0
    while depth > 0:
        depth -= 1
        binary, node = pending[depth], count
        count += 1
        if parent[depth] >= 0:
            child[parent[depth] // WIDTH, parent[depth] % WIDTH] = node
        slots[0], slots[1] = node_a[binary], node_b[binary]
        for s in range(2):  # a leaf's area -1: never split
            areas[s] = node_area(node_lo, node_hi, slots[s]) if node_a[slots[s]] >= 0 else -1.0
        used = 2
        while used < WIDTH:
            largest, pick = -1.0, -1
            for s in range(used):
                if areas[s] > largest:
                    largest, pick = areas[s], s
            if pick < 0:
                break
            split = slots[pick]
            slots[pick], slots[used] = node_a[split], node_b[split]
            for s in (pick, used):
                areas[s] = node_area(node_lo, node_hi, slots[s]) if node_a[slots[s]] >= 0 else -1.0
            used += 1
        for s in range(WIDTH):
            if s >= used:
                for axis in range(3):
                    box[node, WIDTH * axis + s], box[node, 3 * WIDTH + WIDTH * axis + s] = np.inf, -np.inf
                child[node, s], child[node, WIDTH + s] = 0, -1
                continue
            c = slots[s]
            for axis in range(3):
                box[node, WIDTH * axis + s] = down(node_lo[c, axis])
                box[node, 3 * WIDTH + WIDTH * axis + s] = up(node_hi[c, axis])
            if node_a[c] < 0:
                if parts:
                    child[node, s], child[node, WIDTH + s] = -1 - node_a[c], PART
                else:
                    child[node, s], child[node, WIDTH + s] = -1 - node_a[c], node_b[c]
            else:
                child[node, WIDTH + s] = 0  # its reference is written when it becomes a node
        for s in range(used - 1, -1, -1):  # the first slot's subtree next: depth first
            if node_a[slots[s]] >= 0:
                pending[depth], parent[depth] = slots[s], WIDTH * node + s
                depth += 1
    return count


@nb.njit(cache=True, nogil=True)
def leaf_box(positions: np.ndarray, indices: np.ndarray, order: np.ndarray, start: int, count: int, box: np.ndarray,
             n: int, s: int) -> None:
    """The box of the leaf slot s of node n (triangle slots start.. start + count), rounded outwards."""
    for axis in range(3):
        low, high = np.inf, -np.inf
        for q in range(start, start + count):
            t = order[q]
            for corner in range(3):
                value = positions[indices[t, corner], axis]
                low, high = min(low, value), max(high, value)
        box[n, WIDTH * axis + s], box[n, 3 * WIDTH + WIDTH * axis + s] = down(low), up(high)


@nb.njit(cache=True, inline="always")
def node_bounds(box: np.ndarray, n: int, lo: np.ndarray, hi: np.ndarray) -> None:
    """The union of node n's children's boxes (empty slots add nothing) into lo and hi."""
    for axis in range(3):
        low, high = box[n, WIDTH * axis], box[n, 3 * WIDTH + WIDTH * axis]
        for s in range(1, WIDTH):
            low = min(low, box[n, WIDTH * axis + s])
            high = max(high, box[n, 3 * WIDTH + WIDTH * axis + s])
        lo[axis], hi[axis] = low, high


@nb.njit(cache=True, nogil=True)
def refit(positions: np.ndarray, indices: np.ndarray, order: np.ndarray, tri: np.ndarray, box: np.ndarray,
          child: np.ndarray, root_box: np.ndarray, root: np.ndarray) -> None:
    """After the vertices moved: the triangles' leaf-order data and every box, children first (a backwards sweep
    over the nodes), the root's last. The same boxes :func:`collapse` would give a tree of this shape."""
    triangle_data(positions, indices, order, tri)
    lo, hi = np.empty(3, dtype=np.float32), np.empty(3, dtype=np.float32)
    for n in range(box.shape[0] - 1, -1, -1):
        for s in range(WIDTH):
            reference, count = child[n, s], child[n, WIDTH + s]
            if count > 0:
                leaf_box(positions, indices, order, reference, count, box, n, s)
            elif count == 0:
                node_bounds(box, reference, lo, hi)
                for axis in range(3):
                    box[n, WIDTH * axis + s], box[n, 3 * WIDTH + WIDTH * axis + s] = lo[axis], hi[axis]
    if root[1] > 0:
        whole = np.empty((1, 6 * WIDTH), dtype=np.float32)
        leaf_box(positions, indices, order, root[0], root[1], whole, 0, 0)
        for axis in range(3):
            root_box[axis], root_box[3 + axis] = whole[0, WIDTH * axis], whole[0, 3 * WIDTH + WIDTH * axis]
    else:
        node_bounds(box, root[0], lo, hi)
        for axis in range(3):
            root_box[axis], root_box[3 + axis] = lo[axis], hi[axis]


# ---------------------------------------------------------------------------------------------- combining
@nb.njit(cache=True, nogil=True)
def offset_nodes(child: np.ndarray, node_offset: np.ndarray, slot_offset: np.ndarray) -> None:
    """Move copied nodes to their place in a combined tree: inner children by ``node_offset``, leaves' first slot
    by ``slot_offset`` (both per node); empty slots stay."""
    for n in range(child.shape[0]):
        for s in range(WIDTH):
            count = child[n, WIDTH + s]
            if count == 0:
                child[n, s] += node_offset[n]
            elif count > 0:
                child[n, s] += slot_offset[n]


@nb.njit(cache=True, nogil=True)
def link_parts(child: np.ndarray, roots: np.ndarray) -> None:
    """Point the top tree's PART slots (reference: a part) at the parts' roots (``roots[p]``: reference and count
    in the combined arrays)."""
    for n in range(child.shape[0]):
        for s in range(WIDTH):
            if child[n, WIDTH + s] == PART:
                p = child[n, s]
                child[n, s], child[n, WIDTH + s] = roots[p, 0], roots[p, 1]


@nb.njit(cache=True, nogil=True)
def top_tree(root_box: np.ndarray, box: np.ndarray, child: np.ndarray, top_box: np.ndarray, top: np.ndarray) -> int:
    """The tree over P parts' root boxes that :meth:`TriangleBVH.combine` puts above them, in the query layout
    (:func:`collapse`; its slots that hold a part: reference p, count PART, for :func:`link_parts`). A binary
    tree first, each node splitting its parts where the surface area heuristic (area x parts) is least, over the
    parts sorted by box centre along each axis (stable sorts: deterministic). ``top_box`` and ``top`` get the
    root (a part's when P is 1). Returns the node count (at most P - 1)."""
    parts = root_box.shape[0]
    capacity = 2 * parts - 1
    node_lo, node_hi = np.empty((capacity, 3)), np.empty((capacity, 3))
    node_a, node_b = np.empty(capacity, dtype=np.int64), np.empty(capacity, dtype=np.int64)
    centres = (root_box[:, :3].astype(np.float64) + root_box[:, 3:].astype(np.float64)) * 0.5
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
        count = end - start
        for axis in range(3):
            low, high = np.inf, -np.inf
            for q in range(start, end):
                low, high = min(low, root_box[order[q], axis]), max(high, root_box[order[q], 3 + axis])
            node_lo[node, axis], node_hi[node, axis] = low, high
        if count == 1:
            node_a[node], node_b[node] = -1 - order[start], 1
            continue
        best_cost, best_split = np.inf, start + count // 2
        best_order[start:end] = order[start:end]
        for axis in range(3):
            sorted_ = order[start:end][np.argsort(centres[order[start:end], axis], kind="mergesort")]
            x0 = y0 = z0 = np.inf
            x1 = y1 = z1 = -np.inf
            for k in range(count - 1):
                p = sorted_[k]
                x0, y0, z0 = min(x0, root_box[p, 0]), min(y0, root_box[p, 1]), min(z0, root_box[p, 2])
                x1, y1, z1 = max(x1, root_box[p, 3]), max(y1, root_box[p, 4]), max(z1, root_box[p, 5])
                left_area[k] = box_area(x0, y0, z0, x1, y1, z1)
            x0 = y0 = z0 = np.inf
            x1 = y1 = z1 = -np.inf
            for k in range(count - 1, 0, -1):  # split between sorted k - 1 and k
                p = sorted_[k]
                x0, y0, z0 = min(x0, root_box[p, 0]), min(y0, root_box[p, 1]), min(z0, root_box[p, 2])
                x1, y1, z1 = max(x1, root_box[p, 3]), max(y1, root_box[p, 4]), max(z1, root_box[p, 5])
                cost = left_area[k - 1] * k + box_area(x0, y0, z0, x1, y1, z1) * (count - k)
                if cost < best_cost or (cost == best_cost and abs(2 * k - count) < abs(2 * (best_split - start)
                                                                                       - count)):
                    best_cost, best_split = cost, start + k
                    best_order[start:end] = sorted_
        order[start:end] = best_order[start:end]
        node_a[node], node_b[node] = nodes, nodes + 1
        stack_node[depth], stack_start[depth], stack_end[depth] = nodes + 1, best_split, end
        depth += 1
        stack_node[depth], stack_start[depth], stack_end[depth] = nodes, start, best_split
        depth += 1
        nodes += 2
    return collapse(node_lo, node_hi, node_a, node_b, box, child, top_box, top, True)
