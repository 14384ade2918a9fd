"""Weighted paths and off-mesh links: least-cost paths against a fine-grid Dijkstra over the same costs, the
graph search against Polyanya where every cost is 1, the kernels against plain Python, and links (one-way,
both ways, weighed, excluded)."""

from __future__ import annotations

import heapq
import math

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from voxelworld.navigation import NavMesh, NavQuery, QueryFilter, Scene, SearchRegion
from voxelworld.navigation._kernels import weighted as _weighted
from voxelworld.navigation.bake import bake
from voxelworld.navigation.filters import filter_view
from voxelworld.navigation.links import OffMeshLinks

from ..assets import NAV_TEST
from .test_nav_test_level import SETTINGS
from .test_query_filters import AREA_TYPES, tiles

# ------------------------------------------------------------------------------------- the grid yardstick
# 32 neighbours: every step (dx, dz) with |dx|, |dz| <= 3 and no common divisor. Between two neighbouring step
# directions (at most 18.4 degrees apart) a straight line is followed at worst 1 / cos(9.2 degrees) = 1.3% longer.
STEPS = [(dx, dz) for dx in range(-3, 4) for dz in range(-3, 4) if math.gcd(dx, dz) == 1]
_ANGLES = np.sort(np.arctan2([s[1] for s in STEPS], [s[0] for s in STEPS]))
STENCIL = 1.0 / math.cos(np.diff(np.concatenate([_ANGLES, _ANGLES[:1] + 2 * np.pi])).max() / 2)
SPACING = 0.05  # m between grid points
OFFSET = (0.0137, 0.0219)  # m: grid points off the polygons' sides (steps never run along one)


def polygon_costs(mesh: NavMesh, query_filter: QueryFilter) -> np.ndarray:
    names = [mesh.area_types[t] for t in mesh.polygon_area_type]
    return np.array([math.inf if n in query_filter.exclude else query_filter.cost(n) for n in names])


def clipped(mesh: NavMesh, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each straight segment a[i] -> b[i] (x-z, (m, 2)) lies in each polygon: (t_in, t_out), each (p, m)
    (t_in >= t_out: outside; sides included)."""
    d = b - a
    enter, leave = np.zeros((mesh.polygon_count, len(a))), np.zeros((mesh.polygon_count, len(a)))
    for q in range(mesh.polygon_count):
        corners = mesh.polygon(q)[:, [0, 2]]
        turn = np.sign(np.sum(corners[:, 0] * np.roll(corners[:, 1], -1) - np.roll(corners[:, 0], -1) * corners[:, 1]))
        t_in, t_out = np.zeros(len(a)), np.ones(len(a))
        for u, v in zip(corners, np.roll(corners, -1, axis=0)):
            normal = turn * np.array([-(v[1] - u[1]), v[0] - u[0]])  # inward
            at = (a - u) @ normal
            rate = d @ normal
            with np.errstate(divide="ignore", invalid="ignore"):
                t = -at / rate
            t_in = np.where(rate > 0, np.maximum(t_in, t), t_in)
            t_out = np.where(rate < 0, np.minimum(t_out, t), t_out)
            t_out = np.where((rate == 0) & (at < 0), -1.0, t_out)
        enter[q], leave[q] = t_in, t_out
    return enter, leave


def segment_costs(mesh: NavMesh, costs: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The exact cost of each straight segment a[i] -> b[i] (x-z) over the polygons (each polygon's part of it
    times its multiplier; the segments must not run along a side) and the length of it on allowed polygons."""
    enter, leave = clipped(mesh, a, b)
    inside = np.clip(leave - enter, 0.0, None) * np.hypot(*(b - a).T)
    allowed = np.isfinite(costs)
    return (costs[allowed, None] * inside[allowed]).sum(axis=0), inside[allowed].sum(axis=0)


def path_cost(mesh: NavMesh, costs: np.ndarray, points: np.ndarray) -> tuple[float, float]:
    """The exact cost of a polyline (x-z) over the polygons, where it runs along a side between two polygons the
    cheaper one's, and its length on allowed polygons."""
    a, b = points[:-1], points[1:]
    enter, leave = clipped(mesh, a, b)
    cost = length = 0.0
    for i in range(len(a)):
        cuts = np.unique(np.clip(np.concatenate([[0.0, 1.0], enter[:, i], leave[:, i]]), 0.0, 1.0))
        for t0, t1 in zip(cuts[:-1], cuts[1:]):
            mid = 0.5 * (t0 + t1)
            holding = (enter[:, i] <= mid) & (mid <= leave[:, i]) & np.isfinite(costs)
            if holding.any():
                piece = (t1 - t0) * float(np.linalg.norm(b[i] - a[i]))
                cost += costs[holding].min() * piece
                length += piece
    return cost, length


def grid_cost(mesh: NavMesh, query_filter: QueryFilter, start: tuple[float, float], end: tuple[float, float]
              ) -> tuple[float, np.ndarray, np.ndarray]:
    """Dijkstra over a grid of points SPACING m apart over the polygons, 32 neighbours each, every step's cost
    integrated exactly along it (a step leaving the allowed polygons is no step): the least cost from the grid
    point nearest ``start`` to the one nearest ``end`` (x, z), and those two points."""
    costs = polygon_costs(mesh, query_filter)
    lo, hi = mesh.vertices[:, [0, 2]].min(axis=0), mesh.vertices[:, [0, 2]].max(axis=0)
    xs, zs = np.arange(lo[0] + OFFSET[0], hi[0], SPACING), np.arange(lo[1] + OFFSET[1], hi[1], SPACING)
    nx, nz = len(xs), len(zs)
    rows, columns, weights = [], [], []
    for dx, dz in STEPS:
        i, k = np.meshgrid(np.arange(nx), np.arange(nz), indexing="ij")
        i, k = i.ravel(), k.ravel()
        ok = (i + dx >= 0) & (i + dx < nx) & (k + dz >= 0) & (k + dz < nz)
        i, k = i[ok], k[ok]
        a = np.stack([xs[i], zs[k]], axis=1)
        b = np.stack([xs[i + dx], zs[k + dz]], axis=1)
        cost, covered = segment_costs(mesh, costs, a, b)
        walkable = covered >= np.hypot(*(b - a).T) * (1 - 1e-9)
        rows.append((i * nz + k)[walkable])
        columns.append(((i + dx) * nz + k + dz)[walkable])
        weights.append(cost[walkable])
    graph = coo_matrix((np.concatenate(weights), (np.concatenate(rows), np.concatenate(columns))),
                       shape=(nx * nz, nx * nz)).tocsr()
    si, sk = int(np.argmin(abs(xs - start[0]))), int(np.argmin(abs(zs - start[1])))
    ei, ek = int(np.argmin(abs(xs - end[0]))), int(np.argmin(abs(zs - end[1])))
    best = dijkstra(graph, indices=si * nz + sk)[ei * nz + ek]
    return float(best), np.array([xs[si], 0.0, zs[sk]]), np.array([xs[ei], 0.0, zs[ek]])


SCENES = {
    # A strip of mud across the whole field, crossed on a slant (the path bends where it enters and leaves it).
    "mud strip": (lambda x, z: "mud" if 3 < x < 5 else "ground", 8, 6, QueryFilter({"mud": 4.0}), (0.5, 0.5),
                  (7.5, 5.5)),
    # A block of deep mud: around it, not through.
    "mud block": (lambda x, z: "mud" if 2 < x < 6 and 1 < z < 5 else "ground", 8, 6, QueryFilter({"mud": 10.0}),
                  (0.5, 3.0), (7.5, 3.2)),
    # Two costly areas meeting, crossed diagonally.
    "two areas": (lambda x, z: "mud" if x < 3 <= z else ("jump" if x > 3 > z else "ground"), 6, 6,
                  QueryFilter({"mud": 2.0, "jump": 3.0}), (0.5, 5.5), (5.5, 0.5)),
    # A cheap lane beside an excluded block, and costly ground.
    "cheap lane": (lambda x, z: "hazard" if 2 < x < 6 and z < 3 else ("mud" if z > 4 else "ground"), 8, 6,
                   QueryFilter({"ground": 3.0, "mud": 0.5}, {"hazard"}), (0.5, 0.5), (7.5, 0.7)),
}


@pytest.mark.parametrize("name", sorted(SCENES))
def test_a_path_costs_within_2_percent_of_a_fine_grid_dijkstra(name: str) -> None:
    area, nx, nz, query_filter, start, end = SCENES[name]
    mesh = tiles(nx, nz, area)
    grid, a, b = grid_cost(mesh, query_filter, start, end)
    path = NavQuery(mesh).find_path(a, b, query_filter)
    assert path is not None
    # What the path reports is what it costs, and it stays on the allowed polygons.
    cost, covered = path_cost(mesh, polygon_costs(mesh, query_filter), path.points[:, [0, 2]])
    assert cost == pytest.approx(path.cost, rel=1e-9)
    assert covered == pytest.approx(path.length, rel=1e-9)
    # The grid's paths are real paths: its least cost is an upper bound of the least cost, too high by the
    # stencil's error (at most STENCIL) and a little for bends forced onto grid points.
    assert path.cost <= grid * 1.02
    assert path.cost >= grid / STENCIL / 1.02


def test_costs_choose_the_way() -> None:
    mesh = tiles(8, 6, SCENES["mud block"][0])
    query = NavQuery(mesh)
    through = query.find_path([0.5, 0, 3.0], [7.5, 0, 3.0], QueryFilter({"mud": 1.2}))
    around = query.find_path([0.5, 0, 3.0], [7.5, 0, 3.0], QueryFilter({"mud": 10.0}))
    assert through is not None and around is not None
    assert np.allclose(through.points[:, 2], 3.0) and through.length == pytest.approx(7.0)
    assert through.cost == pytest.approx(3.0 + 4.0 * 1.2)  # straight through
    assert around.length > 7.5 and around.cost == pytest.approx(around.length)  # on ground only
    plain = query.find_path([0.5, 0, 3.0], [7.5, 0, 3.0])
    assert plain is not None and plain.cost == plain.length == pytest.approx(7.0)


# ------------------------------------------------------------------------------- the graph against Polyanya
@pytest.fixture(scope="module")
def nav_test() -> NavMesh:
    scene = Scene.from_obj(NAV_TEST)
    lo, hi = scene.bounds()
    return bake(scene, SearchRegion(lo - [0.0, 1.0, 0.0], hi + [0.0, 1.0, 0.0]), SETTINGS)


def test_with_every_cost_1_the_graph_search_finds_polyanyas_paths(nav_test: NavMesh) -> None:
    query = NavQuery(nav_test)
    graph = filter_view(nav_test, QueryFilter()).graph
    rng = np.random.default_rng(3)
    checked = 0
    while checked < 60:
        a, b = query.random_point(rng), query.random_point(rng)
        exact = query.find_path(a, b)
        if exact is None:
            continue
        (sa, pa), (sb, pb) = query.nearest_point(a), query.nearest_point(b)
        points, offmesh, length, cost = _weighted.weighted_path(graph, pa, sa, pb, sb)
        assert len(points) and cost == pytest.approx(length) and (offmesh == -1).all()
        # Polyanya's is the shortest on the x-z plane: never beaten there; the graph's within 0.2% in 3-D.
        flat, exact_flat = (np.hypot(*np.diff(p[:, [0, 2]], axis=0).T).sum() for p in (points, exact.points))
        assert flat >= exact_flat * (1 - 1e-9)
        assert length == pytest.approx(exact.length, rel=2e-3)
        checked += 1


# ---------------------------------------------------------------------------------- kernels against Python
def reference_cost(graph: _weighted.WeightedGraph, a: int, start: np.ndarray, b: int, end: np.ndarray) -> float:
    """Dijkstra in plain Python over the graph's edges as the module describes them."""
    n = len(graph.node_xyz)
    pos = np.concatenate([graph.node_xyz, [start, end]])
    members = [graph.polygon_nodes[graph.polygon_start[q]:graph.polygon_start[q + 1]].tolist()
               for q in range(len(graph.polygon_start) - 1)]
    best = {n: 0.0}
    queue = [(0.0, n)]
    while queue:
        g, u = heapq.heappop(queue)
        if u == n + 1:
            return g
        if g > best.get(u, math.inf):
            continue
        polygons = [a] if u == n else [q for q in graph.node_polygons[u] if q >= 0]
        edges = []
        for q in polygons:
            edges += [(w, graph.polygon_cost[q]) for w in members[q] + ([n + 1] if q == b else [])]
        if u < n and graph.node_link[u] >= 0:
            edges.append((graph.node_link_to[u], graph.link_cost[graph.node_link[u]]))
        for w, c in edges:
            ng = g + c * float(np.linalg.norm(pos[w] - pos[u]))
            if ng < best.get(w, math.inf):
                best[w] = ng
                heapq.heappush(queue, (ng, w))
    return math.inf


def linked_pair(bidirectional: bool, area: str = "jump", **keywords) -> NavMesh:
    """Two fields of 3 x 3 m, x in [0, 3] and [5, 8], not joined, and a link from (2.5, 0, 1.5) to (5.5, 0, 1.5)."""
    mesh = tiles(8, 3, lambda x, z: "hazard" if 3 < x < 5 else ("mud" if x > 6 and z > 2 else "ground"))
    keep = np.flatnonzero(mesh.polygon_area_type != AREA_TYPES.index("hazard"))
    renumber = np.full(mesh.polygon_count, -1)
    renumber[keep] = np.arange(len(keep))
    joined = (renumber[mesh.portals] >= 0).all(axis=1)
    links = OffMeshLinks(np.array([[2.5, 0.0, 1.5]]), np.array([[5.5, 0.0, 1.5]]), np.array([bidirectional]),
                         np.array([AREA_TYPES.index(area)]))
    return NavMesh(mesh.vertices, np.arange(0, 4 * len(keep) + 1, 4), mesh.polygon_vertices.reshape(-1, 4)[keep].ravel(),
                   mesh.polygon_level[keep], renumber[mesh.portals[joined]], mesh.portal_segments[joined],
                   area_types=AREA_TYPES, polygon_area_type=mesh.polygon_area_type[keep], offmesh_links=links,
                   **keywords)


@pytest.mark.parametrize("name", sorted(SCENES) + ["link"])
def test_the_search_kernel_agrees_with_plain_python(name: str) -> None:
    if name == "link":
        mesh, query_filter, ends = linked_pair(False), QueryFilter({"jump": 2.0, "mud": 3.0}), [(0.5, 0.5), (7.5, 2.5)]
    else:
        area, nx, nz, query_filter, start, end = SCENES[name]
        mesh, ends = tiles(nx, nz, area), [start, end]
    query = NavQuery(mesh)
    graph = filter_view(mesh, query_filter).graph
    rng = np.random.default_rng(5)
    lo, hi = mesh.vertices[:, [0, 2]].min(axis=0), mesh.vertices[:, [0, 2]].max(axis=0)
    pairs = [tuple(ends)] + [(tuple(lo + rng.random(2) * (hi - lo)), tuple(lo + rng.random(2) * (hi - lo))) for _ in range(4)]
    for s, e in pairs:
        sa, pa = query.nearest_point([s[0], 0, s[1]], query_filter)
        sb, pb = query.nearest_point([e[0], 0, e[1]], query_filter)
        n = len(graph.node_xyz)
        pos, parent, via = np.empty((n + 2, 3)), np.empty(n + 2, dtype=np.int64), np.empty(n + 2, dtype=np.int64)
        found = _weighted.search(graph, pa, sa, pb, sb, pos, parent, via)
        expected = reference_cost(graph, pa, sa, pb, sb)
        assert found == pytest.approx(expected, rel=1e-12) or found == expected == math.inf
        path = query.find_path(sa, sb, query_filter)
        assert (path is None) == (expected == math.inf)
        if path is not None:
            assert path.cost <= found * (1 + 1e-12)  # straightening never costs more


def test_straightened_bends_cannot_move_along_their_portals_to_gain() -> None:
    """What ``straighten`` leaves, checked by plain Python: no bend gains by moving anywhere along its portal."""
    segments = np.array([[[1.0, 0, 0], [1.0, 0, 4]], [[2.0, 0, -1], [2.0, 0, 5]], [[3.0, 0, 0], [3.0, 0, 4]]])
    points = np.array([[0.0, 0, 0], [1.0, 0, 4], [2.0, 0, -1], [3.0, 0, 4], [4.0, 0, 3.5]])
    portal, t = np.array([-1, 0, 1, 2, -1]), np.array([0.0, 1.0, 0.0, 1.0, 0.0])
    weight = np.array([1.0, 3.0, 0.5, 2.0])
    _weighted.straighten(points, portal, t, weight, segments)
    for i in (1, 2, 3):
        seg = segments[portal[i]]
        here = seg[0] + t[i] * (seg[1] - seg[0])
        assert np.allclose(points[i], here)
        def cost(p: np.ndarray, i: int = i) -> float:
            return float(weight[i - 1] * np.linalg.norm(p - points[i - 1]) + weight[i] * np.linalg.norm(points[i + 1] - p))
        tries = [seg[0] + s * (seg[1] - seg[0]) for s in np.linspace(0, 1, 4001)]
        assert cost(here) <= min(cost(p) for p in tries) + 1e-9


# ------------------------------------------------------------------------------------------------- links
def test_a_path_takes_a_one_way_link_and_none_goes_back_up() -> None:
    query = NavQuery(linked_pair(bidirectional=False))
    there = query.find_path([0.5, 0, 0.5], [7.5, 0, 0.5])
    assert there is not None
    assert there.offmesh.tolist().count(0) == 1 and set(there.offmesh.tolist()) == {-1, 0}
    i = there.offmesh.tolist().index(0)
    assert there.points[i].tolist() == [2.5, 0.0, 1.5] and there.points[i + 1].tolist() == [5.5, 0.0, 1.5]
    assert there.length == pytest.approx(np.hypot(2.0, 1.0) + 3.0 + np.hypot(2.0, 1.0))
    assert query.find_path([7.5, 0, 0.5], [0.5, 0, 0.5]) is None  # the link is one-way


def test_a_bidirectional_link_goes_both_ways() -> None:
    query = NavQuery(linked_pair(bidirectional=True))
    back = query.find_path([7.5, 0, 0.5], [0.5, 0, 0.5])
    assert back is not None and back.offmesh.tolist().count(0) == 1
    i = back.offmesh.tolist().index(0)
    assert back.points[i].tolist() == [5.5, 0.0, 1.5] and back.points[i + 1].tolist() == [2.5, 0.0, 1.5]


def test_a_links_area_type_is_weighed_and_excluded() -> None:
    query = NavQuery(linked_pair(bidirectional=False))
    plain = query.find_path([0.5, 0, 0.5], [7.5, 0, 0.5])
    costly = query.find_path([0.5, 0, 0.5], [7.5, 0, 0.5], QueryFilter({"jump": 5.0}))
    assert plain is not None and costly is not None
    assert costly.cost == pytest.approx(plain.cost + 4.0 * 3.0)  # the same way, the link 5x dearer
    assert query.find_path([0.5, 0, 0.5], [7.5, 0, 0.5], QueryFilter(exclude={"jump"})) is None
    # Walking over mud costs too: its end lands in the mud's corner (x > 6, z > 2), which the path now avoids.
    muddy = query.find_path([0.5, 0, 0.5], [7.5, 0, 2.5], QueryFilter({"mud": 50.0}))
    # In at its side, by Snell's law 1 cm short of straight below the end.
    assert muddy is not None and muddy.points[-2].tolist() == pytest.approx([7.4903, 0.0, 2.0], abs=1e-4)
