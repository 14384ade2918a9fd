"""Kernels that trace a region's outline on its tile's grid and simplify it.

Points are grid corners ``(u, v)`` (whole cells, tile-local: the tile's first column is u = 0). A region's
outline is traced along its cells' sides with the region on the left (counter-clockwise in (u, v)): one outer
loop, and a clockwise loop around each hole. Each side carries a *label*, what lies across it:

- ``WALL`` (-1): nothing the region's samples step to, and no sample of the same level in the tile;
- ``OUT`` (-2): a sample outside the tile the region's sample steps to;
- ``g >= 0``: region g of the tile, which the sample steps to (or which steps to it);
- ``CLIFF + g``: region g of the same level, where neither sample steps to the other nor to any sample of the
  other's column (so that g sees the same label back: a sample of g that steps down past the cliff to a region of
  another level sees that region, and then the side is a ``WALL`` from this one).

Simplification keeps every point where the label changes and every corner of the sides along the tile's edge
(``OUT``), so that two tiles see the same sides. Every other stretch between two kept points is simplified by
Douglas-Peucker within ``max_error`` (cells), keeping a further point while a raw point lies farther than that
from the chord or the chord covers a cell the stretch may not cover (crosses it, or encloses it between itself
and the raw points, as a chord along a grid line across a notch does): for a wall, a cell that is not the
region's and not an empty cell next to it alone; for a stretch two regions share, a cell that is not one of
theirs nor next to them alone, on either's level. A shared stretch is simplified the same way from both sides
(the farthest point, on a tie the lowest), so the two regions keep the same points and their polygons meet
without gap or overlap; no two regions' polygons of one level overlap. Only raw points are kept, so the
simplified outline stays on the grid.
"""

from __future__ import annotations

import numba
import numpy as np

WALL = -1
OUT = -2
BRIDGE = -3  # an edge inside the region: a bridge to a hole, or a diagonal of the triangulation
CLIFF = 1 << 40  # CLIFF + g: region g of the same level, across a side neither sample steps over
_STEP_I = (1, -1, 0, 0)
_STEP_K = (0, 0, 1, -1)


@numba.njit(cache=True, nogil=True)
def claims(label: np.ndarray) -> np.ndarray:
    """``claim[a, b, s]``: the region of sample (a, b, s) of the tile (``label``: region or -1), or for an empty
    one the one region of its level among its eight neighbours (-1: none, -2: more than one)."""
    width, depth, levels = label.shape
    claim = np.full(label.shape, -1, np.int64)
    for s in range(levels):
        for a in range(width):
            for b in range(depth):
                if label[a, b, s] >= 0:
                    claim[a, b, s] = label[a, b, s]
                    continue
                for da in (-1, 0, 1):
                    for db in (-1, 0, 1):
                        na, nb = a + da, b + db
                        if 0 <= na < width and 0 <= nb < depth and label[na, nb, s] >= 0:
                            if claim[a, b, s] == -1:
                                claim[a, b, s] = label[na, nb, s]
                            elif claim[a, b, s] != label[na, nb, s]:
                                claim[a, b, s] = -2
    return claim


@numba.njit(cache=True, nogil=True)
def _side_label(label: np.ndarray, links: np.ndarray, i: int, k: int, s: int, d: int, i_lo: int, k_lo: int, i_hi: int,
                k_hi: int) -> int:
    """What lies across side d of sample (i, k, s) (see the module's docstring); ``label[a, b, t]`` is the
    region of each sample of the tile (-1: none). Two samples step to each other when either steps to the
    other, so both regions see the same label changes."""
    ni, nk = i + _STEP_I[d], k + _STEP_K[d]
    if not (i_lo <= ni < i_hi and k_lo <= nk < k_hi):
        return OUT if links[d, i, k, s] >= 0 else WALL
    a, b = ni - i_lo, nk - k_lo
    t = links[d, i, k, s]
    if t >= 0:
        return label[a, b, t]
    for t in range(label.shape[2]):
        if label[a, b, t] >= 0 and links[d ^ 1, ni, nk, t] == s:
            return label[a, b, t]
    if label[a, b, s] < 0 or links[d ^ 1, ni, nk, s] >= 0:
        return WALL  # nothing of the level across, or it steps to another sample of this column: not a cliff
    for t in range(label.shape[2]):  # nor may another sample of this column step to it
        if label[i - i_lo, k - k_lo, t] >= 0 and links[d, i, k, t] == s:
            return WALL
    return CLIFF + label[a, b, s]


@numba.njit(cache=True, nogil=True)
def trace(label: np.ndarray, links: np.ndarray, g: int, s: int, cell_list: np.ndarray, i_lo: int, k_lo: int, i_hi: int,
          k_hi: int, points: np.ndarray, sides: np.ndarray, loop_start: np.ndarray) -> int:
    """The outline of region g (on level s; its cells ``cell_list[c] = (a, b)``, tile-local): writes the loops'
    points ``points[j] = (u, v)`` and ``sides[j]`` (the label of the side from point j to the next), loop l being
    ``[loop_start[l], loop_start[l + 1])``, the loop through the lowest point (u, then v) first, which is the outer
    one. Returns the loop count, or -1 if a point had two sides leaving it (a pinch)."""
    width, depth = i_hi - i_lo, k_hi - k_lo
    stride = depth + 1
    nxt = np.full((width + 1) * stride, -1, np.int64)
    side_of = np.empty((width + 1) * stride, np.int64)
    for c in range(cell_list.shape[0]):
        a, b = cell_list[c, 0], cell_list[c, 1]
        for d in range(4):
            na, nb = a + _STEP_I[d], b + _STEP_K[d]
            if 0 <= na < width and 0 <= nb < depth and label[na, nb, s] == g:
                continue
            if d == 3:
                p, q = a * stride + b, (a + 1) * stride + b
            elif d == 0:
                p, q = (a + 1) * stride + b, (a + 1) * stride + b + 1
            elif d == 2:
                p, q = (a + 1) * stride + b + 1, a * stride + b + 1
            else:
                p, q = a * stride + b + 1, a * stride + b
            if nxt[p] >= 0:
                return -1
            nxt[p] = q
            side_of[p] = _side_label(label, links, a + i_lo, b + k_lo, s, d, i_lo, k_lo, i_hi, k_hi)
    loops, j = 0, 0
    loop_start[0] = 0
    for start in range((width + 1) * stride):
        if nxt[start] < 0:
            continue
        p = start
        while nxt[p] >= 0:
            points[j, 0], points[j, 1] = p // stride, p % stride
            sides[j] = side_of[p]
            j += 1
            q = nxt[p]
            nxt[p] = -1
            p = q
        loops += 1
        loop_start[loops] = j
    return loops


@numba.njit(cache=True, nogil=True, inline="always")
def _cross(ax: float, ay: float, bx: float, by: float, cx: float, cy: float) -> float:
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@numba.njit(cache=True, nogil=True)
def _crosses_cell(px: float, py: float, qx: float, qy: float, a: int, b: int) -> bool:
    """Whether the segment p-q passes through the open square (a, a + 1) x (b, b + 1)."""
    t0, t1 = 0.0, 1.0
    dx, dy = qx - px, qy - py
    for lo, hi, o, dd in ((a, a + 1.0, px, dx), (b, b + 1.0, py, dy)):
        if dd == 0.0:
            if o <= lo or o >= hi:
                return False
        else:
            ta, tb = (lo - o) / dd, (hi - o) / dd
            if ta > tb:
                ta, tb = tb, ta
            t0, t1 = max(t0, ta), min(t1, tb)
            if t0 >= t1:
                return False
    mx, my = px + 0.5 * (t0 + t1) * dx, py + 0.5 * (t0 + t1) * dy
    return a < mx < a + 1.0 and b < my < b + 1.0


@numba.njit(cache=True, nogil=True)
def _blocked(points: np.ndarray, first: int, n: int, p: int, q: int, claim: np.ndarray, s: int, t: int, g: int, h: int,
             xs: np.ndarray, at: np.ndarray) -> bool:
    """Whether the chord from loop point p to loop point q (a loop of ``n`` points from ``first``) covers a cell
    that the stretch between regions g (level s) and h (level t; h = g for a wall) may not cover: one whose claim
    on level s or t is neither g nor h, that the chord crosses or that lies between the chord and the raw points
    from p to q (its centre inside the loop they close with the chord, even-odd: the raw sides run along the
    grid's lines, so a cell the chord does not cross is inside or outside whole). ``xs``: room for a crossing per
    raw side and per row (twice the loop's points); ``at`` (2, the loop's points + 2) int64: room for where each
    row's crossings start."""
    width, depth = claim.shape[0], claim.shape[1]
    span = (q - p) % n
    px, py = float(points[first + p, 0]), float(points[first + p, 1])
    qx, qy = float(points[first + q, 0]), float(points[first + q, 1])
    u0, u1, v0, v1 = points[first + p, 0], points[first + p, 0], points[first + p, 1], points[first + p, 1]
    for step in range(1, span + 1):
        j = first + (p + step) % n
        u0, u1 = min(u0, points[j, 0]), max(u1, points[j, 0])
        v0, v1 = min(v0, points[j, 1]), max(v1, points[j, 1])
    rows = v1 - v0
    # Where the loop's sides cross each row's centre line, row by row (a counting sort): the raw vertical sides
    # and the chord back from q to p.
    start, fill = at[0], at[1]
    start[:rows + 1] = 0
    for step in range(span):
        j, k = first + (p + step) % n, first + (p + step + 1) % n
        if points[j, 0] == points[k, 0]:
            start[min(points[j, 1], points[k, 1]) - v0 + 1] += 1
    for r in range(rows):
        y = v0 + r + 0.5
        start[r + 1] += (qy - y) * (py - y) < 0.0
    for r in range(rows):
        start[r + 1] += start[r]
    fill[:rows] = start[:rows]
    for step in range(span):
        j, k = first + (p + step) % n, first + (p + step + 1) % n
        if points[j, 0] == points[k, 0]:
            r = min(points[j, 1], points[k, 1]) - v0
            xs[fill[r]] = points[j, 0]
            fill[r] += 1
    for r in range(rows):
        y = v0 + r + 0.5
        if (qy - y) * (py - y) < 0.0:
            xs[fill[r]] = qx + (y - qy) * (px - qx) / (py - qy)
            fill[r] += 1
    for b in range(max(v0, 0), min(v1, depth)):
        r = b - v0
        for a in range(max(u0, 0), min(u1, width)):
            c0, c1 = claim[a, b, s], claim[a, b, t]
            if (c0 != g and c0 != h) or (c1 != g and c1 != h):
                right = 0  # crossings to the right of the cell's centre: odd inside
                for c in range(start[r], start[r + 1]):
                    right += xs[c] > a + 0.5
                if right % 2 == 1 or _crosses_cell(px, py, qx, qy, a, b):
                    return True
    return False


@numba.njit(cache=True, nogil=True)
def _segment_distance2(px: float, py: float, qx: float, qy: float, x: float, y: float) -> float:
    dx, dy = qx - px, qy - py
    length2 = dx * dx + dy * dy
    t = ((x - px) * dx + (y - py) * dy) / length2 if length2 > 0.0 else 0.0
    t = min(max(t, 0.0), 1.0)
    ex, ey = px + t * dx - x, py + t * dy - y
    return ex * ex + ey * ey


@numba.njit(cache=True, nogil=True, inline="always")
def _before(points: np.ndarray, a: int, b: int) -> bool:
    """Whether point a comes before point b (u, then v): the tie-break both sides of a stretch agree on."""
    return points[a, 0] < points[b, 0] or (points[a, 0] == points[b, 0] and points[a, 1] < points[b, 1])


@numba.njit(cache=True, nogil=True)
def _simplify_stretch(points: np.ndarray, first: int, n: int, p: int, q: int, max_error2: float, claim: np.ndarray,
                      s: int, t: int, g: int, h: int, keep: np.ndarray, stack: np.ndarray, xs: np.ndarray,
                      at: np.ndarray) -> None:
    """Douglas-Peucker over the raw points strictly between loop indices p and q (cyclic, loop of ``n`` points
    from ``first``), between regions g (level s) and h (level t): marks ``keep`` for the points it needs."""
    stack[0, 0], stack[0, 1] = p, q
    top = 1
    while top > 0:
        top -= 1
        a, b = stack[top, 0], stack[top, 1]
        span = (b - a) % n
        if span <= 1:
            continue
        ax, ay = float(points[first + a, 0]), float(points[first + a, 1])
        bx, by = float(points[first + b, 0]), float(points[first + b, 1])
        worst, worst_d = -1, -1.0
        for step in range(1, span):
            j = (a + step) % n
            dist = _segment_distance2(ax, ay, bx, by, float(points[first + j, 0]), float(points[first + j, 1]))
            if dist > worst_d or (dist == worst_d and _before(points, first + j, first + worst)):
                worst, worst_d = j, dist
        if worst_d > max_error2 or _blocked(points, first, n, a, b, claim, s, t, g, h, xs, at):
            keep[first + worst] = True
            stack[top, 0], stack[top, 1] = a, worst
            stack[top + 1, 0], stack[top + 1, 1] = worst, b
            top += 2


@numba.njit(cache=True, nogil=True, inline="always")
def _exact(side: int, wall_error: float, shared_error: float) -> bool:
    """Whether a side's stretch keeps every corner."""
    if side == OUT:
        return True
    return (wall_error < 0) if side == WALL else (shared_error < 0)


def simplify(points: np.ndarray, sides: np.ndarray, loop_start: np.ndarray, loops: int, wall_error: float,
             shared_error: float, claim: np.ndarray, region_level: np.ndarray, g: int, keep: np.ndarray) -> None:
    """Mark in ``keep`` the points of region g's traced loops that its simplified outline keeps (see the
    module's docstring): walls within ``wall_error``, stretches shared with another region within
    ``shared_error`` (cells; < 0: keep every corner). ``claim[a, b, s]`` as :func:`claims` gives for each
    level, ``region_level[h]`` the level of region h. (:func:`simplify_forced` with no point forced: a plain
    function, which the tests call; the bake calls :func:`simplify_forced` itself.)"""
    none = np.zeros((0, 0), np.bool_)
    simplify_forced(points, sides, loop_start, loops, wall_error, shared_error, claim, region_level, g, keep, none,
                    np.zeros((0, 0), np.bool_))


@numba.njit(cache=True, nogil=True)
def _simplify_from(points: np.ndarray, sides: np.ndarray, first: int, n: int, step: int, wall_error: float,
                   shared_error: float, claim: np.ndarray, region_level: np.ndarray, g: int, keep: np.ndarray,
                   stack: np.ndarray, xs: np.ndarray, at: np.ndarray) -> None:
    """Simplify the stretch of region g's loop (``n`` points from ``first``) from its kept point ``step`` to the
    next kept one (one label all along: the kept points hold every change), unless its label keeps it exact."""
    u = (step + 1) % n
    while not keep[first + u]:
        u = (u + 1) % n
    side = sides[first + step]
    if _exact(side, wall_error, shared_error):
        return
    h = g if side == WALL else (side - CLIFF if side >= CLIFF else side)
    error = wall_error if side == WALL else shared_error
    _simplify_stretch(points, first, n, step, u, error * error, claim, region_level[g], region_level[h], g, h, keep,
                      stack, xs, at)


@numba.njit(cache=True, nogil=True)
def simplify_forced(points: np.ndarray, sides: np.ndarray, loop_start: np.ndarray, loops: int, wall_error: float,
                    shared_error: float, claim: np.ndarray, region_level: np.ndarray, g: int, keep: np.ndarray,
                    force: np.ndarray, want: np.ndarray) -> bool:
    """:func:`simplify`, keeping besides every point ``(u, v)`` its loops pass through where ``force[u, v]``
    (empty: none). A loop simplified to fewer than three points gets the farthest of its points from the kept
    ones' sides (the lowest on a tie), and the two stretches it splits are simplified again; where that point
    lies inside a stretch shared with another region (and the loop has more than one label: else the region
    across traces the same loop and adds the same point), the region across keeps its chord, so their sides
    would part (and the portal between them with them): ``want[u, v]`` is set (when ``want`` is not empty) and
    False returned, and a tile simplifies all of its regions again with those points forced
    (``polygons._region_polygons``), which both sides keep. Returns whether no point was wanted."""
    stack = np.empty((points.shape[0] + 2, 2), np.int64)
    xs = np.empty(2 * points.shape[0] + 2)
    at = np.empty((2, points.shape[0] + 2), np.int64)
    forced = force.shape[0] > 0
    consistent = True
    for which_loop in range(loops):
        first, n = loop_start[which_loop], loop_start[which_loop + 1] - loop_start[which_loop]
        changes = 0
        for step in range(n):
            j, before = first + step, first + (step - 1) % n
            nxt = first + (step + 1) % n
            turn = (points[nxt, 0] - points[j, 0]) * (points[j, 1] - points[before, 1]) != \
                (points[nxt, 1] - points[j, 1]) * (points[j, 0] - points[before, 0])
            changes += sides[j] != sides[before]
            keep[j] = sides[j] != sides[before] or (turn and _exact(sides[j], wall_error, shared_error)) \
                or (forced and force[points[j, 0], points[j, 1]])
        one_label = changes == 0
        if one_label:  # one label all round, simplified: start from the lowest and the highest point too
            low, high = first, first
            for j in range(first, first + n):
                if _before(points, j, low):
                    low = j
                if _before(points, high, j):
                    high = j
            keep[low], keep[high] = True, True
        for step in range(n):
            if keep[first + step]:
                _simplify_from(points, sides, first, n, step, wall_error, shared_error, claim, region_level, g, keep,
                               stack, xs, at)
        kept = 0
        for j in range(first, first + n):
            kept += keep[j]
        while kept < 3:  # a loop needs three points: add the farthest from the kept ones' sides (lowest on a tie),
            # and simplify the two stretches it splits again (their chords may cover cells the one before did not)
            worst, worst_d = -1, -1.0
            for step in range(n):
                if keep[first + step]:
                    continue
                best = np.inf
                for a in range(n):
                    if keep[first + a]:
                        b = (a + 1) % n
                        while not keep[first + b]:
                            b = (b + 1) % n
                        best = min(best, _segment_distance2(float(points[first + a, 0]), float(points[first + a, 1]),
                                                            float(points[first + b, 0]), float(points[first + b, 1]),
                                                            float(points[first + step, 0]),
                                                            float(points[first + step, 1])))
                if best > worst_d or (best == worst_d and _before(points, first + step, first + worst)):
                    worst, worst_d = step, best
            keep[first + worst] = True
            before = (worst - 1) % n
            while not keep[first + before]:
                before = (before - 1) % n
            _simplify_from(points, sides, first, n, before, wall_error, shared_error, claim, region_level, g, keep,
                           stack, xs, at)
            _simplify_from(points, sides, first, n, worst, wall_error, shared_error, claim, region_level, g, keep,
                           stack, xs, at)
            kept = 0
            for j in range(first, first + n):
                kept += keep[j]
            side = sides[first + worst]
            if not one_label and side != WALL and side != OUT:  # inside a shared stretch
                consistent = False
                if want.shape[0] > 0:
                    want[points[first + worst, 0], points[first + worst, 1]] = True
    return consistent


@numba.njit(cache=True, nogil=True)
def _segments_meet(ax: int, ay: int, bx: int, by: int, cx: int, cy: int, dx: int, dy: int) -> bool:
    """Whether the closed segments a-b and c-d share a point (exact on whole coordinates)."""
    d1 = _cross(cx, cy, dx, dy, ax, ay)
    d2 = _cross(cx, cy, dx, dy, bx, by)
    d3 = _cross(ax, ay, bx, by, cx, cy)
    d4 = _cross(ax, ay, bx, by, dx, dy)
    if ((d1 > 0 and d2 < 0) or (d1 < 0 and d2 > 0)) and ((d3 > 0 and d4 < 0) or (d3 < 0 and d4 > 0)):
        return True
    for (px, py, qx, qy, rx, ry, d) in ((cx, cy, dx, dy, ax, ay, d1), (cx, cy, dx, dy, bx, by, d2),
                                        (ax, ay, bx, by, cx, cy, d3), (ax, ay, bx, by, dx, dy, d4)):
        if d == 0 and min(px, qx) <= rx <= max(px, qx) and min(py, qy) <= ry <= max(py, qy):
            return True
    return False


@numba.njit(cache=True, nogil=True)
def _inside_loop(points: np.ndarray, order: np.ndarray, first: int, last: int, x: int, y: int) -> bool:
    """Whether (x, y), on no side of the loop ``order[first:last]``, lies inside it (crossings of a ray to +x)."""
    inside = False
    for j in range(first, last):
        a, b = order[j], order[first + (j + 1 - first) % (last - first)]
        ay, by = points[a, 1], points[b, 1]
        if (ay > y) != (by > y):
            cx = points[a, 0] + (y - ay) * (points[b, 0] - points[a, 0]) / (by - ay)
            if cx > x:
                inside = not inside
    return inside


@numba.njit(cache=True, nogil=True)
def loops_valid(points: np.ndarray, loop_start: np.ndarray, loops: int, order: np.ndarray) -> bool:
    """Whether the loops through ``points[order[...]]`` (loop l: ``order[loop_start[l]:loop_start[l + 1]]``)
    are simple, apart from each other, the first counter-clockwise and the others clockwise inside it and not
    inside each other: no two sides meet except consecutive sides at their shared point, and no side folds back
    on the one before."""
    total = loop_start[loops]
    for which_loop in range(loops):
        first, last = loop_start[which_loop], loop_start[which_loop + 1]
        if last - first < 3:
            return False
        area = 0
        for j in range(first, last):
            p, q = order[j], order[first + (j + 1 - first) % (last - first)]
            area += points[p, 0] * points[q, 1] - points[q, 0] * points[p, 1]
        if (which_loop == 0) != (area > 0):
            return False
    loop_of = np.empty(total, np.int64)
    for which_loop in range(loops):
        loop_of[loop_start[which_loop]:loop_start[which_loop + 1]] = which_loop
    for e in range(total):
        which_loop = loop_of[e]
        first, n = loop_start[which_loop], loop_start[which_loop + 1] - loop_start[which_loop]
        a, b = order[e], order[first + (e + 1 - first) % n]
        ax, ay, bx, by = points[a, 0], points[a, 1], points[b, 0], points[b, 1]
        x0, x1, y0, y1 = min(ax, bx), max(ax, bx), min(ay, by), max(ay, by)
        for f in range(e + 1, total):
            m = loop_of[f]
            mfirst, mn = loop_start[m], loop_start[m + 1] - loop_start[m]
            c, d = order[f], order[mfirst + (f + 1 - mfirst) % mn]
            cx, cy, dx, dy = points[c, 0], points[c, 1], points[d, 0], points[d, 1]
            if (cx < x0 and dx < x0) or (cx > x1 and dx > x1) or (cy < y0 and dy < y0) or (cy > y1 and dy > y1):
                continue  # apart from side e's box (consecutive sides share a point: never apart)
            if m == which_loop and (f == first + (e + 1 - first) % n or e == first + (f + 1 - first) % n):
                # consecutive: they share one point; they must not fold back along each other
                if f == first + (e + 1 - first) % n:
                    fold = _cross(ax, ay, bx, by, dx, dy) == 0 and (bx - ax) * (dx - cx) + (by - ay) * (dy - cy) < 0
                else:
                    fold = _cross(cx, cy, dx, dy, bx, by) == 0 and (dx - cx) * (bx - ax) + (dy - cy) * (by - ay) < 0
                if fold:
                    return False
                continue
            if _segments_meet(ax, ay, bx, by, cx, cy, dx, dy):
                return False
    for which_loop in range(1, loops):  # no sides meet: one point of each hole tells where it lies
        p = order[loop_start[which_loop]]
        if not _inside_loop(points, order, loop_start[0], loop_start[1], points[p, 0], points[p, 1]):
            return False
        for m in range(1, loops):
            if m != which_loop and _inside_loop(points, order, loop_start[m], loop_start[m + 1], points[p, 0],
                                                points[p, 1]):
                return False
    return True
