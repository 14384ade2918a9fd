"""Streaming: which chunks a world meshes, and at which level of detail, around where its actors are: a frame's
share of that made the mesher's state at once, the display work it calls for done by the mesher's background thread
and landed when ready (:meth:`World.stream`).
:class:`Streaming` holds the world's methods for it (:class:`~voxelworld.game.world.World` is one)."""

from __future__ import annotations

import ctypes
import sys
import time
from concurrent.futures import Future
from itertools import product

import numpy as np

from ..errors import ParameterError
from ..meshing import ChunkMesher, PreparedChanges, detail_levels
from ..meshing.prepared import background_executor, spread
from ..terrain import SparseVolume, VoxelVolume
from .detail import budgeted_levels, chunk_distances
from .player import Player
from .seats import player_points
from .settings import WorldSettings

__all__ = ["Streaming", "STREAM_BATCH", "FIRST_VIEW_DISTANCE", "STREAM_HOT_COST", "STREAM_COLD_COST", "STREAM_LAG",
           "JOB_FRAMES", "SURFACE_FRAMES", "NEAR_EDIT_DISTANCE", "UNLOAD_MARGIN_CHUNKS", "FAR_VOXELS_LEVEL",
           "release_freed_memory", "release_freed_memory_aside"]

# Streaming: chunks a batch of the first frame's meshing, and the work a change costs in a frame's budget
# (WorldSettings.stream_chunks_per_frame) in chunks meshed: a chunk with vertices kept hot (its surfaces kept) is
# simplified again and it and its upper neighbours remeshed; a cold one's raw surface is made again first.
STREAM_BATCH = 2048
try:
    _LIBC = ctypes.CDLL("libc.so.6") if sys.platform.startswith("linux") else None
except OSError:  # another C library (musl): no malloc_trim
    _LIBC = None
STREAM_HOT_COST = 8
STREAM_COLD_COST = 16
# m: a streaming world meshes the chunks this near its actors before its first frame (World.__init__, a loaded
# world), the rest of its view over the frames after (Streaming._stream_all): the ground of the first picture and
# of the navmesh's tiles (NAVIGATION_DISTANCE, 64 m), not the whole view (seconds, not half a minute at 500 m).
FIRST_VIEW_DISTANCE = 64.0
# Frames between streaming steps, each taking that many frames' worth of the streaming budget (World.stream): a job
# of display work lands when done, a few frames later, so the world's frames pay for none of it. A step costs its
# frame grid-wide arrays (4-5 ms on the 1 km world) whatever its size: one in twelve frames instead of one in six took
# 0.2-1.0 ms off the sprint's median in turns (docs/benchmarks.md, a fifteenth session), its p95 the same within the
# host's noise.
STREAM_LAG = 12
# Frames of the world's time step a job of display work is sized to take, at the rate the background thread made the
# jobs before it (Streaming._job_budget), and frames after which it starts no more surfaces (those left stay owed for
# the next job; the meshes of those it made take about as long again): the thread's rate changes twofold from job to
# job with what the frames and the navigation's thread leave it. On the 1 km sprint (docs/benchmarks.md, a tenth
# session): jobs of a fixed STREAM_LAG frames' budget landed 18-51 % late; sized to 3 frames 1-5 %, with half as much
# display work again owed after the sprint; 4 frames with surfaces until 2.5 frames 3-7 %, until 2 frames 3-4 % with
# 10-45 % more owed, until 1.5 frames 1-2 % with 80 % more (all with STREAM_LAG 6; with steps twice as far apart,
# jobs twice as large keep the thread's share of the frames: 8 and 4).
JOB_FRAMES = 8.0
SURFACE_FRAMES = 4.0
# m: on a streaming world, the display of the chunks an edit changed this far from the player or farther (an enemy's
# cut across the valley) is made by the mesher's background thread and lands a few frames later
# (Streaming._defer_far_edits); nearer, in the edit's frame, as on a small world.
NEAR_EDIT_DISTANCE = 32.0
# Chunks beyond the view distance and this many chunk edges more let go of their voxels where the volume's store (a
# world file) holds them as they are (saved): the mesher follows chunks to two edges and a neighbour beyond.
UNLOAD_MARGIN_CHUNKS = 4
# With this many bands of detail or more (the 1 km world's five), the mesher lets go of its copy of the voxels of the
# coarsest band's chunks where the world file holds them as they are (ChunkMesher.let_go_of_far).
FAR_VOXELS_LEVEL = 4
# A chunk and its lower neighbours (-1 on some axes): the surfaces the chunk's quads join (meshing.chunk_joins).
_LOWER_BLOCK = np.array(list(product((-1, 0), repeat=3)), dtype=np.int64)


def release_freed_memory() -> None:
    """Hand the heap memory freed since to the system (glibc's malloc_trim; nothing elsewhere). Streaming frees
    many chunk-sized arrays from the mesher's threads; without it the process keeps their pages, and the resident
    size of a large world climbs by a few hundred MiB a minute of play."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


_RELEASING: list[Future[None]] = []  # the last release_freed_memory_aside


def release_freed_memory_aside() -> Future[None]:
    """:func:`release_freed_memory` on a thread of its own (ctypes lets go of the GIL for the call), not waited
    for: the walk of the heap takes a frame 5-10 ms on the 1 km world. While the last one is under way, that one
    (nothing more is asked)."""
    if _RELEASING and not _RELEASING[-1].done():
        return _RELEASING[-1]
    _RELEASING[:] = [background_executor("memory").submit(release_freed_memory)]
    return _RELEASING[-1]


def _activation_cost(volume: VoxelVolume | SparseVolume) -> np.ndarray:
    """The work of turning each chunk meshed, in a frame's budget (:meth:`Streaming.stream`): a chunk whose density
    (or a neighbour's) is not one value may hold a surface and is meshed cold (``STREAM_COLD_COST``), the others
    cost 1 (air, buried rock: nothing to mesh). A dense volume: 1 everywhere. (issue 34: a world made or loaded
    meshes only FIRST_VIEW_DISTANCE at once; the rest of its view comes this way, a job's worth of surfaces at a
    time, not 288 chunks of them.)"""
    if not isinstance(volume, SparseVolume):
        return np.ones(volume.chunk_grid_shape, dtype=np.int64)
    uniform, _ = volume.uniform_fields("density")
    return np.where(spread(~uniform, 1, 1), STREAM_COLD_COST, 1).astype(np.int64)


class Streaming:
    """The streaming methods of a :class:`~voxelworld.game.world.World` (its volume, mesher, settings, actors and
    the ``_stream_*`` and ``_prepared*`` attributes it keeps)."""

    # Set by World.__init__ (voxelworld.game.world); ``agents`` too, after the first streaming (read with getattr).
    player: Player
    settings: WorldSettings
    volume: VoxelVolume | SparseVolume
    mesher: ChunkMesher
    frame: int
    dt: float  # the frame's time step (s)
    _prepared: PreparedChanges | None  # streaming changes the mesher works out (stream)
    _prepared_frame: int  # the frame they were handed over in
    _prepared_clock: list[float]  # their work (stream's budget), when asked for and, once done, finished (s)
    _job_rate: float | None  # work a second the background thread made the last jobs at (None: none measured yet)
    _stream_step_owed: bool  # a step due in a frame that applied edits, left to the next frame (stream)
    applied_edits: list
    _stream_anchor: np.ndarray | None  # where the actors were when the streamed chunks were chosen
    # The active chunks wanted (meshed now, kept meshed) and the levels of detail wanted; None: no view distance, no
    # detail distances.
    _stream_wanted: tuple[tuple[np.ndarray, np.ndarray] | None, np.ndarray | None, np.ndarray | None]
    _stream_orders: dict[str, tuple[np.ndarray, np.ndarray]]  # by what streams: (the distances, its order by them)
    _activation_costs: tuple[int, np.ndarray] | None  # the volume's revision and _activation_cost as of it

    def _stream_points(self) -> np.ndarray:
        """Where the actors that are shown around are (m): the player and the enemies (they dig); the world is meshed
        to the view distance around them, at their levels of detail."""
        points = list(player_points(self))  # type: ignore[arg-type]  # (a World)
        agents = getattr(self, "agents", None)
        if agents is not None:
            points.extend(enemy.position for enemy in agents.enemies)
        return np.array(points, dtype=np.float64)

    def _walker_points(self) -> np.ndarray:
        """Where the NPCs are (m, (k, 3)): they only walk, so the world keeps meshed around them only the ground of
        their navmesh tiles (``settings.navigation_radius``), at whatever level the player's place gives it."""
        agents = getattr(self, "agents", None)
        return agents.npc_positions() if agents is not None else np.zeros((0, 3))

    def _stream_all(self) -> None:
        """Mesh what the actors' places want before the first frame: a world meshed whole (no view distance), all
        of it, in batches (each update lets go of the far chunks' surfaces); a streaming one, the chunks within
        ``FIRST_VIEW_DISTANCE`` of the actors (the ground they stand and walk on, the first picture), at their
        levels of detail: the rest of the view streams in over the first frames, nearest first (:meth:`stream`),
        so a large world is ready in seconds, not after meshing its whole view."""
        settings, volume, mesher = self.settings, self.volume, self.mesher
        if settings.view_distance is not None:
            points = self._stream_points()
            if settings.detail_distances is not None:
                mesher.set_detail_levels(detail_levels(volume.chunk_grid_shape, volume.chunk_size, volume.voxel_size,
                                                       volume.origin, points, settings.detail_distances))
            reach = min(settings.view_distance, FIRST_VIEW_DISTANCE)
            mesher.set_active(chunk_distances(volume, np.concatenate([points, self._walker_points()])) <= reach)
            mesher.update()
            return
        while self._stream_now(STREAM_BATCH):
            self.mesher.update()
            release_freed_memory()
        self.mesher.update()

    def stream(self, budget: int | None = None) -> frozenset[tuple[int, int, int]]:
        """Move the meshed chunks and their levels of detail towards what the actors' places want
        (``settings.view_distance``, ``settings.detail_distances``): at most ``budget`` of work a frame, nearest
        first, is made the mesher's state (:meth:`ChunkMesher.defer_changes`: what collides, what a save keeps),
        ``STREAM_LAG`` frames' worth every ``STREAM_LAG`` frames (one due in a frame that applied edits in the next
        frame that did not, at the latest the last of the six), the same whatever the machine; the display surfaces
        and meshes it calls for are worked out by the
        mesher's background thread, nearest first, a job the work the thread makes in ``JOB_FRAMES`` frames at the
        rate it made the last ones (:meth:`_job_budget`), starting no surface after ``SURFACE_FRAMES`` (the rest
        stays owed), asked for in a step's frame (or in the frame a late one, more than ``STREAM_LAG`` frames after
        it was asked for, lands)
        (:meth:`ChunkMesher.prepare_deferred`), and land in the first frame after a job is done
        (:meth:`ChunkMesher.apply_changes`), never waited for: until then a chunk shows its previous mesh. None:
        all at once, now, as the world's first frame and a loaded world do (the job in flight lands first, and
        what is still owed is made by the mesher's next update). Chunks beyond the view distance and a margin of
        two chunks stop being meshed. Returns the chunks whose meshing or level changed in this call. Nothing to
        do for a world meshed whole (``view_distance`` and ``detail_distances`` None). The budget counts work: a
        new level for a chunk with vertices costs ``STREAM_HOT_COST`` or ``STREAM_COLD_COST`` (it and the
        neighbours joining it are remeshed), a chunk turning meshed (of a budget of its own) ``STREAM_COLD_COST``
        where it may hold a surface (its density or a neighbour's not one value), else 1, the level of a chunk
        without vertices nothing."""
        settings = self.settings
        if settings.view_distance is None and settings.detail_distances is None:
            return frozenset()
        mesher = self.mesher
        if budget is None:  # what is being worked out lands first, so it does not undo what comes after
            self._land_background(wait=True)
            mesher.settle_deferred()
            return self._stream_now(None)
        late = self._land_background(wait=False) > STREAM_LAG
        changed: frozenset[tuple[int, int, int]] = frozenset()
        # (A step costs its frame grid-wide arrays whatever its size: one in STREAM_LAG frames. One due in a frame that
        # applied edits, which pays for their meshes, is left to the next that did not, within its STREAM_LAG frames.)
        due = self.frame % STREAM_LAG == 0 or self._stream_step_owed
        self._stream_step_owed = due and bool(self.applied_edits) and self.frame % STREAM_LAG != STREAM_LAG - 1
        step = due and not self._stream_step_owed
        if step:
            target = self._stream_target(budget * STREAM_LAG)
            if target is not None:
                changed = mesher.defer_changes(*target)
        # The next job is asked for in a step's frame, a dear one already (the job's snapshot of the mesher, about
        # 1 ms), not in the frame the last one landed in, which stays cheap; but at once after a late one (the
        # thread is behind: it is not left idle).
        if self._prepared is None and mesher.owes_display and (step or late):
            chunks, work = self._owed_batch(self._job_budget(budget))
            now = time.perf_counter()
            self._prepared = mesher.prepare_deferred(chunks, deadline=now + SURFACE_FRAMES * self._frame_seconds())
            self._prepared_frame = self.frame
            clock = self._prepared_clock = [float(work), now]
            self._prepared.future.add_done_callback(lambda _: clock.append(time.perf_counter()))
        return changed

    def _job_budget(self, budget: int) -> int:
        """The work of the next job of display work: what the background thread makes in ``JOB_FRAMES`` of the
        world's time step at the rate it made the last jobs (so a job lands within ``STREAM_LAG`` frames however
        busy the machine), from ``budget`` (a frame's) to twice ``STREAM_LAG`` frames' of it; ``STREAM_LAG``
        frames' before a job was measured."""
        if self._job_rate is None:
            return budget * STREAM_LAG
        return int(min(max(self._job_rate * JOB_FRAMES * self._frame_seconds(), budget), 2 * budget * STREAM_LAG))

    def _frame_seconds(self) -> float:
        """The world's time step (s): the last frame's (a 60th of a second before the first)."""
        return self.dt if self.dt > 0 else 1 / 60

    def joins_pending(self, chunks: list[tuple[int, int, int]]) -> list[bool]:
        """For each of ``chunks``: whether its display mesh is still to change as the world streams in, with no
        edit: its display work is owed (:meth:`ChunkMesher.display_owed`), or a chunk of its lower block (it and
        its lower neighbours: the surfaces its quads join) owes its display surface or is wanted by the view and
        not active yet (streamed in nearest first, the farther lower neighbours of a chunk turn active and land a
        job or more after it, and its mesh is made again to join theirs). All False on a world meshed whole. The
        play server holds a chunk's first mesh back while this holds (:mod:`voxelworld.viewer.frame_encoder`):
        sent once, joined, not once with open borders and again."""
        mesher = self.mesher
        if not chunks:
            return []
        blocks = np.array(chunks, dtype=np.int64)[:, None, :] + _LOWER_BLOCK[None]
        np.maximum(blocks, 0, out=blocks)  # (on the grid's low faces: a chunk of the block again)
        wanted = self._stream_wanted[0]
        behind = np.zeros(len(chunks), dtype=bool)
        if wanted is not None:
            waiting = wanted[0] & ~mesher.active  # (one copy of the grid for all the chunks asked about)
            behind = waiting[tuple(blocks.reshape(-1, 3).T)].reshape(len(chunks), -1).any(axis=1)
        return [bool(late) or mesher.display_owed(chunk)
                or any(mesher.surface_owed(lower) for lower in map(tuple, block.tolist()))
                for chunk, block, late in zip(chunks, blocks, behind.tolist())]

    def _defer_far_edits(self, rebuilt: frozenset[tuple[int, int, int]]) -> None:
        """On a streaming world, owe the display work of the ``rebuilt`` chunks (their vertices made again this frame)
        at least :data:`NEAR_EDIT_DISTANCE` from the player (:meth:`ChunkMesher.defer_refreshed`): the background
        thread makes it with the rest of the owed display work, nearest first. What collides and what a save keeps
        are made in the frame as before."""
        settings = self.settings
        if not rebuilt or (settings.view_distance is None and settings.detail_distances is None):
            return
        chunks = sorted(rebuilt)
        at, players = np.array(chunks, dtype=np.int64), player_points(self)  # type: ignore[arg-type]  # (a World)
        distance = np.min([chunk_distances(self.volume, point, at) for point in players], axis=0)  # the nearest
        self.mesher.defer_refreshed(c for c, d in zip(chunks, distance.tolist()) if d >= NEAR_EDIT_DISTANCE)

    def _land_background(self, wait: bool) -> int:
        """Install the display work the background thread made, when it is done (or, with ``wait``, once it is).
        Returns how many frames after it was asked for it landed (0: nothing landed)."""
        prepared = self._prepared
        if prepared is not None and (wait or prepared.done()):
            self._prepared = None
            self.mesher.apply_changes(prepared)
            work, asked, *finished = self._prepared_clock  # (finished: once the future's callback ran, else now)
            took = (finished[0] if finished else time.perf_counter()) - asked
            if took > 0:  # the rate it was made at: the mean with the last jobs'
                rate = work / took
                self._job_rate = rate if self._job_rate is None else (self._job_rate + rate) / 2
            return self.frame - self._prepared_frame
        return 0

    def _owed_batch(self, budget: int) -> tuple[list[tuple[int, int, int]], int]:
        """The owed display work of a job: nearest the actors first (ties by chunk index), at most ``budget`` of
        work (a surface as in :meth:`stream`'s budget, a mesh alone 1), at least one chunk; and its work."""
        mesher = self.mesher
        surfaces, meshes = mesher.owed_chunks()
        # A mesh joining an owed surface waits for it (the job making that surface makes the mesh too): not asked.
        waiting = np.zeros(self.volume.chunk_grid_shape, dtype=bool)
        waiting[tuple(surfaces.T)] = True
        joins = np.zeros(len(meshes), dtype=bool)
        for offset in product((-1, 0), repeat=3):
            lower = meshes + offset
            inside = (lower >= 0).all(axis=1)
            joins[inside] |= waiting[tuple(lower[inside].T)]
        owed = np.concatenate([surfaces, meshes[~joins]])
        cost = np.concatenate([np.where(mesher.hot_chunks[tuple(surfaces.T)], STREAM_HOT_COST, STREAM_COLD_COST),
                               np.ones(len(owed) - len(surfaces), dtype=np.int64)])
        distance = chunk_distances(self.volume, self._stream_points(), owed)
        order = np.lexsort((np.ravel_multi_index(tuple(owed.T), waiting.shape), distance))  # (ties in chunk order)
        spent = np.cumsum(cost[order])
        taken = max(int(np.searchsorted(spent, budget, side="right")), 1)
        return [tuple(c) for c in owed[order[:taken]].tolist()], int(spent[taken - 1]) if len(spent) else 0

    def _stream_now(self, budget: int | None) -> frozenset[tuple[int, int, int]]:
        """:meth:`stream` without the background thread: the changes go to the mesher's next update."""
        target = self._stream_target(budget)
        if target is None:
            return frozenset()
        active, levels = target
        return frozenset(self.mesher.set_detail_levels(levels) | self.mesher.set_active(active))

    def _stream_target(self, budget: int | None) -> tuple[np.ndarray, np.ndarray] | None:
        """The active chunks and levels of detail one step of at most ``budget`` work (None: any) closer to what
        the actors' places want; None when the world already is that."""
        settings, volume, mesher = self.settings, self.volume, self.mesher
        points, walkers = self._stream_points(), self._walker_points()
        anchor = self._stream_anchor
        edge = volume.chunk_size * volume.voxel_size
        moved = np.concatenate([points, walkers])  # the walkers' places count at a chunk's edge, not a quarter
        steps = np.repeat([edge / 4, edge], [len(points), len(walkers)])[:, None]
        if anchor is None or anchor.shape != moved.shape or (np.abs(moved - anchor) > steps).any():
            self._stream_anchor = moved
            active = None
            if settings.view_distance is not None:
                wanted, kept, far = self.chunks_in_view(points, walkers)
                active = (wanted, kept)
                self._let_go_of(far)
            detail = None
            if settings.detail_distances is not None:
                detail = detail_levels(volume.chunk_grid_shape, volume.chunk_size, volume.voxel_size, volume.origin,
                                       points, settings.detail_distances)
                # The coarsest band's voxels go back to the store the mesher's copy shares with the volume (its
                # level changes only at the band's edge; a new surface there reads them from the store again).
                coarsest = len(settings.detail_distances)
                if coarsest >= FAR_VOXELS_LEVEL:
                    mesher.let_go_of_far((detail >= coarsest) & (mesher.detail_levels >= coarsest))
            # How near each chunk lies to the actors, for the order chunks stream in: as of the anchor, like the rest.
            self._stream_wanted = (active, detail, chunk_distances(volume, moved))
            things = getattr(self, "ground_things", None)
            if things is not None:  # things on the ground come and go with their columns (game.ground_things)
                things.follow(active if active is None else active[1])
        active, detail, anchored = self._stream_wanted
        current_detail, current_active = mesher.detail_levels, mesher.active
        if (detail is None or np.array_equal(detail, current_detail)) and (
                active is None or np.array_equal((current_active & active[1]) | active[0], current_active)):
            return None  # the usual frame: the world is what the actors' places want
        limit = np.iinfo(np.int64).max // 2 if budget is None else budget
        levels = current_detail
        # (once for both orders; the walkers' ground comes as near them as the player's as near the player)
        nearness = anchored if budget is not None else None
        cost = np.where(mesher.surface_chunks, np.where(mesher.hot_chunks, STREAM_HOT_COST, STREAM_COLD_COST), 0)
        if detail is not None:
            # The level of a chunk without vertices changes for free (nothing to simplify again): first, so the
            # chunks about to be meshed are meshed at their level.
            free = np.where(cost == 0, detail, current_detail)
            levels = detail if budget is None else self._budgeted("detail", free, detail, limit, cost, nearness) \
                if nearness is not None else budgeted_levels(free, detail, volume, points, limit, cost)
        target = current_active
        if active is not None:
            # Chunks out of range stop at once; new ones come nearest first, with a budget of their own (at the
            # view's edge, behind every level change otherwise).
            wanted, kept = active
            base = current_active & kept
            grown = (base | wanted).astype(np.int64)
            costs = self._activation_costs_now()
            target = (self._budgeted("active", base.astype(np.int64), grown, limit, costs, nearness)
                      if nearness is not None else
                      budgeted_levels(base.astype(np.int64), grown, volume, points, limit, costs, None)).astype(bool)
        return target, levels

    def chunks_in_view(self, points: np.ndarray | None = None, walkers: np.ndarray | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Bool grids of the chunks a streaming world (``settings.view_distance`` not None) wants meshed around
        the actors at ``points`` (the player and the enemies: to the view distance) and ``walkers`` (the NPCs:
        the ground of their navmesh tiles), those it keeps meshed (two chunk edges more) and those far enough to
        let go of (``UNLOAD_MARGIN_CHUNKS`` edges beyond); by default around where the actors are now.
        ParameterError on a world meshed whole (no view distance)."""
        settings, volume = self.settings, self.volume
        if settings.view_distance is None:
            raise ParameterError("settings.view_distance", None, "a view distance in metres: a streaming world's")
        points = self._stream_points() if points is None else points
        walkers = self._walker_points() if walkers is None else walkers
        edge = volume.chunk_size * volume.voxel_size
        distance = chunk_distances(volume, points)
        wanted, kept, far = (distance <= settings.view_distance, distance <= settings.view_distance + 2 * edge,
                             distance > settings.view_distance + UNLOAD_MARGIN_CHUNKS * edge)
        if len(walkers):  # the ground of the NPCs' navmesh tiles (two chunk edges more: they move a chunk)
            near = chunk_distances(volume, walkers)
            reach = min(settings.view_distance, (settings.navigation_radius or 0.0) + 2 * edge)
            wanted, kept, far = (wanted | (near <= reach), kept | (near <= reach + 2 * edge),
                                 far & (near > reach + UNLOAD_MARGIN_CHUNKS * edge))
        return wanted, kept, far

    def _activation_costs_now(self) -> np.ndarray:
        """:func:`_activation_cost` of the volume, worked out again only when its voxels changed (grid-wide
        arrays, half a millisecond a streaming step on the 1 km world; chunks left in a store or read again are
        no change)."""
        revision = self.volume.revision
        if self._activation_costs is None or self._activation_costs[0] != revision:
            self._activation_costs = (revision, _activation_cost(self.volume))
        return self._activation_costs[1]

    def _budgeted(self, what: str, current: np.ndarray, wanted: np.ndarray, budget: int, cost: np.ndarray,
                  distance: np.ndarray) -> np.ndarray:
        """:func:`~voxelworld.game.detail.budgeted_levels` of ``current`` towards ``wanted`` by ``distance``, the
        same array for the same chunks: the chunks still to move, nearest first (ties by chunk index), are those
        listed at the anchor's last move still to move, in that order (a step only moves chunks to what is wanted),
        so they are sorted once an anchor, not every step (a sort of thousands of chunks, a millisecond). Chunks
        are listed by flat index, and only the head of the list a budget can reach is summed."""
        differs = (current != wanted).ravel()
        count = int(np.count_nonzero(differs))
        if count == 0:
            return current
        kept = self._stream_orders.get(what)
        order = None
        if kept is not None and kept[0] is distance:
            order = kept[1][differs[kept[1]]]
        if order is None or len(order) != count:  # new distances, or a chunk left what is wanted: sorted again
            changed = np.flatnonzero(differs)  # (in index order: a stable sort by distance breaks ties by index)
            order = changed[np.argsort(distance.ravel()[changed], kind="stable")]
        self._stream_orders[what] = (distance, order)
        costs = cost.ravel()
        head = order[:max(budget, 1)]  # (enough when every chunk costs at least 1; else all of them below)
        spent = np.cumsum(costs[head])
        if len(head) < len(order) and spent[-1] <= budget:
            head, spent = order, np.cumsum(costs[order])
        taken = head[:max(int(np.searchsorted(spent, budget, side="right")), 1)]
        out = current.copy()
        np.put(out, taken, wanted.ravel()[taken])
        return out

    def _let_go_of(self, far: np.ndarray) -> None:
        """The volume lets go of the voxels of the ``far`` chunks its store holds as they are (saved: nothing
        edited is lost), and the mesher of its copy of them (it takes them again when it meshes them)."""
        released = self.volume.let_go(far)
        if released:
            self.mesher.let_go(released)

    def wait_for_background(self) -> None:
        """Wait until the streaming work on the mesher's background thread is done (its result lands in the next
        frame): :func:`voxelworld.io.save_world` does, so that nothing reads the world file it changes."""
        if self._prepared is not None:
            self._prepared.wait()

