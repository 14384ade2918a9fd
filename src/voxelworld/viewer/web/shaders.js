// The terrain's look: the server's texture set mapped triplanar, two materials blended per vertex, lit by a sun
// casting shadows, a sky/ground hemisphere light with per-vertex ambient occlusion, and fog to the sky colour.
//
// Every display-mesh vertex carries two material ids (mat_a, mat_b, as bytes), the share of mat_b (blend, 0..1)
// and its occlusion (1 = open to the sky; docs/specs/play-protocol.md). The texture set comes from the server's
// /textures.bin (voxelworld.terrain.textures: one layer per texture name; albedo RGB + height in A, surface
// R = roughness, G = metalness, B = emission; layer_of: the layer a material id draws). What the shader needs of
// a vertex's two materials is looked up once on the CPU (materialTable, materialAttributes: their texture
// layers, table colours and mean surfaces) and carried as vertex attributes. The vertex shader lights what does
// not depend on the pixel (sky/ground hemisphere and a fill light opposite the sun, times the occlusion; the
// sun's angle; the fog). The fragment shader maps each material's albedo triplanar (one plane a pixel, dithered
// where planes share a slope), mixes the two by the blend and lights it as the offscreen snapshots do
// (voxelworld.viewer.gl_shaders; sRGB values lit directly): the sun times its shadow (three.js's shadow map),
// the per-vertex light times the texture's low spots, a highlight and the sky mirrored by roughness and
// metalness (iron, ice), emission self-lit (lava glows in any shade), and fog to the sky colour.
// A vertex's "cut" (cut_marks.js: 1 untouched, less within an enemy's cut) scales the light it takes, near and far:
// a freshly sawn face reads darker than the rock around it.
// A material without a layer (or before the textures arrive) is drawn in its table colour. A ShaderMaterial, not
// three's MeshStandardMaterial: under SwiftShader the standard material's lighting costs several times the frame.
//
// Why it is built so: under SwiftShader (software WebGL, where the page's speed is measured: benchmarks/page.py)
// every texture lookup, every value passed from vertex to pixel and every side of a branch costs time for every
// pixel (SwiftShader runs both sides); a texture lookup per vertex cost a fifth of the terrain's picture, three
// planes a material half again a sample's.
//
// Quality (QUALITIES): "default" as above; "low" draws the table colours with a little grain (no texture
// sample, as the page did before textures), lit by the same sun and sky and glowing lava, without shadows or
// occlusion.

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
// three.js's lights (the characters' and the crowns' light): the hemisphere's sky and ground colours and
// intensity, the sun's colour and intensity (sRGB hex colours, as three takes them).
export const THREE_LIGHTS = { sky: 0xd6e6ff, ground: 0x6b5a45, hemisphere: 0.9, sun: 0xfff4e0, sunIntensity: 1.8 };
export const NONE_COLOUR = [0.5, 0.5, 0.5];
export const NO_LAYER = 255; // the layer table's value for "no texture: the palette colour"
export const QUALITIES = ["default", "low"];

// Per material id (0..255): its texture layer (NO_LAYER: none), its table colour and its texture's mean surface
// (roughness, metalness, emission; a material without a texture: rough, not metal, not glowing), as bytes; from
// the hello message's materials and the decoded texture set (null before it arrives).
export function materialTable(materials, set = null) {
  const layer = new Uint8Array(256).fill(NO_LAYER), colour = new Uint8Array(3 * 256), surface = new Uint8Array(3 * 256);
  const bytes = (rgb) => rgb.map((c) => Math.round(255 * c));
  for (let id = 0; id < 256; id++) {
    colour.set(bytes(NONE_COLOUR), 3 * id);
    surface.set(NO_SURFACE, 3 * id);
  }
  for (const m of materials) {
    if (Number.isInteger(m.id) && m.id >= 0 && m.id < 256) colour.set(bytes(m.colour), 3 * m.id);
  }
  if (set) {
    const means = meanSurfaces(set);
    for (let id = 0; id < 256; id++) {
      const l = set.layerOf[id];
      if (l >= 0 && l < set.layers) {
        layer[id] = l;
        surface.set(means.subarray(3 * l, 3 * l + 3), 3 * id);
      }
    }
  }
  return { layer, colour, surface };
}

const NO_SURFACE = [230, 0, 0]; // roughness 0.9, no metal, no glow

// Each layer's mean surface (roughness, metalness, emission bytes), 3 per layer.
function meanSurfaces(set) {
  const pixels = set.size * set.size, means = new Uint8Array(3 * set.layers);
  for (let l = 0; l < set.layers; l++) {
    for (let c = 0; c < 3; c++) {
      let sum = 0;
      for (let p = 0; p < pixels; p++) sum += set.surface[4 * (l * pixels + p) + c];
      means[3 * l + c] = Math.round(sum / pixels);
    }
  }
  return means;
}

// The vertex attributes the terrain shader reads, set on ``geometry`` from its mat_a, mat_b and blend through
// ``table`` (materialTable): layers (the two materials' texture layers), palette_a and palette_b (their table
// colours), surface (their mean surfaces mixed by the blend); and cut (0..1, the share of its colour a vertex keeps
// where an enemy cut, cut_marks.js) all 1 unless the geometry has it.
export function materialAttributes(geometry, table) {
  const a = geometry.attributes.mat_a.array, b = geometry.attributes.mat_b.array;
  const blend = geometry.attributes.blend.array, n = a.length;
  const layers = new Uint8Array(2 * n), paletteA = new Uint8Array(3 * n), paletteB = new Uint8Array(3 * n);
  const surface = new Uint8Array(3 * n);
  for (let v = 0; v < n; v++) {
    const ia = a[v], ib = b[v], t = Math.min(Math.max(blend[v], 0), 1);
    layers[2 * v] = table.layer[ia];
    layers[2 * v + 1] = table.layer[ib];
    for (let c = 0; c < 3; c++) {
      paletteA[3 * v + c] = table.colour[3 * ia + c];
      paletteB[3 * v + c] = table.colour[3 * ib + c];
      surface[3 * v + c] = Math.round(table.surface[3 * ia + c] * (1 - t) + table.surface[3 * ib + c] * t);
    }
  }
  geometry.setAttribute("layers", new THREE.BufferAttribute(layers, 2)); // whole numbers in the shader
  geometry.setAttribute("palette_a", new THREE.BufferAttribute(paletteA, 3, true)); // 0..1 in the shader
  geometry.setAttribute("palette_b", new THREE.BufferAttribute(paletteB, 3, true));
  geometry.setAttribute("surface", new THREE.BufferAttribute(surface, 3, true));
  if (!geometry.attributes.cut) { // the share of its colour a vertex keeps (cut_marks.js shades it): all of it
    geometry.setAttribute("cut", new THREE.BufferAttribute(new Uint8Array(n).fill(255), 1, true));
  }
  geometry.userData.shading = shadingOf(layers, surface);
}

// What a mesh's pixels need of the terrain shader (terrainMaterial's ``shading``), from its vertices' layers and
// surfaces (materialAttributes): ``blend``, whether any vertex's two layers differ (else one texture sample a
// pixel); ``gloss``, whether any vertex is metal or smooth enough for the highlight (the shader's test: no pixel
// between such vertices passes it); ``metal``, ``glow``, whether any vertex is metal at all, or glows; ``palette``,
// whether any vertex has a material without a texture (drawn in its table colour). Under SwiftShader both sides of
// a branch, every sample and every value passed from vertex to pixel cost every pixel: a mesh that needs none of
// them is drawn by a shader without them (the same picture).
export function shadingOf(layers, surface) {
  let blend = false, gloss = false, metal = false, glow = false, palette = false;
  for (let v = 0; 2 * v < layers.length; v++) {
    if (layers[2 * v] !== layers[2 * v + 1]) blend = true;
    if (layers[2 * v] === NO_LAYER || layers[2 * v + 1] === NO_LAYER) palette = true;
    if (surface[3 * v] / 255 < 0.7 || surface[3 * v + 1] / 255 > 0.02) gloss = true;
    if (surface[3 * v + 1] > 0) metal = true;
    if (surface[3 * v + 2] > 0) glow = true;
  }
  return { blend, gloss, metal, glow, palette };
}

// The key of a ``shading`` (shadingOf) among the materials made for each (scene.js chunkShader).
export function shadingKey(shading) {
  return ["blend", "gloss", "metal", "glow", "palette"].map((name) => (shading[name] === false ? "0" : "1")).join("");
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

// ``software``: WebGL draws on the CPU (scene.js softwareRenderer): there the nearest texel of the nearest mipmap
// is looked up (a bilinear lookup cost a tenth of the picture under SwiftShader; a texel is 1.6 cm of the world,
// 128 pixels over 2 m); with a graphics card, bilinear within the nearest mipmap.
function arrayTexture(data, size, layers, colorSpace, software) {
  const texture = new THREE.DataArrayTexture(data, size, size, layers);
  texture.format = THREE.RGBAFormat;
  texture.colorSpace = colorSpace;
  texture.wrapS = texture.wrapT = THREE.RepeatWrapping;
  texture.magFilter = software ? THREE.NearestFilter : THREE.LinearFilter;
  texture.minFilter = software ? THREE.NearestMipmapNearestFilter : THREE.LinearMipmapNearestFilter;
  texture.generateMipmaps = true;
  texture.anisotropy = 1;
  texture.needsUpdate = true;
  return texture;
}

// The GPU side of a decoded texture set (or of none: a blank layer no vertex draws); ``software`` as arrayTexture.
export function textureMaps(set, software = false) {
  if (!set) return { albedo: arrayTexture(new Uint8Array(4).fill(255), 1, 1, THREE.NoColorSpace, software) };
  // sRGB bytes, decoded in the shader
  return { albedo: arrayTexture(set.albedo, set.size, set.layers, THREE.NoColorSpace, software) };
}

// What the terrain's vertex shader hands its fragment shader (declared once, in both), each only where the mesh's
// pixels need it (terrainMaterial's defines: at low quality no texture layers, normal or highlight; TERRAIN_LAYERS
// and TERRAIN_SURFACE where they are needed at all). Under SwiftShader each value passed costs every small triangle
// its set-up and every pixel its interpolation, so: the triplanar planes' weights come per vertex (vPlanes,
// planeWeights: two values; the normal only for a glossy mesh's highlight); the texture layers are flat (the last
// vertex's, WebGL's rule: a layer number between two vertices' is no material); the shadow coordinate three values.
const TERRAIN_VARYINGS = /* glsl */ `
#if defined(TERRAIN_LOW) && !defined(USE_SHADOWMAP)
#define TERRAIN_LOW_LIT // low quality without the sun's shadow: the light and the glow per vertex (vLit)
#endif
varying vec3 vWorld;
#ifdef TERRAIN_LOW_LIT
varying vec3 vLit; // the table colour lit, or glowing, times what the fog leaves of it
#else
#ifndef TERRAIN_LOW
varying vec2 vPlanes; // the triplanar planes' weights (planeWeights): x, x + y
#ifndef TERRAIN_MATT
varying vec3 vWorldNormal; // for the highlight
#endif
#ifdef TERRAIN_ONE_LAYER
flat varying float vLayer;
#else
flat varying vec2 vLayers;
varying float vBlend;
#endif
#endif
#ifdef TERRAIN_PALETTE
varying vec3 vPalette;
#endif
#ifdef TERRAIN_SURFACE
varying vec4 vSurface; // roughness, metalness, emission, occlusion
#endif
varying vec3 vAmbient;
varying float vSun;
#endif
varying float vFog;
#if defined(USE_SHADOWMAP) && NUM_DIR_LIGHT_SHADOWS > 0
varying vec3 vShadowCoord; // the pixel's place in the sun's shadow map (xy) and its depth there (z)
#endif
`;

// The triplanar planes' weights for a normal (their shares, sharpened, a plane under 5 % dropped) as two values:
// the x plane's share and the x and y planes' together (the fragment shader picks one plane a pixel by them).
const PLANE_WEIGHTS = /* glsl */ `
vec2 planeWeights(vec3 n) {
  vec3 w = abs(n);
  w = max(w * w * w * w - 0.05, 0.0);
  w /= w.x + w.y + w.z;
  return vec2(w.x, w.x + w.y);
}
`;

// The light every terrain shader shares.
const LIGHT_UNIFORMS = /* glsl */ `
uniform float occlusionStrength;
uniform vec3 skyColour;
uniform vec3 groundColour;
uniform vec3 skySeen;
uniform vec3 sunColour;
uniform vec3 sunDirection;
uniform vec3 fillColour;
uniform vec3 fillDirection;
uniform vec3 fogColour;
uniform float shadowFade;
`;

// The sun's shadow where the shadow map covers only the square around the camera (scene.js SHADOW_REACH; its
// shadowFade, 1 over the share of the map it fades over: 0 where the map covers the whole world): faded out
// towards the map's edge, none beyond it. ``uv``: the pixel's place in the map.
const SHADOW_FADE = /* glsl */ `
float shadowFaded(float shadow, vec2 uv) {
  vec2 edge = min(uv, 1.0 - uv);
  return shadowFade > 0.0 ? mix(1.0, shadow, clamp(min(edge.x, edge.y) * shadowFade, 0.0, 1.0)) : shadow;
}
`;

// The light both terrain vertex shaders (near and far) work out per vertex, after LIGHT_UNIFORMS: occlusion squared
// (a pit's floor, about 0.8 open, reads darker than its rim), the sky/ground hemisphere and the fill light dimmed
// by it, the sun's angle dimmed half as much, and the fog.
const VERTEX_LIGHT = /* glsl */ `
#ifdef USE_FOG
uniform float fogNear;
uniform float fogFar;
#endif
float occlusionLight(float occlusion) { return mix(1.0, occlusion * occlusion, occlusionStrength); }
vec3 ambientLight(vec3 n, float occ) {
  return (mix(groundColour, skyColour, 0.5 * n.y + 0.5) + fillColour * max(dot(n, fillDirection), 0.0)) * occ;
}
float sunLight(vec3 n, float occ) { return max(dot(n, sunDirection), 0.0) * mix(1.0, occ, 0.5); }
float fogAmount(vec4 mvPosition) {
  #ifdef USE_FOG
    return smoothstep(fogNear, fogFar, -mvPosition.z);
  #else
    return 0.0;
  #endif
}
`;

// Per vertex: where it is, its two materials, and the light that does not depend on the pixel: the sky/ground
// hemisphere and the fill light times the occlusion (one colour), the sun's angle (dimmed half as much by the
// occlusion), the fog. Per pixel (fragment shader): the textures, the sun's shadow, the highlight, emission and
// the fog's colour. As few values as possible pass between the two: SwiftShader interpolates each for every pixel.
const vertexShader = /* glsl */ `
#include <common>
#include <shadowmap_pars_vertex>
uniform float emission;
attribute float blend;
attribute float occlusion;
attribute vec2 layers;
attribute vec3 palette_a;
attribute vec3 palette_b;
attribute vec3 surface;
attribute float cut;
${LIGHT_UNIFORMS}
${VERTEX_LIGHT}
${TERRAIN_VARYINGS}
${PLANE_WEIGHTS}
void main() {
  vec3 objectNormal = normal;
  vec3 transformed = position;
  vec4 mvPosition = modelViewMatrix * vec4(transformed, 1.0);
  vec4 worldPosition = modelMatrix * vec4(transformed, 1.0);
  gl_Position = projectionMatrix * mvPosition;
  vec3 n = normalize(mat3(modelMatrix) * objectNormal);
#if defined(USE_SHADOWMAP) && NUM_DIR_LIGHT_SHADOWS > 0
  // three's shadowmap_vertex, for the sun alone (its normal bias along the world normal) and without the w
  vec4 shadowWorld = worldPosition + vec4(n * directionalLightShadows[0].shadowNormalBias, 0.0);
  vShadowCoord = (directionalShadowMatrix[0] * shadowWorld).xyz;
#endif
  vWorld = worldPosition.xyz;
  float blended = clamp(blend, 0.0, 1.0);
  float occ = occlusionLight(occlusion);
  vFog = fogAmount(mvPosition);
#ifdef TERRAIN_LOW_LIT
  // The fragment shader's light at low quality (its texture's low spots 0.9, no shadow), and its glow
  vec3 palette = mix(palette_a, palette_b, blended);
  vec3 lit = palette * (sunColour * sunLight(n, occ) + ambientLight(n, occ) * 0.9) * cut;
#ifdef TERRAIN_GLOW
  lit = mix(lit, palette * surface.b * emission, clamp(surface.b * 4.0, 0.0, 1.0));
#endif
  vLit = lit * (1.0 - vFog);
#else
#ifndef TERRAIN_LOW
  vPlanes = planeWeights(n);
#ifndef TERRAIN_MATT
  vWorldNormal = n;
#endif
#ifdef TERRAIN_ONE_LAYER
  vLayer = layers.x;
#else
  vLayers = layers;
  vBlend = blended;
#endif
#endif
#ifdef TERRAIN_PALETTE
  vPalette = mix(palette_a, palette_b, blended); // the table colours (low quality; a material without a texture)
#endif
#ifdef TERRAIN_SURFACE
  vSurface = vec4(surface, occ);
#endif
  vAmbient = ambientLight(n, occ) * cut; // a cut face darker (cut_marks.js)
  vSun = sunLight(n, occ) * cut;
#endif
}
`;

const fragmentShader = /* glsl */ `
#include <common>
#include <packing>
#include <lights_pars_begin>
#include <shadowmap_pars_fragment>
uniform highp sampler2DArray albedoMaps;
uniform float textureScale;
uniform float emission;
${LIGHT_UNIFORMS}
${SHADOW_FADE}
${TERRAIN_VARYINGS}
${PLANE_WEIGHTS}
// One material's albedo (rgb, sRGB) and height (a) at uv; a material without a texture draws the vertex's two
// table colours mixed by its blend (vPalette: one value passed per pixel, not two).
vec4 albedoOf(float layer, vec2 uv) {
  vec4 albedo = texture(albedoMaps, vec3(uv, layer));
#if defined(TERRAIN_PALETTE) && !defined(TERRAIN_LOW_LIT)
  return layer > 254.5 ? vec4(vPalette, 0.5) : albedo;
#else
  return albedo; // no vertex without a texture: no pixel between them lacks one
#endif
}

// Low quality: the table colours with a little per-voxel grain (the old page's look), no texture sample.
float grain(vec3 p) {
  p = fract(p * 0.3183099 + 0.1) * 17.0;
  return fract(p.x * p.y * p.z * (p.x + p.y + p.z));
}

// The sun's shadow: one lookup of three's shadow map (BasicShadowMap: the nearest texel's depth compared), not a
// filtered or soft shadow (under SwiftShader a filtered lookup cost a sixth of the terrain's picture).
float sunShadow() {
#if defined(USE_SHADOWMAP) && NUM_DIR_LIGHT_SHADOWS > 0 && defined(SHADOWMAP_TYPE_BASIC)
  vec3 p = vShadowCoord;
  p.z += directionalLightShadows[0].shadowBias;
  return shadowFaded(step(p.z, texture2D(directionalShadowMap[0], p.xy).r), p.xy);
#else
  return 1.0;
#endif
}

void main() {
#ifdef TERRAIN_LOW_LIT
  vec3 lit = vLit * (0.94 + 0.12 * grain(floor(vWorld * 4.0))); // the table colours' per-voxel grain
#ifndef TERRAIN_FRONT_ONLY
  if (!gl_FrontFacing) lit *= 0.55;
#endif
  gl_FragColor = vec4(lit + fogColour * vFog, 1.0);
#else
#ifdef TERRAIN_LOW
  vec4 albedo = vec4(vPalette * (0.94 + 0.12 * grain(floor(vWorld * 4.0))), 0.5); // no metal, no highlight
#else
#ifndef TERRAIN_MATT
#ifdef TERRAIN_FRONT_ONLY
  vec3 n = normalize(vWorldNormal);
#else
  vec3 n = normalize(vWorldNormal) * (gl_FrontFacing ? 1.0 : -1.0);
#endif
#endif
  // Triplanar projection, one plane a pixel: the plane the normal faces most, or, where two or three planes share
  // the normal (planeWeights), one of them at random in proportion to its weight:
  // a dither that reads as the planes' blend, for one texture sample a material (under SwiftShader each sample
  // costs a tenth of the picture, and it runs every side of a branch: three planes cost three samples).
  vec3 p = vWorld * textureScale;
  float pick = grain(floor(vWorld * 32.0));
  vec2 uv = pick < vPlanes.x ? p.zy : (pick < vPlanes.y ? p.xz : p.xy);
#ifdef TERRAIN_ONE_LAYER
  vec4 albedo = albedoOf(vLayer, uv); // every vertex's two layers the same: one sample
#else
  vec4 albedo = mix(albedoOf(vLayers.x, uv), albedoOf(vLayers.y, uv), vBlend);
#endif
#endif
  float shadow = 1.0;
  if (vSun > 0.0) shadow = sunShadow(); // a branch: skipped where the sun does not reach
  float low = mix(0.8, 1.0, albedo.a); // the texture's low spots darker
#ifdef TERRAIN_METAL
  float metal = vSurface.g;
  vec3 lit = albedo.rgb * (1.0 - metal) * (sunColour * vSun * shadow + vAmbient * low);
#else
  vec3 lit = albedo.rgb * (sunColour * vSun * shadow + vAmbient * low);
#endif
  // Glossy or metal surfaces only (most of the terrain is neither): a Blinn-Phong highlight of the sun and the
  // sky mirrored, by roughness.
#if !defined(TERRAIN_MATT) && !defined(TERRAIN_LOW)
  float roughness = clamp(vSurface.r, 0.05, 1.0);
#ifndef TERRAIN_METAL
  float metal = 0.0;
#endif
  if (metal > 0.02 || roughness < 0.7) {
    vec3 view = normalize(cameraPosition - vWorld);
    vec3 f0 = mix(vec3(0.04), albedo.rgb, metal);
    float shininess = clamp(2.0 / (roughness * roughness * roughness * roughness) - 2.0, 1.0, 4096.0);
    float highlight = (shininess + 8.0) / 8.0 * exp2(shininess * (max(dot(n, normalize(sunDirection + view)), 0.0) - 1.0) * 1.4427);
    vec3 mirrored = reflect(-view, n);
    vec3 mirror = mix(groundColour, skySeen, clamp(mirrored.y * 1.7 + 0.5, 0.0, 1.0));
    vec3 surroundings = mix(mirror, vAmbient * low, roughness) * vSurface.a * low;
    lit += f0 * (sunColour * vSun * shadow * highlight + surroundings * mix(0.6, 1.0, metal));
  }
#endif
  // Emission (lava): self-lit, not sun-lit.
#ifdef TERRAIN_GLOW
  vec3 colour = mix(lit, albedo.rgb * vSurface.b * emission, clamp(vSurface.b * 4.0, 0.0, 1.0));
#else
  vec3 colour = lit;
#endif
#ifndef TERRAIN_FRONT_ONLY
  if (!gl_FrontFacing) colour *= 0.55; // seen from inside: darker, so wrong winding shows
#endif
  colour = mix(colour, fogColour, vFog);
  gl_FragColor = vec4(colour, 1.0); // sRGB values lit directly, as the snapshots do (no colour-space step)
#endif
}
`;

// The far terrain (batches.js FAR_SHADING metres and more from the camera): each material's table colour (its
// texture's mean: what the nearest mipmap shows that far), lit per vertex by the same sky, fill and sun, the sun
// times its shadow per pixel, emission and fog; no texture sample and no highlight. Under SwiftShader every value
// passed from vertex to pixel costs each of the many small far triangles its set-up and every pixel its
// interpolation (docs/benchmarks.md): so the fog is mixed in per vertex (a far triangle spans little of it), and
// where no shadow falls (low quality, or outside the shadow map's square) the whole colour is one value; with the
// shadow, two (what the sun does not light, and the sun's share the shadow dims). Drawn front faces only: no test of
// the facing per pixel.
const FAR_SHADOW = /* glsl */ `
#if defined(USE_SHADOWMAP) && NUM_DIR_LIGHT_SHADOWS > 0 && defined(SHADOWMAP_TYPE_BASIC) && !defined(TERRAIN_UNSHADOWED)
#define FAR_SHADOWED
#endif
varying vec3 vBase; // what the sun's shadow does not dim (without a shadow: everything), fogged
#ifdef FAR_SHADOWED
varying vec3 vSunLit; // the sun's share, fogged, times the shadow per pixel
#endif
`;

const farVertexShader = /* glsl */ `
#include <common>
${FAR_SHADOW}
#ifdef FAR_SHADOWED
#include <shadowmap_pars_vertex>
#endif
uniform float emission;
attribute float blend;
attribute float occlusion;
attribute vec3 palette_a;
attribute vec3 palette_b;
attribute vec3 surface;
attribute float cut;
${LIGHT_UNIFORMS}
${VERTEX_LIGHT}
void main() {
  vec3 objectNormal = normal;
  vec3 transformedNormal = normalMatrix * objectNormal;
  vec3 transformed = position;
  vec4 mvPosition = modelViewMatrix * vec4(transformed, 1.0);
  vec4 worldPosition = modelMatrix * vec4(transformed, 1.0);
  gl_Position = projectionMatrix * mvPosition;
#ifdef FAR_SHADOWED
  #include <shadowmap_vertex>
#endif
  vec3 n = normalize(mat3(modelMatrix) * objectNormal);
  vec3 albedo = mix(palette_a, palette_b, clamp(blend, 0.0, 1.0));
  float occ = occlusionLight(occlusion);
  float metal = surface.g, glow = clamp(surface.b * 4.0, 0.0, 1.0);
  // 0.9: the texture's mean low spots
  vec3 base = mix(albedo * (1.0 - metal) * ambientLight(n, occ) * 0.9 * cut, albedo * surface.b * emission, glow);
  vec3 sunLit = albedo * (1.0 - metal) * sunColour * sunLight(n, occ) * (1.0 - glow) * cut;
  float fog = fogAmount(mvPosition);
#ifdef FAR_SHADOWED
  vBase = mix(base, fogColour, fog);
  vSunLit = sunLit * (1.0 - fog);
#else
  vBase = mix(base + sunLit, fogColour, fog);
#endif
}
`;

const farFragmentShader = /* glsl */ `
#include <common>
#include <packing>
${FAR_SHADOW}
#ifdef FAR_SHADOWED
#include <lights_pars_begin>
#include <shadowmap_pars_fragment>
${LIGHT_UNIFORMS}
${SHADOW_FADE}
#endif
void main() {
#ifdef FAR_SHADOWED
  vec3 p = vDirectionalShadowCoord[0].xyz / vDirectionalShadowCoord[0].w;
  p.z += directionalLightShadows[0].shadowBias;
  float shadow = shadowFaded(step(p.z, texture2D(directionalShadowMap[0], p.xy).r), p.xy);
  gl_FragColor = vec4(vBase + vSunLit * shadow, 1.0);
#else
  gl_FragColor = vec4(vBase, 1.0);
#endif
}
`;

// The uniforms every terrain material shares (the scene changes their values: textures arriving, quality,
// light colours).
export function terrainUniforms() {
  const maps = textureMaps(null);
  const srgb = (rgb) => ({ value: new THREE.Vector3(...rgb) }); // sRGB values, used as they are
  return {
    albedoMaps: { value: maps.albedo },
    textureScale: { value: 0.5 }, occlusionStrength: { value: 1.0 }, emission: { value: LIGHT.glow },
    shadowFade: { value: 0 }, // scene.js fitShadow
    sunDirection: { value: SUN_DIRECTION.clone() }, fillDirection: { value: FILL_DIRECTION.clone() },
    sunColour: srgb(LIGHT.sun), skyColour: srgb(LIGHT.sky), groundColour: srgb(LIGHT.ground),
    fillColour: srgb(LIGHT.fill), skySeen: srgb(LIGHT.skySeen), fogColour: srgb([0.56, 0.72, 0.87]),
  };
}

// The terrain material (one for every chunk mesh, and the props; ``far``: the far terrain's; ``shading``: what its
// meshes' pixels need, shadingOf: a mesh that blends no two textures or has nothing glossy is drawn without): pushed back a little in depth so that the
// collision-mesh wireframe and the navmesh overlay drawn on the same surface win. ``uniforms``: terrainUniforms,
// shared (three's light and fog uniforms are added to each material's own copy).
export function terrainMaterial(uniforms, quality = "default", far = false, shading = {}, oneSided = far) {
  const material = new THREE.ShaderMaterial({
    uniforms: { ...THREE.UniformsUtils.merge([THREE.UniformsLib.lights, THREE.UniformsLib.fog]), ...uniforms },
    vertexShader: far ? farVertexShader : vertexShader,
    fragmentShader: far ? farFragmentShader : fragmentShader,
    lights: true,
    fog: true,
    side: oneSided ? THREE.FrontSide : THREE.DoubleSide,
    polygonOffset: true,
    polygonOffsetFactor: 1,
    polygonOffsetUnits: 1,
  });
  // What the pixels need (shadingOf; a need not given is there): at low quality no texture, metal or highlight.
  const needs = (name) => shading[name] !== false;
  const low = quality === "low", gloss = !low && needs("gloss"), metal = !low && needs("metal");
  const defines = {};
  if (low) defines.TERRAIN_LOW = "";
  if (!needs("blend")) defines.TERRAIN_ONE_LAYER = "";
  if (!gloss) defines.TERRAIN_MATT = "";
  if (metal) defines.TERRAIN_METAL = "";
  if (needs("glow")) defines.TERRAIN_GLOW = "";
  if (low || needs("palette")) defines.TERRAIN_PALETTE = "";
  if (gloss || metal || needs("glow")) defines.TERRAIN_SURFACE = "";
  // The far material for meshes wholly outside the shadow map's square (scene.js outsideShadow): there the shadow
  // fades to none (SHADOW_FADE: exactly 1), so neither its coordinates nor its lookup are needed.
  if (far && shading.shadow === false) defines.TERRAIN_UNSHADOWED = "";
  if (oneSided && !far) defines.TERRAIN_FRONT_ONLY = ""; // (the far shader never looks at the facing)
  material.defines = defines;
  return material;
}
