"""Every actor posed on CesiumMan: the walk phased by distance, the player's action layers, the enemy's whole pose."""

import math
from dataclasses import fields, replace

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.enemy import ChainsawEnemy
from voxelworld.game.player import view_direction
from voxelworld.game.poses import CharacterPose, character_rig, enemy_pose, model_to_world
from voxelworld.game.world import Inputs, World
from voxelworld.meshing import ChunkMesher
from voxelworld.motion import quaternions as quat
from voxelworld.terrain import Box, VoxelVolume

DT = 1 / 60


@pytest.fixture(scope="module")
def demo():
    world = World.demo(seed=0, npcs=1)
    world.step(Inputs())  # the constructor's snapshot comes before the level's NPCs and enemies are added
    return world


def fresh():
    return World.demo(seed=0, npcs=1)


def player_pose(world):
    return next(p for p in world.snapshot().characters if p.kind == "player")


def joint_world_rotation(pose: CharacterPose, joint: int) -> np.ndarray:
    rig = character_rig()
    world = rig.skeleton.world_transforms(pose.skeleton_pose())
    linear = (rig.root_transform @ world[joint])[:3, :3]
    return quat.from_matrix(linear / np.linalg.norm(linear, axis=0))


def test_every_actor_is_posed_in_order(demo):
    kinds = [p.kind for p in demo.snapshot().characters]
    assert kinds == ["player"] + ["npc"] * len(demo.agents.npcs) + ["enemy"] * len(demo.agents.enemies)
    assert all(len(p.rotations) == 4 * len(character_rig().skeleton) for p in demo.snapshot().characters)


def test_walk_phase_advances_with_distance_not_time():
    world = fresh()
    rig = character_rig()
    duration = rig.walk.duration
    for _ in range(20):  # land and start walking
        world.step(Inputs(move=(0.0, 1.0)))
    checked = 0
    for frame in range(60):
        before = player_pose(world)
        # walk, then stand: the phase follows the feet, not the clock
        world.step(Inputs(move=(0.0, 1.0 if frame < 40 else 0.0)))
        after = player_pose(world)
        distance = math.hypot(after.position[0] - before.position[0], after.position[2] - before.position[2])
        expected = (before.walk_phase + distance / rig.walk_cycle * duration) % duration
        assert after.walk_phase == pytest.approx(expected, abs=1e-9)
        checked += distance > 0.01
    assert checked > 30  # it did walk
    assert after.walk_weight == 0.0  # standing: the idle pose
    assert_checked(world.snapshot().characters)
    assert np.allclose(after.local_rotations()[rig.left_arm[0]], rig.idle_rotations[rig.left_arm[0]])


def test_walk_cycle_is_a_plausible_stride():
    assert 1.0 < character_rig().walk_cycle < 2.2  # m per cycle of two steps


def test_poses_are_deterministic():
    runs = []
    for _ in range(2):
        world = fresh()
        for frame in range(40):
            world.step(Inputs(move=(0.3, 1.0), look=(270.0 + frame, -10.0), punch=frame % 15 == 0))
        runs.append(world.snapshot().characters)
    assert runs[0] == runs[1]  # tuples of floats: bit for bit
    assert_checked(runs[0])


def assert_checked(poses):
    """What the poser makes unchecked passes the checks a pose read from a file goes through, unchanged."""
    for pose in poses:
        assert CharacterPose(**{f.name: getattr(pose, f.name) for f in fields(CharacterPose)}) == pose


def test_punch_thrusts_the_right_arm_forward():
    rig = character_rig()
    worlds = {}
    for punch in (False, True):
        world = fresh()
        for frame in range(35):  # the strike's fist is furthest out 0.25 s (15 frames) after the press
            world.step(Inputs(punch=punch and frame == 20))
        worlds[punch] = player_pose(world)
        assert world.actions.strike.busy == punch
    still, punching = worlds[False], worlds[True]
    assert_checked([still, punching])
    assert punching.action == still.action == ""  # the punch is its strike's motion, not an action layer
    shoulder = rig.right_arm[0]
    turned = quat.angle_degrees(still.local_rotations()[shoulder], punching.local_rotations()[shoulder])
    assert turned > 30.0
    left = rig.left_arm[0]
    assert np.allclose(still.local_rotations()[left], punching.local_rotations()[left])
    # the upper arm and forearm point where the player faces
    positions = punching.world_positions()
    facing = view_direction(punching.yaw, 0.0)
    for a, b in zip(rig.right_arm, rig.right_arm[1:]):
        bone = positions[b] - positions[a]
        assert np.dot(bone / np.linalg.norm(bone), facing) > 0.9


def test_the_model_faces_its_yaw():
    rig = character_rig()
    for yaw in (0.0, 90.0, 233.0):
        pose = CharacterPose("p", "player", (1.0, 2.0, 3.0), yaw, 1.0, tuple(rig.idle_rotations.ravel()),
                             tuple(rig.idle_root))
        positions = pose.world_positions()
        ankle, toe = rig.skeleton.index("leg_joint_L_3"), rig.skeleton.index("leg_joint_L_5")
        foot = positions[toe] - positions[ankle]
        foot[1] = 0.0
        assert np.dot(foot / np.linalg.norm(foot), view_direction(yaw, 0.0)) > 0.8
        assert positions[:, 1].min() == pytest.approx(2.0, abs=0.05)  # the feet stand at the position
    assert np.allclose(model_to_world((0, 0, 0), 0.0)[:3, :3] @ (0, 0, 1), view_direction(0.0, 0.0))


def enemy_run(material: str | None, frames: int = 40, until_contact: bool = False):
    """The enemy before a soil block (or nothing), posed every frame, for ``frames`` frames (``until_contact``:
    then on to the next frame the blade touches, at most as many again)."""
    volume = VoxelVolume((48, 24, 48), voxel_size=0.1, chunk_size=16)
    if material is not None:
        volume.add(Box((3.6, 0.0, 1.4), (4.6, 2.0, 3.4)), material)
    mesher = ChunkMesher(volume)
    mesher.update()
    enemy = ChainsawEnemy("saw", volume, mesher, (2.4, 0.0, 2.4), facing=(1, 0, 0))
    poses, contact = [], []

    def frame():
        mesher.update()
        enemy.step(DT)
        poses.append(enemy_pose(enemy))
        contact.append(enemy.motion.contact is not None)

    for _ in range(frames):
        frame()
    while until_contact and not contact[-1] and len(contact) < 2 * frames:
        frame()
    return enemy, poses, contact


def wrist_steps(poses):
    """Degrees the posed wrist turned (in the model's frame) in each frame."""
    wrist = character_rig().right_arm[2]
    rotations = [joint_world_rotation(p, wrist) for p in poses]
    return np.array([0.0] + [float(quat.angle_degrees(a, b)) for a, b in zip(rotations, rotations[1:])])


def test_enemy_wrist_slows_on_contact_in_the_posed_skeleton():
    _, cutting, contact = enemy_run("soil")
    _, free, _ = enemy_run(None)
    cut_steps, free_steps = wrist_steps(cutting), wrist_steps(free)
    contact = np.array(contact)
    first = int(np.argmax(contact))
    assert contact.any() and first > 2
    assert np.allclose(cut_steps[:first], free_steps[:first])  # the same swing until the blade touches
    in_contact = np.flatnonzero(contact[1:]) + 1
    # the posed wrist turns at well under half its free speed while cutting soil (the wrist's rate: 0.040)
    assert cut_steps[in_contact].sum() < 0.6 * free_steps[in_contact].sum()
    assert all(p.contact == "soil" for p, c in zip(cutting, contact) if c)


def test_enemy_pose_is_its_motions_whole_pose():
    enemy, poses, contact = enemy_run("soil", 40, until_contact=True)
    pose = poses[-1]
    # Every joint where the enemy's motion has it (CesiumMan's own skeleton, placed where the enemy stands).
    assert np.allclose(pose.world_positions(), enemy.motion.world[:, :3, 3], atol=1e-6)
    assert np.allclose(pose.local_rotations(), enemy.motion.pose.rotation)
    assert pose.scale == pytest.approx(enemy.scale) and pose.position == tuple(enemy.position)
    assert np.allclose(pose.blade, enemy.motion.part_segment)
    assert contact[-1] and pose.contact == "soil"
    # a person's height: the head well above 1.3 m, the feet at the ground
    assert 1.3 < pose.world_positions()[:, 1].max() < 1.8


def test_bad_pose_fields_raise():
    rig = character_rig()
    with pytest.raises(ParameterError, match="kind"):
        CharacterPose("x", "dog", (0, 0, 0), 0.0, 1.0, tuple(rig.idle_rotations.ravel()), (0, 0, 0))
    with pytest.raises(ParameterError, match="rotations"):
        CharacterPose("x", "npc", (0, 0, 0), 0.0, 1.0, (0.0, 0.0, 0.0, 1.0), (0, 0, 0))
    good = CharacterPose("x", "npc", (0, 0, 0), 0.0, 1.0, tuple(rig.idle_rotations.ravel()), (0, 0, 0))
    for field, value in (("yaw", float("nan")), ("walk_weight", 2.0), ("scale", 0.0), ("action", "dance"),
                         ("position", (0, 0)), ("rotations", (2.0,) * len(good.rotations)), ("blade", ((0, 0, 0),)),
                         ("walk_phase", -1.0), ("contact", 3)):
        with pytest.raises(ParameterError, match=field):
            replace(good, **{field: value})


def test_a_snapshot_wants_poses():
    world = fresh()
    snapshot = world.snapshot()
    for bad in (None, [None], ("pose",)):
        with pytest.raises(ParameterError, match="characters"):
            replace(snapshot, characters=bad)


def test_posing_gives_what_the_old_posing_gave(monkeypatch):
    """Every frame's poses (walking, stopping, sprinting, punching, sucking, jumping, the enemy cutting) field for
    field, bit for bit, as the posing of before it was made cheaper (tests/game/reference_poses.py), called with
    the same world, previous poses and events."""
    import voxelworld.game.world as world_module

    from . import reference_poses

    made = world_module.pose_characters
    compared, striking = [], []

    def both(world, previous=(), events=()):
        poses = made(world, previous, events)
        old = reference_poses.pose_characters(world, previous, events)
        assert poses == old and repr(poses) == repr(old), world.frame
        compared.append(poses)
        striking.append(world.actions.strike.busy)
        return poses

    monkeypatch.setattr(world_module, "pose_characters", both)
    world = World.demo(seed=0)
    for frame in range(240):
        world.step(Inputs(move=(0.0, 1.0) if frame % 90 < 60 else (0.0, 0.0), look=(270.0 + 0.5 * frame, -20.0),
                          sprint=frame % 120 > 100, punch=frame % 37 == 0, suck=100 <= frame < 130,
                          jump=frame % 70 == 5))
    kinds = {(p.kind, p.action, p.suck_weight > 0, p.air_weight > 0, 0 < p.walk_weight < 1)
             for poses in compared for p in poses}
    assert ("player", "") in {k[:2] for k in kinds} and any(striking) and not all(striking)  # punches posed
    assert any(k[2] for k in kinds) and any(k[3] for k in kinds) and any(k[4] for k in kinds)
    assert ("enemy", "") in {k[:2] for k in kinds}
