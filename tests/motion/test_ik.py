"""Inverse kinematics (motion/ik.py, motion/_kernels/ik.py): two-bone IK and FABRIK against their promises
(lengths, reach, bend plane, no elbow flip, limits) and against plain-Python references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from voxelworld.errors import ParameterError
from voxelworld.motion import ik
from voxelworld.motion._kernels import ik as kernels
from voxelworld.motion.ik import ConeLimit, HingeLimit, fabrik, two_bone_ik

coordinate = st.floats(-5.0, 5.0)
point = st.tuples(coordinate, coordinate, coordinate).map(np.array)
direction = st.tuples(st.floats(-1, 1), st.floats(-1, 1), st.floats(-1, 1)).filter(
    lambda v: math.hypot(*v) > 0.1).map(lambda v: np.array(v) / math.hypot(*v))
length = st.floats(0.05, 2.0)


def unit(v: np.ndarray) -> np.ndarray:
    v = v / np.abs(v).max()  # first scaled: a squared length below 1e-308 would lose precision
    return v / np.linalg.norm(v)


def angle_degrees(a: np.ndarray, b: np.ndarray) -> float:
    """The angle between two vectors, accurate near 0 and 180 degrees too."""
    return math.degrees(math.atan2(np.linalg.norm(np.cross(a, b)), float(np.dot(a, b))))


@st.composite
def two_bone_chains(draw):
    """root, mid, tip, target, pole, previous mid (or None) of a random arm; targets near, within and beyond
    reach, now and then exactly on the root."""
    root = draw(point)
    a, b = draw(length), draw(length)
    mid = root + a * draw(direction)
    tip = mid + b * draw(direction)
    reach = draw(st.sampled_from([0.0, 0.3, 1.0, 1.0, 1.0, 1.6])) * draw(st.floats(0.0, 1.0))
    target = root + reach * (a + b) * draw(direction)
    pole = root + draw(st.floats(0.1, 3.0)) * draw(direction)
    previous = draw(st.one_of(st.none(), point))
    return root, mid, tip, target, pole, previous


# ------------------------------------------------------------------------------ plain-Python reference
def ref_two_bone(root, mid, tip, target, pole, previous=None):
    """Two-bone IK written plainly: law of cosines, pole projection, Rodrigues rotation for the bounded turn."""
    root, mid, tip, target, pole = (np.asarray(p, dtype=float) for p in (root, mid, tip, target, pole))
    a, b = norm(mid - root), norm((tip - root) - (mid - root))
    d = norm(target - root)
    if d > 0:  # scaled first: a tiny d (its square subnormal) would leave u off unit length
        v = (target - root) / np.max(np.abs(target - root))
        u = v / norm(v)
    elif norm(tip - root) > 1e-9 * (a + b):
        u = unit(tip - root)
    else:
        u = unit(mid - root)

    def across(v):  # v's part perpendicular to u, and whether it is long enough to give a direction
        w = v - v.dot(u) * u
        w = w - w.dot(u) * u
        n = np.linalg.norm(w)
        return (w / n if n > 0 else w), n > 1e-9 * np.linalg.norm(v)

    p, pole_ok = across(pole - root)
    h = None
    if previous is not None:
        q, previous_ok = across(np.asarray(previous, dtype=float) - root)
        if previous_ok and not pole_ok:
            h = q
        elif previous_ok:
            if p.dot(q) < 0:
                p = -p
            angle = math.atan2(np.cross(q, p).dot(u), q.dot(p))
            sin_alpha = np.linalg.norm(np.cross(unit(pole - root), u))
            limit = math.radians(3.0) / math.sqrt(max(0.0, 1 - sin_alpha ** 2)) if sin_alpha < 1 else math.inf
            if abs(angle) <= limit:
                h = p
            else:
                t = math.copysign(limit, angle)
                h = unit(math.cos(t) * q + math.sin(t) * np.cross(u, q))
    if h is None and pole_ok:
        h = p
    for hint in (mid - root, tip - root):
        if h is None:
            w, ok = across(hint)
            h = w if ok else None
    if h is None:
        axis = np.eye(3)[int(np.argmin(np.abs(u)))]
        h, _ = across(axis)
    reach = min(max(d, abs(a - b)), a + b)
    cos_root = 1.0 if d >= a + b else ((1.0 if a > b else (-1.0 if a < b else 0.0)) if d <= abs(a - b) else
                                       float(np.clip((a * a + reach * reach - b * b) / (2 * a * reach), -1, 1)))
    new_mid = root + a * (cos_root * u + math.sqrt(1 - cos_root ** 2) * h)
    return new_mid, new_mid + b * unit(root + reach * u - new_mid)


# ------------------------------------------------------------------------------------------- two-bone
@settings(max_examples=400, deadline=None)
@given(two_bone_chains())
def test_two_bone_keeps_lengths_and_reaches(chain):
    root, mid, tip, target, pole, previous = chain
    new_mid, new_tip = two_bone_ik(root, mid, tip, target, pole, previous)
    a, b = np.linalg.norm(mid - root), np.linalg.norm(tip - mid)
    assert abs(np.linalg.norm(new_mid - root) - a) <= 1e-12 * a
    assert abs(np.linalg.norm(new_tip - new_mid) - b) <= 1e-12 * b
    d = np.linalg.norm(target - root)
    if abs(a - b) <= d <= a + b:
        assert np.linalg.norm(new_tip - target) <= 1e-9
    elif d > a + b:  # straight towards the target
        u = unit(target - root)
        assert np.linalg.norm(new_tip - (root + (a + b) * u)) <= 1e-9
        assert np.linalg.norm(new_mid - (root + a * u)) <= 1e-9
    elif d > 0:  # folded flat towards the target
        u = unit(target - root)
        assert np.linalg.norm(new_tip - (root + abs(a - b) * u)) <= 1e-9
        assert np.linalg.norm(np.cross(new_mid - root, u)) <= 1e-9


@settings(max_examples=300, deadline=None)
@given(two_bone_chains(), direction, st.floats(0.01, 0.99))
def test_two_bone_bends_towards_the_pole(chain, towards, where):
    root, mid, tip, _, pole, _ = chain
    a, b = np.linalg.norm(mid - root), np.linalg.norm(tip - mid)
    target = root + (abs(a - b) + where * (a + b - abs(a - b))) * towards
    assume(abs(a - b) + 1e-3 < np.linalg.norm(target - root) < a + b - 1e-3)
    assume(np.linalg.norm(np.cross(unit(pole - root), towards)) > 1e-3)
    new_mid, new_tip = two_bone_ik(root, mid, tip, target, pole)
    normal = unit(np.cross(new_mid - root, new_tip - root))
    assert abs(np.dot(normal, pole - root)) <= 1e-9 * np.linalg.norm(pole - root)
    u = unit(target - root)
    pole_across = (pole - root) - np.dot(pole - root, u) * u
    assert np.dot(new_mid - root, pole_across) > 0
    # last frame's answer as previous_mid: steady, the same plane and side
    again_mid, again_tip = two_bone_ik(root, mid, tip, target, pole, new_mid)
    assert np.allclose(again_mid, new_mid, rtol=0, atol=1e-12) and np.allclose(again_tip, new_tip, rtol=0, atol=1e-12)


def bend(root, mid, tip) -> np.ndarray:
    """The elbow's direction: the unit part of mid - root perpendicular to the root-tip line."""
    u = unit(tip - root)
    v = mid - root
    return unit(v - np.dot(v, u) * u)


def swing(miss_degrees: float, plane: np.ndarray, previous: bool = True, radius: float = 0.4):
    """The target swings 180 degrees about the root in 181 frames, in the plane spanned by the unit vectors
    ``plane[0]`` (start) and ``plane[1]``; the pole lies ``miss_degrees`` out of that plane from ``plane[1]`` (0:
    the target passes exactly through the root-pole line at frame 90). Returns the bend directions per frame and
    the smallest sine of the target-pole angle met."""
    root = np.array([0.3, 1.2, -0.4])
    start, middle = plane
    normal = np.cross(start, middle)
    m = math.radians(miss_degrees)
    pole = root + 0.8 * (math.cos(m) * middle + math.sin(m) * normal)
    mid, tip = root + 0.3 * normal, root + 0.55 * normal
    previous_mid, bends, closest = None, [], 1.0
    for frame in range(181):
        t = math.radians(frame)
        target = root + radius * (math.cos(t) * start + math.sin(t) * middle)
        closest = min(closest, np.linalg.norm(np.cross(unit(target - root), unit(pole - root))))
        new_mid, new_tip = two_bone_ik(root, mid, tip, target, pole, previous_mid)
        bends.append(bend(root, new_mid, new_tip))
        if previous:
            previous_mid = new_mid
    return bends, closest


PLANES = {"x-y": (np.array([1.0, 0, 0]), np.array([0, 1.0, 0])),
          "tilted": (unit(np.array([1.0, 0.2, -0.5])), unit(np.cross([0.3, -1.0, 0.4], [1.0, 0.2, -0.5])))}


@pytest.mark.parametrize("plane", PLANES)
@pytest.mark.parametrize("miss", [0.0, 1e-7, 0.01, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.5, 10.0, 12.5, 15.0, 20.0,
                                  30.0, 45.0, 70.0, 90.0])
def test_two_bone_swing_never_flips(plane, miss):
    bends, closest = swing(miss, PLANES[plane])
    if miss == 0.0:
        assert closest <= 1e-9  # the swing does pass through the degenerate line
    steps = [angle_degrees(p, q) for p, q in zip(bends, bends[1:])]
    assert max(steps) <= 5.0


def test_two_bone_swing_flips_without_previous_mid():
    """The test above is not vacuous: without previous_mid the elbow flips where the target passes the pole."""
    bends, _ = swing(0.0, PLANES["x-y"], previous=False)
    assert angle_degrees(bends[89], bends[91]) > 170.0


@settings(max_examples=200, deadline=None)
@given(two_bone_chains())
def test_two_bone_is_deterministic_and_batches(chain):
    first = two_bone_ik(*chain)
    second = two_bone_ik(*chain)
    assert all(np.array_equal(x, y) for x, y in zip(first, second))
    root, mid, tip, target, pole, previous = chain
    other = (root + 1, mid + 1, tip + 1, target * 0.5, pole - 1, None if previous is None else previous * 2)
    batch = [np.stack([c, o]) if c is not None else None for c, o in zip(chain, other)]
    batch_mid, batch_tip = two_bone_ik(*batch)
    assert np.array_equal(batch_mid[0], first[0]) and np.array_equal(batch_tip[0], first[1])
    single_mid, single_tip = two_bone_ik(*other)
    assert np.array_equal(batch_mid[1], single_mid) and np.array_equal(batch_tip[1], single_tip)


@settings(max_examples=300, deadline=None)
@given(two_bone_chains())
def test_two_bone_kernel_matches_reference(chain):
    new_mid, new_tip = two_bone_ik(*chain)
    ref_mid, ref_tip = ref_two_bone(*chain)
    assert np.allclose(new_mid, ref_mid, rtol=0, atol=1e-9) and np.allclose(new_tip, ref_tip, rtol=0, atol=1e-9)


def test_two_bone_degenerate_pole_falls_back():
    root, mid, tip = np.zeros(3), np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 1.0])
    target = np.array([1.5, 0.0, 0.0])
    on_line = np.array([3.0, 0.0, 0.0])
    # no previous mid: the current mid gives the plane (it bends towards +z)
    new_mid, new_tip = two_bone_ik(root, mid, tip, target, on_line)
    assert new_mid[2] > 0 and abs(new_mid[1]) <= 1e-12 and np.linalg.norm(new_tip - target) <= 1e-12
    # a previous mid wins over the current mid
    new_mid, _ = two_bone_ik(root, mid, tip, target, on_line, previous_mid=[0.5, -0.7, 0.0])
    assert new_mid[1] < 0 and abs(new_mid[2]) <= 1e-12
    # the pole on the root, current chain straight along the target line: the world axis least aligned (y)
    new_mid, new_tip = two_bone_ik(root, [1.0, 0, 0], [2.0, 0, 0], target, root)
    assert new_mid[1] > 0 and abs(new_mid[2]) <= 1e-12 and np.linalg.norm(new_tip - target) <= 1e-12
    # a target 1e-158 m from the root (its squared distance subnormal): still exact lengths
    new_mid, new_tip = two_bone_ik(root, mid, [0.0, 0.0, 1.5], [0.0, 0.0, 1.9e-158], mid)
    assert np.linalg.norm(new_mid - root) == 1.0 and np.linalg.norm(new_tip - new_mid) == 0.5
    # the target on the root, equal bones: folded onto the root, bent as the pole says
    new_mid, new_tip = two_bone_ik(root, [1.0, 0, 0], [2.0, 0, 0], root, [0.0, 0, -2])
    assert np.allclose(new_mid, [0, 0, -1], atol=1e-12) and np.allclose(new_tip, root, atol=1e-12)


@pytest.mark.parametrize("name, index", [("root", 0), ("mid", 1), ("tip", 2), ("target", 3), ("pole", 4),
                                         ("previous_mid", 5)])
def test_two_bone_bad_input_names_the_parameter(name, index):
    good = [np.zeros(3), np.array([1.0, 0, 0]), np.array([2.0, 0, 0]), np.array([1.0, 1, 0]),
            np.array([0.0, 5, 0]), np.array([1.0, 0.1, 0])]
    for bad in ([1.0, math.nan, 0.0], [1.0, 2.0], [[1.0, 2.0, 3.0]] * 2, "abc"):
        args = list(good)
        args[index] = bad
        with pytest.raises(ParameterError) as caught:
            two_bone_ik(*args)
        assert caught.value.parameter == name or (index == 0 and caught.value.parameter in ("root", "mid"))
    batch = [np.tile(g, (3, 1)) for g in good]
    batch[index][2, 1] = math.inf
    with pytest.raises(ParameterError) as caught:
        two_bone_ik(*batch)
    assert caught.value.parameter == f"{name}[2]"


def test_two_bone_zero_bones_are_refused():
    root, target, pole = np.zeros(3), np.array([1.0, 1, 0]), np.array([0.0, 5, 0])
    with pytest.raises(ParameterError) as caught:
        two_bone_ik(root, root, [1.0, 0, 0], target, pole)
    assert caught.value.parameter == "mid"
    with pytest.raises(ParameterError) as caught:
        two_bone_ik(root, [1.0, 0, 0], [1.0, 0, 0], target, pole)
    assert caught.value.parameter == "tip"


# ------------------------------------------------------------------------------------------- FABRIK
@st.composite
def chains(draw, max_joints: int = 6):
    k = draw(st.integers(2, max_joints))
    lengths = [draw(length) for _ in range(k - 1)]
    positions = [draw(point)]
    for bone in lengths:
        positions.append(positions[-1] + bone * draw(direction))
    return np.array(positions), np.array(lengths)


def reach_range(lengths: np.ndarray) -> tuple[float, float]:
    total = float(lengths.sum())
    return max(0.0, 2 * float(lengths.max()) - total), total


@settings(max_examples=300, deadline=None)
@given(chains(), direction, st.floats(0.0, 2.0))
def test_fabrik_keeps_lengths(chain, towards, how_far):
    positions, lengths = chain
    target = positions[0] + how_far * lengths.sum() * towards
    moved = fabrik(positions, target)
    assert np.array_equal(moved[0], positions[0])
    assert np.allclose(np.linalg.norm(np.diff(moved, axis=0), axis=1), lengths, rtol=1e-9, atol=0)


@settings(max_examples=300, deadline=None)
@given(chains(), direction, st.floats(0.25, 0.9))
def test_fabrik_reaches_reachable_targets(chain, towards, where):
    """Within reach, away from the ends of the reach range: FABRIK needs very many passes for a chain that must end
    nearly straight, or folded back near its root (10 000 and more from some starts)."""
    positions, lengths = chain
    near, far = reach_range(lengths)
    assume(far - near > 0.05)
    target = positions[0] + (near + where * (far - near)) * towards
    moved, iterations, reached = fabrik(positions, target, tolerance=1e-6, max_iterations=5000, return_info=True)
    assert reached and np.linalg.norm(moved[-1] - target) <= 1e-6


@settings(max_examples=100, deadline=None)
@given(chains(), direction, st.floats(1.001, 3.0))
def test_fabrik_unreachable_lies_straight(chain, towards, how_far):
    positions, lengths = chain
    target = positions[0] + how_far * lengths.sum() * towards
    moved, iterations, reached = fabrik(positions, target, return_info=True)
    expected = positions[0] + np.concatenate([[0.0], np.cumsum(lengths)])[:, None] * towards
    assert np.allclose(moved, expected, rtol=0, atol=1e-9)
    assert iterations == 0 and not reached


@st.composite
def limited_chains(draw):
    """A chain with a random limit per bone (free, hinge, cone from the previous bone, cone from a fixed
    direction), and a random target."""
    positions, lengths = draw(chains(max_joints=5))
    limits = []
    for _ in lengths:
        kind = draw(st.sampled_from(["free", "hinge", "cone", "fixed cone"]))
        if kind == "hinge":
            axis = draw(direction)
            reference = np.cross(axis, draw(direction))
            assume(np.linalg.norm(reference) > 0.1)
            low = draw(st.floats(-180, 180))
            limits.append(HingeLimit(axis, low, draw(st.floats(low, 180)), reference / np.linalg.norm(reference)))
        elif kind == "cone":
            limits.append(ConeLimit(draw(st.floats(0, 180))))
        elif kind == "fixed cone":
            limits.append(ConeLimit(draw(st.floats(0, 180)), reference=draw(direction)))
        else:
            limits.append(None)
    target = positions[0] + draw(st.floats(0, 1.3)) * lengths.sum() * draw(direction)
    return positions, lengths, limits, target


def check_limits(moved: np.ndarray, limits, tolerance_degrees: float = 1e-9) -> None:
    directions = [unit(d) for d in np.diff(moved, axis=0)]
    for i, (d, limit) in enumerate(zip(directions, limits)):
        if isinstance(limit, HingeLimit):
            axis, reference = np.array(limit.axis), np.array(limit.reference)
            out_of_plane = math.degrees(math.asin(min(1.0, abs(float(np.dot(d, axis))))))
            assert out_of_plane <= tolerance_degrees
            phi = math.degrees(math.atan2(np.dot(d, np.cross(axis, reference)), np.dot(d, reference)))
            inside = limit.min_degrees <= phi <= limit.max_degrees
            # else how far (round the circle: -180 and 180 are one direction) from the nearer end
            outside = min(abs((phi - end + 180) % 360 - 180) for end in (limit.min_degrees, limit.max_degrees))
            assert inside or outside <= tolerance_degrees
        elif isinstance(limit, ConeLimit) and (limit.reference is not None or i > 0):
            towards = np.array(limit.reference) if limit.reference is not None else directions[i - 1]
            assert angle_degrees(d, towards) <= limit.max_degrees + tolerance_degrees


@settings(max_examples=400, deadline=None)
@given(limited_chains())
def test_fabrik_respects_limits(case):
    positions, lengths, limits, target = case
    moved, iterations, reached = fabrik(positions, target, limits, return_info=True)
    check_limits(moved, limits)
    assert np.allclose(np.linalg.norm(np.diff(moved, axis=0), axis=1), lengths, rtol=1e-9, atol=0)
    assert np.array_equal(moved[0], positions[0])
    assert reached == (np.linalg.norm(moved[-1] - target) <= 1e-6)


def test_fabrik_with_limits_reaches_a_reachable_pose():
    """An elbow hinge and a wrist cone that the target allows: reached, and inside the limits."""
    positions = np.array([[0.0, 0, 0], [0.3, 0, 0], [0.55, 0, 0], [0.65, 0, 0]])
    limits = [ConeLimit(90, reference=(1, 0, 0)), HingeLimit((0, 0, 1), 0, 150, (1, 0, 0)), ConeLimit(40)]
    target = np.array([0.35, 0.3, 0.05])
    moved, iterations, reached = fabrik(positions, target, limits, max_iterations=200, return_info=True)
    assert reached and np.linalg.norm(moved[-1] - target) <= 1e-6
    check_limits(moved, limits)


# ------------------------------------------------------------------------------ FABRIK plain-Python reference
# the smallest length of a vector the references turned into a direction: rounding grows by about its inverse
CONDITION = [math.inf]


def ref_limit(d, limit, parent):
    """The nearest allowed unit direction to unit d under one bone's limit (parent: the previous bone's direction
    or None)."""
    if isinstance(limit, HingeLimit):
        axis, reference = np.array(limit.axis), np.array(limit.reference)
        side = np.cross(axis, reference)
        x, y = float(np.dot(d, reference)), float(np.dot(d, side))
        CONDITION[0] = min(CONDITION[0], math.hypot(x, y))
        phi = math.atan2(y, x) if x * x + y * y > 1e-18 else 0.0
        low, high = math.radians(limit.min_degrees), math.radians(limit.max_degrees)
        if not low <= phi <= high:
            up, down = (low - phi) % (2 * math.pi), (phi - high) % (2 * math.pi)
            # Both ends about as near (d opposite the middle of the allowed arc): a last-bit difference picks
            # the other end, so such cases are ill-conditioned like the short vectors below.
            CONDITION[0] = min(CONDITION[0], abs(up - down))
            phi = low if up <= down else high
        return math.cos(phi) * reference + math.sin(phi) * side
    if isinstance(limit, ConeLimit):
        c = np.array(limit.reference) if limit.reference is not None else parent
        if c is None:
            return d
        return ref_cone(d, c, math.radians(limit.max_degrees))
    return d


def ref_cone(d, c, angle):
    across = d - np.dot(d, c) * c
    across = across - np.dot(across, c) * c
    if math.atan2(norm(across), np.dot(d, c)) <= angle:
        return d
    CONDITION[0] = min(CONDITION[0], norm(across))
    if norm(across) > 1e-9:
        w = across / norm(across)
    else:
        axis = np.eye(3)[int(np.argmin(np.abs(c)))]
        w = axis - np.dot(axis, c) * c
        w = w - np.dot(w, c) * c
        w = w / norm(w)
    return math.cos(angle) * c + math.sin(angle) * w


def ref_fabrik(positions, target, limits, iterations, tolerance):
    """FABRIK as the kernel does it, for at most ``iterations`` passes: the straight chain at unreachable targets
    without limits, the stop on arrival, and the stall rule (a chain stalled on the root-target line is bent off
    it once, else the search ends)."""
    p = [np.array(x, dtype=float) for x in positions]
    target = np.asarray(target, dtype=float)
    lengths = [norm(p[i + 1] - p[i]) for i in range(len(p) - 1)]
    directions = [(p[i + 1] - p[i]) / lengths[i] for i in range(len(lengths))]
    root, total = p[0].copy(), sum(lengths)

    def along(i):  # unit as the kernels make it: divided by the length, then by the new length
        v = p[i + 1] - p[i]
        n = norm(v)
        CONDITION[0] = min(CONDITION[0], n / lengths[i])
        return v / n / norm(v / n) if n > 0 else directions[i]

    def forward():
        for i in range(len(lengths)):
            parent = directions[i - 1] if i > 0 else None
            directions[i] = ref_limit(along(i), limits[i], parent)
            p[i + 1] = p[i] + lengths[i] * directions[i]

    def unbend():
        line = unit(target - root) if norm(target - root) > 0 else directions[0]
        if any(norm(np.cross(x - root, line)) > 1e-9 * total for x in p[1:]):
            return False
        axis = np.eye(3)[int(np.argmin(np.abs(line)))]
        bend = unit(axis - np.dot(axis, line) * line)
        for j in range(1, len(p) - 1):
            p[j] = p[j] + 1e-3 * total * bend
        forward()
        return True

    free = all(limit is None or (i == 0 and isinstance(limit, ConeLimit) and limit.reference is None)
               for i, limit in enumerate(limits))
    if free and norm(target - root) >= total:
        u = (target - root) / norm(target - root)
        for i in range(len(lengths)):
            p[i + 1] = p[i] + lengths[i] * u
        return np.array(p)
    forward()
    bent = False
    for _ in range(iterations):
        if norm(p[-1] - target) <= tolerance:
            break
        last = p[-1].copy()
        p[-1] = target.copy()
        for i in range(len(lengths) - 1, -1, -1):
            d = along(i)
            child = limits[i + 1] if i + 1 < len(lengths) else None
            if isinstance(child, ConeLimit) and child.reference is None:
                d = ref_cone(d, directions[i + 1], math.radians(child.max_degrees))
            own = limits[i]
            if isinstance(own, HingeLimit) or (isinstance(own, ConeLimit) and own.reference is not None):
                d = ref_limit(d, own, None)
            directions[i] = d
            p[i] = p[i + 1] - lengths[i] * d
        p[0] = root.copy()
        forward()
        if norm(p[-1] - last) <= 1e-6 * tolerance:
            if bent or len(p) == 2 or not unbend():
                break
            bent = True
    return np.array(p)


def norm(v) -> float:
    """Length as the kernels take it (numpy's norm may differ in the last bit)."""
    return math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])


@settings(max_examples=300, deadline=None)
@given(limited_chains(), st.integers(1, 3))
def test_fabrik_kernel_matches_reference(case, passes):
    positions, lengths, limits, target = case
    moved, iterations, reached = fabrik(positions, target, limits, tolerance=1e-6, max_iterations=passes,
                                        return_info=True)
    CONDITION[0] = math.inf
    expected = ref_fabrik(positions, target, limits, passes, 1e-6)
    # where a direction came from a very short vector (a cone's axis nearly opposite the wanted direction, a bone
    # folded onto itself), the kernel's and numpy's last-bit differences grow by its inverse every pass; where a
    # hinge's two ends are equally near, they pick an end at random
    assume(CONDITION[0] > 1e-2)
    assert np.allclose(moved, expected, rtol=0, atol=1e-9)


def test_fabrik_is_deterministic():
    rng = np.random.default_rng(5)
    positions = np.cumsum(rng.normal(size=(6, 3)), axis=0)
    limits = [None, HingeLimit((0, 1, 0), -30, 120, (1, 0, 0)), ConeLimit(50), None, ConeLimit(20, (0, 0, 1))]
    first = fabrik(positions, [1.0, 2.0, 0.5], limits)
    second = fabrik(positions.copy(), [1.0, 2.0, 0.5], list(limits))
    assert np.array_equal(first, second)


def test_fabrik_leaves_its_input_alone():
    positions = np.array([[0.0, 0, 0], [1.0, 0, 0], [2.0, 0, 0]])
    kept = positions.copy()
    fabrik(positions, [0.5, 1.0, 0])
    assert np.array_equal(positions, kept)


def test_fabrik_bad_input_names_the_parameter():
    good = np.array([[0.0, 0, 0], [1.0, 0, 0], [2.0, 0, 0]])
    cases = [
        ("positions", dict(positions=good[:1])),
        ("positions", dict(positions=good[:, :2])),
        ("positions", dict(positions=np.where(good == 1.0, math.nan, good))),
        ("positions", dict(positions=good[[0, 1, 1]])),  # a zero-length bone
        ("positions", dict(positions="abc")),
        ("target", dict(target=[1.0, 2.0])),
        ("target", dict(target=[1.0, math.inf, 0.0])),
        ("limits", dict(limits=[None])),
        ("limits[1]", dict(limits=[None, 30.0])),
        ("tolerance", dict(tolerance=0.0)),
        ("tolerance", dict(tolerance=math.nan)),
        ("max_iterations", dict(max_iterations=-1)),
        ("max_iterations", dict(max_iterations=2.5)),
    ]
    for name, change in cases:
        args = dict(positions=good, target=[1.0, 1.0, 0.0]) | change
        with pytest.raises(ParameterError) as caught:
            fabrik(**args)
        assert caught.value.parameter == name, change


def test_limits_validate():
    with pytest.raises(ParameterError, match="axis"):
        HingeLimit((0, 0, 0), 0, 90, (1, 0, 0))
    with pytest.raises(ParameterError, match="reference"):
        HingeLimit((0, 0, 1), 0, 90, (1, 0, 1))
    with pytest.raises(ParameterError, match="max_degrees"):
        HingeLimit((0, 0, 1), 90, 0, (1, 0, 0))
    with pytest.raises(ParameterError, match="min_degrees"):
        HingeLimit((0, 0, 1), -200, 0, (1, 0, 0))
    with pytest.raises(ParameterError, match="max_degrees"):
        ConeLimit(181)
    with pytest.raises(ParameterError, match="reference"):
        ConeLimit(10, reference=(0, math.nan, 1))
    hinge = HingeLimit((0, 0, 2), -45, 45, (1, 0, 1e-8))
    assert abs(np.dot(hinge.axis, hinge.reference)) <= 1e-16 and hinge.axis == (0.0, 0.0, 1.0)
    assert ik.__all__ == ["two_bone_ik", "fabrik", "HingeLimit", "ConeLimit"]


def test_kernel_constants_match_the_documentation():
    assert kernels.MIN_BONE == 1e-9 and math.isclose(math.degrees(kernels.TURN), 3.0)
