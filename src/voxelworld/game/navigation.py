"""The world's navmesh: baked from the terrain's collision mesh and the props, re-baked where the terrain changes.

:class:`WorldNavigation` hands :mod:`voxelworld.navigation` a :class:`~voxelworld.navigation.Scene` made of one
``floor`` object per terrain chunk (that chunk's collision mesh, from a :class:`~voxelworld.meshing.ChunkMesher`,
each triangle with the area type its material gives: :mod:`voxelworld.game.nav_areas`) plus the props. A prop taller than ``prop_min_height`` becomes an ``obstacle`` (it gets an exclusion region; with
``levels`` on, its top stays walkable as a level of its own); a lower one is ``floor``; an ``exception`` prop
stays transparent.

After the terrain changes, :meth:`WorldNavigation.update` takes the chunks that changed, replaces only the
scene objects of the chunks whose collision mesh really changed, and calls :meth:`NavMesh.rebake` with the box
around their old and new triangles. The navigation wing guarantees that the result equals a full bake of the
new scene, bit for bit; :meth:`WorldNavigation.full_bake` gives that full bake for checks. Every update that
changed a tile raises :attr:`WorldNavigation.revision` and logs the tiles, so agents walking paths can ask
:meth:`WorldNavigation.changed_since` whether a tile they will cross was re-baked.

Examples
--------
>>> from voxelworld.terrain import VoxelVolume, Sphere
>>> from voxelworld.meshing import ChunkMesher
>>> ground = VoxelVolume.from_sdf(lambda x, y, z: y - 4.0, (48, 16, 48), material="soil", voxel_size=0.5,
...                               chunk_size=8)
>>> mesher = ChunkMesher(ground)
>>> nav = WorldNavigation(ground, mesher)
>>> round(nav.mesh.area())
493
>>> edit = ground.remove(Sphere((6.0, 4.0, 6.0), 1.5))
>>> _ = mesher.update()
>>> nav.update(edit.dirty_chunks)
[(0, 0, 0)]
>>> round(nav.mesh.area()), nav.revision
(486, 1)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Mapping
from itertools import product
from types import MappingProxyType

import numpy as np
from numpy.typing import ArrayLike

from ..attribute_state import MAX_COUNT, pair, sequence, set_of, whole
from ..errors import ParameterError, check_finite, check_integer, check_point
from ..meshing import ChunkMesher, CollisionMesh
from ..meshing.mesher_collision import PreparedCollision
from ..navigation import (
    Crowd,
    CrowdEvent,
    CrowdSettings,
    NavMesh,
    NavQuery,
    NavSettings,
    QueryFilter,
    Scene,
    SceneObject,
    SearchRegion,
)
from ..navigation.bake import bake
from ..navigation.crowd import check_agent
from ..navigation.polygons import TILE_CELLS
from ..navigation.rebake import changed_box
from ..navigation.tiles import TiledNavMesh
from ..terrain import Volume
from ..terrain.shapes import merged_boxes
from .ground_things import GroundThings
from .nav_ahead import TileAhead
from .nav_areas import TerrainAreaTypes, one_type
from .nav_chunks import changed_bounds as _changed_bounds
from .nav_chunks import chunk_collision_meshes as _chunk_collision_meshes
from .nav_chunks import same_mesh as _same_mesh
from .nav_chunks import terrain_objects as _terrain_objects
from .nav_stored import StoredTiles
from .nav_streaming import LANDING_EVERY, TILE_LAG, NavStreaming
from .state_checks import count

__all__ = ["WorldNavigation", "DEFAULT_SETTINGS", "CROWD_SETTINGS"]

# A person-sized agent on a voxel terrain; levels on, so table tops and crate tops stay walkable.
# Walls within half a cell of the walkable samples (max_edge_error): an NPC cutting a corner strays no further.
# Drops of up to the agent's own height (1.8 m) are one-way links down (an NPC jumps into a pit the player dug),
# across no more than a step (0.5 m) besides its radius at each end.
DEFAULT_SETTINGS = NavSettings(ray_density=11.1, step_limit=0.5, clearance=1.8, agent_radius=0.4, max_slope=45.0,
                               levels=True, min_region_area=1.0, max_edge_error=0.15, max_drop=1.8,
                               max_jump_gap=0.5)
LOG_LENGTH = 64  # updates remembered by changed_since
# The NPCs' crowd: its defaults (an agent dug out from under more than 1 m away is off the navmesh).
CROWD_SETTINGS = CrowdSettings()


_UPPER = tuple(product((0, 1), repeat=3))  # a chunk and its upper neighbours, whose meshes join its vertices


class WorldNavigation(NavStreaming):
    """The navmesh of a voxel world and its props, kept current as the terrain changes.

    Parameters
    ----------
    volume : VoxelVolume
        The terrain.
    mesher : ChunkMesher
        The mesher of ``volume`` whose collision meshes are the floor; they reflect its last ``update()``, so
        call that before :meth:`update` (the world's frame loop does).
    props : iterable of SceneObject
        Props (tables, crates) in world coordinates (m). Their role is decided here (see ``prop_min_height``),
        except that ``"exception"`` props stay transparent. Names must not start with ``"terrain/"``.
    settings : NavSettings
        The bake's settings; :data:`DEFAULT_SETTINGS` (levels on, a 0.4 m agent) by default.
    prop_min_height : float
        m (>= 0): a prop taller than this (its own height, bottom to top) is an obstacle with an exclusion
        region; a lower one (a rug, a plank) is floor. Default 0.3.
    region : SearchRegion, optional
        The box baked; by default the volume's samples, 1 m deeper and ``settings.clearance`` higher. Upright
        only (``rotation`` (0, 0, 0, 1)): the NPCs walk it as a Crowd (ParameterError naming ``region.rotation``).
    baked_from : mapping of (i, j, k) to CollisionMesh or None, optional
        Chunks whose collision mesh (None: no triangles) to bake from instead of the mesher's: what a saved
        world's navmesh was baked from where the terrain changed since its last re-bake (``voxelworld.io``), so
        that the navmesh is that world's, bit for bit, and the re-bake still waiting does what it would have.
    navigation_distance : float, optional
        m (> 0): stream the navmesh's tiles around the actors (a large world, whose mesher meshes only the chunks
        near them) instead of baking it whole: see :meth:`stream`. None (the default): baked whole.
    tiles_per_frame : int
        Tiles (>= 1) one :meth:`stream` call may bake when given no budget of its own. Default 1.
    tiles : iterable of (ti, tk), optional
        With ``navigation_distance``: tiles to bake at once (a saved world's, ``state_dict()["tiles"]``), each of
        whose chunks must be meshed (ParameterError naming ``tiles`` otherwise; with ``meshed_tiles_only`` left out).
    things : GroundThings, optional
        A generated world's things on the ground (:mod:`voxelworld.game.ground_things`): each an obstacle box in
        every bake (see :meth:`attach_things`, :meth:`things_changed`).
    stored_tiles : StoredTiles, optional
        With ``navigation_distance``: tiles baked ahead of time (a world file's bake,
        :class:`~voxelworld.game.nav_stored.StoredTiles`), each taken instead of baking it where it was baked from
        what this navigation holds (:mod:`voxelworld.game.nav_stored`); counted in :attr:`tiles_read`.

    Attributes
    ----------
    mesh : NavMesh
        The navmesh, re-baked in place by :meth:`update` (references to it stay valid).
    scene : Scene
        The scene it was last baked from: terrain chunks in chunk order, then the props.
    revision : int
        How many updates changed a tile.
    crowd : Crowd
        The agents walking the navmesh (the world's NPCs, :mod:`voxelworld.game.npcs`), stepped once a frame by
        :meth:`step_crowd`; it follows every re-bake (puts its agents back on the navmesh, plans again).
    tiled : TiledNavMesh or None
        On a streaming navigation (``navigation_distance``), the tiles kept (``tiled.tiles``); None when baked
        whole.
    tiles_read, tiles_baked : int
        Streaming, the tiles taken from ``stored_tiles`` so far, and those baked (in a frame or ahead).

    Notes
    -----
    **Streaming.** With ``navigation_distance`` the navmesh holds only some tiles (:mod:`voxelworld.navigation.tiles`),
    each equal, bit for bit, to the same tile of a full bake of the whole world. :meth:`stream`, once a frame, drops
    the tiles farther (x-z, to the tile's edge) than ``navigation_distance`` plus one tile from every actor, and
    those a chunk they read no longer meshes, and bakes up to its budget of the missing tiles within
    ``navigation_distance`` of an actor, nearest first, each only once every chunk its bake reads (the tile, the
    bake's margin of :func:`~voxelworld.navigation.tiles.tile_margin` columns, the props reaching in, and the lower
    neighbours their collision meshes join) is meshed (:attr:`ChunkMesher.meshed <voxelworld.meshing.ChunkMesher.meshed>`).
    Agents never stand on a dropped tile (their own tiles are the nearest). An agent whose goal lies in a tile not
    baked walks to the baked navmesh's point nearest its goal, at the edge of what is baked, and plans again each
    time tiles are baked; standing there, it is *waiting* (:meth:`waiting`; ``"waiting"`` events instead of
    ``"arrived"`` or ``"blocked"``) until its goal's tile is baked. The collision meshes of the chunks the kept
    tiles read are held (:attr:`chunk_meshes`) and let go with the tiles.
    """

    # What the navigation keeps from frame to frame besides its navmesh (:meth:`state_dict`); the navmesh is
    # baked again from :attr:`chunk_meshes` (``baked_from``), the rest is what the constructor is given.
    STATE_ATTRIBUTES = ("revision", "_log")
    # Ranges: revision and the log's revisions counts (voxelworld.game.state_checks.MAX_COUNT at most).
    STATE_CHECKS = {"revision": count(), "log": sequence(pair(count(), set_of(sequence(whole(), tuple))), list)}
    # crowd: its agents' states are their NPCs' (NPC.state_dict), its own under the key "crowd"; _crowd_events:
    # the last step's events not yet taken (none between frames).
    OTHER_ATTRIBUTES = ("volume", "mesher", "settings", "region", "prop_min_height", "_props", "_chunk_meshes",
                        "_chunk_objects", "_whole_scene", "mesh", "crowd", "_crowd_events", "navigation_distance",
                        "tiles_per_frame", "tiled", "_baked_from", "_tile_chunks", "terrain_areas", "things",
                        "_ok_before", "_asked", "_streams", "tiles_taken_ahead", "_column_uses", "_bakeable_for", "_bakeable_seen",
                        "_preparing", "stored_tiles", "tiles_read", "tiles_baked")

    def __init__(self, volume: Volume, mesher: ChunkMesher, props: Iterable[SceneObject] = (),
                 settings: NavSettings = DEFAULT_SETTINGS, prop_min_height: float = 0.3,
                 region: SearchRegion | None = None, *, baked_from: Mapping | None = None,
                 navigation_distance: float | None = None, tiles_per_frame: int = 1, tiles: Iterable | None = None,
                 area_types: bool = True, things: GroundThings | None = None, meshed_tiles_only: bool = False,
                 stored_tiles: StoredTiles | None = None) -> None:
        if not isinstance(volume, Volume):
            raise ParameterError("volume", type(volume).__name__, "a voxelworld.terrain.VoxelVolume or SparseVolume")
        if not isinstance(mesher, ChunkMesher) or mesher.volume is not volume:
            raise ParameterError("mesher", type(mesher).__name__, "a ChunkMesher of this volume")
        if not isinstance(settings, NavSettings):
            raise ParameterError("settings", type(settings).__name__, "a voxelworld.navigation.NavSettings")
        self.prop_min_height = check_finite("prop_min_height", prop_min_height, minimum=0.0, unit="m")
        try:
            props = tuple(props)
        except TypeError:
            raise ParameterError("props", props, "an iterable of SceneObject") from None
        for index, prop in enumerate(props):
            if not isinstance(prop, SceneObject):
                raise ParameterError(f"props[{index}]", type(prop).__name__, "a voxelworld.navigation.SceneObject")
            if prop.name.startswith("terrain/"):
                raise ParameterError(f"props[{index}].name", prop.name, "a name not starting with 'terrain/'")
        if region is None:
            lo = np.asarray(volume.origin, dtype=float)
            hi = volume.index_to_world(np.array(volume.shape) - 1)
            region = SearchRegion((lo[0], lo[1] - 1.0, lo[2]), (hi[0], hi[1] + settings.clearance, hi[2]), landing=False)
        elif not isinstance(region, SearchRegion):
            raise ParameterError("region", type(region).__name__, "a SearchRegion or None")
        elif region.turned:  # before the bake: a Crowd walks upright navmeshes only
            raise ParameterError("region.rotation", region.rotation, "(0, 0, 0, 1), an upright region: the world's "
                                 "NPCs walk its navmesh as a Crowd, which walks upright navmeshes only")
        if navigation_distance is not None:
            navigation_distance = check_finite("navigation_distance", navigation_distance, minimum=0.0,
                                               strict_minimum=True, unit="m")
        self.navigation_distance = navigation_distance
        self.tiles_per_frame = check_integer("tiles_per_frame", tiles_per_frame, minimum=1)
        self.volume, self.mesher, self.settings, self.region = volume, mesher, settings, region
        self.things = things  # things on the ground, each an obstacle (game.ground_things; attach_things)
        self.terrain_areas = TerrainAreaTypes(volume.materials) if area_types else None
        self._props = tuple(self._prop(p) for p in props)
        grid = volume.chunk_grid_shape
        given = {}
        for chunk, mesh in dict(baked_from or {}).items():
            if not (isinstance(chunk, tuple) and len(chunk) == 3 and all(0 <= c < n for c, n in zip(chunk, grid))) \
                    or not (mesh is None or isinstance(mesh, CollisionMesh)):
                raise ParameterError("baked_from", chunk, f"chunks (i, j, k) of the grid {grid} mapped to a "
                                     "CollisionMesh or None")
            given[chunk] = mesh if mesh is None or mesh.triangle_count else None
        self.stored_tiles = stored_tiles
        self.tiles_read = self.tiles_baked = 0
        self.revision = 0
        self._log: deque[tuple[int, frozenset]] = deque(maxlen=LOG_LENGTH)
        self._tile_chunks: dict[tuple[int, int], tuple[int, int, int, int]] = {}  # tile -> chunk columns it reads
        self._ok_before: np.ndarray | None = None  # the meshed columns the last stream() saw (_unbakeable)
        self._column_uses: dict[tuple[int, int], int] = {}  # chunk column -> kept tiles reading it (_change)
        # The meshed columns _missing last saw, and which tiles it found bakeable with them.
        self._bakeable_for: np.ndarray | None = None
        self._bakeable_seen: np.ndarray | None = None
        # Tiles asked for: the stream() call that bakes each, and its bake on the navigation's thread (None: not
        # started: asked before a save). Counted by stream() calls, _streams.
        self._asked: dict[tuple[int, int], tuple[int, TileAhead | None]] = {}
        self._streams = 0
        # The collision meshes being made for the tiles asked for, by chunk (with its revision then): a tile asked
        # for later waits for them instead of making them again (neighbouring tiles read the same chunks).
        self._preparing: dict[tuple[int, int, int], tuple[PreparedCollision, int]] = {}
        self.tiles_taken_ahead = 0  # tiles a frame took from that thread (counted; not the game's state)
        self.tiled: TiledNavMesh | None
        if navigation_distance is None:
            self.tiled = None
            self._baked_from: dict = {}
            self._chunk_meshes = _chunk_collision_meshes(mesher, list(product(*(range(n) for n in grid))))
            self._chunk_meshes.update(given)
            self._chunk_objects: dict[tuple, SceneObject] = {}
            self._retyped(self._chunk_meshes)
            self._whole_scene: Scene | None = self._scene()
            self.mesh: NavMesh = bake(self.scene, region, settings)
        else:
            self.tiled = TiledNavMesh(region, settings)
            self._baked_from = given  # taken by the chunks as tiles first read them
            self._chunk_meshes, self._chunk_objects = {}, {}
            self._whole_scene = self._scene()
            self.mesh = self.tiled.mesh
            if tiles is not None:
                self._bake_given(tiles, meshed_tiles_only)
        self.crowd = Crowd(self.mesh, CROWD_SETTINGS)
        self._crowd_events: dict[int, list[CrowdEvent]] = {}  # agent -> events (looked up, never iterated)

    # ------------------------------------------------------------------------------------------- state
    @property
    def scene(self) -> Scene:
        """The scene the navmesh was last baked from (streaming: every chunk held and the props), made when asked
        for after a streaming change (only checks read it: each tile's bake reads its own chunks)."""
        if self._whole_scene is None:
            self._whole_scene = self._scene()
        return self._whole_scene

    @property
    def props(self) -> tuple[SceneObject, ...]:
        """The props baked, with the role decided for each (``prop_min_height``)."""
        return self._props

    @property
    def chunk_meshes(self) -> Mapping[tuple[int, int, int], CollisionMesh | None]:
        """A read-only view of the collision mesh each chunk was last baked from (None: no triangles), which
        is the mesher's but where the terrain changed since the last re-bake; a world file keeps those that differ
        and gives them back as ``baked_from``."""
        return MappingProxyType(self._chunk_meshes)

    def state_dict(self) -> dict:
        """What the navigation keeps from frame to frame besides its navmesh: ``revision``, ``log`` (a list of
        (revision, tiles changed) of the last :data:`LOG_LENGTH` re-bakes, oldest first) and ``crowd`` (the
        crowd's own state, ``Crowd.state_dict``; its agents' are their NPCs'); streaming, also ``tiles`` (kept)
        and ``asked`` (the tiles asked for and not baked yet, as [ti, tk, frames until their bake]) and ``streams``
        (the :meth:`stream` calls so far, which the frames tiles land in are multiples of)."""
        state = {"revision": self.revision, "log": list(self._log), "crowd": self.crowd.state_dict()}
        if self.tiled is not None:
            state["tiles"] = sorted(self.tiled.tiles)
            state["asked"] = [[ti, tk, at - self._streams] for (ti, tk), (at, _) in sorted(self._asked.items())]
            state["streams"] = self._streams
        return state

    def load_state_dict(self, state: object) -> None:
        """Take back a :meth:`state_dict`; ParameterError, before anything changes, for a missing key or a
        revision that is not a whole number >= 0. A state without ``crowd`` (saved before the crowd) leaves the
        crowd's as it is. ``tiles`` (a streaming navigation's) must be the tiles kept (the constructor bakes
        them: ``tiles``)."""
        if not (isinstance(state, Mapping) and "revision" in state and "log" in state):
            raise ParameterError("state", sorted(state) if isinstance(state, Mapping) else type(state).__name__,
                                 "a mapping with the keys revision, log")
        for key, check in self.STATE_CHECKS.items():
            check(f"state[{key!r}]", state[key])
        revision = check_integer("state['revision']", state["revision"], minimum=0)
        if "tiles" in state and (self.tiled is None or {tuple(t) for t in state["tiles"]} != set(self.tiled.tiles)):
            raise ParameterError("state['tiles']", state["tiles"], "the tiles this navigation keeps, "
                                 f"{sorted(self.tiled.tiles) if self.tiled is not None else 'none (baked whole)'}")
        asked = self._checked_asked(state.get("asked", []))
        streams = check_integer("state['streams']", state.get("streams", 0), minimum=0, maximum=MAX_COUNT)
        if "crowd" in state:
            self.crowd.load_state_dict(state["crowd"])
        self.revision, self._log = revision, deque(state["log"], maxlen=LOG_LENGTH)
        for job in self._asked.values():
            if job[1] is not None:
                job[1].future.cancel()
        # Baked in the frame their bake is due (started again from the loaded scene then: nothing runs meanwhile).
        self._streams = streams
        self._asked = {tile: (self._streams + frames, None) for tile, frames in asked.items()}
        self._preparing = {}

    def _checked_asked(self, asked: object) -> dict[tuple[int, int], int]:
        legal = (f"a list of [ti, tk, frames]: tiles of the grid {self.tiled.tile_grid if self.tiled else '(none)'}"
                 f" not kept, each once, and 1 <= frames <= {TILE_LAG + LANDING_EVERY - 1}")
        if not isinstance(asked, (list, tuple)) or (asked and self.tiled is None):
            raise ParameterError("state['asked']", asked, legal)
        out: dict[tuple[int, int], int] = {}
        for entry in asked:
            if not (isinstance(entry, (list, tuple)) and len(entry) == 3
                    and all(isinstance(v, int) and not isinstance(v, bool) for v in entry)):
                raise ParameterError("state['asked']", entry, legal)
            ti, tk, frames = entry
            assert self.tiled is not None  # (checked above: entries only when streaming)
            ntx, ntz = self.tiled.tile_grid
            if not (0 <= ti < ntx and 0 <= tk < ntz and 1 <= frames < TILE_LAG + LANDING_EVERY) or (ti, tk) in out \
                    or (ti, tk) in self.tiled.tiles:
                raise ParameterError("state['asked']", entry, legal)
            out[(ti, tk)] = frames
        return out

    # ------------------------------------------------------------------------------------------- crowd
    def add_agent(self, position: ArrayLike, radius: float, speed: float, arrival_distance: float, max_snap: float,
                  filter: QueryFilter | None = None) -> int:
        """Add an agent to the crowd at ``position`` (m), which must lie within ``max_snap`` m of the navmesh
        (of its polygons that ``filter``, a ``QueryFilter`` for its paths and moves, allows; ParameterError
        naming ``position``); returns its id (see ``Crowd.add_agent``, whose ranges the numbers are checked
        against before anything is baked). Streaming, where the tile under ``position`` is not kept, the tiles
        around it are baked now (:meth:`bake_around`)."""
        check_agent(radius, speed, arrival_distance=arrival_distance)
        max_snap = check_finite("max_snap", max_snap, minimum=0.0, unit="m")
        point = np.array(check_point("position", position))
        if self.tiled is not None:
            if self.tiled.tile_of(point) not in self.tiled.tiles:
                # A new place: its tiles now. Where its tile is kept (an actor waking once its tiles were baked, or
                # loaded) the streaming brings the rest at its pace, as it would have without a save.
                self.bake_around([point])
            if self.tiled.tile_of(point) not in self.tiled.tiles:
                raise ParameterError("position", tuple(point.tolist()), "a point whose navmesh tile can be baked: "
                                     "every chunk its bake reads meshed (near the world's actors)")
        snapped, polygon = NavQuery(self.mesh).nearest_point(point, filter)
        if polygon < 0 or not np.linalg.norm(snapped - point) <= max_snap:
            raise ParameterError("position", tuple(point.tolist()), f"a point within max_snap = {max_snap} m of the "
                                 "navmesh")
        return self.crowd.add_agent(snapped, radius, speed, arrival_distance=arrival_distance, filter=filter)

    def step_crowd(self, dt: float) -> None:
        """Step the crowd for ``dt`` s (> 0); each agent's events wait for :meth:`take_events`."""
        self._crowd_events = {}
        for event in self.crowd.step(dt):
            if event.kind in ("arrived", "blocked") and self.waiting(event.agent):
                event = CrowdEvent(event.agent, "waiting", event.position, event.time)
            self._crowd_events.setdefault(event.agent, []).append(event)

    def waiting(self, agent: int) -> bool:
        """Whether agent ``agent`` stopped short of its goal because the goal's tile is not baked (a streaming
        navigation; see the class's notes): it plans again as tiles are baked."""
        if self.tiled is None or self.crowd.state(agent) not in ("arrived", "blocked"):
            return False
        goal = self.crowd.goal(agent)
        return goal is not None and self.tiled.tile_of(goal) not in self.tiled.tiles

    def take_events(self, agent: int) -> list[CrowdEvent]:
        """Agent ``agent``'s events of the last :meth:`step_crowd` (each given once)."""
        return self._crowd_events.pop(agent, [])

    # ------------------------------------------------------------------------------------------- scene
    def _prop(self, prop: SceneObject) -> SceneObject:
        if prop.role == "exception" or not len(prop.positions):
            return prop
        height = float(prop.positions[:, 1].max() - prop.positions[:, 1].min())
        role = "obstacle" if height > self.prop_min_height else "floor"
        return prop if role == prop.role else SceneObject(prop.name, prop.positions, prop.indices, role,
                                                          prop.area_type)

    def _retyped(self, chunks: Iterable[tuple]) -> tuple[np.ndarray, np.ndarray] | None:
        """Make the scene objects of ``chunks`` (whose collision meshes changed) again, and of the chunks around
        them whose triangles' area types changed with them; returns the box (lo, hi) of the triangles whose types
        changed (None: none did)."""
        lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
        new, moved = _terrain_objects(self.terrain_areas, self._chunk_meshes, chunks)
        for chunk, obj in new.items():
            was = self._chunk_objects.pop(chunk, None)
            if obj is not None:
                self._chunk_objects[chunk] = obj
            if not moved or was is None or obj is None or one_type(was) == one_type(obj) != -1:
                continue  # (the mesh's own change holds every triangle that came or went)
            bounds = changed_box((was.positions, was.indices, was.triangle_area_type),
                                 (obj.positions, obj.indices, obj.triangle_area_type))
            if bounds is not None:
                lo, hi = np.minimum(lo, bounds[0]), np.maximum(hi, bounds[1])
        return (lo, hi) if np.all(np.isfinite(lo)) else None

    def _scene(self, chunks: Iterable[tuple[int, int, int]] | None = None) -> Scene:
        """The scene of ``chunks`` (None: every chunk held), the props and the things on those chunks' ground."""
        return Scene(self._scene_objects(chunks))

    def _scene_objects(self, chunks: Iterable[tuple[int, int, int]] | None = None) -> list[SceneObject]:
        """The objects of :meth:`_scene`: the terrain objects of ``chunks`` held, in order, the props, the things."""
        chunks = sorted(self._chunk_objects) if chunks is None else [c for c in chunks if c in self._chunk_objects]
        return [self._chunk_objects[c] for c in chunks] + list(self._props) + self._things_on(chunks)

    def _things_on(self, chunks: list[tuple[int, int, int]]) -> list[SceneObject]:
        """The things on the ground of ``chunks`` (every thing when baked whole), as obstacles."""
        if self.things is None:
            return []
        return self.things.obstacles(None if self.tiled is None else self.things.chunk_columns(chunks))

    def attach_things(self, things: GroundThings) -> None:
        """Bake ``things`` (a world's things on the ground) in as obstacles, now and at every bake after."""
        self.things = things
        self.things_changed(self.region.min, self.region.max)  # every tile

    def things_changed(self, lo: ArrayLike, hi: ArrayLike) -> list[tuple[int, int, int]]:
        """Re-bake where things on the ground fell or went (the box ``lo``..``hi``, m); returns the tiles changed."""
        low, high = np.asarray(lo, float), np.asarray(hi, float)
        if self.tiled is not None:
            box = (float(low[0]), float(low[2]), float(high[0]), float(high[2]))
            return self._change(self.tiled.tiles_reading(box), [])
        self._whole_scene = self._scene()
        tiles = self.mesh.rebake((low, high), self.scene)
        self._logged(tiles)
        return tiles

    # ------------------------------------------------------------------------------------------ update
    def update(self, chunks: Iterable) -> list[tuple[int, int, int]]:
        """Re-bake where the terrain changed; returns the tiles whose polygons changed, as (area, ti, tk).
        (At once, not asked for: the collision meshes kept are what the navmesh was baked from, which a world file
        keeps; a loaded world bakes the same navmesh from them.)

        Parameters
        ----------
        chunks : iterable of (i, j, k)
            The chunks whose voxels changed (``EditResult.dirty_chunks``, ``VoxelVolume.take_dirty_chunks()`` or
            ``MeshUpdate.surfaces_rebuilt``), after ``mesher.update()``. A chunk's collision mesh also joins
            its lower neighbours' vertices, so the chunks one above each are checked too; only chunks whose
            collision mesh really changed replace their scene object.
        """
        grid = np.array(self.volume.chunk_grid_shape)
        try:
            given = {tuple(int(c) for c in chunk) for chunk in chunks}
        except (TypeError, ValueError):
            raise ParameterError("chunks", chunks, "an iterable of chunk indices (i, j, k)") from None
        for chunk in sorted(given):
            if len(chunk) != 3 or any(c < 0 or c >= n for c, n in zip(chunk, grid)):
                raise ParameterError("chunks", chunk, f"chunk indices (i, j, k) within the grid {tuple(grid)}")
        gx, gy, gz = (int(n) for n in grid)
        near = sorted({(i + a, j + b, k + c) for i, j, k in given for a, b, c in _UPPER
                       if i + a < gx and j + b < gy and k + c < gz})
        if self.tiled is not None:  # only the chunks the kept tiles read, where they are still meshed
            meshed = self.mesher.meshed
            near = [c for c in near if c in self._chunk_meshes and meshed[c]]
        fresh = _chunk_collision_meshes(self.mesher, near)
        boxes: list[tuple[np.ndarray, np.ndarray]] = []  # where triangles changed, chunk by chunk
        retype = []
        for chunk, mesh in fresh.items():
            old = self._chunk_meshes.get(chunk)
            if _same_mesh(old, mesh):
                continue
            bounds = _changed_bounds(old, mesh)  # the same triangles in another order change nothing
            if bounds is not None:
                boxes.append(bounds)
            self._chunk_meshes[chunk] = mesh
            retype.append(chunk)
        before = dict(self._chunk_objects) if self.tiled is not None else {}
        typed = self._retyped(retype)  # triangles whose types changed
        if typed is not None:
            boxes.append(typed)
        if not boxes:
            return []
        if self.tiled is not None:
            # Box by box (digs far apart, by enemies at their outcrops, do not re-bake every tile between them):
            # the tiles reading a box are baked again where the change there can alter them.
            self._whole_scene = None  # (its chunks' objects changed)
            bake: set[tuple[int, int]] = set()
            for lo, hi in merged_boxes(boxes, self.tile_size, axes=(0, 2)):  # (on the x-z plane)
                reading = self.tiled.tiles_reading((lo[0], lo[2], hi[0], hi[2]))
                if reading and not set(reading) <= bake and self._reaches_tiles(reading, before, lo, hi):
                    bake.update(reading)
            return self._change(sorted(bake), [])
        lo, hi = np.min([b[0] for b in boxes], axis=0), np.max([b[1] for b in boxes], axis=0)
        self._whole_scene = self._scene()
        tiles = self.mesh.rebake((lo, hi), self.scene)
        self._logged(tiles)
        return tiles

    def _logged(self, tiles: Collection[tuple[int, int, int]]) -> None:
        if tiles:
            self.revision += 1
            self._log.append((self.revision, frozenset(tiles)))

    def full_bake(self) -> NavMesh:
        """A fresh full bake of the current scene (what :meth:`update` must equal; for checks). Streaming, the
        scene holds only the chunks the kept tiles read: its tiles under the kept ones are theirs."""
        return bake(self.scene, self.region, self.settings)

    # ------------------------------------------------------------------------------------------- tiles
    @property
    def tile_size(self) -> float:
        """The edge of a navmesh tile in metres (``TILE_CELLS`` ray columns)."""
        return TILE_CELLS * self.settings.cell_size

    def changed_since(self, revision: int) -> frozenset | None:
        """The tiles re-baked by the updates after ``revision``; None when the log (the last 64 updates) no
        longer reaches back that far (re-plan in any case)."""
        if revision >= self.revision:
            return frozenset()
        if not self._log or self._log[0][0] > revision + 1:
            return None
        return frozenset().union(*(tiles for number, tiles in self._log if number > revision))

    def tiles_crossed(self, points: ArrayLike) -> frozenset:
        """The tiles (0, ti, tk) that a polyline through ``points`` ((n, 3), m) may cross: those touched by each
        segment's x-z bounding box, widened by one ray cell (conservative)."""
        points = np.asarray(points, dtype=float).reshape(-1, 3)
        size, cell = self.tile_size, self.settings.cell_size
        x0, z0 = self.region.min[0], self.region.min[2]
        segments = list(zip(points[:-1], points[1:])) if len(points) > 1 else [(p, p) for p in points]
        tiles: set[tuple[int, int, int]] = set()
        for a, b in segments:
            i0, i1 = (int(np.floor((x - x0) / size)) for x in (min(a[0], b[0]) - cell, max(a[0], b[0]) + cell))
            k0, k1 = (int(np.floor((z - z0) / size)) for z in (min(a[2], b[2]) - cell, max(a[2], b[2]) + cell))
            tiles.update((0, i, k) for i in range(i0, i1 + 1) for k in range(k0, k1 + 1))
        return frozenset(tiles)
