"""The search region's bottom face as the landing surface (issue #16, the design's region rules): a ray that meets
nothing lands on it, so a scene of only obstacles bakes the floor around them; on by default only for a region no
floor reaches into."""

from __future__ import annotations

import pytest

from voxelworld.errors import ParameterError
from voxelworld.navigation import NavSettings, Scene, SearchRegion
from voxelworld.navigation.bake import bake

from .test_bake import box

EXACT = NavSettings(agent_radius=0.0, ray_density=25.0, min_region_area=0.0)
FLOOR = ([[0, 0, 0], [12, 0, 0], [12, 0, 10], [0, 0, 10]], [[0, 2, 1], [0, 3, 2]])
CRATES = Scene().with_object("crate", *box((4, 0, 3), (8, 1, 7)), role="obstacle") \
    .with_object("crate_2", *box((9, 0, 1), (11, 2, 2)), role="obstacle")
OBSTACLES = 16.0 + 2.0  # m² of the crates' footprints


def test_a_scene_of_only_obstacles_bakes_the_floor_around_them():
    mesh = bake(CRATES, SearchRegion((0, 0, 0), (12, 4, 10)), EXACT)
    assert mesh.area() == pytest.approx(120.0 - OBSTACLES)
    assert len(mesh.islands()) == 1
    assert mesh.vertices[:, 1].min() == mesh.vertices[:, 1].max() == 0.0  # on the region's bottom face


def test_landing_off_bakes_nothing_and_a_floor_turns_the_default_off():
    assert bake(CRATES, SearchRegion((0, 0, 0), (12, 4, 10), landing=False), EXACT).area() == 0.0
    # With a floor in the region the bottom face is no landing: no second level under the floor (levels mode).
    floored = CRATES.with_object("floor", *FLOOR)
    levels = NavSettings(**{**EXACT.__dict__, "levels": True, "clearance": 0.5})
    auto = bake(floored, SearchRegion((0, -1, 0), (12, 4, 10)), levels)
    assert auto.vertices[:, 1].min() >= 0.0 and auto.area(level=0) == pytest.approx(120.0 - OBSTACLES)
    forced = bake(floored, SearchRegion((0, -1, 0), (12, 4, 10), landing=True), levels)
    assert forced.to_json() == auto.to_json()  # every ray meets the floor: nothing lands on the bottom


def test_a_rebake_with_landing_equals_a_full_bake():
    region = SearchRegion((0, 0, 0), (12, 4, 10))
    mesh = bake(CRATES, region, EXACT)
    moved = CRATES.without("crate_2").with_object("crate_2", *box((9.5, 0, 0.5), (11.5, 2, 1.5)), role="obstacle")
    tiles = mesh.rebake(((8.5, -1, 0), (12, 3, 3)), moved)
    assert 0 < len(tiles) < 4  # of the 2 x 2 tiles (32 cells of 0.2 m), only those near the crate
    assert mesh.to_json() == bake(moved, region, EXACT).to_json()


def test_landing_must_be_a_flag_or_none():
    with pytest.raises(ParameterError, match="landing"):
        SearchRegion((0, 0, 0), (1, 1, 1), landing="yes")
