"""voxelworld.motion: skeletons, clips, inverse kinematics, and motion that answers what it touches.

Floor 2: may use :mod:`voxelworld.collision` queries, nothing above.

Conventions (shared by every module of the wing):

- Units are metres and seconds; Y is up, right-handed, as in glTF. Angles in the public API are degrees.
- Rotations are unit quaternions stored ``(x, y, z, w)`` (glTF's order), float64; transforms are 4x4 float64
  matrices acting on column vectors (``world = parent @ local``), translation in the last column.
- A skeleton's joints are ordered so that every parent comes before its children (index -1: no parent).
- Joint transforms are *local* (relative to the parent) unless a name says *world*.
"""

from . import quaternions
from .assets import CESIUM_MAN
from .biovision import load_bvh
from .clip import Channel, Clip
from .contact_motion import ContactMotion
from .gltf import Character, SkinnedMesh, load_gltf, skin
from .ik import ConeLimit, HingeLimit, fabrik, two_bone_ik
from .measure import JointMotion, joint_motion, motion_ratios
from .part_contacts import (
                            Contact,
                            ContactEnded,
                            ContactStarted,
                            Medium,
                            MediumEntered,
                            MediumLeft,
                            PartShape,
                            SlowdownProfile,
                            Vibration,
                            collision_contact_query,
)
from .skeleton import Pose, Skeleton
from .swing import (
    PUNCH_STRIKE,
    chainsaw_swing_clip,
    cutting_clip,
    dig_clip,
    forearm_part,
    held_part,
    punch_clip,
    row_clip,
    swing_clip,
)

__all__ = ["quaternions", "CESIUM_MAN", "load_bvh", "Channel", "Clip", "ContactMotion", "Contact", "ContactEnded",
           "ContactStarted", "Medium", "MediumEntered", "MediumLeft", "PartShape", "SlowdownProfile", "Vibration",
           "collision_contact_query", "Character", "SkinnedMesh", "load_gltf", "skin", "ConeLimit", "HingeLimit",
           "fabrik", "two_bone_ik", "Pose", "Skeleton", "chainsaw_swing_clip", "cutting_clip", "dig_clip",
           "forearm_part", "held_part", "punch_clip", "PUNCH_STRIKE", "row_clip", "swing_clip", "JointMotion", "joint_motion", "motion_ratios"]
