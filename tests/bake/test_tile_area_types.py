"""The bake's tile rows (world file version 3) carry each polygon's area type and the names it indexes."""

from __future__ import annotations

import numpy as np

from voxelworld.bake.records import read_row, tile_record
from voxelworld.navigation import NavSettings, Scene, SearchRegion
from voxelworld.navigation.tiles import TiledNavMesh


def test_a_tile_row_holds_its_polygons_area_types_and_their_names():
    region = SearchRegion((0, -1, 0), (12, 3, 12), landing=False)
    two = [[0, 2, 1], [0, 3, 2]]
    scene = Scene().with_object("floor", [[0, 0, 0], [12, 0, 0], [12, 0, 12], [0, 0, 12]], two, role="floor") \
        .with_object("mud", [[2, 0.01, 2], [6, 0.01, 2], [6, 0.01, 9], [2, 0.01, 9]], two, role="floor",
                     area_type="mud")
    tiled = TiledNavMesh(region, NavSettings(ray_density=4, agent_radius=0, min_region_area=0))
    tiled.change(scene, bake=[(0, 0)])
    baked = tiled.baked_tile((0, 0))
    arrays = read_row(tile_record((0, 0), baked)[-1])
    assert np.array_equal(arrays["area_type"], baked.polygons.area_type) and set(arrays["area_type"]) == {0, 1}
    assert bytes(arrays["area_types"]).decode("utf-8").split("\n") == ["ground", "mud"]
