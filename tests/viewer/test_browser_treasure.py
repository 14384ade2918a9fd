"""Treasure on the page (issue 32): the demo world (no enemy), the player 1.4 m from the rock wall facing it, with a
treasure exposed on the wall's face in front of it, a soil fragment nearer on the way, and another treasure buried
0.5 m deep to the side. At a fixed view: the buried treasure is labelled with its depth, the exposed one is ringed
as what E would take ("E: open", not the nearer fragment); E opens it: gold sparks, its reward in words above it
("rock: +1 currency") and a chime. The views are saved into ``$VOXELWORLD_SCREENSHOTS`` (when set) as
``treasure-before.png`` and ``treasure-opened.png`` (docs/play.md shows the first)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from .browser import CHROMIUM, require_browser, served_page

sync_playwright = require_browser()

from voxelworld.game.actions import ball_object  # noqa: E402
from voxelworld.game.deformation import Treasure  # noqa: E402
from voxelworld.game.level import demo_level  # noqa: E402
from voxelworld.game.objects import WorldObject  # noqa: E402
from voxelworld.game.world import Inputs, World  # noqa: E402

from .test_browser import WAIT_MS, pixels, wait_for_renders  # noqa: E402

EXPOSED = (38.5, 11.0, 24.0)  # a voxel of the wall's face, straight ahead of the eye (1.5 m)
BURIED = (39.0, 11.0, 22.0)  # 0.5 m of rock between it and the air, 2.8 m from the eye (out of E's reach)
FRAGMENT = (38.25, 10.6, 24.3)  # against the face, nearer the eye than the exposed treasure
CAMERA, TARGET = [35.6, 11.9, 26.2], [38.6, 10.9, 23.4]  # behind the player, to its left, looking at both


def save(page, name: str) -> None:
    folder = os.environ.get("VOXELWORLD_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"treasure-{name}.png"))


@pytest.fixture(scope="module")
def page():
    if not CHROMIUM.exists():
        pytest.fail(f"CI must run the browser tests, but {CHROMIUM} is missing (scripts/setup installs it)")
    world = World.from_level(replace(demo_level(0), enemies=()), seed=0)
    while world.player.position[0] < 37.0:
        world.step(Inputs(move=(0.0, 1.0), look=(270.0, 0.0)))
    world.step(Inputs(look=(270.0, 0.0)))
    actions = world.actions
    actions.deformation = replace(actions.deformation, treasures=(Treasure("treasure", EXPOSED, 0.5),
                                                                  Treasure("treasure", BURIED, 0.75)))
    actions.objects.append(WorldObject("fragment-near", "fragment", ball_object(world.volume, "soil", 0.12, FRAGMENT),
                                       resting=True))
    with served_page(world, viewport=(1280, 720)) as tab:
        tab.evaluate(f"window.voxelworld.view({CAMERA}, {TARGET})")
        wait_for_renders(tab)
        yield tab


SCENE = """() => {
  const scene = window.voxelworld.scene, labels = [];
  scene.traverse((o) => { if (o.isSprite && o.visible) labels.push(o.name); });
  const mark = scene.getObjectByName("use-target");
  return { labels, use: mark && mark.visible ? mark.userData.use : null,
           frameUse: window.voxelworld.frame.use };
}"""


def gold_share(image: np.ndarray) -> float:
    r, g, b = (image[..., n].astype(int) for n in range(3))
    return float(np.mean((r > 200) & (g > 160) & (b < 140) & (r - b > 90)))


def test_the_buried_treasure_says_its_depth_and_e_would_open_the_exposed_one(page):
    seen = page.evaluate(SCENE)
    assert seen["frameUse"] == {"name": "treasure-0", "kind": "treasure", "depth": 0.0}
    assert seen["use"] == seen["frameUse"]  # ringed: the treasure, not the nearer fragment
    assert "label:0.5 m deep" in seen["labels"] and "label:E: open" in seen["labels"]
    image = pixels(page)
    assert gold_share(image) > 0.0005  # the treasures and the labels' gold words are drawn
    save(page, "before")
    assert not page.problems


def test_e_opens_it_with_gold_sparks_its_reward_in_words_and_a_chime(page):
    before = gold_share(pixels(page))
    page.click("#view canvas")  # a gesture: the page's sound may start
    page.keyboard.press("KeyE")
    page.wait_for_function("(window.voxelworld.effects.spawned.treasure || 0) >= 1", timeout=WAIT_MS)
    wait_for_renders(page, 2)
    seen = page.evaluate(SCENE)
    assert "reward" in seen["labels"]
    reward = page.evaluate("window.voxelworld.scene.getObjectByName('reward').userData.text")
    assert reward == "rock: +1 currency"
    assert seen["frameUse"] == {"name": "fragment-near", "kind": "fragment", "depth": 0.0}  # E's next target
    assert seen["use"] == seen["frameUse"] and "label:E: pick up" in seen["labels"]
    assert gold_share(pixels(page)) > before  # the sparks and the words
    audio = page.evaluate("window.voxelworld.audio")
    assert audio["context"] != "running" or audio["played"].get("treasure") == 1
    save(page, "opened")
    assert not page.problems
