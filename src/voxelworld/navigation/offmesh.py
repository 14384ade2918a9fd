"""A baked navmesh's off-mesh links: the drop links off its ledges and the links its scene's author placed.

:meth:`NavMesh.offmesh_links <voxelworld.navigation.NavMesh>` of a bake (and of every re-bake) lists, in this
order:

1. the drop links of each bake area (:mod:`voxelworld.navigation.ledges`, ``NavSettings.max_drop``), area by
   area: one-way, of area type ``"ground"``;
2. the scene's links (``Scene.with_link``), in the scene's order, each end snapped onto the navmesh: moved to the
   navmesh's nearest point (3-D) when that lies within :func:`snap_distance` (``agent_radius + 2 * cell_size``:
   erosion keeps the walkable area ``agent_radius`` from the wall a ladder leans on, and the whole-cells rule and
   the outline's simplification up to a cell or so more). A link with an end farther from the navmesh is left out
   (:func:`unplaced_links` lists them) until a re-bake brings ground within reach: a bake does not fail over a
   ladder whose foot the player dug away.

The navmesh's ``area_types`` gains the area type of every scene link (placed or not) that it does not name yet,
in the scene's order, after the polygons' own. Everything is in the navmesh's own frame (a turned bake turns the
scene's links into it as it turns the scene). A re-bake places the scene's links again over the new polygons (a
few nearest-point queries per link); the drop links of the areas it did not re-bake are kept as they were.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

import numpy as np

from ._kernels import locate as _locate
from .area_types import GROUND
from .ledges import AreaLedges
from .links import OffMeshLinks, SceneLink
from .navmesh import NavMesh
from .settings import NavSettings

__all__ = ["snap_distance", "place_links", "unplaced_links"]

# id(navmesh) -> the area type names place_links added after its polygons' own (a re-bake places the links again,
# over the polygons' names, so that a name only a link of the old scene had is not kept); dropped with the navmesh
_APPENDED: dict[int, tuple[str, ...]] = {}


def snap_distance(settings: NavSettings) -> float:
    """How far (m, 3-D) a scene link's end may lie from the navmesh to be snapped onto it:
    ``agent_radius + 2 * cell_size``."""
    return settings.agent_radius + 2 * settings.cell_size


def _snapped(mesh: NavMesh, links: Sequence[SceneLink], reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Each link's two ends snapped onto ``mesh`` ((n, 2, 3), metres) and whether both lie within ``reach``."""
    ends = np.full((len(links), 2, 3), np.nan)
    placed = np.zeros(len(links), dtype=bool)
    if not mesh.polygon_count:
        return ends, placed
    index = mesh.index
    for n, link in enumerate(links):
        near = True
        for e, (x, y, z) in enumerate((link.start, link.end)):
            q = _locate.nearest(index.polygons, index.buckets, x, y, z, ends[n, e])
            near = near and q >= 0 and float(np.linalg.norm(ends[n, e] - (x, y, z))) <= reach
        placed[n] = near
    return ends, placed


def place_links(mesh: NavMesh, ledges: Sequence[AreaLedges], links: Sequence[SceneLink],
                settings: NavSettings) -> None:
    """Give ``mesh`` (a bake's navmesh, its polygons in place) its off-mesh links: the areas' ``ledges`` and the
    scene's ``links`` (in the navmesh's frame) snapped onto it (see the module's docstring), and the links' area
    types in ``mesh.area_types``."""
    names = [name for name in mesh.area_types if name not in _APPENDED.get(id(mesh), ())]  # the polygons' own
    appended = tuple(dict.fromkeys(link.area for link in links if link.area not in names))
    names += appended
    if id(mesh) not in _APPENDED:
        weakref.finalize(mesh, _APPENDED.pop, id(mesh), None)
    _APPENDED[id(mesh)] = appended
    ends, placed = _snapped(mesh, links, snap_distance(settings))
    chosen = [link for link, ok in zip(links, placed) if ok]
    drops = sum(ledge.count for ledge in ledges)
    start = np.concatenate([ledge.start for ledge in ledges] + [ends[placed, 0]])
    end = np.concatenate([ledge.end for ledge in ledges] + [ends[placed, 1]])
    both = np.concatenate([np.zeros(drops, dtype=bool), np.array([link.bidirectional for link in chosen], bool)])
    area = np.concatenate([np.full(drops, names.index(GROUND), dtype=np.int64),
                           np.array([names.index(link.area) for link in chosen], dtype=np.int64)])
    mesh.area_types = tuple(names)
    mesh.offmesh_links = OffMeshLinks(start.reshape(-1, 3), end.reshape(-1, 3), both, area)


def unplaced_links(mesh: NavMesh) -> list[int]:
    """The indices (into its scene's ``links``) of the scene links a baked navmesh left out: an end lies farther
    than :func:`snap_distance` from its polygons. A navmesh not made by ``bake`` has none."""
    state = mesh.bake_state
    scene, settings = getattr(state, "scene", None), getattr(state, "settings", None)
    if scene is None or not isinstance(settings, NavSettings):
        return []
    _, placed = _snapped(mesh, scene.links, snap_distance(settings))
    return np.flatnonzero(~placed).tolist()
