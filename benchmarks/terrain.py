"""Terrain edit benchmarks on a 128³ world (issue #2). Run: ``.venv/bin/python benchmarks/terrain.py``.

Prints a markdown table of medians (ms) for docs/benchmarks.md, with the machine it ran on. Each digging edit
runs on a fresh spot of the demo terrain (a new hole every call, as a player digs), so every call does real
work on memory it has not just touched. ``scipy.ndimage.label`` on the same 64³ region is the reference row
for ``remove_fragments``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numba
import numpy as np
import scipy
import scipy.ndimage as ndi

from voxelworld.terrain import FIELDS, Box, Sphere, Tool, demo_terrain

SIZE = 128
RADIUS = 8.0


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (f"{cpu}, {os.cpu_count()} cores, {memory:.0f} GiB; Python {platform.python_version()}, "
            f"numpy {np.__version__}, numba {numba.__version__}, scipy {scipy.__version__}")


def print_table(header: tuple[str, ...], rows, align: str = "---:") -> None:
    """The machine, then a Markdown table: the first column left-aligned, the others as ``align`` says."""
    print(f"\nMachine: {machine()}\n")
    print("| " + " | ".join(header) + " |")
    print("|---|" + "|".join(align for _ in header[1:]) + "|")
    for row in rows:
        print("| " + " | ".join(str(cell) for cell in row) + " |")


def surface_spots(volume, count_per_axis: int = 6) -> list[tuple[float, float, float]]:
    """Points on the terrain surface spread over the world, a radius away from its edges."""
    spots = []
    for x in np.linspace(12, SIZE - 12, count_per_axis):
        for z in np.linspace(12, SIZE - 12, count_per_axis):
            column = volume.density[int(x), :, int(z)] >= volume.iso
            top = int(np.flatnonzero(column).max())
            spots.append((float(x), float(top), float(z)))
    return spots


def timed(call) -> tuple[float, object]:
    start = time.perf_counter()
    result = call()
    return (time.perf_counter() - start) * 1000.0, result


def bench_digging(rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"remove": [], "scrape": [], "add": []}
    for round_ in range(rounds):
        volume = demo_terrain(seed=round_, size=SIZE, height=SIZE)
        spots = surface_spots(volume)
        tool = Tool()
        for spot in spots:
            times["remove"].append(timed(lambda: volume.remove(Sphere(spot, RADIUS), tool=tool))[0])
        volume = demo_terrain(seed=round_, size=SIZE, height=SIZE)
        for spot in spots:
            for _ in range(3):  # held suck: the same range peels layer after layer
                times["scrape"].append(timed(lambda: volume.scrape(Sphere(spot, RADIUS), 64, tool=tool))[0])
        for spot in spots:
            times["add"].append(timed(lambda: volume.add(Sphere(spot, RADIUS), "soil"))[0])
    return times


CLODS = 300


def fragment_world(seed: int):
    """The demo terrain after digging: a 64³ judgment region holding the surface and ``CLODS`` loose clods of
    soil (1 or 8 voxels) in the air above it, apart from each other and from the ground."""
    volume = demo_terrain(seed=seed, size=SIZE, height=SIZE)
    rng = np.random.default_rng(seed)
    lo = np.array([32, 20, 32])
    placed = 0
    while placed < CLODS:
        corner = lo + 1 + rng.integers(0, 60, size=3)
        size = int(rng.integers(1, 3))
        if (volume.density[tuple(slice(c - 1, c + size + 1) for c in corner)] == 0).all():
            window = tuple(slice(c, c + size) for c in corner)
            volume.density[window] = 255
            volume.mat_a[window] = volume.materials.id_of("soil")
            placed += 1
    region = Box(tuple(float(v) for v in lo), tuple(float(v) for v in lo + 63))
    return volume, region, tuple(slice(c, c + 64) for c in lo)


def bench_fragments(runs: int) -> dict[str, list[float]]:
    volume, region, window = fragment_world(seed=1)
    saved = {name: getattr(volume, name).copy() for name in FIELDS}
    times: dict[str, list[float]] = {"remove_fragments": [], "scipy_label": []}
    erased = []
    for _ in range(runs):
        for name in FIELDS:
            getattr(volume, name)[...] = saved[name]
        took, result = timed(lambda: volume.remove_fragments(region))
        times["remove_fragments"].append(took)
        erased.append(result.fragments_erased)
        times["scipy_label"].append(timed(lambda: ndi.label(saved["density"][window] >= volume.iso))[0])
    print(f"(remove_fragments erased {erased[0]} fragments per run; the region holds "
          f"{ndi.label(saved['density'][window] >= volume.iso)[1]} components)")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="fresh worlds for the digging edits (36 spots each)")
    parser.add_argument("--runs", type=int, default=41, help="runs of the fragment benchmark")
    args = parser.parse_args()
    # Warm up: compile (or load cached) kernels before timing.
    warm = demo_terrain(seed=9, size=48, height=32)
    warm.remove(Sphere((20.0, 13.0, 20.0), 3.0))
    warm.scrape(Sphere((20.0, 13.0, 20.0), 3.0), 10)
    warm.add(Sphere((20.0, 13.0, 20.0), 3.0), "soil")
    warm.remove_fragments()

    results = {**bench_digging(args.rounds), **bench_fragments(args.runs)}
    targets = {"remove": "<= 0.1", "scrape": "<= 0.3", "add": "-", "remove_fragments": "<= 1",
               "scipy_label": "reference"}
    what = {"remove": f"`remove`, sphere r={RADIUS:g} voxels, fresh spot each call",
            "scrape": f"`scrape`, sphere r={RADIUS:g}, step 64, 3 frames per spot",
            "add": f"`add`, sphere r={RADIUS:g}",
            "remove_fragments": f"`remove_fragments`, 64³ region with the surface and {CLODS} loose clods",
            "scipy_label": "`scipy.ndimage.label(density >= iso)`, same 64³ region"}
    print_table(("benchmark (128³ world)", "runs", "median ms", "min ms", "target ms"),
                [(what[name], len(samples), f"{np.median(samples):.4f}", f"{np.min(samples):.4f}", targets[name])
                 for name, samples in results.items()])


if __name__ == "__main__":
    main()
