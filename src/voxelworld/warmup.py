"""Compile every numba kernel into the cache once, wing by wing, so that later runs start in seconds.

The kernels are ``numba.njit(cache=True)`` functions: the first call with new argument types compiles them (on a
2-core machine about two minutes for all of them) and writes the machine code to numba's cache, beside the sources
(``__pycache__``) or under ``NUMBA_CACHE_DIR`` when that is set; every later process loads it from there.
:func:`compile_kernels` runs a small workload per wing through the public API, with the argument types real use
has (the demo world and its scripted session for the game; the same calls ``voxelworld demo``, ``play`` and the
tests make), so that the signatures compiled are the ones those commands load.

:func:`warm_up` does that and then writes a *marker*, ``voxelworld-kernels.json`` in the cache folder of the
kernels (:func:`marker_path`), holding :func:`marker_key`: the package version, numba's and Python's versions,
the CPU numba compiles for, and a hash of the kernel sources (and of this module, which decides the signatures).
``scripts/setup`` runs it (``voxelworld warmup``); the ``voxelworld`` command checks the marker before any
other command and, when it is missing or stale (a user's own ``pip install``, kernels edited since), says so and
compiles first, with a progress line per wing on stderr, instead of going silent for minutes.

Examples
--------
>>> [wing for wing, _ in STAGES]
['terrain', 'collision', 'meshing', 'navigation', 'motion', 'game']
>>> sorted(marker_key())
['cpu', 'kernel_sources', 'numba', 'python', 'voxelworld']
>>> marker_path().name
'voxelworld-kernels.json'
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import numpy as np

from . import __version__
from .errors import ParameterError

__all__ = ["STAGES", "compile_kernels", "warm_up", "kernels_ready", "ensure_kernels", "load_compiled_kernels",
           "marker_key", "marker_path", "kernel_sources", "check_cache_dir"]

MARKER_NAME = "voxelworld-kernels.json"
BAR_WIDTH = 24  # characters of the progress bar


def _terrain() -> None:
    from .terrain import Box, Layer, Sphere, Tool, VoxelVolume

    heights = np.full((24, 24), 8.0)
    heights[12:, :] = 10.0
    volume = VoxelVolume.from_heightmap(heights, [Layer("grass", 1.0), Layer("soil", 2.0), Layer("rock")],
                                        height=16, voxel_size=0.5, chunk_size=8)
    hole = Sphere((6.0, 4.0, 6.0), 1.5)
    volume.remove(hole)
    volume.expose_interior(hole.expanded(0.5))
    volume.scrape(Sphere((3.0, 4.0, 3.0), 1.0), step=64)
    volume.add(Sphere((8.0, 5.0, 8.0), 1.0), "iron")
    volume.paint(Box((0, 0, 0), (2, 6, 2)), "ice")
    volume.convert(hole.expanded(1.0), "soil", "rock")
    (hole | Box((0, 0, 0), (2, 6, 2))).sdf(np.zeros((4, 3)))
    volume.remove(Sphere((9.0, 4.5, 4.0), 1.0), tool=Tool(damage=40, breaks_at=100))
    volume.add(Sphere((6.0, 7.5, 6.0), 0.4), "soil")  # a floating clod for the fragment pass
    volume.remove_fragments()
    volume.solid_volume_by_material()
    # A large world: generated into a sparse volume, edited through gathered windows (other array layouts).
    from .terrain import GeneratorSettings, generate_world

    world = generate_world(GeneratorSettings(size=16.0, height=16.0, ground_level=8.0, hill_height=2.0), 16)
    world.remove(Sphere((4.0, 4.0, 4.0), 1.5))
    world.scrape(Sphere((4.0, 4.0, 4.0), 2.0), step=64)
    world.add(Sphere((4.0, 6.0, 4.0), 0.4), "soil")
    world.remove_fragments(Box((0, 0, 0), (8, 8, 8)))
    # Things on its ground (terrain.scatter): every kind's rule.
    from .terrain.scatter import ScatterSettings, scatter_chunk_column

    scatter_chunk_column(GeneratorSettings(size=16.0, height=16.0, ground_level=8.0, hill_height=2.0),
                         ScatterSettings(), (0, 0))
    # Where a generated world's people live (the generator's surface sampled on a grid).
    from .terrain.sites import SiteSettings, world_sites

    world_sites(GeneratorSettings(size=32.0, height=16.0, ground_level=8.0, hill_height=2.0),
                SiteSettings(region_size=16.0, edge_margin=2.0, camp_radius=2.0))


def _collision() -> None:
    from .collision import TriangleBVH

    rng = np.random.default_rng(0)
    corners = rng.random((60, 3)) * 4.0
    bvh = TriangleBVH(corners, np.arange(60).reshape(20, 3), tri_material=np.full(20, 4))
    origins, directions = rng.random((8, 3)) * 4.0, rng.normal(size=(8, 3))
    bvh.raycast(origins, directions)
    bvh.raycast(origins[0], directions[0], max_distance=2.0)
    bvh.raycast_all(origins, directions)
    bvh.segment_hits(origins, origins + directions)
    bvh.overlap_sphere(origins, 0.5)
    bvh.overlap_capsule(origins, origins + directions, 0.3)
    bvh.ground_under(2.0, 2.0, 0.2, 4.0, 0.0)
    bvh.capsule_push(origins[0], origins[1], 0.5)
    bvh.refit(corners + 0.01)


def _meshing() -> None:
    from .meshing import ChunkMesher, MeshOptions, collision_mesh_volume, dual_vertices, mesh_volume
    from .terrain import SparseVolume, Sphere, demo_terrain

    volume = demo_terrain(seed=0)
    mesh_volume(volume)  # voxelworld render
    collision_mesh_volume(volume)
    dual_vertices(volume, sharp=True)
    mesher = ChunkMesher(volume, options=MeshOptions())
    mesher.update()
    volume.remove(Sphere((20.0, 12.0, 20.0), 3.0))
    mesher.update()
    mesher.collision_mesh()
    sparse = SparseVolume.from_volume(volume)  # a large world's windows: gathered copies, not views
    mesh_volume(sparse)
    mesher = ChunkMesher(sparse, options=MeshOptions())
    levels = np.full(sparse.chunk_grid_shape, 3, dtype=np.int64)
    levels[sparse.chunk_grid_shape[0] // 2:] = 5  # far levels drop small features
    mesher.set_detail_levels(levels)
    mesher.update()
    sparse.remove(Sphere((20.0, 12.0, 20.0), 4.0))
    mesher.update()
    mesher.collision_mesh()


def _navigation() -> None:
    from .navigation import NavMesh, NavQuery, NavSettings, QueryFilter, Scene, SceneObject, SearchRegion
    from .navigation.bake import bake
    from .navigation.tiles import TiledNavMesh

    floor = SceneObject("floor", [[0, 0, 0], [20, 0, 0], [20, 0, 20], [0, 0, 20]], [[0, 2, 1], [0, 3, 2]])
    table = [[x, y, z] for y in (1.0, 1.1) for z in (8.0, 12.0) for x in (8.0, 12.0)]  # a walkable top
    sides = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
             [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    crate = [[x, y, z] for y in (0.0, 1.5) for z in (3.0, 4.5) for x in (3.0, 4.5)]
    scene = Scene([floor]).with_object("table", table, sides, role="floor").with_object("crate", crate, sides,
                                                                               role="obstacle")
    region = SearchRegion((-1, -1, -1), (21, 4, 21))
    settings = NavSettings.from_recast(cell_size=0.3, agent_height=2.0, agent_radius=0.6, agent_max_climb=0.9,
                                       agent_max_slope=45, region_min_size=8)
    mesh = bake(scene, region, settings, progress=lambda *args: None)
    linked = bake(scene, region, NavSettings(max_drop=2.0), progress=None)  # and the drop links off the table's edges
    NavQuery(linked).find_path((10.0, 1.1, 10.0), (1.0, 0.0, 1.0))  # paths over links: the weighted search
    bake(scene, region, NavSettings(exclusion_proxy="aabb-tree"), progress=None)  # the tree of boxes' kernel
    query = NavQuery(mesh)
    query.find_path((1.0, 0.0, 1.0), (18.0, 0.0, 18.0))
    query.raycast((1.0, 0.0, 1.0), (18.0, 0.0, 18.0))
    query.random_point(np.random.default_rng(0))
    query.nearest_point((10.0, 0.5, 10.0))
    query.locate((5.0, 0.0, 15.0))
    query.find_path((1.0, 0.0, 1.0), (18.0, 0.0, 18.0), filter=QueryFilter(costs={"ground": 2.0}))
    mesh.islands()
    moved = scene.without("crate").with_object("crate", [[x + 6, y, z] for x, y, z in crate], sides, role="obstacle")
    mesh.rebake(((8.0, -1.0, 2.0), (11.0, 2.0, 5.0)), moved)
    query.find_path((1.0, 0.0, 1.0), (18.0, 0.0, 18.0))  # the query follows its navmesh's re-bake
    NavQuery(NavMesh.from_json(mesh.to_json())).find_path((1.0, 0.0, 1.0), (18.0, 0.0, 18.0))
    tiled = TiledNavMesh(SearchRegion((-1, -1, -1), (21, 4, 21), landing=False), settings)
    tiled.distances(np.array([[10.0, 0.0, 10.0]]), 6.0)  # which tiles a stream keeps
    # A tile baked apart (its windows' kernels) and its rings made, then tiles and rings kept tile by tile.
    for tiles in ([(0, 0)], [(1, 0), (1, 1)]):
        tiled.change(scene, bake=tiles)
        NavQuery(tiled.mesh).find_path((1.0, 0.0, 1.0), (18.0, 0.0, 1.0))


def _motion() -> None:
    from .collision import TriangleBVH
    from .motion import (
        CESIUM_MAN,
        ConeLimit,
        ContactMotion,
        HingeLimit,
        collision_contact_query,
        fabrik,
        forearm_part,
        load_gltf,
        skin,
        swing_clip,
        two_bone_ik,
    )

    character = load_gltf(CESIUM_MAN)
    skeleton = character.skeleton
    walk = next(iter(character.clips.values()))
    pose = walk.sample(skeleton, 0.5)
    skeleton.world_transforms(pose)
    skin(character, pose)
    arm = ["Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"]
    swing = swing_clip(skeleton, arm, forward=(1, 0, 0), up=(0, 0, 1))
    saw = forearm_part(skeleton, arm, 0.05, 0.75, 0.03, blade_side=(0, 1, 0))
    wall = TriangleBVH([[1.1, -1, 0], [1.1, 1, 0], [1.1, -1, 2.5], [1.1, 1, 2.5]], [[0, 1, 2], [1, 3, 2]],
                       tri_material=[4, 4])
    motion = ContactMotion(skeleton, swing, arm, "Skeleton_torso_joint_1", saw)
    query = collision_contact_query(wall, {4: ("rock", 5.0)})
    for _ in range(40):
        motion.step(1 / 60, query)  # voxelworld motion plot
    # The general frame (a second clip, joint limits): the common one above plays in two kernel calls.
    general = ContactMotion(skeleton, swing, arm, "Skeleton_torso_joint_1", saw, second_clip=swing,
                            limits=[ConeLimit(120), HingeLimit((1, 0, 0), -150, 150, (0, 1, 0))])
    for _ in range(40):
        general.step(1 / 60, query)
    root, mid, tip = np.zeros(3), np.array([0.0, -0.3, 0.0]), np.array([0.0, -0.55, 0.0])
    two_bone_ik(root, mid, tip, np.array([0.2, -0.3, 0.2]), np.array([0.0, -0.3, -1.0]), previous_mid=mid)
    chain = np.array([[0.0, 0.0, 0.0], [0.0, 0.3, 0.0], [0.0, 0.6, 0.0], [0.0, 0.9, 0.0]])
    fabrik(chain, np.array([0.4, 0.5, 0.2]))
    fabrik(chain, np.array([0.4, 0.5, 0.2]), limits=[None, HingeLimit((1, 0, 0), -90, 90, (0, 1, 0)),
                                                      ConeLimit(60)], return_info=True)


def _game() -> None:
    from .game.detail import chunk_distances
    from .game.world import World
    from .viewer.demo_session import SCRIPT, demo_inputs
    from .viewer.server import PlayServer

    world = World.demo(seed=0)  # voxelworld demo and play
    chunk_distances(world.volume, np.zeros((2, 3)))  # how near the chunks lie to the actors (a streaming world's)
    chunk_distances(world.volume, np.zeros((2, 3)), np.zeros((1, 3), dtype=np.int64))  # (and a few listed ones)
    PlayServer(world).encode_all()
    for frame in range(SCRIPT[-1][0] + 10):  # every phase of the scripted session: each action, throw and event
        world.step(demo_inputs(frame, world))


# (wing, workload) in the order of the floors; the game's own stage compiles the types the game passes.
STAGES: tuple[tuple[str, Callable[[], None]], ...] = (
    ("terrain", _terrain), ("collision", _collision), ("meshing", _meshing), ("navigation", _navigation),
    ("motion", _motion), ("game", _game))


def compile_kernels(progress: Callable[[int, str, float | None], None] | None = None) -> None:
    """Run every stage's workload, compiling (or loading from the cache) the kernels it calls.

    ``progress(index, wing, seconds)`` is called before each stage (``seconds`` None) and after it (the seconds
    it took)."""
    for index, (wing, workload) in enumerate(STAGES):
        if progress is not None:
            progress(index, wing, None)
        start = time.perf_counter()
        workload()
        if progress is not None:
            progress(index, wing, time.perf_counter() - start)


def kernel_sources() -> list[Path]:
    """The source files whose changes make the compiled kernels stale: every ``_kernels`` module and this one."""
    package = Path(__file__).resolve().parent
    return sorted(path for path in package.rglob("*.py") if "_kernels" in path.relative_to(package).as_posix()) \
        + [Path(__file__).resolve()]


def marker_key() -> dict[str, str]:
    """What the compiled kernels depend on: versions, the CPU numba compiles for, a hash of the kernel sources."""
    import numba
    from llvmlite import binding

    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in kernel_sources():
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return {"voxelworld": __version__, "numba": numba.__version__, "python": platform.python_version(),
            "cpu": binding.get_host_cpu_name(), "kernel_sources": digest.hexdigest()}


def check_cache_dir() -> None:
    """Raise :class:`ParameterError` naming ``NUMBA_CACHE_DIR`` when it is set to a place numba cannot write its
    cache in (a file, a path beneath a file, a read-only folder): numba would then cache beside the sources, or
    nowhere, without a word. The same test as numba's: the folder made if missing, a temporary file written in it."""
    import numba

    folder = numba.config.CACHE_DIR  # type: ignore[attr-defined]  # numba.config sets its names at run time
    if not folder:
        return
    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as error:
        why = "it names a file" if os.path.isfile(folder) else (error.strerror or type(error).__name__).lower()
        raise ParameterError("NUMBA_CACHE_DIR", folder, f"a folder numba can create and write its cache in (here: "
                             f"{why}; numba would cache elsewhere without a word); unset it to cache beside the "
                             "sources") from None


def marker_path() -> Path:
    """Where the marker goes: the folder numba caches the kernels in (``NUMBA_CACHE_DIR`` when it is set;
    :func:`check_cache_dir` first)."""
    from .terrain import _kernels

    check_cache_dir()

    # numba's own locator for one of our kernels (its cache may also fall back to a per-user folder when the
    # sources' folder is read-only); every wing's kernels live beside it, in the same cache root.
    return Path(_kernels.find_runs._cache._cache_path) / MARKER_NAME  # type: ignore[attr-defined]  # a Dispatcher's


def kernels_ready(marker: Path | None = None) -> bool:
    """Whether the marker exists and matches :func:`marker_key` (the kernels were compiled for this code)."""
    marker = marker_path() if marker is None else marker
    try:
        return json.loads(marker.read_text(encoding="utf-8")) == marker_key()
    except (OSError, ValueError):
        return False


def _progress_printer(stream: TextIO) -> Callable[[int, str, float | None], None]:
    """A line per wing: the bar of the wings done before it and its name when it starts, its time when done."""
    def show(index: int, wing: str, seconds: float | None) -> None:
        if seconds is None:
            bar = "#" * (BAR_WIDTH * index // len(STAGES))
            print(f"  [{bar:<{BAR_WIDTH}}] {index + 1}/{len(STAGES)} {wing:<10} ...", end="", file=stream, flush=True)
        else:
            print(f" {seconds:5.1f} s", file=stream, flush=True)
    return show


def warm_up(stream: TextIO | None = None, marker: Path | None = None) -> None:
    """Compile every kernel into the cache with a progress line per wing on ``stream`` (stderr by default), then
    write the marker."""
    stream = sys.stderr if stream is None else stream
    start = time.perf_counter()
    compile_kernels(_progress_printer(stream))
    marker = marker_path() if marker is None else marker
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps(marker_key(), indent=1) + "\n", encoding="utf-8")
    print(f"  numba kernels ready in {time.perf_counter() - start:.0f} s (cache: {marker.parent})", file=stream,
          flush=True)


def ensure_kernels(stream: TextIO | None = None, marker: Path | None = None) -> bool:
    """When the kernels are not compiled for this code yet, say so on ``stream`` (stderr) and compile them, in a
    separate process (``voxelworld warmup``) so that the caller's state stays as it was. Returns whether it did.

    Raises ``RuntimeError`` when that process fails."""
    stream = sys.stderr if stream is None else stream
    marker = marker_path() if marker is None else marker
    if kernels_ready(marker):
        return False
    print("voxelworld: compiling the numba kernels for this machine first (once, about 1-3 minutes; later runs "
          "load them from the cache; scripts/setup does this at set-up)", file=stream, flush=True)
    package_parent = str(Path(__file__).resolve().parents[1])  # the same voxelworld as this one
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")])))
    process = subprocess.Popen([sys.executable, "-m", "voxelworld.cli", "warmup", "--marker", str(marker)],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # Relayed as it comes (a wing's line is printed in two parts), so that the stream the caller gave shows it.
    assert process.stderr is not None  # stderr=PIPE
    while chunk := os.read(process.stderr.fileno(), 4096):
        print(chunk.decode(errors="replace"), end="", file=stream, flush=True)
    if process.wait() != 0:
        raise RuntimeError(f"compiling the numba kernels failed (exit status {process.returncode})")
    return True


def load_compiled_kernels() -> int:
    """Load now, from numba's cache, the machine code of every signature of every kernel compiled there (1-2 s for
    all of them), rather than in the first frame that calls each one: a kernel first called mid-play stalls its
    frame while it loads (the first NPC to walk on the 1 km world: 110 ms; the enemy's first cut: 80 ms).
    ``voxelworld play`` does this once it has built or loaded its world (a file it refuses is refused at once).
    Nothing compiles here: a kernel whose cache holds nothing, or whose cache index cannot be read, is left to
    load (or compile) when first called. Returns how many signatures it loaded."""
    import importlib

    from numba.core.registry import CPUDispatcher

    package = Path(__file__).resolve().parent
    loaded = 0
    for path in kernel_sources()[:-1]:  # (the last is this module)
        module = importlib.import_module(".".join(("voxelworld",) + path.relative_to(package).with_suffix("").parts))
        for kernel in list(vars(module).values()):
            if not (isinstance(kernel, CPUDispatcher) and kernel.__module__ == module.__name__):
                continue
            try:  # numba's own index of what its cache holds for the kernel: (signature, target, ...) keys
                index = kernel._cache._cache_file._load_index()  # type: ignore[attr-defined]  # numba's own
                signatures = [key[0] for key in index]
            except Exception:  # noqa: BLE001  # not cached, an index of another numba, unreadable: load when called
                continue
            for signature in signatures:
                if signature not in kernel.overloads:
                    kernel.compile(signature)  # found in the cache: loaded, not compiled
                    loaded += 1
    return loaded
