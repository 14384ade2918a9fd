"""``voxelworld export``: write a world file's meshes (display, and optionally collision and navmesh) as glTF 2.0
binary and/or Wavefront OBJ."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from ..errors import ParameterError, VoxelworldError
from .common import Commands, add_command, option_error

__all__ = ["add_export", "run_export", "NO_EXPORT_OUTPUT"]

NO_EXPORT_OUTPUT = ("export has nothing to write: name the output file, --gltf FILE.glb (glTF 2.0 binary) or "
                    "--obj FILE.obj (Wavefront OBJ), or both")


def add_export(commands: Commands) -> None:
    """``voxelworld export`` and its options, into the subparsers ``commands``."""
    export = add_command(
        commands, "export", "write a world file's meshes as glTF 2.0 binary and/or OBJ",
        "Write a world file's display mesh (and optionally its collision mesh and navmesh) as glTF\n"
        "2.0 binary and/or Wavefront OBJ (voxelworld.io); name at least one output, --gltf or --obj.",
        "voxelworld export world.vwd --gltf world.glb --collision --navmesh")
    export.add_argument("world", metavar="WORLD",
                        help="the world file (written by voxelworld.io.save_world or the play page)")
    export.add_argument("--gltf", help="the .glb file to write")
    export.add_argument("--obj", help="the .obj file to write (its .mtl beside it)")
    export.add_argument("--collision", action="store_true", help="also the collision mesh, as its own node")
    export.add_argument("--navmesh", action="store_true", help="also the navmesh, as its own node")


def run_export(args: argparse.Namespace, out: TextIO | None = None) -> None:
    """``voxelworld export WORLD --gltf out.glb [--obj out.obj] [--collision] [--navmesh]``."""
    from ..io import export_glb, export_obj, load_world

    out = out if out is not None else sys.stdout
    if args.gltf is None and args.obj is None:
        raise VoxelworldError(NO_EXPORT_OUTPUT)
    if not Path(args.world).is_file():
        raise ParameterError("WORLD", args.world, "an existing world file (the play page's save key writes one)")
    world = load_world(args.world)
    parts = " + ".join(["display mesh"] + ["collision mesh"] * args.collision + ["navmesh"] * args.navmesh)
    for option, writer, target in (("--gltf", export_glb, args.gltf), ("--obj", export_obj, args.obj)):
        if target is None:
            continue
        try:
            path = writer(world, target, collision=args.collision, navmesh=args.navmesh)
        except ParameterError as error:
            raise option_error(error, {"path": option, "navmesh": "--navmesh"}) from None
        print(f"Wrote {path}: {parts} of {args.world}", file=out)
