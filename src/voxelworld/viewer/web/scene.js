// The three.js scene: renderer, lights, the terrain's chunk meshes (drawn in region batches: batches.js), the
// props, the things on the ground of a generated world (things.js) and the navmesh and collision overlays, built
// from what decode.js reads and the hello message's materials.
//
// Light: a sun casting shadows (its shadow camera fitted to the world's box), a sky/ground hemisphere light and
// fog to the sky colour from FOG_NEAR to FOG_FAR metres (or out to the view distance of a large world). Quality (setQuality): "default" draws textures,
// shadows and ambient occlusion, "low" none of them (the table colours; shaders.js); ?quality=low in the URL
// starts the page at low quality, and without antialiasing (as on a software renderer at any quality).

import * as THREE from "./vendor/three.module.js";
import { SHADOW_LAYER, TEXTURE_DISTANCE, TerrainBatches, detailFor, textureDistance } from "./batches.js";
import { CutMarks } from "./cut_marks.js";
import { Foliage } from "./foliage.js";
import { Things } from "./things.js";
import { QUALITIES, SUN_DIRECTION, THREE_LIGHTS, decodeTextureSet, materialAttributes, materialTable, shadingKey,
  terrainMaterial, terrainUniforms, textureMaps } from "./shaders.js";

export const FOG_NEAR = 30, FOG_FAR = 140; // metres
// A world meshed only within a view distance (hello.world.view_distance: a large world) is fogged from this share
// of it out to all of it, so that its terrain shows to the horizon and fades where the meshes end.
export const VIEW_FOG_NEAR = 0.3;
export const SHADOW_MAP_SIZE = 1024; // texels per side of the sun's shadow map
// On a world wider than twice SHADOW_REACH the sun's shadow map covers a square SHADOW_REACH m either side of the
// camera (across the sun's direction), not the whole world: the far terrain takes no cast shadow (its slopes are
// still lit by the sun's angle), the near one a map four times finer, and the shadow pass draws only the chunks
// near the camera (over the whole 1 km world it drew some 600 draw calls and 120 000 triangles, a third of a second
// under SwiftShader, each time a chunk arrived anywhere). The square follows the camera in steps of SHADOW_STEP m
// (each step draws the map again); its shadows fade out over its outer SHADOW_FADE share; a chunk arriving redraws
// the map only when it lies within SHADOW_REACH + SHADOW_CASTERS m of the square's centre.
export const SHADOW_REACH = 128, SHADOW_STEP = 16, SHADOW_FADE = 0.05, SHADOW_CASTERS = 96;
// On such a world a chunk arriving within SHADOW_PROMPT m of the camera redraws the map before the next picture (a
// dig, the ground under the player); one farther marks it to be drawn again at most SHADOW_LATER_MS after the last
// time: while the world streams in or the player runs, chunks arrive every few pictures, and each shadow pass cost
// a third of a picture under SwiftShader (some 400 draw calls), for shadows at that distance no one sees change.
export const SHADOW_PROMPT = 48, SHADOW_LATER_MS = 1500;
// Dynamic resolution: when pictures take longer than FRAME_BUDGET_MS on average, the page draws fewer pixels (down
// to MIN_RESOLUTION of the window's, in steps), and more again when there is time to spare, so the textured,
// shadowed look keeps a playable frame rate on a slow (software) renderer. Automatic quality: a page whose URL asks
// for no quality goes from "default" to "low" once its pictures take longer than AUTO_LOW_MS on average over
// AUTO_LOW_AFTER_MS at the lowest resolution (a large world's view in software; the demo world draws about 30 a second
// there), and says so; Q switches back, for good.
export const FRAME_BUDGET_MS = 1000 / 30, MIN_RESOLUTION = 0.45, AUTO_LOW_MS = 1000 / 20, AUTO_LOW_AFTER_MS = 3000;
const RESOLUTION_STEP = 0.85, RESOLUTION_SETTLE_MS = 400; // each change, and the time between two changes
const LEVEL_COLOURS = [0x2ad4ff, 0xffa020, 0xff40c0, 0xfff040, 0x9060ff, 0xff5050]; // navmesh levels 0, 1, ...

function group(name, visible = true) {
  const g = new THREE.Group();
  g.name = name;
  g.visible = visible;
  return g;
}

// The quality a page asks for in its URL (?quality=low), or "default".
export function qualityFromUrl(search = location.search) {
  const asked = new URLSearchParams(search).get("quality");
  return QUALITIES.includes(asked) ? asked : "default";
}

// Whether a page's URL asks for a quality (?quality=...): then the page keeps it (no automatic quality).
export function qualityAskedInUrl(search = location.search) {
  return new URLSearchParams(search).has("quality");
}

// The share of pixels a page's URL pins (?resolution=0.75: MIN_RESOLUTION..1, no dynamic resolution), or null.
export function resolutionFromUrl(search = location.search) {
  const asked = Number.parseFloat(new URLSearchParams(search).get("resolution"));
  return Number.isFinite(asked) ? Math.min(1, Math.max(MIN_RESOLUTION, asked)) : null;
}

// Whether this browser's WebGL draws on the CPU (SwiftShader, llvmpipe: no graphics card). There the page draws
// without multisampled antialiasing, which costs about a third of every picture in software.
export function softwareRenderer(name = rendererName()) {
  return /swiftshader|llvmpipe|softpipe|software/i.test(name);
}

function rendererName() {
  const gl = document.createElement("canvas").getContext("webgl2");
  if (!gl) return "";
  const info = gl.getExtension("WEBGL_debug_renderer_info"); // the driver's name (RENDERER says only "WebKit WebGL")
  const name = gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER);
  gl.getExtension("WEBGL_lose_context")?.loseContext();
  return String(name);
}

// The centre of the shadow's square (scene.js SHADOW_REACH) for a camera at ``position`` when the square centred at
// ``centre`` (a Vector3, or null: none yet) no longer does: on a grid of SHADOW_STEP m, once the camera went
// SHADOW_STEP m or more from its centre along an axis; else null (the square stays).
export function shadowCentre(centre, position) {
  if (centre && Math.abs(position.x - centre.x) < SHADOW_STEP && Math.abs(position.y - centre.y) < SHADOW_STEP
      && Math.abs(position.z - centre.z) < SHADOW_STEP) return null;
  const snap = (x) => Math.round(x / SHADOW_STEP) * SHADOW_STEP;
  return new THREE.Vector3(snap(position.x), snap(position.y), snap(position.z));
}

// Whether a mesh within ``sphere`` (a Sphere, or null: unknown) may cast a shadow into the square centred at
// ``centre`` (null: the map covers the whole world): within SHADOW_REACH + SHADOW_CASTERS m of it across.
export function castsInto(centre, sphere) {
  if (!centre || !sphere) return true;
  const reach = SHADOW_REACH + SHADOW_CASTERS + sphere.radius;
  return Math.abs(sphere.center.x - centre.x) < reach && Math.abs(sphere.center.z - centre.z) < reach;
}

export class WorldScene {
  constructor(container, quality = "default", pinnedResolution = null) {
    this.software = softwareRenderer();
    this.renderer = new THREE.WebGLRenderer({ antialias: quality !== "low" && !this.software, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.renderer.setSize(window.innerWidth, window.innerHeight);
    this.renderer.shadowMap.type = THREE.BasicShadowMap;
    // The sun's shadow map holds what does not move (terrain, props, tree crowns): drawn again only when one of
    // them changes (shadowsChanged), not every picture. Actors take its shadow but do not cast into it (actors.js).
    this.renderer.shadowMap.autoUpdate = false;
    container.appendChild(this.renderer.domElement);
    this.scene = new THREE.Scene();
    // The sky is the page's background colour (index.html's style), defined there once.
    const sky = new THREE.Color(getComputedStyle(document.body).backgroundColor);
    this.scene.background = sky;
    this.scene.fog = new THREE.Fog(sky, FOG_NEAR, FOG_FAR);
    this.hemisphere = new THREE.HemisphereLight(THREE_LIGHTS.sky, THREE_LIGHTS.ground, THREE_LIGHTS.hemisphere);
    this.sun = new THREE.DirectionalLight(THREE_LIGHTS.sun, THREE_LIGHTS.sunIntensity);
    this.sun.position.copy(SUN_DIRECTION);
    this.sun.shadow.mapSize.set(SHADOW_MAP_SIZE, SHADOW_MAP_SIZE);
    this.sun.shadow.bias = -0.0005;
    this.sun.shadow.normalBias = 0.04;
    this.sun.shadow.camera.layers.enable(SHADOW_LAYER); // the terrain drawn into its map only (batches.js)
    this.scene.add(this.hemisphere, this.sun, this.sun.target);
    // The terrain shader has its own light (shaders.js LIGHT, the snapshots' light); three's lights above light
    // the actors and cast the sun's shadows.
    this.uniforms = terrainUniforms();
    this.shadowArea = null; // the square the shadow map covers on a large world: { centre: Vector3 }, or null
    const fog = {};
    sky.getRGB(fog, THREE.SRGBColorSpace);
    this.uniforms.fogColour.value.set(fog.r, fog.g, fog.b);
    this.cutMarks = new CutMarks(); // the enemies' cuts (the frame's "cuts"), drawn darker
    this.quality = null;
    this.fixedView = null; // {eye, target} set by view(): the camera placed there instead of following
    this.terrain = group("terrain");
    this.actors = group("actors");
    this.navmesh = group("navmesh", false);
    this.collision = group("collision", false);
    this.props = group("props");
    this.crowns = group("crowns"); // tree crowns on the trunks' tops (foliage.js)
    this.foliage = new Foliage(this.crowns);
    this.thingMeshes = group("things"); // trees, bushes, rocks and props of a generated world (things.js)
    this.scene.add(this.terrain, this.props, this.crowns, this.thingMeshes, this.actors, this.navmesh, this.collision);
    this.terrainShader = terrainMaterial(this.uniforms, quality);
    this.farShader = terrainMaterial(this.uniforms, quality, true); // the far batches' (batches.js FAR_SHADING)
    this.farUnshadowed = terrainMaterial(this.uniforms, quality, true, { shadow: false }); // outside the shadow
    this.materialsById = new Map();
    this.materialTable = materialTable([]);
    this.chunkShaders = new Map(); // the chunk meshes' materials by what their pixels need (shaders.js shadingOf)
    this.things = new Things(this.thingMeshes, this.uniforms);
    this.batches = new TerrainBatches(this.terrain, (g) => this.chunkShader(g), this.farShader); // chunk meshes, by region
    this.batches.outsideShadow = (sphere) => this.outsideShadow(sphere);
    this.shadowPoint = new THREE.Vector3(); // outsideShadow's scratch
    this.textures = null; // the decoded texture set, once loaded
    this.resolution = pinnedResolution ?? 1; // share of the window's pixels drawn (dynamic resolution)
    this.autoQuality = false; // whether slow pictures may lower the quality (the page sets it: qualityAskedInUrl)
    this.slowWindow = null; // pictures drawn at the lowest resolution since when: { since, pictures }
    this.onQualityDropped = null; // called when they lowered it
    this.pinnedResolution = pinnedResolution; // a share the URL fixed, or null: adapt
    this.frameMs = null; // moving average of the time between two pictures
    this.lastPicture = null;
    this.lastResolutionChange = 0;
    this.shadowDraws = 0; // pictures in which the sun's shadow map was drawn
    this.shadowDrawnAt = -Infinity; // ms: when it was last drawn
    this.shadowLater = false; // a far chunk changed since: the map is drawn again SHADOW_LATER_MS after the last time
    this.eye = null; // where the camera was in the last picture (a Vector3), or null
    this.setQuality(quality);
  }

  get canvas() { return this.renderer.domElement; }

  get chunks() { return this.batches.chunks; } // "i,j,k" -> the chunk's mesh and its place in its region's batch

  get triangles() { return this.batches.triangles; }

  // The terrain material for a chunk's geometry: without a second texture sample or the highlight where none of
  // its vertices needs them (the same picture, cheaper in software); front faces only (the terrain is closed: from
  // the air its back faces lie behind its front ones, and a software renderer pays for every triangle it rasterises).
  chunkShader(geometry) {
    const shading = geometry.userData.shading ?? {}; // unknown: every need
    const key = shadingKey(shading);
    if (!this.chunkShaders.has(key)) {
      const material = terrainMaterial(this.uniforms, this.quality, false, shading, true);
      this.chunkShaders.set(key, material);
    }
    return this.chunkShaders.get(key);
  }

  // The server's texture set (/textures.bin): until it arrives (or when it cannot be read) every material is
  // drawn in its table colour. Resolves to the decoded set; rejects with an Error naming what went wrong.
  async loadTextures(url = "textures.bin") {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    const set = decodeTextureSet(await response.arrayBuffer());
    this.uniforms.albedoMaps.value.dispose();
    this.uniforms.albedoMaps.value = textureMaps(set, this.software).albedo;
    this.uniforms.textureScale.value = 1 / set.metres;
    this.textures = set;
    this.repaint();
    return set;
  }

  // Every chunk's and prop's material attributes again, from the materials and the texture set now known.
  repaint() {
    this.materialTable = materialTable([...this.materialsById.values()], this.textures);
    for (const chunk of this.batches.chunks.values()) materialAttributes(chunk.mesh.geometry, this.materialTable);
    this.batches.changedAll();
    // the layers may have changed
    this.batches.setMaterial((g) => this.chunkShader(g), this.farShader, this.farUnshadowed);
    for (const mesh of this.props.children) materialAttributes(mesh.geometry, this.materialTable);
  }

  // "default": textures, shadows and ambient occlusion; "low": none of them.
  setQuality(quality) {
    if (!QUALITIES.includes(quality)) throw new Error(`quality ${quality}: one of ${QUALITIES.join(", ")}`);
    if (quality === this.quality) return;
    this.quality = quality;
    this.things.setQuality(quality);
    const high = quality !== "low";
    this.renderer.shadowMap.enabled = high;
    this.shadowsChanged();
    this.sun.castShadow = high;
    this.uniforms.occlusionStrength.value = high ? 1.0 : 0.0;
    const old = this.terrainShader, oldFar = this.farShader, oldUnshadowed = this.farUnshadowed;
    this.terrainShader = terrainMaterial(this.uniforms, quality);
    this.farShader = terrainMaterial(this.uniforms, quality, true);
    this.farUnshadowed = terrainMaterial(this.uniforms, quality, true, { shadow: false });
    this.scene.traverse((o) => {
      if (o.material === old || o.material === oldFar || o.material === oldUnshadowed) o.material = this.terrainShader;
      else if (o.material) o.material.needsUpdate = true; // lit materials take the shadows on or off
    });
    const oldChunks = [...this.chunkShaders.values()];
    this.chunkShaders.clear();
    this.batches.setMaterial((g) => this.chunkShader(g), this.farShader, this.farUnshadowed);
    old.dispose();
    oldFar.dispose();
    oldUnshadowed?.dispose();
    for (const material of oldChunks) material.dispose();
    this.setResolution(this.pinnedResolution ?? 1);
  }

  // Draw ``share`` (MIN_RESOLUTION..1) of the window's pixels, stretched to the window; the terrain's levels of
  // detail follow the pixels drawn (batches.js detailFor).
  setResolution(share) {
    this.resolution = Math.min(1, Math.max(MIN_RESOLUTION, share));
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2) * this.resolution);
    this.renderer.setSize(window.innerWidth, window.innerHeight);
    this.batches.setDetail(detailFor(this.renderer.domElement.height));
  }

  // Dynamic resolution: the time between pictures, averaged, against FRAME_BUDGET_MS.
  adaptResolution(now) {
    if (this.lastPicture !== null) {
      const ms = now - this.lastPicture;
      this.frameMs = this.frameMs === null ? ms : 0.8 * this.frameMs + 0.2 * ms;
    }
    this.lastPicture = now;
    if (this.pinnedResolution !== null || this.frameMs === null) return;
    if (this.autoQuality && this.quality === "default") {
      // Judged by the pictures' mean time over each AUTO_LOW_AFTER_MS at the lowest resolution, not picture by
      // picture: a page hovering about AUTO_LOW_MS (17-19 a second on the 1 km world in software) dipped under it
      // often enough never to stay over it for AUTO_LOW_AFTER_MS, and stayed slow at default for good.
      const slow = this.slowWindow;
      if (this.resolution > MIN_RESOLUTION + 1e-3) this.slowWindow = null;
      else if (slow === null) this.slowWindow = { since: now, pictures: 0 };
      else {
        slow.pictures += 1;
        if (now - slow.since > AUTO_LOW_AFTER_MS) {
          if ((now - slow.since) / slow.pictures > AUTO_LOW_MS) {
            this.autoQuality = false;
            this.setQuality("low");
            this.onQualityDropped?.();
            return;
          }
          this.slowWindow = { since: now, pictures: 0 }; // fast enough: the next window is judged afresh
        }
      }
    }
    if (now - this.lastResolutionChange < RESOLUTION_SETTLE_MS) return;
    let share = this.resolution;
    if (this.frameMs > FRAME_BUDGET_MS) share *= RESOLUTION_STEP;
    else if (this.frameMs < 0.6 * FRAME_BUDGET_MS) share /= RESOLUTION_STEP;
    share = Math.min(1, Math.max(MIN_RESOLUTION, share));
    if (Math.abs(share - this.resolution) > 1e-3) {
      this.setResolution(share);
      this.lastResolutionChange = now;
    }
  }

  // Place the camera at ``eye`` looking at ``target`` (world metres) in every frame drawn from now on, or
  // follow the player again (null): the fixed views of the browser tests (docs/play.md).
  view(eye, target) {
    this.fixedView = eye ? { eye: new THREE.Vector3(...eye), target: new THREE.Vector3(...target) } : null;
  }

  // Put ``camera`` at the fixed view, when one is set.
  placeCamera(camera) {
    if (this.fixedView) {
      camera.position.copy(this.fixedView.eye);
      camera.lookAt(this.fixedView.target);
    }
  }

  // Draw the scene seen by ``camera`` (at the fixed view when one is set; ``frustum``: what it sees from there, a
  // THREE.Frustum, or null: every near chunk joined).
  render(camera, frustum = null) {
    const now = performance.now();
    this.adaptResolution(now);
    this.batches.flush(now);
    this.placeCamera(camera);
    this.followShadow(camera.position);
    // Where the near chunks' textures end: a pixel's share of a texel at the resolution drawn now.
    const set = this.textures, height = this.renderer.domElement.height;
    this.batches.textureDistance = set ? textureDistance(camera.fov, height, set.metres / set.size) : TEXTURE_DISTANCE;
    camera.updateMatrixWorld();
    camera.matrixWorldInverse.copy(camera.matrixWorld).invert();
    // The near regions' far chunks joined by what the camera sees (and all of them for the sun's shadow map:
    // batches.js shade).
    this.batches.shade(camera.position, frustum, this.renderer.shadowMap.enabled);
    this.things.update(camera);
    const shadows = this.renderer.shadowMap;
    if (this.shadowLater && now - this.shadowDrawnAt >= SHADOW_LATER_MS) this.shadowsChanged();
    if (shadows.enabled && shadows.needsUpdate) { // three draws it in this picture
      this.shadowDraws++;
      this.shadowDrawnAt = now;
      this.shadowLater = false;
    }
    (this.eye ??= new THREE.Vector3()).copy(camera.position);
    this.renderer.render(this.scene, camera);
  }

  materialId(name) {
    for (const m of this.materialsById.values()) if (m.name === name) return m.id;
    return 0;
  }

  materialColour(name) {
    for (const m of this.materialsById.values()) {
      if (m.name === name) return new THREE.Color().setRGB(...m.colour, THREE.SRGBColorSpace);
    }
    return new THREE.Color(0x999999);
  }

  clearGroup(g) {
    for (const child of [...g.children]) {
      g.remove(child);
      child.traverse((o) => {
        if (o.geometry) o.geometry.dispose();
        if (o.material && o.material !== this.terrainShader) o.material.dispose?.();
      });
    }
  }

  // A new world (the hello message): its materials and props; every chunk and overlay dropped.
  reset(hello) {
    this.materialsById = new Map(hello.materials.map((m) => [m.id, m]));
    this.materialTable = materialTable(hello.materials, this.textures);
    this.batches.clear();
    for (const g of [this.terrain, this.props, this.actors, this.navmesh, this.collision]) this.clearGroup(g);
    this.fitShadow(hello.world.bounds);
    this.cutMarks.reset(hello.world.voxel_size);
    const view = hello.world.view_distance;
    this.scene.fog.near = view ? VIEW_FOG_NEAR * view : FOG_NEAR;
    this.scene.fog.far = view || FOG_FAR;
    this.shadowsChanged();
    this.foliage.reset(hello.materials);
    this.things.reset(this.scene.fog.far);
    for (const prop of hello.props) {
      // Drawn like the terrain: its material's texture (flat faces: each triangle its own corners).
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute("position", new THREE.Float32BufferAttribute(prop.positions, 3));
      geometry.setIndex(prop.indices);
      const flat = geometry.toNonIndexed();
      flat.computeVertexNormals();
      const n = flat.attributes.position.count;
      const id = this.materialId(prop.material);
      flat.setAttribute("mat_a", new THREE.BufferAttribute(new Uint8Array(n).fill(id), 1));
      flat.setAttribute("mat_b", new THREE.BufferAttribute(new Uint8Array(n).fill(id), 1));
      flat.setAttribute("blend", new THREE.BufferAttribute(new Float32Array(n), 1));
      flat.setAttribute("occlusion", new THREE.BufferAttribute(new Float32Array(n).fill(1), 1));
      materialAttributes(flat, this.materialTable);
      geometry.dispose();
      const mesh = new THREE.Mesh(flat, this.terrainShader);
      mesh.name = prop.name;
      mesh.castShadow = mesh.receiveShadow = true;
      this.props.add(mesh);
    }
  }

  // The sun's shadow camera: an orthographic box around the world's ``bounds`` ([min corner, max corner]), or, on
  // a world wider than twice SHADOW_REACH, a square SHADOW_REACH m either side of the camera (followShadow), as
  // deep as the world.
  fitShadow(bounds) {
    const low = new THREE.Vector3(...bounds[0]), high = new THREE.Vector3(...bounds[1]);
    const centre = low.clone().add(high).multiplyScalar(0.5);
    const radius = high.distanceTo(low) / 2;
    const follows = Math.max(high.x - low.x, high.z - low.z) > 2 * SHADOW_REACH;
    const half = follows ? SHADOW_REACH : radius;
    this.shadowDepth = radius;
    this.shadowArea = follows ? { centre: null } : null;
    this.uniforms.shadowFade.value = follows ? 1 / SHADOW_FADE : 0;
    const camera = this.sun.shadow.camera;
    Object.assign(camera, { left: -half, right: half, top: half, bottom: -half, near: radius * 0.5,
      far: radius * 3.5 });
    camera.updateProjectionMatrix();
    this.placeShadow(centre);
  }

  // The shadow camera looking down the sun's direction at ``centre`` (its matrices at once: outsideShadow reads them
  // before three draws the map).
  placeShadow(centre) {
    this.sun.target.position.copy(centre);
    this.sun.position.copy(centre).addScaledVector(SUN_DIRECTION, 2 * this.shadowDepth);
    this.sun.target.updateMatrixWorld();
    this.sun.updateMatrixWorld();
    this.sun.shadow.updateMatrices(this.sun);
  }

  // Whether ``sphere`` lies wholly outside the square the shadow map covers on a large world (across the sun's
  // direction): no shadow falls there (the map's edge fades it to none), so its mesh may be drawn without the lookup.
  outsideShadow(sphere) {
    if (!this.shadowArea?.centre || !this.renderer.shadowMap.enabled || !sphere) return false;
    const p = this.shadowPoint.copy(sphere.center).applyMatrix4(this.sun.shadow.camera.matrixWorldInverse);
    const reach = SHADOW_REACH + sphere.radius;
    return Math.abs(p.x) > reach || Math.abs(p.y) > reach;
  }

  // On a large world, the shadow's square moved to the camera at ``position`` when it went SHADOW_STEP m or more
  // from the square's centre (shadowCentre): the map drawn again.
  followShadow(position) {
    const area = this.shadowArea;
    const centre = area && shadowCentre(area.centre, position);
    if (!centre) return;
    area.centre = centre;
    this.placeShadow(centre);
    this.shadowsChanged();
  }

  // Whether a chunk's mesh within ``sphere`` (its bounding sphere) may cast a shadow into the map.
  castsIntoShadow(sphere) {
    return castsInto(this.shadowArea?.centre ?? null, sphere);
  }

  // A chunk's mesh within ``sphere`` came or went: the shadow map drawn again when the mesh casts into it, before the
  // next picture, or on a large world, when the mesh lies SHADOW_PROMPT m or more from the camera, with the next
  // redraw SHADOW_LATER_MS after the last one.
  chunkChanged(sphere) {
    if (!this.castsIntoShadow(sphere)) return;
    if (this.shadowArea && this.eye && sphere && sphere.center.distanceTo(this.eye) - sphere.radius >= SHADOW_PROMPT) {
      this.shadowLater = true;
    } else {
      this.shadowsChanged();
    }
  }

  // The sun's shadow map is drawn again before the next picture (the terrain, a prop or a crown changed).
  shadowsChanged() {
    this.renderer.shadowMap.needsUpdate = true;
  }

  // A chunk's mesh from decodeChunk: replaces the chunk's old mesh (none when it has no triangles; the removal of a
  // chunk this page does not draw changes nothing, and does not hold its region's batch back).
  setChunk(chunk) {
    const old = this.batches.chunks.get(chunk.key);
    if (chunk.m === 0 && !old) return;
    if (old) this.chunkChanged(old.mesh.geometry.boundingSphere);
    this.foliage.setChunk(chunk);
    if (chunk.m === 0) {
      this.batches.set(chunk.key, null);
      return;
    }
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute("position", new THREE.BufferAttribute(chunk.positions, 3));
    geometry.setAttribute("normal", new THREE.BufferAttribute(chunk.normals, 3));
    geometry.setAttribute("mat_a", new THREE.BufferAttribute(chunk.matA, 1));
    geometry.setAttribute("mat_b", new THREE.BufferAttribute(chunk.matB, 1));
    geometry.setAttribute("blend", new THREE.BufferAttribute(chunk.blend, 1));
    // Per-vertex ambient occlusion when the server sends it (1: open to the sky).
    const occlusion = chunk.occlusion || new Float32Array(chunk.n).fill(1);
    geometry.setAttribute("occlusion", new THREE.BufferAttribute(occlusion, 1));
    materialAttributes(geometry, this.materialTable);
    geometry.setIndex(new THREE.BufferAttribute(chunk.indices, 1));
    geometry.computeBoundingSphere();
    this.chunkChanged(geometry.boundingSphere);
    this.cutMarks.shade(geometry);
    const mesh = new THREE.Mesh(geometry, this.terrainShader);
    mesh.name = `chunk ${chunk.key}`;
    this.batches.set(chunk.key, mesh);
  }

  // A frame's "cuts" (cut_marks.js; ``whole``: a whole frame's): the chunks near the marks that came or went
  // shaded again (a changed chunk is drawn on its own until its region's batch is built again, as when its mesh
  // changes).
  setCuts(cuts, whole) {
    this.shadeCuts(this.cutMarks.take(cuts, whole));
  }

  // Draw the cut marks or not (the browser tests compare the pictures).
  showCuts(on) {
    this.cutMarks.show(on);
    this.shadeCuts(this.cutMarks.marks);
  }

  shadeCuts(marks) {
    if (!marks.length) return;
    const near = [...this.batches.chunks].filter(([, chunk]) => chunk.mesh.geometry.userData.cut
      || this.cutMarks.touches(chunk.mesh.geometry.boundingSphere, marks));
    for (const [key, chunk] of near) {
      const geometry = chunk.mesh.geometry;
      if (!this.cutMarks.shade(geometry)) continue;
      const mesh = new THREE.Mesh(geometry, this.terrainShader);
      mesh.name = chunk.mesh.name;
      this.batches.set(key, mesh);
    }
  }

  // The navmesh overlay from decodeTriangles: a faint fill by level a little above the ground, with translucent
  // outlines, so the ground shows through. "Above": 6 cm along each vertex's normal (its triangles' summed, by
  // their winding, which faces the navmesh's up: +y on flat ground, out of the wall or down from the ceiling of a
  // navmesh baked in a turned region; the positions are world positions either way).
  setNavmesh({ n, m, positions, indices, values }) {
    this.clearGroup(this.navmesh);
    const corners = new Float32Array(9 * m), colours = new Float32Array(9 * m);
    const colour = new THREE.Color();
    const normals = new Float32Array(3 * n), first = new THREE.Vector3(), side = new THREE.Vector3();
    const other = new THREE.Vector3(), normal = new THREE.Vector3();
    for (let t = 0; t < m; t++) {
      first.fromArray(positions, 3 * indices[3 * t]);
      side.fromArray(positions, 3 * indices[3 * t + 1]).sub(first);
      other.fromArray(positions, 3 * indices[3 * t + 2]).sub(first);
      side.cross(other); // along the triangle's normal, twice its area long
      for (let k = 0; k < 3; k++) {
        for (let i = 0; i < 3; i++) normals[3 * indices[3 * t + k] + i] += side.getComponent(i);
      }
    }
    for (let t = 0; t < m; t++) {
      colour.setHex(LEVEL_COLOURS[values[t] % LEVEL_COLOURS.length], THREE.SRGBColorSpace);
      for (let c = 0; c < 3; c++) {
        const v = indices[3 * t + c];
        normal.fromArray(normals, 3 * v);
        if (normal.lengthSq() > 0) normal.normalize().multiplyScalar(0.06); else normal.set(0, 0.06, 0);
        corners.set([positions[3 * v] + normal.x, positions[3 * v + 1] + normal.y, positions[3 * v + 2] + normal.z],
          9 * t + 3 * c);
        colours.set([colour.r, colour.g, colour.b], 9 * t + 3 * c);
      }
    }
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute("position", new THREE.BufferAttribute(corners, 3));
    geometry.setAttribute("color", new THREE.BufferAttribute(colours, 3));
    const fill = new THREE.Mesh(geometry, new THREE.MeshBasicMaterial({
      vertexColors: true, transparent: true, opacity: 0.3, side: THREE.DoubleSide, depthWrite: false,
      polygonOffset: true, polygonOffsetFactor: -2, polygonOffsetUnits: -4,
    }));
    const edges = new THREE.LineSegments(new THREE.WireframeGeometry(geometry),
      new THREE.LineBasicMaterial({ color: 0x2ad4ff, transparent: true, opacity: 0.8, depthWrite: false }));
    this.navmesh.add(fill, edges);
  }

  // The collision overlay from decodeTriangles: the triangles the player collides with, as a wireframe.
  setCollision({ positions, indices }) {
    this.clearGroup(this.collision);
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
    geometry.setIndex(new THREE.BufferAttribute(indices, 1));
    this.collision.add(new THREE.LineSegments(new THREE.WireframeGeometry(geometry),
      new THREE.LineBasicMaterial({ color: 0xff00ff })));
  }

  resize() {
    this.setResolution(this.resolution);
  }
}
