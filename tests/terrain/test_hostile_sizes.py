"""Hostile sizes and geometry (issue 30, items 2, 5 and 7): an absurd shape or chunk size is refused in constant time,
naming what to change; a voxel size or origin that would make a coordinate overflow is refused when the volume is
made, never by an edit's raw OverflowError; a field array must be C-contiguous. Calls that could hang run in a child
process with a time limit (tests/terrain/child.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.terrain import (
    Box,
    GeneratorSettings,
    SparseVolume,
    Sphere,
    VoxelVolume,
    base,
    chunk_boxes,
    generate_chunks,
)
from voxelworld.terrain.base import (
    MAX_AXIS_VOXELS,
    MAX_CHUNKS,
    MAX_COORDINATE,
    MAX_VOXEL_SIZE,
    MIN_VOXEL_SIZE,
    check_volume_size,
)

from ..child import refusal

TERRAIN = "from voxelworld.terrain import SparseVolume, VoxelVolume, GeneratorSettings"


# ------------------------------------------------------------------------------------- item 2: sizes
def test_a_sparse_volume_of_a_million_million_voxels_a_side_is_refused_at_once():
    outcome = refusal("SparseVolume((10**12,) * 3)", TERRAIN)
    assert outcome["raised"] == "ParameterError" and outcome["parameter"] == "shape"
    assert f"MAX_AXIS_VOXELS = {MAX_AXIS_VOXELS}" in outcome["message"]


def test_too_many_chunks_of_a_long_volume_names_the_smallest_chunk_size_at_once():
    # 2**30 voxels a side fit MAX_AXIS_VOXELS; chunks of one voxel are 2**90 chunks; 2**23 voxels make 128³.
    outcome = refusal("SparseVolume((2**30,) * 3, chunk_size=1)", TERRAIN)
    assert outcome["parameter"] == "chunk_size"
    assert f">= {2**23} for shape" in outcome["message"]
    assert SparseVolume((2**30,) * 3, chunk_size=2**23).chunk_grid_shape == (128, 128, 128)


@pytest.mark.parametrize("shape", [(600, 600, 600), (1000, 7, 3), (40, 1, 1), (5, 9, 13), (100, 1, 100)])
def test_the_chunk_size_named_is_the_smallest_that_fits(monkeypatch, shape):
    monkeypatch.setattr(base, "MAX_CHUNKS", 30)
    with pytest.raises(ParameterError) as caught:
        check_volume_size(shape, 1, dense=False)
    smallest = next(c for c in range(1, max(shape) + 1) if math.prod(-(-n // c) for n in shape) <= 30)
    assert caught.value.parameter == "chunk_size"
    assert f">= {smallest} for shape" in str(caught.value)
    check_volume_size(shape, smallest, dense=False)


@pytest.mark.parametrize("chunk_size", [MAX_AXIS_VOXELS + 1, 2**70])
def test_a_chunk_edge_longer_than_any_axis_can_be_is_refused(chunk_size):
    with pytest.raises(ParameterError) as caught:
        SparseVolume((4, 4, 4), chunk_size=chunk_size)
    assert caught.value.parameter == "chunk_size" and "MAX_AXIS_VOXELS" in str(caught.value)
    assert SparseVolume((4, 4, 4), chunk_size=MAX_AXIS_VOXELS).chunk_grid_shape == (1, 1, 1)


def test_a_world_of_voxels_a_nanometre_wide_is_refused_naming_the_voxel_size():
    outcome = refusal("GeneratorSettings(size=64.0, voxel_size=1e-9)", TERRAIN)
    assert outcome["parameter"] == "voxel_size"
    assert f"[{MIN_VOXEL_SIZE}, 4.0]" in outcome["message"]


def test_a_world_of_too_many_chunks_names_the_smallest_voxel_size_that_fits():
    with pytest.raises(ParameterError) as caught:
        GeneratorSettings(size=64.0, voxel_size=1e-5)
    assert caught.value.parameter == "voxel_size"
    smallest = float(caught.value.legal.split("[")[1].split(",")[0])

    def chunks(voxel_size):  # chunks of 32 voxels of a world of 64 x 128 x 64 m
        return math.ceil(64.0 / voxel_size / 32) ** 2 * math.ceil(128.0 / voxel_size / 32)

    assert chunks(smallest * 1.000001) <= MAX_CHUNKS < chunks(smallest * 0.999)
    assert GeneratorSettings(size=64.0, voxel_size=0.02).shape == (3200, 6400, 3200)  # the next whole one


@pytest.mark.parametrize(("settings", "parameter"), [({"size": 1e308}, "size"), ({"size": 1e9}, "size"),
                                                     ({"height": 1e12, "ground_level": 48.0}, "height"),
                                                     ({"height": 1e308}, "height")])
def test_a_world_too_large_for_any_voxel_size_names_its_extent(settings, parameter):
    with pytest.raises(ParameterError) as caught:
        GeneratorSettings(**{"voxel_size": 4.0, **settings})
    assert caught.value.parameter == parameter


def test_the_chunks_of_a_world_are_listed_only_when_they_are_few_enough(monkeypatch):
    settings = GeneratorSettings(size=64.0, height=32.0, voxel_size=1.0, ground_level=16.0)  # 64 x 32 x 64
    monkeypatch.setattr(base, "MAX_CHUNKS", 32)
    assert len(chunk_boxes(settings, 16)) == 32
    for listing in (lambda: chunk_boxes(settings, 8), lambda: next(generate_chunks(settings, 8))):
        with pytest.raises(ParameterError, match=">= 16 for shape"):
            listing()


# --------------------------------------------------------------------------- item 5: voxel size, origin
@pytest.mark.parametrize("kind", [VoxelVolume, SparseVolume])
@pytest.mark.parametrize(("geometry", "parameter"), [
    ({"voxel_size": 1e308}, "voxel_size"), ({"voxel_size": MAX_VOXEL_SIZE * 1.01}, "voxel_size"),
    ({"voxel_size": 1e-300}, "voxel_size"), ({"voxel_size": MIN_VOXEL_SIZE * 0.99}, "voxel_size"),
    ({"origin": (1e308, 0.0, 0.0)}, "origin"), ({"origin": (0.0, -MAX_COORDINATE * 1.01, 0.0)}, "origin"),
    ({"origin": (0.0, 0.0, math.inf)}, "origin"),
    ({"origin": (MAX_COORDINATE - 1e6, 0.0, 0.0), "voxel_size": 1e6}, "voxel_size"),  # its far corner is beyond
])
def test_a_geometry_whose_coordinates_could_overflow_is_refused(kind, geometry, parameter):
    with pytest.raises(ParameterError) as caught:
        kind((4, 4, 4), **geometry)
    assert caught.value.parameter == parameter


def test_the_largest_voxels_at_the_edge_of_the_world_edit_and_measure_finitely():
    corner = MAX_COORDINATE - 4 * MAX_VOXEL_SIZE
    for origin in ((corner, corner, corner), (-MAX_COORDINATE, -MAX_COORDINATE, -MAX_COORDINATE)):
        volume = VoxelVolume((4, 4, 4), voxel_size=MAX_VOXEL_SIZE, origin=origin)
        centre = tuple(volume.index_to_world((2, 2, 2)))
        result = volume.add(Sphere(centre, 1.5 * MAX_VOXEL_SIZE), "soil")
        assert result.voxels_changed > 0 and 0.0 < result.added_by_material["soil"] < math.inf
        assert 0.0 < volume.solid_volume() < math.inf
        assert np.all(np.isfinite(volume.index_to_world(volume.shape)))
        removed = volume.remove(Sphere(centre, MAX_VOXEL_SIZE))
        assert 0.0 < removed.volume_removed < math.inf


def test_the_smallest_voxels_edit_and_measure_finitely():
    volume = VoxelVolume((8, 8, 8), voxel_size=MIN_VOXEL_SIZE, origin=(-1.0, 0.0, 1.0))
    centre = tuple(volume.index_to_world((4, 4, 4)))
    assert volume.add(Sphere(centre, 2 * MIN_VOXEL_SIZE), "rock").voxels_changed > 0
    assert 0.0 < volume.solid_volume() < math.inf


# ------------------------------------------------------------------------------------- item 7: field arrays
def strided(shape, strides):
    return np.lib.stride_tricks.as_strided(np.zeros(64, np.uint8), shape, strides, writeable=True)


@pytest.mark.parametrize("view", [
    lambda: np.zeros((8, 8, 8), np.uint8).T,  # the volume's shape, F order
    lambda: np.zeros((8, 8, 8), np.uint8).transpose(1, 0, 2),
    lambda: strided((8, 8, 8), (0, 0, 0)),  # one byte for every voxel
    lambda: strided((8, 8, 8), (8, 0, 1)),  # every row of x the same
    lambda: np.zeros((8, 16, 8), np.uint8)[:, ::2, :],
])
def test_a_transposed_strided_or_zero_stride_view_is_refused_as_a_field(view):
    volume = VoxelVolume((8, 8, 8))
    kept = volume.density
    with pytest.raises(ParameterError) as caught:
        volume.density = view()
    assert caught.value.parameter == "density" and "C-contiguous" in caught.value.legal
    assert volume.density is kept


def test_a_contiguous_array_is_taken_as_it_is_and_written_in_place():
    volume = VoxelVolume((8, 8, 8))
    mine = np.zeros((8, 8, 8), np.uint8)
    volume.density = mine
    volume.mat_a = np.zeros((8, 8, 8), np.uint8)
    volume.add(Sphere((4.0, 4.0, 4.0), 2.0), "rock")
    assert volume.density is mine and mine[4, 4, 4] == 255


@pytest.mark.parametrize("voxel_size", [0.3, 0.7, 1 / 3, 123.456])
def test_a_part_of_a_volume_at_the_limit_is_within_it_too(voxel_size):
    # The part's origin and far corner are computed again in floating point: a rounding up must not refuse them.
    far = MAX_COORDINATE - 7 * voxel_size
    volume = VoxelVolume((7, 7, 7), voxel_size=voxel_size, origin=(far, far, far))
    for lo in range(7):
        first, last = volume.index_to_world((lo, lo, lo)), volume.index_to_world((6, 6, 6))
        part = volume.extract(Box(tuple(first - voxel_size / 100), tuple(last + voxel_size / 100)))
        assert part.shape == (7 - lo,) * 3
