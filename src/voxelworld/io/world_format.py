"""What the save and the load of a world file (:mod:`voxelworld.io.world_file`) share: the format's name,
version and tables, the limits a reader holds a file to, the labels rows are checksummed under, the checks that
a file is one of ours, and the memory of what each world last saved to (or loaded from) each file."""

from __future__ import annotations

import errno
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from weakref import WeakKeyDictionary

import numpy as np

from ..errors import FormatError
from ..game.world import World
from ..terrain import Volume
from .chunk_store import connect as _connect

FORMAT = "voxelworld-world"
FORMAT_VERSION = 3
# version 1: no storage key, a chunk row of every field holds all its voxels; versions 1 and 2: no area types (the
# navmesh's polygons all ground, the navigation row without terrain_area_types and area_types)
READ_VERSIONS = ("1", "2", "3")
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





@dataclass
class _Saved:
    """What a world last saved to one file: its volume, chunk versions, event count (and last event), and the
    file's identity then (device, inode, size, modification time), to tell whether the file changed since."""

    volume: Volume
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


def _json(data: object) -> str:
    return json.dumps(data, separators=(",", ":"))


def _identity(path: Path) -> tuple:
    stat = path.stat()
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns



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


def _check_meta(connection: sqlite3.Connection, path: Path, versions: tuple[str, ...] = READ_VERSIONS) -> None:
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
