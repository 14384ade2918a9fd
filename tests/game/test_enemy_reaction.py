"""The chainsaw enemy reacts to the player (issue 32, section 3): it notices a player within a few metres, turns
and swings at them, its blade takes stamina, and bullets, burying it or cutting the ground under it stop it; a
world setting switches the reaction off."""

import math
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.edits import VoxelEdit
from voxelworld.game.enemy_reaction import ReactionSettings, segment_distance
from voxelworld.game.events import EnemyChanged
from voxelworld.game.world import Inputs, World, WorldSettings
from voxelworld.terrain import Box, Sphere, Tool

DT = 1 / 30


def demo(**settings):
    """The demo world without NPCs, its enemy a second into cutting its rock wall (facing +x, at x 37.4 m)."""
    world = World.demo(seed=0, npcs=0, settings=WorldSettings(**settings))
    for _ in range(30):
        world.step(Inputs(), dt=DT)
    return world, world.agents.enemies[0]


def stand_player(world, x, z):
    player = world.player
    player.position = np.array([x, world.agents.enemies[0].ground_height(x, z), z])
    player.velocity = np.zeros(3)


def reactions(world, first):
    return Counter(e.kind for e in world.events[first:] if isinstance(e, EnemyChanged) and e.material == "player")


def play(world, frames, inputs=Inputs()):
    for _ in range(frames):
        world.step(inputs, dt=DT)


def test_notices_a_player_behind_it_turns_swings_and_hurts_then_goes_back_to_its_wall():
    world, enemy = demo()
    work, wall_x = enemy.facing.copy(), enemy.position[0]
    stand_player(world, enemy.position[0] - 1.3, enemy.position[2])  # 1.3 m behind its back
    first = len(world.events)
    play(world, 150)
    seen = reactions(world, first)
    assert seen["noticed"] == 1
    to_player = world.player.position - enemy.position
    assert float(np.dot(enemy.facing, to_player / np.hypot(to_player[0], to_player[2]))) > 0.99  # it turned
    assert seen["struck"] >= 3  # swung at them: its blade met their body
    assert world.player.stamina <= 100.0 - 3 * 15.0 + 5.0 * 150 * DT  # (stamina regenerates 5 a second)
    assert enemy.position[0] == wall_x  # it stood where it was
    stand_player(world, enemy.position[0] - 12.0, enemy.position[2])
    first = len(world.events)
    play(world, 60)
    assert reactions(world, first)["forgot"] == 1
    assert np.array_equal(enemy.facing, work)  # back to its wall, cutting it
    assert enemy.motion.contact is not None or enemy.goal is not None or any(
        e.kind == "carved" for e in world.events[first:] if isinstance(e, EnemyChanged))


def test_with_the_reaction_off_it_works_its_wall_whoever_comes_near():
    world, enemy = demo(enemy_reacts=False)
    facing = enemy.facing.copy()
    stand_player(world, enemy.position[0] - 1.3, enemy.position[2])
    first = len(world.events)
    play(world, 150)
    assert not reactions(world, first) and np.array_equal(enemy.facing, facing)
    assert world.player.stamina == 100.0


def aim_at(player, target):
    offset = np.asarray(target, dtype=float) - player.eye
    yaw = math.degrees(math.atan2(-offset[0], -offset[2])) % 360.0
    return yaw, math.degrees(math.atan2(offset[1], math.hypot(offset[0], offset[2])))


def test_bullets_stop_it_for_good():
    world, enemy = demo()
    stand_player(world, enemy.position[0] - 3.0, enemy.position[2] - 1.0)
    world.actions.suck = replace(world.actions.suck, bullets=("rock",) * 3)
    first = len(world.events)
    for _ in range(3):  # stance, throw, each a press
        look = aim_at(world.player, enemy.position + (0.0, 1.1, 0.0))
        for inputs in (Inputs(look=look, stance=True), Inputs(look=look), Inputs(look=look, throw=True),
                       Inputs(look=look)):
            world.step(inputs, dt=DT)
        play(world, 10, Inputs(look=look))
    seen = reactions(world, first)
    assert seen["hit"] == 3 and seen["stopped_shot"] == 1 and enemy.stopped == "shot"
    pose, carved, stamina = enemy.motion.world.copy(), enemy.carved_voxels, world.player.stamina
    play(world, 60)
    assert np.array_equal(enemy.motion.world, pose) and enemy.carved_voxels == carved  # it no longer swings or cuts
    assert world.player.stamina >= stamina


def test_burying_it_stops_it():
    world, enemy = demo()
    world.queue_edit(VoxelEdit("add", Sphere(tuple(enemy.position + (0.0, 1.0, 0.0)), 1.2), material="soil",
                               source="player"))
    first = len(world.events)
    play(world, 3)
    assert reactions(world, first)["stopped_buried"] == 1 and enemy.stopped == "buried"


def test_cutting_the_ground_under_it_makes_it_fall_and_stop():
    world, enemy = demo()
    x, y, z = enemy.position
    world.queue_edit(VoxelEdit("remove", Box((x - 0.8, y - 2.5, z - 0.8), (x + 0.8, y + 0.5, z + 0.8)),
                               tool=Tool(gives_way_below=1e9, unbreakable_from=1e9), source="punch"))
    first = len(world.events)
    play(world, 3)
    assert reactions(world, first)["stopped_fell"] == 1 and enemy.stopped == "fell"
    assert enemy.position[1] < y - 1.5  # it dropped into the hole
    carved = enemy.carved_voxels
    play(world, 30)
    assert enemy.carved_voxels == carved


def test_its_own_cut_never_stops_it_and_bad_settings_are_refused():
    world, enemy = demo()
    play(world, 300)
    assert enemy.stopped is None and enemy.carved_voxels > 0
    for field, value in (("notice_distance", 0.0), ("forget_distance", 1.0), ("hits_to_stop", 0),
                         ("blade_stamina", -1.0), ("fall_height", float("nan"))):
        with pytest.raises(ParameterError, match=field):
            ReactionSettings(**{field: value})
    with pytest.raises(ParameterError, match="enemy_reacts"):
        WorldSettings(enemy_reacts=1)
    assert segment_distance(np.zeros(3), np.zeros(3), np.array([0.0, 1, 0]), np.array([0.0, 3, 0])) == 1.0


def test_with_two_players_it_notices_and_strikes_the_nearer_and_the_guest_s_bullets_stop_it():
    """Issue #35: the world's own player far away, a guest who joined 1.3 m behind the enemy: the guest is
    noticed, struck and loses stamina, the world's own player not; the guest's three bullets stop it."""
    world, enemy = demo()
    stand_player(world, enemy.position[0] - 12.0, enemy.position[2])  # beyond its notice distance
    x, z = enemy.position[0] - 1.3, enemy.position[2]
    guest = world.join("guest", spawn=(x, enemy.ground_height(x, z), z)).player
    first = len(world.events)
    play(world, 150)
    seen = reactions(world, first)
    assert seen["noticed"] == 1 and seen["struck"] >= 3
    whose = {(e.kind, e.player) for e in world.events[first:] if isinstance(e, EnemyChanged) and e.player}
    assert whose == {("noticed", "guest"), ("struck", "guest")}  # the events say whom it noticed and struck
    assert np.allclose(enemy.threat, guest.position) and world.player.stamina == 100.0
    assert guest.stamina <= 100.0 - 3 * 15.0 + 5.0 * 150 * DT
    seat = world.joined[0]
    seat.actions.suck = replace(seat.actions.suck, bullets=("rock",) * 3)
    guest.position = np.array([enemy.position[0] - 3.0, enemy.ground_height(x, z - 1.0), z - 1.0])
    first = len(world.events)
    for _ in range(3):
        look = aim_at(guest, enemy.position + (0.0, 1.1, 0.0))
        for inputs in (Inputs(look=look, stance=True), Inputs(look=look), Inputs(look=look, throw=True),
                       Inputs(look=look)):
            world.step([Inputs(), inputs], dt=DT)
        for _ in range(10):
            world.step([Inputs(), Inputs(look=look)], dt=DT)
    assert reactions(world, first)["hit"] == 3 and enemy.stopped == "shot"
    assert {e.player for e in world.events[first:] if isinstance(e, EnemyChanged) and e.kind == "hit"} == {"guest"}
