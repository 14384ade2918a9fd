"""What the rays of a bake meet of each object: its own triangles or its obstacle proxy (box, AABB tree,
reduced hull), with their x-z boxes, kept per object so that a re-bake reuses them."""

from __future__ import annotations

import weakref
from typing import Any, TypeAlias

import numpy as np

from ._kernels.columns import triangle_boxes
from ._kernels.proxies import clipped_bounds
from .scene import SceneObject

__all__ = ["BOX_FACES"]


BOX_FACES = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
                      [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]], dtype=np.int64)  # a box's 8 corners, outward


def _aabb_leaves(positions: np.ndarray, indices: np.ndarray, depth: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The leaf boxes ``(lo, hi)`` of an AABB tree ``depth`` levels deep over a closed object: each node halves
    its box across its longer side in x-z (rays fall along y: boxes stacked in y would only add levels) and
    keeps, for each half, the box of the object's surface clipped to it (see ``_kernels/proxies.py``); halves the
    object does not reach are dropped (0 levels: its bounding box)."""
    positions = np.ascontiguousarray(positions, dtype=np.float64)
    indices = np.ascontiguousarray(indices, dtype=np.int64)
    nodes = [(positions.min(axis=0), positions.max(axis=0), 0)]
    leaves, out = [], np.empty((2, 3))
    while nodes:
        lo, hi, level = nodes.pop()
        if level >= depth:
            leaves.append((lo, hi))
            continue
        axis = 0 if hi[0] - lo[0] >= hi[2] - lo[2] else 2  # never across y: stacked boxes would make levels
        middle = 0.5 * (lo[axis] + hi[axis])
        for half_lo, half_hi in ((lo, np.where(np.arange(3) == axis, middle, hi)),
                                 (np.where(np.arange(3) == axis, middle, lo), hi)):
            if clipped_bounds(positions, indices, half_lo, half_hi, axis, middle, out):
                nodes.append((out[0].copy(), out[1].copy(), level + 1))
    return leaves


def _reduced_hull(positions: np.ndarray, most: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The polygon-reduced copy: a convex polytope of at most ``most`` triangles (>= 12) that encloses the
    object, made from its convex hull by dropping the planes of its smallest facets (fewer half-spaces enclose
    more) within its bounding box; None where the hull fails (flat or tiny)."""
    from scipy.spatial import ConvexHull, HalfspaceIntersection, QhullError

    try:
        hull = ConvexHull(positions)
    except (QhullError, ValueError):
        return None
    lo, hi = positions.min(axis=0), positions.max(axis=0)
    box = np.array([[-1, 0, 0, lo[0]], [1, 0, 0, -hi[0]], [0, -1, 0, lo[1]], [0, 1, 0, -hi[1]],
                    [0, 0, -1, lo[2]], [0, 0, 1, -hi[2]]], dtype=np.float64)  # n . x + d <= 0 inside
    planes, areas = np.unique(np.round(hull.equations, 12), axis=0, return_inverse=True)
    facet_area = np.zeros(len(planes))
    corners = positions[hull.simplices]
    np.add.at(facet_area, areas.ravel(), 0.5 * np.linalg.norm(np.cross(corners[:, 1] - corners[:, 0],
                                                                      corners[:, 2] - corners[:, 0]), axis=1))
    order = np.argsort(-facet_area, kind="stable")  # largest facets kept first
    centre = positions[hull.vertices].mean(axis=0)
    keep = len(order)
    while True:
        halfspaces = np.concatenate([planes[order[:keep]], box])
        try:
            corners = HalfspaceIntersection(halfspaces, centre).intersections
            polytope = ConvexHull(corners)
        except (QhullError, ValueError):
            return None
        faces = _outward(corners, polytope.simplices.astype(np.int64), polytope.equations[:, :3])
        if len(faces) <= most or keep == 0:
            return corners, faces
        keep = max(0, min(keep - 1, int(keep * most / len(faces))))


def _proxy_triangles(positions: np.ndarray, indices: np.ndarray, proxy: str,
                     depth: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The triangles that stand in for one obstacle: its own, its convex hull's, its polygon-reduced copy's (at
    most ``depth`` triangles), or the boxes of an AABB tree ``depth`` levels deep over its triangles (its
    bounding box at depth 0, and where the hull fails)."""
    if proxy == "mesh":
        return positions, indices
    if proxy == "reduced":
        reduced = _reduced_hull(positions, depth)
        if reduced is not None:
            return reduced
        proxy = "hull"  # flat or tiny: as the hull would (its box)
    if proxy == "hull":
        # Imported here: scipy.spatial takes 0.4 s to import, which every program that imports the navigation
        # wing (the command line's start included) would pay for a proxy only hull bakes use.
        from scipy.spatial import ConvexHull, QhullError

        try:
            hull = ConvexHull(positions)
        except (QhullError, ValueError):  # flat or tiny: fall back to its box
            pass
        else:
            return positions, _outward(positions, hull.simplices.astype(np.int64), hull.equations[:, :3])
    leaves = _aabb_leaves(positions, indices, depth if proxy == "aabb-tree" else 0) if len(indices) \
        else [(positions.min(axis=0), positions.max(axis=0))]
    corners = np.array([[x, y, z] for lo, hi in leaves for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                        for z in (lo[2], hi[2])])
    faces = np.concatenate([BOX_FACES + 8 * n for n in range(len(leaves))])
    return corners, faces


def _outward(positions: np.ndarray, faces: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """``faces (k, 3)`` wound counter-clockwise seen from outside: Qhull's simplices come in either order, its
    facet ``normals (k, 3)`` point outward, so a face whose winding normal points against its facet's is flipped
    (a top face wound downward would be no floor to a ray from above)."""
    a, b, c = (positions[faces[:, i]] for i in range(3))
    inward = np.einsum("ij,ij->i", np.cross(b - a, c - a), normals) < 0.0
    faces = faces.copy()
    faces[inward, 1], faces[inward, 2] = faces[inward, 2], faces[inward, 1].copy()
    return faces


# Per scene object (objects never change, so a re-bake reuses what the last bake of the same object found): its
# highest point, and per proxy kind (None: its own triangles) the triangles rays meet with their x-z boxes.
# Keyed by id (objects compare by identity) in a plain dict, each entry dropped by a finalizer when its object
# dies (before its id can be reused): a re-bake looks every object up several times, and a WeakKeyDictionary's
# look-up makes a weak reference each time.
_OBJECT_CACHE: dict[int, dict[object, Any]] = {}  # "top": a float; a proxy's key: its TriangleBoxes

# What _triangle_boxes gives: positions, indices, each triangle's x-z box, the box of them all, the up components.
TriangleBoxes: TypeAlias = tuple[np.ndarray, np.ndarray, np.ndarray, tuple[float, float, float, float], np.ndarray]


def _cached(obj: SceneObject) -> dict[object, Any]:
    entry = _OBJECT_CACHE.get(id(obj))
    if entry is None:
        entry = _OBJECT_CACHE[id(obj)] = {}
        weakref.finalize(obj, _OBJECT_CACHE.pop, id(obj), None).atexit = False
    return entry


def _top(obj: SceneObject) -> float:
    """The highest y (m) of an object's vertices."""
    entry = _cached(obj)
    if "top" not in entry:
        entry["top"] = float(obj.positions[:, 1].max())
    return entry["top"]


def _triangle_boxes(obj: SceneObject, proxy: str | None, depth: int = 0) -> TriangleBoxes:
    """The triangles rays meet for ``obj`` (its own, or its obstacle proxy of kind ``proxy``, with ``depth`` the
    AABB tree's levels or the reduced copy's most triangles): positions, indices, each triangle's x-z box
    ``(x_lo, x_hi, z_lo, z_hi)``, the box of them all, and each triangle's up component (the y of its unit
    normal as wound; 0 for a degenerate one)."""
    entry = _cached(obj)
    key = (proxy, depth) if proxy in ("aabb-tree", "reduced") else proxy
    found = entry.get(key)
    if found is None:
        own = proxy is None or proxy == "mesh"
        p, t = (obj.positions, obj.indices) if proxy is None else \
            _proxy_triangles(obj.positions, obj.indices, proxy, depth)
        p, t = np.ascontiguousarray(p, dtype=np.float64), np.ascontiguousarray(t, dtype=np.int64)
        boxes, whole, up = triangle_boxes(p, t)
        found = (p, t, boxes, tuple(whole.tolist()), up)
        # A proxy is kept (a hull or a tree costs milliseconds); an object's own triangles are not: one kernel pass
        # makes their boxes again, and what rays meet of them is kept beside (the rays' rows), so keeping these
        # too held a third of the rows' memory again for nothing (issue 34).
        if not own:
            entry[key] = found
    return found
