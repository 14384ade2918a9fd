"""Which chunks mesh to nothing, known from the uniform chunks alone: every chunk at once (uniform_sides, what a
streaming step asks of the chunks it activates) against one chunk at a time (uniform_side)."""

from __future__ import annotations

from itertools import product

import numpy as np

from voxelworld.meshing.chunk_surfaces import uniform_side, uniform_sides
from voxelworld.terrain import GeneratorSettings, Sphere, VoxelVolume, generate_world


def test_every_chunk_at_once_is_each_chunk_alone():
    world = generate_world(GeneratorSettings(size=128.0, height=64.0, ground_level=44.0, hill_height=6.0, seed=3))
    world.remove(Sphere((40.0, 44.0, 30.0), 6.0))  # a dug chunk: stored, not uniform, among uniform ones
    sides = uniform_sides(world)
    kinds = set()
    for chunk in product(*(range(n) for n in world.chunk_grid_shape)):
        alone = uniform_side(world, chunk)
        kinds.add(alone)
        assert sides[chunk] == (-1 if alone is None else int(alone)), chunk
    assert kinds == {True, False, None}  # solid, empty and surface chunks all met
    # Listed chunks alone, in any order (those at the grid's far ends too): the same as the grid's.
    listed = np.array([c for c in product(*(range(n) for n in world.chunk_grid_shape))][::-3], dtype=np.int64)
    assert np.array_equal(uniform_sides(world, listed), sides[tuple(listed.T)])


def test_a_dense_volume_knows_no_chunk_uniform():
    volume = VoxelVolume((16, 16, 16), chunk_size=8)
    assert np.all(uniform_sides(volume) == -1)
    assert np.array_equal(uniform_sides(volume, np.array([[0, 1, 0], [1, 1, 1]])), [-1, -1])
