"""Game world benchmarks (issue #6). Run: ``.venv/bin/python benchmarks/game.py``.

Median, 95th percentile and max of ``World.step`` (ms, Python overhead included) on the demo world
(``World.demo(seed=0)``: 96 x 48 x 96 voxels of 0.5 m, props, the chainsaw enemy cutting the rock wall):

- the player walking a scripted loop, with the demo's 3 NPCs patrolling;
- the issue's case: the player 2.4 m from the rock wall holding suck every frame while strafing slowly along
  it (the aim sweeping over the wall and the ground; the gauge's time limit raised so that suck never stops),
  8 NPCs patrolling on the live navmesh, the enemy cutting. Budget: median <= 8 ms;
- the player walking the same loop with a scrape (sphere r = 0.8 m, step 40) queued every frame on the ground
  1.5 m ahead of it: the chunks it digs are the ones drawn at full detail (issue #14). Budget: median <= 8 ms.

Besides the wall-clock times, the median CPU time of a step (``time.process_time``: what this process itself
spent, less disturbed by other work on a shared machine; work on the second core counts in it), and, where the code
poses its characters (``voxelworld.game.poses``, issue #14), what posing every actor costs on its own (median ms,
the suck world). Budgets (issue #29, wall-clock medians on a quiet machine): walking <= 1.5 ms, suck <= 5 ms,
scraping <= 5 ms, p95 <= 10 ms for all three, no step over 25 ms after the warm-up.

Last, memory: the resident size after 1 000 and after 10 000 frames of the suck case (it must stay within 5%: a
frame keeps nothing it does not need). ``--quick`` leaves that row out. :func:`budget_figures` is what
``benchmarks/guard.py`` runs: shorter runs of the three budget rows.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import dataclasses  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import replace  # noqa: E402

import numpy as np  # noqa: E402

from voxelworld.game import world as world_module  # noqa: E402
from voxelworld.game.edits import VoxelEdit  # noqa: E402
from voxelworld.game.play import ActionSettings  # noqa: E402
from voxelworld.game.world import Inputs, World, WorldSettings  # noqa: E402
from voxelworld.terrain import Sphere  # noqa: E402

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from terrain import print_table  # noqa: E402

WARM_UP, FRAMES = 60, 600


def walking(frame: int) -> Inputs:
    """A slow loop across the hills, looking a little down ahead."""
    return Inputs(move=(0.0, 1.0), look=(270.0 + 0.3 * frame, -25.0), sprint=frame % 240 > 200)


def sucking(frame: int) -> Inputs:
    """Suck held, strafing slowly along the wall (1.2 m/s towards -z), the aim sweeping over the wall and the
    ground before it (yaw 255..285, pitch -25..5 degrees)."""
    return Inputs(move=(-0.3, 0.0), look=(270.0 + 15.0 * np.sin(frame / 50.0), -10.0 + 15.0 * np.sin(frame / 31.0)),
                  suck=True)


def scraping(world: World):
    """A script: walking (as :func:`walking`), with a scrape queued on the ground 1.5 m ahead before each frame."""
    def script(frame: int) -> Inputs:
        inputs = walking(frame)
        yaw = np.radians(inputs.look[0])
        ahead = world.player.position + 1.5 * np.array([-np.sin(yaw), 0.0, -np.cos(yaw)])
        world.queue_edit(VoxelEdit("scrape", Sphere(tuple(float(v) for v in ahead), 0.8), step=40,
                                   source="benchmark"))
        return inputs
    return script


def punching(frame: int) -> Inputs:
    """Standing at the rock wall, punching it at chest height (a press every 45 frames: each strike into rock plays
    about 42 frames, its edit at its contact frame)."""
    return Inputs(look=(270.0 + 10.0 * np.sin(frame / 90.0), -5.0), punch=frame % 45 == 0)


def digging(frame: int) -> Inputs:
    """The player's shovel held, a slow step forward between digs (the blade reaches a fixed depth)."""
    return Inputs(move=(0.0, 0.5) if frame % 150 >= 130 else (0.0, 0.0), look=(270.0, -20.0), dig=True)


def to_the_wall(world: World) -> None:
    """Walk from the start along +x until 2.4 m from the rock wall's face (x = 38.4 m)."""
    while world.player.position[0] < 36.0:
        world.step(Inputs(move=(0.0, 1.0), look=(270.0, 0.0)))


def step_times(world: World, script) -> tuple[np.ndarray, np.ndarray]:
    """Wall-clock and CPU ms of each step after the warm-up."""
    times, cpu = [], []
    for frame in range(WARM_UP + FRAMES):
        inputs = script(frame)
        start, start_cpu = time.perf_counter(), time.process_time()
        world.step(inputs)
        if frame >= WARM_UP:
            times.append((time.perf_counter() - start) * 1000.0)
            cpu.append((time.process_time() - start_cpu) * 1000.0)
    return np.array(times), np.array(cpu)


def frame_settings(**fields: object) -> WorldSettings:
    """The frame benchmarks' world settings: ``fields`` with the enemies' reaction to the player off (issue 32),
    so the enemy works its wall as the rows always measured; for code without that setting, ``fields`` alone."""
    if "enemy_reacts" in {field.name for field in dataclasses.fields(WorldSettings)}:
        fields["enemy_reacts"] = False
    return WorldSettings(**fields)  # type: ignore[arg-type]


def scenario(name: str) -> tuple[World, object]:
    """A fresh world and its script for one of the budget rows ("walking", "suck" or "scraping") or the player's
    tool motions ("punching", "digging"), the objects alive then frozen out of the garbage collector's reach as
    ``voxelworld play`` freezes them once its world is ready (``voxelworld.game.world.freeze_startup_objects``;
    code from before it had none to call)."""
    world, script = _scenario(name)
    freeze = getattr(world_module, "freeze_startup_objects", None)
    if freeze is not None:
        freeze()
    return world, script


def _scenario(name: str) -> tuple[World, object]:
    if name == "suck":
        endless = frame_settings(actions=ActionSettings(suck=replace(ActionSettings().suck, time_limit=1e6)))
        world = World.demo(seed=0, settings=endless, npcs=8)
        to_the_wall(world)
        return world, sucking
    world = World.demo(seed=0, settings=frame_settings())
    if name == "punching":
        to_the_wall(world)
        return world, punching
    if name == "digging":
        return world, digging
    return world, (walking if name == "walking" else scraping(world))


def budget_figures(frames: int = 120, runs: int = 3) -> dict[str, float]:
    """The budget rows, short: for each scenario one world, the warm-up, then ``runs`` runs of ``frames`` frames;
    the median of the runs' wall-clock medians, and the p95 and max over all their frames (ms)."""
    figures = {}
    for name in ("walking", "suck", "scraping"):
        world, script = scenario(name)
        for frame in range(WARM_UP):
            world.step(script(frame))
        medians, every = [], []
        for run in range(runs):
            times = []
            for frame in range(WARM_UP + run * frames, WARM_UP + (run + 1) * frames):
                inputs = script(frame)
                start = time.perf_counter()
                world.step(inputs)
                times.append((time.perf_counter() - start) * 1000.0)
            medians.append(float(np.median(times)))
            every.extend(times)
        figures[f"{name} median ms"] = float(np.median(medians))
        figures[f"{name} p95 ms"] = float(np.percentile(every, 95))
        figures[f"{name} max ms"] = float(np.max(every))
    return figures


def resident_mib() -> float:
    """This process's resident size (MiB), from /proc/self/statm (Linux)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def memory_row(first: int = 1_000, last: int = 10_000) -> tuple:
    """Resident MiB after ``first`` and after ``last`` frames of the suck case, and the growth between (%)."""
    world, script = scenario("suck")
    for frame in range(first):
        world.step(script(frame))
    at_first = resident_mib()
    for frame in range(first, last):
        world.step(script(frame))
    at_last = resident_mib()
    return (f"resident MiB after {first:,} / {last:,} suck frames".replace(",", " "), f"{at_first:.0f}",
            f"{at_last:.0f}", f"{100.0 * (at_last - at_first) / at_first:+.1f}%", "within 5%")


def posing_ms(world: World, inputs: Inputs) -> float | None:
    """Median ms of posing every actor of ``world`` for one more frame of ``inputs``, again and again from the
    same poses before it (None for code without poses)."""
    try:
        from voxelworld.game.poses import pose_characters
    except ImportError:
        return None
    previous = world.snapshot().characters
    world.step(inputs)
    times = []
    for _ in range(200):
        start = time.perf_counter()
        pose_characters(world, previous, ())
        times.append((time.perf_counter() - start) * 1000.0)
    return float(np.median(times))


def main() -> None:
    rows = []
    start = time.perf_counter()
    World.demo(seed=0, settings=frame_settings())
    build = (time.perf_counter() - start) * 1000.0
    worlds = {name: scenario(name) for name in ("walking", "suck", "scraping", "punching", "digging")}
    titles = {"walking": "walking; 3 NPCs, enemy cutting (budget 1.5 ms)",
              "suck": "suck held at the wall; 8 NPCs, enemy cutting (budget 5 ms)",
              "scraping": "walking, scraping 1.5 m ahead every frame; 3 NPCs, enemy (budget 5 ms)",
              "punching": "punching the rock wall, a strike after another; 3 NPCs, enemy",
              "digging": "digging with the shovel, a step between digs; 3 NPCs, enemy"}
    for name, (world, script) in worlds.items():
        first = len(world.events)
        times, cpu = step_times(world, script)
        events = world.events[first:]
        edits = sum(1 for e in events if type(e).__name__ == "VoxelsEdited")
        updates = sum(1 for e in events if getattr(e, "kind", None) == "suck")
        rebakes = world.agents.navigation.revision
        rows.append((titles[name], f"{np.median(times):.2f}", f"{np.percentile(times, 95):.2f}", f"{times.max():.2f}",
                     f"{np.median(cpu):.2f}", edits, updates, rebakes, len(world.actions.suck.bullets)))
    print(f"World.demo(seed=0): {build:.0f} ms (terrain, props, meshing, collision BVH, navmesh, NPCs, enemy)")
    print_table(("World.step on the demo world", "median ms", "p95 ms", "max ms", "median CPU ms", "edits applied",
                 "suck updates", "navmesh re-bakes", "bullets"), rows)
    sucker = worlds["suck"][0]
    posing = posing_ms(sucker, sucking(WARM_UP + FRAMES))
    if posing is not None:
        print(f"posing every actor (player, 8 NPCs, enemy) on its own: {posing:.3f} ms (median)")
    if "--quick" not in sys.argv:
        print()
        print_table(("memory", "after the first", "after the last", "growth", "target"), [memory_row()])


if __name__ == "__main__":
    main()
