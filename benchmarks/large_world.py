"""A world of real size (issues #17 and #34): what a user waits for and what playing costs, as a user meets them.
Run: ``.venv/bin/python benchmarks/large_world.py`` (``--size 1024``, the issue's world, by default; ``--size 2048``
for what grows with the world; ``--page`` also opens the play page in chromium; ``--no-bake`` skips the bake).

Each part runs in a fresh process, so the memory of one does not carry into the next:

- ``voxelworld new --size S --seed 7`` as a command: seconds and its peak resident memory;
- ``voxelworld bake`` of a copy of that file (``--workers 2``): seconds;
- ``voxelworld play --world`` of the file as ``new`` wrote it and of the baked copy: seconds until it serves its page;
  with ``--page``, the page opened in headless chromium (SwiftShader, 1280 x 720) on the baked copy: seconds from
  opening it to its first picture with terrain, then frames a second at its automatic quality and with
  ``?quality=default``;
- the host's speed at the start and at the end (:func:`host_reference`: the figures of two runs compare beside it);
- ``load_world`` of the baked copy, then 60 s of sprinting in a square of 10 s sides at 60 frames a second, as
  ``voxelworld play`` runs the world (``freeze_startup_objects`` after the load, as it does): World.step median,
  p95 and max, background streaming jobs still running when their frame came for them, resident memory, what is
  on the ground and which actors are awake, the navmesh tiles and display meshes read from the bake and those
  made; then the same sprint on the file as ``new`` wrote it (its load, frame and tiles baked).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np
from terrain import print_table

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")


def rss_mib() -> float:
    """The process's resident memory now, MiB."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 2**20


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def command(*arguments: str) -> tuple[float, float, str]:
    """``voxelworld ARGUMENTS`` from this checkout's sources: seconds, the child's peak resident memory (MiB; run
    in a fresh process, so the peak is this command's) and what it printed."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "voxelworld.cli", *arguments], env=env, capture_output=True,
                          text=True, cwd=tempfile.gettempdir())
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"voxelworld {' '.join(arguments)} failed:\n{done.stdout}\n{done.stderr}")
    return seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, done.stdout


def new(size: float, seed: int, path: str) -> dict:
    seconds, peak, _ = command("new", "--size", f"{size:g}", "--seed", str(seed), path)
    return {"voxelworld new s": seconds, "voxelworld new peak RSS MiB": peak,
            "world file MiB": Path(path).stat().st_size / 2**20}


def bake(path: str) -> dict:
    seconds, peak, _ = command("bake", path, "--workers", "2")
    return {"voxelworld bake --workers 2 s": seconds, "baked world file MiB": Path(path).stat().st_size / 2**20}


def served_after(path: str) -> float:
    from page import PlayProcess

    started = time.perf_counter()
    play = PlayProcess(ROOT / "src", ["--world", path])
    seconds = time.perf_counter() - started
    play.stop()
    return seconds


def page(path: str, screenshot: str | None) -> dict:
    """``voxelworld play --world path`` and its page in headless chromium (SwiftShader, 1280 x 720) from the
    player's start: served after, first picture after the page opened, frames a second at the automatic quality
    and at ``?quality=default``."""
    from page import ARGS, CHROMIUM, PlayProcess, frames_per_second
    from playwright.sync_api import sync_playwright

    started = time.perf_counter()
    play = PlayProcess(ROOT / "src", ["--world", path])
    figures: dict = {"play --world (the page's server): served after s": time.perf_counter() - started}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                tab = browser.new_page(viewport={"width": 1280, "height": 720})
                opened = time.perf_counter()
                tab.goto(play.url)
                tab.wait_for_function("window.voxelworld && window.voxelworld.stats.chunks > 0 && "
                                      "window.voxelworld.stats.rendered > 0", timeout=600_000)
                figures["first picture after the page opened s"] = time.perf_counter() - opened
                tab.close()
                for name, query in (("automatic quality", ""), ("?quality=default", "?quality=default")):
                    shot = Path(screenshot).with_stem(Path(screenshot).stem + (query and "-default")) \
                        if screenshot else None
                    fps, share = frames_per_second(browser, play.url + query, False, shot, timeout=600.0)
                    figures[f"page frames/s, {name} (share of pixels)"] = f"{fps:.3g} ({share})"
            finally:
                browser.close()
    finally:
        play.stop()
    return figures


def voxels_in_memory(world) -> str:
    """The chunks of voxels in memory (of those holding arrays, the others left in the world file) and their MiB,
    in the world's volume and in its mesher's copy."""
    parts = []
    for volume in (world.volume, world.mesher._fields):
        parts.append(f"{volume.resident_chunks()} of {volume.stored_chunks()} ({volume.field_bytes / 2**20:.0f} MiB)")
    return " / ".join(parts)


def population(world) -> dict:
    """What is on the ground and who is awake (whatever of it the world has)."""
    figures = {}
    things = getattr(world, "ground_things", None)
    if things is not None and hasattr(things, "count"):
        figures["things on the ground made (in the streamed area)"] = things.count()
    agents = world.agents
    figures["actors awake (NPCs / enemies)"] = f"{len(agents.npcs)} / {len(agents.enemies)}"
    regions = getattr(world, "regions", None)
    if regions is not None and hasattr(regions, "sleeping_count"):
        figures["actors asleep"] = regions.sleeping_count()
    return figures


def play(path: str, seconds: float) -> dict:
    from voxelworld.game.streaming import STREAM_LAG
    from voxelworld.game.world import freeze_startup_objects
    from voxelworld.io import load_world
    from voxelworld.meshing import MAX_DETAIL_LEVEL
    from voxelworld.warmup import load_compiled_kernels

    start = time.perf_counter()
    world = load_world(path)
    loaded = time.perf_counter()
    load_compiled_kernels()  # as `voxelworld play` does once its world is loaded
    freeze_startup_objects()
    figures = {"load_world s": loaded - start, "the other compiled kernels loaded s": time.perf_counter() - loaded,
               "RSS loaded MiB": rss_mib()}
    figures |= population(world)
    # A background job is late when its display work lands more than STREAM_LAG frames after it was asked for: the
    # next streaming step came and found it still running (the world never waits for it; the page does).
    mesher, waits, asked = world.mesher, [], {}
    prepare_deferred, apply_changes = mesher.prepare_deferred, mesher.apply_changes

    def started(chunks, **options):
        prepared = prepare_deferred(chunks, **options)
        asked[id(prepared)] = world.frame
        return prepared

    def landed(prepared):
        if id(prepared) in asked:
            waits.append(world.frame - asked.pop(id(prepared)))
        return apply_changes(prepared)

    mesher.prepare_deferred, mesher.apply_changes = started, landed
    steps = sprint(world, seconds) * 1000
    figures |= {"step median ms": float(np.median(steps)), "step p95 ms": float(np.percentile(steps, 95)),
                "step max ms": float(steps.max()),
                "background jobs late / made": f"{sum(w > STREAM_LAG for w in waits)} / {len(waits)} "
                                                f"({100 * sum(w > STREAM_LAG for w in waits) / max(len(waits), 1):.1f} %)",
                "frames from asking to landing (median / max)":
                    f"{np.median(waits) if waits else 0:.0f} / {max(waits, default=0)}",
                "RSS playing MiB": rss_mib(), "peak RSS MiB": peak_mib(),
                "voxel chunks in memory after the sprint (the world's / the mesher's copy)": voxels_in_memory(world)}
    figures |= {f"{name} after the sprint": value for name, value in population(world).items()}
    by_level = np.zeros(MAX_DETAIL_LEVEL + 1, dtype=np.int64)
    for chunk, mesh in mesher.meshes.items():
        by_level[mesher.detail_levels[chunk]] += mesh.triangle_count
    navigation = world.agents.navigation
    if navigation is not None:
        figures["navmesh tiles read from the bake / baked"] = f"{navigation.tiles_read} / {navigation.tiles_baked}"
    figures["display chunks taken from the bake / meshed"] = f"{mesher.chunks_adopted} / {mesher.chunks_meshed}"
    figures["triangles in view"] = int(by_level.sum())
    figures["triangles by level"] = " / ".join(str(int(n)) for n in by_level)
    return figures


def sprint(world, seconds: float, before=None, after=None) -> np.ndarray:
    """Sprint ``world`` for ``seconds`` at 60 frames a second, as `voxelworld play` runs it (the second core works
    between frames too), in a square of 10 s sides; ``before`` / ``after`` (optional) are called around each
    World.step. Returns each step's seconds."""
    from voxelworld.game.world import Inputs

    steps = []
    yaws = (90.0, 0.0, 270.0, 180.0)
    tick = time.perf_counter()
    for frame in range(int(seconds * 60)):
        inputs = Inputs(move=(0.0, 1.0), look=(yaws[(frame // 600) % 4], 0.0), sprint=True)
        if before is not None:
            before()
        begin = time.perf_counter()
        world.step(inputs)
        end = time.perf_counter()
        if after is not None:
            after()
        steps.append(end - begin)
        tick = max(tick + 1 / 60, end)
        time.sleep(max(tick - end, 0.0))
    return np.array(steps)


def host_reference() -> float:
    """The host's speed now: scikit-image's ``marching_cubes`` of the meshing guard's 128³ noise field, the median of
    five (ms; third-party code this project never changes). Its ratio between two runs is how much quicker or busier
    the shared machine was: the figures of a run are read beside it (docs/benchmarks.md)."""
    from meshing import median_ms, noise_volume
    from skimage import measure

    samples = noise_volume().density.astype(np.float32)
    measure.marching_cubes(samples, 128)  # (warm)
    return median_ms(lambda: measure.marching_cubes(samples, 128), 5)[0]


def in_process(function: Callable[..., T], *args) -> T:
    """``function(*args)`` in a fresh process (spawned: nothing of this one's memory carried in)."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(function, args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=float, default=1024.0, help="the world's extent in m (default: 1024)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of sprinting (default: 60)")
    parser.add_argument("--no-bake", action="store_true", help="skip the bake (the sprint then plays the file as "
                                                                "new wrote it)")
    parser.add_argument("--page", action="store_true", help="also open the play page in chromium")
    parser.add_argument("--screenshot", help="with --page: save its pictures to this PNG (and NAME-default.png)")
    args = parser.parse_args()
    reference = "host reference: scikit-image marching cubes of a 128³ noise field, ms"
    with tempfile.TemporaryDirectory() as folder:
        path = plain = str(Path(folder) / "big.vwd")
        figures = {f"{reference}, first": in_process(host_reference)}
        figures |= in_process(new, args.size, args.seed, path)
        figures["play --world (as new wrote it): served after s"] = in_process(served_after, path)
        if not args.no_bake:
            baked = str(Path(folder) / "baked.vwd")
            shutil.copyfile(path, baked)
            figures |= in_process(bake, baked)
            path = baked
            figures["play --world (baked): served after s"] = in_process(served_after, path)
        if args.page:
            figures |= page(path, args.screenshot)
        figures |= in_process(play, path, args.seconds)
        if path != plain:  # the same sprint on the file as new wrote it: what the bake saves the frame
            figures |= {f"{name} (not baked)": value for name, value in in_process(play, plain, args.seconds).items()
                        if name.startswith(("load_world", "step ", "navmesh", "display chunks"))}
        figures[f"{reference}, last"] = in_process(host_reference)
    rows = [(name, f"{value:.3g}" if isinstance(value, float) else value) for name, value in figures.items()]
    print(f"\nA {args.size:g} m x 128 m x {args.size:g} m world of 0.5 m voxels, seed {args.seed}, "
          f"LARGE_WORLD_SETTINGS (view 500 m), {args.seconds:g} s of sprinting")
    print_table(("figure", "value"), rows)


if __name__ == "__main__":
    main()
