"""A world of real size (issue #17): generation, memory, the world file, the first picture, frames while
sprinting, triangles in view by level of detail. Run: ``.venv/bin/python benchmarks/large_world.py``
(``--size 1024`` is the issue's world; smaller sizes run faster).

Each figure runs in a fresh process (``multiprocessing`` spawn), so the resident memory of one does not carry into
the next: generation (chunks/s, peak RSS), writing and loading the world file (its size; load_world builds the
World, which meshes the view around the player: the time a page waits for its first picture), and a minute of
sprinting across the world at 60 frames a second, as ``voxelworld play`` runs it (World.step median and p95; the
streaming work runs on the mesher's background thread between and beside the frames), RSS while playing,
triangles in view per level.
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
from terrain import print_table


def rss_mib() -> float:
    """The process's resident memory now, MiB."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 2**20


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def generate(size: float, seed: int, path: str) -> dict:
    from voxelworld.game.settings import LARGE_WORLD_SETTINGS
    from voxelworld.game.world import World
    from voxelworld.io import save_world
    from voxelworld.terrain import GeneratorSettings, generate_world

    start = time.perf_counter()
    volume = generate_world(GeneratorSettings(size=size, seed=seed))
    seconds = time.perf_counter() - start
    chunks = int(np.prod(volume.chunk_grid_shape))
    figures = {"generate s": seconds, "chunks/s": chunks / seconds, "chunks": chunks,
               "stored chunks": volume.stored_chunks(), "field MiB": volume.field_bytes / 2**20,
               "RSS after generation MiB": rss_mib(), "peak RSS generating MiB": peak_mib()}
    start = time.perf_counter()
    world = World(volume, settings=LARGE_WORLD_SETTINGS)
    figures["mesh the view s"] = time.perf_counter() - start
    start = time.perf_counter()
    save_world(world, path)
    figures["save s"] = time.perf_counter() - start
    figures["file MiB"] = Path(path).stat().st_size / 2**20
    return figures


def voxels_in_memory(world) -> str:
    """The chunks of voxels in memory (of those holding arrays, the others left in the world file) and their MiB,
    in the world's volume and in its mesher's copy."""
    parts = []
    for volume in (world.volume, world.mesher._fields):
        parts.append(f"{volume.resident_chunks()} of {volume.stored_chunks()} ({volume.field_bytes / 2**20:.0f} MiB)")
    return " / ".join(parts)


def play(path: str, seconds: float) -> dict:
    from voxelworld.game.world import Inputs
    from voxelworld.io import load_world
    from voxelworld.meshing import MAX_DETAIL_LEVEL

    start = time.perf_counter()
    world = load_world(path)
    figures = {"load and first picture s": time.perf_counter() - start, "RSS loaded MiB": rss_mib(),
               "voxel chunks in memory after load (the world's / the mesher's copy)": voxels_in_memory(world)}
    steps = []
    yaws = (90.0, 0.0, 270.0, 180.0)
    mesher, late = world.mesher, []
    apply_changes = mesher.apply_changes

    def counted(prepared):  # whether the background work was still running when the world came for it
        late.append(not prepared.done())
        return apply_changes(prepared)

    mesher.apply_changes = counted
    tick = time.perf_counter()
    for frame in range(int(seconds * 60)):
        inputs = Inputs(move=(0.0, 1.0), look=(yaws[(frame // 600) % 4], 0.0), sprint=True)
        begin = time.perf_counter()
        world.step(inputs)
        end = time.perf_counter()
        steps.append(end - begin)
        # 60 frames a second, as `voxelworld play` runs the world: the second core works between frames too.
        tick = max(tick + 1 / 60, end)
        time.sleep(max(tick - end, 0.0))
    steps = np.array(steps) * 1000
    wanted = world._stream_target(None)
    figures |= {"step median ms": float(np.median(steps)), "step p95 ms": float(np.percentile(steps, 95)),
                "step max ms": float(steps.max()),
                "background jobs late / made": f"{sum(late)} / {len(late)}",
                "chunks behind the wanted level at the end": 0 if wanted is None else int(
                    (wanted[1] != mesher.detail_levels).sum()),
                "RSS playing MiB": rss_mib(), "peak RSS MiB": peak_mib(),
                "voxel chunks in memory after the sprint (the world's / the mesher's copy)": voxels_in_memory(world)}
    by_level = np.zeros(MAX_DETAIL_LEVEL + 1, dtype=np.int64)
    for chunk, mesh in mesher.meshes.items():
        by_level[mesher.detail_levels[chunk]] += mesh.triangle_count
    figures["triangles in view"] = int(by_level.sum())
    figures["triangles by level"] = " / ".join(str(int(n)) for n in by_level)
    figures["chunks meshed"] = int(mesher.active.sum())
    return figures


def page(path: str, screenshot: str) -> dict:
    """The play page of ``voxelworld play --world path`` in headless chromium (SwiftShader, 1280 x 720) from the
    player's start: frames a second, and its picture in ``screenshot``."""
    from page import ARGS, CHROMIUM, ROOT, PlayProcess, frames_per_second
    from playwright.sync_api import sync_playwright

    started = time.perf_counter()
    play = PlayProcess(ROOT / "src", ["--world", path])
    served = time.perf_counter() - started
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                fps, share = frames_per_second(browser, play.url, True, Path(screenshot), timeout=600.0)
            finally:
                browser.close()
    finally:
        play.stop()
    return {"play: served after s": served, "page frames/s (1280x720, SwiftShader)": fps,
            "page share of pixels drawn": share if share is not None else "-"}


def in_process(function, *args) -> dict:
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(function, args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=float, default=1024.0, help="the world's extent in m (default: 1024)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of sprinting (default: 60)")
    parser.add_argument("--screenshot", help="also open the play page in chromium, count its frames a second and "
                                             "save its picture to this PNG")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "big.vwd")
        made = in_process(generate, args.size, args.seed, path)
        played = in_process(play, path, args.seconds)
        if args.screenshot:
            played |= page(path, args.screenshot)
    rows = [(name, f"{value:.3g}" if isinstance(value, float) else value) for name, value in (made | played).items()]
    print(f"\nA {args.size:g} m x 128 m x {args.size:g} m world of 0.5 m voxels, seed {args.seed}, "
          f"LARGE_WORLD_SETTINGS (view 500 m), {args.seconds:g} s of sprinting")
    print_table(("figure", "value"), rows)


if __name__ == "__main__":
    main()
