"""Game world benchmarks (issue #6). Run: ``.venv/bin/python benchmarks/game.py``.

Median and 95th percentile of ``World.step`` (ms, Python overhead included) on the demo world, the player
walking a scripted loop, for the world's core alone (no action, NPC or enemy handlers yet) and with a
stand-in for suck: a handler that queues a scrape at the aim point every frame, so every frame applies an
edit, remeshes the chunks it touched and rebuilds the collision BVH. The issue's budget for the whole world
(suck, 8 NPCs, the enemy cutting) is 8 ms.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from voxelworld.game.world import Inputs, VoxelEdit, World  # noqa: E402
from voxelworld.terrain import Sphere  # noqa: E402

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from terrain import print_table  # noqa: E402

WARM_UP, FRAMES = 60, 600


def walking(frame: int) -> Inputs:
    """A slow loop across the hills, looking a little down ahead."""
    return Inputs(move=(0.0, 1.0), look=(270.0 + 0.3 * frame, -25.0), sprint=frame % 240 > 200)


def suck_stand_in(world: World, inputs: Inputs) -> None:
    aim = world.aim_info(max_distance=6.0)
    if aim is not None:
        world.queue_edit(VoxelEdit("scrape", Sphere(aim.point, 0.8), step=32, source="suck"))


def step_times(handlers=()) -> tuple[np.ndarray, World]:
    world = World.demo(seed=0)
    for handler in handlers:
        world.add_handler(handler)
    times = []
    for frame in range(WARM_UP + FRAMES):
        inputs = walking(frame)
        start = time.perf_counter()
        world.step(inputs)
        if frame >= WARM_UP:
            times.append((time.perf_counter() - start) * 1000.0)
    return np.array(times), world


def main() -> None:
    rows = []
    start = time.perf_counter()
    World.demo(seed=0)
    build = (time.perf_counter() - start) * 1000.0
    for name, handlers in (("core: player walking", ()), ("core + a scrape every frame (suck stand-in)",
                                                           (suck_stand_in,))):
        times, world = step_times(handlers)
        edits = sum(1 for e in world.events if type(e).__name__ == "VoxelsEdited")
        rows.append((name, f"{np.median(times):.2f}", f"{np.percentile(times, 95):.2f}", f"{times.max():.2f}",
                     edits, world.collider.triangle_count))
    print(f"World.demo(seed=0): {build:.0f} ms (terrain, props, first meshing, collision BVH)")
    print_table(("World.step on the demo world", "median ms", "p95 ms", "max ms", "edits applied",
                 "collision triangles"), rows)


if __name__ == "__main__":
    main()
