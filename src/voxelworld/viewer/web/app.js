// voxelworld play: the page. Connects to the server's websocket (/ws), draws what it streams (chunk meshes,
// the player, NPCs, the chainsaw enemy's skeleton, loose objects, the navmesh and collision overlays) and sends
// the player's input while this page plays. The protocol: docs/specs/play-protocol.md.
//
// This module wires the others: decode.js reads binary messages, scene.js builds the scene, actors.js draws
// what moves, camera.js follows the player, predict.js moves this page's own player at once from its keys (the
// server's frames correct it), input.js reads the keys (its tables bind every key), hud.js and shaders.js draw
// the panels and the terrain, effects.js the debris and particles, sound.js the sounds; the last two and the HUD
// answer each frame's "events".
//
// window.voxelworld exposes counters and hooks for tests: stats (messages by kind, frames, errors), overlays,
// send(text), scene, characters() (skinned meshes per kind of actor), and the state of the effects, the sound
// and the camera.

import * as THREE from "./vendor/three.module.js";
import { Actors } from "./actors.js";
import { FollowCamera } from "./camera.js";
import { KIND_CHUNK, KIND_CHUNK_PATCH, KIND_COLLISION, KIND_NAVMESH, KIND_POSES, PROTOCOL_VERSION, applyChunkPatch,
  binaryHeader, decodeChunk, decodePoses, decodeTriangles } from "./decode.js";
import { merged } from "./deltas.js";
import { Effects } from "./effects.js";
import { Hud } from "./hud.js";
import { Shop } from "./shop.js";
import { Input } from "./input.js";
import { Prediction } from "./predict.js";
import { WorldScene, qualityAskedInUrl, qualityFromUrl, resolutionFromUrl } from "./scene.js";
import { Sound } from "./sound.js";

const view3d = new WorldScene(document.getElementById("view"), qualityFromUrl(), resolutionFromUrl());
view3d.autoQuality = !qualityAskedInUrl();
view3d.loadTextures().catch((error) => showError(`cannot read the textures: ${error.message}`));
const actors = new Actors(view3d.actors);
const follow = new FollowCamera(() => view3d.batches.meshes());
const prediction = new Prediction(); // this page's own player while it plays (predict.js)
const hud = new Hud();
view3d.onQualityDropped = () => hud.toast("quality: low (pictures were slow even at the lowest resolution; Q: default)");
const effects = new Effects(view3d.scene, (name) => view3d.materialColour(name));
const sound = new Sound((name) => hud.materials.get(name)?.hardness ?? 0);
const chunkCounts = {}; // "i,j,k" -> chunk messages received for it
const chunkStore = new Map(); // "i,j,k" -> the chunk's mesh as decoded (what the next patch of it applies to)
let poses = null; // the last poses message decoded: { frame, characters }, for the frame message that follows
let rotations = new Map(); // actor name -> its joints' rotations in the last poses (what a delta completes from)

const stats = {
  connected: false, client: null, controlling: false, name: null, players: [], seats: 0,
  messages: 0, bytes: 0, chunkMessages: 0, chunkRemovals: 0, chunks: 0, triangles: 0,
  navmeshMessages: 0, collisionMessages: 0, frames: 0, frame: -1, huds: 0, bullets: 0,
  errors: 0, lastError: null, saved: null, inputsSent: 0, stepMs: null,
  chunkPatches: 0, thingMessages: 0, poseMessages: 0, frameDeltas: 0, hudDeltas: 0, pictureMs: null,
  details: false, // the status line's developer figures (frame, step and picture times, chunks): I shows them
};

let world = null; // the hello message
let latest = null; // the last frame message
let firstPerson = false;
let socket = null;
const overlays = { navmesh: false, collision: false };

// ------------------------------------------------------------------------------------------ messages
function onHello(hello) {
  if (hello.protocol !== PROTOCOL_VERSION) {
    showError(`the server speaks play protocol ${hello.protocol}, this page ${PROTOCOL_VERSION}: reload the page`);
  }
  world = hello;
  chunkStore.clear();
  rotations = new Map();
  poses = null;
  latest = null;
  hud.setMaterials(hello.materials);
  view3d.reset(hello);
  actors.clear();
  actors.useCharacter(hello.character);
  stats.chunks = 0;
  stats.triangles = 0;
  stats.client = hello.client;
  input.view = { yaw: hello.player.yaw, pitch: hello.player.pitch };
  follow.bodyRadius = hello.player.radius;
  prediction.reset();
  prediction.movement = hello.movement ?? null; // the numbers of the world's movement model (play protocol 5)
  prediction.fps = hello.fps;
  setControl({ you: false, name: null, players: hello.players, seats: hello.seats }); // "control" says more
  if (overlays.navmesh || overlays.collision) sendOverlays();
}

// A frame message: a whole one, or a delta (its "base" the frame before) laid over the last one; the poses
// message just before it gives its "characters" (enemies' contact as the material's name).
function onFrame(message) {
  let frame = message;
  if (message.base !== null && message.base !== undefined && latest) {
    const state = { ...latest };
    delete state.events;
    delete state.events_dropped;
    frame = merged(state, message); // (deltas.js)
    stats.frameDeltas++;
  }
  if (poses && poses.frame === message.frame) frame.characters = poses.characters;
  view3d.setCuts(message.cuts, frame === message); // a delta's "cuts": only the marks added
  frame.cuts = undefined; // the marks live in view3d.cutMarks (a delta's would be only the newest)
  latest = frame;
  stats.frames++;
  stats.frame = frame.frame;
  stats.stepMs = frame.step_ms;
  if (!world) return;
  if (stats.controlling) prediction.reconcile(frame);
  actors.update(frame, world, firstPerson, (name) => view3d.materialColour(name), frame.player.name);
  if (stats.controlling) actors.placeOwn(prediction.shown()); // its own player where it is shown (predict.js)
  effects.follow(frame);
  onEvents(frame);
  if (!stats.controlling) input.view = { yaw: frame.player.yaw, pitch: frame.player.pitch };
}

// A frame's events, from its frame message or (for a frame this page was not sent: it fell behind) from an
// "events" message of their own.
function onEvents(message) {
  if (!world || !message.events || !message.events.length) return;
  // Whose: the texts and the shop's news of this page's own player alone; every player's steps, digging and
  // landings are seen and heard where they happen.
  const mine = latest?.player?.name ?? "player";
  const own = message.events.filter((e) => !e.player || e.player === mine);
  const seen = message.events.filter((e) => !OWN_ONLY.has(e.event) || !e.player || e.player === mine);
  hud.events(own);
  shop.events(own);
  effects.events(seen);
  sound.events(seen, follow.camera.position);
}
const OWN_ONLY = new Set(["blocked", "opened", "bought", "goal"]); // events only their player's page shows

function onBinary(buffer) {
  stats.bytes += buffer.byteLength;
  const { kind, error } = binaryHeader(buffer);
  if (error) {
    showError(`cannot read ${error}`);
    return;
  }
  if (kind === KIND_CHUNK || kind === KIND_CHUNK_PATCH) {
    const chunk = kind === KIND_CHUNK ? decodeChunk(buffer) : applyChunkPatch(buffer, chunkStore);
    if (chunk.error) {
      showError(`cannot read ${chunk.error}`);
      return;
    }
    if (chunk.m === 0) chunkStore.delete(chunk.key);
    else chunkStore.set(chunk.key, chunk);
    if (kind === KIND_CHUNK_PATCH) stats.chunkPatches++;
    view3d.setChunk(chunk);
    stats.chunkMessages++;
    chunkCounts[chunk.key] = (chunkCounts[chunk.key] || 0) + 1;
    if (chunk.m === 0) stats.chunkRemovals++;
    stats.chunks = view3d.chunks.size;
    stats.triangles = view3d.triangles;
  } else if (kind === KIND_POSES) {
    const decoded = decodePoses(buffer, rotations);
    if (decoded.error) {
      showError(`cannot read ${decoded.error}`);
      return;
    }
    const names = new Map((world?.materials ?? []).map((m) => [m.id, m.name]));
    for (const entry of decoded.characters) entry.contact = entry.contact ? names.get(entry.contact) ?? null : null;
    rotations = new Map(decoded.characters.map((entry) => [`${entry.kind}/${entry.name}`, entry.rotations]));
    poses = decoded;
    stats.poseMessages++;
  } else if (kind === KIND_NAVMESH) {
    view3d.setNavmesh(decodeTriangles(buffer));
    stats.navmeshMessages++;
  } else if (kind === KIND_COLLISION) {
    view3d.setCollision(decodeTriangles(buffer));
    stats.collisionMessages++;
  }
}

// A HUD message: whole, or the fields that changed since the one before (its "base").
function onHud(message) {
  const delta = message.base !== null && message.base !== undefined && hud.last;
  const state = delta ? merged(hud.last, message) : message;
  stats.huds++;
  if (delta) stats.hudDeltas++;
  stats.bullets = state.bullets.length;
  hud.update(state);
  shop.update(state);
}

function showError(text) {
  stats.errors++;
  stats.lastError = text;
  hud.toast(text, "error");
}

function onText(text) {
  stats.bytes += text.length;
  const message = JSON.parse(text);
  switch (message.type) {
    case "hello": onHello(message); break;
    case "frame": onFrame(message); break;
    case "events": onEvents(message); break;
    case "hud": onHud(message); break;
    case "control": setControl(message); break;
    case "saved": stats.saved = message.path; hud.toast(`saved to ${message.path}`); break;
    case "error": showError(message.error); break;
    case "thing_kinds": view3d.things.setKinds(message.kinds); break;
    case "things": view3d.things.setColumn(message.chunk, message.things); stats.thingMessages++; break;
    default: break;
  }
}

// ------------------------------------------------------------------------------------------- the socket
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

// Who plays: this page's own player (its name and the token that resumes it after a reconnect, kept for the tab),
// and the players the pages play.
function setControl({ you, name, token, players, seats }) {
  const wasPlaying = stats.controlling, wasName = stats.name;
  stats.controlling = you;
  stats.name = name;
  stats.players = players ?? [];
  stats.seats = seats ?? 0;
  input.playing = you;
  if (token) sessionStorage.setItem("voxelworld-token", token);
  if (you !== wasPlaying || wasName !== name) prediction.reset(); // another player, or none: predicted afresh
  if (you && (!wasPlaying || wasName !== name)) {
    input.startPlaying(latest ? { yaw: latest.player.yaw, pitch: latest.player.pitch } : null);
    hud.toast(`you play ${name}`);
  } else if (!you && wasPlaying) hud.toast("you watch: press P to play");
  document.getElementById("controlbutton").hidden = you || stats.players.length >= stats.seats;
}

function connect() {
  // The name the page's own address asks for (?name=), its join code (?code=), and the token of the player this
  // tab played, if any.
  const own = new URLSearchParams(location.search), token = sessionStorage.getItem("voxelworld-token");
  const query = new URLSearchParams({ protocol: PROTOCOL_VERSION });
  if (own.get("name")) query.set("name", own.get("name"));
  if (own.get("code")) query.set("code", own.get("code")); // a LAN game's join code (voxelworld play --lan)
  if (token) query.set("token", token);
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws?${query}`;
  socket = new WebSocket(url);
  socket.binaryType = "arraybuffer";
  socket.onopen = () => { stats.connected = true; };
  socket.onclose = () => {
    stats.connected = false;
    stats.controlling = false;
    input.playing = false;
    setTimeout(connect, 2000); // the server may come back
  };
  socket.onmessage = (event) => {
    stats.messages++;
    if (event.data instanceof ArrayBuffer) onBinary(event.data);
    else onText(event.data);
  };
}

// ------------------------------------------------------------------------------------------ commands
function toggleOverlay(name) {
  overlays[name] = !overlays[name];
  view3d[name].visible = overlays[name];
  sendOverlays();
  showOverlays();
}

function showOverlays() {
  const on = Object.entries(overlays).filter(([, v]) => v).map(([k]) => k);
  document.getElementById("overlays").textContent = on.length ? `overlays: ${on.join(", ")}` : "";
}

const commands = {
  navmesh: () => toggleOverlay("navmesh"),
  collision: () => toggleOverlay("collision"),
  camera: () => { firstPerson = !firstPerson; },
  save: () => send({ type: "save" }),
  control: () => send({ type: "control" }),
  help: () => showHelp(document.getElementById("help").classList.contains("hidden")),
  details: () => { stats.details = !stats.details; statusShown = -Infinity; },
  mute: () => {
    sound.start();
    hud.toast(sound.toggleMute() ? "sound off (M turns it on)" : "sound on");
  },
  shop: () => shop.toggle(),
  buy: (index) => shop.choose(index),
  quality: () => {
    view3d.autoQuality = false; // the player chose
    view3d.setQuality(view3d.quality === "low" ? "default" : "low");
    hud.toast(`quality: ${view3d.quality}`);
  },
};

// The key list shows for the first minute, then folds away to its title (H shows it again, or hides it).
const HELP_FOLDS_MS = 60000;
let helpChosen = false; // the player pressed H: the list stays as they chose
function showHelp(shown, chosen = true) {
  helpChosen = helpChosen || chosen;
  document.getElementById("help").classList.toggle("hidden", !shown);
}
const helpFoldsAt = performance.now() + HELP_FOLDS_MS;
setTimeout(() => { if (!helpChosen) showHelp(false, false); }, HELP_FOLDS_MS);

const input = new Input(view3d.canvas, (name, value) => commands[name]?.(value));
// The shop asks for an upgrade through the next input message (only a page that plays sends them).
const shop = new Shop((name) => {
  if (!stats.controlling) return false;
  input.buying = name;
  return true;
});
document.getElementById("controlbutton").addEventListener("click", () => send({ type: "control" }));

// --------------------------------------------------------------------------------------------- drawing
const STATUS_MS = 250; // the status line is written at most this often
let statusShown = -Infinity;

function statusLine() {
  if (!stats.connected) return "disconnected: trying again…";
  const others = stats.players.filter((name) => name !== stats.name);
  const playing = others.length ? ` (${others.join(", ")} ${stats.controlling ? "too" : "play"})` : "";
  const who = stats.controlling ? `you play ${stats.name}${playing}`
    : stats.players.length >= stats.seats ? `watching (page ${stats.client}); all ${stats.seats} players are taken`
      : `watching (page ${stats.client}); press P to play${playing}`;
  if (!stats.details) return who;
  // Which side is slow: the server's World.step for the last frame, and this page's time between pictures.
  const step = stats.stepMs === null ? "" : ` · server: step ${stats.stepMs.toFixed(1)} ms`;
  const picture = stats.pictureMs === null ? ""
    : ` · page: ${stats.pictureMs.toFixed(1)} ms a picture (${(1000 / stats.pictureMs).toFixed(0)} fps)`;
  return `${who} · frame ${stats.frame}${step}${picture} · ${stats.chunks} chunks, ${stats.triangles} triangles`;
}

window.addEventListener("resize", () => {
  follow.resize();
  view3d.resize();
});

// The chainsaw enemies of a frame (their "blade" and "contact"): the frame's enemies, or its characters of
// kind "enemy".
function enemiesOf(frame) {
  return (frame.characters || []).filter((c) => c.kind === "enemy" && c.blade);
}

let before = performance.now();
const view = new THREE.Frustum(), viewMatrix = new THREE.Matrix4(); // the camera's, for culling the actors and the near terrain
const PICTURE_SMOOTHING = 0.1; // weight of the newest interval in the page's time a picture
function tick(now) {
  const interval = now - before;
  const dt = Math.min(interval / 1000, 0.1);
  before = now;
  if (interval > 0) {
    stats.pictureMs = stats.pictureMs === null ? interval
      : stats.pictureMs + PICTURE_SMOOTHING * (interval - stats.pictureMs);
  }
  let shown = latest; // the last frame, its player where this page shows it (predicted while it plays)
  if (stats.controlling) {
    // The player moved since the last picture by the input sent then (as the world applies an input from when it
    // comes until the next one); then the input as it is now goes.
    // (The whole time since, however long the picture took: the world went on applying that input meanwhile.)
    const { move, sprint, yaw } = input.current;
    prediction.step(interval / 1000, input.seq, move, sprint && !(hud.last?.stamina <= 0), yaw);
    const message = input.steer(dt, now);
    if (message !== null && send(message)) {
      input.sent();
      prediction.sent(input.seq, now);
      stats.inputsSent++;
    }
    shown = prediction.frame(latest);
    actors.placeOwn(prediction.shown());
  }
  follow.place(shown, input.view, stats.controlling, firstPerson, hud, actors.player());
  const enemies = latest ? enemiesOf(latest) : [];
  const sucking = effects.update(dt, hud.last, enemies, follow.camera, view3d.renderer.domElement.height);
  sound.update(sucking, enemies, follow.camera.position);
  if (now - statusShown >= STATUS_MS) { // its numbers change every frame; redrawn text costs a software renderer
    hud.status(statusLine());
    statusShown = now;
  }
  view3d.placeCamera(follow.camera);
  follow.camera.updateMatrixWorld();
  view.setFromProjectionMatrix(viewMatrix.multiplyMatrices(follow.camera.projectionMatrix,
    follow.camera.matrixWorldInverse));
  actors.prepare(follow.camera.position, view);
  view3d.render(follow.camera, view);
  stats.rendered = (stats.rendered || 0) + 1;
  stats.resolution = view3d.resolution;
  stats.shadowDraws = view3d.shadowDraws;
  requestAnimationFrame(tick);
}

window.voxelworld = {
  stats, overlays, scene: view3d.scene, camera: follow.camera, renderer: view3d.renderer,
  send: (text) => send(text),
  helpFoldsAt, // performance.now() when the key list folds away, unless H was pressed
  look: (yaw, pitch) => { input.view = { yaw, pitch }; }, // turn this page's view (while it plays)
  get socket() { return socket; },
  get hud() { return hud.last; },
  get frame() { return latest; },
  get hello() { return world; },
  get effects() { return effects.stats; },
  get audio() { return sound.state; },
  // This page's own player's prediction (predict.js): where it is shown, where the server's last frame put it, what
  // is still blended away, the seq the frames acknowledge, the steps they have not.
  get prediction() {
    return { shown: prediction.shown(), server: prediction.server, error: [...prediction.error], ack: prediction.ack,
      steps: prediction.steps.length, seq: input.seq, rate: prediction.rate, ...prediction.stats };
  },
  get cameraState() { return { ...follow.state, position: follow.camera.position.toArray() }; },
  get said() { return hud.said.map((entry) => ({ ...entry })); },
  get shopOpen() { return shop.open; },
  navmeshChildren: () => view3d.navmesh.children.length,
  characters: () => actors.characterCounts(),
  chunkCounts: () => ({ ...chunkCounts }),
  batches: () => view3d.batches.describe(), // the terrain's region batches and loose chunks (batches.js)
  flushBatches: () => view3d.batches.flush(performance.now(), 0), // every stale region batched now
  compareBatch: (region) => view3d.batches.compare(region), // what a region draws against its chunks' meshes
  textureDistance: () => view3d.batches.textureDistance, // m: near chunks drawn with the far material from there
  view: (eye, target) => view3d.view(eye, target), // view([x,y,z], [x,y,z]) fixes the camera; view(null) follows
  get quality() { return view3d.quality; },
  // Start the dynamic resolution and automatic quality afresh (the quality the address asks for, nothing measured
  // yet) and feed them pictures ``ms`` apart (a number, or a list taken in turn) for ``seconds``; returns the
  // quality then (a test of a slow renderer on any machine, whatever the real pictures did before; they go on after).
  slowPictures: (ms, seconds) => {
    view3d.setQuality(qualityFromUrl());
    view3d.autoQuality = !qualityAskedInUrl();
    view3d.frameMs = view3d.lastPicture = view3d.slowWindow = null;
    const gaps = [].concat(ms), start = performance.now();
    for (let t = 0, n = 0; t <= seconds * 1000; t += gaps[n++ % gaps.length]) view3d.adaptResolution(start + t);
    return view3d.quality;
  },
  cutMarks: (shown) => { // the cut marks the page has; shown true/false: drawn or not
    if (shown !== undefined) view3d.showCuts(shown);
    return { count: view3d.cutMarks.marks.length, total: view3d.cutMarks.total, marks: view3d.cutMarks.marks };
  },
  // The things on the ground (things.js): per kind its instances drawn by level, triangles, draw calls.
  things: () => view3d.things.describe(),
  showThings: (on) => view3d.things.show(on), // draw them or not (benchmarks/page_things.py compares)
  thingInstances: (kind, level) => view3d.things.instances(kind, level), // [16 numbers] per instance drawn
  receive: (text) => onText(typeof text === "string" ? text : JSON.stringify(text)), // a text message, as if sent
  get software() { return view3d.software; }, // WebGL draws on the CPU here: no multisampling
  get textures() { return view3d.textures && { layers: view3d.textures.layers, size: view3d.textures.size }; },
};

connect();
showOverlays();
requestAnimationFrame(tick);
