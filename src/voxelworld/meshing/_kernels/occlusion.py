"""Per-vertex ambient occlusion: the share of open samples over the hemisphere of a vertex's normal.

Each vertex reads the trilinear density at 28 points (7 rays, 4 steps). Most points fall in cells whose eight
corners are all open or all solid, where the answer needs no interpolation: :func:`cell_kinds` classifies the cells
of a window once, and :func:`vertex_occlusion` interpolates only in the cells the surface crosses, so the answers
are those of interpolating everywhere, bit for bit.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

# Rays over the hemisphere in the vertex's frame (tangent, bitangent, normal): the normal itself and a ring of six
# at 55 degrees from it, every 60 degrees around it.
_TILT = math.radians(55.0)
OCCLUSION_RAYS = np.array([[0.0, 0.0, 1.0]] + [[math.sin(_TILT) * math.cos(a), math.sin(_TILT) * math.sin(a),
                                                math.cos(_TILT)] for a in np.radians(np.arange(0.0, 360.0, 60.0))])
# Distances (samples) along each ray at which the density is read: the farthest is the reach of the occlusion.
OCCLUSION_STEPS = np.array([1.0, 2.0, 3.0, 4.5])

# What a cell of the window is, for the occlusion's points in it (``kinds``): every corner below iso by at least 1
# (every point open), every corner above it by at least 1 (every point solid), or neither.
KIND_OPEN, KIND_SOLID, KIND_MIXED = 0, 1, 2
# Two sums of the same eight products in different orders differ by far less than this (values up to 255).
_ORDER_BAND = 1e-9


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
def cell_kinds(density, iso, kinds):
    """``kinds[i, j, k]``: :data:`KIND_OPEN` where the eight corners of cell (i, j, k) of ``density`` (at least 2
    samples on each axis; ``kinds`` one less) are all below ``iso`` by at least 1, :data:`KIND_SOLID` where all are
    above it by at least 1, else :data:`KIND_MIXED`. The weights of a trilinear interpolation are at least 0 and sum
    to 1 within a few rounding errors, so the margin of 1 (densities are whole numbers up to 255) decides every point
    of an open or solid cell the way interpolating would."""
    nx, ny, nz = density.shape
    low_row = np.empty(nz, dtype=np.uint8)
    high_row = np.empty(nz, dtype=np.uint8)
    below, above = iso - 1.0, iso + 1.0
    for i in range(nx - 1):
        for j in range(ny - 1):
            # Per k, how many of the four samples (i|i+1, j|j+1, k) are open or solid by the margin; a cell adds
            # its two k layers (without branches, so the compiler can vectorise the rows).
            for k in range(nz):
                a, b = np.float64(density[i, j, k]), np.float64(density[i + 1, j, k])
                c, d = np.float64(density[i, j + 1, k]), np.float64(density[i + 1, j + 1, k])
                low_row[k] = (a <= below) + (b <= below) + (c <= below) + (d <= below)
                high_row[k] = (a >= above) + (b >= above) + (c >= above) + (d >= above)
            for k in range(nz - 1):
                low, high = low_row[k] + low_row[k + 1], high_row[k] + high_row[k + 1]
                kinds[i, j, k] = KIND_OPEN if low == 8 else (KIND_SOLID if high == 8 else KIND_MIXED)


@nb.njit(cache=True, nogil=True)
def vertex_occlusion(density, offset, iso, positions, normals, origin, voxel_size, rays, steps, kinds, out):
    """``out[v]`` = the share of the points ``steps`` (samples) along each of the ``rays`` (in the frame of vertex
    v's normal: tangent, bitangent, normal) where the trilinear density is below ``iso``: 1 in the open, lower
    where solid surrounds the vertex. ``positions`` in metres, turned into samples by ``origin`` and
    ``voxel_size``; ``density``'s element [0, 0, 0] is the volume's sample ``offset``; points outside it read its
    nearest point (as :func:`~.simplify.trilinear_density`). A vertex with a zero normal is open (1).

    ``kinds`` (:func:`cell_kinds` of ``density``) spares the interpolation in cells all open or all solid; an
    empty array (``shape[0] == 0``) interpolates everywhere (few vertices in a large window)."""
    nx, ny, nz = density.shape
    n_points = rays.shape[0] * steps.shape[0]
    fx, fy, fz = nx - 1.0, ny - 1.0, nz - 1.0
    mi, mj, mk = max(nx - 2, 0), max(ny - 2, 0), max(nz - 2, 0)
    ox, oy, oz = np.float64(offset[0]), np.float64(offset[1]), np.float64(offset[2])
    classified = kinds.shape[0] > 0
    flat_kinds = kinds.reshape(-1)  # one index a point, worked out in the loop without branches
    stride_i, stride_j = np.int64(kinds.shape[1]) * np.int64(kinds.shape[2]), np.int64(kinds.shape[2])
    # Each point's ray and step, and for one vertex its position (samples of the window) and cell.
    ray_a, ray_b, ray_c, step = np.empty(n_points), np.empty(n_points), np.empty(n_points), np.empty(n_points)
    for q in range(n_points):
        r, s = q // steps.shape[0], q % steps.shape[0]
        ray_a[q], ray_b[q], ray_c[q], step[q] = rays[r, 0], rays[r, 1], rays[r, 2], steps[s]
    px, py, pz = np.empty(n_points), np.empty(n_points), np.empty(n_points)
    ci, cj, ck = np.empty(n_points, np.int64), np.empty(n_points, np.int64), np.empty(n_points, np.int64)
    cell = np.empty(n_points, np.int64)
    mixed = np.empty(n_points, np.int64)  # the points in crossed cells
    for v in range(positions.shape[0]):
        nx_, ny_, nz_ = np.float64(normals[v, 0]), np.float64(normals[v, 1]), np.float64(normals[v, 2])
        length = math.sqrt(nx_ * nx_ + ny_ * ny_ + nz_ * nz_)
        if length == 0.0:
            out[v] = 1.0
            continue
        nx_, ny_, nz_ = nx_ / length, ny_ / length, nz_ / length
        tx, ty, tz, bx, by, bz = tangent_frame(nx_, ny_, nz_)
        x = (np.float64(positions[v, 0]) - origin[0]) / voxel_size
        y = (np.float64(positions[v, 1]) - origin[1]) / voxel_size
        z = (np.float64(positions[v, 2]) - origin[2]) / voxel_size
        # The points first (a loop without branches), clamped into the window, and their cells.
        for q in range(n_points):
            a, b, c, d = ray_a[q], ray_b[q], ray_c[q], step[q]
            qx = min(max(x + d * (a * tx + b * bx + c * nx_) - ox, 0.0), fx)
            qy = min(max(y + d * (a * ty + b * by + c * ny_) - oy, 0.0), fy)
            qz = min(max(z + d * (a * tz + b * bz + c * nz_) - oz, 0.0), fz)
            px[q], py[q], pz[q] = qx, qy, qz
            i, j, k = min(np.int64(qx), mi), min(np.int64(qy), mj), min(np.int64(qz), mk)
            ci[q], cj[q], ck[q] = i, j, k
            cell[q] = i * stride_i + j * stride_j + k
        # The points in open or solid cells counted, those in crossed cells listed (without branches: which kind a
        # point meets is hard to predict).
        solid = 0
        n_mixed = 0
        if classified:
            for q in range(n_points):
                kind = flat_kinds[cell[q]]
                mixed[n_mixed] = q
                n_mixed += kind == KIND_MIXED
                solid += kind == KIND_SOLID
        else:
            for q in range(n_points):
                mixed[q] = q
            n_mixed = n_points
        for m in range(n_mixed):
            q = mixed[m]
            i, j, k = ci[q], cj[q], ck[q]
            i1, j1, k1 = min(i + 1, nx - 1), min(j + 1, ny - 1), min(k + 1, nz - 1)
            vx, vy, vz = px[q] - i, py[q] - j, pz[q] - k
            ux, uy, uz = 1.0 - vx, 1.0 - vy, 1.0 - vz
            d000, d100 = np.float64(density[i, j, k]), np.float64(density[i1, j, k])
            d010, d110 = np.float64(density[i, j1, k]), np.float64(density[i1, j1, k])
            d001, d101 = np.float64(density[i, j, k1]), np.float64(density[i1, j, k1])
            d011, d111 = np.float64(density[i, j1, k1]), np.float64(density[i1, j1, k1])
            # Summed in pairs (a shorter chain of additions); only a value too close to iso to call is summed
            # again in trilinear_density's order, whose answer is the reference.
            value = (((ux * uy * uz) * d000 + (vx * uy * uz) * d100)
                     + ((ux * vy * uz) * d010 + (vx * vy * uz) * d110)) \
                + (((ux * uy * vz) * d001 + (vx * uy * vz) * d101) + ((ux * vy * vz) * d011 + (vx * vy * vz) * d111))
            if abs(value - iso) < _ORDER_BAND:
                value = 0.0
                value += ux * uy * uz * d000
                value += vx * uy * uz * d100
                value += ux * vy * uz * d010
                value += vx * vy * uz * d110
                value += ux * uy * vz * d001
                value += vx * uy * vz * d101
                value += ux * vy * vz * d011
                value += vx * vy * vz * d111
            if value >= iso:
                solid += 1
        out[v] = np.float32(1.0 - solid / n_points)


@nb.njit(cache=True, nogil=True)
def vertex_box(positions, origin, voxel_size, out):
    """``out[0:3]`` and ``out[3:6]``: the least and greatest sample coordinates of ``positions`` (metres, turned
    into samples by ``origin`` and ``voxel_size``); at least one vertex."""
    for axis in range(3):
        out[axis] = out[3 + axis] = (np.float64(positions[0, axis]) - origin[axis]) / voxel_size
    for v in range(1, positions.shape[0]):
        for axis in range(3):
            s = (np.float64(positions[v, axis]) - origin[axis]) / voxel_size
            out[axis] = min(out[axis], s)
            out[3 + axis] = max(out[3 + axis], s)
