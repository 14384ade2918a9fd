"""The demo terrain every example and the ``voxelworld edits`` command start from: a heightmap terrain
(:mod:`voxelworld.terrain.generators`) made into a :class:`VoxelVolume` and edited."""

from __future__ import annotations

from typing import cast

import numpy as np

from ..errors import check_finite, check_integer
from .edits import Tool
from .generators import Layer
from .shapes import Box, Cylinder, Sphere
from .volume import VoxelVolume

__all__ = ["demo_terrain"]


def demo_terrain(seed: int = 0, size: int = 96, height: int = 48, voxel_size: float = 1.0) -> VoxelVolume:
    """The default world's terrain, deterministic for a given ``seed``.

    Hills of grass over soil over rock with a lava pocket underground, a rock wall, a lava pool, two trees of
    bark around wood and an iron block on ``size`` x ``height`` x ``size`` voxels (size >= 48, height >= 32) of
    ``voxel_size`` metres.
    """
    seed = check_integer("seed", seed, minimum=0)
    size = check_integer("size", size, minimum=48, unit="voxels")
    height = check_integer("height", height, minimum=32, unit="voxels")
    rng = np.random.default_rng(seed)
    s = check_finite("voxel_size", voxel_size, minimum=0.0, strict_minimum=True, unit="m")
    u = np.arange(size)[:, None] / size
    v = np.arange(size)[None, :] / size
    waves = cast(np.ndarray, sum(rng.uniform(0.5, 1.0) * np.sin(2 * np.pi * (f * u + rng.uniform()))
                * np.cos(2 * np.pi * (g * v + rng.uniform())) for f, g in ((1, 1), (2, 1), (1, 2))))
    base = height * 0.4 * s
    heights = base + 1.5 * s * waves

    def ground(x: float, z: float) -> float:
        return float(heights[min(int(x / s), size - 1), min(int(z / s), size - 1)])

    mid = size * s / 2
    volume = VoxelVolume.from_heightmap(
        heights, [Layer("grass", 1.0 * s), Layer("soil", 4.0 * s), Layer("rock")], height, voxel_size=s,
        pockets=[(Sphere((mid * 0.6, base - 10 * s, mid * 1.3), 4 * s), "lava")])
    wall_x = mid * 1.6
    volume.add(Box((wall_x, 0.0, mid * 0.4), (wall_x + 4 * s, base + 12 * s, mid * 1.6)), "rock")
    px, pz, radius = mid * 0.5, mid * 0.5, 7 * s
    rim = ground(px, pz)
    volume.remove(Cylinder((px, rim - 3 * s, pz), (px, rim + 6 * s, pz), radius), tool=_CLEARING)
    volume.add(Cylinder((px, rim - 3 * s, pz), (px, rim - 1 * s, pz), radius), "lava")
    for tx, tz in ((mid * 1.2, mid * 0.6), (mid * 0.8, mid * 1.5)):
        foot, top = ground(tx, tz) - 3 * s, ground(tx, tz) + 14 * s
        volume.add(Cylinder((tx, foot, tz), (tx, top, tz), 1.6 * s), "bark")
        volume.paint(Cylinder((tx, foot, tz), (tx, top, tz), 0.9 * s), "wood")
    bx, bz = mid * 1.1, mid * 1.1
    volume.add(Box((bx - 2 * s, ground(bx, bz) - 1 * s, bz - 2 * s), (bx + 2 * s, ground(bx, bz) + 3 * s, bz + 2 * s)),
               "iron")
    return volume


# Shaping the demo level is not digging: nothing holds against it.
_CLEARING = Tool(gives_way_below=1e9, unbreakable_from=1e9)
