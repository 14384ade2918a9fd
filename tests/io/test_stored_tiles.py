"""A world file's baked navmesh tiles (issue 34: "the game reads the baked meshes and navmesh tiles"): a loaded
world's streaming navmesh takes each tile the bake holds instead of baking it (counted), bit for bit what it would
have baked, and bakes again the tiles whose ground was dug since; a tile's source digest follows what its bake
reads; a forged tile row is refused naming it; a bake from before tiles kept their source is not read."""

from __future__ import annotations

import dataclasses
import io
import os
import shutil
import sqlite3

import numpy as np
import pytest
import zstandard

from voxelworld.bake import bake_world
from voxelworld.bake.records import arrays_bytes
from voxelworld.cli import build_parser, run_new
from voxelworld.errors import FormatError
from voxelworld.game.world import Inputs, World
from voxelworld.io import load_world, save_world
from voxelworld.io.baked_rows import WorldFileTiles, arrays_from_bytes
from voxelworld.io.chunk_store import row_digest
from voxelworld.navigation import SceneObject
from voxelworld.navigation.navmesh import ARRAY_NAMES
from voxelworld.terrain import Sphere, Tool

DIG = Tool(gives_way_below=20.0, unbreakable_from=20.0)
SPRINT = Inputs(move=(0.0, 1.0), look=(90.0, 0.0), sprint=True)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A small populated world as ``voxelworld new`` writes it (its NPCs' navmesh streams) and a copy baked in
    this process."""
    folder = tmp_path_factory.mktemp("tiles")
    plain, baked = folder / "small.vwd", folder / "baked.vwd"
    run_new(build_parser().parse_args(["new", "--size", "96", "--height", "32", "--seed", "5", str(plain)]),
            out=io.StringIO())
    shutil.copy(plain, baked)
    bake_world(baked, workers=0, out=open(os.devnull, "w"))
    return plain, baked


def changed_copy(path, to, statement: str):
    """A copy of the world file ``path`` at ``to``, changed by the SQL ``statement``."""
    shutil.copy(path, to)
    with sqlite3.connect(to) as connection:
        connection.execute(statement)
    return to


def play(world: World, frames: int = 90) -> World:
    for _ in range(frames):
        world.step(SPRINT)
    return world


def assert_same_navmesh(world: World, other: World) -> None:
    a, b = world.agents.navigation, other.agents.navigation
    assert sorted(a.tiled.tiles) == sorted(b.tiled.tiles)
    for name in ARRAY_NAMES:
        assert np.array_equal(getattr(a.mesh, name), getattr(b.mesh, name)), name
    assert a.mesh.area_types == b.mesh.area_types


@pytest.fixture
def reads(monkeypatch):
    """The tiles the world files' bakes handed out, in order (recorded at the reader)."""
    handed: list = []
    original = WorldFileTiles.tile

    def recorded(self, tile, source, area):
        baked = original(self, tile, source, area)
        if baked is not None:
            handed.append(tuple(tile))
        return baked

    monkeypatch.setattr(WorldFileTiles, "tile", recorded)
    return handed


def test_a_baked_file_plays_without_baking_the_tiles_it_holds(files, reads):
    plain, baked = files
    baked_here, opened = play(load_world(plain)), play(load_world(baked))
    mine, theirs = baked_here.agents.navigation, opened.agents.navigation
    assert mine.tiles_read == 0 and mine.tiles_baked > 0
    # Every tile the loaded world wanted was read from the file, none baked: those the game baked itself.
    assert opened.stored_tiles is not None and theirs.tiles_baked == 0
    assert theirs.tiles_read == mine.tiles_baked == len(reads) and set(reads) >= set(theirs.tiled.tiles)
    assert_same_navmesh(opened, baked_here)
    assert opened.event_log_hash() == baked_here.event_log_hash()


def test_a_tile_whose_ground_was_dug_after_the_bake_is_baked_again(files, tmp_path, reads):
    _, baked = files
    path = tmp_path / "dug.vwd"
    shutil.copy(baked, path)
    world = play(load_world(path), 60)
    nav = world.agents.navigation
    tile = sorted(nav.tiled.tiles)[len(nav.tiled.tiles) // 2]
    x0, z0, x1, z1 = nav.tiled.tile_box(tile)
    x, z = (x0 + x1) / 2, (z0 + z1) / 2
    column = world.volume.world_to_index((x, 0.0, z)).astype(int)
    solid = np.flatnonzero(world.volume.read_window((column[0], 0, column[2]),
                                                   (column[0] + 1, world.volume.shape[1], column[2] + 1),
                                                   ("density",))["density"].ravel() >= world.volume.iso)
    y = float(world.volume.index_to_world((0, solid.max(), 0))[1])
    world.volume.remove(Sphere((x, y, z), 2.5), tool=DIG)
    play(world, 60)  # (the navmesh re-baked there: the file keeps no collision mesh of its own for the chunks dug)
    save_world(world, path)
    reads.clear()
    again = play(load_world(path))
    # The same file without its bake's tiles: what the game bakes itself.
    alone = play(load_world(changed_copy(path, tmp_path / "unread.vwd", "DELETE FROM bake_tiles")))
    assert alone.stored_tiles is None and alone.agents.navigation.tiles_read == 0
    taken = again.agents.navigation
    assert tile in taken.tiled.tiles and tile not in reads  # the dug tile: baked again, not read stale
    assert taken.tiles_baked >= 1 and taken.tiles_read > 0 and reads  # the others: read
    assert_same_navmesh(again, alone)
    assert again.event_log_hash() == alone.event_log_hash()


def test_a_tiles_source_follows_the_scene_its_bake_reads(files):
    _, baked = files
    world = play(load_world(baked), 60)
    nav = world.agents.navigation
    tiles = sorted(nav.tiled.tiles)
    tile = tiles[0]
    source = nav.tile_source(tile)
    assert len(source) == 32 and nav.tile_source(tile) == source and nav.tile_source(tiles[-1]) != source
    # A thing on its ground falling changes it, and standing again gives it back.
    ci0, ck0, ci1, ck1 = nav.chunk_columns(tile)
    things = world.ground_things
    column = next(c for c in sorted(things.chunk_columns([(ci0, 0, ck0)])) if len(things.columns[c].things))
    kept = things.columns[column]
    for state, same in ((1, False), (0, True)):
        kept.state[0] = state
        kept.changed()
        assert (nav.tile_source(tile) == source) == same
    # A chunk it reads typed otherwise (lava held beside it, or not) changes it; a chunk it does not read does not.
    inside = next(c for c in sorted(nav._chunk_objects) if ci0 <= c[0] <= ci1 and ck0 <= c[2] <= ck1)
    outside = next((c for c in sorted(nav._chunk_objects) if not (ci0 <= c[0] <= ci1 and ck0 <= c[2] <= ck1)), None)
    for chunk, same in ((inside, False), (outside, True)):
        if chunk is None:
            continue
        was = nav._chunk_objects[chunk]
        nav._chunk_objects[chunk] = SceneObject(was.name, was.positions, was.indices, was.role,
                                                (was.area_types + ("hazard",) if "hazard" not in was.area_types
                                                 else was.area_types, np.full(was.triangle_count,
                                                 list(was.area_types + ("hazard",)).index("hazard"))))
        assert (nav.tile_source(tile) == source) == same
        nav._chunk_objects[chunk] = was
    assert nav.tile_source(tile) == source
    # The bake's settings are part of it.
    nav.settings = dataclasses.replace(nav.settings, agent_radius=nav.settings.agent_radius + 0.05)
    assert nav.tile_source(tile) != source


def test_a_forged_tile_row_is_refused_naming_it(files, tmp_path, reads):
    """A row whose checksum fits (a forger writes one) but whose arrays are not a tile's."""
    _, baked = files
    play(load_world(baked), 60)
    ti, tk = reads[0]  # a tile the world reads in its first frames
    path = tmp_path / "forged.vwd"
    shutil.copy(baked, path)
    with sqlite3.connect(path) as connection:
        (data,) = connection.execute("SELECT data FROM bake_tiles WHERE ti = ? AND tk = ?", (ti, tk)).fetchone()
        arrays = arrays_from_bytes(zstandard.ZstdDecompressor().decompress(data))
        arrays["sides"] = arrays["sides"].copy()
        arrays["sides"][0, 0] = 1 << 40  # a polygon far past the tile's
        raw = arrays_bytes(arrays)
        connection.execute("UPDATE bake_tiles SET raw_size = ?, sha256 = ?, data = ? WHERE ti = ? AND tk = ?",
                           (len(raw), row_digest(f"bake tile {ti},{tk}", raw),
                            zstandard.ZstdCompressor().compress(raw), ti, tk))
    with pytest.raises(FormatError) as error:
        play(load_world(path), 60)
    message = str(error.value)
    assert f"bake_tiles row {(ti, tk)}" in message and "'sides'" in message and str(path) in message


def test_a_damaged_tile_row_is_refused_naming_it(files, tmp_path):
    path = changed_copy(files[1], tmp_path / "damaged.vwd", "UPDATE bake_tiles SET sha256 = zeroblob(32)")
    with pytest.raises(FormatError) as error:
        play(load_world(path))
    assert "bake_tiles row" in str(error.value) and "checksum mismatch" in str(error.value)


def test_a_bake_from_before_tiles_kept_their_source_is_not_read(files, tmp_path):
    plain, baked = files
    older = load_world(changed_copy(baked, tmp_path / "older.vwd", "ALTER TABLE bake_tiles DROP COLUMN source"))
    assert older.stored_tiles is None and older.mesher.baked is not None  # its meshes are still taken
    assert_same_navmesh(play(older), play(load_world(plain)))
