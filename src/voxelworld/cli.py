"""The ``voxelworld`` command: ``voxelworld --help`` lists its subcommands, ``voxelworld COMMAND --help`` says what
one does, with an example and every option's default; ``voxelworld --version`` prints the installed version.

- ``demo``: plays the scripted demo session headless and writes ``report.md`` with pictures
  (``voxelworld.viewer.demo_session``).
- ``edits``: runs a scripted sequence of every kind of terrain edit and prints what each did.
- ``render``: meshes the demo world and writes an offscreen PNG of it, the world framed
  (``voxelworld.viewer.snapshot``).
- ``navmesh bake``: bakes a navmesh by casting rays (``voxelworld.navigation.bake``), writes the JSON and
  optionally a top view (``voxelworld.viewer.navmesh_png``).
- ``play``: serves a world to the browser (``voxelworld.viewer.server``, docs/play.md).
- ``export``: writes a world file's meshes as glTF 2.0 binary and/or Wavefront OBJ (``voxelworld.io``).
- ``motion plot``: plots CesiumMan's second action in a medium (a wall of rock, soil or iron, water, a shovel
  in soil, an oar in water) against the free first action, in measured motion (``voxelworld.viewer.motion_plot``).
- ``warmup``: compiles every numba kernel into the cache (``voxelworld.warmup``); every other command first checks
  that this was done, and does it when it was not.

Bad input is one line naming the option (exit status 2); a file that cannot be read or written, exit status 1.

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
import re  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from importlib import metadata  # noqa: E402
from pathlib import Path  # noqa: E402

from .errors import ParameterError, VoxelworldError  # noqa: E402
from .files import write_target  # noqa: E402
from .terrain import Capsule, Cylinder, EditResult, Sphere, Tool, VoxelVolume, demo_terrain  # noqa: E402
from .warmup import check_cache_dir, ensure_kernels, kernels_ready, warm_up  # noqa: E402

__all__ = ["main", "build_parser", "package_version", "HelpFormatter", "NO_EXPORT_OUTPUT"]

NO_EXPORT_OUTPUT = ("export has nothing to write: name the output file, --gltf FILE.glb (glTF 2.0 binary) or "
                    "--obj FILE.obj (Wavefront OBJ), or both")

# Negative numbers in every notation float() reads (-1e6, -.5, -inf, -nan): values, not options. argparse's own
# rule knows only -1 and -1.5, so `--region -1e6 ...` was taken for an option; no option of ours looks like these.
NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*(e[+-]?\d+)?|\.\d+(e[+-]?\d+)?|inf(inity)?|nan)$", re.IGNORECASE)


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Help that shows each option's default (none for options whose default is "not given" or "off": their
    help says what that means) and keeps the description's and the example's lines as written."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default is None or action.default is False or action.default == []:
            return action.help
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, taking every negative number for a value and writing help with :class:`HelpFormatter`
    (its subcommands' parsers are of this class too)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = NEGATIVE_NUMBER  # the one rule argparse reads to tell -5 from -x


def package_version() -> str:
    """The installed package's version (``importlib.metadata``); the source's ``__version__`` when voxelworld
    runs from a checkout that was never installed."""
    try:
        return metadata.version("voxelworld")
    except metadata.PackageNotFoundError:
        from . import __version__
        return __version__


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


def _option_error(error: ParameterError, options: dict[str, str]) -> ParameterError:
    """``error`` naming the command-line option the user typed for its parameter (``options``: parameter name to
    option); ``error`` itself for a parameter no option sets."""
    option = options.get(error.parameter)
    return error if option is None else ParameterError(option, error.value, error.legal)


def _check_output(option: str, path) -> None:
    """ParameterError naming ``option`` unless ``path`` can be a new file: in an existing folder, not a folder, and
    a regular file or a new one (a symlink's target: never a FIFO or a device, ``files.write_target``)."""
    if path is not None and (Path(path).is_dir() or not Path(path).parent.is_dir()):
        raise ParameterError(option, str(path), "a file in an existing folder")
    if path is not None:
        write_target(path, option)


def _format_materials(amounts: dict[str, float]) -> str:
    return ", ".join(f"{name} {value:.1f}" for name, value in sorted(amounts.items(), key=lambda kv: -kv[1])) or "-"


def run_edits(seed: int, out=None) -> None:
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


def run_demo(args: argparse.Namespace, out=None) -> None:
    """``voxelworld demo``: play the scripted session, write the report and its pictures, print a summary."""
    from collections import Counter

    from .game.events import ActionOutcome, ActionStarted
    from .game.throwing import RULES
    from .viewer.demo_session import run_session

    out = out if out is not None else sys.stdout
    try:
        session = run_session(args.seed, args.frames, args.out)
    except ParameterError as error:
        raise _option_error(error, {"seed": "--seed", "frames": "--frames", "out_dir": "--out"}) from None
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


def run_render(args: argparse.Namespace, out=None) -> None:
    """``voxelworld render``: mesh the default world and write an offscreen PNG of it (see ``--help``)."""
    out = out if out is not None else sys.stdout

    import numpy as np

    from .errors import ParameterError
    from .viewer import Camera, RenderError, snapshot
    from .viewer.snapshot import MAX_SIZE

    # Check what is cheap to check before the world is built and meshed.
    if not (1 <= args.width <= MAX_SIZE and 1 <= args.height <= MAX_SIZE):
        raise ParameterError("--width/--height", (args.width, args.height), f"whole numbers from 1 to {MAX_SIZE}")
    _check_output("--out", args.out)
    try:
        from .meshing import MeshOptions, mesh_volume
        if args.collision:
            from .meshing import collision_mesh_volume
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
            raise _option_error(error, {"eye": "--eye", "target": "--target"}) from None
    path = snapshot(display, args.out, materials=volume.materials, camera=camera, size=(args.width, args.height),
                    collision=collision)
    triangles = f"{len(display.indices)} display triangles"
    if collision is not None:
        triangles += f", {len(collision.indices)} collision triangles (wireframe)"
    print(f"Wrote {path} ({args.width}x{args.height}): demo world seed {args.seed}, {triangles}", file=out)


def _scene_box(scene, rotation):
    """The box ``(lo, hi)`` of a region turned by ``rotation`` about its centre that holds ``scene``: the scene's
    bounds when upright; else centred on them, as wide on each of its own axes as the turned scene reaches."""
    import numpy as np

    from .navigation.frames import IDENTITY, Frame, check_rotation

    lo, hi = scene.bounds()
    rotation = check_rotation("rotation", rotation)
    if rotation == IDENTITY:
        return lo, hi
    centre = (lo + hi) / 2
    frame = Frame.about(rotation, centre)
    reach = np.max([np.abs(frame.to_local(obj.positions) - centre).max(axis=0) for obj in scene], axis=0)
    return centre - reach, centre + reach


def run_navmesh_bake(args: argparse.Namespace, out=None) -> None:
    """``voxelworld navmesh bake``: bake, write the JSON (and the PNG), report what came out."""
    import dataclasses

    from .files import write_atomically
    from .navigation import NavSettings, Scene, SearchRegion
    from .navigation.areas import bake_areas
    from .navigation.bake import bake, local_regions
    from .navigation.rays import bake_roles

    out = out if out is not None else sys.stdout
    roles = {}
    for rule in args.role:
        pattern, _, role = rule.partition("=")
        if not pattern or not role:
            raise ParameterError("--role", rule, "PATTERN=ROLE, e.g. 'crate*=obstacle'")
        roles[pattern] = role
    _check_output("-o", args.out)  # before the bake, which may take minutes
    _check_output("--png", args.png)
    scene = Scene.from_obj(args.scene, roles=roles or None)
    names = [field.name for field in dataclasses.fields(NavSettings)]
    options = {name: f"--{name.replace('_', '-')}" for name in names}
    options.update({name: "--region" for name in ("min", "max", "region", "regions", "ray_direction")})
    options["rotation"] = "--rotation"
    overrides = {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}
    overrides["levels"] = bool(args.levels)
    try:
        settings = NavSettings(**overrides)
        landing = {"auto": None, "on": True, "off": False}[args.landing]
        rotation = (0.0, 0.0, 0.0, 1.0) if args.rotation is None else tuple(args.rotation)
        if args.region:
            regions = [SearchRegion(tuple(r[:3]), tuple(r[3:]), landing=landing, rotation=rotation)
                       for r in args.region]
        else:  # the scene's box, with an agent's height of room above its highest point and below its lowest
            lo, hi = _scene_box(scene, rotation)
            lo[1], hi[1] = lo[1] - settings.clearance, hi[1] + settings.clearance
            regions = [SearchRegion(tuple(lo.tolist()), tuple(hi.tolist()), landing=landing, rotation=rotation)]
            what = "bounds" if regions[0].rotation == (0.0, 0.0, 0.0, 1.0) else "box in the turned frame"
            print(f"region: the scene's {what} widened by the agent height ({settings.clearance:g} m): "
                  + " ".join(f"{v:.2f}" for v in (*lo, *hi)), file=out)
        # a region too narrow, or a bake too large for memory, refused before the scene is binned
        bake_areas(local_regions(scene, regions)[2], settings)
    except ParameterError as error:
        raise _option_error(error, options) from None

    def progress(done: int, total: int) -> None:
        filled = int(30 * done / total)
        print(f"\rbaking [{'#' * filled}{'.' * (30 - filled)}] step {done}/{total}", end="", file=sys.stderr,
              flush=True)

    mesh = bake(scene, regions, settings, progress=progress)
    print(file=sys.stderr)
    _, seen, boxes = local_regions(scene, regions)  # the scene as the bake saw it (turned regions: in their frame)
    for number, region in enumerate(boxes, start=1):  # what the bake made of the objects (bake_roles is cached)
        made = bake_roles(seen, region, settings).roles
        counts = ", ".join(f"{made.count(role)} {role}" for role in ("floor", "obstacle", "transparent"))
        ruled = sum(obj.role == "auto" and role == "obstacle" for obj, role in zip(scene, made))
        where = f" in region {number}" if len(regions) > 1 else ""
        print(f"objects{where}: {counts} ({ruled} obstacle{'s' if ruled != 1 else ''} by the vertex-in-region rule)",
              file=out)
    text = mesh.to_json().encode("utf-8")
    write_atomically(args.out, lambda file: file.write(text))
    print(f"Wrote {args.out}: {mesh.polygon_count} polygons, {mesh.area():.1f} m² walkable, "
          f"{len(mesh.islands())} islands", file=out)
    if args.png:
        from .viewer.navmesh_png import navmesh_png
        navmesh_png(mesh, args.png)
        print(f"Wrote {args.png}: top view, levels coloured", file=out)


def run_motion_plot(args: argparse.Namespace, out=None) -> None:
    """``voxelworld motion plot``: the second action in a medium against the free run, as a PNG (see ``--help``)."""
    from pathlib import Path

    from .motion import CESIUM_MAN
    from .viewer.motion_plot import MEDIA, motion_plot

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


def run_play(args: argparse.Namespace, out=None) -> None:
    """``voxelworld play``: serve a world to the browser until Ctrl+C (see ``--help``)."""
    from pathlib import Path

    from .game.world import World
    from .io import load_world
    from .viewer.server import bind_socket, serve

    out = out if out is not None else sys.stdout
    if args.world is not None:
        path = Path(args.world)
        if not path.is_file():
            raise ParameterError("--world", args.world, "an existing world file")
    save = args.save if args.save is not None else (args.world if args.world is not None else "world.vwd")
    write_target(save, "--save")  # a FIFO or a device (/dev/null) refused now, not replaced by the save key
    try:
        sock = bind_socket(args.host, args.port)  # a port in use fails now, not after the world is built
    except ParameterError as error:
        raise ParameterError(f"--{error.parameter}", error.value, error.legal) from None
    try:
        if args.world is not None:
            print(f"voxelworld play: loading {path} ...", file=out, flush=True)
            world = load_world(path)
        else:
            print(f"voxelworld play: building the demo world (seed {args.seed}) ...", file=out, flush=True)
            world = World.demo(seed=args.seed)
        print(f"voxelworld play: the save key (K or Ctrl+S) writes {save}", file=out, flush=True)
        serve(world, args.host, args.port, save, out=out, sock=sock)
    except ParameterError as error:  # name the option the user typed
        if error.parameter != "seed":
            raise
        raise ParameterError("--seed", error.value, error.legal) from None
    except KeyboardInterrupt:  # Ctrl+C, while the world is built or served
        pass
    finally:
        sock.close()
    print("voxelworld play: stopped", file=out, flush=True)


def _generator_settings(args: argparse.Namespace):
    """The GeneratorSettings of ``--size``, ``--height``, ``--voxel-size`` and ``--seed``."""
    from .terrain import GeneratorSettings

    try:
        # The generator's heights scale with the world's (its defaults are for 128 m).
        scale = args.height / 128.0
        return GeneratorSettings(size=args.size, height=args.height, voxel_size=args.voxel_size, seed=args.seed,
                                 ground_level=48.0 * scale, hill_height=24.0 * scale, sand_level=34.0 * scale,
                                 lava_level=32.0 * scale)
    except ParameterError as error:
        raise _option_error(error, {"size": "--size", "height": "--height", "voxel_size": "--voxel-size",
                                    "seed": "--seed"}) from None


def run_new(args: argparse.Namespace, out=None) -> None:
    """``voxelworld new WORLD --size 1024 --seed N``: generate a world of real size and write its world file."""
    import numpy as np

    from .bake.terrain import write_new_world
    from .terrain import generate_world

    out = out if out is not None else sys.stdout
    path = Path(args.world)
    _check_output("WORLD", path)  # --force replaces a regular file (a symlink's target), never a FIFO or a device
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
          f"{np.prod(volume.chunk_grid_shape)} chunks hold a surface ({volume.field_bytes / 2**20:.0f} MiB); meshing "
          f"the view around the spawn ...", file=out, flush=True)
    write_new_world(volume, path)  # beside WORLD, then over it: --force replaces it, a failed save leaves it be
    print(f"Wrote {path}: {path.stat().st_size / 2**20:.1f} MiB in {time.perf_counter() - start:.1f} s "
          f"(play it: voxelworld play --world {args.world})", file=out, flush=True)


def run_bake(args: argparse.Namespace, out=None) -> None:
    """``voxelworld bake WORLD [--scheduler URL | --workers N] [--what meshes,navmesh]``."""
    from .bake import bake_world

    out = out if out is not None else sys.stdout
    if "terrain" not in args.what and not Path(args.world).is_file():
        raise ParameterError("WORLD", args.world, "an existing world file (voxelworld new writes one), or a new one "
                                                  "with --what terrain,...")
    what = tuple(part.strip() for part in args.what.split(",") if part.strip())
    generator = _generator_settings(args) if "terrain" in what else None
    try:
        report = bake_world(args.world, what, args.scheduler, args.workers, args.block_chunks, generator, out=out)
    except ParameterError as error:
        raise _option_error(error, {"what": "--what", "workers": "--workers", "block_chunks": "--block-chunks",
                                    "path": "WORLD", "scheduler": "--scheduler"}) from None
    again = f", {len(report.rebaked)} baked again: rows missing or changed" if report.rebaked else ""
    print(f"Baked {report.baked} blocks of {report.blocks} ({report.resumed_after} written before{again}) into "
          f"{args.world} in {report.seconds:.1f} s {report.ran_on}: {report.bytes_written / 2**20:.1f} MiB of "
          "meshes and navmesh tiles", file=out, flush=True)


def run_export(args: argparse.Namespace, out=None) -> None:
    """``voxelworld export WORLD --gltf out.glb [--obj out.obj] [--collision] [--navmesh]``."""
    from pathlib import Path

    from .io import export_glb, export_obj, load_world

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
            raise _option_error(error, {"path": option, "navmesh": "--navmesh"}) from None
        print(f"Wrote {path}: {parts} of {args.world}", file=out)


def build_parser() -> argparse.ArgumentParser:
    """The ``voxelworld`` command line: every subcommand with its description, an example and its defaults
    (``voxelworld COMMAND --help``)."""
    from .navigation.settings import EXCLUSION_PROXIES, NavSettings

    parser = _Parser(prog="voxelworld", description="Destructible game worlds: play one in the browser, play the "
                     "scripted demo headless,\nrender, bake navmeshes, export worlds.",
                     epilog="examples:\n  voxelworld play\n  voxelworld new --size 1024 --seed 7 big.vwd\n"
                            "  voxelworld play --world big.vwd\n  voxelworld demo --out demo\n  voxelworld demo --help")
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, summary: str, description: str, example: str, within=commands) -> argparse.ArgumentParser:
        return within.add_parser(name, help=summary, description=description,
                                 epilog="example:\n  " + example.replace("\n", "\n  "))

    demo = command("demo", "play the scripted demo session headless; write a report with pictures",
                   "Play the scripted demo session headless on the demo world (walk, punch, pull-out, suck,\n"
                   "stance, throw; NPCs and the chainsaw enemy) and write report.md, a PNG per key frame, an\n"
                   "overview and the achievements chart into a folder (voxelworld.viewer.demo_session).",
                   "voxelworld demo --frames 600 --out demo")
    demo.add_argument("--seed", type=int, default=0, help="world seed")
    demo.add_argument("--frames", type=int, default=600, help="frames of 1/60 s to play")
    demo.add_argument("--out", default="demo", help="the folder for report.md and the PNGs (made if missing)")
    edits = command("edits", "build the default terrain, run every kind of edit, print a table",
                    "Build the demo terrain, run a scripted sequence of every kind of edit and print what each\n"
                    "did (by material) and how long it took.", "voxelworld edits --seed 2")
    edits.add_argument("--seed", type=int, default=0, help="world seed")
    render = command("render", "mesh the default world and write an offscreen PNG of it",
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
    navmesh = command("navmesh", "navigation meshes", "Navigation meshes: `voxelworld navmesh bake --help`.",
                      "voxelworld navmesh bake level.obj --region 0 0 0 40 10 40 -o nav.json"
                      ).add_subparsers(dest="action", required=True, metavar="ACTION")
    bake_command = command("bake", "bake a navmesh from an OBJ scene by casting rays",
                           "Bake a navmesh from a Wavefront OBJ scene by casting rays (voxelworld.navigation.bake),\n"
                           "show progress, write the JSON (docs/specs/navmesh-json.md) and optionally a top view\n"
                           "with the levels coloured, a legend and a scale bar.",
                           "voxelworld navmesh bake tests/data/scenes/nav_test.obj --region -30 -6 -47 63 18 32 \\\n"
                           "    -o nav.json --png nav.png", within=navmesh)
    bake_command.add_argument("scene", help="the scene, a Wavefront OBJ file (Y up, metres)")
    bake_command.add_argument("--region", type=float, nargs=6, action="append",
                              metavar=("X0", "Y0", "Z0", "X1", "Y1", "Z1"),
                              help="a search region's corners in m (repeat for several regions; default: the "
                                   "scene's bounds, widened up and down by the agent height --clearance)")
    bake_command.add_argument("--rotation", type=float, nargs=4, metavar=("X", "Y", "Z", "W"),
                              help="turn every region about its centre by this quaternion (glTF order; the rays "
                                   "fall along its own down axis: walls, ceilings, tilted decks; default: upright; "
                                   "without --region: the scene's box in the turned frame)")
    bake_command.add_argument("--role", action="append", default=[], metavar="PATTERN=ROLE",
                              help="give objects whose name matches the glob PATTERN the ROLE floor, obstacle, "
                                   "exception or auto (repeatable; first match wins; objects no rule names are auto: "
                                   "see --auto-obstacles)")
    for name, kind, meaning in (
            ("ray-density", float, "rays cast per m² of the region's top face (more: finer outlines, slower)"),
            ("step-limit", float, "the highest step in m an agent climbs from one spot to the next"),
            ("clearance", float, "the agent's height in m: the free space walkable ground needs above it"),
            ("agent-radius", float, "m the walkable area keeps away from walls and drops"),
            ("max-slope", float, "the steepest walkable ground in degrees"),
            ("obstacle-min-height", float, "m: obstacles rising no more above the surface under them are low "
                                           "(see --low-obstacles)"),
            ("max-corners", int, "the most corners a (convex) polygon may have"),
            ("max-edge-error", float, "m a polygon's side along a wall may lie from the walkable cells' outline "
                                      "(0: exactly on it)"),
            ("aabb-depth", int, "levels of the aabb-tree proxy's boxes (0: one bounding box per obstacle)"),
            ("proxy-triangles", int, "the most triangles of the reduced proxy (a convex copy that encloses it)"),
            ("min-region-area", float, "m²: islands of walkable area smaller than this are dropped")):
        field = name.replace("-", "_")
        bake_command.add_argument(f"--{name}", type=kind, help=f"{meaning} (NavSettings.{field}; default: "
                                                               f"{getattr(NavSettings(), field)})")
    bake_command.add_argument("--exclusion-proxy", choices=EXCLUSION_PROXIES,
                              help="NavSettings.exclusion_proxy: the volume that stands in for an obstacle "
                                   f"(default: {NavSettings().exclusion_proxy})")
    bake_command.add_argument("--low-obstacles", choices=("transparent", "floor"),
                              help="what an obstacle no higher than --obstacle-min-height above the surface under "
                                   f"it is (default: {NavSettings().low_obstacles})")
    bake_command.add_argument("--auto-obstacles", action=argparse.BooleanOptionalAction,
                              help="NavSettings.auto_obstacles, the vertex-in-region rule for objects no --role names: "
                                   "one with a vertex in the region that stands on other objects and rises above "
                                   "--obstacle-min-height is an obstacle (a crate on the ground), any other is floor "
                                   "(the ground, a terrain, a level mesh); --no-auto-obstacles makes them all floor "
                                   f"(default: {'on' if NavSettings().auto_obstacles else 'off'})")
    bake_command.add_argument("--levels", action="store_true", help="keep every level (table tops walkable)")
    bake_command.add_argument("--landing", choices=("auto", "on", "off"), default="auto",
                              help="whether a ray that meets nothing lands on the region's bottom face (auto: when "
                                   "no floor object reaches into the region)")
    bake_command.add_argument("-o", "--out", required=True, help="the navmesh JSON file to write")
    bake_command.add_argument("--png", help="also write a top view of the navmesh to this PNG file")
    play = command("play", "serve a world to the browser and play it (Ctrl+C stops)",
                   "Serve a world (the demo world, or the one --world names) to the browser: print the URL of\n"
                   "the page, step the world at 60 frames a second and stream it to every page that connects;\n"
                   "the first page plays (voxelworld.viewer.server, docs/play.md). Ctrl+C stops it.",
                   "voxelworld play --seed 3 --port 9000")
    play.add_argument("--world", help="a world file to play, read with voxelworld.io.load_world "
                                      "(default: the demo world)")
    play.add_argument("--save", help="the file the save key writes (default: the --world file, else world.vwd "
                                     "in the current folder)")
    play.add_argument("--seed", type=int, default=0, help="the demo world's seed")
    play.add_argument("--host", default="127.0.0.1", help="the address to listen on (127.0.0.1: this machine only)")
    play.add_argument("--port", type=int, default=8765, help="the port to listen on (0: any free port)")
    new = command("new", "generate a world of real size (hills, cliffs, caves, strata) into a world file",
                  "Generate a seeded world of real size chunk by chunk on all cores (voxelworld.terrain.worldgen:\n"
                  "hills, cliffs of rock, caves, grass, soil, sand, rock, iron veins, lava pockets) into a sparse\n"
                  "volume, and write it as a world file that `voxelworld play --world` streams around the player.",
                  "voxelworld new --size 1024 --seed 7 big.vwd")
    new.add_argument("world", metavar="WORLD", help="the world file to write (.vwd)")
    new.add_argument("--size", type=float, default=1024.0, help="the world's extent along x and z in m (default: %(default)s)")
    new.add_argument("--height", type=float, default=128.0,
                     help="its height in m, the ground at 3/8 of it, the hills 3/16 of it high (default: %(default)s)")
    new.add_argument("--voxel-size", type=float, default=0.5, help="the edge of a voxel in m (default: %(default)s)")
    new.add_argument("--seed", type=int, default=0, help="the generator's seed: the same seed, the same world (default: %(default)s)")
    new.add_argument("--force", action="store_true", help="replace WORLD if it exists (a regular file, or what a "
                     "symlink names; a FIFO or a device is refused)")
    bake = command("bake", "bake a world file's meshes and navmesh tiles, here or on a Dask cluster",
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
    export = command("export", "write a world file's meshes as glTF 2.0 binary and/or OBJ",
                     "Write a world file's display mesh (and optionally its collision mesh and navmesh) as glTF\n"
                     "2.0 binary and/or Wavefront OBJ (voxelworld.io); name at least one output, --gltf or --obj.",
                     "voxelworld export world.vwd --gltf world.glb --collision --navmesh")
    export.add_argument("world", metavar="WORLD",
                        help="the world file (written by voxelworld.io.save_world or the play page)")
    export.add_argument("--gltf", help="the .glb file to write")
    export.add_argument("--obj", help="the .obj file to write (its .mtl beside it)")
    export.add_argument("--collision", action="store_true", help="also the collision mesh, as its own node")
    export.add_argument("--navmesh", action="store_true", help="also the navmesh, as its own node")
    motion = command("motion", "character motion", "Character motion: `voxelworld motion plot --help`.",
                     "voxelworld motion plot --out motion.png").add_subparsers(dest="action", required=True,
                                                                              metavar="ACTION")
    plot = command("plot", "plot the second action in a medium against the free first action (PNG)",
                   "Play CesiumMan's first action with a medium in the way and without: the chainsaw swing into a\n"
                   "wall (rock, soil, iron) or down into water, a shovel digging soil, an oar rowing in water;\n"
                   "plot the paths, the per-joint rates and the measured motion of each joint while touching,\n"
                   "as a share of the free run (voxelworld.viewer.motion_plot).",
                   "voxelworld motion plot --out oar.png --medium oar --blade-roll 90", within=motion)
    plot.add_argument("--out", required=True, help="the PNG file to write")
    plot.add_argument("--glb", help="the CesiumMan .glb (default: the one the package ships)")
    plot.add_argument("--medium", default="rock", help="rock, soil, iron (a wall), water, shovel or oar")
    plot.add_argument("--wall-x", type=float, default=1.0, help="the wall's distance ahead in m")
    plot.add_argument("--blade-roll", type=float, default=0.0,
                      help="shovel: the blade turned about the shaft, 0 edge-on, 90 flat; oar: 0 square, 90 feathered"
                           " (degrees)")
    plot.add_argument("--seconds", type=float, default=8.0, help="how long to play in s")
    warmup = command("warmup", "compile every numba kernel into the cache (scripts/setup runs it)",
                     "Compile every numba kernel into the cache, with a progress line per wing on stderr, and\n"
                     "write the marker that says so; nothing to do when the marker is current\n"
                     "(voxelworld.warmup). Every other command does the same first when the marker is missing.",
                     "voxelworld warmup --force")
    warmup.add_argument("--marker", help="the marker file to write when done (default: voxelworld-kernels.json in "
                                         "numba's cache folder of the kernels)")
    warmup.add_argument("--force", action="store_true", help="compile even if the marker says it is done")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        check_cache_dir()  # NUMBA_CACHE_DIR a file: numba would cache elsewhere without a word
    except VoxelworldError as error:
        print(f"voxelworld: {error}", file=sys.stderr)
        return 2
    if args.command == "warmup":
        marker = None if args.marker is None else Path(args.marker)
        if not args.force and kernels_ready(marker):
            print("voxelworld warmup: the numba kernels are compiled already (--force compiles again)",
                  file=sys.stderr)
            return 0
        print("voxelworld warmup: compiling the numba kernels into the cache, wing by wing (1-3 minutes on 2 cores)",
              file=sys.stderr, flush=True)
        warm_up(marker=marker)
        return 0
    try:
        ensure_kernels()
    except RuntimeError as error:
        print(f"voxelworld: {error}", file=sys.stderr)
        return 1
    try:
        if args.command == "demo":
            run_demo(args)
        elif args.command == "edits":
            run_edits(args.seed)
        elif args.command == "render":
            run_render(args)
        elif args.command == "navmesh":
            run_navmesh_bake(args)
        elif args.command == "motion":
            run_motion_plot(args)
        elif args.command == "export":
            run_export(args)
        elif args.command == "new":
            run_new(args)
        elif args.command == "bake":
            run_bake(args)
        elif args.command == "play":
            run_play(args)
    except VoxelworldError as error:
        print(f"voxelworld: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # a file that cannot be read or written (permissions, a full disk, ...)
        print(f"voxelworld: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
