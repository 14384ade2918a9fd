"""voxelworld.navigation: the scenes navmeshes are baked from, and the settings of a bake.

Floor 2: bakes any triangle scene (an OBJ level, or a voxel world's collision mesh handed down by the game);
knows nothing of voxels.

- :class:`Scene` / :class:`SceneObject`: named triangle meshes with a role (``"floor"``, ``"obstacle"``,
  ``"exception"``); :meth:`Scene.from_obj` reads Wavefront OBJ levels, :meth:`Scene.triangles` gives one
  triangle soup with a per-triangle object index for a collision BVH.
- :class:`NavSettings`: every bake parameter in world units, validated; :meth:`NavSettings.from_recast` maps
  Recast's demo parameters onto them.
- :class:`SearchRegion`: a box placed in the scene that a bake covers.
- :class:`NavMesh`: walkable polygons per level with portals; areas, islands, ``nearest_point``, ``find_path``
  (A* corridor + funnel), ``raycast``, ``random_point``, JSON (docs/specs/navmesh-json.md) and OBJ; made from
  walkable cell grids by :func:`navmesh_from_grids`.

Still to come (issue #4): the ray-cast baker (``bake``) that turns a scene into walkable grids, tiled
``rebake``, and paths within 1% of the optimum (the corridor A* picks over grid rectangles is not always the
shortest one yet).
"""

from .navmesh import NavMesh, NavPath
from .polygons import WalkableGrid, navmesh_from_grids
from .scene import Scene, SceneObject
from .settings import NavSettings, SearchRegion

__all__ = ["Scene", "SceneObject", "NavSettings", "SearchRegion", "NavMesh", "NavPath", "WalkableGrid",
           "navmesh_from_grids"]
