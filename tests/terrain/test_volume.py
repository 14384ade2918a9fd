"""Tests of voxelworld.terrain.volume.VoxelVolume: construction, geometry, dirt, measuring, extract, hashing.

Expected values come from plain numpy / Python computed here from the definitions in the docstrings
(sample of voxel (i, j, k) at ``origin + (i, j, k) * voxel_size``, chunk ``index // chunk_size``, each voxel's
solid share ``density / 255`` split ``1 - mix / 255`` to ``mat_a`` and ``mix / 255`` to ``mat_b``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from voxelworld.errors import ParameterError
from voxelworld.terrain import FIELDS, Box, MaterialTable, Sphere, VoxelVolume

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DTYPES = {"density": np.uint8, "mat_a": np.uint8, "mat_b": np.uint8, "mix": np.uint8, "damage": np.uint16}


def random_fields(volume: VoxelVolume, seed: int, material_ids=None) -> None:
    """Fill every field of ``volume`` with seeded random values (materials from the table's ids)."""
    rng = np.random.default_rng(seed)
    ids = np.array(material_ids if material_ids is not None else [m.id for m in volume.materials])
    volume.density[...] = rng.integers(0, 256, volume.shape)
    volume.mat_a[...] = rng.choice(ids, volume.shape)
    volume.mat_b[...] = rng.choice(ids, volume.shape)
    volume.mix[...] = rng.integers(0, 256, volume.shape)
    volume.damage[...] = rng.integers(0, 65536, volume.shape)


# ------------------------------------------------------------------------------------------ construction


def test_defaults_and_fields():
    volume = VoxelVolume((5, 6, 7))
    assert volume.shape == (5, 6, 7)
    assert volume.voxel_size == 1.0
    np.testing.assert_array_equal(volume.origin, [0.0, 0.0, 0.0])
    assert volume.iso == 128
    assert volume.chunk_size == 32
    assert isinstance(volume.materials, MaterialTable)
    assert "grass" in volume.materials
    for name in FIELDS:
        field = getattr(volume, name)
        assert field.shape == (5, 6, 7), name
        assert field.dtype == DTYPES[name], name
        assert not field.any(), name  # a new volume is empty


def test_fields_are_separate_arrays():
    volume = VoxelVolume((3, 3, 3))
    volume.density[1, 1, 1] = 200
    volume.mat_a[0, 0, 0] = 4
    assert volume.mat_b[1, 1, 1] == 0 and volume.mix[1, 1, 1] == 0 and volume.mat_a[1, 1, 1] == 0
    assert volume.density[0, 0, 0] == 0
    other = VoxelVolume((3, 3, 3))
    assert not other.density.any()


def test_settings_are_kept():
    table = MaterialTable.default()
    volume = VoxelVolume([4, 3, 2], voxel_size=0.25, origin=(1, -2, 3.5), iso=100, chunk_size=2, materials=table)
    assert volume.shape == (4, 3, 2)
    assert volume.voxel_size == 0.25
    np.testing.assert_array_equal(volume.origin, [1.0, -2.0, 3.5])
    assert volume.iso == 100 and volume.chunk_size == 2
    assert volume.materials is table
    assert volume.voxel_volume == pytest.approx(0.25 ** 3)


def test_origin_cannot_be_changed_in_place():
    volume = VoxelVolume((2, 2, 2), origin=(1.0, 2.0, 3.0))
    with pytest.raises(ValueError):
        volume.origin[0] = 5.0
    np.testing.assert_array_equal(volume.origin, [1.0, 2.0, 3.0])


def wrong_shape(volume: VoxelVolume, name: str) -> np.ndarray:
    return np.zeros((3, 3, 3), dtype=DTYPES[name])


def read_only(volume: VoxelVolume, name: str) -> np.ndarray:
    array = np.zeros(volume.shape, dtype=DTYPES[name])
    array.flags.writeable = False
    return array


@pytest.mark.parametrize("name", FIELDS)
@pytest.mark.parametrize("make", [
    wrong_shape,
    lambda volume, name: np.zeros(volume.shape, dtype=np.int64),  # ids past 255 would index past the tables
    lambda volume, name: np.zeros(volume.shape, dtype=np.float32),
    read_only,
    lambda volume, name: np.zeros(volume.shape, dtype=DTYPES[name]).tolist(),
], ids=["shape", "int64", "float32", "read-only", "list"])
def test_a_field_array_of_the_wrong_shape_dtype_or_kind_is_refused(name, make):
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 3.0, (8, 6, 8), "rock")
    before, kept = volume.content_hash(), getattr(volume, name)
    with pytest.raises(ParameterError) as caught:
        setattr(volume, name, make(volume, name))
    assert caught.value.parameter == name
    assert str(volume.shape) in str(caught.value) and np.dtype(DTYPES[name]).name in str(caught.value)
    assert getattr(volume, name) is kept and volume.content_hash() == before
    volume.remove(Sphere((4.0, 3.0, 4.0), 2.0))  # the edits still run on the kept arrays


@pytest.mark.parametrize("name", FIELDS)
def test_a_field_array_of_the_right_shape_and_dtype_replaces_the_field(name):
    volume = VoxelVolume((5, 4, 3))
    array = np.ones(volume.shape, dtype=DTYPES[name])
    setattr(volume, name, array)
    assert getattr(volume, name) is array


def test_a_field_resized_in_place_is_refused_before_a_kernel_reads_it():
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 3.0, (8, 6, 8), "rock")
    volume.density.resize((3, 3, 3), refcheck=False)  # numpy lets an array that owns its data shrink
    ball = Sphere((4.0, 3.0, 4.0), 2.0)
    for call in (lambda: volume.remove(ball), lambda: volume.scrape(ball, 50), lambda: volume.add(ball, "soil"),
                 lambda: volume.paint(ball, "soil"), volume.solid_volume_by_material, volume.remove_fragments):
        with pytest.raises(ParameterError) as caught:
            call()
        assert caught.value.parameter == "density"


@pytest.mark.parametrize("name, value", [("shape", (3, 3, 3)), ("voxel_size", 0.0), ("origin", (0.0, 0.0)),
                                         ("iso", 300), ("chunk_size", 0), ("materials", None)])
def test_the_geometry_is_read_only(name, value):
    volume = VoxelVolume((4, 4, 4), chunk_size=2)
    before = getattr(volume, name)
    with pytest.raises(AttributeError):
        setattr(volume, name, value)
    assert getattr(volume, name) is before


@pytest.mark.parametrize("args, parameter", [(("ball",), "shape"), ((Sphere((1, 1, 1), 1), float("nan")), "reach"),
                                             ((Sphere((1, 1, 1), 1), -1.0), "reach")])
def test_voxel_box_checks_its_arguments(args, parameter):
    with pytest.raises(ParameterError) as caught:
        VoxelVolume((4, 4, 4)).voxel_box(*args)
    assert caught.value.parameter == parameter


def test_origin_is_copied_from_the_callers_array():
    storage = np.array([1.0, 2.0, 3.0, 4.0])
    origin = storage[:3]
    volume = VoxelVolume((2, 2, 2), origin=origin)
    storage[0] = 50.0  # the caller reuses their array
    np.testing.assert_array_equal(volume.origin, [1.0, 2.0, 3.0])
    assert origin.flags.writeable  # and it is still theirs to write


@pytest.mark.parametrize("kwargs, parameter, value_text", [
    (dict(shape=(0, 4, 4)), "shape", "0"),
    (dict(shape=(4, -2, 4)), "shape", "-2"),
    (dict(shape=(4, 4, 2.5)), "shape", "2.5"),
    (dict(shape=(4, 4)), "shape", "(4, 4)"),
    (dict(shape=(4, 4, 4, 4)), "shape", "(4, 4, 4, 4)"),
    (dict(shape="abc"), "shape", "abc"),
    (dict(shape=(4, 4, 4), voxel_size=0), "voxel_size", "0"),
    (dict(shape=(4, 4, 4), voxel_size=-0.5), "voxel_size", "-0.5"),
    (dict(shape=(4, 4, 4), voxel_size=float("nan")), "voxel_size", "nan"),
    (dict(shape=(4, 4, 4), voxel_size=float("inf")), "voxel_size", "inf"),
    (dict(shape=(4, 4, 4), voxel_size="big"), "voxel_size", "big"),
    (dict(shape=(4, 4, 4), origin=(0, 0)), "origin", "(0, 0)"),
    (dict(shape=(4, 4, 4), origin=(0, float("nan"), 0)), "origin", "nan"),
    (dict(shape=(4, 4, 4), origin=(0, 0, float("inf"))), "origin", "inf"),
    (dict(shape=(4, 4, 4), origin="abc"), "origin", "abc"),
    (dict(shape=(4, 4, 4), origin=None), "origin", "None"),
    (dict(shape=(4, 4, 4), iso=0), "iso", "0"),
    (dict(shape=(4, 4, 4), iso=256), "iso", "256"),
    (dict(shape=(4, 4, 4), iso=127.5), "iso", "127.5"),
    (dict(shape=(4, 4, 4), chunk_size=0), "chunk_size", "0"),
    (dict(shape=(4, 4, 4), chunk_size=-8), "chunk_size", "-8"),
    (dict(shape=(4, 4, 4), chunk_size=2.5), "chunk_size", "2.5"),
    (dict(shape=(4, 4, 4), materials={"grass": 1}), "materials", "{'grass': 1}"),
    (dict(shape=(4, 4, 4), materials="default"), "materials", "default"),
])
def test_constructor_rejects_bad_parameters(kwargs, parameter, value_text):
    with pytest.raises(ParameterError) as excinfo:
        VoxelVolume(**kwargs)
    assert excinfo.value.parameter == parameter
    message = str(excinfo.value)
    assert message.startswith(parameter) and value_text in message, message


def test_iso_extremes_are_legal():
    assert VoxelVolume((1, 1, 1), iso=1).iso == 1
    assert VoxelVolume((1, 1, 1), iso=255).iso == 255
    assert VoxelVolume((1, 1, 1), chunk_size=1).chunk_size == 1


# ------------------------------------------------------------------------------------------ geometry

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
origins = st.tuples(finite, finite, finite)
voxel_sizes = st.floats(1e-2, 10.0, allow_nan=False)


@SETTINGS
@given(origin=origins, voxel_size=voxel_sizes,
       points=st.lists(st.tuples(finite, finite, finite), min_size=1, max_size=10))
def test_world_to_index_and_index_to_world_are_inverse(origin, voxel_size, points):
    volume = VoxelVolume((2, 2, 2), voxel_size=voxel_size, origin=origin)
    points = np.array(points)
    indices = volume.world_to_index(points)
    assert indices.shape == points.shape
    np.testing.assert_allclose(indices, (points - np.array(origin)) / voxel_size, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(volume.index_to_world(indices), points, rtol=1e-9, atol=1e-8)
    np.testing.assert_allclose(volume.world_to_index(volume.index_to_world(indices)), indices, rtol=1e-9, atol=1e-7)


@SETTINGS
@given(origin=origins, voxel_size=voxel_sizes, index=st.tuples(*[st.integers(-50, 50)] * 3))
def test_index_to_world_is_origin_plus_index_times_voxel_size(origin, voxel_size, index):
    volume = VoxelVolume((2, 2, 2), voxel_size=voxel_size, origin=origin)
    world = volume.index_to_world(index)
    for axis in range(3):
        assert world[axis] == pytest.approx(origin[axis] + index[axis] * voxel_size, rel=1e-12, abs=1e-9)
    np.testing.assert_allclose(volume.world_to_index(origin), [0, 0, 0], atol=1e-12)


def test_geometry_conversions_keep_leading_shape():
    volume = VoxelVolume((4, 4, 4), voxel_size=0.5, origin=(1, 2, 3))
    grid = np.zeros((2, 5, 3))
    assert volume.world_to_index(grid).shape == (2, 5, 3)
    assert volume.index_to_world(grid).shape == (2, 5, 3)
    np.testing.assert_allclose(volume.index_to_world([[0, 0, 0], [2, 4, 6]]), [[1, 2, 3], [2, 4, 6]])


@SETTINGS
@given(shape=st.tuples(*[st.integers(1, 100)] * 3), chunk_size=st.integers(1, 40))
def test_chunk_grid_shape_counts_partial_chunks(shape, chunk_size):
    volume = VoxelVolume(shape, chunk_size=chunk_size)
    expected = tuple(len(range(0, n, chunk_size)) for n in shape)  # chunk starts along each axis
    assert volume.chunk_grid_shape == expected


def test_chunk_grid_shape_examples():
    assert VoxelVolume((64, 33, 1), chunk_size=32).chunk_grid_shape == (2, 2, 1)
    assert VoxelVolume((31, 32, 96)).chunk_grid_shape == (1, 1, 3)
    assert VoxelVolume((5, 5, 5), chunk_size=1).chunk_grid_shape == (5, 5, 5)


# ------------------------------------------------------------------------------------------ dirt


def test_new_volume_has_no_dirty_chunks():
    volume = VoxelVolume((8, 8, 8), chunk_size=4)
    assert volume.dirty_chunks == frozenset()
    assert volume.take_dirty_chunks() == set()


def test_mark_dirty_take_and_peek():
    volume = VoxelVolume((10, 10, 10), chunk_size=4)
    volume.mark_dirty((3, 0, 5), (4, 1, 9))
    expected = {(x, 0, z) for x in (0, 1) for z in (1, 2)}
    assert volume.dirty_chunks == expected
    assert isinstance(volume.dirty_chunks, frozenset)
    assert volume.dirty_chunks == expected  # peeking does not forget
    volume.mark_dirty((9, 9, 9), (9, 9, 9))  # accumulates
    expected.add((2, 2, 2))
    taken = volume.take_dirty_chunks()
    assert taken == expected
    assert volume.dirty_chunks == frozenset() and volume.take_dirty_chunks() == set()
    taken.add((0, 0, 0))  # the caller's set is theirs
    assert volume.dirty_chunks == frozenset()


def test_marking_the_same_chunk_twice_reports_it_once():
    volume = VoxelVolume((8, 8, 8), chunk_size=4)
    volume.mark_dirty((0, 0, 0), (1, 1, 1))
    volume.mark_dirty((2, 2, 2), (3, 3, 3))
    assert volume.take_dirty_chunks() == {(0, 0, 0)}


@SETTINGS
@given(data=st.data(), shape=st.tuples(*[st.integers(1, 12)] * 3), chunk_size=st.integers(1, 6))
def test_mark_dirty_marks_exactly_the_chunks_of_the_box(data, shape, chunk_size):
    lo = tuple(data.draw(st.integers(0, n - 1)) for n in shape)
    hi = tuple(data.draw(st.integers(a, n - 1)) for a, n in zip(lo, shape))
    volume = VoxelVolume(shape, chunk_size=chunk_size)
    volume.mark_dirty(lo, hi)
    expected = {(i // chunk_size, j // chunk_size, k // chunk_size)
                for i in range(lo[0], hi[0] + 1) for j in range(lo[1], hi[1] + 1) for k in range(lo[2], hi[2] + 1)}
    assert volume.take_dirty_chunks() == expected


@pytest.mark.parametrize("lo, hi, parameter", [
    ((-1, 0, 0), (1, 1, 1), "lo"),
    ((0, 0, 8), (1, 1, 8), "lo"),
    ((0, 0, 0), (1, 8, 1), "hi"),
    ((2, 2, 2), (1, 2, 2), "hi"),
    ((0, 0.5, 0), (1, 1, 1), "lo"),
])
def test_mark_dirty_rejects_bad_boxes_and_changes_nothing(lo, hi, parameter):
    volume = VoxelVolume((8, 8, 8), chunk_size=4)
    volume.mark_dirty((7, 7, 7), (7, 7, 7))
    with pytest.raises(ParameterError) as excinfo:
        volume.mark_dirty(lo, hi)
    assert excinfo.value.parameter == parameter
    assert volume.dirty_chunks == {(1, 1, 1)}


def test_an_edit_marks_the_chunks_it_changed_dirty():
    volume = VoxelVolume((16, 16, 16), chunk_size=8)
    result = volume.add(Sphere((3.0, 3.0, 3.0), 1.5), "rock")
    assert result.voxels_changed > 0
    assert volume.dirty_chunks == result.dirty_chunks == {(0, 0, 0)}
    assert volume.take_dirty_chunks() == {(0, 0, 0)}
    volume.add(Sphere((3.0, 3.0, 3.0), 1.5), "rock")  # nothing left to add: nothing changes
    assert volume.dirty_chunks == frozenset()


# ------------------------------------------------------------------------------------------ measuring


def reference_by_material(volume: VoxelVolume) -> dict[str, float]:
    """Plain-Python split of every voxel's solid volume between its two materials."""
    totals: dict[str, float] = {}
    names = {m.id: m.name for m in volume.materials}
    names[0] = "none"
    for index in itertools.product(*(range(n) for n in volume.shape)):
        solid = int(volume.density[index]) / 255 * volume.voxel_size ** 3
        share_b = int(volume.mix[index]) / 255
        for material, share in ((int(volume.mat_a[index]), 1 - share_b), (int(volume.mat_b[index]), share_b)):
            if solid * share > 0:
                totals[names[material]] = totals.get(names[material], 0.0) + solid * share
    return totals


@pytest.mark.parametrize("seed", range(4))
def test_solid_volume_matches_direct_sum(seed):
    volume = VoxelVolume((6, 5, 4), voxel_size=0.3 + seed * 0.2, origin=(seed, 0, -seed))
    random_fields(volume, seed)
    expected = volume.density.astype(np.float64).sum() / 255.0 * volume.voxel_size ** 3
    assert volume.solid_volume() == pytest.approx(expected, rel=1e-12)


def test_solid_volume_of_full_and_empty_volumes():
    volume = VoxelVolume((4, 5, 6), voxel_size=0.5)
    assert volume.solid_volume() == 0.0
    assert volume.solid_volume_by_material() == {}
    volume.density[...] = 255
    volume.mat_a[...] = volume.materials.id_of("rock")
    assert volume.solid_volume() == pytest.approx(4 * 5 * 6 * 0.125)
    assert volume.solid_volume_by_material() == pytest.approx({"rock": 4 * 5 * 6 * 0.125})


def test_solid_volume_does_not_overflow_on_a_big_full_volume():
    volume = VoxelVolume((64, 64, 64))
    volume.density[...] = 255
    assert volume.solid_volume() == pytest.approx(64 ** 3)


@pytest.mark.parametrize("seed", range(4))
def test_solid_volume_by_material_matches_reference(seed):
    volume = VoxelVolume((5, 4, 6), voxel_size=0.5 + seed * 0.25)
    random_fields(volume, seed + 10)
    got = volume.solid_volume_by_material()
    expected = reference_by_material(volume)
    assert set(got) == set(expected)
    for name in expected:
        assert got[name] == pytest.approx(expected[name], rel=1e-9), name
    assert sum(got.values()) == pytest.approx(volume.solid_volume(), rel=1e-9)


def test_solid_volume_by_material_splits_one_voxel_by_mix():
    volume = VoxelVolume((2, 2, 2), voxel_size=2.0)
    rock, ice = volume.materials.id_of("rock"), volume.materials.id_of("ice")
    volume.density[1, 0, 1] = 102  # 0.4 of the voxel is solid: 3.2 m³
    volume.mat_a[1, 0, 1] = rock
    volume.mat_b[1, 0, 1] = ice
    volume.mix[1, 0, 1] = 51  # a fifth is ice
    got = volume.solid_volume_by_material()
    assert got == pytest.approx({"rock": 3.2 * 0.8, "ice": 3.2 * 0.2})


def test_solid_volume_by_material_leaves_out_materials_without_volume():
    volume = VoxelVolume((3, 3, 3))
    soil, lava, iron = (volume.materials.id_of(n) for n in ("soil", "lava", "iron"))
    volume.density[0, 0, 0] = 255
    volume.mat_a[0, 0, 0] = soil
    volume.mat_b[0, 0, 0] = lava  # mix 0: lava has no share
    volume.mat_a[2, 2, 2] = iron  # density 0: iron has no volume
    volume.density[1, 1, 1] = 255
    volume.mat_a[1, 1, 1] = soil
    volume.mat_b[1, 1, 1] = soil
    volume.mix[1, 1, 1] = 200  # both slots soil: all of it soil
    assert volume.solid_volume_by_material() == pytest.approx({"soil": 2.0})


def test_solid_volume_by_material_keys_follow_a_custom_table():
    from voxelworld.terrain import Material

    table = MaterialTable([Material(7, "cheese", "dairy", 1.0), Material(9, "crust", "dairy", 2.0)])
    volume = VoxelVolume((2, 2, 2), materials=table)
    volume.density[...] = 255
    volume.mat_a[...] = 7
    volume.mat_a[0, 0, 0] = 9
    assert volume.solid_volume_by_material() == pytest.approx({"cheese": 7.0, "crust": 1.0})


# ------------------------------------------------------------------------------------------ extract


def samples_in_box(volume: VoxelVolume, lo, hi) -> tuple[list[int], list[int]]:
    """Index range per axis of the samples whose world position lies in [lo, hi], by enumeration."""
    first, last = [], []
    for axis in range(3):
        inside = [i for i in range(volume.shape[axis])
                  if lo[axis] <= volume.origin[axis] + i * volume.voxel_size <= hi[axis]]
        first.append(inside[0])
        last.append(inside[-1])
    return first, last


@pytest.fixture
def patterned():
    volume = VoxelVolume((9, 7, 8), voxel_size=0.5, origin=(1.5, -2.0, 0.25), iso=100, chunk_size=4)
    random_fields(volume, 42)
    return volume


@pytest.mark.parametrize("box_lo, box_hi", [
    ((2.3, -1.6, -9.0), (3.7, -0.4, 1.6)),  # corners between samples, clipped below in z
    ((2.5, -1.0, 0.75), (3.5, 0.0, 1.75)),  # corners exactly on samples: inclusive
    ((-100, -100, -100), (100, 100, 100)),  # everything
    ((3.0, -2.0, 0.25), (3.0, -2.0, 0.25)),  # one sample
    ((5.4, 0.9, 3.6), (50.0, 50.0, 50.0)),  # the far corner, clipped above
])
def test_extract_copies_the_voxels_whose_samples_lie_in_the_box(patterned, box_lo, box_hi):
    volume = patterned
    first, last = samples_in_box(volume, box_lo, box_hi)
    part = volume.extract(Box(box_lo, box_hi))
    assert part.shape == tuple(b - a + 1 for a, b in zip(first, last))
    np.testing.assert_allclose(part.origin, volume.origin + np.array(first) * volume.voxel_size, atol=1e-12)
    assert part.voxel_size == volume.voxel_size
    assert part.iso == volume.iso and part.chunk_size == volume.chunk_size
    assert part.materials is volume.materials
    window = tuple(slice(a, b + 1) for a, b in zip(first, last))
    for name in FIELDS:
        field = getattr(part, name)
        assert field.dtype == DTYPES[name]
        np.testing.assert_array_equal(field, getattr(volume, name)[window], err_msg=name)


def test_extract_keeps_world_positions(patterned):
    volume = patterned
    part = volume.extract(Box((2.3, -1.6, 0.3), (4.2, 0.6, 2.2)))
    # The same world point names the same voxel in both.
    for local in itertools.product(*(range(n) for n in part.shape)):
        world = part.index_to_world(local)
        parent_index = tuple(int(round(v)) for v in volume.world_to_index(world))
        assert part.density[local] == volume.density[parent_index]


def test_extract_is_an_independent_copy(patterned):
    volume = patterned
    before = volume.content_hash()
    part = volume.extract(Box((2.0, -1.0, 1.0), (4.0, 0.5, 3.0)))
    part_before = part.content_hash()
    for name in FIELDS:
        getattr(part, name)[...] = 7
    assert volume.content_hash() == before
    part = volume.extract(Box((2.0, -1.0, 1.0), (4.0, 0.5, 3.0)))
    for name in FIELDS:
        getattr(volume, name)[...] = 3
    assert part.content_hash() == part_before
    for name in FIELDS:
        assert not np.shares_memory(getattr(part, name), getattr(volume, name))


def test_extract_of_everything_is_identical(patterned):
    part = patterned.extract(Box((-1e3, -1e3, -1e3), (1e3, 1e3, 1e3)))
    assert part.content_hash() == patterned.content_hash()


def test_extract_does_not_mark_the_parent_dirty(patterned):
    patterned.take_dirty_chunks()
    patterned.extract(Box((2.0, -1.0, 1.0), (4.0, 0.5, 3.0)))
    assert patterned.dirty_chunks == frozenset()


@pytest.mark.parametrize("box", [
    Box((100, 100, 100), (101, 101, 101)),  # far away
    Box((-10, -10, -10), (1.4, 10, 10)),  # just short of the first sample in x
    Box((1.6, -2.0, 0.25), (1.9, 1.0, 4.0)),  # between two sample planes in x
    Box((1.5, -2.0, 4.0), (3.0, 1.0, 5.0)),  # past the last sample in z (3.75)
])
def test_extract_of_a_box_without_samples_raises(patterned, box):
    before = patterned.content_hash()
    with pytest.raises(ParameterError) as excinfo:
        patterned.extract(box)
    assert excinfo.value.parameter == "box"
    assert "box" in str(excinfo.value)
    assert patterned.content_hash() == before


def test_extract_needs_a_box(patterned):
    with pytest.raises(ParameterError) as excinfo:
        patterned.extract(Sphere((2, 0, 1), 1.0))
    assert excinfo.value.parameter == "box"
    assert "Sphere" in str(excinfo.value)


# ------------------------------------------------------------------------------------------ content hash


def test_content_hash_is_equal_for_identical_volumes():
    a = VoxelVolume((6, 5, 4), voxel_size=0.5, origin=(1, 2, 3), iso=90, chunk_size=2)
    b = VoxelVolume((6, 5, 4), voxel_size=0.5, origin=(1, 2, 3), iso=90, chunk_size=2)
    random_fields(a, 5)
    random_fields(b, 5)
    assert a.content_hash() == b.content_hash()
    assert len(a.content_hash()) == 64 and int(a.content_hash(), 16) >= 0
    assert a.content_hash() == a.content_hash()


@SETTINGS
@given(field=st.sampled_from(FIELDS), index=st.tuples(st.integers(0, 5), st.integers(0, 4), st.integers(0, 3)),
       delta=st.integers(1, 255))
def test_content_hash_changes_when_any_voxel_field_changes(field, index, delta):
    volume = VoxelVolume((6, 5, 4))
    random_fields(volume, 9)
    before = volume.content_hash()
    array = getattr(volume, field)
    old = int(array[index])
    modulus = 65536 if array.dtype == np.uint16 else 256
    array[index] = (old + delta) % modulus
    assert volume.content_hash() != before
    array[index] = old
    assert volume.content_hash() == before


@pytest.mark.parametrize("change", [
    dict(voxel_size=0.5), dict(origin=(0, 0, 1)), dict(iso=127), dict(chunk_size=16),
])
def test_content_hash_covers_the_settings(change):
    settings_ = dict(shape=(4, 4, 4), voxel_size=1.0, origin=(0, 0, 0), iso=128, chunk_size=32)
    assert VoxelVolume(**{**settings_, **change}).content_hash() != VoxelVolume(**settings_).content_hash()


def test_content_hash_covers_the_shape():
    # Same number of voxels, all zero: the field bytes are identical, only the shape differs.
    assert VoxelVolume((2, 4, 8)).content_hash() != VoxelVolume((4, 4, 4)).content_hash()


def test_repr_names_the_settings():
    text = repr(VoxelVolume((3, 4, 5), voxel_size=0.5, origin=(1, 2, 3), iso=64, chunk_size=8))
    for part in ("(3, 4, 5)", "0.5", "64", "8"):
        assert part in text


def test_voxel_volume_is_cube_of_voxel_size():
    for size in (0.1, 0.5, 2.0):
        assert VoxelVolume((1, 1, 1), voxel_size=size).voxel_volume == pytest.approx(math.pow(size, 3))


def test_mark_dirty_needs_three_indices_per_corner():
    volume = VoxelVolume((8, 8, 8), chunk_size=4)
    with pytest.raises(ParameterError) as caught:
        volume.mark_dirty((0, 0), (1, 1))
    assert caught.value.parameter == "lo" and not volume.dirty_chunks


def test_generators_refuse_the_none_material():
    with pytest.raises(ParameterError) as caught:
        VoxelVolume.from_sdf(lambda x, y, z: y - 2.0, (4, 4, 4), material="none")
    assert caught.value.parameter == "material"


def test_an_error_inside_the_users_sdf_function_is_not_disguised():
    def broken(x, y, z):
        raise ValueError("my bug")

    with pytest.raises(ValueError, match="my bug"):
        VoxelVolume.from_sdf(broken, (4, 4, 4), material="soil")
