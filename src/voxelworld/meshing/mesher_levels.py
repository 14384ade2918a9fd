"""Which chunks :class:`~voxelworld.meshing.ChunkMesher` meshes and how finely: its active chunks (those in view
of a large world's actors), the display levels and the levels of detail per chunk, and changes of them worked out on
a background thread (:mod:`.prepared`) and installed some frames later.

:class:`MesherLevels` is the part of ``ChunkMesher`` that holds them (ChunkMesher inherits it; it marks the chunks
whose surfaces a change makes stale, and the mesher's update steps remake them).
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Iterable
from concurrent.futures import Future
from time import perf_counter
from typing import TYPE_CHECKING, cast

import numpy as np

from ..errors import check_range
from ..frame_first import result_of
from ..terrain import MaterialTable, Volume
from .chunk_joins import assemble_displays, lower_block, neighbours_seeing_changes, upper_neighbours
from .chunk_surfaces import MESHED_FIELDS, all_chunks, display_form, raw_surface_and_density, unchanged_surface
from .detail import MAX_DETAIL_LEVEL
from .mesh import DisplayMesh
from .options import MeshOptions
from .prepared import PreparedChanges, PreparedJob, PreparedResult, background_executor, background_map, spread
from .surface import ChunkSurface, PackedSurfaces, prepacked

__all__ = ["MesherLevels", "described"]


def _prepare(mesher: MesherLevels, job: PreparedJob, fields: Volume) -> PreparedResult:
    """The surfaces and display meshes after ``job``'s changes (a background thread's work for
    :meth:`ChunkMesher.prepare_changes`), from ``fields`` (a snapshot of the mesher's copy of the voxels): the
    same functions of the same data as the mesher's own update steps."""
    volume, options, materials = mesher.volume, mesher.options, mesher.materials

    def display_surface(chunk: tuple, raw: ChunkSurface | None = None) -> tuple[ChunkSurface, ChunkSurface]:
        density = None
        if raw is None:
            raw, density = raw_surface_and_density(volume, chunk, options, job.planes, fields=fields)
        return raw, display_form(fields, raw, options, materials, int(job.levels[chunk]), int(job.detail[chunk]),
                                 density)

    def restamped(chunk: tuple) -> bool:
        # Owed work whose chunk changed level or activity since it was asked for: the mesher would not install it
        # (its stamps only rise), so it is not made. Read as the work starts: only ever skips what is stale.
        return job.stamps is not None and bool(mesher._stamps[chunk] != job.stamps[chunk])

    def edited(chunk: tuple, below: int, above: int) -> bool:
        # Likewise an edit of the voxels it reads since (chunks -below .. +above around it, as the mesher's test).
        if job.versions is None:
            return False
        box = tuple(slice(max(c - below, 0), c + above + 1) for c in chunk)
        return bool((volume.chunk_versions[box] != job.versions[box]).any())

    def wanted_surface(chunk: tuple) -> tuple[ChunkSurface, ChunkSurface] | None:
        if restamped(chunk) or edited(chunk, 1, 1) or (late() and chunk != order[0]):  # (the first: progress)
            return None
        return display_surface(chunk, job.raw.get(chunk))

    def late() -> bool:
        return job.deadline is not None and perf_counter() > job.deadline

    asked = set(job.surfaces)
    waiting = frozenset(c for c in job.owed if c not in asked and c not in job.current)
    order = list(job.order) if job.order else list(job.surfaces)
    made_in_order = dict(zip(order, background_map(wanted_surface, order)))
    made = [made_in_order[chunk] for chunk in job.surfaces]
    # Surfaces left for a later job (past the deadline) wait as those of the owed chunks not asked for do.
    waiting |= {c for c, pair in zip(job.surfaces, made) if pair is None and not restamped(c) and c not in job.current}
    raw_made: dict[tuple, ChunkSurface] = {}
    display: dict[tuple, ChunkSurface] = {}
    remesh = set(job.remeshed_for_off)
    for chunk, pair in zip(job.surfaces, made):
        if pair is None:  # stale, or left past the deadline: its own next job makes it and the meshes it changes
            continue
        raw, new = pair
        if chunk not in job.raw:
            raw_made[chunk] = raw
        display[chunk] = new
        old = job.old.get(chunk)
        if unchanged_surface(old, new):
            continue
        remesh.add(chunk)
        remesh |= {c for c in neighbours_seeing_changes(volume.chunk_grid_shape, chunk, old, new) if job.active[c]}
    unmade = sorted(c for c in remesh if (waiting or job.stamps is not None)
                    and (edited(c, 2, 1) or any(lower in waiting or restamped(lower) for lower in lower_block(c))))
    order = sorted(remesh.difference(unmade))
    meshes, warm = assemble_displays(volume, fields, order, ChainMap(display, job.current), job.active,
                                     job.vertex_free, lambda chunk: display_surface(chunk)[1], background_map)
    # Packed here, as the mesher keeps them: the thread installing them does no more than store them.
    return PreparedResult(raw_made, {chunk: prepacked(surface) for chunk, surface in display.items()}, meshes,
                          {chunk: prepacked(surface) for chunk, surface in warm.items()}, tuple(unmade))


class MesherLevels:
    """The active chunks and levels of a :class:`~voxelworld.meshing.ChunkMesher` (a part of it: see the module)."""

    # Set by ChunkMesher (its __init__ and _start_over).
    volume: Volume
    options: MeshOptions
    materials: MaterialTable
    _fields: Volume | None
    _active: np.ndarray
    _levels: np.ndarray
    _levels_revision: int
    _detail: np.ndarray
    _stamps: np.ndarray
    _seen: np.ndarray
    _copied: np.ndarray
    _vertex_free: np.ndarray
    _activated: set[tuple]
    _deactivated: set[tuple]
    _relevelled: set[tuple]
    _simplified: set[tuple]
    _remesh: set[tuple]
    _raw: dict[tuple, ChunkSurface]
    _raw_kept: int
    _display_surfaces: PackedSurfaces
    _display: dict[tuple, DisplayMesh]
    _installed: dict[tuple, DisplayMesh]

    if TYPE_CHECKING:  # defined by ChunkMesher and MesherCollision
        def update(self) -> object: ...
        def _refresh(self, rebuild: set[tuple]) -> frozenset[tuple[int, int, int]]: ...
        def _raw_surface(self, chunk: tuple) -> ChunkSurface: ...
        def _forget_inactive(self, owed: bool = False) -> None: ...
        def _land(self, prepared: PreparedChanges) -> frozenset[tuple[int, int, int]]: ...
        def _forget_collision(self, chunk: tuple) -> None: ...

    @property
    def active(self) -> np.ndarray:
        """Which chunks the mesher meshes (a copy, bool of the chunk grid's shape): every chunk unless
        :meth:`set_active` said otherwise."""
        return self._active.copy()

    @property
    def meshed(self) -> np.ndarray:
        """Which chunks have their surfaces, so their collision meshes are what :attr:`active` promises (a bool
        array of the chunk grid's shape): the active chunks but those turned active since the last
        :meth:`refresh_vertices` (the next one meshes them). Before the first update, every active chunk (a
        collision mesh asked for then updates the mesher first)."""
        meshed = self._active.copy()
        if self._fields is not None:
            for chunk in self._activated:
                meshed[chunk] = False
        return meshed

    def set_active(self, active: np.ndarray) -> frozenset[tuple[int, int, int]]:
        """Mesh only the chunks where ``active`` (a bool array of the chunk grid's shape) is True, from the next
        :meth:`refresh_vertices` on: a chunk turning active gets its vertices and display mesh then (its upper
        neighbours are remeshed to join it), one turning inactive loses its surfaces and meshes (the next
        :meth:`build_display_meshes` reports its display mesh empty, so a renderer drops it). What the mesher
        builds for the active chunks is what a mesher of the whole volume builds for them, away from the border
        of the active region (where the quads joining an inactive lower neighbour are missing). Returns the
        chunks whose state changed. ParameterError, before anything changes, for anything but such an array.

        Examples
        --------
        >>> from voxelworld.meshing import ChunkMesher
        >>> from voxelworld.terrain import SparseVolume, Box
        >>> world = SparseVolume((256, 64, 256), chunk_size=32)
        >>> _ = world.add(Box((0.0, 0.0, 0.0), (255.0, 20.0, 255.0)), "soil")
        >>> mesher = ChunkMesher(world)
        >>> near = np.zeros(world.chunk_grid_shape, dtype=bool); near[:2, :, :2] = True
        >>> _ = mesher.set_active(near)
        >>> _ = mesher.update()
        >>> sorted(mesher.meshes)  # the ground in the four columns of chunks in view; nothing else is meshed
        [(0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 0, 1)]
        """
        self._check_active(active)
        turned_on: set[tuple] = set(map(tuple, np.argwhere(active & ~self._active).tolist()))
        turned_off: set[tuple] = set(map(tuple, np.argwhere(~active & self._active).tolist()))
        self._active = active.copy()
        self._bump(turned_on | turned_off)
        self._activated = (self._activated - turned_off) | turned_on
        self._deactivated = (self._deactivated - turned_on) | turned_off
        self._relevelled -= turned_off
        return frozenset(turned_on | turned_off)

    @property
    def surface_chunks(self) -> np.ndarray:
        """The active chunks whose level of detail shows (a bool array of the chunk grid's shape): those whose
        surface has vertices, or is not made yet. A new level for any other chunk costs nothing."""
        return self._active & ~self._vertex_free

    @property
    def display_levels(self) -> np.ndarray:
        """The display mesh's simplification levels per chunk (a copy, int64 of the chunk grid's shape)."""
        return self._levels.copy()

    @property
    def display_levels_revision(self) -> int:
        """Raised each time :meth:`set_display_levels` changes a level: unchanged, :attr:`display_levels` is too
        (a caller comparing them every frame need not copy them)."""
        return self._levels_revision

    def set_display_levels(self, levels: np.ndarray) -> frozenset[tuple[int, int, int]]:
        """Simplify the display mesh of each chunk (i, j, k) at most ``levels[i, j, k]`` octree levels deep (0:
        every cell's vertex, voxel-scale detail; up to the options' ``levels``), from the next
        :meth:`simplify_vertices` on: a chunk whose level changed is simplified again from its vertices, and it and
        the upper neighbours joining a changed border cell are remeshed. Chunks at different levels meet without
        cracks (each quad joins the vertices the chunks around it chose). The collision meshes do not change.
        Returns the chunks whose level changed. ParameterError, before anything changes, for ``levels`` not an
        integer array of the chunk grid's shape within 0 .. options.levels.

        Examples
        --------
        >>> from voxelworld.meshing import ChunkMesher
        >>> from voxelworld.terrain import VoxelVolume
        >>> ground = VoxelVolume.from_sdf(lambda x, y, z: y - 20.3 + 0.2 * np.sin(x), (64, 40, 64), material="soil")
        >>> mesher = ChunkMesher(ground)
        >>> coarse = mesher.update().meshes[(0, 0, 0)].triangle_count
        >>> levels = mesher.display_levels
        >>> levels[0, 0, 0] = 0
        >>> mesher.set_display_levels(levels)
        frozenset({(0, 0, 0)})
        >>> mesher.update().meshes[(0, 0, 0)].triangle_count > coarse
        True
        """
        grid, top = self.volume.chunk_grid_shape, self.options.levels
        check_range("levels", described(levels), f"an integer array of the chunk grid's shape {grid}",
                    isinstance(levels, np.ndarray) and levels.dtype.kind in "iu" and levels.shape == grid)
        check_range("levels", f"{levels.min()}..{levels.max()}", f"levels within 0..{top} (the options' levels)",
                    bool(np.all((levels >= 0) & (levels <= top))))
        changed: frozenset[tuple] = frozenset(map(tuple, np.argwhere(levels != self._levels).tolist()))
        self._levels = levels.astype(np.int64)
        self._levels_revision += bool(changed)
        self._bump(changed)
        if self._fields is not None:
            self._relevelled |= changed
        return changed

    @property
    def detail_levels(self) -> np.ndarray:
        """The level of detail per chunk (:meth:`set_detail_levels`; a copy, int64 of the chunk grid's shape)."""
        return self._detail.copy()

    def set_detail_levels(self, levels: np.ndarray) -> frozenset[tuple[int, int, int]]:
        """Coarsen the display mesh of each chunk (i, j, k) to level of detail ``levels[i, j, k]`` (0 ..
        :data:`~voxelworld.meshing.detail.MAX_DETAIL_LEVEL`), from the next :meth:`simplify_vertices` on: at
        octree levels 1..L its vertices merge wherever the topology and the two-kinds rule allow, whatever the
        shape error (a *floor*; ``options.tolerance`` still rules the levels above, up to its display level), so a
        chunk at level L keeps about 4^-L of its triangles and at most two materials per triangle. From
        :data:`~voxelworld.meshing.detail.FEATURE_FLOOR_LEVEL` on the floor waives the topology test, the two kinds
        and the one vertex per cell too (small features vanish; the surface may pinch, and back-to-back triangle
        pairs are dropped), so rough ground coarsens as well. Level 0 is the mesher as without levels of detail.
        Pick the levels with :func:`voxelworld.meshing.detail_levels` (by distance to the viewers, relaxed to the
        2:1 rule between neighbouring chunks). Chunks at different
        levels meet without cracks; a chunk whose level changed is simplified again from its vertices, and it
        and the upper neighbours joining a changed border cell are remeshed and handed over in one update. The
        collision meshes do not change. Returns the chunks whose level changed. ParameterError, before anything
        changes, for ``levels`` not an integer array of the chunk grid's shape within 0 .. MAX_DETAIL_LEVEL.

        Examples
        --------
        >>> from voxelworld.meshing import ChunkMesher
        >>> from voxelworld.terrain import VoxelVolume
        >>> ground = VoxelVolume.from_sdf(lambda x, y, z: y - 20.3 + 1.5 * np.sin(x / 3) * np.cos(z / 4),
        ...                               (64, 40, 64), material="soil")
        >>> mesher = ChunkMesher(ground)
        >>> fine = mesher.update().meshes[(1, 0, 1)].triangle_count
        >>> levels = mesher.detail_levels
        >>> levels[1, :, 1] = 3
        >>> sorted(mesher.set_detail_levels(levels))
        [(1, 0, 1), (1, 1, 1)]
        >>> 4 * mesher.update().meshes[(1, 0, 1)].triangle_count < fine
        True
        """
        self._check_detail(levels)
        planes = self._plane_levels() > 0
        changed: frozenset[tuple] = frozenset(map(tuple, np.argwhere(levels != self._detail).tolist()))
        self._detail = levels.astype(np.int64)
        self._bump(changed)
        if self._fields is not None:
            self._relevelled |= changed
            if not planes and self._plane_levels() > 0:
                # The vertices were made without the tangent planes a merge needs: make them again.
                self._refresh(set(all_chunks(self.volume)))
        return changed

    def prepare_changes(self, active: np.ndarray, levels: np.ndarray) -> PreparedChanges:
        """Start working out, on a background thread at a lower priority, what :meth:`set_active` (``active``) and
        :meth:`set_detail_levels` (``levels``) will need: the surfaces of the chunks turning active or changing
        level, and the display meshes of those and of the neighbours joining them (or losing a neighbour turning
        inactive). Nothing changes until :meth:`apply_changes` takes the result, some frames later. Made from a
        snapshot of the fields the mesher saw (meshed first if it never was). ParameterError, before anything
        starts, for arrays :meth:`set_active` or :meth:`set_detail_levels` refuse.

        Examples
        --------
        >>> from voxelworld.meshing import ChunkMesher
        >>> from voxelworld.terrain import SparseVolume, Box
        >>> world = SparseVolume((256, 64, 256), chunk_size=32)
        >>> _ = world.add(Box((0.0, 0.0, 0.0), (255.0, 20.0, 255.0)), "soil")
        >>> mesher = ChunkMesher(world)
        >>> near = np.zeros(world.chunk_grid_shape, dtype=bool); near[:2, :, :2] = True
        >>> _ = mesher.set_active(near); _ = mesher.update()
        >>> wider = near.copy(); wider[2, :, :2] = True
        >>> prepared = mesher.prepare_changes(wider, mesher.detail_levels)  # the world goes on meanwhile
        >>> sorted(mesher.apply_changes(prepared))
        [(2, 0, 0), (2, 0, 1), (2, 1, 0), (2, 1, 1)]
        >>> sorted(c for c, mesh in mesher.update().meshes.items() if mesh.triangle_count)  # the new ground
        [(2, 0, 0), (2, 0, 1)]
        """
        grid = self.volume.chunk_grid_shape
        check_range("active", described(active), f"a bool array of the chunk grid's shape {grid}",
                    isinstance(active, np.ndarray) and active.dtype == bool and active.shape == grid)
        self._check_detail(levels)
        if self._fields is None:
            self.update()
        fields = cast(Volume, self._fields)  # made by the update just above if not before
        active, levels = active.copy(), levels.astype(np.int64)
        turning_on, turning_off = active & ~self._active, ~active & self._active
        relevelled = active & self._active & (levels != self._detail) & ~self._vertex_free
        surfaces = tuple(map(tuple, np.argwhere(turning_on | relevelled).tolist()))
        near_off = {u for chunk in map(tuple, np.argwhere(turning_off).tolist())
                    for u in upper_neighbours(chunk, grid) if active[u]}
        # The voxels the work reads (two chunks around: the joined neighbours' surfaces and their occlusion) are
        # made current where the mesher does not follow them; elsewhere its copy is what it saw, as of _seen.
        versions = self._take_unfollowed(spread(turning_on | turning_off | (levels != self._detail), 2, 2))
        planes = self._plane_levels(levels)
        job = PreparedJob(surfaces, tuple(sorted(near_off)), {c: self._raw[c] for c in surfaces if c in self._raw},
                          self._display_surfaces.copy(surfaces), self._display_surfaces.copy(),
                          self._levels.copy(), levels, active, planes, self._vertex_free & ~turning_on)
        future: Future[PreparedResult | None]
        if planes > 0 and self._plane_levels() == 0:
            future = Future()  # every raw surface must be made again with planes: apply_changes does it all
            future.set_result(None)
        else:
            future = background_executor().submit(_prepare, self, job, fields.snapshot(MESHED_FIELDS))
        return PreparedChanges(active, levels, versions, self._stamps.copy(), surfaces, future)

    def apply_changes(self, prepared: PreparedChanges) -> frozenset[tuple[int, int, int]]:
        """Make the changes :meth:`prepare_changes` worked out (waiting for it if it is not done): the active
        chunks and levels of detail it was given, with its surfaces and meshes wherever nothing they were made of
        changed since (the voxels around them, the levels and activity of the chunks they read); the rest is done
        by the next :meth:`update`, as after :meth:`set_active` and :meth:`set_detail_levels`. The next update
        reports the meshes either way. Returns the chunks whose activity or level changed."""
        check_range("prepared", described(prepared), "a PreparedChanges of this mesher's chunk grid",
                    isinstance(prepared, PreparedChanges) and prepared.active.shape == self.volume.chunk_grid_shape)
        if prepared.deferred:
            return self._land(prepared)
        result: PreparedResult | None = result_of(prepared.future)
        changed = self.volume.chunk_versions != prepared.versions
        restamped = self._stamps != prepared.stamps
        # A surface reads the voxels one chunk around; a mesh joins the surfaces of its chunk and lower neighbours
        # (voxels from two chunks below to one above, with the occlusion's reach).
        stale_surface = spread(changed, 1, 1) | restamped
        stale_mesh = spread(changed, 2, 1) | spread(restamped, 1, 0)
        turned = self.set_active(prepared.active) | self.set_detail_levels(prepared.detail)
        if result is None:
            return turned
        self._forget_inactive()
        self._deactivated = set()
        made = set()
        for chunk in prepared.surfaces:
            if stale_surface[chunk] or not self._active[chunk]:
                continue
            if chunk in self._activated:  # as refresh_vertices makes a chunk turning active
                self._activated.discard(chunk)
                raw = result.raw.get(chunk)
                self._raw[chunk] = raw if raw is not None else self._raw_surface(chunk)
                self._raw_kept += 1  # (the next update lets go of it where the chunk is cold)
                self._forget_collision(chunk)
                self._simplified.add(chunk)
            self._relevelled.discard(chunk)
            self._display_surfaces[chunk] = result.display[chunk]
            self._vertex_free[chunk] = result.display[chunk].vertex_count == 0
            made.add(chunk)
        waiting = set(prepared.surfaces) - made
        for chunk, surface in result.warm.items():  # cold neighbours' surfaces made again: kept where still true
            if not stale_surface[chunk] and self._active[chunk] and chunk not in self._display_surfaces:
                self._display_surfaces[chunk] = surface
        for chunk, mesh in result.meshes.items():
            lower = lower_block(chunk)
            if stale_mesh[chunk] or not self._active[chunk] or any(c in waiting for c in lower):
                self._remesh.add(chunk)
                continue
            self._remesh.discard(chunk)
            self._installed[chunk] = mesh
            if mesh.triangle_count:
                self._display[chunk] = mesh
            else:
                self._display.pop(chunk, None)
        return turned

    def _bump(self, chunks: Iterable[tuple]) -> None:
        for chunk in chunks:
            self._stamps[chunk] += 1

    def _check_active(self, active: np.ndarray) -> None:
        grid = self.volume.chunk_grid_shape
        check_range("active", described(active), f"a bool array of the chunk grid's shape {grid}",
                    isinstance(active, np.ndarray) and active.dtype == bool and active.shape == grid)

    def _check_detail(self, levels: np.ndarray) -> None:
        grid = self.volume.chunk_grid_shape
        check_range("levels", described(levels), f"an integer array of the chunk grid's shape {grid}",
                    isinstance(levels, np.ndarray) and levels.dtype.kind in "iu" and levels.shape == grid)
        check_range("levels", f"{levels.min()}..{levels.max()}", f"levels of detail within 0..{MAX_DETAIL_LEVEL}",
                    bool(np.all((levels >= 0) & (levels <= MAX_DETAIL_LEVEL))))

    def _take_unfollowed(self, reads: np.ndarray) -> np.ndarray:
        """Make the mesher's copy of the voxels current at the chunks ``reads`` (a bool grid) it does not follow
        (elsewhere its copy is what it saw, as of ``_seen``), copying only those changed since it last took them
        (``_copied``: a job at the view's edge reads the same unfollowed chunks as the one before). Returns the
        chunk versions the copy holds (what a job's work is checked against when it lands)."""
        volume, fields = self.volume, cast(Volume, self._fields)
        versions = volume.chunk_versions
        unfollowed = self._seen < 0
        stale = reads & unfollowed & (self._copied != versions)
        for chunk in map(tuple, np.argwhere(stale).tolist()):
            volume.copy_chunk_to(fields, chunk, MESHED_FIELDS)
        self._copied[stale] = versions[stale]
        return np.where(unfollowed, versions, self._seen)

    def _plane_levels(self, detail: np.ndarray | None = None) -> int:
        """The deepest simplification any surface may need (at the levels of ``detail``, the mesher's by default): the
        raw vertices carry tangent planes when it is > 0."""
        detail = self._detail if detail is None else detail
        return max(self.options.levels, self.options.collision_levels, int(detail.max(initial=0)))


def described(value: object) -> str:
    """An array as its dtype and shape, anything else as its type's name: what an error message shows of it."""
    return f"{value.dtype}{value.shape}" if isinstance(value, np.ndarray) else type(value).__name__
