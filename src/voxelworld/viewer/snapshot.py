"""Offscreen PNG snapshots of display meshes, drawn with OpenGL on the CPU (moderngl, headless EGL).

:func:`snapshot` draws one or more display meshes with their materials' textures
(:func:`voxelworld.terrain.texture_set`, mapped triplanarly at one tile per ``TEXTURE_METRES`` of world position,
each vertex blending its two materials' textures by ``blend``), lit by a sun that casts shadows (a depth map
from the sun over the meshes' bounds), a sky/ground hemisphere light and a fill light from the side opposite the
sun, both darkened by each vertex's ``occlusion`` when the mesh has one; metal and glossy materials (iron, ice,
obsidian) mirror the sky and catch the sun, emissive ones (lava) glow unlit, and distance fog fades far
surfaces into the background colour. Optionally the edges of a collision mesh go on top; the picture is written
as a PNG. :func:`render` does the same but returns the picture as an array. No window, display or GPU is needed:
on a headless Debian machine Mesa's llvmpipe renders through EGL (``scripts/setup`` installs the Debian
packages). The GL passes are in :mod:`voxelworld.viewer.gl_draw`, the programs in
:mod:`voxelworld.viewer.gl_shaders`.

The meshes are plain data, as ``voxelworld.meshing`` produces them; any object with these attributes will do:

- display mesh: ``positions`` (n, 3) m, ``normals`` (n, 3), ``indices`` (m, 3) vertex numbers, counter-clockwise
  seen from outside, ``mat_a`` and ``mat_b`` (n,) material ids, ``blend`` (n,) share of ``mat_b`` in [0, 1],
  and optionally ``occlusion`` (n,) in [0, 1] (1 open to the sky, lower more enclosed; 1 everywhere if missing);
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
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ParameterError, VoxelworldError
from ..files import write_atomically
from ..terrain import NONE_COLOUR, MaterialTable, TextureSet, texture_set
from .camera import Camera
from .gl_draw import Corners, corners_of_triangles, draw

if TYPE_CHECKING:
    import moderngl  # imported where used: only drawing needs it

__all__ = ["snapshot", "render", "RenderError", "NONE_COLOUR", "WIREFRAME_COLOUR", "MAX_SIZE"]

WIREFRAME_COLOUR = (1.0, 0.0, 1.0)  # magenta: no terrain material and not the sky
MAX_SIZE = 8192  # pixels, the largest width or height a snapshot may have



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


def _display_corners(meshes: object, layers: np.ndarray, known: np.ndarray) -> Corners:
    """All display meshes' triangles, checked, as :class:`~voxelworld.viewer.gl_draw.Corners`: three corners per
    triangle, each carrying its triangle's three corners' texture layers and blends."""
    items, single = _as_list(meshes)
    parts, every_position = [], []
    for number, mesh in enumerate(items):
        where = "meshes" if single else f"meshes[{number}]"
        positions = _array(f"{where}.positions", _field(mesh, "positions", where), 3, None, "real")
        n = len(positions)
        normals = _array(f"{where}.normals", _field(mesh, "normals", where), 3, n, "real")
        indices = _triangles(f"{where}.indices", _field(mesh, "indices", where), n).astype(np.int64)
        mat_a = _material_ids(f"{where}.mat_a", _field(mesh, "mat_a", where), n, known)
        mat_b = _material_ids(f"{where}.mat_b", _field(mesh, "mat_b", where), n, known)
        blend = _share(f"{where}.blend", _field(mesh, "blend", where), n, "numbers from 0 (all mat_a) to 1 (all mat_b)")
        occlusion = getattr(mesh, "occlusion", None)  # contract B: optional, 1.0 (open) when missing
        if occlusion is None:
            occlusion = np.ones(n)
        else:
            occlusion = _share(f"{where}.occlusion", occlusion, n, "numbers from 0 (enclosed) to 1 (open to the sky)")
        every_position.append(positions.astype(np.float32))
        parts.append(corners_of_triangles(positions, normals, indices, occlusion, blend, layers[mat_a],
                                          layers[mat_b]))
    return Corners.join(parts, np.vstack(every_position) if every_position else np.zeros((0, 3), np.float32))


def _share(parameter: str, value: object, rows: int, legal: str) -> np.ndarray:
    share = _array(parameter, value, None, rows, "real")
    if share.size and (share.min() < 0 or share.max() > 1):
        raise ParameterError(parameter, float(share[(share < 0) | (share > 1)].flat[0]), legal)
    return share


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


def _check_size(size: tuple[int, int]) -> tuple[int, int]:  # what render is given: checked at run time
    legal = f"two whole numbers (width, height) in pixels, each from 1 to {MAX_SIZE}"
    try:
        width, height = size
    except (TypeError, ValueError):
        raise ParameterError("size", size, legal) from None
    for number in (width, height):
        if isinstance(number, bool) or not isinstance(number, (int, np.integer)) or not 1 <= number <= MAX_SIZE:
            raise ParameterError("size", size, legal)
    return int(width), int(height)


def _check_colour(parameter: str, value: tuple[float, float, float]) -> tuple[float, float, float]:
    legal = "three numbers in [0, 1] (red, green, blue)"
    try:
        channels = [float(c) for c in value]
    except (TypeError, ValueError):
        raise ParameterError(parameter, value, legal) from None
    if len(channels) != 3 or not all(0.0 <= c <= 1.0 for c in channels):  # also refuses NaN
        raise ParameterError(parameter, value, legal)
    return channels[0], channels[1], channels[2]


def _layers(materials: MaterialTable) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray, np.ndarray]:
    """The table's texture pictures (albedo, surface) with a plain grey layer last for id 0 ("none") and unused
    ids; the layer of every material id (256 int32); and which ids the table knows (0 included)."""
    known = np.array([bool(name) for name in materials.name_by_id])
    textures = _texture_set(materials)
    layers = np.where(textures.layer_of >= 0, textures.layer_of, len(textures.names)).astype(np.int32)
    plain = np.empty((1,) + textures.albedo.shape[1:], np.uint8)
    plain[..., :3] = np.round(np.array(NONE_COLOUR) * 255)
    plain[..., 3] = 255
    matte = np.zeros_like(plain)
    matte[..., 0] = matte[..., 3] = 255
    return ((np.concatenate([textures.albedo, plain]), np.concatenate([textures.surface, matte])), layers, known)


_TEXTURES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # table -> its TextureSet


def _texture_set(materials: MaterialTable) -> TextureSet:
    """The pictures of a table, drawn once per table (tables never change): snapshots of a world reuse them."""
    textures = _TEXTURES.get(materials)
    if textures is None:
        textures = _TEXTURES[materials] = texture_set(materials)
    return textures


# --- drawing ------------------------------------------------------------------------------------------------


def _context() -> moderngl.Context:
    """A headless OpenGL 3.3+ context through EGL, or RenderError saying what is missing."""
    try:
        import moderngl
    except ImportError as error:
        raise RenderError(f"the Python package moderngl is not installed ({error}): run scripts/setup") from error
    try:
        # moderngl's stub types each **settings value as a dict; glcontext reads backend="egl" as a string
        return moderngl.create_context(standalone=True, backend="egl", require=330)  # type: ignore[arg-type]
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
    pictures, layers, known = _layers(materials)
    corners = _display_corners(meshes, layers, known)
    wire = _collision_lines(collision if collision is not None else [])
    if camera is None:
        everything = np.vstack([corners.positions, wire[0]])
        lo, hi = (everything.min(axis=0), everything.max(axis=0)) if len(everything) else (np.zeros(3),) * 2
        camera = Camera.looking_at_bounds(lo, hi, aspect=width / height)
    view_projection = camera.projection_matrix(width / height) @ camera.view_matrix()

    ctx = _context()
    try:
        return draw(ctx, (width, height), view_projection, camera.eye, corners, pictures, wire, background,
                    wireframe_colour)
    except RenderError:
        raise
    except Exception as error:  # moderngl reports GL failures as plain Exception
        raise RenderError(f"OpenGL failed while rendering: {error}") from error
    finally:
        ctx.release()


def snapshot(meshes: object, path: str | os.PathLike, *, materials: MaterialTable, camera: Camera | None = None,
             size: tuple[int, int] = (960, 540), collision: object = None,
             background: tuple[float, float, float] = (0.62, 0.75, 0.88),
             wireframe_colour: tuple[float, float, float] = WIREFRAME_COLOUR) -> Path:
    """Render display meshes offscreen and write the picture to a PNG file.

    Every point shows ``(1 - blend) * texture[mat_a] + blend * texture[mat_b]``, the textures of ``materials``
    (:func:`voxelworld.terrain.texture_set`; material id 0, "none", is plain grey) mapped by world position,
    lit by a sun high to the front right that casts shadows, light from the sky and the ground (times the
    vertex ``occlusion``), a fill light opposite the sun, and faded by distance fog into ``background``; metals
    and glossy materials mirror the sky, emissive ones glow. Both sides of every triangle are drawn; a back face
    (seen from inside a mesh) is darker. The same input gives the same picture, bit for bit.

    Parameters
    ----------
    meshes : display mesh or list of display meshes
        Objects with ``positions`` (n, 3) m, ``normals`` (n, 3), ``indices`` (m, 3) vertex numbers (counter-
        clockwise seen from the front), ``mat_a``, ``mat_b`` (n,) material ids of ``materials`` and ``blend``
        (n,) share of ``mat_b`` in [0, 1], such as ``voxelworld.meshing.DisplayMesh``; an ``occlusion`` (n,) in
        [0, 1] is used when the mesh has one.
    path : str or path-like
        The PNG file to write, in an existing folder. It is written whole or not at all: the picture goes to a
        temporary file beside it that then replaces ``path``.
    materials : voxelworld.terrain.MaterialTable
        Where the textures (and colours) of material ids come from.
    camera : Camera, optional
        The view. Default: from above, front right, framing every mesh (``Camera.looking_at_bounds``).
    size : (int, int)
        Width and height in pixels, each 1 to :data:`MAX_SIZE`.
    collision : collision mesh or list of collision meshes, optional
        Objects with ``positions`` (n, 3) m, ``indices`` (m, 3) and ``tri_material`` (m,), such as
        ``voxelworld.meshing.CollisionMesh``: their triangle edges are drawn over the display meshes in
        ``wireframe_colour``.
    background : (float, float, float)
        Red, green, blue in [0, 1] where nothing is drawn, and what distance fog fades into.
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
