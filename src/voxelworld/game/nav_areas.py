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
triangle's type depends on the collision meshes within 1 m of it, so when a chunk with damaging triangles (or
hazard ones) changes, the chunks around it are typed again (:meth:`TerrainAreaTypes.objects`), and a re-bake's box
covers every triangle whose type changed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from itertools import product

import numpy as np

from ..meshing import CollisionMesh
from ..navigation import SceneObject
from ..navigation.area_types import GROUND, HAZARD, SLIPPERY
from ..terrain import MaterialTable

__all__ = ["TerrainAreaTypes", "HAZARD_DISTANCE", "SLIPPERY_FROM"]

HAZARD_DISTANCE = 1.0  # m: ground this near a material that hurts on contact is "hazard"
SLIPPERY_FROM = 0.8  # a material's slipperiness above which its ground is "slippery" (ice: 0.95; sand: 0.5)

Chunk = tuple[int, int, int]


class TerrainAreaTypes:
    """The area types of a material table's ground (see the module's docstring).

    Parameters
    ----------
    materials : MaterialTable
    reach : float
        How far (m) a chunk's collision triangles reach past its box: chunks farther apart than
        ``HAZARD_DISTANCE`` plus twice this never type each other's triangles.
    chunk_edge : float
        A chunk's edge (m).
    """

    def __init__(self, materials: MaterialTable, reach: float, chunk_edge: float) -> None:
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
        self.ring = max(int(math.ceil((HAZARD_DISTANCE + 2 * reach) / chunk_edge)), 1)  # chunks around a chunk

    def damaging_points(self, mesh: CollisionMesh | None) -> np.ndarray:
        """The corners and centres (k, 3) (m) of the damaging triangles of ``mesh``."""
        if mesh is None or not self.damaging[mesh.tri_material].any():
            return np.empty((0, 3))
        return _probes(mesh.positions, mesh.indices[self.damaging[mesh.tri_material]])

    def triangle_types(self, mesh: CollisionMesh, damaging: np.ndarray) -> np.ndarray:
        """Each triangle's area type (an index into :attr:`names`), ``damaging`` the corners and centres (m) of
        the damaging triangles within reach (its own included)."""
        kind = self.code[mesh.tri_material]
        if len(damaging):
            from scipy.spatial import cKDTree  # imported here: scipy.spatial is slow to import, needed only near lava

            distance, _ = cKDTree(damaging).query(_probes(mesh.positions, mesh.indices),
                                                  distance_upper_bound=HAZARD_DISTANCE * (1 + 1e-9))
            near = np.isfinite(distance).reshape(4, -1).any(axis=0)
            kind[near | self.damaging[mesh.tri_material]] = self.hazard
        return kind

    def objects(self, meshes: Mapping[Chunk, CollisionMesh | None], chunks: Iterable[Chunk],
                old: Mapping[Chunk, SceneObject], name: Callable[[Chunk], str]) -> dict[Chunk, SceneObject | None]:
        """The scene objects (None: no triangles) of the chunks ``chunks`` whose collision meshes (``meshes``)
        changed, and of the chunks around them that ``meshes`` holds whose triangles' types may have changed with
        them (around a chunk with damaging triangles now, or hazard ones in ``old``, its objects before)."""
        chunks = set(chunks)
        around = set()
        for chunk in chunks:
            was = old.get(chunk)
            if len(self.damaging_points(meshes.get(chunk))) or (was is not None and was.area_types == self.names
                                                                and (was.triangle_area_type == self.hazard).any()):
                around.update(self._near(chunk))
        out: dict[Chunk, SceneObject | None] = {}
        points: dict[Chunk, np.ndarray] = {}
        for chunk in sorted(chunks | {c for c in around if c in meshes}):
            mesh = meshes.get(chunk)
            if mesh is None:
                out[chunk] = None
                continue
            near = [points.setdefault(c, self.damaging_points(meshes.get(c))) for c in self._near(chunk)]
            kind = self.triangle_types(mesh, np.concatenate(near))
            out[chunk] = SceneObject(name(chunk), mesh.positions, mesh.indices.astype(np.int64), "floor",
                                     (self.names, kind))
        return out

    def _near(self, chunk: Chunk) -> list[Chunk]:
        """The chunk and those within :attr:`ring` of it (some may lie outside the grid: they hold nothing)."""
        r = range(-self.ring, self.ring + 1)
        return [(chunk[0] + a, chunk[1] + b, chunk[2] + c) for a, b, c in product(r, r, r)]


def _probes(positions: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """The corners, then the centres, of the triangles (4 m, 3): corner 0 of each, corner 1, corner 2, centre."""
    corners = np.asarray(positions, dtype=np.float64)[np.asarray(indices, dtype=np.int64)]  # (m, 3, 3)
    return np.concatenate([corners[:, 0], corners[:, 1], corners[:, 2], corners.mean(axis=1)])
