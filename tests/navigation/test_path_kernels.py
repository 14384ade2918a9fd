"""The navmesh query kernels (navigation/_kernels/locate.py, paths.py, polyanya.py) against plain-Python
references on small meshes: flat, sloped, triangles, and two levels laid over each other."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.navigation import NavMesh, NavQuery, WalkableGrid, navmesh_from_grids
from voxelworld.navigation._kernels import locate as kernels
from voxelworld.navigation._kernels import paths, polyanya
from voxelworld.navigation.navmesh import ARRAY_NAMES

from .test_navmesh import floor_with_holes, grid_scenes, height_at


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


def ref_locate(mesh: NavMesh, point) -> int:
    best, best_dy = -1, math.inf
    for q in range(mesh.polygon_count):
        if ref_inside(mesh.polygon(q), point[0], point[2]):
            dy = abs(height_at(mesh, q, point[0], point[2]) - point[1])
            if dy < best_dy:
                best, best_dy = q, dy
    return best


def ref_distance(mesh: NavMesh, q: int, point: np.ndarray) -> float:
    """3-D distance from a point to a convex polygon: to its surface straight below or above if the point is
    over it (x-z), else to its surface at the point of its sides nearest on the x-z plane."""
    polygon = mesh.polygon(q)
    foot = np.array([point[0], height_at(mesh, q, point[0], point[2]), point[2]])
    if ref_inside(polygon, foot[0], foot[2]):
        return float(np.linalg.norm(point - foot))
    best, best_flat = math.inf, math.inf
    for e in range(len(polygon)):
        a, b = polygon[e][[0, 2]], polygon[(e + 1) % len(polygon)][[0, 2]]
        t = np.clip(np.dot(point[[0, 2]] - a, b - a) / np.dot(b - a, b - a), 0, 1)
        x, z = a + t * (b - a)
        flat = float(np.hypot(point[0] - x, point[2] - z))
        if flat < best_flat:
            best_flat = flat
            best = float(np.linalg.norm(point - [x, height_at(mesh, q, x, z), z]))
    return best


# ------------------------------------------------------------------------------------------------ tests
@pytest.mark.parametrize("name", MESHES)
def test_bucket_grid_lists_exactly_the_boxes_over_each_bucket(name):
    mesh = MESHES[name]()
    grid, shape, start, members = mesh.index.buckets
    boxes = mesh.index.polygons.boxes
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
            assert height_at(mesh, q, x, z) == pytest.approx(y, abs=1e-9)


@pytest.mark.parametrize("name", MESHES)
def test_locate_and_nearest_point_match_the_references(name):
    mesh = MESHES[name]()
    query = NavQuery(mesh)
    rng = np.random.default_rng(5)
    lo, hi = mesh.vertices.min(axis=0) - 1.0, mesh.vertices.max(axis=0) + 1.0
    for point in rng.uniform(lo, hi, (300, 3)):
        q = query.locate(point)
        expected = ref_locate(mesh, point)
        if q != expected:  # only a tie in height may differ
            assert expected >= 0 and q >= 0
            assert abs(height_at(mesh, q, point[0], point[2]) - point[1]) == pytest.approx(
                abs(height_at(mesh, expected, point[0], point[2]) - point[1]), abs=1e-9)
        nearest, q = query.nearest_point(point)
        best = min(ref_distance(mesh, r, point) for r in range(mesh.polygon_count))
        assert np.linalg.norm(nearest - point) == pytest.approx(best, abs=1e-9)
        assert ref_distance(mesh, q, nearest) < 1e-9  # the point is on the polygon named


def test_locate_picks_the_level_nearest_in_height():
    mesh = two_levels(4)
    query = NavQuery(mesh)
    below, above = query.locate([3.25, 0.2, 1.25]), query.locate([3.25, 0.9, 1.25])
    assert mesh.polygon_level[below] == 0 and mesh.polygon_level[above] == 1
    point, q = query.nearest_point([3.25, 0.7, 1.25])
    assert mesh.polygon_level[q] == 1 and point[1] == pytest.approx(1.0)
    assert query.locate([30.0, 0.0, 1.0]) == -1


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
    query = NavQuery(mesh)
    start = np.array([start[0], 0.0, start[1]])
    end = start + reach * np.array([math.cos(angle), 0.0, math.sin(angle)])
    walked, point = query.raycast(start, end)
    assert walked == pytest.approx(ref_walk(mesh, start, end), abs=2e-3)
    assert query.locate(point) >= 0 and point[1] == 0.0
    if walked == pytest.approx(reach):
        np.testing.assert_allclose(point[[0, 2]], end[[0, 2]], atol=1e-9)


def test_raycast_stays_on_its_level_and_climbs_a_ramp():
    mesh = two_levels(4)
    query = NavQuery(mesh)
    walked, point = query.raycast([4.6, 0.0, 1.0], [4.6, 0.0, 3.8])  # under the table: the floor goes on
    assert walked == pytest.approx(2.8) and point[1] < 0.02
    walked, point = query.raycast([3.0, 1.0, 1.0], [3.0, 1.0, 3.9])  # on the table: falls off its edge at z = 2.5
    assert walked == pytest.approx(1.5)
    walked, point = NavQuery(slopes()).raycast([0.5, 0.25, 1.0], [3.0, 0.0, 1.0])  # from a point on the ramp
    assert walked == pytest.approx(2.5) and point[1] == pytest.approx(1.5)


@pytest.mark.parametrize("name", MESHES)
def test_random_points_spread_by_area_and_lie_on_the_mesh(name):
    mesh = MESHES[name]()
    query = NavQuery(mesh)
    rng = np.random.default_rng(11)
    counts = np.zeros(mesh.polygon_count)
    for _ in range(4000):
        point = query.random_point(rng)
        q = ref_locate(mesh, point)
        assert q >= 0 and abs(height_at(mesh, q, point[0], point[2]) - point[1]) < 1e-9
        counts[q] += 1
    areas = mesh.polygon_areas()
    assert np.abs(counts / counts.sum() - areas / areas.sum()).max() < 0.03


# ------------------------------------------------------------------------------------ path search pieces
def ref_rings(mesh: NavMesh):
    """Per polygon: its boundary as (start, end, polygon across) pieces, counter-clockwise on the x-z plane, split
    at every portal end on it (plain Python)."""
    rings = []
    for q in range(mesh.polygon_count):
        corners = mesh.polygon(q)[:, [0, 2]].tolist()
        x, z = np.array(corners).T
        if np.dot(x, np.roll(z, -1)) - np.dot(z, np.roll(x, -1)) < 0:
            corners = corners[::-1]
        ring = []
        for e in range(len(corners)):
            u, v = np.array(corners[e]), np.array(corners[(e + 1) % len(corners)])
            cuts = {0.0, 1.0}
            spans = []
            for r, (a, b) in enumerate(mesh.portals.tolist()):
                if q not in (a, b):
                    continue
                ends = mesh.portal_segments[r][:, [0, 2]]
                ts = [float(np.dot(p - u, v - u) / np.dot(v - u, v - u)) for p in ends]
                off = [abs((v - u)[0] * (p - u)[1] - (v - u)[1] * (p - u)[0]) for p in ends]
                if max(off) < 1e-9 and all(-1e-9 <= t <= 1 + 1e-9 for t in ts):
                    spans.append((min(ts), max(ts), b if a == q else a))
                    cuts.update(min(max(t, 0.0), 1.0) for t in ts)
            ts = sorted(cuts)
            for t0, t1 in zip(ts[:-1], ts[1:]):
                if t1 - t0 < 1e-12:
                    continue
                across = [n for lo, hi, n in spans if lo - 1e-9 <= 0.5 * (t0 + t1) <= hi + 1e-9]
                ring.append((tuple(u + t0 * (v - u)), tuple(u + t1 * (v - u)), across[0] if across else -1))
        rings.append(ring)
    return rings


@pytest.mark.parametrize("name", MESHES)
@pytest.mark.parametrize("holes", [[], [(2, 2, 4, 5), (6, 0, 7, 3)]])
def test_boundary_rings_match_the_reference(name, holes):
    mesh = MESHES[name]() if not holes else navmesh_from_grids([floor_with_holes(10, 8, holes)],
                                                               max_corners=3 if "triangles" in name else 4)
    ring_start, ring_xz, ring_y, ring_polygon, ring_across, ring_twin, ring_vertex, corner = mesh.index.rings
    expected = ref_rings(mesh)
    for q in range(mesh.polygon_count):
        pieces = list(range(ring_start[q], ring_start[q + 1]))
        got = [(tuple(ring_xz[k]), tuple(ring_xz[pieces[(i + 1) % len(pieces)]]), int(ring_across[k]))
               for i, k in enumerate(pieces)]
        shift = [i for i in range(len(got)) if np.allclose(got[i][0], expected[q][0][0], atol=1e-12)]
        assert len(got) == len(expected[q]) and shift
        got = got[shift[0]:] + got[:shift[0]]
        for (a, b, n), (ra, rb, rn) in zip(got, expected[q]):
            np.testing.assert_allclose([a, b], [ra, rb], atol=1e-12)
            assert n == rn
        for k in pieces:
            assert ring_polygon[k] == q
            assert ring_y[k] == pytest.approx(height_at(mesh, q, *ring_xz[k]), abs=1e-12)
            if ring_across[k] >= 0:  # the twin: the same stretch, the other way round, bit for bit
                t = ring_twin[k]
                assert ring_twin[t] == k and ring_polygon[t] == ring_across[k]
                following = t + 1 if t + 1 < ring_start[ring_polygon[t] + 1] else ring_start[ring_polygon[t]]
                np.testing.assert_array_equal(ring_xz[following], ring_xz[k])
                assert ring_vertex[following] == ring_vertex[k]
    # A vertex is a corner exactly when a wall piece starts or ends there.
    walls = set()
    for k in range(len(ring_xz)):
        q = ring_polygon[k]
        following = k + 1 if k + 1 < ring_start[q + 1] else ring_start[q]
        if ring_across[k] < 0:
            walls.update({int(ring_vertex[k]), int(ring_vertex[following])})
    assert sorted(walls) == np.flatnonzero(corner).tolist()


def test_points_over_each_other_are_different_vertices():
    """A table top exactly over a floor (same corners in x and z, not joined): different vertices."""
    ones = np.ones((4, 4), dtype=bool)
    mesh = navmesh_from_grids([WalkableGrid(ones, np.zeros((4, 4)), 0.0, 0.0, 0.5),
                               WalkableGrid(ones, np.ones((4, 4)), 0.0, 0.0, 0.5)], step_limit=0.05)
    ring_xz, ring_polygon, ring_vertex = mesh.index.rings.ring_xz, mesh.index.rings.ring_polygon, mesh.index.rings.ring_vertex
    level = mesh.polygon_level[ring_polygon]
    pairs = 0
    for k in np.flatnonzero(level == 1):
        for m in np.flatnonzero((level == 0) & np.all(ring_xz == ring_xz[k], axis=1)):
            assert ring_vertex[k] != ring_vertex[m]
            pairs += 1
    assert pairs > 0


def ref_classify(r, left, h, p):
    """Where a point p of the far boundary lies for the cone from r through left-h: -1 beside it on h's side, 1 on
    l's side, 0 inside (plain orientation tests); None on either edge of the cone (within 1e-9 m)."""
    def side(o, a, b):
        return ((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])) / np.linalg.norm(a - o)
    if min(abs(side(r, h, p)), abs(side(r, left, p))) < 1e-9:
        return None
    if side(r, h, p) < 0:
        return -1
    if side(r, left, p) > 0:
        return 1
    return 0


@settings(max_examples=200, deadline=None)
@given(points=st.lists(st.tuples(st.floats(-5, 5), st.floats(-5, 5)), min_size=3, max_size=9),
       edge=st.integers(0, 8), t=st.tuples(st.floats(0, 1), st.floats(0, 1)), away=st.floats(0.05, 6),
       along=st.floats(-3, 3))
def test_cone_cut_matches_the_reference(points, edge, t, away, along):
    """A convex polygon, an interval left-h on one side, a root r outside it: every far side is cut where the
    orientation tests on sample points change."""
    from scipy.spatial import ConvexHull, QhullError
    try:
        hull = ConvexHull(np.array(points))
    except (QhullError, ValueError):
        return
    ring = np.array(points)[hull.vertices]  # counter-clockwise
    n = len(ring)
    u, v = ring[edge % n], ring[(edge + 1) % n]
    length = np.linalg.norm(v - u)
    if length < 0.1 or min(np.linalg.norm(ring[i] - ring[(i + 1) % n]) for i in range(n)) < 0.05:
        return
    t_lo, t_hi = sorted(t)
    if (t_hi - t_lo) * length < 0.01:
        return
    left, h = u + t_lo * (v - u), u + t_hi * (v - u)
    normal = np.array([(v - u)[1], -(v - u)[0]]) / length  # right of u -> v: outside
    r = 0.5 * (left + h) + away * normal + along * (v - u) / length
    for i in range(1, n):
        a, b = ring[(edge + i) % n], ring[(edge + i + 1) % n]
        tb, ta = polyanya.cone_cut(*r, *left, *h, *a, *b)
        assert 0.0 <= tb <= ta <= 1.0
        near = 1e-6 / max(np.linalg.norm(b - a), 1e-9) + 1e-6
        for s in np.linspace(0, 1, 41):
            where = ref_classify(r, left, h, a + s * (b - a))
            if where is None:
                continue
            if s < tb - near:
                assert where == -1
            elif tb + near < s < ta - near:
                assert where == 0
            elif s > ta + near:
                assert where == 1


def ref_heuristic(r, left, h, g):
    """min over points x of the interval of |r x| + |x g|: a convex function of x, by golden-section search."""
    def cost(s):
        x = left + s * (h - left)
        return np.linalg.norm(x - r) + np.linalg.norm(g - x)
    lo, hi = 0.0, 1.0
    for _ in range(200):
        a, b = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
        if cost(a) < cost(b):
            hi = b
        else:
            lo = a
    return min(cost(0.0), cost(1.0), cost(0.5 * (lo + hi)))


@settings(max_examples=300, deadline=None)
@given(coords=st.lists(st.floats(-10, 10), min_size=8, max_size=8))
def test_heuristic_matches_the_reference(coords):
    r, left, h, g = (np.array(coords[i:i + 2]) for i in range(0, 8, 2))
    e = h - left
    if np.linalg.norm(e) < 1e-3 or abs(e[0] * (r - left)[1] - e[1] * (r - left)[0]) / np.linalg.norm(e) < 1e-3:
        return
    assert polyanya.heuristic(*r, *left, *h, *g) == pytest.approx(ref_heuristic(r, left, h, g), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("name", MESHES)
def test_paths_on_slopes_and_levels_lie_on_the_planes(name):
    """Random pairs: a path exactly when both lie on one island, its points on the polygons' planes, its length
    summed in 3-D, never shorter on the x-z plane than the straight line."""
    mesh = MESHES[name]()
    query = NavQuery(mesh)
    rng = np.random.default_rng(4)
    found = 0
    for _ in range(100):
        a, b = query.random_point(rng), query.random_point(rng)
        path = query.find_path(a, b)
        same = mesh.index.island[query.locate(a)] == mesh.index.island[query.locate(b)]
        assert (path is not None) == same
        if path is None:
            continue
        found += 1
        np.testing.assert_allclose(path.points[[0, -1]], [a, b], atol=1e-9)
        for x, y, z in path.points[1:-1]:
            assert any(ref_inside(mesh.polygon(q), x, z) and abs(height_at(mesh, q, x, z) - y) < 1e-9
                       for q in range(mesh.polygon_count))
        assert path.length == pytest.approx(np.linalg.norm(np.diff(path.points, axis=0), axis=1).sum())
        flat = np.linalg.norm(np.diff(path.points[:, [0, 2]], axis=0), axis=1).sum()
        assert flat >= np.linalg.norm((b - a)[[0, 2]]) - 1e-9
    assert found > 20


def test_search_scratch_is_reused_without_clearing_and_grows():
    """Queries reuse the scratch arrays (stamped per query): the same query after others gives the same path,
    also when the scratch starts too small and must grow."""
    mesh = navmesh_from_grids([floor_with_holes(20, 16, [(4, 2, 8, 12), (12, 0, 14, 10)])], max_corners=6)
    query = NavQuery(mesh)
    first = query.find_path([0.3, 0, 0.3], [9.6, 0, 7.6])
    rng = np.random.default_rng(2)
    for _ in range(20):
        query.find_path(query.random_point(rng), query.random_point(rng))
    again = query.find_path([0.3, 0, 0.3], [9.6, 0, 7.6])
    np.testing.assert_array_equal(first.points, again.points)
    small = NavQuery(mesh)
    small._fit_scratch(mesh.index, 2)  # room for 2 nodes only
    assert len(small._scratch.node_f) < 4
    grown = small.find_path([0.3, 0, 0.3], [9.6, 0, 7.6])
    np.testing.assert_array_equal(first.points, grown.points)
    assert len(small._scratch.node_f) > 2 and grown.length == first.length


def test_a_query_answers_for_the_arrays_its_navmesh_holds_now():
    """What a re-bake does to a navmesh (new arrays, a new index): a query made before answers for them."""
    mesh = navmesh_from_grids([floor_with_holes(10, 10, [(4, 0, 6, 8)])])
    query = NavQuery(mesh)
    other = navmesh_from_grids([floor_with_holes(10, 10, [])])
    assert query.find_path([0.5, 0, 0.5], [4.5, 0, 0.5]).length > 4.0
    mesh._set_arrays(*(getattr(other, name) for name in ARRAY_NAMES))
    assert query.find_path([0.5, 0, 0.5], [4.5, 0, 0.5]).length == pytest.approx(4.0)
    assert query.locate([2.5, 0, 0.5]) >= 0 and len(mesh.islands()) == 1


def test_inside_and_clip_agree_with_the_reference():
    mesh = slopes()
    vertices, polygon_start, polygon_vertices = mesh.index.polygons[:3]
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


@settings(max_examples=40, deadline=None)
@given(p=st.integers(0, 12), pairs=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=14))
def test_polygon_islands_number_groups_by_their_lowest_polygon(p, pairs):
    portals = np.array([(min(a, b), max(a, b)) for a, b in pairs if a < p and b < p and a != b],
                       dtype=np.int64).reshape(-1, 2)
    # Reference: grow each group from its lowest polygon, groups numbered in that order.
    island = [-1] * p
    count = 0
    for q in range(p):
        if island[q] >= 0:
            continue
        island[q], todo = count, [q]
        while todo:
            here = todo.pop()
            for a, b in portals.tolist():
                for x, y in ((a, b), (b, a)):
                    if x == here and island[y] < 0:
                        island[y] = count
                        todo.append(y)
        count += 1
    assert paths.polygon_islands(p, portals).tolist() == island


def test_queries_of_one_navmesh_keep_their_own_scratch():
    """Two agents' queries of one navmesh, asked in turns: each owns its scratch (nothing shared but the
    navmesh's arrays) and both give the paths one query alone gives."""
    mesh = navmesh_from_grids([floor_with_holes(20, 16, [(4, 2, 8, 12), (12, 0, 14, 10)])], max_corners=6)
    rng = np.random.default_rng(8)
    alone, first, second = NavQuery(mesh), NavQuery(mesh), NavQuery(mesh)
    for _ in range(30):
        a, b = alone.random_point(rng), alone.random_point(rng)
        expected = alone.find_path(a, b)
        for query in (first, second):
            got = query.find_path(a, b)
            assert (got is None) == (expected is None)
            if got is not None:
                np.testing.assert_array_equal(got.points, expected.points)
    assert first._scratch.node_f is not second._scratch.node_f
    assert first._scratch.counts[3] == second._scratch.counts[3] == alone._scratch.counts[3] > 0  # searches run
    assert first.mesh.index is second.mesh.index  # the derived arrays are the navmesh's, shared


def test_path_points_are_checked_on_the_quick_path_too():
    """find_path checks float arrays of shape (3,) quickly and everything else as any query does: the same
    path for a list, a float64 and a float32 array; NaN, inf and wrong shapes refused naming the point."""
    from voxelworld.errors import ParameterError

    mesh = navmesh_from_grids([floor_with_holes(20, 16, [(4, 2, 8, 12)])], max_corners=6)
    query = NavQuery(mesh)
    start, end = [1.0, 0.0, 1.0], [9.0, 0.0, 7.0]
    expected = query.find_path(start, end)
    assert expected is not None and len(expected.points) > 2  # round the hole
    for kind in (np.float64, np.float32):
        got = query.find_path(np.array(start, kind), np.array(end, kind))
        np.testing.assert_array_equal(got.points, expected.points)
    for bad in (np.array([np.nan, 0.0, 1.0]), np.array([1.0, np.inf, 1.0]), np.zeros(2), np.zeros((1, 3)),
                [1.0, 0.0]):
        for name, args in (("start", (bad, end)), ("end", (start, bad))):
            with pytest.raises(ParameterError) as caught:
                query.find_path(*args)
            assert caught.value.parameter == name
