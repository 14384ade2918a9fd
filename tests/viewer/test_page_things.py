"""Things on the ground in a real browser (viewer/web/things.js, issue #34): Playwright drives Debian's chromium
(headless, WebGL through SwiftShader) against the demo world's play server; the test sends the page the server's
"thing_kinds" and "things" messages (``window.voxelworld.receive``, as if from the socket) and looks from a fixed
camera (``window.voxelworld.view``) along -z over the ground.

Checked: each kind's instanced meshes hold the things by level of detail (near within 8-15 m, mid at 60 m,
impostors at 120 m; a thing behind the camera or beyond the fog left out); one draw call per kind
and level drawn; a column sent again with an empty list loses its things; a fallen tree is drawn lying along its
yaw (its up axis turned to (cos yaw, 0, -sin yaw), as game/ground_things.py lays a fallen tree's obstacle) and,
far away, with its mesh rather than a standing impostor;
in the picture, trees stand on the ground (the pixels at a trunk's foot and in its crown change when the things
are removed; the crown green) at the default look. The demo world alone draws no things.

Pictures go to ``$VOXELWORLD_SCREENSHOTS`` when set (``things-near.png``, ``things-removed.png``).
Skipped only where /usr/bin/chromium (or Playwright) is missing and the CI variable is unset."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from .browser import CHROMIUM, require_browser, served_page

sync_playwright = require_browser()

from voxelworld.game.level import demo_level, surface_height  # noqa: E402
from voxelworld.game.world import World  # noqa: E402

from .test_browser import pixels, wait_for_renders  # noqa: E402

KINDS = [{"name": "tree", "radius": 0.3, "height": 8.0}, {"name": "pine", "radius": 0.3, "height": 10.0},
         {"name": "bush", "radius": 0.5, "height": 1.2}, {"name": "rock", "radius": 0.9, "height": 1.3},
         {"name": "crate", "radius": 0.45, "height": 0.9}]
TREE, PINE, BUSH, ROCK, CRATE = range(5)
# the fixed camera: over the demo world's grass, looking -z (its voxel tree at x = 19.2, z = 36 off to the right)
EYE, TARGET = (12.0, 13.0, 40.0), (12.0, 9.9, 24.0)
KEYS = ([1, 0, 1], [1, 0, -2], [1, 0, -10], [1, 0, 4])  # the chunk columns' keys: near, mid, far, out of view
CHANGED = 25  # the least a pixel's largest channel changes where a thing was drawn (0..255)


def receive(tab, message: dict) -> None:
    tab.evaluate("(text) => window.voxelworld.receive(text)", json.dumps(message))


def drawn(tab) -> dict:
    """Per kind name: its instances drawn (near, mid, far); and the things' draw calls."""
    wait_for_renders(tab)
    described = tab.evaluate("window.voxelworld.things()")
    return {k["name"]: (k["near"], k["mid"], k["far"]) for k in described["kinds"]} | {
        "draw calls": described["drawCalls"]}


@pytest.fixture(scope="module")
def world():
    if not CHROMIUM.exists():
        pytest.fail(f"CI must run the browser tests, but {CHROMIUM} is missing (scripts/setup installs it)")
    return World.from_level(replace(demo_level(0), enemies=()), seed=0)


def ground(world, x: float, z: float) -> float:
    return round(float(surface_height(world.volume, x, z)), 2)


def columns(world) -> dict[str, list]:
    """The things of three chunk columns (near, mid and far from the camera, and one behind it)."""
    x = EYE[0]
    near = [[TREE, x - 4.0, ground(world, x - 4.0, 28.0), 28.0, 0.0, 1.0, 0],
            [PINE, x + 5.0, ground(world, x + 5.0, 26.0), 26.0, 30.0, 1.0, 0],
            [BUSH, x + 1.5, ground(world, x + 1.5, 31.0), 31.0, 0.0, 1.0, 0],
            [ROCK, x - 1.5, ground(world, x - 1.5, 32.0), 32.0, 0.0, 1.0, 0],
            [CRATE, x + 2.5, ground(world, x + 2.5, 33.0), 33.0, 0.0, 1.0, 0],
            [TREE, x + 1.0, ground(world, x + 1.0, 30.0), 30.0, 0.0, 1.0, 1]]  # fallen, lying along +x
    mid = [[kind, x + 2.0 * kind - 4.0, 10.0, -20.0, 0.0, 1.0, 0] for kind in range(5)]
    far = [[kind, x + 4.0 * kind - 8.0, 10.0, -80.0, 0.0, 1.0, 0] for kind in range(5)]
    far.append([TREE, x + 12.0, 10.0, -80.0, 180.0, 1.0, 1])  # fallen, far: drawn with the mid mesh
    behind = [[TREE, x, 10.0, 70.0, 0.0, 1.0, 0], [PINE, x, 10.0, -170.0, 0.0, 1.0, 0]]  # and beyond the fog
    return {"near": near, "mid": mid, "far": far, "behind": behind}


@pytest.fixture(scope="module")
def page(world):
    with served_page(world) as tab:
        tab.evaluate(f"window.voxelworld.view({list(EYE)}, {list(TARGET)})")
        wait_for_renders(tab)
        yield tab
    assert not tab.problems, tab.problems


def send_all(tab, world) -> None:
    receive(tab, {"type": "thing_kinds", "kinds": KINDS})
    for key, things in zip(KEYS, columns(world).values()):
        receive(tab, {"type": "things", "chunk": key, "things": things})


def save(tab, name: str) -> None:
    folder = os.environ.get("VOXELWORLD_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(Path(folder) / f"things-{name}.png"))


def test_trees_stand_on_the_ground_in_the_picture(world):
    """At the default look (every pixel): the pixels at the standing tree's foot and in its crown are drawn by it
    (they change when its column is emptied), the crown green and the foot not sky; the fallen tree's crown lies
    on the ground 5.3 m along +x from its foot, and nothing of it stands where its crown would if it stood."""
    tree, fallen = columns(world)["near"][0], columns(world)["near"][5]
    with served_page(world, "?resolution=1", viewport=(1280, 720)) as tab:
        tab.evaluate(f"window.voxelworld.view({list(EYE)}, {list(TARGET)})")
        send_all(tab, world)
        wait_for_renders(tab, 5)
        # where the tree's foot (20 cm up its trunk) and its crown's middle land in the canvas's pixels
        places = tab.evaluate("""([x, y, z]) => {
          const v = window.voxelworld, V = v.camera.position.constructor, c = v.renderer.domElement;
          return [[x, y + 0.2, z], [x, y + 5.6, z]].map((p) => {
            const q = new V(...p).project(v.camera);
            return [Math.round((q.x + 1) / 2 * c.width), Math.round((1 - q.y) / 2 * c.height)];
          });
        }""", tree[1:4])
        places += tab.evaluate("""([x, y, z]) => {
          const v = window.voxelworld, V = v.camera.position.constructor, c = v.renderer.domElement;
          return [[x + 5.3, y + 0.6, z], [x, y + 5.6, z]].map((p) => {
            const q = new V(...p).project(v.camera);
            return [Math.round((q.x + 1) / 2 * c.width), Math.round((1 - q.y) / 2 * c.height)];
          });
        }""", fallen[1:4])
        with_things = pixels(tab).astype(int)
        save(tab, "near")
        for key in KEYS:
            receive(tab, {"type": "things", "chunk": key, "things": []})
        wait_for_renders(tab, 5)
        without = pixels(tab).astype(int)
        save(tab, "removed")
        assert not tab.problems, tab.problems
    (fx, fy), (cx, cy), (lx, ly), (sx, sy) = places
    foot, crown = with_things[fy, fx], with_things[cy, cx]
    assert np.abs(foot - without[fy, fx]).max() >= CHANGED, (foot, without[fy, fx])
    assert np.abs(crown - without[cy, cx]).max() >= CHANGED, (crown, without[cy, cx])
    assert crown[1] > crown[0] and crown[1] > crown[2], crown  # leaves: green
    lying = with_things[ly, lx]
    assert np.abs(lying - without[ly, lx]).max() >= CHANGED and lying[1] > lying[2], (lying, without[ly, lx])
    assert np.abs(with_things[sy, sx] - without[sy, sx]).max() < 8, (with_things[sy, sx], without[sy, sx])
    # on the ground: just under the foot the terrain (not the sky) shows
    below = with_things[min(fy + 6, with_things.shape[0] - 1), fx]
    assert np.abs(below - np.array((0x8F, 0xB8, 0xDE))).max() > 30, below


def test_the_demo_world_alone_draws_no_things(page):
    assert page.evaluate("window.voxelworld.things()")["drawCalls"] == 0


def test_things_are_drawn_by_level_of_detail(page, world):
    send_all(page, world)
    counts = drawn(page)
    # near: every kind's full mesh, the fallen tree too; mid: one each, and the far fallen tree; far: impostors;
    # the tree behind the camera and the pine beyond the fog (the demo world's 140 m) nowhere.
    assert counts["tree"] == (2, 2, 1)
    assert counts["pine"] == (1, 1, 1)
    assert counts["bush"] == (1, 1, 1)
    assert counts["rock"] == (1, 1, 1)
    assert counts["crate"] == (1, 1, 1)
    assert counts["draw calls"] == 15  # one a kind and level drawn
    described = page.evaluate("window.voxelworld.things()")
    assert described["things"] == 19 and described["columns"] == 4
    kinds = {k["name"]: k for k in described["kinds"]}
    for k in kinds.values():  # low-poly: a few hundred triangles near, fewer mid, a handful far
        assert k["nearTriangles"] <= 300 and k["midTriangles"] < k["nearTriangles"] / 2 and k["farTriangles"] <= 12


def test_a_fallen_thing_lies_along_its_yaw(page, world):
    send_all(page, world)
    drawn(page)
    near = page.evaluate(f"window.voxelworld.thingInstances({TREE}, 'near')")
    ups = [np.array(m[4:7]) for m in near]  # each instance's up axis (its matrix's second column)
    lying = [u for u in ups if abs(u[1]) < 1e-3]
    standing = [u for u in ups if u[1] > 0.99]
    assert len(lying) == 1 and len(standing) == 1
    np.testing.assert_allclose(lying[0], [1.0, 0.0, 0.0], atol=1e-5)  # yaw 0: (cos 0, 0, -sin 0)
    far_fallen = [m for m in page.evaluate(f"window.voxelworld.thingInstances({TREE}, 'mid')") if abs(m[5]) < 1e-3]
    assert len(far_fallen) == 1
    np.testing.assert_allclose(far_fallen[0][4:7], [-1.0, 0.0, 0.0], atol=1e-5)  # yaw 180: along -x


def test_an_emptied_column_loses_its_things(page, world):
    send_all(page, world)
    assert drawn(page)["tree"] == (2, 2, 1)
    receive(page, {"type": "things", "chunk": [1, 0, -10], "things": []})  # the far column
    counts = drawn(page)
    assert counts["tree"] == (2, 1, 0) and counts["pine"] == (1, 1, 0) and counts["crate"] == (1, 1, 0)
    assert page.evaluate("window.voxelworld.things()")["columns"] == 3
    receive(page, {"type": "things", "chunk": [1, 0, 1], "things": []})  # the near one
    counts = drawn(page)
    assert counts["tree"] == (0, 1, 0) and counts["crate"] == (0, 1, 0)
