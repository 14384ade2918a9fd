"""Small navmeshes of known shape that tests, benchmarks and examples share: :func:`doorway_navmesh`, two rooms
joined by a doorway (the crowd's test of agents swapping rooms and its benchmark)."""

from __future__ import annotations

import numpy as np

from .navmesh import NavMesh
from .polygons import WalkableGrid, navmesh_from_grids

__all__ = ["doorway_navmesh"]


def doorway_navmesh(room: float = 12.0, wall: float = 0.5, door: float = 2.0, cell: float = 0.25) -> NavMesh:
    """Two square rooms of side ``room`` m on the ground (y = 0), x from 0 to 2 room + wall and z from 0 to room,
    joined by a doorway in the wall between them whose walkable width is ``door`` m (for the centres of the
    agents the navmesh is for: about four and a half diameters of agents of radius 0.3 m by default), made with
    :func:`~voxelworld.navigation.navmesh_from_grids` from a grid of ``cell`` m.

    >>> mesh = doorway_navmesh()
    >>> float(mesh.vertices[:, 0].max()), mesh.area()
    (24.5, 289.0)
    """
    nx, nz = round((2 * room + wall) / cell), round(room / cell)
    walkable = np.ones((nx, nz), dtype=bool)
    posts = slice(round(room / cell), round((room + wall) / cell))
    walkable[posts, :] = False
    walkable[posts, round((room - door) / 2 / cell):round((room + door) / 2 / cell)] = True
    return navmesh_from_grids([WalkableGrid(walkable, np.zeros((nx, nz)), 0.0, 0.0, cell)])
