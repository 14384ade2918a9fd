"""The page's third-person camera in a real browser (the spring arm of voxelworld.game.follow_camera): the demo
world without its enemy, a tunnel dug from beside the player's start down under the ground and along under the
rock wall. Looking down at the start, the player stays in the picture, not faded; walked down the tunnel and
turned every way (along it, into its walls, up at its floor's way back, down), the camera stays in the tunnel's
air (checked against the world's voxels) and the player in view.

Screenshots go to ``$VOXELWORLD_SCREENSHOTS`` (when set) for review: ``camera-looking-down.png``,
``camera-tunnel.png`` and ``camera-tunnel-wall.png`` (docs/play.md shows them)."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from .browser import CHROMIUM, require_browser, served_page

sync_playwright = require_browser()

from voxelworld.game.level import demo_level  # noqa: E402
from voxelworld.game.world import Inputs, VoxelEdit, World  # noqa: E402
from voxelworld.terrain import Cylinder  # noqa: E402

from ..game.test_follow_camera import DIG, density  # noqa: E402
from .test_browser import WAIT_MS, wait_for_renders  # noqa: E402

# JS: where the page's player (eye and feet) lands in the picture: x, y in -1..1 inside it, z < 1 before the camera.
IN_PICTURE = """() => {
  const v = window.voxelworld, V = v.camera.position.constructor, p = v.frame.player;
  return [p.eye, p.position].map((q) => new V(...q).project(v.camera).toArray());
}"""


@pytest.fixture(scope="module")
def page():
    if not CHROMIUM.exists():
        pytest.fail(f"CI must run the browser tests, but {CHROMIUM} is missing (scripts/setup installs it)")
    world = World.from_level(replace(demo_level(0), enemies=()), seed=0)
    x, y, z = world.player.position
    world.queue_edit(VoxelEdit("remove", Cylinder((x + 1.0, y + 0.9, z), (x + 14.0, y - 4.5, z), 1.4), tool=DIG))
    world.queue_edit(VoxelEdit("remove", Cylinder((x + 14.0, y - 4.5, z), (x + 21.0, y - 4.5, z), 1.4), tool=DIG))
    world.step(Inputs(look=(270.0, 0.0)))
    with served_page(world) as tab:
        wait_for_renders(tab)
        yield tab
    assert not tab.problems, tab.problems


def save(page, name: str) -> None:
    folder = os.environ.get("VOXELWORLD_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"camera-{name}.png"))


def look(page, yaw: float, pitch: float) -> dict:
    """Turn the page's view to ``yaw``, ``pitch`` (degrees), wait until the world has turned too and the page drew
    it, and return the page's camera state (with the frame's eye)."""
    page.evaluate(f"window.voxelworld.look({yaw}, {pitch})")
    page.wait_for_function(f"Math.abs(window.voxelworld.frame.player.pitch - {pitch}) < 0.01 && "
                           f"Math.abs(((window.voxelworld.frame.player.yaw - {yaw}) % 360 + 540) % 360 - 180) < 0.01",
                           timeout=WAIT_MS)
    wait_for_renders(page, 4)  # the camera eases out at 4 m/s: a few pictures
    state = page.evaluate("window.voxelworld.cameraState")
    state["eye"] = page.evaluate("window.voxelworld.frame.player.eye")
    return state


def in_the_air(world: World, state: dict) -> bool:
    """Whether the camera and the way from the eye to it lie in the air of ``world`` (its voxels' density)."""
    eye, camera = np.array(state["eye"]), np.array(state["position"])
    segment = eye + np.linspace(0.0, 1.0, 41)[:, None] * (camera - eye)
    return bool(density(world.volume, segment).max() < world.volume.iso)


def test_looking_down_the_player_stays_in_the_picture(page):
    state = look(page, 270.0, -80.0)
    save(page, "looking-down")
    assert state["opacity"] == 1  # not faded: the aimed ground lies at its feet, not behind it
    for x, y, z in page.evaluate(IN_PICTURE):
        assert abs(x) < 0.95 and abs(y) < 0.95 and z < 1  # its eye and feet in the picture
    eye, camera = np.array(state["eye"]), np.array(state["position"])
    assert camera[1] - eye[1] < 3.0 and np.hypot(*(camera - eye)[[0, 2]]) > 1.5  # behind the player, not over it


def test_down_the_tunnel_the_camera_stays_in_its_air(page):
    world = page.world
    start = page.evaluate("window.voxelworld.frame.player.position")
    look(page, 270.0, 0.0)
    page.keyboard.down("KeyW")  # down the tunnel, 4 m under the ground
    try:
        page.wait_for_function(f"window.voxelworld.frame.player.position[1] < {start[1] - 4.0}", timeout=WAIT_MS)
    finally:
        page.keyboard.up("KeyW")
    time.sleep(0.3)
    blocked = []
    for yaw, pitch, name in ((270.0, 0.0, "tunnel"), (270.0, 35.0, None), (270.0, -35.0, None),
                             (0.0, 0.0, "tunnel-wall"), (180.0, 10.0, None), (90.0, 0.0, None), (250.0, -80.0, None)):
        state = look(page, yaw, pitch)
        if name:
            save(page, name)
        assert in_the_air(world, state), (yaw, pitch, state)
        blocked.append(state["blocked"])
        if name:  # the player in the picture, seen from behind
            for x, y, z in page.evaluate(IN_PICTURE)[:1]:
                assert abs(x) < 1 and abs(y) < 1 and z < 1, (yaw, pitch)
    assert sum(blocked) >= 4  # the tunnel pulled the camera in, most ways
