"""Motion as a viewer sees it: per-frame displacement and rotation of each joint, and their ratio to a free run.

A joint's *clock rate* (:attr:`ContactMotion.rates`) says how fast it plays the first action; what shows on the
screen is how far it moves. :func:`joint_motion` measures, frame to frame, each joint's world displacement (m),
world rotation (radians) and rotation relative to its parent (radians); :func:`motion_ratios` sums them over
chosen frames of a run and divides by the same sums of the free run (the first action alone) over the same frames:
0.1 means the joint moved a tenth as much as it does in the first action.

Examples
--------
>>> import numpy as np
>>> frames = np.tile(np.eye(4), (5, 2, 1, 1))
>>> frames[:, 1, 0, 3] = np.arange(5) * 0.2          # joint 1 slides 0.2 m a frame
>>> slow = frames.copy()
>>> slow[:, 1, 0, 3] = np.arange(5) * 0.05
>>> ratios = motion_ratios(joint_motion(slow, [-1, 0]), joint_motion(frames, [-1, 0]), np.ones(4, bool))
>>> ratios.displacement.round(3).tolist()
[nan, 0.25]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError

__all__ = ["JointMotion", "joint_motion", "motion_ratios", "recovery_frames"]

STILL = 1e-9  # a free-run sum below this (m or rad) leaves the ratio undefined (NaN)


@dataclass(frozen=True)
class JointMotion:
    """Per-frame motion of every joint: arrays ``(frames - 1, n)``.

    Attributes
    ----------
    displacement : world position change (m).
    rotation : world rotation change (radians).
    local_rotation : rotation change relative to the parent (radians; the root's is its world rotation's).
    """

    displacement: np.ndarray
    rotation: np.ndarray
    local_rotation: np.ndarray


def _rotations(matrices: np.ndarray) -> np.ndarray:
    linear = matrices[..., :3, :3]
    return linear / np.linalg.norm(linear, axis=-2, keepdims=True)


def _angles(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Angle (radians) of the rotation taking each of ``a`` to ``b`` (rotation matrices ``(..., 3, 3)``)."""
    cosine = (np.einsum("...ij,...ij->...", a, b) - 1.0) / 2.0
    return np.arccos(np.clip(cosine, -1.0, 1.0))


def joint_motion(worlds: ArrayLike, parents: ArrayLike) -> JointMotion:
    """Measure a run: ``worlds (frames, n, 4, 4)`` world matrices (frames >= 2), ``parents (n,)`` (-1: root)."""
    worlds = np.asarray(worlds, dtype=np.float64)
    parents = np.asarray(parents, dtype=np.int64)
    if worlds.ndim != 4 or worlds.shape[0] < 2 or worlds.shape[2:] != (4, 4) or not np.isfinite(worlds).all():
        raise ParameterError("worlds", f"array of shape {worlds.shape}",
                             "world matrices of shape (frames >= 2, joints, 4, 4), finite")
    if parents.shape != (worlds.shape[1],) or np.any(parents >= np.arange(len(parents))) or np.any(parents < -1):
        raise ParameterError("parents", parents.tolist()[:8], "one parent index per joint, each before its child or -1")
    positions = worlds[:, :, :3, 3]
    displacement = np.linalg.norm(np.diff(positions, axis=0), axis=-1)
    rotations = _rotations(worlds)
    rotation = _angles(rotations[:-1], rotations[1:])
    parent_rotations = np.where((parents >= 0)[None, :, None, None], rotations[:, np.maximum(parents, 0)],
                                np.eye(3))
    local = np.einsum("fnji,fnjk->fnik", parent_rotations, rotations)  # parent^T @ child
    local_rotation = _angles(local[:-1], local[1:])
    return JointMotion(displacement, rotation, local_rotation)


def motion_ratios(run: JointMotion, free: JointMotion, frames: ArrayLike) -> JointMotion:
    """Each joint's motion over ``frames`` (a boolean mask or indices into the ``frames - 1`` steps) divided by
    the free run's over the same frames: a :class:`JointMotion` of ``(n,)`` ratios (NaN where the free run is
    still)."""
    if not isinstance(run, JointMotion) or not isinstance(free, JointMotion):
        raise ParameterError("run/free", (type(run).__name__, type(free).__name__), "JointMotion from joint_motion")
    if run.displacement.shape != free.displacement.shape:
        raise ParameterError("run", run.displacement.shape, f"the free run's shape {free.displacement.shape}")
    chosen = np.asarray(frames)
    try:
        run.displacement[chosen]
    except IndexError:
        raise ParameterError("frames", frames, f"a mask or indices into {run.displacement.shape[0]} steps") from None

    def ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        top, bottom = a[chosen].sum(axis=0), b[chosen].sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(bottom > STILL, top / np.maximum(bottom, STILL), np.nan)

    return JointMotion(ratio(run.displacement, free.displacement), ratio(run.rotation, free.rotation),
                       ratio(run.local_rotation, free.local_rotation))


def recovery_frames(run: np.ndarray, free: np.ndarray, released: int, held: float, window: int = 3,
                    share: float = 0.5) -> int:
    """The first step at or after ``released`` at which a joint's motion ``run (steps,)`` over ``window`` steps,
    divided by the free run's ``free (steps,)``, has closed ``share`` of the gap from ``held`` (its ratio in
    contact) to 1; the number of steps if it never does."""
    target = held + share * (1.0 - held)
    for i in range(released, len(run) - window + 1):
        bottom = free[i:i + window].sum()
        if bottom > STILL and run[i:i + window].sum() / bottom >= target:
            return i
    return len(run)
