"""Navmesh tiles baked ahead of time (``voxelworld bake`` writes them into the world file) that a streaming
:class:`~voxelworld.game.navigation.WorldNavigation` takes instead of baking them, where the stored tile is, bit for
bit, the one it would bake.

A streamed tile is a pure function of what its bake reads: the collision meshes of the chunks under its reach (made
from the voxels one chunk around them), their area types, the props, the things on those chunks' ground, and the
bake's settings. :func:`tile_source` is a digest of all of it, as the navigation holds it, without meshing anything:
the versions of the chunks whose voxels the meshes read (:data:`VOXEL_REACH` chunks around the tile's columns), the
things' states on those columns (or that they are not made), the props as baked, the settings, the region and the
area types' table, and this version of voxelworld. A bake stores each tile with the digest of the navigation that
baked it; a game takes a stored tile only when its own digest is that one (:meth:`StoredTiles.tile`), so a tile
whose chunks were dug since, whose things fell, or that a newer voxelworld would bake otherwise, is baked again.

Two things a digest of versions cannot see are left out: area types near damaging ground (a "hazard" triangle
depends on the chunks held beside it, which the bake and the game hold differently: the bake stores no digest
for a tile with damaging triangles within a chunk of its columns, :func:`damaging_near`), and the collision meshes
a saved world's navmesh was baked from where the terrain changed since (``baked_from``: no digest for a tile
reading one of those chunks).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from .. import __version__
from ..navigation.areas import BakeArea
from ..navigation.tiles import BakedTile

if TYPE_CHECKING:
    from .nav_streaming import NavStreaming

__all__ = ["StoredTiles", "tile_source", "damaging_near", "VOXEL_REACH"]

# Chunks around a chunk (both ways, x and z) whose voxels its collision mesh reads: its surface reads the voxels one
# chunk around, its quads join its lower neighbours' vertices (the display meshes' reach, two, to spare).
VOXEL_REACH = 2


class StoredTiles:
    """A source of navmesh tiles baked ahead of time: :meth:`tile` gives the tile stored for ``(ti, tk)`` when it
    was baked from ``source`` (:func:`tile_source`), else None. This base class holds them in a mapping
    ``(ti, tk) -> (source, BakedTile)`` (tests, tools); a world file's are read row by row
    (:class:`voxelworld.io.baked_rows.WorldFileTiles`). ``tiles_read`` counts the tiles handed out."""

    def __init__(self, tiles: Mapping[tuple[int, int], tuple[bytes, BakedTile]] | None = None) -> None:
        self._tiles = dict(tiles or {})
        self.tiles_read = 0

    def tile(self, tile: tuple[int, int], source: bytes, area: BakeArea) -> BakedTile | None:
        """The tile stored for ``tile`` of the navmesh's grid ``area``, when it was baked from ``source``."""
        stored = self._tiles.get(tile)
        if stored is None or stored[0] != source:
            return None
        self.tiles_read += 1
        return stored[1]


def tile_source(navigation: NavStreaming, tile: tuple[int, int]) -> bytes | None:
    """The digest of everything a bake of ``tile`` by ``navigation`` (streaming) reads (see the module), or None
    when a digest cannot vouch for it (a chunk it reads holds a saved world's own collision mesh)."""
    ci0, ck0, ci1, ck1 = navigation.chunk_columns(tile)
    if navigation._baked_from_chunks and any(
            ci0 <= ci <= ci1 and ck0 <= ck <= ck1 for ci, _, ck in navigation._baked_from_chunks):
        return None
    digest = hashlib.sha256(_settings_bytes(navigation))
    digest.update(b"tile %d,%d\n" % tile)
    grid = navigation.volume.chunk_grid_shape
    x0, z0 = max(ci0 - VOXEL_REACH, 0), max(ck0 - VOXEL_REACH, 0)
    x1, z1 = min(ci1 + VOXEL_REACH, grid[0] - 1), min(ck1 + VOXEL_REACH, grid[2] - 1)
    digest.update(b"versions %d %d %d %d %d\n" % (x0, z0, x1, z1, grid[1]))
    digest.update(np.ascontiguousarray(navigation.volume.chunk_versions[x0:x1 + 1, :, z0:z1 + 1],
                                       dtype="<i8").tobytes())
    things = navigation.things
    if things is not None:
        chunks = [(ci, 0, ck) for ci in range(ci0, ci1 + 1) for ck in range(ck0, ck1 + 1)]
        for column in sorted(things.chunk_columns(chunks)):
            kept = things.columns.get(column)
            state = b"-" if kept is None else np.ascontiguousarray(kept.state, dtype=np.uint8).tobytes()
            digest.update(b"things %d,%d %d:" % (*column, len(state)) + state)
    return digest.digest()


def _settings_bytes(navigation: NavStreaming) -> bytes:
    """What every tile of ``navigation`` reads alike: this voxelworld, the bake's settings and region, the area
    types' table, the props as baked and the things' generator (made once a navigation)."""
    made = navigation._source_settings
    if made is None:
        digest = hashlib.sha256(f"voxelworld {__version__} navmesh tile\n{navigation.settings!r}\n".encode())
        assert navigation.tiled is not None  # (streaming only)
        area = navigation.tiled.area
        digest.update(f"area {area.x0!r} {area.z0!r} {area.cell!r} {area.nx} {area.nz}\n".encode())
        digest.update(f"region {navigation.tiled.region!r}\n".encode())
        areas = navigation.terrain_areas
        if areas is None:
            digest.update(b"areas none\n")
        else:
            digest.update(("areas " + "\n".join(areas.names) + "\n").encode())
            digest.update(areas.code.astype("<i8").tobytes() + areas.damaging.astype(np.uint8).tobytes())
        for prop in navigation.props:
            digest.update(f"prop {prop.name!r} {prop.role} {prop.area_types!r}\n".encode())
            for array in (prop.positions, prop.indices, prop.triangle_area_type):
                digest.update(f"{array.dtype.str} {array.shape}:".encode() + np.ascontiguousarray(array).tobytes())
        things = navigation.things
        digest.update(b"no things\n" if things is None else
                      f"things {things.generator!r} {things.settings!r}\n".encode())
        made = navigation._source_settings = digest.digest()
    return made


def damaging_near(navigation: NavStreaming, tile: tuple[int, int]) -> bool:
    """Whether a chunk one column around those ``tile``'s bake reads holds damaging triangles (its area types then
    depend on what is held beside it: a bake stores no digest). Reads the collision meshes of those chunks."""
    areas = navigation.terrain_areas
    if areas is None or not areas.damaging.any():
        return False
    ci0, ck0, ci1, ck1 = navigation.chunk_columns(tile)
    grid = navigation.volume.chunk_grid_shape
    chunks = [(ci, cj, ck) for ci in range(max(ci0 - 1, 0), min(ci1 + 1, grid[0] - 1) + 1)
              for ck in range(max(ck0 - 1, 0), min(ck1 + 1, grid[2] - 1) + 1) for cj in range(grid[1])]
    return any(len(areas.damaging_points(mesh)) for mesh in navigation.mesher.chunk_collision_meshes(chunks))
