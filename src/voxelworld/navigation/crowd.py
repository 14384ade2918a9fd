"""`Crowd`: agents walking a navmesh together, steering along their paths and around each other.

Modelled on Detour's crowd (``dtCrowd``): each agent (a disc of a radius, a top speed, a height) plans a path with
:meth:`NavQuery.find_path` and steers to the next corner of it it can see (the path *corridor*), re-planning
when pushed out of sight of it or when the navmesh changes where its way goes (as Detour re-plans a corridor a
tile swap made invalid, not every agent's: :attr:`NavMesh.changes`). Every :meth:`Crowd.step` then runs, in numba
kernels over the agents' arrays (``_kernels/crowd.py``, ``_kernels/orca.py``):

1. steering: each agent's preferred velocity, towards its next corner, slowing near its goal;
2. neighbours: a uniform grid over the agents; each avoids its ``max_neighbours`` nearest within
   ``neighbour_distance``;
3. avoidance: ORCA (optimal reciprocal collision avoidance, van den Berg et al. 2011, as in RVO2): the
   velocity nearest the preferred one that keeps clear of every neighbour for ``time_horizon`` seconds if each
   takes half the avoidance;
4. the move: walked on the navmesh polygon to polygon, sliding along the edge that stops it, so an agent's
   centre never leaves the navmesh (bake it with the agents' radius, as Recast erodes by it);
5. separation: pairs that still overlap (a crowd packed against a wall) are pushed apart on the mesh.

Deterministic: agents are kept in the order they were added and every loop runs in that order, so the same
calls give the same positions, bit for bit.

Examples
--------
Two agents swap ends of a corridor 2 m wide, passing each other:

>>> import numpy as np
>>> from voxelworld.navigation import Crowd, WalkableGrid, navmesh_from_grids
>>> mesh = navmesh_from_grids([WalkableGrid(np.ones((20, 4), dtype=bool), np.zeros((20, 4)), 0.0, 0.0, 0.5)])
>>> crowd = Crowd(mesh)
>>> west = crowd.add_agent((1.0, 0.0, 1.0), radius=0.3, speed=1.5)
>>> east = crowd.add_agent((9.0, 0.0, 1.0), radius=0.3, speed=1.5)
>>> crowd.set_goal(west, (9.0, 0.0, 1.0)), crowd.set_goal(east, (1.0, 0.0, 1.0))
(True, True)
>>> events = [event for _ in range(600) for event in crowd.step(1 / 30)]
>>> [(event.agent, event.kind) for event in events], crowd.states
([(0, 'arrived'), (1, 'arrived')], ('arrived', 'arrived'))
>>> bool(np.hypot(*(crowd.positions[0] - crowd.positions[1])[[0, 2]]) > 0.6)  # apart: they passed
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ParameterError, check_finite, check_integer, check_point
from . import crowd_links, crowd_state
from ._kernels import crowd as _crowd
from .crowd_state import (
    AGENT_HEIGHT,
    AGENT_RADIUS,
    AGENT_STATES,
    ARRIVED,
    BLOCKED,
    IDLE,
    MAX_AGENT_SPEED,
    MAX_COORDINATE,
    MAX_DISTANCE,
    MAX_PRIORITY,
    MOVING,
    check_agent,
    check_reach,
)
from .filters import FilterGroups, QueryFilter, check_filter, filter_groups, keep_out, steer_with_filters
from .frames import Frame
from .index import NavIndex
from .navmesh import NavMesh, XZBox
from .query import NavQuery

__all__ = ["Crowd", "CrowdSettings", "CrowdEvent", "AGENT_STATES", "MAX_STEP", "AGENT_RADIUS", "AGENT_HEIGHT",
           "MAX_AGENT_SPEED", "MAX_DISTANCE", "MAX_PRIORITY", "TIME_HORIZON", "MAX_COORDINATE", "check_agent"]

MAX_STEP = 1.0  # s: the longest step (avoidance and separation assume agents move less than a radius or so)
PUSHED_OFF = 2.0  # an arrived agent pushed farther than this many arrival distances from its goal moves again
LOST_REPLAN_INTERVAL = 0.5  # s: an agent out of sight of its next corner plans again at most this often
TIME_HORIZON = (0.01, 60.0)  # s: CrowdSettings.time_horizon, least and most (an agent's ranges: crowd_state.py)


@dataclass(frozen=True)
class CrowdSettings:
    """How a crowd's agents avoid each other (every field checked on construction).

    Parameters
    ----------
    neighbour_distance : float
        m (0 < d <= 1000, :data:`MAX_DISTANCE`): agents farther apart than this on the x-z plane do not avoid
        each other (nor turn for each other, see ``keep_right``).
    max_neighbours : int
        1..64: the nearest neighbours each agent avoids.
    time_horizon : float
        s (0.01..60, :data:`TIME_HORIZON`): how far ahead avoidance keeps agents apart (longer: earlier, wider
        detours, but a dense crowd freezes sooner).
    keep_right : float
        0..1: how far agents meeting oncoming ones turn to their right (up to 45 degrees at 1), so that
        opposite streams form lanes through a doorway instead of jamming in it; 0: not at all.
    give_way_distance : float
        m (0..1000): an agent steps aside (to its right) for an oncoming one with the right of way this close
        ahead (a higher priority, or the same and added earlier); 0: never.
    yield_share : float
        0..0.5: between oncoming agents, the one with the right of way takes ``0.5 - yield_share`` of the
        avoidance and the other ``0.5 + yield_share`` (ORCA shares it half and half: 0), so that one stream
        goes through a doorway while the other makes room, instead of both pressing.
    separation_iterations : int
        0..64: passes of the hard separation of overlapping pairs per step at most (it stops when none
        overlaps).
    separation_slack : float
        0..0.5: the separation pushes pairs apart to (1 + slack) times their radii's sum.
    slowdown_distance : float
        m (0..1000): agents slow down within this distance of their goal.
    replans_per_step : int
        1..10000: paths planned again per step at most (the others wait their turn, in order).
    max_snap : float
        m (0..1000): how far from the navmesh an agent may be added or moved (it is put on its nearest point);
        after a re-bake, an agent farther from the new navmesh is off it (it stands, ``"blocked"``).
    """

    neighbour_distance: float = 3.0  # m
    max_neighbours: int = 10
    time_horizon: float = 0.5  # s
    keep_right: float = 1.0
    give_way_distance: float = 1.5  # m
    yield_share: float = 0.4
    separation_iterations: int = 16
    separation_slack: float = 0.01
    slowdown_distance: float = 1.0  # m
    replans_per_step: int = 16
    max_snap: float = 1.0  # m

    def __post_init__(self) -> None:
        checked = {
            "neighbour_distance": check_finite("neighbour_distance", self.neighbour_distance, minimum=0.0,
                                               maximum=MAX_DISTANCE, strict_minimum=True, unit="m"),
            "max_neighbours": check_integer("max_neighbours", self.max_neighbours, minimum=1, maximum=64),
            "time_horizon": check_finite("time_horizon", self.time_horizon, minimum=TIME_HORIZON[0],
                                         maximum=TIME_HORIZON[1], unit="s"),
            "keep_right": check_finite("keep_right", self.keep_right, minimum=0.0, maximum=1.0),
            "give_way_distance": check_finite("give_way_distance", self.give_way_distance, minimum=0.0,
                                              maximum=MAX_DISTANCE, unit="m"),
            "yield_share": check_finite("yield_share", self.yield_share, minimum=0.0, maximum=0.5),
            "separation_iterations": check_integer("separation_iterations", self.separation_iterations, minimum=0,
                                                   maximum=64),
            "separation_slack": check_finite("separation_slack", self.separation_slack, minimum=0.0, maximum=0.5),
            "slowdown_distance": check_finite("slowdown_distance", self.slowdown_distance, minimum=0.0,
                                              maximum=MAX_DISTANCE, unit="m"),
            "replans_per_step": check_integer("replans_per_step", self.replans_per_step, minimum=1, maximum=10000),
            "max_snap": check_finite("max_snap", self.max_snap, minimum=0.0, maximum=MAX_DISTANCE, unit="m"),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)


@dataclass(frozen=True)
class CrowdEvent:
    """Something an agent did in a step: ``kind`` is ``"arrived"`` (also again when others pushed it off its
    goal, farther than twice its arrival distance, and it came back), ``"replanned"`` (it planned again, after
    it lost sight of its next corner or the navmesh changed, and found another path than what was left of its
    own, or a path at last), ``"blocked"`` (no path to its goal, or off the navmesh), ``"offmesh"`` / ``"landed"``
    (onto an off-mesh link of its path / off it: crowd_links); ``position`` (m) after the step; ``time`` (s)."""

    agent: int
    kind: str
    position: tuple[float, float, float]
    time: float


def _same_corners(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two lists of path corners are the same within a nanometre."""
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= 1e-9))


class Crowd:
    """Agents on one navmesh, stepped together (see the module).

    Parameters
    ----------
    navmesh : NavMesh
        The navmesh walked; it may be re-baked between steps (the crowd puts its agents back on it and plans
        their paths again: every agent's after a re-bake, only those whose way the change reaches after tiles
        of a :class:`~voxelworld.navigation.TiledNavMesh` came, went or changed). One baked in a turned region
        (``NavMesh.frame`` set: a wall, a ceiling, a tilted deck) is walked in its own frame: the crowd's points
        in and out are world coordinates all the same, its agents' discs lie on the navmesh's plane, their
        heights along its up axis.
    settings : CrowdSettings

    Attributes
    ----------
    time : float
        s stepped so far.
    """

    def __init__(self, navmesh: NavMesh, settings: CrowdSettings = CrowdSettings()) -> None:
        if not isinstance(navmesh, NavMesh):
            raise ParameterError("navmesh", type(navmesh).__name__, "a voxelworld.navigation.NavMesh")
        if not isinstance(settings, CrowdSettings):
            raise ParameterError("settings", type(settings).__name__, "a CrowdSettings")
        self.mesh, self.settings = navmesh, settings
        self._avoidance = _crowd.AvoidanceSettings(settings.neighbour_distance, settings.max_neighbours,
                                                   settings.time_horizon, settings.keep_right,
                                                   settings.give_way_distance, settings.yield_share)
        # A turned navmesh: the rows, paths and the query's points are in its own frame (the kernels walk the
        # arrays' x-z plane); world points are turned at the edges (_to_local, _to_world), never in a step.
        self._frame = None if navmesh.frame is None else Frame(navmesh.frame)
        self._query = NavQuery._in_own_frame(navmesh)
        self._index, self._revision = navmesh.index, navmesh.revision
        self.time = 0.0
        self._next_id = 0
        self._slot: dict[int, int] = {}  # agent id -> row (looked up, never iterated)
        self._ids = np.zeros(0, dtype=np.int64)
        self._position, self._velocity = np.zeros((0, 3)), np.zeros((0, 2))
        self._radius, self._height, self._speed, self._arrival, self._priority = (np.zeros(0) for _ in range(5))
        self._polygon, self._state = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int8)
        self._goal, self._next_corner = np.zeros((0, 3)), np.zeros(0, dtype=np.int64)
        self._planned_at = np.zeros(0)  # s: the crowd's time of each agent's last plan
        self._paths: list[np.ndarray] = []
        self._filters: list[QueryFilter | None] = []  # each agent's query filter (None: none)
        self._groups: FilterGroups | None = None  # the agents by their filters' views, as of the last move
        self._corners, self._corner_start = np.zeros((0, 3)), np.zeros(1, dtype=np.int64)
        self._corners_stale = False
        self._replan_queue: list[int] = []  # agent ids, oldest first
        self._replan_turns: dict[int, int] = {}  # restore_agent's places in the queue (looked up, sorted)
        self._waiting: list[tuple[int, str]] = []  # what happened between steps, told by the next step
        self._links = crowd_links.CrowdLinks()  # the off-mesh links ahead of the agents and their crossings

    # ------------------------------------------------------------------------------------------- agents
    ROW_ARRAYS = ("_ids", "_position", "_velocity", "_radius", "_height", "_speed", "_arrival", "_priority",
                  "_polygon", "_state", "_goal", "_next_corner", "_planned_at")

    def add_agent(self, position: Iterable[float], radius: float, speed: float, *, height: float = 2.0,
                  arrival_distance: float | None = None, priority: float = 0.0,
                  filter: QueryFilter | None = None) -> int:
        """Add an agent standing at ``position`` (m, x and z within +-1e12, :data:`MAX_COORDINATE`; put on the
        navmesh's nearest point, at most ``settings.max_snap`` m away), a disc of ``radius`` m (0.01..10,
        :data:`AGENT_RADIUS`) walking at most ``speed`` m/s (0..100, :data:`MAX_AGENT_SPEED`), ``height`` m tall
        (0.01..100, :data:`AGENT_HEIGHT`), at its goal within ``arrival_distance`` m of it (0..1000,
        :data:`MAX_DISTANCE`; default: its radius). Between oncoming agents, the higher ``priority`` (-1e6..1e6,
        :data:`MAX_PRIORITY`) has the right of way, and on a tie the one added earlier (see
        ``CrowdSettings.yield_share``). An agent of ``speed`` 0 is an obstacle: the others avoid it on their own
        and the separation never pushes it (place it with :meth:`move_agent`). A number out of its range is a
        ParameterError naming it (:func:`check_agent`). With ``filter`` (a
        :class:`~voxelworld.navigation.QueryFilter`), its paths are the least-cost ones under it and it never
        steps into a polygon the filter excludes (it is placed, planned for and moved on the others only).
        Returns its id (ids are never used again); it stands ``"idle"`` until :meth:`set_goal`."""
        radius, speed, height, arrival, priority = check_agent(radius, speed, height, arrival_distance, priority)
        if filter is not None:
            check_filter(filter)
        point, polygon = self._snap("position", position, filter)
        agent = self._next_id
        row = (agent, point, np.zeros(2), radius, height, speed, arrival, priority, polygon, IDLE,
               np.full(3, np.nan), 0, -np.inf)
        for name, value in zip(self.ROW_ARRAYS, row):
            old = getattr(self, name)
            setattr(self, name, np.concatenate([old, np.asarray(value, dtype=old.dtype)[None]]))
        self._paths.append(np.zeros((0, 3)))
        self._filters.append(filter)
        self._slot[agent] = len(self._ids) - 1
        self._next_id += 1
        self._corners_stale = True
        return agent

    def remove_agent(self, agent: int) -> None:
        """Take agent ``agent`` out of the crowd (the others keep their order)."""
        row = self._row(agent)
        last = row == len(self._ids) - 1  # the common case (the game's enemies are placed again every frame, last)
        for name in self.ROW_ARRAYS:
            rows = getattr(self, name)
            setattr(self, name, rows[:row].copy() if last else np.delete(rows, row, axis=0))
        del self._paths[row]
        del self._filters[row]
        del self._slot[agent]
        self._links.forget(agent)
        for later in self._ids[row:]:
            self._slot[int(later)] -= 1
        self._replan_queue = [a for a in self._replan_queue if a != agent]
        self._waiting = [(a, kind) for a, kind in self._waiting if a != agent]
        self._corners_stale = True

    def set_goal(self, agent: int, goal: Iterable[float]) -> bool:
        """Plan agent ``agent``'s path to ``goal`` (m, put on the navmesh) now and set it walking; False (state
        ``"blocked"``) when there is no path (another island, or it stands off the navmesh)."""
        row = self._row(agent)
        point = self._to_local("goal", np.array(check_point("goal", goal)), goal, reach=False)
        self._follow_navmesh()
        self._goal[row] = point
        self._replan_queue = [a for a in self._replan_queue if a != agent]
        return self._plan(row)

    def clear_goal(self, agent: int) -> None:
        """Stop agent ``agent``: no goal, no path, ``"idle"`` (others still push it aside)."""
        row = self._row(agent)
        self._goal[row] = np.nan
        self._state[row] = IDLE
        self._set_path(row, np.zeros((0, 3)))
        self._links.forget(agent, airborne_too=False)  # one in the air lands first
        self._replan_queue = [a for a in self._replan_queue if a != agent]

    def move_agent(self, agent: int, position: Iterable[float]) -> None:
        """Put agent ``agent`` at ``position`` (m; on the navmesh's nearest point, at most ``settings.max_snap``
        m away); a walking agent plans again from there in its turn."""
        row = self._row(agent)
        point, polygon = self._snap("position", position, self._filters[row])
        self._follow_navmesh()
        self._links.forget(agent)
        self._position[row], self._polygon[row] = point, polygon
        self._velocity[row] = 0.0
        if self._state[row] != IDLE:
            self._queue_replan(agent)

    def _row(self, agent: int) -> int:
        try:
            return self._slot[agent]
        except (KeyError, TypeError):
            known = ", ".join(map(str, self._ids[:8].tolist())) + (", ..." if len(self._ids) > 8 else "")
            raise ParameterError("agent", agent, f"the id of an agent of this crowd ({known or 'none yet'})") \
                from None

    def _to_local(self, parameter: str, points: np.ndarray, value: object, reach: bool = True) -> np.ndarray:
        """World ``points`` (3,) or (n, 3) in the navmesh's own frame (themselves without a frame), checked
        (``reach``: ParameterError naming ``parameter`` and ``value`` unless their x and z, and those of the
        points they turn into, lie within +-:data:`MAX_COORDINATE` m)."""
        if reach:
            check_reach(parameter, points, value)
        if self._frame is None:
            return points
        local = self._frame.to_local(points)
        if reach:
            check_reach(parameter, local, value)
        return local

    def _to_world(self, points: np.ndarray) -> np.ndarray:
        """The crowd's ``points`` (3,) or (n, 3) in world coordinates (a copy)."""
        return points.copy() if self._frame is None else self._frame.to_world(points)

    def _snap(self, parameter: str, value: object, query_filter: QueryFilter | None = None
              ) -> tuple[np.ndarray, int]:
        """The navmesh's point (its own frame) nearest the world point ``value``, and its polygon."""
        world = np.array(check_point(parameter, value))
        point = self._to_local(parameter, world, value)
        snapped, polygon = self._query.nearest_point(point, query_filter)
        if polygon < 0 or not np.linalg.norm(snapped - point) <= self.settings.max_snap:
            raise ParameterError(parameter, tuple(world.tolist()),
                                 f"a point within max_snap = {self.settings.max_snap} m of the navmesh")
        return snapped, polygon

    # --------------------------------------------------------------------------------------------- reading
    def __len__(self) -> int:
        return len(self._ids)

    @property
    def ids(self) -> tuple[int, ...]:
        """The agents' ids, in the crowd's order (the order of the rows of :attr:`positions`)."""
        return tuple(self._ids.tolist())

    @property
    def positions(self) -> np.ndarray:
        """(n, 3) float64, m: where the agents stand (a copy)."""
        return self._to_world(self._position)

    @property
    def velocities(self) -> np.ndarray:
        """(n, 3) float64, m/s: how each agent moved in the last step on the navmesh's plane: the x-z plane (y is
        0; a copy), or on a turned navmesh its own frame's x-z plane, turned into the world (:meth:`agent_state`
        keeps the two numbers of that plane)."""
        out = np.zeros((len(self._ids), 3))
        out[:, [0, 2]] = self._velocity
        return out if self._frame is None else self._frame.vectors_to_world(out)

    @property
    def radii(self) -> np.ndarray:
        """(n,) float64, m (a copy)."""
        return self._radius.copy()

    @property
    def states(self) -> tuple[str, ...]:
        """Each agent's state, one of :data:`AGENT_STATES`."""
        return tuple(AGENT_STATES[s] for s in self._state.tolist())

    def position(self, agent: int) -> np.ndarray:
        return self._to_world(self._position[self._row(agent)])

    def state(self, agent: int) -> str:
        return AGENT_STATES[self._state[self._row(agent)]]

    def goal(self, agent: int) -> np.ndarray | None:
        goal = self._goal[self._row(agent)]
        return None if np.isnan(goal[0]) else self._to_world(goal)

    def path(self, agent: int) -> np.ndarray:
        """The corners ahead of ``agent`` (m, the next first; none without a path), up to its next link's start."""
        row = self._row(agent)
        return self._to_world(self._paths[row][self._next_corner[row]:])

    def link(self, agent: int) -> tuple[int, float]:
        """The off-mesh link ``agent`` crosses and the share done (0..1), or (-1, 0.0) (see crowd_links)."""
        return self._links.link(int(self._ids[self._row(agent)]))

    # ---------------------------------------------------------------------------------------------- state
    def agent_state(self, agent: int) -> dict[str, Any]:
        """What agent ``agent`` keeps from step to step, as plain values (copies): ``position`` (3,), ``velocity``
        (2,: x and z on the navmesh's plane, see :attr:`velocities`), ``polygon``, ``state`` (one of
        AGENT_STATES), ``goal`` (3,) or None, ``path`` (the corners ahead, (n, 3)), ``planned_at`` (s) and
        ``replan_turn`` (its place in the queue of re-plans, -1: none); points in world coordinates; in the air: as landed.
        :meth:`restore_agent` takes it back (``crowd_state.py``)."""
        return self._links.saved(agent, self, crowd_state.agent_state(self, agent))  # in the air: as landed

    def restore_agent(self, agent: int, state: dict[str, Any]) -> None:
        """Give agent ``agent`` back an :meth:`agent_state` (of this navmesh); ParameterError naming the key,
        before anything changes, for a missing key or a value out of range (a position or path corner beyond
        :data:`MAX_COORDINATE`, a velocity longer than twice :data:`MAX_AGENT_SPEED`)."""
        crowd_state.restore_agent(self, agent, state)

    def state_dict(self) -> dict[str, Any]:
        """The crowd's own state (its agents' is :meth:`agent_state`'s): ``time`` (s)."""
        return {"time": self.time}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Take back a :meth:`state_dict`; ParameterError, before anything changes, for a missing key or a value
        out of range."""
        if not (isinstance(state, dict) and "time" in state):
            raise ParameterError("state", sorted(state) if isinstance(state, dict) else type(state).__name__,
                                 "a mapping with the key time")
        self.time = check_finite("state['time']", state["time"], minimum=0.0, unit="s")

    # ---------------------------------------------------------------------------------------------- paths
    def _set_path(self, row: int, points: np.ndarray) -> None:
        self._paths[row] = points
        self._next_corner[row] = 1 if len(points) > 1 else 0
        self._corners_stale = True

    def _plan(self, row: int) -> bool:
        """Plan the path of the agent in ``row`` to its goal; False (and "blocked") when there is none."""
        path, agent = None, int(self._ids[row])
        if self._links.defer(agent):  # on a link: plans when it lands
            return True
        self._planned_at[row] = self.time
        if self._polygon[row] >= 0:
            path = self._query.find_path(self._position[row], self._goal[row], self._filters[row])
        if path is None:
            self._state[row] = BLOCKED
            self._velocity[row] = 0.0
            self._set_path(row, np.zeros((0, 3)))
            self._links.forget(agent)
            return False
        self._state[row] = MOVING
        self._set_path(row, self._links.walked_part(agent, path.points, path.offmesh))
        return True

    def _queue_replan(self, agent: int) -> None:
        if agent not in self._replan_queue:
            self._replan_queue.append(agent)

    def _replan_queued(self) -> list[tuple[int, str]]:
        """Plan again the first ``settings.replans_per_step`` agents waiting."""
        events = []
        count = self.settings.replans_per_step
        self._replan_turns = {}
        now, self._replan_queue = self._replan_queue[:count], self._replan_queue[count:]
        for agent in now:
            row = self._slot[agent]
            if np.isnan(self._goal[row, 0]):
                continue
            ahead = self._paths[row][self._next_corner[row]:]
            was_blocked = self._state[row] == BLOCKED
            if not self._plan(row):
                if not was_blocked:
                    events.append((agent, "blocked"))
            elif was_blocked or not _same_corners(ahead, self._paths[row][self._next_corner[row]:]):
                events.append((agent, "replanned"))
        return events

    def _follow_navmesh(self) -> None:
        """If the navmesh was re-baked: put every agent on its nearest point (off it when farther than max_snap)
        and queue every agent with a goal whose way the change reaches (:meth:`_way_reaches`) to plan again; the
        agents found off it are "blocked" events of the next step."""
        if self.mesh.index is self._index:
            return
        self._index = self.mesh.index
        boxes = self._changed_since(self._revision)
        self._revision = self.mesh.revision
        events = self._waiting
        for row, agent in enumerate(self._ids.tolist()):
            if self._links.defer(agent):  # on a link: lands first, then plans again
                continue
            snapped, polygon = self._query.nearest_point(self._position[row], self._filters[row])
            if polygon < 0 or not np.linalg.norm(snapped - self._position[row]) <= self.settings.max_snap:
                self._polygon[row] = -1
                self._velocity[row] = 0.0
                if self._state[row] in (MOVING, ARRIVED):
                    self._state[row] = BLOCKED
                    self._set_path(row, np.zeros((0, 3)))
                    events.append((agent, "blocked"))
                continue
            self._position[row], self._polygon[row] = snapped, polygon
            if not np.isnan(self._goal[row, 0]) and (boxes is None or self._way_reaches(row, boxes)):
                self._queue_replan(agent)

    def _changed_since(self, revision: int) -> list[XZBox] | None:
        """The x-z boxes where the navmesh changed after ``revision`` (:attr:`NavMesh.changes`); None: anywhere
        (a re-bake, or more changes than it remembers)."""
        boxes = [box for seen, box in self.mesh.changes if seen > revision and box is not None]
        return boxes if len(boxes) == self.mesh.revision - revision else None

    def _way_reaches(self, row: int, boxes: list[XZBox]) -> bool:
        """Whether the change in ``boxes`` may alter the way of the agent in ``row``: it has no path, or one
        that stops short of its goal (a tile that came may reach it), or the x-z box of its position, the corners
        ahead and its goal, grown by its radius, meets one of them."""
        path = self._paths[row][self._next_corner[row]:]
        goal = self._goal[row]
        if self._state[row] == BLOCKED or not len(path) or \
                np.hypot(*(path[-1] - goal)[[0, 2]]) > self._arrival[row] + 1e-9:
            return True
        points = np.concatenate([self._position[row][None], path, goal[None]])[:, [0, 2]]
        lo, hi = points.min(axis=0) - self._radius[row], points.max(axis=0) + self._radius[row]
        return any(bool(np.all(lo <= box_hi) and np.all(box_lo <= hi)) for box_lo, box_hi in boxes)

    def _refresh_corners(self) -> None:
        if not self._corners_stale:
            return
        lengths = [len(p) for p in self._paths]
        self._corner_start = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int64)
        self._corners = np.concatenate(self._paths) if self._paths else np.zeros((0, 3))
        self._corners = np.ascontiguousarray(self._corners, dtype=np.float64).reshape(-1, 3)
        self._corners_stale = False

    # ---------------------------------------------------------------------------------------------- step
    def step(self, dt: float) -> list[CrowdEvent]:
        """Move every agent for ``dt`` seconds (0 < dt <= :data:`MAX_STEP`); returns the step's events, in agent
        order within each kind of cause (re-bake, re-plans, landings, leavings onto links, arrivals)."""
        dt = check_finite("dt", dt, minimum=0.0, strict_minimum=True, maximum=MAX_STEP, unit="s")
        self._follow_navmesh()
        happened, self._waiting = self._waiting, []
        happened += self._replan_queued()
        if len(self._ids):
            happened += self._move(dt)
        self.time += dt
        return [CrowdEvent(agent, kind, tuple(self._to_world(self._position[self._slot[agent]]).tolist()), self.time)
                for agent, kind in happened]

    def _move(self, dt: float) -> list[tuple[int, str]]:
        """The kernels' part of a step (see the module) and the links' (crowd_links); returns their events."""
        events = crowd_links.fly(self, dt)  # the agents crossing links, first
        self._refresh_corners()
        settings, index = self.settings, self.mesh.index
        polygons, links, segments = index.polygons, index.links, index.portal_segments
        n = len(self._ids)
        walking = (self._state == MOVING) | (self._state == ARRIVED)
        preferred, chosen = np.zeros((n, 2)), np.zeros((n, 2))
        lost, arrived = np.zeros(n, dtype=np.bool_), np.zeros(n, dtype=np.bool_)
        before = (self._position.copy(), self._polygon.copy())

        def steer(index: NavIndex, moving: np.ndarray, preferred: np.ndarray, lost: np.ndarray,
                  arrived: np.ndarray) -> None:
            _crowd.steer(index.polygons, index.links, index.portal_segments, self._position, self._polygon,
                         self._radius, self._speed, moving, self._corners, self._corner_start, self._next_corner,
                         self._arrival, settings.slowdown_distance, preferred, lost, arrived)
        groups = self._groups = filter_groups(self.mesh, self._filters, self._groups)
        steer_with_filters(groups, steer, walking, preferred, lost, arrived)
        grid = _crowd.agent_grid(self._position, settings.neighbour_distance)
        _crowd.avoid(self._position, self._velocity, self._radius, self._height, self._speed, self._polygon,
                     self._priority, preferred, grid, self._avoidance, dt, chosen)
        _crowd.integrate(polygons, links, segments, self._position, self._polygon, chosen, dt, self._velocity)
        keep_out(groups, before, self._position, self._polygon, self._velocity, chosen, dt)
        _crowd.heights(polygons.surface, self._position, self._polygon)
        if settings.separation_iterations:
            fixed = self._speed == 0.0  # obstacles: the separation moves the others (polygon -1: not pushed)
            polygon = np.where(fixed, -1, self._polygon)
            _crowd.separate(polygons, links, segments, self._position, polygon, self._radius, self._height,
                            settings.separation_iterations, settings.separation_slack)
            self._polygon = np.where(fixed, self._polygon, polygon)
            keep_out(groups, before, self._position, self._polygon, self._velocity)
            _crowd.heights(polygons.surface, self._position, self._polygon)
        events += crowd_links.leave(self, arrived)  # at a link's start: onto it (no longer "arrived")
        for row in np.flatnonzero(lost & (self._planned_at <= self.time - LOST_REPLAN_INTERVAL)).tolist():
            self._queue_replan(int(self._ids[row]))
        for row in np.flatnonzero(arrived & (self._state == MOVING)).tolist():
            self._state[row] = ARRIVED
            events.append((int(self._ids[row]), "arrived"))
        # Pushed off its goal by others: on its way again (and "arrived" again when back).
        ends = self._corners[np.maximum(self._corner_start[1:] - 1, 0)] if len(self._corners) else self._position
        away = np.hypot(*(self._position - ends)[:, [0, 2]].T) > PUSHED_OFF * self._arrival
        self._state[(self._state == ARRIVED) & away] = MOVING
        return events
