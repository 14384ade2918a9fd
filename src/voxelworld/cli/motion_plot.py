"""``voxelworld motion plot``: CesiumMan's second action in a medium against the free first action, as a PNG."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from ..errors import ParameterError
from .common import Commands, add_command

__all__ = ["add_motion", "run_motion_plot"]


def add_motion(commands: Commands) -> None:
    """``voxelworld motion`` (its one action, ``plot``, and its options), into the subparsers ``commands``."""
    motion = add_command(commands, "motion", "character motion", "Character motion: `voxelworld motion plot --help`.",
                         "voxelworld motion plot --out motion.png").add_subparsers(dest="action", required=True,
                                                                                  metavar="ACTION")
    plot = add_command(
        motion, "plot", "plot the second action in a medium against the free first action (PNG)",
        "Play CesiumMan's first action with a medium in the way and without: the chainsaw swing into a\n"
        "wall (rock, soil, iron) or down into water, a shovel digging soil, an oar rowing in water;\n"
        "plot the paths, the per-joint rates and the measured motion of each joint while touching,\n"
        "as a share of the free run (voxelworld.viewer.motion_plot).",
        "voxelworld motion plot --out oar.png --medium oar --blade-roll 90")
    plot.add_argument("--out", required=True, help="the PNG file to write")
    plot.add_argument("--glb", help="the CesiumMan .glb (default: the one the package ships)")
    plot.add_argument("--medium", default="rock", help="rock, soil, iron (a wall), water, shovel or oar")
    plot.add_argument("--wall-x", type=float, default=1.0, help="the wall's distance ahead in m")
    plot.add_argument("--blade-roll", type=float, default=0.0,
                      help="shovel: the blade turned about the shaft, 0 edge-on, 90 flat; oar: 0 square, 90 feathered"
                           " (degrees)")
    plot.add_argument("--seconds", type=float, default=8.0, help="how long to play in s")


def run_motion_plot(args: argparse.Namespace, out: TextIO | None = None) -> None:
    """``voxelworld motion plot``: the second action in a medium against the free run, as a PNG (see ``--help``)."""
    from ..motion import CESIUM_MAN
    from ..viewer.motion_plot import MEDIA, motion_plot

    out = out if out is not None else sys.stdout
    glb = Path(args.glb) if args.glb else CESIUM_MAN
    if Path(args.out).suffix.lower() != ".png" or not Path(args.out).parent.is_dir():
        raise ParameterError("--out", args.out, "a .png file in an existing folder")
    if not glb.is_file():
        raise ParameterError("--glb", str(glb), "an existing CesiumMan .glb file")
    if not (0.3 <= args.wall_x <= 3.0):
        raise ParameterError("--wall-x", args.wall_x, "a distance in [0.3, 3] (m)")
    if not (0.1 <= args.seconds <= 60.0):
        raise ParameterError("--seconds", args.seconds, "a duration in [0.1, 60] (s)")
    if args.medium not in MEDIA:
        raise ParameterError("--medium", args.medium, f"one of {', '.join(MEDIA)}")
    if not (0.0 <= args.blade_roll <= 90.0):
        raise ParameterError("--blade-roll", args.blade_roll, "an angle in [0, 90] (degrees)")
    path = motion_plot(args.out, glb, medium=args.medium, seconds=args.seconds, wall_x=args.wall_x,
                       blade_roll=args.blade_roll)
    print(f"Wrote {path}: CesiumMan's second action in {args.medium} against the free first action", file=out)
