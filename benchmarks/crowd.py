"""Crowd benchmarks (issue #16 §3). Run: ``.venv/bin/python benchmarks/crowd.py``.

Two rooms of 12 m x 12 m joined by a doorway (a navmesh for agents of radius 0.3 m: 2 m of the doorway is
walkable for their centres): ``voxelworld.navigation.scenes.doorway_navmesh``, which the crowd's tests walk too. Half the agents start in a block in each room and
walk to the mirror spot in the other room (x mirrored), at 1.4 m/s, stepped at 30 Hz:

- `Crowd.step` with 25, 100 and 200 agents: the median of the first 300 steps after a warm-up crowd (numba
  compiled, the caches full): the approach, the meeting at the doorway and the first through it, the densest
  part; also the p90, the per-agent cost and the separation's work;
- `set_goal` of every agent (a path each, `NavQuery.find_path`), per agent.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from voxelworld.navigation import Crowd  # noqa: E402
from voxelworld.navigation.scenes import doorway_navmesh  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from terrain import print_table  # noqa: E402

CELL = 0.25  # m
ROOM, WALL, DOOR = 12.0, 0.5, 2.0  # m: each room's side, the wall between them, the doorway's walkable width
RADIUS, SPEED, DT = 0.3, 1.4, 1 / 30  # m, m/s, s
STEPS = 300


def swapping_crowd(mesh, count: int) -> tuple[Crowd, float]:
    """``count`` agents, half in a block in each room, each walking to its mirror spot; and the seconds per
    agent its ``set_goal`` took."""
    side = int(np.ceil(np.sqrt(count / 2)))
    spots = [(1.5 + i * 0.95, 1.5 + k * (9.0 / max(side - 1, 1))) for i in range(side) for k in range(side)]
    crowd = Crowd(mesh)
    ids = []
    for west in (True, False):
        for x, z in spots[:count // 2]:
            ids.append(crowd.add_agent((x if west else 2 * ROOM + WALL - x, 0.0, z), RADIUS, SPEED))
    start = time.perf_counter()
    for agent in ids:
        x, _, z = crowd.position(agent)
        crowd.set_goal(agent, (2 * ROOM + WALL - x, 0.0, z))
    return crowd, (time.perf_counter() - start) / len(ids)


def step_times(mesh, count: int) -> tuple[np.ndarray, float]:
    """Seconds per `step` of the first STEPS steps, and the set_goal seconds per agent."""
    crowd, plan = swapping_crowd(mesh, count)
    times = np.empty(STEPS)
    for n in range(STEPS):
        start = time.perf_counter()
        crowd.step(DT)
        times[n] = time.perf_counter() - start
    return times, plan


def main() -> None:
    mesh = doorway_navmesh(ROOM, WALL, DOOR, CELL)
    step_times(mesh, 50)  # warm-up: numba compilation, caches
    rows = []
    for count in (25, 100, 200):
        times, plan = step_times(mesh, count)
        ms = times * 1000
        rows.append((f"`Crowd.step`, {count} agents swapping rooms through a doorway, first {STEPS} steps",
                     f"{np.median(ms):.2f} ms", f"p90 {np.percentile(ms, 90):.2f} ms; "
                     f"{np.median(ms) * 1000 / count:.1f} µs per agent; `set_goal` {plan * 1e6:.0f} µs per agent",
                     "<= 2 ms at 100 agents" if count == 100 else "-"))
    print_table(("benchmark", "median", "result", "target"), rows)


if __name__ == "__main__":
    main()
