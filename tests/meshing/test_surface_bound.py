"""The simplification's surface bound: the trilinear density and the proof that the surface passes within a
distance of a merged vertex, against plain-Python references (scipy's linear interpolation)."""

from __future__ import annotations

import numpy as np
from scipy.ndimage import map_coordinates

from voxelworld.meshing._kernels import surface_within, trilinear_density

ORIGIN = np.zeros(3, dtype=np.int64)  # the arrays hold the whole volume


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
        assert abs(trilinear_density(density, ORIGIN, *point) - reference_density(density, point)) < 1e-9


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
        found = surface_within(density, ORIGIN, 128, *point, *direction, reach)
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
    assert surface_within(density, ORIGIN, 128, 2.5, surface + 0.3, 2.5, *up, 0.31)
    assert not surface_within(density, ORIGIN, 128, 2.5, surface + 0.3, 2.5, *up, 0.29)
    assert not surface_within(density, ORIGIN, 128, 2.5, surface + 0.3, 2.5, 1.0, 0.0, 0.0, 5.0)  # along the surface


def test_a_density_that_flattens_out_does_not_fool_the_proof():
    """Density along y: 255, 140, 129, 120, 0 (the surface near y = 3.1). At y = 1.97 the value and slope of
    the density promise the surface 0.13 samples away (what the simplification used to estimate); it is more
    than a sample away, and only a reach that long finds it."""
    density = np.zeros((4, 6, 4), dtype=np.uint8)
    for y, value in enumerate((255, 255, 140, 129, 120, 0)):
        density[:, y, :] = value
    point, up = np.array([1.5, 1.97, 1.5]), np.array([0.0, 1.0, 0.0])
    value = reference_density(density, point)
    slope = (reference_density(density, point + 0.01 * up) - reference_density(density, point - 0.01 * up)) / 0.02
    assert abs(value - 128) / abs(slope) < 0.15  # the old estimate
    surface = 3.0 + 1.0 / 9.0  # 129 -> 120 crosses 128 a ninth of the way
    assert not surface_within(density, ORIGIN, 128, *point, *up, 0.3)
    assert not surface_within(density, ORIGIN, 128, *point, *up, surface - point[1] - 0.01)
    assert surface_within(density, ORIGIN, 128, *point, *up, surface - point[1] + 0.01)
