"""A large world opens quickly (issue 34): ``voxelworld new`` meshes only the ground near the spawn, a loaded file
meshes only what its first frames need (the rest of the view streams in), a file ``voxelworld bake`` baked gives
its mesher the baked display meshes, which it takes instead of meshing (counted), bit for bit what it would have
made; a chunk dug after the bake, or one changing level, is meshed again; rows of voxels are checked when read."""

from __future__ import annotations

import io
import os
import shutil
import sqlite3

import numpy as np
import pytest
import zstandard

from voxelworld.bake import bake_world
from voxelworld.cli import build_parser, run_new
from voxelworld.errors import FormatError
from voxelworld.game.settings import LARGE_WORLD_SETTINGS
from voxelworld.game.streaming import FIRST_VIEW_DISTANCE
from voxelworld.game.world import Inputs, World
from voxelworld.io import load_world, save_world
from voxelworld.meshing import chunks as mesher_chunks
from voxelworld.meshing.baked import adopt_baked
from voxelworld.terrain import GeneratorSettings, Sphere, Tool, generate_world

from ..game.test_streaming import assert_meshes_are_fresh, settle

DIG = Tool(gives_way_below=20.0, unbreakable_from=20.0)
DISPLAY = ("positions", "normals", "indices", "mat_a", "mat_b", "blend", "occlusion")


def new(path, *options: str) -> None:
    run_new(build_parser().parse_args(["new", *options, str(path)]), out=io.StringIO())


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A small world as ``voxelworld new`` writes it (all of it within the first view) and a copy baked in this
    process."""
    folder = tmp_path_factory.mktemp("open")
    plain, baked = folder / "small.vwd", folder / "baked.vwd"
    new(plain, "--size", "96", "--height", "32", "--seed", "5")
    shutil.copy(plain, baked)
    bake_world(baked, ("meshes",), workers=0, out=open(os.devnull, "w"))
    return plain, baked


def assert_same_meshes(world: World, other: World) -> None:
    assert sorted(world.mesher.meshes) == sorted(other.mesher.meshes)
    for chunk, mesh in world.mesher.meshes.items():
        for name in DISPLAY:
            assert np.array_equal(getattr(mesh, name), getattr(other.mesher.meshes[chunk], name)), (chunk, name)


def test_a_baked_file_opens_without_meshing_what_was_baked(files):
    plain, baked = files
    meshed = load_world(plain)
    opened = load_world(baked)
    assert meshed.mesher.chunks_adopted == 0 and meshed.mesher.chunks_meshed > 0
    # Chunks are taken from the bake; those meshed are those whose baked mesh is not the game's (voxel-scale
    # detail around the player, the chunks joining another level of detail: many, on a world this small).
    assert opened.mesher.chunks_adopted > 0
    assert opened.mesher.chunks_adopted + opened.mesher.chunks_meshed == meshed.mesher.chunks_meshed
    assert_same_meshes(opened, meshed)
    assert_meshes_are_fresh(opened)
    # The game goes on alike, the chunks taken from the bake joining those meshed. (What is shown meanwhile depends
    # on when the display jobs are done, which is the machine's: the display work owed lands before comparing.)
    for world in (meshed, opened):
        for _ in range(90):
            world.step(Inputs(move=(0.0, 1.0), look=(90.0, 0.0), sprint=True))
        settle(world)
    assert_same_meshes(opened, meshed)
    assert opened.event_log_hash() == meshed.event_log_hash()


@pytest.fixture
def taken(monkeypatch):
    """The chunks the meshers take from a bake (recorded at the mesher's hook)."""
    chunks: set = set()

    def recorded(mesher, rebuild):
        made = adopt_baked(mesher, rebuild)
        chunks.update(made)
        return made

    monkeypatch.setattr(mesher_chunks, "adopt_baked", recorded)
    return chunks


def adopted_chunk(world: World, taken: set) -> tuple[int, int, int]:
    """A chunk with triangles whose mesh the world took from the bake, nearest the player."""
    shown = [c for c in taken if c in world.mesher.meshes]
    assert shown
    return min(shown, key=lambda c: (float(np.linalg.norm(world.volume.index_to_world(
        (np.array(c) + 0.5) * world.volume.chunk_size) - world.player.position)), c))


def test_a_chunk_dug_after_the_bake_is_meshed_again_not_read_stale(files, tmp_path, taken):
    _, baked = files
    world = load_world(baked)
    chunk = adopted_chunk(world, taken)
    before = world.mesher.meshes[chunk]
    spot = tuple(float(v) for v in before.positions[len(before.positions) // 2])  # on its surface
    world.volume.remove(Sphere(spot, 3.0), tool=DIG)
    world.step(Inputs())
    assert not np.array_equal(world.mesher.meshes[chunk].positions, before.positions)
    assert_meshes_are_fresh(world)
    # Saved into the baked file and loaded again: the dug chunk and those joining it are meshed, not taken.
    path = tmp_path / "dug.vwd"
    shutil.copy(baked, path)
    dug = load_world(path)
    dug.volume.remove(Sphere(spot, 3.0), tool=DIG)
    dug.step(Inputs())
    save_world(dug, path)
    taken.clear()
    again = load_world(path)
    assert chunk not in taken and taken  # meshed from its voxels, others taken from the bake
    assert again.mesher.chunks_adopted > 0
    assert_meshes_are_fresh(again)
    assert_same_meshes(again, dug)


def test_a_chunk_taken_from_the_bake_is_meshed_again_when_it_or_a_neighbour_changes_level(files, taken):
    _, baked = files
    world = load_world(baked)
    mesher = world.mesher
    chunk = adopted_chunk(world, taken)
    levels = mesher.detail_levels
    levels[chunk] = 0 if levels[chunk] else 1
    mesher.set_detail_levels(levels)
    mesher.update()
    assert chunk in mesher._display_surfaces
    assert_meshes_are_fresh(world)
    # A lower neighbour's level changes: the meshes joining it (taken from the bake) are made again.
    below = tuple(max(c - 1, 0) for c in chunk)
    levels[below] = levels[chunk]
    levels[chunk] = mesher.detail_levels[chunk]
    mesher.set_detail_levels(levels)
    mesher.update()
    assert_meshes_are_fresh(world)


def test_new_meshes_only_the_ground_near_the_spawn_and_the_file_plays(tmp_path):
    path = tmp_path / "wide.vwd"
    new(path, "--size", "256", "--height", "32", "--seed", "3")
    world = load_world(path)
    mesher = world.mesher
    wanted, _ = world._stream_target(None)  # the whole view: the world is smaller than it
    assert wanted.all()
    grid = world.volume.chunk_grid_shape
    # What was meshed when the world was made (and saved): the chunks within the first view alone.
    assert 0 < mesher.active.sum() < wanted.sum()
    assert mesher.chunks_meshed <= mesher.active.sum() < np.prod(grid)
    edge = world.volume.chunk_size * world.volume.voxel_size
    centres = world.volume.index_to_world((np.argwhere(mesher.active) + 0.5) * world.volume.chunk_size)
    assert np.abs(centres - world.player.position)[:, [0, 2]].max() <= FIRST_VIEW_DISTANCE + edge
    # It plays: the player stands on the ground, and the view streams in, nearest first.
    start = world.player.position.copy()
    for _ in range(60):
        world.step(Inputs())
    assert abs(world.player.position[1] - start[1]) < 1.0
    assert mesher.active.sum() > len(centres)
    assert_meshes_are_fresh(world)


def test_a_world_made_whole_at_once_is_the_world_streamed_in(tmp_path):
    """The chunks streamed in after the first view are meshed as a world meshed whole would mesh them."""
    volume = generate_world(GeneratorSettings(size=256.0, height=32.0, ground_level=12.0, hill_height=4.0, seed=3),
                            chunk_size=32)
    world = World(volume, settings=LARGE_WORLD_SETTINGS)
    for _ in range(240):
        world.step(Inputs())
    assert world.mesher.active.all()
    assert world._stream_target(None) is None  # nothing left to stream: the whole view is meshed
    assert_meshes_are_fresh(world)


def test_a_damaged_row_of_voxels_is_named_when_it_is_read(files, tmp_path):
    plain, _ = files
    path = tmp_path / "damaged.vwd"
    shutil.copy(plain, path)
    world = load_world(path)
    # A chunk of voxels in the file (not one value) and the player's own: loading reads the latter at once.
    with sqlite3.connect(path) as connection:
        stored = connection.execute("SELECT cx, cy, cz, field, raw_size FROM chunks WHERE raw_size > 2 "
                                    "ORDER BY cx, cy, cz, field").fetchall()
    near = tuple(int(c) for c in world.volume.world_to_index(world.player.position) // world.volume.chunk_size)
    own = [row for row in stored if tuple(row[:3]) == near]
    assert own and len(stored) > len(own)
    raw = bytes(range(256)) * (own[0][4] // 256) + bytes(own[0][4] % 256)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE chunks SET data = ? WHERE cx = ? AND cy = ? AND cz = ? AND field = ?",
                           (zstandard.ZstdCompressor().compress(raw), *own[0][:4]))
    with pytest.raises(FormatError) as error:
        load_world(path)
    assert f"chunk {near} field {own[0][3]!r}" in str(error.value) and "checksum mismatch" in str(error.value)
    assert str(path) in str(error.value)


def test_a_damaged_baked_row_is_named_when_it_is_read(files, tmp_path, taken):
    _, baked = files
    path = tmp_path / "damaged.vwd"
    shutil.copy(baked, path)
    opened = load_world(baked)
    chunk = adopted_chunk(opened, taken)
    level = int(opened.mesher.detail_levels[chunk])
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE bake_meshes SET sha256 = zeroblob(32) WHERE cx = ? AND cy = ? AND cz = ? AND "
                           "kind = 'display' AND level = ?", (*chunk, level))
    with pytest.raises(FormatError) as error:
        load_world(path)
    message = str(error.value)
    assert f"bake_meshes row {chunk} display level {level}" in message and "checksum mismatch" in message
    assert str(path) in message
