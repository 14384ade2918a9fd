"""`ChunkMesher`: keeping chunk meshes current as the terrain changes.

This module holds the mesher's bookkeeping of what it saw (its copy of the fields, the chunk versions, the surfaces
and meshes it keeps) and its update steps; its other parts are classes it inherits, each in a module of its own:
:mod:`.mesher_levels` (active chunks, display levels, levels of detail, changes prepared in the background),
:mod:`.mesher_collision` (collision meshes on request) and :mod:`.mesher_state` (handing over what it saw). How the
meshes of neighbouring chunks join is :mod:`.chunk_joins`; the surfaces and meshes themselves are made by
:mod:`.chunk_surfaces`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import product
from typing import cast

import numpy as np

from ..errors import check_integer
from ..terrain import MaterialTable, SparseVolume, Volume
from ..terrain.sparse import ChunkStore
from . import _kernels
from ._kernels.changes import changed_box
from .baked import BakedMeshes, adopt_baked
from .chunk_joins import assemble_displays, neighbours_seeing_changes, upper_neighbours
from .chunk_surfaces import (
    MESHED_FIELDS,
    DensityWindow,
    check_mesher_inputs,
    display_form,
    map_on_cores,
    raw_surface,
    raw_surface_and_density,
    unchanged_surface,
)
from .mesh import CollisionMesh, DisplayMesh, merge_display_meshes, with_occlusion
from .mesher_collision import MesherCollision
from .mesher_deferred import MesherDeferred
from .mesher_levels import MesherLevels
from .mesher_state import MesherState
from .options import MeshOptions
from .surface import ChunkSurface, PackedSurfaces

__all__ = ["ChunkMesher", "MeshUpdate", "MESHED_FIELDS"]

# Chunks at this level of detail or finer keep their surfaces between updates (ChunkMesher.is_hot): within 64 m of
# an actor with the default bands, where edits and collisions are (a raw surface with its quadrics takes about
# 200 bytes a vertex: the 1 km world's levels 0-2 held 160 MiB of them).
HOT_DETAIL_LEVEL = 1
# A refresh of at most this many chunks (an edit's) keeps the density windows their raw surfaces read for their
# simplifications (three gathers of a chunk's window become one); a streaming step's many do not hold them.
DENSITY_KEPT_CHUNKS = 16


@dataclass(frozen=True)
class MeshUpdate:
    """What one :meth:`ChunkMesher.update` changed: the new display mesh of every remeshed chunk (an empty mesh
    where a chunk's surface vanished), handed over together so a renderer never shows a half-updated seam."""

    meshes: dict[tuple[int, int, int], DisplayMesh]
    surfaces_rebuilt: frozenset[tuple[int, int, int]]  # chunks whose vertices were recomputed

    @property
    def remeshed(self) -> frozenset[tuple[int, int, int]]:
        """The chunks whose display mesh was rebuilt."""
        return frozenset(self.meshes)


class ChunkMesher(MesherState, MesherLevels, MesherDeferred, MesherCollision):
    """Display meshes per chunk of a volume, kept current by :meth:`update`, and collision meshes on request.

    Parameters
    ----------
    volume : VoxelVolume
        The terrain; edited by anyone, watched through its chunk versions (the mesher never takes the volume's
        dirty set, which stays for other consumers such as a store).
    materials : MaterialTable, optional
        Decides which materials are one kind; the volume's table by default.
    options : MeshOptions
    refresh_interval : int
        Updates (>= 1) between two takings of one chunk's changes: a chunk changed again within
        ``refresh_interval`` updates of the update that last took its changes waits for the rest of them (its
        changes meanwhile land together), so that a chunk dug every frame is remeshed every ``refresh_interval``
        frames while one dug once is remeshed by the next update; 1 (the default) takes every change at once.
        Changes are taken a chunk of the volume at a time, every chunk whose cells read them remeshed together:
        the meshes are always those of one set of fields, never cracked where a waiting chunk meets a remeshed one.

    Notes
    -----
    ``update`` compares every chunk the volume reports changed with the fields the mesher last saw, so a
    blocked edit (damage only) or one that changed nothing remeshes nothing. A changed sample rebuilds the
    vertices of the chunks whose cells read it (their own samples, one layer below and two above); a chunk's
    mesh is rebuilt when its vertices changed, or the border vertices of a lower neighbour it joins did; it is
    shaded again (its occlusion recomputed, reported if that changed it) when a changed sample lies within the
    occlusion rays' reach of its vertices. :meth:`set_display_levels` simplifies chunks at levels of their own;
    :meth:`set_detail_levels` coarsens far chunks (levels of detail, see :func:`voxelworld.meshing.detail_levels`).

    The mesher meshes its *active* chunks (every chunk by default): :meth:`set_active` narrows them to those in
    view of a large world's actors. It keeps its copy of the fields current only around them (the chunks their
    cells read), so edits elsewhere cost nothing until a chunk turns active; an inactive chunk has no display or
    collision mesh.

    Examples
    --------
    >>> from voxelworld.terrain import VoxelVolume, Sphere
    >>> ground = VoxelVolume.from_sdf(lambda x, y, z: y - 20.0, (64, 40, 64), material="soil")
    >>> mesher = ChunkMesher(ground)
    >>> first = mesher.update()
    >>> _ = ground.remove(Sphere((10.0, 20.0, 10.0), 3.0))
    >>> sorted(mesher.update().remeshed)
    [(0, 0, 0)]
    """

    def __init__(self, volume: Volume, materials: MaterialTable | None = None,
                 options: MeshOptions = MeshOptions(), refresh_interval: int = 1):
        self.materials, self.options = check_mesher_inputs(volume, materials, options)
        self.volume = volume
        self.refresh_interval = check_integer("refresh_interval", refresh_interval, minimum=1)
        # Calls of refresh_vertices so far, and the call that last took each chunk's changes (refresh_interval).
        self._refreshes = 0
        self._taken_at = np.full(volume.chunk_grid_shape, -refresh_interval, dtype=np.int64)
        # The chunks of voxels whose changes the last refresh_vertices took, each with the inclusive sample box
        # where they lie (lo, hi).
        self.taken_changes: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        # Times each chunk's collision mesh was dropped (collision_key compares them, a slice at a time).
        self._collision_revisions = np.zeros(volume.chunk_grid_shape, dtype=np.int64)
        self._followed_of: tuple[np.ndarray, np.ndarray] | None = None  # (_active, what _followed made of it)
        self._chunk_lists: dict[tuple, tuple] = {}  # the chunks of a box of the grid, by box and activity (_chunks_in)
        # The display mesh's simplification levels per chunk (set_display_levels), the options' everywhere at first.
        self._levels = np.full(volume.chunk_grid_shape, self.options.levels, dtype=np.int64)
        self._levels_revision = 0  # raised by set_display_levels when a level changes (display_levels_revision)
        self._active = np.ones(volume.chunk_grid_shape, dtype=bool)  # the chunks meshed (set_active)
        # The level of detail per chunk (set_detail_levels): simplified at least that deep, 0 everywhere at first.
        self._detail = np.zeros(volume.chunk_grid_shape, dtype=np.int64)
        # Raised whenever what a chunk's display surface is made of changes (its vertices, level, activity):
        # changes prepared before that are stale for it (apply_changes).
        self._stamps = np.zeros(volume.chunk_grid_shape, dtype=np.int64)
        # Baked display meshes the mesher takes where they are what it would make (meshing/baked.py), and how many
        # chunks' surfaces it made (_refresh) and how many baked meshes it took instead, since it was made.
        self.baked: BakedMeshes | None = None
        self.chunks_meshed = 0
        self.chunks_adopted = 0
        self._start_over()

    def _start_over(self) -> None:
        """Forget everything meshed: the mesher as made, before its first update (collision revisions go on)."""
        # The chunk versions of the mesher's copy of the fields; -1 where it does not follow the chunk (before the
        # first update, and away from the active chunks).
        self._seen = np.full(self.volume.chunk_grid_shape, -1, dtype=np.int64)
        # The volume's revision and the followed chunks _seen was last taken at (refresh_vertices: unchanged, it
        # looks at no chunk); reset wherever _seen is set otherwise.
        self._seen_as_of: tuple[int, np.ndarray | None] = (-1, None)
        # The chunk versions the copy holds of chunks the mesher does not follow, where known (-1: not known): a
        # job taking them current copies only those changed since (MesherLevels._take_unfollowed).
        self._copied = np.full(self.volume.chunk_grid_shape, -1, dtype=np.int64)
        self._stamps += 1
        # The fields as of the last refresh (None before the first): what every surface is made from; a snapshot
        # of the volume's meshed fields (a dense copy of a dense volume, chunks shared with a sparse one).
        self._fields: Volume | None = None
        self._raw: dict[tuple, ChunkSurface] = {}
        self._raw_kept = 0  # raw surfaces kept so far (_cool)
        # The density windows the raw surfaces the last refresh made read (a few chunks': an edit's), for the same
        # chunks' display and collision simplifications until the fields change (the next refresh).
        self._density: dict[tuple, DensityWindow] = {}
        # (_raw_kept, the levels of detail array) when _cool last looked (set_detail_levels makes a new array)
        self._cooled: tuple[int, np.ndarray] | None = None
        self._display_surfaces = PackedSurfaces()  # every active chunk's (packed: about 8 KiB of cells a chunk)
        self._collision_surfaces: dict[tuple, ChunkSurface] = {}
        # Chunks refreshed since the last collision query whose collision surface was kept: that surface, to tell
        # which collision meshes the new one changes (_settle_collision).
        self._collision_stale: dict[tuple, ChunkSurface] = {}
        self._display: dict[tuple, DisplayMesh] = {}
        self._collision: dict[tuple, CollisionMesh] = {}
        # Between the steps of update(): chunks whose vertices were refreshed but not yet simplified, those
        # simplified since the last display report, and those whose display mesh waits to be assembled.
        self._refreshed: set[tuple] = set()
        self._simplified: set[tuple] = set()
        self._remesh: set[tuple] = set()
        # Chunks whose display surface waits to be simplified again at a new level (set_display_levels), and
        # those whose occlusion reads a changed sample (their mesh is shaded again unless it is rebuilt anyway).
        # Chunks turned active or inactive since the last refresh (set_active).
        self._activated: set[tuple] = set()
        self._deactivated: set[tuple] = set()
        self._dropped: set[tuple] = set()  # inactive chunks whose display mesh the next report empties
        self._relevelled: set[tuple] = set()
        self._shade: set[tuple] = set()
        self._shade_boxes: list[tuple[np.ndarray, np.ndarray]] = []  # where the samples those chunks read changed
        self._installed: dict[tuple, DisplayMesh] = {}  # meshes apply_changes installed, for the next report
        # Active chunks whose raw surface, as last made, has no vertex: at any level their display surface is
        # empty, so a new level makes nothing again (and nothing of theirs is warmed for a neighbour's mesh).
        self._vertex_free = np.zeros(self.volume.chunk_grid_shape, dtype=bool)
        # Display work owed (defer_changes): active chunks whose display surface is owed at their level, and those
        # whose display mesh is owed; the background thread makes them (prepare_deferred).
        self._deferred: set[tuple] = set()
        self._deferred_remesh: set[tuple] = set()
        self._edits_while_owed: dict[tuple, int] = {}  # owed chunks edited since they were owed (defer_refreshed)
        self._due: dict[tuple, int] = {}  # owed chunks the update steps make soon, frames waited (defer_refreshed)
        self._quiet = False  # the last refresh remade no chunk (MesherDeferred._take_due)

    # ------------------------------------------------------------------------------------------- update
    def update(self) -> MeshUpdate:
        """Remesh what changed since the last call (everything on the first) and return the new meshes: the
        three steps :meth:`refresh_vertices`, :meth:`simplify_vertices` and :meth:`build_display_meshes` in a
        row."""
        self.refresh_vertices()
        self.simplify_vertices()
        return self.build_display_meshes()

    def refresh_vertices(self) -> frozenset[tuple[int, int, int]]:
        """Step 1 of :meth:`update`: recompute the dual vertices of every chunk whose cells read a sample that
        changed since the last call (every chunk on the first); their collision meshes are dropped. Returns
        those chunks (what :attr:`MeshUpdate.surfaces_rebuilt` reports). :attr:`taken_changes` then holds, for each
        chunk of voxels whose changes it took, the inclusive sample box where they lie (lo, hi)."""
        volume = self.volume
        versions = volume.chunk_versions
        followed = self._followed()
        self._refreshes += 1
        seen = (volume.revision, followed)
        self._density = {}  # (of the fields before this refresh)
        self.taken_changes = {}
        if self._fields is not None and not (self._activated or self._deactivated) \
                and seen[0] == self._seen_as_of[0] and seen[1] is self._seen_as_of[1]:
            return self._refresh(set())  # the usual frame: no chunk changed, the same ones followed
        self._seen_as_of = seen
        if self._fields is None:
            self._fields = volume.snapshot(MESHED_FIELDS)
            rebuild = self._active_chunks()
            self._seen = np.where(followed, versions, -1)
            self._copied = versions.copy()  # (every chunk as the volume holds it now)
        else:
            rebuild = set()
            # (Most frames change nothing: ``any`` is a fraction of what listing the chunks costs on a large grid.)
            changed = (self._seen >= 0) & (versions != self._seen)
            waiting = self._waiting(changed)  # (taken off changed)
            for chunk in map(tuple, np.argwhere(changed).tolist() if changed.any() else ()):
                changed = self._take_changes(chunk, volume)
                if changed is not None:
                    self.taken_changes[chunk] = changed
                    rebuild |= self._chunks_reading(*changed)
                    self._shade |= self._chunks_shading(*changed)
                    self._shade_boxes.append(changed)
            # Chunks the mesher starts to follow take the volume's voxels as they are (nothing of theirs was
            # meshed; those its copy holds as they are, _copied, are not copied again); those it stops following
            # keep what it saw, to be taken again should it follow them again.
            taken = followed & (self._seen < 0) & (self._copied != versions)
            for chunk in map(tuple, np.argwhere(taken).tolist() if taken.any() else ()):
                volume.copy_chunk_to(self._fields, chunk, MESHED_FIELDS)
            self._copied[taken] = versions[taken]
            self._seen = np.where(followed, np.where(waiting, self._seen, versions), -1)
            if waiting.any():
                self._seen_as_of = (-1, None)  # (the next refresh looks at them again)
            rebuild |= self._activated
            self._forget_inactive()
        self._activated, self._deactivated = set(), set()
        active = self._active
        return self._refresh({chunk for chunk in rebuild if active[chunk]})

    def _waiting(self, changed: np.ndarray) -> np.ndarray:
        """Of the ``changed`` chunks (a bool array of the grid), those whose changes wait this refresh: taken
        within the last ``refresh_interval`` refreshes. Takes them off ``changed`` and notes the others as taken
        now."""
        if self.refresh_interval == 1 or not changed.any():
            return np.zeros_like(changed)
        waiting = changed & (self._taken_at > self._refreshes - self.refresh_interval)
        changed &= ~waiting
        self._taken_at[changed] = self._refreshes
        return waiting

    def _followed(self) -> np.ndarray:
        """The chunks whose voxels the mesher follows: the active ones and those their cells read (the neighbours
        one chunk away). Kept while the active chunks are the same array (set_active makes a new one)."""
        active = self._active
        kept = self._followed_of
        if kept is not None and kept[0] is active:
            return kept[1]
        followed = active.copy()
        if not active.all():
            for axis in range(3):
                grown = followed.copy()
                head = [slice(None)] * 3
                tail = [slice(None)] * 3
                head[axis], tail[axis] = slice(1, None), slice(None, -1)
                grown[tuple(head)] |= followed[tuple(tail)]
                grown[tuple(tail)] |= followed[tuple(head)]
                followed = grown
        followed.flags.writeable = False  # (kept: see above)
        self._followed_of = (active, followed)
        return followed

    def let_go(self, chunks: Iterable[tuple]) -> None:
        """The volume let go of the voxels of ``chunks`` (its store holds them): the mesher's copy of those it does
        not follow lets go too (it takes a chunk from the volume again before it reads it)."""
        if self._fields is None:
            return
        # Only a volume with a store behind it lets go of chunks: a SparseVolume, and its snapshot the copy.
        fields, volume = cast(SparseVolume, self._fields), cast(SparseVolume, self.volume)
        if fields.store is not volume.store:  # a save moved the volume to another store (a new file):
            # it holds what the copy left in the old one as the copy saw it (the mesher takes a chunk changed
            # since from the volume before it reads it)
            fields.attach_store(cast(ChunkStore, volume.store))  # not None: the volume let go of chunks to it
        for chunk in chunks:
            if self._seen[chunk] < 0:
                volume.copy_chunk_to(fields, chunk, MESHED_FIELDS)

    def _active_chunks(self) -> set[tuple]:
        return set(map(tuple, np.argwhere(self._active).tolist()))

    def _forget_inactive(self, owed: bool = False) -> None:
        """Drop the surfaces and meshes of the chunks turned inactive; their display meshes are reported empty. The
        upper neighbours joining them are remeshed by the next update, or with ``owed`` their meshes are owed
        (:meth:`defer_changes`)."""
        self._forget_owed(sorted(self._deactivated))
        remesh = self._deferred_remesh if owed else self._remesh
        for chunk in sorted(self._deactivated):
            self._vertex_free[chunk] = False
            for store in (self._raw, self._display_surfaces, self._collision_surfaces):
                store.pop(chunk, None)
            self._forget_collision(chunk)
            if self._display.pop(chunk, None) is not None:
                self._dropped.add(chunk)
            # The upper neighbours' quads that joined its border vertices go with it.
            remesh |= {u for u in upper_neighbours(chunk, self.volume.chunk_grid_shape) if self._active[u]}

    def _refresh(self, rebuild: set[tuple]) -> frozenset[tuple[int, int, int]]:
        """Remake the raw surfaces of the chunks ``rebuild`` from the mesher's copy of the fields (drop their
        collision meshes) and mark them for simplification."""
        self._quiet = not rebuild
        levels = self._plane_levels()
        adopted = adopt_baked(self, rebuild) if self.baked is not None else set()  # (meshing/baked.py)
        order = sorted(rebuild - adopted)
        self.chunks_meshed += len(order)
        fields = self._fields
        keep_density = len(order) <= DENSITY_KEPT_CHUNKS
        for chunk, (raw, density) in zip(order, map_on_cores(
                lambda c: raw_surface_and_density(self.volume, c, self.options, levels, fields=fields), order)):
            self._raw[chunk] = raw
            if keep_density and density is not None:
                self._density[chunk] = density
            self._raw_kept += 1  # (the next update lets go of it where the chunk is cold)
            self._vertex_free[chunk] = raw.vertex_count == 0
            self._refresh_collision(chunk)
            self._stamps[chunk] += 1
        self._refreshed |= rebuild - adopted
        return frozenset(rebuild)

    def simplify_vertices(self) -> frozenset[tuple[int, int, int]]:
        """Step 2 of :meth:`update`: simplify the vertices step 1 refreshed into display surfaces. Returns the
        chunks whose display mesh must be rebuilt: those whose display surface changed, and the upper
        neighbours joining a changed border cell."""
        made = self._refreshed | self._take_due()  # (a due chunk's vertices were made again, as a refreshed one's)
        order = sorted(c for c in made | self._relevelled if self._active[c] and (c in made or not self._vertex_free[c]))
        built = map_on_cores(self._simplified_display, order)
        for chunk, display in zip(order, built):
            old = self._display_surfaces.get(chunk)
            self._display_surfaces[chunk] = display
            self._deferred.discard(chunk)  # made here at its level: owed no more
            if unchanged_surface(old, display):
                continue
            self._remesh.add(chunk)
            self._remesh |= neighbours_seeing_changes(self.volume.chunk_grid_shape, chunk, old, display)
        self._simplified |= self._refreshed
        self._refreshed, self._relevelled = set(), set()
        return frozenset(self._remesh)

    def build_display_meshes(self) -> MeshUpdate:
        """Step 3 of :meth:`update`: assemble the display mesh of every chunk step 2 named, and report them with
        the chunks whose vertices were refreshed since the last report."""
        volume = self.volume
        meshes = {chunk: DisplayMesh.empty() for chunk in sorted(self._dropped)}
        meshes |= self._installed
        order = sorted(c for c in self._remesh if self._active[c])
        fields = self._fields
        built, warm = assemble_displays(volume, fields, order, self._display_surfaces, self._active,
                                        self._vertex_free, self._simplified_display)
        self._display_surfaces.update(warm)  # kept: the next meshes joining them read them again
        self._deferred_remesh -= built.keys()  # made here from the surfaces kept: owed no more
        for chunk, mesh in built.items():
            meshes[chunk] = mesh
            if mesh.triangle_count:
                self._display[chunk] = mesh
            else:
                self._display.pop(chunk, None)
        # A chunk whose surfaces did not change keeps its triangles; where its occlusion reads a changed sample it
        # is shaded again, and reported if that changed it.
        # (One whose display surface is owed gets a mesh made after the change: not shaded now.)
        shade = sorted(c for c in self._shade - self._remesh if c in self._display and c not in self._deferred)
        boxes = self._shade_boxes
        # Only a chunk with a display mesh is shaded: made from the fields (never None then); a mesh's occlusion is
        # never None once made (DisplayMesh.__post_init__).
        for chunk, mesh in zip(shade, map_on_cores(
                lambda c: with_occlusion(self._display[c], cast(Volume, fields), volume, boxes), shade)):
            if not np.array_equal(cast(np.ndarray, mesh.occlusion), cast(np.ndarray, self._display[chunk].occlusion)):
                meshes[chunk] = self._display[chunk] = mesh
        update = MeshUpdate(meshes, frozenset(self._simplified))
        self._remesh, self._simplified, self._shade, self._shade_boxes = set(), set(), set(), []
        self._dropped, self._installed = set(), {}
        self._cool()
        return update

    @property
    def hot_chunks(self) -> np.ndarray:
        """Which chunks are hot (:meth:`is_hot`; a bool array of the chunk grid's shape)."""
        return self._detail <= HOT_DETAIL_LEVEL

    def is_hot(self, chunk: tuple) -> bool:
        """Whether the mesher keeps ``chunk``'s surfaces between updates: at the finer levels of detail (up to
        :data:`HOT_DETAIL_LEVEL`), near the actors, where edits, collisions and most level changes are. A far
        chunk keeps its display mesh alone; its surfaces are made again from the same fields, bit for bit, when it
        or a neighbour is remeshed (dearer, so a streaming world budgets such changes higher)."""
        return self._detail[chunk] <= HOT_DETAIL_LEVEL

    def _cool(self) -> None:
        """Drop the raw and collision surfaces of the cold chunks (:meth:`is_hot`). Every active chunk keeps its
        display surface (without the quadrics, which only a new simplification of the raw surface reads): the
        neighbours remeshed with a level change read it, and making it again was two thirds of a streaming
        world's meshing work; an inactive chunk drops it."""
        # Nothing new to let go of unless a raw surface was kept or the levels changed since the last time (a
        # frame's look at every chunk's level, two grid-wide passes, otherwise).
        cooled = self._cooled
        if cooled is not None and cooled[0] == self._raw_kept and cooled[1] is self._detail:
            return
        self._cooled = (self._raw_kept, self._detail)
        if not self._detail.any():
            return
        hot = self.hot_chunks  # (one array for all: a method call per kept surface cost more than the rest)
        for chunk in [c for c in self._raw if not hot[c]]:
            del self._raw[chunk]
            self._collision_surfaces.pop(chunk, None)

    def _raw_surface(self, chunk: tuple) -> ChunkSurface:
        """The raw surface of an active chunk: kept, or made again from the mesher's copy of the fields."""
        raw = self._raw.get(chunk)
        if raw is None:
            raw = raw_surface(self.volume, chunk, self.options, self._plane_levels(), fields=self._fields)
        return raw

    def _simplified_display(self, chunk: tuple) -> ChunkSurface:
        """The display surface of an active chunk at its display level and level of detail (without quadrics)."""
        return display_form(cast(Volume, self._fields), self._raw_surface(chunk), self.options, self.materials,
                             int(self._levels[chunk]), int(self._detail[chunk]), self._density.get(chunk))

    def _take_changes(self, chunk: tuple, source: Volume) -> tuple[np.ndarray, np.ndarray] | None:
        """The inclusive sample box where ``source`` (a volume of the same geometry) differs from the mesher's
        copy of the fields in ``chunk`` (None: nowhere); the copy takes ``source``'s chunk."""
        lo, hi = self.volume.chunk_box(chunk)
        current = source.read_window(lo, hi, MESHED_FIELDS)
        fields = cast(Volume, self._fields)  # made by the first refresh (changes are taken after it)
        seen = fields.read_window(lo, hi, MESHED_FIELDS)
        box = np.empty((2, 3), dtype=np.int64)
        # mypy takes *-expansions of unknown length followed by an argument for too many arguments.
        if not changed_box(*(current[name] for name in MESHED_FIELDS),  # type: ignore[call-arg]
                           *(seen[name] for name in MESHED_FIELDS), box):
            return None
        source.copy_chunk_to(fields, chunk, MESHED_FIELDS)
        self._density = {}  # (windows of the fields before)
        return lo + box[0], lo + box[1]

    def _chunks_reading(self, lo: np.ndarray, hi: np.ndarray) -> set[tuple]:
        """The chunks whose vertices read a sample in the inclusive box lo..hi: chunk c's cells read samples
        c*size - 1 .. (c + 1)*size + 1 (corners and their central-difference gradients)."""
        size = self.volume.chunk_size
        grid = np.array(self.volume.chunk_grid_shape)
        first = np.maximum(-((size + 1 - lo) // size), 0)  # ceil((lo - 1 - size) / size)
        last = np.minimum((hi + 1) // size, grid - 1)
        return set(product(*(range(a, b + 1) for a, b in zip(first, last))))

    def _chunks_shading(self, lo: np.ndarray, hi: np.ndarray) -> set[tuple]:
        """The chunks whose display vertices' occlusion reads a sample in the inclusive box lo..hi: chunk c's
        vertices lie in its cells or in its lower neighbours' merged nodes (up to 2^levels cells below it, levels
        the deeper of the options' and the levels of detail of it and its lower neighbours), and
        their occlusion reads up to the rays' reach (and one sample more, interpolating) around them."""
        size = self.volume.chunk_size
        grid = np.array(self.volume.chunk_grid_shape)
        reach = int(np.ceil(_kernels.OCCLUSION_STEPS.max())) + 2
        detail, levels = self._detail, self.options.levels
        below, above = 2 ** max(levels, int(detail.max(initial=0))) + reach, reach
        first = np.maximum(-((size + above - lo) // size), 0)  # ceil((lo - above - size) / size)
        last = np.minimum((hi + below) // size, grid - 1)
        # Of those the deepest level could reach, each by its own and its lower neighbours' levels (an edit far from
        # the coarse levels shades the chunks around it, not those two chunks on): over the candidates at once, the
        # deepest of each chunk's 2 x 2 x 2 block (itself and the lower neighbours within the grid).
        axes = [np.arange(a, b + 1) for a, b in zip(first.tolist(), last.tolist())]
        # Each axis's chunks and their lower neighbours (the first's own at the grid's start), shaped to broadcast.
        own_and_lower = [(cells.reshape(shape), np.maximum(cells - 1, 0).reshape(shape))
                         for cells, shape in zip(axes, ((-1, 1, 1), (1, -1, 1), (1, 1, -1)))]
        deepest = np.zeros(tuple(len(axis) for axis in axes), dtype=np.int64)
        for pick in product((0, 1), repeat=3):
            np.maximum(deepest, detail[tuple(pair[n] for pair, n in zip(own_and_lower, pick))], out=deepest)
        below_each = 2 ** np.maximum(levels, deepest) + reach
        near = np.ones(deepest.shape, dtype=bool)
        for (cells, _), top in zip(own_and_lower, hi.tolist()):
            near &= cells * size - below_each <= top
        return {(int(axes[0][i]), int(axes[1][j]), int(axes[2][k])) for i, j, k in np.argwhere(near).tolist()}

    # ------------------------------------------------------------------------------------------ queries
    @property
    def meshes(self) -> dict[tuple[int, int, int], DisplayMesh]:
        """The current non-empty display mesh of each chunk (a copy of the mapping)."""
        return dict(self._display)

    def display_mesh(self) -> DisplayMesh:
        """All current chunk meshes as one (call :meth:`update` first to catch up with edits)."""
        return merge_display_meshes([self._display[c] for c in sorted(self._display)])
