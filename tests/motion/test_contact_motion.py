"""The contact-aware second action, measured as motion: CesiumMan's full-body chainsaw swing into a wall.

What is measured (``voxelworld.motion.measure``): each joint's per-frame world displacement, world rotation and
rotation relative to its parent, summed over chosen frames and divided by the free run's (the first action alone,
the same frames). A clock rate (``ContactMotion.rates``) is only what the motion claims; these tests hold it to
what the joints do.
"""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.collision import TriangleBVH
from voxelworld.errors import ParameterError
from voxelworld.motion.clip import Clip
from voxelworld.motion.contact_motion import ContactMotion
from voxelworld.motion.gltf import load_gltf
from voxelworld.motion.ik import ConeLimit
from voxelworld.motion.measure import joint_motion, motion_ratios, recovery_frames
from voxelworld.motion.part_contacts import (
    Contact,
    ContactEnded,
    ContactStarted,
    Medium,
    MediumEntered,
    MediumLeft,
    PartShape,
    SlowdownProfile,
    Vibration,
    collision_contact_query,
)
from voxelworld.motion.skeleton import Pose, Skeleton
from voxelworld.motion.swing import chainsaw_swing_clip, cutting_clip, forearm_part

from ..assets import CESIUM_MAN

CHAIN = ["Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"]
ROOT, CHEST = "Skeleton_torso_joint_1", "torso_joint_3"
DT = 1 / 60
FORWARD, UP = (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)  # CesiumMan's skeleton frame is Z-up, facing +x
LEGS = [("leg_joint_L_1", "leg_joint_L_2", "leg_joint_L_3"), ("leg_joint_R_1", "leg_joint_R_2", "leg_joint_R_3")]
MATERIALS = {2: ("soil", 1.5), 4: ("rock", 5.0), 9: ("iron", 10.0)}
STILL = SlowdownProfile(vibration_degrees=0.0)  # no shake: the tests of rates measure the swing alone


@pytest.fixture(scope="module")
def man():
    skeleton = load_gltf(CESIUM_MAN).skeleton
    return skeleton, chainsaw_swing_clip(skeleton, CHAIN, ROOT, CHEST, FORWARD, UP, legs=LEGS)


def wall(x: float = 1.05, material: int = 4) -> TriangleBVH:
    return TriangleBVH([[x, -2, -1], [x, 2, -1], [x, -2, 3], [x, 2, 3]], [[0, 1, 2], [1, 3, 2]],
                       tri_material=[material, material])


def blade(skeleton, side=(0, 1, 0)) -> PartShape:
    return forearm_part(skeleton, CHAIN, 0.05, 0.75, 0.03, blade_side=side)


def motion(man, part=None, **kw) -> ContactMotion:
    skeleton, clip = man
    kw.setdefault("profile", STILL)
    kw.setdefault("loop", True)
    return ContactMotion(skeleton, clip, CHAIN, ROOT, part or blade(skeleton), **kw)


def run(m: ContactMotion, query, frames: int) -> dict:
    worlds, contact, rates, clocks, events, poses, tips = [m.world.copy()], [], [], [], [], [], [m.part_segment[1]]
    for _ in range(frames):
        pose, happened = m.step(DT, query)
        worlds.append(m.world.copy())
        contact.append(m.contact is not None)
        rates.append(m.rates.copy())
        clocks.append(m.clocks.copy())
        events.append(happened)
        poses.append(pose)
        tips.append(m.part_segment[1].copy())
    return dict(worlds=np.array(worlds), contact=np.array(contact), rates=np.array(rates),
                clocks=np.array(clocks), events=events, poses=poses, tips=np.array(tips))


def free_query(a, b, r):
    return None


def scripted(contact: Contact, frames: range):
    """A query that touches ``contact`` on the given frames (counted from 0) and nothing else."""
    count = [-1]

    def query(a, b, r):
        count[0] += 1
        return contact if count[0] in frames else None

    return query


ROCK = Contact((0.7, 0.0, 1.0), (-1.0, 0.0, 0.0), "rock", 5.0, area=0.0)


def tip_ratio(contact_run: dict, free_run: dict, frames) -> float:
    moved = np.linalg.norm(np.diff(contact_run["tips"], axis=0), axis=1)[frames].sum()
    free = np.linalg.norm(np.diff(free_run["tips"], axis=0), axis=1)[frames].sum()
    return moved / free


# ----------------------------------------------------------------------------------------------- in contact
def test_contact_slows_the_body_to_a_tenth_and_the_arm_below_it_in_measured_motion(man):
    skeleton, clip = man
    frames = 900
    touched = run(motion(man), collision_contact_query(wall(1.0), MATERIALS), frames)  # met early in the downswing
    free = run(motion(man), free_query, frames)
    contact = touched["contact"]
    assert 30 < contact.sum() < frames  # it meets the wall and stays on it a while
    held = contact.copy()  # contact frames after the first two of each touch (the rates have dropped)
    held[2:] &= contact[1:-1] & contact[:-2]
    held[:2] = False
    # Measured while the free run is still in the downswing (keyed at a constant speed), so that "a tenth" means a
    # tenth of the same motion.
    held[int(0.55 * clip.duration / DT):] = False  # the downswing is the first 0.6 of the loop
    assert held.sum() > 15
    ratios = motion_ratios(joint_motion(touched["worlds"], skeleton.parents),
                           joint_motion(free["worlds"], skeleton.parents), held)
    root, chest = skeleton.index(ROOT), skeleton.index(CHEST)
    s, e, w = (skeleton.index(name) for name in CHAIN)
    # The hips and chest turn at a tenth of the first action.
    assert ratios.rotation[root] == pytest.approx(0.1, abs=0.01)
    assert ratios.local_rotation[chest] == pytest.approx(0.1, abs=0.01)
    # The arm lags the body and the part that touches is slowest: measured relative to the parent, and in the world.
    assert ratios.local_rotation[e] < ratios.local_rotation[s] < ratios.rotation[root]
    assert ratios.displacement[w] < ratios.rotation[root]
    assert tip_ratio(touched, free, held) < ratios.rotation[root]
    # Each joint turns at the rate its clock claims (the swing is keyed at a near-constant speed).
    claimed = touched["rates"][held].mean(axis=0)
    for joint in (root, chest, s, e):
        assert ratios.local_rotation[joint] == pytest.approx(claimed[joint], rel=0.25)
    # Joints the second action leaves alone play the first action's speed (measured relative to their parent).
    keyed = {skeleton.index(name) for name in clip.joint_names}
    alone = sorted(keyed - {root, s, e, w} - set(motion(man).body))
    assert alone, "the full-body swing keys a joint outside the body and the chain"
    for joint in alone:
        if not np.isnan(ratios.local_rotation[joint]):
            assert ratios.local_rotation[joint] == pytest.approx(1.0, abs=0.02)
    # Every bone keeps the length the first action gives it, every frame.
    for pose, clocks in zip(touched["poses"], touched["clocks"]):
        first = skeleton.bone_lengths(clip.sample(skeleton, clocks % clip.duration))
        assert np.abs(skeleton.bone_lengths(pose) - first).max() <= 1e-9
    kinds = [type(event) for happened in touched["events"] for event in happened]
    assert kinds.count(ContactStarted) == kinds.count(ContactEnded) + int(contact[-1]) >= 1
    assert kinds.count(Vibration) == contact.sum()


@pytest.mark.parametrize("harder, softer", [(("rock", 5.0, 0.0), ("soil", 1.5, 0.0)),
                                            (("rock", 5.0, 1.0), ("rock", 5.0, 0.0)),
                                            (("iron", 10.0, 0.0), ("rock", 5.0, 1.0)),
                                            (("sand", 0.5, 0.0), None)])
def test_harder_and_flatter_move_the_tool_less(man, harder, softer):
    """Measured tool-tip motion over 40 contact frames: harder or flatter is slower, down to iron; every material
    leaves the tool slower than the hips."""
    frames = range(10, 50)
    free = run(motion(man), free_query, 60)
    measured = []
    for name, hardness, area in (harder,) + ((softer,) if softer else ()):
        touch = Contact((0.7, 0.0, 1.0), (-1.0, 0.0, 0.0), name, hardness, area=area)
        touched = run(motion(man), scripted(touch, frames), 60)
        window = np.zeros(60, dtype=bool)
        window[12:50] = True
        measured.append(tip_ratio(touched, free, window))
        hips = motion_ratios(joint_motion(touched["worlds"], man[0].parents),
                             joint_motion(free["worlds"], man[0].parents), window).rotation[man[0].index(ROOT)]
        assert measured[-1] < hips
    if softer:
        assert measured[0] < measured[1]


def test_profile_orders_every_material_and_area():
    profile = SlowdownProfile()
    for hardness in np.linspace(0.0, 12.0, 49):
        for area in (0.0, 0.5, 1.0):
            rates = profile.chain_rates(hardness, area, 3)
            wrist, elbow, shoulder, body = rates
            assert wrist < elbow < shoulder < body == profile.root_rate
            assert wrist >= profile.min_rate
            if 0 < hardness < profile.uncuttable:
                assert profile.wrist_rate(hardness, area) > profile.wrist_rate(profile.uncuttable, area)
                assert profile.wrist_rate(hardness, 1.0) < profile.wrist_rate(hardness, 0.0)
                assert profile.wrist_rate(hardness + 0.25, area) < profile.wrist_rate(hardness, area)
    for joints in (2, 3, 5, 8):
        rates = profile.chain_rates(5.0, 0.0, joints)
        assert len(rates) == joints + 1 and all(a < b for a, b in zip(rates, rates[1:]))


# ------------------------------------------------------------------------------------------------- recovery
def test_recovery_runs_from_the_wrist_outward_in_measured_motion(man):
    """After release the hand turns first, then the forearm, the upper arm, the hips: each joint's motion relative
    to its parent closes half its gap to the first action in that order, on visibly different frames."""
    skeleton, _ = man
    frames = 120
    touched = run(motion(man), scripted(ROCK, range(10, 40)), frames)
    free = run(motion(man), free_query, frames)
    mine, theirs = joint_motion(touched["worlds"], skeleton.parents), joint_motion(free["worlds"], skeleton.parents)
    released = 40
    order = []
    for name in (CHAIN[2], CHAIN[1], CHAIN[0], ROOT):
        j = skeleton.index(name)
        held = motion_ratios(mine, theirs, np.arange(30, 40)).local_rotation[j]
        order.append(recovery_frames(mine.local_rotation[:, j], theirs.local_rotation[:, j], released, held))
    assert order[0] < order[1] < order[2] < order[3] < frames, order
    # ... and each begins on its own frame (not all on the frame of release): the first tenth of the gap.
    onsets = []
    for name in (CHAIN[2], CHAIN[1], CHAIN[0], ROOT):
        j = skeleton.index(name)
        held = motion_ratios(mine, theirs, np.arange(30, 40)).local_rotation[j]
        onsets.append(recovery_frames(mine.local_rotation[:, j], theirs.local_rotation[:, j], released, held,
                                      window=1, share=0.1))
    assert onsets[0] < onsets[1] < onsets[2] < onsets[3], onsets
    # The clock rates agree: the wrist's rate recovers first.
    rates = touched["rates"]
    first_half = [int(np.argmax(rates[released:, skeleton.index(n)] >= 0.5)) for n in (CHAIN[2], CHAIN[1], ROOT)]
    assert first_half[0] < first_half[1] < first_half[2]


def test_looping_catches_up_and_the_lag_never_grows_past_one_clip(man):
    """Cutting without a break for 20 s: the lag behind the leaders stays under one clip length (it used to grow
    without limit: 33 s behind after 40 s); once the cutting stops, the joints line up and the first action
    resumes."""
    skeleton, clip = man
    m = motion(man)
    log = run(m, scripted(ROCK, range(0, int(20 / DT))), int(26 / DT))
    lag = log["clocks"].max(axis=1, keepdims=True) - log["clocks"]
    assert lag.max() < clip.duration + DT  # (a frame's advance past the re-counting)
    assert lag[: int(20 / DT)].max() > 0.5 * clip.duration  # it did fall behind, more than once around
    assert np.ptp(log["clocks"][-1]) == 0.0  # one clock again
    # ... the free joints' clock, which never slowed: the first action resumes where it would be without contact.
    assert m.clocks[0] == pytest.approx(m.time, abs=1e-9)
    np.testing.assert_allclose(m.pose.rotation, clip.sample(skeleton, m.time % clip.duration).rotation, atol=1e-12)


# ------------------------------------------------------------------------------------------------- the shake
def test_the_torso_shakes_by_hardness_and_the_hand_stays_on_its_path(man):
    skeleton, _ = man
    chest = skeleton.index(CHEST)
    calm = run(motion(man), scripted(ROCK, range(0, 90)), 90)
    amplitudes, frequencies = [], []
    for hardness in (0.5, 5.0):
        touch = Contact((0.7, 0.0, 1.0), (-1.0, 0.0, 0.0), "stone", hardness, area=0.0)
        shaken = run(motion(man, profile=SlowdownProfile()), scripted(touch, range(0, 90)), 90)
        calm_h = run(motion(man), scripted(touch, range(0, 90)), 90)
        deviation = np.array([np.degrees(2 * np.arccos(min(1.0, abs(float(np.dot(a.rotation[chest],
                                                                                  b.rotation[chest]))))))
                              for a, b in zip(shaken["poses"], calm_h["poses"])])
        amplitudes.append(deviation.max())
        spectrum = np.abs(np.fft.rfft(deviation - deviation.mean()))
        frequencies.append(np.fft.rfftfreq(len(deviation), DT)[int(np.argmax(spectrum[1:])) + 1])
        # The tool's steady path: the shake moves the torso, not the hand (IK absorbs it).
        wrist = skeleton.index(CHAIN[2])
        np.testing.assert_allclose(shaken["worlds"][:, wrist], calm_h["worlds"][:, wrist], atol=1e-6)
        assert not np.allclose(shaken["worlds"][:, chest], calm_h["worlds"][:, chest], atol=1e-4)
        assert np.abs(skeleton.bone_lengths(shaken["poses"][-1]) - skeleton.bone_lengths(calm_h["poses"][-1])).max() \
            <= 1e-9
    profile = SlowdownProfile()
    # Harder shakes more, up to what the first action's speed leaves room for (a shake never reads as speed:
    # tests/motion/test_contact_modes.py): rock's 0.75 degrees are held below half of that here.
    assert 0.02 < amplitudes[0] < amplitudes[1] < 0.5 * profile.shake(5.0)[0]
    assert frequencies[0] < frequencies[1]
    # No contact, no shake.
    free = run(motion(man, profile=SlowdownProfile()), free_query, 30)
    still = run(motion(man), free_query, 30)
    assert all(np.array_equal(a.rotation, b.rotation) for a, b in zip(free["poses"], still["poses"]))
    assert calm["contact"].all()


# ------------------------------------------------------------------------------------------ second action
def test_in_contact_the_arm_blends_towards_the_second_action_clip(man):
    skeleton, clip = man
    cutting = cutting_clip(skeleton, CHAIN, CHEST, FORWARD, UP)
    m = motion(man, second_clip=cutting)
    log = run(m, scripted(ROCK, range(5, 65)), 120)
    plain = run(motion(man), scripted(ROCK, range(5, 65)), 120)
    elbow = skeleton.index(CHAIN[1])

    def gap(frame: int, reference: Pose) -> float:
        return float(1.0 - abs(np.dot(log["poses"][frame].rotation[elbow], reference.rotation[elbow])))

    # Deep in contact the arm is the cutting clip's; well after release it is the first action's again.
    at = 60
    assert gap(at, cutting.sample(skeleton, np.full(len(skeleton), 0.0) + (at - 5) * DT, loop=True)) < 1e-3
    assert gap(at, plain["poses"][at]) > 1e-3
    assert gap(119, plain["poses"][119]) < 1e-6


# ------------------------------------------------------------------------------------------- any chain length
def long_arm(bones: int):
    names = ["hip", "chest"] + [f"arm{i}" for i in range(bones + 1)]
    translations = [[0, 1, 0], [0, 0.4, 0]] + [[0.1, 0.0, 0.0]] + [[0.2, 0.0, 0.0]] * bones
    rest = Pose(translations, [[0, 0, 0, 1]] * len(names), [[1, 1, 1]] * len(names))
    skeleton = Skeleton(names, [-1] + list(range(len(names) - 1)), rest)
    turn = lambda deg: [0, 0, np.sin(np.radians(deg) / 2), np.cos(np.radians(deg) / 2)]  # noqa: E731
    keys = {name: {"rotation": ([0, 0.5, 1], [turn(30), turn(15), turn(30)])} for name in names[2:-1]}
    keys["chest"] = {"rotation": ([0, 0.5, 1], [turn(0), turn(-12), turn(0)])}
    keys["hip"] = {"rotation": ([0, 0.5, 1], [turn(0), turn(10), turn(0)])}
    return skeleton, Clip.from_keys("bend", keys), names[2:]


@pytest.mark.parametrize("bones", [1, 2, 4, 6])
def test_chains_of_any_length_grade_their_rates_and_keep_the_hand_on_its_path(bones):
    skeleton, clip, chain = long_arm(bones)
    part = PartShape((0, 0, 0), (0.2, 0, 0), 0.02)
    limits = [ConeLimit(120.0)] * bones if bones >= 2 else None
    moving = {}
    for shake in (0.0, 1.5):
        m = ContactMotion(skeleton, clip, chain, "hip", part, profile=SlowdownProfile(vibration_degrees=shake),
                          loop=True, limits=limits)
        log = run(m, scripted(ROCK, range(3, 60)), 60)
        moving[shake] = log
        rates = log["rates"][30]
        along = [rates[skeleton.index(name)] for name in chain]
        assert all(a > b for a, b in zip(along, along[1:]))  # slower towards the wrist
        assert along[-1] < rates[0] == pytest.approx(0.1)
        for pose in log["poses"]:
            np.testing.assert_allclose(skeleton.bone_lengths(pose), skeleton.bone_lengths(), atol=1e-9)
    # With the shake, IK (two-bone or FABRIK) keeps the hand where the steady pose puts it (a one-bone chain can
    # only point at it).
    if bones == 1:
        return
    wrist = skeleton.index(chain[-1])
    np.testing.assert_allclose(moving[1.5]["worlds"][:, wrist, :3, 3], moving[0.0]["worlds"][:, wrist, :3, 3],
                               atol=1e-5)
    assert not np.allclose(moving[1.5]["worlds"][:, 1], moving[0.0]["worlds"][:, 1])  # the chest did shake


# ------------------------------------------------------------------------------------------------------ media
def test_water_slows_the_deepest_joints_most_and_tells_when_they_go_in(man):
    skeleton, clip = man
    water = Medium("water", 4.0, box=((-3, -3, -2), (3, 3, 0.9)), grade=0.6, up=(0, 0, 1))
    m = motion(man, media=[water])
    lifted = np.eye(4)
    lifted[2, 3] = 1.0
    m.place(lifted)  # standing above the water
    log = run(m, free_query, 3)
    assert not water.contains(m.world[:, :3, 3]).any()
    m.place(np.eye(4))  # stepped down: the water reaches the waist
    log = run(m, free_query, 20)
    entered = {e.joint for happened in log["events"] for e in happened if isinstance(e, MediumEntered)}
    assert "leg_joint_R_5" in entered and CHEST not in entered
    depth = water.depths(m.world[:, :3, 3])
    rates = log["rates"][-1]
    inside = water.contains(m.world[:, :3, 3])
    deeper, shallower = np.argmax(np.where(inside, depth, -np.inf)), np.argmin(np.where(inside, depth, np.inf))
    assert rates[deeper] == pytest.approx(0.2) and rates[deeper] < rates[shallower] < 1.0
    # Out of the water the joints keep the first action, but for the arm's and the body's, slowed (a little, by
    # the log scale from the wrist's rate) while the blade drags in the water.
    dragged = np.zeros(len(skeleton), dtype=bool)
    dragged[list(m.chain) + list(m.body)] = True
    np.testing.assert_allclose(rates[~inside & ~dragged], 1.0)
    assert m.part_drag > 0.0 or np.all(rates[~inside] == 1.0)
    names = np.array(skeleton.names)
    lifted[2, 3] = 3.0
    m.place(lifted)  # out again
    log = run(m, free_query, 2)
    left = {e.joint for happened in log["events"] for e in happened if isinstance(e, MediumLeft) and e.joint != "part"}
    assert left == set(names[inside])


def test_placement_moves_the_world_not_the_pose(man):
    a, b = motion(man), motion(man)
    turn = np.array([[0, -1, 0, 2.0], [1, 0, 0, -1.0], [0, 0, 1, 0.5], [0, 0, 0, 1.0]])
    b.place(turn)
    pose_a, _ = a.step(DT, free_query)
    pose_b, _ = b.step(DT, free_query)
    assert pose_a.rotation.tobytes() == pose_b.rotation.tobytes()
    np.testing.assert_allclose(b.world, turn @ a.world, atol=1e-12)
    for bad in (np.eye(3), np.diag([1.0, 2.0, 1.0, 1.0]), np.diag([1.0, 1.0, -1.0, 1.0]), [[np.nan] * 4] * 4):
        with pytest.raises(ParameterError):
            b.place(bad)


# ------------------------------------------------------------------------------------- determinism, kernels
def test_identical_input_identical_output(man):
    logs = [run(motion(man, profile=SlowdownProfile()), collision_contact_query(wall(), MATERIALS), 80)
            for _ in range(2)]
    for a, b in zip(logs[0]["poses"], logs[1]["poses"]):
        assert a.rotation.tobytes() == b.rotation.tobytes()
    assert logs[0]["clocks"].tobytes() == logs[1]["clocks"].tobytes()
    assert logs[0]["events"] == logs[1]["events"]


def test_state_round_trip_continues_bit_for_bit(man):
    a = motion(man, profile=SlowdownProfile())
    run(a, scripted(ROCK, range(5, 30)), 20)
    b = motion(man, profile=SlowdownProfile())
    b.load_state_dict({key: (value.copy() if isinstance(value, np.ndarray) else value)
                       for key, value in a.state_dict().items()})
    query = scripted(ROCK, range(0, 10))
    query_b = scripted(ROCK, range(0, 10))
    for _ in range(30):
        pa, ea = a.step(DT, query)
        pb, eb = b.step(DT, query_b)
        assert pa.rotation.tobytes() == pb.rotation.tobytes() and ea == eb


def test_clock_kernel_matches_plain_python():
    from voxelworld.motion._kernels.contact import advance_clocks
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = 7
        clocks, rates = rng.uniform(0, 1, n), rng.uniform(0, 1.5, n)
        targets, taus = rng.uniform(0, 2, n), rng.uniform(0.01, 0.3, n)
        lag = clocks.max() - clocks
        dt, end = 1 / 60, 0.9
        out_c, out_r = np.empty(n), np.empty(n)
        advance_clocks(clocks, rates, targets, taus, lag, dt, end, False, 1e-4, out_c, out_r)
        new_r = [t if t <= r else t - (t - r) * np.exp(-dt / tau) for r, t, tau in zip(rates, targets, taus)]
        new_c = [c + dt * r for c, r in zip(clocks, new_r)]
        leaders = [j for j in range(n) if lag[j] <= 0]
        lead = max(new_c[j] for j in leaders)
        lead_rate = new_r[max(leaders, key=lambda j: new_c[j])]
        for j in range(n):
            if lag[j] > 0 and new_c[j] >= lead - 1e-4:
                new_c[j], new_r[j] = lead, lead_rate
        new_c = [min(c, end) for c in new_c]
        np.testing.assert_allclose(out_c, new_c, rtol=0, atol=1e-15)
        np.testing.assert_allclose(out_r, new_r, rtol=0, atol=1e-15)


def test_repose_kernel_matches_plain_python():
    """The chain re-posed by the kernel puts every joint on its new place and the hand at its rotation."""
    from voxelworld.motion import quaternions as quat
    from voxelworld.motion._kernels.contact import repose_chain
    skeleton, _, chain = long_arm(4)
    rng = np.random.default_rng(5)
    joints = np.array([skeleton.index(name) for name in chain])
    for _ in range(20):
        rotation = rng.normal(size=(len(skeleton), 4))
        rotation /= np.linalg.norm(rotation, axis=1)[:, None]
        translation = skeleton.rest.translation.copy()
        pose = Pose(translation, rotation, skeleton.rest.scale)
        world = skeleton.world_transforms(pose)
        # New places: each bone turned at random, lengths kept.
        places = [world[joints[0], :3, 3]]
        for i in range(1, len(joints)):
            direction = rng.normal(size=3)
            length = np.linalg.norm(world[joints[i], :3, 3] - world[joints[i - 1], :3, 3])
            places.append(places[-1] + length * direction / np.linalg.norm(direction))
        places = np.array(places)
        hand = np.eye(4)
        hand[:3, :3] = quat.to_matrix(quat.normalize(rng.normal(size=4)))
        out = np.empty((len(joints), 4))
        repose_chain(world[skeleton.parents[joints[0]]], translation, rotation, joints, places, hand, out)
        rotation[joints] = out
        moved = skeleton.world_transforms(Pose(translation, rotation, skeleton.rest.scale))
        np.testing.assert_allclose(moved[joints, :3, 3], places, atol=1e-9)
        np.testing.assert_allclose(moved[joints[-1], :3, :3], hand[:3, :3], atol=1e-9)


def test_shake_kernel_matches_plain_python():
    """Each shaking joint turned in its own frame about its axis, alternating sides: against quaternion products."""
    from voxelworld.motion import quaternions as quat
    from voxelworld.motion._kernels.contact import shake
    rng = np.random.default_rng(3)
    rotation = np.array([quat.normalize(rng.normal(size=4)) for _ in range(6)])
    joints = np.array([1, 4, 2])
    axes = np.array([quat.normalize(rng.normal(size=4))[:3] for _ in range(3)])
    axes /= np.linalg.norm(axes, axis=1)[:, None]
    out = np.empty_like(rotation)
    shake(rotation, joints, axes, 0.3, out)
    expected = rotation.copy()
    for i, j in enumerate(joints):
        turn = quat.from_axis_angle(axes[i], np.degrees(0.3) * (1 if i % 2 == 0 else -1))
        expected[j] = quat.multiply(rotation[j], turn)
    np.testing.assert_allclose(out * np.sign(out[:, 3:]), expected * np.sign(expected[:, 3:]), atol=1e-12)


def test_hand_rotation_kernel_matches_plain_python():
    """The wrist's local rotation from the tabulated first-action rotation: placed, under its parent, nlerped
    between two rows, against the same with the quaternions module."""
    from voxelworld.motion import quaternions as quat
    from voxelworld.motion._kernels.contact import hand_rotation
    rng = np.random.default_rng(11)
    for _ in range(50):
        table = np.array([quat.normalize(rng.normal(size=4)) for _ in range(3)])
        table[1] *= np.sign(np.dot(table[0], table[1]))  # neighbours in one hemisphere, as tabulated
        parent, placement = np.eye(4), np.eye(4)
        parent[:3, :3] = quat.to_matrix(quat.normalize(rng.normal(size=4))) * 1.3  # uniform scale is ignored
        placement[:3, :3] = quat.to_matrix(quat.normalize(rng.normal(size=4))) * 0.7
        placement[:3, 3] = rng.normal(size=3)
        u = float(rng.uniform())
        current = quat.normalize(rng.normal(size=4))
        out = np.empty(4)
        hand_rotation(parent, placement, table, 0, 1, u, current, out)
        blend = quat.normalize((1 - u) * table[0] + u * table[1])
        world = quat.to_matrix(quat.from_matrix(placement[:3, :3] / 0.7)) @ quat.to_matrix(blend)
        expected = (parent[:3, :3] / 1.3).T @ world
        np.testing.assert_allclose(quat.to_matrix(out), expected, atol=1e-12)
        assert np.dot(out, current) >= 0.0  # the sign nearer the current rotation


def test_a_held_tool_points_where_the_first_action_points_it_at_the_hands_clock(man):
    """However far the arm's clocks fall apart in contact, the hand's world rotation is the first action's at the
    wrist's own clock (a held tool does not turn with a forearm on another clock)."""
    skeleton, clip = man
    m = motion(man)
    run(m, collision_contact_query(wall(1.0), MATERIALS), 60)
    assert len(set(m.clocks[list(m.chain) + [m.root]])) > 2  # the chain's clocks differ
    first = skeleton.world_transforms(clip.sample(skeleton, m.clocks[m.wrist] % clip.duration))[m.wrist]
    np.testing.assert_allclose(m.world[m.wrist, :3, :3], first[:3, :3], atol=2e-3)


# ------------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("make", [
    lambda man: ContactMotion(man[0], man[1], CHAIN[:1], ROOT, PartShape((0, 0, 0), (1, 0, 0), 0.1)),
    lambda man: ContactMotion(man[0], man[1], [CHAIN[0], CHAIN[2], CHAIN[1]], ROOT,
                              PartShape((0, 0, 0), (1, 0, 0), 0.1)),
    lambda man: ContactMotion(man[0], man[1], CHAIN, CHAIN[0], PartShape((0, 0, 0), (1, 0, 0), 0.1)),
    lambda man: ContactMotion(man[0], man[1], CHAIN, "no such joint", PartShape((0, 0, 0), (1, 0, 0), 0.1)),
    lambda man: ContactMotion(man[0], man[1], CHAIN, ROOT, "a capsule"),
    lambda man: ContactMotion(man[0], man[1], CHAIN, ROOT, PartShape((0, 0, 0), (1, 0, 0), 0.1), limits=[None]),
    lambda man: ContactMotion(man[0], man[1], CHAIN, ROOT, PartShape((0, 0, 0), (1, 0, 0), 0.1), second_clip="cut"),
    lambda man: PartShape((0, 0, 0), (1, 0, 0), -0.1),
    lambda man: PartShape((0, 0, 0), (1, 0, 0), 0.1, blade_normal=(0, 0, 0)),
    lambda man: SlowdownProfile(root_rate=1.5),
    lambda man: SlowdownProfile(min_rate=0.2),
    lambda man: SlowdownProfile(wrist_recovery=0.3),
    lambda man: SlowdownProfile(elbow_share=0.99),
    lambda man: SlowdownProfile(recovery_delay=-1.0),
    lambda man: SlowdownProfile(vibration_frequency=0.0),
    lambda man: SlowdownProfile().chain_rates(5.0, 0.0, 1),
    lambda man: Medium("water", -1.0, box=((0, 0, 0), (1, 1, 1))),
    lambda man: Medium("water", 1.0),
    lambda man: Medium("water", 1.0, box=((1, 1, 1), (0, 0, 0))),
    lambda man: Medium("water", 1.0, box=((0, 0, 0), (1, 1, 1)), grade=-0.5),
    lambda man: Contact((0, 0, 0), (0, 0, 1), "rock", -2.0),
    lambda man: Contact((0, 0, 0), (0, 0, 1), "rock", 2.0, area=1.5),
    lambda man: collision_contact_query(wall(), {2: ("soil", 1.5)}),
    lambda man: collision_contact_query("not a bvh", MATERIALS),
    lambda man: joint_motion(np.zeros((1, 3, 4, 4)), [-1, 0, 1]),
])
def test_bad_input_raises_parameter_error(man, make):
    with pytest.raises(ParameterError):
        make(man)


def test_bad_step_input_leaves_the_motion_unchanged(man):
    m = motion(man)
    clocks = m.clocks.copy()
    for dt, query in ((0.0, free_query), (float("nan"), free_query), (DT, "no"), (DT, lambda a, b, r: "not a contact")):
        with pytest.raises(ParameterError):
            m.step(dt, query)
    assert m.clocks.tobytes() == clocks.tobytes() and m.time == 0.0
