"""The enemies' cut marks on the wire (issue 32: the kerf reads from 10 m): a whole frame carries every mark the world
keeps, a delta only the marks added since the frame before, and nothing when none was added; a page that lays the
deltas over the first whole frame has the world's marks after every frame."""

from __future__ import annotations

import json

import numpy as np

from voxelworld.game.world import Inputs, World, WorldSettings
from voxelworld.terrain import VoxelVolume
from voxelworld.viewer.frame_encoder import FrameEncoder


def wall_world(keep: int) -> World:
    """An enemy at a soil wall (its face at x = 9 m), keeping ``keep`` marks."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: np.minimum(y - 2.0, 9.0 - x), (32, 16, 32), "soil",
                                  voxel_size=0.5, chunk_size=8)
    world = World(volume, spawn=(3.0, 2.0, 3.0), settings=WorldSettings(cut_marks=keep))
    world.agents.add_enemy("saw", (8.0, 2.0, 8.0))
    return world


def page_marks(marks: list, total: int, cuts: dict, whole: bool) -> tuple[list, int]:
    """What the page (web/cut_marks.js CutMarks.take) keeps after a frame's ``cuts``."""
    first = cuts["total"] - len(cuts["marks"])
    if whole or first > total or cuts["total"] < total:
        marks = list(cuts["marks"])
    else:
        marks = marks + cuts["marks"][total - first:]
    return marks[max(0, len(marks) - cuts["keep"]):], cuts["total"]


def test_a_delta_carries_only_the_marks_added():
    world = wall_world(keep=4)
    encoder = FrameEncoder(world)
    first = json.loads(encoder.encode_all().frame_text)
    assert first["cuts"] == {"total": 0, "keep": 4, "marks": []}
    marks, total = page_marks([], 0, first["cuts"], whole=True)
    sent = quiet = 0
    for _ in range(900):
        world.step(Inputs())
        packet = encoder.encode_frame(step_ms=1.0)
        whole, frame = json.loads(packet.frame_text), json.loads(packet.frame_delta)
        assert whole["cuts"]["marks"] == world.cut_marks.wire() and whole["cuts"]["total"] == world.cut_marks.total
        if "cuts" in frame:
            assert frame["cuts"]["total"] > total and len(frame["cuts"]["marks"]) == frame["cuts"]["total"] - total
            sent += len(frame["cuts"]["marks"])
            marks, total = page_marks(marks, total, frame["cuts"], whole=False)
        else:
            assert world.cut_marks.total == total  # no mark added: no cuts in the delta
            quiet += 1
        assert marks == world.cut_marks.wire() and total == world.cut_marks.total
    assert world.cut_marks.total > 4 == len(marks)  # more marks came than are kept: the oldest dropped
    assert sent == world.cut_marks.total and quiet > 800  # each mark sent once; most frames carry none
