"""Tests of the ``voxelworld`` command: ``voxelworld demo`` in-process and as the installed console script."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from voxelworld import cli
from voxelworld.terrain import VoxelVolume, demo_terrain

EDIT_KINDS = ("remove", "add", "paint", "expose_interior", "scrape", "remove_fragments")


def script_descriptions() -> list[str]:
    # The descriptions do not depend on the volume's contents: a blank volume of the demo's size will do.
    return [description for description, _ in cli.demo_edits(VoxelVolume((96, 48, 96)))]


def check_demo_table(text: str, seed: int = 0) -> None:
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
def demo_output() -> str:
    buffer = io.StringIO()
    cli.run_demo(0, out=buffer)
    return buffer.getvalue()


def test_run_demo_prints_a_row_for_every_kind_of_edit(demo_output):
    check_demo_table(demo_output)


def test_demo_reports_the_solid_volume_of_the_world_it_built(demo_output):
    first = demo_output.splitlines()[0]
    reported = float(first.split("solid ")[1].split()[0])
    assert reported == pytest.approx(demo_terrain(0).solid_volume(), abs=0.5)


def test_demo_final_line_lists_materials_the_world_has(demo_output):
    final = next(line for line in demo_output.splitlines() if line.startswith("Solid volume by material now"))
    for name in ("grass", "soil", "rock", "lava", "iron"):
        assert name in final


def test_main_demo_returns_0_and_prints_the_table(capsys):
    assert cli.main(["demo"]) == 0
    check_demo_table(capsys.readouterr().out)


def test_main_demo_with_a_bad_seed_returns_2_and_explains(capsys):
    assert cli.main(["demo", "--seed", "-1"]) == 2
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


def test_installed_console_script_runs_the_demo():
    script = _console_script()
    if not script.exists():
        pytest.skip(f"console script not installed beside {sys.executable}")
    done = subprocess.run([str(script), "demo", "--seed", "2"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    check_demo_table(done.stdout, seed=2)


def test_python_m_voxelworld_cli_reports_bad_input_with_exit_code_2():
    done = subprocess.run([sys.executable, "-m", "voxelworld.cli", "demo", "--seed", "-3"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 2
    assert "seed" in done.stderr and done.stdout == ""
