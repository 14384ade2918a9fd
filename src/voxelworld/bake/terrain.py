"""The terrain part of a bake: a new world's chunks generated block by block (``voxelworld.terrain.worldgen``, a
pure function of the generator's settings and a chunk's place), in this process or as Dask tasks, gathered into one
volume and written as a world file the way ``voxelworld new`` writes it."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import cast

import numpy as np
import zstandard

from ..errors import ParameterError
from ..files import build_atomically, write_target
from ..game.populate import populate
from ..game.settings import LARGE_WORLD_SETTINGS
from ..game.world import World
from ..io import save_world
from ..io.chunk_store import compressed
from ..terrain import FIELDS, GeneratorSettings, SparseVolume, generate_chunks
from ..terrain.base import FIELD_DTYPES
from ..terrain.worldgen import CHUNK_SIZE  # voxels: the chunks of the worlds voxelworld new writes

__all__ = ["TerrainBlock", "generate_terrain_block", "gather_terrain", "write_new_world", "TerrainStage",
           "CHUNK_SIZE"]

@dataclass(frozen=True)
class TerrainBlock:
    """One block's chunks: per chunk and field, its one value (an int) or its voxels (zstd-compressed bytes)."""

    block: tuple[int, int]
    chunks: tuple  # ((ci, cj, ck), {field: int | bytes}), in the block's order

    @property
    def nbytes(self) -> int:
        return sum(len(v) if isinstance(v, bytes) else 8 for _, fields in self.chunks for v in fields.values())


def generate_terrain_block(settings: GeneratorSettings, block_chunks: int, block: tuple[int, int]) -> TerrainBlock:
    """The chunks of ``block`` (``block_chunks`` x ``block_chunks`` columns of chunks through the height), as
    :func:`voxelworld.terrain.generate_chunks` makes them, uniform fields as one value."""
    x0, z0 = block[0] * block_chunks, block[1] * block_chunks
    compressor = zstandard.ZstdCompressor(level=1)
    chunks = []
    for chunk, fields in generate_chunks(settings, CHUNK_SIZE, workers=1,
                                         columns=(x0, z0, x0 + block_chunks, z0 + block_chunks)):
        out = {}
        for name in FIELDS:
            values = fields[name]
            first = values.flat[0]
            out[name] = int(first) if np.all(values == first) else compressed(compressor, values.tobytes())
        chunks.append((chunk, out))
    return TerrainBlock(cast("tuple[int, int]", tuple(block)), tuple(chunks))


def gather_terrain(settings: GeneratorSettings, blocks: Iterable[TerrainBlock]) -> SparseVolume:
    """The world's volume from its blocks' :class:`TerrainBlock` (in any order: each chunk is one block's)."""
    volume = SparseVolume(settings.shape, voxel_size=settings.voxel_size, origin=settings.origin, iso=settings.iso,
                          chunk_size=CHUNK_SIZE)
    decompressor = zstandard.ZstdDecompressor()
    for result in blocks:
        for chunk, fields in result.chunks:
            lo, hi = volume.chunk_box(chunk)
            shape = tuple(int(n) for n in hi - lo)
            volume.write_chunk(chunk, {  # all fields at once, as generate_world: the same versions
                name: np.full(shape, value, dtype=FIELD_DTYPES[name]) if isinstance(value, int) else
                np.frombuffer(decompressor.decompress(value), dtype=FIELD_DTYPES[name]).reshape(shape)
                for name, value in fields.items()})
    return volume


def write_new_world(volume: SparseVolume, path: str | os.PathLike[str],
                    generator: GeneratorSettings | None = None) -> World:
    """The world of a generated volume (``LARGE_WORLD_SETTINGS``: it streams around its actors), written to the
    world file ``path``: beside it first, then moved into place (a failed save leaves ``path`` as it was). Only the
    chunks near the spawn are meshed (``voxelworld.game.streaming.FIRST_VIEW_DISTANCE``): the file holds voxels and
    state, the view streams in when it is played (``voxelworld bake`` may bake its meshes first). ``generator``:
    the settings the volume was generated from (what lives on the world is a function of them). ``path`` is a
    regular file (replaced) or a new one; a symlink is followed, its target replaced; anything else (a FIFO, a
    device) is refused with ParameterError before the world is made (``files.write_target``)."""
    write_target(path)
    world = World(volume, settings=LARGE_WORLD_SETTINGS)
    if generator is not None:
        populate(world, generator)  # things on the ground and actors by region: data, nothing meshed
    build_atomically(path, lambda temporary: save_world(world, temporary))  # an empty file: save_world writes it new
    return world


class TerrainStage:
    """The blocks of a new world generated so far, kept beside its world file (``WORLD.terrain``, SQLite: one
    transaction a block) until the world is written, so that an interrupted generation resumes after them. A stage
    of other generator settings is refused (ParameterError), never mixed in."""

    def __init__(self, path: str | os.PathLike[str], settings: GeneratorSettings) -> None:
        self.path = Path(str(path) + ".terrain")
        try:
            write_target(self.path)  # a FIFO or a device there is no place for SQLite's file
        except ParameterError as error:
            raise ParameterError("path", str(path), f"a world file beside which {self.path.name} (the generation's "
                                 f"stage) is {error.legal}") from None
        self._connection = sqlite3.connect(self.path, isolation_level=None)
        connection = self._connection
        connection.execute("CREATE TABLE IF NOT EXISTS settings (json TEXT NOT NULL)")
        connection.execute("CREATE TABLE IF NOT EXISTS chunks (bx INTEGER NOT NULL, bz INTEGER NOT NULL, "
                           "n INTEGER NOT NULL, cx INTEGER NOT NULL, cy INTEGER NOT NULL, cz INTEGER NOT NULL, "
                           "fields TEXT NOT NULL, data BLOB NOT NULL, PRIMARY KEY (bx, bz, n))")
        connection.execute("CREATE TABLE IF NOT EXISTS blocks (bx INTEGER NOT NULL, bz INTEGER NOT NULL, "
                           "PRIMARY KEY (bx, bz))")
        text = json.dumps(asdict(settings), sort_keys=True)
        found = connection.execute("SELECT json FROM settings").fetchone()
        if found is None:
            connection.execute("INSERT INTO settings VALUES (?)", (text,))
        elif found[0] != text:
            self.close()
            raise ParameterError("generator", settings, f"the settings of the generation begun in {self.path} "
                                 "(delete it to start another)")

    def done(self) -> set[tuple[int, int]]:
        return {tuple(row) for row in self._connection.execute("SELECT bx, bz FROM blocks")}

    def add(self, result: TerrainBlock) -> None:
        """Keep one block's chunks (one transaction)."""
        rows = []
        for n, (chunk, fields) in enumerate(result.chunks):
            values = {name: value for name, value in fields.items() if isinstance(value, int)}
            arrays = [name for name in fields if name not in values]
            header = json.dumps({"values": values, "arrays": arrays, "sizes": [len(fields[a]) for a in arrays]})
            rows.append((*result.block, n, *chunk, header, b"".join(fields[a] for a in arrays)))
        connection = self._connection
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany("INSERT OR REPLACE INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        connection.execute("INSERT OR REPLACE INTO blocks VALUES (?, ?)", result.block)
        connection.execute("COMMIT")

    def blocks(self) -> Iterator[TerrainBlock]:
        """The kept blocks as :class:`TerrainBlock`, one after the other."""
        for bx, bz in sorted(self.done()):
            chunks = []
            for cx, cy, cz, header, data in self._connection.execute(
                    "SELECT cx, cy, cz, fields, data FROM chunks WHERE bx = ? AND bz = ? ORDER BY n", (bx, bz)):
                parsed, offset, fields = json.loads(header), 0, {}
                fields.update(parsed["values"])
                for name, size in zip(parsed["arrays"], parsed["sizes"]):
                    fields[name], offset = data[offset:offset + size], offset + size
                chunks.append(((cx, cy, cz), fields))
            yield TerrainBlock((bx, bz), tuple(chunks))

    def close(self) -> None:
        self._connection.close()

    def remove(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)
