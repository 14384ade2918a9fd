"""What a world export writes, gathered and checked once for every format (glTF and OBJ).

:func:`gather` checks an exporter's arguments and collects the world's parts as plain arrays: the terrain's
display mesh (every chunk's, merged in chunk order) with the material each triangle shows most, the collision
mesh and the navmesh when asked, and the name and colour of every material id. :func:`material_groups` and
:func:`fan_triangles` split and triangulate them the same way in every format.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ParameterError, check_range
from ..game.world import World
from ..meshing import CollisionMesh, DisplayMesh
from ..terrain import NONE_COLOUR
from ..navigation import NavMesh

__all__ = ["ExportParts", "gather", "check_path", "dominant_materials", "material_groups", "fan_triangles",
           "NONE_COLOUR", "NAVMESH_COLOUR"]

NAVMESH_COLOUR = (0.2, 0.6, 1.0, 0.5)  # sRGB and alpha of the navmesh in every format


@dataclass(frozen=True)
class ExportParts:
    """The parts of a world an exporter writes.

    ``display``: the terrain's display mesh; ``display_material``: (m,) uint8, per display triangle the
    material it shows most (:func:`dominant_materials`); ``collision``, ``navmesh``: None unless asked for;
    ``names``: 256 material names by id ("none" at 0, ``material_<id>`` where the table has no material);
    ``colours``: (256, 3) float64 sRGB colours in [0, 1] by id, as in the material table.
    """

    display: DisplayMesh
    display_material: np.ndarray
    collision: CollisionMesh | None
    navmesh: NavMesh | None
    names: tuple[str, ...]
    colours: np.ndarray


def check_path(path) -> Path:
    """``path`` as a Path, or :class:`ParameterError` unless it names a file (existing or not) in an existing
    folder."""
    legal = "a file path (str or os.PathLike) in an existing folder, not a folder"
    check_range("path", path, legal, isinstance(path, (str, os.PathLike)) and not isinstance(path, bytes))
    target = Path(path)
    check_range("path", path, legal, str(path) != "" and not target.is_dir() and target.parent.is_dir())
    return target


def gather(world, collision: bool = False, navmesh: bool = False) -> ExportParts:
    """Check an exporter's arguments and collect ``world``'s parts (the collision mesh and the navmesh only
    when ``collision`` and ``navmesh`` are True)."""
    check_range("world", world, "a voxelworld.game.world.World", isinstance(world, World))
    check_range("collision", collision, "True or False", isinstance(collision, bool))
    check_range("navmesh", navmesh, "True or False", isinstance(navmesh, bool))
    if navmesh and world.agents.navigation is None:
        raise ParameterError("navmesh", navmesh, "False for a world without a navmesh (world.agents.navigation is "
                                                 "None: add an NPC or call world.agents.navigate() first)")
    display = world.mesher.display_mesh()
    names = tuple(name or f"material_{number}" for number, name in enumerate(world.materials.name_by_id))
    colours = world.materials.palette()
    return ExportParts(display, dominant_materials(display), world.mesher.collision_mesh() if collision else None,
                       world.agents.navigation.mesh if navmesh else None, names, colours)


def dominant_materials(mesh: DisplayMesh) -> np.ndarray:
    """Per triangle the material it shows most: ``mat_b`` where the mean ``blend`` of its three vertices is over
    one half (and ``mat_b`` is a material), else ``mat_a``. A triangle's vertices share their pair of materials.

    >>> from voxelworld.meshing import DisplayMesh
    >>> mesh = DisplayMesh(np.zeros((4, 3), np.float32), np.zeros((4, 3), np.float32),
    ...                    np.array([[0, 1, 2], [1, 3, 2]], np.uint32), np.array([1, 1, 1, 1], np.uint8),
    ...                    np.array([2, 2, 2, 2], np.uint8), np.array([0.0, 0.5, 0.6, 1.0], np.float32))
    >>> dominant_materials(mesh).tolist()
    [1, 2]
    """
    corners = mesh.indices.astype(np.int64)
    share = mesh.blend.astype(np.float64)[corners].mean(axis=1)
    first = corners[:, 0]
    mat_a, mat_b = mesh.mat_a[first], mesh.mat_b[first]
    return np.where((share > 0.5) & (mat_b != 0), mat_b, mat_a).astype(np.uint8)


def material_groups(triangle_material: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """The triangles of each material, by ascending material id: ``(id, triangle numbers in order)``.

    >>> [(m, t.tolist()) for m, t in material_groups(np.array([4, 1, 4, 1], np.uint8))]
    [(1, [1, 3]), (4, [0, 2])]
    """
    order = np.argsort(triangle_material, kind="stable")
    ids, first = np.unique(triangle_material[order], return_index=True)
    return [(int(m), triangles) for m, triangles in zip(ids, np.split(order, first[1:]))]


def fan_triangles(start: np.ndarray, corners: np.ndarray, which: np.ndarray) -> np.ndarray:
    """Convex polygons as triangle fans around their first corner, ``(0, i, i + 1)``, keeping the winding:
    polygon ``q`` is ``corners[start[q]:start[q + 1]]``; ``which`` picks the polygons, in order. Returns
    (t, 3) int64 corner values.

    >>> fan_triangles(np.array([0, 4, 7]), np.array([5, 6, 7, 8, 1, 2, 3]), np.array([0, 1])).tolist()
    [[5, 6, 7], [5, 7, 8], [1, 2, 3]]
    """
    start = np.asarray(start, dtype=np.int64)
    corners = np.asarray(corners, dtype=np.int64)
    which = np.asarray(which, dtype=np.int64)
    first = start[which]
    count = start[which + 1] - first - 2  # triangles per polygon
    polygon_first = np.repeat(first, count)
    step = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count) + 1  # 1 .. n - 2 per polygon
    return np.stack([corners[polygon_first], corners[polygon_first + step], corners[polygon_first + step + 1]],
                    axis=1)
