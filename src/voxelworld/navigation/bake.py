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
from .polygons import TILE_CELLS, TilePolygons, WalkableLayers, level_links, navmesh_from_tiles, tile_polygons
from .sampling import (cast_rays, drop_small_islands, erode, erosion_reach, grid_shape, walkable_grids,
                       walkable_samples)
from .scene import Scene
from .settings import NavSettings, SearchRegion

__all__ = ["bake", "BakeState", "BakedRegion", "rebake_state", "walkable_grids"]


@dataclass(frozen=True)
class BakedRegion:
    """What a bake keeps of one region to re-bake it: the walkable samples of step 2 and after erosion (step
    3), the final layers (step 4) and each tile's polygons (tile (ti, tk) at ``ti * tiles_z + tk``)."""

    region: SearchRegion
    samples: np.ndarray  # (nx, nz, levels) float64, NaN where none
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


def _layers(eroded: np.ndarray, samples_x0: float, samples_z0: float, settings: NavSettings) -> WalkableLayers:
    height = drop_small_islands(eroded, settings)
    return WalkableLayers(height, level_links(height, settings.step_limit), samples_x0, samples_z0,
                          settings.cell_size)


def _check(scene, settings) -> None:
    if not isinstance(scene, Scene):
        raise ParameterError("scene", scene, "a voxelworld.navigation.Scene")
    if not isinstance(settings, NavSettings):
        raise ParameterError("settings", settings, "a voxelworld.navigation.NavSettings")


def bake(scene: Scene, regions, settings: NavSettings = NavSettings(), progress=None) -> NavMesh:
    """A navmesh of the walkable area of ``scene`` inside ``regions`` (a SearchRegion or a list of them).
    ``progress(done, total)``, when given, is called after each region. The navmesh can be re-baked where the
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
    _check(scene, settings)
    regions = [regions] if isinstance(regions, SearchRegion) else list(regions)
    if not regions:
        raise ParameterError("regions", regions, "one SearchRegion or a non-empty list of them")
    baked = []
    for done, region in enumerate(regions, 1):
        samples = walkable_samples(cast_rays(scene, region, settings), settings)
        eroded = erode(samples.height, settings)
        layers = _layers(eroded, samples.x0, samples.z0, settings)
        ntx, ntz = layers.tiles
        tiles = tuple(tile_polygons(layers, ti, tk) for ti in range(ntx) for tk in range(ntz))
        baked.append(BakedRegion(region, samples.height, eroded, layers, tiles))
        if progress is not None:
            progress(done, len(regions))
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


def _with_levels(array: np.ndarray, levels: int) -> np.ndarray:
    if array.shape[2] >= levels:
        return array.copy()
    grown = np.full(array.shape[:2] + (levels,), np.nan)
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
        block = walkable_samples(cast_rays(scene, baked.region, settings, (bi0, bk0, bi1, bk1)), settings).height
        levels = max(block.shape[2], baked.samples.shape[2])
        samples = _with_levels(baked.samples, levels)
        samples[bi0:bi1, bk0:bk1] = np.nan
        samples[bi0:bi1, bk0:bk1, :block.shape[2]] = block
        reach = erosion_reach(settings)
        wi0, wk0, wi1, wk1 = max(bi0 - reach, 0), max(bk0 - reach, 0), min(bi1 + reach, nx), min(bk1 + reach, nz)
        window = erode(samples[wi0:wi1, wk0:wk1], settings)
        eroded = _with_levels(baked.eroded, levels)
        eroded[bi0:bi1, bk0:bk1] = window[bi0 - wi0:bi1 - wi0, bk0 - wk0:bk1 - wk0]
        layers = _layers(eroded, baked.layers.x0, baked.layers.z0, settings)
        old = _with_levels(baked.layers.height, levels)
        ntx, ntz = layers.tiles
        tiles = list(baked.tiles)
        for ti in range(ntx):
            for tk in range(ntz):
                cells = (slice(ti * TILE_CELLS, (ti + 1) * TILE_CELLS), slice(tk * TILE_CELLS, (tk + 1) * TILE_CELLS))
                if not np.array_equal(old[cells], layers.height[cells], equal_nan=True):
                    tiles[ti * ntz + tk] = tile_polygons(layers, ti, tk)
                    rebuilt.append((n, ti, tk))
        regions.append(BakedRegion(baked.region, samples, eroded, layers, tuple(tiles)))
    return BakeState(scene, settings, tuple(regions)), rebuilt
