// The terrain's chunk meshes, drawn in few draw calls. A world seen to 500 m holds some 5 000 chunk meshes, and
// under SwiftShader every draw call costs the page time on both sides (three.js's work per object on the page's
// thread, the GPU process's per draw; docs/benchmarks.md): so the chunks of a region (REGION x REGION x REGION
// chunks) are drawn as one batch mesh, their geometries merged into one BufferGeometry (one draw call, culled
// against the view by its own bounds).
//
// A region's batch is built again once the region has been quiet for QUIET_MS: a chunk mesh that arrives (new,
// edited, re-levelled) is drawn on its own ("loose") until then, so that digging or a burst of level changes
// rebuilds a batch once, not with every message. The triangles a changed or removed chunk had in its batch are
// hidden at once (their indices made degenerate, a small upload), so that its old and new meshes never both show.
// Batches are built in the picture's flush (at most BUILD_BUDGET_MS of them a picture, one at least).
//
// A region whose batch's bounds are FAR_SHADING metres or more from the camera is drawn as its batch, with the far
// terrain's material (shaders.js: table colours lit per vertex, no texture); a nearer region is drawn chunk by
// chunk with the terrain's (each chunk culled against the view on its own: a near batch of 64 chunks mostly lies
// beside or behind the camera, and SwiftShader pays for every triangle it is handed, seen or not).
// Far batches are also drawn simplified (FAR_LEVELS: from each distance on, a copy of the batch's triangles
// simplified by meshoptimizer to within an error in metres about a pixel there, on the same vertices; the region's
// open borders kept, so that neighbours still meet): the far levels of detail of a rough world keep far more
// triangles than a far pixel shows, and under SwiftShader the page pays for every one. The copies are made when
// first needed (SIMPLIFY_BUDGET_MS a picture) and dropped with the batch; a batch with a hidden chunk draws its full
// triangles until it is built again.
//
// Within a near region each chunk is drawn by its own distance too (NEAR_LEVELS): a copy of its triangles simplified
// to within an error that grows with the distance as the far levels' do (0.0025 of it, and of NEAR_GROUND within
// that: about half a pixel at the dynamic resolution's floor), its chunk borders kept and what its vertices show (colour, glow,
// occlusion) counted in the error (so that a patch of soil in the grass keeps its outline); and from where a pixel
// covers TEXELS_PER_PIXEL texels (about 29 m at the dynamic resolution's floor) with the far material, all of a
// region's far-material chunks in one draw call (its "joined" mesh: their copies' triangles on the region's batched
// vertices, gathered again when one of them changes level or comes into or leaves the view: under SwiftShader a
// draw call costs the GPU process about 35 µs, and a near region held dozens of small ones; with the sun's shadow
// map, every one of them also in a second joined mesh drawn into the map only, SHADOW_LAYER). Most of the
// near terrain's triangles lie 30-200 m from the camera, and under SwiftShader the near material costs every one of
// them its set-up (14 values passed to the pixels on plain ground) and every pixel a texture lookup
// (docs/benchmarks.md). A near chunk's copies are made when first needed (in the same SIMPLIFY_BUDGET_MS) and
// dropped when its region is drawn as its batch again or the chunk changes.
//
// A loose chunk is drawn with the far material too from textureDistance on (while the world streams in, or the player
// runs, dozens are loose at any time, most of them far). The meshes drawn with the near material are drawn first
// (NEAR_FIRST: three.js sorts opaque meshes by material before distance, and the near chunks' materials came last):
// the near ground hides much of the far terrain, the things and the actors behind it, and under SwiftShader a pixel
// that fails the depth test before its shader runs costs almost nothing.
//
// Every chunk keeps its own mesh on the CPU (meshes(): what the follow camera casts rays against, cheaply culled
// chunk by chunk); a batched chunk's mesh is not drawn and holds no GPU buffers.

import * as THREE from "./vendor/three.module.js";
import { MeshoptSimplifier } from "./vendor/meshopt_simplifier.js";

export const REGION = 4; // chunks per side of a region (64 chunks: one draw call)
export const QUIET_MS = 1000; // a region is batched again this long after its last chunk message
export const BUILD_BUDGET_MS = 8; // batches built per picture: until this much time went (one at least)
export const FAR_SHADING = 100; // m from the camera to a batch's bounding sphere: drawn with the far material
// From ``distance`` m (camera to a batch's bounding sphere) on, a batch is drawn simplified to within ``error`` m
// (about 0.7 of a pixel there at 0.45 of 720 pixels over the camera's 70 degrees).
export const FAR_LEVELS = [{ distance: FAR_SHADING, error: 0.25 }, { distance: 200, error: 0.5 },
  { distance: 350, error: 0.9 }];
// The same for the chunks of a near region, each by its own distance (its bounding sphere's); error 0.0025 of the
// distance, as the far levels, and of NEAR_GROUND m within it: the nearest ground a camera sees lies about that far
// (the follow camera's height above it; the first person's eye 1.6 m above its feet sees the ground from about 3 m on
// in front of it, 1.5 pixels' error at the floor of low quality), so that the chunks round the player, which hold the
// most triangles of any (1 000-3 300 each on the 1 km world's grass, 16 000 of the 35 000 a picture within 20 m),
// are drawn simplified too (a tenth to a half of their triangles go: the voxel-scale bumps of the ground).
export const NEAR_GROUND = 4;
export const NEAR_LEVELS = [0, 6, 12, 20, 30, 50, 70, FAR_SHADING, 200].map((distance) => ({ distance,
  error: 0.0025 * Math.max(distance, NEAR_GROUND) }));
// A near chunk is drawn with the far material from textureDistance(...) m on: where a pixel covers TEXELS_PER_PIXEL
// texels (``texel`` m each) for a camera of ``fov`` degrees (vertical) drawing ``height`` pixels. There the nearest
// mipmap is the fourth (8 texels in one), and a texture's pattern no finer than a pixel's grain; the far material
// draws the texture's mean. TEXTURE_DISTANCE until the page knows its textures.
export const TEXELS_PER_PIXEL = 8, TEXTURE_DISTANCE = 50;
export function textureDistance(fov, height, texel) {
  const pixel = 2 * Math.tan(THREE.MathUtils.degToRad(fov) / 2) / height; // m a pixel covers per m of distance
  return TEXELS_PER_PIXEL * texel / pixel;
}
// Every level's error is detailFor(height) times as large for a picture ``height`` pixels tall (the canvas's drawn
// height; scene.js setResolution: setDetail), at either quality: the levels' errors are about half a pixel (near) to
// 0.7 (far) at LEVELS_HEIGHT pixels (0.45 of 720: the dynamic resolution's floor in a 720-pixel window), and a copy is
// drawn within about 1.7 of the picture's own pixels (DETAIL times the levels' error there), whatever share of the
// window's pixels it draws: under SwiftShader a picture's cost follows its triangles far more than its pixels (a
// picture at 0.3 of the width and height took as long as at 0.45), and the terrain's are most of them; a page that
// draws every pixel has the time for more. In steps of DETAIL_STEP (a change of resolution makes the copies again only
// when it crosses a step: 3 at the floor, 2 from about 0.6 of 720 pixels, 1.33 from about 0.9), never finer than the
// levels themselves. Measured on the 1 km world (docs/benchmarks.md, an eighth, a twentieth and a twenty-first
// session): 2 and 3 at low drew 31 200 and 26 300 terrain triangles, the pictures 0.07 % of pixels apart; at default,
// 3 instead of 2 at the floor 17.9 / 16.3 frames a second instead of 15.7 / 15.3 (streaming in / later).
export const LEVELS_HEIGHT = 324, DETAIL = 3, DETAIL_STEP = 1.5;
export function detailFor(height) {
  const steps = Math.round(Math.log(height / LEVELS_HEIGHT) / Math.log(DETAIL_STEP));
  return Math.max(1, DETAIL / DETAIL_STEP ** steps);
}
export const SIMPLIFY_BUDGET_MS = 6; // simplified copies made per picture: until this much time went
export const NEAR_FIRST = -1; // renderOrder of a mesh drawn with the near material (the others': 0)
export const SHADOW_LAYER = 1; // the three.js layer of the meshes drawn into the sun's shadow map only (scene.js)
let simplifierReady = false;
MeshoptSimplifier.ready.then(() => { simplifierReady = true; }, () => {}); // without it: full triangles

// A geometry on the vertices of ``full`` (its attributes shared) with its triangles simplified to within ``error``
// metres, its open borders kept; with ``shown`` (shownAttributes), what each vertex shows counts in the error too
// (so that a patch of soil in the grass keeps its outline). The error is kept in its userData (setDetail).
export function simplifiedGeometry(full, error, shown = null) {
  const flags = ["LockBorder", "ErrorAbsolute"], index = full.index.array, positions = full.attributes.position.array;
  const [indices] = shown
    ? MeshoptSimplifier.simplifyWithAttributes(index, positions, 3, shown, SHOWN_WEIGHTS.length, SHOWN_WEIGHTS, null,
      0, error, flags)
    : MeshoptSimplifier.simplify(index, positions, 3, 0, error, flags);
  const geometry = new THREE.BufferGeometry();
  for (const name of ATTRIBUTES) geometry.setAttribute(name, full.attributes[name]);
  geometry.setIndex(new THREE.BufferAttribute(indices, 1));
  geometry.boundingSphere = full.boundingSphere;
  geometry.userData.error = error;
  return geometry;
}
// What a vertex of ``geometry`` shows, for the simplifier to keep (SHOWN_WEIGHTS): its table colour (palette_a and
// palette_b mixed by its blend: red, green, blue 0..1), its glow (surface's emission, 0..1), its occlusion and its
// share left by the enemies' cuts (cut, 0..1: cut_marks.js; 1 without); SHOWN_WEIGHTS.length values a vertex.
export const SHOWN_WEIGHTS = [2, 2, 2, 2, 1, 2]; // a weighted difference of 1 counts as 1 m of error
export function shownAttributes(geometry) {
  const { palette_a: a, palette_b: b, blend, surface, occlusion, cut } = geometry.attributes;
  const n = a.count, shown = new Float32Array(SHOWN_WEIGHTS.length * n);
  for (let v = 0; v < n; v++) {
    const t = Math.min(Math.max(blend.array[v], 0), 1), at = SHOWN_WEIGHTS.length * v;
    for (let c = 0; c < 3; c++) shown[at + c] = (a.array[3 * v + c] * (1 - t) + b.array[3 * v + c] * t) / 255;
    shown[at + 3] = surface.array[3 * v + 2] / 255;
    shown[at + 4] = occlusion.array[v];
    shown[at + 5] = cut ? cut.array[v] / 255 : 1;
  }
  return shown;
}

// The level of ``levels`` (each from its ``distance`` on) at ``distance`` metres (less than 0: within the bounds,
// counted as 0): the last one reached, or -1.
export function levelAt(levels, distance) {
  let level = -1;
  levels.forEach((l, n) => { if (Math.max(distance, 0) >= l.distance) level = n; });
  return level;
}

// The vertex attributes of a chunk mesh (scene.js setChunk, shaders.js materialAttributes), merged into batches.
export const ATTRIBUTES = ["position", "normal", "mat_a", "mat_b", "blend", "occlusion", "layers", "palette_a",
  "palette_b", "surface", "cut"];

// The region "i,j,k" of the chunk "i,j,k".
export function regionOf(chunkKey) {
  return chunkKey.split(",").map((c) => Math.floor(Number(c) / REGION)).join(",");
}

// One geometry of ``geometries`` (indexed, with ATTRIBUTES) and each one's [first index, index count, first vertex]
// in it.
export function mergeGeometries(geometries) {
  let vertices = 0, indices = 0;
  for (const g of geometries) {
    vertices += g.attributes.position.count;
    indices += g.index.count;
  }
  const merged = new THREE.BufferGeometry();
  for (const name of ATTRIBUTES) {
    const first = geometries[0].attributes[name];
    const array = new first.array.constructor(vertices * first.itemSize);
    let offset = 0;
    for (const g of geometries) {
      array.set(g.attributes[name].array, offset);
      offset += g.attributes[name].array.length;
    }
    merged.setAttribute(name, new THREE.BufferAttribute(array, first.itemSize, first.normalized));
  }
  const index = new Uint32Array(indices), ranges = [];
  let at = 0, base = 0;
  for (const g of geometries) {
    const source = g.index.array;
    for (let n = 0; n < source.length; n++) index[at + n] = source[n] + base;
    ranges.push([at, source.length, base]);
    at += source.length;
    base += g.attributes.position.count;
  }
  merged.setIndex(new THREE.BufferAttribute(index, 1));
  merged.computeBoundingSphere();
  return { geometry: merged, ranges };
}

export class TerrainBatches {
  // ``group``: where the batches and loose chunk meshes are drawn; ``material(geometry)``: the terrain's material
  // for a chunk's geometry, ``farMaterial``: the far batches'.
  constructor(group, material, farMaterial) {
    this.group = group;
    this.material = material;
    this.farMaterial = farMaterial;
    // chunk key -> { mesh, region, triangles, range: [first index, count, first vertex] in its batch, or null: loose;
    // drawn: the mesh drawn for it while its region is near (its own, or one of its copies, NEAR_LEVELS), or null;
    // joined: whether its triangles are in its near region's joined mesh instead; copies }
    this.chunks = new Map();
    this.regions = new Map(); // region key -> { key, keys: Set of chunk keys, batch: Mesh or null, changed: ms, stale }
    this.loose = new Set(); // keys of the chunks drawn on their own until their region's batch is built again
    this.triangles = 0;
    this.builds = 0; // batches built so far (tests, benchmarks)
    this.pickable = null; // meshes(), until a chunk changes
    this.textureDistance = TEXTURE_DISTANCE; // m: near chunks from there on drawn with the far material
    this.detail = 1; // every level's error times this (setDetail)
    // The far material without the sun's shadow, for meshes wholly outside the shadow map's square (scene.js sets
    // both: outsideShadow(sphere)); none: the far material everywhere.
    this.farOutside = null;
    this.outsideShadow = () => false;
  }

  // The far material for a mesh within ``sphere``: without the shadow lookup where no shadow can fall on it.
  farFor(sphere) {
    return this.farOutside && this.outsideShadow(sphere) ? this.farOutside : this.farMaterial;
  }

  // Every level's error ``detail`` times FAR_LEVELS' and NEAR_LEVELS' (1: as they are). The copies made with another
  // detail are drawn until they are made again (in the pictures' SIMPLIFY_BUDGET_MS): no picture draws full
  // triangles meanwhile.
  setDetail(detail) {
    this.detail = detail;
  }

  get size() { return this.chunks.size; }

  // The chunk ``key``'s new mesh (a Mesh of an indexed geometry with ATTRIBUTES, or null: the chunk has none any
  // more), received at ``now`` (ms).
  set(key, mesh, now = performance.now()) {
    this.pickable = null;
    const regionKey = regionOf(key);
    let region = this.regions.get(regionKey);
    if (!region) {
      region = { key: regionKey, keys: new Set(), batch: null, full: null, simplified: [], simplifiable: false,
        unbatched: false, joined: null, shadowJoined: null, changed: now, stale: false };
      this.regions.set(regionKey, region);
    }
    const old = this.chunks.get(key);
    if (old) {
      if (old.range) this.hide(region, old.range);
      this.group.remove(old.mesh); // loose, or drawn chunk by chunk
      this.dropCopies(old);
      old.mesh.geometry.dispose();
      this.chunks.delete(key);
      this.loose.delete(key);
      region.keys.delete(key);
      this.triangles -= old.triangles;
    }
    if (mesh) {
      mesh.material = this.material(mesh.geometry);
      mesh.renderOrder = NEAR_FIRST;
      mesh.castShadow = mesh.receiveShadow = true;
      const triangles = mesh.geometry.index.count / 3;
      this.chunks.set(key, { mesh, region: regionKey, triangles, range: null, drawn: null, joined: false,
        copies: null });
      this.loose.add(key);
      region.keys.add(key);
      this.group.add(mesh);
      this.triangles += triangles;
    }
    region.changed = now;
    region.stale = true;
  }

  // A batched chunk's triangles no longer drawn: their indices all one vertex (degenerate, not rasterised).
  hide(region, [first, count]) {
    region.simplifiable = false; // its simplified copies still hold the chunk: drawn no more until built again
    region.batch.geometry = region.full;
    const index = region.full.index;
    index.array.fill(index.array[first], first, first + count);
    index.addUpdateRange(first, count);
    index.needsUpdate = true;
  }

  // Build the batches of the regions quiet for QUIET_MS at ``now``, for at most BUILD_BUDGET_MS (one at least);
  // ``quiet`` overrides QUIET_MS (0: every stale region, now).
  flush(now = performance.now(), quiet = QUIET_MS) {
    const start = performance.now();
    for (const region of this.regions.values()) {
      if (!region.stale || now - region.changed < quiet) continue;
      this.build(region);
      if (quiet > 0 && performance.now() - start > BUILD_BUDGET_MS) break;
    }
  }

  // The region's batch again, from every chunk mesh it holds now (its loose chunks join it).
  build(region) {
    region.stale = false;
    if (region.batch) this.dropBatch(region);
    const members = [...region.keys].map((key) => this.chunks.get(key));
    if (!members.length) {
      this.regions.delete(region.key);
      return;
    }
    const { geometry, ranges } = mergeGeometries(members.map((c) => c.mesh.geometry));
    for (const key of region.keys) this.loose.delete(key);
    members.forEach((chunk, n) => {
      this.group.remove(chunk.mesh);
      chunk.mesh.material = this.material(chunk.mesh.geometry); // drawn loose with the far one, perhaps
      chunk.mesh.renderOrder = NEAR_FIRST;
      this.show(chunk, null);
      if (!region.unbatched) chunk.mesh.geometry.dispose(); // its GPU buffers (its arrays stay, for rays)
      chunk.range = ranges[n];
    });
    region.unbatched = false; // shade() draws it chunk by chunk again when it is near
    const batch = new THREE.Mesh(geometry, this.farMaterial);
    batch.castShadow = batch.receiveShadow = true;
    batch.name = `region ${region.key}`;
    batch.userData.region = region.key;
    region.batch = batch;
    region.full = geometry;
    region.simplified = FAR_LEVELS.map(() => null);
    region.simplifiable = true;
    this.group.add(batch);
    this.builds++;
  }

  dropBatch(region) {
    this.dropJoined(region);
    this.group.remove(region.batch);
    for (const geometry of [region.full, ...region.simplified]) geometry?.dispose();
    region.batch = region.full = null;
    region.simplified = [];
  }

  // Draw ``mesh`` for a batched chunk of a near region (its own or a copy; null: none, its batch draws it).
  show(chunk, mesh) {
    if (chunk.drawn === mesh) return;
    if (chunk.drawn) this.group.remove(chunk.drawn);
    if (mesh) this.group.add(mesh);
    chunk.drawn = mesh;
  }

  // A chunk's simplified copies, no longer drawn, dropped.
  dropCopies(chunk) {
    this.show(chunk, null);
    for (const copy of chunk.copies ?? []) copy?.geometry.dispose();
    chunk.copies = null;
  }

  // A batched chunk of a near region, for a camera ``distance`` m from its bounding sphere (within textureDistance):
  // its own mesh or the simplified copy of its NEAR_LEVELS, with the terrain's material.
  shadeChunk(chunk, distance, making) {
    const mesh = this.levelMesh(chunk, distance, making);
    if (mesh !== chunk.mesh) mesh.material = chunk.mesh.material;
    mesh.renderOrder = NEAR_FIRST;
    chunk.joined = false;
    this.show(chunk, mesh);
  }

  // A batched chunk's mesh for a camera ``distance`` m from its bounding sphere: its own or the simplified copy of its
  // NEAR_LEVELS (made now when ``making``; until it is, a nearer one).
  levelMesh(chunk, distance, making) {
    const level = levelAt(NEAR_LEVELS, distance);
    let mesh = chunk.mesh;
    if (level >= 0 && simplifierReady) {
      chunk.copies ??= NEAR_LEVELS.map(() => null);
      const error = NEAR_LEVELS[level].error * this.detail, old = chunk.copies[level];
      if (old?.geometry.userData.error !== error && making) {
        const full = chunk.mesh.geometry;
        chunk.shown ??= shownAttributes(full);
        const copy = new THREE.Mesh(simplifiedGeometry(full, error, chunk.shown));
        copy.castShadow = copy.receiveShadow = true;
        copy.name = chunk.mesh.name;
        chunk.copies[level] = copy;
        old?.geometry.dispose(); // made with another detail (setDetail): drawn until now
      }
      for (let n = level; n >= 0; n--) {
        if (chunk.copies[n]) {
          mesh = chunk.copies[n];
          break;
        }
      }
    }
    return mesh;
  }

  // A near region's far-material chunks drawn as one mesh, region[slot] ("joined": by the camera; "shadowJoined": on
  // SHADOW_LAYER, into the sun's shadow map only): ``parts``, each [index array, first vertex], on the vertices of
  // its batch (none: nothing drawn). Gathered again only when the parts differ from the last ones.
  join(region, slot, parts) {
    let mesh = region[slot];
    const last = mesh?.userData.parts;
    if (last && last.length === parts.length && parts.every((part, n) => part[0] === last[n][0])) return;
    let count = 0;
    for (const [index] of parts) count += index.length;
    if (mesh && mesh.geometry.index.count < count) mesh = this.dropJoinedMesh(region, slot); // too small
    if (!mesh) {
      if (!count) return;
      const geometry = new THREE.BufferGeometry();
      for (const name of ATTRIBUTES) geometry.setAttribute(name, region.full.attributes[name]);
      geometry.setIndex(new THREE.BufferAttribute(new Uint32Array(Math.ceil(count * 1.5)), 1));
      geometry.boundingSphere = region.full.boundingSphere;
      mesh = region[slot] = new THREE.Mesh(geometry, this.farMaterial);
      const shadowOnly = slot === "shadowJoined";
      mesh.castShadow = shadowOnly;
      mesh.receiveShadow = !shadowOnly;
      if (shadowOnly) mesh.layers.set(SHADOW_LAYER);
      mesh.name = `region ${region.key} ${shadowOnly ? "shadow" : "near"}`;
      this.group.add(mesh);
    }
    mesh.userData.parts = parts;
    const index = mesh.geometry.index, target = index.array;
    let at = 0;
    for (const [source, base] of parts) {
      for (let n = 0; n < source.length; n++) target[at + n] = source[n] + base;
      at += source.length;
    }
    index.clearUpdateRanges();
    index.addUpdateRange(0, at);
    index.needsUpdate = true;
    mesh.geometry.setDrawRange(0, at);
    mesh.visible = at > 0;
  }

  // region[slot]'s joined mesh dropped (its buffers: the batch's vertices are uploaded again when next drawn); null.
  dropJoinedMesh(region, slot) {
    if (region[slot]) {
      this.group.remove(region[slot]);
      region[slot].geometry.dispose();
    }
    region[slot] = null;
    return null;
  }

  // A region's joined meshes dropped: its chunks drawn on their own or in its batch again.
  dropJoined(region) {
    this.dropJoinedMesh(region, "joined");
    this.dropJoinedMesh(region, "shadowJoined");
    for (const key of region.keys) {
      const chunk = this.chunks.get(key);
      if (chunk) chunk.joined = false;
    }
  }

  // Every chunk's mesh, batched or not (for ray casts: their matrices are the identity, like the group's).
  meshes() {
    if (!this.pickable) this.pickable = [...this.chunks.values()].map((c) => c.mesh);
    return this.pickable;
  }

  // Each chunk's geometry was changed in place (its material attributes, scene.js repaint): every batch again.
  // Their simplified copies go too (made again when next needed): they hold the attributes the chunk had then.
  changedAll() {
    for (const chunk of this.chunks.values()) {
      this.dropCopies(chunk);
      chunk.shown = null;
    }
    for (const region of this.regions.values()) {
      region.stale = true;
      region.changed = -Infinity;
    }
  }

  setMaterial(material, farMaterial, farOutside = this.farOutside) {
    this.material = material;
    this.farMaterial = farMaterial;
    this.farOutside = farOutside;
    for (const chunk of this.chunks.values()) chunk.mesh.material = material(chunk.mesh.geometry);
    for (const region of this.regions.values()) if (region.batch) region.batch.material = farMaterial;
  }

  // Each batch's material and triangles for a camera at ``position`` (a Vector3): the far material from
  // FAR_SHADING metres on, the simplified copy of its FAR_LEVELS (or of a nearer level while it is not made yet);
  // nearer, its chunks each by its own distance: within textureDistance drawn one by one (shadeChunk), beyond it in
  // the region's joined mesh (join), of those only the ones in ``frustum`` when one is given (a Frustum); with
  // ``shadowed`` (the sun's shadow map drawn) every one of them also in its shadow-only joined mesh (the map is drawn
  // from the sun, and seldom: it needs what the camera does not see too). Simplified copies are made until ``budget``
  // ms went.
  shade(position, frustum = null, shadowed = false, budget = SIMPLIFY_BUDGET_MS) {
    const start = performance.now();
    for (const key of this.loose) {
      const mesh = this.chunks.get(key).mesh, sphere = mesh.geometry.boundingSphere;
      const far = sphere.center.distanceTo(position) - sphere.radius >= this.textureDistance;
      mesh.material = far ? this.farFor(sphere) : this.material(mesh.geometry);
      mesh.renderOrder = far ? 0 : NEAR_FIRST;
    }
    for (const region of this.regions.values()) {
      const batch = region.batch;
      if (!batch) continue;
      const sphere = region.full.boundingSphere, distance = sphere.center.distanceTo(position) - sphere.radius;
      batch.material = this.farFor(sphere);
      const near = distance < FAR_SHADING;
      if (near !== region.unbatched) {
        region.unbatched = near;
        batch.visible = !near;
        if (!near) this.dropJoined(region);
        for (const key of region.keys) {
          const chunk = this.chunks.get(key);
          if (near || !chunk.range) continue;
          this.dropCopies(chunk);
          chunk.mesh.geometry.dispose(); // its GPU buffers, which its copies shared (its arrays stay, for rays)
        }
      }
      if (near) {
        const parts = [], every = [];
        for (const key of region.keys) {
          const chunk = this.chunks.get(key);
          if (!chunk.range) continue; // loose: drawn as it came
          const own = chunk.mesh.geometry.boundingSphere, distance = own.center.distanceTo(position) - own.radius;
          const making = performance.now() - start < budget;
          if (distance < this.textureDistance) {
            this.shadeChunk(chunk, distance, making);
            continue;
          }
          this.show(chunk, null);
          chunk.joined = true;
          const seen = !frustum || frustum.intersectsSphere(own);
          if (!seen && !shadowed) continue;
          const part = [this.levelMesh(chunk, distance, making).geometry.index.array, chunk.range[2]];
          if (seen) parts.push(part);
          if (shadowed) every.push(part);
        }
        this.join(region, "joined", parts);
        if (shadowed) this.join(region, "shadowJoined", every);
        else this.dropJoinedMesh(region, "shadowJoined");
        for (const mesh of [region.joined, region.shadowJoined]) if (mesh) mesh.material = this.farFor(sphere);
        continue;
      }
      const level = levelAt(FAR_LEVELS, distance);
      let geometry = region.full;
      if (level >= 0 && region.simplifiable && simplifierReady) {
        const error = FAR_LEVELS[level].error * this.detail, old = region.simplified[level];
        if (old?.userData.error !== error && performance.now() - start < budget) {
          region.simplified[level] = simplifiedGeometry(region.full, error);
          old?.dispose(); // made with another detail (setDetail): drawn until now
        }
        for (let n = level; n >= 0; n--) {
          if (region.simplified[n]) {
            geometry = region.simplified[n];
            break;
          }
        }
      }
      batch.geometry = geometry;
    }
  }

  clear() {
    for (const chunk of this.chunks.values()) {
      this.group.remove(chunk.mesh);
      this.dropCopies(chunk);
      chunk.mesh.geometry.dispose();
    }
    for (const region of this.regions.values()) if (region.batch) this.dropBatch(region);
    this.chunks.clear();
    this.loose.clear();
    this.regions.clear();
    this.triangles = 0;
    this.pickable = null;
  }

  // What is drawn, for tests: per region its batched and loose chunk keys; how many batches and loose meshes
  // there are; each chunk's triangles.
  describe() {
    const regions = {};
    let batches = 0, loose = 0;
    for (const region of this.regions.values()) {
      const batched = [], free = [];
      for (const key of region.keys) (this.chunks.get(key).range ? batched : free).push(key);
      loose += free.length;
      if (region.batch) batches++;
      regions[region.key] = { batched: batched.sort(), loose: free.sort(), stale: region.stale };
    }
    const chunks = Object.fromEntries([...this.chunks].map(([key, c]) => [key, c.triangles]));
    return { batches, loose, chunks, builds: this.builds, regions, detail: this.detail };
  }

  // The triangles drawn for a region (its batch's at full detail, not hidden, or its chunks' one by one when it is
  // near; and its loose chunks'), and those of its chunks' latest meshes, each sorted (as text: 9 coordinates), for tests: the two agree when the batching is right.
  compare(regionKey) {
    const region = this.regions.get(regionKey);
    const text = (triangles) => triangles.map((t) => t.map((x) => x.toFixed(3)).join(" ")).sort();
    if (!region) return { drawn: [], latest: [] };
    const drawn = region.batch && !region.unbatched ? drawnTriangles(region.full) : [], latest = [];
    for (const key of region.keys) {
      const chunk = this.chunks.get(key), own = drawnTriangles(chunk.mesh.geometry);
      latest.push(...own);
      // its own, a copy of it, or in its region's joined mesh
      if (chunk.mesh.parent === this.group || chunk.drawn || chunk.joined) drawn.push(...own);
    }
    return { drawn: text(drawn), latest: text(latest) };
  }
}

// The triangles a geometry draws (not degenerate), each as its 9 corner coordinates.
export function drawnTriangles(geometry) {
  const index = geometry.index.array, p = geometry.attributes.position.array, found = [];
  for (let t = 0; t < index.length; t += 3) {
    const a = index[t], b = index[t + 1], c = index[t + 2];
    if (a === b && b === c) continue;
    found.push([a, b, c].flatMap((v) => [p[3 * v], p[3 * v + 1], p[3 * v + 2]]));
  }
  return found;
}
