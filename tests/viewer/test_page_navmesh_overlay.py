"""The page draws a navmesh baked in a turned region where it lies (issue 33 §4; the page fixture of
test_browser.py): the message's world positions, lifted 6 cm along the navmesh's up (out of a wall), and an upright
navmesh 6 cm up, as before."""

from __future__ import annotations

import numpy as np

from voxelworld.navigation.bake import bake
from voxelworld.navigation.frames import rotation_matrix
from voxelworld.viewer.protocol import decode_navmesh, encode_navmesh

from ..navigation.test_rotated_regions import (
    FLOOR_REGION,
    SETTINGS,
    axis_angle,
    floor_and_crate,
    turn,
    turned_region,
    turned_scene,
)
from .test_browser import page  # noqa: F401 (page: the fixture, used again)

WALL = (axis_angle((0, 0, 1), 90), np.array([-3.0, 2.0, 1.0]))  # the floor stood up: its up is world -x


def drawn(page, data: bytes) -> np.ndarray:  # noqa: F811 (page: the fixture)
    """The corners of the overlay's fill after the page got the navmesh message ``data``."""
    corners = page.evaluate("""(bytes) => {
        window.voxelworld.socket.onmessage({ data: new Uint8Array(bytes).buffer });
        return Array.from(window.voxelworld.scene.getObjectByName("navmesh").children[0].geometry
            .attributes.position.array);
    }""", list(data))
    return np.array(corners, dtype=np.float64).reshape(-1, 3)


def test_a_turned_navmesh_is_drawn_on_its_wall(page):  # noqa: F811 (page: the fixture)
    rotation, pivot = WALL
    flat = bake(floor_and_crate(), FLOOR_REGION, SETTINGS)
    mesh = bake(turned_scene(floor_and_crate(), rotation, pivot), turned_region(FLOOR_REGION, rotation, pivot),
                SETTINGS)
    for navmesh, up in ((flat, np.array([0.0, 1.0, 0.0])), (mesh, rotation_matrix(rotation)[:, 1])):
        data = encode_navmesh(900, navmesh)
        _, positions, indices, _ = decode_navmesh(data)
        corners = positions[indices].reshape(-1, 3).astype(np.float64)
        got = drawn(page, data)
        assert got.shape == corners.shape and len(got) > 3
        np.testing.assert_allclose(got - corners, np.broadcast_to(0.06 * up, got.shape), rtol=0, atol=1e-5)
    # The wall's overlay lies on the wall the turned scene stands up: the flat floor's corners turned, 6 cm out.
    _, flat_positions, flat_indices, _ = decode_navmesh(encode_navmesh(1, flat))
    expected = turn(flat_positions[flat_indices].reshape(-1, 3).astype(np.float64), rotation, pivot)
    np.testing.assert_allclose(got, expected + 0.06 * rotation_matrix(rotation)[:, 1], rtol=0, atol=1e-4)
