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
    // What the tests read: the shoulder distance wanted and kept, whether terrain pulled it in, the player's opacity.
    this.state = { wanted: 0, kept: 0, blocked: false, opacity: 1 };
  }

  resize() {
    this.camera.aspect = window.innerWidth / window.innerHeight;
    this.camera.updateProjectionMatrix();
  }

  // How far (m) a sphere of CAMERA_RADIUS may go from ``eye`` along the unit vector ``way`` before the terrain
  // (``length`` when nothing is in the way): the arm's ray and eight rays around it, CAMERA_RADIUS off it.
  clearance(eye, way, length) {
    const side = new THREE.Vector3(-way.z, 0, way.x);
    if (side.lengthSq() < 1e-6) side.set(1, 0, 0);
    side.normalize();
    const up = new THREE.Vector3().crossVectors(side, way).normalize();
    const meshes = this.terrain(), origin = new THREE.Vector3();
    let free = length;
    for (let n = -1; n < 8; n++) {
      origin.copy(eye);
      if (n >= 0) {
        const angle = n * Math.PI / 4;
        origin.addScaledVector(side, Math.cos(angle) * CAMERA_RADIUS).addScaledVector(up, Math.sin(angle) * CAMERA_RADIUS);
      }
      this.raycaster.set(origin, way);
      this.raycaster.far = free + CAMERA_RADIUS;
      const hits = this.raycaster.intersectObjects(meshes, false);
      if (hits.length) free = Math.min(free, Math.max(hits[0].distance - CAMERA_RADIUS, 0.0));
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
