"""A player's progress: the tool upgrades currency buys in the shop, and the world's goals the player reaches.

What a player earns belongs to the player, not to the world (each of several players its own): each
:class:`~voxelworld.game.player.Player` keeps a :class:`Progress` (``player.progress``; its ``currency`` stays
``player.currency``, the treasures it opened ``actions.treasures_taken``, its actions'), saved and loaded with it.

- **Upgrades** (:data:`UPGRADES`, a fixed table): punch damage, suck reach and gauge, and an iron breaker, each
  bought a level at a time for the currency opened treasures pay. The settings the player's actions use are the
  world's :class:`~voxelworld.game.play.ActionSettings` changed by the levels bought (:func:`upgraded_settings`,
  applied where the actions read their settings, ``PlayerActions.settings``). A purchase is an input
  (``Inputs(buy="punch_damage")``), so a replay buys the same; in the "control" stage the world checks the price
  against the currency, takes it and emits ``UpgradeBought``, or refuses with an ``ActionBlocked`` event (action
  ``buy``; reason ``not_enough_currency`` or ``maxed``).
- **Goals** (``WorldSettings.goals``, :class:`Goal`; the demo world's three by default: open three treasures,
  reach the iron, cool the lava) are ticked off as they happen, in the "events" stage, each with a
  ``GoalReached`` event.

Examples
--------
>>> from voxelworld.game.play import ActionSettings
>>> settings = upgraded_settings(ActionSettings(), (("punch_damage", 2), ("suck_reach", 1)))
>>> settings.punch.tool.damage, settings.suck.reach, settings.suck.time_limit
(50, 7.0, 5.0)
>>> Progress().level("punch_damage"), Progress(upgrades=(("breaker", 1),)).level("breaker")
(0, 1)
>>> price("punch_damage", Progress())
2.0
>>> reached_goals(DEMO_GOALS, (), opened=3, touching=frozenset({"iron"}), events=())
('open_treasures', 'reach_iron')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING

from ..errors import ParameterError, check_integer, check_range
from .events import ActionBlocked, ActionOutcome, Event, GoalReached, UpgradeBought

if TYPE_CHECKING:
    from .inputs import Inputs
    from .play import ActionSettings, PlayerActions
    from .world import World

__all__ = ["Upgrade", "UPGRADES", "UPGRADE_NAMES", "Progress", "price", "upgraded_settings", "check_upgrade",
           "Goal", "GOAL_KINDS", "DEMO_GOALS", "check_goals", "reached_goals", "buy", "track_goals", "attach_progress"]


@dataclass(frozen=True)
class Upgrade:
    """A tool upgrade of the shop: its ``name`` (what ``Inputs.buy`` says), ``title`` (what the shop shows),
    ``costs`` (currency units, the price of each level in turn: as many levels as prices) and ``text`` (what a
    level changes)."""

    name: str
    title: str
    costs: tuple[float, ...]
    text: str

    @property
    def max_level(self) -> int:
        return len(self.costs)


PUNCH_DAMAGE_STEP = 0.5  # each punch_damage level adds this share of the world's punch and pull-out tool damage
SUCK_REACH_STEP = 1.0  # m of suck reach each suck_reach level adds
SUCK_GAUGE_STEP = 1.0  # s of suck's full gauge (time_limit) each suck_reach level adds
BREAKER_HARDNESS = 12.0  # the breaker lets punch and pull-out break what is softer than this (iron is 10)

UPGRADES = (
    Upgrade("punch_damage", "punch damage", (2.0, 4.0, 8.0), "+50% punch and pull-out damage"),
    Upgrade("suck_reach", "suck reach", (2.0, 4.0, 8.0), "+1 m suck reach, +1 s suck gauge"),
    Upgrade("breaker", "iron breaker", (10.0,), "punch and pull-out break iron (hardness below 12)"),
)
UPGRADE_NAMES = tuple(u.name for u in UPGRADES)
_BY_NAME = {u.name: u for u in UPGRADES}


def check_upgrade(parameter: str, name: object) -> str:
    """``name`` if it names an upgrade of :data:`UPGRADES`, else ParameterError naming ``parameter`` and the
    legal names."""
    check_range(parameter, name, f"one of {', '.join(UPGRADE_NAMES)}", isinstance(name, str) and name in _BY_NAME)
    return name  # type: ignore[return-value]


@dataclass(frozen=True)
class Progress:
    """What a player has earned besides currency, checked on construction (a saved one too).

    ``upgrades``: ``(name, level)`` pairs of the upgrades bought, in :data:`UPGRADES` order, each level in
    1 .. the upgrade's ``max_level``; ``goals``: the names of the goals reached, in the order reached (no name
    twice).
    """

    upgrades: tuple[tuple[str, int], ...] = ()
    goals: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_range("upgrades", self.upgrades, "a tuple of (name, level) pairs",
                    isinstance(self.upgrades, tuple) and all(isinstance(p, tuple) and len(p) == 2
                                                             for p in self.upgrades))
        names = [check_upgrade(f"upgrades[{n}][0]", name) for n, (name, _) in enumerate(self.upgrades)]
        check_range("upgrades", names, "names in UPGRADES order, each once",
                    names == [u for u in UPGRADE_NAMES if u in names])
        for n, (name, level) in enumerate(self.upgrades):
            check_range(f"upgrades[{n}][1]", level, "a whole number", isinstance(level, int)
                        and not isinstance(level, bool))
            check_integer(f"upgrades[{n}][1]", level, minimum=1, maximum=_BY_NAME[name].max_level)
        check_range("goals", self.goals, "a tuple of distinct goal names",
                    isinstance(self.goals, tuple) and all(isinstance(g, str) and g for g in self.goals)
                    and len(set(self.goals)) == len(self.goals))

    def level(self, name: str) -> int:
        """The level of upgrade ``name`` bought so far (0: none)."""
        return dict(self.upgrades).get(check_upgrade("name", name), 0)

    def with_level(self, name: str, level: int) -> Progress:
        """This progress with upgrade ``name`` at ``level``."""
        levels = dict(self.upgrades) | {name: level}
        return replace(self, upgrades=tuple((u, levels[u]) for u in UPGRADE_NAMES if u in levels))


def price(name: str, progress: Progress) -> float | None:
    """The currency the next level of upgrade ``name`` costs, None when it is at its highest level."""
    upgrade = _BY_NAME[check_upgrade("name", name)]
    level = progress.level(name)
    return upgrade.costs[level] if level < upgrade.max_level else None


def upgraded_settings(settings: ActionSettings, upgrades: Iterable[tuple[str, int]] | Mapping[str, int]
                      ) -> ActionSettings:
    """The action ``settings`` changed by the ``upgrades`` bought (``(name, level)`` pairs, or a mapping):
    punch_damage adds 50% of the punch's and pull-out's tool damage a level (rounded), suck_reach adds 1 m of
    suck reach and 1 s of its gauge (``time_limit``) a level, breaker raises the hardness punch and pull-out can
    never break (``unbreakable_from``) to 12, so that iron (10) gives way to enough hits. No upgrades: the
    settings themselves.

    >>> from voxelworld.game.play import ActionSettings
    >>> upgraded_settings(ActionSettings(), {"breaker": 1}).punch.tool.break_threshold(10.0)
    100
    >>> upgraded_settings(ActionSettings(), ()) == ActionSettings()
    True
    """
    levels = dict(upgrades)
    if not levels:
        return settings
    for name, level in levels.items():
        check_integer(f"upgrades[{check_upgrade('upgrades', name)!r}]", level, minimum=0,
                      maximum=_BY_NAME[name].max_level)
    damage = 1.0 + PUNCH_DAMAGE_STEP * levels.get("punch_damage", 0)
    breaker = levels.get("breaker", 0) > 0
    punches = {}
    for field in ("punch", "pull_out"):
        tool = getattr(settings, field).tool
        tool = replace(tool, damage=min(int(round(tool.damage * damage)), 65535),
                       unbreakable_from=max(tool.unbreakable_from, BREAKER_HARDNESS) if breaker
                       else tool.unbreakable_from)
        punches[field] = replace(getattr(settings, field), tool=tool)
    suck = levels.get("suck_reach", 0)
    sucked = replace(settings.suck, reach=settings.suck.reach + SUCK_REACH_STEP * suck,
                     time_limit=settings.suck.time_limit + SUCK_GAUGE_STEP * suck)
    return replace(settings, suck=sucked, **punches)


# -------------------------------------------------------------------------------------------------- goals
GOAL_KINDS = ("treasures", "reach", "cool")


@dataclass(frozen=True)
class Goal:
    """A goal of a world, checked on construction: ``name`` (unique in the world's list), ``text`` (what the HUD
    says), ``kind`` and its target:

    - ``"treasures"``: the player has opened ``count`` treasures (>= 1);
    - ``"reach"``: the player touches ``material`` or digs some away (punch, pull-out, suck);
    - ``"cool"``: a thrown object of the player's cools ``material`` (lava into obsidian).
    """

    name: str
    text: str
    kind: str
    material: str = ""
    count: int = 1

    def __post_init__(self) -> None:
        for field in ("name", "text"):
            value = getattr(self, field)
            check_range(field, value, "a string of 1 to 64 characters", isinstance(value, str)
                        and 0 < len(value) <= 64)
        check_range("kind", self.kind, f"one of {', '.join(GOAL_KINDS)}", self.kind in GOAL_KINDS)
        check_range("material", self.material, "a material's name for reach and cool goals",
                    isinstance(self.material, str) and (self.kind == "treasures" or bool(self.material)))
        object.__setattr__(self, "count", check_integer("count", self.count, minimum=1))


DEMO_GOALS = (Goal("open_treasures", "open three treasures", "treasures", count=3),
              Goal("reach_iron", "reach the iron", "reach", "iron"),
              Goal("cool_lava", "cool the lava", "cool", "lava"))
_DUG = ("punch", "pull_out", "suck")  # ActionOutcome kinds of the player's digging


def check_goals(goals: object) -> tuple[Goal, ...]:
    """``goals`` as a tuple of :class:`Goal` with distinct names, else ParameterError."""
    if not (isinstance(goals, tuple) and all(isinstance(g, Goal) for g in goals)):
        raise ParameterError("goals", goals, "a tuple of Goal")
    names = [g.name for g in goals]
    check_range("goals", names, "goals of distinct names", len(set(names)) == len(names))
    return goals


def reached_goals(goals: Sequence[Goal], reached: Sequence[str], opened: int, touching: Iterable[str],
                  events: Iterable[Event]) -> tuple[str, ...]:
    """The names of the ``goals`` not ``reached`` yet that are reached now, in the goals' order: ``opened``
    treasures opened so far, the materials the player is ``touching`` and the frame's ``events`` (its
    :class:`~voxelworld.game.events.ActionOutcome` events: what the player dug and cooled)."""
    left = [g for g in goals if g.name not in reached]
    if not left:
        return ()
    touched = set(touching)
    dug, cooled = set(), set()
    for event in events:
        if isinstance(event, ActionOutcome) and event.amount > 0:
            if event.kind in _DUG and event.material is not None:
                dug.add(event.material)
            elif event.kind == "cool" and event.item is not None:
                cooled.add(event.item)
    return tuple(g.name for g in left if (g.kind == "treasures" and opened >= g.count)
                 or (g.kind == "reach" and (g.material in touched or g.material in dug))
                 or (g.kind == "cool" and g.material in cooled))


# --------------------------------------------------------------------------------------------- the stages
def buy(world: World, inputs: Inputs, actions: PlayerActions) -> None:
    """The "control" stage's purchase: ``inputs.buy`` (an upgrade's name; None: nothing) bought for the currency of
    the player whose ``actions`` these are: ``UpgradeBought``, or ``ActionBlocked`` (action ``buy``) when it is at
    its highest level (``maxed``) or costs more than the player has (``not_enough_currency``). One purchase a frame
    it is given."""
    name = inputs.buy
    if name is None:
        return
    player = actions.player
    upgrade = _BY_NAME[name]
    cost = price(name, player.progress)
    if cost is None:
        world.emit(ActionBlocked, action="buy", reason="maxed",
                   text=f"{upgrade.title} is at its highest level ({upgrade.max_level})")
    elif player.currency < cost:
        world.emit(ActionBlocked, action="buy", reason="not_enough_currency",
                   text=f"not enough currency: {upgrade.title} costs {cost:g}, you have {player.currency:g}")
    else:
        level = player.progress.level(name) + 1
        player.progress = player.progress.with_level(name, level)
        player.add_currency(-cost)
        world.emit(UpgradeBought, upgrade=name, level=level, cost=cost, currency=float(player.currency))


def track_goals(world: World, inputs: Inputs, actions: PlayerActions) -> None:
    """The "events" stage's goals: those of ``world.settings.goals`` the player whose ``actions`` these are reached
    in this frame (by its own events) are added to its progress, each with a ``GoalReached`` event (nothing to do
    once all are reached)."""
    player, goals = actions.player, world.settings.goals
    own = [event for event in world.frame_events if event.player == player.name]
    new = reached_goals(goals, player.progress.goals, actions.treasures_taken, player.touching, own)
    if new:
        player.progress = replace(player.progress, goals=player.progress.goals + new)
        texts = {g.name: g.text for g in goals}
        for name in new:
            world.emit(GoalReached, goal=name, text=texts[name], reached=len(player.progress.goals),
                       goals=len(goals))


def attach_progress(world: World, actions: PlayerActions) -> None:
    """Run the purchases of the player whose ``actions`` these are in ``world``'s "control" stage and its goals in
    the "events" stage (as that player: given its inputs, its events say whose)."""
    world.add_handler(partial(buy, actions=actions), "control", actions.player)
    world.add_handler(partial(track_goals, actions=actions), "events", actions.player)

