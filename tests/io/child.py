"""Running test code in a child Python process with a time limit: for code that could hang (opening a FIFO blocks
until a writer comes) or must not touch the test's own process. The child imports the voxelworld this test run
imports, and can start with guards that refuse every way of replacing a file (for the cases whose target is a real
device such as /dev/null: code that would replace it stops at the guard instead)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import voxelworld

SRC = str(Path(voxelworld.__file__).parents[1])

# Code the child runs first when ``guarded``: making a temporary beside a file, or moving one over it, raises
# SystemExit naming the call (the only ways voxelworld replaces a file: files.build_atomically's mkstemp and
# os.replace, pathlib's Path.replace and rename).
GUARD = """
import os, tempfile

def _guard(name):
    def refuse(*args, **kwargs):
        raise SystemExit(f"GUARD: {name}{args!r} called: the code went on to write")
    return refuse

os.replace = _guard("os.replace")
os.rename = _guard("os.rename")
tempfile.mkstemp = _guard("tempfile.mkstemp")
"""


def run_python(code: str, timeout: float = 120.0, guarded: bool = False, cwd=None) -> subprocess.CompletedProcess:
    """Run ``code`` (dedented) in a child Python; its output as text. Fails the test (AssertionError naming what
    the child printed so far) if it runs past ``timeout`` seconds."""
    source = (GUARD if guarded else "") + textwrap.dedent(code)
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [SRC, os.environ.get("PYTHONPATH")])))
    try:
        return subprocess.run([sys.executable, "-c", source], env=environment, capture_output=True, text=True,
                              timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"the child ran past {timeout} s (it hangs): stdout {error.stdout!r}, "
                             f"stderr {error.stderr!r}") from None
