"""Plain-Python references of the world generator's noise and surface, written from the documented rules.

Python integers and floats only (no numpy, no numba): the hash is exact 64-bit arithmetic masked by hand, the
noise the same sequence of IEEE-754 operations, so the kernels must agree bit for bit.
"""

from __future__ import annotations

import math

MASK = 0xFFFFFFFFFFFFFFFF
PX, PY, PZ = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
F1, F2 = 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53
DIAGONAL = 0.7071067811865476


def hash3(key: int, ix: int, iy: int, iz: int) -> int:
    h = key ^ ((ix * PX) & MASK) ^ ((iy * PY) & MASK) ^ ((iz * PZ) & MASK)
    h ^= h >> 33
    h = (h * F1) & MASK
    h ^= h >> 33
    h = (h * F2) & MASK
    return h ^ (h >> 33)


def fade(t: float) -> float:
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)


def grad2(h: int, x: float, y: float) -> float:
    return [x, -x, y, -y, DIAGONAL * (x + y), DIAGONAL * (y - x), DIAGONAL * (x - y), DIAGONAL * (-x - y)][h >> 61]


def grad3(h: int, x: float, y: float, z: float) -> float:
    g = h >> 60
    u = x if g < 8 else y
    v = y if g < 4 else (x if g in (12, 14) else z)
    return (u if g & 1 == 0 else -u) + (v if g & 2 == 0 else -v)


def lerp(a: float, b: float, t: float) -> float:
    return a + t * (b - a)


def noise2(key: int, x: float, y: float) -> float:
    ix, iy = math.floor(x), math.floor(y)
    fx, fy = x - ix, y - iy
    corners = [grad2(hash3(key, ix + a, iy + b, 0), fx - a, fy - b) for b in (0, 1) for a in (0, 1)]
    return lerp(lerp(corners[0], corners[1], fade(fx)), lerp(corners[2], corners[3], fade(fx)), fade(fy))


def noise3(key: int, x: float, y: float, z: float) -> float:
    ix, iy, iz = math.floor(x), math.floor(y), math.floor(z)
    fx, fy, fz = x - ix, y - iy, z - iz
    u, v, w = fade(fx), fade(fy), fade(fz)

    def corner(a, b, c):
        return grad3(hash3(key, ix + a, iy + b, iz + c), fx - a, fy - b, fz - c)

    z0 = lerp(lerp(corner(0, 0, 0), corner(1, 0, 0), u), lerp(corner(0, 1, 0), corner(1, 1, 0), u), v)
    z1 = lerp(lerp(corner(0, 0, 1), corner(1, 0, 1), u), lerp(corner(0, 1, 1), corner(1, 1, 1), u), v)
    return lerp(z0, z1, w)


def smoothstep(t: float) -> float:
    t = min(max(t, 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


def surface_height(settings, keys, x: float, z: float) -> float:
    """The documented surface: fractal hills (octaves of half the width, half the amplitude) around
    ground_level, pulled towards terraces of cliff_step where the cliff mask is on, kept 1 m above the bottom and
    2 m below the top."""
    f, amplitude, total, norm = 1.0 / settings.hill_scale, 1.0, 0.0, 0.0
    for octave in range(settings.hill_octaves):
        total += amplitude * noise2(keys[octave], x * f, z * f)
        norm += amplitude
        amplitude *= 0.5
        f *= 2.0
    h = settings.ground_level + settings.hill_height * 3.0 * total / norm
    if settings.cliff_strength > 0.0:
        m = noise2(keys[8], x * 0.5 / settings.hill_scale, z * 0.5 / settings.hill_scale)
        mask = smoothstep((m + 0.05) * 4.0) * settings.cliff_strength
        t = h / settings.cliff_step
        step = math.floor(t)
        r = smoothstep((t - step - (1.0 - settings.cliff_width)) / settings.cliff_width)
        h += mask * ((step + r) * settings.cliff_step - h)
    return min(max(h, 1.0), settings.height - 2.0)
