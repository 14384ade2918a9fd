"""`World`: one deterministic, headless game world: terrain, meshes, collisions, the player, events.

A frame (:meth:`World.step`) runs the design's fifteen steps S1-S15 in order, one stage each (``World.STAGES``);
handlers added with :meth:`World.add_handler` run at the end of the stage they name, in the order they were
added, each called as ``handler(world, inputs)``, and ``world.stage`` names the stage running:

1. ``"inputs"``: the frame's :class:`Inputs` are checked and read (the view turns).
2. ``"objects"``: per object, velocity and the effects of last frame's contacts (the player's stick, jump,
   gravity, contact damage, sprint cost).
3. ``"update_ranges"``: the update events queued with :meth:`World.queue_edit` (by last frame's event processing)
   become this frame's update ranges (``world.update_ranges``): density ranges (remove, add, scrape), then
   material ranges (paint, expose_interior, convert), then fragment erasure, each group in queue order.
4. ``"density_updates"``: the density ranges are applied.
5. ``"material_updates"``: the material ranges are applied.
6. ``"fragment_erasure"``: the fragment erasures are applied. Every applied edit is a ``VoxelsEdited`` event and
   an entry of ``world.applied_edits``; the edits' callbacks only report what they did.
7. ``"vertices"``: the dual vertices of the chunks that read a changed voxel are refreshed
   (:meth:`~voxelworld.meshing.ChunkMesher.refresh_vertices`; ``world.rebuilt_chunks``).
8. ``"simplified_vertices"``: those vertices are simplified for the display mesh.
9. ``"display_mesh"``: the display meshes of the changed chunks are assembled (``world.changed_chunks``).
10. ``"collision_mesh"``: the collision mesh near the actors; its :class:`~voxelworld.collision.TriangleBVH` is
    rebuilt only when its chunks changed or the actors left its region (the navmesh is re-baked here too).
11. ``"collisions"``: the player's move swept with its velocity against the collision mesh and props.
12. ``"control"``: the player's control after the move: footsteps, contacts and stamina, then the buttons are
    read and the actions start (:meth:`~voxelworld.game.play.PlayerActions.act`): throw, readying a bullet on
    stance, punch, pull-out, use and suck queue their edits (update events for the next frame).
13. ``"deformation"``: deformation bookkeeping of what this frame's updates removed: suck's update and bullet
    counting, treasure placement and the group awards (:meth:`~voxelworld.game.play.PlayerActions.book`).
14. ``"events"``: event processing, then the other objects move: the held, loose and thrown objects, NPCs walk
    and enemies swing.
15. ``"snapshot"``: what a renderer needs (:meth:`World.snapshot`).

A play ends with :meth:`World.end` (the design's end step, not a stage of a frame): a ``PlayEnded`` event sums
the play up; whoever runs the play saves the world then if it has a save path (``voxelworld play`` on Ctrl+C or
when its last page leaves, ``voxelworld demo`` after its last frame).

The same level, seed and inputs give the same event log and the same voxels, bit for bit.

Examples
--------
>>> world = World.demo(seed=0)
>>> events = [world.step(Inputs(move=(0.0, 1.0))) for _ in range(60)]
>>> world.frame, round(float(world.time), 6)
(60, 1.0)
>>> sorted({type(e).__name__ for frame in events for e in frame})  # the enemy carves the wall
['ContactStarted', 'EnemyChanged', 'Footstep', 'Landed', 'VoxelsEdited']
>>> events = [world.step(Inputs(look=(270.0, -30.0), suck=True)) for _ in range(60)]  # suck the ground ahead
>>> world.actions.suck.bullets[:2], sorted(world.achievements())  # bullets of soil; grass is "vegetation"
(('soil', 'soil'), ['soil', 'vegetation'])
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..attribute_state import attribute_state, flag, instance, restore_attributes, sequence, set_of, whole
from ..errors import ParameterError, check_finite, check_integer, check_range
from ..frame_first import frame_running
from ..meshing import ChunkMesher, PreparedChanges
from ..meshing.baked import BakedMeshes
from ..terrain import EditResult, GeneratorSettings, MaterialTable, SparseVolume, Volume, VoxelVolume
from .agents import Agents
from .aim import aim_info, as_point, voxel_along
from .collider import Collider, boxes_key, chunk_bvhs, focus_boxes, prop_bvh
from .detail import WantedLevels, next_levels, wanted_levels, wanted_levels_since
from .edits import VoxelEdit
from .events import Event, PlayEnded, VoxelsEdited, log_hash
from .ground_things import GroundThings
from .inputs import Inputs
from .kerf_marks import CutMarks
from .level import Level, Prop, demo_level, surface_height
from .nav_stored import StoredTiles
from .objects import ObjectTransform
from .play import PlayerActions
from .player import Player
from .poses import pose_characters
from .progress import attach_progress
from .reports import AimInfo, Snapshot
from .seats import Seat, each_player, every_actions, inputs_of, join, leave, play_ended, player_points, seat_inputs
from .settings import WorldSettings
from .state_checks import check_inside, check_props, check_world_state, count, generator_of_state, seconds
from .streaming import Streaming, release_freed_memory_aside

__all__ = ["World", "WorldSettings", "Inputs", "VoxelEdit", "Collider", "AimInfo", "Snapshot", "ObjectTransform"]

RELEASE_EVERY_FRAMES = 64  # frames between handing freed memory back while streaming (release_freed_memory)

# The design's steps S1..S15, one stage each (see the module docstring).
STAGES = ("inputs", "objects", "update_ranges", "density_updates", "material_updates", "fragment_erasure", "vertices",
          "simplified_vertices", "display_mesh", "collision_mesh", "collisions", "control", "deformation", "events",
          "snapshot")


def _look(player: Player, inputs: Inputs) -> None:
    """The view turns as ``inputs`` say (S1)."""
    if inputs.look is not None:
        player.yaw, player.pitch = inputs.look[0] % 360.0, inputs.look[1]


class World(Streaming):
    """A game world on a voxel terrain; see the module docstring for the frame.

    Parameters
    ----------
    volume : VoxelVolume or SparseVolume
        The terrain; the world edits it in place.
    materials : MaterialTable or None
        The table the volume's material ids refer to (the volume's own when None).
    props : sequence of Prop
        Static triangle meshes (tables, crates) with unique names and materials of the table.
    seed : int
        Seed (>= 0) of ``world.rng``, the one random generator handlers draw from.
    settings : WorldSettings
    spawn : (3,) float, optional
        The player's feet (m; in the volume's box or 64 m around it); by default on the surface mid-volume.
    spawn_yaw : float
        The player's view yaw (degrees).
    baked : BakedMeshes or None
        Display meshes baked ahead of time (``voxelworld bake``; :func:`voxelworld.io.load_world` passes a world
        file's): the mesher takes them where they are what it would make (``mesher.baked``,
        :mod:`voxelworld.meshing.baked`), from the first chunks it meshes on.
    stored_tiles : StoredTiles or None
        Navmesh tiles baked ahead of time (the same world file's bake): a streaming world's navmesh takes them where
        they are what it would bake (:mod:`voxelworld.game.nav_stored`).

    Attributes
    ----------
    player : Player
    actions : PlayerActions
        The player's punch, pull-out, suck, stance and throw, bullets, held and loose objects, treasures and
        awards (run in the "control", "deformation" and "events" stages).
    joined : list of Seat
        The players who joined besides the world's own (:meth:`join`, :mod:`voxelworld.game.seats`).
    agents : Agents
        NPCs (``agents.add_npc``) on the world's navmesh and chainsaw enemies (``agents.add_enemy``).
    mesher : ChunkMesher
        Display meshes per chunk (``mesher.meshes``) for renderers.
    collider : Collider
        The collision triangles near the actors (terrain + props).
    events : list of Event
        Every event so far (the log), in order.
    frame, time : int, float
        Frames stepped and the world time (s) at the start of the next frame.
    inputs, previous_inputs : Inputs
        This frame's and the last frame's inputs.
    stage : str or None
        The stage running now (one of ``World.STAGES``), None between frames.
    update_ranges : tuple of VoxelEdit
        The edits of the last "update_ranges" stage, in the order they are applied.
    applied_edits : list of (VoxelEdit, EditResult)
        The edits the last update stages applied, in order.
    changed_chunks, rebuilt_chunks : frozenset of (i, j, k)
        The chunks whose display mesh the last frame rebuilt, and those whose vertices it refreshed.
    rng : numpy.random.Generator
    generator : GeneratorSettings or None
        The world generator's settings of a generated world (:func:`voxelworld.game.populate.populate`), else None.
    ground_things : GroundThings or None
        Its trees, bushes, rocks and crates (:mod:`voxelworld.game.ground_things`); None without a generator.
    """

    STAGES = STAGES
    # What the world keeps from frame to frame as it is (:meth:`state_dict`, which adds the random generator's
    # state and the collider's chunks); the other attributes are given to the constructor, rebuilt by it, the
    # parts that hand over their own states (volume, player, actions, agents), the event log and the queued
    # edits (public: ``events``, ``queued_edits``), or the last frame's scratch.
    STATE_ATTRIBUTES = ("seed", "frame", "time", "dt", "inputs", "previous_inputs", "changed_chunks",
                        "rebuilt_chunks", "_snapshot", "_stream_step_owed")
    # Checks (name, value), and '*': check_world_state(world, name, state).
    STATE_CHECKS: dict[str, Callable[..., None]] = {
        "seed": whole(0), "frame": count(), "time": seconds(), "dt": seconds(), "inputs": instance(Inputs),
        "previous_inputs": instance(Inputs), "changed_chunks": set_of(sequence(whole(0), tuple, 3)),
        "rebuilt_chunks": set_of(sequence(whole(0), tuple, 3)), "*": check_world_state,
        "snapshot": instance(Snapshot, frame=count(), time=seconds()), "stream_step_owed": flag}
    OTHER_ATTRIBUTES = ("rng", "_collider_key", "collider", "_prop_bvh", "volume", "materials", "props", "settings",
                        "player", "actions", "joined", "agents", "events", "_queue", "_queued_by", "mesher", "acting",
                        "_range_owners", "applied_edits", "_handlers", "_focus_sources", "_object_sources",
                        "_frame_events", "stage", "update_ranges", "_stream_anchor", "_stream_wanted", "_wanted_detail",
                        "_detail_settled", "_streamed", "_prepared", "_prepared_frame", "_prepared_clock", "_job_rate",
                        "_stream_orders", "_activation_costs", "cut_marks", "generator", "ground_things",
                        "stored_tiles")

    def __init__(self, volume: VoxelVolume | SparseVolume, materials: MaterialTable | None = None,
                 props: Iterable[Prop] = (), seed: int = 0, settings: WorldSettings = WorldSettings(),
                 spawn: ArrayLike | None = None, spawn_yaw: float = 0.0, baked: BakedMeshes | None = None,
                 stored_tiles: StoredTiles | None = None) -> None:
        check_range("volume", volume, "a voxelworld.terrain.VoxelVolume or SparseVolume", isinstance(volume, Volume))
        materials = volume.materials if materials is None else materials
        check_range("materials", materials, "a MaterialTable or None", isinstance(materials, MaterialTable))
        check_range("settings", settings, "a WorldSettings", isinstance(settings, WorldSettings))
        props = check_props(props, materials)
        self.seed = check_integer("seed", seed, minimum=0)
        if spawn is None:
            x, z = volume.index_to_world(np.array(volume.shape) / 2 - 0.5)[[0, 2]]
            ground = surface_height(volume, float(x), float(z))
            spawn = (float(x), float(volume.origin[1]) if ground is None else ground, float(z))
        self.volume, self.materials, self.props, self.settings = volume, materials, props, settings
        self.player = Player(spawn, spawn_yaw, settings.player, materials)
        self.player.bounds = (volume.origin.copy(), volume.index_to_world(np.array(volume.shape) - 1))
        check_inside("spawn", spawn, self.player.bounds)  # (state_checks.POSITION_MARGIN m around it)
        self.joined: list[Seat] = []  # the players who joined besides the world's own (join), in joining order
        self.rng = np.random.default_rng(self.seed)
        self.mesher = ChunkMesher(volume, materials, settings.mesh_options, refresh_interval=settings.remesh_interval)
        check_range("baked", baked, "a voxelworld.meshing.baked.BakedMeshes or None",
                    baked is None or isinstance(baked, BakedMeshes))
        self.mesher.baked = baked
        check_range("stored_tiles", stored_tiles, "a voxelworld.game.nav_stored.StoredTiles or None",
                    stored_tiles is None or isinstance(stored_tiles, StoredTiles))
        self.stored_tiles = stored_tiles
        self._wanted_detail: WantedLevels | None = None  # the display levels the actors' places want (kept)
        # (_wanted_detail.levels, the mesher's display_levels_revision) when they were found equal (_choose_detail)
        self._detail_settled: tuple[np.ndarray, int] | None = None
        self.mesher.set_display_levels(wanted_levels(volume, [self.player.position], settings.detail_radius,
                                                     settings.mesh_options.levels))
        self._stream_anchor: np.ndarray | None = None  # where the actors were when the streamed chunks were chosen
        self._stream_wanted: tuple[tuple[np.ndarray, np.ndarray] | None, np.ndarray | None, np.ndarray | None] = (
            None, None, None)
        self._stream_orders: dict = {}  # the order chunks stream in, kept between steps (Streaming._budgeted)
        self._activation_costs: tuple[int, np.ndarray] | None = None  # (volume.revision, costs) (Streaming)
        self._streamed = False  # whether chunks streamed since the freed memory was last handed back
        self._prepared: PreparedChanges | None = None  # streaming changes the mesher works out (stream)
        self._prepared_frame = 0
        self._prepared_clock: list[float] = []
        self._job_rate: float | None = None  # (Streaming._job_budget)
        self._stream_step_owed = False  # a streaming step a frame with edits left to the next (Streaming.stream)
        self.generator: GeneratorSettings | None = None  # a generated world's generator (game.populate)
        self.ground_things: GroundThings | None = None  # its things on the ground (game.ground_things)
        self._stream_all()
        self.events: list[Event] = []
        self.frame, self.time, self.dt = 0, 0.0, 0.0
        self.inputs = self.previous_inputs = Inputs()
        self.stage: str | None = None
        self.update_ranges: tuple[VoxelEdit, ...] = ()
        self._range_owners: tuple[str, ...] = ()  # whose each of update_ranges is (queue_edit)
        self.acting = ""  # the name of the player whose part of the frame runs (emit), "" for the world's own
        self.applied_edits: list[tuple[VoxelEdit, EditResult]] = []
        self.changed_chunks: frozenset = frozenset()
        self.rebuilt_chunks: frozenset = frozenset()
        self._handlers: dict[str, list[tuple[Callable, Player | None]]] = {stage: [] for stage in STAGES}
        self._focus_sources: list[Callable[[World], Iterable[ArrayLike]]] = []  # callables (world) -> points
        self._object_sources: list[Callable[[World], Iterable[ObjectTransform]]] = []  # (world) -> ObjectTransforms
        self._queue: list[VoxelEdit] = []
        self._queued_by: list[str] = []  # whose action made each queued edit (queue_edit)
        self._frame_events: list[Event] = []
        self._collider_key: tuple | None = None
        self._prop_bvh = prop_bvh(props, materials)
        self._refresh_collider(force=True)
        self.actions = PlayerActions(settings.actions)
        self.actions.attach(self)
        attach_progress(self, self.actions)  # the shop's purchases ("control") and the goals ("events")
        self.agents = Agents(self)
        self.cut_marks = CutMarks(settings.cut_marks)  # where the enemies cut (kerf_marks): the page darkens it
        self._snapshot = self._take_snapshot()

    @classmethod
    def demo(cls, seed: int = 0, settings: WorldSettings = WorldSettings(), npcs: int = 3) -> World:
        """The demo level (:func:`~voxelworld.game.level.demo_level`): the player at its start, ``npcs`` NPCs
        (0..8) patrolling and a chainsaw enemy at the rock wall."""
        return cls.from_level(demo_level(seed, npcs=npcs), seed=seed, settings=settings)

    @classmethod
    def from_level(cls, level: Level, seed: int = 0, settings: WorldSettings = WorldSettings()) -> World:
        """A world on ``level``'s terrain, props and player start, with its NPCs patrolling and its enemies."""
        check_range("level", level, "a Level", isinstance(level, Level))
        world = cls(level.volume, level.materials, level.props, seed, settings, level.spawn, level.spawn_yaw)
        for route in level.routes:
            world.agents.add_npc(route.name, route.start, route.goal, patrol=True)
        for spot in level.enemies:
            world.agents.add_enemy(spot.name, spot.position, spot.facing, world.settings.chainsaw)
        return world

    # ------------------------------------------------------------------------------------------ state
    def state_dict(self) -> dict:
        """What the world itself keeps from frame to frame (``STATE_ATTRIBUTES``; a private attribute's key has
        no leading underscore), the state of its random generator (``rng``) and the chunks of its collider
        (``collider_chunks``). Its parts hand over their own (``volume``, ``player``, ``actions``, ``agents``);
        ``events`` and ``queued_edits`` are public. :func:`voxelworld.io.save_world` saves them all. ``cut_marks``:
        the enemies' cut marks (:class:`~voxelworld.game.kerf_marks.CutMarks`; a state without it loads with none)."""
        key = self._collider_key
        assert key is not None  # the constructor's _refresh_collider set it
        return attribute_state(self, self.STATE_ATTRIBUTES) | {"rng": self.rng.bit_generator.state,
                                                                "collider_chunks": tuple(key[0]),
                                                                "cut_marks": self.cut_marks.state_dict()}

    def load_state_dict(self, state: object) -> None:
        """Take back a :meth:`state_dict` (the world's parts and chunk meshes as they were). ParameterError, before
        anything changes, for a missing key, a value out of range, an unknown bit generator or a chunk off the grid."""
        if not (isinstance(state, Mapping) and "rng" in state and "collider_chunks" in state):
            raise ParameterError("state", sorted(state) if isinstance(state, Mapping) else type(state).__name__,
                                 "a mapping with the keys rng, collider_chunks (and STATE_ATTRIBUTES)")
        rng = generator_of_state(state["rng"])
        grid = self.volume.chunk_grid_shape
        chunks = tuple(state["collider_chunks"])
        for chunk in chunks:
            check_range("state['collider_chunks']", chunk, f"chunks (i, j, k) of the grid {grid}",
                        isinstance(chunk, tuple) and len(chunk) == 3 and all(
                            isinstance(c, int) and 0 <= c < n for c, n in zip(chunk, grid)))
        marks = state.get("cut_marks", {"marks": np.zeros((0, 7)), "total": 0})  # none before issue 32
        self.cut_marks.check_state("state['cut_marks']", marks, self.volume)
        restore_attributes(self, state, self.STATE_ATTRIBUTES, added=("_stream_step_owed",), checks=self.STATE_CHECKS)
        self.cut_marks.load_state_dict(marks, self.volume)
        self.rng = rng
        revisions = np.array([self.mesher.collision_revision(c) for c in chunks], dtype=np.int64)
        self.collider = Collider(chunk_bvhs(self.mesher).parts((chunks, revisions.tobytes())), self._prop_bvh,
                                 self.materials)
        # The same chunks, with no revisions: the next frame rebuilds the collider from its own box, which gives
        # what the saved world's would hold then (rebuilt or kept, it is made of the current chunks' meshes).
        self._collider_key = (chunks, None)

    # ------------------------------------------------------------------------------------------ hooks
    def add_handler(self, handler: Callable, stage: str = "events", player: Player | None = None) -> None:
        """Call ``handler(world, inputs)`` every frame at the end of ``stage`` (one of ``World.STAGES``): actions
        that read the buttons, and objects that move, belong in "events"; bookkeeping of what the frame's edits
        removed in "deformation". A ``player``'s handler is given that player's inputs and runs as it: the events
        it emits are the player's (:attr:`acting`); otherwise ``inputs`` are the world's own player's."""
        check_range("stage", stage, f"one of {', '.join(STAGES)}", stage in STAGES)
        check_range("handler", handler, "a callable (world, inputs)", callable(handler))
        check_range("player", player, "a Player or None", player is None or isinstance(player, Player))
        self._handlers[stage].append((handler, player))

    def add_collision_focus(self, source: Callable[[World], Iterable[ArrayLike]]) -> None:
        """``source(world)`` gives points (m) besides the player around which collision triangles are kept
        (NPCs, an enemy's blade)."""
        check_range("source", source, "a callable (world) -> points", callable(source))
        self._focus_sources.append(source)

    def add_object_source(self, source: Callable[[World], Iterable[ObjectTransform]]) -> None:
        """``source(world)`` gives the :class:`ObjectTransform` values a snapshot lists."""
        check_range("source", source, "a callable (world) -> ObjectTransforms", callable(source))
        self._object_sources.append(source)

    def queue_edit(self, edit: VoxelEdit, player: Player | None = None) -> None:
        """Queue ``edit`` for the next "update_ranges" stage (the next frame's, when called from a handler of
        that stage or a later one); ``player``: whose action made it, if a player's (a save keeps it, so that the
        edit's report goes to that player's actions again, :meth:`queued_by`)."""
        check_range("edit", edit, "a VoxelEdit", isinstance(edit, VoxelEdit))
        name = "" if player is None else next((n for n, p in self.players() if p is player), None)
        check_range("player", player, "a player of this world (World.players) or None", name is not None)
        edit.check_materials(self.volume)  # raises for an unknown material, before anything is queued
        self._queue.append(edit)
        self._queued_by.append(str(name))

    def queued_by(self) -> tuple[str, ...]:
        """Whose action made each of :attr:`queued_edits`: a player's name (World.players), or "" (an enemy's
        carve, an edit queued by a handler)."""
        return tuple(self._queued_by)

    @property
    def queued_edits(self) -> tuple[VoxelEdit, ...]:
        return tuple(self._queue)

    @property
    def frame_events(self) -> tuple[Event, ...]:
        """The events of the last frame (what :meth:`step` returned; during a frame, those so far)."""
        return tuple(self._frame_events)

    def emit(self, event_type: type[Event], **values: Any) -> Event:
        """Create an event of ``event_type`` for the current frame and add it to the frame's events; it is the
        ``player`` given, else the :attr:`acting` player's."""
        values.setdefault("player", self.acting)
        event = event_type(frame=self.frame, time=self.time, **values)
        self._frame_events.append(event)
        return event

    # ------------------------------------------------------------------------------------------ frame
    def step(self, inputs: Inputs | Sequence[Inputs] | None = None, dt: float = 1 / 60) -> list[Event]:
        """Run one frame (stages in ``World.STAGES`` order) and return its events. ``inputs``: the world's own
        player's (the joined players' none pressed), or one per player in :meth:`players` order. Bad ``inputs`` or
        ``dt`` raise :class:`ParameterError` before anything changes."""
        given = seat_inputs(self, inputs)
        inputs = given[0]
        dt = check_finite("dt", dt, minimum=0.0, maximum=self.settings.max_dt, strict_minimum=True, unit="s")
        self._frame_events = []
        self.dt = dt
        self.previous_inputs, self.inputs = self.inputs, inputs
        for seat, its in zip(self.joined, given[1:]):
            seat.previous_inputs, seat.inputs = seat.inputs, its
        emit, players = self.emit, [(player, its) for (_, player), its in zip(self.players(), given)]

        def each(do: Callable[[Player, Inputs], None]) -> Callable[[], None]:  # a stage's part for every player
            return lambda: each_player(self, players, do)
        with frame_running():  # the background threads wait meanwhile (voxelworld.frame_first)
            self._stage("inputs", inputs, each(_look))  # S1
            self._stage("objects", inputs, each(lambda player, its: player.begin_frame(
                its.move, its.sprint, its.jump, dt, emit)))  # S2
            self._stage("update_ranges", inputs, self._take_queue)  # S3
            self._stage("density_updates", inputs, lambda: self._apply_edits(0))  # S4
            self._stage("material_updates", inputs, lambda: self._apply_edits(1))  # S5
            self._stage("fragment_erasure", inputs, lambda: self._apply_edits(2))  # S6
            self._stage("vertices", inputs, self._refresh_vertices)  # S7
            self._stage("simplified_vertices", inputs, self.mesher.simplify_vertices)  # S8
            self._stage("display_mesh", inputs, self._build_display_meshes)  # S9
            self._stage("collision_mesh", inputs, self._refresh_collider)  # S10
            self._stage("collisions", inputs, each(lambda player, _: player.collide(self.collider, dt, emit)))  # S11
            self._stage("control", inputs, each(lambda player, _: player.control(emit)))
            # S12, then the handlers' (each player's PlayerActions.act, in joining order)
            self._stage("deformation", inputs, None)  # S13: the handlers' (PlayerActions.book)
            self._stage("events", inputs, None)  # S14: the handlers' (objects, agents)
            self._stage("snapshot", inputs, self._snapshot_stage)  # S15
        self.stage = None
        self.frame += 1
        self.time += dt
        self.events.extend(self._frame_events)
        return self._frame_events

    def end(self, reason: str = "stopped") -> PlayEnded:
        """The design's end step: a play ends (the server stopped, its last page left, a script's last frame).
        Returns the ``PlayEnded`` event summing the world's own player's play up, appended to ``world.events`` with
        one for each joined player after it; nothing else changes, so the world may step on (a new play). Saving is
        the caller's (:func:`voxelworld.io.save_world`). ``reason``: a non-empty string of at most 64 characters.

        Examples
        --------
        >>> world = World.demo(seed=0)
        >>> _ = [world.step(Inputs(move=(0.0, 1.0))) for _ in range(10)]
        >>> summary = world.end("finished")
        >>> summary.reason, summary.frames, summary.treasures_opened, world.events[-1] is summary
        ('finished', 10, 0, True)
        """
        check_range("reason", reason, "a string of 1 to 64 characters",
                    isinstance(reason, str) and 0 < len(reason) <= 64)
        check_range("world.stage", self.stage, "None: World.end runs between frames", self.stage is None)
        summaries = [play_ended(self, reason, actions) for actions in every_actions(self)]
        self.events.extend(summaries)
        return summaries[0]

    def _stage(self, stage: str, inputs: Inputs, work: Callable[[], object] | None) -> None:
        """Run ``stage``: the world's own ``work``, then the stage's handlers (a player's as that player)."""
        self.stage = stage
        if work is not None:
            work()
        for handler, player in self._handlers[stage]:
            if player is None:
                handler(self, inputs)
                continue
            self.acting = player.name
            handler(self, self.inputs_of(player)[0])
            self.acting = ""

    def _take_queue(self) -> None:
        """The queued update events become this frame's update ranges, by phase (stable: queue order kept)."""
        queued = sorted(zip(self._queue, self._queued_by), key=lambda pair: pair[0].phase)
        self.update_ranges, self._range_owners = tuple(e for e, _ in queued), tuple(by for _, by in queued)
        self._queue, self._queued_by, self.applied_edits = [], [], []

    def _apply_edits(self, phase: int) -> None:
        """Apply the frame's edits of ``phase``, each as the player who queued it (its VoxelsEdited is theirs)."""
        for edit, by in zip(self.update_ranges, self._range_owners):
            if edit.phase == phase:
                self.acting = by
                edit.apply(self.volume, self._announce_edit)
        self.acting = ""

    def _refresh_vertices(self) -> None:
        self._streamed |= bool(self.stream(self.settings.stream_chunks_per_frame))
        # A second's streaming freed many chunk-sized arrays: handed back (a walk of the heap, tens of ms on a large
        # world, on a thread of its own; every 256 frames instead held 1.34 GiB at the peak of a 1 km sprint rather
        # than 1.0).
        if self._streamed and self.frame % RELEASE_EVERY_FRAMES == 0:
            release_freed_memory_aside()
            self._streamed = False
        self.rebuilt_chunks = self.mesher.refresh_vertices()
        self._defer_far_edits(self.rebuilt_chunks)
        self._choose_detail()

    def _actor_points(self) -> np.ndarray:
        """Where the actors that dig are: the player and the enemies (m). NPCs only walk: detail around them
        would show nothing new and cost the page triangles."""
        points = list(player_points(self))
        points.extend(enemy.position for enemy in self.agents.enemies)
        return np.array(points, dtype=np.float64)

    def _choose_detail(self) -> None:
        """Move a few chunks' display levels towards what the actors' places want (:mod:`.detail`): the next
        stage simplifies them again and the display stage rebuilds them."""
        settings = self.settings
        points = self._actor_points()
        self._wanted_detail = wanted_levels_since(self._wanted_detail, self.volume, points, settings.detail_radius,
                                                  settings.mesh_options.levels)
        # The levels found as wanted stay so until either side changes: nothing to compare (a grid-wide copy and
        # comparison, a third of a millisecond a frame on a 1 km world).
        wanted, revision = self._wanted_detail.levels, self.mesher.display_levels_revision
        if self._detail_settled is not None and self._detail_settled[0] is wanted \
                and self._detail_settled[1] == revision:
            return
        current = self.mesher.display_levels
        if np.array_equal(current, wanted):
            self._detail_settled = (wanted, revision)
            return
        self.mesher.set_display_levels(next_levels(current, wanted, self.volume, points,
                                                   settings.detail_changes_per_frame))
        if settings.view_distance is not None or settings.detail_distances is not None:
            self.mesher.defer_levels()  # a streaming world's background thread makes them (World.stream)

    def _build_display_meshes(self) -> None:
        self.changed_chunks = self.mesher.build_display_meshes().remeshed

    def _snapshot_stage(self) -> None:
        self._snapshot = self._take_snapshot(self._snapshot.characters)

    def _announce_edit(self, edit: VoxelEdit, result: EditResult) -> None:
        self.applied_edits.append((edit, result))
        self.cut_marks.note(edit, result)
        self.emit(VoxelsEdited, kind=edit.kind, source=edit.source, volume_removed=result.volume_removed,
                  volume_added=result.volume_added, material=result.most_removed_material,
                  voxels_changed=result.voxels_changed, voxels_damaged=result.voxels_damaged)

    def _focus_points(self) -> np.ndarray:
        points = list(player_points(self) + [0.0, self.settings.player.height / 2, 0.0])
        for source in self._focus_sources:
            points.extend(np.asarray(p, dtype=np.float64).reshape(3) for p in source(self))
        return np.array(points)

    def _refresh_collider(self, force: bool = False) -> None:
        """Combine the collision BVH again when the chunks around the actors are others, or when one of their
        collision meshes was rebuilt (only the changed chunks' BVHs are built again: chunk_bvhs)."""
        boxes = focus_boxes(self._focus_points(), self.settings.collision_radius)  # (players far apart: a box each)
        key = boxes_key(self.mesher, boxes)
        things = self.ground_things
        if force or key != self._collider_key or (things is not None and things.collider_stale()):
            self._collider_key = key
            parts = chunk_bvhs(self.mesher).parts(key)
            if things is not None:  # the trunks, rocks and crates near the actors
                parts = parts + things.collision_parts(boxes)
            self.collider = Collider(parts, self._prop_bvh, self.materials, boxes)

    # ---------------------------------------------------------------------------------------- players
    def join(self, name: str, spawn: ArrayLike | None = None, spawn_yaw: float = 0.0) -> Seat:
        """Seat another player named ``name`` at ``spawn`` (feet, m; the world's own player's place by default):
        its own character, actions and inputs (:func:`~voxelworld.game.seats.join`)."""
        return join(self, name, spawn, spawn_yaw)

    def leave(self, name: str) -> Seat:
        """The joined player ``name`` leaves the world (:func:`~voxelworld.game.seats.leave`)."""
        return leave(self, name)

    def players(self) -> list[tuple[str, Player]]:
        """Every player as (name, Player): the world's own (named ``"player"``) first, then the seats in joining
        order (the order their inputs apply within a frame)."""
        return [(player.name, player) for player in (self.player, *(seat.player for seat in self.joined))]

    def inputs_of(self, player: Player) -> tuple[Inputs, Inputs]:
        """``player``'s inputs this frame and the last (:func:`~voxelworld.game.seats.inputs_of`)."""
        return inputs_of(self, player)

    # ---------------------------------------------------------------------------------------- queries
    def aim_info(self, max_distance: float | None = None, actions: PlayerActions | None = None) -> AimInfo | None:
        """What the player's view meets first within ``max_distance`` m (:func:`~voxelworld.game.aim.aim_info`;
        ``actions``: a joined player's, the world's own by default)."""
        return aim_info(self, max_distance, actions)

    def voxel_along(self, eye: ArrayLike, direction: ArrayLike, distance: float) -> tuple[int, int, int] | None:
        """The first solid voxel sample along the ray (:func:`~voxelworld.game.aim.voxel_along`)."""
        return voxel_along(self, eye, direction, distance)

    def snapshot(self) -> Snapshot:
        """What a renderer needs after the last frame (see :class:`Snapshot`)."""
        return self._snapshot

    def _take_snapshot(self, previous: tuple = ()) -> Snapshot:
        """The snapshot of the last frame; ``previous``: the poses of the frame before (none at the start)."""
        objects = tuple(o for source in self._object_sources for o in source(self))
        player = self.player
        characters = pose_characters(self, previous, self._frame_events)
        return Snapshot(self.frame, self.time, as_point(player.position), player.yaw, player.pitch,
                        as_point(player.eye), as_point(player.aim), objects, self.changed_chunks, float(player.stamina),
                        float(player.currency), characters)

    def achievements(self) -> dict[str, float]:
        """Volume removed by the player's actions per material group (m³), sorted by group name."""
        return self.actions.achievements()

    def voxel_hash(self) -> str:
        """The volume's content hash (SHA-256 hex of its geometry and every voxel field)."""
        return self.volume.content_hash()

    def event_log_hash(self) -> str:
        """SHA-256 (hex) of the event log's stable text lines."""
        return log_hash(self.events)

    def __repr__(self) -> str:
        return (f"World(volume={self.volume.shape}, props={len(self.props)}, seed={self.seed}, frame={self.frame}, "
                f"player at {tuple(round(float(v), 2) for v in self.player.position)})")


def freeze_startup_objects() -> None:
    """Collect garbage once, then move every object alive into the collector's permanent generation
    (:func:`gc.freeze`): the world just built or loaded, the modules, numba's compiled kernels (about 150 000
    objects with the demo world). A full collection mid-play then scans only what came after; without it one falls
    every few hundred frames and stalls that frame 50-65 ms. ``voxelworld play`` calls it once its world is ready,
    and the frame benchmarks do as it does. It changes the whole process (what is frozen is never collected): call
    it once, after loading, in a program that runs a world frame by frame."""
    gc.collect()
    gc.freeze()
