"""The terrain part of a bake: a new world's chunks generated block by block (``voxelworld.terrain.worldgen``, a
pure function of the generator's settings and a chunk's place), in this process or as Dask tasks, gathered into one
volume and written as a world file the way ``voxelworld new`` writes it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import zstandard

from ..game.settings import LARGE_WORLD_SETTINGS
from ..game.world import World
from ..io import save_world
from ..terrain import FIELDS, GeneratorSettings, SparseVolume, generate_blocks
from ..terrain.base import FIELD_DTYPES

__all__ = ["TerrainBlock", "generate_terrain_block", "gather_terrain", "write_new_world", "CHUNK_SIZE"]

CHUNK_SIZE = 32  # voxels: the chunks of the worlds voxelworld new writes


@dataclass(frozen=True)
class TerrainBlock:
    """One block's chunks: per chunk and field, its one value (an int) or its voxels (zstd-compressed bytes)."""

    block: tuple[int, int]
    chunks: tuple  # ((ci, cj, ck), {field: int | bytes}), in the block's order

    @property
    def nbytes(self) -> int:
        return sum(len(v) if isinstance(v, bytes) else 8 for _, fields in self.chunks for v in fields.values())


def generate_terrain_block(settings: GeneratorSettings, block_chunks: int, block: tuple[int, int]) -> TerrainBlock:
    """The chunks of ``block`` (``block_chunks`` x ``block_chunks`` columns of chunks through the height),
    generated column by column as :func:`voxelworld.terrain.generate_chunks` does, uniform fields as one value."""
    nx, ny, nz = settings.shape
    x0, z0 = block[0] * block_chunks * CHUNK_SIZE, block[1] * block_chunks * CHUNK_SIZE
    columns = [((i, 0, k), (min(CHUNK_SIZE, nx - i), ny, min(CHUNK_SIZE, nz - k)))
               for i in range(x0, min(x0 + block_chunks * CHUNK_SIZE, nx), CHUNK_SIZE)
               for k in range(z0, min(z0 + block_chunks * CHUNK_SIZE, nz), CHUNK_SIZE)]
    compressor = zstandard.ZstdCompressor(level=1)
    chunks = []
    for (lo, _), fields in generate_blocks(settings, columns, workers=1):
        for j in range(0, ny, CHUNK_SIZE):
            chunk = (lo[0] // CHUNK_SIZE, j // CHUNK_SIZE, lo[2] // CHUNK_SIZE)
            out = {}
            for name in FIELDS:
                values = np.ascontiguousarray(fields[name][:, j:j + CHUNK_SIZE, :])
                first = values.flat[0]
                out[name] = int(first) if np.all(values == first) else compressor.compress(values.tobytes())
            chunks.append((chunk, out))
    return TerrainBlock(tuple(block), tuple(chunks))


def gather_terrain(settings: GeneratorSettings, blocks) -> SparseVolume:
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


def write_new_world(volume: SparseVolume, path) -> World:
    """The world of a generated volume (``LARGE_WORLD_SETTINGS``: it streams around its actors), its view meshed,
    written to the world file ``path``: beside it first, then moved into place (a failed save leaves ``path`` as it
    was)."""
    target = Path(path)
    world = World(volume, settings=LARGE_WORLD_SETTINGS)
    fresh = target.with_name(target.name + ".new")
    fresh.unlink(missing_ok=True)
    save_world(world, fresh)
    fresh.replace(target)
    return world
