"""The enemy's cut stays marked (issue 32, section 3: the kerf reads from 10 m, a darker cut face): the world keeps
the capsules its enemies cut with (``world.cut_marks``, :mod:`voxelworld.game.kerf_marks`), the last ones, the same
in every run, saved with the world and taken back range-checked; a world file from before has none."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.kerf_marks import MERGE_DISTANCE, CutMarks, _segment_distances
from voxelworld.game.world import Inputs, World, WorldSettings
from voxelworld.io import load_world, save_world
from voxelworld.terrain import Capsule, VoxelVolume

from ..io.forge import state_row, write_state_text

FRAMES = 900  # 15 s: the enemy cuts a dozen marks into its soil wall


def wall() -> VoxelVolume:
    """A soil wall (its face at x = 9 m) on soil ground (y = 2 m)."""
    return VoxelVolume.from_sdf(lambda x, y, z: np.minimum(y - 2.0, 9.0 - x), (32, 16, 32), "soil",
                                voxel_size=0.5, chunk_size=8)


def cutting(settings: WorldSettings = WorldSettings(), frames: int = FRAMES) -> tuple[World, list[Capsule]]:
    """A world whose enemy cuts the wall for ``frames`` frames, and the capsules of its carves that removed voxels."""
    world = World(wall(), spawn=(3.0, 2.0, 3.0), settings=settings)
    world.agents.add_enemy("saw", (8.0, 2.0, 8.0))
    cuts = []
    for _ in range(frames):
        world.step(Inputs())
        cuts += [edit.shape for edit, result in world.applied_edits
                 if edit.recipe is not None and edit.recipe.make == "carve" and result.voxels_changed > 0]
    return world, cuts


@pytest.fixture(scope="module")
def cut() -> tuple[World, list[Capsule]]:
    return cutting()


def test_the_enemy_s_cuts_leave_marks_where_it_cut(cut):
    world, cuts = cut
    marks = world.cut_marks.marks
    assert len(cuts) > 50 and 8 <= len(marks) == world.cut_marks.total < len(cuts)  # merged where it cut again
    capsules = {(c.a, c.b, c.radius) for c in cuts}
    for mark in marks:  # each mark is a capsule the blade cut with...
        assert (tuple(mark[:3].tolist()), tuple(mark[3:6].tolist()), float(mark[6])) in capsules
        assert 8.0 <= max(mark[0], mark[3]) <= 9.8  # ...at the wall's face
    for capsule in cuts:  # ...and every cut is marked: both ends near one mark's segment
        a, b = np.array(capsule.a), np.array(capsule.b)
        assert np.any((_segment_distances(a, marks[:, :3], marks[:, 3:6]) <= MERGE_DISTANCE)
                      & (_segment_distances(b, marks[:, :3], marks[:, 3:6]) <= MERGE_DISTANCE))
    # Its wall is soil: the volume is emptied along each mark's axis.
    volume = world.volume
    for mark in marks:
        middle = (mark[:3] + mark[3:6]) / 2
        index = np.round((middle - volume.origin) / volume.voxel_size).astype(int)
        assert volume.density[tuple(index)] < volume.iso


def test_the_marks_are_bounded_and_the_same_in_every_run(cut):
    world, _ = cut
    few, _ = cutting(WorldSettings(cut_marks=4))
    assert len(few.cut_marks) == 4 and few.cut_marks.total == world.cut_marks.total
    assert np.array_equal(few.cut_marks.marks, world.cut_marks.marks[-4:])  # the last ones, bit for bit
    none, _ = cutting(WorldSettings(cut_marks=0), frames=300)
    assert len(none.cut_marks) == 0 and none.cut_marks.total == 0
    with pytest.raises(ParameterError, match="cut_marks"):
        WorldSettings(cut_marks=65)  # more than the page's shader holds


def test_the_marks_are_saved_and_taken_back(cut, tmp_path):
    world, _ = cut
    assert len(world.cut_marks) > 0
    path = tmp_path / "cut.vxw"
    save_world(world, path)
    loaded = load_world(path)
    assert np.array_equal(loaded.cut_marks.marks, world.cut_marks.marks)
    assert loaded.cut_marks.total == world.cut_marks.total
    # A world file written before the marks (no key in the world's row, no field in its settings) loads with none.
    row = state_row(path, "world")
    del row["cut_marks"]
    write_state_text(path, "world", _json(row))
    settings = state_row(path, "settings")
    del settings["settings"]["cut_marks"]
    write_state_text(path, "settings", _json(settings))
    old = load_world(path)
    assert len(old.cut_marks) == 0 and old.cut_marks.total == 0 and old.frame == world.frame


def _json(data: object) -> str:
    import json
    return json.dumps(data, separators=(",", ":"))


def _forged(marks: np.ndarray, total: int | None = None) -> dict:
    return {"marks": marks, "total": len(marks) if total is None else total}


@pytest.mark.parametrize("change, parameter", [
    (lambda m: _forged(np.full((2, 7), np.nan)), "state['cut_marks']['marks']"),
    (lambda m: _forged(m[:, :6]), "state['cut_marks']['marks']"),
    (lambda m: _forged(m.astype(np.float32)), "state['cut_marks']['marks']"),
    (lambda m: _forged(np.repeat(m, 20, axis=0)[:65]), "state['cut_marks']['marks']"),  # more than it keeps
    (lambda m: _forged(m + [1e9, 0, 0, 0, 0, 0, 0]), "state['cut_marks']['marks']"),  # far off the world
    (lambda m: _forged(m * [1, 1, 1, 1, 1, 1, 0]), "state['cut_marks']['marks']"),  # radius 0
    (lambda m: _forged(m, total=1), "state['cut_marks']['total']"),  # fewer added than kept
    (lambda m: _forged(m, total=-3), "state['cut_marks']['total']"),
    (lambda m: "marks", "state['cut_marks']"),
])
def test_bad_marks_are_refused_and_change_nothing(cut, change, parameter):
    world, _ = cut
    twin = World(wall(), spawn=(3.0, 2.0, 3.0))
    state = world.state_dict()
    state["cut_marks"] = change(state["cut_marks"]["marks"])
    with pytest.raises(ParameterError) as error:
        twin.load_state_dict(state)
    assert error.value.parameter == parameter
    assert twin.frame == 0 and len(twin.cut_marks) == 0


def test_a_mark_that_covers_a_carve_takes_no_second():
    marks = CutMarks(3)
    assert marks.add(Capsule((0.0, 1.0, 0.0), (0.0, 2.0, 0.0), 0.3))
    assert not marks.add(Capsule((0.2, 1.0, 0.0), (0.0, 2.2, 0.0), 0.3))  # within MERGE_DISTANCE
    assert marks.add(Capsule((0.0, 1.0, 0.0), (0.0, 2.0, 0.0), 0.5))  # wider than the mark
    assert marks.add(Capsule((0.0, 1.0, 0.0), (0.0, 3.0, 0.0), 0.3))  # longer
    assert marks.wire() == [[0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.3], [0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.5],
                            [0.0, 1.0, 0.0, 0.0, 3.0, 0.0, 0.3]]
