"""Where a chunk's voxels changed: the kernel of :meth:`ChunkMesher._take_changes
<voxelworld.meshing.ChunkMesher>` (one pass over the four meshed fields, no temporary arrays)."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def changed_box(density: np.ndarray, mat_a: np.ndarray, mat_b: np.ndarray, mix: np.ndarray, seen_density: np.ndarray,
                seen_mat_a: np.ndarray, seen_mat_b: np.ndarray, seen_mix: np.ndarray, box: np.ndarray) -> bool:
    """Whether any voxel differs between the fields (``density``, ``mat_a``, ``mat_b``, ``mix``) and the ``seen_``
    ones (all of one shape); if so ``box[0]`` and ``box[1]`` are the least and greatest indices (inclusive) of a
    differing voxel on each axis."""
    nx, ny, nz = density.shape
    box[0, 0], box[0, 1], box[0, 2] = nx, ny, nz
    box[1, 0], box[1, 1], box[1, 2] = -1, -1, -1
    found = False
    for i in range(nx):
        for j in range(ny):
            for k in range(nz):
                if (density[i, j, k] != seen_density[i, j, k] or mat_a[i, j, k] != seen_mat_a[i, j, k]
                        or mat_b[i, j, k] != seen_mat_b[i, j, k] or mix[i, j, k] != seen_mix[i, j, k]):
                    found = True
                    box[0, 0], box[1, 0] = min(box[0, 0], i), max(box[1, 0], i)
                    box[0, 1], box[1, 1] = min(box[0, 1], j), max(box[1, 1], j)
                    box[0, 2], box[1, 2] = min(box[0, 2], k), max(box[1, 2], k)
    return found
