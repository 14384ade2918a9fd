"""A crowd's agents crossing off-mesh links, as Detour's crowd does (``DT_CROWDAGENT_STATE_OFFMESH``).

A path found through links (``NavPath.offmesh``) is walked in parts: the crowd steers an agent along the corners
up to the start of the first link on it (:meth:`CrowdLinks.walked_part`), and keeps the link and the rest of the
path. When the agent arrives there (within its arrival distance), it leaves the navmesh (its polygon is -1, so
the steering, avoidance and separation kernels leave it alone; the others still avoid it) and follows the link
from where it stands to the link's end over :func:`crossing_time`; then it lands (put on the navmesh's nearest
point to the link's end), and walks on along the rest of its path (which may hold more links). The crowd tells
each agent's leaving (event ``"offmesh"``) and landing (``"landed"``).

A crossing takes the longer of the link's horizontal length at the agent's speed and, for a drop (a link whose
end is lower than where the agent leaves), the time a body falls that height (``g = 9.81 m/s²``), or for a climb
the height at :data:`CLIMB_SPEED`; at least :data:`SHORTEST_CROSSING`. A drop follows a short jump's arc: it
rises up to :data:`HOP` m above where it left, then falls onto the end (height ``y0 + 4 h u (1 - u) - (y0 - y1)
u²`` at the share ``u`` of the crossing, moving evenly across); any other link is followed along a straight
line.

An agent on a link is still ``"moving"``; :meth:`Crowd.link <voxelworld.navigation.Crowd.link>` says which link
it crosses and how far it is. A re-bake, a new goal or :meth:`~voxelworld.navigation.Crowd.clear_goal` while it
is in the air wait until it lands; :meth:`~voxelworld.navigation.Crowd.move_agent` ends the crossing where it
puts the agent. :meth:`~voxelworld.navigation.Crowd.agent_state` does not keep a crossing (an agent restored from
one mid-air stands where it was restored).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["CrowdLinks", "Crossing", "crossing_time", "arc_point", "GRAVITY", "HOP", "CLIMB_SPEED",
           "SHORTEST_CROSSING"]

GRAVITY = 9.81  # m/s²
HOP = 0.25  # m: how high a drop's arc rises above where the agent leaves
CLIMB_SPEED = 1.0  # m/s: up a link whose end is higher (a ladder)
SHORTEST_CROSSING = 0.1  # s


def crossing_time(start: np.ndarray, end: np.ndarray, speed: float) -> float:
    """Seconds an agent of top ``speed`` (m/s) takes from ``start`` to ``end`` (see the module's docstring)."""
    across = math.hypot(end[0] - start[0], end[2] - start[2])
    rise = float(end[1] - start[1])
    walk = across / speed if speed > 0 else 0.0
    height = math.sqrt(2 * -rise / GRAVITY) if rise < 0 else rise / CLIMB_SPEED
    return max(walk, height, SHORTEST_CROSSING)


def arc_point(start: np.ndarray, end: np.ndarray, u: float) -> np.ndarray:
    """The point at share ``u`` (0..1) of the way from ``start`` to ``end`` along a link (see the module)."""
    point = start + (end - start) * u
    if end[1] < start[1]:
        point[1] = start[1] + 4 * HOP * u * (1 - u) - (start[1] - end[1]) * u * u
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

    def rest(self, agent: int) -> np.ndarray:
        """The corners after the link ahead of the agent (from the link's end), or none."""
        crossing = self._ahead.get(agent)
        return crossing.rest if crossing is not None else np.zeros((0, 3))

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

    def replan_on_landing(self, agent: int) -> None:
        self._replan_on_landing.add(agent)

    def leave(self, agent: int, position: np.ndarray, speed: float) -> None:
        """The agent, arrived at its link's start, leaves the navmesh from ``position``."""
        crossing = self._ahead[agent]
        crossing.start = position.copy()
        crossing.elapsed = 0.0
        crossing.duration = crossing_time(crossing.start, crossing.end, speed)

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

    def airborne_agents(self) -> list[int]:
        """The agents crossing a link now, by id, in increasing order."""
        return sorted(agent for agent, crossing in self._ahead.items() if crossing.airborne)
