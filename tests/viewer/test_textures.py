"""Every renderer draws a material by its texture: a picture whose average is the colour of the first material
naming it (``MaterialTable.palette``, used where no picture is drawn), so two materials sharing one look alike in
the page, the snapshots and the exports."""

from __future__ import annotations

from importlib import resources

import numpy as np

from voxelworld.game.world import World
from voxelworld.io.parts import gather
from voxelworld.terrain import NONE_COLOUR, MaterialTable, Sphere, VoxelVolume
from voxelworld.viewer.protocol import hello_message
from voxelworld.viewer.snapshot import _layers


def shared_texture_table() -> MaterialTable:
    """The default table, but the inside of rock is drawn with rock's texture (its own colour differs)."""
    text = resources.files("voxelworld.terrain").joinpath("default_materials.toml").read_text()
    assert 'texture = "rock_interior"' in text
    return MaterialTable.from_toml_string(text.replace('texture = "rock_interior"', 'texture = "rock"'))


def test_the_palette_draws_materials_sharing_a_texture_alike_and_others_in_their_own_colour():
    table = shared_texture_table()
    palette = table.palette()
    rock, inside = table["rock"], table["rock_interior"]
    assert rock.colour != inside.colour  # the table gives them different colours ...
    assert palette[inside.id].tolist() == list(rock.colour)  # ... the texture they share decides
    for material in table:
        if material.name != "rock_interior":
            assert palette[material.id].tolist() == list(material.colour)
    unused = sorted(set(range(256)) - {m.id for m in table})
    assert np.all(palette[[0] + unused] == NONE_COLOUR)
    own = MaterialTable.default().palette()  # with a texture each, every material keeps its own colour
    assert own[inside.id].tolist() == list(inside.colour)


def test_the_page_the_snapshots_and_the_exports_draw_materials_sharing_a_texture_alike():
    table = shared_texture_table()
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 2.0, (16, 12, 16), "rock", voxel_size=0.5, chunk_size=8,
                                  materials=table)
    volume.expose_interior(Sphere((4.0, 2.0, 4.0), 1.5))  # some rock_interior on the surface
    world = World(volume, spawn=(2.0, 2.0, 2.0))
    inside, rock = table["rock_interior"], table["rock"]
    hello = hello_message(world, 1, fps=60.0, save_path=None)
    page = {m["name"]: m for m in hello["materials"]}
    assert page["rock_interior"]["texture"] == "rock"
    assert np.allclose(page["rock_interior"]["colour"], rock.colour, atol=1e-3)
    assert not np.allclose(page["rock_interior"]["colour"], inside.colour, atol=1e-3)
    layers = _layers(table)[1]  # the snapshots draw both with rock's picture
    assert layers[inside.id] == layers[rock.id] != layers[table.id_of("soil")]
    assert gather(world).colours[inside.id].tolist() == list(rock.colour)
