"""Where a sprinting frame's time goes (issue #34): the sprint of ``large_world.py`` on a world file, each frame
tagged by what it did, and per kind of frame its share, its wall and CPU medians and each World stage's mean.
Run: ``.venv/bin/python benchmarks/frame_parts.py WORLD.vwd [--seconds 30]`` (a copy of the file is played).

A frame's kind joins what happened in it: ``cut`` (edits applied), ``step`` (a streaming step changed the meshed
chunks), ``prepare`` (a background display job asked for), ``land`` (one landed), ``navask`` (navmesh tiles asked
for), ``navland`` (tiles baked or dropped), ``rebake`` (tiles baked again after a dig); ``plain``: none of them.
CPU is the world's thread's own time (``time.thread_time``): a frame whose wall time is well above it waited (for
the GIL a background thread held, or for a core). The frames over 12 ms are the issue's p95 line.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from large_world import sprint
from terrain import print_table

SLOW_MS = 12.0


def tagged(owner: object, name: str, tag: str, flags: set[str]) -> None:
    """Replace the method ``name`` of the object ``owner`` by one that adds ``tag`` to ``flags`` when called."""
    method = getattr(owner, name)

    def called(*args, **kwargs):
        flags.add(tag)
        return method(*args, **kwargs)

    setattr(owner, name, called)


def frame_parts(path: str, seconds: float) -> tuple[list[tuple], list[str], float]:
    """Sprint on a copy of the world file ``path``: rows by kind of frame, the stages' names and the median of a
    frame's wall minus its CPU time (ms)."""
    from voxelworld.game.world import freeze_startup_objects
    from voxelworld.io import load_world
    from voxelworld.warmup import load_compiled_kernels

    world = load_world(path)
    load_compiled_kernels()
    freeze_startup_objects()
    flags: set[str] = set()
    for name, tag in (("defer_changes", "step"), ("prepare_deferred", "prepare"), ("apply_changes", "land")):
        tagged(world.mesher, name, tag, flags)
    stage_times: dict[str, float] = {}
    run_stage = world._stage

    def timed_stage(stage, inputs, work):
        begin = time.perf_counter()
        run_stage(stage, inputs, work)
        stage_times[stage] = stage_times.get(stage, 0.0) + time.perf_counter() - begin

    world._stage = timed_stage  # (World.step calls its own _stage: this instance's)
    tagged_navigation = []
    kinds, cpus, stages, cpu_start = [], [], [], [0.0]

    def before() -> None:
        navigation = world.agents.navigation
        if navigation is not None and not tagged_navigation and navigation.tiled is not None:
            tagged_navigation.append(navigation)
            tagged(navigation.tiled, "change", "navland", flags)
            tagged(navigation, "_ask", "navask", flags)
            tagged(navigation, "update", "rebake", flags)
        flags.clear()
        stage_times.clear()
        cpu_start[0] = time.thread_time()

    def after() -> None:
        cpus.append(time.thread_time() - cpu_start[0])
        if world.applied_edits:
            flags.add("cut")
        kinds.append("+".join(sorted(flags)) or "plain")
        stages.append(dict(stage_times))

    walls = sprint(world, seconds, before, after) * 1000
    cpus_ms = np.array(cpus) * 1000
    names = list(dict.fromkeys(name for row in stages for name in row))
    by_kind = defaultdict(list)
    for index, kind in enumerate(kinds):
        by_kind[kind].append(index)
    rows = [("all", len(walls), 100.0, np.median(walls), np.percentile(walls, 95), np.median(cpus_ms),
             int((walls > SLOW_MS).sum()), *(np.mean([row.get(n, 0.0) for row in stages]) * 1000 for n in names))]
    for kind, frames in sorted(by_kind.items(), key=lambda item: -len(item[1])):
        wall, cpu = walls[frames], cpus_ms[frames]
        rows.append((kind, len(frames), 100 * len(frames) / len(walls), np.median(wall), np.percentile(wall, 95),
                     np.median(cpu), int((wall > SLOW_MS).sum()),
                     *(np.mean([stages[i].get(n, 0.0) for i in frames]) * 1000 for n in names)))
    return rows, names, float(np.median(walls - cpus_ms))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("world", help="a world file (.vwd): played from a copy")
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds of sprinting (default: 30)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        copy = str(Path(folder) / "world.vwd")
        shutil.copyfile(args.world, copy)
        rows, names, waited = frame_parts(copy, args.seconds)
    print(f"\n{args.seconds:g} s of sprinting on {args.world}")
    print_table(("frames", "n", "%", "wall median ms", "wall p95 ms", "CPU median ms", f"over {SLOW_MS:g} ms"),
                [(kind, n, f"{share:.1f}", f"{wall:.2f}", f"{p95:.2f}", f"{cpu:.2f}", slow)
                 for kind, n, share, wall, p95, cpu, slow, *_ in rows])
    print(f"\nA frame's wall minus its CPU time, median: {waited:.2f} ms\n\nEach stage's mean (ms), by kind of frame:")
    print("\n| " + " | ".join(("frames", *names)) + " |\n|---|" + "|".join("---:" for _ in names) + "|")
    for row in rows:
        print("| " + " | ".join((row[0], *(f"{t:.2f}" for t in row[7:]))) + " |")


if __name__ == "__main__":
    main()
