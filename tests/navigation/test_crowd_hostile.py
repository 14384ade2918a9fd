"""Hostile numbers for a crowd (issue #30 §3): a radius of 1e308 once gave NaN positions and crashed the
interpreter on a later step, a speed of 1e308 a raw ZeroDivisionError. Every agent and crowd number has a named
range; each outside it is a ParameterError naming it, and every value at the ends of the ranges (stepped in a
child process, bounds checked, with a time limit) keeps the agents finite and on the navmesh."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.navigation import Crowd, CrowdSettings, WalkableGrid, navmesh_from_grids
from voxelworld.navigation.crowd import (
    AGENT_RADIUS,
    MAX_AGENT_SPEED,
    MAX_COORDINATE,
    MAX_DISTANCE,
    MAX_PRIORITY,
    TIME_HORIZON,
)

from ..child import run_child


def field(size: float = 10.0):
    n = round(size / 0.5)
    return navmesh_from_grids([WalkableGrid(np.ones((n, n), dtype=bool), np.zeros((n, n)), 0.0, 0.0, 0.5)])


@pytest.mark.parametrize("change, parameter", [
    ({"radius": 1e308}, "radius"), ({"radius": AGENT_RADIUS[1] * 1.01}, "radius"),
    ({"radius": AGENT_RADIUS[0] / 2}, "radius"), ({"radius": 5e-324}, "radius"),
    ({"speed": 1e308}, "speed"), ({"speed": MAX_AGENT_SPEED * 1.01}, "speed"),
    ({"height": 1e308}, "height"), ({"height": 1e-300}, "height"),
    ({"arrival_distance": 1e308}, "arrival_distance"), ({"arrival_distance": MAX_DISTANCE * 1.01}, "arrival_distance"),
    ({"priority": 1e308}, "priority"), ({"priority": -1e308}, "priority"),
    ({"priority": MAX_PRIORITY * 1.01}, "priority"),
])
def test_an_agent_number_out_of_its_range_is_refused_by_name(change, parameter):
    crowd = Crowd(field())
    numbers = {"radius": 0.3, "speed": 1.0, **change}
    with pytest.raises(ParameterError) as error:
        crowd.add_agent((5.0, 0.0, 5.0), **numbers)
    assert error.value.parameter == parameter and "must be" in str(error.value)
    assert len(crowd) == 0


@pytest.mark.parametrize("name, value", [
    ("neighbour_distance", 1e308), ("time_horizon", 1e-308), ("time_horizon", TIME_HORIZON[0] / 2),
    ("time_horizon", 1e308), ("give_way_distance", 1e308), ("slowdown_distance", 1e308), ("max_snap", 1e308)])
def test_a_crowd_setting_out_of_its_range_is_refused_by_name(name, value):
    with pytest.raises(ParameterError) as error:
        CrowdSettings(**{name: value})
    assert error.value.parameter == name


@pytest.mark.parametrize("key, value", [
    ("velocity", [1e308, 0.0]), ("velocity", [0.0, 2.5 * MAX_AGENT_SPEED]),
    ("position", [-1e308, 0.0, 5.0]), ("position", [5.0, 0.0, 2 * MAX_COORDINATE]),
    ("path", [[5.0, 0.0, 5.0], [1e308, 0.0, 5.0]])])
def test_a_restored_state_beyond_the_ranges_is_refused(key, value):
    """Two agents restored 2e308 m apart once made the step's neighbour grid a raw ValueError (bounds checked: an
    index out of bounds); a velocity of 1e308 made the avoidance NaN."""
    crowd = Crowd(field())
    agent = crowd.add_agent((5.0, 0.0, 5.0), 0.3, 1.0)
    crowd.set_goal(agent, (8.0, 0.0, 8.0))
    state = crowd.agent_state(agent)
    with pytest.raises(ParameterError) as error:
        crowd.restore_agent(agent, {**state, key: np.array(value)})
    assert error.value.parameter == f"state[{key!r}]"
    assert all(np.array_equal(crowd.agent_state(agent)[k], state[k]) for k in ("position", "velocity", "path"))


def test_an_agent_beyond_the_coordinate_range_is_refused():
    crowd = Crowd(field())
    for call in (lambda: crowd.add_agent((2 * MAX_COORDINATE, 0.0, 5.0), 0.3, 1.0),
                 lambda: crowd.move_agent(crowd.add_agent((5.0, 0.0, 5.0), 0.3, 1.0), (5.0, 0.0, -1e300))):
        with pytest.raises(ParameterError) as error:
            call()
        assert error.value.parameter == "position" and "1e+12" in str(error.value)


def test_the_game_checks_an_agent_by_the_crowd_s_ranges():
    from ..game.test_npcs import world

    volume, mesher, navigation = world()
    for numbers, parameter in [((1e308, 1.0, 0.3), "radius"), ((0.4, 1e308, 0.3), "speed"),
                               ((0.4, 1.0, 1e308), "arrival_distance")]:
        with pytest.raises(ParameterError) as error:
            navigation.add_agent((10.0, 4.0, 10.0), *numbers, max_snap=1.0)
        assert error.value.parameter == parameter
    assert len(navigation.crowd) == 0


@pytest.mark.parametrize("change", [{"radius": 1e308}, {"radius": AGENT_RADIUS[1] * 2}, {"speed": 1e308},
                                    {"arrival_radius": 1e308}])
def test_npc_settings_refuse_what_the_crowd_would(change):
    """Refused when the settings are made, by their own names, not later by the crowd's (arrival_distance)."""
    from voxelworld.game.npcs import NPCSettings

    with pytest.raises(ParameterError) as error:
        NPCSettings(**change)
    assert error.value.parameter == next(iter(change))


# The ends of every range, stepped: agents of the least and the most radius, height, speed, arrival distance and
# priority in each corner of settings at the ends of theirs, at the shortest and longest steps.
CHILD = """
import sys
import numpy as np
from voxelworld.errors import ParameterError
from voxelworld.navigation import Crowd, CrowdSettings, NavQuery, WalkableGrid, navmesh_from_grids
from voxelworld.navigation.crowd import (AGENT_HEIGHT, AGENT_RADIUS, MAX_AGENT_SPEED, MAX_COORDINATE,
                                         MAX_DISTANCE, MAX_PRIORITY, MAX_STEP, TIME_HORIZON)

mesh = navmesh_from_grids([WalkableGrid(np.ones((40, 40), dtype=bool), np.zeros((40, 40)), 0.0, 0.0, 0.5)])
query = NavQuery(mesh)
try:  # the issue's case: refused (it once stepped to NaN positions, then crashed)
    Crowd(mesh).add_agent((5.0, 0.0, 5.0), radius=1e308, speed=1.0)
    sys.exit("a radius of 1e308 was taken")
except ParameterError:
    pass
ends = [dict(neighbour_distance=d, time_horizon=t, give_way_distance=d, slowdown_distance=d, max_snap=max(d, 1.0),
             max_neighbours=m, separation_iterations=64, separation_slack=s, keep_right=k, yield_share=y)
        for d, t, m, s, k, y in [(MAX_DISTANCE, TIME_HORIZON[0], 64, 0.5, 1.0, 0.5),
                                 (5e-324, TIME_HORIZON[1], 1, 0.0, 0.0, 0.0),
                                 (1e-3, TIME_HORIZON[0], 10, 0.01, 1.0, 0.4)]]
agents = [dict(radius=AGENT_RADIUS[0], speed=MAX_AGENT_SPEED, height=AGENT_HEIGHT[0], arrival_distance=0.0,
               priority=MAX_PRIORITY),
          dict(radius=AGENT_RADIUS[1], speed=MAX_AGENT_SPEED, height=AGENT_HEIGHT[1],
               arrival_distance=MAX_DISTANCE, priority=-MAX_PRIORITY),
          dict(radius=AGENT_RADIUS[1], speed=0.0, height=AGENT_HEIGHT[1], priority=0.0),
          dict(radius=AGENT_RADIUS[0], speed=MAX_AGENT_SPEED, height=AGENT_HEIGHT[1], arrival_distance=0.0,
               priority=-MAX_PRIORITY),
          dict(radius=AGENT_RADIUS[1], speed=MAX_AGENT_SPEED, height=AGENT_HEIGHT[0], arrival_distance=0.0,
               priority=MAX_PRIORITY)]
for settings in ends:
    crowd = Crowd(mesh, CrowdSettings(**settings))
    ids = []
    for n, numbers in enumerate(agents * 3):
        start = (1.0 + 0.3 * n, 0.0, 1.0 + 1.1 * (n % 5))  # packed: they overlap at once
        ids.append(crowd.add_agent(start, **numbers))
        crowd.set_goal(ids[-1], (19.0 - 0.3 * n, 0.0, 19.0 - 1.1 * (n % 5)))
    for dt in [5e-324, 1e-300, 1e-9] * 3 + [MAX_STEP] * 10 + [1 / 30] * 30 + [5e-324] * 3 + [MAX_STEP] * 5:
        crowd.step(dt)
        assert np.all(np.isfinite(crowd.positions)) and np.all(np.isfinite(crowd.velocities)), (settings, dt)
        assert np.all(np.hypot(crowd.velocities[:, 0], crowd.velocities[:, 2]) <= 1.001 * MAX_AGENT_SPEED)
        assert all(query.locate(p) >= 0 for p in crowd.positions), (settings, dt)
# Two islands at the ends of the coordinate range, 2e12 m apart, and a grid of cells of 5e-324 m over them.
edge = MAX_COORDINATE - 20.0
far = navmesh_from_grids([WalkableGrid(np.ones((40, 40), dtype=bool), np.zeros((40, 40)), x, -x, 0.5)
                          for x in (-edge - 20.0, edge)])
crowd = Crowd(far, CrowdSettings(neighbour_distance=5e-324))
for x in (-edge - 10.0, edge + 10.0):
    agent = crowd.add_agent((x, 0.0, -x + 10.0), **agents[0])
    crowd.set_goal(agent, (x + 5.0, 0.0, -x + 15.0))
for dt in [5e-324, MAX_STEP, 1 / 30]:
    crowd.step(dt)
    assert np.all(np.isfinite(crowd.positions)) and all(NavQuery(far).locate(p) >= 0 for p in crowd.positions)
print("ok")
"""


def test_the_ends_of_every_range_step_finite_and_on_the_mesh(tmp_path):
    """Bounds checked in earnest: numba's cache keys a kernel on its signature and CPU, not on NUMBA_BOUNDSCHECK,
    so a child reading the suite's cache would run unchecked code (a read past an array's end then crashes the
    child now and then, or passes); its own empty cache makes it compile checked code (about two minutes)."""
    child = run_child(["-W", "error::RuntimeWarning", "-c", CHILD], 900,
                      env={"NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path / "numba")})
    assert child.returncode == 0 and child.stdout.strip() == "ok", child.stderr[-3000:]
