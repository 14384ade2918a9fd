"""Display work a :class:`~voxelworld.meshing.ChunkMesher` owes, done on a background thread and landed when ready.

A streaming world moves its active chunks and levels of detail at frames fixed by its actors' places
(:meth:`~MesherDeferred.defer_changes`): those are the mesher's *state* (what collides, what is followed, what a save
keeps), the same whatever the machine. The display surfaces and meshes those changes call for are *owed*: worked
out by the background thread in jobs of a few chunks (:meth:`~MesherDeferred.prepare_deferred`), nearest first, and
installed by :meth:`ChunkMesher.apply_changes <voxelworld.meshing.ChunkMesher.apply_changes>` in the first frame
after a job is done, never waited for. Until then a chunk shows its previous mesh (its previous level of detail, or
nothing for a chunk entering the view). A part of a job whose inputs changed meanwhile (an edit near it, another
level) is not installed: it stays owed, for the next job (and is not made at all when that is known as the job
starts); a mesh joining a surface a later job owes waits for it, owed, rather than making that surface twice. So
*when* a display mesh lands depends on the thread's speed, *what* lands does not: once nothing is owed the meshes
are those a fresh mesher makes of the same voxels at the same chunks and levels, bit for bit. :meth:`~MesherDeferred.settle_deferred` hands what is still owed to the
mesher's next update (a save, a world streamed at once).

:class:`MesherDeferred` is the part of ``ChunkMesher`` that does it (ChunkMesher inherits it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from itertools import chain
from typing import TYPE_CHECKING, cast

import numpy as np

from ..frame_first import result_of
from ..terrain import SparseVolume, Volume
from . import mesher_levels
from .chunk_joins import lower_block
from .chunk_surfaces import MESHED_FIELDS, uniform_sides
from .mesh import DisplayMesh
from .prepared import PreparedChanges, PreparedJob, PreparedResult, background_executor, spread
from .surface import ChunkSurface, PackedSurfaces

__all__ = ["MesherDeferred", "EDITS_OWED"]

# Edits of a chunk whose display work is owed that leave it owed (MesherDeferred.defer_refreshed): the next one
# has it made by the update steps of the next frame whose refresh remakes no chunk (not in the edit's own frame,
# which pays for the edit already). Each edit makes a job in flight for the chunk stale, so without a bound a
# chunk cut every few frames could show none of it.
EDITS_OWED = 3
# Frames a due chunk waits for one whose refresh remakes no chunk: then it is made whatever that frame does (a
# player editing every frame still sees a far chunk cut over and over change).
DUE_WAIT_FRAMES = 6


class MesherDeferred:
    """The display work a :class:`~voxelworld.meshing.ChunkMesher` owes (a part of it: see the module)."""

    # Set by ChunkMesher (its __init__ and _start_over).
    volume: Volume
    _fields: Volume | None
    _active: np.ndarray
    _levels: np.ndarray
    _detail: np.ndarray
    _stamps: np.ndarray
    _seen: np.ndarray
    _vertex_free: np.ndarray
    _activated: set[tuple]
    _deactivated: set[tuple]
    _relevelled: set[tuple]
    _refreshed: set[tuple]
    _simplified: set[tuple]
    _remesh: set[tuple]
    _raw: dict[tuple, ChunkSurface]
    _raw_kept: int
    _display_surfaces: PackedSurfaces
    _display: dict[tuple, DisplayMesh]
    _installed: dict[tuple, DisplayMesh]
    _deferred: set[tuple]  # active chunks whose display surface is owed at their level
    _deferred_remesh: set[tuple]  # active chunks whose display mesh is owed
    _edits_while_owed: dict[tuple, int]  # owed chunks edited again (defer_refreshed), how many times
    _due: dict[tuple, int]  # owed chunks the update steps make soon (defer_refreshed): frames they waited
    _quiet: bool  # whether the last refresh_vertices remade no chunk's vertices

    if TYPE_CHECKING:  # defined by ChunkMesher and MesherLevels
        def update(self) -> object: ...
        def set_active(self, active: np.ndarray) -> frozenset[tuple[int, int, int]]: ...
        def set_detail_levels(self, levels: np.ndarray) -> frozenset[tuple[int, int, int]]: ...
        def _forget_inactive(self, owed: bool = False) -> None: ...
        def _forget_collision(self, chunk: tuple) -> None: ...
        def _plane_levels(self, detail: np.ndarray | None = None) -> int: ...
        def _raw_surface(self, chunk: tuple) -> ChunkSurface: ...
        def _simplified_display(self, chunk: tuple) -> ChunkSurface: ...
        def _check_active(self, active: np.ndarray) -> None: ...
        def _check_detail(self, levels: np.ndarray) -> None: ...
        def _take_unfollowed(self, reads: np.ndarray) -> np.ndarray: ...

    def owed_chunks(self) -> tuple[np.ndarray, np.ndarray]:
        """The active chunks whose display surface is owed (:meth:`defer_changes`: their meshes still show their
        previous level, or nothing), and those whose display mesh alone is owed (a lower neighbour's changed, or
        turned inactive): two (n, 3) int64 arrays of chunk indices, in chunk order."""
        grid = self.volume.chunk_grid_shape
        return _in_chunk_order(self._deferred, grid), _in_chunk_order(self._deferred_remesh - self._deferred, grid)

    @property
    def owed_surfaces(self) -> np.ndarray:
        """:meth:`owed_chunks`' surfaces, as a bool array of the chunk grid's shape."""
        return self._owed_grid(self._deferred)

    @property
    def owed_meshes(self) -> np.ndarray:
        """:meth:`owed_chunks`' meshes, as a bool array of the chunk grid's shape."""
        return self._owed_grid(self._deferred_remesh - self._deferred)

    def _owed_grid(self, chunks: set[tuple]) -> np.ndarray:
        owed = np.zeros(self.volume.chunk_grid_shape, dtype=bool)
        owed[tuple(_in_chunk_order(chunks, owed.shape).T)] = True
        return owed

    def display_owed(self, chunk: tuple[int, int, int]) -> bool:
        """Whether ``chunk``'s display surface or mesh is owed (:meth:`defer_changes`): the mesh it has now is
        replaced when the background work lands."""
        return chunk in self._deferred or chunk in self._deferred_remesh

    def surface_owed(self, chunk: tuple[int, int, int]) -> bool:
        """Whether ``chunk``'s display surface is owed: the meshes joining it (its own and its upper neighbours')
        are made again when it lands."""
        return chunk in self._deferred

    @property
    def owes_display(self) -> bool:
        """Whether any display work is owed (:meth:`defer_changes`)."""
        return bool(self._deferred or self._deferred_remesh)

    def defer_changes(self, active: np.ndarray, levels: np.ndarray) -> frozenset[tuple[int, int, int]]:
        """:meth:`set_active` (``active``) and :meth:`set_detail_levels` (``levels``) now, for everything but the
        display: chunks turning active are meshed (their collision meshes made on request, as for any chunk),
        those turning inactive are dropped, the levels are the mesher's; the display surfaces of the chunks
        turning active or changing level, and the display meshes joining them, are owed (:attr:`owed_surfaces`,
        :attr:`owed_meshes`): :meth:`prepare_deferred` works them out on the background thread. The next update
        makes none of them. Returns the chunks whose activity or level changed; ParameterError, before anything
        changes, for arrays those methods refuse."""
        self._check_active(active)
        self._check_detail(levels)
        turned = self.set_detail_levels(levels) | self.set_active(active)
        if self._fields is None:  # never meshed: the first update meshes everything at once
            return turned
        self._forget_inactive(owed=True)
        self._deactivated = set()
        activated = sorted(self._activated)
        sides = uniform_sides(self._fields, np.array(activated, dtype=np.int64).reshape(-1, 3)).tolist()
        for chunk, side in zip(activated, sides):
            self._forget_collision(chunk)
            if side < 0:
                self._vertex_free[chunk] = False  # (until its raw surface is made on this thread)
                self._deferred.add(chunk)
                continue
            # Uniform voxels around its cells: no vertex, known without meshing (so what the streaming budgets
            # count does not depend on when a surface is made); nothing to keep (a mesh joins no cell of it, as
            # none of an empty surface's).
            self._vertex_free[chunk] = True
        self._activated = set()
        self.defer_levels()
        return turned

    def defer_levels(self) -> None:
        """Owe the display surfaces of the chunks whose display level or level of detail changed since the last
        update (:meth:`set_display_levels`, :meth:`set_detail_levels`): the background thread makes them
        (:meth:`prepare_deferred`), not the next update; their meshes show their previous level until then. Nothing
        before the first update (it makes everything at once)."""
        if self._fields is None:
            return
        relevelled = {c for c in self._relevelled if self._active[c] and not self._vertex_free[c]}
        self._deferred |= relevelled
        self._relevelled -= relevelled

    def defer_refreshed(self, chunks: Iterable[tuple[int, int, int]]) -> frozenset[tuple[int, int, int]]:
        """Owe the display surfaces of those of ``chunks`` whose vertices the last :meth:`refresh_vertices` made
        again (an edit near them): the background thread makes them and the meshes joining them
        (:meth:`prepare_deferred`), not the next simplify and display steps; until then their meshes show the
        voxels as they were. One owed already stays so, and at the :data:`EDITS_OWED` th edit since it was owed
        it is due: the simplify and display steps of the next frame whose refresh remakes no chunk make it (an
        edit makes the work asked for it stale, so a chunk cut over and over still shows every few cuts, however
        late the jobs are; not in the edit's frame, which pays for the edit). Returns the chunks owed here."""
        deferred, counts = self._deferred, self._edits_while_owed
        for chunk in [c for c in counts if c not in deferred]:  # landed, made or forgotten since: counted afresh
            del counts[chunk]
        owed = set()
        for chunk in chunks:
            if chunk not in self._refreshed or not self._active[chunk]:
                continue
            edits = counts.get(chunk, 0) + 1 if chunk in deferred else 0
            if edits >= EDITS_OWED:
                counts.pop(chunk, None)
                self._due.setdefault(chunk, 0)  # (simplify_vertices: _take_due)
            elif edits:
                counts[chunk] = edits
            owed.add(chunk)
        self._refreshed -= owed
        self._simplified |= owed  # (their vertices were made again: MeshUpdate.surfaces_rebuilt)
        deferred |= owed
        return frozenset(owed)

    def prepare_deferred(self, chunks: Iterable[tuple[int, int, int]],
                         deadline: float | None = None) -> PreparedChanges:
        """Start working out, on the background thread, the owed display work of ``chunks`` (owed surfaces or
        meshes; the others are left out): their display surfaces at their levels, started in the order given, and
        the display meshes of those and of the neighbours joining a changed border, from a snapshot of what the
        mesher has now. Surfaces not started by ``deadline`` (a ``time.perf_counter()`` time; None: none), but the
        first, are left owed, with the meshes joining them. Hand the result to :meth:`apply_changes` once it is
        done (:meth:`PreparedChanges.done`)."""
        grid = self.volume.chunk_grid_shape
        given = [tuple(int(c) for c in chunk) for chunk in chunks]
        wanted = set(given)
        surfaces = tuple(sorted(c for c in wanted if c in self._deferred))
        remeshed = tuple(sorted(c for c in wanted if c in self._deferred_remesh and c not in self._deferred))
        fields = cast(Volume, self._fields)  # owed work exists only after the first update
        reads = np.zeros(grid, dtype=bool)
        for chunk in surfaces + remeshed:
            reads[chunk] = True
        versions = self._take_unfollowed(spread(reads, 2, 2))
        # Owed surfaces of chunks showing nothing yet, made by a later job: a mesh joining one waits for it (made
        # here, that surface would be made again by its own job, and the mesh again when it lands).
        stamps = self._stamps.copy()
        job = PreparedJob(surfaces, remeshed, {c: self._raw[c] for c in surfaces if c in self._raw},
                          self._display_surfaces.copy(surfaces), self._display_surfaces.copy(),
                          self._levels.copy(), self._detail.copy(), self._active.copy(), self._plane_levels(),
                          self._vertex_free.copy(), frozenset(self._deferred), stamps, versions,
                          tuple(dict.fromkeys(c for c in given if c in self._deferred)), deadline)
        # The same work as prepare_changes' (read from its module when called: tests slow it down there).
        future: Future[PreparedResult | None] = background_executor().submit(
            mesher_levels._prepare, cast(mesher_levels.MesherLevels, self), job, fields.snapshot(MESHED_FIELDS))
        return PreparedChanges(job.active, job.detail, versions, stamps, surfaces, future, deferred=True)

    def _land(self, prepared: PreparedChanges) -> frozenset[tuple[int, int, int]]:
        """Install what ``prepared`` (of :meth:`prepare_deferred`) made where nothing it was made of changed since
        it was asked for and it is still owed; the rest stays owed. Returns no chunk (no activity or level
        changes: those were made by :meth:`defer_changes`)."""
        result = cast(PreparedResult, result_of(prepared.future))
        changed = self.volume.chunk_versions != prepared.versions
        restamped = self._stamps != prepared.stamps
        edits = bool(changed.any())  # (most jobs land with no edit since: no grid-wide spreads of nothing)
        stale_surface = spread(changed, 1, 1) | restamped if edits else restamped
        stale_mesh = (spread(changed, 2, 1) if edits else changed) | spread(restamped, 1, 0)
        landed = set()
        for chunk in prepared.surfaces:
            if chunk not in self._deferred or stale_surface[chunk] or not self._active[chunk] \
                    or chunk not in result.display:  # (skipped as stale by the thread: see _prepare)
                continue
            raw = result.raw.get(chunk)
            if raw is not None and chunk not in self._raw:
                self._raw[chunk] = raw  # (dropped again by the next update where the chunk is cold)
                self._raw_kept += 1  # (the next update lets go of it where the chunk is cold)
            self._display_surfaces[chunk] = result.display[chunk]
            self._deferred.discard(chunk)
            landed.add(chunk)
        waiting = set(prepared.surfaces) - landed
        for chunk, surface in result.warm.items():  # cold neighbours' surfaces made again: kept where still true
            if not stale_surface[chunk] and self._active[chunk] and chunk not in self._display_surfaces \
                    and chunk not in self._deferred:
                self._display_surfaces[chunk] = surface
        for chunk in result.unmade:  # joining a surface a later job makes: owed until then
            if self._active[chunk]:
                self._deferred_remesh.add(chunk)
        for chunk, mesh in sorted(result.meshes.items()):
            if not self._active[chunk]:
                continue
            if stale_mesh[chunk] or any(c in waiting for c in lower_block(chunk)):
                self._deferred_remesh.add(chunk)  # still owed: a later job makes it with what it reads then
                continue
            self._deferred_remesh.discard(chunk)
            self._remesh.discard(chunk)
            self._installed[chunk] = mesh
            if mesh.triangle_count:
                self._display[chunk] = mesh
            else:
                self._display.pop(chunk, None)
        return frozenset()

    def settle_deferred(self) -> None:
        """Hand the display work still owed to the next :meth:`update` (which makes it on the calling thread):
        what a save or a world streamed at once does, after landing the job in flight."""
        for chunk in self._deferred:
            if self._active[chunk]:
                self._relevelled.add(chunk)  # made again from its raw surface (made first where not kept)
        self._remesh |= {c for c in self._deferred_remesh if self._active[c]}
        self._deferred, self._deferred_remesh = set(), set()

    def let_go_of_far(self, far: np.ndarray) -> int:
        """The mesher's copy of the voxels lets go of the ``far`` chunks (a bool array of the chunk grid's shape)
        that the volume leaves in its store as the mesher saw them (unchanged since): read from the store again
        when something reads them (a new level's surface, on the background thread). A far chunk's level rarely
        changes, and its voxels are most of what the mesher holds. Returns how many chunks it let go of."""
        fields, volume = self._fields, self.volume
        if not (isinstance(fields, SparseVolume) and isinstance(volume, SparseVolume)) or volume.store is None \
                or fields.store is not volume.store:
            return 0
        where = far & fields.resident_mask() & ~volume.resident_mask() & (self._seen == volume.chunk_versions)
        chunks = list(map(tuple, np.argwhere(where).tolist()))
        for chunk in chunks:
            volume.copy_chunk_to(fields, chunk, MESHED_FIELDS)  # left in the store they share
        return len(chunks)

    def _forget_owed(self, chunks: Sequence[tuple]) -> None:
        """``chunks`` turned inactive: nothing of theirs is owed."""
        for chunk in chunks:
            self._deferred.discard(chunk)
            self._deferred_remesh.discard(chunk)
            self._due.pop(chunk, None)

    def _take_due(self) -> set[tuple]:
        """The owed chunks due to be made by this frame's update steps (:meth:`defer_refreshed`): after a refresh
        that remade no chunk, every one still owed (a job may have made one meanwhile); else those that waited
        :data:`DUE_WAIT_FRAMES` frames."""
        if not self._due:
            return set()
        due = {c for c, waited in self._due.items() if self._quiet or waited >= DUE_WAIT_FRAMES}
        self._due = {c: waited + 1 for c, waited in self._due.items() if c not in due}
        return due & self._deferred


def _in_chunk_order(chunks: set[tuple], grid: tuple[int, ...]) -> np.ndarray:
    """``chunks`` (of a chunk grid of shape ``grid``) as an (n, 3) int64 array, sorted by chunk index (the rows
    ordered by their flat index, not made again from it: two fifths less of a streaming frame's 0.45 ms)."""
    listed = np.fromiter(chain.from_iterable(chunks), dtype=np.int64, count=3 * len(chunks)).reshape(-1, 3)
    return listed[np.argsort((listed[:, 0] * grid[1] + listed[:, 1]) * grid[2] + listed[:, 2])]
