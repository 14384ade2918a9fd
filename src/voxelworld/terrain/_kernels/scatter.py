"""Numba kernel of the things scattered on a generated world (:mod:`voxelworld.terrain.scatter`).

Per chunk column, candidates are drawn from a hash of (kind's key, column, candidate number), never from a random
generator's state, and kept or dropped by the generator's own surface (:func:`surface_height` and the strata rule
of ``column_pass``), so a column's things are a pure function of the settings and the column. The caller
(:func:`voxelworld.terrain.scatter.scatter_chunk_column`) checks everything before this runs.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np

from .._worldgen_kernels import K_ENTRANCE, K_SOIL, WorldParams, hash3, noise2, smoothstep, surface_height

# Surface classes, as the generator paints the top voxel (column_pass).
GRASS, SOIL, SAND, ROCK = 0, 1, 2, 3
# Kinds (indices into voxelworld.terrain.scatter.THING_KINDS).
TREE, PINE, BUSH, ROCK_KIND, CRATE = 0, 1, 2, 3, 4
KIND_COUNT = 5
_UNIT = 1.0 / 9007199254740992.0  # 2**-53


class ScatterParams(NamedTuple):
    """What the kernel reads of a :class:`~voxelworld.terrain.scatter.ScatterSettings` (m, tangents of slopes)."""

    column: float  # m: a chunk column's edge
    world: float  # m: the world's extent along x and z
    margin: float  # m: things keep this far from the world's edges
    slope: np.ndarray  # (KIND_COUNT,) tan of the steepest slope each kind stands on
    per_column: np.ndarray  # (KIND_COUNT,) candidates a full column draws of each kind (mean)
    rock_reach: float  # m: a rock lies within this of a rock surface
    pine_level: float  # m: the height above which conifers replace broadleaf trees
    forest_scale: float  # m: the width of the forest mask's patches
    forest_key: np.uint64  # the forest mask's noise key


@nb.njit(cache=True, nogil=True, inline="always")
def uniform(key: np.uint64, ci: int, n: int, ck: int) -> float:
    """A number in [0, 1) from the hash of (ci, n, ck) under ``key``."""
    return np.float64(hash3(key, ci, n, ck) >> np.uint64(11)) * _UNIT


@nb.njit(cache=True, nogil=True)
def surface_class(p: WorldParams, keys: np.ndarray, x: float, z: float, out: np.ndarray) -> int:
    """The generator's surface at (x, z) m: ``out`` gets (height m, squared slope, cave entrance opening 0..1);
    returns its class (GRASS, SOIL, SAND or ROCK), by the same rule as the generator's top voxel."""
    s = p.voxel_size
    h = surface_height(p, keys, x, z)
    gx = (surface_height(p, keys, x + s, z) - surface_height(p, keys, x - s, z)) / (2.0 * s)
    gz = (surface_height(p, keys, x, z + s) - surface_height(p, keys, x, z - s)) / (2.0 * s)
    slope2 = gx * gx + gz * gz
    soil = noise2(keys[K_SOIL], x * (1.0 / 24.0), z * (1.0 / 24.0))
    e = noise2(keys[K_ENTRANCE], x * (1.0 / 96.0), z * (1.0 / 96.0))
    out[0] = h
    out[1] = slope2
    out[2] = smoothstep((e - 0.05) * (1.0 / 0.15))
    if slope2 > p.rock_slope * p.rock_slope:
        return ROCK
    if h < p.sand_level + 2.0 * soil:
        return SAND
    if slope2 > p.grass_slope * p.grass_slope:
        return SOIL
    return GRASS


@nb.njit(cache=True, nogil=True)
def scatter_column(p: WorldParams, keys: np.ndarray, sp: ScatterParams, kind_keys: np.ndarray, ci: int, ck: int,
                   kind: np.ndarray, position: np.ndarray, yaw: np.ndarray, scale: np.ndarray) -> int:
    """Fill the things of chunk column (ci, ck) into the output arrays (each as long as the most candidates);
    returns how many. Kinds in order, each kind's candidates in order."""
    x0 = ci * sp.column
    z0 = ck * sp.column
    surface = np.empty(3)
    near = np.empty(3)
    count = 0
    for t in range(KIND_COUNT):
        key = kind_keys[t]
        # The column's candidates: the mean, rounded up or down by a hash (a whole world keeps the density).
        mean = sp.per_column[t]
        n_candidates = int(math.floor(mean + uniform(key, ci, -1, ck)))
        limit2 = sp.slope[t] * sp.slope[t]
        for n in range(n_candidates):
            x = x0 + uniform(key, ci, 8 * n, ck) * sp.column
            z = z0 + uniform(key, ci, 8 * n + 1, ck) * sp.column
            if x < sp.margin or z < sp.margin or x > sp.world - sp.margin or z > sp.world - sp.margin:
                continue
            cls = surface_class(p, keys, x, z, surface)
            if surface[1] > limit2 or surface[2] > 0.0:  # too steep, or a cave may open under it
                continue
            h = surface[0]
            forest = min(max(0.5 + 1.5 * noise2(sp.forest_key, x / sp.forest_scale, z / sp.forest_scale), 0.0), 1.0)
            keep = uniform(key, ci, 8 * n + 2, ck)
            if t == TREE or t == PINE:
                if cls != GRASS or keep >= forest:
                    continue
                # Conifers take over above the pine level, over 8 m of mixed forest.
                pines = min(max((h - sp.pine_level) / 8.0 + 0.5, 0.0), 1.0)
                if (t == PINE) != (uniform(key, ci, 8 * n + 5, ck) < pines):
                    continue
            elif t == BUSH:
                if (cls != GRASS and cls != SOIL) or keep >= 0.25 + 0.75 * forest:
                    continue
            elif t == ROCK_KIND:
                if cls == SAND:
                    continue
                rocky = cls == ROCK
                for d in range(4):  # boulders at the foot and the brow of rock faces
                    a = 0.5 * math.pi * d + 0.25 * math.pi
                    if not rocky and surface_class(p, keys, x + sp.rock_reach * math.cos(a),
                                                   z + sp.rock_reach * math.sin(a), near) == ROCK:
                        rocky = True
                if not rocky:
                    continue
            else:  # crates in clearings
                if cls != GRASS or keep < forest:
                    continue
            kind[count] = t
            position[count, 0] = x
            position[count, 1] = h
            position[count, 2] = z
            yaw[count] = 360.0 * uniform(key, ci, 8 * n + 3, ck)
            scale[count] = 0.75 + 0.5 * uniform(key, ci, 8 * n + 4, ck)
            count += 1
    return count
