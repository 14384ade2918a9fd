"""Play together (issue #35): four pages play four players of one world on a real uvicorn server, each sees the
others' characters and digging, a page killed mid-session gets its player back with its resume token, tokens that
are wrong or stale are refused and counted, and the order pages' messages arrive in within a frame changes
nothing."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import numpy as np
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from voxelworld.game.events import log_hash
from voxelworld.game.world import Inputs, World
from voxelworld.viewer.frame_encoder import ChunkUpdate, FramePacket, PlayerView
from voxelworld.viewer.frame_messages import merged
from voxelworld.viewer.handshake import new_join_code
from voxelworld.viewer.page_seats import PageSeat
from voxelworld.viewer.protocol import KIND_CHUNK, KIND_CHUNK_PATCH, KIND_POSES, InputMessage, decode_poses
from voxelworld.viewer.server import PlayServer, ServerThread
from voxelworld.viewer.streaming import Page as ServerPage

TIMEOUT = 20.0


class Client:
    """A headless page: its messages read in order, frames and HUD merged as the page merges them, poses decoded
    against the last ones."""

    def __init__(self, server: ServerThread, query: str = ""):
        url = server.url.replace("http://", "ws://") + "ws" + (f"?{query}" if query else "")
        self._context = connect(url, open_timeout=TIMEOUT, max_size=None, max_queue=None)
        self.socket = self._context.__enter__()
        self.frame: dict | None = None
        self.poses: list = []
        self.seen: list = []  # ("frame", number, message) / ("poses", frame, characters) / ("chunk", kind) / json

    def recv(self, timeout: float = TIMEOUT):
        data = self.socket.recv(timeout=timeout)
        if isinstance(data, bytes):
            if data[0] == KIND_POSES:
                frame, _, self.poses = decode_poses(data, self.poses)
                self.seen.append(("poses", frame, self.poses))
            elif data[0] in (KIND_CHUNK, KIND_CHUNK_PATCH):
                self.seen.append(("chunk", data[0]))
            return self.seen[-1] if self.seen else data
        message = json.loads(data)
        if message["type"] == "frame":
            state = {k: v for k, v in (self.frame or {}).items() if k not in ("events", "events_dropped")}
            self.frame = merged(state, message)
            self.seen.append(("frame", message["frame"], self.frame))
            return self.seen[-1]
        self.seen.append(message)
        return message

    def until(self, predicate, timeout: float = TIMEOUT):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                message = self.recv(max(end - time.monotonic(), 0.01))
            except TimeoutError:
                break
            if predicate(message):
                return message
        raise AssertionError(f"no such message within {timeout} s")

    def control(self) -> dict:
        return self.until(lambda m: isinstance(m, dict) and m["type"] == "control" and m["you"])

    def error(self) -> str:
        return self.until(lambda m: isinstance(m, dict) and m["type"] == "error")["error"]

    def send(self, message: dict) -> None:
        self.socket.send(json.dumps(message))

    def close(self) -> None:
        self._context.__exit__(None, None, None)


def is_frame(message) -> bool:
    return isinstance(message, tuple) and message[0] == "frame"


def players_posed(message) -> set[str]:
    return {c.name for c in message[2] if c.kind == "player"} if message[0] == "poses" else set()


def test_four_pages_play_together_see_each_other_and_one_comes_back_by_its_token():
    world = World.demo(seed=0)
    with ServerThread(world, grace=30.0) as server:
        clients = [Client(server, f"name=p{n}") for n in range(4)]
        try:
            names = [client.control()["name"] for client in clients]
            assert names == ["p0", "p1", "p2", "p3"]  # the first plays the world's own player, named as it asks
            assert [name for name, _ in world.players()] == names
            # Each sees every player's character within two frames of the last one joining (the frame after the
            # page was told that all four play).
            for client in clients:
                if not any(isinstance(m, dict) and m["type"] == "control" and len(m["players"]) == 4
                           for m in client.seen):
                    client.until(lambda m: isinstance(m, dict) and m["type"] == "control" and len(m["players"]) == 4)
                told = max(n for n, m in enumerate(client.seen) if isinstance(m, dict) and m["type"] == "control")
                first = next((m[1] for m in client.seen[told:] if is_frame(m)), None)
                first = client.until(is_frame)[1] if first is None else first
                posed = [m for m in client.seen[told:] if isinstance(m, tuple) and players_posed(m) == set(names)]
                seen = posed[0] if posed else client.until(
                    lambda m: isinstance(m, tuple) and players_posed(m) == set(names))
                assert seen[1] <= first + 2
            # p2 digs the ground ahead (suck, looking down): every page sees its digging (the chunk's mesh and
            # the outcome naming p2) within two frames of the frame it happened in.
            digger = clients[2]
            digger.send({"type": "input", "look": [0, -60], "held": ["suck"]})
            for client in clients:
                outcome = client.until(lambda m: is_frame(m) and any(e["event"] == "outcome" and e["player"] == "p2"
                                                                     and e["amount"] > 0 for e in m[2].get("events", [])))
                frames = [m for m in client.seen if isinstance(m, tuple) and m[0] in ("frame", "chunk")]
                at = frames.index(outcome)
                first = next(n for n, m in enumerate(frames) if m[0] == "frame")  # (after the world's first chunks)
                start = max([first] + [n for n, m in enumerate(frames[:at]) if m[0] == "frame"
                                       and m[1] < outcome[1] - 2]) + 1
                assert any(m[0] == "chunk" for m in frames[start:at + 1]), \
                    "no chunk change within two frames of p2's digging"
                assert client is digger or client.frame["player"]["name"] != "p2"  # each its own view
            digger.send({"type": "input", "held": []})
            # p1's page is killed: its player stands, still in the world; the page comes back with its token.
            token = clients[1].seen and next(m for m in clients[1].seen if isinstance(m, dict)
                                             and m["type"] == "control" and m["you"])["token"]
            p1 = next(p for name, p in world.players() if name == "p1")
            clients[1].socket.close_socket()  # no closing handshake: the connection just dies
            clients[1]._context.__exit__(None, None, None)
            end = time.monotonic() + TIMEOUT
            while server.play.seats["p1"].page is not None:
                assert time.monotonic() < end, "the server did not see p1's page go"
                time.sleep(0.02)
            assert "p1" in [name for name, _ in world.players()]
            where = p1.position.copy()
            clients[1] = Client(server, f"token={token}")
            back = clients[1].control()
            assert back["name"] == "p1" and back["token"] == token
            assert np.allclose(next(p for name, p in world.players() if name == "p1").position, where, atol=0.5)
            assert clients[1].until(is_frame)[2]["player"]["name"] == "p1"
            assert server.play.refused_tokens == 0
        finally:
            for client in clients:
                client.close()


def test_wrong_stale_and_held_tokens_are_refused_and_counted():
    with ServerThread(World.demo(seed=1, npcs=0), grace=0.0, players=2) as server:
        first = Client(server)
        try:
            token = first.control()["token"]
            for bad in ("0" * 64, "zz", token.upper(), token + "0", "é" * 64):
                page = Client(server, f"token={bad}")
                try:
                    assert "resume token refused" in page.error()
                finally:
                    page.close()
            held = Client(server, f"token={token}")  # the page that holds it is still there
            try:
                assert "resume token refused" in held.error()
            finally:
                held.close()
            assert server.play.refused_tokens == 6
            first.close()  # grace 0: its player goes, the token with it
            end = time.monotonic() + TIMEOUT
            while server.play.seats:
                assert time.monotonic() < end
                time.sleep(0.02)
            stale = Client(server, f"token={token}")
            try:
                assert "resume token refused" in stale.error()
                assert stale.control()["token"] != token  # it plays, a new token
            finally:
                stale.close()
            assert server.play.refused_tokens == 7
        finally:
            first.close()


def test_the_order_messages_arrive_in_within_a_frame_changes_nothing():
    """Two pages' inputs between two frames, in either order: the same world (players' parts run in joining
    order, whatever order their pages' messages came in)."""
    def play(order: tuple[int, int]) -> tuple[str, str]:
        world = World.demo(seed=0, npcs=0)
        server = PlayServer(world)
        pages = [ServerPage(n + 1, None) for n in range(2)]
        for page, name in zip(pages, ("player", "guest")):
            if name != "player":
                world.join(name, spawn=world.player.position + (1.5, 0.0, 0.0))
            server.seats[name] = PageSeat(name, page=page.id)
            page.seat = name
        said = [InputMessage((0.0, 1.0), (270.0, -50.0), frozenset({"punch"})),
                InputMessage((1.0, 0.0), (90.0, -50.0), frozenset({"suck"}))]
        for frame in range(40):
            for n in order:
                server._act(pages[n], said[n] if frame < 20 else InputMessage())
            server.step_frame(server._take_inputs())
        return log_hash(world.events), world.voxel_hash()

    assert play((0, 1)) == play((1, 0))
    with pytest.raises(AssertionError):  # (the test can tell: another input gives another world)
        assert play((0, 1)) == play((0, 0))


def test_a_lan_game_lets_in_only_pages_with_its_join_code():
    join = new_join_code()
    assert len(join.code) >= 22 and join.code != new_join_code().code
    with ServerThread(World.demo(seed=1, npcs=0), join=join) as server:
        url = server.url.replace("http://", "ws://") + "ws"
        for query in ("", "?code=", f"?code={join.code[:-1]}", f"?code={join.code}x", f"?code={join.code.upper()}",
                      f"?code={join.code}&code={join.code}", "?code=%C3%A9"):
            with pytest.raises(InvalidStatus) as refused:
                connect(url + query, open_timeout=TIMEOUT)
            assert refused.value.response.status_code == 403
            assert b"join code" in refused.value.response.body
        assert join.refused == 7
        page = Client(server, f"code={join.code}")
        try:
            assert page.control()["name"] == "player"
        finally:
            page.close()
        assert join.refused == 7
        status, body = _get(server.url)  # the page itself is served without the code (it reads it from its URL)
        assert status == 200 and b"<html" in body.lower()


def _get(url: str) -> tuple[int, bytes]:
    from urllib.request import urlopen

    with urlopen(url, timeout=TIMEOUT) as response:
        return response.status, response.read()


class _Recording:
    """Stands in for a page's websocket: keeps the binary messages sent to it."""

    def __init__(self):
        self.sent: list = []

    async def send_text(self, text: str) -> None:
        pass

    async def send_bytes(self, data: bytes) -> None:
        self.sent.append(data)


def test_on_a_streaming_world_a_page_is_sent_the_chunks_near_its_own_player():
    """Interest management: two players 60 m apart on a world with a 20 m view; the chunks changed by the other
    wait until the page's own player comes near them, then come at once."""
    import asyncio

    world = World.demo(seed=1, npcs=0)
    world.settings = replace(world.settings, view_distance=20.0)
    server = PlayServer(world)
    interest = server._interest
    assert interest is not None and interest.reach == pytest.approx(20.0 + 8.0 * 0.5 ** 0.5 + 16.0)
    size = world.volume.chunk_size * world.volume.voxel_size
    here, there = (1, 0, 1), (5, 0, 5)  # chunk centres 56.6 m apart across the ground
    centre = [(c + 0.5) * size + world.volume.origin[0] for c in (1, 1)], [(c + 0.5) * size for c in (5, 5)]
    update = ChunkUpdate(1, b"\x01" * 64)

    async def run() -> list:
        socket_ = _Recording()
        page = ServerPage(1, socket_)
        page.seat = "player"
        server.clients[page.id] = page
        packet = FramePacket(1, {"player": PlayerView("{}")}, {here: update, there: update}, None, None, 0.0, 0.0,
                             places={"player": (centre[0][0], centre[0][1])})
        server._publish(packet)
        sender = asyncio.create_task(server._send_loop(page))
        await asyncio.sleep(0.05)
        first = len(socket_.sent)
        assert page.chunks == {there}  # the far one waits
        server._publish(replace(packet, frame=2, chunks={}, places={"player": (centre[1][0], centre[1][1])}))
        await asyncio.sleep(0.05)
        sender.cancel()
        return [first, len(socket_.sent), set(page.chunks)]

    first, then, waiting = asyncio.run(run())
    assert first == 2 and then == 4 and waiting == set()  # (a chunk, then its poses message: the frame's)


def test_every_page_s_hud_shows_each_player_s_share_of_the_digging():
    from voxelworld.viewer.player_messages import hud_message

    world = World.demo(seed=0, npcs=0)
    guest = world.join("guest", spawn=world.player.position + (1.5, 0.0, 0.0))
    assert hud_message(world)["shares"] == [["player", 0.0], ["guest", 0.0]]
    for _ in range(40):
        world.step([Inputs(), Inputs(look=(0.0, -60.0), suck=True)])
    own, theirs = hud_message(world)["shares"], hud_message(world, guest.actions)["shares"]
    assert own == theirs and own[0] == ["player", 0.0] and own[1][0] == "guest" and own[1][1] > 0.0
    assert own[1][1] == round(sum(guest.actions.achievements().values()), 1)  # to 0.1 m³, as the page shows it
