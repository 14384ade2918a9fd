"""The meshes a game draws and collides with, and how one chunk's mesh is assembled (the second stage).

A chunk's mesh has a quad around every sign-changing sample edge that starts in the chunk. The quad's four
cells may lie in the chunk or in its lower neighbours (-1 on an axis), whose vertices (after *their*
simplification) are copied in, so the meshes of neighbouring chunks meet exactly: the surface is closed
across chunk borders.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from . import _kernels, tables
from .surface import ChunkSurface

__all__ = ["DisplayMesh", "CollisionMesh", "merge_display_meshes", "merge_collision_meshes", "chunk_cells",
           "assemble_chunk"]


@dataclass(frozen=True)
class DisplayMesh:
    """A triangle mesh to draw: per vertex two materials and the blend between them.

    Every triangle's three vertices carry the same pair (``mat_a`` < ``mat_b``, or ``mat_b`` 0 for one
    material), so a triangle never shows more than two materials; ``blend`` is the share of ``mat_b``.
    Triangles wind counter-clockwise seen from outside the solid.
    """

    positions: np.ndarray  # (n, 3) float32, metres
    normals: np.ndarray  # (n, 3) float32, unit, outward
    indices: np.ndarray  # (m, 3) uint32
    mat_a: np.ndarray  # (n,) uint8
    mat_b: np.ndarray  # (n,) uint8
    blend: np.ndarray  # (n,) float32 in [0, 1]

    @property
    def triangle_count(self) -> int:
        return len(self.indices)

    @staticmethod
    def empty() -> DisplayMesh:
        return DisplayMesh(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32), np.zeros((0, 3), np.uint32),
                           np.zeros(0, np.uint8), np.zeros(0, np.uint8), np.zeros(0, np.float32))


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


def _offset_indices(meshes: Sequence, count: Callable) -> np.ndarray:
    offsets = np.cumsum([0] + [count(m) for m in meshes[:-1]])
    return np.concatenate([m.indices + np.uint32(o) for m, o in zip(meshes, offsets)])


def merge_display_meshes(meshes: Sequence[DisplayMesh]) -> DisplayMesh:
    """One mesh holding all of ``meshes`` (vertices are not welded)."""
    meshes = [m for m in meshes if m.triangle_count]
    if not meshes:
        return DisplayMesh.empty()
    return DisplayMesh(np.concatenate([m.positions for m in meshes]), np.concatenate([m.normals for m in meshes]),
                       _offset_indices(meshes, lambda m: len(m.positions)),
                       np.concatenate([m.mat_a for m in meshes]), np.concatenate([m.mat_b for m in meshes]),
                       np.concatenate([m.blend for m in meshes]))


def merge_collision_meshes(meshes: Sequence[CollisionMesh]) -> CollisionMesh:
    """One mesh holding all of ``meshes`` (vertices are not welded)."""
    meshes = [m for m in meshes if m.triangle_count]
    if not meshes:
        return CollisionMesh.empty()
    return CollisionMesh(np.concatenate([m.positions for m in meshes]),
                         _offset_indices(meshes, lambda m: len(m.positions)),
                         np.concatenate([m.tri_material for m in meshes]))


def chunk_cells(shape, chunk_size: int, chunk) -> tuple[np.ndarray, np.ndarray]:
    """The cells ``lo .. hi - 1`` of ``chunk`` in a volume of ``shape`` samples (a cell needs its +1 samples)."""
    c = np.asarray(chunk, dtype=np.int64)
    lo = c * chunk_size
    hi = np.minimum((c + 1) * chunk_size, np.asarray(shape, dtype=np.int64) - 1)
    return lo, np.maximum(hi, lo)


def assemble_chunk(volume, chunk, surface_of: Callable[[tuple], ChunkSurface | None],
                   collision: bool) -> DisplayMesh | CollisionMesh:
    """The mesh of ``chunk``: quads around the sign-changing edges that start in it, through the vertices of
    its own surface and of its lower neighbours' (``surface_of(chunk)`` gives each chunk's simplified surface,
    None outside the volume)."""
    size = volume.chunk_size
    lo, hi = chunk_cells(volume.shape, size, chunk)
    own = surface_of(tuple(chunk))
    if own is None or own.vertex_count == 0:  # no own cell crosses the surface: no quad starts here
        return CollisionMesh.empty() if collision else DisplayMesh.empty()
    dims = hi - lo
    ext_first = np.full(tuple(dims + 1), -1, dtype=np.int64)
    ext_mask = np.zeros(tuple(dims + 1), dtype=np.uint8)
    _kernels.copy_own_cells(own.cell_first, own.cell_mask, ext_first, ext_mask)
    positions, normals, materials, evaluations, rep = own.positions, own.normals, own.materials, \
        own.evaluations, own.rep
    neighbours = []
    for offset in ((-1, 0, 0), (0, -1, 0), (0, 0, -1), (-1, -1, 0), (-1, 0, -1), (0, -1, -1), (-1, -1, -1)):
        other = tuple(int(c + o) for c, o in zip(chunk, offset))
        if min(other) < 0:
            continue
        surface = surface_of(other)
        if surface is not None and surface.vertex_count:
            neighbours.append((offset, surface))
    if neighbours:
        capacity = sum(2 * s.vertex_count for _, s in neighbours)
        f_positions, f_normals = np.empty((capacity, 3)), np.empty((capacity, 3))
        f_mat, f_evals = np.empty((capacity, 2), dtype=np.uint8), np.empty((capacity, 2))
        f_rep, f_source = np.empty(capacity, dtype=np.int64), np.empty(capacity, dtype=np.int64)
        base = own.vertex_count
        n = 0
        for offset, surface in neighbours:
            src_dims = np.array(surface.cell_mask.shape, dtype=np.int64)
            src_lo = np.array([d - 1 if o < 0 else 0 for o, d in zip(offset, src_dims)], dtype=np.int64)
            src_hi = np.array([d if o < 0 else min(d, e) for o, d, e in zip(offset, src_dims, dims)], dtype=np.int64)
            ext_at = np.array([0 if o < 0 else 1 for o in offset], dtype=np.int64)
            index_of = np.full(surface.vertex_count, -1, dtype=np.int64)
            n = _kernels.gather_border(src_lo, src_hi, ext_at, surface.cell_first, surface.cell_mask, surface.rep,
                                       surface.positions, surface.normals, surface.materials, surface.evaluations,
                                       tables.PATCH_COUNT, base, index_of, ext_first, ext_mask, f_positions,
                                       f_normals, f_mat, f_evals, f_rep, f_source, n)
        positions = np.concatenate([positions, f_positions[:n]])
        normals = np.concatenate([normals, f_normals[:n]])
        materials = np.concatenate([materials, f_mat[:n]])
        evaluations = np.concatenate([evaluations, f_evals[:n]])
        rep = np.concatenate([rep, f_rep[:n]])
    # Each own cell starts at most three crossing edges, each a quad of two triangles.
    crossings = 3 * own.vertex_count
    out_positions = np.empty((6 * crossings, 3), dtype=np.float32)
    out_normals = np.empty((6 * crossings, 3), dtype=np.float32)
    out_mat = np.empty((6 * crossings, 2), dtype=np.uint8)
    out_blend = np.empty(6 * crossings, dtype=np.float32)
    out_triangles = np.empty((2 * crossings, 3), dtype=np.uint32)
    out_tri_material = np.empty(2 * crossings if collision else 1, dtype=np.uint8)
    head = np.full(len(positions), -1, dtype=np.int64)
    chain_next = np.empty(6 * crossings, dtype=np.int64)
    chain_code = np.empty(6 * crossings, dtype=np.int64)
    counts = np.zeros(2, dtype=np.int64)
    _kernels.emit_quads(own.surface_cells, ext_first, ext_mask, tables.EDGE_PATCH, tables.EDGE_FROM_CORNER_AXIS, rep, positions,
                        normals, materials, evaluations, volume.origin, volume.voxel_size, collision, head,
                        chain_next, chain_code, out_positions, out_normals, out_mat, out_blend, out_triangles,
                        out_tri_material, counts)
    n_vertices, n_triangles = int(counts[0]), int(counts[1])
    if collision:
        return CollisionMesh(out_positions[:n_vertices].copy(), out_triangles[:n_triangles].copy(),
                             out_tri_material[:n_triangles].copy())
    return DisplayMesh(out_positions[:n_vertices].copy(), out_normals[:n_vertices].copy(),
                       out_triangles[:n_triangles].copy(), out_mat[:n_vertices, 0].copy(),
                       out_mat[:n_vertices, 1].copy(), out_blend[:n_vertices].copy())
