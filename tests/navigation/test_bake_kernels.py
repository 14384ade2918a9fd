"""The baker's compiled kernels against plain-Python statements of the same rules, on small random input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from voxelworld.collision import TriangleBVH
from voxelworld.collision._kernels import ray_triangle
from voxelworld.navigation._kernels.columns import bin_triangles, triangle_boxes, vertical_hits
from voxelworld.navigation._kernels.samples import DIRECTIONS, corner_probes, eroded_heights
from voxelworld.navigation._kernels.surfaces import SAME_HEIGHT
from voxelworld.navigation.rays import column_surfaces
from voxelworld.navigation.sampling import level_links

STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))  # +x, -x, +z, -z
SEEDS = range(12)


def random_samples(seed: int, shape=(6, 5, 3)):
    """Heights on a few steps (so that some neighbours are within reach and some are not), with holes."""
    rng = np.random.default_rng(seed)
    height = rng.integers(0, 6, shape) * 0.4
    height[rng.random(shape) < 0.25] = np.nan
    ceiling = height + rng.choice([1.5, 2.5, np.inf], shape)
    enclosure = np.where(np.isnan(height), -1, rng.integers(0, 2, shape))
    return height, ceiling, enclosure


def reference_links(height, step_limit, ceiling, clearance, enclosure):
    nx, nz, levels = height.shape
    links = np.full((4, nx, nz, levels), -1)
    for d, (dx, dz) in enumerate(STEPS):
        for i in range(nx):
            for k in range(nz):
                for s in range(levels):
                    ni, nk = i + dx, k + dz
                    if math.isnan(height[i, k, s]) or not (0 <= ni < nx and 0 <= nk < nz):
                        continue
                    fits = [t for t in range(levels) if not math.isnan(height[ni, nk, t])
                            and enclosure[ni, nk, t] == enclosure[i, k, s]
                            and min(ceiling[i, k, s], ceiling[ni, nk, t])
                            - max(height[i, k, s], height[ni, nk, t]) >= clearance]
                    if fits:
                        best = min(fits, key=lambda t: (abs(height[ni, nk, t] - height[i, k, s]), t))
                        if abs(height[ni, nk, best] - height[i, k, s]) <= step_limit:
                            links[d, i, k, s] = best
    return links


@pytest.mark.parametrize("seed", SEEDS)
def test_links(seed):
    height, ceiling, enclosure = random_samples(seed)
    expected = reference_links(height, 0.45, ceiling, 2.0, enclosure)
    assert np.array_equal(level_links(height, 0.45, ceiling, 2.0, enclosure), expected)
    plain = reference_links(height, 0.45, np.full(height.shape, np.inf), 0.0, np.zeros(height.shape, int))
    assert np.array_equal(level_links(height, 0.45), plain)


def reference_edge_distance(walk, links):
    """Shortest distance from a sample to the edge along its links: 0.5 at a sample missing one, 1 per step,
    sqrt(2) per step along x then z; relaxed until nothing changes."""
    distance = {}
    for p in zip(*np.nonzero(walk)):
        distance[p] = 0.5 if any(links[(d,) + p] < 0 for d in range(4)) else math.inf

    def neighbour(p, d):
        t = links[(d,) + p]
        return None if t < 0 else (p[0] + STEPS[d][0], p[1] + STEPS[d][1], int(t))

    changed = True
    while changed:
        changed = False
        for p in distance:
            options = [distance[q] + 1.0 for d in range(4) if (q := neighbour(p, d)) is not None]
            for d1, d2 in ((0, 2), (0, 3), (1, 2), (1, 3)):
                q = neighbour(p, d1)
                r = neighbour(q, d2) if q is not None else None
                if r is not None:
                    options.append(distance[r] + math.sqrt(2.0))
            best = min(options + [distance[p]])
            if best < distance[p] - 1e-12:
                distance[p], changed = best, True
    out = np.zeros(walk.shape)
    for p, value in distance.items():
        out[p] = value
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_edge_distance(seed):
    height, ceiling, enclosure = random_samples(seed, (9, 8, 2))
    links = level_links(height, 0.45, ceiling, 2.0, enclosure)
    walk = ~np.isnan(height)
    expected = reference_edge_distance(walk, links)
    for radius in (0.5, 1.3, 2.2, 3.7, 5.1):  # relaxed long enough, erosion keeps the samples this far from the edge
        out = np.empty(height.shape)
        eroded_heights(height, links, DIRECTIONS, 40, radius, out)
        assert np.array_equal(~np.isnan(out), walk & (expected >= radius)), radius


def reference_enclosure(up, height):
    """Per hit of one ray (top down): the solids it lies in, a solid being a surface facing up paired like
    brackets with a surface facing down below it, strictly above and below the hit."""
    open_, pairs = [], []
    for h, u in enumerate(up):
        if u > 0:
            open_.append(h)
        elif u < 0 and open_:
            pairs.append((open_.pop(), h))
    return [sum(1 for e, x in pairs if height[e] > height[h] + SAME_HEIGHT and height[x] < height[h]
                - SAME_HEIGHT) for h in range(len(up))]


@pytest.mark.parametrize("seed", SEEDS)
def test_surfaces_and_enclosure(seed):
    rng = np.random.default_rng(seed)
    rays = []
    for r in range(20):
        n = int(rng.integers(0, 7))
        height = np.sort(rng.integers(0, 5, n) * 0.5)[::-1]  # top down, often on the same heights
        up = rng.choice([-1.0, 1.0, 0.0], n, p=[0.45, 0.45, 0.1])
        excluded = rng.random(n) < 0.2
        rays.append((np.full(n, r), height, up, excluded))
    ray, height, up, excluded = (np.concatenate(parts) for parts in zip(*rays))
    got = column_surfaces(ray, height, up, excluded)
    expected = []
    for r, h, u, e in rays:  # per ray: one surface per (height, facing), facing down first at a height
        for value in sorted(set(h.tolist()), reverse=True):
            for facing in (-1.0, 0.0, 1.0):
                at = (h == value) & (np.sign(u) == facing)
                if at.any():
                    expected.append((int(r[0]), value, facing, bool(e[at].any())))
    assert list(zip(got[0].tolist(), got[1].tolist(), np.sign(got[2]).tolist(), got[3].tolist())) == expected
    ceiling, enclosure = got[4], got[5]
    for r in range(20):
        mine = got[0] == r
        assert enclosure[mine].tolist() == reference_enclosure(got[2][mine], got[1][mine])
        if mine.any():  # each surface's ceiling is the one above it on its ray
            assert ceiling[mine].tolist() == [math.inf] + got[1][mine][:-1].tolist()


@pytest.mark.parametrize("seed", SEEDS)
def test_corner_probes(seed):
    height, ceiling, enclosure = random_samples(seed)
    links = level_links(height, 0.45, ceiling, 2.0, enclosure)
    walk = ~np.isnan(height)
    rows = np.empty((walk.size * 4, 4), dtype=np.int64)
    count = corner_probes(height, links, DIRECTIONS, 0, 0, *walk.shape[:2], rows)
    probe = np.zeros(walk.shape + (4,), dtype=bool)
    probe[tuple(rows[:count].T)] = True
    assert rows[:count].tolist() == sorted(rows[:count].tolist())  # in (i, k, s, c) order, once each
    assert len(set(map(tuple, rows[:count].tolist()))) == count
    for i, k, s in zip(*np.nonzero(walk)):
        for c, (dx, dz) in enumerate(((0, 2), (1, 2), (0, 3), (1, 3))):
            a, b = links[dx, i, k, s], links[dz, i, k, s]
            near = a < 0 or b < 0
            if not near:  # the neighbours across the two sides meeting at the corner are linked across
                near = (links[dz, i + STEPS[dx][0], k + STEPS[dx][1], a] < 0
                        or links[dx, i + STEPS[dz][0], k + STEPS[dz][1], b] < 0)
            assert probe[i, k, s, c] == near
    assert not probe[~walk].any()


def random_soup(seed: int, count: int = 40):
    """Triangles over a 4 m x 3 m block: small and large, flat, sloped and upright, some sharing edges and some
    with corners on cell lines (so rays pass exactly through edges and corners)."""
    rng = np.random.default_rng(seed)
    corners = rng.uniform([-1, -2, -1], [5, 2, 4], (count, 3, 3))
    corners[: count // 4] = np.round(corners[: count // 4] * 2) / 2  # on the 0.5 m grid of the cells
    corners[count // 4: count // 2, :, 0] = corners[count // 4: count // 2, :1, 0]  # upright (x constant)
    shared = corners[count // 2: count // 2 + 5].copy()
    partner = corners[count // 2 + 5: count // 2 + 10]
    shared[:, 0], shared[:, 1] = partner[:, 1], partner[:, 0]
    corners[count // 2: count // 2 + 5] = shared  # each shares an edge with a triangle 5 further on
    return corners.reshape(-1, 3), np.arange(3 * count).reshape(-1, 3)


@pytest.mark.parametrize("seed", SEEDS)
def test_vertical_hits_meet_every_triangle_the_ray_triangle_test_accepts(seed):
    positions, indices = random_soup(seed)
    corners = positions[indices]
    boxes = np.column_stack([corners[..., 0].min(1), corners[..., 0].max(1), corners[..., 2].min(1),
                             corners[..., 2].max(1)])
    x0, z0, cell, nx, nz = 0.0, 0.0, 0.5, 8, 6
    start, members = bin_triangles(boxes, x0, z0, cell, nx, nz)
    for c in range(nx * nz):  # each cell lists, ascending, every triangle whose box overlaps it
        i, k = divmod(c, nz)
        overlaps = [t for t in range(len(boxes)) if boxes[t, 0] <= (i + 1) * cell and boxes[t, 1] >= i * cell
                    and boxes[t, 2] <= (k + 1) * cell and boxes[t, 3] >= k * cell]
        assert set(overlaps) <= set(members[start[c]:start[c + 1]].tolist())
        assert members[start[c]:start[c + 1]].tolist() == sorted(members[start[c]:start[c + 1]].tolist())
    rng = np.random.default_rng(seed)
    grid = np.arange(0.25, 4.0, 0.5)  # cell centres, and points on cell lines and corners
    x = np.concatenate([rng.uniform(0, 4, 200), np.repeat(grid, 6), np.repeat(np.arange(0.5, 4.0, 0.5), 6)])
    z = np.concatenate([rng.uniform(0, 3, 200), np.tile(np.arange(0.25, 3.0, 0.5), 8),
                        np.tile(np.arange(0.0, 3.0, 0.5), 7)])
    ray, distance, triangle = vertical_hits(positions, indices, start, members, x0, z0, cell, nx, nz, x, z, 3.0, 4.5)
    # Reference: every triangle tested against every ray, sorted by ray, distance, triangle.
    expected = sorted((r, d, t) for r in range(len(x)) for t in range(len(indices))
                      if (d := ray_triangle(positions, indices, t, x[r], 3.0, z[r], 0.0, -1.0, 0.0)) <= 4.5)
    assert list(zip(ray.tolist(), distance.tolist(), triangle.tolist())) == expected
    # A BVH meets the same triangles, except where a ray runs exactly along a face of one of its boxes (a
    # triangle's corner right under the ray), where its box test may drop the triangle.
    bvh = TriangleBVH(positions, indices).raycast_all(np.column_stack([x, np.full(len(x), 3.0), z]), [0.0, -1.0, 0.0],
                                                      max_distance=4.5)
    assert set(zip(bvh.ray.tolist(), bvh.triangle.tolist())) <= set(zip(ray.tolist(), triangle.tolist()))


@pytest.mark.parametrize("seed", SEEDS)
def test_triangle_boxes_and_up_components_match_numpy_and_a_bvh(seed):
    positions, indices = random_soup(seed)
    indices[0] = [0, 0, 1]  # degenerate: no normal, up 0
    boxes, whole, up = triangle_boxes(positions, indices)
    corners = positions[indices]
    expected = np.column_stack([corners[..., 0].min(1), corners[..., 0].max(1), corners[..., 2].min(1),
                                corners[..., 2].max(1)])
    assert np.array_equal(boxes, expected)
    assert whole.tolist() == [expected[:, 0].min(), expected[:, 1].max(), expected[:, 2].min(), expected[:, 3].max()]
    assert np.array_equal(up, TriangleBVH(positions, indices).normals[:, 1]) and up[0] == 0.0
