"""Display meshes at a simplification level per chunk (``ChunkMesher.set_display_levels``): chunks at different
levels meet without cracks (the union of the chunk meshes, welded, has no boundary edge but on the world's sides),
a level change rebuilds what a fresh mesher at those levels builds, bit for bit, and the collision mesh stays."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.meshing import ChunkMesher, MeshOptions
from voxelworld.terrain import Cylinder, Sphere, VoxelVolume

from . import builders as B
from .topology import topology, weld

OPTIONS = MeshOptions(levels=3)


def level_maps(grid) -> dict[str, np.ndarray]:
    """Level maps over a chunk grid: uniform, checkerboard 0/3, a ring of 2:1 steps, random 0..3."""
    index = np.indices(grid).sum(axis=0)
    corner = np.indices(grid).max(axis=0)
    return {"all 0": np.zeros(grid, np.int64), "all 3": np.full(grid, 3, np.int64),
            "checkerboard 0/3": np.where(index % 2 == 0, 0, 3).astype(np.int64),
            "rings": np.minimum(corner, 3).astype(np.int64),
            "random": np.random.default_rng(7).integers(0, 4, size=grid).astype(np.int64)}


def pitted_ground() -> VoxelVolume:
    """Noisy ground with a pit and a tunnel crossing chunk borders (open at the world's sides)."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 20.3 - 2.5 * np.sin(x / 5.0) * np.cos(z / 7.0), (48, 40, 48),
                                  material="soil", chunk_size=16)
    volume.remove(Cylinder((16.3, 12.0, 31.6), (16.3, 30.0, 31.6), 3.2))
    volume.remove(Cylinder((2.0, 15.5, 15.8), (40.0, 15.5, 17.0), 2.6))
    volume.remove(Sphere((30.2, 18.0, 8.5), 4.0))
    return volume


def boundary_edges_inside(mesh, volume: VoxelVolume) -> int:
    """Boundary edges (used by one welded triangle) with an end off the world's sides: the surface stops in the
    outermost cells (vertices within one voxel of a side), so an open surface's rim lies there."""
    vertices, triangles = weld(mesh.positions, mesh.indices)
    edges = np.concatenate([triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]])
    keys, counts = np.unique(np.sort(edges, axis=1), axis=0, return_counts=True)
    lone = keys[counts == 1]
    local = (vertices - volume.origin) / volume.voxel_size
    on_side = np.any((local < 1.0) | (local > np.array(volume.shape) - 2.0), axis=1)
    return int(np.sum(~(on_side[lone[:, 0]] & on_side[lone[:, 1]])))


@pytest.mark.parametrize("name", list(level_maps((3, 3, 3))))
def test_chunks_at_mixed_levels_meet_without_cracks(name):
    blob = B.blob_volume(seed=4, count=5)  # a closed blob around the chunk corner (16, 16, 16)
    ground = pitted_ground()
    for volume in (blob, ground):
        mesher = ChunkMesher(volume, options=OPTIONS)
        mesher.set_display_levels(level_maps(volume.chunk_grid_shape)[name])
        mesher.update()
        mesh = mesher.display_mesh()
        assert boundary_edges_inside(mesh, volume) == 0
        shape = topology(mesh.positions, mesh.indices)
        assert shape.non_manifold_edges == 0 and shape.inconsistent_edges == 0
    assert B.border_is_empty(blob) and topology(mesh.positions, mesh.indices).boundary_edges > 0  # ground: open
    blob_mesh = _mesh_at(blob, level_maps(blob.chunk_grid_shape)[name])
    assert topology(blob_mesh.positions, blob_mesh.indices).closed_manifold_oriented


def _mesh_at(volume, levels):
    mesher = ChunkMesher(volume, options=OPTIONS)
    mesher.set_display_levels(levels)
    mesher.update()
    return mesher.display_mesh()


def test_level_zero_keeps_every_cell_and_a_level_change_rebuilds_what_a_fresh_mesher_builds():
    volume = pitted_ground()
    mesher = ChunkMesher(volume, options=OPTIONS)
    mesher.update()
    coarse = mesher.meshes
    collision = B.canonical_collision(mesher.collision_mesh())
    levels = mesher.display_levels
    np.testing.assert_array_equal(levels, 3)
    near = (1, 1, 1)
    levels[near] = 0
    levels[(0, 1, 1)] = 1
    assert mesher.set_display_levels(levels) == {near, (0, 1, 1)}
    update = mesher.update()
    assert update.surfaces_rebuilt == frozenset()  # the vertices stay; only their simplification changes
    assert near in update.remeshed and update.remeshed <= {tuple(int(c + o) for c, o in zip(chunk, offset))
                                                            for chunk in ((1, 1, 1), (0, 1, 1))
                                                            for offset in product((0, 1), repeat=3)}
    assert update.meshes[near].triangle_count > 2 * coarse[near].triangle_count
    fresh = ChunkMesher(volume, options=OPTIONS)
    fresh.set_display_levels(levels)
    fresh.update()
    assert fresh.meshes.keys() == mesher.meshes.keys()
    for chunk, mesh in fresh.meshes.items():
        for name in ("positions", "normals", "indices", "mat_a", "mat_b", "blend", "occlusion"):
            assert getattr(mesh, name).tobytes() == getattr(mesher.meshes[chunk], name).tobytes(), (chunk, name)
    np.testing.assert_array_equal(B.canonical_collision(mesher.collision_mesh()), collision)
    # Back to the options' levels everywhere: the first meshes again.
    mesher.set_display_levels(np.full(volume.chunk_grid_shape, 3))
    mesher.update()
    assert mesher.meshes.keys() == coarse.keys()
    for chunk, mesh in coarse.items():
        assert mesh.positions.tobytes() == mesher.meshes[chunk].positions.tobytes()


def test_an_edit_at_mixed_levels_matches_a_fresh_mesher():
    volume = pitted_ground()
    levels = level_maps(volume.chunk_grid_shape)["random"]
    mesher = ChunkMesher(volume, options=OPTIONS)
    mesher.set_display_levels(levels)
    mesher.update()
    volume.remove(Sphere((16.0, 20.0, 16.0), 3.0))
    mesher.update()
    fresh = ChunkMesher(volume, options=OPTIONS)
    fresh.set_display_levels(levels)
    fresh.update()
    for chunk, mesh in fresh.meshes.items():
        np.testing.assert_array_equal(B.canonical_display(mesher.meshes[chunk]), B.canonical_display(mesh))


def test_the_levels_travel_with_the_mesher_state():
    volume = pitted_ground()
    mesher = ChunkMesher(volume, options=OPTIONS)
    mesher.set_display_levels(level_maps(volume.chunk_grid_shape)["rings"])
    mesher.update()
    twin = ChunkMesher(volume, options=OPTIONS)
    twin.update()
    twin.load_state_dict(mesher.state_dict())
    np.testing.assert_array_equal(twin.display_levels, mesher.display_levels)
    assert twin.display_mesh().positions.tobytes() == mesher.display_mesh().positions.tobytes()
    state = mesher.state_dict()
    del state["levels"]  # a state from before the levels: the mesher keeps its own
    older = ChunkMesher(volume, options=OPTIONS)
    older.update()
    older.load_state_dict(state)
    np.testing.assert_array_equal(older.display_levels, 3)


@pytest.mark.parametrize("levels, match", [(np.zeros((3, 3, 2), np.int64), "shape"),
                                           (np.full((3, 3, 3), 4, np.int64), "0..3"),
                                           (np.zeros((3, 3, 3)), "integer")])
def test_bad_levels_are_refused_before_anything_changes(levels, match):
    volume = pitted_ground()
    mesher = ChunkMesher(volume, options=OPTIONS)
    mesher.update()
    with pytest.raises(ParameterError, match=match):
        mesher.set_display_levels(levels)
    np.testing.assert_array_equal(mesher.display_levels, 3)
    assert mesher.update().remeshed == frozenset()
