"""Kernels over a region's walkable samples ``height[i, k, s]`` (m, NaN where none): which neighbouring sample
each one steps to, and the islands they form."""

import numba
import numpy as np

DIRECTIONS = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]], dtype=np.int64)  # +x, -x, +z, -z


@numba.njit(cache=True)
def level_links(height, step_limit, directions, links):
    """``links[d, i, k, s]``: the level of the neighbour in direction d that sample (i, k, s) steps to (the
    nearest in height within ``step_limit``; the lowest level on a tie), or -1."""
    nx, nz, levels = height.shape
    for d in range(4):
        dx, dz = directions[d, 0], directions[d, 1]
        for i in range(nx):
            for k in range(nz):
                ni, nk = i + dx, k + dz
                inside = 0 <= ni < nx and 0 <= nk < nz
                for s in range(levels):
                    best, best_gap = -1, np.inf
                    h = height[i, k, s]
                    if inside and not np.isnan(h):
                        for t in range(levels):
                            gap = abs(h - height[ni, nk, t])
                            if gap < best_gap:  # NaN never is
                                best, best_gap = t, gap
                    links[d, i, k, s] = best if best_gap <= step_limit else -1


@numba.njit(cache=True)
def _root(parent, a):
    while parent[a] != a:
        parent[a] = parent[parent[a]]
        a = parent[a]
    return a


@numba.njit(cache=True)
def island_labels(height, links, labels):
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
