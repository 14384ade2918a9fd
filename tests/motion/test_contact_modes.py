"""Issue 32's two points on the contact motion, measured as motion (``voxelworld.motion.measure``): the design's
Fig. 6 mode (the part held back while the arm goes on, ``ContactMotion(hold_part=True)``) and the shake that
never reads as speed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from voxelworld.motion._kernels import frame as _frame
from voxelworld.motion.contact_motion import ContactMotion
from voxelworld.motion.gltf import load_gltf
from voxelworld.motion.measure import joint_motion, motion_ratios
from voxelworld.motion.part_contacts import Contact, SlowdownProfile
from voxelworld.motion.swing import chainsaw_swing_clip, forearm_part

from ..assets import CESIUM_MAN

CHAIN = ["Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"]
ROOT, CHEST = "Skeleton_torso_joint_1", "torso_joint_3"
LEGS = [("leg_joint_L_1", "leg_joint_L_2", "leg_joint_L_3"), ("leg_joint_R_1", "leg_joint_R_2", "leg_joint_R_3")]
DT = 1 / 60
FORWARD, UP = (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)
# Fig. 6's arm: the body and the arm above the hand at the first action's speed (rate 1, the elbow 0.99 and up), a
# soft touch (hardness 0) that holds the wrist at half speed, then iron that stops it (min_rate 0.003).
FIG6 = SlowdownProfile(root_rate=1.0, shoulder_share=1.0, elbow_share=0.99, vibration_degrees=0.0)
SOFT = Contact((0.7, 0.0, 1.0), (-1.0, 0.0, 0.0), "sand", 0.0, area=0.0)
IRON = Contact((0.7, 0.0, 1.0), (-1.0, 0.0, 0.0), "iron", 10.0, area=0.0)
HALF, NONE = range(20, 28), range(28, 36)  # frames of the downswing (counted from 0)


@pytest.fixture(scope="module")
def man():
    skeleton = load_gltf(CESIUM_MAN).skeleton
    return skeleton, chainsaw_swing_clip(skeleton, CHAIN, ROOT, CHEST, FORWARD, UP, legs=LEGS)


def motion(man, **kw) -> ContactMotion:
    skeleton, clip = man
    part = forearm_part(skeleton, CHAIN, 0.05, 0.75, 0.03, blade_side=(0, 1, 0))
    return ContactMotion(skeleton, clip, CHAIN, ROOT, part, loop=True, **kw)


def run(m: ContactMotion, touches: dict, frames: int) -> dict:
    """Play ``frames`` frames touching ``touches[frame]`` (nothing on the others); every frame's world matrices,
    clocks and part segment (the start's first)."""
    worlds, clocks, segments = [m.world.copy()], [m.clocks.copy()], [m.part_segment.copy()]
    for frame in range(frames):
        m.step(DT, lambda a, b, r, touch=touches.get(frame): touch)
        worlds.append(m.world.copy())
        clocks.append(m.clocks.copy())
        segments.append(m.part_segment.copy())
    return dict(worlds=np.array(worlds), clocks=np.array(clocks), segments=np.array(segments))


FIG6_TOUCHES = {**{f: SOFT for f in HALF}, **{f: IRON for f in NONE}}


# ------------------------------------------------------------------------------------------------ Fig. 6
def test_fig6_the_held_part_follows_its_slowed_clock_while_the_arm_goes_on(man):
    """The design's Fig. 6: the hand held back by what it touches, at half its free travel, then none, while the
    joint above it (the elbow) keeps moving and the shoulder goes on at the first action's speed; the arm bent by
    IK, every bone its length. Without the mode the hand is carried along by its arm (its whole free path)."""
    skeleton, clip = man
    frames = NONE.stop + 4
    held = run(motion(man, profile=FIG6, hold_part=True), FIG6_TOUCHES, frames)
    carried = run(motion(man, profile=FIG6), FIG6_TOUCHES, frames)
    free = run(motion(man, profile=FIG6), {}, frames)
    parents = skeleton.parents
    measured, theirs = joint_motion(held["worlds"], parents), joint_motion(free["worlds"], parents)
    shoulder, elbow, wrist = (skeleton.index(name) for name in CHAIN)
    # Steps (frame i to i + 1) played at the contact rates: the touch's frames after the first.
    half, none = np.arange(HALF.start + 1, HALF.stop), np.arange(NONE.start + 1, NONE.stop)
    at_half, at_none = motion_ratios(measured, theirs, half), motion_ratios(measured, theirs, none)
    assert 0.4 <= at_half.displacement[wrist] <= 0.6
    assert at_none.displacement[wrist] < 0.02
    per_frame = measured.displacement[:, wrist] / theirs.displacement[:, wrist]
    assert np.all((per_frame[half] > 0.4) & (per_frame[half] < 0.6)) and np.all(per_frame[none] < 0.02)
    # ... while the joint above it keeps moving, and the shoulder at the first action's speed.
    for ratios in (at_half, at_none):
        assert ratios.displacement[elbow] > 0.25
        assert ratios.displacement[shoulder] == pytest.approx(1.0, abs=0.02)
    # The wrist is where the first action puts it at the wrist's own clock (the arm reaches it), every frame (to
    # the first action's table, 1/240 s rows interpolated: 10 µm).
    first = skeleton.world_transforms(clip.sample_frames(skeleton, held["clocks"][:, wrist] % clip.duration))
    np.testing.assert_allclose(held["worlds"][:, wrist, :3, 3], first[:, wrist, :3, 3], atol=1e-5)
    # The part goes with the wrist; the bones keep their lengths (IK bent the arm).
    bone = np.linalg.norm(held["worlds"][:, wrist, :3, 3] - held["worlds"][:, elbow, :3, 3], axis=1)
    free_bone = np.linalg.norm(free["worlds"][:, wrist, :3, 3] - free["worlds"][:, elbow, :3, 3], axis=1)
    np.testing.assert_allclose(bone, free_bone, atol=1e-9)
    assert not np.allclose(held["worlds"][:, elbow], carried["worlds"][:, elbow], atol=1e-3)
    # Carried (the default): the hand rides its arm and moves its whole free path.
    at_half_carried = motion_ratios(joint_motion(carried["worlds"], parents), theirs, half)
    assert at_half_carried.displacement[wrist] > 0.9
    # After the touch the hand recovers and the arm comes back to the first action: one clock, the free pose.
    longer, free_longer = run(motion(man, profile=FIG6, hold_part=True), FIG6_TOUCHES, 240), run(motion(man), {}, 240)
    assert np.ptp(longer["clocks"][-1]) == 0.0
    np.testing.assert_allclose(longer["worlds"][-1], free_longer["worlds"][-1], atol=1e-9)


def test_the_held_part_plays_the_same_frames_on_both_paths_and_with_the_shake(man):
    """hold_part on the two-call kernel path and on the general path (any motion): the same frames bit for bit, with
    the torso shaking on rock; the part's segment is where the joined wrist puts it."""
    touches = {f: Contact((0.7, 0.0, 1.0), (-1.0, 0.0, 0.0), "rock", 5.0, area=0.0) for f in range(15, 45)}
    fast = motion(man, hold_part=True)
    general = motion(man, hold_part=True)
    general._two_calls = False
    assert fast._two_calls
    a, b = run(fast, touches, 70), run(general, touches, 70)
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    wrist = man[0].index(CHAIN[2])
    placed = [fast.part.placed(world[wrist]) for world in a["worlds"][1:]]
    np.testing.assert_allclose(a["segments"][1:, 1], [end for _, end, _ in placed], atol=1e-12)
    with pytest.raises(Exception, match="hold_part"):
        motion(man, hold_part="yes")


# ------------------------------------------------------------------------------------------------- the shake
@pytest.mark.parametrize("material, hardness", [("rock", 5.0), ("iron", 10.0)])
def test_a_shake_never_reads_as_speed(man, material, hardness):
    """With the shake on (the default profile), every slowed joint (the hips and torso, the arm, the hand) moves
    less per frame, in the world, than the free swing moves it, on every contact frame; and it does shake."""
    skeleton, _ = man
    touch = Contact((0.7, 0.0, 1.0), (-1.0, 0.0, 0.0), material, hardness, area=0.0)
    contact = range(10, 50)  # the downswing
    touches = {f: touch for f in contact}
    shaken = run(motion(man, profile=SlowdownProfile()), touches, 60)
    calm = run(motion(man, profile=SlowdownProfile(vibration_degrees=0.0)), touches, 60)
    free = run(motion(man), {}, 60)
    parents = skeleton.parents
    mine, theirs = joint_motion(shaken["worlds"], parents), joint_motion(free["worlds"], parents)
    m = motion(man)
    slowed = [j for j in range(len(skeleton)) if m._slotted[j]]
    steps = np.arange(contact.start, contact.stop)
    assert len(slowed) == 6  # hips, waist, chest, shoulder, elbow, wrist (the hand has no joint below it)
    for j in slowed:
        for kind in ("displacement", "rotation"):
            run_j, free_j = getattr(mine, kind)[steps, j], getattr(theirs, kind)[steps, j]
            moving = free_j > 1e-9
            assert np.all(run_j[moving] < free_j[moving]), (skeleton.names[j], kind, (run_j / free_j).max())
    # It shakes: the chest leaves the calm run's path, by more than the calm run moves it.
    chest = skeleton.index(CHEST)
    off = np.linalg.norm(shaken["worlds"][:, chest, :3, 3] - calm["worlds"][:, chest, :3, 3], axis=1)
    calm_step = joint_motion(calm["worlds"], parents).displacement[steps, chest]
    assert off[contact.start + 2:contact.stop].max() > 0.5 * calm_step.mean()


def reference_shake_cap(room, clock, rates, joints, duration, loop, step, dt, share) -> float:
    """``frame.shake_cap`` in plain Python."""
    spare = 1.0 - max(float(rates[j]) for j in joints)
    if spare <= 0.0:
        return 0.0
    row = 0
    if duration > 0.0 and step > 0.0:
        clock = clock % duration if loop else min(max(clock, 0.0), duration)
        row = min(int(clock / step), len(room) - 1)
    return math.degrees(share * spare * float(room[row]) * dt / 2.0)


def test_shake_cap_kernel_matches_plain_python():
    rng = np.random.default_rng(32)
    room = rng.uniform(0.0, 5.0, 9)
    joints = np.array([0, 2, 3], dtype=np.int64)
    for _ in range(200):
        rates = rng.uniform(0.0, 1.3, 5)
        clock, duration = float(rng.uniform(-1.0, 4.0)), float(rng.choice([0.0, 1.0, 1.5]))
        loop, dt = bool(rng.integers(2)), float(rng.uniform(0.001, 0.1))
        args = (room, clock, rates, joints, duration, loop, duration / 8, dt, 0.8)
        assert _frame.shake_cap(*args) == reference_shake_cap(*args)
