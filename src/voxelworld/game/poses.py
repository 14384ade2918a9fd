"""Every actor posed every frame on the shipped character, CesiumMan (:data:`voxelworld.motion.CESIUM_MAN`).

:func:`pose_characters` gives one :class:`CharacterPose` per actor (the player, each NPC, each chainsaw enemy):
the local rotation of each of CesiumMan's 19 joints, its root joint's translation, and where the figure stands
and faces. A renderer that skins CesiumMan with these rotations (the browser page does) draws the actors; the
world puts the poses in its :class:`~voxelworld.game.reports.Snapshot` (``snapshot.characters``).

- **Walkers** (NPCs, and the player when it moves) play CesiumMan's walk clip with its phase advanced by the
  distance they travelled (the rig's ``walk_cycle`` metres a cycle, measured from the clip's feet), so the feet
  do not slide; standing still, the figure eases into its idle pose (the rest pose with the arms let down)
  within :data:`BLEND_SECONDS`.
- **The player's actions** are layers over the walk or idle pose: a punch (or a pull-out) is its own contact
  motion (:mod:`voxelworld.game.strike`: the torso, the right arm and the hand take its pose, slowed where the
  fist strikes something hard); suck holds both arms forward, a throw swings the right arm from up behind to
  forward, and in the air both arms rise sideways.
- **NPCs jumping down a ledge** (crossing an off-mesh link of their path, :attr:`~voxelworld.game.npcs.NPC.jump`)
  take the in-air layer (both arms up sideways, eased in over :data:`BLEND_SECONDS`) over a held walk pose.
- **The chainsaw enemy** plays its full-body chainsaw swing on CesiumMan's own skeleton
  (:mod:`voxelworld.game.enemy`), so its pose is the swing's pose as it is: every joint's local rotation and the
  root's translation, with the enemy's position, yaw and scale (the placement its motion stands in). The cut, the
  slowed wrist and the body's slowdown and shake are therefore in the pose. Its pose also carries the blade's
  segment and what the blade touches.

A pose depends only on the world and the last frame's poses (which carry the walk phase and the action
layers' clocks), so the same inputs give the same poses, bit for bit, and a saved world (whose snapshot holds
the poses) goes on as it would have.

Frames
------
The model stands in its own frame (glTF's: Y up, the figure facing +Z, its right hand towards -X). A pose
places it in the world by :func:`model_to_world`: scaled by ``scale``, turned about Y by ``yaw + 180``
degrees (``yaw`` as the player's view yaw: 0 faces -Z, 90 faces -X) and moved to ``position`` (its feet).
The joints' local rotations are those of the glTF nodes (so a renderer sets its bones' quaternions to them).

Examples
--------
>>> from voxelworld.game.world import Inputs, World
>>> world = World.demo(seed=0)
>>> for _ in range(30):
...     _ = world.step(Inputs(move=(0.0, 1.0)))
>>> poses = world.snapshot().characters
>>> [p.kind for p in poses]
['player', 'npc', 'npc', 'npc', 'enemy']
>>> len(poses[0].rotations) == 4 * len(character_rig().skeleton), poses[0].walk_phase > 0
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from functools import cache, partial
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_finite, check_point, check_range
from ..motion import CESIUM_MAN, Clip, Pose, Skeleton, load_gltf
from .all_players import every_actions
from .events import ActionStarted, Event

if TYPE_CHECKING:
    from .enemy import ChainsawEnemy
    from .play import PlayerActions
    from .world import World

    _Vector = Sequence[float] | np.ndarray  # a point, direction or quaternion: a tuple or an array
    _Quaternion = tuple[float, float, float, float]  # x, y, z, w

__all__ = ["CharacterPose", "CharacterRig", "character_rig", "model_height", "pose_characters", "enemy_pose",
           "aim_arm", "model_to_world", "BLEND_SECONDS", "ACTION_SECONDS", "RIGHT_ARM", "LEFT_ARM"]

RIGHT_ARM = ("Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_")  # shoulder, elbow, wrist
LEFT_ARM = ("Skeleton_arm_joint_L__4_", "Skeleton_arm_joint_L__3_", "Skeleton_arm_joint_L__2_")
BLEND_SECONDS = 0.2  # s: the walk and the layers ease in and out over this long
ACTION_SECONDS = {"throw": 0.45}  # s: how long a pressed action's layer plays
WALKING_SPEED = 0.2  # m/s: slower than this is standing
TELEPORT = 2.0  # m: a move longer than this in one frame is a jump cut (no walk phase)
KINDS = ("player", "npc", "enemy")
WALK_SAMPLES = 385  # samples of the walk clip kept by the rig (its keys are 1/24 s apart; these 1/192 s, the
# nearest is played: at walking speed the feet move under 5 mm from one sample to the next)


@dataclass(frozen=True)
class CharacterPose:
    """One actor's pose for a frame (see the module).

    ``name`` and ``kind`` ("player", "npc" or "enemy"); ``position`` (m) where the model's feet stand, ``yaw``
    (degrees) where it faces and ``scale`` its size (1: CesiumMan's own); ``rotations``: the local rotation
    ``(x, y, z, w)`` of every joint of :func:`character_rig`'s skeleton, flat, 4 per joint, in joint order;
    ``root``: the root joint's local translation (m, model units). The walk's state: ``walk_phase`` (s into the
    walk clip) and ``walk_weight`` (0 idle .. 1 walking); the layers': ``action`` ("throw" or ""; "punch" in a
    pose saved before the punch had its own motion, :mod:`voxelworld.game.strike`) and ``action_time`` (s since it started), ``suck_weight`` and ``air_weight`` (0..1). An enemy's
    ``blade`` is its blade's segment (two points, m) and ``contact`` the material it touches (or None).
    """

    name: str
    kind: str
    position: tuple[float, float, float]
    yaw: float
    scale: float
    rotations: tuple[float, ...]
    root: tuple[float, float, float]
    walk_phase: float = 0.0
    walk_weight: float = 0.0
    action: str = ""
    action_time: float = 0.0
    suck_weight: float = 0.0
    air_weight: float = 0.0
    blade: tuple[tuple[float, float, float], tuple[float, float, float]] | None = None
    contact: str | None = None

    def __post_init__(self) -> None:
        """Check every field (a pose read back from a file is built through here); numbers become floats."""
        set_field = partial(object.__setattr__, self)
        check_range("name", self.name, "a non-empty string", isinstance(self.name, str) and bool(self.name))
        check_range("kind", self.kind, "one of " + ", ".join(KINDS), self.kind in KINDS)
        set_field("position", check_point("position", self.position))
        set_field("yaw", check_finite("yaw", self.yaw, unit="degrees"))
        set_field("scale", check_finite("scale", self.scale, minimum=0.0, strict_minimum=True))
        joints = len(character_rig().skeleton)
        legal = f"{4 * joints} finite numbers (a unit quaternion x, y, z, w per joint)"
        rotations = self.rotations
        check_range("rotations", rotations, legal,
                    isinstance(rotations, (tuple, list)) and len(rotations) == 4 * joints)
        try:
            quaternions = np.array(rotations, dtype=np.float64).reshape(-1, 4)
        except (TypeError, ValueError):
            raise ParameterError("rotations", rotations, legal) from None
        lengths = np.sqrt(np.sum(quaternions * quaternions, axis=1))
        check_range("rotations", rotations, legal, bool(np.all(np.abs(lengths - 1.0) <= 1e-3)))
        set_field("rotations", tuple(quaternions.ravel().tolist()))
        set_field("root", check_point("root", self.root))
        duration = character_rig().walk.duration
        set_field("walk_phase", check_finite("walk_phase", self.walk_phase, minimum=0.0, maximum=duration, unit="s"))
        for name in ("walk_weight", "suck_weight", "air_weight"):
            set_field(name, check_finite(name, getattr(self, name), minimum=0.0, maximum=1.0))
        check_range("action", self.action, "one of '', " + ", ".join(ACTION_SECONDS),
                    self.action == "" or self.action in ACTION_SECONDS)
        set_field("action_time", check_finite("action_time", self.action_time, minimum=0.0,
                                              maximum=ACTION_SECONDS.get(self.action, 0.0), unit="s"))
        if self.blade is not None:
            check_range("blade", self.blade, "None or two points", isinstance(self.blade, (tuple, list))
                        and len(self.blade) == 2)
            set_field("blade", (check_point("blade[0]", self.blade[0]), check_point("blade[1]", self.blade[1])))
        check_range("contact", self.contact, "None or a material name", self.contact is None or
                    isinstance(self.contact, str))

    @classmethod
    def _made(cls, *values: object) -> CharacterPose:
        """A pose the poser made itself, its fields in order and of the right types: no checks (every frame)."""
        pose = object.__new__(cls)
        pose.__dict__.update(zip(_POSE_FIELDS, values))  # frozen: its __setattr__ refuses, its __dict__ does not
        return pose

    def local_rotations(self) -> np.ndarray:
        """``rotations`` as an (n, 4) array."""
        return np.array(self.rotations, dtype=np.float64).reshape(-1, 4)

    def skeleton_pose(self) -> Pose:
        """The rig's :class:`~voxelworld.motion.Pose` of this pose (rest translations and scales, these
        rotations, this root translation)."""
        rest = character_rig().skeleton.rest
        translation = rest.translation.copy()
        translation[0] = self.root
        return Pose(translation, self.local_rotations(), rest.scale)

    def world_positions(self) -> np.ndarray:
        """Every joint's position in the world (m), (n, 3)."""
        rig = character_rig()
        local = rig.skeleton.world_positions(self.skeleton_pose())
        placed = model_to_world(self.position, self.yaw, self.scale) @ rig.root_transform
        return local @ placed[:3, :3].T + placed[:3, 3]


_POSE_FIELDS = tuple(f.name for f in fields(CharacterPose))


@dataclass(frozen=True)
class CharacterRig:
    """CesiumMan as the poses use it: its ``skeleton`` (Z up in its own space), ``root_transform`` (skeleton
    space to model space, 4x4), the ``walk`` clip, the ``idle`` rotations (rest) and root translation, the
    right and left arm chains' joint indices and ``shoulder_height`` (m, the right shoulder's height at rest)."""

    skeleton: Skeleton
    root_transform: np.ndarray
    walk: Clip
    idle_rotations: np.ndarray
    idle_root: np.ndarray
    right_arm: tuple[int, ...]  # shoulder, elbow, wrist
    left_arm: tuple[int, ...]
    shoulder_height: float
    shoulder_offset: np.ndarray  # the right shoulder's position at rest in model space (m)
    walk_cycle: float  # m the walk clip carries the body in one cycle
    walk_rotations: np.ndarray  # (WALK_SAMPLES, n, 4): the walk clip sampled evenly over its duration
    walk_roots: np.ndarray  # (WALK_SAMPLES, 3): its root translations
    walk_flat: tuple  # the same rotations and roots as tuples of floats: a plain walker's pose without numpy
    idle_flat: tuple
    walk_duration: float = 0.0  # s: the walk clip's duration (``walk.duration``, read every frame)


@cache
def model_height() -> float:
    """CesiumMan's height in its own units (the top of its mesh above its feet; read once)."""
    character = load_gltf(CESIUM_MAN)
    assert character.mesh is not None  # the shipped model has its skinned mesh
    top = character.mesh.positions @ np.asarray(character.root_transform)[:3, :3].T
    return float(top[:, 1].max())


@cache
def character_rig() -> CharacterRig:
    """The packaged CesiumMan rig (loaded once)."""
    character = load_gltf(CESIUM_MAN)
    skeleton = character.skeleton
    root = np.array(character.root_transform, dtype=np.float64)
    rest = skeleton.rest
    right = tuple(skeleton.index(n) for n in RIGHT_ARM)
    left = tuple(skeleton.index(n) for n in LEFT_ARM)
    shoulder = root[:3, :3] @ skeleton.world_positions()[right[0]] + root[:3, 3]
    walk = character.clips["animation0"]
    table = walk.sample_frames(skeleton, np.linspace(0.0, walk.duration, WALK_SAMPLES), loop=True)
    walk_flat = tuple((tuple(r.ravel().tolist()), tuple(t.tolist()))
                      for r, t in zip(table.rotation, table.translation[:, 0]))
    rig = CharacterRig(skeleton, root, walk, rest.rotation.copy(), rest.translation[0].copy(), right, left,
                       float(shoulder[1]), shoulder, _walk_cycle(skeleton, root, walk), table.rotation.copy(),
                       table.translation[:, 0].copy(), walk_flat, ())
    # Idle: the rest pose with the arms let down along the sides (the model's rest holds them out).
    for chain, side in ((right, RIGHT_DOWN), (left, RIGHT_DOWN * _MIRROR)):
        _aim_arm(rig, rig.idle_rotations, chain, side, side, 1.0)
    return replace(rig, idle_flat=(tuple(rig.idle_rotations.ravel().tolist()), tuple(rig.idle_root.tolist())),
                   walk_duration=walk.duration)


def _walk_cycle(skeleton: Skeleton, root: np.ndarray, walk: Clip) -> float:
    """How far (m) the walk clip carries the body in one cycle: twice the forward sweep of a foot relative to
    the hips (one step of each foot)."""
    frames = walk.sample_frames(skeleton, np.linspace(0.0, walk.duration, 97), loop=True)
    positions = skeleton.world_positions(frames) @ root[:3, :3].T
    forward = positions[:, skeleton.index("leg_joint_L_5"), 2] - positions[:, 0, 2]
    return float(2.0 * (forward.max() - forward.min()))


def model_to_world(position: Iterable[float], yaw: float, scale: float = 1.0) -> np.ndarray:
    """The 4x4 placement of the model (see the module's Frames): scale, turn by ``yaw + 180`` degrees about Y,
    move to ``position``.

    >>> model_to_world((1.0, 2.0, 3.0), 0.0) @ np.array([0.0, 0.0, 1.0, 1.0])  # the model's forward: -Z
    array([1., 2., 2., 1.])
    """
    angle = math.radians(yaw + 180.0)
    c, s = math.cos(angle) * scale, math.sin(angle) * scale
    x, y, z = (float(v) for v in position)
    matrix = np.array([[c, 0.0, s, x], [0.0, scale, 0.0, y], [-s, 0.0, c, z], [0.0, 0.0, 0.0, 1.0]])
    return matrix


def _yaw_of(direction: _Vector) -> float:
    """The yaw (degrees, in [0, 360)) facing the horizontal ``direction`` (``view_direction``'s convention)."""
    return math.degrees(math.atan2(-float(direction[0]), -float(direction[2]))) % 360.0


def _towards(value: float, target: float, step: float) -> float:
    return min(value + step, target) if value < target else max(value - step, target)


# ------------------------------------------------------------------------------------------------ layers
# Single quaternions as 4-tuples (x, y, z, w) in plain float arithmetic: a pose turns a few joints, and numpy's
# per-call overhead on 4-element arrays would cost more than the arithmetic.
def _qmul(a: _Vector, b: _Vector) -> _Quaternion:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


def _qconj(q: _Vector) -> _Quaternion:
    return (-q[0], -q[1], -q[2], q[3])


def _qrotate(q: _Vector, v: _Vector) -> tuple[float, float, float]:
    x, y, z, w = q
    tx, ty, tz = 2.0 * (y * v[2] - z * v[1]), 2.0 * (z * v[0] - x * v[2]), 2.0 * (x * v[1] - y * v[0])
    return (v[0] + w * tx + y * tz - z * ty, v[1] + w * ty + z * tx - x * tz, v[2] + w * tz + x * ty - y * tx)


def _qbetween(u: _Vector, v: _Vector) -> _Quaternion:
    """The shortest rotation turning the direction ``u`` onto ``v`` (neither need be unit)."""
    nu, nv = math.sqrt(u[0] ** 2 + u[1] ** 2 + u[2] ** 2), math.sqrt(v[0] ** 2 + v[1] ** 2 + v[2] ** 2)
    u, v = [c / nu for c in u], [c / nv for c in v]
    d = u[0] * v[0] + u[1] * v[1] + u[2] * v[2]
    if d < -1.0 + 1e-9:  # opposite: half a turn about any axis across u
        axis = (0.0, -u[2], u[1]) if abs(u[0]) < 0.9 else (-u[1], u[0], 0.0)
        n = math.sqrt(axis[0] ** 2 + axis[1] ** 2 + axis[2] ** 2)
        return (axis[0] / n, axis[1] / n, axis[2] / n, 0.0)
    q = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0], 1.0 + d)
    n = math.sqrt(q[0] ** 2 + q[1] ** 2 + q[2] ** 2 + q[3] ** 2)
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


def _qslerp(a: _Vector, b: _Vector, t: float) -> tuple[float, ...]:
    d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
    if d < 0.0:
        b, d = (-b[0], -b[1], -b[2], -b[3]), -d
    if d > 0.9995:
        wa, wb = 1.0 - t, t
    else:
        angle = math.acos(min(d, 1.0))
        wa, wb = math.sin((1.0 - t) * angle) / math.sin(angle), math.sin(t * angle) / math.sin(angle)
    q = tuple(wa * x + wb * y for x, y in zip(a, b))
    n = math.sqrt(sum(c * c for c in q))
    return tuple(c / n for c in q)


def _nlerp_rows(a: np.ndarray, b: np.ndarray, t: float) -> np.ndarray:
    """Row-wise normalised lerp of quaternions (n, 4), ``b`` sign-matched to ``a``: the blend of two poses."""
    # np.add.reduce: np.sum's reduction without its Python wrapper (the same sums)
    b = np.where(np.add.reduce(a * b, axis=-1, keepdims=True) < 0.0, -b, b)
    q = a + (b - a) * t
    return q / np.sqrt(np.add.reduce(q * q, axis=-1, keepdims=True))


def _world_rotation(rotations: np.ndarray, parents: np.ndarray, joint: int) -> _Quaternion:
    """The joint's rotation in skeleton space: its ancestors' local rotations composed (rest scales are 1)."""
    chain = []
    while joint >= 0:
        chain.append(joint)
        joint = int(parents[joint])
    world = (0.0, 0.0, 0.0, 1.0)
    for j in reversed(chain):
        world = _qmul(world, tuple(rotations[j]))
    return world


def aim_arm(rotations: np.ndarray, chain: Sequence[int], upper: ArrayLike, fore: ArrayLike, weight: float
            ) -> None:
    """Turn an arm ``chain`` (shoulder, elbow, wrist joint indices) of the rig so that its upper arm points
    along ``upper`` and its forearm along ``fore`` (model-space directions), each joint by the shortest
    rotation, blended by ``weight`` (0..1); ``rotations`` (n, 4) is changed in place."""
    _aim_arm(character_rig(), rotations, chain, upper, fore, weight)


def _aim_arm(rig: CharacterRig, rotations: np.ndarray, chain: Sequence[int], upper: ArrayLike, fore: ArrayLike,
             weight: float) -> None:
    if weight <= 0.0:
        return
    parents, rest = rig.skeleton.parents, rig.skeleton.rest.translation
    to_skeleton = rig.root_transform[:3, :3].T
    shoulder = chain[0]
    parent_world = _world_rotation(rotations, parents, int(parents[shoulder]))
    for joint, child, direction in ((chain[0], chain[1], upper), (chain[1], chain[2], fore)):
        joint_world = _qmul(parent_world, tuple(rotations[joint]))
        bone = _qrotate(joint_world, rest[child])
        turned = _qmul(_qbetween(bone, to_skeleton @ np.asarray(direction, dtype=np.float64)), joint_world)
        local = _qslerp(tuple(rotations[joint]), _qmul(_qconj(parent_world), turned), float(weight))
        rotations[joint] = local
        parent_world = _qmul(parent_world, local)


FORWARD, UP, RIGHT = np.array([0.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0]), np.array([-1.0, 0.0, 0.0])


_MIRROR = np.array([-1.0, 1.0, 1.0])  # the right arm's direction mirrored for the left arm
RIGHT_DOWN = 0.2 * RIGHT - UP  # idle: the right arm hangs down, a little away from the body
_AIR_UPPER, _AIR_FORE = RIGHT + 0.8 * UP, RIGHT + 1.2 * UP  # in the air: arms up sideways
_AHEAD = FORWARD - 0.15 * UP  # suck: both arms forward, a little down
_SUCK_UPPER = _AHEAD + 0.15 * RIGHT


def _action_weight(action: str, time: float) -> float:
    """A pressed action's layer weight ``time`` s after the press: up in 0.07 s, held, eased out at the end."""
    length = ACTION_SECONDS.get(action, 0.0)
    if not action or time >= length:
        return 0.0
    return min(time / 0.07, 1.0, (length - time) / 0.12)


def _layers(rotations: np.ndarray, state: Mapping[str, Any]) -> None:
    """The player's authored layers over its walk/idle rotations (in place)."""
    rig = character_rig()
    air, suck = state["air_weight"], state["suck_weight"]
    if air > 0.0:
        aim_arm(rotations, rig.right_arm, _AIR_UPPER, _AIR_FORE, air)
        aim_arm(rotations, rig.left_arm, _AIR_UPPER * _MIRROR, _AIR_FORE * _MIRROR, air)
    if suck > 0.0:
        aim_arm(rotations, rig.right_arm, _SUCK_UPPER, _AHEAD, suck)
        aim_arm(rotations, rig.left_arm, _SUCK_UPPER * _MIRROR, _AHEAD, suck)
    if state["strike"] is not None:  # the punch or pull-out's own motion (game.strike) over the arm and torso
        joints, strike, weight = state["strike"]
        if weight > 0.0:
            rotations[joints] = _nlerp_rows(rotations[joints], strike, weight)
    action, time = state["action"], state["action_time"]
    weight = _action_weight(action, time)
    if weight <= 0.0:
        return
    if action == "throw":
        swing = min(time / ACTION_SECONDS["throw"], 1.0)  # the hand goes from up behind to forward
        angle = math.radians(120.0 - 130.0 * swing)  # elevation over the forward direction, degrees
        direction = math.cos(angle) * FORWARD + math.sin(angle) * UP + 0.2 * RIGHT
        aim_arm(rotations, rig.right_arm, direction, direction, weight)


# ------------------------------------------------------------------------------------------------ actors
_NO_LAYERS: dict[str, Any] = {"action": "", "action_time": 0.0, "strike": None, "tool": (None, None),
                              "suck_weight": 0.0, "air_weight": 0.0}


def _walker(name: str, kind: str, position: _Vector, yaw: float | None, previous: CharacterPose | None, dt: float,
            layers: Mapping[str, Any] | None = None) -> CharacterPose:
    """A walker's pose: walk phase advanced by the distance travelled since ``previous``, eased between idle
    and walk; ``yaw`` None faces where it went (or keeps its last yaw)."""
    rig = character_rig()
    x, y, z = float(position[0]), float(position[1]), float(position[2])
    position = (x, y, z)
    phase, weight, last_yaw = 0.0, 0.0, 0.0 if yaw is None else yaw
    moved_x = moved_z = 0.0
    if previous is not None:
        phase, weight, last_yaw = previous.walk_phase, previous.walk_weight, previous.yaw
        before = previous.position
        moved_x, moved_z = x - before[0], z - before[2]
    distance = math.hypot(moved_x, moved_z)
    if distance > TELEPORT:
        distance = 0.0
    airborne = layers is not None and layers["air_weight"] > 0.5
    walking = dt > 0 and distance / dt >= WALKING_SPEED and not airborne
    if yaw is None:
        yaw = math.degrees(math.atan2(-moved_x, -moved_z)) % 360.0 if distance > 1e-6 else last_yaw  # _yaw_of
    duration = rig.walk_duration
    if not airborne:
        phase = (phase + distance / rig.walk_cycle * duration) % duration
    weight = _towards(weight, 1.0 if walking else 0.0, dt / BLEND_SECONDS)
    layers = layers or _NO_LAYERS
    sample = min(int(phase / duration * (WALK_SAMPLES - 1) + 0.5), WALK_SAMPLES - 1)  # the nearest sample
    layered = layers["action"] or layers["strike"] is not None or layers["suck_weight"] > 0 or layers["air_weight"] > 0
    state = (phase, weight, layers["action"], layers["action_time"], layers["suck_weight"], layers["air_weight"],
             *layers["tool"])  # the blade and what it touches (the player's shovel), or None, None
    if not layered and (weight == 0.0 or weight == 1.0):  # a plain walker or stander: the rig's tuples as they are
        rotations, root = rig.walk_flat[sample] if weight == 1.0 else rig.idle_flat
        return CharacterPose._made(name, kind, position, float(yaw), 1.0, rotations, root, *state)
    rotations, root = rig.walk_rotations[sample], rig.walk_roots[sample]
    if weight < 1.0:
        rotations = _nlerp_rows(rig.idle_rotations, rotations, weight)
        root = rig.idle_root + (root - rig.idle_root) * weight
    rotations = rotations.copy()
    if layered:
        _layers(rotations, layers)
    return CharacterPose._made(name, kind, position, float(yaw), 1.0, tuple(rotations.ravel().tolist()),
                               tuple(root.tolist()), *state)


def _player_layers(world: World, actions: PlayerActions, events: Iterable[Event], previous: CharacterPose | None
                   ) -> dict[str, Any]:
    """The layer clocks this frame of the player whose ``actions`` these are: an action it pressed this frame (its
    own events') starts its layer; suck held and being in the air ease their layers in and out."""
    dt, player = world.dt, actions.player
    action, time = ("", 0.0) if previous is None else (previous.action, previous.action_time + dt)
    for event in events:
        if isinstance(event, ActionStarted) and event.action == "throw" and event.player == player.name:
            action, time = "throw", 0.0
    if time >= ACTION_SECONDS.get(action, 0.0):
        action, time = "", 0.0
    suck = 0.0 if previous is None else previous.suck_weight
    air = 0.0 if previous is None else previous.air_weight
    sucking = world.inputs_of(player)[0].suck
    return {"action": action, "action_time": time, "strike": actions.strike.layer() or actions.shovel.layer(),
            "tool": actions.shovel.blade(), "suck_weight": _towards(suck, 1.0 if sucking else 0.0, dt / BLEND_SECONDS),
            "air_weight": _towards(air, 0.0 if player.grounded else 1.0, dt / BLEND_SECONDS)}


def _npc_layers(jumping: bool, previous: CharacterPose | None, dt: float) -> dict[str, Any] | None:
    """An NPC's layers: the jump (its arms up sideways, the player's in-air layer, eased in and out) while it
    crosses an off-mesh link (jumps down a ledge); None when it walks with no jump to ease out of."""
    air = _towards(0.0 if previous is None else previous.air_weight, 1.0 if jumping else 0.0, dt / BLEND_SECONDS)
    return {**_NO_LAYERS, "air_weight": air} if air > 0.0 else None


def enemy_pose(enemy: ChainsawEnemy) -> CharacterPose:
    """A chainsaw enemy's pose: its motion's whole pose (it plays on CesiumMan's own skeleton), every joint's
    local rotation and the root's translation, placed where the enemy stands (see the module)."""
    motion = enemy.motion
    pose = motion.pose
    start, end = motion.part_segment.tolist()  # plain floats, as float() of each element
    contact = motion.contact.material if motion.contact is not None else None
    return CharacterPose._made(enemy.name, "enemy", tuple(enemy.position.tolist()), _yaw_of(enemy.facing),
                               float(enemy.scale), tuple(pose.rotation.ravel().tolist()),
                               tuple(pose.translation[0].tolist()), 0.0, 0.0, "", 0.0, 0.0, 0.0,
                               (tuple(start), tuple(end)), contact)


def pose_characters(world: World, previous: Iterable[CharacterPose] = (), events: Iterable[Event] = ()
                    ) -> tuple[CharacterPose, ...]:
    """Every actor of ``world`` posed for its last frame: its players (kind "player", named as in
    ``World.players``: the world's own first, then the seats in joining order), its NPCs, its enemies (in that
    order), from ``previous`` (the last frame's poses, by kind and name) and ``events`` (the frame's events: each
    player's ActionStarted start its layers)."""
    before = {(p.kind, p.name): p for p in previous}
    dt, events = world.dt, tuple(events)
    poses = [_walker(actions.player.name, "player", actions.player.position, actions.player.yaw,
                     before.get(("player", actions.player.name)), dt,
                     _player_layers(world, actions, events, before.get(("player", actions.player.name))))
             for actions in every_actions(world)]
    poses += [_walker(npc.name, "npc", position, None, before.get(("npc", npc.name)), dt,
                      _npc_layers(npc.jump[0] >= 0, before.get(("npc", npc.name)), dt))
              for npc, position in zip(world.agents.npcs, world.agents.npc_positions())]
    poses += [enemy_pose(enemy) for enemy in world.agents.enemies]
    return tuple(poses)
