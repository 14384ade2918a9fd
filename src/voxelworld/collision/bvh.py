"""`TriangleBVH`: geometric questions about any triangle mesh (ray casts, overlaps), answered in batches."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_finite
from . import _build_kernels, _kernels, _kernels_character

__all__ = ["TriangleBVH", "RayHits", "RayHitList", "Contacts", "Ground", "CapsulePush"]

WIDTH = _build_kernels.WIDTH  # children per node of the tree the queries read
COHERENT_BATCH = _kernels.COHERENT_BATCH  # rays: a batch this large is traced in the order of its origins


@dataclass(frozen=True)
class RayHits:
    """The first hit of each ray; rays that hit nothing have triangle -1, distance inf, NaN point and normal,
    material 0 and object -1."""

    distance: np.ndarray  # (R,) float64, metres along the (unit) direction
    triangle: np.ndarray  # (R,) int64
    point: np.ndarray  # (R, 3) float64
    normal: np.ndarray  # (R, 3) float64: the triangle's unit normal, turned to face the ray's origin
    material: np.ndarray  # (R,) uint8
    object: np.ndarray  # (R,) int64

    @property
    def hit(self) -> np.ndarray:
        """(R,) bool: whether each ray hit something."""
        return self.triangle >= 0


@dataclass(frozen=True)
class RayHitList:
    """Every hit of a batch of rays or segments, sorted by ray, then distance, then triangle."""

    ray: np.ndarray  # (K,) int64: which ray (or segment) of the batch
    distance: np.ndarray  # (K,) float64
    triangle: np.ndarray  # (K,) int64
    point: np.ndarray  # (K, 3) float64
    normal: np.ndarray  # (K, 3) float64, facing the ray's origin
    material: np.ndarray  # (K,) uint8
    object: np.ndarray  # (K,) int64


@dataclass(frozen=True)
class Contacts:
    """Triangles touched by spheres or capsules, sorted by query then triangle."""

    query: np.ndarray  # (K,) int64: which sphere or capsule of the batch
    triangle: np.ndarray  # (K,) int64
    point: np.ndarray  # (K, 3) float64: the triangle's point closest to the shape's axis
    normal: np.ndarray  # (K, 3) float64: unit, from that point towards the axis (push-out direction)
    depth: np.ndarray  # (K,) float64: radius minus distance, metres (>= 0)
    material: np.ndarray  # (K,) uint8
    object: np.ndarray  # (K,) int64


class Ground(NamedTuple):
    """The surface under a footprint (:meth:`TriangleBVH.ground_under`)."""

    height: float  # m
    normal: np.ndarray  # (3,) float64: its triangle's unit normal, facing up
    material: int  # its triangle's material id


class CapsulePush(NamedTuple):
    """How to move an upright capsule out of what it overlaps (:meth:`TriangleBVH.capsule_push`)."""

    push: np.ndarray  # (3,) float64, m: all zero when nothing pushes
    touched: bool  # whether the capsule overlaps any triangle
    ceiling: bool  # whether one of them is a ceiling (its contact normal points more than half down)


def astuple_shallow(result: RayHits | RayHitList | Contacts) -> tuple[np.ndarray, ...]:
    """A result dataclass's arrays in field order (``dataclasses.astuple`` would copy them)."""
    return tuple(getattr(result, name) for name in result.__dataclass_fields__)


def _points(parameter: str, value: ArrayLike, count: int | None = None) -> np.ndarray:
    """An (n, 3) float array; with ``count``, n must be 1, ``count`` or (when ``count`` is 1) anything."""
    legal = "an array of shape (3,) or (n, 3) of finite numbers (m)" if count is None else \
        f"an array of shape (3,) or ({count}, 3) of finite numbers (m), to match the other argument"
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(parameter, value, legal) from None
    if array.ndim == 1:
        array = array[None, :]
    # (the array's own methods: numpy's module functions cost a character's few queries a frame more than the
    # kernels they guard)
    if array.ndim != 2 or array.shape[1] != 3 or not np.isfinite(array).all():
        raise ParameterError(parameter, f"array of shape {np.shape(value)}", legal)
    if count is not None and count != 1 and len(array) not in (1, count):
        raise ParameterError(parameter, f"array of shape {np.shape(value)}", legal)
    return array


def _per_query(parameter: str, value: ArrayLike, count: int, unit: str, allow_inf: bool = False) -> np.ndarray:
    legal = f"a number >= 0 ({unit}) or {count} of them" + (", inf allowed" if allow_inf else "")
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        number = float(value)  # the common case, one number for every query: no array checks
        if number != number or number < 0 or (not allow_inf and number == math.inf):
            raise ParameterError(parameter, value, legal)
        return np.full(count, number)
    array = np.asarray(value, dtype=np.float64)
    if array.ndim > 1 or (array.ndim == 1 and len(array) not in (1, count)) or np.any(np.isnan(array)) \
            or np.any(array < 0) or (not allow_inf and np.any(np.isinf(array))):
        raise ParameterError(parameter, value, legal)
    return np.ascontiguousarray(np.broadcast_to(array, (count,)))


class TriangleBVH:
    """A bounding volume hierarchy over a triangle mesh, for batched ray casts and overlap queries.

    Parameters
    ----------
    positions : array (n, 3)
        Vertex positions in metres.
    indices : array (m, 3)
        Triangles as vertex indices.
    tri_material : array (m,), optional
        Material id of each triangle (uint8; 0 = none), reported with every hit.
    tri_object : array (m,), optional
        Object number of each triangle (-1 = none), reported with every hit.

    Notes
    -----
    Building uses the binned surface area heuristic; :meth:`refit` after vertices moved is O(m) and keeps the
    tree; :meth:`combine` puts several trees under one without rebuilding them (a tree per chunk).
    Answers do not depend on the tree's shape: ties between equally near triangles go to the lower index.
    The queries read an 8-wide tree (the binary one collapsed), each node holding its children's boxes
    (float32, rounded outwards) axis by axis, and the triangles' corner and edges in leaf order; a batch of 4096 rays or more is traced in the order of its
    origins (neighbours reuse what is in cache), which changes no answer.

    Examples
    --------
    >>> floor = TriangleBVH([[0, 0, 0], [10, 0, 0], [0, 0, 10], [10, 0, 10]], [[0, 2, 1], [1, 2, 3]],
    ...                     tri_material=[4, 4])
    >>> hits = floor.raycast([[2.0, 5.0, 3.0]], [[0.0, -1.0, 0.0]])
    >>> float(hits.distance[0]), hits.point[0].tolist(), int(hits.material[0])
    (5.0, [2.0, 0.0, 3.0], 4)
    """

    def __init__(self, positions: ArrayLike, indices: ArrayLike, tri_material: ArrayLike | None = None,
                 tri_object: ArrayLike | None = None) -> None:
        self.positions = _points("positions", positions).copy()
        try:
            indices = np.asarray(indices)
        except (TypeError, ValueError):
            raise ParameterError("indices", indices, "an (m, 3) array of vertex indices") from None
        if indices.ndim != 2 or indices.shape[1] != 3 or not np.issubdtype(indices.dtype, np.integer) \
                or len(indices) == 0:
            raise ParameterError("indices", f"array of shape {indices.shape} and type {indices.dtype}",
                                 "a non-empty (m, 3) array of whole vertex indices")
        if indices.min() < 0 or indices.max() >= len(self.positions):
            raise ParameterError("indices", f"values from {indices.min()} to {indices.max()}",
                                 f"vertex indices from 0 to {len(self.positions) - 1}")
        self.indices = indices.astype(np.int64)
        count = len(self.indices)
        self.tri_material = self._per_triangle("tri_material", tri_material, np.uint8, 0, count)
        self.tri_object = self._per_triangle("tri_object", tri_object, np.int64, -1, count)
        self._build()

    @staticmethod
    def _per_triangle(parameter: str, value: ArrayLike | None, dtype: type[np.integer], default: int,
                      count: int) -> np.ndarray:
        if value is None:
            return np.full(count, default, dtype=dtype)
        array = np.asarray(value)
        if array.shape != (count,) or not np.issubdtype(array.dtype, np.integer):
            raise ParameterError(parameter, f"array of shape {array.shape}", f"{count} whole numbers, one per triangle")
        info = np.iinfo(dtype)
        if array.min() < info.min or array.max() > info.max:
            raise ParameterError(parameter, f"values from {array.min()} to {array.max()}",
                                 f"values in [{info.min}, {info.max}]")
        return array.astype(dtype)

    @property
    def triangle_count(self) -> int:
        return len(self.indices)

    def _build(self) -> None:
        count = len(self.indices)
        tri_lo, tri_hi, centroids = np.empty((count, 3)), np.empty((count, 3)), np.empty((count, 3))
        _build_kernels.triangle_boxes(self.positions, self.indices, tri_lo, tri_hi, centroids)
        self._order = np.empty(count, dtype=np.int64)
        capacity = 2 * count + 1
        node_lo, node_hi = np.empty((capacity, 3)), np.empty((capacity, 3))
        node_a, node_b = np.empty(capacity, dtype=np.int64), np.empty(capacity, dtype=np.int64)
        nodes = _build_kernels.build(tri_lo, tri_hi, centroids, self._order, node_lo, node_hi, node_a, node_b)
        capacity = max(1, (nodes - 1) // 2)  # the binary tree's inner nodes: the wide tree has no more
        box, child = np.empty((capacity, 6 * WIDTH), dtype=np.float32), \
            np.empty((capacity, 2 * WIDTH), dtype=np.int32)
        self._root_box, self._root = np.empty(6, dtype=np.float32), np.empty(2, dtype=np.int64)
        used = _build_kernels.collapse(node_lo, node_hi, node_a, node_b, box, child, self._root_box, self._root,
                                       False)
        self._box, self._child = box[:used], child[:used]
        self._tri = np.empty((count, 9))
        _build_kernels.triangle_data(self.positions, self.indices, self._order, self._tri)
        self._normals_from_positions()

    def _tree(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What the query kernels read (see :mod:`._kernels`)."""
        return self._tri, self._order, self._box, self._child, self._root_box, self._root

    @classmethod
    def combine(cls, parts: Sequence[TriangleBVH]) -> TriangleBVH:
        """One BVH over the triangles of several, each part's tree kept whole beneath a small tree over the
        parts' root boxes (two-level collision: a BVH per chunk, combined near the player).

        Part ``p``'s triangle ``t`` becomes triangle ``sum(earlier parts' counts) + t`` (its vertices are
        offset likewise; materials and objects are kept), and every query answers exactly as a
        :class:`TriangleBVH` built from the concatenated arrays would. No part is rebuilt: the cost is copying
        the parts' arrays and a tree over ``len(parts)`` boxes. The parts are not changed (nor is the result
        by a later :meth:`refit` of a part).

        Parameters
        ----------
        parts : sequence of TriangleBVH
            At least one.

        Examples
        --------
        >>> floor = TriangleBVH([[0, 0, 0], [10, 0, 0], [0, 0, 10]], [[0, 2, 1]], tri_material=[4])
        >>> wall = TriangleBVH([[3, 0, 0], [3, 9, 0], [3, 0, 9]], [[0, 1, 2]], tri_material=[7])
        >>> both = TriangleBVH.combine([floor, wall])
        >>> hits = both.raycast([[1.0, 5.0, 1.0], [0.0, 1.0, 1.0]], [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0]])
        >>> hits.triangle.tolist(), hits.material.tolist(), both.indices[1].tolist()
        ([0, 1], [4, 7], [3, 4, 5])
        """
        legal = "a non-empty sequence (list or tuple) of TriangleBVH"
        if not isinstance(parts, Sequence) or isinstance(parts, (str, bytes)) or len(parts) == 0:
            raise ParameterError("parts", parts, legal)
        for part in parts:
            if not isinstance(part, TriangleBVH):
                raise ParameterError("parts", f"a sequence holding {type(part).__name__}", legal)
        count = len(parts)
        tri_counts = np.array([len(p._order) for p in parts], dtype=np.int64)
        vertex_counts = np.array([len(p.positions) for p in parts], dtype=np.int64)
        node_counts = np.array([len(p._box) for p in parts], dtype=np.int64)
        if tri_counts.sum() >= 2 ** 31:
            raise ParameterError("parts", f"{tri_counts.sum()} triangles in all", "fewer than 2**31 triangles")
        tri_offsets = np.concatenate(([0], np.cumsum(tri_counts)[:-1]))
        vertex_offsets = np.concatenate(([0], np.cumsum(vertex_counts)[:-1]))
        self = cls.__new__(cls)
        self.positions = np.concatenate([p.positions for p in parts])
        self.indices = np.empty((int(tri_counts.sum()), 3), dtype=np.int64)
        self._order = np.empty(int(tri_counts.sum()), dtype=np.int64)
        for part, first, vertex_offset in zip(parts, tri_offsets.tolist(), vertex_offsets.tolist()):
            last = first + len(part._order)  # copied and moved in one pass, no array of offsets
            np.add(part.indices, vertex_offset, out=self.indices[first:last])
            np.add(part._order, first, out=self._order[first:last])
        self.tri_material = np.concatenate([p.tri_material for p in parts])
        self.tri_object = np.concatenate([p.tri_object for p in parts])
        self.normals = np.concatenate([p.normals for p in parts])
        self._tri = np.concatenate([p._tri for p in parts])
        # The top tree over the parts' root boxes first (its nodes come first), then each part's nodes in order.
        top_box, top_child = np.empty((max(1, count - 1), 6 * WIDTH), dtype=np.float32), \
            np.empty((max(1, count - 1), 2 * WIDTH), dtype=np.int32)
        self._root_box, self._root = np.empty(6, dtype=np.float32), np.empty(2, dtype=np.int64)
        tops = _build_kernels.top_tree(np.array([p._root_box for p in parts]), top_box, top_child, self._root_box,
                                       self._root)
        node_offsets = tops + np.concatenate(([0], np.cumsum(node_counts)[:-1]))
        nodes = tops + int(node_counts.sum())
        self._box, self._child = np.empty((nodes, 6 * WIDTH), dtype=np.float32), \
            np.empty((nodes, 2 * WIDTH), dtype=np.int32)
        self._box[:tops], self._child[:tops] = top_box[:tops], top_child[:tops]
        np.concatenate([p._box for p in parts], out=self._box[tops:])
        np.concatenate([p._child for p in parts], out=self._child[tops:])
        _build_kernels.offset_nodes(self._child[tops:], np.repeat(node_offsets, node_counts),
                                    np.repeat(tri_offsets, node_counts))
        roots = np.array([p._root for p in parts])
        roots[:, 0] += np.where(roots[:, 1] == 0, node_offsets, tri_offsets)
        _build_kernels.link_parts(self._child[:tops], roots)
        if self._root[1] == _build_kernels.PART:  # one part: its root is the root
            self._root[:] = roots[self._root[0]]
        return self

    def _normals_from_positions(self) -> None:
        self.normals = np.empty((len(self.indices), 3))
        _build_kernels.triangle_normals(self.positions, self.indices, self.normals)

    def refit(self, positions: ArrayLike) -> None:
        """Move the vertices to ``positions`` (same count, same triangles) and update the boxes in O(m): the
        cheap way to follow a chunk whose vertices moved. Rebuild (a new TriangleBVH) when triangles change."""
        positions = _points("positions", positions)
        if positions.shape != self.positions.shape:
            raise ParameterError("positions", f"array of shape {positions.shape}",
                                 f"the same shape as before, {self.positions.shape}")
        self.positions = positions.copy()
        _build_kernels.refit(self.positions, self.indices, self._order, self._tri, self._box, self._child,
                             self._root_box, self._root)
        self._normals_from_positions()

    # ---------------------------------------------------------------------------------------------- rays
    def _rays(self, origins: ArrayLike, directions: ArrayLike,
              max_distance: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        origins = _points("origins", origins)
        directions = _points("directions", directions, len(origins))
        count = max(len(origins), len(directions))
        origins = np.ascontiguousarray(origins) if len(origins) == count else origins.repeat(count, axis=0)
        unit = np.empty((len(directions), 3))
        if _kernels.unit_directions(np.ascontiguousarray(directions), unit) == 2:
            raise ParameterError("directions", "a zero vector", "non-zero directions")
        directions = unit if len(unit) == count else unit.repeat(count, axis=0)
        return origins, directions, _per_query("max_distance", max_distance, count, "m", allow_inf=True)

    def raycast(self, origins: ArrayLike, directions: ArrayLike, max_distance: ArrayLike = np.inf) -> RayHits:
        """The first triangle along each ray (either side of a triangle counts), within ``max_distance`` metres.

        ``origins`` and ``directions`` are (3,) or (R, 3) arrays (one broadcasts against the other);
        directions need not be unit length."""
        origins, directions, limit = self._rays(origins, directions, max_distance)
        count = len(origins)
        hits = self._empty_hits(count)
        _kernels.raycast(*self._tree(), self.tri_material, self.tri_object, origins, directions, limit,
                         *astuple_shallow(hits))
        return hits

    @staticmethod
    def _empty_hits(count: int) -> RayHits:
        return RayHits(np.empty(count), np.empty(count, dtype=np.int64), np.empty((count, 3)), np.empty((count, 3)),
                       np.empty(count, dtype=np.uint8), np.empty(count, dtype=np.int64))

    def raycast_all(self, origins: ArrayLike, directions: ArrayLike, max_distance: ArrayLike = np.inf) -> RayHitList:
        """Every triangle along each ray within ``max_distance`` metres, sorted by ray then distance."""
        origins, directions, limit = self._rays(origins, directions, max_distance)
        return self._all_hits(origins, directions, limit)

    def segment_hits(self, starts: ArrayLike, ends: ArrayLike) -> RayHitList:
        """Every triangle each segment ``starts[i]`` -> ``ends[i]`` crosses, sorted by segment then distance
        from its start. A segment of zero length hits nothing."""
        starts = _points("starts", starts)
        ends = _points("ends", ends, len(starts))
        count = max(len(starts), len(ends))
        starts = np.ascontiguousarray(np.broadcast_to(starts, (count, 3)))
        vectors = np.broadcast_to(ends, (count, 3)) - starts
        length = np.linalg.norm(vectors, axis=1)
        directions = np.divide(vectors, length[:, None], out=np.tile([0.0, -1.0, 0.0], (count, 1)),
                               where=length[:, None] > 0)
        limit = np.where(length > 0, length, -1.0)  # a negative limit admits no hit
        return self._all_hits(starts, np.ascontiguousarray(directions), limit)

    def _all_hits(self, origins: np.ndarray, directions: np.ndarray, limit: np.ndarray) -> RayHitList:
        counts = np.zeros(len(origins), dtype=np.int64)
        nothing = np.empty(0, dtype=np.int64)
        args = (*self._tree(), origins, directions, limit, counts)
        _kernels.raycast_all(*args, nothing, np.empty(0), nothing)
        total = int(counts.sum())
        ray, distance, triangle = np.empty(total, dtype=np.int64), np.empty(total), np.empty(total, dtype=np.int64)
        if total:
            _kernels.raycast_all(*args, ray, distance, triangle)
        order = np.lexsort((triangle, distance, ray))
        ray, distance, triangle = ray[order], distance[order], triangle[order]
        point, normal, material, obj = self._hit_details(origins[ray], directions[ray], distance, triangle)
        return RayHitList(ray, distance, triangle, point, normal, material, obj)

    def _hit_details(self, origins: np.ndarray, directions: np.ndarray, distance: np.ndarray,
                     triangle: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        count = len(triangle)
        point, normal = np.empty((count, 3)), np.empty((count, 3))
        material, obj = np.empty(count, dtype=np.uint8), np.empty(count, dtype=np.int64)
        _kernels.hit_details(origins, directions, distance, triangle, self.normals, self.tri_material,
                             self.tri_object, point, normal, material, obj)
        return point, normal, material, obj

    # ------------------------------------------------------------------------------------------ overlaps
    def overlap_sphere(self, centers: ArrayLike, radius: ArrayLike) -> Contacts:
        """The triangles within ``radius`` metres of each sphere's centre, with contact point, push-out normal
        and depth."""
        centers = _points("centers", centers)
        return self._overlap(centers, centers, _per_query("radius", radius, len(centers), "m"))

    def overlap_capsule(self, a: ArrayLike, b: ArrayLike, radius: ArrayLike) -> Contacts:
        """The triangles within ``radius`` metres of each capsule's axis ``a[i]`` -> ``b[i]``."""
        a = _points("a", a)
        b = _points("b", b, len(a))
        count = max(len(a), len(b))
        a = np.ascontiguousarray(a) if len(a) == count else a.repeat(count, axis=0)
        b = np.ascontiguousarray(b) if len(b) == count else b.repeat(count, axis=0)
        return self._overlap(a, b, _per_query("radius", radius, count, "m"))

    # ------------------------------------------------------------------------------ a standing character's
    def ground_under(self, x: float, z: float, spread: float, top: float, bottom: float) -> Ground | None:
        """The highest surface that five rays cast straight down from height ``top`` to ``bottom`` (m) meet: at
        (x, z) and ``spread`` m from it along +x, -x, +z and -z (a standing character's footprint), or None.
        Each ray answers as :meth:`raycast` would; of equal heights the first ray's (in that order) wins. One
        kernel call where the raycast and sifting its five answers cost a character several times more.

        Examples
        --------
        >>> floor = TriangleBVH([[0, 0, 0], [10, 0, 0], [0, 0, 10], [10, 0, 10]], [[0, 2, 1], [1, 2, 3]],
        ...                     tri_material=[4, 4])
        >>> ground = floor.ground_under(2.0, 3.0, 0.2, top=1.0, bottom=-1.0)
        >>> ground.height, ground.normal.tolist(), ground.material
        (0.0, [0.0, 1.0, 0.0], 4)
        >>> floor.ground_under(2.0, 3.0, 0.2, top=3.0, bottom=1.0) is None
        True
        """
        x, z = check_finite("x", x, unit="m"), check_finite("z", z, unit="m")
        spread = check_finite("spread", spread, minimum=0.0, unit="m")
        top = check_finite("top", top, unit="m")
        bottom = check_finite("bottom", bottom, maximum=top, unit="m, at most top")
        out = np.empty(4)
        material = _kernels_character.ground_under(*self._tree(), self.tri_material, _kernels_character.FOOTPRINT,
                                                   x, z, spread, top, bottom, out)
        return None if material < 0 else Ground(float(out[0]), out[1:], int(material))

    def capsule_push(self, a: ArrayLike, b: ArrayLike, radius: float) -> CapsulePush:
        """How far to move an upright capsule (axis ``a`` -> ``b``, ``radius`` m) out of the triangles it
        overlaps (:meth:`overlap_capsule`'s contacts, in its order): down from ceilings (the deepest of the
        contacts whose normal points more than half down), and horizontally from the rest, each contact's normal
        laid flat and its depth divided by that flat length (at least 0.2), adding only what the push along that
        direction still lacks (two triangles of one wall push once). A contact whose normal is (nearly)
        vertical pushes nothing. One kernel call where the overlap and sifting its contacts cost a character
        several times more.

        Examples
        --------
        >>> wall = TriangleBVH([[1, 0, -5], [1, 5, -5], [1, 0, 5], [1, 5, 5]], [[0, 1, 2], [1, 3, 2]])
        >>> moved = wall.capsule_push([0.8, 0.5, 0.0], [0.8, 1.5, 0.0], 0.3)
        >>> [round(float(v), 6) for v in moved.push], moved.touched, moved.ceiling
        ([-0.1, 0.0, 0.0], True, False)
        """
        ends = np.empty((2, 3))
        for row, (parameter, value) in enumerate((("a", a), ("b", b))):
            point = _points(parameter, value)
            if len(point) != 1:
                raise ParameterError(parameter, f"array of shape {np.shape(value)}", "one point (x, y, z) (m)")
            ends[row] = point[0]
        radius = check_finite("radius", radius, minimum=0.0, unit="m")
        out = np.empty(3)
        flags = _kernels_character.capsule_push(self.positions, self.indices, self.normals, *self._tree()[1:], ends,
                                                radius, out)
        return CapsulePush(out, bool(flags & 1), bool(flags & 2))

    def _overlap(self, starts: np.ndarray, ends: np.ndarray, radii: np.ndarray) -> Contacts:
        counts = np.zeros(len(starts), dtype=np.int64)
        args = (self.positions, self.indices, self.normals, *self._tree()[1:], starts, ends, radii, counts)
        room = 64 * len(starts)  # one kernel call when the contacts fit (a character's capsule: a few)
        while True:
            query, triangle = np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64)
            point, normal, depth = np.empty((room, 3)), np.empty((room, 3)), np.empty(room)
            _kernels.overlap(*args, query, triangle, point, normal, depth)
            total = int(counts.sum())
            if total <= room:
                break
            room = total
        query, triangle, point, normal, depth = query[:total], triangle[:total], point[:total], normal[:total], \
            depth[:total]
        return Contacts(query, triangle, point, normal, depth, self.tri_material[triangle], self.tri_object[triangle])
