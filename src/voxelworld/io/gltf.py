"""glTF 2.0 binary (.glb) export of a world: the terrain's display mesh, and its collision mesh and navmesh on demand.

One scene, ``"voxelworld"``, in metres with Y up (as glTF and voxelworld both are), holds these nodes:

- ``"terrain"``: the display mesh, every chunk's merged in chunk order, textured. Its triangles are split into
  one primitive per *dominant* material (the one a triangle shows most,
  :func:`~voxelworld.io.parts.dominant_materials`), all sharing one set of vertex attributes: ``POSITION``,
  ``NORMAL``, ``TEXCOORD_0`` (box mapping: world position / ``TEXTURE_METRES`` on the plane across the axis the
  triangle faces most, as the snapshots map textures; vertices are copied where triangles of different axes or
  dominant materials meet, :func:`~voxelworld.io.parts.planar_vertices`), ``COLOR_0`` and the custom
  attributes ``_MAT_A`` and ``_MAT_B`` (unsigned byte material ids, in a 4-byte stride as glTF aligns vertex
  attributes) and ``_BLEND`` (float, the share of ``_MAT_B``): the :class:`~voxelworld.meshing.DisplayMesh`
  arrays, per copied vertex. Each terrain material is named after its voxelworld material and carries its
  texture's pictures (:func:`voxelworld.terrain.texture_set`) as embedded PNGs: ``baseColorTexture``,
  ``metallicRoughnessTexture`` (iron is metal, ice and obsidian glossy) and, for glowing materials (lava),
  ``emissiveTexture``. A vertex blending two materials cannot show two textures in a standard glTF material:
  ``COLOR_0`` (linear RGB) tints the dominant material's texture towards the other material's average colour by
  that material's share (white where a vertex shows one material; at most 1, so a tint can darken and shift but
  not brighten), and is darkened by the mesh's ambient ``occlusion`` when the mesh has one. The exact blend stays
  in ``_MAT_A`` / ``_MAT_B`` / ``_BLEND`` for shaders that read them: the mesh's ``extras`` name every material id
  they hold (``material_names``) and its texture's glTF textures (``material_textures``). Each material's
  ``extras`` hold its voxelworld ``id`` and sRGB ``colour`` (its texture's average).
- ``"collision"`` (``collision=True``): the collision mesh, one primitive per triangle material, each with the
  material ``collision_<name>`` whose base colour is the material's colour (no vertex colours).
- ``"navmesh"`` (``navmesh=True``): the navmesh's convex polygons as triangle fans, one primitive per level
  (``extras`` ``{"level": n}``), with one translucent, double-sided material ``"navmesh"``.

A part without triangles is a node without a mesh. The same world gives the same bytes. :func:`glb_bytes` gives
the file's content without writing it (to serve it, say).

Examples
--------
>>> import tempfile, pathlib
>>> from voxelworld.game.world import World
>>> world = World.demo(seed=0)
>>> path = export_glb(world, pathlib.Path(tempfile.mkdtemp()) / "world.glb", collision=True)
>>> path.read_bytes()[:4]
b'glTF'
"""

from __future__ import annotations

import io
import os
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from pygltflib import (
    ARRAY_BUFFER,
    ELEMENT_ARRAY_BUFFER,
    FLOAT,
    GLTF2,
    LINEAR,
    LINEAR_MIPMAP_LINEAR,
    REPEAT,
    SCALAR,
    TRIANGLES,
    UNSIGNED_BYTE,
    UNSIGNED_INT,
    VEC2,
    VEC3,
    Accessor,
    Asset,
    Attributes,
    Buffer,
    BufferView,
    Image,
    Material,
    Mesh,
    Node,
    PbrMetallicRoughness,
    Primitive,
    Sampler,
    Scene,
    Texture,
    TextureInfo,
)

from .. import __version__
from ..files import write_atomically
from ..terrain import TextureSet
from .parts import NAVMESH_COLOUR, ExportParts, check_path, fan_triangles, gather, material_groups, planar_vertices

if TYPE_CHECKING:
    from ..game.world import World

__all__ = ["export_glb", "glb_bytes"]

_DTYPES = {FLOAT: "<f4", UNSIGNED_BYTE: "u1", UNSIGNED_INT: "<u4"}  # glTF component types, little-endian
_JSON, _BIN = 0x4E4F534A, 0x004E4942  # GLB chunk types: "JSON" and "BIN\0" read as little-endian uint32


def export_glb(world: World, path: str | os.PathLike[str], collision: bool = False, navmesh: bool = False) -> Path:
    """Write ``world`` to ``path`` as a glTF 2.0 binary (.glb), atomically; return the path.

    Parameters
    ----------
    world : voxelworld.game.world.World
        Its current display mesh (as of the last frame), collision mesh and navmesh are written.
    path : str or os.PathLike
        The file to write (replaced if it exists), in an existing folder.
    collision : bool
        Add the node ``"collision"``: the collision mesh, one material per triangle.
    navmesh : bool
        Add the node ``"navmesh"``: the navmesh's polygons, per level (the world must have a navmesh).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ParameterError
        ``world`` is not a World, ``path`` is a folder or lies in none, ``collision`` or ``navmesh`` is not a
        bool, or ``navmesh`` is True for a world without a navmesh. Nothing is written.
    """
    target = check_path(path)
    data = glb_bytes(world, collision, navmesh)
    return write_atomically(target, lambda file: file.write(data))


def glb_bytes(world: World, collision: bool = False, navmesh: bool = False) -> bytes:
    """The .glb file :func:`export_glb` writes, as bytes (to serve or embed without a file)."""
    parts = gather(world, collision, navmesh)
    builder = _Builder()
    builder.terrain(parts)
    if parts.collision is not None:
        builder.collision(parts)
    if parts.navmesh is not None:
        builder.navmesh(parts)
    return builder.glb()


def srgb_to_linear(srgb: ArrayLike) -> np.ndarray:
    """sRGB colour components (in [0, 1]) to linear ones, as glTF colours are.

    >>> srgb_to_linear([0.0, 0.5, 1.0]).round(4).tolist()
    [0.0, 0.214, 1.0]
    """
    c = np.asarray(srgb, dtype=np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _tints(mat_a: np.ndarray, mat_b: np.ndarray, blend: np.ndarray, dominant: np.ndarray,
           colours: np.ndarray) -> np.ndarray:
    """COLOR_0 of split vertices: white where a vertex shows only the material of its primitive (``dominant``),
    and towards the other material's average colour by that material's share, as a factor on the dominant
    material's texture (linear RGB, at most 1: a tint can darken and shift, not brighten)."""
    dominant = dominant.astype(np.int64)
    other = np.where(mat_a == dominant, mat_b, mat_a).astype(np.int64)
    share = np.where(mat_a == dominant, blend, 1.0 - blend).astype(np.float64)[:, None]
    share = np.where((other[:, None] == 0) | (other[:, None] == dominant[:, None]), 0.0, share)
    own, theirs = srgb_to_linear(colours[dominant]), srgb_to_linear(colours[other])
    return np.clip((1.0 - share) + share * theirs / np.maximum(own, 1e-3), 0.0, 1.0)


class _Builder:
    """A glTF document and its binary chunk, built up part by part."""

    def __init__(self) -> None:
        self.document = GLTF2(asset=Asset(generator=f"voxelworld {__version__}"), scene=0,
                              scenes=[Scene(name="voxelworld", nodes=[])])
        self.blob = bytearray()
        self.layer_textures: dict[int, dict] = {}  # texture layer -> its glTF textures

    # --------------------------------------------------------------------------------------------- parts
    def terrain(self, parts: ExportParts) -> None:
        mesh = parts.display
        if not mesh.triangle_count:
            self.node("terrain", None)
            return
        split = planar_vertices(mesh, parts.display_material)
        source = split.source
        occlusion = getattr(mesh, "occlusion", None)  # contract B: per vertex, 1 open .. 0 enclosed; else open
        tint = _tints(mesh.mat_a[source], mesh.mat_b[source], mesh.blend[source], split.dominant, parts.colours)
        if occlusion is not None:
            tint = tint * np.asarray(occlusion, dtype=np.float64)[source, None]
        attributes = {"POSITION": self.vertex_accessor(mesh.positions[source], FLOAT, VEC3, bounds=True),
                      "NORMAL": self.vertex_accessor(mesh.normals[source], FLOAT, VEC3),
                      "TEXCOORD_0": self.vertex_accessor(split.uv, FLOAT, VEC2),
                      "COLOR_0": self.vertex_accessor(tint, FLOAT, VEC3),
                      "_MAT_A": self.vertex_accessor(mesh.mat_a[source], UNSIGNED_BYTE, SCALAR),
                      "_MAT_B": self.vertex_accessor(mesh.mat_b[source], UNSIGNED_BYTE, SCALAR),
                      "_BLEND": self.vertex_accessor(mesh.blend[source], FLOAT, SCALAR)}
        shown = np.union1d(mesh.mat_a, mesh.mat_b)
        pictures = {int(m): self.pictures(parts.textures, int(parts.textures.layer_of[m])) for m in shown
                    if parts.textures.layer_of[m] >= 0}
        primitives = []
        for material, triangles in material_groups(parts.display_material):
            extras = {"id": material, "colour": [float(c) for c in parts.colours[material]]}
            index = self.material(parts.names[material], (1.0, 1.0, 1.0), extras, pictures=pictures.get(material))
            primitives.append(self.primitive(attributes, split.indices[triangles], index))
        names = {str(m): parts.names[m] for m in shown.tolist()}
        textures = {str(m): {"texture": parts.textures.names[parts.textures.layer_of[m]]} | maps
                    for m, maps in pictures.items()}
        self.node("terrain", Mesh(name="terrain", primitives=primitives,
                                  extras={"material_names": names, "material_textures": textures}))

    def pictures(self, textures: TextureSet, layer: int) -> dict:
        """The glTF textures of one texture layer (made once per layer): ``baseColorTexture``,
        ``metallicRoughnessTexture`` and, where the layer glows, ``emissiveTexture`` (texture indices)."""
        if layer in self.layer_textures:
            return self.layer_textures[layer]
        albedo, surface = textures.albedo[layer], textures.surface[layer]
        roughness_metal = np.zeros_like(albedo[..., :3])
        roughness_metal[..., 1], roughness_metal[..., 2] = surface[..., 0], surface[..., 1]  # glTF: G rough, B metal
        maps = {"baseColorTexture": self.texture(albedo[..., :3]),
                "metallicRoughnessTexture": self.texture(roughness_metal)}
        if surface[..., 2].any():
            glow = np.round(albedo[..., :3].astype(np.float64) * surface[..., 2:3] / 255.0).astype(np.uint8)
            maps["emissiveTexture"] = self.texture(glow)
        self.layer_textures[layer] = maps
        return maps

    def texture(self, rgb: np.ndarray) -> int:
        """A PNG image of ``rgb`` (S, S, 3 uint8) in the binary chunk, and a repeating texture of it."""
        from PIL import Image as Picture

        document = self.document
        if not document.samplers:
            document.samplers.append(Sampler(magFilter=LINEAR, minFilter=LINEAR_MIPMAP_LINEAR, wrapS=REPEAT,
                                             wrapT=REPEAT))
        file = io.BytesIO()
        Picture.fromarray(np.ascontiguousarray(rgb), "RGB").save(file, format="PNG", optimize=False)
        data = file.getvalue()
        document.bufferViews.append(BufferView(buffer=0, byteOffset=len(self.blob), byteLength=len(data)))
        self.blob += data + b"\0" * (-len(data) % 4)
        document.images.append(Image(bufferView=len(document.bufferViews) - 1, mimeType="image/png"))
        document.textures.append(Texture(sampler=0, source=len(document.images) - 1))
        return len(document.textures) - 1

    def collision(self, parts: ExportParts) -> None:
        mesh = parts.collision
        assert mesh is not None  # glb_bytes asks for it only when gathered
        if not mesh.triangle_count:
            self.node("collision", None)
            return
        attributes = {"POSITION": self.vertex_accessor(mesh.positions, FLOAT, VEC3, bounds=True)}
        primitives = []
        for material, triangles in material_groups(mesh.tri_material):
            extras = {"id": material, "colour": [float(c) for c in parts.colours[material]]}
            colour = srgb_to_linear(parts.colours[material])
            index = self.material(f"collision_{parts.names[material]}", colour, extras)
            primitives.append(self.primitive(attributes, mesh.indices[triangles], index))
        self.node("collision", Mesh(name="collision", primitives=primitives))

    def navmesh(self, parts: ExportParts) -> None:
        navmesh = parts.navmesh
        assert navmesh is not None  # glb_bytes asks for it only when gathered
        if not navmesh.polygon_count:
            self.node("navmesh", None)
            return
        attributes = {"POSITION": self.vertex_accessor(navmesh.vertices, FLOAT, VEC3, bounds=True)}
        material = self.material("navmesh", srgb_to_linear(NAVMESH_COLOUR[:3]), {}, alpha=NAVMESH_COLOUR[3])
        primitives = []
        for level in sorted(set(navmesh.polygon_level.tolist())):
            triangles = fan_triangles(navmesh.polygon_start, navmesh.polygon_vertices,
                                      np.flatnonzero(navmesh.polygon_level == level))
            # A corner on a straight side (where what lies across changes) makes a fan triangle of no area: left
            # out, judged on the positions as the file stores them (float32).
            stored = navmesh.vertices.astype(np.float32).astype(np.float64)
            a, b, c = (stored[triangles[:, n]][:, [0, 2]] for n in range(3))
            edge_ab, edge_ac = b - a, c - a
            triangles = triangles[edge_ab[:, 1] * edge_ac[:, 0] - edge_ab[:, 0] * edge_ac[:, 1] > 0]
            primitives.append(self.primitive(attributes, triangles, material, extras={"level": level}))
        self.node("navmesh", Mesh(name="navmesh", primitives=primitives))

    # ------------------------------------------------------------------------------------ glTF objects
    def node(self, name: str, mesh: Mesh | None) -> None:
        document = self.document
        if mesh is not None:
            document.meshes.append(mesh)
        document.nodes.append(Node(name=name, mesh=None if mesh is None else len(document.meshes) - 1))
        document.scenes[0].nodes.append(len(document.nodes) - 1)

    def material(self, name: str, colour: Sequence[float] | np.ndarray, extras: dict, alpha: float = 1.0,
                 pictures: dict | None = None) -> int:
        red, green, blue = (float(c) for c in colour)
        translucent = alpha < 1.0
        pbr = PbrMetallicRoughness(baseColorFactor=[red, green, blue, alpha], metallicFactor=0.0, roughnessFactor=1.0)
        glow = None
        if pictures:  # the texture's pictures: the metalness and roughness come from them
            pbr.baseColorTexture = TextureInfo(index=pictures["baseColorTexture"])
            pbr.metallicRoughnessTexture = TextureInfo(index=pictures["metallicRoughnessTexture"])
            pbr.metallicFactor = 1.0
            if "emissiveTexture" in pictures:
                glow = TextureInfo(index=pictures["emissiveTexture"])
        self.document.materials.append(Material(
            name=name, pbrMetallicRoughness=pbr, alphaMode="BLEND" if translucent else "OPAQUE",
            doubleSided=translucent, extras=extras, emissiveTexture=glow,
            emissiveFactor=[1.0, 1.0, 1.0] if glow is not None else None))
        return len(self.document.materials) - 1

    def primitive(self, attributes: dict, triangles: np.ndarray, material: int,
                  extras: dict | None = None) -> Primitive:
        indices = self.accessor(np.ravel(triangles), UNSIGNED_INT, SCALAR, ELEMENT_ARRAY_BUFFER)
        return Primitive(attributes=Attributes(**attributes), indices=indices, material=material, mode=TRIANGLES,
                         extras=extras or {})

    def vertex_accessor(self, values: np.ndarray, component: int, kind: str, bounds: bool = False) -> int:
        if component == UNSIGNED_BYTE:  # each vertex's value padded to 4 bytes: glTF aligns vertex attributes
            padded = np.zeros((len(values), 4), dtype=np.uint8)
            padded[:, 0] = values
            return self.accessor(padded, component, kind, ARRAY_BUFFER, stride=4, count=len(values))
        return self.accessor(values, component, kind, ARRAY_BUFFER, bounds=bounds)

    def accessor(self, values: np.ndarray, component: int, kind: str, target: int, stride: int | None = None,
                 count: int | None = None, bounds: bool = False) -> int:
        values = np.ascontiguousarray(values, dtype=_DTYPES[component])
        data = values.tobytes()
        document = self.document
        document.bufferViews.append(BufferView(buffer=0, byteOffset=len(self.blob), byteLength=len(data),
                                               byteStride=stride, target=target))
        self.blob += data + b"\0" * (-len(data) % 4)
        low = high = None
        if bounds:  # the float32 values, which float64 and JSON hold exactly
            low, high = values.min(axis=0).tolist(), values.max(axis=0).tolist()
        document.accessors.append(Accessor(bufferView=len(document.bufferViews) - 1, componentType=component,
                                           count=len(values) if count is None else count, type=kind, min=low,
                                           max=high))
        return len(document.accessors) - 1

    def glb(self) -> bytes:
        """The GLB container: a 12-byte header, the JSON chunk (padded with spaces) and the binary chunk (padded
        with zeros; left out when there is no binary data, as the GLB spec asks)."""
        document = self.document
        document.buffers = [Buffer(byteLength=len(self.blob))] if self.blob else []
        text = document.gltf_to_json(separators=(",", ":"), indent=None).encode("utf-8")
        chunks = [(_JSON, text + b" " * (-len(text) % 4))]
        if self.blob:
            chunks.append((_BIN, bytes(self.blob)))
        body = b"".join(struct.pack("<II", len(data), kind) + data for kind, data in chunks)
        return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body
