"""Collision meshes made ahead on the background thread (ChunkMesher.prepare_collision_meshes): the mesher's own,
bit for bit, and never a mesh of fields that changed since they were asked for."""

from __future__ import annotations

import numpy as np

from voxelworld.meshing import ChunkMesher
from voxelworld.terrain import Sphere, demo_terrain


def same(a, b) -> bool:
    return all(np.array_equal(getattr(a, n), getattr(b, n)) and getattr(a, n).dtype == getattr(b, n).dtype
               for n in ("positions", "indices", "tri_material"))


def test_prepared_meshes_are_what_the_mesher_makes_itself_and_are_kept():
    world = demo_terrain()
    mesher = ChunkMesher(world)
    mesher.update()
    chunks = sorted(mesher.meshes)
    prepared = mesher.prepare_collision_meshes(chunks)
    assert prepared is not None and prepared.chunks == tuple(chunks)
    assert mesher.adopt_collision_meshes(prepared) == len(chunks)
    adopted = {chunk: mesher.chunk_collision_mesh(chunk) for chunk in chunks}
    fresh = ChunkMesher(world)
    fresh.update()
    assert sum(m.triangle_count for m in adopted.values()) > 0
    for chunk in chunks:
        assert same(adopted[chunk], fresh.chunk_collision_mesh(chunk)), chunk
    assert mesher.prepare_collision_meshes(chunks) is None  # all made


def test_a_chunk_changed_since_it_was_asked_for_is_not_adopted():
    world = demo_terrain()
    mesher = ChunkMesher(world)
    mesher.update()
    chunks = sorted(mesher.meshes)
    target = max(chunks, key=lambda c: ChunkMesher(world).chunk_collision_mesh(c).triangle_count)
    prepared = mesher.prepare_collision_meshes(chunks)
    centre = world.index_to_world((np.array(target) + 0.5) * world.chunk_size)
    world.remove(Sphere(tuple(centre), 6.0))
    mesher.update()  # the dig lands before the prepared meshes are taken
    kept = mesher.adopt_collision_meshes(prepared)
    assert 0 < kept < len(chunks)
    fresh = ChunkMesher(world)
    fresh.update()
    for chunk in chunks:  # every mesh the mesher gives is of the dug world
        assert same(mesher.chunk_collision_mesh(chunk), fresh.chunk_collision_mesh(chunk)), chunk
