"""ChunkMesher.chunk_collision_mesh: one chunk's own collision mesh, the pieces collision_mesh merges."""

from __future__ import annotations

import numpy as np

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
