"""What the ``voxelworld play`` server sends its pages after a frame, encoded once for all of them in the world
thread (play protocol 3, ``docs/specs/play-protocol.md``).

:class:`FrameEncoder` keeps what the pages were last published (each chunk's quantised mesh and revision, the last
frame, poses and HUD) and turns a stepped world into a :class:`FramePacket`: each chunk whose quantised mesh
changed as a :class:`ChunkUpdate` (the whole mesh and a patch against the revision before; a chunk that keeps
changing at most every :data:`MESH_EVERY` frames), the poses and the frame whole and as deltas against the frame
before (a delta's ``cuts``: only the cut marks added since), the HUD when it changed (whole and as a delta), and
the overlays when a page wants them. The server's event loop then picks, page by page, the patch or the whole mesh
and the delta or the whole frame.

Examples
--------
>>> from voxelworld.game.world import Inputs, World
>>> world = World.demo(seed=0)
>>> encoder = FrameEncoder(world)
>>> first = encoder.encode_all()
>>> first.frame_delta is None and len(first.chunks) > 20
True
>>> events = world.step(Inputs())
>>> packet = encoder.encode_frame(step_ms=1.0)
>>> packet.frame_delta is not None and packet.page_bytes()["frame"] < len(packet.frame_text)
True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

from ..game.seats import OWN_NAME, every_actions
from .chunk_messages import CHUNK_HEADER, WireMesh
from .frame_messages import ActorPose, cuts_delta, delta, objects_delta
from .player_messages import FRAME_STATE, events_message, frame_shared, hud_message, player_fields
from .pose_views import ViewPoses, view_events, view_objects
from .protocol import (
    actor_poses,
    chunk_wire_mesh,
    dumps,
    encode_chunk_mesh,
    encode_chunk_patch,
    encode_collision_mesh,
    encode_navmesh,
)

if TYPE_CHECKING:
    from ..game.navigation import WorldNavigation
    from ..game.play import PlayerActions
    from ..game.world import World

__all__ = ["MESH_EVERY", "JOIN_WAIT_FRAMES", "ChunkUpdate", "PlayerView", "FramePacket", "FrameEncoder"]

MESH_EVERY = 3  # frames: a chunk that keeps changing is published at most this often (20 times a second at 60)
# frames a chunk's first triangles wait at most for the joins the world's streaming owes them (half a second at 60):
# the surfaces of its lower neighbours being made land within a job or two; a neighbour not streamed in yet may come
# seconds later, and waiting for it held the horizon back (240 frames: a third fewer chunks shown 12 s after the
# page opened on the 1 km world; docs/benchmarks.md)
JOIN_WAIT_FRAMES = 30


@dataclass(frozen=True)
class ChunkUpdate:
    """A chunk's mesh as sent from one frame on: its ``revision`` (raised whenever its quantised mesh changed),
    the ``whole`` mesh message (kind 1; its header alone removes the chunk) and the ``patch`` (kind 4) that
    turns revision ``base`` into it, or None (the page then gets the whole mesh)."""

    revision: int
    whole: bytes
    patch: bytes | None = None
    base: int | None = None

    @property
    def has_triangles(self) -> bool:
        return len(self.whole) > CHUNK_HEADER.size

    def for_page(self, has: int | None) -> bytes:
        """What a page that has revision ``has`` of the chunk (None: none) is sent."""
        return self.patch if self.patch is not None and has == self.base else self.whole


@dataclass(frozen=True)
class PlayerView:
    """One player's messages of a frame: the ``frame`` message whole (``frame_text``) and as a delta against the
    frame before (``frame_delta``, None for the first); the ``hud`` message when it changed (whole: ``hud_text``,
    against the HUD before: ``hud_delta``; None when it did not change) and its version; the poses message whole
    and as a delta (``poses``, ``poses_delta``) and the frame's events as an ``events`` message (``events_text``,
    None without events), each of the actors and events near the player (:mod:`voxelworld.viewer.pose_views`).
    The whole frame and HUD are given as their text or as a function making it (``whole_frame``, ``whole_hud``),
    made the first time ``frame_text`` or ``hud_text`` is read: most frames every page is sent the deltas alone
    (with eight players digging, the whole frames' text of every view, every frame, was a third of encoding)."""

    whole_frame: str | Callable[[], str]
    frame_delta: str | None = None
    whole_hud: str | Callable[[], str] | None = None
    hud_delta: str | None = None
    hud_version: int = 0
    poses: bytes = b""
    poses_delta: bytes | None = None
    events_text: str | None = None

    @cached_property
    def frame_text(self) -> str:
        return self.whole_frame if isinstance(self.whole_frame, str) else self.whole_frame()

    @cached_property
    def hud_text(self) -> str | None:
        return self.whole_hud if self.whole_hud is None or isinstance(self.whole_hud, str) else self.whole_hud()


@dataclass(frozen=True)
class FramePacket:
    """What one frame gives the pages, encoded once for all of them: the frame number; the :class:`PlayerView` of
    each player some page is sent, by name (``views``; a watching page is sent the world's own player's, ``"player"``,
    whose messages the properties ``frame_text`` ... ``hud_version`` give); the world's own view's poses message
    whole and as a delta (``poses``, ``poses_delta``); each changed chunk's :class:`ChunkUpdate`; the navmesh and
    collision messages when they changed and a page wants them (``(key, bytes)`` or None), and how long the frame
    took: ``step_ms`` in ``World.step``, ``encode_ms`` building the messages; ``events_text`` the world's own view's
    events as an ``events`` message (None without events), sent to a page that skips this frame (each view's
    own: :attr:`PlayerView.events_text`)."""

    frame: int
    views: dict[str, PlayerView]
    chunks: dict[tuple[int, int, int], ChunkUpdate]
    navmesh: tuple[int, bytes] | None  # (key, message)
    collision: tuple[int, bytes] | None
    step_ms: float
    encode_ms: float
    events_text: str | None = None
    poses: bytes = b""
    poses_delta: bytes | None = None
    things: dict | None = None  # things columns made, changed or forgotten (viewer.thing_messages.ThingTexts)
    places: dict[str, tuple[float, float]] | None = None  # player -> its feet (x, z), m: whose view is where
    own: str = OWN_NAME  # the world's own player's name: whose view a watching page is sent

    @property
    def frame_text(self) -> str:
        return self.views[self.own].frame_text

    @property
    def frame_delta(self) -> str | None:
        return self.views[self.own].frame_delta

    @property
    def hud_text(self) -> str | None:
        return self.views[self.own].hud_text

    @property
    def hud_delta(self) -> str | None:
        return self.views[self.own].hud_delta

    @property
    def hud_version(self) -> int:
        return self.views[self.own].hud_version

    def page_messages(self, player: str | None = None) -> list[tuple[str, bytes]]:
        """What the page of ``player`` (a name of ``views``), without overlays and sent the frame before (and every
        chunk's mesh before), receives for this frame, in order, each message with its kind: ``chunks`` (patches
        where there is one, else whole meshes), ``hud`` (when it changed), ``poses`` and ``frame`` (its JSON)."""
        view = self.views[self.own if player is None else player]
        frame = view.frame_delta if view.frame_delta is not None else view.frame_text
        poses = view.poses_delta if view.poses_delta is not None else view.poses
        hud = view.hud_delta if view.hud_delta is not None else view.hud_text
        messages = [("chunks", u.for_page(u.base)) for u in self.chunks.values()]
        if hud:
            messages.append(("hud", hud.encode()))
        return messages + [("poses", poses), ("frame", frame.encode())]

    def page_bytes(self, player: str | None = None) -> dict[str, int]:
        """Bytes of :meth:`page_messages` by kind (``chunks``, ``poses``, ``frame``, ``hud``)."""
        sizes = {"chunks": 0, "poses": 0, "frame": 0, "hud": 0}
        for kind, data in self.page_messages(player):
            sizes[kind] += len(data)
        return sizes

    @property
    def stream_bytes(self) -> int:
        """Bytes a page without overlays that keeps up receives for this frame (:meth:`page_bytes`, summed)."""
        return sum(self.page_bytes().values())


class FrameEncoder:
    """What a world's pages are sent, frame after frame (see the module). Only the world's thread may use it;
    ``want_navmesh`` and ``want_collision`` (some page shows that overlay) are set by the server's loop.

    Attributes
    ----------
    wire : dict
        chunk -> (revision, :class:`~voxelworld.viewer.chunk_messages.WireMesh`) as last published.
    """

    def __init__(self, world: World) -> None:
        self.world = world
        self.wire: dict[tuple[int, int, int], tuple[int, WireMesh]] = {}
        self._published: dict[tuple[int, int, int], int] = {}  # chunk -> the frame its mesh was last published in
        # chunks that changed but were published less than MESH_EVERY frames ago
        self._held_back: set[tuple[int, int, int]] = set()
        # chunks whose first triangles wait for joins the streaming owes them: the frame they first could have gone
        self._join_waits: dict[tuple[int, int, int], int] = {}
        self._last_frame: dict[str, dict[str, Any]] = {}  # player -> the last frame message (whole) of its view
        self.poses = ViewPoses(world)  # what each view's pages hold of the actors' poses
        self._objects_memo: tuple[list, list, dict[str, Any] | None] | None = None  # (before, now, their delta)
        self._last_hud: dict[str, dict[str, Any]] = {}  # player -> its last HUD
        self._cuts_text: tuple[dict[str, Any], str] | None = None  # the last frame's cuts, and as JSON
        self._hud_version: dict[str, int] = {}  # player -> its HUD's version
        self._collider: object = None  # the world's collider last encoded (compared by identity)
        self._collision_serial = 0
        self._navigation: WorldNavigation | None = None
        self._navmesh_revision, self._navmesh_serial = -1, 0
        self.want_navmesh = self.want_collision = False

    def encode_all(self, views: Iterable[str] | None = None) -> FramePacket:
        """Every current chunk mesh, the frame, the poses and the HUD as they are now, whole, and from now on
        the base of the next frame's patches and deltas (``views``: as :meth:`encode_frame`)."""
        start = time.perf_counter()
        world = self.world
        self.wire, self._last_frame, self._last_hud, self.poses = {}, {}, {}, ViewPoses(world)
        self._published, self._held_back, self._join_waits = {}, set(), {}
        chunks = self._encode_chunks(world.mesher.meshes, hold=False)
        return self._packet(0.0, start, chunks, views)

    def encode_frame(self, step_ms: float, start: float | None = None,
                     views: Iterable[str] | None = None) -> FramePacket:
        """What changed in the frame the world just stepped (``step_ms``: how long World.step took; ``start``:
        :func:`time.perf_counter` when it ended, from which ``encode_ms`` counts). ``views``: the players whose
        frame and HUD some page is sent (the world's own is always encoded: the watching pages'); None: every
        player's. A player left out costs nothing (no aim ray, no JSON); its next view starts whole."""
        start = time.perf_counter() if start is None else start
        return self._packet(step_ms, start, self._encode_chunks(self.world.snapshot().changed_chunks), views)

    def _encode_chunks(self, changed: Iterable[tuple[int, int, int]], hold: bool = True,
                       ) -> dict[tuple[int, int, int], ChunkUpdate]:
        """A :class:`ChunkUpdate` for each chunk of ``changed`` (and of those held back before) whose quantised
        mesh is not the one last published (a remesh that changed nothing a page sees is not sent). A chunk
        published less than :data:`MESH_EVERY` frames ago is held back until then and published as it is then:
        a chunk that changes every frame (dug, sucked, cut) is sent at most every MESH_EVERY frames, its latest
        mesh; one that changes once is sent at once. A chunk that has no triangles and had none when last
        published, or was never published, is not sent (a page has nothing of it to remove: the streaming turns
        thousands of chunks of air and buried rock active). With ``hold``, a chunk's first triangles wait while
        the world's streaming still owes them joins (:meth:`~voxelworld.game.world.World.joins_pending`), for at
        most :data:`JOIN_WAIT_FRAMES`: sent once, joined, rather than once with open borders and again."""
        world, updates = self.world, {}
        meshes, frame = world.mesher.meshes, world.frame
        changed = set(changed)
        # The waits are looked at again when chunks changed (a streaming step or a job landed: what holds them may
        # have changed too), else only those whose time is up.
        waits = self._join_waits if changed else [c for c, since in self._join_waits.items()
                                                   if frame - since >= JOIN_WAIT_FRAMES]
        due = []
        for chunk in sorted(self._held_back.union(changed, waits)):
            if frame - self._published.get(chunk, frame - MESH_EVERY) < MESH_EVERY:
                self._held_back.add(chunk)
                continue
            self._held_back.discard(chunk)
            if chunk not in meshes and self._first_triangles(chunk):  # (nothing of it on the pages to remove)
                self._join_waits.pop(chunk, None)
                continue
            due.append(chunk)
        first = [chunk for chunk in due if chunk in meshes and self._first_triangles(chunk)]
        if hold and first:
            for chunk, pending in zip(first, world.joins_pending(first)):
                since = self._join_waits.setdefault(chunk, frame)
                if pending and frame - since < JOIN_WAIT_FRAMES:
                    continue
                del self._join_waits[chunk]
            due = [chunk for chunk in due if chunk not in self._join_waits]
        for chunk in due:
            mesh = chunk_wire_mesh(world.volume, chunk, meshes.get(chunk))
            revision, old = self.wire.get(chunk, (0, None))
            if old is not None and old == mesh:
                continue
            revision += 1
            whole = encode_chunk_mesh(chunk, mesh, revision)
            patch = None if old is None else encode_chunk_patch(chunk, old, mesh, revision - 1, revision)
            if patch is not None and len(patch) >= len(whole):
                patch = None
            updates[chunk] = ChunkUpdate(revision, whole, patch, None if patch is None else revision - 1)
            self.wire[chunk] = (revision, mesh)
            self._published[chunk] = frame
        return updates

    def _first_triangles(self, chunk: tuple[int, int, int]) -> bool:
        """Whether the pages have no triangles of ``chunk`` (never published, or last published empty)."""
        old = self.wire.get(chunk)
        return old is None or old[1].triangle_count == 0

    def _packet(self, step_ms: float, start: float, chunks: dict[tuple[int, int, int], ChunkUpdate],
                views: Iterable[str] | None = None) -> FramePacket:
        """The frame's messages (the frame and HUD of each player of ``views`` and of the world's own, whole and as
        deltas against its last ones; the poses, the events and the overlays, for every page)."""
        world = self.world
        shared = frame_shared(world, step_ms)
        wanted = None if views is None else {*views, world.player.name}
        places = {name: (float(p.position[0]), float(p.position[2])) for name, p in world.players()}
        poses = actor_poses(world)
        views = {actions.player.name: self._view(shared, actions, places[actions.player.name], poses)
                 for actions in every_actions(world) if wanted is None or actions.player.name in wanted}
        for gone in set(self._last_frame) - set(views):  # a player who left or whom no page plays: starts whole
            del self._last_frame[gone], self._last_hud[gone]
        self.poses.keep_only(set(views))
        navmesh = self._encode_navmesh() if self.want_navmesh else None
        collision = self._encode_collision() if self.want_collision else None
        own = views[world.player.name]
        return FramePacket(world.frame, views, chunks, navmesh, collision, step_ms,
                           (time.perf_counter() - start) * 1000.0, own.events_text, own.poses, own.poses_delta,
                           places=places, own=world.player.name)

    def _objects_delta(self, before: list, now: list) -> dict[str, Any] | None:
        """:func:`~voxelworld.viewer.frame_messages.objects_delta`, worked out once a frame for every view that
        had the same objects (the list is the frame's shared part)."""
        kept = self._objects_memo
        if kept is not None and kept[0] is before and kept[1] is now:
            return kept[2]
        found = objects_delta(before, now)
        self._objects_memo = (before, now, found)
        return found

    def _view(self, shared: dict[str, Any], actions: PlayerActions, place: tuple[float, float],
              poses: list[ActorPose]) -> PlayerView:
        """One player's frame (whole and as a delta against its last one), HUD (when it changed), poses (whole and
        as a delta) and events, of the actors and events near it (``place``: its feet, x and z)."""
        name = actions.player.name
        frame = shared | player_fields(self.world, actions)
        if self.poses.reach is not None:  # (a world that streams: the objects within its view distance)
            frame["objects"] = view_objects(frame["objects"], place, self.poses.reach)
        if "events" in shared:
            events = view_events(shared["events"], name, place, self.poses.near, self.poses.reach)
            frame = frame | {"events": events} if events else {k: v for k, v in frame.items() if k != "events"}
        whole_poses, poses_delta = self.poses.encode(name, place, frame["frame"], poses)
        events_text = events_message(frame)
        before = self._last_frame.get(name)
        frame_delta = None
        if before is not None and before["frame"] == frame["frame"] - 1:
            frame_delta = {"type": "frame", "frame": frame["frame"], "base": before["frame"], "time": frame["time"],
                           "step_ms": frame["step_ms"]}
            frame_delta |= delta({k: before[k] for k in FRAME_STATE}, {k: frame[k] for k in FRAME_STATE})
            frame_delta |= self._objects_delta(before["objects"], frame["objects"]) or {}
            cuts = cuts_delta(before["cuts"], frame["cuts"])  # only the marks added (kerf_marks), when any were
            if cuts is not None:
                frame_delta["cuts"] = cuts
            frame_delta |= {k: frame[k] for k in ("events", "events_dropped") if k in frame}
        self._last_frame[name] = frame
        hud, last = hud_message(self.world, actions), self._last_hud.get(name)
        version = self._hud_version.get(name, 0)
        whole_hud: Callable[[], str] | None = None
        hud_delta = None
        if hud != last:
            version = self._hud_version[name] = version + 1
            whole_hud = partial(dumps, hud | {"version": version, "base": None})
            if last is not None:
                hud_delta = dumps({"type": "hud", "version": version, "base": version - 1} | delta(last, hud))
            self._last_hud[name] = hud
        return PlayerView(self._whole_frame(frame), None if frame_delta is None else dumps(frame_delta), whole_hud,
                          hud_delta, version, whole_poses, poses_delta,
                          None if events_text is None else dumps(events_text))

    def _whole_frame(self, frame: dict[str, Any]) -> Callable[[], str]:
        """What makes ``dumps(frame)`` when a page needs it (:class:`PlayerView`), its ``cuts`` last (their text
        kept from the frame before while no mark was added: up to 64 marks are most of a whole frame's text, and
        encoding them every frame would cost about 0.5 ms). Nothing changes a frame's fields once made, so the
        text may be made later, on another thread (a page's sender)."""
        cuts = frame["cuts"]  # its marks: the list CutMarks.wire keeps until a mark is added
        if self._cuts_text is None or self._cuts_text[0]["marks"] is not cuts["marks"] or self._cuts_text[0] != cuts:
            self._cuts_text = (cuts, dumps(cuts))
        return partial(_frame_text, frame, self._cuts_text[1])

    def _encode_navmesh(self) -> tuple[int, bytes] | None:
        """The navmesh message if the navmesh was re-baked since it was last encoded, baking it first if the
        world has none yet (no NPC needed one)."""
        navigation = self.world.agents.navigate()
        if navigation is self._navigation and navigation.revision == self._navmesh_revision:
            return None
        self._navigation, self._navmesh_revision = navigation, navigation.revision
        self._navmesh_serial += 1
        return self._navmesh_serial, encode_navmesh(navigation.revision, navigation.mesh)

    def _encode_collision(self) -> tuple[int, bytes] | None:
        """The collision mesh message if the world's collider was rebuilt since it was last encoded."""
        collider = self.world.collider
        if collider is self._collider:
            return None
        self._collider = collider
        self._collision_serial += 1
        bvh = collider.bvh
        if bvh is None:
            data = encode_collision_mesh(self._collision_serial, [], [], [])
        else:
            data = encode_collision_mesh(self._collision_serial, bvh.positions, bvh.indices, bvh.tri_material)
        return self._collision_serial, data


def _frame_text(frame: dict[str, Any], cuts_text: str) -> str:
    """``dumps(frame)`` with its ``cuts`` given as their text (:meth:`FrameEncoder._whole_frame`)."""
    return dumps({k: v for k, v in frame.items() if k != "cuts"})[:-1] + ',"cuts":' + cuts_text + "}"
