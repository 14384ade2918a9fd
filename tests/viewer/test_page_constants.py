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
                         "KIND_COLLISION": protocol.KIND_COLLISION, "MESH_VERSION": protocol.MESH_VERSION,
                         "CHUNK_HEADER_BYTES": protocol.CHUNK_HEADER.size,
                         "TRIANGLES_HEADER_BYTES": protocol.TRIANGLES_HEADER.size}


def test_the_page_draws_navmesh_levels_in_the_colours_of_the_navmesh_png():
    from voxelworld.viewer.navmesh_png import LEVEL_COLOURS

    scene = (DECODE_JS.parent / "scene.js").read_text(encoding="utf-8")
    written = re.search(r"const LEVEL_COLOURS = \[([^\]]*)\]", scene)
    assert written, "web/scene.js no longer defines LEVEL_COLOURS"
    assert tuple(int(value, 16) for value in re.findall(r"0x([0-9a-fA-F]{6})", written.group(1))) == LEVEL_COLOURS


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the page's decoder")
def test_the_pages_decoder_reads_the_chunk_mesh_the_server_writes():
    """decode.js on encode_chunk_mesh's bytes: every array as sent, occlusion as floats in [0, 1] (u8 / 255)."""
    rng = np.random.default_rng(5)
    n, m = 7, 3
    mesh = DisplayMesh(rng.normal(size=(n, 3)).astype(np.float32), rng.normal(size=(n, 3)).astype(np.float32),
                       rng.integers(0, n, size=(m, 3)).astype(np.uint32), rng.integers(1, 9, n).astype(np.uint8),
                       rng.integers(0, 9, n).astype(np.uint8), rng.random(n).astype(np.float32),
                       rng.random(n).astype(np.float32))
    data = protocol.encode_chunk_mesh((2, 0, -1), mesh)
    script = (f"import {{ decodeChunk }} from {json.dumps(DECODE_JS.as_uri())};\n"
              f"const bytes = Uint8Array.from({json.dumps(list(data))});\n"
              "const c = decodeChunk(bytes.buffer);\n"
              "console.log(JSON.stringify({key: c.key, blend: Array.from(c.blend), matB: Array.from(c.matB),\n"
              "  occlusion: Array.from(c.occlusion), isFloat: c.occlusion instanceof Float32Array}));")
    out = json.loads(subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True,
                                    check=True, timeout=60).stdout)
    assert out["key"] == "2,0,-1" and out["isFloat"]
    np.testing.assert_array_equal(np.float32(out["blend"]), mesh.blend)
    np.testing.assert_array_equal(out["matB"], mesh.mat_b)
    np.testing.assert_allclose(out["occlusion"], mesh.occlusion, atol=0.5 / 255 + 1e-6)
