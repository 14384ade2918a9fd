"""Area types of the terrain's ground, from its materials: what the world's navmesh tells its NPCs' query filters.

Each triangle of a chunk's collision mesh (one material per triangle) gets an area type
(:mod:`voxelworld.navigation.area_types`), and the walkable cells standing on it take it:

- ``"hazard"``: a triangle of a material with ``contact_damage > 0`` (lava), and every triangle with a corner or
  its centre within :data:`HAZARD_DISTANCE` (1 m) of a corner or centre of such a triangle, in its own chunk or
  another (this wins over the rules below);
- the material's own ``area_type`` when its table names one (``Material.area_type``, e.g. ``"mud"``);
- ``"slippery"``: a material whose ``slipperiness`` is above :data:`SLIPPERY_FROM` (ice);
- ``"ground"`` otherwise.

Every terrain object names the same area types (``"ground"``, ``"hazard"``, ``"slippery"`` and those the table
names, :attr:`TerrainAreaTypes.names`), so the navmesh's ``area_types`` stay the same as the terrain changes. A
triangle's type depends on the collision meshes within 1 m of it, so when a chunk's damaging triangles change, the
chunks within 1 m of them are typed again (:meth:`TerrainAreaTypes.objects`), and a re-bake's box covers every
triangle whose type changed. (A streaming navigation sees only the chunks it holds: a chunk loaded later near
damaging triangles is typed with them, the tiles baked before it came are not re-baked for it.)
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping

import numpy as np

from ..meshing import CollisionMesh
from ..navigation import SceneObject
from ..navigation.area_types import GROUND, HAZARD, SLIPPERY
from ..terrain import MaterialTable

__all__ = ["TerrainAreaTypes", "HAZARD_DISTANCE", "SLIPPERY_FROM", "one_type"]

HAZARD_DISTANCE = 1.0  # m: ground this near a material that hurts on contact is "hazard"
SLIPPERY_FROM = 0.8  # a material's slipperiness above which its ground is "slippery" (ice: 0.95; sand: 0.5)

Chunk = tuple[int, int, int]


class TerrainAreaTypes:
    """The area types of a material table's ground (see the module's docstring).

    Parameters
    ----------
    materials : MaterialTable
    """

    def __init__(self, materials: MaterialTable) -> None:
        named = sorted({m.area_type for m in materials if m.area_type} - {GROUND, HAZARD, SLIPPERY})
        self.names: tuple[str, ...] = (GROUND, HAZARD, SLIPPERY, *named)
        self.code = np.zeros(256, dtype=np.int64)  # per material id: its type unless near a damaging one
        self.damaging = np.zeros(256, dtype=bool)  # per material id: contact_damage > 0
        for m in materials:
            if m.area_type:
                self.code[m.id] = self.names.index(m.area_type)
            elif m.slipperiness > SLIPPERY_FROM:
                self.code[m.id] = self.names.index(SLIPPERY)
            self.damaging[m.id] = m.contact_damage > 0
        self.hazard = self.names.index(HAZARD)
        # Per chunk: the mesh last typed, its box (lo, hi), its damaging triangles' corners and centres and their
        # box grown by HAZARD_DISTANCE (lo, hi); and the chunks whose mesh has damaging triangles.
        self._known: dict[Chunk, tuple[CollisionMesh, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        self._damaging_chunks: set[Chunk] = set()

    def copy(self) -> TerrainAreaTypes:
        """A copy whose typing of meshes (what :meth:`objects` remembers) goes its own way from here: for typing
        on another thread what the original will type later."""
        twin = copy.copy(self)
        twin._known, twin._damaging_chunks = dict(self._known), set(self._damaging_chunks)
        return twin

    def damaging_points(self, mesh: CollisionMesh | None) -> np.ndarray:
        """The corners and centres (k, 3) (m) of the damaging triangles of ``mesh``."""
        if mesh is None or not self.damaging[mesh.tri_material].any():
            return np.empty((0, 3))
        return _probes(mesh.positions, mesh.indices[self.damaging[mesh.tri_material]])

    def _entry(self, chunk: Chunk, mesh: CollisionMesh
               ) -> tuple[CollisionMesh, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        entry = self._known.get(chunk)
        if entry is None or entry[0] is not mesh:
            positions = np.asarray(mesh.positions, dtype=np.float64)
            points = self.damaging_points(mesh)
            grown = (points.min(axis=0) - HAZARD_DISTANCE, points.max(axis=0) + HAZARD_DISTANCE) if len(points) \
                else (np.full(3, np.inf), np.full(3, -np.inf))
            entry = (mesh, positions.min(axis=0), positions.max(axis=0), points, *grown)
            self._known[chunk] = entry
            (self._damaging_chunks.add if len(entry[3]) else self._damaging_chunks.discard)(chunk)
        return entry

    def objects(self, meshes: Mapping[Chunk, CollisionMesh | None], chunks: Iterable[Chunk],
                name: Callable[[Chunk], str]) -> tuple[dict[Chunk, SceneObject | None], bool]:
        """The scene objects (None: no triangles) of the chunks ``chunks`` whose collision meshes (``meshes``, the
        ones held) changed, and of the chunks ``meshes`` holds whose triangles' types may have changed with them:
        those within :data:`HAZARD_DISTANCE` of the damaging triangles of a changed chunk, where they changed; and
        whether they did (if not, a triangle in both the old and the new meshes kept its type)."""
        chunks = set(chunks)
        reach: list[tuple[np.ndarray, np.ndarray]] = []  # boxes of damaging triangles where they changed
        for chunk in chunks:
            old, mesh = self._known.get(chunk), meshes.get(chunk)
            new = None if mesh is None else self._entry(chunk, mesh)
            if np.array_equal(np.empty((0, 3)) if old is None else old[3], np.empty((0, 3)) if new is None else new[3]):
                continue
            for entry in (old, new):
                if entry is not None and len(entry[3]):
                    reach.append((entry[4], entry[5]))
            if mesh is None:
                self._known.pop(chunk, None)
                self._damaging_chunks.discard(chunk)
        if reach:  # the chunks held whose triangles come near them
            for chunk, mesh in meshes.items():
                if mesh is not None and chunk not in chunks:
                    _, lo, hi, *_ = self._entry(chunk, mesh)
                    if any(_meet(lo, hi, a, b) for a, b in reach):
                        chunks.add(chunk)
        damaging = [self._known[c] for c in sorted(self._damaging_chunks) if meshes.get(c) is self._known[c][0]]
        out: dict[Chunk, SceneObject | None] = {}
        tree = None  # one tree over the damaging triangles near any of the chunks, made when first needed
        for chunk in sorted(chunks):
            mesh = meshes.get(chunk)
            if mesh is None:
                out[chunk] = None
                continue
            _, lo, hi, *_ = self._entry(chunk, mesh)
            kind = self.code[mesh.tri_material]
            if any(_meet(lo, hi, entry[4], entry[5]) for entry in damaging):
                if tree is None:
                    from scipy.spatial import cKDTree  # (slow to import: only near lava)
                    tree = cKDTree(np.concatenate([entry[3] for entry in damaging]))
                distance, _ = tree.query(_probes(mesh.positions, mesh.indices),
                                         distance_upper_bound=HAZARD_DISTANCE * (1 + 1e-9))
                kind[np.isfinite(distance).reshape(4, -1).any(axis=0)] = self.hazard
            kind[self.damaging[mesh.tri_material]] = self.hazard
            out[chunk] = SceneObject(name(chunk), mesh.positions, mesh.indices.astype(np.int64), "floor",
                                     (self.names, kind))
        return out, bool(reach)


def _meet(lo: np.ndarray, hi: np.ndarray, a: np.ndarray, b: np.ndarray) -> bool:
    """Whether the boxes lo..hi and a..b (m) meet."""
    return bool(lo[0] <= b[0] and a[0] <= hi[0] and lo[1] <= b[1] and a[1] <= hi[1] and lo[2] <= b[2] and a[2] <= hi[2])


def one_type(obj: SceneObject) -> int:
    """The one area type (index) all of a terrain object's triangles have, or -1: two objects of the same one
    type differ in no triangle's type, so only the triangles that came or went change the navmesh."""
    kind = obj.triangle_area_type
    return int(kind[0]) if len(kind) and kind.min() == kind.max() else -1


def _probes(positions: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """The corners, then the centres, of the triangles (4 m, 3): corner 0 of each, corner 1, corner 2, centre."""
    corners = np.asarray(positions, dtype=np.float64)[np.asarray(indices, dtype=np.int64)]  # (m, 3, 3)
    return np.concatenate([corners[:, 0], corners[:, 1], corners[:, 2], corners.mean(axis=1)])
