"""A quieter screen (the page fixture of test_browser.py): the status line says who plays unless the details key
(I) asks for the frame's figures; the key list folds away after the first minute (H shows it again); the HUD
says what the player holds in words; the awards chart is small; the navmesh overlay lets the ground show.

Screenshots go to ``$VOXELWORLD_SCREENSHOTS`` (when set) for review."""

from __future__ import annotations

import json

from .test_browser import WAIT_MS, page, wait_for_renders  # noqa: F401 (page: the fixture, used again)
from .test_page_feedback import save


def status(page) -> str:
    wait_for_renders(page, 20)  # the status line is rewritten every 250 ms
    return page.inner_text("#status")


def test_the_status_line_says_who_plays_and_i_shows_the_details(page):
    plain = status(page)
    assert plain.startswith("you play player") and "frame" not in plain and "step" not in plain
    page.keyboard.press("KeyI")
    try:
        page.wait_for_function("document.getElementById('status').textContent.includes('step')", timeout=WAIT_MS)
        detailed = page.inner_text("#status")
        assert detailed.startswith(plain) and "frame" in detailed and "triangles" in detailed
    finally:
        page.keyboard.press("KeyI")
    page.wait_for_function("!document.getElementById('status').textContent.includes('frame')", timeout=WAIT_MS)


def test_the_key_list_folds_away_after_the_first_minute_and_h_shows_it(page):
    tab = page.context.browser.new_page(viewport={"width": 960, "height": 600})  # its own clock (a second player)
    try:
        tab.clock.install()
        tab.goto(page.url)
        tab.wait_for_function("window.voxelworld && window.voxelworld.stats.connected", timeout=WAIT_MS)
        assert tab.is_visible("#help table")  # shown for the first minute
        left = tab.evaluate("window.voxelworld.helpFoldsAt - performance.now()")
        assert 50_000 < left <= 60_000
        tab.clock.run_for(int(left) - 1_000)
        assert tab.is_visible("#help table")
        tab.clock.run_for(2_000)
        assert not tab.is_visible("#help table") and tab.is_visible("#help")  # folded to its title
        assert "H shows" in tab.inner_text("#help")
        tab.keyboard.press("KeyH")
        assert tab.is_visible("#help table")
        tab.clock.run_for(120_000)
        assert tab.is_visible("#help table")  # the player chose: it stays
    finally:
        tab.close()
    # Its player gone, the page's HUD shows one player's again (no shares line under the chart).
    page.wait_for_function("document.getElementById('shares').textContent === ''", timeout=WAIT_MS)


def test_the_hud_says_what_the_player_holds_in_words(page):
    hud = page.evaluate("window.voxelworld.hud")
    said = {}
    for kind, material in (("held", "grass"), ("bullet", "soil")):
        said[kind] = page.evaluate("""(text) => {
            window.voxelworld.socket.onmessage({ data: text });
            return document.getElementById("held").textContent;
        }""", json.dumps({**hud, "held": {"kind": kind, "material": material}}))
    assert said == {"held": "holding a piece of grass", "bullet": "holding a bullet of soil"}


def test_the_chart_is_small_and_the_navmesh_overlay_lets_the_ground_show(page):
    box = page.locator("#chart").bounding_box()
    assert box["width"] <= 240 and box["height"] <= 130  # at 960x600 it was 322 x 200
    page.keyboard.press("KeyN")
    try:
        page.wait_for_function("window.voxelworld.navmeshChildren() > 0", timeout=WAIT_MS)
        opacities = page.evaluate("""() => window.voxelworld.scene.getObjectByName("navmesh").children.map(
            (child) => child.material.opacity)""")
        assert opacities and max(opacities) < 1 and min(opacities) <= 0.3  # the fill: 0.6 before
        wait_for_renders(page, 5)
        save(page, "navmesh-overlay")
    finally:
        page.keyboard.press("KeyN")


def test_an_award_shows_as_it_comes(page):
    event = {"event": "outcome", "kind": "award", "position": None, "material": None, "amount": 1.0,
             "item": "soil award 1"}
    toasts = page.evaluate("""(text) => {
        window.voxelworld.socket.onmessage({ data: text });
        return [...document.querySelectorAll("#toasts .toast.award")].map((toast) => toast.textContent);
    }""", json.dumps({"type": "events", "frame": 0, "events": [event]}))
    assert toasts == ["award: soil award 1 (1 m³ dug)"]
