// Things on the ground of a generated world: trees, pines, bushes, rocks and props, as the server sends them
// (docs/specs/play-protocol.md: "thing_kinds" once after hello, "things" per chunk column). Each kind is drawn as
// three meshes (one draw call each, Batch: its shape copied once a thing, placed by the vertex shader), its levels
// of detail by distance from the camera:
//
// - near (within LEVELS[quality].near m): the kind's full low-poly mesh (a few hundred triangles at most);
// - mid (out to LEVELS[quality].mid m): a simplified mesh (a few dozen);
// - far (out to where the kind covers about FAR_PIXELS pixels, and at most the view's fog): an impostor, a flat
//   silhouette of a few triangles turned to face the camera about the vertical in the vertex shader (no texture,
//   no alpha test: under SwiftShader every texture lookup and discarded pixel costs).
//
// Every geometry is made here in code (vertex colours, flat faces). All three are lit per vertex with the far
// terrain's light (shaders.js: the sky/ground hemisphere and fill light, the sun's angle; no shadow lookup) and
// fogged as the terrain: one colour passes from vertex to pixel. A fallen thing (state 1) lies along its yaw
// (its top towards (cos yaw, 0, -sin yaw): its local x turned by the yaw, as game/ground_things.py lays its
// obstacle), drawn with the near or mid mesh at any distance (a standing silhouette would show it upright).
// A column's empty list removes its things.
//
// Which instances each mesh draws is chosen on the CPU (update()): only when the camera moved or turned by more
// than REBUILD_M / REBUILD_DEGREES since the last choice, or the things changed; instances outside the view
// (widened by MARGIN_DEGREES, so that turning a little needs no new choice) are left out, whole columns first.

import * as THREE from "./vendor/three.module.js";
import { mergeVertices } from "./vendor/jsm/utils/BufferGeometryUtils.js";

// Levels of detail by quality, metres from the camera to a thing's base: full mesh within ``near``, simplified
// within ``mid``, impostors beyond (fallen things: the simplified mesh).
export const LEVELS = { default: { near: 40, mid: 110 }, low: { near: 28, mid: 80 } };
export const FAR_PIXELS = 3; // a kind is drawn out to where its height covers about this many pixels (720 high)
const PIXEL_PER_RADIAN = 720 / THREE.MathUtils.degToRad(70); // the page's camera: 70 degrees over 720 pixels
export const REBUILD_M = 1.5, REBUILD_DEGREES = 5, MARGIN_DEGREES = 12, MARGIN_M = 2.5;
export const STANDING = 0, FALLEN = 1; // a thing's state
const LEVEL_NAMES = ["near", "mid", "far"];

// ------------------------------------------------------------------------------------------------ geometry
// Colours: sRGB values, lit directly as the terrain's.
const BARK = [0.36, 0.26, 0.17], LEAVES = [0.24, 0.42, 0.16], LEAVES_LIGHT = [0.32, 0.5, 0.2];
const NEEDLES = [0.13, 0.3, 0.17], BUSH = [0.27, 0.44, 0.19], STONE = [0.5, 0.49, 0.46];
const WOOD = [0.58, 0.42, 0.24], IRON = [0.24, 0.23, 0.23], BARREL = [0.46, 0.29, 0.16];

// A deterministic 0..1 from a position (the rocks' lumps: coincident corners move together).
function hashOf(x, y, z) {
  const s = Math.sin(x * 12.9898 + y * 78.233 + z * 37.719) * 43758.5453;
  return s - Math.floor(s);
}

// One part's geometry, not indexed (each triangle its own corners: flat faces), with its colour ("shade").
function part(geometry, colour, { x = 0, y = 0, z = 0, sx = 1, sy = 1, sz = 1, lumps = 0, dark = 0 } = {}) {
  let g = geometry.index ? geometry.toNonIndexed() : geometry;
  if (g !== geometry) geometry.dispose();
  const p = g.attributes.position;
  for (let v = 0; v < p.count; v++) {
    let px = p.getX(v), py = p.getY(v), pz = p.getZ(v);
    if (lumps) {
      const k = 1 + lumps * (hashOf(px, py, pz) - 0.5);
      px *= k; py *= k; pz *= k;
    }
    p.setXYZ(v, px * sx + x, py * sy + y, pz * sz + z);
  }
  g.deleteAttribute("uv");
  g.deleteAttribute("normal");
  g.computeVertexNormals(); // flat: every corner its triangle's normal
  const shade = new Float32Array(3 * p.count);
  g.computeBoundingBox();
  const { min, max } = g.boundingBox;
  for (let v = 0; v < p.count; v++) {
    // ``dark``: the part's underside that much darker (a crown's shade under itself)
    const t = max.y > min.y ? (p.getY(v) - min.y) / (max.y - min.y) : 1;
    const k = 1 - dark * (1 - t);
    shade.set([colour[0] * k, colour[1] * k, colour[2] * k], 3 * v);
  }
  g.setAttribute("shade", new THREE.BufferAttribute(shade, 3));
  return g;
}

// Parts merged into one geometry (position, normal, shade).
function merged(parts) {
  const names = ["position", "normal", "shade"];
  const total = parts.reduce((sum, g) => sum + g.attributes.position.count, 0);
  const out = new THREE.BufferGeometry();
  for (const name of names) {
    const array = new Float32Array(3 * total);
    let at = 0;
    for (const g of parts) {
      array.set(g.attributes[name].array, at);
      at += g.attributes[name].array.length;
    }
    out.setAttribute(name, new THREE.BufferAttribute(array, 3));
  }
  for (const g of parts) g.dispose();
  out.computeBoundingSphere();
  return out;
}

const cylinder = (r0, r1, y0, y1, segments, colour, caps = false) =>
  part(new THREE.CylinderGeometry(r1, r0, y1 - y0, segments, 1, !caps), colour, { y: (y0 + y1) / 2 });
const cone = (r, y0, y1, segments, colour) =>
  part(new THREE.ConeGeometry(r, y1 - y0, segments, 1, false), colour, { y: (y0 + y1) / 2, dark: 0.35 });
const blob = (x, y, z, r, detail, colour, squash = 1, lumps = 0.25) =>
  part(new THREE.IcosahedronGeometry(1, detail), colour, { x, y, z, sx: r, sy: r * squash, sz: r, lumps, dark: 0.3 });
const box = (sx, sy, sz, y, colour) => part(new THREE.BoxGeometry(sx, sy, sz), colour, { y });

// A flat silhouette for an impostor: triangles in the billboard's plane (x right, y up, metres), each corner's
// normal in the billboard's frame (z towards the camera) so that its light rounds it; merged like the meshes.
function silhouette(triangles) {
  const n = 3 * triangles.length;
  const position = new Float32Array(3 * n), normal = new Float32Array(3 * n), shade = new Float32Array(3 * n);
  triangles.forEach((corners, t) => corners.forEach(([x, y, nx, ny, nz, colour], c) => {
    const v = 3 * t + c, length = Math.hypot(nx, ny, nz);
    position.set([x, y, 0], 3 * v);
    normal.set([nx / length, ny / length, nz / length], 3 * v);
    shade.set(colour, 3 * v);
  }));
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.BufferAttribute(position, 3));
  g.setAttribute("normal", new THREE.BufferAttribute(normal, 3));
  g.setAttribute("shade", new THREE.BufferAttribute(shade, 3));
  g.computeBoundingSphere();
  return g;
}

// A rounded disc of ``segments`` triangles (a crown, a bush, a rock seen from afar), darker below.
function disc(cx, cy, rx, ry, segments, colour) {
  const triangles = [], below = colour.map((c) => c * 0.72);
  for (let s = 0; s < segments; s++) {
    const a0 = (2 * Math.PI * s) / segments, a1 = (2 * Math.PI * (s + 1)) / segments;
    const rim = (a) => [cx + rx * Math.cos(a), cy + ry * Math.sin(a), Math.cos(a), Math.sin(a), 0.6,
      Math.sin(a) < 0 ? below : colour];
    triangles.push([[cx, cy, 0, 0.3, 1, colour], rim(a0), rim(a1)]);
  }
  return triangles;
}

function quad(x0, x1, y0, y1, colour) {
  const c = (x, y) => [x, y, 0, 0, 1, colour];
  return [[c(x0, y0), c(x1, y0), c(x1, y1)], [c(x0, y0), c(x1, y1), c(x0, y1)]];
}

function triangle(half, y0, y1, colour) {
  const below = colour.map((c) => c * 0.7);
  return [[[-half, y0, -0.6, -0.2, 1, below], [half, y0, 0.6, -0.2, 1, below], [0, y1, 0, 0.8, 1, colour]]];
}

// Each kind's three geometries ({near, mid, far}) for its ``radius`` and ``height`` (m, from thing_kinds); a
// kind's shape chosen by its name (a name the page does not know: a crate of its size).
export const SHAPES = {
  tree(r, h) { // broadleaf: a trunk to half its height, a crown of blobs
    const c = 0.32 * h; // the crown's radius
    const trunk = Math.max(r, 0.08);
    return {
      near: merged([cylinder(trunk * 1.25, trunk * 0.7, -0.4, 0.62 * h, 7, BARK),
        blob(0, h - c * 1.05, 0, c, 1, LEAVES), blob(0.55 * c, h - c * 1.45, 0.3 * c, 0.72 * c, 1, LEAVES_LIGHT),
        blob(-0.5 * c, h - c * 1.35, -0.35 * c, 0.75 * c, 1, LEAVES)]),
      mid: merged([cylinder(trunk * 1.25, trunk * 0.7, -0.4, 0.62 * h, 4, BARK), blob(0, h - c * 1.1, 0, c * 1.1, 0,
        LEAVES, 0.95, 0.15)]),
      far: silhouette([...quad(-trunk, trunk, -0.4, 0.5 * h, BARK), ...disc(0, h - c * 1.1, c * 1.1, c, 8, LEAVES)]),
      lies: trunk, // a fallen one lies this far above the ground (its trunk's radius)
    };
  },
  pine(r, h) { // a trunk under three cones of needles
    const trunk = Math.max(r, 0.08), w = 0.24 * h;
    return {
      near: merged([cylinder(trunk * 1.2, trunk * 0.5, -0.4, 0.9 * h, 6, BARK), cone(w, 0.18 * h, 0.55 * h, 8, NEEDLES),
        cone(0.78 * w, 0.4 * h, 0.8 * h, 8, NEEDLES), cone(0.52 * w, 0.64 * h, h, 7, NEEDLES)]),
      mid: merged([cylinder(trunk * 1.2, trunk * 0.5, -0.4, 0.3 * h, 3, BARK), cone(w, 0.18 * h, 0.65 * h, 5, NEEDLES),
        cone(0.62 * w, 0.5 * h, h, 5, NEEDLES)]),
      far: silhouette([...quad(-trunk, trunk, -0.4, 0.25 * h, BARK), ...triangle(w, 0.18 * h, 0.7 * h, NEEDLES),
        ...triangle(0.65 * w, 0.5 * h, h, NEEDLES)]),
      lies: trunk,
    };
  },
  bush(r, h) { // a few blobs of leaves on the ground
    const b = Math.max(r, 0.2);
    return {
      near: merged([blob(0, 0.5 * h, 0, b, 1, BUSH, (0.6 * h) / b),
        blob(0.5 * b, 0.35 * h, 0.25 * b, 0.7 * b, 1, LEAVES_LIGHT, (0.5 * h) / (0.7 * b)),
        blob(-0.45 * b, 0.35 * h, -0.3 * b, 0.65 * b, 0, BUSH, (0.5 * h) / (0.65 * b))]),
      mid: merged([blob(0, 0.45 * h, 0, 1.1 * b, 0, BUSH, (0.55 * h) / (1.1 * b), 0.1)]),
      far: silhouette(disc(0, 0.45 * h, 1.1 * b, 0.55 * h, 6, BUSH)),
      lies: 0,
    };
  },
  rock(r, h) { // a lumpy stone, a fifth of it buried
    const b = Math.max(r, 0.2);
    return {
      near: merged([blob(0, 0.3 * h, 0, b, 1, STONE, (0.6 * h) / b, 0.35)]),
      mid: merged([blob(0, 0.3 * h, 0, b, 0, STONE, (0.6 * h) / b, 0.25)]),
      far: silhouette(disc(0, 0.35 * h, b, 0.55 * h, 5, STONE)),
      lies: 0,
    };
  },
  barrel(r, h) { // staves with two iron hoops
    const b = Math.max(r, 0.15);
    return {
      near: merged([cylinder(b * 0.9, b * 0.9, -0.05, 0.2 * h, 10, BARREL), cylinder(b, b, 0.2 * h, 0.28 * h, 10, IRON),
        cylinder(b, b, 0.28 * h, 0.72 * h, 10, BARREL), cylinder(b, b, 0.72 * h, 0.8 * h, 10, IRON),
        cylinder(b * 0.9, b * 0.9, 0.8 * h, h, 10, BARREL, true)]),
      mid: merged([cylinder(b, b, -0.05, h, 5, BARREL, true)]),
      far: silhouette(quad(-b, b, -0.05, h, BARREL)),
      lies: b,
    };
  },
  crate(r, h) { // a wooden box with darker edges
    const b = Math.max(r, 0.15) * 1.4;
    return {
      near: merged([box(b, h, b, h / 2, WOOD), box(b * 1.04, 0.12 * h, b * 1.04, 0.06 * h, BARK),
        box(b * 1.04, 0.12 * h, b * 1.04, 0.94 * h, BARK)]),
      mid: merged([box(b, h, b, h / 2, WOOD)]),
      far: silhouette(quad(-b / 2, b / 2, 0, h, WOOD)),
      lies: 0,
    };
  },
  marker(r, h) { // a standing stone
    const b = Math.max(r, 0.15);
    return {
      near: merged([box(b * 1.4, h + 0.3, b * 0.6, (h - 0.3) / 2, STONE), box(b * 1.6, 0.2, b * 0.8, 0.05, STONE)]),
      mid: merged([box(b * 1.4, h + 0.3, b * 0.6, (h - 0.3) / 2, STONE)]),
      far: silhouette(quad(-0.7 * b, 0.7 * b, 0, h, STONE)),
      lies: 0.3 * b,
    };
  },
};

// The shape a kind's name draws: its own, or one whose name it contains ("oak_tree": tree), else a crate.
export function shapeOf(name) {
  const known = Object.keys(SHAPES);
  const lower = String(name).toLowerCase();
  if (known.includes(lower)) return lower;
  const found = known.find((k) => lower.includes(k)) ?? (/stone|menhir/.test(lower) ? "marker"
    : /prop|box/.test(lower) ? "crate" : /fir|spruce|conifer/.test(lower) ? "pine" : /shrub/.test(lower) ? "bush"
      : /boulder/.test(lower) ? "rock" : null);
  return found ?? "crate";
}

// -------------------------------------------------------------------------------------------------- shaders
const LIGHT = /* glsl */ `
uniform vec3 skyColour;
uniform vec3 groundColour;
uniform vec3 sunColour;
uniform vec3 sunDirection;
uniform vec3 fillColour;
uniform vec3 fillDirection;
uniform vec3 fogColour;
#ifdef USE_FOG
uniform float fogNear;
uniform float fogFar;
#endif
attribute vec3 shade;
varying vec3 vColour;
// The far terrain's light (shaders.js): hemisphere and fill, the sun's angle; a little variation by instance
// (the base's place) so that a wood is not one green; then the fog.
void light(vec3 n, vec3 base, vec4 mvPosition) {
  float vary = 0.88 + 0.24 * fract(sin(dot(base.xz, vec2(12.9898, 78.233))) * 43758.5453);
  vec3 ambient = mix(groundColour, skyColour, 0.5 * n.y + 0.5) + fillColour * max(dot(n, fillDirection), 0.0);
  vec3 colour = shade * vary * (ambient + sunColour * max(dot(n, sunDirection), 0.0));
  #ifdef USE_FOG
    colour = mix(colour, fogColour, smoothstep(fogNear, fogFar, -mvPosition.z));
  #endif
  vColour = colour;
}
`;

// Each thing's place reaches its vertices as attributes (batches below): ``place`` (x, y, z of its base in metres,
// its scale) and ``turn`` (its yaw in radians; 1 when it lies fallen, else 0).
const MESH_VERTEX = /* glsl */ `
${LIGHT}
attribute vec4 place;
attribute vec2 turn;
// Fallen: turned -90 degrees about z first (its up to +x); then the yaw about +y, as three's rotation.y.
vec3 turned(vec3 p) {
  p = turn.y > 0.5 ? vec3(p.y, -p.x, p.z) : p;
  float c = cos(turn.x), s = sin(turn.x);
  return vec3(c * p.x + s * p.z, p.y, -s * p.x + c * p.z);
}
void main() {
  vec4 world = modelMatrix * vec4(place.xyz + turned(position) * place.w, 1.0);
  vec3 n = normalize(mat3(modelMatrix) * turned(normal));
  vec4 mvPosition = viewMatrix * world;
  gl_Position = projectionMatrix * mvPosition;
  light(n, place.xyz, mvPosition);
}
`;

// An impostor: the silhouette's plane turned about the vertical through the thing's base to face the camera.
const IMPOSTOR_VERTEX = /* glsl */ `
${LIGHT}
attribute vec4 place;
void main() {
  vec3 base = (modelMatrix * vec4(place.xyz, 1.0)).xyz;
  vec3 towards = cameraPosition - base;
  towards.y = 0.0;
  towards = normalize(towards + vec3(1e-4, 0.0, 0.0));
  vec3 right = vec3(towards.z, 0.0, -towards.x);
  vec3 world = base + (right * position.x + vec3(0.0, position.y, 0.0)) * place.w;
  vec3 n = normalize(right * normal.x + vec3(0.0, normal.y, 0.0) + towards * normal.z);
  vec4 mvPosition = viewMatrix * vec4(world, 1.0);
  gl_Position = projectionMatrix * mvPosition;
  light(n, base, mvPosition);
}
`;

const FRAGMENT = /* glsl */ `
varying vec3 vColour;
void main() { gl_FragColor = vec4(vColour, 1.0); }
`;

// The things' two materials (meshes, impostors) on the terrain's light uniforms (shaders.js terrainUniforms).
function thingMaterial(uniforms, impostor) {
  const names = ["skyColour", "groundColour", "sunColour", "sunDirection", "fillColour", "fillDirection", "fogColour"];
  const material = new THREE.ShaderMaterial({
    uniforms: { ...THREE.UniformsUtils.clone(THREE.UniformsLib.fog),
      ...Object.fromEntries(names.map((k) => [k, uniforms[k]])) },
    vertexShader: impostor ? IMPOSTOR_VERTEX : MESH_VERTEX,
    fragmentShader: FRAGMENT,
    fog: true,
    side: impostor ? THREE.DoubleSide : THREE.FrontSide,
  });
  material.name = impostor ? "thing impostors" : "things";
  return material;
}

// ------------------------------------------------------------------------------------------------- batches
// One kind's level of detail as one mesh (one draw call): its shape copied for as many things as it may draw, each
// copy's vertices carrying that thing's place (vertex shaders above). Not three's InstancedMesh: under SwiftShader
// an instanced draw costs about 20 microseconds an instance however small the instance (800 far impostors of one
// triangle each took 15 ms a picture; measured with benchmarks/page_things.py's world), while these copies cost
// their vertices only. A choice of things writes their places (4 + 2 numbers a vertex) and draws the first copies.
class Batch {
  constructor(template, material, name) {
    this.template = mergeVertices(template); // indexed: shared corners shaded once
    template.dispose();
    this.vertices = this.template.attributes.position.count;
    this.indices = this.template.index.count;
    this.capacity = 0;
    this.count = 0;
    this.mesh = new THREE.Mesh(new THREE.BufferGeometry(), material);
    this.mesh.name = name;
    this.mesh.frustumCulled = false; // Things.choose culls thing by thing
    this.mesh.renderOrder = -1; // before the terrain: the ground they hide is not shaded (its pixels cost more)
    this.mesh.visible = false;
  }

  get triangles() { return this.indices / 3; }

  // Room for ``wanted`` things (twice that when it grows).
  reserve(wanted) {
    if (wanted <= this.capacity) return;
    const capacity = Math.max(16, 2 * wanted), v = this.vertices, t = this.template;
    const geometry = new THREE.BufferGeometry();
    for (const name of ["position", "normal", "shade"]) {
      const one = t.attributes[name].array, all = new Float32Array(one.length * capacity);
      for (let c = 0; c < capacity; c++) all.set(one, c * one.length);
      geometry.setAttribute(name, new THREE.BufferAttribute(all, 3));
    }
    const one = t.index.array, index = new Uint32Array(one.length * capacity);
    for (let c = 0; c < capacity; c++) for (let i = 0; i < one.length; i++) index[c * one.length + i] = one[i] + c * v;
    geometry.setIndex(new THREE.BufferAttribute(index, 1));
    const place = new THREE.BufferAttribute(new Float32Array(4 * v * capacity), 4);
    const turn = new THREE.BufferAttribute(new Float32Array(2 * v * capacity), 2);
    place.setUsage(THREE.DynamicDrawUsage);
    turn.setUsage(THREE.DynamicDrawUsage);
    geometry.setAttribute("place", place);
    geometry.setAttribute("turn", turn);
    this.mesh.geometry.dispose();
    this.mesh.geometry = geometry;
    this.capacity = capacity;
  }

  // The ``slot``th copy's place: base (x, y, z) m, scale, yaw radians, fallen 0 or 1.
  put(slot, x, y, z, scale, yaw, fallen) {
    const place = this.mesh.geometry.attributes.place.array, turn = this.mesh.geometry.attributes.turn.array;
    for (let i = slot * this.vertices, end = i + this.vertices; i < end; i++) {
      place[4 * i] = x; place[4 * i + 1] = y; place[4 * i + 2] = z; place[4 * i + 3] = scale;
      turn[2 * i] = yaw; turn[2 * i + 1] = fallen;
    }
  }

  // Draw the first ``count`` copies (their places written since the last choice).
  finish(count) {
    this.count = count;
    this.mesh.visible = count > 0;
    if (!count) return;
    const g = this.mesh.geometry;
    g.setDrawRange(0, count * this.indices);
    for (const [name, size] of [["place", 4], ["turn", 2]]) {
      g.attributes[name].clearUpdateRanges();
      g.attributes[name].addUpdateRange(0, size * count * this.vertices);
      g.attributes[name].needsUpdate = true;
    }
  }

  dispose() {
    this.mesh.geometry.dispose();
    this.template.dispose();
  }
}

// ------------------------------------------------------------------------------------------------ the things
const UP = new THREE.Vector3(0, 1, 0), Z_AXIS = new THREE.Vector3(0, 0, 1);
const scratch = { q: new THREE.Quaternion(), q2: new THREE.Quaternion(), m: new THREE.Matrix4(),
  p: new THREE.Vector3(), s: new THREE.Vector3(), frustum: new THREE.Frustum(), pv: new THREE.Matrix4(),
  forward: new THREE.Vector3() };

export class Things {
  // ``group``: where the meshes go; ``uniforms``: the terrain's (shaders.js terrainUniforms), shared.
  constructor(group, uniforms) {
    this.group = group;
    this.materials = { mesh: thingMaterial(uniforms, false), impostor: thingMaterial(uniforms, true) };
    this.kinds = []; // per kind index: { name, shape, radius, height, lies, batches: [near, mid, far], reach }
    this.columns = new Map(); // "i,j,k" -> { count, kind, fallen, place, matrix, sphere, bounds }
    this.count = 0; // things held
    this.held = []; // of them per kind
    this.chosen = []; // per kind and level: [column, index] of each thing drawn (tests: instances())
    this.quality = "default";
    this.viewDistance = Infinity; // m: nothing drawn farther (the fog's far end)
    this.dirty = true;
    this.chosenAt = null; // { position, forward } of the camera when the things drawn were last chosen
    this.rebuilds = 0;
    this.chooseMs = null; // ms the last choice of things took (update())
    this.shown = true; // whether they are drawn at all (show(): benchmarks compare the page without them)
  }

  // Draw the things or not (not drawn: none chosen either).
  show(on) {
    this.shown = Boolean(on);
    this.group.visible = this.shown;
    this.dirty = true;
  }

  // A new world: no kinds, no things.
  reset(viewDistance = Infinity) {
    this.setKinds([]);
    this.viewDistance = viewDistance;
  }

  setQuality(quality) {
    if (this.quality === quality) return;
    this.quality = LEVELS[quality] ? quality : "default";
    this.dirty = true;
  }

  // The "thing_kinds" message's kinds ([{name, radius, height}, ...]): every thing held is dropped (its indices
  // name the old kinds).
  setKinds(kinds) {
    for (const kind of this.kinds) {
      for (const batch of kind.batches) {
        this.group.remove(batch.mesh);
        batch.dispose();
      }
    }
    this.columns.clear();
    this.count = 0;
    this.held = kinds.map(() => 0);
    this.chosen = kinds.map(() => [[], [], []]);
    this.kinds = kinds.map((k) => {
      const radius = Number(k.radius) > 0 ? Number(k.radius) : 0.3;
      const height = Number(k.height) > 0 ? Number(k.height) : 1;
      const shape = shapeOf(k.name);
      const { lies, ...geometries } = SHAPES[shape](radius, height);
      const batches = LEVEL_NAMES.map((level) => new Batch(geometries[level],
        level === "far" ? this.materials.impostor : this.materials.mesh, `${k.name} ${level}`));
      for (const batch of batches) this.group.add(batch.mesh);
      // Out to where its height covers FAR_PIXELS pixels (trees: the whole view).
      const reach = (height * PIXEL_PER_RADIAN) / FAR_PIXELS;
      return { name: String(k.name), shape, radius, height, lies, batches, reach };
    });
    this.dirty = true;
  }

  // A "things" message: the things of the column of chunk ``chunk`` ([i, j, k]), each [kind, x, y, z, yaw degrees,
  // scale, state], replacing those it had; an empty list removes them. Things of unknown kinds are skipped.
  setColumn(chunk, things) {
    const key = chunk.join(",");
    const old = this.columns.get(key);
    if (old) {
      this.count -= old.count;
      for (const k of old.kind) this.held[k]--;
    }
    this.columns.delete(key);
    const valid = things.filter((t) => Number.isInteger(t[0]) && t[0] >= 0 && t[0] < this.kinds.length
      && t.slice(1, 6).every(Number.isFinite) && t[5] > 0);
    this.dirty = true;
    if (!valid.length) return;
    const n = valid.length;
    const column = { count: n, kind: new Uint16Array(n), fallen: new Uint8Array(n), place: new Float32Array(5 * n),
      matrix: new Float32Array(16 * n), sphere: new Float32Array(4 * n), bounds: null };
    const low = [Infinity, Infinity, Infinity], high = [-Infinity, -Infinity, -Infinity];
    valid.forEach(([kindIndex, x, y, z, yaw, scale, state], t) => {
      const kind = this.kinds[kindIndex], fallen = state === FALLEN, a = THREE.MathUtils.degToRad(yaw);
      const lift = fallen ? kind.lies * scale : 0; // a fallen trunk lies on the ground, not in it
      column.place.set([x, y + lift, z, scale, a], 5 * t);
      // the same as a matrix (what the vertex shader does; for tests)
      scratch.q.setFromAxisAngle(UP, a);
      if (fallen) scratch.q.multiply(scratch.q2.setFromAxisAngle(Z_AXIS, -Math.PI / 2)); // up to (cos a, 0, -sin a)
      scratch.m.compose(scratch.p.set(x, y + lift, z), scratch.q, scratch.s.setScalar(scale));
      scratch.m.toArray(column.matrix, 16 * t);
      column.kind[t] = kindIndex;
      column.fallen[t] = fallen ? 1 : 0;
      // the bounding sphere: the thing's middle, half its height (or its radius, when wider) around it
      const half = 0.5 * kind.height * scale, r = Math.max(half, kind.radius * scale * 3);
      const centre = fallen ? [x + Math.cos(a) * half, y, z - Math.sin(a) * half] : [x, y + half, z];
      column.sphere.set([...centre, r], 4 * t);
      for (let axis = 0; axis < 3; axis++) {
        low[axis] = Math.min(low[axis], centre[axis] - r);
        high[axis] = Math.max(high[axis], centre[axis] + r);
      }
    });
    const middle = low.map((l, a) => (l + high[a]) / 2);
    column.bounds = [...middle, Math.hypot(high[0] - low[0], high[1] - low[1], high[2] - low[2]) / 2];
    this.columns.set(key, column);
    this.count += n;
    for (const k of column.kind) this.held[k]++;
  }

  // Choose what each batch draws for ``camera`` (its matrices current), when the camera moved or turned enough or
  // the things changed.
  update(camera) {
    if (!this.kinds.length || !this.shown) return;
    camera.getWorldDirection(scratch.forward);
    const at = this.chosenAt;
    if (!this.dirty && at && at.position.distanceTo(camera.position) < REBUILD_M
        && at.forward.dot(scratch.forward) > Math.cos(THREE.MathUtils.degToRad(REBUILD_DEGREES))) return;
    this.chosenAt = { position: camera.position.clone(), forward: scratch.forward.clone() };
    this.dirty = false;
    this.rebuilds++;
    const start = performance.now();
    this.choose(camera);
    this.chooseMs = performance.now() - start;
  }

  choose(camera) {
    const { near, mid } = LEVELS[this.quality];
    const frustum = scratch.frustum.setFromProjectionMatrix(
      scratch.pv.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse));
    const margin = Math.tan(THREE.MathUtils.degToRad(MARGIN_DEGREES));
    const ex = camera.position.x, ey = camera.position.y, ez = camera.position.z;
    const kinds = this.kinds, counts = kinds.map(() => [0, 0, 0]);
    const reach = kinds.map((k) => Math.min(k.reach, this.viewDistance));
    const farthest = Math.max(...reach, mid);
    kinds.forEach((kind, k) => kind.batches.forEach((batch) => batch.reserve(this.held[k])));
    const batches = kinds.map((kind) => kind.batches);
    const chosen = kinds.map(() => [[], [], []]);
    // the view's planes, widened by MARGIN_M and MARGIN_DEGREES (so that moving or turning a little keeps the choice)
    const plane = new Float64Array(24);
    frustum.planes.forEach(({ normal, constant }, p) => plane.set([normal.x, normal.y, normal.z, constant], 4 * p));
    const outside = (x, y, z, r, d) => {
      const slack = -(r + MARGIN_M + d * margin);
      for (let p = 0; p < 24; p += 4) {
        if (plane[p] * x + plane[p + 1] * y + plane[p + 2] * z + plane[p + 3] < slack) return true;
      }
      return false;
    };
    for (const column of this.columns.values()) {
      const [bx, by, bz, br] = column.bounds;
      const bd = Math.sqrt((bx - ex) ** 2 + (by - ey) ** 2 + (bz - ez) ** 2);
      if (bd - br > farthest || outside(bx, by, bz, br, bd)) continue;
      const { kind, sphere, place, fallen } = column;
      for (let t = 0; t < column.count; t++) {
        const k = kind[t], x = sphere[4 * t], y = sphere[4 * t + 1], z = sphere[4 * t + 2];
        const d = Math.sqrt((x - ex) ** 2 + (y - ey) ** 2 + (z - ez) ** 2);
        if (d > reach[k] || outside(x, y, z, sphere[4 * t + 3], d)) continue;
        const level = d < near ? 0 : d < mid || fallen[t] ? 1 : 2;
        const p = 5 * t;
        batches[k][level].put(counts[k][level]++, place[p], place[p + 1], place[p + 2], place[p + 3], place[p + 4],
          fallen[t]);
        chosen[k][level].push(column, t);
      }
    }
    kinds.forEach((kind, k) => kind.batches.forEach((batch, level) => batch.finish(counts[k][level])));
    this.chosen = chosen;
  }

  // What is drawn, for tests and the benchmarks: per kind its things by level (and each level's triangles a
  // thing), and the things' triangles and draw calls.
  describe() {
    let triangles = 0, drawCalls = 0;
    const kinds = this.kinds.map((kind) => {
      const entry = { name: kind.name, shape: kind.shape };
      kind.batches.forEach((batch, level) => {
        const n = batch.mesh.visible ? batch.count : 0;
        entry[LEVEL_NAMES[level]] = n;
        entry[`${LEVEL_NAMES[level]}Triangles`] = batch.triangles;
        triangles += n * batch.triangles;
        if (n) drawCalls++;
      });
      return entry;
    });
    return { kinds, things: this.count, columns: this.columns.size, triangles, drawCalls, rebuilds: this.rebuilds,
      chooseMs: this.chooseMs };
  }

  // The matrices (16 numbers each, column-major: what the vertex shader does to each) of the things a kind's level
  // draws now, for tests.
  instances(kindIndex, level) {
    const pairs = this.chosen[kindIndex]?.[LEVEL_NAMES.indexOf(level)] ?? [], out = [];
    for (let i = 0; i < pairs.length; i += 2) {
      out.push(Array.from(pairs[i].matrix.subarray(16 * pairs[i + 1], 16 * pairs[i + 1] + 16)));
    }
    return out;
  }
}
