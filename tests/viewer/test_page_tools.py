"""The player's own tool motions drawn by the page (issue 32 §1): F throws the drawn character's right fist out
along its view and back (game.strike), X held bends it over its shovel (game.shovel) and digs the ground in front
of its feet. Read from the page's skinned character itself (its bones' world places), not from the frame.

Screenshots go to ``$VOXELWORLD_SCREENSHOTS`` (when set) for review: ``tools-punch.png`` (the fist out) and
``tools-dig.png`` (bent over the shovel); docs/play.md shows them."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from .browser import CHROMIUM, require_browser, served_page

sync_playwright = require_browser()

from voxelworld.game.level import demo_level  # noqa: E402
from voxelworld.game.player import view_direction  # noqa: E402
from voxelworld.game.poses import RIGHT_ARM, character_rig  # noqa: E402
from voxelworld.game.world import Inputs, World  # noqa: E402

from .test_browser import WAIT_MS, wait_for_renders  # noqa: E402

WRIST = character_rig().skeleton.index(RIGHT_ARM[2])
SHOULDER = character_rig().skeleton.index(RIGHT_ARM[0])
LOOK = (270.0, -20.0)  # along +x, down at the ground a few metres ahead

# JS: the world places of the drawn player's bones ``[wrist, shoulder, root]`` every picture for ``ms`` milliseconds.
TRACE = """([joints, ms]) => new Promise((done) => {
  const v = window.voxelworld, trace = [], start = performance.now();
  const player = () => { let found = null; v.scene.traverse((o) => {
    if (!found && o.name.startsWith("character:player:")) found = o; }); return found; };
  const sample = () => {
    const object = player();
    if (object) {
      object.updateMatrixWorld(true);
      const V = v.camera.position.constructor;
      trace.push(joints.map((j) => object.userData.bones[j].getWorldPosition(new V()).toArray()));
    }
    if (performance.now() - start < ms) requestAnimationFrame(sample); else done(trace);
  };
  requestAnimationFrame(sample);
})"""


@pytest.fixture(scope="module")
def page():
    if not CHROMIUM.exists():
        pytest.fail(f"CI must run the browser tests, but {CHROMIUM} is missing (scripts/setup installs it)")
    world = World.from_level(replace(demo_level(0), enemies=()), seed=0)
    world.step(Inputs(look=LOOK))
    with served_page(world, "?resolution=1&quality=low", (960, 600)) as tab:
        tab.evaluate(f"window.voxelworld.look({LOOK[0]}, {LOOK[1]})")
        tab.keyboard.press("KeyH")  # the key list folded: the pictures show the player
        wait_for_renders(tab)
        yield tab
    assert not tab.problems, tab.problems


def save(page, name: str) -> None:
    """A picture of the player from its right side, 3 m away (the camera fixed for it, then following again)."""
    folder = os.environ.get("VOXELWORLD_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        x, y, z = page.evaluate("window.voxelworld.frame.player.position")
        page.evaluate(f"window.voxelworld.view([{x + 0.6}, {y + 1.3}, {z + 3.0}], [{x + 0.6}, {y + 0.7}, {z}])")
        wait_for_renders(page, 2)
        page.screenshot(path=str(Path(folder) / f"tools-{name}.png"))
        page.evaluate("window.voxelworld.view(null)")


def trace(page, ms: int) -> np.ndarray:
    return np.array(page.evaluate(TRACE, [[WRIST, SHOULDER, 0], ms]))


def punch(page) -> None:
    page.keyboard.down("KeyF")
    page.wait_for_timeout(40)
    page.keyboard.up("KeyF")


def test_f_throws_the_drawn_fist_out_along_the_view_and_back(page):
    still = trace(page, 300)
    ahead = view_direction(LOOK[0], 0.0)
    punch(page)
    traced = trace(page, 1500)
    reach = (traced[:, 0] - traced[:, 2]) @ ahead  # the fist ahead of the hips
    rest = float(np.median((still[:, 0] - still[:, 2]) @ ahead))
    assert reach.max() - rest > 0.15  # out along the view ...
    assert abs(reach[-1] - rest) < 0.05  # ... and back
    strike = page.world.actions.strike
    punch(page)
    for _ in range(200):  # until the fist is about furthest out (the server's world, read between its frames)
        motion = strike.motion
        if motion is not None and motion.clocks[motion.root] >= 0.45 * motion.clip.duration:
            break
        page.wait_for_timeout(10)
    save(page, "punch")
    page.wait_for_timeout(800)


def test_x_held_bends_the_drawn_player_over_its_shovel_and_digs(page):
    world = page.world
    before = world.volume.solid_volume()
    still = trace(page, 300)
    page.keyboard.down("KeyX")
    try:
        page.wait_for_function("window.voxelworld.frame.characters.find((c) => c.kind === 'player').blade",
                               timeout=WAIT_MS)  # the dig plays: the shovel is drawn
        bent = trace(page, 1500)
        moved = np.linalg.norm(bent[:, 1] - still[:, 1].mean(axis=0), axis=1)  # the shoulder bends forward
        assert moved.max() > 0.1
        page.wait_for_function("(window.voxelworld.effects.spawned.dig || 0) > 0", timeout=WAIT_MS)
        save(page, "dig")
    finally:
        page.keyboard.up("KeyX")
    assert world.volume.solid_volume() < before  # the ground in front of its feet dug
