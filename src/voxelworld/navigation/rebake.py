"""Re-bakes: what a bake kept, brought up to date after the scene changed inside a box, redoing only what the
change can reach.

Every step of a bake depends only on columns near each sample, except the islands (see
:mod:`voxelworld.navigation.sampling`), so a change inside a box reaches only so far:

- a column's samples change only if its ray meets a triangle that changed, so only inside the box;
- whole cells, one column further (their links), and cells the box crosses (their corner probes);
- erosion, ``agent_radius`` further: a change at one sample alters the distance to the edge only along paths
  through it, which are at least as long as the way to it.

So the column rays are cast again over the columns whose cells touch the box; whole cells are judged again
(corner probes cast again) over the columns within ``agent_radius`` plus two cells of the box (the *block*),
and erosion over the block with every column it reads around it (:func:`~.sampling.erosion_reach`).
Islands are walked from the block and the column around it (:func:`~._kernels.samples.refresh_islands`): an
island none of whose samples lies there is the island it was, and a walk stops as soon as it knows an island
is large enough to keep, so only small islands are walked whole. The links of the kept samples are found
again around every column that changed, and the polygons of every tile holding a changed column (its samples
or only its links) are rebuilt; the drop links off ledges (:mod:`~voxelworld.navigation.ledges`) are scanned
again in the blocks within their reach of those columns, and the navmesh's off-mesh links placed again
(:mod:`~voxelworld.navigation.offmesh`).

Each step computes, column for column, what a full bake computes, so a re-bake gives the navmesh a full bake
of the changed scene gives, bit for bit, seams between tiles included. Deterministic.

What a bake keeps to be re-baked (:class:`BakeState`, :class:`BakedArea`) lives here with the re-bake: the bake
(:mod:`voxelworld.navigation.bake`) builds it, and :meth:`NavMesh.rebake` asks the state it holds to re-bake
itself (:meth:`BakeState.rebaked`), so the navmesh below them imports neither.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError
from ._kernels.changes import changed_triangles_box
from ._kernels.samples import DIRECTIONS, refresh_islands, relink
from .areas import BakeArea
from .frames import Frame
from .ledges import AreaLedges, rescan_ledges
from .links import SceneLink
from .navmesh import NavMesh, NavMeshArrays
from .offmesh import place_links
from .polygons import TILE_CELLS, TilePolygons, WalkableLayers, navmesh_arrays, tile_polygons
from .rays import RayScene
from .sampling import Samples, erode, erosion_reach, walkable_samples, whole_cells
from .scene import Scene, SceneObject
from .settings import NavSettings

__all__ = ["BakeState", "BakedArea", "local_scene", "rebake_state", "smallest_island", "changed_box", "triangle_rows",
           "box_columns"]


@dataclass(frozen=True)
class BakedArea:
    """What a bake keeps of one area (a region, or regions baked as one: :mod:`~voxelworld.navigation.areas`) to
    re-bake it: its samples (step 2), what is left of them after the whole-cells rule (step 3) and after erosion
    (step 4), the final layers (step 5, with their links) and each tile's polygons (tile (ti, tk) at
    ``ti * tiles_z + tk``), and its drop links off ledges (:mod:`~voxelworld.navigation.ledges`)."""

    area: BakeArea
    samples: Samples
    whole: np.ndarray  # (nx, nz, levels) float64, NaN where no sample
    eroded: np.ndarray  # (nx, nz, levels) float64
    layers: WalkableLayers
    tiles: tuple[TilePolygons, ...]
    ledges: AreaLedges = field(default_factory=AreaLedges.none)


@dataclass(frozen=True)
class BakeState:
    """The scene and settings of a bake and what it kept of each area. A bake of turned regions keeps the
    scene and regions in their frame (see :func:`local_regions`) and the frame, ``[R | t]`` (world = R @ local +
    t); None: not turned (the world's axes)."""

    scene: Scene
    settings: NavSettings
    areas: tuple[BakedArea, ...]
    frame: np.ndarray | None = field(default=None, compare=False)

    def rebaked(self, box: Iterable[ArrayLike], scene: Scene | None = None,
                in_place: bool = False) -> tuple[BakeState, list[tuple[int, int, int]]]:
        """The state after the scene changed inside ``box``, and the tiles whose polygons changed: see
        :func:`rebake_state` (what :meth:`NavMesh.rebake` calls: the navmesh, below the bake, holds its state
        without importing it)."""
        return rebake_state(self, box, scene, in_place)

    @property
    def area_types(self) -> tuple[str, ...]:
        """The area types the polygons' ``area_type`` indexes: the scene's (:attr:`Scene.area_types`)."""
        return self.scene.area_types

    def polygon_area_types(self) -> np.ndarray:
        """Each polygon's area type (an index into :attr:`area_types`), in the navmesh's order."""
        parts = [tile.area_type for area in self.areas for tile in area.tiles]
        return np.concatenate(parts) if parts else np.empty(0, np.int64)

    def navmesh(self) -> NavMesh:
        mesh = NavMesh(*self.navmesh_arrays(), frame=self.frame, area_types=self.area_types,
                       polygon_area_type=self.polygon_area_types())
        mesh.bake_state = self
        self.place_links(mesh)
        return mesh

    def place_links(self, mesh: NavMesh) -> None:
        """Give ``mesh``, the navmesh of this state's polygons, its off-mesh links (the areas' drop links and the
        scene's links: :func:`~voxelworld.navigation.offmesh.place_links`)."""
        place_links(mesh, [baked.ledges for baked in self.areas], self.scene.links, self.settings)

    def navmesh_arrays(self) -> NavMeshArrays:
        """The arrays of the navmesh of every area's tiles, in the order NavMesh takes them."""
        return navmesh_arrays([(r.layers, list(r.tiles)) for r in self.areas])



# world object -> {frame bytes: the object in that frame}: a re-bake turns only the objects that changed, and
# the turned ones keep what the rays cached of them (proxies, bounds).
_TURNED: weakref.WeakKeyDictionary[SceneObject, dict[bytes, SceneObject]] = weakref.WeakKeyDictionary()


def local_scene(scene: Scene, frame: Frame) -> Scene:
    """``scene`` seen in ``frame``: every object's positions turned into local coordinates (names, triangles
    and roles kept). The same object in the same frame gives the same turned object."""
    key = frame.matrix.tobytes()
    objects = []
    for obj in scene:
        known = _TURNED.setdefault(obj, {})
        if key not in known:
            known[key] = SceneObject(obj.name, frame.to_local(obj.positions), obj.indices, obj.role, obj.area_type)
        objects.append(known[key])
    return Scene(objects, [_local_link(link, frame) for link in scene.links])


def _local_link(link: SceneLink, frame: Frame) -> SceneLink:
    """``link`` with its ends in ``frame``."""
    start, end = frame.to_local(np.array([link.start, link.end])).tolist()
    return replace(link, start=tuple(start), end=tuple(end))



def _box(box: Iterable[ArrayLike]) -> tuple[np.ndarray, np.ndarray]:
    legal = "a box ((x0, y0, z0), (x1, y1, z1)) of finite metres with x0 <= x1, y0 <= y1, z0 <= z1"
    try:
        lo, hi = (np.asarray(corner, dtype=np.float64) for corner in box)
    except (TypeError, ValueError):
        raise ParameterError("box", box, legal) from None
    if lo.shape != (3,) or hi.shape != (3,) or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))) \
            or np.any(lo > hi):
        raise ParameterError("box", box, legal)
    return lo, hi


def triangle_rows(positions: np.ndarray, indices: np.ndarray, tags: np.ndarray) -> np.ndarray:
    """Each triangle as one row of words (n, 10) uint32: its corners' coordinates and its tag, each as the bits
    of a float32, so that two triangles are the same when their rows are (what :func:`changed_box` compares)."""
    corners = np.asarray(positions)[np.asarray(indices)].reshape(-1, 9).astype(np.float32)
    rows = np.empty((len(corners), 10), dtype=np.float32)
    rows[:, :9] = corners
    rows[:, 9] = np.asarray(tags).astype(np.float32)
    return rows.view(np.uint32)


def changed_box(old: tuple[ArrayLike, ArrayLike, ArrayLike] | None,
                new: tuple[ArrayLike, ArrayLike, ArrayLike] | None) -> tuple[np.ndarray, np.ndarray] | None:
    """The box ``(lo, hi)`` (m) of the triangles that are in one triangle set and not in the other (the same
    triangles in another order change nothing), or None when there are none: what a re-bake after ``old``
    became ``new`` takes. Each set is ``(positions (n, 3), indices (m, 3), tags (m,))`` (a triangle is its
    corners and its tag, a material say, compared as float32) or None (no triangles).

    Examples
    --------
    >>> square = np.array([[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1]], dtype=np.float32)
    >>> two = np.array([[0, 2, 1], [0, 3, 2]])
    >>> changed_box((square, two, np.zeros(2)), (square, two[::-1], np.zeros(2))) is None
    True
    >>> lo, hi = changed_box((square, two, np.zeros(2)), (square, two[:1], np.zeros(1)))
    >>> lo.tolist(), hi.tolist()
    ([0.0, 0.0, 0.0], [1.0, 0.0, 1.0])
    """
    present = [mesh for mesh in (old, new) if mesh is not None]
    if not present:
        return None
    arrays: list[np.ndarray] = []
    for mesh in (old, new):
        positions, indices, tags = mesh if mesh is not None else (np.empty((0, 3)), np.empty((0, 3), np.int64),
                                                                   np.empty(0))
        positions = np.asarray(positions)
        # (writeable, as the kernel was compiled for: a scene object's arrays are read-only)
        arrays += [np.require(positions, np.float64, ("C", "W")), np.ascontiguousarray(positions, np.float32),
                   np.require(indices, np.int64, ("C", "W")).reshape(-1, 3),
                   np.ascontiguousarray(np.asarray(tags).astype(np.float32))]
    lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
    # (mypy takes *arrays before more arguments for too many, through numba's ParamSpec stub)
    if not changed_triangles_box(*arrays, lo, hi):  # type: ignore[call-arg]
        return None
    dtype = np.result_type(*(np.asarray(mesh[0]) for mesh in present))  # the corners' own type, as given
    return lo.astype(dtype), hi.astype(dtype)


def _check(scene: object, settings: object) -> None:
    if not isinstance(scene, Scene):
        raise ParameterError("scene", scene, "a voxelworld.navigation.Scene")
    if not isinstance(settings, NavSettings):
        raise ParameterError("settings", settings, "a voxelworld.navigation.NavSettings")


def box_columns(area: BakeArea, settings: NavSettings, lo: np.ndarray, hi: np.ndarray,
           margin: float) -> tuple[int, int, int, int] | None:
    """The columns (i0, k0, i1, k1) of ``area`` whose cells come within ``margin`` (m) of the box lo..hi, or
    None."""
    rlo, rhi = area.bounds
    if np.any(hi < rlo) or np.any(lo > rhi):
        return None
    nx, nz, cell = area.nx, area.nz, settings.cell_size
    i0 = max(int(math.floor((lo[0] - margin - area.x0) / cell)), 0)
    i1 = min(int(math.ceil((hi[0] + margin - area.x0) / cell)), nx)
    k0 = max(int(math.floor((lo[2] - margin - area.z0) / cell)), 0)
    k1 = min(int(math.ceil((hi[2] + margin - area.z0) / cell)), nz)
    return (i0, k0, i1, k1) if i0 < i1 and k0 < k1 else None


def _with_levels(array: np.ndarray, levels: int, fill: float, copy: bool) -> np.ndarray:
    """``array`` (levels last) with at least ``levels`` levels, the new ones filled with ``fill``: itself when
    it has them and ``copy`` is False, else a new array."""
    if array.shape[-1] >= levels:
        return array.copy() if copy else array
    grown = np.full(array.shape[:-1] + (levels,), fill, dtype=array.dtype)
    grown[..., :array.shape[-1]] = array
    return grown


def _occupied(window: Samples) -> Samples:
    """``window`` without the levels above the last that holds a sample in it (none: one level is kept). The
    steps give the same for the samples there: a sample's links only lead to samples."""
    used = window.height.shape[2]
    while used > 1 and np.isnan(window.height[:, :, used - 1]).all():
        used -= 1
    if used == window.height.shape[2]:
        return window
    return replace(window, height=window.height[..., :used], ceiling=window.ceiling[..., :used],
                   enclosure=window.enclosure[..., :used], area=None if window.area is None else window.area[..., :used])


def _put(array: np.ndarray, block: tuple[int, int, int, int], window: Samples, result: np.ndarray) -> None:
    """Write ``result`` (a step's heights over ``window``, maybe with fewer levels than ``array``) into the
    columns of ``block`` of ``array``: NaN on the levels the window left out."""
    i0, k0, i1, k1 = block
    used = result.shape[2]
    array[i0:i1, k0:k1, :used] = result[i0 - window.i0:i1 - window.i0, k0 - window.k0:k1 - window.k0]
    array[i0:i1, k0:k1, used:] = np.nan


def smallest_island(settings: NavSettings, samples: int) -> int:
    """The fewest samples an island needs to be kept (``n * cell_size² >= min_region_area``, the comparison
    :func:`~voxelworld.navigation.sampling.drop_small_islands` makes), at most ``samples + 1``."""
    area, wanted = settings.cell_size ** 2, settings.min_region_area
    n = min(max(math.ceil(wanted / area), 0), samples + 1)
    while n > 0 and (n - 1) * area >= wanted:
        n -= 1
    while n <= samples and n * area < wanted:
        n += 1
    return n


def rebake_state(state: BakeState, box: Iterable[ArrayLike], scene: Scene | None = None,
                 in_place: bool = False) -> tuple[BakeState, list[tuple[int, int, int]]]:
    """The bake state after the scene changed inside ``box`` (see the module's docstring), and the tiles whose
    polygons changed, as (area, ti, tk): ``area`` counts the bake's areas (:func:`~.areas.bake_areas`; one per
    region unless regions meet). With ``in_place``, the arrays of ``state`` are updated and shared
    by the new state (``state`` must not be used again); otherwise ``state`` is left as it was. ``box`` and
    ``scene`` are in world coordinates: a bake of turned regions turns them into its frame (the box becomes the
    local box holding its 8 corners) as the bake turned its scene."""
    lo, hi = _box(box)
    settings = state.settings
    if scene is None:
        scene = state.scene  # kept in the bake's frame
    else:
        _check(scene, settings)
        if state.frame is not None:
            scene = local_scene(scene, Frame(state.frame))
    if state.frame is not None:
        lo, hi = Frame(state.frame).local_box(lo, hi)
    _check(scene, settings)
    areas, rebuilt = [], []
    margin = settings.agent_radius + 2 * settings.cell_size  # how far from the box the walkable area can change
    kept = state.areas
    if scene.area_types != state.scene.area_types:  # rare: the scene names other area types; renumber them
        kept = tuple(_renumbered(baked, state.scene.area_types, scene.area_types) for baked in kept)
    for n, baked in enumerate(kept):
        block = box_columns(baked.area, settings, lo, hi, margin)
        if block is None:
            areas.append(baked)
            continue
        # Rays change only where they can meet a changed triangle: in the columns whose cells touch the box
        # (None: in none).
        fresh, tiles = _rebake_area(baked, scene, settings, block, box_columns(baked.area, settings, lo, hi, 0.0),
                                      in_place)
        areas.append(fresh)
        rebuilt += [(n, ti, tk) for ti, tk in tiles]
    return BakeState(scene, settings, tuple(areas), state.frame), rebuilt


def _renumbered(baked: BakedArea, old: tuple[str, ...], new: tuple[str, ...]) -> BakedArea:
    """``baked`` with its area types (indices into ``old``) as indices into ``new`` (a name ``new`` lacks, which
    only samples the re-bake casts again can have: 0)."""
    lookup = np.array([new.index(name) if name in new else 0 for name in old], dtype=np.int64)
    area = lookup[baked.samples.area] if baked.samples.area is not None else None
    return replace(baked, samples=replace(baked.samples, area=area), layers=replace(baked.layers, area=area),
                   tiles=tuple(replace(tile, area_type=lookup[tile.area_type]) for tile in baked.tiles))


def _rebake_area(baked: BakedArea, scene: Scene, settings: NavSettings, block: tuple[int, int, int, int],
                 touched: tuple[int, int, int, int] | None,
                 in_place: bool) -> tuple[BakedArea, list[tuple[int, int]]]:
    """One area re-baked over ``block`` (see :func:`rebake_state`), its rays cast again over the columns
    ``touched`` (inside the block), and its tiles whose polygons changed."""
    bi0, bk0, bi1, bk1 = block
    nx, nz = baked.samples.height.shape[:2]
    rays = RayScene(scene, baked.area, settings, block)
    cast = walkable_samples(rays.cast_columns(touched), settings) if touched is not None else None
    levels = max(cast.height.shape[2] if cast is not None else 0, baked.samples.height.shape[2])
    copy = not in_place
    old = baked.samples
    area = _with_levels(old.area if old.area is not None else np.zeros(old.height.shape, np.int64), levels, 0, copy)
    samples = Samples(old.x0, old.z0, old.cell, _with_levels(old.height, levels, np.nan, copy),
                      _with_levels(old.ceiling, levels, np.nan, copy), _with_levels(old.enclosure, levels, -1, copy),
                      area=area)
    if cast is not None:
        assert touched is not None  # cast over the touched columns only
        ti0, tk0, ti1, tk1 = touched
        retyped = area[ti0:ti1, tk0:tk1].copy()  # a sample whose type alone changes changes its tile
        for name, fill in (("height", np.nan), ("ceiling", np.nan), ("enclosure", -1), ("area", 0)):
            mine, theirs = getattr(samples, name), getattr(cast, name)
            mine[ti0:ti1, tk0:tk1] = fill
            mine[ti0:ti1, tk0:tk1, :theirs.shape[2]] = theirs
    # Whole cells over the block, judged with the columns around it; erosion with every column it reads.
    window = _occupied(samples.window(max(bi0 - 1, 0), max(bk0 - 1, 0), min(bi1 + 1, nx), min(bk1 + 1, nz)))
    whole = _with_levels(baked.whole, levels, np.nan, copy)
    _put(whole, block, window, whole_cells(rays, window, settings, block))
    reach = erosion_reach(settings)
    window = _occupied(samples.with_height(whole).window(max(bi0 - reach, 0), max(bk0 - reach, 0),
                                                         min(bi1 + reach, nx), min(bk1 + reach, nz)))
    eroded = _with_levels(baked.eroded, levels, np.nan, copy)
    _put(eroded, block, window, erode(window, settings))
    # Islands: walked from the block and the column around it; dropped samples are looked at as far as an
    # island too small to keep that reaches in there can lie.
    final = _with_levels(baked.layers.height, levels, np.nan, copy)
    changed = np.zeros((nx, nz), dtype=bool)
    if cast is not None:
        changed[ti0:ti1, tk0:tk1] = np.any(retyped != area[ti0:ti1, tk0:tk1], axis=2)
    smallest = smallest_island(settings, eroded.size)
    seeds = np.array([[max(bi0 - 1, 0), max(bk0 - 1, 0), min(bi1 + 1, nx), min(bk1 + 1, nz)],
                      [max(bi0 - 1 - smallest, 0), max(bk0 - 1 - smallest, 0), min(bi1 + 1 + smallest, nx),
                       min(bk1 + 1 + smallest, nz)]], dtype=np.int64)
    refresh_islands(eroded, samples.ceiling, samples.enclosure, settings.step_limit, settings.clearance, seeds,
                    smallest, final, changed)
    # Links of the kept samples around every column whose kept samples changed, or whose ceiling or enclosure
    # may have (the columns cast again).
    links = _with_levels(baked.layers.links, levels, -1, copy)
    rows, cols = np.flatnonzero(changed.any(axis=1)), np.flatnonzero(changed.any(axis=0))
    ti0, tk0, ti1, tk1 = touched if touched is not None else (nx, nz, 0, 0)
    li0, li1 = max(min(ti0, int(rows.min(initial=nx))) - 1, 0), min(max(ti1, int(rows.max(initial=-1)) + 1) + 1, nx)
    lk0, lk1 = max(min(tk0, int(cols.min(initial=nz))) - 1, 0), min(max(tk1, int(cols.max(initial=-1)) + 1) + 1, nz)
    relink(final, samples.ceiling, samples.enclosure, settings.step_limit, settings.clearance, DIRECTIONS,
           li0, lk0, li1, lk1, links, changed)
    layers = WalkableLayers(final, links, baked.layers.x0, baked.layers.z0, baked.layers.cell, area)
    ntx, ntz = layers.tiles
    tiles = list(baked.tiles)
    # The tiles holding a changed column, in tile order: each tile's columns folded by two reductions.
    touched_tiles = np.logical_or.reduceat(np.logical_or.reduceat(changed, np.arange(ntx) * TILE_CELLS, axis=0),
                                           np.arange(ntz) * TILE_CELLS, axis=1)
    rebuilt = [(int(ti), int(tk)) for ti, tk in zip(*np.nonzero(touched_tiles))]
    for ti, tk in rebuilt:
        tiles[ti * ntz + tk] = tile_polygons(layers, ti, tk, settings.max_corners, settings.max_edge_error)
    # Drop links: scanned again within reach of the columns relinked (they hold every changed column and the
    # columns cast again, whose surfaces, ceilings and enclosures the scan reads too).
    relinked = (li0, lk0, li1, lk1) if li0 < li1 and lk0 < lk1 else None
    ledges = rescan_ledges(baked.ledges, samples, layers, settings, relinked)
    return BakedArea(baked.area, samples, whole, eroded, layers, tuple(tiles), ledges), rebuilt

