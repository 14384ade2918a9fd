"""`NavMesh`: walkable polygons with adjacency, and the queries agents ask of them.

A navmesh is made from *walkable grids*: for each level, a boolean grid of walkable cells on the x-z plane and
the ground height of each cell (the baker's samples). :func:`navmesh_from_grids` merges each level's cells into
axis-aligned rectangles (greedy, row by row: closed, simple, hole-free, four corners, or two triangles each
when ``max_corners`` is 3), so the polygons cover the walkable cells exactly (contour error 0). Polygons that
share a stretch of boundary on the same level, or whose touching cells are within ``step_limit`` in height
across levels, are neighbours through a *portal*, the shared segment.

Paths: A* over polygons (cost between portal midpoints, straight-line heuristic) finds a corridor, and the
funnel algorithm pulls the string tight through its portals.
"""

from __future__ import annotations

import heapq
import json
import math
from dataclasses import dataclass, field
from pathlib import Path as FilePath

import numpy as np

from ..errors import FormatError, ParameterError

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
    _neighbours: list[list[tuple[int, int]]] = field(default=None, repr=False)  # polygon -> (neighbour, portal)
    bake_state: object = field(default=None, repr=False, compare=False)  # what bake() kept, for rebake()

    def __post_init__(self):
        self._neighbours = [[] for _ in range(self.polygon_count)]
        for portal, (a, b) in enumerate(self.portals.tolist()):
            self._neighbours[a].append((b, portal))
            self._neighbours[b].append((a, portal))

    def rebake(self, box, scene=None) -> list[tuple[int, int, int]]:
        """Re-bake the tiles that a change of the scene inside ``box`` ((x0, y0, z0), (x1, y1, z1), metres)
        touches, in place; ``scene`` is the scene as it is now (default: the one baked). The result equals a
        full bake of that scene, bit for bit (see :mod:`voxelworld.navigation.bake`). Returns the tiles whose
        polygons changed, as (region, ti, tk). Only a navmesh made by ``bake`` can be re-baked.

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
        from .bake import rebake_state  # bake builds NavMesh objects: imported here to avoid a cycle

        state, rebuilt = rebake_state(self.bake_state, box, scene)
        fresh = state.navmesh()
        for name in ("vertices", "polygon_start", "polygon_vertices", "polygon_level", "portals",
                     "portal_segments", "bake_state"):
            setattr(self, name, getattr(fresh, name))
        self.__post_init__()
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
        areas = np.empty(self.polygon_count)
        for q in range(self.polygon_count):
            p = self.polygon(q)
            x, z = p[:, 0], p[:, 2]
            areas[q] = 0.5 * abs(np.dot(x, np.roll(z, -1)) - np.dot(z, np.roll(x, -1)))
        return areas

    def area(self, level: int | None = None) -> float:
        """Walkable area in m² (x-z plane) of one level, or of all levels."""
        areas = self.polygon_areas()
        return float(areas.sum() if level is None else areas[self.polygon_level == level].sum())

    def islands(self) -> list[np.ndarray]:
        """The connected groups of polygons (through portals), each a sorted index array, largest area first
        (lowest first polygon on a tie)."""
        seen = np.zeros(self.polygon_count, dtype=bool)
        groups = []
        for start in range(self.polygon_count):
            if seen[start]:
                continue
            stack, members = [start], []
            seen[start] = True
            while stack:
                q = stack.pop()
                members.append(q)
                for other, _ in self._neighbours[q]:
                    if not seen[other]:
                        seen[other] = True
                        stack.append(other)
            groups.append(np.array(sorted(members)))
        areas = self.polygon_areas()
        return sorted(groups, key=lambda g: (-areas[g].sum(), g[0]))

    # ---------------------------------------------------------------------------------------- locating
    def _contains_2d(self, q: int, x: float, z: float) -> bool:
        p = self.polygon(q)
        return bool(p[:, 0].min() - 1e-9 <= x <= p[:, 0].max() + 1e-9
                    and p[:, 2].min() - 1e-9 <= z <= p[:, 2].max() + 1e-9) and _inside_convex(p, x, z)

    def _height_at(self, q: int, x: float, z: float) -> float:
        """Height of polygon q at (x, z): the mean of its corners' heights (polygons are flat cells merged)."""
        return float(self.polygon(q)[:, 1].mean())

    def locate(self, point) -> int:
        """The polygon under or nearest above/below ``point`` (the one whose surface is closest in height among
        those containing its x-z position), or -1."""
        point = _point("point", point)
        best, best_dy = -1, math.inf
        for q in range(self.polygon_count):
            if self._contains_2d(q, point[0], point[2]):
                dy = abs(self._height_at(q, point[0], point[2]) - point[1])
                if dy < best_dy:
                    best, best_dy = q, dy
        return best

    def nearest_point(self, point) -> tuple[np.ndarray, int]:
        """The point of the navmesh closest to ``point`` (3-D distance) and its polygon (-1 if the mesh is
        empty)."""
        point = _point("point", point)
        best, best_q, best_d = np.full(3, np.nan), -1, math.inf
        for q in range(self.polygon_count):
            p = self.polygon(q)
            x = min(max(point[0], p[:, 0].min()), p[:, 0].max())
            z = min(max(point[2], p[:, 2].min()), p[:, 2].max())
            if not _inside_convex(p, x, z):  # a triangle (max_corners 3): project onto its edges
                x, z = _closest_on_convex(p, point[0], point[2])
            candidate = np.array([x, self._height_at(q, x, z), z])
            d = float(np.linalg.norm(candidate - point))
            if d < best_d:
                best, best_q, best_d = candidate, q, d
        return best, best_q

    # -------------------------------------------------------------------------------------------- paths
    def find_path(self, start, end) -> NavPath | None:
        """The shortest path from ``start`` to ``end`` (both snapped to the navmesh with
        :meth:`nearest_point`), or None when they lie on different islands.

        A* over polygons, then the funnel algorithm through the corridor's portals (string pulling)."""
        start, a = self.nearest_point(start)
        end, b = self.nearest_point(end)
        if a < 0 or b < 0:
            return None
        corridor = self._corridor(a, b, start, end)
        if corridor is None:
            return None
        points = self._string_pull(corridor, start, end)
        length = float(np.linalg.norm(np.diff(points, axis=0), axis=1).sum()) if len(points) > 1 else 0.0
        return NavPath(points, length)

    def _corridor(self, a: int, b: int, start: np.ndarray, end: np.ndarray) -> list[tuple[int, int]] | None:
        """The polygons from a to b as (polygon, portal entered through) pairs.

        Dijkstra over the portals' end points: within a (convex) polygon any two of its points see each other,
        and crossing a portal at one of its ends costs nothing. A shortest path bends only at such ends, so the
        corridor it runs through holds the shortest path, which the funnel then pulls tight."""
        if a == b:
            return [(a, -1)]
        ends = self.portal_segments
        # Nodes: ("start",), ("end",), and (polygon, portal, end) for each end of each portal of each polygon.
        def nodes_of(q):
            for other, portal in self._neighbours[q]:
                for e in (0, 1):
                    yield (q, portal, e)

        def position(node):
            if node == "start":
                return start
            if node == "end":
                return end
            return ends[node[1], node[2]]

        best = {"start": 0.0}
        came: dict = {}
        heap = [(0.0, 0, "start")]
        counter = 1
        done = set()
        while heap:
            cost, _, node = heapq.heappop(heap)
            if node in done:
                continue
            done.add(node)
            if node == "end":
                break
            if node == "start":
                polygon, moves = a, []
            else:
                polygon = node[0]
                other = self.portals[node[1], 1] if self.portals[node[1], 0] == polygon else self.portals[node[1], 0]
                moves = [((int(other), node[1], node[2]), 0.0, None)]  # cross the portal at this end
            here = position(node)
            for target in nodes_of(polygon):
                moves.append((target, float(np.linalg.norm(position(target) - here)), polygon))
            if polygon == b:
                moves.append(("end", float(np.linalg.norm(end - here)), polygon))
            for target, step, _ in moves:
                if target in done:
                    continue
                total = cost + step
                if total < best.get(target, math.inf) - 1e-12:
                    best[target], came[target] = total, node
                    heapq.heappush(heap, (total, counter, target))
                    counter += 1
        if "end" not in done:
            return None
        # Walk back: the polygon changes exactly where a portal is crossed.
        chain = ["end"]
        while chain[-1] != "start":
            chain.append(came[chain[-1]])
        chain.reverse()
        corridor = [(a, -1)]
        for previous, node in zip(chain[:-1], chain[1:]):
            if previous != "start" and node != "end" and previous[1] == node[1] and previous[2] == node[2] \
                    and previous[0] != node[0]:
                corridor.append((node[0], node[1]))
        if corridor[-1][0] != b:  # the end point's polygon is b by construction
            return None
        return corridor

    def _string_pull(self, corridor, start, end) -> np.ndarray:
        """The funnel algorithm ("simple stupid funnel") on the x-z plane through the corridor's portals."""
        portals = [(start, start)]
        for i in range(1, len(corridor)):
            q_from, (q_to, portal) = corridor[i - 1][0], corridor[i]
            p0, p1 = self.portal_segments[portal]
            # Left and right as seen walking across the portal from q_from into q_to: the crossing direction
            # is the portal's normal turned towards q_to.
            mid = 0.5 * (p0 + p1)
            normal = np.array([-(p1[2] - p0[2]), 0.0, p1[0] - p0[0]])
            towards = _centroid(self.polygon(q_to)) - _centroid(self.polygon(q_from))
            if normal[0] * towards[0] + normal[2] * towards[2] < 0:
                normal = -normal
            if _triarea2(mid - normal, mid, p0) < 0:
                portals.append((p0, p1))
            else:
                portals.append((p1, p0))
        portals.append((end, end))
        points = [start]
        apex, left, right = start, portals[0][0], portals[0][1]
        apex_i = left_i = right_i = 0
        i = 1
        while i < len(portals):
            new_left, new_right = portals[i]
            if _triarea2(apex, right, new_right) <= 0.0:  # the right edge can tighten
                if _same(apex, right) or _triarea2(apex, left, new_right) > 0.0:
                    right, right_i = new_right, i
                else:  # it crossed the left edge: the left corner is a corner of the path
                    points.append(left)
                    apex, apex_i = left, left_i
                    left, right, left_i, right_i = apex, apex, apex_i, apex_i
                    i = apex_i + 1
                    continue
            if _triarea2(apex, left, new_left) >= 0.0:  # the left edge can tighten
                if _same(apex, left) or _triarea2(apex, right, new_left) < 0.0:
                    left, left_i = new_left, i
                else:
                    points.append(right)
                    apex, apex_i = right, right_i
                    left, right, left_i, right_i = apex, apex, apex_i, apex_i
                    i = apex_i + 1
                    continue
            i += 1
        points.append(end)
        # A corner reached through several portals at once is emitted once.
        kept = [points[0]]
        for point in points[1:]:
            if not _same(kept[-1], point):
                kept.append(point)
        if len(kept) == 1:
            kept.append(end)
        return np.array(kept)

    # ------------------------------------------------------------------------------------ other queries
    def raycast(self, start, end) -> tuple[float, np.ndarray]:
        """How far a straight walk from ``start`` towards ``end`` gets on the navmesh (x-z plane): the distance
        walked (m) and the point reached (``end`` when nothing blocks it). The way is checked every 5 cm, so a
        gap narrower than that may be stepped over."""
        start, q = self.nearest_point(start)
        end = _point("end", end)
        if q < 0:
            return 0.0, start
        total = float(np.hypot(end[0] - start[0], end[2] - start[2]))
        if total == 0:
            return 0.0, start
        samples = max(2, int(total / 0.05) + 1)
        reached = start
        for s in np.linspace(0.0, 1.0, samples)[1:]:
            x, z = start[0] + s * (end[0] - start[0]), start[2] + s * (end[2] - start[2])
            if not any(self._contains_2d(r, x, z) for r in range(self.polygon_count)):
                break
            reached = np.array([x, 0.0, z])
        walked = float(np.hypot(reached[0] - start[0], reached[2] - start[2]))
        point = np.array([reached[0], self.nearest_point([reached[0], start[1], reached[2]])[0][1], reached[2]])
        return walked, point

    def random_point(self, rng: np.random.Generator) -> np.ndarray:
        """A point spread evenly over the walkable area (polygons chosen by area), from ``rng``."""
        if not isinstance(rng, np.random.Generator):
            raise ParameterError("rng", rng, "a numpy.random.Generator (e.g. numpy.random.default_rng(seed))")
        areas = self.polygon_areas()
        q = int(rng.choice(self.polygon_count, p=areas / areas.sum()))
        p = self.polygon(q)
        while True:
            x = rng.uniform(p[:, 0].min(), p[:, 0].max())
            z = rng.uniform(p[:, 2].min(), p[:, 2].max())
            if _inside_convex(p, x, z):
                return np.array([x, self._height_at(q, x, z), z])

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
        lines = [f"v {x:.6f} {y:.6f} {z:.6f}" for x, y, z in self.vertices]
        for level in sorted(set(self.polygon_level.tolist())):
            lines.append(f"o level_{level}")
            for q in np.flatnonzero(self.polygon_level == level):
                ids = self.polygon_vertices[self.polygon_start[q]:self.polygon_start[q + 1]] + 1
                lines.append("f " + " ".join(str(int(i)) for i in ids))
        path = FilePath(path)
        temporary = path.with_name(path.name + ".part")
        temporary.write_text("\n".join(lines) + "\n", encoding="utf-8")
        temporary.replace(path)


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
    try:
        point = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(parameter, value, "a point (x, y, z) of three finite numbers (m)") from None
    if point.shape != (3,) or not np.all(np.isfinite(point)):
        raise ParameterError(parameter, value, "a point (x, y, z) of three finite numbers (m)")
    return point


def _triarea2(a, b, c) -> float:
    """Twice the signed area of triangle abc on the x-z plane (the funnel's side test)."""
    return float((c[0] - a[0]) * (b[2] - a[2]) - (b[0] - a[0]) * (c[2] - a[2]))


def _same(a, b) -> bool:
    return abs(a[0] - b[0]) < 1e-9 and abs(a[2] - b[2]) < 1e-9


def _centroid(polygon: np.ndarray) -> np.ndarray:
    return polygon.mean(axis=0)


def _inside_convex(polygon: np.ndarray, x: float, z: float) -> bool:
    signs = []
    n = len(polygon)
    for e in range(n):
        a, b = polygon[e], polygon[(e + 1) % n]
        cross = (b[0] - a[0]) * (z - a[2]) - (b[2] - a[2]) * (x - a[0])
        signs.append(cross)
    return all(s >= -1e-9 for s in signs) or all(s <= 1e-9 for s in signs)


def _closest_on_convex(polygon: np.ndarray, x: float, z: float) -> tuple[float, float]:
    best, best_d = (x, z), math.inf
    n = len(polygon)
    for e in range(n):
        a, b = polygon[e][[0, 2]], polygon[(e + 1) % n][[0, 2]]
        d = b - a
        t = min(max(np.dot(np.array([x, z]) - a, d) / np.dot(d, d), 0.0), 1.0)
        p = a + t * d
        dist = math.hypot(p[0] - x, p[1] - z)
        if dist < best_d:
            best, best_d = (float(p[0]), float(p[1])), dist
    return best
