"""The page's copy of the binary protocol's constants (viewer/web/decode.js) agrees with viewer/protocol.py:
the kinds, the version byte and the header sizes are written once on each side of the socket; and the page's
navmesh level colours (web/scene.js) are those of viewer/navmesh_png.py."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import voxelworld.viewer.protocol as protocol
from voxelworld.meshing import DisplayMesh

DECODE_JS = Path(protocol.__file__).parent / "web" / "decode.js"


def page_constants() -> dict[str, int]:
    text = DECODE_JS.read_text(encoding="utf-8")
    found = {}
    for line in re.findall(r"^export const ([^;]+);", text, flags=re.M):
        for name, value in re.findall(r"(\w+)\s*=\s*(\d+)", line):
            found[name] = int(value)
    return found


def test_the_page_reads_the_headers_and_versions_the_server_writes():
    constants = page_constants()
    assert constants == {"KIND_CHUNK": protocol.KIND_CHUNK, "KIND_NAVMESH": protocol.KIND_NAVMESH,
                         "KIND_COLLISION": protocol.KIND_COLLISION, "KIND_CHUNK_PATCH": protocol.KIND_CHUNK_PATCH,
                         "KIND_POSES": protocol.KIND_POSES, "MESH_VERSION": protocol.MESH_VERSION,
                         "PROTOCOL_VERSION": protocol.PROTOCOL_VERSION,
                         "CHUNK_HEADER_BYTES": protocol.CHUNK_HEADER.size,
                         "PATCH_HEADER_BYTES": protocol.PATCH_HEADER.size,
                         "POSES_HEADER_BYTES": protocol.POSES_HEADER.size,
                         "TRIANGLES_HEADER_BYTES": protocol.TRIANGLES_HEADER.size}


def test_the_page_draws_navmesh_levels_in_the_colours_of_the_navmesh_png():
    from voxelworld.viewer.navmesh_png import LEVEL_COLOURS

    scene = (DECODE_JS.parent / "scene.js").read_text(encoding="utf-8")
    written = re.search(r"const LEVEL_COLOURS = \[([^\]]*)\]", scene)
    assert written, "web/scene.js no longer defines LEVEL_COLOURS"
    assert tuple(int(value, 16) for value in re.findall(r"0x([0-9a-fA-F]{6})", written.group(1))) == LEVEL_COLOURS


NODE = pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the page's decoder")


def run_decoder(script: str) -> dict:
    """``script`` (a module importing decode.js as ``d``) run by node; what it printed, as JSON."""
    source = f"import * as d from {json.dumps(DECODE_JS.as_uri())};\n" + script
    done = subprocess.run(["node", "--input-type=module", "-e", source], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def random_mesh(rng, n: int, m: int) -> DisplayMesh:
    normals = rng.normal(size=(n, 3))
    first = np.sort(rng.integers(0, n - 2, m))
    return DisplayMesh((rng.random((n, 3)) * 8).astype(np.float32),
                       (normals / np.linalg.norm(normals, axis=1, keepdims=True)).astype(np.float32),
                       (first[:, None] + np.arange(3)).astype(np.uint32), rng.integers(1, 9, n).astype(np.uint8),
                       rng.integers(0, 9, n).astype(np.uint8), rng.random(n).astype(np.float32),
                       rng.random(n).astype(np.float32))


CHUNK_OUT = """const out = (c) => ({key: c.key, revision: c.revision, n: c.n, m: c.m,
  positions: Array.from(c.positions), normals: Array.from(c.normals), indices: Array.from(c.indices),
  matA: Array.from(c.matA), matB: Array.from(c.matB), blend: Array.from(c.blend), occlusion: Array.from(c.occlusion)});
"""


def assert_page_reads(out: dict, mesh: DisplayMesh) -> None:
    """The page's decoded chunk is the mesh Python decodes: positions to the float32 bit, the rest to rounding."""
    np.testing.assert_array_equal(np.float32(out["positions"]).reshape(-1, 3), mesh.positions)
    np.testing.assert_allclose(np.float32(out["normals"]).reshape(-1, 3), mesh.normals, atol=1e-6)
    np.testing.assert_array_equal(np.array(out["indices"]).reshape(-1, 3), mesh.indices)
    np.testing.assert_array_equal(out["matA"], mesh.mat_a)
    np.testing.assert_array_equal(out["matB"], mesh.mat_b)
    np.testing.assert_allclose(out["blend"], mesh.blend, atol=1e-6)
    np.testing.assert_allclose(out["occlusion"], mesh.occlusion, atol=1e-6)


@NODE
def test_the_pages_decoder_reads_the_chunk_mesh_and_patch_the_server_writes():
    """decode.js on encode_chunk_mesh's bytes, then on a patch that inserts vertices in the middle and moves
    others: every array as Python decodes it (positions as float32 bit for bit)."""
    rng = np.random.default_rng(5)
    old = random_mesh(rng, 40, 50)
    positions = np.concatenate([old.positions[:12], rng.random((3, 3)).astype(np.float32), old.positions[13:]])
    positions[30] += 0.5
    grown = lambda a, b: np.concatenate([a[:12], b, a[13:]])  # noqa: E731
    indices = np.where(old.indices >= 13, old.indices + 2, old.indices)
    indices = indices[~(old.indices == 12).any(axis=1)]
    new = DisplayMesh(positions, grown(old.normals, old.normals[:3]), np.concatenate([indices, [[12, 13, 14]]]),
                      grown(old.mat_a, old.mat_a[:3]), grown(old.mat_b, old.mat_b[:3]),
                      grown(old.blend, old.blend[:3]), grown(old.occlusion, old.occlusion[:3]))
    volume = type("Volume", (), {"origin": (0.5, 0, 0), "chunk_size": 16, "voxel_size": 0.5})()
    origin = protocol.chunk_origin(volume, (2, 0, -1))
    before = protocol.wire_mesh(old, origin, protocol.chunk_step(8.0))
    after = protocol.wire_mesh(new, origin, protocol.chunk_step(8.0))
    whole = protocol.encode_chunk_mesh((2, 0, -1), before, revision=3)
    patch = protocol.encode_chunk_patch((2, 0, -1), before, after, 3, 4)
    assert patch is not None
    out = run_decoder(CHUNK_OUT + f"""const whole = Uint8Array.from({json.dumps(list(whole))}).buffer;
const patch = Uint8Array.from({json.dumps(list(patch))}).buffer;
const first = d.decodeChunk(whole);
const chunks = new Map([[first.key, first]]);
const second = d.applyChunkPatch(patch, chunks);
const missing = d.applyChunkPatch(patch, new Map());
console.log(JSON.stringify({{first: out(first), second: out(second), missing: missing.error,
  isFloat: first.occlusion instanceof Float32Array}}));""")
    assert out["first"]["key"] == "2,0,-1" and out["first"]["revision"] == 3 and out["isFloat"]
    assert_page_reads(out["first"], before.display_mesh())
    assert out["second"]["revision"] == 4 and out["second"]["n"] == 42
    assert_page_reads(out["second"], after.display_mesh())
    assert "which this page does not have" in out["missing"]


@NODE
def test_the_pages_decoder_reads_the_poses_the_server_writes():
    from voxelworld.game.world import Inputs, World
    from voxelworld.viewer.frame_messages import unpack_rotations

    world = World.demo(seed=0)
    world.step(Inputs())
    before = protocol.actor_poses(world)
    world.step(Inputs())
    now = protocol.actor_poses(world)
    whole = protocol.encode_poses(world.frame - 1, before)
    delta = protocol.encode_poses(world.frame, now, before, world.frame - 1)
    out = run_decoder(f"""const whole = Uint8Array.from({json.dumps(list(whole))}).buffer;
const delta = Uint8Array.from({json.dumps(list(delta))}).buffer;
const first = d.decodePoses(whole, new Map());
const second = d.decodePoses(delta, new Map(first.characters.map((c) => [`${{c.kind}}/${{c.name}}`, c.rotations])));
const orphan = d.decodePoses(delta, new Map());
const plain = (p) => ({{frame: p.frame, base: p.base, characters: p.characters.map((c) => ({{...c,
  rotations: Array.from(c.rotations)}}))}});
console.log(JSON.stringify({{first: plain(first), second: plain(second), orphan: orphan.error}}));""")
    assert out["first"]["frame"] == world.frame - 1 and out["second"]["base"] == world.frame - 1
    for entry, pose in zip(out["second"]["characters"], now):
        assert (entry["name"], entry["kind"], entry["contact"]) == (pose.name, pose.kind, pose.contact)
        np.testing.assert_allclose(entry["position"], pose.position, rtol=1e-6)
        np.testing.assert_allclose(np.array(entry["rotations"]).reshape(-1, 4), unpack_rotations(pose.rotations),
                                   atol=1e-6)
        assert ("blade" in entry) == (pose.blade is not None)
    assert "does not have" in out["orphan"]


@NODE
def test_the_page_applies_patches_of_edits_in_several_places_as_python_does():
    """decode.js's applyChunkPatch against decode_chunk_patch on patches of meshes edited in two places (vertices
    dropped and inserted, others moved in place, triangles of them dropped and added): the page's mesh is the new
    one, and a patch whose copies run past the page's mesh is refused, not applied."""
    from .test_chunk_messages import edited

    rng = np.random.default_rng(11)
    cases, expected, bases = [], [], []
    for n in (30, 200, 700):
        old = random_mesh(rng, n, 2 * n)
        new = edited(edited(old, rng, n // 5, 3, 4, 3), rng, 3 * n // 4, 2, 5, 2)
        before, after = (protocol.wire_mesh(m, (0.0, 0.0, 0.0), protocol.chunk_step(8.0)) for m in (old, new))
        patch = protocol.encode_chunk_patch((0, 0, 0), before, after, 1, 2)
        assert patch is not None and protocol.decode_chunk_patch(patch, before)[2] == after
        cases.append([list(protocol.encode_chunk_mesh((0, 0, 0), before, revision=1)), list(patch)])
        expected.append(after.display_mesh())
        bases.append(before)
    bad = bytearray(cases[0][1])
    bad[protocol.PATCH_HEADER.size + 4:protocol.PATCH_HEADER.size + 8] = (10 ** 6).to_bytes(4, "little")
    out = run_decoder(CHUNK_OUT + f"""const cases = {json.dumps(cases + [[cases[0][0], list(bad)]])};
console.log(JSON.stringify(cases.map(([whole, patch]) => {{
  const first = d.decodeChunk(Uint8Array.from(whole).buffer);
  const chunk = d.applyChunkPatch(Uint8Array.from(patch).buffer, new Map([[first.key, first]]));
  return chunk.error ? chunk.error : out(chunk);
}})));""")
    for page, mesh in zip(out, expected):
        assert_page_reads(page, mesh)
    assert "vertex copy past" in out[-1]
    with pytest.raises(protocol.ProtocolError, match="vertex copy past the 34 vertices"):
        protocol.decode_chunk_patch(bytes(bad), bases[0])
