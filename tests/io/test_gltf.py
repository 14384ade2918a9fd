"""Tests of voxelworld.io.gltf: the .glb export of a world, read back with pygltflib and checked by the Khronos
glTF validator (tests/io/validate_gltf.mjs, run with node; the validator comes from the repository's
node_modules, which scripts/setup installs)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import types
from pathlib import Path

import numpy as np
import PIL.Image
import pygltflib
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.world import VoxelEdit, World
from voxelworld.io.gltf import export_glb, glb_bytes, srgb_to_linear
from voxelworld.io.parts import dominant_materials
from voxelworld.terrain import TEXTURE_METRES, Sphere, VoxelVolume, texture_set

ROOT = Path(__file__).resolve().parents[2]
VALIDATOR = Path(__file__).with_name("validate_gltf.mjs")
_TYPES = {5121: np.uint8, 5125: np.uint32, 5126: np.float32}
_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3}


@pytest.fixture(scope="module")
def world() -> World:
    return World.demo(seed=0)


@pytest.fixture(scope="module")
def dug() -> World:
    """The demo world after a hole, a lump of iron and 30 frames (the navmesh re-baked around them)."""
    world = World.demo(seed=0)
    feet = world.player.position
    world.queue_edit(VoxelEdit("remove", Sphere(tuple((feet + [3.0, 0.0, 0.0]).tolist()), 2.5), source="test"))
    world.queue_edit(VoxelEdit("add", Sphere(tuple((feet + [-3.0, 1.0, 0.0]).tolist()), 1.5), material="iron",
                               source="test"))
    for _ in range(30):
        world.step()
    return world


def validate(path: Path) -> dict:
    """The Khronos validator's report on ``path``; skipped where node or the validator is missing (failed under
    CI, whose set-up installs both)."""
    node = shutil.which("node")
    if node is None or not (ROOT / "node_modules" / "gltf-validator").is_dir():
        why = "node is not installed" if node is None else f"{ROOT / 'node_modules' / 'gltf-validator'} is missing"
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the glTF validator (scripts/setup installs it): {why}")
        pytest.skip(f"no glTF validator here: {why}")
    done = subprocess.run([node, str(VALIDATOR), str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def load(path: Path) -> pygltflib.GLTF2:
    return pygltflib.GLTF2().load(str(path))


def read(document: pygltflib.GLTF2, index: int) -> np.ndarray:
    """Accessor ``index`` as an array (rows of its type's width), through its buffer view's stride."""
    accessor = document.accessors[index]
    view = document.bufferViews[accessor.bufferView]
    dtype = np.dtype(_TYPES[accessor.componentType])
    width = _WIDTHS[accessor.type]
    stride = view.byteStride or dtype.itemsize * width
    start = view.byteOffset + (accessor.byteOffset or 0)
    raw = np.frombuffer(document.binary_blob(), dtype=np.uint8, count=stride * accessor.count, offset=start)
    rows = raw.reshape(accessor.count, stride)[:, :dtype.itemsize * width].copy()
    values = rows.view(dtype)
    return values[:, 0] if width == 1 else values


def node_mesh(document: pygltflib.GLTF2, name: str) -> pygltflib.Mesh:
    [node] = [n for n in document.nodes if n.name == name]
    return document.meshes[node.mesh]


def triangles_of(document: pygltflib.GLTF2, mesh: pygltflib.Mesh) -> np.ndarray:
    return np.concatenate([read(document, p.indices).reshape(-1, 3) for p in mesh.primitives])


def sorted_rows(triangles: np.ndarray) -> np.ndarray:
    triangles = np.asarray(triangles, dtype=np.int64)
    return triangles[np.lexsort(triangles.T[::-1])]


# --- the Khronos validator ------------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["demo", "dug"])
def test_export_passes_the_khronos_validator(which, world, dug, tmp_path):
    path = export_glb(world if which == "demo" else dug, tmp_path / "world.glb", collision=True, navmesh=True)
    report = validate(path)
    issues = report["issues"]
    assert (issues["numErrors"], issues["numWarnings"]) == (0, 0), issues["messages"]
    assert report["info"]["totalTriangleCount"] > 0 and report["info"]["hasDefaultScene"]


def test_an_empty_world_exports_nodes_without_meshes_and_passes_the_validator(tmp_path):
    world = World(VoxelVolume((8, 8, 8)))
    world.agents.navigate()
    path = export_glb(world, tmp_path / "empty.glb", collision=True, navmesh=True)
    document = load(path)
    assert [(n.name, n.mesh) for n in document.nodes] == [("terrain", None), ("collision", None), ("navmesh", None)]
    assert document.buffers == [] and document.meshes == []
    issues = validate(path)["issues"]
    assert issues["numErrors"] == 0 and issues["numWarnings"] == 0
    assert {m["code"] for m in issues["messages"]} == {"NODE_EMPTY"}  # infos: the three nodes are empty


# --- what is in the file ----------------------------------------------------------------------------------------


def corner_rows(*columns: np.ndarray) -> np.ndarray:
    """Per triangle corner, its values side by side; the triangles' rows (three corners each) sorted."""
    rows = np.hstack([np.asarray(c, dtype=np.float64).reshape(len(columns[0]), 3, -1).reshape(len(columns[0]), -1)
                      for c in columns])
    return rows[np.lexsort(rows.T[::-1])]


@pytest.mark.parametrize("which", ["demo", "dug"])
def test_terrain_holds_the_display_mesh_and_its_vertex_arrays(which, world, dug, tmp_path):
    world = world if which == "demo" else dug
    mesh = world.mesher.display_mesh()
    document = load(export_glb(world, tmp_path / "world.glb"))
    terrain = node_mesh(document, "terrain")
    attributes = {p.attributes.__dict__["POSITION"] for p in terrain.primitives}
    assert len(attributes) == 1  # the primitives share one set of vertex attributes
    names = {k: v for k, v in terrain.primitives[0].attributes.__dict__.items() if v is not None}
    assert set(names) == {"POSITION", "NORMAL", "TEXCOORD_0", "COLOR_0", "_MAT_A", "_MAT_B", "_BLEND"}
    assert all({k: v for k, v in p.attributes.__dict__.items() if v is not None} == names
               for p in terrain.primitives)
    values = {name: read(document, index) for name, index in names.items()}
    position = document.accessors[names["POSITION"]]
    assert position.min == mesh.positions.min(axis=0).tolist() and position.max == mesh.positions.max(axis=0).tolist()
    # Every triangle once, with its corners' arrays as the display mesh has them (vertices split for mapping),
    # each in the primitive of the material it shows most.
    triangles = triangles_of(document, terrain)
    assert len(triangles) == mesh.triangle_count
    ours = corner_rows(*(values[n][triangles] for n in ("POSITION", "NORMAL", "_MAT_A", "_MAT_B", "_BLEND")))
    theirs = corner_rows(*(getattr(mesh, n)[mesh.indices] for n in ("positions", "normals", "mat_a", "mat_b",
                                                                        "blend")))
    np.testing.assert_array_equal(ours, theirs)
    assert len(values["POSITION"]) < 2 * len(mesh.positions)  # split only where triangles need it
    dominant = dict(zip(map(tuple, mesh.positions[mesh.indices].reshape(-1, 9).tolist()),
                        dominant_materials(mesh).tolist()))
    ids = []
    for primitive in terrain.primitives:
        material = document.materials[primitive.material]
        ids.append(material.extras["id"])
        assert material.name == world.materials.name_by_id[material.extras["id"]]
        assert material.pbrMetallicRoughness.baseColorFactor == [1.0, 1.0, 1.0, 1.0]  # the texture gives the colour
        assert list(material.extras["colour"]) == list(world.materials[material.extras["id"]].colour)
        rows = read(document, primitive.indices).reshape(-1, 3)
        assert {dominant[tuple(values["POSITION"][row].reshape(-1).tolist())] for row in rows} == \
            {material.extras["id"]}
    assert ids == sorted(set(ids))
    named = terrain.extras["material_names"]
    assert {int(k) for k in named} == set(np.union1d(mesh.mat_a, mesh.mat_b).tolist())
    assert all(world.materials.name_by_id[int(k)] == v for k, v in named.items())


def test_texture_coordinates_map_each_triangle_on_the_plane_it_faces_most(dug, tmp_path):
    document = load(export_glb(dug, tmp_path / "world.glb"))
    terrain = node_mesh(document, "terrain")
    names = {k: v for k, v in terrain.primitives[0].attributes.__dict__.items() if v is not None}
    positions, normals = read(document, names["POSITION"]), read(document, names["NORMAL"])
    uv = read(document, names["TEXCOORD_0"])
    triangles = triangles_of(document, terrain)
    facing = np.argmax(np.abs(normals[triangles].astype(np.float64).sum(axis=1)), axis=1)
    planes = np.array([[2, 1], [0, 2], [0, 1]])[facing]  # (z, y) facing x, (x, z) facing y, (x, y) facing z
    expected = np.take_along_axis(positions[triangles].astype(np.float64), planes[:, None, :].repeat(3, 1), axis=2)
    np.testing.assert_allclose(uv[triangles], expected / TEXTURE_METRES, rtol=0, atol=1e-5)
    assert len(set(facing.tolist())) == 3  # the dug world has floors and walls of every direction


def with_occlusion(mesh, occlusion: np.ndarray) -> types.SimpleNamespace:
    """``mesh`` with its occlusion replaced (1 everywhere: open, so the tints show the blend alone)."""
    return types.SimpleNamespace(**{f: getattr(mesh, f) for f in ("positions", "normals", "indices", "mat_a",
                                                                  "mat_b", "blend", "triangle_count")},
                                 occlusion=np.asarray(occlusion, dtype=np.float32))


def test_materials_carry_the_texture_pictures_and_the_blend_tints_the_vertices(dug, tmp_path, monkeypatch):
    textures = texture_set(dug.materials)
    mesh = dug.mesher.display_mesh()
    monkeypatch.setattr(dug.mesher, "display_mesh", lambda: with_occlusion(mesh, np.ones(len(mesh.positions))))
    document = load(export_glb(dug, tmp_path / "world.glb"))
    terrain = node_mesh(document, "terrain")
    blob = document.binary_blob()

    def picture(texture_info) -> np.ndarray:
        image = document.images[document.textures[texture_info.index].source]
        view = document.bufferViews[image.bufferView]
        assert image.mimeType == "image/png"
        return np.asarray(PIL.Image.open(io.BytesIO(blob[view.byteOffset:view.byteOffset + view.byteLength])))

    seen = set()
    for primitive in terrain.primitives:
        material = document.materials[primitive.material]
        layer = textures.layer_of[material.extras["id"]]
        pbr = material.pbrMetallicRoughness
        np.testing.assert_array_equal(picture(pbr.baseColorTexture), textures.albedo[layer, ..., :3])
        surface = picture(pbr.metallicRoughnessTexture)
        np.testing.assert_array_equal(surface[..., 1:], textures.surface[layer, ..., :2])  # roughness, metalness
        assert (material.emissiveTexture is not None) == bool(textures.surface[layer, ..., 2].any())
        name = dug.materials.name_by_id[material.extras["id"]]
        seen.add(name)
        if name == "iron":
            assert surface[..., 2].mean() > 200  # iron exports as metal
    assert {"grass", "iron"} <= seen
    # COLOR_0: white where a vertex shows only its primitive's material, else tinted towards the other one.
    names = {k: v for k, v in terrain.primitives[0].attributes.__dict__.items() if v is not None}
    tint, mat_a, mat_b, blend = (read(document, names[n]) for n in ("COLOR_0", "_MAT_A", "_MAT_B", "_BLEND"))
    palette = dug.materials.palette()
    checked = 0
    for primitive in terrain.primitives:
        own = document.materials[primitive.material].extras["id"]
        corners = np.unique(read(document, primitive.indices))
        alone = ((mat_a[corners] == own) & ((mat_b[corners] == 0) | (blend[corners] == 0))) | \
                ((mat_b[corners] == own) & (blend[corners] == 1))
        np.testing.assert_allclose(tint[corners[alone]], 1.0, atol=1e-6)
        mixed = corners[~alone & (mat_b[corners] != 0) & (mat_a[corners] != mat_b[corners])]
        for vertex in mixed[:50]:
            other = mat_b[vertex] if mat_a[vertex] == own else mat_a[vertex]
            share = blend[vertex] if mat_a[vertex] == own else 1 - blend[vertex]
            ratio = srgb_to_linear(palette[other]) / srgb_to_linear(palette[own])
            np.testing.assert_allclose(tint[vertex], np.clip(1 - share + share * ratio, 0, 1), atol=1e-5)
            checked += 1
    assert checked > 0


def test_collision_node_holds_the_collision_mesh_one_material_per_triangle(dug, tmp_path):
    mesh = dug.mesher.collision_mesh()
    document = load(export_glb(dug, tmp_path / "world.glb", collision=True))
    collision = node_mesh(document, "collision")
    [position] = {p.attributes.POSITION for p in collision.primitives}
    np.testing.assert_array_equal(read(document, position), mesh.positions)
    assert document.accessors[position].min == mesh.positions.min(axis=0).tolist()
    triangles = triangles_of(document, collision)
    assert len(triangles) == mesh.triangle_count
    np.testing.assert_array_equal(sorted_rows(triangles), sorted_rows(mesh.indices))
    material_of = dict(zip(map(tuple, mesh.indices.tolist()), mesh.tri_material.tolist()))
    for primitive in collision.primitives:
        material = document.materials[primitive.material]
        material_id = material.extras["id"]
        assert material.name == f"collision_{dug.materials.name_by_id[material_id]}"
        np.testing.assert_allclose(material.pbrMetallicRoughness.baseColorFactor[:3],
                                   srgb_to_linear(dug.materials[material_id].colour))
        rows = read(document, primitive.indices).reshape(-1, 3).tolist()
        assert {material_of[tuple(row)] for row in rows} == {material_id}


def test_navmesh_node_holds_every_polygon_as_an_upward_fan_per_level(dug, tmp_path):
    navmesh = dug.agents.navigation.mesh
    document = load(export_glb(dug, tmp_path / "world.glb", navmesh=True))
    node = node_mesh(document, "navmesh")
    levels = sorted(set(navmesh.polygon_level.tolist()))
    assert [p.extras["level"] for p in node.primitives] == levels
    [position] = {p.attributes.POSITION for p in node.primitives}
    positions = read(document, position)
    np.testing.assert_array_equal(positions, navmesh.vertices.astype(np.float32))
    triangles = triangles_of(document, node)
    # A fan per polygon, less the triangles of no area a corner on a straight side makes.
    assert 0 < len(triangles) <= int((np.diff(navmesh.polygon_start) - 2).sum())
    corners = positions[triangles].astype(np.float64)
    normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    assert np.all(normals[:, 1] > 0)  # counter-clockwise seen from above: facing up
    area = 0.5 * np.abs(normals[:, 1]).sum()  # the x-z area of the fans is the navmesh's
    assert area == pytest.approx(navmesh.area(), rel=1e-5)
    material = document.materials[node.primitives[0].material]
    assert material.name == "navmesh" and material.alphaMode == "BLEND" and material.doubleSided


@pytest.mark.parametrize("collision, navmesh", [(False, False), (True, False), (False, True), (True, True)])
def test_collision_and_navmesh_nodes_are_there_only_when_asked(collision, navmesh, world, tmp_path):
    document = load(export_glb(world, tmp_path / "world.glb", collision=collision, navmesh=navmesh))
    expected = ["terrain"] + ["collision"] * collision + ["navmesh"] * navmesh
    assert [n.name for n in document.nodes] == expected
    assert document.scenes[document.scene].nodes == list(range(len(expected)))
    assert [m.name for m in document.meshes] == expected
    assert any(m.name.startswith("collision_") for m in document.materials) == collision
    assert any(m.name == "navmesh" for m in document.materials) == navmesh


# --- determinism, errors, atomic writes -------------------------------------------------------------------------


def test_the_same_world_gives_the_same_bytes(world, tmp_path):
    first = export_glb(world, tmp_path / "a.glb", collision=True, navmesh=True).read_bytes()
    second = export_glb(World.demo(seed=0), tmp_path / "b.glb", collision=True, navmesh=True).read_bytes()
    assert first == second == glb_bytes(world, collision=True, navmesh=True)
    assert first[:4] == b"glTF" and int.from_bytes(first[8:12], "little") == len(first)


def test_bad_arguments_raise_parameter_errors_naming_them_and_write_nothing(world, tmp_path):
    cases = [
        (dict(world="world", path=tmp_path / "w.glb"), "world", "World"),
        (dict(world=world, path=tmp_path), "path", "not a folder"),
        (dict(world=world, path=tmp_path / "missing" / "w.glb"), "path", "existing folder"),
        (dict(world=world, path=42), "path", "file path"),
        (dict(world=world, path=b"w.glb"), "path", "file path"),
        (dict(world=world, path=tmp_path / "w.glb", collision="yes"), "collision", "True or False"),
        (dict(world=world, path=tmp_path / "w.glb", navmesh=1), "navmesh", "True or False"),
    ]
    for arguments, parameter, legal in cases:
        with pytest.raises(ParameterError) as raised:
            export_glb(**arguments)
        error = raised.value
        assert error.parameter == parameter and legal in error.legal and parameter in str(error)
    without = World.demo(seed=0, npcs=0)
    assert without.agents.navigation is None
    with pytest.raises(ParameterError, match="navmesh = True is out of range") as raised:
        export_glb(without, tmp_path / "w.glb", navmesh=True)
    assert "without a navmesh" in raised.value.legal
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_leaves_the_old_file_and_no_temporary(world, tmp_path, monkeypatch):
    path = tmp_path / "world.glb"
    path.write_bytes(b"old")

    def full_disk(descriptor):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space"):
        export_glb(world, path)
    assert [p.name for p in tmp_path.iterdir()] == ["world.glb"] and path.read_bytes() == b"old"
    monkeypatch.undo()
    export_glb(world, path)
    assert [p.name for p in tmp_path.iterdir()] == ["world.glb"] and path.read_bytes()[:4] == b"glTF"


def test_a_mesh_with_occlusion_darkens_its_vertex_colours_by_it(tmp_path, monkeypatch):
    world = World.demo(seed=0)
    meshed = world.mesher.display_mesh()
    plain = with_occlusion(meshed, np.ones(len(meshed.positions)))  # open everywhere
    height = plain.positions[:, 1]  # contract B: 1 open .. 0 enclosed; here lower is darker
    occluded = with_occlusion(meshed, 0.2 + 0.8 * (height - height.min()) / np.ptp(height))
    tints = []
    for mesh in (plain, occluded):
        monkeypatch.setattr(world.mesher, "display_mesh", lambda mesh=mesh: mesh)
        document = load(export_glb(world, tmp_path / "world.glb"))
        terrain = node_mesh(document, "terrain")
        names = {k: v for k, v in terrain.primitives[0].attributes.__dict__.items() if v is not None}
        positions = read(document, names["POSITION"])
        tints.append((read(document, names["COLOR_0"]), positions))
    (open_tint, positions), (dark_tint, same_positions) = tints
    np.testing.assert_array_equal(positions, same_positions)
    # Each split vertex's colour is the open one times the occlusion of the vertex it copies.
    factor = (0.2 + 0.8 * (positions[:, 1] - height.min()) / np.ptp(height)).astype(np.float32)
    np.testing.assert_allclose(dark_tint, open_tint * factor[:, None], rtol=1e-5, atol=1e-6)
    assert dark_tint.mean() < 0.8 * open_tint.mean()
