"""voxelworld.game: the world where the wings meet (issue #6)."""
