"""voxelworld: destructible game worlds in Python.

Wings (see ARCHITECTURE.md): :mod:`voxelworld.terrain` (density voxels, materials, edits, fragments).
"""

__version__ = "0.2.0"  # the one place: pyproject.toml reads it, CHANGELOG.md says what each version brought
