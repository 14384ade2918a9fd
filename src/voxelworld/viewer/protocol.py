"""The play protocol: the messages between the ``voxelworld play`` server and the pages that watch it.

The full description is ``docs/specs/play-protocol.md``; in short:

- **page → server**: JSON text, one object per message, at most :data:`MAX_MESSAGE_BYTES` bytes and
  :data:`MAX_MESSAGES_PER_SECOND` a second per connection: ``input`` (stick, view, held buttons), ``control``
  and ``release`` (who plays), ``save``, ``overlays`` (navmesh / collision mesh on or off) and ``ping``.
  :func:`parse_client_message` checks every field and raises :class:`ProtocolError` naming what is wrong.
- **server → page**: JSON text (``hello``, ``frame``, ``events``, ``hud``, ``control``, ``saved``, ``pong``,
  ``error``) and binary messages, little-endian, each starting with a kind byte and the version byte (3): a
  chunk's whole display mesh, quantised (:func:`encode_chunk_mesh`, an empty one removes the chunk), a patch of
  it against the mesh the page has (:func:`encode_chunk_patch`), every actor's pose (:func:`encode_poses`), the
  navmesh (:func:`encode_navmesh`) and the collision mesh (:func:`encode_collision_mesh`). The ``decode_*``
  functions read them back (tests, tools). ``frame`` and ``hud`` may be deltas against a base the page has
  (:func:`~voxelworld.viewer.frame_messages.delta`): only the fields that changed.

:func:`hello_message` builds the first JSON message from a :class:`~voxelworld.game.world.World`; each player's
``frame`` and ``hud`` are :mod:`voxelworld.viewer.player_messages`'.

Examples
--------
>>> message = parse_client_message('{"type": "input", "move": [0, 1], "look": [270, -10], "held": ["suck"]}')
>>> message.move, message.look, sorted(message.held)
((0.0, 1.0), (270.0, -10.0), ['suck'])
>>> parse_client_message('{"type": "input", "move": [0, NaN]}')
Traceback (most recent call last):
...
voxelworld.viewer.protocol.ProtocolError: NaN is not allowed (numbers must be finite)
>>> import numpy as np
>>> from voxelworld.meshing import DisplayMesh
>>> triangle = DisplayMesh(np.eye(3, dtype=np.float32), np.tile(np.float32([0, 1, 0]), (3, 1)),
...                        np.array([[0, 1, 2]], np.uint32), np.full(3, 4, np.uint8), np.zeros(3, np.uint8),
...                        np.zeros(3, np.float32))
>>> data = encode_chunk_mesh((1, 0, 2), wire_mesh(triangle), revision=7)
>>> len(data), data[0] == KIND_CHUNK
(96, True)
>>> chunk, revision, mesh = decode_chunk_mesh(data)
>>> chunk, revision, mesh.triangle_count, mesh.display_mesh().mat_a.tolist()
((1, 0, 2), 7, 1, [4, 4, 4])
"""

from __future__ import annotations

import json
import math
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, SupportsFloat, TypeAlias

import numpy as np
from numpy.typing import ArrayLike

from ..errors import VoxelworldError
from ..game.poses import character_rig
from ..game.progress import UPGRADE_NAMES
from ..game.seats import MAX_NAME
from ..meshing import DisplayMesh
from . import chunk_messages, frame_messages
from .chunk_messages import (
    CHUNK_HEADER,
    KIND_CHUNK,
    KIND_CHUNK_PATCH,
    MESH_VERSION,
    PATCH_HEADER,
    WireMesh,
    chunk_step,
    encode_chunk_mesh,
    encode_chunk_patch,
    occlusion_bytes,
    wire_mesh,
)
from .frame_messages import KIND_POSES, POSES_HEADER, ActorPose, actor_poses, encode_poses

if TYPE_CHECKING:
    from ..game.player import PlayerSettings
    from ..game.world import World
    from ..navigation import NavMesh
    from ..terrain import Volume

__all__ = ["PROTOCOL_VERSION", "CHARACTER_URL", "MAX_MESSAGE_BYTES", "MAX_MESSAGES_PER_SECOND",
           "MAX_FRAME_EVENTS", "BUTTONS", "CLIENT_TYPES", "KIND_CHUNK", "KIND_NAVMESH", "KIND_COLLISION",
           "KIND_CHUNK_PATCH", "KIND_POSES", "MESH_VERSION", "CHUNK_HEADER", "PATCH_HEADER", "POSES_HEADER",
           "WireMesh", "wire_mesh", "chunk_step", "chunk_origin", "chunk_wire_mesh", "occlusion_bytes",
           "encode_chunk_patch", "decode_chunk_patch", "actor_poses", "encode_poses", "decode_poses",
           "YAW_LIMIT", "MAX_INPUT_SEQ", "ProtocolError", "InputMessage", "ControlMessage", "SaveMessage",
           "OverlaysMessage",
           "PingMessage", "parse_client_message", "RateLimiter", "movement_fields",
           "encode_chunk_mesh", "decode_chunk_mesh", "encode_navmesh", "decode_navmesh", "navmesh_triangles",
           "encode_collision_mesh", "decode_collision_mesh", "error_message", "hello_message", "dumps"]

PROTOCOL_VERSION = 6  # hello's "protocol"; every binary message's version byte is MESH_VERSION (3, as in 3)
CHARACTER_URL = "/character.glb"  # where a page loads the character (CesiumMan) it draws every actor with
MAX_MESSAGE_BYTES = 64 * 1024  # a page's message, UTF-8 bytes
MAX_MESSAGES_PER_SECOND = 120  # per connection (a token bucket as deep as one second of messages)
BUTTONS = ("jump", "sprint", "punch", "pull_out", "suck", "stance", "throw", "use", "dig")  # a page's held buttons
CLIENT_TYPES = ("input", "control", "release", "save", "overlays", "ping")
YAW_LIMIT = 1.0e6  # degrees: |yaw| a page may send (any finite value would do; this keeps floats exact enough)
PITCH_LIMIT = 89.0  # degrees, as Inputs takes it
MAX_PING_ID = 2**31 - 1
MAX_INPUT_SEQ = 2**31 - 1  # an input's seq (the page's count of its inputs; a frame acknowledges the newest applied)
MAX_FRAME_EVENTS = 64  # events a frame message carries at most (the rest are dropped and counted)

KIND_NAVMESH, KIND_COLLISION = 2, 3  # the first byte of a binary message (1, 4: chunk_messages; 5: poses)
TRIANGLES_HEADER = struct.Struct("<BBHIII")  # kind, version, 0, revision, vertices n, triangles m: 16 bytes


class ProtocolError(VoxelworldError):
    """A page's message breaks the protocol; the message says what is wrong (it is sent back as the error)."""


# --------------------------------------------------------------------------------------- page -> server
@dataclass(frozen=True)
class InputMessage:
    """``input``: the stick ``move`` (right, forward) in [-1, 1], the absolute view ``look`` (yaw, pitch in
    degrees) or None to keep the view, the buttons ``held`` now (names of :data:`BUTTONS`), and ``buy``: a tool
    upgrade to buy (a name of :data:`~voxelworld.game.progress.UPGRADE_NAMES`) or None; ``seq``: the page's number
    for this input (a whole number in [0, :data:`MAX_INPUT_SEQ`]) or None, which the frames of its player then
    acknowledge (``frame.input_seq``: the page predicts its player's movement and reconciles with them)."""

    move: tuple[float, float] = (0.0, 0.0)
    look: tuple[float, float] | None = None
    held: frozenset = frozenset()
    buy: str | None = None
    seq: int | None = None


@dataclass(frozen=True)
class ControlMessage:
    """``control`` (``take`` True: this page asks for a player of its own, named ``name`` when given) or
    ``release`` (``take`` False: it gives its player up and watches)."""

    take: bool
    name: str | None = None


@dataclass(frozen=True)
class SaveMessage:
    """``save``: write the world to the server's save file."""


@dataclass(frozen=True)
class OverlaysMessage:
    """``overlays``: turn the navmesh and collision-mesh streams on or off (None: leave as it is)."""

    navmesh: bool | None = None
    collision: bool | None = None


@dataclass(frozen=True)
class PingMessage:
    """``ping``: answered by ``pong`` with the same ``id`` (a whole number in 0 .. 2**31 - 1)."""

    id: int = 0


ClientMessage: TypeAlias = InputMessage | ControlMessage | SaveMessage | OverlaysMessage | PingMessage

_FIELDS = {"input": ("move", "look", "held", "buy", "seq"), "control": ("name",), "release": (), "save": (),
           "overlays": ("navmesh", "collision"), "ping": ("id",)}


def _shown(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, float) or math.isfinite(value) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _bad(where: str, value: object, legal: str) -> ProtocolError:
    return ProtocolError(f"{where} = {_shown(value)} is out of range: must be {legal}")


def _number(where: str, value: object, low: float, high: float) -> float:
    legal = f"a number in [{low:g}, {high:g}]"
    if type(value) is not int and type(value) is not float:  # bool is an int to Python, not to us
        raise _bad(where, value, legal)
    try:
        number = float(value)
    except OverflowError:  # an integer of 309 digits or more: past every float, so past every range
        raise _bad(where, value, legal) from None
    if not math.isfinite(number) or not low <= number <= high:
        raise _bad(where, value, legal)
    return number


def _pair(where: str, value: object, first: tuple[float, float], second: tuple[float, float]) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise _bad(where, value, f"a list of two numbers, [{first[0]:g}..{first[1]:g}, {second[0]:g}..{second[1]:g}]")
    return _number(f"{where}[0]", value[0], *first), _number(f"{where}[1]", value[1], *second)


def _flag(where: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise _bad(where, value, "true or false")
    return value


def _json_kind(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return {list: "an array", str: "a string", int: "a number", float: "a number"}.get(type(value), "that")


def _reject_constant(name: str) -> NoReturn:
    raise ProtocolError(f"{name} is not allowed (numbers must be finite)")


def _unique_fields(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's fields as a dict, or ProtocolError when a field appears twice (``json.loads`` would keep
    the last one silently, so a checker and an actor could read different values)."""
    document = dict(pairs)
    if len(document) != len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:  # the first field seen twice
            if name in seen:
                break
            seen.add(name)
        raise ProtocolError(f"duplicate field {_shown(name)} in a JSON object: each field may appear once")
    return document


def parse_client_message(data: str | bytes) -> ClientMessage:
    """Check a page's message and return it as one of the message classes, or raise :class:`ProtocolError`
    saying what is wrong (binary data, too long, not JSON, a field twice in one object, not an object, unknown
    type, unknown or missing field, wrong type, out of range, NaN or infinite numbers)."""
    if not isinstance(data, str):
        raise ProtocolError("binary messages are not accepted: send a JSON object as text")
    if len(data) > MAX_MESSAGE_BYTES or len(data.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message too long: more than {MAX_MESSAGE_BYTES} bytes")
    try:
        document = json.loads(data, parse_constant=_reject_constant, object_pairs_hook=_unique_fields)
    except ProtocolError:
        raise
    except RecursionError:
        raise ProtocolError("not JSON this server reads: nested too deeply") from None
    except ValueError as error:  # JSONDecodeError, or an integer too long to convert
        raise ProtocolError(f"not JSON: {error}") from None
    if not isinstance(document, dict):
        raise ProtocolError(f"a message must be a JSON object with a \"type\", not {_json_kind(document)}")
    kind = document.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise _bad("type", kind, "one of " + ", ".join(CLIENT_TYPES))
    unknown = sorted(set(document) - {"type", *_FIELDS[kind]})
    if unknown:
        raise ProtocolError(f"unknown field {unknown[0]!r} in this {kind} message (fields: "
                            f"{', '.join(_FIELDS[kind]) or 'none besides type'})")
    if kind == "input":
        move = _pair("move", document.get("move", [0, 0]), (-1.0, 1.0), (-1.0, 1.0))
        look = document.get("look")
        if look is not None:
            look = _pair("look", look, (-YAW_LIMIT, YAW_LIMIT), (-PITCH_LIMIT, PITCH_LIMIT))
        held = document.get("held", [])
        if not isinstance(held, list) or len(held) > len(BUTTONS):
            raise _bad("held", held, f"a list of at most {len(BUTTONS)} button names")
        for n, name in enumerate(held):
            if not isinstance(name, str) or name not in BUTTONS:
                raise _bad(f"held[{n}]", name, "one of " + ", ".join(BUTTONS))
        if (buy := document.get("buy")) is not None and buy not in UPGRADE_NAMES:
            raise _bad("buy", buy, "one of " + ", ".join(UPGRADE_NAMES))
        if (seq := document.get("seq")) is not None and (type(seq) is not int or not 0 <= seq <= MAX_INPUT_SEQ):
            raise _bad("seq", seq, f"a whole number in [0, {MAX_INPUT_SEQ}] or null")
        return InputMessage(move, look, frozenset(held), buy, seq)
    if kind in ("control", "release"):
        return ControlMessage(kind == "control", None if document.get("name") is None else
                              player_name("name", document["name"]))
    if kind == "save":
        return SaveMessage()
    if kind == "overlays":
        if "navmesh" not in document and "collision" not in document:
            raise ProtocolError("an overlays message needs \"navmesh\" or \"collision\" (true or false)")
        return OverlaysMessage(*(_flag(name, document[name]) if name in document else None
                                 for name in ("navmesh", "collision")))
    ping = document.get("id", 0)
    if type(ping) is not int or not 0 <= ping <= MAX_PING_ID:
        raise _bad("id", ping, f"a whole number in [0, {MAX_PING_ID}]")
    return PingMessage(ping)


def player_name(where: str, value: object) -> str:
    """A player's name as a page gives it (``control``'s ``name``, the ``name`` query parameter): 1 to
    :data:`~voxelworld.game.seats.MAX_NAME` characters, letters, digits, spaces, ``-``, ``_`` and ``.``, not
    beginning or ending with a space; else ProtocolError naming ``where``.

    >>> player_name("name", "Ann B")
    'Ann B'
    >>> player_name("name", "<script>")
    Traceback (most recent call last):
    ...
    voxelworld.viewer.protocol.ProtocolError: name = "<script>" is out of range: must be 1 to 32 letters, ...
    """
    if not (isinstance(value, str) and 0 < len(value) <= MAX_NAME and value == value.strip()
            and all(c.isalnum() or c in " -_." for c in value)):
        raise _bad(where, value, f"1 to {MAX_NAME} letters, digits, spaces, -, _ or .")
    return value


class RateLimiter:
    """A token bucket: ``rate`` messages a second on average, bursts of up to ``burst`` (default: ``rate``).

    >>> clock = iter([0.0] * 3 + [0.5]).__next__
    >>> limiter = RateLimiter(2, clock=clock)
    >>> [limiter.allow() for _ in range(3)], limiter.allow()
    ([True, True, False], True)
    """

    def __init__(self, rate: float = MAX_MESSAGES_PER_SECOND, burst: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self._clock = float(rate), float(rate if burst is None else burst), clock
        self._tokens = self.burst
        self._last: float | None = None

    def allow(self) -> bool:
        """Take a token for one message: False when there is none (the message is over the limit)."""
        now = self._clock()
        if self._last is not None:
            self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


# ------------------------------------------------------------------------------------ binary meshes
def _le(array: ArrayLike, dtype: str) -> bytes:
    return np.ascontiguousarray(array, dtype=dtype).tobytes()


def _pad(length: int) -> bytes:
    return bytes(-length % 4)


def _take(data: bytes, offset: int, dtype: str, count: int, what: str) -> tuple[np.ndarray, int]:
    size = np.dtype(dtype).itemsize * count
    if offset + size > len(data):
        raise ProtocolError(f"binary message too short: {what} needs bytes up to {offset + size}, has {len(data)}")
    return np.frombuffer(data, dtype=dtype, count=count, offset=offset).copy(), offset + size


def _header(data: bytes, header: struct.Struct, kind: int) -> tuple[Any, ...]:
    if not isinstance(data, (bytes, bytearray, memoryview)) or len(data) < header.size:
        raise ProtocolError(f"binary message too short for its {header.size}-byte header")
    fields = header.unpack_from(data)
    if fields[0] != kind or fields[1] != MESH_VERSION:
        raise ProtocolError(f"binary message of kind {fields[0]} version {fields[1]}, expected kind {kind} "
                            f"version {MESH_VERSION}")
    return fields


def decode_chunk_mesh(data: bytes) -> tuple[tuple[int, int, int], int, WireMesh]:
    """The chunk, its revision and its quantised mesh from :func:`encode_chunk_mesh`'s bytes (no triangles:
    the chunk was removed); ProtocolError when the bytes are not such a message."""
    try:
        return chunk_messages.decode_chunk_mesh(data)
    except chunk_messages.WireError as error:
        raise ProtocolError(str(error)) from None


def decode_chunk_patch(data: bytes, old: WireMesh) -> tuple[tuple[int, int, int], tuple[int, int], WireMesh]:
    """The chunk, (base, revision) and the new mesh of :func:`encode_chunk_patch`'s bytes applied to ``old``;
    ProtocolError when the bytes are not such a message or do not fit ``old``."""
    try:
        return chunk_messages.decode_chunk_patch(data, old)
    except chunk_messages.WireError as error:
        raise ProtocolError(str(error)) from None


def decode_poses(data: bytes, base: list[ActorPose] | None = None) -> tuple[int, int, list[ActorPose]]:
    """(frame, base frame, poses) of :func:`encode_poses`'s bytes, a delta completed from ``base`` (the poses of
    its base frame); ProtocolError when the bytes are not such a message."""
    try:
        return frame_messages.decode_poses(data, base)
    except frame_messages.PoseError as error:
        raise ProtocolError(str(error)) from None


def chunk_origin(volume: Volume, chunk: tuple[int, int, int]) -> tuple[float, float, float]:
    """The corner (m) of ``chunk`` (i, j, k) of ``volume``'s chunk grid: what its mesh's positions count from."""
    extent = volume.chunk_size * volume.voxel_size
    (x, y, z), (i, j, k) = volume.origin, chunk
    return float(np.float32(x + i * extent)), float(np.float32(y + j * extent)), float(np.float32(z + k * extent))


def chunk_wire_mesh(volume: Volume, chunk: tuple[int, int, int], mesh: DisplayMesh | None) -> WireMesh:
    """``chunk``'s display mesh quantised for the wire: positions counted from the chunk's corner
    (:func:`chunk_origin`) in steps of :func:`chunk_step` of the chunk's extent (the same for every chunk, so a
    vertex two chunks share decodes alike)."""
    return wire_mesh(mesh, chunk_origin(volume, chunk), chunk_step(volume.chunk_size * volume.voxel_size))


def navmesh_triangles(navmesh: NavMesh) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A navmesh's polygons as triangles (each convex polygon a fan from its first corner): vertices (n, 3) float32
    m in the world (a turned navmesh's placed by its frame), indices (m, 3) uint32, levels (m,) uint8 (<= 255)."""
    start = np.asarray(navmesh.polygon_start, dtype=np.int64)
    corners = np.asarray(navmesh.polygon_vertices, dtype=np.int64)
    counts = np.maximum(np.diff(start) - 2, 0)
    polygon = np.repeat(np.arange(len(counts)), counts)
    first = np.repeat(start[:-1], counts)
    step = np.arange(len(polygon)) - np.repeat(np.cumsum(counts) - counts, counts)
    indices = np.stack([corners[first], corners[first + step + 1], corners[first + step + 2]], axis=1)
    level = np.minimum(np.asarray(navmesh.polygon_level, dtype=np.int64)[polygon], 255)
    return (np.asarray(navmesh.world_vertices(), dtype=np.float32).reshape(-1, 3), indices.astype(np.uint32),
            level.astype(np.uint8))


def _encode_triangles(kind: int, revision: int, positions: Sequence[Any] | np.ndarray,
                      indices: Sequence[Any] | np.ndarray, per_triangle: Sequence[Any] | np.ndarray) -> bytes:
    n, m = len(positions), len(indices)
    return b"".join((TRIANGLES_HEADER.pack(kind, MESH_VERSION, 0, int(revision) & 0xFFFFFFFF, n, m),
                     _le(positions, "<f4"), _le(indices, "<u4"), _le(per_triangle, "u1"), _pad(m)))


def _decode_triangles(data: bytes, kind: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    _, _, _, revision, n, m = _header(data, TRIANGLES_HEADER, kind)
    offset = TRIANGLES_HEADER.size
    positions, offset = _take(data, offset, "<f4", 3 * n, "positions")
    indices, offset = _take(data, offset, "<u4", 3 * m, "indices")
    values, offset = _take(data, offset, "u1", m, "per-triangle values")
    if offset + (-m % 4) != len(data):
        raise ProtocolError(f"binary message has {len(data) - offset} bytes after its arrays")
    return revision, positions.reshape(-1, 3), indices.reshape(-1, 3), values


def encode_navmesh(revision: int, navmesh: NavMesh | None) -> bytes:
    """The navmesh as a binary message: the 16-byte header (u8 kind = 2, u8 version = 3, u16 0, u32 revision,
    u32 vertex count n, u32 triangle count m), world vertices f32[3n] (m), indices u32[3m], each triangle's level
    u8[m], zero bytes up to a multiple of 4. None: an empty navmesh."""
    if navmesh is None:
        return _encode_triangles(KIND_NAVMESH, revision, np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0))
    return _encode_triangles(KIND_NAVMESH, revision, *navmesh_triangles(navmesh))


def decode_navmesh(data: bytes) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """(revision, vertices (n, 3), indices (m, 3), level (m,)) from :func:`encode_navmesh`'s bytes."""
    return _decode_triangles(data, KIND_NAVMESH)


def encode_collision_mesh(serial: int, positions: Sequence[Any] | np.ndarray, indices: Sequence[Any] | np.ndarray,
                          tri_material: Sequence[Any] | np.ndarray) -> bytes:
    """The collision triangles as a binary message: the 16-byte header (u8 kind = 3, u8 version = 2, u16 0,
    u32 serial, u32 n, u32 m), positions f32[3n] (m), indices u32[3m], each triangle's material id u8[m], zero
    bytes up to a multiple of 4."""
    return _encode_triangles(KIND_COLLISION, serial, positions, indices, tri_material)


def decode_collision_mesh(data: bytes) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """(serial, positions (n, 3), indices (m, 3), tri_material (m,)) from :func:`encode_collision_mesh`'s bytes."""
    return _decode_triangles(data, KIND_COLLISION)


# -------------------------------------------------------------------------------------- JSON messages
def dumps(message: dict[str, Any]) -> str:
    """A message as compact JSON text (NaN and infinities are never sent)."""
    return json.dumps(message, separators=(",", ":"), allow_nan=False)


def error_message(text: str) -> str:
    """``{"type": "error", "error": text}`` as JSON text."""
    return dumps({"type": "error", "error": str(text)})


def _round(value: np.ndarray | list[Any] | tuple[Any, ...] | SupportsFloat, digits: int = 4) -> Any:
    """Floats (or an array of them) rounded for JSON; NaN and infinities become None."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_round(v, digits) for v in value]
    number = float(value)
    return round(number, digits) if math.isfinite(number) else None


def hello_message(world: World, client: int, *, fps: float, save_path: str | None) -> dict[str, Any]:
    """The first message a page gets: the protocol, who it is (the server adds who plays), the limits, the material table
    (each material's texture and its mean colour: what a renderer draws where it cannot draw the texture's
    picture, /textures.bin), the world's box and chunk grid and how far around its actors it is meshed (m, None:
    all of it), the player's and NPCs' capsules, the props' triangles, the enemies' skeletons and the character
    every actor is drawn with (its ``url`` and its joints' names in skeleton order, the order of the rotations in
    the poses message, :func:`encode_poses`)."""
    volume, settings, palette = world.volume, world.settings.player, world.materials.palette()
    navigation = world.agents.navigation
    nav_settings = navigation.settings if navigation is not None else None
    return {
        "type": "hello", "protocol": PROTOCOL_VERSION, "client": client, "fps": fps, "frame": world.frame,
        "limits": {"max_message_bytes": MAX_MESSAGE_BYTES, "messages_per_second": MAX_MESSAGES_PER_SECOND},
        "buttons": list(BUTTONS), "save": save_path,
        "materials": [{"id": m.id, "name": m.name, "group": m.group, "hardness": m.hardness,
                       "texture": m.texture, "colour": _round(palette[m.id])} for m in world.materials],
        "world": {"origin": _round(volume.origin), "voxel_size": volume.voxel_size, "shape": list(volume.shape),
                  "chunk_size": volume.chunk_size, "chunks": list(volume.chunk_grid_shape),
                  "bounds": [_round(volume.origin), _round(volume.index_to_world(np.array(volume.shape) - 1))],
                  "view_distance": world.settings.view_distance},
        "player": {"radius": settings.radius, "height": settings.height, "eye_height": settings.eye_height,
                   "stamina_max": settings.stamina_max, "yaw": _round(world.player.yaw),
                   "pitch": _round(world.player.pitch)},
        "movement": movement_fields(settings),
        "npc": {"radius": nav_settings.agent_radius if nav_settings else 0.4,
                "height": nav_settings.clearance if nav_settings else 1.8},
        "props": [{"name": p.name, "material": p.material, "positions": _round(np.asarray(p.positions).ravel(), 3),
                   "indices": np.asarray(p.indices).ravel().tolist()} for p in world.props],
        "enemies": [{"name": e.name, "joints": list(e.motion.skeleton.names),
                     "parents": e.motion.skeleton.parents.tolist()} for e in world.agents.enemies],
        "character": {"url": CHARACTER_URL, "joints": list(character_rig().skeleton.names)},
    }


def movement_fields(settings: PlayerSettings) -> dict[str, float]:
    """``hello.movement``: the numbers of the player's horizontal movement (:meth:`Player.begin_frame
    <voxelworld.game.player.Player.begin_frame>`) a page predicts its own player with (``web/predict.js``): the
    walking and sprinting speeds (m/s) and how fast the horizontal velocity follows the stick on the ground
    (``traction``, 1/s, on ground of slipperiness 0) and in the air (``air_control``, 1/s).

    >>> from voxelworld.game.player import PlayerSettings
    >>> movement_fields(PlayerSettings())
    {'walk_speed': 4.0, 'sprint_speed': 7.0, 'traction': 200.0, 'air_control': 2.0}
    """
    return {"walk_speed": settings.walk_speed, "sprint_speed": settings.sprint_speed, "traction": settings.traction,
            "air_control": settings.air_control}
