"""How a chainsaw enemy (:class:`~voxelworld.game.enemy.ChainsawEnemy`) swings, cuts and works along its wall: its
settings, checked as they are made."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import check_finite, check_integer
from ..motion import SlowdownProfile
from ..terrain import Tool
from .checks import check_tool_and_profile
from .state_checks import MAX_SPEED

__all__ = ["ChainsawSettings", "MAX_LENGTH", "MAX_SECONDS"]

# The largest settings a chainsaw enemy takes: lengths (m: blade, cut, reach, height, stride) and times (s: the
# swing, the carve interval); its walking speed at most state_checks.MAX_SPEED.
MAX_LENGTH, MAX_SECONDS = 100.0, 3600.0

@dataclass(frozen=True)
class ChainsawSettings:
    """How the chainsaw enemy swings, cuts and works along its wall. Lengths are at most ``MAX_LENGTH`` (100 m),
    times ``MAX_SECONDS`` (3600 s), ``walk_speed`` :data:`~voxelworld.game.state_checks.MAX_SPEED` (1000 m/s).

    Parameters
    ----------
    blade_length : float
        m (> 0): the blade runs from 0.05 m beyond the wrist to this far beyond it.
    blade_radius : float
        m (> 0): the blade's capsule radius for contacts.
    cut_radius : float
        m (> 0): the radius of the capsule removed along the blade while in contact. The default, 0.3 m, cuts the
        demo's rock wall two 0.5 m samples deep and 2 m tall in a minute (32 samples give way, 12 at 0.15 m), a
        kerf that reads from 10 m (issue 32).
    carve_interval : float
        s (>= 0): the least time between two carves while in contact; 0 carves every contact frame. The default,
        1/15 s, cuts as much as carving every frame (the blade, slowed in the wall, barely moves in a frame: the
        demo's enemy removes 0.684 m³ in its first 11 s against 0.687), and the terrain is remeshed for it in a
        fifth of the frames instead of more than half (issue 29).
    reach : float
        m (> 0): the collision mesh within this distance of the shoulder is what the blade can touch.
    swing_seconds : float
        s (> 0): the swing's duration (it loops).
    height : float
        m (> 0): the figure's height (CesiumMan scaled to it).
    stride : float
        m (> 0): how far it steps along the wall between two spots it cuts.
    walk_speed : float
        m/s (> 0): how fast it steps.
    swings_per_spot : int
        (>= 1) the most swings it cuts at one spot before it steps on.
    wall_end_swings : int
        (>= 1) swings in a row that miss the wall after which it takes the wall as ended and turns back.
    wall_height : float
        m (>= 0): a contact this far above its feet or higher is the wall; lower, the ground it stands on (the demo
        wall meets the blade 0.34 m up and higher, the grass at most 0.08 m).
    turn_speed : float
        degrees/s (> 0): how fast it turns towards a threat and back to its wall.
    tool : Tool
        The hardness/damage gate of the carve.
    profile : SlowdownProfile
        How the body and arm slow in contact.
    """

    blade_length: float = 0.9
    blade_radius: float = 0.05
    cut_radius: float = 0.3
    carve_interval: float = 1.0 / 15.0
    reach: float = 2.5
    swing_seconds: float = 1.5
    height: float = 1.8
    stride: float = 0.6
    walk_speed: float = 0.8
    swings_per_spot: int = 3
    wall_end_swings: int = 3
    wall_height: float = 0.25
    turn_speed: float = 180.0
    tool: Tool = Tool()
    profile: SlowdownProfile = SlowdownProfile()

    def __post_init__(self) -> None:
        for name in ("blade_length", "blade_radius", "cut_radius", "reach", "height", "stride"):
            object.__setattr__(self, name, check_finite(name, getattr(self, name), minimum=0.0, maximum=MAX_LENGTH,
                                                        strict_minimum=True, unit="m"))
        object.__setattr__(self, "turn_speed", check_finite("turn_speed", self.turn_speed, minimum=0.0,
                                                            maximum=36000.0, strict_minimum=True, unit="degrees/s"))
        object.__setattr__(self, "wall_height", check_finite("wall_height", self.wall_height, minimum=0.0,
                                                             maximum=MAX_LENGTH, unit="m"))
        object.__setattr__(self, "carve_interval", check_finite("carve_interval", self.carve_interval,
                                                                minimum=0.0, maximum=MAX_SECONDS, unit="s"))
        object.__setattr__(self, "swing_seconds", check_finite("swing_seconds", self.swing_seconds, minimum=0.0,
                                                               maximum=MAX_SECONDS, strict_minimum=True, unit="s"))
        object.__setattr__(self, "walk_speed", check_finite("walk_speed", self.walk_speed, minimum=0.0,
                                                            maximum=MAX_SPEED, strict_minimum=True, unit="m/s"))
        for name in ("swings_per_spot", "wall_end_swings"):
            object.__setattr__(self, name, check_integer(name, getattr(self, name), minimum=1))
        check_tool_and_profile(self)

