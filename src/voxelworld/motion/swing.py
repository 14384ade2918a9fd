"""Motions authored in code: a one-arm swing (a chainsaw swung down), looping full-body clips (a chainsaw swing,
sawing in material, a shovel dig, a rowing stroke) and a tool held along the forearm."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_direction, check_finite, check_integer, check_point
from . import quaternions as quat
from .body_tracks import BodyJoints, author_clip, elevation, normalised, waypoint_tracks
from .clip import Clip
from .part_contacts import PartShape, joint_index
from .skeleton import Skeleton

__all__ = ["swing_clip", "forearm_part", "held_part", "chainsaw_swing_clip", "cutting_clip", "dig_clip", "row_clip",
           "punch_clip", "PUNCH_STRIKE"]


def swing_clip(skeleton: Skeleton, chain: Sequence[str], forward: ArrayLike, up: ArrayLike, from_degrees: float = 60.0,
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
    parent_rotation = quat.from_matrix(normalised(world[parent])) if parent >= 0 else quat.IDENTITY
    shoulder_rest = quat.multiply(parent_rotation, rest.rotation[s])
    upper = world[e, :3, 3] - world[s, :3, 3]
    lower = world[w, :3, 3] - world[e, :3, 3]
    times = np.linspace(0.0, duration, keys)
    rotations: dict[int, list[np.ndarray]] = {s: [], e: []}
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
                 blade_side: ArrayLike | None = None) -> PartShape:
    """A tool held along the forearm: its axis runs from ``start`` to ``end`` metres beyond the wrist in the
    rest pose's elbow-to-wrist direction, expressed in the wrist's frame. ``blade_side``: a world direction (at
    rest) the blade's flat faces, or None for a blunt part."""
    e, w = (joint_index(skeleton, "chain", j) for j in chain[1:])
    world = skeleton.world_transforms()
    along = world[w, :3, 3] - world[e, :3, 3]
    along /= np.linalg.norm(along)
    return held_part(skeleton, w, along * start, along * end, radius, blade_side)


def held_part(skeleton: Skeleton, wrist: str | int, start: ArrayLike, end: ArrayLike, radius: float,
              blade_side: ArrayLike | None = None) -> PartShape:
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
    rotation = normalised(world[w])
    scale = np.linalg.norm(world[w, :3, 0])
    local_start, local_end = (rotation.T @ np.array(check_point(name, value)) / scale
                              for name, value in (("start", start), ("end", end)))
    blade = None if blade_side is None else rotation.T @ np.array(check_direction("blade_side", blade_side))
    return PartShape(local_start, local_end, radius, blade_normal=blade)


# The looping clips below are authored as tracks given at waypoints of the cycle (the track names, units and
# signs: :mod:`voxelworld.motion.body_tracks`). A clip loops when its last waypoint equals its first.


def chainsaw_swing_clip(skeleton: Skeleton, chain: Sequence[str], hips: str, chest: str, forward: ArrayLike,
                        up: ArrayLike, duration: float = 1.5, from_degrees: float = 60.0, to_degrees: float = -60.0,
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
    body_joints = BodyJoints.of(skeleton, chain, hips, chest, legs, forward, up)
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
    times, tracks = waypoint_tracks([(0.0, top, None), (downswing, bottom, "linear"), (1.0, top, "ease")],
                                     duration, keys)
    return author_clip(name, skeleton, body_joints, times, tracks)


def cutting_clip(skeleton: Skeleton, chain: Sequence[str], chest: str, forward: ArrayLike, up: ArrayLike,
                 duration: float = 0.4, arm_degrees: float = -20.0, bend_degrees: float = 25.0, stroke: float = 0.05,
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
    body_joints = BodyJoints.of(skeleton, chain, None, chest, (), forward, up)
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
    upper, lower = elevation(arm_degrees), elevation(arm_degrees - bend_degrees)
    reach_at = ((a * upper + b * lower)[:, None] - stroke * pull * lower[:, None]) / reach
    zeros = np.zeros(keys)
    tracks = dict(hips_turn=zeros, hips_lean=zeros, hips_drop=zeros, chest_turn=zeros,
                  chest_lean=brace_degrees + 1.0 - pull, reach_forward=reach_at[0], reach_up=reach_at[1])
    return author_clip(name, skeleton, body_joints, times, tracks, elbow_above=bend_degrees >= 0.0)


def dig_clip(skeleton: Skeleton, chain: Sequence[str], hips: str, chest: str, forward: ArrayLike, up: ArrayLike,
             duration: float = 1.6, depth: float = 1.0, keys: int = 33, legs: Sequence[Sequence[str]] = (),
             name: str = "dig") -> Clip:
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
    body_joints = BodyJoints.of(skeleton, chain, hips, chest, legs, forward, up)
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
    times, tracks = waypoint_tracks([(0.0, stand, None), (0.35, drive, "ease"), (0.55, lever, "ease"),
                                      (0.8, lift, "ease"), (1.0, stand, "ease")], duration, keys)
    return author_clip(name, skeleton, body_joints, times, tracks, elbow_above=False)


def row_clip(skeleton: Skeleton, chain: Sequence[str], hips: str, chest: str, forward: ArrayLike, up: ArrayLike,
             duration: float = 2.0, drive: float = 0.4, lift: float = 0.3, keys: int = 41,
             legs: Sequence[Sequence[str]] = (), name: str = "row") -> Clip:
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
    body_joints = BodyJoints.of(skeleton, chain, hips, chest, legs, forward, up)
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

    times, tracks = waypoint_tracks([(0.0, catch, None), (drive, finish, "ease"), (lifted[0], between(lifted[0]), "ease"),
                                      (lifted[1], between(lifted[1]), "ease"), (1.0, catch, "ease")], duration, keys)
    return author_clip(name, skeleton, body_joints, times, tracks, elbow_above=False, splay_degrees=15.0,
                   hold_hand=True)


PUNCH_STRIKE = 0.5  # share of the punch at which the fist is furthest out (punch_clip's strike waypoint)


def punch_clip(skeleton: Skeleton, chain: Sequence[str], hips: str, chest: str, forward: ArrayLike, up: ArrayLike,
               duration: float = 0.5, aim_degrees: float = 0.0, keys: int = 21, name: str = "punch") -> Clip:
    """A straight punch, played once: guard, wind-up, thrust along the aim, back to guard.

    At the guard (time 0 and ``duration``) the fist is by the chin: the wrist 0.4 of the arm's reach ahead of the
    shoulder and 0.2 below it. In the wind-up (to 0.2 of the clip) the chest turns back 15 degrees and the hips 5,
    the wrist drawn back to 0.25 ahead; in the thrust (to ``PUNCH_STRIKE``, 0.5) the chest turns 25 degrees
    forward and leans 5, the hips turn 10 forward and dip 2 cm, and the wrist goes out to 0.97 of the reach
    along ``aim_degrees`` of elevation; the rest of the clip brings it back. Every segment eases in and out.

    Parameters
    ----------
    skeleton : Skeleton
    chain : sequence of 3 joint names (or indices)
        Shoulder, elbow, wrist of the punching arm.
    hips, chest : str or int
        As for :func:`chainsaw_swing_clip`.
    forward, up : array_like (3,)
    duration : float
        The punch's length at full speed (s), > 0.
    aim_degrees : float
        Where the fist goes: degrees above ``forward`` (negative: below), in [-80, 80].
    keys : int
        Key times, >= 5.
    name : str

    Returns
    -------
    Clip
        Keys the rotations of ``hips``, the joints from it to ``chest``, the shoulder, elbow and wrist, and the
        translation of ``hips``.

    Examples
    --------
    >>> from voxelworld.motion import CESIUM_MAN, load_gltf
    >>> man = load_gltf(CESIUM_MAN).skeleton
    >>> arm = ["Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"]
    >>> clip = punch_clip(man, arm, "Skeleton_torso_joint_1", "torso_joint_3", (1, 0, 0), (0, 0, 1))
    >>> wrist = man.index(arm[2])
    >>> guard, strike = (man.world_positions(clip.sample(man, t))[wrist] for t in (0.0, 0.25))
    >>> bool(strike[0] - guard[0] > 0.2)  # out along forward
    True
    """
    body_joints = BodyJoints.of(skeleton, chain, hips, chest, (), forward, up)
    duration = check_finite("duration", duration, minimum=0.0, strict_minimum=True, unit="s")
    aim = np.radians(check_finite("aim_degrees", aim_degrees, minimum=-80.0, maximum=80.0, unit="degrees"))
    keys = check_integer("keys", keys, minimum=5)
    guard = dict(hips_turn=0.0, hips_lean=0.0, hips_drop=0.0, chest_turn=0.0, chest_lean=0.0, reach_forward=0.4,
                 reach_up=-0.2)
    wind_up = guard | dict(hips_turn=-5.0, chest_turn=-15.0, reach_forward=0.25)
    strike = dict(hips_turn=10.0, hips_lean=0.0, hips_drop=0.02, chest_turn=25.0, chest_lean=5.0,
                  reach_forward=0.97 * float(np.cos(aim)), reach_up=0.97 * float(np.sin(aim)))
    times, tracks = waypoint_tracks([(0.0, guard, None), (0.2, wind_up, "ease"), (PUNCH_STRIKE, strike, "ease"),
                                      (1.0, guard, "ease")], duration, keys)
    return author_clip(name, skeleton, body_joints, times, tracks, elbow_above=False)
