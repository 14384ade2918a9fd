"""World files: a whole game world in one SQLite file (format: docs/specs/world-format.md).

:func:`save_world` writes the voxels as zstd-compressed chunk rows (one per chunk and field, each with a SHA-256
of its key and raw bytes), the game state as checksummed JSON rows (:mod:`voxelworld.io.state`), the arrays they
refer to (navmesh, props, loose objects' volumes) and the event log. A save is one transaction: a process killed
in the middle leaves the file as the last completed save left it (SQLite rolls the journal back on the next
open); a new file is written beside its path and moved into place once complete. This module remembers, per
world and file, the chunk versions the world last saved there (or was loaded from), so saving again to the same
file writes only the chunks changed since (and only the rows and arrays whose content changed, and the new
events).

:func:`load_world` checks everything before it builds anything: that the file is SQLite, of this format and
version, with every table and column, every checksum, every blob decompressing to its size. Whatever is wrong
raises :class:`~voxelworld.errors.FormatError` naming the file and the table, row, chunk or field. Every size
a file states is checked against what it holds and against the world-size limits (``MAX_VOXELS``, ``MAX_CHUNKS``
of :mod:`voxelworld.terrain.volume`; :data:`MAX_ARRAY_BYTES`, :data:`MAX_JSON_DEPTH`) before anything is
allocated, and every value of the state rows is checked by its object (``STATE_CHECKS``) before it is set.

Examples
--------
>>> import pathlib, tempfile
>>> from voxelworld.game.world import Inputs, World
>>> from voxelworld.terrain import Sphere, VoxelVolume
>>> ground = VoxelVolume.from_sdf(lambda x, y, z: y - 4.0, (32, 16, 32), "soil", voxel_size=0.5, chunk_size=8)
>>> world = World(ground)
>>> _ = world.step(Inputs(move=(0.0, 1.0)))
>>> path = pathlib.Path(tempfile.mkdtemp()) / "ground.vxw"
>>> save_world(world, path).chunks_written
32
>>> _ = ground.remove(Sphere((8.0, 4.0, 8.0), 1.0))
>>> save_world(world, path).chunks_written  # only the chunks the dig changed
8
>>> loaded = load_world(path)
>>> loaded.voxel_hash() == world.voxel_hash(), loaded.frame
(True, 1)

This module holds the save path; the load path is :mod:`voxelworld.io.world_load` and what both share (format,
tables, limits, checks, the memory of saves) :mod:`voxelworld.io.world_format`: their public names are
re-exported here, where users import them.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import cast

import numpy as np
import zstandard

from ..errors import check_range
from ..files import build_atomically, write_target
from ..game.world import World
from ..terrain import FIELDS, SparseVolume, Volume
from ..terrain.base import FIELD_DTYPES
from .chunk_store import WorldFileChunks
from .chunk_store import chunk_label as _chunk_label
from .chunk_store import compressed as _compressed
from .chunk_store import connect as _connect
from .chunk_store import row_digest as _sha
from .codec import StateCodec, array_bytes
from .state import Captured, capture, encode_event
from .world_format import (
    _SAVED,
    FORMAT,
    FORMAT_VERSION,
    MAX_ARRAY_BYTES,
    MAX_JSON_DEPTH,
    SCHEMA,
    ZSTD_LEVEL,
    _array_label,
    _check_meta,
    _check_ours,
    _failure,
    _identity,
    _json,
    _remember,
    _Saved,
)
from .world_load import bake_inputs, connect_for_writing, load_world, open_volume

# The tables a bake adds (voxelworld.bake.records.BAKE_SCHEMA): emptied when another world is written over the file.
BAKE_TABLES = ("bake_meshes", "bake_tiles", "bake_blocks")

__all__ = ["save_world", "load_world", "open_volume", "bake_inputs", "connect_for_writing", "SaveReport", "FORMAT", "FORMAT_VERSION", "MAX_ARRAY_BYTES", "MAX_JSON_DEPTH"]

@dataclass(frozen=True)
class SaveReport:
    """What :func:`save_world` wrote: the ``path``; ``full`` when every row was written (a new file, or one this
    world had not saved last); chunks written of ``chunk_count`` (each is one row per voxel field), state rows,
    arrays and events written; the file's size in bytes."""

    path: Path
    full: bool
    chunks_written: int
    chunk_count: int
    state_rows_written: int
    arrays_written: int
    events_written: int
    file_size: int


# What _write returns: full, chunks, state rows, arrays and events written, and the digests of the chunk rows
# written by (chunk, field) (None for a row of one value).
_Digests = dict[tuple[tuple[int, ...], str], bytes | None]
_Counts = tuple[bool, int, int, int, int, _Digests]



# ------------------------------------------------------------------------------------------------------ save
def save_world(world: World, path: str | os.PathLike[str]) -> SaveReport:
    """Save ``world`` (between frames) to the world file ``path`` and report what was written.

    A new file is written beside ``path`` and moved into place; an existing world file is updated in one
    transaction, writing only what changed if this world saved it last (and nobody changed it since). An
    existing file that is not a world file of this version is refused with :class:`FormatError` and left alone.
    State that cannot be stored (see :mod:`voxelworld.io.state`) raises :class:`ParameterError` before the file
    is touched, and so does a path that is not a regular file or a new one (a FIFO, a device; a symlink is followed).
    """
    check_range("world", world, "a voxelworld.game.world.World", isinstance(world, World))
    target = Path(path)
    check_range("path", str(path), "a file path whose folder exists", target.parent.is_dir())
    write_target(path)  # a regular file or a new one (a symlink's target): never a FIFO's or a device's place
    world.wait_for_background()  # its reads of a world file behind the volume end before the file changes
    captured = capture(world)
    key = str(target.resolve())
    exists = target.exists() and target.stat().st_size > 0
    saved = None
    if exists:
        _check_ours(target)
        saved = _SAVED.get(world, {}).get(key)
        if saved is not None and not _unchanged_since(saved, world, target):
            saved = None  # the file, or the world, changed otherwise since: write it whole
    codec = StateCodec(world.materials)
    first = 0 if saved is None else saved.event_count
    events = [(seq, _json(encode_event(codec, world.events[seq], seq))) for seq in range(first, len(world.events))]
    if exists:
        try:
            connection = _connect(target, "rw")
            try:
                connection.execute("BEGIN IMMEDIATE")
                _check_meta(connection, target, (str(FORMAT_VERSION),))
                counts = _write(connection, world, captured, events, saved, target)
                connection.execute("COMMIT")
            finally:
                connection.close()  # without a commit, the transaction is rolled back
        except sqlite3.Error as error:
            raise _failure(error, target, "the world file could not be updated") from error
    else:
        try:
            counts = _write_new(target, world, captured, events)
        except sqlite3.Error as error:
            raise _failure(error, target, "the new world file could not be written") from error
        except OSError as error:
            raise OSError(error.errno, f"{target}: the new world file could not be written ({error.strerror}); "
                          "nothing was left in its place", str(target)) from error
    _remember(world, target)
    _keep_store(world.volume, target, counts[0], counts[-1])
    return SaveReport(target, counts[0], counts[1], int(np.prod(world.volume.chunk_grid_shape)), *counts[2:-1],
                      target.stat().st_size)


def _keep_store(volume: Volume, target: Path, full: bool, digests: _Digests) -> None:
    """After a save of ``volume`` to ``target`` that wrote the chunk rows of ``digests`` (all, when ``full``):
    the store behind a sparse volume is that file's rows where it is that file already or the save wrote every
    row (a save elsewhere of only what changed leaves the store as it is: its chunks still are in it)."""
    if not isinstance(volume, SparseVolume):
        return
    store = volume.store
    if isinstance(store, WorldFileChunks) and store.path == target.resolve():
        for key, digest in digests.items():
            if digest is None:
                store.digests.pop(key, None)
            else:
                store.digests[key] = digest
    elif full:
        store = WorldFileChunks(target, {key: digest for key, digest in digests.items() if digest is not None})
    else:
        return
    volume.attach_store(store)


def _unchanged_since(saved: _Saved, world: World, target: Path) -> bool:
    """Whether ``target`` is as ``world`` left it with its last save there, and the world's volume and event log
    are those it saved then (the log only grew)."""
    count = saved.event_count
    return (saved.volume is world.volume and saved.identity == _identity(target) and len(world.events) >= count
            and (count == 0 or world.events[count - 1] is saved.last_event))


def _write_new(target: Path, world: World, captured: Captured, events: list[tuple[int, str]]) -> _Counts:
    """Write the whole world to a temporary file beside ``target``, then move it into place."""
    counts: list[_Counts] = []

    def build(temporary: Path) -> None:
        connection = _connect(temporary, "rw")
        try:
            connection.execute("BEGIN IMMEDIATE")
            for statement, _ in SCHEMA.values():
                connection.execute(statement)
            connection.executemany("INSERT INTO meta VALUES (?, ?)",
                                   [("format", FORMAT), ("version", str(FORMAT_VERSION))])
            counts.append(_write(connection, world, captured, events, None, temporary))
            connection.execute("COMMIT")
        finally:
            connection.close()

    build_atomically(target, build, companions=("-journal",))
    return counts[0]


def _write(connection: sqlite3.Connection, world: World, captured: Captured, events: list[tuple[int, str]],
           saved: _Saved | None, target: Path) -> _Counts:
    """Write the rows into an open transaction of the file ``target``: everything (``saved`` None) or what changed
    since ``saved``; ``events`` are the (seq, JSON text) of the events not in the file yet. Returns the counts of
    :class:`SaveReport` and the digests of the chunk rows of voxels written."""
    volume = world.volume
    versions = volume.chunk_versions
    store = volume.store if isinstance(volume, SparseVolume) else None
    in_place = isinstance(store, WorldFileChunks) and store.path == target.resolve()
    if saved is None:
        chunks = list(product(*(range(n) for n in volume.chunk_grid_shape)))
    else:
        chunks = [tuple(int(c) for c in chunk) for chunk in np.argwhere(versions != saved.versions)]
    rows, digests = _chunk_rows(volume, chunks, in_place)  # read first: a store in this file reads its rows
    if saved is None:
        for table in ("state", "arrays", "events") if in_place else ("state", "chunks", "arrays", "events"):
            connection.execute(f"DELETE FROM {table}")
        if in_place:  # the rows left where they are are this volume's; any other chunk's go
            connection.execute("DELETE FROM chunks WHERE NOT (cx < ? AND cy < ? AND cz < ?)", volume.chunk_grid_shape)
        else:  # another world's voxels: a bake of the file's old ones is not theirs, whatever its versions say
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            for table in BAKE_TABLES:
                if table in tables:
                    connection.execute(f"DELETE FROM {table}")
    connection.executemany("INSERT OR REPLACE INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)

    compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    state = {name: _json(data) for name, data in captured.rows.items()}
    old = dict(connection.execute("SELECT name, sha256 FROM state"))
    state_rows = [(name, text, _sha(f"state {name}", text.encode("utf-8"))) for name, text in state.items()]
    state_rows = [row for row in state_rows if old.get(row[0]) != row[2]]
    connection.executemany("INSERT OR REPLACE INTO state VALUES (?, ?, ?)", state_rows)
    connection.executemany("DELETE FROM state WHERE name = ?", [(n,) for n in old if n not in state])

    old = dict(connection.execute("SELECT name, sha256 FROM arrays"))
    array_rows = []
    for name, array in captured.arrays.items():
        raw, shape = array_bytes(array), _json(list(array.shape))
        digest = _sha(_array_label(name, array.dtype.name, shape), raw)
        if old.get(name) != digest:
            array_rows.append((name, array.dtype.name, shape, len(raw), digest, _compressed(compressor, raw)))
    connection.executemany("INSERT OR REPLACE INTO arrays VALUES (?, ?, ?, ?, ?, ?)", array_rows)
    connection.executemany("DELETE FROM arrays WHERE name = ?", [(n,) for n in old if n not in captured.arrays])

    event_rows = [(seq, text, _sha(f"event {seq}", text.encode("utf-8"))) for seq, text in events]
    connection.executemany("INSERT OR REPLACE INTO events VALUES (?, ?, ?)", event_rows)
    connection.execute("DELETE FROM events WHERE seq >= ?", (len(world.events),))
    return saved is None, len(chunks), len(state_rows), len(array_rows), len(event_rows), digests


def _chunk_rows(volume: Volume, chunks: Iterable[tuple[int, ...]], in_place: bool) -> tuple[list[tuple], _Digests]:
    """The rows of ``chunks`` (all their fields) and their digests by (chunk, field), None for a row of one value.
    A field left in the store behind the volume (a world file) is copied as its row there, or, ``in_place`` (the
    store is the file written), left where it is."""
    versions = volume.chunk_versions
    compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    rows: list[tuple] = []
    digests: _Digests = {}
    # A sparse volume's uniform chunk fields, known at once (most of a large world's rows: air, buried rock), and
    # the row bytes of each (field, value): the same bytes as chunk by chunk, without asking the volume 5 x n times.
    uniform = {field: volume.uniform_fields(field) for field in FIELDS} if isinstance(volume, SparseVolume) else None
    blobs: dict[tuple[str, int], tuple[bytes, bytes]] = {}
    for chunk in chunks:
        box: tuple[np.ndarray, np.ndarray] | None = None
        version = int(versions[chunk])
        for field in FIELDS:
            if uniform is not None and uniform[field][0][chunk]:
                value = int(uniform[field][1][chunk])
                if (field, value) not in blobs:
                    one = array_bytes(np.array([value], dtype=FIELD_DTYPES[field]))
                    blobs[(field, value)] = (one, _compressed(compressor, one))
                raw, blob = blobs[(field, value)]
                rows.append((*chunk, field, version, len(raw), _sha(_chunk_label(chunk, field, version), raw), blob))
                digests[(chunk, field)] = None  # one value: never read from the store
                continue
            if isinstance(volume, SparseVolume) and volume.left_in_store(chunk, field):
                # FormatError if the file changed under the world; a world file's store (voxelworld attaches no other)
                row = cast(WorldFileChunks, volume.store).row(chunk, field)
                if row[4] == version:
                    digests[(chunk, field)] = row[6]
                    if not in_place:
                        rows.append(row)
                    continue
            box = volume.chunk_box(chunk) if box is None else box
            raw = _chunk_bytes(volume, chunk, field, *box)
            digest = _sha(_chunk_label(chunk, field, version), raw)
            rows.append((*chunk, field, version, len(raw), digest, _compressed(compressor, raw)))
            if len(raw) > FIELD_DTYPES[field].itemsize:
                digests[(chunk, field)] = digest
            else:
                digests[(chunk, field)] = None  # one value: never read from the store
    return rows, digests


def _chunk_bytes(volume: Volume, chunk: tuple[int, ...], field: str, lo: np.ndarray, hi: np.ndarray) -> bytes:
    """The raw bytes of a chunk row: every voxel of the field in the chunk, or its one value when it is uniform
    (a row of one item: a large world's air and buried rock cost a few bytes a chunk)."""
    value = volume.uniform_value(chunk, field)
    if value is not None:
        return array_bytes(np.array([value], dtype=FIELD_DTYPES[field]))
    values = volume.read_window(lo, hi, (field,))[field]
    first = values.flat[0]
    if np.all(values == first):
        return array_bytes(np.array([first], dtype=FIELD_DTYPES[field]))
    return array_bytes(values)
