"""voxelworld.motion: skeletons, clips, inverse kinematics, and motion that answers what it touches.

Floor 2: may use :mod:`voxelworld.collision` queries, nothing above.

Conventions (shared by every module of the wing):

- Units are metres and seconds; Y is up, right-handed, as in glTF. Angles in the public API are degrees.
- Rotations are unit quaternions stored ``(x, y, z, w)`` (glTF's order), float64; transforms are 4x4 float64
  matrices acting on column vectors (``world = parent @ local``), translation in the last column.
- A skeleton's joints are ordered so that every parent comes before its children (index -1: no parent).
- Joint transforms are *local* (relative to the parent) unless a name says *world*.
"""

from voxelworld.motion import quaternions
from voxelworld.motion.clip import Channel, Clip
from voxelworld.motion.gltf import Character, SkinnedMesh, load_gltf, skin
from voxelworld.motion.skeleton import Pose, Skeleton
