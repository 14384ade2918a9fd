"""Full-body clips authored as tracks: the joints a clip keys (:class:`BodyJoints`), waypoints sampled into keys
(:func:`waypoint_tracks`) and the tracks turned into joint rotations (:func:`author_clip`), for the looping clips
of :mod:`voxelworld.motion.swing`.

A clip is authored as a few named *tracks* (angles in degrees, offsets in metres) given at waypoints of the cycle,
sampled into evenly spread keys, and turned into joint rotations by :func:`author_clip`::

      hips_turn, hips_lean, chest_turn, chest_lean   world rotations of the hips and the chest from rest (degrees):
          turn about ``up`` (positive brings the arm's shoulder forward), lean about the side axis (positive: the
          top goes forward); the joints between hips and chest (the waist) take an even share of the difference.
      hips_drop               how far (m) the hips go down along ``up`` (their translation is keyed).
      upper, forearm          world elevations (degrees above ``forward`` towards ``up``) of the two arm bones, or
      reach_forward, reach_up the wrist relative to the shoulder in the forward / up plane (fractions of the arm's
                              reach), solved into elevations by planar two-bone IK.
      wrist                   optional: the hand's flex about the side axis from its place along the forearm
                              (degrees, positive: up); without it the wrist keeps its rest rotation.

A clip loops when its last waypoint equals its first: the last key is then copied from the first, bit for bit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_direction
from . import quaternions as quat
from .clip import Clip
from .ik import two_bone_ik
from .part_contacts import joint_index
from .skeleton import Pose, Skeleton

__all__ = ["BodyJoints", "waypoint_tracks", "author_clip", "elevation", "normalised"]


def normalised(matrix: np.ndarray) -> np.ndarray:
    """The rotation part of a 4x4 matrix, columns normalised."""
    linear = matrix[:3, :3]
    return linear / np.linalg.norm(linear, axis=0)


@dataclass(frozen=True)
class BodyJoints:
    """The joints a full-body clip keys (indices) and the character's frame (unit world directions), validated
    by :meth:`of`."""

    shoulder: int
    elbow: int
    wrist: int
    chest: int
    hips: int | None  # None: the clip keys no hips (cutting)
    spine: list[int]  # the joints after the hips down to the chest, the chest last
    legs: list[list[int]]  # (hip, knee, ankle) per planted leg
    forward: np.ndarray
    up: np.ndarray
    outward: np.ndarray  # the side the arm is on
    turn_axis: np.ndarray  # +-up: a positive turn brings the arm's shoulder forward
    lean_axis: np.ndarray  # a positive lean brings the top forward
    upper_length: float  # m, shoulder to elbow
    lower_length: float  # m, elbow to wrist

    @classmethod
    def of(cls, skeleton: Skeleton, chain: Sequence[str | int], hips: str | int | None, chest: str | int,
           legs: Sequence[Sequence[str | int]], forward: ArrayLike, up: ArrayLike) -> BodyJoints:
        if not isinstance(skeleton, Skeleton):
            raise ParameterError("skeleton", type(skeleton).__name__, "a Skeleton")
        forward, up = np.array(check_direction("forward", forward)), np.array(check_direction("up", up))
        up = up - forward * float(np.dot(up, forward))
        if np.linalg.norm(up) < 1e-9:
            raise ParameterError("up", tuple(up), "a direction not along forward")
        up /= np.linalg.norm(up)
        if isinstance(chain, (str, bytes)) or not isinstance(chain, Sequence) or len(chain) != 3:
            raise ParameterError("chain", chain, "three joint names: shoulder, elbow, wrist")
        s, e, w = (joint_index(skeleton, "chain", j) for j in chain)
        if skeleton.parents[e] != s or skeleton.parents[w] != e:
            raise ParameterError("chain", chain, "shoulder, elbow, wrist: each joint the parent of the next")
        c = joint_index(skeleton, "chest", chest)
        if c not in _ancestors(skeleton, s):
            raise ParameterError("chest", chest, f"an ancestor of the shoulder {skeleton.names[s]!r}")
        if hips is None:
            spine, h = [c], None
        else:
            h = joint_index(skeleton, "hips", hips)
            if h not in _ancestors(skeleton, c):
                raise ParameterError("hips", hips, f"an ancestor of the chest {skeleton.names[c]!r}")
            spine = skeleton.chain(h, c)[1:]
        if isinstance(legs, (str, bytes)) or not isinstance(legs, Sequence):
            raise ParameterError("legs", legs, "a sequence of (hip, knee, ankle) joint names")
        leg_joints = []
        for leg in legs:
            if isinstance(leg, (str, bytes)) or not isinstance(leg, Sequence) or len(leg) != 3:
                raise ParameterError("legs", leg, "(hip, knee, ankle): three joint names")
            joints = [joint_index(skeleton, "legs", j) for j in leg]
            if skeleton.parents[joints[1]] != joints[0] or skeleton.parents[joints[2]] != joints[1] \
                    or h not in _ancestors(skeleton, joints[0]) or c in _ancestors(skeleton, joints[0]) \
                    or joints[0] in [c] + _ancestors(skeleton, c):
                raise ParameterError("legs", leg, "hip, knee, ankle: each the parent of the next, below the hips "
                                     "and off the spine from the hips to the chest and its branches")
            leg_joints.append(joints)
        world = skeleton.world_transforms()
        outward = np.cross(forward, up)  # the left, for a right-handed frame
        side = float(np.dot(world[w, :3, 3] - world[c, :3, 3], outward))
        outward = outward if side >= 0.0 else -outward
        return cls(shoulder=s, elbow=e, wrist=w, chest=c, hips=h, spine=spine, legs=leg_joints,
                   forward=forward, up=up, outward=outward, turn_axis=np.cross(outward, forward),
                   lean_axis=np.cross(up, forward),
                   upper_length=float(np.linalg.norm(world[e, :3, 3] - world[s, :3, 3])),
                   lower_length=float(np.linalg.norm(world[w, :3, 3] - world[e, :3, 3])))


def _ancestors(skeleton: Skeleton, joint: int) -> list[int]:
    """The joint's ancestors, its parent first."""
    found, parent = [], int(skeleton.parents[joint])
    while parent >= 0:
        found.append(parent)
        parent = int(skeleton.parents[parent])
    return found


def waypoint_tracks(waypoints: Sequence[tuple[float, Mapping[str, float], str | None]], duration: float,
                    keys: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Key times and track values from ``[(share of the cycle, {track: value}, segment shape), ...]``.

    Every waypoint gets a key; the ``keys - 1`` intervals are shared out by segment length (at least one each,
    largest remainders first). A segment's shape is ``"linear"`` (constant speed) or ``"ease"`` (speed rising
    linearly over its first quarter, constant, falling over its last quarter: a top speed 4/3 of the mean).
    """
    shares = np.array([w[0] for w in waypoints])
    lengths = np.diff(shares)
    if keys - 1 < lengths.size:
        raise ParameterError("keys", keys, f"at least {lengths.size + 1} key times (one per phase and one more)")
    wanted = lengths / lengths.sum() * (keys - 1)
    counts = np.maximum(np.floor(wanted).astype(np.int64), 1)
    for i in np.argsort(-(wanted - np.floor(wanted)), kind="stable"):
        if counts.sum() >= keys - 1:
            break
        counts[i] += 1
    while counts.sum() > keys - 1:
        counts[np.argmax(counts)] -= 1
    phases, segments = [np.zeros(1)], [np.zeros(1, dtype=np.int64)]
    for i, count in enumerate(counts):
        u = np.arange(1, count + 1) / count
        phases.append(u if waypoints[i + 1][2] == "linear" else _ease(u))
        segments.append(np.full(count, i))
    phase, segment = np.concatenate(phases), np.concatenate(segments)
    key_share = shares[segment] + np.concatenate([[0.0], np.concatenate(
        [np.arange(1, c + 1) / c for c in counts])]) * lengths[segment]
    key_share[0] = 0.0
    tracks = {}
    for track in waypoints[0][1]:
        start = np.array([waypoints[i][1][track] for i in segment], dtype=np.float64)
        end = np.array([waypoints[i + 1][1][track] for i in segment], dtype=np.float64)
        values = start + (end - start) * phase
        values[0] = waypoints[0][1][track]
        tracks[track] = values
    return key_share * duration, tracks


def _ease(u: np.ndarray) -> np.ndarray:
    """Progress through a segment at time share ``u`` in [0, 1], with a trapezoid speed (ramps of 1/4)."""
    ramp, top = 0.25, 1.0 / 0.75
    rising = 0.5 * top * u * u / ramp
    falling = 1.0 - 0.5 * top * (1.0 - u) ** 2 / ramp
    middle = 0.5 * top * ramp + top * (u - ramp)
    return np.where(u < ramp, rising, np.where(u > 1.0 - ramp, falling, middle))


def elevation(degrees: ArrayLike) -> np.ndarray:
    """The (forward, up) components of directions ``degrees`` above forward: shape (2,) or (2, k)."""
    radians = np.radians(degrees)
    return np.array([np.cos(radians), np.sin(radians)])


def _planar_arm(reach_forward: ArrayLike, reach_up: ArrayLike, a: float, b: float,
                elbow_above: bool) -> tuple[np.ndarray, np.ndarray]:
    """Upper-arm and forearm elevations (degrees) putting the wrist at ``(reach_forward, reach_up) * (a + b)``
    from the shoulder in the forward / up plane (planar two-bone IK; out-of-reach targets clamped)."""
    x, z = np.asarray(reach_forward) * (a + b), np.asarray(reach_up) * (a + b)
    d = np.clip(np.hypot(x, z), abs(a - b) + 1e-6, (a + b) * (1.0 - 1e-9))
    toward = np.arctan2(z, x)
    opening = np.arccos(np.clip((a * a + d * d - b * b) / (2.0 * a * d), -1.0, 1.0))
    upper = toward + opening if elbow_above else toward - opening
    wrist = d * np.array([np.cos(toward), np.sin(toward)])
    lower = np.arctan2(wrist[1] - a * np.sin(upper), wrist[0] - a * np.cos(upper))
    return np.degrees(upper), np.degrees(lower)


def author_clip(name: str, skeleton: Skeleton, body: BodyJoints, times: np.ndarray, tracks: dict[str, np.ndarray],
            elbow_above: bool = True, splay_degrees: float = 0.0, hold_hand: bool = False) -> Clip:
    """The clip of ``tracks`` (see the module) keyed at ``times`` (s);
    ``hold_hand``: the wrist keeps its world rotation at rest (a held oar keeps its direction)."""
    if "upper" in tracks:
        upper, lower = tracks["upper"], tracks["forearm"]
    else:
        shrink = np.cos(np.radians(splay_degrees))  # the bones' lengths seen in the forward / up plane
        upper, lower = _planar_arm(tracks["reach_forward"], tracks["reach_up"], body.upper_length * shrink,
                                   body.lower_length * shrink, elbow_above)
    rest, world_rest = skeleton.rest, skeleton.world_transforms()
    rest_rotation = np.array([quat.from_matrix(normalised(m)) for m in world_rest])
    splay = np.radians(splay_degrees)
    arm = [body.shoulder, body.elbow] + ([body.wrist] if "wrist" in tracks or hold_hand else [])
    keyed: dict[int, list[np.ndarray]] = {j: [] for j in body.spine + arm + [j for leg in body.legs for j in leg]}
    if body.hips is not None:
        keyed[body.hips] = []
    offsets = []
    turn = lambda degrees: quat.from_axis_angle(body.turn_axis, degrees)  # noqa: E731
    lean = lambda degrees: quat.from_axis_angle(body.lean_axis, degrees)  # noqa: E731
    for k in range(times.size):
        hips_delta = quat.multiply(turn(tracks["hips_turn"][k]), lean(tracks["hips_lean"][k]))
        chest_delta = quat.multiply(turn(tracks["chest_turn"][k]), lean(tracks["chest_lean"][k]))
        world = rest_rotation.copy()
        translation, rotation = rest.translation.copy(), rest.rotation.copy()

        def place(joint: int, world_rotation: np.ndarray) -> None:
            parent = skeleton.parents[joint]
            parent_rotation = world[parent] if parent >= 0 else quat.IDENTITY
            world[joint] = world_rotation
            rotation[joint] = quat.multiply(quat.conjugate(parent_rotation), world_rotation)
            for child in np.flatnonzero(skeleton.parents == joint):  # unkeyed descendants follow
                _follow(skeleton, int(child), world, rotation)

        if body.hips is not None:
            offset = -tracks["hips_drop"][k] * body.up
            parent = skeleton.parents[body.hips]
            if parent >= 0:
                offset = np.linalg.solve(world_rest[parent, :3, :3], offset)
            translation[body.hips] = rest.translation[body.hips] + offset
            offsets.append(translation[body.hips])
            place(body.hips, quat.multiply(hips_delta, rest_rotation[body.hips]))
        for i, joint in enumerate(body.spine, start=1):
            share = i / len(body.spine)
            delta = quat.slerp(hips_delta, chest_delta, share) if body.hips is not None else chest_delta
            place(joint, quat.multiply(delta, rest_rotation[joint]))
        directions = []
        for degrees in (upper[k], lower[k]):
            forward_up = elevation(degrees)
            directions.append(np.cos(splay) * (forward_up[0] * body.forward + forward_up[1] * body.up)
                              + np.sin(splay) * body.outward)
        s, e, w = body.shoulder, body.elbow, body.wrist
        upper_rest = world_rest[e, :3, 3] - world_rest[s, :3, 3]
        lower_rest = world_rest[w, :3, 3] - world_rest[e, :3, 3]
        swing = quat.between(upper_rest, directions[0])
        place(s, quat.multiply(swing, rest_rotation[s]))
        bend = quat.between(quat.rotate(swing, lower_rest), directions[1])
        place(e, quat.multiply(bend, quat.multiply(swing, rest_rotation[e])))
        if "wrist" in tracks:  # the hand flexed about the side axis, from its place along the forearm
            place(w, quat.multiply(lean(tracks["wrist"][k]), world[w]))
        elif hold_hand:
            place(w, rest_rotation[w])
        if body.legs:
            _plant_legs(skeleton, body, Pose(translation, rotation, rest.scale), world, rotation, rest_rotation)
        for joint in keyed:
            keyed[joint].append(rotation[joint].copy())
    names = skeleton.names
    channels = {}
    if body.hips is not None:
        channels[names[body.hips]] = {"translation": (times, _looped(np.array(offsets))),
                                      "rotation": (times, _looped(np.array(keyed.pop(body.hips))))}
    for joint, values in keyed.items():
        channels[names[joint]] = {"rotation": (times, _looped(np.array(values)))}
    return Clip.from_keys(name, channels)


def _follow(skeleton: Skeleton, joint: int, world: np.ndarray, rotation: np.ndarray) -> None:
    """Update the world rotations of ``joint`` and its descendants from their local ``rotation``."""
    world[joint] = quat.multiply(world[skeleton.parents[joint]], rotation[joint])
    for child in np.flatnonzero(skeleton.parents == joint):
        _follow(skeleton, int(child), world, rotation)


def _plant_legs(skeleton: Skeleton, body: BodyJoints, pose: Pose, world: np.ndarray, rotation: np.ndarray,
                rest_rotation: np.ndarray) -> None:
    """Bend each leg (two-bone IK) so its ankle keeps its rest place and world rotation; writes ``rotation``."""
    positions, rest_positions = skeleton.world_positions(pose), skeleton.world_positions()
    for hip, knee, ankle in body.legs:
        shift = positions[hip] - rest_positions[hip]
        mid, tip = two_bone_ik(positions[hip], rest_positions[knee] + shift, rest_positions[ankle] + shift,
                               target=rest_positions[ankle], pole=rest_positions[knee] + body.forward)
        thigh = quat.between(rest_positions[knee] - rest_positions[hip], mid - positions[hip])
        world[hip] = quat.multiply(thigh, rest_rotation[hip])
        rotation[hip] = quat.multiply(quat.conjugate(world[skeleton.parents[hip]]), world[hip])
        shin = quat.between(quat.rotate(thigh, rest_positions[ankle] - rest_positions[knee]), tip - mid)
        world[knee] = quat.multiply(shin, quat.multiply(thigh, rest_rotation[knee]))
        rotation[knee] = quat.multiply(quat.conjugate(world[hip]), world[knee])
        rotation[ankle] = quat.multiply(quat.conjugate(world[knee]), rest_rotation[ankle])
        _follow(skeleton, ankle, world, rotation)


def _looped(values: np.ndarray) -> np.ndarray:
    """Key values with the last key a copy of the first (the cycle closes bit for bit)."""
    values = values.copy()
    values[-1] = values[0]
    return values
