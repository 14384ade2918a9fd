"""voxelworld.terrain: the density-voxel world that players dig, punch, suck in and build on.

Floor 1: knows nothing of meshes, navigation or the game.

- :class:`VoxelVolume`: the voxel fields (density, two materials and their mix, damage), dirty chunks,
  volume measurements, ``extract``, and the edits ``remove``, ``add``, ``paint``, ``expose_interior``,
  ``convert``, ``scrape`` and ``remove_fragments``, each returning an :class:`EditResult`.
- :class:`SparseVolume`: the same fields and edits for worlds of real size, stored per chunk only where a chunk
  is not uniform; :class:`Volume` is what both share (geometry, chunks, edits, ``read_window``).
- :class:`MaterialTable` / :class:`Material`: what voxels are made of (TOML; a default table ships).
- Update ranges :class:`Sphere`, :class:`Box`, :class:`Capsule`, :class:`Cylinder` and their :class:`Union`.
- :class:`Tool`: the hardness gate of digging edits.
- :func:`texture_set` / :class:`TextureSet`: the procedural pictures of the materials' textures.
- Generators: ``VoxelVolume.from_sdf``, ``VoxelVolume.from_heightmap`` with :class:`Layer`, and
  :func:`demo_terrain`.
- The seeded world generator (:mod:`.worldgen`): :class:`GeneratorSettings`, :func:`generate_block`,
  :func:`generate_blocks`, :func:`generate_chunks`, :func:`chunk_boxes`, :func:`generate_volume` and
  :func:`generate_world` (a SparseVolume of real size).
"""

from .base import Volume
from .demo import demo_terrain
from .edits import EditResult, Tool
from .generators import Layer
from .materials import NONE_COLOUR, Material, MaterialTable
from .shapes import Box, Capsule, Cylinder, Shape, Sphere, Union
from .sparse import SparseVolume
from .textures import TEXTURE_METRES, TEXTURE_SIZE, TextureSet, texture_set
from .volume import FIELDS, VoxelVolume
from .worldgen import (
                       GeneratorSettings,
                       chunk_boxes,
                       generate_block,
                       generate_blocks,
                       generate_chunks,
                       generate_volume,
                       generate_world,
)

__all__ = [
    "VoxelVolume", "SparseVolume", "Volume", "FIELDS", "EditResult", "Tool", "Material", "MaterialTable", "NONE_COLOUR", "Shape", "Sphere",
    "Box", "Capsule", "Cylinder", "Union", "Layer", "demo_terrain", "TextureSet", "texture_set", "TEXTURE_SIZE",
    "TEXTURE_METRES", "GeneratorSettings", "generate_block", "generate_blocks", "generate_chunks", "generate_world",
    "chunk_boxes", "generate_volume",
]
