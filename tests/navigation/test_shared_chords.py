"""A stretch of outline two regions of a tile share is one chord when simplified (issue 33 §5): it moves no
outline, only where the two regions' polygons meet, so it is not held within the edge error (Recast keeps a
portal between two regions as one straight side)."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.navigation.polygons import WalkableGrid, navmesh_from_grids


def staircase(n: int) -> list[WalkableGrid]:
    """An n x n floor at one height whose cells below the diagonal are one level and the rest another: the two
    step to each other across a staircase of n - 1 stairs, each stair's corner 0.71 cells from the diagonal."""
    i, k = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    below = i > k
    return [WalkableGrid(below, np.zeros((n, n)), 0.0, 0.0, 1.0), WalkableGrid(~below, np.zeros((n, n)), 0.0, 0.0, 1.0)]


@pytest.mark.parametrize("error", [0.25, 0.5, 0.9])  # below 1: the square's corners stay
def test_a_staircase_two_regions_share_is_one_chord(error):
    n = 12
    mesh = navmesh_from_grids(staircase(n), max_corners=6, step_limit=0.1, max_edge_error=error)
    assert mesh.polygon_count == 2  # a triangle each side of the diagonal (before: a polygon a few stairs)
    assert mesh.area() == pytest.approx(n * n)
    assert len(mesh.islands()) == 1 and len(mesh.portals) == 1
    segment = mesh.portal_segments[0][:, [0, 2]]
    assert sorted(map(tuple, segment.tolist())) == [(1.0, 0.0), (12.0, 11.0)]  # the chord from stair to stair


def test_with_no_edge_error_the_shared_staircase_stays_exact():
    n = 12
    mesh = navmesh_from_grids(staircase(n), max_corners=6, step_limit=0.1, max_edge_error=0.0)
    assert mesh.polygon_count > 2
    assert mesh.area() == pytest.approx(n * n)
    assert len(mesh.islands()) == 1
