"""Navigation benchmarks (issue #4). Run: ``.venv/bin/python benchmarks/navigation.py``.

`NavMesh.find_path` on the nav_test level (``../shared/scenes/nav_test.obj``) baked with Recast's demo
parameters over a search region covering the scene: random pairs of points on the same island (seeded), each
call timed on its own (snapping both points, the search, the funnel, the NavPath), median and 90th percentile.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from voxelworld.navigation import NavSettings, Scene, SearchRegion  # noqa: E402
from voxelworld.navigation.bake import bake  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from terrain import machine  # noqa: E402

NAV_TEST = Path(__file__).resolve().parents[2] / "shared" / "scenes" / "nav_test.obj"
PAIRS = 1000


def nav_test_mesh():
    """The nav_test level baked as in docs/benchmarks.md (Recast's demo parameters), and the bake's time (s)."""
    scene = Scene.from_obj(NAV_TEST)
    lo, hi = scene.bounds()
    settings = NavSettings.from_recast(cell_size=0.3, agent_height=2.0, agent_radius=0.6, agent_max_climb=0.9,
                                       agent_max_slope=45, region_min_size=8)
    region = SearchRegion(tuple(lo - 1.0), tuple(hi + 1.0))
    bake(scene, region, settings)  # warm-up: numba compilation, caches
    start = time.perf_counter()
    mesh = bake(scene, region, settings)
    return mesh, time.perf_counter() - start


def same_island_pairs(mesh, count: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    island = np.empty(mesh.polygon_count, dtype=np.int64)
    for number, members in enumerate(mesh.islands()):
        island[members] = number
    pairs = []
    while len(pairs) < count:
        a, b = mesh.random_point(rng), mesh.random_point(rng)
        if island[mesh.locate(a)] == island[mesh.locate(b)]:
            pairs.append((a, b))
    return pairs


def find_path_times(mesh, pairs) -> tuple[np.ndarray, np.ndarray]:
    """Seconds per call and path lengths (m), after one warm-up pass over every pair."""
    for a, b in pairs:
        mesh.find_path(a, b)
    times, lengths = np.empty(len(pairs)), np.empty(len(pairs))
    for n, (a, b) in enumerate(pairs):
        start = time.perf_counter()
        path = mesh.find_path(a, b)
        times[n] = time.perf_counter() - start
        lengths[n] = path.length
    return times, lengths


def main() -> None:
    mesh, bake_time = nav_test_mesh()
    pairs = same_island_pairs(mesh, PAIRS)
    times, lengths = find_path_times(mesh, pairs)
    straight = np.array([np.linalg.norm(a - b) for a, b in pairs])
    us = times * 1e6
    rows = [(f"`find_path`, nav_test, {mesh.polygon_count} polygons, {PAIRS} random pairs on one island",
             f"{np.median(us):.0f} µs", f"p90 {np.percentile(us, 90):.0f} µs, max {us.max():.0f} µs; "
             f"median path {np.median(lengths):.1f} m ({np.median(lengths / straight):.2f} x straight)",
             "median <= 100 µs"),
            ("nav_test bake (Recast's demo parameters)", f"{bake_time:.2f} s", f"{mesh.area():.0f} m² walkable",
             "<= 0.5 s")]
    print(f"\nMachine: {machine()}\n")
    print("| benchmark | median | result | target |")
    print("|---|---:|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
