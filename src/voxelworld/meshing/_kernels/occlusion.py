"""Per-vertex ambient occlusion: the share of open samples over the hemisphere of a vertex's normal."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .simplify import trilinear_density

# Rays over the hemisphere in the vertex's frame (tangent, bitangent, normal): the normal itself and a ring of six
# at 55 degrees from it, every 60 degrees around it.
_TILT = math.radians(55.0)
OCCLUSION_RAYS = np.array([[0.0, 0.0, 1.0]] + [[math.sin(_TILT) * math.cos(a), math.sin(_TILT) * math.sin(a),
                                                math.cos(_TILT)] for a in np.radians(np.arange(0.0, 360.0, 60.0))])
# Distances (samples) along each ray at which the density is read: the farthest is the reach of the occlusion.
OCCLUSION_STEPS = np.array([1.0, 2.0, 3.0, 4.5])


@nb.njit(cache=True, inline="always")
def tangent_frame(nx, ny, nz):
    """Two unit vectors at right angles to the unit normal (nx, ny, nz) and to each other, the same for the same
    normal: the first is the normal crossed with the world axis it leans least along."""
    ax, ay, az = abs(nx), abs(ny), abs(nz)
    if ax <= ay and ax <= az:
        tx, ty, tz = 0.0, -nz, ny  # n x (1, 0, 0)
    elif ay <= az:
        tx, ty, tz = nz, 0.0, -nx  # n x (0, 1, 0)
    else:
        tx, ty, tz = -ny, nx, 0.0  # n x (0, 0, 1)
    length = math.sqrt(tx * tx + ty * ty + tz * tz)
    tx, ty, tz = tx / length, ty / length, tz / length
    return tx, ty, tz, ny * tz - nz * ty, nz * tx - nx * tz, nx * ty - ny * tx


@nb.njit(cache=True, nogil=True)
def vertex_occlusion(density, offset, iso, positions, normals, origin, voxel_size, rays, steps, out):
    """``out[v]`` = the share of the points ``steps`` (samples) along each of the ``rays`` (in the frame of vertex
    v's normal: tangent, bitangent, normal) where the trilinear density is below ``iso``: 1 in the open, lower
    where solid surrounds the vertex. ``positions`` in metres, turned into samples by ``origin`` and
    ``voxel_size``; ``density``'s element [0, 0, 0] is the volume's sample ``offset``. A vertex with a zero normal is
    open (1)."""
    total = rays.shape[0] * steps.shape[0]
    for v in range(positions.shape[0]):
        nx, ny, nz = np.float64(normals[v, 0]), np.float64(normals[v, 1]), np.float64(normals[v, 2])
        length = math.sqrt(nx * nx + ny * ny + nz * nz)
        if length == 0.0:
            out[v] = 1.0
            continue
        nx, ny, nz = nx / length, ny / length, nz / length
        tx, ty, tz, bx, by, bz = tangent_frame(nx, ny, nz)
        x = (np.float64(positions[v, 0]) - origin[0]) / voxel_size
        y = (np.float64(positions[v, 1]) - origin[1]) / voxel_size
        z = (np.float64(positions[v, 2]) - origin[2]) / voxel_size
        solid = 0
        for r in range(rays.shape[0]):
            a, b, c = rays[r, 0], rays[r, 1], rays[r, 2]
            dx, dy, dz = a * tx + b * bx + c * nx, a * ty + b * by + c * ny, a * tz + b * bz + c * nz
            for s in range(steps.shape[0]):
                d = steps[s]
                if trilinear_density(density, offset, x + d * dx, y + d * dy, z + d * dz) >= iso:
                    solid += 1
        out[v] = np.float32(1.0 - solid / total)
