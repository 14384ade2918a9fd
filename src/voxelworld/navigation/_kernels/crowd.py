"""A crowd's step on a navmesh: steering along path corners, neighbours, avoidance, moves kept on the mesh, and
the hard separation of agents that still overlap.

The agents are rows of plain arrays (structure of arrays, in the crowd's fixed order; see
``voxelworld.navigation.crowd``): ``position (n, 3)`` (m), ``velocity (n, 2)`` (x-z, m/s), ``radius``, ``height``
(m), ``speed`` (top speed, m/s), ``polygon (n,)`` (the navmesh polygon each stands in; -1: off the mesh, it does
not move) and ``moving (n,)`` (whether it steers along its path). The path corners are in CSR form:
agent ``a``'s are ``corners[corner_start[a]:corner_start[a + 1]]`` and it steers to the one ``next_corner[a]``
counts from there. Two agents meet when their x-z discs overlap and their heights lie less than half their
heights' sum apart (agents on levels above each other pass).

Every move walks on the navmesh polygon to polygon through portals (``locate.walk``) and slides along the edge
that stops it, so an agent's centre never leaves the navmesh. Loops run in agent order and neighbours in index
order: the same arrays give the same result, bit for bit.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .arrays import PolygonArrays, PolygonLinks, Surface
from .locate import height, walk, winding
from .orca import agent_line, solve_velocity

SLIDES = 3  # edges a move may slide along after the first one stops it
SEPARATED = 1e-3  # m: overlaps no deeper than this end the separation's passes
INSET = 1e-9  # m: a move ends at least this far inside its polygon (an exact walk trusts its start to be in it)
PART_TIME = 1e-3  # s: overlapping agents part within the step, but within no less than this (a step of 1e-300 s
#                 would ask for an infinite velocity; any parting velocity this asks for is past every top speed)


class AvoidanceSettings(NamedTuple):
    """What :func:`avoid` reads of a ``CrowdSettings`` (m, s, counts; see there)."""

    neighbour_distance: float
    max_neighbours: int
    time_horizon: float
    keep_right: float
    give_way_distance: float
    yield_share: float


# ---------------------------------------------------------------------------------------------- neighbours
@njit(cache=True, nogil=True)
def agent_grid(position: np.ndarray, cell: float) -> tuple[float, float, float, int, int, np.ndarray, np.ndarray]:
    """A uniform grid over the agents' x-z positions: ``(origin_x, origin_z, cell, nx, nz, cell_start,
    cell_agents)``,
    cell ``i * nz + k`` listing ``cell_agents[cell_start[c]:cell_start[c + 1]]`` in ascending order. Its cells
    are ``cell`` m wide, wider where the agents spread too far for about 4 cells per agent."""
    n = position.shape[0]
    x0, z0, x1, z1 = np.inf, np.inf, -np.inf, -np.inf
    for a in range(n):
        x0, x1 = min(x0, position[a, 0]), max(x1, position[a, 0])
        z0, z1 = min(z0, position[a, 2]), max(z1, position[a, 2])
    if n == 0:
        x0, z0, x1, z1 = 0.0, 0.0, 0.0, 0.0
    # In floats: numba's math.floor gives an int64, and 5 m over cells of 5e-324 m is no int64 (it wrapped to a
    # grid of garbage size, and the neighbours' loops read past its ends).
    while (np.floor((x1 - x0) / cell) + 1.0) * (np.floor((z1 - z0) / cell) + 1.0) > 4 * n + 16:
        cell *= 2.0
    nx, nz = int(math.floor((x1 - x0) / cell)) + 1, int(math.floor((z1 - z0) / cell)) + 1
    cell_start = np.zeros(nx * nz + 1, np.int64)
    home = np.empty(n, np.int64)
    for a in range(n):
        i = min(int(math.floor((position[a, 0] - x0) / cell)), nx - 1)
        k = min(int(math.floor((position[a, 2] - z0) / cell)), nz - 1)
        home[a] = i * nz + k
        cell_start[home[a] + 1] += 1
    for c in range(nx * nz):
        cell_start[c + 1] += cell_start[c]
    fill = cell_start[:-1].copy()
    cell_agents = np.empty(n, np.int64)
    for a in range(n):
        cell_agents[fill[home[a]]] = a
        fill[home[a]] += 1
    return x0, z0, cell, nx, nz, cell_start, cell_agents


@njit(cache=True, nogil=True)
def neighbours(position: np.ndarray, height_of: np.ndarray,
               grid: tuple[float, float, float, int, int, np.ndarray, np.ndarray], a: int, reach: float,
               out_agents: np.ndarray, out_distance2: np.ndarray) -> int:
    """The nearest agents to ``a`` (at most ``len(out_agents)``) whose x-z distance is below ``reach`` (m) and
    whose heights meet, nearest first (the lower index on a tie), into ``out_agents``; returns their count."""
    x0, z0, cell, nx, nz, cell_start, cell_agents = grid
    px, py, pz = position[a, 0], position[a, 1], position[a, 2]
    span = int(math.ceil(reach / cell))
    ci = min(int(math.floor((px - x0) / cell)), nx - 1)
    ck = min(int(math.floor((pz - z0) / cell)), nz - 1)
    count, room = 0, out_agents.shape[0]
    reach2 = reach * reach
    for i in range(max(ci - span, 0), min(ci + span, nx - 1) + 1):
        for k in range(max(ck - span, 0), min(ck + span, nz - 1) + 1):
            c = i * nz + k
            for j in range(cell_start[c], cell_start[c + 1]):
                b = cell_agents[j]
                if b == a or abs(position[b, 1] - py) >= 0.5 * (height_of[a] + height_of[b]):
                    continue
                d2 = (position[b, 0] - px) ** 2 + (position[b, 2] - pz) ** 2
                if d2 >= reach2:
                    continue
                if count == room and (d2 > out_distance2[count - 1] or
                                      (d2 == out_distance2[count - 1] and b > out_agents[count - 1])):
                    continue
                m = count if count < room else room - 1  # insertion: nearest first, lower index on a tie
                while m > 0 and (out_distance2[m - 1] > d2 or (out_distance2[m - 1] == d2 and out_agents[m - 1] > b)):
                    out_distance2[m], out_agents[m] = out_distance2[m - 1], out_agents[m - 1]
                    m -= 1
                out_distance2[m], out_agents[m] = d2, b
                count = min(count + 1, room)
    return count


# --------------------------------------------------------------------------------------------- moving
@njit(cache=True, nogil=True)
def _blocking_edge(vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray, q: int, x: float,
                   z: float) -> tuple[float, float]:
    """The unit direction (x-z) of polygon q's edge nearest to (x, z)."""
    first, last = polygon_start[q], polygon_start[q + 1]
    best, bx, bz = np.inf, 1.0, 0.0
    for j in range(first, last):
        u = polygon_vertices[j]
        v = polygon_vertices[j + 1] if j + 1 < last else polygon_vertices[first]
        ex, ez = vertices[v, 0] - vertices[u, 0], vertices[v, 2] - vertices[u, 2]
        length2 = ex * ex + ez * ez
        if length2 <= 0.0:
            continue
        t = min(max(((x - vertices[u, 0]) * ex + (z - vertices[u, 2]) * ez) / length2, 0.0), 1.0)
        d2 = (vertices[u, 0] + t * ex - x) ** 2 + (vertices[u, 2] + t * ez - z) ** 2
        if d2 < best:
            length = math.sqrt(length2)
            best, bx, bz = d2, ex / length, ez / length
    return bx, bz


@njit(cache=True, nogil=True)
def _depth(vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray, q: int, turn: float, x: float,
           z: float) -> float:
    """How far (m) (x, z) lies inside polygon q: its least distance to the lines of its edges (negative
    outside); ``turn`` is the sign of its winding."""
    first, last = polygon_start[q], polygon_start[q + 1]
    lo = np.inf
    for j in range(first, last):
        u = polygon_vertices[j]
        v = polygon_vertices[j + 1] if j + 1 < last else polygon_vertices[first]
        ex, ez = vertices[v, 0] - vertices[u, 0], vertices[v, 2] - vertices[u, 2]
        length = math.sqrt(ex * ex + ez * ez)
        if length > 0.0:
            lo = min(lo, turn * (ex * (z - vertices[u, 2]) - ez * (x - vertices[u, 0])) / length)
    return lo


@njit(cache=True, nogil=True)
def _inset(vertices: np.ndarray, polygon_start: np.ndarray, polygon_vertices: np.ndarray, q: int, x: float, z: float
           ) -> tuple[float, float]:
    """(x, z) moved towards polygon q's corners' mean until it lies at least INSET inside every edge (a point a
    walk ended on an edge may lie a rounding error outside it; the next walk would start outside)."""
    first, last = polygon_start[q], polygon_start[q + 1]
    turn = 1.0 if winding(vertices, polygon_start, polygon_vertices, q) > 0.0 else -1.0
    cx, cz = 0.0, 0.0
    for j in range(first, last):
        cx += vertices[polygon_vertices[j], 0] / (last - first)
        cz += vertices[polygon_vertices[j], 2] / (last - first)
    step = INSET
    for _ in range(8):
        distance = math.hypot(cx - x, cz - z)
        if _depth(vertices, polygon_start, polygon_vertices, q, turn, x, z) >= INSET or distance <= 2.0 * step:
            break
        x, z = x + (cx - x) / distance * 2.0 * step, z + (cz - z) / distance * 2.0 * step
        step *= 2.0
    return x, z


@njit(cache=True, nogil=True)
def move_on_mesh(polygons: PolygonArrays, links: PolygonLinks, portal_segments: np.ndarray, q: int, x: float, z: float,
                 dx: float, dz: float, out: np.ndarray) -> int:
    """Move from (x, z) in polygon q by (dx, dz) (m) on the navmesh: walk polygon to polygon through portals;
    where an edge that is no portal stops the walk, slide along it with what is left of the move (at most
    ``SLIDES`` times). Every walk ends at least INSET (m) inside its polygon. Writes the point reached to
    ``out[:2]`` and returns its polygon."""
    vertices, polygon_start, polygon_vertices = polygons[0], polygons[1], polygons[2]
    turn = 1.0 if winding(vertices, polygon_start, polygon_vertices, q) > 0.0 else -1.0
    if _depth(vertices, polygon_start, polygon_vertices, q, turn, x + dx, z + dz) >= INSET:
        out[0], out[1] = x + dx, z + dz  # within its polygon (convex): the walk would end there too
        return q
    link_start, link_polygon, link_portal = links
    unused = np.zeros(0, np.int64)
    for _ in range(SLIDES + 1):
        if dx == 0.0 and dz == 0.0:
            break
        t, q, _ = walk(vertices, polygon_start, polygon_vertices, link_start, link_polygon, link_portal,
                       portal_segments, q, x, z, x + dx, z + dz, False, unused, unused, 0)
        if t >= 1.0:
            x, z = _inset(vertices, polygon_start, polygon_vertices, q, x + dx, z + dz)
            break
        x, z = _inset(vertices, polygon_start, polygon_vertices, q, x + t * dx, z + t * dz)
        rest_x, rest_z = (1.0 - t) * dx, (1.0 - t) * dz
        ex, ez = _blocking_edge(vertices, polygon_start, polygon_vertices, q, x, z)
        along = rest_x * ex + rest_z * ez
        dx, dz = along * ex, along * ez  # what is left, along the edge
    out[0], out[1] = x, z
    return q


# ------------------------------------------------------------------------------------------- steering
@njit(cache=True, nogil=True)
def _visible(polygons: PolygonArrays, links: PolygonLinks, portal_segments: np.ndarray, q: int, x: float, z: float,
             tx: float, tz: float) -> bool:
    """Whether the straight walk from (x, z) in polygon q reaches (tx, tz) on the navmesh."""
    unused = np.zeros(0, np.int64)
    t = walk(polygons[0], polygons[1], polygons[2], links[0], links[1], links[2], portal_segments, q, x, z, tx, tz,
             False, unused, unused, 0)[0]
    return t >= 1.0


@njit(cache=True, nogil=True)
def steer(polygons: PolygonArrays, links: PolygonLinks, portal_segments: np.ndarray, position: np.ndarray,
          polygon: np.ndarray, radius: np.ndarray, speed: np.ndarray, moving: np.ndarray, corners: np.ndarray,
          corner_start: np.ndarray, next_corner: np.ndarray, arrival: np.ndarray, slowdown: float,
          preferred: np.ndarray, lost: np.ndarray, arrived: np.ndarray) -> None:
    """Each moving agent's preferred velocity (``preferred``, x-z, m/s): towards the next corner of its path at
    its top speed, slowing down within ``slowdown`` m of the last one (its goal). The next corner moves on when
    the agent sees the one after it (the path's corners are straight lines apart: Detour's
    ``dtPathCorridor::optimizePathVisibility`` in one look a step). ``lost[a]``: the next corner is out of sight,
    or the agent stands on it and the one after is (pushed round a corner: re-plan); ``arrived[a]``: within
    ``arrival[a]`` m of the goal (x-z)."""
    for a in range(position.shape[0]):
        preferred[a, 0], preferred[a, 1] = 0.0, 0.0
        lost[a], arrived[a] = False, False
        q = polygon[a]
        if not moving[a] or q < 0:
            continue
        first, last = corner_start[a], corner_start[a + 1] - 1
        if last < first:
            continue
        x, z = position[a, 0], position[a, 2]
        c = min(first + next_corner[a], last)
        if c < last and _visible(polygons, links, portal_segments, q, x, z, corners[c + 1, 0], corners[c + 1, 2]):
            c += 1
        next_corner[a] = c - first
        gx, gz = corners[last, 0] - x, corners[last, 2] - z
        arrived[a] = math.hypot(gx, gz) <= arrival[a]
        tx, tz = corners[c, 0] - x, corners[c, 2] - z
        distance = math.hypot(tx, tz)
        if distance <= 1e-6 or (c == last and arrived[a]):
            lost[a] = c < last  # at a corner and the next is out of sight (a rounding error, or pushed back)
            continue
        lost[a] = not _visible(polygons, links, portal_segments, q, x, z, corners[c, 0], corners[c, 2])
        rate = speed[a]
        if c == last and distance < slowdown:
            rate *= distance / slowdown
        preferred[a, 0], preferred[a, 1] = tx / distance * rate, tz / distance * rate


# ------------------------------------------------------------------------------------------ avoidance
@njit(cache=True, nogil=True, inline="always")
def first_of(priority: np.ndarray, a: int, b: int) -> bool:
    """Whether agent ``a`` has the right of way over ``b``: a higher priority, or the same and an earlier row."""
    return priority[a] > priority[b] or (priority[a] == priority[b] and a < b)


@njit(cache=True, nogil=True)
def wished_velocity(position: np.ndarray, preferred: np.ndarray, priority: np.ndarray, speed: np.ndarray, a: int,
                    near: np.ndarray, count: int, reach: float, keep_right: float, give_way: float, out: np.ndarray
                    ) -> None:
    """Agent ``a``'s preferred velocity turned to its right (``(-dz, dx)`` of its heading ``(dx, dz)``, Y up), into
    ``out[:2]``: by ``keep_right`` (0..1, the tangent of the turn: up to 45 degrees) times the weight of its
    ``count`` neighbours ``near`` (within ``reach`` m) that come towards it from ahead, or stand ahead with a top
    ``speed`` of 0 (obstacles), nearer ones weighing more (a weight of 1 turns it fully), so that oncoming streams
    pass on their right and form lanes and an obstacle right ahead is passed on the right; by 90 degrees
    (it steps aside) when one of them that has the right of way (:func:`first_of`) is within ``give_way`` m."""
    px, pz = preferred[a, 0], preferred[a, 1]
    rate = math.sqrt(px * px + pz * pz)
    out[0], out[1] = px, pz
    if rate <= 0.0:
        return
    dx, dz = px / rate, pz / rate
    oncoming = 0.0
    for m in range(count):
        b = near[m]
        rx, rz = position[b, 0] - position[a, 0], position[b, 2] - position[a, 2]
        if rx * dx + rz * dz <= 0.0 or (preferred[b, 0] * dx + preferred[b, 1] * dz >= 0.0 and speed[b] > 0.0):
            continue  # behind, or not coming towards it (an obstacle ahead counts: ORCA has no side for it)
        distance = math.sqrt(rx * rx + rz * rz)
        if distance < give_way and speed[b] > 0.0 and first_of(priority, b, a):
            out[0], out[1] = -dz * rate, dx * rate
            return
        oncoming += 1.0 - distance / reach
    turn = keep_right * min(oncoming, 1.0)
    tx, tz = dx - turn * dz, dz + turn * dx
    norm = math.sqrt(tx * tx + tz * tz)
    out[0], out[1] = tx / norm * rate, tz / norm * rate


@njit(cache=True, nogil=True)
def avoid(position: np.ndarray, velocity: np.ndarray, radius: np.ndarray, height_of: np.ndarray, speed: np.ndarray,
          polygon: np.ndarray, priority: np.ndarray, preferred: np.ndarray,
          grid: tuple[float, float, float, int, int, np.ndarray, np.ndarray], settings: AvoidanceSettings, dt: float,
          chosen: np.ndarray) -> None:
    """Each agent's new velocity (``chosen``, x-z, m/s): the ORCA velocity (``orca.py``) nearest its wished one
    (:func:`wished_velocity`) against its nearest neighbours. Against an oncoming neighbour (their preferred
    velocities point apart by more than 90 degrees) the one with the right of way takes ``0.5 - yield_share``
    of the avoidance and the other ``0.5 + yield_share``; otherwise each takes half, and all of it against a
    neighbour whose top speed is 0 (an obstacle). An agent off the mesh stands. ``settings``: an
    ``AvoidanceSettings``; overlapping agents part within ``dt`` s (at least ``PART_TIME``)."""
    n = position.shape[0]
    part_time = max(dt, PART_TIME)
    room = settings.max_neighbours
    lines, projected = np.empty((room, 4)), np.empty((room, 4))
    near, near_d2 = np.empty(room, np.int64), np.empty(room)
    result, wish = np.empty(2), np.empty(2)
    for a in range(n):
        if polygon[a] < 0:
            chosen[a, 0], chosen[a, 1] = 0.0, 0.0
            continue
        count = neighbours(position, height_of, grid, a, settings.neighbour_distance, near, near_d2)
        for m in range(count):
            b = near[m]
            share = 0.5
            if speed[b] == 0.0:  # it cannot move: all the avoidance is a's
                share = 1.0
            elif preferred[a, 0] * preferred[b, 0] + preferred[a, 1] * preferred[b, 1] < 0.0:
                share += -settings.yield_share if first_of(priority, a, b) else settings.yield_share
            agent_line(position[a, 0], position[a, 2], velocity[a, 0], velocity[a, 1], radius[a],
                       position[b, 0], position[b, 2], velocity[b, 0], velocity[b, 1], radius[b],
                       settings.time_horizon, part_time, share, lines, m)
        wished_velocity(position, preferred, priority, speed, a, near, count, settings.neighbour_distance,
                        settings.keep_right, settings.give_way_distance, wish)
        solve_velocity(lines, count, speed[a], wish[0], wish[1], projected, result)
        chosen[a, 0], chosen[a, 1] = result[0], result[1]


@njit(cache=True, nogil=True)
def integrate(polygons: PolygonArrays, links: PolygonLinks, portal_segments: np.ndarray, position: np.ndarray,
              polygon: np.ndarray, chosen: np.ndarray, dt: float, velocity: np.ndarray) -> None:
    """Move every agent on the mesh by its chosen velocity for ``dt`` s; ``velocity`` becomes what it really
    moved (m/s; less where an edge stopped or turned it), or the chosen one where that is longer (the nudges
    that keep a move INSET inside its polygon, over a tiny step: 1e-9 m in 1e-300 s is no velocity to avoid
    with)."""
    out = np.empty(2)
    for a in range(position.shape[0]):
        q = polygon[a]
        if q < 0:
            velocity[a, 0], velocity[a, 1] = 0.0, 0.0
            continue
        x, z = position[a, 0], position[a, 2]
        q = move_on_mesh(polygons, links, portal_segments, q, x, z, chosen[a, 0] * dt, chosen[a, 1] * dt, out)
        vx, vz = (out[0] - x) / dt, (out[1] - z) / dt
        if vx * vx + vz * vz > chosen[a, 0] * chosen[a, 0] + chosen[a, 1] * chosen[a, 1]:
            vx, vz = chosen[a, 0], chosen[a, 1]
        velocity[a, 0], velocity[a, 1] = vx, vz
        position[a, 0], position[a, 2] = out[0], out[1]
        polygon[a] = q


# ----------------------------------------------------------------------------------------- separation
@njit(cache=True, nogil=True)
def _push(polygons: PolygonArrays, links: PolygonLinks, portal_segments: np.ndarray, position: np.ndarray,
          polygon: np.ndarray, a: int, dx: float, dz: float, out: np.ndarray) -> float:
    """Move agent ``a`` by (dx, dz) on the mesh; returns how much of the move it made (0 to 1)."""
    q = polygon[a]
    if q < 0:
        return 0.0
    x, z = position[a, 0], position[a, 2]
    polygon[a] = move_on_mesh(polygons, links, portal_segments, q, x, z, dx, dz, out)
    position[a, 0], position[a, 2] = out[0], out[1]
    wanted = dx * dx + dz * dz
    made = ((out[0] - x) * dx + (out[1] - z) * dz) / wanted if wanted > 0.0 else 1.0
    return min(max(made, 0.0), 1.0)


@njit(cache=True, nogil=True)
def separate(polygons: PolygonArrays, links: PolygonLinks, portal_segments: np.ndarray, position: np.ndarray,
             polygon: np.ndarray, radius: np.ndarray, height_of: np.ndarray, iterations: int, slack: float) -> float:
    """Push overlapping pairs apart on the mesh: ``iterations`` passes over the pairs (agent order, neighbours
    by index), each pair moved apart to ``(1 + slack)`` times its radii's sum, half each; what one cannot make
    (an edge, or it is off the mesh) the other makes; it stops after a pass that found no overlap deeper than
    SEPARATED. Returns the largest overlap the last pass found (m)."""
    n = position.shape[0]
    out = np.empty(2)
    reach = 0.0
    for a in range(n):
        reach = max(reach, 2.0 * radius[a] * (1.0 + slack))
    worst = 0.0
    for _ in range(iterations):
        grid = agent_grid(position, max(reach, 1e-6))
        x0, z0, cell, nx, nz, cell_start, cell_agents = grid
        worst = 0.0
        for a in range(n):
            ci = min(int(math.floor((position[a, 0] - x0) / cell)), nx - 1)
            ck = min(int(math.floor((position[a, 2] - z0) / cell)), nz - 1)
            for i in range(max(ci - 1, 0), min(ci + 1, nx - 1) + 1):
                for k in range(max(ck - 1, 0), min(ck + 1, nz - 1) + 1):
                    c = i * nz + k
                    for j in range(cell_start[c], cell_start[c + 1]):
                        b = cell_agents[j]
                        if b <= a or abs(position[b, 1] - position[a, 1]) >= 0.5 * (height_of[a] + height_of[b]):
                            continue
                        rx, rz = position[b, 0] - position[a, 0], position[b, 2] - position[a, 2]
                        distance = math.sqrt(rx * rx + rz * rz)
                        wanted = (radius[a] + radius[b]) * (1.0 + slack)
                        if distance >= wanted:
                            continue
                        worst = max(worst, radius[a] + radius[b] - distance)
                        if distance > 1e-12:
                            ux, uz = rx / distance, rz / distance
                        else:  # on top of each other: part along x, the lower index to -x
                            ux, uz = 1.0, 0.0
                        gap = wanted - distance
                        made = _push(polygons, links, portal_segments, position, polygon, a, -0.5 * gap * ux,
                                     -0.5 * gap * uz, out)
                        rest = gap * (1.0 - 0.5 * made)
                        made_b = _push(polygons, links, portal_segments, position, polygon, b, rest * ux, rest * uz,
                                       out)
                        if made_b < 1.0:  # b is stopped: a takes what b could not
                            left = rest * (1.0 - made_b)
                            _push(polygons, links, portal_segments, position, polygon, a, -left * ux, -left * uz, out)
        if worst <= SEPARATED:
            break
    return worst


@njit(cache=True, nogil=True)
def heights(surface: Surface, position: np.ndarray, polygon: np.ndarray) -> None:
    """Each agent's height (m) on the surface of its polygon (an ``arrays.Surface``)."""
    for a in range(position.shape[0]):
        if polygon[a] >= 0:
            position[a, 1] = height(surface, polygon[a], position[a, 0], position[a, 2])
