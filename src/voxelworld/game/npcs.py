"""NPCs walking navmesh paths on a terrain that changes under their feet.

An :class:`NPC` asks :class:`~voxelworld.game.navigation.WorldNavigation` for a path (exact shortest paths on the
navmesh) and walks it at its speed. Every step it checks whether the navmesh was re-baked since it planned
(:meth:`WorldNavigation.changed_since`); if a re-baked tile lies on what is left of its path, it plans again from
where it stands, so it walks around a fresh hole, or stops (``"blocked"``) when the hole cuts it off from its
goal. Each stride is also walked on the navmesh itself (:meth:`NavQuery.raycast`, exact polygon to polygon), so
an NPC never steps off the walkable area even between checks: if a stride is cut short it re-plans at once.

Heights come from the navmesh polygons the stride ends on. Each NPC asks through its own
:class:`~voxelworld.navigation.NavQuery` (its own search scratch). Deterministic: no randomness, the same calls
give the same positions and events.

Examples
--------
>>> from voxelworld.terrain import VoxelVolume
>>> from voxelworld.meshing import ChunkMesher
>>> from voxelworld.game.navigation import WorldNavigation
>>> ground = VoxelVolume.from_sdf(lambda x, y, z: y - 4.0, (48, 16, 48), material="soil", voxel_size=0.5,
...                               chunk_size=8)
>>> nav = WorldNavigation(ground, ChunkMesher(ground))
>>> npc = NPC("walker", nav, (2.0, 4.0, 2.0), NPCSettings(speed=2.0))
>>> npc.walk_to((20.0, 4.0, 2.0))
True
>>> events = [event for _ in range(600) for event in npc.step(1 / 60)]
>>> [event.kind for event in events], npc.state, [round(float(c), 2) for c in npc.position]
(['arrived'], 'arrived', [19.7, 4.0, 2.0])
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..attribute_state import array, attribute_state, number, optional, restore_attributes, text, whole
from ..errors import ParameterError, check_finite, check_point, check_range
from ..navigation import NavQuery
from .navigation import WorldNavigation

__all__ = ["NPC", "NPCSettings", "NPCEvent", "STATES"]

STATES = ("idle", "walking", "arrived", "blocked")


@dataclass(frozen=True)
class NPCSettings:
    """How an NPC walks.

    Parameters
    ----------
    speed : float
        m/s (> 0) along the path, measured on the x-z plane.
    arrival_radius : float
        m (>= 0): the goal is reached when the NPC is this close to it (x-z).
    max_snap : float
        m (>= 0): how far (x-z) the NPC may stand from the navmesh and still plan from its nearest point; farther
        (the ground under it was dug away) it is ``"blocked"``.
    """

    speed: float = 1.5  # m/s
    arrival_radius: float = 0.3  # m
    max_snap: float = 1.0  # m

    def __post_init__(self):
        object.__setattr__(self, "speed", check_finite("speed", self.speed, minimum=0.0, strict_minimum=True,
                                                       unit="m/s"))
        object.__setattr__(self, "arrival_radius", check_finite("arrival_radius", self.arrival_radius,
                                                                minimum=0.0, unit="m"))
        object.__setattr__(self, "max_snap", check_finite("max_snap", self.max_snap, minimum=0.0, unit="m"))


@dataclass(frozen=True)
class NPCEvent:
    """Something an NPC did: ``kind`` is ``"arrived"``, ``"replanned"`` or ``"blocked"``; ``position`` (m)
    where it stood; ``time`` in s of its own walking clock."""

    npc: str
    kind: str
    position: tuple[float, float, float]
    time: float


def _point(parameter: str, value) -> np.ndarray:
    return np.array(check_point(parameter, value))


class NPC:
    """An agent walking navmesh paths of a :class:`WorldNavigation` (see the module).

    Parameters
    ----------
    name : str
        Named in its events.
    navigation : WorldNavigation
    position : 3 floats
        Where it stands (m).
    settings : NPCSettings

    Attributes
    ----------
    position : (3,) float64
        Where it stands now (m).
    goal : (3,) float64 or None
    path : (n, 3) float64 or None
        The corners still ahead (the next one first).
    state : str
        One of :data:`STATES`.
    replans : int
        How many times it planned again because the navmesh changed under its path.
    """

    # What an NPC keeps from frame to frame (:meth:`state_dict`); the other attributes are what its constructor
    # is given.
    STATE_ATTRIBUTES = ("position", "goal", "path", "state", "replans", "time", "_revision")
    STATE_CHECKS = {"position": array((3,)), "goal": optional(array((3,))), "path": optional(array((None, 3))),
                    "state": text(STATES), "replans": whole(0), "time": number(minimum=0.0, unit="s"),
                    "revision": whole(0),
                    "*": lambda npc, name, state: check_range(  # walking: towards a goal, along a path
                        f"{name}['path']", state["path"], "corners to walk to, and a goal, while walking",
                        state["state"] != "walking" or state["path"] is not None and state["goal"] is not None)}
    OTHER_ATTRIBUTES = ("name", "navigation", "settings", "_query")  # _query: its NavQuery of the navmesh

    def __init__(self, name: str, navigation: WorldNavigation, position, settings: NPCSettings = NPCSettings()):
        if not isinstance(name, str) or not name:
            raise ParameterError("name", name, "a non-empty string")
        if not isinstance(navigation, WorldNavigation):
            raise ParameterError("navigation", type(navigation).__name__, "a WorldNavigation")
        if not isinstance(settings, NPCSettings):
            raise ParameterError("settings", type(settings).__name__, "an NPCSettings")
        self.name, self.navigation, self.settings = name, navigation, settings
        self.position = _point("position", position)
        self.goal: np.ndarray | None = None
        self.path: np.ndarray | None = None
        self.state = "idle"
        self.replans = 0
        self.time = 0.0
        self._revision = navigation.revision
        self._query = NavQuery(navigation.mesh)

    def state_dict(self) -> dict:
        """What the NPC keeps from frame to frame (``STATE_ATTRIBUTES``; a private attribute's key has no leading
        underscore), the values themselves (:mod:`voxelworld.attribute_state`)."""
        return attribute_state(self, self.STATE_ATTRIBUTES)

    def load_state_dict(self, state) -> None:
        """Take back a :meth:`state_dict`; ParameterError, before anything changes, for a missing key."""
        restore_attributes(self, state, self.STATE_ATTRIBUTES, checks=self.STATE_CHECKS)

    # ------------------------------------------------------------------------------------------ planning
    def walk_to(self, goal) -> bool:
        """Plan a path to ``goal`` (m) and start walking; False (state ``"blocked"``) when none exists."""
        self.goal = _point("goal", goal)
        return self._plan()

    def _navmesh_query(self) -> NavQuery:
        """This NPC's query of the navigation's navmesh (made again if the navigation holds another navmesh)."""
        if self._query.mesh is not self.navigation.mesh:
            self._query = NavQuery(self.navigation.mesh)
        return self._query

    def _plan(self) -> bool:
        query = self._navmesh_query()
        self._revision = self.navigation.revision
        snapped, polygon = query.nearest_point(self.position)
        far = polygon < 0 or math.hypot(*(snapped - self.position)[[0, 2]]) > self.settings.max_snap
        path = None if far else query.find_path(self.position, self.goal)
        if path is None:
            self.path, self.state = None, "blocked"
            return False
        # Start from where it stands (the path's first point is the snapped start).
        self.path = path.points[1:].copy() if len(path.points) > 1 else path.points.copy()
        self.state = "walking"
        return True

    def _path_touched(self) -> bool:
        """Whether the navmesh was re-baked under what is left of the path since it was planned."""
        tiles = self.navigation.changed_since(self._revision)
        if tiles is None:
            return True
        if tiles and tiles & self.navigation.tiles_crossed(np.vstack([self.position[None], self.path])):
            return True
        self._revision = self.navigation.revision  # nothing ahead changed: the path stands
        return False

    # ------------------------------------------------------------------------------------------- walking
    def step(self, dt: float) -> list[NPCEvent]:
        """Walk for ``dt`` seconds (> 0); returns the events of the step."""
        dt = check_finite("dt", dt, minimum=0.0, strict_minimum=True, unit="s")
        self.time += dt
        if self.state != "walking":
            return []
        events = []
        if self._path_touched():
            self.replans += 1
            if not self._plan():
                return [self._event("blocked")]
            events.append(self._event("replanned"))
        budget, retries = self.settings.speed * dt, 0
        while budget > 1e-12 and len(self.path) and retries <= 2:
            target = self.path[0]
            gap = math.hypot(target[0] - self.position[0], target[2] - self.position[2])
            share = 1.0 if gap <= budget else budget / gap
            aim = self.position + share * (target - self.position)
            walked, reached = self._navmesh_query().raycast(self.position, aim)
            if walked < share * gap - 1e-6:  # the navmesh ends before the stride does: plan again
                self.position = reached
                self.replans += 1
                retries += 1
                if not self._plan():
                    return events + [self._event("blocked")]
                events.append(self._event("replanned"))
                continue
            self.position = reached
            budget -= share * gap
            if share == 1.0:
                self.path = self.path[1:]
        goal = self.goal
        if math.hypot(goal[0] - self.position[0], goal[2] - self.position[2]) <= self.settings.arrival_radius \
                or not len(self.path):
            self.path, self.state = None, "arrived"
            events.append(self._event("arrived"))
        return events

    def _event(self, kind: str) -> NPCEvent:
        return NPCEvent(self.name, kind, tuple(float(c) for c in self.position), self.time)
