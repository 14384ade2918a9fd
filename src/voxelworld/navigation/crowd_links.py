"""A crowd's agents crossing off-mesh links, as Detour's crowd does (``DT_CROWDAGENT_STATE_OFFMESH``).

A path found through links (``NavPath.offmesh``) is walked in parts: the crowd steers an agent along the corners
up to the start of the first link on it (:meth:`CrowdLinks.walked_part`), and keeps the link and the rest of the
path. When the agent arrives there (within its arrival distance), it leaves the navmesh (its polygon is -1, so
the steering, avoidance and separation kernels leave it alone; the others still avoid it) and follows the link
from where it stands to the link's end over :func:`crossing_time`; then it lands (put on the navmesh's nearest
point to the link's end), and walks on along the rest of its path (which may hold more links). The crowd tells
each agent's leaving (event ``"offmesh"``) and landing (``"landed"``).

A drop (a link whose end is lower than where the agent leaves) is a short jump: it takes the time a body
thrown :data:`HOP` m up takes to rise and fall to the end (``g = 9.81 m/s²``), or longer when the way across is
more than twice the agent's speed covers then; its height follows the parabola through both ends whose top is
:data:`HOP` m above the start, over the share of the crossing done, moving evenly across. Any other link is
followed along a straight line at the agent's speed, and up at :data:`CLIMB_SPEED` at most (a ladder). At least
:data:`SHORTEST_CROSSING` either way.

An agent on a link is still ``"moving"``; :meth:`Crowd.link <voxelworld.navigation.Crowd.link>` says which link
it crosses and how far it is. A re-bake, a new goal or :meth:`~voxelworld.navigation.Crowd.clear_goal` while it
is in the air wait until it lands; :meth:`~voxelworld.navigation.Crowd.move_agent` ends the crossing where it
puts the agent. :meth:`~voxelworld.navigation.Crowd.agent_state` does not keep a crossing: an agent saved in the
air is saved as landed at the link's end (:meth:`CrowdLinks.saved`); one saved on its way to a link's start
walks there and stops (its state keeps the corners it walks, not the link).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .crowd import Crowd

__all__ = ["CrowdLinks", "Crossing", "crossing_time", "arc_point", "fly", "leave", "GRAVITY", "HOP", "CLIMB_SPEED",
           "SHORTEST_CROSSING"]

GRAVITY = 9.81  # m/s²
HOP = 0.25  # m: how high a drop's arc rises above where the agent leaves
CLIMB_SPEED = 1.0  # m/s: up a link whose end is higher (a ladder)
SHORTEST_CROSSING = 0.1  # s


def crossing_time(start: np.ndarray, end: np.ndarray, speed: float) -> float:
    """Seconds an agent of top ``speed`` (m/s) takes from ``start`` to ``end`` (see the module's docstring)."""
    across = math.hypot(end[0] - start[0], end[2] - start[2])
    rise = float(end[1] - start[1])
    if rise < 0:  # a jump down: up HOP m and down again, across at up to twice its speed
        flight = math.sqrt(2 * HOP / GRAVITY) + math.sqrt(2 * (HOP - rise) / GRAVITY)
        return max(flight, across / (2 * speed) if speed > 0 else 0.0, SHORTEST_CROSSING)
    return max(across / speed if speed > 0 else 0.0, rise / CLIMB_SPEED, SHORTEST_CROSSING)


def arc_point(start: np.ndarray, end: np.ndarray, u: float) -> np.ndarray:
    """The point at share ``u`` (0..1) of the way from ``start`` to ``end`` along a link (see the module)."""
    point = start + (end - start) * u
    drop = float(start[1] - end[1])
    if drop > 0:  # y0 + a u - b u²: through both ends, its top HOP above the start (a² = 4 HOP b, b = a + drop)
        a = 2 * HOP + 2 * math.sqrt(HOP * HOP + HOP * drop)
        point[1] = start[1] + a * u - (a + drop) * u * u
    return point


@dataclass
class Crossing:
    """A link on an agent's path: the link's index, where it leaves from (``start``; the agent's position once
    it has left) and lands (``end``), the corners after it (from ``end`` on) and what their segments are; and,
    once the agent has left, the time since and the crossing's length (s)."""

    link: int
    start: np.ndarray
    end: np.ndarray
    rest: np.ndarray  # (m, 3)
    rest_offmesh: np.ndarray  # (m - 1,)
    elapsed: float = 0.0
    duration: float = -1.0  # < 0: not left yet

    @property
    def airborne(self) -> bool:
        return self.duration >= 0


class CrowdLinks:
    """The links ahead of a crowd's agents and the crossings under way, by agent id."""

    def __init__(self) -> None:
        self._ahead: dict[int, Crossing] = {}
        self._replan_on_landing: set[int] = set()

    def walked_part(self, agent: int, points: np.ndarray, offmesh: np.ndarray) -> np.ndarray:
        """The corners the agent walks now (``points`` up to the start of the first link, ``offmesh`` saying
        which segments are links: ``NavPath.offmesh``), remembering the link and what follows it."""
        self._ahead.pop(agent, None)
        taken = np.flatnonzero(offmesh >= 0)
        if not len(taken):
            return points
        s = int(taken[0])
        self._ahead[agent] = Crossing(int(offmesh[s]), points[s].copy(), points[s + 1].copy(), points[s + 1:].copy(),
                                      np.asarray(offmesh[s + 1:]).copy())
        return points[:s + 1]

    def pending(self, agent: int) -> bool:
        """Whether a link lies ahead of the agent (not crossed yet)."""
        crossing = self._ahead.get(agent)
        return crossing is not None and not crossing.airborne

    def airborne(self, agent: int) -> bool:
        crossing = self._ahead.get(agent)
        return crossing is not None and crossing.airborne

    def link(self, agent: int) -> tuple[int, float]:
        """The link the agent crosses and the share of it done (0..1), or (-1, 0.0) when it crosses none."""
        crossing = self._ahead.get(agent)
        if crossing is None or not crossing.airborne:
            return -1, 0.0
        return crossing.link, min(crossing.elapsed / crossing.duration, 1.0)

    def forget(self, agent: int, airborne_too: bool = True) -> None:
        """Drop the link ahead of the agent (and its crossing, unless ``airborne_too`` is False)."""
        if airborne_too or not self.airborne(agent):
            self._ahead.pop(agent, None)
            self._replan_on_landing.discard(agent)

    def defer(self, agent: int) -> bool:
        """Whether the agent is in the air (then it is marked to plan again when it lands)."""
        if self.airborne(agent):
            self._replan_on_landing.add(agent)
            return True
        return False

    def leave(self, agent: int, position: np.ndarray, speed: float) -> None:
        """The agent, arrived at its link's start, leaves the navmesh from ``position``."""
        crossing = self._ahead[agent]
        crossing.start = position.copy()
        crossing.elapsed = 0.0
        crossing.duration = crossing_time(crossing.start, crossing.end, speed)

    def velocity(self, agent: int) -> np.ndarray:
        """The airborne agent's velocity across (x-z, m/s): the link's way across over the crossing's time."""
        crossing = self._ahead[agent]
        return (crossing.end - crossing.start)[[0, 2]] / crossing.duration

    def advance(self, agent: int, dt: float) -> tuple[np.ndarray, bool]:
        """Move the airborne agent on by ``dt`` s: where it is then and whether it has landed (then its crossing
        is over, :meth:`landed` gives what follows)."""
        crossing = self._ahead[agent]
        crossing.elapsed += dt
        u = min(crossing.elapsed / crossing.duration, 1.0)
        return arc_point(crossing.start, crossing.end, u), u >= 1.0

    def landed(self, agent: int) -> tuple[Crossing, bool]:
        """The crossing just ended (taken off the agent) and whether the agent is to plan again (its goal or the
        navmesh changed while it was in the air)."""
        replan = agent in self._replan_on_landing
        self._replan_on_landing.discard(agent)
        return self._ahead.pop(agent), replan

    def saved(self, agent: int, crowd: Crowd, state: dict[str, Any]) -> dict[str, Any]:
        """``state`` (``Crowd.agent_state``'s, world coordinates) of the agent, as landed if it is in the air (a
        crossing is not kept): on the navmesh's nearest point to the link's end, at rest, walking what follows the
        link up to the next; "blocked" off the navmesh when there is no navmesh there."""
        crossing = self._ahead.get(agent)
        if crossing is None or not crossing.airborne:
            return state
        snapped, polygon = crowd._query.nearest_point(crossing.end)  # (the crowd's query: the navmesh's frame)
        if polygon < 0:
            return state | {"position": crowd._to_world(crossing.end), "velocity": np.zeros(2), "polygon": -1,
                            "state": "blocked", "path": np.zeros((0, 3))}
        rest = crossing.rest.copy()
        rest[0] = snapped
        taken = np.flatnonzero(crossing.rest_offmesh >= 0)
        path = rest[1:int(taken[0]) + 1] if len(taken) else rest[1:]
        if state["state"] == "moving" and not len(path):
            path = rest[:1]  # at its goal: arrives there at once
        return state | {"position": crowd._to_world(snapped), "velocity": np.zeros(2), "polygon": polygon,
                        "path": crowd._to_world(path)}

    def airborne_agents(self) -> list[int]:
        """The agents crossing a link now, by id, in increasing order."""
        return sorted(agent for agent, crossing in self._ahead.items() if crossing.airborne)


# The crowd's side: what Crowd._move calls (the crowd's rows and arrays are its own; these functions are its
# hooks, kept apart so that crowd.py holds the walking and this module the crossing).
def fly(crowd: Crowd, dt: float) -> list[tuple[int, str]]:
    """Move the crowd's airborne agents on along their links by ``dt`` s; those that get to the end land: on the
    navmesh's nearest point to it (off it, ``"blocked"``, when farther than ``max_snap``), walking on along the
    rest of their path (or planning again, when their goal or the navmesh changed in the air). Returns the
    landings (and blockings) as (agent, kind)."""
    links: CrowdLinks = crowd._links
    events = []
    for agent in links.airborne_agents():
        row = crowd._slot[agent]
        point, done = links.advance(agent, dt)
        crowd._velocity[row] = links.velocity(agent)
        crowd._position[row] = point
        if not done:
            continue
        crossing, replan = links.landed(agent)
        snapped, polygon = crowd._query.nearest_point(crossing.end)
        crowd._velocity[row] = 0.0
        if polygon < 0 or not np.linalg.norm(snapped - crossing.end) <= crowd.settings.max_snap:
            crowd._polygon[row] = -1  # off the navmesh (a re-bake took the ground away): no path from there
            if np.isnan(crowd._goal[row, 0]):
                crowd.clear_goal(agent)
            elif not crowd._plan(row):
                events.append((agent, "blocked"))
            continue
        crowd._position[row], crowd._polygon[row] = snapped, polygon
        events.append((agent, "landed"))
        if np.isnan(crowd._goal[row, 0]):
            crowd._set_path(row, np.zeros((0, 3)))
        elif replan:
            crowd._queue_replan(agent)
            crowd._set_path(row, np.zeros((0, 3)))
        else:
            rest = crossing.rest.copy()
            rest[0] = snapped
            crowd._set_path(row, links.walked_part(agent, rest, crossing.rest_offmesh))
    return events


def leave(crowd: Crowd, rows: np.ndarray) -> list[tuple[int, str]]:
    """The agents of ``rows`` (arrived at the end of what they walk) with a link ahead leave the navmesh onto it;
    returns them as (agent, "offmesh"), and takes them out of ``rows`` (in place: False)."""
    links: CrowdLinks = crowd._links
    events = []
    for row in np.flatnonzero(rows).tolist():
        agent = int(crowd._ids[row])
        if not links.pending(agent):
            continue
        rows[row] = False
        links.leave(agent, crowd._position[row], float(crowd._speed[row]))
        crowd._polygon[row] = -1  # off the navmesh: the walking kernels leave it alone
        crowd._set_path(row, np.zeros((0, 3)))
        events.append((agent, "offmesh"))
    return events
