"""The default world (``demo_terrain()``) with the default MeshOptions: the collision mesh has at most half the
display mesh's triangles (issue #3's must-show figure), both keep their material rules, and the surface is
closed everywhere but at the volume's sides, where the terrain is cut off. With the game's options
(``GAME_MESH_OPTIONS``) the collision mesh is coarser than the display mesh too, and every collision vertex stays
within half a voxel edge of the voxel surface, also after digging."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.ndimage import map_coordinates

from voxelworld.game.settings import GAME_MESH_OPTIONS
from voxelworld.game.world import World
from voxelworld.meshing import ChunkMesher, MeshOptions, collision_mesh_volume, mesh_volume
from voxelworld.terrain import Capsule, Sphere, Tool, demo_terrain

from . import builders as B
from . import topology as T
from .surface_distance import surface_distances


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


def test_the_games_collision_mesh_is_coarser_than_its_display_mesh():
    """The design's main embodiment: fewer collision vertices and triangles than display ones, with the options
    the game meshes with."""
    world = World.demo(npcs=0)
    assert world.settings.mesh_options == GAME_MESH_OPTIONS
    display = world.mesher.display_mesh()
    collision = world.mesher.collision_mesh()
    assert display.triangle_count > 0
    assert len(collision.positions) < len(display.positions)
    assert collision.triangle_count < display.triangle_count


@pytest.fixture(scope="module")
def dug_world():
    """The demo world after digs into hills, the rock wall, a trench and a hollow (a tool that cuts everything),
    remeshed."""
    world = World.demo(npcs=0)
    through_anything = Tool(gives_way_below=1000.0, unbreakable_from=1000.0)
    digs = [Sphere((20.0, 10.0, 20.0), 2.6),  # a hill
            Sphere((38.6, 11.5, 30.0), 1.8),  # the rock wall, where the enemy saws
            Capsule((30.0, 10.2, 14.0), (34.0, 9.6, 17.0), 1.3),  # a trench
            Sphere((26.0, 10.3, 31.0), 1.1),
            Sphere((8.0, 9.7, 40.0), 3.2)]
    changed = sum(world.volume.remove(shape, through_anything).voxels_changed for shape in digs)
    assert changed > 500
    world.mesher.update()
    return world


def test_the_games_collision_vertices_stay_within_half_a_voxel_of_the_surface_after_digging(dug_world):
    """Every collision vertex measured against marching cubes' surface of the same densities."""
    collision = dug_world.mesher.collision_mesh()
    distances = surface_distances(dug_world.volume, collision.positions)
    assert len(distances) > 300
    assert distances.max() <= 0.5


def fibonacci_directions(count: int) -> np.ndarray:
    i = np.arange(count) + 0.5
    polar, azimuth = np.arccos(1.0 - 2.0 * i / count), np.pi * (1.0 + 5.0 ** 0.5) * i
    return np.stack([np.cos(azimuth) * np.sin(polar), np.sin(azimuth) * np.sin(polar), np.cos(polar)], axis=1)


def test_the_games_collision_vertices_keep_the_collision_tolerance_to_the_trilinear_surface(dug_world):
    """The promise of ``collision_tolerance``, checked by brute force: within that distance of every collision
    vertex (plus the 0.01-sample step of the search) some point lies on the other side of the iso surface of the
    trilinearly interpolated density."""
    volume, tolerance = dug_world.volume, dug_world.settings.mesh_options.collision_tolerance
    density = volume.density.astype(np.float64)
    top = np.array(density.shape) - 1.0
    points = (dug_world.mesher.collision_mesh().positions.astype(np.float64) - volume.origin) / volume.voxel_size
    side = map_coordinates(density, np.clip(points, 0.0, top).T, order=1) >= volume.iso
    directions = fibonacci_directions(600)
    found = np.zeros(len(points), dtype=bool)
    for radius in np.arange(0.01, tolerance + 0.0101, 0.01):
        around = np.clip(points[:, None, :] + radius * directions[None], 0.0, top).reshape(-1, 3)
        other = (map_coordinates(density, around.T, order=1) >= volume.iso).reshape(len(points), -1) != side[:, None]
        found |= other.any(axis=1)
    assert found.all(), points[~found]
