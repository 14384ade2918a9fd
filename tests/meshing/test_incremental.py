"""ChunkMesher: incremental remeshing after edits, equal to a full remesh; blocked and no-op edits remesh
nothing; identical input gives bit-identical output; collision meshes per region, cached until their chunks
change.

Which chunks an edit may remesh, from the chunk geometry (issue #3 and the ChunkMesher notes): the cells of chunk
c (chunk size S) read samples c*S - 1 .. (c + 1)*S + 1 on every axis (corners and central-difference gradients),
so a changed sample rebuilds the vertices of the chunks R whose range holds it; a chunk's mesh also joins the
top cell layer of its lower neighbours, so the remeshed chunks lie in R and R + {0, 1}^3. Besides, a chunk's mesh
is shaded again (and reported when its occlusion changed) when a changed sample lies within the occlusion's reach
(4.5 samples, plus one interpolating) of its vertices, which lie in its cells or its lower neighbours' merged
nodes (up to 2^levels cells below it).
"""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from voxelworld.meshing import ChunkMesher, MeshOptions, collision_mesh_volume, mesh_volume
from voxelworld.terrain import Box, Capsule, Sphere, Tool, VoxelVolume

from . import builders as B

MESHED = ("density", "mat_a", "mat_b", "mix")  # what a mesh shows; damage does not


def ground(height: float, shape=(48, 32, 48), chunk_size: int = 16, material: str = "soil") -> VoxelVolume:
    """Flat ground whose surface is at y = ``height``, with a grass top layer (two materials on the surface)."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - height, shape, material=material, chunk_size=chunk_size)
    if material == "soil":
        volume.paint(Box((0.0, height - 1.2, 0.0), (shape[0], shape[1], shape[2])), "grass")
    return volume


def snapshot(volume: VoxelVolume) -> dict[str, np.ndarray]:
    return {name: getattr(volume, name).copy() for name in MESHED}


def changed_samples(before: dict, volume: VoxelVolume) -> np.ndarray:
    changed = np.zeros(volume.shape, dtype=bool)
    for name in MESHED:
        changed |= before[name] != getattr(volume, name)
    return np.argwhere(changed)


def chunks_reading(samples: np.ndarray, volume: VoxelVolume) -> set[tuple]:
    """Chunks c with c*S - 1 <= s <= (c + 1)*S + 1 on every axis for some changed sample s."""
    size, grid = volume.chunk_size, np.array(volume.chunk_grid_shape)
    if len(samples) == 0:
        return set()
    low = np.maximum(-((1 - samples) // size) - 1, 0)  # ceil((s - 1) / S) - 1
    high = np.minimum((samples + 1) // size, grid - 1)  # floor((s + 1) / S)
    found = set()
    for lo, hi in np.unique(np.concatenate([low, high], axis=1), axis=0).reshape(-1, 2, 3):
        found |= set(product(*(range(a, b + 1) for a, b in zip(lo, hi))))
    return found


def may_remesh(readers: set[tuple], volume: VoxelVolume) -> set[tuple]:
    grid = volume.chunk_grid_shape
    found = set()
    for chunk in readers:
        for offset in product((0, 1), repeat=3):
            other = tuple(c + o for c, o in zip(chunk, offset))
            if all(o < n for o, n in zip(other, grid)):
                found.add(other)
    return found


def chunks_shading(samples: np.ndarray, volume: VoxelVolume, options: MeshOptions) -> set[tuple]:
    """Chunks c with c*S - 2^levels - 5.5 <= s <= (c + 1)*S + 5.5 on every axis for some changed sample s."""
    size, grid = volume.chunk_size, volume.chunk_grid_shape
    below, above = 2 ** options.levels + 5.5, 5.5
    found = set()
    for sample in np.unique(samples, axis=0):
        ranges = [range(max(int(np.ceil((s - above) / size)) - 1, 0), min(int((s + below) // size), n - 1) + 1)
                  for s, n in zip(sample, grid)]
        found |= set(product(*ranges))
    return found


def assert_matches_full_remesh(mesher: ChunkMesher, volume: VoxelVolume, options: MeshOptions) -> None:
    """The mesher's chunk meshes are those a fresh mesher builds, and together a full mesh_volume."""
    full = mesh_volume(volume, options)
    np.testing.assert_array_equal(B.canonical_display(mesher.display_mesh()), B.canonical_display(full))
    fresh = ChunkMesher(volume, options=options)
    fresh.update()
    assert mesher.meshes.keys() == fresh.meshes.keys()
    for chunk, mesh in fresh.meshes.items():
        np.testing.assert_array_equal(B.canonical_display(mesher.meshes[chunk]), B.canonical_display(mesh))


# ------------------------------------------------------------------------------------- which chunks remesh
@pytest.mark.parametrize("options, chunk_size, shape, height", [
    (B.unsimplified(), 16, (48, 32, 48), 8.4),
    (MeshOptions(levels=3), 32, (96, 40, 96), 16.4),  # default chunks; the edit's octree nodes (8 cells) stay
])                                                    # off the chunk's top layers
def test_small_edit_in_the_middle_of_a_chunk_remeshes_only_that_chunk(options, chunk_size, shape, height):
    volume = ground(height, shape, chunk_size)
    mesher = ChunkMesher(volume, options=options)
    first = mesher.update()
    assert first.remeshed == frozenset(product(*(range(n) for n in volume.chunk_grid_shape)))
    middle = 1.5 * chunk_size
    before = snapshot(volume)
    volume.remove(Sphere((middle, height, middle), 2.5))
    samples = changed_samples(before, volume)
    home = (1, int(height // chunk_size), 1)
    # The edit (radius 2.5 plus the ramp's voxel) stays > 2 samples inside the chunk: nobody else reads it.
    assert chunks_reading(samples, volume) == {home}
    update = mesher.update()
    assert update.remeshed == {home}
    assert update.surfaces_rebuilt == {home}
    assert update.meshes[home].triangle_count > 0
    assert_matches_full_remesh(mesher, volume, options)


@pytest.mark.parametrize("options", [B.unsimplified(), MeshOptions()], ids=["unsimplified", "default"])
def test_edit_straddling_a_chunk_corner_remeshes_only_chunks_reading_it(options):
    volume = ground(16.3)  # the surface crosses the chunk corner (16, 16, 16)
    mesher = ChunkMesher(volume, options=options)
    mesher.update()
    before = snapshot(volume)
    volume.remove(Sphere((16.0, 16.3, 16.0), 2.0))
    samples = changed_samples(before, volume)
    flipped = (before["density"] >= volume.iso) != (volume.density >= volume.iso)
    around = set(product((0, 1), repeat=3))
    assert set(map(tuple, (np.argwhere(flipped) // volume.chunk_size).tolist())) == around
    readers = chunks_reading(samples, volume)
    update = mesher.update()
    assert around <= update.remeshed <= may_remesh(readers, volume) | chunks_shading(samples, volume, options)
    assert len(update.remeshed) < np.prod(volume.chunk_grid_shape)
    assert_matches_full_remesh(mesher, volume, options)


def test_every_edit_of_a_sequence_matches_a_full_remesh():
    volume = ground(16.3, shape=(40, 32, 40), chunk_size=8)
    options = MeshOptions()
    mesher = ChunkMesher(volume, options=options)
    mesher.update()
    edits = [
        lambda: volume.remove(Sphere((16.0, 16.3, 16.0), 4.0)),
        lambda: volume.add(Capsule((5.0, 17.0, 30.0), (20.0, 21.0, 33.0), 2.0), "rock"),
        lambda: volume.paint(Sphere((12.0, 16.0, 12.0), 3.0), "sand"),
        lambda: volume.expose_interior(Sphere((16.0, 14.0, 16.0), 5.0)),
        lambda: volume.scrape(Box((24.0, 10.0, 2.0), (31.0, 20.0, 9.0)), 90),
        lambda: volume.remove(Capsule((31.5, 16.0, 8.0), (32.5, 16.0, 24.0), 1.5)),  # along a chunk border
        lambda: volume.remove_fragments(),
    ]
    for edit in edits:
        before = snapshot(volume)
        edit()
        samples = changed_samples(before, volume)
        update = mesher.update()
        assert update.remeshed <= may_remesh(chunks_reading(samples, volume), volume) | chunks_shading(
            samples, volume, options)
        assert_matches_full_remesh(mesher, volume, options)


def test_the_three_steps_of_update_called_one_by_one_give_what_update_gives():
    volumes = [ground(16.3, shape=(40, 32, 40), chunk_size=8) for _ in range(2)]
    whole, stepped = (ChunkMesher(v) for v in volumes)
    whole.update()
    stepped.refresh_vertices(), stepped.simplify_vertices(), stepped.build_display_meshes()
    for edit in (lambda v: v.remove(Sphere((16.0, 16.3, 16.0), 4.0)),
                 lambda v: v.paint(Sphere((12.0, 16.0, 12.0), 3.0), "sand"),
                 lambda v: v.remove(Capsule((31.5, 16.0, 8.0), (32.5, 16.0, 24.0), 1.5))):
        before = snapshot(volumes[1])
        for volume in volumes:
            edit(volume)
        expected = whole.update()
        refreshed = stepped.refresh_vertices()
        assert chunks_reading(changed_samples(before, volumes[1]), volumes[1]) <= refreshed != set()
        remesh = stepped.simplify_vertices()
        update = stepped.build_display_meshes()
        assert update.surfaces_rebuilt == refreshed == expected.surfaces_rebuilt
        assert update.remeshed == remesh == expected.remeshed
        assert all(np.array_equal(update.meshes[c].positions, expected.meshes[c].positions) and
                   np.array_equal(update.meshes[c].indices, expected.meshes[c].indices) for c in remesh)
    # The steps after the first mesh what it read: an edit made between them shows at the next update only.
    volume = volumes[1]
    volume.remove(Sphere((20.0, 16.3, 20.0), 3.0))
    stepped.refresh_vertices()
    read = ground(16.3, shape=(40, 32, 40), chunk_size=8)
    for name in MESHED:
        getattr(read, name)[...] = getattr(volume, name)
    volume.add(Sphere((20.0, 16.3, 20.0), 3.0), "rock")
    stepped.simplify_vertices(), stepped.build_display_meshes()
    assert_matches_full_remesh(stepped, read, stepped.options)
    assert stepped.update().remeshed  # the second edit, now


# ---------------------------------------------------------------------------- edits that change nothing shown
def test_blocked_edit_remeshes_nothing():
    volume = ground(8.4, material="rock")  # rock (hardness 5) only takes damage from the default tool
    mesher = ChunkMesher(volume)
    mesher.update()
    versions = volume.chunk_versions.copy()
    result = volume.remove(Sphere((24.0, 8.4, 24.0), 3.0), Tool())
    assert result.voxels_changed == 0 and result.voxels_damaged > 0 and result.dirty_chunks
    assert not np.array_equal(versions, volume.chunk_versions)  # the volume did report a change
    update = mesher.update()
    assert update.meshes == {} and update.remeshed == frozenset() and update.surfaces_rebuilt == frozenset()
    # Hitting on breaks through at last: then the mesher does remesh, and correctly.
    for _ in range(10):
        result = volume.remove(Sphere((24.0, 8.4, 24.0), 3.0), Tool())
        if result.voxels_changed:
            break
    assert result.voxels_changed > 0
    assert mesher.update().remeshed
    assert_matches_full_remesh(mesher, volume, MeshOptions())


def test_no_op_edits_remesh_nothing():
    volume = ground(8.4)
    mesher = ChunkMesher(volume)
    mesher.update()
    mesh_before = B.canonical_display(mesher.display_mesh())
    # A sphere in empty air removes nothing.
    result = volume.remove(Sphere((24.0, 26.0, 24.0), 3.0))
    assert result.voxels_changed == 0
    assert mesher.update().remeshed == frozenset()
    # Marking chunks dirty without changing them.
    volume.mark_dirty((0, 0, 0), (47, 31, 47))
    update = mesher.update()
    assert update.remeshed == frozenset() and update.surfaces_rebuilt == frozenset()
    # Painting empty voxels (density 0, at least 2.6 voxels above ground, in the surface's chunk) changes
    # their materials but no material density: vertices may be recomputed, no mesh changes.
    result = volume.paint(Sphere((24.0, 13.0, 24.0), 2.0), "lava")
    assert result.voxels_changed > 0
    update = mesher.update()
    assert update.remeshed == frozenset()
    np.testing.assert_array_equal(B.canonical_display(mesher.display_mesh()), mesh_before)


# ----------------------------------------------------------------------------------------------- determinism
def mesh_arrays(mesh) -> list[bytes]:
    return [np.ascontiguousarray(getattr(mesh, name)).tobytes()
            for name in ("positions", "normals", "indices", "mat_a", "mat_b", "blend", "tri_material")
            if hasattr(mesh, name)]


def test_identical_input_gives_bit_identical_output():
    def build():
        volume = B.blob_volume(21, chunk_size=8)
        volume.paint(Sphere((16.0, 20.0, 16.0), 5.0), "grass")
        return volume

    volumes = [build(), build()]
    meshers = [ChunkMesher(v) for v in volumes]
    firsts = [m.update() for m in meshers]
    assert firsts[0].meshes.keys() == firsts[1].meshes.keys()
    for chunk in firsts[0].meshes:
        assert mesh_arrays(firsts[0].meshes[chunk]) == mesh_arrays(firsts[1].meshes[chunk])
    for volume in volumes:
        volume.remove(Capsule((10.0, 16.0, 16.0), (22.0, 16.0, 17.0), 2.5))
    updates = [m.update() for m in meshers]
    assert updates[0].remeshed == updates[1].remeshed
    for chunk in updates[0].meshes:
        assert mesh_arrays(updates[0].meshes[chunk]) == mesh_arrays(updates[1].meshes[chunk])
    assert mesh_arrays(meshers[0].display_mesh()) == mesh_arrays(meshers[1].display_mesh())
    assert mesh_arrays(meshers[0].collision_mesh()) == mesh_arrays(meshers[1].collision_mesh())
    assert mesh_arrays(mesh_volume(volumes[0])) == mesh_arrays(mesh_volume(volumes[1]))
    assert mesh_arrays(collision_mesh_volume(volumes[0])) == mesh_arrays(collision_mesh_volume(volumes[1]))


# ------------------------------------------------------------------------------------------- collision meshes
def missing(part, whole) -> int:
    """How many triangles of collision mesh ``part`` are not in ``whole``."""
    rows = {row.tobytes() for row in B.canonical_collision(whole)}
    return sum(row.tobytes() not in rows for row in B.canonical_collision(part))


def collision_ground() -> VoxelVolume:
    volume = ground(16.3, shape=(48, 32, 48), chunk_size=8)
    volume.remove(Sphere((30.0, 16.3, 14.0), 5.0))
    return volume


def touching(mesh, point, radius: float):
    """The triangles of ``mesh`` with a corner within ``radius`` of ``point``."""
    corners = mesh.positions[mesh.indices.astype(np.int64)]
    keep = np.any(np.linalg.norm(corners - point, axis=2) <= radius, axis=1)
    return type(mesh)(mesh.positions, mesh.indices[keep], mesh.tri_material[keep])


POINT, RADIUS = np.array([20.0, 16.3, 20.0]), 2.0


@pytest.mark.parametrize("options", [B.unsimplified(), MeshOptions()], ids=["unsimplified", "default"])
def test_collision_mesh_near_a_point_holds_only_nearby_chunks(options):
    volume = collision_ground()
    mesher = ChunkMesher(volume, options=options)
    mesher.update()
    whole = mesher.collision_mesh()
    np.testing.assert_array_equal(B.canonical_collision(whole),
                                  B.canonical_collision(collision_mesh_volume(volume, options)))
    near = mesher.collision_mesh(near=POINT, radius=RADIUS)
    assert 0 < near.triangle_count < whole.triangle_count
    assert missing(near, whole) == 0
    # The chunks asked for reach one chunk past the ball on each side, and a chunk's triangles reach at most
    # into its lower neighbours: nothing beyond three chunks of the ball.
    assert np.all(np.abs(near.positions - POINT) <= RADIUS + 3 * volume.chunk_size + 1)
    boxed = mesher.collision_mesh(Box(tuple(POINT - RADIUS), tuple(POINT + RADIUS)))
    np.testing.assert_array_equal(B.canonical_collision(boxed), B.canonical_collision(near))
    if options.levels == 0:  # unsimplified vertices stay in their cells: every triangle touching the ball is there
        assert touching(whole, POINT, RADIUS).triangle_count > 0
        assert missing(touching(whole, POINT, RADIUS), near) == 0


def test_collision_mesh_near_a_point_has_every_triangle_touching_it():
    volume = collision_ground()
    mesher = ChunkMesher(volume)  # default options: simplified collision mesh
    mesher.update()
    whole = mesher.collision_mesh()
    near = mesher.collision_mesh(near=POINT, radius=RADIUS)
    assert touching(whole, POINT, RADIUS).triangle_count > 0
    assert missing(touching(whole, POINT, RADIUS), near) == 0


def test_collision_mesh_is_cached_until_its_chunks_change():
    volume = collision_ground()
    mesher = ChunkMesher(volume)
    mesher.update()
    near = mesher.collision_mesh(near=POINT, radius=RADIUS)
    # Cached: scribbling on the samples without telling anyone (no mark_dirty) does not show...
    saved = volume.density.copy()
    volume.density[17:24, 10:20, 17:24] = 0
    np.testing.assert_array_equal(B.canonical_collision(mesher.collision_mesh(near=POINT, radius=RADIUS)),
                                  B.canonical_collision(near))
    # ...not even after an edit elsewhere and an update, which keep the cache of these chunks.
    volume.remove(Sphere((40.0, 16.3, 40.0), 3.0))
    mesher.update()
    np.testing.assert_array_equal(B.canonical_collision(mesher.collision_mesh(near=POINT, radius=RADIUS)),
                                  B.canonical_collision(near))
    volume.density[...] = saved
    volume.mark_dirty((0, 0, 0), (47, 31, 47))  # restored exactly: no change for the mesher either
    mesher.update()
    # An edit there (and an update) rebuilds them.
    volume.remove(Sphere(tuple(POINT), 3.0))
    mesher.update()
    after = mesher.collision_mesh(near=POINT, radius=RADIUS)
    assert not np.array_equal(B.canonical_collision(after), B.canonical_collision(near))
    np.testing.assert_array_equal(B.canonical_collision(mesher.collision_mesh()),
                                  B.canonical_collision(collision_mesh_volume(volume)))


def test_collision_mesh_reflects_the_last_update():
    """ChunkMesher.collision_mesh documents: 'Reflects the volume as of the last update'."""
    volume = VoxelVolume.from_sdf(B.sphere_sdf((16.3, 15.6, 16.2), 9.0), (32, 32, 32), material="soil",
                                  chunk_size=8)
    as_updated = volume.extract(Box((0.0, 0.0, 0.0), (32.0, 32.0, 32.0)))
    mesher = ChunkMesher(volume)
    mesher.update()
    volume.remove(Sphere((16.3, 25.0, 16.2), 4.0))  # no update() after it
    np.testing.assert_array_equal(B.canonical_collision(mesher.collision_mesh()),
                                  B.canonical_collision(collision_mesh_volume(as_updated)))


# ------------------------------------------------------------------------------------- random edit sequences
EDIT_SIZE = 24
coordinate = st.floats(2.0, EDIT_SIZE - 2.0, allow_nan=False)
edit_strategy = st.tuples(
    st.sampled_from(["remove", "add", "scrape", "paint", "expose_interior"]),
    st.booleans(),
    st.tuples(coordinate, coordinate, coordinate), st.tuples(coordinate, coordinate, coordinate),
    st.floats(0.5, 4.0),
    st.sampled_from(["grass", "sand", "rock", "lava"]),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(edit_strategy, min_size=1, max_size=4), simplified=st.booleans())
def test_random_edits_keep_incremental_meshes_equal_to_a_full_remesh(edits, simplified):
    volume = B.blob_volume(8, shape=(EDIT_SIZE,) * 3, chunk_size=8, centre=(12.5, 11.6, 12.2), count=6)
    options = MeshOptions() if simplified else B.unsimplified()
    mesher = ChunkMesher(volume, options=options)
    mesher.update()
    mesher.collision_mesh()  # fill the collision cache, which the edits must invalidate
    for kind, capsule, a, b, radius, material in edits:
        shape = Capsule(a, b, radius) if capsule else Sphere(a, radius)
        before = snapshot(volume)
        if kind == "remove":
            volume.remove(shape)
        elif kind == "add":
            volume.add(shape, material)
        elif kind == "scrape":
            volume.scrape(shape, 70)
        elif kind == "paint":
            volume.paint(shape, material)
        else:
            volume.expose_interior(shape)
        samples = changed_samples(before, volume)
        update = mesher.update()
        assert update.remeshed <= may_remesh(chunks_reading(samples, volume), volume) | chunks_shading(
            samples, volume, options)
        assert_matches_full_remesh(mesher, volume, options)
        np.testing.assert_array_equal(B.canonical_collision(mesher.collision_mesh()),
                                      B.canonical_collision(collision_mesh_volume(volume, options)))


def test_a_simplification_given_the_raw_surfaces_density_window_equals_one_reading_it_again():
    """The density window a raw surface read, handed to its display and collision simplifications (the mesher's
    edit path and a background job's), gives the surfaces they make reading the fields themselves, bit for bit."""
    from voxelworld.meshing.chunk_surfaces import raw_surface_and_density, simplified_surface

    volume = B.blob_volume(8, shape=(24, 24, 24), chunk_size=8, centre=(12.5, 11.6, 12.2), count=6)
    options = MeshOptions()
    read = 0
    for chunk in product(range(3), repeat=3):
        raw, density = raw_surface_and_density(volume, chunk, options, max(options.levels, options.collision_levels))
        if density is None:
            continue
        read += 1
        for collision, detail in ((False, 0), (False, 2), (True, 0)):
            given = simplified_surface(volume, raw, options, volume.materials, collision, floor=detail,
                                       density=density)
            again = simplified_surface(volume, raw, options, volume.materials, collision, floor=detail)
            for name in ("positions", "normals", "materials", "rep", "cell_case", "surface_cells"):
                np.testing.assert_array_equal(getattr(given, name), getattr(again, name))
    assert read > 4
