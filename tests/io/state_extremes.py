"""Run as a script by test_state_extremes.py: for each forged case (a state row's field set to an extreme value),
load the forged world file and, unless it is refused, step it once, each under a time limit of its own.

``python state_extremes.py SCRATCH_FOLDER`` with the cases on stdin as JSON (a list of
``[id, world file, row, keys, value]``); prints a JSON line per case: ``{"id", "outcome", "message", "seconds"}`` where
``outcome`` is ``refused`` (FormatError, ``message`` its text), ``stepped`` (``seconds`` the step's own time,
measured here so that the import and the load do not count), ``hung`` (the load or the step ran past its limit)
or ``error`` (another exception). Run in a separate process so that a hang in a kernel, a crash or an event list
growing without end fails the calling test instead of the test run."""

from __future__ import annotations

import faulthandler
import json
import signal
import sys
import time
from pathlib import Path

from voxelworld.errors import FormatError
from voxelworld.game.world import Inputs
from voxelworld.io import load_world

sys.path.insert(0, str(Path(__file__).parent))
from forge import copy_of, set_in_state  # noqa: E402

LOAD_SECONDS = 20  # a load of the small world takes about 0.1 s
STEP_SECONDS = 3  # a step of it about 2 ms; the calling test wants it under 1 s


class Late(Exception):
    pass


def _late(signum, frame):
    raise Late()


def within(seconds: float, work):
    """``work()``, or Late once ``seconds`` have passed (a loop in Python code is stopped where it is)."""
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return work()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def run(scratch: Path, case) -> dict:
    ident, source, row, keys, value = case
    path = copy_of(source, scratch / "forged.vxw")
    set_in_state(path, row, keys, value)
    try:
        world = within(LOAD_SECONDS, lambda: load_world(path))
    except FormatError as error:
        return {"id": ident, "outcome": "refused", "message": str(error)}
    except Late:
        return {"id": ident, "outcome": "hung", "message": "load_world"}
    except Exception as error:  # noqa: BLE001 - reported to the calling test, which fails on it
        return {"id": ident, "outcome": "error", "message": f"load_world: {type(error).__name__}: {error}"}
    start = time.perf_counter()
    try:
        within(STEP_SECONDS, lambda: world.step(Inputs(move=(0.0, 1.0), sprint=True)))
    except Late:
        return {"id": ident, "outcome": "hung", "message": f"World.step ran past {STEP_SECONDS} s"}
    except Exception as error:  # noqa: BLE001
        return {"id": ident, "outcome": "error", "message": f"World.step: {type(error).__name__}: {error}"}
    return {"id": ident, "outcome": "stepped", "seconds": time.perf_counter() - start}


if __name__ == "__main__":
    signal.signal(signal.SIGALRM, _late)
    faulthandler.dump_traceback_later(600, exit=True)  # a hang the alarm cannot stop (in a kernel): its stack
    scratch = Path(sys.argv[1])
    for case in json.load(sys.stdin):
        print(json.dumps(run(scratch, case)), flush=True)
    print(json.dumps({"done": True}), flush=True)
