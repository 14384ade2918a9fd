"""The baker on a room built in the test, with areas known exactly (cell edges on the furniture's edges)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.navigation import NavSettings, Scene, SearchRegion
from voxelworld.navigation.bake import bake, walkable_grids


def box(lo, hi):
    """A closed box's triangles (outward), corners lo..hi in metres."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    faces = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
             [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    return corners, np.array(faces)


def cylinder(centre, radius, height, sides=96):
    angles = np.linspace(0, 2 * np.pi, sides, endpoint=False)
    ring = np.column_stack([centre[0] + radius * np.cos(angles), np.zeros(sides), centre[1] + radius * np.sin(angles)])
    top = ring + [0, height, 0]
    positions = np.vstack([ring, top, [[centre[0], 0, centre[1]], [centre[0], height, centre[1]]]])
    faces = []
    for a in range(sides):
        b = (a + 1) % sides
        faces += [[a, b, sides + b], [a, sides + b, sides + a], [2 * sides, b, a], [2 * sides + 1, sides + a, sides + b]]
    return positions, np.array(faces)


def room() -> Scene:
    scene = Scene().with_object("floor", [[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10]], [[0, 2, 1], [0, 3, 2]])
    scene = scene.with_object("table", *box((2, 0, 2), (4, 0.8, 3.5)), role="obstacle")
    scene = scene.with_object("crate", *box((6, 0, 6), (7, 0.2, 7)), role="obstacle")  # under obstacle_min_height
    scene = scene.with_object("curtain", *box((8, 0, 0), (9, 3, 10)), role="exception")
    return scene.with_object("shelf", *box((9.5, 0, 4), (11, 1, 5)), role="obstacle")  # half outside the region


REGION = SearchRegion((0, 0, 0), (10, 2.5, 10))  # its base is the floor: heights count from there
SETTINGS = NavSettings(ray_density=16, agent_radius=0, min_region_area=0, clearance=1.0, step_limit=0.5,
                       obstacle_min_height=0.3, exclusion_proxy="aabb-tree")


def test_basic_mode_cuts_out_obstacles_and_keeps_low_crates():
    mesh = bake(room(), REGION, SETTINGS)
    # 100 m² of floor, less the table (2 x 1.5) and the inside half of the shelf (0.5 x 1); the crate is lower
    # than obstacle_min_height, so its top is walkable ground; the curtain is transparent.
    assert mesh.area() == pytest.approx(100 - 3.0 - 0.5)
    assert len(mesh.islands()) == 1
    on_crate = mesh.nearest_point([6.5, 1.0, 6.5])[0]
    assert on_crate[1] == pytest.approx(0.2)


def test_levels_mode_adds_the_table_top():
    mesh = bake(room(), REGION, NavSettings(**{**SETTINGS.__dict__, "levels": True}))
    # The table's top (3 m²) and the inside half of the shelf's top (0.5 m²) become levels of their own; under
    # the table (0.8 m) there is no headroom, under the shelf (1.0 m) just enough for the 1.0 m clearance.
    assert mesh.area() == pytest.approx(96.5 + 3.0 + 0.5 + 0.5)
    top = mesh.nearest_point([3.0, 2.0, 2.75])[0]
    assert top[1] == pytest.approx(0.8)
    islands = mesh.islands()
    assert sorted(round(float(mesh.polygon_areas()[g].sum()), 6) for g in islands) == [0.5, 3.0, 97.0]


def test_a_round_obstacle_cut_out_approaches_a_circle():
    scene = Scene().with_object("floor", [[0, 0, 0], [6, 0, 0], [6, 0, 6], [0, 0, 6]], [[0, 2, 1], [0, 3, 2]])
    scene = scene.with_object("pillar", *cylinder((3.0, 3.0), 1.3, 2.0), role="obstacle")
    polygon = 0.5 * 96 * 1.3 ** 2 * math.sin(2 * math.pi / 96)  # the pillar is a 96-sided prism
    errors = []
    for density in (4, 49, 400):
        settings = NavSettings(ray_density=density, agent_radius=0, min_region_area=0, exclusion_proxy="mesh")
        cut = 36.0 - bake(scene, SearchRegion((0, -1, 0), (6, 3, 6)), settings).area()
        errors.append(abs(cut - polygon))
    assert errors[0] > errors[1] > errors[2] and errors[2] < 0.05


def test_erosion_and_small_islands():
    scene = Scene().with_object("floor", [[0, 0, 0], [8, 0, 0], [8, 0, 8], [0, 0, 8]], [[0, 2, 1], [0, 3, 2]])
    scene = scene.with_object("step", *box((20, 0, 0), (21, 0.1, 1)))  # a 1 m² floor island, far away
    region = SearchRegion((0, -1, 0), (22, 3, 8))
    eroded = bake(scene, region, NavSettings(ray_density=4, agent_radius=1.0, min_region_area=0))
    assert eroded.area() == pytest.approx(36.0)  # 1 m off every edge of the 8 x 8 floor; the 1 m² step is gone
    kept = bake(scene, region, NavSettings(ray_density=4, agent_radius=0, min_region_area=0))
    assert kept.area() == pytest.approx(65.0) and len(kept.islands()) == 2
    dropped = bake(scene, region, NavSettings(ray_density=4, agent_radius=0, min_region_area=2.0))
    assert dropped.area() == pytest.approx(64.0) and len(dropped.islands()) == 1


def test_bake_is_deterministic_and_checks_its_input():
    a, b = bake(room(), REGION, SETTINGS), bake(room(), REGION, SETTINGS)
    assert a.to_json() == b.to_json()
    with pytest.raises(ParameterError) as caught:
        walkable_grids(room(), SearchRegion((0, 0, 0), (10, 2.5, 10), ray_direction=(1, 0, 0)), SETTINGS)
    assert caught.value.parameter == "ray_direction"
    with pytest.raises(ParameterError):
        bake(room(), [], SETTINGS)
