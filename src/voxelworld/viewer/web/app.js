// voxelworld play: the page. Connects to the server's websocket (/ws), draws what it streams (chunk meshes,
// the player, NPCs, the chainsaw enemy's skeleton, loose objects, the navmesh and collision overlays) and sends
// the player's input while this page plays. The protocol: docs/specs/play-protocol.md.
//
// window.voxelworld exposes counters and hooks for tests: stats (messages by kind, frames, errors), overlays,
// send(text), scene.

import * as THREE from "./vendor/three.module.js";
import { paletteTexture, terrainMaterial } from "./shaders.js";
import { Hud } from "./hud.js";

const KIND_CHUNK = 1, KIND_NAVMESH = 2, KIND_COLLISION = 3;
const LOOK_RATE = 90; // degrees a second for the arrow keys
const MOUSE_DEGREES = 0.15; // degrees per pixel
const LEVEL_COLOURS = [0x2ad4ff, 0xffa020, 0xff40c0, 0xfff040, 0x9060ff, 0xff5050]; // navmesh levels 0, 1, ...

// ------------------------------------------------------------------------------------------ the scene
const container = document.getElementById("view");
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
renderer.setSize(window.innerWidth, window.innerHeight);
container.appendChild(renderer.domElement);

const scene = new THREE.Scene();
scene.background = new THREE.Color(0x8fb8de);
const camera = new THREE.PerspectiveCamera(70, window.innerWidth / window.innerHeight, 0.05, 600);
scene.add(new THREE.HemisphereLight(0xdde8ff, 0x5a4a3a, 1.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.6);
sun.position.set(0.35, 1.0, 0.45);
scene.add(sun);

const terrain = new THREE.Group();
terrain.name = "terrain";
const actors = new THREE.Group();
actors.name = "actors";
const navmeshOverlay = new THREE.Group();
navmeshOverlay.name = "navmesh";
navmeshOverlay.visible = false;
const collisionOverlay = new THREE.Group();
collisionOverlay.name = "collision";
collisionOverlay.visible = false;
const props = new THREE.Group();
props.name = "props";
scene.add(terrain, props, actors, navmeshOverlay, collisionOverlay);

let terrainShader = terrainMaterial(paletteTexture([]));
const chunks = new Map(); // "i,j,k" -> Mesh
const chunkCounts = {}; // "i,j,k" -> chunk messages received for it
const hud = new Hud();

const stats = {
  connected: false, client: null, controlling: false, controller: null,
  messages: 0, bytes: 0, chunkMessages: 0, chunkRemovals: 0, chunks: 0, triangles: 0,
  navmeshMessages: 0, collisionMessages: 0, frames: 0, frame: -1, huds: 0, bullets: 0,
  errors: 0, lastError: null, saved: null, inputsSent: 0, stepMs: null,
};

// ----------------------------------------------------------------------------------------- the world
let world = null; // the hello message
let materialsById = new Map();
let latest = null; // the last frame message
let view = { yaw: 0, pitch: 0 }; // this page's view while it plays
let firstPerson = false;

function materialColour(name) {
  for (const m of materialsById.values()) if (m.name === name) return new THREE.Color().setRGB(...m.colour, THREE.SRGBColorSpace);
  return new THREE.Color(0x999999);
}

function clearGroup(group) {
  for (const child of [...group.children]) {
    group.remove(child);
    child.traverse((o) => {
      if (o.geometry) o.geometry.dispose();
      if (o.material && o.material !== terrainShader) o.material.dispose?.();
    });
  }
}

function onHello(hello) {
  world = hello;
  materialsById = new Map(hello.materials.map((m) => [m.id, m]));
  hud.setMaterials(hello.materials);
  terrainShader.dispose();
  terrainShader = terrainMaterial(paletteTexture(hello.materials));
  clearGroup(terrain);
  chunks.clear();
  clearGroup(props);
  clearGroup(actors);
  clearGroup(navmeshOverlay);
  clearGroup(collisionOverlay);
  actorMeshes.clear();
  stats.client = hello.client;
  view = { yaw: hello.player.yaw, pitch: hello.player.pitch };
  for (const prop of hello.props) {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute("position", new THREE.Float32BufferAttribute(prop.positions, 3));
    geometry.setIndex(prop.indices);
    geometry.computeVertexNormals();
    const mesh = new THREE.Mesh(geometry, new THREE.MeshLambertMaterial({ color: materialColour(prop.material), flatShading: true }));
    mesh.name = prop.name;
    props.add(mesh);
  }
  setControl(hello.control, hello.controller);
  if (overlays.navmesh || overlays.collision) sendOverlays();
}

// A chunk's display mesh (docs/specs/play-protocol.md, kind 1): header, then positions, normals, indices,
// mat_a, mat_b, padding, blend. Every array starts on a multiple of 4 bytes, so they are views, not copies.
function onChunk(buffer) {
  const header = new DataView(buffer);
  const i = header.getInt32(4, true), j = header.getInt32(8, true), k = header.getInt32(12, true);
  const n = header.getUint32(16, true), m = header.getUint32(20, true);
  const key = `${i},${j},${k}`;
  const old = chunks.get(key);
  if (old) {
    terrain.remove(old);
    old.geometry.dispose();
    chunks.delete(key);
    stats.triangles -= old.userData.triangles;
  }
  stats.chunkMessages++;
  chunkCounts[key] = (chunkCounts[key] || 0) + 1;
  if (m === 0) {
    stats.chunkRemovals++;
    stats.chunks = chunks.size;
    return;
  }
  let offset = 24;
  const positions = new Float32Array(buffer, offset, 3 * n); offset += 12 * n;
  const normals = new Float32Array(buffer, offset, 3 * n); offset += 12 * n;
  const indices = new Uint32Array(buffer, offset, 3 * m); offset += 12 * m;
  const matA = new Uint8Array(buffer, offset, n); offset += n;
  const matB = new Uint8Array(buffer, offset, n); offset += n;
  offset += (4 - (offset % 4)) % 4;
  const blend = new Float32Array(buffer, offset, n);
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
  geometry.setAttribute("normal", new THREE.BufferAttribute(normals, 3));
  geometry.setAttribute("mat_a", new THREE.BufferAttribute(matA, 1));
  geometry.setAttribute("mat_b", new THREE.BufferAttribute(matB, 1));
  geometry.setAttribute("blend", new THREE.BufferAttribute(blend, 1));
  geometry.setIndex(new THREE.BufferAttribute(indices, 1));
  geometry.computeBoundingSphere();
  const mesh = new THREE.Mesh(geometry, terrainShader);
  mesh.name = `chunk ${key}`;
  mesh.userData.triangles = m;
  terrain.add(mesh);
  chunks.set(key, mesh);
  stats.chunks = chunks.size;
  stats.triangles += m;
}

function readTriangles(buffer) {
  const header = new DataView(buffer);
  const revision = header.getUint32(4, true), n = header.getUint32(8, true), m = header.getUint32(12, true);
  let offset = 16;
  const positions = new Float32Array(buffer, offset, 3 * n); offset += 12 * n;
  const indices = new Uint32Array(buffer, offset, 3 * m); offset += 12 * m;
  const values = new Uint8Array(buffer, offset, m);
  return { revision, n, m, positions, indices, values };
}

// The navmesh (kind 2): triangles filled by level, a little above the ground, with their edges.
function onNavmesh(buffer) {
  const { m, positions, indices, values } = readTriangles(buffer);
  clearGroup(navmeshOverlay);
  stats.navmeshMessages++;
  const corners = new Float32Array(9 * m), colours = new Float32Array(9 * m);
  const colour = new THREE.Color();
  for (let t = 0; t < m; t++) {
    colour.setHex(LEVEL_COLOURS[values[t] % LEVEL_COLOURS.length], THREE.SRGBColorSpace);
    for (let c = 0; c < 3; c++) {
      const v = indices[3 * t + c];
      corners.set([positions[3 * v], positions[3 * v + 1] + 0.06, positions[3 * v + 2]], 9 * t + 3 * c);
      colours.set([colour.r, colour.g, colour.b], 9 * t + 3 * c);
    }
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(corners, 3));
  geometry.setAttribute("color", new THREE.BufferAttribute(colours, 3));
  const fill = new THREE.Mesh(geometry, new THREE.MeshBasicMaterial({
    vertexColors: true, transparent: true, opacity: 0.6, side: THREE.DoubleSide, depthWrite: false,
    polygonOffset: true, polygonOffsetFactor: -2, polygonOffsetUnits: -4,
  }));
  const edges = new THREE.LineSegments(new THREE.WireframeGeometry(geometry),
    new THREE.LineBasicMaterial({ color: 0x10304a, transparent: true, opacity: 0.6 }));
  navmeshOverlay.add(fill, edges);
}

// The collision mesh (kind 3): the triangles the player collides with, as a wireframe.
function onCollision(buffer) {
  const { positions, indices } = readTriangles(buffer);
  clearGroup(collisionOverlay);
  stats.collisionMessages++;
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
  geometry.setIndex(new THREE.BufferAttribute(indices, 1));
  collisionOverlay.add(new THREE.LineSegments(new THREE.WireframeGeometry(geometry),
    new THREE.LineBasicMaterial({ color: 0xff00ff })));
}

// ---------------------------------------------------------------------------------------------- actors
const actorMeshes = new Map(); // name -> Object3D
const capsuleMaterials = {
  player: new THREE.MeshLambertMaterial({ color: 0xf2c94c }),
  npc: new THREE.MeshLambertMaterial({ color: 0x4f8fe0 }),
  enemy: new THREE.MeshLambertMaterial({ color: 0x9b2d2d }),
};

function capsule(radius, height, material) {
  const body = new THREE.Mesh(new THREE.CapsuleGeometry(radius, Math.max(height - 2 * radius, 0.01), 4, 12), material);
  body.position.y = height / 2;
  const group = new THREE.Group();
  group.add(body);
  const nose = new THREE.Mesh(new THREE.BoxGeometry(0.12, 0.12, 0.3), new THREE.MeshLambertMaterial({ color: 0x222222 }));
  nose.position.set(0, height * 0.85, -radius);
  group.add(nose);
  return group;
}

function actor(name, make) {
  let object = actorMeshes.get(name);
  if (!object) {
    object = make();
    object.name = name;
    actors.add(object);
    actorMeshes.set(name, object);
  }
  object.userData.seen = true;
  return object;
}

const v3 = (a) => new THREE.Vector3(a[0], a[1], a[2]);
const UP = new THREE.Vector3(0, 1, 0);

// A bone: a thin box from one joint to the next.
function placeBone(box, a, b, width) {
  const mid = a.clone().add(b).multiplyScalar(0.5);
  const length = a.distanceTo(b);
  box.position.copy(mid);
  box.scale.set(width, Math.max(length, 1e-3), width);
  box.quaternion.setFromUnitVectors(UP, b.clone().sub(a).normalize());
}

function enemyObject(enemy) {
  const group = new THREE.Group();
  const bones = new THREE.Group();
  bones.name = "bones";
  const boneMaterial = new THREE.MeshLambertMaterial({ color: 0xc8553d });
  for (let j = 0; j < enemy.parents.length; j++) {
    if (enemy.parents[j] >= 0) bones.add(new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1), boneMaterial));
  }
  const lines = new THREE.LineSegments(new THREE.BufferGeometry(), new THREE.LineBasicMaterial({ color: 0xffffff }));
  lines.geometry.setAttribute("position", new THREE.BufferAttribute(new Float32Array(6 * enemy.parents.length), 3));
  lines.name = "skeleton";
  const joints = new THREE.Group();
  for (let j = 0; j < enemy.parents.length; j++) {
    joints.add(new THREE.Mesh(new THREE.SphereGeometry(0.07, 10, 8), new THREE.MeshLambertMaterial({ color: 0xffe0b0 })));
  }
  const blade = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1), new THREE.MeshLambertMaterial({ color: 0xb0b8c0 }));
  blade.name = "blade";
  const legs = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1), new THREE.MeshLambertMaterial({ color: 0x5a2020 }));
  legs.name = "legs"; // from the feet to the root joint (the swing's skeleton starts at the hips)
  group.add(bones, lines, joints, blade, legs);
  return group;
}

function updateEnemy(object, enemy) {
  const [bones, lines, joints, blade, legs] = object.children;
  const points = enemy.joints.map(v3);
  const line = lines.geometry.attributes.position;
  let b = 0;
  for (let j = 0; j < points.length; j++) {
    joints.children[j].position.copy(points[j]);
    const p = enemy.parents[j];
    if (p >= 0) {
      placeBone(bones.children[b++], points[p], points[j], 0.09);
      line.setXYZ(2 * j, ...points[p].toArray());
      line.setXYZ(2 * j + 1, ...points[j].toArray());
    }
  }
  line.needsUpdate = true;
  lines.geometry.computeBoundingSphere();
  placeBone(blade, v3(enemy.blade[0]), v3(enemy.blade[1]), 0.06);
  placeBone(legs, v3(enemy.position), points[enemy.parents.indexOf(-1)], 0.16);
  blade.material.color.setHex(enemy.contact ? 0xff6a00 : 0xb0b8c0);
}

const objectGeometries = {
  fragment: new THREE.BoxGeometry(0.22, 0.22, 0.22),
  held: new THREE.SphereGeometry(0.18, 14, 10),
  bullet: new THREE.SphereGeometry(0.18, 14, 10),
  projectile: new THREE.SphereGeometry(0.22, 14, 10),
  treasure: new THREE.OctahedronGeometry(0.3),
};

function onFrame(frame) {
  latest = frame;
  stats.frames++;
  stats.frame = frame.frame;
  stats.stepMs = frame.step_ms;
  if (!world) return;
  for (const object of actorMeshes.values()) object.userData.seen = false;
  const p = world.player;
  const me = actor("player", () => capsule(p.radius, p.height, capsuleMaterials.player));
  me.position.set(...frame.player.position);
  me.rotation.y = THREE.MathUtils.degToRad(frame.player.yaw);
  me.visible = !firstPerson;
  for (const npc of frame.npcs) {
    const object = actor(`npc:${npc.name}`, () => capsule(world.npc.radius, world.npc.height, capsuleMaterials.npc));
    object.position.set(...npc.position);
  }
  for (const enemy of frame.enemies) {
    updateEnemy(actor(`enemy:${enemy.name}`, () => enemyObject(enemy)), enemy);
  }
  for (const item of frame.objects) {
    const object = actor(`object:${item.name}`, () => {
      const geometry = objectGeometries[item.kind] || objectGeometries.fragment;
      const colour = item.kind === "treasure" ? new THREE.Color(0xffd700) : materialColour(item.material);
      return new THREE.Mesh(geometry, new THREE.MeshLambertMaterial({ color: colour }));
    });
    object.position.set(...item.position);
  }
  for (const [name, object] of actorMeshes) {
    if (!object.userData.seen) {
      actors.remove(object);
      object.traverse((o) => { if (o.material) o.material.dispose?.(); });
      actorMeshes.delete(name);
    }
  }
  if (!stats.controlling) view = { yaw: frame.player.yaw, pitch: frame.player.pitch };
}

// ----------------------------------------------------------------------------------------- the socket
let socket = null;
const overlays = { navmesh: false, collision: false };

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(typeof message === "string" ? message : JSON.stringify(message));
    return true;
  }
  return false;
}

function sendOverlays() {
  send({ type: "overlays", navmesh: overlays.navmesh, collision: overlays.collision });
}

function setControl(you, controller) {
  const wasPlaying = stats.controlling;
  stats.controlling = you;
  stats.controller = controller;
  if (you && !wasPlaying && latest) view = { yaw: latest.player.yaw, pitch: latest.player.pitch };
  if (you && !wasPlaying) lastSent = "";
  const button = document.getElementById("controlbutton");
  button.hidden = you || controller !== null;
}

function connect() {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
  socket = new WebSocket(url);
  socket.binaryType = "arraybuffer";
  socket.onopen = () => { stats.connected = true; };
  socket.onclose = () => {
    stats.connected = false;
    stats.controlling = false;
    setTimeout(connect, 2000); // the server may come back
  };
  socket.onmessage = (event) => {
    stats.messages++;
    if (event.data instanceof ArrayBuffer) {
      stats.bytes += event.data.byteLength;
      const kind = new DataView(event.data).getUint8(0);
      if (kind === KIND_CHUNK) onChunk(event.data);
      else if (kind === KIND_NAVMESH) onNavmesh(event.data);
      else if (kind === KIND_COLLISION) onCollision(event.data);
      return;
    }
    stats.bytes += event.data.length;
    const message = JSON.parse(event.data);
    switch (message.type) {
      case "hello": onHello(message); break;
      case "frame": onFrame(message); break;
      case "hud": stats.huds++; stats.bullets = message.bullets.length; hud.update(message); break;
      case "control": setControl(message.you, message.controller);
        hud.toast(message.you ? "you play" : message.controller === null ? "no page plays: press P to play" : `page ${message.controller} plays`);
        break;
      case "saved": stats.saved = message.path; hud.toast(`saved to ${message.path}`); break;
      case "error": stats.errors++; stats.lastError = message.error; hud.toast(message.error, "error"); break;
      default: break;
    }
  };
}

// ------------------------------------------------------------------------------------------- controls
const keys = new Set(); // codes held now
const tapped = new Set(); // buttons pressed since the last input message (a tap shorter than a frame counts)
const BUTTON_KEYS = {
  Space: "suck", KeyF: "punch", KeyR: "pull_out", KeyG: "stance", KeyT: "throw", KeyE: "use", KeyJ: "jump",
  ShiftLeft: "sprint", ShiftRight: "sprint",
};
const mouseButtons = new Set();
let lastSent = "";

function heldButtons() {
  const held = new Set(tapped);
  for (const code of keys) if (BUTTON_KEYS[code]) held.add(BUTTON_KEYS[code]);
  if (mouseButtons.has(0)) held.add("punch");
  if (mouseButtons.has(2)) held.add("suck");
  return [...held].sort();
}

function stick() {
  const axis = (plus, minus) => (keys.has(plus) ? 1 : 0) - (keys.has(minus) ? 1 : 0);
  return [axis("KeyD", "KeyA"), axis("KeyW", "KeyS")];
}

function toggleOverlay(name) {
  overlays[name] = !overlays[name];
  (name === "navmesh" ? navmeshOverlay : collisionOverlay).visible = overlays[name];
  sendOverlays();
  showOverlays();
}

function showOverlays() {
  const on = Object.entries(overlays).filter(([, v]) => v).map(([k]) => k);
  document.getElementById("overlays").textContent = on.length ? `overlays: ${on.join(", ")}` : "";
}

function save() {
  send({ type: "save" });
}

window.addEventListener("keydown", (event) => {
  if (event.ctrlKey && event.code === "KeyS") { event.preventDefault(); save(); return; }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (["Space", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"].includes(event.code)) event.preventDefault();
  if (event.repeat) return;
  keys.add(event.code);
  if (BUTTON_KEYS[event.code]) tapped.add(BUTTON_KEYS[event.code]);
  switch (event.code) {
    case "KeyN": toggleOverlay("navmesh"); break;
    case "KeyC": toggleOverlay("collision"); break;
    case "KeyV": firstPerson = !firstPerson; break;
    case "KeyK": save(); break;
    case "KeyP": send({ type: "control" }); break;
    case "KeyH": document.getElementById("help").classList.toggle("hidden"); break;
    default: break;
  }
});
window.addEventListener("keyup", (event) => { keys.delete(event.code); });
window.addEventListener("blur", () => { keys.clear(); mouseButtons.clear(); });

const canvas = renderer.domElement;
canvas.addEventListener("contextmenu", (event) => event.preventDefault());
canvas.addEventListener("mousedown", (event) => {
  if (document.pointerLockElement !== canvas) {
    canvas.requestPointerLock?.();
    return;
  }
  mouseButtons.add(event.button);
  if (event.button === 0) tapped.add("punch");
  if (event.button === 2) tapped.add("suck");
});
window.addEventListener("mouseup", (event) => mouseButtons.delete(event.button));
document.addEventListener("mousemove", (event) => {
  if (document.pointerLockElement !== canvas || !stats.controlling) return;
  view.yaw -= event.movementX * MOUSE_DEGREES;
  view.pitch = THREE.MathUtils.clamp(view.pitch - event.movementY * MOUSE_DEGREES, -89, 89);
});
document.getElementById("controlbutton").addEventListener("click", () => send({ type: "control" }));

// Arrow keys turn the view at LOOK_RATE; one input message per animation frame at most, only when
// something changed (well under the server's 120 messages a second).
function steer(dt) {
  if (!stats.controlling) return;
  const turn = (keys.has("ArrowLeft") ? 1 : 0) - (keys.has("ArrowRight") ? 1 : 0);
  const tilt = (keys.has("ArrowUp") ? 1 : 0) - (keys.has("ArrowDown") ? 1 : 0);
  view.yaw += turn * LOOK_RATE * dt;
  view.pitch = THREE.MathUtils.clamp(view.pitch + tilt * LOOK_RATE * dt, -89, 89);
  if (view.yaw > 3600 || view.yaw < -3600) view.yaw = ((view.yaw % 360) + 360) % 360;
  const message = JSON.stringify({
    type: "input", move: stick(), look: [Math.round(view.yaw * 1000) / 1000, Math.round(view.pitch * 1000) / 1000],
    held: heldButtons(),
  });
  tapped.clear();
  if (message !== lastSent && send(message)) {
    lastSent = message;
    stats.inputsSent++;
  }
}

// --------------------------------------------------------------------------------------- the camera
function direction(yaw, pitch) {
  const y = THREE.MathUtils.degToRad(yaw), p = THREE.MathUtils.degToRad(pitch);
  return new THREE.Vector3(-Math.sin(y) * Math.cos(p), Math.sin(p), -Math.cos(y) * Math.cos(p));
}

const projected = new THREE.Vector3();

function placeCamera() {
  if (!latest) return;
  const playing = stats.controlling;
  const eye = v3(latest.player.eye);
  const aim = playing ? direction(view.yaw, view.pitch) : v3(latest.player.aim);
  if (firstPerson) {
    camera.position.copy(eye);
  } else {
    // Over the right shoulder, so that the player does not hide what it aims at.
    const right = new THREE.Vector3(-aim.z, 0, aim.x).normalize();
    camera.position.copy(eye).addScaledVector(aim, -3.0).addScaledVector(right, 0.9).add(new THREE.Vector3(0, 0.5, 0));
  }
  camera.lookAt(eye.clone().addScaledVector(aim, 8));
  const target = hud.last && hud.last.aim ? v3(hud.last.aim.point) : eye.clone().addScaledVector(aim, 30);
  projected.copy(target).project(camera);
  const visible = projected.z < 1 && Math.abs(projected.x) <= 1 && Math.abs(projected.y) <= 1;
  const x = visible ? (projected.x + 1) / 2 * window.innerWidth : window.innerWidth / 2;
  const y = visible ? (1 - projected.y) / 2 * window.innerHeight : window.innerHeight / 2;
  hud.placeReticle(x, y, visible && !!(hud.last && hud.last.aim));
}

function statusLine() {
  if (!stats.connected) return "disconnected: trying again…";
  const who = stats.controlling ? `you play (page ${stats.client})`
    : stats.controller === null ? `watching (page ${stats.client}); no page plays: press P`
      : `watching (page ${stats.client}); page ${stats.controller} plays`;
  const step = stats.stepMs === null ? "" : `, World.step ${stats.stepMs.toFixed(1)} ms`;
  return `${who} · frame ${stats.frame}${step} · ${stats.chunks} chunks, ${stats.triangles} triangles`;
}

window.addEventListener("resize", () => {
  camera.aspect = window.innerWidth / window.innerHeight;
  camera.updateProjectionMatrix();
  renderer.setSize(window.innerWidth, window.innerHeight);
});

let before = performance.now();
function tick(now) {
  const dt = Math.min((now - before) / 1000, 0.1);
  before = now;
  steer(dt);
  placeCamera();
  hud.status(statusLine());
  renderer.render(scene, camera);
  stats.rendered = (stats.rendered || 0) + 1;
  requestAnimationFrame(tick);
}

window.voxelworld = {
  stats, overlays, scene, camera,
  send: (text) => send(text),
  get socket() { return socket; },
  get hud() { return hud.last; },
  get frame() { return latest; },
  get hello() { return world; },
  navmeshChildren: () => navmeshOverlay.children.length,
  chunkCounts: () => ({ ...chunkCounts }),
};

connect();
showOverlays();
requestAnimationFrame(tick);
