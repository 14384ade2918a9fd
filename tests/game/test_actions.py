"""Punch, pull-out and suck (issue #6, section 2) on small walls built here."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.collision import TriangleBVH
from voxelworld.errors import ParameterError
from voxelworld.game.actions import (
    ActionResult,
    PunchSettings,
    VoxelObject,
    ball_object,
    pull_out,
    punch,
    touching_materials,
)
from voxelworld.game.suck import SuckSettings, SuckState, suck
from voxelworld.meshing import MeshOptions, collision_mesh_volume
from voxelworld.terrain import Box, Sphere, VoxelVolume

EYE = (2.5, 3.0, 3.0)
AIM = (1.0, 0.0, 0.0)


def wall(material="soil", shape=(16, 12, 12)) -> VoxelVolume:
    """A wall filling x >= 4 m (voxels of 0.5 m), facing a player standing at x = 2.5 m."""
    return VoxelVolume.from_sdf(lambda x, y, z: 4.0 - x, shape, material, voxel_size=0.5, chunk_size=8)


def bvh_of(volume: VoxelVolume) -> TriangleBVH:
    mesh = collision_mesh_volume(volume, MeshOptions(collision_levels=1))
    return TriangleBVH(mesh.positions, mesh.indices, mesh.tri_material)


def fields(volume):
    return volume.content_hash()


def density_fall_by_material(volume: VoxelVolume, before: dict) -> dict[int, int]:
    """Density units (x 255, split by the mix between the two material slots as they were ``before``) each
    material lost since ``before`` (the volume's fields then)."""
    fall = np.maximum(before["density"].astype(np.int64) - volume.density, 0)
    mix = before["mix"].astype(np.int64)
    lost: dict[int, int] = {}
    for slot, share in (("mat_a", 255 - mix), ("mat_b", mix)):
        amounts = np.bincount(before[slot].ravel(), weights=(fall * share).ravel(), minlength=256)
        for material in np.flatnonzero(amounts):
            lost[int(material)] = lost.get(int(material), 0) + int(amounts[material])
    return lost


# --------------------------------------------------------------------------------------------------- punch
def test_punch_removes_a_range_and_throws_fragments_of_the_material_that_fell_most():
    volume = wall("soil")
    volume.paint(Box((0, 3.0, 0), (8, 6, 6)), "sand")  # the upper half is sand, the lower soil
    before = volume.solid_volume()
    result = punch(volume, bvh_of(volume), (2.5, 2.4, 3.0), AIM, PunchSettings(radius=1.0, depth=0.3))
    assert result.hit and result.point[0] == pytest.approx(4.0, abs=0.05)
    assert result.volume_removed == pytest.approx(before - volume.solid_volume())
    assert result.volume_removed > 0.5
    # The range sits mostly below y = 3 m: soil fell most, and every fragment is soil.
    assert result.removed_by_material["soil"] > result.removed_by_material["sand"]
    assert result.most_removed_material == "soil"
    assert 2 <= len(result.fragments) <= 8
    assert {f.material for f in result.fragments} == {"soil"}
    # Fragments are placed around the hit and fly away from it; together they hold what was removed.
    point = np.array(result.point)
    for fragment in result.fragments:
        assert isinstance(fragment, VoxelObject)
        offset = np.array(fragment.position) - point
        assert np.linalg.norm(offset) < 1.5
        assert np.dot(offset, fragment.velocity) > 0
        assert np.linalg.norm(fragment.velocity) == pytest.approx(3.0)
        assert set(np.unique(fragment.volume.mat_a[fragment.volume.density > 0]).tolist()) == {2}
    assert sum(f.solid_volume() for f in result.fragments) == pytest.approx(result.volume_removed, rel=0.05)
    assert result.events[0].kind == "punch" and result.events[0].material == "soil"
    assert result.dirty_chunks


def test_a_rock_skin_over_sand_gives_rock_fragments_the_material_the_punch_met():
    volume = wall("sand")
    volume.paint(Box((3.0, 0, 0), (4.6, 6, 6)), "rock")  # a skin of two voxels of rock over the sand
    bvh = bvh_of(volume)
    result = punch(volume, bvh, EYE, AIM)
    # The rock only takes damage; the sand behind it gives way, so sand fell most ...
    assert result.removed_by_material.get("rock", 0.0) < result.removed_by_material["sand"]
    assert result.most_removed_material == "sand"
    # ... but the collision triangles the range touches are rock, so the fragments are rock.
    assert touching_materials(volume, bvh, Sphere(result.point, 1.0)) == ("rock",)
    assert result.fragments and {f.material for f in result.fragments} == {"rock"}
    assert result.events[0].material == "rock"


def test_fragment_voxels_are_centred_on_the_fragment_position():
    volume = wall("soil")
    result = punch(volume, bvh_of(volume), EYE, AIM)
    for fragment in result.fragments:
        part = fragment.volume
        weights = part.density.astype(float)
        local = part.index_to_world(np.argwhere(weights > 0))
        centre = (local * weights[weights > 0][:, None]).sum(axis=0) / weights.sum()
        assert np.allclose(centre, 0.0, atol=1e-9)


def test_punch_out_of_reach_or_into_iron_changes_nothing_but_damage():
    volume = wall("soil")
    bvh = bvh_of(volume)
    start = fields(volume)
    miss = punch(volume, bvh, (0.5, 3.0, 3.0), AIM, PunchSettings(reach=2.0))
    assert not miss.hit and miss.edits == () and miss.fragments == () and fields(volume) == start
    iron = wall("iron")
    hard = punch(iron, bvh_of(iron), EYE, AIM)
    assert hard.hit and hard.volume_removed == 0 and hard.fragments == () and hard.most_removed_material is None


def test_rock_gives_way_after_four_punches():
    volume = wall("rock")
    bvh = bvh_of(volume)
    removed = [punch(volume, bvh, EYE, AIM).volume_removed for _ in range(4)]
    assert removed[:3] == [0.0, 0.0, 0.0] and removed[3] > 0


# ------------------------------------------------------------------------------------------------ pull-out
def lava_over_rock() -> VoxelVolume:
    volume = wall("rock")
    volume.paint(Box((0, 3.0, 0), (8, 6, 6)), "lava")  # lava above y = 3 m, rock below
    return volume


def test_pull_out_takes_the_highest_priority_material_touching_the_range_lava_never_over_rock():
    volume = lava_over_rock()
    bvh = bvh_of(volume)
    result = pull_out(volume, bvh, (2.5, 3.1, 3.0), AIM, PunchSettings(radius=0.9))
    # Only lava gave way (rock needs four hits) and lava fell most, yet the held piece is rock.
    assert result.most_removed_material == "lava"
    assert result.held is not None and result.held.material == "rock"
    assert set(np.unique(result.held.volume.mat_a).tolist()) == {4}
    assert result.fragments == ()
    assert result.held.velocity == (0.0, 0.0, 0.0)
    assert result.held.solid_volume() == pytest.approx(result.volume_removed, rel=0.05)
    assert result.events[0].kind == "pull_out" and result.events[0].material == "rock"


def test_pull_out_of_plain_soil_holds_soil():
    volume = wall("soil")
    result = pull_out(volume, bvh_of(volume), EYE, AIM)
    assert result.held.material == "soil" and result.volume_removed > 0


# ---------------------------------------------------------------------------------------------------- suck
def soil_wall_with_grass_skin() -> VoxelVolume:
    volume = wall("soil", shape=(20, 12, 12))
    volume.paint(Box((3.9, 0, 0), (4.6, 6, 6)), "grass")  # a grass skin on the face
    return volume


def test_suck_scrapes_the_surface_exposes_the_interior_and_erases_floaters():
    volume = soil_wall_with_grass_skin()
    # A floating two-voxel speck of soil inside the judgment region, in the air 1 m above the aim line.
    volume.density[6, 8, 6:8] = 255
    volume.mat_a[6, 8, 6:8] = 2
    bvh = bvh_of(volume)
    state = SuckState()
    inside_before = volume.density[10:, 2:10, 2:10].copy()
    frame = suck(state, volume, bvh, (2.0, 3.0, 3.0), AIM, 1 / 60, True)
    result = frame.result
    assert result.hit and result.volume_removed > 0
    scraped, exposed, erased = result.edits
    assert scraped.volume_removed > 0 and exposed.volume_removed == 0
    # Surface only: deep voxels are untouched.
    assert np.array_equal(volume.density[10:, 2:10, 2:10], inside_before)
    # The material range (2.5 m) turned the grass skin around the hit into soil; grass outside it stays.
    assert volume.mat_a[8, 6, 6] == 2
    assert volume.mat_a[8, 6, 0] == 1
    assert exposed.added_by_material.get("soil", 0) > 0
    # The speck is gone, counted as erased.
    assert erased.fragments_erased >= 1 and volume.density[6, 8, 6] < volume.iso
    assert {e.kind for e in result.events} >= {"suck", "fragments_erased"}
    assert frame.state.holding and frame.state.updates == 1 and frame.state.gauge < 1.0


def test_suck_peels_layer_by_layer_without_hollowing():
    volume = wall("soil", shape=(20, 12, 12))
    bvh = bvh_of(volume)
    state = SuckState()
    for _ in range(6):
        state = suck(state, volume, bvh, (2.0, 3.0, 3.0), AIM, 1 / 60, True).state
    # Two voxels behind the surface the wall is still full: each frame peels only exposed voxels.
    assert volume.density[11, 6, 6] == 255
    assert volume.density[8, 6, 6] < 255


def test_every_fifth_density_update_gives_a_bullet_of_the_frames_most_removed_material():
    volume = wall("soil", shape=(20, 12, 12))
    volume.paint(Box((3.9, 0, 0), (4.2, 6, 6)), "sand")  # a sand skin, one voxel thick, on soil
    bvh = bvh_of(volume)
    state = SuckState()
    counts, most = [], []
    settings = SuckSettings(radius=0.6, step=16, material_radius=0.6)  # neither sand nor soil has an interior
    for _ in range(15):
        before = {name: getattr(volume, name).copy() for name in ("density", "mat_a", "mat_b", "mix")}
        frame = suck(state, volume, bvh, (2.0, 3.0, 3.0), AIM, 1 / 60, True, settings)
        assert frame.result.edits[2].volume_removed == 0.0  # nothing erased: all density lost was scraped
        state = frame.state
        counts.append(state.bullet_count)
        # The material whose density fell most in the frame, read off the voxels (the lowest id on a tie).
        fall = sorted(density_fall_by_material(volume, before).items())
        most.append(volume.materials.name_by_id[max(fall, key=lambda item: item[1])[0]])
    # Every frame lowered density (so each was an update): a bullet every fifth frame.
    assert counts == [0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3]
    assert state.bullets == (most[4], most[9], most[14])
    assert state.bullets[0] == "sand" and "soil" in state.bullets  # the skin first, then what lies under it
    # Releasing ends suck: the update count resets (bullets stay by default) and a suck_end event is emitted.
    for _ in range(2):
        state = suck(state, volume, bvh, (2.0, 3.0, 3.0), AIM, 1 / 60, True, settings).state
    assert state.updates == 2
    released = suck(state, volume, bvh, (2.0, 3.0, 3.0), AIM, 1 / 60, False, settings)
    assert released.state.updates == 0 and released.state.bullet_count == 3
    assert [e.kind for e in released.result.events] == ["suck_end"]
    dropped = suck(state, volume, bvh, (2.0, 3.0, 3.0), AIM, 1 / 60, False,
                   SuckSettings(bullets_reset_on_release=True))
    assert dropped.state.bullet_count == 0


def test_frames_that_remove_nothing_are_not_updates():
    volume = wall("iron", shape=(20, 12, 12))
    bvh = bvh_of(volume)
    state = SuckState()
    for _ in range(7):
        state = suck(state, volume, bvh, (2.0, 3.0, 3.0), AIM, 1 / 60, True).state
    assert state.updates == 0 and state.bullet_count == 0


def test_moving_the_aim_moves_the_range():
    volume = wall("soil", shape=(20, 12, 12))
    bvh = bvh_of(volume)
    low = suck(SuckState(), volume, bvh, (2.0, 2.0, 3.0), AIM, 1 / 60, True)
    high = suck(low.state, volume, bvh, (2.0, 2.0, 3.0), (1.0, 0.5, 0.0), 1 / 60, True)
    assert high.result.point[1] > low.result.point[1] + 0.5
    assert volume.density[8, 4, 6] < 255 and volume.density[8, 6, 6] < 255  # near y = 2 m and y = 3 m


def test_suck_time_limit_gauge_and_recharge():
    volume = wall("soil", shape=(20, 12, 12))
    bvh = bvh_of(volume)
    settings = SuckSettings(time_limit=0.5, recharge_time=1.0)
    state = SuckState()
    kinds = []
    for _ in range(5):  # 0.5 s at 0.1 s a frame
        frame = suck(state, volume, bvh, (2.0, 3.0, 3.0), AIM, 0.1, True, settings)
        state = frame.state
        kinds += [e.kind for e in frame.result.events]
    assert state.gauge == pytest.approx(0.0) and state.exhausted and state.updates == 0
    assert "suck_exhausted" in kinds
    start = fields(volume)
    still = suck(state, volume, bvh, (2.0, 3.0, 3.0), AIM, 0.1, True, settings)
    assert not still.result.hit and fields(volume) == start and still.state.gauge == 0.0
    released = suck(still.state, volume, bvh, (2.0, 3.0, 3.0), AIM, 0.5, False, settings)
    assert released.state.gauge == pytest.approx(0.5) and not released.state.exhausted
    again = suck(released.state, volume, bvh, (2.0, 3.0, 3.0), AIM, 0.1, True, settings)
    assert again.result.volume_removed > 0 and again.state.gauge == pytest.approx(0.3)


# ------------------------------------------------------------------------------------- bad input, determinism
@pytest.mark.parametrize("call", [
    lambda v, b: punch(v, b, (np.nan, 0, 0), AIM),
    lambda v, b: punch(v, b, EYE, (0, 0, 0)),
    lambda v, b: punch(v, "bvh", EYE, AIM),
    lambda v, b: punch("volume", b, EYE, AIM),
    lambda v, b: punch(v, b, EYE, AIM, SuckSettings()),
    lambda v, b: pull_out(v, b, EYE, (1, 2)),
    lambda v, b: suck(SuckState(), v, b, EYE, AIM, -1.0, True),
    lambda v, b: suck(SuckState(), v, b, EYE, AIM, 0.1, "yes"),
    lambda v, b: suck(None, v, b, EYE, AIM, 0.1, True),
    lambda v, b: suck(SuckState(), v, b, EYE, AIM, 0.1, True, PunchSettings()),
])
def test_bad_input_raises_parameter_error_and_changes_nothing(call):
    volume = wall("soil")
    bvh = bvh_of(volume)
    start = fields(volume)
    with pytest.raises(ParameterError):
        call(volume, bvh)
    assert fields(volume) == start


@pytest.mark.parametrize("make", [
    lambda: PunchSettings(radius=0.0), lambda: PunchSettings(tool="fist"), lambda: PunchSettings(reach=np.inf),
    lambda: SuckSettings(step=0), lambda: SuckSettings(material_radius=0.1), lambda: SuckSettings(time_limit=0),
    lambda: SuckSettings(updates_per_bullet=0), lambda: SuckSettings(bullets_reset_on_release=1),
])
def test_settings_are_validated(make):
    with pytest.raises(ParameterError):
        make()


def test_actions_are_deterministic():
    def run():
        volume = soil_wall_with_grass_skin()
        bvh = bvh_of(volume)
        results = [punch(volume, bvh, EYE, AIM), pull_out(volume, bvh, (2.5, 4.0, 3.0), AIM)]
        state = SuckState()
        for k in range(8):
            frame = suck(state, volume, bvh, (2.0, 2.0 + 0.1 * k, 4.0), AIM, 1 / 60, True)
            state = frame.state
            results.append(frame.result)
        summary = [(r.volume_removed, r.most_removed_material, r.events,
                    [(f.position, f.velocity, f.volume.content_hash()) for f in r.fragments]) for r in results]
        return volume.content_hash(), state, summary

    assert run() == run()


def test_actions_without_a_mesh_do_nothing():
    volume = wall("soil")
    start = fields(volume)
    assert punch(volume, None, EYE, AIM) == ActionResult(False, None, None, AIM)
    assert suck(SuckState(), volume, None, EYE, AIM, 0.1, True).result.edits == ()
    assert fields(volume) == start


def test_ball_object_is_a_ball_of_its_material():
    template = wall("soil")
    ball = ball_object(template, "rock", 1.0, (1.0, 2.0, 3.0))
    assert ball.material == "rock" and ball.position == (1.0, 2.0, 3.0)
    assert ball.solid_volume() == pytest.approx(4 / 3 * np.pi, rel=0.35)
    assert Sphere((0, 0, 0), 1.0).sdf(ball.volume.index_to_world(np.argwhere(ball.volume.density >= 128))).max() \
        <= 0.01
