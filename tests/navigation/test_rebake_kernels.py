"""What a re-bake uses to redo only part of a region, against plain-Python statements of the same rules on small
random input: links over a block of columns, small islands brought up to date after a block changed, and the
size of the smallest island kept."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.navigation import NavSettings
from voxelworld.navigation._kernels.samples import DIRECTIONS, level_links, refresh_islands, relink
from voxelworld.navigation.rebake import smallest_island
from voxelworld.navigation.sampling import Samples, erode, erosion_reach

from .test_bake_kernels import random_samples, reference_links

STEP_LIMIT, CLEARANCE = 0.45, 2.0


def reference_final(height, ceiling, enclosure, smallest):
    """``height`` without the islands (samples joined by +x and +z links, either way) of fewer than ``smallest``
    samples, by a plain breadth-first search."""
    links = reference_links(height, STEP_LIMIT, ceiling, CLEARANCE, enclosure)
    nx, nz, levels = height.shape
    neighbours = {}
    for i, k, s in zip(*np.nonzero(~np.isnan(height))):
        neighbours.setdefault((i, k, s), [])
        for d, (dx, dz) in ((0, (1, 0)), (2, (0, 1))):
            t = links[d, i, k, s]
            if t >= 0:
                neighbours.setdefault((i + dx, k + dz, t), []).append((i, k, s))
                neighbours[(i, k, s)].append((i + dx, k + dz, t))
    final, seen = np.full(height.shape, np.nan), set()
    for start in neighbours:
        if start in seen:
            continue
        island, todo = [start], [start]
        seen.add(start)
        while todo:
            for other in neighbours[todo.pop()]:
                if other not in seen:
                    seen.add(other)
                    island.append(other)
                    todo.append(other)
        if len(island) >= smallest:
            for sample in island:
                final[sample] = height[sample]
    return final


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), smallest=st.sampled_from([0, 1, 2, 3, 5, 9, 400]),
       block=st.tuples(st.integers(0, 8), st.integers(0, 7), st.integers(1, 4), st.integers(1, 4)))
def test_refresh_islands_gives_what_dropping_small_islands_anew_gives(seed, smallest, block):
    shape = (9, 8, 3)
    height, ceiling, enclosure = random_samples(seed, shape)
    old_final = reference_final(height, ceiling, enclosure, smallest)
    # The samples of a block of columns change; everything else stays.
    i0, k0 = block[:2]
    i1, k1 = min(i0 + block[2], shape[0]), min(k0 + block[3], shape[1])
    new_height, new_ceiling, new_enclosure = random_samples(seed + 1, shape)
    for old, new in ((height, new_height), (ceiling, new_ceiling), (enclosure, new_enclosure)):
        old[i0:i1, k0:k1] = new[i0:i1, k0:k1]
    expected = reference_final(height, ceiling, enclosure, smallest)
    final, changed = old_final.copy(), np.zeros(shape[:2], dtype=bool)
    around = [(max(i0 - r, 0), max(k0 - r, 0), min(i1 + r, shape[0]), min(k1 + r, shape[1]))
              for r in (1, 1 + smallest)]
    refresh_islands(height, ceiling, enclosure.astype(np.int64), STEP_LIMIT, CLEARANCE,
                    np.array(around, dtype=np.int64), smallest, final, changed)
    assert np.array_equal(final, expected, equal_nan=True)
    differs = (final != old_final) & ~(np.isnan(final) & np.isnan(old_final))
    assert np.array_equal(changed, differs.any(axis=2))


def test_level_links_over_a_block_leave_the_other_columns_alone():
    height, ceiling, enclosure = random_samples(3, (7, 6, 3))
    enclosure = enclosure.astype(np.int64)
    links = np.full((4,) + height.shape, -7, dtype=np.int64)
    level_links(height, ceiling, enclosure, STEP_LIMIT, CLEARANCE, DIRECTIONS, 2, 1, 5, 4, links)
    expected = reference_links(height, STEP_LIMIT, ceiling, CLEARANCE, enclosure)
    assert np.array_equal(links[:, 2:5, 1:4], expected[:, 2:5, 1:4])
    links[:, 2:5, 1:4] = -7
    assert np.all(links == -7)


@pytest.mark.parametrize("seed", range(6))
def test_relink_updates_the_block_and_flags_the_columns_whose_links_changed(seed):
    height, ceiling, enclosure = random_samples(seed, (7, 6, 3))
    enclosure = enclosure.astype(np.int64)
    links = reference_links(height, STEP_LIMIT, ceiling, CLEARANCE, enclosure)
    before = links.copy()
    other = random_samples(seed + 50, (7, 6, 3))[0]
    height[3, 2], height[5, 4] = other[3, 2], other[5, 4]
    expected = reference_links(height, STEP_LIMIT, ceiling, CLEARANCE, enclosure)
    changed = np.zeros((7, 6), dtype=bool)
    # The block holds the two columns that changed and the one around them: no link outside it can change.
    relink(height, ceiling, enclosure, STEP_LIMIT, CLEARANCE, DIRECTIONS, 2, 1, 7, 6, links, changed)
    assert np.array_equal(links, expected)
    assert np.array_equal(changed, np.any(expected != before, axis=(0, 3)))


@pytest.mark.parametrize("ray_density, area", [(11.1, 1.0), (4.0, 12.0), (4.0, 0.0), (11.1, 5.76), (9.0, 1.0),
                                              (3.0, 1e300)])
def test_smallest_island_is_the_first_size_drop_small_islands_keeps(ray_density, area):
    settings_ = NavSettings(ray_density=ray_density, min_region_area=area)
    n = smallest_island(settings_, 10_000)
    counts = np.arange(10_002)
    kept = ~(counts * settings_.cell_size ** 2 < settings_.min_region_area)  # as drop_small_islands compares
    assert n == (int(np.argmax(kept)) if kept.any() else 10_001)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), radius=st.sampled_from([0.2, 0.5, 0.75, 1.3, 2.4]),
       block=st.tuples(st.integers(0, 29), st.integers(0, 29), st.integers(1, 8), st.integers(1, 8)))
def test_erosion_over_a_window_reaching_erosion_reach_judges_its_middle_as_the_whole_grid(seed, radius, block):
    rng = np.random.default_rng(seed)
    shape = (30, 30, 2)
    # Terraces with holes and walls, so that the edge is near everywhere and far in places.
    height = np.sort(rng.integers(0, 3, shape) * 0.3 + np.array([0.0, 2.5]), axis=-1)
    height[rng.random(shape) < 0.12] = np.nan
    height[4:26, 4:26, 0] = np.where(rng.random((22, 22)) < 0.01, np.nan, 0.3)  # a wide floor, a few holes
    samples = Samples(0.0, 0.0, 0.5, height, np.full(shape, np.inf), np.zeros(shape, dtype=np.int64))
    settings_ = NavSettings(ray_density=4, agent_radius=radius, step_limit=0.35, clearance=1.0)
    whole = erode(samples, settings_)
    i0, k0 = block[:2]
    i1, k1 = min(i0 + block[2], shape[0]), min(k0 + block[3], shape[1])
    reach = erosion_reach(settings_)
    wi0, wk0, wi1, wk1 = max(i0 - reach, 0), max(k0 - reach, 0), min(i1 + reach, shape[0]), min(k1 + reach, shape[1])
    part = erode(samples.window(wi0, wk0, wi1, wk1), settings_)
    assert np.array_equal(part[i0 - wi0:i1 - wi0, k0 - wk0:k1 - wk0], whole[i0:i1, k0:k1], equal_nan=True)
