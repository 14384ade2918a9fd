"""Walkable samples to polygons: the last step of a bake.

A region's walkable samples (:class:`WalkableLayers`: per column of its grid, up to a few heights, one per
*level*, and which neighbouring sample each one steps to) are cut into fixed-size *tiles* of
``TILE_CELLS`` x ``TILE_CELLS`` columns, and each tile's samples into rectangles of cells (greedy, row by row):
a rectangle covers cells of one level that step to each other and lie within ``height_error`` metres of one
plane (the least-squares plane of its cells, so ramps and gentle slopes become few polygons). A rectangle is
a polygon with four corners on that plane, or two triangles when ``max_corners`` is 3: closed, simple, convex
(so hole-free), and the polygons cover the walkable cells exactly (contour error 0 on the x-z plane; height
error at most ``height_error``). Rectangles never cross a tile's edge, so a tile can be rebuilt alone.

Two polygons are neighbours through a *portal*, the segment of boundary over which their cells step to each
other (within a level or across levels).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError, check_finite, check_integer
from ._kernels.polygons import rectangle_mesh, tile_rectangles
from .navmesh import NavMesh
from .sampling import level_links

__all__ = ["TILE_CELLS", "WalkableGrid", "WalkableLayers", "tile_polygons", "navmesh_from_tiles", "navmesh_arrays",
           "navmesh_from_grids"]

TILE_CELLS = 32  # columns along each side of a tile
HEIGHT_ERROR = 0.05  # m: the farthest a cell's height lies from its polygon's plane


@dataclass(frozen=True)
class WalkableGrid:
    """One level of walkable cells: ``walkable[i, k]`` for the cell whose centre is at
    ``(x0 + (i + 0.5) * cell, z0 + (k + 0.5) * cell)``, standing at height ``height[i, k]`` (m)."""

    walkable: np.ndarray  # (nx, nz) bool
    height: np.ndarray  # (nx, nz) float64, metres (ignored where not walkable)
    x0: float  # metres
    z0: float  # metres
    cell: float  # metres (> 0)


@dataclass(frozen=True)
class WalkableLayers:
    """Every level of a region's walkable samples: ``height[i, k, s]`` (m; NaN where not walkable) of the
    sample on level ``s`` of the column whose centre is at ``(x0 + (i + 0.5) * cell, z0 + (k + 0.5) * cell)``,
    and ``links[d, i, k, s]``: the level of the neighbour in direction d (0: +x, 1: -x, 2: +z, 3: -z) the
    sample steps to, or -1."""

    height: np.ndarray  # (nx, nz, levels) float64
    links: np.ndarray  # (4, nx, nz, levels) int64
    x0: float  # metres
    z0: float  # metres
    cell: float  # metres

    @property
    def tiles(self) -> tuple[int, int]:
        """How many tiles cover the grid along x and z."""
        nx, nz = self.height.shape[:2]
        return -(-nx // TILE_CELLS), -(-nz // TILE_CELLS)


@dataclass(frozen=True)
class TilePolygons:
    """The rectangles of one tile: ``rects[r] = (level, i0, k0, i1, k1)`` (cells, half-open) and
    ``planes[r] = (height at the centre (m), slope along i, slope along k (m per cell))``."""

    rects: np.ndarray  # (n, 5) int64
    planes: np.ndarray  # (n, 3) float64


def tile_polygons(layers: WalkableLayers, ti: int, tk: int, height_error: float = HEIGHT_ERROR) -> TilePolygons:
    """The rectangles covering the walkable samples of tile (ti, tk)."""
    nx, nz = layers.height.shape[:2]
    i_lo, k_lo = ti * TILE_CELLS, tk * TILE_CELLS
    i_hi, k_hi = min(i_lo + TILE_CELLS, nx), min(k_lo + TILE_CELLS, nz)
    room = (i_hi - i_lo) * (k_hi - k_lo) * layers.height.shape[2]
    rects, planes = np.empty((room, 5), dtype=np.int64), np.empty((room, 3))
    n = tile_rectangles(layers.height, layers.links, i_lo, k_lo, i_hi, k_hi, float(height_error), rects, planes)
    return TilePolygons(rects[:n].copy(), planes[:n].copy())


def navmesh_from_tiles(regions: list[tuple[WalkableLayers, list[TilePolygons]]], max_corners: int) -> NavMesh:
    """The navmesh of every region's tiles (each region: its layers and its tiles' rectangles, in tile order);
    polygons are numbered region by region, tile by tile; portals join polygons of one region."""
    return NavMesh(*navmesh_arrays(regions, max_corners))


def navmesh_arrays(regions: list[tuple[WalkableLayers, list[TilePolygons]]], max_corners: int):
    """What :func:`navmesh_from_tiles` makes a NavMesh of: ``(vertices, polygon_start, polygon_vertices,
    polygon_level, portals, portal_segments)``."""
    vertices, corners, levels, portals, segments = [], [], [], [], []
    polygon_count = vertex_count = 0
    for layers, tiles in regions:
        rects = np.concatenate([t.rects for t in tiles]) if tiles else np.empty((0, 5), dtype=np.int64)
        planes = np.concatenate([t.planes for t in tiles]) if tiles else np.empty((0, 3))
        # Which rectangle holds each sample: on the levels the rectangles use (int32: scratch that stays in cache).
        used = int(rects[:, 0].max()) + 1 if len(rects) else 1
        owner = np.full(layers.height.shape[:2] + (used,), -1, dtype=np.int32)
        v, c, level, pairs, seg = rectangle_mesh(np.ascontiguousarray(rects, dtype=np.int64), planes, layers.links,
                                                 owner, float(layers.x0), float(layers.z0), float(layers.cell),
                                                 max_corners < 4)
        vertices.append(v)
        corners.append(c + vertex_count)
        levels.append(level)
        portals.append(pairs + polygon_count)
        segments.append(seg)
        polygon_count += len(level)
        vertex_count += len(v)
    corner_count = 4 if max_corners >= 4 else 3
    portal_pairs = np.concatenate(portals) if portals else np.empty((0, 2), dtype=np.int64)
    portal_segments = np.concatenate(segments) if segments else np.empty((0, 2, 3))
    order = np.argsort(portal_pairs[:, 0] * max(polygon_count, 1) + portal_pairs[:, 1], kind="stable")  # by (a, b)
    return (np.concatenate(vertices) if vertices else np.empty((0, 3)),
            np.arange(polygon_count + 1, dtype=np.int64) * corner_count,
            (np.concatenate(corners) if corners else np.empty(0)).astype(np.int64),
            (np.concatenate(levels) if levels else np.empty(0)).astype(np.int64),
            portal_pairs[order].astype(np.int64).reshape(-1, 2), portal_segments[order].reshape(-1, 2, 3))


def navmesh_from_layers(layers: list[WalkableLayers], max_corners: int = 6,
                        height_error: float = HEIGHT_ERROR) -> NavMesh:
    """A navmesh covering the walkable samples of every region (see the module's docstring)."""
    regions = []
    for region in layers:
        ntx, ntz = region.tiles
        regions.append((region, [tile_polygons(region, ti, tk, height_error)
                                 for ti in range(ntx) for tk in range(ntz)]))
    return navmesh_from_tiles(regions, max_corners)


def navmesh_from_grids(grids: list[WalkableGrid], max_corners: int = 6, step_limit: float = 0.0,
                       height_error: float = HEIGHT_ERROR) -> NavMesh:
    """A navmesh covering the walkable cells of every grid exactly.

    Grids on the same lattice (shape, origin and cell size) are levels of one region: a cell steps to the
    neighbouring cell, on any of them, nearest in height within ``step_limit`` metres. Each level's cells
    become polygons on planes within ``height_error`` metres of the cells' heights (see the module's
    docstring).

    Examples
    --------
    >>> import numpy as np
    >>> floor = WalkableGrid(np.ones((4, 4), bool), np.zeros((4, 4)), 0.0, 0.0, 0.5)
    >>> mesh = navmesh_from_grids([floor])
    >>> mesh.polygon_count, mesh.area()
    (1, 4.0)
    """
    max_corners = check_integer("max_corners", max_corners, minimum=3)
    step_limit = check_finite("step_limit", step_limit, minimum=0.0, unit="m")
    height_error = check_finite("height_error", height_error, minimum=0.0, unit="m")
    lattices: dict[tuple, list[WalkableGrid]] = {}
    for level, grid in enumerate(grids):
        if not isinstance(grid, WalkableGrid):
            raise ParameterError("grids", grid, "a list of WalkableGrid")
        if grid.walkable.shape != grid.height.shape or grid.walkable.ndim != 2:
            raise ParameterError("grids", f"level {level}: walkable {grid.walkable.shape}, height {grid.height.shape}",
                                 "equal 2-D shapes")
        lattices.setdefault((grid.walkable.shape, grid.x0, grid.z0, grid.cell), []).append(grid)
    layers = []
    for (shape, x0, z0, cell), members in lattices.items():
        height = np.stack([np.where(g.walkable, g.height, np.nan).astype(np.float64) for g in members], axis=-1)
        layers.append(WalkableLayers(height, level_links(height, step_limit), x0, z0, cell))
    return navmesh_from_layers(layers, max_corners, height_error)
