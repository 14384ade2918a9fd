"""Skeleton, Pose and the forward-kinematics kernel against a plain-Python reference."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from voxelworld.errors import ParameterError
from voxelworld.motion import quaternions as quat
from voxelworld.motion.skeleton import Pose, Skeleton


def random_skeleton(rng, joints, frames=None):
    """A random tree (parents before children) and a random pose, single or batched."""
    parents = [-1] + [int(rng.integers(0, j)) for j in range(1, joints)]
    lead = (joints,) if frames is None else (frames, joints)
    rotation = Rotation.random(int(np.prod(lead)), random_state=rng).as_quat().reshape(lead + (4,))
    pose = Pose(rng.normal(size=lead + (3,)), rotation, rng.uniform(0.5, 2.0, size=lead + (3,)))
    rest = pose if frames is None else pose.frame(0)
    names = [f"j{j}" for j in range(joints)]
    return Skeleton(names, parents, rest), pose


def reference_world(parents, translation, rotation, scale):
    """World matrices, one joint at a time with plain Python lists (no numpy in the loop)."""
    world = []
    for j, parent in enumerate(parents):
        x, y, z, w = (float(c) for c in rotation[j])
        r = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
             [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
             [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
        local = [[r[i][k] * float(scale[j][k]) for k in range(3)] + [float(translation[j][i])] for i in range(3)]
        local.append([0.0, 0.0, 0.0, 1.0])
        if parent < 0:
            world.append(local)
        else:
            p = world[parent]
            world.append([[sum(p[i][m] * local[m][k] for m in range(4)) for k in range(4)] for i in range(4)])
    return np.array(world)


@pytest.mark.parametrize("seed", range(6))
def test_kernel_matches_python_reference(seed):
    rng = np.random.default_rng(seed)
    skeleton, pose = random_skeleton(rng, int(rng.integers(1, 12)))
    expected = reference_world(skeleton.parents, pose.translation, pose.rotation, pose.scale)
    assert np.allclose(skeleton.world_transforms(pose), expected, atol=1e-12)


def test_batched_equals_per_frame_and_is_deterministic():
    rng = np.random.default_rng(10)
    skeleton, batch = random_skeleton(rng, 9, frames=5)
    together = skeleton.world_transforms(batch)
    assert together.shape == (5, 9, 4, 4)
    for f in range(5):
        assert np.array_equal(together[f], skeleton.world_transforms(batch.frame(f)))
    assert np.array_equal(together, skeleton.world_transforms(batch))
    assert skeleton.world_positions(batch).shape == (5, 9, 3)


def test_world_positions_follow_rotations_of_an_arm():
    rest = Pose([[0, 0, 0], [1, 0, 0], [1, 0, 0]], [[0, 0, 0, 1]] * 3, [[1, 1, 1]] * 3)
    arm = Skeleton(["shoulder", "elbow", "wrist"], [-1, 0, 1], rest)
    bent = dataclasses.replace(rest, rotation=np.stack([quat.IDENTITY, quat.from_axis_angle([0, 0, 1], 90.0),
                                                        quat.IDENTITY]))
    assert np.allclose(arm.world_positions(bent), [[0, 0, 0], [1, 0, 0], [1, 1, 0]])
    assert np.allclose(arm.bone_lengths(bent), [0, 1, 1])
    assert np.allclose(arm.world_positions(), [[0, 0, 0], [1, 0, 0], [2, 0, 0]])


def test_bone_lengths_include_parent_scale():
    rest = Pose([[0, 0, 0], [0, 1, 0]], [[0, 0, 0, 1]] * 2, [[2, 2, 2], [1, 1, 1]])
    assert np.allclose(Skeleton(["a", "b"], [-1, 0], rest).bone_lengths(), [0.0, 2.0])


def test_index_chain_and_names():
    rest = Pose.identity(5)
    skeleton = Skeleton(["hips", "spine", "arm", "hand", "leg"], [-1, 0, 1, 2, 0], rest)
    assert skeleton.index("hand") == 3 and skeleton.index(4) == 4
    assert skeleton.chain("spine", "hand") == [1, 2, 3]
    assert skeleton.chain("hand", "hand") == [3]
    assert skeleton.roots == [0]
    with pytest.raises(ParameterError) as error:
        skeleton.index("tail")
    assert error.value.parameter == "name" and "hips" in error.value.legal
    with pytest.raises(ParameterError) as error:
        skeleton.chain("leg", "hand")
    assert error.value.parameter == "from_joint"


def test_pose_is_read_only_copy():
    translation = np.zeros((2, 3))
    pose = Pose(translation, [[0, 0, 0, 1]] * 2, np.ones((2, 3)))
    translation[0, 0] = 5.0
    assert pose.translation[0, 0] == 0.0
    with pytest.raises(ValueError):
        pose.translation[0, 0] = 1.0


@pytest.mark.parametrize("kwargs, parameter", [
    (dict(translation=np.zeros((2, 2)), rotation=[[0, 0, 0, 1]] * 2, scale=np.ones((2, 3))), "translation"),
    (dict(translation=np.zeros((2, 3)), rotation=[[0, 0, 0, 1]] * 3, scale=np.ones((2, 3))), "rotation"),
    (dict(translation=np.zeros((2, 3)), rotation=[[0, 0, 0, 2]] * 2, scale=np.ones((2, 3))), "rotation"),
    (dict(translation=np.zeros((2, 3)), rotation=[[0, 0, 0, 1]] * 2, scale=np.zeros((2, 3))), "scale"),
    (dict(translation=[[np.nan, 0, 0], [0, 0, 0]], rotation=[[0, 0, 0, 1]] * 2, scale=np.ones((2, 3))),
     "translation"),
    (dict(translation=np.zeros((2, 3)), rotation=[[0, 0, np.nan, 1]] * 2, scale=np.ones((2, 3))), "rotation"),
])
def test_bad_pose_names_the_parameter(kwargs, parameter):
    with pytest.raises(ParameterError) as error:
        Pose(**kwargs)
    assert error.value.parameter == parameter


@pytest.mark.parametrize("names, parents, parameter", [
    (["a", "b"], [-1, 1], "parents"),        # a joint its own parent
    (["a", "b", "c"], [-1, 2, 0], "parents"),  # child listed before its parent
    (["a", "b"], [-1], "parents"),
    (["a", "b"], [-1, 0.5], "parents"),
    (["a", "a"], [-1, 0], "names"),
    (["a", ""], [-1, 0], "names"),
])
def test_bad_skeleton_names_the_parameter(names, parents, parameter):
    with pytest.raises(ParameterError) as error:
        Skeleton(names, parents, Pose.identity(len(names)))
    assert error.value.parameter == parameter


def test_pose_of_the_wrong_size_is_refused():
    skeleton = Skeleton(["a", "b"], [-1, 0], Pose.identity(2))
    with pytest.raises(ParameterError) as error:
        skeleton.world_transforms(Pose.identity(3))
    assert error.value.parameter == "pose"
    with pytest.raises(ParameterError) as error:
        Skeleton(["a", "b"], [-1, 0], Pose.identity(3))
    assert error.value.parameter == "rest"
