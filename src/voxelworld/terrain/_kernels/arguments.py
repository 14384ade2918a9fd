"""The named tuples the terrain kernels take (numba reads their fields like a struct, so calls stay short and
arguments cannot swap places), and the counters an edit reports in :attr:`EditTally.stats`."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["STAT_CHANGED", "STAT_DAMAGED", "STAT_BLOCKED", "STAT_DENSITY_REMOVED", "STAT_DENSITY_ADDED",
           "STATS_LENGTH", "VoxelFields", "Grid", "MaterialArrays", "ToolGate", "EditTally", "FragmentScratch"]

STAT_CHANGED = 0  # voxels whose density or materials changed
STAT_DAMAGED = 1  # voxels whose damage rose without giving way
STAT_BLOCKED = 2  # voxels the edit would have lowered but hardness held
STAT_DENSITY_REMOVED = 3  # sum of density decreases (1/255 voxel)
STAT_DENSITY_ADDED = 4  # sum of density increases (1/255 voxel)
STATS_LENGTH = 5


class VoxelFields(NamedTuple):
    """A volume's field arrays, all of the volume's shape and indexed ``[x, y, z]``."""

    density: np.ndarray  # uint8, 0 (empty) .. 255 (full)
    mat_a: np.ndarray  # uint8 material id (0 = none)
    mat_b: np.ndarray  # uint8 material id (0 = none)
    mix: np.ndarray  # uint8 share of mat_b, 0..255
    damage: np.ndarray  # uint16 damage units


class Grid(NamedTuple):
    """Where a volume's voxels sit and how they are grouped."""

    origin: np.ndarray  # float64 (3,), m: the sample of voxel (0, 0, 0)
    voxel_size: float  # m
    iso: int  # density at and above which a voxel is solid, 1..255
    chunk_size: int  # voxels per chunk edge, >= 1
    # int64 (3,): the voxel index of the field arrays' element [0, 0, 0]. Kernels take voxel indices of the whole
    # volume (positions, chunks) and read the arrays at index - offset: a dense volume passes its whole fields and
    # zeros, a sparse one a window gathered from its chunks, and both compute the same numbers.
    offset: np.ndarray


class MaterialArrays(NamedTuple):
    """A material table's lookups, 256 entries each, indexed by material id."""

    hardness: np.ndarray  # float64, hardness scale of the table
    interior: np.ndarray  # uint8, the id a fresh cut shows
    fragment_priority: np.ndarray  # int32, higher wins when a fragment takes one material
    min_fragment_size: np.ndarray  # int64 voxels: smaller floating pieces are erased
    kind: np.ndarray  # uint8, the lowest id of the materials of the same kind


class ToolGate(NamedTuple):
    """The hardness gate of ``remove`` and ``scrape`` (see ``voxelworld.terrain.Tool``)."""

    damage: int  # damage units each hit adds to a voxel of middling hardness
    gives_way_below: float  # hardness below which a voxel gives way at once
    unbreakable_from: float  # hardness from which a voxel never gives way
    breaks_at: int  # damage units at which a voxel of middling hardness gives way


class EditTally(NamedTuple):
    """What an edit kernel reports, in arrays the caller preallocates and zeroes."""

    chunk_flags: np.ndarray  # uint8 [cx, cy, cz]: 1 for each chunk in which some voxel field changed
    # int64 [256] per material id: the solid amount each material lost / gained, in 1/65025 voxel
    # (density * share, both 0..255), so sums are exact integers
    removed_units: np.ndarray
    added_units: np.ndarray
    stats: np.ndarray  # int64 [STATS_LENGTH]: counters indexed by the STAT_* constants


class FragmentScratch(NamedTuple):
    """Scratch of :func:`erase_small_components`: one slot per row (+ 1) or per possible run."""

    row_first: np.ndarray  # int32 [rows + 1]
    run_start: np.ndarray  # int32 [runs]
    run_end: np.ndarray  # int32 [runs]
    parent: np.ndarray  # int32 [runs]
    size: np.ndarray  # int64 [runs]
    best: np.ndarray  # int32 [runs]
