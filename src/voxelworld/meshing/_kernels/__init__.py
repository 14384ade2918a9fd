"""Numba kernels of the meshing wing: dual vertices, vertex materials, octree simplification, quads.

Coordinates here are *sample coordinates*: the float position ``(i, j, k)`` is voxel sample ``(i, j, k)``; the
public wrappers turn them into world metres. A cell ``(i, j, k)`` spans samples ``i..i+1, j..j+1, k..k+1``.

Per vertex the kernels keep, beside position, normal and materials, the quadric of its surface (the planes
through its edge crossings, normal from the density gradient): ``qef[v] = (Axx, Axy, Axz, Ayy, Ayz, Azz, bx, by,
bz, c, mx, my, mz, count)`` with ``A = sum n n^T``, ``b = sum n (n . p)``, ``c = sum (n . p)^2``, the sum ``m`` of the
crossing points and their ``count``. Quadrics add up, so a merged vertex's quadric is its children's sum.

Kernels with many arrays take them grouped in the named tuples of :mod:`.arguments` (tables, a chunk's cells,
vertex arrays, outputs): numba passes each as one typed argument.
"""

from .arguments import (
                        BlockCells,
                        BlockVertices,
                        ChunkCells,
                        MergeRule,
                        QuadOutput,
                        QuadTables,
                        SimplifyTables,
                        VertexArrays,
)
from .cells import cell_cases, cell_vertices, flipped_faces, sign_mask
from .common import (
                        CROSSING_MARGIN,
                        QEF_COLUMNS,
                        REGULARISATION,
                        accumulate,
                        axis_difference,
                        corner_weight,
                        qef_error,
                        solve_qef,
                        top_two_materials,
)
from .flaps import drop_mirrored_twins
from .incremental import same_vertex, top_layer_changes
from .occlusion import (
                        KIND_MIXED,
                        KIND_OPEN,
                        KIND_SOLID,
                        OCCLUSION_BLOCK,
                        OCCLUSION_RAYS,
                        OCCLUSION_STEPS,
                        cell_kinds,
                        tangent_frame,
                        vertex_box,
                        vertex_occlusion,
)
from .packing import pack_cells, unpack_cells
from .quads import emit_quads, gather_cells, judge_one_pair, judge_triangle
from .simplify import merge_vertices, simplify, solid_at, surface_within, topology_safe, trilinear_density

__all__ = ["BlockCells", "BlockVertices", "ChunkCells", "MergeRule", "QuadOutput", "QuadTables", "SimplifyTables",
           "VertexArrays",
           "cell_cases", "cell_vertices", "drop_mirrored_twins", "flipped_faces", "sign_mask", "CROSSING_MARGIN", "QEF_COLUMNS",
           "REGULARISATION", "accumulate", "axis_difference", "corner_weight", "qef_error", "solve_qef",
           "top_two_materials", "same_vertex", "top_layer_changes", "emit_quads", "gather_cells",
           "judge_one_pair", "judge_triangle", "merge_vertices", "simplify", "solid_at", "surface_within",
           "topology_safe", "trilinear_density", "OCCLUSION_BLOCK", "OCCLUSION_RAYS", "OCCLUSION_STEPS",
           "tangent_frame", "vertex_occlusion", "vertex_box", "cell_kinds", "KIND_OPEN", "KIND_SOLID", "KIND_MIXED",
           "pack_cells", "unpack_cells"]
