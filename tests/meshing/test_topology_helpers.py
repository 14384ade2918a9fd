"""The mesh checks of ``topology.py`` on hand-made meshes, so a passing mesh test means something."""

from __future__ import annotations

import numpy as np
import pytest

from . import topology as T

# The unit cube, 8 corners, 12 triangles wound counter-clockwise seen from outside.
CUBE_POSITIONS = np.array([[x, y, z] for z in (0, 1) for y in (0, 1) for x in (0, 1)], dtype=np.float32)
CUBE_FACES = np.array([
    [0, 2, 3], [0, 3, 1],  # z = 0, outward -z
    [4, 5, 7], [4, 7, 6],  # z = 1, outward +z
    [0, 1, 5], [0, 5, 4],  # y = 0, outward -y
    [2, 6, 7], [2, 7, 3],  # y = 1, outward +y
    [0, 4, 6], [0, 6, 2],  # x = 0, outward -x
    [1, 3, 7], [1, 7, 5],  # x = 1, outward +x
], dtype=np.uint32)


def test_closed_cube_is_clean_and_outward():
    topo = T.topology(CUBE_POSITIONS, CUBE_FACES)
    assert topo.closed_manifold_oriented
    assert (topo.triangles, topo.vertices) == (12, 8)
    assert T.signed_volume(CUBE_POSITIONS, CUBE_FACES) == pytest.approx(1.0)
    inside, outside = np.array([[0.5, 0.5, 0.5], [0.1, 0.9, 0.2]]), np.array([[2.0, 0.5, 0.5], [-0.3, -1, 4]])
    assert np.allclose(T.winding_numbers(CUBE_POSITIONS, CUBE_FACES, inside), 1.0)
    assert np.allclose(T.winding_numbers(CUBE_POSITIONS, CUBE_FACES, outside), 0.0, atol=1e-9)
    centre = CUBE_POSITIONS.astype(float) - 0.5
    assert T.normal_agreement(CUBE_POSITIONS, centre, CUBE_FACES) == 1.0


def test_welding_joins_duplicated_vertices():
    # Every triangle gets its own three vertices, as chunks and material pairs duplicate them.
    positions = CUBE_POSITIONS[CUBE_FACES.reshape(-1)]
    indices = np.arange(36, dtype=np.uint32).reshape(12, 3)
    assert T.topology(positions, indices, welded=False).boundary_edges == 36  # unwelded, every edge is a border
    _, welded = T.weld(positions, indices)
    assert len(np.unique(welded)) == 8
    assert T.topology(positions, indices) == T.topology(CUBE_POSITIONS, CUBE_FACES)


def test_flipped_cube_has_negative_volume_and_winding():
    flipped = CUBE_FACES[:, ::-1]
    assert T.topology(CUBE_POSITIONS, flipped).closed_manifold_oriented  # consistent, but inward
    assert T.signed_volume(CUBE_POSITIONS, flipped) == pytest.approx(-1.0)
    assert T.winding_numbers(CUBE_POSITIONS, flipped, np.array([[0.5, 0.5, 0.5]]))[0] == pytest.approx(-1.0)


def test_defects_are_counted():
    hole = T.topology(CUBE_POSITIONS, CUBE_FACES[1:])
    assert hole.boundary_edges == 3 and not hole.closed_manifold_oriented
    one_flipped = CUBE_FACES.copy()
    one_flipped[0] = one_flipped[0][::-1]
    assert T.topology(CUBE_POSITIONS, one_flipped).inconsistent_edges == 3
    assert T.topology(CUBE_POSITIONS, one_flipped).unbalanced_edges == 3
    assert hole.unbalanced_edges == 3
    # A fin on the cube's edge 0-3 diagonal: the edge (0, 3) is then used by three triangles.
    fin_positions = np.vstack([CUBE_POSITIONS, [[0.5, 0.5, -1.0]]]).astype(np.float32)
    fin = np.vstack([CUBE_FACES, [[0, 3, 8]]])
    assert T.topology(fin_positions, fin).non_manifold_edges == 1
    assert T.topology(fin_positions, fin).unbalanced_edges == 3  # the fin's edge (used 2 : 1) and its two sides
    # Two cubes sharing an edge (a pinch): closed and balanced, yet that edge has four triangles.
    second = CUBE_POSITIONS + np.float32([1.0, 1.0, 0.0])
    pinch_positions = np.vstack([CUBE_POSITIONS, second])
    pinch = T.topology(pinch_positions, np.vstack([CUBE_FACES, CUBE_FACES + 8]))
    assert pinch.non_manifold_edges == 1 and pinch.unbalanced_edges == 0 and pinch.boundary_edges == 0
    assert pinch.inconsistent_edges == 2
    degenerate = np.vstack([CUBE_FACES, [[0, 0, 3]]])
    assert T.topology(CUBE_POSITIONS, degenerate).degenerate_triangles == 1
    doubled = np.vstack([CUBE_FACES, CUBE_FACES[:1]])
    assert T.topology(CUBE_POSITIONS, doubled).duplicate_triangles == 1
