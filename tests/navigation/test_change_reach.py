"""Whether a change of the scene can change a tile's bake (navigation.tiles.change_reaches_tiles): never "no" where
the tiles around it bake otherwise (many changes tried, each checked against the bakes of both scenes), and "no"
for changes that leave every walkable floor as it was (a bump on a rock's side within the agent's radius of its
foot: the ground it covers is eroded away in any case)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from voxelworld.navigation import Scene
from voxelworld.navigation.tiles import TiledNavMesh, bake_tiles, change_reaches_tiles, same_polygons

from .test_tiles import REGION, SETTINGS, box

AREA = TiledNavMesh(REGION, SETTINGS).area
ROCK = (np.array([12.0, 0.0, 12.0]), np.array([16.0, 3.5, 16.0]))  # its top a walkable island of 16 m²


@pytest.fixture(scope="module")
def scene() -> Scene:
    scene = box(Scene(), "ground", (0.0, -0.5, 0.0), (30.0, 0.0, 30.0))
    scene = box(scene, "rock", *ROCK)
    scene = box(scene, "ledge", (20.0, 0.0, 4.0), (26.0, 0.2, 9.0))  # a step up
    scene = box(scene, "mud", (1.0, -3.0, 1.0), (2.0, -2.0, 2.0), area_type="mud")  # below the rays: its name only
    return box(scene, "roof", (4.0, 2.5, 4.0), (9.0, 2.7, 9.0))  # high enough to walk under


def bakes_alike(before: Scene, after: Scene, lo, hi, settings=SETTINGS) -> bool:
    """Whether every tile whose bake reads the box lo..hi (tiles of 16 m, read 4.75 m past their edges) bakes the
    same in both scenes."""
    ti0, tk0 = (max(int((v - 5.0) // 16.0), 0) for v in (lo[0], lo[2]))
    ti1, tk1 = (min(int((v + 5.0) // 16.0) + 1, 3) for v in (hi[0], hi[2]))
    a, b = (bake_tiles(s, AREA, settings, (ti0, tk0, ti1, tk1)) for s in (before, after))
    return all(same_polygons(a[t].polygons, b[t].polygons) and np.array_equal(a[t].steps, b[t].steps) for t in a)


def bump(rng: np.random.Generator, out: float) -> tuple[np.ndarray, np.ndarray]:
    """A box sticking ``out`` m out of a side of the rock (from its face: not into it, which would put another
    surface facing up under the rock's top), somewhere along it and up it."""
    lo, hi = ROCK[0].copy(), ROCK[1].copy()
    axis, side = int(rng.choice([0, 2])), int(rng.integers(2))
    along = 2 - axis
    start = rng.uniform(lo[along], hi[along] - 0.5)
    lo[along], hi[along] = start, min(start + rng.uniform(0.3, 3.0), hi[along])
    lo[1] = rng.uniform(0.0, 3.0)
    hi[1] = min(lo[1] + rng.uniform(0.05, 0.5), ROCK[1][1])
    if side:
        lo[axis], hi[axis] = ROCK[1][axis], ROCK[1][axis] + out
    else:
        lo[axis], hi[axis] = ROCK[0][axis] - out, ROCK[0][axis]
    return lo, hi


@pytest.mark.parametrize("settings", [SETTINGS, replace(SETTINGS, agent_radius=0.0)], ids=["eroded", "not-eroded"])
def test_a_change_said_not_to_reach_the_tiles_bakes_them_the_same(scene, settings):
    """Bumps put on the rock's sides and boxes anywhere (inside the ground, on it, over it, across the step's and
    the roof's edges), of the ground's area type or mud, put there or taken away: where the check says the tiles
    cannot change, they bake the same in both scenes. (Without erosion, links the room above a sample breaks
    count where erosion would have dropped the samples.)"""
    rng = np.random.default_rng(11)
    said = {True: 0, False: 0}
    for n in range(120):
        if n % 3:
            lo, hi = bump(rng, rng.uniform(0.02, 0.8))
        else:
            x, z = rng.uniform(1.0, 26.0, 2)
            y = rng.choice([-0.4, -0.1, 0.1, 1.0, 2.1, 3.5])
            lo, hi = np.array([x, y, z]), np.array([x, y, z]) + rng.uniform([0.2, 0.05, 0.2], [3.0, 1.5, 3.0])
        changed = box(scene, f"box{n}", lo, hi, area_type="mud" if n % 4 == 0 else "ground")
        before, after = (scene, changed) if n % 2 else (changed, scene)  # put there, or taken away
        reaches = change_reaches_tiles(before, after, AREA, settings, lo, hi)
        said[reaches] += 1
        if not reaches:
            assert bakes_alike(before, after, lo, hi, settings), (n, lo, hi)
    assert said[True] >= 8 and said[False] >= 8, said  # both answers given, often


def test_a_bump_within_the_agents_radius_of_the_rocks_foot_reaches_no_tile(scene):
    # 0.2 m out of the rock's side, 2.2 m up (the room the ground under it needs is 2 m): its top too small to
    # stand on, the ground under it next to the rock, which an agent's radius keeps it from.
    near = (np.array([13.0, 2.2, 16.0]), np.array([15.0, 2.5, 16.2]))
    assert not change_reaches_tiles(scene, box(scene, "near", *near), AREA, SETTINGS, *near)
    assert bakes_alike(scene, box(scene, "near", *near), *near)
    # Lower, or sticking out further, it takes ground an agent could stand on: the tiles bake again.
    low = (np.array([13.0, 1.0, 16.0]), np.array([15.0, 1.3, 16.2]))
    assert change_reaches_tiles(scene, box(scene, "low", *low), AREA, SETTINGS, *low)
    assert not bakes_alike(scene, box(scene, "low", *low), *low)
    far = (np.array([13.0, 0.3, 16.0]), np.array([15.0, 0.6, 16.8]))
    assert change_reaches_tiles(scene, box(scene, "far", *far), AREA, SETTINGS, *far)
    assert not bakes_alike(scene, box(scene, "far", *far), *far)
    # Out of the region's rays (below its floor at -1 m): nothing.
    under = (np.array([2.0, -3.0, 2.0]), np.array([4.0, -2.0, 4.0]))
    assert not change_reaches_tiles(scene, box(scene, "under", *under), AREA, SETTINGS, *under)
    # The same out of sight, but naming an area type the scene had not: the tiles bake again (they name it).
    assert change_reaches_tiles(scene, box(scene, "under", *under, area_type="lava"), AREA, SETTINGS, *under)


def test_the_room_over_samples_and_their_area_types_count_too(scene):
    # Without erosion, a slab just over the room an agent needs (2 m), at the step's edge: every sample stays,
    # but the room over the ground there no longer reaches over the step's, so their link goes.
    unrounded = replace(SETTINGS, agent_radius=0.0)
    slab = (np.array([24.87, 2.02, 9.11]), np.array([25.49, 2.09, 9.48]))
    assert change_reaches_tiles(scene, box(scene, "slab", *slab), AREA, unrounded, *slab)
    assert not bakes_alike(scene, box(scene, "slab", *slab), *slab, unrounded)
    # A sample's area type counts where erosion drops it (whether a tile is of one type reads every sample).
    near = (np.array([13.0, 2.2, 16.0]), np.array([15.0, 2.5, 16.2]))
    assert change_reaches_tiles(scene, box(scene, "near", *near, area_type="mud"), AREA, SETTINGS, *near)
