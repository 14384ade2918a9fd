"""The frame's control stage (the buttons read and the actions started before the deformation bookkeeping) and the
design's end step (World.end: the play's summary event)."""

from __future__ import annotations

import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.events import ActionStarted, PlayEnded, log_hash
from voxelworld.game.world import Inputs, World

from .test_world import wall_world


def test_a_press_starts_its_action_before_the_frames_deformation_bookkeeping():
    world = wall_world()
    seen = {}  # stage -> whether this frame's punch had started by the end of it

    def look(stage):
        def handler(w, inputs):
            if w.frame == 3:
                seen[stage] = any(isinstance(e, ActionStarted) and e.action == "punch" for e in w._frame_events)
        return handler
    for stage in ("collisions", "control", "deformation"):
        world.add_handler(look(stage), stage)
    for frame in range(5):
        world.step(Inputs(punch=frame == 3))
    assert seen == {"collisions": False, "control": True, "deformation": True}


def test_end_sums_the_play_up_in_one_event_and_the_world_steps_on():
    world = World.demo(seed=0)
    for frame in range(90):
        world.step(Inputs(look=(270.0, -30.0), suck=frame >= 10))
    before = log_hash(world.events)
    summary = world.end("finished")
    assert isinstance(summary, PlayEnded) and world.events[-1] is summary and log_hash(world.events) != before
    assert (summary.reason, summary.frame, summary.frames) == ("finished", 90, 90)
    assert summary.seconds == pytest.approx(1.5)
    assert summary.stamina == world.player.stamina and summary.currency == world.player.currency
    assert summary.bullets == len(world.actions.suck.bullets) > 0
    assert dict(summary.removed) == pytest.approx(world.achievements()) and summary.removed
    assert [group for group, _ in summary.removed] == sorted(world.achievements())
    world.step(Inputs())  # a new play goes on in the same world
    assert world.frame == 91


def test_end_is_refused_for_a_bad_reason_and_inside_a_frame():
    world = wall_world()
    for reason in ("", 3, "x" * 65, None):
        with pytest.raises(ParameterError, match="reason"):
            world.end(reason)
    refused = []

    def end_inside(w, inputs):
        with pytest.raises(ParameterError, match="stage") as error:
            w.end()
        refused.append(error.value)
    world.add_handler(end_inside, "events")
    world.step(Inputs())
    assert refused and not any(isinstance(e, PlayEnded) for e in world.events)
