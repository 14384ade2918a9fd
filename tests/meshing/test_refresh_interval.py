"""ChunkMesher's ``refresh_interval``: a chunk changed again within that many updates of the update that last took
its changes waits for the rest of them; its changes meanwhile land together, and the meshes are then those of a
mesher that took every change at once, bit for bit. A chunk changed once is taken by the next update; chunks wait
each on their own; the waits are part of the mesher's state (a twin given it remeshes when the first does)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.meshing.test_mesher_state import OPTIONS, mesh_bytes, terrain
from voxelworld.errors import ParameterError
from voxelworld.meshing import ChunkMesher
from voxelworld.terrain import Sphere


def scrape(volume, n: int) -> None:
    """The n-th scrape of a dig that goes on every frame, into the ground inside chunk (0, 0, 0) of 8 samples
    (its upper neighbours' cells read from sample 7 on)."""
    volume.remove(Sphere((3.5, 4.5 - 0.25 * n, 3.5), 1.5))


def dug_once() -> tuple:
    """A volume and its mesher (interval 3) whose last update took the first scrape."""
    volume = terrain()
    mesher = ChunkMesher(volume, options=OPTIONS, refresh_interval=3)
    mesher.update()
    scrape(volume, 0)
    assert mesher.update().surfaces_rebuilt == {(0, 0, 0)}
    return volume, mesher


def test_a_chunk_dug_every_update_is_remeshed_every_interval():
    volume = terrain()
    mesher = ChunkMesher(volume, options=OPTIONS, refresh_interval=3)
    mesher.update()
    rebuilt = []
    for n in range(9):
        scrape(volume, n)
        rebuilt.append(mesher.update().surfaces_rebuilt)
    assert [bool(r) for r in rebuilt] == [True, False, False] * 3  # the first at once, then every third
    assert all(r == {(0, 0, 0)} for r in rebuilt if r)


def test_changes_that_waited_give_the_meshes_of_taking_each_at_once():
    volume, every = terrain(), terrain()
    waiting = ChunkMesher(volume, options=OPTIONS, refresh_interval=3)
    at_once = ChunkMesher(every, options=OPTIONS)
    waiting.update(), at_once.update()
    for n in range(4):  # taken at the first and fourth update: the second and third wait
        scrape(volume, n), scrape(every, n)
        waiting.update(), at_once.update()
        if n in (1, 2):
            assert mesh_bytes(waiting) != mesh_bytes(at_once)  # behind: the meshes of the first scrape
    assert mesh_bytes(waiting) == mesh_bytes(at_once)
    fresh = ChunkMesher(volume, options=OPTIONS)
    fresh.update()
    assert mesh_bytes(waiting) == mesh_bytes(fresh)


def test_each_chunk_waits_on_its_own():
    volume, mesher = dug_once()
    scrape(volume, 1)
    volume.remove(Sphere((19.5, 4.5, 19.5), 1.5))  # inside chunk (2, 0, 2), untouched so far
    assert mesher.update().surfaces_rebuilt == {(2, 0, 2)}  # (0, 0, 0) waits, (2, 0, 2) is taken at once
    mesher.update()
    assert mesher.update().surfaces_rebuilt == {(0, 0, 0)}  # three updates after it was last taken


def test_a_change_after_a_quiet_interval_is_taken_at_once():
    volume, mesher = dug_once()
    mesher.update(), mesher.update()  # nothing changed meanwhile
    scrape(volume, 1)
    assert mesher.update().surfaces_rebuilt == {(0, 0, 0)}


@pytest.mark.parametrize("waited", [0, 1])
def test_the_waits_go_with_the_state(waited):
    """A twin given the state mid-wait remeshes when the first does and makes the same meshes."""
    volume, mesher = dug_once()
    for n in range(1, 1 + waited):  # (waits)
        scrape(volume, n)
        mesher.update()
    state = mesher.state_dict()
    assert state["taken"] == {(0, 0, 0): waited}
    twin = ChunkMesher(volume, options=OPTIONS, refresh_interval=3)
    twin.load_state_dict(state)
    assert mesh_bytes(twin) == mesh_bytes(mesher)
    for n in range(1 + waited, 8):
        scrape(volume, n)
        assert twin.update().surfaces_rebuilt == mesher.update().surfaces_rebuilt
        assert mesh_bytes(twin) == mesh_bytes(mesher)


def test_a_state_without_waits_waits_for_nothing():
    volume, mesher = dug_once()
    state = mesher.state_dict()
    del state["taken"]  # (a state handed over before the waits were)
    twin = ChunkMesher(volume, options=OPTIONS, refresh_interval=3)
    twin.load_state_dict(state)
    scrape(volume, 1)
    assert twin.update().surfaces_rebuilt == {(0, 0, 0)}


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "3", None])
def test_a_bad_interval_is_refused(bad):
    with pytest.raises(ParameterError, match="refresh_interval"):
        ChunkMesher(terrain(), options=OPTIONS, refresh_interval=bad)


@pytest.mark.parametrize("taken, named", [
    ([((0, 0, 0), 1)], "state['taken']"),  # not a mapping
    ({(0, 0): 1}, "state['taken']"),
    ({(3, 0, 0): 1}, "state['taken']"),  # outside the grid (3 x 2 x 3)
    ({(0, 0, 0): -1}, "state['taken'][(0, 0, 0)]"),
    ({(0, 0, 0): 0.5}, "state['taken'][(0, 0, 0)]"),
])
def test_bad_waits_are_refused_and_change_nothing(taken, named):
    volume = terrain()
    mesher = ChunkMesher(volume, options=OPTIONS, refresh_interval=3)
    mesher.update()
    scrape(volume, 0)
    state = mesher.state_dict()
    twin = ChunkMesher(volume, options=OPTIONS, refresh_interval=3)
    twin.update()
    before, seen = mesh_bytes(twin), twin.state_dict()["seen"]
    with pytest.raises(ParameterError, match=re.escape(named)):
        twin.load_state_dict(state | {"taken": taken})
    assert mesh_bytes(twin) == before and np.array_equal(twin.state_dict()["seen"], seen)


def test_a_change_that_waits_is_taken_though_nothing_changes_after_it():
    volume, mesher = dug_once()
    scrape(volume, 1)  # the last change: it waits
    assert not mesher.update().surfaces_rebuilt
    assert not mesher.update().surfaces_rebuilt
    assert mesher.update().surfaces_rebuilt == {(0, 0, 0)}
    fresh = ChunkMesher(volume, options=OPTIONS)
    fresh.update()
    assert mesh_bytes(mesher) == mesh_bytes(fresh)


def test_the_changes_taken_are_told_with_where_they_lie():
    """``taken_changes``: the chunk of voxels whose changes an update took, and the sample box they lie in (a
    change that waited included, with the one taken with it)."""
    volume, mesher = dug_once()
    assert set(mesher.taken_changes) == {(0, 0, 0)}
    scrape(volume, 1)
    mesher.update()
    assert mesher.taken_changes == {}  # (waits)
    volume.remove(Sphere((3.5, 2.0, 6.5), 0.8))
    mesher.update(), mesher.update()
    (lo, hi), = mesher.taken_changes.values()
    assert lo[2] <= 2 and hi[2] >= 7 and lo[1] <= 2  # the scrape's (z 2..5) and the later dig's (z 6..7, y 1..3)
