"""Reading world files (format: :mod:`voxelworld.io.world_format`): :func:`load_world` checks everything before
it builds anything (see :mod:`voxelworld.io.world_file`); :func:`open_volume` and :func:`bake_inputs` read a
file's volume alone (for the bake), :func:`connect_for_writing` opens one to write results into."""

from __future__ import annotations

import json
import math
import os
import sqlite3
from itertools import product
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import zstandard

from ..errors import FormatError, ParameterError, check_range
from ..game.ground_things import GroundThings
from ..game.settings import WorldSettings
from ..game.world import World
from ..terrain import FIELDS, SparseVolume, Volume, VoxelVolume
from ..terrain.base import FIELD_DTYPES
from .baked_rows import baked_meshes_of, stored_tiles_of
from .chunk_store import WorldFileChunks
from .chunk_store import chunk_label as _chunk_label
from .chunk_store import connect as _connect
from .chunk_store import decompress as _decompress
from .chunk_store import row_digest as _sha
from .codec import StateCodec, array_from_bytes, check_volume_size
from .state import STATE_ROWS, decode_event, empty_volume, restore, saved_things, volume_storage
from .world_format import (
    MAX_ARRAY_BYTES,
    MAX_JSON_DEPTH,
    SCHEMA,
    SQLITE_HEADER,
    _array_label,
    _check_meta,
    _check_ours,
    _remember,
)

if TYPE_CHECKING:
    from ..game.events import Event
    from ..navigation import SceneObject

__all__ = ["load_world", "open_volume", "bake_inputs", "connect_for_writing"]


def load_world(path: str | os.PathLike[str]) -> World:
    """The world saved in ``path`` (see :func:`save_world`), ready to step.

    A missing path raises :class:`ParameterError`; a file that is not a complete, intact world file of this
    version raises :class:`FormatError` naming what is wrong (table, row, chunk, field). A large (sparse) world's
    rows of voxels are checked when they are read (the volume reads a chunk when something first needs it: the
    chunks meshed around the player at once, the others as the world streams), once; a damaged one raises
    FormatError naming it then. A file that ``voxelworld bake`` baked gives its mesher the baked display meshes
    and its navmesh the baked tiles (:mod:`voxelworld.io.baked_rows`): each takes them where they are what it
    would make, and meshes only the chunks changed since the bake, or at other levels, and bakes only the tiles
    whose chunks or things changed since.
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
            large = isinstance(volume, SparseVolume)
            baked = baked_meshes_of(connection, target, volume.chunk_grid_shape) if large else None
            stored = stored_tiles_of(connection, target) if large else None
        finally:
            connection.close()
    except sqlite3.Error as error:
        raise FormatError(f"{target}: the SQLite database is damaged or unreadable: {error}") from error
    try:
        world = restore(volume, rows, arrays, events, baked, stored)
    except FormatError as error:
        raise FormatError(f"{target}: {error}") from error
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:  # rows of another writer
        raise FormatError(f"{target}: the saved state does not make a world: {type(error).__name__}: {error}"
                          ) from error
    _remember(world, target)
    return world


def _read(connection: sqlite3.Connection,
          path: Path) -> tuple[VoxelVolume | SparseVolume, dict[str, Any], dict[str, np.ndarray], list[Event]]:
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
    # A large world's rows of voxels are checked as the volume reads them (WorldFileChunks), not all up front.
    _read_chunks(connection, path, volume, decompressor, verify=not isinstance(volume, SparseVolume))
    arrays = _read_arrays(connection, path, decompressor)
    count = rows["world"].get("event_count") if isinstance(rows["world"], dict) else None
    codec = StateCodec(volume.materials)
    events: list[Event] = []
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


def _read_state_rows(connection: sqlite3.Connection, path: Path) -> dict[str, Any]:
    """The state rows by name, each checked against its checksum and parsed; FormatError for a missing one."""
    rows: dict[str, Any] = {}
    for name, text, digest in connection.execute("SELECT name, json, sha256 FROM state"):
        if not isinstance(text, str) or _sha(f"state {name}", text.encode("utf-8")) != digest:
            raise FormatError(f"{path}: state row {name!r}: checksum mismatch")
        rows[name] = _parse_json(text, f"{path}: state row {name!r}")
    for name in STATE_ROWS:
        if name not in rows:
            raise FormatError(f"{path}: state row {name!r} is missing")
    return rows


def _read_arrays(connection: sqlite3.Connection, path: Path, decompressor: zstandard.ZstdDecompressor,
                 prefix: str = "") -> dict[str, np.ndarray]:
    """The rows of the ``arrays`` table (those whose name begins with ``prefix``), checked, by name."""
    arrays: dict[str, np.ndarray] = {}
    for name, dtype, shape, raw_size, digest, data in connection.execute(
            "SELECT * FROM arrays WHERE substr(name, 1, ?) = ?", (len(prefix), prefix)):
        where = f"{path}: array {name!r}"
        dims = _array_shape(dtype, shape, where)
        raw = _decompress(decompressor, data, raw_size, np.dtype(dtype).itemsize * math.prod(dims), where)
        if _sha(_array_label(name, dtype, shape), raw) != digest:
            raise FormatError(f"{where}: checksum mismatch")
        arrays[name] = array_from_bytes(raw, dtype, dims, where)
    return arrays


def _parse_json(text: str, where: str) -> Any:
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


def _array_shape(dtype: str, shape: object, where: str) -> tuple[int, ...]:
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


def _empty_volume_of_file(connection: sqlite3.Connection, rows: dict, path: Path) -> VoxelVolume | SparseVolume:
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


def _check_chunk_rows(connection: sqlite3.Connection, grid: tuple[int, ...]) -> None:
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


def _read_chunks(connection: sqlite3.Connection, path: Path, volume: Volume, decompressor: zstandard.ZstdDecompressor,
                 verify: bool = True) -> None:
    """Fill ``volume`` from the chunk rows, each checked (size, blob, checksum); a sparse volume keeps its rows of
    one value and leaves the others in the file (a :class:`WorldFileChunks` store, which checks them again when
    read). ``verify`` False (a large world's load, and what a bake's worker opens): the rows left in the file
    are not read at all here, only checked when the volume reads them (once)."""
    grid = volume.chunk_grid_shape
    expected = {(chunk, field) for chunk in product(*(range(n) for n in grid)) for field in FIELDS}
    versions = np.zeros(grid, dtype=np.int64)
    dirty = volume.dirty_chunks  # as saved: writing the chunks marks them dirty
    # A sparse volume's chunks of voxels stay in the file, read when needed; its uniform ones are filled at once.
    lazy = volume if isinstance(volume, SparseVolume) else None
    uniform_where = {name: np.zeros(grid, dtype=bool) for name in FIELDS}
    uniform_values = {name: np.zeros(grid, dtype=FIELD_DTYPES[name]) for name in FIELDS}
    away = {name: np.zeros(grid, dtype=bool) for name in FIELDS}
    # The value of each uniform row's blob, decompressed once a blob (a large world's rows repeat a few values).
    values_of: dict[tuple[str, bytes], tuple[bytes, int]] = {}
    digests: dict[tuple[tuple[int, ...], str], bytes] = {}
    chunk: tuple[int, ...]
    last: tuple[int, ...] | None = None
    size, extent = volume.chunk_size, volume.shape
    # Without verify, the blobs of rows holding voxels are not even read (one value: an item of at most 2 bytes).
    query = "SELECT * FROM chunks" if verify else ("SELECT cx, cy, cz, field, version, raw_size, sha256, "
                                                   "CASE WHEN raw_size <= 2 THEN data END FROM chunks")
    for cx, cy, cz, field, version, raw_size, digest, data in connection.execute(query):
        chunk = (cx, cy, cz)
        if (chunk, field) not in expected:
            raise FormatError(f"{path}: chunk {chunk} field {field!r}: not a chunk and field of a volume of {grid} "
                              f"chunks and fields {', '.join(FIELDS)}")
        expected.discard((chunk, field))
        dtype = FIELD_DTYPES[field]
        if chunk != last:  # the rows come chunk by chunk (the primary key's order)
            shape = tuple(min(size, n - c * size) for c, n in zip(chunk, extent))  # volume.chunk_box's
            last, voxels = chunk, math.prod(shape)
        full = dtype.itemsize * voxels
        uniform = raw_size == dtype.itemsize  # one value for the whole chunk (every row of a version 1 file: all)
        if not (uniform or raw_size == full):
            raise FormatError(f"{path}: chunk {chunk} field {field!r}: raw_size {raw_size!r} is neither "
                              f"{dtype.itemsize} (one value for the whole chunk) nor {full}, the bytes of its voxels")
        if not isinstance(version, int):  # its label (and so its checksum) needs a whole number
            raise FormatError(f"{path}: chunk {chunk} field {field!r}: checksum mismatch")
        versions[chunk] = version
        if lazy is not None and uniform and isinstance(data, bytes):
            found = values_of.get((field, data))
            if found is None:
                where = f"{path}: chunk {chunk} field {field!r}"
                raw = _decompress(decompressor, data, raw_size, raw_size, where)
                found = values_of[(field, data)] = (raw, int(array_from_bytes(raw, dtype.name, (1,), where)[0]))
            raw, value = found
            if _sha(_chunk_label(chunk, field, version), raw) != digest:
                raise FormatError(f"{path}: chunk {chunk} field {field!r}: checksum mismatch")
            uniform_where[field][chunk], uniform_values[field][chunk] = True, value
            continue
        where = f"{path}: chunk {chunk} field {field!r}"
        if verify or uniform:
            raw = _decompress(decompressor, data, raw_size, raw_size, where)
            if _sha(_chunk_label(chunk, field, version), raw) != digest:
                raise FormatError(f"{where}: checksum mismatch")
        if lazy is not None:  # the voxels left in the file
            away[field][chunk] = True
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
    if lazy is not None:
        for name in FIELDS:
            lazy.fill_chunks(name, uniform_where[name], uniform_values[name])
            lazy.keep_chunks_in_store(name, away[name])
    volume.load_state_dict({"chunk_versions": versions, "dirty": dirty})  # the volume's own counters, as saved
    if lazy is not None:
        lazy.attach_store(WorldFileChunks(path, digests))


# --------------------------------------------------------------------------------------- a volume alone
def open_volume(path: str | os.PathLike[str]) -> tuple[SparseVolume, dict[str, Any]]:
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
            volume = cast(SparseVolume, _empty_volume_of_file(connection, rows, target))  # storage sparse: checked
            _read_chunks(connection, target, volume, zstandard.ZstdDecompressor(), verify=False)
        finally:
            connection.close()
    except sqlite3.Error as error:
        raise FormatError(f"{target}: the SQLite database is damaged or unreadable: {error}") from error
    return volume, rows


def bake_inputs(path: str | os.PathLike[str]) -> tuple[SparseVolume, WorldSettings, tuple[SceneObject, ...],
                                                       tuple | None]:
    """What a bake of the large world file ``path`` needs besides its voxels: its volume (:func:`open_volume`),
    its WorldSettings, its props as navmesh scene objects, as the game's navigation takes them, and its things on
    the ground (:func:`~voxelworld.io.state.saved_things`: generator, scatter settings, changed columns; None for a
    world without). FormatError when the state rows ``settings``, ``props`` or ``ground_things`` do not make them."""
    from ..navigation import SceneObject

    volume, rows = open_volume(path)
    codec = StateCodec(volume.materials)
    try:
        settings = codec.decode(rows["settings"]["settings"], "settings")
        if not isinstance(settings, WorldSettings):
            raise FormatError(f"{path}: the state row 'settings' does not hold the world's WorldSettings (it holds "
                              f"a value of type {type(settings).__name__})")
        connection = _connect(Path(path), "ro")
        try:
            arrays = _read_arrays(connection, Path(path), zstandard.ZstdDecompressor(), "props.")
        finally:
            connection.close()
        props = tuple(SceneObject(name, arrays[f"props.{n}.positions"], arrays[f"props.{n}.indices"], role)
                      for n, (name, role, _) in enumerate(rows["props"]["props"]))
    except (KeyError, TypeError, ValueError) as error:
        raise FormatError(f"{path}: the state rows 'settings' or 'props' do not make a world: {error}") from error
    try:
        things = None if rows.get("ground_things") is None else saved_things(rows["ground_things"])
        if things is not None:  # its changed columns, checked here (not in a worker)
            GroundThings(volume, things[0], things[1]).load_state_dict({"columns": things[2]})
    except FormatError as error:
        raise FormatError(f"{path}: {error}") from error
    except ParameterError as error:
        raise FormatError(f"{path}: state 'ground_things'.columns: {error}") from error
    return volume, settings, props, things


def connect_for_writing(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A connection to update the world file ``path`` in place (autocommit: the caller opens its transactions),
    once it is checked to be an intact world file of this version."""
    target = Path(path)
    check_range("path", str(path), "an existing world file", target.is_file())
    _check_ours(target)
    return _connect(target, "rw")
