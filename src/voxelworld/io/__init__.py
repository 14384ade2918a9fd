"""voxelworld.io: world files and exchange formats.

Floor 4, above the game: it stores and reads what :mod:`voxelworld.game` builds, through the objects'
``state_dict()`` / ``load_state_dict()`` (the game imports nothing of it).

- :func:`save_world` / :func:`load_world`: a whole game world in one
  SQLite file: voxels as checksummed zstd chunk blobs, the game state as JSON rows, written in one transaction
  and, on a re-save, only what changed (format: docs/specs/world-format.md).
- :func:`export_glb` (:mod:`voxelworld.io.gltf`): the display mesh (and optionally the collision mesh and the
  navmesh) as glTF 2.0 binary; :func:`export_obj` (:mod:`voxelworld.io.obj`): the same as Wavefront OBJ + MTL.
"""

from .gltf import export_glb
from .obj import export_obj
from .world_file import FORMAT_VERSION, SaveReport, load_world, save_world

__all__ = ["save_world", "load_world", "SaveReport", "FORMAT_VERSION", "export_glb", "export_obj"]
