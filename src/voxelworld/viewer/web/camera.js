// The camera: first person at the player's eye, or over its right shoulder; it looks where the player aims
// (this page's view while it plays, the frame's aim while it watches). Places the reticle where the aim meets
// the terrain.
//
// Over the shoulder, the camera never goes inside the terrain: the spring arm of voxelworld.game.follow_camera.
// A sphere of CAMERA_RADIUS is swept from the player's eye to where the camera wants to be; the world sweeps it
// against the collision mesh and sends the arm's length with each frame (player.camera), and the page sweeps it
// against the chunk meshes it draws (nine rays, the arm's and eight around it at the sphere's radius) for the view
// it turned to since. The camera stops at the shorter (it eases back out when the way is free again). Looking
// down, the arm rises at most MAX_ARM_PITCH degrees, so the camera stays behind the player, who stays in the
// picture. The player's body is faded when the camera is close to it or when it stands between the camera and
// the aimed point.

import * as THREE from "./vendor/three.module.js";
import { v3 } from "./actors.js";

// As voxelworld.game.follow_camera: SHOULDER_BACK, SHOULDER_RIGHT, SHOULDER_UP, CAMERA_RADIUS, MAX_ARM_PITCH.
export const SHOULDER = { back: 3.0, right: 0.9, up: 0.5 }; // m: where the camera wants to be, from the eye
export const CAMERA_RADIUS = 0.3; // m: the sphere swept along the arm (how far the camera keeps from the terrain)
export const MAX_ARM_PITCH = 50; // degrees: looking down more steeply, the arm keeps this elevation
const SAME_VIEW = 2; // degrees: the world's arm is used while the page's view is within this of the frame's
export const CLOSE = 1.3; // m: nearer than this to the eye, the player is faded
export const FADED = 0.25; // the player's opacity when faded
export const HIDDEN_BEYOND = 1.0; // m: an aimed point nearer than this behind the player's body does not fade it
const EASE_OUT = 4.0; // m/s: how fast the camera backs out again once the way is free

export function direction(yaw, pitch) {
  const y = THREE.MathUtils.degToRad(yaw), p = THREE.MathUtils.degToRad(pitch);
  return new THREE.Vector3(-Math.sin(y) * Math.cos(p), Math.sin(p), -Math.cos(y) * Math.cos(p));
}

// Fade ``object`` to ``opacity`` times each material's own (its materials are copied on first use, so that shared
// ones are not changed; a material that is see-through by itself, like the disc an actor stands on, stays so).
export function fade(object, opacity) {
  const faded = opacity < 0.999;
  object.traverse((part) => {
    if (!part.material) return;
    if (!part.userData.ownMaterial) {
      part.material = Array.isArray(part.material) ? part.material.map((m) => m.clone()) : part.material.clone();
      part.userData.ownMaterial = true;
      for (const material of Array.isArray(part.material) ? part.material : [part.material]) {
        material.userData.own = { opacity: material.opacity, transparent: material.transparent, depthWrite: material.depthWrite };
      }
    }
    for (const material of Array.isArray(part.material) ? part.material : [part.material]) {
      const own = material.userData.own;
      const transparent = own.transparent || faded;
      if (material.transparent !== transparent) {
        material.transparent = transparent;
        material.needsUpdate = true;
      }
      material.opacity = own.opacity * opacity;
      material.depthWrite = own.depthWrite && !faded;
    }
  });
}

// The unit direction from the eye to where the camera wants to be and the arm's full length (m), for a view of
// ``yaw``, ``pitch`` degrees (voxelworld.game.follow_camera.arm_direction).
export function armDirection(yaw, pitch) {
  const y = THREE.MathUtils.degToRad(yaw);
  const offset = direction(yaw, Math.max(pitch, -MAX_ARM_PITCH)).multiplyScalar(-SHOULDER.back)
    .addScaledVector(new THREE.Vector3(Math.cos(y), 0, -Math.sin(y)), SHOULDER.right);
  offset.y += SHOULDER.up;
  const length = offset.length();
  return { way: offset.divideScalar(length), length };
}

// The triangles of ``meshes`` (world-space geometries, as the chunk meshes are) that may meet a ray from within
// ``margin`` m of ``eye`` going ``length`` m along ``way``: those whose box meets the rays' box. A Float32Array of
// 10 numbers a triangle: its corners (9) and which faces a ray hits (three's sides: 0 front, 1 back, 2 both).
export function armTriangles(meshes, eye, way, length, margin) {
  const end = eye.clone().addScaledVector(way, length);
  const low = eye.clone().min(end).subScalar(margin), high = eye.clone().max(end).addScalar(margin);
  const box = new THREE.Box3(low, high), found = [];
  for (const mesh of meshes) {
    const geometry = mesh.geometry;
    if (!geometry.boundingSphere) geometry.computeBoundingSphere();
    if (!box.intersectsSphere(geometry.boundingSphere)) continue;
    const p = geometry.attributes.position.array, index = geometry.index?.array;
    const count = index ? index.length : p.length / 3, sideOf = mesh.material?.side ?? THREE.FrontSide;
    for (let t = 0; t < count; t += 3) {
      const a = 3 * (index ? index[t] : t), b = 3 * (index ? index[t + 1] : t + 1), c = 3 * (index ? index[t + 2] : t + 2);
      if (Math.max(p[a], p[b], p[c]) < low.x || Math.min(p[a], p[b], p[c]) > high.x
          || Math.max(p[a + 1], p[b + 1], p[c + 1]) < low.y || Math.min(p[a + 1], p[b + 1], p[c + 1]) > high.y
          || Math.max(p[a + 2], p[b + 2], p[c + 2]) < low.z || Math.min(p[a + 2], p[b + 2], p[c + 2]) > high.z) continue;
      found.push(p[a], p[a + 1], p[a + 2], p[b], p[b + 1], p[b + 2], p[c], p[c + 1], p[c + 2], sideOf);
    }
  }
  return Float32Array.from(found);
}

// The distance (m) along the unit vector ``way`` from ``origin`` to the nearest of ``triangles`` (armTriangles) it
// meets within ``far`` m, or null; a triangle's back (as three's Raycaster: the winding's normal facing away)
// counts only for a triangle drawn from both sides or from the back.
export function firstHit(triangles, origin, way, far) {
  let nearest = null;
  const [ox, oy, oz] = [origin.x, origin.y, origin.z], [dx, dy, dz] = [way.x, way.y, way.z];
  for (let t = 0; t < triangles.length; t += 10) {
    const ax = triangles[t], ay = triangles[t + 1], az = triangles[t + 2];
    const e1x = triangles[t + 3] - ax, e1y = triangles[t + 4] - ay, e1z = triangles[t + 5] - az;
    const e2x = triangles[t + 6] - ax, e2y = triangles[t + 7] - ay, e2z = triangles[t + 8] - az;
    // Möller-Trumbore, as three's Ray.intersectTriangle: n = e1 x e2, facing the ray when d.n < 0
    const nx = e1y * e2z - e1z * e2y, ny = e1z * e2x - e1x * e2z, nz = e1x * e2y - e1y * e2x;
    let dn = dx * nx + dy * ny + dz * nz, sign;
    const sideOf = triangles[t + 9];
    if (dn > 0) {
      if (sideOf === THREE.FrontSide) continue;
      sign = 1;
    } else if (dn < 0) {
      if (sideOf === THREE.BackSide) continue;
      sign = -1;
      dn = -dn;
    } else continue;
    const qx = ox - ax, qy = oy - ay, qz = oz - az;
    // q x e2 and e1 x q
    const u = sign * (dx * (qy * e2z - qz * e2y) + dy * (qz * e2x - qx * e2z) + dz * (qx * e2y - qy * e2x));
    if (u < 0) continue;
    const v = sign * (dx * (e1y * qz - e1z * qy) + dy * (e1z * qx - e1x * qz) + dz * (e1x * qy - e1y * qx));
    if (v < 0 || u + v > dn) continue;
    const s = -sign * (qx * nx + qy * ny + qz * nz);
    if (s < 0) continue;
    const distance = s / dn;
    if (distance <= far && (nearest === null || distance < nearest)) nearest = distance;
  }
  return nearest;
}

export class FollowCamera {
  // ``terrain()``: the chunk meshes the camera must stay out of.
  constructor(terrain) {
    this.camera = new THREE.PerspectiveCamera(70, window.innerWidth / window.innerHeight, 0.05, 600);
    this.terrain = terrain;
    this.projected = new THREE.Vector3();
    this.raycaster = new THREE.Raycaster();
    this.distance = SHOULDER.back; // how far out along the shoulder offset the camera is now (m)
    this.lastPlaced = null;
    this.bodyRadius = 0.4; // m: the player's capsule radius (the hello message's), widened a little when fading
    this.fadedPlayer = null;
    // What the tests read: the shoulder distance wanted and kept along the arm's way (a unit vector from the eye),
    // whether terrain pulled it in, the player's opacity.
    this.state = { wanted: 0, kept: 0, way: [0, 0, 0], blocked: false, opacity: 1 };
  }

  resize() {
    this.camera.aspect = window.innerWidth / window.innerHeight;
    this.camera.updateProjectionMatrix();
  }

  // How far (m) a sphere of CAMERA_RADIUS may go from ``eye`` along the unit vector ``way`` before the terrain
  // (``length`` when nothing is in the way): the arm's ray and eight rays around it, CAMERA_RADIUS off it. The
  // rays are cast against the triangles within the box around the nine rays only (armTriangles), not with three's
  // Raycaster over every chunk mesh: that tested each triangle of each chunk near the arm nine times, a sixth of a
  // picture's time on the page's thread with a large world.
  clearance(eye, way, length) {
    const side = new THREE.Vector3(-way.z, 0, way.x);
    if (side.lengthSq() < 1e-6) side.set(1, 0, 0);
    side.normalize();
    const up = new THREE.Vector3().crossVectors(side, way).normalize();
    const triangles = armTriangles(this.terrain(), eye, way, length + 2 * CAMERA_RADIUS, 2 * CAMERA_RADIUS);
    const origin = new THREE.Vector3();
    let free = length;
    for (let n = -1; n < 8; n++) {
      origin.copy(eye);
      if (n >= 0) {
        const angle = n * Math.PI / 4;
        origin.addScaledVector(side, Math.cos(angle) * CAMERA_RADIUS).addScaledVector(up, Math.sin(angle) * CAMERA_RADIUS);
      }
      const hit = firstHit(triangles, origin, way, free + CAMERA_RADIUS);
      if (hit !== null) free = Math.min(free, Math.max(hit - CAMERA_RADIUS, 0.0));
    }
    return free;
  }

  // ``frame``: the last frame message; ``view``: {yaw, pitch} used when ``playing``; ``hud``: the Hud;
  // ``player``: the player's Object3D (faded when it would hide the aim), or null.
  place(frame, view, playing, firstPerson, hud, player = null) {
    if (!frame) return;
    const now = performance.now();
    const dt = this.lastPlaced === null ? 0 : Math.min((now - this.lastPlaced) / 1000, 0.1);
    this.lastPlaced = now;
    const camera = this.camera;
    const eye = v3(frame.player.eye);
    const aim = playing ? direction(view.yaw, view.pitch) : v3(frame.player.aim);
    const target = hud.last && hud.last.aim ? v3(hud.last.aim.point) : eye.clone().addScaledVector(aim, 30);
    if (firstPerson) {
      camera.position.copy(eye);
    } else {
      // Over the right shoulder, so that the player does not hide what it aims at; pulled in before the terrain.
      const yaw = playing ? view.yaw : frame.player.yaw, pitch = playing ? view.pitch : frame.player.pitch;
      const { way, length } = armDirection(yaw, pitch);
      let free = this.clearance(eye, way, length);
      const turned = Math.abs(((yaw - frame.player.yaw) % 360 + 540) % 360 - 180);
      if (typeof frame.player.camera === "number" && turned < SAME_VIEW
          && Math.abs(pitch - frame.player.pitch) < SAME_VIEW) free = Math.min(free, frame.player.camera);
      this.distance = free < this.distance ? free : Math.min(free, this.distance + EASE_OUT * dt);
      camera.position.copy(eye).addScaledVector(way, this.distance);
      this.state.wanted = length;
      this.state.kept = this.distance;
      this.state.way = way.toArray();
      this.state.blocked = free < length;
    }
    camera.lookAt(eye.clone().addScaledVector(aim, 8));
    camera.updateMatrixWorld();
    if (player) this.fadePlayer(player, eye, target, firstPerson);
    const projected = this.projected.copy(target).project(camera);
    const visible = projected.z < 1 && Math.abs(projected.x) <= 1 && Math.abs(projected.y) <= 1;
    const x = visible ? (projected.x + 1) / 2 * window.innerWidth : window.innerWidth / 2;
    const y = visible ? (1 - projected.y) / 2 * window.innerHeight : window.innerHeight / 2;
    hud.placeReticle(x, y, visible && !!(hud.last && hud.last.aim));
  }

  // Fade the player when the camera is close to its eye or when its body (the segment from its feet to its eye,
  // a little wider than the body) crosses the line from the camera to an aimed point more than HIDDEN_BEYOND
  // behind it (looking down at its own feet, the player stays as it is).
  fadePlayer(player, eye, target, firstPerson) {
    if (firstPerson) return;
    const camera = this.camera.position;
    const feet = player.position;
    const line = new THREE.Ray(camera, target.clone().sub(camera).normalize());
    const onLine = new THREE.Vector3();
    const wide = this.bodyRadius + 0.1;
    const hides = line.distanceSqToSegment(feet, eye, onLine) < wide * wide
      && onLine.distanceTo(camera) + HIDDEN_BEYOND < target.distanceTo(camera);
    const opacity = hides || camera.distanceTo(eye) < CLOSE ? FADED : 1;
    if (opacity !== this.state.opacity || player !== this.fadedPlayer) {
      fade(player, opacity);
      this.state.opacity = opacity;
      this.fadedPlayer = player;
    }
  }
}
