"""remove_fragments: small floating pieces are erased, by the rules of their material."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.terrain import Box, VoxelVolume

from . import reference


def put(volume: VoxelVolume, corner, size, material: str) -> None:
    """A solid cube of ``size`` voxels per edge at index ``corner``."""
    window = tuple(slice(c, c + size) for c in corner)
    volume.density[window] = 255
    volume.mat_a[window] = volume.materials.id_of(material)


def test_erases_hundreds_of_small_fragments_in_one_call():
    volume = VoxelVolume((64, 64, 64))
    corners = [(i, j, k) for i in range(2, 60, 4) for j in range(2, 60, 4) for k in range(2, 60, 8)]
    for n, corner in enumerate(corners):
        put(volume, corner, 1 + n % 2, "soil")  # 1 voxel (erased) or 8 (soil's minimum: kept)
    small = sum(1 for n in range(len(corners)) if n % 2 == 0)
    assert small > 300
    result = volume.remove_fragments()
    assert result.fragments_erased == small
    assert int((volume.density >= volume.iso).sum()) == 8 * (len(corners) - small)
    assert result.removed_by_material == pytest.approx({"soil": small * volume.voxel_volume})


def test_keeps_components_on_the_region_border_and_those_big_enough():
    volume = VoxelVolume((32, 32, 32))
    put(volume, (0, 10, 10), 1, "soil")  # on the volume's (and region's) border
    put(volume, (10, 10, 10), 2, "soil")  # 8 voxels: soil's minimum is 8, so kept
    put(volume, (20, 20, 20), 1, "soil")  # erased
    put(volume, (5, 25, 5), 1, "soil")  # inside the volume but on the border of the region below
    result = volume.remove_fragments(Box((5.0, 5.0, 5.0), (25.0, 25.0, 25.0)))
    assert result.fragments_erased == 1
    assert volume.density[0, 10, 10] == 255 and volume.density[10, 10, 10] == 255
    assert volume.density[20, 20, 20] == 0 and volume.density[5, 25, 5] == 255


def test_honours_per_material_minimum_sizes():
    volume = VoxelVolume((40, 40, 40))
    table = volume.materials
    assert table.min_fragment_size_by_id[table.id_of("rock")] == 27
    assert table.min_fragment_size_by_id[table.id_of("iron")] == 1
    put(volume, (4, 4, 4), 3, "rock")  # 27 voxels: kept
    put(volume, (12, 4, 4), 2, "rock")  # 8 < 27: erased
    put(volume, (20, 4, 4), 2, "soil")  # 8, not < 8: kept
    put(volume, (28, 4, 4), 1, "iron")  # 1, not < 1: kept
    put(volume, (4, 20, 4), 1, "soil")  # erased
    result = volume.remove_fragments()
    assert result.fragments_erased == 2
    assert volume.density[4, 4, 4] == 255 and volume.density[12, 4, 4] == 0
    assert volume.density[20, 4, 4] == 255 and volume.density[28, 4, 4] == 255 and volume.density[4, 20, 4] == 0
    assert result.removed_by_material == pytest.approx({"rock": 8.0, "soil": 1.0})


def test_a_mixed_fragment_counts_as_its_highest_priority_material():
    volume = VoxelVolume((16, 16, 16))
    table = volume.materials
    put(volume, (5, 5, 5), 2, "rock")  # 8 voxels: as rock (min 27) it would go
    volume.mat_a[5, 5, 5] = table.id_of("iron")  # iron's priority beats rock's, and iron's minimum is 1
    assert table.fragment_priority_by_id[table.id_of("iron")] > table.fragment_priority_by_id[table.id_of("rock")]
    assert volume.remove_fragments().fragments_erased == 0


def test_erases_the_below_iso_fringe_of_a_fragment_but_not_of_kept_solid():
    volume = VoxelVolume((16, 16, 16))
    put(volume, (5, 5, 5), 1, "soil")
    volume.density[4:7, 4:7, 4:7] = np.maximum(volume.density[4:7, 4:7, 4:7], 60)
    put(volume, (10, 10, 10), 2, "soil")
    volume.density[9, 10, 10] = 60
    result = volume.remove_fragments()
    assert result.fragments_erased == 1
    assert not volume.density[3:8, 3:8, 3:8].any()
    assert volume.density[9, 10, 10] == 60
    assert result.volume_removed == pytest.approx((255 + 26 * 60) / 255)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 100_000), region=st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(6, 11)))
def test_matches_plain_python_reference(seed, region):
    rng = np.random.default_rng(seed)
    volume = VoxelVolume((12, 12, 12), voxel_size=0.5, chunk_size=4)
    ids = [volume.materials.id_of(n) for n in ("grass", "soil", "rock", "iron", "lava")]
    volume.density[...] = rng.choice([0, 0, 0, 60, 128, 255], size=volume.shape, p=[.3, .2, .1, .1, .1, .2])
    volume.mat_a[...] = rng.choice(ids, size=volume.shape)
    volume.mat_b[...] = rng.choice(ids, size=volume.shape)
    volume.mix[...] = rng.choice([0, 200], size=volume.shape)
    lo, hi = np.array([region[0], region[1], 0]), np.array([region[2], region[2], 11])
    expected = reference.remove_fragments(volume, lo, hi)
    volume.remove_fragments(Box(tuple(lo * 0.5), tuple(hi * 0.5)))
    np.testing.assert_array_equal(volume.density, expected)


def test_a_region_outside_the_volume_does_nothing():
    volume = VoxelVolume((8, 8, 8))
    put(volume, (3, 3, 3), 1, "soil")
    result = volume.remove_fragments(Box((100, 100, 100), (110, 110, 110)))
    assert result.fragments_erased == 0 and volume.density[3, 3, 3] == 255
