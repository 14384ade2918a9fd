"""What the ``voxelworld play`` server sends its pages: each page's state (:class:`Page`: what waits for it, what it
has been sent) and :class:`Streaming`, the part of :class:`~voxelworld.viewer.server.PlayServer` that publishes each
frame's packet to the pages and sends every page, from its own task, what it lacks.

After each frame the server publishes the frame's :class:`~voxelworld.viewer.frame_encoder.FramePacket`
(:meth:`Streaming._publish`): the chunks whose mesh changed are marked for every page, the HUD, overlays and the
latest frame replace the ones before. Each page's sender (:meth:`Streaming._send_loop`) then sends, when the page
can take more, its replies, the chunks marked for it (the patch when the page has the patch's base, else the whole
latest mesh), the overlays it asked for, the HUD when it changed and the latest frame, as deltas against the frame
before when the page was sent that one. A slow page skips frames instead of queueing them.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..game.seats import OWN_NAME
from .frame_encoder import ChunkUpdate, FramePacket
from .protocol import MAX_MESSAGES_PER_SECOND, RateLimiter, error_message
from .thing_messages import due, publish

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

__all__ = ["Page", "Streaming", "ChunkInterest", "with_input_seq", "EVENT_FRAMES_KEPT", "ERRORS_QUEUED",
           "INTEREST_MARGIN"]

EVENT_FRAMES_KEPT = 120  # frames whose events wait for a page that is behind (2 s); older ones are dropped
ERRORS_QUEUED = 64  # error replies waiting for one page at most; more are counted and dropped

INTEREST_MARGIN = 16.0  # m past the view distance a page is sent chunks (they are there before they show)

logger = logging.getLogger("voxelworld.play")


@dataclass(frozen=True)
class ChunkInterest:
    """Which chunks a page is sent on a world that streams (interest management, issue #35): those whose centre
    lies within ``reach`` m across the ground (x, z) of its player's feet: the view distance, half a chunk's
    diagonal and :data:`INTEREST_MARGIN`. ``origin`` (x, z) and ``size`` (a chunk's edge, m) place the chunks.

    >>> interest = ChunkInterest.of_world((0.0, 0.0, 0.0), 16.0, 64.0)
    >>> interest.near((0, 0, 0), (8.0, 8.0)), interest.near((10, 0, 0), (8.0, 8.0))
    (True, False)
    """

    origin: tuple[float, float]
    size: float
    reach: float

    @classmethod
    def of_world(cls, origin: tuple[float, float, float], size: float, view_distance: float) -> ChunkInterest:
        return cls((float(origin[0]), float(origin[2])), size,
                   float(view_distance) + size * math.sqrt(0.5) + INTEREST_MARGIN)

    def near(self, chunk: tuple[int, int, int], place: tuple[float, float]) -> bool:
        x = self.origin[0] + (chunk[0] + 0.5) * self.size
        z = self.origin[1] + (chunk[2] + 0.5) * self.size
        return math.hypot(x - place[0], z - place[1]) <= self.reach

class Page:
    """One connected page: its socket, what is waiting to be sent to it and what it has been sent."""

    def __init__(self, number: int, websocket: WebSocket) -> None:
        self.id = number
        self.websocket = websocket
        self.outbox: deque[tuple[bool, str]] = deque()  # replies (is it an error, text), in order
        self.errors_queued = 0
        self.errors_dropped = 0
        self.chunks: set[tuple[int, int, int]] = set()  # chunks whose latest mesh it has not been sent
        self.revisions: dict[tuple[int, int, int], int] = {}  # chunk -> the revision of its mesh this page has
        self.wake = asyncio.Event()
        self.limiter = RateLimiter(MAX_MESSAGES_PER_SECOND)
        self.frame_sent = -1
        # (frame, events message) not sent with a frame
        self.events: deque[tuple[int, str]] = deque(maxlen=EVENT_FRAMES_KEPT)
        self.hud_sent = -1  # the HUD version it has
        self.navmesh = self.collision = False  # overlays it asked for
        self.navmesh_sent: int | None = None  # the key of the overlay it has
        self.collision_sent: int | None = None
        self.messages_sent = self.bytes_sent = 0
        self.things_sent: dict[tuple[int, int], int] = {}  # things column -> the version it has (thing_messages)
        self.things_due: set[tuple[int, int]] = set()  # columns it has whose things changed since
        self.seat: str | None = None  # the name of the player it plays (None: it watches)
        self.input_seq: int | None = None  # the seq of its newest input (None: it gave none)
        self.ack_sent: tuple[int, int] | None = None  # the (input_seq, input_frame) it was last sent (None: none)
        self.view = OWN_NAME  # whose frame and HUD it was last sent (a watching page: the world's own player's)


class Streaming:
    """What a play server sends its pages (mixed into :class:`~voxelworld.viewer.server.PlayServer`, which sets
    these attributes up): the last frame's packet as published, each page's outbox and sender."""

    clients: dict[int, Page]
    _chunk_updates: dict[tuple[int, int, int], ChunkUpdate]  # chunk -> its latest update
    _frame_number: int
    _frame: FramePacket | None  # the last frame's packet (its frame, poses and their deltas)
    _huds: dict[str, tuple[int, str, str | None]]  # player -> its HUD (version, whole text, delta text or None)
    _navmesh: tuple[int, bytes] | None  # (key, bytes)
    _collision: tuple[int, bytes] | None
    _thing_texts: dict[tuple[int, int], tuple[int, str]]  # things column -> (version, message)
    _thing_ratio: float  # a chunk's edge in things columns
    _interest: ChunkInterest | None  # which chunks a page is sent: those near its player (None: every chunk)
    _places: dict[str, tuple[float, float]]  # player -> its feet (x, z) in the last frame
    _own: str  # the world's own player's name in the last frame (whose view a watching page is sent)
    _acks: dict[int, tuple[int, int]]  # page -> the seq of its newest input the last frame applied, and the frame
    # that first applied it

    def _view_of(self, client: Page) -> str:
        """Whose frame, HUD, poses and events the page is sent: its player's, or (watching) the world's own's."""
        return self._own if client.seat is None else client.seat

    def _publish(self, packet: FramePacket, acks: Mapping[int, int] | None = None) -> None:
        """The frame ``packet`` is the latest from now on; ``acks``: each playing page's newest input seq it
        applied (``frame.input_seq``; with the frame that first applied it, ``input_frame``: the frames before
        were stepped with this one's predecessor, each frame publishes)."""
        before = self._acks
        self._acks = {page: (seq, before[page][1] if page in before and before[page][0] == seq else packet.frame)
                      for page, seq in (acks or {}).items()}
        self._chunk_updates.update(packet.chunks)
        publish(self._thing_texts, packet.things, self.clients.values())
        self._frame_number, self._frame = packet.frame, packet
        if packet.places is not None:
            self._places = packet.places
        self._own = packet.own
        for name, view in packet.views.items():
            if view.hud_text is not None:
                self._huds[name] = (view.hud_version, view.hud_text, view.hud_delta)
        if packet.navmesh is not None:
            self._navmesh = packet.navmesh
        if packet.collision is not None:
            self._collision = packet.collision
        for client in self.clients.values():
            client.chunks.update(packet.chunks)
            seen = packet.views.get(self._view_of(client))  # (its events: those near its player)
            if seen is not None and seen.events_text is not None:
                client.events.append((packet.frame, seen.events_text))
            client.wake.set()

    def _reply(self, client: Page, text: str) -> None:
        """Queue a JSON message for the page."""
        client.outbox.append((False, text))
        client.wake.set()

    def _error(self, client: Page, text: str) -> None:
        """Queue ``{"type": "error", "error": text}`` for the page (at most ERRORS_QUEUED wait; more are
        counted, and the count is added to the last one sent)."""
        if client.errors_queued >= ERRORS_QUEUED:
            client.errors_dropped += 1
            return
        client.errors_queued += 1
        client.outbox.append((True, text))
        client.wake.set()

    def _chunks_near(self, client: Page) -> list[tuple[int, int, int]]:
        """The chunks waiting for the page that it is sent now (taken from ``client.chunks``): on a world that
        streams (a view distance), those within :attr:`ChunkInterest.reach` of its player (a watching page: the
        world's own); the others wait until its player comes near. Every waiting chunk on a world meshed whole."""
        if not client.chunks:
            return []
        place = self._places.get(self._view_of(client))
        if self._interest is None or place is None:
            chunks = sorted(client.chunks)
        else:
            chunks = sorted(c for c in client.chunks if self._interest.near(c, place))
        client.chunks.difference_update(chunks)
        return chunks

    async def _send_loop(self, client: Page) -> None:
        """Send a page what is waiting for it whenever there is something: replies, chunk meshes, overlays, the
        HUD, the latest frame."""
        websocket = client.websocket

        async def send(data: str | bytes) -> None:
            if isinstance(data, bytes):
                await websocket.send_bytes(data)
            else:
                await websocket.send_text(data)
            client.messages_sent += 1
            client.bytes_sent += len(data)

        try:
            while True:
                await client.wake.wait()
                client.wake.clear()
                while client.outbox:
                    error, text = client.outbox.popleft()
                    if error:
                        client.errors_queued -= 1
                        if client.errors_dropped and not client.errors_queued:
                            text += f" ({client.errors_dropped} more errors were not sent)"
                            client.errors_dropped = 0
                        text = error_message(text)
                    await send(text)
                chunks = self._chunks_near(client)
                if chunks:
                    for chunk in chunks:
                        update = self._chunk_updates[chunk]
                        data = update.for_page(client.revisions.get(chunk))
                        client.revisions[chunk] = update.revision
                        await send(data)
                    for text in due(self._thing_texts, client, chunks, self._thing_ratio):
                        await send(text)  # the things on the chunks' ground (thing_messages)
                elif client.things_due:
                    for text in due(self._thing_texts, client, (), self._thing_ratio):
                        await send(text)
                if client.navmesh and self._navmesh is not None and client.navmesh_sent != self._navmesh[0]:
                    client.navmesh_sent = self._navmesh[0]
                    await send(self._navmesh[1])
                if client.collision and self._collision is not None and client.collision_sent != self._collision[0]:
                    client.collision_sent = self._collision[0]
                    await send(self._collision[1])
                packet = self._frame
                view = self._view_of(client)
                if packet is None or view not in packet.views:  # a player who joined after the last frame
                    continue
                if view != client.view:  # another player's view from now on: its HUD and frame whole
                    client.view, client.hud_sent, client.frame_sent = view, -1, -1
                hud = self._huds.get(view)
                if hud is not None and client.hud_sent != hud[0]:
                    version, whole, against_last = hud
                    text = against_last if against_last is not None and client.hud_sent == version - 1 else whole
                    client.hud_sent = version
                    await send(text)
                if client.frame_sent != packet.frame:
                    number = packet.frame
                    while client.events and client.events[0][0] <= number:
                        frame, events = client.events.popleft()
                        if client.frame_sent < frame < number:  # a frame this page skips: its events alone
                            await send(events)
                    player = packet.views[view]
                    follows = client.frame_sent == number - 1 and player.frame_delta is not None
                    client.frame_sent = number
                    await send(player.poses_delta if follows and player.poses_delta is not None else player.poses)
                    text = player.frame_delta if follows and player.frame_delta is not None else player.frame_text
                    ack = self._acks.get(client.id) if client.seat is not None else None
                    if (ack != client.ack_sent) if follows else (ack is not None):  # a delta: when it changed
                        text = with_input_seq(text, *(ack or (None, None)))
                    client.ack_sent = ack
                    await send(text)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the page went away mid-send
            logger.debug("page %d: sending stopped: %s", client.id, error)



def with_input_seq(frame_text: str, seq: int | None, since: int | None) -> str:
    """A ``frame`` message's JSON text with ``input_seq`` (the seq of the page's newest input the frame applied, null
    for none) and ``input_frame`` (the frame that first applied it) added: each playing page's own fields, added as
    its frame is sent (the frame's text is every page's).

    >>> with_input_seq('{"type":"frame","frame":3}', 17, 2)
    '{"type":"frame","frame":3,"input_seq":17,"input_frame":2}'
    """
    def number(value: int | None) -> str:
        return "null" if value is None else str(int(value))

    return f'{frame_text[:-1]},"input_seq":{number(seq)},"input_frame":{number(since)}}}'
