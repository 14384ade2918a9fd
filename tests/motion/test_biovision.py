"""BioVision (BVH) loading: channel orders checked against hand-composed quaternions and scipy; broken files."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from voxelworld.errors import FormatError, ParameterError
from voxelworld.motion import quaternions as quat
from voxelworld.motion.biovision import load_bvh

# name, parent, offset (cm), channels
JOINTS = [
    ("hips", None, (0.0, 90.0, 0.0), ["Xposition", "Yposition", "Zposition", "Zrotation", "Xrotation", "Yrotation"]),
    ("spine", "hips", (0.0, 10.0, 2.0), ["Xrotation", "Yrotation", "Zrotation"]),
    ("arm", "spine", (15.0, 20.0, 0.0), ["Zrotation", "Xrotation", "Yrotation"]),
    ("hand", "arm", (25.0, 0.0, 0.0), ["Yrotation"]),
    ("leg", "hips", (-10.0, -5.0, 0.0), ["Zposition", "Xrotation", "Yrotation", "Zrotation", "Xposition"]),
]
END_OFFSET = (8.0, 0.0, 1.0)  # the hand's End Site


def write_bvh(path, frames):
    """A BVH of JOINTS with an End Site under the hand; frames is (f, channels) degrees / cm."""
    lines = ["HIERARCHY"]
    depth = {}

    def block(name):
        entry = next(j for j in JOINTS if j[0] == name)
        indent = "  " * depth[name]
        lines.append(f"{indent}{'ROOT' if entry[1] is None else 'JOINT'} {name}")
        lines.append(f"{indent}{{")
        lines.append(f"{indent}  OFFSET {' '.join(map(str, entry[2]))}")
        lines.append(f"{indent}  CHANNELS {len(entry[3])} {' '.join(entry[3])}")
        for child in [j[0] for j in JOINTS if j[1] == name]:
            depth[child] = depth[name] + 1
            block(child)
        if name == "hand":
            lines.extend([f"{indent}  End Site", f"{indent}  {{",
                          f"{indent}    OFFSET {' '.join(map(str, END_OFFSET))}", f"{indent}  }}"])
        lines.append(f"{indent}}}")

    depth["hips"] = 0
    block("hips")
    lines += ["MOTION", f"Frames: {len(frames)}", "Frame Time: 0.04"]
    lines += [" ".join(repr(float(v)) for v in row) for row in frames]
    path.write_text("\n".join(lines) + "\n")


def file_order():
    """Joint names in the order the writer emits them (depth first)."""
    order = []

    def visit(name):
        order.append(name)
        for child in [j[0] for j in JOINTS if j[1] == name]:
            visit(child)
    visit("hips")
    return order


def expected_positions(row, compose):
    """World positions (file units) of every joint and the end site, from one frame's channel values."""
    values, column = {}, 0
    for name in file_order():
        entry = next(j for j in JOINTS if j[0] == name)
        values[name] = dict(zip(entry[3], row[column:column + len(entry[3])]))
        column += len(entry[3])
    world = {}
    for name in file_order():
        _, parent, offset, channels = next(j for j in JOINTS if j[0] == name)
        local = np.array(offset, float)
        for axis, k in (("X", 0), ("Y", 1), ("Z", 2)):
            if f"{axis}position" in values[name]:
                local[k] = values[name][f"{axis}position"]
        order = "".join(c[0] for c in channels if c.endswith("rotation"))
        angles = [values[name][f"{a}rotation"] for a in order]
        rotation = compose(order, angles)
        if parent is None:
            world[name] = (rotation, local)
        else:
            parent_rotation, parent_position = world[parent]
            world[name] = (parent_rotation @ rotation, parent_position + parent_rotation @ local)
    hand_rotation, hand_position = world["hand"]
    return [world[name][1] for name in file_order()] + [hand_position + hand_rotation @ np.array(END_OFFSET)]


def by_quaternions(order, angles):
    q = quat.IDENTITY
    for axis, angle in zip(order, angles):
        q = quat.multiply(q, quat.from_axis_angle(np.eye(3)["XYZ".index(axis)], angle))
    return quat.to_matrix(q)


def by_scipy(order, angles):
    return Rotation.from_euler(order.upper(), angles, degrees=True).as_matrix() if order else np.eye(3)


def random_frames(rng, count):
    width = sum(len(j[3]) for j in JOINTS)
    frames = rng.uniform(-180.0, 180.0, size=(count, width))
    frames[:, :3] = rng.uniform(-50, 50, size=(count, 3))  # hips position (cm)
    return frames


def test_world_positions_match_hand_composition_and_scipy(tmp_path):
    rng = np.random.default_rng(11)
    frames = random_frames(rng, 6)
    path = tmp_path / "orders.bvh"
    write_bvh(path, frames)
    skeleton, clip = load_bvh(path)
    assert skeleton.names == ("hips", "spine", "arm", "hand", "hand_end", "leg")
    rows = [skeleton.index(name) for name in file_order() + ["hand_end"]]
    assert clip.name == "orders" and clip.duration == pytest.approx(0.2)
    positions = skeleton.world_positions(clip.sample_frames(skeleton, np.arange(6) * 0.04))
    for f, row in enumerate(frames):
        mine = np.array(expected_positions(row, by_quaternions))
        reference = np.array(expected_positions(row, by_scipy))
        assert np.allclose(mine, reference, atol=1e-9)
        assert np.allclose(positions[f][rows], reference, atol=1e-9)


def test_rest_pose_is_the_offsets_and_units_scale(tmp_path):
    path = tmp_path / "rest.bvh"
    write_bvh(path, np.zeros((1, sum(len(j[3]) for j in JOINTS))))
    skeleton, clip = load_bvh(path, metres_per_unit=0.01)
    assert np.allclose(skeleton.rest.translation[skeleton.index("arm")], [0.15, 0.20, 0.0])
    assert np.allclose(skeleton.rest.rotation, quat.IDENTITY)
    assert skeleton.bone_lengths()[skeleton.index("hand_end")] == pytest.approx(np.linalg.norm(END_OFFSET) / 100)
    # Zero channel values: position channels set x, y, z of the hips (to 0 here); the leg keeps its y offset.
    pose = clip.sample(skeleton, 0.0)
    assert np.allclose(pose.translation[0], 0.0)
    assert np.allclose(pose.translation[skeleton.index("leg")], [0.0, -0.05, 0.0])


def test_loading_is_deterministic(tmp_path):
    path = tmp_path / "again.bvh"
    write_bvh(path, random_frames(np.random.default_rng(3), 4))
    (s1, c1), (s2, c2) = load_bvh(path), load_bvh(path)
    assert c1.to_json() == c2.to_json()
    assert np.array_equal(s1.world_transforms(c1.sample(s1, 0.05)), s2.world_transforms(c2.sample(s2, 0.05)))


GOOD = """HIERARCHY
ROOT hips
{
  OFFSET 0 0 0
  CHANNELS 3 Zrotation Xrotation Yrotation
  End Site
  {
    OFFSET 0 1 0
  }
}
MOTION
Frames: 1
Frame Time: 0.1
10 20 30
"""


@pytest.mark.parametrize("old, new, line, fragment", [
    ("OFFSET 0 1 0", "OFFSET 0 one 0", 8, "not a number"),
    ("CHANNELS 3 Zrotation", "CHANNELS 3 Wrotation", 5, "unknown"),
    ("10 20 30", "10 20", 14, "2 values"),
    ("10 20 30", "10 20 x", 14, "not a number"),
    ("Frames: 1", "Frames: 2", 14, "Frames: 2"),
    ("Frame Time: 0.1", "Frame Time: -1", 13, "Frame Time"),
    ("ROOT hips", "ROOTS hips", 2, "expected 'ROOT'"),
    ("  }\n}", "  }\n", 9, "ends"),
    ("MOTION", "MOTIONS", 14, "no MOTION"),
])
def test_broken_files_name_the_line(tmp_path, old, new, line, fragment):
    path = tmp_path / "broken.bvh"
    path.write_text(GOOD.replace(old, new, 1))
    with pytest.raises(FormatError, match=fragment) as error:
        load_bvh(path)
    assert f"line {line}:" in str(error.value)


def test_good_file_and_bad_unit(tmp_path):
    path = tmp_path / "good.bvh"
    path.write_text(GOOD)
    skeleton, clip = load_bvh(path)
    assert skeleton.names == ("hips", "hips_end") and clip.joint_names == ("hips",)
    with pytest.raises(ParameterError) as error:
        load_bvh(path, metres_per_unit=0)
    assert error.value.parameter == "metres_per_unit"
    with pytest.raises(FormatError):
        load_bvh(tmp_path / "missing.bvh")
