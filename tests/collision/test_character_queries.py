"""TriangleBVH.ground_under and capsule_push against plain-Python references built on raycast and overlap_capsule
(what a character sifted before they were kernels)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.collision import TriangleBVH
from voxelworld.errors import ParameterError

from .test_bvh import random_mesh


def reference_ground(bvh, x, z, spread, top, bottom):
    origins = np.array([[x, top, z], [x + spread, top, z], [x - spread, top, z], [x, top, z + spread],
                        [x, top, z - spread]])
    hits = bvh.raycast(origins, np.array([0.0, -1.0, 0.0]), top - bottom)
    if not np.any(hits.hit):
        return None
    heights = np.where(hits.hit, hits.point[:, 1], -np.inf)
    best = int(np.argmax(heights))  # the first of equals
    return float(heights[best]), hits.normal[best], int(hits.material[best])


def reference_push(bvh, a, b, radius):
    contacts = bvh.overlap_capsule(a, b, radius)
    push, ceiling = np.zeros(3), False
    for normal, depth in zip(contacts.normal, contacts.depth):
        if normal[1] < -0.5:
            push[1] = min(push[1], -depth)
            ceiling = True
            continue
        horizontal = np.array([normal[0], 0.0, normal[2]])
        size = math.sqrt(normal[0] ** 2 + normal[2] ** 2)
        if size < 1e-6:
            continue
        horizontal /= size
        amount = depth / max(size, 0.2)
        current = float(np.dot(push, horizontal))
        if amount > current:
            push += horizontal * (amount - current)
    return push, len(contacts.depth) > 0, ceiling


def terrain(seed):
    """A bumpy height field with overhangs (a second, upside-down layer): floors, walls and ceilings."""
    rng = np.random.default_rng(seed)
    n = 12
    xs, zs = np.meshgrid(np.arange(n, dtype=float), np.arange(n, dtype=float), indexing="ij")
    ys = rng.uniform(0, 1.5, (n, n))
    ground = np.stack([xs, ys, zs], axis=-1).reshape(-1, 3)
    cells = [(i * n + k, i * n + k + 1, (i + 1) * n + k) for i in range(n - 1) for k in range(n - 1)]
    cells += [(i * n + k + 1, (i + 1) * n + k + 1, (i + 1) * n + k) for i in range(n - 1) for k in range(n - 1)]
    roof = ground + [0.0, 2.2, 0.0]
    positions = np.concatenate([ground, roof])
    indices = np.array(cells + [(a + n * n, c + n * n, b + n * n) for a, b, c in cells])
    return TriangleBVH(positions, indices, tri_material=rng.integers(1, 9, len(indices)))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), spread=st.sampled_from([0.0, 0.18, 0.6]))
def test_ground_under_answers_as_five_raycasts_sifted(seed, spread):
    rng = np.random.default_rng(seed)
    for bvh in (terrain(seed), TriangleBVH(*random_mesh(seed)[:3])):
        for _ in range(25):
            x, z = rng.uniform(-1, 12, 2)
            top = float(rng.uniform(-2, 4))
            bottom = top - float(rng.uniform(0, 4))
            want = reference_ground(bvh, x, z, spread, top, bottom)
            got = bvh.ground_under(x, z, spread, top, bottom)
            if want is None:
                assert got is None
                continue
            assert got is not None
            assert got.height == want[0] and got.material == want[2]
            assert got.normal.tolist() == want[1].tolist()


def test_ground_under_a_tie_goes_to_the_first_ray():
    # Two level floors of different materials either side of a gap under the footprint's centre: the +x ray
    # (second) and the -x ray (third) meet them at the same height; the +x one wins, whichever lies first.
    for left, right in ((3, 5), (5, 3)):
        corners = [[x, 1, z] for x0, x1 in ((-3, -0.5), (0.5, 3)) for x in (x0, x1) for z in (-3, 3)]
        bvh = TriangleBVH(corners, [[0, 1, 2], [1, 3, 2], [4, 5, 6], [5, 7, 6]],
                          tri_material=[left, left, right, right])
        assert bvh.raycast([[1, 2, 0], [-1, 2, 0], [0, 2, 0]], [0, -1, 0]).hit.tolist() == [True, True, False]
        ground = bvh.ground_under(0.0, 0.0, 1.0, 2.0, 0.0)
        assert ground is not None and ground.height == 1.0 and ground.material == right
    # A higher surface under a later ray wins over a lower one under an earlier.
    bvh = TriangleBVH([[-3, 1, -3], [3, 1, -3], [-3, 1, 3], [-1, 1.5, -3], [1, 1.5, -3], [0, 1.5, -0.5]],
                      [[0, 2, 1], [3, 5, 4]], tri_material=[2, 7])
    ground = bvh.ground_under(0.0, 0.0, 1.0, 2.0, 0.0)
    assert ground is not None and ground.height == 1.5 and ground.material == 7


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), radius=st.sampled_from([0.2, 0.4, 1.5]))
def test_capsule_push_answers_as_the_overlap_sifted(seed, radius):
    rng = np.random.default_rng(seed)
    touched = pushed = ceilings = 0
    for bvh in (terrain(seed), TriangleBVH(*random_mesh(seed)[:3])):
        for _ in range(25):
            a = np.array([rng.uniform(-1, 12), rng.uniform(-1, 3), rng.uniform(-1, 12)])
            b = a + [0.0, rng.uniform(0, 1.5), 0.0]
            want = reference_push(bvh, a, b, radius)
            got = bvh.capsule_push(a, b, radius)
            np.testing.assert_allclose(got.push, want[0], rtol=1e-12, atol=1e-15)
            assert (got.touched, got.ceiling) == want[1:]
            touched, pushed, ceilings = touched + got.touched, pushed + bool(np.any(got.push)), \
                ceilings + got.ceiling
    assert touched and pushed  # (the cases reach contacts and pushes; ceilings on most seeds)


def test_capsule_push_pushes_once_per_wall_and_down_from_a_ceiling():
    # A wall of two triangles at x = 1 and a ceiling at y = 2: a capsule 0.1 m into the wall and 0.2 m into the
    # ceiling moves 0.1 m back and 0.2 m down, however many triangles of each it touches.
    wall = [[1, 0, -5], [1, 5, -5], [1, 0, 5], [1, 5, 5]]
    ceiling = [[-5, 2, -5], [5, 2, -5], [-5, 2, 5], [5, 2, 5]]
    bvh = TriangleBVH(wall + ceiling, [[0, 1, 2], [1, 3, 2], [4, 5, 6], [5, 7, 6]])
    moved = bvh.capsule_push([0.8, 0.5, 0.0], [0.8, 1.9, 0.0], 0.3)
    assert moved.touched and moved.ceiling
    np.testing.assert_allclose(moved.push, [-0.1, -0.2, 0.0], atol=1e-12)
    clear = bvh.capsule_push([-2.0, 0.5, 0.0], [-2.0, 1.0, 0.0], 0.3)
    assert not clear.touched and not clear.ceiling and clear.push.tolist() == [0.0, 0.0, 0.0]


def test_a_capsule_touching_more_triangles_than_the_first_room_still_pushes_from_all():
    # A fan of 200 thin wall triangles around the capsule (more than the kernel's first room of 64).
    angles = np.linspace(0, np.pi / 3, 200)
    positions, indices = [], []
    for n, angle in enumerate(angles):
        c, s = math.cos(angle), math.sin(angle)
        positions += [[0.25 * c - s, 0.0, 0.25 * s + c], [0.25 * c + s, 0.0, 0.25 * s - c],
                      [0.25 * c, 3.0, 0.25 * s]]
        indices.append([3 * n, 3 * n + 1, 3 * n + 2])
    bvh = TriangleBVH(positions, indices)
    assert len(bvh.overlap_capsule([0, 0.5, 0], [0, 1.5, 0], 0.3).depth) == 200
    want = reference_push(bvh, [0, 0.5, 0], [0, 1.5, 0], 0.3)
    got = bvh.capsule_push([0, 0.5, 0], [0, 1.5, 0], 0.3)
    np.testing.assert_allclose(got.push, want[0], rtol=1e-12)
    assert got.touched and not got.ceiling


@pytest.mark.parametrize("call, parameter", [
    (lambda b: b.ground_under(float("nan"), 0.0, 0.2, 1.0, 0.0), "x"),
    (lambda b: b.ground_under(0.0, float("inf"), 0.2, 1.0, 0.0), "z"),
    (lambda b: b.ground_under(0.0, 0.0, -0.1, 1.0, 0.0), "spread"),
    (lambda b: b.ground_under(0.0, 0.0, 0.2, "high", 0.0), "top"),
    (lambda b: b.ground_under(0.0, 0.0, 0.2, 1.0, 2.0), "bottom"),
    (lambda b: b.capsule_push([[0, 0, 0], [1, 1, 1]], [0, 1, 0], 0.3), "a"),
    (lambda b: b.capsule_push([0, 0, 0], [0, np.nan, 0], 0.3), "b"),
    (lambda b: b.capsule_push([0, 0, 0], [0, 1], 0.3), "b"),
    (lambda b: b.capsule_push([0, 0, 0], [0, 1, 0], -0.3), "radius"),
])
def test_bad_character_queries_are_refused(call, parameter):
    bvh = TriangleBVH([[0, 0, 0], [1, 0, 0], [0, 0, 1]], [[0, 2, 1]])
    with pytest.raises(ParameterError) as caught:
        call(bvh)
    assert caught.value.parameter == parameter
