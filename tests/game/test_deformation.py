"""Events on deformation (issue #6, section 3): treasure placement and per-group awards."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.actions import PunchSettings, ball_object, punch
from voxelworld.game.deformation import (
    AwardSettings,
    DeformationState,
    TreasureSettings,
    achievements,
    record_action,
    record_impact,
    record_removal,
    treasure_spot,
)
from voxelworld.game.throwing import Contact, impact
from voxelworld.terrain import Tool, VoxelVolume

from .test_actions import bvh_of, wall

EYE = (2.0, 3.0, 3.0)
AIM = (1.0, 0.0, 0.0)
SPOT = (4.0, 3.0, 3.0)


def record(state, volume, amount, eye=EYE, aim=AIM, point=SPOT, groups=None, **settings):
    return record_removal(state, volume, eye, aim, point, amount, groups or {"soil": amount}, **settings)


def buried(volume, position) -> bool:
    i, j, k = np.round(volume.world_to_index(position)).astype(int)
    return bool(volume.density[i - 1:i + 2, j - 1:j + 2, k - 1:k + 2].min() >= volume.iso)


# ------------------------------------------------------------------------------------------------- treasure
def test_treasure_is_buried_in_solid_behind_the_spot_within_the_distance_and_the_counter_resets():
    volume = wall("soil", shape=(20, 12, 12))
    settings = TreasureSettings(threshold=3.0, distance=3.0, min_depth=1.0)
    state = DeformationState()
    first = record(state, volume, 2.0, eye=(2.0, 2.0, 2.5), treasure=settings)
    assert first.treasure is None and first.state.since_treasure == 2.0
    second = record(first.state, volume, 1.5, eye=(2.0, 2.0, 2.5), treasure=settings)
    treasure = second.treasure
    assert treasure is not None and treasure.item == "treasure"
    assert second.state.since_treasure == 0.0 and second.state.treasures == (treasure,)
    position, spot, eye = np.array(treasure.position), np.array(SPOT), np.array((2.0, 2.0, 2.5))
    assert buried(volume, position)
    sight = (spot - eye) / np.linalg.norm(spot - eye)
    behind = position - spot
    assert np.dot(behind, sight) > 0.0  # behind the spot as seen from the player
    assert np.linalg.norm(np.cross(behind, sight)) < volume.voxel_size  # on the line of sight (to a voxel)
    assert 1.0 - volume.voxel_size <= np.linalg.norm(behind) <= 3.0 + volume.voxel_size
    assert [e.kind for e in second.events if e.kind == "treasure"] == ["treasure"]
    # The next treasure needs the full threshold again.
    third = record(second.state, volume, 2.9, treasure=settings)
    assert third.treasure is None and third.state.since_treasure == pytest.approx(2.9)


def test_no_treasure_when_the_action_pointed_vertically_and_the_counter_keeps_counting():
    floor = VoxelVolume.from_sdf(lambda x, y, z: y - 3.0, (12, 12, 12), "soil", voxel_size=0.5)
    settings = TreasureSettings(threshold=1.0)
    down = record(DeformationState(), floor, 2.0, eye=(3.0, 5.0, 3.0), aim=(0.1, -1.0, 0.0),
                  point=(3.1, 3.0, 3.0), treasure=settings)
    assert down.treasure is None and down.state.since_treasure == 2.0
    assert "treasure" not in [e.kind for e in down.events]
    # A slanted dig into the same floor (45 degrees, outside the 30-degree vertical cone) places it.
    slant = record(down.state, floor, 0.1, eye=(1.0, 5.0, 3.0), aim=(1.0, -1.0, 0.0), point=(3.0, 3.0, 3.0),
                   treasure=settings)
    assert slant.treasure is not None and buried(floor, slant.treasure.position)
    assert slant.treasure.position[1] < 3.0 and slant.treasure.position[0] > 3.0
    assert slant.state.since_treasure == 0.0


def test_no_treasure_without_a_buried_spot_within_the_distance():
    thin = VoxelVolume.from_sdf(lambda x, y, z: np.abs(x - 4.5) - 0.3, (20, 12, 12), "soil", voxel_size=0.5)
    update = record(DeformationState(), thin, 9.0, treasure=TreasureSettings(threshold=1.0))
    assert update.treasure is None and update.state.since_treasure == 9.0
    assert treasure_spot(thin, EYE, SPOT) is None
    near = TreasureSettings(distance=0.4, min_depth=0.0)
    assert treasure_spot(wall("soil", shape=(20, 12, 12)), EYE, SPOT, near) is None  # surface voxels are not buried
    assert treasure_spot(wall("soil", shape=(20, 12, 12)), EYE, SPOT, TreasureSettings(distance=1.0)) \
        == ((4.5, 3.0, 3.0), 0.5)


def test_treasure_from_real_punches():
    volume = wall("soil", shape=(24, 12, 12))
    state = DeformationState()
    settings = TreasureSettings(threshold=2.0)
    found, removed = [], 0.0
    for _ in range(6):
        # The world refreshes the collision mesh after every edit; here the whole of it is rebuilt.
        result = punch(volume, bvh_of(volume), (3.2, 3.0, 3.0), AIM, PunchSettings(reach=4.0, tool=Tool()))
        removed += result.volume_removed
        update = record_action(state, volume, (3.2, 3.0, 3.0), result, treasure=settings)
        state = update.state
        if update.treasure:
            found.append(update.treasure)
            assert buried(volume, update.treasure.position)
            assert update.treasure.position[0] > result.point[0]
    assert found and state.since_treasure < 2.0
    assert achievements(state) == {"soil": pytest.approx(removed)}


def test_a_miss_records_nothing():
    volume = wall("soil")
    miss = punch(volume, bvh_of(volume), (0.0, 3.0, 3.0), AIM, PunchSettings(reach=1.0))
    update = record_action(DeformationState(), volume, (0.0, 3.0, 3.0), miss)
    assert update.state == DeformationState() and update.events == ()


def test_a_thrown_objects_impact_records_the_density_it_removed_and_nothing_else():
    volume = wall("rock", shape=(24, 12, 12))
    contact = Contact((4.0, 3.0, 3.0), (-1.0, 0.0, 0.0), "rock")
    blast = impact(volume, ball_object(volume, "lava", 0.3, (3.6, 3.0, 3.0)), contact)
    assert blast.rule == "explode" and blast.edit.volume_removed > 0
    update = record_impact(DeformationState(), volume, (1.0, 3.0, 3.0), blast)
    assert achievements(update.state) == pytest.approx(blast.edit.removed_by_group)
    assert update.state.since_treasure == pytest.approx(blast.edit.volume_removed)
    mound = impact(volume, ball_object(volume, "soil", 0.3, (3.6, 3.0, 3.0)), contact)
    assert mound.rule == "attach" and mound.edit.volume_added > 0
    assert record_impact(update.state, volume, (1.0, 3.0, 3.0), mound).state == update.state


# ---------------------------------------------------------------------------------------------------- awards
def test_group_totals_grant_items_at_their_thresholds_once():
    volume = wall("soil")
    awards = AwardSettings(thresholds=(1.0, 5.0), group_thresholds=(("rock", (0.5,)),))
    state = DeformationState()
    update = record(state, volume, 0.9, groups={"soil": 0.6, "rock": 0.3}, awards=awards)
    assert update.awards == () and achievements(update.state) == {"rock": 0.3, "soil": 0.6}
    update = record(update.state, volume, 0.6, groups={"soil": 0.4, "rock": 0.2}, awards=awards)
    assert [(a.group, a.rank, a.threshold, a.item) for a in update.awards] == [
        ("rock", 1, 0.5, "rock award 1"), ("soil", 1, 1.0, "soil award 1")]
    assert [e.item for e in update.events if e.kind == "award"] == ["rock award 1", "soil award 1"]
    update = record(update.state, volume, 9.0, groups={"rock": 9.0}, awards=awards)
    assert update.awards == ()  # rock has one threshold and has passed it
    update = record(update.state, volume, 20.0, groups={"soil": 20.0}, awards=awards)
    assert [a.item for a in update.awards] == ["soil award 2"]
    assert achievements(update.state) == pytest.approx({"rock": 9.5, "soil": 21.0})
    assert dict(update.state.awarded) == {"rock": 1, "soil": 2}


def test_crossing_several_thresholds_at_once_grants_each():
    update = record(DeformationState(), wall("soil"), 30.0, groups={"wood": 30.0},
                    awards=AwardSettings(item="{rank}. {group} medal"))
    assert [a.item for a in update.awards] == ["1. wood medal", "2. wood medal", "3. wood medal"]


# --------------------------------------------------------------------------------------- bad input, determinism
@pytest.mark.parametrize("call", [
    lambda v, s: record_removal(s, v, EYE, (0, 0, 0), SPOT, 1.0, {}),
    lambda v, s: record_removal(s, v, EYE, AIM, SPOT, -1.0, {}),
    lambda v, s: record_removal(s, v, EYE, AIM, SPOT, 1.0, {"soil": np.inf}),
    lambda v, s: record_removal(s, v, EYE, AIM, SPOT, 1.0, [("soil", 1.0)]),
    lambda v, s: record_removal("state", v, EYE, AIM, SPOT, 1.0, {}),
    lambda v, s: record_removal(s, "volume", EYE, AIM, SPOT, 1.0, {}),
    lambda v, s: record_removal(s, v, EYE, AIM, SPOT, 1.0, {}, treasure=AwardSettings()),
    lambda v, s: record_action(s, v, EYE, "result"),
    lambda v, s: record_impact(s, v, EYE, "result"),
    lambda v, s: treasure_spot(v, SPOT, SPOT),
])
def test_bad_input_raises_parameter_error(call):
    volume = wall("soil")
    state = record(DeformationState(), volume, 1.0).state
    start = volume.content_hash()
    with pytest.raises(ParameterError):
        call(volume, state)
    assert volume.content_hash() == start


@pytest.mark.parametrize("make", [
    lambda: TreasureSettings(threshold=0), lambda: TreasureSettings(distance=0.2, min_depth=0.5),
    lambda: TreasureSettings(vertical_degrees=120), lambda: TreasureSettings(item=""),
    lambda: AwardSettings(thresholds=(5.0, 1.0)), lambda: AwardSettings(thresholds=[1.0]),
    lambda: AwardSettings(group_thresholds=(("rock", (0.0,)),)), lambda: AwardSettings(item="{level}"),
])
def test_settings_are_validated(make):
    with pytest.raises(ParameterError):
        make()


def test_deformation_events_are_deterministic():
    def run():
        volume = wall("soil", shape=(20, 12, 12))
        state, log = DeformationState(), []
        for k in range(12):
            update = record(state, volume, 0.7, eye=(2.0, 2.0 + 0.2 * k, 3.0), groups={"soil": 0.5, "rock": 0.2},
                            treasure=TreasureSettings(threshold=2.0))
            state = update.state
            log.append(update.events)
        return state, log

    assert run() == run()
