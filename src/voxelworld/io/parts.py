"""What a world export writes, gathered and checked once for every format (glTF and OBJ).

:func:`gather` checks an exporter's arguments and collects the world's parts as plain arrays: the terrain's
display mesh (every chunk's, merged in chunk order) with the material each triangle shows most, the collision
mesh and the navmesh when asked, the name and colour of every material id and the materials' texture pictures.
:func:`material_groups`, :func:`planar_vertices` and :func:`fan_triangles` split, map and triangulate them the
same way in every format.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ParameterError, check_range
from ..game.world import World
from ..meshing import CollisionMesh, DisplayMesh
from ..navigation import NavMesh
from ..terrain import NONE_COLOUR, TEXTURE_METRES, TextureSet, texture_set

__all__ = ["ExportParts", "gather", "check_path", "dominant_materials", "material_groups", "fan_triangles",
           "planar_vertices", "PlanarVertices", "NONE_COLOUR", "NAVMESH_COLOUR"]

NAVMESH_COLOUR = (0.2, 0.6, 1.0, 0.5)  # sRGB and alpha of the navmesh in every format


@dataclass(frozen=True)
class ExportParts:
    """The parts of a world an exporter writes.

    ``display``: the terrain's display mesh; ``display_material``: (m,) uint8, per display triangle the
    material it shows most (:func:`dominant_materials`); ``collision``, ``navmesh``: None unless asked for;
    ``names``: 256 material names by id ("none" at 0, ``material_<id>`` where the table has no material);
    ``colours``: (256, 3) float64 sRGB colours in [0, 1] by id, as in the material table (each the average of
    its texture's picture); ``textures``: the table's texture pictures (:func:`voxelworld.terrain.texture_set`).
    """

    display: DisplayMesh
    display_material: np.ndarray
    collision: CollisionMesh | None
    navmesh: NavMesh | None
    names: tuple[str, ...]
    colours: np.ndarray
    textures: TextureSet


def check_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a Path, or :class:`ParameterError` unless it names a file (existing or not) in an existing
    folder."""
    legal = "a file path (str or os.PathLike) in an existing folder, not a folder"
    check_range("path", path, legal, isinstance(path, (str, os.PathLike)) and not isinstance(path, bytes))
    target = Path(path)
    check_range("path", path, legal, str(path) != "" and not target.is_dir() and target.parent.is_dir())
    return target


def gather(world: World, collision: bool = False, navmesh: bool = False) -> ExportParts:
    """Check an exporter's arguments and collect ``world``'s parts (the collision mesh and the navmesh only
    when ``collision`` and ``navmesh`` are True)."""
    check_range("world", world, "a voxelworld.game.world.World", isinstance(world, World))
    check_range("collision", collision, "True or False", isinstance(collision, bool))
    check_range("navmesh", navmesh, "True or False", isinstance(navmesh, bool))
    navigation = world.agents.navigation
    if navmesh and navigation is None:
        raise ParameterError("navmesh", navmesh, "False for a world without a navmesh (world.agents.navigation is "
                                                 "None: add an NPC or call world.agents.navigate() first)")
    display = world.mesher.display_mesh()
    names = tuple(name or f"material_{number}" for number, name in enumerate(world.materials.name_by_id))
    colours = world.materials.palette()
    return ExportParts(display, dominant_materials(display), world.mesher.collision_mesh() if collision else None,
                       navigation.mesh if navmesh and navigation is not None else None, names, colours,
                       texture_set(world.materials))


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


@dataclass(frozen=True)
class PlanarVertices:
    """A display mesh's vertices split for planar texture mapping (:func:`planar_vertices`).

    ``source`` (k,) int64: the display-mesh vertex each new vertex copies; ``axis`` (k,) int64: the axis (0 x,
    1 y, 2 z) its triangles face most, along which it is projected; ``uv`` (k, 2) float32: its texture
    coordinates, world position / ``TEXTURE_METRES`` on the plane across that axis ((z, y), (x, z), (x, y), as
    the snapshots map textures); ``dominant`` (k,) uint8: the material its triangles show most; ``indices`` (m, 3)
    int64: the triangles, in the mesh's order, over the new vertices.
    """

    source: np.ndarray
    axis: np.ndarray
    uv: np.ndarray
    dominant: np.ndarray
    indices: np.ndarray


_PLANES = np.array([[2, 1], [0, 2], [0, 1]])  # the world axes of (u, v) when projecting along x, y, z


def planar_vertices(mesh: DisplayMesh, triangle_material: np.ndarray) -> PlanarVertices:
    """Split ``mesh``'s vertices so that each triangle is box-mapped along the axis it faces most: a vertex
    whose triangles face different axes, or show different materials most (``triangle_material``, (m,)), is
    copied once per (axis, material). Same mesh, same split.

    >>> from voxelworld.meshing import DisplayMesh
    >>> up, side = [0, 1, 0], [1, 0, 0]  # a floor triangle, and a wall triangle sharing vertex 0
    >>> mesh = DisplayMesh(np.float32([[0, 0, 0], [2, 0, 0], [0, 0, 2], [0, 2, 0], [0, 2, 2]]),
    ...                    np.float32([up, up, up, side, side]), np.uint32([[0, 2, 1], [0, 4, 3]]),
    ...                    np.uint8([4] * 5), np.uint8([0] * 5), np.float32([0] * 5))
    >>> split = planar_vertices(mesh, np.uint8([4, 4]))
    >>> split.source.tolist(), split.axis.tolist(), split.indices.tolist()
    ([0, 0, 1, 2, 3, 4], [0, 1, 1, 1, 0, 0], [[1, 3, 2], [0, 5, 4]])
    >>> split.uv[2].tolist()  # vertex 1 on the floor: (x, z) / TEXTURE_METRES
    [1.0, 0.0]
    """
    corners = mesh.indices.astype(np.int64)
    facing = mesh.normals.astype(np.float64)[corners].sum(axis=1)
    flat = np.cross(*(mesh.positions.astype(np.float64)[corners[:, k]] - mesh.positions[corners[:, 0]]
                      for k in (1, 2)))
    facing = np.where(np.abs(facing).sum(axis=1, keepdims=True) > 1e-9, facing, flat)
    axis = np.argmax(np.abs(facing), axis=1)
    material = np.asarray(triangle_material, dtype=np.int64)
    keys = (corners * 3 + axis[:, None]) * 256 + material[:, None]
    unique, new = np.unique(keys.ravel(), return_inverse=True)
    source, vertex_axis, dominant = unique // 768, (unique // 256) % 3, unique % 256
    planes = _PLANES[vertex_axis]
    positions = mesh.positions.astype(np.float64)[source]
    uv = np.take_along_axis(positions, planes, axis=1) / TEXTURE_METRES
    return PlanarVertices(source, vertex_axis, uv.astype(np.float32), dominant.astype(np.uint8),
                          new.reshape(-1, 3).astype(np.int64))
