"""The page predicts its own player (play protocol 5, issue #35, ``web/predict.js``), tried in headless chromium
with every message from the server held back 200 ms (a slow network): W moves the page's own character and camera
in the next picture, long before the server's frame could; while it walks the page shows it as far ahead of the
late frames as they are late; after W is let go it stands within centimetres of where the server stops it, and
what is left of the difference is gone a moment later. A page that watches predicts nothing."""

from __future__ import annotations

import math

from voxelworld.game.world import World

from .browser import ARGS, BEHAVIOUR_PAGE, CHROMIUM, READY, WAIT_MS, require_browser
from .test_page_feedback import save

sync_playwright = require_browser()

DELAY_MS = 200  # ms every message from the server waits before the page reads it
# Run before the page's own scripts: its websocket's messages are handed to the page DELAY_MS late, in order.
DELAYED = """(() => {
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    get onmessage() { return super.onmessage; }
    set onmessage(handler) { super.onmessage = (event) => setTimeout(() => handler.call(this, event), DELAY_MS); }
  };
})();""".replace("DELAY_MS", str(DELAY_MS))

# Press ``code`` and watch the pictures that follow: how many until the predicted player moved 2 cm (at most 20),
# and how far it, the camera and the player of the last frame the page read had moved then (m, across the ground).
PRESS_AND_WATCH = """(code) => new Promise((resolve) => {
  const vw = window.voxelworld, across = (a, b) => Math.hypot(a[0] - b[0], a[2] - b[2]);
  const start = vw.prediction.shown, camera = vw.cameraState.position, server = vw.frame.player.position;
  window.dispatchEvent(new KeyboardEvent("keydown", { code }));
  const pressed = performance.now();
  let pictures = 0;
  const look = () => {
    pictures++;
    const moved = across(vw.prediction.shown, start);
    if (moved > 0.02 || pictures >= 20) {
      resolve({ pictures, ms: performance.now() - pressed, moved, camera: across(vw.cameraState.position, camera),
                server: across(vw.frame.player.position, server) });
    } else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})"""
# Let ``codes`` go and return where the player is shown two pictures later.
RELEASE = """(codes) => new Promise((resolve) => {
  for (const code of codes) window.dispatchEvent(new KeyboardEvent("keyup", { code }));
  requestAnimationFrame(() => requestAnimationFrame(() => resolve(window.voxelworld.prediction.shown)));
})"""
SHOWN = "window.voxelworld.prediction.shown"
SERVER = "window.voxelworld.frame.player.position"
# At one moment: where the player is shown, where the last frame read put it, where its character is drawn.
PLACES = """(() => {
  const vw = window.voxelworld, actors = vw.scene.getObjectByName("actors").children;
  const drawn = actors.find((o) => o.name.endsWith(":player:player")).position.toArray();
  return { shown: vw.prediction.shown, server: vw.frame.player.position, drawn };
})()"""


def across(a, b) -> float:
    return math.hypot(a[0] - b[0], a[2] - b[2])


def settled(tab) -> list[float]:
    """Wait until the server's player stood still for half a second; its feet then."""
    last, still = None, 0
    for _ in range(200):
        now = tab.evaluate(SERVER)
        still = still + 1 if last is not None and across(now, last) < 1e-4 else 0
        if still >= 5:
            return now
        last = now
        tab.wait_for_timeout(100)
    raise AssertionError("the player never stood still")


def walk(tab, codes: list[str], seconds: float) -> dict:
    """Hold ``codes`` (the last one pressed while watching the pictures) for ``seconds``; what was seen."""
    for code in codes[:-1]:
        tab.evaluate("(code) => window.dispatchEvent(new KeyboardEvent('keydown', { code }))", code)
    seen = tab.evaluate(PRESS_AND_WATCH, codes[-1])
    tab.wait_for_timeout(int(seconds * 1000 * 0.6))
    places = tab.evaluate(PLACES)
    seen["lead"] = across(places["shown"], places["server"])  # ahead of the late frames while it walks
    seen["drawn"] = across(places["drawn"], places["shown"])  # the character is drawn where it is shown
    tab.wait_for_timeout(int(seconds * 1000 * 0.4))
    seen["stopped"] = tab.evaluate(RELEASE, codes)
    seen["stood"] = settled(tab)  # where the server stopped it
    tab.wait_for_timeout(500)
    places = tab.evaluate(PLACES)
    seen["error"] = across(places["shown"], places["server"])
    seen["prediction"] = tab.evaluate("window.voxelworld.prediction")
    return seen


def test_the_page_moves_its_own_player_at_once_and_ends_where_the_server_does():
    world = World.demo(seed=0, npcs=0)
    from voxelworld.viewer.server import ServerThread

    server = ServerThread(world, grace=0.0)
    # 30 frames a second (hello.fps: the page's prediction reads it): a world the server steps in real time even
    # while other work holds the machine's two cores (a world that falls behind is not where the page expects it).
    server.play.fps = 30
    with server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            tab = browser.new_page(viewport={"width": 480, "height": 300})
            problems: list[str] = []
            tab.on("pageerror", lambda error: problems.append(str(error)))
            tab.add_init_script(DELAYED)
            tab.goto(server.url + BEHAVIOUR_PAGE)
            tab.wait_for_function(f"{READY} && window.voxelworld.stats.controlling && {SHOWN}", timeout=WAIT_MS)
            start = settled(tab)
            assert across(tab.evaluate(SHOWN), start) < 0.01
            save(tab, "predict-before")

            # Four walks of a second, forward and back. What depends on the machine's timing (a picture or the
            # server's step held up by the others' work on two shared cores: a world that falls behind real time
            # is not where the page expected it to be) is asked of most walks; what does not, of every walk.
            walks = [walk(tab, [code], 1.0) for code in ("KeyW", "KeyS", "KeyW", "KeyS")]
            assert all(w["pictures"] <= 2 and w["moved"] > 0.02 for w in walks), walks
            # The next picture or the one after shows the player and the camera moved; the server's frame, 200 ms
            # late, has not moved yet.
            assert all(w["camera"] > 0.015 for w in walks), walks
            assert sum(w["server"] < 0.005 for w in walks) >= 3, walks
            # While it walks (4 m/s), the page shows it ahead of the late frames by about what they are late.
            assert sum(w["lead"] > 0.4 for w in walks) >= 3, walks
            assert all(w["drawn"] < 0.01 for w in walks), walks  # its character is drawn where it is shown
            assert 2.5 < across(walks[0]["stood"], start) < 6.0, walks[0]
            # Let go: it stands where the server stops it, give or take a few centimetres (no error is left)...
            stops = sorted(across(w["stopped"], w["stood"]) for w in walks)
            assert stops[1] < 0.3 and stops[2] < 0.5, stops  # (half of them within 0.3 m, three within 0.5 m)
            # ... and what was left is blended away: no error stays or adds up from walk to walk.
            assert all(w["error"] < 0.005 for w in walks), walks
            save(tab, "predict-after")

            # A page that watches predicts nothing: the camera follows the server's frames.
            tab.evaluate("window.voxelworld.send({type: 'release'})")
            tab.wait_for_function(f"!window.voxelworld.stats.controlling && {SHOWN} === null", timeout=WAIT_MS)
            assert not problems, problems
        finally:
            browser.close()
