"""Walkable cells to polygons: the last step of a bake.

A level of walkable cells (a :class:`WalkableGrid`: a boolean grid on the x-z plane and the ground height of
each cell) becomes axis-aligned rectangles of cells (greedy, row by row: closed, simple, hole-free, four
corners, or two triangles each when ``max_corners`` is 3), so the polygons cover the walkable cells exactly
(contour error 0). Polygons that share a stretch of boundary on the same level, or whose touching cells are
within ``step_limit`` in height across levels, are neighbours through a *portal*, the shared segment.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError, check_finite, check_integer
from .navmesh import NavMesh

__all__ = ["WalkableGrid", "navmesh_from_grids"]


@dataclass(frozen=True)
class WalkableGrid:
    """One level of walkable cells: ``walkable[i, k]`` for the cell whose centre is at
    ``(x0 + (i + 0.5) * cell, z0 + (k + 0.5) * cell)``, standing at height ``height[i, k]`` (m)."""

    walkable: np.ndarray  # (nx, nz) bool
    height: np.ndarray  # (nx, nz) float64, metres (ignored where not walkable)
    x0: float  # metres
    z0: float  # metres
    cell: float  # metres (> 0)



def _rectangles(walkable: np.ndarray, height: np.ndarray, height_error: float) -> list[tuple[int, int, int, int]]:
    """Greedy cover of the walkable cells by rectangles (i0, k0, i1, k1), half-open, row by row; a rectangle
    only spans cells within ``height_error`` of its first cell's height, so a flat polygon stands for them all
    within that error (and never bridges a wall or a drop)."""
    free = walkable.copy()
    nx, nz = free.shape
    out = []
    for i in range(nx):
        k = 0
        while k < nz:
            if not free[i, k]:
                k += 1
                continue
            base = height[i, k]
            k1 = k + 1
            while k1 < nz and free[i, k1] and abs(height[i, k1] - base) <= height_error:
                k1 += 1
            i1 = i + 1
            while i1 < nx and free[i1, k:k1].all() and np.all(np.abs(height[i1, k:k1] - base) <= height_error):
                i1 += 1
            free[i:i1, k:k1] = False
            out.append((i, k, i1, k1))
            k = k1
    return out


def navmesh_from_grids(grids: list[WalkableGrid], max_corners: int = 6, step_limit: float = 0.0,
                       height_error: float = 0.05) -> NavMesh:
    """A navmesh covering the walkable cells of every level exactly.

    Each level's cells become rectangles of cells within ``height_error`` metres of one height (two triangles
    each when ``max_corners`` is 3); a polygon's height is the mean height of its cells. Polygons touching along
    a stretch of boundary are neighbours when some pair of cells facing each other across it differ in height
    by at most ``step_limit`` metres (on one level or across levels).
    """
    max_corners = check_integer("max_corners", max_corners, minimum=3)
    step_limit = check_finite("step_limit", step_limit, minimum=0.0, unit="m")
    height_error = check_finite("height_error", height_error, minimum=0.0, unit="m")
    vertices: list[tuple[float, float, float]] = []
    starts, corners, levels = [0], [], []
    boxes = []  # (level, i0, k0, i1, k1, height, polygon indices)
    for level, grid in enumerate(grids):
        if grid.walkable.shape != grid.height.shape or grid.walkable.ndim != 2:
            raise ParameterError("grids", f"level {level}: walkable {grid.walkable.shape}, height {grid.height.shape}",
                                 "equal 2-D shapes")
        for i0, k0, i1, k1 in _rectangles(grid.walkable, grid.height, height_error):
            h = float(grid.height[i0:i1, k0:k1].mean())
            x0, x1 = grid.x0 + i0 * grid.cell, grid.x0 + i1 * grid.cell
            z0, z1 = grid.z0 + k0 * grid.cell, grid.z0 + k1 * grid.cell
            base = len(vertices)
            # Counter-clockwise seen from above (+y): x right, z towards the viewer... in x-z with y up, the
            # order (x0,z0) (x0,z1) (x1,z1) (x1,z0) turns counter-clockwise.
            vertices += [(x0, h, z0), (x0, h, z1), (x1, h, z1), (x1, h, z0)]
            polys = []
            if max_corners >= 4:
                corners += [base, base + 1, base + 2, base + 3]
                starts.append(len(corners))
                levels.append(level)
                polys.append(len(levels) - 1)
            else:
                for tri in ((base, base + 1, base + 2), (base, base + 2, base + 3)):
                    corners += list(tri)
                    starts.append(len(corners))
                    levels.append(level)
                    polys.append(len(levels) - 1)
            boxes.append((level, grid, i0, k0, i1, k1, h, polys))
    portals, segments = [], []
    # Which box owns each cell, per grid: candidates for neighbours are the owners of the cells just outside a
    # box, in its own grid and in every grid laid on the same cells.
    owners = {}
    for n, (_, grid, i0, k0, i1, k1, _, _) in enumerate(boxes):
        if id(grid) not in owners:
            owners[id(grid)] = np.full(grid.walkable.shape, -1, dtype=np.int64)
        owners[id(grid)][i0:i1, k0:k1] = n
    layers = {}
    for grid in grids:
        layers.setdefault((grid.walkable.shape, grid.cell, grid.x0, grid.z0), []).append(owners.get(id(grid)))
    for n, (la, ga, ai0, ak0, ai1, ak1, ha, pa) in enumerate(boxes):
        nx, nz = ga.walkable.shape
        candidates = set()
        for owner in layers[(ga.walkable.shape, ga.cell, ga.x0, ga.z0)]:
            if owner is None:
                continue
            if ai1 < nx:
                candidates.update(owner[ai1, ak0:ak1].tolist())
            if ak1 < nz:
                candidates.update(owner[ai0:ai1, ak1].tolist())
        for m in sorted(c for c in candidates if c >= 0 and c != n):
            lb, gb, bi0, bk0, bi1, bk1, hb, pb = boxes[m]
            segment = _shared_edge(ga, (ai0, ak0, ai1, ak1), (bi0, bk0, bi1, bk1), ha, hb)
            if segment is None or not _can_step(ga, gb, (ai0, ak0, ai1, ak1), (bi0, bk0, bi1, bk1), step_limit):
                continue
            qa = _polygon_on_edge(pa, ga, (ai0, ak0, ai1, ak1), segment)
            qb = _polygon_on_edge(pb, gb, (bi0, bk0, bi1, bk1), segment)
            portals.append((min(qa, qb), max(qa, qb)))
            segments.append(segment)
    # Triangles split from one rectangle are neighbours through its diagonal.
    for _, grid, i0, k0, i1, k1, h, polys in boxes:
        if len(polys) == 2:
            x0, x1 = grid.x0 + i0 * grid.cell, grid.x0 + i1 * grid.cell
            z0, z1 = grid.z0 + k0 * grid.cell, grid.z0 + k1 * grid.cell
            portals.append((polys[0], polys[1]))
            segments.append(((x0, h, z0), (x1, h, z1)))
    order = sorted(range(len(portals)), key=lambda r: portals[r])
    return NavMesh(np.array(vertices, dtype=np.float64).reshape(-1, 3), np.array(starts, dtype=np.int64),
                   np.array(corners, dtype=np.int64), np.array(levels, dtype=np.int64),
                   np.array([portals[r] for r in order], dtype=np.int64).reshape(-1, 2),
                   np.array([segments[r] for r in order], dtype=np.float64).reshape(-1, 2, 3))


def _shared_edge(grid, a, b, ha, hb):
    """The segment (m) two cell rectangles share on the x-z plane, at the mean of their heights; None when they
    share no stretch of positive length."""
    ai0, ak0, ai1, ak1 = a
    bi0, bk0, bi1, bk1 = b
    h = 0.5 * (ha + hb)
    c, x0, z0 = grid.cell, grid.x0, grid.z0
    if ai1 == bi0 or bi1 == ai0:  # side by side along x
        i = ai1 if ai1 == bi0 else ai0
        lo, hi = max(ak0, bk0), min(ak1, bk1)
        if hi > lo:
            return ((x0 + i * c, h, z0 + lo * c), (x0 + i * c, h, z0 + hi * c))
    if ak1 == bk0 or bk1 == ak0:  # side by side along z
        k = ak1 if ak1 == bk0 else ak0
        lo, hi = max(ai0, bi0), min(ai1, bi1)
        if hi > lo:
            return ((x0 + lo * c, h, z0 + k * c), (x0 + hi * c, h, z0 + k * c))
    return None


def _can_step(ga, gb, a, b, step_limit) -> bool:
    """Whether some pair of cells facing each other across the rectangles' shared edge differ in height by at
    most ``step_limit``."""
    ai0, ak0, ai1, ak1 = a
    bi0, bk0, bi1, bk1 = b
    if ai1 == bi0 or bi1 == ai0:
        ia, ib = (ai1 - 1, bi0) if ai1 == bi0 else (ai0, bi1 - 1)
        ks = range(max(ak0, bk0), min(ak1, bk1))
        pairs = [(ga.height[ia, k], gb.height[ib, k]) for k in ks]
    else:
        ka, kb = (ak1 - 1, bk0) if ak1 == bk0 else (ak0, bk1 - 1)
        is_ = range(max(ai0, bi0), min(ai1, bi1))
        pairs = [(ga.height[i, ka], gb.height[i, kb]) for i in is_]
    return any(abs(p - q) <= step_limit for p, q in pairs)


def _polygon_on_edge(polys, grid, box, segment):
    """Which polygon of a rectangle holds a segment of its boundary: the rectangle itself, or of its two
    triangles (split along (x0, z0)-(x1, z1)) the first for the sides x = x0 and z = z1, else the second."""
    if len(polys) == 1:
        return polys[0]
    i0, k0, i1, k1 = box
    x0, z1 = grid.x0 + i0 * grid.cell, grid.z0 + k1 * grid.cell
    (sx, _, sz), (tx, _, tz) = segment
    on_first = (sx == tx == x0) or (sz == tz == z1)
    return polys[0] if on_first else polys[1]
