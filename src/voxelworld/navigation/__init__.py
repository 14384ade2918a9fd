"""voxelworld.navigation: navmeshes baked by casting rays through any triangle scene, and path queries on them.

Floor 2: bakes any triangle scene (an OBJ level, or a voxel world's collision mesh handed down by the game);
knows nothing of voxels.

- :class:`Scene` / :class:`SceneObject`: named triangle meshes with a role (``"floor"``, ``"obstacle"``,
  ``"exception"``, or ``"auto"``, the default, which the bake decides by the vertex-in-region rule:
  :func:`~voxelworld.navigation.rays.bake_roles`); :meth:`Scene.from_obj` reads Wavefront OBJ levels,
  :meth:`Scene.triangles` gives one triangle soup with a per-triangle object index for a collision BVH.
- :class:`NavSettings`: every bake parameter in world units, validated; :meth:`NavSettings.from_recast` maps
  Recast's demo parameters onto them.
- :class:`SearchRegion`: a box placed in the scene that a bake covers, maybe turned (``rotation``: walls,
  ceilings, tilted decks; :mod:`~voxelworld.navigation.frames`).
- :class:`NavMesh`: walkable polygons per level with portals (the data, checked on construction); areas,
  islands, JSON (docs/specs/navmesh-json.md, :mod:`~voxelworld.navigation.formats`), OBJ, and ``rebake`` of the
  tiles a change of the scene touches.
- :class:`NavQuery`: the queries of one agent or thread on a navmesh (``locate``, ``nearest_point``,
  ``find_path``, ``raycast``, ``random_point``), with the scratch its path searches reuse; a
  :class:`QueryFilter` (:mod:`~voxelworld.navigation.filters`) weighs or excludes area types in them.
- :class:`Crowd` / :class:`CrowdSettings`: agents (radius, speed, goal) walking a navmesh together, steering
  along their paths with local avoidance (ORCA) and kept on the mesh and apart (Detour's crowd is the model;
  :mod:`~voxelworld.navigation.crowd`).
- :func:`voxelworld.navigation.bake.bake`: the ray-cast baker, in steps that can be called one by one
  (:mod:`~voxelworld.navigation.rays`, :mod:`~voxelworld.navigation.sampling`,
  :mod:`~voxelworld.navigation.polygons`); :func:`navmesh_from_grids` makes a navmesh from grids of walkable
  cells of your own.

The guide is docs/navigation.md.
"""

from .crowd import Crowd, CrowdEvent, CrowdSettings
from .filters import QueryFilter
from .navmesh import NavMesh
from .polygons import WalkableGrid, navmesh_from_grids
from .query import NavPath, NavQuery
from .scene import Scene, SceneObject
from .settings import NavSettings, SearchRegion

__all__ = ["Scene", "SceneObject", "NavSettings", "SearchRegion", "NavMesh", "NavQuery", "NavPath", "QueryFilter",
           "WalkableGrid", "navmesh_from_grids", "Crowd", "CrowdSettings", "CrowdEvent"]
