"""Motion benchmarks (issue #5). Run: ``.venv/bin/python benchmarks/motion.py``.

Medians (µs per call, Python overhead included, one thread) of the inverse kinematics calls, beside ikpy's
``Chain.inverse_kinematics`` (an optimiser over joint angles, the reference) on the same two-bone arm and targets;
forward kinematics of a 20-joint skeleton; and one whole ``ContactMotion.step`` (CesiumMan's full-body chainsaw
swing, the blade in a rock wall: every timed step a contact step, the torso shaking and the arm re-joined by IK).

Every row is one function in ``BENCHMARKS`` returning ``(benchmark, median, result, target)``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

from voxelworld.motion import CESIUM_MAN  # noqa: E402
from voxelworld.motion.ik import ConeLimit, HingeLimit, fabrik, two_bone_ik  # noqa: E402

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from terrain import print_table  # noqa: E402

UPPER, LOWER = 0.30, 0.25  # m: the arm's bones (shoulder to elbow, elbow to wrist)
ROOT = np.zeros(3)
MID = np.array([0.0, -UPPER, 0.0])  # hanging straight down, elbow pole behind (-z)
TIP = np.array([0.0, -UPPER - LOWER, 0.0])
POLE = np.array([0.0, -0.3, -1.0])


def targets(count: int = 64, seed: int = 0) -> np.ndarray:
    """Reachable points in front of the shoulder, 0.1 to 0.5 m from it."""
    rng = np.random.default_rng(seed)
    directions = rng.normal(size=(count, 3))
    directions[:, 2] = np.abs(directions[:, 2])
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    return directions * rng.uniform(0.1, 0.5, (count, 1))


def median_us(call, items, warmup: int = 50, rounds: int = 7) -> float:
    """Median over ``rounds`` of the mean time (µs) of ``call(item)`` over ``items``, after a warm-up."""
    for item in items[:warmup]:
        call(item)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for item in items:
            call(item)
        times.append((time.perf_counter() - start) / len(items) * 1e6)
    return float(np.median(times))


def bench_two_bone_ik() -> tuple:
    goals = targets(2000)
    us = median_us(lambda goal: two_bone_ik(ROOT, MID, TIP, goal, POLE), goals)
    misses = [np.linalg.norm(two_bone_ik(ROOT, MID, TIP, goal, POLE)[1] - goal) for goal in goals]
    return ("`two_bone_ik`, one arm, previous_mid not given", f"{us:.1f} µs",
            f"tip off target <= {max(misses):.0e} m", "<= 25 µs")


def bench_two_bone_ik_batched() -> tuple:
    goals = targets(10_000)
    roots, mids, tips, poles = (np.tile(p, (len(goals), 1)) for p in (ROOT, MID, TIP, POLE))
    us = median_us(lambda _: two_bone_ik(roots, mids, tips, goals, poles, mids), [None] * 20, warmup=2)
    return (f"`two_bone_ik`, {len(goals)} arms in one call, with previous_mid",
            f"{us / len(goals) * 1000:.0f} ns per arm", f"{us / 1000:.2f} ms per call", "-")


def bench_fabrik() -> tuple:
    chain = np.array([ROOT, MID, TIP])
    goals = targets(2000)
    us = median_us(lambda goal: fabrik(chain, goal), goals)
    reached = np.mean([fabrik(chain, goal, return_info=True)[2] for goal in goals])
    return ("`fabrik`, 3 joints, no limits, tolerance 1 µm, <= 32 passes", f"{us:.1f} µs",
            f"reached {reached:.0%} of targets", "<= 50 µs")


def bench_fabrik_limited() -> tuple:
    chain = np.array([ROOT, MID, TIP])
    limits = [ConeLimit(120, reference=(0, -1, 0)), HingeLimit((1, 0, 0), -150, 0, (0, -1, 0))]  # down to forwards
    goals = targets(2000)
    goals[:, 0] = 0.0  # the hinge is a world axis (x): the forearm stays in the y-z plane, and so do the targets
    us = median_us(lambda goal: fabrik(chain, goal, limits), goals)
    reached = np.mean([fabrik(chain, goal, limits, return_info=True)[2] for goal in goals])
    return ("`fabrik`, 3 joints, shoulder cone + elbow hinge, targets in the hinge's plane", f"{us:.1f} µs",
            f"reached {reached:.0%} of targets", "-")


def ikpy_arm():
    """ikpy's chain of the same arm: shoulder yaw (y) and pitch (x), elbow (x), a fixed wrist link. ImportError
    without ikpy."""
    from ikpy.chain import Chain
    from ikpy.link import OriginLink, URDFLink

    zero = np.zeros(3)
    links = [OriginLink(),
             URDFLink("shoulder_yaw", zero, zero, rotation=np.array([0.0, 1.0, 0.0])),
             URDFLink("shoulder_pitch", zero, zero, rotation=np.array([1.0, 0.0, 0.0])),
             URDFLink("elbow", np.array([0.0, -UPPER, 0.0]), zero, rotation=np.array([1.0, 0.0, 0.0])),
             URDFLink("wrist", np.array([0.0, -LOWER, 0.0]), zero, joint_type="fixed")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Chain(links, active_links_mask=[False, True, True, True, False])


def bench_ikpy() -> tuple:
    """ikpy on the same arm: shoulder yaw (y) and pitch (x), elbow (x), a fixed wrist link."""
    try:
        arm = ikpy_arm()
    except ImportError as error:  # pragma: no cover - the test extras install it
        return ("ikpy `Chain.inverse_kinematics` (reference)", "-", f"not installed: {error}", "reference")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        goals = targets(200)
        us = median_us(arm.inverse_kinematics, goals, warmup=10, rounds=5)
        misses = [np.linalg.norm(arm.forward_kinematics(arm.inverse_kinematics(goal))[:3, 3] - goal)
                  for goal in goals]
    return ("ikpy `Chain.inverse_kinematics`, same arm and targets (reference)", f"{us:.0f} µs",
            f"median tip off target {np.median(misses):.0e} m", "reference (issue: 5-20 ms)")


def _median_single_us(call, repeats: int) -> float:
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e6


def bench_forward_kinematics() -> tuple:
    from voxelworld.motion import Pose, Skeleton

    rng = np.random.default_rng(0)
    n = 20
    rotations = rng.normal(size=(n, 4))
    rest = Pose(rng.uniform(-0.2, 0.2, (n, 3)), rotations / np.linalg.norm(rotations, axis=1, keepdims=True),
                np.ones((n, 3)))
    skeleton = Skeleton([f"j{i}" for i in range(n)], [-1] + [int(rng.integers(0, i)) for i in range(1, n)], rest)
    us = _median_single_us(lambda: skeleton.world_transforms(rest), 2000)
    return ("`Skeleton.world_transforms`, 20 joints, one pose (FK)", f"{us:.1f} µs", "20 world matrices",
            "<= 100 µs")


def cutting_motion():
    """CesiumMan's full-body chainsaw swing stepped 40 frames into a rock wall (from there on every step is a
    contact step, the torso shaking, the arm re-joined by IK), and the wall's contact query."""
    from voxelworld.collision import TriangleBVH
    from voxelworld.motion import ContactMotion, chainsaw_swing_clip, collision_contact_query, forearm_part, load_gltf

    chain = ["Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"]
    skeleton = load_gltf(CESIUM_MAN).skeleton
    clip = chainsaw_swing_clip(skeleton, chain, "Skeleton_torso_joint_1", "torso_joint_3", (1, 0, 0), (0, 0, 1))
    part = forearm_part(skeleton, chain, 0.05, 0.75, 0.03, blade_side=(0, 1, 0))
    wall = TriangleBVH([[1.0, -2, -1], [1.0, 2, -1], [1.0, -2, 3], [1.0, 2, 3]], [[0, 1, 2], [1, 3, 2]],
                       tri_material=[4, 4])
    query = collision_contact_query(wall, {4: ("rock", 5.0)})
    motion = ContactMotion(skeleton, clip, chain, "Skeleton_torso_joint_1", part, loop=True)
    for _ in range(40):
        motion.step(1 / 60, query)
    assert motion.contact is not None
    return motion, query


def bench_contact_step() -> tuple:
    motion, query = cutting_motion()
    us = _median_single_us(lambda: motion.step(1 / 60, query), 150)
    assert motion.contact is not None  # the blade stayed in the wall for every timed step
    return ("`ContactMotion.step`, CesiumMan (19 joints) full-body swing, blade in a rock wall, torso shaking (IK)",
            f"{us:.0f} µs", f"wrist rate {motion.rates[motion.wrist]:.4f}, collision query included", "<= 200 µs")


def guard_figures(runs: int = 3) -> dict[str, float]:
    """The quick figures ``benchmarks/guard.py`` checks (a few seconds), each the median of ``runs`` runs:

    - ``two_bone_ik_us``: :func:`two_bone_ik` µs per call, one arm, 2000 targets a run (``bench_two_bone_ik``);
    - ``ikpy_us``: ikpy's ``Chain.inverse_kinematics`` µs per call on the same arm and the first 12 of those
      targets, in the same run (nan without ikpy);
    - ``ikpy_over_two_bone``: their ratio (how many times faster ours is; nan without ikpy);
    - ``contact_step_us``: one ``ContactMotion.step`` (µs; the ``bench_contact_step`` row: CesiumMan's swing in a
      rock wall, shaking, IK, the collision query included), median of 100 steps a run.
    """
    goals = targets(2000)
    arm = None
    try:
        arm = ikpy_arm()
    except ImportError:  # pragma: no cover - the test extras install it
        pass
    motion, query = cutting_motion()
    ours, theirs, steps = [], [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(runs):
            ours.append(median_us(lambda goal: two_bone_ik(ROOT, MID, TIP, goal, POLE), goals, warmup=50, rounds=3))
            if arm is not None:
                theirs.append(median_us(arm.inverse_kinematics, goals[:12], warmup=2, rounds=1))
            steps.append(_median_single_us(lambda: motion.step(1 / 60, query), 100))
    assert motion.contact is not None
    two_bone, ikpy = float(np.median(ours)), float(np.median(theirs)) if theirs else float("nan")
    return {"two_bone_ik_us": two_bone, "ikpy_us": ikpy, "ikpy_over_two_bone": ikpy / two_bone,
            "contact_step_us": float(np.median(steps))}


# One function per row, in table order.
BENCHMARKS = [bench_two_bone_ik, bench_two_bone_ik_batched, bench_fabrik, bench_fabrik_limited, bench_ikpy,
              bench_forward_kinematics, bench_contact_step]


def main() -> None:
    rows = [bench() for bench in BENCHMARKS]
    print_table(("benchmark", "median", "result", "target"), rows)


if __name__ == "__main__":
    main()
