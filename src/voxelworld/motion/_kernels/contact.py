"""Kernels of the contact-aware second action: per-joint clocks and rates, the slowed hand, the arm re-posed.

Plain float64 arrays in and out; quaternions ``(x, y, z, w)``; matrices act on column vectors. Rotations are
read from 4x4 world matrices by normalising their columns, so parents are assumed to scale uniformly (as
glTF skeletons do in practice); under non-uniform scale the re-posed arm is only approximately joined.

``advance_clocks`` (one frame of every joint's clock):

- rate: a joint whose target rate is below its current rate drops to the target at once (an impact, or
  entering a medium); otherwise it relaxes towards the target with its own time constant ``tau``:
  ``rate = target - (target - rate) * exp(-dt / tau)``;
- clock: ``clock += dt * rate``; a joint that trailed the leaders (``lag > 0``) is not let past them: it stops
  at the leaders' new clock, and within ``snap`` seconds of it joins them (clock and rate), so the first action
  resumes with one clock again; without ``loop`` clocks stop at ``end``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def advance_clocks(clocks: np.ndarray, rates: np.ndarray, targets: np.ndarray, taus: np.ndarray, lag: np.ndarray,
                   dt: float, end: float, loop: bool, snap: float, out_clocks: np.ndarray,
                   out_rates: np.ndarray) -> None:
    """One frame: new rates (``out_rates``) and clocks (``out_clocks``) of every joint, see the module."""
    n = clocks.shape[0]
    for j in range(n):
        if targets[j] <= rates[j]:
            out_rates[j] = targets[j]
        else:
            out_rates[j] = targets[j] - (targets[j] - rates[j]) * math.exp(-dt / taus[j])
        out_clocks[j] = clocks[j] + dt * out_rates[j]
    lead = -math.inf
    lead_rate = 0.0
    for j in range(n):
        if lag[j] <= 0.0 and out_clocks[j] > lead:
            lead = out_clocks[j]
            lead_rate = out_rates[j]
    for j in range(n):
        if lag[j] > 0.0 and lead > -math.inf and out_clocks[j] >= lead - snap:
            out_clocks[j] = lead
            out_rates[j] = lead_rate
    if not loop:
        for j in range(n):
            if out_clocks[j] > end:
                out_clocks[j] = end


@njit(cache=True, inline="always")
def _multiply(ax: float, ay: float, az: float, aw: float, bx: float, by: float, bz: float,
              bw: float) -> tuple[float, float, float, float]:
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


@njit(cache=True, inline="always")
def _rotate(qx: float, qy: float, qz: float, qw: float, vx: float, vy: float, vz: float) -> tuple[float, float, float]:
    # v + 2 w (u x v) + 2 u x (u x v)
    tx = 2.0 * (qy * vz - qz * vy)
    ty = 2.0 * (qz * vx - qx * vz)
    tz = 2.0 * (qx * vy - qy * vx)
    return (vx + qw * tx + (qy * tz - qz * ty),
            vy + qw * ty + (qz * tx - qx * tz),
            vz + qw * tz + (qx * ty - qy * tx))


@njit(cache=True, inline="always")
def _between(ux: float, uy: float, uz: float, vx: float, vy: float, vz: float) -> tuple[float, float, float, float]:
    """Shortest rotation taking direction u onto direction v (both non-zero)."""
    nu = math.sqrt(ux * ux + uy * uy + uz * uz)
    nv = math.sqrt(vx * vx + vy * vy + vz * vz)
    ux, uy, uz = ux / nu, uy / nu, uz / nu
    vx, vy, vz = vx / nv, vy / nv, vz / nv
    x, y, z = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
    w = 1.0 + ux * vx + uy * vy + uz * vz
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    if norm < 1e-7:  # opposite: half a turn about an axis perpendicular to u
        if abs(ux) > 0.9:
            x, y, z = -uz, 0.0, ux  # u x (0, 1, 0)
        else:
            x, y, z = 0.0, uz, -uy  # u x (1, 0, 0)
        n = math.sqrt(x * x + y * y + z * z)
        return x / n, y / n, z / n, 0.0
    return x / norm, y / norm, z / norm, w / norm


@njit(cache=True)
def _rotation_of(m: np.ndarray) -> tuple[float, float, float, float]:
    """The unit quaternion of the rotation part of the 4x4 matrix ``m`` (columns normalised)."""
    c0 = math.sqrt(m[0, 0] ** 2 + m[1, 0] ** 2 + m[2, 0] ** 2)
    c1 = math.sqrt(m[0, 1] ** 2 + m[1, 1] ** 2 + m[2, 1] ** 2)
    c2 = math.sqrt(m[0, 2] ** 2 + m[1, 2] ** 2 + m[2, 2] ** 2)
    m00, m10, m20 = m[0, 0] / c0, m[1, 0] / c0, m[2, 0] / c0
    m01, m11, m21 = m[0, 1] / c1, m[1, 1] / c1, m[2, 1] / c1
    m02, m12, m22 = m[0, 2] / c2, m[1, 2] / c2, m[2, 2] / c2
    trace = m00 + m11 + m22
    if trace >= m00 and trace >= m11 and trace >= m22:
        x, y, z, w = m21 - m12, m02 - m20, m10 - m01, 1.0 + trace
    elif m00 >= m11 and m00 >= m22:
        x, y, z, w = 1.0 + m00 - m11 - m22, m01 + m10, m02 + m20, m21 - m12
    elif m11 >= m22:
        x, y, z, w = m01 + m10, 1.0 - m00 + m11 - m22, m12 + m21, m02 - m20
    else:
        x, y, z, w = m02 + m20, m12 + m21, 1.0 - m00 - m11 + m22, m10 - m01
    n = math.sqrt(x * x + y * y + z * z + w * w)
    return x / n, y / n, z / n, w / n


@njit(cache=True)
def repose_chain(parent_world: np.ndarray, translation: np.ndarray, rotation: np.ndarray, joints: np.ndarray,
                 new_positions: np.ndarray, hand_world: np.ndarray, out: np.ndarray) -> None:
    """Local rotations ``out (k, 4)`` of the chain ``joints (k,)`` (each the parent of the next, under
    ``parent_world``) that put its joints at ``new_positions (k, 3)`` (the first where it is; bone lengths as
    the chain's own) and turn the last joint to the rotation of ``hand_world``.

    ``translation (n, 3)``, ``rotation (n, 4)``: every joint's local transform now. Each bone turns by the
    shortest rotation that swings it onto its new direction (so its twist stays the first action's); the last
    joint's local rotation is whatever gives the hand's world rotation. Each output has the sign nearer its input.
    """
    k = joints.shape[0]
    px, py, pz, pw = _rotation_of(parent_world)
    for i in range(k):
        q = rotation[joints[i]]
        if i < k - 1:
            wx, wy, wz, ww = _multiply(px, py, pz, pw, q[0], q[1], q[2], q[3])
            t = translation[joints[i + 1]]
            dx, dy, dz = _rotate(wx, wy, wz, ww, t[0], t[1], t[2])
            bx, by, bz, bw = _between(dx, dy, dz, new_positions[i + 1, 0] - new_positions[i, 0],
                                      new_positions[i + 1, 1] - new_positions[i, 1],
                                      new_positions[i + 1, 2] - new_positions[i, 2])
            nx, ny, nz, nw = _multiply(bx, by, bz, bw, wx, wy, wz, ww)  # the joint's new world rotation
        else:
            nx, ny, nz, nw = _rotation_of(hand_world)
        x, y, z, w = _multiply(-px, -py, -pz, pw, nx, ny, nz, nw)
        n = math.sqrt(x * x + y * y + z * z + w * w)
        sign = 1.0 if x * q[0] + y * q[1] + z * q[2] + w * q[3] >= 0.0 else -1.0
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = sign * x / n, sign * y / n, sign * z / n, sign * w / n
        px, py, pz, pw = nx, ny, nz, nw


@njit(cache=True)
def hand_rotation(parent_world: np.ndarray, placement: np.ndarray, table: np.ndarray, i: int, j: int, u: float,
                  current: np.ndarray, out: np.ndarray) -> None:
    """The wrist's local rotation ``out (4,)`` that gives it the world rotation tabulated in ``table (f, 4)``
    (the first action's, unplaced) between rows ``i`` and ``j`` at share ``u`` (normalised lerp), placed by
    ``placement (4, 4)``, under a parent at ``parent_world (4, 4)``; the sign nearer ``current (4,)``."""
    x = (1.0 - u) * table[i, 0] + u * table[j, 0]
    y = (1.0 - u) * table[i, 1] + u * table[j, 1]
    z = (1.0 - u) * table[i, 2] + u * table[j, 2]
    w = (1.0 - u) * table[i, 3] + u * table[j, 3]
    ax, ay, az, aw = _rotation_of(placement)
    wx, wy, wz, ww = _multiply(ax, ay, az, aw, x, y, z, w)  # the hand's world rotation (not yet unit)
    px, py, pz, pw = _rotation_of(parent_world)
    x, y, z, w = _multiply(-px, -py, -pz, pw, wx, wy, wz, ww)
    n = math.sqrt(x * x + y * y + z * z + w * w)
    sign = 1.0 if x * current[0] + y * current[1] + z * current[2] + w * current[3] >= 0.0 else -1.0
    out[0], out[1], out[2], out[3] = sign * x / n, sign * y / n, sign * z / n, sign * w / n


@njit(cache=True)
def shake(rotation: np.ndarray, joints: np.ndarray, axes: np.ndarray, angle: float, out: np.ndarray) -> None:
    """``out (n, 4)``: ``rotation (n, 4)`` with each of ``joints (m,)`` turned in its own frame by ``angle``
    (radians) about its unit axis ``axes (m, 3)``, alternating sides (local * shake)."""
    out[:] = rotation
    for i in range(joints.shape[0]):
        half = 0.5 * angle * (1.0 if i % 2 == 0 else -1.0)
        s = math.sin(half)
        x, y, z, w = axes[i, 0] * s, axes[i, 1] * s, axes[i, 2] * s, math.cos(half)
        a = rotation[joints[i]]
        out[joints[i], 0], out[joints[i], 1], out[joints[i], 2], out[joints[i], 3] = _multiply(
            a[0], a[1], a[2], a[3], x, y, z, w)
