"""The named tuples the query kernels take: numba compiles attribute access on them to plain field access, and a
call passes one name where it passed a dozen arrays in an order that could drift.

- :class:`PolygonArrays`, :class:`BucketGrid`, :class:`PolygonLinks`, :class:`BoundaryRings`: what a navmesh's
  arrays are read as (built once per navmesh, shared by every query; see ``locate.py`` and ``paths.py``);
- :class:`SearchScratch`: what one path search writes (owned by a ``NavQuery``, one per agent or thread; see
  ``polyanya.py``);
- :class:`PathQuery`: all that one path query reads and writes, behind one reference (a numba *structref*).

Passing named tuples from Python costs a call dearly: numba works out their type anew on every call and unpacks
every array (on nav_test, about 7 µs of a path query went into the 33 arrays before the search began). A
:class:`PathQuery`, made once per navmesh index and scratch, passes as one pointer (under 1 µs); the kernel reads
the named tuples out of it once and hands them to the search as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numba.core import types
from numba.experimental import structref

__all__ = ["Surface", "PolygonArrays", "BucketGrid", "PolygonLinks", "BoundaryRings", "SearchScratch", "PathQuery",
           "PathQueryType"]


class Surface(NamedTuple):
    """The heights of the polygons' surface: ``planes (p, 3)`` (``y = a x + b z + c``, m, through the corners)
    and the details as in the NavMesh (``detail_origin (p, 3)``, ``detail_shape (p, 2)``, ``detail_heights``)
    with ``detail_start (p + 1,)``, where each polygon's raster starts; a polygon without detail is its
    plane."""

    planes: np.ndarray
    detail_origin: np.ndarray
    detail_shape: np.ndarray
    detail_start: np.ndarray
    detail_heights: np.ndarray


class PolygonArrays(NamedTuple):
    """The polygons: ``vertices (n, 3)``, ``polygon_start (p + 1,)`` and ``polygon_vertices`` as in the NavMesh,
    ``boxes (p, 6)`` (x_min, x_max, z_min, z_max of the corners, y_min, y_max of the corners and the detail, m) and
    their ``surface`` (a :class:`Surface`)."""

    vertices: np.ndarray
    polygon_start: np.ndarray
    polygon_vertices: np.ndarray
    boxes: np.ndarray
    surface: Surface


class BucketGrid(NamedTuple):
    """The bucket grid over the polygons' x-z boxes: ``grid = (x0, z0, cell)`` (m), ``grid_shape = (nx, nz)``;
    bucket ``i * nz + k`` lists ``bucket_polygons[bucket_start[b]:bucket_start[b + 1]]`` (ascending)."""

    grid: np.ndarray
    grid_shape: np.ndarray
    bucket_start: np.ndarray
    bucket_polygons: np.ndarray


class PolygonLinks(NamedTuple):
    """Each polygon's neighbours in CSR form: polygon q's are ``link_polygon[link_start[q]:link_start[q + 1]]``
    through the portals ``link_portal[...]``, by ascending portal."""

    link_start: np.ndarray
    link_polygon: np.ndarray
    link_portal: np.ndarray


class BoundaryRings(NamedTuple):
    """The conforming boundary the path search walks (see ``paths.py``)."""

    ring_start: np.ndarray
    ring_xz: np.ndarray
    ring_y: np.ndarray
    ring_polygon: np.ndarray
    ring_across: np.ndarray
    ring_twin: np.ndarray
    ring_vertex: np.ndarray
    corner: np.ndarray


class SearchScratch(NamedTuple):
    """What a path search writes (see ``polyanya.py`` for each array), and ``snapped (2, 3)``: the start and
    end snapped to the navmesh."""

    node_f: np.ndarray
    node_i: np.ndarray
    record_f: np.ndarray
    record_i: np.ndarray
    heap: np.ndarray
    best_g: np.ndarray
    stamp: np.ndarray
    counts: np.ndarray
    entered: np.ndarray
    entered_g: np.ndarray
    snapped: np.ndarray


@structref.register
class PathQueryType(types.StructRef):
    """The numba type of a :class:`PathQuery` (its fields typed by the arrays they hold)."""

    def preprocess_fields(self, fields: Sequence[tuple[str, types.Type]]) -> tuple[tuple[str, types.Type], ...]:
        return tuple((name, types.unliteral(kind)) for name, kind in fields)


class PathQuery(structref.StructRefProxy):
    """What one path query reads (``polygons``: a :class:`PolygonArrays`, ``buckets``: a :class:`BucketGrid`,
    ``island``: each polygon's island, ``rings``: the :class:`BoundaryRings`) and writes (``scratch``: a
    :class:`SearchScratch`, ``path (m, 3)``: the path's points), held by reference: made with
    ``paths.path_query``, read by ``paths.find_path``."""

    # The fields as the kernels read them (numba compiles the attribute access; this Python proxy has no such
    # properties: annotations only, for the type checker).
    polygons: PolygonArrays
    buckets: BucketGrid
    island: np.ndarray
    rings: BoundaryRings
    scratch: SearchScratch
    path: np.ndarray


structref.define_proxy(PathQuery, PathQueryType, ["polygons", "buckets", "island", "rings", "scratch", "path"])
