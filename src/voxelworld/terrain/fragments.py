"""Cleaning away tiny floating fragments after an edit.

A *fragment* is a connected solid component: voxels with ``density >= iso``, 6-connected. After a dig, the
pieces that float free and are too small to matter (a few voxels of soil hanging in the air) are erased. Which
size is too small depends on the material: the table's minimum fragment size (voxels), falling back to its
group's. A component counts as the dominant material of highest fragment priority among its voxels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import ParameterError
from . import _kernels
from .edits import EditResult, edit_result, new_tally
from .shapes import Box

if TYPE_CHECKING:
    from .base import Volume

__all__ = ["remove_fragments"]


def remove_fragments(volume: Volume, region: Box | None = None) -> EditResult:
    """Erase the small fragments that lie wholly inside ``region``.

    Parameters
    ----------
    volume : VoxelVolume
        Changed in place.
    region : Box or None
        The judgment region, in world coordinates (m): only voxels whose samples lie in it are examined. A
        component with a voxel on the region's outer layer may continue outside it and is always kept. None
        judges the whole volume (whose own border then counts as the region's).

    Returns
    -------
    EditResult
        ``fragments_erased`` components were erased (density set to 0; materials and damage are kept), with
        their volume by material in ``removed_by_material``. There is no cap on the number of components.

    Examples
    --------
    >>> from voxelworld.terrain import VoxelVolume, Box
    >>> volume = VoxelVolume((16, 16, 16))
    >>> volume.density[8, 8, 8] = 255; volume.mat_a[8, 8, 8] = volume.materials.id_of("soil")
    >>> volume.remove_fragments().fragments_erased
    1
    """
    if region is None:
        lo, hi = np.zeros(3, dtype=np.int64), np.array(volume.shape, dtype=np.int64) - 1
    elif isinstance(region, Box):
        corners = volume.voxel_box(region)
        if corners is None:
            return EditResult.empty()
        lo, hi = corners
    else:
        raise ParameterError("region", region, "a voxelworld.terrain.Box in world coordinates (m), or None")
    extent = hi - lo + 1
    rows = int(extent[0] * extent[1])
    max_runs = rows * int((extent[2] + 1) // 2)
    run_start, run_end, parent = (np.empty(max_runs, dtype=np.int32) for _ in range(3))
    scratch = _kernels.FragmentScratch(np.empty(rows + 1, dtype=np.int32), run_start, run_end, parent,
                                       size=np.empty(max_runs, dtype=np.int64), best=np.empty(max_runs, np.int32))
    tally = new_tally(volume)
    fields, offset = window = volume._edit_window(lo, hi)
    erased = _kernels.erase_small_components(fields, lo, hi, volume._grid(offset), volume.materials.by_id,
                                             scratch, tally)
    return edit_result(volume, tally, window, fragments_erased=int(erased))
