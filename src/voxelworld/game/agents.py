"""NPCs and enemies in a world: the navmesh kept current as the terrain changes, agents stepped every frame.

:class:`Agents` is a :class:`~voxelworld.game.world.World`'s cast (``world.agents``). The navmesh
(:class:`~voxelworld.game.navigation.WorldNavigation`, baked from the terrain's collision mesh and the props on the
first NPC added) is re-baked in the "collision_mesh" stage wherever the frame rebuilt collision surfaces; NPCs walk
together as one crowd (``navigation.crowd``: steering round each other, round the enemies, which stand in it as
obstacles while they cut and walk in it while they step along their wall, round the NPCs, and round the players near
them, who stand in it as obstacles) and re-plan, and chainsaw
enemies swing and carve (their carves queued as edits for the next frame's update stages), in the "events" stage,
after the player's actions and objects. Their events become
:class:`~voxelworld.game.events.NPCChanged` and :class:`~voxelworld.game.events.EnemyChanged`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import product
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import ndimage

from ..attribute_state import (
    array,
    attribute_state,
    mapping,
    optional,
    pair,
    restore_attributes,
    sequence,
    set_of,
    text,
    whole,
)
from ..errors import ParameterError, check_point, check_range
from ..motion import ContactEnded, ContactStarted, Vibration
from ..navigation import SceneObject
from ..navigation.crowd import AGENT_HEIGHT, AGENT_RADIUS
from .checks import point_tuple
from .enemy import Carved, ChainsawEnemy, ChainsawSettings
from .enemy_reaction import notice, strike
from .events import EnemyChanged, NPCChanged
from .navigation import WorldNavigation
from .npcs import NPC, NPCSettings
from .objects import ObjectTransform
from .regions import Regions
from .seats import nearest_player, player_points
from .state_checks import check_inside, count, seconds, world_box

if TYPE_CHECKING:
    from .inputs import Inputs
    from .world import World

__all__ = ["Agents", "ENEMY_RADIUS", "FAR_ACTOR_DISTANCE"]

ENEMY_RADIUS = 0.5  # m: the disc NPCs keep out of around an enemy (its body and the swing of its blade near it)
# m (horizontal): an enemy farther than this from the player moves every other frame (through both frames' time) and
# holds its carves, handing them over a few at a time (ChainsawEnemy.step's ``far``), as game engines tick far
# characters less often: on the 1 km world's sprint the one enemy awake cuts 120-170 m away, its step 0.8 ms of every
# frame and its carves' meshes one frame in eight. The crowd likewise steps every other frame while all its agents
# are this far and no enemy walks (Agents._step_crowd; it costs 0.4-0.5 ms a frame there). Twice the distance beyond
# which an edit's display is made in the background (streaming.NEAR_EDIT_DISTANCE): their steps and cuts come a
# frame or a fifth of a second late where they are a few pixels.
FAR_ACTOR_DISTANCE = 64.0
# s: the least time between two re-bakes of changes on a walking NPC's path. Several diggers near the NPCs changed
# a path nearly every frame and re-baked the navmesh in 214 of 300 frames (8 players: 7 ms a frame); an NPC walks
# at most this long on the old navmesh (Recast's tile cache likewise updates within a budget, not at every change).
REBAKE_INTERVAL = 0.1
# m: a walking enemy's agent is at its goal this near it; from there (or when its agent is blocked) the enemy
# walks straight on to its own goal, which may lie off the navmesh (at the wall it cuts)
WALKER_ARRIVAL = 0.1

# A chainsaw enemy's events as EnemyChanged: (kind, the field that gives its amount, if any).
_ENEMY_EVENTS = {Carved: ("carved", "volume_removed"), ContactStarted: ("contact_started", None),
                 ContactEnded: ("contact_ended", None), Vibration: ("vibration", "impulse")}


class Agents:
    """The NPCs and enemies of one world.

    Attributes
    ----------
    npcs : list of NPC
    enemies : list of ChainsawEnemy
    navigation : WorldNavigation or None
        Baked when the first NPC is added.
    """

    # What the cast keeps from frame to frame besides its agents (:meth:`state_dict`); the NPCs, enemies and the
    # navmesh hand over their own states; ``world`` is the world it was made for.
    STATE_ATTRIBUTES = ("_patrols", "_blocked_at", "_pending", "_pending_since", "_pending_box", "_crowd_owed",
                        "_rebake_after")
    # Ranges (voxelworld.game.state_checks): patrol ends and the pending box within the world's box grown by
    # POSITION_MARGIN; pending chunks of the grid; blocked_at a count; pending_since and crowd_owed times (a file
    # saved before the crowd stepped far actors every other frame has no crowd_owed: 0; one saved before re-bakes
    # were spaced has no rebake_after: 0). Each enemy's motion
    # (taken back before the cast's state) must stand where its enemy does, its points within the world's box.
    STATE_CHECKS: dict[str, Callable[..., None]] = {
        "patrols": mapping(text(), pair(array((3,)), array((3,)))), "blocked_at": mapping(text(), count()),
        "pending": set_of(sequence(whole(0), tuple, 3), set), "pending_since": seconds(),
        "pending_box": optional(pair(array((3,)), array((3,)))), "crowd_owed": seconds(),
        "rebake_after": seconds(),
        "*": lambda agents, name, state: agents._check_state(name, state)}
    # _enemy_agents: each enemy's agent in the navigation's crowd, placed again every frame from the enemy's own
    # state (rebuilt); _enemy_walkers: those of the enemies walking, with the offset from the agent to its feet.
    # regions: the actors asleep far from the player (voxelworld.game.regions), saved in a row of their own.
    # _areas_of: the pending changes' areas and what they were worked out from (_pending_areas; rebuilt);
    # _enemies_made: the enemies' agents as placed while they all cut (_place_enemies; rebuilt); _player_agents: the
    # players' agents in the crowd, placed again every frame from where the players stand (_place_players; rebuilt).
    OTHER_ATTRIBUTES = ("npcs", "enemies", "navigation", "world", "_enemy_agents", "_enemy_walkers", "regions",
                        "_areas_of", "_enemies_made", "_player_agents")

    def __init__(self, world: World) -> None:
        self.world = world
        self.npcs: list[NPC] = []
        self.enemies: list[ChainsawEnemy] = []
        self.navigation: WorldNavigation | None = None
        self._patrols: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # NPC name -> the ends it walks between
        self._blocked_at: dict[str, int] = {}  # the navmesh revision a blocked NPC last tried to plan on
        self._pending: set[tuple[int, int, int]] = set()  # chunks rebuilt since the last re-bake
        self._pending_since = 0.0
        self._pending_box: tuple[np.ndarray, np.ndarray] | None = None  # what they changed, m
        self._crowd_owed = 0.0  # s: the time of the frame the crowd did not step in, far from the player (_step_crowd)
        self._rebake_after = 0.0  # s: the world time before which a change on a path waits (REBAKE_INTERVAL)
        self._enemy_agents: dict[str, int] = {}  # enemy name -> its agent's id in the crowd (looked up)
        self._enemy_walkers: dict[str, tuple[int, np.ndarray]] = {}  # enemy name -> (agent, offset m) (looked up)
        self._areas_of: tuple[tuple, list[tuple[np.ndarray, np.ndarray]]] | None = None
        self._enemies_made: _EnemiesMade | None = None  # the enemies' placing while all cut (_place_enemies)
        self._player_agents: list[int] = []  # the players' agents in the crowd, its last rows (_place_players)
        self.regions = Regions(self)
        world.add_handler(self.regions.look, "collision_mesh")  # before the navmesh streams around the actors
        world.add_handler(self._rebake, "collision_mesh")
        world.add_handler(self._step, "events")
        world.add_object_source(lambda w: self.transforms())

    def state_dict(self) -> dict:
        """What the cast keeps from frame to frame (``STATE_ATTRIBUTES``; a private attribute's key has no leading
        underscore), the values themselves (:mod:`voxelworld.attribute_state`)."""
        return attribute_state(self, self.STATE_ATTRIBUTES)

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Take back a :meth:`state_dict`; ParameterError, before anything changes, for a missing key or a value
        out of its range (``STATE_CHECKS``; the ranges: docs/specs/world-format.md)."""
        restore_attributes(self, state, self.STATE_ATTRIBUTES, added=("_crowd_owed", "_rebake_after"),
                           checks=self.STATE_CHECKS)

    def _check_state(self, name: str, state: Mapping[str, Any]) -> None:
        """What ties the cast's state to its world: places within the world's box, chunks of its grid; and each
        enemy's motion to its enemy (placed where it stands, its points within the world's box)."""
        volume = self.world.volume
        box, grid = world_box(volume), volume.chunk_grid_shape
        for npc, ends in state["patrols"].items():
            check_inside(f"{name}['patrols'][{npc!r}]", np.array(ends), box)
        if state["pending_box"] is not None:
            check_inside(f"{name}['pending_box']", np.array(state["pending_box"]), box)
        for chunk in state["pending"]:
            check_range(f"{name}['pending']", chunk, f"chunks (i, j, k) of the grid {grid}",
                        all(c < n for c, n in zip(chunk, grid)))
        for enemy in self.enemies:
            motion, where = enemy.motion, f"agents.enemies[{enemy.name!r}].motion.state"
            check_range(f"{where}['placement']", "another placement than its enemy's",
                        "its enemy's placement (where it stands)", np.allclose(motion.placement, enemy.placement()))
            for key in ("world", "part_segment", "driven_end", "previous_end", "previous_elbow"):
                value = getattr(motion, key if key in ("world", "part_segment") else f"_{key}")
                if value is not None:
                    check_inside(f"{where}[{key!r}]", value[:, :3, 3] if key == "world" else value, box)
            if motion.contact is not None:
                check_inside(f"{where}['contact'].point", motion.contact.point, box)

    def _names(self) -> set[str]:
        """The names of the awake agents."""
        return {npc.name for npc in self.npcs} | {enemy.name for enemy in self.enemies}

    def navigate(self, bake: bool = True) -> WorldNavigation:
        """The world's navmesh, baked now if it was not yet. On a world that streams (``settings.view_distance``
        set), its tiles stream around the actors (``settings.navigation_radius``, see
        :class:`~voxelworld.game.navigation.WorldNavigation`): those around the actors are baked now, the others
        as the actors move, ``settings.navigation_tiles_per_frame`` a frame."""
        if self.navigation is None:
            world = self.world
            props = [SceneObject(p.name, p.positions, p.indices, p.role) for p in world.props]
            settings = world.settings
            self.navigation = WorldNavigation(world.volume, world.mesher, props,
                                              navigation_distance=settings.navigation_radius,
                                              tiles_per_frame=settings.navigation_tiles_per_frame,
                                              things=world.ground_things, stored_tiles=world.stored_tiles)
            if bake:  # (else its tiles stream in, a few a frame: regions waking)
                self.navigation.bake_around(self._actor_points())
        return self.navigation

    def _actor_points(self) -> np.ndarray:
        """Where the actors that walk the navmesh are (m): the enemies, the NPCs and those about to wake; the
        navmesh streams around them. Not the player, who never walks it: a player sprinting over empty land bakes
        no tile (each 10-20 ms, baked in the frame), and leaves none behind. (n, 3), possibly (0, 3)."""
        points: list[np.ndarray] = []
        points.extend(enemy.position for enemy in self.enemies)
        points.extend(self.npc_positions())
        points.extend(self.regions.waking_points())  # those about to wake: their navmesh first
        return np.array(points, dtype=np.float64).reshape(-1, 3)

    def npc_positions(self) -> np.ndarray:
        """Where the NPCs stand (m, (n, 3), in the order of :attr:`npcs`): each one's ``position``, read from the
        crowd at once (a frame asks four times for a few dozen)."""
        if not self.npcs:
            return np.zeros((0, 3))
        assert self.navigation is not None  # (an NPC walks on it)
        return self.navigation.crowd.positions[self._npc_rows()]

    def _npc_rows(self) -> list[int]:
        """Each NPC's row in the crowd, in the order of :attr:`npcs` (with NPCs: the navigation's)."""
        assert self.navigation is not None  # (an NPC walks on it)
        row_of = {agent: row for row, agent in enumerate(self.navigation.crowd.ids)}
        return [row_of[npc.agent] for npc in self.npcs]

    def add_npc(self, name: str, position: ArrayLike, goal: Iterable[float] | None = None, patrol: bool = False,
                settings: NPCSettings = NPCSettings()) -> NPC:
        """An NPC called ``name`` (unique among the agents) standing at ``position`` (m), walking to ``goal``
        (m) when given; with ``patrol`` it walks back and forth between the two for ever."""
        check_range("name", name, "a name no other agent has (awake or asleep)",
                    name not in self._names() and name not in self.regions.names())
        check_range("patrol", patrol, "True or False", isinstance(patrol, bool))
        npc = NPC(name, self.navigate(), position, settings)
        if goal is not None:
            npc.walk_to(goal)
            if patrol:
                walking_to = npc.goal
                assert walking_to is not None  # walk_to set it
                self._patrols[name] = (npc.position.copy(), walking_to.copy())
        self.npcs.append(npc)
        return npc

    def add_enemy(self, name: str, position: ArrayLike, facing: ArrayLike = (1.0, 0.0, 0.0),
                  settings: ChainsawSettings = ChainsawSettings(), wall: ArrayLike | None = None) -> ChainsawEnemy:
        """A chainsaw enemy called ``name`` (unique among the agents) with its feet at ``position`` (m; within the
        world's box grown by :data:`~voxelworld.game.state_checks.POSITION_MARGIN`), swinging
        towards ``facing`` and working along ``wall`` (None: across ``facing``); its carves are queued as the
        world's edits."""
        check_range("name", name, "a name no other agent has (awake or asleep)",
                    name not in self._names() and name not in self.regions.names())
        world = self.world
        check_inside("position", check_point("position", position), world_box(world.volume))
        enemy = ChainsawEnemy(name, world.volume, world.mesher, position, facing, settings, edits=world.queue_edit,
                              wall=wall)
        enemy.guide = self._guide
        self.enemies.append(enemy)
        return enemy

    def npc(self, name: str) -> NPC:
        for npc in self.npcs:
            if npc.name == name:
                return npc
        raise ParameterError("name", name, f"an NPC's name: {', '.join(n.name for n in self.npcs) or 'none yet'}")

    def transforms(self) -> list[ObjectTransform]:
        npcs = [ObjectTransform(n.name, "npc", point_tuple(at), 0.0) for n, at in zip(self.npcs, self.npc_positions())]
        enemies = [ObjectTransform(e.name, "enemy", point_tuple(e.position), 0.0) for e in self.enemies]
        return npcs + enemies

    # ---------------------------------------------------------------------------------------------- frame
    def _rebake(self, world: World, inputs: Inputs) -> None:
        """Re-bake the navmesh where collision surfaces were rebuilt: at once when a walking NPC's way may cross
        what changed (at most once every ``REBAKE_INTERVAL`` s), else once the oldest waiting change is
        ``settings.navmesh_delay`` s old, in the first frame from then that changed nothing itself, at most two
        frames later (digging every frame re-bakes a few times a second, not every frame). Then, on a streaming
        world, move its tiles towards the actors (:meth:`WorldNavigation.stream`)."""
        if self.navigation is None:
            return
        self._rebake_changes(world)
        self.navigation.stream(self._actor_points())  # a streaming world's tiles: a few a frame

    def _rebake_changes(self, world: World) -> None:
        if world.rebuilt_chunks:
            if not self._pending:
                self._pending_since = world.time
            self._pending |= world.rebuilt_chunks
            for lo, hi in self._changed_boxes(world):
                self._pending_box = (lo, hi) if self._pending_box is None else (
                    np.minimum(self._pending_box[0], lo), np.maximum(self._pending_box[1], hi))
        if not self._pending:
            return
        waited, delay = world.time - self._pending_since, world.settings.navmesh_delay
        # Due once the oldest change is navmesh_delay old; a frame with a change of its own (a digger's, which pays
        # for its edit's meshes) leaves it to the next one or two (within _crosses_a_path's two frames more).
        due = waited >= delay and (not world.rebuilt_chunks or waited >= delay + 1.5 * world.dt)
        if due or (world.time >= self._rebake_after and self._crosses_a_path(world)):
            pending, self._pending, self._pending_box = self._pending, set(), None
            self._rebake_after = world.time + REBAKE_INTERVAL
            assert self.navigation is not None  # (_rebake's)
            self.navigation.update(pending)

    def _changed_boxes(self, world: World) -> list[tuple[np.ndarray, np.ndarray]]:
        """World boxes (m) holding the changes this frame's meshes took: where the voxels of each chunk the mesher
        took changes from changed (``ChunkMesher.taken_changes``: an edit of this frame, or of one a few frames
        before whose chunk waited to be remeshed, or a change made to the volume directly) grown by a voxel (the
        surface reaches that far past a changed sample), and the whole of any rebuilt chunk next to none of them
        (one turned meshed)."""
        volume = world.volume
        boxes: list[tuple[np.ndarray, np.ndarray]] = []
        taken = world.mesher.taken_changes
        for lo, hi in taken.values():
            boxes.append((volume.index_to_world(lo) - volume.voxel_size, volume.index_to_world(hi) + volume.voxel_size))
        for chunk in world.rebuilt_chunks:
            near = {tuple(c + o for c, o in zip(chunk, offset)) for offset in product((-1, 0, 1), repeat=3)}
            if not near & taken.keys():  # next to no changed chunk
                first, end = volume.chunk_box(chunk)
                boxes.append((volume.index_to_world(first) - volume.voxel_size,
                              volume.index_to_world(end) + volume.voxel_size))
        return boxes

    def _crosses_a_path(self, world: World) -> bool:
        """Whether a walking NPC's remaining path (from where it stands) passes over one of the waiting changes'
        areas (:meth:`_pending_areas`) widened by the agent's radius and a ray cell (erosion and sampling reach that
        far), on the x-z plane,
        within the distance it walks before the changes are re-baked anyway (at its top speed, until
        ``settings.navmesh_delay`` after the oldest, and three frames more: the frame, and the two a digging frame
        may leave it to; and the frame the crowd owes, far from the player: :meth:`_step_crowd`): a far NPC never
        reaches the change on
        the old navmesh, so it waits for the delay like everyone."""
        assert self.navigation is not None  # (_rebake's)
        crowd = self.navigation.crowd
        # (the crowd's rows read once: an NPC walks while its agent moves, and it has a path then)
        states, rows = crowd.states, self._npc_rows()
        walking = [(npc, row) for npc, row in zip(self.npcs, rows) if states[row] == "moving"]
        if not walking or self._pending_box is None:
            return bool(walking)
        settings = self.navigation.settings
        margin = settings.agent_radius + settings.cell_size
        areas = [(lo - margin, hi + margin) for lo, hi in self._pending_areas(world)]
        remaining = max(world.settings.navmesh_delay - (world.time - self._pending_since), 0.0) + 3 * world.dt \
            + self._crowd_owed
        # What each walks in time stays within its ``length`` of where it stands (a hair more, for the rounding).
        positions = crowd.positions[[row for _, row in walking]]
        here = positions[:, [0, 2]]
        lengths = np.array([npc.settings.speed for npc, _ in walking]) * remaining
        for lo, hi in areas:
            gap = np.hypot(*np.maximum(np.maximum(lo - here, here - hi), 0.0).T)
            for n in np.flatnonzero(gap <= lengths * (1 + 1e-9) + 1e-9).tolist():
                path = crowd.path(walking[n][0].agent)
                if _path_meets_box(np.vstack([positions[n][None], path])[:, [0, 2]], float(lengths[n]), lo, hi):
                    return True
        return False

    def _pending_areas(self, world: World) -> list[tuple[np.ndarray, np.ndarray]]:
        """The x-z boxes (lo, hi; m) holding the waiting changes: each group of touching columns of the pending
        chunks (a chunk's triangles reach a voxel past its own box) within the changes' box. Digs far apart (the
        enemies at their outcrops) stay apart: their joint box covered the paths between them, and every walking
        NPC there re-baked the navmesh at once (on the 2 km world, 99 of its 144 re-bakes in 30 s).
        Every change lies in both the pending chunks and their box: nothing is left out."""
        assert self._pending_box is not None  # (with changes pending)
        # Worked out again only when the changes did (an enemy's cuts mostly fall in chunks already pending): the
        # frames between would pay about 80 µs each while an NPC walks.
        key = (frozenset(self._pending), *(np.asarray(c, dtype=np.float64).tobytes() for c in self._pending_box))
        if self._areas_of is not None and self._areas_of[0] == key:
            return self._areas_of[1]
        volume = world.volume
        columns = np.unique(np.array(sorted(self._pending), dtype=np.int64)[:, [0, 2]], axis=0)
        first = columns.min(axis=0)
        grid = np.zeros(tuple(columns.max(axis=0) - first + 1), dtype=bool)
        grid[tuple((columns - first).T)] = True
        labels, _ = ndimage.label(grid, structure=np.ones((3, 3), dtype=bool))  # (diagonal neighbours touch)
        size, voxel, origin = volume.chunk_size * volume.voxel_size, volume.voxel_size, volume.origin[[0, 2]]
        box_lo, box_hi = self._pending_box[0][[0, 2]], self._pending_box[1][[0, 2]]
        areas = []
        for rows, cols in ndimage.find_objects(labels):
            lo = np.maximum(origin + (first + (rows.start, cols.start)) * size - voxel, box_lo)
            hi = np.minimum(origin + (first + (rows.stop, cols.stop)) * size + voxel, box_hi)
            if np.all(lo <= hi):
                areas.append((lo, hi))
        self._areas_of = (key, areas)
        return areas

    def _place_enemies(self) -> None:
        """Stand each enemy in the crowd where its feet are now, on the navmesh's nearest point: while it cuts,
        as an obstacle (an agent of speed 0: the NPCs walk round it, none pushes it); while it steps along its
        wall, as an agent of its walking speed going where it goes (its goal shifted by the offset from the
        agent to its feet), at its velocity of the last frame, so it and the NPCs avoid each other and the
        enemy follows its agent (:meth:`_guide`). One farther than 1 m from the navmesh (deep in the wall it
        cuts) is left out this frame. The enemies' agents are made again every frame from the enemies' own state,
        after the NPCs, so the crowd's order is the NPCs', then the enemies', in a loaded world too. When every
        enemy cuts where it cut the frame before, on the same navmesh, and their agents are still the crowd's
        last, each agent is given back the state it was made with instead (what making it again would give, in
        a third of the time on the 1 km world's sprint)."""
        assert self.navigation is not None  # (_step's)
        crowd = self.navigation.crowd
        places = [(enemy.name, enemy.position.tobytes()) for enemy in self.enemies]
        cutting = all(enemy.goal is None for enemy in self.enemies)
        made = self._enemies_made
        if made is not None and cutting and made.crowd is crowd and made.index is crowd.mesh.index \
                and made.places == places:
            ids, agents = crowd.ids, [agent for agent, _ in made.states]
            if list(ids[len(ids) - len(agents):]) == agents:
                for agent, state in made.states:
                    crowd.restore_agent(agent, state)
                return
        self._enemies_made = None
        for name in [enemy.name for enemy in self.enemies if enemy.name in self._enemy_agents]:
            crowd.remove_agent(self._enemy_agents.pop(name))
        self._enemy_walkers = {}
        for enemy in self.enemies:
            goal = enemy.goal
            speed = 0.0 if goal is None else enemy.settings.walk_speed
            try:
                agent = self.navigation.add_agent(enemy.position, ENEMY_RADIUS, speed, 0.0 if goal is None else
                                                  WALKER_ARRIVAL, max_snap=1.0)
            except ParameterError:
                continue  # off the navmesh: nothing for the NPCs to walk round
            self._enemy_agents[enemy.name] = agent
            if goal is not None:
                offset = enemy.position - crowd.position(agent)
                if crowd.set_goal(agent, goal - offset):
                    crowd.restore_agent(agent, crowd.agent_state(agent) | {"velocity": enemy.walk_velocity})
                    self._enemy_walkers[enemy.name] = (agent, offset)
        if cutting:
            self._enemies_made = _EnemiesMade(crowd, crowd.mesh.index, places, [
                (agent, crowd.agent_state(agent)) for agent in self._enemy_agents.values()])

    def _place_players(self, world: World) -> None:
        """Stand every player near the crowd in it as an obstacle, as a cutting enemy stands (an agent of speed 0:
        the NPCs and a walking enemy go round it, none pushes it), a disc of the player's capsule radius on the
        navmesh's point nearest its feet; one farther than the crowd's ``max_snap`` from the navmesh (high in the
        air, where no tile is baked: a player's agent bakes none) is left out this frame. The players' agents are
        made again every frame (players move every frame), after the enemies', in the players' order, and taken
        out first (the enemies' agents are then the crowd's last again: :meth:`_place_enemies`), so that the
        crowd's order is the NPCs', the enemies', the players', in a loaded world too (nothing of theirs is saved).
        A player farther across the ground from every other agent than the crowd's ``neighbour_distance`` and
        ``max_snap`` together is left out: no agent would have it for a neighbour (its agent would cost about
        50 µs a frame for nothing, more where the navmesh's nearest point lies far)."""
        assert self.navigation is not None  # (_step's)
        crowd = self.navigation.crowd
        near = crowd.settings.neighbour_distance + crowd.settings.max_snap
        others = crowd.positions  # (the NPCs' agents and the enemies' as placed this frame, no player's yet)
        if not len(others):
            return
        for _, player in world.players():
            at = player.position
            if not float(np.min(np.hypot(others[:, 0] - at[0], others[:, 2] - at[2]))) <= near:
                continue
            radius = min(max(player.settings.radius, AGENT_RADIUS[0]), AGENT_RADIUS[1])
            height = min(max(player.settings.height, AGENT_HEIGHT[0]), AGENT_HEIGHT[1])
            try:
                self._player_agents.append(crowd.add_agent(at, radius, 0.0, height=height, arrival_distance=0.0))
            except ParameterError:
                continue  # off the navmesh: nothing to walk round

    def _guide(self, enemy: ChainsawEnemy) -> np.ndarray | None:
        """Where a walking enemy heads this frame: where its agent in the crowd went, shifted back by the offset
        to its feet; None (straight at its goal) when it has no agent walking."""
        walker = self._enemy_walkers.get(enemy.name)
        if walker is None or self.navigation is None:
            return None
        agent, offset = walker
        crowd = self.navigation.crowd
        return crowd.position(agent) + offset if crowd.state(agent) == "moving" else None

    def _step(self, world: World, inputs: Inputs) -> None:
        if self.navigation is not None and world.dt > 0.0:
            crowd = self.navigation.crowd
            for agent in reversed(self._player_agents):  # (the crowd's last rows, but an NPC's woken since)
                crowd.remove_agent(agent)
            self._player_agents = []
            self._place_enemies()
            self._place_players(world)
            self._step_crowd(world)
        for npc in self.npcs:
            for event in (npc.take_events(world.dt) if world.dt > 0.0 else []):
                world.emit(NPCChanged, npc=npc.name, kind=event.kind, position=event.position)
                if event.kind == "arrived" and npc.name in self._patrols:
                    ends, goal = self._patrols[npc.name], npc.goal
                    npc.walk_to(ends[0] if goal is not None and np.array_equal(goal, ends[1]) else ends[1])
            if npc.state == "blocked" and self._blocked_at.get(npc.name) != npc.navigation.revision:
                # Cut off: try again each time the navmesh changes (the way may have opened).
                self._blocked_at[npc.name] = npc.navigation.revision
                goal = npc.goal  # None: a state taken back blocked with no goal (nothing to plan to)
                if goal is not None and npc.walk_to(goal):
                    world.emit(NPCChanged, npc=npc.name, kind="replanned", position=tuple(float(v) for v in
                                                                                          npc.position))
        reacts = world.settings.enemy_reacts  # to the player (voxelworld.game.enemy_reaction)
        for enemy in self.enemies:
            if reacts:
                notice(world, enemy, world.settings.enemy_reaction)
            # (a walking enemy follows its agent, which the crowd moves every frame: it walks every frame too)
            nearest = nearest_player(world, enemy.position).position
            far = enemy.goal is None and float(np.hypot(*(enemy.position - nearest)[[0, 2]])) > FAR_ACTOR_DISTANCE
            for event in enemy.step(world.dt, world.collider, far=far):
                kind, amount = _ENEMY_EVENTS[type(event)]
                world.emit(EnemyChanged, enemy=enemy.name, kind=kind, material=event.material,
                           amount=float(getattr(event, amount)) if amount else 0.0)
            if reacts:
                strike(world, enemy, world.settings.enemy_reaction)

    def _step_crowd(self, world: World) -> None:
        """Step the crowd: every NPC walks, around the others, the enemies and the players near, in one step. While
        every agent of the crowd stands farther than :data:`FAR_ACTOR_DISTANCE` from every player (across the ground)
        and no enemy walks (the enemy follows its agent), every other frame: the frame between leaves its time owed,
        and the next steps through both (as a far enemy moves: :meth:`ChainsawEnemy.step`'s ``far``). (A player's
        agent, when there is one, stands within a few metres of an NPC or enemy: the crowd is not far then.)"""
        assert self.navigation is not None  # (_step's)
        if self._crowd_owed == 0.0 and self._crowd_far(world):
            self._crowd_owed = world.dt
            return
        dt, self._crowd_owed = world.dt + self._crowd_owed, 0.0
        self.navigation.step_crowd(dt)

    def _crowd_far(self, world: World) -> bool:
        """Whether the crowd has agents, all farther than :data:`FAR_ACTOR_DISTANCE` from every player, and no enemy
        walks."""
        if self.navigation is None or any(enemy.goal is not None for enemy in self.enemies):
            return False
        positions = self.navigation.crowd.positions  # (read only when no enemy walks)
        if not len(positions):
            return False
        return all(bool((np.hypot(positions[:, 0] - player[0], positions[:, 2] - player[2]) > FAR_ACTOR_DISTANCE).all())
                   for player in player_points(world))  # far from every player


class _EnemiesMade(NamedTuple):
    """The enemies' agents as :meth:`Agents._place_enemies` made them while every enemy cut: the ``crowd``, its
    navmesh's ``index`` and the enemies' ``places`` (name, position bytes) they were made from, and each agent with
    the state it was made with (``states``)."""

    crowd: Any
    index: Any
    places: list[tuple[str, bytes]]
    states: list[tuple[int, dict[str, Any]]]


def _path_meets_box(points: np.ndarray, length: float, lo: np.ndarray, hi: np.ndarray) -> bool:
    """Whether the first ``length`` m of the 2-D polyline ``points`` meets the box [lo, hi]."""
    for a, b in zip(points[:-1], points[1:]):
        if length <= 0.0:
            return False
        step = float(np.hypot(*(b - a)))
        if step > length:  # the part walked in time
            b = a + (b - a) * (length / step)
        if _segment_meets_box(a, b, lo, hi):
            return True
        length -= step
    return False


def _segment_meets_box(a: np.ndarray, b: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> bool:
    """Whether the 2-D segment ab meets the box [lo, hi] (slab test)."""
    start, end = 0.0, 1.0
    for axis in range(2):
        step = b[axis] - a[axis]
        if step == 0.0:
            if a[axis] < lo[axis] or a[axis] > hi[axis]:
                return False
            continue
        t0, t1 = (lo[axis] - a[axis]) / step, (hi[axis] - a[axis]) / step
        start, end = max(start, min(t0, t1)), min(end, max(t0, t1))
        if start > end:
            return False
    return True
