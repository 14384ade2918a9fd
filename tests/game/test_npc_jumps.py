"""NPCs and a pit the player dug: one on the rim whose goal is in the pit jumps down its edge (its path takes a drop
link, it leaves the navmesh, lands, arrives; its pose takes the jump layer in the air), one in the pit whose goal
is on the rim finds no way up."""

from __future__ import annotations

import numpy as np

from voxelworld.game.events import NPCChanged
from voxelworld.game.navigation import DEFAULT_SETTINGS
from voxelworld.game.npcs import NPCSettings
from voxelworld.game.world import Inputs, VoxelEdit, World
from voxelworld.navigation import NavQuery
from voxelworld.terrain import Box, VoxelVolume

FLOOR, PIT_FLOOR = 4.0, 2.5
PIT = Box((9.0, PIT_FLOOR, 9.0), (15.0, 8.0, 15.0))  # 6 m square, 1.5 m deep


def dug_world() -> World:
    """Flat soil at y = 4 m on 24 m x 24 m, the player in a corner, and the pit dug, the navmesh re-baked."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - FLOOR, (48, 16, 48), "soil", voxel_size=0.5, chunk_size=16)
    world = World(volume, spawn=(2.0, FLOOR, 22.0))
    world.agents.add_npc("bystander", (2.0, FLOOR, 2.0))  # the navmesh is baked with the first NPC
    world.queue_edit(VoxelEdit("remove", PIT, tool=None, source="dig"))
    navigation = world.agents.navigate()
    for _ in range(100):  # the chunks are meshed again in the background, then the navmesh re-baked
        world.step(Inputs())
        if navigation.revision:
            break
    assert navigation.revision
    return world


def test_the_games_navmesh_drops_down_a_person_high_ledge() -> None:
    assert 1.5 < DEFAULT_SETTINGS.max_drop <= DEFAULT_SETTINGS.clearance  # about the NPC's own height


def test_an_npc_on_the_rim_jumps_down_into_the_pit_and_one_in_it_finds_no_way_up() -> None:
    world = dug_world()
    mesh = world.agents.navigate().mesh
    links = mesh.offmesh_links
    assert links is not None and links.count >= 8 and not links.bidirectional.any()
    rim, goal = (5.0, FLOOR, 12.0), (12.0, PIT_FLOOR, 12.0)
    path = NavQuery(mesh).find_path(rim, goal)
    assert path is not None and (path.offmesh >= 0).any()  # down the edge, not round: there is no way round
    jumper = world.agents.add_npc("jumper", rim, goal=goal, settings=NPCSettings(speed=2.0))
    stuck = world.agents.add_npc("stuck", (12.0, PIT_FLOOR, 13.0))
    assert not stuck.walk_to((20.0, FLOOR, 12.0)) and stuck.state == "blocked"
    kinds, air, heights = [], [], []
    for _ in range(400):
        events = world.step(Inputs())
        kinds += [e.kind for e in events if isinstance(e, NPCChanged) and e.npc == "jumper"]
        pose = next(p for p in world.snapshot().characters if p.name == "jumper")
        if jumper.jump[0] >= 0:
            air.append(pose.air_weight)
            heights.append(float(jumper.position[1]))
        if jumper.state == "arrived":
            break
    assert kinds == ["offmesh", "landed", "arrived"]
    assert air and max(air) == 1.0 and air == sorted(air)  # the jump layer eased in while in the air
    assert max(heights) > FLOOR and min(heights) > PIT_FLOOR - 1e-9
    assert np.hypot(*(jumper.position - goal)[[0, 2]]) <= NPCSettings().arrival_radius + 1e-9
    assert stuck.state == "blocked"
