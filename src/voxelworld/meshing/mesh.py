"""The meshes a game draws and collides with, and how one chunk's mesh is assembled (the second stage).

A chunk's mesh has a quad around every sign-changing sample edge that starts in the chunk. The quad's four
cells may lie in the chunk or in its lower neighbours (-1 on an axis), whose vertices (after *their*
simplification) are copied in, so the meshes of neighbouring chunks meet exactly: the surface is closed
across chunk borders.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import product
from typing import Literal, cast, overload

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError
from ..frame_first import step_aside
from ..terrain import Volume
from . import _kernels, tables
from ._kernels.arguments import BlockCells, BlockVertices, QuadOutput, QuadTables
from .scratch import buffer
from .surface import ChunkSurface, packed_cells

__all__ = ["DisplayMesh", "CollisionMesh", "merge_display_meshes", "merge_collision_meshes", "vertex_occlusion",
           "with_occlusion", "chunk_cells", "assemble_block", "assemble_chunk"]

QUAD_TABLES = QuadTables(tables.EDGE_PATCH, tables.EDGE_FROM_CORNER_AXIS)


@dataclass(frozen=True)
class DisplayMesh:
    """A triangle mesh to draw: per vertex two materials and the blend between them, and its ambient occlusion.

    Every triangle's three vertices carry the same pair (``mat_a`` < ``mat_b``, or ``mat_b`` 0 for one
    material), so a triangle never shows more than two materials; ``blend`` is the share of ``mat_b``.
    ``occlusion`` is how open the vertex is to ambient light (glTF's convention: 1 fully open, lower where
    solid voxels surround it, as on a pit's floor; see :func:`vertex_occlusion`); renderers multiply the
    ambient and sky light by it. Left out, it is 1 everywhere. Triangles wind counter-clockwise seen from
    outside the solid.
    """

    positions: np.ndarray  # (n, 3) float32, metres
    normals: np.ndarray  # (n, 3) float32, unit, outward
    indices: np.ndarray  # (m, 3) uint32
    mat_a: np.ndarray  # (n,) uint8
    mat_b: np.ndarray  # (n,) uint8
    blend: np.ndarray  # (n,) float32 in [0, 1]
    occlusion: np.ndarray | None = None  # (n,) float32 in [0, 1], 1 = open; None: all 1

    def __post_init__(self) -> None:
        if self.occlusion is None:
            object.__setattr__(self, "occlusion", np.ones(len(self.positions), dtype=np.float32))

    @property
    def triangle_count(self) -> int:
        return len(self.indices)

    @staticmethod
    def empty() -> DisplayMesh:
        return DisplayMesh(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32), np.zeros((0, 3), np.uint32),
                           np.zeros(0, np.uint8), np.zeros(0, np.uint8), np.zeros(0, np.float32),
                           np.zeros(0, np.float32))


@dataclass(frozen=True)
class CollisionMesh:
    """A triangle mesh to collide with: exactly one material per triangle (``tri_material``)."""

    positions: np.ndarray  # (n, 3) float32, metres
    indices: np.ndarray  # (m, 3) uint32
    tri_material: np.ndarray  # (m,) uint8

    @property
    def triangle_count(self) -> int:
        return len(self.indices)

    @staticmethod
    def empty() -> CollisionMesh:
        return CollisionMesh(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.uint32), np.zeros(0, np.uint8))


def _offset_indices(meshes: Sequence) -> np.ndarray:
    """The meshes' triangles in one array, each mesh's indices moved past the vertices of those before it."""
    out = np.empty((sum(len(m.indices) for m in meshes), 3), dtype=np.uint32)
    row = vertex = 0
    for m in meshes:
        np.add(m.indices, np.uint32(vertex), out=out[row:row + len(m.indices)])
        row += len(m.indices)
        vertex += len(m.positions)
    return out


def merge_display_meshes(meshes: Sequence[DisplayMesh]) -> DisplayMesh:
    """One mesh holding all of ``meshes`` (vertices are not welded)."""
    meshes = [m for m in meshes if m.triangle_count]
    if not meshes:
        return DisplayMesh.empty()
    return DisplayMesh(np.concatenate([m.positions for m in meshes]), np.concatenate([m.normals for m in meshes]),
                       _offset_indices(meshes),
                       np.concatenate([m.mat_a for m in meshes]), np.concatenate([m.mat_b for m in meshes]),
                       np.concatenate([m.blend for m in meshes]), np.concatenate([m.occlusion for m in meshes]))


def vertex_occlusion(density: np.ndarray, iso: int, positions: np.ndarray, normals: np.ndarray, origin: ArrayLike,
                     voxel_size: float, offset: ArrayLike = (0, 0, 0)) -> np.ndarray:
    """How open each vertex is to ambient light, float32 (n,) in [0, 1]: the share of open samples (trilinear
    ``density`` below ``iso``) at 1, 2, 3 and 4.5 voxel edges along seven rays over the hemisphere of the vertex's
    normal (the normal and six at 55 degrees from it). 1 on open ground, lower in a pit, a tunnel or a corner.
    ``positions`` (metres) and unit ``normals`` (n, 3); ``origin`` and ``voxel_size`` place the density's
    samples; ``density``'s element [0, 0, 0] is sample ``offset`` (a window of a larger volume). Samples past the
    array's side read its nearest sample, as the mesher does.

    Examples
    --------
    >>> ground = np.zeros((9, 9, 9), np.uint8); ground[:, :5] = 255  # solid up to y = 4
    >>> pit = ground.copy(); pit[3:6, 2:5, 3:6] = 0  # a pit 3 samples wide and deep
    >>> up = np.float32([[0, 1, 0]])
    >>> open_ground = vertex_occlusion(ground, 128, np.float32([[4, 4.5, 4]]), up, (0, 0, 0), 1.0)
    >>> pit_floor = vertex_occlusion(pit, 128, np.float32([[4, 1.5, 4]]), up, (0, 0, 0), 1.0)
    >>> float(open_ground[0]), bool(pit_floor[0] < 0.8)
    (1.0, True)
    """
    density = np.ascontiguousarray(density)
    if density.size >= 2 ** 31:
        raise ParameterError("density", f"{density.size} samples", "fewer than 2**31 samples (a window of them)")
    out = np.empty(len(positions), dtype=np.float32)
    _kernels.vertex_occlusion(density, np.asarray(offset, dtype=np.int64), float(iso),
                              np.ascontiguousarray(positions, dtype=np.float32),
                              np.ascontiguousarray(normals, dtype=np.float32),
                              np.asarray(origin, dtype=np.float64), float(voxel_size), _kernels.OCCLUSION_RAYS,
                              _kernels.OCCLUSION_STEPS, _cell_kinds(density, float(iso), len(positions)), out)
    return out


# Classifying a window's cells costs about what interpolating at this many of them does: fewer rays' points than
# cells / CLASSIFY_SHARE (a few vertices in a chunk's window) interpolate everywhere.
CLASSIFY_SHARE = 8
_UNCLASSIFIED = np.zeros((0, 0, 0), dtype=np.uint8)


def _cell_kinds(density: np.ndarray, iso: float, vertices: int) -> np.ndarray:
    """The kinds of the cells of ``density`` (:func:`_kernels.cell_kinds`, in this thread's scratch: an array of
    the density's shape), or none where classifying would cost more than it spares ``vertices`` vertices."""
    cells = tuple(int(n) - 1 for n in density.shape)
    points = vertices * len(_kernels.OCCLUSION_RAYS) * len(_kernels.OCCLUSION_STEPS)
    if min(cells) < 1 or points * CLASSIFY_SHARE < np.prod(cells):
        return _UNCLASSIFIED
    kinds = buffer("occlusion_kinds", int(density.size), 0, np.uint8).reshape(density.shape)
    _kernels.cell_kinds(density, iso, kinds)
    return kinds


# Samples the occlusion rays read around a vertex: their reach, and one sample more, interpolating.
OCCLUSION_REACH = float(_kernels.OCCLUSION_STEPS.max()) + 1.0


def _occlusion(fields: Volume, volume: Volume, positions: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """:func:`vertex_occlusion` of vertices of ``volume`` (metres), reading the density of ``fields`` (a
    :class:`~voxelworld.terrain.Volume` of the volume's geometry) in the window the rays can reach."""
    box = np.empty(6)
    _kernels.vertex_box(positions, np.asarray(volume.origin, dtype=np.float64), float(volume.voxel_size), box)
    # In Python numbers: numpy on three numbers costs more than the arithmetic.
    least, most = box.tolist()[:3], box.tolist()[3:]
    lo: list[int] | np.ndarray = [min(max(math.floor(a - OCCLUSION_REACH) - 1, 0), int(n))
                                  for a, n in zip(least, volume.shape)]
    hi = np.array([min(max(math.ceil(b + OCCLUSION_REACH) + 2, a), int(n))
                   for a, b, n in zip(lo, most, volume.shape)], dtype=np.int64)
    lo = np.array(lo, dtype=np.int64)
    # A compact copy: the rays read the window all over, and a view into a larger volume made them three times
    # slower (measured on the 128³ noise field's blocks); copying costs a few percent of that.
    density = np.ascontiguousarray(fields.read_window(lo, hi, ("density",))["density"])
    return vertex_occlusion(density, volume.iso, positions, normals, volume.origin, volume.voxel_size, lo)


def with_occlusion(mesh: DisplayMesh, fields: Volume, volume: Volume,
                   changed: Sequence[tuple[ArrayLike, ArrayLike]] | None = None) -> DisplayMesh:
    """``mesh`` (of ``volume``'s chunks) with its occlusion computed from the density of ``fields`` (a
    :class:`~voxelworld.terrain.Volume` of the volume's geometry: the volume, or a mesher's copy of what it saw);
    with ``changed`` (inclusive sample boxes ``(lo, hi)`` where the density changed since ``mesh``'s occlusion was
    computed), only the vertices whose rays reach into one of them (the rest read what they read before)."""
    if not len(mesh.positions):
        return mesh
    if changed is None:
        return replace(mesh, occlusion=_occlusion(fields, volume, mesh.positions, mesh.normals))
    local = (mesh.positions.astype(np.float64) - volume.origin) / volume.voxel_size
    near = np.zeros(len(local), dtype=bool)
    for lo, hi in changed:
        near |= np.all((local >= np.asarray(lo) - OCCLUSION_REACH) & (local <= np.asarray(hi) + OCCLUSION_REACH),
                       axis=1)
    if not near.any():
        return mesh
    occlusion = cast(np.ndarray, mesh.occlusion).copy()  # never None once made (__post_init__)
    occlusion[near] = _occlusion(fields, volume, mesh.positions[near], mesh.normals[near])
    return replace(mesh, occlusion=occlusion)


def merge_collision_meshes(meshes: Sequence[CollisionMesh]) -> CollisionMesh:
    """One mesh holding all of ``meshes`` (vertices are not welded)."""
    meshes = [m for m in meshes if m.triangle_count]
    if not meshes:
        return CollisionMesh.empty()
    return CollisionMesh(np.concatenate([m.positions for m in meshes]),
                         _offset_indices(meshes),
                         np.concatenate([m.tri_material for m in meshes]))


def chunk_cells(shape: Sequence[int], chunk_size: int, chunk: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The cells ``lo .. hi - 1`` of ``chunk`` in a volume of ``shape`` samples (a cell needs its +1 samples)."""
    # In Python integers (a mesh asks up to three times; numpy on three numbers costs more than the arithmetic).
    lo = [int(c) * int(chunk_size) for c in chunk]
    hi = [max(min(a + int(chunk_size), int(n) - 1), a) for a, n in zip(lo, shape)]
    return np.array(lo, dtype=np.int64), np.array(hi, dtype=np.int64)


@overload
def assemble_block(volume: Volume, first: Sequence[int], last: Sequence[int],
                   surface_of: Callable[[tuple], ChunkSurface | None], collision: Literal[True],
                   size: int | None = None, fields: Volume | None = None) -> CollisionMesh: ...
@overload
def assemble_block(volume: Volume, first: Sequence[int], last: Sequence[int],
                   surface_of: Callable[[tuple], ChunkSurface | None], collision: Literal[False],
                   size: int | None = None, fields: Volume | None = None) -> DisplayMesh: ...
@overload
def assemble_block(volume: Volume, first: Sequence[int], last: Sequence[int],
                   surface_of: Callable[[tuple], ChunkSurface | None], collision: bool,
                   size: int | None = None, fields: Volume | None = None) -> DisplayMesh | CollisionMesh: ...
def assemble_block(volume: Volume, first: Sequence[int], last: Sequence[int],
                   surface_of: Callable[[tuple], ChunkSurface | None], collision: bool,
                   size: int | None = None, fields: Volume | None = None) -> DisplayMesh | CollisionMesh:
    """The mesh of the chunks ``first .. last`` (inclusive corners of a box of chunks of ``size`` cells, the
    volume's chunk size by default): quads around the sign-changing edges that start in them, through the
    vertices of their own surfaces and of the lower neighbours' (``surface_of(chunk)`` gives each chunk's
    simplified surface). A display mesh's occlusion is read from the density of ``fields`` (a Volume of the same
    geometry; the volume itself by default: give the fields the surfaces were made from)."""
    step_aside()  # (on a background thread while a frame runs: voxelworld.frame_first)
    size = volume.chunk_size if size is None else size
    empty = CollisionMesh.empty if collision else DisplayMesh.empty
    lo, _ = chunk_cells(volume.shape, size, first)
    _, hi = chunk_cells(volume.shape, size, last)
    dims = hi - lo
    if np.any(dims <= 0):
        return empty()
    # The block's own surfaces first: where no own cell crosses the surface no quad starts here, and the lower
    # neighbours' surfaces (dear to make where they are not kept) are not asked for.
    owned = {chunk: surface_of(chunk) for chunk in product(*(range(a, b + 1) for a, b in zip(first, last)))}
    if not any(surface is not None and surface.vertex_count for surface in owned.values()):
        return empty()
    gathered = []  # (surface, is it one of the block's own chunks)
    for chunk in product(*(range(max(a - 1, 0), b + 1) for a, b in zip(first, last))):
        surface = owned[chunk] if chunk in owned else surface_of(chunk)
        if surface is not None and surface.vertex_count:
            gathered.append((surface, chunk in owned))
    # Only the cells a quad can ask for are filled: the surface cells (every cell around a crossing edge has a
    # vertex) and, as "no cell", the layer below the block where it lies outside the volume.
    ext_first = np.empty(tuple(dims + 1), dtype=np.int64)
    ext_case = np.empty(tuple(dims + 1), dtype=np.uint16)
    ext_first[0], ext_first[:, 0], ext_first[:, :, 0] = -1, -1, -1
    capacity = sum(surface.vertex_count for surface, _ in gathered)
    positions, normals = buffer("positions", capacity, 3, np.float64), buffer("normals", capacity, 3, np.float64)
    materials, shares = buffer("materials", capacity, 2, np.uint8), buffer("shares", capacity, 2, np.float64)
    rep, source = buffer("rep", capacity, 0, np.int64), buffer("source", capacity, 0, np.int64)
    # All -1, and left so by gather_cells.
    index_of = buffer("index_of", max(surface.vertex_count for surface, _ in gathered), 0, np.int64, fill=-1)
    n = 0
    cells = []
    ext_lo = lo - 1
    for surface, own in gathered:
        packed = packed_cells(surface)  # a kept surface's cells are read packed, not unpacked first
        if packed is None:
            first_of, case_of = surface.cell_first, surface.cell_case
        else:
            first_of, case_of = packed.first_at.reshape(-1, 1, 1), packed.case_at.reshape(-1, 1, 1)
        n = _kernels.gather_cells(surface.surface_cells, surface.cell_lo, ext_lo, hi, first_of, case_of,
                                  packed is not None, surface.rep, surface.positions, surface.normals,
                                  surface.materials, surface.evaluations, tables.PATCH_COUNT, index_of, ext_first,
                                  ext_case, positions, normals, materials, shares, rep, source, n)
        if own:
            cells.append(surface.surface_cells + (surface.cell_lo - lo))
    surface_cells = np.concatenate(cells) if len(cells) > 1 else cells[0]
    # Each own cell starts at most three crossing edges, each a quad of two triangles.
    crossings = 3 * len(surface_cells)
    out_positions = buffer("out_positions", 6 * crossings, 3, np.float32)
    out_normals = buffer("out_normals", 6 * crossings, 3, np.float32)
    out_mat = buffer("out_mat", 6 * crossings, 2, np.uint8)
    out_blend = buffer("out_blend", 6 * crossings, 0, np.float32)
    out_triangles = buffer("out_triangles", 2 * crossings, 3, np.uint32)
    out_tri_material = buffer("out_tri_material", 2 * crossings, 0, np.uint8)
    head = buffer("head", n, 0, np.int64)
    head[:] = -1
    chain_next = buffer("chain_next", 6 * crossings, 0, np.int64)
    chain_code = buffer("chain_code", 6 * crossings, 0, np.int64)
    counts = np.zeros(2, dtype=np.int64)
    out_corners = buffer("out_corners", 2 * crossings, 3, np.int64)
    out = QuadOutput(out_positions, out_normals, out_mat, out_blend, out_triangles, out_tri_material, head,
                     chain_next, chain_code, counts, out_corners)
    block_cells = BlockCells(surface_cells, ext_first, ext_case)
    block_vertices = BlockVertices(rep[:n], positions[:n], normals[:n], materials[:n], shares[:n],
                                   buffer("world", n, 3, np.float32))
    _kernels.emit_quads(block_cells, block_vertices, volume.origin, volume.voxel_size, collision, out, QUAD_TABLES)
    n_vertices, n_triangles = int(counts[0]), int(counts[1])
    if collision:
        return CollisionMesh(out_positions[:n_vertices].copy(), out_triangles[:n_triangles].copy(),
                             out_tri_material[:n_triangles].copy())
    if any(surface.drops_features for surface, own in gathered if own):
        mesh = _without_flaps(out_positions, out_normals, out_mat, out_blend, out_triangles, out_corners,
                              n_vertices, n_triangles)
    else:
        mesh = DisplayMesh(out_positions[:n_vertices].copy(), out_normals[:n_vertices].copy(),
                           out_triangles[:n_triangles].copy(), out_mat[:n_vertices, 0].copy(),
                           out_mat[:n_vertices, 1].copy(), out_blend[:n_vertices].copy())
    return with_occlusion(mesh, volume if fields is None else fields, volume)


def _without_flaps(positions: np.ndarray, normals: np.ndarray, materials: np.ndarray, blend: np.ndarray,
                   triangles: np.ndarray, corners: np.ndarray, n_vertices: int, n_triangles: int) -> DisplayMesh:
    """The display mesh of the first ``n_vertices`` output vertices and ``n_triangles`` triangles (``corners``:
    their mesh vertices) without back-to-back triangle pairs (:func:`_kernels.drop_mirrored_twins`; a chunk
    whose simplification dropped features folds into them), and without the vertices only those used."""
    kept = _kernels.drop_mirrored_twins(corners, triangles, n_triangles)
    triangles = triangles[:kept]
    used = np.zeros(n_vertices, dtype=bool)
    used[triangles.reshape(-1)] = True
    index = np.cumsum(used, dtype=np.int64) - 1
    return DisplayMesh(positions[:n_vertices][used], normals[:n_vertices][used],
                       index[triangles].astype(np.uint32), materials[:n_vertices, 0][used],
                       materials[:n_vertices, 1][used], blend[:n_vertices][used])


@overload
def assemble_chunk(volume: Volume, chunk: Sequence[int], surface_of: Callable[[tuple], ChunkSurface | None],
                   collision: Literal[True], fields: Volume | None = None) -> CollisionMesh: ...
@overload
def assemble_chunk(volume: Volume, chunk: Sequence[int], surface_of: Callable[[tuple], ChunkSurface | None],
                   collision: Literal[False], fields: Volume | None = None) -> DisplayMesh: ...
def assemble_chunk(volume: Volume, chunk: Sequence[int], surface_of: Callable[[tuple], ChunkSurface | None],
                   collision: bool, fields: Volume | None = None) -> DisplayMesh | CollisionMesh:
    """The mesh of one chunk (see :func:`assemble_block`)."""
    return assemble_block(volume, chunk, chunk, surface_of, collision, fields=fields)
