"""The rows a bake writes into the world file, beside its voxels: each baked mesh and navmesh tile as the raw bytes
of its arrays (a JSON header of names, dtypes and shapes, then each array's little-endian C-order bytes),
zstd-compressed, with a SHA-256 of its key and raw bytes (format: docs/specs/world-format.md, *Baked meshes and
tiles*). The same arrays always give the same bytes, so a row is the same whichever process made it."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import fields

import numpy as np
import zstandard

from ..io.chunk_store import row_digest
from ..io.codec import array_bytes, array_from_bytes
from ..meshing import CollisionMesh, DisplayMesh
from ..navigation.polygons import TilePolygons
from ..navigation.tiles import BakedTile

__all__ = ["BAKE_SCHEMA", "mesh_record", "tile_record", "arrays_bytes", "arrays_from_bytes", "read_row",
           "create_tables", "write_block", "done_blocks"]

ZSTD_LEVEL = 3
BAKE_SCHEMA = {
    "bake_meshes": "CREATE TABLE IF NOT EXISTS bake_meshes (cx INTEGER NOT NULL, cy INTEGER NOT NULL, "
                   "cz INTEGER NOT NULL, kind TEXT NOT NULL, level INTEGER NOT NULL, version INTEGER NOT NULL, "
                   "raw_size INTEGER NOT NULL, sha256 BLOB NOT NULL, data BLOB NOT NULL, "
                   "PRIMARY KEY (cx, cy, cz, kind, level))",
    "bake_tiles": "CREATE TABLE IF NOT EXISTS bake_tiles (ti INTEGER NOT NULL, tk INTEGER NOT NULL, "
                  "raw_size INTEGER NOT NULL, sha256 BLOB NOT NULL, data BLOB NOT NULL, PRIMARY KEY (ti, tk))",
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
    return len(raw), row_digest(label, raw), zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(raw)


def mesh_record(chunk, kind: str, level: int, version: int, mesh) -> tuple:
    """The ``bake_meshes`` row of a chunk's display or collision mesh (None: no triangles) at a level of
    detail, made from the chunk's voxels at ``version``."""
    if mesh is None:
        mesh = DisplayMesh.empty() if kind == "display" else CollisionMesh.empty()
    raw = arrays_bytes({f.name: getattr(mesh, f.name) for f in fields(mesh)})
    label = f"bake mesh {chunk[0]},{chunk[1]},{chunk[2]} {kind} {level} v{version}"
    return (*chunk, kind, level, version, *_compressed(label, raw))


def tile_record(tile, baked: BakedTile) -> tuple:
    """The ``bake_tiles`` row of a navmesh tile: its polygons' arrays and its side steps."""
    arrays = {f.name: getattr(baked.polygons, f.name) for f in fields(TilePolygons)} | {"steps": baked.steps}
    raw = arrays_bytes(arrays)
    return (*tile, *_compressed(f"bake tile {tile[0]},{tile[1]}", raw))


def create_tables(connection: sqlite3.Connection) -> None:
    for statement in BAKE_SCHEMA.values():
        connection.execute(statement)


def write_block(connection: sqlite3.Connection, result, what: str) -> None:
    """Write one block's rows and its marker in one transaction: a bake killed at any moment leaves every block
    either written whole or not at all."""
    digest = row_digest(f"bake block {result.block[0]},{result.block[1]} {what}",
                        b"".join(row[-2] for row in result.meshes) + b"".join(row[-2] for row in result.tiles))
    connection.execute("BEGIN IMMEDIATE")
    try:
        connection.executemany("INSERT OR REPLACE INTO bake_meshes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", result.meshes)
        connection.executemany("INSERT OR REPLACE INTO bake_tiles VALUES (?, ?, ?, ?, ?)", result.tiles)
        connection.execute("INSERT OR REPLACE INTO bake_blocks VALUES (?, ?, ?, ?)", (*result.block, what, digest))
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


def done_blocks(connection: sqlite3.Connection, what: str) -> set[tuple[int, int]]:
    """The blocks a bake of ``what`` already wrote (a bake resumes after them)."""
    return {(bx, bz) for bx, bz in connection.execute("SELECT bx, bz FROM bake_blocks WHERE what = ?", (what,))}


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
