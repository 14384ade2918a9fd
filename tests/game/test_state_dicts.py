"""The game's objects hand over their state (``state_dict``) and take it back (``load_state_dict``); the round trip
through a world file is tests/io's."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.navigation import LOG_LENGTH
from voxelworld.game.world import Inputs, World
from voxelworld.meshing import ChunkMesher
from voxelworld.terrain import Sphere, VoxelVolume


def wall(width: int = 32) -> VoxelVolume:
    return VoxelVolume.from_sdf(lambda x, y, z: np.minimum(y - 2.0, 9.0 - x), (32, 16, width), "soil",
                                voxel_size=0.5, chunk_size=8)


@pytest.fixture(scope="module")
def world():
    world = World(wall(), spawn=(3.0, 2.0, 3.0))
    world.agents.add_enemy("saw", (8.0, 2.0, 8.0))
    for _ in range(5):
        world.step(Inputs(move=(0.0, 1.0)))
    return world


def test_a_world_takes_back_its_state_and_its_collider():
    world = World(wall(96), spawn=(3.0, 2.0, 3.0))
    for _ in range(5):
        world.step(Inputs(move=(0.0, 1.0)))
    twin = World(wall(96), spawn=(3.0, 2.0, 44.0))  # its collider around another spot
    state = world.state_dict()
    assert twin.state_dict()["collider_chunks"] != state["collider_chunks"]
    twin.load_state_dict(state)
    assert twin.frame == world.frame == 5 and twin.time == world.time and twin.inputs == world.inputs
    assert twin.state_dict()["collider_chunks"] == state["collider_chunks"]
    assert np.array_equal(twin.collider.bvh.positions, world.collider.bvh.positions)


def test_the_generator_goes_on_where_it_was(world):
    twin = World(wall(), spawn=(3.0, 2.0, 3.0))
    twin.load_state_dict(world.state_dict())
    assert twin.rng.random(4).tolist() == world.rng.random(4).tolist()


@pytest.mark.parametrize("change, parameter", [
    (lambda s: s.update(rng={"bit_generator": "Dice"}), "state['rng']"),
    (lambda s: s.update(collider_chunks=((0, 0, 9),)), "state['collider_chunks']"),
    (lambda s: s.pop("frame"), "state"),
])
def test_a_bad_world_state_is_refused_and_changes_nothing(world, change, parameter):
    twin = World(wall(), spawn=(3.0, 2.0, 3.0))
    before = twin.state_dict()
    state = world.state_dict()
    change(state)
    with pytest.raises(ParameterError) as error:
        twin.load_state_dict(state)
    assert error.value.parameter == parameter
    after = twin.state_dict()
    assert after["frame"] == before["frame"] == 0 and after["rng"] == before["rng"]


def test_an_enemy_given_another_facing_turns_its_body():
    facing = (1.0, 0.0, 0.3)
    turned = World(wall(), spawn=(3.0, 2.0, 3.0)).agents.add_enemy("saw", (8.0, 2.0, 8.0), facing)
    enemy = World(wall(), spawn=(3.0, 2.0, 3.0)).agents.add_enemy("saw", (8.0, 2.0, 8.0))
    assert not np.array_equal(enemy.motion.world, turned.motion.world)
    enemy.load_state_dict(turned.state_dict())
    assert np.array_equal(enemy.facing, turned.facing)
    assert np.array_equal(enemy.motion.world, turned.motion.world)  # the body faces the new way
    assert enemy.motion.state_dict().keys() == turned.motion.state_dict().keys()


def test_the_navigation_keeps_its_revision_and_a_bounded_log():
    world = World(wall(), spawn=(3.0, 2.0, 3.0))
    navigation = world.agents.navigate()
    navigation.load_state_dict({"revision": 7, "log": [(n, frozenset()) for n in range(LOG_LENGTH + 5)]})
    state = navigation.state_dict()
    assert state["revision"] == 7 and len(state["log"]) == LOG_LENGTH and state["log"][0][0] == 5
    with pytest.raises(ParameterError, match="revision"):
        navigation.load_state_dict({"revision": -1, "log": []})
    assert navigation.state_dict() == state
    assert [p.name for p in navigation.props] == [] and len(navigation.chunk_meshes) == 4 * 2 * 4
    with pytest.raises(TypeError):
        navigation.chunk_meshes[(0, 0, 0)] = None  # a read-only view


def test_a_mesher_tells_what_it_has_seen():
    volume = wall()
    mesher = ChunkMesher(volume)
    assert mesher.state_dict()["behind"] is None and (mesher.state_dict()["seen"] == -1).all()
    mesher.update()
    density = volume.density.copy()
    volume.remove(Sphere((9.0, 2.0, 9.0), 1.0))
    state = mesher.state_dict()
    behind = {tuple(c) for c in np.argwhere(state["seen"] != volume.chunk_versions)}
    assert behind and behind <= volume.dirty_chunks and set(state["behind"]) == behind
    for chunk, fields in state["behind"].items():  # the voxels it meshed, not the current ones
        window = tuple(slice(a, b) for a, b in zip(*volume.chunk_box(chunk)))
        assert np.array_equal(fields["density"], density[window])
    assert any(not np.array_equal(fields["density"], volume.density[tuple(slice(a, b) for a, b in zip(
        *volume.chunk_box(chunk)))]) for chunk, fields in state["behind"].items())
    mesher.update()
    assert mesher.state_dict()["behind"] == {}
    assert np.array_equal(mesher.state_dict()["seen"], volume.chunk_versions)


def test_currency_and_opened_treasures_are_state_and_an_older_state_without_them_still_loads():
    world = World(wall(), spawn=(3.0, 2.0, 3.0))
    world.player.currency, world.actions.opened_treasures = 12.5, (0, 2)
    player_state, actions_state = world.player.state_dict(), world.actions.state_dict()
    assert player_state["currency"] == 12.5 and actions_state["opened_treasures"] == (0, 2)
    twin = World(wall(), spawn=(3.0, 2.0, 3.0))
    twin.player.load_state_dict(player_state)
    twin.actions.load_state_dict(actions_state)
    assert twin.player.currency == 12.5 and twin.actions.opened_treasures == (0, 2)
    older = World(wall(), spawn=(3.0, 2.0, 3.0))  # a file written before currency and opening treasures
    older.player.load_state_dict({k: v for k, v in player_state.items() if k != "currency"})
    older.actions.load_state_dict({k: v for k, v in actions_state.items() if k != "opened_treasures"})
    assert older.player.currency == 0.0 and older.actions.opened_treasures == ()
    assert older.player.stamina == world.player.stamina
    with pytest.raises(ParameterError, match="stamina"):  # a key that was always there is still required
        older.player.load_state_dict({k: v for k, v in player_state.items() if k != "stamina"})
