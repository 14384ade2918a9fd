"""Feedback rules (issue 14, section 4): each action's reach and the aim's report of it, an ActionBlocked event
saying why for every action that does nothing (once per press), and suck paced to its gauge."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.events import ActionBlocked, ActionEnded, VoxelsEdited
from voxelworld.game.play import ActionSettings
from voxelworld.game.refusals import REASONS, Refusal
from voxelworld.game.suck import SuckSettings
from voxelworld.game.world import Inputs, World
from voxelworld.terrain import Sphere, Tool, VoxelVolume

from .test_play import FLOOR, LOOK, arena, of, press

UP = (270.0, 89.0)  # straight up: the sky


def blocked(events, **values) -> list[ActionBlocked]:
    return of(events, ActionBlocked, **values)


def hold(world: World, frames: int, **buttons) -> list:
    look = buttons.pop("look", LOOK)
    return [e for _ in range(frames) for e in world.step(Inputs(look=look, **buttons))]


# ------------------------------------------------------------------------------------------------------ reach
def test_the_reaches_are_measured_from_the_eye_and_reported_by_the_aim():
    reaches = ActionSettings().reaches()
    assert reaches["punch"] == reaches["pull_out"] > 3.2  # the ground seen 30 degrees down is 3.2 m from the eye
    assert reaches["suck"] > reaches["punch"]
    for spawn_x, expected in ((5.0, {"punch": True, "pull_out": True, "suck": True}),  # the wall 3 m from the eye
                              (3.0, {"punch": False, "pull_out": False, "suck": True})):  # 5 m
        world = arena("rock", spawn_x=spawn_x)
        aim = world.aim_info()
        assert aim.distance == pytest.approx(8.0 - spawn_x, abs=0.15)
        assert aim.reaches == reaches and aim.in_reach == expected


def test_a_punch_three_metres_away_digs_and_one_out_of_reach_says_how_far():
    world = arena("soil", spawn_x=5.0)  # the wall 3 m from the eye: out of the old 2.5 m reach
    events = press(world, punch=True)
    assert of(events, VoxelsEdited, source="punch")[0].volume_removed > 0
    assert not blocked(events)
    far = arena("soil", spawn_x=3.0)  # 5 m
    before = far.voxel_hash()
    events = press(far, punch=True)
    (said,) = blocked(events)
    assert (said.action, said.reason) == ("punch", "out_of_reach")
    assert said.text == f"out of reach: 5.0 m, punch reaches {far.settings.actions.punch.reach:g} m"
    assert of(events, ActionEnded, action="punch", outcome="missed") and far.voxel_hash() == before


def test_the_aim_reports_surfaces_beyond_every_reach_and_break_at_by_hardness():
    world = arena("rock", spawn_x=1.0)  # 7 m: beyond suck's 6 m too, yet reported
    aim = world.aim_info()
    assert aim.distance > 6.5 and not any(aim.in_reach.values())
    tool = world.settings.actions.punch.tool
    assert aim.material == "rock" and aim.break_at == tool.breaks_at
    assert arena("iron").aim_info().break_at is None
    assert arena("soil").aim_info().break_at == 0  # soil gives way at once


# ---------------------------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("action", ["punch", "pull_out"])
def test_digging_at_the_sky_says_nothing_is_aimed_once_per_press(action):
    world = arena("soil")
    events = hold(world, 20, look=UP, **{action: True})  # held for 20 frames: one press
    (said,) = blocked(events)
    assert (said.action, said.reason) == (action, "nothing_aimed")
    world.step(Inputs(look=UP))  # released ...
    events = press(world, look=UP, **{action: True})  # ... a second press says it again
    assert len(blocked(events, reason="nothing_aimed")) == 1


def test_iron_is_too_hard_and_rock_says_its_damage_so_far():
    events = press(arena("iron"), punch=True)
    (said,) = blocked(events)
    assert said.reason == "too_hard" and said.text == "too hard: iron (hardness 10) never gives way to punch"
    world = arena("rock")
    tool = world.settings.actions.punch.tool
    said = blocked(press(world, punch=True))[0]
    assert said.reason == "too_hard" and said.text.startswith(f"rock not broken yet: {tool.damage} / "
                                                             f"{tool.breaks_at} damage")
    said = blocked(press(world, punch=True))[0]
    assert f"{2 * tool.damage} / {tool.breaks_at}" in said.text


def test_throw_stance_and_use_with_nothing_say_why():
    world = arena("soil")
    reasons = {}
    for action in ("throw", "stance", "use"):
        (said,) = blocked(press(world, **{action: True}))
        reasons[action] = said.reason
        assert said.text == REASONS[said.reason]
    assert reasons == {"throw": "nothing_to_hold", "stance": "no_bullet", "use": "nothing_to_use"}
    press(world, pull_out=True)  # now holding a piece: pull-out and stance have their hands full
    assert world.actions.held is not None
    assert [b.reason for b in blocked(press(world, pull_out=True) + press(world, stance=True))] == \
        ["hands_full", "hands_full"]


def test_refusals_are_checked():
    with pytest.raises(ParameterError):
        Refusal("punch", "bored", "x")
    with pytest.raises(ParameterError):
        Refusal("fly", "too_hard", "x")


# ------------------------------------------------------------------------------------------------- suck
def test_suck_out_of_reach_keeps_its_gauge_and_says_so_once_per_hold():
    world = arena("soil", spawn_x=1.0)  # the wall 7 m from the eye, suck reaches 6 m
    events = hold(world, 60, suck=True)
    assert world.actions.suck.gauge == 1.0 and not of(events, VoxelsEdited, source="suck")
    (said,) = blocked(events)
    assert (said.action, said.reason, said.text) == ("suck", "out_of_reach", "out of reach: 7.0 m, suck reaches 6 m")
    world.step(Inputs(look=LOOK))  # released: the next hold says it again
    assert len(blocked(hold(world, 10, suck=True))) == 1


def test_an_exhausted_gauge_says_so_once():
    world = arena("soil", ActionSettings(suck=SuckSettings(time_limit=0.25, radius=0.5, material_radius=0.5, step=2)))
    events = hold(world, 40, suck=True)
    assert world.actions.suck.exhausted
    assert [(b.action, b.reason) for b in blocked(events)] == [("suck", "exhausted")]


def test_a_full_gauge_of_suck_on_the_demo_world_stays_within_reach():
    """From 2.3-2.6 m (the ground 40 degrees down, the rock wall 25 degrees down), holding suck until the gauge
    is empty: every frame of it had a surface within reach, and the gauge ran out (it never waited)."""
    for pitch in (-40.0, -25.0):
        world = World.demo(seed=0, npcs=0)
        while world.player.position[0] < 36.0:  # 2.4 m from the rock wall's face
            world.step(Inputs(move=(0.0, 1.0), look=(270.0, 0.0)))
        for _ in range(10):
            world.step(Inputs(look=(270.0, pitch)))
        reach = world.settings.actions.suck.reach
        assert world.aim_info().distance < 2.7
        log, frames = [], 0
        while not world.actions.suck.exhausted:
            log += world.step(Inputs(look=(270.0, pitch), suck=True))
            assert world.aim_info().distance <= reach
            frames += 1
        assert frames <= int(np.ceil(world.settings.actions.suck.time_limit * 60)) + 2  # never waited
        assert [b.reason for b in blocked(log)] == ["exhausted"]
        assert sum(e.volume_removed for e in of(log, VoxelsEdited, kind="scrape")) > 0.5  # it dug (m³)


# ------------------------------------------------------------------------------------------------- tool
@pytest.mark.parametrize("material", ["soil", "rock", "iron"])
def test_break_threshold_is_when_the_voxels_give_way(material):
    """Tool.break_threshold against the gate itself: removing a voxel of ``material`` again and again, the first
    call that lowers it is the one whose accumulated damage reaches the threshold (never when None)."""
    tool = Tool()
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - FLOOR, (8, 24, 8), material, voxel_size=0.25)
    threshold = tool.break_threshold(float(volume.materials[material].hardness))
    calls = None
    for n in range(1, 11):
        if volume.remove(Sphere((1.0, FLOOR, 1.0), 0.5), tool=tool).volume_removed > 0:
            calls = n
            break
    if threshold is None:
        assert calls is None
    else:
        assert calls == max(1, -(-threshold // tool.damage))
