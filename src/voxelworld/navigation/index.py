"""What the queries read of a navmesh, derived once from its arrays: :class:`NavIndex`.

A uniform bucket grid over the polygons' x-z boxes finds the polygons near a point; each polygon's detail (else
its plane) gives its height; the neighbour lists and islands come from the portals; the boundary rings the
path search walks (``_kernels/paths.py``) and the polygons' cumulative area (for random points) are built on
first use, so that a navmesh re-baked every frame pays for them only when asked for a path or a random point.
A :class:`NavIndex` holds no query's scratch: any number of :class:`~voxelworld.navigation.NavQuery` objects
read one at the same time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial

import numpy as np
from numpy.typing import ArrayLike

from ._kernels import locate as _locate
from ._kernels import paths as _paths
from ._kernels.arrays import BoundaryRings, BucketGrid, PolygonArrays, PolygonLinks, Surface

__all__ = ["NavIndex", "navmesh_index", "filtered_index", "polygon_boxes"]

BUCKET_ENTRIES = 16  # bucket entries per polygon, at most (a well-shaped navmesh makes 1 to 4)


@dataclass(frozen=True, eq=False)
class NavIndex:
    """The arrays the query kernels read, derived from a navmesh's (checked) arrays by :func:`navmesh_index`.

    Attributes
    ----------
    polygons : PolygonArrays
        Corners, boxes and planes of the polygons.
    buckets : BucketGrid
        The bucket grid over their x-z boxes.
    links : PolygonLinks
        Each polygon's neighbours through the portals.
    island : ndarray (p,)
        Each polygon's connected group, numbered in the order of its lowest polygon.
    portals, portal_segments : ndarray (r, 2), (r, 2, 3)
        As in the navmesh, contiguous.
    ring_source : callable or None
        What makes :attr:`rings` from the rings of the navmesh before (a tiled navmesh's,
        :meth:`~.joined_tiles.JoinedTiles.rings_for`: called with the index, and the polygons a filtered index
        allows), or None: built from scratch (as when it gives None).
    """

    polygons: PolygonArrays
    buckets: BucketGrid
    links: PolygonLinks
    island: np.ndarray
    portals: np.ndarray
    portal_segments: np.ndarray
    ring_source: Callable[..., BoundaryRings | None] | None = field(default=None, repr=False)

    @property
    def polygon_count(self) -> int:
        return len(self.island)

    @cached_property
    def rings(self) -> BoundaryRings:
        """The boundary rings the path search walks (built on first use)."""
        if self.ring_source is not None:
            made = self.ring_source(self)
            if made is not None:
                return made
        vertices, polygon_start, polygon_vertices, _, surface = self.polygons
        room = len(polygon_vertices) + 4 * len(self.portals)  # enough unless polygons have overlapping sides
        while True:
            rings = _paths.boundary_rings(vertices, polygon_start, polygon_vertices, surface, self.portals,
                                          self.portal_segments, self.links.link_start, self.links.link_portal, room)
            if rings[0][-1] >= 0:
                return BoundaryRings(*rings)
            room *= 2

    @cached_property
    def filter_views(self) -> dict[object, object]:
        """What the queries derive of this index per query filter (``filters.filter_view``), kept as long as the
        index is (a re-bake makes a new index)."""
        return {}

    @cached_property
    def cumulative_area(self) -> np.ndarray:
        """The polygons' areas (m², x-z plane), summed in order (built on first use)."""
        vertices, polygon_start, polygon_vertices = self.polygons[:3]
        return np.cumsum(polygon_areas(vertices, polygon_start, polygon_vertices))


def polygon_areas(vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray) -> np.ndarray:
    """Area (m², on the x-z plane) of every polygon."""
    if len(polygon_start) < 2:
        return np.zeros(0)
    corners = vertices[polygon_vertices]
    following = np.arange(1, len(corners) + 1)
    following[polygon_start[1:] - 1] = polygon_start[:-1]
    cross = corners[:, 0] * corners[following, 2] - corners[following, 0] * corners[:, 2]
    return 0.5 * np.abs(np.add.reduceat(cross, polygon_start[:-1]))


def _bucket_layout(boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The bucket grid over the polygons' x-z ``boxes``: ``(grid, shape, spans)`` (see ``_kernels/locate.py``).

    About one bucket per polygon's x-z box, no more than 4 per polygon in all, and at most 4 per polygon along
    either axis. Polygons that would fill more than BUCKET_ENTRIES entries per polygon (slivers as long as the
    mesh) get cells twice as large until they do not, and coordinates too far apart for a finite extent share
    one bucket: whatever a navmesh's coordinates, the grid takes memory in proportion to its polygons."""
    p = len(boxes)
    if p:
        lo, hi = boxes[:, [0, 2]].min(axis=0), boxes[:, [1, 3]].max(axis=0)
        with np.errstate(over="ignore", invalid="ignore"):  # coordinates far apart: inf, tested below
            extent = np.maximum(hi - lo, 1e-6)
            area = float(extent[0] * extent[1])
            typical = float(np.sqrt(np.mean((boxes[:, 1] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 2]))))
    if not (p and np.isfinite(area) and np.isfinite(typical)):
        grid, shape = np.array([0.0, 0.0, 1.0]), np.ones(2, dtype=np.int64)
        return grid, shape, _locate.bucket_spans(boxes, grid, shape)[0]
    cell = max(typical, float(np.sqrt(area / (4 * p))), float(extent.max()) / (4 * p), 1e-6)
    while True:
        shape = np.maximum(np.ceil(extent / cell).astype(np.int64), 1)
        grid = np.array([lo[0], lo[1], cell])
        spans, entries = _locate.bucket_spans(boxes, grid, shape)
        if entries <= BUCKET_ENTRIES * p or shape[0] * shape[1] == 1:
            return grid, shape, spans
        cell *= 2.0


def polygon_boxes(vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray,
                  detail_shape: np.ndarray, detail_start: np.ndarray, detail_heights: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Each polygon's box (p, 6) and plane (p, 3) (``_locate.polygon_geometry``), the box holding its detail's
    heights too: what :func:`navmesh_index` derives polygon by polygon (so that the polygons of some tiles may be
    boxed tile by tile and the boxes joined)."""
    boxes, planes = _locate.polygon_geometry(vertices, polygon_start, polygon_vertices)
    held = np.flatnonzero(detail_shape[:, 0] > 0)
    if len(held):  # a box holds its polygon's surface: its heights span the detail's too
        boxes[held, 4] = np.minimum(boxes[held, 4], np.minimum.reduceat(detail_heights, detail_start[held]))
        boxes[held, 5] = np.maximum(boxes[held, 5], np.maximum.reduceat(detail_heights, detail_start[held]))
    return boxes, planes


def navmesh_index(vertices: ArrayLike, polygon_start: ArrayLike, polygon_vertices: ArrayLike, portals: ArrayLike,
                  portal_segments: ArrayLike, detail_origin: ArrayLike | None = None,
                  detail_shape: ArrayLike | None = None, detail_heights: ArrayLike | None = None,
                  boxes_planes: tuple[np.ndarray, np.ndarray] | None = None,
                  ring_source: Callable[..., BoundaryRings | None] | None = None) -> NavIndex:
    """The :class:`NavIndex` of a navmesh's arrays, which must have been checked (the kernels trust every
    index). ``boxes_planes``: the polygons' :func:`polygon_boxes` when known (taken, not copied);
    ``ring_source``: see :class:`NavIndex`."""
    vertices = np.ascontiguousarray(vertices, dtype=np.float64).reshape(-1, 3)
    polygon_start = np.ascontiguousarray(polygon_start, dtype=np.int64)
    polygon_vertices = np.ascontiguousarray(polygon_vertices, dtype=np.int64)
    portals = np.ascontiguousarray(portals, dtype=np.int64).reshape(-1, 2)
    segments = np.ascontiguousarray(portal_segments, dtype=np.float64).reshape(-1, 2, 3)
    p = len(polygon_start) - 1
    if detail_shape is None:
        detail_origin, detail_shape, detail_heights = np.zeros((p, 3)), np.zeros((p, 2), np.int64), np.empty(0)
    detail_shape = np.ascontiguousarray(detail_shape, dtype=np.int64).reshape(-1, 2)
    detail_start = np.concatenate([[0], np.cumsum(detail_shape[:, 0] * detail_shape[:, 1])]).astype(np.int64)
    detail_heights = np.ascontiguousarray(detail_heights, dtype=np.float64)
    if boxes_planes is None:
        boxes_planes = polygon_boxes(vertices, polygon_start, polygon_vertices, detail_shape, detail_start,
                                     detail_heights)
    boxes, planes = boxes_planes
    surface = Surface(planes, np.ascontiguousarray(detail_origin, dtype=np.float64).reshape(-1, 3), detail_shape,
                      detail_start, detail_heights)
    grid, shape, spans = _bucket_layout(boxes)
    bucket_start, bucket_polygons = _locate.bucket_grid(spans, shape)
    return NavIndex(PolygonArrays(vertices, polygon_start, polygon_vertices, boxes, surface),
                    BucketGrid(grid, shape, bucket_start, bucket_polygons),
                    PolygonLinks(*_paths.polygon_links(p, portals)), _paths.polygon_islands(p, portals),
                    portals, segments, ring_source)


def filtered_index(index: NavIndex, allowed: np.ndarray) -> NavIndex:
    """The index of the same polygons with only the ``allowed`` ones ((p,) bool) found or entered: no bucket
    lists another, no portal leads into one (its rings, built on first use, are walls there), and the islands
    are those of the allowed polygons (a query filter's exclusions, :mod:`~voxelworld.navigation.filters`)."""
    keep = allowed[index.portals[:, 0]] & allowed[index.portals[:, 1]]
    portals = np.ascontiguousarray(index.portals[keep])
    segments = np.ascontiguousarray(index.portal_segments[keep])
    grid, shape = index.buckets.grid, index.buckets.grid_shape
    spans = _locate.bucket_spans(index.polygons.boxes, grid, shape)[0]
    spans[~allowed, 1] = spans[~allowed, 0] - 1  # an empty span: in no bucket
    bucket_start, bucket_polygons = _locate.bucket_grid(spans, shape)
    p = index.polygon_count
    source = None if index.ring_source is None else partial(index.ring_source, allowed=allowed)
    return NavIndex(index.polygons, BucketGrid(grid, shape, bucket_start, bucket_polygons),
                    PolygonLinks(*_paths.polygon_links(p, portals)), _paths.polygon_islands(p, portals), portals,
                    segments, source)
