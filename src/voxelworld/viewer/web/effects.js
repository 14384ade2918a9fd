// Debris and particles, driven by the frame's events and the HUD's state: lit debris in the material's colour
// when a punch or pull-out breaks the terrain, dust where thrown pieces hit, where the player lands and steps,
// a flash and sparks when a bullet explodes, steam when lava cools, a stream of the aimed material towards the
// player while sucking, and sparks and a plume of dust where the chainsaw's blade cuts (the dust in the cut
// material's colour, large and slow to settle, so the enemy's kerf reads from 10 m); an opened treasure bursts in
// gold sparks and its reward ("+10 currency") rises from it and fades.
//
// Everything is pooled and bounded: particles live in two fixed-size point clouds (soft dust blended normally,
// glowing sparks added), debris in one instanced mesh of lit boxes; a new particle takes a free slot, or the
// oldest one when the pool is full. Nothing is allocated per frame.

import * as THREE from "./vendor/three.module.js";
import { disposeSprite, textSprite } from "./labels.js";

export const MAX_PARTICLES = 1200; // per point cloud
export const MAX_DEBRIS = 160;
const GRAVITY = -9.81; // m/s²
const SUCK_RATE = 90; // particles a second in the suck stream
const SAW_RATE = 40; // sparks a second where the blade cuts
const REWARD_SECONDS = 3; // how long an opened treasure's reward shows
const SAW_DUST_RATE = 14; // dust puffs a second where the blade cuts

const pointsVertex = /* glsl */ `
attribute vec3 colour;
attribute float alpha;
attribute float size;
uniform float scale;
varying vec3 vColour;
varying float vAlpha;
void main() {
  vColour = colour;
  vAlpha = alpha;
  vec4 view = modelViewMatrix * vec4(position, 1.0);
  gl_PointSize = size * scale / max(-view.z, 0.05);
  gl_Position = projectionMatrix * view;
}
`;

const pointsFragment = /* glsl */ `
varying vec3 vColour;
varying float vAlpha;
void main() {
  float r = length(gl_PointCoord - 0.5) * 2.0;
  if (r > 1.0 || vAlpha <= 0.0) discard;
  gl_FragColor = vec4(vColour, vAlpha * (1.0 - r * r));
}
`;

// A fixed-size cloud of particles: position, velocity, colour, size and life per slot, simulated on the CPU.
class ParticlePool {
  constructor(capacity, blending) {
    this.capacity = capacity;
    this.position = new Float32Array(3 * capacity);
    this.velocity = new Float32Array(3 * capacity);
    this.colour = new Float32Array(3 * capacity);
    this.alpha = new Float32Array(capacity);
    this.startAlpha = new Float32Array(capacity);
    this.size = new Float32Array(capacity);
    this.startSize = new Float32Array(capacity);
    this.growth = new Float32Array(capacity); // size change, m/s
    this.age = new Float32Array(capacity);
    this.life = new Float32Array(capacity); // 0: a free slot
    this.gravity = new Float32Array(capacity); // share of gravity (steam rises: negative)
    this.drag = new Float32Array(capacity); // 1/s
    this.next = 0;
    this.srgb = new THREE.Color();
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute("position", new THREE.BufferAttribute(this.position, 3).setUsage(THREE.DynamicDrawUsage));
    geometry.setAttribute("colour", new THREE.BufferAttribute(this.colour, 3).setUsage(THREE.DynamicDrawUsage));
    geometry.setAttribute("alpha", new THREE.BufferAttribute(this.alpha, 1).setUsage(THREE.DynamicDrawUsage));
    geometry.setAttribute("size", new THREE.BufferAttribute(this.size, 1).setUsage(THREE.DynamicDrawUsage));
    geometry.setDrawRange(0, 0);
    this.material = new THREE.ShaderMaterial({
      uniforms: { scale: { value: 300 } }, vertexShader: pointsVertex, fragmentShader: pointsFragment,
      transparent: true, depthWrite: false, blending,
    });
    this.points = new THREE.Points(geometry, this.material);
    this.points.frustumCulled = false; // the particles move; their bounds are never computed
    this.points.visible = false;
    this.live = 0;
    this.drawn = 0; // slots drawn (and sent) in the last update
  }

  // One particle: at ``p`` moving at ``v`` (arrays or Vector3s, m and m/s), colour ``c`` (a THREE.Color), for
  // ``life`` s, ``size`` m across.
  spawn(p, v, c, life, size, { growth = 0, gravity = 1, drag = 0, alpha = 1 } = {}) {
    let slot = -1;
    for (let n = 0; n < this.capacity && slot < 0; n++) {
      const s = (this.next + n) % this.capacity;
      if (this.life[s] === 0) slot = s;
    }
    if (slot < 0) slot = this.next; // full: the slot after the last one taken (among the oldest)
    this.next = (slot + 1) % this.capacity;
    const x = p.x ?? p[0], y = p.y ?? p[1], z = p.z ?? p[2];
    this.position.set([x, y, z], 3 * slot);
    this.velocity.set([v.x ?? v[0], v.y ?? v[1], v.z ?? v[2]], 3 * slot);
    c.getRGB(this.srgb, THREE.SRGBColorSpace); // the shader writes what it gets: sRGB, as the canvas shows
    this.colour.set([this.srgb.r, this.srgb.g, this.srgb.b], 3 * slot);
    this.alpha[slot] = this.startAlpha[slot] = alpha;
    this.size[slot] = this.startSize[slot] = size;
    this.growth[slot] = growth;
    this.gravity[slot] = gravity;
    this.drag[slot] = drag;
    this.age[slot] = 0;
    this.life[slot] = life;
  }

  update(dt, scale) {
    this.material.uniforms.scale.value = scale;
    let highest = -1, live = 0;
    for (let s = 0; s < this.capacity; s++) {
      if (this.life[s] === 0) continue;
      this.age[s] += dt;
      if (this.age[s] >= this.life[s]) {
        this.life[s] = 0;
        this.alpha[s] = 0;
        continue;
      }
      const keep = Math.max(1 - this.drag[s] * dt, 0);
      const i = 3 * s;
      this.velocity[i] *= keep;
      this.velocity[i + 1] = this.velocity[i + 1] * keep + GRAVITY * this.gravity[s] * dt;
      this.velocity[i + 2] *= keep;
      this.position[i] += this.velocity[i] * dt;
      this.position[i + 1] += this.velocity[i + 1] * dt;
      this.position[i + 2] += this.velocity[i + 2] * dt;
      const left = 1 - this.age[s] / this.life[s];
      this.alpha[s] = this.startAlpha[s] * Math.min(1, 3 * left); // fades over the last third of its life
      this.size[s] = Math.max(this.startSize[s] + this.growth[s] * this.age[s], 0.005);
      highest = s;
      live++;
    }
    this.live = live;
    // Only the slots up to the last live one are drawn and sent to the GPU (nothing while none lives: under
    // software WebGL every buffer upload costs the frame).
    const geometry = this.points.geometry, count = highest + 1;
    this.points.visible = count > 0;
    if (count > 0 || this.drawn > 0) {
      geometry.setDrawRange(0, count);
      for (const name of ["position", "colour", "alpha", "size"]) {
        const attribute = geometry.attributes[name];
        attribute.clearUpdateRanges();
        attribute.addUpdateRange(0, Math.max(count, this.drawn) * attribute.itemSize);
        attribute.needsUpdate = true;
      }
    }
    this.drawn = count;
  }
}

// Lit boxes that fly, fall to the ground height they were given, rest and shrink away.
class DebrisPool {
  constructor(capacity) {
    this.capacity = capacity;
    this.mesh = new THREE.InstancedMesh(new THREE.BoxGeometry(1, 1, 1),
      new THREE.MeshLambertMaterial({ color: 0xffffff }), capacity);
    this.mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    this.mesh.frustumCulled = false;
    this.mesh.name = "debris";
    this.mesh.count = 0;
    this.mesh.visible = false;
    this.items = Array.from({ length: capacity }, () => ({
      position: new THREE.Vector3(), velocity: new THREE.Vector3(), spin: new THREE.Vector3(),
      rotation: new THREE.Euler(), size: 0, age: 0, life: 0, floor: 0,
    }));
    this.matrix = new THREE.Matrix4();
    this.quaternion = new THREE.Quaternion();
    this.scale = new THREE.Vector3();
    this.next = 0;
    this.live = 0;
    const hidden = new THREE.Matrix4().makeScale(0, 0, 0);
    for (let n = 0; n < capacity; n++) {
      this.mesh.setMatrixAt(n, hidden);
      this.mesh.setColorAt(n, new THREE.Color(1, 1, 1));
    }
  }

  spawn(p, v, colour, size, life, floor) {
    let slot = this.items.findIndex((item, n) => item.life === 0 && n >= this.next);
    if (slot < 0) slot = this.items.findIndex((item) => item.life === 0);
    if (slot < 0) slot = this.next;
    this.next = (slot + 1) % this.capacity;
    const item = this.items[slot];
    item.position.set(p[0], p[1], p[2]);
    item.velocity.copy(v);
    item.spin.set(Math.random() * 12 - 6, Math.random() * 12 - 6, Math.random() * 12 - 6);
    item.rotation.set(Math.random() * 3, Math.random() * 3, Math.random() * 3);
    item.size = size;
    item.age = 0;
    item.life = life;
    item.floor = floor;
    this.mesh.setColorAt(slot, colour);
    this.mesh.instanceColor.needsUpdate = true;
  }

  update(dt) {
    let live = 0, highest = -1;
    for (let n = 0; n < this.capacity; n++) {
      const item = this.items[n];
      if (item.life === 0) continue;
      item.age += dt;
      if (item.age >= item.life) {
        item.life = 0;
        this.mesh.setMatrixAt(n, this.matrix.makeScale(0, 0, 0));
        continue;
      }
      live++;
      highest = n;
      const resting = item.position.y <= item.floor + item.size / 2 && item.velocity.y <= 0;
      if (resting) {
        item.position.y = item.floor + item.size / 2;
        item.velocity.set(0, 0, 0);
      } else {
        item.velocity.y += GRAVITY * dt;
        item.position.addScaledVector(item.velocity, dt);
        item.rotation.x += item.spin.x * dt;
        item.rotation.y += item.spin.y * dt;
        item.rotation.z += item.spin.z * dt;
      }
      const shrink = Math.min(1, 4 * (1 - item.age / item.life)); // the last quarter of its life
      this.scale.setScalar(item.size * shrink);
      this.mesh.setMatrixAt(n, this.matrix.compose(item.position, this.quaternion.setFromEuler(item.rotation),
        this.scale));
    }
    this.live = live;
    // Only the boxes up to the last live one are drawn and sent (none while none lives).
    const count = highest + 1;
    this.mesh.count = count;
    this.mesh.visible = count > 0;
    if (count > 0) {
      const matrices = this.mesh.instanceMatrix;
      matrices.clearUpdateRanges();
      matrices.addUpdateRange(0, 16 * count);
      matrices.needsUpdate = true;
    }
  }
}

const random = (low, high) => low + Math.random() * (high - low);

// A random direction in the half space around ``normal`` (a Vector3), spread ``spread`` (0: along it, 1: any).
function scatter(normal, spread, out = new THREE.Vector3()) {
  out.set(random(-1, 1), random(-1, 1), random(-1, 1)).normalize().multiplyScalar(spread).add(normal).normalize();
  return out;
}

export class Effects {
  // ``group``: where the effects are drawn; ``colourOf(material)``: a THREE.Color for a material name.
  constructor(group, colourOf) {
    this.colourOf = colourOf;
    this.group = group;
    this.rewards = []; // the rewards shown: { sprite, age }
    this.dust = new ParticlePool(MAX_PARTICLES, THREE.NormalBlending);
    this.glow = new ParticlePool(MAX_PARTICLES, THREE.AdditiveBlending);
    this.debris = new DebrisPool(MAX_DEBRIS);
    this.dust.points.name = "dust";
    this.glow.points.name = "glow";
    group.add(this.dust.points, this.glow.points, this.debris.mesh);
    this.spawned = {}; // effect -> times started (the debug hook reads it)
    this.carry = { suck: 0, saw: 0, sawDust: 0 }; // fractional particles owed to the streams
    this.eye = new THREE.Vector3();
    this.floor = 0;
    this.tmp = new THREE.Vector3();
    this.toward = new THREE.Vector3();
  }

  count(name) {
    this.spawned[name] = (this.spawned[name] || 0) + 1;
  }

  get stats() {
    return { particles: this.dust.live + this.glow.live, debris: this.debris.live, spawned: { ...this.spawned } };
  }

  // Where the player is (its eye and the ground under it): debris rests on that height, the suck stream ends there.
  follow(frame) {
    if (!frame) return;
    this.eye.fromArray(frame.player.eye);
    this.floor = frame.player.position[1];
  }

  // The direction from ``p`` back towards the player's eye, a little up: where broken pieces fly.
  outward(p) {
    return this.toward.copy(this.eye).sub(this.tmp.fromArray(p)).setY(0).normalize().setY(0.6).normalize();
  }

  // Lit pieces and dust of ``material`` bursting from ``p``: ``pieces`` boxes, ``puffs`` dust particles.
  burst(p, material, pieces, puffs, speed = 3.5) {
    const colour = this.colourOf(material);
    const out = this.outward(p).clone();
    const floor = Math.min(this.floor, p[1] - 0.3);
    for (let n = 0; n < pieces; n++) {
      const v = scatter(out, 0.9).multiplyScalar(random(0.4, 1) * speed);
      this.debris.spawn(p, v, colour, random(0.05, 0.14), random(1.2, 2.2), floor);
    }
    const dust = colour.clone().lerp(new THREE.Color(0.8, 0.78, 0.72), 0.5); // lighter: seen against its own ground
    for (let n = 0; n < puffs; n++) {
      const v = scatter(out, 1).multiplyScalar(random(0.3, 1.4));
      this.dust.spawn(p, v, dust, random(0.6, 1.3), random(0.12, 0.25), { growth: 0.35, gravity: 0.05, drag: 2.2,
        alpha: 0.8 });
    }
  }

  flash(p) {
    const white = new THREE.Color(1, 0.92, 0.7), spark = new THREE.Color(1, 0.55, 0.15);
    this.glow.spawn(p, [0, 0, 0], white, 0.45, 4.0, { growth: 8, gravity: 0 }); // the flash: a growing glow
    this.glow.spawn(p, [0, 0, 0], spark, 0.7, 2.0, { growth: 4, gravity: 0, alpha: 0.8 });
    for (let n = 0; n < 50; n++) {
      const v = scatter(new THREE.Vector3(0, 1, 0), 1.5).multiplyScalar(random(3, 9));
      this.glow.spawn(p, v, spark, random(0.3, 0.8), random(0.06, 0.12), { gravity: 0.5, drag: 1.5 });
    }
  }

  steam(p) {
    const colour = new THREE.Color(0.92, 0.93, 0.95);
    for (let n = 0; n < 45; n++) {
      const start = [p[0] + random(-0.4, 0.4), p[1] + random(0, 0.2), p[2] + random(-0.4, 0.4)];
      const v = [random(-0.3, 0.3), random(0.8, 1.8), random(-0.3, 0.3)];
      this.dust.spawn(start, v, colour, random(1.4, 2.6), random(0.2, 0.35), { growth: 0.5, gravity: -0.02,
        drag: 0.6, alpha: 0.7 });
    }
  }

  // The frame's events (docs/specs/play-protocol.md, "events").
  events(list) {
    for (const event of list) {
      const p = event.position;
      if (!p) continue;
      if (event.event === "outcome") {
        switch (event.kind) {
          case "punch": this.burst(p, event.material, 16, 24); break;
          case "pull_out": this.burst(p, event.material, 8, 16, 2.0); break;
          case "dig": this.burst(p, event.material, 4, 10, 1.5); break;
          case "explode": this.flash(p); this.burst(p, event.material, 20, 30, 6); break;
          case "cool": this.steam(p); break;
          case "attach": case "nothing": case "lost": this.burst(p, event.material, 0, 14, 1.5); break;
          default: continue;
        }
        this.count(event.kind);
      } else if (event.event === "opened") {
        this.treasureOpened(event);
      } else if (event.event === "landed" && event.speed > 2) {
        this.burst(p, event.material || null, 0, Math.min(6 + 3 * event.speed, 30), 1.2);
        this.count("landed");
      } else if (event.event === "footstep" && event.material) {
        this.burst(p, event.material, 0, 3, 0.6);
        this.count("footstep");
      }
    }
  }

  // Every animation frame: the streams (suck, saw sparks) and the simulation. ``hud``: the last hud message;
  // ``enemies``: frame entries with "blade" and "contact"; ``camera`` and ``height`` (px) size the points.
  update(dt, hud, enemies, camera, height) {
    const aim = hud && hud.aim;
    const sucking = !!(hud && hud.sucking && !hud.exhausted && aim && (!aim.reach || aim.reach.suck));
    if (sucking) this.suckStream(dt, aim);
    for (const enemy of enemies) {
      if (enemy.contact && enemy.blade) {
        this.sawSparks(dt, enemy);
        this.sawDust(dt, enemy);
      }
    }
    const scale = height / (2 * Math.tan(THREE.MathUtils.degToRad(camera.fov) / 2));
    this.dust.update(dt, scale);
    this.glow.update(dt, scale);
    this.debris.update(dt);
    this.updateRewards(dt);
    return sucking;
  }

  // An opened treasure (an "opened" event): a gold flash and sparks where it lay, and what it paid rising above.
  treasureOpened(event) {
    const p = event.position, gold = new THREE.Color(1, 0.82, 0.25), white = new THREE.Color(1, 0.97, 0.8);
    this.glow.spawn(p, [0, 0, 0], white, 0.5, 1.6, { growth: 3, gravity: 0 });
    for (let n = 0; n < 60; n++) {
      const v = scatter(new THREE.Vector3(0, 1, 0), 1.2).multiplyScalar(random(1.5, 4.5));
      this.glow.spawn(p, v, gold, random(0.6, 1.4), random(0.05, 0.1), { gravity: 0.25, drag: 1.2 });
    }
    const paid = [event.currency > 0 ? `+${event.currency} currency` : "",
      event.stamina > 0 ? `+${event.stamina} stamina` : ""];
    const sprite = textSprite(`${event.material}: ${paid.filter(Boolean).join(", ") || "empty"}`, "#ffe066", 0.36);
    sprite.name = "reward";
    sprite.position.set(p[0], p[1] + 0.5, p[2]);
    this.group.add(sprite);
    this.rewards.push({ sprite, age: 0 });
    this.count("treasure");
  }

  // The rewards shown rise 0.4 m a second and fade over their last second.
  updateRewards(dt) {
    for (const reward of this.rewards) {
      reward.age += dt;
      reward.sprite.position.y += 0.4 * dt;
      reward.sprite.material.opacity = Math.min(1, REWARD_SECONDS - reward.age);
      if (reward.age >= REWARD_SECONDS) {
        this.group.remove(reward.sprite);
        disposeSprite(reward.sprite);
      }
    }
    this.rewards = this.rewards.filter((reward) => reward.age < REWARD_SECONDS);
  }

  // Bits of the aimed material drawn from the aimed surface into the player (who sucks them in).
  suckStream(dt, aim) {
    this.carry.suck += SUCK_RATE * dt;
    const colour = this.colourOf(aim.material);
    const from = this.tmp.fromArray(aim.point);
    const distance = from.distanceTo(this.eye);
    const seconds = THREE.MathUtils.clamp(distance / 6, 0.15, 0.6);
    if (this.carry.suck >= 1) this.count("suck");
    for (; this.carry.suck >= 1; this.carry.suck--) {
      const start = [from.x + random(-0.35, 0.35), from.y + random(-0.35, 0.35), from.z + random(-0.35, 0.35)];
      const v = [(this.eye.x - start[0]) / seconds, (this.eye.y - 0.3 - start[1]) / seconds,
        (this.eye.z - start[2]) / seconds];
      this.dust.spawn(start, v, colour, seconds * 0.95, random(0.05, 0.1), { gravity: 0, alpha: 0.95 });
    }
  }

  sawSparks(dt, enemy) {
    this.carry.saw += SAW_RATE * dt;
    const tip = enemy.blade[1];
    const spark = new THREE.Color(1, 0.6, 0.2);
    for (; this.carry.saw >= 1; this.carry.saw--) {
      const v = [random(-2, 2), random(0.5, 3), random(-2, 2)];
      this.glow.spawn(tip, v, spark, random(0.15, 0.4), random(0.03, 0.06), { gravity: 0.6 });
    }
    this.count("saw");
  }

  // A plume of the cut material's dust from the blade's outer part (where it is in the cut): puffs that grow to
  // about 1 m and drift up and away for 2-3 s, lighter than the material so they show against its face.
  sawDust(dt, enemy) {
    this.carry.sawDust += SAW_DUST_RATE * dt;
    if (this.carry.sawDust < 1) return;
    const [start, end] = enemy.blade;
    const dust = this.colourOf(enemy.contact).clone().lerp(new THREE.Color(0.85, 0.83, 0.78), 0.45);
    for (; this.carry.sawDust >= 1; this.carry.sawDust--) {
      const share = random(0.5, 1);
      const p = [start[0] + share * (end[0] - start[0]), start[1] + share * (end[1] - start[1]),
        start[2] + share * (end[2] - start[2])];
      const v = [random(-0.6, 0.6), random(0.3, 1.0), random(-0.6, 0.6)];
      this.dust.spawn(p, v, dust, random(2.0, 3.0), random(0.25, 0.45), { growth: 0.3, gravity: -0.02, drag: 0.8,
        alpha: 0.85 });
    }
    this.count("saw_dust");
  }
}
