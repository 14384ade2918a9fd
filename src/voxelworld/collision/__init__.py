"""voxelworld.collision: geometric questions about any triangle mesh.

Floor 1: knows nothing of voxels, meshing or navigation; takes plain triangle arrays (a collision mesh, a
level's OBJ, props).

- :class:`TriangleBVH`: ``raycast`` (first hit), ``raycast_all`` (every hit, sorted), ``segment_hits``,
  ``overlap_sphere`` / ``overlap_capsule`` (contacts with point, normal, depth, material), ``refit``, and
  ``TriangleBVH.combine`` (one tree over several, each kept whole: two-level collision); a standing
  character's two questions in one call each: ``ground_under`` (the highest surface under a footprint) and
  ``capsule_push`` (out of walls and ceilings).
"""

from .bvh import CapsulePush, Contacts, Ground, RayHitList, RayHits, TriangleBVH

__all__ = ["TriangleBVH", "RayHits", "RayHitList", "Contacts", "Ground", "CapsulePush"]
