"""Motions authored in code: a one-arm swing (a chainsaw swung down), looping full-body clips (a chainsaw swing,
sawing in material, a shovel dig, a rowing stroke) and a tool held along the forearm."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError, check_direction, check_finite, check_integer, check_point
from . import quaternions as quat
from .clip import Clip
from .ik import two_bone_ik
from .part_contacts import PartShape, joint_index
from .skeleton import Pose, Skeleton

__all__ = ["swing_clip", "forearm_part", "held_part", "chainsaw_swing_clip", "cutting_clip", "dig_clip", "row_clip"]


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
    along = world[w, :3, 3] - world[e, :3, 3]
    along /= np.linalg.norm(along)
    return held_part(skeleton, w, along * start, along * end, radius, blade_side)


def held_part(skeleton: Skeleton, wrist, start, end, radius: float, blade_side=None) -> PartShape:
    """A tool held in the hand of ``wrist`` (a joint name or index): its axis runs from ``start`` to ``end``,
    offsets from the wrist in the skeleton's world frame at rest (m), expressed in the wrist's frame, so the tool
    turns with the hand. ``blade_side``: a world direction (at rest) the blade's flat faces, or None for a blunt
    part. An oar held out to the side and down to the water:

    >>> from voxelworld.motion import CESIUM_MAN, load_gltf
    >>> man = load_gltf(CESIUM_MAN).skeleton
    >>> oar = held_part(man, "Skeleton_arm_joint_R__3_", (0, 0, 0), (0, -1.6, -0.9), 0.04, blade_side=(1, 0, 0))
    >>> wrist = man.world_transforms()[man.index("Skeleton_arm_joint_R__3_")]
    >>> (oar.placed(wrist)[1] - wrist[:3, 3]).round(6).tolist()
    [0.0, -1.6, -0.9]
    """
    w = joint_index(skeleton, "wrist", wrist)
    world = skeleton.world_transforms()
    rotation = _normalised(world[w])
    scale = np.linalg.norm(world[w, :3, 0])
    start, end = (rotation.T @ np.array(check_point(name, value)) / scale
                  for name, value in (("start", start), ("end", end)))
    blade = None if blade_side is None else rotation.T @ np.array(check_direction("blade_side", blade_side))
    return PartShape(start, end, radius, blade_normal=blade)


def _normalised(matrix: np.ndarray) -> np.ndarray:
    """The rotation part of a 4x4 matrix, columns normalised."""
    linear = matrix[:3, :3]
    return linear / np.linalg.norm(linear, axis=0)


# ---------------------------------------------------------------------------------------------- full-body clips
# The looping clips below are authored as a few named *tracks* (angles in degrees, offsets in metres) given at
# waypoints of the cycle, sampled into evenly spread keys, and turned into joint rotations by ``_author``:
#
#   hips_turn, hips_lean, chest_turn, chest_lean   world rotations of the hips and the chest from rest (degrees):
#       turn about ``up`` (positive brings the arm's shoulder forward), lean about the side axis (positive: the
#       top goes forward); the joints between hips and chest (the waist) take an even share of the difference.
#   hips_drop               how far (m) the hips go down along ``up`` (their translation is keyed).
#   upper, forearm          world elevations (degrees above ``forward`` towards ``up``) of the two arm bones, or
#   reach_forward, reach_up the wrist relative to the shoulder in the forward / up plane (fractions of the arm's
#                           reach), solved into elevations by planar two-bone IK.
#   wrist                   optional: the hand's flex about the side axis from its place along the forearm
#                           (degrees, positive: up); without it the wrist keeps its rest rotation.
#
# A clip loops when its last waypoint equals its first: the last key is then copied from the first, bit for bit.

def chainsaw_swing_clip(skeleton: Skeleton, chain: Sequence[str], hips: str, chest: str, forward, up,
                        duration: float = 1.5, from_degrees: float = 60.0, to_degrees: float = -60.0,
                        bend_degrees: float = 25.0, downswing: float = 0.6, body: float = 1.0, keys: int = 31,
                        legs: Sequence[Sequence[str]] = (), name: str = "chainsaw swing") -> Clip:
    """A looping full-body chainsaw swing: wind-up, downswing at constant angular speed, upswing back.

    At the wind-up (time 0 and ``duration``) the upper arm points ``from_degrees`` above ``forward``, the chest is
    turned back 20 degrees and leans back 8, the hips are turned back 8 degrees. In the downswing (the first
    ``downswing`` share of the cycle) the upper arm sweeps down through ``forward`` to ``to_degrees`` at a
    constant angular speed (evenly spaced keys, linear in time), the forearm bends from 10 to ``bend_degrees``
    below it, the chest turns 15 degrees forward of rest and leans 15 forward, the hips turn 6 degrees forward of
    rest, lean 4 degrees forward and dip 4 cm (the root's translation is keyed). The upswing returns to the
    wind-up, easing in and out (its top speed is 4/3 of its mean speed). ``body`` scales every body angle and
    offset (0: the arm alone moves).

    Parameters
    ----------
    skeleton : Skeleton
    chain : sequence of 3 joint names (or indices)
        Shoulder, elbow, wrist of the arm holding the saw; the chest must be an ancestor of the shoulder.
    hips, chest : str or int
        The hips joint (the root, or the joint whose translation is keyed) and the chest joint, a descendant of
        ``hips``; joints between them (the waist) are keyed too.
    forward, up : array_like (3,)
        The character's facing and up directions in the skeleton's world frame (``up`` is made perpendicular
        to ``forward``).
    duration : float
        The cycle's length (s), > 0.
    from_degrees, to_degrees : float
        The upper arm's elevation (degrees) at the wind-up and at the bottom of the downswing.
    bend_degrees : float
        How far below the upper arm the forearm points at the bottom (degrees).
    downswing : float
        The downswing's share of the cycle, in (0, 1).
    body : float
        Scale of the hips' and chest's motion, >= 0.
    keys : int
        Key times per cycle (the last repeats the first), >= 5; spread over the downswing and upswing by their
        durations.
    legs : sequence of (hip, knee, ankle) joint names
        Legs to keep planted: each ankle stays at its rest place and rotation, the knee bending towards
        ``forward`` (two-bone IK per key). Empty: the legs keep their rest rotations and follow the hips.
    name : str

    Returns
    -------
    Clip
        Keys the rotations of ``hips``, the joints from it to ``chest``, the chain's shoulder, elbow and wrist,
        each leg's joints, and the translation of ``hips``.

    Examples
    --------
    >>> from voxelworld.motion import CESIUM_MAN, load_gltf
    >>> man = load_gltf(CESIUM_MAN).skeleton
    >>> arm = ["Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"]
    >>> clip = chainsaw_swing_clip(man, arm, "Skeleton_torso_joint_1", "torso_joint_3", (1, 0, 0), (0, 0, 1))
    >>> clip.duration
    1.5
    >>> bool(np.allclose(man.world_positions(clip.sample(man, 0.0)), man.world_positions(clip.sample(man, 1.5))))
    True
    """
    body_joints = _BodyJoints.of(skeleton, chain, hips, chest, legs, forward, up)
    for parameter in ("from_degrees", "to_degrees", "bend_degrees"):
        check_finite(parameter, locals()[parameter], unit="degrees")
    duration = check_finite("duration", duration, minimum=0.0, strict_minimum=True, unit="s")
    downswing = check_finite("downswing", downswing, minimum=0.0, strict_minimum=True, maximum=1.0)
    if downswing >= 1.0:
        raise ParameterError("downswing", downswing, "a share of the cycle in (0, 1)")
    body = check_finite("body", body, minimum=0.0)
    keys = check_integer("keys", keys, minimum=5)
    top = dict(hips_turn=-8.0 * body, hips_lean=0.0, hips_drop=0.0, chest_turn=-20.0 * body,
               chest_lean=-8.0 * body, upper=from_degrees, forearm=from_degrees - 10.0, wrist=25.0)
    bottom = dict(hips_turn=6.0 * body, hips_lean=4.0 * body, hips_drop=0.04 * body, chest_turn=15.0 * body,
                  chest_lean=15.0 * body, upper=to_degrees, forearm=to_degrees - bend_degrees, wrist=-15.0)
    times, tracks = _waypoint_tracks([(0.0, top, None), (downswing, bottom, "linear"), (1.0, top, "ease")],
                                     duration, keys)
    return _author(name, skeleton, body_joints, times, tracks)


def cutting_clip(skeleton: Skeleton, chain: Sequence[str], chest: str, forward, up, duration: float = 0.4,
                 arm_degrees: float = -20.0, bend_degrees: float = 25.0, stroke: float = 0.05,
                 brace_degrees: float = 8.0, keys: int = 17, name: str = "cutting") -> Clip:
    """A looping second action: the saw held in the material, sawn back and forth in short strokes.

    At the stroke's far end (time 0 and ``duration``) the upper arm points ``arm_degrees`` above ``forward``
    (negative: below) and the forearm ``bend_degrees`` further down; the wrist draws back along the forearm's
    direction by ``stroke`` metres and pushes out again (half a cosine each way), the shoulder and elbow
    following by planar two-bone IK. The chest is braced: leaning ``brace_degrees`` forward, one degree more
    at the far end.

    Parameters
    ----------
    skeleton : Skeleton
    chain : sequence of 3 joint names (or indices)
        Shoulder, elbow, wrist; ``chest`` must be an ancestor of the shoulder.
    chest : str or int
    forward, up : array_like (3,)
        Facing and up directions in the skeleton's world frame.
    duration : float
        One stroke back and out (s), > 0.
    arm_degrees, bend_degrees : float
        The arm's mean pose (degrees).
    stroke : float
        The wrist's travel end to end (m), >= 0 and less than the arm's reach.
    brace_degrees : float
        The chest's forward lean (degrees).
    keys : int
        Key times per stroke (the last repeats the first), >= 5.
    name : str

    Returns
    -------
    Clip
        Keys the rotations of ``chest`` and the chain's shoulder and elbow.

    Examples
    --------
    >>> from voxelworld.motion import CESIUM_MAN, load_gltf
    >>> man = load_gltf(CESIUM_MAN).skeleton
    >>> arm = ["Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"]
    >>> cutting_clip(man, arm, "torso_joint_3", (1, 0, 0), (0, 0, 1)).joint_names
    ('torso_joint_3', 'Skeleton_arm_joint_R', 'Skeleton_arm_joint_R__2_')
    """
    body_joints = _BodyJoints.of(skeleton, chain, None, chest, (), forward, up)
    for parameter in ("arm_degrees", "bend_degrees", "brace_degrees"):
        check_finite(parameter, locals()[parameter], unit="degrees")
    duration = check_finite("duration", duration, minimum=0.0, strict_minimum=True, unit="s")
    reach = body_joints.upper_length + body_joints.lower_length
    stroke = check_finite("stroke", stroke, minimum=0.0, unit="m")
    if stroke >= reach:
        raise ParameterError("stroke", stroke, f"a travel (m) in [0, {reach:.3f}) (less than the arm's reach)")
    keys = check_integer("keys", keys, minimum=5)
    times = np.linspace(0.0, duration, keys)
    pull = 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(keys) / (keys - 1))
    pull[-1] = pull[0]
    a, b = body_joints.upper_length, body_joints.lower_length
    upper, lower = _elevation(arm_degrees), _elevation(arm_degrees - bend_degrees)
    reach_at = ((a * upper + b * lower)[:, None] - stroke * pull * lower[:, None]) / reach
    zeros = np.zeros(keys)
    tracks = dict(hips_turn=zeros, hips_lean=zeros, hips_drop=zeros, chest_turn=zeros,
                  chest_lean=brace_degrees + 1.0 - pull, reach_forward=reach_at[0], reach_up=reach_at[1])
    return _author(name, skeleton, body_joints, times, tracks, elbow_above=bend_degrees >= 0.0)


def dig_clip(skeleton: Skeleton, chain: Sequence[str], hips: str, chest: str, forward, up, duration: float = 1.6,
             depth: float = 1.0, keys: int = 33, legs: Sequence[Sequence[str]] = (), name: str = "dig") -> Clip:
    """A looping shovel dig (the shovel held along the forearm of ``chain``).

    Phases (share of the cycle): stand (0: the chest leaning 5 degrees forward, the wrist 0.3 / 0.85 of the
    arm's reach ahead of / below the shoulder); drive (0.35: the chest bends 85 degrees forward of upright, the
    hips lean 30 forward and dip 20 cm, the arm nearly straight down and forward, 0.3 / 0.95 of the reach:
    on CesiumMan the wrist goes just below standing knee height, about 0.4 m ahead of the feet); lever back
    (0.55: the chest rises to 70 degrees, the hips to 15 cm down, the wrist pulled back under the shoulder);
    lift (0.8: the chest at 30 degrees, the wrist raised forward, 0.6 / 0.45 of the reach); stand again (1).
    Every segment eases in and out. The hips and chest turn a few degrees towards the arm on the drive and away on the lever. ``depth``
    scales the bend, the hips' lean and the dip.

    Parameters
    ----------
    skeleton : Skeleton
    chain : sequence of 3 joint names (or indices)
        Shoulder, elbow, wrist of the arm driving the shovel.
    hips, chest : str or int
        As for :func:`chainsaw_swing_clip`.
    forward, up : array_like (3,)
    duration : float
        The cycle's length (s), > 0.
    depth : float
        Scale of the chest's bend, the hips' lean and the dip, > 0.
    keys : int
        Key times per cycle (the last repeats the first), >= 9.
    legs : sequence of (hip, knee, ankle) joint names
        Legs kept planted, as for :func:`chainsaw_swing_clip`.
    name : str

    Returns
    -------
    Clip
        Keys the rotations of ``hips``, the joints from it to ``chest``, the shoulder and elbow, each leg's
        joints, and the translation of ``hips``.

    Examples
    --------
    >>> from voxelworld.motion import CESIUM_MAN, load_gltf
    >>> man = load_gltf(CESIUM_MAN).skeleton
    >>> arm = ["Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"]
    >>> dig_clip(man, arm, "Skeleton_torso_joint_1", "torso_joint_3", (1, 0, 0), (0, 0, 1)).duration
    1.6
    """
    body_joints = _BodyJoints.of(skeleton, chain, hips, chest, legs, forward, up)
    duration = check_finite("duration", duration, minimum=0.0, strict_minimum=True, unit="s")
    depth = check_finite("depth", depth, minimum=0.0, strict_minimum=True)
    keys = check_integer("keys", keys, minimum=9)
    pose = lambda turn, lean, drop, chest_lean, reach_forward, reach_up: dict(  # noqa: E731
        hips_turn=turn, hips_lean=lean * depth, hips_drop=drop * depth, chest_turn=turn * 1.5,
        chest_lean=chest_lean * depth, reach_forward=reach_forward, reach_up=reach_up)
    stand = pose(0.0, 0.0, 0.0, 5.0, 0.3, -0.85)
    drive = pose(4.0, 30.0, 0.2, 85.0, 0.3, -0.95)
    lever = pose(-4.0, 25.0, 0.15, 70.0, 0.15, -0.9)
    lift = pose(-2.0, 10.0, 0.05, 30.0, 0.6, -0.45)
    times, tracks = _waypoint_tracks([(0.0, stand, None), (0.35, drive, "ease"), (0.55, lever, "ease"),
                                      (0.8, lift, "ease"), (1.0, stand, "ease")], duration, keys)
    return _author(name, skeleton, body_joints, times, tracks, elbow_above=False)


def row_clip(skeleton: Skeleton, chain: Sequence[str], hips: str, chest: str, forward, up, duration: float = 2.0,
             drive: float = 0.4, lift: float = 0.3, keys: int = 41, legs: Sequence[Sequence[str]] = (),
             name: str = "row") -> Clip:
    """A looping rowing stroke: reach forward, drive the wrist back to the body, lift, recover.

    At the catch (time 0) the chest leans 25 degrees forward and the wrist is 0.95 of the arm's reach ahead of
    the shoulder and 0.25 below it (chest-to-waist height); the drive (the first ``drive`` share of the cycle)
    pulls the wrist straight back along ``forward`` to 0.15 of the reach ahead of the shoulder, the elbow going
    back below and beside the body, while the chest leans back to 15 degrees behind upright and the hips rock
    back 5 degrees. Then the hands rise by ``lift`` of the reach (a fifth of the recovery; an oar held in them
    comes out of the water), go forward that high, and drop back to the catch over its last fifth (the blade
    goes in). The hand keeps its world rotation at rest all the stroke long, so a tool held in it
    (:func:`held_part`) keeps its direction. Every phase eases in and out.

    Parameters
    ----------
    skeleton : Skeleton
    chain : sequence of 3 joint names (or indices)
        Shoulder, elbow, wrist of the pulling arm.
    hips, chest : str or int
        As for :func:`chainsaw_swing_clip`.
    forward, up : array_like (3,)
    duration : float
        The cycle's length (s), > 0.
    drive : float
        The drive's share of the cycle, in (0, 1).
    lift : float
        How far the hands rise for the recovery, as a share of the arm's reach (0..1).
    keys : int
        Key times per cycle (the last repeats the first), >= 5.
    legs : sequence of (hip, knee, ankle) joint names
        Legs kept planted, as for :func:`chainsaw_swing_clip`.
    name : str

    Returns
    -------
    Clip
        Keys the rotations of ``hips``, the joints from it to ``chest``, the shoulder, elbow and wrist, each
        leg's joints, and the translation of ``hips``.

    Examples
    --------
    >>> from voxelworld.motion import CESIUM_MAN, load_gltf
    >>> man = load_gltf(CESIUM_MAN).skeleton
    >>> arm = ["Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"]
    >>> row_clip(man, arm, "Skeleton_torso_joint_1", "torso_joint_3", (1, 0, 0), (0, 0, 1)).duration
    2.0
    """
    body_joints = _BodyJoints.of(skeleton, chain, hips, chest, legs, forward, up)
    duration = check_finite("duration", duration, minimum=0.0, strict_minimum=True, unit="s")
    drive = check_finite("drive", drive, minimum=0.0, strict_minimum=True, maximum=1.0)
    if drive >= 1.0:
        raise ParameterError("drive", drive, "a share of the cycle in (0, 1)")
    lift = check_finite("lift", lift, minimum=0.0, maximum=1.0)
    keys = check_integer("keys", keys, minimum=9)
    catch = dict(hips_turn=0.0, hips_lean=5.0, hips_drop=0.02, chest_turn=-5.0, chest_lean=25.0,
                 reach_forward=0.95, reach_up=-0.25)
    finish = dict(hips_turn=0.0, hips_lean=-5.0, hips_drop=0.0, chest_turn=5.0, chest_lean=-15.0,
                  reach_forward=0.15, reach_up=-0.3)
    recovery = 1.0 - drive
    lifted = [drive + 0.2 * recovery, 1.0 - 0.2 * recovery]  # hands up (blade out), then forward up there

    def between(share: float) -> dict:  # the body on its way from the finish back to the catch, hands raised
        u = (share - drive) / recovery
        pose = {track: finish[track] + (catch[track] - finish[track]) * u for track in catch}
        pose["reach_up"] += lift
        return pose

    times, tracks = _waypoint_tracks([(0.0, catch, None), (drive, finish, "ease"), (lifted[0], between(lifted[0]), "ease"),
                                      (lifted[1], between(lifted[1]), "ease"), (1.0, catch, "ease")], duration, keys)
    return _author(name, skeleton, body_joints, times, tracks, elbow_above=False, splay_degrees=15.0,
                   hold_hand=True)


@dataclass(frozen=True)
class _BodyJoints:
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
    def of(cls, skeleton, chain, hips, chest, legs, forward, up) -> "_BodyJoints":
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


def _waypoint_tracks(waypoints, duration: float, keys: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
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


def _elevation(degrees) -> np.ndarray:
    """The (forward, up) components of directions ``degrees`` above forward: shape (2,) or (2, k)."""
    radians = np.radians(degrees)
    return np.array([np.cos(radians), np.sin(radians)])


def _planar_arm(reach_forward, reach_up, a: float, b: float, elbow_above: bool) -> tuple[np.ndarray, np.ndarray]:
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


def _author(name: str, skeleton: Skeleton, body: _BodyJoints, times: np.ndarray, tracks: dict[str, np.ndarray],
            elbow_above: bool = True, splay_degrees: float = 0.0, hold_hand: bool = False) -> Clip:
    """The clip of ``tracks`` (see the comment above :func:`chainsaw_swing_clip`) keyed at ``times`` (s);
    ``hold_hand``: the wrist keeps its world rotation at rest (a held oar keeps its direction)."""
    if "upper" in tracks:
        upper, lower = tracks["upper"], tracks["forearm"]
    else:
        shrink = np.cos(np.radians(splay_degrees))  # the bones' lengths seen in the forward / up plane
        upper, lower = _planar_arm(tracks["reach_forward"], tracks["reach_up"], body.upper_length * shrink,
                                   body.lower_length * shrink, elbow_above)
    rest, world_rest = skeleton.rest, skeleton.world_transforms()
    rest_rotation = np.array([quat.from_matrix(_normalised(m)) for m in world_rest])
    splay = np.radians(splay_degrees)
    arm = [body.shoulder, body.elbow] + ([body.wrist] if "wrist" in tracks or hold_hand else [])
    keyed = {j: [] for j in body.spine + arm + [j for leg in body.legs for j in leg]}
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
            forward_up = _elevation(degrees)
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


def _plant_legs(skeleton: Skeleton, body: _BodyJoints, pose: Pose, world: np.ndarray, rotation: np.ndarray,
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
