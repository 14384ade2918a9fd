"""Tests of voxelworld.navigation.scene: scene objects, scenes, and reading Wavefront OBJ levels.

Expected geometry is written from the OBJ text of each test (which vertex a face names), and compared as
triangle corner coordinates (``positions[indices]``), so the tests do not depend on how the reader numbers
vertices internally except where that numbering is the documented behaviour. The real level is checked against
a plain-Python scan of the file written here.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from voxelworld.errors import FormatError, ParameterError
from voxelworld.navigation import Scene, SceneObject
from voxelworld.navigation.scene import ROLES, SceneTriangles

from ..assets import NAV_TEST

# Six vertices used by many of the small files below (x, y, z in metres).
V = [(0.0, 0.0, 0.0), (4.0, 0.0, 0.0), (4.0, 0.0, 3.0), (0.0, 0.0, 3.0), (2.0, 1.5, 5.0), (-1.0, 2.0, 1.0)]
V_LINES = [f"v {x} {y} {z}" for x, y, z in V]


def write(tmp_path: Path, lines: list[str], name: str = "level.obj") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def corners(obj: SceneObject) -> np.ndarray:
    """The corner coordinates of every triangle, shape (m, 3, 3)."""
    return obj.positions[obj.indices]


def expected(*triangles: tuple[int, int, int]) -> np.ndarray:
    """Corner coordinates of triangles given as 1-based indices into V."""
    return np.array([[V[i - 1] for i in triangle] for triangle in triangles], dtype=np.float64)


def line_number(lines: list[str], line: str) -> int:
    return lines.index(line) + 1


# ------------------------------------------------------------------------------------------ SceneObject


def test_scene_object_copies_converts_and_freezes_its_arrays():
    positions = [[0, 0, 0], [1, 0, 0], [0, 0, 1]]  # ints: converted to float64
    indices = np.array([[0, 2, 1]], dtype=np.int32)
    obj = SceneObject("tri", positions, indices, "obstacle")
    assert obj.positions.dtype == np.float64 and obj.positions.shape == (3, 3)
    assert obj.indices.dtype == np.int64 and obj.indices.tolist() == [[0, 2, 1]]
    indices[0, 0] = 2  # the caller's array changing later does not reach the object
    assert obj.indices[0, 0] == 0
    with pytest.raises(ValueError):
        obj.positions[0, 0] = 5.0
    with pytest.raises(ValueError):
        obj.indices[0, 0] = 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        obj.role = "floor"  # type: ignore[misc]
    assert obj.role == "obstacle" and obj.triangle_count == 1


def test_scene_object_role_defaults_to_auto_and_empty_meshes_are_allowed():
    # Undesignated: the bake decides (the vertex-in-region rule, tests/navigation/test_auto_obstacles.py).
    assert SceneObject("a", [[0, 0, 0]], np.empty((0, 3), dtype=np.int64)).role == "auto"
    empty = SceneObject("nothing", [], [])
    assert empty.positions.shape == (0, 3) and empty.indices.shape == (0, 3) and empty.triangle_count == 0


@pytest.mark.parametrize("positions, parameter", [
    ([[0, 0, 0], [1, np.nan, 0], [0, 0, 1]], "positions[1]"),
    ([[0, 0, 0], [1, 0, 0], [0, 0, np.inf]], "positions[2]"),
    ([[0, 0], [1, 0], [0, 1]], "positions"),
    ([["a", "b", "c"]] * 3, "positions"),
    ([[0, 0, 0], [1, 0]], "positions"),  # ragged
    (np.zeros((3, 3, 1)), "positions"),
])
def test_scene_object_rejects_bad_positions(positions, parameter):
    with pytest.raises(ParameterError) as caught:
        SceneObject("tri", positions, [[0, 1, 2]])
    assert caught.value.parameter == parameter
    if parameter != "positions":  # a bad row is shown with its values
        assert ("nan" in str(caught.value)) or ("inf" in str(caught.value))


@pytest.mark.parametrize("indices, parameter, shown", [
    ([[0, 1, 3]], "indices[0]", "[0, 1, 3]"),
    ([[0, 1, 2], [0, -1, 2]], "indices[1]", "[0, -1, 2]"),
    ([[0.0, 1.0, 2.0]], "indices", "float64"),  # floats are refused, not rounded
    ([[0, 1]], "indices", "(1, 2)"),
    ([0, 1, 2], "indices", "(3,)"),
])
def test_scene_object_rejects_bad_indices(indices, parameter, shown):
    with pytest.raises(ParameterError) as caught:
        SceneObject("tri", [[0, 0, 0], [1, 0, 0], [0, 0, 1]], indices)
    assert caught.value.parameter == parameter
    assert shown in str(caught.value)


def test_scene_object_index_range_message_states_the_legal_range():
    with pytest.raises(ParameterError) as caught:
        SceneObject("tri", [[0, 0, 0], [1, 0, 0], [0, 0, 1]], [[0, 1, 3]])
    assert "[0, 2]" in str(caught.value)


@pytest.mark.parametrize("field, value", [("name", ""), ("name", 3), ("role", "wall"), ("role", None)])
def test_scene_object_rejects_bad_name_and_role(field, value):
    arguments = {"name": "tri", "positions": [[0, 0, 0], [1, 0, 0], [0, 0, 1]], "indices": [[0, 1, 2]],
                 "role": "floor", field: value}
    with pytest.raises(ParameterError) as caught:
        SceneObject(**arguments)
    assert caught.value.parameter == field and repr(value) in str(caught.value)


# ------------------------------------------------------------------------------------------ Scene


def triangle(name: str, x: float, role: str = "floor", height: float = 0.0) -> SceneObject:
    return SceneObject(name, [[x, height, 0], [x + 1, height, 0], [x, height + 1, 1]], [[0, 2, 1]], role)


def test_scene_keeps_order_and_looks_objects_up_by_name():
    objects = [triangle("b", 0), triangle("a", 5, "obstacle"), triangle("c", 9, "exception")]
    scene = Scene(objects)
    assert scene.names == ("b", "a", "c")
    assert list(scene) == objects and scene.objects == tuple(objects) and len(scene) == 3
    assert scene["a"] is objects[1] and scene.index("c") == 2
    assert "a" in scene and "z" not in scene and 3 not in scene
    with pytest.raises(ParameterError) as caught:
        scene["z"]
    assert caught.value.parameter == "name" and "'b'" in str(caught.value)


def test_scene_rejects_duplicate_names_and_non_objects():
    with pytest.raises(ParameterError) as caught:
        Scene([triangle("a", 0), triangle("b", 1), triangle("a", 2)])
    assert caught.value.parameter == "objects[2].name" and "objects[0]" in str(caught.value)
    with pytest.raises(ParameterError) as caught:
        Scene([triangle("a", 0), "b"])  # type: ignore[list-item]
    assert caught.value.parameter == "objects[1]"


def test_with_object_and_without_return_new_scenes_and_leave_the_old_one():
    scene = Scene([triangle("ground", 0)])
    grown = scene.with_object("crate", [[0, 0, 0], [1, 0, 0], [1, 1, 0]], [[0, 1, 2]], role="obstacle")
    assert scene.names == ("ground",) and grown.names == ("ground", "crate")
    assert grown["crate"].role == "obstacle" and grown["ground"] is scene["ground"]
    with pytest.raises(ParameterError) as caught:
        grown.with_object("ground", [[0, 0, 0]], [])
    assert caught.value.parameter == "name"
    with pytest.raises(ParameterError):  # a bad object is refused as a whole
        grown.with_object("bad", [[0, 0, 0]], [[0, 0, 1]])
    assert grown.names == ("ground", "crate")
    shrunk = grown.without("ground")
    assert shrunk.names == ("crate",) and grown.names == ("ground", "crate")
    with pytest.raises(ParameterError):
        grown.without("nothing")


def test_triangles_concatenate_objects_with_offsets_and_scene_wide_object_indices():
    scene = Scene([triangle("floor", 0), triangle("box", 5, "obstacle"), triangle("bush", 9, "exception"),
                   SceneObject("slab", [[0, 0, 0], [2, 0, 0], [2, 0, 2], [0, 0, 2]], [[0, 3, 2], [0, 2, 1]], "floor"),
                   triangle("rug", 12, "auto")])
    soup = scene.triangles()
    assert isinstance(soup, SceneTriangles)
    assert soup.positions.dtype == np.float64 and soup.indices.dtype == np.int64
    assert soup.tri_object.dtype == np.int64
    assert len(soup.positions) == sum(len(obj.positions) for obj in scene)
    assert soup.tri_object.tolist() == [0, 1, 2, 3, 3, 4]
    want = np.concatenate([corners(obj) for obj in scene])
    np.testing.assert_array_equal(soup.positions[soup.indices], want)

    hit = scene.triangles(roles=("floor", "obstacle"))
    assert hit.tri_object.tolist() == [0, 1, 3, 3]  # indices into scene.objects, not into the selection
    np.testing.assert_array_equal(hit.positions[hit.indices],
                                  np.concatenate([corners(scene[n]) for n in ("floor", "box", "slab")]))
    only = scene.triangles(roles="exception")
    assert only.tri_object.tolist() == [2] and len(only.positions) == 3
    assert scene.triangles(roles="auto").tri_object.tolist() == [4]  # the own role, not what a bake makes of it

    none = Scene([triangle("floor", 0)]).triangles(roles="obstacle")
    assert none.positions.shape == (0, 3) and none.indices.shape == (0, 3) and none.tri_object.shape == (0,)
    assert none.indices.dtype == np.int64 and none.tri_object.dtype == np.int64


@pytest.mark.parametrize("roles", ["wall", ["floor", "wall"], 7, [None]])
def test_triangles_and_bounds_reject_unknown_roles(roles):
    scene = Scene([triangle("floor", 0)])
    for method in (scene.triangles, scene.bounds):
        with pytest.raises(ParameterError) as caught:
            method(roles=roles)
        assert caught.value.parameter == "roles"


def test_bounds_cover_the_vertices_of_the_chosen_roles():
    scene = Scene([triangle("floor", 0), triangle("box", 5, "obstacle", height=3.0),
                   triangle("bush", -4, "exception")])
    lo, hi = scene.bounds()
    assert lo.tolist() == [-4.0, 0.0, 0.0] and hi.tolist() == [6.0, 4.0, 1.0]
    lo, hi = scene.bounds(roles="obstacle")
    assert lo.tolist() == [5.0, 3.0, 0.0] and hi.tolist() == [6.0, 4.0, 1.0]
    with pytest.raises(ParameterError) as caught:
        Scene([triangle("floor", 0)]).bounds(roles="obstacle")
    assert caught.value.parameter == "roles"
    with pytest.raises(ParameterError):
        Scene().bounds()


# ------------------------------------------------------------------------------------------ OBJ: faces


@pytest.mark.parametrize("form", ["{a}", "{a}/{a}", "{a}/{a}/{a}", "{a}//{a}"])
def test_every_face_vertex_form_names_the_same_vertices(tmp_path, form):
    faces = [" ".join(form.format(a=a) for a in face) for face in [(1, 2, 3), (1, 3, 4), (5, 6, 2)]]
    lines = [*V_LINES, *[f"vt 0.{i} 0.5" for i in range(6)], *["vn 0 1 0"] * 6, "o thing",
             *[f"f {face}" for face in faces]]
    scene = Scene.from_obj(write(tmp_path, lines))
    assert scene.names == ("thing",)
    np.testing.assert_array_equal(corners(scene["thing"]), expected((1, 2, 3), (1, 3, 4), (5, 6, 2)))


def test_negative_indices_count_back_from_the_last_vertex_read(tmp_path):
    lines = [*V_LINES[:3], "f -3 -2 -1",  # the three vertices so far
             *V_LINES[3:], "f -1 -6 -4",  # V6, V1, V3
             "f 2/1/1 -2//1 -5/2"]  # mixed: V2, V5, V2 -> a degenerate triangle is still read as written
    obj = Scene.from_obj(write(tmp_path, lines))["level"]
    np.testing.assert_array_equal(corners(obj), expected((1, 2, 3), (6, 1, 3), (2, 5, 2)))


def test_polygons_are_split_into_a_fan_around_their_first_vertex(tmp_path):
    lines = [*V_LINES, "g quad", "f 1 2 3 4", "g pent", "f 3 4 1 2 5", "g hex", "f 6 1 2 3 4 5"]
    scene = Scene.from_obj(write(tmp_path, lines))
    np.testing.assert_array_equal(corners(scene["quad"]), expected((1, 2, 3), (1, 3, 4)))
    np.testing.assert_array_equal(corners(scene["pent"]), expected((3, 4, 1), (3, 1, 2), (3, 2, 5)))
    np.testing.assert_array_equal(corners(scene["hex"]),
                                  expected((6, 1, 2), (6, 2, 3), (6, 3, 4), (6, 4, 5)))


def test_fan_of_a_convex_polygon_keeps_its_area_and_winding(tmp_path):
    angles = np.linspace(0.0, 2.0 * np.pi, 9)[:-1]  # a regular octagon of radius 2 in the y = 1 plane
    ring = np.stack([2.0 * np.cos(angles), np.ones(8), 2.0 * np.sin(angles)], axis=1)
    lines = [f"v {float(x)!r} {float(y)!r} {float(z)!r}" for x, y, z in ring]
    lines.append("f " + " ".join(str(i) for i in range(1, 9)))
    obj = Scene.from_obj(write(tmp_path, lines))["level"]
    assert obj.triangle_count == 6
    c = corners(obj)
    normals = np.cross(c[:, 1] - c[:, 0], c[:, 2] - c[:, 0])
    # counter-clockwise in (x, z) seen from +y is a -y normal for a right-handed frame
    assert np.all(normals[:, 1] < 0) and np.allclose(normals[:, [0, 2]], 0.0)
    octagon_area = 0.5 * 8 * 2.0**2 * np.sin(2 * np.pi / 8)
    assert np.isclose(0.5 * np.abs(normals[:, 1]).sum(), octagon_area)


# ------------------------------------------------------------------------------------------ OBJ: objects


def test_o_and_g_start_objects_and_faces_before_them_go_to_the_file_stem(tmp_path):
    lines = [*V_LINES, "f 1 2 3", "o first", "f 1 3 4", "g second part", "f 5 6 1", "o", "f 2 3 4", "g",
             "f 4 5 6"]
    scene = Scene.from_obj(write(tmp_path, lines, name="my_room.obj"))
    assert scene.names == ("my_room", "first", "second part", "default")
    np.testing.assert_array_equal(corners(scene["my_room"]), expected((1, 2, 3)))
    np.testing.assert_array_equal(corners(scene["first"]), expected((1, 3, 4)))
    np.testing.assert_array_equal(corners(scene["second part"]), expected((5, 6, 1)))
    # a bare o and a bare g both name "default", so the second continues the first
    np.testing.assert_array_equal(corners(scene["default"]), expected((2, 3, 4), (4, 5, 6)))


def test_repeated_names_merge_at_the_first_place_and_empty_objects_are_dropped(tmp_path):
    lines = ["o nothing_here", *V_LINES, "g a", "f 1 2 3", "g b", "f 4 5 6", "g empty", "g a", "f 2 3 4",
             "o b", "f 6 1 2", "g tail", "f 1 1 1", "g also_empty"]
    scene = Scene.from_obj(write(tmp_path, lines))
    assert scene.names == ("a", "b", "tail")
    np.testing.assert_array_equal(corners(scene["a"]), expected((1, 2, 3), (2, 3, 4)))
    np.testing.assert_array_equal(corners(scene["b"]), expected((4, 5, 6), (6, 1, 2)))


def test_objects_are_ordered_by_their_first_face(tmp_path):
    lines = [*V_LINES, "g a", "g b", "f 1 2 3", "g a", "f 2 3 4", "g c", "g b", "f 3 4 5"]
    scene = Scene.from_obj(write(tmp_path, lines))
    assert scene.names == ("b", "a")
    np.testing.assert_array_equal(corners(scene["b"]), expected((1, 2, 3), (3, 4, 5)))


def test_each_object_holds_only_its_own_vertices_in_file_order(tmp_path):
    lines = [*V_LINES, "o left", "f 4 1 3", "o right", "f 6 5 2", "f 5 6 4"]
    scene = Scene.from_obj(write(tmp_path, lines))
    left, right = scene["left"], scene["right"]
    np.testing.assert_array_equal(left.positions, np.array([V[0], V[2], V[3]]))
    np.testing.assert_array_equal(right.positions, np.array([V[1], V[3], V[4], V[5]]))
    assert left.indices.tolist() == [[2, 0, 1]]
    assert right.indices.tolist() == [[3, 2, 0], [2, 3, 1]]


def test_comments_continuations_and_other_statements_are_ignored(tmp_path):
    lines = ["# a level", "mtllib level.mtl", "v 0 0 0 1.0  # with w", "v 4 0 0 0.5 0.2 0.1  # with colour",
             "v 4 0 \\", "  3", "vt 0 0", "vn 0 1 0", "vp 0.5", "s 1", "usemtl stone", "o slab # the slab",
             "l 1 2", "p 1", "f 1 \\", "3 2", "curv2 1 2", "   ", "f 1 2 3 # done"]
    scene = Scene.from_obj(write(tmp_path, lines))
    assert scene.names == ("slab",)
    np.testing.assert_array_equal(corners(scene["slab"]), expected((1, 3, 2), (1, 2, 3)))


def test_windows_line_endings_read_the_same(tmp_path):
    lines = [*V_LINES, "o a", "f 1 2 3 4", "g b", "f -1 -2 -3"]
    unix = Scene.from_obj(write(tmp_path, lines, "unix.obj"))
    path = tmp_path / "dos.obj"
    path.write_bytes("\r\n".join(lines).encode())
    dos = Scene.from_obj(path)
    assert dos.names == unix.names
    for name in unix.names:
        np.testing.assert_array_equal(dos[name].positions, unix[name].positions)
        np.testing.assert_array_equal(dos[name].indices, unix[name].indices)


def test_reading_is_deterministic(tmp_path):
    lines = [*V_LINES, "g z", "f 6 5 4 3", "g a", "f 1 2 3", "g m", "f 2 4 6"]
    path = write(tmp_path, lines)
    first, second = Scene.from_obj(path), Scene.from_obj(str(path))
    assert first.names == second.names == ("z", "a", "m")
    one, two = first.triangles(), second.triangles()
    for a, b in zip(one, two):
        assert a.tobytes() == b.tobytes()


# ------------------------------------------------------------------------------------------ OBJ: roles


def test_roles_follow_the_first_matching_pattern_in_order(tmp_path):
    names = ["Floor_main", "crate_01", "crate_big", "bush", "Crate_02", "pillar7", "tree"]
    lines = list(V_LINES)
    for name in names:
        lines += [f"o {name}", "f 1 2 3"]
    path = write(tmp_path, lines)
    roles = {"crate_b*": "floor", "crate_*": "obstacle", "pillar?": "obstacle", "[bt]*": "floor"}
    scene = Scene.from_obj(path, roles=roles, default_role="exception")
    got = {obj.name: obj.role for obj in scene}
    assert got == {"Floor_main": "exception",  # no pattern: the default
                   "crate_01": "obstacle", "crate_big": "floor",  # the earlier pattern wins
                   "bush": "floor", "tree": "floor",
                   "Crate_02": "exception",  # patterns are case-sensitive: only the default matched
                   "pillar7": "obstacle"}
    # the same rules in another order give another answer
    reordered = {"crate_*": "obstacle", "crate_b*": "floor"}
    assert Scene.from_obj(path, roles=reordered)["crate_big"].role == "obstacle"
    assert {obj.role for obj in Scene.from_obj(path)} == {"auto"}  # undesignated: the bake decides


@pytest.mark.parametrize("roles, default_role, parameter", [
    ({"crate*": "wall"}, "floor", "roles['crate*']"),
    ({3: "floor"}, "floor", "roles"),
    (["crate*"], "floor", "roles"),
    (None, "solid", "default_role"),
])
def test_bad_role_rules_are_refused(tmp_path, roles, default_role, parameter):
    path = write(tmp_path, [*V_LINES, "f 1 2 3"])
    with pytest.raises(ParameterError) as caught:
        Scene.from_obj(path, roles=roles, default_role=default_role)
    assert caught.value.parameter == parameter


def test_roles_are_one_of_four():
    assert ROLES == ("auto", "floor", "obstacle", "exception")


# ------------------------------------------------------------------------------------------ OBJ: errors


def test_missing_or_unreadable_files_raise_format_error_naming_the_file(tmp_path):
    missing = tmp_path / "missing.obj"
    with pytest.raises(FormatError) as caught:
        Scene.from_obj(missing)
    assert str(missing) in str(caught.value)
    with pytest.raises(FormatError) as caught:
        Scene.from_obj(tmp_path)  # a folder
    assert str(tmp_path) in str(caught.value)
    with pytest.raises(ParameterError) as caught:
        Scene.from_obj(42)  # type: ignore[arg-type]
    assert caught.value.parameter == "path"


@pytest.mark.parametrize("bad, problem", [
    ("v 1 x 3", "three numbers"),
    ("v 1 2", "three numbers"),
    ("v 1 nan 3", "finite"),
    ("v inf 0 0", "finite"),
    ("f 1 2 7", "7 is out of range"),
    ("f 1 2 -7", "-7 is out of range"),
    ("f 0 1 2", "index 0"),
    ("f 1 2", "at least 3"),
    ("f 1/ 2 3", "'1/'"),
    ("f 1/2/3/4 2 3", "'1/2/3/4'"),
    ("f 1 2 three", "'three'"),
    ("f 1 2/x 3", "'2/x'"),
    ("f 1/1/ 2 3", "'1/1/'"),
])
def test_bad_lines_raise_format_error_with_file_line_and_problem(tmp_path, bad, problem):
    lines = ["# header", "o thing", *V_LINES, "vt 0 0", "f 1 2 3", bad, "f 2 3 4"]
    path = write(tmp_path, lines)
    with pytest.raises(FormatError) as caught:
        Scene.from_obj(path)
    message = str(caught.value)
    assert str(path) in message
    assert f"line {line_number(lines, bad)}" in message
    assert problem in message


def test_out_of_range_message_gives_the_vertex_count_so_far(tmp_path):
    lines = [*V_LINES[:4], "f 1 2 5", *V_LINES[4:]]  # vertex 5 exists, but only after the face
    path = write(tmp_path, lines)
    with pytest.raises(FormatError) as caught:
        Scene.from_obj(path)
    assert f"line {line_number(lines, 'f 1 2 5')}" in str(caught.value)
    assert "4 vertices" in str(caught.value) and "1..4" in str(caught.value)
    with pytest.raises(FormatError) as caught:
        Scene.from_obj(write(tmp_path, ["f 1 2 3", *V_LINES], "early.obj"))
    assert "line 1" in str(caught.value) and "no vertex" in str(caught.value)


def test_a_continued_line_reports_the_line_it_starts_on(tmp_path):
    lines = [*V_LINES, "f 1 \\", "2 \\", "9"]
    with pytest.raises(FormatError) as caught:
        Scene.from_obj(write(tmp_path, lines))
    assert f"line {len(V_LINES) + 1}" in str(caught.value)


def test_a_file_without_faces_gives_an_empty_scene(tmp_path):
    scene = Scene.from_obj(write(tmp_path, [*V_LINES, "o lonely"]))
    assert len(scene) == 0 and scene.triangles().indices.shape == (0, 3)


# ------------------------------------------------------------------------------------------ the real level


def scan_obj(path: Path):
    """A plain reading of a file with only positive, in-range face indices: vertices, and per group (in order
    of first face) the fan triangles' corner coordinates."""
    vertices, groups, group = [], {}, path.stem
    for raw in path.read_text().splitlines():
        words = raw.split()
        if not words:
            continue
        if words[0] == "v":
            vertices.append([float(w) for w in words[1:4]])
        elif words[0] in ("o", "g"):
            group = " ".join(words[1:])
        elif words[0] == "f":
            ids = [int(w.split("/")[0]) for w in words[1:]]
            assert all(i > 0 for i in ids)  # the scan relies on it
            for k in range(1, len(ids) - 1):
                groups.setdefault(group, []).append([vertices[ids[0] - 1], vertices[ids[k] - 1],
                                                     vertices[ids[k + 1] - 1]])
    return np.array(vertices), groups


def test_nav_test_level_loads_with_the_counts_and_bounds_of_a_plain_scan():
    lines = NAV_TEST.read_text().splitlines()
    face_sizes = [len(line.split()) - 1 for line in lines if line.split()[:1] == ["f"]]
    v_rows = np.array([[float(w) for w in line.split()[1:4]] for line in lines if line.split()[:1] == ["v"]])
    used = {int(w.split("/")[0]) for line in lines if line.split()[:1] == ["f"] for w in line.split()[1:]}

    scene = Scene.from_obj(NAV_TEST)
    soup = scene.triangles()
    assert len(soup.indices) == sum(n - 2 for n in face_sizes)
    assert len(used) == len(v_rows)  # every vertex is used, so the scene's bounds are those of the v lines
    lo, hi = scene.bounds()
    np.testing.assert_array_equal(lo, v_rows.min(axis=0))
    np.testing.assert_array_equal(hi, v_rows.max(axis=0))
    assert sum(len(obj.positions) for obj in scene) >= len(v_rows)
    assert {obj.role for obj in scene} == {"auto"}  # undesignated; the bake keeps both floor (test_nav_test_level)


def test_nav_test_level_objects_match_a_plain_scan_triangle_for_triangle():
    _, groups = scan_obj(NAV_TEST)
    scene = Scene.from_obj(NAV_TEST)
    assert scene.names == tuple(groups)
    for name, triangles in groups.items():
        np.testing.assert_array_equal(corners(scene[name]), np.array(triangles))
    soup = scene.triangles()
    counts = np.bincount(soup.tri_object, minlength=len(scene))
    assert counts.tolist() == [len(triangles) for triangles in groups.values()]
    for index, obj in enumerate(scene):  # objects are independent meshes: no unused vertices
        assert np.unique(obj.indices).tolist() == list(range(len(obj.positions))), index


@pytest.mark.parametrize("dtype", [np.int64, np.uint32])
def test_the_first_bad_index_coordinate_or_area_type_is_named(dtype):
    """A vertex index out of range, a coordinate not finite or an area type index past the names: refused, naming
    the first such row (the checks look for it only once something is wrong)."""
    positions = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0]])
    indices = np.array([[0, 1, 2], [1, 3, 2], [1, 2, 3]], dtype=dtype)
    bad = indices.copy()
    bad[1, 2], bad[2, 0] = 4, 7
    with pytest.raises(ParameterError, match=r"indices\[1\] = \[1, 3, 4\].*\[0, 3\]"):
        SceneObject("o", positions, bad)
    edge = indices.copy()
    edge[2, 2] = 4  # one past the last vertex, alone
    with pytest.raises(ParameterError, match=r"indices\[2\]"):
        SceneObject("o", positions, edge)
    if np.dtype(dtype).kind == "i":
        bad = indices.copy()
        bad[2, 1] = -1
        with pytest.raises(ParameterError, match=r"indices\[2\]"):
            SceneObject("o", positions, bad)
    nan = positions.copy()
    nan[3, 1], nan[2, 0] = np.inf, np.nan
    with pytest.raises(ParameterError, match=r"positions\[2\]"):
        SceneObject("o", nan, indices)
    with pytest.raises(ParameterError, match=r"area_type\[1\]\[1\] = 2"):
        SceneObject("o", positions, indices, area_type=(("ground", "mud"), np.array([0, 2, 5], dtype=dtype)))
    fine = SceneObject("o", positions, indices, area_type=(("ground", "mud"), np.array([0, 1, 1], dtype=dtype)))
    assert fine.triangle_area_type.tolist() == [0, 1, 1] and fine.indices.dtype == np.int64
