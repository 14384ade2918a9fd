"""Events on deformation (issue #6, section 3): buried treasure and per-group awards for what the player removed.

:class:`DeformationState` carries, between frames, the volume removed since the last treasure and the volume
removed per material group (m³: density fall x voxel volume, as every :class:`~voxelworld.terrain.EditResult`
counts it). :func:`record_removal` (or :func:`record_action` for an :class:`~.actions.ActionResult`,
:func:`record_impact` for a thrown object's :class:`~.throwing.ImpactResult`) adds one action's removal and
returns the new state with the events it caused. A :class:`~voxelworld.game.world.World` records in its
"deformation" stage, after the collisions, what that frame's edits removed:

- **Treasure**: once the counter reaches ``TreasureSettings.threshold``, a treasure item is placed buried inside
  solid voxels, behind the deformed spot as seen from the player (on the line from the eye through the spot,
  ``min_depth`` .. ``distance`` m past it), and the counter resets to zero. An action aimed within
  ``vertical_degrees`` of straight up or down places none, and neither does one with no buried spot on that
  line; the counter then keeps counting.
- **Awards**: each group whose total passes one of ``AwardSettings`` thresholds is granted an item per threshold.

:func:`achievements` gives the per-group totals (``voxelworld.viewer.achievements_png`` draws them).

Examples
--------
>>> from voxelworld.terrain import VoxelVolume
>>> ground = VoxelVolume.from_sdf(lambda x, y, z: 4.0 - x, (16, 12, 12), "rock", voxel_size=0.5)
>>> state = DeformationState()
>>> update = record_removal(state, ground, eye=(2.0, 3.0, 3.0), aim=(1.0, 0.0, 0.0), point=(4.0, 3.0, 3.0),
...                         volume_removed=5.0, removed_by_group={"rock": 5.0})
>>> update.treasure.position, update.state.since_treasure
((4.5, 3.0, 3.0), 0.0)
>>> [award.item for award in update.awards], achievements(update.state)
(['rock award 1', 'rock award 2'], {'rock': 5.0})
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_finite, check_range
from ..terrain import Volume
from .actions import ActionEvent, ActionResult
from .checks import check_direction, check_point
from .throwing import ImpactResult

__all__ = ["TreasureSettings", "AwardSettings", "Treasure", "Award", "DeformationState", "DeformationUpdate",
           "record_removal", "record_action", "record_impact", "achievements", "treasure_spot", "buried"]


def _tuple(array: Sequence[float] | np.ndarray) -> tuple[float, float, float]:
    return (float(array[0]), float(array[1]), float(array[2]))


def _thresholds(parameter: str, values: Any) -> tuple[float, ...]:
    legal = "an increasing tuple of finite numbers > 0 (m³)"
    check_range(parameter, values, legal, isinstance(values, tuple))
    numbers = tuple(check_finite(parameter, v, minimum=0.0, strict_minimum=True, unit="m³") for v in values)
    check_range(parameter, values, legal, all(a < b for a, b in zip(numbers, numbers[1:])))
    return numbers


@dataclass(frozen=True)
class TreasureSettings:
    """When and where treasure is buried.

    Parameters
    ----------
    threshold : float
        Volume removed (m³, > 0) that places a treasure.
    distance : float
        Farthest a treasure lies behind the deformed spot, m (> ``min_depth``).
    min_depth : float
        Nearest a treasure lies behind the deformed spot, m (>= 0).
    vertical_degrees : float
        Actions aimed within this angle of straight up or down place no treasure, degrees (0..90).
    item : str
        Name of the treasure item.
    """

    threshold: float = 4.0
    distance: float = 3.0
    min_depth: float = 0.5
    vertical_degrees: float = 30.0
    item: str = "treasure"

    def __post_init__(self) -> None:
        object.__setattr__(self, "threshold", check_finite("threshold", self.threshold, minimum=0.0,
                                                           strict_minimum=True, unit="m³"))
        object.__setattr__(self, "min_depth", check_finite("min_depth", self.min_depth, minimum=0.0, unit="m"))
        object.__setattr__(self, "distance", check_finite("distance", self.distance, minimum=self.min_depth,
                                                          strict_minimum=True, unit="m"))
        object.__setattr__(self, "vertical_degrees", check_finite("vertical_degrees", self.vertical_degrees,
                                                                  minimum=0.0, maximum=90.0, unit="degrees"))
        check_range("item", self.item, "a non-empty name", isinstance(self.item, str) and bool(self.item))


@dataclass(frozen=True)
class AwardSettings:
    """Per-group awards for volume removed.

    Parameters
    ----------
    thresholds : tuple of float
        Increasing totals (m³) at which every group grants an item.
    group_thresholds : tuple of (str, tuple of float)
        Groups with thresholds of their own, e.g. ``(("rock", (2.0, 10.0)),)``.
    item : str
        Item name template; ``{group}`` and ``{rank}`` (1 for the first threshold) are filled in.
    """

    thresholds: tuple[float, ...] = (1.0, 5.0, 25.0)
    group_thresholds: tuple[tuple[str, tuple[float, ...]], ...] = ()
    item: str = "{group} award {rank}"

    def __post_init__(self) -> None:
        object.__setattr__(self, "thresholds", _thresholds("thresholds", self.thresholds))
        rows = self.group_thresholds
        check_range("group_thresholds", rows, "a tuple of (group name, thresholds) pairs",
                    isinstance(rows, tuple) and all(isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], str)
                                                    for r in rows))
        object.__setattr__(self, "group_thresholds", tuple(
            (group, _thresholds(f"group_thresholds[{group!r}]", values)) for group, values in rows))
        try:
            self.item.format(group="g", rank=1)
        except (AttributeError, KeyError, IndexError, ValueError):
            raise ParameterError("item", self.item, "a name template using only {group} and {rank}") from None

    def thresholds_of(self, group: str) -> tuple[float, ...]:
        """The thresholds (m³) of ``group``."""
        return dict(self.group_thresholds).get(group, self.thresholds)


@dataclass(frozen=True)
class Treasure:
    item: str
    position: tuple[float, float, float]  # m, the centre of a voxel buried with all its neighbours solid
    depth: float  # m behind the deformed spot


@dataclass(frozen=True)
class Award:
    group: str
    threshold: float  # m³
    rank: int  # 1 for the group's first threshold
    item: str


@dataclass(frozen=True)
class DeformationState:
    """What deformation events carry between frames. Groups are kept sorted by name (hashable, deterministic)."""

    since_treasure: float = 0.0  # m³ removed since the last treasure
    removed_by_group: tuple[tuple[str, float], ...] = ()  # m³ removed per material group, all time
    awarded: tuple[tuple[str, int], ...] = ()  # thresholds already passed per group
    treasures: tuple[Treasure, ...] = ()  # every treasure placed, in order

    def achievements(self) -> dict[str, float]:
        """Volume removed per material group (m³)."""
        return dict(self.removed_by_group)


@dataclass(frozen=True)
class DeformationUpdate:
    state: DeformationState
    treasure: Treasure | None
    awards: tuple[Award, ...]
    events: tuple[ActionEvent, ...]


def achievements(state: DeformationState) -> dict[str, float]:
    """Volume removed per material group (m³), sorted by group name."""
    check_range("state", state, "a DeformationState", isinstance(state, DeformationState))
    return state.achievements()


def buried(volume: Volume, index: Iterable[int]) -> bool:
    """Whether voxel ``index`` (i, j, k) is buried: it and its 26 neighbours lie inside the volume and are solid.
    Treasure is placed only in buried voxels, and can be opened once its voxel is no longer buried."""
    i, j, k = (int(v) for v in index)
    if min(i, j, k) < 1 or any(v >= n - 1 for v, n in zip((i, j, k), volume.shape)):
        return False
    return bool(volume.read_window((i - 1, j - 1, k - 1), (i + 2, j + 2, k + 2), ("density",))["density"].min()
                >= volume.iso)


def treasure_spot(volume: Volume, eye: ArrayLike, point: ArrayLike, settings: TreasureSettings = TreasureSettings()
                  ) -> tuple[tuple[float, float, float], float] | None:
    """The first buried spot behind ``point`` as seen from ``eye``: ``(position, depth)`` or None.

    Candidates lie on the line from the eye through the point, ``min_depth`` .. ``distance`` m past the point,
    every half voxel; a candidate is the sample of its nearest voxel, buried when that voxel and its 26
    neighbours (all inside the volume) are solid.
    """
    eye, point = check_point("eye", eye), check_point("point", point)
    check_range("eye", _tuple(eye), "a point other than the deformed spot", bool(np.any(eye != point)))
    direction = (point - eye) / np.linalg.norm(point - eye)
    step = volume.voxel_size / 2
    count = int(math.floor((settings.distance - settings.min_depth) / step + 1e-9)) + 1
    depths = settings.min_depth + step * np.arange(count)
    nearest = np.round(volume.world_to_index(point + depths[:, None] * direction)).astype(np.int64)
    for depth, index in zip(depths.tolist(), nearest.tolist()):
        if buried(volume, index):
            return _tuple(volume.index_to_world(index)), float(depth)
    return None


def record_removal(state: DeformationState, volume: Volume, eye: ArrayLike, aim: ArrayLike, point: ArrayLike,
                   volume_removed: float, removed_by_group: Mapping[str, float],
                   treasure: TreasureSettings = TreasureSettings(), awards: AwardSettings = AwardSettings()
                   ) -> DeformationUpdate:
    """Add one action's removal (``volume_removed`` m³ at ``point``, ``removed_by_group`` m³ per group) made by
    a player at ``eye`` aiming along ``aim``; place a treasure and grant awards as due (see the module)."""
    check_range("state", state, "a DeformationState", isinstance(state, DeformationState))
    check_range("volume", volume, "a voxelworld.terrain.VoxelVolume or SparseVolume", isinstance(volume, Volume))
    eye, aim, point = check_point("eye", eye), check_direction("aim", aim), check_point("point", point)
    volume_removed = check_finite("volume_removed", volume_removed, minimum=0.0, unit="m³")
    check_range("removed_by_group", removed_by_group, "a mapping of group name to m³",
                isinstance(removed_by_group, Mapping))
    groups = {str(g): check_finite(f"removed_by_group[{g!r}]", v, minimum=0.0, unit="m³")
              for g, v in removed_by_group.items()}
    check_range("treasure", treasure, "a TreasureSettings", isinstance(treasure, TreasureSettings))
    check_range("awards", awards, "an AwardSettings", isinstance(awards, AwardSettings))

    events: list[ActionEvent] = []
    since = state.since_treasure + volume_removed
    found = None
    vertical = abs(float(aim[1])) >= math.cos(math.radians(treasure.vertical_degrees))
    if since >= treasure.threshold and not vertical and np.any(eye != point):
        spot = treasure_spot(volume, eye, point, treasure)
        if spot is not None:
            found = Treasure(treasure.item, spot[0], spot[1])
            events.append(ActionEvent("treasure", spot[0], None, since, treasure.item))
            since = 0.0
    totals = dict(state.removed_by_group)
    for group, amount in groups.items():
        totals[group] = totals.get(group, 0.0) + amount
    passed = dict(state.awarded)
    granted: list[Award] = []
    for group in sorted(totals):
        levels = awards.thresholds_of(group)
        reached = sum(1 for level in levels if totals[group] >= level)
        for rank in range(passed.get(group, 0) + 1, reached + 1):
            item = awards.item.format(group=group, rank=rank)
            granted.append(Award(group, levels[rank - 1], rank, item))
            events.append(ActionEvent("award", _tuple(point), None, levels[rank - 1], item))
        passed[group] = max(reached, passed.get(group, 0))
    new_state = DeformationState(since, tuple(sorted(totals.items())), tuple(sorted(passed.items())),
                                 state.treasures + ((found,) if found else ()))
    return DeformationUpdate(new_state, found, tuple(granted), tuple(events))


def record_action(state: DeformationState, volume: Volume, eye: ArrayLike, result: ActionResult,
                  treasure: TreasureSettings = TreasureSettings(), awards: AwardSettings = AwardSettings()
                  ) -> DeformationUpdate:
    """:func:`record_removal` for the removal an action reported (a miss records nothing)."""
    check_range("result", result, "an ActionResult", isinstance(result, ActionResult))
    if result.point is None:
        check_range("state", state, "a DeformationState", isinstance(state, DeformationState))
        return DeformationUpdate(state, None, (), ())
    return record_removal(state, volume, eye, result.aim, result.point, result.volume_removed,
                          result.removed_by_group, treasure, awards)


def record_impact(state: DeformationState, volume: Volume, eye: ArrayLike, result: ImpactResult,
                  treasure: TreasureSettings = TreasureSettings(), awards: AwardSettings = AwardSettings()
                  ) -> DeformationUpdate:
    """:func:`record_removal` for the density a thrown object's impact removed (an explosion), at its contact as
    seen from the player's ``eye`` (m); an impact that removed none (attach, cool, nothing) records nothing."""
    check_range("result", result, "an ImpactResult", isinstance(result, ImpactResult))
    check_range("state", state, "a DeformationState", isinstance(state, DeformationState))
    eye, point = check_point("eye", eye), check_point("result.contact.point", result.contact.point)
    if result.edit.volume_removed <= 0.0:
        return DeformationUpdate(state, None, (), ())
    # Seen from the eye; from where the object came (into the surface) when the eye is at the contact itself.
    aim = point - eye if np.any(point != eye) else -np.asarray(result.contact.normal, dtype=np.float64)
    return record_removal(state, volume, eye, aim, point, result.edit.volume_removed, result.edit.removed_by_group,
                          treasure, awards)
