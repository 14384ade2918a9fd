"""The page's copy of the binary protocol's constants (viewer/web/decode.js) agrees with viewer/protocol.py:
the kinds, the version byte and the header sizes are written once on each side of the socket; and the page's
navmesh level colours (web/scene.js) are those of viewer/navmesh_png.py."""

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


def test_the_page_draws_navmesh_levels_in_the_colours_of_the_navmesh_png():
    from voxelworld.viewer.navmesh_png import LEVEL_COLOURS

    scene = (DECODE_JS.parent / "scene.js").read_text(encoding="utf-8")
    written = re.search(r"const LEVEL_COLOURS = \[([^\]]*)\]", scene)
    assert written, "web/scene.js no longer defines LEVEL_COLOURS"
    assert tuple(int(value, 16) for value in re.findall(r"0x([0-9a-fA-F]{6})", written.group(1))) == LEVEL_COLOURS
