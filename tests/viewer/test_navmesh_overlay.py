"""The page's navmesh overlay in the navmesh's frame (issue 33 §4): the navmesh message carries world positions,
so a navmesh baked in a turned region (a wall, a ceiling) is drawn where it lies in the world."""

from __future__ import annotations

import numpy as np

from voxelworld.navigation.bake import bake
from voxelworld.viewer.protocol import decode_navmesh, encode_navmesh, navmesh_triangles

from ..navigation.test_rotated_regions import (
    FLOOR_REGION,
    PIVOT,
    ROTATION,
    SETTINGS,
    axis_angle,
    floor_and_crate,
    turn,
    turned_region,
    turned_scene,
)


def test_a_turned_navmesh_is_sent_in_world_positions():
    flat = bake(floor_and_crate(), FLOOR_REGION, SETTINGS)
    for rotation, pivot in ((ROTATION, PIVOT), (axis_angle((0, 0, 1), 90), np.array([-3.0, 2.0, 1.0]))):
        mesh = bake(turned_scene(floor_and_crate(), rotation, pivot), turned_region(FLOOR_REGION, rotation, pivot),
                    SETTINGS)
        _, positions, indices, levels = decode_navmesh(encode_navmesh(7, mesh))
        # The flat navmesh's triangles turned by the test: the same corners, where the turned scene has its floor.
        flat_positions, flat_indices, flat_levels = navmesh_triangles(flat)
        np.testing.assert_array_equal(indices, flat_indices)
        np.testing.assert_array_equal(levels, flat_levels)
        expected = turn(flat_positions.astype(np.float64), rotation, pivot)
        np.testing.assert_allclose(positions, expected, rtol=0, atol=1e-4)  # float32 of coordinates up to ~20 m
        np.testing.assert_array_equal(positions, mesh.world_vertices().astype(np.float32))
    # An upright navmesh's positions are its vertices, as before.
    _, positions, _, _ = decode_navmesh(encode_navmesh(1, flat))
    np.testing.assert_array_equal(positions, flat.vertices.astype(np.float32))
