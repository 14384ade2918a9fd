// The terrain's look: the server's texture set mapped triplanar, two materials blended per vertex, lit by a sun
// casting shadows, a sky/ground hemisphere light with per-vertex ambient occlusion, and fog to the sky colour.
//
// Every display-mesh vertex carries two material ids (mat_a, mat_b, as bytes), the share of mat_b (blend, 0..1)
// and its occlusion (1 = open to the sky; docs/specs/play-protocol.md). The texture set comes from the server's
// /textures.bin (voxelworld.terrain.textures: one layer per texture name; albedo RGB + height in A, surface
// R = roughness, G = metalness, B = emission; layer_of: the layer a material id draws). The vertex shader reads
// each material's surface (its texture's mean: the smallest mipmap); the fragment shader maps each material's
// albedo on the planes its normal faces, mixes the two by the blend, bumps the normal by the height, and lights
// it as the offscreen snapshots do (voxelworld.viewer.gl_shaders; sRGB values lit directly): the sun times its
// shadow (three.js's shadow map), sky/ground hemisphere light and a fill light opposite the sun times the
// occlusion (and the texture's low spots), a highlight and the sky mirrored by roughness and metalness (iron,
// ice), emission self-lit (lava glows in any shade), and fog to the sky colour.
// A material without a layer (or before the textures arrive) is drawn in its table colour from a 256 x 1
// palette. A ShaderMaterial, not three's MeshStandardMaterial: under SwiftShader (software WebGL) the standard
// material's lighting costs several times the frame.
//
// Quality (QUALITIES): "default" maps each material on the planes its normal faces (up to three samples per
// material), with bump, highlights, shadows and occlusion; "low" draws the table colours with a little grain
// (no texture sample, as the page did before textures), lit by the same sun and sky and glowing lava, without
// shadows or occlusion: under SwiftShader each texture sample and the shadow lookup cost more per pixel than
// the whole low-quality shader.

import * as THREE from "./vendor/three.module.js";

// The light, as the offscreen snapshots have it (voxelworld.viewer.gl_draw.Light): sRGB values that multiply a
// material's colour.
export const SUN_DIRECTION = new THREE.Vector3(0.35, 1.0, 0.45).normalize(); // towards the sun
export const FILL_DIRECTION = new THREE.Vector3(-SUN_DIRECTION.x, 0, -SUN_DIRECTION.z).normalize()
  .add(new THREE.Vector3(0, 0.75, 0)).normalize(); // opposite the sun across the ground, half way up
export const LIGHT = {
  sun: [0.5, 0.48, 0.43], sky: [0.6, 0.65, 0.72], ground: [0.42, 0.38, 0.32], fill: [0.2, 0.21, 0.24],
  skySeen: [0.66, 0.77, 0.9], glow: 2.4,
};
export const NONE_COLOUR = [0.5, 0.5, 0.5];
export const NO_LAYER = 255; // the layer table's value for "no texture: the palette colour"
export const QUALITIES = ["default", "low"];

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
  texture.colorSpace = THREE.NoColorSpace; // sRGB bytes, decoded in the fragment shader like the albedo;
  texture.magFilter = THREE.NearestFilter;
  texture.minFilter = THREE.NearestFilter;
  texture.needsUpdate = true;
  return texture;
}

// /textures.bin read into textures (little-endian: u32 layers L, u32 size S, f32 metres a tile covers, albedo
// L*S*S*4 bytes, surface the same, layer_of 256 int32); throws an Error naming what is wrong.
export const TEXTURE_HEADER_BYTES = 12;
export function decodeTextureSet(buffer) {
  if (buffer.byteLength < TEXTURE_HEADER_BYTES) throw new Error(`a texture set of ${buffer.byteLength} bytes`);
  const view = new DataView(buffer);
  const layers = view.getUint32(0, true), size = view.getUint32(4, true), metres = view.getFloat32(8, true);
  const image = layers * size * size * 4, start = TEXTURE_HEADER_BYTES;
  if (layers < 1 || layers >= NO_LAYER || size < 1 || !(metres > 0)
      || buffer.byteLength !== start + 2 * image + 4 * 256) {
    throw new Error(`a texture set of ${buffer.byteLength} bytes for ${layers} layers of ${size} pixels`);
  }
  return {
    layers, size, metres,
    layerOf: new Int32Array(buffer.slice(start + 2 * image)),
    albedo: new Uint8Array(buffer, start, image),
    surface: new Uint8Array(buffer, start + image, image),
  };
}

function arrayTexture(data, size, layers, colorSpace) {
  const texture = new THREE.DataArrayTexture(data, size, size, layers);
  texture.format = THREE.RGBAFormat;
  texture.colorSpace = colorSpace;
  texture.wrapS = texture.wrapT = THREE.RepeatWrapping;
  // Bilinear within the nearest mipmap (not between two): under software WebGL (SwiftShader) every filtered
  // texel costs the frame.
  texture.magFilter = THREE.LinearFilter;
  texture.minFilter = THREE.LinearMipmapNearestFilter;
  texture.generateMipmaps = true;
  texture.anisotropy = 1;
  texture.needsUpdate = true;
  return texture;
}

// The GPU side of a decoded texture set (or of none: every material in its palette colour).
export function textureMaps(set) {
  const table = new Uint8Array(256 * 4).fill(NO_LAYER);
  if (!set) {
    const blank = new Uint8Array(4).fill(255);
    return { albedo: arrayTexture(blank, 1, 1, THREE.NoColorSpace), surface: arrayTexture(blank, 1, 1, THREE.NoColorSpace),
      layers: layerTexture(table) };
  }
  for (let id = 0; id < 256; id++) {
    const layer = set.layerOf[id];
    if (layer >= 0 && layer < set.layers) table[4 * id] = layer;
  }
  return {
    albedo: arrayTexture(set.albedo, set.size, set.layers, THREE.NoColorSpace), // sRGB bytes, decoded in the shader
    surface: arrayTexture(set.surface, set.size, set.layers, THREE.NoColorSpace),
    layers: layerTexture(table),
  };
}

function layerTexture(table) {
  const texture = new THREE.DataTexture(table, 256, 1, THREE.RGBAFormat);
  texture.magFilter = texture.minFilter = THREE.NearestFilter;
  texture.needsUpdate = true;
  return texture;
}

// What the terrain's vertex shader hands its fragment shader (declared once, in both).
const TERRAIN_VARYINGS = /* glsl */ `
varying vec3 vWorld;
varying vec3 vWorldNormal;
varying vec2 vLayers;
varying float vBlend;
varying float vOcclusion;
varying vec3 vPaletteA;
varying vec3 vPaletteB;
varying vec3 vSurface;
`;

const vertexShader = /* glsl */ `
#include <common>
#include <fog_pars_vertex>
#include <shadowmap_pars_vertex>
attribute float mat_a;
attribute float mat_b;
attribute float blend;
attribute float occlusion;
uniform sampler2D layerTable;
uniform sampler2D palette;
uniform highp sampler2DArray surfaceMaps;
uniform float surfaceLevel;
${TERRAIN_VARYINGS}
vec3 meanSurface(float layer) {
  return layer > 254.5 ? vec3(0.9, 0.0, 0.0) : textureLod(surfaceMaps, vec3(0.5, 0.5, layer), surfaceLevel).rgb;
}

void main() {
  vec3 objectNormal = normal;
  vec3 transformedNormal = normalMatrix * objectNormal;
  vec3 transformed = position;
  vec4 mvPosition = modelViewMatrix * vec4(transformed, 1.0);
  vec4 worldPosition = modelMatrix * vec4(transformed, 1.0);
  gl_Position = projectionMatrix * mvPosition;
  #include <shadowmap_vertex>
  #include <fog_vertex>
  vWorld = worldPosition.xyz;
  vWorldNormal = normalize(mat3(modelMatrix) * objectNormal);
  vec2 idA = vec2((mat_a + 0.5) / 256.0, 0.5), idB = vec2((mat_b + 0.5) / 256.0, 0.5);
  vLayers = floor(vec2(texture2D(layerTable, idA).r, texture2D(layerTable, idB).r) * 255.0 + 0.5);
  vPaletteA = texture2D(palette, idA).rgb;
  vPaletteB = texture2D(palette, idB).rgb;
  vBlend = clamp(blend, 0.0, 1.0);
  vOcclusion = occlusion;
  vSurface = mix(meanSurface(vLayers.x), meanSurface(vLayers.y), vBlend);
}
`;

const fragmentShader = /* glsl */ `
#include <common>
#include <packing>
#include <fog_pars_fragment>
#include <lights_pars_begin>
#include <shadowmap_pars_fragment>
uniform highp sampler2DArray albedoMaps;
uniform float textureScale;
uniform float occlusionStrength;
uniform float emission;
uniform float bumpStrength;
uniform vec3 skyColour;
uniform vec3 groundColour;
uniform vec3 skySeen;
uniform vec3 sunColour;
uniform vec3 sunDirection;
uniform vec3 fillColour;
uniform vec3 fillDirection;
uniform vec3 fogColour;
${TERRAIN_VARYINGS}
// One material's albedo (rgb, sRGB) and height (a), mapped on the planes the normal faces, weighted by the
// normal's share along each axis.
vec4 triplanar(float layer, vec3 fallback, vec3 p, vec3 w) {
  if (layer > 254.5) return vec4(fallback, 0.5);

  vec4 albedo = vec4(0.0);
  if (w.x > 0.0) albedo += w.x * texture(albedoMaps, vec3(p.zy, layer));
  if (w.y > 0.0) albedo += w.y * texture(albedoMaps, vec3(p.xz, layer));
  if (w.z > 0.0) albedo += w.z * texture(albedoMaps, vec3(p.xy, layer));
  return albedo;
}

// Low quality: the table colours with a little per-voxel grain (the old page's look), no texture sample.
float grain(vec3 p) {
  p = fract(p * 0.3183099 + 0.1) * 17.0;
  return fract(p.x * p.y * p.z * (p.x + p.y + p.z));
}

// The sun's shadow: one lookup of three's shadow map (a depth comparison, filtered between the four nearest
// texels), not three's five-tap soft shadow.
float sunShadow() {
#if defined(USE_SHADOWMAP) && NUM_DIR_LIGHT_SHADOWS > 0 && defined(SHADOWMAP_TYPE_PCF)
  vec3 p = vDirectionalShadowCoord[0].xyz / vDirectionalShadowCoord[0].w;
  p.z += directionalLightShadows[0].shadowBias;
  if (p.x < 0.0 || p.x > 1.0 || p.y < 0.0 || p.y > 1.0 || p.z > 1.0) return 1.0;
  return texture(directionalShadowMap[0], p);
#else
  return 1.0;
#endif
}

void main() {
  vec3 n = normalize(vWorldNormal) * (gl_FrontFacing ? 1.0 : -1.0);
  float roughness = clamp(vSurface.r, 0.05, 1.0), metal = vSurface.g;
#ifdef TERRAIN_LOW
  vec4 albedo = vec4(mix(vPaletteA, vPaletteB, vBlend) * (0.94 + 0.12 * grain(floor(vWorld * 4.0))), 0.5);
  metal = 0.0; roughness = 1.0;
#else
  // Plane weights: sharpened, and planes under 5 % dropped so most pixels take one or two samples.
  vec3 w = abs(n);
  w = max(w * w * w * w - 0.05, 0.0);
  w /= w.x + w.y + w.z;
  vec3 p = vWorld * textureScale;
  vec4 albedo;
  if (vBlend < 0.004) albedo = triplanar(vLayers.x, vPaletteA, p, w);
  else if (vBlend > 0.996) albedo = triplanar(vLayers.y, vPaletteB, p, w);
  else albedo = mix(triplanar(vLayers.x, vPaletteA, p, w), triplanar(vLayers.y, vPaletteB, p, w), vBlend);
  // Bump: the height's slope across the pixel tilts the normal (no extra texture sample).
  vec3 dx = dFdx(vWorld), dy = dFdy(vWorld);
  float hx = dFdx(albedo.a), hy = dFdy(albedo.a);
  vec3 r1 = cross(dy, n), r2 = cross(n, dx);
  float det = dot(dx, r1);
  if (abs(det) > 1e-8) n = normalize(abs(det) * n - bumpStrength * sign(det) * (hx * r1 + hy * r2));
#endif
  vec3 view = normalize(cameraPosition - vWorld);
  // Occlusion squared: a pit's floor (about 0.8 open) reads as darker than its rim; it dims the sun by half as much.
  float occ = mix(1.0, vOcclusion * vOcclusion, occlusionStrength);
  float cavity = occ * mix(0.8, 1.0, albedo.a); // the texture's low spots and the occluded corners
  float sun = max(dot(n, sunDirection), 0.0);
  if (sun > 0.0) sun *= sunShadow();
  vec3 hemisphere = mix(groundColour, skyColour, 0.5 * n.y + 0.5) * cavity;
  vec3 fill = fillColour * max(dot(n, fillDirection), 0.0) * occ;
  vec3 lit = albedo.rgb * (1.0 - metal) * (sunColour * sun * mix(1.0, occ, 0.5) + hemisphere + fill);
  // Glossy or metal surfaces only (most of the terrain is neither): a Blinn-Phong highlight of the sun and the
  // sky mirrored, by roughness.
  if (metal > 0.02 || roughness < 0.7) {
    vec3 f0 = mix(vec3(0.04), albedo.rgb, metal);
    float shininess = clamp(2.0 / (roughness * roughness * roughness * roughness) - 2.0, 1.0, 4096.0);
    float highlight = (shininess + 8.0) / 8.0 * exp2(shininess * (max(dot(n, normalize(sunDirection + view)), 0.0) - 1.0) * 1.4427);
    vec3 mirrored = reflect(-view, n);
    vec3 mirror = mix(groundColour, skySeen, clamp(mirrored.y * 1.7 + 0.5, 0.0, 1.0));
    vec3 surroundings = mix(mirror, hemisphere, roughness) * cavity;
    lit += f0 * (sunColour * sun * highlight + surroundings * mix(0.6, 1.0, metal));
  }
  // Emission (lava): self-lit, not sun-lit.
  vec3 colour = mix(lit, albedo.rgb * vSurface.b * emission, clamp(vSurface.b * 4.0, 0.0, 1.0));
  if (!gl_FrontFacing) colour *= 0.55; // seen from inside: darker, so wrong winding shows
  #ifdef USE_FOG
    colour = mix(colour, fogColour, smoothstep(fogNear, fogFar, vFogDepth));
  #endif
  gl_FragColor = vec4(colour, 1.0); // sRGB values lit directly, as the snapshots do (no colour-space step)
}
`;

// The uniforms every terrain material shares (the scene changes their values: textures arriving, quality,
// light colours).
export function terrainUniforms() {
  const maps = textureMaps(null);
  const srgb = (rgb) => ({ value: new THREE.Vector3(...rgb) }); // sRGB values, used as they are
  return {
    palette: { value: paletteTexture([]) }, layerTable: { value: maps.layers },
    albedoMaps: { value: maps.albedo }, surfaceMaps: { value: maps.surface }, surfaceLevel: { value: 0 },
    textureScale: { value: 0.5 }, occlusionStrength: { value: 1.0 }, emission: { value: LIGHT.glow },
    bumpStrength: { value: 0.0 },
    sunDirection: { value: SUN_DIRECTION.clone() }, fillDirection: { value: FILL_DIRECTION.clone() },
    sunColour: srgb(LIGHT.sun), skyColour: srgb(LIGHT.sky), groundColour: srgb(LIGHT.ground),
    fillColour: srgb(LIGHT.fill), skySeen: srgb(LIGHT.skySeen), fogColour: srgb([0.56, 0.72, 0.87]),
  };
}

// The terrain material (one for every chunk mesh, and the props): pushed back a little in depth so that the
// collision-mesh wireframe and the navmesh overlay drawn on the same surface win. ``uniforms``: terrainUniforms,
// shared (three's light and fog uniforms are added to each material's own copy).
export function terrainMaterial(uniforms, quality = "default") {
  const material = new THREE.ShaderMaterial({
    uniforms: { ...THREE.UniformsUtils.merge([THREE.UniformsLib.lights, THREE.UniformsLib.fog]), ...uniforms },
    vertexShader,
    fragmentShader,
    lights: true,
    fog: true,
    side: THREE.DoubleSide,
    polygonOffset: true,
    polygonOffsetFactor: 1,
    polygonOffsetUnits: 1,
  });
  if (quality === "low") material.defines = { TERRAIN_LOW: "" };
  return material;
}
