"""Turned search regions (issue 16 §2): regions of any orientation, rays along their own down axis, so walls,
ceilings and tilted decks carry navmeshes. A turned bake is compared with an independent flat bake of the same
geometry laid flat by hand (or turned by the test itself), never with the code's own transform."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from voxelworld.errors import FormatError, ParameterError
from voxelworld.navigation import NavMesh, NavQuery, NavSettings, Scene, SceneObject, SearchRegion
from voxelworld.navigation.bake import bake, local_regions
from voxelworld.navigation.frames import Frame, rotation_matrix

SETTINGS = NavSettings(ray_density=16, agent_radius=0.3, min_region_area=0)
CRATE_FACES = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
               [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
UP_QUAD = [[0, 2, 1], [0, 3, 2]]  # corners (x0, z0), (x1, z0), (x1, z1), (x0, z1): facing +y


def axis_angle(axis, degrees) -> tuple[float, float, float, float]:
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    half = math.radians(degrees) / 2
    return (*(axis * math.sin(half)).tolist(), math.cos(half))


def turn(points, rotation, pivot) -> np.ndarray:
    """The test's own turn of points by a quaternion about a pivot (R @ (p - pivot) + pivot)."""
    r = rotation_matrix(rotation)
    return (np.asarray(points, dtype=float) - pivot) @ r.T + pivot


def turned_scene(scene: Scene, rotation, pivot) -> Scene:
    return Scene([SceneObject(o.name, turn(o.positions, rotation, pivot), o.indices, o.role) for o in scene])


def turned_region(region: SearchRegion, rotation, pivot) -> SearchRegion:
    """``region`` turned by ``rotation`` about ``pivot``: its box moved so that its centre goes where the turn
    takes it, turned about that centre."""
    centre = np.array(region.centre)
    shift = turn(centre, rotation, pivot) - centre
    return SearchRegion(tuple(np.array(region.min) + shift), tuple(np.array(region.max) + shift),
                        landing=region.landing, rotation=rotation)


def quad(x0, x1, z0, z1, y=0.0) -> list[list[float]]:
    return [[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]]


def crate(x0, z0, size=2.0) -> list[list[float]]:
    return [[x, y, z] for x in (x0, x0 + size) for y in (0.0, size) for z in (z0, z0 + size)]


def floor_and_crate(crate_at=(4.0, 3.0)) -> Scene:
    return (Scene().with_object("floor", quad(0, 10, 0, 8), UP_QUAD)
            .with_object("crate", crate(*crate_at), CRATE_FACES, role="obstacle"))


FLOOR_REGION = SearchRegion((-0.1, -1.0, -0.1), (10.1, 3.0, 8.1))
ROTATION = axis_angle((1.0, 2.0, 3.0), 35.0)
PIVOT = np.array([2.0, -1.0, 7.0])


# ------------------------------------------------------------------------------------------- (a) any turn
def test_a_turned_scene_in_a_turned_region_bakes_the_turned_navmesh():
    flat = bake(floor_and_crate(), FLOOR_REGION, SETTINGS)
    mesh = bake(turned_scene(floor_and_crate(), ROTATION, PIVOT), turned_region(FLOOR_REGION, ROTATION, PIVOT),
                SETTINGS)
    assert flat.frame is None and mesh.frame is not None
    assert flat.polygon_count == mesh.polygon_count > 1
    assert mesh.area() == pytest.approx(flat.area(), rel=1e-9)
    assert 0 < flat.area() < 80 - 4
    np.testing.assert_allclose(mesh.world_vertices(), turn(flat.vertices, ROTATION, PIVOT), rtol=0, atol=1e-9)
    start, end = np.array([1.0, 0.0, 4.0]), np.array([9.0, 0.0, 4.2])  # the crate stands between them
    path = NavQuery(flat).find_path(start, end)
    turned = NavQuery(mesh).find_path(turn(start, ROTATION, PIVOT), turn(end, ROTATION, PIVOT))
    assert len(path.points) > 2  # it bends round the crate
    np.testing.assert_allclose(turned.points, turn(path.points, ROTATION, PIVOT), rtol=0, atol=1e-9)
    assert turned.length == pytest.approx(path.length, rel=1e-12)


def test_point_queries_answer_in_world_coordinates():
    flat = bake(floor_and_crate(), FLOOR_REGION, SETTINGS)
    mesh = bake(turned_scene(floor_and_crate(), ROTATION, PIVOT), turned_region(FLOOR_REGION, ROTATION, PIVOT),
                SETTINGS)
    a, b = NavQuery(flat), NavQuery(mesh)
    located = 0
    for point in ([1.0, 0.5, 1.0], [2.0, 0.3, 6.5], [8.5, -0.2, 1.5], [7.5, 0.1, 6.8], [5.0, 0.2, 4.0],
                  [12.0, 1.0, -3.0]):
        world = turn(point, ROTATION, PIVOT)
        assert b.locate(world) == a.locate(point)
        located += a.locate(point) >= 0
        (near_a, qa), (near_b, qb) = a.nearest_point(point), b.nearest_point(world)
        assert qa == qb
        np.testing.assert_allclose(near_b, turn(near_a, ROTATION, PIVOT), atol=1e-9)
    assert located == 4
    walked_a, reached_a = a.raycast([1.0, 0.0, 4.0], [9.0, 0.0, 4.0])  # stopped by the crate
    walked_b, reached_b = b.raycast(turn([1.0, 0.0, 4.0], ROTATION, PIVOT), turn([9.0, 0.0, 4.0], ROTATION, PIVOT))
    assert walked_b == pytest.approx(walked_a, abs=1e-9) and walked_a < 3.0
    np.testing.assert_allclose(reached_b, turn(reached_a, ROTATION, PIVOT), atol=1e-9)
    pa, pb = a.random_point(np.random.default_rng(5)), b.random_point(np.random.default_rng(5))
    np.testing.assert_allclose(pb, turn(pa, ROTATION, PIVOT), atol=1e-9)


def test_identity_takes_todays_path_bit_for_bit():
    plain = bake(floor_and_crate(), FLOOR_REGION, SETTINGS)
    explicit = bake(floor_and_crate(), dataclasses.replace(FLOOR_REGION, rotation=(0, 0, 0, 5)), SETTINGS)
    assert explicit.frame is None and plain.to_json() == explicit.to_json()
    assert "frame" not in json.loads(plain.to_json())
    assert np.array_equal(plain.world_vertices(), plain.vertices)
    scene = floor_and_crate()
    frame, seen, boxes = local_regions(scene, [FLOOR_REGION])
    assert frame is None and seen is scene and boxes[0] is FLOOR_REGION  # not a copy: today's path
    assert plain.bake_state.frame is None and NavQuery(plain)._frame is None


def test_regions_of_one_rotation_bake_together_as_each_alone():
    first = turned_region(FLOOR_REGION, ROTATION, PIVOT)
    second = turned_region(SearchRegion((20.0, -1.0, -0.1), (26.1, 3.0, 8.1)), ROTATION, PIVOT)
    scene = turned_scene(floor_and_crate().with_object("far", quad(20, 26, 0, 8), UP_QUAD), ROTATION, PIVOT)
    both = bake(scene, [first, second], SETTINGS)
    alone = [bake(scene, region, SETTINGS) for region in (first, second)]
    assert both.polygon_count == sum(m.polygon_count for m in alone)
    assert both.area() == pytest.approx(sum(m.area() for m in alone), rel=1e-9)
    theirs = np.concatenate([m.world_vertices() for m in alone])
    mine = both.world_vertices()
    assert np.abs(mine[:, None, :] - theirs[None, :, :]).max(axis=2).min(axis=1).max() < 1e-9


# ------------------------------------------------------------------------------------------------ (b) wall
def test_b_a_wall_carries_the_navmesh_the_quad_lying_flat_does():
    # A 6 m x 3 m wall in the plane x = 0 (z 0..6, y 0..3) facing -x; rays travel +x, towards it.
    wall = Scene().with_object("wall", [[0, 0, 0], [0, 0, 6], [0, 3, 6], [0, 3, 0]], [[0, 1, 2], [0, 2, 3]])
    centre = np.array([0.0, 1.5, 3.0])
    half = np.array([1.6, 1.0, 3.1])  # its own x across the wall's height, its own y along the rays
    region = SearchRegion(tuple(centre - half), tuple(centre + half), ray_direction=(1, 0, 0))
    mesh = bake(wall, region, SETTINGS)
    # The same quad lying flat, where the wall lies in the region's frame (x = height - 1.5, y = 1.5, z = z).
    flat = bake(Scene().with_object("quad", quad(-1.5, 1.5, 0, 6, y=1.5), UP_QUAD),
                SearchRegion(tuple(centre - half), tuple(centre + half)), SETTINGS)
    assert mesh.area() == pytest.approx(flat.area(), rel=1e-9)
    assert (3 - 4 * 0.3) * (6 - 4 * 0.3) < flat.area() < 18  # eroded by the radius and part of a cell
    assert mesh.polygon_count == flat.polygon_count
    world = mesh.world_vertices()
    assert np.abs(world[:, 0]).max() < 1e-9  # on the wall
    assert world[:, 1].min() > 0.2 and world[:, 1].max() < 2.8 and world[:, 2].min() > 0.2
    path = NavQuery(mesh).find_path([0.0, 0.5, 0.5], [0.0, 2.5, 5.5])  # up the wall
    assert path is not None and np.abs(path.points[:, 0]).max() < 1e-9
    assert path.length == pytest.approx(math.hypot(2.0, 5.0), rel=1e-9)


# --------------------------------------------------------------------------------------------- (c) ceiling
def test_c_a_ceiling_with_rays_going_up():
    # A 10 m x 8 m ceiling at y = 3, facing down (wound the other way round from a floor).
    ceiling = Scene().with_object("ceiling", quad(0, 10, 0, 8, y=3.0), [[0, 1, 2], [0, 2, 3]])
    ceiling = ceiling.with_object("lamp", [[x, 3.0 - y, z] for x, y, z in crate(4.0, 3.0)], CRATE_FACES,
                                  role="obstacle")  # a box hanging from it
    region = SearchRegion((-0.1, 2.0, -0.1), (10.1, 6.0, 8.1), ray_direction=(0, 1, 0))
    assert region.rotation == (1.0, 0.0, 0.0, 0.0)
    mesh = bake(ceiling, region, SETTINGS)
    # In the region's frame (a half turn about x through its centre (5, 4, 4)): y -> 8 - y, z -> 8 - z: a floor
    # at y = 5 with a crate from z = 3 to 5 standing on it.
    flat = bake(Scene().with_object("floor", quad(0, 10, 0, 8, y=5.0), UP_QUAD)
                .with_object("crate", [[x, 5.0 + y, z] for x, y, z in crate(4.0, 3.0)], CRATE_FACES,
                             role="obstacle"), SearchRegion((-0.1, 2.0, -0.1), (10.1, 6.0, 8.1)), SETTINGS)
    assert mesh.area() == pytest.approx(flat.area(), rel=1e-9) and flat.area() < 80 - 4
    assert mesh.polygon_count == flat.polygon_count
    world = mesh.world_vertices()
    np.testing.assert_allclose(world[:, 1], 3.0, atol=1e-9)
    np.testing.assert_allclose(np.sort(world[:, [0, 2]], axis=0),
                               np.sort(flat.vertices[:, [0, 2]] * [1, -1] + [0, 8], axis=0), atol=1e-9)
    path = NavQuery(mesh).find_path([1.0, 3.0, 4.0], [9.0, 3.0, 4.0])  # round the lamp
    assert len(path.points) > 2 and np.abs(path.points[:, 1] - 3.0).max() < 1e-9


# ----------------------------------------------------------------------------------------------- (d) deck
def test_d_a_tilted_deck_baked_in_a_tilted_region_is_as_large_as_flat():
    tilt = axis_angle((0, 0, 1), 20.0)  # the deck rises along x
    pivot = np.array([0.0, 0.0, 0.0])
    deck = Scene().with_object("deck", turn(quad(0, 10, 0, 4), tilt, pivot), UP_QUAD)
    flat_region = SearchRegion((-0.1, -1.0, -0.1), (10.1, 1.0, 4.1))
    region = turned_region(flat_region, tilt, pivot)
    mesh = bake(deck, region, SETTINGS)
    flat = bake(Scene().with_object("deck", quad(0, 10, 0, 4), UP_QUAD), flat_region, SETTINGS)
    assert mesh.area() == pytest.approx(flat.area(), rel=1e-9)
    assert (10 - 1.2) * (4 - 1.2) < flat.area() < 40
    world = mesh.world_vertices()
    slope = np.degrees(np.arctan2(np.ptp(world[:, 1]), np.ptp(world[:, 0])))
    assert slope == pytest.approx(20.0, abs=1e-6)
    # Baked upright, the same deck is seen foreshortened (cos 20 degrees along x).
    upright = bake(deck, SearchRegion((-0.5, -1.0, -0.1), (10.1, 4.5, 4.1)), SETTINGS)
    assert upright.area() < 0.96 * mesh.area()


# ------------------------------------------------------------------------------------------ (e) bad input
@pytest.mark.parametrize("rotation", [(0, 0, 0, 0), (0, math.nan, 0, 1), (0, 0, 1), (0, 0, 0, 1, 0), "turn", None,
                                      (math.inf, 0, 0, 1)])
def test_e_bad_rotations_are_refused(rotation):
    with pytest.raises(ParameterError) as caught:
        SearchRegion((0, 0, 0), (1, 1, 1), rotation=rotation)
    assert caught.value.parameter == "rotation"


def test_e_a_ray_direction_disagreeing_with_the_rotation_is_refused():
    with pytest.raises(ParameterError) as caught:
        SearchRegion((0, 0, 0), (1, 1, 1), ray_direction=(1, 0, 0), rotation=axis_angle((0, 0, 1), -90))
    assert caught.value.parameter == "ray_direction" and "(-1.0, 0.0, 0.0)" in str(caught.value)
    agreeing = SearchRegion((0, 0, 0), (1, 1, 1), ray_direction=(2, 0, 0), rotation=axis_angle((0, 0, 1), 90))
    assert agreeing.ray_direction == pytest.approx((1.0, 0.0, 0.0), abs=1e-15)


def test_rotations_are_stored_normalised_and_canonical():
    a = SearchRegion((0, 0, 0), (1, 1, 1), rotation=(0, 0, -2, -2))
    b = SearchRegion((0, 0, 0), (1, 1, 1), rotation=(0, 0, 1, 1))
    assert a == b and a.rotation == pytest.approx((0, 0, math.sqrt(0.5), math.sqrt(0.5)), rel=1e-15)
    assert all(type(c) is float for c in a.rotation) and a.rotation[3] > 0
    down = rotation_matrix(a.rotation) @ [0, -1, 0]
    assert a.ray_direction == pytest.approx(tuple(down), abs=1e-15)
    assert dataclasses.replace(a, rotation=(1, 0, 0, 0), ray_direction=None).ray_direction == (0.0, 1.0, 0.0)


def test_e_regions_of_two_rotations_are_not_baked_together():
    one = SearchRegion((0, -1, 0), (10, 3, 8), rotation=axis_angle((1, 0, 0), 10))
    other = SearchRegion((0, -1, 0), (10, 3, 8), rotation=axis_angle((1, 0, 0), 11))
    with pytest.raises(ParameterError) as caught:
        bake(floor_and_crate(), [one, other], SETTINGS)
    assert caught.value.parameter == "regions" and "share one rotation" in str(caught.value)
    with pytest.raises(ParameterError) as caught:
        bake(floor_and_crate(), [FLOOR_REGION, one], SETTINGS)
    assert caught.value.parameter == "regions"


# ------------------------------------------------------------------------------------------- (f) re-bake
@pytest.mark.parametrize("rotation, pivot", [(ROTATION, PIVOT), (axis_angle((1, 0, 1), 150), np.array([30, 5, -20]))])
def test_f_rebake_of_a_turned_region_is_the_full_bake_bit_for_bit(rotation, pivot):
    region = turned_region(FLOOR_REGION, rotation, pivot)
    mesh = bake(turned_scene(floor_and_crate(), rotation, pivot), region, SETTINGS)
    moved = turned_scene(floor_and_crate(crate_at=(6.5, 1.0)), rotation, pivot)
    corners = turn([[4.0, 0.0, 1.0], [8.5, 2.0, 5.0], [4.0, 2.0, 5.0], [8.5, 0.0, 1.0], [4, 2, 1], [8.5, 2, 1],
                    [4, 0, 5], [8.5, 0, 5]], rotation, pivot)  # the world box round the old and new place
    box = (corners.min(axis=0), corners.max(axis=0))
    before = mesh.area()
    rebuilt = mesh.rebake(box, moved)
    assert rebuilt and mesh.area() == pytest.approx(before, rel=1e-6)
    full = bake(moved, region, SETTINGS)
    for name in ("vertices", "polygon_start", "polygon_vertices", "polygon_level", "portals", "portal_segments",
                 "detail_origin", "detail_shape", "detail_heights", "frame"):
        mine, theirs = getattr(mesh, name), getattr(full, name)
        assert mine.dtype == theirs.dtype and mine.tobytes() == theirs.tobytes(), name
    assert mesh.to_json() == full.to_json()
    # The crate's new place is cut out: a path straight through where it stands now bends.
    query = NavQuery(mesh)
    path = query.find_path(turn([7.5, 0, 0.5], rotation, pivot), turn([7.5, 0, 7.5], rotation, pivot))
    assert len(path.points) > 2


# --------------------------------------------------------------------------------------------- (g) files
def test_g_json_keeps_the_frame():
    mesh = bake(turned_scene(floor_and_crate(), ROTATION, PIVOT), turned_region(FLOOR_REGION, ROTATION, PIVOT),
                SETTINGS)
    text = mesh.to_json()
    back = NavMesh.from_json(text)
    assert back.frame.tobytes() == mesh.frame.tobytes() and back.to_json() == text
    assert back.world_vertices().tobytes() == mesh.world_vertices().tobytes()
    path = NavQuery(back).find_path(turn([1, 0, 4], ROTATION, PIVOT), turn([9, 0, 4.2], ROTATION, PIVOT))
    assert path.points.tobytes() == NavQuery(mesh).find_path(turn([1, 0, 4], ROTATION, PIVOT),
                                                             turn([9, 0, 4.2], ROTATION, PIVOT)).points.tobytes()


def _square(frame):
    return NavMesh([[0, 0, 0], [0, 0, 2], [2, 0, 2], [2, 0, 0]], [0, 4], [0, 1, 2, 3], [0],
                   np.empty((0, 2), dtype=np.int64), np.empty((0, 2, 3)), frame=frame)


BAD_FRAMES = [
    np.hstack([2 * np.eye(3), np.zeros((3, 1))]),  # a scale
    np.hstack([np.diag([1.0, 1.0, -1.0]), np.zeros((3, 1))]),  # a mirror
    np.hstack([np.eye(3), [[math.nan], [0], [0]]]),
    np.hstack([[[1, 1e-6, 0], [0, 1, 0], [0, 0, 1]], np.zeros((3, 1))]),  # not orthonormal
    np.eye(3),  # no translation column
    "frame",
]


@pytest.mark.parametrize("frame", BAD_FRAMES)
def test_g_bad_frames_are_refused_naming_frame(frame):
    with pytest.raises(ParameterError) as caught:
        _square(frame)
    assert caught.value.parameter.startswith("frame")
    document = json.loads(_square(None).to_json())
    document["frame"] = frame.tolist() if isinstance(frame, np.ndarray) else frame
    with pytest.raises(FormatError) as caught:
        NavMesh.from_json(json.dumps(document).replace("NaN", "1e999"))
    assert "'frame" in str(caught.value)


def test_g_json_frames_of_booleans_are_refused():
    document = json.loads(_square(None).to_json())
    document["frame"] = [[True, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]
    with pytest.raises(FormatError) as caught:
        NavMesh.from_json(json.dumps(document))
    assert "'frame'" in str(caught.value)


def test_g_obj_holds_world_vertices(tmp_path):
    mesh = bake(turned_scene(floor_and_crate(), ROTATION, PIVOT), turned_region(FLOOR_REGION, ROTATION, PIVOT),
                SETTINGS)
    mesh.to_obj(tmp_path / "nav.obj")
    rows = [line.split()[1:] for line in (tmp_path / "nav.obj").read_text().splitlines() if line.startswith("v ")]
    np.testing.assert_allclose(np.array(rows, dtype=float), mesh.world_vertices(), atol=1e-6)


def test_frame_helper_round_trips():
    frame = Frame.about(ROTATION, PIVOT)
    points = np.random.default_rng(1).normal(size=(20, 3)) * 10
    np.testing.assert_allclose(frame.to_local(frame.to_world(points)), points, atol=1e-12)
    np.testing.assert_allclose(frame.to_world(points), turn(points, ROTATION, PIVOT), atol=1e-12)
    np.testing.assert_allclose(frame.vectors_to_world(frame.vectors_to_local(points)), points, atol=1e-12)
    lo, hi = frame.local_box(np.array([0.0, 0, 0]), np.array([1.0, 2, 3]))
    assert np.all(frame.to_local(points) == frame.to_local(points)) and np.all(lo < hi)


# --------------------------------------------------------------------------------------------- (h) codec
def test_h_world_codec_round_trips_a_turned_region_and_reads_old_ones():
    from voxelworld.io.codec import StateCodec
    from voxelworld.terrain import MaterialTable

    codec = StateCodec(MaterialTable.default())
    region = SearchRegion((0, -1, 0), (10, 3, 8), rotation=ROTATION, landing=False)
    data = json.loads(json.dumps(codec.encode(region, "navigation.region")))
    back = codec.decode(data, "navigation.region")
    assert back == region and back.rotation == region.rotation and back.ray_direction == region.ray_direction
    old = {"$": "navigation.settings.SearchRegion", "min": [0.0, -1.0, 0.0], "max": [10.0, 3.0, 8.0],
           "ray_direction": [0.0, -1.0, 0.0], "landing": None}
    assert codec.decode(old, "navigation.region") == SearchRegion((0, -1, 0), (10, 3, 8))
    ceiling = SearchRegion((0, -1, 0), (10, 3, 8), ray_direction=(0, 1, 0))
    assert codec.decode(json.loads(json.dumps(codec.encode(ceiling, "r"))), "r") == ceiling


def test_the_guides_example_runs():
    guide = (Path(__file__).resolve().parents[2] / "docs" / "navigation.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Turned regions"):]
    section = section[:section.index("\n## ", 1)]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], "docs/navigation.md", "exec"), {})


def test_turned_regions_that_meet_join_as_upright_ones_do():
    """Two touching regions of one rotation over a turned floor bake, as upright ones would, one island of the
    area of one region covering both (no erosion seam along the shared border)."""
    halves = [SearchRegion((-0.1, -1.0, -0.1), (5.0, 3.0, 8.1)), SearchRegion((5.0, -1.0, -0.1), (10.1, 3.0, 8.1))]
    scene = turned_scene(floor_and_crate(crate_at=(1.0, 1.0)), ROTATION, PIVOT)
    joined = bake(scene, [turned_region(r, ROTATION, PIVOT) for r in halves], SETTINGS)
    whole = bake(scene, turned_region(FLOOR_REGION, ROTATION, PIVOT), SETTINGS)
    upright = bake(floor_and_crate(crate_at=(1.0, 1.0)), halves, SETTINGS)
    assert len(joined.islands()) == 1
    assert joined.area() == pytest.approx(whole.area(), rel=1e-9)
    assert joined.area() == pytest.approx(upright.area(), rel=1e-9)
