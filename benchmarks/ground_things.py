"""Things on the ground (issue #34): how many a km², what a column costs to make, what they cost a frame.
Run: ``.venv/bin/python benchmarks/ground_things.py``.

- things per km² of each kind on the 1 km default world (``GeneratorSettings(size=1024, seed=7)``, every 4th
  column sampled) and the median time to make one column (:func:`~voxelworld.terrain.scatter.scatter_chunk_column`);
- ``World.step`` (median, p95, ms; CPU median) on a 128 m generated world walking, with and without its things
  (:func:`~voxelworld.game.populate.populate`), alternated A/B: a frame without edits costs them nothing;
- the same with a dig queued every frame under the player's feet (the columns the edits touch are checked).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import time  # noqa: E402

import numpy as np  # noqa: E402

from voxelworld.game.edits import VoxelEdit  # noqa: E402
from voxelworld.game.populate import populate  # noqa: E402
from voxelworld.game.world import Inputs, World, freeze_startup_objects  # noqa: E402
from voxelworld.terrain import GeneratorSettings, Sphere, Tool, generate_world  # noqa: E402
from voxelworld.terrain.scatter import KIND_NAMES, ScatterSettings, column_count, scatter_chunk_column  # noqa: E402


def density(seed: int = 7) -> tuple[dict[str, float], float]:
    generator, settings = GeneratorSettings(size=1024.0, seed=seed), ScatterSettings()
    scatter_chunk_column(generator, settings, (0, 0))  # compiled
    counts, times = np.zeros(len(KIND_NAMES)), []
    across = column_count(generator)[0]
    sampled = [(ci, ck) for ci in range(0, across, 4) for ck in range(0, across, 4)]
    for column in sampled:
        start = time.perf_counter()
        things = scatter_chunk_column(generator, settings, column)
        times.append(time.perf_counter() - start)
        counts += np.bincount(things.kind, minlength=len(KIND_NAMES))
    km2 = len(sampled) * (16.0 * 16.0) / 1e6
    return {name: float(c / km2) for name, c in zip(KIND_NAMES, counts)}, float(np.median(times) * 1000.0)


def frames(world: World, count: int, dig: bool) -> tuple[list[float], list[float]]:
    wall, cpu = [], []
    for n in range(count):
        yaw = (n * 0.5) % 360.0
        if dig:
            feet = world.player.position
            world.queue_edit(VoxelEdit("remove", Sphere(tuple(feet + (1.5, -0.5, 0.0)), 0.6),
                                       tool=Tool(gives_way_below=20.0, unbreakable_from=20.0), source="bench"))
        start, start_cpu = time.perf_counter(), time.process_time()
        world.step(Inputs(move=(0.0, 0.6), look=(yaw, 0.0)))
        wall.append((time.perf_counter() - start) * 1000.0)
        cpu.append((time.process_time() - start_cpu) * 1000.0)
    return wall, cpu


def frame_cost(rounds: int = 3, count: int = 300) -> None:
    generator = GeneratorSettings(size=128.0, height=64.0, seed=7, ground_level=28.0, sand_level=12.0,
                                  hill_height=8.0, cave_density=0.0)
    terrain = generate_world(generator, workers=1)
    worlds = {}
    for name in ("without", "with"):
        world = World(terrain.snapshot(), seed=0)
        if name == "with":
            populate(world, generator)
        worlds[name] = world
    freeze_startup_objects()
    for dig in (False, True):
        results: dict[str, tuple[list[float], list[float]]] = {"without": ([], []), "with": ([], [])}
        for _ in range(rounds):
            for name, world in worlds.items():
                wall, cpu = frames(world, count, dig)
                results[name][0].extend(wall[20:])
                results[name][1].extend(cpu[20:])
        for name, (wall, cpu) in results.items():
            print(f"  {'digging' if dig else 'walking'} {name:>7} things: median {np.median(wall):6.2f} ms, p95 "
                  f"{np.percentile(wall, 95):6.2f} ms, CPU median {np.median(cpu):6.2f} ms")
    things = worlds["with"].ground_things
    assert things is not None
    print(f"  the 128 m world: {sum(len(k.things) for k in things.columns.values())} things in "
          f"{len(things.columns)} columns")


def main() -> None:
    per_km2, column_ms = density()
    print("things per km² (1 km default world, seed 7): " + ", ".join(f"{k} {v:.0f}" for k, v in per_km2.items()))
    print(f"a column made in {column_ms:.3f} ms (median)")
    frame_cost()


if __name__ == "__main__":
    main()
