"""SparseVolume's bulk fills (what a reader of a large world file uses): the same volume, versions and dirty chunks
as chunk-by-chunk fill_chunk and keep_in_store; bad arrays refused before anything changes."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.terrain import Box, SparseVolume


def ground() -> SparseVolume:
    volume = SparseVolume((64, 32, 48), chunk_size=16)
    volume.add(Box((0.0, 0.0, 0.0), (63.0, 9.5, 47.0)), "soil")
    return volume


def test_fill_chunks_is_fill_chunk_of_each_chunk():
    one, bulk = ground(), ground()
    grid = one.chunk_grid_shape
    rng = np.random.default_rng(3)
    where = rng.random(grid) < 0.5
    values = rng.integers(0, 256, grid).astype(np.uint8)
    for chunk in map(tuple, np.argwhere(where).tolist()):
        one.fill_chunk(chunk, "density", int(values[chunk]))
    bulk.fill_chunks("density", where, values)
    assert bulk.content_hash() == one.content_hash()
    assert np.array_equal(bulk.chunk_versions, one.chunk_versions)
    assert bulk.dirty_chunks == one.dirty_chunks
    assert bulk.stored_chunks("density") == one.stored_chunks("density")


def test_bad_arrays_are_refused_before_anything_changes():
    volume = ground()
    before, grid = volume.content_hash(), volume.chunk_grid_shape
    with pytest.raises(ParameterError, match="values"):
        volume.fill_chunks("density", np.ones(grid, dtype=bool), np.zeros(grid, dtype=np.uint16))
    with pytest.raises(ParameterError, match="where"):
        volume.fill_chunks("density", np.ones((1, 1, 1), dtype=bool), np.zeros(grid, dtype=np.uint8))
    with pytest.raises(ParameterError, match="where"):
        volume.keep_chunks_in_store("density", np.ones(grid, dtype=np.uint8))
    with pytest.raises(ParameterError, match="name"):
        volume.fill_chunks("colour", np.ones(grid, dtype=bool), np.zeros(grid, dtype=np.uint8))
    assert volume.content_hash() == before


def test_keep_chunks_in_store_is_keep_in_store_of_each_chunk():
    one, bulk = ground(), ground()
    where = np.zeros(one.chunk_grid_shape, dtype=bool)
    where[0, 0, :2] = True
    for chunk in map(tuple, np.argwhere(where).tolist()):
        one.keep_in_store(chunk, "mat_a")
    bulk.keep_chunks_in_store("mat_a", where)
    for chunk in np.ndindex(one.chunk_grid_shape):
        assert bulk.left_in_store(chunk, "mat_a") == one.left_in_store(chunk, "mat_a")
    assert bulk.stored_chunks("mat_a") == one.stored_chunks("mat_a")
    assert bulk.resident_chunks() == one.resident_chunks()
