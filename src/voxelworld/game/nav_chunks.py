"""Helpers of :mod:`voxelworld.game.navigation`: the scene objects of terrain chunks, what changed between two of
their collision meshes, and x-z boxes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from ..meshing import ChunkMesher, CollisionMesh
from ..navigation import SceneObject
from ..navigation.rebake import changed_box
from .nav_areas import TerrainAreaTypes

__all__ = ["chunk_name", "same_mesh", "changed_bounds", "chunk_collision_meshes", "terrain_objects", "boxes_meet"]


def chunk_name(chunk: tuple[int, ...]) -> str:
    return "terrain/{},{},{}".format(*chunk)


def same_mesh(a: CollisionMesh | None, b: CollisionMesh | None) -> bool:
    if a is None or b is None or a is b:  # the mesher hands back the mesh it cached while the chunk is unchanged
        return a is b
    return (np.array_equal(a.positions, b.positions) and np.array_equal(a.indices, b.indices)
            and np.array_equal(a.tri_material, b.tri_material))


def changed_bounds(old: CollisionMesh | None, new: CollisionMesh | None) -> tuple[np.ndarray, np.ndarray] | None:
    """The box (lo, hi) of the triangles that are in one mesh and not in the other, or None."""
    return changed_box(*((m.positions, m.indices, m.tri_material) if m is not None else None for m in (old, new)))


def chunk_collision_meshes(mesher: ChunkMesher, chunks: list[tuple]) -> dict[tuple, CollisionMesh | None]:
    """Each chunk's own collision mesh (None when it has no triangles), as of the mesher's last update."""
    return {chunk: mesh if mesh.triangle_count else None
            for chunk, mesh in zip(chunks, mesher.chunk_collision_meshes(chunks))}


def terrain_objects(areas: TerrainAreaTypes | None, meshes: Mapping[tuple, CollisionMesh | None],
                    chunks: Iterable[tuple]) -> tuple[dict[tuple, SceneObject | None], bool]:
    """The scene objects (None: no triangles) of ``chunks``, whose collision meshes changed, and of the chunks
    around them whose triangles' area types changed with them (``meshes``: every chunk held; ``areas``: the
    typing, None for every triangle ground), and whether damaging triangles came or went
    (:meth:`TerrainAreaTypes.objects <voxelworld.game.nav_areas.TerrainAreaTypes.objects>`)."""
    if areas is None:  # every triangle ground (a world saved before area types)
        return {c: None if (m := meshes.get(c)) is None else SceneObject(
            chunk_name(c), m.positions, m.indices.astype(np.int64), "floor") for c in chunks}, False
    return areas.objects(meshes, chunks, chunk_name)


def boxes_meet(a: Sequence[float], b: Sequence[float]) -> bool:
    """Whether two x-z boxes (x0, z0, x1, z1) overlap or touch."""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]
