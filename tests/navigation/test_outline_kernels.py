"""The outline kernels (regions, tracing, simplification, bridging, ear clipping, convex merging, details)
against plain-Python references and shapely on small random tiles."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.navigation._kernels.detail import fill_raster, raster_height
from voxelworld.navigation._kernels.outlines import CLIFF, OUT, WALL, _blocked, claims, loops_valid, simplify, trace
from voxelworld.navigation._kernels.polygons import tile_rectangles
from voxelworld.navigation._kernels.regions import tile_regions
from voxelworld.navigation._kernels.triangles import bridge_holes, ear_clip, merge_convex
from voxelworld.navigation.polygons import WalkableLayers, tile_polygons
from voxelworld.navigation.sampling import level_links

STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def random_layers(seed: int, nx: int = 10, nz: int = 9, fill: float = 0.7) -> np.ndarray:
    """Two levels: ground with holes and steps (some too high to step over), a table top over part of it."""
    rng = np.random.default_rng(seed)
    ground = np.where(rng.random((nx, nz)) < fill, rng.choice([0.0, 0.2, 1.5], (nx, nz), p=[0.7, 0.2, 0.1]), np.nan)
    table = np.where(rng.random((nx, nz)) < 0.3, 3.0, np.nan)
    return np.sort(np.stack([ground, table], -1), -1)


def regions_of(height, links, tile):
    i_lo, k_lo, i_hi, k_hi = tile
    rects = np.empty(((i_hi - i_lo) * (k_hi - k_lo) * height.shape[2], 5), np.int64)
    rects = rects[:tile_rectangles(height, links, *tile, rects)]
    region = np.empty(len(rects), np.int64)
    count = tile_regions(links, rects, height.shape[2], *tile, region)
    label = np.full((i_hi - i_lo, k_hi - k_lo, height.shape[2]), -1, np.int64)
    for r, g in zip(rects, region):
        label[r[1] - i_lo:r[3] - i_lo, r[2] - k_lo:r[4] - k_lo, r[0]] = g
    return label, count


# ------------------------------------------------------------------------------------------------ regions
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), tile=st.sampled_from([(0, 0, 10, 9), (2, 1, 8, 9), (0, 3, 5, 6)]))
def test_regions_are_connected_linked_and_without_pinches(seed, tile):
    height = random_layers(seed)
    links = level_links(height, 0.3)
    label, count = regions_of(height, links, tile)
    i_lo, k_lo, i_hi, k_hi = tile
    inside = ~np.isnan(height[i_lo:i_hi, k_lo:k_hi])
    assert np.array_equal(label >= 0, inside)  # every sample of the tile in one region
    w, d, levels = label.shape
    for g in range(count):
        cells = {(a, b, s) for a, b, s in zip(*np.nonzero(label == g))}
        assert len({s for _, _, s in cells}) == 1
        # 4-connected, and every pair of neighbours inside it links both ways.
        start = next(iter(cells))
        seen, stack = {start}, [start]
        while stack:
            a, b, s = stack.pop()
            for n, (da, db) in enumerate(STEPS):
                other = (a + da, b + db, s)
                if other in cells:
                    assert links[n, a + i_lo, b + k_lo, s] == s and links[n ^ 1, a + da + i_lo, b + db + k_lo, s] == s
                    if other not in seen:
                        seen.add(other)
                        stack.append(other)
        assert seen == cells
        # No 2 x 2 block holds exactly two diagonal cells of the region.
        s = start[2]
        mine = np.pad(label[:, :, s] == g, 1)
        blocks = mine[:-1, :-1].astype(int) + mine[1:, 1:] * 2 + mine[:-1, 1:] * 4 + mine[1:, :-1] * 8
        assert not np.isin(blocks, [3, 12]).any()


def test_two_cells_touching_at_a_corner_are_two_regions():
    height = np.full((2, 2, 1), np.nan)
    height[0, 0, 0] = height[1, 1, 0] = 0.0
    label, count = regions_of(height, level_links(height, 0.3), (0, 0, 2, 2))
    assert count == 2 and label[0, 0, 0] != label[1, 1, 0]
    height[0, 1, 0] = 0.0  # a third cell joins them: one region
    label, count = regions_of(height, level_links(height, 0.3), (0, 0, 2, 2))
    assert count == 1


# ------------------------------------------------------------------------------------------------ outlines
def label_reference(label, links, i, k, s, d, tile):
    """What lies across side d of sample (i, k, s), as the outlines module documents it."""
    i_lo, k_lo, i_hi, k_hi = tile
    ni, nk = i + STEPS[d][0], k + STEPS[d][1]
    if not (i_lo <= ni < i_hi and k_lo <= nk < k_hi):
        return OUT if links[d, i, k, s] >= 0 else WALL
    across = label[ni - i_lo, nk - k_lo]
    if links[d, i, k, s] >= 0:
        return across[links[d, i, k, s]]
    for t in range(len(across)):
        if across[t] >= 0 and links[d ^ 1, ni, nk, t] == s:
            return across[t]
    here = label[i - i_lo, k - k_lo]
    if across[s] < 0 or links[d ^ 1, ni, nk, s] >= 0 or any(
            here[t] >= 0 and links[d, i, k, t] == s for t in range(len(here))):
        return WALL  # a cliff only where the region across sees one back
    return CLIFF + across[s]


def trace_region(label, links, g, tile):
    i_lo, k_lo, i_hi, k_hi = tile
    s = int(np.nonzero(label == g)[2][0])
    cells = np.argwhere(label[:, :, s] == g).astype(np.int64)
    room = 4 * len(cells) + 4
    points, sides, loop_start = np.empty((room, 2), np.int64), np.empty(room, np.int64), np.empty(room + 1, np.int64)
    loops = trace(label, links, g, s, cells, *tile, points, sides, loop_start)
    return s, cells, points, sides, loop_start, loops


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_traced_outlines_are_the_regions_sides_with_their_labels(seed):
    height = random_layers(seed)
    links = level_links(height, 0.3)
    tile = (1, 0, 9, 8)
    label, count = regions_of(height, links, tile)
    for g in range(count):
        s, cells, points, sides, loop_start, loops = trace_region(label, links, g, tile)
        assert loops >= 1
        got = {}
        for loop_index in range(loops):
            first, last = loop_start[loop_index], loop_start[loop_index + 1]
            for j in range(first, last):
                q = first + (j + 1 - first) % (last - first)
                got[(tuple(points[j]), tuple(points[q]))] = sides[j]
        # Reference: each side of a region cell not shared with the region, directed with the region on the left.
        expected = {}
        mine = {tuple(c) for c in cells}
        for a, b in mine:
            for d, (p, q) in ((3, ((a, b), (a + 1, b))), (0, ((a + 1, b), (a + 1, b + 1))),
                              (2, ((a + 1, b + 1), (a, b + 1))), (1, ((a, b + 1), (a, b)))):
                if (a + STEPS[d][0], b + STEPS[d][1]) not in mine:
                    expected[(p, q)] = label_reference(label, links, a + tile[0], b + tile[1], s, d, tile)
        assert got == expected
        # The first loop is the outer one (counter-clockwise in (i, k)), the others are holes.
        area = [0.5 * sum(int(points[j, 0]) * int(points[loop_start[loop_index] + (j + 1 - loop_start[loop_index]) % (loop_start[loop_index + 1] - loop_start[loop_index]), 1])
                          - int(points[loop_start[loop_index] + (j + 1 - loop_start[loop_index]) % (loop_start[loop_index + 1] - loop_start[loop_index]), 0]) * int(points[j, 1])
                          for j in range(loop_start[loop_index], loop_start[loop_index + 1])) for loop_index in range(loops)]
        assert area[0] > 0 and all(a < 0 for a in area[1:])
        assert sum(area) == len(cells)


def three_levels(seed: int, nx: int = 12, nz: int = 11) -> np.ndarray:
    """Three levels 0.8 m apart over ground of random heights (0, 0.25 or 0.5 m), with holes: with a 0.35 m step,
    a sample may step down to the level below across a side where the sample of its own level is too high."""
    rng = np.random.default_rng(seed)
    height = rng.choice([0.0, 0.25, 0.5], (nx, nz))[..., None] + np.array([0.0, 0.8, 1.6])
    height[rng.random((nx, nz, 3)) < np.array([0.2, 0.5, 0.7])] = np.nan
    return height


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000))
def test_two_regions_see_the_same_label_back_across_every_side(seed):
    """Across each side two regions of a tile share, each sees the other (a portal), or each sees a cliff to the
    other: never one a cliff and the other a region of another level it steps to. (A cliff labelled from one side
    only let that side's simplified outline cut across the other's cells, and polygons of one level overlapped.)"""
    height = three_levels(seed)
    links = level_links(height, 0.35)
    tile = (0, 0, 12, 11)
    label, count = regions_of(height, links, tile)
    seen = {}
    for g in range(count):
        s, cells, points, sides, loop_start, loops = trace_region(label, links, g, tile)
        for loop_index in range(loops):
            first, last = loop_start[loop_index], loop_start[loop_index + 1]
            for j in range(first, last):
                q = first + (j + 1 - first) % (last - first)
                seen[(g, tuple(points[j]), tuple(points[q]))] = int(sides[j])
    cliffs = 0
    for (g, p, q), side in seen.items():
        if side >= CLIFF:
            cliffs += 1
            assert seen[(side - CLIFF, q, p)] == CLIFF + g
        elif side >= 0:
            assert seen[(side, q, p)] == g
    assert cliffs > 0


def blocked_reference(points, first, n, p, q, claim, s, t, g, h) -> bool:
    """Whether the chord from loop point p to q covers a cell the stretch may not cover (see ``_blocked``): the
    area the chord and the raw points from p to q close (shapely's valid form of that ring) meets such a cell's
    square."""
    ring = [tuple(points[first + (p + step) % n]) for step in range((q - p) % n + 1)]
    if len(set(ring)) < 3:
        return False
    closed = shapely.make_valid(shapely.Polygon(ring))
    for a in range(claim.shape[0]):
        for b in range(claim.shape[1]):
            if {claim[a, b, s], claim[a, b, t]} <= {g, h}:
                continue
            if shapely.intersection(closed, shapely.box(a, b, a + 1, b + 1)).area > 1e-12:
                return True
    return False


@settings(max_examples=30, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000))
def test_a_chord_is_blocked_by_the_cells_it_crosses_or_encloses_as_the_reference_says(seed):
    """Every chord between two points of every loop of a small tile's regions, as a wall (h = g): ``_blocked``
    against shapely (a chord along a grid line across a notch crosses no cell but covers the notch's)."""
    height = three_levels(seed, 8, 7)
    links = level_links(height, 0.35)
    tile = (0, 0, 8, 7)
    label, count = regions_of(height, links, tile)
    claim = claims(label)
    rng = np.random.default_rng(seed)
    for g in range(count):
        s, cells, points, sides, loop_start, loops = trace_region(label, links, g, tile)
        xs, at = np.empty(2 * len(points) + 2), np.empty((2, len(points) + 2), np.int64)
        for loop_index in range(loops):
            first, n = loop_start[loop_index], loop_start[loop_index + 1] - loop_start[loop_index]
            for p, q in rng.integers(0, n, (12, 2)):
                if (q - p) % n >= 2:
                    assert _blocked(points, first, n, p, q, claim, s, s, g, g, xs, at) == \
                        blocked_reference(points, first, n, p, q, claim, s, s, g, g)


def test_a_chord_along_a_grid_line_across_a_notch_is_blocked_by_the_cell_in_it():
    """A U of one region's cells around a cell of another: the chord across the U's mouth runs along a grid line
    and crosses no cell, but would cover the other region's cell."""
    height = np.full((3, 2, 1), 0.0)
    height[1, 1, 0] = 0.5  # too high to step to: a region of its own in the U's notch
    links = level_links(height, 0.35)
    label, count = regions_of(height, links, (0, 0, 3, 2))
    g = int(label[0, 0, 0])
    s, cells, points, sides, loop_start, loops = trace_region(label, links, g, (0, 0, 3, 2))
    n = int(loop_start[1])
    at = {tuple(points[j]): j for j in range(n)}
    p, q = at[(3, 2)], at[(0, 2)]  # the mouth, along v = 2: (1, 2) and (2, 2) lie between, around the notch
    claim = claims(label)
    assert _blocked(points, 0, n, p, q, claim, 0, 0, g, g, np.empty(2 * n + 2),
                    np.empty((2, n + 2), np.int64))
    assert blocked_reference(points, 0, n, p, q, claim, 0, 0, g, g)


def segment_distance(p, a, b) -> float:
    p, a, b = (np.asarray(v, float) for v in (p, a, b))
    t = np.clip(np.dot(p - a, b - a) / max(np.dot(b - a, b - a), 1e-300), 0, 1)
    return float(np.linalg.norm(p - (a + t * (b - a))))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), error=st.sampled_from([0.0, 0.8, 1.5, 4.0]))
def test_simplified_outlines_keep_label_changes_stay_within_the_error_and_stay_simple(seed, error):
    height = random_layers(seed, 14, 12, 0.85)
    links = level_links(height, 0.3)
    tile = (0, 0, 14, 12)
    label, count = regions_of(height, links, tile)
    claim = claims(label)
    region_level = np.array([int(np.nonzero(label == g)[2][0]) for g in range(count)], np.int64)
    for g in range(count):
        s, cells, points, sides, loop_start, loops = trace_region(label, links, g, tile)
        keep = np.zeros(len(points), bool)
        simplify(points, sides, loop_start, loops, error, error, claim, region_level, g, keep)
        for loop_index in range(loops):
            first, last = loop_start[loop_index], loop_start[loop_index + 1]
            n = last - first
            kept = [j for j in range(first, last) if keep[j]]
            assert len(kept) >= 3
            for j in range(first, last):
                before = first + (j - 1 - first) % n
                if sides[j] != sides[before]:
                    assert keep[j]  # every label change is kept
                if sides[j] == OUT and sides[before] == OUT and not keep[j]:  # the tile's edge: straight
                    ahead = first + (j + 1 - first) % n
                    assert np.cross(points[j] - points[before], points[ahead] - points[j]) == 0
            # Every raw point lies within the error of the kept chord over it.
            for t, j in enumerate(kept):
                nxt = kept[(t + 1) % len(kept)]
                span = (nxt - j) % n
                for step in range(1, span):
                    raw = points[first + (j - first + step) % n]
                    assert segment_distance(raw, points[j], points[nxt]) <= error + 1e-9
        order = np.flatnonzero(keep[:loop_start[loops]])
        starts = np.searchsorted(order, loop_start[:loops + 1])
        exact = np.zeros(len(points), bool)
        simplify(points, sides, loop_start, loops, -1.0, -1.0, claim, region_level, g, exact)
        order_exact = np.flatnonzero(exact[:loop_start[loops]])
        starts_exact = np.searchsorted(order_exact, loop_start[:loops + 1])
        assert loops_valid(points, starts_exact, loops, order_exact)  # the exact outline is always valid
        rings = [points[order[starts[loop_index]:starts[loop_index + 1]]] for loop_index in range(loops)]
        shape = shapely.Polygon(rings[0], rings[1:])
        wound = all(len(r) >= 3 and shapely.LinearRing(r).is_ccw == (loop_index == 0) for loop_index, r in enumerate(rings))
        lines = [shapely.LinearRing(r) for r in rings if len(r) >= 3]
        apart = all(lines[a].distance(lines[b]) > 0 for a in range(len(lines)) for b in range(a))
        valid = wound and apart and shape.is_valid and all(line.is_simple for line in lines)
        assert loops_valid(points, starts, loops, order) == valid


def test_loops_valid_refuses_crossing_and_touching_loops():
    points = np.array([[0, 0], [4, 0], [4, 4], [0, 4], [1, 1], [1, 3], [3, 3], [3, 1], [4, 2]], np.int64)
    starts = np.array([0, 4, 8])
    assert loops_valid(points, starts, 2, np.array([0, 1, 2, 3, 4, 5, 6, 7]))  # a square around a clockwise hole
    assert not loops_valid(points, starts, 2, np.array([0, 1, 2, 3, 7, 6, 5, 4]))  # the hole wound the wrong way
    assert not loops_valid(points, np.array([0, 4]), 1, np.array([0, 2, 1, 3]))  # a bow tie
    touching = np.array([0, 1, 2, 3, 4, 5, 8, 7])  # the hole's corner on the outer side
    assert not loops_valid(points, starts, 2, touching)


# ------------------------------------------------------------------------------------- polygons of a region
def region_polygons(seed, max_corners):
    """A random region with holes (a floor of cells, some missing), cut as tile_polygons cuts it."""
    rng = np.random.default_rng(seed)
    walk = rng.random((12, 10)) < 0.8
    height = np.where(walk, 0.0, np.nan)[..., None]
    links = level_links(height, 0.3)
    tile = (0, 0, 12, 10)
    label, count = regions_of(height, links, tile)
    g = int(np.bincount(label[label >= 0]).argmax())
    s, cells, points, sides, loop_start, loops = trace_region(label, links, g, tile)
    keep = np.zeros(len(points), bool)
    simplify(points, sides, loop_start, loops, -1.0, -1.0, claims(label), np.zeros(count, np.int64), g, keep)
    order = np.flatnonzero(keep[:loop_start[loops]])
    starts = np.searchsorted(order, loop_start[:loops + 1])
    ring = np.empty(len(order) + 2 * loops, np.int64)
    ring_labels = np.empty(len(ring), np.int64)
    n = bridge_holes(points, order, sides[order], starts, loops, ring, ring_labels)
    outline = shapely.Polygon(points[order[starts[0]:starts[1]]],
                              [points[order[starts[loop_index]:starts[loop_index + 1]]] for loop_index in range(1, loops)])
    return points, ring, ring_labels, n, outline, loops, len(order)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), max_corners=st.sampled_from([3, 4, 6, 12]))
def test_ear_clipping_and_merging_cut_the_outline_into_convex_polygons(seed, max_corners):
    points, ring, ring_labels, n, outline, loops, kept = region_polygons(seed, max_corners)
    assert n == kept + 2 * (loops - 1)  # every hole found its bridge: two points more each
    triangles, labels = np.empty((n - 2, 3), np.int64), np.empty((n - 2, 3), np.int64)
    assert ear_clip(points, ring, ring_labels, n, triangles, labels) == n - 2
    shapes = [shapely.Polygon(points[t]) for t in triangles]
    assert all(shape.area > 0 and shapely.LinearRing(points[t]).is_ccw for shape, t in zip(shapes, triangles))
    assert shapely.union_all(shapes).symmetric_difference(outline).area == pytest.approx(0.0, abs=1e-9)
    assert sum(shape.area for shape in shapes) == pytest.approx(outline.area)
    poly, poly_labels = np.empty((n - 2, max_corners), np.int64), np.empty((n - 2, max_corners), np.int64)
    size, pairs = np.empty(n - 2, np.int64), np.empty((3 * n, 4), np.int64)
    inner = merge_convex(points, triangles, labels, n - 2, max_corners, poly, poly_labels, size, pairs)
    merged = [shapely.Polygon(points[poly[q, :size[q]]]) for q in np.flatnonzero(size)]
    assert all(shape.is_valid and shape.area > 0 for shape in merged)
    assert all(shape.convex_hull.area == pytest.approx(shape.area) for shape in merged)  # convex
    assert all(3 <= size[q] <= max_corners for q in np.flatnonzero(size))
    assert sum(shape.area for shape in merged) == pytest.approx(outline.area)
    assert shapely.union_all(merged).symmetric_difference(outline).area == pytest.approx(0.0, abs=1e-9)
    # Each inner side is a side of both polygons, one way in each.
    for p, q, a, b in pairs[:inner]:
        sides_p = {(poly[p, j], poly[p, (j + 1) % size[p]]) for j in range(size[p])}
        sides_q = {(poly[q, j], poly[q, (j + 1) % size[q]]) for j in range(size[q])}
        assert (a, b) in sides_p and (b, a) in sides_q
    if max_corners > 3:
        assert len(merged) < n - 2 or n == 3


# ------------------------------------------------------------------------------------------------ details
def test_rasters_hold_the_region_and_fill_outwards_ring_by_ring():
    height = np.full((4, 3, 1), np.nan)
    height[1, 1, 0], height[2, 1, 0] = 1.0, 3.0
    label = np.where(np.isnan(height), -1, 0).astype(np.int64)
    out = np.empty(12)
    fill_raster(height, label, 0, 0, 0, 0, 4, 3, 0, 0, out)
    raster = out.reshape(4, 3)
    assert raster[1, 1] == 1.0 and raster[2, 1] == 3.0
    assert raster[0, 1] == 1.0 and raster[3, 1] == 3.0 and raster[1, 0] == 1.0  # the first ring: its neighbour
    assert raster[0, 0] == 1.0  # the second ring: the mean of its filled neighbours (1 and 1)
    # Bilinear between centres, held beyond them.
    assert raster_height(out, 0, 4, 3, 1.5, 1.0) == pytest.approx(2.0)
    assert raster_height(out, 0, 4, 3, -5.0, 1.0) == raster[0, 1]
    assert raster_height(out, 0, 4, 3, 1.25, 0.5) == pytest.approx(
        0.75 * (0.5 * raster[1, 0] + 0.5 * raster[1, 1]) + 0.25 * (0.5 * raster[2, 0] + 0.5 * raster[2, 1]))


def test_a_tiles_polygons_on_a_bumpy_floor_follow_it_and_a_big_one_stays_one_polygon():
    i, k = np.meshgrid(np.arange(40), np.arange(30), indexing="ij")
    bumps = 0.3 * np.sin(i / 4.0) * np.cos(k / 5.0)
    layers = WalkableLayers(bumps[..., None], level_links(bumps[..., None], 0.3), 0.0, 0.0, 0.25)
    tile = tile_polygons(layers, 0, 0, max_corners=6, max_edge_error=0.3)
    assert tile.polygon_count == 1  # one rectangle of ground, however it bumps
    box = tile.detail_box[0]
    raster = tile.detail_heights.reshape(box[2], box[3])
    assert np.array_equal(raster, bumps)  # its detail is the samples
