"""Tests of voxelworld.io.obj: the Wavefront OBJ export of a world and its material library, parsed back (with a
small parser here, and with the navigation wing's OBJ reader)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.world import World
from voxelworld.io.obj import export_obj
from voxelworld.io.parts import dominant_materials
from voxelworld.navigation import Scene


@pytest.fixture(scope="module")
def world() -> World:
    return World.demo(seed=0)


def parse(path: Path) -> dict:
    """Counts and groups of an OBJ file: vertices, normals, per object its faces and per face its material."""
    vertices = normals = 0
    objects: dict[str, list[tuple[str, list[str]]]] = {}
    current, material, library = None, None, None
    for line in path.read_text(encoding="utf-8").splitlines():
        statement, _, rest = line.partition(" ")
        if statement == "v":
            vertices += 1
        elif statement == "vn":
            normals += 1
        elif statement == "o":
            current = objects.setdefault(rest, [])
        elif statement == "usemtl":
            material = rest
        elif statement == "mtllib":
            library = rest
        elif statement == "f":
            current.append((material, rest.split()))
    return {"vertices": vertices, "normals": normals, "objects": objects, "library": library}


def sorted_rows(triangles) -> np.ndarray:
    triangles = np.asarray(triangles, dtype=np.int64)
    return triangles[np.lexsort(triangles.T[::-1])]


def test_export_writes_every_part_as_objects_with_a_material_library(world, tmp_path):
    display, collision = world.mesher.display_mesh(), world.mesher.collision_mesh()
    navmesh = world.agents.navigation.mesh
    path = export_obj(world, tmp_path / "world.obj", collision=True, navmesh=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["world.mtl", "world.obj"]
    found = parse(path)
    assert found["library"] == "world.mtl"
    assert found["vertices"] == len(display.positions) + len(collision.positions) + len(navmesh.vertices)
    assert found["normals"] == len(display.positions)
    levels = sorted(set(navmesh.polygon_level.tolist()))
    assert list(found["objects"]) == ["terrain", "collision"] + [f"navmesh_level_{n}" for n in levels]
    terrain = found["objects"]["terrain"]
    assert len(terrain) == display.triangle_count and all("//" in corner for _, f in terrain for corner in f)
    names = world.materials.name_by_id
    counts = np.bincount(dominant_materials(display), minlength=256)
    assert Counter(m for m, _ in terrain) == {names[i]: int(counts[i]) for i in np.flatnonzero(counts)}
    assert len(found["objects"]["collision"]) == collision.triangle_count
    assert {m for m, _ in found["objects"]["collision"]} == {names[i] for i in np.unique(collision.tri_material)}
    for level in levels:
        faces = found["objects"][f"navmesh_level_{level}"]
        assert len(faces) == int((navmesh.polygon_level == level).sum()) and {m for m, _ in faces} == {"navmesh"}
    library = (tmp_path / "world.mtl").read_text(encoding="utf-8")
    declared = [line.split()[1] for line in library.splitlines() if line.startswith("newmtl ")]
    used = {m for faces in found["objects"].values() for m, _ in faces}
    assert set(declared) == used and len(declared) == len(used)
    grass = library.split("newmtl grass\n")[1].splitlines()[0]
    assert grass == "Kd " + " ".join(f"{c:.6f}" for c in world.materials["grass"].colour)


def test_the_obj_reads_back_as_the_same_geometry(world, tmp_path):
    display, navmesh = world.mesher.display_mesh(), world.agents.navigation.mesh
    scene = Scene.from_obj(export_obj(world, tmp_path / "world.obj", navmesh=True))
    objects = {o.name: o for o in scene.objects}
    terrain = objects["terrain"]
    np.testing.assert_allclose(terrain.positions, display.positions, atol=5e-7)  # six decimals
    np.testing.assert_array_equal(sorted_rows(terrain.indices), sorted_rows(display.indices))
    fans = sum(len(o.indices) for name, o in objects.items() if name.startswith("navmesh_level_"))
    assert fans == int((np.diff(navmesh.polygon_start) - 2).sum())


def test_parts_are_there_only_when_asked_and_the_same_world_gives_the_same_bytes(world, tmp_path):
    plain = parse(export_obj(world, tmp_path / "plain.obj"))
    assert list(plain["objects"]) == ["terrain"]
    first = export_obj(world, tmp_path / "a.obj", collision=True, navmesh=True)
    second = export_obj(World.demo(seed=0), tmp_path / "b.obj", collision=True, navmesh=True)
    assert first.read_bytes().replace(b"mtllib a.mtl", b"") == second.read_bytes().replace(b"mtllib b.mtl", b"")
    assert (tmp_path / "a.mtl").read_bytes() == (tmp_path / "b.mtl").read_bytes()


def test_bad_arguments_raise_parameter_errors_and_write_nothing(world, tmp_path):
    for arguments, parameter in [(dict(world=None, path=tmp_path / "w.obj"), "world"),
                                 (dict(world=world, path=tmp_path), "path"),
                                 (dict(world=world, path=tmp_path / "w.mtl"), "path"),
                                 (dict(world=world, path=tmp_path / "w.obj", collision=None), "collision"),
                                 (dict(world=World.demo(seed=0, npcs=0), path=tmp_path / "w.obj", navmesh=True),
                                  "navmesh")]:
        with pytest.raises(ParameterError) as raised:
            export_obj(**arguments)
        assert raised.value.parameter == parameter
    (tmp_path / "w.mtl").mkdir()
    with pytest.raises(ParameterError, match="path"):
        export_obj(world, tmp_path / "w.obj")  # the library's name is a folder
    assert [p.name for p in tmp_path.iterdir()] == ["w.mtl"]


def test_a_failed_write_leaves_no_temporary(world, tmp_path, monkeypatch):
    def full_disk(descriptor):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError):
        export_obj(world, tmp_path / "world.obj")
    assert list(tmp_path.iterdir()) == []
