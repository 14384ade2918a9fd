"""Navigation benchmarks (issue #4). Run: ``.venv/bin/python benchmarks/navigation.py`` (``--cpu``: only the
update's CPU-time rows, for comparing a change in one session on a shared machine).

On the nav_test level (``tests/data/scenes/nav_test.obj``, Recast's demo level) with Recast's demo parameters,
over a search region covering the scene:

- `bake`: median of 7 bakes after a warm-up;
- `NavMesh.rebake` of a 10 m x 10 m box in which a crate moved, at 15 seeded spots on the walkable area;
- `WorldNavigation.update` on the game's demo world (``World.demo(seed=0)``, its props as scene objects) after a
  1 m dig (``Sphere`` of radius 1 m, the default ``Tool``) at 40 seeded spots on the surface, each dig followed
  by ``mesher.update()``; only the update is timed, and only digs that rebuilt a chunk surface count; a second
  row builds the chunks' collision meshes around the dig first, as the world's collider does near the player;
- `NavQuery.find_path` between 1000 seeded pairs of points on one island, each call timed on its own (snapping
  both points, the search, the NavPath): median, 90th and 99th percentile (issue #16: polygons by traced
  outlines, at most twice Recast's count);
- reference rows from the same run: pynavmesh (a pure-Python port of Recast, on PyPI) bakes the same level
  with the same parameters, and searches paths between the same pairs on its own navmesh;
- the yardstick (issue #33 §5): Recast and Detour themselves (npm's recast-navigation, WebAssembly, run by node:
  ``recast_yardstick.py``) bake the same triangles with the same parameters mapped to Recast's config (median of
  7 after a warm-up) and answer a path query (two snaps, the corridor, the straight path) between the same pairs,
  each call timed on its own after a warm-up pass, as ours; a second Recast bake uses the demo's edge error
  (1.3 cells; ours is 0.3 m, one cell). Where node or the package is missing, a row says so and the rest runs.

``--recast``: only the nav_test bake, `find_path` and the yardstick's rows (about 20 s).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from voxelworld.game.level import surface_height  # noqa: E402
from voxelworld.game.navigation import WorldNavigation  # noqa: E402
from voxelworld.game.world import World, WorldSettings  # noqa: E402
from voxelworld.navigation import NavQuery, NavSettings, Scene, SceneObject, SearchRegion  # noqa: E402
from voxelworld.navigation.bake import bake  # noqa: E402
from voxelworld.terrain import Box, Sphere, Tool  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from recast_yardstick import RecastUnavailable, recast_config, recast_rows, run_yardstick  # noqa: E402
from terrain import print_table  # noqa: E402

NAV_TEST = Path(__file__).resolve().parents[1] / "tests" / "data" / "scenes" / "nav_test.obj"  # Recast's (zlib)
PAIRS = 1000


SETTINGS = NavSettings.from_recast(cell_size=0.3, agent_height=2.0, agent_radius=0.6, agent_max_climb=0.9,
                                   agent_max_slope=45, region_min_size=8)


def nav_test_region(scene: Scene) -> SearchRegion:
    lo, hi = scene.bounds()
    return SearchRegion(tuple(lo - 1.0), tuple(hi + 1.0))


def nav_test_mesh():
    """The nav_test level baked with Recast's demo parameters, the median bake time (s) of 7 and their median
    CPU time (s, the process's: steadier on a busy machine)."""
    scene = Scene.from_obj(NAV_TEST)
    region = nav_test_region(scene)
    bake(scene, region, SETTINGS)  # warm-up: numba compilation, caches
    times, cpu = [], []
    for _ in range(7):
        start, start_cpu = time.perf_counter(), time.process_time()
        mesh = bake(scene, region, SETTINGS)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return scene, mesh, float(np.median(times)), float(np.median(cpu))


def crate(x: float, y: float, z: float) -> tuple[np.ndarray, np.ndarray]:
    """A 1.5 m crate standing on (x, y, z): an obstacle to move around the level."""
    corners = np.array([[x + a, y + b, z + c] for a in (0, 1.5) for b in (-0.5, 1.5) for c in (0, 1.5)])
    faces = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
                      [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    return corners, faces


def rebake_times(scene: Scene, mesh, spots: int = 15, seed: int = 7) -> np.ndarray:
    """Seconds per `rebake` of a 10 m x 10 m box around a walkable spot, in which a crate moved 6.5 m."""
    region = nav_test_region(scene)
    rng = np.random.default_rng(seed)
    times = np.empty(spots)
    query = NavQuery(mesh)
    for n in range(spots):
        x, y, z = query.random_point(rng)
        before = scene.with_object("crate", *crate(x - 4, y, z - 4), role="obstacle")
        after = scene.with_object("crate", *crate(x + 2.5, y, z + 2.5), role="obstacle")
        moving = bake(before, region, SETTINGS)
        box = ((x - 5, y - 1, z - 5), (x + 5, y + 2, z + 5))
        start = time.perf_counter()
        moving.rebake(box, after)
        times[n] = time.perf_counter() - start
    return times


def one_dig_world() -> World:
    """The demo world whose mesher takes every change at its next update (``remesh_interval`` 1): the digs here
    come between updates, some next to the one before, which the game's interval would hold back to land with a
    later one (an update of two digs timed as one)."""
    return World.demo(seed=0, settings=WorldSettings(remesh_interval=1))


def world_update_times(digs: int = 40, seed: int = 1, radius: float = 1.0, prebuilt: bool = False) -> np.ndarray:
    """Seconds per `WorldNavigation.update` after a dig of a ``radius`` m ball at ``digs`` seeded spots on the
    demo world's surface (after 3 warm-up digs), counting the digs that rebuilt a chunk surface. With
    ``prebuilt``, the chunks' collision meshes within 12 m of the dig are built before the update is timed, as
    the world's collider builds them around the player (``WorldSettings.collision_radius``); otherwise the
    update asks the mesher to build them."""
    world = one_dig_world()
    world.mesher.update()
    props = [SceneObject(p.name, p.positions, p.indices, p.role) for p in world.props]
    nav = WorldNavigation(world.volume, world.mesher, props)
    rng = np.random.default_rng(seed)
    lo = np.asarray(world.volume.origin, dtype=float)
    size = np.array(world.volume.shape) * world.volume.voxel_size
    times = []
    while len(times) < digs + 3:
        x, z = lo[0] + rng.uniform(4, size[0] - 4), lo[2] + rng.uniform(4, size[2] - 4)
        y = surface_height(world.volume, x, z)
        if y is None:
            continue
        world.volume.remove(Sphere((x, y, z), radius), Tool())
        update = world.mesher.update()
        if not update.surfaces_rebuilt:
            continue  # too hard for the tool: nothing to re-bake
        if prebuilt:
            world.mesher.collision_mesh(Box((x - 12, y - 12, z - 12), (x + 12, y + 12, z + 12)))
        start = time.perf_counter()
        nav.update(update.surfaces_rebuilt)
        times.append(time.perf_counter() - start)
    return np.array(times[3:])


def alternating_update_times(digs: int = 40, seed: int = 1, radius: float = 1.0,
                             clock=time.perf_counter) -> tuple[np.ndarray, np.ndarray]:
    """`world_update_times` with and without ``prebuilt`` in one world: the digs alternate between the two rows
    (the first of each pair builds the collision meshes around the dig before the update is timed, the second
    leaves them to the update), so both rows see navmeshes of the same age. Seconds per update, (prebuilt,
    including the meshes), after 3 warm-up digs, ``digs // 2`` each, by ``clock`` (wall-clock by default;
    ``time.thread_time`` gives CPU time, steadier on a shared machine)."""
    world = one_dig_world()
    world.mesher.update()
    props = [SceneObject(p.name, p.positions, p.indices, p.role) for p in world.props]
    nav = WorldNavigation(world.volume, world.mesher, props)
    rng = np.random.default_rng(seed)
    lo = np.asarray(world.volume.origin, dtype=float)
    size = np.array(world.volume.shape) * world.volume.voxel_size
    rows: tuple[list, list] = ([], [])
    done = 0
    while done < digs + 3:
        x, z = lo[0] + rng.uniform(4, size[0] - 4), lo[2] + rng.uniform(4, size[2] - 4)
        y = surface_height(world.volume, x, z)
        if y is None:
            continue
        world.volume.remove(Sphere((x, y, z), radius), Tool())
        update = world.mesher.update()
        if not update.surfaces_rebuilt:
            continue
        prebuilt = done % 2 == 0
        if prebuilt:
            world.mesher.collision_mesh(Box((x - 12, y - 12, z - 12), (x + 12, y + 12, z + 12)))
        start = clock()
        nav.update(update.surfaces_rebuilt)
        seconds = clock() - start
        if done >= 3:
            rows[0 if prebuilt else 1].append(seconds)
        done += 1
    return np.array(rows[0]), np.array(rows[1])


def guard_figures(runs: int = 3) -> dict[str, float]:
    """The quick figures a guard checks (about 6 s): each the median over ``runs`` runs (different dig seeds) of
    that run's figure.

    - ``update_prebuilt_ms`` / ``update_prebuilt_p95_ms``: `WorldNavigation.update` after a 1 m dig on the demo
      world, the chunks' collision meshes built first (the row the world's collider sees): median and 95th
      percentile (ms) of 20 digs a run;
    - ``update_ms`` / ``update_p95_ms``: the same, the update building the collision meshes;
    - ``find_path_us`` / ``find_path_p99_us``: `NavQuery.find_path` between 300 seeded pairs on one island of
      nav_test, each call timed (µs), after a warm-up pass.

    pynavmesh's reference is not run here: its bake alone takes seconds (``main()`` reports it)."""
    figures: dict[str, list[float]] = {name: [] for name in ("update_prebuilt_ms", "update_prebuilt_p95_ms",
                                                             "update_ms", "update_p95_ms", "find_path_us",
                                                             "find_path_p99_us")}
    scene = Scene.from_obj(NAV_TEST)
    mesh = bake(scene, nav_test_region(scene), SETTINGS)
    pairs = same_island_pairs(mesh, 300)
    for run in range(runs):
        prebuilt, building = (times * 1000 for times in alternating_update_times(40, seed=1 + run))
        figures["update_prebuilt_ms"].append(float(np.median(prebuilt)))
        figures["update_prebuilt_p95_ms"].append(float(np.percentile(prebuilt, 95)))
        figures["update_ms"].append(float(np.median(building)))
        figures["update_p95_ms"].append(float(np.percentile(building, 95)))
        us = find_path_times(mesh, pairs)[0] * 1e6
        figures["find_path_us"].append(float(np.median(us)))
        figures["find_path_p99_us"].append(float(np.percentile(us, 99)))
    return {name: float(np.median(values)) for name, values in figures.items()}


def pynavmesh_rows(scene: Scene, pairs) -> list[tuple[str, str, str, str]]:
    """pynavmesh, a pure-Python port of Recast: bake the same level with the same parameters (one run, it takes
    seconds), then search paths between the same pairs on its navmesh."""
    try:
        import pathfinder
        from pathfinder import navmesh_baker
    except ImportError as error:  # pragma: no cover - the test extras install it
        return [("pynavmesh (reference)", "-", f"not installed: {error}", "reference")]
    soup = scene.triangles()
    baker = navmesh_baker.NavmeshBaker()
    baker.add_geometry([tuple(map(float, v)) for v in soup.positions], [list(map(int, t)) for t in soup.indices])
    start = time.perf_counter()
    baker.bake(cell_size=0.3, cell_height=0.2, agent_height=2.0, agent_radius=0.6, agent_max_climb=0.9,
               agent_max_slope=45.0, region_min_size=8)
    seconds = time.perf_counter() - start
    vertices, polygons = baker.get_polygonization()
    v = np.array(vertices)
    area = sum(0.5 * abs(np.dot(v[p, 0], np.roll(v[p, 2], -1)) - np.dot(v[p, 2], np.roll(v[p, 0], -1)))
               for p in polygons)
    finder = pathfinder.PathFinder(vertices, polygons)
    times, found = np.empty(len(pairs)), 0
    for n, (a, b) in enumerate(pairs):
        begin = time.perf_counter()
        path = finder.search_path(tuple(a), tuple(b))
        times[n] = time.perf_counter() - begin
        found += len(path) > 0
    return [("pynavmesh 1.2 bake, same level and parameters (reference, one run)", f"{seconds:.2f} s",
             f"{area:.0f} m², {len(polygons)} polygons", "reference"),
            ("pynavmesh `search_path`, same pairs (reference)", f"{np.median(times) * 1e6:.0f} µs",
             f"p90 {np.percentile(times, 90) * 1e6:.0f} µs, p99 {np.percentile(times, 99) * 1e6:.0f} µs; a path for "
             f"{found} of {len(pairs)} pairs", "reference")]


def path_cpu_mean(mesh, pairs) -> float:
    """CPU seconds per `find_path` (the process's), the pairs in one loop with no clock read per call, after a
    warm-up pass: the CPU figure the yardstick's Detour rows have too."""
    query = NavQuery(mesh)
    for a, b in pairs:
        query.find_path(a, b)
    start = time.process_time()
    for a, b in pairs:
        query.find_path(a, b)
    return (time.process_time() - start) / len(pairs)


def yardstick_rows(scene: Scene, mesh, bake_time: float, bake_cpu: float, pairs, times: np.ndarray,
                   lengths: np.ndarray) -> list[tuple[str, str, str, str]]:
    """Recast's bake and Detour's path queries on the same triangles, parameters and pairs (see
    ``recast_yardstick.py``), with the ratios ours / theirs, by the clock and by CPU time; a row saying why when
    node or the package is missing."""
    soup = scene.triangles()
    config = recast_config(SETTINGS)
    try:
        recast = run_yardstick(soup.positions, soup.indices, config, pairs)
        demo = run_yardstick(soup.positions, soup.indices, {**config, "maxSimplificationError": 1.3}, [], bakes=1)
    except RecastUnavailable as error:
        return [("Recast / Detour (WASM, npm's recast-navigation)", "-", f"not run: {error}", "reference")]
    rows = recast_rows(mesh.polygon_count, (bake_time, bake_cpu), times, path_cpu_mean(mesh, pairs), lengths,
                       recast)
    rows.append(("the same Recast bake with the demo's edge error, 1.3 cells (ours: 0.3 m, 1 cell)", "-",
                 f"{demo['area']:.0f} m², {demo['islands']} islands, {demo['polygons']} polygons", "reference"))
    return rows


def same_island_pairs(mesh, count: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    query = NavQuery(mesh)
    rng = np.random.default_rng(seed)
    island = np.empty(mesh.polygon_count, dtype=np.int64)
    for number, members in enumerate(mesh.islands()):
        island[members] = number
    pairs = []
    while len(pairs) < count:
        a, b = query.random_point(rng), query.random_point(rng)
        if island[query.locate(a)] == island[query.locate(b)]:
            pairs.append((a, b))
    return pairs


def find_path_times(mesh, pairs) -> tuple[np.ndarray, np.ndarray]:
    """Seconds per call and path lengths (m), after one warm-up pass over every pair."""
    query = NavQuery(mesh)
    for a, b in pairs:
        query.find_path(a, b)
    times, lengths = np.empty(len(pairs)), np.empty(len(pairs))
    for n, (a, b) in enumerate(pairs):
        start = time.perf_counter()
        path = query.find_path(a, b)
        times[n] = time.perf_counter() - start
        lengths[n] = path.length
    return times, lengths


def cpu_rows(runs: int = 3) -> None:
    """Print the update's CPU-time rows (``time.thread_time``; median and p95 of each run's 20 + 20 digs): what to
    compare before and after a change on a shared machine, in the same session."""
    for run in range(runs):
        prebuilt, building = (t * 1000 for t in alternating_update_times(40, seed=1 + run, clock=time.thread_time))
        print(f"seed {1 + run}: update CPU ms, prebuilt {np.median(prebuilt):.2f} (p95 "
              f"{np.percentile(prebuilt, 95):.2f}), building the meshes {np.median(building):.2f} (p95 "
              f"{np.percentile(building, 95):.2f})")


def main() -> None:
    if "--cpu" in sys.argv:
        cpu_rows()
        return
    scene, mesh, bake_time, bake_cpu = nav_test_mesh()
    if "--recast" in sys.argv:
        pairs = same_island_pairs(mesh, PAIRS)
        times, lengths = find_path_times(mesh, pairs)
        us = times * 1e6
        print(f"load average {os.getloadavg()[0]:.2f}")
        print_table(("benchmark", "median", "result", "target"), [
            ("`bake` nav_test", f"{bake_time * 1000:.1f} ms", f"{mesh.area():.0f} m², {len(mesh.islands())} "
             f"islands, {mesh.polygon_count} polygons", "-"),
            (f"`find_path`, {PAIRS} pairs", f"{np.median(us):.1f} µs",
             f"p90 {np.percentile(us, 90):.1f} µs, p99 {np.percentile(us, 99):.1f} µs", "-"),
            *yardstick_rows(scene, mesh, bake_time, bake_cpu, pairs, times, lengths)])
        return
    rebakes = rebake_times(scene, mesh) * 1000
    updates = world_update_times() * 1000
    prebuilt = world_update_times(prebuilt=True) * 1000
    pairs = same_island_pairs(mesh, PAIRS)
    times, lengths = find_path_times(mesh, pairs)
    straight = np.array([np.linalg.norm(a - b) for a, b in pairs])
    us = times * 1e6
    rows = [(f"`bake` nav_test ({len(scene.triangles().indices)} triangles), Recast's demo parameters",
             f"{bake_time:.2f} s", f"{mesh.area():.0f} m² walkable, {len(mesh.islands())} islands, "
             f"{mesh.polygon_count} polygons (at most {np.diff(mesh.polygon_start).max()} corners)",
             "<= 0.5 s; Recast 4002 m² +-2%, 17 islands, <= 2 x 155 polygons"),
            ("`rebake` of a 10 m x 10 m box (a crate moved in it), 15 spots", f"{np.median(rebakes):.1f} ms",
             f"max {rebakes.max():.1f} ms; equals a full bake (tests)", "<= 50 ms"),
            (f"`WorldNavigation.update` after a 1 m dig, demo world, {len(updates)} digs",
             f"{np.median(updates):.1f} ms", f"p90 {np.percentile(updates, 90):.1f} ms, max {updates.max():.1f} ms; "
             "builds the chunks' collision meshes", "<= 5 ms"),
            ("the same, the collision meshes already built (the world's collider builds them near the player)",
             f"{np.median(prebuilt):.1f} ms", f"p90 {np.percentile(prebuilt, 90):.1f} ms, max {prebuilt.max():.1f} ms",
             "2-3 ms"),
            (f"`find_path`, nav_test, {PAIRS} random pairs on one island", f"{np.median(us):.0f} µs",
             f"p90 {np.percentile(us, 90):.0f} µs, p99 {np.percentile(us, 99):.0f} µs, max {us.max():.0f} µs; "
             f"median path {np.median(lengths):.1f} m ({np.median(lengths / straight):.2f} x straight)",
             "median <= 20 µs, p99 <= 300 µs")]
    rows += pynavmesh_rows(scene, pairs)
    rows += yardstick_rows(scene, mesh, bake_time, bake_cpu, pairs, times, lengths)
    print(f"load average {os.getloadavg()[0]:.2f} (1 min, at the end)")
    print_table(("benchmark", "median", "result", "target"), rows)


if __name__ == "__main__":
    main()
