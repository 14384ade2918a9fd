"""The use button (issue 12): what it reaches, picking a fragment up and what a treasure pays.

The player presses **use** looking at something within ``reach`` m of the eye and within ``angle`` degrees of the
aim: the nearest such thing is used (treasures first among equals, then the order they were made):

- a loose **fragment** (a punched piece, lying or still flying) is picked up and held like a pulled-out piece,
  to throw (only with empty hands);
- an **exposed treasure** is opened: a treasure is buried when placed (its voxel and the 26 around it solid,
  :func:`~voxelworld.game.deformation.buried`) and exposed once digging has opened one of those voxels. It pays
  the rewards of the material of the voxel it lies in (the dominant one, ``mat_b`` when ``mix > 127``, else
  ``mat_a``; the voxel keeps its materials when dug away): ``stamina_reward`` stamina and ``currency_reward``
  currency (:class:`~voxelworld.terrain.Material`). A treasure opens once.

Examples
--------
>>> from voxelworld.terrain import VoxelVolume
>>> ground = VoxelVolume.from_sdf(lambda x, y, z: y - 2.0, (12, 12, 12), "iron", voxel_size=0.5)
>>> treasure_reward(ground, (3.0, 1.0, 3.0))
TreasureReward(material='iron', stamina=0.0, currency=10.0)
>>> exposed(ground, (3.0, 1.0, 3.0)), exposed(ground, (3.0, 2.0, 3.0))  # 1 m down: buried; at the surface: not
(False, True)
>>> in_reach((0.0, 1.6, 0.0), (1.0, 0.0, 0.0), (2.0, 1.0, 0.0), reach=2.5, angle=30.0)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..errors import check_finite
from ..terrain import Volume
from .checks import check_direction, check_point
from .deformation import buried

__all__ = ["TreasureReward", "treasure_reward", "exposed", "in_reach"]


@dataclass(frozen=True)
class TreasureReward:
    """What a treasure pays: the ``material`` of its voxel ("none" for a voxel without one), ``stamina`` and
    ``currency`` (that material's rewards)."""

    material: str
    stamina: float
    currency: float


def _voxel(volume: Volume, position: ArrayLike) -> tuple[int, int, int] | None:
    index = np.round(volume.world_to_index(check_point("position", position))).astype(np.int64)
    if np.any(index < 0) or np.any(index >= volume.shape):
        return None
    return (int(index[0]), int(index[1]), int(index[2]))


def treasure_reward(volume: Volume, position: ArrayLike) -> TreasureReward:
    """The reward of a treasure at ``position`` (m): the rewards of the dominant material of its voxel."""
    index = _voxel(volume, position)
    if index is None:
        return TreasureReward("none", 0.0, 0.0)
    material = volume.dominant_material(index)
    if material == 0:
        return TreasureReward("none", 0.0, 0.0)
    row = volume.materials[material]
    return TreasureReward(row.name, row.stamina_reward, row.currency_reward)


def exposed(volume: Volume, position: ArrayLike) -> bool:
    """Whether a treasure at ``position`` (m) can be opened: its voxel is no longer buried."""
    index = _voxel(volume, position)
    return index is not None and not buried(volume, index)


def in_reach(eye: ArrayLike, aim: ArrayLike, position: ArrayLike, reach: float, angle: float) -> bool:
    """Whether ``position`` (m) lies within ``reach`` m of ``eye`` and within ``angle`` degrees of the unit
    ``aim``."""
    eye, aim, position = check_point("eye", eye), check_direction("aim", aim), check_point("position", position)
    reach = check_finite("reach", reach, minimum=0.0, unit="m")
    angle = check_finite("angle", angle, minimum=0.0, maximum=180.0, unit="degrees")
    offset = position - eye
    distance = float(np.linalg.norm(offset))
    if distance > reach:
        return False
    if distance == 0.0:
        return True
    return float(np.dot(offset, aim)) / distance >= math.cos(math.radians(angle)) - 1e-12
