"""A page's session on the ``voxelworld play`` server: :class:`Sessions`, the part of
:class:`~voxelworld.viewer.server.PlayServer` that greets a page, checks and acts on its messages and hands control
from page to page.

- **Who plays.** The first page to connect while no page plays gets control; the others watch. A watching page
  may ask for control (``{"type": "control"}``) when no page has it; the player gives it up with
  ``{"type": "release"}`` or by leaving (the stick and buttons are then let go).
- **Every message is checked** (:func:`~voxelworld.viewer.protocol.parse_client_message`): size, rate (per
  connection), JSON, type, fields, ranges. A bad one gets ``{"type": "error", "error": "..."}`` and the session
  goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import suppress
from typing import TYPE_CHECKING, TypeVar

from ..errors import VoxelworldError
from ..io import save_world
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

    _controller: Page | None
    _numbers: int  # pages numbered so far
    _move: tuple[float, float]  # the player's controls as the playing page last sent them
    _look: tuple[float, float] | None
    _held: frozenset[str]  # button names
    _pressed: set[str]  # pressed since the last frame: held for at least one frame
    _buying: str | None  # the upgrade the playing page asked to buy since the last frame
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

    @property
    def controller(self) -> int | None:
        return None if self._controller is None else self._controller.id

    def _hello(self, client: int) -> str:
        return dumps(hello_message(self.world, client, self.controller, fps=self.fps, save_path=self.save_path))

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
        if self._controller is None:
            self._controller = client
        try:
            hello = await self._in_world(self._hello, client.id)
        except Exception:
            if self._controller is client:
                self._controller = None
            raise
        self._reply(client, hello)
        if self.things.kinds is not None:  # a world with things on the ground (viewer.thing_messages)
            self._reply(client, self.things.kinds)
        if self.failure is not None:
            self._error(client, self.failure)
        client.chunks.update(chunk for chunk, update in self._chunk_updates.items() if update.has_triangles)
        self.clients[client.id] = client
        client.wake.set()
        if self._controller is client:
            self._announce_control()
        sender = asyncio.create_task(self._send_loop(client), name=f"voxelworld-page-{client.id}")
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                self._handle(client, message.get("text"), message.get("bytes"))
        except Exception as error:  # the connection broke while reading
            logger.debug("page %d: %s", client.id, error)
        finally:
            sender.cancel()
            with suppress(asyncio.CancelledError, Exception):
                await sender
            del self.clients[client.id]
            self._overlays_wanted()
            if self._controller is client:
                self._release()
            if not self.clients and self.failure is None and self.stepping:  # the last page left: the play ends
                with suppress(Exception):
                    await self._in_world(self._end_play, "left")

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
        playing = self._controller is client
        if isinstance(message, InputMessage):
            if not playing:
                self._error(client, self._watching(client, "input ignored"))
                return
            self._move, self._look = message.move, message.look
            self._pressed |= message.held - self._held
            self._held = message.held
            if message.buy is not None:
                self._buying = message.buy
        elif isinstance(message, ControlMessage):
            if message.take:
                if self._controller is None or playing:
                    self._controller = client
                    self._announce_control()
                else:
                    self._error(client, f"control refused: page {self._controller.id} plays; ask again when "
                                        "no page plays")
            elif playing:
                self._release()
            else:
                self._error(client, "release ignored: this page does not play")
        elif isinstance(message, SaveMessage):
            if not playing:
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
        who = "no page plays now: send {\"type\": \"control\"} to play" if self._controller is None else \
            f"page {self._controller.id} plays; this page (number {client.id}) watches"
        return f"{what}: {who}"

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

    def _release(self) -> None:
        """No page plays: the stick and buttons are let go, the view stays."""
        self._controller = None
        self._move, self._look, self._held, self._pressed = (0.0, 0.0), None, frozenset(), set()
        self._buying = None
        self._announce_control()

    def _announce_control(self) -> None:
        controller = self.controller
        for client in self.clients.values():
            self._reply(client, dumps({"type": "control", "you": client.id == controller, "controller": controller}))

