"""A ContactMotion frame on its kernels plays the frames its NumPy code played, bit for bit.

Each case runs a motion and a :class:`~tests.motion.reference_frame.ReferenceContactMotion` (the NumPy frame
the kernels replaced) side by side through the same contacts, and compares every array and event of every frame.
The NumPy code's small products went through NumPy's BLAS; the kernels sum them as OpenBLAS's kernels do on
x86-64 with FMA (``test_frame_kernels`` holds them to that exactly). Where NumPy's BLAS sums otherwise, the old
numbers are not the ones to keep, and the comparison is skipped.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from voxelworld.collision import TriangleBVH
from voxelworld.motion.contact_motion import ContactMotion
from voxelworld.motion.gltf import load_gltf
from voxelworld.motion.ik import ConeLimit
from voxelworld.motion.part_contacts import Contact, Medium, SlowdownProfile, collision_contact_query
from voxelworld.motion.swing import chainsaw_swing_clip, cutting_clip, forearm_part, held_part, row_clip

from ..assets import CESIUM_MAN
from .reference_frame import ReferenceContactMotion
from .test_frame_kernels import blas_sums_as_fma_chains

CHAIN = ["Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"]
ROOT, CHEST = "Skeleton_torso_joint_1", "torso_joint_3"
FORWARD, UP = (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)
DT = 1 / 60

pytestmark = pytest.mark.skipif(not blas_sums_as_fma_chains(),
                                reason="NumPy's BLAS here does not sum small products as FMA chains: the NumPy "
                                       "frame's last bits are this BLAS's own")


@pytest.fixture(scope="module")
def man():
    skeleton = load_gltf(CESIUM_MAN).skeleton
    return skeleton, chainsaw_swing_clip(skeleton, CHAIN, ROOT, CHEST, FORWARD, UP)


def wall_query(x: float = 1.0, material: int = 4):
    wall = TriangleBVH([[x, -2, -1], [x, 2, -1], [x, -2, 3], [x, 2, 3]], [[0, 1, 2], [1, 3, 2]],
                       tri_material=[material, material])
    return collision_contact_query(wall, {2: ("soil", 1.5), 4: ("rock", 5.0), 9: ("iron", 10.0)})


def placement_at(frame: int) -> np.ndarray:
    """A walking, turning, scaled placement (as an enemy's)."""
    turn, scale = 0.3 + 0.01 * frame, 0.9
    c, s = math.cos(turn) * scale, math.sin(turn) * scale
    return np.array([[c, -s, 0.0, 0.02 * frame], [s, c, 0.0, 0.1], [0.0, 0.0, scale, -0.3], [0.0, 0.0, 0.0, 1.0]])


def side_by_side(make, queries, frames: int, moving: bool = False) -> int:
    """Run ``make(cls)`` for both classes through ``queries(frame)`` for ``frames`` frames and compare them;
    returns how many frames were in contact."""
    new, old = make(ContactMotion), make(ReferenceContactMotion)
    touching = 0
    for frame in range(frames):
        if moving:
            new.place(placement_at(frame))
            old.place(placement_at(frame))
        query = queries(frame)
        pose, events = new.step(DT, query)
        pose_old, events_old = old.step(DT, query)
        for name in ("translation", "rotation", "scale"):
            assert np.array_equal(getattr(pose, name), getattr(pose_old, name)), (frame, name)
        for name in ("world", "clocks", "rates", "part_segment", "_driven_end", "_held", "_inside", "_previous_end"):
            assert np.array_equal(getattr(new, name), getattr(old, name)), (frame, name)
        for name in ("time", "part_drag", "_area", "_shake", "_shake_frequency", "_second_weight", "_second_clock",
                     "_since_contact"):
            assert getattr(new, name) == getattr(old, name), (frame, name)
        assert (new._previous_elbow is None) == (old._previous_elbow is None)
        if new._previous_elbow is not None:
            assert np.array_equal(new._previous_elbow, old._previous_elbow), frame
        assert events == events_old, frame
        touching += new.contact is not None
    return touching


def test_the_chainsaw_cutting_rock_soil_and_iron_shaking_plays_the_numpy_frames(man):
    skeleton, clip = man
    part = forearm_part(skeleton, CHAIN, 0.05, 0.75, 0.03, blade_side=(0, 1, 0))
    walls = {0: wall_query(1.0, 4), 1: wall_query(0.95, 2), 2: wall_query(1.05, 9), 3: lambda a, b, r: None}
    touching = side_by_side(lambda cls: cls(skeleton, clip, CHAIN, ROOT, part, loop=True),
                            lambda frame: walls[(frame // 50) % 4], 400)
    assert 100 < touching < 400


def test_a_placed_moving_motion_with_a_scripted_flat_contact_plays_the_numpy_frames(man):
    skeleton, clip = man
    part = forearm_part(skeleton, CHAIN, 0.05, 0.75, 0.03)  # no blade: the area is the contact's
    rock = Contact((0.7, 0.0, 1.0), (-1.0, 0.0, 0.0), "rock", 5.0, area=1.0)
    touching = side_by_side(lambda cls: cls(skeleton, clip, CHAIN, ROOT, part, loop=False),
                            lambda frame: (lambda a, b, r: rock if 20 <= frame < 70 else None), 150, moving=True)
    assert touching == 50


def test_the_second_clip_blend_plays_the_numpy_frames(man):
    skeleton, clip = man
    part = forearm_part(skeleton, CHAIN, 0.05, 0.75, 0.03, blade_side=(0, 1, 0))
    cutting = cutting_clip(skeleton, CHAIN, CHEST, FORWARD, UP)
    touching = side_by_side(lambda cls: cls(skeleton, clip, CHAIN, ROOT, part, loop=True, second_clip=cutting),
                            lambda frame: wall_query(1.0, 4), 200)
    assert touching > 50


def test_fabrik_limits_play_the_numpy_frames(man):
    skeleton, clip = man
    part = forearm_part(skeleton, CHAIN, 0.05, 0.75, 0.03, blade_side=(0, 1, 0))
    limits = [ConeLimit(150.0), ConeLimit(150.0)]
    touching = side_by_side(lambda cls: cls(skeleton, clip, CHAIN, ROOT, part, loop=True, limits=limits),
                            lambda frame: wall_query(1.0, 4), 200)
    assert touching > 50


def test_an_oar_dragged_through_water_plays_the_numpy_frames():
    skeleton = load_gltf(CESIUM_MAN).skeleton
    clip = row_clip(skeleton, CHAIN, ROOT, CHEST, FORWARD, UP)
    oar = held_part(skeleton, CHAIN[2], (0.0, 0.0, 0.0), (0.0, -1.6, -0.9), 0.04, blade_side=(1.0, 0.0, 0.0))
    lake = Medium("water", 4.0, box=((-5.0, -5.0, -2.0), (5.0, 5.0, 0.12)), up=UP, flow=(-1.5, 0.0, 0.0))
    side_by_side(lambda cls: cls(skeleton, clip, CHAIN, ROOT, oar, profile=SlowdownProfile(vibration_degrees=0.0),
                                 media=(lake,), loop=True), lambda frame: (lambda a, b, r: None), 240)
