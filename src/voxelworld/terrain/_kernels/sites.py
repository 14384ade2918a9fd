"""The generator's surface sampled on a coarse grid: the kernel behind :mod:`voxelworld.terrain.sites`.

Heights come from the generator's own column function (:func:`voxelworld.terrain._worldgen_kernels.surface_height`,
a pure function of the settings and the column's place), so a site is chosen from what the world will be without
generating or reading a voxel."""

from __future__ import annotations

import numba as nb
import numpy as np

from .._worldgen_kernels import WorldParams, surface_height

__all__ = ["surface_samples"]


@nb.njit(cache=True, nogil=True)
def surface_samples(p: WorldParams, keys: np.ndarray, x0: float, z0: float, spacing: float, step: float,
                    heights: np.ndarray, gradients: np.ndarray) -> None:
    """Fill ``heights[a, b]`` (m) with the surface height at ``(x0 + a spacing, z0 + b spacing)`` and
    ``gradients[a, b]`` with its slope (dh/dx, dh/dz), by central differences ``step`` m either side."""
    nx, nz = heights.shape
    inverse = 0.5 / step
    for a in range(nx):
        x = x0 + a * spacing
        for b in range(nz):
            z = z0 + b * spacing
            heights[a, b] = surface_height(p, keys, x, z)
            gradients[a, b, 0] = (surface_height(p, keys, x + step, z) - surface_height(p, keys, x - step, z)) * inverse
            gradients[a, b, 1] = (surface_height(p, keys, x, z + step) - surface_height(p, keys, x, z - step)) * inverse
