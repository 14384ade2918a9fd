"""Numba kernels of the terrain wing: signed distances and voxel edits over plain arrays.

No Python objects in here: the public classes (:mod:`voxelworld.terrain.volume`, :mod:`voxelworld.terrain.edits`)
validate, own the arrays and call these. Every edit kernel visits only the voxel box ``lo..hi`` (inclusive index
corners) it is given and reports through the preallocated arrays of an :class:`EditTally`.

What the kernels take comes in named tuples (numba reads their fields like a struct), so calls stay short and
arguments cannot swap places: :class:`VoxelFields` (the volume's arrays), :class:`Grid` (where the voxels sit),
:class:`MaterialArrays` (the material table by id), :class:`ToolGate` (the hardness gate) and
:class:`EditTally` (what an edit reports).

By concern: :mod:`.arguments` (those named tuples and the edit counters), :mod:`.sdf` (tool shapes' signed
distances and the voxels they reach), :mod:`.density` (the edits and the solid amounts they report) and
:mod:`.components` (connected components and the floating fragments erased). Callers import this package
(``from . import _kernels``) and find every kernel here.
"""

from .arguments import (
                        STAT_BLOCKED,
                        STAT_CHANGED,
                        STAT_DAMAGED,
                        STAT_DENSITY_ADDED,
                        STAT_DENSITY_REMOVED,
                        STATS_LENGTH,
                        EditTally,
                        FragmentScratch,
                        Grid,
                        MaterialArrays,
                        ToolGate,
                        VoxelFields,
)
from .components import erase_small_components, erase_voxel, find_root, find_runs, join, join_rows, touches_solid
from .density import (
                        RAMP,
                        account,
                        dominant_material,
                        exposure,
                        gate,
                        lower_density,
                        material_units,
                        raise_density,
                        ramp_density,
                        remap_materials,
)
from .sdf import (
                        BOX,
                        CAPSULE,
                        CYLINDER,
                        LIMIT,
                        PRIMITIVE_COLUMNS,
                        SPHERE,
                        bounding_sphere,
                        primitive_sdf,
                        row_span,
                        sdf_points,
                        shape_bounds,
                        shape_sdf,
                        voxel_box,
)

__all__ = ["STAT_BLOCKED", "STAT_CHANGED", "STAT_DAMAGED", "STAT_DENSITY_ADDED", "STAT_DENSITY_REMOVED",
           "STATS_LENGTH", "EditTally", "FragmentScratch", "Grid", "MaterialArrays", "ToolGate", "VoxelFields",
           "erase_small_components", "erase_voxel", "find_root", "find_runs", "join", "join_rows", "touches_solid",
           "RAMP", "account", "dominant_material", "exposure", "gate", "lower_density", "material_units",
           "raise_density", "ramp_density", "remap_materials",
           "BOX", "CAPSULE", "CYLINDER", "LIMIT", "PRIMITIVE_COLUMNS", "SPHERE", "bounding_sphere", "primitive_sdf",
           "row_span", "sdf_points", "shape_bounds", "shape_sdf", "voxel_box"]
