"""Tiles baked apart (navigation.tiles): each the same, bit for bit, as that tile of a full bake; any set of them one
navmesh; islands, erosion and steps that cross a tile's edge judged as the full bake judges them."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.navigation import NavQuery, NavSettings, Scene, SearchRegion
from voxelworld.navigation.bake import bake
from voxelworld.navigation.navmesh import ARRAY_NAMES
from voxelworld.navigation.tiles import TiledNavMesh, bake_tiles, same_polygons, tile_reach

# Islands under 6 m² are dropped: a strip 1.5 m wide running far out of a tile is kept only if the bake sees it
# whole, a platform of 2 x 2 m is dropped wherever it lies.
SETTINGS = NavSettings(ray_density=16, agent_radius=0.25, min_region_area=6.0, step_limit=0.3)
REGION = SearchRegion((0.0, -1.0, 0.0), (48.0, 4.0, 48.0), landing=False)


def box(scene: Scene, name: str, lo, hi, area_type: str = "ground") -> Scene:
    """A closed box (its top walkable) from lo to hi (m), of ``area_type``."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    corners = [[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]
    faces = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
             [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    return scene.with_object(name, corners, faces, role="floor", area_type=area_type)


@pytest.fixture(scope="module")
def scene() -> Scene:
    rng = np.random.default_rng(7)
    scene = Scene()
    scene = box(scene, "ground", (0.0, -0.5, 0.0), (20.5, 0.0, 21.0))  # across the first tiles' edges
    scene = box(scene, "strip", (8.0, 0.5, 15.0), (46.0, 1.0, 16.5))  # 1.5 m wide, over several tiles
    scene = box(scene, "spur", (14.5, 0.5, 30.0), (40.0, 1.0, 31.5))  # only its end in the tiles x < 16 m
    scene = box(scene, "step", (20.5, -0.2, 2.0), (30.0, 0.1, 12.0))  # a step up from the ground
    for n in range(14):  # platforms about the islands' threshold, some on a tile's edge
        x, z = rng.uniform(2.0, 44.0, 2)
        w, d = rng.uniform(1.5, 4.0, 2)
        scene = box(scene, f"platform{n}", (x, 2.0, z), (min(x + w, 47.9), 2.4, min(z + d, 47.9)))
    return scene


@pytest.fixture(scope="module")
def full(scene):
    return bake(scene, REGION, SETTINGS)


def test_every_tile_baked_alone_is_the_full_bakes(scene, full):
    tiled = TiledNavMesh(REGION, SETTINGS)
    ntx, ntz = tiled.tile_grid
    assert (ntx, ntz) == (3, 3)
    expected = full.bake_state.areas[0].tiles
    for ti in range(ntx):
        for tk in range(ntz):
            alone = bake_tiles(scene, tiled.area, SETTINGS, (ti, tk, ti + 1, tk + 1))
            assert same_polygons(alone[(ti, tk)].polygons, expected[ti * ntz + tk]), (ti, tk)
    # The strip is kept (it is large), though most of it lies outside any one tile's window.
    assert full.area() > 0 and any(expected[t].polygon_count for t in range(ntx * ntz))


def test_tiles_baked_in_one_window_or_alone_are_the_same(scene, full):
    together = bake_tiles(scene, TiledNavMesh(REGION, SETTINGS).area, SETTINGS, (0, 0, 2, 3))
    expected = full.bake_state.areas[0].tiles
    for (ti, tk), baked in together.items():
        assert same_polygons(baked.polygons, expected[ti * 3 + tk]), (ti, tk)


def test_any_set_of_tiles_is_one_navmesh_and_all_of_them_the_full_bake(scene, full):
    tiled = TiledNavMesh(REGION, SETTINGS)
    assert tiled.mesh.polygon_count == 0 and tiled.tiles == frozenset()
    mesh = tiled.mesh
    assert tiled.change(scene, bake=[(1, 1), (0, 1)]) == [(0, 1), (1, 1)]
    assert tiled.mesh is mesh and mesh.polygon_count > 0
    # Paths cross the edge between the two tiles (their portals are there).
    query = NavQuery(mesh)
    path = query.find_path((4.0, 0.0, 18.5), (19.0, 0.0, 19.5))
    assert path is not None and abs(path.length - np.hypot(15.0, 1.0)) < 1e-6
    everything = [(ti, tk) for ti in range(3) for tk in range(3)]
    tiled.change(scene, bake=everything)
    for name in ARRAY_NAMES:
        assert np.array_equal(getattr(tiled.mesh, name), getattr(full, name)), name
    assert tiled.change(scene, bake=everything) == []  # the same scene: nothing changed
    assert tiled.change(drop=[(2, 2), (2, 2)]) == [(2, 2)] and (2, 2) not in tiled.tiles
    assert tiled.change(drop=[(2, 2)]) == []  # not kept: nothing to drop
    tiled.change(drop=everything)
    assert tiled.mesh.polygon_count == 0 and tiled.nbytes == 0


def test_a_changed_scene_rebakes_the_tiles_it_reaches(scene):
    tiled = TiledNavMesh(REGION, SETTINGS)
    everything = [(ti, tk) for ti in range(3) for tk in range(3)]
    tiled.change(scene, bake=everything)
    dug = scene.without("step")
    reached = [t for t in everything if _meets(tiled.reach(t), (20.5, 2.0, 30.0, 12.0))]
    changed = tiled.change(dug, bake=reached)
    assert changed and set(changed) <= set(reached)
    full = bake(dug, REGION, SETTINGS)
    for name in ARRAY_NAMES:
        assert np.array_equal(getattr(tiled.mesh, name), getattr(full, name)), name


def test_the_tiles_reading_a_box_are_those_whose_reach_meets_it(scene):
    tiled = TiledNavMesh(REGION, SETTINGS)
    tiled.change(scene, bake=[(0, 0), (1, 0), (1, 1), (2, 2)])
    rng = np.random.default_rng(3)
    for _ in range(60):
        x0, z0 = rng.uniform(-5.0, 50.0, 2)
        box = (x0, z0, x0 + rng.choice([0.0, rng.uniform(0.0, 20.0)]), z0 + rng.uniform(0.0, 20.0))
        assert tiled.tiles_reading(box) == sorted(t for t in tiled.tiles if _meets(tiled.reach(t), box)), box
    reach = tiled.reach((1, 1))  # touching counts
    assert (1, 1) in tiled.tiles_reading((reach[2], reach[3], reach[2] + 1.0, reach[3] + 1.0))
    # The kept tiles as a grid, after bakes and drops.
    for dropped, baked in (([], []), ([(1, 0)], []), ([(0, 0)], [(0, 1), (1, 0)]), ([(2, 2), (0, 1)], [(2, 2)])):
        tiled.change(scene, bake=baked, drop=dropped)
        assert sorted(map(tuple, np.argwhere(tiled.kept).tolist())) == sorted(tiled.tiles)


def _meets(a, b) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def test_bad_tiles_and_regions_are_refused():
    tiled = TiledNavMesh(REGION, SETTINGS)
    with pytest.raises(ParameterError, match=r"tile = \(3, 0\)"):
        tiled.change(Scene(), bake=[(3, 0)])
    with pytest.raises(ParameterError, match="scene"):
        tiled.change(None, bake=[(0, 0)])
    assert tiled.tiles == frozenset()  # nothing changed
    with pytest.raises(ParameterError, match="region.landing"):
        TiledNavMesh(SearchRegion((0.0, -1.0, 0.0), (48.0, 4.0, 48.0)), SETTINGS)
    with pytest.raises(ParameterError, match="tiles"):
        tile_reach(tiled.area, SETTINGS, (0, 0, 9, 1))
    x0, z0, x1, z1 = tiled.reach((1, 1))
    assert x0 < tiled.tile_box((1, 1))[0] and x1 > tiled.tile_box((1, 1))[2]  # the bake's margin
