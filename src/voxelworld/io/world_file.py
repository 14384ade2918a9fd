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
"""

from __future__ import annotations

import errno
import json
import math
import os
import sqlite3
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from weakref import WeakKeyDictionary

import numpy as np
import zstandard

from ..errors import FormatError, check_range
from ..files import build_atomically, write_target
from ..game.world import World
from ..terrain import FIELDS, SparseVolume, Volume, VoxelVolume
from ..terrain.base import FIELD_DTYPES
from .chunk_store import WorldFileChunks
from .chunk_store import chunk_label as _chunk_label
from .chunk_store import connect as _connect
from .chunk_store import decompress as _decompress
from .chunk_store import row_digest as _sha
from .codec import StateCodec, array_bytes, array_from_bytes, check_volume_size
from .state import STATE_ROWS, capture, decode_event, empty_volume, encode_event, restore, volume_storage

__all__ = ["save_world", "load_world", "SaveReport", "FORMAT", "FORMAT_VERSION", "MAX_ARRAY_BYTES", "MAX_JSON_DEPTH"]

FORMAT = "voxelworld-world"
FORMAT_VERSION = 2
READ_VERSIONS = ("1", "2")  # version 1: no storage key, a chunk row of every field holds all its voxels
SQLITE_HEADER = b"SQLite format 3\x00"
ZSTD_LEVEL = 3
# Limits of what a reader takes from a file, checked before it allocates (the volume's: MAX_VOXELS, MAX_CHUNKS in
# voxelworld.terrain.volume): an array row of at most 1 GiB (navmeshes, props, loose objects' fields: all far
# smaller); JSON nested this deep.
MAX_ARRAY_BYTES = 2 ** 30
MAX_JSON_DEPTH = 64
SCHEMA = {
    "meta": ("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)", ("key", "value")),
    "state": ("CREATE TABLE state (name TEXT PRIMARY KEY, json TEXT NOT NULL, sha256 BLOB NOT NULL)",
              ("name", "json", "sha256")),
    "chunks": ("CREATE TABLE chunks (cx INTEGER NOT NULL, cy INTEGER NOT NULL, cz INTEGER NOT NULL, "
               "field TEXT NOT NULL, version INTEGER NOT NULL, raw_size INTEGER NOT NULL, sha256 BLOB NOT NULL, "
               "data BLOB NOT NULL, PRIMARY KEY (cx, cy, cz, field))",
               ("cx", "cy", "cz", "field", "version", "raw_size", "sha256", "data")),
    "arrays": ("CREATE TABLE arrays (name TEXT PRIMARY KEY, dtype TEXT NOT NULL, shape TEXT NOT NULL, "
               "raw_size INTEGER NOT NULL, sha256 BLOB NOT NULL, data BLOB NOT NULL)",
               ("name", "dtype", "shape", "raw_size", "sha256", "data")),
    "events": ("CREATE TABLE events (seq INTEGER PRIMARY KEY, json TEXT NOT NULL, sha256 BLOB NOT NULL)",
               ("seq", "json", "sha256")),
}


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


@dataclass
class _Saved:
    """What a world last saved to one file: its volume, chunk versions, event count (and last event), and the
    file's identity then (device, inode, size, modification time), to tell whether the file changed since."""

    volume: VoxelVolume
    versions: np.ndarray
    event_count: int
    last_event: object
    identity: tuple


# Per world, what it last saved to each file (resolved path -> _Saved), or was loaded from; forgotten with the world.
_SAVED: WeakKeyDictionary[World, dict[str, _Saved]] = WeakKeyDictionary()


def _remember(world: World, target: Path) -> None:
    """Remember that ``world`` is, as it is now, what the file ``target`` holds."""
    _SAVED.setdefault(world, {})[str(target.resolve())] = _Saved(
        world.volume, world.volume.chunk_versions.copy(), len(world.events), world.events[-1] if world.events else None,
        _identity(target))


# ---------------------------------------------------------------------------------------------- checksums
def _array_label(name: str, dtype: str, shape: str) -> str:
    return f"array {name} {dtype} {shape}"


def _json(data) -> str:
    return json.dumps(data, separators=(",", ":"))


def _identity(path: Path) -> tuple:
    stat = path.stat()
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns


# ------------------------------------------------------------------------------------------------------ save
def save_world(world: World, path) -> SaveReport:
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


def _keep_store(volume: Volume, target: Path, full: bool, digests: dict) -> None:
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


def _write_new(target: Path, world: World, captured, events: list) -> tuple:
    """Write the whole world to a temporary file beside ``target``, then move it into place."""
    counts: list[tuple] = []

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


def _write(connection: sqlite3.Connection, world: World, captured, events: list, saved: _Saved | None,
           target: Path) -> tuple:
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
            array_rows.append((name, array.dtype.name, shape, len(raw), digest, compressor.compress(raw)))
    connection.executemany("INSERT OR REPLACE INTO arrays VALUES (?, ?, ?, ?, ?, ?)", array_rows)
    connection.executemany("DELETE FROM arrays WHERE name = ?", [(n,) for n in old if n not in captured.arrays])

    event_rows = [(seq, text, _sha(f"event {seq}", text.encode("utf-8"))) for seq, text in events]
    connection.executemany("INSERT OR REPLACE INTO events VALUES (?, ?, ?)", event_rows)
    connection.execute("DELETE FROM events WHERE seq >= ?", (len(world.events),))
    return saved is None, len(chunks), len(state_rows), len(array_rows), len(event_rows), digests


def _chunk_rows(volume: Volume, chunks, in_place: bool) -> tuple[list, dict]:
    """The rows of ``chunks`` (all their fields) and their digests by (chunk, field), None for a row of one value.
    A field left in the store behind the volume (a world file) is copied as its row there, or, ``in_place`` (the
    store is the file written), left where it is."""
    versions = volume.chunk_versions
    compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    rows, digests = [], {}
    for chunk in chunks:
        lo, hi = volume.chunk_box(chunk)
        version = int(versions[chunk])
        for field in FIELDS:
            if isinstance(volume, SparseVolume) and volume.left_in_store(chunk, field):
                row = volume.store.row(chunk, field)  # FormatError if the file changed under the world
                if row[4] == version:
                    digests[(chunk, field)] = row[6]
                    if not in_place:
                        rows.append(row)
                    continue
            raw = _chunk_bytes(volume, chunk, field, lo, hi)
            digest = _sha(_chunk_label(chunk, field, version), raw)
            rows.append((*chunk, field, version, len(raw), digest, compressor.compress(raw)))
            if len(raw) > FIELD_DTYPES[field].itemsize:
                digests[(chunk, field)] = digest
            else:
                digests[(chunk, field)] = None  # one value: never read from the store
    return rows, digests


def _chunk_bytes(volume, chunk, field: str, lo, hi) -> bytes:
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


def _failure(error: sqlite3.Error, path: Path, doing: str) -> Exception:
    """The error to raise for SQLite's ``error`` while ``doing`` something with ``path``: OSError (ENOSPC for a
    full disk, else EIO) for a failure to write or read, FormatError for a damaged file; both name the path."""
    name = getattr(error, "sqlite_errorname", "")
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return FormatError(f"{path}: {doing}: the file is damaged ({error}); it was left as it was")
    code = errno.ENOSPC if name.startswith("SQLITE_FULL") else errno.EIO
    return OSError(code, f"{path}: {doing} ({name or 'SQLite'}: {error}); it was left as it was", str(path))


def _check_ours(path: Path) -> None:
    """FormatError unless ``path`` holds an intact world file of this format and version (it is then safe to
    update): a damaged one is left for :func:`load_world` to report on."""
    with open(path, "rb") as file:
        header = file.read(len(SQLITE_HEADER))
    if header != SQLITE_HEADER:
        raise FormatError(f"{path}: refusing to overwrite a file that is not a voxelworld world file (not SQLite)")
    try:
        connection = _connect(path, "rw")  # read-write: a journal left by a killed save is rolled back first
        try:
            _check_meta(connection, path, (str(FORMAT_VERSION),))  # updated in place: of the version written
            check = connection.execute("PRAGMA quick_check").fetchall()
            if check != [("ok",)]:
                raise FormatError(f"{path}: refusing to overwrite a damaged world file: {check[0][0]}")
        finally:
            connection.close()
    except sqlite3.Error as error:
        raise FormatError(f"{path}: refusing to overwrite an unreadable SQLite file: {error}") from error


def _check_meta(connection: sqlite3.Connection, path: Path, versions=READ_VERSIONS) -> None:
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "meta" not in tables:
        raise FormatError(f"{path}: not a voxelworld world file (no 'meta' table)")
    meta = dict(connection.execute("SELECT key, value FROM meta"))
    if meta.get("format") != FORMAT:
        raise FormatError(f"{path}: not a voxelworld world file (meta 'format' is {meta.get('format')!r}, "
                          f"not {FORMAT!r})")
    if meta.get("version") not in versions:
        raise FormatError(f"{path}: world file version {meta.get('version')!r} is not one of {', '.join(versions)}, "
                          f"the ones this voxelworld {'reads' if len(versions) > 1 else 'updates'} (it writes "
                          f"{FORMAT_VERSION}; load an older file and save it to a new one)")


# ------------------------------------------------------------------------------------------------------ load
def load_world(path) -> World:
    """The world saved in ``path`` (see :func:`save_world`), ready to step.

    A missing path raises :class:`ParameterError`; a file that is not a complete, intact world file of this
    version raises :class:`FormatError` naming what is wrong (table, row, chunk, field).
    """
    target = Path(path)
    check_range("path", str(path), "an existing world file", target.is_file())
    with open(target, "rb") as file:
        header = file.read(len(SQLITE_HEADER))
    if header != SQLITE_HEADER:
        raise FormatError(f"{target}: not a voxelworld world file (not an SQLite database)" if header else
                          f"{target}: an empty file, not a voxelworld world file")
    try:
        connection = _connect(target, "rw" if os.access(target, os.W_OK) else "ro")
        try:
            volume, rows, arrays, events = _read(connection, target)
        finally:
            connection.close()
    except sqlite3.Error as error:
        raise FormatError(f"{target}: the SQLite database is damaged or unreadable: {error}") from error
    try:
        world = restore(volume, rows, arrays, events)
    except FormatError as error:
        raise FormatError(f"{target}: {error}") from error
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:  # rows of another writer
        raise FormatError(f"{target}: the saved state does not make a world: {type(error).__name__}: {error}"
                          ) from error
    _remember(world, target)
    return world


def _read(connection: sqlite3.Connection, path: Path) -> tuple:
    check = connection.execute("PRAGMA quick_check").fetchall()
    if check != [("ok",)]:
        raise FormatError(f"{path}: the SQLite database is damaged: {check[0][0]}")
    _check_meta(connection, path)
    for table, (_, columns) in SCHEMA.items():
        found = tuple(row[1] for row in connection.execute(f"PRAGMA table_info({table})"))
        if found != columns:
            raise FormatError(f"{path}: table {table!r} is missing or has other columns ({', '.join(found) or 'none'}"
                              f"; expected {', '.join(columns)})")
    rows = _read_state_rows(connection, path)
    volume = _empty_volume_of_file(connection, rows, path)
    decompressor = zstandard.ZstdDecompressor()
    _read_chunks(connection, path, volume, decompressor)
    arrays = _read_arrays(connection, path, decompressor)
    count = rows["world"].get("event_count") if isinstance(rows["world"], dict) else None
    codec = StateCodec(volume.materials)
    events = []
    for seq, text, digest in connection.execute("SELECT seq, json, sha256 FROM events ORDER BY seq"):
        if seq != len(events):
            raise FormatError(f"{path}: events: row {len(events)} is missing")
        if not isinstance(text, str) or _sha(f"event {seq}", text.encode("utf-8")) != digest:
            raise FormatError(f"{path}: events: row {seq}: checksum mismatch")
        try:
            events.append(decode_event(codec, _parse_json(text, f"{path}: events: row {seq}"), seq))
        except (FormatError, ValueError) as error:
            raise FormatError(f"{path}: events: row {seq}: {error}") from error
    if len(events) != count:
        raise FormatError(f"{path}: events: {len(events)} rows, the world row says {count!r}")
    return volume, rows, arrays, events


def _read_state_rows(connection, path: Path) -> dict:
    """The state rows by name, each checked against its checksum and parsed; FormatError for a missing one."""
    rows = {}
    for name, text, digest in connection.execute("SELECT name, json, sha256 FROM state"):
        if not isinstance(text, str) or _sha(f"state {name}", text.encode("utf-8")) != digest:
            raise FormatError(f"{path}: state row {name!r}: checksum mismatch")
        rows[name] = _parse_json(text, f"{path}: state row {name!r}")
    for name in STATE_ROWS:
        if name not in rows:
            raise FormatError(f"{path}: state row {name!r} is missing")
    return rows


def _read_arrays(connection, path: Path, decompressor, prefix: str = "") -> dict[str, np.ndarray]:
    """The rows of the ``arrays`` table (those whose name begins with ``prefix``), checked, by name."""
    arrays = {}
    for name, dtype, shape, raw_size, digest, data in connection.execute(
            "SELECT * FROM arrays WHERE substr(name, 1, ?) = ?", (len(prefix), prefix)):
        where = f"{path}: array {name!r}"
        dims = _array_shape(dtype, shape, where)
        raw = _decompress(decompressor, data, raw_size, np.dtype(dtype).itemsize * math.prod(dims), where)
        if _sha(_array_label(name, dtype, shape), raw) != digest:
            raise FormatError(f"{where}: checksum mismatch")
        arrays[name] = array_from_bytes(raw, dtype, dims, where)
    return arrays


def _parse_json(text: str, where: str):
    """The JSON value of ``text``; FormatError naming ``where`` for text that is not JSON or nests deeper than
    :data:`MAX_JSON_DEPTH` (no encoder writes it; the decoders recurse)."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise FormatError(f"{where}: JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as error:
        raise FormatError(f"{where}: not JSON: {error}") from error
    level = [data]
    for _ in range(MAX_JSON_DEPTH + 1):
        level = [v for value in level if isinstance(value, (list, dict))
                 for v in (value.values() if isinstance(value, dict) else value)]
        if not level:
            return data
    raise FormatError(f"{where}: JSON nested deeper than {MAX_JSON_DEPTH} levels")


def _array_shape(dtype, shape, where: str) -> tuple:
    """The shape (JSON text ``shape``) of an array row of ``dtype``; FormatError unless it is one
    :func:`array_from_bytes` reads, of at most :data:`MAX_ARRAY_BYTES`."""
    dims = _parse_json(shape, f"{where}: shape") if isinstance(shape, str) else None
    if not (isinstance(dims, list) and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in dims)):
        raise FormatError(f"{where}: a broken shape {shape!r}")
    array_from_bytes(b"", dtype, (0,), where)  # the dtype, checked
    size = np.dtype(dtype).itemsize * math.prod(dims)
    if size > MAX_ARRAY_BYTES:
        raise FormatError(f"{where}: shape {dims} of {dtype} is {size} bytes, more than the {MAX_ARRAY_BYTES} of the "
                          "largest array voxelworld reads (voxelworld.io.world_file.MAX_ARRAY_BYTES)")
    return tuple(dims)


def _empty_volume_of_file(connection, rows: dict, path: Path) -> VoxelVolume:
    """The empty volume of the ``volume`` row, once its size is within the limits and the file holds a chunk row
    for each of its chunks and fields, and no other (a size the rows do not back is refused before the volume is
    allocated, naming a missing or foreign chunk); FormatError naming ``path``."""
    try:
        row = rows["volume"]
        if isinstance(row, dict):
            dense = volume_storage(row) == "dense"
            shape = check_volume_size(row.get("shape"), row.get("chunk_size"), "state 'volume'", dense)
            _check_chunk_rows(connection, tuple(-(-n // row["chunk_size"]) for n in shape))
        return empty_volume(rows)
    except FormatError as error:
        raise FormatError(f"{path}: {error}") from error


def _check_chunk_rows(connection, grid: tuple) -> None:
    fields = ", ".join("?" * len(FIELDS))
    foreign = connection.execute(f"SELECT cx, cy, cz, field FROM chunks WHERE NOT (cx >= 0 AND cx < ? AND cy >= 0 "
                                 f"AND cy < ? AND cz >= 0 AND cz < ? AND field IN ({fields})) LIMIT 1",
                                 (*grid, *FIELDS)).fetchone()
    if foreign is not None:
        raise FormatError(f"chunk {tuple(foreign[:3])} field {foreign[3]!r}: not a chunk and field of a volume of "
                          f"{grid} chunks and fields {', '.join(FIELDS)}")
    expected = math.prod(grid) * len(FIELDS)
    (stored,) = connection.execute("SELECT COUNT(*) FROM chunks").fetchone()
    if stored != expected:  # rows are unique (the primary key) and none foreign: some are missing; name the first
        rows = connection.execute("SELECT cx, cy, cz, field FROM chunks ORDER BY cx, cy, cz, field")
        for chunk in product(*(range(n) for n in grid)):
            for field in sorted(FIELDS):
                if rows.fetchone() != (*chunk, field):
                    raise FormatError(f"chunk {chunk} field {field!r} is missing ({expected - stored} chunk fields "
                                      "missing)")


def _read_chunks(connection, path: Path, volume: Volume, decompressor, verify: bool = True) -> None:
    """Fill ``volume`` from the chunk rows, each checked (size, blob, checksum); a sparse volume keeps its rows of
    one value and leaves the others in the file (a :class:`WorldFileChunks` store, which checks them again when
    read). ``verify`` False (what a bake's worker opens, the file checked by its client): the rows left in the
    file are not read at all here."""
    grid = volume.chunk_grid_shape
    expected = {(chunk, field) for chunk in product(*(range(n) for n in grid)) for field in FIELDS}
    versions = np.zeros(grid, dtype=np.int64)
    dirty = volume.dirty_chunks  # as saved: writing the chunks marks them dirty
    lazy = isinstance(volume, SparseVolume)  # its chunks of voxels stay in the file, read when needed
    digests = {}
    last = None
    # Without verify, the blobs of rows holding voxels are not even read (one value: an item of at most 2 bytes).
    query = "SELECT * FROM chunks" if verify else ("SELECT cx, cy, cz, field, version, raw_size, sha256, "
                                                   "CASE WHEN raw_size <= 2 THEN data END FROM chunks")
    for cx, cy, cz, field, version, raw_size, digest, data in connection.execute(query):
        chunk = (cx, cy, cz)
        where = f"{path}: chunk {chunk} field {field!r}"
        if (chunk, field) not in expected:
            raise FormatError(f"{where}: not a chunk and field of a volume of {grid} chunks and fields "
                              f"{', '.join(FIELDS)}")
        expected.discard((chunk, field))
        dtype = FIELD_DTYPES[field]
        if chunk != last:  # the rows come chunk by chunk (the primary key's order)
            lo, hi = volume.chunk_box(chunk)
            shape, last = tuple(int(n) for n in hi - lo), chunk
        full = dtype.itemsize * math.prod(shape)
        uniform = raw_size == dtype.itemsize  # one value for the whole chunk (every row of a version 1 file: all)
        if not (uniform or raw_size == full):
            raise FormatError(f"{where}: raw_size {raw_size!r} is neither {dtype.itemsize} (one value for the whole "
                              f"chunk) nor {full}, the bytes of its voxels")
        if not isinstance(version, int):  # its label (and so its checksum) needs a whole number
            raise FormatError(f"{where}: checksum mismatch")
        versions[chunk] = version
        if verify or uniform:
            raw = _decompress(decompressor, data, raw_size, raw_size, where)
            if _sha(_chunk_label(chunk, field, version), raw) != digest:
                raise FormatError(f"{where}: checksum mismatch")
        if lazy:  # one value kept, the voxels left in the file
            if uniform:
                volume.fill_chunk(chunk, field, int(array_from_bytes(raw, dtype.name, (1,), where)[0]))
            else:
                volume.keep_in_store(chunk, field)
                digests[(chunk, field)] = digest
            continue
        if uniform:
            values = np.full(shape, array_from_bytes(raw, dtype.name, (1,), where)[0], dtype=dtype)
        else:
            values = array_from_bytes(raw, dtype.name, shape, where)
        volume.write_chunk(chunk, {field: values})
    if expected:
        chunk, field = min(expected)
        raise FormatError(f"{path}: chunk {chunk} field {field!r} is missing ({len(expected)} chunk fields missing)")
    volume.load_state_dict({"chunk_versions": versions, "dirty": dirty})  # the volume's own counters, as saved
    if lazy:
        volume.attach_store(WorldFileChunks(path, digests))


# --------------------------------------------------------------------------------------- a volume alone
def open_volume(path) -> tuple[SparseVolume, dict]:
    """The voxel volume of the large (sparse) world file ``path`` with every stored chunk left in the file,
    checked as it is read (:class:`~.chunk_store.WorldFileChunks`), and the file's state rows: what a bake worker
    opens, without reading the rows of voxels :func:`load_world` checks first (the client did) or building the
    world. FormatError for a file that is not an intact world file of a sparse world."""
    target = Path(path)
    check_range("path", str(path), "an existing world file", target.is_file())
    try:
        connection = _connect(target, "ro")
        try:
            _check_meta(connection, target)
            rows = _read_state_rows(connection, target)
            if volume_storage(rows["volume"]) != "sparse":
                raise FormatError(f"{target}: not a large world (its volume is stored dense): open it with load_world")
            volume = _empty_volume_of_file(connection, rows, target)
            _read_chunks(connection, target, volume, zstandard.ZstdDecompressor(), verify=False)
        finally:
            connection.close()
    except sqlite3.Error as error:
        raise FormatError(f"{target}: the SQLite database is damaged or unreadable: {error}") from error
    return volume, rows


def bake_inputs(path) -> tuple[SparseVolume, object, tuple]:
    """What a bake of the large world file ``path`` needs besides its voxels: its volume (:func:`open_volume`),
    its WorldSettings and its props as navmesh scene objects, as the game's navigation takes them."""
    from ..navigation import SceneObject

    volume, rows = open_volume(path)
    codec = StateCodec(volume.materials)
    try:
        settings = codec.decode(rows["settings"]["settings"], "settings")
        connection = _connect(Path(path), "ro")
        try:
            arrays = _read_arrays(connection, Path(path), zstandard.ZstdDecompressor(), "props.")
        finally:
            connection.close()
        props = tuple(SceneObject(name, arrays[f"props.{n}.positions"], arrays[f"props.{n}.indices"], role)
                      for n, (name, role, _) in enumerate(rows["props"]["props"]))
    except (KeyError, TypeError, ValueError) as error:
        raise FormatError(f"{path}: the state rows 'settings' or 'props' do not make a world: {error}") from error
    return volume, settings, props


def connect_for_writing(path) -> sqlite3.Connection:
    """A connection to update the world file ``path`` in place (autocommit: the caller opens its transactions),
    once it is checked to be an intact world file of this version."""
    target = Path(path)
    check_range("path", str(path), "an existing world file", target.is_file())
    _check_ours(target)
    return _connect(target, "rw")
