"""Inverse kinematics on joint positions: analytic two-bone IK (arms, legs) and FABRIK (longer chains, with joint
limits).

Both are pure functions over plain arrays of world positions in metres; they know nothing of skeletons or
rotations (turning the new positions into joint rotations is the caller's business). The numba cores live in
``motion/_kernels/ik.py``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import NoReturn

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_direction, check_finite, check_integer, check_range
from ._kernels import ik as _kernels

__all__ = ["two_bone_ik", "fabrik", "HingeLimit", "ConeLimit"]

_POINT = "a point: shape (3,), or (m, 3) for m chains like the other points, of finite numbers (m)"
_PARAMETERS = {_kernels.BAD_ROOT: "root", _kernels.BAD_MID: "mid", _kernels.BAD_TIP: "tip",
               _kernels.BAD_TARGET: "target", _kernels.BAD_POLE: "pole", _kernels.BAD_PREVIOUS: "previous_mid"}


@dataclass(frozen=True)
class HingeLimit:
    """The bone may only turn about a fixed world axis, within an angle range.

    Parameters
    ----------
    axis : 3 floats
        The hinge axis, a world direction (normalised on construction).
    min_degrees, max_degrees : float
        The range of the bone's angle about ``axis`` (right-handed), in degrees in [-180, 180], measured from
        ``reference``; ``min_degrees <= max_degrees``.
    reference : 3 floats
        The world direction of angle 0, perpendicular to ``axis`` (within 1e-6 of a right angle's cosine; made
        exactly perpendicular and unit on construction).

    Examples
    --------
    >>> HingeLimit((0, 0, 2), 0, 150, (1, 0, 0))
    HingeLimit(axis=(0.0, 0.0, 1.0), min_degrees=0.0, max_degrees=150.0, reference=(1.0, 0.0, 0.0))
    """

    axis: tuple[float, float, float]
    min_degrees: float
    max_degrees: float
    reference: tuple[float, float, float]

    def __post_init__(self) -> None:
        axis = check_direction("axis", self.axis)
        low = check_finite("min_degrees", self.min_degrees, minimum=-180.0, maximum=180.0, unit="degrees")
        high = check_finite("max_degrees", self.max_degrees, minimum=-180.0, maximum=180.0, unit="degrees")
        check_range("max_degrees", self.max_degrees, f"a number >= min_degrees = {low} (degrees)", high >= low)
        x, y, z = check_direction("reference", self.reference)
        along = x * axis[0] + y * axis[1] + z * axis[2]
        check_range("reference", self.reference, f"a direction perpendicular to axis = {axis}", abs(along) <= 1e-6)
        for _ in range(2):  # exactly perpendicular, then unit
            x, y, z = x - along * axis[0], y - along * axis[1], z - along * axis[2]
            along = x * axis[0] + y * axis[1] + z * axis[2]
        length = math.sqrt(x * x + y * y + z * z)
        object.__setattr__(self, "axis", axis)
        object.__setattr__(self, "min_degrees", low)
        object.__setattr__(self, "max_degrees", high)
        object.__setattr__(self, "reference", (x / length, y / length, z / length))


@dataclass(frozen=True)
class ConeLimit:
    """The bone's direction must stay within an angle of the previous bone's direction (or of a fixed world
    direction).

    Parameters
    ----------
    max_degrees : float
        The cone's half angle, degrees in [0, 180].
    reference : 3 floats, optional
        A world direction (normalised on construction) to measure from instead of the previous bone. For the
        first bone of a chain (which has no previous bone) a cone without a reference limits nothing.

    Examples
    --------
    >>> ConeLimit(45)
    ConeLimit(max_degrees=45.0, reference=None)
    >>> ConeLimit(30, reference=(0, -3, 0)).reference
    (0.0, -1.0, 0.0)
    """

    max_degrees: float
    reference: tuple[float, float, float] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_degrees", check_finite("max_degrees", self.max_degrees, minimum=0.0,
                                                             maximum=180.0, unit="degrees"))
        if self.reference is not None:
            object.__setattr__(self, "reference", check_direction("reference", self.reference))


# --------------------------------------------------------------------------------------------- two-bone IK
def two_bone_ik(root: ArrayLike, mid: ArrayLike, tip: ArrayLike, target: ArrayLike, pole: ArrayLike,
                previous_mid: ArrayLike | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Analytic two-bone IK: move the mid joint (elbow, knee) and the tip (wrist, ankle) so the tip reaches the
    target, keeping both bone lengths.

    Parameters
    ----------
    root, mid, tip : array (3,) or (m, 3)
        The chain's current joint positions (m): the root stays, ``|mid - root|`` and ``|tip - mid|`` are the bone
        lengths (each at least 1e-9 m). With shape (m, 3), m independent chains are solved in one call.
    target : array like ``root``
        Where the tip should go (m).
    pole : array like ``root``
        A world point the mid joint points towards (m): the chain bends in the plane of root, target and pole,
        with the mid joint on the pole's side.
    previous_mid : array like ``root``, optional
        Last frame's mid joint (the previous call's answer), for continuity. The chain still bends in the plane of
        root, target and pole, but on the side of it where last frame's mid joint was, so the mid joint does not
        flip when the target crosses the line from the root through the pole (nor does the limb twist half a
        turn about itself). And since that plane whips round when the target passes near the line, the bend
        direction turns from last frame's towards it by at most 3 / cos(alpha) degrees per call, alpha the angle
        (seen from the root) between target and pole: near the line the bend follows the plane at a bounded rate,
        and lies in it again once caught up.

    Returns
    -------
    mid, tip : arrays like ``root``
        The new joint positions (m), bone lengths kept to rounding.

    Raises
    ------
    ParameterError
        Naming the argument: a shape other than (3,) or (m, 3) like ``root``, a non-finite number, or a bone
        shorter than 1e-9 m (``mid`` on ``root``, ``tip`` on ``mid``).

    Notes
    -----
    Unreachable targets: beyond ``a + b`` (the bone lengths' sum) the chain lies straight from the root towards
    the target; nearer than ``|a - b|`` it folds flat along that direction, the tip ``|a - b|`` from the root. A
    target on the root itself is approached along the current tip's direction (the mid's if the tip is on the
    root too).

    Degenerate pole (not an error): when the pole lies on the line from the root through the target (or on the
    root), the plane is taken from ``previous_mid`` if given, else from the current ``mid``, else the current
    ``tip``, else from the world axis least aligned with the root-target line (x, then y, then z).

    Deterministic: identical inputs give bit-identical outputs, batched or one chain at a time.

    Examples
    --------
    An arm of two 1 m bones along x reaches for a point 1.414 m away; the pole above bends the elbow upwards:

    >>> mid, tip = two_bone_ik([0, 0, 0], [1, 0, 0], [2, 0, 0], target=[2 ** 0.5, 0, 0], pole=[0, 5, 0])
    >>> (mid.round(6) + 0.0).tolist(), (tip.round(6) + 0.0).tolist()
    ([0.707107, 0.707107, 0.0], [1.414214, 0.0, 0.0])
    """
    given = [root, mid, tip, target, pole]
    if previous_mid is not None:
        given.append(previous_mid)
    names = ("root", "mid", "tip", "target", "pole", "previous_mid")
    shape: tuple[int, ...] = ()
    points: list[np.ndarray] = []
    for p, value in enumerate(given):
        try:
            array = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ParameterError(names[p], value, _POINT) from None
        if p == 0:
            shape = array.shape
            if not (shape == (3,) or (len(shape) == 2 and shape[1] == 3)):
                raise ParameterError(names[p], f"array of shape {shape}", _POINT)
        elif array.shape != shape:
            raise ParameterError(names[p], f"array of shape {array.shape}", f"{_POINT}, here shape {shape}")
        points.append(array.reshape(-1, 3) if array.flags.c_contiguous else np.ascontiguousarray(array).reshape(-1, 3))
    count = points[0].shape[0]
    out_mid = np.empty((count, 3))
    out_tip = np.empty((count, 3))
    has_previous = previous_mid is not None
    chain, code = _kernels.two_bone(points[0], points[1], points[2], points[3], points[4],
                                    points[5] if has_previous else points[1], has_previous, out_mid, out_tip)
    if code != _kernels.OK:
        _raise_two_bone(points, shape, chain, code)
    if len(shape) == 1:
        return out_mid[0], out_tip[0]
    return out_mid, out_tip


def _raise_two_bone(points: list[np.ndarray], shape: tuple[int, ...], chain: int, code: int) -> NoReturn:
    where = "" if len(shape) == 1 else f"[{chain}]"
    if code in _PARAMETERS:
        p = code - _kernels.BAD_ROOT
        raise ParameterError(_PARAMETERS[code] + where, points[p][chain].tolist(), "finite numbers (m)")
    if code == _kernels.SHORT_UPPER:
        raise ParameterError("mid" + where, points[1][chain].tolist(),
                             f"a point at least {_kernels.MIN_BONE} m from root (the upper bone's length)")
    raise ParameterError("tip" + where, points[2][chain].tolist(),
                         f"a point at least {_kernels.MIN_BONE} m from mid (the lower bone's length)")


# --------------------------------------------------------------------------------------------------- FABRIK
@lru_cache(maxsize=256)
def _limit_arrays(limits: tuple[HingeLimit | ConeLimit | None, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's ``kinds`` and ``params`` for validated limits (read-only: shared between calls)."""
    kinds = np.zeros(len(limits), dtype=np.int64)
    params = np.zeros((len(limits), 8))
    for i, limit in enumerate(limits):
        if isinstance(limit, HingeLimit):
            kinds[i] = _kernels.HINGE
            params[i] = (*limit.axis, *limit.reference, math.radians(limit.min_degrees),
                         math.radians(limit.max_degrees))
        elif isinstance(limit, ConeLimit) and limit.reference is not None:
            kinds[i] = _kernels.CONE_FIXED
            params[i, 0:3] = limit.reference
            params[i, 7] = math.radians(limit.max_degrees)
        elif isinstance(limit, ConeLimit) and i > 0:
            kinds[i] = _kernels.CONE_PARENT
            params[i, 7] = math.radians(limit.max_degrees)
    kinds.flags.writeable = False
    params.flags.writeable = False
    return kinds, params


def _limits(limits: Iterable[HingeLimit | ConeLimit | None] | None, bones: int) -> tuple[np.ndarray, np.ndarray]:
    legal = f"None, or a sequence of {bones} limits (one per bone: None, a HingeLimit or a ConeLimit)"
    if limits is None:
        return _limit_arrays((None,) * bones)
    try:
        limits = tuple(limits)
    except TypeError:
        raise ParameterError("limits", limits, legal) from None
    check_range("limits", limits, legal, len(limits) == bones)
    for i, limit in enumerate(limits):
        check_range(f"limits[{i}]", limit, "None, a HingeLimit or a ConeLimit",
                    limit is None or type(limit) in (HingeLimit, ConeLimit))
    return _limit_arrays(limits)


def fabrik(positions: ArrayLike, target: ArrayLike, limits: Iterable[HingeLimit | ConeLimit | None] | None = None,
           tolerance: float = 1e-6, max_iterations: int = 32, *,
           return_info: bool = False) -> np.ndarray | tuple[np.ndarray, int, bool]:
    """FABRIK (forward and backward reaching IK): move a chain's joints so its last joint reaches the target,
    keeping the root and every bone length, within per-bone limits.

    Parameters
    ----------
    positions : array (k, 3)
        The chain's joint positions (m), root first, k >= 2; bone i joins joints i and i + 1 and must be at least
        1e-9 m long.
    target : array (3,)
        Where the last joint should go (m).
    limits : sequence of k - 1 limits, optional
        One per bone, each None (free), a :class:`HingeLimit` or a :class:`ConeLimit`. Every bone of the answer
        respects its limit.
    tolerance : float
        The distance (m, > 0) from the target at which the tip counts as arrived.
    max_iterations : int
        The most backward-and-forward passes made (>= 0).
    return_info : bool
        Also return the passes made and whether the target was reached.

    Returns
    -------
    positions : array (k, 3)
        The new joint positions (m); the input is not changed.
    iterations : int
        Only with ``return_info``: the passes made (0 when the start, once within the limits, already reaches, or
        when the unlimited chain is laid straight at an unreachable target).
    reached : bool
        Only with ``return_info``: whether the tip ended within ``tolerance`` of the target.

    Raises
    ------
    ParameterError
        Naming the argument: bad shapes, non-finite numbers, a bone shorter than 1e-9 m, limits of the wrong
        count or type, ``tolerance <= 0``, ``max_iterations < 0``.

    Notes
    -----
    Unreachable targets: without limits, a target at least the chain's length from the root gets the chain laid
    straight from the root towards it. With limits, the chain ends as near as the passes bring it (a stall, a tip
    moving less than ``tolerance * 1e-6`` in a pass, ends the search early).

    Convergence: FABRIK needs few passes for most targets, but many (hundreds) where the chain must end nearly
    folded (a target near the root) or nearly straight (a target near full reach); ``return_info`` tells whether
    ``max_iterations`` sufficed. A chain that stalls lying along the root-target line (where no pass would ever
    leave it) is bent off it once, towards the world axis least aligned with the line.

    Limits are enforced on the way out from the root, each bone against its parent as already placed, so they
    hold for the answer even when the target is not reached (and the start is first made to respect them).

    Deterministic: identical inputs give bit-identical outputs.

    Examples
    --------
    >>> arm = [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]
    >>> moved, iterations, reached = fabrik(arm, [1.5, 1.5, 0], return_info=True)
    >>> reached, bool(np.linalg.norm(moved[-1] - [1.5, 1.5, 0]) <= 1e-6)
    (True, True)
    >>> np.linalg.norm(np.diff(moved, axis=0), axis=1).round(12).tolist()
    [1.0, 1.0, 1.0]
    """
    legal = "an array of shape (k, 3), k >= 2, of finite numbers (m)"
    try:
        chain = np.array(positions, dtype=np.float64, order="C")
    except (TypeError, ValueError):
        raise ParameterError("positions", positions, legal) from None
    if chain.ndim != 2 or chain.shape[1] != 3 or chain.shape[0] < 2:
        raise ParameterError("positions", f"array of shape {chain.shape}", legal)
    try:
        goal = np.asarray(target, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError("target", target, "a point: shape (3,), finite numbers (m)") from None
    if goal.shape != (3,) or not np.isfinite(goal).all():
        raise ParameterError("target", target, "a point: shape (3,), finite numbers (m)")
    tolerance = check_finite("tolerance", tolerance, minimum=0.0, strict_minimum=True, unit="m")
    max_iterations = check_integer("max_iterations", max_iterations, minimum=0)
    bones = chain.shape[0] - 1
    kinds, params = _limits(limits, bones)
    lengths = np.empty(bones)
    bad = _kernels.bone_lengths(chain, lengths)
    if bad >= 0:
        if bad <= bones:
            raise ParameterError("positions", f"joint {bad} = {chain[bad].tolist()}", legal)
        i = bad - bones - 1
        raise ParameterError("positions", f"joints {i} and {i + 1} at {chain[i].tolist()}, {chain[i + 1].tolist()}",
                             f"{legal}, bones at least {_kernels.MIN_BONE} m long")
    iterations, reached = _kernels.fabrik(chain, lengths, np.ascontiguousarray(goal), kinds, params, tolerance,
                                          max_iterations, np.empty((bones, 3)))
    if return_info:
        return chain, int(iterations), bool(reached)
    return chain
