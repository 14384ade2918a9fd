"""The third-person camera's spring arm: where the camera over the player's shoulder stands so that it never enters
terrain or a prop.

The camera wants to stand ``SHOULDER_BACK`` m behind the eye (against the view direction), ``SHOULDER_RIGHT`` m to
the right and ``SHOULDER_UP`` m up, as over the right shoulder of most third-person games. A sphere of
``CAMERA_RADIUS`` m is swept from the eye towards that point against the collision mesh (terrain and props, within
0.3 voxel edges of the drawn surface), and the camera stops where the sphere first touches: the segment from the
eye to the camera, widened by the sphere, is clear, so neither the camera nor the near part of its view lies
inside the terrain. In a tunnel the camera comes in behind the player's head instead of into the rock.

Looking down, the arm does not rise above ``MAX_ARM_PITCH`` degrees: the camera stays behind the player, which
then stands in the picture instead of under the camera hiding the ground it looks at.

The page (``viewer/web/camera.js``) places its camera by this rule: each frame message carries the arm's length
(:func:`follow_camera`, ``player.camera`` in docs/specs/play-protocol.md), and the page also casts its own ray for
the view it turned to since.

>>> import numpy as np
>>> from voxelworld.collision import TriangleBVH
>>> wall = TriangleBVH([[0, -5, 2], [0, 5, 2], [9, -5, 2], [9, 5, 2]], [[0, 1, 2], [1, 3, 2]])  # z = 2 m
>>> arm = spring_arm(wall, (1.0, 1.6, 0.0), 0.0, 0.0)   # looking along -z: the wall 2 m behind the eye
>>> arm.blocked, round(arm.wanted, 2), round(arm.position[2], 1)   # the sphere stops 0.3 m before the wall
(True, 3.17, 1.7)
>>> spring_arm(wall, (1.0, 1.6, 0.0), 180.0, 0.0).blocked   # looking at the wall: the way back is free
False
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np
from numpy.typing import ArrayLike

from ..collision import Contacts
from ..errors import check_finite, check_point
from .aim import as_point
from .player import view_direction

if TYPE_CHECKING:
    from .player import Player
    from .world import World

__all__ = ["SHOULDER_BACK", "SHOULDER_RIGHT", "SHOULDER_UP", "CAMERA_RADIUS", "MAX_ARM_PITCH", "SpringArm",
           "arm_direction", "spring_arm", "follow_camera"]

SHOULDER_BACK = 3.0  # m behind the eye, against the view direction
SHOULDER_RIGHT = 0.9  # m to the view's right
SHOULDER_UP = 0.5  # m up
CAMERA_RADIUS = 0.3  # m: the sphere swept along the arm (the camera keeps this far from any surface)
MAX_ARM_PITCH = 50.0  # degrees: looking down more steeply, the arm stays at this elevation behind the player
_COARSE = 24  # arm lengths tried at once along the arm; then as many between the last clear one and the next
_FINE = 12


class _Overlaps(Protocol):
    def overlap_capsule(self, a: ArrayLike, b: ArrayLike, radius: float) -> Contacts: ...


@dataclass(frozen=True)
class SpringArm:
    """Where the camera stands: ``position`` (m), ``distance`` (m from the eye along the arm), ``wanted`` (m, the
    arm's full length), ``direction`` (unit, from the eye along the arm) and ``blocked`` (the terrain or a prop
    pulled the camera in)."""

    position: tuple[float, float, float]
    distance: float
    wanted: float
    direction: tuple[float, float, float]
    blocked: bool


def arm_direction(yaw: float, pitch: float) -> tuple[np.ndarray, float]:
    """The unit direction from the eye to where the camera wants to be, and the arm's full length (m), for a view
    of ``yaw``, ``pitch`` degrees (:func:`~voxelworld.game.player.view_direction`).

    >>> way, length = arm_direction(0.0, 0.0)   # looking along -z: the camera behind (+z), right (+x), up
    >>> (way.round(3) + 0.0).tolist(), round(length, 3)
    ([0.284, 0.158, 0.946], 3.172)
    """
    yaw = check_finite("yaw", yaw, unit="degrees")
    pitch = check_finite("pitch", pitch, minimum=-90.0, maximum=90.0, unit="degrees")
    arm = -view_direction(yaw, max(pitch, -MAX_ARM_PITCH)) * SHOULDER_BACK  # behind, at most MAX_ARM_PITCH above
    y = math.radians(yaw)
    right = np.array([math.cos(y), 0.0, -math.sin(y)])  # the view's right, level (also looking straight down)
    offset = arm + right * SHOULDER_RIGHT + np.array([0.0, SHOULDER_UP, 0.0])
    length = float(np.linalg.norm(offset))
    return offset / length, length


def spring_arm(collider: _Overlaps, eye: ArrayLike, yaw: float, pitch: float) -> SpringArm:
    """Sweep a sphere of ``CAMERA_RADIUS`` m from ``eye`` (m) along the shoulder arm of a view of ``yaw``,
    ``pitch`` degrees against ``collider`` (anything with ``overlap_capsule``: a
    :class:`~voxelworld.game.collider.Collider`, a :class:`~voxelworld.collision.TriangleBVH`) and stop before the
    first surface it touches (to about 1/300 of the arm). A sphere at the eye that touches already keeps the
    camera at the eye."""
    start = np.asarray(check_point("eye", eye), dtype=np.float64)
    way, length = arm_direction(yaw, pitch)
    whole = collider.overlap_capsule(start[None], (start + way * length)[None], CAMERA_RADIUS)
    if not len(whole.query):  # the whole arm is clear (in the open: one query)
        return SpringArm(as_point(start + way * length), length, length, as_point(way), False)
    low, high = 0.0, length  # the longest arm known clear, the shortest known blocked (or the whole arm)
    for count in (_COARSE, _FINE):
        lengths = low + (high - low) * np.arange(1, count + 1) / count
        contacts = collider.overlap_capsule(np.broadcast_to(start, (count, 3)), start + lengths[:, None] * way,
                                            CAMERA_RADIUS)
        touched = np.zeros(count, dtype=bool)
        touched[contacts.query] = True
        if not touched.any():
            if high == length:  # the whole arm is clear
                low = length
            break
        first = int(np.argmax(touched))  # the capsules are nested: every longer one touches too
        low, high = (float(lengths[first - 1]) if first else low), float(lengths[first])
    if low == 0.0 and high < length:
        eye_sphere = collider.overlap_capsule(start[None], start[None], CAMERA_RADIUS)
        if len(eye_sphere.query):
            high = 0.0  # the eye's own sphere touches: the camera stays at the eye
    position = start + way * low
    return SpringArm(as_point(position), low, length, as_point(way), low < length)


def follow_camera(world: World, yaw: float | None = None, pitch: float | None = None, player: Player | None = None
                  ) -> SpringArm:
    """The spring arm (:func:`spring_arm`) of ``world``'s ``player`` (its own by default) against the world's
    collider, for its own view or the ``yaw``, ``pitch`` given (degrees).

    >>> from voxelworld.game.world import World
    >>> world = World.demo(npcs=0)
    >>> arm = follow_camera(world)
    >>> arm.blocked, round(arm.distance, 2)   # in the open: the whole arm
    (False, 3.17)
    """
    player = world.player if player is None else player
    return spring_arm(world.collider, player.eye, player.yaw if yaw is None else yaw,
                      player.pitch if pitch is None else pitch)
