"""NPCs walking navmesh paths together on a terrain that changes under their feet.

An :class:`NPC` is an agent of its :class:`~voxelworld.game.navigation.WorldNavigation`'s crowd
(:class:`~voxelworld.navigation.Crowd`, one for all the world's NPCs): it plans exact shortest paths on the
navmesh, steers along them around the other NPCs (local avoidance), and every stride is walked on the navmesh
itself, polygon to polygon, so an NPC never steps off the walkable area. When the navmesh is re-baked the crowd
puts every NPC back on it and plans its path again: it walks around a fresh hole (``"replanned"``, when the new
path differs from what was left of the old), or stops (``"blocked"``) when the hole cuts it off from its goal
or the ground under it was dug away. An NPC whose path leads down a ledge (the navmesh's one-way drop links,
``NavSettings.max_drop``) jumps down it (``"offmesh"``, then ``"landed"``; :attr:`NPC.jump`).

The crowd steps once a frame for all its NPCs (:meth:`WorldNavigation.step_crowd`, the world's cast calls it);
:meth:`NPC.take_events` then gives each NPC its events. :meth:`NPC.step` does both, for an NPC walking alone.
Heights come from the navmesh polygons it stands on. Deterministic: no randomness, the same calls give the same
positions and events.

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

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..attribute_state import attribute_state, restore_attributes
from ..errors import ParameterError, check_finite, check_range
from ..navigation import CrowdEvent
from ..navigation.area_types import HAZARD, check_area_type
from ..navigation.crowd import AGENT_RADIUS, MAX_AGENT_SPEED, MAX_DISTANCE
from ..navigation.filters import QueryFilter
from .navigation import WorldNavigation
from .state_checks import MAX_COUNT, MAX_SECONDS, check_inside, count, seconds, speed, world_box

__all__ = ["NPC", "NPCSettings", "NPCEvent", "STATES"]

# "waiting": stopped short of a goal whose navmesh tile is not baked yet (a streaming world; it walks on when it is)
STATES = ("idle", "walking", "arrived", "blocked", "waiting")
_CROWD_STATES = {"idle": "idle", "moving": "walking", "arrived": "arrived", "blocked": "blocked"}


@dataclass(frozen=True)
class NPCSettings:
    """How an NPC walks.

    Parameters
    ----------
    speed : float
        m/s (0 < speed <= 100, the crowd's ``MAX_AGENT_SPEED``): its top speed, measured on the x-z plane.
    arrival_radius : float
        m (0..1000, the crowd's ``MAX_DISTANCE``): the goal is reached when the NPC is this close to it (x-z).
    max_snap : float
        m (>= 0): how far the NPC may be placed from the navmesh (it stands on its nearest point); the crowd's
        ``max_snap`` (:data:`~voxelworld.game.navigation.CROWD_SETTINGS`) decides when a re-bake leaves it off.
    radius : float
        m (0.01..10, the crowd's ``AGENT_RADIUS``): the disc other NPCs keep out of (the navmesh is baked for an
        agent of 0.4 m).
    avoid_area_types : tuple of str
        Area types the NPC never enters (its crowd agent's :class:`~voxelworld.navigation.filters.QueryFilter`
        excludes them); default ``("hazard",)``: the lava and the metre around it, so it walks around the pool's
        ring. ``()``: every area type alike.
    """

    speed: float = 1.5  # m/s
    arrival_radius: float = 0.3  # m
    max_snap: float = 1.0  # m
    radius: float = 0.4  # m
    avoid_area_types: tuple[str, ...] = (HAZARD,)

    def __post_init__(self) -> None:
        object.__setattr__(self, "speed", check_finite("speed", self.speed, minimum=0.0, strict_minimum=True,
                                                       maximum=MAX_AGENT_SPEED, unit="m/s"))
        object.__setattr__(self, "arrival_radius", check_finite("arrival_radius", self.arrival_radius,
                                                                minimum=0.0, maximum=MAX_DISTANCE, unit="m"))
        object.__setattr__(self, "max_snap", check_finite("max_snap", self.max_snap, minimum=0.0, unit="m"))
        object.__setattr__(self, "radius", check_finite("radius", self.radius, minimum=AGENT_RADIUS[0],
                                                        maximum=AGENT_RADIUS[1], unit="m"))
        if isinstance(self.avoid_area_types, str) or not isinstance(self.avoid_area_types, (tuple, list)):
            raise ParameterError("avoid_area_types", self.avoid_area_types, "a tuple of area type names")
        object.__setattr__(self, "avoid_area_types", tuple(
            check_area_type(f"avoid_area_types[{i}]", name) for i, name in enumerate(self.avoid_area_types)))

    def query_filter(self) -> QueryFilter | None:
        """The crowd agent's filter: the avoided area types excluded (None when there are none)."""
        return QueryFilter(exclude=self.avoid_area_types) if self.avoid_area_types else None


@dataclass(frozen=True)
class NPCEvent:
    """Something an NPC did: ``kind`` is ``"arrived"``, ``"replanned"``, ``"blocked"``, ``"waiting"`` (on a
    streaming world: stopped at the edge of the baked navmesh, its goal's tile not baked yet), ``"offmesh"`` (it
    jumped off a ledge, or took another off-mesh link of its path) or ``"landed"`` (at the link's end);
    ``position`` (m) where it stood; ``time`` in s of its own walking clock."""

    npc: str
    kind: str
    position: tuple[float, float, float]
    time: float


class NPC:
    """An agent walking navmesh paths of a :class:`WorldNavigation`, in its crowd (see the module).

    Parameters
    ----------
    name : str
        Named in its events.
    navigation : WorldNavigation
    position : 3 floats
        Where it stands (m; put on the navmesh, at most ``settings.max_snap`` m from it).
    settings : NPCSettings

    Attributes
    ----------
    position : (3,) float64
        Where it stands now (m; a copy).
    goal : (3,) float64 or None
    path : (n, 3) float64 or None
        The corners still ahead (the next one first), None unless walking.
    state : str
        One of :data:`STATES`.
    agent : int
        Its id in ``navigation.crowd``.
    replans : int
        How many times it planned again and found another path (the navmesh changed under its path, or it was
        pushed out of sight of its next corner).
    """

    # What an NPC keeps from frame to frame (:meth:`state_dict`) besides its agent's state in the crowd
    # (``Crowd.agent_state``, under the key "walk"); the other attributes are what its constructor is given.
    STATE_ATTRIBUTES = ("replans", "time")
    # Ranges (voxelworld.game.state_checks): replans a count, time a time; of its walk (the crowd checks the rest):
    # position, goal and path within the world's box grown by POSITION_MARGIN, velocity within ±MAX_SPEED,
    # planned_at a time (or -inf: never), replan_turn at most MAX_COUNT.
    STATE_CHECKS = {"replans": count(), "time": seconds()}
    OTHER_ATTRIBUTES = ("name", "navigation", "settings", "agent")

    def __init__(self, name: str, navigation: WorldNavigation, position: ArrayLike,
                 settings: NPCSettings = NPCSettings()) -> None:
        if not isinstance(name, str) or not name:
            raise ParameterError("name", name, "a non-empty string")
        if not isinstance(navigation, WorldNavigation):
            raise ParameterError("navigation", type(navigation).__name__, "a WorldNavigation")
        if not isinstance(settings, NPCSettings):
            raise ParameterError("settings", type(settings).__name__, "an NPCSettings")
        self.name, self.navigation, self.settings = name, navigation, settings
        self.agent = navigation.add_agent(position, settings.radius, settings.speed, settings.arrival_radius,
                                          settings.max_snap, filter=settings.query_filter())
        self.replans = 0
        self.time = 0.0

    def state_dict(self) -> dict:
        """What the NPC keeps from frame to frame (``STATE_ATTRIBUTES``, the values themselves:
        :mod:`voxelworld.attribute_state`), and under ``"walk"`` its agent's state in the crowd."""
        return attribute_state(self, self.STATE_ATTRIBUTES) | {"walk": self.navigation.crowd.agent_state(self.agent)}

    def load_state_dict(self, state: object) -> None:
        """Take back a :meth:`state_dict`; ParameterError, before anything changes, for a missing key or a value
        out of range."""
        if isinstance(state, dict) and "walk" not in state and {"goal", "path", "state"} <= set(state):
            state = state | {"walk": self._walk_of_old_state(state)}
        if not (isinstance(state, dict) and "walk" in state):
            raise ParameterError("state", sorted(state) if isinstance(state, dict) else type(state).__name__,
                                 "a mapping with the keys replans, time, walk")
        for key, check in self.STATE_CHECKS.items():
            if key not in state:
                raise ParameterError("state", sorted(state), f"a mapping with the key {key}")
            check(f"state[{key!r}]", state[key])
        self._check_walk(state["walk"])
        self.navigation.crowd.restore_agent(self.agent, state["walk"])
        restore_attributes(self, state, self.STATE_ATTRIBUTES, checks=self.STATE_CHECKS)

    def _check_walk(self, walk: object) -> None:
        """The ranges of the agent's state in the crowd the crowd does not check: places within the world."""
        if not isinstance(walk, dict):
            return  # the crowd refuses it, naming it
        box = world_box(self.navigation.volume)
        for key in ("position", "goal", "path"):
            value = walk.get(key)
            if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size and value.shape[-1] == 3:
                check_inside(f"state[{key!r}]", value, box)
        if isinstance(walk.get("velocity"), np.ndarray) and walk["velocity"].shape == (2,):
            speed((2,))("state['velocity']", walk["velocity"])
        if isinstance(walk.get("planned_at"), (int, float)):
            check_range("state['planned_at']", walk["planned_at"], f"a time (s) in [0, {MAX_SECONDS}], or -inf (never)",
                        walk["planned_at"] == -np.inf or 0.0 <= walk["planned_at"] <= MAX_SECONDS)
        if isinstance(walk.get("replan_turn"), int):
            check_range("state['replan_turn']", walk["replan_turn"], f"a whole number <= {MAX_COUNT}",
                        walk["replan_turn"] <= MAX_COUNT)

    def _walk_of_old_state(self, state: dict) -> dict:
        """The crowd agent's state for a state saved before NPCs walked in a crowd (position, goal, path, state):
        where it stands now, at rest, walking the path it had."""
        walk = self.navigation.crowd.agent_state(self.agent)
        states = {"idle": "idle", "walking": "moving", "arrived": "arrived", "blocked": "blocked"}
        path = state["path"]
        return walk | {"goal": state["goal"], "state": states.get(state["state"], state["state"]),
                       "path": np.zeros((0, 3)) if path is None else path}

    # ------------------------------------------------------------------------------------------- reading
    @property
    def position(self) -> np.ndarray:
        return self.navigation.crowd.position(self.agent)

    @property
    def goal(self) -> np.ndarray | None:
        return self.navigation.crowd.goal(self.agent)

    @property
    def state(self) -> str:
        if self.navigation.waiting(self.agent):
            return "waiting"
        return _CROWD_STATES[self.navigation.crowd.state(self.agent)]

    @property
    def path(self) -> np.ndarray | None:
        return self.navigation.crowd.path(self.agent) if self.state == "walking" else None

    @property
    def jump(self) -> tuple[int, float]:
        """The off-mesh link it is crossing (jumping down a ledge: an index into the navmesh's
        ``offmesh_links``) and the share of the crossing done (0..1), or (-1, 0.0) while it walks."""
        return self.navigation.crowd.link(self.agent)

    # ------------------------------------------------------------------------------------------ walking
    def walk_to(self, goal: Iterable[float]) -> bool:
        """Plan a path to ``goal`` (m) and start walking; False (state ``"blocked"``) when none exists."""
        return self.navigation.crowd.set_goal(self.agent, goal)

    def take_events(self, dt: float) -> list[NPCEvent]:
        """This NPC's events of the crowd's last step (:meth:`WorldNavigation.step_crowd`), which lasted ``dt``
        seconds (> 0) of its walking clock."""
        dt = check_finite("dt", dt, minimum=0.0, strict_minimum=True, unit="s")
        self.time += dt
        events = []
        for event in self.navigation.take_events(self.agent):
            self.replans += event.kind == "replanned"
            events.append(self._event(event))
        return events

    def step(self, dt: float) -> list[NPCEvent]:
        """Step the navigation's crowd for ``dt`` seconds (> 0) and return this NPC's events: for an NPC walking
        alone (with several, step the crowd once and let each :meth:`take_events`, as the world does)."""
        dt = check_finite("dt", dt, minimum=0.0, strict_minimum=True, unit="s")
        self.navigation.step_crowd(dt)
        return self.take_events(dt)

    def _event(self, event: CrowdEvent) -> NPCEvent:
        return NPCEvent(self.name, event.kind, event.position, self.time)
