"""Numba kernels of the collision wing, one triangle at a time: a ray's distance to it (Moller-Trumbore) and
the closest points between it and a point or a segment (the overlap queries' contacts)."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

EPSILON = 1e-12


@nb.njit(cache=True, inline="always")
def ray_triangle(positions: np.ndarray, indices: np.ndarray, t: int, ox: float, oy: float, oz: float, dx: float,
                 dy: float, dz: float) -> float:
    """Distance along the ray to triangle t (Moller-Trumbore, both sides), inf when it misses."""
    a, b, c = indices[t, 0], indices[t, 1], indices[t, 2]
    return ray_corner_edges(positions[a, 0], positions[a, 1], positions[a, 2],
                            positions[b, 0] - positions[a, 0], positions[b, 1] - positions[a, 1],
                            positions[b, 2] - positions[a, 2], positions[c, 0] - positions[a, 0],
                            positions[c, 1] - positions[a, 1], positions[c, 2] - positions[a, 2],
                            ox, oy, oz, dx, dy, dz)


@nb.njit(cache=True, inline="always")
def ray_corner_edges(ax: float, ay: float, az: float, e1x: float, e1y: float, e1z: float, e2x: float, e2y: float,
                     e2z: float, ox: float, oy: float, oz: float, dx: float, dy: float, dz: float) -> float:
    """Distance along the ray to the triangle of corner a and edges e1 = b - a, e2 = c - a (Moller-Trumbore, both
    sides), inf when it misses: what :func:`ray_triangle` and the trees' stored triangles both compute."""
    px, py, pz = dy * e2z - dz * e2y, dz * e2x - dx * e2z, dx * e2y - dy * e2x
    det = e1x * px + e1y * py + e1z * pz
    if abs(det) < EPSILON:
        return np.inf
    inv = 1.0 / det
    sx, sy, sz = ox - ax, oy - ay, oz - az
    u = (sx * px + sy * py + sz * pz) * inv
    if u < 0.0 or u > 1.0:
        return np.inf
    qx, qy, qz = sy * e1z - sz * e1y, sz * e1x - sx * e1z, sx * e1y - sy * e1x
    v = (dx * qx + dy * qy + dz * qz) * inv
    if v < 0.0 or u + v > 1.0:
        return np.inf
    dist = (e2x * qx + e2y * qy + e2z * qz) * inv
    return dist if dist >= 0.0 else np.inf


@nb.njit(cache=True, inline="always")
def closest_on_triangle(positions: np.ndarray, indices: np.ndarray, t: int, px: float, py: float,
                        pz: float) -> tuple[float, float, float]:
    """The point of triangle t closest to (px, py, pz) (regions of the triangle's Voronoi diagram)."""
    a, b, c = indices[t, 0], indices[t, 1], indices[t, 2]
    ax, ay, az = positions[a, 0], positions[a, 1], positions[a, 2]
    bx, by, bz = positions[b, 0], positions[b, 1], positions[b, 2]
    cx, cy, cz = positions[c, 0], positions[c, 1], positions[c, 2]
    abx, aby, abz = bx - ax, by - ay, bz - az
    acx, acy, acz = cx - ax, cy - ay, cz - az
    apx, apy, apz = px - ax, py - ay, pz - az
    d1 = abx * apx + aby * apy + abz * apz
    d2 = acx * apx + acy * apy + acz * apz
    if d1 <= 0.0 and d2 <= 0.0:
        return ax, ay, az
    bpx, bpy, bpz = px - bx, py - by, pz - bz
    d3 = abx * bpx + aby * bpy + abz * bpz
    d4 = acx * bpx + acy * bpy + acz * bpz
    if d3 >= 0.0 and d4 <= d3:
        return bx, by, bz
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        v = d1 / (d1 - d3) if d1 != d3 else 0.0  # equal only on a degenerate (zero-length) edge
        return ax + v * abx, ay + v * aby, az + v * abz
    cpx, cpy, cpz = px - cx, py - cy, pz - cz
    d5 = abx * cpx + aby * cpy + abz * cpz
    d6 = acx * cpx + acy * cpy + acz * cpz
    if d6 >= 0.0 and d5 <= d6:
        return cx, cy, cz
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        w = d2 / (d2 - d6) if d2 != d6 else 0.0
        return ax + w * acx, ay + w * acy, az + w * acz
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
        span = (d4 - d3) + (d5 - d6)
        w = (d4 - d3) / span if span != 0.0 else 0.0
        return bx + w * (cx - bx), by + w * (cy - by), bz + w * (cz - bz)
    total = va + vb + vc
    if total == 0.0:  # a degenerate (zero-area) triangle: the nearest point of its edges
        return degenerate_closest(ax, ay, az, bx, by, bz, cx, cy, cz, px, py, pz)
    denom = 1.0 / total
    v = vb * denom
    w = vc * denom
    return ax + abx * v + acx * w, ay + aby * v + acy * w, az + abz * v + acz * w


@nb.njit(cache=True, inline="always")
def closest_segment_point(ax: float, ay: float, az: float, bx: float, by: float, bz: float, px: float, py: float,
                          pz: float) -> tuple[float, float, float]:
    """The point of segment ab closest to p."""
    ux, uy, uz = bx - ax, by - ay, bz - az
    uu = ux * ux + uy * uy + uz * uz
    s = 0.0
    if uu > 0.0:
        s = min(max(((px - ax) * ux + (py - ay) * uy + (pz - az) * uz) / uu, 0.0), 1.0)
    return ax + s * ux, ay + s * uy, az + s * uz


@nb.njit(cache=True)
def degenerate_closest(ax: float, ay: float, az: float, bx: float, by: float, bz: float, cx: float, cy: float,
                       cz: float, px: float, py: float, pz: float) -> tuple[float, float, float]:
    """The point nearest p on the three edges of a triangle with no area."""
    best = np.inf
    rx = ry = rz = 0.0
    for e in range(3):
        if e == 0:
            qx, qy, qz = closest_segment_point(ax, ay, az, bx, by, bz, px, py, pz)
        elif e == 1:
            qx, qy, qz = closest_segment_point(bx, by, bz, cx, cy, cz, px, py, pz)
        else:
            qx, qy, qz = closest_segment_point(cx, cy, cz, ax, ay, az, px, py, pz)
        d = (qx - px) ** 2 + (qy - py) ** 2 + (qz - pz) ** 2
        if d < best:
            best, rx, ry, rz = d, qx, qy, qz
    return rx, ry, rz


@nb.njit(cache=True, inline="always")
def segment_triangle_closest(positions: np.ndarray, indices: np.ndarray, t: int, ax: float, ay: float, az: float,
                             bx: float, by: float, bz: float) -> tuple[float, float, float, float, float, float]:
    """Closest points (on the segment, on the triangle) between segment ab and triangle t: the segment's
    crossing if it crosses, else the best of the segment's ends against the triangle and the triangle's
    edges against the segment (alternating projection, a few rounds, is exact enough for contacts)."""
    dx, dy, dz = bx - ax, by - ay, bz - az
    length = math.sqrt(dx * dx + dy * dy + dz * dz)
    if length > 0.0:
        dist = ray_triangle(positions, indices, t, ax, ay, az, dx / length, dy / length, dz / length)
        if dist <= length:
            x, y, z = ax + dx * dist / length, ay + dy * dist / length, az + dz * dist / length
            return x, y, z, x, y, z
    best = np.inf
    rx = ry = rz = qx = qy = qz = 0.0
    # Candidate 1 and 2: the segment's ends.
    for end in range(2):
        sx, sy, sz = (ax, ay, az) if end == 0 else (bx, by, bz)
        tx, ty, tz = closest_on_triangle(positions, indices, t, sx, sy, sz)
        d = (sx - tx) ** 2 + (sy - ty) ** 2 + (sz - tz) ** 2
        if d < best:
            best, rx, ry, rz, qx, qy, qz = d, sx, sy, sz, tx, ty, tz
    # Candidates 3-5: each triangle edge against the segment (closest points between two segments).
    for e in range(3):
        i0, i1 = indices[t, e], indices[t, (e + 1) % 3]
        cx, cy, cz = positions[i0, 0], positions[i0, 1], positions[i0, 2]
        ex, ey, ez = positions[i1, 0] - cx, positions[i1, 1] - cy, positions[i1, 2] - cz
        # Standard closest points between segments p(s) = a + s d and q(u) = c + u e.
        rrx, rry, rrz = ax - cx, ay - cy, az - cz
        aa = dx * dx + dy * dy + dz * dz
        ee = ex * ex + ey * ey + ez * ez
        f = ex * rrx + ey * rry + ez * rrz
        s = u = 0.0
        if aa <= EPSILON and ee <= EPSILON:
            s = u = 0.0
        elif aa <= EPSILON:
            u = min(max(f / ee, 0.0), 1.0)
        else:
            cc = dx * rrx + dy * rry + dz * rrz
            if ee <= EPSILON:
                s = min(max(-cc / aa, 0.0), 1.0)
            else:
                bb = dx * ex + dy * ey + dz * ez
                denom = aa * ee - bb * bb
                s = min(max((bb * f - cc * ee) / denom, 0.0), 1.0) if denom != 0.0 else 0.0
                u = (bb * s + f) / ee
                if u < 0.0:
                    u = 0.0
                    s = min(max(-cc / aa, 0.0), 1.0)
                elif u > 1.0:
                    u = 1.0
                    s = min(max((bb - cc) / aa, 0.0), 1.0)
        sx, sy, sz = ax + s * dx, ay + s * dy, az + s * dz
        tx, ty, tz = cx + u * ex, cy + u * ey, cz + u * ez
        d = (sx - tx) ** 2 + (sy - ty) ** 2 + (sz - tz) ** 2
        if d < best:
            best, rx, ry, rz, qx, qy, qz = d, sx, sy, sz, tx, ty, tz
    return rx, ry, rz, qx, qy, qz
