"""World generator benchmark (issue #17). Run: ``.venv/bin/python benchmarks/worldgen.py [--size 256] [--seeds 0 1 2]``.

Generates every 32³ chunk of a ``size`` m x 128 m x ``size`` m world of 0.5 m voxels (default 256 m: 2048 chunks,
67 M voxels) on 1 and on 2 threads, chunk by chunk (``generate_blocks``) and a column of chunks per task
(``generate_chunks``), and prints Markdown tables for docs/benchmarks.md:
voxels/s and chunks/s (best of ``--rounds``), then the share of chunks that are not uniform per field, split into
chunks above the surface, the surface band and deep chunks (wholly below the lowest surface point of their
columns), with what a sparse store would keep of a 1 km world (a uniform chunk is one value, another chunk
32 KiB per uint8 field and 64 KiB for the uint16 damage).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from terrain import print_table  # benchmarks/terrain.py: machine line and table layout

from voxelworld.terrain import FIELDS
from voxelworld.terrain import _worldgen_kernels as kernels
from voxelworld.terrain.worldgen import GeneratorSettings, chunk_boxes, generate_block, generate_blocks, generate_chunks

CHUNK = 32
FIELD_BYTES = {"density": 1, "mat_a": 1, "mat_b": 1, "mix": 1, "damage": 2}


def timed_generation(settings: GeneratorSettings, workers: int, rounds: int, columns: bool) -> float:
    """Best wall time (s) over ``rounds`` to generate every chunk of the world: chunk by chunk with
    ``generate_blocks``, or a column of chunks per task with ``generate_chunks``."""
    boxes = chunk_boxes(settings, CHUNK)
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _box, _fields in (generate_chunks(settings, CHUNK, workers=workers) if columns else
                              generate_blocks(settings, boxes, workers=workers)):
            pass
        best = min(best, time.perf_counter() - start)
    return best


def lowest_surface(settings: GeneratorSettings, lo, shape) -> float:
    """Lowest surface height (m) over a chunk's columns, sampled every 2 voxels (the surface is smooth at that
    scale; cliffs rise over several voxels)."""
    params, keys, s = settings._params(), settings._keys(), settings.voxel_size
    return min(kernels.surface_height(params, keys, (lo[0] + a) * s, (lo[2] + c) * s)
               for a in range(0, shape[0] + 1, 2) for c in range(0, shape[2] + 1, 2))


def uniformity(settings: GeneratorSettings) -> dict:
    """Counts of chunks per class (above / surface / deep) and of non-uniform chunks per class and field."""
    counts = {kind: 0 for kind in ("above", "surface", "deep")}
    mixed = {(kind, name): 0 for kind in counts for name in FIELDS}
    either = {kind: 0 for kind in counts}
    floors: dict[tuple[int, int], float] = {}
    s = settings.voxel_size
    for index, fields in generate_chunks(settings, CHUNK):
        lo, shape = tuple(c * CHUNK for c in index), fields["density"].shape
        column = (lo[0], lo[2])
        if column not in floors:
            floors[column] = lowest_surface(settings, lo, shape)
        if (fields["density"] == 0).all():
            kind = "above"
        elif (lo[1] + shape[1]) * s <= floors[column] - 1.0:
            kind = "deep"
        else:
            kind = "surface"
        counts[kind] += 1
        any_mixed = False
        for name in FIELDS:
            array = fields[name]
            if array.min() != array.max():
                mixed[kind, name] += 1
                any_mixed = True
        either[kind] += any_mixed
    return {"counts": counts, "mixed": mixed, "either": either}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=float, default=256.0, help="world extent along x and z, m")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="worlds for the chunk shares")
    parser.add_argument("--rounds", type=int, default=3, help="timed generations per thread count")
    args = parser.parse_args()
    generate_block(GeneratorSettings(size=32.0, seed=0), (0, 0, 0), (CHUNK, CHUNK, CHUNK))  # compile or load kernels

    settings = GeneratorSettings(size=args.size, seed=args.seeds[0])
    chunks = len(chunk_boxes(settings, CHUNK))
    voxels = int(np.prod(settings.shape))
    rows = []
    for columns in (False, True):
        for workers in (1, 2):
            took = timed_generation(settings, workers, args.rounds, columns)
            rows.append((f"{'generate_chunks (chunk columns)' if columns else 'generate_blocks (32³ boxes)'}, "
                         f"{workers} thread{'s' if workers > 1 else ''}", f"{took:.3f}",
                         f"{voxels / took / 1e6:.1f}", f"{chunks / took:.0f}"))
    print_table((f"{args.size:g} m x 128 m x {args.size:g} m, 0.5 m voxels ({chunks} chunks of "
                 f"32³), seed {args.seeds[0]}", f"s (best of {args.rounds})", "M voxels/s", "chunks/s"), rows)

    rows = []
    scale = (1024.0 / args.size) ** 2
    for seed in args.seeds:
        result = uniformity(GeneratorSettings(size=args.size, seed=seed))
        counts, mixed, either = result["counts"], result["mixed"], result["either"]
        total = sum(counts.values())
        stored = sum(sum(mixed[kind, name] for kind in counts) * FIELD_BYTES[name] * CHUNK ** 3 for name in FIELDS)
        for kind in ("above", "surface", "deep"):
            n = counts[kind]
            shares = [f"{mixed[kind, name] / n:.3f}" if n else "-" for name in ("density", "mat_a")]
            rows.append((f"seed {seed}, {kind}", n, f"{n / total:.3f}", *shares,
                         f"{either[kind] / n:.3f}" if n else "-",
                         f"{stored * scale / 2**20:.0f}" if kind == "above" else ""))
        all_mixed = [sum(mixed[kind, name] for kind in counts) / total for name in ("density", "mat_a")]
        rows.append((f"seed {seed}, all", total, "1.000", *(f"{v:.3f}" for v in all_mixed),
                     f"{sum(either.values()) / total:.3f}", ""))
    print_table(("chunks (32³)", "chunks", "share", "non-uniform density", "non-uniform mat_a",
                 "non-uniform any field", "store of a 1 km world, MiB"), rows)


if __name__ == "__main__":
    main()
