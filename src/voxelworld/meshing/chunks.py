"""`ChunkMesher`: keeping chunk meshes current as the terrain changes (the surfaces and meshes it keeps are made by
:mod:`.chunk_surfaces`)."""

from __future__ import annotations

import math
from concurrent.futures import Future
from collections import ChainMap
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import product

import numpy as np

from ..errors import ParameterError, check_finite, check_range
from ..terrain import Box, MaterialTable, Volume
from ..terrain.base import FIELD_DTYPES
from .chunk_surfaces import (MESHED_FIELDS, all_chunks, check_mesher_inputs, display_form, map_on_cores,
                             materialised, raw_surface, simplified_surface, unchanged_surface)
from .mesh import (CollisionMesh, DisplayMesh, assemble_chunk, merge_collision_meshes, merge_display_meshes,
                   with_occlusion)
from . import _kernels, tables
from ._kernels.changes import changed_box
from .detail import MAX_DETAIL_LEVEL
from .options import MeshOptions
from .prepared import PreparedChanges, PreparedJob, PreparedResult, background_executor, background_map, spread
from .surface import ChunkSurface, PackedSurfaces

__all__ = ["ChunkMesher", "MeshUpdate", "MESHED_FIELDS"]

# Chunks at this level of detail or finer keep their surfaces between updates (ChunkMesher.is_hot).
HOT_DETAIL_LEVEL = 2


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


def _prepare(mesher: ChunkMesher, job: PreparedJob, fields: Volume) -> PreparedResult:
    """The surfaces and display meshes after ``job``'s changes (a background thread's work for
    :meth:`ChunkMesher.prepare_changes`), from ``fields`` (a snapshot of the mesher's copy of the voxels): the
    same functions of the same data as the mesher's own update steps."""
    volume, options, materials = mesher.volume, mesher.options, mesher.materials

    def display_surface(chunk, raw=None):
        raw = raw_surface(volume, chunk, options, job.planes, fields=fields) if raw is None else raw
        return raw, display_form(fields, raw, options, materials, int(job.levels[chunk]), int(job.detail[chunk]))

    made = background_map(lambda chunk: display_surface(chunk, job.raw.get(chunk)), list(job.surfaces))
    raw_made, display, remesh = {}, {}, set(job.remeshed_for_off)
    for chunk, (raw, new) in zip(job.surfaces, made):
        if chunk not in job.raw:
            raw_made[chunk] = raw
        display[chunk] = new
        old = job.old.get(chunk)
        if unchanged_surface(old, new):
            continue
        remesh.add(chunk)
        remesh |= {c for c in mesher._neighbours_seeing_changes(chunk, old, new) if job.active[c]}
    meshes, warm = _assemble_displays(volume, fields, sorted(remesh), ChainMap(display, job.current), job.active,
                                      job.vertex_free, lambda chunk: display_surface(chunk)[1], background_map)
    return PreparedResult(raw_made, display, meshes, warm)


def _assemble_displays(volume: Volume, fields: Volume, order: list, kept: Mapping, active: np.ndarray,
                       vertex_free: np.ndarray, make_display, map_=map_on_cores) -> tuple[dict, dict]:
    """The display meshes of the chunks ``order`` (made from ``fields``), joining the display surfaces ``kept``
    (chunk -> surface) of them and their lower neighbours; an active neighbour with vertices whose surface is not
    kept (a cold one the mesher let go) gets one from ``make_display(chunk)``. Each surface is read once for all the
    meshes joining it. Returns the meshes and the surfaces made, by chunk."""
    cold = sorted({lower for chunk in order for lower in _lower_block(chunk)
                   if active[lower] and not vertex_free[lower] and lower not in kept})
    warm = dict(zip(cold, map_(make_display, cold)))
    read = {}

    def surface_of(chunk):
        if not active[chunk]:
            return None
        found = read.get(chunk)
        if found is None:
            found = read[chunk] = warm.get(chunk) or kept.get(chunk)
        return found

    meshes = map_(lambda c: assemble_chunk(volume, c, surface_of, collision=False, fields=fields), order)
    return dict(zip(order, meshes)), warm


def _lower_block(chunk) -> product:
    """``chunk`` and its lower neighbours (-1 on some axes, within the grid): the surfaces its quads join."""
    return product(*(range(max(c - 1, 0), c + 1) for c in chunk))


def _upper_neighbours(chunk, grid) -> list[tuple]:
    """The upper neighbours of ``chunk`` (+1 on some axes) within ``grid``: the chunks whose quads join it."""
    uppers = (tuple(c + o for c, o in zip(chunk, offset)) for offset in product((0, 1), repeat=3) if any(offset))
    return [u for u in uppers if all(c < n for c, n in zip(u, grid))]


class ChunkMesher:
    """Display meshes per chunk of a volume, kept current by :meth:`update`, and collision meshes on request.

    Parameters
    ----------
    volume : VoxelVolume
        The terrain; edited by anyone, watched through its chunk versions (the mesher never takes the volume's
        dirty set, which stays for other consumers such as a store).
    materials : MaterialTable, optional
        Decides which materials are one kind; the volume's table by default.
    options : MeshOptions

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
                 options: MeshOptions = MeshOptions()):
        self.materials, self.options = check_mesher_inputs(volume, materials, options)
        self.volume = volume
        # Times each chunk's collision mesh was dropped (collision_key compares them, a slice at a time).
        self._collision_revisions = np.zeros(volume.chunk_grid_shape, dtype=np.int64)
        self._chunk_lists: dict[tuple, tuple] = {}  # the chunks of a box of the grid, by box and activity (_chunks_in)
        # The display mesh's simplification levels per chunk (set_display_levels), the options' everywhere at first.
        self._levels = np.full(volume.chunk_grid_shape, self.options.levels, dtype=np.int64)
        self._active = np.ones(volume.chunk_grid_shape, dtype=bool)  # the chunks meshed (set_active)
        # The level of detail per chunk (set_detail_levels): simplified at least that deep, 0 everywhere at first.
        self._detail = np.zeros(volume.chunk_grid_shape, dtype=np.int64)
        # Raised whenever what a chunk's display surface is made of changes (its vertices, level, activity):
        # changes prepared before that are stale for it (apply_changes).
        self._stamps = np.zeros(volume.chunk_grid_shape, dtype=np.int64)
        self._start_over()

    def _start_over(self) -> None:
        """Forget everything meshed: the mesher as made, before its first update (collision revisions go on)."""
        # The chunk versions of the mesher's copy of the fields; -1 where it does not follow the chunk (before the
        # first update, and away from the active chunks).
        self._seen = np.full(self.volume.chunk_grid_shape, -1, dtype=np.int64)
        self._stamps += 1
        # The fields as of the last refresh (None before the first): what every surface is made from; a snapshot
        # of the volume's meshed fields (a dense copy of a dense volume, chunks shared with a sparse one).
        self._fields: Volume | None = None
        self._raw: dict[tuple, ChunkSurface] = {}
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

    # -------------------------------------------------------------------------------------------- state
    def state_dict(self) -> dict:
        """What the mesher has seen of the volume (its meshes are functions of it): ``seen``, a copy of the chunk
        versions at the last :meth:`update` (-1 everywhere before the first), and ``behind``, the voxels it saw in
        the chunks changed since (those whose version in ``seen`` differs from the volume's): chunk (i, j, k) ->
        field name (:data:`MESHED_FIELDS`) -> a copy of the field's values in the chunk's window (its samples
        ``volume.chunk_box(chunk)``), in chunk order; None before the first update. Elsewhere it saw the volume's
        voxels as they are, so the state stays small: empty ``behind`` unless the volume was edited since.

        Examples
        --------
        >>> from voxelworld.terrain import VoxelVolume, Sphere
        >>> ground = VoxelVolume.from_sdf(lambda x, y, z: y - 20.0, (64, 40, 64), material="soil")
        >>> mesher = ChunkMesher(ground)
        >>> _ = mesher.update()
        >>> _ = ground.remove(Sphere((10.0, 20.0, 10.0), 3.0))  # not meshed yet
        >>> state = mesher.state_dict()
        >>> sorted(state["behind"]), state["behind"][(0, 0, 0)]["density"].shape
        ([(0, 0, 0)], (32, 32, 32))
        >>> twin = ChunkMesher(ground)  # meshes the voxels as they are now, then goes back to what mesher saw
        >>> twin.load_state_dict(state)
        >>> twin.display_mesh().positions.tobytes() == mesher.display_mesh().positions.tobytes()
        True
        """
        if self._fields is None:
            return {"seen": self._seen.copy(), "behind": None, "levels": self.display_levels,
                    "detail": self.detail_levels, "active": self.active}
        volume = self.volume
        behind = {}
        for chunk in map(tuple, np.argwhere((self._seen >= 0) & (self._seen != volume.chunk_versions)).tolist()):
            lo, hi = volume.chunk_box(chunk)
            behind[chunk] = {name: np.array(values) for name, values in
                             self._fields.read_window(lo, hi, MESHED_FIELDS).items()}
        return {"seen": self._seen.copy(), "behind": behind, "levels": self.display_levels,
                "detail": self.detail_levels, "active": self.active}

    def load_state_dict(self, state) -> None:
        """Take back a :meth:`state_dict` on the volume as it is now (as it was when the state was handed over):
        the mesher's copy of the fields becomes the volume's with the ``behind`` chunks' voxels as it saw them,
        its chunk versions ``seen``; it remeshes from that copy the chunks whose vertices read a sample that
        differs from what it had meshed (every chunk if it had not updated yet). Its meshes are then those of the
        mesher that handed the state over, bit for bit, and its next :meth:`update` remeshes what that one's would.
        The volume is not touched. ``levels`` (optional: states saved before it existed leave the mesher's own)
        are the display levels per chunk (:meth:`set_display_levels`) and ``detail`` (optional too) the levels of
        detail (:meth:`set_detail_levels`), taken first.

        ParameterError, before anything changes, for a missing key, ``seen`` not an integer array of the chunk
        grid's shape (-1 everywhere, with ``behind`` None, or versions >= 0), ``behind`` not exactly the chunks
        whose version in ``seen`` differs from the volume's, or a field missing or not of its chunk window's shape
        and the volume's dtype.
        """
        seen, behind = self._checked_state(state)
        if state.get("active") is not None:
            check_range("state['active']", _described(state["active"]),
                        f"a bool array of the chunk grid's shape {self.volume.chunk_grid_shape}",
                        isinstance(state["active"], np.ndarray) and state["active"].dtype == bool
                        and state["active"].shape == self.volume.chunk_grid_shape)
        if state.get("detail") is not None:
            self._check_detail(state["detail"])  # before anything changes
        if state.get("levels") is not None:
            self.set_display_levels(state["levels"])
        if state.get("detail") is not None:
            self.set_detail_levels(state["detail"])
        if state.get("active") is not None:
            self._active = state["active"].copy()
            self._activated, self._deactivated = set(), set()
        if behind is None:
            for chunk in all_chunks(self.volume):
                self._forget_collision(chunk)
            self._start_over()
            return
        volume = self.volume
        fields = volume.snapshot(MESHED_FIELDS)
        for chunk, saw in behind.items():
            fields._set_chunk(chunk, {name: saw[name] for name in MESHED_FIELDS})
        if self._fields is None:
            self._fields = fields
            rebuild = self._active_chunks()
            self._forget_inactive()
        else:
            # The mesher's copy differs from the new one at most where the mesher is behind the volume or the
            # state is.
            rebuild = set()
            # Chunks it did not follow: nothing meshed reads what it kept of them, so they take the new copy's
            # without a comparison (a chunk left in a store stays there: no read).
            for chunk in map(tuple, np.argwhere(self._seen < 0).tolist()):
                if chunk not in behind:
                    fields.copy_chunk_to(self._fields, chunk, MESHED_FIELDS)
            ahead = set(map(tuple, np.argwhere((self._seen >= 0) & (self._seen != volume.chunk_versions)).tolist()))
            for chunk in sorted(ahead | set(behind)):
                changed = self._take_changes(chunk, fields)
                if changed is not None:
                    rebuild |= self._chunks_reading(*changed)
                    self._shade |= self._chunks_shading(*changed)
                    self._shade_boxes.append(changed)
            rebuild |= self._activated
            self._forget_inactive()
        self._seen = seen
        self._activated, self._deactivated = set(), set()
        self._refresh(rebuild)
        self.simplify_vertices()
        self.build_display_meshes()

    def _checked_state(self, state) -> tuple[np.ndarray, dict | None]:
        """``state``'s ``seen`` (an int64 copy) and ``behind`` (by the grid's chunk tuples), or ParameterError."""
        volume = self.volume
        if not (isinstance(state, Mapping) and "seen" in state and "behind" in state):
            raise ParameterError("state", sorted(map(str, state)) if isinstance(state, Mapping) else _described(state),
                                 "a mapping with the keys seen, behind")
        seen, behind, grid = state["seen"], state["behind"], volume.chunk_grid_shape
        check_range("state['seen']", _described(seen), f"an integer array of the chunk grid's shape {grid}",
                    isinstance(seen, np.ndarray) and seen.dtype.kind in "iu" and seen.shape == grid)
        seen = seen.astype(np.int64)
        if behind is None:
            check_range("state['seen']", int(seen.max(initial=-1)), "-1 everywhere when behind is None (not updated)",
                        bool(np.all(seen == -1)))
            return seen, None
        check_range("state['seen']", int(seen.min(initial=0)), "chunk versions >= 0, or -1 where not followed",
                    bool(np.all(seen >= -1)))
        check_range("state['behind']", _described(behind), "a mapping chunk (i, j, k) -> fields, or None",
                    isinstance(behind, Mapping))
        expected = list(map(tuple, np.argwhere((seen >= 0) & (seen != volume.chunk_versions)).tolist()))
        check_range("state['behind']", sorted(map(str, behind)),
                    f"exactly the chunks whose version in seen differs from the volume's: {expected}",
                    set(behind) == set(expected))
        checked = {}
        for chunk in expected:
            where = f"state['behind'][{chunk}]"
            fields = behind[chunk]
            check_range(where, sorted(map(str, fields)) if isinstance(fields, Mapping) else _described(fields),
                        f"a mapping with the keys {', '.join(MESHED_FIELDS)}",
                        isinstance(fields, Mapping) and set(fields) == set(MESHED_FIELDS))
            shape = tuple(int(b - a) for a, b in zip(*volume.chunk_box(chunk)))
            for name in MESHED_FIELDS:
                values, dtype = fields[name], FIELD_DTYPES[name]
                check_range(f"{where}['{name}']", _described(values),
                            f"a {dtype} array of the chunk window's shape {shape}",
                            isinstance(values, np.ndarray) and values.dtype == dtype and values.shape == shape)
            checked[chunk] = fields
        return seen, checked

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
        those chunks (what :attr:`MeshUpdate.surfaces_rebuilt` reports)."""
        volume = self.volume
        versions = volume.chunk_versions
        followed = self._followed()
        if self._fields is None:
            self._fields = volume.snapshot(MESHED_FIELDS)
            rebuild = self._active_chunks()
            self._seen = np.where(followed, versions, -1)
        else:
            rebuild = set()
            for chunk in map(tuple, np.argwhere((self._seen >= 0) & (versions != self._seen)).tolist()):
                changed = self._take_changes(chunk, volume)
                if changed is not None:
                    rebuild |= self._chunks_reading(*changed)
                    self._shade |= self._chunks_shading(*changed)
                    self._shade_boxes.append(changed)
            # Chunks the mesher starts to follow take the volume's voxels as they are (nothing of theirs was
            # meshed); those it stops following keep what it saw, to be taken again should it follow them again.
            for chunk in map(tuple, np.argwhere(followed & (self._seen < 0)).tolist()):
                volume.copy_chunk_to(self._fields, chunk, MESHED_FIELDS)
            self._seen = np.where(followed, versions, -1)
            rebuild |= self._activated
            self._forget_inactive()
        self._activated, self._deactivated = set(), set()
        return self._refresh(rebuild & self._active_chunks() if rebuild else rebuild)

    def _followed(self) -> np.ndarray:
        """The chunks whose voxels the mesher follows: the active ones and those their cells read (the neighbours
        one chunk away)."""
        active = self._active
        if active.all():
            return active.copy()
        followed = active.copy()
        for axis in range(3):
            grown = followed.copy()
            head = [slice(None)] * 3
            tail = [slice(None)] * 3
            head[axis], tail[axis] = slice(1, None), slice(None, -1)
            grown[tuple(head)] |= followed[tuple(tail)]
            grown[tuple(tail)] |= followed[tuple(head)]
            followed = grown
        return followed

    def let_go(self, chunks) -> None:
        """The volume let go of the voxels of ``chunks`` (its store holds them): the mesher's copy of those it does
        not follow lets go too (it takes a chunk from the volume again before it reads it)."""
        if self._fields is None:
            return
        if self._fields.store is not self.volume.store:  # a save moved the volume to another store (a new file):
            # it holds what the copy left in the old one as the copy saw it (the mesher takes a chunk changed
            # since from the volume before it reads it)
            self._fields.attach_store(self.volume.store)
        for chunk in chunks:
            if self._seen[chunk] < 0:
                self.volume.copy_chunk_to(self._fields, chunk, MESHED_FIELDS)

    def _active_chunks(self) -> set[tuple]:
        return set(map(tuple, np.argwhere(self._active).tolist()))

    def _forget_inactive(self) -> None:
        """Drop the surfaces and meshes of the chunks turned inactive; their display meshes are reported empty."""
        for chunk in sorted(self._deactivated):
            self._vertex_free[chunk] = False
            for store in (self._raw, self._display_surfaces, self._collision_surfaces):
                store.pop(chunk, None)
            self._forget_collision(chunk)
            if self._display.pop(chunk, None) is not None:
                self._dropped.add(chunk)
            # The upper neighbours' quads that joined its border vertices go with it.
            self._remesh |= {u for u in _upper_neighbours(chunk, self.volume.chunk_grid_shape) if self._active[u]}

    def _refresh(self, rebuild: set[tuple]) -> frozenset[tuple[int, int, int]]:
        """Remake the raw surfaces of the chunks ``rebuild`` from the mesher's copy of the fields (drop their
        collision meshes) and mark them for simplification."""
        levels = self._plane_levels()
        order = sorted(rebuild)
        fields = self._fields
        for chunk, raw in zip(order, map_on_cores(
                lambda c: raw_surface(self.volume, c, self.options, levels, fields=fields), order)):
            self._raw[chunk] = raw
            self._vertex_free[chunk] = raw.vertex_count == 0
            self._refresh_collision(chunk)
            self._stamps[chunk] += 1
        self._refreshed |= rebuild
        return frozenset(rebuild)

    def simplify_vertices(self) -> frozenset[tuple[int, int, int]]:
        """Step 2 of :meth:`update`: simplify the vertices step 1 refreshed into display surfaces. Returns the
        chunks whose display mesh must be rebuilt: those whose display surface changed, and the upper
        neighbours joining a changed border cell."""
        order = sorted(c for c in self._refreshed | self._relevelled
                       if self._active[c] and (c in self._refreshed or not self._vertex_free[c]))
        built = map_on_cores(self._simplified_display, order)
        for chunk, display in zip(order, built):
            old = self._display_surfaces.get(chunk)
            self._display_surfaces[chunk] = display
            if unchanged_surface(old, display):
                continue
            self._remesh.add(chunk)
            self._remesh |= self._neighbours_seeing_changes(chunk, old, display)
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
        built, warm = _assemble_displays(volume, fields, order, self._display_surfaces, self._active,
                                         self._vertex_free, self._simplified_display)
        self._display_surfaces.update(warm)  # kept: the next meshes joining them read them again
        for chunk, mesh in built.items():
            meshes[chunk] = mesh
            if mesh.triangle_count:
                self._display[chunk] = mesh
            else:
                self._display.pop(chunk, None)
        # A chunk whose surfaces did not change keeps its triangles; where its occlusion reads a changed sample it
        # is shaded again, and reported if that changed it.
        shade = sorted(c for c in self._shade - self._remesh if c in self._display)
        boxes = self._shade_boxes
        for chunk, mesh in zip(shade, map_on_cores(lambda c: with_occlusion(self._display[c], fields, volume, boxes),
                                           shade)):
            if not np.array_equal(mesh.occlusion, self._display[chunk].occlusion):
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

    def is_hot(self, chunk) -> bool:
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
        if not self._detail.any():
            return
        for chunk in [c for c in self._raw if not self.is_hot(c)]:
            del self._raw[chunk]
            self._collision_surfaces.pop(chunk, None)

    def _raw_surface(self, chunk) -> ChunkSurface:
        """The raw surface of an active chunk: kept, or made again from the mesher's copy of the fields."""
        raw = self._raw.get(chunk)
        if raw is None:
            raw = raw_surface(self.volume, chunk, self.options, self._plane_levels(), fields=self._fields)
        return raw

    def _simplified_display(self, chunk) -> ChunkSurface:
        """The display surface of an active chunk at its display level and level of detail (without quadrics)."""
        return display_form(self._fields, self._raw_surface(chunk), self.options, self.materials,
                             int(self._levels[chunk]), int(self._detail[chunk]))

    def _take_changes(self, chunk, source: Volume) -> tuple[np.ndarray, np.ndarray] | None:
        """The inclusive sample box where ``source`` (a volume of the same geometry) differs from the mesher's
        copy of the fields in ``chunk`` (None: nowhere); the copy takes ``source``'s chunk."""
        lo, hi = self.volume.chunk_box(chunk)
        current = source.read_window(lo, hi, MESHED_FIELDS)
        seen = self._fields.read_window(lo, hi, MESHED_FIELDS)
        box = np.empty((2, 3), dtype=np.int64)
        if not changed_box(*(current[name] for name in MESHED_FIELDS), *(seen[name] for name in MESHED_FIELDS), box):
            return None
        source.copy_chunk_to(self._fields, chunk, MESHED_FIELDS)
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
        the deeper of the options' and the levels of detail), and
        their occlusion reads up to the rays' reach (and one sample more, interpolating) around them."""
        size = self.volume.chunk_size
        grid = np.array(self.volume.chunk_grid_shape)
        reach = int(np.ceil(_kernels.OCCLUSION_STEPS.max())) + 2
        below, above = 2 ** max(self.options.levels, int(self._detail.max(initial=0))) + reach, reach
        first = np.maximum(-((size + above - lo) // size), 0)  # ceil((lo - above - size) / size)
        last = np.minimum((hi + below) // size, grid - 1)
        return set(product(*(range(a, b + 1) for a, b in zip(first, last))))

    # --------------------------------------------------------------------------------------- detail
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

    def set_active(self, active) -> frozenset[tuple[int, int, int]]:
        """Mesh only the chunks where ``active`` (a bool array of the chunk grid's shape) is True, from the next
        :meth:`refresh_vertices` on: a chunk turning active gets its vertices and display mesh then (its upper
        neighbours are remeshed to join it), one turning inactive loses its surfaces and meshes (the next
        :meth:`build_display_meshes` reports its display mesh empty, so a renderer drops it). What the mesher
        builds for the active chunks is what a mesher of the whole volume builds for them, away from the border
        of the active region (where the quads joining an inactive lower neighbour are missing). Returns the
        chunks whose state changed. ParameterError, before anything changes, for anything but such an array.

        Examples
        --------
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
        grid = self.volume.chunk_grid_shape
        check_range("active", _described(active), f"a bool array of the chunk grid's shape {grid}",
                    isinstance(active, np.ndarray) and active.dtype == bool and active.shape == grid)
        turned_on = set(map(tuple, np.argwhere(active & ~self._active).tolist()))
        turned_off = set(map(tuple, np.argwhere(~active & self._active).tolist()))
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

    def set_display_levels(self, levels) -> frozenset[tuple[int, int, int]]:
        """Simplify the display mesh of each chunk (i, j, k) at most ``levels[i, j, k]`` octree levels deep (0:
        every cell's vertex, voxel-scale detail; up to the options' ``levels``), from the next
        :meth:`simplify_vertices` on: a chunk whose level changed is simplified again from its vertices, and it and
        the upper neighbours joining a changed border cell are remeshed. Chunks at different levels meet without
        cracks (each quad joins the vertices the chunks around it chose). The collision meshes do not change.
        Returns the chunks whose level changed. ParameterError, before anything changes, for ``levels`` not an
        integer array of the chunk grid's shape within 0 .. options.levels.

        Examples
        --------
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
        check_range("levels", _described(levels), f"an integer array of the chunk grid's shape {grid}",
                    isinstance(levels, np.ndarray) and levels.dtype.kind in "iu" and levels.shape == grid)
        check_range("levels", f"{levels.min()}..{levels.max()}", f"levels within 0..{top} (the options' levels)",
                    bool(np.all((levels >= 0) & (levels <= top))))
        changed = frozenset(map(tuple, np.argwhere(levels != self._levels).tolist()))
        self._levels = levels.astype(np.int64)
        self._bump(changed)
        if self._fields is not None:
            self._relevelled |= changed
        return changed

    @property
    def detail_levels(self) -> np.ndarray:
        """The level of detail per chunk (:meth:`set_detail_levels`; a copy, int64 of the chunk grid's shape)."""
        return self._detail.copy()

    def set_detail_levels(self, levels) -> frozenset[tuple[int, int, int]]:
        """Coarsen the display mesh of each chunk (i, j, k) to level of detail ``levels[i, j, k]`` (0 ..
        :data:`~voxelworld.meshing.detail.MAX_DETAIL_LEVEL`), from the next :meth:`simplify_vertices` on: at
        octree levels 1..L its vertices merge wherever the topology and the two-kinds rule allow, whatever the
        shape error (a *floor*; ``options.tolerance`` still rules the levels above, up to its display level), so a
        chunk at level L keeps about 4^-L of its triangles and at most two materials per triangle. From
        :data:`~voxelworld.meshing.detail.FEATURE_FLOOR_LEVEL` on the floor waives the topology test, the two kinds
        and the one vertex per cell too (small features vanish; the surface may pinch, and back-to-back triangle
        pairs are dropped), so rough ground coarsens as well. Level 0 is the mesher as without levels of detail. Pick the levels with :func:`voxelworld.meshing.detail_levels`
        (by distance to the viewers, relaxed to the 2:1 rule between neighbouring chunks). Chunks at different
        levels meet without cracks; a chunk whose level changed is simplified again from its vertices, and it
        and the upper neighbours joining a changed border cell are remeshed and handed over in one update. The
        collision meshes do not change. Returns the chunks whose level changed. ParameterError, before anything
        changes, for ``levels`` not an integer array of the chunk grid's shape within 0 .. MAX_DETAIL_LEVEL.

        Examples
        --------
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
        changed = frozenset(map(tuple, np.argwhere(levels != self._detail).tolist()))
        self._detail = levels.astype(np.int64)
        self._bump(changed)
        if self._fields is not None:
            self._relevelled |= changed
            if not planes and self._plane_levels() > 0:
                # The vertices were made without the tangent planes a merge needs: make them again.
                self._refresh(set(all_chunks(self.volume)))
        return changed

    def prepare_changes(self, active, levels) -> PreparedChanges:
        """Start working out, on a background thread at a lower priority, what :meth:`set_active` (``active``) and
        :meth:`set_detail_levels` (``levels``) will need: the surfaces of the chunks turning active or changing
        level, and the display meshes of those and of the neighbours joining them (or losing a neighbour turning
        inactive). Nothing changes until :meth:`apply_changes` takes the result, some frames later. Made from a
        snapshot of the fields the mesher saw (meshed first if it never was). ParameterError, before anything
        starts, for arrays :meth:`set_active` or :meth:`set_detail_levels` refuse.

        Examples
        --------
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
        check_range("active", _described(active), f"a bool array of the chunk grid's shape {grid}",
                    isinstance(active, np.ndarray) and active.dtype == bool and active.shape == grid)
        self._check_detail(levels)
        if self._fields is None:
            self.update()
        active, levels = active.copy(), levels.astype(np.int64)
        volume = self.volume
        turning_on, turning_off = active & ~self._active, ~active & self._active
        relevelled = active & self._active & (levels != self._detail) & ~self._vertex_free
        surfaces = tuple(map(tuple, np.argwhere(turning_on | relevelled).tolist()))
        near_off = {u for chunk in map(tuple, np.argwhere(turning_off).tolist())
                    for u in _upper_neighbours(chunk, grid) if active[u]}
        # The voxels the work reads (two chunks around: the joined neighbours' surfaces and their occlusion) are
        # made current where the mesher does not follow them; elsewhere its copy is what it saw, as of _seen.
        reads = spread(turning_on | turning_off | (levels != self._detail), 2, 2) & (self._seen < 0)
        for chunk in map(tuple, np.argwhere(reads).tolist()):
            volume.copy_chunk_to(self._fields, chunk, MESHED_FIELDS)
        versions = np.where(self._seen >= 0, self._seen, volume.chunk_versions)
        planes = self._plane_levels(levels)
        job = PreparedJob(surfaces, tuple(sorted(near_off)), {c: self._raw[c] for c in surfaces if c in self._raw},
                          {c: self._display_surfaces.get(c) for c in surfaces}, self._display_surfaces.copy(),
                          self._levels.copy(), levels, active, planes, self._vertex_free & ~turning_on)
        if planes > 0 and self._plane_levels() == 0:
            future = Future()  # every raw surface must be made again with planes: apply_changes does it all
            future.set_result(None)
        else:
            future = background_executor().submit(_prepare, self, job, self._fields.snapshot(MESHED_FIELDS))
        return PreparedChanges(active, levels, versions, self._stamps.copy(), surfaces, future)

    def apply_changes(self, prepared: PreparedChanges) -> frozenset[tuple[int, int, int]]:
        """Make the changes :meth:`prepare_changes` worked out (waiting for it if it is not done): the active
        chunks and levels of detail it was given, with its surfaces and meshes wherever nothing they were made of
        changed since (the voxels around them, the levels and activity of the chunks they read); the rest is done
        by the next :meth:`update`, as after :meth:`set_active` and :meth:`set_detail_levels`. The next update
        reports the meshes either way. Returns the chunks whose activity or level changed."""
        check_range("prepared", _described(prepared), "a PreparedChanges of this mesher's chunk grid",
                    isinstance(prepared, PreparedChanges) and prepared.active.shape == self.volume.chunk_grid_shape)
        result: PreparedResult | None = prepared.future.result()
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
            lower = _lower_block(chunk)
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

    def _bump(self, chunks) -> None:
        for chunk in chunks:
            self._stamps[chunk] += 1

    def _check_detail(self, levels) -> None:
        grid = self.volume.chunk_grid_shape
        check_range("levels", _described(levels), f"an integer array of the chunk grid's shape {grid}",
                    isinstance(levels, np.ndarray) and levels.dtype.kind in "iu" and levels.shape == grid)
        check_range("levels", f"{levels.min()}..{levels.max()}", f"levels of detail within 0..{MAX_DETAIL_LEVEL}",
                    bool(np.all((levels >= 0) & (levels <= MAX_DETAIL_LEVEL))))

    def _plane_levels(self, detail: np.ndarray | None = None) -> int:
        """The deepest simplification any surface may need (at the levels of ``detail``, the mesher's by default): the
        raw vertices carry tangent planes when it is > 0."""
        detail = self._detail if detail is None else detail
        return max(self.options.levels, self.options.collision_levels, int(detail.max(initial=0)))

    def _neighbours_seeing_changes(self, chunk, old: ChunkSurface | None, new: ChunkSurface) -> set[tuple]:
        """The upper neighbours (+1 on some axes, 0 on the others) whose quads join a cell of ``chunk``'s top
        layers that differs between ``old`` and ``new``: neighbour +o joins the cells on the top layer of every
        axis where o is 1."""
        grid = self.volume.chunk_grid_shape
        dims = new.cell_case.shape
        if min(dims) == 0:
            return set()
        changes = []
        for axis in range(3):
            others = [n for a, n in enumerate(dims) if a != axis]
            if old is None:
                changes.append(np.ones(others, dtype=bool))
                continue
            changed = np.empty(others, dtype=np.bool_)
            old, new = materialised(old), materialised(new)
            _kernels.top_layer_changes(axis, tables.PATCH_COUNT, old.cell_case, old.cell_first, old.rep,
                                       old.positions, old.normals, old.materials, old.evaluations, new.cell_case,
                                       new.cell_first, new.rep, new.positions, new.normals, new.materials,
                                       new.evaluations, changed)
            changes.append(changed)
        found = set()
        for offset in product((0, 1), repeat=3):
            axes = [a for a in range(3) if offset[a]]
            other = tuple(c + o for c, o in zip(chunk, offset))
            if not axes or any(o >= n for o, n in zip(other, grid)):
                continue
            # The cells on the top layer of every axis in ``axes``: within the first axis's layer, the last
            # row or column along each further axis.
            first = axes[0]
            layer = changes[first]
            index = [slice(None), slice(None)]
            for a in axes[1:]:
                position = [b for b in range(3) if b != first].index(a)
                index[position] = -1
            if np.any(layer[tuple(index)]):
                found.add(other)
        return found

    # ------------------------------------------------------------------------------------------ queries
    @property
    def meshes(self) -> dict[tuple[int, int, int], DisplayMesh]:
        """The current non-empty display mesh of each chunk (a copy of the mapping)."""
        return dict(self._display)

    def display_mesh(self) -> DisplayMesh:
        """All current chunk meshes as one (call :meth:`update` first to catch up with edits)."""
        return merge_display_meshes([self._display[c] for c in sorted(self._display)])

    def collision_mesh(self, box: Box | None = None, *, near=None, radius: float = 0.0) -> CollisionMesh:
        """The collision mesh of the chunks that overlap ``box`` (a world :class:`Box`), or of those within
        ``radius`` metres of the point ``near``, or of every chunk; built on first request and cached until
        the chunk changes. Reflects the volume as of the last :meth:`update`."""
        if self._fields is None:
            self.update()
        chunks = self._chunks_in(box, near, radius)[0]
        return merge_collision_meshes([self.chunk_collision_mesh(chunk) for chunk in chunks])

    def chunk_collision_mesh(self, chunk: tuple[int, int, int]) -> CollisionMesh:
        """The collision mesh of one chunk alone (possibly empty): the part :meth:`collision_mesh` merges for it;
        built on first request and cached until the chunk changes. Reflects the volume as of the last
        :meth:`update`."""
        return self.chunk_collision_meshes([chunk])[0]

    def chunk_collision_meshes(self, chunks) -> list[CollisionMesh]:
        """:meth:`chunk_collision_mesh` of each of ``chunks`` (active chunks (i, j, k)), checked once for all."""
        if self._fields is None:
            self.update()
        grid = self.volume.chunk_grid_shape
        chunks = [tuple(int(c) for c in chunk) for chunk in chunks]
        for chunk in chunks:
            if not (len(chunk) == 3 and all(0 <= c < n for c, n in zip(chunk, grid)) and self._active[chunk]):
                raise ParameterError("chunk", chunk, f"an active chunk (set_active) of the chunk grid {grid}")
        self._settle_collision()
        meshes = []
        for chunk in chunks:
            mesh = self._collision.get(chunk)
            if mesh is None:
                mesh = self._collision[chunk] = assemble_chunk(self.volume, chunk, self._collision_surface,
                                                               collision=True, fields=self._fields)
            meshes.append(mesh)
        return meshes

    def _collision_surface(self, chunk) -> ChunkSurface | None:
        if not self._active[chunk]:
            return None  # an inactive lower neighbour: no quads join it
        if chunk not in self._collision_surfaces:
            # The fields as of the last update: the raw surface was made from them, whatever changed since.
            surface = simplified_surface(self._fields, self._raw_surface(chunk), self.options, self.materials, True)
            if not self.is_hot(chunk):
                return surface
            self._collision_surfaces[chunk] = surface
        return self._collision_surfaces[chunk]

    def _refresh_collision(self, chunk) -> None:
        """``chunk``'s raw surface was made again. Where its collision surface was kept (a hot chunk someone
        collides with), the old one waits until the next collision query (:meth:`_settle_collision`) to tell what
        changed; elsewhere the collision meshes joining it are dropped now."""
        if chunk in self._collision_stale:
            return  # the oldest kept surface is what the meshes still kept were made of
        old = self._collision_surfaces.pop(chunk, None)
        if old is None:
            self._forget_collision(chunk)
        else:
            self._collision_stale[chunk] = old

    def _settle_collision(self) -> None:
        """Make the collision surfaces of the chunks refreshed since the last query again and drop only the meshes
        that changed: none when the simplified surface is the same, else the chunk's own and those of the upper
        neighbours joining a changed top-layer cell (a dig drops one or two collision meshes, not eight)."""
        if not self._collision_stale:
            return
        stale, self._collision_stale = self._collision_stale, {}
        for chunk, old in sorted(stale.items()):
            new = self._collision_surface(chunk)
            if unchanged_surface(old, new):
                continue
            for changed in {chunk} | self._neighbours_seeing_changes(chunk, old, new):
                self._collision.pop(changed, None)
                self._collision_revisions[changed] += 1

    def _forget_collision(self, chunk) -> None:
        self._collision_surfaces.pop(chunk, None)
        self._collision_stale.pop(chunk, None)
        self._collision.pop(chunk, None)
        self._collision_revisions[chunk] += 1
        for upper in _upper_neighbours(chunk, self.volume.chunk_grid_shape):  # their quads join its vertices
            self._collision.pop(upper, None)
            self._collision_revisions[upper] += 1

    def collision_key(self, box: Box | None = None, *, near=None, radius: float = 0.0) -> tuple:
        """A value equal between two calls exactly when :meth:`collision_mesh` with the same arguments would
        give the same mesh: the chunks it covers and how many times each one's collision mesh was rebuilt.
        Cheap (no Python loop over the chunks): use it to rebuild what is made from a collision mesh (a BVH) only
        when it changed."""
        self._settle_collision()
        chunks, window = self._chunks_in(box, near, radius)
        revisions = self._collision_revisions[window][self._active[window]] if window is not None else ()
        return chunks, bytes(memoryview(np.ascontiguousarray(revisions))) if window is not None else b""

    def collision_revision(self, chunk) -> int:
        """How many times the collision mesh of ``chunk`` (i, j, k) was dropped: a chunk's mesh made with the same
        revision is the same mesh."""
        self._settle_collision()
        return int(self._collision_revisions[tuple(chunk)])

    def _chunks_in(self, box, near, radius) -> tuple[tuple, tuple | None]:
        """The active chunks whose triangles may reach into ``box`` (or the ball ``near``, ``radius``), and the
        window of the chunk grid (a tuple of slices) they lie in (None: no chunk). The list is made once for each
        window and activity and kept."""
        window = self._window_near(box, near, radius)
        if window is None:
            return (), None
        active = self._active[window]
        key = (tuple((s.start, s.stop) for s in window), bytes(memoryview(np.ascontiguousarray(active))))
        chunks = self._chunk_lists.get(key)
        if chunks is None:
            if len(self._chunk_lists) > 64:  # windows of places left long ago
                self._chunk_lists.clear()
            offset = np.array([s.start for s in window])
            chunks = self._chunk_lists[key] = tuple(tuple(c) for c in (np.argwhere(active) + offset).tolist())
        return chunks, window

    def _window_near(self, box, near, radius) -> tuple | None:
        volume = self.volume
        grid = volume.chunk_grid_shape
        if box is None and near is None:
            return tuple(slice(0, int(n)) for n in grid)
        if box is not None and near is not None:
            raise ParameterError("near", near, "None when a box is given (ask for one or the other)")
        if near is not None:
            radius = check_finite("radius", radius, minimum=0.0, unit="m")
            try:
                box = Box(np.asarray(near, dtype=float) - radius, np.asarray(near, dtype=float) + radius)
            except (ParameterError, ValueError, TypeError):
                raise ParameterError("near", near, "a point (x, y, z) of three finite numbers (m)") from None
        if not isinstance(box, Box):
            raise ParameterError("box", box, "a voxelworld.terrain.Box in world coordinates (m), or None")
        # Plain floats: this runs for every collision query of every frame (numpy's small-array calls cost more).
        size, step, window = volume.chunk_size, volume.voxel_size, []
        for low, high, origin, samples, chunks in zip(box.min, box.max, volume.origin.tolist(), volume.shape, grid):
            lo, hi = math.floor((low - origin) / step), math.ceil((high - origin) / step)
            if hi < 0 or lo > samples - 1:
                return None
            # A chunk's triangles join its cells' vertices to its lower neighbours' (merged) vertices, so they
            # span from one chunk below it to its own far side.
            first = min(max(lo // size - 1, 0), chunks - 1)
            last = min(max(hi // size + 1, 0), chunks - 1)
            window.append(slice(first, last + 1))
        return tuple(window)


def _described(value) -> str:
    """An array as its dtype and shape, anything else as its type's name: what an error message shows of it."""
    return f"{value.dtype}{value.shape}" if isinstance(value, np.ndarray) else type(value).__name__
