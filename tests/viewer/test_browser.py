"""The page in a real browser: Playwright drives Debian's chromium (headless, WebGL through SwiftShader) against a
play server in a background thread on a free 127.0.0.1 port.

The world is the demo level without its chainsaw enemy (so that only the player changes the terrain), made here
and walked to 2.4 m from the rock wall, facing it (+x), before it is served; the page plays it: the WebGL canvas shows the world (pixel statistics), holding Space sucks the wall (the page receives
remeshed chunks, the HUD counts bullets), N shows the navmesh (cyan pixels appear) and hides it, C shows the
collision mesh, and a malformed message gets an error reply while frames keep coming.

Skipped only where /usr/bin/chromium (or Playwright) is missing and the CI variable is unset; under CI they run
(scripts/setup installs both)."""

from __future__ import annotations

import base64
import io
import time
from dataclasses import replace

import numpy as np
import pytest

from .browser import CHROMIUM, CHUNK_MESSAGE, WAIT_MS, require_browser, served_page

sync_playwright = require_browser()

from PIL import Image  # noqa: E402

from voxelworld.game.events import ActionStarted  # noqa: E402
from voxelworld.game.level import demo_level  # noqa: E402
from voxelworld.game.world import Inputs, World  # noqa: E402
from voxelworld.viewer.protocol import MESH_VERSION  # noqa: E402

SKY = (0x8F, 0xB8, 0xDE)  # the page's background colour


@pytest.fixture(scope="module")
def page():
    if not CHROMIUM.exists():
        pytest.fail(f"CI must run the browser tests, but {CHROMIUM} is missing (scripts/setup installs it)")
    world = World.from_level(replace(demo_level(0), enemies=()), seed=0)
    while world.player.position[0] < 36.0:  # 2.4 m from the rock wall's face, looking at it
        world.step(Inputs(move=(0.0, 1.0), look=(270.0, 0.0)))
    world.step(Inputs(look=(270.0, 0.0)))
    with served_page(world) as tab:
        wait_for_renders(tab)  # drawn with the meshes in the scene (a loaded machine may lag behind)
        yield tab


def stats(page) -> dict:
    return page.evaluate("({...window.voxelworld.stats})")


def wait_for_renders(page, count: int = 3) -> None:
    """Wait until the page has drawn ``count`` more pictures (requestAnimationFrame runs late under load)."""
    rendered = page.evaluate("window.voxelworld.stats.rendered || 0")
    page.wait_for_function(f"(window.voxelworld.stats.rendered || 0) >= {rendered + count}", timeout=WAIT_MS)


def pixels(page) -> np.ndarray:
    """The WebGL canvas as an (h, w, 3) array (the renderer keeps its drawing buffer, so toDataURL reads it)."""
    url = page.evaluate("document.querySelector('#view canvas').toDataURL('image/png')")
    data = base64.b64decode(url.split(",", 1)[1])
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def cyan_share(image: np.ndarray) -> float:
    """The share of pixels in the navmesh's level-0 colour (cyan), over grass, rock or sky."""
    r, g, b = (image[..., n].astype(int) for n in range(3))
    return float(np.mean((b > 150) & (g > 120) & (r < 110) & (b - r > 90)))


def overlay_share(before: np.ndarray, after: np.ndarray) -> float:
    """The share of pixels an overlay moved towards the navmesh's cyan: bluer by 25 and no redder."""
    r0, b0 = before[..., 0].astype(int), before[..., 2].astype(int)
    r1, b1 = after[..., 0].astype(int), after[..., 2].astype(int)
    return float(np.mean((b1 - b0 > 25) & (r1 <= r0 + 5)))


def test_the_page_plays_and_draws_the_world(page):
    s = stats(page)
    assert s["connected"] and s["controlling"] and s["client"] == 1
    assert s["chunkMessages"] >= s["chunks"] > 20 and s["triangles"] > 500
    wait_for_renders(page)
    image = pixels(page)
    assert image.shape == (600, 960, 3)
    colours = {tuple(c) for c in image.reshape(-1, 3)[::7]}
    assert len(colours) > 50  # terrain shades, the player, the sky: not a blank canvas
    sky = np.all(np.abs(image.astype(int) - SKY) <= 3, axis=-1).mean()
    assert sky < 0.6
    # The HUD names what the player aims at: the rock wall.
    page.wait_for_function("document.getElementById('aim-material').textContent === 'rock'", timeout=WAIT_MS)
    assert page.text_content("#aim-hardness") == "5.0"
    assert page.text_content("#bullet-count") == "0"
    assert page.text_content("#currency") == "currency: 0"
    # The status line's details (I) say which side is slow: the server's step and this page's time a picture.
    page.keyboard.press("KeyI")
    page.wait_for_function("/server: step [0-9.]+ ms · page: [0-9.]+ ms a picture/"
                           ".test(document.getElementById('status').textContent)", timeout=WAIT_MS)
    page.keyboard.press("KeyI")
    # Protocol 3: after the first whole frame the frames come as deltas, each after its poses; drawn whole.
    s = stats(page)
    assert s["frameDeltas"] > 0 and s["poseMessages"] >= s["frames"] > s["frameDeltas"] - 2
    frame = page.evaluate("window.voxelworld.frame")
    assert {"player", "objects", "characters"} <= set(frame) and frame.get("events") != []  # none: left out
    assert [c["kind"] for c in frame["characters"]][:1] == ["player"] and len(frame["characters"][0]["rotations"])
    assert page.problems == []


def aimed_chunks(page) -> set[str]:
    """The chunks within half a metre of the point the HUD says the player aims at."""
    hello_world = page.evaluate("window.voxelworld.hello.world")
    point = np.array(page.evaluate("window.voxelworld.hud.aim.point"))
    edge = hello_world["voxel_size"] * hello_world["chunk_size"]
    corners = [(point + offset - hello_world["origin"]) // edge for offset in np.array(
        [[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])]
    return {",".join(str(int(c)) for c in corner) for corner in corners}


def test_holding_the_suck_key_digs_the_wall_into_bullets(page):
    aimed = aimed_chunks(page)
    counts = page.evaluate("window.voxelworld.chunkCounts()")
    before = stats(page)
    frames = before["frames"]
    page.wait_for_function(f"window.voxelworld.stats.frames > {frames + 20}", timeout=WAIT_MS)
    assert stats(page)["chunkMessages"] == before["chunkMessages"]  # nothing changes the terrain on its own
    page.keyboard.down("Space")
    try:
        page.wait_for_function("Number(document.getElementById('bullet-count').textContent) >= 2",
                               timeout=WAIT_MS)
    finally:
        page.keyboard.up("Space")
    after = stats(page)
    assert after["chunkMessages"] > before["chunkMessages"]  # the sucked chunks were remeshed and sent
    assert after["chunkPatches"] > before["chunkPatches"]  # as patches of the meshes the page has
    later = page.evaluate("window.voxelworld.chunkCounts()")
    assert any(later.get(key, 0) > counts.get(key, 0) for key in aimed)  # among them, where the player aims
    assert after["bullets"] >= 2
    assert page.text_content("#bullet-materials").startswith("rock_interior")  # each bullet's material
    assert page.world.actions.suck.bullets[:2] == ("rock_interior", "rock_interior")
    shown, counted = page.evaluate(  # read together: a bullet may arrive between two separate reads
        "[document.querySelectorAll('#bullet-list .bullet').length, window.voxelworld.stats.bullets]")
    assert shown == counted >= 2


# A chunk mesh message for the chunk ``key`` ([i, j, k]) of the given triangles (each 9 coordinates; corners at the
# same place are one vertex; none: the chunk's removal, as when it leaves the view), delivered to the page as if the
# server sent it.
SEND_CHUNK = """([version, key, triangles]) => {
  window.voxelworld.socket.onmessage({ data: (%s)(version, key, triangles) });
}""" % CHUNK_MESSAGE  # noqa: UP031 (JavaScript: its braces stay braces)


def region_of(key: str) -> str:
    """The region (batches.js REGION chunks a side) of the chunk "i,j,k"."""
    return ",".join(str(int(c) // 4) for c in key.split(","))


def batch_state(page, region: str, send=(), flush: bool = False) -> dict:
    """The region's chunks batched and loose, and the triangles it draws against its chunks' latest meshes (after
    delivering the chunk messages ``send``, [key, triangles] each, and building the stale batches when ``flush``;
    in one go, so that no picture builds a batch in between and no message arrives)."""
    return page.evaluate("""([region, version, send, flush]) => {
      const v = window.voxelworld, deliver = %s;
      for (const [key, triangles] of send) deliver([version, key, triangles]);
      if (flush) v.flushBatches();
      const described = v.batches();
      return { ...(described.regions[region] || { batched: [], loose: [] }), ...v.compareBatch(region),
        chunks: described.chunks };
    }""" % SEND_CHUNK, [region, MESH_VERSION, list(send), flush])  # noqa: UP031 (JavaScript: its braces stay)


def test_a_region_batch_draws_each_chunk_s_latest_mesh(page):
    """The chunks of a region are drawn as one batch (batches.js): two chunk meshes arriving are drawn on their
    own, then batched together; an edit of one hides its old triangles in the batch at once (the new mesh drawn on
    its own until the batch is built again, with it); a chunk leaving the view (an empty mesh) leaves the batch,
    and the region goes with its last chunk."""
    region, a, b = "225,225,225", [900, 901, 902], [903, 900, 900]  # far from the world: out of the view
    key_a, key_b = ",".join(map(str, a)), ",".join(map(str, b))
    first = [[x + 4000.0 for x in (0, 0, 0, 1, 0, 0, 0, 0, 1)]]
    other = [[x + 4100.0 for x in (0, 0, 0, 1, 0, 0, 0, 0, 1)]]
    edited = [[x + 4000.0 for x in (0, 1, 0, 2, 1, 0, 0, 1, 2)], [x + 4000.0 for x in (5, 0, 0, 6, 0, 0, 5, 0, 1)]]

    found = batch_state(page, region, [[a, first], [b, other]])
    assert found["batched"] == [] and found["loose"] == sorted([key_a, key_b]), found
    assert found["drawn"] == found["latest"] and len(found["drawn"]) == 2, found
    found = batch_state(page, region, flush=True)
    assert found["batched"] == sorted([key_a, key_b]) and found["loose"] == [], found
    assert found["drawn"] == found["latest"] and len(found["drawn"]) == 2, found
    assert page.evaluate(f"window.voxelworld.scene.getObjectByName('region {region}').visible")

    found = batch_state(page, region, [[a, edited]])  # an edit: hidden in the batch, drawn on its own
    assert found["batched"] == [key_b] and found["loose"] == [key_a], found
    assert found["drawn"] == found["latest"] and len(found["drawn"]) == 3, found  # the old triangle is not drawn
    assert found["chunks"][key_a] == 2 and found["chunks"][key_b] == 1
    found = batch_state(page, region, flush=True)
    assert found["batched"] == sorted([key_a, key_b]) and found["loose"] == [], found
    assert found["drawn"] == found["latest"] and len(found["drawn"]) == 3, found

    found = batch_state(page, region, [[a, []]])  # chunk a leaves the view
    assert found["batched"] == [key_b] and found["drawn"] == found["latest"] and len(found["drawn"]) == 1, found
    found = batch_state(page, region, [[b, []]], flush=True)
    assert found["batched"] == found["loose"] == found["drawn"] == [] and key_a not in found["chunks"], found
    assert region not in page.evaluate("window.voxelworld.batches().regions")
    assert page.evaluate(f"window.voxelworld.scene.getObjectByName('region {region}')") is None
    assert page.problems == []


def test_the_removal_of_a_chunk_the_page_does_not_draw_leaves_its_region_batched(page):
    """A removal (an empty mesh) of a chunk the page never drew, in a batched region, changes nothing: the batch is
    not made stale (it would be built again a second later) and no region appears for a chunk of nothing."""
    region, a = "226,226,226", [904, 905, 906]
    triangle = [[x + 4200.0 for x in (0, 0, 0, 1, 0, 0, 0, 0, 1)]]
    found = batch_state(page, region, [[a, triangle]], flush=True)
    assert found["batched"] == [",".join(map(str, a))] and not found["stale"], found
    builds = page.evaluate("window.voxelworld.batches().builds")
    found = batch_state(page, region, [[[905, 905, 906], []]])  # a neighbour of it in the region, never drawn
    assert found["batched"] == [",".join(map(str, a))] and found["loose"] == [] and not found["stale"], found
    empty_region = region_of("912,912,912")
    batch_state(page, empty_region, [[[912, 912, 912], []]])
    assert empty_region not in page.evaluate("window.voxelworld.batches().regions")
    batch_state(page, region, flush=True)
    assert page.evaluate("window.voxelworld.batches().builds") == builds  # nothing built again
    batch_state(page, region, [[a, []]], flush=True)  # (the test's chunk goes again)
    assert page.problems == []


def test_a_far_batch_is_drawn_simplified_and_in_full_while_a_chunk_of_it_changes(page):
    """A batch far from the camera draws a simplified copy of its triangles (a flat grid: far fewer), with the
    far material; after an edit of one of its chunks it draws its full triangles (the edited chunk's old ones
    hidden) until it is built again."""
    region, a, b = "226,225,225", [904, 900, 900], [905, 900, 900]
    grid = [[4000.0 + x + dx, 0.0, 4000.0 + z + dz] for x in range(10) for z in range(10)
            for dx, dz in ((0, 0), (1, 0), (0, 1), (1, 0), (1, 1), (0, 1))]
    squares = [sum(grid[3 * t:3 * t + 3], []) for t in range(200)]  # 200 triangles, each its own corners
    drawn = """(r) => { const v = window.voxelworld, batch = v.scene.getObjectByName(`region ${r}`);
      v.renderer.render(v.scene, v.camera); // shade() picks each batch's triangles for this camera
      return { drawn: batch.geometry.index.count / 3, far: batch.material.vertexShader.includes('vSunLit') }; }"""
    batch_state(page, region, [[a, squares], [b, [[4020.0, 0, 4000, 4021, 0, 4000, 4020, 0, 4001]]]], flush=True)
    page.evaluate("(async () => { await (await import('./vendor/meshopt_simplifier.js')).MeshoptSimplifier.ready; })()")
    page.wait_for_function(f"({drawn})('{region}').drawn < 100", timeout=WAIT_MS)  # made within a few pictures
    assert page.evaluate(drawn, region)["far"] is True
    found = batch_state(page, region, [[b, [[4030.0, 0, 4000, 4031, 0, 4000, 4030, 0, 4001]]]])  # an edit
    assert page.evaluate(drawn, region)["drawn"] == 201  # in full, the old triangle hidden (degenerate)
    assert found["drawn"] == found["latest"] and len(found["drawn"]) == 201, found
    batch_state(page, region, [[a, []], [b, []]], flush=True)
    assert region not in page.evaluate("window.voxelworld.batches().regions")


def test_a_near_chunk_is_drawn_by_its_own_distance(page):
    """A chunk of a near region (its batch within FAR_SHADING of the camera) is drawn by its own distance: 80 m off,
    a copy of its triangles simplified (a flat grid: fewer) with the far material (beyond where a pixel covers 8
    texels: 54 m for this page's 600 pixels at every pixel), in the region's joined mesh (one draw call for the
    region's far chunks), not on its own; a few metres off, on its own, a copy simplified too (NEAR_LEVELS: within a
    centimetre there) with the terrain's material, and the joined mesh draws nothing.
    The region draws its chunk's triangles throughout (its batch hidden), and nothing of it once the chunk goes."""
    region, key = "227,225,225", [908, 900, 900]
    name = "chunk " + ",".join(map(str, key))
    grid = [[4000.0 + x + dx, 0.0, 4000.0 + z + dz] for x in range(10) for z in range(10)
            for dx, dz in ((0, 0), (1, 0), (0, 1), (1, 0), (1, 1), (0, 1))]
    squares = [sum(grid[3 * t:3 * t + 3], []) for t in range(200)]
    drawn = """(name) => { const v = window.voxelworld, region = name.slice(6).split(',').map((c) => Math.floor(c / 4));
      const far = (m) => m.material.vertexShader.includes('vSunLit');
      const alone = v.scene.getObjectByName(name), joined = v.scene.getObjectByName(`region ${region} near`);
      return { alone: alone ? { triangles: alone.geometry.index.count / 3, far: far(alone) } : null,
        joined: joined && joined.visible ? { triangles: joined.geometry.drawRange.count / 3, far: far(joined) } : null,
        batch: v.scene.getObjectByName(`region ${region}`).visible, textureDistance: v.textureDistance() }; }"""
    page.evaluate("(async () => { await (await import('./vendor/meshopt_simplifier.js')).MeshoptSimplifier.ready; })()")
    batch_state(page, region, [[key, squares]], flush=True)
    try:
        page.evaluate("window.voxelworld.view([4005, 87.1, 4005], [4005, 0, 4005])")  # 80 m above its bounds
        page.wait_for_function(f"(({drawn})('{name}').joined || {{}}).triangles < 200", timeout=WAIT_MS)
        found = page.evaluate(drawn, name)
        assert found["joined"]["far"] is True and found["alone"] is None and found["batch"] is False, found
        assert 53 < found["textureDistance"] < 55, found  # 8 texels of 2 m / 128 a pixel, 70 degrees over 600
        assert batch_state(page, region)["drawn"] == batch_state(page, region)["latest"]
        page.evaluate("window.voxelworld.view([4005, 10, 4005], [4005, 0, 4005])")  # 3 m above its bounds
        page.wait_for_function(f"(({drawn})('{name}').alone || {{}}).triangles < 200 && "
                               f"({drawn})('{name}').alone.far === false", timeout=WAIT_MS)
        found = page.evaluate(drawn, name)
        assert found["batch"] is False and found["joined"] is None, found
        found = batch_state(page, region)
        assert found["drawn"] == found["latest"] and len(found["drawn"]) == 200, found
    finally:
        page.evaluate("window.voxelworld.view(null)")
    batch_state(page, region, [[key, []]], flush=True)
    wait_for_renders(page)
    assert region not in page.evaluate("window.voxelworld.batches().regions")
    assert page.evaluate(f"window.voxelworld.scene.getObjectByName('{name}')") is None
    assert page.evaluate(f"window.voxelworld.scene.getObjectByName('region {region} near')") is None
    assert page.problems == []


def test_a_simplified_chunk_keeps_the_outline_of_a_patch_of_another_colour(page):
    """batches.js simplifiedGeometry with what the vertices show (shownAttributes): a flat grid of one colour with a
    2 m square of another in it loses triangles but keeps the square's four corners (its outline: along its straight
    sides and inside it nothing changes colour); simplified on its positions alone (as the far batches are) the
    square's corners go too."""
    kept = page.evaluate("""async () => {
      const THREE = await import('./vendor/three.module.js');
      const { MeshoptSimplifier } = await import('./vendor/meshopt_simplifier.js');
      const { simplifiedGeometry, shownAttributes } = await import('./batches.js');
      await MeshoptSimplifier.ready;
      const n = 11, positions = [], patch = [], corners = [], index = [];
      for (let x = 0; x < n; x++) for (let z = 0; z < n; z++) {
        positions.push(x, 0, z);
        if (x >= 4 && x <= 6 && z >= 4 && z <= 6) patch.push(x * n + z);
        if ((x === 4 || x === 6) && (z === 4 || z === 6)) corners.push(x * n + z);
      }
      for (let x = 0; x < n - 1; x++) for (let z = 0; z < n - 1; z++) {
        const v = x * n + z;
        index.push(v, v + 1, v + n, v + 1, v + n + 1, v + n);
      }
      const count = n * n, g = new THREE.BufferGeometry(), colour = new Uint8Array(3 * count);
      for (let v = 0; v < count; v++) colour.set(patch.includes(v) ? [120, 70, 30] : [60, 140, 40], 3 * v);
      g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(positions), 3));
      g.setAttribute('palette_a', new THREE.BufferAttribute(colour, 3, true));
      g.setAttribute('palette_b', new THREE.BufferAttribute(colour, 3, true));
      g.setAttribute('blend', new THREE.BufferAttribute(new Float32Array(count), 1));
      g.setAttribute('surface', new THREE.BufferAttribute(new Uint8Array(3 * count).fill(200), 3, true));
      g.setAttribute('occlusion', new THREE.BufferAttribute(new Float32Array(count).fill(1), 1));
      g.setIndex(new THREE.BufferAttribute(new Uint32Array(index), 1));
      const result = (copy) => {
        const used = new Set(copy.index.array);
        return { triangles: copy.index.count / 3, corners: corners.filter((v) => used.has(v)).length };
      };
      return { shown: result(simplifiedGeometry(g, 0.5, shownAttributes(g))), plain: result(simplifiedGeometry(g, 0.5)) };
    }""")
    assert kept["shown"]["triangles"] < 200 and kept["shown"]["corners"] == 4, kept
    assert kept["plain"]["corners"] < 4, kept


def test_the_dug_wall_s_regions_draw_the_chunks_latest_meshes(page):
    """After the wall was sucked (the test above), every region draws exactly its chunks' latest meshes, before its
    batch is built again and after; then no chunk is drawn on its own, and there are fewer batches than chunks."""
    regions = page.evaluate("Object.keys(window.voxelworld.batches().regions)")
    dug = {region_of(key) for key in aimed_chunks(page)}
    assert dug <= set(regions)
    for region in regions:
        found = batch_state(page, region)
        assert found["drawn"] == found["latest"], region
    # In one go (no chunk message can arrive in between: the world may still be remeshing the wall).
    described = page.evaluate("window.voxelworld.flushBatches(), window.voxelworld.batches()")
    assert described["loose"] == 0 and 0 < described["batches"] < len(described["chunks"]) / 4, described
    for region in dug:
        found = batch_state(page, region)
        assert found["drawn"] == found["latest"] and found["drawn"], region


def test_the_e_key_presses_use(page):
    def uses():
        return sum(1 for e in page.world.events if isinstance(e, ActionStarted) and e.action == "use")

    before = uses()
    page.keyboard.press("KeyE")
    deadline = time.monotonic() + WAIT_MS / 1000
    while uses() == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert uses() == before + 1  # one press, one use (nothing in reach of the wall's face: nothing happens)


def test_the_navmesh_overlay_toggles(page):
    page.mouse.move(5, 5)
    before = pixels(page)
    page.keyboard.press("KeyN")
    page.wait_for_function("window.voxelworld.overlays.navmesh && window.voxelworld.navmeshChildren() > 0 && "
                           "window.voxelworld.stats.navmeshMessages > 0", timeout=WAIT_MS)
    wait_for_renders(page)
    shown = pixels(page)
    # A translucent overlay: it tints a good share of the view towards its colour, and the ground shows through.
    tinted = overlay_share(before, shown)
    assert cyan_share(before) < 0.01 and tinted > 0.03 and cyan_share(shown) < tinted
    page.keyboard.press("KeyN")
    page.wait_for_function("!window.voxelworld.overlays.navmesh", timeout=WAIT_MS)
    wait_for_renders(page)
    assert overlay_share(before, pixels(page)) < 0.01
    page.keyboard.press("KeyC")
    page.wait_for_function("window.voxelworld.stats.collisionMessages > 0", timeout=WAIT_MS)
    page.keyboard.press("KeyC")


def test_a_malformed_message_gets_an_error_and_the_page_plays_on(page):
    before = stats(page)
    page.evaluate("window.voxelworld.send('{\"type\": \"input\", \"move\": [0, NaN]')")
    page.wait_for_function(f"window.voxelworld.stats.errors > {before['errors']}", timeout=WAIT_MS)
    assert "not JSON" in stats(page)["lastError"] or "NaN" in stats(page)["lastError"]
    page.evaluate("window.voxelworld.send('{\"type\": \"input\", \"move\": [0, 1e999]}')")
    page.wait_for_function(f"window.voxelworld.stats.errors > {before['errors'] + 1}", timeout=WAIT_MS)
    assert "move[1] = inf is out of range" in stats(page)["lastError"]
    frames = stats(page)["frames"]
    page.wait_for_function(f"window.voxelworld.stats.frames > {frames + 30}", timeout=WAIT_MS)
    assert stats(page)["connected"] and page.server.play.failure is None
    # The page still plays: walking back from the wall moves the player.
    x = page.evaluate("window.voxelworld.frame.player.position[0]")
    page.keyboard.down("KeyS")
    try:
        page.wait_for_function(f"window.voxelworld.frame.player.position[0] < {x - 0.5}", timeout=WAIT_MS)
    finally:
        page.keyboard.up("KeyS")
    assert page.problems == []


def test_a_mesh_message_of_an_unknown_version_is_refused_with_an_error(page):
    """The page reads the version byte of every binary message: a chunk mesh of version 9 (this page reads
    MESH_VERSION) shows an error and changes no chunk; one of MESH_VERSION is drawn."""
    before = stats(page)
    deliver = """([version, triangles]) => {
        const triangle = [9000, 9000, 9000, 9001, 9000, 9000, 9000, 9000, 9001];
        const buffer = (%s)(version, [900, 900, 900], triangles ? [triangle] : []);
        window.voxelworld.socket.onmessage({ data: buffer });
    }""" % CHUNK_MESSAGE  # noqa: UP031 (JavaScript: its braces stay braces)
    drawn = "(key) => key in window.voxelworld.batches().chunks"  # the world streams on meanwhile
    page.evaluate(deliver, [9, 1])
    after = stats(page)
    assert after["errors"] == before["errors"] + 1 and "version 9" in after["lastError"]
    assert "900,900,900" not in page.evaluate("window.voxelworld.chunkCounts()")
    assert not page.evaluate(drawn, "900,900,900")
    page.evaluate(deliver, [MESH_VERSION, 1])
    assert page.evaluate("window.voxelworld.chunkCounts()")["900,900,900"] == 1
    assert page.evaluate(drawn, "900,900,900")
    page.evaluate(deliver, [MESH_VERSION, 0])  # and removed again (an empty mesh)
    assert not page.evaluate(drawn, "900,900,900")
