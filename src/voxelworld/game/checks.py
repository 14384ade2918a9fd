"""Checks the player's actions share (punch and pull-out, suck, throwing, deformation), and the tool holders (the
chainsaw enemy, the shovel digger) their facing and settings: each returns the value
as the action uses it, or raises :class:`~voxelworld.errors.ParameterError` naming the parameter, the value
and what would have been legal, before any voxel is touched.

Examples
--------
>>> check_direction("aim", (0, 0, 2)).tolist()
[0.0, 0.0, 1.0]
>>> check_point("eye", (1, 2, float("nan")))
Traceback (most recent call last):
...
voxelworld.errors.ParameterError: eye = (1, 2, nan) is out of range: must be a point (x, y, z) ...
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..collision import TriangleBVH
from ..errors import ParameterError, check_range
from ..errors import check_direction as _check_direction
from ..errors import check_point as _check_point
from ..motion import SlowdownProfile
from ..terrain import Tool, Volume

if TYPE_CHECKING:
    from .chainsaw_settings import ChainsawSettings
    from .digger import ShovelSettings

__all__ = ["check_point", "check_direction", "check_horizontal_direction", "check_world", "check_tool",
           "check_tool_and_profile", "check_finish", "point_tuple"]


def check_point(parameter: str, value: object) -> np.ndarray:
    """``value`` as a finite (3,) float64 array, or :class:`ParameterError`."""
    return np.array(_check_point(parameter, value))


def check_direction(parameter: str, value: object) -> np.ndarray:
    """``value`` normalised to unit length, or :class:`ParameterError` (zero or not finite)."""
    return np.array(_check_direction(parameter, value))


def check_horizontal_direction(parameter: str, value: object) -> np.ndarray:
    """``value`` with y = 0, normalised to unit length (an enemy's or a digger's facing), or
    :class:`ParameterError` (not three numbers, zero across y, or not finite)."""
    try:
        vector = np.array(value, dtype=np.float64).reshape(3)
    except (TypeError, ValueError):
        raise ParameterError(parameter, value, "a horizontal direction (x, 0, z), not zero") from None
    vector[1] = 0.0
    norm = float(np.hypot(vector[0], vector[2]))
    if not np.isfinite(norm) or norm < 1e-9:
        raise ParameterError(parameter, value, "a horizontal direction (x, 0, z), not zero")
    return vector / norm


def check_world(volume: object, bvh: object) -> None:
    """The terrain and the collision BVH an action works on (``bvh`` may be None: nothing to hit)."""
    check_range("volume", volume, "a voxelworld.terrain.VoxelVolume or SparseVolume", isinstance(volume, Volume))
    check_range("bvh", bvh, "a voxelworld.collision.TriangleBVH over the collision mesh, or None",
                bvh is None or isinstance(bvh, TriangleBVH))


def check_tool(tool: Any) -> Tool:
    """The hardness/damage gate of an action."""
    check_range("tool", tool, "a voxelworld.terrain.Tool", isinstance(tool, Tool))
    return tool


def check_tool_and_profile(settings: ChainsawSettings | ShovelSettings) -> None:
    """The checks every tool holder's settings end with (the chainsaw's, :mod:`voxelworld.game.chainsaw_settings`,
    and the shovel's, :mod:`voxelworld.game.digger`): ``settings.tool`` a :class:`~voxelworld.terrain.Tool` and
    ``settings.profile`` a :class:`~voxelworld.motion.SlowdownProfile`, else ParameterError naming the field."""
    if not isinstance(settings.tool, Tool):
        raise ParameterError("tool", type(settings.tool).__name__, "a voxelworld.terrain.Tool")
    if not isinstance(settings.profile, SlowdownProfile):
        raise ParameterError("profile", type(settings.profile).__name__, "a voxelworld.motion.SlowdownProfile")


def check_finish(finish: object) -> None:
    """The callback a queued edit calls with its result."""
    check_range("finish", finish, "a callable taking the result", callable(finish))


def point_tuple(array: Sequence[float] | np.ndarray) -> tuple[float, float, float]:
    """A point as three Python floats (for events and recipes)."""
    return (float(array[0]), float(array[1]), float(array[2]))
