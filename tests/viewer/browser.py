"""What the browser tests share: Debian's chromium driven by Playwright, headless, WebGL through SwiftShader.

A test module calls :func:`require_browser` at import: without chromium or Playwright it is skipped on a laptop,
while with the CI variable set the missing browser is an error (CI must run the browser tests)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"]
FULL_RESOLUTION = "?resolution=1"  # every pixel drawn (no dynamic resolution): checks read the window's size
# The page's cheapest drawing (every pixel, low quality: no textures, shadows or occlusion), for tests of what the
# page does rather than how it looks: under SwiftShader the default look draws a few pictures a second, which
# would slow every message the page answers (test_page_look.py checks the default look).
BEHAVIOUR_PAGE = "?resolution=1&quality=low"


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
