"""``voxelworld navmesh bake``: bake a navmesh from a Wavefront OBJ scene by casting rays, write its JSON and
optionally a top view; its many options are the fields of ``NavSettings``.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from ..errors import ParameterError
from .common import Commands, add_command, check_output, option_error

if TYPE_CHECKING:  # the commands import what they run when they run it: a quick --help
    import numpy as np

    from ..navigation.scene import Scene

__all__ = ["add_navmesh", "run_navmesh_bake"]


def add_navmesh(commands: Commands) -> None:
    """``voxelworld navmesh`` (its one action, ``bake``, and its options), into the subparsers ``commands``."""
    from ..navigation.settings import EXCLUSION_PROXIES, NavSettings

    navmesh = add_command(commands, "navmesh", "navigation meshes",
                          "Navigation meshes: `voxelworld navmesh bake --help`.",
                          "voxelworld navmesh bake level.obj --region 0 0 0 40 10 40 -o nav.json"
                          ).add_subparsers(dest="action", required=True, metavar="ACTION")
    bake_command = add_command(navmesh, "bake", "bake a navmesh from an OBJ scene by casting rays",
                               "Bake a navmesh from a Wavefront OBJ scene by casting rays "
                               "(voxelworld.navigation.bake),\n"
                               "show progress, write the JSON (docs/specs/navmesh-json.md) and optionally a top view\n"
                               "with the levels coloured, a legend and a scale bar.",
                               "voxelworld navmesh bake tests/data/scenes/nav_test.obj --region -30 -6 -47 63 18 32 "
                               "\\\n    -o nav.json --png nav.png")
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
                                           "(see --low-obstacles; unset: the step limit)"),
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


def _scene_box(scene: Scene, rotation: object) -> tuple[np.ndarray, np.ndarray]:
    """The box ``(lo, hi)`` of a region turned by ``rotation`` about its centre that holds ``scene``: the scene's
    bounds when upright; else centred on them, as wide on each of its own axes as the turned scene reaches."""
    import numpy as np

    from ..navigation.frames import IDENTITY, Frame, check_rotation

    lo, hi = scene.bounds()
    rotation = check_rotation("rotation", rotation)
    if rotation == IDENTITY:
        return lo, hi
    centre = (lo + hi) / 2
    frame = Frame.about(rotation, centre)
    reach = np.max([np.abs(frame.to_local(obj.positions) - centre).max(axis=0) for obj in scene], axis=0)
    return centre - reach, centre + reach


def run_navmesh_bake(args: argparse.Namespace, out: TextIO | None = None) -> None:
    """``voxelworld navmesh bake``: bake, write the JSON (and the PNG), report what came out."""
    import dataclasses

    from ..files import write_atomically
    from ..navigation import NavSettings, Scene, SearchRegion
    from ..navigation.areas import bake_areas
    from ..navigation.bake import bake, local_regions
    from ..navigation.rays import bake_roles

    out = out if out is not None else sys.stdout
    roles = {}
    for rule in args.role:
        pattern, _, role = rule.partition("=")
        if not pattern or not role:
            raise ParameterError("--role", rule, "PATTERN=ROLE, e.g. 'crate*=obstacle'")
        roles[pattern] = role
    check_output("-o", args.out)  # before the bake, which may take minutes
    check_output("--png", args.png)
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
        raise option_error(error, options) from None

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
        from ..viewer.navmesh_png import navmesh_png
        navmesh_png(mesh, args.png)
        print(f"Wrote {args.png}: top view, levels coloured", file=out)
