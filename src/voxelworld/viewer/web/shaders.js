// The terrain's two-material blend shader, and the material palette it reads.
//
// Every display-mesh vertex carries two material ids (mat_a, mat_b, as bytes) and the share of mat_b
// (blend, 0..1). The vertex shader looks both colours up in a 256 x 1 palette texture (one texel per material
// id, filled from the material table the server sends at connect); the fragment shader mixes them by the
// interpolated blend, adds a little per-voxel grain, and lights the result with a sun and some ambient light,
// as the offscreen snapshots do (voxelworld.viewer.snapshot): colours come out as the table gives them.

import * as THREE from "./vendor/three.module.js";

export const SUN_DIRECTION = new THREE.Vector3(0.35, 1.0, 0.45).normalize();
export const AMBIENT = 0.38;
export const NONE_COLOUR = [0.5, 0.5, 0.5];

// A 256 x 1 RGBA texture: texel i is the colour of material id i (id 0 and unknown ids: grey).
export function paletteTexture(materials) {
  const data = new Uint8Array(256 * 4);
  for (let i = 0; i < 256; i++) {
    data.set([NONE_COLOUR[0] * 255, NONE_COLOUR[1] * 255, NONE_COLOUR[2] * 255, 255], i * 4);
  }
  for (const m of materials) {
    if (Number.isInteger(m.id) && m.id >= 0 && m.id < 256) {
      data.set([m.colour[0] * 255, m.colour[1] * 255, m.colour[2] * 255, 255].map(Math.round), m.id * 4);
    }
  }
  const texture = new THREE.DataTexture(data, 256, 1, THREE.RGBAFormat);
  texture.magFilter = THREE.NearestFilter;
  texture.minFilter = THREE.NearestFilter;
  texture.needsUpdate = true;
  return texture;
}

const vertexShader = /* glsl */ `
attribute float mat_a;
attribute float mat_b;
attribute float blend;
uniform sampler2D palette;
varying vec3 vColourA;
varying vec3 vColourB;
varying float vBlend;
varying vec3 vNormal;
varying vec3 vWorld;

void main() {
  vColourA = texture2D(palette, vec2((mat_a + 0.5) / 256.0, 0.5)).rgb;
  vColourB = texture2D(palette, vec2((mat_b + 0.5) / 256.0, 0.5)).rgb;
  vBlend = clamp(blend, 0.0, 1.0);
  vNormal = normal;
  vec4 world = modelMatrix * vec4(position, 1.0);
  vWorld = world.xyz;
  gl_Position = projectionMatrix * viewMatrix * world;
}
`;

const fragmentShader = /* glsl */ `
uniform vec3 sunDirection;
uniform float ambient;
varying vec3 vColourA;
varying vec3 vColourB;
varying float vBlend;
varying vec3 vNormal;
varying vec3 vWorld;

float grain(vec3 p) {
  p = fract(p * 0.3183099 + 0.1) * 17.0;
  return fract(p.x * p.y * p.z * (p.x + p.y + p.z));
}

void main() {
  vec3 base = mix(vColourA, vColourB, vBlend);
  base *= 0.94 + 0.12 * grain(floor(vWorld * 4.0));
  vec3 n = normalize(vNormal);
  float shade = 1.0;
  if (!gl_FrontFacing) { n = -n; shade = 0.55; }  // seen from inside: darker, so wrong winding shows
  float light = ambient + (1.0 - ambient) * max(dot(n, sunDirection), 0.0);
  gl_FragColor = vec4(clamp(base * light * shade, 0.0, 1.0), 1.0);
}
`;

// The terrain material: one for every chunk mesh. Pushed back a little in depth so that the collision-mesh
// wireframe and the navmesh overlay drawn on the same surface win.
export function terrainMaterial(palette) {
  return new THREE.ShaderMaterial({
    uniforms: {
      palette: { value: palette },
      sunDirection: { value: SUN_DIRECTION.clone() },
      ambient: { value: AMBIENT },
    },
    vertexShader,
    fragmentShader,
    side: THREE.DoubleSide,
    polygonOffset: true,
    polygonOffsetFactor: 1,
    polygonOffsetUnits: 1,
  });
}
