"""The use button (issue 12): what it reaches, picking a fragment up and what a treasure pays.

The player presses **use** looking at something within ``reach`` m of the eye and within ``angle`` degrees of the
aim (:func:`use_target`: an exposed treasure first, the nearest; else the nearest loose fragment; else a buried
treasure, which use refuses saying how deep it lies, :func:`treasure_depth`):

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
>>> treasure_depth(ground, (3.0, 1.0, 3.0)), treasure_depth(ground, (3.0, 2.0, 3.0))  # m of ground to dig through
(1.0, 0.0)
>>> use_target(ground, (2.0, 2.6, 3.0), (0.6, -0.8, 0.0), treasures=[(3.0, 2.0, 3.0)],
...            fragments=[(2.6, 1.9, 3.0)], reach=2.5, angle=30.0)  # the treasure, though the fragment is nearer
UseTarget(kind='treasure', index=0, distance=1.166, depth=0.0)
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..errors import check_finite, check_range
from ..terrain import Volume
from .checks import check_direction, check_point
from .deformation import buried

__all__ = ["TreasureReward", "treasure_reward", "exposed", "in_reach", "treasure_depth", "UseTarget", "use_target"]

DEPTH_LIMIT = 4.0  # m: a treasure deeper than this below every open voxel reports this depth


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


# Per volume: (position, limit, versions of the chunks around it) -> depth; forgotten with the volume.
_depths: weakref.WeakKeyDictionary[Volume, dict[tuple[tuple[float, float, float], float, bytes], float]] = \
    weakref.WeakKeyDictionary()


def treasure_depth(volume: Volume, position: ArrayLike, limit: float = DEPTH_LIMIT) -> float:
    """How deep a treasure at ``position`` (m) lies: 0.0 once it is exposed (:func:`exposed`), else the distance
    (m, to 0.1 m, at most ``limit``) from its voxel to the nearest voxel that is not solid, less one voxel (the
    solid to dig through before the treasure is exposed). Kept per position until a chunk around it changes, so
    asking every frame costs nothing while nobody digs there."""
    point = check_point("position", position)
    limit = check_finite("limit", limit, minimum=0.0, strict_minimum=True, unit="m")
    index = _voxel(volume, point)
    if index is None:
        return 0.0
    reach = int(math.ceil(limit / volume.voxel_size)) + 1
    lo = np.maximum(np.array(index) - reach, 0)
    hi = np.minimum(np.array(index) + reach + 1, volume.shape)
    chunks = tuple(slice(int(a) // volume.chunk_size, (int(b) - 1) // volume.chunk_size + 1) for a, b in zip(lo, hi))
    key = ((float(point[0]), float(point[1]), float(point[2])), limit, volume.chunk_versions[chunks].tobytes())
    known = _depths.setdefault(volume, {})
    if key in known:
        return known[key]
    open_voxels = np.argwhere(volume.read_window(lo, hi, ("density",))["density"] < volume.iso)
    if not buried(volume, index):
        depth = 0.0
    elif len(open_voxels) == 0:
        depth = limit
    else:
        nearest = float(np.sqrt(((open_voxels + lo - np.array(index)) ** 2).sum(axis=1).min())) * volume.voxel_size
        depth = min(limit, round(max(0.0, nearest - volume.voxel_size), 1))
    if len(known) > 256:  # mostly old chunk versions: forget them all
        known.clear()
    known[key] = depth
    return depth


@dataclass(frozen=True)
class UseTarget:
    """What the use button takes: ``kind`` "treasure" (an exposed treasure: use opens it), "fragment" (a loose
    fragment: use picks it up, with empty hands) or "buried" (a buried treasure: use says how deep it lies),
    ``index`` into the list it came from, ``distance`` from the eye and ``depth`` (m, :func:`treasure_depth`;
    0.0 for fragments and exposed treasures), both rounded to the millimetre."""

    kind: str
    index: int
    distance: float
    depth: float = 0.0


def use_target(volume: Volume, eye: ArrayLike, aim: ArrayLike, treasures: Sequence[ArrayLike],
               fragments: Sequence[ArrayLike], reach: float, angle: float) -> UseTarget | None:
    """What use would take from the eye at ``eye`` (m) looking along the unit ``aim``: of the ``treasures`` (the
    closed ones' positions, m) and loose ``fragments`` (positions, m) within ``reach`` m and ``angle`` degrees
    (as :func:`in_reach` decides), an exposed treasure first (the nearest; the first listed among equals), else
    the nearest fragment, else the nearest buried treasure; None when nothing is within reach. A treasure in reach
    is never passed over for a fragment. The pages ask it every frame (to highlight it): the positions are
    measured together, and only treasures within reach are asked whether they are exposed."""
    eye, aim = check_point("eye", eye), check_direction("aim", aim)
    reach = check_finite("reach", reach, minimum=0.0, unit="m")
    angle = check_finite("angle", angle, minimum=0.0, maximum=180.0, unit="degrees")
    cosine = math.cos(math.radians(angle)) - 1e-12

    def reached(label: str, positions: Sequence[ArrayLike]) -> list[tuple[float, int]]:
        if len(positions) == 0:
            return []
        points = np.asarray(positions, dtype=np.float64).reshape(-1, 3)
        check_range(label, points, "finite positions (m)", bool(np.isfinite(points).all()))
        offsets = points - eye
        distances = np.sqrt((offsets * offsets).sum(axis=1))
        along = offsets @ aim
        inside = (distances <= reach) & ((distances == 0.0) | (along >= cosine * distances))
        return [(float(distances[n]), int(n)) for n in np.flatnonzero(inside)]

    treasure = reached("treasures", treasures)
    found = {"treasure": [t for t in treasure if exposed(volume, treasures[t[1]])], "fragment": reached(
        "fragments", fragments)}
    found["buried"] = [t for t in treasure if t not in found["treasure"]]
    for kind in ("treasure", "fragment", "buried"):
        if found[kind]:
            distance, n = min(found[kind])
            depth = treasure_depth(volume, treasures[n]) if kind == "buried" else 0.0
            return UseTarget(kind, n, round(distance, 3), depth)
    return None
