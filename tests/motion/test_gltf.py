"""glTF loading: the Khronos samples (keys read independently with pygltflib), a synthetic file, skinning."""

from __future__ import annotations

import json

import numpy as np
import pygltflib
import pytest

from voxelworld.errors import FormatError, ParameterError
from voxelworld.motion import quaternions as quat
from voxelworld.motion.gltf import load_gltf, skin
from voxelworld.motion.skeleton import Pose

from ..assets import CESIUM_MAN as CESIUM
from ..assets import SIMPLE_SKIN as SIMPLE


def read_floats(document, blob_of, index):
    """An accessor of float32 data, read by hand (not through the loader): (count, width) float64."""
    accessor = document.accessors[index]
    view = document.bufferViews[accessor.bufferView]
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4, "MAT4": 16}[accessor.type]
    assert accessor.componentType == pygltflib.FLOAT
    stride = view.byteStride or 4 * width
    data = blob_of(view.buffer)
    start = (view.byteOffset or 0) + (accessor.byteOffset or 0)
    rows = [np.frombuffer(data, "<f4", width, start + i * stride) for i in range(accessor.count)]
    return np.array(rows, dtype=np.float64)


def test_cesium_man_skeleton():
    character = load_gltf(CESIUM)
    skeleton = character.skeleton
    assert len(skeleton) == 19
    assert skeleton.names[0] == "Skeleton_torso_joint_1"
    assert all(p < j for j, p in enumerate(skeleton.parents))
    assert skeleton.chain("Skeleton_arm_joint_R", "Skeleton_arm_joint_R__3_") == [
        skeleton.index(n) for n in ("Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_")]
    document = pygltflib.GLTF2().load(str(CESIUM))
    assert sorted(character.joint_nodes.tolist()) == sorted(document.skins[0].joints)
    for j, node in enumerate(character.joint_nodes):
        assert document.nodes[node].name == skeleton.names[j]
        assert np.allclose(skeleton.rest.translation[j], document.nodes[node].translation)
    assert character.mesh.positions.shape == (3273, 3) and character.mesh.indices.shape == (4672, 3)


def test_cesium_man_walk_keys_equal_the_file():
    character = load_gltf(CESIUM)
    document = pygltflib.GLTF2().load(str(CESIUM))
    blob = document.binary_blob()
    (clip,) = character.clips.values()
    assert len(clip.joint_names) == 19
    animation = document.animations[0]
    checked = 0
    for channel in animation.channels:
        sampler = animation.samplers[channel.sampler]
        times = read_floats(document, lambda _: blob, sampler.input)[:, 0]
        values = read_floats(document, lambda _: blob, sampler.output)
        joint = character.skeleton.index(document.nodes[channel.target.node].name)
        for k in (0, 1, 17, len(times) - 1):
            pose = clip.sample(character.skeleton, times[k])
            assert np.array_equal(getattr(pose, channel.target.path)[joint], values[k])
            checked += 1
    assert checked == 57 * 4
    assert clip.duration == pytest.approx(2.0)


def test_cesium_man_rest_times_inverse_bind_is_identity():
    character = load_gltf(CESIUM)
    world = character.skeleton.world_transforms()
    assert np.allclose(world @ character.inverse_bind, np.eye(4), atol=1e-5)
    # So the rest pose skins the mesh onto itself, placed by the Z-up -> Y-up root transform.
    placed = character.mesh.positions @ character.root_transform[:3, :3].T + character.root_transform[:3, 3]
    assert np.allclose(skin(character), placed, atol=1e-5)
    assert np.ptp(skin(character)[:, 1]) == pytest.approx(1.5, abs=0.05)  # about 1.5 m tall, up is +y


def test_cesium_man_walk_moves_the_mesh_deterministically():
    character = load_gltf(CESIUM)
    (clip,) = character.clips.values()
    pose = clip.sample(character.skeleton, 1.0)
    first, second = skin(character, pose), skin(character, pose)
    assert np.array_equal(first, second)
    assert np.abs(first - skin(character)).max() > 0.05


def test_simple_skin_skins_as_the_joint_rotation_says():
    character = load_gltf(SIMPLE)
    assert character.skeleton.names == ("node1", "node2") and list(character.skeleton.parents) == [-1, 0]
    (clip,) = character.clips.values()
    bind = character.mesh.positions
    assert np.allclose(skin(character, clip.sample(character.skeleton, 0.0)), bind, atol=1e-12)
    document = pygltflib.GLTF2().load(str(SIMPLE))
    import base64
    blob_of = lambda b: base64.b64decode(document.buffers[b].uri.split(",", 1)[1])  # noqa: E731
    sampler = document.animations[0].samplers[0]
    times = read_floats(document, blob_of, sampler.input)[:, 0]
    keys = read_floats(document, blob_of, sampler.output)
    k = int(np.argmax(keys[:, 2]))  # the key turning joint 2 furthest about +z
    q = keys[k] / np.linalg.norm(keys[k])
    moved = skin(character, clip.sample(character.skeleton, times[k]))
    # Vertex = w0 * bind + w1 * (rotation of bind about the elbow at y = 1).
    elbow = np.array([0.0, 1.0, 0.0])
    w = character.mesh.weights
    joint_of = character.mesh.joints
    weight_elbow = np.where(joint_of == 1, w, 0.0).sum(axis=1, keepdims=True)
    expected = (1 - weight_elbow) * bind + weight_elbow * (quat.rotate(q, bind - elbow) + elbow)
    assert np.allclose(moved, expected, atol=1e-6)
    assert np.abs(moved - bind).max() > 0.5


def _synthetic(tmp_path, *, sparse=False):
    """A small .gltf with an external buffer: joints listed child first, a matrix node, interleaved vertex data
    with normalized weights, CUBICSPLINE / STEP channels, int16-normalized rotations and a non-joint channel."""
    blob = bytearray()

    def add(array):
        offset = len(blob)
        blob.extend(np.ascontiguousarray(array).tobytes())
        while len(blob) % 4:
            blob.append(0)
        return offset

    hips_rotation = quat.to_matrix(quat.from_axis_angle([0, 1, 0], 90.0))
    hips_matrix = np.eye(4)
    hips_matrix[:3, :3] = hips_rotation
    hips_matrix[:3, 3] = [0.0, 1.0, 0.0]
    # Interleaved vertices: POSITION (3 x f4), JOINTS_0 (4 x u1), WEIGHTS_0 (4 x u1, normalized): stride 20.
    vertex = np.dtype([("p", "<f4", 3), ("j", "u1", 4), ("w", "u1", 4)])
    vertices = np.zeros(3, vertex)
    vertices["p"] = [[0, 1, 0], [0, 2, 0], [0.5, 2, 0]]
    vertices["j"] = [[0, 1, 0, 0], [1, 2, 0, 0], [2, 0, 0, 0]]  # file joint order: hand, arm, hips
    vertices["w"] = [[255, 0, 0, 0], [128, 127, 0, 0], [255, 0, 0, 0]]
    vertex_offset = add(vertices)
    index_offset = add(np.array([0, 1, 2], "<u2"))
    # Inverse bind matrices in file joint order (hand, arm, hips), skeleton space (no root placement).
    hips_world = hips_matrix
    arm_world = hips_world @ np.diag([2.0, 2.0, 2.0, 1.0])
    arm_world[:3, 3] = hips_world[:3, 3] + hips_rotation @ [0, 0.5, 0]
    hand_local = np.eye(4)
    hand_local[:3, 3] = [0, 0.25, 0]
    hand_world = arm_world @ hand_local
    inverse = np.stack([np.linalg.inv(m) for m in (hand_world, arm_world, hips_world)])
    ibm_offset = add(inverse.transpose(0, 2, 1).astype("<f4"))  # column-major
    times = np.array([0.0, 1.0, 2.0], "<f4")
    times_offset = add(times)
    cubic = np.zeros((3, 3, 3), "<f4")  # (key, in/value/out, xyz)
    cubic[:, 1] = [[0, 0.5, 0], [0, 0.7, 0], [0, 0.5, 0]]
    cubic[:, 2] = [[0, 0.3, 0], [0, 0, 0], [0, 0, 0]]
    cubic_offset = add(cubic)
    quats = np.stack([quat.IDENTITY, quat.from_axis_angle([1, 0, 0], 60.0), quat.from_axis_angle([1, 0, 0], 90.0)])
    quats_offset = add(np.round(quats * 32767).astype("<i2"))
    prop_offset = add(np.ones((3, 3), "<f4"))
    length = len(blob)
    (tmp_path / "synthetic data.bin").write_bytes(bytes(blob))

    def view(offset, size, stride=None):
        entry = {"buffer": 0, "byteOffset": offset, "byteLength": size}
        if stride:
            entry["byteStride"] = stride
        return entry

    buffer_views = [view(vertex_offset, 60, 20), view(index_offset, 6), view(ibm_offset, 192),
                    view(times_offset, 12), view(cubic_offset, 108), view(quats_offset, 24),
                    view(prop_offset, 36)]
    accessors = [
        {"bufferView": 0, "byteOffset": 0, "componentType": 5126, "count": 3, "type": "VEC3"},
        {"bufferView": 0, "byteOffset": 12, "componentType": 5121, "count": 3, "type": "VEC4"},
        {"bufferView": 0, "byteOffset": 16, "componentType": 5121, "normalized": True, "count": 3, "type": "VEC4"},
        {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"},
        {"bufferView": 2, "componentType": 5126, "count": 3, "type": "MAT4"},
        {"bufferView": 3, "componentType": 5126, "count": 3, "type": "SCALAR"},
        {"bufferView": 4, "componentType": 5126, "count": 9, "type": "VEC3"},
        {"bufferView": 5, "componentType": 5122, "normalized": True, "count": 3, "type": "VEC4"},
        {"bufferView": 6, "componentType": 5126, "count": 3, "type": "VEC3"},
    ]
    if sparse:
        accessors[6]["sparse"] = {"count": 1, "indices": {"bufferView": 1, "componentType": 5123},
                                  "values": {"bufferView": 6}}
    document = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 4, 5]}],
        "nodes": [
            {"name": "placement", "translation": [5.0, 0.0, 0.0], "children": [1]},
            {"name": "hips", "matrix": hips_matrix.T.reshape(-1).tolist(), "children": [3]},
            {"name": "hand", "translation": [0.0, 0.25, 0.0]},
            {"name": "arm", "translation": [0.0, 0.5, 0.0], "scale": [2.0, 2.0, 2.0], "children": [2]},
            {"name": "body", "mesh": 0, "skin": 0, "translation": [100.0, 0.0, 0.0]},
            {"name": "prop"},
        ],
        "skins": [{"joints": [2, 3, 1], "inverseBindMatrices": 4}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}, "indices": 3}]}],
        "animations": [{"name": "wave", "samplers": [
            {"input": 5, "output": 6, "interpolation": "CUBICSPLINE"},
            {"input": 5, "output": 7, "interpolation": "STEP"},
            {"input": 5, "output": 8}],
            "channels": [{"sampler": 0, "target": {"node": 3, "path": "translation"}},
                         {"sampler": 1, "target": {"node": 2, "path": "rotation"}},
                         {"sampler": 2, "target": {"node": 5, "path": "scale"}}]}],
        "accessors": accessors, "bufferViews": buffer_views,
        "buffers": [{"uri": "synthetic%20data.bin", "byteLength": length}],
    }
    path = tmp_path / "synthetic.gltf"
    path.write_text(json.dumps(document))
    return path, quats


def test_synthetic_file_reorders_joints_and_reads_every_accessor_kind(tmp_path):
    path, quats = _synthetic(tmp_path)
    character = load_gltf(path)
    skeleton = character.skeleton
    assert skeleton.names == ("hips", "arm", "hand") and list(skeleton.parents) == [-1, 0, 1]
    assert character.joint_nodes.tolist() == [1, 3, 2]
    assert np.allclose(skeleton.rest.translation[0], [0, 1, 0])
    assert quat.angle_degrees(skeleton.rest.rotation[0], quat.from_axis_angle([0, 1, 0], 90.0)) < 1e-6
    assert np.allclose(character.root_transform[:3, 3], [5, 0, 0])
    assert np.allclose(skeleton.world_transforms() @ character.inverse_bind, np.eye(4), atol=1e-6)
    mesh = character.mesh
    assert mesh.joints.tolist() == [[2, 1, 2, 2], [1, 0, 2, 2], [0, 2, 2, 2]]
    assert np.allclose(mesh.weights[1, :2], [128 / 255, 127 / 255])
    assert mesh.indices.tolist() == [[0, 1, 2]]
    # The mesh node's own transform (x + 100) is ignored; the root placement (x + 5) is applied.
    assert np.allclose(skin(character), mesh.positions + [5, 0, 0], atol=1e-6)
    clip = character.clips["wave"]
    assert set(clip.joint_names) == {"arm", "hand"}  # the channel on "prop" is ignored
    assert clip.channels["arm"]["translation"].values.shape == (3, 3, 3)
    assert np.allclose(clip.channels["hand"]["rotation"].values, quats, atol=1e-4)
    assert np.allclose(clip.sample(skeleton, 1.5).rotation[2], clip.channels["hand"]["rotation"].values[1])
    assert np.allclose(clip.sample(skeleton, 1.0).translation[1], [0, 0.7, 0])


def test_sparse_accessors_are_refused(tmp_path):
    path, _ = _synthetic(tmp_path, sparse=True)
    with pytest.raises(FormatError, match="sparse"):
        load_gltf(path)


def test_broken_files_raise_format_errors(tmp_path):
    with pytest.raises(FormatError):
        load_gltf(tmp_path / "missing.glb")
    path, _ = _synthetic(tmp_path)
    document = json.loads(path.read_text())
    document["bufferViews"][0]["byteLength"] = 30  # the interleaved vertices no longer fit
    path.write_text(json.dumps(document))
    with pytest.raises(FormatError, match="do not fit"):
        load_gltf(path)
    del document["skins"]
    path.write_text(json.dumps(document))
    with pytest.raises(FormatError, match="no skin"):
        load_gltf(path)


def test_skin_refuses_a_pose_of_another_skeleton():
    character = load_gltf(SIMPLE)
    with pytest.raises(ParameterError) as error:
        skin(character, Pose.identity(5))
    assert error.value.parameter == "pose"
