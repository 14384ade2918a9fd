"""`Collider`: the triangles a world's actors collide with (the terrain's collision mesh near them, the props)."""

from __future__ import annotations

import numpy as np

from ..collision import Contacts, RayHits, TriangleBVH
from ..meshing import CollisionMesh
from ..terrain import MaterialTable
from .level import Prop


class Collider:
    """The triangles actors collide with: the terrain's collision mesh near them plus the props, in one
    :class:`~voxelworld.collision.TriangleBVH`. Terrain triangles have object -1, a prop's triangles the
    prop's index; every triangle carries one material id."""

    def __init__(self, terrain: CollisionMesh, props: tuple[Prop, ...], materials: MaterialTable):
        self.materials = materials
        positions = [terrain.positions.astype(np.float64)] + [p.positions for p in props]
        offsets = np.cumsum([0] + [len(p) for p in positions])
        indices = [terrain.indices.astype(np.int64)] + [p.indices + offsets[n + 1] for n, p in enumerate(props)]
        tri_material = [terrain.tri_material] + [np.full(len(p.indices), materials.id_of(p.material), np.uint8)
                                                 for p in props]
        tri_object = [np.full(terrain.triangle_count, -1, np.int64)] + [np.full(len(p.indices), n, np.int64)
                                                                        for n, p in enumerate(props)]
        count = sum(len(i) for i in indices)
        self.bvh = TriangleBVH(np.concatenate(positions), np.concatenate(indices), np.concatenate(tri_material),
                               np.concatenate(tri_object)) if count else None

    @property
    def triangle_count(self) -> int:
        return 0 if self.bvh is None else self.bvh.triangle_count

    def raycast(self, origins, directions, max_distance=np.inf) -> RayHits:
        """First hits, as :meth:`TriangleBVH.raycast` (no hits at all when there are no triangles)."""
        if self.bvh is not None:
            return self.bvh.raycast(origins, directions, max_distance)
        n = max(len(np.atleast_2d(origins)), len(np.atleast_2d(directions)))
        return RayHits(np.full(n, np.inf), np.full(n, -1, np.int64), np.full((n, 3), np.nan),
                       np.full((n, 3), np.nan), np.zeros(n, np.uint8), np.full(n, -1, np.int64))

    def overlap_capsule(self, a, b, radius) -> Contacts:
        """Touched triangles, as :meth:`TriangleBVH.overlap_capsule`."""
        if self.bvh is not None:
            return self.bvh.overlap_capsule(a, b, radius)
        none = np.zeros(0, np.int64)
        return Contacts(none, none, np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0), np.zeros(0, np.uint8), none)

    def material_name(self, material_id: int) -> str:
        return self.materials.name_by_id[material_id]
