"""Actors by region: the actors far from the player sleep as data and wake as the player nears.

A world that streams (``WorldSettings.view_distance`` set) is cut into square regions of ``RegionSettings.size`` m
(x-z, from the volume's corner). :class:`Regions` (``world.agents.regions``) keeps, per region, the actors asleep
there: NPCs and chainsaw enemies as their saved state (what ``state_dict()`` gives: an NPC's place, goal, path and
crowd state, its patrol; an enemy's swing and its motion's state), and the treasure a generated world buries there
(:mod:`voxelworld.game.populate`), none of which costs a frame anything. Only when the player crosses into another
region does it look around (in the ``"collision_mesh"`` stage, before the navmesh streams; and every
``RETRY_FRAMES`` frames while a near region's actors could not wake yet):

- every awake actor standing in a region farther than ``active_radius + sleep_margin`` from the player (x-z, to
  the region's square) falls asleep: it leaves the world's cast (and the NPCs' crowd), its state kept in its region;
- every region within ``active_radius`` of the player wakes: its actors are made again from their state (on the
  navmesh, which the world bakes around them first), in the order they fell asleep; its treasure is placed.

An actor wakes as it fell asleep, bit for bit (its clocks stood still while it slept), but for the navmesh polygon
it stands on, found again on the navmesh of the time. One placed by the generator, asleep since the world was made,
first finds its ground: the top of the voxel column where it stands. One whose navmesh cannot be baked yet (its
chunks not meshed) stays asleep until the next look around. A world meshed whole (no view distance) is small: all
its actors stay awake, and regions change nothing.

The world file keeps the regions (its ``regions`` row: docs/specs/world-format.md), the actors asleep with their
state; a saved world whose NPC stands where the loaded world cannot bake a navmesh (beyond the view) loads with it
asleep.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ParameterError, check_finite, check_range
from .deformation import Treasure
from .enemy import ChainsawEnemy, ChainsawSettings, prepare_bodies
from .level import surface_height
from .npcs import NPC, NPCSettings
from .seats import player_points

if TYPE_CHECKING:
    from .agents import Agents
    from .inputs import Inputs
    from .world import World

__all__ = ["RegionSettings", "Regions", "KINDS"]

KINDS = ("npc", "enemy", "treasure")  # what sleeps in a region
RETRY_FRAMES = 10  # frames between two tries to wake the actors of a near region that could not wake


@dataclass(frozen=True)
class RegionSettings:
    """How a streaming world's actors sleep and wake by region.

    Parameters
    ----------
    size : float
        m (>= 8): the edge of a square region (x-z).
    active_radius : float
        m (>= 0): the regions within this distance of the player (x-z, to the region's square) are awake.
    sleep_margin : float
        m (>= 0): an awake actor falls asleep when its region lies farther than ``active_radius + sleep_margin``
        (so that an actor at the edge does not fall asleep and wake as the player goes back and forth).
    """

    size: float = 64.0  # m
    active_radius: float = 96.0  # m
    sleep_margin: float = 32.0  # m

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", check_finite("size", self.size, minimum=8.0, unit="m"))
        for name in ("active_radius", "sleep_margin"):
            object.__setattr__(self, name, check_finite(name, getattr(self, name), minimum=0.0, unit="m"))


def _copy(value: Any) -> Any:
    return copy.deepcopy(value)


class Regions:
    """The regions of a world's cast (see the module): the actors asleep in each, and when they wake.

    Attributes
    ----------
    settings : RegionSettings
    anchor : (ri, rk) or None
        The player's region at the last look around (None: not looked yet).
    sleeping : dict of (ri, rk) to list of dict
        The actors asleep in each region, in the order they fell asleep: each a record (a mapping with ``kind``,
        one of :data:`KINDS`, and ``name``; see :meth:`npc_record`, :meth:`enemy_record`, :meth:`treasure_record`).
    """

    def __init__(self, agents: Agents, settings: RegionSettings = RegionSettings()) -> None:
        check_range("settings", settings, "a RegionSettings", isinstance(settings, RegionSettings))
        self.agents, self._settings = agents, settings
        self.anchor: tuple[int, int] | None = None
        self._seat_anchors: tuple[tuple[int, int], ...] = ()  # the joined players' regions then
        self.sleeping: dict[tuple[int, int], list[dict]] = {}
        self.waiting: list[tuple[int, int]] = []  # near regions whose actors could not wake yet, retried
        self.turns = 0  # records put to sleep so far: each one's turn to wake
        self.woken = 0  # actors woken (counted; not saved)

    @property
    def settings(self) -> RegionSettings:
        """The regions' settings; set others and the actors asleep are put in the new regions of their places
        (in their turns), the next frame looking around."""
        return self._settings

    @settings.setter
    def settings(self, settings: RegionSettings) -> None:
        check_range("settings", settings, "a RegionSettings", isinstance(settings, RegionSettings))
        records = sorted((r for records in self.sleeping.values() for r in records), key=lambda r: r["turn"])
        self._settings, self.sleeping, self.waiting, self.anchor, self._seat_anchors = settings, {}, [], None, ()
        for record in records:
            self.sleeping.setdefault(self.region_of(record["position"]), []).append(record)

    @property
    def world(self) -> World:
        return self.agents.world

    @property
    def enabled(self) -> bool:
        """Whether actors sleep by region: on a world that streams (``settings.view_distance`` set)."""
        return self.world.settings.view_distance is not None

    def region_of(self, point: Any) -> tuple[int, int]:
        """The region (ri, rk) holding ``point`` (m)."""
        origin, size = self.world.volume.origin, self.settings.size
        return (math.floor((float(point[0]) - float(origin[0])) / size),
                math.floor((float(point[2]) - float(origin[2])) / size))

    def distance(self, region: tuple[int, int], point: Any) -> float:
        """The x-z distance (m) from ``point`` to ``region``'s square (0 inside it)."""
        origin, size = self.world.volume.origin, self.settings.size
        x0, z0 = float(origin[0]) + region[0] * size, float(origin[2]) + region[1] * size
        dx = max(x0 - float(point[0]), float(point[0]) - (x0 + size), 0.0)
        dz = max(z0 - float(point[2]), float(point[2]) - (z0 + size), 0.0)
        return math.hypot(dx, dz)

    def count(self, kind: str | None = None) -> int:
        """How many actors (of ``kind``) sleep."""
        return sum(1 for records in self.sleeping.values() for r in records if kind is None or r["kind"] == kind)

    def names(self) -> set[str]:
        """The names of the actors asleep."""
        return {r["name"] for records in self.sleeping.values() for r in records if r["kind"] != "treasure"}

    # ------------------------------------------------------------------------------------------- records
    @staticmethod
    def npc_record(name: str, settings: NPCSettings, position: Any, goal: Any = None, patrol: bool = False,
                   state: Mapping | None = None, ends: tuple | None = None, blocked_at: int | None = None) -> dict:
        """An NPC asleep: ``state`` its :meth:`NPC.state_dict` (None: never awake yet, placed at ``position``
        walking to ``goal``, back and forth with ``patrol``), ``ends`` its patrol's ends, ``blocked_at`` the
        navmesh revision it last tried to plan on while blocked."""
        return {"kind": "npc", "name": name, "settings": settings, "position": np.array(position, dtype=np.float64),
                "goal": None if goal is None else np.array(goal, dtype=np.float64), "patrol": patrol,
                "state": state, "ends": ends, "blocked_at": blocked_at}

    @staticmethod
    def enemy_record(name: str, settings: ChainsawSettings, position: Any, facing: Any, state: Mapping | None = None,
                     motion: Mapping | None = None) -> dict:
        """A chainsaw enemy asleep: ``state`` its :meth:`ChainsawEnemy.state_dict` and ``motion`` its motion's
        (None: never awake yet, standing at ``position`` facing ``facing``)."""
        return {"kind": "enemy", "name": name, "settings": settings, "position": np.array(position, dtype=np.float64),
                "facing": np.array(facing, dtype=np.float64), "state": state, "motion": motion}

    @staticmethod
    def treasure_record(name: str, position: Any, depth: float) -> dict:
        """Treasure buried by design at ``position`` (m, a voxel's centre) ``depth`` m under the ground."""
        return {"kind": "treasure", "name": name, "position": tuple(float(v) for v in position), "depth": float(depth)}

    def add(self, record: dict) -> None:
        """Put ``record`` to sleep in the region of its position, its ``turn`` (the order actors wake in) the
        next."""
        check_range("record", record.get("kind") if isinstance(record, dict) else record,
                    f"a record of one of {', '.join(KINDS)}", isinstance(record, dict) and record.get("kind") in KINDS)
        record["turn"] = self.turns
        self.turns += 1
        self.sleeping.setdefault(self.region_of(record["position"]), []).append(record)
        if record["kind"] == "enemy":
            prepare_bodies(record["settings"])  # (not in the frame it wakes in)

    # ------------------------------------------------------------------------------------------- frame
    def look(self, world: World, inputs: Inputs | None = None) -> None:
        """The frame's check (a handler of the ``"collision_mesh"`` stage): nothing unless the player entered
        another region since the last; then the far actors sleep and the near regions wake."""
        if not self.enabled:
            # A world meshed whole is small: everyone wakes, at once (those that cannot, every RETRY_FRAMES frames).
            if self.sleeping and (self.anchor is None or world.frame % RETRY_FRAMES == 0):
                self.anchor = (0, 0)
                self.wake(*sorted(self.sleeping))
                self.waiting = []
            return
        players = player_points(world)
        region, seats = self.region_of(players[0]), tuple(self.region_of(p) for p in players[1:])
        if region == self.anchor and seats == self._seat_anchors:
            if self.waiting and world.frame % RETRY_FRAMES == 0:
                self._retry(players)
            return
        self.anchor, self._seat_anchors = region, seats
        self.sleep_far(players)
        self.wake_near(players)

    def _nearest(self, region: tuple[int, int], players: Any) -> float:
        """The x-z distance (m) from ``region``'s square to the nearest of ``players`` (one point or several)."""
        return min(self.distance(region, point) for point in np.asarray(players, dtype=np.float64).reshape(-1, 3))

    def _retry(self, players: Any) -> None:
        """Wake again the near regions whose actors could not wake (their chunks not meshed yet)."""
        waiting, self.waiting = self.waiting, []
        self.wake(*[region for region in waiting
                    if region in self.sleeping and self._nearest(region, players) <= self.settings.active_radius])

    def sleep_far(self, players: Any) -> int:
        """Put to sleep every awake actor whose region lies beyond ``active_radius + sleep_margin`` of every one of
        ``players`` (a point, m, or several); returns how many fell asleep."""
        agents, limit = self.agents, self.settings.active_radius + self.settings.sleep_margin
        far_npcs = [npc for npc in agents.npcs if self._nearest(self.region_of(npc.position), players) > limit]
        far_enemies = [e for e in agents.enemies if self._nearest(self.region_of(e.position), players) > limit]
        for npc in far_npcs:
            self.sleep_npc(npc)
        for enemy in far_enemies:
            self.sleep_enemy(enemy)
        return len(far_npcs) + len(far_enemies)

    def wake_near(self, players: Any) -> int:
        """Wake the actors of every region within ``active_radius`` of one of ``players`` (a point, m, or several);
        returns how many woke."""
        if not self.sleeping:
            return 0
        size, radius = self.settings.size, self.settings.active_radius
        reach = math.ceil(radius / size) + 1
        near: list[tuple[int, int]] = []
        for player in np.asarray(players, dtype=np.float64).reshape(-1, 3):
            here = self.region_of(player)
            near.extend((ri, rk) for ri in range(here[0] - reach, here[0] + reach + 1)
                        for rk in range(here[1] - reach, here[1] + reach + 1)
                        if (ri, rk) in self.sleeping and (ri, rk) not in near
                        and self.distance((ri, rk), player) <= radius)
        self.waiting = []
        return self.wake(*near)

    def wake(self, *regions: tuple[int, int]) -> int:
        """Wake the actors asleep in ``regions``, in the order they fell asleep (a group asleep over several
        regions wakes in its order); those that cannot wake yet (their navmesh not bakeable) stay asleep, and
        their regions are tried again every ``RETRY_FRAMES`` frames while near. Returns how many woke."""
        records = sorted(((record["turn"], region, record) for region in regions
                          for record in self.sleeping.pop(region, [])), key=lambda item: item[0])
        if self.agents.navigation is None and any(r["kind"] != "treasure" for _, _, r in records):
            self.agents.navigate(bake=False)  # its tiles stream in around those waking
        woken = 0
        for _, region, record in records:
            try:
                if not self._ready(record):
                    raise ParameterError("position", tuple(record["position"]), "a place whose navmesh is baked")
                self._wake(record)
                woken += 1
            except ParameterError:
                self.sleeping.setdefault(region, []).append(record)
                if region not in self.waiting:
                    self.waiting.append(region)
        self.woken += woken
        return woken

    def _ready(self, record: dict) -> bool:
        """Whether ``record``'s actor may wake now without baking navmesh tiles in this frame: every tile within
        the navigation distance of it that can be baked is (a streaming navmesh bakes a few tiles a frame around
        the actors waking, :meth:`waking_points`)."""
        nav = self.agents.navigation
        if record["kind"] == "treasure" or nav is None or nav.tiled is None:
            return True
        return nav.ready_around(record["position"])

    def waking_points(self) -> list[np.ndarray]:
        """Where the actors of the near regions that could not wake yet stand (m): the navmesh streams around
        them too, so that they can."""
        return [np.asarray(r["position"], dtype=np.float64) for region in self.waiting
                for r in self.sleeping.get(region, ()) if r["kind"] != "treasure"]

    # ------------------------------------------------------------------------------------------- sleep
    def sleep_npc(self, npc: NPC) -> dict:
        """Put ``npc`` (of the cast) to sleep in its region; returns its record."""
        agents = self.agents
        record = self.npc_record(npc.name, npc.settings, npc.position, npc.goal, npc.name in agents._patrols,
                                 state=_copy(npc.state_dict()), ends=agents._patrols.pop(npc.name, None),
                                 blocked_at=agents._blocked_at.pop(npc.name, None))
        npc.navigation.crowd.remove_agent(npc.agent)
        agents.npcs.remove(npc)
        self.add(record)
        return record

    def sleep_state(self, name: str, settings: NPCSettings, state: Mapping) -> dict:
        """Put to sleep the NPC ``name`` of the cast's state that could not be made (a loaded world's, standing
        where its navmesh cannot be baked): ``state`` its :meth:`NPC.state_dict`, its patrol taken from the cast's.
        Returns its record."""
        agents, walk = self.agents, state["walk"]
        record = self.npc_record(name, settings, walk["position"], walk["goal"], name in agents._patrols,
                                 state=dict(state), ends=agents._patrols.pop(name, None),
                                 blocked_at=agents._blocked_at.pop(name, None))
        self.add(record)
        return record

    def sleep_enemy(self, enemy: ChainsawEnemy) -> dict:
        """Put ``enemy`` (of the cast) to sleep in its region; returns its record."""
        agents = self.agents
        record = self.enemy_record(enemy.name, enemy.settings, enemy.position, enemy.facing,
                                   state=_copy(enemy.state_dict()), motion=_copy(enemy.motion.state_dict()))
        agent = agents._enemy_agents.pop(enemy.name, None)
        if agent is not None and agents.navigation is not None:
            agents.navigation.crowd.remove_agent(agent)
        agents._enemy_walkers.pop(enemy.name, None)
        agents.enemies.remove(enemy)
        self.add(record)
        return record

    # -------------------------------------------------------------------------------------------- wake
    def _ground(self, position: np.ndarray) -> np.ndarray:
        """``position`` on the top of the voxel column under it (an actor placed by the generator)."""
        height = surface_height(self.world.volume, float(position[0]), float(position[2]))
        if height is None:
            raise ParameterError("position", tuple(position.tolist()), "a place above the terrain")
        return np.array([position[0], height, position[2]])

    def _wake(self, record: dict) -> None:
        kind = record["kind"]
        if kind == "treasure":
            actions = self.world.actions
            treasure = Treasure(self.world.settings.actions.treasure.item, record["position"], record["depth"])
            actions.deformation = replace(actions.deformation,
                                          treasures=actions.deformation.treasures + (treasure,))
        elif kind == "npc":
            self._wake_npc(record)
        else:
            self._wake_enemy(record)

    def _wake_npc(self, record: dict) -> None:
        agents = self.agents
        state = record["state"]
        if state is None:  # placed by the generator: on its ground, walking its way
            goal = None if record["goal"] is None else self._ground(record["goal"])
            agents.add_npc(record["name"], self._ground(record["position"]), goal, patrol=record["patrol"],
                           settings=record["settings"])
            return
        check_range("name", record["name"], "a name no awake agent has", record["name"] not in agents._names())
        walk = dict(state["walk"])
        try:
            npc = NPC(record["name"], agents.navigate(), walk["position"], record["settings"])
        except ParameterError:  # its ground went (dug away since it slept): on the ground under it, at rest
            npc = NPC(record["name"], agents.navigate(), self._ground(np.asarray(walk["position"])),
                      record["settings"])
            walk |= {"position": npc.position, "velocity": np.zeros(2)}
        crowd = npc.navigation.crowd
        try:
            # Where it stood, as it stood: only its polygon is the navmesh's of now.
            polygon = crowd.agent_state(npc.agent)["polygon"]
            npc.load_state_dict(dict(state) | {"walk": walk | {"polygon": polygon, "replan_turn": -1}})
        except ParameterError:
            crowd.remove_agent(npc.agent)
            raise
        agents.npcs.append(npc)
        if record["ends"] is not None:
            agents._patrols[npc.name] = record["ends"]
        if record["blocked_at"] is not None:
            agents._blocked_at[npc.name] = record["blocked_at"]

    def _wake_enemy(self, record: dict) -> None:
        agents = self.agents
        state, position = record["state"], record["position"]
        if state is None:
            position = self._ground(position)
        enemy = agents.add_enemy(record["name"], position, record["facing"], record["settings"])
        if state is not None:
            try:
                enemy.load_state_dict(state)
                enemy.motion.load_state_dict(record["motion"])
            except ParameterError:
                agents.enemies.remove(enemy)
                raise

    # ------------------------------------------------------------------------------------------- state
    def state_dict(self) -> dict:
        """The regions' settings (``size``, ``active_radius``, ``sleep_margin``), ``anchor`` and ``sleeping``
        (each region's records, the values themselves); ``seat_anchors`` only with players who joined (their
        regions at the last look around)."""
        seats = {"seat_anchors": list(self._seat_anchors)} if self._seat_anchors else {}
        return {"size": self.settings.size, "active_radius": self.settings.active_radius,
                "sleep_margin": self.settings.sleep_margin, "anchor": self.anchor, "sleeping": self.sleeping,
                "waiting": self.waiting, "turns": self.turns} | seats

    def load_state_dict(self, state: Mapping) -> None:
        """Take back a :meth:`state_dict`; ParameterError, before anything changes, for a missing key or a value
        out of range (a record of an unknown kind, a name taken twice, a place outside the world)."""
        keys = ("size", "active_radius", "sleep_margin", "anchor", "sleeping")
        if not (isinstance(state, Mapping) and all(key in state for key in keys)):
            raise ParameterError("state", sorted(state) if isinstance(state, Mapping) else type(state).__name__,
                                 f"a mapping with the keys {', '.join(keys)}")
        settings = RegionSettings(state["size"], state["active_radius"], state["sleep_margin"])
        anchor = state["anchor"]
        check_range("state['anchor']", anchor, "None or a region (ri, rk) of whole numbers",
                    anchor is None or (isinstance(anchor, tuple) and len(anchor) == 2
                                       and all(isinstance(v, int) for v in anchor)))
        sleeping = state["sleeping"]
        check_range("state['sleeping']", type(sleeping).__name__, "a mapping of regions to lists of records",
                    isinstance(sleeping, Mapping))
        names = self.agents._names()
        box_lo = self.world.volume.origin - 64.0
        box_hi = self.world.volume.index_to_world(np.array(self.world.volume.shape) - 1) + 64.0
        checked: dict[tuple[int, int], list[dict]] = {}
        for region, records in sleeping.items():
            where = f"state['sleeping'][{region!r}]"
            check_range(where, records, "a region (ri, rk) and a list of records",
                        isinstance(region, tuple) and len(region) == 2 and isinstance(records, list))
            for n, record in enumerate(records):
                _check_record(f"{where}[{n}]", record, names, box_lo, box_hi)
                if record["kind"] != "treasure":
                    names.add(record["name"])
            checked[region] = list(records)
        waiting = state.get("waiting", [])
        check_range("state['waiting']", waiting, "a list of regions (ri, rk) holding actors asleep",
                    isinstance(waiting, list) and all(region in checked for region in waiting))
        turns = state.get("turns", 0)
        check_range("state['turns']", turns, "a whole number >= every record's turn",
                    isinstance(turns, int) and all(r["turn"] < turns for records in checked.values() for r in records))
        seats = state.get("seat_anchors", [])
        check_range("state['seat_anchors']", seats, "a list of regions (ri, rk) of whole numbers, one per seat at most",
                    isinstance(seats, list) and len(seats) <= len(self.world.joined) and all(
                        isinstance(r, tuple) and len(r) == 2 and all(isinstance(v, int) for v in r) for r in seats))
        self._settings, self.anchor, self.sleeping, self.waiting = settings, anchor, checked, list(waiting)
        self.turns, self._seat_anchors = turns, tuple(seats)
        for record in (r for records in checked.values() for r in records if r["kind"] == "enemy"):
            prepare_bodies(record["settings"])  # (not in the frame it wakes in)


_RECORD_KEYS = {"npc": ("name", "settings", "position", "goal", "patrol", "state", "ends", "blocked_at"),
                "enemy": ("name", "settings", "position", "facing", "state", "motion"),
                "treasure": ("name", "position", "depth")}


def _check_record(where: str, record: object, names: set[str], lo: np.ndarray, hi: np.ndarray) -> None:
    """ParameterError naming ``where`` unless ``record`` is a record of a kind, with its keys, a name no other
    actor has and a place near the world; its state is checked as it wakes (by its actor's ``load_state_dict``)."""
    kind = record.get("kind") if isinstance(record, dict) else None
    check_range(f"{where}['kind']", kind, f"one of {', '.join(KINDS)}", kind in KINDS)
    assert isinstance(record, dict) and isinstance(kind, str)
    missing = [key for key in _RECORD_KEYS[kind] + ("turn",) if key not in record]
    check_range(where, sorted(record), f"a mapping with the keys {', '.join(_RECORD_KEYS[kind])}, turn",
                not missing and isinstance(record["turn"], int) and record["turn"] >= 0)
    name = record["name"]
    check_range(f"{where}['name']", name, "a name no other actor has",
                isinstance(name, str) and bool(name) and (kind == "treasure" or name not in names))
    position = np.asarray(record["position"], dtype=np.float64) if not isinstance(record["position"], str) else None
    check_range(f"{where}['position']", record["position"], "a point (m) within 64 m of the world's box",
                position is not None and position.shape == (3,) and bool(np.all(np.isfinite(position)))
                and bool(np.all(position >= lo)) and bool(np.all(position <= hi)))
    settings = {"npc": NPCSettings, "enemy": ChainsawSettings}.get(kind)
    if settings is not None:
        check_range(f"{where}['settings']", type(record["settings"]).__name__, f"a {settings.__name__}",
                    isinstance(record["settings"], settings))
        check_range(f"{where}['state']", type(record["state"]).__name__, "a mapping or None",
                    record["state"] is None or isinstance(record["state"], dict))
