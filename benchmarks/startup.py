"""Start-up benchmarks (issue #12). Run: ``.venv/bin/python benchmarks/startup.py`` (about 15 minutes).

Every figure is one fresh process, as a user starts one; medians of several runs, wall-clock seconds.

- *cold*: numba's cache is an empty temporary ``NUMBA_CACHE_DIR`` (a fresh clone or a ``pip install`` before
  anything compiled); *warm*: a temporary ``NUMBA_CACHE_DIR`` filled once by ``voxelworld warmup`` (what
  ``scripts/setup`` does), timed as its own row.
- In one process: ``import voxelworld`` with its game (``voxelworld.game.world``: every wing, numba), then the
  demo world's first build (``World.demo()``), then its first frame (``world.step``), each timed on its own.
- The two targets after set-up: ``voxelworld play --port 0`` from its start until its page answers (HTTP 200),
  and ``voxelworld demo --frames 2`` from start to exit (pictures and report included).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from terrain import print_table  # noqa: E402

SRC = str(Path(__file__).resolve().parents[1] / "src")
PLAY_TARGET, DEMO_TARGET = 15.0, 10.0  # s, after set-up (issue #12)

# The child of the in-process rows: seconds of each step, as JSON on its last line.
STEPS = """
import json, time
start = time.perf_counter()
import voxelworld.game.world
from voxelworld.game.world import Inputs, World
imported = time.perf_counter()
world = World.demo()
built = time.perf_counter()
world.step(Inputs())
stepped = time.perf_counter()
print(json.dumps([imported - start, built - imported, stepped - built]))
"""


def environment(cache: str) -> dict[str, str]:
    return dict(os.environ, NUMBA_CACHE_DIR=cache, OPENBLAS_NUM_THREADS="1",
                PYTHONPATH=os.pathsep.join(filter(None, [SRC, os.environ.get("PYTHONPATH")])))


def voxelworld(*args: str) -> list[str]:
    return [sys.executable, "-m", "voxelworld.cli", *args]


def steps(cache: str) -> list[float]:
    result = subprocess.run([sys.executable, "-c", STEPS], env=environment(cache), capture_output=True, text=True,
                            check=True)
    return json.loads(result.stdout.splitlines()[-1])


def timed_command(cache: str, *args: str, cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(voxelworld(*args), env=environment(cache), cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def play_serves(cache: str, cwd: str) -> float:
    """Seconds from starting ``voxelworld play --port 0`` until its page answers."""
    start = time.perf_counter()
    process = subprocess.Popen(voxelworld("play", "--port", "0"), env=environment(cache), cwd=cwd, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        url = next(line.split()[3] for line in process.stdout if line.startswith("voxelworld play: open "))
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as page:
                    if page.status == 200 and page.read():
                        return time.perf_counter() - start
            except OSError:
                time.sleep(0.05)
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="warm runs per row (default 5)")
    parser.add_argument("--cold-runs", type=int, default=3, help="cold runs (each compiles for minutes; default 3)")
    args = parser.parse_args()
    cold = [[] for _ in range(3)]
    for _ in range(args.cold_runs):
        with tempfile.TemporaryDirectory() as cache:
            for row, seconds in zip(cold, steps(cache)):
                row.append(seconds)
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as work:
        warmup = timed_command(cache, "warmup", cwd=work)
        warm = [[] for _ in range(3)]
        play, demo = [], []
        for _ in range(args.runs):
            for row, seconds in zip(warm, steps(cache)):
                row.append(seconds)
            play.append(play_serves(cache, work))
            demo.append(timed_command(cache, "demo", "--frames", "2", "--out", "demo", cwd=work))

    def cell(times: list[float]) -> str:
        return f"{np.median(times):.2f}" if times else "-"

    names = ("`import voxelworld.game.world` (every wing, numba)", "first `World.demo()`",
             "first `world.step` of the demo world")
    rows = [(name, cell(c), cell(w), f"{len(c)} / {len(w)}", "-") for name, c, w in zip(names, cold, warm)]
    rows += [("`voxelworld warmup` (scripts/setup's last step)", f"{warmup:.1f}", "-", "1 / -", "-"),
             ("`voxelworld play`: its page served", "-", cell(play), f"- / {len(play)}", f"<= {PLAY_TARGET:.0f}"),
             ("`voxelworld demo --frames 2`", "-", cell(demo), f"- / {len(demo)}", f"<= {DEMO_TARGET:.0f}")]
    print(f"nproc {os.cpu_count()}; each row a fresh process, medians (s)")
    print_table(("start-up step", "cold s", "warm s", "runs cold / warm", "target s (warm)"), rows)


if __name__ == "__main__":
    main()
