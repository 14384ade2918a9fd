"""What moves, on the wire (play protocol 3): every actor's pose as a binary message (kind 5), the frame and
HUD JSON as deltas, and the player's progress (shop and goals) as the HUD carries it.

- **Poses** (:func:`encode_poses`): each actor's name, kind, feet, yaw, scale, root translation, blade and what it
  cuts, and its joints' local rotations, each packed into 32 bits ("smallest three": the largest component
  dropped, the other three in 10 bits each: within about 0.25 degree). A message against a *base* frame the page was
  sent carries only the joints whose packed rotation changed (a bit mask per actor).
- **Progress** (:func:`progress_fields`): the shop's upgrades with their levels and prices, and the world's
  goals with what the player reached.
- **Deltas** (:func:`delta`): a ``frame`` or ``hud`` message against its base holds only the top-level fields that
  changed (the frame's ``player`` and the HUD's ``aim``, only their own fields that changed); the page merges it
  into what it has (:func:`merged`).
- **Cut marks** (:func:`cuts_field`, :func:`cuts_delta`): the frame's ``cuts`` (the enemies' kerf, which the page
  draws darker) whole in a whole frame, and in a delta only when marks were added: those marks alone.

Examples
--------
>>> import numpy as np
>>> q = np.array([[0.0, 0.0, 0.0, 1.0], [0.5, -0.5, 0.5, 0.5]], np.float32)
>>> bool(np.abs(unpack_rotations(pack_rotations(q)) - q).max() < 2e-3)
True
>>> delta({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 3], "c": None})
{'b': [1, 3], 'c': None}
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..game.events import GoalReached, UpgradeBought
from ..game.progress import UPGRADES, price

if TYPE_CHECKING:
    from ..game.player import Player
    from ..game.world import World

__all__ = ["progress_fields", "progress_event", "KIND_POSES", "POSES_HEADER", "NO_BASE", "ACTOR_KINDS", "ActorPose",
           "actor_poses", "pack_rotations", "unpack_rotations", "encode_poses", "decode_poses", "delta", "merged",
           "NESTED", "PoseError", "cuts_field", "cuts_delta", "objects_delta", "COARSE", "UNSENT", "encode_actor",
           "poses_header"]

KIND_POSES = 5  # the first byte of the binary poses message
POSES_VERSION = 3
POSES_HEADER = struct.Struct("<BBHIIHH")  # kind, version, actors A, frame, base frame, joints J, 0: 16 bytes
ACTOR_HEAD = struct.Struct("<BBffffffff")  # contact id, flags, position x, y, z, yaw, scale, root x, y, z
BLADE = struct.Struct("<6f")
NO_BASE = 0xFFFFFFFF  # base frame of a whole message
ACTOR_KINDS = ("player", "npc", "enemy")  # the kind byte's values 0, 1, 2
HAS_BLADE = 1
COARSE = 2  # an actor's flag: far away, only some joints sent; those left out stay as the page has them (or rest)
UNSENT = 0xFFFFFFFF  # a joint's rotation a page was never sent (decoded coarse poses; never a packed rotation)
_HALF = 1.0 / math.sqrt(2.0)  # the three smaller components of a unit quaternion lie in [-_HALF, _HALF]
_KEPT = np.array([[c for c in range(4) if c != i] for i in range(4)])  # the components kept when i is dropped


class PoseError(ValueError):
    """Bytes that are not a poses message this page reads (too short, wrong kind or version, a delta for
    another base)."""


@dataclass(frozen=True)
class ActorPose:
    """An actor's pose for the wire: ``name``, ``kind`` (one of :data:`ACTOR_KINDS`), ``position`` (feet, m),
    ``yaw`` (degrees), ``scale``, ``root`` (the root joint's translation), ``rotations`` (J,) uint32 packed
    (:func:`pack_rotations`), ``blade`` (two points, m) or None, ``contact`` (material id cut, 0: none)."""

    name: str
    kind: str
    position: tuple
    yaw: float
    scale: float
    root: tuple
    rotations: np.ndarray
    blade: tuple | None = None
    contact: int = 0


def pack_rotations(quaternions: np.ndarray) -> np.ndarray:
    """Unit quaternions (J, 4) x, y, z, w as uint32 (J,): bits 30-31 the index of the largest component (dropped,
    made positive by negating the quaternion), then the other three in order, 10 bits each,
    ``round(c / sqrt(1/2) * 511) + 511`` (0 .. 1022; 0 is 511 exactly). Decoded, a rotation is off by at most
    about 0.25 degree."""
    q = np.asarray(quaternions, dtype=np.float64).reshape(-1, 4)
    q = q / np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
    largest = np.argmax(np.abs(q), axis=1)
    q = q * np.where(q[np.arange(len(q)), largest] < 0, -1.0, 1.0)[:, None]
    others = np.take_along_axis(q, _KEPT[largest], axis=1)
    words = (np.round(np.clip(others / _HALF, -1, 1) * 511) + 511).astype(np.uint32)
    return (largest.astype(np.uint32) << 30) | (words[:, 0] << 20) | (words[:, 1] << 10) | words[:, 2]


def unpack_rotations(packed: np.ndarray) -> np.ndarray:
    """:func:`pack_rotations`'s words back to unit quaternions (J, 4) float32, as the page decodes them."""
    packed = np.asarray(packed, dtype=np.uint32)
    largest = (packed >> 30).astype(np.int64)
    words = np.stack([(packed >> 20) & 1023, (packed >> 10) & 1023, packed & 1023], axis=1).astype(np.float64)
    others = (words - 511) / 511 * _HALF
    rest = np.sqrt(np.maximum(0.0, 1.0 - (others ** 2).sum(axis=1)))
    q = np.empty((len(packed), 4))
    np.put_along_axis(q, _KEPT[largest], others, axis=1)
    q[np.arange(len(q)), largest] = rest
    return q.astype(np.float32)


def actor_poses(world: World) -> list[ActorPose]:
    """Every actor's pose of the world's last frame (the player, the NPCs, the enemies), packed for the wire."""
    ids = {m.name: m.id for m in world.materials}
    characters = world.snapshot().characters
    if not characters:
        return []
    rotations = [pose.local_rotations() for pose in characters]
    packed = np.split(pack_rotations(np.concatenate(rotations)), np.cumsum([len(r) for r in rotations])[:-1])
    poses = []
    for pose, words in zip(characters, packed):
        blade = None if pose.blade is None else tuple(tuple(float(c) for c in point) for point in pose.blade)
        poses.append(ActorPose(pose.name, pose.kind, tuple(float(c) for c in pose.position), float(pose.yaw),
                               float(pose.scale), tuple(float(c) for c in pose.root), words, blade,
                               ids.get(pose.contact, 0) if pose.contact is not None else 0))
    return poses


def poses_header(frame: int, actors: int, joints: int, base_frame: int | None = None) -> bytes:
    """The poses message's 16-byte header (:func:`encode_poses`) of ``frame`` with ``actors`` actors of ``joints``
    joints, against ``base_frame`` (None: a whole message)."""
    return POSES_HEADER.pack(KIND_POSES, POSES_VERSION, actors, int(frame) & 0xFFFFFFFF,
                             NO_BASE if base_frame is None else int(base_frame) & 0xFFFFFFFF, joints, 0)


def encode_actor(pose: ActorPose, rotations: np.ndarray, sent: np.ndarray, coarse: bool = False) -> bytes:
    """One actor's part of the poses message (:func:`encode_poses`): its head, the joint mask ``sent`` (J,) bool and
    the ``rotations`` (J,) packed of the joints it sets; ``coarse``: flagged :data:`COARSE` (the page keeps the
    joints left out as it has them, or the rest pose)."""
    name = pose.name.encode("utf-8")[:255]
    flags = (HAS_BLADE if pose.blade else 0) | (COARSE if coarse else 0)
    parts = [bytes((ACTOR_KINDS.index(pose.kind), len(name))), name,
             ACTOR_HEAD.pack(pose.contact, flags, *pose.position, pose.yaw, pose.scale, *pose.root),
             np.packbits(sent, bitorder="little").tobytes(), rotations[sent].astype("<u4").tobytes()]
    if pose.blade:
        parts.append(BLADE.pack(*pose.blade[0], *pose.blade[1]))
    return b"".join(parts)


def encode_poses(frame: int, poses: list[ActorPose], base: list[ActorPose] | None = None,
                 base_frame: int = NO_BASE) -> bytes:
    """The poses message (kind 5) of ``frame``: the 16-byte header (u8 kind = 5, u8 version = 3, u16 actors A,
    u32 frame, u32 base frame (0xFFFFFFFF: none), u16 joints J, u16 0), then per actor: u8 kind (0 player, 1 npc,
    2 enemy), u8 name length L, the name (UTF-8, L bytes), u8 contact (material id, 0: none), u8 flags (1: a
    blade follows; 2: coarse, :data:`COARSE`), f32 position x, y, z (m), f32 yaw (degrees), f32 scale, f32 root x,
    y, z, u8[ceil(J / 8)] joint mask (bit j % 8 of byte j // 8: joint j's rotation follows), u32 per joint in the
    mask (packed, :func:`pack_rotations`), f32[6] the blade's two points when flag 1. Against ``base`` (the poses of
    ``base_frame``, which the page has), a joint whose packed rotation did not change is left out of the mask;
    an actor the base does not have gets every joint. (Each page's own message, with the far actors coarse:
    :class:`~voxelworld.viewer.pose_views.ViewPoses`.)"""
    joints = len(poses[0].rotations) if poses else 0
    before = {} if base is None else {(pose.kind, pose.name): pose.rotations for pose in base}
    parts = [poses_header(frame, len(poses), joints, None if base is None else base_frame)]
    for pose in poses:
        old = before.get((pose.kind, pose.name))
        sent = np.ones(joints, bool) if old is None or len(old) != joints else old != pose.rotations
        parts.append(encode_actor(pose, pose.rotations, sent))
    return b"".join(parts)


def decode_poses(data: bytes | bytearray | memoryview,
                 base: list[ActorPose] | None = None) -> tuple[int, int, list[ActorPose]]:
    """(frame, base frame, poses) from :func:`encode_poses`'s bytes; a delta is completed from ``base`` (the
    poses of its base frame), as a page completes it; a coarse actor's joints neither sent nor in ``base`` are
    :data:`UNSENT` (the page leaves them in the rest pose)."""
    if not isinstance(data, (bytes, bytearray, memoryview)) or len(data) < POSES_HEADER.size:
        raise PoseError(f"binary message too short for its {POSES_HEADER.size}-byte header")
    kind, version, count, frame, base_frame, joints, _ = POSES_HEADER.unpack_from(data)
    if kind != KIND_POSES or version != POSES_VERSION:
        raise PoseError(f"binary message of kind {kind} version {version}, expected kind {KIND_POSES} "
                        f"version {POSES_VERSION}")
    before = {(pose.kind, pose.name): pose for pose in base or []}
    offset, poses = POSES_HEADER.size, []
    mask_bytes = (joints + 7) // 8
    try:
        for _ in range(count):
            kind_byte, length = data[offset], data[offset + 1]
            name = bytes(data[offset + 2:offset + 2 + length]).decode("utf-8")
            offset += 2 + length
            contact, flags, *numbers = ACTOR_HEAD.unpack_from(data, offset)
            offset += ACTOR_HEAD.size
            sent = np.unpackbits(np.frombuffer(data, np.uint8, mask_bytes, offset), bitorder="little")[:joints]
            offset += mask_bytes
            words = np.frombuffer(data, "<u4", int(sent.sum()), offset)
            offset += 4 * len(words)
            if sent.all():
                rotations = words.astype(np.uint32)
            elif (ACTOR_KINDS[kind_byte], name) in before or flags & COARSE:
                old = before.get((ACTOR_KINDS[kind_byte], name))
                rotations = np.full(joints, UNSENT, np.uint32) if old is None else old.rotations.copy()
                rotations[sent.astype(bool)] = words
            else:
                raise PoseError(f"a delta of the poses for actor {name!r}, which the base frame does not have")
            blade = None
            if flags & HAS_BLADE:
                points = BLADE.unpack_from(data, offset)
                offset += BLADE.size
                blade = (tuple(points[:3]), tuple(points[3:]))
            poses.append(ActorPose(name, ACTOR_KINDS[kind_byte], tuple(numbers[:3]), numbers[3], numbers[4],
                                   tuple(numbers[5:8]), rotations, blade, contact))
    except (IndexError, struct.error, ValueError) as error:
        if isinstance(error, PoseError):
            raise
        raise PoseError(f"binary poses message cut short or malformed: {error}") from None
    if offset != len(data):
        raise PoseError(f"binary message has {len(data) - offset} bytes after its actors")
    return frame, base_frame, poses


def progress_fields(world: World, player: Player | None = None) -> dict[str, Any]:
    """The progress of ``player`` (the world's own by default) as the HUD message carries it: ``shop``, each upgrade of
    :data:`~voxelworld.game.progress.UPGRADES` in order (``name``, ``title``, ``text``, ``level`` bought,
    ``max_level``, ``cost`` of the next level or None at the last, ``affordable``), and ``goals``, each of the
    world's goals (``name``, ``text``, ``done``).

    >>> from voxelworld.game.world import World
    >>> fields = progress_fields(World.demo(seed=0, npcs=0))
    >>> fields["shop"][0]["name"], fields["shop"][0]["cost"], fields["goals"][1]
    ('punch_damage', 2.0, {'name': 'reach_iron', 'text': 'reach the iron', 'done': False})
    """
    player = world.player if player is None else player
    progress, currency = player.progress, player.currency
    shop = []
    for upgrade in UPGRADES:
        cost = price(upgrade.name, progress)
        shop.append({"name": upgrade.name, "title": upgrade.title, "text": upgrade.text,
                     "level": progress.level(upgrade.name), "max_level": upgrade.max_level, "cost": cost,
                     "affordable": cost is not None and currency >= cost})
    reached = set(progress.goals)
    goals = [{"name": g.name, "text": g.text, "done": g.name in reached} for g in world.settings.goals]
    return {"shop": shop, "goals": goals}


def progress_event(event: UpgradeBought | GoalReached) -> dict[str, Any]:
    """A purchase (``bought``) or a goal reached (``goal``) as the frame's events carry it."""
    if isinstance(event, UpgradeBought):
        return {"event": "bought", "upgrade": event.upgrade, "level": event.level, "cost": round(event.cost, 4),
                "currency": round(event.currency, 2)}
    return {"event": "goal", "goal": event.goal, "text": event.text, "reached": event.reached, "goals": event.goals}


NESTED = ("player", "aim")  # fields (objects of fixed keys) a delta carries as a delta of their own


def delta(before: dict[str, Any], now: dict[str, Any]) -> dict[str, Any]:
    """The top-level fields of ``now`` that are not in ``before`` or differ from it (a field ``before`` has and
    ``now`` does not is not told: the messages that use deltas always carry the same fields). A field of
    :data:`NESTED` (the frame's ``player``, the HUD's ``aim``: objects whose keys never change) that is an object
    in both carries only its own fields that changed (play protocol 6); the page merges them into its own."""
    found = {}
    for name, value in now.items():
        old = before.get(name, _MISSING)
        if old == value:
            continue
        if name in NESTED and isinstance(old, dict) and isinstance(value, dict):
            value = {key: part for key, part in value.items() if key not in old or old[key] != part}
        found[name] = value
    return found


_MISSING = object()


def merged(state: dict[str, Any] | None, message: dict[str, Any]) -> dict[str, Any]:
    """A page's view after ``message``: a delta (``base`` not None) laid over ``state``, a whole one as it is; a
    delta's :data:`NESTED` objects are laid over the state's, its ``objects``, ``moved`` and ``objects_gone``
    (:func:`objects_delta`) change the objects of those names only."""
    if message.get("base") is None or state is None:
        return dict(message)
    view = {**state, **message}
    for name in NESTED:
        if isinstance(message.get(name), dict) and isinstance(state.get(name), dict):
            view[name] = {**state[name], **message[name]}
    if "objects_gone" in message:
        objects = {o["name"]: o for o in state.get("objects", [])}
        for name in message["objects_gone"]:
            objects.pop(name, None)
        for name, *position in message["moved"]:
            objects[name] = objects[name] | {"position": position}
        objects.update((o["name"], o) for o in message["objects"])
        view["objects"] = list(objects.values())
        del view["objects_gone"], view["moved"]
    return view


def objects_delta(before: list[dict[str, Any]], now: list[dict[str, Any]]) -> dict[str, Any] | None:
    """What a frame's delta carries of its ``objects`` for a page that has ``before``: None when none changed,
    else ``moved`` (``[name, x, y, z]`` of each object that only moved: a flying fragment, most of them), ``objects``
    (those new or otherwise changed, whole) and ``objects_gone`` (the names of those gone). A resting fragment is
    sent once, not every frame that another one moves.

    >>> a, b = {"name": "a", "position": [0, 0, 0]}, {"name": "b", "position": [1, 0, 0]}
    >>> objects_delta([a, b], [a, b]) is None
    True
    >>> objects_delta([a, b], [{"name": "a", "position": [0, -1, 0]}, {"name": "c", "position": [2, 0, 0]}])
    {'objects': [{'name': 'c', 'position': [2, 0, 0]}], 'moved': [['a', 0, -1, 0]], 'objects_gone': ['b']}
    """
    if before == now:
        return None
    old = {o["name"]: o for o in before}
    names = {o["name"] for o in now}
    changed, moved = [], []
    for o in now:
        was = old.get(o["name"])
        if was == o:
            continue
        if was is not None and was.keys() == o.keys() and all(was[k] == v for k, v in o.items() if k != "position"):
            moved.append([o["name"], *o["position"]])
        else:
            changed.append(o)
    return {"objects": changed, "moved": moved, "objects_gone": [name for name in old if name not in names]}


def cuts_field(world: World) -> dict[str, Any]:
    """A whole frame's ``cuts``: ``total`` marks added since the world began, ``keep`` (how many the page keeps,
    the last ones) and ``marks``, the kept ones, oldest first (:meth:`~voxelworld.game.kerf_marks.CutMarks.wire`:
    ``[ax, ay, az, bx, by, bz, radius]`` m each)."""
    marks = world.cut_marks
    return {"total": marks.total, "keep": marks.capacity, "marks": marks.wire()}


def cuts_delta(before: dict[str, Any], now: dict[str, Any]) -> dict[str, Any] | None:
    """What a delta of the frame carries of ``now`` (a :func:`cuts_field`) for a page that has ``before``: None
    when no mark was added, else ``now`` with only the marks added since (all of them when more were added than
    are kept). The page appends a delta's marks to its own and keeps the last ``keep``.

    >>> before = {"total": 2, "keep": 3, "marks": [[0] * 7, [1] * 7]}
    >>> cuts_delta(before, before) is None
    True
    >>> cuts_delta(before, {"total": 3, "keep": 3, "marks": [[0] * 7, [1] * 7, [2] * 7]})["marks"]
    [[2, 2, 2, 2, 2, 2, 2]]
    """
    added = now["total"] - before["total"]
    if added == 0:
        return None
    return now if added < 0 or added >= len(now["marks"]) else now | {"marks": now["marks"][-added:]}
