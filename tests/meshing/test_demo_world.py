"""The default world (``demo_terrain()``) with the default MeshOptions: the collision mesh has at most half the
display mesh's triangles (issue #3's must-show figure), both keep their material rules, and the surface is
closed everywhere but at the volume's sides, where the terrain is cut off."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.meshing import ChunkMesher, MeshOptions, collision_mesh_volume, mesh_volume
from voxelworld.terrain import demo_terrain

from . import builders as B
from . import topology as T


@pytest.fixture(scope="module")
def world():
    return demo_terrain()


def test_collision_mesh_has_at_most_half_the_display_triangles(world):
    display = mesh_volume(world, MeshOptions())
    collision = collision_mesh_volume(world, MeshOptions())
    assert display.triangle_count > 0
    assert collision.triangle_count <= 0.5 * display.triangle_count
    # The same through a ChunkMesher, as a game would ask.
    mesher = ChunkMesher(world)
    mesher.update()
    assert mesher.display_mesh().triangle_count == display.triangle_count
    assert mesher.collision_mesh().triangle_count == collision.triangle_count


def test_default_world_meshes_keep_their_material_rules(world):
    display = mesh_volume(world)
    assert not any(T.display_material_defects(display).values())
    assert len((set(np.unique(display.mat_a)) | set(np.unique(display.mat_b))) - {0}) >= 4  # a varied world
    collision = collision_mesh_volume(world)
    assert np.all(collision.tri_material != 0)


@pytest.mark.parametrize("meshing", ["unsimplified", "default"])
def test_default_world_surface_is_open_only_at_the_volume_sides(world, meshing):
    mesh = mesh_volume(world, B.unsimplified() if meshing == "unsimplified" else MeshOptions())
    topo = T.topology(mesh.positions, mesh.indices)
    assert topo.boundary_edges > 0  # the terrain runs into the sides
    assert topo.non_manifold_edges == 0 and topo.inconsistent_edges == 0 and topo.degenerate_triangles == 0
    ends = world.world_to_index(T.boundary_edge_points(mesh.positions, mesh.indices).reshape(-1, 3))
    last = np.array(world.shape) - 1
    # A cut-off surface ends in the cells against a side: within one cell of it on some axis.
    at_side = np.any((ends <= 1.0) | (ends >= last - 1.0), axis=1)
    assert np.all(at_side)
