"""Meshing a SparseVolume gives the dense volume's meshes, bit for bit: the mesher reads windows of either, and the
kernels compute in the volume's sample coordinates whatever the window."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.meshing import ChunkMesher, MeshOptions, collision_mesh_volume, dual_vertices, mesh_volume
from voxelworld.terrain import Box, SparseVolume, Sphere, Tool, VoxelVolume, demo_terrain

SOFT = Tool(gives_way_below=10.0, unbreakable_from=10.0)


def same_mesh(a, b) -> bool:
    fields = [f for f in ("positions", "normals", "indices", "mat_a", "mat_b", "blend", "occlusion", "tri_material")
              if hasattr(a, f)]
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in fields)


def pair(chunk_size: int = 16):
    dense = demo_terrain(seed=5)
    regrouped = VoxelVolume(dense.shape, dense.voxel_size, dense.origin, dense.iso, chunk_size, dense.materials)
    for name in ("density", "mat_a", "mat_b", "mix", "damage"):
        getattr(regrouped, name)[...] = getattr(dense, name)
    return regrouped, SparseVolume.from_volume(regrouped)


@pytest.mark.parametrize("options", [MeshOptions(), MeshOptions(levels=0), MeshOptions(sharp=True, levels=2)])
def test_whole_volume_meshes_are_the_dense_ones(options):
    dense, sparse = pair()
    assert same_mesh(mesh_volume(sparse, options), mesh_volume(dense, options))
    assert same_mesh(collision_mesh_volume(sparse, options), collision_mesh_volume(dense, options))


def test_dual_vertices_are_the_dense_ones():
    dense, sparse = pair()
    a, b = dual_vertices(dense), dual_vertices(sparse)
    assert np.array_equal(a.positions, b.positions) and np.array_equal(a.mat_a, b.mat_a)


def test_the_chunk_mesher_follows_edits_at_chunk_corners_alike():
    dense, sparse = pair()
    meshers = [ChunkMesher(v) for v in (dense, sparse)]
    rng = np.random.default_rng(3)
    for _ in range(6):
        for mesher in meshers:
            mesher.update()
        assert same_mesh(meshers[0].display_mesh(), meshers[1].display_mesh())
        assert same_mesh(meshers[0].collision_mesh(), meshers[1].collision_mesh())
        corner = rng.integers(1, 5, size=3) * 16.0
        corner[1] = 16.0 + rng.uniform(-1, 4)
        radius = float(rng.uniform(2.0, 5.0))
        for volume in (dense, sparse):
            volume.remove(Sphere(tuple(corner), radius), tool=SOFT)
            volume.add(Box(tuple(corner - 1.0 + 8.0), tuple(corner + 1.5 + 8.0)), "iron")
    assert dense.content_hash() == sparse.content_hash()
    updates = [mesher.update() for mesher in meshers]
    assert updates[0].remeshed == updates[1].remeshed
    for chunk, mesh in updates[0].meshes.items():
        assert same_mesh(mesh, updates[1].meshes[chunk])


def test_the_mesher_state_of_a_sparse_volume_travels_like_a_dense_one():
    dense, sparse = pair()
    mesher = ChunkMesher(sparse)
    mesher.update()
    sparse.remove(Sphere((32.0, 18.0, 32.0), 4.0), tool=SOFT)  # not meshed yet
    state = mesher.state_dict()
    assert sorted(state["behind"]) == sorted(sparse.dirty_chunks)
    twin = ChunkMesher(sparse)
    twin.load_state_dict(state)
    assert same_mesh(twin.display_mesh(), mesher.display_mesh())
    assert same_mesh(twin.update().meshes[(2, 1, 2)], mesher.update().meshes[(2, 1, 2)])


def test_the_mesher_shares_a_sparse_volumes_chunks_instead_of_copying_them():
    _, sparse = pair()
    mesher = ChunkMesher(sparse)
    mesher.update()
    seen = mesher._fields  # what the mesher saw: a snapshot
    shared = [chunk for chunk, block in sparse._stored["density"].items() if seen._stored["density"][chunk] is block]
    assert len(shared) == sparse.stored_chunks("density") > 0
    before = {chunk: block.copy() for chunk, block in seen._stored["density"].items()}
    sparse.remove(Sphere((40.0, 18.0, 40.0), 6.0), tool=SOFT)  # the volume stores new arrays, never in place
    assert all(np.array_equal(seen._stored["density"][chunk], block) for chunk, block in before.items())
    mesher.update()
    assert all(seen._stored["density"][c] is b for c, b in sparse._stored["density"].items())
