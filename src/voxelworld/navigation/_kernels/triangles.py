"""Kernels that cut a region's simplified outline into convex polygons of at most N corners.

The holes are bridged into the outer loop (each by the shortest diagonal from its leftmost point that can see
the outline, as Recast's ``mergeRegionHoles``), the one loop is cut into triangles by ear clipping (the ear
with the shortest diagonal first, as Recast's ``triangulate``, with O'Rourke's diagonal tests), and triangles
are merged across their shared edges, longest edge first, while the union stays convex and has at most N
corners (Recast's ``mergePolyVerts``; a corner on a straight side counts). Points are grid corners (whole
cells), so every test is exact.

An edge's *label* is what lies across it (see ``outlines``); bridges and diagonals are ``BRIDGE``.
"""

from __future__ import annotations

import numba
import numpy as np

from .outlines import BRIDGE, _cross, _segments_meet


@numba.njit(cache=True, nogil=True, inline="always")
def _left(points: np.ndarray, a: int, b: int, c: int) -> bool:
    return _cross(points[a, 0], points[a, 1], points[b, 0], points[b, 1], points[c, 0], points[c, 1]) > 0


@numba.njit(cache=True, nogil=True, inline="always")
def _left_on(points: np.ndarray, a: int, b: int, c: int) -> bool:
    return _cross(points[a, 0], points[a, 1], points[b, 0], points[b, 1], points[c, 0], points[c, 1]) >= 0


@numba.njit(cache=True, nogil=True)
def _in_cone(points: np.ndarray, a0: int, a: int, a1: int, b: int) -> bool:
    """Whether b lies strictly inside the corner a0-a-a1 of a counter-clockwise loop (O'Rourke's InCone)."""
    if _left_on(points, a, a1, a0):
        return _left(points, a, b, a0) and _left(points, b, a, a1)
    return not (_left_on(points, a, b, a1) and _left_on(points, b, a, a0))


@numba.njit(cache=True, nogil=True, inline="always")
def _same(points: np.ndarray, a: int, b: int) -> bool:
    return points[a, 0] == points[b, 0] and points[a, 1] == points[b, 1]


@numba.njit(cache=True, nogil=True, inline="always")
def _apart(x0: float, y0: float, x1: float, y1: float, cx: float, cy: float, dx: float, dy: float) -> bool:
    """Whether the segment c-d lies wholly on one side of the box [x0, x1] x [y0, y1] (so it meets nothing in
    it): the cheap test that spares most sides the exact one."""
    return (cx < x0 and dx < x0) or (cx > x1 and dx > x1) or (cy < y0 and dy < y0) or (cy > y1 and dy > y1)


@numba.njit(cache=True, nogil=True)
def _sees(points: np.ndarray, p: int, q: int, ring: np.ndarray, ring_n: int, others: np.ndarray,
          other_start: np.ndarray, other_count: int) -> bool:
    """Whether the segment between points p and q meets no side of ``ring`` (its first ``ring_n`` entries, a
    loop) nor of the loops ``others`` (``other_start``), except sides through p's or q's own position."""
    px, py, qx, qy = points[p, 0], points[p, 1], points[q, 0], points[q, 1]
    x0, x1, y0, y1 = min(px, qx), max(px, qx), min(py, qy), max(py, qy)
    for e in range(ring_n):
        c, d = ring[e], ring[(e + 1) % ring_n]
        if _apart(x0, y0, x1, y1, points[c, 0], points[c, 1], points[d, 0], points[d, 1]):
            continue
        if _same(points, c, p) or _same(points, d, p) or _same(points, c, q) or _same(points, d, q):
            continue
        if _segments_meet(points[p, 0], points[p, 1], points[q, 0], points[q, 1], points[c, 0], points[c, 1],
                          points[d, 0], points[d, 1]):
            return False
    for h in range(other_count):
        first, last = other_start[h], other_start[h + 1]
        for e in range(first, last):
            c, d = others[e], others[first + (e + 1 - first) % (last - first)]
            if _apart(x0, y0, x1, y1, points[c, 0], points[c, 1], points[d, 0], points[d, 1]):
                continue
            if _same(points, c, p) or _same(points, d, p) or _same(points, c, q) or _same(points, d, q):
                continue
            if _segments_meet(points[p, 0], points[p, 1], points[q, 0], points[q, 1], points[c, 0], points[c, 1],
                              points[d, 0], points[d, 1]):
                return False
    return True


@numba.njit(cache=True, nogil=True)
def bridge_holes(points: np.ndarray, order: np.ndarray, labels: np.ndarray, loop_start: np.ndarray, loops: int,
                 ring: np.ndarray, ring_labels: np.ndarray) -> int:
    """One loop of the outer loop and every hole: ``order[loop_start[l]:loop_start[l + 1]]`` are loop l's
    points (indices into ``points``), the outer one first, ``labels`` each side's label. Writes the joined
    loop's points and side labels into ``ring`` / ``ring_labels`` (two entries more per hole); returns its
    length, or -1 when a hole found no bridge."""
    n = loop_start[1]
    for j in range(n):
        ring[j], ring_labels[j] = order[j], labels[j]
    holes = loops - 1
    if holes == 0:
        return n
    # Holes by their leftmost point (u, then v).
    left = np.empty(holes, np.int64)
    key = np.empty(holes, np.int64)
    width = 1
    for j in range(loop_start[loops]):
        width = max(width, points[order[j], 1] + 1)
    for h in range(holes):
        first, last = loop_start[h + 1], loop_start[h + 2]
        best = first
        for j in range(first, last):
            if (points[order[j], 0], points[order[j], 1]) < (points[order[best], 0], points[order[best], 1]):
                best = j
        left[h] = best
        key[h] = points[order[best], 0] * width + points[order[best], 1]
    rank = np.argsort(key, kind="mergesort")
    pending = np.empty(loop_start[loops], np.int64)
    pending_start = np.empty(holes + 1, np.int64)
    for step in range(holes):
        # The holes not yet joined, as loops the bridges must not cross.
        count = 0
        pending_start[0] = 0
        for later in range(step, holes):
            h = rank[later]
            for j in range(loop_start[h + 1], loop_start[h + 2]):
                pending[pending_start[count] + j - loop_start[h + 1]] = order[j]
            pending_start[count + 1] = pending_start[count] + loop_start[h + 2] - loop_start[h + 1]
            count += 1
        h = rank[step]
        first, last = loop_start[h + 1], loop_start[h + 2]
        size = last - first
        best_o, best_h, best_d = -1, -1, np.inf
        for t in range(size):
            hv = first + (left[h] - first + t) % size
            q = order[hv]
            for o in range(n):
                p = ring[o]
                dx, dy = points[p, 0] - points[q, 0], points[p, 1] - points[q, 1]
                dist = float(dx * dx + dy * dy)
                if dist >= best_d or dist == 0.0:
                    continue
                if not _in_cone(points, ring[(o - 1) % n], p, ring[(o + 1) % n], q):
                    continue
                if _sees(points, p, q, ring, n, pending, pending_start, count):
                    best_o, best_h, best_d = o, hv, dist
            if best_o >= 0:
                break
        if best_o < 0:
            return -1
        # ring[..best_o], the hole from best_h round to best_h, back to ring[best_o], then the rest.
        rest = ring[best_o + 1:n].copy()
        rest_labels = ring_labels[best_o + 1:n].copy()
        own = ring_labels[best_o]
        ring_labels[best_o] = BRIDGE
        for t in range(size):
            j = first + (best_h - first + t) % size
            ring[best_o + 1 + t], ring_labels[best_o + 1 + t] = order[j], labels[j]
        ring[best_o + 1 + size], ring_labels[best_o + 1 + size] = order[best_h], BRIDGE
        ring[best_o + 2 + size], ring_labels[best_o + 2 + size] = ring[best_o], own
        ring[best_o + 3 + size:n + size + 2] = rest
        ring_labels[best_o + 3 + size:n + size + 2] = rest_labels
        n += size + 2
    return n


SIDE_BUCKET = 8  # grid cells along the edge of a bucket of the ear clipping's side grid


@numba.njit(cache=True, nogil=True)
def _file_side(c: int, d: int, xs: np.ndarray, ys: np.ndarray, ox: int, oy: int, nbv: int, head: np.ndarray,
               link: np.ndarray, entry: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray, int]:
    """File ring entry c (its side runs to entry d) in every bucket of the side grid its box meets; returns the
    (maybe grown) ``link`` and ``entry`` arrays and the new count of filings."""
    u0, u1 = (min(xs[c], xs[d]) - ox) // SIDE_BUCKET, (max(xs[c], xs[d]) - ox) // SIDE_BUCKET
    v0, v1 = (min(ys[c], ys[d]) - oy) // SIDE_BUCKET, (max(ys[c], ys[d]) - oy) // SIDE_BUCKET
    need = count + (u1 - u0 + 1) * (v1 - v0 + 1)
    if need > link.shape[0]:
        room = max(2 * link.shape[0], need)
        grown_link, grown_entry = np.empty(room, np.int64), np.empty(room, np.int64)
        grown_link[:count], grown_entry[:count] = link[:count], entry[:count]
        link, entry = grown_link, grown_entry
    for u in range(u0, u1 + 1):
        for v in range(v0, v1 + 1):
            bucket = u * nbv + v
            link[count], entry[count] = head[bucket], c
            head[bucket] = count
            count += 1
    return link, entry, count


@numba.njit(cache=True, nogil=True)
def _diagonal(points: np.ndarray, ring: np.ndarray, prev: np.ndarray, nxt: np.ndarray, alive: np.ndarray, a: int,
              b: int, xs: np.ndarray, ys: np.ndarray, ox: int, oy: int, nbv: int, head: np.ndarray, link: np.ndarray,
              entry: np.ndarray, stamp: np.ndarray, query: int) -> bool:
    """Whether ring entries a and b see each other inside the loop (O'Rourke's Diagonal, sides through a's or
    b's position skipped, as Recast does for the bridges' doubled points). ``xs``, ``ys``: each ring entry's
    point. The loop's sides as it is now are found in the buckets of the side grid (``head``, ``link``,
    ``entry``: every live entry is filed where its current side's box lies) that the segment's box meets: a side
    whose box does not meet the segment's cannot meet the segment. ``stamp``/``query``: each side tested once."""
    pa, pb = ring[a], ring[b]
    if not (_in_cone(points, ring[prev[a]], pa, ring[nxt[a]], pb) and
            _in_cone(points, ring[prev[b]], pb, ring[nxt[b]], pa)):
        return False
    ax, ay, bx, by = xs[a], ys[a], xs[b], ys[b]
    x0, x1, y0, y1 = min(ax, bx), max(ax, bx), min(ay, by), max(ay, by)
    for u in range((x0 - ox) // SIDE_BUCKET, (x1 - ox) // SIDE_BUCKET + 1):
        for v in range((y0 - oy) // SIDE_BUCKET, (y1 - oy) // SIDE_BUCKET + 1):
            f = head[u * nbv + v]
            while f >= 0:
                c = entry[f]
                f = link[f]
                if not alive[c] or stamp[c] == query:
                    continue
                stamp[c] = query
                d = nxt[c]
                cx, cy, dx, dy = xs[c], ys[c], xs[d], ys[d]
                if _apart(x0, y0, x1, y1, cx, cy, dx, dy) or (cx == ax and cy == ay) or (dx == ax and dy == ay) \
                        or (cx == bx and cy == by) or (dx == bx and dy == by):
                    continue
                if _segments_meet(ax, ay, bx, by, cx, cy, dx, dy):
                    return False
    return True


NO_EAR = np.iinfo(np.int64).max  # a ring entry that is not an ear (or clipped), in the ear tree


@numba.njit(cache=True, nogil=True, inline="always")
def _span(xs: np.ndarray, ys: np.ndarray, p: int, q: int) -> int:
    """The squared length of the diagonal between ring entries p and q."""
    dx, dy = xs[q] - xs[p], ys[q] - ys[p]
    return dx * dx + dy * dy


@numba.njit(cache=True, nogil=True, inline="always")
def _set_leaf(tree: np.ndarray, size: int, j: int, value: int) -> None:
    """Set entry j of a min-tree (leaves from ``size``) and the minima above it."""
    node = size + j
    tree[node] = value
    node >>= 1
    while node >= 1:
        tree[node] = min(tree[2 * node], tree[2 * node + 1])
        node >>= 1


@numba.njit(cache=True, nogil=True)
def _first_at_most(tree: np.ndarray, size: int, lo: int, value: int) -> int:
    """The first entry j >= lo of a min-tree whose value is at most ``value``, or -1."""
    node = size + lo
    while True:
        if tree[node] <= value:
            while node < size:
                node = 2 * node if tree[2 * node] <= value else 2 * node + 1
            return node - size
        while node & 1:  # a right child: the next subtree to the right starts further up
            node >>= 1
        if node == 0:
            return -1
        node += 1


@numba.njit(cache=True, nogil=True)
def ear_clip(points: np.ndarray, ring: np.ndarray, ring_labels: np.ndarray, n: int, triangles: np.ndarray,
             triangle_labels: np.ndarray) -> int:
    """Triangles of the loop ``ring[:n]`` (counter-clockwise, points' indices): writes ``triangles[t]`` (three
    ring entries' points, counter-clockwise) and ``triangle_labels[t]`` (the label of each side, from corner j
    to j + 1); returns the count (n - 2), or -1 when no ear is left (a loop that is not simple)."""
    prev = np.empty(n, np.int64)
    nxt = np.empty(n, np.int64)
    labels = ring_labels[:n].copy()
    xs = np.empty(n, np.int64)
    ys = np.empty(n, np.int64)
    for j in range(n):
        prev[j], nxt[j] = (j - 1) % n, (j + 1) % n
        xs[j], ys[j] = points[ring[j], 0], points[ring[j], 1]
    # The side grid: buckets of SIDE_BUCKET x SIDE_BUCKET cells, each listing the entries whose side meets it.
    ox, oy = xs.min(), ys.min()
    nbu, nbv = (xs.max() - ox) // SIDE_BUCKET + 1, (ys.max() - oy) // SIDE_BUCKET + 1
    head = np.full(nbu * nbv, -1, np.int64)
    link, entry = np.empty(4 * n, np.int64), np.empty(4 * n, np.int64)
    count = 0
    for j in range(n):
        link, entry, count = _file_side(j, nxt[j], xs, ys, ox, oy, nbv, head, link, entry, count)
    alive = np.ones(n, np.bool_)
    stamp = np.full(n, -1, np.int64)
    query = 0
    # Each ear's diagonal (squared length; NO_EAR where not an ear) in a min-tree over the ring's entries, whose
    # order is the loop's: the ear picked is the shortest, the first on a tie going round from ``start``.
    size = 1
    while size < n:
        size *= 2
    tree = np.full(2 * size, NO_EAR, np.int64)
    for j in range(n):
        if _diagonal(points, ring, prev, nxt, alive, prev[j], nxt[j], xs, ys, ox, oy, nbv, head, link, entry, stamp,
                     query):
            tree[size + j] = _span(xs, ys, prev[j], nxt[j])
        query += 1
    for node in range(size - 1, 0, -1):
        tree[node] = min(tree[2 * node], tree[2 * node + 1])
    count_t, left, start = 0, n, 0
    while left > 3:
        shortest = tree[1]
        if shortest == NO_EAR:
            return -1
        best = _first_at_most(tree, size, start, shortest)
        if best < 0:
            best = _first_at_most(tree, size, 0, shortest)
        a, b = prev[best], nxt[best]
        triangles[count_t, 0], triangles[count_t, 1], triangles[count_t, 2] = ring[a], ring[best], ring[b]
        triangle_labels[count_t, 0], triangle_labels[count_t, 1] = labels[a], labels[best]
        triangle_labels[count_t, 2] = BRIDGE
        count_t += 1
        labels[a] = BRIDGE
        nxt[a], prev[b] = b, a
        alive[best] = False
        _set_leaf(tree, size, best, NO_EAR)
        link, entry, count = _file_side(a, b, xs, ys, ox, oy, nbv, head, link, entry, count)
        left -= 1
        start = a
        for j, query_j in ((a, query), (b, query + 1)):
            ear = _diagonal(points, ring, prev, nxt, alive, prev[j], nxt[j], xs, ys, ox, oy, nbv, head, link, entry,
                            stamp, query_j)
            _set_leaf(tree, size, j, _span(xs, ys, prev[j], nxt[j]) if ear else NO_EAR)
        query += 2
    a = start
    b, c = nxt[a], nxt[nxt[a]]
    triangles[count_t, 0], triangles[count_t, 1], triangles[count_t, 2] = ring[a], ring[b], ring[c]
    triangle_labels[count_t, 0], triangle_labels[count_t, 1] = labels[a], labels[b]
    triangle_labels[count_t, 2] = labels[c]
    return count_t + 1


@numba.njit(cache=True, nogil=True, inline="always")
def _turns_left(points: np.ndarray, a: int, b: int, c: int) -> bool:
    """Whether a-b-c turns left or runs straight on (a corner of a convex polygon; not a fold back)."""
    cross = _cross(points[a, 0], points[a, 1], points[b, 0], points[b, 1], points[c, 0], points[c, 1])
    if cross != 0:
        return cross > 0
    return (points[b, 0] - points[a, 0]) * (points[c, 0] - points[b, 0]) + \
        (points[b, 1] - points[a, 1]) * (points[c, 1] - points[b, 1]) > 0


@numba.njit(cache=True, nogil=True)
def _shared_side(poly: np.ndarray, size: np.ndarray, p: int, q: int, a: int, b: int) -> tuple[int, int]:
    """(i, j): side i of polygon p runs a -> b and side j of polygon q runs b -> a, or (-1, -1)."""
    for i in range(size[p]):
        if poly[p, i] == a and poly[p, (i + 1) % size[p]] == b:
            for j in range(size[q]):
                if poly[q, j] == b and poly[q, (j + 1) % size[q]] == a:
                    return i, j
    return -1, -1


@numba.njit(cache=True, nogil=True)
def _merge_gain(points: np.ndarray, poly: np.ndarray, size: np.ndarray, pairs: np.ndarray, e: int, max_corners: int
                ) -> int:
    """The squared length of inner side e when merging its two polygons across it keeps a convex polygon of at
    most ``max_corners`` corners, else -1."""
    p, q, a, b = pairs[e, 0], pairs[e, 1], pairs[e, 2], pairs[e, 3]
    if size[p] + size[q] - 2 > max_corners:
        return -1
    i, j2 = _shared_side(poly, size, p, q, a, b)
    if i < 0:
        return -1
    np_, nq = size[p], size[q]
    if not _turns_left(points, poly[p, (i - 1) % np_], a, poly[q, (j2 + 2) % nq]):
        return -1
    if not _turns_left(points, poly[q, (j2 - 1) % nq], b, poly[p, (i + 2) % np_]):
        return -1
    dx, dy = points[b, 0] - points[a, 0], points[b, 1] - points[a, 1]
    return dx * dx + dy * dy


@numba.njit(cache=True, nogil=True)
def _heap_push(heap: np.ndarray, n: int, key: int) -> tuple[np.ndarray, int]:
    """Push key onto the max-heap ``heap[:n]`` (grown by doubling when full); returns (heap, n + 1)."""
    if n == len(heap):
        grown = np.empty(2 * len(heap) + 1, np.int64)
        grown[:n] = heap[:n]
        heap = grown
    i = n
    while i > 0:
        up = (i - 1) // 2
        if heap[up] >= key:
            break
        heap[i] = heap[up]
        i = up
    heap[i] = key
    return heap, n + 1


@numba.njit(cache=True, nogil=True)
def _heap_pop(heap: np.ndarray, n: int) -> tuple[int, int]:
    """Take the largest key off the max-heap ``heap[:n]``; returns (key, n - 1)."""
    top = heap[0]
    n -= 1
    last = heap[n]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and heap[c + 1] > heap[c]:
            c += 1
        if heap[c] <= last:
            break
        heap[i] = heap[c]
        i = c
    if n > 0:
        heap[i] = last
    return top, n


@numba.njit(cache=True, nogil=True)
def merge_convex(points: np.ndarray, triangles: np.ndarray, triangle_labels: np.ndarray, count: int, max_corners: int,
                 poly: np.ndarray, poly_labels: np.ndarray, size: np.ndarray, pairs: np.ndarray) -> int:
    """Merge the ``count`` triangles into convex polygons of at most ``max_corners`` corners (see the module's
    docstring). Points are identified by their index (give one index per position). Writes ``poly[p, :size[p]]``
    (points, counter-clockwise) and ``poly_labels``; the polygons that are left are those with ``size > 0``.
    Writes ``pairs[e] = (p, q, a, b)`` for every side a -> b of polygon p that polygon q has as b -> a
    (an inner side, a portal); returns the count of those."""
    for t in range(count):
        size[t] = 3
        for c in range(3):
            poly[t, c], poly_labels[t, c] = triangles[t, c], triangle_labels[t, c]
    # Inner sides: each met twice, once each way; sorted by their points so the two meet.
    inner = 0
    keys = np.empty(3 * count, np.int64)
    owners = np.empty(3 * count, np.int64)
    span = 1
    for t in range(count):
        for c in range(3):
            span = max(span, triangles[t, c] + 1)
    for t in range(count):
        for c in range(3):
            if triangle_labels[t, c] == BRIDGE:
                a, b = triangles[t, c], triangles[t, (c + 1) % 3]
                keys[inner] = min(a, b) * span + max(a, b)
                owners[inner] = t
                inner += 1
    order = np.argsort(keys[:inner], kind="mergesort")
    found = 0
    j = 0
    while j + 1 < inner:
        if keys[order[j]] == keys[order[j + 1]]:
            p, q = owners[order[j]], owners[order[j + 1]]
            key = keys[order[j]]
            a, b = key // span, key % span
            if _shared_side(poly, size, p, q, a, b)[0] < 0:
                a, b = b, a
            pairs[found, 0], pairs[found, 1], pairs[found, 2], pairs[found, 3] = p, q, a, b
            found += 1
            j += 2
        else:
            j += 1
    alive = np.ones(found, np.bool_)
    if max_corners > 3 and found > 0:
        # Each polygon's inner sides as a linked list of ends (end 2e + k is side e's end in polygon pairs[e, k]);
        # a merge joins the two lists.
        head = np.full(count, -1, np.int64)
        tail = np.full(count, -1, np.int64)
        link = np.full(2 * found, -1, np.int64)
        for e in range(found):
            for k in range(2):
                t, end = pairs[e, k], 2 * e + k
                if head[t] < 0:
                    head[t] = end
                else:
                    link[tail[t]] = end
                tail[t] = end
        # Each inner side's merge length, or -1 where the merge is not allowed (see _merge_gain) or the two
        # polygons share another inner side (merging them would leave a slit); worked out again after a merge
        # only for the sides of the polygon it changed: the others' polygons and shared sides are as they were.
        # The sides that may merge wait in a max-heap keyed by (length, -side): the top is the longest, the first
        # on a tie (as an argmax over the sides picks); a key whose length is no longer its side's is stale.
        gain = np.empty(found, np.int64)
        heap = np.empty(found + 1, np.int64)
        n_heap = 0
        for e in range(found):
            g = _merge_gain(points, poly, size, pairs, e, max_corners)
            if g >= 0:
                p, q = pairs[e, 0], pairs[e, 1]
                end = head[p]
                while end >= 0:
                    f = end // 2
                    if f != e and pairs[f, 0] + pairs[f, 1] - p == q:
                        g = -1
                        break
                    end = link[end]
            gain[e] = g
            if g >= 0:
                heap, n_heap = _heap_push(heap, n_heap, g * found + (found - 1 - e))
        touching = np.empty(found, np.int64)
        merged = np.empty(poly.shape[1], np.int64)  # a merge keeps at most max_corners <= poly.shape[1] corners
        merged_labels = np.empty(poly.shape[1], np.int64)
        while n_heap > 0:
            top, n_heap = _heap_pop(heap, n_heap)
            best = found - 1 - top % found
            if not alive[best] or gain[best] != top // found:
                continue  # stale
            p, q, a, b = pairs[best, 0], pairs[best, 1], pairs[best, 2], pairs[best, 3]
            i, j2 = _shared_side(poly, size, p, q, a, b)
            np_, nq = size[p], size[q]
            m = 0
            for t in range(np_ - 1):
                merged[m], merged_labels[m] = poly[p, (i + 1 + t) % np_], poly_labels[p, (i + 1 + t) % np_]
                m += 1
            for t in range(nq - 1):
                merged[m], merged_labels[m] = poly[q, (j2 + 1 + t) % nq], poly_labels[q, (j2 + 1 + t) % nq]
                m += 1
            for t in range(m):
                poly[p, t], poly_labels[p, t] = merged[t], merged_labels[t]
            size[p], size[q] = m, 0
            alive[best] = False
            gain[best] = -1
            # q's sides join p's (renamed first); the sides now inside the merged polygon leave the list.
            end = head[q]
            while end >= 0:
                pairs[end // 2, end % 2] = p
                end = link[end]
            link[tail[p]] = head[q]
            tail[p] = tail[q]
            head[q] = tail[q] = -1
            near = 0  # the live inner sides of the merged polygon
            end, last = head[p], -1
            while end >= 0:
                e = end // 2
                if alive[e] and pairs[e, 0] == pairs[e, 1]:
                    alive[e] = False  # a second side the two shared: now inside the merged polygon
                    gain[e] = -1
                if alive[e]:
                    touching[near] = e
                    near += 1
                    if last < 0:
                        head[p] = end
                    else:
                        link[last] = end
                    last = end
                end = link[end]
            if last < 0:
                head[p] = tail[p] = -1
            else:
                link[last] = -1
                tail[p] = last
            for t in range(near):
                e = touching[t]
                g = _merge_gain(points, poly, size, pairs, e, max_corners)
                other = pairs[e, 0] + pairs[e, 1] - p
                for u in range(near):
                    if g >= 0 and u != t and pairs[touching[u], 0] + pairs[touching[u], 1] - p == other:
                        g = -1
                if g != gain[e]:
                    gain[e] = g
                    if g >= 0:
                        heap, n_heap = _heap_push(heap, n_heap, g * found + (found - 1 - e))
    kept = 0
    for e in range(found):
        if alive[e]:
            pairs[kept, :] = pairs[e, :]
            kept += 1
    return kept
