"""VoxelVolume.chunk_box: the voxel index box of a chunk, clipped to the volume; the one place chunk indices
become voxel indices (io, meshing and game call it)."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.terrain import VoxelVolume


@pytest.mark.parametrize("shape, chunk_size", [((40, 16, 33), 16), ((8, 8, 8), 8), ((5, 17, 9), 4)])
def test_chunk_boxes_tile_the_volume_exactly(shape, chunk_size):
    """Every voxel lies in exactly one chunk's box, the chunk its index divided by the chunk size names."""
    volume = VoxelVolume(shape, chunk_size=chunk_size)
    owner = np.full(shape, -1)
    for number, chunk in enumerate(product(*(range(n) for n in volume.chunk_grid_shape))):
        lo, hi = volume.chunk_box(chunk)
        assert lo.dtype == np.int64 and hi.dtype == np.int64
        assert np.all(hi > lo) and np.all(hi - lo <= chunk_size) and np.all(hi <= shape)
        assert np.all(owner[lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2]] == -1)
        owner[lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2]] = number
        i, j, k = (np.array(lo) + np.array(hi) - 1) // 2
        assert tuple(v // chunk_size for v in (i, j, k)) == chunk
    assert np.all(owner >= 0)


@pytest.mark.parametrize("chunk", [(3, 0, 0), (0, -1, 0), (0, 0), "abc", (0.5, 0, 0)])
def test_a_chunk_outside_the_grid_is_refused(chunk):
    volume = VoxelVolume((40, 16, 33), chunk_size=16)  # grid (3, 1, 3)
    with pytest.raises(ParameterError, match="chunk"):
        volume.chunk_box(chunk)
