"""Why a player action did nothing: :class:`Refusal` values, the words a HUD shows for them.

Every action that does nothing says why, once per press, as an
:class:`~voxelworld.game.events.ActionBlocked` event (``action``, ``reason``, ``text``): the world's
:class:`~voxelworld.game.play.PlayerActions` makes a :class:`Refusal` with the functions below wherever an action
is refused (the aim meets nothing within reach, the voxels do not give way, nothing is held to throw, no bullet,
suck's gauge is empty, nothing to use) and emits it. One table of reasons serves them all (``REASONS``).

Examples
--------
>>> out_of_reach("punch", 3.14, 4.0).text
'out of reach: 3.1 m, punch reaches 4 m'
>>> too_hard("punch", "iron", 10.0, None, 0).text
'too hard: iron (hardness 10) never gives way to punch'
>>> too_hard("pull_out", "rock", 5.0, 100, 50).text
'rock not broken yet: 50 / 100 damage, pull-out again'
>>> too_hard("punch", "rock", 5.0, 100, 150).text  # past the threshold: thinned, still solid
'rock gave way only in part: punch again to dig deeper'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..collision import TriangleBVH
from ..errors import check_range

__all__ = ["ACTIONS", "REASONS", "Refusal", "refusal", "out_of_reach", "missed", "too_hard", "not_terrain",
           "treasure_buried"]

ACTIONS = ("punch", "pull_out", "suck", "throw", "stance", "use", "dig")

# Each reason code and the words said for it when nothing more is known ({name}: the action as a player reads it).
REASONS = {
    "out_of_reach": "out of reach of {name}",
    "too_hard": "too hard for {name}",
    "nothing_aimed": "nothing to {name}: aim at the ground or a wall",
    "nothing_to_hold": "nothing to throw: pull out a piece, pick up a fragment or ready a bullet",
    "hands_full": "hands full: throw what you hold first",
    "no_bullet": "no bullet: suck terrain to collect bullets",
    "exhausted": "suck gauge empty: release to recharge",
    "nothing_to_use": "nothing to use: aim at a loose fragment or an exposed treasure within reach",
    "treasure_buried": "the treasure is still buried: dig to it first",
    "no_ground": "nothing to {name}: no ground in front of your feet",
}


def _name(action: str) -> str:
    return action.replace("_", "-")


@dataclass(frozen=True)
class Refusal:
    """Why ``action`` (one of ``ACTIONS``) did nothing: ``reason`` (a key of ``REASONS``) and ``text`` (the words
    the HUD shows)."""

    action: str
    reason: str
    text: str

    def __post_init__(self) -> None:
        check_range("action", self.action, f"one of {', '.join(ACTIONS)}", self.action in ACTIONS)
        check_range("reason", self.reason, f"one of {', '.join(REASONS)}", self.reason in REASONS)
        check_range("text", self.text, "a non-empty string", isinstance(self.text, str) and bool(self.text))


def refusal(action: str, reason: str) -> Refusal:
    """The refusal of ``action`` for ``reason`` in the words of ``REASONS``.

    >>> refusal("throw", "nothing_to_hold").text
    'nothing to throw: pull out a piece, pick up a fragment or ready a bullet'
    """
    check_range("reason", reason, f"one of {', '.join(REASONS)}", reason in REASONS)
    return Refusal(action, reason, REASONS[reason].format(name=_name(action)))


def out_of_reach(action: str, distance: float, reach: float) -> Refusal:
    """The aim meets a surface ``distance`` m from the eye, beyond the action's ``reach`` (m)."""
    return Refusal(action, "out_of_reach", f"out of reach: {distance:.1f} m, {_name(action)} reaches {reach:g} m")


def missed(bvh: TriangleBVH | None, eye: ArrayLike, aim: ArrayLike, action: str, reach: float) -> Refusal:
    """Why an aimed action (punch, pull-out, suck) met nothing within ``reach`` m of ``eye`` along the unit
    ``aim``: out_of_reach when the ray meets the collision mesh (``bvh``, a
    :class:`~voxelworld.collision.TriangleBVH` or None) farther away, nothing_aimed when it meets nothing."""
    if bvh is not None:
        hits = bvh.raycast(np.asarray(eye, dtype=np.float64), np.asarray(aim, dtype=np.float64), np.inf)
        if hits.hit[0]:
            return out_of_reach(action, float(hits.distance[0]), reach)
    return refusal(action, "nothing_aimed")


def too_hard(action: str, material: str, hardness: float, break_at: int | None, damage: int) -> Refusal:
    """The voxels the action met did not give way: ``material`` of ``hardness`` never does (``break_at`` None,
    see :meth:`~voxelworld.terrain.Tool.break_threshold`), or its voxel has ``damage`` of ``break_at`` so far.
    A voxel past its threshold has given way in part (thinned, still solid): the text says so rather than
    showing a damage above the threshold as "not broken"."""
    if break_at is None:
        text = f"too hard: {material} (hardness {hardness:g}) never gives way to {_name(action)}"
    elif damage >= break_at:
        text = f"{material} gave way only in part: {_name(action)} again to dig deeper"
    else:
        text = f"{material} not broken yet: {damage} / {break_at} damage, {_name(action)} again"
    return Refusal(action, "too_hard", text)


def not_terrain(action: str, material: str) -> Refusal:
    """The action met something of ``material`` that is no terrain (a prop): its range held no voxel.

    >>> not_terrain("punch", "wood").text
    'nothing to dig: the wood aimed at is not terrain'
    """
    return Refusal(action, "nothing_aimed", f"nothing to dig: the {material} aimed at is not terrain")


def treasure_buried(depth: float) -> Refusal:
    """Use aimed at a treasure still buried ``depth`` m deep (:func:`~voxelworld.game.use.treasure_depth`).

    >>> treasure_buried(0.75).text
    'the treasure lies 0.8 m deep: dig to it first'
    """
    return Refusal("use", "treasure_buried", f"the treasure lies {depth:.1f} m deep: dig to it first")
