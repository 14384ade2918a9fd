"""What the browser tests share: Debian's chromium driven by Playwright, headless, WebGL through SwiftShader.

A test module calls :func:`require_browser` at import: without chromium or Playwright it is skipped on a laptop,
while with the CI variable set the missing browser is an error (CI must run the browser tests)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"]
FULL_RESOLUTION = "?resolution=1"  # every pixel drawn (no dynamic resolution): checks read the window's size
# The page's cheapest drawing (every pixel, low quality: no textures, shadows or occlusion), for tests of what the
# page does rather than how it looks: under SwiftShader the default look draws a few pictures a second, which
# would slow every message the page answers (test_page_look.py checks the default look).
BEHAVIOUR_PAGE = "?resolution=1&quality=low"
WAIT_MS = 45_000  # the longest one step waits, ms
# The page has its first frames and the world's chunks.
READY = "window.voxelworld && window.voxelworld.stats.frames > 10 && window.voxelworld.stats.chunks > 20"


def require_browser():
    """Playwright's ``sync_playwright``, or skip the calling module (at import) when chromium or Playwright is
    missing and the CI variable is unset."""
    if not CHROMIUM.exists() and not os.environ.get("CI"):
        pytest.skip(f"{CHROMIUM} is missing (scripts/setup installs Debian's chromium)", allow_module_level=True)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:  # pragma: no cover - scripts/setup installs it
        if os.environ.get("CI"):
            raise
        pytest.skip(f"Playwright is missing: {error}", allow_module_level=True)
    return sync_playwright


@contextmanager
def served_page(world: Any, query: str = BEHAVIOUR_PAGE, viewport: tuple[int, int] = (960, 600)) -> Iterator[Any]:
    """``world`` served by a ``ServerThread`` and opened in headless chromium at ``query``: the tab once the page
    is :data:`READY`, with ``tab.problems`` (its page errors and console errors, in order), ``tab.server`` and
    ``tab.world``; the browser and the server are closed after."""
    from playwright.sync_api import sync_playwright

    from voxelworld.viewer.server import ServerThread

    # grace 0: a tab a test opens beside it and closes takes its player with it (no page here comes back by token)
    with ServerThread(world, grace=0.0) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            tab = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
            problems: list[str] = []
            tab.on("pageerror", lambda error: problems.append(str(error)))
            tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            tab.goto(server.url + query)
            tab.wait_for_function(READY, timeout=WAIT_MS)
            tab.problems, tab.server, tab.world = problems, server, world
            yield tab
        finally:
            browser.close()


# A JS function ``(version, key, triangles) => ArrayBuffer``: a whole chunk mesh message (play protocol 3, kind 1)
# for the chunk ``key`` ([i, j, k]) of ``triangles`` (each 9 coordinates, m; corners at the same place are one
# vertex; none: the chunk's removal), normals up, no material, open to the sky, as the server would send it.
CHUNK_MESSAGE = """(version, key, triangles) => {
  const corners = new Map(), positions = [], indices = [];
  for (const t of triangles) {
    for (let c = 0; c < 3; c++) {
      const p = t.slice(3 * c, 3 * c + 3), name = p.join(" ");
      if (!corners.has(name)) { corners.set(name, corners.size); positions.push(...p); }
      indices.push(corners.get(name));
    }
  }
  const m = triangles.length, n = corners.size, pad = (size) => size + (4 - (size % 4)) % 4, step = 1 / 64;
  const origin = [0, 1, 2].map((a) => (n ? Math.floor(Math.min(...positions.filter((_, i) => i % 3 === a))) : 0));
  const normalsAt = pad(44 + 6 * n), bytesAt = normalsAt + 4 * n, indicesAt = pad(bytesAt + 4 * n);
  const buffer = new ArrayBuffer(m ? pad(indicesAt + 6 * m) : 44), view = new DataView(buffer);
  view.setUint8(0, 1); view.setUint8(1, version);
  key.forEach((c, axis) => view.setInt32(4 + 4 * axis, c, true));
  view.setUint32(16, 1, true); view.setUint32(20, m ? n : 0, true); view.setUint32(24, m, true);
  origin.forEach((o, axis) => view.setFloat32(28 + 4 * axis, o, true));
  view.setFloat32(40, step, true);
  if (m) {
    new Int16Array(buffer, 44, 3 * n).set(positions.map((p, i) => Math.round((p - origin[i % 3]) / step)));
    for (let v = 0; v < n; v++) view.setInt16(normalsAt + 4 * v + 2, 32767, true); // up
    new Uint8Array(buffer, bytesAt + 3 * n, n).fill(255); // open to the sky
    new Uint16Array(buffer, indicesAt, 3 * m).set(indices);
  }
  return buffer;
}"""
