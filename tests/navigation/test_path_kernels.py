"""The navmesh query kernels (navigation/_kernels/locate.py, paths.py) against plain-Python references on small
meshes: flat, sloped, triangles, and two levels laid over each other."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.navigation import NavMesh, WalkableGrid, navmesh_from_grids
from voxelworld.navigation._kernels import locate as kernels
from voxelworld.navigation._kernels import paths

from .test_navmesh import floor_with_holes, grid_scenes


def two_levels(max_corners: int) -> NavMesh:
    """A floor with a hole, and a table top 1 m above part of it (not joined)."""
    rng = np.random.default_rng(max_corners)
    floor = np.ones((10, 8), dtype=bool)
    floor[3:5, 2:6] = False
    table = np.zeros((10, 8), dtype=bool)
    table[5:9, 1:5] = True
    return navmesh_from_grids([WalkableGrid(floor, rng.uniform(0, 0.01, (10, 8)), 0.0, 0.0, 0.5),
                               WalkableGrid(table, np.ones((10, 8)), 0.0, 0.0, 0.5)], max_corners=max_corners,
                              step_limit=0.05)


def slopes() -> NavMesh:
    """A ramp (a quad rising 2 m over 4 m in x), a flat hexagon at its top and a sloped triangle beyond, joined
    through two portals."""
    vertices = np.array([[0, 0, 0], [0, 0, 3], [4, 2, 3], [4, 2, 0],  # ramp: y = x / 2
                         [4, 2, 0], [4, 2, 3], [5, 2, 4], [7, 2, 3], [7, 2, 0], [5, 2, -1],  # flat hexagon
                         [7, 2, 0], [7, 2, 3], [9, 3, 1.5]], dtype=np.float64)  # triangle: y = 2 + (x - 7) / 2
    polygon_start = np.array([0, 4, 10, 13])
    portals = np.array([[0, 1], [1, 2]])
    segments = np.array([[[4, 2, 0], [4, 2, 3]], [[7, 2, 0], [7, 2, 3]]], dtype=np.float64)
    return NavMesh(vertices, polygon_start, np.arange(13), np.zeros(3, dtype=np.int64), portals, segments)


MESHES = {"two levels, quads": lambda: two_levels(4), "two levels, triangles": lambda: two_levels(3),
          "slopes": slopes}


# ------------------------------------------------------------------------------------------- references
def ref_inside(polygon: np.ndarray, x: float, z: float) -> bool:
    n = len(polygon)
    sides = []
    for e in range(n):
        (ax, _, az), (bx, _, bz) = polygon[e], polygon[(e + 1) % n]
        sides.append(((bx - ax) * (z - az) - (bz - az) * (x - ax)) / math.hypot(bx - ax, bz - az))
    return min(sides) >= -1e-9 or max(sides) <= 1e-9


def ref_height(polygon: np.ndarray, x: float, z: float) -> float:
    """The least-squares plane through the corners (exact for a planar polygon)."""
    coefficients = np.linalg.lstsq(np.column_stack([polygon[:, 0], polygon[:, 2], np.ones(len(polygon))]),
                                   polygon[:, 1], rcond=None)[0]
    return float(coefficients @ [x, z, 1.0])


def ref_locate(mesh: NavMesh, point) -> int:
    best, best_dy = -1, math.inf
    for q in range(mesh.polygon_count):
        if ref_inside(mesh.polygon(q), point[0], point[2]):
            dy = abs(ref_height(mesh.polygon(q), point[0], point[2]) - point[1])
            if dy < best_dy:
                best, best_dy = q, dy
    return best


def ref_distance(mesh: NavMesh, q: int, point: np.ndarray) -> float:
    """3-D distance from a point to a planar convex polygon: to the foot on its plane if inside, else to the
    nearest edge."""
    polygon = mesh.polygon(q)
    normal = np.cross(polygon[1] - polygon[0], polygon[2] - polygon[0])
    normal /= np.linalg.norm(normal)
    foot = point - np.dot(point - polygon[0], normal) * normal
    if ref_inside(polygon, foot[0], foot[2]):
        return float(np.linalg.norm(point - foot))
    best = math.inf
    for e in range(len(polygon)):
        a, b = polygon[e], polygon[(e + 1) % len(polygon)]
        t = np.clip(np.dot(point - a, b - a) / np.dot(b - a, b - a), 0, 1)
        best = min(best, float(np.linalg.norm(point - (a + t * (b - a)))))
    return best


# ------------------------------------------------------------------------------------------------ tests
@pytest.mark.parametrize("name", MESHES)
def test_bucket_grid_lists_exactly_the_boxes_over_each_bucket(name):
    mesh = MESHES[name]()
    grid, shape, start, members = mesh._index
    boxes = mesh._mesh[3]
    x0, z0, cell = grid
    for i in range(shape[0]):
        for k in range(shape[1]):
            listed = members[start[i * shape[1] + k]:start[i * shape[1] + k + 1]].tolist()
            expected = [q for q in range(mesh.polygon_count)
                        if boxes[q, 0] - 1e-9 < x0 + (i + 1) * cell and boxes[q, 1] + 1e-9 >= x0 + i * cell
                        and boxes[q, 2] - 1e-9 < z0 + (k + 1) * cell and boxes[q, 3] + 1e-9 >= z0 + k * cell]
            assert set(expected) <= set(listed) and listed == sorted(listed)


@pytest.mark.parametrize("name", MESHES)
def test_planes_hold_every_corner(name):
    mesh = MESHES[name]()
    for q in range(mesh.polygon_count):
        for x, y, z in mesh.polygon(q):
            assert mesh._height_at(q, x, z) == pytest.approx(y, abs=1e-9)


@pytest.mark.parametrize("name", MESHES)
def test_locate_and_nearest_point_match_the_references(name):
    mesh = MESHES[name]()
    rng = np.random.default_rng(5)
    lo, hi = mesh.vertices.min(axis=0) - 1.0, mesh.vertices.max(axis=0) + 1.0
    for point in rng.uniform(lo, hi, (300, 3)):
        q = mesh.locate(point)
        expected = ref_locate(mesh, point)
        if q != expected:  # only a tie in height may differ
            assert expected >= 0 and q >= 0
            assert abs(mesh._height_at(q, point[0], point[2]) - point[1]) == pytest.approx(
                abs(ref_height(mesh.polygon(expected), point[0], point[2]) - point[1]), abs=1e-9)
        nearest, q = mesh.nearest_point(point)
        best = min(ref_distance(mesh, r, point) for r in range(mesh.polygon_count))
        assert np.linalg.norm(nearest - point) == pytest.approx(best, abs=1e-9)
        assert ref_distance(mesh, q, nearest) < 1e-9  # the point is on the polygon named


def test_locate_picks_the_level_nearest_in_height():
    mesh = two_levels(4)
    below, above = mesh.locate([3.25, 0.2, 1.25]), mesh.locate([3.25, 0.9, 1.25])
    assert mesh.polygon_level[below] == 0 and mesh.polygon_level[above] == 1
    point, q = mesh.nearest_point([3.25, 0.7, 1.25])
    assert mesh.polygon_level[q] == 1 and point[1] == pytest.approx(1.0)
    assert mesh.locate([30.0, 0.0, 1.0]) == -1


def ref_walk(mesh: NavMesh, start: np.ndarray, end: np.ndarray, step: float = 1e-3) -> float:
    """How far (m, x-z) from start towards end before leaving every polygon, in small steps (one level only)."""
    total = math.hypot(end[0] - start[0], end[2] - start[2])
    walked = 0.0
    for s in np.arange(step, total + step, step):
        s = min(s, total)
        x, z = start[0] + s / total * (end[0] - start[0]), start[2] + s / total * (end[2] - start[2])
        if not any(ref_inside(mesh.polygon(q), x, z) for q in range(mesh.polygon_count)):
            return walked
        walked = s
    return total


@settings(max_examples=40, deadline=None)
@given(scene=grid_scenes(), max_corners=st.sampled_from([3, 4, 6]), angle=st.floats(0, 2 * math.pi),
       reach=st.floats(0.1, 8.0))
def test_raycast_matches_a_walk_in_small_steps(scene, max_corners, angle, reach):
    grid, start, _ = scene
    mesh = navmesh_from_grids([grid], max_corners=max_corners)
    start = np.array([start[0], 0.0, start[1]])
    end = start + reach * np.array([math.cos(angle), 0.0, math.sin(angle)])
    walked, point = mesh.raycast(start, end)
    assert walked == pytest.approx(ref_walk(mesh, start, end), abs=2e-3)
    assert mesh.locate(point) >= 0 and point[1] == 0.0
    if walked == pytest.approx(reach):
        np.testing.assert_allclose(point[[0, 2]], end[[0, 2]], atol=1e-9)


def test_raycast_stays_on_its_level_and_climbs_a_ramp():
    mesh = two_levels(4)
    walked, point = mesh.raycast([4.6, 0.0, 1.0], [4.6, 0.0, 3.8])  # under the table: the floor goes on
    assert walked == pytest.approx(2.8) and point[1] < 0.02
    walked, point = mesh.raycast([3.0, 1.0, 1.0], [3.0, 1.0, 3.9])  # on the table: falls off its edge at z = 2.5
    assert walked == pytest.approx(1.5)
    walked, point = slopes().raycast([0.5, 0.25, 1.0], [3.0, 0.0, 1.0])  # from a point on the ramp
    assert walked == pytest.approx(2.5) and point[1] == pytest.approx(1.5)


@pytest.mark.parametrize("name", MESHES)
def test_random_points_spread_by_area_and_lie_on_the_mesh(name):
    mesh = MESHES[name]()
    rng = np.random.default_rng(11)
    counts = np.zeros(mesh.polygon_count)
    for _ in range(4000):
        point = mesh.random_point(rng)
        q = ref_locate(mesh, point)
        assert q >= 0 and abs(ref_height(mesh.polygon(q), point[0], point[2]) - point[1]) < 1e-9
        counts[q] += 1
    areas = mesh.polygon_areas()
    assert np.abs(counts / counts.sum() - areas / areas.sum()).max() < 0.03


@settings(max_examples=60, deadline=None)
@given(scene=grid_scenes(), max_corners=st.sampled_from([3, 4, 6]))
def test_funnel_is_the_shortest_line_through_its_corridor(scene, max_corners):
    """The kernel's funnel is no longer than the reference's and, like it, passes every portal of the corridor."""
    grid, start, end = scene
    mesh = navmesh_from_grids([grid], max_corners=max_corners)
    start, end = np.array([start[0], 0.0, start[1]]), np.array([end[0], 0.0, end[1]])
    a, b = mesh.locate(start), mesh.locate(end)
    corridor = mesh._corridor(a, b, start, end)
    if corridor is None:
        return
    points = mesh._string_pull(corridor, start, end)
    length = np.linalg.norm(np.diff(points, axis=0), axis=1).sum()
    # Every portal is crossed: the polyline meets each portal segment.
    for _, portal in corridor[1:]:
        p0, p1 = mesh.portal_segments[portal][:, [0, 2]]
        assert any(_segments_meet(points[k][[0, 2]], points[k + 1][[0, 2]], p0, p1) for k in range(len(points) - 1))
    # No polyline through the portals is shorter: compare with the shortest path over the portals' end points
    # and the line's own corners (Dijkstra in the corridor's order), which bends only where it must.
    assert length <= _shortest_through_portals(mesh, corridor, start, end) + 1e-9


def _segments_meet(a, b, c, d) -> bool:
    def cross(o, p, q):
        return (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0])
    d1, d2, d3, d4 = cross(c, d, a), cross(c, d, b), cross(a, b, c), cross(a, b, d)
    if d1 * d2 <= 1e-12 and d3 * d4 <= 1e-12:
        return True
    return any(np.linalg.norm(p - q) < 1e-9 for p in (a, b) for q in (c, d))


def _shortest_through_portals(mesh, corridor, start, end) -> float:
    """Shortest polyline start -> a point of each portal in turn -> end, over 41 points per portal (an upper
    bound of the true shortest, which the funnel must not exceed)."""
    layers = [[start]]
    for _, portal in corridor[1:]:
        p0, p1 = mesh.portal_segments[portal]
        layers.append([p0 + t * (p1 - p0) for t in np.linspace(0, 1, 41)])
    layers.append([end])
    best = [0.0]
    for previous, layer in zip(layers[:-1], layers[1:]):
        best = [min(c + np.linalg.norm((q - p)[[0, 2]]) for p, c in zip(previous, best)) for q in layer]
    return best[0]


def test_search_scratch_is_reused_without_clearing():
    """Queries reuse the scratch arrays (stamped per query): the same query after others gives the same path."""
    mesh = navmesh_from_grids([floor_with_holes(20, 16, [(4, 2, 8, 12), (12, 0, 14, 10)])], max_corners=6)
    first = mesh.find_path([0.3, 0, 0.3], [9.6, 0, 7.6])
    rng = np.random.default_rng(2)
    for _ in range(20):
        mesh.find_path(mesh.random_point(rng), mesh.random_point(rng))
    again = mesh.find_path([0.3, 0, 0.3], [9.6, 0, 7.6])
    np.testing.assert_array_equal(first.points, again.points)
    assert paths.SETTLED != paths.UNSEEN


def test_reindex_after_swapping_arrays_answers_for_the_new_polygons():
    mesh = navmesh_from_grids([floor_with_holes(10, 10, [(4, 0, 6, 8)])])
    other = navmesh_from_grids([floor_with_holes(10, 10, [])])
    assert mesh.find_path([0.5, 0, 0.5], [4.5, 0, 0.5]).length > 4.0
    for name in ("vertices", "polygon_start", "polygon_vertices", "polygon_level", "portals", "portal_segments"):
        setattr(mesh, name, getattr(other, name))
    mesh._reindex()
    assert mesh.find_path([0.5, 0, 0.5], [4.5, 0, 0.5]).length == pytest.approx(4.0)
    assert mesh.locate([2.5, 0, 0.5]) >= 0 and len(mesh.islands()) == 1


def test_inside_and_clip_agree_with_the_reference():
    mesh = slopes()
    vertices, polygon_start, polygon_vertices = mesh._mesh[:3]
    rng = np.random.default_rng(9)
    for x, z in rng.uniform(-1, 11, (500, 2)):
        for q in range(mesh.polygon_count):
            assert kernels.inside(vertices, polygon_start, polygon_vertices, q, x, z) == ref_inside(mesh.polygon(q), x, z)
    for sx, sz, dx, dz in rng.uniform(-2, 2, (200, 4)) + [8, 1.5, 0, 0]:
        t_in, t_out = kernels.clip(vertices, polygon_start, polygon_vertices, 2, sx, sz, dx, dz)
        for t in np.linspace(-5, 5, 101):
            if t_in + 1e-6 < t < t_out - 1e-6:
                assert ref_inside(mesh.polygon(2), sx + t * dx, sz + t * dz)
            elif t < t_in - 1e-6 or t > t_out + 1e-6:
                assert not ref_inside(mesh.polygon(2), sx + t * dx, sz + t * dz)
