"""Motions authored in code: a one-arm swing (a chainsaw swung down) and a tool held along the forearm."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import ParameterError, check_direction, check_finite, check_integer
from . import quaternions as quat
from .clip import Clip
from .part_contacts import PartShape, joint_index
from .skeleton import Skeleton

__all__ = ["swing_clip", "forearm_part"]


def swing_clip(skeleton: Skeleton, chain: Sequence[str], forward, up, from_degrees: float = 60.0,
               to_degrees: float = -70.0, bend_degrees: float = 25.0, duration: float = 1.0, keys: int = 9,
               name: str = "swing") -> Clip:
    """A one-arm swing authored in code (a chainsaw swung down): only the chain's rotations are keyed.

    The upper arm's world direction goes from ``from_degrees`` to ``to_degrees`` of elevation (positive: above
    ``forward`` towards ``up``) in ``keys`` evenly spaced keys over ``duration`` seconds, the forearm
    ``bend_degrees`` further down; the wrist keeps its rest rotation relative to the forearm. Directions are in
    the skeleton's world frame; each bone is turned from its rest direction by the shortest rotation.

    Examples
    --------
    >>> from voxelworld.motion.skeleton import Pose, Skeleton
    >>> rest = Pose([[0, 1, 0], [0, 0.3, 0], [0, -0.3, 0], [0, -0.25, 0]], [[0, 0, 0, 1]] * 4, [[1, 1, 1]] * 4)
    >>> body = Skeleton(["hip", "shoulder", "elbow", "wrist"], [-1, 0, 1, 2], rest)
    >>> swing_clip(body, ["shoulder", "elbow", "wrist"], (1, 0, 0), (0, 1, 0)).duration
    1.0
    """
    forward, up = np.array(check_direction("forward", forward)), np.array(check_direction("up", up))
    up = up - forward * float(np.dot(up, forward))
    if np.linalg.norm(up) < 1e-9:
        raise ParameterError("up", tuple(up), "a direction not along forward")
    up /= np.linalg.norm(up)
    for parameter in ("from_degrees", "to_degrees", "bend_degrees"):
        check_finite(parameter, locals()[parameter], unit="degrees")
    duration = check_finite("duration", duration, minimum=0.0, strict_minimum=True, unit="s")
    keys = check_integer("keys", keys, minimum=2)
    s, e, w = (joint_index(skeleton, "chain", j) for j in chain)
    rest = skeleton.rest
    world = skeleton.world_transforms()
    parent = skeleton.parents[s]
    parent_rotation = quat.from_matrix(_normalised(world[parent])) if parent >= 0 else quat.IDENTITY
    shoulder_rest = quat.multiply(parent_rotation, rest.rotation[s])
    upper = world[e, :3, 3] - world[s, :3, 3]
    lower = world[w, :3, 3] - world[e, :3, 3]
    times = np.linspace(0.0, duration, keys)
    rotations = {s: [], e: []}
    for angle in np.linspace(from_degrees, to_degrees, keys):
        direction = lambda a: np.cos(np.radians(a)) * forward + np.sin(np.radians(a)) * up  # noqa: E731
        turn = quat.between(upper, direction(angle))
        shoulder = quat.multiply(turn, shoulder_rest)
        rotations[s].append(quat.multiply(quat.conjugate(parent_rotation), shoulder))
        elbow_world = quat.multiply(shoulder, rest.rotation[e])
        bend = quat.between(quat.rotate(turn, lower), direction(angle - bend_degrees))
        rotations[e].append(quat.multiply(quat.conjugate(shoulder), quat.multiply(bend, elbow_world)))
    names = skeleton.names
    return Clip.from_keys(name, {names[j]: {"rotation": (times, np.array(rotations[j]))} for j in (s, e)}
                          | {names[w]: {"rotation": (times[[0, -1]], np.array([rest.rotation[w]] * 2))}})


def forearm_part(skeleton: Skeleton, chain: Sequence[str], start: float, end: float, radius: float,
                 blade_side=None) -> PartShape:
    """A tool held along the forearm: its axis runs from ``start`` to ``end`` metres beyond the wrist in the
    rest pose's elbow-to-wrist direction, expressed in the wrist's frame. ``blade_side``: a world direction (at
    rest) the blade's flat faces, or None for a blunt part."""
    e, w = (joint_index(skeleton, "chain", j) for j in chain[1:])
    world = skeleton.world_transforms()
    rotation = _normalised(world[w])
    along = rotation.T @ (world[w, :3, 3] - world[e, :3, 3])
    along /= np.linalg.norm(along)
    scale = np.linalg.norm(world[w, :3, 0])
    blade = None if blade_side is None else rotation.T @ np.array(check_direction("blade_side", blade_side))
    return PartShape(along * start / scale, along * end / scale, radius, blade_normal=blade)


def _normalised(matrix: np.ndarray) -> np.ndarray:
    """The rotation part of a 4x4 matrix, columns normalised."""
    linear = matrix[:3, :3]
    return linear / np.linalg.norm(linear, axis=0)
