"""The world's collider as two levels: a BVH per chunk, built only when that chunk's collision mesh changes,
combined with the props' BVH; it answers as one BVH over the merged collision mesh and the props would."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.collision import TriangleBVH
from voxelworld.game.collider import chunk_bvhs, focus_boxes
from voxelworld.game.level import surface_height
from voxelworld.game.world import Inputs, VoxelEdit, World
from voxelworld.meshing import merge_collision_meshes
from voxelworld.terrain import Sphere


def _reference(world: World) -> TriangleBVH:
    """One BVH over the collider's chunks' merged collision mesh, then the props (the collider before issue 29)."""
    terrain = merge_collision_meshes([world.mesher.chunk_collision_mesh(c) for c in world._collider_key[0]])
    positions = [terrain.positions.astype(np.float64)] + [p.positions for p in world.props]
    offsets = np.cumsum([0] + [len(p) for p in positions])
    indices = [terrain.indices.astype(np.int64)] + [p.indices + offsets[n + 1] for n, p in enumerate(world.props)]
    material = [terrain.tri_material] + [np.full(len(p.indices), world.materials.id_of(p.material), np.uint8)
                                         for p in world.props]
    objects = [np.full(terrain.triangle_count, -1)] + [np.full(len(p.indices), n) for n, p in enumerate(world.props)]
    return TriangleBVH(np.concatenate(positions), np.concatenate(indices), np.concatenate(material),
                       np.concatenate(objects))


def _rays(world: World, count: int, seed: int):
    rng = np.random.default_rng(seed)
    lo, hi = world.volume.origin, world.volume.index_to_world(np.array(world.volume.shape) - 1)
    origins = rng.uniform(lo, hi, (count, 3))
    directions = rng.normal(size=(count, 3))
    return origins, directions


def test_the_combined_collider_answers_as_one_bvh_over_the_merged_mesh_before_and_after_digs():
    world = World.demo(seed=0)
    for frame in range(3):
        if frame:
            world.volume.remove(Sphere(tuple(world.player.position + [2.0, 0.0, 1.0 * frame]), 1.2))
            world.step(Inputs())
        reference = _reference(world)
        origins, directions = _rays(world, 400, frame)
        ours, theirs = world.collider.raycast(origins, directions), reference.raycast(origins, directions)
        assert ours.hit.sum() > 50
        for name in ("distance", "triangle", "material", "object"):
            assert np.array_equal(getattr(ours, name), getattr(theirs, name)), name
        a, b = origins[:50], origins[:50] + directions[:50]
        ours, theirs = world.collider.overlap_capsule(a, b, 1.5), reference.overlap_capsule(a, b, 1.5)
        assert len(ours.triangle) and np.array_equal(ours.triangle, theirs.triangle)
        assert np.array_equal(ours.depth, theirs.depth)


def test_a_dig_builds_again_only_the_bvhs_of_the_chunks_whose_collision_mesh_changed():
    world = World.demo(seed=0, npcs=0)
    bvhs = chunk_bvhs(world.mesher)
    world.step(Inputs())
    chunks = world._collider_key[0]
    assert len(chunks) > 20
    before = bvhs.builds
    revisions = {c: world.mesher.collision_revision(c) for c in chunks}
    world.volume.remove(Sphere(tuple(world.player.position + [3.0, 0.0, 0.0]), 1.0))
    world.step(Inputs())
    changed = [c for c in chunks if world.mesher.collision_revision(c) != revisions[c]]
    assert 0 < len(changed) < 8
    # The enemy's blade asks the same shared BVHs: each changed chunk is built once, whoever asks.
    assert bvhs.builds - before == len(changed)


def test_chunk_bvhs_let_go_of_chunks_no_lookup_named_for_a_while_and_build_them_again_when_asked():
    from voxelworld.game.collider import ChunkBVHs
    from voxelworld.meshing import ChunkMesher
    from voxelworld.terrain import VoxelVolume

    mesher = ChunkMesher(VoxelVolume.from_sdf(lambda x, y, z: y - 10.3 - 0.5 * np.sin(x / 3.0), (96, 24, 96), "soil",
                                              chunk_size=16))
    mesher.update()
    bvhs = ChunkBVHs(mesher)
    here, there = mesher.collision_key(near=(10.0, 20.0, 10.0), radius=4.0), \
        mesher.collision_key(near=(90.0, 20.0, 90.0), radius=4.0)
    assert here[0] and there[0] and not set(here[0]) & set(there[0])
    first = bvhs.parts(here)
    built = bvhs.builds
    assert first and bvhs.parts(here) == first and bvhs.builds == built  # kept: nothing built again
    for _ in range(600):  # let go of after 256 to 512 lookups without them
        bvhs.parts(there)
    before = bvhs.builds
    again = bvhs.parts(here)  # let go of meanwhile: built again, the same triangles
    assert bvhs.builds - before == built
    assert [b.triangle_count for b in again] == [b.triangle_count for b in first]


@pytest.mark.parametrize("near", ["player", "table"])
def test_the_enemys_blade_reads_the_worlds_collider_where_it_covers_its_reach_and_touches_the_same(near):
    """TerrainContacts.refresh with the world's collider: inside the collider's box it asks it, and every capsule
    meets what the chunks' own BVHs give, asked one by one (the props' triangles, in the collider, are not
    terrain); outside the box it asks the chunks within reach."""
    from voxelworld.game.terrain_contacts import TerrainContacts

    world = World.demo(seed=0, npcs=0)
    world.step(Inputs())
    (box,) = world.collider.boxes  # one actor: one box
    table = next(p for p in world.props if p.name == "table")
    centre = np.array(world.player.position) + (1.0, 0.8, 0.0) if near == "player" else table.positions.mean(axis=0)
    shared, own = TerrainContacts(world.volume, world.mesher, 1.5), TerrainContacts(world.volume, world.mesher, 1.5)
    shared.refresh(centre, world.collider)
    own.refresh(centre)
    assert world.collider.covers(centre, 1.5) and shared._parts == [world.collider.bvh]
    assert len(own._parts) > 1 and world.collider.bvh not in own._parts
    rng = np.random.default_rng(4)
    met = 0
    for _ in range(300):
        start = centre + rng.uniform(-1.0, 1.0, 3)
        end = start + rng.uniform(-0.6, 0.6, 3)
        a, b = shared(start, end, 0.2), own(start, end, 0.2)
        assert a == b
        met += a is not None
    assert met > 20
    far = np.array(box.max) + 5.0
    assert not world.collider.covers(far, 1.5)
    shared.refresh(far, world.collider)
    assert world.collider.bvh not in shared._parts


def test_focus_boxes_merge_the_boxes_that_meet_and_keep_the_others_apart():
    radius = 2.0
    close = focus_boxes([[0.0, 0.0, 0.0], [3.0, 1.0, 0.0]], radius)  # their boxes meet: the joint box
    assert [(b.min, b.max) for b in close] == [((-2.0, -2.0, -2.0), (5.0, 3.0, 2.0))]
    far = focus_boxes([[20.0, 0.0, 0.0], [0.0, 0.0, 0.0]], radius)  # apart: a box each, lowest corner first
    assert [(b.min, b.max) for b in far] == [((-2.0, -2.0, -2.0), (2.0, 2.0, 2.0)), ((18.0, -2.0, -2.0),
                                                                                  (22.0, 2.0, 2.0))]
    # A chain: the first and last meet only through the joint box of the first two.
    chain = focus_boxes([[0.0, 0.0, 0.0], [3.9, 0.0, 0.0], [7.8, 0.0, 0.0], [30.0, 0.0, 0.0]], radius)
    assert [(b.min[0], b.max[0]) for b in chain] == [(-2.0, 9.8), (28.0, 32.0)]
    assert focus_boxes([[30.0, 0.0, 0.0], [7.8, 0.0, 0.0], [3.9, 0.0, 0.0], [0.0, 0.0, 0.0]], radius) == chain


def test_players_far_apart_collide_each_in_a_box_of_its_own_not_one_over_the_ground_between():
    """Two players in opposite corners of the demo world: the collider holds the chunks around each (both stand
    and walk on the ground, and a dig near the far one is in the collider at once), not the box between them."""
    world = World.demo(seed=0, npcs=0)
    x, z = 44.0, 4.0  # (the player starts near x 19, z 24: their boxes, 12 m every way, do not meet along x)
    guest = world.join("guest", spawn=(x, surface_height(world.volume, x, z), z))
    for _ in range(60):
        world.step([Inputs(), Inputs(move=(0.0, 1.0))])
    boxes = world.collider.boxes
    assert len(boxes) == 2 and world.player.grounded and guest.player.grounded
    middle = (np.array(world.player.position) + guest.player.position) / 2
    assert not world.collider.covers(middle, 1.0)
    assert all(world.collider.covers(p.position, 2.0) for p in (world.player, guest.player))
    down = world.collider.raycast(np.array([guest.player.position]) + (1.0, 2.0, 0.0), [[0.0, -1.0, 0.0]])
    assert np.isfinite(down.distance[0])
    world.queue_edit(VoxelEdit("remove", Sphere(tuple(down.point[0]), 1.0), source="dig"))
    world.step([Inputs(), Inputs()])
    deeper = world.collider.raycast(np.array([guest.player.position]) + (1.0, 2.0, 0.0), [[0.0, -1.0, 0.0]])
    assert deeper.distance[0] > down.distance[0] + 0.5  # the hole, in the collider the frame it was dug
