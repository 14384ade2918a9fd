"""The commands of large worlds in world files: ``voxelworld new`` (generate one) and ``voxelworld bake`` (bake its
meshes and navmesh tiles, here or on a Dask cluster); both take the generator's options (``--size``, ``--height``,
``--voxel-size``, ``--seed``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..errors import ParameterError
from .common import Commands, add_command, check_output, option_error

if TYPE_CHECKING:  # the commands import what they run when they run it: a quick --help
    from ..terrain import GeneratorSettings

__all__ = ["add_new", "add_bake", "run_new", "run_bake"]


def add_new(commands: Commands) -> None:
    """``voxelworld new`` and its options, into the subparsers ``commands``."""
    new = add_command(
        commands, "new", "generate a world of real size (hills, cliffs, caves, strata) into a world file",
        "Generate a seeded world of real size chunk by chunk on all cores (voxelworld.terrain.worldgen:\n"
        "hills, cliffs of rock, caves, grass, soil, sand, rock, iron veins, lava pockets) into a sparse\n"
        "volume, and write it as a world file that `voxelworld play --world` streams around the player.",
        "voxelworld new --size 1024 --seed 7 big.vwd")
    new.add_argument("world", metavar="WORLD", help="the world file to write (.vwd)")
    new.add_argument("--size", type=float, default=1024.0,
                     help="the world's extent along x and z in m (default: %(default)s)")
    new.add_argument("--height", type=float, default=128.0,
                     help="its height in m, the ground at 3/8 of it, the hills 3/16 of it high (default: %(default)s)")
    new.add_argument("--voxel-size", type=float, default=0.5, help="the edge of a voxel in m (default: %(default)s)")
    new.add_argument("--seed", type=int, default=0,
                     help="the generator's seed: the same seed, the same world (default: %(default)s)")
    new.add_argument("--force", action="store_true", help="replace WORLD if it exists (a regular file, or what a "
                     "symlink names; a FIFO or a device is refused)")


def add_bake(commands: Commands) -> None:
    """``voxelworld bake`` and its options, into the subparsers ``commands``."""
    bake = add_command(
        commands, "bake", "bake a world file's meshes and navmesh tiles, here or on a Dask cluster",
        "Bake a large world file block by block (voxelworld.bake): the display meshes of every chunk at\n"
        "every level of detail, the collision meshes and the navmesh tiles, as Dask tasks on a\n"
        "LocalCluster of --workers processes (default 2), on the cluster of --scheduler, or in this\n"
        "process (--workers 0); this process writes the results into the file, block after block. An\n"
        "interrupted bake resumes after the blocks already written. With --what terrain,... it first\n"
        "generates a new world as voxelworld new does (--size, --height, --voxel-size, --seed), block by\n"
        "block on the same workers. Dask comes with pip install 'voxelworld[cluster]'.",
        "voxelworld bake big.vwd --workers 2")
    bake.add_argument("world", metavar="WORLD", help="the world file (of a large world: voxelworld new writes one)")
    where = bake.add_mutually_exclusive_group()
    where.add_argument("--scheduler", help="a Dask scheduler's address (tcp://HOST:PORT, tls://, ws://, wss://, "
                                           "ucx://HOST:PORT, or HOST:PORT for tcp); its workers read WORLD at "
                                           "the same path")
    where.add_argument("--workers", type=int, help="local Dask worker processes (default 2), or 0: bake in this "
                                                   "process without Dask")
    bake.add_argument("--what", default="meshes,navmesh",
                      help="what to bake, some of terrain (generate a new world as voxelworld new does, from --size, "
                           "--height, --voxel-size, --seed), meshes, navmesh (default: %(default)s)")
    bake.add_argument("--block-chunks", type=int, default=None,
                      help="chunk columns along x and z of a block, the unit of work (default 4)")
    for flag, default, text in (("--size", 1024.0, "with terrain: the new world's extent along x and z in m"),
                                ("--height", 128.0, "with terrain: its height in m"),
                                ("--voxel-size", 0.5, "with terrain: the edge of a voxel in m")):
        bake.add_argument(flag, type=float, default=default, help=f"{text} (default: %(default)s)")
    bake.add_argument("--seed", type=int, default=0, help="with terrain: the generator's seed (default: %(default)s)")


def _generator_settings(args: argparse.Namespace) -> GeneratorSettings:
    """The GeneratorSettings of ``--size``, ``--height``, ``--voxel-size`` and ``--seed``."""
    from ..terrain import GeneratorSettings

    try:
        # The generator's heights scale with the world's (its defaults are for 128 m).
        scale = args.height / 128.0
        return GeneratorSettings(size=args.size, height=args.height, voxel_size=args.voxel_size, seed=args.seed,
                                 ground_level=48.0 * scale, hill_height=24.0 * scale, sand_level=34.0 * scale,
                                 lava_level=32.0 * scale)
    except ParameterError as error:
        raise option_error(error, {"size": "--size", "height": "--height", "voxel_size": "--voxel-size",
                                    "seed": "--seed"}) from None


def run_new(args: argparse.Namespace, out: TextIO | None = None) -> None:
    """``voxelworld new WORLD --size 1024 --seed N``: generate a world of real size and write its world file."""
    import numpy as np

    from ..bake.terrain import write_new_world
    from ..terrain import generate_world

    out = out if out is not None else sys.stdout
    path = Path(args.world)
    check_output("WORLD", path)  # --force replaces a regular file (a symlink's target), never a FIFO or a device
    if path.exists() and not args.force:
        raise ParameterError("WORLD", args.world, "a file that does not exist yet (or --force to replace it)")
    settings = _generator_settings(args)
    nx, ny, nz = settings.shape
    print(f"voxelworld new: generating {args.size:g} m x {args.height:g} m x {args.size:g} m of terrain in "
          f"{args.voxel_size:g} m voxels ({nx} x {ny} x {nz}), seed {args.seed}, on all cores ...", file=out,
          flush=True)
    start = time.perf_counter()
    shown = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - shown[0] >= 2.0 or done == total:
            shown[0] = now
            print(f"  {done} / {total} chunks ({100 * done / total:.0f} %)", file=out, flush=True)

    volume = generate_world(settings, progress=progress)
    generated = time.perf_counter() - start
    print(f"voxelworld new: generated in {generated:.1f} s; {volume.stored_chunks()} of "
          f"{np.prod(volume.chunk_grid_shape)} chunks hold a surface ({volume.field_bytes / 2**20:.0f} MiB); writing "
          f"the world file ...", file=out, flush=True)
    write_new_world(volume, path, settings)  # beside WORLD, then over it: --force replaces it, a failed save leaves it be
    print(f"Wrote {path}: {path.stat().st_size / 2**20:.1f} MiB in {time.perf_counter() - start:.1f} s "
          f"(play it: voxelworld play --world {args.world})", file=out, flush=True)


def run_bake(args: argparse.Namespace, out: TextIO | None = None) -> None:
    """``voxelworld bake WORLD [--scheduler URL | --workers N] [--what meshes,navmesh]``."""
    from ..bake import bake_world

    out = out if out is not None else sys.stdout
    if "terrain" not in args.what and not Path(args.world).is_file():
        raise ParameterError("WORLD", args.world, "an existing world file (voxelworld new writes one), or a new one "
                                                  "with --what terrain,...")
    what = tuple(part.strip() for part in args.what.split(",") if part.strip())
    generator = _generator_settings(args) if "terrain" in what else None
    try:
        report = bake_world(args.world, what, args.scheduler, args.workers, args.block_chunks, generator, out=out)
    except ParameterError as error:
        raise option_error(error, {"what": "--what", "workers": "--workers", "block_chunks": "--block-chunks",
                                    "path": "WORLD", "scheduler": "--scheduler"}) from None
    again = f", {len(report.rebaked)} baked again: rows missing or changed" if report.rebaked else ""
    print(f"Baked {report.baked} blocks of {report.blocks} ({report.resumed_after} written before{again}) into "
          f"{args.world} in {report.seconds:.1f} s {report.ran_on}: {report.bytes_written / 2**20:.1f} MiB of "
          "meshes and navmesh tiles", file=out, flush=True)
