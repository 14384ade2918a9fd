"""Tests of the offscreen snapshots (voxelworld.viewer): pictures, colours, wireframe, camera, input checks,
atomic writing, and ``voxelworld render``.

The pictures are drawn for real with moderngl through EGL (Mesa's llvmpipe on the CPU). They are skipped only
where no EGL context can be made at all, on a developer machine that has not run ``scripts/setup``; under CI
(``CI`` set) that is a failure instead.
"""

from __future__ import annotations

import colorsys
import importlib
import io
import os
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from voxelworld import cli
from voxelworld.errors import ParameterError, VoxelworldError
from voxelworld.terrain import Material, MaterialTable
from voxelworld.viewer import Camera, RenderError, render, snapshot

from .egl import require_egl

# The function voxelworld.viewer.snapshot hides its module of the same name from attribute access.
snapshot_module = importlib.import_module("voxelworld.viewer.snapshot")

TABLE = MaterialTable.default()
GRASS, LAVA, ICE, ROCK = (TABLE.id_of(name) for name in ("grass", "lava", "ice", "rock"))
BACKGROUND = (0.62, 0.75, 0.88)
FRONT = Camera(eye=(0.0, 0.0, 3.0), target=(0.0, 0.0, 0.0))  # looks down -Z at the origin


@pytest.fixture(scope="module", autouse=True)
def egl():
    """Skip this module's tests only where EGL truly cannot be had (and never under CI)."""
    require_egl()


# --- meshes built here ----------------------------------------------------------------------------------------


def display_mesh(positions, indices, mat_a, mat_b=None, blend=0.0, normals=None):
    positions = np.asarray(positions, dtype=np.float32)
    indices = np.asarray(indices, dtype=np.uint32)
    n = len(positions)
    if normals is None:  # area-weighted vertex normals of the triangles
        normals = np.zeros_like(positions)
        a, b, c = (positions[indices[:, k]] for k in range(3))
        faces = np.cross(b - a, c - a)
        for k in range(3):
            np.add.at(normals, indices[:, k], faces)
        normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
    return types.SimpleNamespace(
        positions=positions, normals=np.asarray(normals, dtype=np.float32), indices=indices,
        mat_a=np.broadcast_to(np.asarray(mat_a, dtype=np.uint8), (n,)).copy(),
        mat_b=np.broadcast_to(np.asarray(mat_a if mat_b is None else mat_b, dtype=np.uint8), (n,)).copy(),
        blend=np.broadcast_to(np.asarray(blend, dtype=np.float32), (n,)).copy())


def quad(mat_a, mat_b=None, blend=0.0, half=10.0, z=0.0, centre=(0.0, 0.0)):
    """A square facing +Z (counter-clockwise seen from +Z), ``half`` m from its centre to each side."""
    cx, cy = centre
    corners = [[cx - half, cy - half, z], [cx + half, cy - half, z], [cx + half, cy + half, z],
               [cx - half, cy + half, z]]
    return display_mesh(corners, [[0, 1, 2], [0, 2, 3]], mat_a, mat_b, blend, normals=[[0, 0, 1]] * 4)


def cube(lo=(-1.0, -1.0, -1.0), hi=(1.0, 1.0, 1.0)):
    """A box with flat-shaded faces, outward and counter-clockwise; top and bottom grass, sides rock."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    positions, indices, materials = [], [], []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            u, v = (axis + 1) % 3, (axis + 2) % 3
            normal = np.zeros(3)
            normal[axis] = sign
            corners = []
            for du, dv in ((0, 0), (1, 0), (1, 1), (0, 1)):
                point = np.where(normal > 0, hi, lo).astype(float)
                point[u] = (lo, hi)[du][u]
                point[v] = (lo, hi)[dv][v]
                corners.append(point)
            base = len(positions)
            order = [0, 1, 2, 0, 2, 3] if sign > 0 else [0, 2, 1, 0, 3, 2]
            positions += corners
            indices += [[base + order[k] for k in range(j, j + 3)] for j in (0, 3)]
            materials += [GRASS if axis == 1 else ROCK] * 4
    return display_mesh(positions, indices, materials)


def icosphere(subdivisions=2, radius=1.0, centre=(0.0, 0.0, 0.0)):
    t = (1 + 5 ** 0.5) / 2
    points = [np.array(p, float) for p in ((-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t),
                                           (0, -1, -t), (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1))]
    points = [p / np.linalg.norm(p) for p in points]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2),
             (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11),
             (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(subdivisions):
        middles: dict[tuple[int, int], int] = {}

        def middle(a, b, middles=middles):
            key = (min(a, b), max(a, b))
            if key not in middles:
                m = points[a] + points[b]
                points.append(m / np.linalg.norm(m))
                middles[key] = len(points) - 1
            return middles[key]

        faces = [f for a, b, c in faces for f in ((a, middle(a, b), middle(c, a)), (b, middle(b, c), middle(a, b)),
                                                  (c, middle(c, a), middle(b, c)),
                                                  (middle(a, b), middle(b, c), middle(c, a)))]
    unit = np.array(points)
    return unit * radius + np.asarray(centre), unit, np.array(faces)


def two_material_sphere():
    """Lava below, ice above, blended across the equator."""
    positions, normals, faces = icosphere(3)
    blend = np.clip(positions[:, 1] * 1.5 + 0.5, 0.0, 1.0)
    return display_mesh(positions, faces, LAVA, ICE, blend, normals=normals)


def collision_of(positions, faces, material=ROCK):
    return types.SimpleNamespace(positions=np.asarray(positions, np.float32), indices=np.asarray(faces, np.uint32),
                                 tri_material=np.full(len(faces), material, np.uint8))


# --- picture measurements -------------------------------------------------------------------------------------


def background_share(picture, background=BACKGROUND):
    close = np.all(np.abs(picture.astype(int) - np.round(np.array(background) * 255)) <= 2, axis=-1)
    return float(close.mean())


def hsv(rgb):
    return colorsys.rgb_to_hsv(*(np.asarray(rgb, float) / (255 if np.max(rgb) > 1 else 1)))


def hue_distance(a, b):
    d = abs(a - b) % 1.0
    return min(d, 1.0 - d)


def centre_pixel(picture):
    height, width, _ = picture.shape
    return picture[height // 2, width // 2].astype(float)


def wire_pixels(picture):
    """Pixels that are mostly magenta (the default wireframe colour): red and blue well above green."""
    rgb = picture.astype(int)
    return int(np.sum((rgb[..., 0] - rgb[..., 1] > 80) & (rgb[..., 2] - rgb[..., 1] > 80)))


# --- pictures -------------------------------------------------------------------------------------------------


def test_snapshot_writes_a_png_of_the_requested_size_and_returns_its_path(tmp_path):
    out = tmp_path / "shot.png"
    result = snapshot(two_material_sphere(), out, materials=TABLE, size=(320, 200))
    assert result == out and isinstance(result, Path)
    with Image.open(out) as image:
        assert image.format == "PNG" and image.size == (320, 200) and image.mode == "RGB"


def test_snapshot_takes_a_str_path_and_the_default_size(tmp_path):
    result = snapshot(cube(), str(tmp_path / "cube.png"), materials=TABLE)
    with Image.open(result) as image:
        assert image.size == (960, 540)


def test_a_two_material_mesh_gives_a_picture_with_both_materials_and_shading(tmp_path):
    path = snapshot(two_material_sphere(), tmp_path / "sphere.png", materials=TABLE, size=(240, 160))
    picture = np.asarray(Image.open(path).convert("RGB"))
    assert 0.2 < background_share(picture) < 0.9  # the default camera frames the mesh: neither lost nor cropped
    drawn = picture[np.abs(picture.astype(int) - np.round(np.array(BACKGROUND) * 255)).max(axis=-1) > 2]
    assert len(np.unique(drawn, axis=0)) > 50  # lit smoothly, not flat
    hues = np.array([hsv(p)[0] for p in drawn[::7]])
    lava_hue, ice_hue = hsv(TABLE["lava"].colour)[0], hsv(TABLE["ice"].colour)[0]
    assert np.sum([hue_distance(h, lava_hue) < 0.03 for h in hues]) > 20
    assert np.sum([hue_distance(h, ice_hue) < 0.03 for h in hues]) > 20


def test_the_default_camera_frames_meshes_far_from_the_origin():
    far_away = cube(lo=(1000.0, 40.0, -310.0), hi=(1004.0, 44.0, -306.0))
    picture = render(far_away, materials=TABLE, size=(200, 120))
    assert 0.3 < background_share(picture) < 0.95
    border = np.concatenate([picture[0], picture[-1], picture[:, 0], picture[:, -1]])
    assert background_share(border[None]) == 1.0  # nothing touches the edge


@pytest.mark.parametrize("name", ["grass", "ice", "sand", "rock", "wood", "obsidian"])
def test_a_quad_filling_the_view_shows_its_texture_averaging_to_its_colour_under_the_light(name):
    picture = render(quad(TABLE.id_of(name)), materials=TABLE, camera=FRONT, size=(64, 48))
    assert background_share(picture) == 0.0
    mean, colour = picture.reshape(-1, 3).mean(axis=0), np.array(TABLE[name].colour)
    h, s, v = hsv(mean)
    hm, sm, vm = hsv(colour)
    if sm > 0.1:
        assert hue_distance(h, hm) < 0.03
    assert s == pytest.approx(sm, abs=0.08)
    # Light scales the colour: a face turned sideways to the sun, lit by the sky and a little sun.
    assert 0.45 <= v / vm <= 1.1
    # A picture, not one colour: the texture shows.
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 40
    assert picture.reshape(-1, 3).std(axis=0).max() > 3


def quad_mean(mat_a, mat_b=None, blend=0.0, size=(48, 48)):
    return render(quad(mat_a, mat_b, blend), materials=TABLE, camera=FRONT, size=size).reshape(-1, 3).mean(axis=0)


def test_blend_0_shows_mat_a_blend_1_mat_b_and_a_half_blend_lies_halfway_between_their_textures():
    sand = TABLE.id_of("sand")
    grass_only, half, sand_only = (quad_mean(GRASS, sand, b) for b in (0.0, 0.5, 1.0))
    assert np.allclose(grass_only, quad_mean(GRASS), atol=0.5) and np.allclose(sand_only, quad_mean(sand), atol=0.5)
    assert np.abs(grass_only - sand_only).max() > 40
    assert np.allclose(half, (grass_only + sand_only) / 2, atol=2.5)
    lava_only = quad_mean(GRASS, LAVA, 1.0)
    assert hue_distance(hsv(grass_only)[0], hsv(TABLE["grass"].colour)[0]) < 0.03
    assert hue_distance(hsv(lava_only)[0], hsv(TABLE["lava"].colour)[0]) < 0.05


def test_the_blend_varies_across_a_triangle():
    left_to_right = quad(GRASS, LAVA, blend=[0.0, 1.0, 1.0, 0.0], half=1.0)
    camera = Camera((0, 0, 1.5), (0, 0, 0), fov=60)
    picture = render(left_to_right, materials=TABLE, camera=camera, size=(64, 64)).astype(float)
    grass = render(quad(GRASS), materials=TABLE, camera=camera, size=(64, 64)).astype(float)
    lava = render(quad(LAVA), materials=TABLE, camera=camera, size=(64, 64)).astype(float)
    left, right = (slice(24, 40), slice(2, 8)), (slice(24, 40), slice(-8, -2))  # the quad spans the picture
    assert np.abs(picture[left].mean(axis=(0, 1)) - grass[left].mean(axis=(0, 1))).max() < 20
    assert np.abs(picture[right].mean(axis=(0, 1)) - lava[right].mean(axis=(0, 1))).max() < 20


def test_material_0_is_plain_grey():
    picture = render(quad(0), materials=TABLE, camera=FRONT, size=(16, 16))
    pixel = centre_pixel(picture)
    assert np.ptp(pixel) <= 12 and pixel[0] > 50  # grey, under a warm sun and a blue sky
    assert np.ptp(picture.reshape(-1, 3), axis=0).max() <= 2  # no texture: one colour


def test_colours_come_from_the_table_given():
    red = MaterialTable([Material(1, "red", "test", 1.0, colour=(1.0, 0.0, 0.0))])
    mean = render(quad(1), materials=red, camera=FRONT, size=(16, 16)).reshape(-1, 3).mean(axis=0)
    assert mean[0] > 100 and mean[1] < 25 and mean[2] < 25


def patch(picture, row, column, radius=3):
    """The mean colour around a pixel."""
    return picture[row - radius:row + radius + 1, column - radius:column + radius + 1].reshape(-1, 3).mean(axis=0)


def closer_to(colour, name, other):
    """Whether ``colour``'s hue is nearer the material ``name``'s than ``other``'s."""
    hue = hsv(colour)[0]
    return hue_distance(hue, hsv(TABLE[name].colour)[0]) < hue_distance(hue, hsv(TABLE[other].colour)[0])


def test_the_nearer_surface_hides_the_farther_one_whatever_the_order():
    near, far = quad(LAVA, z=0.5), quad(ICE, z=-0.5)
    lava_hue = hsv(TABLE["lava"].colour)[0]
    for meshes in ([near, far], [far, near]):
        picture = render(meshes, materials=TABLE, camera=FRONT, size=(32, 32))
        assert hue_distance(hsv(patch(picture, 16, 16, 8))[0], lava_hue) < 0.05


def test_every_mesh_of_a_list_is_drawn():
    left, right = quad(LAVA, half=0.5, centre=(-0.6, 0.0)), quad(ICE, half=0.5, centre=(0.6, 0.0))
    picture = render([left, right], materials=TABLE, camera=FRONT, size=(96, 48))
    lava_hue, ice_hue = hsv(TABLE["lava"].colour)[0], hsv(TABLE["ice"].colour)[0]
    # The view is 6.9 m wide where the quads are: their centres at -0.6 m and +0.6 m are columns 40 and 56.
    assert hue_distance(hsv(patch(picture, 24, 40))[0], lava_hue) < 0.05
    assert hue_distance(hsv(patch(picture, 24, 56))[0], ice_hue) < 0.03


def test_a_back_face_is_drawn_darker_than_the_front():
    front = render(quad(ICE), materials=TABLE, camera=FRONT, size=(16, 16)).reshape(-1, 3).mean(axis=0)
    behind = Camera(eye=(0.0, 0.0, -3.0), target=(0.0, 0.0, 0.0))
    back = render(quad(ICE), materials=TABLE, camera=behind, size=(16, 16)).reshape(-1, 3).mean(axis=0)
    assert back.sum() > 0 and back.sum() < front.sum()


def test_a_zero_normal_falls_back_to_the_flat_normal():
    flat = quad(GRASS)
    flat.normals[:] = 0.0
    assert np.allclose(centre_pixel(render(flat, materials=TABLE, camera=FRONT, size=(16, 16))),
                       centre_pixel(render(quad(GRASS), materials=TABLE, camera=FRONT, size=(16, 16))), atol=2)


def test_no_meshes_give_the_background():
    picture = render([], materials=TABLE, size=(20, 10), background=(0.0, 0.5, 1.0))
    assert np.all(picture == np.array([0, 128, 255])) or np.all(picture == np.array([0, 127, 255]))


def test_the_same_input_gives_the_same_picture():
    first = render(two_material_sphere(), materials=TABLE, size=(160, 90))
    assert np.array_equal(first, render(two_material_sphere(), materials=TABLE, size=(160, 90)))


# --- collision wireframe --------------------------------------------------------------------------------------


def test_a_collision_wireframe_adds_pixels_of_the_wireframe_colour():
    positions, _, faces = icosphere(1)
    plain = render(two_material_sphere(), materials=TABLE, size=(240, 160))
    wired = render(two_material_sphere(), materials=TABLE, size=(240, 160), collision=collision_of(positions, faces))
    assert wire_pixels(plain) == 0
    assert wire_pixels(wired) > 300


def test_the_wireframe_shows_the_front_edges_of_a_coarser_mesh_under_the_surface():
    # An icosahedron inscribed in the display sphere lies under it everywhere but at its corners, as a coarse
    # collision mesh does; its front edges still show, its back edges do not.
    positions, _, faces = icosphere(0)
    wired = render(two_material_sphere(), materials=TABLE, camera=FRONT, size=(200, 200),
                   collision=collision_of(positions, faces))
    front_only = render([], materials=TABLE, camera=FRONT, size=(200, 200),
                        collision=collision_of(positions, faces))
    assert wire_pixels(wired) > 0.8 * wire_pixels(front_only)
    seen_through = render([], materials=TABLE, camera=FRONT, size=(200, 200),
                          collision=collision_of(positions[:, [0, 1, 2]] * [1, 1, 1], faces[:, ::-1]))
    assert wire_pixels(seen_through) == wire_pixels(front_only)  # winding does not matter to hiding


def test_the_wireframe_colour_can_be_chosen_and_a_list_of_collision_meshes_is_drawn():
    positions, _, faces = icosphere(1, radius=0.4)
    pieces = [collision_of(positions - [0.6, 0, 0], faces), collision_of(positions + [0.6, 0, 0], faces)]
    picture = render([], materials=TABLE, camera=FRONT, size=(120, 60), collision=pieces,
                     wireframe_colour=(0.0, 0.0, 0.0), background=(1.0, 1.0, 1.0))
    dark = picture.sum(axis=-1) < 200
    assert dark[:, :60].sum() > 50 and dark[:, 60:].sum() > 50


def test_snapshot_draws_the_wireframe_too(tmp_path):
    positions, _, faces = icosphere(1)
    path = snapshot(two_material_sphere(), tmp_path / "wired.png", materials=TABLE, size=(160, 120),
                    collision=collision_of(positions, faces))
    assert wire_pixels(np.asarray(Image.open(path).convert("RGB"))) > 100


# --- camera ---------------------------------------------------------------------------------------------------


def test_camera_matrices_put_the_target_in_the_middle_and_near_far_at_the_depth_limits():
    camera = Camera(eye=(3.0, 4.0, 5.0), target=(1.0, 1.0, -2.0), fov=50, near=0.5, far=40.0)
    view = camera.view_matrix()
    target = view @ [1.0, 1.0, -2.0, 1.0]
    distance = np.linalg.norm(np.subtract(camera.target, camera.eye))
    assert np.allclose(target, [0.0, 0.0, -distance, 1.0])
    assert np.allclose(view[:3, :3] @ view[:3, :3].T, np.identity(3))  # a rotation: lengths kept
    projection = camera.projection_matrix(2.0)
    for depth, ndc in ((0.5, -1.0), (40.0, 1.0)):
        clip = projection @ [0.0, 0.0, -depth, 1.0]
        assert clip[2] / clip[3] == pytest.approx(ndc)
    # Half the vertical field of view up from the centre is the top edge; twice as wide as high.
    half = np.tan(np.radians(25.0))
    clip = projection @ [2 * half * 10, half * 10, -10.0, 1.0]
    assert clip[0] / clip[3] == pytest.approx(1.0) and clip[1] / clip[3] == pytest.approx(1.0)


def test_camera_up_points_up_in_the_picture():
    picture = render([quad(LAVA, half=0.3, centre=(0.0, 0.8)), quad(ICE, half=5.0, z=-1.0)], materials=TABLE,
                     camera=FRONT, size=(64, 64))
    assert closer_to(patch(picture, 16, 32), "lava", "ice")  # +Y is the top half of the picture
    assert closer_to(patch(picture, 48, 32), "ice", "lava")


@pytest.mark.parametrize("lo, hi, aspect", [((0, 0, 0), (96, 47, 96), 16 / 9), ((-1, -2, -3), (1, 2, 3), 0.5),
                                            ((5, 5, 5), (5, 5, 5), 1.0), ((0, 0, 0), (10, 0, 10), 3.0)])
def test_looking_at_bounds_sees_every_corner_of_the_box(lo, hi, aspect):
    camera = Camera.looking_at_bounds(lo, hi, aspect=aspect)
    matrix = camera.projection_matrix(aspect) @ camera.view_matrix()
    for corner in np.array(np.meshgrid(*zip(lo, hi, strict=True))).reshape(3, -1).T:
        clip = matrix @ np.append(corner, 1.0)
        assert np.all(np.abs(clip[:3] / clip[3]) < 1.0)


def test_looking_at_bounds_takes_a_given_eye_or_target():
    camera = Camera.looking_at_bounds((0, 0, 0), (10, 10, 10), eye=(5, 30, 5.5))
    assert camera.eye == (5.0, 30.0, 5.5) and camera.target == (5.0, 5.0, 5.0)
    assert camera.near <= 30 - 10 and camera.far >= 30  # the top and bottom of the box, seen from above
    straight_down = Camera.looking_at_bounds((0, 0, 0), (10, 10, 10), eye=(5, 30, 5))
    assert straight_down.up == (0.0, 0.0, -1.0)
    aimed = Camera.looking_at_bounds((0, 0, 0), (10, 10, 10), target=(0, 0, 0))
    assert aimed.target == (0.0, 0.0, 0.0) and aimed.eye != aimed.target


@pytest.mark.parametrize("fields, parameter", [
    ({"eye": (0, float("nan"), 0)}, "eye"), ({"eye": (0, 0)}, "eye"), ({"eye": "abc"}, "eye"),
    ({"target": (0, 0, float("inf"))}, "target"), ({"target": (0, 0, 5)}, "target"),
    ({"up": (0, 0, 0)}, "up"), ({"up": (0, 0, 2)}, "up"), ({"fov": 0}, "fov"), ({"fov": 180}, "fov"),
    ({"fov": float("nan")}, "fov"), ({"near": 0}, "near"), ({"near": 2, "far": 1}, "far"), ({"far": 0.1}, "far"),
])
def test_camera_refuses_bad_fields_naming_them(fields, parameter):
    arguments = {"eye": (0, 0, 5), "target": (0, 0, 0)} | fields
    with pytest.raises(ParameterError) as excinfo:
        Camera(**arguments)
    assert excinfo.value.parameter == parameter


@pytest.mark.parametrize("arguments, parameter", [
    ({"lo": (0, 0, 0), "hi": (-1, 1, 1)}, "hi"), ({"lo": (0, float("nan"), 0), "hi": (1, 1, 1)}, "lo"),
    ({"lo": (0, 0, 0), "hi": (1, 1, 1), "aspect": 0}, "aspect"),
    ({"lo": (0, 0, 0), "hi": (1, 1, 1), "direction": (0, 0, 0)}, "direction"),
    ({"lo": (0, 0, 0), "hi": (1, 1, 1), "fov": 200}, "fov"),
])
def test_looking_at_bounds_refuses_bad_input_naming_it(arguments, parameter):
    with pytest.raises(ParameterError) as excinfo:
        Camera.looking_at_bounds(**arguments)
    assert excinfo.value.parameter == parameter


# --- input checks ---------------------------------------------------------------------------------------------


def broken(**changes):
    mesh = quad(GRASS, LAVA, blend=0.5)
    for name, value in changes.items():
        setattr(mesh, name, value)
    return mesh


@pytest.mark.parametrize("meshes, parameter", [
    (broken(normals=np.zeros((3, 3), np.float32)), "meshes.normals"),
    (broken(mat_a=np.ones(5, np.uint8)), "meshes.mat_a"),
    (broken(mat_b=np.ones(3, np.uint8)), "meshes.mat_b"),
    (broken(blend=np.zeros(2, np.float32)), "meshes.blend"),
    (broken(positions=np.zeros((4, 2), np.float32)), "meshes.positions"),
    (broken(positions=np.array([[0, 0, 0], [1, 0, 0], [1, np.nan, 0], [0, 1, 0]], np.float32)), "meshes.positions"),
    (broken(normals=np.full((4, 3), np.inf, np.float32)), "meshes.normals"),
    (broken(indices=np.array([[0, 1, 4]], np.uint32)), "meshes.indices"),
    (broken(indices=np.array([[0, 1, -1]], np.int64)), "meshes.indices"),
    (broken(indices=np.array([[0, 1, 2, 3]], np.uint32)), "meshes.indices"),
    (broken(indices=np.array([[0.0, 1.0, 2.0]])), "meshes.indices"),
    (broken(mat_a=np.full(4, 200, np.uint8)), "meshes.mat_a"),  # no material 200 in the table
    (broken(mat_b=np.full(4, 256, np.int64)), "meshes.mat_b"),
    (broken(blend=np.array([0, 0.5, 1.5, 0], np.float32)), "meshes.blend"),
    (broken(blend=np.array([0, np.nan, 1, 0], np.float32)), "meshes.blend"),
    ([quad(GRASS), broken(indices=np.array([[0, 1, 9]], np.uint32))], "meshes[1].indices"),
    ([quad(GRASS), types.SimpleNamespace(positions=np.zeros((1, 3)))], "meshes[1]"),
])
def test_bad_meshes_raise_parameter_error_naming_the_field(tmp_path, meshes, parameter):
    out = tmp_path / "never.png"
    with pytest.raises(ParameterError) as excinfo:
        snapshot(meshes, out, materials=TABLE, size=(16, 16))
    assert excinfo.value.parameter == parameter
    assert parameter in str(excinfo.value)
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_the_message_shows_an_array_by_its_shape_not_its_contents():
    with pytest.raises(ParameterError) as excinfo:
        render(broken(normals=np.zeros((3000, 3), np.float32)), materials=TABLE)
    assert "shape (3000, 3)" in str(excinfo.value) and len(str(excinfo.value)) < 300


@pytest.mark.parametrize("size", [(0, 10), (10, 0), (0, 0), (-5, 10), (10,), (10, 10, 10), "big", 100, (1.5, 10),
                                  (True, 10), (100000, 10), None])
def test_a_bad_size_raises_parameter_error(size):
    with pytest.raises(ParameterError) as excinfo:
        render(quad(GRASS), materials=TABLE, size=size)
    assert excinfo.value.parameter == "size"


@pytest.mark.parametrize("changes, parameter", [
    ({"background": (0, 0, 2)}, "background"), ({"background": (0, 0, float("nan"))}, "background"),
    ({"background": "blue"}, "background"), ({"wireframe_colour": (1, 1)}, "wireframe_colour"),
    ({"materials": {"grass": (0, 1, 0)}}, "materials"), ({"camera": ((0, 0, 3), (0, 0, 0))}, "camera"),
    ({"collision": collision_of([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 3]])}, "collision.indices"),
    ({"collision": types.SimpleNamespace(positions=np.zeros((3, 3)), indices=np.uint32([[0, 1, 2]]),
                                         tri_material=np.uint8([1, 1]))}, "collision.tri_material"),
    ({"collision": [collision_of([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]]),
                    collision_of([[0, 0, np.nan], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])]}, "collision[1].positions"),
])
def test_bad_options_raise_parameter_error_naming_them(changes, parameter):
    arguments = {"materials": TABLE, "size": (16, 16)} | changes
    with pytest.raises(ParameterError) as excinfo:
        render(quad(GRASS), **arguments)
    assert excinfo.value.parameter == parameter


def test_a_nan_eye_is_refused_before_anything_is_drawn(tmp_path):
    with pytest.raises(ParameterError) as excinfo:
        snapshot(quad(GRASS), tmp_path / "x.png", materials=TABLE, camera=Camera((float("nan"), 0, 3), (0, 0, 0)))
    assert excinfo.value.parameter == "eye"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("where", ["missing/shot.png", "", "."])
def test_a_path_outside_an_existing_folder_or_a_folder_is_refused(tmp_path, where):
    with pytest.raises(ParameterError) as excinfo:
        snapshot(quad(GRASS), tmp_path / where if where else where, materials=TABLE, size=(8, 8))
    assert excinfo.value.parameter == "path"


def test_errors_are_voxelworld_errors():
    assert issubclass(RenderError, VoxelworldError) and not issubclass(RenderError, ParameterError)


def test_without_egl_a_render_error_says_what_is_missing(monkeypatch):
    monkeypatch.setenv("GLCONTEXT_LINUX_LIBEGL", "/nonexistent/libEGL.so.1")
    with pytest.raises(RenderError) as excinfo:
        render(quad(GRASS), materials=TABLE, size=(8, 8))
    message = str(excinfo.value)
    assert "EGL" in message and "scripts/setup" in message
    monkeypatch.delenv("GLCONTEXT_LINUX_LIBEGL")
    assert render(quad(GRASS), materials=TABLE, size=(8, 8)).shape == (8, 8, 3)  # and nothing stays broken


def test_without_moderngl_a_render_error_says_to_run_setup(monkeypatch):
    monkeypatch.setitem(sys.modules, "moderngl", None)
    with pytest.raises(RenderError, match="moderngl.*scripts/setup"):
        render(quad(GRASS), materials=TABLE, size=(8, 8))


# --- atomic writing -------------------------------------------------------------------------------------------


def test_no_temporary_file_is_left_beside_the_picture(tmp_path):
    snapshot(cube(), tmp_path / "a.png", materials=TABLE, size=(32, 32))
    snapshot(cube(), tmp_path / "a.png", materials=TABLE, size=(32, 32))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.png"]


def test_an_existing_file_is_replaced_whole(tmp_path):
    out = tmp_path / "shot.png"
    out.write_bytes(b"old contents " * 100000)  # longer than the new picture: no tail may survive
    snapshot(cube(), out, materials=TABLE, size=(40, 30))
    data = out.read_bytes()
    assert data.startswith(b"\x89PNG") and b"old contents" not in data
    with Image.open(io.BytesIO(data)) as image:
        image.load()
        assert image.size == (40, 30)


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path, monkeypatch):
    out = tmp_path / "shot.png"
    out.write_bytes(b"old picture")

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(Image.Image, "save", fail)
    with pytest.raises(OSError, match="disk full"):
        snapshot(cube(), out, materials=TABLE, size=(16, 16))
    assert out.read_bytes() == b"old picture"
    assert [p.name for p in tmp_path.iterdir()] == ["shot.png"]


def test_the_picture_gets_ordinary_file_permissions(tmp_path):
    umask = os.umask(0o022)
    try:
        path = snapshot(cube(), tmp_path / "shot.png", materials=TABLE, size=(8, 8))
    finally:
        os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o644


# --- voxelworld render ----------------------------------------------------------------------------------------


def heightfield_mesher(volume, options):
    """Stands in for voxelworld.meshing.mesh_volume: the top of every column of solid voxels, as a grid."""
    solid = volume.density >= volume.iso
    nx, _, nz = solid.shape
    tops = np.where(solid.any(axis=1), solid.shape[1] - 1 - np.argmax(solid[:, ::-1, :], axis=1), 0)
    x, z = np.meshgrid(np.arange(nx), np.arange(nz), indexing="ij")
    positions = (np.stack([x, tops, z], axis=-1).reshape(-1, 3) * volume.voxel_size + volume.origin)
    material = volume.mat_a[x, tops, z].reshape(-1)
    cells = (x[:-1, :-1] * nz + z[:-1, :-1]).reshape(-1)
    faces = np.concatenate([np.stack([cells, cells + 1, cells + nz], axis=1),
                            np.stack([cells + nz, cells + 1, cells + nz + 1], axis=1)])
    return display_mesh(positions, faces, material)


def fake_meshing(monkeypatch):
    module = types.ModuleType("voxelworld.meshing")
    module.MeshOptions = lambda: None
    module.mesh_volume = heightfield_mesher

    def collision_mesh_volume(volume, options):
        mesh = heightfield_mesher(volume, options)
        return collision_of(mesh.positions, mesh.indices[::7])

    module.collision_mesh_volume = collision_mesh_volume
    monkeypatch.setitem(sys.modules, "voxelworld.meshing", module)


def test_render_command_writes_the_world_with_a_stand_in_mesher(tmp_path, monkeypatch, capsys):
    fake_meshing(monkeypatch)
    out = tmp_path / "world.png"
    assert cli.main(["render", "--out", str(out), "--width", "320", "--height", "180", "--collision"]) == 0
    printed = capsys.readouterr().out
    assert str(out) in printed and "display triangles" in printed and "collision triangles" in printed
    picture = np.asarray(Image.open(out).convert("RGB"))
    assert picture.shape == (180, 320, 3)
    assert 0.1 < background_share(picture) < 0.9 and wire_pixels(picture) > 50
    plain = tmp_path / "plain.png"
    assert cli.main(["render", "--out", str(plain), "--width", "320", "--height", "180"]) == 0
    picture = np.asarray(Image.open(plain).convert("RGB"))
    assert wire_pixels(picture) == 0
    grass_hue = hsv(TABLE["grass"].colour)[0]
    # Grass, textured: blades and tufts vary its hue around the table colour's.
    assert sum(hue_distance(hsv(p)[0], grass_hue) < 0.06 for p in picture.reshape(-1, 3)[::11]) > 500


def test_render_command_takes_eye_and_target(tmp_path, monkeypatch, capsys):
    fake_meshing(monkeypatch)
    top, side = tmp_path / "top.png", tmp_path / "side.png"
    assert cli.main(["render", "--out", str(top), "--width", "96", "--height", "64",
                     "--eye", "48", "70", "48.5", "--target", "48", "0", "48"]) == 0
    assert cli.main(["render", "--out", str(side), "--width", "96", "--height", "64", "--eye", "-60", "20", "48"]) == 0
    from_above, from_the_side = (np.asarray(Image.open(p).convert("RGB")) for p in (top, side))
    assert background_share(from_above) < 0.05  # the ground fills the view from straight above
    assert 0.2 < background_share(from_the_side)  # sky above the hills
    assert "top.png" in capsys.readouterr().out


def test_render_command_reports_bad_input_with_exit_code_2(tmp_path, capsys):
    assert cli.main(["render", "--out", str(tmp_path / "x.png"), "--width", "0"]) == 2
    assert "--width" in capsys.readouterr().err
    assert cli.main(["render", "--out", str(tmp_path / "no" / "x.png")]) == 2
    assert "--out" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_render_command_without_meshing_explains(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "voxelworld.meshing", None)
    assert cli.main(["render", "--out", str(tmp_path / "x.png")]) == 2
    assert "voxelworld.meshing" in capsys.readouterr().err


def test_render_command_renders_the_default_world(tmp_path, capsys):
    out = tmp_path / "shot.png"
    assert cli.main(["render", "--out", str(out), "--width", "320", "--height", "180", "--collision"]) == 0
    printed = capsys.readouterr().out
    assert str(out) in printed and "display triangles" in printed
    picture = np.asarray(Image.open(out).convert("RGB"))
    assert picture.shape == (180, 320, 3)
    assert 0.05 < background_share(picture) < 0.9 and wire_pixels(picture) > 50
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 100
