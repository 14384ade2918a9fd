"""Quaternion functions against scipy.spatial.transform.Rotation on random input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from voxelworld.errors import ParameterError
from voxelworld.motion import quaternions as quat


def _random(rng, n):
    return Rotation.random(n, random_state=rng).as_quat()


def _same_rotation(a, b, atol=1e-12):
    """q and -q are the same rotation."""
    return np.allclose(a, b, atol=atol) or np.allclose(a, -b, atol=atol)


def test_multiply_matches_scipy_composition():
    rng = np.random.default_rng(1)
    a, b = _random(rng, 50), _random(rng, 50)
    expected = (Rotation.from_quat(a) * Rotation.from_quat(b)).as_quat()
    got = quat.multiply(a, b)
    assert all(_same_rotation(g, e) for g, e in zip(got, expected))


def test_rotate_and_to_matrix_match_scipy():
    rng = np.random.default_rng(2)
    q, v = _random(rng, 50), rng.normal(size=(50, 3))
    assert np.allclose(quat.rotate(q, v), Rotation.from_quat(q).apply(v), atol=1e-12)
    assert np.allclose(quat.to_matrix(q), Rotation.from_quat(q).as_matrix(), atol=1e-12)


def test_from_matrix_round_trips_and_matches_scipy():
    rng = np.random.default_rng(3)
    q = _random(rng, 200)
    got = quat.from_matrix(Rotation.from_quat(q).as_matrix())
    assert np.all(got[:, 3] >= 0.0)
    assert all(_same_rotation(g, e, 1e-10) for g, e in zip(got, q))
    # Rotations by 180 degrees (w = 0) are the hard case of the trace method.
    flips = np.array([[1.0, 0, 0, 0], [0, 1.0, 0, 0], [0, 0, 1.0, 0], [0.6, 0.8, 0, 0]])
    got = quat.from_matrix(Rotation.from_quat(flips).as_matrix())
    assert np.allclose(got, flips, atol=1e-12)


def test_from_axis_angle_matches_scipy_rotvec():
    rng = np.random.default_rng(4)
    axis = rng.normal(size=(30, 3))
    degrees = rng.uniform(-360, 360, size=30)
    rotvec = axis / np.linalg.norm(axis, axis=1, keepdims=True) * np.radians(degrees)[:, None]
    expected = Rotation.from_rotvec(rotvec).as_quat()
    assert all(_same_rotation(g, e) for g, e in zip(quat.from_axis_angle(axis, degrees), expected))
    assert quat.from_axis_angle([0, 1, 0], [10.0, 20.0]).shape == (2, 4)


def test_conjugate_inverts_and_normalize_scales():
    rng = np.random.default_rng(5)
    q = _random(rng, 20)
    assert np.allclose(quat.multiply(q, quat.conjugate(q)), [0, 0, 0, 1], atol=1e-12)
    assert np.allclose(quat.normalize(q * 3.0), q)


def test_between_takes_u_to_v_including_opposites():
    rng = np.random.default_rng(6)
    u, v = rng.normal(size=(40, 3)), rng.normal(size=(40, 3))
    q = quat.between(u, v)
    unit_v = v / np.linalg.norm(v, axis=1, keepdims=True)
    assert np.allclose(quat.rotate(q, u / np.linalg.norm(u, axis=1, keepdims=True)), unit_v, atol=1e-12)
    # The shortest rotation: its angle equals the angle between the directions.
    cos = np.sum(u * v, axis=1) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1)
    assert np.allclose(quat.angle_degrees(quat.IDENTITY, q), np.degrees(np.arccos(cos)), atol=1e-9)
    for direction in ([1.0, 0, 0], [0, 1.0, 0], [0.3, -0.2, 0.9]):
        flip = quat.between(direction, -np.asarray(direction))
        assert np.allclose(quat.rotate(flip, direction), -np.asarray(direction), atol=1e-12)
        assert np.array_equal(flip, quat.between(direction, -np.asarray(direction)))


def test_slerp_matches_scipy_and_ends_exactly():
    from scipy.spatial.transform import Slerp

    rng = np.random.default_rng(7)
    for a, b in zip(_random(rng, 20), _random(rng, 20)):
        t = np.linspace(0.0, 1.0, 7)
        expected = Slerp([0.0, 1.0], Rotation.from_quat([a, b]))(t).as_quat()
        got = quat.slerp(a, b, t)
        assert all(_same_rotation(g, e, 1e-10) for g, e in zip(got, expected))
        assert np.array_equal(quat.slerp(a, b, 0.0), a)
        signed_b = b if np.dot(a, b) >= 0 else -b
        assert np.array_equal(quat.slerp(a, b, 1.0), signed_b)


def test_slerp_is_deterministic_at_antipodes():
    a = quat.from_axis_angle([0.2, 1.0, 0.0], 40.0)
    for t in (0.0, 0.3, 1.0):
        assert np.allclose(quat.slerp(a, -a, t), a, atol=1e-15)
    assert np.array_equal(quat.slerp(a, -a, 0.3), quat.slerp(a, -a, 0.3))


def test_angle_degrees_matches_scipy_magnitude():
    rng = np.random.default_rng(8)
    a, b = _random(rng, 30), _random(rng, 30)
    expected = np.degrees((Rotation.from_quat(a).inv() * Rotation.from_quat(b)).magnitude())
    assert np.allclose(quat.angle_degrees(a, b), expected, atol=1e-9)
    assert np.allclose(quat.angle_degrees(a, -a), 0.0, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda: quat.multiply([0, 0, 1], [0, 0, 0, 1]),
    lambda: quat.rotate([0, 0, 0, 1], [1, 2]),
    lambda: quat.normalize([0, 0, 0, 0]),
    lambda: quat.normalize([np.nan, 0, 0, 1]),
    lambda: quat.from_axis_angle([0, 0, 0], 10.0),
    lambda: quat.from_axis_angle([0, 1, 0], np.nan),
    lambda: quat.between([0, 0, 0], [1, 0, 0]),
    lambda: quat.from_matrix(np.eye(4)),
])
def test_bad_input_raises_parameter_error(call):
    with pytest.raises(ParameterError):
        call()
