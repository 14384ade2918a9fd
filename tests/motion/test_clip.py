"""Clips: interpolation against plain-Python references, per-joint clocks, looping, JSON, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from voxelworld.errors import FormatError, ParameterError
from voxelworld.motion import quaternions as quat
from voxelworld.motion.clip import Channel, Clip
from voxelworld.motion.skeleton import Pose, Skeleton

NAMES = ["hips", "spine", "arm", "hand"]


def skeleton():
    rest = Pose([[0, 1, 0], [0, 0.2, 0], [0.3, 0, 0], [0.3, 0, 0]], [[0, 0, 0, 1]] * 4, [[1, 1, 1]] * 4)
    return Skeleton(NAMES, [-1, 0, 1, 2], rest)


def random_channel(rng, width, interpolation, keys=5):
    times = np.cumsum(rng.uniform(0.1, 0.5, size=keys))
    if width == 4:
        values = Rotation.random(keys * 3, random_state=rng).as_quat().reshape(keys, 3, 4)
    else:
        values = rng.normal(size=(keys, 3, width))
    return Channel(times, values if interpolation == "CUBICSPLINE" else values[:, 1], interpolation)


def reference_value(channel, t, rotation):
    """glTF interpolation of one channel, written out in plain Python."""
    times, values = list(channel.times), channel.values
    cubic = channel.interpolation == "CUBICSPLINE"
    value = (lambda k: values[k, 1]) if cubic else (lambda k: values[k])
    if t <= times[0]:
        return value(0)
    if t >= times[-1]:
        return value(len(times) - 1)
    k = max(i for i in range(len(times)) if times[i] <= t)
    u = (t - times[k]) / (times[k + 1] - times[k])
    if channel.interpolation == "STEP":
        return value(k)
    if channel.interpolation == "LINEAR":
        if rotation:
            return quat.slerp(value(k), value(k + 1), u)
        return value(k) * (1 - u) + value(k + 1) * u
    dt = times[k + 1] - times[k]
    p = ((2 * u**3 - 3 * u**2 + 1) * values[k, 1] + (u**3 - 2 * u**2 + u) * dt * values[k, 2]
         + (-2 * u**3 + 3 * u**2) * values[k + 1, 1] + (u**3 - u**2) * dt * values[k + 1, 0])
    return p / np.linalg.norm(p) if rotation else p


@pytest.mark.parametrize("interpolation", ["LINEAR", "STEP", "CUBICSPLINE"])
def test_sampling_matches_reference(interpolation):
    rng = np.random.default_rng(["LINEAR", "STEP", "CUBICSPLINE"].index(interpolation))
    channels = {"spine": {"translation": random_channel(rng, 3, interpolation),
                          "rotation": random_channel(rng, 4, interpolation)},
                "hand": {"scale": random_channel(rng, 3, interpolation),
                         "rotation": random_channel(rng, 4, interpolation)}}
    clip = Clip("test", channels)
    body = skeleton()
    for t in np.concatenate([rng.uniform(-0.5, clip.duration + 0.5, size=40), channels["spine"]["rotation"].times]):
        pose = clip.sample(body, t)
        tc = min(max(t, 0.0), clip.duration)
        for joint, by_path in channels.items():
            j = body.index(joint)
            for path, channel in by_path.items():
                got = getattr(pose, path)[j]
                assert np.allclose(got, reference_value(channel, tc, path == "rotation"), atol=1e-12), (path, t)
        assert np.array_equal(pose.translation[0], body.rest.translation[0])  # no channel: rest
        assert np.array_equal(pose.rotation[2], body.rest.rotation[2])


def test_key_times_give_key_values_exactly():
    rng = np.random.default_rng(4)
    channel = random_channel(rng, 4, "LINEAR", keys=8)
    clip = Clip("keys", {"arm": {"rotation": channel}})
    for t, value in zip(channel.times, channel.values):
        assert np.array_equal(clip.sample(skeleton(), t).rotation[2], value)


def test_per_joint_clocks_sample_each_joint_at_its_own_time():
    rng = np.random.default_rng(5)
    channels = {name: {"rotation": random_channel(rng, 4, "LINEAR")} for name in NAMES}
    clip = Clip("clocks", channels)
    times = np.array([0.2, 0.7, 1.1, 1.6])
    together = clip.sample(skeleton(), times)
    for j, t in enumerate(times):
        assert np.array_equal(together.rotation[j], clip.sample(skeleton(), t).rotation[j])


def test_loop_wraps_and_clamp_holds():
    clip = Clip.from_keys("slide", {"hips": {"translation": ([0.0, 2.0], [[0, 0, 0], [2, 0, 0]])}})
    body = skeleton()
    assert np.allclose(clip.sample(body, 2.5, loop=True).translation[0], [0.5, 0, 0])
    assert np.allclose(clip.sample(body, -0.5, loop=True).translation[0], [1.5, 0, 0])
    assert np.allclose(clip.sample(body, 2.5).translation[0], [2, 0, 0])
    assert np.allclose(clip.sample(body, -1.0).translation[0], [0, 0, 0])


def test_sample_frames_equals_single_samples():
    rng = np.random.default_rng(6)
    clip = Clip("frames", {name: {"rotation": random_channel(rng, 4, "CUBICSPLINE"),
                                  "translation": random_channel(rng, 3, "LINEAR")} for name in NAMES})
    times = np.linspace(0.0, clip.duration, 9)
    batch = clip.sample_frames(skeleton(), times)
    for f, t in enumerate(times):
        single = clip.sample(skeleton(), t)
        assert np.array_equal(batch.rotation[f], single.rotation)
        assert np.array_equal(batch.translation[f], single.translation)
    per_joint = np.tile(times[:, None], (1, 4))
    assert np.array_equal(clip.sample_frames(skeleton(), per_joint).rotation, batch.rotation)


def test_json_round_trip_is_exact():
    rng = np.random.default_rng(7)
    clip = Clip("walk", {"spine": {"rotation": random_channel(rng, 4, "CUBICSPLINE")},
                         "hips": {"translation": random_channel(rng, 3, "STEP"),
                                  "scale": random_channel(rng, 3, "LINEAR")}})
    again = Clip.from_json(clip.to_json())
    assert again.name == "walk" and again.joint_names == ("spine", "hips")
    for joint, by_path in clip.channels.items():
        for path, channel in by_path.items():
            other = again.channels[joint][path]
            assert other.interpolation == channel.interpolation
            assert np.array_equal(other.times, channel.times) and np.array_equal(other.values, channel.values)
    assert again.to_json() == clip.to_json()


@pytest.mark.parametrize("text, fragment", [
    ("not json", "not valid JSON"),
    ('{"format": "other", "version": 1}', "format"),
    ('{"format": "voxelworld-clip", "version": 9, "name": "x", "joints": {}}', "version"),
    ('{"format": "voxelworld-clip", "version": 1, "name": "x", "joints": {"a": {"rotation": {"times": [0]}}}}',
     "'times' and 'values'"),
    ('{"format": "voxelworld-clip", "version": 1, "name": "x", "joints": '
     '{"a": {"rotation": {"times": [1, 0], "values": [[0,0,0,1],[0,0,0,1]]}}}}', "times"),
    ('{"format": "voxelworld-clip", "version": 1, "name": "x", "joints": '
     '{"a": {"rotation": {"times": [0], "values": [[0,0,1]]}}}}', "rotation"),
])
def test_broken_json_raises_format_error(text, fragment):
    with pytest.raises(FormatError, match=fragment):
        Clip.from_json(text)


@pytest.mark.parametrize("make, parameter", [
    (lambda: Channel([0.0, 0.0], [[0, 0, 0], [1, 1, 1]]), "times"),
    (lambda: Channel([-1.0, 0.0], [[0, 0, 0], [1, 1, 1]]), "times"),
    (lambda: Channel([0.0, np.nan], [[0, 0, 0], [1, 1, 1]]), "times"),
    (lambda: Channel([0.0, 1.0], [[0, 0, 0]]), "values"),
    (lambda: Channel([0.0, 1.0], [[0, 0, 0], [np.nan, 0, 0]]), "values"),
    (lambda: Channel([0.0, 1.0], [[0, 0, 0], [1, 1, 1]], "CUBIC"), "interpolation"),
    (lambda: Channel([0.0, 1.0], [[0, 0, 0], [1, 1, 1]], "CUBICSPLINE"), "values"),
    (lambda: Clip.from_keys("x", {"a": {"rotation": ([0.0], [[0, 0, 0]])}}), "channels['a']['rotation']"),
    (lambda: Clip.from_keys("x", {"a": {"position": ([0.0], [[0, 0, 0]])}}), "channels['a']"),
    (lambda: Clip.from_keys("x", {"a": {"rotation": [0.0]}}), "keys['a']['rotation']"),
    (lambda: Clip.from_keys("x", {"nobody": {"scale": ([0.0], [[1, 1, 1]])}}).sample(skeleton(), 0.0),
     "skeleton"),
    (lambda: Clip.from_keys("x", {"hips": {"scale": ([0.0], [[1, 1, 1]])}}).sample(skeleton(), [0.0, 1.0]), "t"),
    (lambda: Clip.from_keys("x", {"hips": {"scale": ([0.0], [[1, 1, 1]])}}).sample(skeleton(), np.nan), "t"),
    (lambda: Clip.from_keys("x", {"hips": {"scale": ([0.0], [[1, 1, 1]])}}).sample_frames(skeleton(), 0.0),
     "times"),
])
def test_bad_input_names_the_parameter(make, parameter):
    with pytest.raises(ParameterError) as error:
        make()
    assert error.value.parameter == parameter
