"""Shared numba helpers of the meshing kernels: constants, weights, material evaluation, quadrics."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

QEF_COLUMNS = 14
CROSSING_MARGIN = 1.0 / 1024.0  # edge crossings stay this far (samples) from the edge's ends
REGULARISATION = 0.05  # per plane: directions weaker than this stay at the mass point (flat areas, soft edges)


# --------------------------------------------------------------------------------------------- sampling
@nb.njit(cache=True, nogil=True, inline="always")
def axis_difference(low: float, middle: float, high: float, at_start: bool, at_end: bool) -> float:
    """Central difference of three samples along an axis, one-sided at the volume's border."""
    if at_start:
        return 0.0 if at_end else high - middle
    if at_end:
        return middle - low
    return 0.5 * (high - low)


@nb.njit(cache=True, nogil=True, inline="always")
def corner_weight(corner: int, vx: float, vy: float, vz: float) -> float:
    """Trilinear weight of cell corner ``corner`` at local position v: product over the axes of |(1 - c) - v|."""
    wx = vx if corner & 1 else 1.0 - vx
    wy = vy if corner & 2 else 1.0 - vy
    wz = vz if corner & 4 else 1.0 - vz
    return wx * wy * wz


@nb.njit(cache=True, nogil=True, inline="always")
def accumulate(seen: np.ndarray, total: np.ndarray, count: int, m: int | np.integer, value: float) -> int:
    """Add ``value`` to material ``m``'s running total among the ``count`` materials seen so far; returns the
    new count."""
    for q in range(count):
        if seen[q] == m:
            total[q] += value
            return count
    seen[count] = m
    total[count] = value
    return count + 1


@nb.njit(cache=True, nogil=True)
def top_two_materials(weights: np.ndarray, density: np.ndarray, mat_a: np.ndarray, mat_b: np.ndarray, mix: np.ndarray,
                      ids: np.ndarray, values: np.ndarray, seen: np.ndarray, total: np.ndarray) -> None:
    """The evaluation of materials at a point from ``n`` surrounding samples (any dimension).

    A sample's material density is ``density / 255 x`` the material's share in it (``mat_b``'s share is
    ``mix / 255``); a material's evaluation value is the sum over the samples of weight x material density.
    Writes the two materials with the highest values to ``ids[0:2]`` / ``values[0:2]`` (highest first, the lower
    id on a tie; id 0 and value 0 where there is none). Material 0 (none) is never evaluated.
    ``seen`` (int64) and ``total`` (float64), at least 2n long, are scratch.
    """
    n = weights.shape[0]
    count = 0
    for s in range(n):
        for slot in range(2):
            m = np.int64(mat_a[s]) if slot == 0 else np.int64(mat_b[s])
            share = (255.0 - mix[s]) / 255.0 if slot == 0 else mix[s] / 255.0
            value = weights[s] * density[s] / 255.0 * share
            if m == 0 or value <= 0.0:
                continue
            count = accumulate(seen, total, count, m, value)
    ids[0] = ids[1] = 0
    values[0] = values[1] = 0.0
    for q in range(count):
        m, value = seen[q], total[q]
        if value > values[0] or (value == values[0] and ids[0] != 0 and m < ids[0]) or ids[0] == 0:
            ids[1], values[1] = ids[0], values[0]
            ids[0], values[0] = m, value
        elif value > values[1] or (value == values[1] and m < ids[1]) or ids[1] == 0:
            ids[1], values[1] = m, value


# ------------------------------------------------------------------------------------------------ quadrics
@nb.njit(cache=True, nogil=True)
def solve_qef(q: np.ndarray, lo_x: float, lo_y: float, lo_z: float, hi_x: float, hi_y: float, hi_z: float,
              out: np.ndarray) -> None:
    """Minimise the quadric ``q`` (one row) inside the box ``lo .. hi``: ``out[0:3]`` the point, ``out[3]``
    the RMS distance to the planes. Regularised towards the mass point, so flat areas do not drift.

    The point keeps ``CROSSING_MARGIN`` inside the box: two cells or octree nodes share a face, and two vertices
    clamped onto it could meet in one point, which pinches the mesh there (an edge of four triangles, a
    triangle of zero area)."""
    count = q[13]
    mx, my, mz = q[10] / count, q[11] / count, q[12] / count
    lam = REGULARISATION * count
    a00, a01, a02, a11, a12, a22 = q[0] + lam, q[1], q[2], q[3] + lam, q[4], q[5] + lam
    # Right-hand side b - A m, so the solution is an offset from the mass point.
    r0 = q[6] - (q[0] * mx + q[1] * my + q[2] * mz)
    r1 = q[7] - (q[1] * mx + q[3] * my + q[4] * mz)
    r2 = q[8] - (q[2] * mx + q[4] * my + q[5] * mz)
    c00 = a11 * a22 - a12 * a12
    c01 = a02 * a12 - a01 * a22
    c02 = a01 * a12 - a02 * a11
    det = a00 * c00 + a01 * c01 + a02 * c02
    dx = dy = dz = 0.0
    if det != 0.0:
        c11 = a00 * a22 - a02 * a02
        c12 = a01 * a02 - a00 * a12
        c22 = a00 * a11 - a01 * a01
        dx = (c00 * r0 + c01 * r1 + c02 * r2) / det
        dy = (c01 * r0 + c11 * r1 + c12 * r2) / det
        dz = (c02 * r0 + c12 * r1 + c22 * r2) / det
    x = min(max(mx + dx, lo_x + CROSSING_MARGIN), hi_x - CROSSING_MARGIN)
    y = min(max(my + dy, lo_y + CROSSING_MARGIN), hi_y - CROSSING_MARGIN)
    z = min(max(mz + dz, lo_z + CROSSING_MARGIN), hi_z - CROSSING_MARGIN)
    out[0], out[1], out[2] = x, y, z
    out[3] = qef_error(q, x, y, z)


@nb.njit(cache=True, nogil=True, inline="always")
def qef_error(q: np.ndarray, x: float, y: float, z: float) -> float:
    """RMS distance (samples) of the point (x, y, z) to the planes of quadric ``q``."""
    error = (x * (q[0] * x + q[1] * y + q[2] * z) + y * (q[1] * x + q[3] * y + q[4] * z)
             + z * (q[2] * x + q[4] * y + q[5] * z) - 2.0 * (x * q[6] + y * q[7] + z * q[8]) + q[9])
    return math.sqrt(max(error, 0.0) / q[13])
