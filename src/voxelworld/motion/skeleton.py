"""Joint hierarchies and their poses: :class:`Pose` (local transforms) and :class:`Skeleton` (forward kinematics).

A joint's local transform is ``T @ R @ S`` (translation, rotation quaternion ``(x, y, z, w)``, scale), relative
to its parent; its world transform is the parent's world transform times its local one. The world space of a
skeleton is the space its root joints are placed in (a loader may report a further placement, e.g.
:attr:`voxelworld.motion.gltf.Character.root_transform`).

Examples
--------
>>> import numpy as np
>>> from voxelworld.motion.skeleton import Pose, Skeleton
>>> rest = Pose(translation=[[0, 1, 0], [0, 0.5, 0]], rotation=[[0, 0, 0, 1]] * 2, scale=[[1, 1, 1]] * 2)
>>> arm = Skeleton(["shoulder", "hand"], [-1, 0], rest)
>>> arm.world_positions(rest)
array([[0. , 1. , 0. ],
       [0. , 1.5, 0. ]])
>>> arm.bone_lengths()
array([0. , 0.5])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from voxelworld.errors import ParameterError
from voxelworld.motion._kernels import fk as _fk

__all__ = ["Pose", "Skeleton"]

_UNIT_TOLERANCE = 1e-3  # |q| may differ from 1 by this much (files store float32 quaternions)


def _readonly(parameter: str, value: ArrayLike, width: int) -> np.ndarray:
    try:
        array = np.array(value, dtype=np.float64, order="C")
    except (TypeError, ValueError):
        raise ParameterError(parameter, value, f"a numeric array of shape (n, {width}) or (f, n, {width})") from None
    if array.ndim not in (2, 3) or array.shape[-1] != width:
        raise ParameterError(parameter, array.shape, f"an array of shape (n, {width}) or (f, n, {width})")
    if not np.isfinite(array).all():
        raise ParameterError(parameter, "an array containing NaN or infinity", "finite numbers")
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class Pose:
    """Local transforms of every joint of a skeleton, optionally for many frames.

    Parameters
    ----------
    translation : array_like, shape (n, 3) or (f, n, 3)
        Offset of each joint from its parent (m).
    rotation : array_like, shape (n, 4) or (f, n, 4)
        Unit quaternions ``(x, y, z, w)`` (lengths within 1e-3 of 1 are accepted; the kinematics normalise).
    scale : array_like, shape (n, 3) or (f, n, 3)
        Scale along the joint's own axes (non-zero).

    The arrays are copied, stored as float64 and made read-only; to change a pose, build a new one
    (``dataclasses.replace(pose, rotation=new)``). A leading frame axis ``f`` makes a batch of poses.

    Examples
    --------
    >>> pose = Pose.identity(3)
    >>> pose.joint_count, pose.frame_count
    (3, None)
    >>> Pose.stack([pose, pose]).rotation.shape
    (2, 3, 4)
    """

    translation: np.ndarray
    rotation: np.ndarray
    scale: np.ndarray

    def __post_init__(self) -> None:
        translation = _readonly("translation", self.translation, 3)
        rotation = _readonly("rotation", self.rotation, 4)
        scale = _readonly("scale", self.scale, 3)
        if rotation.shape[:-1] != translation.shape[:-1]:
            raise ParameterError("rotation", rotation.shape, f"shape {translation.shape[:-1] + (4,)} "
                                 "(the same joints and frames as translation)")
        if scale.shape != translation.shape:
            raise ParameterError("scale", scale.shape, f"shape {translation.shape} (as translation)")
        length = np.sqrt(np.sum(rotation * rotation, axis=-1))
        if rotation.size and np.abs(length - 1.0).max() > _UNIT_TOLERANCE:
            raise ParameterError("rotation", "quaternions of length " + repr(float(length.flat[np.argmax(
                np.abs(length - 1.0))])), f"unit quaternions (length within {_UNIT_TOLERANCE} of 1)")
        if np.any(scale == 0.0):
            raise ParameterError("scale", "an array containing 0", "non-zero scale factors")
        object.__setattr__(self, "translation", translation)
        object.__setattr__(self, "rotation", rotation)
        object.__setattr__(self, "scale", scale)

    @classmethod
    def _trusted(cls, translation: np.ndarray, rotation: np.ndarray, scale: np.ndarray) -> Pose:
        """A pose of arrays the wing made itself (float64, right shapes, unit quaternions): no checks, no
        copies; the arrays are made read-only and must not be changed by their maker afterwards."""
        pose = object.__new__(cls)
        translation.setflags(write=False)
        rotation.setflags(write=False)
        scale.setflags(write=False)
        pose.__dict__.update(translation=translation, rotation=rotation, scale=scale)  # frozen: no __setattr__
        return pose

    @property
    def joint_count(self) -> int:
        """The number of joints ``n``."""
        return self.translation.shape[-2]

    @property
    def frame_count(self) -> int | None:
        """The number of frames ``f`` of a batch, or None for a single pose."""
        return self.translation.shape[0] if self.translation.ndim == 3 else None

    @classmethod
    def identity(cls, joints: int) -> Pose:
        """The pose of ``joints`` joints with zero translation, no rotation and unit scale."""
        rotation = np.zeros((joints, 4))
        rotation[:, 3] = 1.0
        return cls(np.zeros((joints, 3)), rotation, np.ones((joints, 3)))

    @classmethod
    def stack(cls, poses: Sequence[Pose]) -> Pose:
        """One batched pose ``(f, n, ...)`` from ``f`` single poses of the same joints."""
        if not poses or any(p.frame_count is not None for p in poses):
            raise ParameterError("poses", f"{len(poses)} poses", "one or more single (unbatched) poses")
        return cls(np.stack([p.translation for p in poses]), np.stack([p.rotation for p in poses]),
                   np.stack([p.scale for p in poses]))

    def frame(self, index: int) -> Pose:
        """The single pose of frame ``index`` of a batch."""
        if self.frame_count is None:
            raise ParameterError("index", index, "nothing: this pose is not a batch")
        return Pose(self.translation[index], self.rotation[index], self.scale[index])


class Skeleton:
    """Named joints, each with a parent listed before it, and a rest pose.

    Parameters
    ----------
    names : sequence of str
        Unique joint names.
    parents : sequence of int
        The parent index of each joint, smaller than the joint's own index; -1 for a root.
    rest : Pose
        The rest (bind) pose, one frame of ``len(names)`` joints.

    Examples
    --------
    >>> rest = Pose([[0, 0, 0], [1, 0, 0], [1, 0, 0]], [[0, 0, 0, 1]] * 3, [[1, 1, 1]] * 3)
    >>> arm = Skeleton(["shoulder", "elbow", "wrist"], [-1, 0, 1], rest)
    >>> len(arm), arm.index("wrist"), arm.chain("shoulder", "wrist")
    (3, 2, [0, 1, 2])
    """

    def __init__(self, names: Sequence[str], parents: Sequence[int], rest: Pose):
        names = tuple(names)
        if not names or not all(isinstance(name, str) and name for name in names):
            raise ParameterError("names", names, "a non-empty sequence of non-empty strings")
        if len(set(names)) != len(names):
            repeated = sorted({name for name in names if names.count(name) > 1})
            raise ParameterError("names", repeated, "unique joint names")
        try:
            parent_array = np.array(parents, dtype=np.int64)
        except (TypeError, ValueError, OverflowError):
            raise ParameterError("parents", parents, "a sequence of whole numbers") from None
        if parent_array.shape != (len(names),) or not np.array_equal(parent_array, np.asarray(parents)):
            raise ParameterError("parents", parents, f"{len(names)} whole numbers (one per joint)")
        bad = np.flatnonzero((parent_array < -1) | (parent_array >= np.arange(len(names))))
        if bad.size:
            j = int(bad[0])
            raise ParameterError("parents", f"parents[{j}] = {int(parent_array[j])}",
                                 "parents before children: -1 (root) or an index smaller than the joint's own")
        if not isinstance(rest, Pose):
            raise ParameterError("rest", type(rest).__name__, "a Pose")
        if rest.frame_count is not None or rest.joint_count != len(names):
            raise ParameterError("rest", rest.translation.shape, f"a single pose of {len(names)} joints")
        parent_array.setflags(write=False)
        self._names = names
        self._parents = parent_array
        self._rest = rest
        self._index = {name: i for i, name in enumerate(names)}

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"Skeleton({len(self)} joints, roots {[self._names[i] for i in self.roots]})"

    @property
    def names(self) -> tuple[str, ...]:
        """The joint names, in joint order."""
        return self._names

    @property
    def parents(self) -> np.ndarray:
        """The parent index of each joint (-1 for roots), read-only int64."""
        return self._parents

    @property
    def rest(self) -> Pose:
        """The rest pose."""
        return self._rest

    @property
    def roots(self) -> list[int]:
        """The joints without a parent."""
        return [int(j) for j in np.flatnonzero(self._parents < 0)]

    def index(self, name: str | int) -> int:
        """The index of the joint called ``name`` (an index in range is returned as it is).

        Raises :class:`ParameterError` listing a few joint names when there is no such joint.
        """
        if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
            if 0 <= name < len(self._names):
                return int(name)
            raise ParameterError("name", name, f"a joint index in [0, {len(self._names) - 1}] or a joint name")
        found = self._index.get(name)  # type: ignore[arg-type]
        if found is None:
            shown = ", ".join(self._names[:6]) + (", ..." if len(self._names) > 6 else "")
            raise ParameterError("name", name, f"one of the {len(self._names)} joint names ({shown})")
        return found

    def _check_pose(self, pose: Pose | None) -> Pose:
        if pose is None:
            return self._rest
        if not isinstance(pose, Pose):
            raise ParameterError("pose", type(pose).__name__, "a Pose")
        if pose.translation.shape[-2] != len(self._names):
            raise ParameterError("pose", pose.translation.shape, f"a pose of {len(self._names)} joints")
        return pose

    def world_transforms(self, pose: Pose | None = None) -> np.ndarray:
        """World 4x4 matrices of every joint: ``(n, 4, 4)``, or ``(f, n, 4, 4)`` for a batched pose.

        ``pose`` defaults to the rest pose. One compiled call computes all frames.

        Examples
        --------
        >>> skeleton = Skeleton(["root"], [-1], Pose([[1.0, 2.0, 3.0]], [[0, 0, 0, 1]], [[1, 1, 1]]))
        >>> skeleton.world_transforms()[0, :3, 3]
        array([1., 2., 3.])
        """
        pose = self._check_pose(pose)
        translation, rotation, scale = pose.translation, pose.rotation, pose.scale
        if translation.ndim == 2:
            out = np.empty((1, translation.shape[0], 4, 4))
            _fk.world_transforms(self._parents, translation[None], rotation[None], scale[None], out)
            return out[0]
        out = np.empty(translation.shape[:2] + (4, 4))
        _fk.world_transforms(self._parents, translation, rotation, scale, out)
        return out

    def world_positions(self, pose: Pose | None = None) -> np.ndarray:
        """World positions of every joint (m): ``(n, 3)``, or ``(f, n, 3)`` for a batched pose."""
        return self.world_transforms(pose)[..., :3, 3]

    def bone_lengths(self, pose: Pose | None = None) -> np.ndarray:
        """Distance (m) in world space from each joint to its parent, 0 for roots (rest pose by default)."""
        positions = self.world_positions(pose)
        parents = np.where(self._parents < 0, np.arange(len(self)), self._parents)
        return np.linalg.norm(positions - positions[..., parents, :], axis=-1)

    def chain(self, from_joint: str | int, to_joint: str | int) -> list[int]:
        """The joints from the ancestor ``from_joint`` down to its descendant ``to_joint``, both included.

        Raises :class:`ParameterError` when ``from_joint`` is not ``to_joint`` or one of its ancestors.
        """
        first, last = self.index(from_joint), self.index(to_joint)
        joints = [last]
        while joints[-1] != first:
            parent = int(self._parents[joints[-1]])
            if parent < 0:
                raise ParameterError("from_joint", from_joint, f"an ancestor of {self._names[last]!r}")
            joints.append(parent)
        return joints[::-1]
