"""A volume's bookkeeping besides its fields (chunk versions, dirty set), handed over and taken back."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.terrain import Sphere, VoxelVolume


def ground() -> VoxelVolume:
    return VoxelVolume.from_sdf(lambda x, y, z: y - 2.0, (16, 8, 16), "soil", voxel_size=0.5, chunk_size=4)


def test_the_counters_and_dirty_set_go_over_to_another_volume():
    volume = ground()
    volume.take_dirty_chunks()
    volume.remove(Sphere((2.0, 2.0, 2.0), 1.0))
    state = volume.state_dict()
    assert state["dirty"] == volume.dirty_chunks and state["dirty"]
    assert np.array_equal(state["chunk_versions"], volume.chunk_versions)
    state["chunk_versions"][0, 0, 0] += 100  # a copy: the volume's counters are its own
    assert volume.chunk_versions[0, 0, 0] != state["chunk_versions"][0, 0, 0]

    copy = ground()
    view = copy.chunk_versions
    copy.load_state_dict(volume.state_dict())
    assert copy.dirty_chunks == volume.dirty_chunks
    assert np.array_equal(view, volume.chunk_versions)  # set in place: views taken before see the new counters
    assert copy.take_dirty_chunks() == set(volume.dirty_chunks)


@pytest.mark.parametrize("change, parameter", [
    (lambda s: s.update(chunk_versions=np.zeros((4, 2, 3), np.int64)), "chunk_versions"),
    (lambda s: s.update(chunk_versions=-np.ones((4, 2, 4), np.int64)), "chunk_versions"),
    (lambda s: s.update(chunk_versions=np.zeros((4, 2, 4), np.float64)), "chunk_versions"),
    (lambda s: s.update(dirty={(0, 0, 0), (0, 2, 0)}), "dirty"),
    (lambda s: s.update(dirty={(0, 0)}), "dirty"),
    (lambda s: s.pop("dirty"), "state"),
])
def test_a_bad_state_is_refused_and_changes_nothing(change, parameter):
    volume = ground()
    before = (volume.chunk_versions.copy(), volume.dirty_chunks)
    state = {"chunk_versions": np.full(volume.chunk_grid_shape, 7, np.int64), "dirty": {(1, 1, 1)}}
    change(state)
    with pytest.raises(ParameterError) as error:
        volume.load_state_dict(state)
    assert parameter in error.value.parameter
    assert np.array_equal(volume.chunk_versions, before[0]) and volume.dirty_chunks == before[1]


def test_the_revision_rises_with_every_way_a_chunk_changes_and_only_then():
    """``revision``: what a mesher checks before looking at every chunk's version (ChunkMesher.refresh_vertices)."""
    from voxelworld.meshing import ChunkMesher
    from voxelworld.terrain import SparseVolume

    volume = ground()
    mesher = ChunkMesher(volume)
    mesher.update()
    steps = [lambda: volume.remove(Sphere((2.0, 2.0, 2.0), 1.0)),
             lambda: (volume.density.__setitem__((slice(8, 12), slice(0, 4), slice(8, 12)), 0),
                      volume.mark_dirty((8, 0, 8), (11, 3, 11))),
             lambda: volume.load_state_dict({"chunk_versions": volume.chunk_versions + 1, "dirty": set()})]
    for step in steps:
        before = volume.revision
        volume.read_window((0, 0, 0), (7, 7, 7))
        mesher.refresh_vertices()
        assert volume.revision == before  # reading and meshing change nothing
        step()
        assert volume.revision > before
        assert mesher.refresh_vertices() or step is steps[-1]  # (new versions of the same voxels: nothing to redo)
    sparse = SparseVolume((16, 8, 16), voxel_size=0.5, chunk_size=4)
    before = sparse.revision
    where = np.zeros(sparse.chunk_grid_shape, dtype=bool)
    where[0, 0, 0] = True
    sparse.fill_chunks("density", where, np.full(sparse.chunk_grid_shape, 3, np.uint8))
    assert sparse.revision > before
