"""Ear clipping and convex merging (``_kernels/triangles.py``) against plain-Python references of the same rules.

The kernels find the next ear in a min-tree, the sides near a diagonal in a grid of buckets, and keep each inner
side's merge length between merges; the references scan the whole loop and every side each time, as the rules
read (Recast's ``triangulate`` and ``mergePolyVerts``). They must pick the same ears and the same merges, in
the same order: the same triangles and polygons, entry for entry, on random outlines with holes, small and large
(large ones span several buckets and many ties between equally short diagonals)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.navigation._kernels.outlines import BRIDGE, claims, simplify, trace
from voxelworld.navigation._kernels.polygons import tile_rectangles
from voxelworld.navigation._kernels.regions import tile_regions
from voxelworld.navigation._kernels.triangles import _heap_pop, _heap_push, bridge_holes, ear_clip, merge_convex
from voxelworld.navigation.sampling import level_links


# ------------------------------------------------------------------------------------------- plain predicates
def cross(a, b, c) -> int:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def segments_meet(a, b, c, d) -> bool:
    """Whether the closed segments a-b and c-d share a point (whole coordinates)."""
    d1, d2, d3, d4 = cross(c, d, a), cross(c, d, b), cross(a, b, c), cross(a, b, d)
    if d1 * d2 < 0 and d3 * d4 < 0:
        return True
    for p, q, r, value in ((c, d, a, d1), (c, d, b, d2), (a, b, c, d3), (a, b, d, d4)):
        if value == 0 and min(p[0], q[0]) <= r[0] <= max(p[0], q[0]) and min(p[1], q[1]) <= r[1] <= max(p[1], q[1]):
            return True
    return False


def in_cone(a0, a, a1, b) -> bool:
    if cross(a, a1, a0) >= 0:
        return cross(a, b, a0) > 0 and cross(b, a, a1) > 0
    return not (cross(a, b, a1) >= 0 and cross(b, a, a0) >= 0)


# ------------------------------------------------------------------------------------------------ references
def ear_clip_reference(points, ring, ring_labels, n):
    """Triangles and their side labels, or None: every ear judged against every side of the loop as it is, the
    shortest diagonal first, the first on a tie going round from the last clip."""
    at = [tuple(int(v) for v in points[ring[j]]) for j in range(n)]
    prev, nxt = [(j - 1) % n for j in range(n)], [(j + 1) % n for j in range(n)]
    labels = [int(v) for v in ring_labels[:n]]

    def diagonal(a, b):
        if not (in_cone(at[prev[a]], at[a], at[nxt[a]], at[b]) and in_cone(at[prev[b]], at[b], at[nxt[b]], at[a])):
            return False
        c = a
        while True:
            d = nxt[c]
            ends = (at[c], at[d])
            if at[a] not in ends and at[b] not in ends and segments_meet(at[a], at[b], at[c], at[d]):
                return False
            c = d
            if c == a:
                return True

    ear = [diagonal(prev[j], nxt[j]) for j in range(n)]
    triangles, triangle_labels = [], []
    left, start = n, 0
    while left > 3:
        best, best_d, j = -1, None, start
        for _ in range(left):
            if ear[j]:
                p, q = at[prev[j]], at[nxt[j]]
                length = (q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2
                if best_d is None or length < best_d:
                    best, best_d = j, length
            j = nxt[j]
        if best < 0:
            return None
        a, b = prev[best], nxt[best]
        triangles.append((ring[a], ring[best], ring[b]))
        triangle_labels.append((labels[a], labels[best], BRIDGE))
        labels[a] = BRIDGE
        nxt[a], prev[b] = b, a
        left -= 1
        start = a
        ear[a] = diagonal(prev[a], b)
        ear[b] = diagonal(a, nxt[b])
    a = start
    b, c = nxt[a], nxt[nxt[a]]
    triangles.append((ring[a], ring[b], ring[c]))
    triangle_labels.append((labels[a], labels[b], labels[c]))
    return np.array(triangles, np.int64), np.array(triangle_labels, np.int64)


def merge_reference(points, triangles, triangle_labels, max_corners):
    """Polygons (point lists with their sides' labels, None where merged away) and inner sides (p, q, a, b):
    every inner side judged again before each merge, the longest allowed first (the first on a tie)."""
    at = [tuple(int(v) for v in p) for p in points]
    poly = [[int(v) for v in t] for t in triangles]
    labels = [[int(v) for v in t] for t in triangle_labels]
    inner = {}
    for t, corners in enumerate(poly):
        for c in range(3):
            if labels[t][c] == BRIDGE:
                a, b = corners[c], corners[(c + 1) % 3]
                inner.setdefault((min(a, b), max(a, b)), []).append(t)
    pairs = []
    for (a, b), owners in sorted(inner.items()):
        if len(owners) == 2:
            p, q = owners
            if shared_side(poly, p, q, a, b)[0] < 0:
                a, b = b, a
            pairs.append([p, q, a, b])
    alive = [True] * len(pairs)

    def turns_left(a, b, c):
        value = cross(at[a], at[b], at[c])
        if value != 0:
            return value > 0
        return (at[b][0] - at[a][0]) * (at[c][0] - at[b][0]) + (at[b][1] - at[a][1]) * (at[c][1] - at[b][1]) > 0

    def shared_twice(e):
        p, q = pairs[e][:2]
        return any(f != e and alive[f] and {pairs[f][0], pairs[f][1]} == {p, q} for f in range(len(pairs)))

    while max_corners > 3:
        best, best_len = -1, -1
        for e, (p, q, a, b) in enumerate(pairs):
            if not alive[e] or len(poly[p]) + len(poly[q]) - 2 > max_corners:
                continue
            i, j = shared_side(poly, p, q, a, b)
            if i < 0:
                continue
            np_, nq = len(poly[p]), len(poly[q])
            if not (turns_left(poly[p][(i - 1) % np_], a, poly[q][(j + 2) % nq])
                    and turns_left(poly[q][(j - 1) % nq], b, poly[p][(i + 2) % np_])):
                continue
            length = (at[b][0] - at[a][0]) ** 2 + (at[b][1] - at[a][1]) ** 2
            if length > best_len and not shared_twice(e):
                best, best_len = e, length
        if best < 0:
            break
        p, q, a, b = pairs[best]
        i, j = shared_side(poly, p, q, a, b)
        np_, nq = len(poly[p]), len(poly[q])
        merged = [poly[p][(i + 1 + t) % np_] for t in range(np_ - 1)] + \
            [poly[q][(j + 1 + t) % nq] for t in range(nq - 1)]
        merged_labels = [labels[p][(i + 1 + t) % np_] for t in range(np_ - 1)] + \
            [labels[q][(j + 1 + t) % nq] for t in range(nq - 1)]
        poly[p], labels[p], poly[q], labels[q] = merged, merged_labels, [], []
        alive[best] = False
        for e, pair in enumerate(pairs):
            pair[0], pair[1] = (p if pair[0] == q else pair[0]), (p if pair[1] == q else pair[1])
            if alive[e] and pair[0] == pair[1]:
                alive[e] = False
    return poly, labels, [pair for e, pair in enumerate(pairs) if alive[e]]


def shared_side(poly, p, q, a, b):
    for i in range(len(poly[p])):
        if poly[p][i] == a and poly[p][(i + 1) % len(poly[p])] == b:
            for j in range(len(poly[q])):
                if poly[q][j] == b and poly[q][(j + 1) % len(poly[q])] == a:
                    return i, j
    return -1, -1


# ----------------------------------------------------------------------------------------------- outlines
def outline_ring(seed: int, shape: tuple[int, int], fill: float, error: float):
    """The bridged outline (points, ring, labels, n) of the largest region of a random floor with holes,
    simplified within ``error`` cells (diagonal sides), as tile_polygons makes it; None if it cannot be."""
    rng = np.random.default_rng(seed)
    height = np.where(rng.random(shape) < fill, 0.0, np.nan)[..., None]
    links = level_links(height, 0.3)
    nx, nz = shape
    rects = np.empty((nx * nz, 5), np.int64)
    rects = rects[:tile_rectangles(height, links, 0, 0, nx, nz, rects)]
    region = np.empty(len(rects), np.int64)
    count = tile_regions(links, rects, 1, 0, 0, nx, nz, region)
    label = np.full((nx, nz, 1), -1, np.int64)
    for r, g in zip(rects, region):
        label[r[1]:r[3], r[2]:r[4], 0] = g
    g = int(np.bincount(label[label >= 0]).argmax())
    cells = np.argwhere(label[:, :, 0] == g).astype(np.int64)
    room = 4 * len(cells) + 4
    points, sides, loop_start = np.empty((room, 2), np.int64), np.empty(room, np.int64), np.empty(room + 1, np.int64)
    loops = trace(label, links, g, 0, cells, 0, 0, nx, nz, points, sides, loop_start)
    if loops <= 0:
        return None
    keep = np.zeros(room, bool)
    simplify(points, sides, loop_start, loops, error, error, claims(label), np.zeros(count, np.int64), g, keep)
    order = np.flatnonzero(keep[:loop_start[loops]])
    starts = np.searchsorted(order, loop_start[:loops + 1])
    ring = np.empty(len(order) + 2 * loops, np.int64)
    ring_labels = np.empty(len(ring), np.int64)
    n = bridge_holes(points, order, sides[order], starts, loops, ring, ring_labels)
    return None if n < 0 else (points, ring, ring_labels, n)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), shape=st.sampled_from([(12, 10), (30, 26)]), fill=st.sampled_from([0.8, 0.95]),
       error=st.sampled_from([-1.0, 1.0, 2.5]), max_corners=st.sampled_from([3, 4, 6, 12]))
def test_ear_clipping_and_merging_match_the_references(seed, shape, fill, error, max_corners):
    made = outline_ring(seed, shape, fill, error)
    if made is None:
        return
    points, ring, ring_labels, n = made
    triangles, labels = np.empty((n - 2, 3), np.int64), np.empty((n - 2, 3), np.int64)
    got = ear_clip(points, ring, ring_labels, n, triangles, labels)
    expected = ear_clip_reference(points, ring, ring_labels, n)
    if expected is None:
        assert got == -1
        return
    assert got == n - 2
    assert np.array_equal(triangles, expected[0]) and np.array_equal(labels, expected[1])
    poly, poly_labels = np.empty((n - 2, max_corners), np.int64), np.empty((n - 2, max_corners), np.int64)
    size, pairs = np.empty(n - 2, np.int64), np.empty((3 * n, 4), np.int64)
    inner = merge_convex(points, triangles, labels, n - 2, max_corners, poly, poly_labels, size, pairs)
    ref_poly, ref_labels, ref_pairs = merge_reference(points, triangles, labels, max_corners)
    assert size.tolist() == [len(p) for p in ref_poly]
    assert [poly[q, :size[q]].tolist() for q in range(n - 2)] == ref_poly
    assert [poly_labels[q, :size[q]].tolist() for q in range(n - 2)] == ref_labels
    assert pairs[:inner].tolist() == ref_pairs


def test_a_large_outline_uses_several_buckets_and_ties():
    """A 64 x 64 floor with scattered holes: a loop of hundreds of points over many buckets of the side grid, with
    many ears of equal diagonals (the tie-break going round from the last clip decides)."""
    made = outline_ring(5, (64, 64), 0.97, 1.0)
    points, ring, ring_labels, n = made
    assert n > 200
    triangles, labels = np.empty((n - 2, 3), np.int64), np.empty((n - 2, 3), np.int64)
    assert ear_clip(points, ring, ring_labels, n, triangles, labels) == n - 2
    expected = ear_clip_reference(points, ring, ring_labels, n)
    assert np.array_equal(triangles, expected[0]) and np.array_equal(labels, expected[1])



@settings(max_examples=30, deadline=None)
@given(keys=st.lists(st.integers(0, 50), max_size=40), pops=st.lists(st.booleans(), max_size=60))
def test_heap_gives_the_largest_key_as_sorting_does(keys, pops):
    """The merge's max-heap (grown from one slot) against a sorted list: pushes and pops interleaved."""
    heap, n, held = np.empty(1, np.int64), 0, []
    for key, pop in zip(keys, pops + [False] * len(keys)):
        heap, n = _heap_push(heap, n, key)
        held.append(key)
        if pop:
            top, n = _heap_pop(heap, n)
            assert top == max(held)
            held.remove(top)
    while n:
        top, n = _heap_pop(heap, n)
        assert top == max(held)
        held.remove(top)
    assert not held


@pytest.mark.parametrize("max_corners", [4, 6, 12])
def test_merging_a_large_outline_matches_the_reference(max_corners):
    """Hundreds of triangles: many merges, stale heap keys and a heap grown past its first size."""
    points, ring, ring_labels, n = outline_ring(5, (64, 64), 0.97, 1.0)
    triangles, labels = np.empty((n - 2, 3), np.int64), np.empty((n - 2, 3), np.int64)
    assert ear_clip(points, ring, ring_labels, n, triangles, labels) == n - 2
    poly, poly_labels = np.empty((n - 2, max_corners), np.int64), np.empty((n - 2, max_corners), np.int64)
    size, pairs = np.empty(n - 2, np.int64), np.empty((3 * n, 4), np.int64)
    inner = merge_convex(points, triangles, labels, n - 2, max_corners, poly, poly_labels, size, pairs)
    ref_poly, ref_labels, ref_pairs = merge_reference(points, triangles, labels, max_corners)
    assert (size > 0).sum() < 2 * (n - 2) // 3  # merged a good deal
    assert [poly[q, :size[q]].tolist() for q in range(n - 2)] == ref_poly
    assert [poly_labels[q, :size[q]].tolist() for q in range(n - 2)] == ref_labels
    assert pairs[:inner].tolist() == ref_pairs

# ------------------------------------------------------------------------------------------- one call a region
def outline_polygons_reference(label, links, g, cells, tile, claim, region_level, errors, max_corners):
    """The steps called one by one from Python (what tile_polygons did before the one-call kernel)."""
    from voxelworld.navigation._kernels.outlines import loops_valid

    room = 4 * len(cells) + 4
    points, labels, loop_start = np.empty((room, 2), np.int64), np.empty(room, np.int64), np.empty(room + 1, np.int64)
    loops = trace(label, links, g, region_level[g], cells, *tile, points, labels, loop_start)
    if loops <= 0:
        return None
    keep = np.zeros(room, np.bool_)
    for wall_error, shared_error in errors:
        simplify(points, labels, loop_start, loops, wall_error, shared_error, claim, region_level, g, keep)
        order = np.flatnonzero(keep[:loop_start[loops]])
        starts = np.searchsorted(order, loop_start[:loops + 1])
        if loops_valid(points, starts, loops, order):
            break
    else:
        return None
    ring = np.empty(len(order) + 2 * loops, np.int64)
    ring_labels = np.empty(len(ring), np.int64)
    n = bridge_holes(points, order, labels[order], starts, loops, ring, ring_labels)
    if n < 0:
        return None
    triangles, triangle_labels = np.empty((n - 2, 3), np.int64), np.empty((n - 2, 3), np.int64)
    if ear_clip(points, ring, ring_labels, n, triangles, triangle_labels) != n - 2:
        return None
    poly = np.empty((n - 2, max(max_corners, 3)), np.int64)
    poly_labels, size, pairs = np.empty_like(poly), np.empty(n - 2, np.int64), np.empty((3 * (n - 2), 4), np.int64)
    inner = merge_convex(points, triangles, triangle_labels, n - 2, max_corners, poly, poly_labels, size, pairs)
    alive = np.flatnonzero(size > 0)
    renumber = np.full(n - 2, -1)
    renumber[alive] = np.arange(len(alive))
    pairs = pairs[:inner].copy()
    pairs[:, :2] = renumber[pairs[:, :2]]
    return points, poly[alive], poly_labels[alive], size[alive], pairs


def region_pieces_reference(points, poly, labels, size, pairs, g, s, height, label, i_lo, k_lo, keep, first):
    """What tile_polygons kept of a region's polygons, in numpy steps (before region_pieces)."""
    from voxelworld.navigation._kernels.detail import region_details
    from voxelworld.navigation._kernels.outlines import CLIFF
    from voxelworld.navigation._kernels.polygons import held_sides

    p = len(size)
    held = np.arange(poly.shape[1]) < size[:, None]
    start = np.concatenate([[0], np.cumsum(size)]).astype(np.int64)
    ccw = points[poly[held]]
    owner = np.repeat(np.arange(p), size)
    at = ccw[start[owner] + start[owner + 1] - 1 - np.arange(len(ccw))] + (i_lo, k_lo)
    box, raster, corner_heights = region_details(height, label, g, s, i_lo, k_lo, np.ascontiguousarray(at), start)
    out = np.empty((int(size.sum()) + 4 * len(points), 4), np.int64)
    sides = out[:held_sides(points, poly, labels, size, keep, first, i_lo, k_lo, out)]
    q, j = np.nonzero(held & (labels >= 0) & (labels < CLIFF))
    across = labels[q, j]
    shared = np.column_stack([np.minimum(across, g), np.maximum(across, g), first + q, points[poly[q, j]],
                              points[poly[q, (j + 1) % size[q]]]]).astype(np.int64)
    return (at, start, box, raster, corner_heights, sides, shared, pairs[:, :2] + first,
            points[pairs[:, 2:4]] + (i_lo, k_lo))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), levels=st.sampled_from([1, 2]), errors=st.sampled_from(
    [((1.0, 1.0),), ((1.0, -1.0), (-1.0, -1.0)), ((0.0, 0.0),), ((30.0, 30.0), (-1.0, -1.0))]),
    max_corners=st.sampled_from([3, 6]))
def test_one_call_cuts_every_region_as_the_steps_do(seed, levels, errors, max_corners):
    from voxelworld.navigation._kernels.cutting import outline_polygons, region_pieces

    rng = np.random.default_rng(seed)
    nx, nz = 20, 17
    height = np.where(rng.random((nx, nz, levels)) < 0.8, rng.choice([0.0, 0.2, 1.5], (nx, nz, levels)), np.nan)
    height = np.sort(height + np.arange(levels) * 3.0, -1)
    links = level_links(height, 0.3)
    tile = (2, 1, nx, nz)
    rects = np.empty((nx * nz * levels, 5), np.int64)
    rects = rects[:tile_rectangles(height, links, *tile, rects)]
    region = np.empty(len(rects), np.int64)
    count = tile_regions(links, rects, levels, *tile, region)
    label = np.full((nx - 2, nz - 1, levels), -1, np.int64)
    for r, g in zip(rects, region):
        label[r[1] - 2:r[3] - 2, r[2] - 1:r[4] - 1, r[0]] = g
    region_level = rects[np.unique(region, return_index=True)[1], 0].astype(np.int64)
    claim = claims(label)
    for g in range(count):
        cells = np.argwhere(label[:, :, region_level[g]] == g).astype(np.int64)
        expected = outline_polygons_reference(label, links, g, cells, tile, claim, region_level, errors, max_corners)
        ok, *got = outline_polygons(label, links, g, cells, *tile, claim, region_level,
                                    np.array(errors, np.float64), max_corners, np.zeros((0, 0), bool),
                                    np.zeros((0, 0), bool))
        assert ok == (expected is not None)
        if ok:
            poly, size = got[1], got[3]
            held = np.arange(poly.shape[1]) < size[:, None]  # entries past a polygon's size are scratch
            assert np.array_equal(size, expected[3]) and np.array_equal(got[4], expected[4])
            assert np.array_equal(poly[held], expected[1][held]) and np.array_equal(got[2][held], expected[2][held])
            used = np.unique(np.concatenate([poly[np.arange(poly.shape[1]) < size[:, None]], got[4][:, 2:].ravel()]))
            assert np.array_equal(got[0][used], expected[0][used])  # the points the polygons use (the rest: scratch)
            keep = np.array([True, errors[0][1] < 0])
            pieces = region_pieces(*got, g, region_level[g], height, label, 2, 1, keep, 5, True)
            for a, b in zip(pieces, region_pieces_reference(*got, g, region_level[g], height, label, 2, 1, keep, 5)):
                assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), levels=st.sampled_from([1, 2, 3]))
def test_region_cells_groups_the_cells_as_a_stable_sort_does(seed, levels):
    """Each region's cells and level from one counting sort, against np.nonzero sorted (stably) by region and
    each region's first rectangle's level."""
    from voxelworld.navigation._kernels.regions import paint_regions, region_cells

    rng = np.random.default_rng(seed)
    nx, nz = 19, 16
    height = np.where(rng.random((nx, nz, levels)) < 0.7, rng.choice([0.0, 0.2, 1.5], (nx, nz, levels)), np.nan)
    height = np.sort(height + np.arange(levels) * 3.0, -1)
    links = level_links(height, 0.3)
    tile = (1, 2, nx, nz)
    rects = np.empty((nx * nz * levels, 5), np.int64)
    rects = rects[:tile_rectangles(height, links, *tile, rects)]
    region = np.empty(len(rects), np.int64)
    count = tile_regions(links, rects, levels, *tile, region)
    label = np.full((nx - 1, nz - 2, levels), -1, np.int64)
    paint_regions(rects, region, 1, 2, label)
    a, b, s = np.nonzero(label >= 0)
    owner = label[a, b, s]
    order = np.argsort(owner, kind="stable")
    expected_bounds = np.searchsorted(owner[order], np.arange(count + 1))
    expected = np.column_stack([a, b])[order]
    cells = np.full((label.size, 2), -7, np.int64)
    bounds, region_level = np.empty(count + 1, np.int64), np.empty(count, np.int64)
    assert region_cells(label, rects, region, count, cells, bounds, region_level) == len(expected)
    assert bounds.tolist() == expected_bounds.tolist()
    assert cells[:len(expected)].tolist() == expected.tolist()
    assert region_level.tolist() == rects[np.unique(region, return_index=True)[1], 0].tolist()


def reference_shared_portals(region_a, region_b, polygon, a, b):
    """The portals of the simplified sides two regions of a tile share: such a side is held by one polygon of
    each region (``region_a < region_b``), with the same two points ``a``, ``b`` in either order (regions of
    other levels may hold sides at the same points: a bridge over a floor). Returns the pairs of polygons (the
    one met first, the other) and each portal's ends (as the second polygon holds them)."""
    lo = np.where(((a[:, 0] > b[:, 0]) | ((a[:, 0] == b[:, 0]) & (a[:, 1] > b[:, 1])))[:, None], b, a)
    hi = a + b - lo
    keys = np.column_stack([region_a, region_b, lo, hi])
    order = np.lexsort((np.arange(len(keys)),) + tuple(keys[:, c] for c in range(5, -1, -1)))
    keys = keys[order]
    same = np.all(keys[1:] == keys[:-1], axis=1)  # each key is held twice (once from each region)
    first, second = order[:-1][same], order[1:][same]
    return np.column_stack([polygon[first], polygon[second]]), np.stack([a[second], b[second]], 1)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32 - 1))
def test_shared_portals_match_the_numpy_steps(seed):
    from voxelworld.navigation._kernels.cutting import shared_portals

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 40))
    rows = np.column_stack([rng.integers(0, 3, n), rng.integers(3, 6, n), rng.integers(0, 50, n),
                            rng.integers(0, 5, (n, 4))]).astype(np.int64)
    twins = rows[: n // 2].copy()  # each held again from the other region, its points the other way round
    twins[:, 2] = rng.integers(50, 100, len(twins))
    twins[:, 3:5], twins[:, 5:7] = rows[: n // 2, 5:7], rows[: n // 2, 3:5]
    rows = np.concatenate([rows, twins])[rng.permutation(n + len(twins))]
    pairs, ends = shared_portals(rows)
    want_pairs, want_ends = reference_shared_portals(rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3:5], rows[:, 5:7])
    assert np.array_equal(pairs, want_pairs) and np.array_equal(ends, want_ends.reshape(-1, 2, 2))
    assert len(rows) < 2 or len(pairs) >= len(twins) // 2
