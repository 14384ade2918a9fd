"""The ``voxelworld`` command: ``voxelworld --help`` lists its subcommands, ``voxelworld COMMAND --help`` says what
one does, with an example and every option's default; ``voxelworld --version`` prints the package's version.

- ``demo``: plays the scripted demo session headless and writes ``report.md`` with pictures
  (``voxelworld.viewer.demo_session``).
- ``edits``: runs a scripted sequence of every kind of terrain edit and prints what each did.
- ``render``: meshes the demo world and writes an offscreen PNG of it, the world framed
  (``voxelworld.viewer.snapshot``).
- ``navmesh bake``: bakes a navmesh by casting rays (``voxelworld.navigation.bake``), writes the JSON and
  optionally a top view (``voxelworld.viewer.navmesh_png``).
- ``play``: serves a world to the browser (``voxelworld.viewer.server``, docs/play.md).
- ``new``: generates a world of real size into a world file (``voxelworld.terrain.worldgen``).
- ``bake``: bakes a world file's meshes and navmesh tiles block by block, here or on Dask (``voxelworld.bake``).
- ``export``: writes a world file's meshes as glTF 2.0 binary and/or Wavefront OBJ (``voxelworld.io``).
- ``motion plot``: plots CesiumMan's second action in a medium (a wall of rock, soil or iron, water, a shovel
  in soil, an oar in water) against the free first action, in measured motion (``voxelworld.viewer.motion_plot``).
- ``warmup``: compiles every numba kernel into the cache (``voxelworld.warmup``); every other command first checks
  that this was done, and does it when it was not.

Bad input is one line naming the option (exit status 2); a file that cannot be read or written, exit status 1.

A module per command, or per small group of related ones (``demo_world``: demo, edits, render; ``large_worlds``:
new, bake; ``navmesh_bake``, ``play``, ``export``, ``motion_plot``), each adding its subcommand to the parser and
holding its ``run_*`` function; what they share (the parser's class, the option checks, the exit statuses) is in
``common``. This module puts the parser together and runs a command (``main``); it holds ``warmup`` itself, which
runs before the check that the kernels are compiled that every other command starts with.

>>> print(build_parser().format_help().splitlines()[0])
usage: voxelworld [-h] [--version] COMMAND ...
"""

from __future__ import annotations

import os

# A frame makes many small NumPy products (3x3 and 4x4): OpenBLAS's idle threads only wake and spin for them (a 3x3
# product took 0.6 ms on a busy machine; the demo's median World.step 1.9-2.2 ms with one thread against 2.4-2.5
# with them). The command runs BLAS on one thread unless its user says otherwise; set before NumPy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402

from ..errors import VoxelworldError  # noqa: E402
from ..warmup import check_cache_dir, ensure_kernels, kernels_ready, warm_up  # noqa: E402
from .common import EXIT_BAD_INPUT, EXIT_FAILED, Commands, HelpFormatter, Parser, add_command, package_version, report  # noqa: E402
from .demo_world import add_demo, add_edits, add_render, run_demo, run_edits, run_render  # noqa: E402
from .demo_world import terrain_edits as terrain_edits  # noqa: E402
from .export import NO_EXPORT_OUTPUT, add_export, run_export  # noqa: E402
from .large_worlds import add_bake, add_new, run_bake, run_new  # noqa: E402
from .motion_plot import add_motion, run_motion_plot  # noqa: E402
from .navmesh_bake import add_navmesh, run_navmesh_bake  # noqa: E402
from .play import add_play, run_play  # noqa: E402

__all__ = ["main", "build_parser", "package_version", "HelpFormatter", "NO_EXPORT_OUTPUT"]

def add_warmup(commands: Commands) -> None:
    """``voxelworld warmup`` and its options, into the subparsers ``commands``."""
    warmup = add_command(
        commands, "warmup", "compile every numba kernel into the cache (scripts/setup runs it)",
        "Compile every numba kernel into the cache, with a progress line per wing on stderr, and\n"
        "write the marker that says so; nothing to do when the marker is current\n"
        "(voxelworld.warmup). Every other command does the same first when the marker is missing.",
        "voxelworld warmup --force")
    warmup.add_argument("--marker", help="the marker file to write when done (default: voxelworld-kernels.json in "
                                         "numba's cache folder of the kernels)")
    warmup.add_argument("--force", action="store_true", help="compile even if the marker says it is done")


def run_warmup(args: argparse.Namespace) -> int:
    """``voxelworld warmup``: compile the kernels and write the marker, unless the marker is current (and no
    ``--force``); the exit status."""
    marker = None if args.marker is None else Path(args.marker)
    if not args.force and kernels_ready(marker):
        print("voxelworld warmup: the numba kernels are compiled already (--force compiles again)", file=sys.stderr)
        return 0
    print("voxelworld warmup: compiling the numba kernels into the cache, wing by wing (1-3 minutes on 2 cores)",
          file=sys.stderr, flush=True)
    warm_up(marker=marker)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``voxelworld`` command line: every subcommand with its description, an example and its defaults
    (``voxelworld COMMAND --help``)."""
    parser = Parser(prog="voxelworld", description="Destructible game worlds: play one in the browser, play the "
                    "scripted demo headless,\nrender, bake navmeshes, export worlds.",
                    epilog="examples:\n  voxelworld play\n  voxelworld new --size 1024 --seed 7 big.vwd\n"
                           "  voxelworld play --world big.vwd\n  voxelworld demo --out demo\n  voxelworld demo --help")
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (add_demo, add_edits, add_render, add_navmesh, add_play, add_new, add_bake, add_export, add_motion,
                add_warmup):  # in the order of ``voxelworld --help``
        add(commands)
    return parser


# Each command but warmup: what runs it, given the parsed arguments.
RUNS: dict[str, Callable[[argparse.Namespace], None]] = {
    "demo": run_demo, "edits": lambda args: run_edits(args.seed), "render": run_render,
    "navmesh": run_navmesh_bake, "motion": run_motion_plot, "export": run_export, "new": run_new, "bake": run_bake,
    "play": run_play}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` (the process's arguments when None) and return its exit status: 0 done, 2 bad
    input (one line on stderr naming the option), 1 a file that cannot be read or written or kernels that cannot
    be compiled. ``--help``, ``--version`` and what argparse refuses end the process as argparse does."""
    args = build_parser().parse_args(argv)
    try:
        check_cache_dir()  # NUMBA_CACHE_DIR a file: numba would cache elsewhere without a word
    except VoxelworldError as error:
        return report(error, EXIT_BAD_INPUT)
    if args.command == "warmup":
        return run_warmup(args)
    try:
        ensure_kernels()
    except RuntimeError as error:
        return report(error, EXIT_FAILED)
    try:
        RUNS[args.command](args)
    except VoxelworldError as error:
        return report(error, EXIT_BAD_INPUT)
    except OSError as error:  # a file that cannot be read or written (permissions, a full disk, ...)
        return report(error, EXIT_FAILED)
    return 0
