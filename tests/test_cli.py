"""Tests of the ``voxelworld`` command: ``voxelworld edits`` (the table of terrain edits) and ``voxelworld demo``
(the scripted session; its report is tested in tests/viewer/test_demo_session.py), in-process and as the installed
console script."""

from __future__ import annotations

import importlib
import io
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from voxelworld import cli
from voxelworld.terrain import VoxelVolume, demo_terrain

EDIT_KINDS = ("remove", "add", "paint", "expose_interior", "scrape", "remove_fragments")


def script_descriptions() -> list[str]:
    # The descriptions do not depend on the volume's contents: a blank volume of the demo's size will do.
    return [description for description, _ in cli.terrain_edits(VoxelVolume((96, 48, 96)))]


def check_edits_table(text: str, seed: int = 0) -> None:
    lines = text.splitlines()
    assert lines[0].startswith("Demo world: 96x48x96 voxels") and f"seed {seed}," in lines[0]
    rows = [line for line in lines if line.split(":")[0] in EDIT_KINDS]
    kinds = {row.split(":")[0] for row in rows}
    assert kinds == set(EDIT_KINDS)
    # Every scripted edit has its row, in script order.
    descriptions = script_descriptions()
    assert len(rows) == len(descriptions)
    for row, description in zip(rows, descriptions):
        assert row.startswith(description)
        changed, held = row[len(description):].split()[:2]
        assert int(changed) >= 0 and int(held) >= 0
    assert any(line.startswith("Solid volume by material now") for line in lines)


@pytest.fixture(scope="module")
def edits_output() -> str:
    buffer = io.StringIO()
    cli.run_edits(0, out=buffer)
    return buffer.getvalue()


def test_run_edits_prints_a_row_for_every_kind_of_edit(edits_output):
    check_edits_table(edits_output)


def test_edits_reports_the_solid_volume_of_the_world_it_built(edits_output):
    first = edits_output.splitlines()[0]
    reported = float(first.split("solid ")[1].split()[0])
    assert reported == pytest.approx(demo_terrain(0).solid_volume(), abs=0.5)


def test_edits_final_line_lists_materials_the_world_has(edits_output):
    final = next(line for line in edits_output.splitlines() if line.startswith("Solid volume by material now"))
    for name in ("grass", "soil", "rock", "lava", "iron"):
        assert name in final


def test_main_edits_returns_0_and_prints_the_table(capsys):
    assert cli.main(["edits"]) == 0
    check_edits_table(capsys.readouterr().out)


def test_main_edits_with_a_bad_seed_returns_2_and_explains(capsys):
    assert cli.main(["edits", "--seed", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("voxelworld: ") and "seed" in err and "-1" in err


def test_main_without_a_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as excinfo:
        cli.main([])
    assert excinfo.value.code == 2
    assert "usage" in capsys.readouterr().err


def _console_script() -> Path:
    name = "voxelworld.exe" if os.name == "nt" else "voxelworld"
    return Path(sys.executable).parent / name


def test_installed_console_script_runs_the_edits_table():
    script = _console_script()
    if not script.exists():
        pytest.skip(f"console script not installed beside {sys.executable}")
    done = subprocess.run([str(script), "edits", "--seed", "2"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    check_edits_table(done.stdout, seed=2)


def test_python_m_voxelworld_cli_reports_bad_input_with_exit_code_2():
    done = subprocess.run([sys.executable, "-m", "voxelworld.cli", "edits", "--seed", "-3"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 2
    assert "seed" in done.stderr and done.stdout == ""


# --- voxelworld demo: the scripted session ------------------------------------------------------------------


def test_main_demo_plays_the_session_writes_the_report_and_prints_where(tmp_path, capsys):
    from voxelworld.viewer import RenderError

    try:  # skipped only where no offscreen OpenGL can be had, never under CI (as in tests/viewer)
        importlib.import_module("voxelworld.viewer.snapshot")._context().release()
    except RenderError as error:
        if os.environ.get("CI"):
            pytest.fail(f"CI must be able to render offscreen: {error}")
        pytest.skip(f"no offscreen OpenGL here: {error}")
    out = tmp_path / "session"
    assert cli.main(["demo", "--frames", "30", "--out", str(out), "--seed", "1"]) == 0
    printed = capsys.readouterr().out
    assert "Played 30 frames of the demo world, seed 1" in printed
    # The summary line and the report give the same share of frames over budget (once 0% against 0.5%).
    said = printed.split("frames over 16.7 ms: ")[1].splitlines()[0]
    row = (out / "report.md").read_text(encoding="utf-8").rstrip().splitlines()[-1]
    assert row.endswith(f"| {said} |") and said.endswith(" of 30)")
    assert "World.step: median" in printed and "p95" in printed
    assert f"Wrote {out / 'report.md'}" in printed
    report = (out / "report.md").read_text(encoding="utf-8")
    assert report.startswith("# voxelworld demo session") and "Seed 1, 30 frames" in report
    assert {p.name for p in out.iterdir()} == {"report.md", "overview.png", "achievements.png",
                                                "frame-0029-last-frame.png"}


@pytest.mark.parametrize("args, named", [(["--frames", "0"], "--frames"), (["--frames", "-5"], "--frames"),
                                         (["--seed", "-1"], "--seed")])
def test_main_demo_with_bad_arguments_returns_2_explains_and_writes_nothing(tmp_path, capsys, args, named):
    out = tmp_path / "session"
    assert cli.main(["demo", "--out", str(out), *args]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"voxelworld: {named} = ") and "out of range" in captured.err
    assert captured.out == ""
    assert not out.exists()


def test_main_demo_refuses_an_out_that_is_a_file(tmp_path, capsys):
    taken = tmp_path / "report"
    taken.write_text("mine")
    assert cli.main(["demo", "--frames", "5", "--out", str(taken)]) == 2
    assert "--out" in capsys.readouterr().err
    assert taken.read_text() == "mine" and [p.name for p in tmp_path.iterdir()] == ["report"]


def test_main_demo_with_a_frames_that_is_no_number_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as excinfo:
        cli.main(["demo", "--frames", "many"])
    assert excinfo.value.code == 2 and "--frames" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------------- export
@pytest.fixture(scope="module")
def world_file(tmp_path_factory):
    from voxelworld.game.world import Inputs, World
    from voxelworld.io import save_world

    world = World.demo(seed=0)
    for _ in range(3):
        world.step(Inputs())
    path = tmp_path_factory.mktemp("worlds") / "demo.vwd"
    save_world(world, path)
    return path, world


def test_export_writes_glb_and_obj_of_a_saved_world(world_file, tmp_path, capsys):
    import pygltflib

    path, world = world_file
    glb, obj = tmp_path / "out.glb", tmp_path / "out.obj"
    assert cli.main(["export", str(path), "--gltf", str(glb), "--obj", str(obj), "--collision", "--navmesh"]) == 0
    printed = capsys.readouterr().out
    assert f"Wrote {glb}" in printed and f"Wrote {obj}" in printed
    document = pygltflib.GLTF2().load(str(glb))
    assert {node.name for node in document.nodes} >= {"terrain", "collision", "navmesh"}
    assert obj.with_suffix(".mtl").is_file() and obj.read_text().count("\nf ") > 100
    from voxelworld.io import export_glb

    direct = tmp_path / "direct.glb"
    export_glb(world, direct, collision=True, navmesh=True)
    assert direct.read_bytes() == glb.read_bytes()  # the saved world exports as the world it was saved from


def test_export_refuses_bad_arguments_naming_the_option(world_file, tmp_path, capsys):
    path, _ = world_file
    assert cli.main(["export", str(path)]) == 2
    assert "--gltf" in capsys.readouterr().err
    assert cli.main(["export", str(tmp_path / "missing.vwd"), "--gltf", str(tmp_path / "a.glb")]) == 2
    assert "WORLD" in capsys.readouterr().err
    assert cli.main(["export", str(path), "--gltf", str(tmp_path / "no" / "a.glb")]) == 2
    assert "--gltf" in capsys.readouterr().err
    not_a_world = tmp_path / "notes.txt"
    not_a_world.write_text("hello")
    assert cli.main(["export", str(not_a_world), "--gltf", str(tmp_path / "a.glb")]) == 2
    assert "notes.txt" in capsys.readouterr().err
    assert not (tmp_path / "a.glb").exists()


# ------------------------------------------------------------ special files (issue 30): new --force, play --save
# In a child process with a time limit (main() serving for ever, or blocking on a FIFO, fails the test instead of
# hanging it), guarded where the path is not the test's own: code that would go on to write stops at the guard.
MAIN = "import sys\nfrom voxelworld.cli import main\nsys.exit(main({argv!r}))\n"
SMALL_WORLD = ["--size", "64", "--height", "32", "--seed", "3"]


def main_in_child(argv: list[str], guarded: bool = True, timeout: float = 120.0):
    from .child import run_python

    return run_python(MAIN.format(argv=[str(a) for a in argv]), timeout=timeout, guarded=guarded)


def special_file(kind: str, folder: Path) -> Path:
    """A FIFO in ``folder``, a character device made there (null's numbers, 1:3), or a symlink in ``folder`` to a
    FIFO: nothing outside the test's own folder."""
    if kind == "device":
        device = folder / "null"
        try:
            os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("making a character device needs root (CI and the set-up machine run as root)")
        return device
    fifo = folder / "pipe"
    os.mkfifo(fifo)
    if kind == "fifo":
        return fifo
    link = folder / "world.vwd"
    link.symlink_to(fifo)
    return link


@pytest.mark.parametrize("kind, named", [("fifo", "not a FIFO"), ("device", "not a character device"),
                                         ("link to a fifo", "not a FIFO (named pipe) (the symlink names")])
def test_new_force_refuses_a_path_that_is_not_a_regular_file_before_generating(tmp_path, kind, named):
    path = special_file(kind, tmp_path)
    before = os.stat(path)
    done = main_in_child(["new", path, "--force", *SMALL_WORLD])
    assert done.returncode == 2 and f"WORLD = '{path}'" in done.stderr and named in done.stderr, done.stderr
    assert "generating" not in done.stdout  # refused at once, not after the world is made
    after = os.stat(path)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode) and after.st_ino == before.st_ino


def test_new_force_through_a_symlink_writes_its_target_and_keeps_the_link(tmp_path):
    from voxelworld.io import load_world

    empty = tmp_path / "empty.vwd"
    empty.touch()
    link = tmp_path / "world.vwd"
    link.symlink_to(empty)
    done = main_in_child(["new", link, *SMALL_WORLD], guarded=False)  # without --force: it exists
    assert done.returncode == 2 and "--force" in done.stderr and empty.stat().st_size == 0, done.stderr
    done = main_in_child(["new", link, "--force", *SMALL_WORLD], guarded=False)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == str(empty) and empty.stat().st_size > 0
    assert load_world(link).volume.chunk_grid_shape == (4, 2, 4)  # 64 m x 32 m x 64 m of 0.5 m voxels
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.vwd", "world.vwd"]  # no temporary left


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_play_refuses_a_save_file_that_is_not_a_regular_file_before_serving(tmp_path, kind):
    # Main's code served (for ever) and its save key replaced the file: the child's time limit fails the test.
    path = special_file(kind, tmp_path)
    done = main_in_child(["play", "--save", path, "--port", "0"], timeout=60.0)
    assert done.returncode == 2 and f"--save = '{path}'" in done.stderr and "not a" in done.stderr, done.stderr
    assert "building the demo world" not in done.stdout


def test_an_output_option_that_names_a_fifo_is_refused_before_the_work(tmp_path):
    fifo = special_file("fifo", tmp_path)
    scene = Path(__file__).parent / "data" / "scenes" / "nav_test.obj"
    done = main_in_child(["navmesh", "bake", scene, "--region", "-30", "-6", "-47", "63", "18", "32", "-o", fifo])
    assert done.returncode == 2 and f"-o = '{fifo}'" in done.stderr and "not a FIFO" in done.stderr, done.stderr
    assert "Baking" not in done.stdout and os.listdir(tmp_path) == ["pipe"]
