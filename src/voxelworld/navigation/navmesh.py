"""`NavMesh`: walkable polygons with adjacency, and the queries agents ask of them.

Polygons are convex and planar (they may slope), counter-clockwise seen from above, built by
:func:`~voxelworld.navigation.polygons.navmesh_from_grids` from the baker's walkable grids. Levels may lie over
each other in x-z. Two polygons are neighbours through a *portal*, the segment (or part of an edge) they share.

Queries run in numba kernels (``_kernels/locate.py``, ``_kernels/paths.py``, ``_kernels/polyanya.py``) over
arrays that :meth:`NavMesh._reindex` derives from the polygons: a uniform bucket grid over the polygons' x-z boxes
finds the polygons near a point; each polygon's plane gives its height (polygons may slope); paths are exact
shortest paths on the x-z plane (Polyanya) over each polygon's boundary split at its portals' ends. The kernels
reuse scratch arrays the NavMesh owns, so one NavMesh answers one query at a time (the kernels hold the GIL).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from ..errors import FormatError, ParameterError, check_point
from ..files import write_atomically
from ..wavefront import ObjWriter
from ._kernels import locate as _locate
from ._kernels import paths as _paths

__all__ = ["NavMesh", "NavPath", "FORMAT_VERSION"]

FORMAT_VERSION = 1


@dataclass(frozen=True)
class NavPath:
    """A path: its corner points (m, start and end included) and its length (m, summed in 3-D)."""

    points: np.ndarray  # (n, 3) float64
    length: float


@dataclass
class NavMesh:
    """Walkable polygons per level with their portals.

    Attributes
    ----------
    vertices : ndarray (n, 3)
        Polygon corners in metres (Y up).
    polygon_start : ndarray (p + 1,)
        Polygon ``q`` is ``vertices[polygon_vertices[polygon_start[q]:polygon_start[q + 1]]]``, counter-clockwise
        seen from above.
    polygon_vertices : ndarray
    polygon_level : ndarray (p,)
        The level each polygon belongs to.
    portals : ndarray (r, 2) and portal_segments (r, 2, 3)
        Pairs of neighbouring polygons (lower index first) and the segment they share, in metres.
    """

    vertices: np.ndarray
    polygon_start: np.ndarray
    polygon_vertices: np.ndarray
    polygon_level: np.ndarray
    portals: np.ndarray
    portal_segments: np.ndarray
    bake_state: object = field(default=None, repr=False, compare=False)  # what bake() kept, for rebake()

    def __post_init__(self):
        self._reindex()

    def _reindex(self) -> None:
        """Build every structure derived from the arrays: polygon boxes and planes, the neighbour lists, the
        islands, the bucket grid (and, on first use, the boundary rings the path search walks, its scratch and
        the polygons' cumulative area). Call again after swapping the arrays."""
        vertices = np.ascontiguousarray(self.vertices, dtype=np.float64).reshape(-1, 3)
        polygon_start = np.ascontiguousarray(self.polygon_start, dtype=np.int64)
        polygon_vertices = np.ascontiguousarray(self.polygon_vertices, dtype=np.int64)
        portals = np.ascontiguousarray(self.portals, dtype=np.int64).reshape(-1, 2)
        segments = np.ascontiguousarray(self.portal_segments, dtype=np.float64).reshape(-1, 2, 3)
        p = len(polygon_start) - 1
        boxes, planes = _locate.polygon_geometry(vertices, polygon_start, polygon_vertices)
        # Neighbours: polygon q's links are link_*[link_start[q]:link_start[q + 1]], by ascending portal.
        link_start, link_polygon, link_portal = _paths.polygon_links(p, portals)
        self._island = _paths.polygon_islands(p, portals)
        # Bucket grid: about one bucket per polygon's x-z box, no more than 4 per polygon in all.
        if p:
            lo, hi = boxes[:, [0, 2]].min(axis=0), boxes[:, [1, 3]].max(axis=0)
            extent = np.maximum(hi - lo, 1e-6)
            typical = float(np.sqrt(np.mean((boxes[:, 1] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 2]))))
            cell = max(typical, float(np.sqrt(extent[0] * extent[1] / (4 * p))), 1e-6)
            shape = np.maximum(np.ceil(extent / cell).astype(np.int64), 1)
        else:
            lo, cell, shape = np.zeros(2), 1.0, np.ones(2, dtype=np.int64)
        grid = np.array([lo[0], lo[1], cell])
        bucket_start, bucket_polygons = _locate.bucket_grid(boxes, grid, shape)
        self._mesh = (vertices, polygon_start, polygon_vertices, boxes, planes)
        self._index = (grid, shape, bucket_start, bucket_polygons)
        self._links = (link_start, link_polygon, link_portal)
        self._portal_pairs, self._portal_segments = portals, segments
        # Built by the first query that needs them, so that a navmesh re-baked every frame pays for them only
        # when asked for a path (or a random point).
        self._ring_arrays, self._cumulative_area = None, None

    @property
    def _rings(self) -> tuple:
        """The boundary rings the path search walks (``_kernels/paths.py``), and its scratch, built on first use."""
        if self._ring_arrays is None:
            vertices, polygon_start, polygon_vertices, _, planes = self._mesh
            self._ring_arrays = _paths.boundary_rings(vertices, polygon_start, polygon_vertices, planes,
                                                      self._portal_pairs, self._portal_segments, self._links[0],
                                                      self._links[2])
            self._path_scratch(max(1024, 4 * len(self._ring_arrays[1])))
        return self._ring_arrays

    def _path_scratch(self, room: int) -> None:
        """The path search's scratch (see ``_kernels/polyanya.py``) for at least ``room`` nodes and roots, and
        the buffer of a path's points. What the mesh had is kept where it is large enough (after a re-bake, the
        polygons and ring vertices are about as many as before): the search never reads what it has not
        written in the same query, and the per-vertex and per-polygon stamps stay valid as long as the count of
        queries goes on. New arrays get a quarter more room than asked, for the next re-bake."""
        vertex_count, p = len(self._rings[7]), self.polygon_count
        old = getattr(self, "_scratch", None)
        counts = np.zeros(5, dtype=np.int64)
        if old is not None and len(old[5]) >= vertex_count and len(old[8]) >= p:
            counts[3] = old[7][3]  # stamps of best_g and entered stay valid: keep counting queries
            best_g, stamp, entered, entered_g = old[5], old[6], old[8], old[9]
        else:
            v, q = vertex_count + vertex_count // 4, p + p // 4
            best_g, stamp = np.zeros(v), np.zeros(v, dtype=np.int64)
            entered, entered_g = np.zeros((q, 2), dtype=np.int64), np.zeros(q)
        if old is not None and len(old[0]) >= room:
            queue = old[:5]
        else:
            room += room // 4
            queue = (np.zeros((room, 4)), np.zeros((room, 3), dtype=np.int64), np.zeros((room, 4)),
                     np.zeros((room, 2), dtype=np.int64), np.zeros(room, dtype=np.int64))
        self._scratch = queue + (best_g, stamp, counts, entered, entered_g, np.zeros((2, 3)))
        if len(getattr(self, "_path_buffer", ())) < vertex_count + 3:
            self._path_buffer = np.zeros((vertex_count + 3 + vertex_count // 4, 3))

    def rebake(self, box, scene=None) -> list[tuple[int, int, int]]:
        """Re-bake the tiles that a change of the scene inside ``box`` ((x0, y0, z0), (x1, y1, z1), metres)
        touches, in place; ``scene`` is the scene as it is now (default: the one baked). The result equals a
        full bake of that scene, bit for bit (see :mod:`voxelworld.navigation.rebake`). Returns the tiles whose
        polygons changed, as (region, ti, tk). Only a navmesh made by ``bake`` can be re-baked. Its
        :attr:`bake_state` is updated in place too: a bake state taken from it before no longer holds.

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
        from .rebake import rebake_state  # bake builds NavMesh objects: imported here to avoid a cycle

        state, rebuilt = rebake_state(self.bake_state, box, scene, in_place=True)
        (self.vertices, self.polygon_start, self.polygon_vertices, self.polygon_level, self.portals,
         self.portal_segments) = state.navmesh_arrays()
        self.bake_state = state
        self._reindex()  # keeps the path search's scratch where it is large enough
        return rebuilt

    # ------------------------------------------------------------------------------------------ polygons
    @property
    def polygon_count(self) -> int:
        return len(self.polygon_level)

    def polygon(self, q: int) -> np.ndarray:
        """The corners (m) of polygon ``q``, counter-clockwise seen from above."""
        return self.vertices[self.polygon_vertices[self.polygon_start[q]:self.polygon_start[q + 1]]]

    def polygon_areas(self) -> np.ndarray:
        """Area (m², on the x-z plane) of every polygon."""
        if not self.polygon_count:
            return np.zeros(0)
        corners = self.vertices[self.polygon_vertices]
        following = np.arange(1, len(corners) + 1)
        following[self.polygon_start[1:] - 1] = self.polygon_start[:-1]
        cross = corners[:, 0] * corners[following, 2] - corners[following, 0] * corners[:, 2]
        return 0.5 * np.abs(np.add.reduceat(cross, self.polygon_start[:-1]))

    def area(self, level: int | None = None) -> float:
        """Walkable area in m² (x-z plane) of one level, or of all levels."""
        areas = self.polygon_areas()
        return float(areas.sum() if level is None else areas[self.polygon_level == level].sum())

    def islands(self) -> list[np.ndarray]:
        """The connected groups of polygons (through portals), each a sorted index array, largest area first
        (lowest first polygon on a tie)."""
        if not self.polygon_count:
            return []
        order = np.argsort(self._island, kind="stable")
        groups = np.split(order, np.flatnonzero(np.diff(self._island[order])) + 1)
        areas = self.polygon_areas()
        return sorted(groups, key=lambda g: (-areas[g].sum(), g[0]))

    # ---------------------------------------------------------------------------------------- locating
    def _contains_2d(self, q: int, x: float, z: float) -> bool:
        vertices, polygon_start, polygon_vertices, boxes, _ = self._mesh
        return bool(boxes[q, 0] - 1e-9 <= x <= boxes[q, 1] + 1e-9 and boxes[q, 2] - 1e-9 <= z <= boxes[q, 3] + 1e-9
                    and _locate.inside(vertices, polygon_start, polygon_vertices, q, x, z))

    def _height_at(self, q: int, x: float, z: float) -> float:
        """Height (m) of polygon q at (x, z): on the plane through its corners."""
        return float(_locate.height(self._mesh[4], q, x, z))

    def locate(self, point) -> int:
        """The polygon under or nearest above/below ``point`` (the one whose surface is closest in height among
        those containing its x-z position), or -1."""
        x, y, z = _point("point", point).tolist()
        return int(_locate.locate(*self._mesh, *self._index, x, y, z))

    def nearest_point(self, point) -> tuple[np.ndarray, int]:
        """The point of the navmesh closest to ``point`` (3-D distance) and its polygon (-1 if the mesh is
        empty)."""
        x, y, z = _point("point", point).tolist()
        out = np.full(3, np.nan)
        q = int(_locate.nearest(*self._mesh, *self._index, x, y, z, out))
        return out, q

    # -------------------------------------------------------------------------------------------- paths
    def find_path(self, start, end) -> NavPath | None:
        """The shortest path from ``start`` to ``end`` (both snapped to the navmesh with :meth:`nearest_point`),
        or None when they lie on different islands.

        The path is the shortest on the x-z plane over the polygons (Polyanya, an exact search: Cui, Harabor and
        Grastien 2017); its points are the start, the corners it bends around and the end, at the height of the
        polygons' planes (the start and end as snapped), and its length is summed in 3-D.

        Examples
        --------
        >>> import numpy as np
        >>> from voxelworld.navigation import WalkableGrid, navmesh_from_grids
        >>> walkable = np.ones((4, 4), dtype=bool)
        >>> walkable[1:3, :3] = False  # a wall from z = 0 to 3 m
        >>> mesh = navmesh_from_grids([WalkableGrid(walkable, np.zeros((4, 4)), 0.0, 0.0, 1.0)])
        >>> path = mesh.find_path([0.5, 0, 0.5], [3.5, 0, 0.5])
        >>> path.points[:, [0, 2]].tolist()
        [[0.5, 0.5], [1.0, 3.0], [3.0, 3.0], [3.5, 0.5]]
        """
        start, end = _point("start", start), _point("end", end)
        while True:
            rings = self._rings  # first: builds the scratch too
            count, length = _paths.find_path(self._mesh, self._index, self._island, rings, self._scratch,
                                             start, end, self._path_buffer)
            if count >= 0:
                break
            self._path_scratch(2 * len(self._scratch[0]))  # a long search: more room, and search again
        if count == 0:
            return None
        return NavPath(self._path_buffer[:count].copy(), length)

    # ------------------------------------------------------------------------------------ other queries
    def raycast(self, start, end) -> tuple[float, np.ndarray]:
        """How far a straight walk from ``start`` (snapped to the navmesh) towards ``end`` gets on the navmesh
        (x-z plane): the distance walked (m) and the point reached (``end``'s x and z when nothing blocks it,
        at the height of the polygon reached). The walk goes from polygon to polygon across the portals the
        segment crosses, and stops at the first edge that is not a portal."""
        start, q = self.nearest_point(start)
        end = _point("end", end)
        if q < 0:
            return 0.0, start
        vertices, polygon_start, polygon_vertices, _, planes = self._mesh
        unused = np.zeros(0, dtype=np.int64)
        t, q, _ = _locate.walk(vertices, polygon_start, polygon_vertices, *self._links, self._portal_segments, q, start[0],
                               start[2], end[0], end[2], False, unused, unused, 0)
        x, z = start[0] + t * (end[0] - start[0]), start[2] + t * (end[2] - start[2])
        walked = t * float(np.hypot(end[0] - start[0], end[2] - start[2]))
        return walked, np.array([x, _locate.height(planes, q, x, z), z])

    def random_point(self, rng: np.random.Generator) -> np.ndarray:
        """A point spread evenly over the walkable area (polygons chosen by area), from ``rng``."""
        if not isinstance(rng, np.random.Generator):
            raise ParameterError("rng", rng, "a numpy.random.Generator (e.g. numpy.random.default_rng(seed))")
        if not self.polygon_count:
            raise ParameterError("navmesh", "no polygons", "a navmesh with walkable area to sample")
        out = np.empty(3)
        if self._cumulative_area is None:
            self._cumulative_area = np.cumsum(self.polygon_areas())
        _locate.sample(*self._mesh[:3], self._mesh[4], self._cumulative_area, rng.random(4), out)
        return out

    # ---------------------------------------------------------------------------------------- files
    def to_json(self) -> str:
        """The navmesh as JSON text (format: docs/specs/navmesh-json.md)."""
        return json.dumps({
            "format": "voxelworld-navmesh", "version": FORMAT_VERSION,
            "vertices": self.vertices.tolist(), "polygon_start": self.polygon_start.tolist(),
            "polygon_vertices": self.polygon_vertices.tolist(), "polygon_level": self.polygon_level.tolist(),
            "portals": self.portals.tolist(), "portal_segments": self.portal_segments.tolist(),
        }, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> NavMesh:
        """Read :meth:`to_json`'s text; a foreign or broken document raises FormatError naming what is wrong."""
        try:
            document = json.loads(text)
        except (TypeError, ValueError) as error:
            raise FormatError(f"navmesh JSON: not valid JSON: {error}") from error
        if not isinstance(document, dict) or document.get("format") != "voxelworld-navmesh":
            raise FormatError("navmesh JSON: 'format' is not 'voxelworld-navmesh'")
        if document.get("version") != FORMAT_VERSION:
            raise FormatError(f"navmesh JSON: version {document.get('version')!r} is not {FORMAT_VERSION}")
        try:
            mesh = cls(np.array(document["vertices"], dtype=np.float64).reshape(-1, 3),
                       np.array(document["polygon_start"], dtype=np.int64),
                       np.array(document["polygon_vertices"], dtype=np.int64),
                       np.array(document["polygon_level"], dtype=np.int64),
                       np.array(document["portals"], dtype=np.int64).reshape(-1, 2),
                       np.array(document["portal_segments"], dtype=np.float64).reshape(-1, 2, 3))
        except KeyError as error:
            raise FormatError(f"navmesh JSON: missing field {error}") from error
        except (TypeError, ValueError) as error:
            raise FormatError(f"navmesh JSON: a field has the wrong shape or type: {error}") from error
        _check_consistent(mesh)
        return mesh

    def to_obj(self, path) -> None:
        """Write the polygons as a Wavefront OBJ (one ``o level_N`` per level), atomically."""
        obj = ObjWriter()
        self.write_obj(obj)
        text = obj.text()
        write_atomically(path, lambda file: file.write(text))

    def write_obj(self, obj: ObjWriter, name: str = "level", material: str | None = None) -> None:
        """Append the vertices and, per level, the object ``{name}_{level}`` with its polygons to ``obj``
        (a :class:`voxelworld.wavefront.ObjWriter`), drawn with ``material`` of the library when given."""
        block = obj.vertices(self.vertices)
        for level in sorted(set(self.polygon_level.tolist())):
            obj.object(f"{name}_{level}")
            if material is not None:
                obj.material(material)
            obj.polygons(block, self.polygon_start, self.polygon_vertices, np.flatnonzero(self.polygon_level == level))


def _check_consistent(mesh: NavMesh) -> None:
    p = mesh.polygon_count
    if len(mesh.polygon_start) != p + 1 or mesh.polygon_start[0] != 0 or np.any(np.diff(mesh.polygon_start) < 3) \
            or mesh.polygon_start[-1] != len(mesh.polygon_vertices):
        raise FormatError("navmesh JSON: 'polygon_start' does not describe polygons of >= 3 corners")
    if len(mesh.polygon_vertices) and (mesh.polygon_vertices.min() < 0
                                       or mesh.polygon_vertices.max() >= len(mesh.vertices)):
        raise FormatError("navmesh JSON: 'polygon_vertices' refers to a vertex that does not exist")
    if len(mesh.portals) and (mesh.portals.min() < 0 or mesh.portals.max() >= p):
        raise FormatError("navmesh JSON: 'portals' refers to a polygon that does not exist")
    if len(mesh.portal_segments) != len(mesh.portals) or not np.all(np.isfinite(mesh.vertices)):
        raise FormatError("navmesh JSON: 'portal_segments' and 'portals' differ in length, or a vertex is not finite")


def _point(parameter: str, value) -> np.ndarray:
    return np.array(check_point(parameter, value))
