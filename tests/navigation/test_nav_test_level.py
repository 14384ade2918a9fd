"""The baker against Recast on Recast's own demo level (nav_test.obj, Y up, all of it floor).

Recast (its WASM build, @recast-navigation 0.43, RecastDemo's solo-mesh settings: cell 0.3 m, cell height
0.2 m, slope 45°, walkable height 10, climb 4, radius 2 cells, min region 8², merge region 20², edge 40 cells,
simplification error 1.3, 6 corners per polygon) bakes it to polygons of 4002 m² in all, in 17 islands (groups
of polygons joined through shared edges). Our bake with the same parameters in world units must come within 3%
of that area and find the same number of islands.
"""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.navigation import NavSettings, Scene, SearchRegion
from voxelworld.navigation._kernels.samples import island_labels
from voxelworld.navigation.bake import bake, walkable_layers

from ..assets import NAV_TEST as LEVEL

RECAST_AREA = 4002.0  # m²
RECAST_ISLANDS = 17

SETTINGS = NavSettings.from_recast(cell_size=0.3, agent_height=2.0, agent_radius=0.6, agent_max_climb=0.9,
                                   agent_max_slope=45, region_min_size=8)


@pytest.fixture(scope="module")
def level():
    scene = Scene.from_obj(LEVEL)
    lo, hi = scene.bounds()
    # The scene's bounds, a metre deeper and higher so that rays start above and end below everything.
    return scene, SearchRegion(lo - [0.0, 1.0, 0.0], hi + [0.0, 1.0, 0.0])


def test_area_and_islands_match_recast(level):
    scene, region = level
    mesh = bake(scene, region, SETTINGS)
    assert mesh.area() == pytest.approx(RECAST_AREA, rel=0.03)
    assert len(mesh.islands()) == RECAST_ISLANDS
    # Every island is at least min_region_area (Recast's smallest is 6.35 m², just over 5.76).
    areas = mesh.polygon_areas()
    assert min(areas[group].sum() for group in mesh.islands()) >= SETTINGS.min_region_area


def test_the_samples_islands_agree_with_the_navmesh(level):
    scene, region = level
    layers = walkable_layers(scene, region, SETTINGS)
    # The islands of the samples, over the links the navmesh's portals are made from.
    labels = np.empty(layers.height.shape, dtype=np.int64)
    assert island_labels(layers.height, layers.links, labels) == RECAST_ISLANDS
    walk = ~np.isnan(layers.height)
    assert walk.sum() * SETTINGS.cell_size ** 2 == pytest.approx(RECAST_AREA, rel=0.03)


RECAST_POLYGONS = 155  # Recast's polygon count with those settings (6 corners per polygon)


@pytest.mark.parametrize("max_corners", [3, 4, 6, 12])
def test_polygons_are_few_valid_and_cover_recasts_area(level, max_corners):
    """Traced, simplified outlines cut into convex polygons: within 2% of Recast's area, its 17 islands, at most
    twice its polygons (at its 6 corners), every polygon closed, simple, convex and within max_corners, none
    overlapping another of its level; more corners allowed, fewer polygons."""
    import shapely

    scene, region = level
    settings = NavSettings(**{**SETTINGS.__dict__, "max_corners": max_corners})
    mesh = bake(scene, region, settings)
    assert mesh.area() == pytest.approx(RECAST_AREA, rel=0.02)
    assert len(mesh.islands()) == RECAST_ISLANDS
    corners = np.diff(mesh.polygon_start)
    assert corners.min() >= 3 and corners.max() <= max_corners
    if max_corners == 6:
        assert mesh.polygon_count <= 2 * RECAST_POLYGONS
    for level_number in np.unique(mesh.polygon_level):
        shapes = [shapely.Polygon(mesh.polygon(q)[:, [0, 2]]) for q in np.flatnonzero(mesh.polygon_level == level_number)]
        assert all(shape.is_valid and shape.convex_hull.area == pytest.approx(shape.area) for shape in shapes)
        assert shapely.union_all(shapes).area == pytest.approx(sum(shape.area for shape in shapes), abs=1e-6)
    more = bake(scene, region, NavSettings(**{**SETTINGS.__dict__, "max_corners": 2 * max_corners}))
    if max_corners < 8:  # beyond, convexity bounds the polygons, not their corners
        assert more.polygon_count < mesh.polygon_count
    else:
        assert more.polygon_count <= mesh.polygon_count
