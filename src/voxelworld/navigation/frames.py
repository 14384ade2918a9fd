"""Frames of turned search regions: a unit quaternion and a pivot, and the rigid motion between a region's own
frame (where its rays fall along -y) and the world.

A :class:`~voxelworld.navigation.SearchRegion` turned by a rotation ``R`` about its box's centre ``c`` sees the
world point ``p`` at the local point ``R^T (p - c) + c``; a :class:`Frame` holds that motion as the matrix
``[R | t]`` with ``world = R @ local + t`` (``t = c - R c``), the form a
:class:`~voxelworld.navigation.NavMesh` stores as its ``frame``. Quaternions are ``(x, y, z, w)``, glTF's
order.

Examples
--------
>>> import math
>>> q = (0.0, 0.0, math.sin(math.radians(45)), math.cos(math.radians(45)))  # a quarter turn about z
>>> frame = Frame.about(q, (1.0, 0.0, 0.0))
>>> frame.to_world([[2.0, 0.0, 0.0]]).round(12).tolist()  # (1, 0, 0) from the pivot turns to (0, 1, 0)
[[1.0, 1.0, 0.0]]
>>> frame.to_local(frame.to_world([[0.5, -2.0, 3.0]])).round(12).tolist()
[[0.5, -2.0, 3.0]]
>>> shortest_arc((0.0, 1.0, 0.0))  # rays going up: a half turn about x
(1.0, 0.0, 0.0, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, short_value

__all__ = ["IDENTITY", "DOWN", "Frame", "check_rotation", "rotation_matrix", "down_axis", "shortest_arc",
           "check_frame"]

IDENTITY = (0.0, 0.0, 0.0, 1.0)  # the quaternion of no rotation, (x, y, z, w)
DOWN = (0.0, -1.0, 0.0)  # the direction a region's rays fall in its own frame
ORTHONORMAL_TOLERANCE = 1e-9  # how far a frame's R may be from orthonormal (entries of R^T R - I)


def _canonical(q: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """``q`` or ``-q`` (the same rotation), whichever has ``w > 0`` (or, for a half turn, its first non-zero
    component positive), so that equal rotations compare equal; no negative zeros."""
    for c in (q[3], q[0], q[1], q[2]):
        if c != 0.0:
            sign = 1.0 if c > 0.0 else -1.0
            break
    return tuple(sign * c + 0.0 for c in q)  # type: ignore[return-value]


def check_rotation(parameter: str, value: object) -> tuple[float, float, float, float]:
    """``value`` as a unit quaternion ``(x, y, z, w)`` of floats, normalised and of canonical sign, or
    ParameterError naming ``parameter`` unless it is four finite numbers, not all zero."""
    legal = "a quaternion (x, y, z, w): four finite numbers, not all zero (stored normalised)"
    if isinstance(value, (str, bytes)):
        raise ParameterError(parameter, value, legal)
    try:
        x, y, z, w = (float(c) for c in value)  # type: ignore[attr-defined]  # not iterable: refused below
    except (TypeError, ValueError):
        raise ParameterError(parameter, value, legal) from None
    if not all(math.isfinite(c) for c in (x, y, z, w)):
        raise ParameterError(parameter, value, legal)
    scale = max(abs(x), abs(y), abs(z), abs(w))  # scaled first: a tiny or huge quaternion does not under/overflow
    if scale == 0.0:
        raise ParameterError(parameter, value, legal)
    x, y, z, w = x / scale, y / scale, z / scale, w / scale
    length = math.sqrt(x * x + y * y + z * z + w * w)
    return _canonical((x / length, y / length, z / length, w / length))


def rotation_matrix(q: Sequence[float]) -> np.ndarray:
    """The (3, 3) rotation matrix of the unit quaternion ``q = (x, y, z, w)``."""
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]], dtype=np.float64)


def down_axis(q: Sequence[float]) -> tuple[float, float, float]:
    """The world direction of a region's rays, ``R @ (0, -1, 0)``, as a tuple of floats (no negative zeros)."""
    return tuple(float(-c) + 0.0 for c in rotation_matrix(q)[:, 1])  # type: ignore[return-value]


def shortest_arc(direction: Iterable[float]) -> tuple[float, float, float, float]:
    """The rotation of the smallest angle turning ``(0, -1, 0)`` onto ``direction`` (a unit vector); for
    ``(0, 1, 0)``, the opposite direction, a half turn about x."""
    dx, dy, dz = (float(c) for c in direction)
    if dx == 0.0 and dz == 0.0:
        return IDENTITY if dy < 0.0 else (1.0, 0.0, 0.0, 0.0)
    # q = (a x d, 1 + a . d) normalised, with a = (0, -1, 0): a x d = (-dz, 0, dx), a . d = -dy.
    return check_rotation("direction", (-dz, 0.0, dx, 1.0 - dy))


class Frame:
    """The rigid motion ``world = R @ local + t`` of a turned region's frame.

    Parameters
    ----------
    matrix : array_like (3, 4)
        ``[R | t]``: R orthonormal (within 1e-9) with determinant +1, everything finite; checked
        (:func:`check_frame`, ParameterError naming ``parameter``).
    """

    def __init__(self, matrix: ArrayLike, parameter: str = "frame") -> None:
        self.matrix = check_frame(parameter, matrix)
        self.rotation = self.matrix[:, :3]
        self.translation = self.matrix[:, 3]

    @classmethod
    def about(cls, rotation: Sequence[float], pivot: ArrayLike) -> Frame:
        """The frame of a region turned by the unit quaternion ``rotation`` about the point ``pivot``."""
        r = rotation_matrix(rotation)
        c = np.asarray(pivot, dtype=np.float64)
        return cls(np.hstack([r, (c - r @ c)[:, None]]))

    def to_world(self, points: ArrayLike) -> np.ndarray:
        """Local points (n, 3) (or one point (3,)) in world coordinates."""
        return np.asarray(points, dtype=np.float64) @ self.rotation.T + self.translation

    def to_local(self, points: ArrayLike) -> np.ndarray:
        """World points (n, 3) (or one point (3,)) in local coordinates: ``R^T (p - t)``."""
        return (np.asarray(points, dtype=np.float64) - self.translation) @ self.rotation

    def vectors_to_world(self, vectors: ArrayLike) -> np.ndarray:
        """Local directions (n, 3) (or (3,)) in world coordinates (turned, not moved)."""
        return np.asarray(vectors, dtype=np.float64) @ self.rotation.T

    def vectors_to_local(self, vectors: ArrayLike) -> np.ndarray:
        """World directions (n, 3) (or (3,)) in local coordinates."""
        return np.asarray(vectors, dtype=np.float64) @ self.rotation

    def local_box(self, lo: Sequence[float] | np.ndarray,
                  hi: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The local axis-aligned box holding the world box ``lo..hi`` (the bounds of its 8 corners)."""
        corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])],
                           dtype=np.float64)
        local = self.to_local(corners)
        return local.min(axis=0), local.max(axis=0)


def check_frame(parameter: str, value: object) -> np.ndarray:
    """``value`` as a (3, 4) float64 matrix ``[R | t]`` (a copy), or ParameterError naming ``parameter`` unless
    it is finite with R orthonormal within 1e-9 and of determinant +1 (a rotation, no mirror, no scale)."""
    legal = ("a (3, 4) matrix [R | t] of finite numbers, R a rotation (orthonormal within "
             f"{ORTHONORMAL_TOLERANCE:g}, determinant +1): world = R @ local + t")
    try:
        matrix = np.array(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(parameter, short_value(value), legal) from None
    if matrix.shape != (3, 4):
        raise ParameterError(f"{parameter}.shape", matrix.shape, legal)
    if not np.all(np.isfinite(matrix)):
        raise ParameterError(parameter, matrix.tolist(), legal)
    r = matrix[:, :3]
    if np.max(np.abs(r.T @ r - np.eye(3))) > ORTHONORMAL_TOLERANCE or np.linalg.det(r) <= 0.0:
        raise ParameterError(parameter, matrix.tolist(), legal)
    return matrix
