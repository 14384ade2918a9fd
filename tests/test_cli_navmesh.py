"""`voxelworld navmesh bake`: an OBJ room in, the navmesh JSON (and a PNG top view) out."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from voxelworld import cli
from voxelworld.navigation import NavMesh, NavSettings, Scene, SearchRegion
from voxelworld.navigation.bake import bake

ROOM = """o floor
v 0 0 0
v 6 0 0
v 6 0 6
v 0 0 6
f 1 3 2
f 1 4 3
o crate_big
v 2 0 2
v 3 0 2
v 3 0 3
v 2 0 3
v 2 1 2
v 3 1 2
v 3 1 3
v 2 1 3
f 5 6 7
f 5 7 8
f 9 11 10
f 9 12 11
f 5 9 10
f 5 10 6
f 6 10 11
f 6 11 7
f 7 11 12
f 7 12 8
f 8 12 9
f 8 9 5
"""


def test_bake_writes_the_navmesh_and_a_top_view(tmp_path, capsys):
    scene_path = tmp_path / "room.obj"
    scene_path.write_text(ROOM)
    out, png = tmp_path / "nav.json", tmp_path / "nav.png"
    code = cli.main(["navmesh", "bake", str(scene_path), "--region", "0", "0", "0", "6", "3", "6",
                     "--role", "crate*=obstacle", "--ray-density", "16", "--agent-radius", "0",
                     "--min-region-area", "0", "--exclusion-proxy", "aabb-tree", "-o", str(out), "--png", str(png)])
    assert code == 0
    mesh = NavMesh.from_json(out.read_text())
    expected = bake(Scene.from_obj(scene_path, roles={"crate*": "obstacle"}), SearchRegion((0, 0, 0), (6, 3, 6)),
                    NavSettings(ray_density=16, agent_radius=0, min_region_area=0, exclusion_proxy="aabb-tree"))
    assert mesh.to_json() == expected.to_json()
    assert mesh.area() == pytest.approx(36.0 - 1.0)  # the crate's footprint is cut out
    assert "35.0 m² walkable" in capsys.readouterr().out
    pixels = np.asarray(Image.open(png).convert("RGB")).reshape(-1, 3)
    colours = {tuple(p) for p in pixels[::97]}
    assert len(colours) >= 2  # background and walkable ground at least
    assert not list(tmp_path.glob("*.json.*")) and not list(tmp_path.glob("tmp*"))


def test_bake_refuses_bad_input_with_a_message(tmp_path, capsys):
    scene_path = tmp_path / "room.obj"
    scene_path.write_text(ROOM)
    out = tmp_path / "nav.json"
    assert cli.main(["navmesh", "bake", str(scene_path), "--region", "0", "0", "0", "6", "3", "6",
                     "--role", "nonsense", "-o", str(out)]) == 2
    assert "--role" in capsys.readouterr().err
    assert cli.main(["navmesh", "bake", str(tmp_path / "missing.obj"), "--region", "0", "0", "0", "6", "3", "6",
                     "-o", str(out)]) == 2
    assert "missing.obj" in capsys.readouterr().err
    assert not out.exists()
