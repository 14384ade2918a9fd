"""Tiles' distances from the actors (what a streaming navmesh keeps), against a plain-Python loop over every tile."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.navigation._kernels.nearness import tile_distances


def reference(x0, z0, size, x_end, z_end, points, within, shape):
    out = np.full(shape, np.inf)
    for i in range(shape[0]):
        for k in range(shape[1]):
            lo_x, lo_z = x0 + i * size, z0 + k * size
            hi_x, hi_z = min(lo_x + size, x_end), min(lo_z + size, z_end)
            for p in points:
                # numpy's hypot is C's (Python's math.hypot rounds its own way since 3.8)
                d = float(np.hypot(max(lo_x - p[0], p[0] - hi_x, 0.0), max(lo_z - p[2], p[2] - hi_z, 0.0)))
                if d <= within:
                    out[i, k] = min(out[i, k], d)
    return out


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(0, 6), st.integers(1, 12), st.integers(1, 12),
       st.floats(0.0, 30.0))
def test_tile_distances_match_a_loop_over_every_tile(seed, n, ntx, ntz, within):
    rng = np.random.default_rng(seed)
    size, x0, z0 = 5.76, -3.0, 7.5
    x_end, z_end = x0 + (ntx - 0.4) * size, z0 + (ntz - 0.7) * size  # the last tiles cut short
    points = np.column_stack([rng.uniform(x0 - 20, x_end + 20, n), rng.uniform(-5, 5, n),
                              rng.uniform(z0 - 20, z_end + 20, n)])
    out = np.empty((ntx, ntz))
    tile_distances(x0, z0, size, x_end, z_end, points, within, out)
    assert np.array_equal(out, reference(x0, z0, size, x_end, z_end, points, within, (ntx, ntz)))


def test_a_point_inside_a_tile_is_at_distance_zero_and_far_tiles_are_infinite():
    out = np.empty((10, 10))
    tile_distances(0.0, 0.0, 2.0, 20.0, 20.0, np.array([[5.0, 0.0, 5.0]]), 3.0, out)
    assert out[2, 2] == 0.0 and out[3, 2] == 1.0 and out[1, 2] == 1.0
    assert out[9, 9] == np.inf and out[4, 2] == 3.0 and out[5, 2] == np.inf
