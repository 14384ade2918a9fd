"""Optimal reciprocal collision avoidance (ORCA, van den Berg, Guy, Lin and Manocha 2011) on the x-z plane.

Each neighbour makes one half-plane of velocities, a *line* ``(px, pz, dx, dz)``: the velocities ``v`` with
``det(d, p - v) <= 0`` (left of the unit direction ``d`` through the point ``p``) keep the pair apart for the
time horizon if the neighbour takes its half of the avoidance. The new velocity is the one closest to the
preferred velocity inside every half-plane and the disc of the agent's top speed: a 2-D linear program solved
incrementally (:func:`solve_velocity`, RVO2's ``linearProgram1/2/3``); where the half-planes leave nothing (a
crowd packed tight), the velocity that least violates the worst of them.

``det(a, b) = a_x b_z - a_z b_x``. Lines are rows of a (m, 4) float64 array written in place.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

EPS = 1e-5  # parallel lines (RVO2's RVO_EPSILON)


@njit(cache=True, nogil=True, inline="always")
def _det(ax: float, az: float, bx: float, bz: float) -> float:
    return ax * bz - az * bx


@njit(cache=True, nogil=True)
def agent_line(px: float, pz: float, vx: float, vz: float, radius: float, qx: float, qz: float, ux: float, uz: float,
               other_radius: float, time_horizon: float, dt: float, share: float, lines: np.ndarray, n: int) -> None:
    """Write to ``lines[n]`` the half-plane of velocities of agent (position ``p``, velocity ``v``, m and m/s)
    that avoids the neighbour (``q``, ``u``) for ``time_horizon`` s, taking half the avoidance (RVO2's
    ``Agent::computeNewVelocity``); already overlapping, it separates them within ``dt`` s."""
    rx, rz = qx - px, qz - pz  # relative position
    wx0, wz0 = vx - ux, vz - uz  # relative velocity
    dist2 = rx * rx + rz * rz
    combined = radius + other_radius
    combined2 = combined * combined
    if dist2 > combined2:
        inv = 1.0 / time_horizon
        wx, wz = wx0 - inv * rx, wz0 - inv * rz  # from the cut-off circle's centre to the relative velocity
        w2 = wx * wx + wz * wz
        dot1 = wx * rx + wz * rz
        if dot1 < 0.0 and dot1 * dot1 > combined2 * w2:  # nearest the cut-off circle
            w = math.sqrt(w2)
            nx, nz = wx / w, wz / w
            dx, dz = nz, -nx
            ux_, uz_ = (combined * inv - w) * nx, (combined * inv - w) * nz
        else:  # nearest a leg of the cone
            leg = math.sqrt(dist2 - combined2)
            if _det(rx, rz, wx, wz) > 0.0:  # the left leg
                dx, dz = (rx * leg - rz * combined) / dist2, (rx * combined + rz * leg) / dist2
            else:  # the right leg
                dx, dz = -(rx * leg + rz * combined) / dist2, -(-rx * combined + rz * leg) / dist2
            dot2 = wx0 * dx + wz0 * dz
            ux_, uz_ = dot2 * dx - wx0, dot2 * dz - wz0
    else:  # overlapping: separate within the step
        inv = 1.0 / dt
        wx, wz = wx0 - inv * rx, wz0 - inv * rz
        w = math.sqrt(wx * wx + wz * wz)
        if w > 0.0:
            nx, nz = wx / w, wz / w
        else:  # on top of each other, at the same velocity: part along x
            nx, nz = -1.0, 0.0
        dx, dz = nz, -nx
        ux_, uz_ = (combined * inv - w) * nx, (combined * inv - w) * nz
    lines[n, 0], lines[n, 1] = vx + share * ux_, vz + share * uz_
    lines[n, 2], lines[n, 3] = dx, dz


@njit(cache=True, nogil=True)
def _program1(lines: np.ndarray, line: int, speed: float, ox: float, oz: float, direction_opt: bool, result: np.ndarray
              ) -> bool:
    """The best velocity on line ``line`` within the disc ``speed`` and the lines before it (RVO2's
    ``linearProgram1``), into ``result``; False when there is none."""
    px, pz, dx, dz = lines[line, 0], lines[line, 1], lines[line, 2], lines[line, 3]
    dot = px * dx + pz * dz
    discriminant = dot * dot + speed * speed - (px * px + pz * pz)
    if discriminant < 0.0:
        return False  # the disc misses the line
    root = math.sqrt(discriminant)
    t_left, t_right = -dot - root, -dot + root
    for i in range(line):
        denominator = _det(dx, dz, lines[i, 2], lines[i, 3])
        numerator = _det(lines[i, 2], lines[i, 3], px - lines[i, 0], pz - lines[i, 1])
        if abs(denominator) <= EPS:  # (nearly) parallel
            if numerator < 0.0:
                return False
            continue
        t = numerator / denominator
        if denominator >= 0.0:
            t_right = min(t_right, t)
        else:
            t_left = max(t_left, t)
        if t_left > t_right:
            return False
    if direction_opt:  # the furthest point along the optimisation direction
        t = t_right if ox * dx + oz * dz > 0.0 else t_left
    else:
        t = min(max(dx * (ox - px) + dz * (oz - pz), t_left), t_right)
    result[0], result[1] = px + t * dx, pz + t * dz
    return True


@njit(cache=True, nogil=True)
def _program2(lines: np.ndarray, count: int, speed: float, ox: float, oz: float, direction_opt: bool, result: np.ndarray
              ) -> int:
    """The velocity closest to ``(ox, oz)`` (or, with ``direction_opt``, furthest along it) within the disc and
    the first ``count`` lines (RVO2's ``linearProgram2``), into ``result``; returns the line it failed at
    (``count`` when it did not)."""
    if direction_opt:
        result[0], result[1] = ox * speed, oz * speed
    elif ox * ox + oz * oz > speed * speed:
        norm = math.sqrt(ox * ox + oz * oz)
        result[0], result[1] = ox / norm * speed, oz / norm * speed
    else:
        result[0], result[1] = ox, oz
    for i in range(count):
        if _det(lines[i, 2], lines[i, 3], lines[i, 0] - result[0], lines[i, 1] - result[1]) > 0.0:
            keep_x, keep_z = result[0], result[1]
            if not _program1(lines, i, speed, ox, oz, direction_opt, result):
                result[0], result[1] = keep_x, keep_z
                return i
    return count


@njit(cache=True, nogil=True)
def _program3(lines: np.ndarray, count: int, begin: int, speed: float, projected: np.ndarray, result: np.ndarray
              ) -> None:
    """Where the lines from ``begin`` on leave no velocity: the one that least violates the worst of them (RVO2's
    ``linearProgram3`` without obstacle lines), into ``result``; ``projected`` is scratch of ``count`` rows."""
    distance = 0.0
    for i in range(begin, count):
        if _det(lines[i, 2], lines[i, 3], lines[i, 0] - result[0], lines[i, 1] - result[1]) > distance:
            m = 0
            for j in range(i):
                determinant = _det(lines[i, 2], lines[i, 3], lines[j, 2], lines[j, 3])
                if abs(determinant) <= EPS:
                    if lines[i, 2] * lines[j, 2] + lines[i, 3] * lines[j, 3] > 0.0:
                        continue  # the same way: line j adds nothing
                    px, pz = 0.5 * (lines[i, 0] + lines[j, 0]), 0.5 * (lines[i, 1] + lines[j, 1])
                else:
                    s = _det(lines[j, 2], lines[j, 3], lines[i, 0] - lines[j, 0], lines[i, 1] - lines[j, 1]) \
                        / determinant
                    px, pz = lines[i, 0] + s * lines[i, 2], lines[i, 1] + s * lines[i, 3]
                dx, dz = lines[j, 2] - lines[i, 2], lines[j, 3] - lines[i, 3]
                norm = math.sqrt(dx * dx + dz * dz)
                projected[m, 0], projected[m, 1] = px, pz
                projected[m, 2], projected[m, 3] = dx / norm, dz / norm
                m += 1
            keep_x, keep_z = result[0], result[1]
            if _program2(projected, m, speed, -lines[i, 3], lines[i, 2], True, result) < m:
                result[0], result[1] = keep_x, keep_z  # rounding only: keep what was found
            distance = _det(lines[i, 2], lines[i, 3], lines[i, 0] - result[0], lines[i, 1] - result[1])


@njit(cache=True, nogil=True)
def solve_velocity(lines: np.ndarray, count: int, speed: float, ox: float, oz: float, projected: np.ndarray,
                   result: np.ndarray) -> bool:
    """The velocity (into ``result[:2]``) closest to the preferred ``(ox, oz)`` (m/s) within the top ``speed``
    and the first ``count`` half-planes of ``lines``, or, when they leave none, the one within ``speed`` that
    least violates the worst of them. ``projected``: scratch with as many rows as ``lines``. Returns whether
    every half-plane held."""
    failed = _program2(lines, count, speed, ox, oz, False, result)
    if failed < count:
        _program3(lines, count, failed, speed, projected, result)
        return False
    return True
