"""Vertex accuracy against analytic shapes (issue #3): a uint8 sphere of radius 20.3 voxels whose density rises
32 per voxel inwards, and a box whose corners dual contouring (``sharp``) should find better than surface nets."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from voxelworld.meshing import MeshOptions, collision_mesh_volume, dual_vertices, mesh_volume
from voxelworld.terrain import VoxelVolume

from . import builders as B

RADIUS = 20.3
CENTRE = np.array([23.6, 24.2, 23.9])  # off the sample grid
SHAPE = (48, 48, 48)


def slope_sphere() -> VoxelVolume:
    """density = clip(round(128 + 32 (r - distance)), 0, 255): iso 128 exactly on the sphere. Default chunks
    (32 voxels: 8 chunks here), default materials."""
    volume = VoxelVolume(SHAPE)
    distance = np.linalg.norm(B.sample_points(SHAPE) - CENTRE, axis=-1)
    volume.density[...] = np.clip(np.round(128.0 + 32.0 * (RADIUS - distance)), 0, 255).astype(np.uint8)
    volume.mat_a[...] = volume.materials.id_of("rock")
    return volume


def radial_error(positions) -> np.ndarray:
    """|distance to the centre - radius| in voxels (voxel size 1, origin 0)."""
    return np.abs(np.linalg.norm(np.asarray(positions, dtype=np.float64) - CENTRE, axis=1) - RADIUS)


@pytest.fixture(scope="module")
def sphere() -> VoxelVolume:
    return slope_sphere()


def test_unsimplified_dual_vertices_lie_on_the_sphere(sphere):
    vertices = dual_vertices(sphere)
    # One vertex per surface cell: a surface crosses at least one cell per unit of its area (4 pi r^2).
    assert len(vertices.positions) > 4.0 * np.pi * RADIUS ** 2
    error = radial_error(vertices.positions)
    assert error.mean() <= 0.02
    assert error.max() <= 0.05
    # Normals point out of the solid: along the radius.
    radial = (vertices.positions - CENTRE) / np.linalg.norm(vertices.positions - CENTRE, axis=1)[:, None]
    assert np.min(np.einsum("ij,ij->i", radial, vertices.normals)) > 0.99
    np.testing.assert_allclose(np.linalg.norm(vertices.normals, axis=1), 1.0, atol=1e-9)


def test_unsimplified_mesh_vertices_lie_on_the_sphere(sphere):
    mesh = mesh_volume(sphere, B.unsimplified())
    error = radial_error(mesh.positions)
    assert error.mean() <= 0.02
    assert error.max() <= 0.05


def test_simplified_mesh_stays_within_half_a_voxel(sphere):
    unsimplified = mesh_volume(sphere, B.unsimplified())
    mesh = mesh_volume(sphere)  # default MeshOptions
    assert mesh.triangle_count < unsimplified.triangle_count / 4  # it did simplify
    assert radial_error(mesh.positions).max() <= 0.5


def test_collision_mesh_vertices_stay_within_its_tolerance(sphere):
    options = MeshOptions()
    mesh = collision_mesh_volume(sphere, options)
    assert mesh.triangle_count > 0
    assert radial_error(mesh.positions).max() <= options.collision_tolerance


def test_sharp_mode_stays_within_half_a_voxel(sphere):
    vertices = dual_vertices(sphere, sharp=True)
    assert radial_error(vertices.positions).max() <= 0.5
    assert radial_error(mesh_volume(sphere, B.unsimplified(sharp=True)).positions).max() <= 0.5
    assert radial_error(mesh_volume(sphere, MeshOptions(sharp=True)).positions).max() <= 0.5


def box_volume():
    low, high = np.array([9.3, 10.6, 8.2]), np.array([29.7, 27.4, 30.55])
    volume = VoxelVolume.from_sdf(B.box_sdf((low + high) / 2, (high - low) / 2), (40, 40, 40), material="rock",
                                  chunk_size=16)
    return volume, low, high


def test_sharp_mode_finds_box_corners_better_than_surface_nets():
    volume, low, high = box_volume()
    sides = itertools.product((False, True), repeat=3)
    corners = np.array([np.where(np.array(side), high, low) for side in sides])
    nearest = {}
    for sharp in (False, True):
        positions = dual_vertices(volume, sharp=sharp).positions
        nearest[sharp] = np.min(np.linalg.norm(positions[None, :, :] - corners[:, None, :], axis=2), axis=1)
    # Surface nets rounds every corner off (its vertex is the mean of the crossings around it).
    assert np.all(nearest[True] < nearest[False])
    # And over the whole box, dual contouring's vertices stay nearer the faces.
    sdf = B.box_sdf((low + high) / 2, (high - low) / 2)
    off = {sharp: np.abs(sdf(*dual_vertices(volume, sharp=sharp).positions.T)).max() for sharp in (False, True)}
    assert off[True] < off[False]
