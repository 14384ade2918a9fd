"""NPCs path around every player (issue #35 §1): each player near the crowd stands in it as an obstacle of its
capsule's radius, the world's own and every seat alike, placed again every frame where the player stands; the crowd
stays deterministic, and a world saved with players among its NPCs plays on alike."""

from __future__ import annotations

import numpy as np

from voxelworld.game.npcs import NPCSettings
from voxelworld.game.player import PlayerSettings
from voxelworld.game.world import Inputs, World, WorldSettings
from voxelworld.terrain import VoxelVolume

FLOOR = 4.0
CORNER = (2.0, FLOOR, 22.0)  # out of every NPC's way
ACROSS = ((4.0, FLOOR, 12.0), (20.0, FLOOR, 12.0))  # an NPC's straight way, through (12, 12)


def field_world(spawn: tuple[float, float, float] = CORNER) -> World:
    """Flat soil at y = 4 m on 24 m x 24 m, the world's own player at ``spawn``."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - FLOOR, (48, 16, 48), "soil", voxel_size=0.5, chunk_size=16)
    return World(volume, spawn=spawn)


def walk_across(world: World, frames: int = 600, inputs=None) -> tuple[dict[str, float], str]:
    """An NPC walking ACROSS; steps ``world`` until it arrives (``inputs(frame)`` each frame, none pressed by
    default). Returns each player's closest approach to the NPC across the ground (m, feet to feet) and the NPC's
    last state."""
    npc = world.agents.add_npc("walker", ACROSS[0], goal=ACROSS[1], settings=NPCSettings(speed=2.0))
    closest = {name: np.inf for name, _ in world.players()}
    for frame in range(frames):
        world.step(Inputs() if inputs is None else inputs(frame))
        for name, player in world.players():
            closest[name] = min(closest[name], float(np.hypot(*(npc.position - player.position)[[0, 2]])))
        if npc.state == "arrived":
            break
    return closest, npc.state


def clearance(world: World) -> float:
    """What an NPC keeps from a player's feet: their radii together, less 5% (the separation's and the snapping's
    play)."""
    return 0.95 * (world.settings.player.radius + NPCSettings().radius)


def test_an_npc_walks_round_the_worlds_own_player_standing_in_its_way():
    world = field_world(spawn=(12.0, FLOOR, 12.0))
    closest, state = walk_across(world)
    assert state == "arrived"
    assert closest["player"] >= clearance(world)


def test_an_npc_walks_round_a_guest_standing_in_its_way():
    """A seat is an obstacle as the world's own player is (the world's own stands far off, in a corner)."""
    world = field_world()
    world.join("guest", spawn=(12.0, FLOOR, 12.0))
    closest, state = walk_across(world)
    assert state == "arrived"
    assert closest["guest"] >= clearance(world)


def test_an_npc_keeps_a_wide_players_capsule_radius_from_its_feet():
    """The obstacle is a disc of the player's capsule radius: a guest of radius 1.2 m keeps the NPC 1.6 m off
    (the default player's radius would let it pass within 1 m)."""
    wide = PlayerSettings(radius=1.2, height=2.9)
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - FLOOR, (48, 16, 48), "soil", voxel_size=0.5, chunk_size=16)
    world = World(volume, spawn=CORNER, settings=WorldSettings(player=wide))
    world.join("guest", spawn=(12.0, FLOOR, 12.0))
    closest, state = walk_across(world)
    assert state == "arrived"
    assert closest["guest"] >= 0.95 * (wide.radius + NPCSettings().radius)


def test_an_npc_walks_round_two_guests_and_the_worlds_own_player_along_its_way():
    world = field_world(spawn=(8.0, FLOOR, 12.0))
    world.join("guest", spawn=(12.0, FLOOR, 12.1))
    world.join("other", spawn=(16.0, FLOOR, 11.9))
    closest, state = walk_across(world, frames=900)
    assert state == "arrived"
    assert min(closest.values()) >= clearance(world)


def test_an_npc_keeps_clear_of_a_guest_walking_across_its_way():
    """The guest's obstacle follows it every frame: walking across the NPC's way at the NPC's speed (2 m/s along -z
    on x = 11, from z = 16 to 11 in frames 90 to 240: both near (11, 12) 3.5 s in), it never overlaps the NPC."""
    world = field_world()
    world.join("guest", spawn=(11.0, FLOOR, 16.0))
    closest, state = walk_across(world, inputs=lambda frame: [Inputs(), Inputs(move=(0.0, 0.5), look=(0.0, 0.0))]
                                 if 90 <= frame < 240 else None)
    assert state == "arrived"
    assert world.joined[0].player.position[2] < 11.5  # it walked across
    assert closest["guest"] >= clearance(world)


def test_a_player_far_from_every_npc_is_no_agent_of_the_crowd():
    """Only players near the crowd stand in it, with their capsule's radius: the world's own player in its corner
    is never an agent, the guest in the NPC's way is one while the NPC comes near and passes, and not once it walked
    on."""
    world = field_world()
    world.join("guest", spawn=(12.0, FLOOR, 12.0))
    npc = world.agents.add_npc("walker", ACROSS[0], goal=ACROSS[1], settings=NPCSettings(speed=2.0))
    crowd = world.agents.navigation.crowd
    counts = []
    for _ in range(600):
        world.step(Inputs())
        counts.append(len(crowd) - 1)  # (the crowd's agents besides the NPC's: players')
        assert np.allclose(crowd.radii[1:], world.settings.player.radius)
        if npc.state == "arrived":
            break
    assert max(counts) == 1 and counts[0] == 0  # the guest alone, once the NPC came near it
    assert npc.state == "arrived" and counts[-1] == 0  # gone once the NPC walked on


def test_npcs_among_players_are_deterministic():
    def run() -> list:
        world = field_world(spawn=(8.0, FLOOR, 12.0))
        world.join("guest", spawn=(12.0, FLOOR, 12.0))
        walk_across(world, frames=200, inputs=lambda frame: [Inputs(move=(0.3, 0.0)), Inputs(move=(0.0, 0.2))])
        return [npc.position.tolist() for npc in world.agents.npcs] + [world.event_log_hash()]

    assert run() == run()


def test_a_world_saved_with_players_among_its_npcs_plays_on_alike(tmp_path):
    """Saved while a guest and the world's own player stand in the crowd as agents beside an enemy's (nothing of
    them is saved: the loaded world places them again in its first frame, after the enemy's, as the world saved
    does every frame), the NPCs and the enemy go on bit for bit as in the world saved."""
    from voxelworld.io import load_world, save_world

    world = field_world(spawn=(9.0, FLOOR, 12.3))
    world.join("guest", spawn=(12.0, FLOOR, 12.0))
    world.agents.add_enemy("saw", (13.0, FLOOR, 13.5), (1.0, 0.0, 0.0))
    npc = world.agents.add_npc("walker", ACROSS[0], goal=ACROSS[1], settings=NPCSettings(speed=2.0))
    world.agents.add_npc("back", ACROSS[1], goal=ACROSS[0], settings=NPCSettings(speed=1.5))
    while npc.position[0] < 8.0:  # by the world's own player, near the guest
        world.step(Inputs())
    assert len(world.agents.navigation.crowd) == 2 + 1 + 2  # the NPCs', the enemy's and both players' agents
    save_world(world, tmp_path / "players.vxw")
    loaded = load_world(tmp_path / "players.vxw")
    for frame in range(240):
        inputs = [Inputs(move=(0.0, 0.4 if frame < 60 else 0.0)), Inputs()]
        world.step(inputs)
        loaded.step(inputs)
        for a, b in zip(world.agents.npcs + world.agents.enemies, loaded.agents.npcs + loaded.agents.enemies):
            assert np.array_equal(a.position, b.position), frame
    crowds = world.agents.navigation.crowd, loaded.agents.navigation.crowd
    assert np.array_equal(crowds[0].positions, crowds[1].positions) and crowds[0].states == crowds[1].states
    assert world.event_log_hash() == loaded.event_log_hash()
