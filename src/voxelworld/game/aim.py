"""What the player aims at: the first thing the camera's ray meets on the collision mesh, and the voxel behind it
(:meth:`World.aim_info <voxelworld.game.world.World.aim_info>`, :meth:`World.voxel_along
<voxelworld.game.world.World.voxel_along>`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..errors import check_finite
from .reports import AimInfo

if TYPE_CHECKING:
    from .play import PlayerActions
    from .world import World

__all__ = ["aim_info", "voxel_along", "as_point", "player_damage"]


def as_point(array: Iterable[float]) -> tuple[float, float, float]:
    """Three numbers as a tuple of Python floats (what events and reports hold)."""
    return tuple(float(v) for v in array)  # type: ignore[return-value]


def aim_info(world: World, max_distance: float | None = None, actions: PlayerActions | None = None
             ) -> AimInfo | None:
    """What the ray from the eye of the player whose ``actions`` these are (the world's own by default) along its
    camera direction meets first on the collision mesh (terrain or prop) within ``max_distance`` m
    (``settings.aim_distance`` by default), with that player's tools' reaches; None for nothing."""
    limit = world.settings.aim_distance if max_distance is None else check_finite(
        "max_distance", max_distance, minimum=0.0, strict_minimum=True, unit="m")
    actions = world.actions if actions is None else actions
    eye, direction = actions.player.eye, actions.player.aim
    hits = world.collider.raycast(eye, direction, limit)
    if not hits.hit[0]:
        return None
    material_id, obj = int(hits.material[0]), int(hits.object[0])
    name = world.materials.name_by_id[material_id]
    hardness = float(world.materials.hardness_by_id[material_id])
    distance = float(hits.distance[0])
    voxel = damage = voxel_damage = break_at = None
    if obj < 0:
        voxel = voxel_along(world, eye, direction, distance)
        voxel_damage = None if voxel is None else int(world.volume.read_voxel(voxel)["damage"])
        voxel_hardness = hardness if voxel is None else _voxel_hardness(world, voxel)
        break_at = actions.settings.punch.tool.break_threshold(voxel_hardness)
        damage = None if voxel_damage is None else player_damage(voxel_damage, break_at)
    reaches = actions.settings.reaches()
    return AimInfo(as_point(hits.point[0]), as_point(hits.normal[0]), distance, name, hardness, voxel, damage,
                   world.props[obj].name if obj >= 0 else None, reaches,
                   {action: distance <= reach for action, reach in reaches.items()}, break_at, voxel_damage)


def player_damage(voxel_damage: int, break_at: int | None) -> int:
    """A voxel's accumulated ``voxel_damage`` as the player's tool meets it, whoever did it (an enemy's chainsaw
    hits a voxel on the edge of its cut many times over, to 1300 and more): at most ``break_at`` (the voxel gives
    way at the tool's next hit from there on), 0 where the damage means nothing to the tool (``break_at`` 0: it
    gives way at once; None: it never does).

    >>> player_damage(75, 100), player_damage(1300, 100), player_damage(1300, None), player_damage(40, 0)
    (75, 100, 0, 0)
    """
    if not break_at:
        return 0
    return min(int(voxel_damage), int(break_at))


def _voxel_hardness(world: World, voxel: tuple[int, int, int]) -> float:
    """The hardness the tools' gate reads for ``voxel``: its dominant material's (``mat_b`` when ``mix > 127``)."""
    return float(world.materials.hardness_by_id[world.volume.dominant_material(voxel)])


def voxel_along(world: World, eye: ArrayLike, direction: ArrayLike, distance: float) -> tuple[int, int, int] | None:
    """The first solid voxel sample along the ray from ``eye`` along the unit ``direction`` within two voxels
    (and the collision mesh's tolerance) of ``distance`` m, where the ray met the collision mesh (which is
    simplified, so the true surface lies near the hit, not on it); None when there is none. What
    :func:`aim_info` reports, and whose damage an action refused as too hard tells."""
    volume = world.volume
    eye, direction = np.asarray(eye, dtype=np.float64), np.asarray(direction, dtype=np.float64)
    s = volume.voxel_size
    reach = 2.0 * s + volume.voxel_size * world.settings.mesh_options.collision_tolerance
    start = max(distance - reach, 0.0)
    # Every sample along the stretch at once, their voxels read in one window (a page's HUD asks every frame for
    # every player: a read per sample cost half a millisecond a player).
    steps = np.arange(start, distance + reach, 0.25 * s)
    indices = np.floor(volume.world_to_index(eye + direction * steps[:, None]) + 0.5).astype(np.int64)
    indices = indices[np.all((indices >= 0) & (indices < volume.shape), axis=1)]
    if not len(indices):
        return None
    lo = indices.min(axis=0)
    density = volume.read_window(lo, indices.max(axis=0) + 1, ("density",))["density"]
    solid = np.flatnonzero(density[tuple((indices - lo).T)] >= volume.iso)
    return tuple(int(v) for v in indices[solid[0]]) if len(solid) else None  # type: ignore[return-value]

