"""The page's copy of the binary protocol's constants (viewer/web/decode.js) agrees with viewer/protocol.py:
the kinds, the version byte and the header sizes are written once on each side of the socket."""

from __future__ import annotations

import re
from pathlib import Path

import voxelworld.viewer.protocol as protocol

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
