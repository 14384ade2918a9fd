"""Tests of the snapshots' look: textures mapped in world space, metal, glow, the sun's shadow, occlusion, the
light on faces turned from the sun, and no missing-texture pixels in the demo world.

Drawn for real with moderngl through EGL (see tests/viewer/test_snapshot.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.terrain import TEXTURE_METRES
from voxelworld.viewer import Camera, render
from voxelworld.viewer.gl_draw import MACRO_TILES

from .egl import require_egl
from .test_snapshot import FRONT, GRASS, LAVA, ROCK, TABLE, background_share, display_mesh, patch, quad, wire_pixels

IRON = TABLE.id_of("iron")
LUMINANCE = np.array([0.2126, 0.7152, 0.0722])
OBLIQUE = Camera((0.0, 2.5, 3.5), (0.0, 0.0, 0.0), fov=50)  # looks down at the ground in front of it
SIZE = (96, 64)
MIDDLE = (slice(24, 56), slice(24, 72))  # where OBLIQUE sees the ground quads below, and nothing else


@pytest.fixture(scope="module", autouse=True)
def egl():
    require_egl()


def ground(material, half=3.0, y=0.0, occlusion=None):
    """A square facing up (+Y), counter-clockwise seen from above."""
    corners = [[-half, y, half], [half, y, half], [half, y, -half], [-half, y, -half]]
    mesh = display_mesh(corners, [[0, 1, 2], [0, 2, 3]], material, normals=[[0, 1, 0]] * 4)
    if occlusion is not None:
        mesh.occlusion = np.full(4, occlusion, np.float32)
    return mesh


def ground_colour(material, **options):
    picture = render(ground(material, **options), materials=TABLE, camera=OBLIQUE, size=SIZE)
    assert background_share(picture[MIDDLE]) == 0.0
    return picture[MIDDLE].reshape(-1, 3).astype(float)


def test_the_texture_is_fixed_to_the_world_one_tile_every_texture_metres():
    # The tiles repeat every TEXTURE_METRES, their slow variation every MACRO_TILES tiles: 53 tiles make both.
    period = 10 * MACRO_TILES * TEXTURE_METRES
    assert period == pytest.approx(round(period / TEXTURE_METRES) * TEXTURE_METRES)
    shifted = [render(quad(ROCK, centre=(d, d)), materials=TABLE, size=(64, 48),
                      camera=Camera((d, d, 3.0), (d, d, 0.0))).astype(int)
               for d in (0.0, period, TEXTURE_METRES / 2)]  # the quad and its camera moved right and up
    assert np.mean(np.abs(shifted[0] - shifted[1]) <= 1) > 0.99  # the same picture
    assert np.abs(shifted[0] - shifted[2]).mean() > 5  # another part of the texture


def test_iron_reads_as_metal_apart_from_rock():
    iron, rock = ground_colour(IRON).mean(axis=0), ground_colour(ROCK).mean(axis=0)
    # The table gives them nearly one grey (within 30 of 255); drawn, iron mirrors the sky: bluer, darker.
    assert np.abs(np.subtract(TABLE["iron"].colour, TABLE["rock"].colour)).max() * 255 < 30
    assert np.abs(iron - rock).max() > 30
    assert (iron[2] - iron[0]) - (rock[2] - rock[0]) > 15
    # Seen where it mirrors the sun, iron flashes a highlight; rock, matte, hardly does.
    mirror = Camera((-1.05, 3.0, -1.35), (0.0, 0.0, 0.0), fov=40)  # the sun's reflection off the ground at 0
    peaks = [np.percentile(render(ground(material), materials=TABLE, camera=mirror, size=SIZE) @ LUMINANCE, 99)
             for material in (IRON, ROCK)]
    assert peaks[0] > 230 and peaks[0] > peaks[1] + 50


def test_lava_glows_brighter_than_sunlit_grass_with_hot_cracks_and_dark_crust():
    lava, grass = ground_colour(LAVA), ground_colour(GRASS)
    assert (lava @ LUMINANCE).mean() > 1.1 * (grass @ LUMINANCE).mean()
    brightness = lava @ LUMINANCE
    assert np.percentile(brightness, 95) > 2 * np.percentile(brightness, 10)  # cracks against crust
    # Lit by nothing: a lava face turned from the sun glows as a face turned to it does.
    facing_away = render(quad(LAVA), materials=TABLE, camera=FRONT, size=SIZE).reshape(-1, 3).astype(float)
    assert (facing_away @ LUMINANCE).mean() > 0.9 * (lava @ LUMINANCE).mean()


def test_the_sun_casts_a_shadow():
    top = Camera((0.0, 10.0, 0.01), (0.0, 0.0, 0.0), fov=50)
    roof = ground(ROCK, half=0.5, y=2.0)  # 2 m above the grass; the sun is up, right (+X) and in front (+Z)
    pictures = [render([ground(GRASS, half=4.0), *extra], materials=TABLE, camera=top, size=(128, 128))
                for extra in ([roof], [])]
    matrix = top.projection_matrix(1.0) @ top.view_matrix()

    def pixel(point):
        clip = matrix @ np.append(point, 1.0)
        x, y = clip[:2] / clip[3]
        return int((1 - y) / 2 * 128), int((x + 1) / 2 * 128)

    # The roof's shadow falls 2 m back along the sun's direction: (-0.7, -0.9) m on the ground.
    shadowed, lit = pixel((-0.7, 0.0, -0.9)), pixel((1.5, 0.0, 1.5))
    with_roof, without = pictures
    assert patch(with_roof, *shadowed).sum() < 0.8 * patch(with_roof, *lit).sum()
    assert patch(without, *shadowed).sum() > 0.9 * patch(without, *lit).sum()  # the roof, not the spot
    assert np.array_equal(with_roof, render([ground(GRASS, half=4.0), roof], materials=TABLE, camera=top,
                                            size=(128, 128)))  # bit for bit, shadow map and all


def test_occlusion_darkens_the_light_from_the_sky_and_missing_means_open():
    open_, enclosed = ground_colour(GRASS, occlusion=1.0).mean(), ground_colour(GRASS, occlusion=0.2).mean()
    assert enclosed < 0.85 * open_
    assert enclosed > 0.3 * open_  # the sun still reaches it
    assert np.array_equal(ground_colour(GRASS), ground_colour(GRASS, occlusion=1.0))


@pytest.mark.parametrize("occlusion", [np.full(4, 1.5, np.float32), np.full(3, 1.0, np.float32),
                                       np.array([1.0, np.nan, 1.0, 1.0])])
def test_bad_occlusion_is_refused_naming_it(occlusion):
    mesh = ground(GRASS)
    mesh.occlusion = occlusion
    with pytest.raises(ParameterError) as excinfo:
        render(mesh, materials=TABLE, size=(8, 8))
    assert excinfo.value.parameter == "meshes.occlusion"


def test_a_face_turned_from_the_sun_is_lit_by_the_sky_and_the_fill_light():
    # A rock wall facing -X (the sun shines from +X): as the demo's wall is seen from the player's start.
    wall = display_mesh([[0, 0, 1], [0, 0, -1], [0, 2, -1], [0, 2, 1]], [[0, 2, 1], [0, 3, 2]], ROCK,
                        normals=[[-1, 0, 0]] * 4)
    picture = render(wall, materials=TABLE, camera=Camera((-3.0, 1.0, 0.0), (0.0, 1.0, 0.0)), size=(48, 48))
    middle = picture[16:32, 16:32].reshape(-1, 3).astype(float)
    assert background_share(picture[16:32, 16:32]) == 0.0
    assert middle.mean() > 0.5 * np.mean(TABLE["rock"].colour) * 255  # far from black
    assert np.percentile(middle.sum(axis=1), 5) > 90


def test_the_demo_world_has_no_missing_texture_pixels():
    from voxelworld.meshing import MeshOptions, mesh_volume
    from voxelworld.terrain import demo_terrain

    volume = demo_terrain(seed=0)
    display = mesh_volume(volume, MeshOptions())
    picture = render(display, materials=volume.materials, size=(320, 180)).astype(int)
    pixels = picture.reshape(-1, 3)
    assert wire_pixels(picture) == 0  # no magenta
    assert np.mean(pixels.max(axis=-1) < 16) < 0.001  # no black holes
    assert len(np.unique(pixels, axis=0)) > 1000  # textured, not flat
