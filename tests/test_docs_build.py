"""The API reference builds (``scripts/docs``: Sphinx over docs/conf.py) without a single warning, and each wing's
page lists every name its package exports."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TIME_LIMIT = 600.0  # s: the build takes well under a minute alone; the limit only catches a hang
# The reference's wing pages (docs/api/NAME.rst) and the packages whose __all__ each one lists.
PAGES = {"terrain": "voxelworld.terrain", "collision": "voxelworld.collision", "meshing": "voxelworld.meshing",
         "navigation": "voxelworld.navigation", "motion": "voxelworld.motion", "io": "voxelworld.io",
         "bake": "voxelworld.bake", "viewer": "voxelworld.viewer", "warmup": "voxelworld.warmup",
         "foundations": ("voxelworld.errors", "voxelworld.files", "voxelworld.wavefront",
                         "voxelworld.attribute_state"),
         "game": ("voxelworld.game.world", "voxelworld.game.digger", "voxelworld.game.terrain_contacts")}


@pytest.fixture(scope="module")
def build(tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    out = tmp_path_factory.mktemp("docs")
    try:
        done = subprocess.run(["bash", str(ROOT / "scripts" / "docs"), str(out)], capture_output=True, text=True,
                              timeout=TIME_LIMIT, env={**os.environ, "PYTHON": sys.executable})
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"scripts/docs ran past {TIME_LIMIT:g} s: stdout {error.stdout!r}, stderr {error.stderr!r}")
    return done, out / "html"


def test_the_reference_builds_without_a_warning(build):
    done, html = build
    warnings = [line for line in done.stderr.splitlines() if re.search(r"\b(WARNING|ERROR|CRITICAL|SEVERE)\b", line)]
    assert warnings == [], "the reference's build warned:\n" + "\n".join(warnings)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"the reference is in {html.resolve()}" in done.stdout
    index = (html / "index.html").read_text(encoding="utf-8")
    for page in ["terrain", "game", "play", "specs/world-format", *(f"api/{name}" for name in PAGES)]:
        assert f'href="{page}.html"' in index, f"the index links {page}"


@pytest.mark.parametrize("page", sorted(PAGES))
def test_each_wing_page_lists_its_package_all(build, page):
    _, html = build
    text = (html / "api" / f"{page}.html").read_text(encoding="utf-8")
    modules = PAGES[page] if isinstance(PAGES[page], tuple) else (PAGES[page],)
    ids = set(re.findall(r'id="(?:module-)?([\w.]+)"', text))  # a submodule's anchor is module-NAME
    missing = [f"{module}.{name}" for module in modules for name in importlib.import_module(module).__all__
               if f"{module}.{name}" not in ids]
    assert missing == [], f"docs/api/{page}.rst leaves out {missing}"
