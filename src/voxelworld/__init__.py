"""voxelworld: destructible game worlds in Python.

Wings (see ARCHITECTURE.md): :mod:`voxelworld.terrain` (density voxels, materials, edits, fragments).
"""

__version__ = "0.1.0"
