"""The third-person camera's spring arm (voxelworld.game.follow_camera): along a walk down a tunnel dug into the
demo world and back, looking every way, the camera never stands inside the terrain and the way from the eye to it
is clear, although where it wanted to stand often lies in the rock; looking down it stays behind the player."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.game.follow_camera import CAMERA_RADIUS, MAX_ARM_PITCH, arm_direction, follow_camera, spring_arm
from voxelworld.game.world import Inputs, VoxelEdit, World
from voxelworld.terrain import Cylinder, Tool

DIG = Tool(gives_way_below=100.0, unbreakable_from=100.0)  # through soil and rock alike
VIEWS = [(0.0, 0.0), (0.0, 35.0), (0.0, -35.0), (0.0, -89.0), (90.0, 0.0), (-90.0, 10.0), (180.0, -20.0)]


def density(volume, points: np.ndarray) -> np.ndarray:
    """The volume's density at ``points`` (m), interpolated trilinearly between its samples (0 outside)."""
    index, samples = volume.world_to_index(points), volume.density
    base = np.floor(index).astype(np.int64)
    fraction = index - base
    total = np.zeros(len(points))
    for corner in np.ndindex(2, 2, 2):
        at = base + corner
        weight = np.prod(np.where(corner, fraction, 1.0 - fraction), axis=1)
        inside = np.all((at >= 0) & (at < volume.shape), axis=1)
        values = np.zeros(len(points))
        values[inside] = samples[tuple(at[inside].T)]
        total += weight * values
    return total


@pytest.fixture(scope="module")
def tunnel_walk():
    """The demo world with a tunnel dug from beside the player's start down under the ground and along under the
    rock wall; the player walks down it (along +x) and back. Per frame and view: the eye, the arm, the wanted point."""
    world = World.demo(npcs=0)
    x, y, z = world.player.position
    world.queue_edit(VoxelEdit("remove", Cylinder((x + 1.0, y + 0.9, z), (x + 14.0, y - 4.5, z), 1.4), tool=DIG, source="test"))
    world.queue_edit(VoxelEdit("remove", Cylinder((x + 14.0, y - 4.5, z), (x + 21.0, y - 4.5, z), 1.4), tool=DIG, source="test"))
    rows, touches = [], []
    for frame in range(600):
        yaw = 270.0 if frame < 300 else 90.0
        world.step(Inputs(move=(0.0, 1.0), look=(yaw, 0.0)))
        if frame % 3:
            continue
        eye = world.player.eye
        for turn, pitch in VIEWS:
            arm = follow_camera(world, (yaw + turn) % 360.0, pitch)
            way, length = arm_direction((yaw + turn) % 360.0, pitch)
            rows.append((eye, arm, eye + way * length))
            camera = np.array(arm.position)  # what the frame's collision mesh says of the arm: clear
            ray = world.collider.raycast(eye, way, arm.distance).hit[0] if arm.distance > 0 else False
            sphere = len(world.collider.bvh.overlap_sphere(camera[None], CAMERA_RADIUS * 0.98).query) > 0
            touches.append(bool(ray or sphere))
    return world, rows, touches


def test_the_walk_goes_down_the_tunnel_and_back(tunnel_walk):
    world, rows, touches = tunnel_walk
    eyes = np.array([eye for eye, _, _ in rows])
    start = eyes[0]
    assert eyes[:, 0].max() > start[0] + 16.0  # it went along under the wall's side of the world
    assert eyes[:, 1].min() < start[1] - 4.0  # down under the ground
    assert density(world.volume, eyes).max() < world.volume.iso  # its eye always in the tunnel's air


def test_the_camera_never_enters_the_terrain_along_the_tunnel(tunnel_walk):
    world, rows, touches = tunnel_walk
    volume = world.volume
    wanted = np.array([point for _, _, point in rows])
    buried = density(volume, wanted) >= volume.iso
    assert buried.mean() > 0.3  # where the camera wanted to stand lay in the rock, often
    assert np.mean([arm.blocked for _, arm, _ in rows]) > 0.5
    shares = np.linspace(0.0, 1.0, 21)
    for eye, arm, _ in rows:
        camera = np.array(arm.position)
        segment = eye + shares[:, None] * (camera - eye)
        assert density(volume, segment).max() < volume.iso, (eye, arm)  # the camera and the way to it: in the air
    assert not any(touches)  # nothing of the collision mesh on the way or within the sphere at the camera


def test_the_camera_keeps_its_whole_arm_in_the_open():
    world = World.demo(npcs=0)
    arm = follow_camera(world)
    assert not arm.blocked and arm.distance == arm.wanted
    eye = world.player.eye
    assert np.linalg.norm(np.array(arm.position) - eye) == pytest.approx(arm.wanted)
    assert arm.position[0] < eye[0]  # behind the player, who looks along +x


def test_looking_down_the_camera_stays_behind_the_player():
    """Looking straight down, the camera does not rise over the player's head (where the body hides the ground it
    looks at): the arm keeps its elevation at MAX_ARM_PITCH, behind the player."""
    for yaw in (0.0, 90.0, 215.0):
        steep, _ = arm_direction(yaw, -89.0)
        level, _ = arm_direction(yaw, -MAX_ARM_PITCH)
        assert steep.tolist() == pytest.approx(level.tolist())
        forward = np.array([-np.sin(np.radians(yaw)), 0.0, -np.cos(np.radians(yaw))])
        assert float(np.dot(steep, forward)) < -0.5  # well behind the player


def test_a_sphere_at_the_eye_that_touches_keeps_the_camera_at_the_eye():
    from voxelworld.collision import TriangleBVH

    ceiling = TriangleBVH([[-5, 1.8, -5], [5, 1.8, -5], [-5, 1.8, 5], [5, 1.8, 5]], [[0, 1, 2], [1, 3, 2]])
    arm = spring_arm(ceiling, (0.0, 1.6, 0.0), 0.0, -20.0)  # the eye 0.2 m under a ceiling, the arm rising
    assert arm.blocked and arm.distance == 0.0 and arm.position == (0.0, 1.6, 0.0)
