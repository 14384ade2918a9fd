"""Search regions baked together join across the borders they share (`voxelworld.navigation.areas`): one grid,
no erosion seam, one island, paths across; regions apart or stacked stay apart."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.navigation import NavQuery, NavSettings, Scene, SearchRegion
from voxelworld.navigation.areas import bake_areas
from voxelworld.navigation.bake import bake

from .test_bake import box
from .test_rebake import FIELDS

SETTINGS = NavSettings(ray_density=16, agent_radius=0.5, min_region_area=0, max_edge_error=0.0)


def floor(*rects) -> Scene:
    """A scene of flat floor slabs (top at y = 0), one per rectangle ((x0, z0), (x1, z1))."""
    scene = Scene()
    for n, ((x0, z0), (x1, z1)) in enumerate(rects):
        scene = scene.with_object(f"slab{n}", *box((x0, -0.2, z0), (x1, 0, z1)), role="floor")
    return scene


L_FLOOR = floor(((0, 0), (10, 4)), ((0, 4), (4, 10)))
L_REGIONS = [SearchRegion((0, -1, 0), (10, 3, 4)), SearchRegion((0, -1, 4), (4, 6, 10))]  # different heights


def test_an_l_of_two_regions_is_one_island_as_one_region_would_bake_it():
    joined = bake(L_FLOOR, L_REGIONS, SETTINGS)
    whole = bake(L_FLOOR, SearchRegion((0, -1, 0), (10, 3, 10)), SETTINGS)
    assert len(joined.islands()) == 1
    assert joined.area() == pytest.approx(whole.area(), rel=1e-12)
    # eroded only at the floor's real edges: 9 x 3 + 3 x 6 (the inner corner's quarter circle aside)
    assert joined.area() == pytest.approx(9 * 3 + 3 * 6, abs=0.3)
    path = NavQuery(joined).find_path((9.4, 0, 1), (1, 0, 9.4))
    round_the_corner = np.hypot(9.4 - 3.5, 3.5 - 1) + np.hypot(3.5 - 1, 9.4 - 3.5)  # past the eroded inner corner
    assert path is not None and path.length == pytest.approx(round_the_corner, rel=0.02)


def test_regions_baked_apart_leave_the_seam_that_joining_removes():
    apart = [bake(L_FLOOR, region, SETTINGS) for region in L_REGIONS]
    joined = bake(L_FLOOR, L_REGIONS, SETTINGS)
    # each alone erodes half a metre along the shared border z = 4 (over x 0.5..3.5): about 2 x 0.5 x 3 m² less
    assert joined.area() - sum(m.area() for m in apart) == pytest.approx(2 * 0.5 * 3.0, abs=0.1)
    assert sum(len(m.islands()) for m in apart) == 2


def test_overlapping_regions_bake_as_the_box_they_fill():
    scene = floor(((0, 0), (20, 10))).with_object("crate", *box((9, 0, 4), (11, 1.5, 6)), role="obstacle")
    joined = bake(scene, [SearchRegion((0, -1, 0), (12, 3, 10)), SearchRegion((6, -1, 0), (20, 3, 10))],
                  SETTINGS)
    whole = bake(scene, SearchRegion((0, -1, 0), (20, 3, 10)), SETTINGS)
    for name in FIELDS:
        assert np.array_equal(getattr(joined, name), getattr(whole, name)), name


def test_which_regions_are_baked_as_one():
    settings = NavSettings(ray_density=4)
    apart = SearchRegion((20, 0, 0), (24, 3, 4))
    stacked = SearchRegion((5, 3, 0), (10, 6, 4))  # on top of the first: heights only touch
    corner = SearchRegion((10, 0, 4), (14, 3, 8))  # touches the first at one corner
    areas = bake_areas([L_REGIONS[0], apart, stacked, corner, L_REGIONS[1]], settings)
    assert [a.regions for a in areas] == [(L_REGIONS[0], corner, L_REGIONS[1]), (apart,), (stacked,)]
    assert (areas[0].x0, areas[0].z0, areas[0].nx, areas[0].nz) == (0.0, 0.0, 28, 20)


def test_a_region_owns_only_whole_cells_inside_the_union():
    settings = NavSettings(ray_density=4)  # 0.5 m cells
    area = bake_areas([SearchRegion((0, 0, 0), (4.2, 2, 2)), SearchRegion((4.2, 0, 0.2), (8, 2, 2))], settings)[0]
    # x 4.0..4.5 spans the border: its centre is the second's; z 0..0.5 past x 4.2 is half outside both
    assert area.owner[:, 1].tolist() == [0] * 8 + [1] * 8
    assert area.owner[:, 0].tolist() == [0] * 8 + [-1] * 8


def test_a_joined_area_too_narrow_or_too_large_is_refused():
    with pytest.raises(ParameterError) as caught:
        bake(L_FLOOR, [SearchRegion((0, -1, 0), (0.1, 3, 10)), SearchRegion((0.1, -1, 0), (0.2, 3, 10))], SETTINGS)
    assert caught.value.parameter == "region"
    with pytest.raises(ParameterError) as caught:
        bake(L_FLOOR, [SearchRegion((0, -1, 0), (1, 3, 1)), SearchRegion((1, -1, 1), (5e3, 3, 5e3))], SETTINGS)
    assert caught.value.parameter == "ray_density"


def test_where_regions_overlap_the_first_given_owns_the_columns():
    table = box((4, 2.0, 3), (6, 2.2, 7))  # a table top 2 m up: the tall region's rays meet it, the low one's not
    scene = floor(((0, 0), (10, 10))).with_object("table", *table, role="obstacle")
    tall, low = SearchRegion((0, -1, 0), (10, 3, 10)), SearchRegion((3, -1, 2), (7, 1.5, 8))
    under_table = bake(scene, [low, tall], SETTINGS).area() - bake(scene, [tall, low], SETTINGS).area()
    radius = SETTINGS.agent_radius  # the table's shadow, widened by the erosion (corners rounded)
    assert under_table == pytest.approx((2 + 2 * radius) * (4 + 2 * radius), abs=0.5)
