"""voxelworld.io: world files and exchange formats.

Floor 3, beside the game: it stores and reads what :mod:`voxelworld.game` builds.

- :func:`save_world` / :func:`load_world` (also ``World.save`` / ``World.load``): a whole game world in one
  SQLite file: voxels as checksummed zstd chunk blobs, the game state as JSON rows, written in one transaction
  and, on a re-save, only what changed (format: docs/specs/world-format.md).
"""

from .world_file import FORMAT_VERSION, SaveReport, load_world, save_world

__all__ = ["save_world", "load_world", "SaveReport", "FORMAT_VERSION"]
