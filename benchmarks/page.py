"""The play page's frames per second (issue #14). Run: ``.venv/bin/python benchmarks/page.py`` (about 8 minutes;
the first run also compiles the reference commit's numba kernels, 1-3 minutes).

Debian's chromium, headless, WebGL through SwiftShader (software: the CPU draws every pixel), at 1280 x 720,
shows ``voxelworld play`` of the demo world (seed 0, 3 NPCs, the chainsaw enemy) from the player's start view.
A page draws a picture per animation frame; the figure is pictures drawn a second over ``MEASURE`` seconds
(``window.voxelworld.stats.rendered``), after the chunks (and textures) arrived and ``SETTLE`` seconds passed.

Rows, measured in turn ``ROUNDS`` times in the same run (the machine's other load falls on all of them alike),
medians:

- *before issue #14*: the page of commit ``REFERENCE`` (one colour per material, sun and flat ambient light),
  served by that commit's own ``voxelworld play`` from a ``git archive`` of it in ``REFERENCE_FOLDER`` (made
  once and kept, so its numba kernels compile once; three.js copied from this checkout's ``viewer/web/vendor``);
- *default*: this page at its default quality (textures, shadows, occlusion);
- *low*: this page with ``?quality=low`` (table colours, no shadows, no occlusion, no antialiasing).

Each row has its own ``voxelworld play`` process, started before and stopped after its page.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from terrain import print_table  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"]
VIEWPORT = {"width": 1280, "height": 720}
REFERENCE = "8803835"  # the last commit before issue #14's page
ROUNDS = 5
SETTLE = 6.0  # s after the world arrived (dynamic resolution finds its share in about 3 s)
MEASURE = 8.0  # s counted
REFERENCE_FOLDER = Path(tempfile.gettempdir()) / f"voxelworld-page-{REFERENCE}"  # kept between runs


def reference_source(folder: Path) -> Path:
    """``REFERENCE``'s src/ unpacked into ``folder`` (once: kept for later runs, with its numba cache), with this
    checkout's three.js; its src folder."""
    if (folder / "src" / "voxelworld" / "viewer" / "web" / "vendor").is_dir():
        return folder / "src"
    folder.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", REFERENCE, "src"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    vendor = ROOT / "src" / "voxelworld" / "viewer" / "web" / "vendor"
    shutil.copytree(vendor, folder / "src" / "voxelworld" / "viewer" / "web" / "vendor")
    return folder / "src"


class PlayProcess:
    """``voxelworld play --port 0`` (and ``options``) from the sources in ``src``, until it prints the address it
    serves."""

    def __init__(self, src: Path, options=()):
        env = dict(os.environ, PYTHONPATH=str(src), OPENBLAS_NUM_THREADS="1")
        # Saves go to a file of its own, removed with it (play refuses a device such as /dev/null as --save).
        self.folder = tempfile.TemporaryDirectory()
        self.process = subprocess.Popen([sys.executable, "-m", "voxelworld.cli", "play", "--port", "0",
                                         "--save", str(Path(self.folder.name) / "saved.vwd"), *options], env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, cwd=tempfile.gettempdir())
        self.url = None
        for line in self.process.stdout:
            found = re.search(r"open (http://\S+) in a browser", line)
            if found:
                self.url = found.group(1)
                break
        if self.url is None:
            raise RuntimeError(f"voxelworld play from {src} stopped before serving")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=120)
        self.folder.cleanup()


def frames_per_second(browser, url: str, textures: bool, screenshot: Path | None = None,
                      timeout: float = 120.0) -> tuple[float, float | None]:
    """Pictures a second the page at ``url`` draws, once its world (and its textures) arrived, and the share of
    the window's pixels it drew at the end (dynamic resolution; None for a page without it); the page's picture
    goes to ``screenshot`` when given."""
    tab = browser.new_page(viewport=VIEWPORT)
    try:
        tab.goto(url)
        ready = "window.voxelworld && window.voxelworld.stats.chunks > 20"
        tab.wait_for_function(ready + (" && window.voxelworld.textures" if textures else ""),
                              timeout=timeout * 1000)
        time.sleep(SETTLE)
        before, start = tab.evaluate("window.voxelworld.stats.rendered"), time.monotonic()
        time.sleep(MEASURE)
        after, end = tab.evaluate("window.voxelworld.stats.rendered"), time.monotonic()
        if screenshot is not None:
            tab.screenshot(path=str(screenshot))
        return (after - before) / (end - start), tab.evaluate("window.voxelworld.stats.resolution ?? null")
    finally:
        tab.close()


def main() -> None:
    from playwright.sync_api import sync_playwright

    here = ROOT / "src"
    rows = {f"before issue #14 ({REFERENCE})": (reference_source(REFERENCE_FOLDER), "", False),
            "default quality (dynamic resolution)": (here, "", True),
            "default quality, every pixel (?resolution=1)": (here, "?resolution=1", True),
            "low quality (?quality=low)": (here, "?quality=low", True)}
    found = {name: [] for name in rows}
    shares = {name: [] for name in rows}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            version = browser.version
            for _ in range(ROUNDS):
                for name, (src, query, textures) in rows.items():
                    play = PlayProcess(src)
                    try:
                        fps, share = frames_per_second(browser, play.url + query, textures)
                        found[name].append(fps)
                        shares[name].append(share)
                    finally:
                        play.stop()
                    print(f"{name}: {fps:.1f} fps, resolution {share}", file=sys.stderr, flush=True)
        finally:
            browser.close()
    print(f"\nChromium {version}, {' '.join(ARGS)}, {VIEWPORT['width']} x {VIEWPORT['height']}; "
          f"load average {os.getloadavg()[0]:.1f} at the end")
    print_table(("page", "frames a second (median)", "runs", "share of pixels drawn at the end"),
                [(name, f"{np.median(values):.1f}", " ".join(f"{v:.1f}" for v in values),
                  " ".join("-" if s is None else f"{s:.2f}" for s in shares[name]))
                 for name, values in found.items()])


if __name__ == "__main__":
    main()
