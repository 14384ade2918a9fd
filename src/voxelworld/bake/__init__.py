"""voxelworld.bake: a world's meshes at every level of detail and its navmesh tiles, baked block by block into its
world file, in this process or as tasks on a Dask cluster (``pip install 'voxelworld[cluster]'``).

Floor 4 (uses io, game, meshing, navigation). :func:`bake_world` runs a bake (``voxelworld bake`` on the command
line); :func:`bake_block` is one block's task, a pure function of the world file, the same in any process; the
bake tables' rows are :mod:`.records`'. Guide: docs/scaling.md.
"""

from .blocks import WHAT, BakePlan, BlockResult, bake_block, plan_bake
from .run import BakeReport, bake_world

__all__ = ["bake_world", "BakeReport", "bake_block", "plan_bake", "BakePlan", "BlockResult", "WHAT"]
