"""ChunkMesher.chunk_collision_mesh: one chunk's own collision mesh, the pieces collision_mesh merges."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.meshing import ChunkMesher
from voxelworld.terrain import Sphere, demo_terrain


def test_chunk_meshes_are_the_pieces_of_the_merged_mesh_and_follow_edits():
    world = demo_terrain()
    mesher = ChunkMesher(world)
    mesher.update()
    chunks = sorted(mesher.meshes)
    pieces = [mesher.chunk_collision_mesh(chunk) for chunk in chunks]
    whole = mesher.collision_mesh()
    assert sum(p.triangle_count for p in pieces) == whole.triangle_count
    first = chunks[len(chunks) // 2]
    before = mesher.chunk_collision_mesh(first)
    assert mesher.chunk_collision_mesh(first) is before  # cached
    centre = world.index_to_world((np.array(first) + 0.5) * world.chunk_size)
    world.remove(Sphere(tuple(centre), 6.0))
    mesher.update()
    assert mesher.chunk_collision_mesh(first) is not before


def test_collision_key_changes_exactly_when_the_collision_mesh_near_a_point_does():
    world = demo_terrain()
    mesher = ChunkMesher(world)
    mesher.update()
    near, radius = (20.0, 20.0, 20.0), 4.0
    key = mesher.collision_key(near=near, radius=radius)
    mesh = mesher.collision_mesh(near=near, radius=radius)
    world.remove(Sphere((80.0, 20.0, 80.0), 3.0))  # far away
    mesher.update()
    assert mesher.collision_key(near=near, radius=radius) == key
    same = mesher.collision_mesh(near=near, radius=radius)
    assert np.array_equal(same.positions, mesh.positions) and np.array_equal(same.indices, mesh.indices)
    world.remove(Sphere((20.0, 20.0, 20.0), 3.0))  # right there
    mesher.update()
    assert mesher.collision_key(near=near, radius=radius) != key
    changed = mesher.collision_mesh(near=near, radius=radius)
    assert changed.triangle_count != mesh.triangle_count or not np.array_equal(changed.positions, mesh.positions)
    assert mesher.collision_key()[0] != key[0]  # the whole volume covers other chunks


def _same_mesh(a, b) -> bool:
    return (np.array_equal(a.positions, b.positions) and np.array_equal(a.indices, b.indices)
            and np.array_equal(a.tri_material, b.tri_material))


def test_a_dig_drops_only_the_collision_meshes_it_changed_and_the_kept_ones_equal_a_fresh_meshers():
    world = demo_terrain()
    mesher = ChunkMesher(world)
    mesher.update()
    chunks = sorted(mesher.meshes)
    for chunk in chunks:
        mesher.chunk_collision_mesh(chunk)  # every collision surface kept, as near a player
    rng = np.random.default_rng(3)
    dropped = []
    for _ in range(6):
        chunk = chunks[int(rng.integers(len(chunks)))]
        inside = (np.array(chunk) + rng.uniform(0.3, 0.7, 3)) * world.chunk_size
        before = {c: mesher.collision_revision(c) for c in chunks}
        world.remove(Sphere(tuple(world.index_to_world(inside)), 1.5))
        rebuilt = mesher.update().surfaces_rebuilt
        after = {c: mesher.collision_revision(c) for c in chunks}
        bumped = {c for c in chunks if after[c] != before[c]}
        assert bumped <= {tuple(c + o for c, o in zip(chunk, offset)) for chunk in rebuilt
                          for offset in np.ndindex(2, 2, 2)}
        dropped.append(len(bumped))
        # Whatever was kept or made again is what a mesher made from scratch makes.
        fresh = ChunkMesher(world)
        fresh.update()
        for c in chunks:
            assert _same_mesh(mesher.chunk_collision_mesh(c), fresh.chunk_collision_mesh(c)), c
    # A small dig inside a chunk drops its own mesh and rarely a neighbour's: far fewer than the 8 joining it.
    assert 0 < np.mean(dropped) < 4


def test_a_bad_near_point_is_refused_naming_near():
    mesher = ChunkMesher(demo_terrain())
    for near in ((1.0, 2.0), (1.0, float("nan"), 2.0), "abc", np.zeros((1, 3))):
        with pytest.raises(ParameterError, match="near"):
            mesher.collision_mesh(near=near, radius=2.0)
