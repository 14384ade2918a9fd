"""Dual vertices of a chunk's cells and their octree simplification (the first meshing stage).

A :class:`ChunkSurface` holds, for the cells of one chunk, one vertex per surface patch (see
:mod:`.tables`) with its position, normal, two materials and quadric, and after :func:`simplify_surface` the
merged vertices and each vertex's representative. :func:`dual_vertices` is the public view of the same data.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, MutableMapping
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from ..terrain import Volume
from . import _kernels, tables
from ._kernels.arguments import ChunkCells, MergeRule, SimplifyTables, VertexArrays
from .scratch import buffer

__all__ = ["ChunkSurface", "DualVertices", "chunk_surface", "empty_surface", "simplify_surface", "dual_vertices",
           "packed_cells", "prepacked"]

_NO_QEF = np.empty((0, _kernels.QEF_COLUMNS))
SIMPLIFY_TABLES = SimplifyTables(tables.PATCH_COUNT, tables.ONE_PATCH_FACES, tables.LATTICE_CORNERS)


@dataclass(frozen=True)
class ChunkSurface:
    """The vertices of the cells ``cell_lo .. cell_lo + cell_case.shape - 1`` (sample coordinates)."""

    cell_lo: np.ndarray  # (3,) int64: the first cell
    cell_case: np.ndarray  # uint16 per cell: sign mask (bit b: corner b solid) | flipped faces << 8 (tables)
    cell_first: np.ndarray  # int32 per cell: index of its first vertex; meaningless where the case has none
    surface_cells: np.ndarray  # (m, 3) int64: local index of each cell that has a vertex, in vertex order
    positions: np.ndarray  # (n, 3) float64, sample coordinates
    normals: np.ndarray  # (n, 3) float64, unit, outward
    materials: np.ndarray  # (n, 2) uint8: the two materials of highest evaluation value (0: none)
    evaluations: np.ndarray  # (n, 2) float64: their evaluation values
    qef: np.ndarray  # (n, 14) float64: quadric of each vertex (see _kernels)
    rep: np.ndarray  # (n,) int64: the vertex that stands for each vertex in the mesh (itself if not merged)
    # Whether simplification may have dropped features (simplify_surface's drop_features): the display mesh then
    # loses the back-to-back triangle pairs (flaps) such merges leave.
    drops_features: bool = False

    @property
    def vertex_count(self) -> int:
        return len(self.positions)


def chunk_surface(density: np.ndarray, mat_a: np.ndarray, mat_b: np.ndarray, mix: np.ndarray, iso: int,
                  cell_lo: ArrayLike, cell_hi: ArrayLike, sharp: bool, planes: bool = True,
                  offset: ArrayLike = (0, 0, 0), quadrics: bool = True, scratch: bool = False) -> ChunkSurface:
    """The dual vertices of cells ``cell_lo .. cell_hi - 1`` (each cell needs samples up to ``cell + 1``).
    Without ``planes`` (and ``sharp``) the quadrics hold only the mass points: enough when nothing is merged.
    Without ``quadrics`` the surface keeps none (``qef`` has no rows): for a surface that is never simplified,
    whose quadrics would only be written and thrown away (a volume meshed whole and unsimplified). With
    ``scratch`` its vertex arrays are this thread's scratch, valid until the thread's next such surface: for a
    surface simplified at once and then let go (:func:`simplify_surface` copies what it keeps).
    The field arrays hold the volume's samples from ``offset`` on: the whole volume, or a window of it that reaches
    one sample below the cells and two above (their gradients) where the volume goes on, and ends where it does.
    Cells and positions are the volume's, whatever the window."""
    offset = np.asarray(offset, dtype=np.int64)
    lo = np.asarray(cell_lo, dtype=np.int64) - offset
    hi = np.asarray(cell_hi, dtype=np.int64) - offset
    dims = tuple(int(n) for n in np.maximum(hi - lo, 0))
    cell_case = np.empty(dims, dtype=np.uint16)
    cell_first = np.empty(dims, dtype=np.int32)  # a chunk's vertices number far fewer than 2**31
    surface_cells = buffer("surface_cells", cell_case.size, 3, np.int16)
    counts = np.empty(2, dtype=np.int64)
    _kernels.cell_cases(density, iso, lo, hi, tables.PATCH_COUNT, tables.ONE_PATCH_FACES, cell_case, cell_first,
                        surface_cells, counts)
    n, surface_cells = int(counts[0]), surface_cells[:counts[1]].astype(np.int64)
    if n == 0 and cell_case.size:  # no crossing: every cell is all solid or all empty alike (they touch)
        return empty_surface(lo + offset, hi + offset, bool(cell_case.flat[0] == 255))
    # Scratch arrays are this thread's, reused (fresh ones cost a page fault for every page first written).
    if scratch:
        positions, normals = buffer("raw_positions", n, 3, np.float64), buffer("raw_normals", n, 3, np.float64)
        materials = buffer("raw_materials", n, 2, np.uint8)
        evaluations = buffer("raw_evaluations", n, 2, np.float64)
    else:
        positions, normals = np.empty((n, 3)), np.empty((n, 3))
        materials, evaluations = np.empty((n, 2), dtype=np.uint8), np.empty((n, 2))
    # Without quadrics kept, the kernel's are written to scratch too.
    qef = buffer("raw_qef", n, _kernels.QEF_COLUMNS, np.float64) if scratch or not quadrics \
        else np.empty((n, _kernels.QEF_COLUMNS))
    _kernels.cell_vertices(density, mat_a, mat_b, mix, iso, lo, hi, offset, sharp, planes, tables.PATCH_COUNT,
                           tables.EDGE_PATCH,
                           tables.EDGE_CORNERS, tables.EDGE_AXIS, cell_case, cell_first, surface_cells, positions,
                           normals, materials, evaluations, qef)
    return ChunkSurface(lo + offset, cell_case, cell_first, surface_cells, positions, normals, materials,
                        evaluations, qef if quadrics else _NO_QEF, np.arange(n, dtype=np.int64))


def empty_surface(cell_lo: ArrayLike, cell_hi: ArrayLike, solid: bool) -> ChunkSurface:
    """The surface of cells ``cell_lo .. cell_hi - 1`` whose samples are all solid (``solid``) or all empty: no
    vertex, every cell's case 255 or 0, as :func:`chunk_surface` would find; its per-cell arrays take no memory
    (read-only broadcasts), which is what lets a large world keep its buried and airborne chunks for free."""
    lo = np.asarray(cell_lo, dtype=np.int64)
    dims = tuple(int(n) for n in np.maximum(np.asarray(cell_hi, dtype=np.int64) - lo, 0))
    return ChunkSurface(lo, np.broadcast_to(np.uint16(255 if solid else 0), dims),
                        np.broadcast_to(np.int32(0), dims), np.empty((0, 3), dtype=np.int64), np.empty((0, 3)),
                        np.empty((0, 3)), np.empty((0, 2), dtype=np.uint8), np.empty((0, 2)),
                        np.empty((0, _kernels.QEF_COLUMNS)), np.empty(0, dtype=np.int64))


def simplify_surface(surface: ChunkSurface, density: np.ndarray | None, iso: int, levels: int, tolerance: float,
                     kind_by_id: np.ndarray, collision: bool = False, floor: int = 0,
                     offset: ArrayLike = (0, 0, 0), drop_features: bool = False) -> ChunkSurface:
    """``surface`` with its cells' vertices merged by the octree, ``levels`` deep, within ``tolerance``
    (samples); merged vertices are appended and ``rep`` points every vertex at its representative. For a
    ``collision`` mesh only each vertex's leading material counts towards the two kinds a merge may hold.
    ``floor`` (a level of detail, 0..5) merges at levels 1..floor whatever the shape error, wherever the
    topology and the two kinds allow, and simplifies at least that deep: ``max(levels, floor)`` levels. With
    ``drop_features`` the levels 1..floor also waive the topology test, the two kinds and the one vertex per
    cell (a far level of detail: thin walls, tunnels and strata may vanish; merges still stay within the chunk,
    so chunks meet without cracks, but the surface may pinch and fold into back-to-back triangle pairs, which the
    display mesh drops); the result says so in ``drops_features``.
    ``density`` holds the volume's samples from ``offset`` on: the whole volume, or a window reaching past the
    cells by the surface test's reach (the tolerance) and two samples, and to the volume's sides where it ends."""
    n = surface.vertex_count
    levels = max(levels, floor)
    if levels == 0 or n == 0:
        return surface
    dims = np.array(surface.cell_case.shape, dtype=np.int64)
    # At most one merged vertex per octree node of each level.
    capacity = n + sum(math.prod(-(-int(d) // 2 ** level) for d in surface.cell_case.shape)
                       for level in range(1, levels + 1))
    positions = np.empty((capacity, 3))
    normals = np.empty((capacity, 3))
    materials = np.empty((capacity, 2), dtype=np.uint8)
    evaluations = np.empty((capacity, 2))
    qef = np.empty((capacity, _kernels.QEF_COLUMNS))
    positions[:n], normals[:n], materials[:n] = surface.positions, surface.normals, surface.materials
    evaluations[:n], qef[:n] = surface.evaluations, surface.qef
    parent = np.empty(capacity, dtype=np.int64)
    cells = ChunkCells(surface.cell_lo, dims, surface.cell_case, surface.cell_first, surface.surface_cells)
    rule = MergeRule(levels, float(tolerance), 1 if collision else 2, kind_by_id, int(floor),
                     int(floor) if drop_features else 0)
    # None only where nothing merges (levels 0 or no vertex: returned above).
    total = _kernels.simplify(cast(np.ndarray, density), np.asarray(offset, dtype=np.int64), iso, cells,
                              VertexArrays(positions, normals, materials, evaluations, qef), n,
                              parent, rule, SIMPLIFY_TABLES)
    return ChunkSurface(surface.cell_lo, surface.cell_case, surface.cell_first, surface.surface_cells,
                        positions[:total],
                        normals[:total], materials[:total], evaluations[:total], qef[:total], parent[:total],
                        bool(drop_features and floor > 0))


@dataclass(frozen=True)
class DualVertices:
    """The unsimplified dual vertices of a volume: one per surface patch of each cell, in world coordinates.

    ``blend`` is the share of ``mat_b`` in the vertex's two materials (``mat_b`` 0: only ``mat_a``)."""

    positions: np.ndarray  # (n, 3) float64, metres
    normals: np.ndarray  # (n, 3) float64, unit, pointing out of the solid
    mat_a: np.ndarray  # (n,) uint8
    mat_b: np.ndarray  # (n,) uint8
    blend: np.ndarray  # (n,) float64 in [0, 1]
    cells: np.ndarray  # (n, 3) int64: the cell each vertex belongs to


def dual_vertices(volume: Volume, sharp: bool = False) -> DualVertices:
    """Every dual vertex of ``volume`` (a :class:`voxelworld.terrain.VoxelVolume`, or a SparseVolume small enough
    to gather at once), unsimplified.

    Examples
    --------
    >>> from voxelworld.terrain import VoxelVolume
    >>> ball = VoxelVolume.from_sdf(lambda x, y, z: np.sqrt((x - 8) ** 2 + (y - 8) ** 2 + (z - 8) ** 2) - 5,
    ...                             (17, 17, 17), material="rock")
    >>> vertices = dual_vertices(ball)
    >>> radii = np.linalg.norm(vertices.positions - 8.0, axis=1)
    >>> bool(np.all(np.abs(radii - 5.0) < 0.1))
    True
    """
    if not isinstance(sharp, bool):
        from ..errors import ParameterError
        raise ParameterError("sharp", sharp, "True or False")
    f = volume.read_window((0, 0, 0), volume.shape, ("density", "mat_a", "mat_b", "mix"))
    surface = chunk_surface(f["density"], f["mat_a"], f["mat_b"], f["mix"], volume.iso, (0, 0, 0),
                            np.maximum(np.array(volume.shape) - 1, 0), sharp, planes=False)
    totals = surface.evaluations.sum(axis=1)
    blend = np.divide(surface.evaluations[:, 1], totals, out=np.zeros(len(totals)), where=totals > 0)
    cells = np.repeat(surface.surface_cells + surface.cell_lo,
                      tables.PATCH_COUNT[surface.cell_case[tuple(surface.surface_cells.T)]], axis=0)
    return DualVertices(volume.origin + surface.positions * volume.voxel_size, surface.normals,
                        surface.materials[:, 0].copy(), surface.materials[:, 1].copy(), blend, cells)


@dataclass(frozen=True)
class _PackedSurface:
    """A :class:`ChunkSurface` with vertices, its per-cell arrays kept only where they mean something: the cases
    and first vertices of the surface cells, and one bit a cell for the others (all solid, case 255, or all empty,
    0). About 8 KiB for a 32³ chunk's cells instead of 192. Its vertices' data is kept for the representatives
    alone (what a mesh reads: the vertex standing for each patch), and its surface cells as int16: a far chunk's
    surface, a few representatives for a thousand cell vertices, takes about a sixth of its unpacked size."""

    surface: ChunkSurface  # cell_case, cell_first and the vertex arrays: empty placeholders
    shape: tuple[int, ...]
    solid: np.ndarray  # np.packbits of cell_case == 255
    case_at: np.ndarray  # cell_case at surface_cells
    first_at: np.ndarray  # cell_first at surface_cells
    cells: np.ndarray  # (m, 3): surface_cells (int16 where the representatives are kept alone)
    standing: np.ndarray | None  # int32 per vertex: the row of its representative below (None: every vertex's row)
    reps: np.ndarray  # int64 per representative: its vertex index (rep's values, ascending)
    positions: np.ndarray  # the representatives' rows of the vertex arrays
    normals: np.ndarray
    materials: np.ndarray
    evaluations: np.ndarray
    qef: np.ndarray


_NO_CELLS = np.empty((0, 0, 0), dtype=np.uint16)
_NO_ROWS = np.empty((0, 3))


def _pack(surface: ChunkSurface) -> ChunkSurface | _PackedSurface:
    if surface.vertex_count == 0:
        return surface  # an empty surface's cell arrays are broadcasts already
    packed = packed_cells(surface)
    if packed is not None:
        return packed  # read from a PackedSurfaces and not unpacked since: packed already
    s = surface
    bare = ChunkSurface(s.cell_lo, _NO_CELLS, _NO_CELLS, _NO_ROWS, _NO_ROWS, _NO_ROWS, _NO_ROWS, _NO_ROWS, _NO_ROWS,
                        _NO_ROWS, s.drops_features)
    m = len(s.surface_cells)
    solid, case_at, first_at = np.empty((s.cell_case.size + 7) // 8, dtype=np.uint8), np.empty(m, dtype=np.uint16), \
        np.empty(m, dtype=np.int32)
    _kernels.pack_cells(np.ascontiguousarray(s.cell_case), np.ascontiguousarray(s.cell_first), s.surface_cells,
                        solid, case_at, first_at)
    reps, standing = np.unique(s.rep, return_inverse=True)
    if 2 * len(reps) > len(s.rep):
        # Most vertices stand for themselves (a near chunk's): kept whole, in arrays of their own size
        # (simplification writes into room for every octree node), read back as they are.
        return _PackedSurface(bare, s.cell_case.shape, solid, case_at, first_at, s.surface_cells.copy(), None,
                              s.rep.copy(), s.positions.copy(), s.normals.copy(), s.materials.copy(),
                              s.evaluations.copy(), s.qef.copy())
    keep = s.qef[reps] if len(s.qef) else s.qef
    return _PackedSurface(bare, s.cell_case.shape, solid, case_at, first_at, s.surface_cells.astype(np.int16),
                          standing.astype(np.int32), reps, s.positions[reps], s.normals[reps], s.materials[reps],
                          s.evaluations[reps], keep)


def prepacked(surface: ChunkSurface) -> ChunkSurface:
    """``surface`` packed now as :class:`PackedSurfaces` keeps it (the same surface, read as one from there): storing
    it there later costs nothing more. A background thread's surfaces are packed so, not the thread installing them."""
    return _unpack(_pack(surface))


class _UnpackedOnRead(ChunkSurface):
    """A :class:`ChunkSurface` read from :class:`PackedSurfaces`: its per-cell arrays (``cell_case``,
    ``cell_first``) are unpacked when first read; until then :func:`packed_cells` gives the packed form (what a
    mesh's assembly reads: the surface cells' cases and first vertices)."""

    # Only called for attributes not set: the two cell arrays until unpacked.
    def __getattr__(self, name: str) -> np.ndarray:
        if name not in ("cell_case", "cell_first"):
            raise AttributeError(name)
        packed = self.__dict__.get("_packed")
        if packed is None:  # unpacked meanwhile (by another thread reading the same surface): the arrays are set
            return self.__dict__[name]
        case = np.empty(packed.shape, dtype=np.uint16)
        first = np.empty(packed.shape, dtype=np.int32)
        _kernels.unpack_cells(packed.solid, self.__dict__["surface_cells"], packed.case_at, packed.first_at, case,
                              first)
        # Both arrays set before the packed form goes: a reader sees one or the other, never neither.
        object.__setattr__(self, "cell_case", case)
        object.__setattr__(self, "cell_first", first)
        object.__setattr__(self, "_packed", None)
        return case if name == "cell_case" else first


def packed_cells(surface: ChunkSurface) -> _PackedSurface | None:
    """The packed form of ``surface`` (its cases and first vertices at its surface cells, and the cells' shape)
    when it was read from :class:`PackedSurfaces` and its per-cell arrays were not unpacked since; else None."""
    return surface.__dict__.get("_packed")


def _unpack(packed: ChunkSurface | _PackedSurface) -> ChunkSurface:
    if isinstance(packed, ChunkSurface):
        return packed
    # Built directly: the dataclass's __init__ costs more than setting the fields, and a mesh reads up to eight.
    surface = object.__new__(_UnpackedOnRead)
    fields = surface.__dict__
    fields.update(packed.surface.__dict__)
    del fields["cell_case"], fields["cell_first"]
    # Every vertex reads its representative's data (only a representative's is ever read: a mesh's quads join the
    # vertices standing for their cells' patches), so the surface meshes as the one packed did, bit for bit.
    standing = packed.standing
    if standing is None:
        fields["surface_cells"], fields["rep"], fields["positions"] = packed.cells, packed.reps, packed.positions
        fields["normals"], fields["materials"] = packed.normals, packed.materials
        fields["evaluations"], fields["qef"], fields["_packed"] = packed.evaluations, packed.qef, packed
        return surface
    fields["surface_cells"] = packed.cells.astype(np.int64)
    fields["rep"] = packed.reps[standing]
    fields["positions"], fields["normals"] = packed.positions[standing], packed.normals[standing]
    fields["materials"], fields["evaluations"] = packed.materials[standing], packed.evaluations[standing]
    fields["qef"] = packed.qef[standing] if len(packed.qef) else packed.qef
    fields["_packed"] = packed
    return surface


class PackedSurfaces(MutableMapping[tuple, ChunkSurface]):
    """Chunk -> :class:`ChunkSurface`, each kept packed (its cell arrays only at its surface cells) and handed out
    whole: what a mesher keeps of the display surfaces of every chunk in view. Reading a surface unpacks it (the
    cases off the surface are 0 or 255; the first vertex of a cell without one reads 0, and means nothing)."""

    def __init__(self) -> None:
        self._packed: dict[tuple, ChunkSurface | _PackedSurface] = {}

    def __getitem__(self, chunk: tuple) -> ChunkSurface:
        return _unpack(self._packed[chunk])

    def __setitem__(self, chunk: tuple, surface: ChunkSurface) -> None:
        self._packed[chunk] = _pack(surface)

    def __delitem__(self, chunk: tuple) -> None:
        del self._packed[chunk]

    def __contains__(self, chunk: object) -> bool:
        return chunk in self._packed

    def __iter__(self) -> Iterator[tuple]:
        return iter(self._packed)

    def __len__(self) -> int:
        return len(self._packed)

    def copy(self, chunks: Iterable[tuple] | None = None) -> PackedSurfaces:
        """A mapping of the same surfaces (shared: they are never changed), for a reader on another thread: all,
        or those of ``chunks`` (the others left out); nothing is unpacked."""
        twin = PackedSurfaces()
        packed = self._packed
        twin._packed = dict(packed) if chunks is None else {c: packed[c] for c in chunks if c in packed}
        return twin
