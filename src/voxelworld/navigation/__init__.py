"""voxelworld.navigation: the scenes navmeshes are baked from, and the settings of a bake.

Floor 2: bakes any triangle scene (an OBJ level, or a voxel world's collision mesh handed down by the game);
knows nothing of voxels.

- :class:`Scene` / :class:`SceneObject`: named triangle meshes with a role (``"floor"``, ``"obstacle"``,
  ``"exception"``); :meth:`Scene.from_obj` reads Wavefront OBJ levels, :meth:`Scene.triangles` gives one
  triangle soup with a per-triangle object index for a collision BVH.
- :class:`NavSettings`: every bake parameter in world units, validated; :meth:`NavSettings.from_recast` maps
  Recast's demo parameters onto them.
- :class:`SearchRegion`: a box placed in the scene that a bake covers.

Still to come (issue #4): the ray-cast baker (``bake``), the ``NavMesh`` it produces and its path queries.
"""

from .scene import Scene, SceneObject
from .settings import NavSettings, SearchRegion

__all__ = ["Scene", "SceneObject", "NavSettings", "SearchRegion"]
