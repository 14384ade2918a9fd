"""Players who join a world besides its own (game.seats, issue #35 §1): each moves and acts by its own inputs, in
joining order, the same inputs giving the same world; what cannot be done yet is refused clearly."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from voxelworld.errors import FormatError, ParameterError
from voxelworld.game.events import log_hash
from voxelworld.game.level import surface_height
from voxelworld.game.seats import MAX_NAME
from voxelworld.game.world import Inputs, World
from voxelworld.io import load_world, save_world

from ..io.forge import set_in_state, state_row

FORWARD = Inputs(move=(0.0, 1.0))


def demo_with_guest(x_offset: float = 2.0) -> World:
    world = World.demo(seed=0, npcs=0)
    world.join("guest", spawn=world.player.position + (x_offset, 0.0, 0.0))
    return world


def test_each_player_moves_by_its_own_inputs():
    world = demo_with_guest()
    own, guest = world.player.position.copy(), world.joined[0].player.position.copy()
    for _ in range(60):
        world.step([Inputs(), FORWARD])
    assert np.linalg.norm((world.player.position - own)[[0, 2]]) < 0.05  # the world's own player stood
    assert np.linalg.norm((world.joined[0].player.position - guest)[[0, 2]]) > 1.0  # the guest walked a second
    assert [name for name, _ in world.players()] == ["player", "guest"]
    assert world.inputs_of(world.joined[0].player)[0] is not world.inputs
    yaw = world.player.yaw
    world.step([Inputs(), Inputs(look=(90.0, -20.0))])  # the guest turns, the world's own player does not
    assert (world.joined[0].player.yaw, world.joined[0].player.pitch) == (90.0, -20.0) and world.player.yaw == yaw


def test_one_inputs_moves_the_world_s_own_player_and_the_guests_stand():
    world = demo_with_guest()
    guest = world.joined[0].player.position.copy()
    own = world.player.position.copy()
    for _ in range(60):
        world.step(FORWARD)
    assert np.linalg.norm((world.player.position - own)[[0, 2]]) > 1.0
    assert np.linalg.norm((world.joined[0].player.position - guest)[[0, 2]]) < 0.05


def test_the_same_inputs_give_the_same_world_and_whose_punch_it_was_counts():
    def play(first: Inputs, second: Inputs) -> tuple[str, np.ndarray]:
        world = demo_with_guest()
        for frame in range(90):
            look = (270.0, -40.0)
            world.step([Inputs(look=look, punch=frame == 0 and first.punch), Inputs(look=look, punch=frame == 0
                                                                                   and second.punch)])
        return log_hash(world.events), world.volume.density.copy()

    punch = Inputs(punch=True)
    a, b = play(punch, Inputs()), play(punch, Inputs())
    assert a[0] == b[0] and np.array_equal(a[1], b[1])
    c = play(Inputs(), punch)  # the guest punches instead, from 2 m beside the world's own player
    assert c[0] != a[0] and not np.array_equal(c[1], a[1])


def test_a_guest_far_from_the_world_s_own_player_stands_on_the_ground():
    """The collision mesh is kept around every player: a guest across the demo world lands and stays on it."""
    world = World.demo(seed=0, npcs=0)
    far = np.array([44.0, 0.0, 4.0])  # the world's own player at (19.2, 24): 25 m and more than two chunks away
    far[1] = surface_height(world.volume, float(far[0]), float(far[2])) + 0.5
    seat = world.join("far", spawn=far)
    for _ in range(90):
        world.step()
    assert seat.player.grounded
    assert seat.player.position[1] == pytest.approx(far[1] - 0.5, abs=0.3)


@pytest.mark.parametrize("name", ["", "player", "guest", "x" * (MAX_NAME + 1), 7])
def test_a_name_taken_empty_or_too_long_is_refused(name):
    world = demo_with_guest()
    with pytest.raises(ParameterError, match="name"):
        world.join(name)
    assert [n for n, _ in world.players()] == ["player", "guest"]


def test_a_spawn_outside_the_world_is_refused_and_nothing_joins():
    world = World.demo(seed=0, npcs=0)
    with pytest.raises(ParameterError, match="spawn"):
        world.join("guest", spawn=(1e4, 0.0, 0.0))
    assert world.joined == []


@pytest.mark.parametrize("inputs", [[Inputs()], [Inputs()] * 3, [Inputs(), "jump"], "ab"])
def test_a_frame_s_inputs_must_be_one_per_player_and_a_bad_one_changes_nothing(inputs):
    world = demo_with_guest()
    frame, position = world.frame, world.joined[0].player.position.copy()
    with pytest.raises(ParameterError, match="inputs"):
        world.step(inputs)
    assert world.frame == frame and np.array_equal(world.joined[0].player.position, position)


def test_a_world_saved_mid_punch_with_a_guest_plays_on_alike(tmp_path):
    """A save keeps the seats (their characters, actions and inputs) and whose queued edit is whose: saved while
    the guest's punch waits in the queue, the loaded world plays on bit for bit as the one that was not saved."""
    world = demo_with_guest()
    look = (270.0, -40.0)
    world.step([Inputs(look=look), Inputs(look=look, punch=True)])
    while "guest" not in world.queued_by():
        world.step([Inputs(look=look)] * 2)
    save_world(world, tmp_path / "w.vwd")
    loaded = load_world(tmp_path / "w.vwd")
    assert [name for name, _ in loaded.players()] == ["player", "guest"] and loaded.queued_by() == world.queued_by()
    for _ in range(20):
        for w in (world, loaded):
            w.step([Inputs(look=look), Inputs(look=look, move=(0.3, 0.0))])
    assert log_hash(world.events) == log_hash(loaded.events)
    assert np.array_equal(world.volume.density, loaded.volume.density)
    for (_, a), (_, b) in zip(world.players(), loaded.players()):
        assert np.array_equal(a.position, b.position) and a.stamina == b.stamina
    fragments = [o.name for o in loaded.joined[0].actions.objects]
    assert fragments and fragments == [o.name for o in world.joined[0].actions.objects]  # the guest's punch's
    assert not world.actions.objects
    queue = state_row(tmp_path / "w.vwd", "queue")["edits"]
    by = [row.get("by") for row in queue]
    assert by.count("guest") == 1 and set(by) <= {"guest", None}  # the enemy's carves: no player's
    for name in ("nobody", 7):  # an edit by a player the file does not seat
        set_in_state(tmp_path / "w.vwd", "queue", ["edits", by.index("guest"), "by"], name)
        with pytest.raises(FormatError, match="queue"):
            load_world(tmp_path / "w.vwd")


def test_a_file_s_seat_with_a_name_taken_is_refused(tmp_path):
    world = demo_with_guest()
    save_world(world, tmp_path / "w.vwd")
    assert state_row(tmp_path / "w.vwd", "joined")["seats"][0]["name"] == "guest"
    for name in ("player", "", 7):
        set_in_state(tmp_path / "w.vwd", "joined", ["seats", 0, "name"], name)
        with pytest.raises(FormatError, match="joined"):
            load_world(tmp_path / "w.vwd")


def test_a_world_without_guests_saves_no_joined_row(tmp_path):
    world = World.demo(seed=0, npcs=0)
    save_world(world, tmp_path / "w.vwd")
    with sqlite3.connect(tmp_path / "w.vwd") as db:
        names = {name for (name,) in db.execute("SELECT name FROM state")}
    assert "joined" not in names and "queue" in names
    assert load_world(tmp_path / "w.vwd").joined == []
