"""Sites of a generated world (issue 34): the surface kernel against the generator's column function one point at a
time; the same seed gives the same sites, region by region in any order, another seed others; camps on flat grass,
outcrops at the foot of rock faces, treasure buried under them; bad settings refused."""

from __future__ import annotations

import math

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.terrain import GeneratorSettings
from voxelworld.terrain import _worldgen_kernels as generator_kernels
from voxelworld.terrain._kernels.sites import surface_samples
from voxelworld.terrain.sites import SiteSettings, region_sites, world_sites

WORLD = GeneratorSettings(size=512.0, seed=7)


def reference_samples(world: GeneratorSettings, x0: float, z0: float, spacing: float, step: float, shape):
    """The heights and central-difference gradients, one generator column at a time, in plain Python."""
    p, keys = world._params(), world._keys()
    height = lambda x, z: generator_kernels.surface_height(p, keys, x, z)  # noqa: E731
    heights, gradients = np.zeros(shape), np.zeros((*shape, 2))
    for a in range(shape[0]):
        for b in range(shape[1]):
            x, z = x0 + a * spacing, z0 + b * spacing
            heights[a, b] = height(x, z)
            gradients[a, b] = ((height(x + step, z) - height(x - step, z)) * (0.5 / step),
                               (height(x, z + step) - height(x, z - step)) * (0.5 / step))
    return heights, gradients


@pytest.mark.parametrize("x0, z0, spacing", [(0.0, 0.0, 4.0), (101.5, 37.25, 2.5), (400.0, 3.0, 8.0)])
def test_the_surface_kernel_is_the_generators_columns(x0, z0, spacing):
    heights, gradients = np.zeros((5, 7)), np.zeros((5, 7, 2))
    surface_samples(WORLD._params(), WORLD._keys(), x0, z0, spacing, 0.5, heights, gradients)
    expected = reference_samples(WORLD, x0, z0, spacing, 0.5, (5, 7))
    assert np.array_equal(heights, expected[0]) and np.array_equal(gradients, expected[1])


def test_the_same_seed_gives_the_same_sites_in_any_order_and_another_seed_others():
    sites = world_sites(WORLD)
    assert sites == world_sites(GeneratorSettings(size=512.0, seed=7))
    regions = sorted({site.region for site in sites}, reverse=True)
    backwards = [site for region in regions for site in region_sites(WORLD, region)]
    assert sorted(backwards, key=lambda s: s.name) == sorted(sites, key=lambda s: s.name)
    assert world_sites(GeneratorSettings(size=512.0, seed=8)) != sites
    assert len({site.name for site in sites}) == len(sites)
    assert {site.kind for site in sites} == {"camp", "path", "outcrop"}


def test_camps_stand_on_flat_grass_and_outcrops_face_rock():
    settings = SiteSettings()
    p, keys = WORLD._params(), WORLD._keys()
    for site in world_sites(WORLD, settings):
        lo = np.array(site.region) * settings.region_size
        for x, y, z in site.points:  # inside its region, on the generator's surface
            assert lo[0] <= x <= lo[0] + settings.region_size and lo[1] <= z <= lo[1] + settings.region_size
            assert abs(y - generator_kernels.surface_height(p, keys, x, z)) < 1.0 or site.kind == "camp"
        if site.kind == "camp":
            centre = site.points[0]
            assert centre[1] > WORLD.sand_level + 2.0
            assert site.treasure == (centre[0], centre[1] - settings.treasure_depth, centre[2])
            assert 2 <= len(site.points) - 1 <= settings.camp_npcs
        if site.kind == "outcrop":
            fx, _, fz = site.facing
            assert math.isclose(math.hypot(fx, fz), 1.0)
            x, y, z = site.points[0]
            ahead = generator_kernels.surface_height(p, keys, x + 3.0 * fx, z + 3.0 * fz)
            assert ahead > y  # the face rises ahead of it
            assert site.treasure[1] < generator_kernels.surface_height(p, keys, site.treasure[0], site.treasure[2])


def test_bad_site_settings_and_regions_are_refused():
    with pytest.raises(ParameterError, match="spacing"):
        SiteSettings(spacing=0.0)
    with pytest.raises(ParameterError, match="camp_share"):
        SiteSettings(camp_share=1.5)
    with pytest.raises(ParameterError, match="camp_npcs"):
        SiteSettings(camp_npcs=1)
    with pytest.raises(ParameterError, match="region"):
        region_sites(WORLD, (8, 0))
    with pytest.raises(ParameterError, match="region"):
        region_sites(WORLD, (-1, 0))
