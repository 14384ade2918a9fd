"""The play page's frames a second on a large world with things on the ground (issue #34): trees, pines, bushes,
rocks and crates drawn a mesh a kind and level of detail, impostors far (viewer/web/things.js). Run:
``.venv/bin/python benchmarks/page_things.py --world big.vwd`` (a world made by ``voxelworld new --size 1024``;
about 10 minutes with --turning).

Debian's chromium, headless, WebGL through SwiftShader, at 1280 x 720 (benchmarks/page.py), shows
``voxelworld play --world`` from the player's start. The things are injected into the page as the server's
"thing_kinds" and "things" messages would bring them (``window.voxelworld.receive``), one message per chunk
column of the whole world, before the pictures are counted: those of ``voxelworld.terrain.scatter`` when this
checkout has it (the generator's own rules), else a stand-in scatter of ``--density`` things a km² (kinds in the
shares of ``SHARES``) on the generator's surface (``surface_height``), nothing on sand or slopes over 35 degrees.

Rows: the page at its automatic quality (no ``?quality``: default until its pictures stay slow, then low) and at
``?quality=default``, and with ``--turning`` the same with the camera turning (the things chosen again every few
degrees). Each row is one tab (``--rounds``: more), opened once the world's chunks stopped coming, with the
things received; its pictures a second are counted with the things drawn and not
(``window.voxelworld.showThings``), alternated ``--cycles`` times in the same tab, so that the machine's other
load falls on both alike; medians. With them: the things' instances per level, triangles and draw calls, and
three.js's totals for the picture without them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from page import ARGS, CHROMIUM, ROOT, SETTLE, VIEWPORT, PlayProcess  # noqa: E402
from terrain import print_table  # noqa: E402

KINDS = [{"name": "tree", "radius": 0.3, "height": 8.0}, {"name": "pine", "radius": 0.3, "height": 10.0},
         {"name": "bush", "radius": 0.5, "height": 1.2}, {"name": "rock", "radius": 0.9, "height": 1.3},
         {"name": "crate", "radius": 0.45, "height": 0.9}]
SHARES = [0.3, 0.25, 0.25, 0.17, 0.03]  # of the stand-in scatter's things, by kind
COLUMN = 16.0  # m: a chunk column's side (32 voxels of 0.5 m)


def stand_in_things(generator, density: float, seed: int = 0) -> dict[tuple[int, int], list]:
    """Things a chunk column ((i, k) -> [[kind, x, y, z, yaw, scale, state], ...]) scattered uniformly at
    ``density`` a km² on ``generator``'s surface: none on sand or on slopes over 35 degrees."""
    from voxelworld.terrain._worldgen_kernels import surface_height

    params, keys = generator._params(), generator._keys()
    rng = np.random.default_rng(seed)
    n = rng.poisson(density * (generator.size / 1000.0) ** 2)
    xs, zs = rng.uniform(1.0, generator.size - 1.0, (2, n))
    kinds = rng.choice(len(SHARES), n, p=SHARES)
    yaws, scales = rng.uniform(0.0, 360.0, n), rng.uniform(0.75, 1.25, n)
    columns: dict[tuple[int, int], list] = {}
    limit = math.tan(math.radians(35.0))
    for x, z, kind, yaw, scale in zip(xs, zs, kinds, yaws, scales):
        y = surface_height(params, keys, x, z)
        slope = max(abs(surface_height(params, keys, x + 0.5, z) - y),
                    abs(surface_height(params, keys, x, z + 0.5) - y))
        if y < generator.sand_level or slope / 0.5 > limit:
            continue
        columns.setdefault((int(x // COLUMN), int(z // COLUMN)), []).append(
            [int(kind), round(float(x), 2), round(float(y), 2), round(float(z), 2), round(float(yaw), 1),
             round(float(scale), 2), 0])
    return columns


def scattered_things(generator) -> tuple[list, dict[tuple[int, int], list]] | None:
    """The things of voxelworld.terrain.scatter (kinds, columns) when this checkout has it, else None."""
    try:
        from voxelworld.terrain import scatter
    except ImportError:
        return None
    kinds = [{"name": k.name, "radius": k.radius, "height": k.height} for k in scatter.THING_KINDS]
    settings, columns = scatter.ScatterSettings(), {}
    across = round(generator.size / COLUMN)
    for i in range(across):
        for k in range(across):
            things = scatter.scatter_chunk_column(generator, settings, (i, k))
            if len(things.kind):
                columns[(i, k)] = [[int(kind), *(round(float(c), 2) for c in p), round(float(yaw), 1),
                                    round(float(scale), 2), 0]
                                   for kind, p, yaw, scale in zip(things.kind, things.position, things.yaw,
                                                                  things.scale)]
    return kinds, columns


def messages(kinds: list, columns: dict) -> list[str]:
    out = [json.dumps({"type": "thing_kinds", "kinds": kinds})]
    out += [json.dumps({"type": "things", "chunk": [i, 0, k], "things": things}) for (i, k), things in columns.items()]
    return out


# JS: the camera fixed at the player's camera's place, turning about the vertical at TURNING degrees a second (the
# things' instances chosen again every REBUILD_DEGREES).
TURNING = 45.0
QUIET = 4.0  # s without a chunk message: the world's view has arrived
TURN = """(degrees) => {
  const v = window.voxelworld, eye = v.camera.position.toArray(), start = performance.now();
  setInterval(() => {
    const a = (performance.now() - start) / 1000 * degrees * Math.PI / 180;
    v.view(eye, [eye[0] + 10 * Math.sin(a), eye[1] - 1.5, eye[2] - 10 * Math.cos(a)]);
  }, 16);
}"""


def open_page(browser, url: str, texts: list[str], timeout: float = 600.0):
    """A tab of the page at ``url`` once its world's chunks stopped coming (QUIET s without one) and its textures
    arrived, with the things' messages ``texts`` received."""
    tab = browser.new_page(viewport=VIEWPORT)
    tab.goto(url)
    tab.wait_for_function("window.voxelworld && window.voxelworld.stats.chunks > 20 && window.voxelworld.textures",
                          timeout=timeout * 1000)
    quiet_since, chunks, waited = time.monotonic(), -1, time.monotonic()
    while time.monotonic() - quiet_since < QUIET and time.monotonic() - waited < timeout:
        now = tab.evaluate("window.voxelworld.stats.chunkMessages")
        if now != chunks:
            chunks, quiet_since = now, time.monotonic()
        time.sleep(0.5)
    for start in range(0, len(texts), 400):
        tab.evaluate("(texts) => { for (const t of texts) window.voxelworld.receive(t); }", texts[start:start + 400])
    return tab


def pictures_a_second(tab, seconds: float) -> float:
    before, start = tab.evaluate("window.voxelworld.stats.rendered"), time.monotonic()
    time.sleep(seconds)
    return (tab.evaluate("window.voxelworld.stats.rendered") - before) / (time.monotonic() - start)


def drawn(tab) -> dict:
    return tab.evaluate("""() => { const v = window.voxelworld, info = v.renderer.info.render;
      return { things: v.things(), calls: info.calls, triangles: info.triangles, quality: v.quality,
               resolution: v.stats.resolution }; }""")


def compare(tab, cycles: int, window: float, screenshot: Path | None = None) -> dict:
    """Pictures a second with the things drawn and not (``window.voxelworld.showThings``), alternated ``cycles``
    times in the same tab (``window`` s each, after 2 s to settle): the machine's other load falls on both alike."""
    found: dict[bool, list[float]] = {True: [], False: []}
    described = {}
    for cycle in range(cycles):
        for shown in ((False, True) if cycle % 2 == 0 else (True, False)):
            tab.evaluate(f"window.voxelworld.showThings({str(shown).lower()})")
            time.sleep(2.0)
            found[shown].append(pictures_a_second(tab, window))
            described[shown] = drawn(tab)
            if shown and screenshot is not None and cycle == cycles - 1:
                tab.screenshot(path=str(screenshot))
    tab.evaluate("window.voxelworld.showThings(true)")
    return {"with": found[True], "without": found[False], "drawn": described}


def main() -> None:
    from playwright.sync_api import sync_playwright

    from voxelworld.terrain import GeneratorSettings

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--world", required=True, help="a world file made by voxelworld new --size 1024 --seed 7")
    parser.add_argument("--size", type=float, default=1024.0, help="its generator's size (m)")
    parser.add_argument("--seed", type=int, default=7, help="its generator's seed")
    parser.add_argument("--density", type=float, default=4500.0, help="the stand-in scatter's things a km²")
    parser.add_argument("--rounds", type=int, default=1, help="tabs a row (default 1)")
    parser.add_argument("--cycles", type=int, default=4, help="with/without pairs a tab (default 4)")
    parser.add_argument("--window", type=float, default=5.0, help="s counted each time (default 5)")
    parser.add_argument("--screenshots", help="a folder for the pictures (one a row, the last round's)")
    parser.add_argument("--turning", action="store_true", help=f"also with things and the camera turning at "
                                                                f"{TURNING:g} degrees a second")
    args = parser.parse_args()
    generator = GeneratorSettings(size=args.size, seed=args.seed)
    scattered = scattered_things(generator)
    source = "voxelworld.terrain.scatter"
    if scattered is None:
        scattered, source = (KINDS, stand_in_things(generator, args.density)), f"stand-in at {args.density:g}/km²"
    kinds, columns = scattered
    texts = messages(kinds, columns)
    count = sum(len(things) for things in columns.values())
    rows = {"automatic quality": ("", False), "?quality=default": ("?quality=default", False)}
    if args.turning:
        rows |= {f"{name}, turning {TURNING:g} degrees/s": (query, True) for name, (query, _) in list(rows.items())}
    found: dict[str, list[dict]] = {name: [] for name in rows}
    folder = Path(args.screenshots) if args.screenshots else None
    if folder:
        folder.mkdir(parents=True, exist_ok=True)
    play = PlayProcess(ROOT / "src", ["--world", args.world])
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                for round_ in range(args.rounds):
                    for n, (name, (query, turning)) in enumerate(rows.items()):
                        tab = open_page(browser, play.url + query, texts)
                        try:
                            if turning:
                                tab.evaluate(TURN, TURNING)
                            time.sleep(SETTLE)
                            shot = folder / f"row{n}.png" if folder and round_ == args.rounds - 1 else None
                            result = compare(tab, args.cycles, args.window, shot)
                        finally:
                            tab.close()
                        found[name].append(result)
                        things = result["drawn"][True]["things"]
                        print(f"{name}: with things {np.median(result['with']):.1f} fps, without "
                              f"{np.median(result['without']):.1f}; {result['drawn'][True]['quality']}, things "
                              f"{things['triangles']} triangles, {things['drawCalls']} draws, {things['rebuilds']} "
                              f"choices, last {things['chooseMs']} ms", file=sys.stderr, flush=True)
            finally:
                browser.close()
    finally:
        play.stop()
    print(f"\n{count} things in {len(columns)} chunk columns ({source}) on the {args.size:g} m world of seed "
          f"{args.seed}; Chromium, {' '.join(ARGS)}, {VIEWPORT['width']} x {VIEWPORT['height']}; with and without "
          f"things alternated in each tab ({args.cycles} x {args.window:g} s each); load average "
          f"{os.getloadavg()[0]:.1f} at the end")
    table = []
    for name, results in found.items():
        with_, without = [f for r in results for f in r["with"]], [f for r in results for f in r["without"]]
        last = results[-1]["drawn"]
        levels = " ".join(f"{k['name']} {k['near']}/{k['mid']}/{k['far']}" for k in last[True]["things"]["kinds"])
        table.append((name, f"{np.median(without):.1f}", f"{np.median(with_):.1f}", last[True]["quality"],
                      f"{last[True]['resolution']:.2f}", f"{last[False]['calls']} / {last[False]['triangles']}",
                      f"{last[True]['things']['drawCalls']} / {last[True]['things']['triangles']}", levels or "-"))
    print_table(("page", "frames a second without things (median)", "with things (median)", "quality at the end",
                 "share of pixels", "draw calls / triangles without things", "things: draw calls / triangles",
                 "things near/mid/far by kind"), table)


if __name__ == "__main__":
    main()
