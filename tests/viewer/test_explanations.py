"""Why an action did nothing and why an NPC planned again, in words (voxelworld.viewer.explanations), from event
logs made here: the reasons come from the events, the HUD's text when there is one."""

from __future__ import annotations

from dataclasses import dataclass

from voxelworld.game.events import ActionEnded, ActionOutcome, Event, NPCChanged, VoxelsEdited
from voxelworld.viewer.explanations import OUTCOME_WORDS, blocked_actions, replans


@dataclass(frozen=True)
class ActionBlocked(Event):
    """The game's blocked-action event, as the feedback rules define it (read by its name and fields)."""

    action: str
    reason: str
    text: str


def edit(frame, source, removed=0.0, damaged=0, material=None):
    return VoxelsEdited(frame, frame / 60, "remove", source, removed, 0.0, material, 10 if removed else 0, damaged)


def test_a_punch_that_only_damaged_rock_says_so_with_the_count():
    log = [edit(5, "punch", damaged=37), ActionEnded(5, 5 / 60, "punch", "blocked")]
    (why,) = blocked_actions(log)
    assert (why.frame, why.who) == (5, "punch")
    assert why.why == "nothing gave way: 37 voxels took damage short of breaking (too hard for one punch)"


def test_a_blocked_action_event_gives_the_huds_words_and_is_told_once():
    text = "out of reach: 3.1 m, punch reaches 2.5 m"
    log = [ActionBlocked(9, 0.15, "punch", "out_of_reach", text), ActionEnded(9, 0.15, "punch", "blocked"),
           ActionEnded(12, 0.2, "stance", "no_bullet")]
    explained = blocked_actions(log)
    assert [(e.frame, e.who, e.why) for e in explained] == [(9, "punch", text),
                                                           (12, "stance", OUTCOME_WORDS["no_bullet"])]


def test_actions_that_did_something_are_not_listed():
    log = [edit(3, "punch", removed=1.0, material="soil"), ActionEnded(3, 0.05, "punch", "done"),
           ActionEnded(4, 0.07, "suck", "released")]
    assert blocked_actions(log) == []


def test_a_re_plan_under_a_re_baked_way_names_the_edits_and_how_far_away():
    log = [edit(1, "chainsaw", removed=0.002, material="rock"), edit(2, "chainsaw", removed=0.003, material="rock"),
           edit(2, "punch", removed=2.5, material="grass"),
           ActionOutcome(2, 2 / 60, "punch", (3.0, 0.0, 4.0), "grass", 2.5, None),
           NPCChanged(2, 2 / 60, "npc_1", "replanned", (0.0, 0.0, 0.0)),
           NPCChanged(2, 2 / 60, "npc_2", "replanned", (30.0, 0.0, 40.0))]
    first, second = replans(log, rebaked={(2, "npc_1")})
    assert first.who == "npc_1" and first.why == (
        "the navmesh under its way was baked again after the chainsaw's 2 cuts removed 0.005 m³ of rock and "
        "the punch removed 2.500 m³ of grass 5.0 m away (frames 1-2)")
    assert second.who == "npc_2" and second.why.startswith("its own walk")  # its way was not re-baked


def test_edits_answered_by_one_re_plan_are_not_cited_again():
    log = [edit(1, "punch", removed=1.0, material="soil"), NPCChanged(1, 0.02, "npc_1", "replanned", (0, 0, 0)),
           edit(5, "suck", removed=0.5, material="soil"), NPCChanged(5, 0.08, "npc_1", "replanned", (0, 0, 0))]
    first, second = replans(log, rebaked={(1, "npc_1"), (5, "npc_1")})
    assert "the punch" in first.why and "suck" not in first.why
    assert "the suck removed 0.500 m³ of soil" in second.why and "punch" not in second.why


def test_a_cut_off_npc_that_finds_a_way_again_says_so():
    log = [NPCChanged(3, 0.05, "npc_1", "blocked", (0, 0, 0)), edit(8, "punch", removed=1.0, material="soil"),
           NPCChanged(8, 0.13, "npc_1", "replanned", (0, 0, 0)), edit(9, "punch", removed=1.0, material="soil"),
           NPCChanged(9, 0.15, "npc_1", "replanned", (0, 0, 0))]
    found, again = replans(log)
    assert found.why.endswith("; it had been cut off and found a way again")
    assert "cut off" not in again.why
