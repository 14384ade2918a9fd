"""Step 1 of a bake: vertical rays through a scene, and the surfaces they meet.

A region's rays form a square grid of *columns* (spacing ``settings.cell_size``) falling from its top face to
its bottom through the floors and the obstacles' proxies (exception objects are transparent; obstacles rising
no more than ``obstacle_min_height`` above the surface under them are transparent too, or floor with
``low_obstacles="floor"``; objects of role ``"auto"`` are obstacles or floor by the vertex-in-region rule:
:func:`bake_roles`). What a ray meets is read as
*surfaces*: at (about) the same height, one per facing, a surface facing down before one facing up (a box's
bottom at a floor's height covers that floor), and a surface met twice (a ray through the edge two triangles
share) counts once. A ray that meets nothing lands on the region's bottom face when its ``landing`` is on
(:class:`~voxelworld.navigation.SearchRegion`: by default, when no floor reaches into the region).

Every function here also works on a *block* of columns: :class:`RayScene` holds only the triangles that can meet
the block's cells, kept in scene order, so a block's rays meet exactly what the same rays of the whole grid
meet, in the same order. That is what lets a re-bake redo a few tiles and match a full bake bit for bit.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..errors import ParameterError
from ._kernels.columns import bin_triangles, triangle_boxes, vertical_hits
from ._kernels.proxies import clipped_bounds
from ._kernels.surfaces import enclosures, surfaces
from .scene import Scene
from .areas import BakeArea, area_of, check_bake_size, grid_shape
from .settings import NavSettings, SearchRegion

__all__ = ["RayHitsGrid", "RayScene", "BakeRoles", "bake_roles", "cast_rays", "column_surfaces"]


@dataclass(frozen=True)
class RayHitsGrid:
    """Every hit of a block of a region's ray grid: ray ``r`` is column ``(i0 + r // nz, k0 + r % nz)`` of the
    region's grid, whose centre is at ``(x0 + (i + 0.5) * cell, z0 + (k + 0.5) * cell)``; hits sorted by ray,
    then from the top down (then by triangle, in scene order)."""

    x0: float
    z0: float
    cell: float
    nx: int
    nz: int
    ray: np.ndarray  # (K,) int64
    height: np.ndarray  # (K,) float64, world y of the hit (m)
    up: np.ndarray  # (K,) float64: the y component of the hit triangle's unit normal as wound (> 0: faces up)
    exclusion: np.ndarray  # (K,) bool: the hit is on an obstacle's proxy
    i0: int = 0  # the block's first column along x
    k0: int = 0  # the block's first column along z


def _bounds(obj) -> tuple[np.ndarray, np.ndarray]:
    """The box ``(lo, hi)`` (m) of an object's vertices."""
    entry = _cached(obj)
    if "bounds" not in entry:
        entry["bounds"] = (obj.positions.min(axis=0), obj.positions.max(axis=0))
    return entry["bounds"]


_NO_BOX = (np.nan,) * 6


def _box_row(obj) -> tuple[float, ...]:
    """An object's box as ``(lo..., hi...)`` floats (m), NaN for an object rays never meet (an exception, or
    without triangles): its row of :class:`_SceneBoxes`, kept with the object."""
    if obj.role == "exception" or not len(obj.indices):
        return _NO_BOX
    entry = _cached(obj)
    row = entry.get("box_row")
    if row is None:
        low, high = _bounds(obj)
        row = entry["box_row"] = tuple(low.tolist()) + tuple(high.tolist())
    return row


def _reaches(obj, region: SearchRegion) -> bool:
    """Whether the bounding box of ``obj`` meets ``region``'s box."""
    low, high = _bounds(obj)
    return bool(np.all(low <= np.array(region.max)) and np.all(high >= np.array(region.min)))


def _triangle_bounds(obj) -> tuple[np.ndarray, np.ndarray]:
    """Each triangle's box ``(lo (m, 3), hi (m, 3))`` (m) of an object."""
    entry = _cached(obj)
    if "triangle_bounds" not in entry:
        corners = obj.positions[obj.indices]
        entry["triangle_bounds"] = (corners.min(axis=1), corners.max(axis=1))
    return entry["triangle_bounds"]


class _SceneBoxes(NamedTuple):
    """The bounding boxes of a scene's objects that rays can meet (not exceptions, with triangles), as arrays:
    ``lo``, ``hi`` (n, 3) in scene order (NaN for the others, which no comparison selects)."""

    lo: np.ndarray
    hi: np.ndarray

    @classmethod
    def of(cls, scene: Scene) -> _SceneBoxes:
        rows = np.array([_box_row(obj) for obj in scene], dtype=np.float64).reshape(-1, 6)
        return cls(rows[:, :3], rows[:, 3:])

    def others_under(self, index: int, below: float) -> np.ndarray:
        """The objects other than ``index`` whose box meets its x-z box and reaches down to ``below`` (m)."""
        lo, hi = self.lo[index], self.hi[index]
        meets = (self.lo[:, 0] <= hi[0]) & (self.hi[:, 0] >= lo[0]) & (self.lo[:, 2] <= hi[2]) \
            & (self.hi[:, 2] >= lo[2]) & (self.lo[:, 1] <= below)
        meets[index] = False
        return np.flatnonzero(meets)


def _remembered(obj, name: str, others: list, extra, compute):
    """``compute()``, or what it gave for ``obj`` the last time, if that was with the same ``others`` (the objects
    it read, by identity: objects never change) and ``extra``: a re-bake's new scene re-reads only the objects a
    change reaches. The others are held by weak references, so that a cache entry keeps no object alive."""
    entry = _cached(obj)
    saved = entry.get(name)
    if saved is not None and saved[1] == extra and len(saved[0]) == len(others) \
            and all(ref() is other for ref, other in zip(saved[0], others)):
        return saved[2]
    result = compute()
    entry[name] = ([weakref.ref(other) for other in others], extra, result)
    return result


def _ground_under(scene: Scene, index: int, base: float, boxes: _SceneBoxes) -> float:
    """The height (m) of the surface under object ``index``: the highest point, up to the object's lowest vertex,
    of the other (not exception) objects' triangles that reach below that vertex within the object's x-z box;
    ``base`` (the region's) if none does or all lie lower."""
    obj = scene.objects[index]
    lo = _bounds(obj)[0]
    others = [scene.objects[i] for i in boxes.others_under(index, float(lo[1]))]
    return _remembered(obj, "ground_under", others, base, lambda: _highest_under(obj, others, base))


def _highest_under(obj, others: list, base: float) -> float:
    lo, hi = _bounds(obj)
    ground = base
    for other in others:
        t_lo, t_hi = _triangle_bounds(other)
        under = (t_lo[:, 0] <= hi[0]) & (t_hi[:, 0] >= lo[0]) & (t_lo[:, 2] <= hi[2]) & (t_hi[:, 2] >= lo[2]) \
            & (t_lo[:, 1] <= lo[1])
        if under.any():
            ground = max(ground, min(float(t_hi[under, 1].max()), float(lo[1])))
    return ground


# Relative slack of the vertex-in-region rule's tests: barycentric coordinates this far below 0 still count as
# inside a triangle (a crate's corner on the ground's diagonal), heights this far (per metre) above a top as below.
SUPPORT_SLACK = 1e-9
_SUPPORT_VERTICES, _SUPPORT_TRIANGLES = 64, 4096  # block sizes of the support test: 64 x 4096 pairs at a time


def _inside_region(obj, region: SearchRegion) -> bool:
    """Whether at least one vertex of ``obj`` lies inside ``region``'s box (its faces included)."""
    p = obj.positions
    return bool(np.any(np.all((p >= np.array(region.min)) & (p <= np.array(region.max)), axis=1)))


def _stands_on_something(scene: Scene, index: int, landing: SearchRegion | None, boxes: _SceneBoxes) -> bool:
    """Whether every vertex of object ``index`` (``obj``) lies over another (not exception) object's triangle that
    is no higher there than ``obj``'s top: its x-z position inside the triangle's shadow, the triangle's height at
    it at most the top (so ground a crate is sunk into supports it; a roof above it does not), or, when ``landing``
    is a region whose landing face is on and ``obj`` rests on that face (its lowest point at or below the region's
    bottom), inside the region's x-z box. A ground plane, a terrain or a level mesh has nothing under its edges, so
    it stands on nothing; a floor above the landing face does not rest on it."""
    obj = scene.objects[index]
    top = float(_bounds(obj)[1][1])
    others = [scene.objects[i] for i in boxes.others_under(index, top + SUPPORT_SLACK * (1.0 + abs(top)))]
    face = None if landing is None else (landing.min, landing.max)
    return _remembered(obj, "stands_on", others, face, lambda: _over_others(obj, others, landing))


def _over_others(obj, others: list, landing: SearchRegion | None) -> bool:
    """The test of :func:`_stands_on_something` against the objects ``others`` that may lie under ``obj``."""
    lo, hi = _bounds(obj)
    top = float(hi[1])
    top_slack = top + SUPPORT_SLACK * (1.0 + abs(top))
    points = obj.positions
    if landing is not None and lo[1] <= landing.min[1] + SUPPORT_SLACK * (1.0 + abs(landing.min[1])):
        over = (points[:, 0] >= landing.min[0]) & (points[:, 0] <= landing.max[0]) & \
            (points[:, 2] >= landing.min[2]) & (points[:, 2] <= landing.max[2])
        points = points[~over]
    xz = np.unique(points[:, [0, 2]], axis=0)
    if not len(xz):
        return True
    centre = 0.5 * (lo[[0, 2]] + hi[[0, 2]])
    xz = xz[np.argsort(-np.hypot(*(xz - centre).T), kind="stable")]  # the outermost first: the likeliest to fail
    corners = []
    for other in others:
        t_lo, t_hi = _triangle_bounds(other)
        near = (t_lo[:, 0] <= hi[0]) & (t_hi[:, 0] >= lo[0]) & (t_lo[:, 2] <= hi[2]) & (t_hi[:, 2] >= lo[2]) \
            & (t_lo[:, 1] <= top_slack)
        if near.any():
            corners.append(other.positions[other.indices[near]])
    if not corners:
        return False
    a, b, c = (corner.T for corner in np.concatenate(corners).transpose(1, 0, 2))  # each (3, k)
    shadow = (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2])  # twice the x-z area, signed
    flat = shadow != 0.0  # a wall's shadow is a line: nothing stands on it
    a, b, c, shadow = a[:, flat], b[:, flat], c[:, flat], shadow[flat]
    for start in range(0, len(xz), _SUPPORT_VERTICES):
        x, z = (xz[start:start + _SUPPORT_VERTICES, axis, None] for axis in (0, 1))
        supported = np.zeros(len(x), dtype=bool)
        for first in range(0, len(shadow), _SUPPORT_TRIANGLES):
            part = slice(first, first + _SUPPORT_TRIANGLES)
            ta, tb, tc, area = a[:, part], b[:, part], c[:, part], shadow[part]
            wb = ((x - ta[0]) * (tc[2] - ta[2]) - (tc[0] - ta[0]) * (z - ta[2])) / area
            wc = ((tb[0] - ta[0]) * (z - ta[2]) - (x - ta[0]) * (tb[2] - ta[2])) / area
            wa = 1.0 - wb - wc
            inside = (wa >= -SUPPORT_SLACK) & (wb >= -SUPPORT_SLACK) & (wc >= -SUPPORT_SLACK)
            height = wa * ta[1] + wb * tb[1] + wc * tc[1]
            supported |= (inside & (height <= top_slack)).any(axis=1)
            if supported.all():
                break
        if not supported.all():
            return False
    return True


class BakeRoles(NamedTuple):
    """What a bake makes of each object of a scene in one region (:func:`bake_roles`).

    Attributes
    ----------
    roles : tuple of str
        Per object, in scene order: ``"floor"`` (rays land on its triangles), ``"obstacle"`` (rays meet its
        proxy, an exclusion region) or ``"transparent"`` (rays pass through it: exceptions, low obstacles, objects
        without triangles).
    landing : bool
        Whether the region's bottom face is a landing surface.
    """

    roles: tuple[str, ...]
    landing: bool


# Per scene, per (region, the settings that decide roles): its BakeRoles (a re-bake asks for every block).
_ROLE_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def bake_roles(scene: Scene, region: SearchRegion, settings: NavSettings) -> BakeRoles:
    """What the bake of ``region`` makes of each object of ``scene``, and whether the region's landing face is on.

    - ``"exception"`` objects are transparent; ``"floor"`` objects are floor.
    - An ``"obstacle"`` object is an obstacle if it rises more than ``settings.obstacle_min_height`` above the
      surface under it (the other objects' triangles below its lowest point within its x-z box, else the
      region's base), else a low obstacle: transparent, or floor with ``low_obstacles="floor"``.
    - An ``"auto"`` object follows the vertex-in-region rule (``settings.auto_obstacles``, on by default): with
      a vertex inside the region, standing on something (every vertex over another object's triangle no higher
      than its top, or, for an object resting on the region's landing face, over that face) it is what an
      ``"obstacle"`` object would be; otherwise (or with ``auto_obstacles=False``) it is floor.
    - The landing face is ``region.landing``, or when that is None, on when no floor object (given as floor, or
      ``"auto"`` and floor without a landing face) has a bounding box that meets the region.

    Examples
    --------
    >>> from voxelworld.navigation import NavSettings, Scene, SearchRegion
    >>> box = [[x, y, z] for x in (3, 4) for y in (0, 1) for z in (3, 4)]
    >>> faces = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
    ...          [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    >>> scene = Scene().with_object("ground", [[0, 0, 0], [8, 0, 0], [8, 0, 8], [0, 0, 8]], [[0, 2, 1], [0, 3, 2]])
    >>> scene = scene.with_object("crate", box, faces).with_object("far_crate", [[x + 20, y, z] for x, y, z in box],
    ...                                                            faces)
    >>> bake_roles(scene, SearchRegion((0, -1, 0), (8, 3, 8)), NavSettings())
    BakeRoles(roles=('floor', 'obstacle', 'floor'), landing=False)
    """
    check_bake_input(scene, region, settings)
    key = (region, settings.auto_obstacles, settings.obstacle_min_height, settings.low_obstacles)
    known = _ROLE_CACHE.setdefault(scene, {})
    if key in known:
        return known[key]
    base = float(region.min[1])
    boxes = _SceneBoxes.of(scene)

    def standing(index: int) -> str:  # an obstacle that stands on something: by its height above it
        if _top(scene.objects[index]) - _ground_under(scene, index, base, boxes) > settings.obstacle_min_height:
            return "obstacle"
        return "transparent" if settings.low_obstacles == "transparent" else "floor"

    roles: list[str | None] = []
    for index, obj in enumerate(scene):
        if obj.role == "exception" or not len(obj.indices):
            roles.append("transparent")
        elif obj.role == "obstacle":
            roles.append(standing(index))
        elif obj.role == "floor" or not settings.auto_obstacles or not _inside_region(obj, region):
            roles.append("floor")
        else:  # "auto", in the region: an obstacle if it stands on other objects; None: only on the landing face
            roles.append(standing(index) if _stands_on_something(scene, index, None, boxes) else None)
    landing = region.landing
    if landing is None:
        landing = not any(role in ("floor", None) and obj.role in ("floor", "auto") and _reaches(obj, region)
                          for obj, role in zip(scene, roles))
    for index in range(len(scene)):
        if roles[index] is None:
            roles[index] = standing(index) if landing and _stands_on_something(scene, index, region, boxes) \
                else "floor"
    known[key] = BakeRoles(tuple(roles), bool(landing))  # type: ignore[arg-type]
    return known[key]


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
_OBJECT_CACHE: dict[int, dict] = {}


def _cached(obj) -> dict:
    entry = _OBJECT_CACHE.get(id(obj))
    if entry is None:
        entry = _OBJECT_CACHE[id(obj)] = {}
        weakref.finalize(obj, _OBJECT_CACHE.pop, id(obj), None).atexit = False
    return entry


def _top(obj) -> float:
    """The highest y (m) of an object's vertices."""
    entry = _cached(obj)
    if "top" not in entry:
        entry["top"] = float(obj.positions[:, 1].max())
    return entry["top"]


def _triangle_boxes(obj, proxy: str | None, depth: int = 0):
    """The triangles rays meet for ``obj`` (its own, or its obstacle proxy of kind ``proxy``, with ``depth`` the
    AABB tree's levels or the reduced copy's most triangles): positions, indices, each triangle's x-z box
    ``(x_lo, x_hi, z_lo, z_hi)``, the box of them all, and each triangle's up component (the y of its unit
    normal as wound; 0 for a degenerate one)."""
    entry = _cached(obj)
    key = (proxy, depth) if proxy in ("aabb-tree", "reduced") else proxy
    if key not in entry:
        p, t = (obj.positions, obj.indices) if proxy is None else \
            _proxy_triangles(obj.positions, obj.indices, proxy, depth)
        p, t = np.ascontiguousarray(p, dtype=np.float64), np.ascontiguousarray(t, dtype=np.int64)
        boxes, whole, up = triangle_boxes(p, t)
        entry[key] = (p, t, boxes, tuple(whole.tolist()), up)
    return entry[key]


def check_bake_input(scene, region, settings) -> None:
    if not isinstance(scene, Scene):
        raise ParameterError("scene", scene, "a voxelworld.navigation.Scene")
    if not isinstance(region, SearchRegion):
        raise ParameterError("region", region, "a voxelworld.navigation.SearchRegion")
    if not isinstance(settings, NavSettings):
        raise ParameterError("settings", settings, "a voxelworld.navigation.NavSettings")
    if region.turned:
        raise ParameterError("rotation", region.rotation, "(0, 0, 0, 1) here: rays are cast in a region's own "
                             "frame, which bake() and walkable_layers() turn a turned region's scene into")
    if not all(abs(a - b) <= 1e-8 + 1e-5 * abs(b) for a, b in zip(region.ray_direction, (0.0, -1.0, 0.0))):
        raise ParameterError("ray_direction", region.ray_direction, "(0, -1, 0): the baker casts rays straight down")


class _RegionRays:
    """The triangles that the rays of one region can meet over a box of cells ``x_lo..x_hi``, ``z_lo..z_hi``
    (m), binned by the cells of ``grid = (x0, z0, cell, nx, nz)``, with each one's up component and whether it
    belongs to an obstacle's proxy, as the region's roles make the objects."""

    def __init__(self, scene: Scene, region: SearchRegion, settings: NavSettings, grid):
        x_lo, z_lo, cell, nx, nz = grid
        x_hi, z_hi = x_lo + nx * cell, z_lo + nz * cell  # the cells, corners included
        self.region = region
        positions, indices, boxes, up, exclusion = [], [], [], [], []
        count = 0
        roles = bake_roles(scene, region, settings)
        self.landing = roles.landing
        proxy = settings.exclusion_proxy
        depth = settings.proxy_triangles if proxy == "reduced" else settings.aabb_depth
        proxy_key = (proxy, depth) if proxy in ("aabb-tree", "reduced") else proxy
        for obj, role in zip(scene, roles.roles):
            if role == "transparent":
                continue  # exceptions, and low obstacles: rays pass on to the ground beneath
            is_obstacle = role == "obstacle"
            entry = _OBJECT_CACHE.get(id(obj))  # what _triangle_boxes keeps, looked up without a call
            found = entry.get(proxy_key if is_obstacle else None) if entry is not None else None
            if found is None:
                found = _triangle_boxes(obj, proxy if is_obstacle else None, depth)
            p, t, box, (ox_lo, ox_hi, oz_lo, oz_hi), facing = found
            if ox_lo > x_hi or ox_hi < x_lo or oz_lo > z_hi or oz_hi < z_lo:
                continue  # no triangle of it can meet the block
            positions.append(p)
            indices.append(t + count if count else t)
            boxes.append(box)
            up.append(facing)
            exclusion.append((len(t), is_obstacle))
            count += len(p)
        # The candidates' triangles as one set, then those whose box meets the block's cells (scene order kept;
        # vertices of triangles left out stay in ``positions``, unread).
        if positions:
            box = np.concatenate(boxes) if len(boxes) > 1 else boxes[0]
            meets = (box[:, 0] <= x_hi) & (box[:, 1] >= x_lo) & (box[:, 2] <= z_hi) & (box[:, 3] >= z_lo)
            self.positions = np.concatenate(positions)  # a copy: the objects' own arrays are read-only
            self.indices = (np.concatenate(indices) if len(indices) > 1 else indices[0])[meets]
            self.up = (np.concatenate(up) if len(up) > 1 else up[0])[meets]
            self.proxy = np.repeat(np.array([flag for _, flag in exclusion], dtype=bool),
                                   [n for n, _ in exclusion])[meets]
            box = box[meets]
        else:
            self.positions, self.indices = np.empty((0, 3)), np.empty((0, 3), dtype=np.int64)
            self.up, self.proxy, box = np.empty(0), np.empty(0, dtype=bool), np.empty((0, 4))
        self._grid = (float(x_lo), float(z_lo), float(cell), int(nx), int(nz))
        self._bins = bin_triangles(np.ascontiguousarray(box), *self._grid)

    def cast(self, x: np.ndarray, z: np.ndarray):
        """Every hit of vertical rays at ``(x[r], z[r])`` (inside the grid's cells) from the region's top to its
        bottom (see :meth:`RayScene.cast`)."""
        lo, hi = self.region.min[1], self.region.max[1]
        ray, distance, triangle = vertical_hits(self.positions, self.indices, *self._bins, *self._grid,
                                                np.ascontiguousarray(x, dtype=np.float64),
                                                np.ascontiguousarray(z, dtype=np.float64), hi, hi - lo)
        height, up, proxy = hi - distance, self.up[triangle], self.proxy[triangle]
        if self.landing:  # a ray that met nothing lands on the region's bottom face, facing up
            met = np.zeros(len(x), dtype=bool)
            met[ray] = True
            empty = np.flatnonzero(~met)
            order = np.argsort(np.concatenate([ray, empty]), kind="stable")
            ray = np.concatenate([ray, empty])[order]
            height = np.concatenate([height, np.full(len(empty), float(lo))])[order]
            up = np.concatenate([up, np.ones(len(empty))])[order]
            proxy = np.concatenate([proxy, np.zeros(len(empty), dtype=bool)])[order]
        return ray, height, up, proxy


class RayScene:
    """The triangles that rays over a block of an area's columns (:mod:`~voxelworld.navigation.areas`: one
    region, or several baked as one) can meet, per region owning columns of the block, binned by the block's
    cells. ``block = (i0, k0, i1, k1)``: columns ``[i0, i1) x [k0, k1)``, the whole grid when None."""

    def __init__(self, scene: Scene, area: SearchRegion | BakeArea, settings: NavSettings, block=None):
        for region in area.regions if isinstance(area, BakeArea) else (area,):
            check_bake_input(scene, region, settings)
        area = area_of(area, settings)
        nx, nz = area.nx, area.nz
        i0, k0, i1, k1 = (0, 0, nx, nz) if block is None else block
        if not (0 <= i0 < i1 <= nx and 0 <= k0 < k1 <= nz):
            raise ParameterError("block", block, f"(i0, k0, i1, k1) with 0 <= i0 < i1 <= {nx}, 0 <= k0 < k1 <= {nz}")
        self.area, self.settings, self.block = area, settings, (i0, k0, i1, k1)
        cell = settings.cell_size
        grid = (area.x0 + i0 * cell, area.z0 + k0 * cell, cell, i1 - i0, k1 - k0)
        owners = np.unique(area.owner[i0:i1, k0:k1])
        self._regions = {int(n): _RegionRays(scene, area.regions[n], settings, grid) for n in owners if n >= 0}

    def cast(self, x: np.ndarray, z: np.ndarray):
        """Every hit of vertical rays at ``(x[r], z[r])`` (inside the block's cells) from the top of the region
        owning the point's column to its bottom (none in a column outside the regions), sorted by ray, then from
        the top down (then by triangle, in scene order): ray, height (m), the hit triangle's up component, and
        whether it is on a proxy (see ``_kernels/columns.py``)."""
        x, z = np.ascontiguousarray(x, dtype=np.float64), np.ascontiguousarray(z, dtype=np.float64)
        area = self.area
        if len(area.regions) == 1:  # every column is the region's
            return self._regions[0].cast(x, z)
        i = np.clip(np.floor((x - area.x0) / area.cell).astype(np.int64), 0, area.nx - 1)
        k = np.clip(np.floor((z - area.z0) / area.cell).astype(np.int64), 0, area.nz - 1)
        owner = area.owner[i, k]
        parts = []
        for n, rays in self._regions.items():
            mine = np.flatnonzero(owner == n)
            if len(mine):
                ray, height, up, proxy = rays.cast(x[mine], z[mine])
                parts.append((mine[ray], height, up, proxy))
        if not parts:
            return np.empty(0, np.int64), np.empty(0), np.empty(0), np.empty(0, bool)
        ray, height, up, proxy = (np.concatenate(column) for column in zip(*parts))
        order = np.argsort(ray, kind="stable")  # a ray's hits all come from one region, in order
        return ray[order], height[order], up[order], proxy[order]

    def cast_columns(self, columns=None) -> RayHitsGrid:
        """The hits of the column rays (one through each cell's centre) of the block, or of the columns
        ``(i0, k0, i1, k1)`` inside it."""
        i0, k0, i1, k1 = self.block if columns is None else columns
        b0, c0, b1, c1 = self.block
        if not (b0 <= i0 < i1 <= b1 and c0 <= k0 < k1 <= c1):
            raise ParameterError("columns", columns, f"(i0, k0, i1, k1) inside the block {self.block}")
        cell, x0, z0 = self.settings.cell_size, float(self.area.x0), float(self.area.z0)
        i, k = np.meshgrid(np.arange(i0, i1), np.arange(k0, k1), indexing="ij")
        ray, height, up, excluded = self.cast(x0 + (i.ravel() + 0.5) * cell, z0 + (k.ravel() + 0.5) * cell)
        return RayHitsGrid(x0, z0, cell, i1 - i0, k1 - k0, ray, height, up, excluded, i0, k0)


def cast_rays(scene: Scene, region: SearchRegion, settings: NavSettings, block=None) -> RayHitsGrid:
    """Step 1: every hit of the region's ray grid (or of a block ``(i0, k0, i1, k1)`` of its columns) on floors
    and obstacle proxies. Objects partly outside the region count only inside it: rays start at its top, stop
    at its bottom and cover only its x-z extent."""
    return RayScene(scene, region, settings, block).cast_columns()


def column_surfaces(ray: np.ndarray, height: np.ndarray, up: np.ndarray, excluded: np.ndarray):
    """The surfaces each ray met (see the module's docstring), from hits sorted by ray, then from the top down,
    with each surface's *ceiling* (the height of the surface above it on its ray, inf where none) and
    *enclosure* (how many closed solids it lies in: pairs of a surface above it facing up, where the ray
    enters a solid, and the next unpaired surface below it facing down, where it leaves; a lone up-facing plane
    encloses nothing). Returns ray, height, up, excluded, ceiling, enclosure of the surfaces."""
    index = np.empty(len(ray), dtype=np.int64)
    on_proxy = np.empty(len(ray), dtype=np.bool_)
    n = surfaces(np.ascontiguousarray(ray, np.int64), np.ascontiguousarray(height, np.float64),
                 np.ascontiguousarray(up, np.float64), np.ascontiguousarray(excluded, np.bool_), index, on_proxy)
    index = index[:n]
    ray, height, up, excluded = ray[index], height[index], up[index], on_proxy[:n]
    ceiling = np.full(n, np.inf)
    same = np.zeros(n, dtype=bool)
    same[1:] = ray[1:] == ray[:-1]
    ceiling[same] = height[np.flatnonzero(same) - 1]
    enclosure = np.zeros(n, dtype=np.int64)
    enclosures(np.ascontiguousarray(ray, np.int64), np.ascontiguousarray(height, np.float64),
               np.ascontiguousarray(up, np.float64), enclosure)
    return ray, height, up, excluded, ceiling, enclosure
