"""The streaming part of :class:`~voxelworld.game.navigation.WorldNavigation`: the navmesh's tiles baked and
dropped around the actors of a large world (see that class's notes), each tile equal, bit for bit, to the same tile
of a full bake.

A tile's bake reads the collision meshes of the chunks under its reach; making those and baking the tile in the
frame that wants it was most of a sprinting frame's worst cases, so :meth:`NavStreaming.stream` asks for the tiles
it wants, a thread of their own bakes them meanwhile (:mod:`voxelworld.game.nav_ahead`), and they are baked
:data:`TILE_LAG` frames later (together every :data:`LANDING_EVERY` frames), each taken from the thread when it was
baked from the scene that frame has. When a tile is baked does not depend on the thread: a tile not baked ahead in
time is baked in its frame, and the same either way. (A dig's re-bake is not asked for: the collision meshes kept
are what the navmesh was baked from, which a world file keeps.)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import product
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_integer
from ..frame_first import waiting_for_background
from ..meshing import ChunkMesher, CollisionMesh
from ..meshing.mesher_collision import PreparedCollision
from ..navigation import NavSettings, Scene, SceneObject
from ..navigation.tiles import TiledNavMesh, change_reaches_tiles
from ..terrain import Volume
from .nav_ahead import TileAhead, navigation_thread, start_tile_ahead, tile_taken
from .nav_chunks import boxes_meet as _boxes_meet
from .nav_chunks import chunk_collision_meshes as _chunk_collision_meshes
from .nav_stored import StoredReader, StoredTiles, scene_source, settings_source

if TYPE_CHECKING:
    from .ground_things import GroundThings
    from .nav_areas import TerrainAreaTypes

__all__ = ["NavStreaming", "ASK_EVERY", "LANDING_EVERY", "TILE_LAG"]

# Calls of stream() (frames) from asking for a tile to baking it: the navigation's thread bakes it meanwhile. The
# tiles asked for land together every LANDING_EVERY calls (TILE_LAG to TILE_LAG + LANDING_EVERY - 1 after asked),
# and the tiles out of reach are dropped then: a landing (the join, the crowd's new paths, the areas' objects) costs
# its frame about the same for one tile as for several, 11-14 ms on the 1 km world: four times a second, not 15.
TILE_LAG = 30
LANDING_EVERY = 15
# Calls of stream() between asking for missing tiles, ``tiles_per_frame`` for each: finding them reads the whole
# tile grid (distances, meshed columns, the missing ones in order), a third of a millisecond whatever the number
# asked. Asked in the last call of every ASK_EVERY (never a landing's call, a dear frame already; LANDING_EVERY is a
# multiple), a tile lands TILE_LAG + 1, + 6 or + 11 calls later: as soon, on average, as one asked in any call.
ASK_EVERY = 5


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
    stored_tiles: StoredTiles | None
    tiles_read: int
    tiles_baked: int
    _tile_chunks: dict[tuple[int, int], tuple[int, int, int, int]]
    _ok_before: np.ndarray | None
    _column_uses: dict[tuple[int, int], int]
    _bakeable_for: np.ndarray | None
    _bakeable_seen: np.ndarray | None
    _asked: dict[tuple[int, int], tuple[int, TileAhead | None]]
    _preparing: dict[tuple[int, int, int], tuple[PreparedCollision, int]]
    _streams: int
    tiles_taken_ahead: int
    settings: NavSettings
    terrain_areas: TerrainAreaTypes | None
    things: GroundThings | None

    if TYPE_CHECKING:  # defined by WorldNavigation
        @property
        def tile_size(self) -> float: ...
        def _retyped(self, chunks: Iterable[tuple]) -> tuple[np.ndarray, np.ndarray] | None: ...
        def _scene(self, chunks: Iterable[tuple[int, int, int]] | None = None) -> Scene: ...
        def _scene_objects(self, chunks: Iterable[tuple[int, int, int]] | None = None) -> list[SceneObject]: ...
        def _logged(self, tiles: list[tuple[int, int, int]]) -> None: ...
        def _things_on(self, chunks: list[tuple[int, int, int]]) -> list[SceneObject]: ...

    def stream(self, points: ArrayLike, budget: int | None = None) -> list[tuple[int, int, int]]:
        """Move the kept tiles towards what the actors at ``points`` ((n, 3), m) want (see
        :class:`~voxelworld.game.navigation.WorldNavigation`'s notes): every :data:`LANDING_EVERY` calls, drop the
        far ones and those a chunk they read no longer meshes, and bake the tiles asked for :data:`TILE_LAG` calls
        ago or more that are still wanted and bakeable
        (each taken from the navigation's thread when it baked it from the scene of this frame, else baked now:
        :mod:`~voxelworld.game.nav_ahead`); then, every :data:`ASK_EVERY` calls, ask for up to ``budget`` (None:
        ``tiles_per_frame``) a call of the missing ones within ``navigation_distance``, nearest first, which that
        thread starts baking. A negative budget bakes every missing tile now. Returns the tiles whose polygons
        changed, as (0, ti, tk). Nothing to do when baked whole."""
        if self.tiled is None:
            return []
        assert self.navigation_distance is not None  # (given with tiled)
        points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        budget = self.tiles_per_frame if budget is None else check_integer("budget", budget)
        self._streams += 1
        landing, asking = self._streams % LANDING_EVERY == 0, self._streams % ASK_EVERY == ASK_EVERY - 1
        if budget >= 0 and not landing and not asking:
            return []
        distance = self._tile_distances(points)  # +inf beyond navigation_distance + tile_size
        ok = self._meshed_columns()
        changed = []
        # The navmesh changes only every LANDING_EVERY calls: its join, the crowd's new paths over it and the
        # areas' objects cost a landing's frame about the same for one tile, or a tile dropped, as for several.
        if budget < 0 or landing:
            kept = self.tiled.tiles
            drop = sorted(t for t in kept if distance[t] == np.inf) + self._unbakeable(kept, ok)
            if budget < 0:
                return self._change(self._missing(distance, ok, -1), drop)
            due = {t: self._asked.pop(t)[1] for t in sorted(t for t, (at, _) in self._asked.items()
                                                            if at <= self._streams)}
            bake = [t for t in due if t not in kept and distance[t] <= self.navigation_distance
                    and self._bakeable(t, ok)]
            changed = self._change(bake, drop, due)
        if asking:
            self._ask(self._missing(distance, ok, budget * ASK_EVERY, skip=self._asked))
        return changed

    def _ask(self, tiles: list[tuple[int, int]]) -> None:
        """Ask for ``tiles`` (missing): baked at the first multiple of
        :data:`LANDING_EVERY` calls of :meth:`stream` at least :data:`TILE_LAG` from now, baked ahead meanwhile on
        the navigation's thread."""
        for tile in tiles:
            self._asked[tile] = (-(-(self._streams + TILE_LAG) // LANDING_EVERY) * LANDING_EVERY,
                                 self._start_ahead(tile))

    def _start_ahead(self, tile: tuple[int, int]) -> TileAhead:
        """Start baking ``tile`` on the navigation's thread from the scene as it is now (:mod:`.nav_ahead`)."""
        assert self.tiled is not None  # (streaming only)
        chunks = self._read_chunks([tile])
        held = dict(self._chunk_meshes)
        held.update({c: self._baked_from[c] for c in chunks if c not in held and c in self._baked_from})
        made = self.mesher.made_collision_meshes([c for c in chunks if c not in held])
        held.update({c: mesh if mesh.triangle_count else None for c, mesh in made.items()})
        # Those being made for a tile asked for before (a neighbour reads them too) are waited for, not made again.
        preparing: dict[tuple[int, int, int], PreparedCollision] = {}
        for chunk in [c for c in chunks if c not in held and c in self._preparing]:
            prepared, revision = self._preparing[chunk]
            if self.mesher.prepared_still_current(prepared, chunk, revision):
                preparing[chunk] = prepared
        made_here = self.mesher.prepare_collision_meshes([c for c in chunks if c not in held and c not in preparing],
                                                         navigation_thread())
        if made_here is not None:
            for chunk, revision in zip(made_here.chunks, made_here.revisions):
                preparing[chunk] = made_here
                self._preparing[chunk] = (made_here, revision)
        return start_tile_ahead(tile, chunks, held, {c: self._chunk_objects[c] for c in chunks
                                                     if c in self._chunk_objects}, preparing,
                                None if self.terrain_areas is None else self.terrain_areas.copy(), self._props,
                                self._things_on(chunks), self.tiled.area, self.settings, self._stored_reader())

    def _adopt_made(self, preparations: Iterable[PreparedCollision]) -> None:
        """Keep in the mesher the collision meshes ``preparations`` made on the navigation's thread, each once, where
        it finished (:meth:`ChunkMesher.adopt_collision_meshes`: where still what the mesher would make); one that
        failed or was cancelled is left (the frame makes those meshes)."""
        for prepared in {id(p): p for p in preparations}.values():
            future = prepared.future
            if future.done() and not future.cancelled() and future.exception() is None:
                self.mesher.adopt_collision_meshes(prepared)

    def _stored_reader(self) -> StoredReader | None:
        """What reads tiles from the world file's bake (:mod:`.nav_stored`), on any thread; None without one."""
        if self.stored_tiles is None:
            return None
        assert self.tiled is not None  # (streaming only)
        area = self.tiled.area
        return StoredReader(self.stored_tiles, settings_source(self.settings, self.tiled.region, area, self.things),
                            area)

    def tile_source(self, tile: tuple[int, int]) -> bytes:
        """The digest of the scene a bake of ``tile`` reads now (:func:`~.nav_stored.scene_source`; the chunks it
        reads held): what a world file's bake keeps with the tile, and a game takes it by."""
        assert self.tiled is not None  # (streaming only)
        settings = settings_source(self.settings, self.tiled.region, self.tiled.area, self.things)
        return scene_source(settings, tile, self._scene_objects(self._read_chunks([tile])))

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
        meshed, dropping none (a new agent's place; those asked for are baked now too). Returns the tiles baked,
        as (0, ti, tk)."""
        if self.tiled is None:
            return []
        points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        missing = self._missing(self._tile_distances(points), self._meshed_columns(), -1)
        return self._change(missing, [], {t: self._asked.pop(t)[1] for t in missing if t in self._asked})

    def _missing(self, distance: np.ndarray, ok: np.ndarray, budget: int, skip: Iterable[tuple[int, int]] = ()
                 ) -> list[tuple[int, int]]:
        """The tiles within the navigation distance, not kept (nor in ``skip``) and bakeable, nearest first (ties
        in tile order), at most ``budget`` (negative: all)."""
        assert self.tiled is not None  # (streaming only)
        wanted = (distance <= self.navigation_distance) & ~self.tiled.kept
        for tile in skip:
            wanted[tile] = False
        found = np.argwhere(wanted)
        near = found[np.lexsort((found[:, 1], found[:, 0], distance[found[:, 0], found[:, 1]]))]
        # Whether a tile is bakeable changes only with the meshed columns: remembered until they change (tiles
        # waiting at the meshed area's edge were looked at again every frame), as a grid (-1: not looked at yet).
        seen = self._bakeable_seen
        if seen is None or self._bakeable_for is None or not np.array_equal(self._bakeable_for, ok):
            self._bakeable_for = ok
            self._bakeable_seen = seen = np.full(self.tiled.tile_grid, -1, np.int8)
        out: list[tuple[int, int]] = []
        for ti, tk in near[seen[near[:, 0], near[:, 1]] != 0].tolist():  # (those known not bakeable left out)
            if budget >= 0 and len(out) >= budget:
                break
            if seen[ti, tk] < 0:
                seen[ti, tk] = self._bakeable((ti, tk), ok)
            if seen[ti, tk]:
                out.append((ti, tk))
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

    def _reaches_tiles(self, tiles: list[tuple[int, int]], before: Mapping[tuple, SceneObject], lo: np.ndarray,
                       hi: np.ndarray) -> bool:
        """Whether the chunks' scene objects changing from ``before`` to those held now, inside the box lo..hi, can
        change a bake of the kept ``tiles`` around it (:func:`~voxelworld.navigation.tiles.change_reaches_tiles`):
        a cut in a wall that leaves every floor as it was does not, and they are not baked again (the streamed
        navmesh stays what a full bake gives, as a dense world's re-bake does)."""
        assert self.tiled is not None  # (streaming only)
        needed = self._read_chunks(tiles)
        others = list(self._props) + self._things_on(needed)

        def scene(objects: Mapping[tuple, SceneObject]) -> Scene:
            return Scene([objects[c] for c in needed if c in objects] + others)

        return change_reaches_tiles(scene(before), scene(self._chunk_objects), self.tiled.area, self.settings, lo, hi)

    def _change(self, bake_tiles: list, drop_tiles: list,
                ahead: Mapping[tuple[int, int], TileAhead | None] | None = None) -> list[tuple[int, int, int]]:
        """Bake and drop tiles; the chunks the kept tiles read are held, the others let go. ``ahead``: tiles baked
        ahead (:mod:`.nav_ahead`), taken where baked from this frame's scene (a bake started is waited for, one
        not started is dropped; those not baked now are dropped)."""
        started = {}
        for tile, job in (ahead or {}).items():
            if job is not None and tile in bake_tiles and (job.done() or not job.future.cancel()):
                with waiting_for_background():  # (a bake under way: less than baking the tile again)
                    job.future.exception()
                started[tile] = job
                self._adopt_made(job.collision.values())  # where still the mesher's: found below
            elif job is not None:
                job.future.cancel()
        if ahead:  # the preparations no tile still asked for waits for are let go of
            live = {id(p) for _, job in self._asked.values() if job is not None for p in job.collision.values()}
            self._preparing = {c: entry for c, entry in self._preparing.items() if id(entry[0]) in live}
        if not bake_tiles and not drop_tiles:
            return []
        assert self.tiled is not None  # (streaming only)
        needed = self._read_chunks(bake_tiles)
        new = [chunk for chunk in needed if chunk not in self._chunk_meshes]
        for chunk in new:
            if chunk in self._baked_from:
                self._chunk_meshes[chunk] = self._baked_from.pop(chunk)
        # Meshes the navigation's thread made for a tile still asked for (a neighbour reading the same chunks, or
        # none of this landing's: a new agent's tiles) are the mesher's too: not made again here.
        self._adopt_made(self._preparing[c][0] for c in new if c in self._preparing)
        self._chunk_meshes.update(_chunk_collision_meshes(self.mesher, [c for c in new if c not in self._chunk_meshes]))
        # A chunk held before with no scene object has no triangles, typed when it came: not typed again.
        fresh = set(new)
        self._retyped([c for c in needed if c not in self._chunk_objects
                       and (c in fresh or self._chunk_meshes[c] is not None)])
        scene = self._scene(needed)
        taken = {}
        for tile, job in started.items():
            chunks = [c for c in job.chunks if c in self._chunk_objects]
            baked = tile_taken(job, self._chunk_meshes, self._chunk_objects, self._things_on(chunks))
            if baked is not None:
                taken[tile] = baked
                read = job.future.result()[3]
                self.tiles_read += read
                self.tiles_baked += not read
        self.tiles_taken_ahead += len(taken)
        reader = self._stored_reader()
        if reader is not None:  # the world file's tiles baked from the very scene this frame has (a kept tile
            # baked again changed since it was baked or read: a dig's re-bake does not look)
            for tile in [t for t in bake_tiles if t not in taken and t not in self.tiled.tiles]:
                stored = reader(tile, self._scene_objects(self._read_chunks([tile])))
                if stored is not None:
                    taken[tile] = stored
                    self.tiles_read += 1
        self.tiles_baked += sum(1 for tile in bake_tiles if tile not in taken)  # (baked below)
        before = self.tiled.tiles
        changed = self.tiled.change(scene, bake=bake_tiles, drop=drop_tiles, baked=taken)
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
        height = self.volume.chunk_grid_shape[1]  # (the freed columns' chunks, not every chunk held looked at)
        for chunk in [(ci, cj, ck) for ci, ck in freed for cj in range(height) if (ci, cj, ck) in self._chunk_meshes]:
            del self._chunk_meshes[chunk]
            self._chunk_objects.pop(chunk, None)
        for tile in [t for t in self._tile_chunks if t not in kept]:
            del self._tile_chunks[tile]
        self._whole_scene = None  # made again when asked for (WorldNavigation.scene)
        tiles = [(0, ti, tk) for ti, tk in changed]
        self._logged(tiles)
        return tiles

