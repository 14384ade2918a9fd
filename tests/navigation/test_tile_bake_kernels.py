"""The kernels a tile's bake runs (column hits, samples, corner verdicts, erosion near edges, links found again in a
window, islands), each against a plain-Python or NumPy reference on small inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from voxelworld.navigation._kernels.columns import bin_triangles, column_hits, triangle_boxes, vertical_hits
from voxelworld.navigation._kernels.samples import (
    DIRECTIONS,
    eroded_heights,
    island_heights,
    island_labels,
    window_links,
)
from voxelworld.navigation._kernels.surfaces import column_samples, corners_failing
from voxelworld.navigation.rays import column_surfaces
from voxelworld.navigation.sampling import MAX_LEVELS, level_links

from .test_bake_kernels import random_samples, random_soup

SEEDS = range(10)
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))  # +x, -x, +z, -z


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal arrays, NaN where NaN, bit for bit."""
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def random_hits(seed: int, columns: int = 30):
    """Hits of ``columns`` rays, top down, often at the same heights, with proxies and area types."""
    rng = np.random.default_rng(seed)
    parts = []
    for r in range(columns):
        n = int(rng.integers(0, 7))
        height = np.sort(rng.integers(0, 8, n) * 0.7)[::-1]
        up = rng.choice([-1.0, 1.0, 0.0, 0.6, 0.9], n, p=[0.35, 0.35, 0.1, 0.1, 0.1])
        parts.append((np.full(n, r), height, up, rng.random(n) < 0.15, rng.integers(0, 3, n)))
    return tuple(np.concatenate(p).astype(d) for p, d in zip(zip(*parts), (np.int64, float, float, bool, np.int64)))


def reference_column_samples(ray, height, up, excluded, area, columns, slope, clearance, cut_obstacles):
    """walkable_samples as NumPy wrote it before the kernel."""
    cut = np.zeros(columns, dtype=bool)
    if cut_obstacles:
        cut[ray[excluded]] = True
    ray, height, up, _, ceiling, enclosure, kind = column_surfaces(ray, height, up, excluded, area)
    standable = (up >= slope) & (ceiling - height >= clearance) & ~cut[ray]
    facing_up = np.cumsum(up > 0)
    last = np.r_[np.flatnonzero(ray[1:] != ray[:-1]), len(ray) - 1] if len(ray) else np.empty(0, dtype=np.int64)
    run_end = np.repeat(last, np.diff(np.r_[-1, last]))
    below = facing_up[run_end] - facing_up if len(ray) else np.empty(0, dtype=np.int64)
    chosen = np.flatnonzero(standable)
    rays, rank = ray[chosen], below[chosen]
    keep = rank < MAX_LEVELS
    rays, rank, chosen = rays[keep], rank[keep], chosen[keep]
    used = min(max(int(rank.max()) + 1 if len(rank) else 1, 1), MAX_LEVELS)
    out, room = np.full((columns, used), np.nan), np.full((columns, used), np.nan)
    inside, kinds = np.full((columns, used), -1, dtype=np.int64), np.zeros((columns, used), dtype=np.int64)
    out[rays, rank], room[rays, rank] = height[chosen], ceiling[chosen]
    inside[rays, rank], kinds[rays, rank] = enclosure[chosen], kind[chosen]
    return out, room, inside, kinds


@pytest.mark.parametrize("seed", SEEDS)
def test_column_samples_are_the_numpy_steps(seed):
    ray, height, up, excluded, area = random_hits(seed)
    for cut_obstacles in (False, True):
        for clearance in (0.0, 1.0, 2.0):
            got = column_samples(ray, height, up, excluded, area, 32, 0.7, clearance, cut_obstacles, MAX_LEVELS)
            expected = reference_column_samples(ray, height, up, excluded, area, 32, 0.7, clearance, cut_obstacles)
            assert all(same(g, e) for g, e in zip(got, expected))
    none = column_samples(ray[:0], height[:0], up[:0], excluded[:0], area[:0], 5, 0.7, 1.0, True, MAX_LEVELS)
    assert none[0].shape == (5, 1) and np.isnan(none[0]).all() and (none[2] == -1).all()


@pytest.mark.parametrize("seed", SEEDS)
def test_corners_failing_is_the_numpy_verdict(seed):
    ray, height, up, excluded, _ = random_hits(seed, 25)
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 8, 25) * 0.7 + rng.choice([0.0, 0.2], 25)
    top, inside = y + rng.choice([1.5, 3.0, np.inf], 25), rng.integers(0, 2, 25)
    for cut_obstacles in (False, True):
        got = corners_failing(ray, height, up, excluded, y, top, inside, 0.3, 1.2, cut_obstacles)
        r, h, u, e, ceiling, enclosure, _ = column_surfaces(ray, height, up, excluded)
        holds = ((u > 0) & (np.abs(h - y[r]) <= 0.3) & (np.minimum(top[r], ceiling) - np.maximum(y[r], h) >= 1.2)
                 & (enclosure == inside[r]))
        expected = np.bincount(r[holds], minlength=25) == 0
        if cut_obstacles:
            expected |= np.bincount(r[e], minlength=25) > 0
        assert got.tolist() == expected.tolist()


@pytest.mark.parametrize("seed", SEEDS)
def test_column_hits_are_vertical_hits_with_the_triangles_facts(seed):
    positions, indices = random_soup(seed)
    boxes, _, up = triangle_boxes(positions, indices)
    rng = np.random.default_rng(seed)
    proxy, area = rng.random(len(indices)) < 0.3, rng.integers(0, 4, len(indices))
    gx0, gz0, cell, i0, k0, nx, nz = -0.3, 0.1, 0.5, 2, 1, 7, 5  # a block of a grid: columns [2, 9) x [1, 6)
    x0, z0 = gx0 + i0 * cell, gz0 + k0 * cell
    start, members = bin_triangles(boxes, x0, z0, cell, nx, nz)
    i, k = np.meshgrid(np.arange(i0, i0 + nx), np.arange(k0, k0 + nz), indexing="ij")
    x, z = gx0 + (i.ravel() + 0.5) * cell, gz0 + (k.ravel() + 0.5) * cell
    top, bottom = 3.0, -1.2
    ray, distance, triangle = vertical_hits(positions, indices, start, members, x0, z0, cell, nx, nz, x, z, top,
                                            top - bottom)
    for landing in (False, True):
        got = column_hits(positions, indices, start, members, nx, nz, gx0, gz0, cell, i0, k0, top, top - bottom,
                          bottom, up, proxy, area, landing)
        rows = [(r, top - d, up[t], proxy[t], area[t]) for r, d, t in zip(ray, distance, triangle)]
        if landing:  # a ray that met nothing lands on the bottom, facing up
            rows += [(r, bottom, 1.0, False, 0) for r in sorted(set(range(nx * nz)) - set(ray.tolist()))]
            rows.sort(key=lambda row: row[0])  # stable: each ray's hits keep their order
        assert [tuple(column[n] for column in got) for n in range(len(got[0]))] == rows
        assert got[1].dtype == np.float64 and got[3].dtype == np.bool_ and got[4].dtype == np.int64


def reference_relaxation(start, links, rounds):
    """erosion_distance step for step in plain Python over every sample: per round, the 4 straight directions
    (+1) and then the 4 diagonals (+sqrt 2, two links away), each reading the values of the step before."""
    old = start.copy()
    nx, nz, levels = start.shape
    for _ in range(rounds):
        for step in range(8):
            d1 = step if step < 4 else (0 if step < 6 else 1)
            d2 = 2 if step % 2 == 0 else 3
            new = old.copy()
            for i in range(nx):
                for k in range(nz):
                    for s in range(levels):
                        via, t = math.inf, links[d1, i, k, s]
                        ni, nk = i + STEPS[d1][0], k + STEPS[d1][1]
                        if t >= 0 and step < 4:
                            via = old[ni, nk, t] + 1.0
                        elif t >= 0 and (u := links[d2, ni, nk, t]) >= 0:
                            via = old[ni + STEPS[d2][0], nk + STEPS[d2][1], u] + math.sqrt(2.0)
                        new[i, k, s] = min(via, old[i, k, s])
            old = new
    return old


@pytest.mark.parametrize("seed", SEEDS)
def test_eroded_heights_keep_what_relaxing_every_sample_keeps(seed):
    rng = np.random.default_rng(seed)
    height = random_samples(seed, (14, 13, 2))[0]
    height[rng.random(height.shape) < 0.5] = 0.8  # large flat stretches: samples far from any edge
    height[3:11, 3:10, 0] = 0.4
    links = level_links(height, 0.45)
    walk = ~np.isnan(height)
    start = np.where(walk & np.any(links < 0, axis=0), 0.5, np.where(walk, np.inf, 0.0))
    for rounds in (1, 3, 6):
        distance = reference_relaxation(start, links, rounds)
        for radius in (0.5, 1.3, 2.2, 3.0, 4.7):
            out = np.empty(height.shape)
            eroded_heights(height, links, DIRECTIONS, rounds, radius, out)
            assert same(out, np.where(walk & (distance >= radius), height, np.nan)), (rounds, radius)


@pytest.mark.parametrize("seed", SEEDS)
def test_window_links_are_the_links_of_the_window(seed):
    rng = np.random.default_rng(seed)
    before, ceiling, enclosure = random_samples(seed, (12, 11, 3))
    before_links = level_links(before, 0.45, ceiling, 2.0, enclosure)
    i0, k0, i1, k1 = 2, 1, 10, 11
    height = before[i0:i1, k0:k1].copy()
    height[rng.random(height.shape) < 0.2] = np.nan  # samples dropped since
    window = (slice(i0, i1), slice(k0, k1))
    links = np.full((4,) + height.shape, 99, dtype=np.int64)
    window_links(height, ceiling[window], enclosure[window], 0.45, 2.0, DIRECTIONS, before, before_links, i0, k0,
                 links)
    assert np.array_equal(links, level_links(height, 0.45, ceiling[window], 2.0, enclosure[window]))


@pytest.mark.parametrize("seed", SEEDS)
def test_island_heights_drop_the_small_islands(seed):
    height, ceiling, enclosure = random_samples(seed, (10, 9, 2))
    links = level_links(height, 0.45, ceiling, 2.0, enclosure)
    labels = np.empty(height.shape, dtype=np.int64)
    count = island_labels(height, links, labels)
    for min_area in (0.0, 0.1, 0.25, 1.0):
        out = np.empty(height.shape)
        island_heights(height, links, 0.05, min_area, out)
        size = np.bincount(labels[labels >= 0], minlength=count)
        kept = (labels >= 0) & (size[np.maximum(labels, 0)] * 0.05 >= min_area)
        assert same(out, np.where(kept, height, np.nan)), min_area
