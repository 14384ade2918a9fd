"""Area types through the bake (issue 33 §2): scene objects name them, each walkable cell takes the type of the
triangle it stands on, no polygon spans two types (while the portals between them stay), and re-bakes and tiles
baked apart give what a full bake gives, types included."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.navigation import NavQuery, NavSettings, Scene, SceneObject, SearchRegion
from voxelworld.navigation._kernels.regions import area_links
from voxelworld.navigation.bake import bake
from voxelworld.navigation.sampling import level_links
from voxelworld.navigation.tiles import TiledNavMesh

from .test_rebake import BASE, REGION, assert_same, level

SQUARE = [[0, 0, 0], [8, 0, 0], [8, 0, 8], [0, 0, 8]]
TWO = [[0, 2, 1], [0, 3, 2]]
SETTINGS = NavSettings(ray_density=4, agent_radius=0, min_region_area=0)
BOX = SearchRegion((0, -1, 0), (8, 3, 8))


def strip(x0: float, x1: float, y: float = 0.01) -> list[list[float]]:
    return [[x0, y, 0], [x1, y, 0], [x1, y, 8], [x0, y, 8]]


def areas_by_type(mesh) -> dict[str, float]:
    areas = mesh.polygon_areas()
    return {name: float(areas[mesh.polygon_area_type == n].sum()) for n, name in enumerate(mesh.area_types)}


def strips() -> Scene:
    """One floor of three strips along x (0-3, 3-5, 5-8 m), the middle one mud."""
    positions = [[x, 0, z] for x in (0, 3, 5, 8) for z in (0, 8)]
    quads = [[2 * n, 2 * n + 1, 2 * n + 3, 2 * n + 2] for n in range(3)]
    triangles = [[a, b, c] for a, b, c, d in quads] + [[a, c, d] for a, b, c, d in quads]
    return Scene().with_object("floor", positions, triangles, area_type=["ground", "mud", "ground"] * 2)


@pytest.mark.parametrize("scene", [strips(), Scene().with_object("floor", SQUARE, TWO).with_object(
    "mud", strip(3, 5), TWO, role="floor", area_type="mud")], ids=["one floor", "a strip on the floor"])
def test_a_mud_strip_gives_mud_polygons_joined_to_the_ground_by_portals(scene):
    mesh = bake(scene, BOX, SETTINGS)
    assert mesh.area_types == ("ground", "mud")
    assert areas_by_type(mesh) == {"ground": 48.0, "mud": 16.0}
    for q in range(mesh.polygon_count):  # every polygon lies wholly on one side of the strip's edges
        x = mesh.polygon(q)[:, 0]
        on_mud = mesh.polygon_area_type[q] == 1
        assert (np.all((x >= 3) & (x <= 5)) if on_mud else np.all((x <= 3) | (x >= 5))), q
    kinds = mesh.polygon_area_type[mesh.portals]
    assert np.any(kinds[:, 0] != kinds[:, 1])  # ground and mud still meet through portals
    assert len(mesh.islands()) == 1
    path = NavQuery(mesh).find_path((1, 0, 4), (7, 0, 4))
    assert np.allclose(path.points[-1], (7, 0.0, 4), atol=1e-6) and path.length == pytest.approx(6.0)


def test_per_triangle_types_and_the_pair_form_give_the_same_navmesh():
    # Two triangles of one object: one name each, or names and an index per triangle.
    names = bake(Scene().with_object("floor", SQUARE, TWO, area_type=["mud", "ground"]), BOX, SETTINGS)
    pair = bake(Scene().with_object("floor", SQUARE, TWO, area_type=(("ground", "mud"), [1, 0])), BOX, SETTINGS)
    assert_same(names, pair)
    # The cells whose centres lie on the diagonal both triangles share take the first triangle's type.
    assert areas_by_type(names) == {"ground": 30.0, "mud": 34.0}


def test_only_ground_bakes_as_before_and_an_unused_type_is_named():
    plain = bake(Scene().with_object("floor", SQUARE, TWO), BOX, SETTINGS)
    assert plain.area_types == ("ground",) and plain.polygon_area_type.tolist() == [0]
    far = [[20, 0, 20], [21, 0, 20], [21, 0, 21]]
    named = bake(Scene().with_object("floor", SQUARE, TWO).with_object("far", far, [[0, 2, 1]], area_type="ice"),
                 BOX, SETTINGS)
    assert named.area_types == ("ground", "ice")
    assert named.polygon_area_type.tolist() == [0] and np.array_equal(named.vertices, plain.vertices)


@pytest.mark.parametrize("area_type, field", [
    ("Mud", "area_type"), ("", "area_type"), (["mud"], "len(area_type)"), (["mud", 3], "area_type[1]"),
    ((("mud", "mud"), [0, 1]), "area_type[0]"), ((("mud",), [0, 1]), "area_type[1][1]"),
    ((("mud", "ice"), [0.0, 1.0]), "area_type[1]"), ((("mud", "x" * 33), [0, 1]), "area_type[0][1]"),
    (7, "area_type"),
])
def test_bad_area_types_are_refused_naming_the_field(area_type, field):
    with pytest.raises(ParameterError) as caught:
        SceneObject("floor", SQUARE, TWO, area_type=area_type)
    assert caught.value.parameter == field
    with pytest.raises(ParameterError):
        Scene().with_object("floor", SQUARE, TWO, area_type=area_type)


def test_from_obj_takes_area_types_by_name_pattern(tmp_path):
    path = tmp_path / "level.obj"
    path.write_text("o ground\nv 0 0 0\nv 4 0 0\nv 4 0 4\nf 1 3 2\no mud_1\nv 5 0 0\nv 6 0 0\nv 6 0 1\nf 4 6 5\n")
    scene = Scene.from_obj(path, area_types={"mud*": "mud"})
    assert [obj.area_types for obj in scene] == [("ground",), ("mud",)]
    with pytest.raises(ParameterError) as caught:
        Scene.from_obj(path, area_types={"mud*": "Mud"})
    assert caught.value.parameter == "area_types['mud*']"


def test_a_turned_bake_keeps_the_types():
    scene = Scene().with_object("floor", SQUARE, TWO).with_object("mud", strip(3, 5), TWO, role="floor",
                                                                  area_type="mud")
    turned = SearchRegion((0, -1, 0), (8, 3, 8), rotation=(0.0, np.sin(np.radians(15)), 0.0, np.cos(np.radians(15))))
    mesh = bake(scene, turned, SETTINGS)
    assert mesh.area_types == ("ground", "mud") and set(mesh.polygon_area_type.tolist()) == {0, 1}


# ----------------------------------------------------------------------------------------------- re-bakes
def mud_patch(x: float, z: float, kind: str = "mud") -> tuple:
    positions = [[x, 0.0, z], [x + 4, 0.0, z], [x + 4, 0.0, z + 3], [x, 0.0, z + 3]]
    return positions, TWO, "floor", kind


def hills_with(scene: Scene, *patches: tuple) -> Scene:
    # A patch lies 5 cm over the hills (each corner lifted onto them; it bends less than that between).
    for n, (positions, indices, role, kind) in enumerate(patches):
        lifted = np.array(positions, float)
        lifted[:, 1] = 0.6 * np.sin(lifted[:, 0] / 6.0) * np.cos(lifted[:, 2] / 5.0) + 0.02 * lifted[:, 0] + 0.05
        scene = scene.with_object(f"patch_{n}", lifted, indices, role, kind)
    return scene


@pytest.mark.parametrize("options", [{}, {"levels": True}, {"max_corners": 3}])
def test_rebakes_with_area_types_equal_full_bakes(options):
    settings = NavSettings(**{**BASE.__dict__, **options})
    before = hills_with(level(), mud_patch(4, 4))
    mesh = bake(before, REGION, settings)
    assert "mud" in mesh.area_types and (mesh.polygon_area_type == 1).any()
    # The patch moves; then only its type changes (same triangles); then a type sorting before "mud" appears.
    steps = [(hills_with(level(), mud_patch(14, 18)), ((4, -2, 4), (18, 4, 21))),
             (hills_with(level(), mud_patch(14, 18, "ice")), ((14, -2, 18), (18, 4, 21))),
             (hills_with(level(), mud_patch(14, 18, "ice"), mud_patch(2, 22, "ash")), ((2, -2, 22), (6, 4, 25)))]
    for scene, box in steps:
        rebuilt = mesh.rebake(box, scene)
        assert rebuilt, box
        assert_same(mesh, bake(scene, REGION, settings))
    assert mesh.area_types == ("ground", "ash", "ice")
    assert set(mesh.polygon_area_type.tolist()) == {0, 1, 2}


def test_tiles_baked_apart_carry_the_types_of_a_full_bake():
    region = SearchRegion((0, -1, 0), (40, 3, 40), landing=False)
    settings = NavSettings(ray_density=16, agent_radius=0.2, min_region_area=0.5)
    floor = [[0, 0, 0], [40, 0, 0], [40, 0, 40], [0, 0, 40]]
    scene = Scene().with_object("floor", floor, TWO, role="floor").with_object(
        "mud", [[2, 0.01, 2], [30, 0.01, 2], [30, 0.01, 9], [2, 0.01, 9]], TWO, role="floor", area_type="mud")
    full = bake(scene, region, settings)
    tiled = TiledNavMesh(region, settings)
    tiled.change(scene, bake=[(x, z) for x in range(3) for z in range(3)])
    assert_same(tiled.mesh, full)
    assert full.area_types == ("ground", "mud") and (full.polygon_area_type == 1).any()
    # Tiles baked from scenes naming other types join into one table of the types their polygons have.
    other = scene.with_object("far", [[60, 0, 60], [61, 0, 60], [61, 0, 61]], [[0, 2, 1]], area_type="ice")
    tiled.change(other, bake=[(2, 2)])
    assert tiled.mesh.area_types == ("ground", "mud")
    assert np.array_equal(tiled.mesh.polygon_area_type, full.polygon_area_type)


# ------------------------------------------------------------------------------------------------ kernel
def reference_area_links(links, area, i_lo, k_lo, i_hi, k_hi):
    steps = [(1, 0), (-1, 0), (0, 1), (0, -1)]
    nx, nz, levels = area.shape
    out = np.empty((4, i_hi - i_lo, k_hi - k_lo, levels), np.int64)
    for d, (di, dk) in enumerate(steps):
        for i in range(i_lo, i_hi):
            for k in range(k_lo, k_hi):
                for s in range(levels):
                    t = int(links[d, i, k, s])
                    ni, nk = i + di, k + dk
                    if t >= 0 and 0 <= ni < nx and 0 <= nk < nz and area[ni, nk, t] != area[i, k, s]:
                        t = -1
                    out[d, i - i_lo, k - k_lo, s] = t
    return out


@pytest.mark.parametrize("seed", range(5))
def test_area_links_equal_the_plain_python_reference(seed):
    rng = np.random.default_rng(seed)
    height = np.where(rng.random((9, 7, 2)) < 0.8, rng.integers(0, 3, (9, 7, 2)) * 0.3, np.nan)
    area = rng.integers(0, 3, (9, 7, 2))
    links = level_links(height, 0.4)
    out = np.empty((4, 5, 4, 2), np.int64)
    area_links(links, area, 2, 1, 7, 5, out)
    assert np.array_equal(out, reference_area_links(links, area, 2, 1, 7, 5))
    assert (out != links[:, 2:7, 1:5]).any() or not (area != area[0, 0, 0]).any()
