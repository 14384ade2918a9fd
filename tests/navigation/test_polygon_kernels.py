"""The navigation kernels against plain-Python references on small inputs: links between levels, islands,
rectangles of linked cells, portals along the grid's lines."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from voxelworld.navigation._kernels.polygons import tile_rectangles
from voxelworld.navigation._kernels.samples import DIRECTIONS, eroded_heights, island_labels
from voxelworld.navigation.polygons import portals_of_sides, side_portals, side_steps
from voxelworld.navigation.sampling import level_links

STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def random_samples(seed: int, nx=7, nz=6, levels=3) -> np.ndarray:
    """Heights on a few levels: terraces 0.3 m apart with holes, some columns with a second or third level."""
    rng = np.random.default_rng(seed)
    height = np.sort(rng.integers(0, 8, (nx, nz, levels)) * 0.3 + rng.choice([0.0, 0.01], (nx, nz, levels)), -1)
    height[rng.random((nx, nz, levels)) < 0.3] = np.nan
    return np.sort(height, -1)  # NaNs last, as the baker stores them


def links_reference(height, step_limit):
    nx, nz, levels = height.shape
    links = np.full((4, nx, nz, levels), -1)
    for d, (dx, dz) in enumerate(STEPS):
        for i, k, s in itertools.product(range(nx), range(nz), range(levels)):
            if np.isnan(height[i, k, s]) or not (0 <= i + dx < nx and 0 <= k + dz < nz):
                continue
            gaps = [abs(height[i, k, s] - height[i + dx, k + dz, t]) for t in range(levels)]
            gaps = [g if not np.isnan(g) else np.inf for g in gaps]
            best = min(range(levels), key=lambda t: (gaps[t], t))
            if gaps[best] <= step_limit:
                links[d, i, k, s] = best
    return links


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), step_limit=st.sampled_from([0.0, 0.3, 0.35, 0.9]))
def test_level_links_match_the_reference(seed, step_limit):
    height = random_samples(seed)
    assert np.array_equal(level_links(height, step_limit), links_reference(height, step_limit))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), step_limit=st.sampled_from([0.0, 0.3, 0.9]))
def test_island_labels_match_scipy(seed, step_limit):
    height = random_samples(seed)
    links = level_links(height, step_limit)
    labels = np.empty(height.shape, dtype=np.int64)
    count = island_labels(height, links, labels)
    # Reference: scipy's components over the same +x / +z links, numbered by first sample in C order.
    index = np.arange(height.size).reshape(height.shape)
    rows, cols = [], []
    for d, (dx, dz) in ((0, (1, 0)), (2, (0, 1))):
        for i, k, s in zip(*np.nonzero(~np.isnan(height) & (links[d] >= 0))):
            t = links[d, i, k, s]
            if not np.isnan(height[i + dx, k + dz, t]):
                rows.append(index[i, k, s])
                cols.append(index[i + dx, k + dz, t])
    _, raw = connected_components(coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(height.size,) * 2),
                                  directed=False)
    expected, names = np.full(height.size, -1), {}
    for a in np.flatnonzero(~np.isnan(height.ravel())):
        expected[a] = names.setdefault(raw[a], len(names))
    assert count == len(names)
    assert np.array_equal(labels.ravel(), expected)


def rectangles_reference(height, links, i_lo, k_lo, i_hi, k_hi):
    """The greedy cover as the kernel documents it, written plainly."""
    out = []
    for s in range(height.shape[2]):
        free = {(i, k) for i in range(i_lo, i_hi) for k in range(k_lo, k_hi) if not np.isnan(height[i, k, s])}
        for i in range(i_lo, i_hi):
            for k in range(k_lo, k_hi):
                if (i, k) not in free:
                    continue
                k1 = k + 1
                while k1 < k_hi and (i, k1) in free and links[2, i, k1 - 1, s] == s:
                    k1 += 1
                i1 = i + 1
                while (i1 < i_hi and all((i1, kk) in free and links[0, i1 - 1, kk, s] == s for kk in range(k, k1))
                       and all(links[2, i1, kk, s] == s for kk in range(k, k1 - 1))):
                    i1 += 1
                free -= {(a, b) for a in range(i, i1) for b in range(k, k1)}
                out.append((s, i, k, i1, k1))
    return out


def sloped_samples(seed):
    """Planes, ramps and steps with holes, on two levels."""
    rng = np.random.default_rng(seed)
    i, k = np.meshgrid(np.arange(9), np.arange(8), indexing="ij")
    ground = 0.1 * i * rng.integers(0, 3) + 0.05 * k * rng.integers(0, 2) + 0.4 * (i >= rng.integers(3, 9))
    ground = ground + rng.choice([0.0, 0.03], ground.shape, p=[0.8, 0.2])
    upper = np.where(rng.random(ground.shape) < 0.4, 2.5 + 0.02 * k, np.nan)
    height = np.stack([ground, upper], axis=-1)
    height[rng.random(height.shape) < 0.1] = np.nan
    return np.sort(height, -1)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), step_limit=st.sampled_from([0.0, 0.35, 0.45]),
       tile=st.sampled_from([(0, 0, 9, 8), (2, 1, 7, 8), (0, 3, 4, 5)]))
def test_tile_rectangles_match_the_reference(seed, step_limit, tile):
    height = sloped_samples(seed)
    links = level_links(height, step_limit)
    rects = np.empty((200, 5), dtype=np.int64)
    n = tile_rectangles(height, links, *tile, rects)
    assert [tuple(r) for r in rects[:n].tolist()] == rectangles_reference(height, links, *tile)
    # Every walkable cell of the tile is covered once; none outside it.
    cover = np.zeros(height.shape, dtype=int)
    for s, i0, k0, i1, k1 in rects[:n]:
        cover[i0:i1, k0:k1, s] += 1
    i_lo, k_lo, i_hi, k_hi = tile
    inside = np.zeros(height.shape, dtype=bool)
    inside[i_lo:i_hi, k_lo:k_hi] = True
    assert np.array_equal(cover, (inside & ~np.isnan(height)).astype(int))


def test_a_ramp_is_one_rectangle_and_a_step_too_high_splits_it():
    i, k = np.meshgrid(np.arange(6), np.arange(5), indexing="ij")
    ramp = (0.15 * i + 0.05 * k)[..., None].astype(np.float64)
    rects = np.empty((30, 5), dtype=np.int64)
    assert tile_rectangles(ramp, level_links(ramp, 0.3), 0, 0, 6, 5, rects) == 1
    ramp[3:, :, 0] += 0.5
    assert tile_rectangles(ramp, level_links(ramp, 0.3), 0, 0, 6, 5, rects) == 2


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_side_portals_match_brute_force(seed):
    """Random owners of the samples' sides: a portal for every +x / +z side whose sample steps to one whose
    facing side another polygon holds, runs of one pair along a line joined; a side listed twice is the later
    row's."""
    height = sloped_samples(seed)
    links = level_links(height, 0.45)
    rng = np.random.default_rng(seed)
    owner = rng.integers(-1, 4, (4,) + height.shape).astype(np.int32)
    d, i, k, s = np.nonzero(owner >= 0)
    sides = np.column_stack([owner[d, i, k, s], d, i, k, s])
    twice = sides[rng.permutation(len(sides))[:len(sides) // 4]]  # listed again, first with another polygon
    sides = np.concatenate([np.column_stack([twice[:, 0] + 7, twice[:, 1:]]), sides[rng.permutation(len(sides))]])
    out = side_portals(sides, links)
    count = len(out)
    assert side_portals(sides[:0], links).shape == (0, 6)  # no sides held: no portals
    got = Counter()
    for a, b, axis, line, first, last in out.tolist():
        for t in range(first, last):
            got[(axis, line, t, a, b)] += 1
    expected = Counter()
    nx, nz, levels = height.shape
    for axis, (dx, dz) in ((0, (1, 0)), (2, (0, 1))):
        for i, k, s in itertools.product(range(nx), range(nz), range(levels)):
            t = links[axis, i, k, s]
            if i + dx >= nx or k + dz >= nz or t < 0 or owner[axis, i, k, s] < 0:
                continue
            a, b = int(owner[axis, i, k, s]), int(owner[axis + 1, i + dx, k + dz, t])
            if b >= 0 and b != a:
                expected[(axis, i + 1, k, a, b) if axis == 0 else (axis, k + 1, i, a, b)] += 1
    assert got == expected
    # Runs: two neighbouring sides of one line with the same pair are one portal.
    rows = out
    for p in range(1, count):
        if rows[p, 2] == rows[p - 1, 2] and rows[p, 3] == rows[p - 1, 3] and rows[p, 4] == rows[p - 1, 5]:
            assert tuple(rows[p, :2]) != tuple(rows[p - 1, :2])


@pytest.mark.parametrize("step_limit", [0.0, 0.5])
def test_links_pick_the_nearest_level_within_reach(step_limit):
    height = np.full((3, 3, 2), np.nan)
    height[:, :, 0] = 0.0
    height[1, 1, 1] = 0.4
    links = level_links(height, step_limit)
    assert links[0, 0, 1, 0] == 0  # the floor steps to the floor, never to the higher sample
    assert links[0, 0, 1, 1] == -1
    assert links[1, 1, 1, 1] == (0 if step_limit >= 0.4 else -1)


def erosion_reference(distance, links, rounds):
    """The relaxation as array operations: each update reads the whole grid as the previous one left it."""
    nx, nz, _ = distance.shape

    def through(value, d):
        dx, dz = STEPS[d]
        shifted = np.full_like(value, np.inf)
        shifted[max(-dx, 0):nx + min(-dx, 0), max(-dz, 0):nz + min(-dz, 0)] = \
            value[max(dx, 0):nx + min(dx, 0), max(dz, 0):nz + min(dz, 0)]
        return np.where(links[d] >= 0, np.take_along_axis(shifted, np.maximum(links[d], 0), -1), np.inf)

    for _ in range(rounds):
        for d in range(4):
            distance = np.minimum(distance, through(distance, d) + 1.0)
        for d1, d2 in ((0, 2), (0, 3), (1, 2), (1, 3)):
            distance = np.minimum(distance, through(through(distance, d2), d1) + np.sqrt(2.0))
    return distance


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), rounds=st.integers(1, 4), radius=st.sampled_from([0.5, 1.0, 1.3, 2.2, 3.0, 4.7]))
def test_eroded_heights_keep_what_the_reference_relaxation_keeps(seed, rounds, radius):
    height = random_samples(seed, nx=9, nz=8)
    links = level_links(height, 0.35)
    walk = ~np.isnan(height)
    start = np.where(walk & np.any(links < 0, axis=0), 0.5, np.where(walk, np.inf, 0.0))
    out = np.empty(height.shape)
    eroded_heights(height, links, DIRECTIONS, rounds, radius, out)
    expected = np.where(walk & (erosion_reference(start, links, rounds) >= radius), height, np.nan)
    assert out.tobytes() == expected.tobytes()


def test_shared_sides_pair_by_their_two_regions_not_only_their_points():
    from voxelworld.navigation._kernels.cutting import shared_portals

    # Regions 0|1 (a floor) and 2|3 (a bridge over it) each share a side from (4, 0) to (4, 6): the same points.
    # Met in the order 0, 2, 1, 3 (region 1's side wound the other way), each pairs with its own neighbour.
    a = np.array([[4, 0], [4, 0], [4, 6], [4, 0]])
    b = np.array([[4, 6], [4, 6], [4, 0], [4, 6]])
    rows = np.column_stack([[0, 2, 0, 2], [1, 3, 1, 3], [10, 20, 11, 21], a, b]).astype(np.int64)
    pairs, ends = shared_portals(rows)
    assert sorted(map(tuple, pairs.tolist())) == [(10, 11), (20, 21)]
    assert ends[pairs[:, 0] == 10].tolist() == [[[4, 6], [4, 0]]]  # as the second polygon holds it


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_grid_portals_match_the_numpy_steps_row_for_row(seed):
    """The kernel gives the rows the numpy steps gave, in the same order (the navmesh's portal order follows)."""
    height = sloped_samples(seed)
    links = level_links(height, 0.45)
    rng = np.random.default_rng(seed)
    owner = rng.integers(-1, 3, (4,) + height.shape)
    d, i, k, s = np.nonzero(owner >= 0)
    sides = np.column_stack([owner[d, i, k, s], d, i, k, s])
    twice = sides[rng.permutation(len(sides))[:len(sides) // 4]]
    sides = np.concatenate([np.column_stack([twice[:, 0] + 5, twice[:, 1:]]), sides[rng.permutation(len(sides))]])
    nx, nz, levels = height.shape
    steps = side_steps(sides, links, nx, nz)
    got = portals_of_sides(sides, steps, nx, nz, levels)
    expected = portals_of_sides_numpy(sides, steps, nx, nz, levels)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)
    assert portals_of_sides(sides[:0], steps[:0], nx, nz, levels).shape == (0, 6)


def portals_of_sides_numpy(sides: np.ndarray, steps: np.ndarray, nx: int, nz: int, levels: int) -> np.ndarray:
    """The portals of side_portals in numpy steps (before the grid_portals kernel): the reference."""
    polygon, d, i, k, s = (np.ascontiguousarray(sides[:, c], dtype=np.int64) for c in range(5))
    key = ((d * nx + i) * nz + k) * levels + s
    order = np.argsort(key, kind="stable")
    later = np.ones(len(key), dtype=bool)
    later[:-1] = key[order][1:] != key[order][:-1]
    last = order[later]  # the later row of a side listed twice
    key, polygon, step = key[last], polygon[last], np.asarray(steps, dtype=np.int64)[last]  # by key
    d, i, k, s = d[last], i[last], k[last], s[last]
    ni, nk = i + (d == 0), k + (d == 2)
    steps = step >= 0
    a, d, i, k, ni, nk = polygon[steps], d[steps], i[steps], k[steps], ni[steps], nk[steps]
    t = step[steps]
    wanted = (((d + 1) * nx + ni) * nz + nk) * levels + t
    at = np.minimum(np.searchsorted(key, wanted), len(key) - 1)
    b = np.where(key[at] == wanted, polygon[at], -1) if len(key) else np.empty(0, np.int64)
    mine = (b >= 0) & (b != a)
    a, b, d, i, k, t = a[mine], b[mine], d[mine], i[mine], k[mine], s[steps][mine]
    axis = np.where(d == 0, 0, 2)
    line, along = np.where(d == 0, i, k), np.where(d == 0, k, i)
    order = np.lexsort((along, line, t, axis))
    a, b, axis, level, line, along = a[order], b[order], axis[order], t[order], line[order], along[order]
    same_run = np.zeros(len(a), dtype=bool)  # continues the run of the row before (none for the first)
    same_run[1:] = (a[1:] == a[:-1]) & (b[1:] == b[:-1]) & (axis[1:] == axis[:-1]) & (level[1:] == level[:-1]) \
        & (line[1:] == line[:-1]) & (along[1:] == along[:-1] + 1)
    starts = np.flatnonzero(~same_run)
    stops = np.append(starts[1:], len(a))[:len(starts)] - 1
    return np.column_stack([a[starts], b[starts], axis[starts], line[starts] + 1, along[starts],
                            along[stops] + 1]).astype(np.int64).reshape(-1, 6)
