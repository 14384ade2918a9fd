"""Moving voxel objects in a world: punched fragments, the piece the player holds, bullets and thrown things.

Each is a :class:`~voxelworld.game.actions.VoxelObject` (a small volume in its own voxel space, meshed by the
same mesher as the terrain) with a name and a kind. Loose fragments fly under gravity until they meet the
collision mesh, then lie there until their lifetime ends; thrown objects fly until they meet it, where the
impact rule of the pair of materials changes the terrain (:func:`~voxelworld.game.throwing.impact_edit`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..collision import TriangleBVH
from ..meshing import DisplayMesh, MeshOptions, mesh_volume
from ..terrain import MaterialTable
from .actions import VoxelObject
from .throwing import Projectile, ThrowSettings, fly

__all__ = ["ObjectTransform", "WorldObject", "KINDS", "fall"]

KINDS = ("fragment", "held", "bullet", "projectile", "treasure")


@dataclass(frozen=True)
class ObjectTransform:
    """A moving object for the renderer: ``name``, ``kind`` (npc, enemy, fragment, held, bullet, projectile,
    treasure, ...), ``position`` (m) and ``yaw`` (degrees)."""

    name: str
    kind: str
    position: tuple[float, float, float]
    yaw: float


@dataclass(frozen=True)
class WorldObject:
    """A voxel object in the world: ``name`` (unique in the world), ``kind`` (one of :data:`KINDS`), the
    ``object`` itself (position and velocity included), ``age`` (s since it appeared), ``resting`` (it lies on
    the terrain) and ``flight_time`` (s since it was thrown, for projectiles)."""

    name: str
    kind: str
    object: VoxelObject
    age: float = 0.0
    resting: bool = False
    flight_time: float = 0.0

    def transform(self) -> ObjectTransform:
        return ObjectTransform(self.name, self.kind, self.object.position, 0.0)

    def mesh(self, options: MeshOptions = MeshOptions(levels=0)) -> DisplayMesh:
        """The object's display mesh in world coordinates (m): its own volume meshed by the terrain's mesher,
        moved to its position (unsimplified by default: objects are small)."""
        local = mesh_volume(self.object.volume, options)
        positions = (local.positions.astype(np.float64) + self.object.position).astype(np.float32)
        return replace(local, positions=positions)


def fall(item: WorldObject, bvh: TriangleBVH | None, dt: float, materials: MaterialTable,
         settings: ThrowSettings = ThrowSettings()) -> WorldObject | None:
    """A loose object one frame on: flying under gravity until its path meets the collision mesh, where it comes
    to rest at the contact; a resting object only ages. None when it flew longer than
    ``settings.max_flight_time`` without meeting anything (it fell out of the world)."""
    if item.resting:
        return replace(item, age=item.age + dt)
    step = fly(Projectile(item.object, item.flight_time), bvh, dt, materials, settings)
    if step.contact is not None:
        still = replace(item.object, position=step.contact.point, velocity=(0.0, 0.0, 0.0))
        return replace(item, object=still, age=item.age + dt, resting=True)
    if step.projectile is None:
        return None
    return replace(item, object=step.projectile.object, age=item.age + dt, flight_time=step.projectile.flight_time)
