"""Bakes and re-bakes: a scene and search regions in, a :class:`NavMesh` out.

:func:`bake` runs the sampling steps of :mod:`voxelworld.navigation.sampling` over each region (rays, walkable
samples, erosion, small islands) and turns the samples into polygons tile by tile
(:mod:`voxelworld.navigation.polygons`). The navmesh keeps what it was baked from, so that
:meth:`NavMesh.rebake` can redo only the tiles that a change of the scene touches:

- the rays are cast again only over the tiles that the changed box touches, widened by how far a change
  reaches into the walkable area (``agent_radius`` plus two cells);
- erosion runs over those tiles plus :func:`~voxelworld.navigation.sampling.erosion_reach` columns around
  them, which is every sample its result there depends on;
- islands are found again over the whole region (joining or splitting one can change the fate of a small
  island far away), and polygons are rebuilt for every tile whose samples changed.

Every step computes, column for column, what a full bake computes, so a re-bake gives the navmesh a full bake
of the changed scene gives, bit for bit, seams between tiles included. Deterministic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from .navmesh import NavMesh
from .polygons import TILE_CELLS, TilePolygons, WalkableGrid, WalkableLayers, navmesh_from_tiles, tile_polygons
from .rays import RayScene, check_bake_input, grid_shape
from .sampling import (Samples, drop_small_islands, erode, erosion_reach, sample_links, walkable_samples,
                       whole_cells)
from .scene import Scene
from .settings import NavSettings, SearchRegion

__all__ = ["bake", "BakeState", "BakedRegion", "rebake_state", "walkable_layers", "walkable_grids"]


@dataclass(frozen=True)
class BakedRegion:
    """What a bake keeps of one region to re-bake it: its samples (step 2), what is left of them after the
    whole-cells rule (step 3) and after erosion (step 4), the final layers (step 5, with their links) and each
    tile's polygons (tile (ti, tk) at ``ti * tiles_z + tk``)."""

    region: SearchRegion
    samples: Samples
    whole: np.ndarray  # (nx, nz, levels) float64, NaN where no sample
    eroded: np.ndarray  # (nx, nz, levels) float64
    layers: WalkableLayers
    tiles: tuple[TilePolygons, ...]


@dataclass(frozen=True)
class BakeState:
    """The scene and settings of a bake and what it kept of each region."""

    scene: Scene
    settings: NavSettings
    regions: tuple[BakedRegion, ...]

    def navmesh(self) -> NavMesh:
        mesh = navmesh_from_tiles([(r.layers, list(r.tiles)) for r in self.regions], self.settings.max_corners)
        mesh.bake_state = self
        return mesh


def _layers(samples: Samples, eroded: np.ndarray, settings: NavSettings) -> WalkableLayers:
    """Step 5 over the whole region, and the links polygons are joined by."""
    final = samples.with_height(drop_small_islands(samples.with_height(eroded), settings))
    return WalkableLayers(final.height, sample_links(final, settings), samples.x0, samples.z0, samples.cell)


STEPS = 6  # rays, samples, whole cells, erosion, islands, polygons: what progress is counted in


def _bake_region(scene: Scene, region: SearchRegion, settings: NavSettings, step=lambda: None) -> BakedRegion:
    """Steps 1-5 and the polygons of one whole region; ``step()`` is called after each of the STEPS."""
    rays = RayScene(scene, region, settings)
    hits = rays.cast_columns()
    step()
    samples = walkable_samples(hits, settings)
    step()
    whole = whole_cells(rays, samples, settings)
    step()
    eroded = erode(samples.with_height(whole), settings)
    step()
    layers = _layers(samples, eroded, settings)
    step()
    ntx, ntz = layers.tiles
    tiles = tuple(tile_polygons(layers, ti, tk) for ti in range(ntx) for tk in range(ntz))
    step()
    return BakedRegion(region, samples, whole, eroded, layers, tiles)


def walkable_layers(scene: Scene, region: SearchRegion, settings: NavSettings) -> WalkableLayers:
    """Steps 1-5 over a region: its walkable samples, every level, with the links between them."""
    check_bake_input(scene, region, settings)
    return _bake_region(scene, region, settings).layers


def walkable_grids(scene: Scene, region: SearchRegion, settings: NavSettings) -> list[WalkableGrid]:
    """Steps 1-5 as one grid of walkable cells per level (see sampling.walkable_samples for what a level is)."""
    layers = walkable_layers(scene, region, settings)
    grids = []
    for s in range(layers.height.shape[2]):
        walk = ~np.isnan(layers.height[:, :, s])
        if walk.any():
            grids.append(WalkableGrid(walk, np.where(walk, layers.height[:, :, s], 0.0), layers.x0, layers.z0,
                                      layers.cell))
    return grids


def _check(scene, settings) -> None:
    if not isinstance(scene, Scene):
        raise ParameterError("scene", scene, "a voxelworld.navigation.Scene")
    if not isinstance(settings, NavSettings):
        raise ParameterError("settings", settings, "a voxelworld.navigation.NavSettings")


def bake(scene: Scene, regions, settings: NavSettings = NavSettings(), progress=None) -> NavMesh:
    """A navmesh of the walkable area of ``scene`` inside ``regions`` (a SearchRegion or a list of them).
    ``progress(done, total)``, when given, is called after each step of each region (``total`` is six steps
    per region: rays, samples, whole cells, erosion, islands, polygons). The navmesh can be re-baked where the
    scene changes with :meth:`NavMesh.rebake`.

    Examples
    --------
    >>> from voxelworld.navigation import Scene, SearchRegion, NavSettings
    >>> floor = [[0, 0, 0], [8, 0, 0], [8, 0, 8], [0, 0, 8]]
    >>> scene = Scene().with_object("floor", floor, [[0, 2, 1], [0, 3, 2]])
    >>> mesh = bake(scene, SearchRegion((0, -1, 0), (8, 3, 8)), NavSettings(ray_density=4, agent_radius=0,
    ...                                                                          min_region_area=0))
    >>> mesh.area()
    64.0
    """
    regions = [regions] if isinstance(regions, SearchRegion) else list(regions)
    if not regions:
        raise ParameterError("regions", regions, "one SearchRegion or a non-empty list of them")
    for region in regions:
        check_bake_input(scene, region, settings)
    done = [0]

    def step():
        done[0] += 1
        if progress is not None:
            progress(done[0], STEPS * len(regions))

    baked = [_bake_region(scene, region, settings, step) for region in regions]
    return BakeState(scene, settings, tuple(baked)).navmesh()


def _box(box) -> tuple[np.ndarray, np.ndarray]:
    legal = "a box ((x0, y0, z0), (x1, y1, z1)) of finite metres with x0 <= x1, y0 <= y1, z0 <= z1"
    try:
        lo, hi = (np.asarray(corner, dtype=np.float64) for corner in box)
    except (TypeError, ValueError):
        raise ParameterError("box", box, legal) from None
    if lo.shape != (3,) or hi.shape != (3,) or not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))) \
            or np.any(lo > hi):
        raise ParameterError("box", box, legal)
    return lo, hi


def _with_levels(array: np.ndarray, levels: int, fill=np.nan) -> np.ndarray:
    """A copy of ``array`` (nx, nz, l) with at least ``levels`` levels, the new ones filled with ``fill``."""
    if array.shape[2] >= levels:
        return array.copy()
    grown = np.full(array.shape[:2] + (levels,), fill, dtype=array.dtype)
    grown[:, :, :array.shape[2]] = array
    return grown


def rebake_state(state: BakeState, box, scene: Scene | None = None) -> tuple[BakeState, list[tuple[int, int, int]]]:
    """The bake state after the scene changed inside ``box`` (see the module's docstring), and the tiles whose
    polygons changed, as (region, ti, tk)."""
    lo, hi = _box(box)
    scene = state.scene if scene is None else scene
    settings = state.settings
    _check(scene, settings)
    cell = settings.cell_size
    margin = settings.agent_radius + 2 * cell  # how far from a changed column the walkable area can change
    regions, rebuilt = [], []
    for n, baked in enumerate(state.regions):
        rlo, rhi = np.array(baked.region.min), np.array(baked.region.max)
        if np.any(hi < rlo) or np.any(lo > rhi):
            regions.append(baked)
            continue
        nx, nz = grid_shape(baked.region, settings)
        i0 = max(int(math.floor((lo[0] - margin - rlo[0]) / cell)), 0)
        i1 = min(int(math.ceil((hi[0] + margin - rlo[0]) / cell)), nx)
        k0 = max(int(math.floor((lo[2] - margin - rlo[2]) / cell)), 0)
        k1 = min(int(math.ceil((hi[2] + margin - rlo[2]) / cell)), nz)
        if i0 >= i1 or k0 >= k1:
            regions.append(baked)
            continue
        # Whole tiles: the block of columns re-cast.
        ti0, tk0 = i0 // TILE_CELLS, k0 // TILE_CELLS
        ti1, tk1 = -(-i1 // TILE_CELLS), -(-k1 // TILE_CELLS)
        bi0, bk0, bi1, bk1 = ti0 * TILE_CELLS, tk0 * TILE_CELLS, min(ti1 * TILE_CELLS, nx), min(tk1 * TILE_CELLS, nz)
        rays = RayScene(scene, baked.region, settings, (bi0, bk0, bi1, bk1))
        block = walkable_samples(rays.cast_columns(), settings)
        levels = max(block.height.shape[2], baked.samples.height.shape[2])
        old = baked.samples
        samples = Samples(old.x0, old.z0, old.cell, _with_levels(old.height, levels),
                          _with_levels(old.ceiling, levels), _with_levels(old.enclosure, levels, -1))
        for name, fill in (("height", np.nan), ("ceiling", np.nan), ("enclosure", -1)):
            mine, theirs = getattr(samples, name), getattr(block, name)
            mine[bi0:bi1, bk0:bk1] = fill
            mine[bi0:bi1, bk0:bk1, :theirs.shape[2]] = theirs
        # Whole cells over the block, judged with the columns around it; erosion with every column it reads.
        window = samples.window(max(bi0 - 1, 0), max(bk0 - 1, 0), min(bi1 + 1, nx), min(bk1 + 1, nz))
        whole = _with_levels(baked.whole, levels)
        judged = whole_cells(rays, window, settings, (bi0, bk0, bi1, bk1))
        whole[bi0:bi1, bk0:bk1] = judged[bi0 - window.i0:bi1 - window.i0, bk0 - window.k0:bk1 - window.k0]
        reach = erosion_reach(settings)
        wi0, wk0, wi1, wk1 = max(bi0 - reach, 0), max(bk0 - reach, 0), min(bi1 + reach, nx), min(bk1 + reach, nz)
        window = samples.with_height(whole).window(wi0, wk0, wi1, wk1)
        eroded = _with_levels(baked.eroded, levels)
        eroded[bi0:bi1, bk0:bk1] = erode(window, settings)[bi0 - wi0:bi1 - wi0, bk0 - wk0:bk1 - wk0]
        layers = _layers(samples, eroded, settings)
        old, new = _with_levels(baked.layers.height, levels), layers.height
        changed = np.any((old != new) & ~(np.isnan(old) & np.isnan(new)), axis=2)  # per column
        ntx, ntz = layers.tiles
        padded = np.zeros((ntx * TILE_CELLS, ntz * TILE_CELLS), dtype=bool)
        padded[:nx, :nz] = changed
        per_tile = padded.reshape(ntx, TILE_CELLS, ntz, TILE_CELLS).any(axis=(1, 3))
        tiles = list(baked.tiles)
        for ti, tk in zip(*np.nonzero(per_tile)):
            tiles[ti * ntz + tk] = tile_polygons(layers, int(ti), int(tk))
            rebuilt.append((n, int(ti), int(tk)))
        regions.append(BakedRegion(baked.region, samples, whole, eroded, layers, tuple(tiles)))
    return BakeState(scene, settings, tuple(regions)), rebuilt
