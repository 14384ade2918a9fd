"""`bake_world`: the whole bake of a world file, block by block, in this process or as Dask tasks on a cluster
(``dask.distributed``, the optional extra ``voxelworld[cluster]``), written by this process alone, in block order,
each block in one transaction: an interrupted bake resumes after the blocks already written, once each one's rows
are checked against its marker's digest (a block whose rows are missing or changed is baked again, and said so)."""

from __future__ import annotations

import os
import re
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, TypeVar

from ..errors import ParameterError, VoxelworldError, check_integer
from ..io.world_file import bake_inputs, connect_for_writing
from ..terrain import GeneratorSettings, SparseVolume
from .blocks import (
    BLOCK_CHUNKS,
    WHAT,
    BakePlan,
    BlockResult,
    bake_block,
    block_columns,
    block_row_count,
    blocks_of,
    plan_bake,
    tile_blocks,
)
from .records import block_digest, create_tables, done_blocks, stored_rows, write_block
from .terrain import CHUNK_SIZE, TerrainBlock, TerrainStage, gather_terrain, generate_terrain_block, write_new_world

__all__ = ["bake_world", "BakeReport", "PARTS"]

PARTS = ("terrain",) + WHAT  # what a bake may do: generate a new world's chunks, then bake its meshes and tiles
# A task that raised is run again up to this many times (Dask's retries); a task whose worker died is run again by
# the scheduler anyway (up to distributed.scheduler.allowed-failures times, 3 by default).
RETRIES = 3
# What a task returns, block by block (a Dask future's result, or the call's here).
_Result = TypeVar("_Result", TerrainBlock, BlockResult)
SHOWN = 10  # blocks re-baked named one a line on resuming, at most
# The addresses of a Dask scheduler that a client in another process can reach: distributed's network schemes (not
# inproc://, one process's own) and a port; no scheme means tcp.
SCHEDULER_ADDRESS = re.compile(r"^(?:(?:tcp|tls|ws|wss|ucx)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)"
                               r":(?P<port>\d{1,5})$")
SCHEDULER_FORMS = ("a Dask scheduler's address: tcp://HOST:PORT (dask scheduler's default port is 8786), tls://, "
                   "ws://, wss:// or ucx://HOST:PORT, or HOST:PORT (tcp); HOST a name, an IPv4 address or "
                   "[an IPv6 one]")


@dataclass(frozen=True)
class BakeReport:
    """What :func:`bake_world` did: blocks in the world, already written before (resumed after: their rows as their
    markers say), baked now; the bytes of baked rows written; seconds; where the tasks ran (``"in this process"``,
    ``"on"`` a LocalCluster or the scheduler's address); the blocks written before whose rows were missing or
    changed, baked again (among ``baked``), each with why: ``((bx, bz), reason)``."""

    blocks: int
    resumed_after: int
    baked: int
    bytes_written: int
    seconds: float
    ran_on: str
    rebaked: tuple = ()


def bake_world(path: str | os.PathLike[str], what: Iterable[str] = WHAT, scheduler: str | None = None,
               workers: int | None = None, block_chunks: int | None = None,
               generator: GeneratorSettings | None = None, out: TextIO | None = None) -> BakeReport:
    """Bake the world file ``path``: its display meshes at every level of detail and collision meshes
    (``"meshes"``), its navmesh tiles (``"navmesh"``), computed block by block (:mod:`.blocks`) and written into
    the file's bake tables (docs/specs/world-format.md); with ``"terrain"``, first generate the new world of
    ``generator`` block by block (:mod:`.terrain`) and write it to ``path`` (which must not exist yet), as
    ``voxelworld new`` does. ``scheduler``: a Dask scheduler's address (``tcp://host:8786``, or ``tls://``,
    ``ws://``, ``wss://``, ``ucx://``, or ``host:8786`` for tcp: ``SCHEDULER_FORMS``, else ParameterError; its
    workers must read the file at the same path; VoxelworldError, one line, when none answers there); else
    ``workers`` local Dask worker processes (a ``LocalCluster``; default 2), or 0: in this process, without Dask.
    Progress goes to ``out`` (stderr by default). Blocks already written by an earlier bake of the same parts are
    kept (it resumes after them) if the rows the file holds of each still give its marker's digest; the others are
    baked again (``BakeReport.rebaked`` says which and why)."""
    out = sys.stderr if out is None else out
    what = tuple(what)
    if not what:
        raise ParameterError("what", "nothing", f"some of {', '.join(PARTS)}")
    for part in what:
        if part not in PARTS:
            raise ParameterError("what", part, f"some of {', '.join(PARTS)}")
    if scheduler is not None and workers is not None:
        raise ParameterError("workers", workers, "None with a scheduler (its workers are the cluster's)")
    if scheduler is not None:
        _check_scheduler(scheduler)
    workers = 2 if workers is None and scheduler is None else workers
    if workers is not None:
        workers = check_integer("workers", workers, minimum=0, maximum=256)
    block_chunks = BLOCK_CHUNKS if block_chunks is None else check_integer("block_chunks", block_chunks, minimum=1,
                                                                            maximum=64)
    if "terrain" in what:
        if not isinstance(generator, GeneratorSettings):
            raise ParameterError("generator", generator, "the GeneratorSettings of the world to generate (terrain)")
        if Path(path).exists():
            raise ParameterError("path", str(path), "a file that does not exist yet: terrain makes a new world")
    elif generator is not None:
        raise ParameterError("generator", generator, "None unless the bake generates the terrain")
    start = time.perf_counter()
    with _client(scheduler, workers) as client:
        ran_on = "in this process" if client is None else (
            f"on {scheduler}" if scheduler else f"on a LocalCluster of {workers} worker processes")
        if "terrain" in what:
            assert generator is not None  # checked above: a generation needs it
            _terrain(path, generator, block_chunks, client, out)
        parts = tuple(part for part in what if part != "terrain")
        if not parts:  # terrain alone
            assert generator is not None  # checked above
            grid = tuple(-(-n // CHUNK_SIZE) for n in generator.shape)
            count = len(blocks_of(grid, block_chunks))
            return BakeReport(count, 0, count, 0, time.perf_counter() - start, ran_on)
        blocks, done, written, rebaked = _meshes_and_tiles(path, parts, block_chunks, client, out)
    return BakeReport(blocks, done, written[0], written[1], time.perf_counter() - start, ran_on, rebaked)


def _terrain(path: str | os.PathLike[str], generator: GeneratorSettings, block_chunks: int, client: Any,
             out: TextIO) -> None:
    """Generate the new world's blocks (kept beside it as they come: :class:`TerrainStage`), then write it."""
    grid = tuple(-(-n // CHUNK_SIZE) for n in generator.shape)
    blocks = blocks_of(grid, block_chunks)
    stage = TerrainStage(path, generator)
    try:
        done = stage.done()
        todo = [block for block in blocks if block not in done]
        print(f"voxelworld bake: generating {len(blocks)} blocks of {block_chunks} x {block_chunks} chunk columns"
              + (f"; resuming after the {len(blocks) - len(todo)} already generated" if done else ""),
              file=out, flush=True)
        for n, result in enumerate(_run(client, generate_terrain_block, (generator, block_chunks), todo,
                                        "voxelworld-terrain"), 1):
            stage.add(result)
            _progress(out, len(blocks) - len(todo) + n, len(blocks))
        print("voxelworld bake: writing the world file", file=out, flush=True)
        write_new_world(gather_terrain(generator, stage.blocks()), path, generator)
    except BaseException:
        stage.close()
        raise
    stage.remove()


def _meshes_and_tiles(path: str | os.PathLike[str], parts: tuple[str, ...], block_chunks: int, client: Any,
                      out: TextIO) -> tuple[int, int, list[int], tuple[tuple[tuple[int, int], str], ...]]:
    volume, settings, props, things = bake_inputs(path)
    plan = plan_bake(path, parts, settings, props, volume.chunk_grid_shape, block_chunks, things)
    key = ",".join(plan.what)
    connection = connect_for_writing(path)
    try:
        for table in create_tables(connection, path):
            print(f"voxelworld bake: the file's {table} table had other columns than a bake's: made again, its "
                  "blocks baked again", file=out, flush=True)
        kept, rebaked = _check_done(connection, plan, volume, done_blocks(connection, key))
        todo = [block for block in plan.blocks if block not in kept]
        blocks = len(plan.blocks)
        print(f"voxelworld bake: {blocks} blocks of {plan.block_chunks} x {plan.block_chunks} chunk columns "
              f"({key})" + (f"; resuming after the {len(kept)} already written" if kept else "")
              + (f"; re-baking {len(rebaked)} written before whose rows are missing or changed" if rebaked else ""),
              file=out, flush=True)
        for block, why in rebaked[:SHOWN]:
            print(f"  re-baking block {block[0]},{block[1]}: {why}", file=out, flush=True)
        if len(rebaked) > SHOWN:
            print(f"  ... and {len(rebaked) - SHOWN} more blocks", file=out, flush=True)
        written = [0, 0]
        for result in _run(client, bake_block, (plan,), todo, "voxelworld-bake"):
            write_block(connection, result, key)
            written[0] += 1
            written[1] += result.nbytes
            _progress(out, len(kept) + written[0], blocks)
    finally:
        connection.close()
    return blocks, len(kept), written, rebaked


def _check_done(connection: sqlite3.Connection, plan: BakePlan, volume: SparseVolume, done: dict[tuple[int, int], bytes]
                ) -> tuple[set[tuple[int, int]], tuple[tuple[tuple[int, int], str], ...]]:
    """Of the blocks an earlier bake marked written (``done``: their markers' digests), those whose rows the file
    still holds as written (kept), and the others with why each is baked again: rows missing (deleted by another
    writer, lost with a damaged page) or different from those its marker was made of."""
    blocks = set(plan.blocks)
    done = {block: digest for block, digest in done.items() if block in blocks}
    owners = tile_blocks(plan, volume) if done else {}
    tiles: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for tile, block in owners.items():
        tiles.setdefault(block, []).append(tile)
    what = ",".join(plan.what)
    kept: set[tuple[int, int]] = set()
    rebaked: list[tuple[tuple[int, int], str]] = []
    for block in sorted(done):
        mine = tiles.get(block, [])
        columns = block_columns(plan.grid, plan.block_chunks, block) if "meshes" in plan.what else None
        try:
            meshes, found = stored_rows(connection, columns, mine)
        except sqlite3.DatabaseError as error:  # a damaged page of the bake tables
            rebaked.append((block, f"its rows cannot be read ({error})"))
            continue
        expected, held = block_row_count(plan, block, len(mine)), len(meshes) + len(found)
        if held < expected:
            rebaked.append((block, f"{expected - held} of its {expected} rows are missing"))
        elif block_digest(block, what, meshes, found) != done[block]:
            rebaked.append((block, "its rows differ from those its marker was written with"))
        else:
            kept.add(block)
    return kept, tuple(rebaked)


def _check_scheduler(address: object) -> None:
    """ParameterError naming ``scheduler`` unless ``address`` has the form of a Dask scheduler's address that a
    client in another process can reach (``SCHEDULER_FORMS``), checked before Dask sees it."""
    match = SCHEDULER_ADDRESS.match(address) if isinstance(address, str) else None
    if match is None or not 1 <= int(match["port"]) <= 65535:
        raise ParameterError("scheduler", address, SCHEDULER_FORMS)


@contextmanager
def _client(scheduler: str | None, workers: int | None) -> Iterator[Any]:
    """A Dask client of the scheduler, or of a LocalCluster of ``workers`` processes; None for 0 workers."""
    if workers == 0:
        yield None
        return
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise VoxelworldError("voxelworld bake on Dask needs dask.distributed: pip install 'voxelworld[cluster]' "
                              "(or --workers 0 to bake in this process)") from None
    if scheduler is not None:
        try:
            client = Client(scheduler)
        except Exception as error:  # Dask's own: an unknown scheme, nobody answering (OSError after its timeout)
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise VoxelworldError(f"no Dask scheduler answered at {scheduler!r} ({reason}): start one there "
                                  f"(dask scheduler) or give the address of one: {SCHEDULER_FORMS}") from error
        with client:
            yield client
        return
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        yield client


def _run(client: Any, task: Callable[..., _Result], arguments: tuple, blocks: list[tuple[int, int]],
         name: str) -> Iterator[_Result]:
    """``task(*arguments, block)`` of each block, yielded in the order of ``blocks``: here, or as Dask tasks (a
    result that comes early waits for those before it)."""
    if client is None:
        for block in blocks:
            yield task(*arguments, block)
        return
    from dask.distributed import as_completed

    order = {block: n for n, block in enumerate(blocks)}
    futures = [client.submit(task, *arguments, block, key=f"{name}-{block[0]}-{block[1]}", retries=RETRIES,
                             pure=False) for block in blocks]
    arrived: dict[int, _Result] = {}
    following = 0
    for future, result in as_completed(futures, with_results=True):
        arrived[order[result.block]] = result
        future.release()
        while following in arrived:
            yield arrived.pop(following)
            following += 1


def _progress(out: TextIO, done: int, total: int) -> None:
    """A bar redrawn in place on a terminal, a line a block elsewhere (a log)."""
    if getattr(out, "isatty", lambda: False)():
        filled = round(30 * done / total)
        print(f"\r  [{'#' * filled}{'.' * (30 - filled)}] {done} / {total} blocks", end="\n" if done == total else "",
              file=out, flush=True)
    else:
        print(f"  {done} / {total} blocks", file=out, flush=True)
