"""World file benchmarks (issue #7). Run: ``.venv/bin/python benchmarks/io.py``.

Median times (ms, of REPEATS runs) of saving and loading the demo world (``World.demo(seed=0)``: 96 x 48 x 96
voxels of 0.5 m in 108 chunks of 16³, props, 3 NPCs on the navmesh, the chainsaw enemy) after 5 s of play
(walking, a punch, suck held until bullets come, a bullet readied: the enemy cuts the rock wall, the navmesh is
re-baked), and the file's size:

- the first save (a new file: every chunk, written beside the path and moved into place);
- a re-save after a small dig (a 1 m sphere removed, one frame stepped): only the changed chunks, rows and the
  new events;
- a re-save with nothing changed;
- the load (checks, decompression, the world rebuilt: meshes, collision, the navmesh re-baked and compared).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from voxelworld.game.world import Inputs, World  # noqa: E402
from voxelworld.io import load_world, save_world  # noqa: E402
from voxelworld.terrain import Sphere  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from terrain import print_table  # noqa: E402

REPEATS = 7


def played() -> World:
    """The demo world after 300 frames: walking, a punch, suck held, a bullet readied."""
    world = World.demo(seed=0)
    for frame in range(300):
        if frame < 110:
            inputs = Inputs(move=(0.0, 1.0), look=(270.0, -20.0))
        elif frame < 120:
            inputs = Inputs(look=(270.0, -60.0), punch=frame == 112)
        elif frame < 280:
            inputs = Inputs(look=(240.0 + 0.3 * (frame - 120), -30.0), suck=frame < 270)
        else:
            inputs = Inputs(look=(270.0, 5.0), stance=frame == 285)
        world.step(inputs)
    return world


def timed(action) -> tuple[float, object]:
    start = time.perf_counter()
    result = action()
    return (time.perf_counter() - start) * 1000.0, result


def main() -> None:
    world = played()
    folder = Path(tempfile.mkdtemp())
    first, resave, unchanged, load = [], [], [], []
    written = []
    for n in range(REPEATS):
        path = folder / f"demo-{n}.vxw"
        ms, report = timed(lambda: save_world(world, path))
        first.append(ms)
        size = report.file_size
        x = 10.0 + 3.0 * n
        world.volume.remove(Sphere((x, 9.0, 30.0), 1.0))
        world.step(Inputs())
        ms, report = timed(lambda: save_world(world, path))
        resave.append(ms)
        written.append(report.chunks_written)
        unchanged.append(timed(lambda: save_world(world, path))[0])
        ms, loaded = timed(lambda: load_world(path))
        load.append(ms)
        assert loaded.voxel_hash() == world.voxel_hash()
    rows = [("first save (new file, all 108 chunks)", f"{np.median(first):.1f}", "108"),
            ("re-save after a 1 m dig and a frame", f"{np.median(resave):.1f}", f"{int(np.median(written))}"),
            ("re-save, nothing changed", f"{np.median(unchanged):.1f}", "0"),
            ("load (checked, world rebuilt, navmesh re-baked)", f"{np.median(load):.1f}", "")]
    print(f"Demo world after {world.frame} frames: {len(world.events)} events, "
          f"{len(world.actions.objects)} loose objects, file {size / 1024:.0f} KiB "
          f"(raw voxel fields {world.volume.density.size * 6 / 1024:.0f} KiB)")
    print_table(("World file, demo world", "median ms", "chunks written"), rows)


if __name__ == "__main__":
    main()
