"""Events: what happened in a frame of the :class:`~voxelworld.game.world.World`, as small frozen values.

Every event carries the ``frame`` it happened in (counted from 0) and the world ``time`` in seconds at the start
of that frame, then its own fields, and whose it is: ``player``, the name of the player whose part of the frame
made it (``"player"`` for the world's own, a joined player's name, :mod:`voxelworld.game.seats`; for an enemy's
event, the player it noticed, struck or was hit by), "" for none (an NPC's, a thing's, an enemy's carve).
``World.step`` returns the frame's events and appends them to the world's log; :func:`event_text` gives each one a
stable line of text, so two runs can be compared by hashing their logs (:func:`log_hash`).

The set is open: any frozen dataclass deriving from :class:`Event` whose fields are numbers, strings, bools,
None or tuples of those is a valid event (the action, NPC and enemy modules add their own).

Examples
--------
>>> step = Footstep(frame=3, time=0.05, material="grass", position=(1.0, 2.0, 3.5), sound="grass")
>>> event_text(step)
'3|0.05|Footstep|material=grass|position=(1.0,2.0,3.5)|sound=grass'
>>> len(log_hash([step]))
64
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, fields

import numpy as np

__all__ = ["Event", "Footstep", "Jumped", "Landed", "StaminaChanged", "ContactStarted", "ContactEnded",
           "VoxelsEdited", "ActionStarted", "ActionEnded", "ActionOutcome", "ActionBlocked", "ItemPlaced", "PickedUp",
           "TreasureOpened", "UpgradeBought", "GoalReached", "NPCChanged", "EnemyChanged", "PlayEnded", "ThingChanged",
           "event_text", "log_hash"]


@dataclass(frozen=True)
class Event:
    """Base of every event: the frame number (from 0), the world time (s) at the frame's start and whose it is
    (``player``: a player's name, "" for none; a keyword, after the event's own fields)."""

    frame: int
    time: float
    player: str = field(default="", kw_only=True)


@dataclass(frozen=True)
class Footstep(Event):
    """The player's foot came down (once a stride) on ``material`` at ``position`` (m); ``sound`` is the
    material's ``footstep`` sound name ("" for silence, and for the world's floor, which has no material)."""

    material: str
    position: tuple[float, float, float]
    sound: str = ""


@dataclass(frozen=True)
class Jumped(Event):
    """The player left the ground by jumping, from ground of ``material``."""

    material: str


@dataclass(frozen=True)
class Landed(Event):
    """The player came down on ``material`` after falling at ``speed`` m/s (downwards, >= 0)."""

    material: str
    speed: float


@dataclass(frozen=True)
class StaminaChanged(Event):
    """The player's stamina crossed a multiple of ``WorldSettings.stamina_event_step``: it is now ``stamina``
    (0 .. max), having changed by ``change`` since the last such event; ``cause`` is what drove it last
    ("sprint", "contact:<material>", "rest", or what an action named)."""

    stamina: float
    change: float
    cause: str


@dataclass(frozen=True)
class ContactStarted(Event):
    """The player's capsule began touching collision triangles of ``material``."""

    material: str


@dataclass(frozen=True)
class ContactEnded(Event):
    """The player's capsule stopped touching collision triangles of ``material``."""

    material: str


@dataclass(frozen=True)
class VoxelsEdited(Event):
    """A queued voxel edit was applied in the frame's update stage.

    ``kind`` is the edit (remove, add, scrape, paint, expose_interior, remove_fragments), ``source`` who queued
    it; volumes in m³; ``material`` the one that lost the most volume (None when nothing was removed)."""

    kind: str
    source: str
    volume_removed: float
    volume_added: float
    material: str | None
    voxels_changed: int
    voxels_damaged: int


@dataclass(frozen=True)
class ActionStarted(Event):
    """A player action (punch, pull_out, suck, stance, throw, use, ...) began."""

    action: str


@dataclass(frozen=True)
class ActionEnded(Event):
    """A player action ended; ``outcome`` says how in a word or two ("done", "time_limit", "blocked", "opened",
    "picked_up", ...)."""

    action: str
    outcome: str


@dataclass(frozen=True)
class ActionOutcome(Event):
    """What a player action or a thrown object did (:class:`~voxelworld.game.actions.ActionEvent`): ``kind`` is
    one of punch, pull_out, suck, bullet, fragments_erased, suck_end, suck_exhausted, stance, stance_refused,
    throw, attach, explode, cool, nothing, lost, treasure, award; ``position`` (m) where, ``material`` of what,
    ``amount`` m³ (a count for bullets), ``item`` the item granted (for impacts: the terrain's material)."""

    kind: str
    position: tuple[float, float, float] | None
    material: str | None
    amount: float
    item: str | None


@dataclass(frozen=True)
class ActionBlocked(Event):
    """A player action did nothing, and why (what the HUD shows for a moment): ``action`` is punch, pull_out,
    suck, throw, stance, use or buy; ``reason`` a code (out_of_reach, too_hard, nothing_aimed, nothing_to_hold,
    hands_full, no_bullet, exhausted, nothing_to_use, see :mod:`voxelworld.game.refusals`; for buy
    not_enough_currency or maxed, :mod:`voxelworld.game.progress`) and ``text`` the words
    ("out of reach: 3.1 m, punch reaches 2.5 m"). Once per press: a held suck says each reason once per hold."""

    action: str
    reason: str
    text: str


@dataclass(frozen=True)
class ItemPlaced(Event):
    """An item (a treasure, an award, a fragment, a bullet) was placed at ``position`` (m)."""

    item: str
    material: str
    position: tuple[float, float, float]


@dataclass(frozen=True)
class PickedUp(Event):
    """The player picked up the loose object ``name`` (a punched fragment) of ``material`` at ``position`` (m);
    it now holds it, to throw like a pulled-out piece."""

    name: str
    material: str
    position: tuple[float, float, float]


@dataclass(frozen=True)
class TreasureOpened(Event):
    """The player opened the treasure ``name`` (``treasure-<n>``, the n-th placed, from 0) lying in a voxel of
    ``material`` at ``position`` (m); it paid that material's ``stamina_reward`` (``stamina``, before the clamp to
    the player's maximum) and ``currency_reward`` (``currency``)."""

    name: str
    material: str
    position: tuple[float, float, float]
    stamina: float
    currency: float


@dataclass(frozen=True)
class UpgradeBought(Event):
    """The player bought ``level`` of the tool upgrade ``upgrade`` (:data:`~voxelworld.game.progress.UPGRADES`)
    for ``cost`` currency, leaving it ``currency``."""

    upgrade: str
    level: int
    cost: float
    currency: float


@dataclass(frozen=True)
class GoalReached(Event):
    """The player reached the world's goal ``goal`` (``text``: what the HUD says), the ``reached``-th of its
    ``goals`` (``WorldSettings.goals``)."""

    goal: str
    text: str
    reached: int
    goals: int


def _text(value: object) -> str:
    """A stable text form: floats by ``repr`` (shortest round-trip), tuples recursively, no spaces."""
    if isinstance(value, (bool, np.bool_)):
        return "True" if value else "False"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return repr(0.0 if number == 0.0 else number) if math.isfinite(number) else str(number)
    if value is None:
        return "None"
    if isinstance(value, str):
        return value
    if isinstance(value, (tuple, list, np.ndarray)):
        return "(" + ",".join(_text(v) for v in value) + ")"
    raise TypeError(f"event field of type {type(value).__name__} has no stable text form")


def event_text(event: Event) -> str:
    """One line naming the event's frame, time, type, whose (``player=<name>``, left out for no player's: a log
    from before players had names reads alike) and fields in declaration order (``-0.0`` shows as ``0.0``); the
    same event always gives the same line."""
    parts = [_text(event.frame), _text(event.time), type(event).__name__] + (
        [f"player={event.player}"] if event.player else [])
    parts += [f"{f.name}={_text(getattr(event, f.name))}" for f in fields(event)
              if f.name not in ("frame", "time", "player")]
    return "|".join(parts)


def log_hash(events: Iterable[Event]) -> str:
    """SHA-256 (hex) of the events' text lines, one per line: equal hashes, identical logs."""
    digest = hashlib.sha256()
    for event in events:
        digest.update(event_text(event).encode())
        digest.update(b"\n")
    return digest.hexdigest()


@dataclass(frozen=True)
class NPCChanged(Event):
    """An NPC ``npc`` planned again (``kind`` "replanned"), was cut off from its goal ("blocked"), arrived
    ("arrived") or stopped at the edge of the baked navmesh of a streaming world, its goal's tile not baked yet
    ("waiting"), standing at ``position`` (m)."""

    npc: str
    kind: str
    position: tuple[float, float, float]


@dataclass(frozen=True)
class EnemyChanged(Event):
    """A chainsaw enemy's blade began ("contact_started") or stopped ("contact_ended") touching ``material``,
    shook ("vibration", ``amount`` the impulse) or carved ("carved", ``amount`` m³ removed)."""

    enemy: str
    kind: str
    material: str
    amount: float


@dataclass(frozen=True)
class PlayEnded(Event):
    """A play ended (:meth:`World.end <voxelworld.game.world.World.end>`, the design's end step), for ``reason``
    (``"stopped"``: the server was stopped; ``"left"``: its last page left; ``"finished"``: a scripted play's
    last frame; or what the caller says): after ``frames`` frames and ``seconds`` s of world time, the player
    with ``stamina`` and ``currency``, ``treasures_opened`` treasures opened, ``bullets`` bullets carried and
    ``removed`` m³ removed per material group (``(group, m³)`` pairs, sorted by group)."""

    reason: str
    frames: int
    seconds: float
    stamina: float
    currency: float
    treasures_opened: int
    bullets: int
    removed: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class ThingChanged(Event):
    """A thing on the ground (:mod:`voxelworld.game.ground_things`) of ``kind`` ("tree", "rock", ...), the
    ``index``-th of chunk column ``column`` (ci, ck), standing at ``position`` (m), lost its support when the
    ground under it was dug: ``state`` "fallen" (a tree, lying along its yaw) or "removed"."""

    kind: str
    column: tuple[int, int]
    index: int
    position: tuple[float, float, float]
    state: str
