"""The ray-cast baker: a scene and search regions in, a :class:`NavMesh` out.

The steps are separate functions a user can call and inspect one by one:

1. :func:`cast_rays` — a square grid of rays (spacing ``settings.cell_size``) falls from the region's top face
   through the floors and the obstacles' proxies (exception objects are transparent); every hit is kept.
2. :func:`walkable_samples` — per column, the hits an agent could stand on: up-facing, no steeper than
   ``max_slope``, with ``clearance`` of free space above. Without ``levels``, a column whose ray meets an
   obstacle's proxy is cut out (hits on exclusion regions removed, ground under obstacles cut out); with
   ``levels``, an obstacle's top is a sample of its own (a table top becomes walkable).
3. :func:`walkable_grids` — samples become grids of walkable cells (one per level of a column), eroded by
   ``agent_radius`` and rid of islands smaller than ``min_region_area``.
4. :func:`bake` — the grids of every region become polygons (:func:`navmesh_from_grids`).

Deterministic: the same scene, regions and settings give the same navmesh.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import ConvexHull, QhullError

from ..collision import TriangleBVH
from ..errors import ParameterError
from .navmesh import NavMesh
from .polygons import WalkableGrid, navmesh_from_grids
from .scene import Scene
from .settings import NavSettings, SearchRegion

__all__ = ["RayHitsGrid", "Samples", "cast_rays", "walkable_samples", "walkable_grids", "bake"]

MAX_LEVELS = 8  # samples kept per column, lowest first


@dataclass(frozen=True)
class RayHitsGrid:
    """Every hit of a region's ray grid (step 1): ray ``r`` is column ``(r // nz, r % nz)``, whose centre is at
    ``(x0 + (i + 0.5) * cell, z0 + (k + 0.5) * cell)``; hits sorted by ray, then from the top down."""

    x0: float
    z0: float
    cell: float
    nx: int
    nz: int
    ray: np.ndarray  # (K,) int64
    height: np.ndarray  # (K,) float64, world y of the hit (m)
    up: np.ndarray  # (K,) float64: the y component of the hit triangle's unit normal as wound (> 0: faces up)
    exclusion: np.ndarray  # (K,) bool: the hit is on an obstacle's proxy


@dataclass(frozen=True)
class Samples:
    """Walkable samples (step 2): per column up to MAX_LEVELS heights, lowest first, NaN where none."""

    x0: float
    z0: float
    cell: float
    height: np.ndarray  # (nx, nz, levels) float64, levels <= MAX_LEVELS: as many as the busiest column needs


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


def cast_rays(scene: Scene, region: SearchRegion, settings: NavSettings) -> RayHitsGrid:
    """Step 1: every hit of the region's ray grid on floors and obstacle proxies (exceptions are transparent).

    Obstacles rising no more than ``settings.obstacle_min_height`` above the region's floor (its min y) count
    as floor. Objects partly outside the region count only inside it: rays start at its top and stop at its
    bottom, and cover only its x-z extent.
    """
    _check(scene, region, settings)
    lo, hi = np.array(region.min), np.array(region.max)
    cell = settings.cell_size
    nx, nz = int(np.floor((hi[0] - lo[0]) / cell + 1e-9)), int(np.floor((hi[2] - lo[2]) / cell + 1e-9))
    if nx < 1 or nz < 1:
        raise ParameterError("region", region, f"a box at least one cell ({cell:.3f} m) wide in x and z")
    positions, indices, exclusion = [], [], []
    count = 0
    for obj in scene:
        if obj.role == "exception" or not len(obj.indices):
            continue
        is_obstacle = obj.role == "obstacle" and float(obj.positions[:, 1].max()) - lo[1] > settings.obstacle_min_height
        p, t = (_proxy_triangles(obj.positions, obj.indices, settings.exclusion_proxy) if is_obstacle
                else (obj.positions, obj.indices))
        positions.append(p)
        indices.append(t + count)
        exclusion.append(np.full(len(t), is_obstacle))
        count += len(p)
    ray_of = np.empty(0, dtype=np.int64)
    if positions:
        bvh = TriangleBVH(np.concatenate(positions), np.concatenate(indices))
        flags = np.concatenate(exclusion)
        i, k = np.meshgrid(np.arange(nx), np.arange(nz), indexing="ij")
        origins = np.column_stack([lo[0] + (i.ravel() + 0.5) * cell, np.full(nx * nz, hi[1]),
                                   lo[2] + (k.ravel() + 0.5) * cell])
        hits = bvh.raycast_all(origins, [0.0, -1.0, 0.0], max_distance=hi[1] - lo[1])
        ray_of, height = hits.ray, hi[1] - hits.distance
        up, excluded = bvh.normals[hits.triangle, 1], flags[hits.triangle]
    else:
        height = up = np.empty(0)
        excluded = np.empty(0, dtype=bool)
    return RayHitsGrid(float(lo[0]), float(lo[2]), cell, nx, nz, ray_of, height, up, excluded)


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
    return Samples(hits.x0, hits.z0, hits.cell, out[:, :min(used, MAX_LEVELS)].reshape(hits.nx, hits.nz, -1))


def _links(height: np.ndarray, step_limit: float) -> np.ndarray:
    """``links[d, i, k, s]``: the level of the neighbour in direction d (+x, -x, +z, -z) that sample (i, k, s)
    steps to (nearest in height, within ``step_limit``), or -1."""
    nx, nz, levels = height.shape
    links = np.full((4, nx, nz, levels), -1, dtype=np.int64)
    for d, (dx, dz) in enumerate(((1, 0), (-1, 0), (0, 1), (0, -1))):
        other = np.full_like(height, np.nan)
        xs, xt = slice(max(dx, 0), nx + min(dx, 0)), slice(max(-dx, 0), nx + min(-dx, 0))
        zs, zt = slice(max(dz, 0), nz + min(dz, 0)), slice(max(-dz, 0), nz + min(-dz, 0))
        other[xt, zt] = height[xs, zs]
        gap = np.abs(height[..., :, None] - other[..., None, :])
        gap[np.isnan(gap)] = np.inf
        nearest = np.argmin(gap, axis=-1)
        reach = np.take_along_axis(gap, nearest[..., None], -1)[..., 0] <= step_limit
        links[d] = np.where(reach, nearest, -1)
    return links


def walkable_grids(scene: Scene, region: SearchRegion, settings: NavSettings) -> list[WalkableGrid]:
    """Steps 1-3: the region's walkable cells, one grid per level (the n-th lowest sample of each column),
    eroded by ``agent_radius`` (distance to the walkable area's edge, measured over the cells in 8
    directions) and without islands smaller than ``min_region_area``."""
    samples = walkable_samples(cast_rays(scene, region, settings), settings)
    height = samples.height
    nx, nz, levels = height.shape
    walk = ~np.isnan(height)
    links = _links(height, settings.step_limit)
    # Erosion: distance (cells) from the edge, half a cell at a sample missing a neighbour in any direction.
    radius = settings.agent_radius / samples.cell
    if radius > 0:
        distance = np.where(walk & np.any(links < 0, axis=0), 0.5, np.where(walk, np.inf, 0.0))
        for _ in range(int(np.ceil(radius)) + 2):
            for d, step in ((0, 1.0), (1, 1.0), (2, 1.0), (3, 1.0)):
                distance = np.minimum(distance, _through(distance, links, d) + step)
            for d1, d2 in ((0, 2), (0, 3), (1, 2), (1, 3)):
                via = _through(_through(distance, links, d2), links, d1)
                distance = np.minimum(distance, via + np.sqrt(2.0))
        walk &= distance >= radius
        height = np.where(walk, height, np.nan)
        links = _links(height, settings.step_limit)
    # Islands: components over the links, dropped when smaller than min_region_area.
    label = _components(walk, links)
    if label.max() >= 0:
        sizes = np.bincount(label[walk], minlength=label.max() + 1) * samples.cell ** 2
        small = sizes < settings.min_region_area
        walk &= ~(small[np.maximum(label, 0)] & (label >= 0))
    grids = []
    for s in range(levels):
        if walk[:, :, s].any():
            grids.append(WalkableGrid(walk[:, :, s], np.where(walk[:, :, s], height[:, :, s], 0.0), samples.x0,
                                      samples.z0, samples.cell))
    return grids


def _through(value: np.ndarray, links: np.ndarray, d: int) -> np.ndarray:
    """For every sample, ``value`` at its linked neighbour in direction d (inf where there is none)."""
    nx, nz, _ = value.shape
    dx, dz = ((1, 0), (-1, 0), (0, 1), (0, -1))[d]
    shifted = np.full_like(value, np.inf)
    xs, xt = slice(max(dx, 0), nx + min(dx, 0)), slice(max(-dx, 0), nx + min(-dx, 0))
    zs, zt = slice(max(dz, 0), nz + min(dz, 0)), slice(max(-dz, 0), nz + min(-dz, 0))
    shifted[xt, zt] = value[xs, zs]
    link = links[d]
    return np.where(link >= 0, np.take_along_axis(shifted, np.maximum(link, 0), -1), np.inf)


def _components(walk: np.ndarray, links: np.ndarray) -> np.ndarray:
    """Connected components of the walkable samples over their links: a label per sample (-1 where not
    walkable), numbered in order of each component's first sample."""
    nx, nz, levels = walk.shape
    index = np.arange(walk.size).reshape(walk.shape)
    rows, cols = [], []
    for d, (dx, dz) in ((0, (1, 0)), (2, (0, 1))):
        i, k, s = np.nonzero(walk & (links[d] >= 0))
        j = links[d, i, k, s]
        ok = walk[i + dx, k + dz, j]
        rows.append(index[i[ok], k[ok], s[ok]])
        cols.append(index[i[ok] + dx, k[ok] + dz, j[ok]])
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    graph = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(walk.size, walk.size))
    _, raw = connected_components(graph, directed=False)
    label = np.full(walk.size, -1, dtype=np.int64)
    flat = walk.ravel()
    # Renumber by first appearance so the labels do not depend on scipy's numbering.
    _, first, inverse = np.unique(raw[flat], return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    label[flat] = rank[inverse]
    return label.reshape(walk.shape)


def bake(scene: Scene, regions, settings: NavSettings = NavSettings(), progress=None) -> NavMesh:
    """A navmesh of the walkable area of ``scene`` inside ``regions`` (a SearchRegion or a list of them).
    ``progress(done, total)``, when given, is called after each region.

    Examples
    --------
    >>> import numpy as np
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
    grids = []
    for done, region in enumerate(regions, 1):
        grids += walkable_grids(scene, region, settings)
        if progress is not None:
            progress(done, len(regions))
    return navmesh_from_grids(grids, settings.max_corners, settings.step_limit)
