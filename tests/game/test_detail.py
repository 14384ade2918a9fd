"""Display detail near the actors that dig (game/detail.py and World's use of it): level 0 near the player and
the enemies, the mesh options' levels everywhere else (NPCs only walk: no detail of their own), a bounded number
of chunks changed per frame, and the collision mesh untouched."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.detail import chunk_distances, next_levels, wanted_levels
from voxelworld.game.settings import WorldSettings
from voxelworld.game.world import Inputs, World
from voxelworld.terrain import Sphere, VoxelVolume


def ground() -> VoxelVolume:
    return VoxelVolume.from_sdf(lambda x, y, z: y - 6.3, (64, 24, 64), "soil", chunk_size=8)


def box_distance(volume: VoxelVolume, chunk, point) -> float:
    """From the definition: the distance from ``point`` to the chunk's box of samples, in metres."""
    lo = np.array(chunk) * volume.chunk_size
    hi = np.minimum(lo + volume.chunk_size, np.array(volume.shape) - 1)
    local = (np.asarray(point, dtype=float) - volume.origin) / volume.voxel_size
    return float(np.linalg.norm(np.maximum(np.maximum(lo - local, local - hi), 0.0)) * volume.voxel_size)


def test_chunk_distances_are_the_plain_distances_bit_for_bit():
    """The kernel against the definition, written plainly (the sum of squared gaps taken x, y, z, as numpy's
    broadcast took it before): chunks at the volume's last samples, points inside, beside and far outside, one
    point or many, an origin and a voxel size of their own."""
    rng = np.random.default_rng(4)
    for volume in (ground(), VoxelVolume((37, 19, 21), chunk_size=8, voxel_size=0.3, origin=(-2.0, 1.0, 5.0))):
        for count in (1, 2, 9):
            points = rng.uniform(-20.0, 60.0, size=(count, 3))
            out = chunk_distances(volume, points)
            assert out.shape == volume.chunk_grid_shape
            for chunk in product(*(range(n) for n in volume.chunk_grid_shape)):
                lo = np.array(chunk) * volume.chunk_size
                hi = np.minimum(lo + volume.chunk_size, np.array(volume.shape) - 1)
                best = np.inf
                for point in points:
                    local = (point - volume.origin) / volume.voxel_size
                    gap = np.maximum(np.maximum(lo - local, local - hi), 0.0)
                    best = min(best, (gap[0] * gap[0] + gap[1] * gap[1]) + gap[2] * gap[2])
                assert out[chunk] == np.sqrt(best) * volume.voxel_size, chunk
            assert out.min() == 0.0 or not ((points >= volume.origin) & (points <= volume.origin + (
                np.array(volume.shape) - 1) * volume.voxel_size)).all(axis=1).any()


def test_wanted_levels_are_fine_near_each_actor_and_coarse_everywhere_else():
    volume = ground()
    rng = np.random.default_rng(2)
    points = rng.uniform(0.0, 63.0, size=(3, 3))
    levels = wanted_levels(volume, points, 5.0, 3)
    for chunk in product(*(range(n) for n in volume.chunk_grid_shape)):
        nearest = min(box_distance(volume, chunk, p) for p in points)
        assert levels[chunk] == (0 if nearest <= 5.0 else 3), chunk  # no ring of middle levels
    assert 0 < (levels == 0).sum() < levels.size // 4


def test_next_levels_moves_at_most_the_budget_nearest_first():
    volume = ground()
    current = np.full(volume.chunk_grid_shape, 2, dtype=np.int64)
    player = (4.0, 6.3, 4.0)
    wanted = wanted_levels(volume, [player], 6.0, 2)
    step = next_levels(current, wanted, volume, [player], 3)
    moved = np.argwhere(step != current)
    assert len(moved) == 3
    assert np.all(step[tuple(moved.T)] == wanted[tuple(moved.T)])
    still = np.argwhere(step != wanted)
    assert max(box_distance(volume, c, player) for c in moved) <= min(box_distance(volume, c, player)
                                                                      for c in still)
    while not np.array_equal(current, wanted):
        current = next_levels(current, wanted, volume, [player], 3)
    np.testing.assert_array_equal(current, wanted)


def test_the_world_follows_its_actors_a_few_chunks_a_frame_and_keeps_its_collision_mesh():
    settings = WorldSettings(detail_radius=3.0, detail_changes_per_frame=2)
    world = World(ground(), settings=settings, spawn=(8.0, 6.3, 8.0))
    coarse = World(ground(), settings=settings, spawn=(8.0, 6.3, 8.0))
    levels = world.mesher.display_levels
    home = tuple(int(c) for c in np.floor((world.player.position - world.volume.origin) / world.volume.voxel_size
                                          / world.volume.chunk_size))
    assert levels[home] == 0 and levels.max() == settings.mesh_options.levels
    world.player.position[:] = (50.0, 6.3, 50.0)
    far = (6, 0, 6)
    changes = []
    for _ in range(40):
        before = world.mesher.display_levels
        world.step(Inputs())
        changes.append(int(np.sum(world.mesher.display_levels != before)))
    assert max(changes) == 2 and changes[-1] == 0  # spread over frames, then done
    assert world.mesher.display_levels[far] == 0 and world.mesher.display_levels[home] == 2
    # The collision mesh does not depend on the display levels.
    coarse.mesher.set_display_levels(np.full(coarse.volume.chunk_grid_shape, 2))
    coarse.mesher.update()
    assert world.mesher.collision_mesh().positions.tobytes() == coarse.mesher.collision_mesh().positions.tobytes()


def test_a_punched_hole_near_the_player_keeps_its_voxel_scale_shape():
    fine = World(ground(), spawn=(8.0, 6.3, 8.0))
    coarse = World(ground(), settings=WorldSettings(detail_radius=0.0), spawn=(40.0, 6.3, 40.0))
    for world in (fine, coarse):
        world.volume.remove(Sphere((9.6, 6.3, 9.6), 1.1))
        world.step(Inputs())
    chunk = (1, 0, 1)
    assert fine.mesher.display_levels[chunk] == 0 and coarse.mesher.display_levels[chunk] == 2
    assert fine.mesher.meshes[chunk].triangle_count > 2 * coarse.mesher.meshes[chunk].triangle_count


@pytest.mark.parametrize("field, value", [("detail_radius", -1.0), ("detail_radius", float("nan")),
                                          ("detail_changes_per_frame", 0), ("detail_changes_per_frame", 1.5)])
def test_bad_detail_settings_are_refused(field, value):
    with pytest.raises(ParameterError, match=field):
        WorldSettings(**{field: value})


def test_enemies_get_detail_too_npcs_do_not():
    world = World(ground(), settings=WorldSettings(detail_radius=2.0), spawn=(4.0, 6.3, 4.0))
    world.agents.add_npc("walker", (60.0, 6.3, 4.0))
    world.agents.add_enemy("saw", (4.0, 6.3, 60.0))
    for _ in range(12):
        world.step(Inputs())
    levels = world.mesher.display_levels
    assert levels[(0, 0, 7)] == 0  # the chunk under the enemy, which carves
    assert levels[(7, 0, 0)] == 2  # under the NPC, which only walks
    assert levels[(7, 0, 7)] == 2  # the far corner, away from everyone


def test_wanted_levels_kept_between_frames_are_exactly_the_levels_worked_out_afresh():
    from voxelworld.game.detail import wanted_levels_since
    from voxelworld.terrain import VoxelVolume

    volume = VoxelVolume((96, 32, 96), voxel_size=0.5, chunk_size=16)
    rng = np.random.default_rng(5)
    points = np.array([[20.0, 8.0, 20.0], [30.0, 8.0, 10.0]])
    kept, reused = None, 0
    for _ in range(400):
        points = points + rng.normal(0.0, 0.15, points.shape)  # walking pace, now and then across a radius
        previous = kept
        kept = wanted_levels_since(kept, volume, points, 3.0, 2)
        reused += kept is previous
        assert np.array_equal(kept.levels, wanted_levels(volume, points, 3.0, 2))
    assert 100 < reused < 400  # mostly kept, but worked out again as chunks crossed the radius


def test_kept_levels_follow_actors_walking_straight_across_chunks_and_off_the_volume():
    """Working the levels out again looks at the chunks near the actors alone: a straight walk across several chunk
    borders (and past the volume's side, where a chunk beyond the last is none) gives every frame the levels a
    look at every chunk gives."""
    from voxelworld.game.detail import wanted_levels_since
    from voxelworld.terrain import VoxelVolume

    volume = VoxelVolume((128, 32, 96), voxel_size=0.5, chunk_size=16)  # chunks of 8 m
    kept, reused = None, 0
    for step in range(900):
        t = 0.1 * step
        points = np.array([[-10.0 + t, 7.9, 20.0], [40.0, 3.0, -6.0 + 0.6 * t], [75.0 - 0.3 * t, 12.0, 30.0]])
        previous = kept
        kept = wanted_levels_since(kept, volume, points, 3.0, 2)
        reused += kept is previous
        assert np.array_equal(kept.levels, wanted_levels(volume, points, 3.0, 2)), step
    assert reused > 300


def test_levels_worked_out_again_unchanged_are_the_same_array():
    from voxelworld.game.detail import wanted_levels_since

    volume = VoxelVolume((96, 32, 96), voxel_size=0.5, chunk_size=16)
    rng = np.random.default_rng(7)
    points = np.array([[20.0, 8.0, 20.0]])
    kept, same, changed = None, 0, 0
    for _ in range(300):
        points = points + rng.normal(0.0, 0.3, points.shape)
        previous = kept
        kept = wanted_levels_since(kept, volume, points, 3.0, 2)
        if previous is None or kept is previous:
            continue
        # Worked out again: the previous array itself exactly when the levels did not change (a caller tells so).
        equal = np.array_equal(kept.levels, wanted_levels(volume, previous.points, 3.0, 2))
        assert (kept.levels is previous.levels) == equal
        same, changed = same + equal, changed + (not equal)
    assert same > 10 and changed > 10


def test_levels_changed_behind_a_settled_world_are_moved_back():
    """The world stops comparing its levels with the wanted ones once they agree; a level set from outside since
    (the mesher's display_levels_revision) makes it look again."""
    settings = WorldSettings(detail_radius=3.0, detail_changes_per_frame=2)
    world = World(ground(), settings=settings, spawn=(8.0, 6.3, 8.0))
    for _ in range(20):
        world.step(Inputs())
    settled = world.mesher.display_levels
    assert np.array_equal(settled, wanted_levels(world.volume, [world.player.position], 3.0,
                                                 settings.mesh_options.levels))
    before = world.mesher.display_levels_revision
    coarse = settled.copy()
    coarse[settled == 0] = settings.mesh_options.levels
    world.mesher.set_display_levels(coarse)
    assert world.mesher.display_levels_revision == before + 1
    world.mesher.set_display_levels(coarse)  # the same levels again: no change, no new revision
    assert world.mesher.display_levels_revision == before + 1
    for _ in range(20):
        world.step(Inputs())
    assert np.array_equal(world.mesher.display_levels, settled)


def test_distances_of_listed_chunks_are_the_grids_bit_for_bit():
    rng = np.random.default_rng(9)
    for volume in (ground(), VoxelVolume((37, 19, 21), chunk_size=8, voxel_size=0.3, origin=(-2.0, 1.0, 5.0))):
        every = np.array(list(product(*(range(n) for n in volume.chunk_grid_shape))))
        for count in (1, 3, 8):
            points = rng.uniform(-20.0, 60.0, size=(count, 3))
            grid = chunk_distances(volume, points)
            listed = every[rng.permutation(len(every))[: len(every) // 2]]
            assert chunk_distances(volume, points, listed).tobytes() == grid[tuple(listed.T)].tobytes()
            assert chunk_distances(volume, points, np.zeros((0, 3), dtype=np.int64)).shape == (0,)


def test_chunks_near_points_kernel_matches_a_plain_loop():
    """The kernel listing the chunks near the actors against a plain-Python loop over every chunk: each chunk
    whose index lies, along every axis, from one below the chunk of ``point - reach`` to the chunk of
    ``point + reach`` (clipped to the grid), for some point; sorted, each once."""
    import math

    from voxelworld.game._kernels import chunks_near_points

    rng = np.random.default_rng(11)
    for _ in range(40):
        grid = rng.integers(1, 7, 3)
        size = int(rng.integers(2, 9))
        points = rng.uniform(-2 * size, (grid + 2) * size, (int(rng.integers(0, 4)), 3))
        reach = float(rng.uniform(0.0, 2.5 * size))
        expected = []
        for i, j, k in np.ndindex(*grid):
            for p in points:
                ranges = [(min(max(math.floor((v - reach) / size) - 1, 0), n - 1),
                           min(max(math.floor((v + reach) / size), -1), n - 1)) for v, n in zip(p, grid)]
                if all(a <= c <= b for c, (a, b) in zip((i, j, k), ranges)):
                    expected.append((i * grid[1] + j) * grid[2] + k)
                    break
        assert chunks_near_points(points, size, grid.astype(np.int64), reach).tolist() == expected
