"""The commands that run headless on the demo world: ``voxelworld demo`` (the scripted session and its report),
``voxelworld edits`` (every kind of terrain edit, as a table) and ``voxelworld render`` (an offscreen PNG).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TextIO

from ..errors import ParameterError
from ..terrain import Capsule, Cylinder, EditResult, Sphere, Tool, VoxelVolume, demo_terrain
from .common import Commands, add_command, check_output, option_error

__all__ = ["add_demo", "add_edits", "add_render", "run_demo", "run_edits", "run_render", "terrain_edits"]


def add_demo(commands: Commands) -> None:
    """``voxelworld demo`` and its options, into the subparsers ``commands``."""
    demo = add_command(commands, "demo", "play the scripted demo session headless; write a report with pictures",
                       "Play the scripted demo session headless on the demo world (walk, punch, pull-out, suck,\n"
                       "stance, throw; NPCs and the chainsaw enemy) and write report.md, a PNG per key frame, an\n"
                       "overview and the achievements chart into a folder (voxelworld.viewer.demo_session).",
                       "voxelworld demo --frames 600 --out demo")
    demo.add_argument("--seed", type=int, default=0, help="world seed")
    demo.add_argument("--frames", type=int, default=600, help="frames of 1/60 s to play")
    demo.add_argument("--out", default="demo", help="the folder for report.md and the PNGs (made if missing)")


def add_edits(commands: Commands) -> None:
    """``voxelworld edits`` and its options, into the subparsers ``commands``."""
    edits = add_command(commands, "edits", "build the default terrain, run every kind of edit, print a table",
                        "Build the demo terrain, run a scripted sequence of every kind of edit and print what each\n"
                        "did (by material) and how long it took.", "voxelworld edits --seed 2")
    edits.add_argument("--seed", type=int, default=0, help="world seed")


def add_render(commands: Commands) -> None:
    """``voxelworld render`` and its options, into the subparsers ``commands``."""
    render = add_command(commands, "render", "mesh the default world and write an offscreen PNG of it",
                         "Mesh the demo world and draw it offscreen into a PNG (voxelworld.viewer.snapshot); the\n"
                         "camera frames the whole world unless --eye or --target says otherwise.",
                         "voxelworld render --out shot.png --width 1280 --height 720 --collision")
    render.add_argument("--out", required=True, help="the PNG file to write")
    render.add_argument("--seed", type=int, default=0, help="world seed")
    render.add_argument("--eye", type=float, nargs=3, metavar=("X", "Y", "Z"),
                        help="camera position in m (default: from above, front right, framing the world)")
    render.add_argument("--target", type=float, nargs=3, metavar=("X", "Y", "Z"),
                        help="point the camera looks at in m (default: the middle of the world)")
    render.add_argument("--width", type=int, default=960, help="picture width in pixels")
    render.add_argument("--height", type=int, default=540, help="picture height in pixels")
    render.add_argument("--collision", action="store_true", help="draw the collision mesh's edges on top")


def terrain_edits(volume: VoxelVolume) -> list[tuple[str, Callable[[], EditResult]]]:
    """The scripted edits of ``voxelworld edits``, as (description, edit) pairs run in order."""
    s = volume.voxel_size
    mid = volume.shape[0] * s / 2
    surface = float(volume.origin[1]) + volume.shape[1] * s * 0.4
    wall = (mid * 1.6, surface + 4 * s, mid)
    hole = Sphere((mid, surface, mid * 0.8), 4 * s)
    pick = Tool(damage=40, breaks_at=100)
    pit = (mid * 0.8, surface + 1 * s, mid * 1.2)
    steps: list[tuple[str, Callable[[], EditResult]]] = [
        ("remove: sphere r=4 m in the hill", lambda: volume.remove(hole)),
        ("expose_interior: rim of that hole", lambda: volume.expose_interior(hole.expanded(1.5 * s))),
        ("remove: capsule tunnel into the hill",
         lambda: volume.remove(Capsule((mid * 0.7, surface - 2 * s, mid), (mid * 0.9, surface - 4 * s, mid), 2 * s))),
    ]
    for n in range(3):
        steps.append((f"remove: pickaxe on the rock wall, hit {n + 1}",
                      lambda: volume.remove(Sphere(wall, 2 * s), tool=pick)))
    for n in range(4):
        steps.append((f"scrape: suck at the hillside, frame {n + 1}",
                      lambda: volume.scrape(Sphere((mid * 1.3, surface, mid * 1.3), 3 * s), step=64)))
    steps += [
        ("remove: the iron block (unbreakable)",
         lambda: volume.remove(Sphere((mid * 1.1, surface + 1 * s, mid * 1.1), 2 * s))),
        ("add: a soil mound stuck to the wall", lambda: volume.add(Sphere((mid * 1.6 - s, surface + 2 * s, mid * 1.2),
                                                                          2 * s), "soil")),
        ("paint: an ice sheet on the hill",
         lambda: volume.paint(Cylinder((mid * 0.4, surface - 3 * s, mid * 1.5), (mid * 0.4, surface + 3 * s,
                                                                                  mid * 1.5), 5 * s), "ice")),
        ("remove: a pit beside the pool", lambda: volume.remove(Sphere(pit, 4 * s))),
        ("add: a clod of soil flung into the pit", lambda: volume.add(Sphere(pit, 0.8 * s), "soil")),
        ("remove_fragments: judge the whole world", lambda: volume.remove_fragments()),
    ]
    return steps


def _format_materials(amounts: dict[str, float]) -> str:
    return ", ".join(f"{name} {value:.1f}" for name, value in sorted(amounts.items(), key=lambda kv: -kv[1])) or "-"


def run_edits(seed: int, out: TextIO | None = None) -> None:
    """``voxelworld edits``: print the table of edits to ``out`` (the current standard output when None)."""
    out = out if out is not None else sys.stdout
    start = time.perf_counter()
    volume = demo_terrain(seed=seed)
    built = time.perf_counter() - start
    print(f"Demo world: {volume.shape[0]}x{volume.shape[1]}x{volume.shape[2]} voxels of {volume.voxel_size} m, "
          f"seed {seed}, built in {built * 1000:.0f} ms; solid {volume.solid_volume():.0f} m³", file=out)
    print(file=out)
    header = f"{'edit':<44} {'changed':>8} {'held':>6} {'removed m³':>11} {'added m³':>9} {'ms':>7}  lost by material (m³)"
    print(header, file=out)
    print("-" * len(header), file=out)
    for description, edit in terrain_edits(volume):
        start = time.perf_counter()
        result = edit()
        took = (time.perf_counter() - start) * 1000
        lost = _format_materials(result.removed_by_material)
        if result.fragments_erased:
            lost = f"{result.fragments_erased} fragments: {lost}"
        print(f"{description:<44} {result.voxels_changed:>8} {result.voxels_blocked:>6} "
              f"{result.volume_removed:>11.2f} {result.volume_added:>9.2f} {took:>7.2f}  {lost}", file=out)
    print(file=out)
    print("Solid volume by material now (m³): " + _format_materials(volume.solid_volume_by_material()), file=out)


def run_demo(args: argparse.Namespace, out: TextIO | None = None) -> None:
    """``voxelworld demo``: play the scripted session, write the report and its pictures, print a summary."""
    from collections import Counter

    from ..game.events import ActionOutcome, ActionStarted
    from ..game.throwing import RULES
    from ..viewer.demo_session import run_session

    out = out if out is not None else sys.stdout
    try:
        session = run_session(args.seed, args.frames, args.out)
    except ParameterError as error:
        raise option_error(error, {"seed": "--seed", "frames": "--frames", "out_dir": "--out"}) from None
    events, world = session.world.events, session.world
    started = Counter(e.action for e in events if isinstance(e, ActionStarted))
    impacts = [e.kind for e in events if isinstance(e, ActionOutcome) and e.kind in RULES]
    bullets = sum(1 for e in events if isinstance(e, ActionOutcome) and e.kind == "bullet")
    stats = session.stats()
    print(f"Played {len(session.times)} frames of the demo world, seed {args.seed}: {started['punch']} punches, "
          f"{started['pull_out']} pull-outs, {bullets} bullets, {started['throw']} throws "
          f"(impacts: {', '.join(impacts) or 'none'}); the enemy carved "
          f"{sum(e.carved_volume for e in world.agents.enemies):.2f} m³", file=out)
    print(f"World.step: median {stats.median:.1f} ms, p95 {stats.p95:.1f} ms, max {stats.worst:.1f} ms; "
          f"frames over 16.7 ms: {stats.over_budget()}", file=out)
    print(f"Wrote {session.report} and {len(session.pictures)} PNGs beside it", file=out)


def run_render(args: argparse.Namespace, out: TextIO | None = None) -> None:
    """``voxelworld render``: mesh the default world and write an offscreen PNG of it (see ``--help``)."""
    out = out if out is not None else sys.stdout

    import numpy as np

    from ..viewer import Camera, RenderError, snapshot
    from ..viewer.snapshot import MAX_SIZE

    # Check what is cheap to check before the world is built and meshed.
    if not (1 <= args.width <= MAX_SIZE and 1 <= args.height <= MAX_SIZE):
        raise ParameterError("--width/--height", (args.width, args.height), f"whole numbers from 1 to {MAX_SIZE}")
    check_output("--out", args.out)
    try:
        from ..meshing import MeshOptions, mesh_volume
        if args.collision:
            from ..meshing import collision_mesh_volume
    except ImportError as error:
        raise RenderError(f"voxelworld render needs voxelworld.meshing, which cannot be imported: {error}") from error
    volume = demo_terrain(seed=args.seed)
    display = mesh_volume(volume, MeshOptions())
    collision = collision_mesh_volume(volume, MeshOptions()) if args.collision else None
    if args.eye is None and args.target is None:  # the world's surface fills the picture, seen from above
        camera = Camera.fitting(display.positions, normals=display.normals, aspect=args.width / args.height)
    else:
        # The one not given comes from the default framing of the world's box; near and far enclose the box.
        lo, hi = volume.origin, volume.origin + volume.voxel_size * (np.array(volume.shape) - 1)
        try:
            camera = Camera.looking_at_bounds(lo, hi, aspect=args.width / args.height, eye=args.eye,
                                              target=args.target)
        except ParameterError as error:
            raise option_error(error, {"eye": "--eye", "target": "--target"}) from None
    path = snapshot(display, args.out, materials=volume.materials, camera=camera, size=(args.width, args.height),
                    collision=collision)
    triangles = f"{len(display.indices)} display triangles"
    if collision is not None:
        triangles += f", {len(collision.indices)} collision triangles (wireframe)"
    print(f"Wrote {path} ({args.width}x{args.height}): demo world seed {args.seed}, {triangles}", file=out)
