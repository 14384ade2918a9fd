"""WorldNavigation: the navmesh of a voxel terrain and its props, re-baked only where the terrain changes."""

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.navigation import WorldNavigation
from voxelworld.meshing import ChunkMesher
from voxelworld.navigation import QueryFilter, SceneObject
from voxelworld.terrain import Cylinder, VoxelVolume

GROUND_Y = 4.0


def flat_world(size=64):
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - GROUND_Y, (size, 16, size), material="soil", voxel_size=0.5,
                                  chunk_size=8)
    return volume, ChunkMesher(volume)


def crate(name, x, z, height, side=1.2):
    corners = [[x + dx, GROUND_Y + dy, z + dz] for dx in (0, side) for dy in (0, height) for dz in (0, side)]
    faces = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
             [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    return SceneObject(name, corners, faces)


def same_navmesh(a, b):
    return all(np.array_equal(getattr(a, name), getattr(b, name)) for name in
               ("vertices", "polygon_start", "polygon_vertices", "polygon_level", "portals", "portal_segments"))


def test_props_become_obstacles_by_height_and_levels_keep_their_tops():
    volume, mesher = flat_world(48)
    props = [crate("table", 8.0, 8.0, 1.0, side=3.0), crate("rug", 16.0, 16.0, 0.05)]
    nav = WorldNavigation(volume, mesher, props)
    assert nav.scene["table"].role == "obstacle" and nav.scene["rug"].role == "floor"
    assert nav.scene.names[0].startswith("terrain/")
    assert nav.mesh.area(level=1) > 1.0  # the table top is walkable ground of its own
    bare = WorldNavigation(volume, mesher)
    assert nav.mesh.area(level=0) < bare.mesh.area(level=0)  # the ground under the table is cut out


def test_update_rebakes_only_touched_tiles_and_equals_a_full_bake():
    volume, mesher = flat_world()
    nav = WorldNavigation(volume, mesher, [crate("crate", 24.0, 24.0, 1.0)])
    tiles_total = int(np.prod(np.ceil(np.array(nav.region.size)[[0, 2]] / nav.tile_size)))
    before = nav.mesh.area()
    edit = volume.remove(Cylinder((5.0, 1.0, 5.0), (5.0, 8.0, 5.0), 1.5))
    mesher.update()
    tiles = nav.update(edit.dirty_chunks)
    assert tiles and len(tiles) < tiles_total
    # Only tiles near the hole (x, z in 3.5..6.5 m, tiles of 9.6 m) changed; the far corner did not.
    assert all(ti <= 1 and tk <= 1 for _, ti, tk in tiles)
    assert nav.mesh.area() < before - 7.0
    assert nav.revision == 1 and nav.changed_since(0) == frozenset(tiles)
    # The navigation wing's guarantee, checked once here: the re-bake equals a full bake of the new scene.
    assert same_navmesh(nav.mesh, nav.full_bake())
    # A changed voxel that changes no collision triangle re-bakes nothing.
    assert nav.update([(7, 1, 7)]) == [] and nav.revision == 1


def test_scene_objects_are_per_chunk_and_only_changed_chunks_are_replaced():
    volume, mesher = flat_world(48)
    nav = WorldNavigation(volume, mesher)
    objects = {obj.name: obj for obj in nav.scene}
    edit = volume.remove(Cylinder((5.0, 1.0, 5.0), (5.0, 8.0, 5.0), 1.5))
    mesher.update()
    nav.update(edit.dirty_chunks)
    kept = [name for name, obj in objects.items() if name in nav.scene and nav.scene[name] is obj]
    assert 0 < len(objects) - len(kept) < 12 and len(kept) > 20


def test_deterministic():
    results = []
    for _ in range(2):
        volume, mesher = flat_world(48)
        nav = WorldNavigation(volume, mesher, [crate("crate", 12.0, 12.0, 1.0)])
        edit = volume.remove(Cylinder((7.0, 1.0, 7.0), (7.0, 8.0, 7.0), 2.0))
        mesher.update()
        results.append((nav.update(edit.dirty_chunks), nav.mesh))
    assert results[0][0] == results[1][0] and same_navmesh(results[0][1], results[1][1])


def test_bad_input_raises_parameter_error():
    volume, mesher = flat_world(48)
    other, _ = flat_world(48)
    with pytest.raises(ParameterError, match="mesher"):
        WorldNavigation(other, mesher)
    with pytest.raises(ParameterError, match="volume"):
        WorldNavigation("terrain", mesher)
    with pytest.raises(ParameterError, match="settings"):
        WorldNavigation(volume, mesher, settings={"levels": True})
    with pytest.raises(ParameterError, match="prop_min_height"):
        WorldNavigation(volume, mesher, prop_min_height=-1)
    with pytest.raises(ParameterError, match="props"):
        WorldNavigation(volume, mesher, props=[("crate", [], [])])
    with pytest.raises(ParameterError, match="props"):
        WorldNavigation(volume, mesher, props=[crate("terrain/0,0,0", 1.0, 1.0, 1.0)])
    nav = WorldNavigation(volume, mesher)
    area = nav.mesh.area()
    with pytest.raises(ParameterError, match="chunks"):
        nav.update([(99, 0, 0)])
    with pytest.raises(ParameterError, match="chunks"):
        nav.update(5)
    assert nav.mesh.area() == area and nav.revision == 0


def test_a_turned_region_is_refused_before_the_bake():
    from voxelworld.navigation import SearchRegion

    volume, mesher = flat_world(16)
    region = SearchRegion((0, 3, 0), (7, 8, 7), rotation=(0.1, 0, 0, 1))
    with pytest.raises(ParameterError) as caught:
        WorldNavigation(volume, mesher, region=region)
    assert caught.value.parameter == "region.rotation"


def test_an_agents_filter_goes_to_the_crowd():
    volume, mesher = flat_world(32)
    nav = WorldNavigation(volume, mesher)
    avoid = QueryFilter(exclude={"hazard"})
    agent = nav.add_agent([4.0, GROUND_Y, 4.0], 0.3, 1.5, 0.3, 1.0, filter=avoid)
    assert nav.crowd.position(agent)[[0, 2]].tolist() == pytest.approx([4.0, 4.0])
    with pytest.raises(ParameterError) as caught:  # every polygon is ground: nowhere to stand
        nav.add_agent([4.0, GROUND_Y, 4.0], 0.3, 1.5, 0.3, 1.0, filter=QueryFilter(exclude={"ground"}))
    assert caught.value.parameter == "position"
