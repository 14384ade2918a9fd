"""The page's look at fixed camera views of the demo world (issue #14): Playwright drives Debian's chromium
(headless, WebGL through SwiftShader) at 1280 x 720, at the page's default quality.

The world is ``World.demo(seed=0)`` (3 NPCs, the chainsaw enemy), driven before it is served: the player punches
the ground at its start four times (a pit), walks to 2.4 m from the rock wall and holds suck for 2 s (a tunnel).
The camera is then placed with the page's ``window.voxelworld.view(eye, target)`` hook (docs/play.md) at five
views, each saved as a PNG (to ``$VOXELWORLD_VIEWS`` when set, else pytest's temporary folder) and checked on its
pixels:

- *punch*: the pit's floor darker than the ground around its rim;
- *suck*: the tunnel's inside (a fresh cut) drawn apart from the wall's face around it, not the sky through it;
- *lava*: the lava pool brighter (its largest colour channel) than the sun-lit grass beside it;
- *iron*: the iron block's colour apart from the rock wall's behind it, and bluer (it mirrors the sky);
- *enemy*: the chainsaw enemy drawn as a skinned mesh (pixels change where it stands when the actors are hidden);

and in every view no magenta or black pixels (what a missing texture or a broken shader draws).

Skipped only where /usr/bin/chromium (or Playwright) is missing and the CI variable is unset."""

from __future__ import annotations

import base64
import io
import math
import os
import time
from pathlib import Path

import numpy as np
import pytest

from .browser import ARGS, CHROMIUM, CHUNK_MESSAGE, FULL_RESOLUTION, require_browser

WAIT_MS = 60_000
VIEWPORT = {"width": 1280, "height": 720}

# The start of these tests' batches.js scripts: the module (b), three.js (THREE), the simplifier ready, two
# materials (near, far) and a TerrainBatches of them (batches).
BATCHES = """  const b = await import('./batches.js');
  const THREE = await import('./vendor/three.module.js');
  const { MeshoptSimplifier } = await import('./vendor/meshopt_simplifier.js');
  await MeshoptSimplifier.ready;
  const near = new THREE.MeshBasicMaterial(), far = new THREE.MeshBasicMaterial();
  const batches = new b.TerrainBatches(new THREE.Group(), () => near, far);
"""

sync_playwright = require_browser()

from PIL import Image  # noqa: E402

from voxelworld.game.inputs import Inputs  # noqa: E402
from voxelworld.game.level import surface_height  # noqa: E402
from voxelworld.game.world import World  # noqa: E402
from voxelworld.viewer.server import ServerThread  # noqa: E402

DARKER = 20  # the least a hole's inside is darker than its rim (luminance, 0..255)
BRIGHTER = 40  # the least lava is brighter than the grass beside it (largest channel, 0..255)
SKY = (0x8F, 0xB8, 0xDE)  # the page's background colour
SKY_BLUE = 0.15  # the least iron's blue-to-red ratio exceeds the rock's (the sky it mirrors)
APART = 20  # the least distance between iron's and rock's mean colours (RGB, 0..255 each)


def luminance(image: np.ndarray) -> np.ndarray:
    return image[..., :3].astype(float) @ np.array([0.2126, 0.7152, 0.0722])


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    """The driven world served to a page at the default quality; the places the views look at."""
    if not CHROMIUM.exists():
        pytest.fail(f"CI must run the browser tests, but {CHROMIUM} is missing (scripts/setup installs it)")
    world = World.demo(seed=0)
    places = {}
    down = (0.0, -60.0)  # looking aside (not along +x, the way to the wall), down at the ground near the feet
    world.step(Inputs(look=down))
    places["ground"] = np.array(world.aim_info().point)
    for _ in range(4):
        world.step(Inputs(look=down, punch=True))
        for _ in range(20):
            world.step(Inputs(look=down))
    places["pit"] = np.array(world.aim_info().point)
    for _ in range(1200):  # 2.4 m from the rock wall's face, looking at it (20 s at most)
        if world.player.position[0] >= 36.0:
            break
        world.step(Inputs(move=(0.0, 1.0), look=(270.0, 0.0)))
    assert world.player.position[0] >= 36.0, f"the player did not reach the wall: stopped at {world.player.position}"
    world.step(Inputs(look=(270.0, 0.0)))
    places["wall"] = np.array(world.aim_info().point)
    for _ in range(120):  # 2 s of suck
        world.step(Inputs(look=(270.0, 0.0), suck=True))
    world.step(Inputs(look=(270.0, 0.0)))
    places["tunnel"] = places["wall"] + (0.6, -0.3, 0.0)  # inside the wall, below the tunnel's axis
    places["world"] = world
    folder = Path(os.environ.get("VOXELWORLD_VIEWS") or tmp_path_factory.mktemp("views"))
    folder.mkdir(parents=True, exist_ok=True)
    with ServerThread(world) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            tab = browser.new_page(viewport=VIEWPORT)
            problems: list[str] = []
            tab.on("pageerror", lambda error: problems.append(str(error)))
            tab.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            # The texture set held back until the world's chunks are drawn, batched and simplified (as on a busy
            # machine, where it comes last): every picture below is drawn after the page painted its chunks again.
            held = []
            tab.route("**/textures.bin", lambda route: held.append(route))
            tab.goto(server.url + FULL_RESOLUTION)
            tab.wait_for_function("window.voxelworld && window.voxelworld.stats.chunks > 20", timeout=WAIT_MS)
            settled(tab)
            tab.wait_for_function("window.voxelworld.batches().batches >= 2", timeout=WAIT_MS)  # (the enemy's
            wait_for_renders(tab, 10)  # cuts keep some regions unbatched) and their near chunks' copies made
            assert len(held) == 1 and not tab.evaluate("window.voxelworld.textures")
            held[0].continue_()
            tab.wait_for_function("window.voxelworld.textures && window.voxelworld.quality === 'default'",
                                  timeout=WAIT_MS)
            wait_for_renders(tab, 5)
            tab.problems, tab.folder, tab.places, tab.served = problems, folder, places, server.url
            yield tab
        finally:
            browser.close()


def settled(page, still_ms: int = 1500) -> None:
    """Wait until the page's chunk meshes stop coming (the same count for ``still_ms``; on a busy machine the
    last of the world's chunks land seconds after the first twenty)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    count, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        now = page.evaluate("window.voxelworld.stats.chunks")
        if now != count:
            count, since = now, time.monotonic()
        elif time.monotonic() - since >= still_ms / 1000:
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"the page's chunks kept coming for {WAIT_MS / 1000:g} s ({count} so far)")


def ground(world, x: float, z: float) -> float:
    return surface_height(world.volume, x, z)


def voxel(world, point) -> tuple[int, int, int]:
    """The voxel nearest the world ``point``."""
    return tuple(int(round(v)) for v in np.asarray(world.volume.world_to_index(point)).ravel())


def solid(world, point) -> bool:
    return bool(world.volume.density[voxel(world, point)] >= world.volume.iso)


def wait_for_renders(page, count: int = 3) -> None:
    rendered = page.evaluate("window.voxelworld.stats.rendered || 0")
    page.wait_for_function(f"(window.voxelworld.stats.rendered || 0) >= {rendered + count}", timeout=WAIT_MS)


def look(page, name: str, eye, target) -> np.ndarray:
    """The canvas seen from ``eye`` towards ``target``, saved as ``<name>.png``; an (h, w, 3) array."""
    page.evaluate("([eye, target]) => window.voxelworld.view(eye, target)",
                  [[float(v) for v in eye], [float(v) for v in target]])
    wait_for_renders(page)
    url = page.evaluate("document.querySelector('#view canvas').toDataURL('image/png')")
    data = base64.b64decode(url.split(",", 1)[1])
    (page.folder / f"{name}.png").write_bytes(data)
    image = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
    assert image.shape == (VIEWPORT["height"], VIEWPORT["width"], 3)
    return image


def pixel(page, point) -> tuple[int, int]:
    """Where the world ``point`` falls in the canvas (column, row) with the camera as last drawn."""
    x, y = page.evaluate("""(p) => {
        const c = window.voxelworld.camera, v = c.position.clone().set(p[0], p[1], p[2]).project(c);
        return [(v.x + 1) / 2 * window.innerWidth, (1 - v.y) / 2 * window.innerHeight];
    }""", [float(v) for v in point])
    return int(round(x)), int(round(y))


def patch(image: np.ndarray, at: tuple[int, int], half: int = 4) -> np.ndarray:
    """The pixels within ``half`` of ``at`` (column, row), as (n, 3)."""
    x, y = at
    assert half <= x < image.shape[1] - half and half <= y < image.shape[0] - half, f"{at} is off the picture"
    return image[y - half:y + half + 1, x - half:x + half + 1].reshape(-1, 3)


def no_missing_texture(image: np.ndarray) -> None:
    r, g, b = (image[..., n].astype(int) for n in range(3))
    magenta = np.mean((r > 200) & (b > 200) & (g < 80))
    black = np.mean((r < 6) & (g < 6) & (b < 6))
    assert magenta < 0.001 and black < 0.002, (magenta, black)


def ring(world, centre, radius: float, count: int = 12) -> list:
    """Points on the ground around ``centre`` at ``radius`` metres."""
    points = []
    for angle in np.linspace(0, 2 * np.pi, count, endpoint=False):
        x, z = centre[0] + radius * np.cos(angle), centre[2] + radius * np.sin(angle)
        points.append((x, ground(world, x, z), z))
    return points


def test_the_punched_pit_is_darker_inside_than_its_rim(scene):
    world, pit = scene.places["world"], scene.places["pit"]
    assert scene.places["ground"][1] - pit[1] > 0.5  # four punches dug a pit
    image = look(scene, "punch", pit + (1.2, 4.5, 1.0), pit)  # from above the rim, looking down into the pit
    inside = np.median(luminance(patch(image, pixel(scene, pit))))
    rim = np.median([np.median(luminance(patch(image, pixel(scene, p)))) for p in ring(world, pit, 1.4)])
    assert rim - inside >= DARKER, (inside, rim)
    no_missing_texture(image)


def test_the_sucked_tunnel_shows_its_inside(scene):
    """The tunnel's inside (rock_interior, a fresh cut) is drawn apart from the wall's weathered face."""
    world, wall, tunnel = scene.places["world"], scene.places["wall"], scene.places["tunnel"]
    assert solid(world, wall - (0.0, 1.2, 0.0)) and not solid(world, tunnel)  # 2 s of suck bored into the wall
    image = look(scene, "suck", wall + (-2.5, 0.9, 0.9), tunnel)
    inside = patch(image, pixel(scene, tunnel), 6).mean(axis=0)
    face = [wall + (0.0, dy, dz) for dy, dz in ((1.1, 0.0), (0.0, 1.2), (0.0, -1.2))]
    around = np.mean([patch(image, pixel(scene, p), 6).mean(axis=0) for p in face], axis=0)
    assert np.linalg.norm(inside - around) >= APART / 2, (inside, around)
    assert not np.all(np.abs(inside - SKY) < 12)  # the tunnel's wall, not the sky through it
    no_missing_texture(image)


def test_lava_is_brighter_than_the_sunlit_grass_beside_it(scene):
    world = scene.places["world"]
    mid = world.volume.shape[0] * world.volume.voxel_size / 2
    centre = np.array([mid * 0.5, 0.0, mid * 0.5])  # demo_terrain's lava pool, 3.5 m across
    centre[1] = ground(world, *centre[[0, 2]])
    assert world.materials.name_by_id[int(world.volume.mat_a[voxel(world, centre - (0.0, 0.3, 0.0))])] == "lava"  # the pool is where we look
    image = look(scene, "lava", centre + (-7.0, 6.0, -3.0), centre)
    lava = np.median(patch(image, pixel(scene, centre), 6).max(axis=1))  # brightness: the largest channel
    around = [pixel(scene, p) for p in ring(world, centre, 6.0) if p[1] > centre[1] + 0.2]  # grass, not lava
    around = [(x, y) for x, y in around if 8 <= x < image.shape[1] - 8 and 8 <= y < image.shape[0] - 8]
    assert len(around) >= 4, around  # most of the ring is in the picture
    grass = np.median([np.median(patch(image, at).max(axis=1)) for at in around])
    assert lava - grass >= BRIGHTER, (lava, grass)
    no_missing_texture(image)


def test_iron_and_rock_look_apart(scene):
    """Iron's colour is apart from the rock's, and it mirrors the sky: bluer than the rock (the two table colours
    are nearly the same grey)."""
    world = scene.places["world"]
    mid = world.volume.shape[0] * world.volume.voxel_size / 2
    top = np.array([mid * 1.1, 0.0, mid * 1.1])  # demo_terrain's iron block, 2 m across: its top's middle
    top[1] = ground(world, *top[[0, 2]])
    assert world.materials.name_by_id[int(world.volume.mat_a[voxel(world, top - (0.0, 0.3, 0.0))])] == "iron"
    iron_top = top  # it mirrors the sky, seen from above
    rock_face = np.array([mid * 1.6, top[1] + 2.5, top[2] + 1.0])  # the rock wall's face behind it
    image = look(scene, "iron", top + (-4.0, 2.0, -1.5), top)
    iron = patch(image, pixel(scene, iron_top), 5).mean(axis=0)
    rock = patch(image, pixel(scene, rock_face), 5).mean(axis=0)
    assert np.linalg.norm(iron - rock) >= APART, (iron, rock)
    assert iron[2] / iron[0] - rock[2] / rock[0] >= SKY_BLUE, (iron, rock)
    no_missing_texture(image)


def test_the_enemy_is_drawn_as_a_skinned_character(scene):
    enemy = np.array(scene.evaluate("window.voxelworld.frame.characters.find((c) => c.kind === 'enemy').position"))
    image = look(scene, "enemy", enemy + (-3.5, 1.6, 1.5), enemy + (0.0, 0.9, 0.0))
    skinned = scene.evaluate("""() => { let n = 0; window.voxelworld.scene.getObjectByName('actors')
        .traverse((o) => { if (o.name === 'skin' && o.visible) n++; }); return n; }""")
    assert skinned >= 1  # issue #14: the enemy is the skinned character (skinned on the CPU), not a stick figure
    scene.evaluate("window.voxelworld.scene.getObjectByName('actors').visible = false")
    try:
        hidden = look(scene, "enemy-hidden", enemy + (-3.5, 1.6, 1.5), enemy + (0.0, 0.9, 0.0))
    finally:
        scene.evaluate("window.voxelworld.scene.getObjectByName('actors').visible = true")
    x, y = pixel(scene, enemy + (0.0, 0.9, 0.0))
    region = (slice(max(y - 120, 0), y + 120), slice(max(x - 60, 0), x + 60))
    changed = np.any(np.abs(image[region].astype(int) - hidden[region].astype(int)) > 24, axis=-1).mean()
    assert changed > 0.1, changed  # the enemy covers a tenth of the region around it
    no_missing_texture(image)
    assert scene.problems == []


SUN_SHADOWS = """() => { let on = null; window.voxelworld.scene.traverse((o) => {
    if (o.isDirectionalLight) on = o.castShadow; }); return on; }"""


def test_the_quality_setting_trades_shadows_for_speed(scene):
    """``?quality=low`` starts a page at low quality (no sun shadows, the terrain in table colours), Q switches
    back to the default (shadows, textures) and again to low; the page the other views use stays at default."""
    assert scene.evaluate("window.voxelworld.quality") == "default" and scene.evaluate(SUN_SHADOWS) is True
    low = scene.context.browser.new_page(viewport=VIEWPORT)
    try:
        low.goto(scene.served + "?quality=low")
        low.wait_for_function("window.voxelworld && window.voxelworld.stats.chunks > 20 && "
                              "window.voxelworld.textures", timeout=WAIT_MS)
        assert low.evaluate("window.voxelworld.quality") == "low" and low.evaluate(SUN_SHADOWS) is False
        low.keyboard.press("KeyQ")
        low.wait_for_function("window.voxelworld.quality === 'default'", timeout=WAIT_MS)
        assert low.evaluate(SUN_SHADOWS) is True
        low.keyboard.press("KeyQ")
        low.wait_for_function("window.voxelworld.quality === 'low'", timeout=WAIT_MS)
        assert low.evaluate(SUN_SHADOWS) is False
    finally:
        low.close()


# Three pictures drawn in one go (no message can arrive in between): the draw calls of one with nothing changed,
# of one after the shadow map was marked stale, and whether a chunk mesh arriving marks it stale.
SHADOW_PASSES = """(mesh) => {
  const v = window.voxelworld, r = v.renderer;
  r.render(v.scene, v.camera); // whatever was pending
  r.render(v.scene, v.camera);
  const unchanged = r.info.render.calls;
  r.shadowMap.needsUpdate = true;
  r.render(v.scene, v.camera);
  const redrawn = r.info.render.calls;
  const stale = r.shadowMap.needsUpdate;
  const message = %s, triangle = [9000, 9000, 9000, 9001, 9000, 9000, 9000, 9000, 9001];
  v.socket.onmessage({ data: message(mesh, [900, 900, 900], [triangle]) }); // a chunk far from the world
  const marked = r.shadowMap.needsUpdate;
  v.socket.onmessage({ data: message(mesh, [900, 900, 900], []) }); // and gone again
  let casting = 0;
  v.scene.getObjectByName('actors').traverse((o) => { if (o.isMesh && o.castShadow) casting++; });
  return { unchanged, redrawn, stale, marked, casting };
}""" % CHUNK_MESSAGE  # noqa: UP031 (JavaScript: its braces stay braces)


def test_the_sun_shadow_map_is_drawn_again_only_when_the_terrain_changes(scene):
    """The sun's shadow map holds what does not move (terrain, props, tree crowns; actors stand on soft discs):
    a picture with nothing changed draws no shadow pass, one after the map was marked stale draws it (more draw
    calls) and leaves it fresh, and a chunk mesh arriving marks it stale."""
    from voxelworld.viewer.protocol import MESH_VERSION

    found = scene.evaluate(SHADOW_PASSES, MESH_VERSION)
    assert found["redrawn"] > found["unchanged"], found  # the shadow pass drawn only when stale
    assert found["stale"] is False and found["marked"] is True, found
    assert found["casting"] == 0, found
    assert scene.problems == []


# scene.js's square of the sun's shadow map on a large world: where it goes for a camera, and which chunks cast into it.
SHADOW_SQUARE = """async () => {
  const { shadowCentre, castsInto, SHADOW_STEP, SHADOW_REACH, SHADOW_CASTERS } = await import('./scene.js');
  const THREE = await import('./vendor/three.module.js');
  const at = (x, y, z) => new THREE.Vector3(x, y, z), list = (v) => v && v.toArray();
  const centre = shadowCentre(null, at(5, 40, -7));
  const sphere = (x, r) => new THREE.Sphere(at(x, 0, 0), r);
  return {
    step: SHADOW_STEP, centre: list(centre),
    stays: list(shadowCentre(centre, at(SHADOW_STEP - 0.1, 40, -7))),
    moves: list(shadowCentre(centre, at(SHADOW_STEP + 0.1, 40, -7))),
    rises: list(shadowCentre(centre, at(5, 48 + SHADOW_STEP, -7))),
    whole: castsInto(null, sphere(5000, 1)),
    near: castsInto(centre, sphere(SHADOW_REACH + SHADOW_CASTERS + 5, 10)),
    far: castsInto(centre, sphere(SHADOW_REACH + SHADOW_CASTERS + 15, 10)),
  };
}"""


def test_on_a_large_world_the_shadow_map_covers_a_square_following_the_camera(scene):
    """On a world wider than twice SHADOW_REACH the sun's shadow map covers a square around the camera: its centre
    on a grid of SHADOW_STEP m, moved once the camera went a step from it along an axis (each move draws the map
    again); a chunk arriving redraws it only when it lies within SHADOW_REACH + SHADOW_CASTERS m of the centre
    across (on a world the map covers whole, always)."""
    found = scene.evaluate(SHADOW_SQUARE)
    assert found["step"] == 16 and found["centre"] == [0, 48, 0], found  # 5, 40, -7 on the 16 m grid
    assert found["stays"] is None, found
    assert found["moves"] == [16, 48, 0] and found["rises"] == [0, 64, 0], found
    assert found["whole"] is True and found["near"] is True and found["far"] is False, found


SOFTWARE = """async () => {
  const { softwareRenderer } = await import('./scene.js');
  const v = window.voxelworld, texture = v.scene.getObjectByName('terrain').children[0].material.uniforms.albedoMaps.value;
  return {
    software: v.software, antialias: v.renderer.getContextAttributes().antialias, nearest: texture.magFilter === 1003,
    swiftshader: softwareRenderer('ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)'),
    llvmpipe: softwareRenderer('llvmpipe (LLVM 15.0.6, 256 bits)'),
    card: softwareRenderer('ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 (0x00002503) Direct3D11 vs_5_0 ps_5_0, D3D11)'),
  };
}"""


def test_a_software_renderer_draws_without_multisampling_and_with_nearest_texels(scene):
    """Under SwiftShader (these tests' chromium) the page knows it draws in software: no multisampled antialiasing
    and the textures' nearest texel; a graphics card's renderer name is not taken for software."""
    found = scene.evaluate(SOFTWARE)
    assert found["software"] is True and found["antialias"] is False and found["nearest"] is True, found
    assert found["swiftshader"] and found["llvmpipe"] and not found["card"], found


def test_the_default_quality_adapts_its_resolution_and_a_pinned_one_stays(scene):
    """Unpinned, a page at default quality drawing 1280 x 720 in software (slower than 1/30 s a picture here) draws
    fewer pixels, down to MIN_RESOLUTION of the window's and no further; ``?resolution=0.7`` pins 0.7, and a pin
    below MIN_RESOLUTION is raised to it."""
    minimum = scene.evaluate("(async () => (await import('./scene.js')).MIN_RESOLUTION)()")
    # ?quality=default: the page keeps its quality (no automatic quality), so this checks the resolution alone.
    for query, check in (("?quality=default", "r => r < 0.999"), ("?resolution=0.7", "r => r === 0.7"),
                         ("?resolution=0.1", f"r => r === {minimum}")):
        tab = scene.context.browser.new_page(viewport=VIEWPORT)
        try:
            tab.goto(scene.served + query)
            tab.wait_for_function(f"window.voxelworld && window.voxelworld.stats.resolution !== undefined && "
                                  f"({check})(window.voxelworld.stats.resolution)", timeout=WAIT_MS)
            shares = [tab.evaluate("window.voxelworld.stats.resolution")]
            for _ in range(5):
                tab.wait_for_timeout(300)
                shares.append(tab.evaluate("window.voxelworld.stats.resolution"))
            assert all(minimum - 1e-9 <= share <= 1 for share in shares), (query, shares)
            width = tab.evaluate("window.voxelworld.renderer.domElement.width")
            assert abs(width - round(VIEWPORT["width"] * shares[-1])) <= 1, (query, width, shares)
        finally:
            tab.close()


def test_the_terrain_s_levels_of_detail_follow_the_pixels_drawn(scene):
    """batches.js detailFor: the simplified copies' errors DETAIL times the levels' at LEVELS_HEIGHT pixels (the
    dynamic resolution's floor in a 720-pixel window), finer in steps of DETAIL_STEP as the picture draws more
    pixels, never finer than the levels; the scene sets it whenever its resolution changes, pinned or adapting."""
    height, detail, step, found = scene.evaluate("""(async () => { const b = await import('./batches.js');
      return [b.LEVELS_HEIGHT, b.DETAIL, b.DETAIL_STEP, [200, 324, 360, 442, 520, 612, 720, 1080, 4000].map(b.detailFor)];
    })()""")
    assert (height, detail) == (324, 3)
    assert found[1] == found[2] == detail  # at the floor, and within half a step of it
    assert found == sorted(found, reverse=True) and found[-1] == 1  # finer with more pixels, down to the levels
    assert found[0] == pytest.approx(detail * step) and found[6] == pytest.approx(detail / step ** 2)
    for value in (v for v in found if v > 1):  # in whole steps: a resolution's small change keeps the copies
        assert math.log(value / detail, step) == pytest.approx(round(math.log(value / detail, step)))
    tab = scene.context.browser.new_page(viewport=VIEWPORT)
    try:
        for query in ("?resolution=0.45", "?resolution=1"):
            tab.goto(scene.served + query)
            tab.wait_for_function("window.voxelworld && window.voxelworld.stats.resolution !== undefined",
                                  timeout=WAIT_MS)
            drawn = tab.evaluate("window.voxelworld.renderer.domElement.height")
            assert drawn == round(VIEWPORT["height"] * float(query.split("=")[1]))
            expected = detail if drawn == height else detail / step ** 2  # 0.45 of 720: the floor; all 720
            assert tab.evaluate("window.voxelworld.batches().detail") == pytest.approx(expected), query
        tab.goto(scene.served + "?quality=default")  # adapting: slow pictures take it to the floor, quick ones back
        tab.wait_for_function("window.voxelworld && window.voxelworld.stats.resolution !== undefined",
                              timeout=WAIT_MS)
        # (each read in the same turn as the pictures it follows: a real picture between them may adapt again)
        slow = "(ms, seconds) => { const v = window.voxelworld; v.slowPictures(ms, seconds); " \
               "return [v.renderer.domElement.height, v.batches().detail]; }"
        assert tab.evaluate(f"({slow})(100, 6)") == [height, detail]
        drawn, found_detail = tab.evaluate(f"({slow})(5, 10)")
        assert drawn == VIEWPORT["height"] and found_detail == pytest.approx(detail / step ** 2)
    finally:
        tab.close()


# batches.js setDetail: a near chunk's simplified copy made with another detail is drawn until it is made again (no
# picture of full triangles meanwhile), and made again within the simplifying budget.
DETAIL_CHANGE = """async () => {
""" + BATCHES + """  const n = 17, g = new THREE.BufferGeometry(), index = [];  // 8 x 8 m of ground bumped by up to 2 cm
  for (const name of b.ATTRIBUTES) g.setAttribute(name, new THREE.BufferAttribute(new Float32Array(3 * n * n), 3));
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    g.attributes.position.array.set([5 + 0.5 * i, 0.02 * Math.sin(1.7 * i) * Math.cos(1.3 * j), 0.5 * j], 3 * (n * i + j));
    if (i && j) index.push(n * (i - 1) + j - 1, n * i + j - 1, n * i + j, n * (i - 1) + j - 1, n * i + j, n * (i - 1) + j);
  }
  g.setIndex(index);
  g.computeBoundingSphere();
  batches.set('0,0,0', new THREE.Mesh(g, near), 0);
  batches.flush(10000, 0);
  batches.textureDistance = 50;
  const at = new THREE.Vector3(0, 1, 0), chunk = batches.chunks.get('0,0,0');
  const state = () => ({ triangles: chunk.drawn.geometry.index.count / 3, error: chunk.drawn.geometry.userData.error ?? null,
    full: chunk.drawn === chunk.mesh });
  batches.setDetail(1);
  batches.shade(at);
  const fine = state(), fineMesh = chunk.drawn;
  batches.setDetail(3);
  batches.shade(at, null, false, 0);  // no time to simplify in this picture
  const waiting = { ...state(), same: chunk.drawn === fineMesh };
  batches.shade(at);
  return { all: index.length / 3, fine, waiting, coarse: state() };
}"""


def test_a_changed_detail_remakes_the_copies_and_draws_the_old_ones_meanwhile(scene):
    found = scene.evaluate(DETAIL_CHANGE)
    fine, waiting, coarse = found["fine"], found["waiting"], found["coarse"]
    assert not fine["full"] and fine["triangles"] < found["all"], found
    assert waiting == {**fine, "same": True}, found
    assert not coarse["full"] and coarse["error"] == pytest.approx(3 * fine["error"]), found
    assert coarse["triangles"] < fine["triangles"], found


def test_a_page_too_slow_at_its_lowest_resolution_lowers_its_quality_and_says_so(scene):
    """A page whose URL asks for no quality goes to "low" once its pictures take longer than AUTO_LOW_MS on average
    over AUTO_LOW_AFTER_MS at MIN_RESOLUTION, with a toast, also when some of them come quicker (a page hovering
    about the limit); one that asked for ``?quality=default`` keeps it; pictures just within AUTO_LOW_MS (the demo
    world's ~30 a second in software), some of them slower, change nothing."""
    limits = scene.evaluate("(async () => { const s = await import('./scene.js'); "
                            "return [s.AUTO_LOW_MS, s.AUTO_LOW_AFTER_MS, s.MIN_RESOLUTION]; })()")
    low_ms, after_ms, _ = limits
    # Runs of quick pictures long enough for an average over a few pictures to dip under AUTO_LOW_MS each time:
    hovering = [low_ms * 0.6] * 6 + [low_ms * 2.4] * 2  # their mean 1.05 AUTO_LOW_MS
    within = [low_ms * 0.6] * 6 + [low_ms * 1.4] * 2  # their mean 0.8 AUTO_LOW_MS
    for query, slow_ms, expected in (("", low_ms * 0.9, "default"), ("?quality=default", low_ms * 1.6, "default"),
                                     ("", low_ms * 1.6, "low"), ("", hovering, "low"), ("", within, "default")):
        tab = scene.context.browser.new_page(viewport=VIEWPORT)
        # Every toast the page shows, kept (a toast goes after 3 s: a slow machine's checks may come later).
        tab.add_init_script("window.shownToasts = []; new MutationObserver(changes => { for (const change of "
                            "changes) for (const node of change.addedNodes) if (node.classList && "
                            "node.classList.contains('toast')) window.shownToasts.push(node.textContent); })"
                            ".observe(document, { childList: true, subtree: true });")
        try:
            tab.goto(scene.served + query)
            tab.wait_for_function("window.voxelworld && window.voxelworld.stats.chunks > 20", timeout=WAIT_MS)
            # Long enough to reach the lowest resolution and stay there past the wait.
            # (the toasts of what the real pictures did before forgotten: slowPictures starts afresh)
            quality = tab.evaluate(f"window.shownToasts = [], window.voxelworld.slowPictures({slow_ms}, "
                                   f"{3 * after_ms / 1000})")
            assert quality == expected, (query, slow_ms)
            toasts = tab.evaluate("window.shownToasts")
            assert any(t.startswith("quality: low") for t in toasts) == (expected == "low"), toasts
        finally:
            tab.close()


# Every terrain mesh's picture drawn by the shader its pixels need (shaders.js shadingOf: without a texture layer,
# metal, glow, highlight or table colour it has no use for) and by the shader with every need, in one go.
PRUNED_AND_WHOLE = """async () => {
  const s = await import('./shaders.js');
  const v = window.voxelworld, canvas = document.querySelector('#view canvas'), names = Object.keys(s.terrainUniforms());
  const kinds = new Set(), swapped = [];
  v.scene.getObjectByName('terrain').traverse((o) => {
    if (!o.isMesh || !o.visible || o.material.vertexShader.includes('vBase')) return; // the far material has no needs
    kinds.add(JSON.stringify(o.material.defines));
    const uniforms = Object.fromEntries(names.map((name) => [name, o.material.uniforms[name]]));
    const whole = s.terrainMaterial(uniforms, v.quality);
    whole.side = o.material.side;
    swapped.push([o, o.material]);
    o.material = whole;
  });
  v.renderer.render(v.scene, v.camera);
  const whole = canvas.toDataURL('image/png');
  for (const [o, material] of swapped) {
    o.material.dispose();
    o.material = material;
  }
  v.renderer.render(v.scene, v.camera);
  return { whole, pruned: canvas.toDataURL('image/png'), kinds: [...kinds], meshes: swapped.length };
}"""


def png(url: str) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")).astype(int)


def test_each_terrain_mesh_drawn_by_the_shader_its_pixels_need_looks_the_same(scene):
    """A chunk mesh whose vertices blend no two textures, are not metal, do not glow or all have a texture is drawn
    by a shader without those values (fewer passed from vertex to pixel: each costs every pixel under SwiftShader):
    the same picture as the shader with every need, at the lava pool (glows) and the iron block (metal, glossy)."""
    world = scene.places["world"]
    mid = world.volume.shape[0] * world.volume.voxel_size / 2
    for name, centre, eye in (("lava", (0.5, 0.5), (-7.0, 6.0, -3.0)), ("iron", (1.1, 1.1), (-4.0, 2.0, -1.5))):
        target = np.array([mid * centre[0], 0.0, mid * centre[1]])
        target[1] = ground(world, *target[[0, 2]])
        look(scene, f"needs-{name}", target + eye, target)
        found = scene.evaluate(PRUNED_AND_WHOLE)
        assert found["meshes"] >= 4 and len(found["kinds"]) >= 2, found["kinds"]  # some drawn by a pruned shader
        whole, pruned = png(found["whole"]), png(found["pruned"])
        assert np.abs(whole - pruned).max() <= 2, (name, np.abs(whole - pruned).max())
        no_missing_texture(pruned)
    assert scene.problems == []


# A strip of ground 12 m by 4 m (two triangles: its left vertices of texture layer 0, its right of layer 2) drawn from
# above by the near terrain material on its own renderer, with the sun straight above and a 2 m box 2 m over the
# ground casting a shadow (drawn into the sun's map only); the layers solid red, green and blue.
FLAT_LAYERS_AND_SHADOW = """async () => {
  const s = await import('./shaders.js');
  const THREE = await import('./vendor/three.module.js');
  const canvas = document.createElement('canvas');
  canvas.width = 96; canvas.height = 32;
  const renderer = new THREE.WebGLRenderer({ canvas, preserveDrawingBuffer: true });
  renderer.shadowMap.enabled = true;
  renderer.shadowMap.type = THREE.BasicShadowMap;
  const scene = new THREE.Scene();
  const sun = new THREE.DirectionalLight(0xffffff, 1);
  sun.position.set(0, 10, 0);
  sun.castShadow = true;
  Object.assign(sun.shadow.camera, { left: -8, right: 8, top: 8, bottom: -8, near: 0.5, far: 20 });
  sun.shadow.camera.layers.enable(1);
  scene.add(sun, sun.target);
  const size = 4, albedo = new Uint8Array(3 * size * size * 4);
  for (let l = 0; l < 3; l++) {
    const texel = [0, 1, 2].map((c) => (c === l ? 255 : 0)).concat([255]);
    for (let p = 0; p < size * size; p++) albedo.set(texel, 4 * (l * size * size + p));
  }
  const uniforms = s.terrainUniforms();
  uniforms.albedoMaps.value = s.textureMaps({ layers: 3, size, albedo }, true).albedo;
  const matt = { blend: false, gloss: false, metal: false, glow: false, palette: false };
  const geometry = new THREE.BufferGeometry();
  const attribute = (values, size, Type = Float32Array, normalized = false) => new THREE.BufferAttribute(
    new Type(values), size, normalized);
  geometry.setAttribute('position', attribute([-6, 0, -2, -6, 0, 2, 6, 0, -2, 6, 0, 2], 3));
  geometry.setAttribute('normal', attribute([0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0], 3));
  geometry.setAttribute('blend', attribute([0, 0, 0, 0], 1));
  geometry.setAttribute('occlusion', attribute([1, 1, 1, 1], 1));
  geometry.setAttribute('layers', attribute([0, 0, 0, 0, 2, 2, 2, 2], 2, Uint8Array));
  for (const name of ['palette_a', 'palette_b']) {
    geometry.setAttribute(name, attribute(new Array(12).fill(128), 3, Uint8Array, true));
  }
  geometry.setAttribute('surface', attribute([230, 0, 0, 230, 0, 0, 230, 0, 0, 230, 0, 0], 3, Uint8Array, true));
  geometry.setAttribute('cut', attribute([255, 255, 255, 255], 1, Uint8Array, true));
  geometry.setIndex([2, 1, 0, 1, 2, 3]);
  const strip = new THREE.Mesh(geometry, s.terrainMaterial(uniforms, 'default', false, matt));
  strip.receiveShadow = true;
  const box = new THREE.Mesh(new THREE.BoxGeometry(2, 2, 2), new THREE.MeshBasicMaterial());
  box.position.set(-3, 3, 0);
  box.castShadow = true;
  box.layers.set(1);
  scene.add(strip, box);
  const camera = new THREE.OrthographicCamera(-6, 6, 2, -2, 0.1, 50);
  camera.position.set(0, 20, 0);
  camera.up.set(0, 0, -1);
  camera.lookAt(0, 0, 0);
  renderer.render(scene, camera);
  const url = canvas.toDataURL('image/png');
  renderer.dispose();
  return url;
}"""


def test_the_near_terrain_draws_whole_texture_layers_and_the_sun_s_shadow(scene):
    """A triangle draws one of its vertices' texture layers (flat: never a layer number between two vertices', no
    material at all), and the ground under a box is in its shadow (the shader's own shadow coordinate: x right,
    z down the picture, 8 pixels a metre; the box's shadow covers x -4..-2, z -1..1)."""
    image = png(scene.evaluate(FLAT_LAYERS_AND_SHADOW))
    dominant = image.argmax(axis=2)
    lit = image.max(axis=2) > 20
    assert (lit & (dominant == 1)).sum() == 0, "pixels of layer 1, between the vertices' layers 0 and 2"
    assert (dominant == 0).sum() > 200 and (dominant == 2).sum() > 200, np.bincount(dominant.ravel())
    shadowed, sunlit = image[14:18, 22:26, 0], image[2:6, 6:10, 0]  # x -3, z 0 and x -5, z -1.5: one red triangle
    assert (dominant[14:18, 22:26] == 0).all() and (dominant[2:6, 6:10] == 0).all()
    assert sunlit.min() - shadowed.max() >= DARKER, (sunlit.min(), shadowed.max())


SHADINGS = """async () => {
  const s = await import('./shaders.js');
  const of = (layers, surface) => s.shadingOf(new Uint8Array(layers), new Uint8Array(surface));
  const defines = (quality, shading) => Object.keys(s.terrainMaterial(s.terrainUniforms(), quality, false, shading)
    .defines).sort();
  const plain = of([3, 3, 3, 3], [230, 0, 0, 230, 0, 0]);
  return {
    plain, blend: of([3, 3, 3, 4], [230, 0, 0, 230, 0, 0]), metal: of([3, 3], [230, 2, 0]),
    gloss: of([3, 3], [100, 0, 0]), glow: of([3, 3], [230, 0, 1]), palette: of([3, 3, s.NO_LAYER, s.NO_LAYER], [230, 0, 0, 230, 0, 0]),
    plainDefines: defines('default', plain), plainLow: defines('low', plain), every: defines('default', {}),
    everyLow: defines('low', {}), keys: [s.shadingKey(plain), s.shadingKey({})],
  };
}"""


def test_a_mesh_s_shading_says_what_its_pixels_need(scene):
    found = scene.evaluate(SHADINGS)
    none = {"blend": False, "gloss": False, "metal": False, "glow": False, "palette": False}
    assert found["plain"] == none, found
    assert found["blend"] == none | {"blend": True} and found["metal"] == none | {"metal": True}, found
    assert found["gloss"] == none | {"gloss": True} and found["glow"] == none | {"glow": True}, found
    assert found["palette"] == none | {"palette": True}, found
    assert found["plainDefines"] == ["TERRAIN_MATT", "TERRAIN_ONE_LAYER"], found
    assert found["plainLow"] == ["TERRAIN_LOW", "TERRAIN_MATT", "TERRAIN_ONE_LAYER", "TERRAIN_PALETTE"], found
    assert found["every"] == ["TERRAIN_GLOW", "TERRAIN_METAL", "TERRAIN_PALETTE", "TERRAIN_SURFACE"], found
    assert found["everyLow"] == ["TERRAIN_GLOW", "TERRAIN_LOW", "TERRAIN_MATT", "TERRAIN_PALETTE",
                                 "TERRAIN_SURFACE"], found
    assert found["keys"] == ["00000", "11111"], found


# scene.js's rule for a chunk arriving on a large world: near the camera the shadow map is drawn again at once,
# farther later (SHADOW_LATER_MS after its last drawing); on a world the map covers whole, at once.
SHADOW_LATER = """async () => {
  const { WorldScene, SHADOW_PROMPT } = await import('./scene.js');
  const THREE = await import('./vendor/three.module.js');
  const scene = (area) => ({ shadowArea: area, eye: new THREE.Vector3(0, 40, 0), stale: false, shadowLater: false,
    castsIntoShadow: WorldScene.prototype.castsIntoShadow, chunkChanged: WorldScene.prototype.chunkChanged,
    shadowsChanged() { this.stale = true; } });
  const sphere = (x) => new THREE.Sphere(new THREE.Vector3(x, 40, 0), 10);
  const found = {};
  for (const [name, area, x] of [['near', true, SHADOW_PROMPT + 5], ['far', true, SHADOW_PROMPT + 15],
      ['whole', false, SHADOW_PROMPT + 15], ['outside', true, 1000]]) {
    const s = scene(area ? { centre: new THREE.Vector3(0, 48, 0) } : null);
    s.chunkChanged(sphere(x));
    found[name] = [s.stale, s.shadowLater];
  }
  return found;
}"""


def test_on_a_large_world_far_chunks_arriving_redraw_the_shadow_map_later(scene):
    found = scene.evaluate(SHADOW_LATER)
    assert found == {"near": [True, False], "far": [False, True], "whole": [True, False],
                     "outside": [False, False]}, found


# batches.js: a loose chunk far from the camera is drawn with the far material; meshes drawn with the near material
# come first (NEAR_FIRST); a chunk joining its region's batch gets its near material back.
LOOSE_AND_ORDER = """async () => {
""" + BATCHES + """  const mesh = (x) => {
    const g = new THREE.BufferGeometry();
    for (const name of b.ATTRIBUTES) g.setAttribute(name, new THREE.BufferAttribute(new Float32Array(9), 3));
    g.attributes.position.array.set([x, 0, 0, x + 1, 0, 0, x, 0, 1]);
    g.setIndex([0, 1, 2]);
    g.computeBoundingSphere();
    return new THREE.Mesh(g, near);
  };
  batches.set('0,0,0', mesh(5), 0);
  batches.set('20,0,0', mesh(330), 0);
  const at = new THREE.Vector3(0, 0, 0), state = (key) => {
    const m = batches.chunks.get(key).mesh;
    return [m.material === far ? 'far' : 'near', m.renderOrder];
  };
  batches.shade(at);
  const loose = { near: state('0,0,0'), far: state('20,0,0') };
  batches.flush(10000, 0);
  batches.shade(at);
  const drawn = batches.chunks.get('0,0,0').drawn ?? batches.chunks.get('0,0,0').mesh;
  return { loose, batchedFar: state('20,0,0'), nearDrawn: [drawn.material === near, drawn.renderOrder],
    nearFirst: b.NEAR_FIRST, left: batches.loose.size };
}"""


def test_loose_far_chunks_take_the_far_material_and_the_near_ones_are_drawn_first(scene):
    found = scene.evaluate(LOOSE_AND_ORDER)
    first = found["nearFirst"]
    assert first < 0, found
    assert found["loose"] == {"near": ["near", first], "far": ["far", 0]}, found
    assert found["batchedFar"] == ["near", first] and found["nearDrawn"] == [True, first], found
    assert found["left"] == 0, found


# batches.js: a near region's chunks beyond textureDistance drawn as the region's joined mesh (one draw call), on the
# batch's vertices (each chunk's triangles at its own place in it); with a frustum only the chunks within it; with a
# shadow map every one of them also in a mesh drawn into the map only (SHADOW_LAYER).
JOINED = """async () => {
""" + BATCHES + """  const mesh = (x, z) => {
    const g = new THREE.BufferGeometry();
    for (const name of b.ATTRIBUTES) g.setAttribute(name, new THREE.BufferAttribute(new Float32Array(9), 3));
    g.attributes.position.array.set([x, 0, z, x + 1, 0, z, x, 0, z + 1]);
    g.setIndex([0, 1, 2]);
    g.computeBoundingSphere();
    return new THREE.Mesh(g, near);
  };
  batches.set('0,0,0', mesh(5, 0), 0);
  batches.set('1,0,0', mesh(20, 30), 0);
  batches.set('2,0,0', mesh(20, 200), 0);
  batches.flush(10000, 0);
  batches.textureDistance = 50;
  const camera = new THREE.PerspectiveCamera(10, 1, 0.1, 1000);
  camera.position.set(-60, 0.5, 0.5);
  camera.lookAt(20, 0, 0.5);
  camera.updateMatrixWorld();
  const frustum = new THREE.Frustum().setFromProjectionMatrix(
    new THREE.Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse));
  const drawn = (name = 'region 0,0,0 near') => {
    const joined = batches.group.getObjectByName(name);
    if (!joined) return null;
    const g = joined.geometry, p = g.attributes.position.array, triangles = [];
    for (let t = 0; t < g.drawRange.count; t += 3) {
      triangles.push([0, 1, 2].flatMap((c) => [...p.subarray(3 * g.index.array[t + c], 3 * g.index.array[t + c] + 3)]));
    }
    return { triangles: triangles.map((t) => t.join(' ')).sort(), far: joined.material === far,
      layers: joined.layers.mask, casts: joined.castShadow, visible: joined.visible,
      alone: [...batches.chunks.values()].filter((c) => c.drawn).length,
      joined: [...batches.chunks.values()].filter((c) => c.joined).length };
  };
  batches.shade(camera.position, frustum);
  const seen = drawn();
  batches.shade(camera.position); // more triangles than the joined mesh holds: made again, larger
  const every = drawn(), unshadowed = drawn('region 0,0,0 shadow');
  batches.shade(camera.position, frustum, true);
  const shadowed = { seen: drawn(), map: drawn('region 0,0,0 shadow') };
  batches.shade(camera.position, frustum);
  const mapAfter = drawn('region 0,0,0 shadow');
  const own = (key) => b.drawnTriangles(batches.chunks.get(key).mesh.geometry)[0].join(' ');
  return { every, seen, unshadowed, shadowed, mapAfter, a: own('0,0,0'), b: own('1,0,0'), c: own('2,0,0'),
    layer: b.SHADOW_LAYER };
}"""


def test_a_near_region_s_far_chunks_are_drawn_joined_and_with_a_frustum_only_those_in_view(scene):
    found = scene.evaluate(JOINED)
    every, seen = found["every"], found["seen"]
    assert every["triangles"] == sorted([found["a"], found["b"], found["c"]]), found
    assert every["far"] and every["alone"] == 0 and every["joined"] == 3, found
    assert seen["triangles"] == [found["a"]], found  # the others lie 30 and 200 m aside
    assert seen["far"] and seen["alone"] == 0 and seen["layers"] == 1 and not seen["casts"], found
    assert found["unshadowed"] is None, found
    shadowed = found["shadowed"]  # with a shadow map: the camera's as before, the map's every one (seen or not)
    assert shadowed["seen"]["triangles"] == seen["triangles"] and shadowed["seen"]["visible"], found
    assert shadowed["map"]["triangles"] == every["triangles"], found
    assert shadowed["map"]["layers"] == 1 << found["layer"] and shadowed["map"]["casts"], found
    assert found["mapAfter"] is None, found  # the shadow map off again: the map's mesh goes
    assert scene.evaluate("""async () => { const b = await import('./batches.js'); let sun = null;
      window.voxelworld.scene.traverse((o) => { if (o.isDirectionalLight) sun = o; });
      return sun.shadow.camera.layers.isEnabled(b.SHADOW_LAYER) && sun.shadow.camera.layers.isEnabled(0); }""")


# scene.js outsideShadow against the shadow map's own coordinates (three's shadow.matrix: world to the map's uv, as
# the shaders read it): a point is outside the square exactly where its uv leaves 0..1, and a sphere found outside
# has none of its points inside.
SHADOW_OUTSIDE = """async () => {
  const { WorldScene, SHADOW_REACH } = await import('./scene.js');
  const THREE = await import('./vendor/three.module.js');
  const sun = new THREE.DirectionalLight(), centre = new THREE.Vector3(16, 48, -32);
  const s = { sun, shadowDepth: 300, shadowArea: { centre }, renderer: { shadowMap: { enabled: true } },
    shadowPoint: new THREE.Vector3() };
  Object.assign(sun.shadow.camera, { left: -SHADOW_REACH, right: SHADOW_REACH, top: SHADOW_REACH,
    bottom: -SHADOW_REACH, near: 150, far: 1050 });
  sun.shadow.camera.updateProjectionMatrix();
  WorldScene.prototype.placeShadow.call(s, centre);
  const outside = (p, r) => WorldScene.prototype.outsideShadow.call(s, new THREE.Sphere(p, r));
  const inMap = (p) => { const q = p.clone().applyMatrix4(sun.shadow.matrix); return q.x >= 0 && q.x <= 1 && q.y >= 0 && q.y <= 1; };
  let points = 0, disagree = 0, spheres = 0, found = 0, leaks = 0;
  for (let x = -400; x <= 400; x += 23) for (let z = -400; z <= 400; z += 29) for (const y of [0, 60, 120]) {
    const p = new THREE.Vector3(centre.x + x, y, centre.z + z);
    points++;
    if (outside(p, 0) === inMap(p)) disagree++;
    spheres++;
    if (!outside(p, 20)) continue;
    found++;
    for (const d of [[20, 0, 0], [-20, 0, 0], [0, 20, 0], [0, -20, 0], [0, 0, 20], [0, 0, -20], [11.5, 11.5, 11.5], [-11.5, -11.5, 11.5]]) {
      if (inMap(p.clone().add(new THREE.Vector3(...d)))) leaks++;
    }
  }
  s.shadowArea = null;
  const small = outside(new THREE.Vector3(5000, 0, 0), 1);
  return { points, disagree, spheres, found, leaks, small };
}"""


def test_far_terrain_outside_the_shadow_map_s_square_is_found_as_the_shaders_see_it(scene):
    found = scene.evaluate(SHADOW_OUTSIDE)
    assert found["disagree"] == 0 and found["leaks"] == 0, found
    assert 0.3 * found["spheres"] < found["found"] < found["spheres"], found  # most of the far field, not all
    assert found["small"] is False, found  # a map over the whole world: every mesh takes its shadow
