"""Inverse kinematics kernels: analytic two-bone IK and FABRIK with joint limits, over plain float64 arrays.

Vectors are spelled out as scalars ``(x, y, z)``: the helpers called once per chain or per bone take and return
scalars only, so no array reference counting happens inside the loops. Angles are radians here; the wrappers in
``motion/ik.py`` speak degrees and own every array.

Two-bone IK (``two_bone``), per chain, with bone lengths ``a = |mid - root|`` and ``b = |tip - mid|``:

- the reach ``d = |target - root|`` is clamped to ``[|a - b|, a + b]``; the tip goes to ``root + d_c u`` where ``u``
  is the unit direction from root to target (at ``d`` = 0: the current tip's direction, else the mid's);
- the bend direction ``h`` (unit, perpendicular to ``u``) is the part of ``pole - root`` perpendicular to ``u``.
  With a previous mid, ``q`` (the part of ``previous - root`` perpendicular to ``u``) picks the side of the pole
  plane (the one nearer ``q``), and ``h`` is ``q`` turned about ``u`` towards that side by at most
  ``TURN / cos(alpha)``, alpha the angle between ``u`` and the root-pole line: near that line the pole plane
  whips round as the target passes, and the bend follows it at a bounded rate; far from it the bend is the pole
  plane's. When the pole lies on the line (sine of alpha <= ``DEGENERATE``), ``q`` is used, then the current
  mid's perpendicular part, then the current tip's, then the world axis least aligned with ``u``;
- the mid is ``root + a (cos θ u + sin θ h)`` (law of cosines), the tip ``mid + b * unit(tip point - mid)``, so
  both lengths come out exact to rounding.

FABRIK (``fabrik``): each iteration is a backward pass (tip at the target, towards the root) and a forward pass
(root fixed, outwards). A bone's limit is enforced on its direction in the forward pass, against the parent bone
already placed in that pass, so the returned chain respects every limit; the backward pass applies the absolute
limits and mirrors the relative cones to help convergence. A chain that stalls lying along the root-target line is
bent off it once (``_unbend_line``), since no pass would ever leave the line. Limit kinds, per bone, with ``params[i]``:

- ``FREE``;
- ``HINGE``: ``params[i, 0:3]`` the unit axis, ``[3:6]`` the unit reference (perpendicular to the axis),
  ``[6]``, ``[7]`` the angle range (rad, in [-pi, pi]) about the axis, measured from the reference;
- ``CONE_PARENT``: within ``params[i, 7]`` (rad) of the previous bone's direction;
- ``CONE_FIXED``: within ``params[i, 7]`` (rad) of the unit world direction ``params[i, 0:3]``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

DEGENERATE = 1e-9  # sine of the angle below which a hint vector is taken to lie on the root-target line
TURN = math.radians(3.0)  # with a previous mid: the bend turns towards the pole plane by at most TURN / cos(alpha)
STALL = 1e-6  # a pass moving the tip less than STALL * tolerance ends the search (or bends a chain off the line)
LINE_BEND = 1e-3  # share of a chain's length its joints are moved off the root-target line when lying on it
MIN_BONE = 1e-9  # m: shorter bones are refused (the wrappers raise)

FREE, HINGE, CONE_PARENT, CONE_FIXED = 0, 1, 2, 3

# two_bone error codes (returned with the chain's index); the wrapper names the parameter
OK, BAD_ROOT, BAD_MID, BAD_TIP, BAD_TARGET, BAD_POLE, BAD_PREVIOUS, SHORT_UPPER, SHORT_LOWER = range(9)


@njit(cache=True)
def _finite3(x: float, y: float, z: float) -> bool:
    return math.isfinite(x) and math.isfinite(y) and math.isfinite(z)


@njit(cache=True)
def _perpendicular(x: float, y: float, z: float, ux: float, uy: float, uz: float) -> tuple[float, float, float, float]:
    """The part of (x, y, z) perpendicular to the unit vector u, projected twice (so it is perpendicular to
    rounding even when (x, y, z) nearly lies along u), and its length."""
    t = x * ux + y * uy + z * uz
    px, py, pz = x - t * ux, y - t * uy, z - t * uz
    t = px * ux + py * uy + pz * uz
    px, py, pz = px - t * ux, py - t * uy, pz - t * uz
    return px, py, pz, math.sqrt(px * px + py * py + pz * pz)


@njit(cache=True)
def _renormalised(x: float, y: float, z: float) -> tuple[float, float, float]:
    """A nearly unit vector made unit to rounding: one made from a vector so short that its squared length was
    subnormal (below 1e-308) can be off by far more than rounding."""
    n = math.sqrt(x * x + y * y + z * z)
    return x / n, y / n, z / n


@njit(cache=True)
def _any_perpendicular(ux: float, uy: float, uz: float) -> tuple[float, float, float]:
    """A unit vector perpendicular to the unit vector u: the world axis least aligned with u (ties to x, then y),
    made perpendicular."""
    ax, ay, az = abs(ux), abs(uy), abs(uz)
    if ax <= ay and ax <= az:
        px, py, pz, n = _perpendicular(1.0, 0.0, 0.0, ux, uy, uz)
    elif ay <= az:
        px, py, pz, n = _perpendicular(0.0, 1.0, 0.0, ux, uy, uz)
    else:
        px, py, pz, n = _perpendicular(0.0, 0.0, 1.0, ux, uy, uz)
    return px / n, py / n, pz / n


@njit(cache=True)
def _bend_direction(ux: float, uy: float, uz: float, pole_x: float, pole_y: float, pole_z: float, has_previous: bool,
                    prev_x: float, prev_y: float, prev_z: float, mid_x: float, mid_y: float, mid_z: float, tip_x: float,
                    tip_y: float, tip_z: float) -> tuple[float, float, float]:
    """The unit bend direction h, perpendicular to u, from the hint vectors (all relative to the root)."""
    px, py, pz, pn = _perpendicular(pole_x, pole_y, pole_z, ux, uy, uz)
    pole_sin = min(1.0, pn / math.sqrt(pole_x * pole_x + pole_y * pole_y + pole_z * pole_z)) if pn > 0.0 else 0.0
    pole_ok = pole_sin > DEGENERATE
    if pole_ok:
        px, py, pz = px / pn, py / pn, pz / pn
    if has_previous:
        qx, qy, qz, qn = _perpendicular(prev_x, prev_y, prev_z, ux, uy, uz)
        if qn > DEGENERATE * math.sqrt(prev_x * prev_x + prev_y * prev_y + prev_z * prev_z):
            qx, qy, qz = qx / qn, qy / qn, qz / qn
            if not pole_ok:
                return qx, qy, qz
            if px * qx + py * qy + pz * qz < 0.0:  # keep last frame's side of the pole plane
                px, py, pz = -px, -py, -pz
            # the signed angle from q to p about u, and the most this call may turn
            cx, cy, cz = qy * pz - qz * py, qz * px - qx * pz, qx * py - qy * px
            angle = math.atan2(cx * ux + cy * uy + cz * uz, qx * px + qy * py + qz * pz)
            pole_cos = math.sqrt((1.0 - pole_sin) * (1.0 + pole_sin))
            if abs(angle) * pole_cos <= TURN:
                return px, py, pz
            turn = math.copysign(TURN / pole_cos, angle)
            ct, st = math.cos(turn), math.sin(turn)
            # q turned about u: cos q + sin (u x q)
            hx = ct * qx + st * (uy * qz - uz * qy)
            hy = ct * qy + st * (uz * qx - ux * qz)
            hz = ct * qz + st * (ux * qy - uy * qx)
            hx, hy, hz, hn = _perpendicular(hx, hy, hz, ux, uy, uz)
            return hx / hn, hy / hn, hz / hn
    if pole_ok:
        return px, py, pz
    for step in range(2):  # the current mid, then the current tip
        x, y, z = (mid_x, mid_y, mid_z) if step == 0 else (tip_x, tip_y, tip_z)
        hx, hy, hz, hn = _perpendicular(x, y, z, ux, uy, uz)
        if hn > DEGENERATE * math.sqrt(x * x + y * y + z * z):
            return hx / hn, hy / hn, hz / hn
    return _any_perpendicular(ux, uy, uz)


@njit(cache=True)
def two_bone(root: np.ndarray, mid: np.ndarray, tip: np.ndarray, target: np.ndarray, pole: np.ndarray,
             previous: np.ndarray, has_previous: bool, out_mid: np.ndarray, out_tip: np.ndarray) -> tuple[int, int]:
    """Solve m two-bone chains (all arrays (m, 3) float64; ``previous`` is read only when ``has_previous``).

    Writes ``out_mid`` and ``out_tip``; returns ``(chain, code)``: code ``OK`` (0), or the first chain's bad
    input (a non-finite point or a bone shorter than ``MIN_BONE``), in which case the outputs are partial.
    """
    for c in range(root.shape[0]):
        rx, ry, rz = root[c, 0], root[c, 1], root[c, 2]
        if not _finite3(rx, ry, rz):
            return c, BAD_ROOT
        if not _finite3(mid[c, 0], mid[c, 1], mid[c, 2]):
            return c, BAD_MID
        if not _finite3(tip[c, 0], tip[c, 1], tip[c, 2]):
            return c, BAD_TIP
        if not _finite3(target[c, 0], target[c, 1], target[c, 2]):
            return c, BAD_TARGET
        if not _finite3(pole[c, 0], pole[c, 1], pole[c, 2]):
            return c, BAD_POLE
        if has_previous and not _finite3(previous[c, 0], previous[c, 1], previous[c, 2]):
            return c, BAD_PREVIOUS
        mx, my, mz = mid[c, 0] - rx, mid[c, 1] - ry, mid[c, 2] - rz
        tx, ty, tz = tip[c, 0] - rx, tip[c, 1] - ry, tip[c, 2] - rz
        a = math.sqrt(mx * mx + my * my + mz * mz)
        bx, by, bz = tx - mx, ty - my, tz - mz
        b = math.sqrt(bx * bx + by * by + bz * bz)
        if not a >= MIN_BONE:
            return c, SHORT_UPPER
        if not b >= MIN_BONE:
            return c, SHORT_LOWER

        # u: root towards the target (at the root itself: towards the current tip, else the current mid)
        gx, gy, gz = target[c, 0] - rx, target[c, 1] - ry, target[c, 2] - rz
        d = math.sqrt(gx * gx + gy * gy + gz * gz)
        if d > 0.0:
            ux, uy, uz = gx / d, gy / d, gz / d
        else:
            n = math.sqrt(tx * tx + ty * ty + tz * tz)
            if n > DEGENERATE * (a + b):
                ux, uy, uz = tx / n, ty / n, tz / n
            else:
                ux, uy, uz = mx / a, my / a, mz / a
        ux, uy, uz = _renormalised(ux, uy, uz)

        # the angle at the root, from the clamped reach (exact ends: straight or folded)
        if d >= a + b:
            d, cos_root = a + b, 1.0
        elif d <= abs(a - b):
            d = abs(a - b)
            cos_root = 1.0 if a > b else (-1.0 if a < b else 0.0)
        else:
            cos_root = min(1.0, max(-1.0, (a * a + d * d - b * b) / (2.0 * a * d)))
        sin_root = math.sqrt((1.0 - cos_root) * (1.0 + cos_root))

        hx, hy, hz = _bend_direction(ux, uy, uz, pole[c, 0] - rx, pole[c, 1] - ry, pole[c, 2] - rz, has_previous,
                                     previous[c, 0] - rx, previous[c, 1] - ry, previous[c, 2] - rz,
                                     mx, my, mz, tx, ty, tz)
        hx, hy, hz = _renormalised(hx, hy, hz)
        ex = a * (cos_root * ux + sin_root * hx)
        ey = a * (cos_root * uy + sin_root * hy)
        ez = a * (cos_root * uz + sin_root * hz)
        # the lower bone: from the new mid towards the reached point, at its exact length
        fx, fy, fz = d * ux - ex, d * uy - ey, d * uz - ez
        n = math.sqrt(fx * fx + fy * fy + fz * fz)
        out_mid[c, 0], out_mid[c, 1], out_mid[c, 2] = rx + ex, ry + ey, rz + ez
        out_tip[c, 0] = rx + ex + b * fx / n
        out_tip[c, 1] = ry + ey + b * fy / n
        out_tip[c, 2] = rz + ez + b * fz / n
    return -1, OK


@njit(cache=True)
def _hinge(dx: float, dy: float, dz: float, ax: float, ay: float, az: float, rx: float, ry: float, rz: float, lo: float,
           hi: float) -> tuple[float, float, float]:
    """The direction (unit) nearest to unit d that turns about axis a within [lo, hi] (rad) from reference r."""
    sx, sy, sz = ay * rz - az * ry, az * rx - ax * rz, ax * ry - ay * rx  # a x r: the +90 degree direction
    x = dx * rx + dy * ry + dz * rz
    y = dx * sx + dy * sy + dz * sz
    if x * x + y * y > DEGENERATE * DEGENERATE:
        phi = math.atan2(y, x)
    else:  # d along the axis: every angle is as near; take the one nearest the reference
        phi = 0.0
    if phi < lo or phi > hi:  # outside: the nearer end, going round the circle
        up = (lo - phi) % (2.0 * math.pi)
        down = (phi - hi) % (2.0 * math.pi)
        phi = lo if up <= down else hi
    cp, sp = math.cos(phi), math.sin(phi)
    return cp * rx + sp * sx, cp * ry + sp * sy, cp * rz + sp * sz


@njit(cache=True)
def _cone(dx: float, dy: float, dz: float, cx: float, cy: float, cz: float, angle: float) -> tuple[float, float, float]:
    """The direction (unit) nearest to unit d within ``angle`` (rad) of unit c."""
    t = dx * cx + dy * cy + dz * cz
    px, py, pz, pn = _perpendicular(dx, dy, dz, cx, cy, cz)
    if math.atan2(pn, t) <= angle:
        return dx, dy, dz
    if pn > DEGENERATE:
        px, py, pz = px / pn, py / pn, pz / pn
    else:  # d opposite c: every way round is as near
        px, py, pz = _any_perpendicular(cx, cy, cz)
    ca, sa = math.cos(angle), math.sin(angle)
    return ca * cx + sa * px, ca * cy + sa * py, ca * cz + sa * pz


@njit(cache=True)
def _absolute_limit(kind: int, dx: float, dy: float, dz: float, p0: float, p1: float, p2: float, p3: float, p4: float,
                    p5: float, p6: float, p7: float) -> tuple[float, float, float]:
    """Apply a limit that does not depend on the neighbour bones (hinge, fixed cone); others pass through."""
    if kind == HINGE:
        return _hinge(dx, dy, dz, p0, p1, p2, p3, p4, p5, p6, p7)
    if kind == CONE_FIXED:
        return _cone(dx, dy, dz, p0, p1, p2, p7)
    return dx, dy, dz


@njit(cache=True)
def _unit_or(x: float, y: float, z: float, fx: float, fy: float, fz: float) -> tuple[float, float, float]:
    """(x, y, z) made unit, or the fallback unit f when it is (nearly) zero."""
    n = math.sqrt(x * x + y * y + z * z)
    if n > 0.0 and math.isfinite(n):
        return _renormalised(x / n, y / n, z / n)
    return fx, fy, fz


@njit(cache=True)
def bone_lengths(positions: np.ndarray, lengths: np.ndarray) -> int:
    """Fill ``lengths (k - 1,)`` from ``positions (k, 3)``; return the first bad joint (non-finite: its index;
    a bone shorter than ``MIN_BONE``: k + the bone's index), or -1."""
    k = positions.shape[0]
    for j in range(k):
        if not _finite3(positions[j, 0], positions[j, 1], positions[j, 2]):
            return j
    for i in range(k - 1):
        x = positions[i + 1, 0] - positions[i, 0]
        y = positions[i + 1, 1] - positions[i, 1]
        z = positions[i + 1, 2] - positions[i, 2]
        lengths[i] = math.sqrt(x * x + y * y + z * z)
        if not lengths[i] >= MIN_BONE:
            return k + i
    return -1


@njit(cache=True)
def _forward(positions: np.ndarray, lengths: np.ndarray, kinds: np.ndarray, params: np.ndarray,
             directions: np.ndarray) -> None:
    """Root fixed, outwards: every bone towards its child's current place, then limited against its parent as
    just placed. Updates ``positions`` and ``directions (k - 1, 3)`` (unit, per bone) in place."""
    for i in range(positions.shape[0] - 1):
        dx, dy, dz = _unit_or(positions[i + 1, 0] - positions[i, 0], positions[i + 1, 1] - positions[i, 1],
                              positions[i + 1, 2] - positions[i, 2],
                              directions[i, 0], directions[i, 1], directions[i, 2])
        kind = kinds[i]
        if kind == CONE_PARENT and i > 0:
            dx, dy, dz = _cone(dx, dy, dz, directions[i - 1, 0], directions[i - 1, 1], directions[i - 1, 2],
                               params[i, 7])
        else:
            dx, dy, dz = _absolute_limit(kind, dx, dy, dz, params[i, 0], params[i, 1], params[i, 2], params[i, 3],
                                         params[i, 4], params[i, 5], params[i, 6], params[i, 7])
        directions[i, 0], directions[i, 1], directions[i, 2] = dx, dy, dz
        positions[i + 1, 0] = positions[i, 0] + lengths[i] * dx
        positions[i + 1, 1] = positions[i, 1] + lengths[i] * dy
        positions[i + 1, 2] = positions[i, 2] + lengths[i] * dz


@njit(cache=True)
def _backward(positions: np.ndarray, lengths: np.ndarray, kinds: np.ndarray, params: np.ndarray, directions: np.ndarray,
              tx: float, ty: float, tz: float) -> None:
    """Tip at the target, inwards: every bone from its child's new place towards its own old joint."""
    k = positions.shape[0]
    positions[k - 1, 0], positions[k - 1, 1], positions[k - 1, 2] = tx, ty, tz
    for i in range(k - 2, -1, -1):
        dx, dy, dz = _unit_or(positions[i + 1, 0] - positions[i, 0], positions[i + 1, 1] - positions[i, 1],
                              positions[i + 1, 2] - positions[i, 2],
                              directions[i, 0], directions[i, 1], directions[i, 2])
        if i + 2 < k and kinds[i + 1] == CONE_PARENT:  # the child's cone, seen from the child
            dx, dy, dz = _cone(dx, dy, dz, directions[i + 1, 0], directions[i + 1, 1], directions[i + 1, 2],
                               params[i + 1, 7])
        dx, dy, dz = _absolute_limit(kinds[i], dx, dy, dz, params[i, 0], params[i, 1], params[i, 2], params[i, 3],
                                     params[i, 4], params[i, 5], params[i, 6], params[i, 7])
        directions[i, 0], directions[i, 1], directions[i, 2] = dx, dy, dz
        positions[i, 0] = positions[i + 1, 0] - lengths[i] * dx
        positions[i, 1] = positions[i + 1, 1] - lengths[i] * dy
        positions[i, 2] = positions[i + 1, 2] - lengths[i] * dz


@njit(cache=True)
def _unbend_line(positions: np.ndarray, lengths: np.ndarray, kinds: np.ndarray, params: np.ndarray,
                 directions: np.ndarray, gx: float, gy: float, gz: float, reach: float, total: float) -> bool:
    """A chain lying along the root-target line (g = target - root, of length ``reach``) stays on it in every
    pass, where only a few reaches exist. If it does, bend it off the line (its inner joints moved
    ``LINE_BEND * total`` along the world axis least aligned with the line, then back to lengths and limits) and
    return True; else False."""
    k = positions.shape[0]
    if reach > 0.0:
        ux, uy, uz = gx / reach, gy / reach, gz / reach
    else:
        ux, uy, uz = directions[0, 0], directions[0, 1], directions[0, 2]
    for j in range(1, k):
        x = positions[j, 0] - positions[0, 0]
        y = positions[j, 1] - positions[0, 1]
        z = positions[j, 2] - positions[0, 2]
        cx, cy, cz = y * uz - z * uy, z * ux - x * uz, x * uy - y * ux
        if math.sqrt(cx * cx + cy * cy + cz * cz) > DEGENERATE * total:
            return False
    wx, wy, wz = _any_perpendicular(ux, uy, uz)
    for j in range(1, k - 1):
        positions[j, 0] += LINE_BEND * total * wx
        positions[j, 1] += LINE_BEND * total * wy
        positions[j, 2] += LINE_BEND * total * wz
    _forward(positions, lengths, kinds, params, directions)
    return True


@njit(cache=True)
def fabrik(positions: np.ndarray, lengths: np.ndarray, target: np.ndarray, kinds: np.ndarray, params: np.ndarray,
           tolerance: float, max_iterations: int, directions: np.ndarray) -> tuple[int, bool]:
    """Solve one chain in place. ``positions (k, 3)``, ``lengths (k - 1,)`` (from ``bone_lengths``), ``target
    (3,)`` (m), ``kinds (k - 1,)`` int64 and ``params (k - 1, 8)`` (see the module docstring), ``directions
    (k - 1, 3)`` scratch. Returns ``(iterations, reached)``: backward-forward passes made (0 when the start, made
    to respect the limits, or the closed-form straight chain already answers) and whether the tip is within
    ``tolerance`` (m) of the target."""
    k = positions.shape[0]
    rx, ry, rz = positions[0, 0], positions[0, 1], positions[0, 2]
    tx, ty, tz = target[0], target[1], target[2]
    for i in range(k - 1):
        directions[i, 0] = (positions[i + 1, 0] - positions[i, 0]) / lengths[i]
        directions[i, 1] = (positions[i + 1, 1] - positions[i, 1]) / lengths[i]
        directions[i, 2] = (positions[i + 1, 2] - positions[i, 2]) / lengths[i]
    free = True
    total = 0.0
    for i in range(k - 1):
        free = free and kinds[i] == FREE
        total += lengths[i]
    gx, gy, gz = tx - rx, ty - ry, tz - rz
    reach = math.sqrt(gx * gx + gy * gy + gz * gz)
    if free and reach >= total:  # out of reach, nothing to limit: straight towards the target
        for i in range(k - 1):
            positions[i + 1, 0] = positions[i, 0] + lengths[i] * gx / reach
            positions[i + 1, 1] = positions[i, 1] + lengths[i] * gy / reach
            positions[i + 1, 2] = positions[i, 2] + lengths[i] * gz / reach
        return 0, reach - total <= tolerance

    _forward(positions, lengths, kinds, params, directions)
    ex, ey, ez = positions[k - 1, 0] - tx, positions[k - 1, 1] - ty, positions[k - 1, 2] - tz
    if math.sqrt(ex * ex + ey * ey + ez * ez) <= tolerance:
        return 0, True
    bent = False
    for iteration in range(1, max_iterations + 1):
        lx, ly, lz = positions[k - 1, 0], positions[k - 1, 1], positions[k - 1, 2]
        _backward(positions, lengths, kinds, params, directions, tx, ty, tz)
        positions[0, 0], positions[0, 1], positions[0, 2] = rx, ry, rz
        _forward(positions, lengths, kinds, params, directions)
        ex, ey, ez = positions[k - 1, 0] - tx, positions[k - 1, 1] - ty, positions[k - 1, 2] - tz
        if math.sqrt(ex * ex + ey * ey + ez * ez) <= tolerance:
            return iteration, True
        mx, my, mz = positions[k - 1, 0] - lx, positions[k - 1, 1] - ly, positions[k - 1, 2] - lz
        if math.sqrt(mx * mx + my * my + mz * mz) <= STALL * tolerance:  # stalled: on the line, or limits
            if bent or k == 2 or not _unbend_line(positions, lengths, kinds, params, directions, gx, gy, gz, reach,
                                                  total):
                return iteration, False
            bent = True
    return max_iterations, False
