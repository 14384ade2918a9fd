"""The collision meshes of :class:`~voxelworld.meshing.ChunkMesher`: made per chunk on request from the fields as of
the mesher's last update, cached until the chunk's surface changes, and counted by revisions so that what is made
from them (a BVH per chunk) is rebuilt only when they changed (:meth:`~MesherCollision.collision_key`).

:class:`MesherCollision` is the part of ``ChunkMesher`` that keeps them (ChunkMesher inherits it; it reads the
mesher's fields, surfaces and active chunks, and ``ChunkMesher`` calls its ``_refresh_collision`` and
``_forget_collision`` when a surface is made again or dropped).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, cast

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_finite, check_point
from ..frame_first import result_of
from ..terrain import Box, MaterialTable, Volume
from .chunk_joins import neighbours_seeing_changes, upper_neighbours
from .chunk_surfaces import (
    MESHED_FIELDS,
    NO_QEF,
    DensityWindow,
    simplified_chunk,
    simplified_surface,
    unchanged_surface,
)
from .mesh import CollisionMesh, assemble_chunk, merge_collision_meshes
from .options import MeshOptions
from .prepared import background_executor
from .surface import ChunkSurface

__all__ = ["MesherCollision", "PreparedCollision"]


@dataclass(frozen=True)
class PreparedCollision:
    """Collision meshes being made on the background thread (:meth:`MesherCollision.prepare_collision_meshes`):
    the chunks, their collision revisions when asked for, the fields they are made from and the meshes to come."""

    chunks: tuple[tuple[int, int, int], ...]
    revisions: tuple[int, ...]
    fields: Volume
    future: Future[list[CollisionMesh]]

    def done(self) -> bool:
        return self.future.done()


def collision_meshes_from(volume: Volume, fields: Volume, active: np.ndarray, options: MeshOptions,
                          materials: MaterialTable, levels: int, chunks: tuple) -> list[CollisionMesh]:
    """The collision meshes of ``chunks`` made from ``fields`` (a snapshot of a mesher's) with nothing kept: what
    :meth:`MesherCollision.chunk_collision_meshes` makes from the same fields (``active``: the mesher's active
    chunks, an inactive one joining no quad; ``levels``: its plane levels). Each surface is made once."""
    made: dict[tuple, ChunkSurface | None] = {}

    def surface_of(chunk: tuple) -> ChunkSurface | None:
        if chunk not in made:
            made[chunk] = simplified_chunk(volume, chunk, options, materials, levels, True, fields) \
                if active[chunk] else None
        return made[chunk]

    return [assemble_chunk(volume, chunk, surface_of, collision=True, fields=fields) for chunk in chunks]


class MesherCollision:
    """The collision meshes of a :class:`~voxelworld.meshing.ChunkMesher` (a part of it: see the module)."""

    # Set by ChunkMesher (its __init__ and _start_over).
    volume: Volume
    options: MeshOptions
    materials: MaterialTable
    _fields: Volume | None
    _active: np.ndarray
    _collision_revisions: np.ndarray
    _chunk_lists: dict[tuple, tuple]
    _collision: dict[tuple, CollisionMesh]
    _density: dict[tuple, DensityWindow]
    _collision_surfaces: dict[tuple, ChunkSurface]
    _collision_stale: dict[tuple, ChunkSurface]

    if TYPE_CHECKING:  # defined by ChunkMesher
        def update(self) -> object: ...
        def _raw_surface(self, chunk: tuple) -> ChunkSurface: ...
        def is_hot(self, chunk: tuple) -> bool: ...
        def _plane_levels(self, detail: np.ndarray | None = None) -> int: ...

    def collision_mesh(self, box: Box | None = None, *, near: ArrayLike | None = None,
                       radius: float = 0.0) -> CollisionMesh:
        """The collision mesh of the chunks that overlap ``box`` (a world :class:`Box`), or of those within
        ``radius`` metres of the point ``near``, or of every chunk; built on first request and cached until
        the chunk changes. Reflects the volume as of the last :meth:`update`."""
        if self._fields is None:
            self.update()
        chunks = self._chunks_in(box, near, radius)[0]
        return merge_collision_meshes(self.chunk_collision_meshes(chunks))

    def chunk_collision_mesh(self, chunk: tuple[int, int, int]) -> CollisionMesh:
        """The collision mesh of one chunk alone (possibly empty): the part :meth:`collision_mesh` merges for it;
        built on first request and cached until the chunk changes. Reflects the volume as of the last
        :meth:`update`."""
        return self.chunk_collision_meshes([chunk])[0]

    def chunk_collision_meshes(self, chunks: Iterable[Iterable[int]]) -> list[CollisionMesh]:
        """:meth:`chunk_collision_mesh` of each of ``chunks`` (active chunks (i, j, k)), checked once for all."""
        if self._fields is None:
            self.update()
        grid = self.volume.chunk_grid_shape
        wanted = [tuple(int(c) for c in chunk) for chunk in chunks]
        for chunk in wanted:
            if not (len(chunk) == 3 and all(0 <= c < n for c, n in zip(chunk, grid)) and self._active[chunk]):
                raise ParameterError("chunk", chunk, f"an active chunk (set_active) of the chunk grid {grid}")
        self._settle_collision()
        # A cold chunk's collision surface is not kept between calls, but each mesh reads its chunk's and its
        # lower neighbours' (eight): made once for the whole batch, not once for every mesh joining it.
        made: dict[tuple, ChunkSurface | None] = {}

        def surface_of(chunk: tuple) -> ChunkSurface | None:
            if chunk not in made:
                made[chunk] = self._collision_surface(chunk)
            return made[chunk]

        meshes = []
        for chunk in wanted:
            mesh = self._collision.get(chunk)
            if mesh is None:
                mesh = self._collision[chunk] = assemble_chunk(self.volume, chunk, surface_of, collision=True,
                                                               fields=self._fields)
            meshes.append(mesh)
        return meshes

    def made_collision_meshes(self, chunks: Iterable[tuple[int, int, int]]) -> dict[tuple, CollisionMesh]:
        """The collision meshes of ``chunks`` (i, j, k) already made and kept, by chunk (the others are left out):
        what :meth:`chunk_collision_meshes` hands back for them without making anything."""
        self._settle_collision()
        collision = self._collision
        return {chunk: collision[chunk] for chunk in chunks if chunk in collision}

    def prepare_collision_meshes(self, chunks: Iterable[Iterable[int]],
                                 executor: Executor | None = None) -> PreparedCollision | None:
        """Start making, on the background thread (or ``executor``'s), the collision meshes of those of ``chunks``
        that are active and not made, from a snapshot of the fields as of the last update; None when there are
        none. Hand the result to :meth:`adopt_collision_meshes` once it is done: the frame that asks for a mesh
        then finds it made."""
        if self._fields is None:
            return None
        self._settle_collision()
        wanted = tuple(sorted({(int(i), int(j), int(k)) for i, j, k in chunks
                               if self._active[i, j, k] and (i, j, k) not in self._collision}))
        if not wanted:
            return None
        fields = self._fields
        future = (executor or background_executor()).submit(
            collision_meshes_from, self.volume, fields.snapshot(MESHED_FIELDS), self._active.copy(), self.options,
            self.materials, self._plane_levels(), wanted)
        return PreparedCollision(wanted, tuple(int(self._collision_revisions[c]) for c in wanted), fields, future)

    def adopt_collision_meshes(self, prepared: PreparedCollision) -> int:
        """Keep the meshes ``prepared`` made (waiting for them if need be) where the chunk's collision mesh was not
        dropped since they were asked for (:meth:`collision_revision`): the mesh the mesher would make now. Returns
        how many were kept."""
        meshes = result_of(prepared.future)
        self._settle_collision()
        kept = 0
        for chunk, revision, mesh in zip(prepared.chunks, prepared.revisions, meshes):
            if self._current(prepared, chunk, revision) and chunk not in self._collision:
                self._collision[chunk] = mesh
                kept += 1
        return kept

    def prepared_still_current(self, prepared: PreparedCollision, chunk: tuple, revision: int) -> bool:
        """Whether the mesh of ``chunk`` that ``prepared`` makes (asked for at the chunk's collision ``revision``) is
        the one :meth:`chunk_collision_meshes` would give now (what :meth:`adopt_collision_meshes` keeps): another
        asker may wait for it instead of making it again."""
        self._settle_collision()
        return self._current(prepared, chunk, revision) and not prepared.future.cancelled()

    def _current(self, prepared: PreparedCollision, chunk: tuple, revision: int) -> bool:
        """Made from the mesher's fields (not started over since), the chunk active and its mesh not dropped since
        ``revision`` (after :meth:`_settle_collision`)."""
        return prepared.fields is self._fields and bool(self._active[chunk]) \
            and int(self._collision_revisions[chunk]) == revision

    def _collision_surface(self, chunk: tuple) -> ChunkSurface | None:
        if not self._active[chunk]:
            return None  # an inactive lower neighbour: no quads join it
        if chunk not in self._collision_surfaces:
            # The fields as of the last update: the raw surface was made from them, whatever changed since.
            fields = cast(Volume, self._fields)  # made by the first update (collision meshes come after it)
            surface = simplified_surface(fields, self._raw_surface(chunk), self.options, self.materials, True,
                                         density=self._density.get(chunk))
            if not self.is_hot(chunk):
                return surface
            # Kept without the quadrics (nothing merges a collision surface again: a change simplifies the raw one)
            # and in arrays of its own size (simplification writes into room for every octree node).
            self._collision_surfaces[chunk] = surface = replace(
                surface, positions=surface.positions.copy(), normals=surface.normals.copy(),
                materials=surface.materials.copy(), evaluations=surface.evaluations.copy(), qef=NO_QEF,
                rep=surface.rep.copy())
        return self._collision_surfaces[chunk]

    def _refresh_collision(self, chunk: tuple) -> None:
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
            # Active: a chunk turned inactive left _collision_stale (_forget_inactive calls _forget_collision).
            new = cast(ChunkSurface, self._collision_surface(chunk))
            if unchanged_surface(old, new):
                continue
            for changed in {chunk} | neighbours_seeing_changes(self.volume.chunk_grid_shape, chunk, old, new):
                self._collision.pop(changed, None)
                self._collision_revisions[changed] += 1

    def _forget_collision(self, chunk: tuple) -> None:
        self._collision_surfaces.pop(chunk, None)
        self._collision_stale.pop(chunk, None)
        self._collision.pop(chunk, None)
        self._collision_revisions[chunk] += 1
        for upper in upper_neighbours(chunk, self.volume.chunk_grid_shape):  # their quads join its vertices
            self._collision.pop(upper, None)
            self._collision_revisions[upper] += 1

    def collision_key(self, box: Box | None = None, *, near: ArrayLike | None = None,
                      radius: float = 0.0) -> tuple:
        """A value equal between two calls exactly when :meth:`collision_mesh` with the same arguments would
        give the same mesh: the chunks it covers and how many times each one's collision mesh was rebuilt.
        Cheap (no Python loop over the chunks): use it to rebuild what is made from a collision mesh (a BVH) only
        when it changed."""
        self._settle_collision()
        chunks, window = self._chunks_in(box, near, radius)
        revisions = self._collision_revisions[window][self._active[window]] if window is not None else ()
        # numpy's stubs make an array a buffer (memoryview's argument) only on Python >= 3.12.
        return chunks, (bytes(memoryview(np.ascontiguousarray(revisions)))  # type: ignore[arg-type]
                        if window is not None else b"")

    def collision_revision(self, chunk: Iterable[int]) -> int:
        """How many times the collision mesh of ``chunk`` (i, j, k) was dropped: a chunk's mesh made with the same
        revision is the same mesh."""
        self._settle_collision()
        return int(self._collision_revisions[tuple(chunk)])

    def _chunks_in(self, box: Box | None, near: ArrayLike | None, radius: float) -> tuple[tuple, tuple | None]:
        """The active chunks whose triangles may reach into ``box`` (or the ball ``near``, ``radius``), and the
        window of the chunk grid (a tuple of slices) they lie in (None: no chunk). The list is made once for each
        window and activity and kept."""
        window = self._window_near(box, near, radius)
        if window is None:
            return (), None
        active = self._active[window]
        key = (tuple((s.start, s.stop) for s in window),
               bytes(memoryview(np.ascontiguousarray(active))))  # type: ignore[arg-type]  # a buffer: see collision_key
        chunks = self._chunk_lists.get(key)
        if chunks is None:
            if len(self._chunk_lists) > 64:  # windows of places left long ago
                self._chunk_lists.clear()
            offset = np.array([s.start for s in window])
            chunks = self._chunk_lists[key] = tuple(tuple(c) for c in (np.argwhere(active) + offset).tolist())
        return chunks, window

    def _window_near(self, box: Box | None, near: ArrayLike | None, radius: float) -> tuple | None:
        volume = self.volume
        grid = volume.chunk_grid_shape
        if box is None and near is None:
            return tuple(slice(0, int(n)) for n in grid)
        if box is not None and near is not None:
            raise ParameterError("near", near, "None when a box is given (ask for one or the other)")
        if near is not None:
            radius = check_finite("radius", radius, minimum=0.0, unit="m")
            x, y, z = check_point("near", near)
            box = Box((x - radius, y - radius, z - radius), (x + radius, y + radius, z + radius))
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
