"""Walkable samples to polygons: the last step of a bake (Recast's contours and polygon mesh, on the bake's
grid).

A region's walkable samples (:class:`WalkableLayers`: per column of its grid, up to a few heights, one per
*level*, and which neighbouring sample each one steps to) are cut into fixed-size *tiles* of ``TILE_CELLS`` x
``TILE_CELLS`` columns, the unit of re-baking. In each tile:

1. the samples of each level are grouped into *regions* (``_kernels.regions``): connected samples that step to
   each other, without pinches, so each region's outline is an outer loop and its holes, all simple;
2. each region's outline is traced along its cells' sides and simplified (``_kernels.outlines``): walls within
   ``max_edge_error`` metres (Douglas-Peucker; Recast's ``maxSimplificationError``), the stretches two regions
   share the same way from both sides (one chord, as Recast's contours keep a portal between two regions, unless
   it would cover a third region's cell), every point kept where what lies across changes, the tile's edge kept
   exact; points inside the outline are not kept;
3. the outline is cut into closed, simple, convex polygons of at most ``max_corners`` corners
   (``_kernels.triangles``: holes bridged, ear clipping, triangles merged while convex), which on one level
   never overlap;
4. each polygon gets its *detail* (``_kernels.detail``): the heights of its region's samples under it, so the
   navmesh's heights follow the surface (bilinear between samples) however few and large the polygons are; a
   corner's height is its detail's.

Two polygons are neighbours through a *portal*: a side they share (inside a tile), or the stretch of the grid's
lines over which their samples step to each other (across a tile's edge, where each tile kept its outline
exact). A tile's polygons depend only on its own samples and their links, so a tile can be rebuilt alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeAlias, cast

import numpy as np

from ..errors import ParameterError, check_finite, check_integer
from ._kernels.cutting import outline_polygons, region_pieces, shared_portals
from ._kernels.outlines import BRIDGE, OUT, claims
from ._kernels.polygons import grid_portals, held_side_steps, joined_portals, portal_segments, tile_rectangles
from ._kernels.regions import area_links, paint_regions, region_cells, tile_regions
from .navmesh import NavMesh, NavMeshArrays
from .sampling import level_links

__all__ = ["TILE_CELLS", "WalkableGrid", "WalkableLayers", "tile_polygons", "navmesh_from_tiles", "navmesh_arrays",
           "tile_navmesh_arrays", "side_steps", "navmesh_from_grids"]

TILE_CELLS = 64  # columns along each side of a tile
SHARED_ERROR = float("inf")  # cells: how far a simplified stretch two regions share may stray (no bound)
# A region's convex polygons as _outline_polygons gives them: (points, poly, labels, size, pairs).
RegionPieces: TypeAlias = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
# One region's (or some tiles') arrays as _tile_arrays gives them: vertices, polygon ends, levels, detail origins,
# shapes and heights, portal pairs and segments.
RegionArrays: TypeAlias = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                np.ndarray]


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
    sample steps to, or -1; ``area[i, k, s]``: each sample's area type (an index into the scene's
    ``area_types``; None: all 0, ground)."""

    height: np.ndarray  # (nx, nz, levels) float64
    links: np.ndarray  # (4, nx, nz, levels) int64
    x0: float  # metres
    z0: float  # metres
    cell: float  # metres
    area: np.ndarray | None = None  # (nx, nz, levels) int64

    @property
    def tiles(self) -> tuple[int, int]:
        """How many tiles cover the grid along x and z."""
        nx, nz = self.height.shape[:2]
        return -(-nx // TILE_CELLS), -(-nz // TILE_CELLS)


@dataclass(frozen=True)
class TilePolygons:
    """The polygons of one tile. Polygon q has the corners ``corners[start[q]:start[q + 1]]`` (grid points
    ``(i, k)`` of the region's grid, counter-clockwise seen from above) at ``heights`` (m, on its detail); it
    lies on level ``level[q]``. Its detail (see ``_kernels.detail``) covers the cells ``detail_box[q] = (i0,
    k0, ni, nk)`` (the first cell and the raster's size), heights in ``detail_heights`` polygon after polygon.
    ``sides[w] = (polygon, d, i, k)``: the polygon holds side d of sample (i, k) (where it meets another
    tile's polygon, or another region's when the tile's shared outlines are exact); ``inner[r] = (q0, q1)``
    polygons of the tile meeting along the segment ``inner_ends[r]`` (two grid points); ``area_type[q]``: the area
    type of all its samples (an index into the scene's ``area_types``)."""

    corners: np.ndarray  # (m, 2) int64
    heights: np.ndarray  # (m,) float64
    start: np.ndarray  # (p + 1,) int64
    level: np.ndarray  # (p,) int64
    detail_box: np.ndarray  # (p, 4) int64
    detail_heights: np.ndarray  # (sum of ni * nk,) float64
    sides: np.ndarray  # (w, 4) int64
    inner: np.ndarray  # (r, 2) int64
    inner_ends: np.ndarray  # (r, 2, 2) int64
    area_type: np.ndarray  # (p,) int64

    @property
    def polygon_count(self) -> int:
        return len(self.level)

    @property
    def detail_start(self) -> np.ndarray:
        """Where each polygon's raster starts in ``detail_heights`` (p + 1,)."""
        return np.concatenate([[0], np.cumsum(self.detail_box[:, 2] * self.detail_box[:, 3])]).astype(np.int64)

    def arrays(self, x0: float, z0: float, cell: float) -> TileArrays:
        """The tile's share of a navmesh's arrays on the grid from ``(x0, z0)`` (m) of spacing ``cell`` (m), made
        on first use and kept with the tile (whose arrays are never changed), so that joining tiles into a navmesh
        copies the tiles that did not change instead of working them out again."""
        key = (float(x0), float(z0), float(cell))
        kept = self.__dict__.get("_arrays")
        if kept is None or kept[0] != key:
            kept = (key, _tile_own_arrays(self, *key))
            self.__dict__["_arrays"] = kept  # not a field: equality, repr and the tile's bytes are unchanged
        return kept[1]


def _outline_polygons(label: np.ndarray, links: np.ndarray, g: int, cells: np.ndarray, tile: tuple[int, int, int, int],
                      claim: np.ndarray, region_level: np.ndarray, errors: Sequence[tuple[float, float]],
                      max_corners: int, force: np.ndarray, want: np.ndarray) -> RegionPieces | None:
    """The convex polygons of region g: ``(points, poly, labels, size, pairs)`` (tile-local grid points; polygon
    q's point indices ``poly[q, :size[q]]``, counter-clockwise in (i, k), and its sides' labels; inner sides
    (p, q, a, b)), or None when its outline cannot be cut. ``errors``: the (wall, shared) errors (cells) to try
    in turn; ``force``: the tile's grid points every outline keeps; ``want``: where the points its short loops
    needed on a stretch shared with another region are marked. (One kernel call: ``_kernels.cutting``.)"""
    i_lo, k_lo, i_hi, k_hi = tile
    ok, points, poly, labels, size, pairs = outline_polygons(
        label, links, g, cells, i_lo, k_lo, i_hi, k_hi, claim, region_level,
        np.array(errors, dtype=np.float64).reshape(-1, 2), max_corners, force, want)
    return (points, poly, labels, size, pairs) if ok else None


def _rectangle_polygons(rects: np.ndarray, members: np.ndarray, i_lo: int, k_lo: int, max_corners: int) -> RegionPieces:
    """Region's rectangles as polygons (the fall-back): like :func:`_outline_polygons`, every side labelled
    ``OUT`` (held, so that the links decide the portals), split into two triangles when max_corners is 3."""
    r = rects[members]
    u0, v0, u1, v1 = r[:, 1] - i_lo, r[:, 2] - k_lo, r[:, 3] - i_lo, r[:, 4] - k_lo
    points = np.stack([np.column_stack(c) for c in ((u0, v0), (u1, v0), (u1, v1), (u0, v1))], 1).reshape(-1, 2)
    base = 4 * np.arange(len(r))[:, None]
    if max_corners >= 4:
        return (points, base + np.arange(4), np.full((len(r), 4), OUT), np.full(len(r), 4),
                np.empty((0, 4), np.int64))
    poly = np.stack([base + [0, 1, 2], base + [0, 2, 3]], 1).reshape(-1, 3)
    labels = np.tile([OUT, OUT, BRIDGE], (2 * len(r), 1))
    pairs = np.column_stack([2 * np.arange(len(r)), 2 * np.arange(len(r)) + 1, base[:, 0], base[:, 0] + 2])
    return points, poly, labels, np.full(2 * len(r), 3), pairs


def _region_polygons(layers: WalkableLayers, rects: np.ndarray, region: np.ndarray, count: int, label: np.ndarray,
                     tile: tuple[int, int, int, int], max_corners: int, error: float,
                     bounded_shared: bool = False) -> tuple[list[RegionPieces], np.ndarray, bool]:
    """Every region's polygons, as :func:`_outline_polygons` gives them, and whether the regions' shared
    stretches were simplified (else they are exact, and the grid's links give their portals). Shared stretches
    are simplified only if every region's outline can be; a region that cannot be cut even with exact stretches
    falls back to its rectangles.

    A stretch two regions share must be simplified the same way from both sides, or their polygons' sides part
    and no portal joins them. Each side does the same on its own, except where a loop simplified to fewer than
    three points needs one more inside such a stretch (a tiny region): then every region is simplified again with
    those points kept by all (``_kernels.outlines.simplify_forced``), until none is asked for.

    With ``error`` > 0, shared stretches are simplified without a bound on their distance from the cells
    (``SHARED_ERROR``; Recast keeps a portal between two regions as one straight side): such a side moves no
    outline, only where the two regions' polygons meet, so one chord serves unless it covers a third region's
    cell. (Bounded by ``error`` instead, a tile whose outline could not be cut unbounded could not be cut either
    on the levels tried.) ``bounded_shared``: the tile's regions are of more than one area type, where a side
    between two regions is where one type ends and the other begins (a hazard's edge): there the shared stretches
    keep ``error`` too, so that no polygon strays more than the edge error over cells of another type."""
    claim = claims(label)
    # Each region's cells (row by row), from one counting sort of the tile's samples by region; each region's
    # level, its first rectangle's (regions are numbered by their first rectangle).
    every = np.empty((label.size, 2), np.int64)
    bounds, region_level = np.empty(count + 1, np.int64), np.empty(count, np.int64)
    region_cells(label, rects, region, count, every, bounds, region_level)
    cells = [every[bounds[g]:bounds[g + 1]] for g in range(count)]
    points = (label.shape[0] + 1, label.shape[1] + 1)
    force, want = np.zeros(points, np.bool_), np.zeros(points, np.bool_)
    shared = SHARED_ERROR if error > 0 and not bounded_shared else error  # 0: every stretch exact
    while True:
        made = [_outline_polygons(label, layers.links, g, cells[g], tile, claim, region_level,
                                  ((error, shared),), max_corners, force, want) for g in range(count)]
        if not (want & ~force).any():  # each point is asked for once, so this ends
            break
        force |= want
    if all(m is not None for m in made):
        return cast(list[RegionPieces], made), region_level, True  # none is None: checked just above
    made = [_outline_polygons(label, layers.links, g, cells[g], tile, claim, region_level,
                              ((error, -1.0), (-1.0, -1.0)), max_corners, force, want) for g in range(count)]
    return [m if m is not None else _rectangle_polygons(rects, np.flatnonzero(region == g), tile[0], tile[1],
                                                        max_corners)
            for g, m in enumerate(made)], region_level, False


def tile_polygons(layers: WalkableLayers, ti: int, tk: int, max_corners: int = 6,
                  max_edge_error: float = 0.0, origin: tuple[int, int] = (0, 0)) -> TilePolygons:
    """The polygons of tile (ti, tk): its samples' regions, each outline traced, simplified within
    ``max_edge_error`` (m) and cut into convex polygons of at most ``max_corners`` corners, with their detail
    (see the module's docstring). ``origin``: the grid column ``(i, k)`` of the layers' first column, for layers
    of a window of the grid holding the tile and the columns around it (the region's last columns where the tile
    is the last); the polygons are given on the grid all the same."""
    nx, nz, levels = layers.height.shape
    i_lo, k_lo = ti * TILE_CELLS - origin[0], tk * TILE_CELLS - origin[1]
    i_hi, k_hi = min(i_lo + TILE_CELLS, nx), min(k_lo + TILE_CELLS, nz)
    room = (i_hi - i_lo) * (k_hi - k_lo) * levels
    rects = np.empty((room, 5), dtype=np.int64)
    area = layers.area
    mixed = area is not None and bool(area[i_lo:i_hi, k_lo:k_hi].min() != area[i_lo:i_hi, k_lo:k_hi].max())
    if mixed:
        # Regions grow only over the links between samples of one area type (the tile's, as a window).
        links = np.empty((4, i_hi - i_lo, k_hi - k_lo, levels), np.int64)
        area_links(layers.links, cast(np.ndarray, area), i_lo, k_lo, i_hi, k_hi, links)
        window = (layers.height[i_lo:i_hi, k_lo:k_hi], links, 0, 0, i_hi - i_lo, k_hi - k_lo)
    else:
        window = (layers.height, layers.links, i_lo, k_lo, i_hi, k_hi)
    rects = rects[:tile_rectangles(*window, rects)]
    region = np.empty(len(rects), np.int64)
    count = tile_regions(window[1], rects, levels, *window[2:], region)
    if window[2] != i_lo or window[3] != k_lo:
        rects[:, 1:] += np.array([i_lo, k_lo, i_lo, k_lo])
    label = np.full((i_hi - i_lo, k_hi - k_lo, levels), -1, np.int64)
    paint_regions(rects, region, i_lo, k_lo, label)
    made, region_level, simplified = _region_polygons(layers, rects, region, count, label, (i_lo, k_lo, i_hi, k_hi),
                                                      max_corners, float(max_edge_error) / float(layers.cell),
                                                      bounded_shared=mixed)
    corners, heights, ends, level, box_parts, details, counts = [], [], [], [], [], [], []
    side_parts, inner, inner_ends = [], [], []
    shared = []  # the simplified shared sides: rows (lower region, higher, polygon, two points) per region
    keep = np.array([True, not simplified])
    first = corner_count = 0
    for g, (points, poly, labels, size, pairs) in enumerate(made):
        s = int(region_level[g])
        at, start, box, raster, corner_heights, held, shared_rows, pairs_here, ends_here = region_pieces(
            points, poly, labels, size, pairs, g, s, layers.height, label, i_lo, k_lo, keep, first, simplified)
        side_parts.append(held)
        if simplified:
            shared.append(shared_rows)
        inner.append(pairs_here)
        inner_ends.append(ends_here)
        corners.append(at)
        heights.append(corner_heights)
        ends.append(start[1:] + corner_count)
        level.append(np.full(len(size), s))
        counts.append(len(size))
        box_parts.append(box)
        details.append(raster)
        first += len(size)
        corner_count += len(at)

    def joined(parts: list[np.ndarray], empty: np.ndarray) -> np.ndarray:
        return np.concatenate(parts) if parts else empty

    if shared:
        shared_pairs, shared_ends = shared_portals(np.concatenate(shared))
        inner.append(shared_pairs)
        inner_ends.append(shared_ends + (i_lo, k_lo))
    if mixed:  # a polygon's type: its region's, the type of the region's first rectangle's first sample
        assert area is not None
        r = np.unique(region, return_index=True)[1]
        kind = np.repeat(area[rects[r, 1], rects[r, 2], rects[r, 0]], counts).astype(np.int64)
    else:  # every sample of the tile is of one type
        kind = np.full(first, int(area[i_lo, k_lo, 0]) if area is not None and first else 0, dtype=np.int64)
    shift = np.array(origin, dtype=np.int64)
    boxes = joined(box_parts, np.empty((0, 4), np.int64)).astype(np.int64)
    sides = joined(side_parts, np.empty((0, 4), np.int64)).astype(np.int64)
    if shift.any():  # from the window's columns to the grid's
        boxes[:, :2] += shift
        sides[:, 2:] += shift
    return TilePolygons(joined(corners, np.empty((0, 2), np.int64)).astype(np.int64) + shift,
                        joined(heights, np.empty(0)), np.concatenate([[0], *ends]).astype(np.int64),
                        joined(level, np.empty(0, np.int64)), boxes, joined(details, np.empty(0)), sides,
                        joined(inner, np.empty((0, 2), np.int64)).astype(np.int64).reshape(-1, 2),
                        joined(inner_ends, np.empty((0, 2, 2), np.int64)).astype(np.int64).reshape(-1, 2, 2) + shift,
                        kind)


def navmesh_from_tiles(regions: list[tuple[WalkableLayers, list[TilePolygons]]]) -> NavMesh:
    """The navmesh of every region's tiles (each region: its layers and its tiles' polygons, in tile order);
    polygons are numbered region by region, tile by tile; portals join polygons of one region."""
    return NavMesh(*navmesh_arrays(regions))


def side_steps(sides: np.ndarray, links: np.ndarray, nx: int, nz: int, i0: int = 0, k0: int = 0) -> np.ndarray:
    """For each row ``(polygon, d, i, k, s)`` of ``sides``: the level of the sample that sample (i, k, s) steps
    to across its +x (d = 0) or +z (d = 2) side, or -1 (no link, another side, or the neighbour beyond the grid of
    ``nx`` x ``nz`` columns). ``links`` (see :class:`WalkableLayers`) covers the columns from ``(i0, k0)`` on, every
    row's column included: what :func:`side_portals` reads of the links, so that tiles baked apart
    (:mod:`~voxelworld.navigation.tiles`) keep it with their polygons."""
    d, i, k, s = (np.ascontiguousarray(sides[:, c], dtype=np.int64) for c in range(1, 5))
    out = np.full(len(d), -1, dtype=np.int64)
    steps = ((d == 0) | (d == 2)) & (i + (d == 0) < nx) & (k + (d == 2) < nz)
    out[steps] = links[d[steps], i[steps] - i0, k[steps] - k0, s[steps]]
    return out


def side_portals(sides: np.ndarray, links: np.ndarray) -> np.ndarray:
    """The portals along the grid's lines between the polygons holding samples' sides: ``sides (n, 5)`` rows
    ``(polygon, d, i, k, s)``, polygon holding side d (0: +x, 1: -x, 2: +z, 3: -z) of sample (i, k, s) (a side
    listed twice: the later row holds it). Where sample (i, k, s) steps across its +x or +z side (``links``) to a
    sample whose facing side another polygon holds, the two polygons share a portal; runs of sides along one
    line (one level) with the same two polygons are one portal. Returns rows ``(polygon, neighbour, axis (0: the
    line x = i + 1, 2: z = k + 1), line, first, last)`` (grid points along the line), by axis, level, line and
    first point. Only the sides listed are looked at: the cost follows the polygons' held sides, not the grid."""
    _, nx, nz, levels = links.shape
    return portals_of_sides(sides, side_steps(sides, links, nx, nz), nx, nz, levels)


def portals_of_sides(sides: np.ndarray, steps: np.ndarray, nx: int, nz: int, levels: int) -> np.ndarray:
    """:func:`side_portals` from the sides and their :func:`side_steps` on a grid of ``nx`` x ``nz`` columns and
    at most ``levels`` levels (``_kernels.polygons.grid_portals``)."""
    polygon, d, i, k, s = (np.ascontiguousarray(sides[:, c], dtype=np.int64) for c in range(5))
    return grid_portals(polygon, d, i, k, s, np.ascontiguousarray(steps, dtype=np.int64), int(nx), int(nz),
                        int(levels)).reshape(-1, 6)


def _region_arrays(layers: WalkableLayers, tiles: list[TilePolygons]) -> RegionArrays:
    """One region's polygons (numbered from 0): vertices, polygon ends, levels, details (origins, shapes,
    heights), portal pairs and segments (m; ends at the mean height of the two polygons' details)."""
    _, nx, nz, levels = layers.links.shape

    def steps(sides: np.ndarray) -> np.ndarray:
        out = np.empty(len(sides), np.int64)
        held_side_steps(sides, layers.links, out)
        return out

    return _tile_arrays(tiles, float(layers.x0), float(layers.z0), float(layers.cell), nx, nz, levels, steps)


class TileArrays(NamedTuple):
    """One tile's share of a navmesh's arrays (its polygons numbered from 0, its corners from 0), in metres on
    its region's grid: what joining the tiles copies, made once per tile (:meth:`TilePolygons.arrays`)."""

    vertices: np.ndarray  # (m, 3) float64
    ends: np.ndarray  # (p,) int64: each polygon's end in the tile's corners
    level: np.ndarray  # (p,) int64
    boxes: np.ndarray  # (p, 4) int64: detail boxes
    origins: np.ndarray  # (p, 3) float64: detail origins
    details: np.ndarray  # float64: detail heights
    sides: np.ndarray  # (w, 5) int64: (polygon, d, i, k, level) of each held side
    inner: np.ndarray  # (r, 2) int64: the portals inside the tile
    inner_segments: np.ndarray  # (r, 2, 3) float64


def _tile_own_arrays(tile: TilePolygons, x0: float, z0: float, cell: float) -> TileArrays:
    """:class:`TileArrays` of one tile, the portals inside it with their ends at the mean height of the two
    polygons' details."""
    boxes = tile.detail_box.astype(np.int64, copy=False)
    vertices = np.column_stack([x0 + tile.corners[:, 0] * cell, tile.heights, z0 + tile.corners[:, 1] * cell])
    sides = np.column_stack([tile.sides, tile.level[tile.sides[:, 0]]]).astype(np.int64).reshape(-1, 5)
    inner = tile.inner.astype(np.int64).reshape(-1, 2)
    ends = tile.inner_ends.astype(np.int64).reshape(-1, 2, 2)
    origins = np.column_stack([x0 + (boxes[:, 0] + 0.5) * cell, z0 + (boxes[:, 1] + 0.5) * cell,
                               np.full(len(boxes), cell)])
    return TileArrays(vertices, tile.start[1:], tile.level, boxes, origins, tile.detail_heights, sides, inner,
                      _segments(inner, ends, boxes, tile.detail_start, tile.detail_heights, x0, z0, cell))


def _segments(pairs: np.ndarray, grid: np.ndarray, boxes: np.ndarray, starts: np.ndarray, details: np.ndarray,
              x0: float, z0: float, cell: float) -> np.ndarray:
    """The portals' segments (m): ``grid (r, 2, 2)`` the ends' grid points, each at the mean height of the two
    polygons' (``pairs``) details (``_kernels.polygons.portal_segments``)."""
    segments = np.empty(grid.shape[:2] + (3,))
    portal_segments(np.ascontiguousarray(pairs, np.int64), np.ascontiguousarray(grid, np.int64),
                    np.ascontiguousarray(boxes, np.int64), starts, np.ascontiguousarray(details, np.float64),
                    float(x0), float(z0), float(cell), segments)
    return segments


def _tile_arrays(tiles: list[TilePolygons], x0: float, z0: float, cell: float, nx: int, nz: int, levels: int,
                 steps: Callable[[np.ndarray], np.ndarray]) -> RegionArrays:
    """:func:`_region_arrays` of ``tiles`` on the grid from ``(x0, z0)`` (m) of spacing ``cell`` (m) of ``nx`` x
    ``nz`` columns and ``levels`` levels, the portals along the grid's lines (:func:`side_portals`) from the held
    sides and ``steps(sides)`` (their :func:`side_steps`), joined with the tiles' inner ones and ordered by pair in
    one kernel call (``_kernels.polygons.joined_portals``). Each tile's own share is made once
    (:meth:`TilePolygons.arrays`) and only copied here."""
    if not tiles:
        return (np.empty((0, 3)), np.empty(0, np.int64), np.empty(0, np.int64), np.empty((0, 3)),
                np.empty((0, 2), np.int64), np.empty(0), np.empty((0, 2), np.int64), np.empty((0, 2, 3)))
    parts = [tile.arrays(x0, z0, cell) for tile in tiles]
    polygons = np.array([len(part.level) for part in parts], np.int64)
    first = np.concatenate([[0], np.cumsum(polygons)[:-1]]).astype(np.int64)
    corners = np.array([len(part.vertices) for part in parts], np.int64)
    ends = np.concatenate([part.ends for part in parts]) + np.repeat(np.cumsum(corners) - corners, polygons)
    boxes = np.concatenate([part.boxes for part in parts])
    details = np.concatenate([part.details for part in parts])
    sides = np.concatenate([part.sides for part in parts])
    sides[:, 0] += np.repeat(first, [len(part.sides) for part in parts])
    inner = np.concatenate([part.inner for part in parts])
    inner += np.repeat(first, [len(part.inner) for part in parts])[:, None]
    starts = np.concatenate([[0], np.cumsum(boxes[:, 2] * boxes[:, 3])]).astype(np.int64)
    inner_segments = np.concatenate([part.inner_segments for part in parts])
    pairs, segments = joined_portals(sides, steps(sides), nx, nz, levels, inner, inner_segments, boxes, starts,
                                     details, x0, z0, cell)
    return (np.concatenate([part.vertices for part in parts]), ends.astype(np.int64),
            np.concatenate([part.level for part in parts]).astype(np.int64),
            np.concatenate([part.origins for part in parts]), boxes[:, 2:].copy(), details, pairs, segments)


def navmesh_arrays(regions: list[tuple[WalkableLayers, list[TilePolygons]]]) -> NavMeshArrays:
    """What :func:`navmesh_from_tiles` makes a NavMesh of: ``(vertices, polygon_start, polygon_vertices,
    polygon_level, portals, portal_segments, detail_origin, detail_shape, detail_heights)``."""
    return _joined_arrays([_region_arrays(layers, tiles) for layers, tiles in regions])


def tile_navmesh_arrays(tiles: list[TilePolygons], steps: list[np.ndarray], x0: float, z0: float, cell: float,
                        nx: int, nz: int, levels: int) -> NavMeshArrays:
    """:func:`navmesh_arrays` of some tiles of one region, baked apart (:mod:`~voxelworld.navigation.tiles`):
    ``tiles`` in tile order, each with the :func:`side_steps` of its sides (its polygons' level as each row's
    level), on the region's grid (corner ``(x0, z0)`` m, spacing ``cell`` m, ``nx`` x ``nz`` columns, at most
    ``levels`` levels). Given every tile of the region, the arrays of :func:`navmesh_arrays`, bit for bit."""
    every = np.concatenate(steps) if steps else np.empty(0, np.int64)
    return _joined_arrays([_tile_arrays(tiles, x0, z0, cell, nx, nz, levels, lambda sides: every)])


def _joined_arrays(parts: list[RegionArrays]) -> NavMeshArrays:
    polygon_count = corner_count = 0
    ends, pairs = [np.zeros(1, np.int64)], []
    for vertices, polygon_ends, levels, _, _, _, portal_pairs, _ in parts:
        ends.append(polygon_ends + corner_count)
        pairs.append(portal_pairs + polygon_count)
        polygon_count += len(levels)
        corner_count += len(vertices)

    # One part (one area, the usual case): its arrays as they are, not copied.
    def joined(n: int, empty: np.ndarray) -> np.ndarray:
        if len(parts) == 1:
            return parts[0][n]
        return np.concatenate([part[n] for part in parts]) if parts else empty

    if len(parts) == 1:  # one area's portals come ordered by pair (_tile_arrays)
        portal_pairs, portal_segments = parts[0][6], parts[0][7]
    else:
        portal_pairs = np.concatenate(pairs) if pairs else np.empty((0, 2), np.int64)
        order = np.argsort(portal_pairs[:, 0] * max(polygon_count, 1) + portal_pairs[:, 1], kind="stable")
        portal_pairs, portal_segments = portal_pairs[order], joined(7, np.empty((0, 2, 3)))[order]
    return (joined(0, np.empty((0, 3))), np.concatenate(ends).astype(np.int64),
            np.arange(corner_count, dtype=np.int64), joined(2, np.empty(0, np.int64)).astype(np.int64),
            portal_pairs.astype(np.int64).reshape(-1, 2), portal_segments.reshape(-1, 2, 3),
            joined(3, np.empty((0, 3))), joined(4, np.empty((0, 2), np.int64)).astype(np.int64),
            joined(5, np.empty(0)))


def navmesh_from_layers(layers: list[WalkableLayers], max_corners: int = 6, max_edge_error: float = 0.0) -> NavMesh:
    """A navmesh covering the walkable samples of every region (see the module's docstring)."""
    regions = []
    for region in layers:
        ntx, ntz = region.tiles
        regions.append((region, [tile_polygons(region, ti, tk, max_corners, max_edge_error)
                                 for ti in range(ntx) for tk in range(ntz)]))
    return navmesh_from_tiles(regions)


def navmesh_from_grids(grids: list[WalkableGrid], max_corners: int = 6, step_limit: float = 0.0,
                       max_edge_error: float = 0.0) -> NavMesh:
    """A navmesh covering the walkable cells of every grid.

    Grids on the same lattice (shape, origin and cell size) are levels of one region: a cell steps to the
    neighbouring cell, on any of them, nearest in height within ``step_limit`` metres. Each level's cells
    become convex polygons of at most ``max_corners`` corners whose walls lie within ``max_edge_error``
    metres of the cells' outline (0, the default: exactly on it), with the cells' heights as their detail
    (see the module's docstring).

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
    max_edge_error = check_finite("max_edge_error", max_edge_error, minimum=0.0, unit="m")
    lattices: dict[tuple, list[WalkableGrid]] = {}
    for level, grid in enumerate(grids):
        if not isinstance(grid, WalkableGrid):
            raise ParameterError("grids", grid, "a list of WalkableGrid")
        if grid.walkable.shape != grid.height.shape or grid.walkable.ndim != 2:
            raise ParameterError("grids", f"level {level}: walkable {grid.walkable.shape}, height {grid.height.shape}",
                                 "equal 2-D shapes")
        lattices.setdefault((grid.walkable.shape, grid.x0, grid.z0, grid.cell), []).append(grid)
    layers = []
    for (_shape, x0, z0, cell), members in lattices.items():
        height = np.stack([np.where(g.walkable, g.height, np.nan).astype(np.float64) for g in members], axis=-1)
        layers.append(WalkableLayers(height, level_links(height, step_limit), x0, z0, cell))
    return navmesh_from_layers(layers, max_corners, max_edge_error)
