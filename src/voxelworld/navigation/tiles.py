"""Tiles baked apart: a navmesh that holds only some tiles of a region, each the same, bit for bit, as the same
tile of a full bake of the region (for worlds too large to bake whole, which keep the tiles around their agents).

A tile's polygons (:func:`~voxelworld.navigation.polygons.tile_polygons`) read the final samples and their links
of the tile and the column around it; every step before reaches only so far (see
:mod:`voxelworld.navigation.sampling` and :mod:`voxelworld.navigation.rebake`):

- small islands: an island too small to keep has fewer than :func:`~.rebake.smallest_island` samples, so it lies
  within that many columns of any of its samples; an island a window cuts off at its edge reaches at least that
  far, so it is kept in the window as it is in the whole region. Islands are judged over the tile, the column
  around it and ``smallest_island`` columns more;
- erosion, :func:`~.sampling.erosion_reach` columns further; whole cells, one column further (their links);
- the rays, one per column of that window.

So :func:`bake_tiles` casts the rays over a window of the tiles ``tile_margin`` columns wider on every side but
the spare one (clipped to the region, whose edge a full bake has too), and runs each step over the window the next
one reads, its links found again only next to what the step before changed; the tiles' polygons are those of a
full bake, bit for bit, and :func:`tile_reach` (with the spare column) is the box of the scene they read. A tile keeps, besides its
polygons, where the samples on its sides step across to (:func:`~.polygons.side_steps`), which is all the
portals between tiles read: :class:`TiledNavMesh` joins any set of tiles into one navmesh, and given every tile,
it is the full bake's navmesh, bit for bit.

Examples
--------
>>> from voxelworld.navigation import Scene, SearchRegion, NavSettings
>>> from voxelworld.navigation.bake import bake
>>> floor = [[0, 0, 0], [40, 0, 0], [40, 0, 40], [0, 0, 40]]
>>> scene = Scene().with_object("floor", floor, [[0, 2, 1], [0, 3, 2]], role="floor")
>>> region = SearchRegion((0, -1, 0), (40, 3, 40), landing=False)
>>> settings = NavSettings(ray_density=16)
>>> tiled = TiledNavMesh(region, settings)
>>> tiled.tile_grid, tiled.tile_of((30.0, 0.0, 5.0))
((3, 3), (1, 0))
>>> tiled.change(scene, bake=[(0, 0), (1, 0)])
[(0, 0), (1, 0)]
>>> full = bake(scene, region, settings)
>>> same_polygons(tiled.tile((1, 0)), full.bake_state.areas[0].tiles[1 * 3 + 0])
True
>>> tiled.change(scene, bake=[(x, z) for x in range(3) for z in range(3)], drop=[])[-1]
(2, 2)
>>> from voxelworld.navigation.navmesh import ARRAY_NAMES
>>> all(np.array_equal(getattr(tiled.mesh, name), getattr(full, name)) for name in ARRAY_NAMES)
True
>>> tiled.change(scene, drop=[(2, 2)]), len(tiled.tiles)
([(2, 2)], 8)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError
from ._kernels.nearness import tile_distances
from .area_types import GROUND
from .areas import BakeArea, _corner_and_shape
from .joined_tiles import JoinedTiles
from .navmesh import NavMesh, NavMeshArrays
from .polygons import TILE_CELLS, TilePolygons, WalkableLayers, side_steps, tile_navmesh_arrays, tile_polygons
from .rays import RayScene
from .rebake import box_columns, smallest_island
from .roles import check_bake_input
from .sampling import (
    MAX_LEVELS,
    Samples,
    drop_small_islands,
    erode,
    erosion_reach,
    sample_links,
    walkable_samples,
    whole_cells,
    window_sample_links,
)
from .scene import Scene
from .settings import NavSettings, SearchRegion

__all__ = ["TiledNavMesh", "BakedTile", "same_polygons", "tile_margin", "bake_tiles", "tile_reach", "streaming_area",
           "change_reaches_tiles"]


class BakedTile:
    """One tile baked apart: its polygons, the :func:`~.polygons.side_steps` of their sides and the area types
    their ``area_type`` indexes (the scene's it was baked from, :attr:`Scene.area_types`)."""

    __slots__ = ("polygons", "steps", "area_types", "__weakref__")

    def __init__(self, polygons: TilePolygons, steps: np.ndarray, area_types: tuple[str, ...] = (GROUND,)) -> None:
        self.polygons, self.steps, self.area_types = polygons, steps, area_types

    def same_as(self, other: BakedTile | None) -> bool:
        """Whether ``other`` holds the same polygons (with the same area type names) and steps, array for
        array."""
        return other is not None and np.array_equal(self.steps, other.steps) \
            and same_polygons(self.polygons, other.polygons) \
            and [self.area_types[t] for t in self.polygons.area_type] \
            == [other.area_types[t] for t in other.polygons.area_type]

    def type_names(self) -> list[str]:
        """Each polygon's area type name."""
        return [self.area_types[t] for t in self.polygons.area_type]

    @property
    def nbytes(self) -> int:
        """Bytes held by the tile's arrays."""
        return int(self.steps.nbytes) + sum(int(getattr(self.polygons, name).nbytes)
                                            for name in TilePolygons.__dataclass_fields__)


def same_polygons(a: TilePolygons, b: TilePolygons) -> bool:
    """Whether two tiles' polygons are the same, array for array (values and dtypes), bit for bit."""
    return all(_same_array(getattr(a, name), getattr(b, name)) for name in TilePolygons.__dataclass_fields__)


def _same_array(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def streaming_area(region: SearchRegion, settings: NavSettings) -> BakeArea:
    """The ray grid of ``region`` alone (as :func:`~.areas.area_of` makes it) without the per-column owner array:
    every column is the region's (a broadcast view, no memory), and no limit on the grid's size, since only
    windows of it are baked."""
    check_bake_input(Scene(), region, settings)
    cell = settings.cell_size
    x0, z0, nx, nz = _corner_and_shape([region], cell)
    if not (1 <= nx < math.inf and 1 <= nz < math.inf):
        raise ParameterError("region", region, f"a box at least one cell ({cell:.3f} m) wide in x and z, finite")
    nx, nz = int(nx), int(nz)
    owner = np.broadcast_to(np.zeros((), dtype=np.int64), (nx, nz))
    return BakeArea((region,), float(x0), float(z0), cell, nx, nz, owner)


def tile_margin(settings: NavSettings) -> int:
    """Columns around the tiles that a bake of them reads (see the module's docstring): the column around the
    tiles (their links), the islands' reach, the erosion's, the whole cells' column, and one to spare."""
    return 1 + max(smallest_island(settings, MAX_BAKE_SAMPLES), 1) + erosion_reach(settings) + 1 + 1


MAX_BAKE_SAMPLES = 1 << 40  # caps smallest_island's count: more samples than any window holds


def _tile_columns(area: BakeArea, ti0: int, tk0: int, ti1: int, tk1: int) -> tuple[int, int, int, int]:
    """The columns (i0, k0, i1, k1) of the tiles [ti0, ti1) x [tk0, tk1)."""
    return ti0 * TILE_CELLS, tk0 * TILE_CELLS, min(ti1 * TILE_CELLS, area.nx), min(tk1 * TILE_CELLS, area.nz)


def _grown(area: BakeArea, block: tuple[int, int, int, int], by: int) -> tuple[int, int, int, int]:
    i0, k0, i1, k1 = block
    return max(i0 - by, 0), max(k0 - by, 0), min(i1 + by, area.nx), min(k1 + by, area.nz)


def _check_tiles(area: BakeArea, tiles: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    legal = f"tiles (ti0, tk0, ti1, tk1): whole numbers, 0 <= ti0 < ti1 <= {-(-area.nx // TILE_CELLS)}, 0 <= tk0 < tk1 <= {-(-area.nz // TILE_CELLS)}"
    try:
        ti0, tk0, ti1, tk1 = (int(t) for t in tiles)
    except (TypeError, ValueError):
        raise ParameterError("tiles", tiles, legal) from None
    if not (0 <= ti0 < ti1 <= -(-area.nx // TILE_CELLS) and 0 <= tk0 < tk1 <= -(-area.nz // TILE_CELLS)):
        raise ParameterError("tiles", tiles, legal)
    return ti0, tk0, ti1, tk1


def tile_reach(area: BakeArea, settings: NavSettings,
               tiles: tuple[int, int, int, int]) -> tuple[float, float, float, float]:
    """The x-z box ``(x0, z0, x1, z1)`` (m) of the scene that :func:`bake_tiles` of the tiles ``(ti0, tk0, ti1,
    tk1)`` reads: the cells of its rays' window. Its polygons depend on nothing else of the scene but the roles the
    bake gives the obstacles reaching in there (the ground under an obstacle: the objects under it)."""
    block = _grown(area, _tile_columns(area, *_check_tiles(area, tiles)), tile_margin(settings))
    cell = settings.cell_size
    return (area.x0 + block[0] * cell, area.z0 + block[1] * cell, area.x0 + block[2] * cell,
            area.z0 + block[3] * cell)


def bake_tiles(scene: Scene, area: BakeArea, settings: NavSettings,
               tiles: tuple[int, int, int, int]) -> dict[tuple[int, int], BakedTile]:
    """The tiles ``(ti0, tk0, ti1, tk1)`` (tiles [ti0, ti1) x [tk0, tk1)) of ``area`` (a single region's:
    :func:`streaming_area`) baked apart, each as a full bake of ``scene`` gives it, bit for bit (see the module's
    docstring); ``scene`` needs to hold only what :func:`tile_reach` reads."""
    ti0, tk0, ti1, tk1 = _check_tiles(area, tiles)
    if not isinstance(area, BakeArea) or len(area.regions) != 1:
        raise ParameterError("area", area, "the BakeArea of one region (streaming_area)")
    check_bake_input(scene, area.regions[0], settings)
    own = _tile_columns(area, ti0, tk0, ti1, tk1)
    # Each step runs over the window the next one reads, no wider (see the module's docstring): the polygons read
    # the final samples of the tiles and the column around them, and the links there (whose neighbours lie one
    # column further); islands are judged smallest_island columns further, erosion erosion_reach further still,
    # whole cells there too, and the samples and rays over one column more (the whole cells' links).
    layered = _grown(area, own, 2)
    islands = _grown(area, own, 1 + max(smallest_island(settings, MAX_BAKE_SAMPLES), 1))
    judged = _grown(area, islands, erosion_reach(settings))
    rays = RayScene(scene, area, settings, _grown(area, judged, 1))
    samples = walkable_samples(rays.cast_columns(), settings)
    # Each step's links are those of its input, found again only next to the columns the step before changed.
    links = sample_links(samples, settings)
    whole = samples.with_height(whole_cells(rays, samples, settings, judged, links))
    judging = whole.window(*judged)
    judging_links = window_sample_links(judging, samples, links, settings)
    eroded = judging.with_height(erode(judging, settings, judging_links))
    kept = eroded.window(*islands)
    kept_links = window_sample_links(kept, judging, judging_links, settings)
    final = kept.with_height(drop_small_islands(kept, settings, kept_links))
    layer = final.window(*layered)
    layers = WalkableLayers(np.ascontiguousarray(layer.height), window_sample_links(layer, kept, kept_links, settings),
                            samples.x0, samples.z0, samples.cell, layer.area)
    i0, k0 = layered[:2]
    out: dict[tuple[int, int], BakedTile] = {}
    for ti in range(ti0, ti1):
        for tk in range(tk0, tk1):
            polygons = tile_polygons(layers, ti, tk, settings.max_corners, settings.max_edge_error, (i0, k0))
            sides = np.column_stack([polygons.sides, polygons.level[polygons.sides[:, 0]]])
            out[(ti, tk)] = BakedTile(polygons, side_steps(sides, layers.links, area.nx, area.nz, i0, k0),
                                      scene.area_types)
    return out


def change_reaches_tiles(before: Scene, after: Scene, area: BakeArea, settings: NavSettings, lo: ArrayLike,
                         hi: ArrayLike) -> bool:
    """Whether the scene changing from ``before`` to ``after`` inside the box ``lo``..``hi`` (m: every triangle that
    came, went or changed its area type lies in it) can change any tile :func:`bake_tiles` bakes of ``area``.

    A bake reads the scene through its rays only: a column's samples change only where its cell touches the box,
    its whole cell one column further (its links), its erosion :func:`~.sampling.erosion_reach` further still. So
    the steps up to erosion are run for both scenes over a window holding all that, and compared: when the eroded
    samples are the same, with the ceilings and closed solids of those kept (which their links read) and the area
    types of every sample (a tile's polygons read those), the islands, links, polygons and side steps are the
    same too, bit for bit. A cut in a wall that leaves every floor as it was re-bakes nothing. Scenes that name other
    area types always can (a tile keeps the names of the scene it was baked from). Both scenes need
    hold only what the rays within ``2 * erosion_reach + 2`` columns of the box meet (what :func:`tile_reach` of
    the tiles around it holds)."""
    if before.area_types != after.area_types:
        return True  # (a tile baked again names the new scene's area types; samples index them)
    touched = box_columns(area, settings, np.asarray(lo, float), np.asarray(hi, float), 0.0)
    if touched is None:
        return False
    reach = erosion_reach(settings)
    judged = _grown(area, touched, 1 + 2 * reach)  # whole cells judged where erosion may read a change
    window = _grown(area, judged, 1)
    made = []
    for scene in (before, after):
        rays = RayScene(scene, area, settings, window)
        samples = walkable_samples(rays.cast_columns(), settings)
        links = sample_links(samples, settings)
        whole = samples.with_height(whole_cells(rays, samples, settings, judged, links)).window(*judged)
        eroded = erode(whole, settings, window_sample_links(whole, samples, links, settings))
        made.append((whole, eroded))
    (old, old_eroded), (new, new_eroded) = made
    levels = max(old.height.shape[2], new.height.shape[2])
    old_kept, new_kept = (_levels(e, levels, np.nan) for e in (old_eroded, new_eroded))
    if not np.array_equal(old_kept, new_kept, equal_nan=True):
        return True
    kept = ~np.isnan(old_kept)
    return not all(np.array_equal(_levels(a, levels, fill)[kept], _levels(b, levels, fill)[kept])
                   for a, b, fill in ((old.ceiling, new.ceiling, np.nan), (old.enclosure, new.enclosure, -1))) \
        or not np.array_equal(_levels(_area_of(old), levels, 0), _levels(_area_of(new), levels, 0))


def _area_of(samples: Samples) -> np.ndarray:
    return np.zeros(samples.height.shape, np.int64) if samples.area is None else samples.area


def _levels(array: np.ndarray, levels: int, fill: float) -> np.ndarray:
    """An array of samples (levels last) with ``levels`` levels, those it lacks filled with ``fill``."""
    if array.shape[2] >= levels:
        return array
    return np.concatenate([array, np.full(array.shape[:2] + (levels - array.shape[2],), fill, array.dtype)], axis=2)


class TiledNavMesh:
    """A navmesh of some tiles of one search region, baked apart and dropped at will (a large world keeps those
    around its agents); each tile is the same, bit for bit, as that tile of a full bake of the region.

    Parameters
    ----------
    region : SearchRegion
        Upright (``rotation`` (0, 0, 0, 1)) with its ``landing`` given (True or False: "on when no floor reaches
        into the region" would ask the whole scene).
    settings : NavSettings

    Attributes
    ----------
    mesh : NavMesh
        The kept tiles' polygons in tile order (polygons of tile (ti, tk) before those of (ti, tk + 1)), rebuilt in
        place by :meth:`change` (references to it stay valid; a Crowd or NavQuery of it follows) from arrays kept
        tile by tile (:class:`~.joined_tiles.JoinedTiles`: a change costs the copies of the arrays and the work of
        the tiles changed, their neighbours' portals and rings, not a join of every tile).
    area : BakeArea
        The region's ray grid (:func:`streaming_area`).
    """

    def __init__(self, region: SearchRegion, settings: NavSettings) -> None:
        if not isinstance(region, SearchRegion):
            raise ParameterError("region", type(region).__name__, "a voxelworld.navigation.SearchRegion")
        if region.turned:
            raise ParameterError("region.rotation", region.rotation, "(0, 0, 0, 1): tiles bake upright regions")
        if region.landing is None:
            raise ParameterError("region.landing", None, "True or False (None asks whether any floor of the whole "
                                 "scene reaches into the region, which tiles baked apart do not see)")
        self.region, self.settings = region, settings
        self.area = streaming_area(region, settings)
        self._tiles: dict[tuple[int, int], BakedTile] = {}
        self._tile_set: frozenset[tuple[int, int]] | None = frozenset()  # (None: made again when asked for)
        self._kept = np.zeros(self.tile_grid, dtype=bool)
        area = self.area
        self._joined = JoinedTiles(area.x0, area.z0, area.cell, area.nx, area.nz, MAX_LEVELS)
        self._tables: Counter[tuple[str, ...]] = Counter()  # the kept tiles' area type tables, counted
        self.mesh = NavMesh(*self._arrays())
        # Each tile's reach along x (by ti) and along z (by tk): a tile's reach is their product.
        ntx, ntz = self.tile_grid
        self._reach_x = [(r[0], r[2]) for r in (self.reach((ti, 0)) for ti in range(ntx))]
        self._reach_z = [(r[1], r[3]) for r in (self.reach((0, tk)) for tk in range(ntz))]

    @property
    def tile_grid(self) -> tuple[int, int]:
        """How many tiles cover the region along x and z."""
        return -(-self.area.nx // TILE_CELLS), -(-self.area.nz // TILE_CELLS)

    @property
    def tile_size(self) -> float:
        """The edge of a tile (m)."""
        return TILE_CELLS * self.settings.cell_size

    @property
    def tiles(self) -> frozenset[tuple[int, int]]:
        """The tiles kept."""
        if self._tile_set is None:
            self._tile_set = frozenset(self._tiles)
        return self._tile_set

    @property
    def kept(self) -> np.ndarray:
        """(tiles x, tiles z) bool: whether each tile is kept (:attr:`tiles` as a grid; a copy)."""
        return self._kept.copy()

    def tile(self, tile: tuple[int, int]) -> TilePolygons:
        """The polygons of a kept tile (ti, tk)."""
        return self._tiles[self._tile(tile)].polygons

    def baked_tile(self, tile: tuple[int, int]) -> BakedTile:
        return self._tiles[self._tile(tile)]

    def tile_of(self, point: Sequence[float] | np.ndarray) -> tuple[int, int]:
        """The tile (ti, tk) under ``point`` (m; x and z), clamped to the region's tiles."""
        x, z = float(point[0]), float(point[2])
        size = self.tile_size
        ntx, ntz = self.tile_grid
        return (min(max(int(math.floor((x - self.area.x0) / size)), 0), ntx - 1),
                min(max(int(math.floor((z - self.area.z0) / size)), 0), ntz - 1))

    def distances(self, points: np.ndarray, within: float) -> np.ndarray:
        """(tiles x, tiles z): each tile's x-z distance (m) from the nearest of ``points`` ((n, 3) float64, m; 0
        inside the tile) where that is at most ``within`` m, +inf elsewhere (only the tiles near the points are
        looked at)."""
        area = self.area
        out = np.empty(self.tile_grid)
        tile_distances(area.x0, area.z0, self.tile_size, area.x0 + area.nx * area.cell, area.z0 + area.nz * area.cell,
                       np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 3), float(within), out)
        return out

    def tile_box(self, tile: tuple[int, int]) -> tuple[float, float, float, float]:
        """The x-z box ``(x0, z0, x1, z1)`` (m) of a tile's columns."""
        ti, tk = self._tile(tile)
        i0, k0, i1, k1 = _tile_columns(self.area, ti, tk, ti + 1, tk + 1)
        cell = self.settings.cell_size
        return (self.area.x0 + i0 * cell, self.area.z0 + k0 * cell, self.area.x0 + i1 * cell,
                self.area.z0 + k1 * cell)

    def reach(self, tile: tuple[int, int]) -> tuple[float, float, float, float]:
        """The x-z box (m) of the scene a bake of ``tile`` reads (:func:`tile_reach`)."""
        ti, tk = self._tile(tile)
        return tile_reach(self.area, self.settings, (ti, tk, ti + 1, tk + 1))

    def tiles_reading(self, box: Sequence[float]) -> list[tuple[int, int]]:
        """The kept tiles, sorted, whose bake reads something of the x-z box ``(x0, z0, x1, z1)`` (m): whose
        :meth:`reach` meets it (touching counts)."""
        x0, z0, x1, z1 = (float(v) for v in box)
        along_x = {ti for ti, (lo, hi) in enumerate(self._reach_x) if lo <= x1 and x0 <= hi}
        along_z = {tk for tk, (lo, hi) in enumerate(self._reach_z) if lo <= z1 and z0 <= hi}
        return sorted(t for t in self._tiles if t[0] in along_x and t[1] in along_z)

    def _tile(self, tile: tuple[int, int]) -> tuple[int, int]:
        ntx, ntz = self.tile_grid
        try:
            ti, tk = (int(t) for t in tile)
        except (TypeError, ValueError):
            raise ParameterError("tile", tile, f"a tile (ti, tk) of the grid ({ntx}, {ntz})") from None
        if not (0 <= ti < ntx and 0 <= tk < ntz):
            raise ParameterError("tile", tile, f"a tile (ti, tk) with 0 <= ti < {ntx}, 0 <= tk < {ntz}")
        return ti, tk

    def change(self, scene: Scene | None = None, bake: Iterable[tuple[int, int]] = (),
               drop: Iterable[tuple[int, int]] = (), baked: Mapping[tuple[int, int], BakedTile] | None = None
               ) -> list[tuple[int, int]]:
        """Drop the tiles ``drop``, bake the tiles ``bake`` from ``scene`` (again, if kept: after the scene changed
        there), and rebuild :attr:`mesh` once if any tile's polygons changed. Returns those tiles, sorted. A tile
        both dropped and baked is baked. Tiles given are checked before anything changes; tiles that fill their
        bounding rectangle are baked in one window (cheaper than one by one). ``baked``: tiles of ``bake`` already
        baked from this ``scene`` (:func:`bake_tiles`, e.g. on another thread), taken as they are."""
        drop = {self._tile(t) for t in drop}
        bake = sorted({self._tile(t) for t in bake})
        given = dict(baked or {})
        for tile, done in given.items():
            if tile not in bake or not isinstance(done, BakedTile):
                raise ParameterError("baked", tile, "tiles of bake mapped to their BakedTile")
        if bake and not isinstance(scene, Scene):
            raise ParameterError("scene", type(scene).__name__, "a voxelworld.navigation.Scene to bake tiles from")
        changed = {t for t in drop - set(bake) if t in self._tiles}
        joined: dict[tuple[int, int], tuple[TilePolygons, np.ndarray] | None] = {}
        self._tile_set = None
        for tile in sorted(changed):
            self._tables[self._tiles.pop(tile).area_types] -= 1
            self._kept[tile] = False
            joined[tile] = None
        made = given
        for group in _rectangles([t for t in bake if t not in given]):
            assert isinstance(scene, Scene)  # checked above: there are tiles to bake
            made.update(bake_tiles(scene, self.area, self.settings, group))
        for tile in bake:  # (in tile order, as the rectangles give them)
            fresh, was = made[tile], self._tiles.get(tile)
            if not fresh.same_as(was):
                changed.add(tile)
            if was is None or was.area_types != fresh.area_types or tile in changed:
                joined[tile] = (fresh.polygons, fresh.steps)  # the same polygons may index another table
            if was is not None:
                self._tables[was.area_types] -= 1
            self._tables[fresh.area_types] += 1
            self._tiles[tile] = fresh
            self._kept[tile] = True
        if joined:
            self._joined.change(joined)
        if changed:
            self.mesh._set_arrays(*self._joined.arrays, baked=True, area_types=self._area_types(),
                                  boxes_planes=self._joined.boxes_planes, ring_source=self._joined.rings_for,
                                  changed=self._changed_box(changed))
        return sorted(changed)

    def _changed_box(self, tiles: Iterable[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
        """The x-z box (lo, hi) of ``tiles``' columns, a cell wider each way: where their polygons lie (the
        portals to their neighbours on their edges)."""
        boxes = np.array([self.tile_box(tile) for tile in tiles], dtype=np.float64).reshape(-1, 4)
        cell = self.settings.cell_size
        return boxes[:, :2].min(axis=0) - cell, boxes[:, 2:].max(axis=0) + cell

    def _area_types(self) -> tuple[tuple[str, ...], np.ndarray]:
        """The kept tiles' area types, joined: ``"ground"`` and the others their polygons have, sorted, and each
        polygon's index into them (in :attr:`mesh`'s order)."""
        tables = [table for table, count in self._tables.items() if count > 0]
        if len(tables) == 1:  # the usual case: baked from scenes naming the same types
            return tables[0], self._joined.area_type
        tiles = [self._tiles[t] for t in sorted(self._tiles)]
        if not tiles:
            return (GROUND,), np.empty(0, np.int64)
        used = {name for tile in tiles for name in tile.type_names()} - {GROUND}
        names = (GROUND, *sorted(used))
        index = {name: n for n, name in enumerate(names)}
        return names, _joined([np.array([index[name] for name in tile.type_names()], np.int64) for tile in tiles])

    def _arrays(self) -> NavMeshArrays:
        """The kept tiles' arrays joined from scratch (:func:`~.polygons.tile_navmesh_arrays`): what the arrays
        :attr:`mesh` is rebuilt from, kept tile by tile (:class:`~.joined_tiles.JoinedTiles`), equal."""
        order = sorted(self._tiles)
        area = self.area
        return tile_navmesh_arrays([self._tiles[t].polygons for t in order], [self._tiles[t].steps for t in order],
                                   area.x0, area.z0, area.cell, area.nx, area.nz, MAX_LEVELS)

    @property
    def nbytes(self) -> int:
        """Bytes held by the kept tiles (not counting the joined navmesh)."""
        return sum(t.nbytes for t in self._tiles.values())


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts).astype(np.int64, copy=False) if parts else np.empty(0, np.int64)


def _rectangles(tiles: list[tuple[int, int]]) -> list[tuple[int, int, int, int]]:
    """The tiles as rectangles (ti0, tk0, ti1, tk1) to bake: all in one when they fill their bounding rectangle,
    else one each."""
    if not tiles:
        return []
    ti0, tk0 = min(t[0] for t in tiles), min(t[1] for t in tiles)
    ti1, tk1 = max(t[0] for t in tiles) + 1, max(t[1] for t in tiles) + 1
    if (ti1 - ti0) * (tk1 - tk0) == len(tiles):
        return [(ti0, tk0, ti1, tk1)]
    return [(ti, tk, ti + 1, tk + 1) for ti, tk in tiles]
