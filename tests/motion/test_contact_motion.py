"""The contact-aware second action: CesiumMan's right arm swung into a wall (issue #5).

"Per-frame change" of a joint, as tested here and documented in ``voxelworld.motion.contact_motion``: the advance of
the joint's clock in the frame divided by ``dt`` (seconds of the first action played per second; 1 for every
joint in the first action), i.e. ``ContactMotion.rates`` after each step, checked against the clocks.
"""

from __future__ import annotations


import numpy as np
import pytest

from voxelworld.collision import TriangleBVH
from voxelworld.errors import ParameterError
from voxelworld.motion.contact_motion import ContactMotion
from voxelworld.motion.part_contacts import (Contact, ContactEnded, ContactStarted, Medium, PartShape, SlowdownProfile,
                                        Vibration, collision_contact_query)
from voxelworld.motion.swing import forearm_part, swing_clip
from voxelworld.motion.gltf import load_gltf

from ..assets import CESIUM_MAN


CHAIN = ["Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"]
ROOT = "Skeleton_torso_joint_1"
DT = 1 / 30
FORWARD, UP = (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)  # CesiumMan's skeleton frame is Z-up, facing +x
MATERIALS = {2: ("soil", 1.5), 4: ("rock", 5.0)}


@pytest.fixture(scope="module")
def man():
    character = load_gltf(CESIUM_MAN)
    skeleton = character.skeleton
    clip = swing_clip(skeleton, CHAIN, FORWARD, UP, from_degrees=60, to_degrees=-60)
    return skeleton, clip


def wall(x: float = 1.1, material: int = 4) -> TriangleBVH:
    return TriangleBVH([[x, -1, 0], [x, 1, 0], [x, -1, 2.5], [x, 1, 2.5]], [[0, 1, 2], [1, 3, 2]],
                       tri_material=[material, material])


def motion(man, part=None, **kw) -> ContactMotion:
    skeleton, clip = man
    part = part or forearm_part(skeleton, CHAIN, 0.05, 0.75, 0.03, blade_side=(0, 1, 0))
    return ContactMotion(skeleton, clip, CHAIN, ROOT, part, **kw)


def run(m: ContactMotion, query, frames: int):
    log = []
    for _ in range(frames):
        before = m.clocks.copy()
        pose, events = m.step(DT, query)
        log.append(dict(pose=pose, events=events, contact=m.contact, rates=m.rates.copy(),
                        advance=(m.clocks - before) / DT, world=m.world.copy(), clocks=m.clocks.copy()))
    return log


def test_wall_slows_the_wrist_keeps_the_shoulder_and_the_arm_joined(man):
    skeleton, clip = man
    m = motion(man)
    s, e, w, root = m.shoulder, m.elbow, m.wrist, m.root
    log = run(m, collision_contact_query(wall(), MATERIALS), 400)
    touching = [f for f in log if f["contact"] is not None]
    assert len(touching) > 10
    for f in touching:
        advance = f["advance"]
        if f["clocks"][s] < clip.duration:  # a clock stopped at the clip's end advances no more
            assert advance[s] >= 0.9
            assert advance[w] < advance[e] < advance[s]
        assert advance[w] <= 0.2
        assert advance[root] == pytest.approx(0.10, abs=0.01)
        running = f["clocks"] < clip.duration  # the rates are the clocks' advances (until a clock stops)
        np.testing.assert_allclose(advance[running], f["rates"][running], atol=1e-12)
    for f in log:  # every bone keeps the length the first action gives it, every frame
        first = skeleton.bone_lengths(clip.sample(skeleton, f["clocks"]))
        assert np.abs(skeleton.bone_lengths(f["pose"]) - first).max() <= 1e-9
    # The hand sits where the slowed wrist puts it: the arm of the first action at the wrist's clock.
    f = touching[len(touching) // 2]
    reference = f["clocks"].copy()
    reference[[s, e]] = reference[w]
    hand = skeleton.world_transforms(clip.sample(skeleton, reference))[w]
    np.testing.assert_allclose(f["world"][w, :3, 3], hand[:3, 3], atol=1e-9)
    kinds = [type(event) for f in log for event in f["events"]]
    assert kinds.count(ContactStarted) == 1 and kinds.count(ContactEnded) == 1
    assert kinds.count(Vibration) == len(touching)


def test_after_release_the_wrist_recovers_first(man):
    m = motion(man)
    s, e, w, root = m.shoulder, m.elbow, m.wrist, m.root
    log = run(m, collision_contact_query(wall(), MATERIALS), 400)
    end = next(i for i, f in enumerate(log) if any(isinstance(x, ContactEnded) for x in f["events"]))
    held = log[end - 1]["rates"]

    def recovered(j):  # the first frame after release at which joint j has closed half its gap to rate 1
        return next(i for i in range(end, len(log)) if log[i]["rates"][j] - held[j] >= 0.5 * (1 - held[j]))

    assert recovered(w) < recovered(e) <= recovered(s) <= recovered(root)
    assert log[end]["rates"][w] > held[w]
    # ... and the first action resumes: one clock again.
    final = log[-1]["clocks"]
    assert np.ptp(final) == 0.0


def first_contact_rate(man, material, part=None):
    m = motion(man, part=part)
    for f in run(m, collision_contact_query(wall(material=material), MATERIALS), 60):
        if f["contact"] is not None:
            return f["rates"][m.wrist]
    raise AssertionError("no contact")


def test_harder_material_is_slower_and_the_flat_drags_more(man):
    skeleton, _ = man
    assert first_contact_rate(man, 4) < first_contact_rate(man, 2)
    edge = PartShape(*[getattr(forearm_part(skeleton, CHAIN, 0.05, 0.75, 0.03), k) for k in ("start", "end")],
                     0.03)
    fixed = lambda area: lambda a, b, r: Contact(b, (-1, 0, 0), "rock", 5.0, area=area)  # noqa: E731
    rates = []
    for area in (0.0, 1.0):
        m = motion(man, part=edge)
        m.step(DT, fixed(area))
        rates.append(m.rates[m.wrist])
    assert rates[1] < rates[0]
    profile = SlowdownProfile()
    assert rates[0] == pytest.approx(profile.wrist_rate(5.0, 0.0))
    # The blade's normal decides the area when the query gives none: flat side facing the wall drags more.
    flat = forearm_part(skeleton, CHAIN, 0.05, 0.75, 0.03, blade_side=(1, 0, 0))
    sideways = forearm_part(skeleton, CHAIN, 0.05, 0.75, 0.03, blade_side=(0, 1, 0))
    assert first_contact_rate(man, 4, flat) != first_contact_rate(man, 4, sideways)


def test_identical_input_identical_output(man):
    logs = [run(motion(man), collision_contact_query(wall(), MATERIALS), 80) for _ in range(2)]
    for a, b in zip(*logs):
        assert a["pose"].rotation.tobytes() == b["pose"].rotation.tobytes()
        assert a["clocks"].tobytes() == b["clocks"].tobytes()
        assert a["events"] == b["events"]


def test_media_slow_the_joints_inside(man):
    skeleton, clip = man
    water = Medium("water", 3.0, box=((-2, -2, -1), (2, 2, 0.4)))  # knee-deep: the feet and shins
    m = motion(man, media=[water])
    inside = water.contains(m.world[:, :3, 3])
    assert inside.any() and not inside.all()
    log = run(m, lambda a, b, r: None, 5)
    rates = log[-1]["rates"]
    np.testing.assert_allclose(rates[inside], 0.25)
    np.testing.assert_allclose(rates[~inside], 1.0)


def test_profile_formula_and_order():
    profile = SlowdownProfile()
    wrist, elbow, shoulder, root = profile.chain_rates(5.0, 0.0)
    assert wrist == pytest.approx(1 / 6) and wrist < elbow < shoulder and root == 0.1
    assert profile.wrist_rate(10.0, 0.0) == profile.min_rate
    assert profile.wrist_rate(0.5, 0.0) > profile.wrist_rate(1.5, 0.0) > profile.wrist_rate(5.0, 0.0)


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


@pytest.mark.parametrize("make", [
    lambda man: ContactMotion(man[0], man[1], CHAIN[:2], ROOT, PartShape((0, 0, 0), (1, 0, 0), 0.1)),
    lambda man: ContactMotion(man[0], man[1], [CHAIN[0], CHAIN[2], CHAIN[1]], ROOT,
                              PartShape((0, 0, 0), (1, 0, 0), 0.1)),
    lambda man: ContactMotion(man[0], man[1], CHAIN, CHAIN[0], PartShape((0, 0, 0), (1, 0, 0), 0.1)),
    lambda man: ContactMotion(man[0], man[1], CHAIN, "no such joint", PartShape((0, 0, 0), (1, 0, 0), 0.1)),
    lambda man: ContactMotion(man[0], man[1], CHAIN, ROOT, "a capsule"),
    lambda man: PartShape((0, 0, 0), (1, 0, 0), -0.1),
    lambda man: PartShape((0, 0, 0), (1, 0, 0), 0.1, blade_normal=(0, 0, 0)),
    lambda man: SlowdownProfile(root_rate=1.5),
    lambda man: SlowdownProfile(wrist_recovery=0.3),
    lambda man: SlowdownProfile(elbow_share=0.99),
    lambda man: Medium("water", -1.0, box=((0, 0, 0), (1, 1, 1))),
    lambda man: Medium("water", 1.0),
    lambda man: Medium("water", 1.0, box=((1, 1, 1), (0, 0, 0))),
    lambda man: Contact((0, 0, 0), (0, 0, 1), "rock", -2.0),
    lambda man: Contact((0, 0, 0), (0, 0, 1), "rock", 2.0, area=1.5),
    lambda man: collision_contact_query(wall(), {2: ("soil", 1.5)}),
    lambda man: collision_contact_query("not a bvh", MATERIALS),
])
def test_bad_input_raises_parameter_error(man, make):
    with pytest.raises(ParameterError):
        make(man)


def test_bad_step_input_leaves_the_motion_unchanged(man):
    m = motion(man)
    clocks = m.clocks.copy()
    for dt, query in ((0.0, lambda a, b, r: None), (float("nan"), lambda a, b, r: None), (DT, "no"),
                      (DT, lambda a, b, r: "not a contact")):
        with pytest.raises(ParameterError):
            m.step(dt, query)
    assert m.clocks.tobytes() == clocks.tobytes() and m.time == 0.0
