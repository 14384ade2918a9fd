"""The GLSL programs of the offscreen snapshots (:mod:`voxelworld.viewer.snapshot`), OpenGL 3.3 core.

- ``SHADOW_*``: the sun's depth pass (positions only), drawn into the shadow map.
- ``SURFACE_*``: the terrain. Each triangle corner carries its three corners' material layers and blends (flat)
  and its barycentric weight, so a fragment blends up to two textures per corner even where a triangle's
  corners disagree; the texture layers are sampled triplanarly at world position / texture_metres. Light: a
  sun (Lambert + Blinn-Phong, shadowed by the map with 3 x 3 filtered taps), a sky/ground hemisphere light
  scaled by the vertex occlusion and the texture's height (crevices darker), a sky/ground reflection for
  glossy and metal surfaces, emission (unlit glow: any emission makes a texel self-lit, not sun-lit), and
  distance fog towards the background colour. Colours are sRGB values lit directly, as before textures.
- ``WIRE_*``: the collision wireframe in one colour.
"""

from __future__ import annotations

__all__ = ["SHADOW_VERTEX", "SHADOW_FRAGMENT", "SURFACE_VERTEX", "SURFACE_FRAGMENT", "WIRE_VERTEX",
           "WIRE_FRAGMENT"]

SHADOW_VERTEX = """
#version 330
uniform mat4 sun_matrix;
in vec3 in_position;
void main() {
    gl_Position = sun_matrix * vec4(in_position, 1.0);
}
"""

SHADOW_FRAGMENT = """
#version 330
void main() {
}
"""

SURFACE_VERTEX = """
#version 330
uniform mat4 view_projection;
in vec3 in_position;
in vec3 in_normal;
in vec3 in_corner;      // barycentric weight: (1,0,0), (0,1,0) or (0,0,1)
in float in_occlusion;  // 1 open to the sky .. 0 enclosed
in vec3 in_blends;      // the triangle's three corners' share of mat_b
in ivec3 in_layers_a;   // the three corners' mat_a texture layers
in ivec3 in_layers_b;   // the three corners' mat_b texture layers
out vec3 v_position;
out vec3 v_normal;
out vec3 v_corner;
out float v_occlusion;
flat out vec3 v_blends;
flat out ivec3 v_layers_a;
flat out ivec3 v_layers_b;
void main() {
    v_position = in_position;
    v_normal = in_normal;
    v_corner = in_corner;
    v_occlusion = in_occlusion;
    v_blends = in_blends;
    v_layers_a = in_layers_a;
    v_layers_b = in_layers_b;
    gl_Position = view_projection * vec4(in_position, 1.0);
}
"""

SURFACE_FRAGMENT = """
#version 330
uniform sampler2DArray albedo_maps;   // sRGB + height
uniform sampler2DArray surface_maps;  // roughness, metalness, emission
uniform sampler2DShadow shadow_map;
uniform mat4 sun_matrix;
uniform vec3 light_direction;
uniform vec3 sun_colour;
uniform vec3 sky_colour;
uniform vec3 ground_colour;
uniform vec3 sky_seen;
uniform vec3 fill_colour;
uniform vec3 fill_direction;
uniform vec3 fog_colour;
uniform vec3 eye;
uniform float texture_metres;
uniform float fog_density;     // 1 / m
uniform float shadow_texel;    // one shadow-map texel in its clip units
uniform float shadow_offset;   // m along the normal, against self-shadowing
uniform float back_face_shade;
uniform float glow;            // how bright full emission is, times the albedo
in vec3 v_position;
in vec3 v_normal;
in vec3 v_corner;
in float v_occlusion;
flat in vec3 v_blends;
flat in ivec3 v_layers_a;
flat in ivec3 v_layers_b;
out vec4 colour;

vec3 plane_weights;
vec2 uv_x, uv_y, uv_z;
vec2 dx_x, dx_y, dx_z, dy_x, dy_y, dy_z;

// One layer sampled on the three planes, weighted by the normal (gradients given: the branches are per triangle).
void sample_layer(int layer, out vec4 albedo, out vec4 surface) {
    float l = float(layer);
    albedo = textureGrad(albedo_maps, vec3(uv_x, l), dx_x, dy_x) * plane_weights.x
           + textureGrad(albedo_maps, vec3(uv_y, l), dx_y, dy_y) * plane_weights.y
           + textureGrad(albedo_maps, vec3(uv_z, l), dx_z, dy_z) * plane_weights.z;
    surface = textureGrad(surface_maps, vec3(uv_x, l), dx_x, dy_x) * plane_weights.x
            + textureGrad(surface_maps, vec3(uv_y, l), dx_y, dy_y) * plane_weights.y
            + textureGrad(surface_maps, vec3(uv_z, l), dx_z, dy_z) * plane_weights.z;
}

void sample_pair(int a, int b, float share, out vec4 albedo, out vec4 surface) {
    sample_layer(a, albedo, surface);
    if (b != a) {
        vec4 albedo_b, surface_b;
        sample_layer(b, albedo_b, surface_b);
        albedo = mix(albedo, albedo_b, share);
        surface = mix(surface, surface_b, share);
    }
}

float macro_variation(int layer, vec3 position) {
    vec3 p = position / (texture_metres * 5.3);
    vec4 coarse = textureLod(albedo_maps, vec3(p.xz + 0.37, float(layer)), 4.0) * plane_weights.y
                + textureLod(albedo_maps, vec3(p.zy + 0.61, float(layer)), 4.0) * plane_weights.x
                + textureLod(albedo_maps, vec3(p.xy + 0.13, float(layer)), 4.0) * plane_weights.z;
    vec4 mean = textureLod(albedo_maps, vec3(0.5, 0.5, float(layer)), 7.0);
    float ratio = dot(coarse.rgb, vec3(1.0)) / max(dot(mean.rgb, vec3(1.0)), 1e-3);
    return clamp(1.0 + 0.8 * (ratio - 1.0), 0.8, 1.2);
}

float sunlight(vec3 position, vec3 n) {
    vec4 clip = sun_matrix * vec4(position + n * shadow_offset, 1.0);
    vec3 p = clip.xyz / clip.w * 0.5 + 0.5;
    if (any(lessThan(p, vec3(0.0))) || any(greaterThan(p, vec3(1.0)))) return 1.0;
    float lit = 0.0;
    for (int i = -1; i <= 1; i++)
        for (int j = -1; j <= 1; j++)
            lit += texture(shadow_map, vec3(p.xy + vec2(i, j) * shadow_texel, p.z - 0.0005));
    return lit / 9.0;
}

void main() {
    vec3 dpdx = dFdx(v_position), dpdy = dFdy(v_position);
    // A vertex normal of zero length (a degenerate spot) falls back to the flat normal of the triangle.
    vec3 n = length(v_normal) > 1e-6 ? normalize(v_normal) : normalize(cross(dpdx, dpdy));
    float shade = 1.0;
    if (!gl_FrontFacing) {
        n = -n;
        shade = back_face_shade;
    }
    vec3 weights = pow(abs(n), vec3(4.0));
    plane_weights = weights / max(weights.x + weights.y + weights.z, 1e-6);
    vec3 p = v_position / texture_metres, px = dpdx / texture_metres, py = dpdy / texture_metres;
    uv_x = p.zy; dx_x = px.zy; dy_x = py.zy;
    uv_y = p.xz; dx_y = px.xz; dy_y = py.xz;
    uv_z = p.xy; dx_z = px.xy; dy_z = py.xy;

    vec4 albedo, surface;
    if (v_layers_a.x == v_layers_a.y && v_layers_a.y == v_layers_a.z
            && v_layers_b.x == v_layers_b.y && v_layers_b.y == v_layers_b.z) {
        // One pair of materials over the triangle (as display meshes have it): blend by the interpolated share.
        sample_pair(v_layers_a.x, v_layers_b.x, dot(v_corner, v_blends), albedo, surface);
    } else {
        // Corners that disagree: each corner's blend of its own pair, weighted by nearness to the corner.
        vec4 a0, s0, a1, s1, a2, s2;
        sample_pair(v_layers_a.x, v_layers_b.x, v_blends.x, a0, s0);
        sample_pair(v_layers_a.y, v_layers_b.y, v_blends.y, a1, s1);
        sample_pair(v_layers_a.z, v_layers_b.z, v_blends.z, a2, s2);
        albedo = a0 * v_corner.x + a1 * v_corner.y + a2 * v_corner.z;
        surface = s0 * v_corner.x + s1 * v_corner.y + s2 * v_corner.z;
    }
    // A large-scale variation (the same pictures 5.3 times larger, their brightness against their average)
    // breaks the repetition of the 2 m tile across a field.
    vec3 base = albedo.rgb * macro_variation(v_layers_a.x, v_position);
    float roughness = max(surface.r, 0.04);
    float metalness = surface.g;
    float emission = surface.b;

    vec3 to_eye = normalize(eye - v_position);
    float facing = max(dot(n, to_eye), 0.0);
    float n_dot_l = max(dot(n, light_direction), 0.0);
    float sun = n_dot_l > 0.0 ? sunlight(v_position, n) * n_dot_l : 0.0;
    float cavity = v_occlusion * mix(0.8, 1.0, albedo.a);  // the texture's low spots and the occluded corners
    vec3 hemisphere = mix(ground_colour, sky_colour, n.y * 0.5 + 0.5) * cavity;

    vec3 f0 = mix(vec3(0.04), base, metalness);
    vec3 fresnel = f0 + (1.0 - f0) * pow(1.0 - facing, 5.0) * (1.0 - roughness);
    float shininess = clamp(2.0 / (roughness * roughness * roughness * roughness) - 2.0, 1.0, 4096.0);
    vec3 halfway = normalize(light_direction + to_eye);
    float highlight = (shininess + 8.0) / 8.0 * pow(max(dot(n, halfway), 0.0), shininess);
    vec3 mirrored = reflect(-to_eye, n);
    vec3 mirror = mix(ground_colour, sky_seen, smoothstep(-0.3, 0.3, mirrored.y));
    vec3 surroundings = mix(mirror, hemisphere, roughness) * cavity;

    vec3 fill = fill_colour * max(dot(n, fill_direction), 0.0) * v_occlusion;
    vec3 lit = base * (1.0 - metalness) * (sun_colour * sun + hemisphere + fill)
             + fresnel * (sun_colour * sun * highlight + surroundings * mix(0.6, 1.0, metalness));
    vec3 self_lit = base * emission * glow;
    vec3 shaded = mix(lit, self_lit, clamp(emission * 4.0, 0.0, 1.0)) * shade;

    float distance = length(eye - v_position);
    float fog = 1.0 - exp(-(distance * fog_density) * (distance * fog_density));
    colour = vec4(mix(shaded, fog_colour, fog), 1.0);
}
"""

WIRE_VERTEX = """
#version 330
uniform mat4 view_projection;
in vec3 in_position;
void main() {
    gl_Position = view_projection * vec4(in_position, 1.0);
}
"""

WIRE_FRAGMENT = """
#version 330
uniform vec3 wire_colour;
out vec4 colour;
void main() {
    colour = vec4(wire_colour, 1.0);
}
"""
