"""Settings of a navmesh bake, and the boxes (search regions) a bake covers.

:class:`NavSettings` holds every parameter of the bake in world units (metres, degrees), each checked on
construction; :meth:`NavSettings.from_recast` builds one from the parameters Recast users know.
:class:`SearchRegion` is a box placed in the scene: the rays of a bake start from it and only what lies inside
it counts.

Both are frozen dataclasses: change a field with :func:`dataclasses.replace`, which checks the new value too.

Examples
--------
>>> from dataclasses import replace
>>> from voxelworld.navigation import NavSettings, SearchRegion
>>> settings = NavSettings.from_recast(cell_size=0.3, agent_height=2.0, agent_radius=0.6, agent_max_climb=0.9,
...                                    agent_max_slope=45.0, region_min_size=8)
>>> round(settings.ray_density, 2), round(settings.cell_size, 3), round(settings.min_region_area, 2)
(11.11, 0.3, 5.76)
>>> replace(settings, levels=True).levels
True
>>> SearchRegion((0, 0, 0), (10, 3, 10)).ray_direction
(0.0, -1.0, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ..errors import ParameterError, check_finite, check_integer, check_point, check_range
from .frames import IDENTITY, check_rotation, down_axis, shortest_arc

__all__ = ["EXCLUSION_PROXIES", "NavSettings", "SearchRegion", "MAX_BAKE_COLUMNS", "BAKE_BYTES_PER_COLUMN",
           "MAX_AGENT_RADIUS", "MAX_JUMP_GAP", "MAX_POLYGON_CORNERS"]

EXCLUSION_PROXIES = ("aabb-tree", "hull", "mesh", "reduced")
# The size limit of a bake: the ray columns of all its regions (a region of sx by sz metres has about
# sx * sz * ray_density). A bake keeps, per column, its hits, samples, links and layers for re-baking: measured,
# about 190 bytes a column on one level and 300 on two; BAKE_BYTES_PER_COLUMN rounds that up for the estimate a
# refused bake reports. MAX_BAKE_COLUMNS (4096 x 4096 rays: a 1.2 km square at the default 0.3 m grid) is
# about 6 GiB, a quarter of the 24 GiB machine the project is built on.
MAX_BAKE_COLUMNS = 4096 * 4096
# m: the widest agent a bake erodes for (erosion relaxes the walkable area once per cell of the radius, so an
# absurd radius, e.g. from a forged file, would run for ever); far beyond any character or vehicle.
MAX_AGENT_RADIUS = 100.0
# m: the widest gap a drop link crosses (its landing is looked for that far out, column by column), as wide.
MAX_JUMP_GAP = 100.0
BAKE_BYTES_PER_COLUMN = 400

# The most corners a navmesh polygon may have: the bake sizes its scratch by it (a forged setting of 2**53 asked for
# memory without end), and merges stop paying long before (nav_test: docs/navigation.md gives the counts).
MAX_POLYGON_CORNERS = 32


@dataclass(frozen=True)
class NavSettings:
    """Every parameter of a navmesh bake, in world units; each is checked on construction.

    Parameters
    ----------
    ray_density : float
        Rays per m² (> 0) cast from a search region's top face; they form a square grid whose spacing is
        :attr:`cell_size`. Default 11.1 (a 0.3 m grid).
    step_limit : float
        Metres (>= 0): the largest height difference between neighbouring samples that an agent steps over.
    clearance : float
        Metres (> 0): the agent's height, the free space a sample needs above it to be walkable.
    agent_radius : float
        Metres (0 .. ``MAX_AGENT_RADIUS``, 100): the walkable area shrinks by this much away from walls and
        drops.
    max_slope : float
        Degrees in [0, 90]: the steepest ground that is still walkable.
    obstacle_min_height : float or None
        Metres (>= 0): only obstacles rising more than this above the surface under them (the highest point of
        the other objects' triangles below the obstacle's lowest point within its footprint, else the region's
        base) get exclusion regions; 0 means every obstacle that rises above what it stands on. None (the
        default): the agent's ``step_limit``, so an obstacle the agent steps onto (a mat, a low step) does not cut
        its footprint out of the navmesh (``obstacle_height`` gives the value in use).
    low_obstacles : {"floor", "transparent"}
        What an obstacle no higher than ``obstacle_min_height`` is: floor (its top is walkable ground: walked on,
        never through; the default) or transparent to the rays (they pass on to the ground beneath, so agents
        walk through it). An ``"auto"`` object that stands on something but rises no higher is the same.
    auto_obstacles : bool
        The vertex-in-region rule for scene objects of role ``"auto"`` (the default role: undesignated objects).
        True (default): such an object is an obstacle when it has a vertex inside the search region, stands on
        other objects (every vertex of it lies over another object's triangle no higher than its own top, or over
        the region's landing face when that is on) and rises more than ``obstacle_min_height`` above the surface
        under it; one that stands on something but is lower is a low obstacle (``low_obstacles``); any other is
        floor (a ground plane, a terrain or a level mesh: nothing lies under its edges). False: every ``"auto"``
        object is floor. Roles given explicitly (``"floor"``, ``"obstacle"``, ``"exception"``) always win.
    exclusion_proxy : {"aabb-tree", "hull", "mesh", "reduced"}
        The volume that stands in for an obstacle: a tree of boxes, its convex hull, its own triangles, or its
        polygon-reduced copy (a convex polytope of at most ``proxy_triangles`` triangles that encloses it).
    aabb_depth : int
        Levels (0..16) of the ``"aabb-tree"`` proxy: each level halves a box across its longer side in x-z and
        fits each half to the object's surface in it, so the leaves fit the object closer (0: its bounding box).
        Default 3 (up to 8 boxes).
    proxy_triangles : int
        The most triangles (12..100000) of the ``"reduced"`` proxy. Default 32.
    max_corners : int
        The most corners a navmesh polygon may have (3..``MAX_POLYGON_CORNERS``, 32; Detour's default is 6);
        polygons are convex.
    max_edge_error : float
        Metres (>= 0; Recast's ``maxSimplificationError``): how far a polygon's side along a wall may lie from
        the traced outline of the walkable cells. Default 0.3 (a cell at the default density); 0 keeps the
        outline exact (cells' sides).
    levels : bool
        False: hits on exclusion regions are removed and the ground under obstacles is cut out. True: samples
        are grouped by height, and each level is kept, so a table top becomes walkable on its own.
    min_region_area : float
        m² (>= 0): islands of walkable area smaller than this are dropped.
    max_drop : float
        Metres (>= 0; default 0: off): where walkable ground ends at a ledge and walkable ground lies below it,
        more than ``step_limit`` and at most ``max_drop`` lower, a **one-way** off-mesh link is made from the top
        to the ground below (:mod:`~voxelworld.navigation.ledges`; ``NavMesh.offmesh_links``): agents drop down,
        and no path leads back up that way.
    max_jump_gap : float
        Metres (0 .. ``MAX_JUMP_GAP``, 100; default 0.5, a gap a person steps across): how far across, besides
        the agent's radius at each end (the walkable area stops ``agent_radius`` short of the ledge and of the wall
        below it), the ground below may lie from the ledge for a drop link. A pit's wall falling straight down
        needs 0.

    Examples
    --------
    >>> NavSettings(ray_density=25.0).cell_size
    0.2
    >>> NavSettings(max_slope=120)
    Traceback (most recent call last):
    ...
    voxelworld.errors.ParameterError: max_slope = 120 is out of range: must be ... in [0.0, 90.0] (degrees)
    """

    ray_density: float = 11.1  # rays per m², > 0
    step_limit: float = 0.9  # m, >= 0
    clearance: float = 2.0  # m, > 0
    agent_radius: float = 0.6  # m, 0..MAX_AGENT_RADIUS
    max_slope: float = 45.0  # degrees, 0..90
    obstacle_min_height: float | None = None  # m, >= 0; None: step_limit
    low_obstacles: str = "floor"  # "floor" | "transparent"
    auto_obstacles: bool = True  # role "auto": obstacle by the vertex-in-region rule (False: floor)
    exclusion_proxy: str = "hull"  # "aabb-tree" | "hull" | "mesh"
    aabb_depth: int = 3  # levels of the aabb-tree proxy, 0..16
    proxy_triangles: int = 32  # the reduced proxy's most triangles, 12..100000
    max_corners: int = 6  # corners per polygon, >= 3
    max_edge_error: float = 0.3  # m, >= 0
    levels: bool = False  # keep obstacle tops as levels of their own
    min_region_area: float = 5.76  # m², >= 0
    max_drop: float = 0.0  # m, >= 0; 0: no drop links
    max_jump_gap: float = 0.5  # m, 0..MAX_JUMP_GAP, across, besides agent_radius at each end

    def __post_init__(self) -> None:
        def set_(field: str, value: object) -> None:
            object.__setattr__(self, field, value)

        set_("ray_density", check_finite("ray_density", self.ray_density, minimum=0.0, strict_minimum=True,
                                         unit="rays per m²"))
        set_("step_limit", check_finite("step_limit", self.step_limit, minimum=0.0, unit="m"))
        set_("clearance", check_finite("clearance", self.clearance, minimum=0.0, strict_minimum=True, unit="m"))
        set_("agent_radius", check_finite("agent_radius", self.agent_radius, minimum=0.0, maximum=MAX_AGENT_RADIUS,
                                          unit="m"))
        set_("max_slope", check_finite("max_slope", self.max_slope, minimum=0.0, maximum=90.0, unit="degrees"))
        if self.obstacle_min_height is not None:
            set_("obstacle_min_height", check_finite("obstacle_min_height", self.obstacle_min_height, minimum=0.0,
                                                     unit="m"))
        check_range("low_obstacles", self.low_obstacles, "'transparent' or 'floor'",
                    isinstance(self.low_obstacles, str) and self.low_obstacles in ("transparent", "floor"))
        check_range("auto_obstacles", self.auto_obstacles, "True or False",
                    isinstance(self.auto_obstacles, (bool, np.bool_)))
        set_("auto_obstacles", bool(self.auto_obstacles))
        check_range("exclusion_proxy", self.exclusion_proxy, "one of 'aabb-tree', 'hull', 'mesh', 'reduced'",
                    isinstance(self.exclusion_proxy, str) and self.exclusion_proxy in EXCLUSION_PROXIES)
        set_("proxy_triangles", check_integer("proxy_triangles", self.proxy_triangles, minimum=12,
                                              maximum=100000, unit="triangles"))
        set_("aabb_depth", check_integer("aabb_depth", self.aabb_depth, minimum=0, maximum=16, unit="levels"))
        set_("max_corners", check_integer("max_corners", self.max_corners, minimum=3, maximum=MAX_POLYGON_CORNERS,
                                          unit="corners"))
        set_("max_edge_error", check_finite("max_edge_error", self.max_edge_error, minimum=0.0, unit="m"))
        check_range("levels", self.levels, "True or False", isinstance(self.levels, (bool, np.bool_)))
        set_("levels", bool(self.levels))
        set_("min_region_area", check_finite("min_region_area", self.min_region_area, minimum=0.0, unit="m²"))
        set_("max_drop", check_finite("max_drop", self.max_drop, minimum=0.0, unit="m"))
        set_("max_jump_gap", check_finite("max_jump_gap", self.max_jump_gap, minimum=0.0, maximum=MAX_JUMP_GAP,
                                          unit="m"))

    @property
    def cell_size(self) -> float:
        """The spacing of the ray grid in metres: ``1 / sqrt(ray_density)``."""
        return 1.0 / math.sqrt(self.ray_density)

    @property
    def obstacle_height(self) -> float:
        """The height (m) above which an obstacle cuts its footprint: ``obstacle_min_height``, or the agent's
        ``step_limit`` when that is None (the default).

        >>> NavSettings(step_limit=0.5).obstacle_height, NavSettings(obstacle_min_height=0.0).obstacle_height
        (0.5, 0.0)
        """
        return self.step_limit if self.obstacle_min_height is None else self.obstacle_min_height

    @classmethod
    def from_recast(cls, cell_size: float, agent_height: float, agent_radius: float, agent_max_climb: float,
                    agent_max_slope: float, region_min_size: float, **overrides: Any) -> NavSettings:
        """Settings from the parameters of Recast's demo (world units, as in its sample's settings panel).

        - ``cell_size`` (m, > 0; the voxel size in the ground plane) gives ``ray_density = 1 / cell_size²``.
        - ``agent_height`` (m, > 0) gives ``clearance``.
        - ``agent_radius`` (m, >= 0) gives ``agent_radius``.
        - ``agent_max_climb`` (m, >= 0) gives ``step_limit``.
        - ``agent_max_slope`` (degrees, in [0, 90]) gives ``max_slope``.
        - ``region_min_size`` (cells, >= 0) is the side of the smallest square region Recast keeps, so its area
          is ``region_min_size²`` cells: ``min_region_area = region_min_size² × cell_size²`` (m²).

        Recast's other parameters (``cell_height``: rays are not quantised in height; region merge size, edge
        and detail-mesh settings) have no counterpart here. The fields Recast does not set
        (``obstacle_min_height``, ``low_obstacles``, ``auto_obstacles``, ``exclusion_proxy``, ``max_corners``
        (Recast's max verts per poly), ``levels``, ``max_drop``, ``max_jump_gap``) keep their defaults unless
        given as keyword ``overrides``.
        Each Recast parameter is checked under its own name before it is converted.

        Examples
        --------
        >>> settings = NavSettings.from_recast(0.5, 1.8, 0.4, 0.5, 40, 10, max_corners=4)
        >>> settings.ray_density, settings.clearance, settings.min_region_area, settings.max_corners
        (4.0, 1.8, 25.0, 4)
        """
        cell_size = check_finite("cell_size", cell_size, minimum=0.0, strict_minimum=True, unit="m")
        agent_height = check_finite("agent_height", agent_height, minimum=0.0, strict_minimum=True, unit="m")
        agent_radius = check_finite("agent_radius", agent_radius, minimum=0.0, maximum=MAX_AGENT_RADIUS, unit="m")
        agent_max_climb = check_finite("agent_max_climb", agent_max_climb, minimum=0.0, unit="m")
        agent_max_slope = check_finite("agent_max_slope", agent_max_slope, minimum=0.0, maximum=90.0,
                                       unit="degrees")
        region_min_size = check_finite("region_min_size", region_min_size, minimum=0.0, unit="cells")
        mapped = {"ray_density": "cell_size", "clearance": "agent_height", "agent_radius": "agent_radius",
                  "step_limit": "agent_max_climb", "max_slope": "agent_max_slope",
                  "min_region_area": "region_min_size and cell_size"}
        free = [f.name for f in fields(cls) if f.name not in mapped]
        for key, value in overrides.items():
            if key in mapped:
                raise ParameterError(key, value, f"left out: from_recast sets {key} from {mapped[key]}")
            check_range(key, value, f"a keyword naming a field from_recast does not set: {', '.join(free)}",
                        key in free)
        return cls(ray_density=1.0 / cell_size**2, clearance=agent_height, agent_radius=agent_radius,
                   step_limit=agent_max_climb, max_slope=agent_max_slope,
                   min_region_area=region_min_size**2 * cell_size**2, **overrides)


@dataclass(frozen=True)
class SearchRegion:
    """A box placed in a scene to bake a navmesh in; several may be baked together.

    Parameters
    ----------
    min, max : sequence of 3 float
        Opposite corners in metres, ``max > min`` on every axis (a region has volume), in the region's own frame
        (before ``rotation`` turns it). Stored as tuples.
    ray_direction : sequence of 3 float or None
        The direction the bake's rays travel, the region's own down axis ``R @ (0, -1, 0)`` (``R`` the matrix of
        ``rotation``): finite, not zero, stored normalised (length 1) as a tuple. None (the default): the
        rotation's down axis, ``(0, -1, 0)`` without one (straight down from the top face). Given without a
        rotation, it sets the rotation to the shortest arc turning ``(0, -1, 0)`` onto it (for ``(0, 1, 0)``,
        rays going up, a half turn about x); given with one, the two must agree within 1e-9 (ParameterError
        naming ``ray_direction``). After construction it is always exactly the rotation's down axis.
    landing : bool or None
        Whether the region's bottom face is a landing surface: a ray that meets nothing else on its way down
        lands there (walkable ground at ``min[1]``, in the region's frame), so a scene of only obstacles bakes
        the floor around them. None (the default): on when no floor object's bounding box meets the region (a
        region built over an empty level), off otherwise.
    rotation : sequence of 4 float
        A unit quaternion ``(x, y, z, w)`` (glTF's order) turning the box about its centre
        ``c = (min + max) / 2``: the world point ``p`` lies at ``R^T (p - c) + c`` in the region's frame, and
        the rays fall from its top face (local ``max[1]``) along its own down axis, so a wall, a ceiling or a
        tilted deck can carry a navmesh. Four finite numbers, not all zero; stored normalised, of canonical
        sign (``w > 0``, or for a half turn its first non-zero component positive), so equal rotations compare
        equal. Default ``(0, 0, 0, 1)``: not turned. To turn a region of another direction with
        :func:`dataclasses.replace`, give ``ray_direction=None`` too.

    Examples
    --------
    >>> region = SearchRegion((0, 0, 0), (8, 4, 6), ray_direction=(0, -2, 0))
    >>> region.min, region.max, region.ray_direction, region.rotation
    ((0.0, 0.0, 0.0), (8.0, 4.0, 6.0), (0.0, -1.0, 0.0), (0.0, 0.0, 0.0, 1.0))
    >>> region.size
    (8.0, 4.0, 6.0)
    >>> SearchRegion((0, 0, 0), (8, 4, 6), ray_direction=(0, 1, 0)).rotation  # a ceiling: rays going up
    (1.0, 0.0, 0.0, 0.0)
    >>> wall = SearchRegion((-3, -1, -3), (3, 1, 3), ray_direction=(1, 0, 0))  # rays towards a wall at x > 0
    >>> [round(c, 6) for c in wall.rotation]
    [0.0, 0.0, 0.707107, 0.707107]
    >>> s = math.sin(math.radians(10))  # half of a 20 degree tilt about z
    >>> [round(c, 4) for c in SearchRegion((0, 0, 0), (10, 1, 4), rotation=(0, 0, s, math.cos(math.radians(10)))
    ...                                  ).ray_direction]
    [0.342, -0.9397, 0.0]
    >>> SearchRegion((0, 0, 0), (1, 1, 1), ray_direction=(0, -1, 0), rotation=(1, 0, 0, 0))
    Traceback (most recent call last):
    ...
    voxelworld.errors.ParameterError: ray_direction = (0, -1, 0) is out of range: must be ... (0.0, 1.0, 0.0) ...
    """

    min: tuple[float, float, float]
    max: tuple[float, float, float]
    ray_direction: tuple[float, float, float] | None = None
    landing: bool | None = None
    rotation: tuple[float, float, float, float] = IDENTITY

    def __post_init__(self) -> None:
        check_range("landing", self.landing, "True, False or None (on when no floor reaches into the region)",
                    self.landing is None or isinstance(self.landing, bool))
        lo = check_point("min", self.min)
        hi = check_point("max", self.max)
        check_range("max", self.max, f"a point > min = {lo} on every axis (m)",
                    all(h > least for least, h in zip(lo, hi)))
        rotation = check_rotation("rotation", self.rotation)
        if self.ray_direction is not None:
            given = _direction(self.ray_direction)
            if rotation == IDENTITY:
                rotation = shortest_arc(given)
            implied = down_axis(rotation)
            check_range("ray_direction", self.ray_direction,
                        f"the down axis of rotation = {rotation}, {tuple(round(c, 12) + 0.0 for c in implied)} "
                        "(within 1e-9), or None (taken from "
                        "the rotation)", all(abs(a - b) <= 1e-9 for a, b in zip(given, implied)))
        object.__setattr__(self, "min", lo)
        object.__setattr__(self, "max", hi)
        object.__setattr__(self, "rotation", rotation)
        object.__setattr__(self, "ray_direction", down_axis(rotation))

    @property
    def turned(self) -> bool:
        """Whether the region is turned (its rotation is not the identity)."""
        return self.rotation != IDENTITY

    @property
    def centre(self) -> tuple[float, float, float]:
        """The box's centre ``(min + max) / 2`` (m), the point the rotation turns it about."""
        return tuple((least + h) / 2 for least, h in zip(self.min, self.max))  # type: ignore[return-value]

    @property
    def size(self) -> tuple[float, float, float]:
        """The box's extent ``max - min`` on each axis, in metres."""
        return tuple(h - least for least, h in zip(self.min, self.max))  # type: ignore[return-value]


def _direction(value: Any) -> tuple[float, float, float]:  # anything: refused unless three numbers
    """A ray direction as a unit vector of floats, or ParameterError naming ``ray_direction``."""
    legal = "three finite numbers, not all zero (a direction), or None (the rotation's down axis)"
    if isinstance(value, (str, bytes)):
        raise ParameterError("ray_direction", value, legal)
    try:
        dx, dy, dz = value
        vector = (float(dx), float(dy), float(dz))
    except (TypeError, ValueError):
        raise ParameterError("ray_direction", value, legal) from None
    length = math.hypot(*vector)
    check_range("ray_direction", value, legal, all(math.isfinite(c) for c in vector) and 0.0 < length < math.inf)
    return tuple(c / length for c in vector)  # type: ignore[return-value]
