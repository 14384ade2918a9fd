"""Treasure a player can open (issue 32, section 2) and fragments that wait to be picked up (section 4): use takes
the treasure when a fragment is in reach too, a buried treasure says how deep it lies, digging near a treasure
(punch, suck, a carve like the enemy's) reveals it and never loses it, fragments stay 15 s."""

from __future__ import annotations

import numpy as np

from voxelworld.game.actions import ball_object
from voxelworld.game.edits import VoxelEdit
from voxelworld.game.events import ActionBlocked, ActionEnded, PickedUp, TreasureOpened
from voxelworld.game.objects import WorldObject
from voxelworld.game.world import Inputs, World
from voxelworld.terrain import Capsule, Sphere, Tool

from .test_play import arena, of, press
from .test_use import BURIED, dig_to_the_treasure, look_at, treasure_world

CUTS_ALL = Tool(gives_way_below=100.0, unbreakable_from=100.0)


def fragment_between(world: World, name: str = "fragment-near") -> WorldObject:
    """A loose soil fragment on the line from the eye to the treasure, nearer the eye than the treasure."""
    eye = world.player.eye
    where = eye + 0.6 * (np.asarray(BURIED) - eye)
    piece = WorldObject(name, "fragment", ball_object(world.volume, "soil", 0.1, where), resting=True)
    world.actions.objects.append(piece)
    return piece


def closed_names(world: World) -> list[str]:
    return [o.name for o in world.snapshot().objects if o.kind == "treasure"]


# ------------------------------------------------------------------------------------------ use prefers it
def test_use_opens_the_exposed_treasure_though_a_fragment_lies_nearer():
    world = treasure_world("iron")
    dig_to_the_treasure(world)
    piece = fragment_between(world)
    look = look_at(world, BURIED)
    events = press(world, use=True, look=look)
    assert of(events, TreasureOpened, name="treasure-0", material="iron") and not of(events, PickedUp)
    assert world.player.currency == 10.0 and world.actions.held is None
    # The fragment is still there: the next use picks it up.
    assert world.actions.use_target(world).kind == "fragment"
    picked = press(world, use=True, look=look)
    assert of(picked, PickedUp, name=piece.name)


def test_use_at_a_buried_treasure_says_how_deep_it_lies_and_never_says_hands_full():
    world = treasure_world("rock")
    fragment_between(world)
    world.actions.held = WorldObject("piece-held", "held", ball_object(world.volume, "soil", 0.1, world.player.eye))
    look = look_at(world, BURIED)
    events = press(world, use=True, look=look)
    # Hands full, a fragment nearer: the exposed-treasure rule does not apply (it is buried), the fragment would be
    # refused as hands full; the fragment is the target, and use says so.
    assert of(events, ActionBlocked, reason="hands_full")
    world.actions.held = None
    world.actions.objects = []
    buried = press(world, use=True, look=look)
    blocked = of(buried, ActionBlocked, action="use", reason="treasure_buried")
    assert blocked and blocked[0].text == "the treasure lies 0.8 m deep: dig to it first"
    assert of(buried, ActionEnded, action="use", outcome="buried") and not of(buried, TreasureOpened)


# --------------------------------------------------------------------------------------------- its depth
def test_a_buried_treasures_depth_falls_as_the_player_digs_toward_it():
    from voxelworld.game.use import treasure_depth, use_target

    world = treasure_world("rock")
    # 0.75 m of rock between the wall's face (the open voxel at x = 7.75 m) and the treasure's neighbours.
    assert treasure_depth(world.volume, BURIED) == 0.8
    world.volume.remove(Sphere((7.75, BURIED[1], BURIED[2]), 0.3), CUTS_ALL)
    assert treasure_depth(world.volume, BURIED) == 0.5
    dig_to_the_treasure(world)
    assert treasure_depth(world.volume, BURIED) == 0.0
    assert use_target(world.volume, world.player.eye, world.player.aim, [BURIED], [], 2.5, 90.0).kind == "treasure"


# ---------------------------------------------------------------------------------- digging reveals it
def test_punches_suck_and_a_carve_like_the_enemys_reveal_a_treasure_and_never_lose_it():
    world = treasure_world("rock_interior")
    look = look_at(world, BURIED)
    for _ in range(6):  # punches straight at it, then around it
        press(world, punch=True, look=look, frames_after=10)
    for offset in (-0.6, 0.6):
        press(world, punch=True, look=look_at(world, (BURIED[0], BURIED[1], BURIED[2] + offset)), frames_after=10)
    for _ in range(30):
        world.step(Inputs(look=look, suck=True))
    world.step(Inputs(look=look))
    carve = VoxelEdit("remove", Capsule((BURIED[0], BURIED[1] - 0.5, 3.0), (BURIED[0], BURIED[1] + 0.5, 5.0), 0.5),
                      tool=CUTS_ALL, source="chainsaw")
    world.queue_edit(carve)
    world.step(Inputs(look=look))
    assert world.volume.read_voxel(np.round(world.volume.world_to_index(BURIED)).astype(int))["density"] == 0
    assert "treasure-0" in closed_names(world)  # revealed, not lost (the digging may have buried another)
    events = press(world, use=True, look=look)
    opened = of(events, TreasureOpened, name="treasure-0")
    assert opened and opened[0].material == "rock_interior" and world.player.currency == 1.0


# ------------------------------------------------------------------------------------------- fragments
def test_punched_fragments_stay_15_seconds_though_the_player_keeps_punching():
    world = arena("soil", spawn_x=6.5)
    start = world.time
    press(world, punch=True, frames_after=30)
    first = {o.name for o in world.actions.objects if o.kind == "fragment"}
    assert first
    assert world.settings.actions.fragment_lifetime >= 15.0
    for n in range(14):  # fourteen more punches into the softening wall, each as its strike plays out (0.6 s)
        press(world, punch=True, look=(260.0 + 20.0 * (n % 2), -10.0 + 1.5 * n), frames_after=0)
    while world.time < start + 14.9:
        world.step(Inputs(look=(270.0, 0.0)))
    left = {o.name for o in world.actions.objects if o.kind == "fragment"}
    assert first <= left and len(left) > 32  # more than the 32 kept before
    while world.time < start + 15.5:
        world.step(Inputs(look=(270.0, 0.0)))
    assert not first & {o.name for o in world.actions.objects}
