"""NavMesh from walkable grids: polygons, areas, islands, paths (against an exact optimum over the walkable
cells), queries, files."""

from __future__ import annotations

import heapq
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.errors import FormatError, ParameterError
from voxelworld.navigation import NavMesh, NavQuery, WalkableGrid, navmesh_from_grids
from voxelworld.navigation._kernels import locate as kernels

CELL = 0.5


def floor_with_holes(nx: int, nz: int, holes) -> WalkableGrid:
    """An open floor of nx x nz cells with rectangular holes (i0, k0, i1, k1), cell indices, half-open."""
    walkable = np.ones((nx, nz), dtype=bool)
    for i0, k0, i1, k1 in holes:
        walkable[i0:i1, k0:k1] = False
    return WalkableGrid(walkable, np.zeros((nx, nz)), 0.0, 0.0, CELL)


def contains_2d(mesh: NavMesh, q: int, x: float, z: float) -> bool:
    """Whether (x, z) lies in polygon q (its x-z box, then the kernel's test)."""
    boxes = mesh.index.polygons.boxes
    return bool(boxes[q, 0] - 1e-9 <= x <= boxes[q, 1] + 1e-9 and boxes[q, 2] - 1e-9 <= z <= boxes[q, 3] + 1e-9
                and kernels.inside(*mesh.index.polygons[:3], q, x, z))


def height_at(mesh: NavMesh, q: int, x: float, z: float) -> float:
    """Height (m) of polygon q's surface at (x, z), written plainly: bilinear on its detail raster (held beyond
    the outer samples), else on the least-squares plane through its corners."""
    ni, nk = (int(n) for n in mesh.detail_shape[q])
    if ni == 0:
        polygon = mesh.polygon(q)
        coefficients = np.linalg.lstsq(np.column_stack([polygon[:, 0], polygon[:, 2], np.ones(len(polygon))]),
                                       polygon[:, 1], rcond=None)[0]
        return float(coefficients @ [x, z, 1.0])
    first = int(sum(int(a) * int(b) for a, b in mesh.detail_shape[:q]))
    raster = mesh.detail_heights[first:first + ni * nk].reshape(ni, nk)
    ox, oz, cell = mesh.detail_origin[q]
    fu, fv = min(max((x - ox) / cell, 0.0), ni - 1.0), min(max((z - oz) / cell, 0.0), nk - 1.0)
    a, b = min(int(fu), max(ni - 2, 0)), min(int(fv), max(nk - 2, 0))
    a1, b1 = min(a + 1, ni - 1), min(b + 1, nk - 1)
    tu, tv = fu - a, fv - b
    return float((raster[a, b] * (1 - tv) + raster[a, b1] * tv) * (1 - tu)
                 + (raster[a1, b] * (1 - tv) + raster[a1, b1] * tv) * tu)


def check_polygons(mesh: NavMesh, max_corners: int) -> None:
    for q in range(mesh.polygon_count):
        p = mesh.polygon(q)
        assert 3 <= len(p) <= max_corners
        x, z = p[:, 0], p[:, 2]
        signed = 0.5 * (np.dot(x, np.roll(z, -1)) - np.dot(z, np.roll(x, -1)))
        assert abs(signed) > 0  # closed and not degenerate
        # Convex (so simple, hole-free): every turn has the same sign.
        turns = [(p[(e + 1) % len(p), 0] - p[e, 0]) * (p[(e + 2) % len(p), 2] - p[(e + 1) % len(p), 2])
                 - (p[(e + 1) % len(p), 2] - p[e, 2]) * (p[(e + 2) % len(p), 0] - p[(e + 1) % len(p), 0])
                 for e in range(len(p))]
        assert all(t >= -1e-12 for t in turns) or all(t <= 1e-12 for t in turns)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), max_corners=st.sampled_from([3, 4, 6]))
def test_polygons_cover_the_walkable_cells_exactly(seed, max_corners):
    rng = np.random.default_rng(seed)
    walkable = rng.random((12, 9)) < 0.7
    grid = WalkableGrid(walkable, rng.uniform(0, 1, (12, 9)), -3.0, 2.0, CELL)
    mesh = navmesh_from_grids([grid], max_corners=max_corners)
    check_polygons(mesh, max_corners)
    assert mesh.area() == pytest.approx(walkable.sum() * CELL * CELL)
    # A point inside every walkable cell lies in exactly one polygon, in no polygon for other cells (points off
    # the cells' centres, so never on a triangle's diagonal).
    for i, k in itertools.product(range(12), range(9)):
        x, z = -3.0 + (i + 0.3137) * CELL, 2.0 + (k + 0.6891) * CELL
        inside = sum(contains_2d(mesh, q, x, z) for q in range(mesh.polygon_count))
        assert inside == (1 if walkable[i, k] else 0)


def test_islands_and_paths_between_them():
    # Two rooms joined by nothing: a wall of unwalkable cells across the floor.
    grid = floor_with_holes(20, 10, [(9, 0, 11, 10)])
    mesh = navmesh_from_grids([grid])
    query = NavQuery(mesh)
    islands = mesh.islands()
    assert len(islands) == 2
    assert query.find_path([1.0, 0, 1.0], [9.0, 0, 4.0]) is None
    path = query.find_path([1.0, 0, 1.0], [4.0, 0, 4.0])
    assert path is not None and path.length == pytest.approx(math.hypot(3, 3))


def _free(walkable, i, k):
    return 0 <= i < walkable.shape[0] and 0 <= k < walkable.shape[1] and bool(walkable[i, k])


def grid_visible(a, b, walkable, cell):
    """Whether the straight segment a-b (x, z in metres, floor origin at 0) stays on the walkable cells (closed,
    joined through shared edges only): every stretch between grid-line crossings lies in (or along the edge of) a
    walkable cell, a crossing through a grid vertex diagonally has a walkable cell on one side, and one along a
    grid line has walkable cells on one side both before and after it (not a pinch between diagonal cells)."""
    (ax, az), (bx, bz) = a, b
    dx, dz = bx - ax, bz - az
    ts = {0.0, 1.0}
    for d, o, n in ((dx, ax, walkable.shape[0]), (dz, az, walkable.shape[1])):
        if abs(d) > 1e-12:
            for line in range(n + 1):
                t = (line * cell - o) / d
                if 0.0 < t < 1.0:
                    ts.add(t)
    ts = sorted(ts)
    for t0, t1 in zip(ts[:-1], ts[1:]):
        if t1 - t0 < 1e-12:
            continue
        mx, mz = (ax + 0.5 * (t0 + t1) * dx) / cell, (az + 0.5 * (t0 + t1) * dz) / cell
        ix, iz = math.floor(mx), math.floor(mz)
        on_x, on_z = abs(mx - round(mx)) < 1e-9, abs(mz - round(mz)) < 1e-9
        if on_x and on_z:
            return False  # cannot happen for a stretch of positive length
        if on_x:  # along a line x = const: a walkable cell on either side
            if not (_free(walkable, round(mx) - 1, iz) or _free(walkable, round(mx), iz)):
                return False
        elif on_z:
            if not (_free(walkable, ix, round(mz) - 1) or _free(walkable, ix, round(mz))):
                return False
        elif not _free(walkable, ix, iz):
            return False
    for t in ts[1:-1]:  # through a grid vertex: not through a pinch between two cells touching at a corner
        px, pz = (ax + t * dx) / cell, (az + t * dz) / cell
        if abs(px - round(px)) > 1e-9 or abs(pz - round(pz)) > 1e-9:
            continue
        i, k = round(px), round(pz)
        if abs(dx) > 1e-12 and abs(dz) > 1e-12:  # diagonally: one of the two cells beside the crossing is walkable
            if dx * dz > 0:  # from the (-,-) cell to the (+,+) cell: the others are (-,+) and (+,-)
                if not (_free(walkable, i - 1, k) or _free(walkable, i, k - 1)):
                    return False
            elif not (_free(walkable, i - 1, k - 1) or _free(walkable, i, k)):
                return False
        elif abs(dx) > 1e-12:  # along z = const: the cells on one side, before and after, are walkable
            if not ((_free(walkable, i - 1, k - 1) and _free(walkable, i, k - 1))
                    or (_free(walkable, i - 1, k) and _free(walkable, i, k))):
                return False
        elif not ((_free(walkable, i - 1, k - 1) and _free(walkable, i - 1, k))
                  or (_free(walkable, i, k - 1) and _free(walkable, i, k))):  # along x = const
            return False
    return True


def grid_optimum(start, end, walkable, cell):
    """Length of the shortest path from start to end (x, z in metres) over the walkable cells of a grid whose
    corner is at the origin: Dijkstra over the start, the end and the reflex corners of the walkable area (a grid
    vertex with exactly one blocked cell around it, the grid's outside counting as blocked), joined where
    :func:`grid_visible`; inf when there is no path."""
    if math.dist(start, end) == 0:
        return 0.0
    nx, nz = walkable.shape
    nodes = [tuple(start), tuple(end)]
    for i in range(nx + 1):
        for k in range(nz + 1):
            around = [_free(walkable, i - 1, k - 1), _free(walkable, i, k - 1), _free(walkable, i - 1, k),
                      _free(walkable, i, k)]
            if sum(around) == 3:
                nodes.append((i * cell, k * cell))
    best = {0: 0.0}
    heap = [(0.0, 0)]
    while heap:
        d, n = heapq.heappop(heap)
        if n == 1:
            return d
        if d > best.get(n, math.inf):
            continue
        for m in range(len(nodes)):
            if m != n and grid_visible(nodes[n], nodes[m], walkable, cell):
                nd = d + math.dist(nodes[n], nodes[m])
                if nd < best.get(m, math.inf):
                    best[m] = nd
                    heapq.heappush(heap, (nd, m))
    return math.inf


def test_path_around_a_corner_is_the_shortest():
    """An L-shaped corridor: the shortest path bends once, at the inner corner."""
    walkable = np.zeros((10, 10), dtype=bool)
    walkable[:, :2] = True
    walkable[8:, :] = True
    for max_corners in (3, 4):
        mesh = navmesh_from_grids([WalkableGrid(walkable, np.zeros((10, 10)), 0.0, 0.0, 1.0)], max_corners)
        path = NavQuery(mesh).find_path([0.5, 0, 0.5], [9.5, 0, 9.5])
        np.testing.assert_allclose(path.points[:, [0, 2]], [[0.5, 0.5], [8.0, 2.0], [9.5, 9.5]])
        assert path.length == pytest.approx(2 * math.hypot(7.5, 1.5))


def check_path(mesh, path, start, end, walkable):
    """A path from start to end (x, z): the optimum over the walkable cells within 1e-9 (its x-z length; there is a
    path exactly when the optimum is finite), no shorter than the straight line, on the navmesh all along (each
    point at the height of a polygon under it), its length summed over its points in 3-D; returns its x-z length
    over the optimum."""
    optimum = grid_optimum(start, end, walkable, CELL)
    if path is None:
        assert optimum == math.inf
        return 1.0
    assert optimum < math.inf
    flat = float(np.linalg.norm(np.diff(path.points[:, [0, 2]], axis=0), axis=1).sum())
    assert flat >= math.dist(start, end) - 1e-9
    assert flat == pytest.approx(optimum, rel=1e-9, abs=1e-12)
    assert path.length == pytest.approx(float(np.linalg.norm(np.diff(path.points, axis=0), axis=1).sum()), rel=1e-12)
    np.testing.assert_allclose(path.points[[0, -1]][:, [0, 2]], [start, end], atol=1e-9)
    for x, y, z in path.points:
        assert any(contains_2d(mesh, q, x, z) and abs(height_at(mesh, q, x, z) - y) < 1e-9
                   for q in range(mesh.polygon_count))
    for a, b in zip(path.points[:-1], path.points[1:]):
        for t in np.linspace(0, 1, 50):
            p = a + t * (b - a)
            assert any(contains_2d(mesh, q, p[0], p[2]) for q in range(mesh.polygon_count))
    return flat / optimum if optimum > 0 else 1.0


THREE_HOLES = [(4, 2, 8, 12), (12, 0, 14, 10), (15, 8, 18, 16)]


@pytest.mark.parametrize("max_corners", [3, 4, 6])
@pytest.mark.parametrize("start, end", [((0.3, 0.3), (9.6, 7.6)), ((9.7, 0.2), (0.4, 7.8)), ((2.1, 7.7), (8.8, 0.3))])
def test_paths_around_three_holes_are_the_shortest(max_corners, start, end):
    grid = floor_with_holes(20, 16, THREE_HOLES)
    mesh = navmesh_from_grids([grid], max_corners=max_corners)
    query = NavQuery(mesh)
    path = query.find_path([start[0], 0, start[1]], [end[0], 0, end[1]])
    check_path(mesh, path, start, end, grid.walkable)
    again = query.find_path([start[0], 0, start[1]], [end[0], 0, end[1]])
    np.testing.assert_array_equal(again.points, path.points)
    assert again.length == path.length


@st.composite
def grid_scenes(draw):
    """A floor of random size with up to four random rectangular holes (cells; they may overlap or touch the
    border), and two points on what is left."""
    nx, nz = draw(st.integers(4, 16)), draw(st.integers(4, 16))
    holes = []
    for _ in range(draw(st.integers(0, 4))):
        i0, k0 = draw(st.integers(0, nx - 1)), draw(st.integers(0, nz - 1))
        holes.append((i0, k0, min(nx, i0 + draw(st.integers(1, 5))), min(nz, k0 + draw(st.integers(1, 5)))))
    grid = floor_with_holes(nx, nz, holes)
    cells = np.argwhere(grid.walkable)
    if len(cells) == 0:
        grid = floor_with_holes(nx, nz, [])
        cells = np.argwhere(grid.walkable)
    points = []
    for _ in range(2):
        i, k = cells[draw(st.integers(0, len(cells) - 1))]
        u, v = draw(st.floats(0.01, 0.99)), draw(st.floats(0.01, 0.99))  # off the grid lines
        points.append(((i + u) * CELL, (k + v) * CELL))
    return grid, points[0], points[1]


@settings(max_examples=100, deadline=None)
@given(scene=grid_scenes(), max_corners=st.sampled_from([3, 4, 6]))
def test_paths_on_random_grid_scenes_are_the_shortest(scene, max_corners):
    """Random holes: a path exactly when the optimum is finite, as long as it (within 1e-9), on the mesh, and the
    same every time."""
    grid, start, end = scene
    mesh = navmesh_from_grids([grid], max_corners=max_corners)
    query = NavQuery(mesh)
    path = query.find_path([start[0], 0.0, start[1]], [end[0], 0.0, end[1]])
    check_path(mesh, path, start, end, grid.walkable)
    again = query.find_path([start[0], 0.0, start[1]], [end[0], 0.0, end[1]])
    assert (again is None) == (path is None)
    if path is not None:
        np.testing.assert_array_equal(again.points, path.points)
        assert again.length == path.length


@settings(max_examples=60, deadline=None)
@given(scene=grid_scenes(), max_corners=st.sampled_from([3, 4, 6]), seed=st.integers(0, 10_000),
       slope=st.floats(0.0, 0.1))
def test_paths_over_steps_between_levels_are_the_shortest(scene, max_corners, seed, slope):
    """The floor's cells split at random between two levels a step apart (joined where they meet), a sloped
    floor, and a table top out of reach over part of it: the shortest path on the x-z plane is the one over the
    floor's cells, and its points lie on the floor."""
    grid, start, end = scene
    nx, nz = grid.walkable.shape
    rng = np.random.default_rng(seed)
    upper = np.zeros((nx, nz), dtype=bool)
    for _ in range(3):
        i0, k0 = rng.integers(0, nx), rng.integers(0, nz)
        upper[i0:i0 + rng.integers(1, 8), k0:k0 + rng.integers(1, 8)] = True
    table = np.zeros((nx, nz), dtype=bool)
    table[rng.integers(0, nx):, rng.integers(0, nz):] = True
    ramp = slope * CELL * (np.arange(nx)[:, None] + 0.5 + np.zeros(nz))
    levels = [WalkableGrid(grid.walkable & ~upper, ramp, 0.0, 0.0, CELL),
              WalkableGrid(grid.walkable & upper, ramp + 0.2, 0.0, 0.0, CELL),
              WalkableGrid(table, ramp + 2.0, 0.0, 0.0, CELL)]
    mesh = navmesh_from_grids(levels, max_corners=max_corners, step_limit=0.3)
    floor = [q for q in range(mesh.polygon_count) if mesh.polygon_level[q] < 2]
    points = []
    for x, z in (start, end):
        y = min(height_at(mesh, q, x, z) for q in floor if contains_2d(mesh, q, x, z))
        points.append([x, y, z])
    path = NavQuery(mesh).find_path(*points)
    floor_mesh = navmesh_from_grids(levels[:2], max_corners=max_corners, step_limit=0.3)
    check_path(floor_mesh, path, start, end, grid.walkable)
    if path is not None:
        np.testing.assert_allclose(path.points[[0, -1]], points, atol=1e-12)


def test_path_takes_the_shorter_side_of_a_hole():
    """The case where the search over portal end points (lazy Theta*) picked the longer side (1.126 x)."""
    grid = floor_with_holes(15, 6, [(10, 0, 11, 1), (1, 2, 5, 3), (11, 2, 13, 4)])
    mesh = navmesh_from_grids([grid], max_corners=4)
    start, end = (7.21230534, 0.23297776), (5.43677049, 2.70489525)
    path = NavQuery(mesh).find_path([start[0], 0, start[1]], [end[0], 0, end[1]])
    check_path(mesh, path, start, end, grid.walkable)


def test_levels_join_where_heights_allow():
    low = WalkableGrid(np.pad(np.ones((4, 4), bool), ((0, 4), (0, 0))), np.zeros((8, 4)), 0.0, 0.0, 1.0)
    high_cells = np.pad(np.ones((4, 4), bool), ((4, 0), (0, 0)))
    for step, joined in ((0.3, True), (0.8, False)):
        high = WalkableGrid(high_cells, np.full((8, 4), step), 0.0, 0.0, 1.0)
        mesh = navmesh_from_grids([low, high], step_limit=0.5)
        assert (len(mesh.islands()) == 1) == joined
        assert mesh.area(0) == pytest.approx(16.0) and mesh.area(1) == pytest.approx(16.0)


def test_nearest_point_random_point_and_raycast():
    grid = floor_with_holes(10, 10, [(4, 4, 6, 6)])
    mesh = navmesh_from_grids([grid])
    query = NavQuery(mesh)
    point, q = query.nearest_point([1.25, 3.0, 1.25])  # above the floor: straight down
    np.testing.assert_allclose(point, [1.25, 0.0, 1.25])
    point, q = query.nearest_point([2.5, 0.0, 2.5])  # inside the hole (2..3 m): pushed to its edge
    assert min(abs(point[0] - 2.0), abs(point[0] - 3.0), abs(point[2] - 2.0), abs(point[2] - 3.0)) < 1e-9
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    samples = [query.random_point(rng_a) for _ in range(200)]
    assert all(query.locate(p) >= 0 for p in samples)
    np.testing.assert_array_equal(samples[0], query.random_point(rng_b))
    walked, reached = query.raycast([0.5, 0, 2.5], [4.5, 0, 2.5])  # runs into the hole at x = 2
    assert walked == pytest.approx(1.5, abs=0.06) and reached[0] == pytest.approx(2.0, abs=0.06)
    with pytest.raises(ParameterError):
        query.random_point(3)


def test_json_round_trip_and_refusals(tmp_path):
    mesh = navmesh_from_grids([floor_with_holes(8, 6, [(2, 2, 4, 4)])], max_corners=3)
    again = NavMesh.from_json(mesh.to_json())
    for name in ("vertices", "polygon_start", "polygon_vertices", "polygon_level", "portals", "portal_segments"):
        np.testing.assert_array_equal(getattr(again, name), getattr(mesh, name))
    assert again.to_json() == mesh.to_json()
    for text, words in [("{", "not valid JSON"), ('{"format": "other"}', "format"),
                        ('{"format": "voxelworld-navmesh", "version": 99}', "version"),
                        ('{"format": "voxelworld-navmesh", "version": 1}', "missing field")]:
        with pytest.raises(FormatError, match=words):
            NavMesh.from_json(text)
    broken = mesh.to_json().replace('"polygon_level":[0', '"polygon_level":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0')
    with pytest.raises(FormatError):
        NavMesh.from_json(broken)
    path = tmp_path / "nav.obj"
    mesh.to_obj(path)
    text = path.read_text()
    assert text.count("\nf ") == mesh.polygon_count and not list(tmp_path.glob("*.part"))
    assert [p.name for p in tmp_path.iterdir()] == ["nav.obj"]  # no temporary of any name is left


def test_max_corners_is_bounded_before_the_bake_sizes_anything_by_it():
    """A forged navigation setting of 2**53 + 1 corners made the bake ask for memory without end (MemoryError,
    found by the world-file fuzz test): refused, naming it and the range."""
    from voxelworld.navigation import NavSettings
    from voxelworld.navigation.settings import MAX_POLYGON_CORNERS

    assert NavSettings(max_corners=MAX_POLYGON_CORNERS).max_corners == MAX_POLYGON_CORNERS
    with pytest.raises(ParameterError, match=r"max_corners.*9007199254740993"):
        NavSettings(max_corners=2**53 + 1)
    with pytest.raises(ParameterError, match="max_corners"):
        NavSettings(max_corners=MAX_POLYGON_CORNERS + 1)
