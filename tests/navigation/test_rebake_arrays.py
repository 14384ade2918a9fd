"""A re-bake's navmesh arrays, joined from each tile's kept share (TilePolygons.arrays) and taken without the input
checks: they pass those checks all the same, and a tile's share is made once and follows the grid it is asked on."""

from __future__ import annotations

import numpy as np

from voxelworld.navigation._kernels.detail import raster_height
from voxelworld.navigation.bake import bake
from voxelworld.navigation.navmesh import ARRAY_NAMES, check_navmesh_arrays
from voxelworld.navigation.polygons import navmesh_arrays

from .test_rebake import BASE, REGION, level, moved


def test_rebaked_arrays_pass_the_checks_and_equal_a_fresh_join():
    mesh = bake(level((10.0, 10.0)), REGION, BASE)
    places = [(10.0, 10.0), (16.5, 14.0), (30.0, 20.0), (5.0, 22.0)]
    for before, after in zip(places[:-1], places[1:]):
        mesh.rebake(moved(before, after), level(after))
        arrays = [getattr(mesh, name) for name in ARRAY_NAMES]
        checked = check_navmesh_arrays(*arrays)  # ParameterError if the unchecked arrays were inconsistent
        for got, want in zip(arrays, checked):
            assert got.dtype == want.dtype and np.array_equal(got, want)
        # The kept shares joined equal a join made from tiles that never kept one.
        areas = mesh.bake_state.areas
        fresh = navmesh_arrays([(a.layers, [type(t)(**{f: getattr(t, f) for f in t.__dataclass_fields__})
                                            for t in a.tiles]) for a in areas])
        for got, want in zip(arrays, fresh):
            assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


def test_a_tiles_share_is_made_once_per_grid():
    mesh = bake(level(), REGION, BASE)
    tile = next(t for t in mesh.bake_state.areas[0].tiles if t.polygon_count)
    first = tile.arrays(0.0, 0.0, 0.5)
    assert tile.arrays(0.0, 0.0, 0.5) is first
    moved_grid = tile.arrays(1.0, 0.0, 0.5)
    assert moved_grid is not first and np.allclose(moved_grid.vertices[:, 0], first.vertices[:, 0] + 1.0)
    assert np.array_equal(moved_grid.inner, first.inner)


def heights_at(boxes, starts, heights, which, points, out):
    """``out[r]``: the height of polygon ``which[r]``'s detail raster at grid point ``points[r]`` (one call of
    raster_height per point: the reference the portal kernels are checked against)."""
    for r, q in enumerate(which):
        out[r] = raster_height(heights, starts[q], boxes[q, 2], boxes[q, 3], points[r, 0] - boxes[q, 0] - 0.5,
                               points[r, 1] - boxes[q, 1] - 0.5)


def reference_portals(layers, tiles):
    """A region's portals in numpy steps, as they were joined before the joined_portals kernel: the grid's portals
    from side_portals, their segments at the mean height of the two details (heights_at), after the tiles' inner
    ones, each pair (lower, higher), ordered by pair (stable)."""
    from voxelworld.navigation.polygons import side_portals

    x0, z0, cell = float(layers.x0), float(layers.z0), float(layers.cell)
    parts = [tile.arrays(x0, z0, cell) for tile in tiles]
    first = np.concatenate([[0], np.cumsum([len(p.level) for p in parts])[:-1]]).astype(np.int64)
    boxes = np.concatenate([p.boxes for p in parts])
    details = np.concatenate([p.details for p in parts])
    sides = np.concatenate([p.sides for p in parts])
    sides[:, 0] += np.repeat(first, [len(p.sides) for p in parts])
    inner = np.concatenate([p.inner for p in parts]) + np.repeat(first, [len(p.inner) for p in parts])[:, None]
    a, b, axis, line, lo, hi = side_portals(sides, layers.links).T
    on_x = axis == 0
    ends = np.stack([np.stack([np.where(on_x, line, lo), np.where(on_x, lo, line)], -1),
                     np.stack([np.where(on_x, line, hi), np.where(on_x, hi, line)], -1)], 1).reshape(-1, 2, 2)
    pairs = np.column_stack([a, b]).astype(np.int64).reshape(-1, 2)
    starts = np.concatenate([[0], np.cumsum(boxes[:, 2] * boxes[:, 3])]).astype(np.int64)
    segments = np.empty(ends.shape[:2] + (3,))
    segments[..., 0] = x0 + ends[..., 0] * cell
    segments[..., 2] = z0 + ends[..., 1] * cell
    for e in range(2):
        heights = []
        for c in range(2):
            out = np.empty(len(pairs))
            heights_at(boxes, starts, details, np.ascontiguousarray(pairs[:, c]), np.ascontiguousarray(ends[:, e]), out)
            heights.append(out)
        segments[:, e, 1] = 0.5 * (heights[0] + heights[1])
    pairs = np.sort(np.concatenate([inner, pairs]), axis=1)
    segments = np.concatenate([p.inner_segments for p in parts] + [segments])
    order = np.argsort(pairs[:, 0] * max(len(boxes), 1) + pairs[:, 1], kind="stable")
    return pairs[order], segments[order]


def test_joined_portals_equal_the_numpy_steps():
    mesh = bake(level((10.0, 10.0)), REGION, BASE)
    for before, after in [((10.0, 10.0), (16.5, 14.0)), ((16.5, 14.0), (5.0, 22.0))]:
        mesh.rebake(moved(before, after), level(after))
        for area in mesh.bake_state.areas:
            pairs, segments = reference_portals(area.layers, list(area.tiles))
            got = navmesh_arrays([(area.layers, list(area.tiles))])
            assert len(pairs) and got[4].tobytes() == pairs.tobytes() and got[5].tobytes() == segments.tobytes()


def test_held_side_steps_equal_side_steps():
    from voxelworld.navigation._kernels.polygons import held_side_steps
    from voxelworld.navigation.polygons import side_steps

    layers = bake(level(), REGION, BASE).bake_state.areas[0].layers
    _, nx, nz, levels = layers.links.shape
    rng = np.random.default_rng(3)
    sides = np.column_stack([rng.integers(0, 5, 400), rng.integers(0, 4, 400), rng.integers(0, nx, 400),
                             rng.integers(0, nz, 400), rng.integers(0, levels, 400)]).astype(np.int64)
    sides[:20, 2] = nx - 1  # the grid's last columns: no step beyond
    sides[20:40, 3] = nz - 1
    out = np.empty(len(sides), np.int64)
    held_side_steps(sides, layers.links, out)
    assert np.array_equal(out, side_steps(sides, layers.links, nx, nz))


def test_a_tiles_inner_segments_equal_the_numpy_steps():

    area = bake(level(), REGION, BASE).bake_state.areas[0]
    x0, z0, cell = float(area.layers.x0), float(area.layers.z0), float(area.layers.cell)
    checked = 0
    for tile in area.tiles:
        got = tile.arrays(x0, z0, cell).inner_segments
        ends, pairs = tile.inner_ends.astype(np.int64), tile.inner.astype(np.int64)
        want = np.empty(ends.shape[:2] + (3,))
        want[..., 0], want[..., 2] = x0 + ends[..., 0] * cell, z0 + ends[..., 1] * cell
        for e in range(2):
            heights = []
            for c in range(2):
                out = np.empty(len(pairs))
                heights_at(tile.detail_box.astype(np.int64), tile.detail_start, tile.detail_heights,
                           np.ascontiguousarray(pairs[:, c]), np.ascontiguousarray(ends[:, e]), out)
                heights.append(out)
            want[:, e, 1] = 0.5 * (heights[0] + heights[1])
        assert got.tobytes() == want.tobytes()
        checked += len(pairs)
    assert checked
