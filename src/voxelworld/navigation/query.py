"""`NavQuery`: the questions an agent asks of a navmesh, with the scratch its path searches reuse.

As Detour keeps ``dtNavMeshQuery`` (which owns the search's node pool) apart from ``dtNavMesh`` (the data), a
:class:`NavQuery` holds the scratch of one search at a time and reads a :class:`~voxelworld.navigation.NavMesh`
that any number of queries share: make one per agent or per thread. The kernels run in ``_kernels/locate.py``,
``_kernels/paths.py`` and ``_kernels/polyanya.py`` over the navmesh's :class:`~voxelworld.navigation.index.NavIndex`;
paths are exact shortest paths on the x-z plane (Polyanya) over each polygon's boundary split at its portals'
ends. A query follows its navmesh through re-bakes: each one reads the navmesh's index as it is then.

Each query takes a :class:`~voxelworld.navigation.QueryFilter` (:mod:`~voxelworld.navigation.filters`): it then
reads the index without the polygons the filter excludes, and paths that a filter weighs, or that may take
off-mesh links, are least-cost paths (``_kernels/weighted.py``) rather than Polyanya's.

Points in and out are world coordinates. A navmesh baked in a turned region keeps its arrays in the region's
own frame (``NavMesh.frame``): each query turns its points into that frame on entry and its answers back on
exit (``_to_local`` / ``_to_world``), and the kernels, which work on the x-z plane of the arrays, never see a
frame. Without a frame, no point is touched.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError, check_point
from ._kernels import locate as _locate
from ._kernels import paths as _paths
from ._kernels import weighted as _weighted
from ._kernels.arrays import PathQuery, SearchScratch
from .filters import QueryFilter, check_filter, filter_view
from .frames import Frame
from .index import NavIndex
from .navmesh import NavMesh

__all__ = ["NavQuery", "NavPath"]

SMALLEST_QUEUE = 1024  # nodes and roots a search has room for at least (4 per ring piece; grown when needed)
_WALKED = np.full(4096, -1, dtype=np.int64)  # NavPath.offmesh of a path without links: a view of this
_WALKED.flags.writeable = False
_new = object.__new__
_DOUBLE = np.dtype(np.float64)
_isfinite = math.isfinite
PathKernel = Callable[[PathQuery, float, float, float, float, float, float], tuple[int, float]]


def compiled_entry(kernel: PathKernel, query: PathQuery) -> PathKernel:
    """``kernel``'s compiled code for ``query``'s type, called without numba's dispatcher, or ``kernel`` itself.

    A numba dispatcher works out the type of every argument on every call (for the :class:`PathQuery`, a
    structref, through Python: about 0.7 µs of a path query of ~10 µs); the entry point of the overload
    compiled for the query's type (``overloads[signature].entry_point``, numba's internals) only converts the
    arguments. A :class:`NavQuery` looks it up once per binding, after the dispatcher has compiled (or loaded)
    it, and calls it with the binding's own query and six floats, as the overload was compiled for. Where numba
    does not offer it (another version, or the kernel not compiled for that type), the dispatcher serves."""
    try:
        from numba import typeof

        signature = (typeof(query),) + (typeof(0.0),) * 6
        entry = kernel.overloads[signature].entry_point  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - numba's internals are not an interface: any failure means "not offered"
        return kernel
    return entry if callable(entry) else kernel


def _walked(segments: int) -> np.ndarray:
    """``NavPath.offmesh`` of ``segments`` walked segments (read-only)."""
    if segments <= len(_WALKED):
        return _WALKED[:segments]
    walked = np.full(segments, -1, dtype=np.int64)
    walked.flags.writeable = False
    return walked


def _point(parameter: str, value: object) -> tuple[float, float, float]:
    """:func:`~voxelworld.errors.check_point`, quicker for what queries usually get (a float array of shape
    (3,), as the navmesh's own queries return): a path query costs microseconds, and checking its two points
    took a quarter of it."""
    if type(value) is np.ndarray and (value.dtype is _DOUBLE or value.dtype.char in "ef") and value.shape == (3,):
        x, y, z = value.tolist()  # Python floats for half, single and double
        if _isfinite(x + y + z):  # x + y + z is finite only when all three are (an overflow to inf included)
            return x, y, z
    return check_point(parameter, value)  # anything else, and the error naming what is wrong


@dataclass(frozen=True)
class NavPath:
    """A path: its corner points (m, start and end included), its length (m, summed in 3-D), what each segment
    is and what the path costs.

    Attributes
    ----------
    points : ndarray (n, 3) float64
        The start, the points the path bends at (or leaves and lands at a link), the end.
    length : float
        m, summed in 3-D over the segments (links included).
    offmesh : ndarray (n - 1,) int64
        Per segment: -1 where it is walked over polygons, else the index of the off-mesh link it follows
        (``NavMesh.offmesh_links``; the segment runs from the link's start to its end, or back along a
        bidirectional link). A follower walks the -1 segments and crosses the others as links.
    cost : float
        The sum over the segments of their 3-D length times the cost multiplier of the area type they lie in
        (a link's: its area type's), under the query's filter; the length when every multiplier is 1.
    """

    points: np.ndarray
    length: float
    offmesh: np.ndarray
    cost: float

    @classmethod
    def walked(cls, points: np.ndarray, length: float) -> NavPath:
        """A path walked all the way (no link) at the cost of its length: made without ``__init__``, and its
        ``offmesh`` and ``cost`` derived when first read (a path query takes microseconds; this keeps the
        plain path's as it was before paths had them)."""
        path = _new(cls)
        fields = path.__dict__
        fields["points"], fields["length"] = points, length
        return path

    def __getattr__(self, name: str) -> np.ndarray | float:
        """The fields a :meth:`walked` path derives on first reading (called only for attributes not set)."""
        value: np.ndarray | float
        if name == "offmesh":
            value = _walked(len(self.points) - 1)
        elif name == "cost":
            value = self.length
        else:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self.__dict__[name] = value
        return value


class NavQuery:
    """Point, ray and path queries on one navmesh, for one agent or thread at a time.

    Parameters
    ----------
    mesh : NavMesh
        The navmesh asked about (read, never changed; it may be re-baked between queries).

    Examples
    --------
    >>> import numpy as np
    >>> from voxelworld.navigation import NavQuery, WalkableGrid, navmesh_from_grids
    >>> walkable = np.ones((4, 4), dtype=bool)
    >>> walkable[1:3, :3] = False  # a wall from z = 0 to 3 m
    >>> mesh = navmesh_from_grids([WalkableGrid(walkable, np.zeros((4, 4)), 0.0, 0.0, 1.0)])
    >>> query = NavQuery(mesh)
    >>> query.find_path([0.5, 0, 0.5], [3.5, 0, 0.5]).points[:, [0, 2]].tolist()
    [[0.5, 0.5], [1.0, 3.0], [3.0, 3.0], [3.5, 0.5]]
    >>> query.locate([1.5, 0, 0.5])  # in the wall: no polygon
    -1
    """

    def __init__(self, mesh: NavMesh) -> None:
        if not isinstance(mesh, NavMesh):
            raise ParameterError("mesh", type(mesh).__name__, "a voxelworld.navigation.NavMesh")
        self.mesh = mesh
        self._scratch: SearchScratch | None = None
        self._path_buffer = np.zeros((0, 3))
        self._query: PathQuery | None = None  # the index's arrays, the scratch and the path buffer, bound
        self._call: PathKernel | None = None  # what find_path calls with it (compiled_entry; None: not yet known)
        self._fitted: NavIndex | None = None  # the index they were fitted to
        # The binding of the index searched before (a filter's, or the navmesh's), kept for a query that
        # alternates between two (an agent with a filter and one without): (index, query, call, scratch, buffer).
        self._spare: tuple[NavIndex, PathQuery, PathKernel | None, SearchScratch, np.ndarray] | None = None
        # Turned navmeshes: world points in, local points to the kernels, world points out (a navmesh's frame
        # does not change; a re-bake keeps it).
        self._frame = None if mesh.frame is None else Frame(mesh.frame)

    # ---------------------------------------------------------------------------------- frame (turned meshes)
    def _to_local(self, point: tuple[float, float, float] | np.ndarray) -> tuple[float, float, float]:
        assert self._frame is not None  # called for a turned navmesh only
        x, y, z = self._frame.to_local(point).tolist()
        return x, y, z

    def _to_world(self, points: np.ndarray) -> np.ndarray:
        assert self._frame is not None  # called for a turned navmesh only
        return self._frame.to_world(points)

    @classmethod
    def _in_own_frame(cls, mesh: NavMesh) -> NavQuery:
        """A query whose points in and out are in ``mesh``'s own frame (its arrays' coordinates), not the
        world's: for the crowd (``crowd.py``), which keeps its agents in that frame and turns only what it is
        given and gives. The same as :class:`NavQuery` for a navmesh without a frame."""
        query = cls(mesh)
        query._frame = None
        return query

    # ---------------------------------------------------------------------------------------- locating
    def _index(self, query_filter: QueryFilter | None) -> NavIndex:
        """The index a query reads: the navmesh's, or without the polygons ``query_filter`` excludes."""
        if query_filter is None:
            return self.mesh.index
        return filter_view(self.mesh, check_filter(query_filter)).index

    def locate(self, point: Iterable[float], filter: QueryFilter | None = None) -> int:
        """The polygon under or nearest above/below ``point`` (the one whose surface is closest in height among
        those containing its x-z position), or -1; with ``filter`` (a
        :class:`~voxelworld.navigation.QueryFilter`), among the polygons it does not exclude."""
        x, y, z = check_point("point", point)
        if self._frame is not None:
            x, y, z = self._to_local((x, y, z))
        index = self._index(filter)
        return int(_locate.locate(index.polygons, index.buckets, x, y, z))

    def nearest_point(self, point: Iterable[float], filter: QueryFilter | None = None) -> tuple[np.ndarray, int]:
        """The point of the navmesh closest to ``point`` (3-D distance) and its polygon (-1 if the mesh is
        empty); with ``filter``, of the polygons it does not exclude (-1 when it excludes all)."""
        x, y, z = check_point("point", point)
        if self._frame is not None:
            x, y, z = self._to_local((x, y, z))
        out, q = self._nearest(x, y, z, self._index(filter))
        if self._frame is not None and q >= 0:
            out = self._to_world(out)
        return out, q

    def _nearest(self, x: float, y: float, z: float, index: NavIndex) -> tuple[np.ndarray, int]:
        out = np.full(3, np.nan)
        q = int(_locate.nearest(index.polygons, index.buckets, x, y, z, out))
        return out, q

    # -------------------------------------------------------------------------------------------- paths
    def find_path(self, start: Iterable[float], end: Iterable[float],
                  filter: QueryFilter | None = None) -> NavPath | None:
        """The shortest (least-cost) path from ``start`` to ``end`` (both snapped to the navmesh with
        :meth:`nearest_point`, under ``filter``), or None when no way joins them.

        Without a filter weighing an area type the navmesh has, and without off-mesh links, the path is the
        shortest on the x-z plane over the polygons (Polyanya, an exact search: Cui, Harabor and Grastien 2017)
        that ``filter`` does not exclude; its points are the start, the corners it bends around and the end, at
        the height of the polygons' surface (the start and end as snapped), and its length is summed in 3-D.

        Otherwise (``filter``'s cost multipliers, :class:`~voxelworld.navigation.QueryFilter`, or the
        navmesh's ``offmesh_links``) it is the least-cost path (:attr:`NavPath.cost`) over the allowed polygons
        and links, found by a graph search over points along the portals and straightened
        (``_kernels/weighted.py``; within 2% of a fine-grid search on the test scenes): its points are where it
        bends (on portals) and the links' ends, and :attr:`NavPath.offmesh` tells which segments are links.
        A one-way link is never taken backwards.
        """
        sx, sy, sz = _point("start", start)
        ex, ey, ez = _point("end", end)
        if self._frame is not None:
            (sx, sy, sz), (ex, ey, ez) = self._to_local((sx, sy, sz)), self._to_local((ex, ey, ez))
        index = self.mesh.index
        links = self.mesh.offmesh_links
        if filter is not None or (links is not None and len(links.start)):
            view = filter_view(self.mesh, check_filter(filter))
            if view.weighted:
                return self._weighted_path(view.graph, view.index, (sx, sy, sz), (ex, ey, ez))
            index = view.index
        if self._fitted is not index:  # a new query, its navmesh was re-baked, or another filter
            self._bind(index)
        while True:
            query, call = self._query, self._call
            assert query is not None and self._scratch is not None  # bound by _fit_scratch
            if call is None:  # the binding's first search: the dispatcher compiles (or loads) the kernel
                count, length = _paths.find_path(query, sx, sy, sz, ex, ey, ez)
                self._call = compiled_entry(_paths.find_path, query)
            else:
                count, length = call(query, sx, sy, sz, ex, ey, ez)
            if count >= 0:
                break
            # A long search: more room, and search again.
            self._fit_scratch(index, 2 * len(self._scratch.node_f))
        if count == 0:
            return None
        if self._frame is not None:  # a rotation keeps lengths
            return NavPath.walked(self._to_world(self._path_buffer[:count]), length)
        # NavPath.walked, inlined (a path query takes microseconds)
        path = _new(NavPath)
        fields = path.__dict__
        fields["points"], fields["length"] = self._path_buffer[:count].copy(), length
        return path

    def _weighted_path(self, graph: _weighted.WeightedGraph, index: NavIndex, start: tuple[float, float, float],
                       end: tuple[float, float, float]) -> NavPath | None:
        """The least-cost path between two local points (see :meth:`find_path`), on ``index``'s polygons."""
        snapped_start, a = self._nearest(*start, index)
        snapped_end, b = self._nearest(*end, index)
        if a < 0 or b < 0 or (not graph.linked and index.island[a] != index.island[b]):
            return None
        points, offmesh, length, cost = _weighted.weighted_path(graph, a, snapped_start, b, snapped_end)
        if not len(points):
            return None
        if self._frame is not None:
            points = self._to_world(points)
        return NavPath(points, length, offmesh, cost)

    def _bind(self, index: NavIndex) -> None:
        """Make the path search read ``index``: the spare binding when it is that index's, else a new one (the
        one replaced becomes the spare, unless it reads a navmesh re-baked since: never searched again, it would
        only hold that navmesh's arrays). The two never share a scratch array (each counts its own queries, which
        its stamps rely on): a new binding takes the arrays of the binding it drops, or new ones."""
        spare, current = self._spare, None
        if self._fitted is not None and self._query is not None and self._scratch is not None:
            current = (self._fitted, self._query, self._call, self._scratch, self._path_buffer)
        if spare is not None and spare[0] is index:
            self._spare = current if current is not None and self._of_this_navmesh(current[0]) else None
            self._fitted, self._query, self._call, self._scratch, self._path_buffer = spare
            return
        if current is not None and not self._of_this_navmesh(current[0]):
            self._spare = spare if spare is not None and self._of_this_navmesh(spare[0]) else None
            dropped: tuple | None = current
        else:
            self._spare, dropped = current, spare
        self._scratch, self._path_buffer = (dropped[3], dropped[4]) if dropped is not None else (None, np.zeros((0, 3)))
        self._fit_scratch(index, max(SMALLEST_QUEUE, 4 * len(index.rings.ring_xz)))

    def _of_this_navmesh(self, index: NavIndex) -> bool:
        """Whether ``index`` is the navmesh's index now, or one of its filter views' (made of it)."""
        now = self.mesh.index
        return index is now or any(getattr(view, "index", None) is index for view in now.filter_views.values())

    def _fit_scratch(self, index: NavIndex, room: int) -> None:
        """Make the scratch (see ``_kernels/polyanya.py``) hold the ring vertices and polygons of ``index`` and
        at least ``room`` nodes and roots, and the path buffer a path through every vertex; then bind them and
        the index's arrays into the :class:`~._kernels.arrays.PathQuery` that ``find_path`` passes. What the
        query had is kept where it is large enough (after a re-bake, the polygons and ring vertices are about as
        many as before): the search never reads what it has not written in the same query, and the per-vertex
        and per-polygon stamps stay valid as long as the count of queries goes on. New arrays get a quarter
        more room than asked, for the next re-bake."""
        rings = index.rings
        vertex_count, polygon_count = len(rings.corner), index.polygon_count
        old = self._scratch
        if old is not None and len(old.best_g) >= vertex_count and len(old.entered) >= polygon_count \
                and len(old.node_f) >= room:
            scratch = old
        else:
            counts = np.zeros(5, dtype=np.int64)
            if old is not None and len(old.best_g) >= vertex_count and len(old.entered) >= polygon_count:
                counts[3] = old.counts[3]  # stamps of best_g and entered stay valid: keep counting queries
                best_g, stamp, entered, entered_g = old.best_g, old.stamp, old.entered, old.entered_g
            else:
                v, q = vertex_count + vertex_count // 4, polygon_count + polygon_count // 4
                best_g, stamp = np.zeros(v), np.zeros(v, dtype=np.int64)
                entered, entered_g = np.zeros((q, 2), dtype=np.int64), np.zeros(q)
            if old is not None and len(old.node_f) >= room:
                queue = old[:5]
            else:
                room += room // 4
                queue = (np.zeros((room, 4)), np.zeros((room, 3), dtype=np.int64), np.zeros((room, 4)),
                         np.zeros((room, 2), dtype=np.int64), np.zeros(room, dtype=np.int64))
            scratch = SearchScratch(*queue, best_g, stamp, counts, entered, entered_g, np.zeros((2, 3)))
        if len(self._path_buffer) < vertex_count + 3:
            self._path_buffer = np.zeros((vertex_count + 3 + vertex_count // 4, 3))
        self._scratch = scratch
        self._query = _paths.path_query(index.polygons, index.buckets, index.island, rings, scratch,
                                        self._path_buffer)
        self._call = None  # looked up after its first search
        self._fitted = index

    # ------------------------------------------------------------------------------------ other queries
    def raycast(self, start: Iterable[float], end: Iterable[float],
                filter: QueryFilter | None = None) -> tuple[float, np.ndarray]:
        """How far a straight walk from ``start`` (snapped to the navmesh) towards ``end`` gets on the navmesh
        (x-z plane): the distance walked (m) and the point reached (``end``'s x and z when nothing blocks it,
        at the height of the polygon reached). The walk goes from polygon to polygon across the portals the
        segment crosses, and stops at the first edge that is not a portal (with ``filter``: nor one into a polygon
        it excludes; the start snaps to the polygons it allows). On a turned navmesh the walk is on the x-z plane
        of its own frame (the plane across its rays)."""
        x, y, z = check_point("point", start)
        end = np.array(check_point("end", end))
        if self._frame is not None:
            (x, y, z), end = self._to_local((x, y, z)), np.array(self._to_local(end))
        index = self._index(filter)
        start, q = self._nearest(x, y, z, index)
        if q < 0:
            return 0.0, start
        vertices, polygon_start, polygon_vertices, _, surface = index.polygons
        unused = np.zeros(0, dtype=np.int64)
        t, q, _ = _locate.walk(vertices, polygon_start, polygon_vertices, *index.links, index.portal_segments, q,
                               start[0], start[2], end[0], end[2], False, unused, unused, 0)
        x, z = start[0] + t * (end[0] - start[0]), start[2] + t * (end[2] - start[2])
        walked = t * float(np.hypot(end[0] - start[0], end[2] - start[2]))
        reached = np.array([x, _locate.height(surface, q, x, z), z])
        if self._frame is not None:
            reached = self._to_world(reached)
        return walked, reached

    def random_point(self, rng: np.random.Generator) -> np.ndarray:
        """A point spread evenly over the walkable area (polygons chosen by area), from ``rng``."""
        if not isinstance(rng, np.random.Generator):
            raise ParameterError("rng", rng, "a numpy.random.Generator (e.g. numpy.random.default_rng(seed))")
        index = self.mesh.index
        if not index.polygon_count:
            raise ParameterError("navmesh", "no polygons", "a navmesh with walkable area to sample")
        out = np.empty(3)
        vertices, polygon_start, polygon_vertices, _, surface = index.polygons
        _locate.sample(vertices, polygon_start, polygon_vertices, surface, index.cumulative_area, rng.random(4), out)
        if self._frame is not None:
            out = self._to_world(out)
        return out
