"""Step 1 of a bake: vertical rays through a scene, and the surfaces they meet.

A region's rays form a square grid of *columns* (spacing ``settings.cell_size``) falling from its top face to
its bottom through the floors and the obstacles' proxies (exception objects are transparent; obstacles rising
no more than ``NavSettings.obstacle_height`` (by default the step limit) above the surface under them are floor,
or transparent with ``low_obstacles="transparent"``; objects of role ``"auto"`` are obstacles or floor by the
vertex-in-region rule:
:func:`bake_roles`). What a ray meets is read as
*surfaces*: at (about) the same height, one per facing, a surface facing down before one facing up (a box's
bottom at a floor's height covers that floor), and a surface met twice (a ray through the edge two triangles
share) counts once. A ray that meets nothing lands on the region's bottom face when its ``landing`` is on
(:class:`~voxelworld.navigation.SearchRegion`: by default, when no floor reaches into the region).

Every function here also works on a *block* of columns: :class:`RayScene` holds only the triangles that can meet
the block's cells, kept in scene order, so a block's rays meet exactly what the same rays of the whole grid
meet, in the same order. That is what lets a re-bake redo a few tiles and match a full bake bit for bit.

What each object is to the rays lives in :mod:`voxelworld.navigation.roles` (:func:`bake_roles`, re-exported
here) and the triangles rays meet of it (obstacle proxies) in :mod:`voxelworld.navigation.proxies`.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np

from ..errors import ParameterError
from ._kernels.columns import bin_triangles, column_hits, vertical_hits
from ._kernels.surfaces import enclosures, surfaces
from .areas import BakeArea, area_of
from .proxies import _OBJECT_CACHE, _cached, _triangle_boxes
from .roles import BakeRoles, bake_roles, check_bake_input
from .scene import Scene, SceneObject
from .settings import NavSettings, SearchRegion

# Hits of rays: ray, height (m), the hit triangle's up component, whether it is on a proxy (see RayScene.cast).
Hits: TypeAlias = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
# The same and the hit triangle's area type (an index into the scene's area_types): RayScene.cast_hits.
AreaHits: TypeAlias = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
Block: TypeAlias = tuple[int, int, int, int]  # columns (i0, k0, i1, k1): [i0, i1) x [k0, k1)

__all__ = ["RayHitsGrid", "RayScene", "BakeRoles", "bake_roles", "cast_rays", "column_surfaces"]


@dataclass(frozen=True)
class RayHitsGrid:
    """Every hit of a block of a region's ray grid: ray ``r`` is column ``(i0 + r // nz, k0 + r % nz)`` of the
    region's grid, whose centre is at ``(x0 + (i + 0.5) * cell, z0 + (k + 0.5) * cell)``; hits sorted by ray,
    then from the top down (then by triangle, in scene order)."""

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
    area: np.ndarray | None = None  # (K,) int64: the hit triangle's area type (into Scene.area_types); None: 0


class _RegionRays:
    """The triangles that the rays of one region can meet over a box of cells ``x_lo..x_hi``, ``z_lo..z_hi``
    (m), binned by the cells of ``grid = (x0, z0, cell, nx, nz)``, with each one's up component and whether it
    belongs to an obstacle's proxy, as the region's roles make the objects."""

    def __init__(self, scene: Scene, region: SearchRegion, settings: NavSettings,
                 grid: tuple[float, float, float, int, int]) -> None:
        x_lo, z_lo, cell, nx, nz = grid
        x_hi, z_hi = x_lo + nx * cell, z_lo + nz * cell  # the cells, corners included
        self.region = region
        table = scene.area_types
        roles = bake_roles(scene, region, settings)
        self.landing = roles.landing
        proxy = settings.exclusion_proxy
        depth = settings.proxy_triangles if proxy == "reduced" else settings.aabb_depth
        parts = []
        for obj, role in zip(scene, roles.roles):
            if role == "transparent":
                continue  # exceptions, and low obstacles: rays pass on to the ground beneath
            entry = _OBJECT_CACHE.get(id(obj))  # what _ray_rows keeps, looked up without a call
            key = ("rays", proxy if role == "obstacle" else None, depth)
            found = entry.get(key) if entry is not None else None
            if found is None or found[0] is not table and found[0] != table:
                found = _ray_rows(obj, key, table)
            _, rows, (ox_lo, ox_hi, oz_lo, oz_hi) = found
            if ox_lo > x_hi or ox_hi < x_lo or oz_lo > z_hi or oz_hi < z_lo:
                continue  # no triangle of it can meet the block
            parts.append(rows)
        # The candidates' triangles as one set, then those whose box meets the block's cells (scene order kept),
        # each by its own three corners (a triangle soup: the same coordinates, so the same hits).
        rows = np.concatenate(parts) if len(parts) > 1 else parts[0] if parts else np.empty((0, _ROW))
        rows = rows[(rows[:, 0] <= x_hi) & (rows[:, 1] >= x_lo) & (rows[:, 2] <= z_hi) & (rows[:, 3] >= z_lo)]
        box = np.ascontiguousarray(rows[:, :4])
        self.up, self.area, self.proxy = np.ascontiguousarray(rows[:, 4]), rows[:, 5].astype(np.int64), rows[:, 6] > 0
        self.positions = np.ascontiguousarray(rows[:, 7:]).reshape(-1, 3)
        self.indices = np.arange(len(self.positions), dtype=np.int64).reshape(-1, 3)
        self._grid = (float(x_lo), float(z_lo), float(cell), int(nx), int(nz))
        self._bins = bin_triangles(box, *self._grid)

    def cast_cells(self, x0: float, z0: float, i0: int, k0: int) -> AreaHits:
        """:meth:`cast`'s hits of the rays through the centres of the grid's cells (ray ``i * nz + k`` through
        cell (i, k), the grid's cells being columns ``i0...``, ``k0...`` of a grid from ``(x0, z0)``)."""
        lo, hi = self.region.min[1], self.region.max[1]
        _, _, cell, nx, nz = self._grid
        return column_hits(self.positions, self.indices, *self._bins, nx, nz, x0, z0, cell, i0, k0, hi, hi - lo,
                           float(lo), self.up, self.proxy, self.area, self.landing)

    def cast(self, x: np.ndarray, z: np.ndarray) -> AreaHits:
        """Every hit of vertical rays at ``(x[r], z[r])`` (inside the grid's cells) from the region's top to its
        bottom (see :meth:`RayScene.cast_hits`)."""
        lo, hi = self.region.min[1], self.region.max[1]
        # (mypy maps the two *tuples onto the wrong parameters through numba's ParamSpec stub)
        ray, distance, triangle = vertical_hits(self.positions, self.indices, *self._bins,
                                                *self._grid,  # type: ignore[arg-type]
                                                np.ascontiguousarray(x, dtype=np.float64),
                                                np.ascontiguousarray(z, dtype=np.float64), hi, hi - lo)
        height, up, proxy, area = hi - distance, self.up[triangle], self.proxy[triangle], self.area[triangle]
        if self.landing:  # a ray that met nothing lands on the region's bottom face, facing up
            met = np.zeros(len(x), dtype=bool)
            met[ray] = True
            empty = np.flatnonzero(~met)
            order = np.argsort(np.concatenate([ray, empty]), kind="stable")
            ray = np.concatenate([ray, empty])[order]
            height = np.concatenate([height, np.full(len(empty), float(lo))])[order]
            up = np.concatenate([up, np.ones(len(empty))])[order]
            proxy = np.concatenate([proxy, np.zeros(len(empty), dtype=bool)])[order]
            area = np.concatenate([area, np.zeros(len(empty), dtype=np.int64)])[order]  # the landing: ground
        return ray, height, up, proxy, area


class RayScene:
    """The triangles that rays over a block of an area's columns (:mod:`~voxelworld.navigation.areas`: one
    region, or several baked as one) can meet, per region owning columns of the block, binned by the block's
    cells. ``block = (i0, k0, i1, k1)``: columns ``[i0, i1) x [k0, k1)``, the whole grid when None."""

    def __init__(self, scene: Scene, area: SearchRegion | BakeArea, settings: NavSettings,
                 block: Block | None = None) -> None:
        for region in area.regions if isinstance(area, BakeArea) else (area,):
            check_bake_input(scene, region, settings)
        area = area_of(area, settings)
        nx, nz = area.nx, area.nz
        i0, k0, i1, k1 = (0, 0, nx, nz) if block is None else block
        if not (0 <= i0 < i1 <= nx and 0 <= k0 < k1 <= nz):
            raise ParameterError("block", block, f"(i0, k0, i1, k1) with 0 <= i0 < i1 <= {nx}, 0 <= k0 < k1 <= {nz}")
        self.area, self.settings, self.block = area, settings, (i0, k0, i1, k1)
        cell = settings.cell_size
        grid = (area.x0 + i0 * cell, area.z0 + k0 * cell, cell, i1 - i0, k1 - k0)
        owners = [0] if len(area.regions) == 1 else np.unique(area.owner[i0:i1, k0:k1])  # one: every column
        self._regions = {int(n): _RegionRays(scene, area.regions[n], settings, grid) for n in owners if n >= 0}

    def cast(self, x: np.ndarray, z: np.ndarray) -> Hits:
        """Every hit of vertical rays at ``(x[r], z[r])`` (inside the block's cells) from the top of the region
        owning the point's column to its bottom (none in a column outside the regions), sorted by ray, then from
        the top down (then by triangle, in scene order): ray, height (m), the hit triangle's up component, and
        whether it is on a proxy (see ``_kernels/columns.py``)."""
        return self.cast_hits(x, z)[:4]

    def cast_hits(self, x: np.ndarray, z: np.ndarray) -> AreaHits:
        """:meth:`cast`'s hits and each hit triangle's area type (an index into the scene's
        :attr:`~voxelworld.navigation.Scene.area_types`; 0, ground, on a region's landing face)."""
        x, z = np.ascontiguousarray(x, dtype=np.float64), np.ascontiguousarray(z, dtype=np.float64)
        area = self.area
        if len(area.regions) == 1:  # every column is the region's
            return self._regions[0].cast(x, z)
        i = np.clip(np.floor((x - area.x0) / area.cell).astype(np.int64), 0, area.nx - 1)
        k = np.clip(np.floor((z - area.z0) / area.cell).astype(np.int64), 0, area.nz - 1)
        owner = area.owner[i, k]
        parts = []
        for n, rays in self._regions.items():
            mine = np.flatnonzero(owner == n)
            if len(mine):
                ray, height, up, proxy, kind = rays.cast(x[mine], z[mine])
                parts.append((mine[ray], height, up, proxy, kind))
        if not parts:
            return np.empty(0, np.int64), np.empty(0), np.empty(0), np.empty(0, bool), np.empty(0, np.int64)
        ray, height, up, proxy, kind = (np.concatenate(column) for column in zip(*parts))
        order = np.argsort(ray, kind="stable")  # a ray's hits all come from one region, in order
        return ray[order], height[order], up[order], proxy[order], kind[order]

    def cast_columns(self, columns: Block | None = None) -> RayHitsGrid:
        """The hits of the column rays (one through each cell's centre) of the block, or of the columns
        ``(i0, k0, i1, k1)`` inside it."""
        i0, k0, i1, k1 = self.block if columns is None else columns
        b0, c0, b1, c1 = self.block
        if not (b0 <= i0 < i1 <= b1 and c0 <= k0 < k1 <= c1):
            raise ParameterError("columns", columns, f"(i0, k0, i1, k1) inside the block {self.block}")
        cell, x0, z0 = self.settings.cell_size, float(self.area.x0), float(self.area.z0)
        if len(self.area.regions) == 1 and (i0, k0, i1, k1) == self.block:  # one kernel over the binned cells
            ray, height, up, excluded, area = self._regions[0].cast_cells(x0, z0, i0, k0)
            return RayHitsGrid(x0, z0, cell, i1 - i0, k1 - k0, ray, height, up, excluded, i0, k0, area)
        i, k = np.meshgrid(np.arange(i0, i1), np.arange(k0, k1), indexing="ij")
        ray, height, up, excluded, area = self.cast_hits(x0 + (i.ravel() + 0.5) * cell, z0 + (k.ravel() + 0.5) * cell)
        return RayHitsGrid(x0, z0, cell, i1 - i0, k1 - k0, ray, height, up, excluded, i0, k0, area)


def cast_rays(scene: Scene, region: SearchRegion, settings: NavSettings, block: Block | None = None) -> RayHitsGrid:
    """Step 1: every hit of the region's ray grid (or of a block ``(i0, k0, i1, k1)`` of its columns) on floors
    and obstacle proxies. Objects partly outside the region count only inside it: rays start at its top, stop
    at its bottom and cover only its x-z extent."""
    return RayScene(scene, region, settings, block).cast_columns()


def column_surfaces(ray: np.ndarray, height: np.ndarray, up: np.ndarray, excluded: np.ndarray,
                    area: np.ndarray | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The surfaces each ray met (see the module's docstring), from hits sorted by ray, then from the top down,
    with each surface's *ceiling* (the height of the surface above it on its ray, inf where none) and
    *enclosure* (how many closed solids it lies in: pairs of a surface above it facing up, where the ray
    enters a solid, and the next unpaired surface below it facing down, where it leaves; a lone up-facing plane
    encloses nothing). Returns ray, height, up, excluded, ceiling, enclosure and area type of the surfaces (a
    surface's is that of the first hit standing for it, in scene order; 0 when ``area`` is None)."""
    index = np.empty(len(ray), dtype=np.int64)
    on_proxy = np.empty(len(ray), dtype=np.bool_)
    n = surfaces(np.ascontiguousarray(ray, np.int64), np.ascontiguousarray(height, np.float64),
                 np.ascontiguousarray(up, np.float64), np.ascontiguousarray(excluded, np.bool_), index, on_proxy)
    index = index[:n]
    ray, height, up, excluded = ray[index], height[index], up[index], on_proxy[:n]
    kind = np.zeros(n, dtype=np.int64) if area is None else np.asarray(area, dtype=np.int64)[index]
    ceiling = np.full(n, np.inf)
    same = np.zeros(n, dtype=bool)
    same[1:] = ray[1:] == ray[:-1]
    ceiling[same] = height[np.flatnonzero(same) - 1]
    enclosure = np.zeros(n, dtype=np.int64)
    enclosures(np.ascontiguousarray(ray, np.int64), np.ascontiguousarray(height, np.float64),
               np.ascontiguousarray(up, np.float64), enclosure)
    return ray, height, up, excluded, ceiling, enclosure, kind


_ROW = 16  # a triangle's row in _ray_rows: x-z box (4), up component, area type, on a proxy, three corners (9)


def _ray_rows(obj: SceneObject, key: tuple, area_types: tuple[str, ...]
              ) -> tuple[tuple[str, ...], np.ndarray, tuple[float, float, float, float]]:
    """What rays meet of ``obj`` for ``key = ("rays", proxy, depth)`` (proxy: the obstacle proxy's kind, None for
    the object's own triangles) in a scene of ``area_types``: those, a row per triangle (its x-z box, up component,
    area type among ``area_types``, whether it is on a proxy, its corners; see _ROW), and the box of them all.
    Kept with the object (its entry goes when the object does: objects never change; one set of area types at a
    time), so that a bake of another block of the same objects (the next tile) only gathers them."""
    _, proxy, depth = key
    p, t, box, whole, up = _triangle_boxes(obj, proxy, depth)
    on_proxy = proxy is not None and proxy != "mesh"
    area = _object_areas(obj, {name: n for n, name in enumerate(area_types)}, len(t), on_proxy)
    rows = np.empty((len(t), _ROW))
    rows[:, :4], rows[:, 4], rows[:, 5], rows[:, 6] = box, up, area, proxy is not None
    rows[:, 7:] = p[t].reshape(len(t), 9)
    _cached(obj)[key] = found = (area_types, rows, whole)
    return found


# object -> (the scene's area types, whether on a proxy, its triangles' types in them): a re-bake types again only
# the objects that changed (or all of them, when the scene names other types).
_AREAS: weakref.WeakKeyDictionary[SceneObject, tuple[tuple[str, ...], bool, np.ndarray]] = weakref.WeakKeyDictionary()


def _object_areas(obj: SceneObject, table: dict[str, int], count: int, proxy: bool) -> np.ndarray:
    """The area type (an index into the scene's, ``table``) of each of the ``count`` triangles rays meet of
    ``obj``: its own triangles', or on an obstacle's proxy, that of its first triangle."""
    key = tuple(table)
    known = _AREAS.get(obj)
    if known is not None and known[0] == key and known[1] == proxy and len(known[2]) == count:
        return known[2]
    names = obj.area_types
    if len(names) == 1 or proxy:
        first = int(obj.triangle_area_type[0]) if len(obj.triangle_area_type) else 0
        kind = np.full(count, table[names[first]], dtype=np.int64)
    else:
        kind = np.array([table[name] for name in names], dtype=np.int64)[obj.triangle_area_type]
    _AREAS[obj] = (key, proxy, kind)
    return kind
