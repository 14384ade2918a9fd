"""`bake_world`: the whole bake of a world file, block by block, in this process or as Dask tasks on a cluster
(``dask.distributed``, the optional extra ``voxelworld[cluster]``), written by this process alone, in block order,
each block in one transaction: an interrupted bake resumes after the blocks already written."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

from ..errors import ParameterError, VoxelworldError, check_integer
from ..io.world_file import bake_inputs, connect_for_writing
from .blocks import WHAT, bake_block, plan_bake
from .records import create_tables, done_blocks, write_block

__all__ = ["bake_world", "BakeReport"]

RETRIES = 3  # a task whose worker died is run again, up to this many times (Dask's retries)


@dataclass(frozen=True)
class BakeReport:
    """What :func:`bake_world` did: blocks in the world, already written before (resumed after), baked now; the
    bytes of baked rows written; seconds; where the tasks ran (``"in this process"``, ``"on"`` a LocalCluster or
    the scheduler's address)."""

    blocks: int
    resumed_after: int
    baked: int
    bytes_written: int
    seconds: float
    ran_on: str


def bake_world(path, what=WHAT, scheduler: str | None = None, workers: int | None = None,
               block_chunks: int | None = None, out=None) -> BakeReport:
    """Bake the world file ``path``: display meshes of every chunk at every level of detail and collision meshes
    (``"meshes"``), navmesh tiles (``"navmesh"``), computed block by block (:mod:`.blocks`) and written into the
    file's bake tables (docs/specs/world-format.md). ``scheduler``: a Dask scheduler's address (``tcp://host:8786``;
    its workers must read the file at the same path); else ``workers`` local Dask worker processes (a
    ``LocalCluster``; default 2), or 0: in this process, without Dask. Progress lines go to ``out`` (stderr by
    default). Blocks already written by an earlier bake of the same parts are kept (it resumes after them)."""
    out = sys.stderr if out is None else out
    if scheduler is not None and workers is not None:
        raise ParameterError("workers", workers, "None with a scheduler (its workers are the cluster's)")
    workers = 2 if workers is None and scheduler is None else workers
    if workers is not None:
        workers = check_integer("workers", workers, minimum=0, maximum=256)
    start = time.perf_counter()
    volume, settings, props = bake_inputs(path)
    options = {} if block_chunks is None else {"block_chunks": block_chunks}
    plan = plan_bake(path, what, settings, props, volume.chunk_grid_shape, **options)
    key = ",".join(plan.what)
    connection = connect_for_writing(path)
    try:
        create_tables(connection)
        done = done_blocks(connection, key)
        todo = [block for block in plan.blocks if block not in done]
        blocks = len(plan.blocks)
        print(f"voxelworld bake: {blocks} blocks of {plan.block_chunks} x {plan.block_chunks} chunk columns "
              f"({key})" + (f"; resuming after the {blocks - len(todo)} already written" if len(todo) < blocks
                            else ""), file=out, flush=True)
        written = [0, 0]

        def write(result) -> None:
            write_block(connection, result, key)
            written[0] += 1
            written[1] += result.nbytes
            _progress(out, blocks - len(todo) + written[0], blocks)

        if workers == 0:
            ran_on = "in this process"
            for block in todo:
                write(bake_block(plan, block))
        else:
            ran_on = _on_dask(plan, todo, write, scheduler, workers)
    finally:
        connection.close()
    return BakeReport(blocks, blocks - len(todo), written[0], written[1], time.perf_counter() - start, ran_on)


def _progress(out, done: int, total: int) -> None:
    """A bar redrawn in place on a terminal, a line a block elsewhere (a log)."""
    if getattr(out, "isatty", lambda: False)():
        filled = round(30 * done / total)
        print(f"\r  [{'#' * filled}{'.' * (30 - filled)}] {done} / {total} blocks", end="\n" if done == total else "",
              file=out, flush=True)
    else:
        print(f"  {done} / {total} blocks", file=out, flush=True)


def _on_dask(plan, todo: list, write, scheduler: str | None, workers: int | None) -> str:
    """Run the blocks' tasks on Dask and ``write`` their results in the order of ``todo`` (a result that comes
    early waits for those before it)."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise VoxelworldError("voxelworld bake on Dask needs dask.distributed: pip install 'voxelworld[cluster]' "
                              "(or --workers 0 to bake in this process)") from None
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        with Client(scheduler if cluster is None else cluster) as client:
            order = {block: n for n, block in enumerate(todo)}
            futures = [client.submit(bake_block, plan, block, key=f"voxelworld-bake-{block[0]}-{block[1]}",
                                     retries=RETRIES, pure=False) for block in todo]
            arrived, following = {}, 0
            for future, result in as_completed(futures, with_results=True):
                arrived[order[result.block]] = result
                future.release()
                while following in arrived:
                    write(arrived.pop(following))
                    following += 1
            return f"on {scheduler}" if scheduler else f"on a LocalCluster of {workers} worker processes"
    finally:
        if cluster is not None:
            cluster.close()
