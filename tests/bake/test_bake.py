"""voxelworld bake: a world file's meshes at every level of detail and its navmesh tiles, baked block by block in
this process or on Dask workers, are the whole world's, bit for bit (so blocks baked apart meet without cracks and
the navmesh has the same islands); a killed worker loses nothing; an interrupted bake resumes after what it wrote."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from voxelworld.bake import bake_world, plan_bake
from voxelworld.bake.records import mesh_record, read_row, tile_record
from voxelworld.errors import FormatError, ParameterError
from voxelworld.game.navigation import WorldNavigation
from voxelworld.game.world import World
from voxelworld.io import load_world, save_world
from voxelworld.io.world_file import bake_inputs
from voxelworld.meshing import MAX_DETAIL_LEVEL, ChunkMesher
from voxelworld.terrain import GeneratorSettings

from ..io.forge import copy_of, write_state_text
from ..io.streaming_world import saved_streaming_world

GROUND = GeneratorSettings(size=64.0, height=32.0, ground_level=12.0, hill_height=4.0, cliff_strength=0.3, seed=5)
TABLES = {"bake_meshes": "SELECT cx, cy, cz, kind, level, version, sha256 FROM bake_meshes ORDER BY 1, 2, 3, 4, 5",
          "bake_tiles": "SELECT ti, tk, sha256 FROM bake_tiles ORDER BY 1, 2",
          "bake_blocks": "SELECT * FROM bake_blocks ORDER BY 1, 2"}


@pytest.fixture(scope="module")
def world_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("bake") / "world.vwd"
    saved_streaming_world(GROUND, path)
    return path


@pytest.fixture(scope="module")
def baked(world_file, tmp_path_factory):
    """The world file baked in this process, in blocks of 2 x 2 chunk columns (many block borders)."""
    path = tmp_path_factory.mktemp("baked") / "world.vwd"
    shutil.copy(world_file, path)
    report = bake_world(path, workers=0, block_chunks=2, out=open(os.devnull, "w"))
    assert report.baked == report.blocks == 16 and report.resumed_after == 0
    return path


def tables(path) -> dict:
    with sqlite3.connect(path) as connection:
        return {name: connection.execute(query).fetchall() for name, query in TABLES.items()}


def test_a_bake_is_the_whole_worlds_meshes_and_navmesh_bit_for_bit(baked):
    world = load_world(baked)
    volume = world.volume
    grid = volume.chunk_grid_shape
    whole = ChunkMesher(volume, world.materials, world.settings.mesh_options)
    whole.set_active(np.ones(grid, dtype=bool))
    rows = {row[:5]: row for row in sqlite3.connect(baked).execute("SELECT * FROM bake_meshes")}
    assert len(rows) == np.prod(grid) * (MAX_DETAIL_LEVEL + 2)
    versions = volume.chunk_versions
    for level in range(MAX_DETAIL_LEVEL + 1):
        whole.set_detail_levels(np.full(grid, level, dtype=np.int64))
        whole.update()
        for chunk in np.ndindex(grid):
            expected = mesh_record(chunk, "display", level, int(versions[chunk]), whole.meshes.get(chunk))
            assert rows[(*chunk, "display", level)][-2] == expected[-2], (chunk, level)
            if level == 0:
                expected = mesh_record(chunk, "collision", 0, int(versions[chunk]), whole.chunk_collision_mesh(chunk))
                assert rows[(*chunk, "collision", 0)][-2] == expected[-2], chunk
    # The rows hold the meshes' arrays.
    whole.set_detail_levels(np.zeros(grid, dtype=np.int64))
    whole.update()
    chunk = max(whole.meshes, key=lambda c: whole.meshes[c].triangle_count)
    arrays = read_row(rows[(*chunk, "display", 0)][-1])
    assert np.array_equal(arrays["positions"], whole.meshes[chunk].positions)
    assert np.array_equal(arrays["indices"], whole.meshes[chunk].indices)
    # The navmesh tiles: those of the whole world's navmesh, tile for tile, so the same islands and area.
    navigation = WorldNavigation(volume, whole, navigation_distance=world.settings.navigation_radius)
    ntx, ntz = navigation.tiled.tile_grid
    every = [(ti, tk) for ti in range(ntx) for tk in range(ntz)]
    navigation = WorldNavigation(volume, whole, navigation_distance=world.settings.navigation_radius, tiles=every)
    tiles = {row[:2]: row for row in sqlite3.connect(baked).execute("SELECT * FROM bake_tiles")}
    assert sorted(tiles) == every
    for tile in every:
        assert tiles[tile][-2] == tile_record(tile, navigation.tiled.baked_tile(tile))[-2], tile


def test_a_bake_on_dask_workers_is_the_bake_in_one_process(world_file, baked, tmp_path):
    path = tmp_path / "world.vwd"
    shutil.copy(world_file, path)
    report = bake_world(path, workers=2, block_chunks=2, out=open(os.devnull, "w"))
    assert report.baked == 16 and "LocalCluster" in report.ran_on
    assert tables(path) == tables(baked)
    assert load_world(path).voxel_hash() == load_world(world_file).voxel_hash()  # the world itself untouched


def test_a_killed_worker_loses_nothing(world_file, baked, tmp_path):
    from dask.distributed import Client, LocalCluster

    path = tmp_path / "world.vwd"
    shutil.copy(world_file, path)
    killed = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        pids = client.run(os.getpid)

        def kill_one_when_started() -> None:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                with sqlite3.connect(path) as connection:
                    tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
                    if "bake_blocks" in tables and connection.execute("SELECT COUNT(*) FROM bake_blocks").fetchone()[0]:
                        break
                time.sleep(0.05)
            pid = sorted(pids.values())[0]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

        killer = threading.Thread(target=kill_one_when_started)
        killer.start()
        report = bake_world(path, scheduler=cluster.scheduler_address, block_chunks=2, out=open(os.devnull, "w"))
        killer.join()
        assert killed and report.baked == 16
        assert set(client.run(os.getpid).values()) != set(pids.values())  # the nanny started another worker
    assert tables(path) == tables(baked)


def test_an_interrupted_bake_resumes_after_what_it_wrote(world_file, baked, tmp_path):
    path = tmp_path / "world.vwd"
    shutil.copy(world_file, path)
    command = [sys.executable, "-m", "voxelworld.cli", "bake", str(path), "--workers", "0", "--block-chunks", "2"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    written = 0
    deadline = time.monotonic() + 120
    while written < 3 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
        try:
            with sqlite3.connect(path) as connection:
                written = connection.execute("SELECT COUNT(*) FROM bake_blocks").fetchone()[0]
        except sqlite3.OperationalError:  # no table yet, or the file locked by a write
            pass
    process.send_signal(signal.SIGKILL)
    process.wait()
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA quick_check").fetchone() == ("ok",)  # never half-written
        done = connection.execute("SELECT COUNT(*) FROM bake_blocks").fetchone()[0]
    assert 3 <= done < 16
    lines = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    assert f"resuming after the {done} already written" in lines
    assert f"Baked {16 - done} blocks of 16 ({done} written before)" in lines
    assert tables(path) == tables(baked)


def test_bad_requests_are_refused_before_anything_is_written(world_file, tmp_path):
    path = tmp_path / "world.vwd"
    shutil.copy(world_file, path)
    before = path.read_bytes()
    with pytest.raises(ParameterError, match="what"):
        bake_world(path, what=("meshes", "lights"), workers=0)
    with pytest.raises(ParameterError, match="generator"):
        bake_world(path, what=("meshes",), workers=0, generator=GeneratorSettings(size=64.0))
    with pytest.raises(ParameterError, match="workers"):
        bake_world(path, workers=-1)
    with pytest.raises(ParameterError, match="workers"):
        bake_world(path, scheduler="tcp://127.0.0.1:1", workers=2)
    assert path.read_bytes() == before
    dense = tmp_path / "demo.vwd"
    save_world(World.demo(npcs=0), dense)
    with pytest.raises(FormatError, match="not a large world"):
        bake_world(dense, workers=0)
    result = subprocess.run([sys.executable, "-m", "voxelworld.cli", "bake", str(tmp_path / "none.vwd")],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "WORLD" in result.stderr


def test_a_plan_without_the_worlds_settings_or_grid_is_refused(world_file):
    # Once, a plan without settings was made, and every block's task failed on it (AttributeError in a worker).
    volume, settings, props, things = bake_inputs(world_file)
    grid = volume.chunk_grid_shape
    with pytest.raises(ParameterError, match="settings"):
        plan_bake(world_file, props=props, grid=grid)
    with pytest.raises(ParameterError, match="settings"):
        plan_bake(world_file, settings=GROUND, props=props, grid=grid)  # the generator's, not the world's
    with pytest.raises(ParameterError, match="grid"):
        plan_bake(world_file, settings=settings, props=props)
    assert plan_bake(world_file, settings=settings, props=props, grid=grid).grid == grid


def test_a_world_file_whose_settings_row_holds_no_world_settings_is_refused(world_file, tmp_path):
    # Once, the bake took whatever the row decoded to, and every block's task failed on it (AttributeError).
    forged = copy_of(world_file, tmp_path / "forged.vwd")
    write_state_text(forged, "settings", json.dumps({"settings": 3}))
    with pytest.raises(FormatError, match="'settings' does not hold the world's WorldSettings .* type int"):
        bake_world(forged, workers=0, out=open(os.devnull, "w"))


def test_baking_meshes_alone_gives_the_same_meshes_and_no_tiles(world_file, baked, tmp_path):
    path = tmp_path / "world.vwd"
    shutil.copy(world_file, path)
    report = bake_world(path, what=("meshes",), workers=0, block_chunks=3, out=open(os.devnull, "w"))
    assert report.blocks == 9  # 8 x 8 columns in blocks of 3: the last ones partial
    got, expected = tables(path), tables(baked)
    assert got["bake_meshes"] == expected["bake_meshes"] and got["bake_tiles"] == []


def test_generating_the_terrain_on_dask_writes_the_world_voxelworld_new_writes(tmp_path):
    new, baked_here = tmp_path / "new.vwd", tmp_path / "baked.vwd"
    options = ["--size", "64", "--height", "32", "--seed", "11"]
    subprocess.run([sys.executable, "-m", "voxelworld.cli", "new", str(new), *options], check=True,
                   capture_output=True)
    result = subprocess.run([sys.executable, "-m", "voxelworld.cli", "bake", str(baked_here), "--what",
                             "terrain,meshes", "--workers", "2", "--block-chunks", "1", *options],
                            capture_output=True, text=True, check=True)
    assert "generating 16 blocks" in result.stdout and "Baked 16 blocks of 16" in result.stdout
    query = "SELECT cx, cy, cz, field, version, sha256 FROM chunks ORDER BY 1, 2, 3, 4"
    with sqlite3.connect(new) as a, sqlite3.connect(baked_here) as b:
        assert a.execute(query).fetchall() == b.execute(query).fetchall()  # the same chunk rows, to the version
        assert b.execute("SELECT COUNT(*) FROM bake_meshes").fetchone()[0] > 0
    assert load_world(baked_here).voxel_hash() == load_world(new).voxel_hash()
    with pytest.raises(ParameterError, match="does not exist yet"):
        bake_world(new, what=("terrain",), workers=0, generator=GeneratorSettings(size=64.0))


def test_an_interrupted_generation_resumes_after_the_blocks_it_generated(tmp_path, monkeypatch):
    from voxelworld.bake import terrain

    settings = GeneratorSettings(size=64.0, height=32.0, seed=11, ground_level=12.0, hill_height=6.0,
                                 sand_level=8.5, lava_level=8.0)
    path, reference = tmp_path / "world.vwd", tmp_path / "reference.vwd"
    bake_world(reference, what=("terrain",), workers=0, block_chunks=1, generator=settings, out=open(os.devnull, "w"))
    add, calls = terrain.TerrainStage.add, []

    def interrupted(stage, result):  # Ctrl+C after the third block
        if len(calls) == 3:
            raise KeyboardInterrupt
        calls.append(result.block)
        add(stage, result)

    monkeypatch.setattr(terrain.TerrainStage, "add", interrupted)
    with pytest.raises(KeyboardInterrupt):
        bake_world(path, what=("terrain",), workers=0, block_chunks=1, generator=settings, out=open(os.devnull, "w"))
    assert not path.exists() and (tmp_path / "world.vwd.terrain").exists()
    monkeypatch.setattr(terrain.TerrainStage, "add", add)
    with pytest.raises(ParameterError, match="generator"):  # another world's generation is never mixed in
        bake_world(path, what=("terrain",), workers=0, generator=GeneratorSettings(size=64.0, height=32.0, seed=12,
                   ground_level=12.0, hill_height=6.0, sand_level=8.5, lava_level=8.0), out=open(os.devnull, "w"))
    log = io.StringIO()
    bake_world(path, what=("terrain",), workers=0, block_chunks=1, generator=settings, out=log)
    assert "resuming after the 3 already generated" in log.getvalue() and log.getvalue().count(" / 16 blocks") == 13
    assert not (tmp_path / "world.vwd.terrain").exists()
    query = "SELECT cx, cy, cz, field, version, sha256 FROM chunks ORDER BY 1, 2, 3, 4"
    with sqlite3.connect(path) as a, sqlite3.connect(reference) as b:
        assert a.execute(query).fetchall() == b.execute(query).fetchall()


# ---------------------------------------------------------------- issue 30: markers checked on resuming; --scheduler
def test_a_resumed_bake_bakes_again_the_blocks_whose_rows_are_missing_or_changed(baked, tmp_path):
    path = tmp_path / "world.vwd"
    shutil.copy(baked, path)
    with sqlite3.connect(path) as connection:  # another writer, a damaged page: rows of three blocks gone or changed
        # Block (1, 2) (chunk columns x 2-3, z 4-5): its display meshes at level 1 deleted.
        gone = connection.execute("DELETE FROM bake_meshes WHERE cx = 3 AND cz = 4 AND kind = 'display' "
                                  "AND level = 1").rowcount
        # Block (0, 0): the tile at the world's corner (a tile belongs to the block holding its lower corner).
        assert connection.execute("DELETE FROM bake_tiles WHERE ti = 0 AND tk = 0").rowcount == 1
        # Block (3, 3): one collision mesh's blob changed (its digest column left as it was).
        data = connection.execute("SELECT data FROM bake_meshes WHERE cx = 7 AND cy = 0 AND cz = 6 "
                                  "AND kind = 'collision'").fetchone()[0]
        connection.execute("UPDATE bake_meshes SET data = ? WHERE cx = 7 AND cy = 0 AND cz = 6 AND kind = 'collision'",
                           (bytes([data[0] ^ 1]) + data[1:],))
    assert gone == 4  # the 4 chunks of the column's height
    log = io.StringIO()
    report = bake_world(path, workers=0, block_chunks=2, out=log)
    said = log.getvalue()
    assert (report.blocks, report.resumed_after, report.baked) == (16, 13, 3), said
    assert [block for block, _ in report.rebaked] == [(0, 0), (1, 2), (3, 3)], report.rebaked
    why = dict(report.rebaked)
    assert why[(0, 0)].startswith("1 of its") and why[(1, 2)].startswith("4 of its") and "missing" in why[(1, 2)]
    assert "differ" in why[(3, 3)]
    assert "resuming after the 13 already written; re-baking 3 written before whose rows are missing or changed" \
        in said and "re-baking block 3,3: its rows differ" in said, said
    assert tables(path) == tables(baked)  # the rows back, bit for bit, and every marker again
    # Run again from the command line: every block's rows are as its marker says, nothing is baked.
    lines = subprocess.run([sys.executable, "-m", "voxelworld.cli", "bake", str(path), "--workers", "0",
                            "--block-chunks", "2"], capture_output=True, text=True, check=True, timeout=300).stdout
    assert "Baked 0 blocks of 16 (16 written before) into" in lines and "re-baking" not in lines, lines
    with sqlite3.connect(path) as connection:
        connection.execute("DELETE FROM bake_meshes WHERE cx = 0 AND cz = 0 AND level = 0")
    lines = subprocess.run([sys.executable, "-m", "voxelworld.cli", "bake", str(path), "--workers", "0",
                            "--block-chunks", "2"], capture_output=True, text=True, check=True, timeout=300).stdout
    assert "Baked 1 blocks of 16 (15 written before, 1 baked again: rows missing or changed) into" in lines, lines
    assert "re-baking block 0,0: 8 of its" in lines and tables(path) == tables(baked)


def test_a_bake_table_of_other_columns_is_made_again_and_another_object_of_its_name_refused(baked, tmp_path):
    """A damaged or forged file: a table of a bake's name with other columns is dropped and made again (said), its
    blocks baked again, the rows bit for bit a bake's; a view of that name is refused in one FormatError naming it,
    the file left as it was."""
    path = tmp_path / "world.vwd"
    shutil.copy(baked, path)
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TABLE bake_blocks")
        connection.execute("CREATE TABLE bake_blocks (bx TEXT, note TEXT)")
        connection.execute("INSERT INTO bake_blocks VALUES ('0', 'forged')")
    log = io.StringIO()
    report = bake_world(path, workers=0, block_chunks=2, out=log)
    assert "the file's bake_blocks table had other columns than a bake's: made again" in log.getvalue()
    assert report.baked == report.blocks == 16 and report.resumed_after == 0
    assert tables(path) == tables(baked)
    with sqlite3.connect(path) as connection:
        connection.execute("DROP TABLE bake_tiles")
        connection.execute("CREATE VIEW bake_tiles AS SELECT 1 AS ti")
    before = path.read_bytes()
    with pytest.raises(FormatError, match="bake_tiles is a view, where a bake keeps a table"):
        bake_world(path, workers=0, block_chunks=2, out=open(os.devnull, "w"))
    assert path.read_bytes() == before


def test_a_marker_of_other_blocks_is_not_taken_for_this_bakes(baked, tmp_path):
    # The same parts baked in blocks of 2 columns, resumed in blocks of 4: the markers name other rows.
    path = tmp_path / "world.vwd"
    shutil.copy(baked, path)
    report = bake_world(path, workers=0, block_chunks=4, out=open(os.devnull, "w"))
    assert report.blocks == 4 and report.resumed_after == 0 and len(report.rebaked) == 4
    assert tables(path)["bake_meshes"] == tables(baked)["bake_meshes"]


@pytest.mark.parametrize("address", ["garbage://x", "tcp://", "tcp://127.0.0.1", "127.0.0.1:99999", "inproc://x",
                                     "tcp://host name:8786"])
def test_a_scheduler_address_of_another_form_is_refused_in_one_line(world_file, tmp_path, address):
    path = tmp_path / "world.vwd"
    shutil.copy(world_file, path)
    before = path.read_bytes()
    done = subprocess.run([sys.executable, "-m", "voxelworld.cli", "bake", str(path), "--scheduler", address],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert f"--scheduler = {address!r} is out of range" in done.stderr and "tcp://HOST:PORT" in done.stderr
    assert path.read_bytes() == before
    with pytest.raises(ParameterError, match="scheduler.*tcp://HOST:PORT"):
        bake_world(path, scheduler=address)


def test_a_scheduler_that_does_not_answer_is_said_in_one_line(world_file, tmp_path):
    path = tmp_path / "world.vwd"
    shutil.copy(world_file, path)
    environment = dict(os.environ, DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="2s")  # Dask's wait to connect
    done = subprocess.run([sys.executable, "-m", "voxelworld.cli", "bake", str(path), "--scheduler",
                           "tcp://127.0.0.1:1"], capture_output=True, text=True, timeout=120, env=environment)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "no Dask scheduler answered at 'tcp://127.0.0.1:1'" in done.stderr and "tcp://HOST:PORT" in done.stderr


def test_a_generation_stage_that_is_not_a_regular_file_is_refused(tmp_path):
    path = tmp_path / "new.vwd"
    os.mkfifo(tmp_path / "new.vwd.terrain")
    done = subprocess.run([sys.executable, "-m", "voxelworld.cli", "bake", str(path), "--what", "terrain", "--size",
                           "64", "--height", "32", "--workers", "0"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "new.vwd.terrain (the generation's stage) is a regular file or a new one, not a FIFO" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.vwd.terrain"]


def test_the_scheduler_forms_dask_connects_to_pass_the_check():
    from voxelworld.bake.run import _check_scheduler

    for address in ("tcp://10.0.0.5:8786", "scheduler:8786", "tls://dask.example.org:8786", "ws://host-1:8787",
                    "wss://host_2.local:443", "ucx://10.1.2.3:13337", "tcp://[::1]:8786"):
        _check_scheduler(address)  # no ParameterError
