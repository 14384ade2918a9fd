"""`Inputs`: one frame of the player's input to :meth:`World.step <voxelworld.game.World.step>`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError, check_finite, check_range
from .progress import check_upgrade

_BUTTONS = ("jump", "sprint", "punch", "pull_out", "suck", "stance", "throw", "use", "dig", "save")


def _pair(parameter: str, value: Any, low: float | None, high: float | None, unit: str) -> tuple[float, float]:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ParameterError(parameter, value, f"two finite numbers ({unit})")
    return tuple(check_finite(f"{parameter}[{n}]", v, minimum=low, maximum=high, unit=unit)
                 for n, v in enumerate(value))  # type: ignore[return-value]


@dataclass(frozen=True)
class Inputs:
    """One frame of player input, checked on construction.

    ``move``: the stick, (right, forward) each in [-1, 1] (a longer vector is shortened to length 1);
    ``look``: the view's absolute (yaw, pitch) in degrees (yaw any finite value, see
    :func:`~voxelworld.game.player.view_direction`; pitch in [-89, 89]), or None to keep it; then buttons,
    True while held: jump, sprint, punch, pull_out, suck, stance, throw, use (pick up a loose fragment or open
    an exposed treasure), dig (dig with the shovel while held, :mod:`voxelworld.game.shovel`), save. Actions
    compare with ``world.previous_inputs`` to see a press. ``buy``: the name of a tool upgrade to buy in this frame
    (one of :data:`~voxelworld.game.progress.UPGRADE_NAMES`; one purchase each frame it is given) or None.

    >>> Inputs(move=(0.0, 1.0), look=(90.0, -10.0), suck=True).suck
    True
    >>> Inputs(buy="punch_damage").buy
    'punch_damage'
    """

    move: tuple[float, float] = (0.0, 0.0)
    look: tuple[float, float] | None = None
    jump: bool = False
    sprint: bool = False
    punch: bool = False
    pull_out: bool = False
    suck: bool = False
    stance: bool = False
    throw: bool = False
    use: bool = False
    dig: bool = False
    save: bool = False
    buy: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "move", _pair("move", self.move, -1.0, 1.0, "stick axes in [-1, 1]"))
        if self.look is not None:
            yaw, pitch = _pair("look", self.look, None, None, "degrees")
            check_finite("look[1]", pitch, minimum=-89.0, maximum=89.0, unit="degrees")
            object.__setattr__(self, "look", (yaw, pitch))
        for name in _BUTTONS:
            check_range(name, getattr(self, name), "True or False", isinstance(getattr(self, name), bool))
        if self.buy is not None:
            check_upgrade("buy", self.buy)
