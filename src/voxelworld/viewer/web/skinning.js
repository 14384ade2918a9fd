// The characters' skins on the CPU, and their lighter copies (actors.js draws them).
//
// Skinning: a character's skinned mesh is not drawn; a plain mesh ("skin") with its own positions and normals is,
// written every time the pose changes by skinOnCpu: each vertex moved by its (up to four) bones' matrices
// blended by its weights, the way three's skinning shader does it (bone matrix times the bind matrix), into
// world space. Under software WebGL (SwiftShader) three's shader skinning, four bone-texture lookups a vertex,
// cost more than the whole skin's blend here; with a graphics card it makes no visible difference.
//
// Light: the skin's vertices are lit on the CPU too (lightSkin: three's Lambert sum of the hemisphere and the sun,
// per vertex) and drawn unlit with those colours: a skin is a small part of the picture, and three's per-pixel
// Lambert light with its shadow lookup cost a tenth of the picture under SwiftShader.
//
// Level of detail: lighterGeometry simplifies a skinned geometry with meshoptimizer to LIGHT_SHARE of its
// triangles, within LIGHT_ERROR of the model's size; a kept vertex keeps every attribute, skin weights included,
// so the copy follows the same skeleton. The farthest copy (FAR_SHARE, FAR_ERROR) may also collapse edges across
// the texture's seams ("Permissive": without it the CesiumMan stops at about 590 of its 4 672 triangles, its seams
// kept whole): it is drawn where the character stands a few dozen pixels tall, and 140 triangles keep its shape
// within about 2.5 cm.

import * as THREE from "./vendor/three.module.js";
import { MeshoptSimplifier } from "./vendor/meshopt_simplifier.js";

export const LIGHT_SHARE = 0.2, LIGHT_ERROR = 0.01; // the lighter copy: its share of triangles, its error bound
export const FAR_SHARE = 0.03, FAR_ERROR = 0.05; // the farthest copy's

// ``geometry`` with its triangles simplified to about ``share`` of them (positions only decide; within ``error`` of
// the model's size; ``flags``: meshoptimizer's) and the vertices no triangle uses dropped.
// MeshoptSimplifier.ready must have resolved.
export function lighterGeometry(geometry, share = LIGHT_SHARE, error = LIGHT_ERROR, flags = []) {
  const position = geometry.attributes.position;
  const positions = new Float32Array(3 * position.count);
  for (let v = 0; v < position.count; v++) positions.set([position.getX(v), position.getY(v), position.getZ(v)], 3 * v);
  const indices = geometry.index ? Uint32Array.from(geometry.index.array) : Uint32Array.from(positions.keys()).slice(0, position.count);
  const target = 3 * Math.floor(share * indices.length / 3);
  const [kept] = MeshoptSimplifier.simplify(indices, positions, 3, target, error, flags);
  const remap = new Int32Array(position.count).fill(-1);
  let used = 0;
  const compact = new Uint32Array(kept.length);
  for (let i = 0; i < kept.length; i++) {
    if (remap[kept[i]] < 0) remap[kept[i]] = used++;
    compact[i] = remap[kept[i]];
  }
  const lighter = new THREE.BufferGeometry();
  for (const [name, attribute] of Object.entries(geometry.attributes)) {
    const size = attribute.itemSize;
    const values = new attribute.array.constructor(used * size);
    for (let v = 0; v < position.count; v++) {
      if (remap[v] < 0) continue;
      for (let c = 0; c < size; c++) values[remap[v] * size + c] = attribute.getComponent(v, c);
    }
    lighter.setAttribute(name, new THREE.BufferAttribute(values, size, attribute.normalized));
  }
  lighter.setIndex(new THREE.BufferAttribute(compact, 1));
  return lighter;
}

// What skinOnCpu reads of a skinned geometry, as plain arrays: its bind-pose positions and normals (3 a vertex),
// its four bone indices and weights a vertex (weights as numbers, whatever the file stored).
export function skinData(geometry) {
  const { position, normal, skinIndex, skinWeight } = geometry.attributes;
  const count = position.count;
  const data = { count, positions: new Float32Array(3 * count), normals: new Float32Array(3 * count),
    bones: new Uint16Array(4 * count), weights: new Float32Array(4 * count) };
  for (let v = 0; v < count; v++) {
    for (let c = 0; c < 3; c++) {
      data.positions[3 * v + c] = position.getComponent(v, c);
      data.normals[3 * v + c] = normal.getComponent(v, c);
    }
    for (let k = 0; k < 4; k++) {
      data.bones[4 * v + k] = skinIndex.getComponent(v, k);
      data.weights[4 * v + k] = skinWeight.getComponent(v, k);
    }
  }
  return data;
}

// The geometry a skin is drawn with: its own positions and normals (written by skinOnCpu), the uv and the
// triangles of ``geometry``.
export function skinGeometry(geometry) {
  const count = geometry.attributes.position.count;
  const skin = new THREE.BufferGeometry();
  skin.setAttribute("position", new THREE.BufferAttribute(new Float32Array(3 * count), 3).setUsage(THREE.DynamicDrawUsage));
  skin.setAttribute("normal", new THREE.BufferAttribute(new Float32Array(3 * count), 3).setUsage(THREE.DynamicDrawUsage));
  skin.setAttribute("color", new THREE.BufferAttribute(new Float32Array(3 * count), 3).setUsage(THREE.DynamicDrawUsage));
  if (geometry.attributes.uv) skin.setAttribute("uv", geometry.attributes.uv);
  skin.setIndex(geometry.index);
  return skin;
}

const boneMatrix = new THREE.Matrix4();

// Pose ``data`` (skinData of the geometry ``mesh`` was bound with) by ``mesh``'s skeleton as its bones' world
// matrices stand now, into ``target``'s positions and normals (world space; normals not normalised: the
// material's shader does it). ``blend``: a Float32Array of 16 per bone, reused between calls.
export function skinOnCpu(mesh, data, target, blend) {
  const skeleton = mesh.skeleton;
  skeleton.update(); // boneMatrices: each bone's world matrix times its inverse bind matrix
  const bones = skeleton.bones.length;
  for (let b = 0; b < bones; b++) {
    boneMatrix.fromArray(skeleton.boneMatrices, 16 * b).multiply(mesh.bindMatrix).toArray(blend, 16 * b);
  }
  const positions = target.attributes.position.array, normals = target.attributes.normal.array;
  const { count, bones: index, weights } = data, p = data.positions, n = data.normals;
  for (let v = 0; v < count; v++) {
    const x = p[3 * v], y = p[3 * v + 1], z = p[3 * v + 2];
    const nx = n[3 * v], ny = n[3 * v + 1], nz = n[3 * v + 2];
    let px = 0, py = 0, pz = 0, qx = 0, qy = 0, qz = 0;
    for (let k = 0; k < 4; k++) {
      const w = weights[4 * v + k];
      if (w === 0) continue;
      const m = 16 * index[4 * v + k]; // column-major
      px += w * (blend[m] * x + blend[m + 4] * y + blend[m + 8] * z + blend[m + 12]);
      py += w * (blend[m + 1] * x + blend[m + 5] * y + blend[m + 9] * z + blend[m + 13]);
      pz += w * (blend[m + 2] * x + blend[m + 6] * y + blend[m + 10] * z + blend[m + 14]);
      qx += w * (blend[m] * nx + blend[m + 4] * ny + blend[m + 8] * nz);
      qy += w * (blend[m + 1] * nx + blend[m + 5] * ny + blend[m + 9] * nz);
      qz += w * (blend[m + 2] * nx + blend[m + 6] * ny + blend[m + 10] * nz);
    }
    positions[3 * v] = px; positions[3 * v + 1] = py; positions[3 * v + 2] = pz;
    normals[3 * v] = qx; normals[3 * v + 1] = qy; normals[3 * v + 2] = qz;
  }
  target.attributes.position.needsUpdate = true;
  target.attributes.normal.needsUpdate = true;
}

// The light three.js's Lambert material gives a surface of normal n (linear colours, before the surface's own):
// the hemisphere's sky to ground by n's height, and the sun by its angle, each divided by pi (Lambert's BRDF).
export function vertexLight({ sky, ground, hemisphere, sun, sunIntensity }, sunDirection) {
  const skyColour = new THREE.Color(sky), groundColour = new THREE.Color(ground), sunColour = new THREE.Color(sun);
  const d = sunDirection.clone().normalize();
  return { sky: skyColour.multiplyScalar(hemisphere / Math.PI), ground: groundColour.multiplyScalar(hemisphere / Math.PI),
    sun: sunColour.multiplyScalar(sunIntensity / Math.PI), direction: d };
}

// ``target``'s vertex colours from its normals (as skinOnCpu wrote them) under ``light`` (vertexLight).
export function lightSkin(target, light) {
  const normals = target.attributes.normal.array, colours = target.attributes.color.array;
  const { sky, ground, sun, direction } = light;
  for (let v = 0; v < normals.length; v += 3) {
    const x = normals[v], y = normals[v + 1], z = normals[v + 2];
    const inverse = 1 / (Math.hypot(x, y, z) || 1);
    const up = 0.5 * y * inverse + 0.5;
    const facing = Math.max((x * direction.x + y * direction.y + z * direction.z) * inverse, 0);
    colours[v] = ground.r + (sky.r - ground.r) * up + sun.r * facing;
    colours[v + 1] = ground.g + (sky.g - ground.g) * up + sun.g * facing;
    colours[v + 2] = ground.b + (sky.b - ground.b) * up + sun.b * facing;
  }
  target.attributes.color.needsUpdate = true;
}
