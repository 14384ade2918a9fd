"""The sampling steps of a bake: a scene and a search region in, walkable samples out.

Each step is a function a user can call and inspect on its own (:func:`voxelworld.navigation.bake.bake` runs
them all and turns the result into polygons):

1. :func:`cast_rays` — a square grid of rays (spacing ``settings.cell_size``) falls from the region's top face
   through the floors and the obstacles' proxies (exception objects are transparent); every hit is kept.
2. :func:`walkable_samples` — per column, the hits an agent could stand on: up-facing, no steeper than
   ``max_slope``, with ``clearance`` of free space above. Without ``levels``, a column whose ray meets an
   obstacle's proxy is cut out (hits on exclusion regions removed, ground under obstacles cut out); with
   ``levels``, an obstacle's top is a sample of its own (a table top becomes walkable).
3. :func:`erode` — samples closer than ``agent_radius`` to the walkable area's edge are dropped.
4. :func:`drop_small_islands` — islands (samples joined through steps within ``step_limit``) smaller than
   ``min_region_area`` are dropped.

:func:`walkable_layers` runs steps 1-4 over a whole region; every step also runs on a block of columns, which
is how a re-bake redoes only some tiles and still gives the same samples as a full bake.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from ..collision import TriangleBVH
from ..errors import ParameterError
from ._kernels.samples import DIRECTIONS, erosion_distance, island_labels
from .polygons import WalkableGrid, WalkableLayers, level_links
from .scene import Scene
from .settings import NavSettings, SearchRegion

__all__ = ["RayHitsGrid", "Samples", "cast_rays", "walkable_samples", "erode", "drop_small_islands",
           "erosion_reach", "walkable_layers", "walkable_grids", "grid_shape"]

MAX_LEVELS = 8  # samples kept per column, lowest first


@dataclass(frozen=True)
class RayHitsGrid:
    """Every hit of a block of a region's ray grid (step 1): ray ``r`` is column ``(i0 + r // nz, k0 + r % nz)``
    of the region's grid, whose centre is at ``(x0 + (i + 0.5) * cell, z0 + (k + 0.5) * cell)``; hits sorted by
    ray, then from the top down (then by triangle)."""

    x0: float
    z0: float
    cell: float
    nx: int
    nz: int
    ray: np.ndarray  # (K,) int64
    height: np.ndarray  # (K,) float64, world y of the hit (m)
    up: np.ndarray  # (K,) float64: the y component of the hit triangle's unit normal as wound (> 0: faces up)
    exclusion: np.ndarray  # (K,) bool: the hit is on an obstacle's proxy
    i0: int = 0  # the block's first column along x
    k0: int = 0  # the block's first column along z


@dataclass(frozen=True)
class Samples:
    """Walkable samples (step 2) of a block of columns: ``height[i, k, s]`` is the s-th lowest (m, NaN where
    none) of column ``(i0 + i, k0 + k)``; there are as many levels as the busiest column needs (at most
    MAX_LEVELS)."""

    x0: float
    z0: float
    cell: float
    height: np.ndarray  # (nx, nz, levels) float64
    i0: int = 0
    k0: int = 0


def grid_shape(region: SearchRegion, settings: NavSettings) -> tuple[int, int]:
    """How many columns of rays a region has along x and z."""
    lo, hi = np.array(region.min), np.array(region.max)
    cell = settings.cell_size
    nx, nz = int(np.floor((hi[0] - lo[0]) / cell + 1e-9)), int(np.floor((hi[2] - lo[2]) / cell + 1e-9))
    if nx < 1 or nz < 1:
        raise ParameterError("region", region, f"a box at least one cell ({cell:.3f} m) wide in x and z")
    return nx, nz


def _proxy_triangles(positions: np.ndarray, indices: np.ndarray, proxy: str) -> tuple[np.ndarray, np.ndarray]:
    """The triangles that stand in for one obstacle: its own, its convex hull's, or its bounding box's."""
    if proxy == "mesh":
        return positions, indices
    if proxy == "hull":
        try:
            hull = ConvexHull(positions)
            return positions, hull.simplices.astype(np.int64)
        except (QhullError, ValueError):  # flat or tiny: fall back to its box
            pass
    lo, hi = positions.min(axis=0), positions.max(axis=0)
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    faces = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
                      [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]], dtype=np.int64)
    return corners, faces


def _check(scene, region, settings) -> None:
    if not isinstance(scene, Scene):
        raise ParameterError("scene", scene, "a voxelworld.navigation.Scene")
    if not isinstance(region, SearchRegion):
        raise ParameterError("region", region, "a voxelworld.navigation.SearchRegion")
    if not isinstance(settings, NavSettings):
        raise ParameterError("settings", settings, "a voxelworld.navigation.NavSettings")
    if not np.allclose(region.ray_direction, (0.0, -1.0, 0.0)):
        raise ParameterError("ray_direction", region.ray_direction, "(0, -1, 0): the baker casts rays straight down")


def cast_rays(scene: Scene, region: SearchRegion, settings: NavSettings,
              block: tuple[int, int, int, int] | None = None) -> RayHitsGrid:
    """Step 1: every hit of the region's ray grid on floors and obstacle proxies (exceptions are transparent).

    Obstacles rising no more than ``settings.obstacle_min_height`` above the region's floor (its min y) count
    as floor. Objects partly outside the region count only inside it: rays start at its top and stop at its
    bottom, and cover only its x-z extent. ``block = (i0, k0, i1, k1)`` casts only the columns
    ``[i0, i1) x [k0, k1)`` of the grid, with the same rays and hits as a cast of the whole grid.
    """
    _check(scene, region, settings)
    lo, hi = np.array(region.min), np.array(region.max)
    cell = settings.cell_size
    nx, nz = grid_shape(region, settings)
    i0, k0, i1, k1 = (0, 0, nx, nz) if block is None else block
    if not (0 <= i0 < i1 <= nx and 0 <= k0 < k1 <= nz):
        raise ParameterError("block", block, f"(i0, k0, i1, k1) with 0 <= i0 < i1 <= {nx}, 0 <= k0 < k1 <= {nz}")
    # Only triangles whose x-z box meets the block's columns can be hit; keeping them in scene order keeps the
    # order of hits at equal distance the same as for the whole grid.
    x_lo, x_hi = lo[0] + (i0 + 0.5) * cell, lo[0] + (i1 - 0.5) * cell
    z_lo, z_hi = lo[2] + (k0 + 0.5) * cell, lo[2] + (k1 - 0.5) * cell
    positions, indices, exclusion = [], [], []
    count = 0
    for obj in scene:
        if obj.role == "exception" or not len(obj.indices):
            continue
        is_obstacle = obj.role == "obstacle" and float(obj.positions[:, 1].max()) - lo[1] > settings.obstacle_min_height
        p, t = (_proxy_triangles(obj.positions, obj.indices, settings.exclusion_proxy) if is_obstacle
                else (obj.positions, obj.indices))
        corners = p[t]
        meets = ((corners[..., 0].min(1) <= x_hi) & (corners[..., 0].max(1) >= x_lo)
                 & (corners[..., 2].min(1) <= z_hi) & (corners[..., 2].max(1) >= z_lo))
        if not meets.any():
            continue
        positions.append(p)
        indices.append(t[meets] + count)
        exclusion.append(np.full(int(meets.sum()), is_obstacle))
        count += len(p)
    bx, bz = i1 - i0, k1 - k0
    ray_of = np.empty(0, dtype=np.int64)
    if positions:
        bvh = TriangleBVH(np.concatenate(positions), np.concatenate(indices))
        flags = np.concatenate(exclusion)
        i, k = np.meshgrid(np.arange(i0, i1), np.arange(k0, k1), indexing="ij")
        origins = np.column_stack([lo[0] + (i.ravel() + 0.5) * cell, np.full(bx * bz, hi[1]),
                                   lo[2] + (k.ravel() + 0.5) * cell])
        hits = bvh.raycast_all(origins, [0.0, -1.0, 0.0], max_distance=hi[1] - lo[1])
        ray_of, height = hits.ray, hi[1] - hits.distance
        up, excluded = bvh.normals[hits.triangle, 1], flags[hits.triangle]
    else:
        height = up = np.empty(0)
        excluded = np.empty(0, dtype=bool)
    return RayHitsGrid(float(lo[0]), float(lo[2]), cell, bx, bz, ray_of, height, up, excluded, i0, k0)


def walkable_samples(hits: RayHitsGrid, settings: NavSettings) -> Samples:
    """Step 2: the hits an agent can stand on, per column (see the module's docstring)."""
    slope = np.cos(np.radians(settings.max_slope)) - 1e-12
    out = np.full((hits.nx * hits.nz, MAX_LEVELS), np.nan)
    cut = np.zeros(hits.nx * hits.nz, dtype=bool)
    if not settings.levels:
        cut[hits.ray[hits.exclusion]] = True
    ceiling = np.full(len(hits.ray), np.inf)  # the surface above each hit in its column
    same = np.r_[False, hits.ray[1:] == hits.ray[:-1]]
    ceiling[same] = hits.height[np.flatnonzero(same) - 1]
    standable = (hits.up >= slope) & (ceiling - hits.height >= settings.clearance) & ~cut[hits.ray]
    chosen = np.flatnonzero(standable)[::-1]  # bottom up within each column, so lowest first
    rays = hits.ray[chosen]
    order = np.argsort(rays, kind="stable")
    chosen, rays = chosen[order], rays[order]
    first = np.searchsorted(rays, rays)  # where each ray's run starts
    rank = np.arange(len(rays)) - first
    keep = rank < MAX_LEVELS
    out[rays[keep], rank[keep]] = hits.height[chosen[keep]]
    used = max(int(rank.max()) + 1 if len(rank) else 1, 1)  # no more levels than some column needs
    return Samples(hits.x0, hits.z0, hits.cell, out[:, :min(used, MAX_LEVELS)].reshape(hits.nx, hits.nz, -1),
                   hits.i0, hits.k0)


def erode(height: np.ndarray, settings: NavSettings) -> np.ndarray:
    """Step 3: the samples (``height[i, k, s]``, NaN where none) without those closer than ``agent_radius`` to
    the walkable area's edge. The distance is measured in cells over the steps between samples (within
    ``step_limit``) in 8 directions, starting at half a cell on a sample that misses a neighbour in any of
    the 4 directions. A sample's result depends only on samples within :func:`erosion_reach` columns."""
    radius = settings.agent_radius / settings.cell_size
    if radius <= 0:
        return height
    walk = ~np.isnan(height)
    links = level_links(height, settings.step_limit)
    distance = np.where(walk & np.any(links < 0, axis=0), 0.5, np.where(walk, np.inf, 0.0))
    distance = erosion_distance(distance, links, DIRECTIONS, _erosion_rounds(settings), np.empty_like(distance))
    return np.where(walk & (distance >= radius), height, np.nan)


def _erosion_rounds(settings: NavSettings) -> int:
    return int(np.ceil(settings.agent_radius / settings.cell_size)) + 2


def erosion_reach(settings: NavSettings) -> int:
    """How many columns away a sample can change the result of :func:`erode` at another: in each round of the
    distance relaxation, three of its updates (one straight, two diagonal) pull from each side along an axis;
    plus one column for the links and one for the edge test."""
    return 3 * _erosion_rounds(settings) + 2 if settings.agent_radius > 0 else 0


def drop_small_islands(height: np.ndarray, settings: NavSettings) -> np.ndarray:
    """Step 4: the samples without the islands (joined through steps within ``step_limit``) whose area is
    under ``min_region_area``."""
    walk = ~np.isnan(height)
    label = _components(walk, level_links(height, settings.step_limit))
    if label.max() < 0:
        return height
    sizes = np.bincount(label[walk], minlength=label.max() + 1) * settings.cell_size ** 2
    small = sizes < settings.min_region_area
    return np.where(walk & ~(small[np.maximum(label, 0)] & (label >= 0)), height, np.nan)


def walkable_layers(scene: Scene, region: SearchRegion, settings: NavSettings) -> WalkableLayers:
    """Steps 1-4 over the whole region: its walkable samples, every level, with the steps between them."""
    samples = walkable_samples(cast_rays(scene, region, settings), settings)
    height = drop_small_islands(erode(samples.height, settings), settings)
    return WalkableLayers(height, level_links(height, settings.step_limit), samples.x0, samples.z0, samples.cell)


def walkable_grids(scene: Scene, region: SearchRegion, settings: NavSettings) -> list[WalkableGrid]:
    """Steps 1-4 as one grid of walkable cells per level (the n-th lowest sample of each column)."""
    layers = walkable_layers(scene, region, settings)
    grids = []
    for s in range(layers.height.shape[2]):
        walk = ~np.isnan(layers.height[:, :, s])
        if walk.any():
            grids.append(WalkableGrid(walk, np.where(walk, layers.height[:, :, s], 0.0), layers.x0, layers.z0,
                                      layers.cell))
    return grids


def _components(walk: np.ndarray, links: np.ndarray) -> np.ndarray:
    """Connected components of the walkable samples over their +x and +z links: a label per sample (-1 where
    not walkable), numbered in order of each component's first sample."""
    labels = np.empty(walk.shape, dtype=np.int64)
    island_labels(np.where(walk, 0.0, np.nan), links, labels)
    return labels
