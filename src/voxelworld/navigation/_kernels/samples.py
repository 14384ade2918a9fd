"""Kernels over a region's walkable samples ``height[i, k, s]`` (m, NaN where none): which neighbouring sample
each one steps to, and the islands they form."""

from __future__ import annotations

import numba
import numpy as np

DIRECTIONS = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]], dtype=np.int64)  # +x, -x, +z, -z


@numba.njit(cache=True, nogil=True, inline="always")
def _link(height: np.ndarray, ceiling: np.ndarray, enclosure: np.ndarray, step_limit: float, clearance: float, i: int,
          k: int, s: int, ni: int, nk: int) -> int:
    """The level of column (ni, nk) (inside the grid) that sample (i, k, s) steps to, or -1 (see level_links).
    Inlined where it is used, so passing the arrays costs no reference counting."""
    best, best_gap = -1, np.inf
    y = height[i, k, s]
    if not np.isnan(y):
        for t in range(height.shape[2]):
            f = height[ni, nk, t]
            if np.isnan(f) or enclosure[ni, nk, t] != enclosure[i, k, s]:
                continue
            if min(ceiling[i, k, s], ceiling[ni, nk, t]) - max(y, f) < clearance:
                continue
            gap = abs(f - y)
            if gap < best_gap:
                best, best_gap = t, gap
    return best if best_gap <= step_limit else -1


@numba.njit(cache=True, nogil=True)
def level_links(height: np.ndarray, ceiling: np.ndarray, enclosure: np.ndarray, step_limit: float, clearance: float,
                directions: np.ndarray, i_lo: int, k_lo: int, i_hi: int, k_hi: int, links: np.ndarray) -> None:
    """``links[d, i, k, s]`` for the columns [i_lo, i_hi) x [k_lo, k_hi): the level of the neighbour in
    direction d that sample (i, k, s) steps to, or -1: the nearest in height within ``step_limit`` (the lowest
    level on a tie) among the neighbour's samples that lie in as many closed solids (``enclosure``) and whose
    free space (up to ``ceiling``) overlaps the sample's by at least ``clearance``. Other columns of ``links``
    are left as they are."""
    changed = np.zeros(height.shape[:2], dtype=np.bool_)
    relink(height, ceiling, enclosure, step_limit, clearance, directions, i_lo, k_lo, i_hi, k_hi, links, changed)


@numba.njit(cache=True, nogil=True)
def relink(height: np.ndarray, ceiling: np.ndarray, enclosure: np.ndarray, step_limit: float, clearance: float,
           directions: np.ndarray, i_lo: int, k_lo: int, i_hi: int, k_hi: int, links: np.ndarray, changed: np.ndarray
           ) -> None:
    """:func:`level_links` over the columns [i_lo, i_hi) x [k_lo, k_hi) of ``links`` as they were, setting
    ``changed[i, k]`` where a link of column (i, k) is not what it was."""
    nx, nz, levels = height.shape
    for d in range(4):
        dx, dz = directions[d, 0], directions[d, 1]
        for i in range(i_lo, i_hi):
            for k in range(k_lo, k_hi):
                ni, nk = i + dx, k + dz
                inside = 0 <= ni < nx and 0 <= nk < nz
                for s in range(levels):
                    link = _link(height, ceiling, enclosure, step_limit, clearance, i, k, s, ni, nk) if inside else -1
                    if links[d, i, k, s] != link:
                        links[d, i, k, s] = link
                        changed[i, k] = True


CORNER_X = np.array([0, 1, 0, 1], dtype=np.int64)  # a cell's corners by the two directions meeting there:
CORNER_Z = np.array([2, 2, 3, 3], dtype=np.int64)  # (+x, +z), (-x, +z), (+x, -z), (-x, -z)


@numba.njit(cache=True, nogil=True)
def corner_probes(height: np.ndarray, links: np.ndarray, directions: np.ndarray, i_lo: int, k_lo: int, i_hi: int,
                  k_hi: int, probes: np.ndarray) -> int:
    """The corners to probe of the samples of columns [i_lo, i_hi) x [k_lo, k_hi): rows ``(i, k, s, c)`` of
    ``probes`` (in that order), corner c of the sample's cell being next to a missing link: on one of the two
    sides of the cell meeting there, or between the neighbours across them (elsewhere the four cells around the
    corner hold the floor). Returns how many rows were written."""
    levels = height.shape[2]
    n = 0
    for i in range(i_lo, i_hi):
        for k in range(k_lo, k_hi):
            for s in range(levels):
                if np.isnan(height[i, k, s]):
                    continue
                for c in range(4):
                    dx, dz = CORNER_X[c], CORNER_Z[c]
                    a, b = links[dx, i, k, s], links[dz, i, k, s]
                    if (a < 0 or b < 0 or links[dz, i + directions[dx, 0], k + directions[dx, 1], a] < 0
                            or links[dx, i + directions[dz, 0], k + directions[dz, 1], b] < 0):
                        probes[n, 0], probes[n, 1], probes[n, 2], probes[n, 3] = i, k, s, c
                        n += 1
    return n


@numba.njit(cache=True, nogil=True)
def _root(parent: np.ndarray, a: int) -> int:
    while parent[a] != a:
        parent[a] = parent[parent[a]]
        a = parent[a]
    return a


@numba.njit(cache=True, nogil=True)
def island_labels(height: np.ndarray, links: np.ndarray, labels: np.ndarray) -> int:
    """Label each sample with its island (samples joined through +x and +z links to samples that exist),
    islands numbered in the order of their first sample in C order; -1 where there is no sample. Returns the
    number of islands."""
    nx, nz, levels = height.shape
    parent = np.arange(nx * nz * levels)
    for i in range(nx):
        for k in range(nz):
            for s in range(levels):
                if np.isnan(height[i, k, s]):
                    continue
                a = (i * nz + k) * levels + s
                for d in (0, 2):
                    t = links[d, i, k, s]
                    ni, nk = (i + 1, k) if d == 0 else (i, k + 1)
                    if t < 0 or np.isnan(height[ni, nk, t]):
                        continue
                    ra, rb = _root(parent, a), _root(parent, (ni * nz + nk) * levels + t)
                    if ra < rb:  # the root stays the island's first sample
                        parent[rb] = ra
                    elif rb < ra:
                        parent[ra] = rb
    count = 0
    flat = labels.reshape(-1)
    order = np.full(nx * nz * levels, -1, dtype=np.int64)
    for a in range(nx * nz * levels):
        i, rest = divmod(a, nz * levels)
        k, s = divmod(rest, levels)
        if np.isnan(height[i, k, s]):
            flat[a] = -1
            continue
        r = _root(parent, a)
        if order[r] < 0:
            order[r] = count
            count += 1
        flat[a] = order[r]
    return count


@numba.njit(cache=True, nogil=True, inline="always")
def _island_edge(height: np.ndarray, ceiling: np.ndarray, enclosure: np.ndarray, step_limit: float, clearance: float,
                 a: int, n: int, nz: int, levels: int) -> int:
    """Neighbour number ``n`` (0-1: the +x and +z links of sample ``a``; 2 + t, levels + 2 + t: sample t of the
    column at -x or -z, if its link leads to ``a``) of flat sample ``a`` in the graph island_labels joins, or
    -1."""
    i, rest = divmod(a, nz * levels)
    k, s = divmod(rest, levels)
    nx = height.shape[0]
    if n < 2:
        ni, nk = (i + 1, k) if n == 0 else (i, k + 1)
        if ni >= nx or nk >= nz:
            return -1
        t = _link(height, ceiling, enclosure, step_limit, clearance, i, k, s, ni, nk)
        return -1 if t < 0 or np.isnan(height[ni, nk, t]) else (ni * nz + nk) * levels + t
    t = (n - 2) % levels
    pi, pk = (i - 1, k) if n - 2 < levels else (i, k - 1)
    if pi < 0 or pk < 0 or np.isnan(height[pi, pk, t]):
        return -1
    if _link(height, ceiling, enclosure, step_limit, clearance, pi, pk, t, i, k) != s:
        return -1
    return (pi * nz + pk) * levels + t


@numba.njit(cache=True, nogil=True)
def refresh_islands(height: np.ndarray, ceiling: np.ndarray, enclosure: np.ndarray, step_limit: float, clearance: float,
                    seeds: np.ndarray, smallest: int, final: np.ndarray, changed: np.ndarray) -> int:
    """Bring ``final`` (the samples kept after small islands are dropped, NaN elsewhere) up to date with
    ``height`` after it changed inside the columns that ``seeds`` lists and their neighbours.

    ``seeds`` (n, 4) holds blocks of columns ``(i0, k0, i1, k1)``: the first holds every column whose sample,
    ceiling or enclosure changed, and the one around it on each side; every sample there, and every sample of
    the others that ``final`` drops, starts a walk over its island (the samples joined as in
    :func:`island_labels`) that stops as soon as it has met ``smallest`` samples or an island already known to
    be that large. An island that is not walked lies wholly outside the first block and is the same island it
    was, so its samples keep their fate. Samples in islands of fewer than ``smallest`` samples are dropped, the
    others kept; ``changed[i, k]`` is set where column (i, k) of ``final`` changed. Returns how many samples
    were walked."""
    nx, nz, levels = height.shape
    flat_height, flat_final = height.reshape(-1), final.reshape(-1)
    state = np.zeros(nx * nz * levels, dtype=np.int8)  # 0 not met, 1 met on this walk, 2 kept, 3 dropped
    queue = np.empty(max(min(smallest, nx * nz * levels), 1), dtype=np.int64)
    walked = 0
    i0, k0, i1, k1 = seeds[0, 0], seeds[0, 1], seeds[0, 2], seeds[0, 3]
    for i in range(i0, i1):  # where there is no sample now, there is nothing to keep
        for k in range(k0, k1):
            for s in range(levels):
                if np.isnan(height[i, k, s]) and not np.isnan(final[i, k, s]):
                    final[i, k, s] = np.nan
                    changed[i, k] = True
    for b in range(seeds.shape[0]):
        for i in range(seeds[b, 0], seeds[b, 2]):
            for k in range(seeds[b, 1], seeds[b, 3]):
                for s in range(levels):
                    a = (i * nz + k) * levels + s
                    if state[a] != 0 or np.isnan(flat_height[a]) or (b > 0 and not np.isnan(flat_final[a])):
                        continue
                    state[a], queue[0], count, head = 1, a, 1, 0
                    large = count >= smallest
                    while head < count and not large:
                        here = queue[head]
                        head += 1
                        for n in range(2 + 2 * levels):
                            there = _island_edge(height, ceiling, enclosure, step_limit, clearance, here, n, nz,
                                                 levels)
                            if there < 0 or state[there] == 1:
                                continue
                            if state[there] == 2:
                                large = True
                                break
                            state[there] = 1
                            queue[count] = there
                            count += 1
                            if count >= smallest:
                                large = True
                                break
                    walked += count
                    for q in range(count):
                        x = queue[q]
                        state[x] = 2 if large else 3
                        value = flat_height[x] if large else np.nan
                        old = flat_final[x]
                        if not (old == value or (np.isnan(old) and np.isnan(value))):
                            flat_final[x] = value
                            changed[x // (nz * levels), (x // levels) % nz] = True
    return walked



@numba.njit(cache=True, nogil=True)
def _near_sources(start: np.ndarray, reach: int) -> np.ndarray:
    """Per column: whether a column at most ``reach`` columns away along x and along z (a square around it) holds
    a sample missing a link (``start`` 0.5), counted along z and then along x with running sums."""
    nx, nz, levels = start.shape
    count = np.zeros((nx, nz + 1), dtype=np.int64)  # sources in columns (i, 0..k-1)
    for i in range(nx):
        for k in range(nz):
            here = 0
            for s in range(levels):
                if start[i, k, s] == 0.5:
                    here = 1
            count[i, k + 1] = count[i, k] + here
    rows = np.zeros((nx + 1, nz), dtype=np.int64)  # columns (0..i-1, k) with a source within reach along z
    for i in range(nx):
        for k in range(nz):
            met = count[i, min(k + reach + 1, nz)] - count[i, max(k - reach, 0)] > 0
            rows[i + 1, k] = rows[i, k] + (1 if met else 0)
    near = np.empty((nx, nz), dtype=np.bool_)
    for i in range(nx):
        for k in range(nz):
            near[i, k] = rows[min(i + reach + 1, nx), k] - rows[max(i - reach, 0), k] > 0
    return near


@numba.njit(cache=True, nogil=True)
def eroded_heights(height: np.ndarray, links: np.ndarray, directions: np.ndarray, rounds: int, radius: float,
                   out: np.ndarray) -> None:
    """``out``: ``height`` without the samples closer than ``radius`` (cells) to the walkable area's edge, by their
    distance after ``rounds`` rounds of relaxation over the links: 0.5 on a sample missing a link, inf on the
    others (0 where there is no sample) at first; per round, each of the 4 straight directions (+1 cell) and then
    each of the 4 diagonals, two links away (+sqrt 2), each over the whole grid at once.

    Only the samples of the columns within ``ceil(radius)`` of a sample missing a link are relaxed (those missing
    one stay at 0.5: a way to them is longer): every distance is 0.5 at such a sample plus at least 1 per column a
    way moves along x or z, so elsewhere it stays at least ``radius``.
    Where the others are read as inf instead, a distance under ``radius`` is the same number (the way giving it
    runs through distances under ``radius`` only) and one at least ``radius`` stays so: the samples kept are
    the same."""
    nx, nz, levels = height.shape
    old = np.empty(height.shape)
    for i in range(nx):
        for k in range(nz):
            for s in range(levels):
                if np.isnan(height[i, k, s]):
                    old[i, k, s] = 0.0
                    continue
                old[i, k, s] = np.inf
                for d in range(4):
                    if links[d, i, k, s] < 0:
                        old[i, k, s] = 0.5
    near = _near_sources(old, int(np.ceil(radius)))
    count = 0  # the samples relaxed: those of the columns near an edge that are neither an edge nor missing
    for i in range(nx):
        for k in range(nz):
            if near[i, k]:
                for s in range(levels):
                    if old[i, k, s] == np.inf:
                        count += 1
    band = np.empty((count, 3), dtype=np.int64)
    count = 0
    for i in range(nx):
        for k in range(nz):
            if near[i, k]:
                for s in range(levels):
                    if old[i, k, s] == np.inf:
                        band[count, 0], band[count, 1], band[count, 2] = i, k, s
                        count += 1
    new = old.copy()
    diagonal = np.sqrt(2.0)
    for _ in range(rounds):
        for step in range(8):
            d1 = step if step < 4 else (0 if step < 6 else 1)
            d2 = 2 if step % 2 == 0 else 3
            dx1, dz1 = directions[d1, 0], directions[d1, 1]
            dx2, dz2 = directions[d2, 0], directions[d2, 1]
            for b in range(count):
                i, k, s = band[b, 0], band[b, 1], band[b, 2]
                here = old[i, k, s]
                via = np.inf
                t = links[d1, i, k, s]
                if t >= 0:
                    if step < 4:
                        via = old[i + dx1, k + dz1, t] + 1.0
                    else:
                        u = links[d2, i + dx1, k + dz1, t]
                        if u >= 0:
                            via = old[i + dx1 + dx2, k + dz1 + dz2, u] + diagonal
                new[i, k, s] = via if via < here else here
            old, new = new, old
    for i in range(nx):
        for k in range(nz):
            for s in range(levels):
                y = height[i, k, s]
                out[i, k, s] = y if not np.isnan(y) and old[i, k, s] >= radius else np.nan


@numba.njit(cache=True, nogil=True)
def window_links(height: np.ndarray, ceiling: np.ndarray, enclosure: np.ndarray, step_limit: float, clearance: float,
                 directions: np.ndarray, before: np.ndarray, before_links: np.ndarray, i0: int, k0: int,
                 links: np.ndarray) -> None:
    """:func:`level_links` of the samples ``height`` (with their ``ceiling`` and ``enclosure``) of a window whose
    first column is column ``(i0, k0)`` of a larger one, where the samples were ``before`` (some since dropped)
    and linked as ``before_links`` (with the same ceilings and enclosures): a link between two columns whose
    samples did not change is the one it was, the others are found again; links leaving the window are -1."""
    nx, nz, levels = height.shape
    changed = np.zeros((nx, nz), dtype=np.bool_)
    for i in range(nx):
        for k in range(nz):
            for s in range(levels):
                a, b = height[i, k, s], before[i0 + i, k0 + k, s]
                if a != b and not (np.isnan(a) and np.isnan(b)):
                    changed[i, k] = True
    for d in range(4):
        dx, dz = directions[d, 0], directions[d, 1]
        for i in range(nx):
            for k in range(nz):
                ni, nk = i + dx, k + dz
                if not (0 <= ni < nx and 0 <= nk < nz):
                    for s in range(levels):
                        links[d, i, k, s] = -1
                elif changed[i, k] or changed[ni, nk]:
                    for s in range(levels):
                        links[d, i, k, s] = _link(height, ceiling, enclosure, step_limit, clearance, i, k, s, ni, nk)
                else:
                    for s in range(levels):
                        links[d, i, k, s] = before_links[d, i0 + i, k0 + k, s]


@numba.njit(cache=True, nogil=True)
def island_heights(height: np.ndarray, links: np.ndarray, cell_area: float, min_area: float, out: np.ndarray) -> None:
    """``out``: ``height`` without the samples of islands (:func:`island_labels`) whose samples cover less than
    ``min_area`` (m², ``cell_area`` each)."""
    nx, nz, levels = height.shape
    labels = np.empty(height.shape, dtype=np.int64)
    count = island_labels(height, links, labels)
    size = np.zeros(count, dtype=np.int64)
    for i in range(nx):
        for k in range(nz):
            for s in range(levels):
                if labels[i, k, s] >= 0:
                    size[labels[i, k, s]] += 1
    for i in range(nx):
        for k in range(nz):
            for s in range(levels):
                g = labels[i, k, s]
                out[i, k, s] = height[i, k, s] if g >= 0 and not size[g] * cell_area < min_area else np.nan
