"""The chainsaw enemy's ground height as it was written before it read its four columns in one window: the
reference ``ChainsawEnemy.ground_height`` must match bit for bit (tests/game/test_enemy.py)."""

from __future__ import annotations

import numpy as np

from voxelworld.game.level import surface_height


def ground_height(self, x: float, z: float) -> float | None:
    """The old ``ChainsawEnemy.ground_height``, verbatim: ``level.surface_height`` of each of the four columns."""
    volume = self.volume
    u = (np.array([x, z]) - volume.origin[[0, 2]]) / volume.voxel_size
    base = np.floor(u)
    f = u - base
    height, weight = 0.0, 0.0
    for di, dk in ((0, 0), (1, 0), (0, 1), (1, 1)):
        w = (f[0] if di else 1.0 - f[0]) * (f[1] if dk else 1.0 - f[1])
        cx, cz = volume.origin[[0, 2]] + (base + (di, dk)) * volume.voxel_size
        top = surface_height(volume, cx, cz)
        if top is not None and w > 0.0:
            height, weight = height + w * top, weight + w
    return height / weight if weight > 0.0 else None
