"""The offscreen pictures draw each actor as the page does: CesiumMan skinned in its pose, placed where it stands."""

from __future__ import annotations

import numpy as np

from voxelworld.game.world import Inputs, World
from voxelworld.viewer.character_mesh import KIND_MATERIALS, character_mesh


def test_each_actor_is_the_skinned_character_around_its_joints_in_its_kinds_material():
    world = World.demo(seed=0)
    for _ in range(30):
        world.step(Inputs(move=(0.0, 1.0)))
    poses = world.snapshot().characters
    assert {pose.kind for pose in poses} == {"player", "npc", "enemy"}
    for pose in poses:
        mesh = character_mesh(pose, world.materials)
        joints = pose.world_positions()
        low, high = mesh.positions.min(axis=0), mesh.positions.max(axis=0)
        assert np.all(joints >= low - 0.05) and np.all(joints <= high + 0.05)  # the skin wraps the posed joints
        assert abs(float(low[1]) - float(pose.position[1])) < 0.3  # standing on its feet, where it is
        assert 1.2 < float(high[1] - low[1]) < 3.0  # a person's height (the enemy is drawn larger)
        assert set(mesh.mat_a.tolist()) == {world.materials.id_of(KIND_MATERIALS[pose.kind])}
        assert np.allclose(np.linalg.norm(mesh.normals, axis=1), 1.0, atol=1e-5)
        assert mesh.indices.max() < len(mesh.positions)
