"""What a :class:`~voxelworld.navigation.Crowd`'s agent is and keeps: the ranges of its numbers
(:func:`check_agent`), its states (:data:`AGENT_STATES`) and its state as plain values and back
(:func:`agent_state`, :func:`restore_agent`, which ``Crowd.agent_state`` and ``Crowd.restore_agent`` call: this
module reads and sets the crowd's rows, as a C++ friend would).

An agent's state is in world coordinates, as the crowd's other points are; on a navmesh baked in a turned region
(``NavMesh.frame`` set) the crowd keeps its rows in the navmesh's own frame, and these functions turn the points
on the way out and in. The velocity is the agent's on the navmesh's plane: x and z of the navmesh's own frame
(the world's without a frame), as the crowd keeps it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ParameterError, check_finite, check_integer, check_point

if TYPE_CHECKING:
    from .crowd import Crowd

__all__ = ["AGENT_STATES", "AGENT_RADIUS", "AGENT_HEIGHT", "MAX_AGENT_SPEED", "MAX_DISTANCE", "MAX_PRIORITY",
           "MAX_COORDINATE", "check_agent", "check_reach", "agent_state", "restore_agent", "STATE_KEYS"]

AGENT_STATES = ("idle", "moving", "arrived", "blocked")  # no goal; on its way; at its goal; no path to it
IDLE, MOVING, ARRIVED, BLOCKED = range(4)
# The ranges an agent's and a crowd's numbers are checked against: wide enough for anything that walks (a mouse to
# a vehicle), narrow enough that the kernels' squares, sums and quotients of radii, speeds and distances stay
# finite and well away from rounding to nothing (1e308 once gave NaN positions and a crash).
AGENT_RADIUS = (0.01, 10.0)  # m: an agent's radius, least and most
AGENT_HEIGHT = (0.01, 100.0)  # m: an agent's height, least and most
MAX_AGENT_SPEED = 100.0  # m/s: an agent's top speed at most (360 km/h)
MAX_DISTANCE = 1000.0  # m: an arrival distance and CrowdSettings' distances at most
MAX_PRIORITY = 1e6  # an agent's priority lies within +-this (it only orders agents)
MAX_COORDINATE = 1e12  # m: an agent's or a path corner's |x| and |z| at most (offsets between them square finitely)
STATE_KEYS = ("position", "velocity", "polygon", "state", "goal", "path", "planned_at", "replan_turn")


def check_agent(radius: float, speed: float, height: float = 2.0, arrival_distance: float | None = None,
                priority: float = 0.0) -> tuple[float, float, float, float, float]:
    """An agent's numbers (see :meth:`Crowd.add_agent`) as floats, ``(radius, speed, height, arrival_distance,
    priority)`` (``arrival_distance`` None: the radius), or a ParameterError naming the first out of its range."""
    radius = check_finite("radius", radius, minimum=AGENT_RADIUS[0], maximum=AGENT_RADIUS[1], unit="m")
    speed = check_finite("speed", speed, minimum=0.0, maximum=MAX_AGENT_SPEED, unit="m/s")
    height = check_finite("height", height, minimum=AGENT_HEIGHT[0], maximum=AGENT_HEIGHT[1], unit="m")
    arrival = radius if arrival_distance is None else check_finite("arrival_distance", arrival_distance,
                                                                    minimum=0.0, maximum=MAX_DISTANCE, unit="m")
    priority = check_finite("priority", priority, minimum=-MAX_PRIORITY, maximum=MAX_PRIORITY)
    return radius, speed, height, arrival, priority


def check_reach(parameter: str, points: np.ndarray, value: object) -> None:
    """ParameterError unless every point's x and z lie within +-:data:`MAX_COORDINATE` m."""
    if not np.all(np.abs(points.reshape(-1, 3)[:, [0, 2]]) <= MAX_COORDINATE):
        raise ParameterError(parameter, value, f"points (m) whose x and z lie within +-{MAX_COORDINATE:g} m")


def _finite_array(value: object) -> np.ndarray | None:
    """``value`` as a float64 array of finite numbers, or None."""
    try:
        array = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return array if np.all(np.isfinite(array)) else None


def agent_state(crowd: Crowd, agent: int) -> dict[str, Any]:
    """:meth:`Crowd.agent_state`: agent ``agent``'s rows as plain values (copies, points in world coordinates)."""
    row = crowd._row(agent)
    queue = crowd._replan_queue
    return {"position": crowd.position(agent), "velocity": crowd._velocity[row].copy(),
            "polygon": int(crowd._polygon[row]), "state": AGENT_STATES[crowd._state[row]],
            "goal": crowd.goal(agent), "path": crowd.path(agent), "planned_at": float(crowd._planned_at[row]),
            "replan_turn": queue.index(agent) if agent in queue else -1}


def restore_agent(crowd: Crowd, agent: int, state: dict[str, Any]) -> None:
    """:meth:`Crowd.restore_agent`: every value checked (ParameterError naming its key) before any row changes."""
    row = crowd._row(agent)
    if not isinstance(state, dict) or any(key not in state for key in STATE_KEYS):
        raise ParameterError("state", sorted(state) if isinstance(state, dict) else type(state).__name__,
                             f"a mapping with the keys {', '.join(STATE_KEYS)}")
    position = crowd._to_local("state['position']", np.array(check_point("state['position']", state["position"])),
                               state["position"])
    velocity = _finite_array(state["velocity"])
    if velocity is None or velocity.shape != (2,) or not np.hypot(*velocity) <= 2.0 * MAX_AGENT_SPEED:
        raise ParameterError("state['velocity']", state["velocity"], "two finite numbers (m/s, x and z) of a "
                             f"length <= {2.0 * MAX_AGENT_SPEED} (twice the top speed any agent may have)")
    polygon = check_integer("state['polygon']", state["polygon"], minimum=-1, maximum=crowd.mesh.polygon_count - 1)
    if state["state"] not in AGENT_STATES:
        raise ParameterError("state['state']", state["state"], f"one of {', '.join(AGENT_STATES)}")
    goal = None if state["goal"] is None else np.array(check_point("state['goal']", state["goal"]))
    path = _finite_array(state["path"])
    walking = state["state"] in ("moving", "arrived")
    if path is None or path.ndim != 2 or path.shape[1] != 3 or (walking and not (len(path) and goal is not None)):
        raise ParameterError("state['path']", state["path"], "an (n, 3) array of finite numbers (m), with corners "
                             "(and a goal) while moving or arrived")
    path = crowd._to_local("state['path']", path, state["path"])
    planned_at = float(state["planned_at"])
    if planned_at != planned_at or planned_at == np.inf:
        raise ParameterError("state['planned_at']", state["planned_at"], "a number < inf (s)")
    turn = check_integer("state['replan_turn']", state["replan_turn"], minimum=-1)
    crowd._position[row], crowd._velocity[row], crowd._polygon[row] = position, velocity, polygon
    crowd._state[row] = AGENT_STATES.index(state["state"])
    crowd._goal[row] = np.nan if goal is None else crowd._to_local("state['goal']", goal, state["goal"], reach=False)
    if not np.array_equal(crowd._paths[row], path):  # (the same corners: the joined corners stand, as an
        crowd._corners_stale = True                  # enemy cutting in place is given back its agent every frame)
    crowd._paths[row], crowd._next_corner[row] = path.copy(), 0
    crowd._planned_at[row] = planned_at
    crowd._replan_queue = [a for a in crowd._replan_queue if a != agent]
    if turn >= 0:
        crowd._replan_turns[agent] = turn
        crowd._replan_queue = sorted(crowd._replan_turns, key=crowd._replan_turns.__getitem__)
