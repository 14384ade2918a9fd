"""A crowd on a TiledNavMesh plans again only the agents whose way a tile change reaches (as Detour re-plans the
corridors a tile swap made invalid): the navmesh records where each change lay (NavMesh.changes); a re-bake, or
more changes than it remembers, still re-plans every agent."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.navigation import Crowd, NavSettings, Scene, SearchRegion
from voxelworld.navigation.bake import bake
from voxelworld.navigation.navmesh import CHANGES_KEPT
from voxelworld.navigation.tiles import TiledNavMesh

from .test_tiles import box

SETTINGS = NavSettings(ray_density=16, agent_radius=0.25, min_region_area=1.0, step_limit=0.3)  # tiles of 16 m
REGION = SearchRegion((0.0, -1.0, 0.0), (48.0, 4.0, 48.0), landing=False)
NEAR = [(0, 0), (1, 0), (0, 1), (1, 1)]  # x and z below 32 m (tiles of 16 m)


@pytest.fixture(scope="module")
def ground() -> Scene:
    return box(Scene(), "ground", (0.0, -0.5, 0.0), (48.0, 0.0, 48.0))


def walking(mesh) -> tuple[Crowd, dict[str, int]]:
    """A crowd of three walking: one in the first tile, one across tiles (1, 0) and (1, 1), one towards a goal
    beyond the tiles kept (its path stops short of it)."""
    crowd = Crowd(mesh)
    agents = {"corner": crowd.add_agent((2.0, 0.0, 2.0), 0.25, 1.0),
              "across": crowd.add_agent((20.0, 0.0, 4.0), 0.25, 1.0),
              "beyond": crowd.add_agent((4.0, 0.0, 24.0), 0.25, 1.0)}
    for name, goal in (("corner", (12.0, 0.0, 12.0)), ("across", (28.0, 0.0, 28.0)), ("beyond", (40.0, 0.0, 24.0))):
        assert crowd.set_goal(agents[name], goal)
    for _ in range(3):
        crowd.step(0.1)
    return crowd, agents


def planned_at(crowd: Crowd, agents: dict[str, int]) -> dict[str, float]:
    return {name: crowd.agent_state(agent)["planned_at"] for name, agent in agents.items()}


def test_a_tile_baked_again_replans_only_the_agents_whose_way_it_reaches(ground):
    tiled = TiledNavMesh(REGION, SETTINGS)
    tiled.change(ground, bake=NEAR)
    crowd, agents = walking(tiled.mesh)
    before = planned_at(crowd, agents)
    crate = box(ground, "crate", (22.0, 0.0, 20.0), (26.0, 2.0, 24.0))
    assert tiled.change(crate, bake=[(1, 1)]) == [(1, 1)]
    lo, hi = tiled.mesh.changes[-1][1]
    x0, z0, x1, z1 = tiled.tile_box((1, 1))
    assert np.all(lo <= (x0, z0)) and np.all(hi >= (x1, z1)) and np.all(hi - lo <= 17.0)  # the tile's, a cell wider
    crowd.step(0.1)
    after = planned_at(crowd, agents)
    assert after["corner"] == before["corner"]  # its way lies in tile (0, 0): not planned again
    assert after["across"] > before["across"] and after["beyond"] > before["beyond"]
    # Every agent is put back on the changed navmesh all the same, and walks on to its goal.
    for _ in range(400):  # (about 26 m at 1 m/s for the one across)
        crowd.step(0.1)
    assert crowd.agent_state(agents["corner"])["state"] == "arrived"
    assert crowd.agent_state(agents["across"])["state"] == "arrived"


def test_a_dropped_tile_leaves_the_agents_elsewhere_on_their_ways(ground):
    tiled = TiledNavMesh(REGION, SETTINGS)
    tiled.change(ground, bake=NEAR)
    crowd, agents = walking(tiled.mesh)
    before = planned_at(crowd, agents)
    tiled.change(drop=[(0, 0)])
    crowd.step(0.1)
    after = planned_at(crowd, agents)
    assert crowd.agent_state(agents["corner"])["state"] == "blocked"  # its ground went: off the navmesh
    assert after["across"] == before["across"]  # x 19.75..28.25: clear of the tile (x below 16 m and a cell)
    assert after["beyond"] > before["beyond"]


def test_a_rebake_or_too_many_changes_replan_every_agent(ground):
    full = bake(ground, REGION, SETTINGS)
    crowd, agents = walking(full)
    before = planned_at(crowd, agents)
    crate = box(ground, "crate", (22.0, 0.0, 20.0), (26.0, 2.0, 24.0))
    full.rebake([(22.0, -1.0, 20.0), (26.0, 3.0, 24.0)], crate)
    assert full.changes[-1][1] is None  # a re-bake does not say where
    crowd.step(0.1)
    after = planned_at(crowd, agents)
    assert all(after[name] > before[name] for name in agents)

    tiled = TiledNavMesh(REGION, SETTINGS)
    tiled.change(ground, bake=NEAR)
    crowd, agents = walking(tiled.mesh)
    before = planned_at(crowd, agents)
    for n in range(CHANGES_KEPT + 1):  # far from the corner agent's way, more than the navmesh remembers
        tiled.change(crate if n % 2 == 0 else ground, bake=[(1, 1)])
    assert len(tiled.mesh.changes) == CHANGES_KEPT
    crowd.step(0.1)
    assert planned_at(crowd, agents)["corner"] > before["corner"]
