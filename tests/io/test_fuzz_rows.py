"""World-file rows fuzzed (issue 13): hypothesis mutates the rows of a small saved world, keeping the checksums
passing; each load must raise FormatError or give a world that steps. The fuzzing runs in a child process
(tests/io/fuzz_rows.py), so that a crash or a hang fails this test instead of ending the test run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import voxelworld
from voxelworld.io import save_world

from .test_hostile import small_world

CHILD = Path(__file__).with_name("fuzz_rows.py")
EXAMPLES = 150


def test_fuzzed_rows_are_refused_or_load_a_world_that_steps(tmp_path):
    path = tmp_path / "small.vxw"
    save_world(small_world(), path)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = dict(os.environ, PYTHONPATH=str(Path(voxelworld.__file__).parents[1]))
    done = subprocess.run([sys.executable, str(CHILD), str(path), str(scratch), str(EXAMPLES)], env=env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), (
        f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}")
    refused, stepped = (int(word) for word in done.stdout.split()[1:4:2])
    assert refused > 0 and stepped > 0, done.stdout  # the mutations reach both outcomes
