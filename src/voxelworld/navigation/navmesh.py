"""`NavMesh`: the walkable polygons with their portals, as data.

Polygons are convex and planar (they may slope), counter-clockwise seen from above, built by
:func:`~voxelworld.navigation.polygons.navmesh_from_grids` from the baker's walkable grids. Levels may lie over
each other in x-z. Two polygons are neighbours through a *portal*, the segment (or part of an edge) they share.

The constructor checks every array (shapes, index ranges, counts, finite coordinates) before any kernel reads
them, then derives the arrays the queries read (:class:`~voxelworld.navigation.index.NavIndex`). Queries are
asked of a :class:`~voxelworld.navigation.query.NavQuery`, which owns the search's scratch (one per agent or
thread, as Detour keeps ``dtNavMeshQuery`` apart from ``dtNavMesh``); JSON and OBJ are in
:mod:`~voxelworld.navigation.formats`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeAlias

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, short_value
from ..wavefront import ObjWriter
from . import formats
from ._kernels.arrays import BoundaryRings
from .area_types import GROUND, check_area_types
from .frames import Frame, check_frame
from .index import NavIndex, navmesh_index, polygon_areas
from .links import OffMeshLinks, check_offmesh_links, offmesh_links_document, offmesh_links_from_document

if TYPE_CHECKING:
    from .scene import Scene

__all__ = ["NavMesh", "ARRAY_NAMES", "CHANGES_KEPT", "XZBox", "check_navmesh_arrays"]

ARRAY_NAMES = ("vertices", "polygon_start", "polygon_vertices", "polygon_level", "portals", "portal_segments",
               "detail_origin", "detail_shape", "detail_heights")
MAX_DETAIL_SIDE = 1 << 16  # samples along a side of one polygon's detail raster
# A navmesh's arrays, checked, in ARRAY_NAMES order (what check_navmesh_arrays gives and a bake makes).
NavMeshArrays: TypeAlias = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                 np.ndarray, np.ndarray]
# An x-z box (lo, hi), each (2,) float64 (m): where a change of a navmesh's polygons lies (NavMesh.changes).
XZBox: TypeAlias = tuple[np.ndarray, np.ndarray]
CHANGES_KEPT = 8  # the changes a NavMesh remembers where they lay (a crowd further behind plans every agent again)


class Rebakeable(Protocol):
    """What :meth:`NavMesh.rebake` asks of the :attr:`NavMesh.bake_state` it holds (a
    ``voxelworld.navigation.rebake.BakeState``, above this module, which it does not import)."""

    def rebaked(self, box: Iterable[ArrayLike], scene: Scene | None = None,
                in_place: bool = False) -> tuple[Rebakeable, list[tuple[int, int, int]]]: ...

    def navmesh_arrays(self) -> NavMeshArrays: ...

    @property
    def area_types(self) -> tuple[str, ...]: ...

    def polygon_area_types(self) -> np.ndarray: ...

    def place_links(self, mesh: NavMesh) -> None: ...


@dataclass
class NavMesh:
    """Walkable polygons per level with their portals.

    Attributes
    ----------
    vertices : ndarray (n, 3) float64
        Polygon corners in metres (Y up), finite.
    polygon_start : ndarray (p + 1,) int64
        Polygon ``q`` is ``vertices[polygon_vertices[polygon_start[q]:polygon_start[q + 1]]]``, counter-clockwise
        seen from above: starts at 0, grows by at least 3 per polygon, ends at ``len(polygon_vertices)``.
    polygon_vertices : ndarray int64
        Indices into ``vertices``.
    polygon_level : ndarray (p,) int64
        The level each polygon belongs to (>= 0).
    portals : ndarray (r, 2) int64 and portal_segments (r, 2, 3) float64
        Pairs of neighbouring polygons (two different polygons) and the segment they share, in metres.
    detail_origin : ndarray (p, 3) float64, detail_shape (p, 2) int64, detail_heights float64
        Each polygon's *detail*, the heights (m) of the surface under it on a raster of ``detail_shape[q] =
        (ni, nk)`` samples ``detail_origin[q][2]`` m apart, the first at ``(x, z) = detail_origin[q][:2]``,
        stored polygon after polygon, row by row along x, in ``detail_heights``; the height between samples is
        bilinear, held beyond the outer ones. A polygon of shape (0, 0) has none: its height is its plane's
        (through its corners). Optional (default: none for any polygon); a bake gives every polygon one.
    frame : ndarray (3, 4) float64 or None
        Where the arrays lie in the world: ``[R | t]``, world = R @ local + t (R a rotation: orthonormal within
        1e-9, determinant +1; finite), for a navmesh baked in a turned region (``SearchRegion.rotation``), whose
        arrays are in the region's own frame (its rays fall along -y there). None (the default): the arrays are
        world coordinates. :meth:`world_vertices` gives the corners in the world; a
        :class:`~voxelworld.navigation.NavQuery` takes and gives world points either way. Given on construction
        (a query reads it when it is made; a re-bake keeps it).
    area_types : tuple of str
        The names of the area types its polygons and links have (:mod:`~voxelworld.navigation.area_types`),
        the first always ``"ground"``; default ``("ground",)``. A bake gives its scene's
        (:attr:`Scene.area_types <voxelworld.navigation.Scene.area_types>`), kept current by :meth:`rebake`.
    polygon_area_type : ndarray (p,) int64
        Each polygon's area type, an index into ``area_types`` (default, None: 0, ground, for every polygon).
    offmesh_links : OffMeshLinks
        Its off-mesh links (:mod:`~voxelworld.navigation.links`; default, None: none). A bake's are its drops off
        ledges and its scene's links (:mod:`~voxelworld.navigation.offmesh`), kept current by :meth:`rebake`.
    index : NavIndex
        What the queries read, derived from the arrays (rebuilt by :meth:`rebake`).
    revision : int and changes : list of (int, (lo, hi) or None)
        How many times the arrays were set (1 once made), and where the last :data:`CHANGES_KEPT` settings
        changed them: each revision with the x-z box (two (2,) arrays, m, in the navmesh's own frame) outside of
        which no polygon came, went or changed, or None (anywhere: a re-bake or a new navmesh). A
        :class:`~voxelworld.navigation.Crowd` plans again only the agents whose way a change reaches.

    Bad arrays raise :class:`~voxelworld.errors.ParameterError` naming the array, the entry and its legal range,
    before anything reads them.

    Examples
    --------
    >>> square = NavMesh([[0, 0, 0], [0, 0, 2], [2, 0, 2], [2, 0, 0]], [0, 4], [0, 1, 2, 3], [0],
    ...                  np.empty((0, 2), dtype=np.int64), np.empty((0, 2, 3)))
    >>> square.area(), square.polygon_count
    (4.0, 1)
    >>> NavMesh([[0, 0, 0], [0, 0, 2], [2, 0, 2], [2, 0, 0]], [0, 99], [0, 1, 2, 3], [0],
    ...         np.empty((0, 2), dtype=np.int64), np.empty((0, 2, 3)))
    Traceback (most recent call last):
    ...
    voxelworld.errors.ParameterError: polygon_start[1] = 99 is out of range: must be len(polygon_vertices) = 4 ...
    """

    vertices: np.ndarray
    polygon_start: np.ndarray
    polygon_vertices: np.ndarray
    polygon_level: np.ndarray
    portals: np.ndarray
    portal_segments: np.ndarray
    detail_origin: np.ndarray | None = None
    detail_shape: np.ndarray | None = None
    detail_heights: np.ndarray | None = None
    frame: np.ndarray | None = None
    area_types: tuple[str, ...] = (GROUND,)
    polygon_area_type: np.ndarray | None = None
    offmesh_links: OffMeshLinks | None = None
    bake_state: Rebakeable | None = field(default=None, repr=False, compare=False)  # what bake() kept, for rebake()
    index: NavIndex = field(init=False, repr=False, compare=False)
    revision: int = field(init=False, default=0, repr=False, compare=False)
    changes: list[tuple[int, XZBox | None]] = field(init=False, default_factory=list, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.frame is not None:
            self.frame = check_frame("frame", self.frame)
        self.area_types = check_area_types("area_types", self.area_types)
        self.offmesh_links = check_offmesh_links(self.offmesh_links, len(self.area_types))
        area_type = self.polygon_area_type
        self._set_arrays(*(getattr(self, name) for name in ARRAY_NAMES))
        if area_type is not None:
            self.polygon_area_type = _polygon_area_types(area_type, self.polygon_count, len(self.area_types))

    def _set_arrays(self, *arrays: np.ndarray | None, baked: bool = False,
                    area_types: tuple[tuple[str, ...], np.ndarray] | None = None,
                    boxes_planes: tuple[np.ndarray, np.ndarray] | None = None,
                    ring_source: Callable[..., BoundaryRings | None] | None = None,
                    changed: XZBox | None = None) -> None:
        """Check the arrays (in :data:`ARRAY_NAMES` order; the details may be None), then take them and derive
        the index. Nothing changes when a check fails. ``baked``: the arrays are what this package's bake made
        (:func:`~voxelworld.navigation.polygons.navmesh_arrays` of its tiles: float64 / int64, consistent by
        construction, which the tests check), taken without the checks a re-bake every frame cannot afford;
        ``area_types``: the bake's ``(area_types, polygon_area_type)`` (None: every polygon ground);
        ``boxes_planes``: the polygons' :func:`~.index.polygon_boxes` when known, ``ring_source``: what makes the
        index's rings (:class:`~.index.NavIndex`; a baked navmesh's only); ``changed``: the x-z box outside of
        which no polygon came, went or changed (None: anywhere), recorded in :attr:`changes`."""
        checked = arrays if baked else check_navmesh_arrays(*arrays)
        for name, array in zip(ARRAY_NAMES, checked):
            setattr(self, name, array)
        if area_types is None:
            self.polygon_area_type = np.zeros(len(self.polygon_level), dtype=np.int64)
        else:
            self.area_types, self.polygon_area_type = area_types
        self.index = navmesh_index(self.vertices, self.polygon_start, self.polygon_vertices, self.portals,
                                   self.portal_segments, self.detail_origin, self.detail_shape, self.detail_heights,
                                   boxes_planes if baked else None, ring_source if baked else None)
        self.revision += 1
        self.changes = [*self.changes[1 - CHANGES_KEPT:], (self.revision, changed)]

    def rebake(self, box: Iterable[ArrayLike], scene: Scene | None = None) -> list[tuple[int, int, int]]:
        """Re-bake the tiles that a change of the scene inside ``box`` ((x0, y0, z0), (x1, y1, z1), metres, in
        the world; a turned bake re-bakes the local box holding its corners) touches, in place; ``scene`` is the
        scene as it is now, in the world (default: the one baked). The result equals a full bake of that scene,
        bit for bit (see :mod:`voxelworld.navigation.rebake`). Returns the tiles whose polygons changed, as (area,
        ti, tk) (one area per region, unless regions meet). Only a navmesh made by ``bake`` can be re-baked. Its
        :attr:`bake_state` is updated in place too: a bake state taken from it before no longer holds. Every
        :class:`~voxelworld.navigation.NavQuery` of this navmesh answers for the new polygons from its next query
        on (do not re-bake while another thread queries).

        Examples
        --------
        >>> from voxelworld.navigation import Scene, SearchRegion, NavSettings
        >>> from voxelworld.navigation.bake import bake
        >>> floor = [[0, 0, 0], [8, 0, 0], [8, 0, 8], [0, 0, 8]]
        >>> scene = Scene().with_object("floor", floor, [[0, 2, 1], [0, 3, 2]])
        >>> settings = NavSettings(ray_density=4, agent_radius=0, min_region_area=0)
        >>> mesh = bake(scene, SearchRegion((0, -1, 0), (8, 3, 8)), settings)
        >>> box = [[2, 0, 2], [4, 1, 4]]
        >>> crate = [[x, y, z] for x in (2, 4) for y in (0, 1) for z in (2, 4)]
        >>> moved = scene.with_object("crate", crate, [[0, 1, 3], [0, 3, 2]], role="obstacle")
        >>> mesh.rebake(box, moved)
        [(0, 0, 0)]
        >>> mesh.area()
        60.0
        """
        if self.bake_state is None:
            raise ParameterError("navmesh", "not made by voxelworld.navigation.bake.bake (no bake state)",
                                 "a navmesh returned by bake() (one read from JSON cannot be re-baked)")
        state, rebuilt = self.bake_state.rebaked(box, scene, in_place=True)
        self._set_arrays(*state.navmesh_arrays(), baked=True,
                         area_types=(state.area_types, state.polygon_area_types()))
        self.bake_state = state
        state.place_links(self)  # its off-mesh links over the new polygons
        return rebuilt

    # ------------------------------------------------------------------------------------------ polygons
    @property
    def polygon_count(self) -> int:
        return len(self.polygon_level)

    def polygon(self, q: int) -> np.ndarray:
        """The corners (m) of polygon ``q``, counter-clockwise seen from above (in the navmesh's own frame:
        see :attr:`frame`)."""
        return self.vertices[self.polygon_vertices[self.polygon_start[q]:self.polygon_start[q + 1]]]

    def world_vertices(self) -> np.ndarray:
        """The polygon corners (n, 3) in world coordinates: :attr:`vertices` placed by :attr:`frame` (a copy of
        them without one)."""
        if self.frame is None:
            return self.vertices.copy()
        return Frame(self.frame).to_world(self.vertices)

    def polygon_areas(self) -> np.ndarray:
        """Area (m², on the x-z plane of the navmesh's own frame, the plane across its rays) of every
        polygon."""
        return polygon_areas(self.vertices, self.polygon_start, self.polygon_vertices)

    def area(self, level: int | None = None) -> float:
        """Walkable area in m² (x-z plane of the navmesh's own frame) of one level, or of all levels."""
        areas = self.polygon_areas()
        return float(areas.sum() if level is None else areas[self.polygon_level == level].sum())

    def islands(self) -> list[np.ndarray]:
        """The connected groups of polygons (through portals), each a sorted index array, largest area first
        (lowest first polygon on a tie)."""
        if not self.polygon_count:
            return []
        island = self.index.island
        order = np.argsort(island, kind="stable")
        groups = np.split(order, np.flatnonzero(np.diff(island[order])) + 1)
        areas = self.polygon_areas()
        return sorted(groups, key=lambda g: (-areas[g].sum(), g[0]))

    # ---------------------------------------------------------------------------------------- files
    def to_json(self) -> str:
        """The navmesh as JSON text (format: docs/specs/navmesh-json.md)."""
        links = self.offmesh_links
        return formats.navmesh_json(*(getattr(self, name) for name in ARRAY_NAMES), frame=self.frame,
                                    area_types=(self.area_types, np.asarray(self.polygon_area_type)),
                                    offmesh_links=None if links is None else offmesh_links_document(links))

    @classmethod
    def from_json(cls, text: str) -> NavMesh:
        """Read :meth:`to_json`'s text; a foreign or broken document raises FormatError naming what is wrong
        (the field, the value and its legal range), before anything reads the arrays."""
        arrays, frame, areas, link_document = formats.read_navmesh_json(text)
        try:
            if areas is None:  # a version 1 document: every polygon ground
                return cls(*arrays, frame=frame)
            area_types = check_area_types("area_types", areas[0])
            links = None if link_document is None else offmesh_links_from_document(link_document, len(area_types))
            return cls(*arrays, frame=frame, area_types=area_types, polygon_area_type=areas[1], offmesh_links=links)
        except ParameterError as error:
            raise formats.json_error(error) from None

    def to_obj(self, path: str | os.PathLike[str]) -> None:
        """Write the polygons as a Wavefront OBJ (one ``o level_N`` per level, world coordinates), atomically."""
        formats.write_navmesh_obj_file(path, self.write_obj)

    def write_obj(self, obj: ObjWriter, name: str = "level", material: str | None = None) -> None:
        """Append the vertices and, per level, the object ``{name}_{level}`` with its polygons to ``obj``
        (a :class:`voxelworld.wavefront.ObjWriter`), drawn with ``material`` of the library when given; the
        vertices are world coordinates (:meth:`world_vertices`)."""
        vertices = self.vertices if self.frame is None else self.world_vertices()
        formats.write_navmesh_obj(obj, vertices, self.polygon_start, self.polygon_vertices, self.polygon_level,
                                  name, material)


# ------------------------------------------------------------------------------------------------- checks
def _array(name: str, value: object, kind: str, shape: tuple[int, ...]) -> np.ndarray:
    """``value`` as a float64 (``kind`` "float") or int64 ("index") array of ``shape`` (-1: any length), or
    ParameterError. Indices must be whole numbers as given (a float is refused, not truncated)."""
    legal = (f"an array of {'finite numbers' if kind == 'float' else 'whole numbers'} of shape "
             f"({', '.join('any' if s < 0 else str(s) for s in shape)})")
    try:
        array = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(name, short_value(value), legal) from None
    if array.size == 0 and array.ndim == 1 and len(shape) > 1:
        array = array.reshape((0,) + shape[1:])  # an empty list: no rows
    if array.ndim != len(shape) or any(s >= 0 and s != n for s, n in zip(shape, array.shape)):
        raise ParameterError(f"{name}.shape", array.shape, legal)
    numeric = "iuf" if kind == "float" else "iu"
    if array.size and array.dtype.kind not in numeric:
        raise ParameterError(f"{name}.dtype", str(array.dtype), legal)
    if kind == "float":
        array = array.astype(np.float64, copy=False)
        bad = np.flatnonzero(~np.isfinite(array.reshape(-1)))
        if len(bad):
            where = np.unravel_index(bad[0], array.shape)
            raise ParameterError(f"{name}[{', '.join(map(str, where))}]", float(array[where]), "a finite number (m)")
        return array
    if array.dtype.kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
        raise ParameterError(f"{name}.dtype", str(array.dtype), legal)
    return array.astype(np.int64, copy=False)


def _polygon_area_types(value: object, p: int, type_count: int) -> np.ndarray:
    """Each polygon's area type, checked: ``p`` indices into ``area_types`` (``type_count`` names)."""
    area_type = _array("polygon_area_type", value, "index", (p,))
    _in_range("polygon_area_type", area_type, 0, type_count, f"an index into area_types, in [0, {type_count - 1}]")
    return area_type


def _in_range(name: str, array: np.ndarray, lo: int, hi: int, legal: str) -> None:
    """ParameterError naming the first entry of ``array`` outside [lo, hi)."""
    bad = np.flatnonzero(((array < lo) | (array >= hi)).reshape(-1))
    if len(bad):
        where = np.unravel_index(bad[0], array.shape)
        raise ParameterError(f"{name}[{', '.join(map(str, where))}]", int(array[where]), legal)


def check_navmesh_arrays(vertices: object, polygon_start: object, polygon_vertices: object, polygon_level: object,
                         portals: object, portal_segments: object, detail_origin: object = None,
                         detail_shape: object = None, detail_heights: object = None) -> NavMeshArrays:
    """The arrays of a navmesh as float64 / int64 arrays, or ParameterError naming the first wrong entry, its
    value and its legal range: everything a kernel trusts (shapes, index ranges, monotonic starts, counts,
    finite coordinates, whole-number indices, the details' sizes) is checked here. Details left out (None, all
    three) become "none for any polygon"."""
    vertices = _array("vertices", vertices, "float", (-1, 3))
    polygon_start = _array("polygon_start", polygon_start, "index", (-1,))
    polygon_vertices = _array("polygon_vertices", polygon_vertices, "index", (-1,))
    polygon_level = _array("polygon_level", polygon_level, "index", (-1,))
    portals = _array("portals", portals, "index", (-1, 2))
    portal_segments = _array("portal_segments", portal_segments, "float", (-1, 2, 3))
    n, corners = len(vertices), len(polygon_vertices)
    if len(polygon_start) == 0:
        raise ParameterError("len(polygon_start)", 0, "p + 1 >= 1 (p polygons; [0] for none)")
    if polygon_start[0] != 0:
        raise ParameterError("polygon_start[0]", int(polygon_start[0]), "0 (the first polygon starts there)")
    steps = np.diff(polygon_start)
    short = np.flatnonzero(steps < 3)
    if len(short):
        q = int(short[0])
        raise ParameterError(f"polygon_start[{q + 1}]", int(polygon_start[q + 1]),
                             f">= polygon_start[{q}] + 3 = {int(polygon_start[q]) + 3} (a polygon has >= 3 corners)")
    if polygon_start[-1] != corners:
        raise ParameterError(f"polygon_start[{len(polygon_start) - 1}]", int(polygon_start[-1]),
                             f"len(polygon_vertices) = {corners} (the last entry ends the last polygon)")
    p = len(polygon_start) - 1
    _in_range("polygon_vertices", polygon_vertices, 0, n, f"a vertex index in [0, {n - 1}]" if n else
              "none: there are no vertices")
    if len(polygon_level) != p:
        raise ParameterError("len(polygon_level)", len(polygon_level), f"the polygon count, {p}")
    _in_range("polygon_level", polygon_level, 0, np.iinfo(np.int64).max, "a level >= 0")
    _in_range("portals", portals, 0, p, f"a polygon index in [0, {p - 1}]" if p else "none: there are no polygons")
    same = np.flatnonzero(portals[:, 0] == portals[:, 1])
    if len(same):
        r = int(same[0])
        raise ParameterError(f"portals[{r}]", portals[r].tolist(), "two different polygons")
    if len(portal_segments) != len(portals):
        raise ParameterError("len(portal_segments)", len(portal_segments),
                             f"len(portals) = {len(portals)} (one segment per portal)")
    return (vertices, polygon_start, polygon_vertices, polygon_level, portals, portal_segments,
            *_check_details(p, detail_origin, detail_shape, detail_heights))


def _check_details(p: int, origin: object, shape: object,
                   heights: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three detail arrays of ``p`` polygons, checked (see :class:`NavMesh`)."""
    given = [a is not None for a in (origin, shape, heights)]
    if not any(given):
        return np.zeros((p, 3)), np.zeros((p, 2), np.int64), np.empty(0)
    if not all(given):
        missing = [n for n, g in zip(("detail_origin", "detail_shape", "detail_heights"), given) if not g][0]
        raise ParameterError(missing, None, "given with the other two detail arrays (or all three left out)")
    origin = _array("detail_origin", origin, "float", (p, 3))
    shape = _array("detail_shape", shape, "index", (p, 2))
    heights = _array("detail_heights", heights, "float", (-1,))
    _in_range("detail_shape", shape, 0, MAX_DETAIL_SIDE + 1, f"a sample count in [0, {MAX_DETAIL_SIDE}]")
    half = np.flatnonzero((shape[:, 0] == 0) != (shape[:, 1] == 0))
    if len(half):
        q = int(half[0])
        raise ParameterError(f"detail_shape[{q}]", shape[q].tolist(), "both counts >= 1, or both 0 (no detail)")
    cells = np.flatnonzero((shape[:, 0] > 0) & ~(origin[:, 2] > 0))
    if len(cells):
        q = int(cells[0])
        raise ParameterError(f"detail_origin[{q}, 2]", float(origin[q, 2]), "a sample spacing > 0 (m)")
    total = int((shape[:, 0] * shape[:, 1]).sum())
    if len(heights) != total:
        raise ParameterError("len(detail_heights)", len(heights), f"the samples the shapes hold, {total}")
    return origin, shape, heights
