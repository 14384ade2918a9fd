"""The actors in a real browser: every actor is a skinned CesiumMan posed from the frame's characters.

The demo world (its 3 NPCs and the chainsaw enemy cutting the rock wall) with the player standing 4 m beside the
enemy, looking at it (+z); the page plays it. The scene holds one skin per actor (skinned on the CPU; counted through
``window.voxelworld.characters()``), and the enemy is in the picture: drawn once with and once without the
enemy in the same instant, the pictures differ around where the enemy stands. The pictures are written to
``VOXELWORLD_SCREENSHOTS`` (a folder) when that is set, for a person to look at. A page that cannot load the model
warns in its console and draws the old stand-ins (capsules, the enemy's sticks).

Skipped only where /usr/bin/chromium (or Playwright) is missing and the CI variable is unset."""

from __future__ import annotations

import base64
import io
import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from .browser import ARGS, CHROMIUM, FULL_RESOLUTION, require_browser

WAIT_MS = 30_000

sync_playwright = require_browser()

from PIL import Image  # noqa: E402

from voxelworld.game.level import demo_level, surface_height  # noqa: E402
from voxelworld.game.world import World  # noqa: E402
from voxelworld.viewer.server import ServerThread  # noqa: E402


def with_and_without(parts: str, point: str) -> str:
    """A page function drawing the scene with and without ``parts`` (a JS expression of a list of objects, with
    ``actors`` and ``enemy`` at hand) in one go, so nothing moves in between, and projecting ``point`` (a JS
    expression of a world position) to the picture: {count, shown, hidden, x, y}."""
    return f"""() => {{
  const v = window.voxelworld, canvas = document.querySelector('#view canvas');
  const actors = v.scene.getObjectByName('actors');
  const enemy = actors.children.find((o) => o.userData.kind === 'enemy');
  const parts = {parts};
  v.renderer.render(v.scene, v.camera);
  const shown = canvas.toDataURL('image/png');
  for (const p of parts) p.visible = false;
  v.renderer.render(v.scene, v.camera);
  const hidden = canvas.toDataURL('image/png');
  for (const p of parts) p.visible = true;
  const at = ({point}).project(v.camera);
  return {{ count: parts.length, shown, hidden, x: (at.x + 1) / 2 * canvas.width, y: (1 - at.y) / 2 * canvas.height }};
}}"""


# The enemy (its model and its blade), and its chest.
WITH_AND_WITHOUT = with_and_without("[enemy, enemy.userData.blade]", "enemy.position.clone().setY(enemy.position.y + 1.3)")


def decode(url: str) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB"))


@pytest.fixture(scope="module")
def page():
    if not CHROMIUM.exists():
        pytest.fail(f"CI must run the browser tests, but {CHROMIUM} is missing (scripts/setup installs it)")
    level = demo_level(0)
    x, z = 36.6, 26.0  # beside the enemy (37.4, 30.0), looking along +z at it
    level = replace(level, spawn=(x, surface_height(level.volume, x, z), z), spawn_yaw=180.0)
    world = World.from_level(level, seed=0)
    with ServerThread(world) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            tab = browser.new_page(viewport={"width": 1280, "height": 720})
            problems: list[str] = []
            warnings: list[str] = []
            tab.on("pageerror", lambda error: problems.append(str(error)))
            tab.on("console", lambda m: (problems if m.type == "error" else warnings).append(m.text)
                   if m.type in ("error", "warning") else None)
            tab.goto(server.url + FULL_RESOLUTION)
            tab.wait_for_function("window.voxelworld && window.voxelworld.stats.frames > 10 && "
                                  "window.voxelworld.stats.chunks > 20 && "
                                  "window.voxelworld.characters().state !== 'loading'", timeout=WAIT_MS)
            tab.wait_for_function("window.voxelworld.characters().skinned >= 5", timeout=WAIT_MS)
            tab.problems, tab.warnings, tab.world, tab.browser, tab.server = problems, warnings, world, browser, server
            yield tab
        finally:
            browser.close()


def save(name: str, image: np.ndarray) -> None:
    folder = os.environ.get("VOXELWORLD_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        Image.fromarray(image).save(Path(folder) / name)


def test_every_actor_is_a_skinned_character(page):
    counts = page.evaluate("window.voxelworld.characters()")
    assert counts["state"] == "loaded", page.warnings
    world = page.world
    assert counts["player"] >= 1 and counts["enemy"] >= 1
    assert counts["npc"] == counts["player"] * len(world.agents.npcs)  # one model (of the same meshes) each
    assert counts["enemy"] == counts["player"] * len(world.agents.enemies)
    # No capsule stand-ins once the character is there.
    names = page.evaluate("window.voxelworld.scene.getObjectByName('actors').children.map((o) => o.name)")
    assert "player" not in names and not any(n.startswith(("npc:", "enemy:")) for n in names)
    assert page.problems == []


def test_the_enemy_is_in_the_picture(page):
    page.keyboard.press("v")  # first person: the player's own model out of the way
    page.wait_for_timeout(500)
    drawn = page.evaluate(WITH_AND_WITHOUT)
    shown, hidden = decode(drawn["shown"]), decode(drawn["hidden"])
    save("enemy_first_person.png", shown)
    save("enemy_first_person_hidden.png", hidden)
    changed = np.abs(shown.astype(int) - hidden.astype(int)).sum(axis=-1) > 30
    assert changed.sum() > 2000  # the character covers a good patch of the 1280 x 720 picture
    rows, cols = np.nonzero(changed)
    x, y = drawn["x"], drawn["y"]
    assert 0 < x < shown.shape[1] and 0 < y < shown.shape[0]  # the enemy's chest is in view
    # the changed pixels gather around the enemy's chest (within a quarter of the picture's width)
    assert abs(np.median(cols) - x) < shown.shape[1] / 4 and abs(np.median(rows) - y) < shown.shape[0] / 4
    page.keyboard.press("v")
    page.wait_for_timeout(500)
    save("enemy_third_person.png", decode(page.evaluate("window.voxelworld.renderer.render("
                                                        "window.voxelworld.scene, window.voxelworld.camera), "
                                                        "document.querySelector('#view canvas').toDataURL()")))
    assert page.problems == []


def test_without_the_model_the_page_warns_and_draws_capsules(page):
    tab = page.browser.new_page(viewport={"width": 640, "height": 360})
    try:
        warnings: list[str] = []
        tab.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
        tab.route("**/character.glb", lambda route: route.abort())
        tab.goto(page.server.url + FULL_RESOLUTION)
        tab.wait_for_function("window.voxelworld && window.voxelworld.characters().state === 'failed' && "
                              "window.voxelworld.stats.frames > 5", timeout=WAIT_MS)
        tab.wait_for_timeout(300)
        assert any("character.glb" in w and "capsules" in w for w in warnings), warnings
        assert tab.evaluate("window.voxelworld.characters().skinned") == 0
        names = tab.evaluate("window.voxelworld.scene.getObjectByName('actors').children.map((o) => o.name)")
        assert "figure:player:player" in names and any(n.startswith("figure:npc:") for n in names)
        assert any(n.startswith("figure:enemy:") for n in names)
        blade = tab.evaluate("window.voxelworld.scene.getObjectByName('figure:enemy:chainsaw').userData.blade.parent"
                             " !== null")
        assert blade  # the enemy's blade is drawn beside its capsule
    finally:
        tab.close()


# Each character's skins: its full, lighter and farthest geometry (triangles, vertices, attributes), which one the
# last picture drew, its distance to the camera; every level skinned anew in the current pose (their world bounds), and
# the full level's skin against three's own skinning (SkinnedMesh.applyBoneTransform) at every 25th vertex.
LEVELS = """async () => {
  const { DETAIL_METRES, FAR_METRES } = await import('./actors.js');
  const { skinGeometry, skinOnCpu } = await import('./skinning.js');
  const v = window.voxelworld, actors = v.scene.getObjectByName('actors');
  const out = [], blend = new Float32Array(16 * 256), point = new v.camera.position.constructor();
  for (const object of actors.children) {
    if (!object.userData.skins) continue;
    object.updateMatrixWorld(true); // a skinned mesh's bindMatrixInverse too (applyBoneTransform uses it)
    for (const skin of object.userData.skins) {
      const bounds = (level) => {
        const target = skinGeometry(skin[level].geometry);
        skinOnCpu(skin.mesh, skin[level].data, target, blend);
        target.computeBoundingBox();
        return { box: target.boundingBox.min.toArray().concat(target.boundingBox.max.toArray()), target };
      };
      const full = bounds('full'), light = bounds('light'), far = bounds('far');
      let worst = 0;
      const positions = full.target.attributes.position;
      skin.mesh.geometry = skin.full.geometry;
      for (let i = 0; i < positions.count; i += 25) {
        skin.mesh.applyBoneTransform(i, point.fromBufferAttribute(skin.full.geometry.attributes.position, i));
        point.applyMatrix4(skin.mesh.matrixWorld);
        worst = Math.max(worst, point.distanceTo(new point.constructor().fromBufferAttribute(positions, i)));
      }
      const lightGeometry = skin.light.geometry, fullGeometry = skin.full.geometry, farGeometry = skin.far.geometry;
      out.push({
        kind: object.userData.kind, distance: object.position.distanceTo(v.camera.position), detail: DETAIL_METRES,
        farMetres: FAR_METRES, drawnFar: skin.skin.geometry === skin.far.drawn,
        farTriangles: farGeometry.index.count / 3, farBox: far.box,
        farSkinned: ['skinIndex', 'skinWeight', 'uv', 'normal'].every((n) => n in farGeometry.attributes),
        drawnFull: skin.skin.geometry === skin.full.drawn, visible: skin.skin.visible, hidden: !skin.mesh.visible,
        fullTriangles: fullGeometry.index.count / 3, lightTriangles: lightGeometry.index.count / 3,
        lightVertices: lightGeometry.attributes.position.count, maxIndex: Math.max(...lightGeometry.index.array),
        skinned: ['skinIndex', 'skinWeight', 'uv', 'normal'].every((n) => n in lightGeometry.attributes),
        fullBox: full.box, lightBox: light.box, worstAgainstThree: worst,
      });
    }
  }
  return out;
}"""


def test_actors_far_from_the_camera_are_drawn_with_the_lighter_character(page):
    """An actor farther than DETAIL_METRES from the camera is drawn with the simplified copy (about a fifth of the
    triangles, every kept vertex's skin weights), farther than FAR_METRES with the farthest (under a twentieth),
    nearer with the full model; all follow the same skeleton, and
    the skin drawn (skinned on the CPU) is where three's own skinning puts it. The camera is placed 1.6 m from the
    enemy (the player stands 4 m from it); an actor out of the camera's view is not drawn (nor skinned)."""
    enemy = np.array(page.evaluate("window.voxelworld.frame.characters.find((c) => c.kind === 'enemy').position"))
    page.evaluate("([eye, target]) => window.voxelworld.view(eye, target)",
                  [list(enemy + (-1.2, 1.4, -0.6)), list(enemy + (0.0, 1.0, 0.0))])
    try:
        rendered = page.evaluate("window.voxelworld.stats.rendered")
        page.wait_for_function(f"window.voxelworld.stats.rendered > {rendered + 2}", timeout=WAIT_MS)
        entries = page.evaluate(LEVELS)
        lighter = page.evaluate("window.voxelworld.characters().lighter")
    finally:
        page.evaluate("window.voxelworld.view(null)")
    assert len(entries) >= 5
    for entry in entries:
        assert 0.1 * entry["fullTriangles"] <= entry["lightTriangles"] <= 0.3 * entry["fullTriangles"], entry
        assert entry["skinned"] and entry["maxIndex"] == entry["lightVertices"] - 1, entry  # compact, every attribute
        # posed the same: the simplified skin's bounds within 5 cm of the full one's
        assert np.allclose(entry["fullBox"], entry["lightBox"], atol=0.05), entry
        assert entry["farTriangles"] <= 0.05 * entry["fullTriangles"] and entry["farSkinned"], entry
        assert np.allclose(entry["fullBox"], entry["farBox"], atol=0.08), entry  # within 8 cm: the farthest's
        if entry["visible"]:
            assert entry["drawnFull"] == (entry["distance"] < entry["detail"]), entry
            assert entry["drawnFar"] == (entry["distance"] >= entry["farMetres"]), entry
        assert entry["hidden"] and entry["worstAgainstThree"] < 1e-4, entry  # the CPU skin is three's skinning
    assert all(e["visible"] for e in entries if e["kind"] == "enemy"), entries  # in view: drawn
    assert not all(e["visible"] for e in entries), entries  # the player behind the camera: not drawn
    assert [e["kind"] for e in entries if e["drawnFull"] and e["visible"]] == ["enemy"]
    assert lighter == sum(not e["drawnFull"] for e in entries)
    assert page.problems == []


# The discs every actor stands on, and the enemy's feet.
WITH_AND_WITHOUT_DISCS = with_and_without(
    "(() => { const discs = []; actors.traverse((o) => { if (o.name === 'shadow') discs.push(o); }); return discs; })()",
    "enemy.position.clone()")


def test_every_actor_stands_on_a_soft_shadow(page):
    """Actors cast no shadow-map shadow (the map is the static terrain's); each stands on a dark disc: the ground
    at the enemy's feet is darker with the discs than without."""
    drawn = page.evaluate(WITH_AND_WITHOUT_DISCS)
    assert drawn["count"] >= 5
    shown, hidden = decode(drawn["shown"]), decode(drawn["hidden"])
    x, y = int(round(drawn["x"])), int(round(drawn["y"]))
    assert 10 <= x < shown.shape[1] - 10 and 10 <= y < shown.shape[0] - 10, (x, y)
    around = (slice(y - 6, y + 7), slice(x - 30, x + 31))  # the disc reaches beyond the legs, left and right
    # How much darker each pixel is with the discs: the disc's darkest tenth (near its middle, 0.45 dark at the
    # centre: about 20 on this ground) whatever share of the patch it covers (smaller as the enemy works away).
    darker = (hidden[around].astype(float) - shown[around].astype(float)).mean(axis=-1)
    assert np.percentile(darker, 90) >= 12 and darker.mean() > 2, (np.percentile(darker, 90), darker.mean())
    assert page.problems == []
