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
