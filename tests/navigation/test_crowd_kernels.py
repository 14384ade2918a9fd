"""The crowd's kernels against plain-Python references on small inputs: ORCA's half-planes and linear program,
the neighbour grid, moves on the navmesh, steering and the hard separation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from voxelworld.navigation import NavQuery, WalkableGrid, navmesh_from_grids
from voxelworld.navigation._kernels import crowd as kernels
from voxelworld.navigation._kernels import orca


def room(width: float, depth: float, cell: float = 0.5, holes=()):
    """A flat room x in [0, width], z in [0, depth] (m) with rectangular holes (x0, z0, x1, z1)."""
    nx, nz = round(width / cell), round(depth / cell)
    walkable = np.ones((nx, nz), dtype=bool)
    for x0, z0, x1, z1 in holes:
        walkable[round(x0 / cell):round(x1 / cell), round(z0 / cell):round(z1 / cell)] = False
    return navmesh_from_grids([WalkableGrid(walkable, np.zeros((nx, nz)), 0.0, 0.0, cell)])


# ------------------------------------------------------------------------------------------------ ORCA
def first_contact(pa, va, pb, vb, combined: float) -> float:
    """The time (s) two discs moving at constant velocities first come closer than ``combined`` m (inf: never)."""
    rx, rz = pb[0] - pa[0], pb[1] - pa[1]
    wx, wz = vb[0] - va[0], vb[1] - va[1]
    a, b, c = wx * wx + wz * wz, 2 * (rx * wx + rz * wz), rx * rx + rz * rz - combined * combined
    if c < 0:
        return 0.0
    disc = b * b - 4 * a * c
    if a == 0 or disc <= 0:
        return math.inf
    t = (-b - math.sqrt(disc)) / (2 * a)
    return t if t >= 0 else math.inf


def inside(line, v, tolerance=1e-9) -> bool:
    """Whether velocity v lies in the half-plane of ``line`` (left of its direction)."""
    px, pz, dx, dz = line
    return dx * (pz - v[1]) - dz * (px - v[0]) <= tolerance


def test_a_pair_keeping_to_its_half_planes_does_not_collide_within_the_horizon():
    rng = np.random.default_rng(3)
    horizon, checked = 2.0, 0
    for _ in range(300):
        pa, pb = rng.uniform(-3, 3, 2), rng.uniform(-3, 3, 2)
        ra, rb = rng.uniform(0.2, 0.5, 2)
        if np.hypot(*(pb - pa)) <= ra + rb:
            continue
        va, vb = rng.uniform(-1.5, 1.5, 2), rng.uniform(-1.5, 1.5, 2)
        lines = np.empty((2, 4))
        orca.agent_line(*pa, *va, ra, *pb, *vb, rb, horizon, 0.1, 0.5, lines, 0)
        orca.agent_line(*pb, *vb, rb, *pa, *va, ra, horizon, 0.1, 0.5, lines, 1)
        for _ in range(20):  # any velocities each in its own half-plane
            na, nb = rng.uniform(-2, 2, 2), rng.uniform(-2, 2, 2)
            if inside(lines[0], na) and inside(lines[1], nb):
                assert first_contact(pa, na, pb, nb, ra + rb) >= horizon * (1 - 1e-9)
                checked += 1
    assert checked > 500


def test_the_half_plane_holds_the_current_velocity_when_the_pair_is_safe():
    """Far apart and moving apart: nothing to avoid, so the agent's own velocity stays allowed."""
    lines = np.empty((1, 4))
    orca.agent_line(0.0, 0.0, -1.0, 0.0, 0.3, 5.0, 0.0, 1.0, 0.0, 0.3, 2.0, 0.1, 0.5, lines, 0)
    assert inside(lines[0], (-1.0, 0.0))
    orca.agent_line(0.0, 0.0, 1.0, 0.0, 0.3, 2.0, 0.0, -1.0, 0.0, 0.3, 2.0, 0.1, 0.5, lines, 0)
    assert not inside(lines[0], (1.0, 0.0))  # head on, closing in 0.7 s: its velocity is forbidden


def best_velocity(lines, speed, preferred):
    """The exact optimum of ``min |v - preferred|`` over the disc of ``speed`` and the half-planes: among the
    candidates (the preferred velocity, its projections on every line and on the circle, the lines' pairwise
    crossings, the lines' crossings with the circle), the nearest feasible one; None when none is feasible."""
    candidates = [np.asarray(preferred, float)]
    norm = np.hypot(*preferred)
    if norm > 0:
        candidates.append(np.asarray(preferred) / norm * speed)
    for px, pz, dx, dz in lines:
        t = dx * (preferred[0] - px) + dz * (preferred[1] - pz)
        candidates.append(np.array([px + t * dx, pz + t * dz]))
        dot = px * dx + pz * dz
        disc = dot * dot + speed * speed - (px * px + pz * pz)
        if disc >= 0:
            for s in (-dot - math.sqrt(disc), -dot + math.sqrt(disc)):
                candidates.append(np.array([px + s * dx, pz + s * dz]))
    for (p1x, p1z, d1x, d1z), (p2x, p2z, d2x, d2z) in itertools.combinations(lines, 2):
        det = d1x * d2z - d1z * d2x
        if abs(det) > 1e-12:
            s = ((p2x - p1x) * d2z - (p2z - p1z) * d2x) / det
            candidates.append(np.array([p1x + s * d1x, p1z + s * d1z]))
    feasible = [c for c in candidates if np.hypot(*c) <= speed + 1e-9 and all(inside(line, c, 1e-7) for line in lines)]
    return min(feasible, key=lambda c: np.hypot(*(c - preferred))) if feasible else None


def random_lines(rng, count):
    lines = np.empty((count, 4))
    for n in range(count):
        angle = rng.uniform(0, 2 * np.pi)
        lines[n] = (*rng.uniform(-1, 1, 2), math.cos(angle), math.sin(angle))
    return lines


def test_the_linear_program_finds_the_exact_optimum():
    rng = np.random.default_rng(11)
    solved = 0
    for _ in range(400):
        count = int(rng.integers(0, 6))
        lines = random_lines(rng, count)
        preferred = rng.uniform(-2.5, 2.5, 2)
        expected = best_velocity(lines, 1.5, preferred)
        result = np.empty(2)
        held = orca.solve_velocity(lines, count, 1.5, *preferred, np.empty((max(count, 1), 4)), result)
        if expected is None:
            assert not held
            continue
        assert held
        assert np.hypot(*(result - expected)) < 1e-6
        solved += 1
    assert solved > 150


def test_when_nothing_is_feasible_the_worst_violation_is_least():
    """Against a dense sampling of the disc, the velocity chosen violates its worst half-plane least."""
    rng = np.random.default_rng(5)
    angles, radii = np.meshgrid(np.linspace(0, 2 * np.pi, 240, endpoint=False), np.linspace(0, 1.0, 60))
    samples = np.column_stack([(radii * np.cos(angles)).ravel(), (radii * np.sin(angles)).ravel()])
    infeasible = 0
    for _ in range(200):
        lines = random_lines(rng, 6)
        result = np.empty(2)
        if orca.solve_velocity(lines, 6, 1.0, 0.3, 0.2, np.empty((6, 4)), result):
            continue
        infeasible += 1

        def worst(v):
            v = np.asarray(v)
            return np.max([dx * (pz - v[..., 1]) - dz * (px - v[..., 0]) for px, pz, dx, dz in lines], axis=0)

        assert np.hypot(*result) <= 1.0 + 1e-9
        assert worst(result) <= worst(samples).min() + 1e-6
    assert infeasible > 20


# ------------------------------------------------------------------------------------------- neighbours
def test_neighbours_are_the_nearest_within_reach_by_brute_force():
    rng = np.random.default_rng(2)
    position = np.zeros((60, 3))
    position[:, [0, 2]] = rng.uniform(0, 10, (60, 2))
    position[::7, [0, 2]] = position[1::7, [0, 2]]  # ties of distance
    position[:, 1] = rng.choice([0.0, 0.5, 3.0], 60)  # three levels: 3 m apart from 0 do not meet
    heights = np.full(60, 2.0)
    grid = kernels.agent_grid(position, 1.5)
    out, out_d2 = np.empty(6, np.int64), np.empty(6)
    for a in range(60):
        count = kernels.neighbours(position, heights, grid, a, 2.5, out, out_d2)
        d2 = (position[:, 0] - position[a, 0]) ** 2 + (position[:, 2] - position[a, 2]) ** 2
        meets = (np.abs(position[:, 1] - position[a, 1]) < 2.0) & (d2 < 2.5 ** 2)
        meets[a] = False
        expected = sorted(np.flatnonzero(meets), key=lambda b: (d2[b], b))[:6]
        assert out[:count].tolist() == expected


# ------------------------------------------------------------------------------------------ moving
def test_moves_in_a_room_slide_along_its_walls_as_a_clamp_does():
    """In a rectangle, walking and sliding along the edges that stop a move ends where clamping the target to
    the rectangle does."""
    mesh = room(6.0, 4.0)
    index = mesh.index
    query = NavQuery(mesh)
    rng = np.random.default_rng(8)
    out = np.empty(2)
    for _ in range(300):
        x, z = rng.uniform(0.01, 5.99), rng.uniform(0.01, 3.99)
        dx, dz = rng.uniform(-4, 4, 2)
        q = query.locate((x, 0, z))
        reached = kernels.move_on_mesh(index.polygons, index.links, index.portal_segments, q, x, z, dx, dz, out)
        expected = (min(max(x + dx, 0.0), 6.0), min(max(z + dz, 0.0), 4.0))
        assert np.allclose(out, expected, atol=1e-8)  # kept 1e-9 m inside
        assert query.locate((out[0], 0, out[1])) >= 0 and reached >= 0


def test_a_move_into_a_pillar_stops_on_its_edge_and_never_enters_it():
    mesh = room(6.0, 6.0, holes=[(2.0, 2.0, 4.0, 4.0)])
    index = mesh.index
    query = NavQuery(mesh)
    rng = np.random.default_rng(9)
    out = np.empty(2)
    for _ in range(300):
        x, z = rng.uniform(0, 6, 2)
        q = query.locate((x, 0, z))
        if q < 0:
            continue
        dx, dz = rng.uniform(-3, 3, 2)
        kernels.move_on_mesh(index.polygons, index.links, index.portal_segments, q, x, z, dx, dz, out)
        assert query.locate((out[0], 0, out[1])) >= 0
        walked, _ = query.raycast((x, 0, z), (x + dx, 0, z + dz))
        if walked >= np.hypot(dx, dz) - 1e-9:  # nothing in the way: the move is made as asked
            assert np.allclose(out, (x + dx, z + dz), atol=1e-8)


# ---------------------------------------------------------------------------------------------- steering
def test_steering_heads_for_the_next_corner_in_sight():
    """An agent behind a pillar heads for the corner it must round; past it (the goal in sight), for the goal;
    near the goal it slows down. Checked against NavQuery's raycast and path."""
    mesh = room(8.0, 8.0, holes=[(3.0, 0.0, 5.0, 5.0)])
    index = mesh.index
    query = NavQuery(mesh)
    start, goal = np.array([1.0, 0.0, 1.0]), np.array([7.0, 0.0, 1.0])
    corners = query.find_path(start, goal).points
    assert len(corners) == 4  # start, two corners of the pillar, goal
    # (where it stands, the corner it steered to last step, the corner it steers to now): one more a step at most
    for position, before, expect in (((1.0, 0.0, 1.0), 1, 1), ((2.9, 0.0, 5.4), 1, 2), ((5.2, 0.0, 5.3), 2, 3),
                                     ((6.5, 0.0, 1.0), 3, 3)):
        preferred = np.zeros((1, 2))
        lost, arrived = np.zeros(1, bool), np.zeros(1, bool)
        next_corner = np.array([before])
        here = np.array([position])
        kernels.steer(index.polygons, index.links, index.portal_segments, here, np.array([query.locate(position)]),
                      np.array([0.3]), np.array([1.5]), np.array([True]), corners, np.array([0, 4]), next_corner,
                      np.array([0.3]), 1.0, preferred, lost, arrived)
        target = corners[next_corner[0]]
        assert next_corner[0] == expect
        # The target is in sight (raycast) and the one after it is not (or there is none).
        assert query.raycast(position, target)[0] == pytest.approx(np.hypot(*(target - here[0])[[0, 2]]))
        heading = (target - here[0])[[0, 2]]
        distance = np.hypot(*heading)
        rate = 1.5 * min(1.0, distance / 1.0) if expect == 3 else 1.5
        assert np.allclose(preferred[0], heading / distance * rate)
        assert not lost[0] and not arrived[0]


# --------------------------------------------------------------------------------------------- separation
def separate_reference(position, radius, slack):
    """One pass of the separation on an open floor, in plain Python: pairs in agent order (the second agent's
    index ascending), each pushed apart to (1 + slack) times its radii's sum, half each."""
    position = position.copy()
    n = len(position)
    for a in range(n):
        # The kernel visits the neighbours cell by cell; on a grid of one cell that is index order.
        for b in range(a + 1, n):
            r = position[b, [0, 2]] - position[a, [0, 2]]
            distance = np.hypot(*r)
            wanted = (radius[a] + radius[b]) * (1 + slack)
            if distance >= wanted:
                continue
            u = r / distance
            gap = wanted - distance
            position[a, [0, 2]] -= 0.5 * gap * u
            position[b, [0, 2]] += 0.5 * gap * u
    return position


def test_one_separation_pass_matches_the_reference():
    mesh = room(20.0, 20.0)
    index = mesh.index
    query = NavQuery(mesh)
    rng = np.random.default_rng(4)
    position = np.zeros((8, 3))
    position[:, [0, 2]] = 10.0 + rng.uniform(-0.25, 0.25, (8, 2))  # within one grid cell (0.6 m)
    radius = np.full(8, 0.3)
    polygon = np.array([query.locate(p) for p in position])
    expected = separate_reference(position, radius, 0.01)
    kernels.separate(index.polygons, index.links, index.portal_segments, position, polygon, radius,
                     np.full(8, 2.0), 1, 0.01)
    assert np.allclose(position, expected, atol=1e-12)


def test_separation_parts_a_heap_of_agents_against_walls():
    """Twelve agents dropped on one spot in the corner of a room end apart, every one on the navmesh."""
    mesh = room(4.0, 4.0)
    index = mesh.index
    query = NavQuery(mesh)
    position = np.tile([0.2, 0.0, 0.2], (12, 1)) + np.linspace(0, 1e-3, 12)[:, None] * [1, 0, 0.5]
    radius = np.full(12, 0.3)
    polygon = np.array([query.locate(p) for p in position])
    worst = 1.0
    for _ in range(20):  # a pass per step, as steps would
        worst = kernels.separate(index.polygons, index.links, index.portal_segments, position, polygon, radius,
                                 np.full(12, 2.0), 16, 0.01)
    assert worst <= kernels.SEPARATED
    d = np.hypot(position[:, None, 0] - position[None, :, 0], position[:, None, 2] - position[None, :, 2])
    np.fill_diagonal(d, np.inf)
    assert d.min() >= 0.6 - kernels.SEPARATED
    assert all(query.locate(p) >= 0 for p in position)
