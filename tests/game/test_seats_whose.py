"""Whose it is (issue #35 §1): in a world with several players every event says which player's part of the frame
made it, each player buys with its own currency and reaches its own goals, and the end of a play sums up each
player's own."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from voxelworld.errors import FormatError, ParameterError
from voxelworld.game.actions import ball_object
from voxelworld.game.events import (
    ActionStarted,
    Footstep,
    GoalReached,
    Jumped,
    PlayEnded,
    TreasureOpened,
    UpgradeBought,
    VoxelsEdited,
    event_text,
)
from voxelworld.game.follow_camera import follow_camera
from voxelworld.game.objects import WorldObject
from voxelworld.game.progress import Progress
from voxelworld.game.seats import MAX_NAME
from voxelworld.game.world import Inputs, World
from voxelworld.io import load_world, save_world

from ..io.forge import checksum, state_row, write_state_text
from .test_play import FLOOR, LOOK, arena, of
from .test_use import BURIED, dig_to_the_treasure, treasure_world

FORWARD = Inputs(move=(0.0, 1.0))


def test_each_player_s_events_name_it_and_an_edit_s_event_names_whose_action_made_it():
    world = arena("rock", spawn_x=6.0)
    world.join("guest", spawn=(6.0, 4.0, 5.5), spawn_yaw=270.0)
    for _ in range(5):  # both stand
        world.step([Inputs(look=LOOK), Inputs(look=LOOK)])
    log = world.step([Inputs(look=LOOK, jump=True), Inputs(look=LOOK, punch=True)])
    for _ in range(40):
        log += world.step([Inputs(look=LOOK), Inputs(look=LOOK)])
    assert {e.player for e in of(log, Jumped)} == {"player"}  # only the world's own player jumped
    assert {e.player for e in of(log, ActionStarted)} == {"guest"}  # only the guest punched
    edited = of(log, VoxelsEdited)
    assert edited and {e.player for e in edited} == {"guest"}  # the guest's punch removed the rock
    assert "|VoxelsEdited|player=guest|" in event_text(edited[0])


def test_a_footstep_is_the_walker_s_and_no_player_s_event_text_reads_as_before():
    world = arena("rock", spawn_x=5.0)
    world.join("guest", spawn=(5.0, 4.0, 5.5), spawn_yaw=270.0)
    log = [e for _ in range(60) for e in world.step([Inputs(look=LOOK), Inputs(look=LOOK, move=(0.0, 1.0))])]
    assert of(log, Footstep) and {e.player for e in of(log, Footstep)} == {"guest"}
    assert event_text(Footstep(frame=1, time=0.5, material="rock", position=(1.5, 2.0, 3.25))) == \
        "1|0.5|Footstep|material=rock|position=(1.5,2.0,3.25)|sound="


def test_a_guest_buys_with_its_own_currency_and_reaches_its_own_goal():
    world = arena("iron", spawn_x=4.0)
    guest = world.join("guest", spawn=(7.0, 4.0, 5.5), spawn_yaw=270.0)
    guest.player.add_currency(5.0)
    world.player.add_currency(1.0)
    events = world.step([Inputs(look=LOOK), Inputs(look=LOOK, buy="punch_damage")])
    bought = of(events, UpgradeBought)
    assert [(e.player, e.upgrade, e.cost) for e in bought] == [("guest", "punch_damage", 2.0)]
    assert guest.player.currency == 3.0 and guest.player.progress.level("punch_damage") == 1
    assert world.player.currency == 1.0 and world.player.progress == Progress()
    log = [e for _ in range(60) for e in world.step([Inputs(look=LOOK), Inputs(look=LOOK, move=(0.0, 1.0))])]
    assert "iron" in guest.player.touching and "iron" not in world.player.touching
    assert [(g.player, g.goal) for g in of(log, GoalReached)] == [("guest", "reach_iron")]
    assert guest.player.progress.goals == ("reach_iron",) and world.player.progress.goals == ()


def test_the_end_of_a_play_sums_up_every_player_s_own():
    world = arena("rock", spawn_x=6.0)
    guest = world.join("guest", spawn=(6.0, 4.0, 5.5), spawn_yaw=270.0)
    guest.player.add_currency(7.0)
    world.step([Inputs(look=LOOK), Inputs(look=LOOK)])
    own = world.end("finished")
    summaries = of(world.events, PlayEnded)
    assert own is summaries[0] and [(s.player, s.currency) for s in summaries] == [("player", 0.0), ("guest", 7.0)]


def test_a_saved_log_keeps_whose_each_event_is_and_a_bad_name_is_refused(tmp_path):
    world = World.demo(seed=0, npcs=0)
    world.join("guest", spawn=world.player.position + (2.0, 0.0, 0.0))
    for _ in range(30):
        world.step([Inputs(jump=True), FORWARD])
    path = tmp_path / "two.vwd"
    save_world(world, path)
    loaded = load_world(path)
    assert [e.player for e in loaded.events] == [e.player for e in world.events]
    assert {"player", "guest"} <= {e.player for e in loaded.events}
    connection = sqlite3.connect(path)
    data = json.loads(connection.execute("SELECT json FROM events WHERE seq = 3").fetchone()[0])
    for bad in (7, "x" * (MAX_NAME + 1)):
        text = json.dumps(data | {"player": bad})
        connection.execute("UPDATE events SET json = ?, sha256 = ? WHERE seq = 3",
                           (text, checksum("event 3", text.encode("utf-8"))))
        connection.commit()
        with pytest.raises(FormatError, match=r"events\[3\]\.player"):
            load_world(path)
    connection.close()


def test_every_player_is_posed_from_its_own_actions():
    world = arena("lava", spawn_x=4.0)
    guest = world.join("guest", spawn=(4.0, 4.0, 6.0), spawn_yaw=270.0)
    guest.actions.held = WorldObject("ball", "bullet", ball_object(world.volume, "rock", 0.3, (0.0, 0.0, 0.0)))
    world.step([Inputs(look=LOOK), Inputs(look=LOOK, throw=True)])
    world.step([Inputs(look=LOOK, move=(0.0, 1.0)), Inputs(look=LOOK)])
    posed = {pose.name: pose for pose in world.snapshot().characters if pose.kind == "player"}
    assert sorted(posed) == ["guest", "player"]
    assert posed["guest"].action == "throw" and posed["player"].action == ""  # the guest threw, not the host
    assert posed["guest"].position == tuple(float(v) for v in guest.player.position)
    assert posed["player"].position == tuple(float(v) for v in world.player.position)


def test_a_guest_who_leaves_takes_its_character_hooks_and_unapplied_edits_with_it():
    world = arena("rock", spawn_x=6.0)
    guest = world.join("guest", spawn=(6.0, 4.0, 5.5), spawn_yaw=270.0)
    hooks = sum(len(h) for h in world._handlers.values()), len(world._focus_sources), len(world._object_sources)
    world.step([Inputs(look=LOOK), Inputs(look=LOOK)])
    world.step([Inputs(look=LOOK), Inputs(look=LOOK, suck=True)])  # its suck queues edits for the next frame
    assert "guest" in world.queued_by()
    with pytest.raises(ParameterError, match="player"):
        world.leave("player")  # the world's own player never leaves
    assert world.leave("guest") is guest and [name for name, _ in world.players()] == ["player"]
    assert "guest" not in world.queued_by()
    assert (sum(len(h) for h in world._handlers.values()), len(world._focus_sources), len(world._object_sources)) \
        == (hooks[0] - 5, hooks[1] - 1, hooks[2] - 1)  # act, book, move objects, buy, goals; focus; objects
    log = [e for _ in range(5) for e in world.step(Inputs(look=LOOK))]
    assert not [e for e in log if e.player == "guest"]
    with pytest.raises(ParameterError, match="guest"):
        world.leave("guest")
    world.join("guest", spawn=(6.0, 4.0, 5.5))  # the name is free again


def test_the_aim_and_the_camera_are_each_player_s_own():
    world = arena("rock", spawn_x=6.0)
    guest = world.join("guest", spawn=(3.0, 4.0, 5.5), spawn_yaw=90.0)  # looking away from the wall
    world.step([Inputs(look=LOOK), Inputs(look=(90.0, 0.0))])
    own, theirs = world.aim_info(), world.aim_info(actions=guest.actions)
    assert own is not None and own.material == "rock"
    assert theirs is None or theirs.point[0] < 3.0  # the guest looks along -x, away from the rock wall
    assert follow_camera(world, player=guest.player).position != follow_camera(world).position


def test_a_treasure_belongs_to_whoever_opens_it():
    """The world's own player's treasure (placed for it) opened by a guest standing where the host stood: it pays
    the guest, counts as the guest's, and is gone for both; a save keeps who took how many."""
    world = treasure_world("iron")
    dig_to_the_treasure(world)
    guest = world.join("guest", spawn=(6.5, FLOOR, 4.0), spawn_yaw=270.0)
    world.player.position = np.array([6.5, FLOOR, 6.5])  # the host steps aside
    for _ in range(3):
        world.step([Inputs(), Inputs(look=LOOK)])
    d = np.array(BURIED) - guest.player.eye  # the guest's view at the treasure
    look = (float(np.degrees(np.arctan2(-d[0], -d[2])) % 360.0),
            float(np.degrees(np.arctan2(d[1], np.hypot(d[0], d[2])))))
    before = guest.player.currency
    log = world.step([Inputs(), Inputs(look=look, use=True)])
    for _ in range(3):
        log += world.step([Inputs(), Inputs(look=look)])
    opened = of(log, TreasureOpened)
    assert [(e.player, e.name) for e in opened] == [("guest", "treasure-0")]
    assert guest.player.currency > before and world.player.currency == 0.0
    assert (guest.actions.treasures_taken, world.actions.treasures_taken) == (1, 0)
    assert world.actions.opened_treasures == (0,) and world.actions.closed_treasures() == []
    assert world.end("finished").treasures_opened == 0 and of(world.events, PlayEnded)[-1].treasures_opened == 1


def test_a_file_from_before_counts_the_treasures_its_player_opened_as_taken(tmp_path):
    world = treasure_world("iron")
    world.actions.opened_treasures = (0,)  # opened before treasures could be anyone's
    path = tmp_path / "old.vwd"
    save_world(world, path)
    data = state_row(path, "actions")
    assert data.pop("treasures_taken") == 0
    write_state_text(path, "actions", json.dumps(data))
    assert load_world(path).actions.treasures_taken == 1
