"""World state forged at its extremes (issue 30, item 1): every number of the state rows of a small saved world
(the player, the world, the actions, the cast, its NPCs and enemies and their motion, the navigation), and those
only a scripted session's world holds (loose objects, patrols, awards, a cut along the wall), is set, in turn, to
finite extremes (±1e308, -0.0, huge positions, negative times, huge counts), the way a hostile user edits a file,
checksums passing. Each forged file is refused by :func:`load_world` with a FormatError naming the field, or
loads a world whose next step returns within 1 s. A player row whose ``stride_left`` was -1e300 made the first
step emit footsteps for ever.

The loads and steps run in a child process (tests/io/state_extremes.py) with a time limit for each, so that a
hang fails this test instead of stopping the test run; the child measures each step itself (the import and the
load are not the step)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest

from voxelworld.io import save_world

from ..child import run_child
from .forge import copy_of, set_in_state, state_row
from .scenario import MOMENTS, play, scenario_world
from .test_hostile import refused, small_world

CHILD = Path(__file__).with_name("state_extremes.py")
ROWS = ("player", "world", "actions", "agents", "navigation")
STEP_LIMIT = 1.0  # s: a step of the small world takes about 2 ms; a forged state must not make one loop for ever
FLOATS = (1e308, -1e308, -0.0)
WHOLES = (2 ** 62, -1)
ARRAY_FILLS = (1e308, -1e308)
POINTS = ((0.0, 0.0, 1e8), (-1e300, 4.0, 1e300))
# Settings stored beside the state (the constructors check them, naming the field or what it contradicts).
SETTINGS = ("settings", "region", "prop_min_height")
# Fields a refusal names otherwise: the world is built with the player standing at its position (its spawn); the
# world row's count of events is checked against the event rows.
NAMED = {("player", "position"): "spawn = (", ("world", "event_count"): "the world row says"}


def encoded(values: np.ndarray) -> dict:
    return {"$": "ndarray", "dtype": str(values.dtype), "shape": list(values.shape),
            "base64": base64.b64encode(values.tobytes()).decode()}


def extremes(value) -> list:
    """The forged values of a state value (encoded as the file holds them): finite extremes of its kind."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return list(WHOLES)
    if isinstance(value, float) or (isinstance(value, dict) and value.get("$") == "float"):
        return list(FLOATS)
    if isinstance(value, dict) and value.get("$") == "ndarray" and value["dtype"] in ("float64", "int64"):
        shape = tuple(value["shape"])
        if 0 in shape:
            return []
        kind = np.float64 if value["dtype"] == "float64" else np.int64
        fills = ARRAY_FILLS if kind is np.float64 else (2 ** 62, -(2 ** 62))
        forged = [encoded(np.full(shape, fill, kind)) for fill in fills]
        if shape == (3,) and kind is np.float64:
            forged += [encoded(np.array(point)) for point in POINTS]
        return forged
    return []


def places(data, keys=(), name=None):
    """Every place (keys) of a number or an array in a state row, with the field it belongs to (the innermost
    key or the key of a ``{"$": "dict"}`` item); of a list longer than a pair, its first item only (the others
    are alike)."""
    if isinstance(data, dict) and data.get("$") != "dict":
        if data.get("$") in ("ndarray", "float"):
            yield list(keys), name, data
            return
        for key, value in data.items():
            if key != "$":
                yield from places(value, (*keys, key), key if key not in ("items",) else name)
    elif isinstance(data, dict):  # {"$": "dict", "items": [[key, value], ...]}
        for n, (key, value) in enumerate(data["items"][:8]):
            yield from places(value, (*keys, "items", n, 1), key if isinstance(key, str) else name)
    elif isinstance(data, list):  # a pair whole (a name and its amount), of a longer list its first item
        for n, value in enumerate(data[:2] if len(data) == 2 else data[:1]):
            yield from places(value, (*keys, n), name)
    else:
        yield list(keys), name, data


def signature(row: str, keys) -> tuple:
    """A place's keys without list indices: the same field of another item or another world."""
    return (row, *(key for key in keys if isinstance(key, str)))


def forged_cases(path, besides=frozenset()) -> dict:
    """id -> (path, row, keys, value, words) for every number of the state rows of the world file ``path`` (but
    the places of ``besides``, signatures) at each of its extremes; ``words``: what a refusal must name (the
    field; nothing more for settings)."""
    cases = {}
    for row in ROWS:
        for keys, field, value in places(state_row(path, row)):
            if signature(row, keys) in besides:
                continue
            settings = any(key in SETTINGS for key in keys)
            words = [] if settings else [NAMED.get((row, field), field)]
            for n, forged in enumerate(extremes(value)):
                cases[f"{path.stem}:{row}.{'.'.join(map(str, keys))}#{n}"] = (str(path), row, keys, forged, words)
    return cases


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("extremes") / "small.vxw"
    save_world(small_world(), path)
    return path


@pytest.fixture(scope="module")
def outcomes(saved):
    """The small world's every state number, then those only the session of tests/io/scenario.py holds when a
    piece it pulled out is flying (loose objects, patrols, a pending re-bake, a cut along the wall, awards)."""
    session = saved.with_name("session.vxw")
    save_world(play(scenario_world(), MOMENTS["piece flying"][0]), session)
    cases = forged_cases(saved)
    cases |= forged_cases(session, {signature(row, keys) for _, row, keys, _, _ in cases.values()})
    done = run_child([str(CHILD), str(saved.parent)], 1800, what="the forged states",
                     input=json.dumps([[ident, path, row, keys, value] for ident, (path, row, keys, value, _) in
                                       cases.items()]))
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines and lines[-1] == {"done": True}, (
        f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}")
    return cases, {line["id"]: line for line in lines[:-1]}


def test_every_state_number_at_its_extremes_is_refused_naming_it_or_steps_in_time(outcomes):
    cases, results = outcomes
    assert len(cases) > 400  # every row's numbers (543 cases when this was written)
    wrong = []
    for ident, (_, _row, _keys, _value, words) in cases.items():
        result = results[ident]
        if result["outcome"] == "refused":
            if not all(word in result["message"] for word in words):
                wrong.append(f"{ident}: refused without naming {words}: {result['message']}")
        elif result["outcome"] != "stepped" or result["seconds"] >= STEP_LIMIT:
            wrong.append(f"{ident}: {result}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("field, value, words", [
    ("stride_left", -1e300, ["state row 'player'", "state['stride_left'] = -1e+300"]),
    ("stride_left", 0.0, ["state row 'player'", "state['stride_left'] = 0.0", "> 0.0"]),
    ("stride_left", 5.0, ["state row 'player'", "state['stride_left'] = 5.0", "<= 0.8"]),
    ("position", encoded(np.array([0.0, 0.0, 1e8])), ["spawn = (0.0, 0.0, 100000000.0)", "world's box"]),
    ("velocity", encoded(np.array([0.0, 0.0, 1e300])), ["state row 'player'", "state['velocity']", "1000.0 m/s"])])
def test_the_player_rows_of_issue_30_are_refused_naming_the_field(saved, field, value, words, tmp_path):
    """The forged player rows of the issue: the load refuses them (the test above checks that nothing hangs)."""
    path = copy_of(saved, tmp_path / "forged.vxw")
    set_in_state(path, "player", [field], value)
    refused(path, *words)
