"""Why things happened, in words, from a world's event log: why a player action did nothing, why an NPC planned
its way again. The demo report (:mod:`voxelworld.viewer.demo_session`) prints these.

An action that does nothing is told by an ``ActionBlocked`` event (its ``text`` says why, as the HUD does) or,
for a log without those, by the ``ActionEnded`` outcome and the frame's ``VoxelsEdited``. A re-plan is told by
the terrain edits that came before it when the navmesh was baked again under the NPC's way, else by the NPC's own
walk.

>>> from voxelworld.game.events import ActionEnded, NPCChanged, VoxelsEdited, ActionOutcome
>>> log = [VoxelsEdited(10, 0.17, "remove", "punch", 0.0, 0.0, None, 0, 12), ActionEnded(10, 0.17, "punch", "blocked"),
...        VoxelsEdited(20, 0.33, "remove", "punch", 2.5, 0.0, "grass", 40, 0),
...        ActionOutcome(20, 0.33, "punch", (28.0, 9.0, 22.0), "grass", 2.5, None),
...        NPCChanged(22, 0.37, "npc_1", "replanned", (30.0, 9.0, 23.0))]
>>> print(blocked_actions(log)[0].why)
nothing gave way: 12 voxels took damage short of breaking (too hard for one punch)
>>> print(replans(log)[0].why)
the navmesh under its way was baked again after the punch removed 2.500 m³ of grass 2.2 m away (frame 20)
"""

from __future__ import annotations

import math
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Explanation", "blocked_actions", "replans", "OUTCOME_WORDS"]

# ActionEnded outcomes of an action that did nothing, in words (before ActionBlocked events told the reason).
OUTCOME_WORDS = {"missed": "nothing within reach where the player aimed", "hands_full": "the hands were full",
                 "no_bullet": "no bullet to ready (suck one up first)", "nothing_held": "nothing in the hands to throw",
                 "nothing_in_reach": "nothing to pick up or open within reach"}


@dataclass(frozen=True)
class Explanation:
    """Who (an ``action`` or an NPC's name) at ``frame`` / ``time`` (s), and ``why`` in words."""

    frame: int
    time: float
    who: str
    why: str


def _fields(event: object) -> dict[str, Any]:
    return {name: getattr(event, name) for name in ("action", "reason", "text") if hasattr(event, name)}


def blocked_actions(events: Sequence[Any]) -> list[Explanation]:
    """Every player action in ``events`` that did nothing, with the reason: an ``ActionBlocked`` event's text,
    else the ``ActionEnded`` outcome ("blocked": the frame's edit damaged voxels without removing any)."""
    told = {(e.frame, e.action) for e in events if type(e).__name__ == "ActionBlocked"}
    damaged: dict[tuple[int, str], int] = {}
    found = []
    for e in events:
        name = type(e).__name__
        if name == "VoxelsEdited":
            damaged[(e.frame, e.source)] = damaged.get((e.frame, e.source), 0) + e.voxels_damaged
        elif name == "ActionBlocked":
            fields = _fields(e)
            why = fields.get("text") or str(fields.get("reason", "")).replace("_", " ")
            found.append(Explanation(e.frame, e.time, e.action, why))
        elif name == "ActionEnded" and (e.frame, e.action) not in told:
            if e.outcome == "blocked":
                hurt = damaged.get((e.frame, e.action), 0)
                why = (f"nothing gave way: {hurt} voxels took damage short of breaking (too hard for one "
                       f"{e.action.replace('_', '-')})" if hurt else "nothing gave way: nothing there could be removed")
                found.append(Explanation(e.frame, e.time, e.action, why))
            elif e.outcome in OUTCOME_WORDS:
                found.append(Explanation(e.frame, e.time, e.action, OUTCOME_WORDS[e.outcome]))
    return found


def _cause(edits: list[Any], place: Sequence[float] | None = None, npc_at: Sequence[float] | None = None) -> str:
    """What ``edits`` (VoxelsEdited events of one source) did together and who did them, in words; how far from
    ``npc_at`` when the last one's ``place`` (m) is known."""
    source, count = edits[-1].source, len(edits)
    removed, added = sum(e.volume_removed for e in edits), sum(e.volume_added for e in edits)
    if source.startswith("impact:"):
        who = f"the thrown object's {source.split(':', 1)[1]}"
    elif source in ("punch", "pull_out", "suck"):
        who = f"the {source.replace('_', '-')}" + (f" ({count} edits)" if count > 1 else "")
    else:
        who = f"the {source}'s cut" if count == 1 else f"the {source}'s {count} cuts"
    materials = sorted({e.material for e in edits if e.material})
    what = (f"removed {removed:.3f} m³ of {' and '.join(materials)}" if removed > 0 else
            f"added {added:.3f} m³" if added > 0 else f"changed {sum(e.voxels_changed for e in edits)} voxels")
    where = "" if place is None or npc_at is None else f" {math.dist(place, npc_at):.1f} m away"
    return f"{who} {what}{where}"


def replans(events: Iterable[Any], rebaked: Container[tuple[int, str]] | None = None) -> list[Explanation]:
    """Every NPC re-plan in ``events`` with its cause.

    ``rebaked``: the (frame, NPC name) pairs at which the navmesh was baked again under the NPC's way (as an
    observer between frames saw it; :func:`voxelworld.viewer.demo_session.run_session` keeps them). Such a
    re-plan is put down to the terrain edits since the last re-plan that was (summed by source); any
    other re-plan to the NPC's own walk (its stride left the navmesh). Without ``rebaked``, a re-plan after an
    edit is put down to the edits. An NPC that had been cut off and found a way again says so."""
    window: list[Any] = []  # VoxelsEdited events not yet cited
    used_at: int | None = None
    places: dict[tuple[int, str], Sequence[float]] = {}
    blocked: set[str] = set()
    found = []
    for e in events:
        name = type(e).__name__
        if name == "VoxelsEdited" and (e.volume_removed > 0 or e.volume_added > 0 or e.voxels_changed > 0):
            if used_at is not None and e.frame > used_at:  # the edits cited so far were answered: start anew
                window, used_at = [], None
            window.append(e)
        elif name == "ActionOutcome" and e.position is not None:
            places[(e.frame, e.kind)] = e.position
        elif name == "NPCChanged" and e.kind == "blocked":
            blocked.add(e.npc)
        elif name == "NPCChanged" and e.kind == "replanned":
            under_way = (e.frame, e.npc) in rebaked if rebaked is not None else bool(window)
            if under_way and window:
                used_at = e.frame
                by_source: dict[str, list] = {}
                for edit in window:  # one cause per source, placed where its last edit was
                    by_source.setdefault(edit.source, []).append(edit)
                causes = [_cause(edits, places.get((edits[-1].frame, edits[-1].source)), e.position)
                          for edits in by_source.values()]
                frames = (window[0].frame, window[-1].frame)
                when = f"frame {frames[0]}" if frames[0] == frames[1] else f"frames {frames[0]}-{frames[1]}"
                why = f"the navmesh under its way was baked again after {' and '.join(causes)} ({when})"
            elif under_way:
                why = "the navmesh under its way was baked again"
            else:
                why = "its own walk: its way, as planned, left the navmesh within a stride, so it planned again " \
                      "from where it stood"
            if e.npc in blocked:
                blocked.discard(e.npc)
                why += "; it had been cut off and found a way again"
            found.append(Explanation(e.frame, e.time, e.npc, why))
    return found
