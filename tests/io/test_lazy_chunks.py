"""A large world's chunks stay in its world file until something reads them, and go back to it when the actors move
away, once saved: nothing edited is ever lost by unloading (digging, walking away far enough to unload, walking
back gives the same voxels and meshes), and a file changed by another writer is never read as the world's."""

from __future__ import annotations

import os
import sqlite3

import numpy as np
import pytest

from voxelworld.errors import FormatError
from voxelworld.game.streaming import UNLOAD_MARGIN_CHUNKS
from voxelworld.game.world import Inputs, World
from voxelworld.io import load_world, save_world
from voxelworld.terrain import FIELDS, GeneratorSettings, Sphere, Tool

from ..game.test_streaming import assert_meshes_are_fresh
from .streaming_world import STREAMING, saved_streaming_world

GROUND = GeneratorSettings(size=160.0, height=48.0, ground_level=20.0, hill_height=4.0, cliff_strength=0.0, seed=3)
DIG = Tool(gives_way_below=20.0, unbreakable_from=20.0)


@pytest.fixture(scope="module")
def world_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("lazy") / "world.vwd"
    return path, saved_streaming_world(GROUND, path).voxel_hash()


def walk(world: World, yaw: float, frames: int, until) -> None:
    for _ in range(frames):
        world.step(Inputs(move=(0.0, 1.0), look=(yaw, 0.0), sprint=True))
        if until(world):
            return
    raise AssertionError(f"not there after {frames} frames: the player at {world.player.position}")


def chunk_distance(world: World, chunk) -> float:
    lo, hi = (world.volume.index_to_world(corner) for corner in world.volume.chunk_box(chunk))
    nearest = np.clip(world.player.position, lo, hi)
    return float(np.linalg.norm((world.player.position - nearest)[[0, 2]]))


def in_store(world: World, chunk) -> bool:
    return any(world.volume.left_in_store(chunk, name) for name in FIELDS)


def test_a_loaded_world_reads_only_what_it_uses(world_file):
    path, saved_hash = world_file
    world = load_world(path)
    volume = world.volume
    assert volume.resident_chunks() == 0 < volume.stored_chunks()  # the world's own voxels: all in the file
    assert world.mesher.meshes  # the view was meshed from chunks read for it
    assert world.voxel_hash() == saved_hash and volume.resident_chunks() == 0  # hashing reads through


def test_what_was_dug_survives_unloading_and_loads_again(world_file, tmp_path):
    path = tmp_path / "dug.vwd"
    path.write_bytes(world_file[0].read_bytes())
    world = load_world(path)
    volume = world.volume
    spot = world.player.position + np.array([2.0, -1.0, 0.0])
    volume.remove(Sphere(tuple(spot), 2.5), tool=DIG)
    world.step(Inputs())
    dug_hash = world.voxel_hash()
    chunk = tuple(int(c) for c in volume.world_to_index(spot) // volume.chunk_size)
    assert not in_store(world, chunk)
    unload = STREAMING.view_distance + UNLOAD_MARGIN_CHUNKS * volume.chunk_size * volume.voxel_size
    # Walk away beyond the distance chunks are let go of: the dug chunk is not saved, so it stays in memory ...
    walk(world, 90.0, 1500, until=lambda w: chunk_distance(w, chunk) > unload + 4.0)
    assert not world.mesher.active[chunk] and not in_store(world, chunk)
    resident = volume.resident_chunks()
    # ... until it is saved: then it goes back to the file, with the rest of what is far.
    assert save_world(world, path).chunks_written > 0
    walk(world, 90.0, 120, until=lambda w: in_store(w, chunk))
    assert volume.resident_chunks() < resident
    # Back: the dig is read from the file, in the voxels and in the meshes.
    walk(world, 270.0, 1500, until=lambda w: np.linalg.norm((w.player.position - spot)[[0, 2]]) < 4.0)
    for _ in range(30):
        world.step(Inputs())
    assert world.voxel_hash() == dug_hash and world.mesher.active[chunk]
    assert_meshes_are_fresh(world)  # (once the display work owed has landed)
    assert chunk in world.mesher.meshes
    assert load_world(path).voxel_hash() == dug_hash


def test_saving_elsewhere_copies_the_chunks_left_in_the_file(world_file, tmp_path):
    path, saved_hash = world_file
    original = tmp_path / "original.vwd"
    original.write_bytes(path.read_bytes())
    world = load_world(original)
    world.volume.remove(Sphere(tuple(world.player.position + [0.0, -1.0, 3.0]), 2.0), tool=DIG)
    world.step(Inputs())
    copy = tmp_path / "copy.vwd"
    report = save_world(world, copy)
    assert report.full and report.chunks_written == report.chunk_count
    assert world.volume.store.path == copy.resolve()  # what is let go of now goes back to the copy
    original.unlink()
    assert load_world(copy).voxel_hash() == world.voxel_hash() != saved_hash
    os.utime(copy, ns=(1, 1))  # the file looks changed: the next save writes it whole, in place
    assert save_world(world, copy).full
    assert load_world(copy).voxel_hash() == world.voxel_hash()


def test_a_file_another_writer_changed_is_not_read_as_the_worlds(world_file, tmp_path):
    path = tmp_path / "shared.vwd"
    path.write_bytes(world_file[0].read_bytes())
    world = load_world(path)
    volume = world.volume
    chunk = next(c for c in np.ndindex(volume.chunk_grid_shape)
                 if volume.left_in_store(c, "density") and not world.mesher.active[c])
    other = load_world(path)  # another writer: digs that chunk and saves
    lo, hi = (other.volume.index_to_world(corner) for corner in other.volume.chunk_box(chunk))
    other.volume.remove(Sphere(tuple((lo + hi) / 2), 3.0), tool=DIG)
    save_world(other, path)
    with pytest.raises(FormatError, match=r"chunk \(.*\) field 'density'.*changed since this world read"):
        volume.read_window(*volume.chunk_box(chunk))
    assert volume.left_in_store(chunk, "density")  # nothing half-read
    with sqlite3.connect(path) as connection:  # and a save of this world refuses before it writes
        before = connection.execute("SELECT COUNT(*), SUM(version) FROM chunks").fetchone()
    with pytest.raises(FormatError, match="changed since"):
        save_world(world, path)
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT COUNT(*), SUM(version) FROM chunks").fetchone() == before


def test_the_mesher_lets_go_of_far_voxels_and_reads_them_again_for_a_new_level(world_file, tmp_path):
    """ChunkMesher.let_go_of_far: the mesher's copy of the voxels of far chunks goes back to the world file (counted);
    a later change of their level reads them from it again, and the meshes are a fresh mesher's, bit for bit."""
    path = tmp_path / "far.vwd"
    path.write_bytes(world_file[0].read_bytes())
    world = load_world(path)
    mesher = world.mesher
    fields = mesher._fields
    held = fields.resident_chunks()
    far = mesher.active.copy()
    far[: far.shape[0] // 2] = False  # half the chunks meshed
    assert mesher.let_go_of_far(far) > 0
    assert fields.resident_chunks() < held
    assert not (fields.resident_mask() & far & mesher.active).any()
    dug = world.player.position + np.array([2.0, -1.0, 0.0])  # an edit near the player: not let go of (not saved)
    world.volume.remove(Sphere(tuple(dug), 2.0), tool=DIG)
    world.step(Inputs())
    levels = mesher.detail_levels
    levels[far & mesher.active] = np.maximum(levels[far & mesher.active] - 1, 0)  # new levels there
    mesher.defer_changes(mesher.active, levels)
    while mesher.owes_display:
        owed = sorted(map(tuple, np.argwhere(mesher.owed_surfaces | mesher.owed_meshes).tolist()))
        mesher.apply_changes(mesher.prepare_deferred(owed))
        mesher.update()
    assert_meshes_are_fresh(world)


def test_rows_read_lately_are_read_once_and_shared_read_only(world_file, monkeypatch):
    world = load_world(world_file[0])
    store = world.volume.store
    chunk, field = min(store.digests)
    shape = tuple(int(n) for n in np.subtract(*world.volume.chunk_box(chunk)[::-1]))
    rows = []
    real_row = type(store).row
    monkeypatch.setattr(type(store), "row", lambda self, *key: rows.append(key) or real_row(self, *key))
    first = store.read_chunk(chunk, [field], shape)[field]
    again = store.read_chunk(chunk, [field], shape)[field]
    assert len(rows) == 1 and again is first  # the second read did not touch the file
    with pytest.raises(ValueError):
        first[0, 0, 0] = 1  # shared by every reader: nobody may write into it
    # A row written again (its checksum changed: a save) is read from the file again, never served from before.
    store.digests[(chunk, field)] = b"\x00" * 32
    with pytest.raises(FormatError, match="changed since"):
        store.read_chunk(chunk, [field], shape)
    assert len(rows) == 2


def test_rows_read_lately_are_bounded(world_file, monkeypatch):
    from voxelworld.io import chunk_store

    world = load_world(world_file[0])
    store = world.volume.store
    assert 0 < store._recent_bytes <= chunk_store.RECENT_CHUNK_BYTES  # (the load read the view's chunks)
    limit = 3 * max(array.nbytes for array in store._recent.values())
    monkeypatch.setattr(chunk_store, "RECENT_CHUNK_BYTES", limit)
    for chunk, field in sorted(store.digests)[:20]:
        shape = tuple(int(n) for n in np.subtract(*world.volume.chunk_box(chunk)[::-1]))
        assert store.read_chunk(chunk, [field], shape)[field].shape == shape
        assert store._recent_bytes == sum(array.nbytes for array in store._recent.values()) <= limit
