"""The streaming part of :class:`~voxelworld.game.navigation.WorldNavigation`: the navmesh's tiles baked and
dropped around the actors of a large world (see that class's notes), each tile equal, bit for bit, to the same tile
of a full bake.

What a tile's bake reads is the collision meshes of the chunks under its reach; making a dozen of those in the frame
that bakes it was most of a sprinting frame's worst cases, so :meth:`NavStreaming.stream` has the mesher make those of
the next tiles on its background thread (:data:`TILES_AHEAD`). When a tile is baked does not depend on it: a mesh not
made yet is made in the frame, as before, and the same either way.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_integer
from ..meshing import ChunkMesher, CollisionMesh
from ..meshing.mesher_collision import PreparedCollision
from ..navigation import SceneObject
from ..navigation.tiles import TiledNavMesh
from ..terrain import Volume
from .nav_chunks import boxes_meet as _boxes_meet
from .nav_chunks import chunk_collision_meshes as _chunk_collision_meshes

if TYPE_CHECKING:
    from ..navigation import Scene

__all__ = ["NavStreaming", "TILES_AHEAD"]

# The nearest missing tiles beyond a frame's budget whose chunks' collision meshes are made ahead.
TILES_AHEAD = 4


class NavStreaming:
    """The tiles of a streaming :class:`~voxelworld.game.navigation.WorldNavigation` (a part of it: see the
    module)."""

    # Set by WorldNavigation.__init__.
    volume: Volume
    mesher: ChunkMesher
    navigation_distance: float | None
    tiles_per_frame: int
    tiled: TiledNavMesh | None
    _whole_scene: Scene | None
    _props: tuple[SceneObject, ...]
    _chunk_meshes: dict[tuple, CollisionMesh | None]
    _chunk_objects: dict[tuple, SceneObject]
    _baked_from: dict
    _tile_chunks: dict[tuple[int, int], tuple[int, int, int, int]]
    _ok_before: np.ndarray | None
    _column_uses: dict[tuple[int, int], int]
    _prefetch: PreparedCollision | None

    if TYPE_CHECKING:  # defined by WorldNavigation
        @property
        def tile_size(self) -> float: ...
        def _retyped(self, chunks: Iterable[tuple], lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...
        def _scene(self, chunks: Iterable[tuple[int, int, int]] | None = None) -> Scene: ...
        def _logged(self, tiles: list[tuple[int, int, int]]) -> None: ...

    def stream(self, points: ArrayLike, budget: int | None = None) -> list[tuple[int, int, int]]:
        """Move the kept tiles towards what the actors at ``points`` ((n, 3), m) want (see
        :class:`~voxelworld.game.navigation.WorldNavigation`'s notes): drop the far ones and those a chunk they read
        no longer meshes, bake up to ``budget`` (None: ``tiles_per_frame``; a negative budget: all) of the missing
        ones within ``navigation_distance``, nearest first. Meanwhile the collision meshes the next
        :data:`TILES_AHEAD` tiles read are made on the background thread (:meth:`_make_ahead`). Returns the tiles
        whose polygons changed, as (0, ti, tk). Nothing to do when baked whole."""
        if self.tiled is None:
            return []
        assert self.navigation_distance is not None  # (given with tiled)
        points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        budget = self.tiles_per_frame if budget is None else check_integer("budget", budget)
        distance = self._tile_distances(points)  # +inf beyond navigation_distance + tile_size
        ok = self._meshed_columns()
        kept = self.tiled.tiles
        drop = sorted(t for t in kept if distance[t] == np.inf) + self._unbakeable(kept, ok)
        missing = self._missing(distance, ok, budget + TILES_AHEAD if budget >= 0 else -1)
        bake = missing[:budget] if budget >= 0 else missing
        self._make_ahead(missing[len(bake):])
        return self._change(bake, drop)

    def _make_ahead(self, tiles: list[tuple[int, int]]) -> None:
        """Take the collision meshes made on the background thread once they are done (the mesher keeps them), and
        start making those ``tiles`` (the next to bake) read: a tile's bake then finds most made instead of making
        a dozen in its frame. Only a frame's cost depends on when they are done: the meshes are the mesher's own
        (:meth:`ChunkMesher.prepare_collision_meshes <voxelworld.meshing.ChunkMesher.prepare_collision_meshes>`)."""
        if self._prefetch is not None:
            if not self._prefetch.done():
                return
            self.mesher.adopt_collision_meshes(self._prefetch)
            self._prefetch = None
        chunks = [chunk for chunk in self._read_chunks(tiles) if chunk not in self._chunk_meshes
                  and chunk not in self._baked_from]
        if chunks:
            self._prefetch = self.mesher.prepare_collision_meshes(chunks)

    def _unbakeable(self, kept: frozenset, ok: np.ndarray) -> list[tuple[int, int]]:
        """The kept tiles a chunk of which is no longer meshed (``ok``: :meth:`_meshed_columns`), sorted. A kept
        tile was bakeable when baked, so only a column that stopped being meshed since the last call can make one
        unbakeable: with none, nothing is looked at."""
        lost = self._ok_before is None or bool((self._ok_before & ~ok).any())
        self._ok_before = ok
        return sorted(t for t in kept if not self._bakeable(t, ok)) if lost else []

    def ready_around(self, point: ArrayLike) -> bool:
        """Whether the tile under ``point`` (m) is kept and every tile within ``navigation_distance`` of it that
        can be baked (its chunks meshed) is: an actor there may start walking without a bake. True when baked whole."""
        if self.tiled is None:
            return True
        point = np.asarray(point, dtype=np.float64).reshape(1, 3)
        if self.tiled.tile_of(point[0]) not in self.tiled.tiles:
            return False
        return not self._missing(self._tile_distances(point), self._meshed_columns(), -1)

    def bake_around(self, points: ArrayLike) -> list[tuple[int, int, int]]:
        """Bake now every missing tile within ``navigation_distance`` of ``points`` ((n, 3), m) whose chunks are
        meshed, dropping none (a new agent's place). Returns the tiles baked, as (0, ti, tk)."""
        if self.tiled is None:
            return []
        points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        return self._change(self._missing(self._tile_distances(points), self._meshed_columns(), -1), [])

    def _missing(self, distance: np.ndarray, ok: np.ndarray, budget: int) -> list[tuple[int, int]]:
        """The tiles within the navigation distance, not kept and bakeable, nearest first, at most ``budget``
        (negative: all)."""
        assert self.tiled is not None  # (streaming only)
        kept = self.tiled.tiles
        near = [(ti, tk) for ti, tk in np.argwhere(distance <= self.navigation_distance).tolist()]
        near = sorted((t for t in near if t not in kept), key=lambda t: (distance[t], t))
        out: list[tuple[int, int]] = []
        for tile in near:
            if budget >= 0 and len(out) >= budget:
                break
            if self._bakeable(tile, ok):
                out.append(tile)
        return out

    def _bake_given(self, tiles: Iterable, meshed_only: bool = False) -> None:
        assert self.tiled is not None  # (streaming only)
        try:
            tiles = sorted({tuple(int(c) for c in t) for t in tiles})
        except (TypeError, ValueError):
            raise ParameterError("tiles", tiles, "an iterable of tiles (ti, tk)") from None
        ok = self._meshed_columns()
        for tile in tiles:
            self.tiled.tile_box(tile)  # ParameterError naming the tile outside the grid
            if not meshed_only and not self._bakeable(tile, ok):
                raise ParameterError("tiles", tile, "tiles whose chunks are all meshed (mesher.meshed)")
        self._change([tile for tile in tiles if self._bakeable(tile, ok)] if meshed_only else tiles, [])

    def _tile_distances(self, points: np.ndarray) -> np.ndarray:
        """Each tile's x-z distance (m) from the nearest of ``points``, +inf beyond the distance tiles are kept at."""
        assert self.tiled is not None and self.navigation_distance is not None  # (streaming only)
        return self.tiled.distances(points, self.navigation_distance + self.tile_size)

    def _meshed_columns(self) -> np.ndarray:
        """(chunks x, chunks z): whether every chunk of the column (ci, ck) is meshed."""
        return self.mesher.meshed.all(axis=1)  # type: ignore[return-value]  # numpy's stubs: an array here (3-D in)

    def chunk_columns(self, tile: tuple[int, int]) -> tuple[int, int, int, int]:
        """The columns of chunks (ci0, ck0, ci1, ck1), inclusive, whose collision meshes a bake of ``tile`` reads:
        those whose triangles (reaching ``2^collision_levels + 2`` voxels past the chunk's box) can meet the bake's
        reach, widened to the props reaching in (the bake reads the ground under them)."""
        if tile not in self._tile_chunks:
            assert self.tiled is not None  # (streaming only)
            x0, z0, x1, z1 = self.tiled.reach(tile)
            for prop in self._props:
                if len(prop.positions):
                    lo, hi = prop.positions.min(axis=0), prop.positions.max(axis=0)
                    if _boxes_meet((lo[0], lo[2], hi[0], hi[2]), (x0, z0, x1, z1)):
                        x0, z0, x1, z1 = min(x0, lo[0]), min(z0, lo[2]), max(x1, hi[0]), max(z1, hi[2])
            volume = self.volume
            # A chunk's collision triangles reach past its box: its vertices lie in its cells or in its lower
            # neighbours' merged nodes (2^collision_levels cells), its quads join its upper neighbours' vertices.
            edge = volume.chunk_size * volume.voxel_size
            voxel = (2 ** self.mesher.options.collision_levels + 2) * volume.voxel_size
            grid = volume.chunk_grid_shape
            ox, oz = float(volume.origin[0]), float(volume.origin[2])
            ci0 = max(int(np.floor((x0 - voxel - ox) / edge)), 0)
            ci1 = min(int(np.floor((x1 + voxel - ox) / edge)), grid[0] - 1)
            ck0 = max(int(np.floor((z0 - voxel - oz) / edge)), 0)
            ck1 = min(int(np.floor((z1 + voxel - oz) / edge)), grid[2] - 1)
            self._tile_chunks[tile] = (ci0, ck0, ci1, ck1)
        return self._tile_chunks[tile]

    def _bakeable(self, tile: tuple[int, int], ok: np.ndarray) -> bool:
        """Whether every chunk a bake of ``tile`` reads, and the lower neighbours their collision meshes join,
        is meshed (``ok``: every chunk of the column (ci, ck) meshed)."""
        ci0, ck0, ci1, ck1 = self.chunk_columns(tile)
        return bool(ok[max(ci0 - 1, 0):ci1 + 1, max(ck0 - 1, 0):ck1 + 1].all())

    def _read_chunks(self, tiles: Iterable[tuple[int, int]]) -> list[tuple[int, int, int]]:
        height = self.volume.chunk_grid_shape[1]
        columns: set[tuple[int, int]] = set()
        for tile in tiles:
            ci0, ck0, ci1, ck1 = self.chunk_columns(tile)
            columns.update(product(range(ci0, ci1 + 1), range(ck0, ck1 + 1)))
        return sorted((ci, cj, ck) for ci, ck in columns for cj in range(height))

    def _change(self, bake_tiles: list, drop_tiles: list) -> list[tuple[int, int, int]]:
        """Bake and drop tiles; the chunks the kept tiles read are held, the others let go."""
        if not bake_tiles and not drop_tiles:
            return []
        assert self.tiled is not None  # (streaming only)
        needed = self._read_chunks(bake_tiles)
        new = [chunk for chunk in needed if chunk not in self._chunk_meshes]
        for chunk in new:
            if chunk in self._baked_from:
                self._chunk_meshes[chunk] = self._baked_from.pop(chunk)
        self._chunk_meshes.update(_chunk_collision_meshes(self.mesher, [c for c in new if c not in self._chunk_meshes]))
        self._retyped([c for c in needed if c not in self._chunk_objects], np.zeros(3), np.zeros(3))
        scene = self._scene(needed)
        before = self.tiled.tiles
        changed = self.tiled.change(scene, bake=bake_tiles, drop=drop_tiles)
        kept = self.tiled.tiles
        # How many kept tiles read each column of chunks, counted as tiles come and go (not over every kept tile
        # at each change): a column no kept tile reads any more lets its chunks' meshes go.
        freed = set()
        for tile, step in [(t, 1) for t in sorted(kept - before)] + [(t, -1) for t in sorted(before - kept)]:
            ci0, ck0, ci1, ck1 = self.chunk_columns(tile)
            for column in product(range(ci0, ci1 + 1), range(ck0, ck1 + 1)):
                uses = self._column_uses.get(column, 0) + step
                if uses:
                    self._column_uses[column] = uses
                else:
                    del self._column_uses[column]
                    freed.add(column)
        freed -= self._column_uses.keys()
        for chunk in [c for c in self._chunk_meshes if (c[0], c[2]) in freed]:
            del self._chunk_meshes[chunk]
            self._chunk_objects.pop(chunk, None)
        for tile in [t for t in self._tile_chunks if t not in kept]:
            del self._tile_chunks[tile]
        self._whole_scene = None  # made again when asked for (WorldNavigation.scene)
        tiles = [(0, ti, tk) for ti, tk in changed]
        self._logged(tiles)
        return tiles

