"""Run as a script by test_fuzz.py: hypothesis mutates the rows of a saved world file (values in the JSON of state
rows, the numbers and arrays of the world-state rows set to extreme finite values, array rows' dtype, shape and
raw_size, chunk blobs and their sizes), keeping every checksum passing, and requires that :func:`load_world` either
raises FormatError or returns a world that steps 5 frames.

``python fuzz_rows.py WORLD_FILE SCRATCH_FOLDER EXAMPLES``; exits 0 when every example holds (in a separate
process, so that a crash or hang fails the calling test instead of the test run)."""

from __future__ import annotations

import base64
import faulthandler
import json
import os
import sqlite3
import sys
import traceback
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from voxelworld.errors import FormatError
from voxelworld.game.world import Inputs
from voxelworld.io import load_world

sys.path.insert(0, str(Path(__file__).parent))
from forge import copy_of, rewrite_array, state_row, write_chunk, write_state_text  # noqa: E402

SOURCE, SCRATCH, EXAMPLES = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
HANG_SECONDS = 90
with sqlite3.connect(SOURCE) as _connection:
    STATE_NAMES = sorted(row[0] for row in _connection.execute("SELECT name FROM state"))
    ARRAYS = sorted(row[0] for row in _connection.execute("SELECT name FROM arrays"))
    CHUNKS = sorted(_connection.execute("SELECT cx, cy, cz, field, raw_size FROM chunks"))

scalars = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70), st.integers(-3, 300),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8),
                    st.sampled_from([{"$": "float", "value": w} for w in ("nan", "inf", "-inf")]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.builds(lambda items: {"$": "list", "items": items},
                                                                 st.lists(inner, max_size=3))), max_leaves=6)


def places(data, keys=()):
    """Every place (keys) in a JSON value, and the value there."""
    yield list(keys), data
    if isinstance(data, dict):
        for key, value in data.items():
            if key != "$":
                yield from places(value, (*keys, key))
    elif isinstance(data, list):
        for n, value in enumerate(data):
            yield from places(value, (*keys, n))


@st.composite
def state_mutation(draw):
    name = draw(st.sampled_from(STATE_NAMES))
    data = state_row(SOURCE, name)
    keys, value = draw(st.sampled_from([(keys, value) for keys, value in places(data) if keys]))
    if isinstance(value, bool) or not isinstance(value, (int, float)) or draw(st.booleans()):
        return ("state", name, keys, draw(values))
    if isinstance(value, int):  # another value of the same kind: past the type checks, to the range checks
        near = st.integers(-2 * abs(value) - 3, 2 * abs(value) + 3)
        return ("state", name, keys, draw(st.one_of(near, st.integers(-2 ** 63, 2 ** 64))))
    return ("state", name, keys, draw(st.one_of(st.floats(), st.floats(-2 * abs(value) - 1, 2 * abs(value) + 1))))


@st.composite
def array_mutation(draw):
    name = draw(st.sampled_from(ARRAYS))
    what = draw(st.sampled_from(["dtype", "shape", "raw_size"]))
    if what == "dtype":
        value = draw(st.sampled_from(["bool", "uint8", "uint16", "int32", "int64", "float32", "float64", "object",
                                      "<U4", ""]))
    elif what == "shape":
        value = json.dumps(draw(st.lists(st.one_of(st.integers(-2, 2 ** 40), st.text(max_size=2)), max_size=4)))
    else:
        value = draw(st.one_of(st.integers(-1, 10 ** 6), st.just(2 ** 38)))
    return ("array", name, what, value)


@st.composite
def chunk_mutation(draw):
    cx, cy, cz, field, raw_size = draw(st.sampled_from(CHUNKS))
    size = draw(st.one_of(st.just(raw_size), st.integers(0, 2 * raw_size)))
    raw = draw(st.binary(min_size=size, max_size=size))
    claimed = draw(st.one_of(st.just(size), st.integers(-1, 4 * raw_size), st.just(2 ** 38)))
    return ("chunk", (cx, cy, cz), field, raw, claimed, draw(st.booleans()))


# The rows of the world's state (what its objects take back with load_state_dict), and finite extremes of their
# numbers: far beyond any range, at the edge of float64, a negative zero, a time or count below zero (issue 30).
WORLD_STATE = [name for name in ("player", "world", "actions", "agents", "navigation") if name in STATE_NAMES]
EXTREME_FLOATS = (1e300, -1e300, 1e308, -1e308, -0.0, 5e-324, 1e8, -1e8, -1.0)
EXTREME_WHOLES = (2 ** 62, -(2 ** 62), 2 ** 53 + 1, -1)


def numeric(value) -> bool:
    """A number or a float64 array of a state row (as the file holds them)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)) or (isinstance(value, dict) and value.get(
        "$") in ("float", "ndarray") and value.get("dtype", "float64") == "float64")


@st.composite
def extreme_mutation(draw):
    """A number or an array of a world-state row set to an extreme finite value (an array: every value or one)."""
    name = draw(st.sampled_from(WORLD_STATE))
    choices = [(keys, value) for keys, value in places(state_row(SOURCE, name)) if keys and numeric(value)]
    keys, value = draw(st.sampled_from(choices))
    if isinstance(value, int) and not isinstance(value, bool):
        return ("state", name, keys, draw(st.sampled_from(EXTREME_WHOLES)))
    extreme = draw(st.sampled_from(EXTREME_FLOATS))
    if not (isinstance(value, dict) and value.get("$") == "ndarray"):
        return ("state", name, keys, extreme)
    array = np.frombuffer(base64.b64decode(value["base64"]), "<f8").reshape(value["shape"]).copy()
    if array.size and draw(st.booleans()):
        array.flat[draw(st.integers(0, array.size - 1))] = extreme
    else:
        array[...] = extreme
    return ("state", name, keys, {"$": "ndarray", "dtype": "float64", "shape": list(array.shape),
                                  "base64": base64.b64encode(array.tobytes()).decode()})


OUTCOMES = {"refused": 0, "stepped": 0}


def apply(path, mutation) -> None:
    kind = mutation[0]
    if kind == "state":
        _, name, keys, value = mutation
        data = state_row(path, name)
        inner = data
        try:
            for key in keys[:-1]:
                inner = inner[key]
            inner[keys[-1]] = value
        except (KeyError, IndexError, TypeError):  # an earlier mutation took that place away
            return
        write_state_text(path, name, json.dumps(data, separators=(",", ":")))
    elif kind == "array":
        _, name, what, value = mutation
        rewrite_array(path, name, **{what: value})
    else:
        _, chunk, field, raw, claimed, content_size = mutation
        write_chunk(path, chunk, field, raw, raw_size=claimed, content_size=content_size)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=bool(os.environ.get("CI")), database=None,
          suppress_health_check=list(HealthCheck))
@given(st.lists(st.one_of(state_mutation(), extreme_mutation(), array_mutation(), chunk_mutation()), min_size=1,
                max_size=2))
def test_rows(mutations):
    path = copy_of(SOURCE, SCRATCH / "fuzzed.vxw")
    for mutation in mutations:
        apply(path, mutation)
    try:
        world = load_world(path)
    except FormatError:
        OUTCOMES["refused"] += 1
        return
    for _ in range(5):
        world.step(Inputs(move=(0.0, 1.0), suck=True))
    OUTCOMES["stepped"] += 1


if __name__ == "__main__":
    faulthandler.dump_traceback_later(HANG_SECONDS, exit=True)  # a hang (in a kernel, too) ends with its stack
    try:
        test_rows()
    except Exception:  # the falsifying example and its error, for the calling test to show
        traceback.print_exc()
        sys.exit(1)
    print(f"refused {OUTCOMES['refused']} stepped {OUTCOMES['stepped']}")
    print("ok")
