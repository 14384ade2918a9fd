"""Tests of voxelworld.terrain.textures: the procedural texture layers every renderer draws materials with."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.terrain import TEXTURE_METRES, TEXTURE_SIZE, Material, MaterialTable, TextureSet, texture_set
from voxelworld.terrain.textures import KNOWN_TEXTURES, UNTEXTURED_PREFIX


@pytest.fixture(scope="module")
def default_set() -> TextureSet:
    return texture_set(MaterialTable.default())


def layer(textures: TextureSet, name: str) -> int:
    return textures.names.index(name)


def test_one_layer_per_texture_of_the_default_table_each_with_its_own_recipe(default_set):
    table = MaterialTable.default()
    assert default_set.names == tuple(table[name].texture for name in table.names)
    assert set(default_set.names) <= set(KNOWN_TEXTURES)
    assert default_set.albedo.shape == default_set.surface.shape == (len(table), TEXTURE_SIZE, TEXTURE_SIZE, 4)
    for material in table:
        assert default_set.names[default_set.layer_of[material.id]] == material.texture
    unused = sorted(set(range(256)) - {m.id for m in table})
    assert np.all(default_set.layer_of[[0] + unused] == -1)
    assert 1.0 <= TEXTURE_METRES <= 4.0  # a tile of about 2 m: the grain reads at the 0.5 m voxels' scale


@pytest.mark.parametrize("axis", [0, 1])  # across rows (v) and across columns (u)
def test_every_layer_tiles_its_seam_is_no_rougher_than_its_inside(default_set, axis):
    for maps in (default_set.albedo, default_set.surface):
        for number, name in enumerate(default_set.names):
            picture = maps[number].astype(np.int64)
            inside = np.abs(np.diff(picture, axis=axis))  # steps between neighbouring pixels
            seam = np.abs(np.take(picture, 0, axis=axis) - np.take(picture, -1, axis=axis))  # last to first
            assert seam.mean() <= 1.5 * inside.mean() + 1.0, (name, axis, seam.mean(), inside.mean())


def test_the_same_table_gives_the_same_bytes_and_a_new_colour_new_ones(default_set):
    again = texture_set(MaterialTable.default())
    assert again.names == default_set.names
    for field in ("albedo", "surface", "layer_of"):
        assert getattr(again, field).tobytes() == getattr(default_set, field).tobytes()
    recoloured = MaterialTable([Material(1, "rock", "rock", 5.0, "#806040", texture="rock")])
    assert not np.array_equal(texture_set(recoloured).albedo[0], default_set.albedo[layer(default_set, "rock")])


def test_each_layer_averages_to_the_colour_of_the_first_material_naming_it(default_set):
    table = MaterialTable.default()
    palette = table.palette()
    means = default_set.mean_albedo()
    for material in table:
        # Lava's red is at the top already: its glowing cracks cannot raise it further, so it sits 1-2 % under.
        assert np.abs(means[default_set.layer_of[material.id]] - palette[material.id]).max() < 0.02, material.name
    # and the pictures are pictures: every layer varies, none is a flat colour
    assert np.all(default_set.albedo[..., :3].reshape(len(table), -1).std(axis=1) > 5)


def test_materials_read_as_themselves(default_set):
    surface = default_set.surface.astype(np.float64) / 255
    roughness, metalness, emission = (surface[..., channel].mean(axis=(1, 2)) for channel in range(3))
    rock, iron, lava = (layer(default_set, name) for name in ("rock", "iron", "lava"))
    ice, obsidian, grass, soil = (layer(default_set, name) for name in ("ice", "obsidian", "grass", "soil"))
    assert metalness[iron] > 0.8 and metalness[rock] < 0.1  # iron is a metal, rock is not
    others = [number for number in range(len(default_set.names)) if number != lava]
    assert emission[lava] > 0.4 and emission[lava] > 4 * emission[others].max()  # only lava glows
    lava_glow = default_set.surface[lava, ..., 2]
    assert np.percentile(lava_glow, 95) > 200 and np.percentile(lava_glow, 20) < 100  # bright cracks, dark crust
    assert roughness[ice] < 0.35 and roughness[obsidian] < 0.3 and roughness[rock] > 0.6  # gloss where it shines
    means = default_set.mean_albedo()
    assert np.abs(means[grass] - means[soil]).sum() > 0.25  # grass is not soil at a glance
    assert means[grass][1] > means[grass][0] and means[soil][0] > means[soil][1]  # green against brown


def test_an_unknown_texture_gets_the_generic_recipe_in_its_first_material_colour():
    table = MaterialTable([Material(1, "moss", "plant", 1.0, "#336622", texture="moss"),
                           Material(2, "lichen", "plant", 1.0, "#aabb00", texture="moss"),
                           Material(3, "glass", "rock", 2.0, "#2080ff"),
                           Material(5, "stone", "rock", 5.0, "#888888", texture="rock")])
    textures = texture_set(table)
    assert textures.names == ("moss", UNTEXTURED_PREFIX + "glass", "rock")
    assert textures.layer_of[[0, 1, 2, 3, 4, 5]].tolist() == [-1, 0, 0, 1, -1, 2]
    means = textures.mean_albedo()
    assert np.abs(means[0] - table["moss"].colour).max() < 0.01  # the first naming material's colour
    assert np.abs(means[1] - table["glass"].colour).max() < 0.01  # an untextured material: its own colour
    assert textures.albedo[0, ..., :3].std() > 3  # not flat
    surface = textures.surface[0].astype(np.float64) / 255
    assert surface[..., 1].max() == 0 and surface[..., 2].max() == 0  # neither metal nor glowing


def test_a_texture_set_is_read_only_and_checked():
    textures = texture_set(MaterialTable.default())
    for field in ("albedo", "surface", "layer_of"):
        with pytest.raises(ValueError):
            getattr(textures, field)[0] = 0
    albedo = np.zeros((1, 4, 4, 4), np.uint8)
    layer_of = np.full(256, -1, np.int32)
    TextureSet(("a",), albedo, albedo, layer_of)  # well formed
    bad = [
        (("a", "b"), albedo, albedo, layer_of, "albedo"),
        (["a"], albedo, albedo, layer_of, "names"),
        (("a",), albedo.astype(np.float32), albedo, layer_of, "albedo"),
        (("a",), albedo, np.zeros((1, 4, 4, 3), np.uint8), layer_of, "surface"),
        (("a",), albedo, np.zeros((1, 8, 8, 4), np.uint8), layer_of, "surface"),
        (("a",), albedo, albedo, np.full(256, 1, np.int32), "layer_of"),
        (("a",), albedo, albedo, np.full(255, -1, np.int32), "layer_of"),
        (("a",), albedo, albedo, layer_of.astype(np.int64), "layer_of"),
    ]
    for names, albedo_, surface, layers, field in bad:
        with pytest.raises(ParameterError) as error:
            TextureSet(names, albedo_, surface, layers)
        assert error.value.parameter == field


@pytest.mark.parametrize("materials", [None, "default", MaterialTable.default().palette()])
def test_texture_set_refuses_what_is_not_a_material_table(materials):
    with pytest.raises(ParameterError) as error:
        texture_set(materials)
    assert error.value.parameter == "materials"
