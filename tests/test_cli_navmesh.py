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


def test_without_a_region_the_scene_bounds_widened_by_the_agent_height_are_baked(tmp_path, capsys):
    scene_path = tmp_path / "room.obj"
    scene_path.write_text(ROOM)
    out = tmp_path / "nav.json"
    args = ["--role", "crate*=obstacle", "--ray-density", "16", "--agent-radius", "0", "--min-region-area", "0",
            "--clearance", "1.5", "-o", str(out)]
    assert cli.main(["navmesh", "bake", str(scene_path), *args]) == 0
    said = capsys.readouterr().out
    assert "region: the scene's bounds widened by the agent height (1.5 m): 0.00 -1.50 0.00 6.00 2.50 6.00" in said
    expected = bake(Scene.from_obj(scene_path, roles={"crate*": "obstacle"}), SearchRegion((0, -1.5, 0), (6, 2.5, 6)),
                    NavSettings(ray_density=16, agent_radius=0, min_region_area=0, clearance=1.5))
    assert NavMesh.from_json(out.read_text()).to_json() == expected.to_json()
    assert expected.area() == pytest.approx(35.0)


def test_landing_option_reaches_the_region(tmp_path, capsys):
    scene_path = tmp_path / "crates.obj"
    scene_path.write_text(ROOM.split("o crate_big")[0].replace("o floor", "o crate_small") + "o crate_big"
                          + ROOM.split("o crate_big")[1])  # no floor: the flat quad is an obstacle too
    out = tmp_path / "nav.json"
    base = ["navmesh", "bake", str(scene_path), "--region", "-2", "-0.5", "-2", "8", "3", "8", "--role",
            "crate*=obstacle", "--ray-density", "16", "--agent-radius", "0", "--min-region-area", "0",
            "--low-obstacles", "transparent", "-o", str(out)]  # (low obstacles are floor by default since issue 33)
    assert cli.main([*base, "--landing", "off"]) == 0
    assert NavMesh.from_json(out.read_text()).area() == 0.0
    assert cli.main(base) == 0  # auto: no floor reaches into the region, so the bottom face is the landing
    # The flat quad rises nothing above the crate's bottom under it: too low, transparent; the crate is cut out.
    assert NavMesh.from_json(out.read_text()).area() == pytest.approx(100.0 - 1.0)


def test_an_undesignated_crate_is_an_obstacle_unless_the_rule_is_off(tmp_path, capsys):
    scene_path = tmp_path / "room.obj"
    scene_path.write_text(ROOM)
    out = tmp_path / "nav.json"
    base = ["navmesh", "bake", str(scene_path), "--region", "0", "-1", "0", "6", "3", "6", "--ray-density", "16",
            "--agent-radius", "0", "--min-region-area", "0", "-o", str(out)]
    assert cli.main(base) == 0  # no --role: the crate stands on the floor, so it is an obstacle by the rule
    assert NavMesh.from_json(out.read_text()).area() == pytest.approx(36.0 - 1.0)
    assert "objects: 1 floor, 1 obstacle, 0 transparent (1 obstacle by the vertex-in-region rule)" in \
        capsys.readouterr().out
    assert cli.main([*base, "--no-auto-obstacles"]) == 0  # every undesignated object floor: the crate's top too
    assert NavMesh.from_json(out.read_text()).area() == pytest.approx(36.0)
    assert "objects: 2 floor, 0 obstacle, 0 transparent (0 obstacles by" in capsys.readouterr().out
    assert cli.main([*base, "--role", "crate*=floor"]) == 0  # a designation wins over the rule
    assert NavMesh.from_json(out.read_text()).area() == pytest.approx(36.0)


def test_help_says_what_each_option_means_and_its_default(capsys):
    with pytest.raises(SystemExit):
        cli.main(["navmesh", "bake", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for option, words, default in (("--ray-density", "rays cast per m²", "11.1"), ("--clearance", "agent's height", "2.0"),
                                   ("--max-corners", "most corners", "6"), ("--region", "scene's bounds", None)):
        start = text.index(option + " ", text.index("options:"))
        entry = text[start:start + 260]
        assert words in entry and (default is None or f"default: {default})" in entry), entry
    rule = text[text.index("--auto-obstacles, --no-auto-obstacles "):text.index("--levels ", text.index("options:"))]
    assert "vertex-in-region rule" in rule and "makes them all floor" in rule and rule.endswith("(default: on) ")


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


# --- hostile arguments: negative numbers, bad values, too large a bake, unwritable outputs ---------------------

def _room(tmp_path):
    scene_path = tmp_path / "room.obj"
    scene_path.write_text(ROOM)
    return scene_path


@pytest.mark.parametrize("corners", [("-1", "-1", "-1", "6", "3", "6"), ("-1e0", "-1E+0", "-.1e1", "6", "3", "6"),
                                     ("-1.0", "-1.", "-1", "6", "3", "6")])
def test_negative_region_corners_are_numbers_not_options(tmp_path, corners):
    out = tmp_path / "nav.json"
    args = ["navmesh", "bake", str(_room(tmp_path)), "--region", *corners, "--ray-density", "4", "-o", str(out)]
    assert cli.main(args) == 0
    expected = bake(Scene.from_obj(tmp_path / "room.obj"), SearchRegion((-1, -1, -1), (6, 3, 6)),
                    NavSettings(ray_density=4))
    assert NavMesh.from_json(out.read_text()).to_json() == expected.to_json()


def test_a_region_of_two_thousand_kilometres_names_the_option_and_the_memory(tmp_path, capsys):
    out = tmp_path / "nav.json"
    args = ["navmesh", "bake", str(_room(tmp_path)), "--region", "-1e6", "-1", "-1e6", "1e6", "3", "1e6",
            "-o", str(out)]
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("voxelworld: --ray-density = 11.1 is out of range") and err.count("\n") == 1
    assert "GiB" in err and "MAX_BAKE_COLUMNS" in err
    assert "baking" not in err and not out.exists()  # refused before the bake started


@pytest.mark.parametrize("args, option", [
    (["--ray-density", "1e12"], "--ray-density"), (["--ray-density", "-inf"], "--ray-density"),
    (["--step-limit", "-1e3"], "--step-limit"), (["--max-corners", "2"], "--max-corners"),
    (["--agent-radius", "nan"], "--agent-radius"), (["--region", "0", "0", "0", "-inf", "3", "6"], "--region"),
    (["--region", "0", "0", "0", "0.01", "3", "6"], "--region"),
])
def test_a_bad_value_is_one_line_naming_the_option(tmp_path, capsys, args, option):
    out = tmp_path / "nav.json"
    region = [] if "--region" in args else ["--region", "0", "-1", "0", "6", "3", "6"]
    assert cli.main(["navmesh", "bake", str(_room(tmp_path)), *region, *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"voxelworld: {option} = ") and err.count("\n") == 1
    assert not out.exists()


@pytest.mark.parametrize("option", ["-o", "--png"])
def test_an_output_in_a_missing_folder_is_refused_before_the_bake(tmp_path, capsys, option):
    out = tmp_path / "nav.json"
    outputs = {"-o": str(out), "--png": None}
    outputs[option] = str(tmp_path / "missing" / "file")
    args = ["navmesh", "bake", str(_room(tmp_path)), "--region", "0", "-1", "0", "6", "3", "6"]
    args += [part for key, value in outputs.items() if value is not None for part in (key, value)]
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"voxelworld: {option} = ") and "existing folder" in err and "baking" not in err
    assert not out.exists()


def test_a_failed_write_is_one_line_with_exit_status_1(tmp_path, capsys, monkeypatch):
    import errno

    from voxelworld import files

    def full_disk(path, write):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(files, "write_atomically", full_disk)
    args = ["navmesh", "bake", str(_room(tmp_path)), "--region", "0", "-1", "0", "6", "3", "6", "-o",
            str(tmp_path / "nav.json")]
    assert cli.main(args) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("voxelworld: ") and "No space left on device" in err[-1]


def test_the_command_prints_no_traceback_for_a_huge_region(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "voxelworld.cli", "navmesh", "bake", str(_room(tmp_path)),
                           "--region", "-1e6", "-1", "-1e6", "1e6", "3", "1e6", "--ray-density", "1e12", "-o",
                           str(tmp_path / "nav.json")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "--ray-density = 1000000000000.0" in done.stderr



WALL = "o wall\nv 0 0 0\nv 0 0 6\nv 0 3 6\nv 0 3 0\nf 1 2 3 4\n"  # 6 x 3 m in the plane x = 0, facing -x
QUARTER_TURN_Z = ("0", "0", "0.7071067811865476", "0.7071067811865476")  # rays travelling +x


def test_bake_turns_its_regions_by_rotation(tmp_path, capsys):
    scene_path = tmp_path / "wall.obj"
    scene_path.write_text(WALL)
    out = tmp_path / "nav.json"
    flags = ["--ray-density", "16", "--agent-radius", "0.3", "--min-region-area", "0", "-o", str(out)]
    code = cli.main(["navmesh", "bake", str(scene_path), "--region", "-1.6", "0.5", "-0.1", "1.6", "2.5", "6.1",
                     "--rotation", *QUARTER_TURN_Z, *flags])
    assert code == 0
    mesh = NavMesh.from_json(out.read_text())
    rotation = tuple(float(c) for c in QUARTER_TURN_Z)
    expected = bake(Scene.from_obj(scene_path), SearchRegion((-1.6, 0.5, -0.1), (1.6, 2.5, 6.1), rotation=rotation),
                    NavSettings(ray_density=16, agent_radius=0.3, min_region_area=0))
    assert mesh.to_json() == expected.to_json() and mesh.frame is not None
    assert np.abs(mesh.world_vertices()[:, 0]).max() < 1e-9 and mesh.area() > 10
    assert "1 floor" in capsys.readouterr().out
    # Without --region: the scene's box in the turned frame, and the whole wall in it.
    assert cli.main(["navmesh", "bake", str(scene_path), "--rotation", *QUARTER_TURN_Z, *flags]) == 0
    assert "box in the turned frame" in capsys.readouterr().out
    assert NavMesh.from_json(out.read_text()).area() > 10
    assert cli.main(["navmesh", "bake", str(scene_path), "--rotation", "0", "0", "0", "0", *flags]) == 2
    assert "--rotation = (0.0, 0.0, 0.0, 0.0)" in capsys.readouterr().err
