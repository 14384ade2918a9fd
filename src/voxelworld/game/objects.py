"""Moving voxel objects in a world: punched fragments, the piece the player holds, bullets and thrown things.

Each is a :class:`~voxelworld.game.actions.VoxelObject` (a small volume in its own voxel space, meshed by the
same mesher as the terrain) with a name and a kind. Loose fragments fly under gravity until they meet the
collision mesh, then lie there until their lifetime ends; thrown objects fly until they meet it, where the
impact rule of the pair of materials changes the terrain (:func:`~voxelworld.game.throwing.impact_edit`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np

from ..collision import TriangleBVH
from ..errors import check_finite, check_range
from ..meshing import DisplayMesh, MeshOptions, mesh_volume
from ..terrain import MaterialTable
from .actions import VoxelObject
from .checks import point_tuple
from .throwing import ThrowSettings

__all__ = ["ObjectTransform", "WorldObject", "KINDS", "fall", "fall_all", "out_of_ground", "CLEARANCE", "PROBE_REACH",
           "KeptByObject", "kept_by_object"]

KINDS = ("fragment", "held", "bullet", "projectile", "treasure")
CLEARANCE = 0.05  # m above the surface an object found under the ground starts (out_of_ground)
PROBE_REACH = 8.0  # m up from an object a surface it lies under is looked for (out_of_ground)


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


T = TypeVar("T")
# What was made of each object, by the id of its VoxelObject: (the VoxelObject, kept alive so that the id stays its
# own; the key it was made for; what was made).
KeptByObject = dict[int, tuple[VoxelObject, Hashable, T]]


def kept_by_object(items: Sequence[WorldObject], kept: KeptByObject[T], key: Callable[[WorldObject], Hashable],
                   make: Callable[[WorldObject], T]) -> tuple[list[T], KeptByObject[T]]:
    """``make(item)`` for each of ``items``, or what ``kept`` (the last call's) holds for it where its VoxelObject and
    its ``key(item)`` (whatever else ``make`` reads of it) are the same, and what to keep for the next call. A
    VoxelObject never changes (a move makes a new one), and a resting fragment keeps its own (:func:`fall_all`): a
    frame's snapshot and the pages' objects then grow with what moved, not with the few hundred fragments lying
    about."""
    found, keep = [], {}
    for item in items:
        made = kept.get(id(item.object))
        if made is None or made[0] is not item.object or made[1] != key(item):
            made = (item.object, key(item), make(item))
        keep[id(item.object)] = made
        found.append(made[2])
    return found, keep


def fall(item: WorldObject, bvh: TriangleBVH | None, dt: float, materials: MaterialTable,
         settings: ThrowSettings = ThrowSettings()) -> WorldObject | None:
    """A loose object one frame on: flying under gravity until its path meets the collision mesh, where it comes
    to rest at the contact; a resting object only ages. None when it flew longer than
    ``settings.max_flight_time`` without meeting anything (it fell out of the world). :func:`fall_all` for one."""
    return fall_all([item], bvh, dt, materials, settings)[0]


def fall_all(items: Sequence[WorldObject], bvh: TriangleBVH | None, dt: float, materials: MaterialTable,
             settings: ThrowSettings = ThrowSettings()) -> list[WorldObject | None]:
    """Every one of ``items`` one frame on, as :func:`fall` (the same arithmetic as
    :func:`~voxelworld.game.throwing.fly`, bit for bit), the flying ones' paths tested against ``bvh`` in one
    query: a player's up to 64 fragments, each tested alone, cost about 0.1 ms apiece a frame."""
    check_range("bvh", bvh, "a TriangleBVH or None", bvh is None or isinstance(bvh, TriangleBVH))
    dt = check_finite("dt", dt, minimum=0.0, unit="s")
    check_range("materials", materials, "a MaterialTable", isinstance(materials, MaterialTable))
    check_range("settings", settings, "a ThrowSettings", isinstance(settings, ThrowSettings))
    # (the constructor rather than dataclasses.replace: resting fragments age every frame, a few hundred of them)
    moved: list[WorldObject | None] = [
        WorldObject(i.name, i.kind, i.object, i.age + dt, True, i.flight_time) if i.resting else None for i in items]
    flying = [n for n, item in enumerate(items) if not item.resting]
    if not flying:
        return moved
    things = [items[n].object for n in flying]
    starts = np.array([thing.position for thing in things], dtype=np.float64)
    velocities = np.array([thing.velocity for thing in things], dtype=np.float64) - [0.0, settings.gravity * dt, 0.0]
    ends = starts + velocities * dt
    first_hit = np.full(len(flying), -1, dtype=np.int64)
    hits = None
    if bvh is not None and dt > 0:
        hits = bvh.segment_hits(starts, ends)  # sorted by segment, then distance: a segment's first is its nearest
        segments, firsts = np.unique(hits.ray, return_index=True)
        first_hit[segments] = firsts
    for row, (n, thing) in enumerate(zip(flying, things)):
        item, hit = items[n], int(first_hit[row])
        if hit >= 0:
            assert hits is not None
            still = replace(thing, position=point_tuple(hits.point[hit]), velocity=(0.0, 0.0, 0.0))
            moved[n] = WorldObject(item.name, item.kind, still, item.age + dt, True, item.flight_time)
            continue
        time = item.flight_time + dt
        if time > settings.max_flight_time:
            continue  # fell out of the world (None)
        flown = replace(thing, position=point_tuple(ends[row]), velocity=point_tuple(velocities[row]))
        moved[n] = WorldObject(item.name, item.kind, flown, item.age + dt, False, time)
    return moved


def out_of_ground(items: Sequence[WorldObject], bvh: TriangleBVH | None) -> list[WorldObject]:
    """``items``, each that lies under ``bvh``'s surface moved up onto it (:data:`CLEARANCE` m above): a ray straight
    up from it meets a triangle from behind (one facing up) within :data:`PROBE_REACH` m. A punched piece starts at
    the centre of the density it took, which may lie under the collision surface (simplified, it runs up to its
    tolerance off the voxels; another player's dig of the same frame changed it): falling from there it met no
    surface and fell through the world (half a digging player's fragments, sent to every page every frame until
    they were lost five seconds later). Under an overhang an object in the open sees the overhang's underside
    (facing down) and stays."""
    if bvh is None or not items:
        return list(items)
    check_range("bvh", bvh, "a TriangleBVH or None", isinstance(bvh, TriangleBVH))
    points = np.array([item.object.position for item in items], dtype=np.float64)
    hits = bvh.raycast(points, np.array([0.0, 1.0, 0.0]), PROBE_REACH)
    under = (hits.triangle >= 0) & (bvh.normals[np.maximum(hits.triangle, 0), 1] > 0.0)
    return [replace(item, object=replace(item.object, position=point_tuple(hits.point[n] + (0.0, CLEARANCE, 0.0))))
            if under[n] else item for n, item in enumerate(items)]
