"""Blocks of a bake: the unit of work (a square of chunk columns through the world's height) and what one block's
task computes, in any process, from the world file alone: the display meshes of its chunks at every level of
detail, their collision meshes, and the navmesh tiles whose corner lies in the block.

A task reads the voxels of the chunks around its block it needs (the meshes of a chunk read its neighbours; a tile's
bake reads the collision meshes of the chunks its rays reach) and meshes them as the game's mesher does, so a
block's meshes and tiles are those of a whole-world bake, bit for bit, whichever worker made them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np

from ..errors import ParameterError, check_integer
from ..game.ground_things import GroundThings
from ..game.navigation import WorldNavigation
from ..game.settings import WorldSettings
from ..io.world_file import open_volume
from ..meshing import MAX_DETAIL_LEVEL, ChunkMesher
from ..navigation import SceneObject
from ..terrain import SparseVolume
from .records import mesh_record, tile_record

__all__ = ["BakePlan", "BlockResult", "WHAT", "plan_bake", "bake_block", "blocks_of", "block_columns",
           "block_row_count", "tile_blocks"]

WHAT = ("meshes", "navmesh")  # what a bake may compute (the voxels are the file's)
BLOCK_CHUNKS = 4  # chunk columns along x and z a block spans


@dataclass(frozen=True)
class BakePlan:
    """What every task of one bake needs: the world file (a path every worker reads), its size and modification
    time when planned (the key a worker opens the file under, once a bake: the rows it reads are checked by their
    digests, and the bake's own writes change neither them nor the file's chunk rows), what to bake, the world's
    settings and props, the blocks' size in chunk columns, and the world's things on the ground as saved
    (generator, scatter settings, changed columns: obstacles in its navmesh, as in the game's; None: none)."""

    path: str
    identity: tuple
    what: tuple[str, ...]
    settings: WorldSettings
    props: tuple[SceneObject, ...]
    grid: tuple[int, int, int]
    block_chunks: int = BLOCK_CHUNKS
    things: tuple | None = None

    @property
    def blocks(self) -> list[tuple[int, int]]:
        """Every block (bx, bz), in the order their results are written."""
        return blocks_of(self.grid, self.block_chunks)


@dataclass(frozen=True)
class BlockResult:
    """What one block's task computed: rows for the world file's bake tables, in a fixed order
    (``records.mesh_record`` / ``tile_record``), and the bytes they hold."""

    block: tuple[int, int]
    meshes: tuple  # (cx, cy, cz, kind, level, version, raw_size, sha256, data)
    tiles: tuple  # (ti, tk, source, raw_size, sha256, data)

    @property
    def nbytes(self) -> int:
        return sum(len(row[-1]) for row in self.meshes) + sum(len(row[-1]) for row in self.tiles)


def blocks_of(grid: Sequence[int], block_chunks: int) -> list[tuple[int, int]]:
    nbx, nbz = -(-grid[0] // block_chunks), -(-grid[2] // block_chunks)
    return [(bx, bz) for bx in range(nbx) for bz in range(nbz)]


def plan_bake(path: str | os.PathLike[str], what: Iterable[str] = WHAT, settings: WorldSettings | None = None,
              props: Iterable[SceneObject] = (), grid: tuple[int, int, int] | None = None,
              block_chunks: int = BLOCK_CHUNKS, things: tuple | None = None) -> BakePlan:
    """The plan of a bake of the world file ``path`` (checked by the caller: :func:`voxelworld.bake.bake_world`).
    ``settings`` (the world's WorldSettings) and ``grid`` (its chunk grid) are needed: ParameterError without.
    ``things``: its things on the ground as :func:`~voxelworld.io.world_file.bake_inputs` gives them."""
    if not isinstance(settings, WorldSettings):
        raise ParameterError("settings", settings, "the world's voxelworld.game.WorldSettings")
    if grid is None:
        raise ParameterError("grid", grid, "the world's chunk grid: three whole numbers (chunks along x, y, z)")
    what = tuple(what)
    for part in what:
        if part not in WHAT:
            raise ParameterError("what", part, f"some of {', '.join(WHAT)}")
    if not what:
        raise ParameterError("what", "nothing", f"some of {', '.join(WHAT)}")
    block_chunks = check_integer("block_chunks", block_chunks, minimum=1, maximum=64)
    target = Path(path).resolve()
    stat = target.stat()
    return BakePlan(str(target), (stat.st_size, stat.st_mtime_ns), tuple(p for p in WHAT if p in what), settings,
                    tuple(props), cast("tuple[int, int, int]", tuple(grid)), block_chunks, things)


_OPENED = threading.local()  # per thread: a worker running tasks on several threads opens the file in each


def _opened(path: str, identity: tuple) -> SparseVolume:
    """The volume of the world file, opened once per worker thread and bake (its chunks are read as tasks need
    them and let go of after each task: another thread's task never loses what it reads)."""
    key = (path, identity)
    if getattr(_OPENED, "key", None) != key:
        _OPENED.volume, _ = open_volume(path)
        _OPENED.key = key
    return _OPENED.volume


def _columns(grid: tuple[int, int, int], x0: int, z0: int, x1: int, z1: int) -> np.ndarray:
    """A bool chunk grid of the columns x0..x1, z0..z1 (inclusive, clipped) through the world's height."""
    mask = np.zeros(grid, dtype=bool)
    mask[max(x0, 0):min(x1, grid[0] - 1) + 1, :, max(z0, 0):min(z1, grid[2] - 1) + 1] = True
    return mask


def bake_block(plan: BakePlan, block: tuple[int, int]) -> BlockResult:
    """The meshes and navmesh tiles of ``block`` (see the module's notes): a pure function of the world file and
    the plan, the same in any process."""
    volume = _opened(plan.path, plan.identity)
    try:
        return _bake(plan, volume, block)
    finally:
        volume.let_go(np.ones(volume.chunk_grid_shape, dtype=bool))  # the file holds them: the next task reads its own


def block_columns(grid: tuple[int, int, int], block_chunks: int, block: tuple[int, int]) -> tuple[int, int, int, int]:
    """The chunk columns ``(x0, z0, x1, z1)`` (inclusive) of ``block``: its chunks are those columns through the
    world's height."""
    x0, z0 = block[0] * block_chunks, block[1] * block_chunks
    return x0, z0, min(x0 + block_chunks, grid[0]) - 1, min(z0 + block_chunks, grid[2]) - 1


def block_row_count(plan: BakePlan, block: tuple[int, int], tiles: int) -> int:
    """How many rows the task of ``block`` writes, owning ``tiles`` navmesh tiles: per chunk of its columns the
    display mesh at every level of detail and the collision mesh (``"meshes"``), and one a tile (``"navmesh"``)."""
    x0, z0, x1, z1 = block_columns(plan.grid, plan.block_chunks, block)
    meshes = (x1 - x0 + 1) * plan.grid[1] * (z1 - z0 + 1) * (MAX_DETAIL_LEVEL + 2) if "meshes" in plan.what else 0
    return meshes + (tiles if "navmesh" in plan.what else 0)


def tile_blocks(plan: BakePlan, volume: SparseVolume) -> dict[tuple[int, int], tuple[int, int]]:
    """Every navmesh tile's block (the one holding the tile's lower corner: :func:`bake_block` bakes it there), in
    tile order; {} for a bake without the navmesh. ``volume``: the world file's (:func:`~voxelworld.io.world_file.
    open_volume`); nothing is meshed."""
    if "navmesh" not in plan.what:
        return {}
    navigation = _navigation(volume, ChunkMesher(volume, volume.materials, plan.settings.mesh_options), plan)
    columns_x, columns_z = _corner_columns(navigation, volume)
    size = plan.block_chunks
    return {(ti, tk): (cx // size, cz // size) for ti, cx in enumerate(columns_x) for tk, cz in enumerate(columns_z)}


def _bake(plan: BakePlan, volume: SparseVolume, block: tuple[int, int]) -> BlockResult:
    grid = volume.chunk_grid_shape
    x0, z0, x1, z1 = block_columns(grid, plan.block_chunks, block)
    own = _columns(grid, x0, z0, x1, z1)
    settings = plan.settings
    mesher = ChunkMesher(volume, volume.materials, settings.mesh_options)
    navigation_tiles, active = [], _columns(grid, x0 - 1, z0 - 1, x1 + 1, z1 + 1)  # the neighbours a mesh joins
    if "navmesh" in plan.what:
        navigation = _navigation(volume, mesher, plan)
        navigation_tiles = _owned_tiles(navigation, volume, own)
        for tile in navigation_tiles:  # every chunk a tile reads meshed, and the lower neighbours they join
            ci0, ck0, ci1, ck1 = navigation.chunk_columns(tile)
            active |= _columns(grid, ci0 - 1, ck0 - 1, ci1 + 1, ck1 + 1)
    mesher.set_active(active)
    meshes, tiles = [], []
    chunks = cast("list[tuple[int, int, int]]", [tuple(c) for c in np.argwhere(own).tolist()])
    versions = volume.chunk_versions
    for level in range(MAX_DETAIL_LEVEL + 1) if "meshes" in plan.what else (0,):
        # The level everywhere the meshes read (the chunks meshed), not over the whole world: a task's work follows
        # its block, not the world's size.
        mesher.set_detail_levels(np.where(active, level, 0).astype(np.int64))
        mesher.update()
        if "meshes" in plan.what:
            for chunk in chunks:
                meshes.append(mesh_record(chunk, "display", level, int(versions[chunk]),
                                          mesher.meshes.get(chunk)))
        if level == 0:
            if "meshes" in plan.what:
                for chunk in chunks:
                    meshes.append(mesh_record(chunk, "collision", 0, int(versions[chunk]),
                                              mesher.chunk_collision_mesh(chunk)))
            if navigation_tiles:
                navigation = _navigation(volume, mesher, plan, navigation_tiles, active)
                tiled = navigation.tiled
                assert tiled is not None  # a streaming navigation: navigation_distance given
                tiles = [tile_record(tile, tiled.baked_tile(tile), navigation.tile_source(tile))
                         for tile in navigation_tiles]
    return BlockResult(block, tuple(meshes), tuple(tiles))


def _navigation(volume: SparseVolume, mesher: ChunkMesher, plan: BakePlan,
                tiles: Iterable[tuple[int, int]] | None = None, active: np.ndarray | None = None) -> WorldNavigation:
    """The world's streaming navigation as the game makes it (the same region, settings, props and things on the
    ground, those of the ``active`` chunks' columns made), baking ``tiles`` at once."""
    settings = plan.settings
    things = None
    if plan.things is not None and active is not None:
        generator, scatter, columns = plan.things
        things = GroundThings(volume, generator, scatter)
        things.load_state_dict({"columns": columns})
        things.follow(active)
    return WorldNavigation(volume, mesher, plan.props, navigation_distance=settings.navigation_radius,
                           tiles_per_frame=settings.navigation_tiles_per_frame, tiles=tiles, things=things)





def _corner_columns(navigation: WorldNavigation, volume: SparseVolume) -> tuple[list[int], list[int]]:
    """Per tile index along x (ti), and along z (tk), the chunk column holding the tiles' lower corner: a tile's
    corner along x depends on its ti alone, along z on its tk alone. Clipped to the grid."""
    tiled, grid = navigation.tiled, volume.chunk_grid_shape
    assert tiled is not None  # a streaming navigation (_navigation): navigation_distance given
    edge = volume.chunk_size * volume.voxel_size
    ntx, ntz = tiled.tile_grid
    columns_x = [min(max(int(np.floor((tiled.tile_box((ti, 0))[0] - float(volume.origin[0])) / edge)), 0), grid[0] - 1)
                 for ti in range(ntx)]
    columns_z = [min(max(int(np.floor((tiled.tile_box((0, tk))[1] - float(volume.origin[2])) / edge)), 0), grid[2] - 1)
                 for tk in range(ntz)]
    return columns_x, columns_z


def _owned_tiles(navigation: WorldNavigation, volume: SparseVolume, own: np.ndarray) -> list[tuple[int, int]]:
    """The navmesh tiles whose lower corner lies in the block's columns (each tile belongs to one block)."""
    columns_x, columns_z = _corner_columns(navigation, volume)
    return [(ti, tk) for ti, cx in enumerate(columns_x) if own[cx, 0].any()
            for tk, cz in enumerate(columns_z) if own[cx, 0, cz]]
