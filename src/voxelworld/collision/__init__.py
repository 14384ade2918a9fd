"""voxelworld.collision: geometric questions about any triangle mesh.

Floor 1: knows nothing of voxels, meshing or navigation; takes plain triangle arrays (a collision mesh, a
level's OBJ, props).

- :class:`TriangleBVH`: ``raycast`` (first hit), ``raycast_all`` (every hit, sorted), ``segment_hits``,
  ``overlap_sphere`` / ``overlap_capsule`` (contacts with point, normal, depth, material), ``refit``, and
  ``TriangleBVH.combine`` (one tree over several, each kept whole: two-level collision).
"""

from .bvh import Contacts, RayHitList, RayHits, TriangleBVH

__all__ = ["TriangleBVH", "RayHits", "RayHitList", "Contacts"]
