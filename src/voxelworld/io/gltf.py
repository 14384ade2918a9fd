"""glTF 2.0 binary (.glb) export of a world: the terrain's display mesh, and its collision mesh and navmesh on demand.

One scene, ``"voxelworld"``, in metres with Y up (as glTF and voxelworld both are), holds these nodes:

- ``"terrain"``: the display mesh, every chunk's merged in chunk order. Its vertex attributes are ``POSITION``,
  ``NORMAL``, ``COLOR_0`` (the two materials' colours blended by ``blend``, as the viewer draws them, in linear
  RGB as glTF wants), and the custom attributes ``_MAT_A`` and ``_MAT_B`` (unsigned byte material ids, in a
  4-byte stride as glTF aligns vertex attributes) and ``_BLEND`` (float, the share of ``_MAT_B``): exactly the
  :class:`~voxelworld.meshing.DisplayMesh` arrays. The triangles are split into one primitive per *dominant*
  material (the one a triangle shows most, :func:`~voxelworld.io.parts.dominant_materials`), all sharing those
  attributes, so an editor shows one material slot per terrain material. These materials are named after the
  voxelworld materials and are white, because glTF multiplies ``COLOR_0`` into the base colour (a coloured
  material would darken every blend); each material's ``extras`` hold its voxelworld ``id`` and sRGB
  ``colour``, and the mesh's ``extras`` name every material id of ``_MAT_A`` and ``_MAT_B`` (for shaders that read
  ``_MAT_A`` / ``_MAT_B``).
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

import struct
from pathlib import Path

import numpy as np
from pygltflib import (ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER, FLOAT, GLTF2, SCALAR, TRIANGLES, UNSIGNED_BYTE,
                       UNSIGNED_INT, VEC3, Accessor, Asset, Attributes, Buffer, BufferView, Material, Mesh, Node,
                       PbrMetallicRoughness, Primitive, Scene)

from .. import __version__
from ..files import write_atomically
from .parts import NAVMESH_COLOUR, ExportParts, check_path, fan_triangles, gather, material_groups

__all__ = ["export_glb", "glb_bytes"]

_DTYPES = {FLOAT: "<f4", UNSIGNED_BYTE: "u1", UNSIGNED_INT: "<u4"}  # glTF component types, little-endian
_JSON, _BIN = 0x4E4F534A, 0x004E4942  # GLB chunk types: "JSON" and "BIN\0" read as little-endian uint32


def export_glb(world, path, collision: bool = False, navmesh: bool = False) -> Path:
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


def glb_bytes(world, collision: bool = False, navmesh: bool = False) -> bytes:
    """The .glb file :func:`export_glb` writes, as bytes (to serve or embed without a file)."""
    parts = gather(world, collision, navmesh)
    builder = _Builder()
    builder.terrain(parts)
    if parts.collision is not None:
        builder.collision(parts)
    if parts.navmesh is not None:
        builder.navmesh(parts)
    return builder.glb()


def srgb_to_linear(srgb) -> np.ndarray:
    """sRGB colour components (in [0, 1]) to linear ones, as glTF colours are.

    >>> srgb_to_linear([0.0, 0.5, 1.0]).round(4).tolist()
    [0.0, 0.214, 1.0]
    """
    c = np.asarray(srgb, dtype=np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


class _Builder:
    """A glTF document and its binary chunk, built up part by part."""

    def __init__(self):
        self.document = GLTF2(asset=Asset(generator=f"voxelworld {__version__}"), scene=0,
                              scenes=[Scene(name="voxelworld", nodes=[])])
        self.blob = bytearray()

    # --------------------------------------------------------------------------------------------- parts
    def terrain(self, parts: ExportParts) -> None:
        mesh = parts.display
        if not mesh.triangle_count:
            self.node("terrain", None)
            return
        share = mesh.blend.astype(np.float64)[:, None]
        colours = srgb_to_linear(parts.colours[mesh.mat_a] * (1.0 - share) + parts.colours[mesh.mat_b] * share)
        attributes = {"POSITION": self.vertex_accessor(mesh.positions, FLOAT, VEC3, bounds=True),
                      "NORMAL": self.vertex_accessor(mesh.normals, FLOAT, VEC3),
                      "COLOR_0": self.vertex_accessor(colours, FLOAT, VEC3),
                      "_MAT_A": self.vertex_accessor(mesh.mat_a, UNSIGNED_BYTE, SCALAR),
                      "_MAT_B": self.vertex_accessor(mesh.mat_b, UNSIGNED_BYTE, SCALAR),
                      "_BLEND": self.vertex_accessor(mesh.blend, FLOAT, SCALAR)}
        primitives = []
        for material, triangles in material_groups(parts.display_material):
            extras = {"id": material, "colour": [float(c) for c in parts.colours[material]]}
            primitives.append(self.primitive(attributes, mesh.indices[triangles],
                                             self.material(parts.names[material], (1.0, 1.0, 1.0), extras)))
        names = {str(m): parts.names[m] for m in np.union1d(mesh.mat_a, mesh.mat_b).tolist()}
        self.node("terrain", Mesh(name="terrain", primitives=primitives, extras={"material_names": names}))

    def collision(self, parts: ExportParts) -> None:
        mesh = parts.collision
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
        if not navmesh.polygon_count:
            self.node("navmesh", None)
            return
        attributes = {"POSITION": self.vertex_accessor(navmesh.vertices, FLOAT, VEC3, bounds=True)}
        material = self.material("navmesh", srgb_to_linear(NAVMESH_COLOUR[:3]), {}, alpha=NAVMESH_COLOUR[3])
        primitives = []
        for level in sorted(set(navmesh.polygon_level.tolist())):
            triangles = fan_triangles(navmesh.polygon_start, navmesh.polygon_vertices,
                                      np.flatnonzero(navmesh.polygon_level == level))
            primitives.append(self.primitive(attributes, triangles, material, extras={"level": level}))
        self.node("navmesh", Mesh(name="navmesh", primitives=primitives))

    # ------------------------------------------------------------------------------------ glTF objects
    def node(self, name: str, mesh: Mesh | None) -> None:
        document = self.document
        if mesh is not None:
            document.meshes.append(mesh)
        document.nodes.append(Node(name=name, mesh=None if mesh is None else len(document.meshes) - 1))
        document.scenes[0].nodes.append(len(document.nodes) - 1)

    def material(self, name: str, colour, extras: dict, alpha: float = 1.0) -> int:
        red, green, blue = (float(c) for c in colour)
        translucent = alpha < 1.0
        self.document.materials.append(Material(
            name=name, pbrMetallicRoughness=PbrMetallicRoughness(baseColorFactor=[red, green, blue, alpha],
                                                                 metallicFactor=0.0, roughnessFactor=1.0),
            alphaMode="BLEND" if translucent else "OPAQUE", doubleSided=translucent, extras=extras))
        return len(self.document.materials) - 1

    def primitive(self, attributes: dict, triangles: np.ndarray, material: int, extras: dict | None = None):
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
