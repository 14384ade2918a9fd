"""The size limit of a bake (MAX_BAKE_COLUMNS in navigation/settings.py): a bake over a region too large for its
ray density is refused before anything is allocated, with a ParameterError naming ray_density, the densest grid
that fits and the memory the bake would need, never a raw MemoryError or OverflowError."""

from __future__ import annotations

import pytest

from voxelworld.errors import ParameterError
from voxelworld.navigation import NavSettings, Scene, SearchRegion
from voxelworld.navigation import areas as areas_module
from voxelworld.navigation.bake import bake, walkable_layers
from voxelworld.navigation.settings import BAKE_BYTES_PER_COLUMN, MAX_BAKE_COLUMNS

FLOOR = Scene().with_object("floor", [[0, 0, 0], [8, 0, 0], [8, 0, 8], [0, 0, 8]], [[0, 2, 1], [0, 3, 2]])
SMALL = dict(agent_radius=0, min_region_area=0)


def _refusal(regions, settings) -> ParameterError:
    with pytest.raises(ParameterError) as caught:
        bake(FLOOR, regions, settings)
    assert caught.value.parameter == "ray_density"
    assert caught.value.value == settings.ray_density
    assert f"MAX_BAKE_COLUMNS = {MAX_BAKE_COLUMNS}" in str(caught.value)
    return caught.value


def test_a_two_kilometre_region_is_refused_with_the_memory_it_would_need():
    settings = NavSettings()
    error = _refusal(SearchRegion((0, -1, 0), (2000, 3, 2000)), settings)
    side = int(2000 / settings.cell_size + 1e-9)
    assert f"{side * side * BAKE_BYTES_PER_COLUMN / 2**30:.3g} GiB" in str(error)
    assert f"<= {MAX_BAKE_COLUMNS / 2000**2:.3g} rays per m²" in str(error)  # what would fit


def test_a_huge_ray_density_is_refused():
    error = _refusal(SearchRegion((0, -1, 0), (8, 3, 8)), NavSettings(ray_density=1e12))
    assert "6.4e+13" in str(error)  # 8 m / 1 µm = 8e6 columns a side
    with pytest.raises(ParameterError, match="MAX_BAKE_COLUMNS"):
        walkable_layers(FLOOR, SearchRegion((0, -1, 0), (8, 3, 8)), NavSettings(ray_density=1e12))


def test_a_region_too_wide_to_count_is_refused():
    _refusal(SearchRegion((-1e308, -1, -1e308), (1e308, 3, 1e308)), NavSettings())


def test_regions_count_together(monkeypatch):
    monkeypatch.setattr(areas_module, "MAX_BAKE_COLUMNS", 16 * 16)
    settings = NavSettings(ray_density=4, **SMALL)  # 0.5 m cells: 16 x 16 columns over 8 m, each region fits
    region = SearchRegion((0, -1, 0), (8, 3, 8))
    assert bake(FLOOR, region, settings).area() == 64.0
    apart = SearchRegion((20, -1, 0), (28, 3, 8))  # a second area of 16 x 16 columns
    with pytest.raises(ParameterError, match="would cast 512 ") as caught:
        bake(FLOOR, [region, apart], settings)
    assert "8 x 8 m + 8 x 8 m" in str(caught.value)
    with pytest.raises(ParameterError, match="would cast 512 "):  # joined: one grid of 32 x 16 columns
        bake(FLOOR, [region, SearchRegion((8, -1, 0), (16, 3, 8))], settings)
    assert bake(FLOOR, [region, region], settings).area() == 64.0  # the same box twice: one area


def test_the_limit_is_inclusive(monkeypatch):
    monkeypatch.setattr(areas_module, "MAX_BAKE_COLUMNS", 16 * 16)
    settings = NavSettings(ray_density=4, **SMALL)  # 0.5 m cells: 16 x 16 columns over 8 m
    assert bake(FLOOR, SearchRegion((0, -1, 0), (8, 3, 8)), settings).area() == 64.0
    with pytest.raises(ParameterError, match="would cast 272 "):
        bake(FLOOR, SearchRegion((0, -1, 0), (8.5, 3, 8)), settings)
