"""Running test code in a child Python process with a time limit: for code that could hang (a loop that never ends,
opening a FIFO that blocks until a writer comes), allocate without end, crash the interpreter, or must not touch the
test's own process. A hang fails its test (the child killed) instead of stopping the suite. The child imports the
voxelworld this test run imports (installed or on PYTHONPATH).

Two ways in: :func:`run_python` runs a piece of code and hands back what it printed; :func:`in_child` evaluates one
call, timed by the child itself (so that a refusal that takes seconds fails too: :func:`refusal`), under a memory
limit (a call that allocates without end raises MemoryError instead of taking the machine)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import voxelworld

TIME_LIMIT = 60.0  # s: a child's whole life (imports included), unless a test gives another
# s: a refusal comes within this. No call that is refused has work to do, but a command's call imports the wings it
# runs as it starts (about 1 s, up to 1.6 s seen on a busy 2-core machine); the work a refusal spares takes minutes.
REFUSAL_LIMIT = 4.0
MEMORY_LIMIT = 3 * 2**30  # bytes of data an in_child call may take

# Code a ``guarded`` child runs first: making a temporary beside a file, or moving one over it, raises SystemExit
# naming the call (the only ways voxelworld replaces a file: files.build_atomically's mkstemp and os.replace,
# pathlib's Path.replace and rename). For the cases whose target is a real device such as /dev/null: code that
# would replace it stops at the guard instead.
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

CALL = """
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_DATA, (MEMORY, MEMORY))
setup, call = json.loads(sys.stdin.read())
scope = {}
exec(setup, scope)
start = time.perf_counter()
try:
    result = eval(call, scope)
    outcome = {"raised": None, "result": repr(result)}
except BaseException as error:  # what was raised, whatever it is, is what the test looks at
    outcome = {"raised": type(error).__name__, "message": str(error), "parameter": getattr(error, "parameter", None)}
outcome["seconds"] = time.perf_counter() - start
print(json.dumps(outcome), flush=True)
""".replace("MEMORY", str(MEMORY_LIMIT))


def child_environment(**extra: str) -> dict:
    """The environment of a child process that imports this voxelworld, with ``extra`` variables set."""
    source = str(Path(voxelworld.__file__).resolve().parents[1])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")])),
            **extra}


def run_child(arguments, timeout: float = TIME_LIMIT, what: str = "the child", **options
              ) -> subprocess.CompletedProcess:
    """``subprocess.run([sys.executable, *arguments])`` in :func:`child_environment` (``env`` in ``options`` is
    added to it), text captured; fails the test, with what the child printed so far, when it runs past
    ``timeout`` seconds (it hangs)."""
    environment = child_environment(**options.pop("env", {}))
    try:
        return subprocess.run([sys.executable, *arguments], env=environment, capture_output=True, text=True,
                              timeout=timeout, **options)
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"{what} ran past {timeout:g} s (it hangs): stdout {error.stdout!r}, stderr {error.stderr!r}")


def run_python(code: str, timeout: float = 120.0, guarded: bool = False, cwd=None) -> subprocess.CompletedProcess:
    """Run ``code`` (dedented) in a child Python, first :data:`GUARD` if ``guarded``; its output as text."""
    return run_child(["-c", (GUARD if guarded else "") + textwrap.dedent(code)], timeout, cwd=cwd)


def printed_json(code: str, guarded: bool = False):
    """:func:`run_python` of ``code``, which must end well and print a JSON document last: that document."""
    done = run_python(code, guarded=guarded)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def in_child(call: str, setup: str = "") -> dict:
    """Run the statements ``setup``, then evaluate the expression ``call`` (timed) in a child process: what came of
    it, ``{"raised": exception type name or None, "message", "parameter" (a ParameterError's), "result" (repr),
    "seconds"}``. Fails the test when the child outlives TIME_LIMIT or dies without answering."""
    child = run_child(["-c", CALL], TIME_LIMIT, what=call, input=json.dumps([setup, call]))
    lines = child.stdout.strip().splitlines()
    if child.returncode != 0 or not lines:
        pytest.fail(f"the child running {call} died (exit code {child.returncode}): {child.stderr[-2000:]}")
    return json.loads(lines[-1])


def refusal(call: str, setup: str = "") -> dict:
    """:func:`in_child`'s outcome of a call that must be refused, once it was refused within REFUSAL_LIMIT: a
    call that returns fails the test, naming what it returned."""
    outcome = in_child(call, setup)
    assert outcome["raised"] is not None, f"{call} was accepted: {outcome['result']}"
    assert outcome["seconds"] < REFUSAL_LIMIT, f"{call} took {outcome['seconds']:.1f} s to be refused"
    return outcome
