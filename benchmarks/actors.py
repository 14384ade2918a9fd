"""Actors by region (issue 34). Run: ``.venv/bin/python benchmarks/actors.py [--size 512] [--view 200] [--frames 900]``.

Generates a world of seed 7, populates it (:func:`voxelworld.game.populate.populate`: its sites and their actors
asleep), then sprints across it, and prints: the sites per km² and the time to choose them; the region check a frame
makes (the player within a region: the frame's whole cost of the actors asleep, whatever their number); each look
around as the player crosses into another region, with the actors it put to sleep and woke and what that cost; and
World.step's median and 95th percentile.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

from voxelworld.game.populate import populate
from voxelworld.game.settings import WorldSettings
from voxelworld.game.world import Inputs, World
from voxelworld.terrain import GeneratorSettings, generate_world
from voxelworld.terrain.sites import world_sites


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=float, default=512.0, help="the world's edge (m)")
    parser.add_argument("--view", type=float, default=200.0, help="the view distance (m)")
    parser.add_argument("--frames", type=int, default=900, help="frames sprinting")
    args = parser.parse_args()
    generator = GeneratorSettings(size=args.size, seed=7)
    start = time.perf_counter()
    sites = world_sites(generator)
    chosen = time.perf_counter() - start
    area = (args.size / 1000.0) ** 2
    kinds = Counter(site.kind for site in sites)
    print(f"sites of a {args.size:g} m world: {dict(kinds)} in {chosen:.2f} s; per km²: "
          + ", ".join(f"{kind} {count / area:.0f}" for kind, count in sorted(kinds.items())))
    world = World(generate_world(generator), settings=WorldSettings(view_distance=args.view, enemy_reacts=False))
    start = time.perf_counter()
    counts = populate(world, generator)
    print(f"populate: {counts} in {time.perf_counter() - start:.2f} s; per km²: "
          + ", ".join(f"{kind} {count / area:.0f}" for kind, count in counts.items()))
    regions = world.agents.regions
    handlers = world._handlers["collision_mesh"]
    looks: list[tuple[float, int, int]] = []
    look = regions.look

    def timed(w: World, inputs: Inputs | None = None) -> None:
        asleep, woken = regions.count(), regions.woken
        began = time.perf_counter()
        look(w, inputs)
        looks.append((time.perf_counter() - began, regions.count() - asleep + regions.woken - woken,
                       regions.woken - woken))
    handlers[handlers.index(look)] = timed
    steps = []
    for frame in range(args.frames):
        yaw = 90.0 if frame < args.frames // 2 else 0.0
        began = time.perf_counter()
        world.step(Inputs(move=(0.0, 1.0), look=(yaw, 0.0), sprint=True))
        steps.append(time.perf_counter() - began)
    quiet = [t for t, slept, woke in looks if slept == 0 and woke == 0]
    busy = [(t, slept, woke) for t, slept, woke in looks if slept or woke]
    print(f"region check a frame (nothing to do): median {np.median(quiet) * 1e6:.1f} µs over {len(quiet)} frames")
    for t, slept, woke in busy:
        print(f"  look around: {slept} asleep, {woke} woken: {t * 1e3:.1f} ms")
    ms = np.array(steps) * 1e3
    print(f"World.step: median {np.median(ms):.2f} ms, p95 {np.percentile(ms, 95):.2f} ms; awake at the end: "
          f"{len(world.agents.npcs)} NPCs, {len(world.agents.enemies)} enemies; asleep {regions.count()}")


if __name__ == "__main__":
    main()
