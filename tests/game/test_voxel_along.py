"""``voxel_along`` (what the HUD's aim and a refusal as too hard report): the first solid voxel sample along the
stretch of the ray around where it met the collision mesh, all samples read at once, the same as reading them one
by one (the plain reference below) for rays in every direction, from inside and outside the ground and near the
volume's edges."""

from __future__ import annotations

import numpy as np

from voxelworld.game.aim import voxel_along
from voxelworld.game.world import World


def voxel_along_one_by_one(world: World, eye, direction, distance):
    volume = world.volume
    eye, direction = np.asarray(eye, dtype=np.float64), np.asarray(direction, dtype=np.float64)
    s = volume.voxel_size
    reach = 2.0 * s + volume.voxel_size * world.settings.mesh_options.collision_tolerance
    for t in np.arange(max(distance - reach, 0.0), distance + reach, 0.25 * s):
        index = np.floor(volume.world_to_index(eye + direction * t) + 0.5).astype(np.int64)
        if np.all(index >= 0) and np.all(index < volume.shape):
            key = tuple(int(v) for v in index)
            if volume.read_voxel(key)["density"] >= volume.iso:
                return key
    return None


def test_the_first_solid_sample_is_the_one_a_sample_by_sample_walk_finds():
    world = World.demo(seed=0, npcs=0)
    rng = np.random.default_rng(7)
    lo, hi = world.volume.origin, world.volume.origin + np.array(world.volume.shape) * world.volume.voxel_size
    found = missed = 0
    for _ in range(300):
        eye = rng.uniform(lo - 2.0, hi + 2.0)  # some outside the volume
        direction = rng.normal(size=3)
        direction /= np.linalg.norm(direction)
        distance = float(rng.uniform(0.0, 30.0))
        expected = voxel_along_one_by_one(world, eye, direction, distance)
        assert voxel_along(world, eye, direction, distance) == expected
        found, missed = found + (expected is not None), missed + (expected is None)
    assert found > 30 and missed > 30  # both kinds of answer were tried
    # The player's own aim at the ground in front of it: a voxel in the ground.
    player = world.player
    hits = world.collider.raycast(player.eye, (0.0, -0.7071, -0.7071), 30.0)
    voxel = voxel_along(world, player.eye, np.array([0.0, -0.7071, -0.7071]), float(hits.distance[0]))
    assert voxel is not None and world.volume.read_voxel(voxel)["density"] >= world.volume.iso
