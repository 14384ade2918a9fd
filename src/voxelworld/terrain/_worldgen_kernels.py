"""Numba kernels of the world generator (:mod:`.worldgen`): hash-based gradient noise and block filling.

Every voxel's density and material is a pure function of the world parameters and its *global* voxel index, so a
box generated in pieces equals the box generated whole, bit for bit, whatever the thread that made each piece.
Two things make the kernel fast without breaking that rule:

- The 2-D quantities of a column (surface height, slope, strata) are computed once per column of the block.
- The 3-D fields (caves, iron veins, lava pockets) are sampled on a global lattice of ``lattice`` voxels and
  interpolated trilinearly: a lattice point has the same value whichever block computes it. A lattice cell whose
  eight corners show no cave (or no ore) is skipped: an interpolated value never leaves its corners' range.

Noise is Perlin-style gradient noise over a 64-bit integer hash of the lattice coordinates and a per-field key
(derived from the seed); it uses only integer operations, ``floor``, ``+``, ``-`` and ``*``, so it gives the same
bits on every IEEE-754 machine. No global state, no random generator.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np

from ._kernels import RAMP

MASK64 = 0xFFFFFFFFFFFFFFFF
# Hash constants: odd 64-bit multipliers (lattice axes) and the murmur3 finaliser.
_PX, _PY, _PZ = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
_F1, _F2 = 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53
PX, PY, PZ = np.uint64(_PX), np.uint64(_PY), np.uint64(_PZ)
F1, F2 = np.uint64(_F1), np.uint64(_F2)
S33, S60, S61 = np.uint64(33), np.uint64(60), np.uint64(61)
DIAGONAL = 0.7071067811865476  # the diagonal 2-D gradients have unit length

# Noise fields: the index of each field's key in the ``keys`` array (hills take HILL_OCTAVES_MAX keys).
HILL_OCTAVES_MAX = 8
K_HILLS = 0
K_CLIFF_MASK = 8
K_SOIL = 9
K_ENTRANCE = 10
K_CAVE_MASK = 11
K_WORM_A = 12
K_WORM_B = 13
K_CAVERN = 14
K_IRON = 15
K_LAVA = 16
KEY_COUNT = 17

# Values of a lattice field that show "nothing here": far larger than any distance or threshold it is tested with.
FAR = 1.0e9
# Lattice cell flags: which 3-D features some corner of the cell may hold.
CELL_CAVE, CELL_IRON, CELL_LAVA = 1, 2, 4
# Noise periods (m) of the 3-D features; a noise value changes by about 1.5 per period across a zero, so a
# noise difference times PERIOD / 1.5 is roughly a distance in metres.
CAVE_MASK_PERIOD = 128.0
WORM_PERIOD = 48.0
CAVERN_PERIOD = 72.0
IRON_PERIOD = 20.0
LAVA_PERIOD = 28.0
GRADIENT = 1.5


def noise_key(seed: int, field: int) -> int:
    """The 64-bit key of noise field ``field`` for ``seed`` (plain Python, exact integers)."""
    return _fmix64((seed * _PX + (field + 1) * _F2) & MASK64)


def _fmix64(h: int) -> int:
    h ^= h >> 33
    h = (h * _F1) & MASK64
    h ^= h >> 33
    h = (h * _F2) & MASK64
    return h ^ (h >> 33)


class WorldParams(NamedTuple):
    """The generator's numbers, in metres unless said otherwise (see ``GeneratorSettings`` for their meaning)."""

    voxel_size: float
    iso: int
    height: float
    ground_level: float
    hill_height: float
    hill_scale: float
    hill_octaves: int
    cliff_strength: float
    cliff_step: float
    cliff_width: float  # share of a terrace step taken by its riser, 0..1
    grass_depth: float
    soil_depth: float
    sand_level: float
    grass_slope: float  # tan of the steepest slope that keeps grass
    rock_slope: float  # tan of the slope from which the surface is bare rock
    # The underground mask (one low-frequency 3-D noise) gathers caves, iron and lava into the same regions, cave
    # systems, so the rest of the rock stays uniform: each feature appears where the mask exceeds its threshold.
    cave_threshold: float
    cave_depth: float  # caves stay this far below the surface, except at entrances
    worm_radius: float  # tunnel radius in worm-noise units
    cavern_threshold: float  # cavern noise above which the rock is hollow (where the mask is fully on)
    floor_height: float  # caves keep this much rock above the world's bottom
    iron_threshold: float
    vein_width: float  # iron where |vein noise| < vein_width (noise units)
    lava_threshold: float  # mask threshold of lava pockets
    lava_pocket: float  # lava where the pocket noise exceeds this (and the mask is fully on)
    lava_level: float
    lava_depth: float  # lava only this far below the surface
    obsidian_rim: float  # noise units of obsidian around a lava pocket
    lattice: int  # voxels between 3-D lattice samples


class MaterialIds(NamedTuple):
    """The ids the generator writes (from the caller's MaterialTable)."""

    grass: int
    soil: int
    sand: int
    rock: int
    iron: int
    lava: int
    obsidian: int


# ------------------------------------------------------------------------------------------------ noise
@nb.njit(cache=True, nogil=True, inline="always")
def hash3(key: int | np.integer, ix: int | np.integer, iy: int | np.integer, iz: int | np.integer) -> np.uint64:
    """64-bit hash of the integer lattice point (ix, iy, iz) under ``key``."""
    h = key ^ (nb.uint64(ix) * PX) ^ (nb.uint64(iy) * PY) ^ (nb.uint64(iz) * PZ)
    h ^= h >> S33
    h *= F1
    h ^= h >> S33
    h *= F2
    h ^= h >> S33
    return h


@nb.njit(cache=True, nogil=True, inline="always")
def fade(t: float) -> float:
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)


@nb.njit(cache=True, nogil=True, inline="always")
def grad2(h: np.uint64, x: float, y: float) -> float:
    g = h >> S61
    if g == 0:
        return x
    if g == 1:
        return -x
    if g == 2:
        return y
    if g == 3:
        return -y
    if g == 4:
        return DIAGONAL * (x + y)
    if g == 5:
        return DIAGONAL * (y - x)
    if g == 6:
        return DIAGONAL * (x - y)
    return DIAGONAL * (-x - y)


@nb.njit(cache=True, nogil=True, inline="always")
def grad3(h: np.uint64, x: float, y: float, z: float) -> float:
    g = h >> S60  # Perlin's improved-noise gradients: the 12 cube edges (4 repeated)
    u = x if g < 8 else y
    if g < 4:
        v = y
    elif g == 12 or g == 14:
        v = x
    else:
        v = z
    return (u if (g & 1) == 0 else -u) + (v if (g & 2) == 0 else -v)


@nb.njit(cache=True, nogil=True)
def noise2(key: int | np.integer, x: float, y: float) -> float:
    """Gradient noise in about [-1, 1] at (x, y) (lattice units), for the field ``key``."""
    xf = math.floor(x)
    yf = math.floor(y)
    ix = np.int64(xf)
    iy = np.int64(yf)
    fx = x - xf
    fy = y - yf
    u = fade(fx)
    v = fade(fy)
    n00 = grad2(hash3(key, ix, iy, 0), fx, fy)
    n10 = grad2(hash3(key, ix + 1, iy, 0), fx - 1.0, fy)
    n01 = grad2(hash3(key, ix, iy + 1, 0), fx, fy - 1.0)
    n11 = grad2(hash3(key, ix + 1, iy + 1, 0), fx - 1.0, fy - 1.0)
    a = n00 + u * (n10 - n00)
    b = n01 + u * (n11 - n01)
    return a + v * (b - a)


@nb.njit(cache=True, nogil=True)
def noise3(key: int | np.integer, x: float, y: float, z: float) -> float:
    """Gradient noise in about [-1, 1] at (x, y, z) (lattice units), for the field ``key``."""
    xf = math.floor(x)
    yf = math.floor(y)
    zf = math.floor(z)
    ix = np.int64(xf)
    iy = np.int64(yf)
    iz = np.int64(zf)
    fx = x - xf
    fy = y - yf
    fz = z - zf
    u = fade(fx)
    v = fade(fy)
    w = fade(fz)
    n000 = grad3(hash3(key, ix, iy, iz), fx, fy, fz)
    n100 = grad3(hash3(key, ix + 1, iy, iz), fx - 1.0, fy, fz)
    n010 = grad3(hash3(key, ix, iy + 1, iz), fx, fy - 1.0, fz)
    n110 = grad3(hash3(key, ix + 1, iy + 1, iz), fx - 1.0, fy - 1.0, fz)
    n001 = grad3(hash3(key, ix, iy, iz + 1), fx, fy, fz - 1.0)
    n101 = grad3(hash3(key, ix + 1, iy, iz + 1), fx - 1.0, fy, fz - 1.0)
    n011 = grad3(hash3(key, ix, iy + 1, iz + 1), fx, fy - 1.0, fz - 1.0)
    n111 = grad3(hash3(key, ix + 1, iy + 1, iz + 1), fx - 1.0, fy - 1.0, fz - 1.0)
    return trilerp(n000, n100, n010, n110, n001, n101, n011, n111, u, v, w)


@nb.njit(cache=True, nogil=True, inline="always")
def trilerp(c000: float, c100: float, c010: float, c110: float, c001: float, c101: float, c011: float, c111: float,
            u: float, v: float, w: float) -> float:
    """The corner values ``cxyz`` of a cell blended at weights (u, v, w): along x, then y, then z."""
    x00 = c000 + u * (c100 - c000)
    x10 = c010 + u * (c110 - c010)
    x01 = c001 + u * (c101 - c001)
    x11 = c011 + u * (c111 - c011)
    y0 = x00 + v * (x10 - x00)
    y1 = x01 + v * (x11 - x01)
    return y0 + w * (y1 - y0)


@nb.njit(cache=True, nogil=True, inline="always")
def clamp01(t: float) -> float:
    return min(max(t, 0.0), 1.0)


@nb.njit(cache=True, nogil=True, inline="always")
def smoothstep(t: float) -> float:
    t = clamp01(t)
    return t * t * (3.0 - 2.0 * t)


# ---------------------------------------------------------------------------------------------- columns
@nb.njit(cache=True, nogil=True)
def surface_height(p: WorldParams, keys: np.ndarray, x: float, z: float) -> float:
    """World height (m) of the surface above the column at (x, z) m: fractal hills, terraced into cliffs where
    the cliff mask is on, kept 1 m above the bottom and 2 m below the top of the world."""
    f = 1.0 / p.hill_scale
    amplitude = 1.0
    total = 0.0
    norm = 0.0
    for octave in range(p.hill_octaves):
        total += amplitude * noise2(keys[K_HILLS + octave], x * f, z * f)
        norm += amplitude
        amplitude *= 0.5
        f *= 2.0
    h = p.ground_level + p.hill_height * 3.0 * total / norm
    if p.cliff_strength > 0.0:
        m = noise2(keys[K_CLIFF_MASK], x * 0.5 / p.hill_scale, z * 0.5 / p.hill_scale)
        mask = smoothstep((m + 0.05) * 4.0) * p.cliff_strength
        t = h / p.cliff_step
        step = math.floor(t)
        r = smoothstep((t - step - (1.0 - p.cliff_width)) / p.cliff_width)
        h += mask * ((step + r) * p.cliff_step - h)
    return min(max(h, 1.0), p.height - 2.0)


@nb.njit(cache=True, nogil=True)
def column_pass(p: WorldParams, keys: np.ndarray, ids: MaterialIds, lo: np.ndarray, nx: int, nz: int, ramp_air: float,
                heights: np.ndarray, inv_length: np.ndarray, top_id: np.ndarray, under_id: np.ndarray,
                under_bottom: np.ndarray, entrance: np.ndarray, top_j: np.ndarray) -> None:
    """The 2-D quantities of the block's columns (``heights`` has a halo of one column for the slope)."""
    s = p.voxel_size
    for a in range(nx + 2):
        x = (lo[0] + a - 1) * s
        for b in range(nz + 2):
            heights[a, b] = surface_height(p, keys, x, (lo[2] + b - 1) * s)
    for a in range(nx):
        x = (lo[0] + a) * s
        for b in range(nz):
            z = (lo[2] + b) * s
            h = heights[a + 1, b + 1]
            gx = (heights[a + 2, b + 1] - heights[a, b + 1]) / (2.0 * s)
            gz = (heights[a + 1, b + 2] - heights[a + 1, b]) / (2.0 * s)
            slope2 = gx * gx + gz * gz
            length = math.sqrt(1.0 + slope2)
            inv_length[a, b] = 1.0 / length
            # Voxels above top_j are air whatever the caves do: their distance to the surface exceeds the ramp.
            top_j[a, b] = np.int64(math.floor((h + 2.0 * ramp_air * length) / s)) + 1
            soil = noise2(keys[K_SOIL], x * (1.0 / 24.0), z * (1.0 / 24.0))
            thickness = p.soil_depth * (1.0 + 0.4 * soil)
            if slope2 > p.rock_slope * p.rock_slope:
                top_id[a, b] = ids.rock
                under_id[a, b] = ids.rock
            elif h < p.sand_level + 2.0 * soil:
                top_id[a, b] = ids.sand
                under_id[a, b] = ids.sand
                thickness += 1.0
            elif slope2 > p.grass_slope * p.grass_slope:
                top_id[a, b] = ids.soil
                under_id[a, b] = ids.soil
            else:
                top_id[a, b] = ids.grass
                under_id[a, b] = ids.soil
            under_bottom[a, b] = p.grass_depth + thickness
            e = noise2(keys[K_ENTRANCE], x * (1.0 / 96.0), z * (1.0 / 96.0))
            opening = smoothstep((e - 0.05) * (1.0 / 0.15))
            entrance[a, b] = p.cave_depth + opening * (-4.0 - p.cave_depth)


# ---------------------------------------------------------------------------------------------- lattice
@nb.njit(cache=True, nogil=True)
def lattice_point(p: WorldParams, keys: np.ndarray, x: float, y: float, z: float, out: np.ndarray) -> None:
    """The 3-D fields at one lattice point (m): ``out[0]`` cave distance (m, negative in a void), ``out[1]`` iron
    (negative in a vein), ``out[2]`` lava (negative in a pocket, below ``obsidian_rim`` its rim). Fields that
    cannot be on here are FAR, without evaluating their noise."""
    m = noise3(keys[K_CAVE_MASK], x * (1.0 / CAVE_MASK_PERIOD), y * (2.0 / CAVE_MASK_PERIOD),
               z * (1.0 / CAVE_MASK_PERIOD))
    a = clamp01((m - p.cave_threshold) * (1.0 / 0.12))
    cave = FAR
    if a > 0.0:
        fw = 1.0 / WORM_PERIOD
        n1 = noise3(keys[K_WORM_A], x * fw, y * (1.5 * fw), z * fw)
        n2 = noise3(keys[K_WORM_B], x * fw, y * (1.5 * fw), z * fw)
        worm = (math.sqrt(n1 * n1 + n2 * n2) - p.worm_radius * a) * (WORM_PERIOD / GRADIENT)
        fc = 1.0 / CAVERN_PERIOD
        n3 = noise3(keys[K_CAVERN], x * fc, y * (1.6 * fc), z * fc)
        cavern = (p.cavern_threshold + 0.5 * (1.0 - a) - n3) * (CAVERN_PERIOD / GRADIENT)
        # The fade keeps the rim of the mask solid: a vanishing tunnel must not leave a ghost of half density.
        cave = min(worm, cavern) + (1.0 - a) * max(8.0, 4.0 * p.voxel_size)
    out[0] = cave
    b = clamp01((m - p.iron_threshold) * (1.0 / 0.12))
    iron = FAR
    if b > 0.0:
        n = noise3(keys[K_IRON], x * (1.0 / IRON_PERIOD), y * (2.0 / IRON_PERIOD), z * (1.0 / IRON_PERIOD))
        iron = abs(n) - p.vein_width * b + (1.0 - b) * 0.2
    out[1] = iron
    c = clamp01((m - p.lava_threshold) * (1.0 / 0.12))
    lava = FAR
    if c > 0.0 and y <= p.lava_level + p.lattice * p.voxel_size:
        n = noise3(keys[K_LAVA], x * (1.0 / LAVA_PERIOD), y * (1.5 / LAVA_PERIOD), z * (1.0 / LAVA_PERIOD))
        lava = p.lava_pocket - n + (1.0 - c) * 0.5
    out[2] = lava


@nb.njit(cache=True, nogil=True, inline="always")
def interpolate(field: np.ndarray, f: int, cx: int, cy: int, cz: int, wx: float, wy: float, wz: float) -> float:
    """Trilinear interpolation of ``field[f]`` in the lattice cell (cx, cy, cz) at weights (wx, wy, wz)."""
    c000 = field[f, cx, cy, cz]
    c100 = field[f, cx + 1, cy, cz]
    c010 = field[f, cx, cy + 1, cz]
    c110 = field[f, cx + 1, cy + 1, cz]
    c001 = field[f, cx, cy, cz + 1]
    c101 = field[f, cx + 1, cy, cz + 1]
    c011 = field[f, cx, cy + 1, cz + 1]
    c111 = field[f, cx + 1, cy + 1, cz + 1]
    return trilerp(c000, c100, c010, c110, c001, c101, c011, c111, wx, wy, wz)


# ------------------------------------------------------------------------------------------------ block
@nb.njit(cache=True, nogil=True)
def ramp_density(iso: int, sd_voxels: float) -> int:
    """The project's density ramp: ``clip(floor(iso - sd * RAMP + 0.5), 0, 255)`` for ``sd`` in voxels."""
    v = math.floor(iso - sd_voxels * RAMP + 0.5)
    return min(max(v, 0), 255)


@nb.njit(cache=True, nogil=True)
def fill_block(p: WorldParams, keys: np.ndarray, ids: MaterialIds, lo: np.ndarray, density: np.ndarray,
               mat_a: np.ndarray, mat_b: np.ndarray, mix: np.ndarray, damage: np.ndarray) -> None:
    """Fill the fields of the voxel box that starts at global voxel index ``lo`` (int64 (3,)) and has the arrays'
    shape: density and ``mat_a`` from the generator, ``mat_b``, ``mix`` and ``damage`` zero."""
    nx, ny, nz = density.shape
    mat_b[...] = 0
    mix[...] = 0
    damage[...] = 0
    s = p.voxel_size
    inv_s = 1.0 / s
    ramp_air = (p.iso + 0.5) / RAMP * s  # signed distance (m) from which the ramp gives density 0
    ramp_full = (255.5 - p.iso) / RAMP * s  # ... below minus which it gives 255
    heights = np.empty((nx + 2, nz + 2))
    inv_length = np.empty((nx, nz))
    top_id = np.empty((nx, nz), dtype=np.int64)
    under_id = np.empty((nx, nz), dtype=np.int64)
    under_bottom = np.empty((nx, nz))
    entrance = np.empty((nx, nz))
    top_j = np.empty((nx, nz), dtype=np.int64)
    column_pass(p, keys, ids, lo, nx, nz, ramp_air, heights, inv_length, top_id, under_id, under_bottom,
                entrance, top_j)
    highest = lo[1] - 1
    for a in range(nx):
        for b in range(nz):
            highest = max(highest, min(top_j[a, b], lo[1] + ny - 1))
    if highest < lo[1]:  # all air
        density[...] = 0
        mat_a[...] = 0
        return
    # The lattice cells that cover voxels lo .. (hi_x, highest, hi_z).
    L = p.lattice
    x0, y0, z0 = lo[0] // L, lo[1] // L, lo[2] // L
    lx = (lo[0] + nx - 1) // L - x0 + 2
    ly = highest // L - y0 + 2
    lz = (lo[2] + nz - 1) // L - z0 + 2
    field = np.empty((3, lx, ly, lz))
    point = np.empty(3)
    step = L * s
    for a in range(lx):
        for b in range(ly):
            for c in range(lz):
                lattice_point(p, keys, (x0 + a) * step, (y0 + b) * step, (z0 + c) * step, point)
                field[0, a, b, c] = point[0]
                field[1, a, b, c] = point[1]
                field[2, a, b, c] = point[2]
    flags = np.zeros((lx - 1, ly - 1, lz - 1), dtype=np.uint8)
    cave_skip = ramp_full * 1.5
    for a in range(lx - 1):
        for b in range(ly - 1):
            for c in range(lz - 1):
                lowest_cave = FAR
                lowest_iron = FAR
                lowest_lava = FAR
                for da in range(2):
                    for db in range(2):
                        for dc in range(2):
                            lowest_cave = min(lowest_cave, field[0, a + da, b + db, c + dc])
                            lowest_iron = min(lowest_iron, field[1, a + da, b + db, c + dc])
                            lowest_lava = min(lowest_lava, field[2, a + da, b + db, c + dc])
                flag = 0
                if lowest_cave < cave_skip:
                    flag |= CELL_CAVE
                if lowest_iron < 0.01:
                    flag |= CELL_IRON
                if lowest_lava < p.obsidian_rim + 0.01:
                    flag |= CELL_LAVA
                flags[a, b, c] = flag
    inv_L = 1.0 / L
    for a in range(nx):
        i = lo[0] + a
        cx = i // L - x0
        wx = (i - (i // L) * L) * inv_L
        for bj in range(ny):
            j = lo[1] + bj
            if j > highest:
                for b in range(nz):
                    density[a, bj, b] = 0
                    mat_a[a, bj, b] = 0
                continue
            y = j * s
            cy = j // L - y0
            wy = (j - (j // L) * L) * inv_L
            for b in range(nz):
                if j > top_j[a, b]:
                    density[a, bj, b] = 0
                    mat_a[a, bj, b] = 0
                    continue
                k = lo[2] + b
                depth = heights[a + 1, b + 1] - y  # m below the surface, vertically
                sd = -depth * inv_length[a, b]
                if sd >= ramp_air:
                    density[a, bj, b] = 0
                    mat_a[a, bj, b] = 0
                    continue
                cz = k // L - z0
                wz = (k - (k // L) * L) * inv_L
                flag = flags[cx, cy, cz]
                if flag & CELL_CAVE:
                    cave = interpolate(field, 0, cx, cy, cz, wx, wy, wz)
                    cave = max(cave, entrance[a, b] - depth, p.floor_height - y)
                    sd = max(sd, -cave)
                d = ramp_density(p.iso, sd * inv_s)
                density[a, bj, b] = d
                if d == 0:
                    mat_a[a, bj, b] = 0
                    continue
                if depth < p.grass_depth:
                    mat_a[a, bj, b] = top_id[a, b]
                    continue
                if depth < under_bottom[a, b]:
                    mat_a[a, bj, b] = under_id[a, b]
                    continue
                material = ids.rock
                if flag & CELL_LAVA and y < p.lava_level and depth > p.lava_depth:
                    lava = interpolate(field, 2, cx, cy, cz, wx, wy, wz)
                    if lava < 0.0:
                        material = ids.lava
                    elif lava < p.obsidian_rim:
                        material = ids.obsidian
                if material == ids.rock and flag & CELL_IRON:
                    if interpolate(field, 1, cx, cy, cz, wx, wy, wz) < 0.0:
                        material = ids.iron
                mat_a[a, bj, b] = material
