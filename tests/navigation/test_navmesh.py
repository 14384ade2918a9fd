"""NavMesh from walkable grids: polygons, areas, islands, paths (against a visibility-graph optimum), files."""

from __future__ import annotations

import heapq
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.errors import FormatError, ParameterError
from voxelworld.navigation import NavMesh, WalkableGrid, navmesh_from_grids

CELL = 0.5


def floor_with_holes(nx: int, nz: int, holes) -> WalkableGrid:
    """An open floor of nx x nz cells with rectangular holes (i0, k0, i1, k1), cell indices, half-open."""
    walkable = np.ones((nx, nz), dtype=bool)
    for i0, k0, i1, k1 in holes:
        walkable[i0:i1, k0:k1] = False
    return WalkableGrid(walkable, np.zeros((nx, nz)), 0.0, 0.0, CELL)


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
        inside = sum(mesh._contains_2d(q, x, z) for q in range(mesh.polygon_count))
        assert inside == (1 if walkable[i, k] else 0)


def test_islands_and_paths_between_them():
    # Two rooms joined by nothing: a wall of unwalkable cells across the floor.
    grid = floor_with_holes(20, 10, [(9, 0, 11, 10)])
    mesh = navmesh_from_grids([grid])
    islands = mesh.islands()
    assert len(islands) == 2
    assert mesh.find_path([1.0, 0, 1.0], [9.0, 0, 4.0]) is None
    path = mesh.find_path([1.0, 0, 1.0], [4.0, 0, 4.0])
    assert path is not None and path.length == pytest.approx(math.hypot(3, 3))


def visibility_optimum(start, end, holes, size):
    """Shortest path on the open floor of ``size`` metres around rectangular holes (metres): Dijkstra over the
    start, the end and the holes' corners, joined where the straight segment crosses no hole's interior."""
    nodes = [np.array(start), np.array(end)]
    for x0, z0, x1, z1 in holes:
        nodes += [np.array(c) for c in ((x0, z0), (x0, z1), (x1, z0), (x1, z1))]

    def clear(a, b):
        for t in np.linspace(0, 1, 400)[1:-1]:
            p = a + t * (b - a)
            if not (0 <= p[0] <= size[0] and 0 <= p[1] <= size[1]):
                return False
            for x0, z0, x1, z1 in holes:
                if x0 + 1e-9 < p[0] < x1 - 1e-9 and z0 + 1e-9 < p[1] < z1 - 1e-9:
                    return False
        return True

    best = {0: 0.0}
    heap = [(0.0, 0)]
    while heap:
        d, n = heapq.heappop(heap)
        if n == 1:
            return d
        if d > best.get(n, math.inf):
            continue
        for m in range(len(nodes)):
            if m != n and clear(nodes[n], nodes[m]):
                nd = d + float(np.linalg.norm(nodes[m] - nodes[n]))
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
        path = mesh.find_path([0.5, 0, 0.5], [9.5, 0, 9.5])
        np.testing.assert_allclose(path.points[:, [0, 2]], [[0.5, 0.5], [8.0, 2.0], [9.5, 9.5]])
        assert path.length == pytest.approx(2 * math.hypot(7.5, 1.5))


@pytest.mark.parametrize("max_corners", [3, 6])
@pytest.mark.parametrize("start, end", [((0.3, 0.3), (9.6, 7.6)), ((9.7, 0.2), (0.4, 7.8)), ((2.1, 7.7), (8.8, 0.3))])
def test_paths_stay_on_the_mesh_and_are_no_shorter_than_the_optimum(max_corners, start, end):
    """Paths around three holes: on the navmesh, and never shorter than the visibility-graph optimum. (Within
    1% of it is issue #4's target, not reached yet: the A* corridor over grid rectangles can be a worse one.)"""
    holes_cells = [(4, 2, 8, 12), (12, 0, 14, 10), (15, 8, 18, 16)]
    grid = floor_with_holes(20, 16, holes_cells)
    mesh = navmesh_from_grids([grid], max_corners=max_corners)
    path = mesh.find_path([start[0], 0, start[1]], [end[0], 0, end[1]])
    holes = [(i0 * CELL, k0 * CELL, i1 * CELL, k1 * CELL) for i0, k0, i1, k1 in holes_cells]
    optimum = visibility_optimum(start, end, holes, (20 * CELL, 16 * CELL))
    assert path.length >= math.dist(start, end) - 1e-9
    assert path.length >= optimum - 1e-6
    for a, b in zip(path.points[:-1], path.points[1:]):
        for t in np.linspace(0, 1, 50):
            p = a + t * (b - a)
            assert any(mesh._contains_2d(q, p[0], p[2]) for q in range(mesh.polygon_count))


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
    point, q = mesh.nearest_point([1.25, 3.0, 1.25])  # above the floor: straight down
    np.testing.assert_allclose(point, [1.25, 0.0, 1.25])
    point, q = mesh.nearest_point([2.5, 0.0, 2.5])  # inside the hole (2..3 m): pushed to its edge
    assert min(abs(point[0] - 2.0), abs(point[0] - 3.0), abs(point[2] - 2.0), abs(point[2] - 3.0)) < 1e-9
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    samples = [mesh.random_point(rng_a) for _ in range(200)]
    assert all(mesh.locate(p) >= 0 for p in samples)
    np.testing.assert_array_equal(samples[0], mesh.random_point(rng_b))
    walked, reached = mesh.raycast([0.5, 0, 2.5], [4.5, 0, 2.5])  # runs into the hole at x = 2
    assert walked == pytest.approx(1.5, abs=0.06) and reached[0] == pytest.approx(2.0, abs=0.06)
    with pytest.raises(ParameterError):
        mesh.random_point(3)


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
