"""Offscreen PNG snapshots of display meshes, drawn with OpenGL on the CPU (moderngl, headless EGL).

:func:`snapshot` draws one or more display meshes with their blended material colours, a sun and some ambient
light, and optionally the edges of a collision mesh on top, and writes a PNG. :func:`render` does the same but
returns the picture as an array. No window, display or GPU is needed: on a headless Debian machine Mesa's
llvmpipe renders through EGL (``scripts/setup`` installs the Debian packages).

The meshes are plain data, as ``voxelworld.meshing`` produces them; any object with these attributes will do:

- display mesh: ``positions`` (n, 3) m, ``normals`` (n, 3), ``indices`` (m, 3) vertex numbers, counter-clockwise
  seen from outside, ``mat_a`` and ``mat_b`` (n,) material ids, ``blend`` (n,) share of ``mat_b`` in [0, 1];
- collision mesh: ``positions`` (n, 3) m, ``indices`` (m, 3), ``tri_material`` (m,) material ids.

Examples
--------
>>> import tempfile, types
>>> import numpy as np
>>> from PIL import Image
>>> from voxelworld.terrain import MaterialTable
>>> from voxelworld.viewer import Camera, snapshot
>>> quad = types.SimpleNamespace(                       # a 2 m square of grass fading into soil, facing +Z
...     positions=np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], dtype=np.float32),
...     normals=np.tile(np.float32([0, 0, 1]), (4, 1)),
...     indices=np.array([[0, 1, 2], [0, 2, 3]], dtype=np.uint32),
...     mat_a=np.full(4, 1, dtype=np.uint8), mat_b=np.full(4, 2, dtype=np.uint8),
...     blend=np.array([0, 1, 1, 0], dtype=np.float32))
>>> table = MaterialTable.default()
>>> with tempfile.TemporaryDirectory() as folder:
...     path = snapshot(quad, f"{folder}/quad.png", materials=table, size=(64, 48),
...                     camera=Camera(eye=(0, 0, 3), target=(0, 0, 0)))
...     Image.open(path).size
(64, 48)
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..errors import ParameterError, VoxelworldError
from ..files import write_atomically
from ..terrain import NONE_COLOUR, MaterialTable
from .camera import Camera

__all__ = ["snapshot", "render", "RenderError", "NONE_COLOUR", "WIREFRAME_COLOUR", "MAX_SIZE"]

WIREFRAME_COLOUR = (1.0, 0.0, 1.0)  # magenta: no terrain material and not the sky
MAX_SIZE = 8192  # pixels, the largest width or height a snapshot may have
SAMPLES = 4  # multisampling: smooth edges

_LIGHT_DIRECTION = (0.35, 1.0, 0.45)  # towards the sun: high, from the front right
_AMBIENT = 0.38  # share of a colour that shows in the shade
_BACK_FACE_SHADE = 0.55  # back faces (seen from inside) are darker, so that wrong winding shows


class RenderError(VoxelworldError):
    """The offscreen renderer cannot run here (no EGL / OpenGL), or failed; the message says what is missing."""


# --- input checks -------------------------------------------------------------------------------------------


class _Shape:
    """Stands in for an array in error messages: its dtype and shape, not its (possibly huge) contents."""

    def __init__(self, array: np.ndarray):
        self.text = f"<{array.dtype} array of shape {array.shape}>"

    def __repr__(self) -> str:
        return self.text


def _array(parameter: str, value: object, columns: int | None, rows: int | None, kind: str) -> np.ndarray:
    """``value`` as an array of ``rows`` x ``columns`` (or ``rows`` long when columns is None) numbers of ``kind``
    ("real" or "integer"), else ParameterError."""
    what = "integers" if kind == "integer" else "finite numbers"
    count = "n" if rows is None else str(rows)
    legal = f"an array of shape ({count}, {columns}) of {what}" if columns else f"an array of {count} {what}"
    try:
        array = np.asarray(value)
    except Exception:  # ragged lists and other things numpy cannot take
        raise ParameterError(parameter, value, legal) from None
    shape_ok = array.ndim == (2 if columns else 1) and (columns is None or array.shape[1] == columns)
    if rows is not None:
        shape_ok = shape_ok and array.shape[0] == rows
    if kind == "integer":
        # An empty list becomes a float array: no number in it is wrong.
        dtype_ok = array.dtype.kind in "iu" or (array.size == 0 and array.dtype.kind == "f")
    else:
        dtype_ok = array.dtype.kind in "iuf"
    if not (shape_ok and dtype_ok):
        raise ParameterError(parameter, _Shape(array), legal + (" (as many as positions has rows)"
                                                                if rows is not None else ""))
    if kind == "real" and not np.all(np.isfinite(array)):
        bad = array[~np.isfinite(array)].flat[0]
        raise ParameterError(parameter, float(bad), legal)
    return array


def _material_ids(parameter: str, value: object, rows: int, known: np.ndarray) -> np.ndarray:
    ids = _array(parameter, value, None, rows, "integer")
    if ids.size:
        bad = ids[(ids < 0) | (ids > 255)]
        if bad.size == 0:
            bad = ids[~known[ids.astype(np.int64)]]
        if bad.size:
            legal = ("material ids of the table: 0 (none), "
                     + ", ".join(str(i) for i in np.flatnonzero(known) if i))
            raise ParameterError(parameter, int(bad.flat[0]), legal)
    return ids.astype(np.int64)


def _triangles(parameter: str, value: object, vertex_count: int) -> np.ndarray:
    indices = _array(parameter, value, 3, None, "integer")
    if indices.size:
        bad = indices[(indices < 0) | (indices >= vertex_count)]
        if bad.size:
            raise ParameterError(parameter, int(bad.flat[0]),
                                 f"vertex numbers from 0 to {vertex_count - 1} (positions has {vertex_count} rows)")
    return indices.astype(np.uint32)


def _field(mesh: object, name: str, where: str) -> object:
    try:
        return getattr(mesh, name)
    except AttributeError:
        raise ParameterError(where, type(mesh).__name__, f"a mesh with the attribute {name!r}") from None


def _as_list(value: object) -> tuple[list, bool]:
    """The meshes in ``value`` (one mesh or a list/tuple of them), and whether it was one."""
    if isinstance(value, (list, tuple)):
        return list(value), False
    return [value], True


def _display_vertices(meshes: object, palette: np.ndarray, known: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All display meshes as one interleaved vertex array (position, normal, colour: 9 float32) and indices."""
    items, single = _as_list(meshes)
    vertices, triangles, offset = [], [], 0
    for number, mesh in enumerate(items):
        where = "meshes" if single else f"meshes[{number}]"
        positions = _array(f"{where}.positions", _field(mesh, "positions", where), 3, None, "real")
        n = len(positions)
        normals = _array(f"{where}.normals", _field(mesh, "normals", where), 3, n, "real")
        indices = _triangles(f"{where}.indices", _field(mesh, "indices", where), n)
        mat_a = _material_ids(f"{where}.mat_a", _field(mesh, "mat_a", where), n, known)
        mat_b = _material_ids(f"{where}.mat_b", _field(mesh, "mat_b", where), n, known)
        blend = _array(f"{where}.blend", _field(mesh, "blend", where), None, n, "real")
        if blend.size and (blend.min() < 0 or blend.max() > 1):
            bad = blend[(blend < 0) | (blend > 1)].flat[0]
            raise ParameterError(f"{where}.blend", float(bad), "numbers from 0 (all mat_a) to 1 (all mat_b)")
        share = blend.astype(np.float64)[:, None]
        colours = palette[mat_a] * (1.0 - share) + palette[mat_b] * share
        vertices.append(np.hstack([positions, normals, colours]).astype(np.float32))
        triangles.append(indices.astype(np.int64) + offset)
        offset += n
    if not items:
        return np.zeros((0, 9), np.float32), np.zeros((0, 3), np.uint32)
    return np.vstack(vertices), np.vstack(triangles).astype(np.uint32)


def _collision_lines(collision: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The collision meshes' positions (float32), triangles and unique edges (uint32), checked."""
    items, single = _as_list(collision)
    points, triangles, edges, offset = [], [], [], 0
    for number, mesh in enumerate(items):
        where = "collision" if single else f"collision[{number}]"
        positions = _array(f"{where}.positions", _field(mesh, "positions", where), 3, None, "real")
        indices = _triangles(f"{where}.indices", _field(mesh, "indices", where), len(positions))
        _array(f"{where}.tri_material", _field(mesh, "tri_material", where), None, len(indices), "integer")
        pairs = indices[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2).astype(np.int64)
        pairs.sort(axis=1)  # an edge shared by two triangles is drawn once
        points.append(positions.astype(np.float32))
        triangles.append(indices.astype(np.int64) + offset)
        edges.append(np.unique(pairs, axis=0) + offset)
        offset += len(positions)
    if not items:
        return np.zeros((0, 3), np.float32), np.zeros((0, 3), np.uint32), np.zeros((0, 2), np.uint32)
    return (np.vstack(points), np.vstack(triangles).astype(np.uint32),
            np.ascontiguousarray(np.vstack(edges), dtype=np.uint32))


def _check_size(size: object) -> tuple[int, int]:
    legal = f"two whole numbers (width, height) in pixels, each from 1 to {MAX_SIZE}"
    try:
        width, height = size  # type: ignore[misc]
    except (TypeError, ValueError):
        raise ParameterError("size", size, legal) from None
    for number in (width, height):
        if isinstance(number, bool) or not isinstance(number, (int, np.integer)) or not 1 <= number <= MAX_SIZE:
            raise ParameterError("size", size, legal)
    return int(width), int(height)


def _check_colour(parameter: str, value: object) -> tuple[float, float, float]:
    legal = "three numbers in [0, 1] (red, green, blue)"
    try:
        channels = [float(c) for c in value]  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise ParameterError(parameter, value, legal) from None
    if len(channels) != 3 or not all(0.0 <= c <= 1.0 for c in channels):  # also refuses NaN
        raise ParameterError(parameter, value, legal)
    return channels[0], channels[1], channels[2]


def _palette(materials: MaterialTable) -> tuple[np.ndarray, np.ndarray]:
    """Colour (256 x 3 float64) of every material id, and which ids the table knows (0 included)."""
    known = np.array([bool(name) for name in materials.name_by_id])
    return materials.palette(), known


# --- drawing ------------------------------------------------------------------------------------------------

_SURFACE_VERTEX = """
#version 330
uniform mat4 view_projection;
in vec3 in_position;
in vec3 in_normal;
in vec3 in_colour;
out vec3 v_position;
out vec3 v_normal;
out vec3 v_colour;
void main() {
    v_position = in_position;
    v_normal = in_normal;
    v_colour = in_colour;
    gl_Position = view_projection * vec4(in_position, 1.0);
}
"""

_SURFACE_FRAGMENT = """
#version 330
uniform vec3 light_direction;
uniform float ambient;
uniform float back_face_shade;
in vec3 v_position;
in vec3 v_normal;
in vec3 v_colour;
out vec4 colour;
void main() {
    // A vertex normal of zero length (a degenerate spot) falls back to the flat normal of the triangle.
    vec3 n = length(v_normal) > 1e-6 ? normalize(v_normal) : normalize(cross(dFdx(v_position), dFdy(v_position)));
    float shade = 1.0;
    if (!gl_FrontFacing) {
        n = -n;
        shade = back_face_shade;
    }
    float light = ambient + (1.0 - ambient) * max(dot(n, light_direction), 0.0);
    colour = vec4(v_colour * light * shade, 1.0);
}
"""

_WIRE_VERTEX = """
#version 330
uniform mat4 view_projection;
in vec3 in_position;
void main() {
    gl_Position = view_projection * vec4(in_position, 1.0);
}
"""

_WIRE_FRAGMENT = """
#version 330
uniform vec3 wire_colour;
out vec4 colour;
void main() {
    colour = vec4(wire_colour, 1.0);
}
"""


def _context():
    """A headless OpenGL 3.3+ context through EGL, or RenderError saying what is missing."""
    try:
        import moderngl
    except ImportError as error:
        raise RenderError(f"the Python package moderngl is not installed ({error}): run scripts/setup") from error
    try:
        return moderngl.create_context(standalone=True, backend="egl", require=330)
    except Exception as error:  # glcontext raises plain Exception for a missing library or display
        raise RenderError(
            f"EGL not available: cannot create an offscreen OpenGL 3.3 context ({error}); install Debian's "
            "libegl1, libegl-mesa0, libgl1 and libgl1-mesa-dri (run scripts/setup)") from error


def render(meshes: object, *, materials: MaterialTable, camera: Camera | None = None,
           size: tuple[int, int] = (960, 540), collision: object = None,
           background: tuple[float, float, float] = (0.62, 0.75, 0.88),
           wireframe_colour: tuple[float, float, float] = WIREFRAME_COLOUR) -> np.ndarray:
    """Draw display meshes (and a collision wireframe) offscreen; return the picture as an RGB array.

    Takes the same parameters as :func:`snapshot` (less ``path``) and returns a (height, width, 3) uint8 array,
    row 0 at the top.

    Examples
    --------
    >>> import types
    >>> import numpy as np
    >>> from voxelworld.terrain import MaterialTable
    >>> triangle = types.SimpleNamespace(
    ...     positions=np.float32([[-1, -1, 0], [1, -1, 0], [0, 1, 0]]), normals=np.float32([[0, 0, 1]] * 3),
    ...     indices=np.uint32([[0, 1, 2]]), mat_a=np.uint8([4] * 3), mat_b=np.uint8([4] * 3),
    ...     blend=np.float32([0] * 3))
    >>> picture = render(triangle, materials=MaterialTable.default(), size=(32, 16))
    >>> picture.shape, picture.dtype
    ((16, 32, 3), dtype('uint8'))
    """
    if not isinstance(materials, MaterialTable):
        raise ParameterError("materials", materials, "a voxelworld.terrain.MaterialTable")
    width, height = _check_size(size)
    background = _check_colour("background", background)
    wireframe_colour = _check_colour("wireframe_colour", wireframe_colour)
    if camera is not None and not isinstance(camera, Camera):
        raise ParameterError("camera", camera, "a voxelworld.viewer.Camera or None (frame the meshes)")
    palette, known = _palette(materials)
    vertices, triangles = _display_vertices(meshes, palette, known)
    wire_points, wire_triangles, wire_edges = _collision_lines(collision if collision is not None else [])
    if camera is None:
        everything = np.vstack([vertices[:, :3], wire_points])
        lo, hi = (everything.min(axis=0), everything.max(axis=0)) if len(everything) else (np.zeros(3),) * 2
        camera = Camera.looking_at_bounds(lo, hi, aspect=width / height)
    view_projection = camera.projection_matrix(width / height) @ camera.view_matrix()

    ctx = _context()
    try:
        return _draw(ctx, (width, height), view_projection, vertices, triangles, wire_points, wire_triangles,
                     wire_edges, background, wireframe_colour)
    except RenderError:
        raise
    except Exception as error:  # moderngl reports GL failures as plain Exception
        raise RenderError(f"OpenGL failed while rendering: {error}") from error
    finally:
        ctx.release()


def _draw(ctx, size, view_projection, vertices, triangles, wire_points, wire_triangles, wire_edges, background,
          wireframe_colour) -> np.ndarray:
    import moderngl

    width, height = size
    samples = min(SAMPLES, ctx.max_samples)
    # Draw into a multisampled framebuffer, then resolve it into a plain one to read back.
    drawn = ctx.framebuffer(color_attachments=[ctx.renderbuffer(size, 4, samples=samples)],
                            depth_attachment=ctx.depth_renderbuffer(size, samples=samples))
    resolved = ctx.framebuffer(color_attachments=[ctx.renderbuffer(size, 4)])
    drawn.use()
    ctx.viewport = (0, 0, width, height)
    ctx.enable(moderngl.DEPTH_TEST)
    ctx.disable(moderngl.CULL_FACE)  # open meshes (chunk borders, cuts) are seen from inside too
    drawn.clear(*background, 1.0, depth=1.0)
    # GLSL takes matrices column by column: hand it the transpose of our row-major one.
    matrix = np.ascontiguousarray(view_projection.T, dtype=np.float32).tobytes()

    if len(triangles):
        program = ctx.program(vertex_shader=_SURFACE_VERTEX, fragment_shader=_SURFACE_FRAGMENT)
        program["view_projection"].write(matrix)
        light = np.array(_LIGHT_DIRECTION) / np.linalg.norm(_LIGHT_DIRECTION)
        program["light_direction"].value = tuple(float(c) for c in light)
        program["ambient"].value = _AMBIENT
        program["back_face_shade"].value = _BACK_FACE_SHADE
        buffer = ctx.buffer(np.ascontiguousarray(vertices).tobytes())
        index_buffer = ctx.buffer(np.ascontiguousarray(triangles).tobytes())
        array = ctx.vertex_array(program, [(buffer, "3f 3f 3f", "in_position", "in_normal", "in_colour")],
                                 index_buffer=index_buffer, index_element_size=4)
        array.render(moderngl.TRIANGLES)

    if len(wire_edges):
        # The wireframe hides behind its own mesh only: the collision mesh is coarser than the display mesh and
        # dips under it, so testing its edges against the display surfaces would hide most of them. Its
        # triangles go into a fresh depth buffer, pushed back a little so that their own edges pass the test.
        drawn.color_mask = (False, False, False, False)
        drawn.use()  # moderngl applies a framebuffer's colour mask when it is bound
        drawn.clear(depth=1.0)
        program = ctx.program(vertex_shader=_WIRE_VERTEX, fragment_shader=_WIRE_FRAGMENT)
        program["view_projection"].write(matrix)
        program["wire_colour"].value = wireframe_colour
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

    ctx.copy_framebuffer(resolved, drawn)
    pixels = np.frombuffer(resolved.read(components=3, alignment=1), dtype=np.uint8)
    # OpenGL's first row is the bottom one.
    return np.ascontiguousarray(pixels.reshape(height, width, 3)[::-1])


def snapshot(meshes: object, path: str | os.PathLike, *, materials: MaterialTable, camera: Camera | None = None,
             size: tuple[int, int] = (960, 540), collision: object = None,
             background: tuple[float, float, float] = (0.62, 0.75, 0.88),
             wireframe_colour: tuple[float, float, float] = WIREFRAME_COLOUR) -> Path:
    """Render display meshes offscreen and write the picture to a PNG file.

    Every vertex has the colour ``(1 - blend) * colour[mat_a] + blend * colour[mat_b]`` from ``materials``
    (material id 0, "none", is grey), lit by a sun high to the front right and some ambient light. Both sides of
    every triangle are drawn; a back face (seen from inside a mesh) is darker.

    Parameters
    ----------
    meshes : display mesh or list of display meshes
        Objects with ``positions`` (n, 3) m, ``normals`` (n, 3), ``indices`` (m, 3) vertex numbers (counter-
        clockwise seen from the front), ``mat_a``, ``mat_b`` (n,) material ids of ``materials`` and ``blend``
        (n,) share of ``mat_b`` in [0, 1], such as ``voxelworld.meshing.DisplayMesh``.
    path : str or path-like
        The PNG file to write, in an existing folder. It is written whole or not at all: the picture goes to a
        temporary file beside it that then replaces ``path``.
    materials : voxelworld.terrain.MaterialTable
        Where the colours of material ids come from.
    camera : Camera, optional
        The view. Default: from above, front right, framing every mesh (``Camera.looking_at_bounds``).
    size : (int, int)
        Width and height in pixels, each 1 to :data:`MAX_SIZE`.
    collision : collision mesh or list of collision meshes, optional
        Objects with ``positions`` (n, 3) m, ``indices`` (m, 3) and ``tri_material`` (m,), such as
        ``voxelworld.meshing.CollisionMesh``: their triangle edges are drawn over the display meshes in
        ``wireframe_colour``.
    background : (float, float, float)
        Red, green, blue in [0, 1] where nothing is drawn.
    wireframe_colour : (float, float, float)
        Red, green, blue in [0, 1] of the collision wireframe; magenta by default, which no default material has.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    voxelworld.errors.ParameterError
        For bad input (naming it, e.g. ``meshes[1].indices``), before anything is drawn or written.
    RenderError
        When no offscreen OpenGL context can be made (EGL or Mesa missing: run ``scripts/setup``).

    Examples
    --------
    >>> import tempfile, types
    >>> import numpy as np
    >>> from PIL import Image
    >>> from voxelworld.terrain import MaterialTable
    >>> corners = np.float32([[0, 0, 0], [4, 0, 0], [4, 0, -4], [0, 0, -4]])
    >>> ground = types.SimpleNamespace(positions=corners, normals=np.float32([[0, 1, 0]] * 4),
    ...                                indices=np.uint32([[0, 1, 2], [0, 2, 3]]), mat_a=np.uint8([1] * 4),
    ...                                mat_b=np.uint8([3] * 4), blend=np.float32([0, 0, 1, 1]))
    >>> edges = types.SimpleNamespace(positions=corners, indices=np.uint32([[0, 1, 2], [0, 2, 3]]),
    ...                               tri_material=np.uint8([1, 3]))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = snapshot(ground, f"{folder}/ground.png", materials=MaterialTable.default(), size=(80, 60),
    ...                     collision=edges)
    ...     Image.open(path).size, path.name
    ((80, 60), 'ground.png')
    """
    target = _check_path(path)
    picture = render(meshes, materials=materials, camera=camera, size=size, collision=collision,
                     background=background, wireframe_colour=wireframe_colour)
    _write_png_atomically(picture, target)
    return target


def _check_path(path: object) -> Path:
    try:
        target = Path(path)  # type: ignore[arg-type]
    except TypeError:
        raise ParameterError("path", path, "a file path (str or os.PathLike)") from None
    if not target.name or target.is_dir():
        raise ParameterError("path", str(path), "the path of a file, not of a folder")
    if not target.parent.is_dir():
        raise ParameterError("path", str(path), f"a file in an existing folder ({target.parent} is none)")
    return target


def _write_png_atomically(picture: np.ndarray, target: Path) -> None:
    """Write ``picture`` as a PNG in ``target``'s place in one step (see :mod:`voxelworld.files`)."""
    from PIL import Image

    write_atomically(target, lambda file: Image.fromarray(picture, "RGB").save(file, format="PNG"))
