"""A re-bake's navmesh arrays, joined from each tile's kept share (TilePolygons.arrays) and taken without the input
checks: they pass those checks all the same, and a tile's share is made once and follows the grid it is asked on."""

from __future__ import annotations

import numpy as np

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
