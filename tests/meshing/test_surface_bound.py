"""The simplification's surface bound: the trilinear density and the proof that the surface passes within a
distance of a merged vertex, against plain-Python references (scipy's linear interpolation)."""

from __future__ import annotations

import numpy as np
from scipy.ndimage import map_coordinates

from voxelworld.meshing._kernels import surface_within, trilinear_density


def random_field(seed: int = 5, shape=(7, 6, 8)) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, size=shape).astype(np.uint8)


def reference_density(density: np.ndarray, point) -> float:
    """Trilinear interpolation (spline order 1), points outside taking the nearest border value."""
    clamped = np.clip(np.asarray(point, dtype=float), 0.0, np.array(density.shape) - 1.0)
    return float(map_coordinates(density.astype(np.float64), clamped.reshape(3, 1), order=1)[0])


def test_trilinear_density_matches_linear_interpolation_inside_and_beyond_the_volume():
    density = random_field()
    rng = np.random.default_rng(1)
    points = rng.uniform(-1.5, 9.5, size=(400, 3))
    points[:20] = rng.integers(0, 6, size=(20, 3))  # on samples
    for point in points:
        assert abs(trilinear_density(density, *point) - reference_density(density, point)) < 1e-9


def test_surface_within_is_a_sign_change_across_the_segment():
    density = random_field(9)
    rng = np.random.default_rng(2)
    tried = crossings = 0
    for _ in range(400):
        point = rng.uniform(0.0, 6.0, size=3)
        direction = rng.normal(size=3)
        direction /= np.linalg.norm(direction)
        reach = rng.uniform(0.05, 1.0)
        ahead = reference_density(density, point + reach * direction) >= 128
        behind = reference_density(density, point - reach * direction) >= 128
        found = surface_within(density, 128, *point, *direction, reach)
        assert found == (ahead != behind)
        tried += 1
        crossings += found
        if found:  # the segment does cross: some point on it is at the iso value (to the sampling's step)
            ts = np.linspace(-reach, reach, 2001)
            values = [reference_density(density, point + t * direction) - 128 for t in ts]
            assert min(values) < 0 <= max(values)
    assert 0 < crossings < tried  # both answers were exercised


def test_a_flat_surface_is_found_only_within_reach():
    density = np.zeros((6, 6, 6), dtype=np.uint8)
    density[:, :3, :] = 255  # solid below y = 2, empty from y = 3: the surface at y = 2 + 127/255
    up = (0.0, 1.0, 0.0)
    surface = 2.0 + (255 - 128) / 255
    assert surface_within(density, 128, 2.5, surface + 0.3, 2.5, *up, 0.31)
    assert not surface_within(density, 128, 2.5, surface + 0.3, 2.5, *up, 0.29)
    assert not surface_within(density, 128, 2.5, surface + 0.3, 2.5, 1.0, 0.0, 0.0, 5.0)  # along the surface
