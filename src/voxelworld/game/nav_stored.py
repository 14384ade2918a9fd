"""Navmesh tiles baked ahead of time (``voxelworld bake`` writes them into the world file) that a streaming
:class:`~voxelworld.game.navigation.WorldNavigation` takes instead of baking them, where the stored tile is, bit for
bit, the one it would bake.

A streamed tile is a pure function of the scene its bake reads: the terrain objects of the chunks under its reach
(each chunk's collision mesh with its triangles' area types), the props, the things on those chunks' ground, and the
bake's settings and grid. :func:`scene_source` is a digest of all of it, object by object (names, roles, arrays,
area types), with this version of voxelworld: a bake stores each tile with the digest of the scene it baked it
from, and a game takes a stored tile only when the scene it would bake the tile from has that digest
(:class:`StoredReader`). So a tile whose ground was dug since, whose things fell, whose area types differ (a lava
chunk held beside it or not), or that a newer voxelworld would bake otherwise, is baked again; and the game makes
the scene's objects as before (their collision meshes are what it keeps for its re-bakes), skipping only the bake.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import __version__
from ..navigation import NavSettings, SceneObject, SearchRegion
from ..navigation.areas import BakeArea
from ..navigation.tiles import BakedTile

if TYPE_CHECKING:
    from .ground_things import GroundThings

__all__ = ["StoredTiles", "StoredReader", "scene_source", "settings_source"]


class StoredTiles:
    """A source of navmesh tiles baked ahead of time: :meth:`tile` gives the tile stored for ``(ti, tk)`` when it
    was baked from a scene of digest ``source`` (:func:`scene_source`), else None. This base class holds them in a
    mapping ``(ti, tk) -> (source, BakedTile)`` (tests, tools); a world file's are read row by row
    (:class:`voxelworld.io.baked_rows.WorldFileTiles`). The navigation counts what it takes
    (``WorldNavigation.tiles_read``)."""

    def __init__(self, tiles: Mapping[tuple[int, int], tuple[bytes, BakedTile]] | None = None) -> None:
        self._tiles = dict(tiles or {})

    def tile(self, tile: tuple[int, int], source: bytes, area: BakeArea) -> BakedTile | None:
        """The tile stored for ``tile`` of the navmesh's grid ``area``, when it was baked from ``source``."""
        stored = self._tiles.get(tile)
        return None if stored is None or stored[0] != source else stored[1]


@dataclass(frozen=True)
class StoredReader:
    """What a navigation reads its stored tiles with (on any thread): the tiles, the digest of its settings
    (:func:`settings_source`) and its grid."""

    tiles: StoredTiles
    settings: bytes
    area: BakeArea

    def __call__(self, tile: tuple[int, int], objects: Iterable[SceneObject]) -> BakedTile | None:
        """The stored tile ``tile`` when it was baked from ``objects`` (the scene a bake of it reads: the chunks'
        terrain objects in chunk order, the props, the things), else None."""
        return self.tiles.tile(tile, scene_source(self.settings, tile, objects), self.area)


def settings_source(settings: NavSettings, region: SearchRegion, area: BakeArea, things: GroundThings | None
                    ) -> bytes:
    """The digest of what every tile of a navigation reads alike: this voxelworld, the bake's settings, region and
    grid, and the generator of the things on the ground (whose names a scene holds)."""
    text = (f"voxelworld {__version__} navmesh tile\n{settings!r}\n{region!r}\n"
            f"area {area.x0!r} {area.z0!r} {area.cell!r} {area.nx} {area.nz}\n"
            + ("no things\n" if things is None else f"things {things.generator!r} {things.settings!r}\n"))
    return hashlib.sha256(text.encode()).digest()


def scene_source(settings: bytes, tile: tuple[int, int], objects: Iterable[SceneObject]) -> bytes:
    """The digest of a bake of ``tile`` from ``objects`` with the settings of digest ``settings``: SHA-256 over
    those, the tile, and each object's own digest (:func:`_object_source`), in order."""
    digest = hashlib.sha256(settings)
    digest.update(b"tile %d,%d\n" % (int(tile[0]), int(tile[1])))
    for obj in objects:
        digest.update(_object_source(obj))
    return digest.digest()


def _object_source(obj: SceneObject) -> bytes:
    """A scene object's digest (its name, role, area types and arrays), made once an object (they never change)."""
    made = obj.__dict__.get("_source")
    if made is None:
        digest = hashlib.sha256(f"{obj.name!r} {obj.role} {obj.area_types!r}\n".encode())
        for array in (obj.positions, obj.indices, obj.triangle_area_type):
            digest.update(f"{array.dtype.str} {array.shape}:".encode() + np.ascontiguousarray(array).tobytes())
        made = obj.__dict__["_source"] = digest.digest()  # not a field: the object is unchanged
    return made
