"""What a page predicts its own player with (play protocol 5, issue #35): an ``input`` carries the page's ``seq``,
checked like every field; each playing page's ``frame`` says the seq of its newest input the world applied
(``input_seq``), a watching page's says nothing; ``hello.movement`` gives the numbers of the world's movement."""

from __future__ import annotations

import asyncio
import json
import math
import random
import shutil
import subprocess
import time

import numpy as np
import pytest

from voxelworld.game.player import PlayerSettings
from voxelworld.game.world import World
from voxelworld.viewer.page_seats import PageSeat
from voxelworld.viewer.protocol import MAX_INPUT_SEQ, InputMessage, ProtocolError, parse_client_message
from voxelworld.viewer.server import WEB_DIR, PlayServer, ServerThread
from voxelworld.viewer.streaming import Page as ServerPage

from .test_play_together import Client, is_frame


def test_an_input_s_seq_is_a_whole_number_from_0_to_2_to_the_31_minus_1():
    assert parse_client_message('{"type": "input"}').seq is None
    assert parse_client_message('{"type": "input", "seq": null}').seq is None
    for good in (0, 1, 12345, MAX_INPUT_SEQ):
        assert parse_client_message(json.dumps({"type": "input", "move": [0, 1], "seq": good})).seq == good
    for bad in ("-1", str(MAX_INPUT_SEQ + 1), "1.5", "2.0", "1e3", '"3"', "true", "[1]", "{}", "10" * 40):
        with pytest.raises(ProtocolError) as refused:
            parse_client_message('{"type": "input", "seq": ' + bad + '}')
        assert str(refused.value).startswith("seq = ")
        assert str(refused.value).endswith(f"is out of range: must be a whole number in [0, {MAX_INPUT_SEQ}] or null")


def test_hello_gives_the_numbers_of_the_world_s_movement():
    from voxelworld.viewer.protocol import hello_message

    world = World.demo(seed=0, npcs=0)
    movement = hello_message(world, 1, fps=60, save_path=None)["movement"]
    settings = world.settings.player
    assert movement == {"walk_speed": settings.walk_speed, "sprint_speed": settings.sprint_speed,
                        "traction": settings.traction, "air_control": settings.air_control}
    assert movement == {"walk_speed": 4.0, "sprint_speed": 7.0, "traction": 200.0, "air_control": 2.0}
    assert PlayerSettings().walk_speed == 4.0


class _Texts:
    """Stands in for a page's websocket: keeps the text messages sent to it."""

    def __init__(self):
        self.texts: list[str] = []

    async def send_text(self, text: str) -> None:
        self.texts.append(text)

    async def send_bytes(self, data: bytes) -> None:
        pass


def test_each_frame_acknowledges_the_newest_input_it_applied_to_its_page_alone():
    """Frame by frame on a server without a clock: the playing page's frames carry ``input_seq``, the seq of its
    newest input taken for that frame (whole frames always, deltas when it changed; null once it stops playing);
    the watching page's none."""
    world = World.demo(seed=0, npcs=0)
    server = PlayServer(world)
    playing, watching = ServerPage(1, _Texts()), ServerPage(2, _Texts())
    server.seats["player"] = PageSeat("player", page=playing.id)
    playing.seat = "player"
    said = {2: [3, 4], 4: [7], 6: [8]}  # frame -> the seqs of the inputs the playing page sends before it

    async def run() -> None:
        for page in (playing, watching):
            server.clients[page.id] = page
        server._publish(server.encode_all())
        senders = [asyncio.create_task(server._send_loop(page)) for page in (playing, watching)]
        await asyncio.sleep(0.01)
        for frame in range(1, 9):
            for seq in said.get(frame, []):
                server._act(playing, InputMessage((0.0, 1.0), (float(frame), 0.0), seq=seq))
            if frame == 8:  # it gives its player up (as _give_up does, without the world's leave)
                playing.seat = None
                del server.seats["player"]
            inputs, acks = server._take_inputs(), server._input_acks()
            server._publish(server.step_frame(inputs), acks)
            await asyncio.sleep(0.01)
        for sender in senders:
            sender.cancel()

    asyncio.run(run())
    frames = {page.id: [json.loads(t) for t in page.websocket.texts if '"type":"frame"' in t.replace(" ", "")]
              for page in (playing, watching)}
    assert [f["frame"] for f in frames[1]] == list(range(world.frame - 8, world.frame + 1))
    assert [f.get("input_seq", "left out") for f in frames[1]] == \
        ["left out", "left out", 4, "left out", 7, "left out", 8, "left out", None]
    first = frames[1][0]["frame"]  # the frame that first applied it: the one whose input_seq it is
    assert [f.get("input_frame", "left out") for f in frames[1]] == \
        ["left out", "left out", first + 2, "left out", first + 4, "left out", first + 6, "left out", None]
    assert [f["base"] is None for f in frames[1]] == [True] + [False] * 8  # (deltas: it changed, or not)
    assert frames[2] and all("input_seq" not in f for f in frames[2])  # the watching page: nothing


def test_on_a_real_server_the_acknowledged_input_is_the_one_the_frame_applied():
    """A page sends inputs numbered 1 to 120, each looking at a yaw of its own seq, at random moments: in every
    frame, the player's yaw is the one of the input the frame acknowledges (the world applied that input, and no
    newer one), first applied in the frame ``input_frame`` says. A watching page gets no ``input_seq``; a bad seq
    is refused, naming it, and the session goes on."""
    world = World.demo(seed=0, npcs=0)
    rng = random.Random(5)
    with ServerThread(world, players=1, grace=0.0) as server:
        page, watcher = Client(server), Client(server)
        try:
            page.control()
            page.send({"type": "input", "seq": -1})
            assert page.error() == f"seq = -1 is out of range: must be a whole number in [0, {MAX_INPUT_SEQ}] or null"
            page.send({"type": "input", "seq": 2**31})
            assert page.error().startswith(f"seq = {2**31} is out of range")
            acked = set()
            for seq in range(1, 121):
                page.send({"type": "input", "move": [0, 0], "look": [seq, 0], "seq": seq})
                _read_for(page, rng.choice((0.0, 0.0, 0.005, 0.02)))
            page.until(lambda m: is_frame(m) and m[2].get("input_seq") == 120)
            since: dict[int, int] = {}  # seq -> the frame that first applied it
            applied: dict[int, int] = {}  # frame -> the seq it applied
            for message in page.seen:
                if is_frame(message) and message[2].get("input_seq") is not None:
                    frame = message[2]
                    assert frame["player"]["yaw"] == frame["input_seq"], frame["frame"]
                    assert since.setdefault(frame["input_seq"], frame["input_frame"]) == frame["input_frame"]
                    assert frame["input_frame"] <= frame["frame"]
                    applied[frame["frame"]] = frame["input_seq"]
                    acked.add(frame["input_seq"])
            for seq, frame in since.items():  # the frame before it applied an older input, when the page saw it
                assert applied.get(frame - 1, 0) < seq and applied.get(frame) in (seq, None)
            assert len(acked) > 20 and max(acked) == 120
            watcher.until(lambda m: is_frame(m) and m[1] > 10)
            assert all("input_seq" not in m[2] for m in watcher.seen if is_frame(m))
            assert not any(isinstance(m, dict) and m["type"] == "error" for m in page.seen[-50:])
        finally:
            page.close()
            watcher.close()


def _read_for(client: Client, seconds: float) -> None:
    """Read what the page is sent for ``seconds``."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        try:
            client.recv(left)
        except TimeoutError:
            return


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the page's prediction")
def test_the_page_predicts_with_the_world_s_own_movement_model():
    """``web/predict.js``'s ``advance`` gives the horizontal velocity :meth:`Player.begin_frame` gives, on the ground
    (the stick followed at once) and in the air (slowly, air control), walking and sprinting, any yaw and stick."""
    from voxelworld.game.player import Player
    from voxelworld.viewer.protocol import movement_fields

    world = World.demo(seed=0, npcs=0)
    settings = world.settings.player
    rng = np.random.default_rng(3)
    cases = [{"move": [float(a), float(b)], "sprint": bool(s), "yaw": float(y), "grounded": bool(g),
              "dt": float(dt), "v": [float(vx), float(vz)]}
             for a, b, s, y, g, dt, vx, vz in zip(rng.uniform(-1, 1, 24), rng.uniform(-1, 1, 24), rng.random(24) < 0.5,
                                                  rng.uniform(0, 360, 24), rng.random(24) < 0.5,
                                                  rng.choice([1 / 60, 1 / 30, 0.004], 24), rng.normal(0, 3, 24),
                                                  rng.normal(0, 3, 24))]
    cases[0] |= {"move": [1.0, 1.0], "sprint": True, "grounded": True}  # a diagonal is no faster
    script = (f"import {{ advance }} from {json.dumps((WEB_DIR / 'predict.js').as_uri())};\n"
              f"const movement = {json.dumps(movement_fields(settings))};\n"
              f"const out = {json.dumps(cases)}.map((c) => {{ const body = {{ x: 0, z: 0, vx: c.v[0], vz: c.v[1] }};\n"
              "  advance(body, c, movement, c.grounded); return [body.vx, body.vz, body.x, body.z]; });\n"
              "console.log(JSON.stringify(out));")
    done = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for case, (vx, vz, x, z) in zip(cases, json.loads(done.stdout)):
        player = Player((0.0, 0.0, 0.0), case["yaw"], settings, world.materials)
        player.grounded = case["grounded"]
        player.velocity[:] = (case["v"][0], 0.0, case["v"][1])
        player.begin_frame(case["move"], case["sprint"], False, case["dt"], lambda *a, **k: None)
        assert (vx, vz) == pytest.approx((player.velocity[0], player.velocity[2]), abs=1e-9), case
        assert (x, z) == pytest.approx((vx * case["dt"], vz * case["dt"]), abs=1e-12)


RECONCILE = """
const p = new Prediction();
p.movement = MOVEMENT;
p.fps = 60;
const out = {};
p.reconcile({ frame: 100, player: { position: [0, 5, 0], grounded: true } });  // standing, nothing sent yet
for (let n = 0; n < 10; n++) { p.sent(n + 1, 1000 + n * 1000 / 30); p.step(1 / 30, n + 1, [0, 1], false, 0); }
out.ahead = p.shown();  // 10 steps of 2 frames forward (yaw 0: along -z) at 4 m/s
// The world applied inputs 1 to 5, and input 6 in 1 frame so far: from its feet, what it has not applied yet.
p.reconcile({ frame: 106, input_seq: 6, input_frame: 106, player: { position: [0, 5, -0.3], grounded: true } });
out.steps = p.steps.length;
out.body = [p.body.x, p.body.z];
out.error = [...p.error];
for (let n = 0; n < 6; n++) p.step(1 / 60, 10, [0, 0], false, 0);  // let go (input 11 not sent): 0.1 s
out.blended = [...p.error];
p.reconcile({ frame: 107, input_seq: 10, input_frame: 107, player: { position: [12, 5, 0], grounded: true } });
out.snapped = [p.stats.snapped, p.shown(), [...p.error]];  // a respawn 12 m away: taken at once
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the page's prediction")
def test_the_page_replays_what_the_world_has_not_applied_and_blends_or_snaps_the_rest():
    """``web/predict.js``'s reconciliation: the steps of inputs older than the acknowledged one dropped, of that one
    the time past the frames that applied it replayed, then the newer ones; what differs from what was shown is
    blended away (95% in 0.1 s); a jump of more than 2 m is taken at once."""
    script = (f"import {{ Prediction }} from {json.dumps((WEB_DIR / 'predict.js').as_uri())};\n"
              + RECONCILE.replace("MOVEMENT", json.dumps({"walk_speed": 4.0, "sprint_speed": 7.0, "traction": 200.0,
                                                           "air_control": 2.0})))
    done = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["ahead"] == pytest.approx([0.0, 5.0, -10 * 4.0 / 30])
    assert out["steps"] == 5  # those of inputs 6 to 10
    # From the server's feet: input 6's step less the frame applied (1/60 s left), inputs 7 to 10 (4 steps).
    assert out["body"] == pytest.approx([0.0, -0.3 - 4.0 * (1 / 60 + 4 / 30)])
    assert out["error"] == pytest.approx([0.0, -10 * 4.0 / 30 - out["body"][1]])  # shown stays where it was...
    assert abs(out["blended"][1]) == pytest.approx(abs(out["error"][1]) * math.exp(-3), rel=1e-6)  # ... then goes
    snapped, shown, error = out["snapped"]
    # (input 10's step went on 1/60 s past the one frame that applied it so far)
    assert snapped == 1 and shown == pytest.approx([12.0, 5.0, -4.0 / 60]) and error == [0, 0]
