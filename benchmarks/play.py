"""``voxelworld play`` benchmarks (issues #7, #29). Run: ``.venv/bin/python benchmarks/play.py``.

0. **What a watching page is sent** (issue #29, :func:`guard_figures`, the quick guard's row): the demo world
   (3 NPCs, the enemy cutting the rock wall), the player standing, ``PlayServer.step_frame`` called directly (no
   sockets; the bytes are those a page that keeps up is sent: chunk patches where the page has their base, pose
   and frame deltas, the HUD when it changed), bytes a second by kind at steady state, and the frame's median
   ms. Beside it the same with the player walking (``game.walking``).
1. **Server frame, measured directly**: ``PlayServer.step_frame`` (``World.step`` plus encoding what changed:
   the changed chunks' binary messages, the poses, the frame and HUD JSON) on the demo world, no sockets, in the
   scenarios of ``benchmarks/game.py``: walking with 3 NPCs, and suck held at the rock wall while strafing along
   it with 8 NPCs and the enemy cutting. Times in ms (median, p95), and the bytes a page without overlays is sent
   per frame (:meth:`FramePacket.stream_bytes`).
2. **End to end**: the suck scenario served by a ``ServerThread`` to one websocket client in this process that
   plays it (inputs at 30 Hz) and reads everything for a few seconds: frames received a second (60 is every
   frame) and bytes received a second.
3. What a page is sent when it connects (hello and every chunk mesh).
4. **Several players** (issue #35, :func:`players_figures`; ``--players`` runs this part alone, ``--quick`` a short
   run of it for the tests): ``World.step`` on the demo world (3 NPCs, the enemy cutting the rock wall, as in
   ``benchmarks/game.py``; the suck gauge's time limit raised as in its suck row) with 1, 4 and 8 players: the
   world's own at its start and seats (``World.join``) in a line across it ``PLAYER_SPACING`` apart, all facing the
   open ground to the west. Each walks slowly forward digging the ground ahead (:func:`digging_player`): every
   fourth holds suck, the others punch at their tool's pace (a press every other frame: a press while a strike
   plays is kept and starts as it ends), staggered. After a warm-up, the rows' worlds step in turns (``runs``
   rounds of ``frames`` frames, the machine's other load falling on every row alike), beside the single player's
   walking and suck rows of ``benchmarks/game.py`` in the same rounds: median, p95 and max ms a step, the median
   CPU ms, punches started and landed, the edits applied and the m³ each player removed (the least of them: a
   row where a player did nothing shows 0). Goal (issue #35): 8 players <= 8 ms median. ``--profile`` adds where
   a step's time goes: the mean ms of each stage (``World.STAGES``) for each row and cProfile's functions for
   the last one.
5. Bytes a second per page with several players (issue #35 §2): :func:`seat_page_figures`, each page its own
   player's frame and HUD, every player digging, with 1, 4 and 8 players.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import cProfile  # noqa: E402
import json  # noqa: E402
import pstats  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import replace  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from voxelworld.game import world as world_module  # noqa: E402
from voxelworld.game.level import surface_height  # noqa: E402
from voxelworld.game.play import ActionSettings  # noqa: E402
from voxelworld.game.seats import every_actions  # noqa: E402
from voxelworld.game.world import Inputs, World, WorldSettings  # noqa: E402
from voxelworld.viewer import protocol  # noqa: E402
from voxelworld.viewer.server import PlayServer, ServerThread  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from game import FRAMES, WARM_UP, frame_settings, scenario, sucking, to_the_wall, walking  # noqa: E402
from terrain import print_table  # noqa: E402

END_TO_END_SECONDS = 5.0
GUARD_WARM_UP = 60  # frames before a guard's figures count (the enemy starts cutting, every chunk sent once)
KINDS = ("chunks", "poses", "frame", "hud")  # FramePacket.page_bytes's kinds
PLAYER_COUNTS = (1, 4, 8)  # the several players' rows (issue #35)
PLAYER_SPACING = 2.25  # m between neighbours in the players' line (across z)
SUCKING_EVERY = 4  # every fourth player holds suck, the others punch


def page_figures(world: World, script, seconds: float = 4.0, fps: int = 60) -> dict[str, float]:
    """What a page that keeps up is sent while ``world`` plays ``script`` for ``seconds`` of game time after
    :data:`GUARD_WARM_UP` frames: bytes a second by kind (``chunks``, ``poses``, ``frame``, ``hud``) and in all
    (``total``), the frame's median ms (``step_frame_ms``: World.step and encoding, ``step_ms``: World.step
    alone, ``encode_ms``: encoding alone), measured by calling ``PlayServer.step_frame`` directly."""
    play = PlayServer(world, fps=fps)
    play.encode_all()
    frames = max(1, round(seconds * fps))
    sent = dict.fromkeys(KINDS, 0)
    step, encode = [], []
    for frame in range(GUARD_WARM_UP + frames):
        packet = play.step_frame(script(frame))
        if frame < GUARD_WARM_UP:
            continue
        for kind, size in packet.page_bytes().items():
            sent[kind] += size
        step.append(packet.step_ms)
        encode.append(packet.encode_ms)
    figures = {f"{kind}_bytes_per_s": sent[kind] * fps / frames for kind in KINDS}
    figures["total_bytes_per_s"] = sum(sent.values()) * fps / frames
    figures["step_frame_ms"] = float(np.median(np.add(step, encode)))
    figures["step_ms"] = float(np.median(step))
    figures["encode_ms"] = float(np.median(encode))
    return figures


def standing(frame: int) -> Inputs:
    """No page plays: the player stands (the stick and buttons let go), the enemy cuts, the NPCs walk."""
    return Inputs()


def guard_figures(seconds: float = 4.0) -> dict[str, float]:
    """The quick guard's row (issue #29: a watching page costs <= 100 KiB/s at steady state): the demo world with
    the enemy cutting and the player standing, :func:`page_figures` over ``seconds`` of game time (about 5 s of
    wall clock for the default 4 s on the 2-core machine, the world's building included). Bytes a second by kind
    and in all, and the server frame's median ms.

    >>> figures = guard_figures(seconds=0.5)  # doctest: +SKIP
    >>> figures["total_bytes_per_s"] <= 100 * 1024  # doctest: +SKIP
    True
    """
    return page_figures(World.demo(seed=0), standing, seconds)


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


def players_world(count: int) -> World:
    """The demo world (3 NPCs, the enemy cutting the rock wall; the suck gauge's time limit raised, as in
    ``benchmarks/game.py``'s suck row) with ``count`` players: the world's own at its start and ``count - 1`` seats
    joined on the ground in a line across z, ``PLAYER_SPACING`` m apart (alternately beside it on either side:
    z 17.25-33 m for 8, clear of the lava pool and the trees), all facing west (-x) over open ground. Its objects
    are then frozen out of the collector's reach, as ``benchmarks/game.py``'s worlds."""
    endless = frame_settings(actions=ActionSettings(suck=replace(ActionSettings().suck, time_limit=1e6)))
    world = World.demo(seed=0, settings=endless)
    x, z = float(world.player.position[0]), float(world.player.position[2])
    for n in range(1, count):
        across = z + PLAYER_SPACING * ((n + 1) // 2) * (1 if n % 2 else -1)
        world.join(f"player_{n + 1}", spawn=(x, surface_height(world.volume, x, across), across), spawn_yaw=90.0)
    freeze = getattr(world_module, "freeze_startup_objects", None)
    if freeze is not None:
        freeze()
    return world


def digging_player(n: int, frame: int) -> Inputs:
    """Player ``n``'s (0: the world's own) inputs in ``frame``: facing west, looking about 45 degrees down at the
    ground 1.6 m ahead, the aim sweeping +-20 degrees, walking slowly into what it dug (a fifth of the stick,
    0.8 m/s, so that its tool meets fresh ground). Every fourth player (n = 3, 7) holds suck walking at half that;
    the others press punch every other frame from frame ``5 n`` on: a press while a strike plays is kept and starts
    as the strike ends, so each punches at its tool's pace (about 0.55 s a strike into soil), the players
    staggered."""
    look = (90.0 + 20.0 * np.sin((frame + 37 * n) / 40.0), -45.0 + 5.0 * np.sin((frame + 23 * n) / 45.0))
    if n % SUCKING_EVERY == SUCKING_EVERY - 1:
        return Inputs(move=(0.0, 0.1), look=look, suck=True)
    return Inputs(move=(0.0, 0.2), look=look, punch=frame >= 5 * n and (frame - 5 * n) % 2 == 0)


def players_script(count: int):
    """The script of a world with ``count`` players: one :func:`digging_player` Inputs each, in joining order."""
    return lambda frame: [digging_player(n, frame) for n in range(count)]


def removed_by_each(world: World) -> np.ndarray:
    """The volume (m³) every player's actions removed so far, the world's own first."""
    return np.array([sum(actions.achievements().values()) for actions in every_actions(world)])


def players_figures(counts=PLAYER_COUNTS, warm_up: int = WARM_UP, frames: int = 200, runs: int = 3,
                    references: bool = True) -> dict[str, dict]:
    """The several players' rows (issue #35): for each of ``counts`` a :func:`players_world` playing
    :func:`players_script`, and with ``references`` the single player's "walking" and "suck" rows of
    ``benchmarks/game.py`` (its :func:`scenario`). Every world is built and warmed up (``warm_up`` frames), then
    the worlds step in turns, ``runs`` rounds of ``frames`` frames each. Row name ("1 player", "4 players", ...,
    "walking", "suck") -> figures: ``median_ms``, ``p95_ms``, ``max_ms`` (wall clock), ``cpu_median_ms``
    (``time.process_time``), ``frames``, ``edits`` (VoxelsEdited events), ``punches`` (punches started),
    ``punch_edits`` (punches that landed), ``suck_edits``, ``rebakes`` (the navmesh's), and ``removed_m3``: what
    each player's actions removed in the measured frames (m³, the world's own first)."""
    rows = {f"{count} player{'s' if count > 1 else ''}": (players_world(count), players_script(count))
            for count in counts}
    if references:
        rows |= {name: scenario(name) for name in ("walking", "suck")}
    times = {name: ([], []) for name in rows}
    first, removed, revision = {}, {}, {}
    for name, (world, script) in rows.items():
        for frame in range(warm_up):
            world.step(script(frame))
        first[name], removed[name] = len(world.events), removed_by_each(world)
        revision[name] = world.agents.navigation.revision
    for run in range(runs):
        for name, (world, script) in rows.items():
            wall, cpu = times[name]
            for frame in range(warm_up + run * frames, warm_up + (run + 1) * frames):
                inputs = script(frame)
                start, start_cpu = time.perf_counter(), time.process_time()
                world.step(inputs)
                wall.append((time.perf_counter() - start) * 1000.0)
                cpu.append((time.process_time() - start_cpu) * 1000.0)
    figures = {}
    for name, (world, _) in rows.items():
        wall, cpu = map(np.array, times[name])
        events = world.events[first[name]:]
        edits = [e for e in events if type(e).__name__ == "VoxelsEdited"]
        figures[name] = {
            "median_ms": float(np.median(wall)), "p95_ms": float(np.percentile(wall, 95)),
            "max_ms": float(wall.max()), "cpu_median_ms": float(np.median(cpu)), "frames": len(wall),
            "edits": len(edits), "punch_edits": sum(1 for e in edits if e.source == "punch"),
            "suck_edits": sum(1 for e in edits if e.source == "suck"),
            "punches": sum(1 for e in events if type(e).__name__ == "ActionStarted" and e.action == "punch"),
            "rebakes": world.agents.navigation.revision - revision[name],
            "removed_m3": [float(v) for v in removed_by_each(world) - removed[name]]}
    return figures


def players_table(figures: dict[str, dict]) -> None:
    """Print :func:`players_figures` as a Markdown table (the machine first)."""
    rows = []
    for name, row in figures.items():
        several = name[0].isdigit()
        title = (f"{name} digging; 3 NPCs, enemy cutting" if several else
                 {"walking": "reference: 1 player walking; 3 NPCs, enemy cutting (game.py)",
                  "suck": "reference: 1 player sucking the wall; 8 NPCs, enemy cutting (game.py)"}[name])
        least = f"{min(row['removed_m3']):.2f}" if several else ""
        rows.append((title, f"{row['median_ms']:.2f}", f"{row['p95_ms']:.2f}", f"{row['max_ms']:.2f}",
                     f"{row['cpu_median_ms']:.2f}", f"{row['punch_edits']} / {row['punches']}", row["suck_edits"],
                     row["edits"], row["rebakes"], f"{sum(row['removed_m3']):.1f}", least,
                     "<= 8 ms median" if name == "8 players" else ""))
    frames = {row["frames"] for row in figures.values()}
    print_table((f"World.step, demo world ({'/'.join(map(str, sorted(frames)))} frames a row)", "median ms",
                 "p95 ms", "max ms", "median CPU ms", "punches landed / started", "suck edits", "edits applied",
                 "navmesh re-bakes", "m³ removed by the players", "m³ removed, least by one player",
                 "goal (issue #35)"), rows)


class StageClock:
    """Wall-clock ms of each stage (``World.STAGES``) of a world's frames: a handler added last to every stage
    notes the time as the stage ends (after the world's own work and the other handlers)."""

    def __init__(self, world: World) -> None:
        self.ms = {stage: [] for stage in world.STAGES}
        self._last = 0.0
        for stage in world.STAGES:
            world.add_handler(lambda w, inputs, stage=stage: self._note(stage), stage)

    def start(self) -> None:
        self._last = time.perf_counter()

    def _note(self, stage: str) -> None:
        now = time.perf_counter()
        self.ms[stage].append((now - self._last) * 1000.0)
        self._last = now


def players_profile(counts=PLAYER_COUNTS, warm_up: int = WARM_UP, frames: int = 300, top: int = 40) -> None:
    """Where a step's time goes with several players: the mean ms of each stage for each of ``counts`` (a
    :func:`players_world` per count, ``frames`` frames after ``warm_up``), then cProfile's ``top`` functions by
    cumulative time over the last count's frames (another world, as profiling slows every call)."""
    stages = {}
    for count in counts:
        world, script = players_world(count), players_script(count)
        for frame in range(warm_up):
            world.step(script(frame))
        clock = StageClock(world)
        for frame in range(warm_up, warm_up + frames):
            inputs = script(frame)
            clock.start()
            world.step(inputs)
        stages[count] = {stage: float(np.mean(ms)) for stage, ms in clock.ms.items()}
    print_table(("stage (World.STAGES): mean ms a step", *(f"{count} player{'s' if count > 1 else ''}"
                                                          for count in counts)),
                [(stage, *(f"{stages[count][stage]:.2f}" for count in counts)) for stage in World.STAGES]
                + [("all", *(f"{sum(stages[count].values()):.2f}" for count in counts))])
    world, script = players_world(counts[-1]), players_script(counts[-1])
    for frame in range(warm_up):
        world.step(script(frame))
    profile = cProfile.Profile()
    profile.enable()
    for frame in range(warm_up, warm_up + frames):
        world.step(script(frame))
    profile.disable()
    print(f"\ncProfile, {counts[-1]} players, {frames} frames (ms are the profile's, slower than unprofiled):")
    pstats.Stats(profile, stream=sys.stdout).sort_stats("cumulative").print_stats(top)


def seat_page_figures(count: int, seconds: float = 4.0, fps: int = 60) -> dict[str, float]:
    """Part two of the several players' rows (issue #35 §2): what each page is sent while ``count`` pages play,
    each its own player, as :func:`players_script` plays them (every player digging), over ``seconds`` of game
    time after :data:`GUARD_WARM_UP` frames, ``PlayServer.step_frame`` called directly (a page that keeps up: its
    own player's frame, HUD and poses deltas with the actors and events near it, the shared chunk patches): the
    messages' bytes a second by kind over the pages (``<kind>_bytes_per_s``, their mean), ``total_bytes_per_s``
    (the mean page's) and ``max_page_bytes_per_s`` (the page sent most); ``wire_bytes_per_s`` and
    ``max_wire_bytes_per_s``, the same on the wire: each page's messages, in order, through the websocket layer's
    permessage-deflate as the server negotiates it with a browser (``websockets``' own, one context a page, 32 KiB
    window; payloads counted, as for the messages); and the server frame's median ms (``step_frame_ms``,
    ``encode_ms``). Goal: <= 300 KiB/s a page while its player digs (<= 100 KiB/s watching:
    :func:`guard_figures`)."""
    from websockets.extensions.permessage_deflate import PerMessageDeflate
    from websockets.frames import Frame, Opcode

    world = players_world(count)
    script = players_script(count)
    play = PlayServer(world, fps=fps)
    play.encode_all()
    names = [name for name, _ in world.players()]
    frames = max(1, round(seconds * fps))
    sent = {name: dict.fromkeys(KINDS, 0) for name in names}
    deflate = {name: PerMessageDeflate(False, False, 15, 15) for name in names}  # (what the server's side keeps)
    wire = dict.fromkeys(names, 0)
    step, encode = [], []
    for frame in range(GUARD_WARM_UP + frames):
        packet = play.step_frame(dict(zip(names, script(frame))))
        for name in names:
            for kind, data in packet.page_messages(name):
                opcode = Opcode.TEXT if kind in ("frame", "hud") else Opcode.BINARY
                compressed = len(deflate[name].encode(Frame(opcode, data)).data)  # (the context runs on throughout)
                if frame >= GUARD_WARM_UP:
                    sent[name][kind] += len(data)
                    wire[name] += compressed
        if frame >= GUARD_WARM_UP:
            step.append(packet.step_ms)
            encode.append(packet.encode_ms)
    figures = {f"{kind}_bytes_per_s": float(np.mean([sent[n][kind] for n in names])) * fps / frames
               for kind in KINDS}
    figures["total_bytes_per_s"] = sum(figures[f"{kind}_bytes_per_s"] for kind in KINDS)
    figures["max_page_bytes_per_s"] = max(sum(page.values()) for page in sent.values()) * fps / frames
    figures["wire_bytes_per_s"] = float(np.mean(list(wire.values()))) * fps / frames
    figures["max_wire_bytes_per_s"] = max(wire.values()) * fps / frames
    figures["step_frame_ms"] = float(np.median(np.add(step, encode)))
    figures["encode_ms"] = float(np.median(encode))
    return figures


def seat_pages_table(counts=PLAYER_COUNTS, seconds: float = 4.0) -> None:
    """:func:`seat_page_figures` for each of ``counts``, as a table (KiB a second)."""
    rows = []
    for count in counts:
        f = seat_page_figures(count, seconds)
        rows.append((f"{count} player{'s' if count > 1 else ''}, every one digging",
                     *(f"{f[f'{kind}_bytes_per_s'] / 1024:.1f}" for kind in KINDS),
                     f"{f['total_bytes_per_s'] / 1024:.1f}", f"{f['max_page_bytes_per_s'] / 1024:.1f}",
                     f"{f['wire_bytes_per_s'] / 1024:.1f}", f"{f['max_wire_bytes_per_s'] / 1024:.1f}",
                     f"{f['step_frame_ms']:.2f}", f"{f['encode_ms']:.2f}"))
    print_table(("a page of each player (PlayServer.step_frame, demo world)", "chunk meshes KiB/s", "poses KiB/s",
                 "frame JSON KiB/s", "HUD KiB/s", "mean page's messages KiB/s (<= 300)", "most sent page's messages KiB/s",
                 "mean page on the wire KiB/s", "most sent page on the wire KiB/s", "frame median ms",
                 "encode median ms"), rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", action="store_true", help="only the several players' rows (issue #35)")
    parser.add_argument("--quick", action="store_true",
                        help="only the several players' rows, short (30 frames of warm-up, one round of 60)")
    parser.add_argument("--profile", action="store_true",
                        help="with the several players' rows: the mean ms of each stage and cProfile's functions")
    args = parser.parse_args()
    if args.players or args.quick:
        players_part(args.quick, args.profile)
        return
    world = World.demo(seed=0)
    world.step()
    start = time.perf_counter()
    packet = PlayServer(world).encode_all()
    took = (time.perf_counter() - start) * 1000
    hello = protocol.dumps(protocol.hello_message(world, 1, fps=60, save_path="world.vwd"))
    chunk_bytes = sum(len(update.whole) for update in packet.chunks.values())
    print(f"Connecting: hello {len(hello) / 1024:.1f} KiB, {len(packet.chunks)} chunk meshes "
          f"{chunk_bytes / 1024:.1f} KiB (encoded in {took:.1f} ms), frame {len(packet.frame_text)} B, "
          f"HUD {len(packet.hud_text)} B, poses {len(packet.poses)} B")
    rows = []
    for name, script in (("player standing (guard_figures)", standing), ("player walking", walking)):
        figures = page_figures(World.demo(seed=0), script, seconds=10.0)
        rows.append((name, *(f"{figures[f'{kind}_bytes_per_s'] / 1024:.1f}" for kind in (*KINDS, "total")),
                     f"{figures['step_ms']:.2f}", f"{figures['encode_ms']:.3f}"))
    print_table(("a watching page, demo world, enemy cutting, 10 s", "chunk meshes KiB/s", "poses KiB/s",
                 "frame JSON KiB/s", "HUD KiB/s", "total KiB/s (<= 100)", "World.step median ms",
                 "encode median ms"), rows)
    rows = [("walking; 3 NPCs, enemy cutting", *direct(World.demo(seed=0), walking)),
            ("suck held at the wall; 8 NPCs, enemy cutting", *direct(endless_suck_world(), sucking))]
    print_table(("PlayServer.step_frame on the demo world", "World.step median ms", "encode median ms",
                 "frame median ms", "frame p95 ms", "chunk messages / frame", "KiB / frame median",
                 "KiB / frame mean", "KiB / frame p95", "KiB / frame max", "KiB / s at 60 fps"), rows)
    e2e = end_to_end(endless_suck_world())
    print_table(("served, one websocket page sucking the wall for 5 s", "frames received / s",
                 "frame numbers / s", "KiB received / s", "KiB / frame received", "messages / s",
                 "frames stepped", "inputs sent"), [("suck held at the wall; 8 NPCs, enemy cutting", *e2e)])
    players_part(False, args.profile)


def players_part(quick: bool, profile: bool) -> None:
    """The several players' rows (:func:`players_figures`), short with ``quick``; then, with ``profile``, where the
    time goes (:func:`players_profile`)."""
    print(f"\nSeveral players (issue #35); load average {os.getloadavg()[0]:.2f}")
    players_table(players_figures(warm_up=30, frames=60, runs=1) if quick else players_figures())
    seat_pages_table(seconds=1.0 if quick else 4.0)
    if profile:
        players_profile(frames=60 if quick else 300)


if __name__ == "__main__":
    main()
