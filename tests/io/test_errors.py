"""World files that are not what they claim: every problem is a FormatError naming it, never a raw sqlite3 or zstd
error; files that are not world files are never overwritten; state that cannot be stored is refused up front."""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import dataclass

import pytest
import zstandard

from voxelworld.errors import FormatError, ParameterError
from voxelworld.game.edits import EditRecipe, VoxelEdit
from voxelworld.game.events import Event
from voxelworld.game.level import Prop
from voxelworld.game.world import Inputs, World
from voxelworld.io import load_world, save_world
from voxelworld.terrain import Sphere, VoxelVolume


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A small world (ground, a crate, an NPC walking) saved once."""
    ground = VoxelVolume.from_sdf(lambda x, y, z: y - 4.0, (32, 16, 32), "soil", voxel_size=0.5, chunk_size=8)
    world = World(ground, props=[Prop.boxes("crate", [((10.0, 3.9, 10.0), (11.0, 4.9, 11.0))], "wood")])
    world.agents.add_npc("walker", (2.0, 4.0, 2.0), (14.0, 4.0, 4.0))
    for _ in range(5):
        world.step(Inputs(move=(0.0, 1.0)))
    path = tmp_path_factory.mktemp("saved") / "small.vxw"
    save_world(world, path)
    return world, path


@pytest.fixture
def copy(saved, tmp_path):
    """A fresh copy of the saved file, each time it is called."""
    made = []

    def fresh():
        made.append(tmp_path / f"copy-{len(made)}.vxw")
        shutil.copyfile(saved[1], made[-1])
        return made[-1]
    return fresh


def change(path, *statements):
    connection = sqlite3.connect(path)
    for statement, *arguments in statements:
        connection.execute(statement, *arguments)
    connection.commit()
    connection.close()


def refused(path, *words):
    with pytest.raises(FormatError) as error:
        load_world(path)
    message = str(error.value)
    assert str(path) in message and all(word in message for word in words), message
    return message


# ------------------------------------------------------------------------------------------------ not world files
def test_a_missing_path_is_named(tmp_path):
    with pytest.raises(ParameterError, match="nowhere.vxw"):
        load_world(tmp_path / "nowhere.vxw")
    with pytest.raises(ParameterError, match="existing world file"):
        load_world(tmp_path)


def test_a_file_that_is_not_sqlite(tmp_path):
    text = tmp_path / "notes.vxw"
    text.write_text("not a database, just some words of a user's notes\n" * 10)
    refused(text, "not an SQLite database")
    empty = tmp_path / "empty.vxw"
    empty.write_bytes(b"")
    refused(empty, "empty file")


def test_a_foreign_sqlite_file(tmp_path):
    path = tmp_path / "foreign.db"
    change(path, ("CREATE TABLE people (name TEXT)",), ("INSERT INTO people VALUES ('ada')",))
    refused(path, "no 'meta' table")


def test_a_wrong_or_missing_format_and_version(copy):
    path = copy()
    change(path, ("UPDATE meta SET value = '4' WHERE key = 'version'",))
    refused(path, "version '4' is not one of 1, 2, 3")
    path = copy()
    change(path, ("DELETE FROM meta WHERE key = 'version'",))
    refused(path, "version None")
    path = copy()
    change(path, ("UPDATE meta SET value = 'someone-elses' WHERE key = 'format'",))
    refused(path, "'format' is 'someone-elses'")


@pytest.mark.parametrize("table", ["state", "chunks", "arrays", "events"])
def test_a_missing_table_is_named(copy, table):
    path = copy()
    change(path, (f"DROP TABLE {table}",))
    refused(path, f"table {table!r} is missing")


def test_a_table_with_other_columns(copy):
    path = copy()
    change(path, ("ALTER TABLE chunks RENAME COLUMN raw_size TO size",))
    refused(path, "table 'chunks'", "other columns")


# ------------------------------------------------------------------------------------------------ damaged rows
def test_a_chunk_whose_bytes_changed(copy):
    # Bytes of the chunk's size, well compressed: decompress fine, but the checksum is not of these bytes.
    raw = bytes(range(256)) * 2
    path = copy()
    change(path, ("UPDATE chunks SET data = ?, raw_size = ? WHERE cx = 1 AND cy = 0 AND cz = 2 AND field = 'mat_a'",
                  (zstandard.ZstdCompressor().compress(raw), len(raw))))
    refused(path, "chunk (1, 0, 2) field 'mat_a'", "checksum mismatch")


def test_a_chunk_blob_that_does_not_decompress(copy):
    path = copy()
    change(path, ("UPDATE chunks SET data = ? WHERE cx = 0 AND cy = 1 AND cz = 0 AND field = 'damage'",
                  (b"\x28\xb5\x2f\xfd garbage",)))
    refused(path, "chunk (0, 1, 0) field 'damage'", "does not decompress")


def test_a_chunk_of_the_wrong_size(copy):
    path = copy()
    change(path, ("UPDATE chunks SET raw_size = raw_size + 1 WHERE cx = 3 AND cy = 1 AND cz = 3 AND field = 'mix'",))
    refused(path, "chunk (3, 1, 3) field 'mix'", "raw_size 2 is neither 1 (one value for the whole chunk) nor 512")
    path = copy()  # a chunk row of every voxel: the surface's density
    change(path, ("UPDATE chunks SET raw_size = raw_size + 1 WHERE raw_size > 1 AND field = 'density'",))
    refused(path, "field 'density'", "raw_size 513 is neither 1 (one value for the whole chunk) nor 512")


def test_a_missing_or_foreign_chunk(copy):
    path = copy()
    change(path, ("DELETE FROM chunks WHERE cx = 2 AND cy = 0 AND cz = 1 AND field = 'density'",))
    refused(path, "chunk (2, 0, 1) field 'density' is missing")
    path = copy()
    change(path, ("INSERT INTO chunks SELECT 9, cy, cz, field, version, raw_size, sha256, data FROM chunks LIMIT 1",))
    refused(path, "chunk (9, 0, 0)", "not a chunk")


def test_a_state_row_that_changed_or_is_missing(copy):
    path = copy()
    change(path, ("UPDATE state SET json = replace(json, '\"stamina\":', '\"stamina\": ') WHERE name = 'player'",))
    refused(path, "state row 'player'", "checksum mismatch")
    path = copy()
    change(path, ("DELETE FROM state WHERE name = 'queue'",))
    refused(path, "state row 'queue' is missing")


def test_an_array_that_changed_or_is_missing(copy):
    path = copy()
    change(path, ("UPDATE arrays SET shape = '[1]' WHERE name = 'navmesh.polygon_start'",))
    refused(path, "array 'navmesh.polygon_start'", "raw_size", "is not 8")
    path = copy()  # a shape of the same size: the checksum tells
    change(path, ("UPDATE arrays SET shape = '[' || (raw_size / 8) || ', 1]' WHERE name = 'navmesh.polygon_start'",))
    refused(path, "array 'navmesh.polygon_start'", "checksum mismatch")
    path = copy()
    change(path, ("DELETE FROM arrays WHERE name = 'props.0.positions'",))
    refused(path, "array 'props.0.positions' is missing")


def test_missing_or_changed_events(copy):
    path = copy()
    change(path, ("UPDATE events SET json = replace(json, 'soil', 'iron') WHERE seq = 0",))
    refused(path, "events: row 0", "checksum mismatch")
    path = copy()
    change(path, ("DELETE FROM events WHERE seq = 0",))
    refused(path, "events: row 0 is missing")


# ------------------------------------------------------------------------------------------------------ saving
def test_saving_never_overwrites_a_file_that_is_not_a_world_file(saved, tmp_path):
    world = saved[0]
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    with pytest.raises(FormatError, match="refusing to overwrite"):
        save_world(world, notes)
    assert notes.read_text() == "my notes"
    foreign = tmp_path / "foreign.db"
    change(foreign, ("CREATE TABLE people (name TEXT)",))
    before = foreign.read_bytes()
    with pytest.raises(FormatError, match="no 'meta' table"):
        save_world(world, foreign)
    assert foreign.read_bytes() == before


def test_saving_over_another_version_is_refused(saved, copy):
    path = copy()
    change(path, ("UPDATE meta SET value = '1' WHERE key = 'version'",))  # older: loaded, never updated
    before = path.read_bytes()
    with pytest.raises(FormatError, match="version '1' is not one of 3, the ones this voxelworld updates"):
        save_world(saved[0], path)
    assert path.read_bytes() == before


def test_saving_to_a_missing_folder_or_a_folder(saved, tmp_path):
    with pytest.raises(ParameterError, match="folder exists"):
        save_world(saved[0], tmp_path / "missing" / "world.vxw")
    with pytest.raises(ParameterError, match="not a folder"):
        save_world(saved[0], tmp_path)
    with pytest.raises(ParameterError, match="World"):
        save_world("a world", tmp_path / "world.vxw")


@dataclass(frozen=True)
class Whistled(Event):  # an event type voxelworld.io does not know
    loudness: float


def test_state_that_cannot_be_stored_is_refused_before_the_file_is_touched(saved, copy):
    world, path = saved[0], copy()
    before = path.read_bytes()
    world.queue_edit(VoxelEdit("remove", Sphere((4.0, 4.0, 4.0), 1.0), on_applied=lambda result: None))
    with pytest.raises(ParameterError, match=r"queued_edits\[0\]"):
        save_world(world, path)
    world._queue.clear()
    world.queue_edit(VoxelEdit("remove", Sphere((4.0, 4.0, 4.0), 1.0), on_applied=lambda result: None,
                               recipe=EditRecipe("carve", (("enemy", "nobody"), ("material", "soil")))))
    with pytest.raises(ParameterError, match=r"queued_edits\[0\].*nobody"):
        save_world(world, path)
    world._queue.clear()
    world.events.append(Whistled(frame=world.frame, time=world.time, loudness=3.0))
    with pytest.raises(ParameterError, match="Whistled"):
        save_world(world, path)
    world.events.pop()
    assert path.read_bytes() == before
    world.queue_edit(VoxelEdit("remove", Sphere((4.0, 4.0, 4.0), 1.0)))  # no callbacks: saved as it is
    save_world(world, path)
    assert [e.kind for e in load_world(path).queued_edits] == ["remove"]
    world._queue.clear()
