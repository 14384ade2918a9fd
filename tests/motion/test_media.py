"""A tool dragged through a medium: CesiumMan rowing with an oar held in the right hand (issue #15, the other
media of the design), measured as motion against the free run (the stroke with no water).

What is measured: the blade pulled square against the water slows the hand and forearm far more than a feathered
blade does (and pulls harder: ``part_drag``), graded from the wrist outward to the body (slowed least), the blade's going in and coming out told once per stroke, and :meth:`Medium.part_drag` by depth, blade
direction and flow.
"""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.motion.contact_motion import ContactMotion
from voxelworld.motion.gltf import load_gltf
from voxelworld.motion.measure import joint_motion, motion_ratios
from voxelworld.motion.part_contacts import Medium, MediumEntered, MediumLeft, SlowdownProfile
from voxelworld.motion.swing import held_part, row_clip

from ..assets import CESIUM_MAN

CHAIN = ["Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"]
ROOT, CHEST = "Skeleton_torso_joint_1", "torso_joint_3"
FORWARD, UP = (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)  # CesiumMan's skeleton frame: Z up, facing +x
DT = 1 / 60
OAR_END = (0.0, -1.6, -0.9)  # from the hand: out to the right and down to the water (m, at rest)
SQUARE, FEATHERED = (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)  # the blade's face across the stroke / flat on the water
# The boat glides forward (+x) at 1.5 m/s: the water flows past the rower at -1.5 m/s. Its surface sits between
# the blade's depth in the drive (z ~ 0.05) and in the recovery (z ~ 0.18).
LAKE = Medium("water", 4.0, box=((-5.0, -5.0, -2.0), (5.0, 5.0, 0.12)), up=UP, flow=(-1.5, 0.0, 0.0))


@pytest.fixture(scope="module")
def man():
    skeleton = load_gltf(CESIUM_MAN).skeleton
    return skeleton, row_clip(skeleton, CHAIN, ROOT, CHEST, FORWARD, UP)


def rowing(man, blade=SQUARE, media=(LAKE,), seconds: float = 6.0) -> dict:
    skeleton, clip = man
    oar = held_part(skeleton, CHAIN[2], (0.0, 0.0, 0.0), OAR_END, 0.04, blade_side=blade)
    m = ContactMotion(skeleton, clip, CHAIN, ROOT, oar, profile=SlowdownProfile(vibration_degrees=0.0),
                      media=media, loop=True)
    worlds, drags, events, rates = [m.world.copy()], [], [], []
    for _ in range(int(round(seconds / DT))):
        _, happened = m.step(DT, lambda a, b, r: None)
        worlds.append(m.world.copy())
        drags.append(m.part_drag)
        events.append(happened)
        rates.append(m.rates.copy())
    return dict(worlds=np.array(worlds), drag=np.array(drags), events=events, rates=np.array(rates), motion=m)


def test_a_square_blade_slows_the_arm_and_pulls_hard_a_feathered_one_slips_through(man):
    skeleton, _ = man
    square, feathered, free = rowing(man, SQUARE), rowing(man, FEATHERED), rowing(man, media=())
    in_water = square["drag"] > 0.0
    assert 30 < in_water.sum() < len(in_water) - 30  # the blade goes in for the drive and out for the recovery
    s, e, w = (skeleton.index(name) for name in CHAIN)
    root = skeleton.index(ROOT)
    worlds = {label: joint_motion(run["worlds"], skeleton.parents) for label, run in
              (("square", square), ("feathered", feathered), ("free", free))}
    # The first stroke in the water, frame by frame: the same frames of each run against the free run.
    first = np.zeros(len(in_water), dtype=bool)
    start = int(np.argmax(in_water))
    end = start + int(np.argmin(in_water[start:]))
    first[start:end] = True
    assert first.sum() > 10
    slow = motion_ratios(worlds["square"], worlds["free"], first)
    slip = motion_ratios(worlds["feathered"], worlds["free"], first)
    # The arm bends at its joints (relative to the parent): square, slowly; feathered, nearly as without water.
    assert slow.local_rotation[e] < 0.4 < 0.7 < slip.local_rotation[e]
    assert slow.local_rotation[s] < slip.local_rotation[s] - 0.1
    assert square["drag"][first].mean() > 10 * feathered["drag"][first].mean() > 0.0  # and pulls far harder
    # Graded along the chain and on to the body: the hand slowest, then the elbow, the shoulder, the body least.
    claimed = square["rates"][first].mean(axis=0)
    assert claimed[w] < claimed[e] < claimed[s] < claimed[root] < 1.0
    assert slow.local_rotation[e] < slow.local_rotation[s]
    assert slow.local_rotation[e] < slow.rotation[root] < slip.rotation[root]
    # The hand's world motion is mostly the body's lean, which the oar leaves alone: it still moves less.
    assert slow.displacement[w] < slip.displacement[w]


def test_the_blade_going_in_and_out_is_told_each_time(man):
    skeleton, clip = man
    run = rowing(man, SQUARE, seconds=4 * clip.duration)
    part = [(type(e), round(e.time / DT)) for happened in run["events"] for e in happened
            if isinstance(e, (MediumEntered, MediumLeft)) and e.joint == "part"]
    # The blade's end in the water frame by frame (the motion's own pose): every change is told, on its frame.
    oar = run["motion"].part
    inside = [bool(LAKE.contains(oar.placed(world[skeleton.index(CHAIN[2])])[1])[0]) for world in run["worlds"]]
    told = [(MediumEntered if now else MediumLeft, k) for k, (was, now) in enumerate(zip(inside, inside[1:]), 1)
            if was != now]
    assert part == told
    assert inside[0] and part[0][0] is MediumLeft  # the stroke starts at the catch, the blade in the water
    assert sum(kind is MediumEntered for kind, _ in part) >= 2  # in again for each stroke after the first
    assert all(e.medium == "water" for happened in run["events"] for e in happened if hasattr(e, "medium"))


def test_part_drag_by_depth_blade_and_flow():
    deep = Medium("water", 6.0, box=((-9, -3, -9), (9, 0.0, 9)), grade=0.5, flow=(1.0, 0.0, 0.0))
    across, edge = (0.0, 0.0, 1.0), (1.0, 0.0, 0.0)
    moving = (0.0, 0.0, -2.0)  # through the water along z (the flow adds +x relative motion)
    assert deep.part_drag((0, 0.2, 0), across, moving) == 0.0  # out of the water
    full = deep.part_drag((0, -1.0, 0), None, moving)
    assert full == 6.0 and deep.part_drag((0, -0.25, 0), None, moving) == pytest.approx(3.0)  # half the grade
    # The relative velocity is (-1, 0, -2): the blade across z meets 2/sqrt(5) of it squarely.
    share = 2.0 / np.sqrt(5.0)
    assert deep.part_drag((0, -1.0, 0), across, moving) == pytest.approx(6.0 * (0.05 + 0.95 * share))
    assert deep.part_drag((0, -1.0, 0), edge, moving) == pytest.approx(6.0 * (0.05 + 0.95 / np.sqrt(5.0)))
    # Carried along with the water (no relative motion): a resting blade takes the full drag.
    assert deep.part_drag((0, -1.0, 0), across, (1.0, 0.0, 0.0)) == 6.0
    with pytest.raises(ParameterError, match="flow"):
        Medium("water", 1.0, box=((0, 0, 0), (1, 1, 1)), flow=(0.0, float("nan"), 0.0))
    with pytest.raises(ParameterError, match="edge_share"):
        Medium("water", 1.0, box=((0, 0, 0), (1, 1, 1)), edge_share=1.5)


def test_held_part_follows_the_hand(man):
    skeleton, clip = man
    oar = held_part(skeleton, CHAIN[2], (0.0, 0.0, 0.0), OAR_END, 0.04, blade_side=SQUARE)
    w = skeleton.index(CHAIN[2])
    worlds = skeleton.world_transforms(clip.sample_frames(skeleton, np.linspace(0.0, clip.duration, 9)))
    for world in worlds:  # the stroke holds the hand's rotation: the oar keeps its direction and its blade's
        start, end, blade = oar.placed(world[w])
        np.testing.assert_allclose(end - start, OAR_END, atol=2e-3)  # within a tenth of a degree
        np.testing.assert_allclose(blade, SQUARE, atol=2e-3)
    with pytest.raises(ParameterError, match="wrist"):
        held_part(skeleton, "no such joint", (0, 0, 0), OAR_END, 0.04)
    with pytest.raises(ParameterError, match="end"):
        held_part(skeleton, CHAIN[2], (0, 0, 0), (0, float("inf"), 0), 0.04)
