"""voxelworld.meshing: display and collision meshes of a voxel volume, kept current as it is edited.

Floor 2: reads :mod:`voxelworld.terrain`, knows nothing of navigation or the game.

- :func:`dual_vertices`: one vertex per surface patch of each cell (surface nets, or dual contouring with
  ``sharp``), with normals and the two materials of highest evaluation value.
- :class:`DisplayMesh` / :class:`CollisionMesh`: triangles to draw (at most two blended materials per triangle)
  and to collide with (exactly one material per triangle); :func:`vertex_occlusion`, the display vertices'
  ambient occlusion from the voxels around them.
- :func:`mesh_volume`, :func:`collision_mesh_volume`: a whole volume at once.
- :class:`ChunkMesher`: per-chunk meshes, incrementally updated after edits; collision meshes on request.
- :class:`PreparedChanges`: a change of the active chunks and levels of detail worked out on a background
  thread (:meth:`ChunkMesher.prepare_changes`, :meth:`ChunkMesher.apply_changes`); or the state at once and the
  display work owed, landed when ready (:meth:`ChunkMesher.defer_changes`, :meth:`ChunkMesher.prepare_deferred`),
  for streaming worlds.
- :class:`MeshOptions`: surface nets or dual contouring, octree simplification levels and tolerances.
- :func:`detail_levels`: a level of detail per chunk by distance to the viewers, 2:1 between neighbours
  (:func:`relax_to_two_to_one`), for :meth:`ChunkMesher.set_detail_levels`.
"""

from .chunk_surfaces import collision_mesh_volume, mesh_volume
from .chunks import ChunkMesher, MeshUpdate
from .detail import DETAIL_DISTANCES, FEATURE_FLOOR_LEVEL, MAX_DETAIL_LEVEL, detail_levels, relax_to_two_to_one
from .mesh import CollisionMesh, DisplayMesh, merge_collision_meshes, merge_display_meshes, vertex_occlusion
from .options import MeshOptions
from .prepared import PreparedChanges
from .surface import DualVertices, dual_vertices

__all__ = ["ChunkMesher", "MeshUpdate", "mesh_volume", "collision_mesh_volume", "DisplayMesh", "CollisionMesh",
           "merge_display_meshes", "merge_collision_meshes", "vertex_occlusion", "MeshOptions", "DualVertices", "dual_vertices",
           "detail_levels", "relax_to_two_to_one", "DETAIL_DISTANCES", "FEATURE_FLOOR_LEVEL", "MAX_DETAIL_LEVEL",
           "PreparedChanges"]
