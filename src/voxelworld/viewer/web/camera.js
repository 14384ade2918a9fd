// The camera: first person at the player's eye, or over its right shoulder; it looks where the player aims
// (this page's view while it plays, the frame's aim while it watches). Places the reticle where the aim meets
// the terrain.

import * as THREE from "./vendor/three.module.js";
import { v3 } from "./actors.js";

export function direction(yaw, pitch) {
  const y = THREE.MathUtils.degToRad(yaw), p = THREE.MathUtils.degToRad(pitch);
  return new THREE.Vector3(-Math.sin(y) * Math.cos(p), Math.sin(p), -Math.cos(y) * Math.cos(p));
}

export class FollowCamera {
  constructor() {
    this.camera = new THREE.PerspectiveCamera(70, window.innerWidth / window.innerHeight, 0.05, 600);
    this.projected = new THREE.Vector3();
  }

  resize() {
    this.camera.aspect = window.innerWidth / window.innerHeight;
    this.camera.updateProjectionMatrix();
  }

  // ``frame``: the last frame message; ``view``: {yaw, pitch} used when ``playing``; ``hud``: the Hud.
  place(frame, view, playing, firstPerson, hud) {
    if (!frame) return;
    const camera = this.camera;
    const eye = v3(frame.player.eye);
    const aim = playing ? direction(view.yaw, view.pitch) : v3(frame.player.aim);
    if (firstPerson) {
      camera.position.copy(eye);
    } else {
      // Over the right shoulder, so that the player does not hide what it aims at.
      const right = new THREE.Vector3(-aim.z, 0, aim.x).normalize();
      camera.position.copy(eye).addScaledVector(aim, -3.0).addScaledVector(right, 0.9).add(new THREE.Vector3(0, 0.5, 0));
    }
    camera.lookAt(eye.clone().addScaledVector(aim, 8));
    const target = hud.last && hud.last.aim ? v3(hud.last.aim.point) : eye.clone().addScaledVector(aim, 30);
    const projected = this.projected.copy(target).project(camera);
    const visible = projected.z < 1 && Math.abs(projected.x) <= 1 && Math.abs(projected.y) <= 1;
    const x = visible ? (projected.x + 1) / 2 * window.innerWidth : window.innerWidth / 2;
    const y = visible ? (1 - projected.y) / 2 * window.innerHeight : window.innerHeight / 2;
    hud.placeReticle(x, y, visible && !!(hud.last && hud.last.aim));
  }
}
