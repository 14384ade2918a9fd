"""Named tuples that group what the meshing kernels take: lookup tables, a chunk's cells, vertex arrays, outputs.

numba passes a named tuple of arrays (and scalars) into a kernel as one typed argument, so a call names a few
groups instead of twenty arrays, and the order of the arrays inside a group cannot drift between caller and
kernel.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["SimplifyTables", "QuadTables", "ChunkCells", "VertexArrays", "MergeRule", "BlockCells", "BlockVertices",
           "QuadOutput"]


class SimplifyTables(NamedTuple):
    """The lookup tables of the octree's topology test (see ``meshing.tables``)."""

    patch_count: np.ndarray  # uint8 per sign case: surface patches of a cell
    one_patch_faces: np.ndarray  # uint8 per sign case: faces crossed twice by one patch (bit per face)
    lattice_corners: np.ndarray  # per point of the 3x3x3 half-step lattice: the corners it must agree with


class QuadTables(NamedTuple):
    """The lookup tables that find the patch of a cell's vertex on each of its edges (see ``meshing.tables``)."""

    edge_patch: np.ndarray  # per case and edge: the patch the edge's crossing belongs to
    edge_from_corner_axis: np.ndarray  # per corner and axis: the edge leaving that corner along that axis


class ChunkCells(NamedTuple):
    """A chunk's cells: ``dims`` cells from cell ``lo`` (sample coordinates), their cases and first vertices."""

    lo: np.ndarray  # (3,) int64: the first cell
    dims: np.ndarray  # (3,) int64: cells along each axis
    cell_case: np.ndarray  # uint16 per cell (see ChunkSurface)
    cell_first: np.ndarray  # int32 per cell: its first vertex
    surface_cells: np.ndarray  # (m, 3) int64: local index of every cell with a vertex


class VertexArrays(NamedTuple):
    """Per vertex of a chunk: position (samples), unit normal, two materials, their evaluation values, quadric."""

    positions: np.ndarray  # (n, 3) float64
    normals: np.ndarray  # (n, 3) float64
    materials: np.ndarray  # (n, 2) uint8
    evaluations: np.ndarray  # (n, 2) float64
    qef: np.ndarray  # (n, QEF_COLUMNS) float64


class MergeRule(NamedTuple):
    """When the octree may merge: ``levels`` deep, within ``tolerance`` (samples), of at most two material kinds
    counting each vertex's first ``slots`` materials (``kind_by_id``: the kind of each material id). At levels
    1..``floor`` the tolerance does not apply (a level of detail: merge whenever topology and the kinds allow);
    0 keeps it at every level. At levels 1..``feature_floor`` (at most ``floor``) the topology test, the kinds
    and the one-vertex-per-cell rule do not apply either (a far level of detail that may drop small features);
    only the chunk's border still stops a merge. 0: never."""

    levels: int
    tolerance: float
    slots: int
    kind_by_id: np.ndarray
    floor: int = 0
    feature_floor: int = 0


class BlockCells(NamedTuple):
    """The cells a block's quads read: its own ``surface_cells`` and, for the block extended one cell down on
    each axis, every cell's first gathered vertex (``ext_first``, -1 for none) and case."""

    surface_cells: np.ndarray  # (m, 3) int64, local to the block
    ext_first: np.ndarray  # int64 per extended cell
    ext_case: np.ndarray  # uint16 per extended cell


class BlockVertices(NamedTuple):
    """The vertices gathered for a block: representative, position (samples), normal, materials, their shares,
    and room for their output positions (written by :func:`emit_quads`)."""

    rep: np.ndarray  # (n,) int64
    positions: np.ndarray  # (n, 3) float64
    normals: np.ndarray  # (n, 3) float64
    materials: np.ndarray  # (n, 2) uint8
    shares: np.ndarray  # (n, 2) float64: each material's share of the vertex's two
    world: np.ndarray  # (n, 3) float32: position in metres, as output


class QuadOutput(NamedTuple):
    """What :func:`emit_quads` writes: output vertices, triangles and their materials, the chains that find an
    output vertex by mesh vertex and material pair, and the counts."""

    positions: np.ndarray  # (k, 3) float32, metres
    normals: np.ndarray  # (k, 3) float32
    materials: np.ndarray  # (k, 2) uint8: the triangle's pair (display)
    blend: np.ndarray  # (k,) float32: the share of the pair's second material (display)
    triangles: np.ndarray  # (t, 3) uint32
    tri_material: np.ndarray  # (t,) uint8: one material per triangle (collision)
    head: np.ndarray  # (n,) int64 per gathered vertex: its first output vertex (-1: none yet)
    chain_next: np.ndarray  # (k,) int64: the next output vertex of the same mesh vertex
    chain_code: np.ndarray  # (k,) int64: the material pair of each output vertex (first * 256 + second)
    counts: np.ndarray  # (2,) int64: vertices and triangles written
    corners: np.ndarray  # (t, 3) int64: the gathered (mesh) vertex of each triangle's corners
