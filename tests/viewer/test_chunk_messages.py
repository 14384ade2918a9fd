"""Chunk patches (play protocol 3, kind 4): applied to the page's mesh they give the new mesh exactly, whatever
changed (vertices moved, vertices inserted or removed in the middle, triangles added), and they carry only what
changed; the server sends a patch to a page that has its base and the whole mesh to one that does not."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.game.world import Inputs, World
from voxelworld.meshing import DisplayMesh
from voxelworld.viewer.chunk_messages import (
    PATCH_HEADER,
    WireError,
    decode_chunk_patch,
    encode_chunk_mesh,
    encode_chunk_patch,
    wire_mesh,
)
from voxelworld.viewer.server import PlayServer

STEP = 2.0 ** -11


def mesh_of(rng, n: int, m: int) -> DisplayMesh:
    """A mesh of ``n`` random vertices and ``m`` triangles, each of three vertices close in order, its triangles
    in the order of their vertices (as a mesher emits them cell by cell)."""
    normals = rng.normal(size=(n, 3))
    first = np.sort(rng.integers(0, max(n - 2, 1), m))
    triangles = np.minimum(first[:, None] + np.arange(3), n - 1)
    return DisplayMesh((rng.random((n, 3)) * 8).astype(np.float32),
                       (normals / np.linalg.norm(normals, axis=1, keepdims=True)).astype(np.float32),
                       triangles.astype(np.uint32), rng.integers(1, 9, n).astype(np.uint8),
                       rng.integers(0, 9, n).astype(np.uint8), rng.random(n).astype(np.float32),
                       rng.random(n).astype(np.float32))


def wire(mesh: DisplayMesh):
    return wire_mesh(mesh, origin=(0.0, 0.0, 0.0), step=STEP)


def edited(mesh: DisplayMesh, rng, at: int, removed: int, inserted: int, moved: int) -> DisplayMesh:
    """``mesh`` with ``removed`` vertices at ``at`` replaced by ``inserted`` new ones (indices past them shifted,
    triangles using the removed ones dropped, one triangle per new vertex added where they fall), and ``moved``
    other vertices moved."""
    n = len(mesh.positions)
    removed = min(removed, n - at)
    new = mesh_of(rng, inserted, 0)
    keep = np.r_[0:at, at + removed:n]

    def splice(old, fresh):
        return np.concatenate([old[:at], fresh, old[at + removed:]])

    positions = splice(mesh.positions, new.positions)
    for v in rng.choice(len(positions), size=min(moved, len(positions)), replace=False):
        positions[v] = positions[v] + np.float32(0.25)
    remap = np.full(n, -1)
    remap[keep] = np.r_[0:at, at + inserted:at + inserted + len(keep) - at]
    triangles = remap[mesh.indices.astype(np.int64)]
    triangles = triangles[(triangles >= 0).all(axis=1)]
    if inserted:  # where the triangles of the new vertices fall in the order
        added = np.column_stack([np.arange(at, at + inserted)] * 3)
        where = int(np.searchsorted(triangles[:, 0], at))
        triangles = np.concatenate([triangles[:where], added, triangles[where:]])
    return DisplayMesh(positions, splice(mesh.normals, new.normals), triangles.astype(np.uint32),
                       splice(mesh.mat_a, new.mat_a), splice(mesh.mat_b, new.mat_b), splice(mesh.blend, new.blend),
                       splice(mesh.occlusion, new.occlusion))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.integers(0, 40), st.integers(0, 5), st.integers(0, 5),
       st.integers(0, 4))
def test_a_patch_rebuilds_the_new_mesh_exactly(seed, n, at, removed, inserted, moved):
    rng = np.random.default_rng(seed)
    old = mesh_of(rng, n, 2 * n)
    new = edited(old, rng, min(at, n), removed, inserted, moved)
    if new.triangle_count == 0:
        return
    before, after = wire(old), wire(new)
    patch = encode_chunk_patch((1, 2, 3), before, after, base=5, revision=6)
    chunk, revisions, back = decode_chunk_patch(patch, before)
    assert chunk == (1, 2, 3) and revisions == (5, 6)
    assert back == after
    assert len(patch) % 4 == 0


def test_a_small_change_sends_a_small_patch():
    rng = np.random.default_rng(0)
    old = mesh_of(rng, 2000, 3000)
    moved = edited(old, rng, 0, 0, 0, 8)
    grown = edited(old, rng, 700, 2, 6, 0)
    whole = len(encode_chunk_mesh((0, 0, 0), wire(moved)))
    moved_patch = encode_chunk_patch((0, 0, 0), wire(old), wire(moved), 1, 2)
    # 8 vertices moved in place: 9 runs of vertices copied around them, 12 bytes each, the 8 new ones, 14 bytes each,
    # and every triangle copied in one run (those of the moved vertices read the new ones in their places)
    assert len(moved_patch) <= PATCH_HEADER.size + 12 * 10 + 8 * 14
    grown_patch = encode_chunk_patch((0, 0, 0), wire(old), wire(grown), 1, 2)
    assert len(grown_patch) < whole / 5  # the shifted rest of the mesh is copied by the page, not sent
    assert decode_chunk_patch(grown_patch, wire(old))[2] == wire(grown)


def test_a_patch_is_refused_for_a_mesh_it_was_not_made_for():
    rng = np.random.default_rng(1)
    old, other = mesh_of(rng, 30, 40), mesh_of(rng, 31, 40)
    patch = encode_chunk_patch((0, 0, 0), wire(old), wire(edited(old, rng, 3, 1, 2, 1)), 1, 2)
    with pytest.raises(WireError, match="a patch for a mesh of 30 vertices"):
        decode_chunk_patch(patch, wire(other))
    with pytest.raises(WireError, match="too short|run past"):
        decode_chunk_patch(patch[:PATCH_HEADER.size + 4], wire(old))


def test_no_patch_across_another_step_or_to_an_empty_mesh():
    rng = np.random.default_rng(2)
    old = mesh_of(rng, 10, 10)
    assert encode_chunk_patch((0, 0, 0), wire(old), wire_mesh(old, step=2 * STEP), 1, 2) is None
    assert encode_chunk_patch((0, 0, 0), wire(old), wire_mesh(None), 1, 2) is None


def test_the_server_patches_what_a_page_has_and_sends_the_rest_whole():
    """On the demo world the enemy re-cuts a chunk: the server publishes revisions of it with a patch against the
    one before; a page that has that one gets the patch (and ends with the server's mesh), one that has an older
    revision or none gets the whole mesh."""
    world = World.demo(seed=0)
    play = PlayServer(world)
    start = play.encode_all()
    page = {chunk: update.revision for chunk, update in start.chunks.items()}
    meshes = {chunk: wire_mesh_of(update.whole) for chunk, update in start.chunks.items()}
    patched = 0
    for _ in range(90):
        packet = play.step_frame(Inputs())
        for chunk, update in packet.chunks.items():
            data = update.for_page(page.get(chunk))
            if data[0] == 4:
                patched += 1
                assert update.base == page[chunk]
                meshes[chunk] = decode_chunk_patch(data, meshes[chunk])[2]
            else:
                meshes[chunk] = wire_mesh_of(data)
            page[chunk] = update.revision
            assert update.for_page(None) == update.whole and update.for_page(update.revision - 2) == update.whole
    assert patched > 10
    for chunk, (revision, mesh) in play.encoder.wire.items():
        assert page[chunk] == revision and meshes[chunk] == mesh


def wire_mesh_of(data: bytes):
    from voxelworld.viewer.chunk_messages import decode_chunk_mesh

    return decode_chunk_mesh(data)[2]


def test_a_chunk_that_keeps_changing_is_published_at_most_every_few_frames_and_ends_as_it_is():
    """A spot scraped every frame for 12 frames (no enemy): each chunk's mesh is published at most every
    MESH_EVERY frames while it changes, and once the scraping stops the last mesh published is the chunk's
    mesh as it is."""
    from dataclasses import replace

    from voxelworld.game.edits import VoxelEdit
    from voxelworld.game.level import demo_level
    from voxelworld.terrain import Sphere
    from voxelworld.viewer.frame_encoder import MESH_EVERY
    from voxelworld.viewer.protocol import chunk_wire_mesh

    world = World.from_level(replace(demo_level(0), enemies=()), seed=0)
    play = PlayServer(world)
    play.encode_all()
    published: dict = {}
    for frame in range(12 + 2 * MESH_EVERY):
        if frame < 12:
            point = tuple(float(v) for v in world.player.position + (1.5, 0.0, 0.0))
            world.queue_edit(VoxelEdit("scrape", Sphere(point, 0.8), step=40, source="test"))
        packet = play.step_frame(Inputs())
        for chunk in packet.chunks:
            published.setdefault(chunk, []).append(world.frame)
    assert any(len(frames) >= 3 for frames in published.values())
    for frames in published.values():
        assert all(b - a >= MESH_EVERY for a, b in zip(frames, frames[1:]))
    for chunk in published:
        assert play.encoder.wire[chunk][1] == chunk_wire_mesh(world.volume, chunk, world.mesher.meshes.get(chunk))
