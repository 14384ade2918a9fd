"""The terrain's area types (issue 33 §2): ground within 1 m of lava is "hazard", ice "slippery", a material's
``area_type`` column names its own; re-bakes after the terrain changes keep them as a full bake gives them; the
demo world's lava pool is ringed by hazard polygons; world files carry them (version 3) and older files load as
all ground."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from voxelworld.errors import FormatError, ParameterError
from voxelworld.game.nav_areas import HAZARD_DISTANCE, TerrainAreaTypes
from voxelworld.game.navigation import WorldNavigation
from voxelworld.game.npcs import NPC, NPCSettings
from voxelworld.game.world import World
from voxelworld.io import load_world, save_world
from voxelworld.meshing import ChunkMesher, MeshOptions
from voxelworld.navigation import NavQuery
from voxelworld.navigation.filters import QueryFilter
from voxelworld.terrain import Box, Material, MaterialTable, VoxelVolume

from ..io.forge import set_in_state, state_row, write_state_text

GROUND_Y = 4.0


def painted_world(table: MaterialTable | None = None) -> tuple[VoxelVolume, ChunkMesher]:
    """A flat soil world 24 m square with a lava patch (x 4..7 m) and an ice patch (x 14..18 m) in its top
    voxels, z 8..14 m."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - GROUND_Y, (48, 16, 48), material="soil", voxel_size=0.5,
                                  chunk_size=8, materials=table)
    volume.paint(Box((4.0, GROUND_Y - 1.0, 8.0), (7.0, GROUND_Y + 0.5, 14.0)), "lava")
    volume.paint(Box((14.0, GROUND_Y - 1.0, 8.0), (18.0, GROUND_Y + 0.5, 14.0)), "ice")
    # Collision triangles of one cell each: the default merges flat ground of two materials into one triangle.
    return volume, ChunkMesher(volume, volume.materials, MeshOptions(levels=0, collision_levels=0))


def type_areas(mesh) -> dict[str, float]:
    areas = mesh.polygon_areas()
    return {name: round(float(areas[mesh.polygon_area_type == n].sum()), 3) for n, name in enumerate(mesh.area_types)}


def centres(mesh, kind: str) -> np.ndarray:
    n = mesh.area_types.index(kind)
    return np.array([mesh.polygon(q).mean(axis=0) for q in np.flatnonzero(mesh.polygon_area_type == n)])


def test_lava_rings_itself_with_hazard_and_ice_is_slippery():
    volume, mesher = painted_world()
    nav = WorldNavigation(volume, mesher)
    mesh = nav.mesh
    assert mesh.area_types == ("ground", "hazard", "slippery")
    areas = type_areas(mesh)
    # The lava (about 4 m x 7 m of voxels) and a ring of about 1 m around it.
    assert 18.0 < areas["hazard"] < 8.0 * 11.0  # (painted voxels reach half a voxel past the box)
    assert 18.0 < areas["slippery"] < 5.0 * 7.0
    hazard = centres(mesh, "hazard")
    assert np.all((hazard[:, 0] > 4.0 - HAZARD_DISTANCE - 1.0) & (hazard[:, 0] < 7.0 + HAZARD_DISTANCE + 1.0))
    slippery = centres(mesh, "slippery")
    assert np.all((slippery[:, 0] > 14.0 - 1.0) & (slippery[:, 0] < 18.0 + 1.0))
    # Ground 1 m off the lava is hazard; 2 m off, ground; the ice is slippery.
    query = NavQuery(mesh)
    for point, kind in (((3.3, GROUND_Y, 11.0), "hazard"), ((7.7, GROUND_Y, 11.0), "hazard"),
                        ((5.5, GROUND_Y, 11.0), "hazard"), ((2.0, GROUND_Y, 11.0), "ground"),
                        ((9.2, GROUND_Y, 11.0), "ground"), ((16.0, GROUND_Y, 11.0), "slippery")):
        _, polygon = query.nearest_point(point)
        assert mesh.area_types[mesh.polygon_area_type[polygon]] == kind, point


def test_cooling_the_lava_rebakes_the_ring_away_as_a_full_bake_gives_it():
    volume, mesher = painted_world()
    nav = WorldNavigation(volume, mesher)
    before = type_areas(nav.mesh)["hazard"]
    edit = volume.paint(Box((4.0, GROUND_Y - 1.0, 8.0), (5.5, GROUND_Y + 0.5, 14.0)), "obsidian")
    mesher.update()
    assert nav.update(edit.dirty_chunks)
    full = nav.full_bake()
    assert np.array_equal(nav.mesh.polygon_area_type, full.polygon_area_type)
    assert nav.mesh.area_types == full.area_types and nav.mesh.polygon_count == full.polygon_count
    assert np.array_equal(nav.mesh.vertices, full.vertices)
    assert 0 < type_areas(nav.mesh)["hazard"] < before - 5.0


def test_a_material_can_name_its_area_type():
    table = MaterialTable([*MaterialTable.default(), Material(id=40, name="mud", group="soil", hardness=0.5,
                                                              area_type="mud")])
    volume, mesher = painted_world(table)
    volume.paint(Box((8.0, GROUND_Y - 1.0, 18.0), (12.0, GROUND_Y + 0.5, 22.0)), "mud")
    mesher.update()
    nav = WorldNavigation(volume, mesher)
    assert nav.mesh.area_types == ("ground", "hazard", "mud", "slippery")  # the scene's: ground, then sorted
    assert 10.0 < type_areas(nav.mesh)["mud"] < 5.0 * 5.0  # 4 m x 4 m, and half a voxel around
    names = TerrainAreaTypes(table)
    assert names.code[table.id_of("mud")] == 3 and names.code[table.id_of("ice")] == 2


def test_without_area_types_every_triangle_is_ground():
    volume, mesher = painted_world()
    mesh = WorldNavigation(volume, mesher, area_types=False).mesh
    assert mesh.area_types == ("ground",) and not mesh.polygon_area_type.any()


# --------------------------------------------------------------------------------------------------- demo world
@pytest.fixture(scope="module")
def demo():
    world = World.demo(seed=0, npcs=0)
    world.agents.navigate()
    return world


def test_the_demo_worlds_lava_pool_is_ringed_by_hazard(demo):
    mesh = demo.agents.navigation.mesh
    lava = demo.materials.id_of("lava")
    points = []
    for collision in demo.agents.navigation.chunk_meshes.values():
        if collision is not None and (collision.tri_material == lava).any():
            points.append(collision.positions[collision.indices[collision.tri_material == lava]].reshape(-1, 3))
    lava_points = np.concatenate(points)
    lo, hi = lava_points.min(axis=0), lava_points.max(axis=0)
    hazard = centres(mesh, "hazard")
    assert len(hazard) >= 4
    # Hazard polygons lie at the pool, within the hazard distance and a polygon's reach of its box ...
    reach = HAZARD_DISTANCE + 2.0
    assert np.all((hazard[:, [0, 2]] > lo[[0, 2]] - reach) & (hazard[:, [0, 2]] < hi[[0, 2]] + reach))
    # ... and all around it: on each side of the pool's centre, along x and along z, there is hazard.
    centre = (lo + hi) / 2
    for axis in (0, 2):
        assert (hazard[:, axis] < centre[axis]).any() and (hazard[:, axis] > centre[axis]).any()
    # No ground polygon reaches within half a metre of a lava triangle's corner.
    ground = np.flatnonzero(mesh.polygon_area_type == 0)
    corners = mesh.vertices[np.concatenate([mesh.polygon_vertices[mesh.polygon_start[q]:mesh.polygon_start[q + 1]]
                                            for q in ground])]
    gaps = np.hypot(corners[:, None, 0] - lava_points[None, :, 0], corners[:, None, 2] - lava_points[None, :, 2])
    assert gaps.min() > 0.5


def test_world_files_keep_the_area_types_and_older_files_load_as_ground(demo, tmp_path):
    path = tmp_path / "world.vxw"
    save_world(demo, path)
    loaded = load_world(path).agents.navigation
    assert loaded is not None and loaded.mesh.area_types == demo.agents.navigation.mesh.area_types
    assert np.array_equal(loaded.mesh.polygon_area_type, demo.agents.navigation.mesh.polygon_area_type)
    assert state_row(path, "navigation")["terrain_area_types"] is True
    # A file of version 2: its navmesh baked all ground, its navigation row without the area keys.
    nav = demo.agents.navigation
    demo.agents.navigation = WorldNavigation(demo.volume, demo.mesher, nav.props, nav.settings, nav.prop_min_height,
                                             nav.region, area_types=False)
    old = tmp_path / "old.vxw"
    try:
        save_world(demo, old)
    finally:
        demo.agents.navigation = nav
    row = state_row(old, "navigation")
    assert row.pop("terrain_area_types") is False
    row.pop("area_types")
    write_state_text(old, "navigation", json.dumps(row, separators=(",", ":")))
    connection = sqlite3.connect(old)
    connection.execute("DELETE FROM arrays WHERE name = 'navmesh.polygon_area_type'")
    connection.execute("UPDATE meta SET value = '2' WHERE key = 'version'")
    connection.commit()
    connection.close()
    mesh = load_world(old).agents.navigation.mesh
    assert mesh.area_types == ("ground",) and not mesh.polygon_area_type.any() and mesh.polygon_count
    set_in_state(path, "navigation", ["area_types"], ["ground", "lava"])
    with pytest.raises(FormatError, match="area types"):
        load_world(path)
    set_in_state(path, "navigation", ["terrain_area_types"], "yes")
    with pytest.raises(FormatError, match="'terrain_area_types' = 'yes' is not true or false"):
        load_world(path)


def lava_box(world) -> tuple[np.ndarray, np.ndarray]:
    lava = world.materials.id_of("lava")
    points = [c.positions[c.indices[c.tri_material == lava]].reshape(-1, 3)
              for c in world.agents.navigation.chunk_meshes.values() if c is not None and (c.tri_material == lava).any()]
    corners = np.concatenate(points)
    return corners.min(axis=0), corners.max(axis=0)


def walk_across_the_pool(world, settings: NPCSettings) -> tuple[list[int], bool]:
    """An NPC from the ground west of the lava pool to the ground east of it: the area type of the polygon under
    each place it stood, and whether it arrived."""
    nav = world.agents.navigation
    lo, hi = lava_box(world)
    centre = (lo + hi) / 2
    reach = HAZARD_DISTANCE + 3.0
    query = NavQuery(nav.mesh)
    ground = QueryFilter(exclude={"hazard"})
    start, _ = query.nearest_point([lo[0] - reach, centre[1], centre[2]], ground)
    goal, _ = query.nearest_point([hi[0] + reach, centre[1], centre[2]], ground)
    npc = NPC("walker", nav, start, settings)
    assert npc.walk_to(goal)
    stood, arrived = [], False
    for _ in range(600):
        arrived = any(event.kind == "arrived" for event in npc.step(0.05)) or arrived
        stood.append(int(nav.mesh.polygon_area_type[query.locate(npc.position)]))
        if arrived:
            break
    nav.crowd.remove_agent(npc.agent)
    return stood, arrived


def test_npcs_walk_around_the_lava_pools_hazard_ring(demo):
    hazard = demo.agents.navigation.mesh.area_types.index("hazard")
    stood, arrived = walk_across_the_pool(demo, NPCSettings())
    assert arrived and hazard not in stood
    # The way across is through the ring: an NPC told to weigh every area type alike walks into it.
    stood, _ = walk_across_the_pool(demo, NPCSettings(avoid_area_types=()))
    assert hazard in stood


@pytest.mark.parametrize("avoid, field", [("hazard", "avoid_area_types"), (("Lava",), "avoid_area_types[0]")])
def test_npc_settings_refuse_area_types_that_are_not_names(avoid, field):
    with pytest.raises(ParameterError) as caught:
        NPCSettings(avoid_area_types=avoid)
    assert caught.value.parameter == field
