"""Two pages play together in headless chromium (issue #35): each plays its own player, named on its page's
address, and draws the other's character with its name over its head; what one walks the other sees."""

from __future__ import annotations

from voxelworld.game.world import World

from .browser import ARGS, BEHAVIOUR_PAGE, CHROMIUM, READY, WAIT_MS, require_browser
from .test_page_feedback import save

sync_playwright = require_browser()

ACTORS = "window.voxelworld.scene.getObjectByName('actors').children.map((o) => o.name)"
# The name over an actor's head (the text of its label sprite), or null.
NAME_OF = "(name) => window.voxelworld.scene.getObjectByName('actors').getObjectByName(name)?.userData.label" \
          "?.userData.text ?? null"
POSITION_OF = "(name) => window.voxelworld.frame.characters.find((c) => c.kind === 'player' && c.name === name)" \
              "?.position ?? null"


def test_two_pages_each_play_their_own_and_see_the_other_named():
    from voxelworld.viewer.server import ServerThread

    world = World.demo(seed=0, npcs=0)
    with ServerThread(world, grace=0.0) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            tabs = []
            for name in ("Ann", "Bo"):  # two contexts: two tabs that share no session (no token)
                tab = browser.new_context(viewport={"width": 640, "height": 400}).new_page()
                problems: list[str] = []
                tab.on("pageerror", lambda error, kept=problems: kept.append(str(error)))
                tab.goto(server.url + BEHAVIOUR_PAGE + f"&name={name}")
                tab.wait_for_function(READY, timeout=WAIT_MS)
                tabs.append((tab, problems))
            (ann, ann_problems), (bo, bo_problems) = tabs
            # The first page plays the world's own player (named as it asks), the second joins as Bo.
            ann.wait_for_function("window.voxelworld.stats.name === 'Ann'", timeout=WAIT_MS)
            bo.wait_for_function("window.voxelworld.stats.name === 'Bo'", timeout=WAIT_MS)
            assert [n for n, _ in world.players()] == ["Ann", "Bo"]
            for tab, other in ((ann, "Bo"), (bo, "Ann")):
                tab.wait_for_function(f"{ACTORS}.includes('character:player:{other}')", timeout=WAIT_MS)
                assert tab.evaluate(NAME_OF, f"character:player:{other}") == other  # the other one, named
            own = bo.evaluate(NAME_OF, "character:player:Bo")
            assert own is None  # its own player carries no name
            assert "you play Bo (Ann too)" in bo.inner_text("#status")
            assert ann.inner_text("#shares").startswith("by player: Ann 0.0 · Bo 0.0")  # each one's digging
            # Bo walks forward: Ann's page sees Bo's character move.
            start = ann.evaluate(POSITION_OF, "Bo")
            bo.keyboard.down("KeyW")
            try:
                ann.wait_for_function(f"(() => {{ const p = ({POSITION_OF})('Bo'); return p && "
                                      f"Math.hypot(p[0] - {start[0]}, p[2] - {start[2]}) > 1.0; }})()",
                                      timeout=WAIT_MS)
            finally:
                bo.keyboard.up("KeyW")
            save(ann, "together-ann-sees-bo")
            save(bo, "together-bo-sees-ann")
            assert not ann_problems and not bo_problems
        finally:
            browser.close()
