"""Looping full-body clips authored in code (issue #15, Motion part 2): the chainsaw swing, sawing in material,
the shovel dig and the rowing stroke, played on CesiumMan (Z-up skin space, facing +x).

What is measured: the loop closes (first and last samples equal, no frame's wrist move far above the median
when played looping), the downswing's constant angular speed, that the hips and chest really move, where the
wrist goes, bone lengths, planted feet, determinism, and argument checks.
"""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.motion import quaternions as quat
from voxelworld.motion.gltf import load_gltf
from voxelworld.motion.swing import chainsaw_swing_clip, cutting_clip, dig_clip, row_clip, swing_clip

from ..assets import CESIUM_MAN

CHAIN = ["Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"]
SHOULDER, ELBOW, WRIST = 6, 8, 10
HIPS, CHEST = "Skeleton_torso_joint_1", "torso_joint_3"
LEGS = [("leg_joint_L_1", "leg_joint_L_2", "leg_joint_L_3"), ("leg_joint_R_1", "leg_joint_R_2", "leg_joint_R_3")]
ANKLES, KNEES = [15, 16], [13, 14]
FORWARD, UP = (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)
FPS = 60


@pytest.fixture(scope="module")
def man():
    return load_gltf(CESIUM_MAN).skeleton


def build(kind: str, skeleton, **kw):
    if kind == "swing":
        return chainsaw_swing_clip(skeleton, CHAIN, HIPS, CHEST, FORWARD, UP, **kw)
    if kind == "cutting":
        return cutting_clip(skeleton, CHAIN, CHEST, FORWARD, UP, **kw)
    if kind == "dig":
        return dig_clip(skeleton, CHAIN, HIPS, CHEST, FORWARD, UP, **kw)
    return row_clip(skeleton, CHAIN, HIPS, CHEST, FORWARD, UP, **kw)


KINDS = ["swing", "cutting", "dig", "row"]


def played(skeleton, clip, loops: float = 2.0):
    """World transforms (f, n, 4, 4) at 60 fps over ``loops`` cycles, played looping."""
    times = np.arange(0.0, loops * clip.duration, 1.0 / FPS)
    return times, skeleton.world_transforms(clip.sample_frames(skeleton, times, loop=True))


def world_rotation(transforms: np.ndarray, joint: int) -> np.ndarray:
    return quat.from_matrix(transforms[..., joint, :3, :3])


# ------------------------------------------------------------------------------------------------- the loop
@pytest.mark.parametrize("kind", KINDS)
def test_first_and_last_samples_are_equal(man, kind):
    clip = build(kind, man)
    start, end = clip.sample(man, 0.0), clip.sample(man, clip.duration)
    for field in ("translation", "rotation", "scale"):
        np.testing.assert_allclose(getattr(end, field), getattr(start, field), rtol=0, atol=1e-12)
    for channels in clip.channels.values():
        for channel in channels.values():
            assert np.array_equal(channel.values[0], channel.values[-1])


@pytest.mark.parametrize("kind, limit", [("swing", 2.5), ("cutting", 2.5), ("dig", 2.5), ("row", 2.5)])
def test_looping_wrist_never_jumps(man, kind, limit):
    """Two loops at 60 fps: no frame's wrist move is more than ``limit`` times the median frame's move (the old
    one-way swing snapped back ~1.1 m in a frame), nor is the move across the loop's seam."""
    clip = build(kind, man)
    times, world = played(man, clip)
    moves = np.linalg.norm(np.diff(world[:, WRIST, :3, 3], axis=0), axis=1)
    assert moves.max() <= limit * np.median(moves), (moves.max(), np.median(moves))
    seam = int(round(clip.duration * FPS))
    assert moves[seam - 2:seam + 2].max() <= limit * np.median(moves)


def test_old_one_way_swing_does_jump_when_looped(man):
    """The yardstick of the test above: swing_clip (kept as it is) fails it."""
    clip = swing_clip(man, CHAIN, FORWARD, UP, from_degrees=60, to_degrees=-60)
    _, world = played(man, clip)
    moves = np.linalg.norm(np.diff(world[:, WRIST, :3, 3], axis=0), axis=1)
    assert moves.max() > 5 * np.median(moves)


# ------------------------------------------------------------------------------------------- the chainsaw swing
def arm_directions(world: np.ndarray) -> np.ndarray:
    upper = world[:, ELBOW, :3, 3] - world[:, SHOULDER, :3, 3]
    return upper / np.linalg.norm(upper, axis=1, keepdims=True)


def elevation(direction: np.ndarray) -> np.ndarray:
    return np.degrees(np.arctan2(direction[..., 2], direction[..., 0]))


def test_downswing_turns_the_arm_at_a_constant_angular_speed(man):
    clip = build("swing", man)
    downswing = 0.6 * clip.duration
    times = np.arange(0.0, downswing + 1e-9, 1.0 / FPS)
    direction = arm_directions(man.world_transforms(clip.sample_frames(man, times)))
    speed = np.degrees(np.arccos(np.clip(np.sum(direction[1:] * direction[:-1], axis=1), -1, 1))) * FPS
    assert speed.max() / speed.min() < 1.15, (speed.min(), speed.max())
    np.testing.assert_allclose(np.median(speed), 120.0 / downswing, rtol=0.05)  # 60 to -60 degrees
    np.testing.assert_allclose(elevation(direction[[0, -1]]), [60.0, -60.0], atol=0.5)


def test_swing_keeps_the_arm_in_its_plane_and_bends_the_forearm(man):
    world = man.world_transforms(build("swing", man).sample(man, 0.9))
    forearm = world[WRIST, :3, 3] - world[ELBOW, :3, 3]
    upper = world[ELBOW, :3, 3] - world[SHOULDER, :3, 3]
    bend = elevation(upper) - elevation(forearm)
    assert bend == pytest.approx(25.0, abs=0.5)


def test_swing_moves_the_wrist_from_high_to_low_and_forward(man):
    clip = build("swing", man)
    rest = man.world_positions()
    top, bottom = (man.world_positions(clip.sample(man, t))[WRIST] for t in (0.0, 0.6 * clip.duration))
    shoulder_z = rest[SHOULDER, 2]
    assert top[2] > shoulder_z + 0.25  # raised high
    assert bottom[2] < shoulder_z - 0.3  # swung down
    assert bottom[0] > rest[SHOULDER, 0] + 0.15  # in front of the body


def test_swing_moves_hips_and_chest(man):
    """The hips turn >= 10 degrees and dip a few cm, the chest turns >= 15 degrees between wind-up and the
    bottom, so a slowed hips clock shows in measured motion."""
    clip = build("swing", man)
    world = man.world_transforms(clip.sample_frames(man, [0.0, 0.6 * clip.duration]))
    hips, chest = man.index(HIPS), man.index(CHEST)
    assert quat.angle_degrees(world_rotation(world[0], hips), world_rotation(world[1], hips)) >= 10.0
    assert quat.angle_degrees(world_rotation(world[0], chest), world_rotation(world[1], chest)) >= 15.0
    dip = world[0, hips, :3, 3] - world[1, hips, :3, 3]
    assert 0.02 <= dip[2] <= 0.1
    still = chainsaw_swing_clip(man, CHAIN, HIPS, CHEST, FORWARD, UP, body=0.0)
    world = man.world_transforms(still.sample_frames(man, [0.0, 0.9]))
    assert quat.angle_degrees(world_rotation(world[0], chest), world_rotation(world[1], chest)) < 1e-6


# ---------------------------------------------------------------------------------- cutting, digging, rowing
def test_cutting_holds_the_arm_forward_down_and_saws_a_few_centimetres(man):
    clip = build("cutting", man)
    times, world = played(man, clip, loops=1.0)
    direction = arm_directions(world)
    assert elevation(direction[0]) == pytest.approx(-20.0, abs=0.5)
    wrist = world[:, WRIST, :3, 3]
    travel = np.linalg.norm(wrist - wrist[0], axis=1).max()
    assert travel == pytest.approx(0.05, abs=0.005)
    chest_rest = quat.from_matrix(man.world_transforms()[man.index(CHEST), :3, :3])
    lean = quat.angle_degrees(chest_rest, world_rotation(world, man.index(CHEST)))
    assert np.all((lean > 7.0) & (lean < 10.0))  # braced forward


def test_dig_drives_the_wrist_below_knee_height_in_front(man):
    clip = build("dig", man)
    _, world = played(man, clip, loops=1.0)
    rest = man.world_positions()
    wrist = world[:, WRIST, :3, 3]
    low = int(np.argmin(wrist[:, 2]))
    assert wrist[low, 2] < rest[KNEES, 2].min()
    assert wrist[low, 0] - rest[ANKLES, 0].max() > 0.3  # in front of the feet
    hips = world[:, man.index(HIPS), :3, 3]
    assert rest[0, 2] - hips[:, 2].min() > 0.1  # the hips dip


def test_row_drive_pulls_the_wrist_back_along_forward(man):
    clip = build("row", man)
    times = np.arange(0.0, 0.4 * clip.duration + 1e-9, 1.0 / FPS)
    world = man.world_transforms(clip.sample_frames(man, times))
    wrist = world[:, WRIST, :3, 3]
    assert wrist[0, 0] - wrist[-1, 0] >= 0.4
    assert np.all(np.diff(wrist[:, 0]) <= 1e-9)  # back all the drive long
    rest = man.world_positions()
    assert np.all((wrist[:, 2] > rest[man.index(HIPS), 2]) & (wrist[:, 2] < rest[man.index(CHEST), 2]))
    chest = man.index(CHEST)  # the chest's rest up direction, as the chest is turned now:
    up_axis = world[:, chest, :3, :3] @ np.linalg.inv(man.world_transforms()[chest, :3, :3]) @ np.array(UP)
    assert up_axis[0, 0] > 0.3 and up_axis[-1, 0] < -0.2  # leaning forward at the catch, back at the finish


# ------------------------------------------------------------------------------------------ shared properties
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("legs", [(), LEGS])
def test_bone_lengths_are_kept(man, kind, legs):
    """Only rotations and the root's translation are keyed: every bone keeps its rest length."""
    clip = build(kind, man) if kind == "cutting" else build(kind, man, legs=legs)
    _, world = played(man, clip, loops=1.0)
    positions = world[..., :3, 3]
    parents = man.parents
    lengths = np.linalg.norm(positions[:, 1:] - positions[:, parents[1:]], axis=-1)
    np.testing.assert_allclose(lengths, np.broadcast_to(man.bone_lengths()[1:], lengths.shape), rtol=0, atol=1e-9)
    keyed_translation = [joint for joint, channels in clip.channels.items() if "translation" in channels]
    assert keyed_translation == ([] if kind == "cutting" else [HIPS])


@pytest.mark.parametrize("kind", ["swing", "dig", "row"])
def test_planted_legs_keep_the_ankles_in_place(man, kind):
    rest = man.world_positions()
    _, loose = played(man, build(kind, man), loops=1.0)
    _, planted = played(man, build(kind, man, legs=LEGS), loops=1.0)
    assert np.abs(planted[:, ANKLES][..., :3, 3] - rest[ANKLES]).max() < 2e-3
    assert np.abs(loose[:, ANKLES][..., :3, 3] - rest[ANKLES]).max() > 0.02  # the hips' motion reaches the feet
    for ankle in ANKLES:  # the feet keep their rest rotation too (exactly at keys, slerp between)
        ankle_rest = quat.from_matrix(man.world_transforms()[ankle, :3, :3])
        assert quat.angle_degrees(ankle_rest, world_rotation(planted, ankle)).max() < 0.1


@pytest.mark.parametrize("kind", KINDS)
def test_deterministic(man, kind):
    one, two = build(kind, man), build(kind, man)
    assert one.to_json() == two.to_json()


@pytest.mark.parametrize("kind", ["swing", "dig", "row"])
def test_keyed_joints(man, kind):
    clip = build(kind, man)
    hand = (CHAIN[2],) if kind in ("swing", "row") else ()  # the swing flexes the hand, the row holds it
    assert clip.joint_names == (HIPS, "Skeleton_torso_joint_2", CHEST, CHAIN[0], CHAIN[1]) + hand
    assert set(build(kind, man, legs=LEGS).joint_names) - set(clip.joint_names) == {j for leg in LEGS for j in leg}


# ------------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("parameter, value", [("duration", 0.0), ("duration", -1.0), ("duration", float("nan")),
                                              ("keys", 1), ("keys", 2.5), ("name", None)])
def test_bad_numbers_name_the_parameter(man, kind, parameter, value):
    if parameter == "name":
        with pytest.raises(ParameterError) as error:
            build(kind, man, name=value)
    else:
        with pytest.raises(ParameterError) as error:
            build(kind, man, **{parameter: value})
    assert error.value.parameter == parameter


@pytest.mark.parametrize("call, parameter", [
    (lambda m: chainsaw_swing_clip(m, CHAIN[:2], HIPS, CHEST, FORWARD, UP), "chain"),
    (lambda m: chainsaw_swing_clip(m, ["nope", CHAIN[1], CHAIN[2]], HIPS, CHEST, FORWARD, UP), "chain"),
    (lambda m: chainsaw_swing_clip(m, [CHAIN[0], CHAIN[2], CHAIN[1]], HIPS, CHEST, FORWARD, UP), "chain"),
    (lambda m: chainsaw_swing_clip(m, CHAIN, "nope", CHEST, FORWARD, UP), "hips"),
    (lambda m: chainsaw_swing_clip(m, CHAIN, CHEST, HIPS, FORWARD, UP), "hips"),
    (lambda m: chainsaw_swing_clip(m, CHAIN, HIPS, "leg_joint_L_1", FORWARD, UP), "chest"),
    (lambda m: chainsaw_swing_clip(m, CHAIN, HIPS, CHEST, (0, 0, 0), UP), "forward"),
    (lambda m: chainsaw_swing_clip(m, CHAIN, HIPS, CHEST, FORWARD, FORWARD), "up"),
    (lambda m: chainsaw_swing_clip(m, CHAIN, HIPS, CHEST, FORWARD, UP, downswing=1.0), "downswing"),
    (lambda m: chainsaw_swing_clip(m, CHAIN, HIPS, CHEST, FORWARD, UP, body=-1.0), "body"),
    (lambda m: chainsaw_swing_clip(m, CHAIN, HIPS, CHEST, FORWARD, UP, from_degrees=float("inf")), "from_degrees"),
    (lambda m: chainsaw_swing_clip(m, CHAIN, HIPS, CHEST, FORWARD, UP, legs=[LEGS[0][:2]]), "legs"),
    (lambda m: chainsaw_swing_clip(m, CHAIN, HIPS, CHEST, FORWARD, UP, legs=[CHAIN]), "legs"),
    (lambda m: chainsaw_swing_clip(m, CHAIN, HIPS, CHEST, FORWARD, UP, legs="leg_joint_L_1"), "legs"),
    (lambda m: chainsaw_swing_clip("man", CHAIN, HIPS, CHEST, FORWARD, UP), "skeleton"),
    (lambda m: cutting_clip(m, CHAIN, CHEST, FORWARD, UP, stroke=0.5), "stroke"),
    (lambda m: cutting_clip(m, CHAIN, CHEST, FORWARD, UP, stroke=-0.01), "stroke"),
    (lambda m: cutting_clip(m, CHAIN, "leg_joint_L_1", FORWARD, UP), "chest"),
    (lambda m: dig_clip(m, CHAIN, HIPS, CHEST, FORWARD, UP, depth=0.0), "depth"),
    (lambda m: row_clip(m, CHAIN, HIPS, CHEST, FORWARD, UP, drive=0.0), "drive"),
])
def test_bad_joints_and_shapes_name_the_parameter(man, call, parameter):
    with pytest.raises(ParameterError) as error:
        call(man)
    assert error.value.parameter == parameter
