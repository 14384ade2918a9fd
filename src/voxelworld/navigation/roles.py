"""Step 0 of a bake: what each object of a scene is to the rays (floor, obstacle, exception; an ``"auto"``
object or a low obstacle by where it stands: :func:`bake_roles`), and the checks of a bake's inputs."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import NamedTuple, TypeVar

import numpy as np

from ..errors import ParameterError
from .proxies import _cached, _top
from .scene import Scene, SceneObject
from .settings import NavSettings, SearchRegion

__all__ = ["BakeRoles", "bake_roles", "check_bake_input"]

_T = TypeVar("_T")


def _bounds(obj: SceneObject) -> tuple[np.ndarray, np.ndarray]:
    """The box ``(lo, hi)`` (m) of an object's vertices."""
    entry = _cached(obj)
    if "bounds" not in entry:
        entry["bounds"] = (obj.positions.min(axis=0), obj.positions.max(axis=0))
    return entry["bounds"]


_NO_BOX = (np.nan,) * 6


def _box_row(obj: SceneObject) -> tuple[float, ...]:
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


def _reaches(obj: SceneObject, region: SearchRegion) -> bool:
    """Whether the bounding box of ``obj`` meets ``region``'s box."""
    low, high = _bounds(obj)
    return bool(np.all(low <= np.array(region.max)) and np.all(high >= np.array(region.min)))


def _triangle_bounds(obj: SceneObject) -> tuple[np.ndarray, np.ndarray]:
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


def _remembered(obj: SceneObject, name: str, others: list[SceneObject], extra: object, compute: Callable[[], _T]) -> _T:
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


def _highest_under(obj: SceneObject, others: list[SceneObject], base: float) -> float:
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


def _inside_region(obj: SceneObject, region: SearchRegion) -> bool:
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


def _over_others(obj: SceneObject, others: list[SceneObject], landing: SearchRegion | None) -> bool:
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
_ROLE_CACHE: weakref.WeakKeyDictionary[Scene, dict[tuple[SearchRegion, bool, float, str], BakeRoles]] = \
    weakref.WeakKeyDictionary()


def bake_roles(scene: Scene, region: SearchRegion, settings: NavSettings) -> BakeRoles:
    """What the bake of ``region`` makes of each object of ``scene``, and whether the region's landing face is on.

    - ``"exception"`` objects are transparent; ``"floor"`` objects are floor.
    - An ``"obstacle"`` object is an obstacle if it rises more than ``settings.obstacle_height`` (by default the
      agent's step limit) above the surface under it (the other objects' triangles below its lowest point within
      its x-z box, else the region's base), else a low obstacle: floor (by default: walked on), or transparent
      with ``low_obstacles="transparent"``.
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
    key = (region, settings.auto_obstacles, settings.obstacle_height, settings.low_obstacles)
    known = _ROLE_CACHE.setdefault(scene, {})
    if key in known:
        return known[key]
    base = float(region.min[1])
    boxes = _SceneBoxes.of(scene)

    def standing(index: int) -> str:  # an obstacle that stands on something: by its height above it
        if _top(scene.objects[index]) - _ground_under(scene, index, base, boxes) > settings.obstacle_height:
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


def check_bake_input(scene: object, region: object, settings: object) -> None:
    if not isinstance(scene, Scene):
        raise ParameterError("scene", scene, "a voxelworld.navigation.Scene")
    if not isinstance(region, SearchRegion):
        raise ParameterError("region", region, "a voxelworld.navigation.SearchRegion")
    if not isinstance(settings, NavSettings):
        raise ParameterError("settings", settings, "a voxelworld.navigation.NavSettings")
    if region.turned:
        raise ParameterError("rotation", region.rotation, "(0, 0, 0, 1) here: rays are cast in a region's own "
                             "frame, which bake() and walkable_layers() turn a turned region's scene into")
    # (ray_direction is None only as a constructor's argument: a SearchRegion made holds its direction)
    if region.ray_direction is None or not all(abs(a - b) <= 1e-8 + 1e-5 * abs(b)
                                               for a, b in zip(region.ray_direction, (0.0, -1.0, 0.0))):
        raise ParameterError("ray_direction", region.ray_direction, "(0, -1, 0): the baker casts rays straight down")
