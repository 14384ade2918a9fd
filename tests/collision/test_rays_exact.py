"""TriangleBVH.raycast against a brute-force reference that tests every triangle with the same arithmetic (plain
numpy): the same distance to the last bit and the same triangle, ties to the lower index, for small batches and
for large ones (traced in another order), on meshes with shared edges, duplicates and rays through vertices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.collision import TriangleBVH
from voxelworld.collision.bvh import COHERENT_BATCH


def reference_first_hits(positions, indices, origins, directions, limit):
    """Distance (inf: none) and triangle (-1) of each ray's first hit: Moller-Trumbore on every triangle, written
    as the kernel writes it, the nearest below ``limit`` winning and the lowest index among equals."""
    directions = directions / np.linalg.norm(directions, axis=1)[:, None]
    a = positions[indices[:, 0]]
    e1, e2 = positions[indices[:, 1]] - a, positions[indices[:, 2]] - a
    distance, triangle = np.full(len(origins), np.inf), np.full(len(origins), -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        for r in range(len(origins)):
            (ox, oy, oz), (dx, dy, dz) = origins[r], directions[r]
            px, py, pz = dy * e2[:, 2] - dz * e2[:, 1], dz * e2[:, 0] - dx * e2[:, 2], dx * e2[:, 1] - dy * e2[:, 0]
            det = e1[:, 0] * px + e1[:, 1] * py + e1[:, 2] * pz
            inv = 1.0 / det
            sx, sy, sz = ox - a[:, 0], oy - a[:, 1], oz - a[:, 2]
            u = (sx * px + sy * py + sz * pz) * inv
            qx, qy, qz = sy * e1[:, 2] - sz * e1[:, 1], sz * e1[:, 0] - sx * e1[:, 2], sx * e1[:, 1] - sy * e1[:, 0]
            v = (dx * qx + dy * qy + dz * qz) * inv
            dist = (e2[:, 0] * qx + e2[:, 1] * qy + e2[:, 2] * qz) * inv
            ok = (np.abs(det) >= 1e-12) & (u >= 0) & (u <= 1) & (v >= 0) & (u + v <= 1) & (dist >= 0)
            ok &= dist < limit[r]
            if ok.any():
                best = dist[ok].min()
                distance[r], triangle[r] = best, np.flatnonzero(ok & (dist == best))[0]
    return distance, triangle


def grid_mesh(rng, side: int = 12):
    """A bumpy grid of unit squares (shared edges and corners), some triangles repeated at higher indices."""
    x, z = np.meshgrid(np.arange(side, dtype=float), np.arange(side, dtype=float), indexing="ij")
    y = np.round(rng.normal(0, 0.5, x.shape), 1)
    positions = np.stack([x, y, z], axis=-1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(side - 1), np.arange(side - 1), indexing="ij")
    v = (i * side + j).ravel()
    indices = np.concatenate([np.stack([v, v + 1, v + side], 1), np.stack([v + 1, v + side + 1, v + side], 1)])
    repeated = rng.choice(len(indices), len(indices) // 10, replace=False)
    return positions, np.concatenate([indices, indices[repeated][:, [1, 2, 0]]])


def rays_over(rng, positions, count):
    """Rays from above: half straight down through grid corners and edge midpoints (ties between triangles),
    half in random downward directions."""
    low, high = positions.min(axis=0), positions.max(axis=0)
    origins = np.column_stack([rng.uniform(low[0], high[0], count), rng.uniform(high[1] + 1, high[1] + 5, count),
                               rng.uniform(low[2], high[2], count)])
    half = count // 2
    origins[:half, [0, 2]] = np.round(origins[:half, [0, 2]] * 2) / 2
    directions = rng.normal(size=(count, 3))
    directions[:, 1] = -np.abs(directions[:, 1]) - 0.2
    directions[:half] = (0.0, -1.0, 0.0)
    return origins, directions


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 100_000), large=st.booleans())
def test_first_hits_equal_the_brute_force_reference_bit_for_bit(seed, large):
    rng = np.random.default_rng(seed)
    positions, indices = grid_mesh(rng)
    count = COHERENT_BATCH + 100 if large else 300
    origins, directions = rays_over(rng, positions, count)
    limit = np.where(rng.random(count) < 0.3, rng.uniform(1, 8, count), np.inf)
    bvh = TriangleBVH(positions, indices, tri_material=rng.integers(0, 256, len(indices)))
    hits = bvh.raycast(origins, directions, limit)
    distance, triangle = reference_first_hits(positions, indices, origins, directions, limit)
    np.testing.assert_array_equal(hits.triangle, triangle)
    np.testing.assert_array_equal(hits.distance, distance)
    hit = triangle >= 0
    assert (hits.triangle[:len(indices)] >= 0).any() and np.array_equal(hits.hit, hit)
    np.testing.assert_array_equal(hits.normal[hit], np.where(
        (np.sum(bvh.normals[triangle[hit]] * directions[hit] / np.linalg.norm(directions[hit], axis=1)[:, None],
                axis=1) > 0)[:, None], -bvh.normals[triangle[hit]], bvh.normals[triangle[hit]]))
    np.testing.assert_array_equal(hits.material[hit], bvh.tri_material[triangle[hit]])
    assert np.all(np.isnan(hits.point[~hit])) and np.all(hits.object[~hit] == -1)


@pytest.mark.parametrize("count", [1, COHERENT_BATCH - 1, COHERENT_BATCH, 3 * COHERENT_BATCH + 7])
def test_a_batch_answers_as_its_rays_one_by_one(count):
    """The order a large batch is traced in changes nothing: each ray's answer equals that of the ray alone."""
    rng = np.random.default_rng(count)
    positions, indices = grid_mesh(rng, 20)
    origins, directions = rays_over(rng, positions, count)
    bvh = TriangleBVH(positions, indices)
    batch = bvh.raycast(origins, directions)
    for r in rng.choice(count, min(count, 60), replace=False):
        alone = bvh.raycast(origins[r], directions[r])
        for name in batch.__dataclass_fields__:
            np.testing.assert_array_equal(getattr(batch, name)[r], getattr(alone, name)[0], err_msg=name)


def test_middle_points_are_the_middles_of_the_rays_inside_the_box():
    """The points a large batch is ordered by (middle_points) against plain Python: the middle of the stretch of
    each ray inside the box and within its limit, the origin for a ray that misses the box."""
    from voxelworld.collision import _kernels

    rng = np.random.default_rng(8)
    box = np.float32([-2, -1, -3, 4, 2, 5])
    origins = rng.uniform(-6, 8, (400, 3))
    directions = rng.normal(size=(400, 3))
    directions[:50, [0, 2]] = 0.0  # straight up or down
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    limit = np.where(rng.random(400) < 0.3, rng.uniform(0, 6, 400), np.inf)
    middles = np.empty((400, 3))
    _kernels.middle_points(box, origins, directions, limit, middles)
    missed = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        for r in range(400):
            near, far = 0.0, limit[r]
            for axis in range(3):
                o, d, lo, hi = origins[r, axis], directions[r, axis], float(box[axis]), float(box[3 + axis])
                if d == 0.0:
                    if not lo <= o <= hi:
                        near, far = 1.0, 0.0
                    continue
                near, far = max(near, min((lo - o) / d, (hi - o) / d)), min(far, max((lo - o) / d, (hi - o) / d))
            if near <= far:
                np.testing.assert_allclose(middles[r], origins[r] + directions[r] * (near + far) / 2, atol=1e-9)
            else:
                missed += 1
                np.testing.assert_array_equal(middles[r], origins[r])
    assert 50 < missed < 350
