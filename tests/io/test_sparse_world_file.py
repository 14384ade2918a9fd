"""World files of large worlds (format version 2): a SparseVolume is saved as one row per chunk and field, a
uniform one holding its single value; loading gives the same voxels, storage and bookkeeping; files of version 1
(every row all its voxels) still load."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest
import zstandard

from voxelworld.game.settings import LARGE_WORLD_SETTINGS
from voxelworld.game.world import Inputs, World
from voxelworld.io import load_world, save_world
from voxelworld.io.world_file import _chunk_label, _sha
from voxelworld.terrain import GeneratorSettings, SparseVolume, Sphere, Tool, VoxelVolume, generate_world

SETTINGS = GeneratorSettings(size=96.0, height=48.0, ground_level=20.0, hill_height=6.0, seed=4)


@pytest.fixture(scope="module")
def ground() -> SparseVolume:
    return generate_world(SETTINGS, chunk_size=16)


def test_a_sparse_world_round_trips_with_its_storage_voxels_and_versions(ground, tmp_path):
    world = World(SparseVolume.from_volume(ground.to_dense()), settings=LARGE_WORLD_SETTINGS)
    for _ in range(3):
        world.step(Inputs(move=(0.0, 1.0)))
    world.volume.remove(Sphere(tuple(world.player.position + [3.0, -1.0, 0.0]), 2.0), tool=Tool(gives_way_below=9.0,
                                                                                                unbreakable_from=9.0))
    path = tmp_path / "big.vxw"
    report = save_world(world, path)
    assert report.chunks_written == int(np.prod(world.volume.chunk_grid_shape))
    loaded = load_world(path)
    assert isinstance(loaded.volume, SparseVolume)
    assert loaded.voxel_hash() == world.voxel_hash()
    assert np.array_equal(loaded.volume.chunk_versions, world.volume.chunk_versions)
    assert loaded.volume.dirty_chunks == world.volume.dirty_chunks
    assert loaded.volume.stored_chunks() == world.volume.stored_chunks()
    assert np.allclose(loaded.player.position, world.player.position)
    with sqlite3.connect(path) as connection:
        uniform = connection.execute("SELECT COUNT(*) FROM chunks WHERE raw_size <= 2").fetchone()[0]
        stored = connection.execute("SELECT COUNT(*) FROM chunks WHERE raw_size > 2").fetchone()[0]
    grid = int(np.prod(world.volume.chunk_grid_shape))
    assert uniform + stored == 5 * grid
    assert stored == sum(world.volume.stored_chunks(name) for name in ("density", "mat_a", "mat_b", "mix", "damage"))
    # Both worlds go on alike.
    for _ in range(5):
        world.step(Inputs(move=(1.0, 0.0)))
        loaded.step(Inputs(move=(1.0, 0.0)))
    assert loaded.voxel_hash() == world.voxel_hash()
    assert np.allclose(loaded.player.position, world.player.position)


def test_a_dense_world_saves_its_uniform_chunks_as_one_value_and_loads_dense(ground, tmp_path):
    world = World(ground.to_dense())
    path = tmp_path / "dense.vxw"
    save_world(world, path)
    loaded = load_world(path)
    assert isinstance(loaded.volume, VoxelVolume) and loaded.voxel_hash() == world.voxel_hash()
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT COUNT(*) FROM chunks WHERE raw_size = 1").fetchone()[0] > 0


def test_a_version_1_file_still_loads(ground, tmp_path):
    world = World(ground.to_dense())
    path = tmp_path / "old.vxw"
    save_world(world, path)
    # Rewrite it as version 1 wrote it: every row all its voxels, no storage key.
    compressor = zstandard.ZstdCompressor(level=3)
    with sqlite3.connect(path) as connection:
        for cx, cy, cz, field, version, _raw_size in connection.execute(
                "SELECT cx, cy, cz, field, version, raw_size FROM chunks").fetchall():
            lo, hi = world.volume.chunk_box((cx, cy, cz))
            raw = np.ascontiguousarray(world.volume.read_window(lo, hi, (field,))[field]).astype(
                "<u2" if field == "damage" else "u1").tobytes()
            connection.execute("UPDATE chunks SET raw_size = ?, sha256 = ?, data = ? WHERE cx = ? AND cy = ? AND "
                               "cz = ? AND field = ?", (len(raw), _sha(_chunk_label((cx, cy, cz), field, version),
                                                                       raw), compressor.compress(raw), cx, cy, cz,
                                                        field))
        connection.execute("UPDATE meta SET value = '1' WHERE key = 'version'")
    loaded = load_world(path)
    assert isinstance(loaded.volume, VoxelVolume) and loaded.voxel_hash() == world.voxel_hash()
