"""The OpenGL passes of the offscreen snapshots: the sun's shadow map, the textured terrain, the wireframe.

:mod:`voxelworld.viewer.snapshot` checks its input and hands this module plain arrays: :class:`Corners` (the
display triangles, three corners each), the texture pictures, the collision wireframe and the camera matrix.
:func:`draw` renders them into a multisampled framebuffer and returns the picture. The programs are in
:mod:`voxelworld.viewer.gl_shaders`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from ..terrain import TEXTURE_METRES
from . import gl_shaders
from .camera import Camera

if TYPE_CHECKING:
    import moderngl  # imported where used: only drawing needs it

__all__ = ["Corners", "corners_of_triangles", "draw", "Light", "LIGHT", "SAMPLES", "SHADOW_MAP_SIZE", "MACRO_TILES"]

SAMPLES = 4  # multisampling: smooth edges
MACRO_TILES = 5.3  # the slow brightness variation that hides the tiles' repetition repeats every this many tiles
SHADOW_MAP_SIZE = 2048  # texels per side of the sun's depth map at most (a 48 m world: about 3 cm a texel); a
# small picture gets twice its larger side, at least 256


@dataclass(frozen=True)
class Light:
    """The light of every snapshot: sRGB-valued colours that multiply a material's colour."""

    direction: tuple[float, float, float] = (0.35, 1.0, 0.45)  # towards the sun: high, from the front right
    sun: tuple[float, float, float] = (0.5, 0.48, 0.43)  # warm, times the cosine of the angle to the sun
    sky: tuple[float, float, float] = (0.6, 0.65, 0.72)  # what a face turned up gets from the sky, in any shade
    ground: tuple[float, float, float] = (0.42, 0.38, 0.32)  # ... and a face turned down from the ground
    fill: tuple[float, float, float] = (0.2, 0.21, 0.24)  # sky bounce from the side opposite the sun (unshadowed)
    sky_seen: tuple[float, float, float] = (0.66, 0.77, 0.9)  # the sky a mirror (polished metal, ice) shows
    back_face_shade: float = 0.55  # back faces (seen from inside) are darker, so that wrong winding shows
    glow: float = 2.4  # full emission shows the albedo this many times over (lava's cracks), unlit
    fog_half: float = 3.0  # fog hides half a surface this many scene diagonals from the eye ...
    fog_least_diagonal: float = 40.0  # ... taking a scene's diagonal as this many metres at least (small scenes)


LIGHT = Light()


@dataclass(frozen=True)
class Corners:
    """Display triangles as unshared corners, three per triangle, in two vertex buffers.

    ``floats`` (3m, 13) float32: position (3), normal (3), barycentric corner (3: one 1 and two 0), occlusion (1),
    the triangle's three corners' blends (3); ``ints`` (3m, 6) int32: the three corners' ``mat_a`` texture layers
    and their ``mat_b`` layers. ``positions`` (n, 3) float32: every vertex given (to frame and to light).
    """

    floats: np.ndarray
    ints: np.ndarray
    positions: np.ndarray

    @staticmethod
    def join(parts: list[Corners], positions: np.ndarray) -> Corners:
        if not parts:
            return Corners(np.zeros((0, 13), np.float32), np.zeros((0, 6), np.int32), positions)
        return Corners(np.vstack([p.floats for p in parts]), np.vstack([p.ints for p in parts]), positions)


def corners_of_triangles(positions: np.ndarray, normals: np.ndarray, indices: np.ndarray, occlusion: np.ndarray,
                         blend: np.ndarray, layer_a: np.ndarray, layer_b: np.ndarray) -> Corners:
    """:class:`Corners` of one mesh: per vertex ``positions``, ``normals`` (n, 3), ``occlusion``, ``blend``
    (n,) and texture layers ``layer_a``, ``layer_b`` (n,); ``indices`` (m, 3) vertex numbers."""
    corners = indices.reshape(-1)
    m = len(indices)
    per_triangle = np.repeat(np.arange(m), 3)
    floats = np.hstack([positions[corners], normals[corners], np.tile(np.identity(3), (m, 1)),
                        occlusion[corners][:, None], blend[indices][per_triangle]]).astype(np.float32)
    ints = np.hstack([layer_a[indices][per_triangle], layer_b[indices][per_triangle]]).astype(np.int32)
    return Corners(floats, ints, positions.astype(np.float32))


def _sun_matrix(lo: np.ndarray, hi: np.ndarray, light: np.ndarray, side: int) -> tuple[np.ndarray, float]:
    """The sun's view-projection over the box ``lo``..``hi`` (orthographic, along ``light``), and the width (m)
    of one shadow-map texel."""
    centre = (lo + hi) / 2
    radius = max(float(np.linalg.norm(hi - lo)) / 2, 1e-3)
    view = Camera(tuple(centre + light * 2 * radius), tuple(centre)).view_matrix()
    near, far = radius, 3 * radius
    projection = np.diag([1 / radius, 1 / radius, -2 / (far - near), 1.0])
    projection[2, 3] = -(far + near) / (far - near)
    return projection @ view, 2 * radius / side


def _matrix(matrix: np.ndarray) -> bytes:
    # GLSL takes matrices column by column: hand it the transpose of our row-major one.
    return np.ascontiguousarray(matrix.T, dtype=np.float32).tobytes()


def _uniform(program: moderngl.Program, name: str) -> moderngl.Uniform:
    """The uniform ``name`` of ``program`` (moderngl types a program's members as any kind of member)."""
    return cast("moderngl.Uniform", program[name])


def draw(ctx: moderngl.Context, size: tuple[int, int], view_projection: np.ndarray, eye: Sequence[float],
         corners: Corners, pictures: tuple[np.ndarray, np.ndarray], wire: tuple[np.ndarray, np.ndarray, np.ndarray],
         background: tuple[float, float, float], wireframe_colour: tuple[float, float, float],
         light: Light = LIGHT) -> np.ndarray:
    """Render into ``ctx`` and return the (height, width, 3) uint8 picture, row 0 at the top.

    ``pictures``: (albedo, surface) uint8 arrays (L, S, S, 4); ``wire``: (points, triangles, edges) of the
    collision wireframe; ``eye``: the camera's position (m).
    """
    import moderngl

    width, height = size
    samples = min(SAMPLES, ctx.max_samples)
    # Draw into a multisampled framebuffer, then resolve it into a plain one to read back.
    drawn = ctx.framebuffer(color_attachments=[ctx.renderbuffer(size, 4, samples=samples)],
                            depth_attachment=ctx.depth_renderbuffer(size, samples=samples))
    resolved = ctx.framebuffer(color_attachments=[ctx.renderbuffer(size, 4)])
    ctx.enable(moderngl.DEPTH_TEST)
    ctx.disable(moderngl.CULL_FACE)  # open meshes (chunk borders, cuts) are seen from inside too
    if len(corners.floats):
        _draw_surfaces(ctx, drawn, (width, height), view_projection, eye, corners, pictures, background, light)
    else:
        drawn.use()
        drawn.clear(*background, 1.0, depth=1.0)
    if len(wire[2]):
        _draw_wireframe(ctx, drawn, (width, height), view_projection, wire, wireframe_colour)
    ctx.copy_framebuffer(resolved, drawn)
    pixels = np.frombuffer(resolved.read(components=3, alignment=1), dtype=np.uint8)
    # OpenGL's first row is the bottom one.
    return np.ascontiguousarray(pixels.reshape(height, width, 3)[::-1])


def _draw_surfaces(ctx: moderngl.Context, drawn: moderngl.Framebuffer, size: tuple[int, int],
                   view_projection: np.ndarray, eye: Sequence[float], corners: Corners,
                   pictures: tuple[np.ndarray, np.ndarray], background: tuple[float, float, float],
                   light: Light) -> None:
    import moderngl

    direction = np.array(light.direction) / np.linalg.norm(light.direction)
    lo, hi = corners.positions.min(axis=0).astype(np.float64), corners.positions.max(axis=0).astype(np.float64)
    side = int(min(SHADOW_MAP_SIZE, max(256, 2 * max(size))))
    sun_matrix, texel_metres = _sun_matrix(lo, hi, direction, side)
    floats = ctx.buffer(np.ascontiguousarray(corners.floats).tobytes())
    ints = ctx.buffer(np.ascontiguousarray(corners.ints).tobytes())

    # The sun's depth pass: what it sees first is lit, what lies behind that is in shadow.
    shadow_map = ctx.depth_texture((side, side))
    shadow_pass = ctx.framebuffer(depth_attachment=shadow_map)
    shadow_pass.use()
    shadow_pass.clear(depth=1.0)
    depth_program = ctx.program(vertex_shader=gl_shaders.SHADOW_VERTEX, fragment_shader=gl_shaders.SHADOW_FRAGMENT)
    _uniform(depth_program, "sun_matrix").write(_matrix(sun_matrix))
    ctx.polygon_offset = (2.0, 4.0)
    ctx.vertex_array(depth_program, [(floats, "3f 40x", "in_position")]).render(moderngl.TRIANGLES)
    ctx.polygon_offset = (0.0, 0.0)
    shadow_map.compare_func = "<="
    shadow_map.filter = (moderngl.LINEAR, moderngl.LINEAR)
    shadow_map.repeat_x = shadow_map.repeat_y = False

    albedo, surface = (_texture_array(ctx, picture) for picture in pictures)
    drawn.use()
    drawn.clear(*background, 1.0, depth=1.0)
    program = ctx.program(vertex_shader=gl_shaders.SURFACE_VERTEX, fragment_shader=gl_shaders.SURFACE_FRAGMENT)
    values = {
        "light_direction": tuple(direction), "sun_colour": light.sun, "sky_colour": light.sky,
        "ground_colour": light.ground, "sky_seen": light.sky_seen,
        "fill_colour": light.fill, "fill_direction": tuple(_fill_direction(direction)), "fog_colour": tuple(background), "eye": tuple(float(c) for c in eye),
        "texture_metres": TEXTURE_METRES, "macro_tiles": MACRO_TILES, "shadow_texel": 1.0 / side,
        "shadow_offset": 1.5 * texel_metres, "back_face_shade": light.back_face_shade, "glow": light.glow,
        "fog_density": _fog_density(max(float(np.linalg.norm(hi - lo)), light.fog_least_diagonal) * light.fog_half), "albedo_maps": 0, "surface_maps": 1, "shadow_map": 2,
    }
    for name, value in values.items():
        _uniform(program, name).value = value
    _uniform(program, "view_projection").write(_matrix(view_projection))
    _uniform(program, "sun_matrix").write(_matrix(sun_matrix))
    albedo.use(location=0)
    surface.use(location=1)
    shadow_map.use(location=2)
    ctx.vertex_array(program, [(floats, "3f 3f 3f 1f 3f", "in_position", "in_normal", "in_corner", "in_occlusion",
                                "in_blends"),
                               (ints, "3i 3i", "in_layers_a", "in_layers_b")]).render(moderngl.TRIANGLES)


def _fill_direction(sun: np.ndarray) -> np.ndarray:
    """Where the fill light comes from: opposite the sun across the ground, half way up."""
    across = np.array([-sun[0], 0.0, -sun[2]])
    across = across / max(float(np.linalg.norm(across)), 1e-9) if np.linalg.norm(across) > 1e-6 else np.zeros(3)
    direction = across + (0.0, 0.75, 0.0)
    return direction / np.linalg.norm(direction)


def _texture_array(ctx: moderngl.Context, picture: np.ndarray) -> moderngl.TextureArray:
    import moderngl

    layers, side = picture.shape[0], picture.shape[1]
    texture = ctx.texture_array((side, side, layers), 4, np.ascontiguousarray(picture).tobytes())
    texture.build_mipmaps()
    texture.filter = (moderngl.LINEAR_MIPMAP_LINEAR, moderngl.LINEAR)
    texture.anisotropy = 8.0
    return texture


def _fog_density(half_distance: float) -> float:
    """Fog density (1/m) with which fog hides half of a surface ``half_distance`` metres from the eye."""
    return math.sqrt(math.log(2.0)) / half_distance


def _draw_wireframe(ctx: moderngl.Context, drawn: moderngl.Framebuffer, size: tuple[int, int],
                    view_projection: np.ndarray, wire: tuple[np.ndarray, np.ndarray, np.ndarray],
                    wireframe_colour: tuple[float, float, float]) -> None:
    import moderngl

    width, height = size
    wire_points, wire_triangles, wire_edges = wire
    # The wireframe hides behind its own mesh only: the collision mesh is coarser than the display mesh and
    # dips under it, so testing its edges against the display surfaces would hide most of them. Its
    # triangles go into a fresh depth buffer, pushed back a little so that their own edges pass the test.
    drawn.color_mask = (False, False, False, False)
    drawn.use()  # moderngl applies a framebuffer's colour mask when it is bound
    drawn.clear(depth=1.0)
    program = ctx.program(vertex_shader=gl_shaders.WIRE_VERTEX, fragment_shader=gl_shaders.WIRE_FRAGMENT)
    _uniform(program, "view_projection").write(_matrix(view_projection))
    _uniform(program, "wire_colour").value = wireframe_colour
    buffer = ctx.buffer(np.ascontiguousarray(wire_points).tobytes())
    ctx.polygon_offset = (1.0, 4.0)
    ctx.vertex_array(program, [(buffer, "3f", "in_position")], index_buffer=ctx.buffer(wire_triangles.tobytes()),
                     index_element_size=4).render(moderngl.TRIANGLES)
    ctx.polygon_offset = (0.0, 0.0)
    drawn.color_mask = (True, True, True, True)
    drawn.use()
    # Lines about one pixel wide per 540 rows, so that a large picture still shows them.
    low, high = ctx.info.get("GL_ALIASED_LINE_WIDTH_RANGE", (1.0, 1.0))
    ctx.line_width = float(min(max(round(min(width, height) / 540), 1, low), high))
    ctx.depth_func = "<="
    ctx.vertex_array(program, [(buffer, "3f", "in_position")], index_buffer=ctx.buffer(wire_edges.tobytes()),
                     index_element_size=4).render(moderngl.LINES)

