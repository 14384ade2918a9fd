"""The play server over real sockets: a uvicorn server in a background thread (``ServerThread``) on a free
127.0.0.1 port, spoken to with the ``websockets`` client and ``http.client``. (Starlette's TestClient needs the
httpx2 package, which is not among voxelworld's dependencies.)

Connect, receive the materials and the chunk meshes, send inputs; bad messages get error replies and the socket
stays usable; the rate and size limits; static files without path traversal; two pages: one plays, the other
watches; saving; overlays; ``voxelworld play`` from the shell, stopped by Ctrl+C."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from websockets.asyncio.client import connect as connect_async
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from voxelworld import cli
from voxelworld.errors import FormatError
from voxelworld.game.events import ActionStarted
from voxelworld.game.world import World
from voxelworld.io import load_world, save_world
from voxelworld.motion import CESIUM_MAN
from voxelworld.viewer import server as server_module
from voxelworld.viewer import sessions as sessions_module
from voxelworld.viewer import streaming
from voxelworld.viewer.frame_encoder import PlayerView
from voxelworld.viewer.frame_messages import merged
from voxelworld.viewer.protocol import (
    CHARACTER_URL,
    KIND_CHUNK,
    KIND_CHUNK_PATCH,
    KIND_COLLISION,
    KIND_NAVMESH,
    KIND_POSES,
    MAX_MESSAGES_PER_SECOND,
    MESH_VERSION,
    PROTOCOL_VERSION,
    decode_chunk_mesh,
    decode_collision_mesh,
    decode_navmesh,
)
from voxelworld.viewer.server import MAX_CLIENTS, WEB_DIR, PlayServer, ServerThread, create_app

TIMEOUT = 15.0  # s: the longest a test waits for one thing


def wait_until(condition, timeout: float = TIMEOUT, what: str = "condition") -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


class Page:
    """A page's websocket: messages read one by one, JSON parsed, binary kept as bytes; a frame or HUD delta is
    laid over the one before (as the page does), so each ``frame`` and ``hud`` read is whole."""

    def __init__(self, server: ServerThread, origin: str | None = None):
        self._context = connect(server.url.replace("http://", "ws://") + "ws", open_timeout=TIMEOUT,
                                max_size=None, max_queue=None, origin=origin)  # read all: quick closes
        self.socket = self._context.__enter__()
        self.seen: list = []
        self.frame: dict | None = None
        self.hud: dict | None = None

    def recv(self, timeout: float = TIMEOUT):
        data = self.socket.recv(timeout=timeout)
        message = data if isinstance(data, bytes) else json.loads(data)
        if isinstance(message, dict) and message["type"] == "frame":
            state = {k: v for k, v in (self.frame or {}).items() if k not in ("events", "events_dropped")}
            message = self.frame = merged(state, message)
        elif isinstance(message, dict) and message["type"] == "hud":
            message = self.hud = merged(self.hud, message)
        self.seen.append(message)
        return message

    def until(self, predicate, timeout: float = TIMEOUT):
        """Read until a message satisfies ``predicate``; return it."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                kinds = [m[0] if isinstance(m, bytes) else m["type"] for m in self.seen[-20:]]
                raise AssertionError(f"no such message within {timeout} s; the last ones: {kinds}")
            try:
                message = self.recv(left)
            except TimeoutError:
                continue
            if predicate(message):
                return message

    def json(self, kind: str, timeout: float = TIMEOUT) -> dict:
        return self.until(lambda m: isinstance(m, dict) and m["type"] == kind, timeout)

    def error(self, timeout: float = TIMEOUT) -> str:
        return self.json("error", timeout)["error"]

    def send(self, message) -> None:
        self.socket.send(message if isinstance(message, (str, bytes)) else json.dumps(message))

    def close(self) -> None:
        self._context.__exit__(None, None, None)


def is_frame(message) -> bool:
    return isinstance(message, dict) and message["type"] == "frame"


@pytest.fixture(scope="module")
def world():
    return World.demo(seed=0)


@pytest.fixture(scope="module")
def server(world):
    with ServerThread(world, grace=0.0) as running:  # a page's player goes as the page does (a test of its own
        yield running                                 # gives it a grace period)


@pytest.fixture
def pages(server):
    """Open pages with ``pages(n)``; all are closed after the test and the server has seen them leave."""
    opened: list[Page] = []

    def open_pages(count: int = 1, **options) -> list[Page]:
        new = [Page(server, **options) for _ in range(count)]
        opened.extend(new)
        return new

    yield open_pages
    for page in opened:
        page.close()
    wait_until(lambda: not server.play.clients and not server.play.seats and not server.play.world.joined,
               what="the server to see every page and its player leave")


# ----------------------------------------------------------------------------------------- connecting
def test_connect_gets_hello_materials_chunks_frames_and_hud(server, world, pages):
    (page,) = pages(1)
    hello = page.recv()
    assert hello["type"] == "hello" and hello["protocol"] == PROTOCOL_VERSION and hello["seats"] == 8
    assert {(m["id"], m["name"]) for m in hello["materials"]} == {(m.id, m.name) for m in world.materials}
    assert hello["limits"]["messages_per_second"] == MAX_MESSAGES_PER_SECOND
    control = page.json("control")
    assert control["you"] is True and control["name"] == "player" and control["players"] == ["player"]
    assert len(control["token"]) == 64
    chunks = {}
    frame = page.until(lambda m: is_frame(m) or (isinstance(m, bytes) and m[0] == KIND_CHUNK and chunks.setdefault(
        decode_chunk_mesh(m)[0], decode_chunk_mesh(m)[2].display_mesh()) is None))
    assert frame["frame"] >= hello["frame"]
    lo, hi = (tuple(b) for b in hello["world"]["bounds"])
    assert len(chunks) >= 30  # every chunk with a surface (the enemy may be re-cutting a few meanwhile)
    for chunk, mesh in chunks.items():
        assert all(0 <= c < n for c, n in zip(chunk, hello["world"]["chunks"]))
        assert mesh.triangle_count > 0 and mesh.indices.max() < len(mesh.positions)
        assert (mesh.positions.min(axis=0) >= [v - 1 for v in lo]).all()
        assert (mesh.positions.max(axis=0) <= [v + 1 for v in hi]).all()
        assert len(mesh.occlusion) == len(mesh.positions) and 0.0 <= mesh.occlusion.min() <= 1.0
    assert min(float(mesh.occlusion.min()) for mesh in chunks.values()) < 0.9  # the wall's foot, the slopes
    assert {m["name"] for m in hello["materials"]} >= {world.materials.name_by_id[int(i)]
                                                      for mesh in chunks.values() for i in set(mesh.mat_a.tolist())}
    hud = next(m for m in page.seen if isinstance(m, dict) and m["type"] == "hud")  # sent before the frame
    assert {"aim", "stamina", "gauge", "bullets", "achievements"} <= set(hud)
    # Frames keep coming, about 60 a second.
    first = page.until(is_frame)["frame"]
    start = time.monotonic()
    last = first
    while time.monotonic() - start < 0.5:
        last = page.until(is_frame)["frame"]
    assert last - first >= 10


def test_each_frame_is_its_poses_then_its_state_as_deltas(server, world, pages):
    """Version 3: every frame is a binary poses message followed by the frame's JSON; after the first whole one a
    page that keeps up gets deltas (``base`` the frame before) whose poses carry only the joints that moved."""
    (page,) = pages(1)
    page.json("hello")
    deltas = 0
    for _ in range(30):
        frame = page.until(is_frame)
        poses = page.seen[-2]
        assert isinstance(poses, bytes) and poses[0] == KIND_POSES and poses[1] == MESH_VERSION
        number, base = struct.unpack_from("<II", poses, 4)
        assert number == frame["frame"]
        if frame["base"] is not None:
            deltas += 1
            assert base == frame["base"] == frame["frame"] - 1
        assert {"player", "objects", "time", "step_ms"} <= set(frame)  # whole once laid over the one before
    assert deltas >= 20


def test_a_page_of_another_protocol_version_is_told_why_and_closed(server):
    with connect(server.url.replace("http://", "ws://") + "ws?protocol=2", open_timeout=TIMEOUT) as socket_:
        message = json.loads(socket_.recv(timeout=TIMEOUT))
        assert message["type"] == "error"
        assert f"this page speaks play protocol '2' and this server {PROTOCOL_VERSION}: reload" in message["error"]
        with pytest.raises(ConnectionClosed) as closed:
            socket_.recv(timeout=TIMEOUT)
    assert closed.value.rcvd.code == 1002
    with connect(server.url.replace("http://", "ws://") + f"ws?protocol={PROTOCOL_VERSION}",
                 open_timeout=TIMEOUT, max_size=None) as socket_:
        assert json.loads(socket_.recv(timeout=TIMEOUT))["type"] == "hello"


def test_the_server_compresses_what_it_sends_a_page_that_offers_it(server):
    """permessage-deflate, as browsers offer it (and the websockets client does): the figures of what a page is
    sent on the wire (benchmarks/play.py) count on it; a client that offers none is sent its messages as they are."""
    url = server.url.replace("http://", "ws://") + "ws"
    with connect(url, open_timeout=TIMEOUT, max_size=None) as offering:
        assert "permessage-deflate" in offering.response.headers.get("Sec-WebSocket-Extensions", "")
        assert json.loads(offering.recv(timeout=TIMEOUT))["type"] == "hello"
    with connect(url, open_timeout=TIMEOUT, max_size=None, compression=None) as plain:
        assert "Sec-WebSocket-Extensions" not in plain.response.headers
        assert json.loads(plain.recv(timeout=TIMEOUT))["type"] == "hello"


def test_inputs_move_the_player_and_a_short_press_counts(server, world, pages):
    (page,) = pages(1)
    assert page.json("control")["you"]
    start = page.until(is_frame)["player"]["position"]
    page.send({"type": "input", "move": [0, 1], "look": [270, 0], "held": []})
    moved = page.until(lambda m: is_frame(m) and m["player"]["position"][0] > start[0] + 1.0)  # yaw 270: +x
    page.send({"type": "input", "move": [0, 0], "look": [270, 0], "held": []})
    assert moved["player"]["yaw"] == pytest.approx(270.0)
    assert abs(moved["player"]["position"][2] - start[2]) < 0.2
    # A press released before the next frame is still one frame long.
    punches = sum(1 for e in list(world.events) if isinstance(e, ActionStarted) and e.action == "punch")
    page.send({"type": "input", "move": [0, 0], "look": [270, -40], "held": ["punch"]})
    page.send({"type": "input", "move": [0, 0], "look": [270, -40], "held": []})
    wait_until(lambda: sum(1 for e in list(world.events) if isinstance(e, ActionStarted) and e.action == "punch")
               > punches, what="the punch")


def test_sucking_streams_changed_chunks_and_bullets(server, world, pages):
    (page,) = pages(1)
    page.json("hello")
    page.until(is_frame)
    page.send({"type": "input", "move": [0, 0], "look": [270, -35], "held": ["suck"]})
    bullets = page.until(lambda m: isinstance(m, dict) and m["type"] == "hud" and len(m["bullets"]) >= 2)
    page.send({"type": "input", "move": [0, 0], "look": [270, -35], "held": []})
    assert all(isinstance(b, str) for b in bullets["bullets"])
    assert bullets["gauge"] < 1
    chunk_messages = [m for m in page.seen if isinstance(m, bytes) and m[0] in (KIND_CHUNK, KIND_CHUNK_PATCH)]
    assert len(chunk_messages) > 40  # the first batch and the chunks remeshed as the ground was sucked
    assert any(m[0] == KIND_CHUNK_PATCH for m in chunk_messages)  # sent as what changed


# ------------------------------------------------------------------------------------------ bad messages
BAD_MESSAGES = [
    ("garbage", "not JSON"),
    (b"\x00\x01binary", "binary messages are not accepted"),
    ("x" * 100_000, "message too long"),
    ('{"type": "input", "move": "fast"}', 'move = "fast" is out of range'),
    ('{"type": "input", "move": [0, NaN]}', "NaN is not allowed"),
    ('{"type": "input", "look": [Infinity, 0]}', "Infinity is not allowed"),
    ('{"type": "input", "look": [0, 1e999]}', "look[1] = inf is out of range"),
    ('{"type": "warp", "to": [0, 0, 0]}', 'type = "warp" is out of range'),
    ('{"type": "input", "held": ["fly"]}', 'held[0] = "fly" is out of range'),
    ("[]", "must be a JSON object"),
    ("[" * 30000, "nested too deeply"),
    ('{"type": "ping", "id": 1, "boom": true}', "unknown field 'boom'"),
    ('{"type": "ping", "type": "save"}', 'duplicate field "type"'),  # not a save in disguise
    ('{"type": "input", "move": [' + "9" * 309 + ", 0]}", "move[0] = 9999"),  # once dropped the session unanswered
    ('{"type": "input", "look": [0, -' + "9" * 4000 + "]}", "look[1] = -9999"),
]


def test_bad_messages_get_error_replies_and_the_session_goes_on(server, pages):
    (page,) = pages(1)
    page.json("hello")
    for data, says in BAD_MESSAGES:
        page.send(data)
        assert says in page.error(), data[:40]
    page.send({"type": "ping", "id": 42})
    pong = page.json("pong")
    assert pong["id"] == 42
    first = page.until(is_frame)["frame"]
    assert page.until(lambda m: is_frame(m) and m["frame"] > first + 5)
    assert server.play.failure is None and server.thread.is_alive()


def test_a_message_the_checker_fails_on_gets_an_error_reply_and_the_session_goes_on(server, pages, monkeypatch):
    """Whatever a message makes the server raise, the page is answered and its session kept (the spec: a bad
    message never closes a session); an OverflowError from a huge integer once dropped it without a word."""
    (page,) = pages(1)
    page.json("hello")

    def failing(text):
        raise OverflowError("int too large to convert to float")

    monkeypatch.setattr(sessions_module, "parse_client_message", failing)
    page.send({"type": "ping", "id": 1})
    assert "internal error handling the message: OverflowError" in page.error()
    monkeypatch.undo()
    page.send({"type": "ping", "id": 2})
    assert page.json("pong")["id"] == 2


def test_rate_limit(server, pages):
    (page,) = pages(1)
    page.json("hello")
    start = time.monotonic()
    for n in range(3 * MAX_MESSAGES_PER_SECOND):
        page.send({"type": "ping", "id": n})
    sent_in = time.monotonic() - start
    time.sleep(1.1)  # the bucket refills: the page may talk again
    page.send({"type": "ping", "id": 9999})
    pongs = errors = 0
    while True:
        message = page.recv()
        if isinstance(message, dict) and message["type"] == "pong":
            if message["id"] == 9999:
                break
            pongs += 1
        elif isinstance(message, dict) and message["type"] == "error":
            assert "rate limit" in message["error"] and "dropped" in message["error"]
            errors += 1
    assert errors > 0
    assert pongs <= MAX_MESSAGES_PER_SECOND * (1 + sent_in) + 2
    # Every message is answered at most once; how many errors a page is sent depends on how fast the server's
    # sender drains them (the queue's bound: test_error_replies_beyond_the_queue_are_counted_not_queued).
    assert pongs + errors <= 3 * MAX_MESSAGES_PER_SECOND


def test_error_replies_beyond_the_queue_are_counted_not_queued(world):
    play = PlayServer(world)
    client = streaming.Page(1, websocket=None)
    for n in range(streaming.ERRORS_QUEUED + 36):
        play._error(client, f"bad message {n}")
    assert client.errors_queued == len(client.outbox) == streaming.ERRORS_QUEUED
    assert client.errors_dropped == 36


def test_a_message_over_the_hard_limit_closes_only_its_connection(server, pages):
    big, other = pages(2)
    big.json("hello")
    big.send("x" * (2 * 1024 * 1024))
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            big.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    other.send({"type": "ping", "id": 1})
    assert other.json("pong")["id"] == 1


# ------------------------------------------------------------------------------------ two pages
def is_control(message) -> bool:
    return isinstance(message, dict) and message["type"] == "control"


def test_two_pages_play_two_players_and_a_page_that_gives_its_up_watches(server, world, pages):
    a, b = pages(2)
    control_a, control_b = (page.until(lambda m: is_control(m) and m["you"]) for page in (a, b))
    assert (control_a["name"], control_b["name"]) == ("player", "player-2") and control_a["token"] != control_b["token"]
    assert [name for name, _ in world.players()] == ["player", "player-2"]
    # Each moves its own: b walks, a stands.
    start_a, start_b = a.until(is_frame)["player"]["position"], b.until(is_frame)["player"]["position"]
    b.send({"type": "input", "move": [0, 1], "look": [0, 0], "held": []})
    moved = b.until(lambda m: is_frame(m) and abs(m["player"]["position"][2] - start_b[2]) > 1.0)
    assert moved["player"]["name"] == "player-2"
    assert a.until(is_frame)["player"]["position"][::2] == pytest.approx(start_a[::2], abs=0.05)
    b.send({"type": "input", "move": [0, 0], "look": [0, 0], "held": []})
    # b gives its player up: the player leaves the world, b watches (the world's own player's view).
    b.send({"type": "release"})
    assert b.until(lambda m: is_control(m) and not m["you"])["players"] == ["player"]
    wait_until(lambda: [name for name, _ in world.players()] == ["player"], what="player-2 to leave the world")
    b.send({"type": "input", "move": [0, 1], "look": [0, 0], "held": ["suck"]})
    assert "input ignored" in b.error()
    b.send({"type": "release"})
    assert "does not play" in b.error()
    b.send({"type": "save"})
    assert "save refused" in b.error()
    assert b.until(lambda m: is_frame(m) and m["player"]["name"] == "player")  # it watches the world's own
    b.send({"type": "control", "name": "Bea"})
    assert b.until(lambda m: is_control(m) and m["you"])["name"] == "Bea"
    b.send({"type": "control", "name": "<b>"})
    assert "name" in b.error()


def test_a_server_of_one_player_lets_one_page_play_and_the_others_watch(world):
    small = World.demo(seed=1, npcs=0)
    with ServerThread(small, players=1, grace=0.0) as one:
        a, b = Page(one), Page(one)
        try:
            assert a.until(lambda m: is_control(m) and m["you"]) and not b.until(is_control)["you"]
            b.send({"type": "control"})
            assert "control refused: 1 players are taken" in b.error()
            b.send({"type": "input", "move": [0, 1]})
            assert "all 1 players are taken" in b.error()
            a.close()  # its player goes: b may play
            assert b.until(lambda m: is_control(m) and m["players"] == [])
            wait_until(lambda: not one.play.seats, what="a's player to go")
            b.send({"type": "control"})
            assert b.until(lambda m: is_control(m) and m["you"])["name"] == "player"
        finally:
            b.close()


def test_too_many_pages(server, pages):
    opened = pages(MAX_CLIENTS)
    for page in opened:
        page.json("hello")
    (extra,) = pages(1)
    assert "too many pages" in extra.error()
    with pytest.raises(ConnectionClosed):
        while True:
            extra.recv()


def test_pages_connecting_together_cannot_pass_the_limit(server, pages):
    """Three times the limit connect at once (to 127.0.0.1, each step bounded by TIMEOUT): exactly MAX_CLIENTS
    get hello, the others are told why and closed; the world goes on and a page connecting afterwards plays."""
    count = 3 * MAX_CLIENTS
    uri = server.url.replace("http://", "ws://") + "ws"
    wait_until(lambda: server.play.pages_counted == 0, what="the earlier tests' pages to leave their places")

    async def connect_together() -> list:
        firsts: list = []
        everyone_has_read = asyncio.Event()

        async def one():
            async with connect_async(uri, open_timeout=TIMEOUT, max_size=None, max_queue=None) as page:
                first = json.loads(await asyncio.wait_for(page.recv(), TIMEOUT))
                firsts.append(first)
                if len(firsts) == count:
                    everyone_has_read.set()
                if first["type"] == "hello":  # stay until every page has been answered
                    await asyncio.wait_for(everyone_has_read.wait(), TIMEOUT)
                    return first, None, None
                with pytest.raises(ConnectionClosed):
                    while True:
                        await asyncio.wait_for(page.recv(), TIMEOUT)
                return first, page.close_code, page.close_reason

        return await asyncio.gather(*(one() for _ in range(count)))

    answers = asyncio.run(connect_together())
    greeted = [first for first, _, _ in answers if first["type"] == "hello"]
    refused = [(first, code, reason) for first, code, reason in answers if first["type"] != "hello"]
    assert len(greeted) == MAX_CLIENTS and len(refused) == count - MAX_CLIENTS
    assert len({first["client"] for first in greeted}) == MAX_CLIENTS
    for first, code, reason in refused:
        assert first["type"] == "error" and "too many pages" in first["error"]
        assert code == 1013 and "too many pages" in reason
    wait_until(lambda: server.play.pages_counted == 0, what="the pages to leave their places")
    (page,) = pages(1)
    assert page.json("control")["you"] is True
    first = page.until(is_frame)["frame"]
    assert page.until(lambda m: is_frame(m) and m["frame"] > first + 5)
    assert server.play.failure is None


def test_pages_from_another_site_are_refused(server, pages):
    with pytest.raises(InvalidStatus) as refused:
        Page(server, origin="http://evil.example")
    assert refused.value.response.status_code == 403
    (page,) = pages(1, origin=server.url.rstrip("/"))  # the page's own origin
    assert page.json("hello")["type"] == "hello"


def handshake(server: ServerThread, host: str, origin: str | None) -> Page:
    """A page whose handshake names ``host`` (its Host header) and ``origin``; the socket goes to 127.0.0.1
    whatever ``host`` says, as a rebound DNS name would."""
    page = Page.__new__(Page)
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT)
    page._context = connect(f"ws://{host}/ws", sock=sock, origin=origin, open_timeout=TIMEOUT, max_size=None,
                            max_queue=None)
    try:
        page.socket = page._context.__enter__()
    except BaseException:
        sock.close()
        raise
    page.seen = []
    return page


# (Host, Origin) of requests that do not come from this server's page; PORT: the server's port.
FOREIGN = [
    ("evil.example:PORT", "http://evil.example:PORT"),  # DNS rebinding: evil.example resolves to 127.0.0.1
    ("evil.example:PORT", None),
    ("evil.example", "http://evil.example"),
    ("localhost.evil.example:PORT", "http://localhost.evil.example:PORT"),
    ("127.0.0.1.evil.example:PORT", "http://127.0.0.1.evil.example:PORT"),
    ("10.1.2.3:PORT", "http://10.1.2.3:PORT"),  # an address of another machine, not the --host
    ("localhost:PORT", "http://evil.example"),
    ("localhost:PORT", "http://localhost:1"),  # another server on this machine
    ("localhost:PORT", "http://127.0.0.1:PORT"),  # another origin, though the same server
    ("localhost:PORT", "null"),
    ("localhost:PORT", "file://"),
    ("localhost:PORT", "ws://localhost:PORT"),
]
# Requests from this server's own page (or from a script: no Origin).
LOCAL = [
    ("127.0.0.1:PORT", "http://127.0.0.1:PORT"),
    ("localhost:PORT", "http://localhost:PORT"),
    ("LocalHost:PORT", "http://localhost:PORT"),
    ("[::1]:PORT", "http://[::1]:PORT"),
    ("127.9.8.7:PORT", "http://127.9.8.7:PORT"),
    ("localhost", "http://localhost"),  # a port forwarded from 80
    ("localhost:PORT", None),
]


def _port(server: ServerThread, host: str | None) -> str | None:
    return None if host is None else host.replace("PORT", str(server.port))


def test_the_character_is_served(server):
    status, body, kind = get(server, CHARACTER_URL)
    assert status == 200 and kind == "model/gltf-binary"
    assert body == CESIUM_MAN.read_bytes() and body[:4] == b"glTF"


@pytest.mark.parametrize("host, origin", FOREIGN, ids=[f"foreign{n}" for n in range(len(FOREIGN))])
def test_foreign_hosts_and_origins_get_no_websocket(server, pages, host, origin):
    try:
        handshake(server, _port(server, host), _port(server, origin)).close()
    except InvalidStatus as refused:
        response = refused.response
    else:
        pytest.fail(f"a page with Host {host!r} and Origin {origin!r} was let in")
    assert response.status_code == 403
    assert b"Host" in response.body if "evil" in host or "10.1" in host else b"Origin" in response.body
    assert not server.play.clients
    (page,) = pages(1)  # the server goes on for its own page
    assert page.json("hello")["type"] == "hello"


@pytest.mark.parametrize("host, origin", LOCAL, ids=[f"local{n}" for n in range(len(LOCAL))])
def test_this_servers_own_page_connects_by_any_loopback_name(server, host, origin):
    page = handshake(server, _port(server, host), _port(server, origin))
    try:
        assert page.json("hello")["type"] == "hello"
    finally:
        page.close()
    wait_until(lambda: not server.play.clients, what="the page to leave")


# ---------------------------------------------------------------------------------- overlays and saving
def test_overlays_stream_the_navmesh_and_the_collision_mesh(server, world, pages):
    (page,) = pages(1)
    page.json("hello")
    page.send({"type": "overlays", "navmesh": True})
    data = page.until(lambda m: isinstance(m, bytes) and m[0] == KIND_NAVMESH)
    revision, vertices, indices, level = decode_navmesh(data)
    assert len(indices) > 100 and indices.max() < len(vertices) and revision >= 0
    page.send({"type": "overlays", "collision": True})
    serial, positions, triangles, material = decode_collision_mesh(
        page.until(lambda m: isinstance(m, bytes) and m[0] == KIND_COLLISION))
    assert len(triangles) > 100 and set(material.tolist()) <= {m.id for m in world.materials}
    page.send({"type": "overlays", "navmesh": False, "collision": False})
    page.send({"type": "ping", "id": 3})
    page.json("pong")
    assert not server.play.encoder.want_navmesh and not server.play.encoder.want_collision


def test_save_writes_the_world_file_and_reports_failures(server, world, pages, tmp_path, monkeypatch):
    (page,) = pages(1)
    page.json("hello")
    assert server.play.save_path is None
    page.send({"type": "save"})
    assert "saving is off" in page.error()
    target = tmp_path / "w.vwd"
    monkeypatch.setattr(server.play, "save_path", str(target))
    page.send({"type": "save"})
    saved = page.json("saved")
    assert saved["path"] == str(target)
    loaded = load_world(target)  # a real world file, saved between two frames
    assert loaded.frame > 0 and loaded.volume.shape == world.volume.shape

    def broken(world, path):
        raise FormatError(f"{path}: the disk said no")

    monkeypatch.setattr(sessions_module, "save_world", broken)
    page.send({"type": "save"})
    assert "save failed" in (error := page.error()) and "the disk said no" in error
    page.send({"type": "ping", "id": 5})
    assert page.json("pong")["id"] == 5


# ------------------------------------------------------------------------------------- static files
def get(server: ServerThread, path: str, host: str | None = None,
        origin: str | None = None) -> tuple[int, bytes, str]:
    """GET ``path`` from the server (at 127.0.0.1), naming ``host`` in the Host header (default: 127.0.0.1:port)
    and ``origin`` in an Origin header (default: none)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=TIMEOUT)
    try:
        connection.putrequest("GET", path, skip_host=host is not None, skip_accept_encoding=True)
        if host is not None:
            connection.putheader("Host", host)
        if origin is not None:
            connection.putheader("Origin", origin)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read(), response.getheader("content-type", "")
    finally:
        connection.close()


def test_the_page_and_its_scripts_are_served(server):
    status, body, kind = get(server, "/")
    assert status == 200 and kind.startswith("text/html") and b'src="./app.js"' in body
    for name in ("app.js", "hud.js", "shaders.js"):
        status, body, kind = get(server, f"/{name}")
        assert status == 200 and "javascript" in kind and body == (WEB_DIR / name).read_bytes()
    if (WEB_DIR / "vendor" / "three.module.js").is_file():
        status, body, kind = get(server, "/vendor/three.module.js")
        assert status == 200 and "javascript" in kind
    assert get(server, "/nothing-here.js")[0] == 404
    assert get(server, "/vendor/")[0] == 404  # no listings


def test_the_texture_set_is_served(server, world):
    """``/textures.bin``: the world's texture set, read here by the layout docs/play.md gives (u32 L, u32 S,
    f32 metres a tile covers, albedo, surface, 256 int32 layer_of), each material id drawing the layer of its
    texture's name."""
    import numpy as np

    from voxelworld.terrain.textures import TEXTURE_METRES, texture_set

    status, body, kind = get(server, "/textures.bin")
    assert status == 200 and kind == "application/octet-stream"
    layers, size = (int(v) for v in np.frombuffer(body[:8], "<u4"))
    expected = texture_set(world.materials)
    assert (layers, size) == (len(expected.names), expected.albedo.shape[1])
    image = layers * size * size * 4
    assert len(body) == 12 + 2 * image + 4 * 256
    assert np.frombuffer(body[8:12], "<f4")[0] == np.float32(TEXTURE_METRES)
    albedo = np.frombuffer(body[12:12 + image], np.uint8).reshape(layers, size, size, 4)
    surface = np.frombuffer(body[12 + image:12 + 2 * image], np.uint8).reshape(layers, size, size, 4)
    layer_of = np.frombuffer(body[12 + 2 * image:], "<i4")
    assert np.array_equal(albedo, expected.albedo) and np.array_equal(surface, expected.surface)
    for material in world.materials:
        assert expected.names[layer_of[material.id]] == material.texture, material.name
    assert layer_of[0] == -1
    assert get(server, "/textures.bin")[1] == body  # made once, the same bytes
    page = re.search(r"TEXTURE_HEADER_BYTES = (\d+);", (WEB_DIR / "shaders.js").read_text(encoding="utf-8"))
    assert int(page.group(1)) == server_module.TEXTURE_HEADER.size == 12  # the page reads the header written


@pytest.mark.parametrize("host, origin", FOREIGN, ids=[f"foreign{n}" for n in range(len(FOREIGN))])
def test_foreign_hosts_and_origins_get_no_files(server, host, origin):
    for path in ("/", "/app.js", "/textures.bin"):
        status, body, kind = get(server, path, _port(server, host), _port(server, origin))
        assert status == 403 and kind.startswith("text/plain"), (path, status)
        assert b"is not" in body and len(body) < 300 and b"<html" not in body.lower()
    assert get(server, "/app.js")[0] == 200


@pytest.mark.parametrize("host, origin", LOCAL, ids=[f"local{n}" for n in range(len(LOCAL))])
def test_local_hosts_get_the_page(server, host, origin):
    status, body, _ = get(server, "/", _port(server, host), _port(server, origin))
    assert status == 200 and b'src="./app.js"' in body


def test_the_chosen_host_is_accepted_besides_the_loopback_names(world):
    """create_app's ``host`` (``voxelworld play --host``) is the one more name a request may carry; the ASGI
    application is called directly (no socket on another address)."""

    def status(app, host: str) -> int:
        sent: list = []
        incoming = [{"type": "http.request", "body": b"", "more_body": False}]

        async def receive():  # the request, then the client leaves
            return incoming.pop() if incoming else {"type": "http.disconnect"}

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"},
                 "http_version": "1.1", "method": "GET",
                 "scheme": "http", "path": "/app.js", "raw_path": b"/app.js", "query_string": b"",
                 "root_path": "", "headers": [(b"host", host.encode())], "client": ("127.0.0.1", 5),
                 "server": ("127.0.0.1", 8765)}
        asyncio.run(app(scope, receive, send))
        return sent[0]["status"]

    named = create_app(world, host="mybox.lan")
    assert [status(named, h) for h in ("mybox.lan:8765", "localhost:8765", "otherbox.lan:8765", "10.0.0.5")] \
        == [200, 200, 403, 403]
    everywhere = create_app(world, host="0.0.0.0")
    assert [status(everywhere, h) for h in ("10.0.0.5:8765", "[fe80::1]:8765", "mybox.lan:8765")] == [200, 200, 403]
    assert status(create_app(world), "mybox.lan:8765") == 403


TRAVERSALS = ["/../server.py", "/%2e%2e/server.py", "/%2E%2E/protocol.py", "/..%2fserver.py", "/vendor/../../server.py",
              "/vendor/%2e%2e/%2e%2e/server.py", "/vendor/..%2f..%2fserver.py", "/..\\server.py", "/%5c..%5cserver.py",
              "//etc/passwd", "/%2fetc/passwd", "/%2Fetc%2Fpasswd", "/../../../../../../etc/passwd",
              "/..%00/server.py", "/./../server.py", "/%252e%252e/server.py", "/web/../../viewer/server.py",
              str(WEB_DIR.parent / "server.py"), "/" + str(WEB_DIR.parent / "server.py")]


@pytest.mark.parametrize("path", TRAVERSALS)
def test_no_path_leaves_the_web_folder(server, path):
    status, body, _ = get(server, path)
    assert status in (400, 404), (path, status)
    assert b"PlayServer" not in body and b"root:" not in body


# --------------------------------------------------------------------------------------- the world stops
def test_a_failing_step_stops_the_world_not_the_server(monkeypatch):
    world = World.demo(seed=1, npcs=0)
    calls = []

    def failing(inputs=None, dt=1 / 60):
        calls.append(dt)
        if len(calls) > 3:
            raise RuntimeError("a stage broke")
        return World.step(world, inputs, dt)

    monkeypatch.setattr(world, "step", failing)
    with ServerThread(world) as server:
        page = Page(server)
        try:
            page.json("hello")
            assert "the world stopped: RuntimeError: a stage broke" in page.error()
            page.send({"type": "ping", "id": 1})
            assert page.json("pong")["id"] == 1
        finally:
            page.close()
        assert server.play.frames == 3 and server.play.failure


def test_create_app_wants_a_world():
    with pytest.raises(Exception, match="world"):
        create_app(object())
    with pytest.raises(Exception, match="fps"):
        PlayServer(World.demo(seed=0, npcs=0), fps=0)


# --------------------------------------------------------------------------------------- the command
@pytest.mark.parametrize("from_file", [False, True], ids=["demo world", "--world file"])
def test_cli_play_serves_until_ctrl_c(tmp_path, from_file):
    arguments = ["play", "--port", "0"]
    if from_file:
        save_world(World.demo(seed=1, npcs=0), tmp_path / "mine.vwd")
        arguments += ["--world", "mine.vwd"]
    env = dict(os.environ, PYTHONPATH=str(Path(cli.__file__).parents[2]) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    process = subprocess.Popen([sys.executable, "-m", "voxelworld.cli", *arguments], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        lines = []
        while True:
            line = process.stdout.readline()
            assert line, "the command ended before printing its URL: " + "".join(lines)
            lines.append(line)
            if "http://" in line:
                break
        assert any(f"writes {'mine.vwd' if from_file else 'world.vwd'}" in line for line in lines)
        assert any("loading mine.vwd" in line for line in lines) == from_file
        url = line.split("open ", 1)[1].split()[0]
        host, port = url[len("http://"):].rstrip("/").split(":")
        assert host == "127.0.0.1"
        connection = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
        connection.request("GET", "/")
        assert connection.getresponse().status == 200
        connection.close()
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, out
    assert "voxelworld play: stopped" in out and "Traceback" not in out


def test_cli_play_refuses_a_missing_world_file(tmp_path, capsys):
    assert cli.main(["play", "--world", str(tmp_path / "missing.vwd")]) == 2
    assert "--world" in capsys.readouterr().err


def test_cli_play_refuses_a_port_in_use_before_building_the_world(capsys, monkeypatch):
    import socket

    built = []
    monkeypatch.setattr(World, "demo", classmethod(lambda cls, **kw: built.append(kw)))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert cli.main(["play", "--port", str(port)]) == 2
    error = capsys.readouterr().err
    assert f"--port = {port} is out of range" in error and "in use" in error
    assert built == []
    assert cli.main(["play", "--port", "70000"]) == 2
    assert "--port = 70000" in capsys.readouterr().err


class _RecordingSocket:
    """Stands in for a page's websocket: keeps what is sent to it."""

    def __init__(self):
        self.sent: list = []

    async def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))

    async def send_bytes(self, data: bytes) -> None:
        self.sent.append(data)


def _packet(frame: int, events: list) -> server_module.FramePacket:
    message = {"type": "frame", "frame": frame, "events": events, "events_dropped": 0}
    events_text = None if not events else json.dumps({"type": "events", "frame": frame, "events": events,
                                                      "events_dropped": 0})
    view = PlayerView(json.dumps(message), events_text=events_text)  # (each view its own events: pose_views)
    return server_module.FramePacket(frame, {"player": view}, {}, None, None, 0.0, 0.0, events_text)


def test_a_page_that_falls_behind_still_gets_every_frames_events(world):
    """Frames published faster than a page is sent them: the page gets the latest frame, and the events of the
    frames it skipped as ``events`` messages before it, in order, none twice."""
    play = PlayServer(world)
    socket_ = _RecordingSocket()

    async def run() -> None:
        client = streaming.Page(1, socket_)
        play.clients[client.id] = client
        blocked = [{"event": "blocked", "action": "punch", "reason": "out_of_reach", "text": "out of reach"}]
        step = [{"event": "footstep", "position": [0, 0, 0], "material": "grass", "sound": "grass"}]
        play._publish(_packet(1, blocked))  # the page is sent nothing in between: it skips frames 1 to 3
        play._publish(_packet(2, []))
        play._publish(_packet(3, step))
        play._publish(_packet(4, step))
        sender = asyncio.create_task(play._send_loop(client))
        await asyncio.sleep(0.05)
        play._publish(_packet(5, blocked))  # sent in time: its events come with the frame only
        await asyncio.sleep(0.05)
        sender.cancel()

    asyncio.run(run())
    kinds = [(m["type"], m["frame"]) for m in socket_.sent if isinstance(m, dict)]
    assert kinds == [("events", 1), ("events", 3), ("frame", 4), ("frame", 5)]
    assert socket_.sent[0]["events"][0]["reason"] == "out_of_reach"
