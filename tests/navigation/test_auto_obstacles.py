"""The vertex-in-region rule (issue #16 §2): an object nobody designated (role "auto") is an obstacle when it has a
vertex inside the search region, stands on other objects and rises above obstacle_min_height; otherwise floor.
Roles given explicitly always win; NavSettings.auto_obstacles=False makes every "auto" object floor."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.navigation import NavQuery, NavSettings, Scene, SearchRegion
from voxelworld.navigation.bake import bake
from voxelworld.navigation.rays import bake_roles

from ..assets import NAV_TEST
from .test_bake import box

# 0.25 m cells on the crate's edges; every obstacle that rises above what it stands on cuts (not only those above
# the step limit, the default since issue 33): these tests are about the vertex-in-region rule.
EXACT = NavSettings(ray_density=16, agent_radius=0.0, min_region_area=0.0, obstacle_min_height=0.0)
# The ground's two triangles share the diagonal x = z, on which two of the crate's bottom corners lie.
GROUND = ([[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10]], [[0, 2, 1], [0, 3, 2]])
REGION = SearchRegion((0, -1, 0), (10, 3, 10))
CRATE = box((4, 0, 4), (6, 1, 6))  # 4 m² footprint, 1 m tall, on the ground


def room(crate_role: str = "auto", ground_role: str = "auto") -> Scene:
    return Scene().with_object("ground", *GROUND, role=ground_role).with_object("crate", *CRATE, role=crate_role)


def height_at(mesh, x: float, z: float) -> float | None:
    """The walkable height straight under (x, z) (looking from 5 m up), None where nothing is walkable."""
    query = NavQuery(mesh)
    point, polygon = query.nearest_point([x, 5.0, z])
    if polygon < 0 or abs(point[0] - x) > 1e-9 or abs(point[2] - z) > 1e-9:
        return None
    return float(point[1])


def test_an_undesignated_crate_on_the_floor_is_an_obstacle():
    assert bake_roles(room(), REGION, EXACT).roles == ("floor", "obstacle")
    mesh = bake(room(), REGION, EXACT)
    assert mesh.area() == pytest.approx(100.0 - 4.0)  # basic mode: the crate's footprint is cut out, top and all
    assert height_at(mesh, 5.0, 5.0) is None and height_at(mesh, 3.0, 5.0) == 0.0
    designated = bake(room(crate_role="obstacle"), REGION, EXACT)
    assert mesh.to_json() == designated.to_json()  # just as if it had been designated an obstacle


def test_the_floor_round_an_automatic_obstacle_keeps_the_agent_radius_away():
    settings = NavSettings(ray_density=16, agent_radius=0.5, min_region_area=0.0)
    mesh = bake(room(), REGION, settings)
    # The crate spans x 4..6: the cell centred 0.375 m from its side is inside the radius, 0.875 m outside it.
    assert height_at(mesh, 3.75 - 0.125, 5.0) is None and height_at(mesh, 3.25 - 0.125, 5.0) == 0.0
    assert height_at(mesh, 5.0, 5.0) is None
    # The ground shrinks by the radius at the region's edges too: 9 x 9 m, less the crate widened by the radius.
    assert 81.0 - 3.0 ** 2 <= mesh.area() <= 81.0 - 4.0


def test_a_designated_floor_role_wins_over_the_rule():
    assert bake_roles(room(crate_role="floor"), REGION, EXACT).roles == ("floor", "floor")
    mesh = bake(room(crate_role="floor"), REGION, EXACT)
    assert height_at(mesh, 5.0, 5.0) == pytest.approx(1.0)  # the crate's top is walkable ground
    assert mesh.area() == pytest.approx(100.0)  # the ground round it (96 m²) and its top (4 m²)
    # Scene.from_obj's patterns designate the same way; auto_obstacles=False makes every "auto" object floor.
    off = NavSettings(ray_density=16, agent_radius=0.0, min_region_area=0.0, auto_obstacles=False)
    assert bake_roles(room(), REGION, off).roles == ("floor", "floor")
    assert bake(room(), REGION, off).to_json() == mesh.to_json()


def test_from_obj_patterns_override_the_rule(tmp_path):
    lines = [f"v {x} {y} {z}" for x, y, z in GROUND[0]] + ["o ground", "f 1 3 2", "f 1 4 3", "o crate_1"]
    lines += [f"v {x} {y} {z}" for x, y, z in CRATE[0]] + [f"f {' '.join(str(5 + i) for i in t)}" for t in CRATE[1]]
    path = tmp_path / "room.obj"
    path.write_text("\n".join(lines))
    assert bake_roles(Scene.from_obj(path), REGION, EXACT).roles == ("floor", "obstacle")
    assert bake_roles(Scene.from_obj(path, roles={"crate*": "floor"}), REGION, EXACT).roles == ("floor", "floor")
    assert bake_roles(Scene.from_obj(path, default_role="floor"), REGION, EXACT).roles == ("floor", "floor")


def test_an_object_without_a_vertex_in_the_region_stays_floor():
    beam = box((-5, 0, 4), (15, 0.5, 6))  # across the region, every corner outside it
    half = box((-5, 0, 4), (5, 0.5, 6))  # the same beam with two corners inside
    far = box((20, 0, 4), (22, 1, 6))  # beside the region, on the ground's far part
    ground = ([[-10, 0, 0], [30, 0, 0], [30, 0, 10], [-10, 0, 10]], [[0, 2, 1], [0, 3, 2]])
    scene = Scene().with_object("ground", *ground).with_object("beam", *beam).with_object("half", *half) \
        .with_object("far", *far)
    assert bake_roles(scene, REGION, EXACT).roles == ("floor", "floor", "obstacle", "floor")
    # The far crate is an obstacle when the region takes it in.
    assert bake_roles(scene, SearchRegion((15, -1, 0), (25, 3, 10)), EXACT).roles[3] == "obstacle"
    beam_only = Scene().with_object("ground", *GROUND).with_object("beam", *beam)
    assert height_at(bake(beam_only, REGION, EXACT), 5.0, 5.0) == pytest.approx(0.5)  # its top is floor


def terrain(n: int = 21, size: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """A bumpy height field over [0, size]², lowest at its middle (where the crate stands), n x n vertices."""
    x, z = np.meshgrid(np.linspace(0, size, n), np.linspace(0, size, n), indexing="ij")
    y = 0.3 * (np.hypot(x - size / 2, z - size / 2) / size) ** 2 + 0.05 * np.sin(x) * np.cos(z)
    positions = np.column_stack([x.ravel(), y.ravel(), z.ravel()])
    cells = [(i * n + k, (i + 1) * n + k, (i + 1) * n + k + 1, i * n + k + 1) for i in range(n - 1)
             for k in range(n - 1)]
    return positions, np.array([t for a, b, c, d in cells for t in ((a, c, b), (a, d, c))])


def test_ground_planes_terrains_and_level_meshes_stay_floor():
    tiles = Scene([])
    for i in range(2):
        for k in range(2):  # a ground of four tiles side by side: none stands on another
            corners = [[5 * i + dx, 0, 5 * k + dz] for dx, dz in ((0, 0), (5, 0), (5, 5), (0, 5))]
            tiles = tiles.with_object(f"tile_{i}{k}", corners, [[0, 2, 1], [0, 3, 2]])
    assert bake_roles(tiles.with_object("crate", *CRATE), REGION, EXACT).roles == ("floor",) * 4 + ("obstacle",)
    sunk = box((4, -0.2, 4), (6, 1, 6))  # a crate sunk into the bumpy terrain: the terrain passes through it
    hills = Scene().with_object("terrain", *terrain()).with_object("crate", *sunk)
    assert bake_roles(hills, REGION, EXACT).roles == ("floor", "obstacle")
    # Recast's demo level: two big objects ("Generic", "Cube") overlapping across the level, neither under the
    # other everywhere; both stay floor (so test_nav_test_level's 3981 m² in 17 islands stand).
    level = Scene.from_obj(NAV_TEST)
    lo, hi = level.bounds()
    assert bake_roles(level, SearchRegion(lo - [0, 1, 0], hi + [0, 1, 0]), EXACT).roles == ("floor", "floor")


def test_a_low_automatic_object_is_transparent_or_floor_as_low_obstacles_says():
    rug = box((2, 0, 2), (4, 0.1, 4))  # on the ground, 0.1 m high
    scene = Scene().with_object("ground", *GROUND).with_object("rug", *rug)
    low = NavSettings(ray_density=16, agent_radius=0.0, min_region_area=0.0, obstacle_min_height=0.3,
                      low_obstacles="transparent")
    assert bake_roles(scene, REGION, low).roles == ("floor", "transparent")
    mesh = bake(scene, REGION, low)
    assert height_at(mesh, 3.0, 3.0) == 0.0 and mesh.area() == pytest.approx(100.0)  # the ground beneath it
    as_floor = NavSettings(**{**low.__dict__, "low_obstacles": "floor"})
    assert bake_roles(scene, REGION, as_floor).roles == ("floor", "floor")
    assert height_at(bake(scene, REGION, as_floor), 3.0, 3.0) == pytest.approx(0.1)  # its top, as before
    # Above the threshold it is an obstacle: at 0 m anything that rises above what it stands on.
    assert bake_roles(scene, REGION, EXACT).roles == ("floor", "obstacle")


def test_stacked_crates_and_a_hanging_lamp_are_obstacles_and_a_roof_is_no_support():
    upper = box((4.5, 1, 4.5), (5.5, 1.5, 5.5))  # on the crate
    lamp = box((1, 2, 1), (1.5, 2.5, 1.5))  # hanging 2 m over the ground: measured from the ground under it
    roofed = box((8, 0, 8), (9, 0.5, 9))  # under a roof that lies above its top: the ground holds it up
    roof = ([[7, 2, 7], [10, 2, 7], [10, 2, 10], [7, 2, 10]], [[0, 2, 1], [0, 3, 2]])
    scene = room().with_object("upper", *upper).with_object("lamp", *lamp).with_object("roofed", *roofed) \
        .with_object("roof", *roof, role="floor")
    assert bake_roles(scene, REGION, EXACT).roles == ("floor", "obstacle", "obstacle", "obstacle", "obstacle",
                                                      "floor")
    # Without the ground the crate stands on nothing: a roof over it, higher than its top, holds nothing up.
    over = ([[3, 2, 3], [7, 2, 3], [7, 2, 7], [3, 2, 7]], [[0, 2, 1], [0, 3, 2]])
    alone = Scene().with_object("crate", *CRATE).with_object("roof", *over, role="floor")
    assert bake_roles(alone, REGION, EXACT).roles == ("floor", "floor")


def test_crates_resting_on_a_landing_face_are_obstacles():
    crates = Scene().with_object("crate", *CRATE).with_object("crate_2", *box((8, 0, 1), (9, 2, 2)))
    landing = SearchRegion((0, 0, 0), (10, 3, 10), landing=True)  # its bottom face at the crates' bottoms
    assert bake_roles(crates, landing, EXACT) == (("obstacle", "obstacle"), True)
    assert bake(crates, landing, EXACT).area() == pytest.approx(100.0 - 4.0 - 1.0)
    # With the default landing (on only when no floor reaches in) the crates, standing on nothing, are floor,
    # which turns the landing face off: their tops are the walkable ground, as before the rule.
    assert bake_roles(crates, SearchRegion((0, 0, 0), (10, 3, 10)), EXACT) == (("floor", "floor"), False)
    # A floor above the landing face does not rest on it: it stays floor.
    raised = Scene().with_object("ground", [[x, 0.5, z] for x, _, z in GROUND[0]], GROUND[1])
    assert bake_roles(raised, SearchRegion((0, 0, 0), (10, 3, 10), landing=True), EXACT).roles == ("floor",)


def test_a_rebake_of_a_moved_automatic_crate_equals_a_full_bake():
    mesh = bake(room(), REGION, EXACT)
    moved = room().without("crate").with_object("crate", *box((6, 0, 1), (8, 1, 3)))
    mesh.rebake(((3.5, -1, 0.5), (8.5, 3, 6.5)), moved)
    assert mesh.to_json() == bake(moved, REGION, EXACT).to_json()
    assert height_at(mesh, 7.0, 2.0) is None and height_at(mesh, 5.0, 5.0) == 0.0


def test_roles_follow_the_scene_an_object_is_in_not_the_last_one_asked():
    # The same crate and plank objects in changed scenes: what each stands on is looked up again.
    crate = room()["crate"]
    plank = Scene().with_object("plank", *box((1, 1.0, 1), (3, 1.2, 3)))["plank"]
    stool = Scene().with_object("stool", *box((1.5, 0, 1.5), (2.5, 1.0, 2.5)))["stool"]
    low = NavSettings(ray_density=16, agent_radius=0.0, min_region_area=0.0, obstacle_min_height=0.3,
                      low_obstacles="transparent")
    with_stool = Scene([room()["ground"], crate, plank, stool])
    assert bake_roles(with_stool, REGION, low).roles == ("floor", "obstacle", "transparent", "obstacle")
    without = with_stool.without("stool")  # the plank now rises 1.2 m above the ground under it
    assert bake_roles(without, REGION, low).roles == ("floor", "obstacle", "obstacle")
    elsewhere = Scene([Scene().with_object("ground", [[x + 20, y, z] for x, y, z in GROUND[0]], GROUND[1])["ground"],
                       crate])  # the ground moved away from under the crate
    assert bake_roles(elsewhere, REGION, low).roles == ("floor", "floor")
    assert bake_roles(with_stool, REGION, low).roles == ("floor", "obstacle", "transparent", "obstacle")


def test_by_default_an_obstacle_the_agent_steps_onto_is_walked_on_not_cut_out():
    """Issue 33: a 10 cm mat designated an obstacle cut its 4 m² footprint out of the navmesh (obstacle_min_height
    was 0). By default the threshold is the agent's step limit and a low obstacle is floor: walked on, never
    through; a crate higher than the step limit still cuts; an explicit 0 m cuts the mat again."""
    mat = box((2, 0, 2), (4, 0.1, 4))
    crate = box((6, 0, 6), (7.5, 1.5, 7.5))
    scene = Scene().with_object("ground", *GROUND).with_object("mat", *mat, role="obstacle") \
        .with_object("crate", *crate, role="obstacle")
    settings = NavSettings(ray_density=16, agent_radius=0.0, min_region_area=0.0)  # step limit 0.9 m
    assert settings.obstacle_min_height is None and settings.obstacle_height == settings.step_limit
    assert bake_roles(scene, REGION, settings).roles == ("floor", "floor", "obstacle")
    mesh = bake(scene, REGION, settings)
    assert height_at(mesh, 3.0, 3.0) == pytest.approx(0.1)  # its top is walked on
    assert height_at(mesh, 6.75, 6.75) is None  # the crate cut
    assert mesh.area() == pytest.approx(100.0 - 1.5 * 1.5, abs=1.0)
    path = NavQuery(mesh).find_path((1.0, 0.0, 3.0), (5.0, 0.0, 3.0))
    assert path is not None and len(path.points) >= 2  # across the mat
    cut = NavSettings(**{**settings.__dict__, "obstacle_min_height": 0.0})
    assert bake_roles(scene, REGION, cut).roles == ("floor", "obstacle", "obstacle")
    assert height_at(bake(scene, REGION, cut), 3.0, 3.0) is None
