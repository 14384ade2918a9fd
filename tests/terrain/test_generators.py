"""Tests of the terrain generators: VoxelVolume.from_sdf, VoxelVolume.from_heightmap with Layer, demo_terrain.

Expected densities follow the documented ramp (127.5 density steps per voxel of signed distance, crossing
``iso`` on the surface, clipped to 0..255); expected materials follow the layer rule (``material`` down to
``thickness`` metres below the band above it), computed here per sample from its world position.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from voxelworld.errors import ParameterError
from voxelworld.terrain import Box, Layer, MaterialTable, Sphere, VoxelVolume, demo_terrain

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TABLE = MaterialTable.default()
PROMISED = ("grass", "soil", "rock", "bark", "wood", "lava", "iron")


def sample_positions(volume: VoxelVolume) -> np.ndarray:
    """World position of every sample, shape volume.shape + (3,), from origin + index * voxel_size."""
    index = np.stack(np.meshgrid(*(np.arange(n) for n in volume.shape), indexing="ij"), axis=-1)
    return np.asarray(volume.origin) + index * volume.voxel_size


def expected_ramp(volume: VoxelVolume, distance: np.ndarray) -> np.ndarray:
    """The documented density ramp before rounding: iso at the surface, 127.5 per voxel, clipped."""
    return np.clip(volume.iso - distance / volume.voxel_size * 127.5, 0, 255)


# ------------------------------------------------------------------------------------------ from_sdf


def check_density_follows_distance(volume: VoxelVolume, distance: np.ndarray) -> None:
    s = volume.voxel_size
    density = volume.density.astype(np.int64)
    assert np.all(density[distance <= 0] >= volume.iso), "solid wherever fn <= 0"
    assert np.all(density[distance > 0.01 * s] < volume.iso), "empty wherever fn is clearly > 0"
    assert np.all(density[distance <= -s * (255 - volume.iso) / 127.5] == 255), "full deep inside"
    assert np.all(density[distance >= s * (volume.iso / 127.5 + 0.01)] == 0), "empty far outside"
    # Rounded ramp: at most half a density step from the exact value.
    assert np.all(np.abs(density - expected_ramp(volume, distance)) <= 0.5 + 1e-6)


def test_from_sdf_sphere_density_crosses_iso_on_the_surface():
    centre, radius = np.array([3.2, 1.1, 2.7]), 2.3
    volume = VoxelVolume.from_sdf(
        lambda x, y, z: np.sqrt((x - centre[0]) ** 2 + (y - centre[1]) ** 2 + (z - centre[2]) ** 2) - radius,
        (14, 12, 13), "rock", voxel_size=0.5, origin=(-0.25, -2.0, 0.0))
    distance = np.linalg.norm(sample_positions(volume) - centre, axis=-1) - radius
    check_density_follows_distance(volume, distance)
    assert (distance <= -0.5).any() and (distance >= 1.0).any()  # the test saw both deep inside and far out


@SETTINGS
@given(height=st.floats(0.3, 5.7), voxel_size=st.sampled_from([0.25, 0.5, 1.0]), iso=st.integers(1, 255),
       oy=st.floats(-1.0, 1.0))
def test_from_sdf_plane_follows_the_ramp(height, voxel_size, iso, oy):
    shape = (3, int(8 / voxel_size), 2)
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - height, shape, "soil", voxel_size=voxel_size,
                                  origin=(0.0, oy, 0.0), iso=iso)
    distance = sample_positions(volume)[..., 1] - height
    check_density_follows_distance(volume, distance)


def test_from_sdf_sets_the_material_and_clears_the_rest():
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 2.0, (4, 6, 5), "lava")
    assert np.all(volume.mat_a == TABLE.id_of("lava"))
    assert not volume.mat_b.any() and not volume.mix.any() and not volume.damage.any()
    assert set(volume.solid_volume_by_material()) == {"lava"}
    by_id = VoxelVolume.from_sdf(lambda x, y, z: y - 2.0, (4, 6, 5), TABLE.id_of("lava"))
    assert by_id.content_hash() == volume.content_hash()


def test_from_sdf_passes_world_coordinates_and_keeps_settings():
    seen = []

    def fn(x, y, z):
        seen.append(np.broadcast_arrays(x, y, z))
        return x + 0 * y + 0 * z

    volume = VoxelVolume.from_sdf(fn, (5, 4, 3), "rock", voxel_size=0.5, origin=(1.0, -2.0, 0.25), iso=60,
                                  chunk_size=2)
    assert len(seen) == 1  # called once with whole arrays
    positions = sample_positions(volume)
    for axis, array in enumerate(seen[0]):
        np.testing.assert_allclose(np.broadcast_to(array, volume.shape), positions[..., axis])
    assert volume.shape == (5, 4, 3) and volume.voxel_size == 0.5 and volume.iso == 60
    assert volume.chunk_size == 2
    np.testing.assert_array_equal(volume.origin, [1.0, -2.0, 0.25])


def test_from_sdf_accepts_a_constant_and_a_broadcastable_result():
    full = VoxelVolume.from_sdf(lambda x, y, z: -5.0, (3, 3, 3), "rock")
    assert np.all(full.density == 255)
    empty = VoxelVolume.from_sdf(lambda x, y, z: 5.0, (3, 3, 3), "rock")
    assert not empty.density.any()
    columns = VoxelVolume.from_sdf(lambda x, y, z: y - 1.0, (3, 4, 3), "rock")  # shape (1, 4, 1)
    assert np.all(columns.density[:, :2, :] >= 128) and np.all(columns.density[:, 2:, :] < 128)


def test_from_sdf_uses_the_given_material_table():
    from voxelworld.terrain import Material

    table = MaterialTable([Material(5, "jelly", "food", 0.1)])
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 1.0, (2, 3, 2), "jelly", materials=table)
    assert volume.materials is table and np.all(volume.mat_a == 5)
    with pytest.raises(ParameterError) as excinfo:
        VoxelVolume.from_sdf(lambda x, y, z: y - 1.0, (2, 3, 2), "rock", materials=table)
    assert excinfo.value.parameter == "material"


@pytest.mark.parametrize("fn", [
    lambda x, y, z: np.where(x + y + z > 3, np.nan, -1.0),
    lambda x, y, z: np.where(x > 1, np.inf, -1.0) + 0 * y + 0 * z,
    lambda x, y, z: -np.inf + 0 * x,
    lambda x, y, z: None,
])
def test_from_sdf_rejects_non_finite_results(fn):
    with pytest.raises(ParameterError) as excinfo:
        VoxelVolume.from_sdf(fn, (3, 3, 3), "rock")
    assert excinfo.value.parameter == "fn"
    assert "finite" in str(excinfo.value)


@pytest.mark.parametrize("result", [np.zeros((2, 2)), np.zeros((3, 3, 4)), np.zeros((3, 3, 3, 2))])
def test_from_sdf_rejects_results_of_the_wrong_shape(result):
    with pytest.raises(ParameterError) as excinfo:
        VoxelVolume.from_sdf(lambda x, y, z: result, (3, 3, 3), "rock")
    assert excinfo.value.parameter == "fn"
    assert "(3, 3, 3)" in str(excinfo.value)


def test_from_sdf_checks_material_and_shape_before_calling_fn():
    calls = []

    def fn(x, y, z):
        calls.append(1)
        return y

    with pytest.raises(ParameterError) as excinfo:
        VoxelVolume.from_sdf(fn, (3, 3, 3), "unobtainium")
    assert excinfo.value.parameter == "material" and "unobtainium" in str(excinfo.value)
    with pytest.raises(ParameterError) as excinfo:
        VoxelVolume.from_sdf(fn, (3, 0, 3), "rock")
    assert excinfo.value.parameter == "shape"
    with pytest.raises(ParameterError) as excinfo:
        VoxelVolume.from_sdf(fn, (3, 3, 3), "rock", voxel_size=-1)
    assert excinfo.value.parameter == "voxel_size"
    assert calls == []


# ------------------------------------------------------------------------------------------ from_heightmap

LAYERS = [Layer("grass", 1.0), Layer("soil", 4.0), Layer("rock")]


def expected_layer(depth: np.ndarray, layers) -> np.ndarray:
    """Material id of each sample from its depth below the surface (m), by walking down the bands."""
    ids = np.empty(depth.shape, dtype=np.int64)
    for index, d in np.ndenumerate(depth):
        top = 0.0
        chosen = layers[-1].material
        for layer in layers[:-1]:
            if d < top + layer.thickness:
                chosen = layer.material
                break
            top += layer.thickness
        ids[index] = TABLE.id_of(chosen)
    return ids


def test_flat_heightmap_has_grass_over_soil_over_rock():
    volume = VoxelVolume.from_heightmap(np.full((4, 3), 10.3), LAYERS, 14)
    assert volume.shape == (4, 14, 3)
    grass, soil, rock = (TABLE.id_of(n) for n in ("grass", "soil", "rock"))
    # Depth of sample j below the surface is 10.3 - j.
    column = volume.mat_a[2, :, 1]
    assert column[10] == grass  # 0.3 m down
    assert column[11] == column[13] == grass  # above the surface: the first layer
    assert column[9] == soil  # 1.3 m down
    assert column[6] == soil  # 4.3 m down
    assert column[5] == rock  # 5.3 m down
    assert column[0] == rock
    assert np.all(volume.mat_a == volume.mat_a[:1, :, :1])  # every column alike
    # The surface: solid up to sample 10 (10.3 m), empty from sample 11.
    assert np.all(volume.density[:, :11, :] >= volume.iso)
    assert np.all(volume.density[:, 11:, :] < volume.iso)
    assert np.all(volume.density[:, :10, :] == 255)


def test_heightmap_surface_and_layers_follow_a_sloped_surface():
    nx, nz = 7, 6
    i, k = np.meshgrid(np.arange(nx), np.arange(nz), indexing="ij")
    heights = 3.1 + 0.37 * i - 0.23 * k
    layers = [Layer("grass", 0.5), Layer("soil", 1.25), Layer("sand", 0.75), Layer("rock")]
    volume = VoxelVolume.from_heightmap(heights, layers, 20, voxel_size=0.5, origin=(2.0, -1.0, 0.5))
    y = sample_positions(volume)[..., 1]
    depth = heights[:, None, :] - y
    check_density_follows_distance(volume, -depth)
    clear = np.all(np.abs(depth[..., None] - np.array([0.5, 1.75, 2.5])) > 1e-9, axis=-1)  # off band edges
    assert clear.mean() > 0.9
    np.testing.assert_array_equal(volume.mat_a[clear], expected_layer(depth, layers)[clear])
    assert not volume.mat_b.any() and not volume.mix.any() and not volume.damage.any()
    # The highest solid sample of every column sits at floor((h - oy) / s).
    for a in range(nx):
        for c in range(nz):
            solid = np.flatnonzero(volume.density[a, :, c] >= volume.iso)
            assert solid.max() == math.floor((heights[a, c] - (-1.0)) / 0.5)


@SETTINGS
@given(surface=st.floats(1.0, 9.0), thicknesses=st.lists(st.floats(0.2, 3.0), min_size=1, max_size=3),
       data=st.data())
def test_heightmap_layers_property(surface, thicknesses, data):
    names = data.draw(st.lists(st.sampled_from(["grass", "soil", "sand", "rock", "ice"]),
                               min_size=len(thicknesses) + 1, max_size=len(thicknesses) + 1))
    layers = [Layer(n, t) for n, t in zip(names, thicknesses)] + [Layer(names[-1])]
    volume = VoxelVolume.from_heightmap(np.full((2, 2), surface), layers, 40, voxel_size=0.25)
    depth = surface - sample_positions(volume)[..., 1]
    # Keep away from band boundaries, where float rounding may pick either side.
    boundaries = np.cumsum(thicknesses)
    clear = np.all(np.abs(depth[..., None] - boundaries) > 1e-9, axis=-1)
    np.testing.assert_array_equal(volume.mat_a[clear], expected_layer(depth, layers)[clear])


def test_last_layer_reaches_the_bottom_whatever_its_thickness():
    volume = VoxelVolume.from_heightmap(np.full((2, 2), 9.5), [Layer("grass", 1.0), Layer("rock", 1.0)], 12)
    assert np.all(volume.mat_a[:, :8, :] == TABLE.id_of("rock"))
    assert np.all(volume.mat_a[:, 9:, :] == TABLE.id_of("grass"))


def test_layers_may_name_materials_by_id():
    by_name = VoxelVolume.from_heightmap(np.full((3, 3), 4.5), LAYERS, 8)
    by_id = VoxelVolume.from_heightmap(np.full((3, 3), 4.5), [Layer(TABLE.id_of(layer.material), layer.thickness)
                                                              for layer in LAYERS], 8)
    assert by_id.content_hash() == by_name.content_hash()


def test_pockets_are_painted_in_order():
    lava_ball = Sphere((4.0, 3.0, 4.0), 2.0)
    iron_bar = Box((3.0, 2.0, 0.0), (5.0, 3.0, 9.0))
    volume = VoxelVolume.from_heightmap(np.full((9, 9), 7.5), LAYERS, 10,
                                        pockets=[(lava_ball, "lava"), (iron_bar, "iron")])
    plain = VoxelVolume.from_heightmap(np.full((9, 9), 7.5), LAYERS, 10)
    positions = sample_positions(volume)
    in_bar = iron_bar.sdf(positions) <= 0
    in_ball = (lava_ball.sdf(positions) <= 0) & ~in_bar
    untouched = ~in_bar & ~in_ball
    lava, iron = TABLE.id_of("lava"), TABLE.id_of("iron")
    assert in_ball.any() and in_bar.any() and (in_ball & (plain.density >= 128)).any()
    assert np.all(volume.mat_a[in_ball] == lava) and np.all(volume.mat_b[in_ball] == lava)
    assert np.all(volume.mat_a[in_bar] == iron) and np.all(volume.mat_b[in_bar] == iron)
    np.testing.assert_array_equal(volume.mat_a[untouched], plain.mat_a[untouched])
    np.testing.assert_array_equal(volume.density, plain.density)  # painting keeps density


def test_heightmap_keeps_settings():
    table = MaterialTable.default()
    volume = VoxelVolume.from_heightmap(np.full((3, 2), 1.5), LAYERS, 5, voxel_size=0.5, origin=(1, 2, 3),
                                        iso=90, chunk_size=2, materials=table)
    assert volume.shape == (3, 5, 2) and volume.voxel_size == 0.5 and volume.iso == 90
    assert volume.chunk_size == 2 and volume.materials is table
    np.testing.assert_array_equal(volume.origin, [1, 2, 3])


@pytest.mark.parametrize("heights", [
    np.array([[1.0, np.nan], [1.0, 1.0]]),
    np.array([[1.0, np.inf], [1.0, 1.0]]),
    np.full(4, 1.0),
    np.full((2, 2, 2), 1.0),
    np.float64(1.0),
    "tall",
])
def test_heightmap_rejects_bad_heights(heights):
    with pytest.raises(ParameterError) as excinfo:
        VoxelVolume.from_heightmap(heights, LAYERS, 4)
    assert excinfo.value.parameter == "heights"


@pytest.mark.parametrize("layers, parameter, value_text", [
    ([], "layers", "[]"),
    (["grass", "rock"], "layers", "grass"),
    ([Layer("grass", 1.0), Layer("unobtainium")], "material", "unobtainium"),
    ([Layer(200)], "material", "200"),
])
def test_heightmap_rejects_bad_layers(layers, parameter, value_text):
    with pytest.raises(ParameterError) as excinfo:
        VoxelVolume.from_heightmap(np.full((2, 2), 1.0), layers, 4)
    assert excinfo.value.parameter == parameter
    assert value_text in str(excinfo.value)


@pytest.mark.parametrize("pockets, parameter", [
    ([(Sphere((0, 0, 0), 1), "kryptonite")], "material"),
    ([(Sphere((0, 0, 0), 1),)], "pockets[0]"),
    ([(Sphere((0, 0, 0), 1), "lava"), ("sphere", "lava")], "pockets[1]"),
])
def test_heightmap_rejects_bad_pockets(pockets, parameter):
    with pytest.raises(ParameterError) as excinfo:
        VoxelVolume.from_heightmap(np.full((2, 2), 1.0), LAYERS, 4, pockets=pockets)
    assert excinfo.value.parameter == parameter


@pytest.mark.parametrize("thickness", [0.0, -1.0, float("nan"), float("-inf")])
def test_layer_rejects_bad_thickness(thickness):
    with pytest.raises(ParameterError) as excinfo:
        Layer("grass", thickness)
    assert excinfo.value.parameter == "thickness"
    assert repr(thickness) in str(excinfo.value)


def test_heightmap_names_a_bad_height():
    with pytest.raises(ParameterError) as excinfo:
        VoxelVolume.from_heightmap(np.full((2, 2), 1.0), LAYERS, 0)
    assert excinfo.value.parameter == "height"


# ------------------------------------------------------------------------------------------ demo_terrain


@pytest.fixture(scope="module")
def demo():
    return demo_terrain(0)


def test_demo_terrain_is_deterministic():
    a, b = demo_terrain(3, size=48, height=32), demo_terrain(3, size=48, height=32)
    assert a.content_hash() == b.content_hash()
    for name in ("density", "mat_a", "mat_b", "mix", "damage"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert demo_terrain(4, size=48, height=32).content_hash() != a.content_hash()


def test_default_demo_terrain_is_deterministic_for_the_default_seed(demo):
    assert demo_terrain().content_hash() == demo.content_hash()
    assert demo_terrain(1).content_hash() != demo.content_hash()


def test_demo_terrain_contains_every_promised_material(demo):
    assert demo.shape == (96, 48, 96) and demo.voxel_size == 1.0
    amounts = demo.solid_volume_by_material()
    for name in PROMISED:
        assert amounts.get(name, 0.0) > 0, name


@pytest.mark.parametrize("seed, size, height, voxel_size", [(7, 48, 32, 1.0), (2, 64, 40, 0.5)])
def test_small_demo_terrains_contain_every_promised_material(seed, size, height, voxel_size):
    volume = demo_terrain(seed, size=size, height=height, voxel_size=voxel_size)
    assert volume.shape == (size, height, size) and volume.voxel_size == voxel_size
    amounts = volume.solid_volume_by_material()
    for name in PROMISED:
        assert amounts.get(name, 0.0) > 0, name


def test_demo_terrain_is_hills_over_rock(demo):
    grass, rock = TABLE.id_of("grass"), TABLE.id_of("rock")
    solid = demo.density >= demo.iso
    # The topmost solid sample of each column is grass in most of the world (features cover a little of it).
    top = demo.shape[1] - 1 - np.argmax(solid[:, ::-1, :], axis=1)
    top_material = np.take_along_axis(demo.mat_a, top[:, None, :], axis=1)[:, 0, :]
    assert np.mean(top_material == grass) > 0.7
    # The bottom of the world is solid rock; the top layer is air.
    assert np.all(solid[:, 0, :]) and np.mean(demo.mat_a[:, 0, :] == rock) > 0.95
    assert not solid[:, -1, :].any()


@pytest.mark.parametrize("kwargs, parameter", [
    (dict(seed=-1), "seed"),
    (dict(seed=1.5), "seed"),
    (dict(seed="one"), "seed"),
    (dict(seed=True), "seed"),
    (dict(size=47), "size"),
    (dict(size=64.5), "size"),
    (dict(height=31), "height"),
    (dict(voxel_size=0.0), "voxel_size"),
    (dict(voxel_size=float("nan")), "voxel_size"),
])
def test_demo_terrain_rejects_bad_parameters(kwargs, parameter):
    with pytest.raises(ParameterError) as excinfo:
        demo_terrain(**kwargs)
    assert excinfo.value.parameter == parameter
    assert repr(next(iter(kwargs.values()))) in str(excinfo.value)
