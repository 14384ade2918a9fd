"""Query filters (Detour's ``dtQueryFilter``): what a path costs on each area type, and which types a query
never enters.

A :class:`QueryFilter` weighs each area type (:mod:`~voxelworld.navigation.area_types`) by a cost multiplier
(default 1) and excludes some types outright. A query given one (:class:`~voxelworld.navigation.NavQuery`'s
``find_path``, ``raycast``, ``nearest_point``, ``locate``) reads the navmesh through a :class:`FilterView`: the
navmesh's index with the excluded polygons left out (no bucket lists them, no portal leads into them), each
polygon's and link's cost, and, for weighted paths, the graph ``_kernels/weighted.py`` searches. A view is made
once per navmesh index and filter and kept while that index lives (:func:`filter_view`): a re-bake makes a new
index, hence new views.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType

import numpy as np

from ..errors import ParameterError, short_value
from ._kernels import crowd as _crowd
from ._kernels import locate as _locate
from ._kernels.weighted import WeightedGraph, portal_nodes
from .area_types import check_area_type
from .index import NavIndex, filtered_index
from .links import OffMeshLinks
from .navmesh import NavMesh

__all__ = ["QueryFilter", "FilterView", "FilterGroups", "filter_view", "filter_groups", "keep_out", "steer_with_filters",
           "MAX_COST", "PORTAL_SPACING"]

MAX_COST = 1e6  # the largest cost multiplier (and 1 / the smallest)
PORTAL_SPACING = 0.25  # m: the points of a weighted search lie this far apart along each portal, at most
MAX_PORTAL_POINTS = 65  # points on one portal, at most (its ends included)


class QueryFilter:
    """Per-area-type cost multipliers and excluded area types (Detour's ``dtQueryFilter``).

    Parameters
    ----------
    costs : mapping of str to float
        Area type name -> cost multiplier, finite, in [1e-6, 1e6] (:data:`MAX_COST`); a type not named costs 1.
        A path's cost is the sum over its segments of their length times the multiplier of the area type they
        lie in (a link: its area type's).
    exclude : iterable of str
        Area type names a query never enters: no path crosses a polygon or link of these types, the
        nearest-point queries skip their polygons, a ray stops at them as at walls.

    Names a navmesh does not have are allowed (they match nothing). Filters are immutable and hashable (equal
    filters share what a navmesh derives for them).

    Examples
    --------
    >>> QueryFilter(costs={"mud": 10.0}, exclude={"hazard"})
    QueryFilter(costs={'mud': 10.0}, exclude={'hazard'})
    >>> QueryFilter(costs={"mud": 0.0})
    Traceback (most recent call last):
    ...
    voxelworld.errors.ParameterError: costs['mud'] = 0.0 is out of range: must be a finite number in [1e-06, 1000000.0] ...
    """

    __slots__ = ("_costs", "_exclude", "_key")

    def __init__(self, costs: Mapping[str, float] | None = None, exclude: Iterable[str] = ()) -> None:
        if costs is None:
            costs = {}
        if not isinstance(costs, Mapping):
            raise ParameterError("costs", short_value(costs), "a mapping of area type names to cost multipliers")
        checked: dict[str, float] = {}
        for name, value in costs.items():
            check_area_type(f"costs key {short_value(name)!r}", name)
            legal = f"a finite number in [{1 / MAX_COST}, {MAX_COST}] (a cost multiplier)"
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise ParameterError(f"costs[{name!r}]", short_value(value), legal)
            number = float(value)
            if not (math.isfinite(number) and 1 / MAX_COST <= number <= MAX_COST):
                raise ParameterError(f"costs[{name!r}]", number, legal)
            checked[name] = number
        if isinstance(exclude, str) or not isinstance(exclude, Iterable):
            raise ParameterError("exclude", short_value(exclude), "a set of area type names (e.g. {'hazard'})")
        excluded = frozenset(check_area_type("exclude entry", name) for name in exclude)
        self._costs = MappingProxyType(dict(sorted(checked.items())))
        self._exclude = excluded
        self._key = (tuple(self._costs.items()), tuple(sorted(excluded)))

    @property
    def costs(self) -> Mapping[str, float]:
        """Area type name -> cost multiplier (read-only; types not named cost 1)."""
        return self._costs

    @property
    def exclude(self) -> frozenset[str]:
        """The excluded area type names."""
        return self._exclude

    def cost(self, area_type: str) -> float:
        """The cost multiplier of ``area_type`` (1 when not named; excluded types keep theirs)."""
        return self._costs.get(area_type, 1.0)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, QueryFilter) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        exclude = "{" + ", ".join(repr(n) for n in sorted(self._exclude)) + "}" if self._exclude else "set()"
        return f"QueryFilter(costs={dict(self._costs)!r}, exclude={exclude})"


NO_FILTER = QueryFilter()


def check_filter(value: object) -> QueryFilter:
    """``value`` if it is a :class:`QueryFilter`, :data:`NO_FILTER` for None, else ParameterError."""
    if value is None:
        return NO_FILTER
    if not isinstance(value, QueryFilter):
        raise ParameterError("filter", type(value).__name__, "a voxelworld.navigation.QueryFilter or None")
    return value


@dataclass(frozen=True, eq=False)
class FilterView:
    """What the queries read of one navmesh under one filter (made by :func:`filter_view`).

    Attributes
    ----------
    index : NavIndex
        The navmesh's index without the excluded polygons (the navmesh's own when none is excluded).
    polygon_cost, link_cost : ndarray (p,), (n,) float64
        Each polygon's and link's cost multiplier (inf: excluded).
    weighted : bool
        Whether paths need the weighted search: an allowed polygon costs other than 1, or an allowed link.

    A view is kept by the navmesh's index it was made of (``NavIndex.filter_views``), so it holds that index
    weakly: a strong reference back would make a cycle, which keeps an index re-baked since, and every array it
    reads, until Python's cycle collector runs (on a streaming world, 17 MiB a tile landing).
    """

    narrowed: NavIndex | None  # the index without the excluded polygons; None: none is excluded
    polygon_cost: np.ndarray
    link_cost: np.ndarray
    links: OffMeshLinks
    _full: weakref.ref[NavIndex]  # the navmesh's own index (link ends are placed on it)
    weighted: bool
    sources: tuple[object, object, object]  # the navmesh's area types, polygon_area_type and links it was made of

    @property
    def full(self) -> NavIndex:
        """The navmesh's own index (whose ``filter_views`` keep this view: alive while it is used)."""
        full = self._full()
        assert full is not None  # (a view is used while its navmesh's index is)
        return full

    @property
    def index(self) -> NavIndex:
        return self.narrowed if self.narrowed is not None else self.full

    @cached_property
    def graph(self) -> WeightedGraph:
        """The weighted search's graph (built on first use): points along every allowed portal, at most
        :data:`PORTAL_SPACING` m apart, and the ends of the allowed links, each placed on its polygon."""
        index, links = self.index, self.links
        allowed = np.flatnonzero(np.isfinite(self.link_cost))
        ends = np.zeros((2 * len(allowed), 3))
        end_polygon = np.full(2 * len(allowed), -1, dtype=np.int64)
        for row, j in enumerate(allowed.tolist()):
            for e, point in enumerate((links.start[j], links.end[j])):
                x, y, z = point.tolist()
                q = int(_locate.nearest(self.full.polygons, self.full.buckets, x, y, z, ends[2 * row + e]))
                end_polygon[2 * row + e] = q if q >= 0 and math.isfinite(self.polygon_cost[q]) else -1
        usable = (end_polygon[0::2] >= 0) & (end_polygon[1::2] >= 0)
        pick = np.repeat(usable, 2)
        return portal_nodes(index.polygons, index.links, index.portals, index.portal_segments, PORTAL_SPACING,
                            MAX_PORTAL_POINTS, self.polygon_cost, ends[pick], end_polygon[pick], allowed[usable],
                            links.bidirectional[allowed[usable]], self.link_cost)


def filter_view(mesh: NavMesh, query_filter: QueryFilter) -> FilterView:
    """The :class:`FilterView` of ``mesh`` under ``query_filter``, made once per navmesh index (and area types
    and links) and filter, and shared by every query of that navmesh."""
    index = mesh.index
    links = mesh.offmesh_links if mesh.offmesh_links is not None else OffMeshLinks.none()
    sources = (mesh.area_types, mesh.polygon_area_type, links)
    views = index.filter_views
    view = views.get(query_filter)
    if isinstance(view, FilterView) and all(a is b for a, b in zip(view.sources, sources)):
        return view
    type_cost = np.array([math.inf if name in query_filter.exclude else query_filter.cost(name)
                          for name in mesh.area_types])
    area_type = mesh.polygon_area_type
    polygon_cost = type_cost[area_type] if area_type is not None else np.full(index.polygon_count, type_cost[0])
    link_cost = type_cost[links.area_type]
    allowed = np.isfinite(polygon_cost)
    narrowed = None if allowed.all() else filtered_index(index, allowed)
    weighted = bool(np.any(polygon_cost[allowed] != 1.0)) or bool(np.isfinite(link_cost).any())
    view = FilterView(narrowed, polygon_cost, link_cost, links, weakref.ref(index), weighted, sources)
    views[query_filter] = view
    return view


@dataclass(frozen=True)
class FilterGroups:
    """A crowd's agents grouped by what their filters make of one navmesh (:func:`filter_groups`): ``steering``,
    the index each group steers on and its rows (rows None: one group, every agent); ``kept_out``, each filter
    that excludes polygons of the navmesh, its view and its rows. ``sources``: the navmesh's index, area types and
    links they were made from, and the agents' filters."""

    sources: tuple[object, object, object, object]
    filters: tuple[QueryFilter | None, ...]
    steering: list[tuple[NavIndex, np.ndarray | None]]
    kept_out: list[tuple[FilterView, np.ndarray]]


def filter_groups(mesh: NavMesh, filters: list[QueryFilter | None], kept: FilterGroups | None = None) -> FilterGroups:
    """The :class:`FilterGroups` of a crowd's agents on ``mesh`` (``filters[row]``: an agent's filter, None: none):
    ``kept`` when it was made of this navmesh as it is and these filters, row by row (an agent that left and one
    that came with the same filter, as the game's enemies every frame, keep it), else made again."""
    sources = (mesh.index, mesh.area_types, mesh.polygon_area_type, mesh.offmesh_links)
    if kept is not None and all(a is b for a, b in zip(kept.sources, sources)) and len(kept.filters) == len(filters) \
            and all(a is b for a, b in zip(kept.filters, filters)):
        return kept
    views = {f: filter_view(mesh, f) for f in set(filters) if f is not None}
    indices = {f: mesh.index if f is None else views[f].index for f in set(filters)}
    groups: dict[int, tuple[NavIndex, list[int]]] = {}  # agents by the index they steer on, in row order
    for row, query_filter in enumerate(filters):
        index = indices[query_filter]
        groups.setdefault(id(index), (index, []))[1].append(row)
    if len(groups) <= 1:  # one index for all (no filter, or none excludes a type the navmesh has): one pass
        steering: list[tuple[NavIndex, np.ndarray | None]] = [(next(iter(indices.values())) if indices else
                                                               mesh.index, None)]
    else:
        steering = [(index, np.array(members, dtype=np.int64)) for index, members in groups.values()]
    kept_out = [(view, np.array([r for r, f in enumerate(filters) if f == query_filter], dtype=np.int64))
                for query_filter, view in views.items() if view.index is not mesh.index]
    return FilterGroups(sources, tuple(filters), steering, kept_out)


def keep_out(groups: FilterGroups, before: tuple[np.ndarray, np.ndarray], position: np.ndarray, polygon: np.ndarray,
             velocity: np.ndarray, chosen: np.ndarray | None = None, dt: float = 0.0) -> None:
    """A crowd's agents (``groups``: :func:`filter_groups`) that a move took into a polygon their filter excludes:
    moved again from where they were (``before``: positions and polygons) over the polygons it allows, when
    ``chosen`` (velocities, m/s, for ``dt`` s) is given, else put back there; in place."""
    for view, rows in groups.kept_out:
        q = polygon[rows]
        out = rows[(q >= 0) & ~np.isfinite(view.polygon_cost[np.maximum(q, 0)])]
        if not len(out):
            continue
        moved, moved_polygon = before[0][out], before[1][out]
        if chosen is not None:
            moved_velocity = velocity[out]
            index = view.index
            _crowd.integrate(index.polygons, index.links, index.portal_segments, moved, moved_polygon, chosen[out],
                             dt, moved_velocity)
            velocity[out] = moved_velocity
        else:
            velocity[out] = 0.0
        position[out], polygon[out] = moved, moved_polygon


def steer_with_filters(groups: FilterGroups,
                       steer: Callable[[NavIndex, np.ndarray, np.ndarray, np.ndarray, np.ndarray], None],
                       walking: np.ndarray, preferred: np.ndarray, lost: np.ndarray, arrived: np.ndarray) -> None:
    """A crowd's steering (``steer(index, moving, preferred, lost, arrived)``: the kernel over the agents
    ``moving`` marks, reading ``index``) with each agent's filter (``groups``: :func:`filter_groups`): the agents
    with none on the navmesh's index, the others on their filter's (what they see of their path's corners is what
    they may walk to)."""
    if groups.steering[0][1] is None:
        steer(groups.steering[0][0], walking, preferred, lost, arrived)
        return
    for index, rows in groups.steering:
        assert rows is not None  # (several groups)
        moving = np.zeros(len(walking), dtype=bool)
        moving[rows] = walking[rows]
        mine = (np.zeros_like(preferred), np.zeros_like(lost), np.zeros_like(arrived))
        steer(index, moving, *mine)
        preferred[rows], lost[rows], arrived[rows] = mine[0][rows], mine[1][rows], mine[2][rows]
