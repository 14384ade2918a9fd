"""The rows a bake writes into the world file, beside its voxels: each baked mesh and navmesh tile as the raw bytes
of its arrays (a JSON header of names, dtypes and shapes, then each array's little-endian C-order bytes),
zstd-compressed, with a SHA-256 of its key and raw bytes (format: docs/specs/world-format.md, *Baked meshes and
tiles*). The same arrays always give the same bytes, so a row is the same whichever process made it. A block's
marker holds a digest of its rows (:func:`block_digest`): a resumed bake keeps a block only if the rows the file
holds still give it."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Sequence
from contextlib import closing
from dataclasses import fields
from functools import cache
from typing import TYPE_CHECKING

import numpy as np
import zstandard

from ..errors import FormatError
from ..io.chunk_store import compressed, row_digest
from ..io.codec import array_bytes, array_from_bytes
from ..meshing import CollisionMesh, DisplayMesh
from ..navigation.tile_checks import tile_arrays
from ..navigation.tiles import BakedTile

if TYPE_CHECKING:
    from .blocks import BlockResult

__all__ = ["BAKE_SCHEMA", "mesh_record", "tile_record", "arrays_bytes", "arrays_from_bytes", "read_row",
           "create_tables", "write_block", "done_blocks", "block_digest", "stored_rows"]

ZSTD_LEVEL = 3
BAKE_SCHEMA = {
    "bake_meshes": "CREATE TABLE IF NOT EXISTS bake_meshes (cx INTEGER NOT NULL, cy INTEGER NOT NULL, "
                   "cz INTEGER NOT NULL, kind TEXT NOT NULL, level INTEGER NOT NULL, version INTEGER NOT NULL, "
                   "raw_size INTEGER NOT NULL, sha256 BLOB NOT NULL, data BLOB NOT NULL, "
                   "PRIMARY KEY (cx, cy, cz, kind, level))",
    "bake_tiles": "CREATE TABLE IF NOT EXISTS bake_tiles (ti INTEGER NOT NULL, tk INTEGER NOT NULL, "
                  "source BLOB NOT NULL, raw_size INTEGER NOT NULL, sha256 BLOB NOT NULL, data BLOB NOT NULL, "
                  "PRIMARY KEY (ti, tk))",
    "bake_blocks": "CREATE TABLE IF NOT EXISTS bake_blocks (bx INTEGER NOT NULL, bz INTEGER NOT NULL, "
                   "what TEXT NOT NULL, sha256 BLOB NOT NULL, PRIMARY KEY (bx, bz))",
}


def arrays_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """The raw bytes of named arrays: a JSON header line (names, dtypes, shapes, in the given order), then each
    array's bytes."""
    header = json.dumps([[name, array.dtype.name, list(array.shape)] for name, array in arrays.items()],
                        separators=(",", ":"))
    return header.encode("utf-8") + b"\n" + b"".join(array_bytes(array) for array in arrays.values())


def _compressed(label: str, raw: bytes) -> tuple[int, bytes, bytes]:
    return len(raw), row_digest(label, raw), compressed(zstandard.ZstdCompressor(level=ZSTD_LEVEL), raw)


def mesh_record(chunk: Sequence[int], kind: str, level: int, version: int,
                mesh: DisplayMesh | CollisionMesh | None) -> tuple:
    """The ``bake_meshes`` row of a chunk's display or collision mesh (None: no triangles) at a level of
    detail, made from the chunk's voxels at ``version``."""
    if mesh is None:
        mesh = DisplayMesh.empty() if kind == "display" else CollisionMesh.empty()
    raw = arrays_bytes({f.name: getattr(mesh, f.name) for f in fields(mesh)})
    label = f"bake mesh {chunk[0]},{chunk[1]},{chunk[2]} {kind} {level} v{version}"
    return (*chunk, kind, level, version, *_compressed(label, raw))


def tile_record(tile: tuple[int, int], baked: BakedTile, source: bytes = b"") -> tuple:
    """The ``bake_tiles`` row of a navmesh tile: the digest of what its bake read (``source``,
    :func:`voxelworld.game.nav_stored.tile_source`; empty: a game never takes the tile), then its
    :func:`~voxelworld.navigation.tile_checks.tile_arrays` (its polygons' arrays, ``area_type`` among them, its side
    steps and the area types' names)."""
    raw = arrays_bytes(tile_arrays(baked))
    return (*tile, source, *_compressed(f"bake tile {tile[0]},{tile[1]}", raw))


def create_tables(connection: sqlite3.Connection, path: object = "the world file") -> tuple[str, ...]:
    """Make the bake's tables where the file has none. A table of a bake's name with other columns (a damaged or
    forged file: its rows mean nothing to a bake) is dropped and made again, so its blocks are baked again; an
    object of that name that is not a table is refused (FormatError naming it). Returns the tables made again."""
    remade = []
    for name, statement in BAKE_SCHEMA.items():
        kinds = [row[0] for row in connection.execute("SELECT type FROM sqlite_master WHERE name = ?", (name,))]
        if kinds not in ([], ["table"]):
            raise FormatError(f"{path}: {name} is a {', '.join(kinds)}, where a bake keeps a table of that name")
        columns = [row[1] for row in connection.execute(f"PRAGMA table_info({name})")]
        if columns and columns != _bake_columns(name):
            connection.execute(f"DROP TABLE {name}")
            remade.append(name)
        connection.execute(statement)
    return tuple(remade)


@cache
def _bake_columns(name: str) -> list[str]:
    """The columns of the bake's table ``name``, as its statement in BAKE_SCHEMA makes them."""
    with closing(sqlite3.connect(":memory:")) as connection:
        connection.execute(BAKE_SCHEMA[name])
        return [row[1] for row in connection.execute(f"PRAGMA table_info({name})")]


def block_digest(block: tuple[int, int], what: str, meshes: Sequence[tuple], tiles: Sequence[tuple]) -> bytes:
    """The digest a block's marker holds: SHA-256 over the label ``bake block {bx},{bz} {what}``, a newline, then
    every column of its ``bake_meshes`` rows in key order (cx, cy, cz, kind, level), then of its ``bake_tiles``
    rows in key order (ti, tk), each value tagged with its type and length (:func:`_value_bytes`). The rows as
    written or as read back give the same digest; a row missing, added or changed in any column (its blob's
    bytes too) gives another."""
    digest = hashlib.sha256(f"bake block {block[0]},{block[1]} {what}\n".encode())
    for table, rows, width in (("meshes", meshes, 5), ("tiles", tiles, 2)):
        digest.update(f"{table} {len(rows)}\n".encode("ascii"))
        # Keyed by (type, value): a damaged row's key of another type sorts, it never raises.
        for row in sorted(rows, key=lambda row: tuple((type(v).__name__, v) for v in row[:width])):
            for value in row:
                digest.update(_value_bytes(value))
    return digest.digest()


def _value_bytes(value: object) -> bytes:
    """A column's value as bytes that tell its type and where it ends (int, text, blob; anything else by repr)."""
    if isinstance(value, bytes):
        return b"b%d:" % len(value) + value
    if isinstance(value, str):
        text = value.encode("utf-8")
        return b"s%d:" % len(text) + text
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return b"i%d;" % int(value)
    text = repr(value).encode("utf-8")
    return b"r%d:" % len(text) + text


def write_block(connection: sqlite3.Connection, result: BlockResult, what: str) -> None:
    """Write one block's rows and its marker (:func:`block_digest` of the rows) in one transaction: a bake killed
    at any moment leaves every block either written whole or not at all."""
    digest = block_digest(result.block, what, result.meshes, result.tiles)
    connection.execute("BEGIN IMMEDIATE")
    try:
        connection.executemany("INSERT OR REPLACE INTO bake_meshes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", result.meshes)
        connection.executemany("INSERT OR REPLACE INTO bake_tiles VALUES (?, ?, ?, ?, ?, ?)", result.tiles)
        connection.execute("INSERT OR REPLACE INTO bake_blocks VALUES (?, ?, ?, ?)", (*result.block, what, digest))
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


def done_blocks(connection: sqlite3.Connection, what: str) -> dict[tuple[int, int], bytes]:
    """The blocks a bake of ``what`` already wrote, with their markers' digests (a bake resumes after those whose
    rows still give the digest: :func:`stored_rows`, :func:`block_digest`)."""
    return {(bx, bz): digest for bx, bz, digest in
            connection.execute("SELECT bx, bz, sha256 FROM bake_blocks WHERE what = ?", (what,))}


def stored_rows(connection: sqlite3.Connection, columns: tuple[int, int, int, int] | None,
                tiles: Iterable[tuple[int, int]]) -> tuple[list, list]:
    """The rows the file holds of one block: the ``bake_meshes`` rows of the chunk ``columns`` (x0, z0, x1, z1,
    inclusive; None: none) and the ``bake_tiles`` rows of ``tiles``, each in key order."""
    meshes = [] if columns is None else connection.execute(
        "SELECT * FROM bake_meshes WHERE cx BETWEEN ? AND ? AND cz BETWEEN ? AND ? ORDER BY cx, cy, cz, kind, level",
        (columns[0], columns[2], columns[1], columns[3])).fetchall()
    found = [connection.execute("SELECT * FROM bake_tiles WHERE ti = ? AND tk = ?", tile).fetchone()
             for tile in sorted(tiles)]
    return meshes, [row for row in found if row is not None]


def arrays_from_bytes(raw: bytes) -> dict[str, np.ndarray]:
    """The named arrays of :func:`arrays_bytes` (for readers of the bake tables)."""
    header, _, body = raw.partition(b"\n")
    out, offset = {}, 0
    for name, dtype, shape in json.loads(header):
        size = np.dtype(dtype).itemsize * int(np.prod(shape))
        out[name] = array_from_bytes(body[offset:offset + size], dtype, tuple(shape), f"bake row array {name!r}")
        offset += size
    return out


def read_row(data: bytes) -> dict[str, np.ndarray]:
    """The arrays of a bake table's ``data`` blob."""
    return arrays_from_bytes(zstandard.ZstdDecompressor().decompress(data))
