"""``voxelworld play`` benchmarks (issue #7). Run: ``.venv/bin/python benchmarks/play.py``.

1. **Server frame, measured directly**: ``PlayServer.step_frame`` (``World.step`` plus encoding what changed:
   the remeshed chunks' binary messages, the frame and HUD JSON) on the demo world, no sockets, in the scenarios
   of ``benchmarks/game.py``: walking with 3 NPCs, and suck held at the rock wall while strafing along it with
   8 NPCs and the enemy cutting. Times in ms (median, p95), and the bytes a page without overlays is sent per
   frame (frame + HUD when it changed + chunk meshes).
2. **End to end**: the suck scenario served by a ``ServerThread`` to one websocket client in this process that
   plays it (inputs at 30 Hz) and reads everything for a few seconds: frames received a second (60 is every
   frame) and bytes received a second.
3. What a page is sent when it connects (hello and every chunk mesh).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import replace  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from voxelworld.game.play import ActionSettings  # noqa: E402
from voxelworld.game.world import World, WorldSettings  # noqa: E402
from voxelworld.viewer import protocol  # noqa: E402
from voxelworld.viewer.server import PlayServer, ServerThread  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from game import FRAMES, WARM_UP, sucking, to_the_wall, walking  # noqa: E402
from terrain import print_table  # noqa: E402

END_TO_END_SECONDS = 5.0


def endless_suck_world(npcs: int = 8) -> World:
    """The demo world with the suck gauge's time limit raised (suck never stops), walked to the wall."""
    endless = WorldSettings(actions=ActionSettings(suck=replace(ActionSettings().suck, time_limit=1e6)))
    world = World.demo(seed=0, settings=endless, npcs=npcs)
    to_the_wall(world)
    return world


def direct(world: World, script) -> tuple:
    play = PlayServer(world)
    play.encode_all()
    step, encode, total, sizes, chunks = [], [], [], [], []
    for frame in range(WARM_UP + FRAMES):
        packet = play.step_frame(script(frame))
        if frame >= WARM_UP:
            step.append(packet.step_ms)
            encode.append(packet.encode_ms)
            total.append(packet.step_ms + packet.encode_ms)
            sizes.append(packet.stream_bytes)
            chunks.append(len(packet.chunks))
    step, encode, total, sizes = map(np.array, (step, encode, total, sizes))
    return (f"{np.median(step):.2f}", f"{np.median(encode):.3f}", f"{np.median(total):.2f}",
            f"{np.percentile(total, 95):.2f}", f"{np.mean(chunks):.2f}", f"{np.median(sizes) / 1024:.1f}",
            f"{np.mean(sizes) / 1024:.1f}", f"{np.percentile(sizes, 95) / 1024:.1f}", f"{sizes.max() / 1024:.1f}",
            f"{np.mean(sizes) * 60 / 1024:.0f}")


def end_to_end(world: World) -> tuple:
    from websockets.sync.client import connect

    with ServerThread(world) as server, connect(server.url.replace("http", "ws") + "ws", max_size=None,
                                                  max_queue=None) as page:
        hello = json.loads(page.recv(timeout=30))
        assert hello["control"]
        frames = received = messages = 0
        first = last = None
        start = time.monotonic()
        next_input, n = start, 0
        while time.monotonic() - start < END_TO_END_SECONDS:
            now = time.monotonic()
            if now >= next_input:  # the page's input at 30 Hz, following the sucking script's sweep
                inputs = sucking(int((now - start) * 60))
                page.send(json.dumps({"type": "input", "move": list(inputs.move), "look": list(inputs.look),
                                      "held": ["suck"]}))
                next_input += 1 / 30
                n += 1
            try:
                data = page.recv(timeout=0.01)
            except TimeoutError:
                continue
            messages += 1
            received += len(data)
            if isinstance(data, str) and data.startswith('{"type":"frame"'):
                number = json.loads(data)["frame"]
                first = number if first is None else first
                last = number
                frames += 1
        seconds = time.monotonic() - start
        stepped = server.play.frames
    return (f"{frames / seconds:.1f}", f"{(last - first) / seconds:.1f}", f"{received / seconds / 1024:.0f}",
            f"{received / max(frames, 1) / 1024:.1f}", f"{messages / seconds:.0f}", stepped, n)


def main() -> None:
    world = World.demo(seed=0)
    world.step()
    start = time.perf_counter()
    packet = PlayServer(world).encode_all()
    took = (time.perf_counter() - start) * 1000
    hello = protocol.dumps(protocol.hello_message(world, 1, 1, fps=60, save_path="world.vwd"))
    chunk_bytes = sum(len(data) for data in packet.chunks.values())
    print(f"Connecting: hello {len(hello) / 1024:.1f} KiB, {len(packet.chunks)} chunk meshes "
          f"{chunk_bytes / 1024:.1f} KiB (encoded in {took:.1f} ms), frame {len(packet.frame_text)} B, "
          f"HUD {len(packet.hud_text)} B")
    rows = [("walking; 3 NPCs, enemy cutting", *direct(World.demo(seed=0), walking)),
            ("suck held at the wall; 8 NPCs, enemy cutting", *direct(endless_suck_world(), sucking))]
    print_table(("PlayServer.step_frame on the demo world", "World.step median ms", "encode median ms",
                 "frame median ms", "frame p95 ms", "chunk messages / frame", "KiB / frame median",
                 "KiB / frame mean", "KiB / frame p95", "KiB / frame max", "KiB / s at 60 fps"), rows)
    e2e = end_to_end(endless_suck_world())
    print_table(("served, one websocket page sucking the wall for 5 s", "frames received / s",
                 "frame numbers / s", "KiB received / s", "KiB / frame received", "messages / s",
                 "frames stepped", "inputs sent"), [("suck held at the wall; 8 NPCs, enemy cutting", *e2e)])


if __name__ == "__main__":
    main()
