// Words drawn in the world: a sprite showing a line of text (a canvas texture), always facing the camera and drawn
// over the terrain (no depth test), its height in metres. actors.js labels a buried treasure with its depth and
// E's target with what E does; effects.js floats an opened treasure's reward up from it.

import * as THREE from "./vendor/three.module.js";

const FONT_PX = 48;

// A sprite reading ``text`` in ``colour`` (CSS) on a dark rounded plate, ``height`` m tall.
export function textSprite(text, colour = "#ffe680", height = 0.32) {
  const canvas = document.createElement("canvas");
  const context = canvas.getContext("2d");
  context.font = `bold ${FONT_PX}px sans-serif`;
  const width = Math.ceil(context.measureText(text).width) + FONT_PX;
  canvas.width = width;
  canvas.height = Math.round(FONT_PX * 1.5);
  context.fillStyle = "rgba(20, 16, 8, 0.72)";
  context.beginPath();
  context.roundRect(0, 0, canvas.width, canvas.height, FONT_PX * 0.4);
  context.fill();
  context.font = `bold ${FONT_PX}px sans-serif`;
  context.textAlign = "center";
  context.textBaseline = "middle";
  context.fillStyle = colour;
  context.fillText(text, canvas.width / 2, canvas.height / 2 + 2);
  const texture = new THREE.CanvasTexture(canvas);
  texture.colorSpace = THREE.SRGBColorSpace;
  const material = new THREE.SpriteMaterial({ map: texture, depthTest: false, depthWrite: false, transparent: true });
  const sprite = new THREE.Sprite(material);
  sprite.scale.set(height * canvas.width / canvas.height, height, 1);
  sprite.renderOrder = 10;
  sprite.userData.text = text;
  return sprite;
}

// Free what a sprite of textSprite holds.
export function disposeSprite(sprite) {
  sprite.material.map.dispose();
  sprite.material.dispose();
}
