"""A process killed (SIGKILL) in the middle of saving leaves a file that loads as its last completed save (or as
the save it was writing, if that one committed before the kill)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import voxelworld
from voxelworld.io import load_world, save_world

CHILD = Path(__file__).with_name("save_loop.py")

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


def run_and_kill(path: Path, saves: int, delay: float, pause: bool = False) -> list[str]:
    """Start the save loop; once it has completed ``saves`` saves and started the next (with ``pause``: written
    that save's rows, not yet committed), wait ``delay`` seconds and kill it. Returns its lines."""
    env = dict(os.environ, PYTHONPATH=str(Path(voxelworld.__file__).parents[1]))
    command = [sys.executable, str(CHILD), str(path)] + (["--pause"] if pause else [])
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    lines: list[str] = []
    ready = threading.Event()
    cue = "written" if pause else "writing"

    def read() -> None:
        for line in child.stdout:
            lines.append(line.strip())
            if line.startswith(cue) and sum(seen.startswith("saved") for seen in lines) >= saves:
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert ready.wait(timeout=120), f"the save loop did not complete {saves} saves"
        time.sleep(delay)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        reader.join(timeout=30)
    return lines


def marks(lines: list[str], kind: str) -> list[str]:
    return [line.split(" ", 1)[1] for line in lines if line.startswith(kind + " ")]


def mark(world) -> str:
    return f"{world.frame} {world.voxel_hash()}"


def test_a_save_killed_before_its_commit_leaves_the_last_completed_save(tmp_path):
    for kill, saves in enumerate((1, 3)):
        path = tmp_path / f"world-{kill}.vxw"
        lines = run_and_kill(path, saves, 0.0, pause=True)
        assert lines[-1] == "written" and Path(f"{path}-journal").exists()  # killed inside the transaction
        world = load_world(path)  # rolls the journal back
        assert mark(world) == marks(lines, "saved")[-1] != marks(lines, "writing")[-1]
        save_world(world, path)  # the file is whole again: saving over it and loading it back work
        assert mark(load_world(path)) == mark(world)


def test_a_first_save_killed_before_its_commit_leaves_no_file(tmp_path):
    path = tmp_path / "world.vxw"
    lines = run_and_kill(path, 0, 0.0, pause=True)
    assert lines[-1] == "written" and not path.exists()  # it was being written beside, under another name


def test_a_save_loop_killed_at_any_moment_leaves_a_completed_save(tmp_path):
    rng = np.random.default_rng(3)
    for kill in range(3):
        path = tmp_path / f"world-{kill}.vxw"
        lines = run_and_kill(path, int(rng.integers(1, 5)), float(rng.uniform(0.0, 0.1)))
        # The save being written when killed counts only if it committed (its "saved" line may not have made it).
        writing = marks(lines, "writing")[-1] if lines[-1].startswith("writing") else None
        assert mark(load_world(path)) in (marks(lines, "saved")[-1], writing)
