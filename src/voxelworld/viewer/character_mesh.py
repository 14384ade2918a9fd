"""The actors as the page draws them, for the offscreen pictures: CesiumMan skinned on the CPU
(:func:`voxelworld.motion.skin`) in each actor's pose of the last frame (:mod:`voxelworld.game.poses`), placed
where the page places it, in a material of the table by kind (the page tints the model the same way: player
yellow, NPCs blue, the enemy dark)."""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from ..game.poses import model_to_world
from ..motion import CESIUM_MAN, load_gltf, skin

if TYPE_CHECKING:
    from ..game.poses import CharacterPose
    from ..motion.gltf import Character
    from ..terrain.materials import MaterialTable

__all__ = ["KIND_MATERIALS", "character_mesh"]

KIND_MATERIALS = {"player": "sand", "npc": "ice", "enemy": "obsidian"}  # the table's materials they are drawn in


@cache
def _character() -> Character:
    return load_gltf(CESIUM_MAN)


def character_mesh(pose: CharacterPose, materials: MaterialTable) -> SimpleNamespace:
    """A display mesh (positions m, smooth normals, triangles, one material) of the character in ``pose`` (a
    :class:`~voxelworld.game.poses.CharacterPose`), drawn in ``KIND_MATERIALS[pose.kind]`` of ``materials``."""
    character = _character()
    assert character.mesh is not None  # the packaged CesiumMan has its skinned mesh
    placed = model_to_world(pose.position, pose.yaw, pose.scale)
    points = skin(character, pose.skeleton_pose()) @ placed[:3, :3].T + placed[:3, 3]
    triangles = np.asarray(character.mesh.indices, dtype=np.int64)
    corners = points[triangles]
    faces = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    normals = np.zeros_like(points)
    for corner in range(3):
        np.add.at(normals, triangles[:, corner], faces)
    lengths = np.linalg.norm(normals, axis=1, keepdims=True)
    normals = np.where(lengths > 0.0, normals / np.maximum(lengths, 1e-12), (0.0, 1.0, 0.0))
    ids = np.full(len(points), materials.id_of(KIND_MATERIALS.get(pose.kind, "sand")), np.uint8)
    return SimpleNamespace(positions=points.astype(np.float32), normals=normals.astype(np.float32),
                           indices=triangles.astype(np.uint32), mat_a=ids, mat_b=ids,
                           blend=np.zeros(len(points), np.float32))
