"""What a :class:`~voxelworld.motion.ContactMotion` is made of and keeps: its constructor's arguments checked
(:func:`check_arguments`), its placement checked (:func:`check_placement`), the axes its torso shakes about
(:func:`axes_across`), how far the first action lets it shake (:func:`shake_room`) and the lists of the attributes it saves and restores with their checks
(``STATE_ATTRIBUTES``, ``STATE_CHECKS``, ``OTHER_ATTRIBUTES``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..attribute_state import MAX_SECONDS, array, bounded, instance, number, optional, seconds
from ..errors import ParameterError
from ._kernels import contact as _kernel
from .clip import Clip
from .measure import _angles, _rotations
from .part_contacts import Contact, Medium, PartShape, SlowdownProfile, joint_index
from .skeleton import Pose, Skeleton

__all__ = ["check_arguments", "check_placement", "axes_across", "shake_room", "STATE_ATTRIBUTES", "STATE_CHECKS",
           "OTHER_ATTRIBUTES"]

IDENTITY = np.eye(4).ravel().tolist()

# What the motion keeps from frame to frame (:meth:`state_dict`); the other attributes are what its
# constructor is given and derives from that.
STATE_ATTRIBUTES = ("clocks", "rates", "time", "contact", "_area", "_inside", "_in_media", "_part_in_media",
                    "part_drag", "_driven_end", "_previous_elbow",
                    "pose", "world", "part_segment", "_previous_end", "_held", "_since_contact", "_shake",
                    "_shake_frequency", "_second_weight", "_second_clock", "placement")
STATE_CHECKS = {"clocks": bounded((None,), MAX_SECONDS, "s"), "rates": bounded((None,), 100.0, "", 0.0),
                "time": seconds(), "contact": optional(instance(Contact)), "area": number(minimum=0.0, unit="m²"),
                "inside": array((None,)), "in_media": array((None, None), dtype="bool"),
                "part_in_media": array((None,), dtype="bool"), "part_drag": number(minimum=0.0),
                "driven_end": array((3,)), "previous_elbow": optional(array((3,))), "pose": instance(Pose),
                "world": array((None, 4, 4)), "part_segment": array((2, 3)), "previous_end": array((3,)),
                "held": array((None,)), "since_contact": seconds(infinite=True),
                "shake": number(minimum=0.0, maximum=45.0, unit="degrees"),
                "shake_frequency": number(minimum=0.0, unit="Hz"), "second_weight": number(0.0, 1.0),
                "second_clock": seconds(), "placement": array((4, 4))}  # rates: max_catch_up is at most 100
OTHER_ATTRIBUTES = ("skeleton", "clip", "part", "profile", "media", "loop", "start", "second_clip", "limits",
                    "chain", "shoulder", "elbow", "wrist", "root", "body", "_slot", "_taus", "_delays",
                    "_shaking", "_shake_axes", "_second_mask", "_parent", "_parents", "_chain", "_kinds",
                    "_params", "_placed", "_first_step", "_first_rotation", "_first_end", "_first_blade", "_tables",
                    "_scratch", "_slotted", "_slot_row", "_two_calls", "hold_part", "_first_position",
                    "_shake_joints", "_shake_room")


def check_arguments(skeleton: Skeleton, clip: Clip, chain: Sequence[str | int], root: str | int, part: PartShape,
                    profile: SlowdownProfile | None, media: Iterable[Medium],
                    second_clip: Clip | None) -> tuple[list[int], int, np.ndarray, SlowdownProfile, tuple[Medium, ...]]:
    """A ContactMotion's arguments checked (ParameterError naming the first one wrong): the chain's joint indices,
    the root's index, which joints are the hand (the wrist and every joint below it), the profile (the default
    for None) and the media as a tuple."""
    if not isinstance(skeleton, Skeleton):
        raise ParameterError("skeleton", type(skeleton).__name__, "a voxelworld.motion Skeleton")
    if not isinstance(clip, Clip):
        raise ParameterError("clip", type(clip).__name__, "a voxelworld.motion Clip")
    clip.sample(skeleton, 0.0)  # raises if the clip names joints the skeleton lacks
    if second_clip is not None:
        if not isinstance(second_clip, Clip) or second_clip.duration <= 0.0:
            raise ParameterError("second_clip", second_clip, "None or a voxelworld.motion Clip of positive duration")
        second_clip.sample(skeleton, 0.0)
    if isinstance(chain, (str, bytes)) or not isinstance(chain, Sequence) or not 2 <= len(chain) <= 64:
        raise ParameterError("chain", chain, "2 to 64 joints, shoulder to wrist, each the parent of the next")
    joints = [joint_index(skeleton, "chain", name) for name in chain]
    parents = skeleton.parents
    for a, b in zip(joints, joints[1:]):
        if parents[b] != a:
            raise ParameterError("chain", list(chain), "joints each the parent of the next (shoulder to wrist)")
    root_index = joint_index(skeleton, "root", root)
    n = len(skeleton)
    hand = np.zeros(n, dtype=bool)  # the wrist and every joint below it
    hand[joints[-1]] = True
    for j in range(joints[-1] + 1, n):
        hand[j] = parents[j] >= 0 and hand[parents[j]]
    if root_index in joints or hand[root_index]:
        raise ParameterError("root", root, "a joint outside the chain and the hand (the hips)")
    if not isinstance(part, PartShape):
        raise ParameterError("part", type(part).__name__, "a PartShape")
    profile = SlowdownProfile() if profile is None else profile
    if not isinstance(profile, SlowdownProfile):
        raise ParameterError("profile", type(profile).__name__, "a SlowdownProfile")
    media = tuple(media)
    for medium in media:
        if not isinstance(medium, Medium):
            raise ParameterError("media", type(medium).__name__, "a sequence of Medium")
    return joints, root_index, hand, profile, media


def axes_across(skeleton: Skeleton, joints: np.ndarray) -> np.ndarray:
    """(m, 3): for each shaking joint a unit axis in its own frame across its bone (to its first child)."""
    translation = skeleton.rest.translation
    axes = np.zeros((len(joints), 3))
    for i, j in enumerate(joints):
        children = np.flatnonzero(skeleton.parents == j)
        bone = translation[children[0]] if len(children) else np.array([0.0, 1.0, 0.0])
        bone = bone / max(np.linalg.norm(bone), 1e-12)
        other = np.eye(3)[int(np.argmin(np.abs(bone)))]
        across = np.cross(bone, other)
        axes[i] = across / np.linalg.norm(across)
    return axes


SHAKE_PROBE = 1e-4  # rad: the small shake by which shake_room measures how far each joint moves per radian
SHAKE_WINDOW = 4  # rows either side over which shake_room takes the least room (a 60 Hz frame at 1/240 s rows)


def shake_room(skeleton: Skeleton, poses: Pose, worlds: np.ndarray, shaking: np.ndarray, axes: np.ndarray,
               joints: np.ndarray, step: float) -> np.ndarray:
    """(f,) rad/s: at each row of the first action's table (``poses`` and their world matrices ``worlds (f, n, 4,
    4)``, rows ``step`` seconds apart), how fast the torso may shake (radians of shake angle per second) before
    one of ``joints`` moves, through the shake alone, as fast as the first action moves it there: the least, over
    the joints and over ``SHAKE_WINDOW`` rows either side, of the joint's world speed (m/s, rad/s) over what a
    radian of shake (``shaking`` joints about ``axes``, as the frame shakes them) moves it (m, rad). Joints the
    shake does not move do not count; 0 where the first action stands still."""
    count = len(worlds)
    room = np.full(count, np.inf)
    if count < 2 or step <= 0.0 or len(shaking) == 0:
        return np.where(np.isinf(room), 0.0, room)
    rotation = np.ascontiguousarray(poses.rotation)
    shaken = np.empty_like(rotation)
    for row in range(count):
        _kernel.shake(rotation[row], shaking, axes, SHAKE_PROBE, shaken[row])
    moved = skeleton.world_transforms(Pose._trusted(poses.translation, shaken, poses.scale))
    worlds, moved = worlds[:, joints], moved[:, joints]
    places, turned = worlds[..., :3, 3], _rotations(worlds)
    reach = np.linalg.norm(moved[..., :3, 3] - places, axis=-1) / SHAKE_PROBE  # m per rad of shake
    swing = _angles(turned, _rotations(moved)) / SHAKE_PROBE  # rad per rad of shake
    speed = np.linalg.norm(np.diff(places, axis=0), axis=-1) / step
    spin = _angles(turned[:-1], turned[1:]) / step
    speed, spin = np.vstack([speed, speed[-1:]]), np.vstack([spin, spin[-1:]])
    with np.errstate(divide="ignore", invalid="ignore"):
        room_each = np.minimum(np.where(reach > 1e-9, speed / reach, np.inf), np.where(swing > 1e-9, spin / swing,
                                                                                         np.inf))
    room = room_each.min(axis=1)
    padded = np.concatenate([np.full(SHAKE_WINDOW, room[0]), room, np.full(SHAKE_WINDOW, room[-1])])
    room = np.min(np.lib.stride_tricks.sliding_window_view(padded, 2 * SHAKE_WINDOW + 1), axis=1)
    return np.where(np.isinf(room), 0.0, room)


def check_placement(placement: ArrayLike) -> tuple[np.ndarray, bool]:
    """``placement`` as a (4, 4) float64 matrix, checked (rotation times a positive uniform scale plus a translation,
    last row 0 0 0 1; ParameterError otherwise), and whether it is not the identity."""
    legal = "a (4, 4) matrix of finite numbers: rotation times a positive uniform scale, last row 0 0 0 1"
    try:
        matrix = np.array(placement, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError("placement", placement, legal) from None
    if matrix.shape != (4, 4):
        raise ParameterError("placement", placement, legal)
    values = matrix.ravel().tolist()  # plain floats: a walking character is placed every frame
    if not all(map(math.isfinite, values)) or values[12:] != [0.0, 0.0, 0.0, 1.0]:
        raise ParameterError("placement", placement, legal)
    columns = [values[c:12:4] for c in range(3)]
    squares = [sum(v * v for v in column) for column in columns]
    gram_ok = all(abs(sum(a * b for a, b in zip(columns[i], columns[j])) - (squares[0] if i == j else 0.0))
                  <= 1e-9 + 1e-6 * (squares[0] if i == j else 0.0) for i in range(3) for j in range(3))
    (a, b, c), (d, e, f), (g, h, k) = columns  # the determinant: the columns' triple product
    determinant = a * (e * k - f * h) - d * (b * k - c * h) + g * (b * f - c * e)
    if min(squares) <= 1e-18 or not gram_ok or determinant <= 0:
        raise ParameterError("placement", placement, legal)
    return matrix, values != IDENTITY
