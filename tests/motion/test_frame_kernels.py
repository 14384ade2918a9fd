"""The kernels of a ContactMotion frame (``motion/_kernels/frame.py``) against plain-Python references.

The small products are checked bit for bit against sums of exactly rounded fused multiply-adds written with
fractions (no FMA instruction, no BLAS); the rest against the NumPy code and public functions they replace.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from voxelworld.motion._kernels import frame as kernels
from voxelworld.motion.clip import Clip
from voxelworld.motion.contact_motion import CATCH_UP_FLOOR, RECOVERED
from voxelworld.motion.gltf import load_gltf
from voxelworld.motion.part_contacts import PartShape
from voxelworld.motion.swing import chainsaw_swing_clip

from ..assets import CESIUM_MAN

RNG_SEED = 29


def fma(a: float, b: float, c: float) -> float:
    """``a * b + c`` rounded once: exact rational arithmetic, then one correctly rounded conversion."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def chain(a, b) -> float:
    """Sum of products as BLAS's dot and gemm sum them: ``fma(a2 b2, fma(a1 b1, a0 * b0))`` and on."""
    total = float(a[0]) * float(b[0])
    for x, y in zip(a[1:], b[1:]):
        total = fma(float(x), float(y), total)
    return total


def test_fma_is_one_rounding():
    # 1 + 2^-52 squared: the exact square needs 105 bits; a * b + c rounds it once, a * b then + c twice.
    a = 1.0 + 2.0 ** -52
    c = -(1.0 + 2.0 ** -51)
    # dot3((c, 0, a), (1, 0, a)) = fma(a, a, fma(0, 0, c * 1)) = fma(a, a, c)
    assert kernels.dot3(np.array([c, 0.0, a]), np.array([1.0, 0.0, a])) == 2.0 ** -104 == fma(a, a, c)
    assert a * a + c == 0.0  # rounded twice


def test_dot3_and_distance_are_the_fma_chain():
    rng = np.random.default_rng(RNG_SEED)
    for _ in range(300):
        a, b = rng.normal(size=3) * 10.0 ** rng.integers(-3, 4), rng.normal(size=3)
        assert kernels.dot3(a, b) == chain(a, b)
        d = a - b
        assert kernels.distance(a, b) == math.sqrt(chain(d, d))


def test_placed_product_is_the_gemm_chain():
    rng = np.random.default_rng(RNG_SEED + 1)
    placement = np.vstack([rng.normal(size=(3, 4)), [0.0, 0.0, 0.0, 1.0]])
    local = rng.normal(size=(5, 4, 4))
    local[:, 3] = (0.0, 0.0, 0.0, 1.0)
    out = np.empty_like(local)
    kernels.placed_product(placement, local, out)
    expected = np.array([[[chain(placement[r], local[j, :, c]) for c in range(4)] for r in range(4)]
                         for j in range(5)])
    assert np.array_equal(out, expected)


@pytest.mark.parametrize("blade", [None, (0.0, 0.0, 1.0)])
def test_place_part_is_part_shape_placed_with_the_gemm_chain(blade):
    rng = np.random.default_rng(RNG_SEED + 2)
    part = PartShape((0.01, -0.05, 0.02), (0.0, -0.8, 0.1), 0.05, blade_normal=blade)
    for _ in range(50):
        wrist = np.vstack([rng.normal(size=(3, 4)), [0.0, 0.0, 0.0, 1.0]])
        out = np.empty((3, 3))
        kernels.place_part(wrist, part._local, out)
        local = part._local
        turned = [[chain(wrist[r, :3], local[:, c]) for r in range(3)] for c in range(local.shape[1])]
        assert out[0].tolist() == [turned[0][r] + wrist[r, 3] for r in range(3)]
        assert out[1].tolist() == [turned[1][r] + wrist[r, 3] for r in range(3)]
        if blade is not None:
            norm = math.sqrt(chain(turned[2], turned[2]))
            assert out[2].tolist() == [v / norm for v in turned[2]]
        # and the public PartShape.placed gives the same numbers where NumPy's BLAS sums as the chain does
        start, end, normal = part.placed(wrist)
        if blas_sums_as_fma_chains():
            assert np.array_equal(start, out[0]) and np.array_equal(end, out[1])
            assert normal is None or np.array_equal(normal, out[2])


def blas_sums_as_fma_chains() -> bool:
    """Whether NumPy's small products here are the FMA chains (OpenBLAS's kernels on x86-64 with FMA)."""
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(4, 4)), rng.normal(size=(4, 4))
    v = rng.normal(size=3)
    return (all(float((a @ b)[r, c]) == chain(a[r], b[:, c]) for r in range(4) for c in range(4))
            and all(float((a[:3, :3] @ v)[r]) == fma(a[r, 2], v[2], fma(a[r, 0], v[0], a[r, 1] * v[1]))
                    for r in range(3))
            and float(a[0, :3] @ v) == chain(a[0, :3], v))


@pytest.fixture(scope="module")
def swing():
    skeleton = load_gltf(CESIUM_MAN).skeleton
    arm = ["Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"]
    clip = chainsaw_swing_clip(skeleton, arm, "Skeleton_torso_joint_1", "torso_joint_3", (1, 0, 0), (0, 0, 1))
    return skeleton, clip


def tables_of(skeleton, clip: Clip) -> kernels.FrameTables:
    _, paths, modes, starts, times, values = clip._packed
    rest = skeleton.rest
    empty = np.zeros((2, 3))
    return kernels.FrameTables(np.ascontiguousarray(skeleton.parents, dtype=np.int64), rest.translation,
                               rest.rotation, rest.scale, clip._joint_map(skeleton), paths, modes, starts, times,
                               values, np.zeros((2, 4)), empty, empty, np.zeros(3, dtype=np.int64),
                               np.zeros(0, dtype=np.int64), np.zeros((0, 3)), np.zeros((3, 2)), empty, False)


@pytest.mark.parametrize("loop", [True, False])
def test_sample_pose_is_clip_sample(swing, loop):
    skeleton, clip = swing
    tables = tables_of(skeleton, clip)
    rng = np.random.default_rng(RNG_SEED + 3)
    n = len(skeleton)
    translation, rotation, scale = np.empty((n, 3)), np.empty((n, 4)), np.empty((n, 3))
    for clocks in (rng.uniform(-1.0, 4.0, n), np.full(n, clip.duration), np.full(n, 2.0 * clip.duration), np.zeros(n)):
        kernels.sample_pose(tables, clocks, clip.duration, loop, translation, rotation, scale)
        expected = clip.sample(skeleton, clocks, loop=loop)
        assert np.array_equal(translation, expected.translation)
        assert np.array_equal(rotation, expected.rotation)
        assert np.array_equal(scale, expected.scale)


def test_pose_world_is_the_skeletons_world_transforms_placed(swing):
    skeleton, clip = swing
    tables = tables_of(skeleton, clip)
    pose = clip.sample(skeleton, 0.3)
    unplaced = skeleton.world_transforms(pose)
    n = len(skeleton)
    out, scratch = np.empty((n, 4, 4)), np.empty((n, 4, 4))
    kernels.pose_world(tables, pose.translation, pose.rotation, pose.scale, np.eye(4), False, scratch, out)
    assert np.array_equal(out, unplaced)
    turn = 0.7
    placement = np.array([[math.cos(turn) * 0.02, 0.0, math.sin(turn) * 0.02, 3.1],
                          [0.0, 0.02, 0.0, 0.4], [-math.sin(turn) * 0.02, 0.0, math.cos(turn) * 0.02, -2.2],
                          [0.0, 0.0, 0.0, 1.0]])
    kernels.pose_world(tables, pose.translation, pose.rotation, pose.scale, placement, True, scratch, out)
    expected = np.array([[[chain(placement[r], unplaced[j, :, c]) for c in range(4)] for r in range(4)]
                         for j in range(n)])
    assert np.array_equal(out, expected)


@pytest.mark.parametrize("loop", [True, False])
def test_first_row_is_the_python_arithmetic(loop):
    duration, step, last = 1.5, 1.5 / 360, 360
    for clock in (0.0, 0.1, 0.75, 1.5, 1.5 - 1e-12, 2.9, 7.3, -0.2):
        wrapped = clock % duration if loop else min(max(clock, 0.0), duration)
        position = wrapped / step
        i = min(int(position), last - 1)
        assert kernels.first_row(clock, duration, loop, step, last) == (i, i + 1, position - i)
    assert kernels.first_row(0.4, 0.0, loop, step, last) == (0, 0, 0.0)


def reference_lag(clocks, duration, loop):
    """ContactMotion._lag as it was, in NumPy."""
    lead = float(clocks.max())
    lag = lead - clocks
    if not loop or duration <= 0.0:
        return lag, clocks
    lag = np.mod(lag, duration)
    return lag, lead - lag


def reference_targets(contact_targets, inside, held, delays, since, rates, lag, max_catch_up, catch_up_time):
    """ContactMotion._targets as it was, in NumPy."""
    targets = inside.copy()
    holding = since < delays
    targets = np.where(holding, np.minimum(targets, held), targets)
    free = targets >= 1.0
    if not holding.any() and np.all(rates[free] >= 1.0 - RECOVERED):
        behind = free & (lag > 0.0)
        targets[behind] = np.minimum(max_catch_up, 1.0 + np.maximum(lag[behind] / catch_up_time, CATCH_UP_FLOOR))
    if contact_targets is not None:
        targets = np.minimum(targets, contact_targets)
    return targets


@pytest.mark.parametrize("loop", [True, False])
def test_lag_and_targets_are_the_numpy_code(loop):
    rng = np.random.default_rng(RNG_SEED + 4)
    n = 9
    for trial in range(200):
        clocks = rng.uniform(0.0, 4.0, n)
        if trial % 3 == 0:
            clocks[:] = clocks[0]  # in step: no lag
        lag, clocks0 = np.empty(n), np.empty(n)
        kernels.lag_of(clocks, 1.5, loop, lag, clocks0)
        expected_lag, expected_clocks = reference_lag(clocks, 1.5, loop)
        assert np.array_equal(lag, expected_lag) and np.array_equal(clocks0, expected_clocks)
        inside = np.where(rng.random(n) < 0.2, rng.uniform(0.2, 1.0, n), 1.0)
        held = rng.uniform(0.01, 1.0, n)
        delays = np.arange(n) * 0.05
        since = float(rng.choice([0.01, 0.12, 5.0]))
        rates = np.where(rng.random(n) < 0.5, 1.0, rng.uniform(0.5, 1.0, n))
        contact = rng.uniform(0.01, 0.2, n) if trial % 2 else None
        out = np.empty(n)
        kernels.frame_targets(inside, held, delays, since, rates, lag, 2.0, 0.5, CATCH_UP_FLOOR, 1.0 - RECOVERED,
                              inside if contact is None else contact, contact is not None, out)
        expected = reference_targets(contact, inside, held, delays, since, rates, lag, 2.0, 0.5)
        assert np.array_equal(out, expected)
