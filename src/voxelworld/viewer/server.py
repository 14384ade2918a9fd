"""The ``voxelworld play`` server: one world stepped at 60 Hz, streamed to the pages that watch it.

:func:`create_app` builds the Starlette application: the page and its scripts (static files from this package's
``viewer/web/`` folder and nothing else), the character the page draws every actor with (``/character.glb``: the
packaged CesiumMan, :data:`voxelworld.motion.CESIUM_MAN`), the world's texture set ``/textures.bin``
(:func:`texture_set_bytes`) and the websocket ``/ws`` that speaks the play protocol
(:mod:`voxelworld.viewer.protocol`, ``docs/specs/play-protocol.md``). :func:`serve` runs it with uvicorn until
Ctrl+C; :class:`ServerThread` runs it from a background thread (tests, benchmarks).

How it runs
-----------
- **One world thread.** Everything that touches the world (``World.step``, building the messages, saving,
  baking the navmesh for the overlay) runs in one worker thread, one job at a time, so the event loop never
  waits on a frame and never reads a world that is being stepped. The loop only moves bytes.
- **A fixed step.** One asyncio task steps the world by 1/60 s per frame against the clock. A frame that takes
  longer delays the next ones; when the loop falls more than :data:`MAX_LAG` behind it skips ahead (the world
  then runs slower than real time rather than in bursts). ``dt`` is always 1/60 s, so a session stays
  deterministic in its inputs.
- **Only what changed.** After each frame the chunks whose quantised mesh changed (a chunk that keeps changing at
  most every :data:`~voxelworld.viewer.frame_encoder.MESH_EVERY` frames) are encoded once for all pages,
  whole and as a patch against the mesh sent before (binary), and marked for every page; each page has its own
  sender task that sends, when the page can take more, the chunks marked for it (the patch when the page has the
  patch's base, else the whole latest mesh), the HUD when it changed (the fields that changed, when the page has
  the HUD before) and the latest frame: its poses (binary) and its state (JSON), as deltas against the frame
  before when the page was sent that one. A slow page skips frames instead of queueing them.
  (:mod:`voxelworld.viewer.streaming`)
- **Who plays.** The first page to connect while no page plays gets control; the others watch. A watching page
  may ask for control (``{"type": "control"}``) when no page has it; the player gives it up with
  ``{"type": "release"}`` or by leaving (the stick and buttons are then let go).
- **Every message is checked** (:func:`~voxelworld.viewer.protocol.parse_client_message`): size, rate (per
  connection), JSON, type, fields, ranges. A bad one gets ``{"type": "error", "error": "..."}`` and the session
  goes on. Messages over :data:`HARD_MESSAGE_LIMIT` bytes close the connection (code 1009) before they are read.
  (:mod:`voxelworld.viewer.sessions`)
- **Pages from elsewhere.** Every request, static file or websocket, must name this server in its ``Host``
  (localhost, 127.0.0.0/8, [::1] or the ``--host`` it listens on) and, when it has an ``Origin``, come from the
  page this server served (same host and port); others get 403 and the reason
  (:func:`~voxelworld.viewer.hosts.request_refusal`). A web page on the internet cannot drive a local game, even
  through DNS rebinding. Clients that send no ``Origin`` (scripts) are let in. (:mod:`voxelworld.viewer.handshake`)
- **At most** :data:`MAX_CLIENTS` **pages.** A page is counted when its handshake arrives, before anything is
  awaited, so pages connecting together cannot all take the last place; the others are told why
  (``error`` message, then close code 1013 with the reason).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import struct
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeVar

from ..errors import ParameterError, check_finite, check_integer
from ..motion import CESIUM_MAN
from ..terrain.worldgen import CHUNK_SIZE
from .frame_encoder import ChunkUpdate, FrameEncoder, FramePacket
from .handshake import JoinCode, ThisServerOnly, WebFiles, protocol_refusal, refuse_page
from .page_seats import DEFAULT_PLAYERS, GRACE_SECONDS, MAX_PLAYERS
from .protocol import CHARACTER_URL
from .sessions import Sessions
from .streaming import ChunkInterest
from .thing_messages import ThingTexts

if TYPE_CHECKING:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.websockets import WebSocket

    from ..game.world import Inputs, World
    from ..terrain.textures import TextureSet

_T = TypeVar("_T")

__all__ = ["create_app", "serve", "lan_address", "PlayServer", "ServerThread", "FramePacket", "ChunkUpdate", "WEB_DIR", "FPS",
           "MAX_CLIENTS", "HARD_MESSAGE_LIMIT", "bind_socket", "texture_set_bytes", "TEXTURE_HEADER"]

WEB_DIR = Path(__file__).resolve().parent / "web"
FPS = 60  # frames a second
MAX_LAG = 0.25  # s: how far the frame loop may fall behind the clock before it skips ahead
MAX_CLIENTS = 16  # pages connected at once
HARD_MESSAGE_LIMIT = 1024 * 1024  # bytes: a longer message closes the connection (1009) before it is read

logger = logging.getLogger("voxelworld.play")


class PlayServer(Sessions):
    """One world stepped at :data:`FPS` frames a second for the pages connected to it (see the module).

    Parameters
    ----------
    world : World
        The world to run; from now on only this server's world thread touches it.
    save_path : str or Path, optional
        Where the ``save`` message writes the world (``voxelworld.io.save_world``); None turns saving off.
    fps : int
        Frames a second (1..240); each frame steps the world by 1/fps s.
    players : int
        Pages that may play at once (1..16), each its own player (:mod:`voxelworld.viewer.page_seats`).
    grace : float
        Seconds a player whose page went away waits for it (its resume token) before it goes (0..3600).

    Attributes
    ----------
    clients : dict of int to client
        The connected pages by number.
    seats : dict of str to PageSeat
        The players pages play (or played, within the grace period), by name.
    frames : int
        Frames stepped since the server started.
    failure : str or None
        Why the world stopped (World.step raised), if it did.
    """

    def __init__(self, world: World, save_path: str | Path | None = None, fps: int = FPS,
                 players: int = DEFAULT_PLAYERS, grace: float = GRACE_SECONDS) -> None:
        from ..game.world import World

        if not isinstance(world, World):
            raise ParameterError("world", type(world).__name__, "a voxelworld.game.world.World")
        self.world = world
        self.save_path = None if save_path is None else str(save_path)
        self.fps = check_integer("fps", fps, minimum=1, maximum=240, unit="frames a second")
        self.clients = {}
        self._pages = 0  # pages connected or being greeted: at most MAX_CLIENTS
        self.max_players = check_integer("players", players, minimum=1, maximum=MAX_PLAYERS, unit="players")
        self.grace = check_finite("grace", grace, minimum=0.0, maximum=3600.0, unit="s")
        self.seats = {}
        self.refused_tokens = 0
        self._seating = 0
        self._claimed = set()
        self._numbers = 0
        self.frames = 0
        self.failure = None
        self.ended = None
        # What the pages are sent, as of the last frame (read and written on the event loop only).
        self._chunk_updates = {}
        self._frame_number = -1
        self._frame = None  # the last frame's packet (its frame, poses and their deltas)
        self._acks = {}  # page -> the seq of its newest input the last frame applied, the frame that first did
        self._navmesh = None  # (key, bytes)
        self._collision = None
        self.encoder = FrameEncoder(world)  # kept by the world thread only (its overlay wishes set on the loop)
        self.things = ThingTexts(world)  # the things on the ground's messages (world thread)
        self._thing_texts = {}  # column -> (version, things message) (event loop)
        self._thing_ratio = world.volume.chunk_size / CHUNK_SIZE  # a chunk's edge in things columns
        volume, view = world.volume, world.settings.view_distance
        self._interest = None if view is None else ChunkInterest.of_world(
            tuple(volume.origin), volume.chunk_size * volume.voxel_size, view)
        self._places = {}
        self._own = world.player.name
        self._huds = {}  # player -> (version, whole text, delta text or None)
        self._saving = False
        self._executor: ThreadPoolExecutor | None = None
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # ------------------------------------------------------------------------ the world thread (synchronous)
    def encode_all(self) -> FramePacket:
        """Every current chunk mesh, the frame, the poses and the HUD as they are now (no step), whole: what a
        server starts from (:meth:`FrameEncoder.encode_all`). Runs in the world thread (or before the server
        starts)."""
        return replace(self.encoder.encode_all(), things=self.things.all())

    def step_frame(self, inputs: Inputs | Mapping[str, Inputs], views: Iterable[str] | None = None) -> FramePacket:
        """Step the world one frame with ``inputs`` (the world's own player's, or each player's by name: those not
        given press nothing) and encode what changed (see :class:`FramePacket`): the frame and HUD of the players
        of ``views`` and the world's own (None: those ``inputs`` names, the players pages play). Runs in the world
        thread; callable directly when no server runs (benchmarks)."""
        from ..game.world import Inputs

        start = time.perf_counter()
        if isinstance(inputs, Mapping):
            played = list(inputs)
            self.world.step([inputs.get(name, Inputs()) for name, _ in self.world.players()], 1.0 / self.fps)
        else:
            played = []
            self.world.step(inputs, 1.0 / self.fps)
        stepped = time.perf_counter()
        views = played if views is None else views
        packet = self.encoder.encode_frame((stepped - start) * 1000.0, stepped, views)
        things = self.things.changes()  # None: no things column came, changed or went (the usual frame)
        return packet if things is None else replace(packet, things=things)

    # ------------------------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Encode the world as it is and start the frame loop (the app's lifespan calls this)."""
        self._loop = asyncio.get_running_loop()
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="voxelworld-world")
        self._publish(await self._in_world(self.encode_all))
        self._task = asyncio.create_task(self._run(), name="voxelworld-frames")

    async def stop(self) -> None:
        """Stop the frame loop (after the frame being stepped), end the play (its summary; the world saved when
        there is a save path: :meth:`_end_play`), then stop the world thread."""
        if self._task is not None:
            self._task.cancel()
            with suppress(asyncio.CancelledError):
                await self._task
            self._task = None
            if self.failure is None:
                await self._in_world(self._end_play, "stopped")
        if self._executor is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._executor.shutdown)
            self._executor = None

    @property
    def pages_counted(self) -> int:
        """Pages connected or being greeted (at most :data:`MAX_CLIENTS`): a leaving page keeps its place until it
        is done leaving (the last one ends the play first), after it left :attr:`clients`."""
        return self._pages

    @property
    def stepping(self) -> bool:
        """Whether the frame loop runs (from :meth:`start` to :meth:`stop`, unless the world failed)."""
        return self._task is not None and not self._task.done()

    async def _in_world(self, function: Callable[..., _T], *args: object) -> _T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, function, *args)

    def _take_inputs(self) -> dict[str, Inputs]:
        """Each played player's inputs for the next frame, by name (those no page plays press nothing)."""
        return {name: seat.take_inputs() for name, seat in self.seats.items() if seat.page is not None}

    def _input_acks(self) -> dict[int, int]:
        """The ``seq`` of the newest input of each playing page that gave one, by page: what the frame stepped
        with the inputs taken now acknowledges to it (``frame.input_seq``)."""
        return {page.id: page.input_seq for page in self.clients.values()
                if page.seat is not None and page.input_seq is not None}

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        period = 1.0 / self.fps
        deadline = loop.time()
        while True:
            try:
                inputs, acks = self._take_inputs(), self._input_acks()  # together: no message comes between
                packet = await self._in_world(self.step_frame, inputs)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # a bug in a stage: keep serving, stop stepping
                logger.exception("World.step failed: the world is stopped, the server goes on")
                self.failure = f"the world stopped: {type(error).__name__}: {error}"
                for client in self.clients.values():
                    self._error(client, self.failure)
                return
            self.frames += 1
            self._publish(packet, acks)
            self._expire_seats(loop.time())  # the players whose pages left more than `grace` s ago go
            deadline += period
            delay = deadline - loop.time()
            if delay < -MAX_LAG:
                deadline, delay = loop.time(), 0.0
            await asyncio.sleep(max(delay, 0.0))  # sleep(0) still lets the pages' tasks run

    # ------------------------------------------------------------------------------------- the pages
    async def websocket_endpoint(self, websocket: WebSocket) -> None:
        """A page's connection: hello, then its messages checked and answered until it leaves. (Its Host and
        Origin were checked before it got here: :func:`~voxelworld.viewer.hosts.request_refusal`.)"""
        if self._pages >= MAX_CLIENTS:
            await websocket.accept()
            await refuse_page(websocket, f"too many pages: {MAX_CLIENTS} are connected already", code=1013)
            return
        # Counted before the first await: handshakes arriving together cannot all see a free place.
        self._pages += 1
        try:
            await websocket.accept()
            reason = protocol_refusal(websocket.query_params.get("protocol"))
            if reason is not None:
                await refuse_page(websocket, reason, code=1002)
                return
            await self._serve_page(websocket)
        finally:
            self._pages -= 1


async def _character(request: Request) -> Response:
    """``GET /character.glb``: the packaged CesiumMan (CC BY 4.0, credited in the page)."""
    from starlette.responses import FileResponse

    return FileResponse(CESIUM_MAN, media_type="model/gltf-binary")


# --------------------------------------------------------------------------------------------- textures
TEXTURE_HEADER = struct.Struct("<IIf")  # layers, size, metres a tile covers (web/shaders.js TEXTURE_HEADER_BYTES)


def texture_set_bytes(textures: TextureSet) -> bytes:
    """A :class:`~voxelworld.terrain.textures.TextureSet` as the page reads it from ``/textures.bin``
    (little-endian): u32 layers L, u32 size S, f32 the metres one tile covers (``TEXTURE_METRES``), the albedo
    bytes (L x S x S x 4), the surface bytes (same) and ``layer_of`` as 256 int32.

    >>> from voxelworld.terrain.materials import MaterialTable
    >>> from voxelworld.terrain.textures import texture_set
    >>> textures = texture_set(MaterialTable.default())
    >>> data = texture_set_bytes(textures)
    >>> layers, size, metres = TEXTURE_HEADER.unpack_from(data)
    >>> layers == len(textures.names), size, metres
    (True, 128, 2.0)
    >>> len(data) == TEXTURE_HEADER.size + 2 * 4 * layers * size * size + 4 * 256
    True
    """
    import numpy as np

    from ..terrain.textures import TEXTURE_METRES

    layers, size = textures.albedo.shape[:2]
    return (TEXTURE_HEADER.pack(layers, size, TEXTURE_METRES)
            + np.ascontiguousarray(textures.albedo, np.uint8).tobytes()
            + np.ascontiguousarray(textures.surface, np.uint8).tobytes()
            + np.ascontiguousarray(textures.layer_of, "<i4").tobytes())


def _texture_route(world: World) -> Callable[[Request], Awaitable[Response]]:
    """The ``/textures.bin`` endpoint for ``world``'s material table: made once, on the first request, off the
    event loop."""
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import Response

    made: list[bytes] = []

    def make() -> bytes:
        from ..terrain.textures import texture_set

        return texture_set_bytes(texture_set(world.materials))

    async def textures(request: Request) -> Response:
        if not made:
            made.append(await run_in_threadpool(make))
        return Response(made[0], media_type="application/octet-stream", headers={"Cache-Control": "no-cache"})

    return textures


def create_app(world: World, save_path: str | Path | None = None, host: str = "127.0.0.1",
               players: int = DEFAULT_PLAYERS, grace: float = GRACE_SECONDS, join: JoinCode | None = None
               ) -> Starlette:
    """The Starlette application of ``voxelworld play`` for ``world``: ``/`` the page, ``/ws`` the play
    protocol, ``/character.glb`` the character, ``/textures.bin`` the world's texture set (:func:`texture_set_bytes`).
    The world is stepped from the application's start (lifespan) to its end. The :class:`PlayServer` is
    ``app.state.play``. ``host``: the address the server listens on, which requests may name besides the loopback
    names (:func:`~voxelworld.viewer.hosts.request_refusal`)."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.routing import Mount, Route, WebSocketRoute

    play = PlayServer(world, save_path, players=players, grace=grace)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await play.start()
        try:
            yield
        finally:
            await play.stop()

    app = Starlette(routes=[WebSocketRoute("/ws", play.websocket_endpoint), Route(CHARACTER_URL, _character),
                            Route("/textures.bin", _texture_route(world), methods=["GET"]),
                            Mount("/", app=WebFiles(WEB_DIR))],
                    middleware=[Middleware(ThisServerOnly, host=host, join=join)], lifespan=lifespan)
    app.state.play, app.state.join = play, join
    return app


def bind_socket(host: str = "127.0.0.1", port: int = 8765) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` (0: any free port) and listening, or ParameterError naming what
    failed."""
    port = check_integer("port", port, minimum=0, maximum=65535)
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as error:
        raise ParameterError("host", host, f"a host name or address of this machine ({error})") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)  # connections wait from now on, even before the server accepts them
    except OSError as error:
        sock.close()
        raise ParameterError("port", port, f"a port free on {host} ({error.strerror or error})") from None
    return sock


def lan_address() -> str:
    """This machine's address on its local network (the one its route out uses; no packet is sent), or
    127.0.0.1 when it has none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def _url(sock: socket.socket, host: str) -> str:
    port = sock.getsockname()[1]
    if host in ("0.0.0.0", "", "::"):
        host = "127.0.0.1"
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def _config(app: Starlette, log_level: str = "warning") -> uvicorn.Config:
    import uvicorn

    # permessage-deflate with every page that offers it (browsers do): a page digging among eight players is sent
    # about half the bytes its messages hold (benchmarks/play.py).
    return uvicorn.Config(app, log_level=log_level, lifespan="on", ws_max_size=HARD_MESSAGE_LIMIT,
                          ws_per_message_deflate=True, timeout_graceful_shutdown=2)


def serve(world: World, host: str = "127.0.0.1", port: int = 8765, save_path: str | Path | None = None, *,
          out: TextIO | None = None, log_level: str = "warning", sock: socket.socket | None = None,
          players: int = DEFAULT_PLAYERS, join: JoinCode | None = None) -> None:
    """Serve ``world`` on ``host``:``port`` (127.0.0.1:8765 by default; 0: a free port) until Ctrl+C or
    SIGTERM, printing the page's URL to ``out`` (standard output). Saving writes ``save_path`` (None: off).
    ``sock``: a socket already bound with :func:`bind_socket` to serve on instead (``port`` is then ignored).
    ``players``: pages that play at once; ``join``: a LAN game's join code (the URL printed carries it). A port in
    use or a bad host raise ParameterError before anything runs."""
    import uvicorn

    out = sys.stdout if out is None else out
    app = create_app(world, save_path, host, players, join=join)
    sock = bind_socket(host, port) if sock is None else sock
    url = _url(sock, host) + ("" if join is None else f"?code={join.code}")
    print(f"voxelworld play: open {url} in a browser (Ctrl+C stops)", file=out, flush=True)
    if join is not None:
        print(f"voxelworld play: a LAN game on {host}: up to {players} players join at that address (join code "
              f"{join.code}); a page without the code is refused", file=out, flush=True)
    elif host not in ("127.0.0.1", "localhost", "::1"):
        print(f"voxelworld play: listening on {host}: other machines that reach it can play too (up to "
              f"{players} players) or watch", file=out, flush=True)
    try:
        uvicorn.Server(_config(app, log_level)).run(sockets=[sock])
    finally:
        sock.close()
    print(play_ended_line(app.state.play), file=out, flush=True)


def play_ended_line(play: PlayServer) -> str:
    """What ``voxelworld play`` says as it stops: the play's summary and where the world was saved."""
    if play.ended is None:
        return f"voxelworld play: stopped ({play.failure or 'the world never stepped'}); nothing saved"
    summary, saved = play.ended
    where = f"saved the world to {saved}" if saved is not None else (
        "saving is off" if play.save_path is None else "the save failed (see above)")
    return (f"voxelworld play: the play ended after {summary.frames} frames ({summary.seconds:.1f} s of play, "
            f"{summary.currency:g} currency, {summary.treasures_opened} treasures opened); {where}")


class ServerThread:
    """``voxelworld play`` for ``world`` served from a background thread, for tests and benchmarks::

        with ServerThread(world) as server:      # a free port on 127.0.0.1
            print(server.url, server.play.frames)

    ``play`` is the :class:`PlayServer`; ``stop()`` (or leaving the ``with``) shuts it down and waits."""

    def __init__(self, world: World, host: str = "127.0.0.1", port: int = 0, save_path: str | Path | None = None,
                 log_level: str = "warning", players: int = DEFAULT_PLAYERS, grace: float = GRACE_SECONDS,
                 join: JoinCode | None = None) -> None:
        import uvicorn

        self.app = create_app(world, save_path, host, players, grace, join)
        self.play: PlayServer = self.app.state.play
        self.socket = bind_socket(host, port)
        self.url = _url(self.socket, host)
        self.port = self.socket.getsockname()[1]
        self.server = uvicorn.Server(_config(self.app, log_level))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]},
                                       name="voxelworld-play", daemon=True)

    def start(self, timeout: float = 60.0) -> ServerThread:
        """Start serving; return once the server accepts connections (or raise RuntimeError)."""
        self.thread.start()
        end = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > end:
                self.stop()
                raise RuntimeError("the play server did not start")
            time.sleep(0.02)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.server.should_exit = True
        if self.thread.is_alive():
            self.thread.join(timeout)
        self.socket.close()

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
