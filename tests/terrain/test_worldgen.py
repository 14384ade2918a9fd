"""Tests of the world generator (voxelworld.terrain.worldgen).

The noise and the surface are checked against the plain-Python references of ``worldgen_reference``; density and
strata of a cave-free, ore-free block against the documented rules computed here per voxel; caves, iron, lava and
chunk uniformity on generated areas; piecewise generation against whole generation, bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.meshing import MeshOptions, mesh_volume
from voxelworld.terrain import FIELDS, MaterialTable
from voxelworld.terrain import _worldgen_kernels as kernels
from voxelworld.terrain.worldgen import (
    WORLD_MATERIALS,
    GeneratorSettings,
    chunk_boxes,
    generate_block,
    generate_blocks,
    generate_chunks,
    generate_volume,
)

from . import worldgen_reference as ref

TABLE = MaterialTable.default()
ID = {name: TABLE.id_of(name) for name in WORLD_MATERIALS}
RAMP = 127.5


def keys_of(seed: int) -> list[int]:
    return [kernels.noise_key(seed, field) for field in range(kernels.KEY_COUNT)]


def top_solid(density: np.ndarray, iso: int = 128) -> np.ndarray:
    """Index of the highest solid voxel of each column (x, z); -1 where none is."""
    solid = density >= iso
    ny = density.shape[1]
    top = ny - 1 - np.argmax(solid[:, ::-1, :], axis=1)
    return np.where(solid.any(axis=1), top, -1)


def surface_heights(volume) -> np.ndarray:
    """World height (m) where each column's density crosses iso above its highest solid voxel (linear between
    the two samples), the surface the mesher draws."""
    top = top_solid(volume.density, volume.iso)
    ii, kk = np.indices(top.shape)
    below = volume.density[ii, top, kk].astype(np.float64)
    above = volume.density[ii, np.minimum(top + 1, volume.shape[1] - 1), kk].astype(np.float64)
    return (top + (below - volume.iso) / np.maximum(below - above, 1.0)) * volume.voxel_size


@pytest.fixture(scope="module")
def area():
    """A 128 m x 128 m x 128 m world of 0.5 m voxels, with more cliffs than the default."""
    return generate_volume(GeneratorSettings(size=128.0, seed=3, cliff_strength=1.0, cave_density=0.7))


# ----------------------------------------------------------------------------------------------- noise
def test_noise_matches_the_python_reference_bit_for_bit():
    rng = np.random.default_rng(1)
    points = np.concatenate([rng.uniform(-300.0, 300.0, (60, 3)), rng.uniform(-1e6, 1e6, (20, 3)),
                             np.array([[0.0, 0.0, 0.0], [-0.5, 2.0, -3.25], [1e-9, -1e-9, 7.0]])])
    for key in (keys_of(0)[0], keys_of(12345)[7], kernels.noise_key(2 ** 63 - 1, 3)):
        for x, y, z in points:
            assert kernels.noise2(np.uint64(key), x, z) == ref.noise2(key, float(x), float(z))
            assert kernels.noise3(np.uint64(key), x, y, z) == ref.noise3(key, float(x), float(y), float(z))
    assert kernels.hash3(np.uint64(keys_of(3)[1]), -5, 7, -2 ** 40) == ref.hash3(keys_of(3)[1], -5, 7, -2 ** 40)


def test_noise_is_zero_on_the_lattice_bounded_continuous_and_seeded():
    key, other = np.uint64(keys_of(0)[11]), np.uint64(keys_of(1)[11])
    assert kernels.noise3(key, 3.0, -2.0, 5.0) == 0.0 and kernels.noise2(key, -4.0, 9.0) == 0.0
    xs = np.linspace(-20.0, 20.0, 4001)
    values = np.array([kernels.noise3(key, x, 0.3 * x + 0.1, 1.7) for x in xs])
    assert np.abs(values).max() <= 1.1 and values.std() > 0.1
    assert np.abs(np.diff(values)).max() < 0.05  # steps of 0.01 lattice units: no jumps
    assert not np.array_equal(values, [kernels.noise3(other, x, 0.3 * x + 0.1, 1.7) for x in xs])


def test_surface_height_matches_the_python_reference():
    settings = GeneratorSettings(size=64.0, seed=9, cliff_strength=1.0)
    params, keys = settings._params(), settings._keys()
    for x, z in np.random.default_rng(2).uniform(-50.0, 500.0, (200, 2)):
        assert kernels.surface_height(params, keys, x, z) == ref.surface_height(settings, keys_of(9), x, z)


# --------------------------------------------------------------------------------------- determinism
def test_the_same_seed_gives_the_same_bytes_and_another_seed_another_world():
    box = ((40, 60, 300), (48, 80, 40))
    first = generate_block(GeneratorSettings(seed=11), *box)
    again = generate_block(GeneratorSettings(seed=11), *box)
    other = generate_block(GeneratorSettings(seed=12), *box)
    for name in FIELDS:
        assert first[name].tobytes() == again[name].tobytes()
    assert first["density"].tobytes() != other["density"].tobytes()
    assert (first["mat_b"] == 0).all() and (first["mix"] == 0).all() and (first["damage"] == 0).all()


def cave_box(settings: GeneratorSettings) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """A box of ``settings``'s world that holds the surface, a cave and an iron vein (searched chunk by chunk)."""
    for (lo, shape), fields in generate_blocks(settings, chunk_boxes(settings, 32)):
        air_below = (fields["density"] == 0) & (np.arange(lo[1], lo[1] + shape[1])[None, :, None] * 0.5 < 20.0)
        if air_below.any() and (fields["mat_a"] == ID["iron"]).any():
            return (lo[0] - 9, 0, lo[2] - 6), (45, 150, 37)
    raise AssertionError("no chunk with a cave and iron")


def test_a_box_generated_in_pieces_of_odd_sizes_equals_it_generated_whole():
    settings = GeneratorSettings(size=128.0, seed=3, cave_density=0.8, iron_density=0.8)
    lo, shape = cave_box(settings)
    whole = generate_block(settings, lo, shape)
    assert (whole["density"] == 0).any() and (whole["density"] == 255).any()
    assert ((whole["density"] > 0) & (whole["density"] < 255)).any()
    pieces = {name: np.full(shape, 77, dtype=whole[name].dtype) for name in FIELDS}
    cuts = [(0, 7, 20, 33, 45), (0, 13, 14, 61, 100, 150), (0, 5, 16, 37)]
    boxes = [((lo[0] + a, lo[1] + b, lo[2] + c), (a2 - a, b2 - b, c2 - c))
             for a, a2 in zip(cuts[0], cuts[0][1:]) for b, b2 in zip(cuts[1], cuts[1][1:])
             for c, c2 in zip(cuts[2], cuts[2][1:])]
    for (corner, size), fields in generate_blocks(settings, boxes, workers=2):
        window = tuple(slice(c - o, c - o + n) for c, o, n in zip(corner, lo, size))
        for name in FIELDS:
            pieces[name][window] = fields[name]
    for name in FIELDS:
        assert pieces[name].tobytes() == whole[name].tobytes(), name


def test_results_do_not_depend_on_the_threads_and_come_in_order():
    settings = GeneratorSettings(size=64.0, seed=4)
    boxes = chunk_boxes(settings, 32)[::-1]
    one = list(generate_blocks(settings, boxes, workers=1))
    two = list(generate_blocks(settings, boxes, workers=2))
    assert [box for box, _ in one] == [box for box, _ in two] == boxes
    for (_, a), (_, b) in zip(one, two):
        assert all(a[name].tobytes() == b[name].tobytes() for name in FIELDS)
    volume = generate_volume(settings, workers=2)
    for (corner, size), fields in one:
        window = tuple(slice(c, c + n) for c, n in zip(corner, size))
        assert (volume.density[window] == fields["density"]).all() and (volume.mat_a[window] == fields["mat_a"]).all()
    assert len(volume.dirty_chunks) == math.prod(volume.chunk_grid_shape)


def test_generate_chunks_equals_the_chunk_boxes_generated_one_by_one():
    settings = GeneratorSettings(size=40.0, height=40.0, seed=6, ground_level=20.0)  # partial chunks on every axis
    chunks = dict(generate_chunks(settings, 32, workers=2))
    boxes = chunk_boxes(settings, 32)
    assert len(chunks) == len(boxes)
    for lo, shape in boxes:
        fields = chunks[tuple(c // 32 for c in lo)]
        expected = generate_block(settings, lo, shape)
        assert all(fields[name].tobytes() == expected[name].tobytes() for name in FIELDS)


def test_generate_block_reuses_its_out_arrays():
    settings = GeneratorSettings(size=64.0, seed=4)
    out = {name: np.full((8, 64, 8), 9, dtype=array.dtype)
           for name, array in generate_block(settings, (0, 0, 0), (1, 1, 1)).items()}
    filled = generate_block(settings, (10, 60, 20), (8, 64, 8), out=out)
    assert filled is out or all(filled[name] is out[name] for name in FIELDS)
    fresh = generate_block(settings, (10, 60, 20), (8, 64, 8))
    assert all((out[name] == fresh[name]).all() for name in FIELDS)


# ------------------------------------------------------------------------------------- density, strata
def test_density_and_strata_of_a_cave_free_block_follow_the_documented_rules():
    settings = GeneratorSettings(size=64.0, seed=21, cave_density=0.0, iron_density=0.0, lava_density=0.0,
                             cliff_strength=1.0, hill_height=30.0)
    lo, shape = (200, 0, 310), (10, 256, 9)
    block = generate_block(settings, lo, shape)
    keys, s = keys_of(21), settings.voxel_size
    heights = {(i, k): ref.surface_height(settings, keys, i * s, k * s)
               for i in range(lo[0] - 1, lo[0] + shape[0] + 1) for k in range(lo[2] - 1, lo[2] + shape[2] + 1)}
    grass_tan, rock_tan = (math.tan(math.radians(a)) for a in (settings.grass_slope, settings.rock_slope))
    seen = set()
    for a in range(shape[0]):
        i = lo[0] + a
        for c in range(shape[2]):
            k = lo[2] + c
            h = heights[i, k]
            gx = (heights[i + 1, k] - heights[i - 1, k]) / (2.0 * s)
            gz = (heights[i, k + 1] - heights[i, k - 1]) / (2.0 * s)
            slope2 = gx * gx + gz * gz
            soil = ref.noise2(keys[9], i * s / 24.0, k * s / 24.0)
            thickness = settings.soil_depth * (1.0 + 0.4 * soil)
            if slope2 > rock_tan * rock_tan:
                top, under = "rock", "rock"
            elif h < settings.sand_level + 2.0 * soil:
                top, under, thickness = "sand", "sand", thickness + 1.0
            elif slope2 > grass_tan * grass_tan:
                top, under = "soil", "soil"
            else:
                top, under = "grass", "soil"
            seen.add(top)
            for b in range(shape[1]):
                y = b * s
                distance = (y - h) / math.sqrt(1.0 + slope2)  # to the surface's tangent plane, m
                expected = min(max(math.floor(settings.iso - distance / s * RAMP + 0.5), 0), 255)
                assert abs(int(block["density"][a, b, c]) - expected) <= 1, (i, b, k)
                depth = h - y
                material = 0 if block["density"][a, b, c] == 0 else ID[
                    top if depth < settings.grass_depth else under if depth < settings.grass_depth + thickness
                    else "rock"]
                assert block["mat_a"][a, b, c] == material, (i, b, k)
    assert len(seen) >= 2, seen  # the block shows more than one kind of surface


def test_flat_ground_is_grass_over_soil_and_cliffs_are_rock(area):
    top = top_solid(area.density)
    heights = surface_heights(area)
    slope = np.hypot(*np.gradient(heights, area.voxel_size))
    ii, kk = np.indices(top.shape)
    surface = area.mat_a[ii, top, kk]
    flat, steep = slope < 0.2, slope > 2.0
    assert flat.sum() > 1000 and steep.sum() > 100
    assert np.isin(surface[flat], [ID["grass"], ID["sand"]]).mean() > 0.95
    assert (surface[flat] == ID["grass"]).mean() > 0.5
    assert (surface[steep] == ID["rock"]).mean() > 0.8
    grassy = flat & (surface == ID["grass"])
    below = area.mat_a[ii, np.maximum(top - 3, 0), kk]  # 1.5 m under grass
    assert (below[grassy] == ID["soil"]).mean() > 0.9
    assert (area.mat_a[:, :10, :] == ID["rock"]).mean() > 0.8  # the bottom is rock
    sand = surface == ID["sand"]
    assert sand.any() and heights[sand].mean() < heights[surface == ID["grass"]].mean()


def test_caves_iron_and_lava_lie_underground(area):
    top = top_solid(area.density)
    j = np.arange(area.shape[1])[None, :, None]
    underground = j < top[:, None, :] - 8  # 4 m or more below the surface
    cave_air = underground & (area.density == 0)
    assert cave_air.sum() > 10000, "caves carve the rock"
    assert (area.mat_a[area.density == 0] == 0).all(), "air is material 0"
    for name in ("iron", "lava", "obsidian"):
        where = area.mat_a == ID[name]
        assert where.sum() > 100, name
        assert (where & ~underground).sum() < 0.05 * where.sum(), name
    lava_y = np.nonzero(area.mat_a == ID["lava"])[1] * area.voxel_size
    assert lava_y.max() < 32.0


def test_some_cave_opens_to_the_sky():
    settings = GeneratorSettings(size=256.0, seed=3)
    params, keys, s = settings._params(), settings._keys(), settings.voxel_size
    openings = 0
    for (lo, shape), fields in generate_blocks(settings, chunk_boxes(settings, 256)):
        top = top_solid(fields["density"]) * s
        surface = np.array([[kernels.surface_height(params, keys, (lo[0] + a) * s, (lo[2] + c) * s)
                             for c in range(0, shape[2], 4)] for a in range(0, shape[0], 4)])
        # Where the highest rock lies well below the hills' surface, a cave has cut it open.
        openings += int((top[::4, ::4] < surface - 3.0).sum())
    assert openings > 0


def test_features_can_be_switched_off():
    settings = GeneratorSettings(size=128.0, seed=5, cave_density=0.0, iron_density=0.0, lava_density=0.0,
                             cliff_strength=0.0)
    volume = generate_volume(settings)
    top = top_solid(volume.density)
    j = np.arange(volume.shape[1])[None, :, None]
    assert not ((j < top[:, None, :] - 4) & (volume.density < 255)).any(), "no caves"
    assert not np.isin(volume.mat_a, [ID["iron"], ID["lava"], ID["obsidian"]]).any()
    slope = np.hypot(*np.gradient(surface_heights(volume), volume.voxel_size))
    assert slope.max() < 1.5, "no cliffs"  # the cliff area's risers are steeper than 2


def test_a_generated_volume_meshes_into_a_smooth_surface():
    volume = generate_volume(GeneratorSettings(size=16.0, height=32.0, seed=2, ground_level=16.0, hill_height=3.0,
                                           sand_level=4.0),
                             chunk_size=16)
    mesh = mesh_volume(volume, MeshOptions(levels=0))
    assert mesh.triangle_count > 500
    assert ID["grass"] in set(mesh.mat_a.tolist())
    # Density ramps across the surface: most columns have a sample strictly between empty and full.
    ramped = ((volume.density > 0) & (volume.density < 255)).any(axis=1)
    assert ramped.mean() > 0.9


def test_most_chunks_are_uniform_air_above_and_rock_below():
    settings = GeneratorSettings(size=256.0, seed=0)
    above = deep = deep_mixed = above_mixed = 0
    for (lo, shape), fields in generate_blocks(settings, chunk_boxes(settings, 32)):
        density, mat = fields["density"], fields["mat_a"]
        mixed = density.min() != density.max() or mat.min() != mat.max()
        if (density == 0).all() and lo[1] > 0:
            above += 1
        elif lo[1] + shape[1] <= 40:  # below 20 m: under the lowest valleys of this world
            deep += 1
            deep_mixed += mixed
            assert mixed or (density == 255).all() and (mat == ID["rock"]).all()
        above_mixed += mixed and lo[1] >= 160  # above 80 m: above the highest hills
    assert above > 0.4 * len(chunk_boxes(settings, 32))
    assert above_mixed == 0
    assert deep > 100 and deep_mixed < 0.5 * deep


# ---------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize("field, value", [
    ("size", 100.3), ("size", 0.0), ("height", -1.0), ("voxel_size", 0.0), ("voxel_size", 5.0), ("seed", -1),
    ("seed", 2 ** 63), ("seed", 1.5), ("ground_level", 128.0), ("ground_level", 0.0), ("hill_height", -1.0),
    ("hill_scale", 0.0), ("hill_octaves", 0), ("hill_octaves", 9), ("cliff_strength", 1.5), ("cliff_step", 0.0),
    ("cliff_width", 0.0), ("grass_depth", -0.1), ("soil_depth", float("nan")), ("sand_level", float("inf")),
    ("grass_slope", 0.0), ("grass_slope", 90.0), ("rock_slope", 30.0), ("rock_slope", 90.0),
    ("cave_density", -0.1), ("cave_depth", -1.0), ("iron_density", 2.0), ("lava_density", -1.0),
    ("lava_level", 0.0), ("lava_level", -3.0), ("iso", 0), ("iso", 256), ("ground_level", "low"),
])
def test_bad_settings_raise_parameter_errors_naming_the_field(field, value):
    with pytest.raises(ParameterError) as error:
        GeneratorSettings(**{field: value})
    assert error.value.parameter == field and "must be" in str(error.value)


def test_settings_are_frozen_and_replace_checks_again():
    settings = GeneratorSettings(size=64.0)
    assert settings.shape == (128, 256, 128) and settings.origin == (0.0, 0.0, 0.0)
    with pytest.raises(AttributeError):
        settings.seed = 3  # type: ignore[misc]
    with pytest.raises(ParameterError):
        replace(settings, cave_density=3.0)


def test_bad_blocks_raise_parameter_errors():
    settings = GeneratorSettings(size=64.0)
    good_out = {name: array for name, array in generate_block(settings, (0, 0, 0), (4, 4, 4)).items()}
    cases = [
        (lambda: generate_block("world", (0, 0, 0), (4, 4, 4)), "settings"),
        (lambda: generate_block(settings, (0, 0), (4, 4, 4)), "lo"),
        (lambda: generate_block(settings, (0, 0.5, 0), (4, 4, 4)), "lo"),
        (lambda: generate_block(settings, (0, 0, 0), (4, 0, 4)), "shape"),
        (lambda: generate_block(settings, (0, 0, 0), (4, 4, 4), out={**good_out, "density":
                                                                   np.zeros((4, 4, 4), np.int16)}), "out['density']"),
        (lambda: generate_block(settings, (0, 0, 0), (4, 4, 5), out=good_out), "out['density']"),
        (lambda: generate_block(settings, (0, 0, 0), (4, 4, 4), materials="default"), "materials"),
        (lambda: list(generate_blocks(settings, [((0, 0, 0), (4, 4, 4)), (0, 0, 0)])), "boxes[1]"),
        (lambda: list(generate_blocks(settings, [], workers=0)), "workers"),
        (lambda: chunk_boxes(settings, 0), "chunk_size"),
    ]
    for call, parameter in cases:
        with pytest.raises(ParameterError) as error:
            call()
        assert error.value.parameter == parameter


def test_chunks_of_some_columns_are_those_chunks_of_the_whole_world():
    settings = GeneratorSettings(size=48.0, height=16.0, voxel_size=1.0, ground_level=8.0, hill_height=3.0, seed=2)
    whole = dict(generate_chunks(settings, 16, workers=2))
    part = list(generate_chunks(settings, 16, workers=1, columns=(1, 0, 3, 2)))
    assert [chunk for chunk, _ in part] == [c for c in whole if 1 <= c[0] < 3 and c[2] < 2]
    for chunk, fields in part:
        for name, values in fields.items():
            assert np.array_equal(values, whole[chunk][name]), (chunk, name)
    with pytest.raises(ParameterError, match="columns"):
        list(generate_chunks(settings, 16, columns=(0, 0, 1)))
