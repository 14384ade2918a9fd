"""The player's shovel (game.shovel, issue 32 §1): dig held digs the ground in front of the feet, slowed by what the
blade cuts, its removals booked like a punch's, one tool motion at a time, saved mid-dig."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.events import ActionBlocked, ActionEnded, ActionOutcome, ActionStarted, VoxelsEdited
from voxelworld.game.poses import character_rig
from voxelworld.game.world import Inputs, World
from voxelworld.motion import quaternions as quat
from voxelworld.terrain import Box, VoxelVolume

from .test_play import FLOOR, LOOK, arena, of


def dig(world, frames, held=True, **buttons):
    events = []
    for frame in range(frames):
        events += world.step(Inputs(look=LOOK, dig=held, **{k: v == frame for k, v in buttons.items()}))
    return events


def one_dig(world):
    """Hold dig for one frame and play the dig out: (frames, per-frame (rates, contact material))."""
    records = []
    world.step(Inputs(look=LOOK, dig=True))
    frames = 1
    while world.actions.shovel.busy:
        motion = world.actions.shovel.motion
        records.append((motion.rates.copy(), None if motion.contact is None else motion.contact.material))
        world.step(Inputs(look=LOOK))
        frames += 1
        assert frames < 600
    return frames, records


def test_holding_dig_digs_the_ground_in_front_of_the_feet_and_books_it():
    world = arena("soil", spawn_x=4.0)
    before, groups = world.volume.solid_volume(), world.achievements()
    events = dig(world, 240)
    removed = before - world.volume.solid_volume()
    assert removed > 0.2
    started, ended = of(events, ActionStarted, action="dig"), of(events, ActionEnded, action="dig")
    assert len(started) >= 2 and ended[0].outcome == "done"  # (a later dig may find the hole: step forward)
    dug = [e for e in events if isinstance(e, ActionOutcome) and e.kind == "dig"]
    assert dug and {e.material for e in dug} == {"soil"}
    assert sum(e.amount for e in dug) == pytest.approx(sum(e.volume_removed for e in of(events, VoxelsEdited,
                                                                                          source="shovel")))
    assert world.achievements()["soil"] > groups.get("soil", 0.0)
    hole = [e.position for e in dug]
    feet = world.player.position
    assert all(0.0 < p[0] - feet[0] < 1.5 and p[1] < FLOOR + 0.2 for p in hole)  # ahead of the feet, in the ground
    events = dig(world, 200, held=False)  # let go: the dig playing ends, no other starts
    assert not of(events, ActionStarted, action="dig") and not world.actions.shovel.busy


def test_a_dig_into_rock_lasts_longer_than_into_soil_and_slows_the_blade_below_the_hips():
    soil, _ = one_dig(arena("soil", spawn_x=4.0))
    world = arena("rock", spawn_x=4.0)
    world.volume.remove(Box((4.2, 0.0, 0.0), (6.0, FLOOR, 8.0)))
    world.volume.add(Box((4.2, 0.0, 0.0), (6.0, FLOOR, 8.0)), "rock")  # rock under the blade
    rock, records = one_dig(world)
    assert rock > soil > 1.6 * 60  # the dig's 1.6 s, slowed
    motion = world.actions.shovel._own()
    held = [rates for rates, material in records if material == "rock"]
    assert held and all(rates[motion.wrist] < rates[motion.root] <= 0.1 + 1e-9 for rates in held)


def test_a_dig_over_a_pit_meets_no_ground_and_says_so():
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - FLOOR, (64, 40, 32), "soil", voxel_size=0.25, chunk_size=16)
    volume.remove(Box((4.3, 0.0, 0.0), (8.0, FLOOR + 1.0, 8.0)))  # the ground ends 0.3 m ahead of the feet
    world = World(volume, None, spawn=(4.0, FLOOR, 4.0), spawn_yaw=270.0)
    events = dig(world, 1) + dig(world, 200, held=False)
    (said,) = of(events, ActionBlocked, action="dig")
    assert said.reason == "no_ground" and "nothing to dig" in said.text
    assert of(events, ActionEnded, action="dig", outcome="missed")


def test_one_tool_motion_at_a_time_a_punch_waits_for_the_dig():
    world = arena("soil", spawn_x=4.0)
    events = dig(world, 10, punch=5)
    assert world.actions.shovel.busy and not world.actions.strike.busy and world.actions.strike.queued == "punch"
    while world.actions.shovel.busy:
        events += world.step(Inputs(look=LOOK, dig=True))
    events += world.step(Inputs(look=LOOK, dig=True))  # dig held, but the kept punch goes first
    assert world.actions.strike.busy and not world.actions.shovel.busy
    assert len(of(events, ActionStarted, action="punch")) == 1


def test_the_player_bends_over_its_shovel():
    world = arena("soil", spawn_x=4.0)
    world.step(Inputs(look=LOOK))
    rest = world.snapshot().characters[0].local_rotations()
    dig(world, 40)  # the drive: the chest bends forward
    bent = world.snapshot().characters[0].local_rotations()
    chest = character_rig().skeleton.index("torso_joint_3")
    assert quat.angle_degrees(rest[chest], bent[chest]) > 12.0


def test_a_world_saved_mid_dig_digs_on_alike(tmp_path):
    from voxelworld.io import load_world, save_world

    world = arena("soil", spawn_x=4.0)
    for _ in range(200):
        world.step(Inputs(look=LOOK, dig=True))
        if any(e.source == "shovel" for e in world.queued_edits):
            break
    assert world.actions.shovel.busy and any(e.source == "shovel" for e in world.queued_edits)
    save_world(world, tmp_path / "dig.vxw")
    loaded = load_world(tmp_path / "dig.vxw")
    for frame in range(150):
        inputs = Inputs(look=LOOK, dig=frame < 100)
        assert world.step(inputs) == loaded.step(inputs)
    assert world.voxel_hash() == loaded.voxel_hash()


def test_a_bad_shovel_state_is_refused_before_anything_changes():
    world = arena("soil", spawn_x=4.0)
    dig(world, 5)
    state = world.actions.state_dict()
    shovel = dict(state["shovel"])
    for key, value in (("digging", "yes"), ("contacts", -1), ("motion", None), ("held", float("nan"))):
        with pytest.raises(ParameterError, match=key):
            world.actions.load_state_dict(state | {"shovel": shovel | {key: value}})
    assert world.actions.shovel.busy and np.isfinite(world.actions.shovel.held)
