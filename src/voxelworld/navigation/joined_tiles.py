"""Some tiles of one region joined into a navmesh's arrays, kept and changed tile by tile: what
:class:`~voxelworld.navigation.tiles.TiledNavMesh` rebuilds its navmesh from after a tile is baked or dropped.

:func:`~voxelworld.navigation.polygons.tile_navmesh_arrays` joins every tile at once: it numbers the polygons tile
after tile (in tile order), and orders the portals by pair (lower polygon, higher polygon), the tiles' inner
portals before those along the grid's lines on a tie (those by axis, level, line and first point). A portal joins
polygons of one tile, or of two tiles that meet along a side: a tile (ti, tk) and the next one along +x (ti + 1,
tk) or +z (ti, tk + 1), whose polygons come later in tile order. So the portals whose lower polygon lies in a tile,
its *share* of the portals, are a run of the joined portals (the tiles' shares follow in tile order) that reads
that tile, the next along +x and the next along +z only, and no other: :func:`tile_portals` finds one tile's share
with the same kernel on those three tiles' polygons and sides alone, in the same order.

:class:`JoinedTiles` keeps the joined arrays with each tile's place in them. After some tiles changed (baked,
baked again or dropped), the tiles that did not change keep their polygons and the tiles none of whose three
tiles changed keep their share of the portals: their runs are copied from the arrays before (polygon indices
renumbered), only the changed tiles' polygons and the shares that read them are made anew. The arrays equal
:func:`~voxelworld.navigation.polygons.tile_navmesh_arrays` of the same tiles, bit for bit, and a change costs a
few copies of the arrays plus the work of the tiles changed, however many tiles are kept.

What the navmesh's index derives polygon by polygon is kept the same way: each polygon's box and plane
(:func:`~.index.polygon_boxes`), and the boundary rings the path search walks (``paths.ring_pieces``, which read a
polygon's corners, surface and portals: those of its tile's share and of the shares of the tiles before it along
x and z), joined again after each change (``paths.ring_joins``, one pass over the pieces) when a path is first
asked for (:meth:`JoinedTiles.rings_for`).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from ._kernels import paths as _paths
from ._kernels.arrays import BoundaryRings
from ._kernels.polygons import joined_portals
from .index import NavIndex, polygon_boxes
from .navmesh import NavMeshArrays
from .polygons import TILE_CELLS, TileArrays, TilePolygons, _tile_own_arrays

__all__ = ["JoinedTiles", "tile_portals"]

Tile = tuple[int, int]
_NO_POINTS = np.empty((0, 3))  # a kept tile's corners and detail origins: read from the joined arrays


class RingPieces(NamedTuple):
    """The rings' pieces (``paths.ring_pieces``) of every polygon of the joined arrays of one change (its
    ``generation``), each tile's first polygon (one more: the count), and which portals of the arrays the index
    had (all, or those a query filter leaves)."""

    generation: int
    kept_portals: np.ndarray
    polygon_first: np.ndarray
    ring_start: np.ndarray
    xz: np.ndarray
    y: np.ndarray
    across: np.ndarray  # as ring_pieces gives it (before ring_joins makes the portals seen from one side walls)
    portal: np.ndarray


class RingPlan(NamedTuple):
    """How the rings' pieces of the arrays before a change make those after: tile j's are tile ``at[j]``'s
    where ``same[j]``, with polygons and portals renumbered (old -> new)."""

    same: np.ndarray
    at: np.ndarray
    renumber: np.ndarray
    renumber_portals: np.ndarray


def tile_portals(tile: Tile, parts: dict[Tile, tuple[TileArrays, np.ndarray]], nx: int, nz: int, levels: int,
                 x0: float, z0: float, cell: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The share of the joined portals of ``tile`` (ti, tk): the portals whose lower polygon is one of its, in the
    order of :func:`~voxelworld.navigation.polygons.tile_navmesh_arrays`. ``parts``: the kept tiles'
    :meth:`~.polygons.TilePolygons.arrays` and :func:`~.polygons.side_steps`, of which this reads the tile and the
    next tiles along +x and +z (when kept), on the grid of ``nx`` x ``nz`` columns and ``levels`` levels from
    ``(x0, z0)`` (m) of spacing ``cell`` (m). Returns the pairs (r, 2), their segments (r, 2, 3) and which of the
    three tiles (0: the tile, 1: the next along +z, 2: the next along +x) holds each pair's higher polygon; the
    pairs number each tile's polygons from 0."""
    ti, tk = tile
    own, steps = parts[tile]
    polygons = [len(own.level)]
    sides, side_steps = [own.sides], [steps]
    boxes, details = [own.boxes], [own.details]
    # The facing sides of the next tiles: the -z sides of the first row of (ti, tk + 1), the -x sides of the first
    # column of (ti + 1, tk) (every row of such a side, in order: the later one holds it).
    for near, d, axis in (((ti, tk + 1), 3, 3), ((ti + 1, tk), 1, 2)):
        part = parts.get(near)
        if part is None:
            polygons.append(0)
            continue
        held = part[0].sides
        facing = held[(held[:, 1] == d) & (held[:, axis] == (near[axis - 2]) * TILE_CELLS)]
        facing = facing.copy()
        facing[:, 0] += sum(polygons)
        sides.append(facing)
        side_steps.append(np.full(len(facing), -1, np.int64))
        boxes.append(part[0].boxes)
        details.append(part[0].details)
        polygons.append(len(part[0].level))
    box = np.concatenate(boxes)
    starts = np.concatenate([[0], np.cumsum(box[:, 2] * box[:, 3])]).astype(np.int64)
    pairs, segments = joined_portals(np.concatenate(sides), np.concatenate(side_steps), nx, nz, levels, own.inner,
                                     own.inner_segments, box, starts, np.concatenate(details), x0, z0, cell)
    higher = pairs[:, 1]
    which = (higher >= polygons[0]).astype(np.int64) + (higher >= polygons[0] + polygons[1])
    pairs[:, 1] -= np.array([0, polygons[0], polygons[0] + polygons[1]])[which]
    return pairs, segments, which


class JoinedTiles:
    """The joined arrays of some tiles of one region (see the module), kept tile by tile.

    Parameters
    ----------
    x0, z0, cell : float
        The region's grid: its corner (m) and spacing (m).
    nx, nz, levels : int
        Its columns along x and z, and its levels at most.
    """

    def __init__(self, x0: float, z0: float, cell: float, nx: int, nz: int, levels: int) -> None:
        self.grid = (float(x0), float(z0), float(cell))
        self.nx, self.nz, self.levels = int(nx), int(nz), int(levels)
        self._tile_columns = -(-self.nz // TILE_CELLS)  # a tile's code: ti * _tile_columns + tk, in tile order
        # Each kept tile's arrays and side steps: what its share of the portals and its neighbours' read (its
        # corners and detail origins are in the joined arrays only, not kept twice).
        self._parts: dict[Tile, tuple[TileArrays, np.ndarray]] = {}
        self._codes = np.empty(0, np.int64)
        # Each kept tile's first polygon, corner, detail height and portal (one more: the totals), in tile order.
        self._first = np.zeros((4, 1), np.int64)
        self._arrays = _empty_arrays()
        self._area_type = np.empty(0, np.int64)
        self._boxes_planes = (np.empty((0, 6)), np.empty((0, 3)))
        # The rings' pieces last made, per polygons left out (see rings_for), and how the last change renumbered.
        self._rings: dict[bytes, RingPieces] = {}
        self._generation = 0
        self._ring_plan: RingPlan | None = None
        # The memory the joined detail heights were written into at the last changes (see _detail_room).
        self._detail_buffers: list[np.ndarray] = []

    @property
    def arrays(self) -> NavMeshArrays:
        """The navmesh's arrays (in :data:`~.navmesh.ARRAY_NAMES` order)."""
        return self._arrays

    @property
    def area_type(self) -> np.ndarray:
        """Each polygon's area type as its tile gave it (an index into the tile's own area types)."""
        return self._area_type

    @property
    def boxes_planes(self) -> tuple[np.ndarray, np.ndarray]:
        """The polygons' :func:`~.index.polygon_boxes`, made tile by tile."""
        return self._boxes_planes

    def change(self, changed: Mapping[Tile, tuple[TilePolygons, np.ndarray] | None]) -> None:
        """Join the tiles again after the tiles ``changed`` were baked or baked again (a tile: its polygons and
        their :func:`~.polygons.side_steps`) or dropped (None); the other tiles keep their polygons."""
        cols = self._tile_columns
        parts = self._parts
        # The baked tiles' arrays in full, with their area types and polygons' boxes and planes: what the join copies
        # (made here, not kept with the tile: TilePolygons.arrays would keep a second copy of what the join holds).
        fresh: dict[Tile, tuple[TileArrays, np.ndarray, np.ndarray, np.ndarray]] = {}
        for tile, baked in changed.items():
            if baked is not None:
                polygons, steps = baked
                part = _tile_own_arrays(polygons, *self.grid)
                fresh[tile] = (part, polygons.area_type, *_tile_boxes(part))
                parts[tile] = (part._replace(vertices=_NO_POINTS, origins=_NO_POINTS), steps)
            else:
                parts.pop(tile, None)
        changed_codes = np.array([ti * cols + tk for ti, tk in changed], np.int64).reshape(-1)
        new_codes = np.array([ti * cols + tk for ti, tk in changed if (ti, tk) in parts], np.int64)
        codes = np.union1d(np.setdiff1d(self._codes, changed_codes), new_codes).astype(np.int64)  # sorted: tile order
        old_codes, old_first = self._codes, self._first
        at = np.minimum(np.searchsorted(old_codes, codes), max(len(old_codes) - 1, 0))
        kept = (old_codes[at] == codes) if len(old_codes) else np.zeros(len(codes), np.bool_)
        same = kept & ~np.isin(codes, changed_codes)
        tk = codes % cols

        def near_changed(di: int, dk: int) -> np.ndarray:
            """Whether each kept tile's neighbour (ti + di, tk + dk) changed."""
            return (tk + dk >= 0) & (tk + dk < cols) & np.isin(codes + di * cols + dk, changed_codes)

        same_share = same & ~near_changed(1, 0) & ~near_changed(0, 1)
        # A tile's rings read the portals of its polygons: its share and the shares of (ti - 1, tk), (ti, tk - 1).
        same_rings = same_share & ~near_changed(-1, 0) & ~near_changed(0, -1) & ~near_changed(-1, 1) \
            & ~near_changed(1, -1)
        # Counts per kept tile: polygons, corners, detail heights, portals (the unchanged tiles' from before).
        counts = np.empty((4, len(codes)), np.int64)
        old_counts = np.diff(old_first, axis=1)
        counts[:, same] = old_counts[:, at[same]]
        for j in np.flatnonzero(~same).tolist():
            part = fresh[self._tile(codes[j])][0]
            counts[0, j], counts[1, j], counts[2, j] = len(part.level), len(part.vertices), len(part.details)
        first = np.zeros((4, len(codes) + 1), np.int64)
        np.cumsum(counts[:3], axis=1, out=first[:3, 1:])
        # Old polygon -> new polygon, for the polygons of the tiles that stayed the same (read by their shares).
        shift = np.zeros(len(old_codes), np.int64)
        shift[at[same]] = first[0, :-1][same] - old_first[0, :-1][at[same]]
        renumber = np.repeat(shift, old_counts[0]) + np.arange(old_first[0, -1])
        shares = {}
        for j in np.flatnonzero(~same_share).tolist():
            shares[j] = self._share(self._tile(codes[j]), first[0], codes)
            counts[3, j] = len(shares[j][0])
        counts[3, same_share] = old_counts[3, at[same_share]]
        np.cumsum(counts[3], out=first[3, 1:])
        self._arrays, (self._area_type, *boxes_planes) = self._joined(codes, same, same_share, at, first, renumber,
                                                                       shares, fresh)
        self._boxes_planes = (boxes_planes[0], boxes_planes[1])
        portal_shift = np.zeros(len(old_codes), np.int64)
        portal_shift[at[same_share]] = first[3, :-1][same_share] - old_first[3, :-1][at[same_share]]
        renumber_portals = np.repeat(portal_shift, old_counts[3]) + np.arange(old_first[3, -1])
        self._ring_plan = RingPlan(same_rings, at, renumber, renumber_portals)
        self._generation += 1
        self._rings = {key: rings for key, rings in self._rings.items() if rings.generation == self._generation - 1}
        self._codes, self._first = codes, first

    def _tile(self, code: np.integer | int) -> Tile:
        """The tile (ti, tk) of a code."""
        return int(code) // self._tile_columns, int(code) % self._tile_columns

    def rings_for(self, index: NavIndex, allowed: np.ndarray | None = None) -> BoundaryRings | None:
        """The boundary rings of ``index`` (``paths.boundary_rings``), when it is the index of :attr:`arrays` (or
        its ``filtered_index`` allowing the polygons ``allowed``, all the polygons of some area types): the rings'
        pieces of the tiles whose polygons and portals stayed the same copied from the rings made after the
        change before (renumbered), the others' made anew (``paths.ring_pieces``), joined
        (``paths.ring_joins``); else None."""
        vertices, polygon_start, polygon_vertices, _, surface = index.polygons
        portals = self._arrays[4]
        if not _same_memory(polygon_start, self._arrays[1]):
            return None
        if allowed is None:
            if not _same_memory(index.portals, portals):
                return None
            key, kept_portals = b"", np.arange(len(portals))
        else:
            left_out = np.unique(self._area_type[~allowed])  # a filter leaves out area types
            if not np.array_equal(allowed, ~np.isin(self._area_type, left_out)):
                return None
            key = left_out.tobytes()
            kept_portals = np.flatnonzero(allowed[portals[:, 0]] & allowed[portals[:, 1]])
            if len(kept_portals) != len(index.portals):
                return None
        plan, old = self._ring_plan, self._rings.get(key)
        first = self._first[0]

        def made(q0: int, q1: int) -> tuple[np.ndarray, ...]:
            room = int(polygon_start[q1] - polygon_start[q0]) + 4 * int(index.links.link_start[q1]
                                                                        - index.links.link_start[q0])
            while True:
                pieces = _paths.ring_pieces(vertices, polygon_start, polygon_vertices, surface, index.portals,
                                            index.portal_segments, index.links.link_start, index.links.link_portal,
                                            q0, q1, room)
                if q1 == q0 or pieces[0][-1] >= 0:
                    return (np.diff(pieces[0], prepend=0),) + tuple(pieces[1:])
                room *= 2

        if old is None or plan is None or old.generation != self._generation - 1:
            parts = [made(0, len(polygon_start) - 1)]
        else:
            # Old portal (of those the index had) -> new one (-1: a share made anew, never read).
            new_place = np.full(len(portals) + 1, -1, np.int64)
            new_place[kept_portals] = np.arange(len(kept_portals))
            renumber_portals = new_place[np.clip(plan.renumber_portals[old.kept_portals], -1, len(portals))]
            parts = []
            for j0, j1 in _runs(plan.same, plan.at):
                if not plan.same[j0]:
                    parts.append(made(int(first[j0]), int(first[j1])))
                    continue
                o0, o1 = int(plan.at[j0]), int(plan.at[j1 - 1]) + 1
                q0, q1 = old.polygon_first[o0], old.polygon_first[o1]
                k0, k1 = old.ring_start[q0], old.ring_start[q1]
                across, portal = old.across[k0:k1], old.portal[k0:k1]
                parts.append((np.diff(old.ring_start[q0:q1 + 1]), old.xz[k0:k1], old.y[k0:k1],
                              np.where(across >= 0, plan.renumber[np.maximum(across, 0)], -1),
                              np.where(portal >= 0, renumber_portals[np.maximum(portal, 0)], -1)))
        counts, xz, y, across, portal = (np.concatenate([part[c] for part in parts]) for c in range(5))
        ring_start = np.zeros(len(counts) + 1, np.int64)
        np.cumsum(counts, out=ring_start[1:])
        self._rings[key] = RingPieces(self._generation, kept_portals, first.copy(), ring_start, xz.reshape(-1, 2), y,
                                      across, portal)
        ring_polygon = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
        ring_across = across.copy()
        twin, vertex, corner = _paths.ring_joins(ring_start, ring_polygon, ring_across, portal, index.portals)
        return BoundaryRings(ring_start, xz.reshape(-1, 2), y, ring_polygon, ring_across, twin, vertex, corner)

    def _share(self, tile: Tile, first: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The tile's share of the portals (:func:`tile_portals`), numbered as in the joined arrays (``first``:
        each kept tile's first polygon, ``codes``: the kept tiles' codes)."""
        parts = {t: self._parts[t] for t in (tile, (tile[0], tile[1] + 1), (tile[0] + 1, tile[1])) if t in self._parts}
        pairs, segments, which = tile_portals(tile, parts, self.nx, self.nz, self.levels, *self.grid)
        cols = self._tile_columns
        code = tile[0] * cols + tile[1]
        near = np.array([code, code + 1, code + cols], np.int64)
        starts = first[np.minimum(np.searchsorted(codes, near), len(codes) - 1)]
        pairs[:, 0] += starts[0]
        pairs[:, 1] += starts[which]
        return pairs, segments

    def _joined(self, codes: np.ndarray, same: np.ndarray, same_share: np.ndarray, at: np.ndarray, first: np.ndarray,
                renumber: np.ndarray, shares: dict[int, tuple[np.ndarray, np.ndarray]],
                fresh: dict[Tile, tuple[TileArrays, np.ndarray, np.ndarray, np.ndarray]]
                ) -> tuple[NavMeshArrays, list[np.ndarray]]:
        """The arrays of the kept tiles (``codes``): runs of tiles that stayed the same (``same``; tile j was tile
        ``at[j]`` before) copied from the arrays before, the others' polygons from their arrays in ``fresh``;
        portals likewise (``same_share``, else ``shares[j]``)."""
        vertices, polygon_start, _, level, portals, segments, origin, shape, details = self._arrays
        old_first = self._first
        pieces: list[list[np.ndarray]] = [[] for _ in range(9)]
        boxes, planes = self._boxes_planes
        for j0, j1 in _runs(same, at):
            if same[j0]:
                o0, o1 = int(at[j0]), int(at[j1 - 1]) + 1
                p0, p1 = old_first[0, o0], old_first[0, o1]
                c0, c1 = old_first[1, o0], old_first[1, o1]
                d0, d1 = old_first[2, o0], old_first[2, o1]
                for out, source in zip(pieces, (vertices[c0:c1], polygon_start[p0 + 1:p1 + 1] + (first[1, j0] - c0),
                                                level[p0:p1], origin[p0:p1], shape[p0:p1], details[d0:d1],
                                                self._area_type[p0:p1], boxes[p0:p1], planes[p0:p1])):
                    out.append(source)
                continue
            for j in range(j0, j1):
                part, area_type, part_boxes, part_planes = fresh[self._tile(codes[j])]
                for out, source in zip(pieces, (part.vertices, part.ends + first[1, j], part.level, part.origins,
                                                part.boxes[:, 2:], part.details, area_type, part_boxes,
                                                part_planes)):
                    out.append(source)
        portal_pieces: list[np.ndarray] = []
        segment_pieces: list[np.ndarray] = []
        for j0, j1 in _runs(same_share, at):
            if same_share[j0]:
                r0, r1 = old_first[3, int(at[j0])], old_first[3, int(at[j1 - 1]) + 1]
                portal_pieces.append(renumber[portals[r0:r1]])
                segment_pieces.append(segments[r0:r1])
                continue
            for j in range(j0, j1):
                portal_pieces.append(shares[j][0])
                segment_pieces.append(shares[j][1])
        if not len(codes):
            return _empty_arrays(), [np.empty(0, np.int64), np.empty((0, 6)), np.empty((0, 3))]
        joined = [np.concatenate(p) for n, p in enumerate(pieces) if n != 5]
        joined.insert(5, np.concatenate(pieces[5], out=self._detail_room(sum(len(p) for p in pieces[5]))))
        corners = int(first[1, -1])
        return (joined[0].reshape(-1, 3), np.concatenate([np.zeros(1, np.int64), joined[1]]).astype(np.int64),
                np.arange(corners, dtype=np.int64), joined[2].astype(np.int64),
                np.concatenate(portal_pieces).astype(np.int64).reshape(-1, 2),
                np.concatenate(segment_pieces).reshape(-1, 2, 3), joined[3].reshape(-1, 3),
                joined[4].astype(np.int64).reshape(-1, 2), joined[5]), \
            [joined[6].astype(np.int64), joined[7].reshape(-1, 6), joined[8].reshape(-1, 3)]


    def _detail_room(self, size: int) -> np.ndarray:
        """Room for ``size`` joined detail heights (float64): in the memory of an earlier change's when no array
        reads it any more (nothing holds a view of it: the navmesh, its index and its queries moved on to the
        arrays of a later change), else in memory of its own, kept for a later change (a quarter more than asked).
        The detail heights are most of a join's bytes (14 MiB of 17 on the 1 km world): fresh memory each time
        costs its page faults, and with numpy's advice of huge pages, now and then a compaction of tens of ms."""
        for buffer in self._detail_buffers:
            # References: the list's, this loop's and getrefcount's own; any view of it adds one.
            if len(buffer) >= size and sys.getrefcount(buffer) <= 3:
                return buffer[:size]
        buffer = np.empty(size + size // 4)
        # Kept: the one in use (the navmesh's now) and the new one.
        self._detail_buffers = [b for b in self._detail_buffers if sys.getrefcount(b) > 3][-1:] + [buffer]
        return buffer[:size]


def _tile_boxes(part: TileArrays) -> tuple[np.ndarray, np.ndarray]:
    """The :func:`~.index.polygon_boxes` of one tile's polygons (each polygon's are its own)."""
    shape = part.boxes[:, 2:]
    start = np.concatenate([[0], part.ends]).astype(np.int64)
    detail_start = np.concatenate([[0], np.cumsum(shape[:, 0] * shape[:, 1])]).astype(np.int64)
    return polygon_boxes(np.ascontiguousarray(part.vertices), start, np.arange(len(part.vertices), dtype=np.int64),
                         np.ascontiguousarray(shape), detail_start, np.ascontiguousarray(part.details))


def _same_memory(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays are views of the same memory, alike (an index's arrays are its navmesh's, reshaped)."""
    return a.shape == b.shape and a.dtype == b.dtype and (a.size == 0 or a.ctypes.data == b.ctypes.data)


def _runs(same: np.ndarray, at: np.ndarray) -> list[tuple[int, int]]:
    """The kept tiles cut into runs [j0, j1): tiles that stayed the same and were next to each other before (one
    copy each), and runs of the others."""
    n = len(same)
    if n == 0:
        return []
    breaks = np.flatnonzero((same[1:] != same[:-1]) | (same[1:] & (at[1:] != at[:-1] + 1))) + 1
    bounds = [0, *breaks.tolist(), n]
    return list(zip(bounds[:-1], bounds[1:]))


def _empty_arrays() -> NavMeshArrays:
    return (np.empty((0, 3)), np.zeros(1, np.int64), np.empty(0, np.int64), np.empty(0, np.int64),
            np.empty((0, 2), np.int64), np.empty((0, 2, 3)), np.empty((0, 3)), np.empty((0, 2), np.int64),
            np.empty(0))
