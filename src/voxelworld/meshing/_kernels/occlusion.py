"""Per-vertex ambient occlusion: the share of open samples over the hemisphere of a vertex's normal.

Each vertex reads the trilinear density at 28 points (7 rays, 4 steps). Most points fall in cells whose eight
corners are all open or all solid, where the answer needs no interpolation: :func:`cell_kinds` classifies the cells
of a window once, and :func:`vertex_occlusion` interpolates only in the cells the surface crosses, so the answers
are those of interpolating everywhere, bit for bit. The vertices go in blocks, so that the arithmetic of their
frames and points runs across the block in vector registers.
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


@nb.njit(cache=True, nogil=True, inline="always", error_model="numpy")
def tangent_frame(nx: float, ny: float, nz: float) -> tuple[float, float, float, float, float, float]:
    """Two unit vectors at right angles to the unit normal (nx, ny, nz) and to each other, the same for the same
    normal: the first is the normal crossed with the world axis it leans least along (the first such axis on a
    tie). Written with selects rather than branches, so that a loop over many normals vectorises."""
    ax, ay, az = abs(nx), abs(ny), abs(nz)
    least_x = (ax <= ay) & (ax <= az)  # n x (1, 0, 0)
    least_y = ay <= az  # else n x (0, 1, 0), else n x (0, 0, 1)
    tx = 0.0 if least_x else (nz if least_y else -ny)
    ty = -nz if least_x else (0.0 if least_y else nx)
    tz = ny if least_x else (-nx if least_y else 0.0)
    length = math.sqrt(tx * tx + ty * ty + tz * tz)
    tx, ty, tz = tx / length, ty / length, tz / length
    return tx, ty, tz, ny * tz - nz * ty, nz * tx - nx * tz, nx * ty - ny * tx


@nb.njit(cache=True, nogil=True)
def cell_kinds(density: np.ndarray, iso: float, kinds: np.ndarray) -> None:
    """``kinds[i, j, k]``: :data:`KIND_OPEN` where the eight corners of cell (i, j, k) of ``density`` (at least 2
    samples on each axis; ``kinds`` of the same shape, its last layer on each axis no cell and left as it was) are
    all below ``iso`` by at least 1, :data:`KIND_SOLID` where all are above it by at least 1, else
    :data:`KIND_MIXED`. The weights of a trilinear interpolation are at least 0 and sum to 1 within a few rounding
    errors, so the margin of 1 (densities are whole numbers up to 255) decides every point of an open or solid cell
    the way interpolating would. (A cell's kind sits at its first sample's index, so one index serves both.)"""
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


# Vertices whose occlusion is worked out together: their frames and points sit in arrays across the block (small
# enough to stay in the first-level cache), so the compiler vectorises the per-vertex and per-point arithmetic.
OCCLUSION_BLOCK = 64


@nb.njit(cache=True, nogil=True, error_model="numpy")
def vertex_occlusion(density: np.ndarray, offset: np.ndarray, iso: float, positions: np.ndarray, normals: np.ndarray,
                     origin: np.ndarray, voxel_size: float, rays: np.ndarray, steps: np.ndarray, kinds: np.ndarray,
                     out: np.ndarray) -> None:
    """``out[v]`` = the share of the points ``steps`` (samples) along each of the ``rays`` (in the frame of vertex
    v's normal: tangent, bitangent, normal) where the trilinear density is below ``iso``: 1 in the open, lower
    where solid surrounds the vertex. ``positions`` in metres, turned into samples by ``origin`` and
    ``voxel_size``; ``density``'s element [0, 0, 0] is the volume's sample ``offset`` (fewer than 2**31 samples);
    points outside it read its nearest point (as :func:`~.simplify.trilinear_density`). A vertex with a zero
    normal is open (1).

    ``kinds`` (:func:`cell_kinds` of ``density``, the same shape) spares the interpolation in cells all open or all
    solid; an empty array (``shape[0] == 0``) interpolates everywhere (few vertices in a large window).

    The vertices go in blocks of :data:`OCCLUSION_BLOCK`: first their frames, then each point's clamped position,
    cell and kind across the block (loops without branches, vectorised), then the points in crossed cells,
    interpolated one by one. Division by zero cannot occur (a zero normal is replaced before dividing; a unit
    normal's tangent is never zero), so the kernel skips Python's checks for it (``error_model="numpy"``), which
    is what lets the frame loop vectorise."""
    nx, ny, nz = density.shape
    n_steps = steps.shape[0]
    n_points = rays.shape[0] * n_steps
    fx, fy, fz = nx - 1.0, ny - 1.0, nz - 1.0
    mi, mj, mk = max(nx - 2, 0), max(ny - 2, 0), max(nz - 2, 0)
    ox, oy, oz = np.float64(offset[0]), np.float64(offset[1]), np.float64(offset[2])
    o0, o1, o2 = origin[0], origin[1], origin[2]
    classified = kinds.shape[0] > 0
    flat = density.reshape(-1)
    flat_kinds = kinds.reshape(-1)
    si, sj = np.int64(ny) * np.int64(nz), np.int64(nz)  # one flat index a sample, in density and in kinds
    # The other corners of a cell from its first (on an axis one sample long, the same sample: clamped).
    di, dj, dk = si if nx > 1 else 0, sj if ny > 1 else 0, 1 if nz > 1 else 0
    block = OCCLUSION_BLOCK
    # Per vertex of a block: its position (samples), normal, tangent and bitangent, one array each (separate
    # arrays, so the loops that fill and read them vectorise), and how many of its points are solid.
    x_, y_, z_ = np.empty(block), np.empty(block), np.empty(block)
    n0_, n1_, n2_ = np.empty(block), np.empty(block), np.empty(block)
    t0_, t1_, t2_ = np.empty(block), np.empty(block), np.empty(block)
    b0_, b1_, b2_ = np.empty(block), np.empty(block), np.empty(block)
    open_ = np.empty(block, np.bool_)  # a zero normal
    solid = np.empty(block, np.int64)
    # Per point of a block (point q of the block's vertex ``lane`` at q * block + lane): its place in its cell, its
    # cell, and the points in crossed cells.
    size = n_points * block
    frac_x, frac_y, frac_z = np.empty(size), np.empty(size), np.empty(size)
    cell = np.empty(size, np.int32)
    mixed = np.empty(size, np.int64)
    n_vertices = positions.shape[0]
    for start in range(0, n_vertices, block):
        m = min(block, n_vertices - start)
        for lane in range(m):
            v = start + lane
            x_[lane], y_[lane], z_[lane] = np.float64(positions[v, 0]), np.float64(positions[v, 1]), \
                np.float64(positions[v, 2])
            n0_[lane], n1_[lane], n2_[lane] = np.float64(normals[v, 0]), np.float64(normals[v, 1]), \
                np.float64(normals[v, 2])
        for lane in range(m):
            n0, n1, n2 = n0_[lane], n1_[lane], n2_[lane]
            length = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
            zero = length == 0.0  # any frame will do: the answer is 1
            open_[lane] = zero
            n0, n1, n2, length = (0.0 if zero else n0), (0.0 if zero else n1), (1.0 if zero else n2), \
                (1.0 if zero else length)
            n0, n1, n2 = n0 / length, n1 / length, n2 / length
            tx, ty, tz, bx, by, bz = tangent_frame(n0, n1, n2)
            x_[lane], y_[lane], z_[lane] = (x_[lane] - o0) / voxel_size, (y_[lane] - o1) / voxel_size, \
                (z_[lane] - o2) / voxel_size
            n0_[lane], n1_[lane], n2_[lane] = n0, n1, n2
            t0_[lane], t1_[lane], t2_[lane] = tx, ty, tz
            b0_[lane], b1_[lane], b2_[lane] = bx, by, bz
            solid[lane] = 0
        # The points, clamped into the window, their place in their cells and the cells.
        for q in range(n_points):
            r, s = q // n_steps, q % n_steps
            a, b, c, d = rays[r, 0], rays[r, 1], rays[r, 2], steps[s]
            base = q * block
            for lane in range(m):
                qx = min(max(x_[lane] + d * (a * t0_[lane] + b * b0_[lane] + c * n0_[lane]) - ox, 0.0), fx)
                qy = min(max(y_[lane] + d * (a * t1_[lane] + b * b1_[lane] + c * n1_[lane]) - oy, 0.0), fy)
                qz = min(max(z_[lane] + d * (a * t2_[lane] + b * b2_[lane] + c * n2_[lane]) - oz, 0.0), fz)
                i, j, k = min(np.int64(qx), mi), min(np.int64(qy), mj), min(np.int64(qz), mk)
                frac_x[base + lane], frac_y[base + lane], frac_z[base + lane] = qx - i, qy - j, qz - k
                cell[base + lane] = i * si + j * sj + k
        # The points in open or solid cells counted, those in crossed cells listed (without branches: which kind a
        # point meets is hard to predict).
        n_mixed = 0
        if classified:
            for q in range(n_points):
                base = q * block
                for lane in range(m):
                    kind = flat_kinds[cell[base + lane]]
                    mixed[n_mixed] = base + lane
                    n_mixed += kind == KIND_MIXED
                    solid[lane] += kind == KIND_SOLID
        else:
            for q in range(n_points):
                for lane in range(m):
                    mixed[n_mixed] = q * block + lane
                    n_mixed += 1
        for e in range(n_mixed):
            p = mixed[e]
            vx, vy, vz = frac_x[p], frac_y[p], frac_z[p]
            ux, uy, uz = 1.0 - vx, 1.0 - vy, 1.0 - vz
            h = np.int64(cell[p])
            d000, d100 = np.float64(flat[h]), np.float64(flat[h + di])
            d010, d110 = np.float64(flat[h + dj]), np.float64(flat[h + di + dj])
            d001, d101 = np.float64(flat[h + dk]), np.float64(flat[h + di + dk])
            d011, d111 = np.float64(flat[h + dj + dk]), np.float64(flat[h + di + dj + dk])
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
            solid[p % block] += value >= iso
        for lane in range(m):
            out[start + lane] = 1.0 if open_[lane] else np.float32(1.0 - solid[lane] / n_points)


@nb.njit(cache=True, nogil=True)
def vertex_box(positions: np.ndarray, origin: np.ndarray, voxel_size: float, out: np.ndarray) -> None:
    """``out[0:3]`` and ``out[3:6]``: the least and greatest sample coordinates of ``positions`` (metres, turned
    into samples by ``origin`` and ``voxel_size``); at least one vertex."""
    for axis in range(3):
        out[axis] = out[3 + axis] = (np.float64(positions[0, axis]) - origin[axis]) / voxel_size
    for v in range(1, positions.shape[0]):
        for axis in range(3):
            s = (np.float64(positions[v, axis]) - origin[axis]) / voxel_size
            out[axis] = min(out[axis], s)
            out[3 + axis] = max(out[3 + axis], s)
