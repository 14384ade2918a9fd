"""Baking a world file on Dask (issue #18): blocks a second in one process and on 1 and 2 local Dask workers (the
speed-up), the scheduler's overhead per task, the bytes a task moves, and the rate at which the client writes
blocks into the file. Run: ``.venv/bin/python benchmarks/bake.py`` (``--size 512`` or more for a bigger world;
the default 256 m world takes a few minutes on 2 cores). Results and the plan they give: docs/benchmarks.md,
docs/scaling.md.

The world is made once with ``voxelworld new --seed 7``; every bake runs on a fresh copy of that file (empty bake
tables) in a fresh process (the script runs itself with ``--figure``), so no bake inherits another's memory or
opened files, and Dask's processes start under ``if __name__ == "__main__":`` as they must. Figures:

- ``bake_world`` end to end with ``workers`` 0 (this process, no Dask), 1 and 2 (a LocalCluster of that many worker
  processes; its start is inside the time, as a user of ``voxelworld bake`` waits for it);
- on one LocalCluster of 2 workers, kept up: the cluster's start, 2000 no-op tasks submitted and gathered (the
  scheduler's overhead a task), each block's task timed inside its worker against the wall time of all of them,
  the bytes of each BlockResult (``nbytes``: the rows' blobs; and pickled, as it crosses to the client) and of the
  pickled plan every task carries;
- the client's writer alone: ``records.write_block`` of those results into a fresh copy (blocks and MiB a second).

``--one-block`` only bakes the block nearest the centre twice in one process (its seconds, the peak memory): how a
block's cost grows with the world's size (``--one-block --size 1024``).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

NO_OPS = 2000  # trivial tasks timed for the scheduler's overhead


def make_world(path: Path, size: float, seed: int) -> float:
    """``voxelworld new PATH --size S --seed N`` in its own process; its seconds."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "voxelworld.cli", "new", str(path), "--size", f"{size:g}", "--seed",
                    str(seed)], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def fresh_copy(world: str, folder: str, name: str) -> str:
    target = Path(folder) / name
    shutil.copyfile(world, target)
    return str(target)


def figure_bake(world: str, folder: str, workers: int, block_chunks: int | None) -> dict:
    """``bake_world`` of a fresh copy with ``workers`` (0: this process)."""
    import io

    from voxelworld.bake import bake_world

    path = fresh_copy(world, folder, f"bake-{workers}.vwd")
    cpu = time.process_time()  # this process's: all of the bake with workers 0, the client's share with Dask
    report = bake_world(path, workers=workers, block_chunks=block_chunks, out=io.StringIO())
    cpu = time.process_time() - cpu
    assert report.resumed_after == 0 and report.baked == report.blocks, report
    os.unlink(path)
    return {"blocks": report.blocks, "seconds": report.seconds, "blocks/s": report.baked / report.seconds,
            "bytes": report.bytes_written, "ran on": report.ran_on, "this process's CPU s per block": cpu / report.blocks}


def timed_block(plan, block):
    """One block's task as ``bake_world`` submits it, timed inside the worker."""
    import os
    import time

    from voxelworld.bake import bake_block

    began, start, cpu = time.time(), time.perf_counter(), time.process_time()
    result = bake_block(plan, block)
    return result, time.perf_counter() - start, os.getpid(), began, time.process_time() - cpu


def figure_tasks(world: str, folder: str, workers: int, block_chunks: int | None) -> dict:
    """On one kept-up LocalCluster: its start, the no-op tasks, the blocks timed inside the workers, their bytes,
    and the writer alone."""
    from dask.distributed import Client, LocalCluster, wait

    from voxelworld.bake import plan_bake
    from voxelworld.bake.records import create_tables, write_block
    from voxelworld.io.world_file import bake_inputs, connect_for_writing

    volume, settings, props, things = bake_inputs(world)
    options = {} if block_chunks is None else {"block_chunks": block_chunks}
    plan = plan_bake(world, settings=settings, props=props, grid=volume.chunk_grid_shape, things=things,
                     **options)
    figures = {"plan pickled bytes": len(pickle.dumps(plan))}
    start = time.perf_counter()
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    figures["LocalCluster start s"] = time.perf_counter() - start
    try:
        wait([client.submit(lambda i: i, i, pure=False) for i in range(100)])  # connections made, functions known
        start = time.perf_counter()
        futures = [client.submit(lambda i: i, i, pure=False) for i in range(NO_OPS)]
        client.gather(futures)
        figures["no-op task overhead ms"] = 1000 * (time.perf_counter() - start) / NO_OPS
        del futures
        start = time.perf_counter()
        futures = [client.submit(timed_block, plan, block, key=f"bench-bake-{block[0]}-{block[1]}", pure=False)
                   for block in plan.blocks]
        done = client.gather(futures)
        wall = time.perf_counter() - start
        del futures
    finally:
        client.close()
        cluster.close()
    results = [task[0] for task in done]
    inside = np.array([task[1] for task in done])
    cpu = np.array([task[4] for task in done])
    first = {}  # each worker's first task also opens the file's volume and loads the kernels from numba's cache
    for _, seconds, pid, _began, _ in sorted(done, key=lambda task: task[3]):
        first.setdefault(pid, seconds)
    nbytes = np.array([result.nbytes for result in results])
    pickled = np.array([len(pickle.dumps(result)) for result in results])
    figures |= {"blocks": len(results), "blocks wall s": wall, "blocks/s (cluster up)": len(results) / wall,
                "task inside worker median s": float(np.median(inside)),
                "task CPU inside worker median s": float(np.median(cpu)), "task inside worker max s": float(inside.max()),
                "first task of each worker s": float(np.mean(list(first.values()))),
                "inside-worker s total": float(inside.sum()),
                "wall x workers - inside, per task ms": 1000 * (wall * workers - inside.sum()) / len(results),
                "result nbytes mean": float(nbytes.mean()), "result nbytes max": int(nbytes.max()),
                "result pickled bytes mean": float(pickled.mean()),
                "rows per block mean": float(np.mean([len(r.meshes) + len(r.tiles) for r in results]))}
    writes = []
    for copy in range(3):
        path = fresh_copy(world, folder, f"write-{copy}.vwd")
        connection = connect_for_writing(path)
        try:
            create_tables(connection)
            start = time.perf_counter()
            for result in sorted(results, key=lambda r: r.block):
                write_block(connection, result, ",".join(plan.what))
            writes.append(time.perf_counter() - start)
        finally:
            connection.close()
        os.unlink(path)
    write = float(np.median(writes))
    figures |= {"write s (median of 3)": write, "write blocks/s": len(results) / write,
                "write MiB/s": float(nbytes.sum()) / 2**20 / write}
    return figures


def figure_block(world: str, folder: str, workers: int, block_chunks: int | None) -> dict:
    """The block nearest the world's centre baked twice in this process (the first call also opens the file's
    volume and loads the kernels), and the process's peak resident memory: what one worker holds."""
    import resource

    from voxelworld.bake import bake_block, plan_bake
    from voxelworld.io.world_file import bake_inputs

    volume, settings, props, things = bake_inputs(world)
    options = {} if block_chunks is None else {"block_chunks": block_chunks}
    plan = plan_bake(world, settings=settings, props=props, grid=volume.chunk_grid_shape, things=things,
                     **options)
    del volume
    blocks = plan.blocks
    middle = blocks[len(blocks) // 2 + int(np.sqrt(len(blocks))) // 2] if len(blocks) > 1 else blocks[0]
    figures = {"grid": list(plan.grid), "blocks": len(blocks), "block": list(middle)}
    for call in ("first", "second"):
        start, cpu = time.perf_counter(), time.process_time()
        result = bake_block(plan, middle)
        figures[f"{call} call s"] = time.perf_counter() - start
        figures[f"{call} call CPU s"] = time.process_time() - cpu
    figures |= {"result nbytes": result.nbytes, "rows": len(result.meshes) + len(result.tiles),
                "peak RSS MiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    return figures


FIGURES = {"bake": figure_bake, "tasks": figure_tasks, "block": figure_block}


def in_process(figure: str, world: str, folder: str, workers: int, block_chunks: int | None) -> dict:
    """A figure in a fresh Python process (this script with ``--figure``): its JSON line, and the load average
    (1 min) before and after it."""
    command = [sys.executable, __file__, "--figure", figure, "--world", world, "--folder", folder,
               "--workers", str(workers)] + ([] if block_chunks is None else ["--block-chunks", str(block_chunks)])
    before = os.getloadavg()[0]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["load before / after"] = f"{before:.2f} / {os.getloadavg()[0]:.2f}"
    return figures


def median(runs: list[dict], name: str) -> float:
    return float(np.median([run[name] for run in runs]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=float, default=256.0, help="the world's extent in m (default: 256; "
                                                                    "1024 is the 1 km world)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", type=int, default=3, help="runs of every figure (medians reported)")
    parser.add_argument("--block-chunks", type=int, default=None, help="chunk columns a block spans (default 4)")
    parser.add_argument("--one-block", action="store_true",
                        help="only bake the block nearest the centre, twice, in one process, and report its seconds "
                             "and the peak memory (how a block's cost grows with the world: try --size 1024)")
    parser.add_argument("--figure", choices=sorted(FIGURES), help=argparse.SUPPRESS)  # one figure, in this process
    parser.add_argument("--world", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, default=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.figure:
        print(json.dumps(FIGURES[args.figure](args.world, args.folder, args.workers, args.block_chunks)))
        return

    sys.path.insert(0, str(Path(__file__).parent))
    from terrain import print_table

    with tempfile.TemporaryDirectory() as folder:
        world = str(Path(folder) / "world.vwd")
        made = make_world(Path(world), args.size, args.seed)
        mib = Path(world).stat().st_size / 2**20
        print(f"voxelworld new --size {args.size:g} --seed {args.seed}: {made:.1f} s, {mib:.1f} MiB", flush=True)
        if args.one_block:
            figures = in_process("block", world, folder, 0, args.block_chunks)
            print_table(("figure", "value"), [(name, f"{value:.3g}" if isinstance(value, float) else value)
                                              for name, value in figures.items()])
            print("\n" + json.dumps(figures))
            return
        # Untimed: a bake that loads (or compiles into the cache) every kernel a bake uses.
        in_process("bake", world, folder, 0, args.block_chunks)
        bakes: dict[int, list[dict]] = {0: [], 1: [], 2: []}
        tasks: list[dict] = []
        for run in range(args.runs):  # the configurations alternate, so a burst of load spreads over all of them
            for workers in bakes:
                bakes[workers].append(in_process("bake", world, folder, workers, args.block_chunks))
                print(f"run {run + 1}, workers {workers}: {bakes[workers][-1]}", flush=True)
            tasks.append(in_process("tasks", world, folder, 2, args.block_chunks))
            print(f"run {run + 1}, tasks: {tasks[-1]}", flush=True)

    blocks = bakes[0][0]["blocks"]
    rate = {workers: median(runs, "blocks/s") for workers, runs in bakes.items()}
    seconds = {workers: median(runs, "seconds") for workers, runs in bakes.items()}
    summary = {
        "world m": args.size, "blocks": blocks, "block chunks": args.block_chunks or 4, "runs": args.runs,
        "file MiB": round(mib, 2),
        "bake s workers 0/1/2": [round(seconds[w], 2) for w in bakes],
        "CPU s per block in one process (workers 0)": round(median(bakes[0], "this process's CPU s per block"), 3),
        "client's CPU s per block (workers 1 / 2)": [round(median(bakes[w], "this process's CPU s per block"), 3)
                                                     for w in (1, 2)],
        "blocks/s workers 0/1/2": [round(rate[w], 3) for w in bakes],
        "speed-up 2 vs 1 workers": round(rate[2] / rate[1], 2),
        "speed-up 2 workers vs one process": round(rate[2] / rate[0], 2),
        "LocalCluster(2) start s": round(median(tasks, "LocalCluster start s"), 2),
        "blocks/s on 2 workers, cluster up": round(median(tasks, "blocks/s (cluster up)"), 3),
        "task inside worker median s": round(median(tasks, "task inside worker median s"), 3),
        "task inside worker max s": round(median(tasks, "task inside worker max s"), 3),
        "task CPU inside worker median s": round(median(tasks, "task CPU inside worker median s"), 3),
        "first task of each worker s": round(median(tasks, "first task of each worker s"), 3),
        "no-op task overhead ms": round(median(tasks, "no-op task overhead ms"), 3),
        "wall x workers - inside, per task ms": round(median(tasks, "wall x workers - inside, per task ms"), 1),
        "result nbytes mean KiB": round(median(tasks, "result nbytes mean") / 1024, 1),
        "result nbytes max KiB": round(median(tasks, "result nbytes max") / 1024, 1),
        "result pickled mean KiB": round(median(tasks, "result pickled bytes mean") / 1024, 1),
        "rows per block": round(median(tasks, "rows per block mean"), 1),
        "plan pickled bytes": int(median(tasks, "plan pickled bytes")),
        "write blocks/s": round(median(tasks, "write blocks/s"), 1),
        "write MiB/s": round(median(tasks, "write MiB/s"), 1),
        "write blocks/s, each run": [round(run["write blocks/s"], 1) for run in tasks],
        "load averages (1 min) before / after each figure": [run["load before / after"] for runs in
                                                             (*bakes.values(), tasks) for run in runs],
    }
    rows = [(name, value if not isinstance(value, list) else " / ".join(str(v) for v in value))
            for name, value in summary.items()]
    print(f"\nBaking a {args.size:g} m x 128 m x {args.size:g} m world (0.5 m voxels, seed {args.seed}): "
          f"{blocks} blocks; medians of {args.runs} runs")
    print_table(("figure", "value"), rows)
    print("\n" + json.dumps(summary))


if __name__ == "__main__":
    main()
