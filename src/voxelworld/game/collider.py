"""`Collider`: the triangles a world's actors collide with (the terrain's collision mesh near them, the props), as
two levels: a :class:`~voxelworld.collision.TriangleBVH` per chunk, rebuilt only when that chunk's collision mesh
changes (:func:`chunk_bvhs`), combined under a small tree of their boxes (:meth:`TriangleBVH.combine`)."""

from __future__ import annotations

import weakref
from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike

from ..collision import CapsulePush, Contacts, Ground, RayHits, TriangleBVH
from ..meshing import ChunkMesher
from ..terrain import Box, MaterialTable
from ..terrain.shapes import merged_boxes
from .checks import point_tuple
from .level import Prop

__all__ = ["Collider", "ChunkBVHs", "chunk_bvhs", "focus_boxes", "boxes_key"]

# Lookups between two sweeps of the chunks nobody asked for (ChunkBVHs.parts).
_SWEEP_EVERY = 256


class ChunkBVHs:
    """The collision BVH of each chunk of a mesher, made from the chunk's collision mesh on first request and
    kept until that mesh changes (the revisions of :meth:`ChunkMesher.collision_key`). Every consumer of a
    mesher's collision (the world's collider, an enemy's blade) shares one (:func:`chunk_bvhs`), so a chunk's BVH
    is built once. A lookup touches only the chunks whose revision moved (numpy over the rest); chunks no lookup
    named for a while are let go.

    :meth:`parts` hands the chunks' BVHs over a row at a time: the chunks of a row along z (consecutive in chunk
    order) combined into one BVH, kept until one of them changes, so a dig combines its row again and the world's
    collider combines a few rows instead of every chunk (the triangles' order stays the chunks')."""

    def __init__(self, mesher: ChunkMesher) -> None:
        self.mesher = mesher
        grid = mesher.volume.chunk_grid_shape
        self._bvhs = np.full(grid, None, dtype=object)  # each chunk's BVH (None: none, or no triangles)
        self._built = np.full(grid, -1, dtype=np.int64)  # the revision it was built at (-1: not built)
        self._used = np.zeros(grid, dtype=np.int64)  # the last lookup that named it
        # A chunk list's index into the grid arrays and its rows (start, end) along z (kept per list).
        self._indices: dict[tuple, tuple[tuple, list]] = {}
        self._rows: dict[tuple, tuple[bytes, TriangleBVH]] = {}  # a row's first and last chunk -> its revisions, BVH
        self._lookups = 0
        self.builds = 0  # BVHs built so far (chunks whose collision mesh changed, or first asked for)

    def parts(self, key: tuple) -> list[TriangleBVH]:
        """BVHs holding the triangles of the chunks of ``key`` (a :meth:`ChunkMesher.collision_key`: active
        chunks and their revisions) in the chunks' order: a row's chunks combined (see the class)."""
        chunks = key[0]
        if not chunks:
            return []
        index, rows = self._indices_of(chunks)
        revisions = self._refresh(key, index)
        bvhs, found = self._bvhs[index], []
        for start, end in rows:
            members = [bvh for bvh in bvhs[start:end] if bvh is not None]
            if len(members) < 2:
                found.extend(members)
                continue
            ends, stamp = (chunks[start], chunks[end - 1]), revisions[start:end].tobytes()
            row = self._rows.get(ends)
            if row is None or row[0] != stamp:
                row = self._rows[ends] = (stamp, TriangleBVH.combine(members))
            found.append(row[1])
        return found

    def chunk_parts(self, key: tuple) -> list[TriangleBVH]:
        """The BVH of each chunk of ``key`` with triangles, in the chunks' order, none combined (a query over a
        few chunks asks each whose box it meets: :class:`~voxelworld.game.terrain_contacts.TerrainContacts`)."""
        chunks = key[0]
        if not chunks:
            return []
        index, _ = self._indices_of(chunks)
        self._refresh(key, index)
        return [bvh for bvh in self._bvhs[index] if bvh is not None]

    def _indices_of(self, chunks: tuple) -> tuple[tuple, list]:
        """A chunk list's index into the grid arrays and its rows (start, end) along z, kept per list."""
        kept = self._indices.get(chunks)
        if kept is None:
            if len(self._indices) > 64:  # lists of places left long ago
                self._indices.clear()
            array = np.array(chunks, dtype=np.int64)
            starts = [0] + (np.flatnonzero(np.any(array[1:, :2] != array[:-1, :2], axis=1)) + 1).tolist()
            kept = self._indices[chunks] = (tuple(array.T), list(zip(starts, starts[1:] + [len(chunks)])))
        return kept

    def _refresh(self, key: tuple, index: tuple) -> np.ndarray:
        """Build the BVHs of the chunks of ``key`` whose revision moved; let go of those long unasked for.
        Returns the revisions of ``key``."""
        chunks = key[0]
        revisions = np.frombuffer(key[1], dtype=np.int64)
        self._lookups += 1
        moved = np.flatnonzero(self._built[index] != revisions).tolist()
        meshes = self.mesher.chunk_collision_meshes([chunks[n] for n in moved]) if moved else []
        for n, mesh in zip(moved, meshes):
            chunk = chunks[n]
            self._bvhs[chunk] = TriangleBVH(mesh.positions, mesh.indices, mesh.tri_material) \
                if mesh.triangle_count else None
            self._built[chunk] = revisions[n]
            self.builds += 1
        self._used[index] = self._lookups
        if self._lookups % _SWEEP_EVERY == 0:
            stale = (self._used <= self._lookups - _SWEEP_EVERY) & (self._built >= 0)
            self._bvhs[stale], self._built[stale] = None, -1
            self._rows = {ends: row for ends, row in self._rows.items() if not stale[ends[0]]}
        return revisions


_SHARED: weakref.WeakKeyDictionary[ChunkMesher, ChunkBVHs] = weakref.WeakKeyDictionary()


def chunk_bvhs(mesher: ChunkMesher) -> ChunkBVHs:
    """The :class:`ChunkBVHs` every consumer of ``mesher``'s collision meshes shares."""
    shared = _SHARED.get(mesher)
    if shared is None:
        shared = _SHARED[mesher] = ChunkBVHs(mesher)
    return shared


def focus_boxes(points: ArrayLike, radius: float) -> list[Box]:
    """The boxes (m) a collider covers around ``points`` (actors, m): each point's box ``radius`` m every way,
    those that meet merged into their joint box until none meet, in the order of their lowest corners. Players
    side by side share one box; two far apart have one each, not one box over everything between them (two
    players 1 km apart on a streaming world)."""
    corners = merged_boxes([(p - radius, p + radius) for p in np.asarray(points, dtype=np.float64).reshape(-1, 3)])
    return [Box(point_tuple(lo), point_tuple(hi)) for lo, hi in sorted(corners, key=lambda c: tuple(c[0]))]


def boxes_key(mesher: ChunkMesher, boxes: Iterable[Box]) -> tuple:
    """:meth:`ChunkMesher.collision_key` of the chunks of all of ``boxes`` (each chunk once, in chunk order)."""
    keys = [mesher.collision_key(box) for box in boxes]
    if len(keys) == 1:
        return keys[0]
    revisions: dict[tuple, int] = {}
    for chunks, stamps in keys:
        revisions.update(zip(chunks, np.frombuffer(stamps, dtype=np.int64).tolist()))
    chunks = tuple(sorted(revisions))
    return chunks, np.array([revisions[c] for c in chunks], dtype=np.int64).tobytes()


def prop_bvh(props: tuple[Prop, ...], materials: MaterialTable) -> TriangleBVH | None:
    """One BVH of every prop's triangles (object: the prop's index), None without props."""
    if not props:
        return None
    offsets = np.cumsum([0] + [len(p.positions) for p in props])
    return TriangleBVH(np.concatenate([p.positions for p in props]),
                       np.concatenate([p.indices + offsets[n] for n, p in enumerate(props)]),
                       np.concatenate([np.full(len(p.indices), materials.id_of(p.material), np.uint8) for p in props]),
                       np.concatenate([np.full(len(p.indices), n, np.int64) for n, p in enumerate(props)]))


class Collider:
    """The triangles actors collide with: the terrain's collision mesh of some chunks plus the props, in one
    :class:`~voxelworld.collision.TriangleBVH` (``bvh``; None without triangles) combined from the chunks' own
    BVHs and the props'. Terrain triangles come first, by chunk, with object -1; then the props' triangles with
    the prop's index; every triangle carries one material id.

    Parameters
    ----------
    parts : sequence of TriangleBVH
        The chunks' BVHs (object -1), in chunk order.
    props : TriangleBVH or None
        The props' BVH (:func:`prop_bvh`).
    materials : MaterialTable
    boxes : sequence of Box, optional
        The boxes (m) whose chunks ``parts`` hold: every terrain triangle reaching into one is there
        (:meth:`covers`). None given: no promise.
    """

    def __init__(self, parts: Iterable[TriangleBVH], props: TriangleBVH | None, materials: MaterialTable,
                 boxes: Iterable[Box] = ()) -> None:
        self.materials, self.boxes = materials, tuple(boxes)
        parts = list(parts) + ([] if props is None else [props])
        self.bvh = TriangleBVH.combine(parts) if parts else None

    def covers(self, centre: Iterable[float], radius: float) -> bool:
        """Whether every terrain triangle within ``radius`` m of ``centre`` is in this collider (the ball lies in
        one of its :attr:`boxes`), so that a query there may ask it instead of combining the chunks' BVHs itself."""
        return any(all(lo <= c - radius and c + radius <= hi for lo, c, hi in zip(box.min, centre, box.max))
                   for box in self.boxes)

    @property
    def triangle_count(self) -> int:
        return 0 if self.bvh is None else self.bvh.triangle_count

    def raycast(self, origins: ArrayLike, directions: ArrayLike, max_distance: float = np.inf) -> RayHits:
        """First hits, as :meth:`TriangleBVH.raycast` (no hits at all when there are no triangles)."""
        if self.bvh is not None:
            return self.bvh.raycast(origins, directions, max_distance)
        n = max(len(np.atleast_2d(origins)), len(np.atleast_2d(directions)))
        return RayHits(np.full(n, np.inf), np.full(n, -1, np.int64), np.full((n, 3), np.nan),
                       np.full((n, 3), np.nan), np.zeros(n, np.uint8), np.full(n, -1, np.int64))

    def overlap_capsule(self, a: ArrayLike, b: ArrayLike, radius: float) -> Contacts:
        """Touched triangles, as :meth:`TriangleBVH.overlap_capsule`."""
        if self.bvh is not None:
            return self.bvh.overlap_capsule(a, b, radius)
        none = np.zeros(0, np.int64)
        return Contacts(none, none, np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0), np.zeros(0, np.uint8), none)

    def ground_under(self, x: float, z: float, spread: float, top: float, bottom: float) -> Ground | None:
        """The highest surface under a footprint, as :meth:`TriangleBVH.ground_under` (None without triangles)."""
        return None if self.bvh is None else self.bvh.ground_under(x, z, spread, top, bottom)

    def capsule_push(self, a: ArrayLike, b: ArrayLike, radius: float) -> CapsulePush:
        """The move out of walls and ceilings, as :meth:`TriangleBVH.capsule_push` (none without triangles)."""
        if self.bvh is not None:
            return self.bvh.capsule_push(a, b, radius)
        return CapsulePush(np.zeros(3), False, False)

    def material_name(self, material_id: int) -> str:
        return self.materials.name_by_id[material_id]
