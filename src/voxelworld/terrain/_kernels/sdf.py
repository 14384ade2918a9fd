"""Signed distances of tool shapes (rows of primitives: spheres, boxes, capsules, cylinders) and the voxels they
may reach: the kernels behind :mod:`voxelworld.terrain.shapes` and the boxes and rows every edit visits."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

__all__ = ["PRIMITIVE_COLUMNS", "SPHERE", "BOX", "CAPSULE", "CYLINDER", "LIMIT", "primitive_sdf", "shape_sdf",
           "sdf_points", "bounding_sphere", "shape_bounds", "voxel_box", "row_span"]

# Columns of a primitive row: kind, point a (3), point b (3), radius, margin. A box is its corners a = min,
# b = max, so a point on a face is exactly on it (a centre and half extents would round).
PRIMITIVE_COLUMNS = 9
SPHERE, BOX, CAPSULE, CYLINDER = 0, 1, 2, 3

LIMIT = 2.0 ** 52  # voxel coordinates are clamped to +-LIMIT before rounding to integers


@nb.njit(cache=True, inline="always")
def primitive_sdf(row: np.ndarray, x: float, y: float, z: float) -> float:
    """Signed distance (m) from (x, y, z) to one primitive row."""
    kind = int(row[0])
    if kind == SPHERE:
        dx, dy, dz = x - row[1], y - row[2], z - row[3]
        d = math.sqrt(dx * dx + dy * dy + dz * dz) - row[7]
    elif kind == BOX:
        qx = max(row[1] - x, x - row[4])
        qy = max(row[2] - y, y - row[5])
        qz = max(row[3] - z, z - row[6])
        ox, oy, oz = max(qx, 0.0), max(qy, 0.0), max(qz, 0.0)
        d = math.sqrt(ox * ox + oy * oy + oz * oz) + min(max(qx, max(qy, qz)), 0.0)
    elif kind == CAPSULE:
        px, py, pz = x - row[1], y - row[2], z - row[3]
        bx, by, bz = row[4] - row[1], row[5] - row[2], row[6] - row[3]
        bb = bx * bx + by * by + bz * bz
        h = 0.0
        if bb > 0.0:
            h = min(max((px * bx + py * by + pz * bz) / bb, 0.0), 1.0)
        ex, ey, ez = px - bx * h, py - by * h, pz - bz * h
        d = math.sqrt(ex * ex + ey * ey + ez * ez) - row[7]
    else:  # CYLINDER: distance to the axis and to the cap planes, combined exactly
        px, py, pz = x - row[1], y - row[2], z - row[3]
        bx, by, bz = row[4] - row[1], row[5] - row[2], row[6] - row[3]
        length = math.sqrt(bx * bx + by * by + bz * bz)
        along = (px * bx + py * by + pz * bz) / length
        rx, ry, rz = px - bx * along / length, py - by * along / length, pz - bz * along / length
        radial = math.sqrt(rx * rx + ry * ry + rz * rz) - row[7]
        axial = abs(along - 0.5 * length) - 0.5 * length
        if radial < 0.0 and axial < 0.0:
            d = max(radial, axial)
        else:
            ra, aa = max(radial, 0.0), max(axial, 0.0)
            d = math.sqrt(ra * ra + aa * aa)
    return d - row[8]


@nb.njit(cache=True, inline="always")
def shape_sdf(primitives: np.ndarray, x: float, y: float, z: float) -> float:
    """Signed distance (m) to the union of the primitive rows."""
    d = np.inf
    for p in range(primitives.shape[0]):
        d = min(d, primitive_sdf(primitives[p], x, y, z))
    return d


@nb.njit(cache=True)
def sdf_points(primitives: np.ndarray, points: np.ndarray, out: np.ndarray) -> None:
    """``out[n]`` = signed distance of ``points[n]`` to the union of ``primitives``."""
    for n in range(points.shape[0]):
        out[n] = shape_sdf(primitives, points[n, 0], points[n, 1], points[n, 2])


@nb.njit(cache=True, inline="always")
def bounding_sphere(row: np.ndarray) -> tuple[float, float, float, float]:
    """Centre and radius (m) of a ball holding every point where the primitive's sdf <= 0."""
    kind = int(row[0])
    if kind == SPHERE:
        return row[1], row[2], row[3], row[7] + row[8]
    half = 0.5 * math.sqrt((row[4] - row[1]) ** 2 + (row[5] - row[2]) ** 2 + (row[6] - row[3]) ** 2)
    # Capsules and cylinders reach ``radius`` past their segment; a box's corners are the segment's ends.
    return 0.5 * (row[1] + row[4]), 0.5 * (row[2] + row[5]), 0.5 * (row[3] + row[6]), half + row[7] + row[8]


@nb.njit(cache=True)
def shape_bounds(primitives: np.ndarray, out: np.ndarray) -> None:
    """``out[0]`` / ``out[1]``: world corners (m) of the box holding every point where the sdf <= 0."""
    out[0, :] = np.inf
    out[1, :] = -np.inf
    for p in range(primitives.shape[0]):
        row = primitives[p]
        kind = int(row[0])
        for axis in range(3):
            a, b = row[1 + axis], row[4 + axis]
            if kind == SPHERE:
                low, high = a - row[7], a + row[7]
            else:  # box (radius 0), capsule, cylinder: the segment's box grown by the radius
                low, high = min(a, b) - row[7], max(a, b) + row[7]
            out[0, axis] = min(out[0, axis], low - row[8])
            out[1, axis] = max(out[1, axis], high + row[8])


@nb.njit(cache=True)
def voxel_box(primitives: np.ndarray, reach: float, origin: np.ndarray, voxel_size: float, shape: np.ndarray,
              box: np.ndarray) -> bool:
    """``box[0]`` / ``box[1]``: inclusive index corners of the voxels whose samples lie in the shape's bounding
    box grown by ``reach`` (m), clipped to the volume. Returns False when no voxel does."""
    bounds = np.empty((2, 3))
    shape_bounds(primitives, bounds)
    inside = True
    for axis in range(3):
        # Clamped to +-2**52 voxels before rounding, so absurdly large shapes cannot overflow the indices.
        low = math.ceil(min(max((bounds[0, axis] - reach - origin[axis]) / voxel_size - 1e-9, -LIMIT), LIMIT))
        high = math.floor(min(max((bounds[1, axis] + reach - origin[axis]) / voxel_size + 1e-9, -LIMIT), LIMIT))
        box[0, axis] = max(low, 0)
        box[1, axis] = min(high, shape[axis] - 1)
        if box[0, axis] > box[1, axis]:
            inside = False
    return inside


@nb.njit(cache=True, inline="always")
def row_span(primitives: np.ndarray, x: float, y: float, reach: float, z0: float, voxel_size: float, k_lo: int,
             k_hi: int) -> tuple[int, int]:
    """The voxels ``k_first..k_last`` of the row at (x, y) that may lie within ``reach`` (m) of the shape, by
    each primitive's bounding sphere; empty (first > last) when none may."""
    first, last = k_hi + 1, k_lo - 1
    for p in range(primitives.shape[0]):
        cx, cy, cz, radius = bounding_sphere(primitives[p])
        rr = (radius + reach) ** 2 - (x - cx) ** 2 - (y - cy) ** 2
        if rr < 0.0:
            continue
        w = math.sqrt(rr) + 1e-9 * voxel_size
        low = min(max((cz - w - z0) / voxel_size, -LIMIT), LIMIT)
        high = min(max((cz + w - z0) / voxel_size, -LIMIT), LIMIT)
        first = min(first, max(int(math.ceil(low)), k_lo))
        last = max(last, min(int(math.floor(high)), k_hi))
    return first, last
