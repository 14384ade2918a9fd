"""The shop and the goals on the page (issue 32, section 5): the demo world (no enemy), the player with 5 currency
and the iron reached. The HUD's goals checklist ticks what is reached; B opens the shop panel listing each upgrade
with its level and the next level's price (too expensive: greyed); its number key buys it (the server takes the
price; the panel and a toast say so) or the server says why not; B closes it. The open shop at a fixed view is saved
into ``$VOXELWORLD_SCREENSHOTS`` (when set) as ``shop-open.png`` (docs/play.md shows it as docs/images/shop.png)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from .browser import CHROMIUM, require_browser, served_page

sync_playwright = require_browser()

from voxelworld.game.level import demo_level  # noqa: E402
from voxelworld.game.world import Inputs, World  # noqa: E402

from .test_browser import WAIT_MS, wait_for_renders  # noqa: E402

CAMERA, TARGET = [16.0, 14.5, 28.0], [27.0, 10.0, 24.0]  # behind the player, looking at the iron block


def save(page, name: str) -> None:
    folder = os.environ.get("VOXELWORLD_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"shop-{name}.png"))


@pytest.fixture(scope="module")
def page():
    if not CHROMIUM.exists():
        pytest.fail(f"CI must run the browser tests, but {CHROMIUM} is missing (scripts/setup installs it)")
    world = World.from_level(replace(demo_level(0), enemies=()), seed=0)
    world.player.add_currency(5.0)
    world.player.progress = replace(world.player.progress, goals=("reach_iron",))
    world.step(Inputs(look=(270.0, -10.0)))
    with served_page(world, viewport=(1280, 720)) as tab:
        tab.evaluate(f"window.voxelworld.view({CAMERA}, {TARGET})")
        wait_for_renders(tab)
        yield tab


ROWS = """() => [...document.querySelectorAll("#shop-list .upgrade")].map((b) => ({
  name: b.dataset.upgrade, disabled: b.disabled, cost: b.querySelector(".cost").textContent,
  pips: b.querySelector(".pips").textContent }))"""


def test_the_goals_checklist_ticks_what_the_player_reached(page):
    page.wait_for_function("document.querySelector('#goals li.done') !== null", timeout=WAIT_MS)
    assert page.is_visible("#goals")
    lines = page.evaluate("[...document.querySelectorAll('#goals li')].map((l) => [l.dataset.goal, l.className])")
    assert lines == [["open_treasures", ""], ["reach_iron", "done"], ["cool_lava", ""]]
    assert page.inner_text("#goals h3") == "goals 1 / 3"
    assert page.evaluate("window.voxelworld.hud.goals[1]") == {"name": "reach_iron", "text": "reach the iron",
                                                               "done": True}


def test_b_opens_the_shop_and_its_number_key_buys_an_upgrade_or_says_why_not(page):
    assert not page.is_visible("#shop")
    page.keyboard.press("KeyB")
    assert page.is_visible("#shop") and page.evaluate("window.voxelworld.shopOpen")
    assert page.evaluate(ROWS) == [
        {"name": "punch_damage", "disabled": False, "cost": "2", "pips": "○○○"},
        {"name": "suck_reach", "disabled": False, "cost": "2", "pips": "○○○"},
        {"name": "breaker", "disabled": True, "cost": "10", "pips": "○"}]  # 10 > 5: greyed
    assert page.inner_text("#shop-currency") == "currency: 5"
    wait_for_renders(page)
    save(page, "open")
    page.keyboard.press("Digit1")
    page.wait_for_function("document.getElementById('shop-note').textContent.startsWith('bought')", timeout=WAIT_MS)
    assert page.inner_text("#shop-note") == "bought punch damage (level 1) for 2"
    page.wait_for_function("window.voxelworld.hud.currency === 3", timeout=WAIT_MS)
    page.wait_for_function("document.getElementById('shop-currency').textContent === 'currency: 3'", timeout=WAIT_MS)
    assert page.evaluate(ROWS)[0] == {"name": "punch_damage", "disabled": True, "cost": "4", "pips": "●○○"}  # 4 > 3
    assert page.world.player.progress.level("punch_damage") == 1
    assert any("bought" in t for t in page.evaluate("[...document.querySelectorAll('.toast')].map((t) => t.textContent)"))
    page.keyboard.press("Digit3")  # the breaker: the server refuses it
    page.wait_for_function("document.getElementById('shop-note').textContent.startsWith('not enough')",
                           timeout=WAIT_MS)
    assert page.inner_text("#shop-note") == "not enough currency: iron breaker costs 10, you have 3"
    page.keyboard.press("KeyB")
    assert not page.is_visible("#shop")
    page.keyboard.press("Digit2")  # closed: the number keys buy nothing
    wait_for_renders(page, 10)
    assert page.world.player.progress.level("suck_reach") == 0
    assert not page.problems
