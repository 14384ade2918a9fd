"""Unit quaternions ``(x, y, z, w)``, vectorised over leading axes (numpy).

Every function takes arrays whose last axis holds the quaternion (4) or vector (3) and broadcasts over the
leading axes, as numpy does. Products are Hamilton products; ``rotate(q, v)`` is ``q v q*``, so
``multiply(a, b)`` rotates by ``b`` first, then by ``a`` (the same order as the matrices
``to_matrix(a) @ to_matrix(b)``). Angles are degrees.

Examples
--------
>>> import numpy as np
>>> from voxelworld.motion import quaternions as quat
>>> q = quat.from_axis_angle([0, 1, 0], 90.0)
>>> np.round(quat.rotate(q, [1.0, 0.0, 0.0]), 6) + 0.0
array([ 0.,  0., -1.])
>>> float(np.round(quat.angle_degrees(q, quat.IDENTITY), 6))
90.0
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from voxelworld.errors import ParameterError

__all__ = ["IDENTITY", "multiply", "conjugate", "normalize", "rotate", "to_matrix", "from_matrix",
           "from_axis_angle", "between", "slerp", "angle_degrees"]

IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])
_TINY = 1e-12  # below this a norm counts as zero
_LINEAR_BELOW = 1e-6  # slerp falls back to normalised lerp when sin(angle) is this small


def _array(parameter: str, value: ArrayLike, last: int) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 0 or array.shape[-1] != last:
        raise ParameterError(parameter, getattr(value, "shape", value), f"an array of shape (..., {last})")
    return array


def multiply(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """The Hamilton product ``a b``: the rotation ``b`` followed by ``a``.

    Examples
    --------
    >>> q = from_axis_angle([0, 0, 1], 30.0)
    >>> bool(np.allclose(multiply(q, q), from_axis_angle([0, 0, 1], 60.0)))
    True
    """
    a, b = _array("a", a, 4), _array("b", b, 4)
    ax, ay, az, aw = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bx, by, bz, bw = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw,
                     aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def conjugate(q: ArrayLike) -> np.ndarray:
    """The conjugate ``(-x, -y, -z, w)``: the inverse rotation of a unit quaternion.

    Examples
    --------
    >>> conjugate([0.0, 0.0, 0.6, 0.8])
    array([-0. , -0. , -0.6,  0.8])
    """
    q = _array("q", q, 4)
    return q * np.array([-1.0, -1.0, -1.0, 1.0])


def normalize(q: ArrayLike) -> np.ndarray:
    """``q`` scaled to unit length; raises :class:`ParameterError` on a zero or non-finite quaternion.

    Examples
    --------
    >>> normalize([0.0, 0.0, 0.0, 2.0])
    array([0., 0., 0., 1.])
    """
    q = _array("q", q, 4)
    norm = np.linalg.norm(q, axis=-1, keepdims=True)
    if not np.all(np.isfinite(norm)) or np.any(norm < _TINY):
        raise ParameterError("q", q, "finite quaternions of non-zero length")
    return q / norm


def rotate(q: ArrayLike, v: ArrayLike) -> np.ndarray:
    """The vectors ``v (..., 3)`` rotated by the unit quaternions ``q (..., 4)``.

    Examples
    --------
    >>> np.round(rotate(from_axis_angle([1, 0, 0], 90.0), [0.0, 1.0, 0.0]), 6) + 0.0
    array([0., 0., 1.])
    """
    q, v = _array("q", q, 4), _array("v", v, 3)
    u, w = q[..., :3], q[..., 3:]
    # v' = v + 2 w (u x v) + 2 u x (u x v), the expansion of q v q* for unit q.
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def to_matrix(q: ArrayLike) -> np.ndarray:
    """The rotation matrices ``(..., 3, 3)`` of the quaternions ``q`` (normalised on the way).

    Examples
    --------
    >>> np.round(to_matrix(from_axis_angle([0, 0, 1], 90.0)), 6) + 0.0
    array([[ 0., -1.,  0.],
           [ 1.,  0.,  0.],
           [ 0.,  0.,  1.]])
    """
    q = _array("q", q, 4)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    s = 2.0 / np.maximum(x * x + y * y + z * z + w * w, _TINY)
    xx, yy, zz = s * x * x, s * y * y, s * z * z
    xy, xz, yz = s * x * y, s * x * z, s * y * z
    wx, wy, wz = s * w * x, s * w * y, s * w * z
    rows = [[1.0 - yy - zz, xy - wz, xz + wy],
            [xy + wz, 1.0 - xx - zz, yz - wx],
            [xz - wy, yz + wx, 1.0 - xx - yy]]
    return np.stack([np.stack(row, axis=-1) for row in rows], axis=-2)


def from_matrix(m: ArrayLike) -> np.ndarray:
    """The unit quaternions (``w >= 0``) of rotation matrices ``m (..., 3, 3)``.

    Uses the largest of the four diagonal combinations (Shepperd's method), so it is stable for every
    rotation; the sign is chosen so that ``w >= 0`` (and the first non-zero of x, y, z is positive at w = 0).

    Examples
    --------
    >>> np.round(from_matrix(np.eye(3)), 6) + 0.0
    array([0., 0., 0., 1.])
    """
    m = np.asarray(m, dtype=np.float64)
    if m.ndim < 2 or m.shape[-2:] != (3, 3):
        raise ParameterError("m", m.shape, "an array of shape (..., 3, 3)")
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    trace = m00 + m11 + m22
    candidates = np.stack([
        np.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], m[..., 1, 0] - m[..., 0, 1],
                  1.0 + trace], axis=-1),
        np.stack([1.0 + m00 - m11 - m22, m[..., 0, 1] + m[..., 1, 0], m[..., 0, 2] + m[..., 2, 0],
                  m[..., 2, 1] - m[..., 1, 2]], axis=-1),
        np.stack([m[..., 0, 1] + m[..., 1, 0], 1.0 - m00 + m11 - m22, m[..., 1, 2] + m[..., 2, 1],
                  m[..., 0, 2] - m[..., 2, 0]], axis=-1),
        np.stack([m[..., 0, 2] + m[..., 2, 0], m[..., 1, 2] + m[..., 2, 1], 1.0 - m00 - m11 + m22,
                  m[..., 1, 0] - m[..., 0, 1]], axis=-1)], axis=-2)
    which = np.argmax(np.stack([trace, m00, m11, m22], axis=-1), axis=-1)
    q = np.take_along_axis(candidates, which[..., None, None], axis=-2)[..., 0, :]
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return _canonical(q)


def _canonical(q: np.ndarray) -> np.ndarray:
    """``q`` or ``-q``, whichever has ``w > 0`` (ties broken by the first non-zero of x, y, z)."""
    key = q[..., 3].copy()
    for axis in (0, 1, 2):
        key = np.where(key == 0.0, q[..., axis], key)
    return np.where((key < 0.0)[..., None], -q, q)


def from_axis_angle(axis: ArrayLike, degrees: ArrayLike) -> np.ndarray:
    """The rotation by ``degrees`` about ``axis`` (any non-zero length; right-hand rule).

    Examples
    --------
    >>> np.round(from_axis_angle([0, 0, 2], 180.0), 6) + 0.0
    array([0., 0., 1., 0.])
    """
    axis = _array("axis", axis, 3)
    degrees = np.asarray(degrees, dtype=np.float64)
    norm = np.linalg.norm(axis, axis=-1, keepdims=True)
    if not np.all(np.isfinite(norm)) or np.any(norm < _TINY):
        raise ParameterError("axis", axis, "finite non-zero vectors")
    if not np.all(np.isfinite(degrees)):
        raise ParameterError("degrees", degrees, "finite angles (degrees)")
    half = np.radians(degrees)[..., None] * 0.5
    vector = axis / norm * np.sin(half)
    scalar = np.broadcast_to(np.cos(half), vector.shape[:-1] + (1,))
    return np.concatenate([vector, scalar], axis=-1)


def between(u: ArrayLike, v: ArrayLike) -> np.ndarray:
    """The shortest rotation taking direction ``u`` onto direction ``v`` (lengths ignored).

    For opposite directions the rotation is 180 degrees about an axis perpendicular to ``u``, chosen
    deterministically (the cross product of ``u`` with x, or with y when ``u`` is nearly along x).

    Examples
    --------
    >>> q = between([1.0, 0.0, 0.0], [0.0, 2.0, 0.0])
    >>> np.round(rotate(q, [1.0, 0.0, 0.0]), 6) + 0.0
    array([0., 1., 0.])
    """
    u, v = _array("u", u, 3), _array("v", v, 3)
    nu, nv = np.linalg.norm(u, axis=-1, keepdims=True), np.linalg.norm(v, axis=-1, keepdims=True)
    if not np.all(np.isfinite(nu)) or np.any(nu < _TINY):
        raise ParameterError("u", u, "finite non-zero directions")
    if not np.all(np.isfinite(nv)) or np.any(nv < _TINY):
        raise ParameterError("v", v, "finite non-zero directions")
    u, v = np.broadcast_arrays(u / nu, v / nv)
    q = np.concatenate([np.cross(u, v), 1.0 + np.sum(u * v, axis=-1, keepdims=True)], axis=-1)
    norm = np.linalg.norm(q, axis=-1, keepdims=True)
    opposite = norm[..., 0] < 1e-7
    if np.any(opposite):
        along_x = np.abs(u[..., 0:1]) > 0.9
        helper = np.where(along_x, np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0]))
        axis = np.cross(u, helper)
        axis = axis / np.linalg.norm(axis, axis=-1, keepdims=True)
        flip = np.concatenate([axis, np.zeros(axis.shape[:-1] + (1,))], axis=-1)
        q = np.where(opposite[..., None], flip, q)
        norm = np.where(opposite[..., None], 1.0, norm)
    return q / norm


def slerp(a: ArrayLike, b: ArrayLike, t: ArrayLike) -> np.ndarray:
    """Spherical linear interpolation from ``a`` (t = 0) to ``b`` (t = 1) along the shortest path.

    ``b`` is negated when ``a . b < 0`` (so ``slerp(a, -a, t)`` is ``a`` for every t); ``t = 0`` gives ``a``
    and ``t = 1`` the sign-matched ``b`` exactly. Nearly equal quaternions are interpolated linearly and
    normalised. ``t`` broadcasts against the leading axes.

    Examples
    --------
    >>> half = slerp(IDENTITY, from_axis_angle([0, 1, 0], 90.0), 0.5)
    >>> bool(np.allclose(half, from_axis_angle([0, 1, 0], 45.0)))
    True
    """
    a, b = _array("a", a, 4), _array("b", b, 4)
    t = np.asarray(t, dtype=np.float64)[..., None]
    dot = np.sum(a * b, axis=-1, keepdims=True)
    b = np.where(dot < 0.0, -b, b)
    dot = np.minimum(np.abs(dot), 1.0)
    angle = np.arccos(dot)
    sin_angle = np.sin(angle)
    linear = sin_angle < _LINEAR_BELOW
    safe = np.where(linear, 1.0, sin_angle)
    wa = np.where(linear, 1.0 - t, np.sin((1.0 - t) * angle) / safe)
    wb = np.where(linear, t, np.sin(t * angle) / safe)
    q = wa * a + wb * b
    return np.where(linear, q / np.linalg.norm(q, axis=-1, keepdims=True), q)


def angle_degrees(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """The angle (degrees, in [0, 180]) of the rotation taking ``a`` to ``b`` (``q`` and ``-q`` are equal).

    Examples
    --------
    >>> float(np.round(angle_degrees(IDENTITY, from_axis_angle([1, 1, 0], 270.0)), 6))
    90.0
    """
    a, b = _array("a", a, 4), _array("b", b, 4)
    d = multiply(conjugate(a), b)
    return np.degrees(2.0 * np.arctan2(np.linalg.norm(d[..., :3], axis=-1), np.abs(d[..., 3])))
