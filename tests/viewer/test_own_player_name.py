"""The name a page asks for sticks to the world's own player (issue #35): the first page to play takes the world's
own player, renamed as it asks when no page named it before (``game.seats.rename_own``); names stay unique, whose
queued edits are whose follows, and a save keeps the name (a file from before loads as ``player``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from voxelworld.errors import FormatError, ParameterError
from voxelworld.game.events import log_hash
from voxelworld.game.seats import rename_own
from voxelworld.game.world import Inputs, World
from voxelworld.io import load_world, save_world
from voxelworld.viewer.frame_messages import actor_poses
from voxelworld.viewer.server import PlayServer

from ..io.forge import set_in_state, state_row


def test_the_first_page_s_name_sticks_to_the_world_s_own_player_and_no_later_page_renames_it():
    world = World.demo(seed=0, npcs=0)
    play = PlayServer(world)
    play.encode_all()
    assert play._player_for("Ann") == "Ann"  # (the world thread's part of seating a page)
    assert [name for name, _ in world.players()] == ["Ann"]
    packet = play.step_frame({"Ann": Inputs()})
    assert packet.own == "Ann" and set(packet.views) == {"Ann"}
    assert json.loads(packet.frame_text)["player"]["name"] == "Ann"
    assert [pose.name for pose in actor_poses(world) if pose.kind == "player"] == ["Ann"]
    play._claimed.clear()  # its page went and its seat with it: the world's own waits for the next page
    assert play._player_for("Bob") == "Ann"  # named by a page before: it keeps its name
    assert play._player_for("Cy") == "Cy" and [name for name, _ in world.players()] == ["Ann", "Cy"]


def test_a_name_another_player_has_is_not_given_to_the_world_s_own():
    world = World.demo(seed=0, npcs=0)
    world.join("Ann", spawn=world.player.position + (2.0, 0.0, 0.0))
    play = PlayServer(world)
    assert play._player_for("Ann") == "player"  # the world's own first, under its own name
    with pytest.raises(ParameterError, match="no other player has"):
        rename_own(world, "Ann")
    for bad in ("", "x" * 33, 7):
        with pytest.raises(ParameterError, match="name"):
            rename_own(world, bad)
    assert [name for name, _ in world.players()] == ["player", "Ann"]


def test_a_renamed_own_player_and_a_guest_named_player_save_load_and_play_on_alike(tmp_path):
    world = World.demo(seed=0, npcs=0)
    look = (270.0, -40.0)
    world.step([Inputs(look=look, punch=True)])
    while "player" not in world.queued_by():  # the world's own punch waits in the queue
        world.step([Inputs(look=look)])
    rename_own(world, "Ann")
    assert "Ann" in world.queued_by() and "player" not in world.queued_by()  # its queued edits are still its own
    world.join("player", spawn=world.player.position + (2.0, 0.0, 0.0), spawn_yaw=270.0)  # the name is free now
    world.step([Inputs(look=look), Inputs(look=look, punch=True)])
    while "player" not in world.queued_by():
        world.step([Inputs(look=look)] * 2)
    save_world(world, tmp_path / "w.vwd")
    assert state_row(tmp_path / "w.vwd", "player")["name"] == "Ann"
    by = {row.get("by") for row in state_row(tmp_path / "w.vwd", "queue")["edits"]}
    assert "player" in by and "Ann" not in by  # the guest's named; the world's own player's not
    loaded = load_world(tmp_path / "w.vwd")
    assert [name for name, _ in loaded.players()] == ["Ann", "player"] and loaded.queued_by() == world.queued_by()
    for _ in range(20):
        for w in (world, loaded):
            w.step([Inputs(look=look), Inputs(look=look, move=(0.3, 0.0))])
    assert log_hash(world.events) == log_hash(loaded.events)
    assert np.array_equal(world.volume.density, loaded.volume.density)
    for bad in ("player", "x" * 40):  # a joined player's name, a name too long
        set_in_state(tmp_path / "w.vwd", "player", ["name"], bad)
        with pytest.raises(FormatError, match="'player'"):
            load_world(tmp_path / "w.vwd")


def test_a_world_whose_own_player_no_page_named_saves_no_name(tmp_path):
    world = World.demo(seed=0, npcs=0)
    save_world(world, tmp_path / "w.vwd")
    assert "name" not in state_row(tmp_path / "w.vwd", "player")
    assert [name for name, _ in load_world(tmp_path / "w.vwd").players()] == ["player"]
