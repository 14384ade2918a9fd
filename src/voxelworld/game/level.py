"""Levels: a voxel terrain, the props standing on it and where the player starts; and the demo level.

A :class:`Prop` is a small triangle mesh with a name, a navigation role (``"floor"``, ``"obstacle"`` or
``"exception"``, as :class:`voxelworld.navigation.SceneObject` takes them) and a material name: the player
collides with it like with the terrain's collision mesh, and the navmesh baker gets it as a scene object.

Examples
--------
>>> level = demo_level(seed=0)
>>> level.volume.shape, level.volume.voxel_size
((96, 48, 96), 0.5)
>>> [prop.name for prop in level.props]
['table', 'crate_1', 'crate_2', 'crate_3']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..errors import ParameterError, check_finite, check_integer, check_range
from ..terrain import FIELDS, MaterialTable, Volume, VoxelVolume, demo_terrain

__all__ = ["Prop", "Level", "Route", "EnemySpot", "demo_level", "DEMO_ROUTES", "surface_height", "DEMO_CHUNK_SIZE"]

ROLES = ("floor", "obstacle", "exception")
DEMO_CHUNK_SIZE = 16  # voxels: small chunks keep a punch's remesh and collision rebuild small

# The 12 triangles of a unit box (corners numbered by bits x, y, z), wound counter-clockwise from outside.
_BOX_TRIANGLES = np.array([[0, 1, 5], [0, 5, 4], [2, 6, 7], [2, 7, 3], [0, 4, 6], [0, 6, 2],
                           [1, 3, 7], [1, 7, 5], [0, 2, 3], [0, 3, 1], [4, 5, 7], [4, 7, 6]], dtype=np.int64)


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class Prop:
    """A named triangle mesh standing in the level (a table, a crate), checked and copied on construction.

    Parameters
    ----------
    name : str
        Non-empty, unique in a level.
    role : {"floor", "obstacle", "exception"}
        What the navmesh baker does with it (see :mod:`voxelworld.navigation.scene`).
    material : str
        Material name of the world's table: what the player touches (footsteps, contact damage).
    positions : array_like (n, 3)
        Vertices in metres; stored as read-only float64.
    indices : array_like of int (m, 3)
        Triangles, counter-clockwise seen from outside; stored as read-only int64.
    """

    name: str
    role: str
    material: str
    positions: np.ndarray
    indices: np.ndarray

    def __post_init__(self) -> None:
        check_range("name", self.name, "a non-empty string", isinstance(self.name, str) and self.name != "")
        check_range("role", self.role, "one of 'floor', 'obstacle', 'exception'", self.role in ROLES)
        check_range("material", self.material, "a material name (str)", isinstance(self.material, str))
        positions = np.array(self.positions, dtype=np.float64)
        if positions.ndim != 2 or positions.shape[1] != 3 or not np.all(np.isfinite(positions)):
            raise ParameterError("positions", f"array of shape {positions.shape}", "(n, 3) finite coordinates (m)")
        indices = np.array(self.indices)
        if indices.ndim != 2 or indices.shape[1] != 3 or len(indices) == 0 or indices.dtype.kind not in "iu" \
                or indices.min() < 0 or indices.max() >= len(positions):
            raise ParameterError("indices", f"array of shape {indices.shape}",
                                 f"a non-empty (m, 3) integer array of vertex indices in [0, {len(positions) - 1}]")
        object.__setattr__(self, "positions", _read_only(positions))
        object.__setattr__(self, "indices", _read_only(indices.astype(np.int64)))

    @classmethod
    def boxes(cls, name: str, boxes: Iterable[tuple[ArrayLike, ArrayLike]], material: str, role: str = "obstacle"
              ) -> Prop:
        """A prop made of axis-aligned boxes, each given as ``(min_corner, max_corner)`` in metres.

        >>> Prop.boxes("crate", [((0, 0, 0), (1, 1, 1))], "wood").indices.shape
        (12, 3)
        """
        positions, indices = [], []
        for n, (lo, hi) in enumerate(boxes):
            lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
            if lo.shape != (3,) or hi.shape != (3,) or np.any(hi <= lo):
                raise ParameterError(f"boxes[{n}]", (lo.tolist(), hi.tolist()), "(min, max) corners with max > min")
            bits = np.array([[(c >> a) & 1 for a in range(3)] for c in range(8)], dtype=np.float64)
            positions.append(lo + bits * (hi - lo))
            indices.append(_BOX_TRIANGLES + 8 * n)
        return cls(name, role, material, np.concatenate(positions), np.concatenate(indices))

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The prop's axis-aligned bounding box ``(min, max)`` in metres."""
        return self.positions.min(axis=0), self.positions.max(axis=0)


@dataclass(frozen=True)
class Route:
    """An NPC called ``name`` patrolling between ``start`` and ``goal`` (feet positions, m)."""

    name: str
    start: tuple[float, float, float]
    goal: tuple[float, float, float]


@dataclass(frozen=True)
class EnemySpot:
    """A chainsaw enemy called ``name`` with its feet at ``position`` (m), swinging towards ``facing``."""

    name: str
    position: tuple[float, float, float]
    facing: tuple[float, float, float] = (1.0, 0.0, 0.0)


@dataclass(frozen=True, eq=False)
class Level:
    """What a :class:`~voxelworld.game.world.World` is built from: the terrain, its material table, the props,
    the player's start (``spawn``: feet position in metres; ``spawn_yaw``: degrees), the NPCs' ``routes`` and
    the ``enemies``."""

    volume: VoxelVolume
    materials: MaterialTable
    props: tuple[Prop, ...]
    spawn: tuple[float, float, float]
    spawn_yaw: float = 0.0
    routes: tuple[Route, ...] = ()
    enemies: tuple[EnemySpot, ...] = ()


def surface_height(volume: Volume, x: float, z: float) -> float | None:
    """World height (m) of the topmost solid surface in the voxel column nearest ``(x, z)``, interpolated
    between the samples; None when the column is empty or outside the volume."""
    i, _, k = np.floor(volume.world_to_index((x, 0.0, z)) + 0.5).astype(np.int64)
    if not (0 <= i < volume.shape[0] and 0 <= k < volume.shape[2]):
        return None
    column = volume.read_window((i, 0, k), (i + 1, volume.shape[1], k + 1), ("density",))["density"][0, :, 0]
    column = column.astype(np.int64)
    solid = np.flatnonzero(column >= volume.iso)
    if len(solid) == 0:
        return None
    j = int(solid[-1])
    top = float(j)
    if j + 1 < len(column):  # the crossing between the last solid sample and the empty one above it
        top += (column[j] - volume.iso) / max(column[j] - column[j + 1], 1)
    return float(volume.origin[1] + top * volume.voxel_size)


# The demo level's NPC patrols as (x, z) ends in metres, on the default 48 m level: the first crosses the
# player's way to the rock wall, none crosses the lava pool.
DEMO_ROUTES = (((30.0, 18.0), (30.0, 30.0)), ((14.0, 30.0), (24.0, 34.0)), ((20.0, 17.0), (28.0, 20.0)),
               ((6.0, 20.0), (6.0, 36.0)), ((34.0, 34.0), (24.0, 40.0)), ((5.0, 5.0), (5.0, 16.0)),
               ((44.0, 12.0), (44.0, 36.0)), ((22.0, 43.0), (36.0, 43.0)))


def demo_level(seed: int = 0, size: int = 96, height: int = 48, voxel_size: float = 0.5, npcs: int = 3) -> Level:
    """The default level: :func:`voxelworld.terrain.demo_terrain` (hills of grass over soil over rock, a rock
    wall, a lava pool, two trees of bark around wood, an iron block), re-chunked in chunks of
    ``DEMO_CHUNK_SIZE`` voxels, with a wooden table and three crates as props and the player's start in the
    middle, looking along +x towards the iron block and the wall.

    Parameters
    ----------
    seed : int
        Terrain seed (>= 0): the same seed gives the same level, bit for bit.
    size, height : int
        Voxels along x and z (>= 48), and along y (>= 32).
    voxel_size : float
        Voxel edge in metres (> 0); the default 96 x 48 x 96 voxels of 0.5 m make a 48 m x 24 m x 48 m level.
    npcs : int
        NPC patrols (0..8), placed for the default size (scaled with the level); one chainsaw enemy stands at
        the rock wall facing it.
    """
    seed = check_integer("seed", seed, minimum=0)
    npcs = check_integer("npcs", npcs, minimum=0, maximum=len(DEMO_ROUTES))
    voxel_size = check_finite("voxel_size", voxel_size, minimum=0.0, strict_minimum=True, unit="m")
    generated = demo_terrain(seed, size, height, voxel_size)
    volume = VoxelVolume(generated.shape, generated.voxel_size, generated.origin, generated.iso, DEMO_CHUNK_SIZE,
                         generated.materials)
    for name in FIELDS:
        getattr(volume, name)[...] = getattr(generated, name)
    volume.mark_dirty((0, 0, 0), np.array(volume.shape) - 1)
    s = voxel_size
    mid = size * s / 2

    def ground(x: float, z: float) -> float:
        found = surface_height(volume, x, z)
        return found if found is not None else float(volume.origin[1])

    def standing(x: float, z: float, half: float) -> float:
        # Props stand on the lowest of their footprint's corners, sunk a little so no gap shows.
        return min(ground(x + dx, z + dz) for dx in (-half, half) for dz in (-half, half)) - 0.1

    props = []
    tx, tz = mid * 0.85, mid * 1.25
    floor = standing(tx, tz, 0.8)
    top = floor + 0.1 + 0.8
    legs = [((tx + dx - 0.05, floor, tz + dz - 0.05), (tx + dx + 0.05, top - 0.05, tz + dz + 0.05))
            for dx in (-0.7, 0.7) for dz in (-0.4, 0.4)]
    props.append(Prop.boxes("table", [((tx - 0.8, top - 0.05, tz - 0.5), (tx + 0.8, top, tz + 0.5))] + legs, "wood"))
    for n, (cx, cz) in enumerate(((mid * 1.35, mid * 0.9), (mid * 1.35 + 1.2, mid * 0.9), (mid * 1.35 + 0.6,
                                                                                            mid * 0.9 + 1.1))):
        base = standing(cx, cz, 0.45)
        props.append(Prop.boxes(f"crate_{n + 1}", [((cx - 0.45, base, cz - 0.45), (cx + 0.45, base + 1.0, cz + 0.45))],
                                "wood"))
    sx, sz = mid * 0.8, mid
    scale = mid / 24.0
    routes = tuple(Route(f"npc_{n + 1}", (a[0] * scale, ground(a[0] * scale, a[1] * scale), a[1] * scale),
                         (b[0] * scale, ground(b[0] * scale, b[1] * scale), b[1] * scale))
                   for n, (a, b) in enumerate(DEMO_ROUTES[:npcs]))
    ex, ez = mid * 1.6 - 1.0, mid * 1.25  # 1 m before the rock wall's face (see demo_terrain)
    enemy = EnemySpot("chainsaw", (ex, ground(ex, ez), ez), (1.0, 0.0, 0.0))
    return Level(volume, volume.materials, tuple(props), (sx, ground(sx, sz), sz), 270.0, routes, (enemy,))
