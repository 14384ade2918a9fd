"""The baked display meshes and navmesh tiles of a world file (the ``bake_meshes`` and ``bake_tiles`` rows
``voxelworld bake`` writes, format: docs/specs/world-format.md, *Baked meshes and tiles*) as a
:class:`~voxelworld.meshing.baked.BakedMeshes` source for a loaded world's mesher and a
:class:`~voxelworld.game.nav_stored.StoredTiles` source for its navmesh: a row is read, and checked, when the mesher
or the navmesh takes it, once; nothing is read of a file without a bake (its mesher meshes as before).
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
import weakref
from pathlib import Path

import numpy as np
import zstandard

from ..errors import FormatError
from ..game.nav_stored import StoredTiles
from ..meshing import DisplayMesh
from ..meshing.baked import BakedMeshes
from ..navigation.areas import BakeArea
from ..navigation.tile_checks import tile_from_arrays
from ..navigation.tiles import BakedTile
from .chunk_store import connect, decompress, row_digest
from .codec import array_from_bytes

__all__ = ["WorldFileBake", "WorldFileTiles", "baked_meshes_of", "stored_tiles_of", "arrays_from_bytes",
           "MAX_BAKED_ROW_BYTES"]

# The largest raw row a reader takes (a chunk's display mesh is a few hundred KiB at most).
MAX_BAKED_ROW_BYTES = 2 ** 28
DISPLAY_ARRAYS = ("positions", "normals", "indices", "mat_a", "mat_b", "blend", "occlusion")


def arrays_from_bytes(raw: bytes, where: str = "bake row") -> dict[str, np.ndarray]:
    """The named arrays of a bake row's raw bytes (a JSON header line ``[[name, dtype, shape], ...]``, then each
    array's bytes); FormatError naming ``where`` for bytes that are not that."""
    header, _, body = raw.partition(b"\n")
    try:
        parsed = json.loads(header)
    except ValueError as error:
        raise FormatError(f"{where}: its header is not JSON ({error})") from error
    out, offset = {}, 0
    if not isinstance(parsed, list):
        raise FormatError(f"{where}: its header is not a list of arrays")
    for item in parsed:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str) and isinstance(item[1], str)
                and isinstance(item[2], list) and all(isinstance(n, int) and n >= 0 for n in item[2])):
            raise FormatError(f"{where}: a broken array header {item!r}")
        name, dtype, shape = item
        array_from_bytes(b"", dtype, (0,), f"{where}: array {name!r}")  # the dtype, checked
        size = np.dtype(dtype).itemsize * math.prod(shape)
        if offset + size > len(body):
            raise FormatError(f"{where}: array {name!r} runs past the row's bytes")
        out[name] = array_from_bytes(body[offset:offset + size], dtype, tuple(shape), f"{where}: array {name!r}")
        offset += size
    return out


class BakeRows:
    """A world file's bake tables, read from any thread: rows by a query, and a row's raw bytes checked."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).resolve()
        self._connection = connect(self.path, "ro", threads=True)
        self._lock = threading.Lock()
        weakref.finalize(self, self._connection.close)

    def query(self, sql: str, arguments: tuple) -> list[tuple]:
        try:
            with self._lock:
                return self._connection.execute(sql, arguments).fetchall()
        except sqlite3.Error as error:
            raise FormatError(f"{self.path}: the bake's rows cannot be read ({error})") from error

    def raw(self, where: str, label: str, raw_size: object, digest: object, data: object) -> bytes:
        """The raw bytes of a row's ``data`` (at most :data:`MAX_BAKED_ROW_BYTES`), checked against its checksum
        ``digest`` over ``label``; FormatError naming ``where`` otherwise."""
        if not isinstance(raw_size, int) or not 0 <= raw_size <= MAX_BAKED_ROW_BYTES:
            raise FormatError(f"{where}: raw_size {raw_size!r} is not a size up to {MAX_BAKED_ROW_BYTES} bytes")
        raw = decompress(zstandard.ZstdDecompressor(), data, raw_size, raw_size, where)
        if row_digest(label, raw) != digest:
            raise FormatError(f"{where}: checksum mismatch")
        return raw


class WorldFileBake(BakedMeshes):
    """The ``bake_meshes`` rows of the world file ``path`` (see the module)."""

    def __init__(self, path: str | Path, grid: tuple[int, int, int]) -> None:
        super().__init__()
        self.rows = BakeRows(path)
        self.path = self.rows.path
        self.grid = grid
        self._known = np.zeros(grid, dtype=bool)  # chunks whose baked version was looked up
        self._found = np.full(grid, -1, dtype=np.int64)

    def versions(self, wanted: np.ndarray) -> np.ndarray:
        """The chunk version each wanted chunk's display meshes were baked from (its level 0 row's; -1 for none),
        looked up once a chunk, by the table's key."""
        todo = wanted & ~self._known
        if todo.any():
            lo, hi = np.argwhere(todo).min(axis=0), np.argwhere(todo).max(axis=0)
            for cx, cy, cz, version in self.rows.query(
                    "SELECT cx, cy, cz, version FROM bake_meshes WHERE cx BETWEEN ? AND ? AND cy BETWEEN ? AND ? AND "
                    "cz BETWEEN ? AND ? AND kind = 'display' AND level = 0",
                    (int(lo[0]), int(hi[0]), int(lo[1]), int(hi[1]), int(lo[2]), int(hi[2]))):
                chunk = (cx, cy, cz)
                if all(isinstance(c, int) and 0 <= c < n for c, n in zip(chunk, self.grid)) and isinstance(version, int):
                    self._found[chunk] = version
            self._known[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1, lo[2]:hi[2] + 1] = True
        return np.where(wanted, self._found, -1)

    def display_mesh(self, chunk: tuple[int, int, int], level: int) -> DisplayMesh | None:
        """The row's display mesh, checked (FormatError naming the row when it is damaged); None when the file has
        no row of ``chunk`` at ``level`` made from the version :meth:`versions` told."""
        expected = int(self._found[chunk])
        rows = self.rows.query("SELECT version, raw_size, sha256, data FROM bake_meshes WHERE cx = ? AND cy = ? AND "
                               "cz = ? AND kind = 'display' AND level = ?", (*map(int, chunk), int(level)))
        if not rows or rows[0][0] != expected or expected < 0:
            return None
        version, raw_size, digest, data = rows[0]
        where = f"{self.path}: bake_meshes row {tuple(chunk)} display level {level}"
        raw = self.rows.raw(where, f"bake mesh {chunk[0]},{chunk[1]},{chunk[2]} display {level} v{version}",
                            raw_size, digest, data)
        arrays = arrays_from_bytes(raw, where)
        if sorted(arrays) != sorted(DISPLAY_ARRAYS):
            raise FormatError(f"{where}: holds the arrays {', '.join(arrays)}, not {', '.join(DISPLAY_ARRAYS)}")
        try:
            return DisplayMesh(**arrays)
        except (TypeError, ValueError) as error:
            raise FormatError(f"{where}: not a display mesh ({error})") from error


class WorldFileTiles(StoredTiles):
    """The ``bake_tiles`` rows of the world file ``path`` (:mod:`voxelworld.game.nav_stored`): a row is read when
    the navigation asks for its tile, taken when its ``source`` is the navigation's, and then checked (its checksum,
    and :func:`~voxelworld.navigation.tile_checks.tile_from_arrays`: FormatError naming the row when it is not a
    tile). Read from any thread."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.rows = BakeRows(path)
        self.path = self.rows.path

    def tile(self, tile: tuple[int, int], source: bytes, area: BakeArea) -> BakedTile | None:
        rows = self.rows.query("SELECT source, raw_size, sha256, data FROM bake_tiles WHERE ti = ? AND tk = ?",
                               (int(tile[0]), int(tile[1])))
        if not rows or not source or rows[0][0] != source:
            return None
        _, raw_size, digest, data = rows[0]
        where = f"{self.path}: bake_tiles row {tuple(tile)}"
        raw = self.rows.raw(where, f"bake tile {tile[0]},{tile[1]}", raw_size, digest, data)
        return tile_from_arrays(arrays_from_bytes(raw, where), tile, area, where)


def stored_tiles_of(connection: sqlite3.Connection, path: Path) -> WorldFileTiles | None:
    """The baked navmesh tiles of the world file ``path`` (open as ``connection``), or None when it holds none (or
    only those of a bake before tiles kept their ``source``)."""
    columns = [row[1] for row in connection.execute("PRAGMA table_info(bake_tiles)")]
    if "source" not in columns or connection.execute("SELECT 1 FROM bake_tiles LIMIT 1").fetchone() is None:
        return None
    return WorldFileTiles(path)


def baked_meshes_of(connection: sqlite3.Connection, path: Path, grid: tuple[int, int, int]) -> WorldFileBake | None:
    """The baked meshes of the world file ``path`` (open as ``connection``), or None when it holds no bake."""
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "bake_meshes" not in tables:
        return None
    if connection.execute("SELECT 1 FROM bake_meshes LIMIT 1").fetchone() is None:
        return None
    return WorldFileBake(path, grid)
