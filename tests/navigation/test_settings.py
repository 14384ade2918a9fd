"""Tests of voxelworld.navigation.settings: NavSettings (defaults, validation per field, the Recast mapping)
and SearchRegion.

The Recast figures come from issue #4 and Recast's demo: cell 0.3 m is 1 / 0.09 = 11.1 rays per m², and a
minimum region of 8 cells a side is 64 cells of 0.09 m², 5.76 m².
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.navigation import NavSettings, SearchRegion
from voxelworld.navigation.settings import EXCLUSION_PROXIES

RECAST_DEMO = {"cell_size": 0.3, "agent_height": 2.0, "agent_radius": 0.6, "agent_max_climb": 0.9,
               "agent_max_slope": 45.0, "region_min_size": 8}

# ------------------------------------------------------------------------------------------ NavSettings


def test_defaults_are_those_of_the_issue():
    settings = NavSettings()
    assert settings.ray_density == 11.1 and settings.step_limit == 0.9 and settings.clearance == 2.0
    assert settings.agent_radius == 0.6 and settings.max_slope == 45.0 and settings.obstacle_min_height is None
    assert settings.obstacle_height == settings.step_limit and settings.low_obstacles == "floor"  # (issue 33)
    assert settings.exclusion_proxy == "hull" and settings.max_corners == 6 and settings.levels is False
    assert settings.min_region_area == 5.76


@pytest.mark.parametrize("field, value", [
    ("ray_density", 0.0), ("ray_density", -2.0), ("ray_density", math.nan), ("ray_density", math.inf),
    ("ray_density", "dense"), ("ray_density", None),
    ("step_limit", -0.01), ("step_limit", math.inf),
    ("clearance", 0.0), ("clearance", -1.0), ("clearance", math.nan),
    ("agent_radius", -0.5), ("agent_radius", "wide"), ("agent_radius", 5.2e16),
    ("max_slope", -1.0), ("max_slope", 90.5), ("max_slope", math.nan),
    ("obstacle_min_height", -0.1), ("obstacle_min_height", math.inf),
    ("exclusion_proxy", "box"), ("exclusion_proxy", "HULL"), ("exclusion_proxy", None),
    ("max_corners", 2), ("max_corners", 0), ("max_corners", 4.5), ("max_corners", True), ("max_corners", "6"),
    ("levels", 1), ("levels", "yes"), ("levels", None),
    ("min_region_area", -1.0), ("min_region_area", math.nan),
])
def test_each_field_is_checked_and_the_error_names_it_and_its_value(field, value):
    with pytest.raises(ParameterError) as caught:
        NavSettings(**{field: value})
    assert caught.value.parameter == field
    assert caught.value.value is value or caught.value.value == value
    assert str(caught.value).startswith(f"{field} = {value!r}")


@pytest.mark.parametrize("field, unit", [
    ("ray_density", "rays per m²"), ("step_limit", "(m)"), ("clearance", "(m)"), ("agent_radius", "(m)"),
    ("max_slope", "degrees"), ("obstacle_min_height", "(m)"), ("min_region_area", "m²"),
])
def test_range_errors_state_the_unit(field, unit):
    with pytest.raises(ParameterError) as caught:
        NavSettings(**{field: -1.0})
    assert unit in caught.value.legal


def test_strict_and_inclusive_limits():
    NavSettings(step_limit=0.0, agent_radius=0.0, obstacle_min_height=0.0, min_region_area=0.0)
    NavSettings(max_slope=0.0)
    NavSettings(max_slope=90.0)
    NavSettings(ray_density=1e-6, clearance=1e-6, max_corners=3)
    with pytest.raises(ParameterError):
        NavSettings(ray_density=0.0)
    with pytest.raises(ParameterError):
        NavSettings(clearance=0.0)


def test_values_are_stored_as_their_documented_types():
    settings = NavSettings(ray_density=4, step_limit=1, clearance=2, agent_radius=0, max_slope=30,
                           obstacle_min_height=1, max_corners=np.int64(8), levels=np.bool_(True),
                           min_region_area=3)
    for field in ("ray_density", "step_limit", "clearance", "agent_radius", "max_slope", "obstacle_min_height",
                  "min_region_area"):
        assert type(getattr(settings, field)) is float, field
    assert type(settings.max_corners) is int and settings.max_corners == 8
    assert settings.levels is True
    assert NavSettings(max_corners=5.0).max_corners == 5


@pytest.mark.parametrize("proxy", EXCLUSION_PROXIES)
def test_every_exclusion_proxy_is_accepted(proxy):
    assert NavSettings(exclusion_proxy=proxy).exclusion_proxy == proxy


def test_exclusion_proxies_are_those_of_the_issue():
    assert set(EXCLUSION_PROXIES) == {"aabb-tree", "hull", "mesh", "reduced"}


def test_settings_are_frozen_and_replace_checks_again():
    settings = NavSettings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.clearance = 3.0  # type: ignore[misc]
    assert dataclasses.replace(settings, clearance=3.0).clearance == 3.0
    with pytest.raises(ParameterError) as caught:
        dataclasses.replace(settings, max_corners=2)
    assert caught.value.parameter == "max_corners"


@pytest.mark.parametrize("ray_density", [0.01, 1.0, 4.0, 11.1, 100.0, 12345.0])
def test_cell_size_is_the_spacing_of_a_square_grid_of_that_density(ray_density):
    cell = NavSettings(ray_density=ray_density).cell_size
    assert math.isclose(cell * cell * ray_density, 1.0, rel_tol=1e-12)


def test_from_recast_maps_recast_demo_parameters():
    settings = NavSettings.from_recast(**RECAST_DEMO)
    assert settings.ray_density == pytest.approx(1 / 0.09) and round(settings.ray_density, 2) == 11.11
    assert settings.ray_density == pytest.approx(11.1, abs=0.02)  # the issue's "11.1 rays/m²"
    assert settings.cell_size == pytest.approx(0.3)
    assert settings.min_region_area == pytest.approx(5.76)  # 8 x 8 cells of 0.3 m x 0.3 m
    assert settings.clearance == 2.0 and settings.agent_radius == 0.6
    assert settings.step_limit == 0.9 and settings.max_slope == 45.0
    # the fields Recast does not set keep their defaults
    default = NavSettings()
    for field in ("obstacle_min_height", "exclusion_proxy", "max_corners", "levels"):
        assert getattr(settings, field) == getattr(default, field)


def test_from_recast_region_area_is_the_square_of_the_region_side():
    settings = NavSettings.from_recast(cell_size=0.5, agent_height=1.8, agent_radius=0.4, agent_max_climb=0.3,
                                       agent_max_slope=30.0, region_min_size=10)
    assert settings.ray_density == pytest.approx(4.0)
    assert settings.min_region_area == pytest.approx(25.0)  # 100 cells of 0.25 m²
    assert NavSettings.from_recast(**{**RECAST_DEMO, "region_min_size": 0}).min_region_area == 0.0
    doubled = NavSettings.from_recast(**{**RECAST_DEMO, "region_min_size": 16})
    assert doubled.min_region_area == pytest.approx(4 * NavSettings.from_recast(**RECAST_DEMO).min_region_area)


def test_from_recast_passes_the_other_fields_through():
    settings = NavSettings.from_recast(**RECAST_DEMO, levels=True, max_corners=8, exclusion_proxy="mesh",
                                       obstacle_min_height=0.25)
    assert settings.levels is True and settings.max_corners == 8
    assert settings.exclusion_proxy == "mesh" and settings.obstacle_min_height == 0.25
    with pytest.raises(ParameterError) as caught:
        NavSettings.from_recast(**RECAST_DEMO, max_corners=2)
    assert caught.value.parameter == "max_corners"


@pytest.mark.parametrize("parameter, value", [
    ("cell_size", 0.0), ("cell_size", -0.3), ("cell_size", math.nan), ("agent_height", 0.0),
    ("agent_radius", -0.1), ("agent_max_climb", -1.0), ("agent_max_slope", 91.0), ("agent_max_slope", -5.0),
    ("region_min_size", -1), ("region_min_size", math.inf),
])
def test_from_recast_errors_name_the_recast_parameter(parameter, value):
    with pytest.raises(ParameterError) as caught:
        NavSettings.from_recast(**{**RECAST_DEMO, parameter: value})
    assert caught.value.parameter == parameter and repr(value) in str(caught.value)


@pytest.mark.parametrize("key", ["ray_density", "clearance", "step_limit", "max_slope", "min_region_area",
                                 "cell_height", "walkable_height"])
def test_from_recast_refuses_overrides_it_sets_itself_or_does_not_know(key):
    with pytest.raises(ParameterError) as caught:
        NavSettings.from_recast(**RECAST_DEMO, **{key: 1.0})
    assert caught.value.parameter == key


# ------------------------------------------------------------------------------------------ SearchRegion


def test_search_region_stores_float_tuples_and_points_down_by_default():
    region = SearchRegion([0, -1, 2], np.array([10, 3, 8]))
    assert region.min == (0.0, -1.0, 2.0) and region.max == (10.0, 3.0, 8.0)
    assert all(type(c) is float for c in region.min + region.max + region.ray_direction)
    assert region.ray_direction == (0.0, -1.0, 0.0)
    assert region.size == (10.0, 4.0, 6.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        region.min = (1.0, 1.0, 1.0)  # type: ignore[misc]
    assert region == SearchRegion((0, -1, 2), (10, 3, 8)) and hash(region) == hash(SearchRegion((0, -1, 2),
                                                                                                (10, 3, 8)))


@pytest.mark.parametrize("direction, want", [
    ((0, -2, 0), (0.0, -1.0, 0.0)),
    ((3, -4, 0), (0.6, -0.8, 0.0)),
    ((0, 0, 1e-300), (0.0, 0.0, 1.0)),
    ((1, 1, 1), (1 / math.sqrt(3),) * 3),
])
def test_ray_direction_is_normalised(direction, want):
    got = SearchRegion((0, 0, 0), (1, 1, 1), ray_direction=direction).ray_direction
    assert isinstance(got, tuple) and len(got) == 3
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
    assert math.isclose(math.hypot(*got), 1.0, rel_tol=1e-12)


@pytest.mark.parametrize("direction", [(0, 0, 0), (0, math.nan, 0), (math.inf, 0, 0), (0, -1), "down",
                                       (0, -1, 0, 0)])
def test_bad_ray_directions_are_refused(direction):
    with pytest.raises(ParameterError) as caught:
        SearchRegion((0, 0, 0), (1, 1, 1), ray_direction=direction)
    assert caught.value.parameter == "ray_direction"


def test_no_ray_direction_is_the_rotations_down_axis():
    assert SearchRegion((0, 0, 0), (1, 1, 1), ray_direction=None).ray_direction == (0.0, -1.0, 0.0)
    assert SearchRegion((0, 0, 0), (1, 1, 1), rotation=(1, 0, 0, 0)).ray_direction == (0.0, 1.0, 0.0)


@pytest.mark.parametrize("lo, hi, parameter", [
    ((0, 0, 0), (1, 0, 1), "max"),  # flat: no volume
    ((0, 0, 0), (1, 1, -1), "max"),
    ((5, 5, 5), (1, 1, 1), "max"),
    ((0, math.nan, 0), (1, 1, 1), "min"),
    ((0, 0, 0), (1, math.inf, 1), "max"),
    ((0, 0), (1, 1, 1), "min"),
    ("abc", (1, 1, 1), "min"),
    ((0, 0, 0), None, "max"),
])
def test_bad_corners_are_refused(lo, hi, parameter):
    with pytest.raises(ParameterError) as caught:
        SearchRegion(lo, hi)
    assert caught.value.parameter == parameter
    assert repr(lo if parameter == "min" else hi) in str(caught.value)
