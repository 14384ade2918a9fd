"""Hostile input that could hang or crash, tried in a child process with a time and memory limit: a case that loops
forever fails its test (its child killed) instead of stopping the suite, one that allocates without end stops at
MEMORY_LIMIT instead of taking the machine, and the child times the call itself, so that a refusal that takes
seconds fails too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import voxelworld

TIME_LIMIT = 60.0  # s: the child's whole life (imports included)
REFUSAL_LIMIT = 1.0  # s: a refusal comes within this (no call that is refused has work to do)
MEMORY_LIMIT = 3 * 2**30  # bytes of data the child may take (a call that allocates without end raises MemoryError)

CHILD = """
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


def child_environment() -> dict:
    """The environment of a child process that imports this voxelworld (whether installed or on PYTHONPATH)."""
    source = str(Path(voxelworld.__file__).resolve().parents[1])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")]))}


def in_child(call: str, setup: str = "") -> dict:
    """Run the statements ``setup``, then evaluate the expression ``call`` (timed) in a child process: what came of
    it, ``{"raised": exception type name or None, "message", "parameter" (a ParameterError's), "result" (repr),
    "seconds"}``. Fails the test when the child outlives TIME_LIMIT or dies without answering."""
    try:
        child = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps([setup, call]), capture_output=True,
                               text=True, timeout=TIME_LIMIT, env=child_environment())
    except subprocess.TimeoutExpired:
        pytest.fail(f"{call} did not answer within {TIME_LIMIT:g} s (it hangs)")
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
