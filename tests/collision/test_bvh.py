"""TriangleBVH against brute force over every triangle (plain numpy references), on random meshes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.collision import TriangleBVH
from voxelworld.errors import ParameterError


def random_mesh(seed: int, triangles: int = 300):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-5, 5, size=(triangles, 3))
    positions = (centres[:, None, :] + rng.normal(0, 0.8, size=(triangles, 3, 3))).reshape(-1, 3)
    indices = np.arange(3 * triangles).reshape(-1, 3)
    return positions, indices, rng.integers(1, 12, triangles), rng.integers(0, 5, triangles)


def brute_distances(positions, indices, origin, direction):
    """Distance along the ray to every triangle (inf where it misses): barycentric solve per triangle."""
    p = positions[indices]
    e1, e2 = p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]
    out = np.full(len(indices), np.inf)
    for t in range(len(indices)):
        matrix = np.column_stack([-direction, e1[t], e2[t]])
        if abs(np.linalg.det(matrix)) < 1e-12:
            continue
        dist, u, v = np.linalg.solve(matrix, origin - p[t, 0])
        if dist >= 0 and u >= 0 and v >= 0 and u + v <= 1:
            out[t] = dist
    return out


def brute_closest(positions, indices, point):
    """Closest point of each triangle to ``point``: the plane projection if inside, else the nearest edge
    point (edges sampled exactly by clamped projection)."""
    p = positions[indices]
    out = np.empty((len(indices), 3))
    for t in range(len(indices)):
        a, b, c = p[t]
        normal = np.cross(b - a, c - a)
        normal /= np.linalg.norm(normal)
        q = point - np.dot(point - a, normal) * normal
        # barycentric coordinates of q
        v0, v1, v2 = b - a, c - a, q - a
        d00, d01, d11, d20, d21 = v0 @ v0, v0 @ v1, v1 @ v1, v2 @ v0, v2 @ v1
        denom = d00 * d11 - d01 * d01
        v = (d11 * d20 - d01 * d21) / denom
        w = (d00 * d21 - d01 * d20) / denom
        if v >= 0 and w >= 0 and v + w <= 1:
            out[t] = q
            continue
        best, best_d = None, np.inf
        for s, e in ((a, b), (b, c), (c, a)):
            u = np.clip(np.dot(point - s, e - s) / np.dot(e - s, e - s), 0, 1)
            candidate = s + u * (e - s)
            d = np.linalg.norm(point - candidate)
            if d < best_d:
                best, best_d = candidate, d
        out[t] = best
    return out


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_raycast_matches_brute_force(seed):
    positions, indices, materials, objects = random_mesh(seed)
    bvh = TriangleBVH(positions, indices, tri_material=materials, tri_object=objects)
    rng = np.random.default_rng(seed + 1)
    origins = rng.uniform(-8, 8, size=(40, 3))
    directions = rng.normal(size=(40, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    hits = bvh.raycast(origins, directions)
    for r in range(40):
        distances = brute_distances(positions, indices, origins[r], directions[r])
        best = distances.min()
        if np.isinf(best):
            assert hits.triangle[r] == -1 and np.isinf(hits.distance[r]) and not hits.hit[r]
            continue
        assert hits.distance[r] == pytest.approx(best, rel=1e-9, abs=1e-9)
        assert distances[hits.triangle[r]] == pytest.approx(best, rel=1e-9, abs=1e-9)
        np.testing.assert_allclose(hits.point[r], origins[r] + best * directions[r], atol=1e-9)
        assert hits.material[r] == materials[hits.triangle[r]] and hits.object[r] == objects[hits.triangle[r]]
        assert np.dot(hits.normal[r], directions[r]) <= 0  # faces the ray's origin
        assert np.linalg.norm(hits.normal[r]) == pytest.approx(1.0)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), limit=st.floats(0.5, 20.0))
def test_raycast_all_and_segments_match_brute_force(seed, limit):
    positions, indices, _, _ = random_mesh(seed, 200)
    bvh = TriangleBVH(positions, indices)
    rng = np.random.default_rng(seed + 2)
    origins = rng.uniform(-8, 8, size=(15, 3))
    directions = rng.normal(size=(15, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    every = bvh.raycast_all(origins, directions, max_distance=limit)
    segments = bvh.segment_hits(origins, origins + limit * directions)
    for result in (every, segments):
        for r in range(15):
            distances = brute_distances(positions, indices, origins[r], directions[r])
            expected = np.flatnonzero(distances <= limit)
            mine = result.triangle[result.ray == r]
            assert sorted(mine.tolist()) == sorted(expected.tolist())
            assert np.all(np.diff(result.distance[result.ray == r]) >= 0)
    assert np.all(np.diff(every.ray) >= 0)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), radius=st.floats(0.1, 3.0))
def test_overlap_sphere_matches_brute_force(seed, radius):
    positions, indices, materials, _ = random_mesh(seed, 150)
    bvh = TriangleBVH(positions, indices, tri_material=materials)
    centres = np.random.default_rng(seed + 3).uniform(-6, 6, size=(10, 3))
    contacts = bvh.overlap_sphere(centres, radius)
    for q in range(10):
        closest = brute_closest(positions, indices, centres[q])
        distance = np.linalg.norm(closest - centres[q], axis=1)
        inside = set(np.flatnonzero(distance < radius - 1e-9).tolist())
        outside = set(np.flatnonzero(distance > radius + 1e-9).tolist())
        mine = contacts.triangle[contacts.query == q]
        assert inside <= set(mine.tolist()) and not (outside & set(mine.tolist()))
        for k in np.flatnonzero(contacts.query == q):
            t = contacts.triangle[k]
            np.testing.assert_allclose(contacts.point[k], closest[t], atol=1e-7)
            assert contacts.depth[k] == pytest.approx(radius - distance[t], abs=1e-7)
            assert contacts.material[k] == materials[t]
            push = centres[q] - contacts.point[k]
            if np.linalg.norm(push) > 1e-9:
                np.testing.assert_allclose(contacts.normal[k], push / np.linalg.norm(push), atol=1e-7)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), radius=st.floats(0.1, 2.0))
def test_overlap_capsule_matches_dense_sampling(seed, radius):
    """Reference: the capsule as many spheres along its axis (distance to the axis sampled finely)."""
    positions, indices, _, _ = random_mesh(seed, 60)
    bvh = TriangleBVH(positions, indices)
    rng = np.random.default_rng(seed + 4)
    a, b = rng.uniform(-5, 5, 3), rng.uniform(-5, 5, 3)
    contacts = bvh.overlap_capsule(a, b, radius)
    samples = a + np.linspace(0, 1, 200)[:, None] * (b - a)
    distance = np.min([np.linalg.norm(brute_closest(positions, indices, s) - s, axis=1) for s in samples], axis=0)
    step = np.linalg.norm(b - a) / 199
    mine = set(contacts.triangle.tolist())
    assert set(np.flatnonzero(distance < radius - 1e-9).tolist()) <= mine
    assert not (set(np.flatnonzero(distance > radius + step).tolist()) & mine)
    for k in range(len(contacts.triangle)):
        assert contacts.depth[k] >= -1e-9
        assert radius - contacts.depth[k] <= distance[contacts.triangle[k]] + 1e-7


def test_refit_answers_like_a_new_tree():
    positions, indices, _, _ = random_mesh(7, 400)
    bvh = TriangleBVH(positions, indices)
    moved = positions + np.random.default_rng(8).normal(0, 0.5, positions.shape)
    bvh.refit(moved)
    fresh = TriangleBVH(moved, indices)
    rng = np.random.default_rng(9)
    origins, directions = rng.uniform(-8, 8, (300, 3)), rng.normal(size=(300, 3))
    a, b = bvh.raycast(origins, directions), fresh.raycast(origins, directions)
    np.testing.assert_array_equal(a.triangle, b.triangle)
    np.testing.assert_allclose(a.distance, b.distance)
    sa, sb = bvh.overlap_sphere(origins[:50], 1.0), fresh.overlap_sphere(origins[:50], 1.0)
    np.testing.assert_array_equal(sa.triangle, sb.triangle)


def test_max_distance_and_broadcasting():
    floor = TriangleBVH([[0, 0, 0], [10, 0, 0], [0, 0, 10]], [[0, 2, 1]])
    hits = floor.raycast([2.0, 5.0, 3.0], [[0, -1, 0], [0, -2, 0], [0, 1, 0]], max_distance=[4.0, 6.0, 9.0])
    assert hits.triangle.tolist() == [-1, 0, -1]
    assert hits.distance[1] == 5.0
    assert floor.segment_hits([2, 1, 3], [2, 1, 3]).triangle.size == 0  # a point crosses nothing


@pytest.mark.parametrize("call, parameter", [
    (lambda: TriangleBVH([[0, 0, 0], [1, 0, 0], [np.nan, 0, 1]], [[0, 1, 2]]), "positions"),
    (lambda: TriangleBVH([[0, 0, 0], [1, 0, 0], [0, 0, 1]], [[0, 1, 3]]), "indices"),
    (lambda: TriangleBVH([[0, 0, 0], [1, 0, 0], [0, 0, 1]], [[0, 1]]), "indices"),
    (lambda: TriangleBVH([[0, 0, 0], [1, 0, 0], [0, 0, 1]], [[0, 1, 2]], tri_material=[300]), "tri_material"),
    (lambda: TriangleBVH([[0, 0, 0], [1, 0, 0], [0, 0, 1]], [[0, 1, 2]], tri_object=[1, 2]), "tri_object"),
])
def test_bad_meshes_are_refused(call, parameter):
    with pytest.raises(ParameterError) as caught:
        call()
    assert caught.value.parameter == parameter


def test_bad_queries_are_refused():
    bvh = TriangleBVH([[0, 0, 0], [1, 0, 0], [0, 0, 1]], [[0, 1, 2]])
    for call, parameter in [(lambda: bvh.raycast([0, 1, 0], [0, 0, 0]), "directions"),
                            (lambda: bvh.raycast([[0, 1, 0]] * 3, [[0, -1, 0]] * 2), "directions"),
                            (lambda: bvh.raycast([0, 1, 0], [0, -1, 0], max_distance=-1), "max_distance"),
                            (lambda: bvh.overlap_sphere([0, 1, 0], -0.5), "radius"),
                            (lambda: bvh.refit([[0, 0, 0]]), "positions")]:
        with pytest.raises(ParameterError) as caught:
            call()
        assert caught.value.parameter == parameter


def test_degenerate_triangles_are_touched_at_their_nearest_edge_point():
    """Zero-area triangles (collinear corners, a repeated corner, a point) happen in simplified meshes: the
    overlap queries must measure them like segments and points, not divide by their zero area."""
    positions = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0],  # collinear
                          [0.0, 0.0, 3.0], [0.0, 0.0, 3.0], [1.0, 0.0, 3.0],  # a repeated corner
                          [5.0, 0.0, 0.0], [5.0, 0.0, 0.0], [5.0, 0.0, 0.0]])  # one point
    indices = np.arange(9).reshape(3, 3)
    bvh = TriangleBVH(positions, indices)
    cases = [((1.5, 0.3, 0.0), 0, (1.5, 0.0, 0.0)), ((0.5, -0.2, 3.1), 1, (0.5, 0.0, 3.0)),
             ((5.0, 0.25, 0.0), 2, (5.0, 0.0, 0.0))]
    for centre, triangle, nearest in cases:
        found = bvh.overlap_sphere(np.array(centre), 0.4)
        assert found.triangle.tolist() == [triangle]
        assert np.allclose(found.point[0], nearest, atol=1e-12)
        assert found.depth[0] == pytest.approx(0.4 - np.linalg.norm(np.subtract(centre, nearest)))
        capsule = bvh.overlap_capsule(np.array(centre), np.array(centre) + (0.0, 1.0, 0.0), 0.4)
        assert capsule.triangle.tolist() == [triangle] and np.allclose(capsule.point[0], nearest, atol=1e-12)


def test_triangle_normals_are_numpys_cross_product_normalised_bit_for_bit():
    """The BVH's per-triangle normals (a kernel) equal numpy's cross product over its norm exactly, and a
    degenerate triangle (two corners alike, or all on a line) gets (0, 0, 0)."""
    positions, indices, _, _ = random_mesh(5)
    positions[indices[3, 1]] = positions[indices[3, 0]]  # two corners alike
    positions[indices[7, 2]] = 2 * positions[indices[7, 1]] - positions[indices[7, 0]]  # on a line
    p = positions[indices]
    normal = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    length = np.linalg.norm(normal, axis=1, keepdims=True)
    expected = np.divide(normal, length, out=np.zeros_like(normal), where=length > 0)
    found = TriangleBVH(positions, indices).normals
    assert np.array_equal(found, expected)
    assert np.all(found[3] == 0.0) and np.abs(found[7]).max() < 1e-12
