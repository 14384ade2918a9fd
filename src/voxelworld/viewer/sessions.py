"""A page's session on the ``voxelworld play`` server: :class:`Sessions`, the part of
:class:`~voxelworld.viewer.server.PlayServer` that greets a page, checks and acts on its messages and gives each
page a player of its own.

- **Who plays.** Up to ``players`` pages play at once, each its own player in the one world (the first the world's
  own, the next ones players who join it); the others watch (:mod:`voxelworld.viewer.page_seats`). A page asks
  for a player with ``{"type": "control"}`` (and a ``name``) and gives it up with ``{"type": "release"}``; a page
  that goes away leaves its player standing for a grace period, resumed by the token it was given.
- **Every message is checked** (:func:`~voxelworld.viewer.protocol.parse_client_message`): size, rate (per
  connection), JSON, type, fields, ranges. A bad one gets ``{"type": "error", "error": "..."}`` and the session
  goes on.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
from collections.abc import Callable
from contextlib import suppress
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from ..errors import VoxelworldError
from ..game.level import surface_height
from ..game.seats import OWN_NAME, rename_own
from ..io import save_world
from .page_seats import PageSeat, free_name, seat_message
from .protocol import (
    MAX_MESSAGES_PER_SECOND,
    ClientMessage,
    ControlMessage,
    InputMessage,
    OverlaysMessage,
    PingMessage,
    ProtocolError,
    SaveMessage,
    dumps,
    hello_message,
    parse_client_message,
    player_name,
)
from .streaming import Page, Streaming

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

    from ..game.events import PlayEnded
    from ..game.world import World
    from .frame_encoder import FrameEncoder
    from .thing_messages import ThingTexts

_T = TypeVar("_T")

__all__ = ["Sessions"]

logger = logging.getLogger("voxelworld.play")


class Sessions(Streaming):
    """The pages' sessions (mixed into :class:`~voxelworld.viewer.server.PlayServer`, which sets these attributes
    up and gives ``_in_world``, which runs a function in the world thread): greeting, messages, control, saving."""

    seats: dict[str, PageSeat]  # player name -> the seat of the page that plays it (or played it, in its grace)
    max_players: int  # pages that may play at once
    grace: float  # s a player whose page left waits for it
    refused_tokens: int  # resume tokens refused (wrong or stale) since the server started
    _seating: int  # pages being given a player (a join under way in the world thread)
    _claimed: set[str]  # the players given to pages being seated (set in the world thread, cleared on the loop)
    _numbers: int  # pages numbered so far
    _saving: bool
    world: World
    save_path: str | None
    fps: int
    failure: str | None  # why the world stopped, if it did
    ended: tuple[PlayEnded, str | None] | None  # the last play's summary and the file it was saved to
    encoder: FrameEncoder
    things: ThingTexts

    if TYPE_CHECKING:
        @property
        def stepping(self) -> bool:
            """Whether the frame loop runs (PlayServer's)."""

        async def _in_world(self, function: Callable[..., _T], *args: object) -> _T:
            """``function(*args)`` run in the world thread (PlayServer's)."""

    def _hello(self, client: int) -> str:
        return dumps(hello_message(self.world, client, fps=self.fps, save_path=self.save_path)
                     | {"players": self._playing(), "seats": self.max_players})

    def _save_world(self) -> str:
        if self.save_path is None:
            raise ProtocolError("saving is off: this server was started without a save file")
        save_world(self.world, self.save_path)
        return self.save_path

    def _end_play(self, reason: str) -> None:
        """The design's end step, in the world thread: the play's summary (:meth:`World.end`, a ``PlayEnded``
        event), then the world saved to the save path, if any and if the world did not stop on a failure (it
        may be half-changed then). ``self.ended`` keeps what came of it; a failed save is logged, never raised."""
        summary = self.world.end(reason)
        saved: str | None = None
        if self.save_path is not None and self.failure is None:
            try:
                saved = self._save_world()
            except (VoxelworldError, OSError) as error:
                logger.error("saving the world at the end of the play failed: %s", error)
        self.ended = (summary, saved)

    async def _serve_page(self, websocket: WebSocket) -> None:
        self._numbers += 1
        client = Page(self._numbers, websocket)
        hello = await self._in_world(self._hello, client.id)
        self._reply(client, hello)
        if self.things.kinds is not None:  # a world with things on the ground (viewer.thing_messages)
            self._reply(client, self.things.kinds)
        if self.failure is not None:
            self._error(client, self.failure)
        client.chunks.update(chunk for chunk, update in self._chunk_updates.items() if update.has_triangles)
        self.clients[client.id] = client
        sender = None
        try:  # who it plays (or that it watches), before the world's chunks
            await self._first_seat(client, websocket.query_params.get("name"), websocket.query_params.get("token"))
            client.wake.set()
            sender = asyncio.create_task(self._send_loop(client), name=f"voxelworld-page-{client.id}")
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                self._handle(client, message.get("text"), message.get("bytes"))
        except Exception as error:  # the connection broke while reading
            logger.debug("page %d: %s", client.id, error)
        finally:
            if sender is not None:
                sender.cancel()
                with suppress(asyncio.CancelledError, Exception):
                    await sender
            del self.clients[client.id]
            self._overlays_wanted()
            seat = self._seat_of(client)
            if seat is not None:  # its player stands, let go, for the grace period (page_seats)
                seat.page, seat.left_at = None, asyncio.get_running_loop().time()
                seat.let_go()
                self._announce_seats()
            if not self.clients and self.failure is None and self.stepping:  # the last page left: the play ends
                with suppress(Exception):
                    await self._in_world(self._end_play, "left")

    # ----------------------------------------------------------------------------------------- seats
    def _seat_of(self, client: Page) -> PageSeat | None:
        return None if client.seat is None else self.seats.get(client.seat)

    def _playing(self) -> list[str]:
        """The names of the players pages play now."""
        return [name for name, seat in self.seats.items() if seat.page is not None]

    async def _first_seat(self, client: Page, name: str | None, token: str | None) -> None:
        """A page that just connected: its player again (a resume ``token`` from the page's URL), else a new one
        if one is free (``name`` from its URL), else it watches."""
        if token is not None:
            seat = next((s for s in self.seats.values() if s.page is None and _same_token(s.token, token)), None)
            if seat is None:
                self.refused_tokens += 1
                self._error(client, "resume token refused: no player waits for it (it is wrong, or its page left "
                                    f"more than {self.grace:g} s ago)")
            else:
                seat.page, seat.left_at, client.seat = client.id, None, seat.name
                self._announce_seats()
                return
        try:
            asked = None if name is None else player_name("name", name)
        except ProtocolError as error:
            self._error(client, f"{error}; a name is given instead")
            asked = None
        await self._take_seat(client, asked, refuse=False)

    async def _take_seat(self, client: Page, name: str | None, refuse: bool = True) -> None:
        """Give the page a player (the world's own if no page plays it, a saved one of ``name`` no page plays, or
        a new one who joins the world) when fewer than ``max_players`` are taken; else it watches (told why when
        it asked: ``refuse``)."""
        if len(self.seats) + self._seating >= self.max_players:
            if refuse:
                self._error(client, f"control refused: {self.max_players} players are taken (pages that left "
                                    f"keep theirs {self.grace:g} s); this page watches")
            self._announce_seats()
            return
        self._seating += 1
        try:
            taken = await self._in_world(self._player_for, name)
        except VoxelworldError as error:  # the world holds no more players (MAX_SEATS), or no place for one
            self._error(client, f"control refused: {error}; this page watches")
            self._announce_seats()
            return
        finally:
            self._seating -= 1
        if client.id not in self.clients:  # it left meanwhile: the player stands for no page
            self.seats[taken] = PageSeat(taken, left_at=asyncio.get_running_loop().time())
        else:
            self.seats[taken] = PageSeat(taken, page=client.id)
            client.seat = taken
        self._claimed.discard(taken)
        self._announce_seats()

    def _player_for(self, name: str | None) -> str:
        """(World thread) the name of a player no page holds for a page that asks for ``name``: the world's own
        (renamed ``name`` if no page named it before and no player has that name: ``rename_own``), a joined one of
        that name, else a new one who joins beside the world's own player. The name is claimed
        (``_claimed``) until the page's seat holds it: pages seated together get different players."""
        world, held = self.world, set(self.seats) | self._claimed
        names = [own for own, _ in world.players()]
        free = [own for own in names if own not in held]
        if world.player.name in free and world.player.name == OWN_NAME and name is not None and name not in names:
            rename_own(world, name)  # the world's own, never named by a page, takes the name this page asks for
            names[0] = free[0] = name
        for wanted in (world.player.name, name):
            if wanted in free:
                self._claimed.add(str(wanted))
                return str(wanted)
        new = free_name(name, set(names) | held, len(names) + 1)
        world.join(new, spawn=spawn_beside(world, len(names)))
        self._claimed.add(new)
        return new

    def _give_up(self, client: Page) -> None:
        """The page's player goes at once (``release``): a joined one leaves the world, the world's own waits."""
        seat = self._seat_of(client)
        if seat is None:
            return
        client.seat = None
        self._drop_seat(seat)

    def _drop_seat(self, seat: PageSeat) -> None:
        del self.seats[seat.name]
        if seat.name != self.world.player.name:  # (the world's own player is renamed in the world thread only
            # while no seat holds it)
            asyncio.get_running_loop().create_task(self._in_world(self.world.leave, seat.name))
        self._announce_seats()

    def _expire_seats(self, now: float) -> None:
        """The players whose pages left more than ``grace`` s ago go (page_seats)."""
        for seat in [s for s in self.seats.values() if s.left_at is not None and now - s.left_at >= self.grace]:
            self._drop_seat(seat)

    def _announce_seats(self) -> None:
        playing = self._playing()
        for client in self.clients.values():
            self._reply(client, dumps(seat_message(self._seat_of(client), playing, self.max_players)))

    def _handle(self, client: Page, text: str | None, data: bytes | None) -> None:
        """Check one message and act on it; whatever is wrong becomes an error reply."""
        if not client.limiter.allow():
            self._error(client, f"rate limit: more than {MAX_MESSAGES_PER_SECOND} messages a second on this "
                                "connection; message dropped")
            return
        message: str | bytes | ClientMessage  # the text, then the message it holds
        message = text if text is not None else (data or b"")
        try:
            message = parse_client_message(message)
            self._act(client, message)
        except ProtocolError as error:  # a bad message, or one this server refuses (saving off)
            self._error(client, str(error))
        except Exception as error:  # never let a message take the server down, nor end its page's session
            logger.exception("page %d: handling %.200r failed", client.id, message)
            self._error(client, f"internal error handling the message: {type(error).__name__}: {error}")

    def _act(self, client: Page, message: ClientMessage) -> None:
        seat = self._seat_of(client)
        if isinstance(message, InputMessage):
            if seat is None:
                self._error(client, self._watching(client, "input ignored"))
                return
            seat.move, seat.look = message.move, message.look
            client.input_seq = message.seq  # what the frames after it acknowledge (streaming: frame.input_seq)
            seat.pressed |= message.held - seat.held
            seat.held = message.held
            if message.buy is not None:
                seat.buying = message.buy
        elif isinstance(message, ControlMessage):
            if message.take and seat is None:
                asyncio.get_running_loop().create_task(self._take_seat(client, message.name))
            elif message.take:
                self._announce_seats()
            elif seat is not None:
                self._give_up(client)
            else:
                self._error(client, "release ignored: this page does not play")
        elif isinstance(message, SaveMessage):
            if seat is None:
                self._error(client, self._watching(client, "save refused"))
            elif self._saving:
                self._error(client, "save refused: a save is already under way")
            else:
                self._saving = True
                asyncio.get_running_loop().create_task(self._save(client))
        elif isinstance(message, OverlaysMessage):
            if message.navmesh is not None:
                client.navmesh = message.navmesh
                client.navmesh_sent = None if message.navmesh else client.navmesh_sent
            if message.collision is not None:
                client.collision = message.collision
                client.collision_sent = None if message.collision else client.collision_sent
            self._overlays_wanted()
            client.wake.set()
        elif isinstance(message, PingMessage):
            self._reply(client, dumps({"type": "pong", "id": message.id, "frame": self._frame_number}))

    def _overlays_wanted(self) -> None:
        self.encoder.want_navmesh = any(c.navmesh for c in self.clients.values())
        self.encoder.want_collision = any(c.collision for c in self.clients.values())

    def _watching(self, client: Page, what: str) -> str:
        free = self.max_players - len(self.seats)
        how = "send {\"type\": \"control\"} to play" if free > 0 else f"all {self.max_players} players are taken"
        return f"{what}: this page (number {client.id}) watches; {how}"

    async def _save(self, client: Page) -> None:
        try:
            path = await self._in_world(self._save_world)
        except (VoxelworldError, AttributeError, OSError) as error:
            self._error(client, f"save failed: {error}")
        except Exception as error:
            logger.exception("saving the world failed")
            self._error(client, f"save failed: {type(error).__name__}: {error}")
        else:
            self._reply(client, dumps({"type": "saved", "path": path, "frame": self._frame_number}))
        finally:
            self._saving = False


def _same_token(kept: str, given: str) -> bool:
    """Whether ``given`` is the resume token ``kept`` (compared in constant time; a token of another length or
    not hex is not)."""
    return len(given) == len(kept) and all(c in "0123456789abcdef" for c in given) and \
        secrets.compare_digest(kept, given)


def spawn_beside(world: World, number: int) -> tuple[float, float, float]:
    """Where the ``number``-th player joins: on the ground 1.5 m beside the world's own player, around it by
    player, inside the world's box (the world's own player's place where no ground is found)."""
    own = world.player.position
    angle = 2.0 * math.pi * (number % 8) / 8.0
    low, high = world.player.bounds if world.player.bounds is not None else (own, own)
    x = float(np.clip(own[0] + 1.5 * math.cos(angle), low[0], high[0]))
    z = float(np.clip(own[2] + 1.5 * math.sin(angle), low[2], high[2]))
    ground = surface_height(world.volume, x, z)
    return (x, float(own[1]) if ground is None else float(np.clip(ground, low[1], high[1])), z)
