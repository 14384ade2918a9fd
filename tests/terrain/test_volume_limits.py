"""Size limits of a VoxelVolume (MAX_VOXELS, MAX_CHUNKS in terrain/volume.py): a shape too large for memory is
refused with a ParameterError naming the parameter, the limit and the memory it would need, never a raw
MemoryError, OverflowError or ValueError from numpy."""

from __future__ import annotations

import pytest

from voxelworld.errors import ParameterError
from voxelworld.terrain import VoxelVolume
from voxelworld.terrain import base as volume_module  # the limits live beside what every volume shares
from voxelworld.terrain.volume import BYTES_PER_VOXEL, MAX_CHUNKS, MAX_VOXELS


def test_bytes_per_voxel_is_the_five_fields():
    v = VoxelVolume((2, 3, 4))
    fields = (v.density, v.mat_a, v.mat_b, v.mix, v.damage)
    assert BYTES_PER_VOXEL * v.density.size == sum(f.nbytes for f in fields)


@pytest.mark.parametrize("shape", [(10**6,) * 3, (2**63, 1, 1), (2**40, 2**40, 1), (1024, 1024, 1025)])
def test_a_shape_over_max_voxels_is_refused_with_its_memory(shape):
    with pytest.raises(ParameterError) as caught:
        VoxelVolume(shape)
    assert caught.value.parameter == "shape"
    assert caught.value.value == shape
    message = str(caught.value)
    assert f"MAX_VOXELS = {MAX_VOXELS}" in message
    voxels = shape[0] * shape[1] * shape[2]
    assert f"{voxels * BYTES_PER_VOXEL / 2**30:.3g} GiB" in message


def test_the_voxel_limit_is_inclusive(monkeypatch):
    monkeypatch.setattr(volume_module, "MAX_VOXELS", 1000)
    assert VoxelVolume((10, 10, 10)).shape == (10, 10, 10)
    with pytest.raises(ParameterError, match="MAX_VOXELS = 1000 voxels"):
        VoxelVolume((10, 10, 11))


def test_too_many_chunks_is_refused_naming_the_smallest_chunk_size():
    # 600³ voxels fit (1.2 GiB), but chunks of one voxel would be 216 million chunks to keep versions of.
    with pytest.raises(ParameterError) as caught:
        VoxelVolume((600, 600, 600), chunk_size=1)
    assert caught.value.parameter == "chunk_size"
    smallest = next(c for c in range(1, 600) if (-(-600 // c)) ** 3 <= MAX_CHUNKS)
    assert f">= {smallest} for shape (600, 600, 600)" in str(caught.value)
    assert VoxelVolume((600, 600, 600), chunk_size=smallest).chunk_size == smallest


def test_the_chunk_limit_is_inclusive(monkeypatch):
    monkeypatch.setattr(volume_module, "MAX_CHUNKS", 8)
    assert VoxelVolume((4, 4, 4), chunk_size=2).chunk_grid_shape == (2, 2, 2)
    with pytest.raises(ParameterError, match=">= 3 for shape"):
        VoxelVolume((5, 4, 4), chunk_size=2)
