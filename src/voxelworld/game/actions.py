"""The player's digging actions (issue #6, section 2): punch and pull-out (suck is in :mod:`.suck`).

Each action is a pure function over the terrain (:class:`~voxelworld.terrain.VoxelVolume`, whose material
table it uses), a :class:`~voxelworld.collision.TriangleBVH` over the current collision mesh (per-triangle
material ids of that table), the player's eye (m) and aim direction, and a frozen settings dataclass. It
validates everything before it touches a voxel, so bad input raises
:class:`~voxelworld.errors.ParameterError` and changes nothing, and it returns a result dataclass: the edits
made, the volume removed by material and group, the fragment objects created and the events to emit.

Fragments, held pieces and bullets are :class:`VoxelObject`\\ s: small volumes in their own voxel space, centred
on the object's position. Throwing them lives in :mod:`voxelworld.game.throwing`. The ``*_edit`` functions give
the :class:`~voxelworld.game.edits.VoxelEdit` an action makes, for a world to queue; ``punch`` and ``pull_out``
apply it at once.

Examples
--------
>>> from voxelworld.terrain import VoxelVolume
>>> from voxelworld.meshing import collision_mesh_volume
>>> from voxelworld.collision import TriangleBVH
>>> wall = VoxelVolume.from_sdf(lambda x, y, z: 4.0 - x, (16, 12, 12), "soil", voxel_size=0.5, chunk_size=8)
>>> mesh = collision_mesh_volume(wall)
>>> bvh = TriangleBVH(mesh.positions, mesh.indices, mesh.tri_material)
>>> result = punch(wall, bvh, eye=(2.5, 3.0, 3.0), aim=(1.0, 0.0, 0.0))
>>> result.most_removed_material, len(result.fragments) > 0, result.fragments[0].material
('soil', True, 'soil')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import ArrayLike

from ..collision import TriangleBVH
from ..errors import check_finite, check_range
from ..terrain import EditResult, Shape, Sphere, Tool, Volume, VoxelVolume
from .checks import check_direction, check_finish, check_point, check_tool, check_world, point_tuple
from .edits import EditRecipe, VoxelEdit

__all__ = ["VoxelObject", "ActionEvent", "ActionResult", "PunchSettings", "punch", "pull_out", "punch_edit",
           "pull_out_edit", "touching_materials", "ball_object", "aim_hit"]


# ------------------------------------------------------------------------------------------------- values
@dataclass(frozen=True)
class VoxelObject:
    """A small voxel object in its own voxel space: a fragment, a held piece or a bullet.

    ``volume``'s samples sit at ``position + volume.origin + (i, j, k) * voxel_size``: the object's volume is
    centred on its own origin (its solid's density-weighted centre), so moving the object moves ``position``
    only. Mesh it with the same mesher as the terrain and translate by ``position``.
    """

    volume: VoxelVolume  # its own small volume, local coordinates (m)
    position: tuple[float, float, float]  # world position of the local origin, m
    velocity: tuple[float, float, float]  # m/s
    material: str  # the one material the object is made of

    def solid_volume(self) -> float:
        """Solid volume of the object in m³."""
        return self.volume.solid_volume()


@dataclass(frozen=True)
class ActionEvent:
    """Something for the game to react to (sound, HUD, log): ``kind`` says what, the rest where and of what."""

    kind: str  # "punch", "pull_out", "suck", "bullet", "suck_end", "stance", "throw", "attach", "treasure", ...
    position: tuple[float, float, float] | None = None  # m
    material: str | None = None
    amount: float = 0.0  # m³ for removals, a count for bullets
    item: str | None = None  # the item granted, for treasures and awards


@dataclass(frozen=True)
class ActionResult:
    """What one action did. Volumes in m³, materials and groups by name."""

    hit: bool  # whether the aim met the collision mesh within reach
    point: tuple[float, float, float] | None  # where it met it, m
    normal: tuple[float, float, float] | None  # the surface normal there, facing the player
    aim: tuple[float, float, float]  # the unit aim direction used
    edits: tuple[EditResult, ...] = ()  # in the order they were made
    volume_removed: float = 0.0  # density lost (m³), all edits
    removed_by_material: dict[str, float] = field(default_factory=dict)  # density lost by material, m³
    removed_by_group: dict[str, float] = field(default_factory=dict)
    most_removed_material: str | None = None  # the material whose density fell most (lowest id on a tie)
    fragments: tuple[VoxelObject, ...] = ()  # loose fragment objects created
    held: VoxelObject | None = None  # the piece the player now holds (pull-out)
    events: tuple[ActionEvent, ...] = ()
    aimed_material: str | None = None  # the material of the collision triangle the aim met (what the player saw)

    @property
    def dirty_chunks(self) -> frozenset:
        """Chunks any of the edits changed."""
        return frozenset().union(*(edit.dirty_chunks for edit in self.edits))


# ----------------------------------------------------------------------------------------------- settings
@dataclass(frozen=True)
class PunchSettings:
    """Punch and pull-out.

    Parameters
    ----------
    reach : float
        How far from the eye the aim may meet the terrain, m (> 0).
    radius : float
        Radius of the spherical update range, m (> 0).
    depth : float
        How far past the hit point (along the aim) the range's centre sits, m (>= 0).
    tool : Tool
        The hardness/damage gate.
    min_fragment_volume : float
        Removed pieces smaller than this make no fragment object, m³ (>= 0).
    fragment_speed : float
        Speed at which punched fragments fly away from the hit, m/s (>= 0).
    """

    reach: float = 2.5
    radius: float = 1.0
    depth: float = 0.25
    tool: Tool = Tool()
    min_fragment_volume: float = 0.005
    fragment_speed: float = 3.0

    def __post_init__(self) -> None:
        for name in ("reach", "radius"):
            object.__setattr__(self, name, check_finite(name, getattr(self, name), minimum=0.0,
                                                        strict_minimum=True, unit="m"))
        object.__setattr__(self, "depth", check_finite("depth", self.depth, minimum=0.0, unit="m"))
        check_tool(self.tool)
        object.__setattr__(self, "min_fragment_volume", check_finite(
            "min_fragment_volume", self.min_fragment_volume, minimum=0.0, unit="m³"))
        object.__setattr__(self, "fragment_speed", check_finite("fragment_speed", self.fragment_speed,
                                                                minimum=0.0, unit="m/s"))


def aim_hit(bvh: TriangleBVH | None, eye: np.ndarray, aim: np.ndarray, reach: float
            ) -> tuple[np.ndarray, np.ndarray, int] | None:
    """``(point, normal, material id)`` where the aim first meets the mesh within ``reach`` m, or None."""
    if bvh is None:
        return None
    hits = bvh.raycast(eye, aim, reach)
    if not hits.hit[0]:
        return None
    return hits.point[0], hits.normal[0], int(hits.material[0])


# ------------------------------------------------------------------------------------------ voxel objects
def _object_from_density(density: np.ndarray, corner: np.ndarray, template: Volume, material: str,
                         velocity: Sequence[float] | np.ndarray = (0.0, 0.0, 0.0)) -> VoxelObject | None:
    """A voxel object of ``material`` whose density is ``density`` (a uint8 block whose voxel (0, 0, 0) samples
    the world point ``corner``), cropped to its non-empty voxels with one empty voxel around; None if empty."""
    filled = np.argwhere(density > 0)
    if len(filled) == 0:
        return None
    lo, hi = filled.min(axis=0), filled.max(axis=0) + 1
    block = np.zeros(tuple(hi - lo + 2), dtype=np.uint8)
    block[1:-1, 1:-1, 1:-1] = density[lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2]]
    size = template.voxel_size
    first = corner + (lo - 1) * size  # world position of the block's voxel (0, 0, 0)
    weights = block.astype(np.float64)
    grid = np.indices(block.shape).reshape(3, -1).T
    centre = first + (grid * weights.reshape(-1, 1)).sum(axis=0) / weights.sum() * size
    part = VoxelVolume(block.shape, size, point_tuple(first - centre), template.iso, template.chunk_size,
                       template.materials)
    part.density[...] = block
    part.mat_a[...] = template.materials.id_of(material)
    part.mark_dirty((0, 0, 0), np.array(block.shape) - 1)
    return VoxelObject(part, point_tuple(centre), point_tuple(velocity), material)


def ball_object(template: Volume, material: str, radius: float, position: Sequence[float] | np.ndarray,
                velocity: Sequence[float] | np.ndarray = (0.0, 0.0, 0.0)) -> VoxelObject:
    """A ball of ``material`` of ``radius`` m at ``position`` (m), voxels as in ``template`` (a bullet)."""
    size = template.voxel_size
    n = int(math.ceil(2 * radius / size)) + 3
    half = (n - 1) / 2 * size
    part = VoxelVolume.from_sdf(lambda x, y, z: np.sqrt(x * x + y * y + z * z) - radius, (n, n, n), material,
                                size, (-half, -half, -half), template.iso, template.chunk_size, template.materials)
    return VoxelObject(part, point_tuple(position), point_tuple(velocity), material)


# ------------------------------------------------------------------------------------------ punch family
def removal_totals(edits: Iterable[EditResult]) -> tuple[float, dict[str, float], dict[str, float]]:
    total = 0.0
    by_material: dict[str, float] = {}
    by_group: dict[str, float] = {}
    for edit in edits:
        total += edit.volume_removed
        for table, amounts in ((by_material, edit.removed_by_material), (by_group, edit.removed_by_group)):
            for name, amount in amounts.items():
                table[name] = table.get(name, 0.0) + amount
    return total, by_material, by_group


class _Removed:
    """Keeps the density of a range's voxel window before an edit (``keep``, an ``on_before`` hook), to tell
    what the edit removed afterwards (``density``: a uint8 block whose voxel (0, 0, 0) samples ``corner``)."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape
        self.before: np.ndarray | None = None
        self.window: tuple[np.ndarray, np.ndarray] | None = None  # voxels lo, hi (exclusive)
        self.corner: np.ndarray | None = None

    def keep(self, volume: Volume) -> None:
        box = volume.voxel_box(self.shape, 2 * volume.voxel_size)  # the ramp reaches about a voxel past the shape
        if box is not None:
            self.window = (box[0], box[1] + 1)
            self.before = np.array(volume.read_window(*self.window, ("density",))["density"])
            self.corner = volume.index_to_world(box[0])

    def density(self, volume: Volume) -> np.ndarray | None:
        if self.before is None or self.window is None:  # (kept together)
            return None
        return self.before - volume.read_window(*self.window, ("density",))["density"]  # removal only lowers


def _dig_range(volume: Volume, bvh: TriangleBVH | None, eye: ArrayLike, aim: ArrayLike, settings: PunchSettings
               ) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray, int] | None, Sphere | None]:
    """Validate and aim for punch and pull-out: ``(eye, aim, hit, sphere)``, hit and sphere None on a miss."""
    check_world(volume, bvh)
    eye, aim = check_point("eye", eye), check_direction("aim", aim)
    check_range("settings", settings, "a PunchSettings", isinstance(settings, PunchSettings))
    hit = aim_hit(bvh, eye, aim, settings.reach)
    if hit is None:
        return eye, aim, None, None
    return eye, aim, hit, Sphere(point_tuple(hit[0] + aim * settings.depth), settings.radius)


def _dig_recipe(make: str, eye: ArrayLike, aim: ArrayLike) -> EditRecipe:
    """The recipe of a punch or pull-out: the eye and aim as given (copied as float arrays, the aim not
    normalised again), so the same call makes the same edit."""
    return EditRecipe(make, (("eye", check_point("eye", eye)), ("aim", check_point("aim", aim))))


def touching_materials(volume: Volume, bvh: TriangleBVH, sphere: Sphere) -> tuple[str, ...]:
    """The materials (names, in id order) of the collision triangles that touch the update range ``sphere``: what
    the player sees there. Punch and pull-out give their objects one of them."""
    ids = bvh.overlap_sphere(np.array(sphere.center), sphere.radius).material
    return tuple(volume.materials.name_by_id[m] for m in sorted({int(m) for m in ids if m != 0}))


def punch_edit(volume: Volume, bvh: TriangleBVH | None, eye: ArrayLike, aim: ArrayLike,
               finish: Callable[[ActionResult], object], settings: PunchSettings = PunchSettings()
               ) -> VoxelEdit | None:
    """The edit a punch makes (see :func:`punch`), or None when the aim meets nothing within reach.

    Applying it (now or in a world's next update stage) calls ``finish`` with the punch's
    :class:`ActionResult`, fragments included. Its ``recipe`` is ``punch`` with ``eye`` and ``aim``.
    """
    recipe = _dig_recipe("punch", eye, aim)
    eye, aim, hit, sphere = _dig_range(volume, bvh, eye, aim, settings)
    check_finish(finish)
    if hit is None or sphere is None or bvh is None:  # a miss (all three together)
        return None
    point, normal, material_id = hit
    aimed = volume.materials.name_by_id[material_id]
    touching = touching_materials(volume, bvh, sphere)
    removed = _Removed(sphere)

    def finished(edit: EditResult) -> None:
        density = removed.density(volume)
        fragments: list[VoxelObject] = []
        material = edit.most_removed_material
        if touching and material is not None:  # what fell most among what the range touches on the mesh
            table = volume.materials
            material = max(touching, key=lambda name: (edit.removed_by_material.get(name, 0.0),
                                                       int(table[name].fragment_priority), -table.id_of(name)))
        corner = removed.corner
        if material is not None and density is not None and corner is not None:  # (density: kept with corner)
            split = np.clip(np.ceil(volume.world_to_index(point) - volume.world_to_index(corner)).astype(int), 0,
                            density.shape)
            unit = volume.voxel_volume / 255.0
            for octant in range(8):
                sides = [(slice(0, split[a]) if (octant >> a) & 1 == 0 else slice(split[a], None)) for a in range(3)]
                part = np.zeros_like(density)
                part[tuple(sides)] = density[tuple(sides)]
                if int(part.sum(dtype=np.int64)) * unit < max(settings.min_fragment_volume, 1e-12):
                    continue
                piece = _object_from_density(part, corner, volume, material)
                if piece is None:
                    continue
                away = np.asarray(piece.position) - point + 0.5 * normal * volume.voxel_size
                direction = away / max(float(np.linalg.norm(away)), 1e-12)
                fragments.append(replace(piece, velocity=point_tuple(direction * settings.fragment_speed)))
        total, by_material, by_group = removal_totals([edit])
        events = [ActionEvent("punch", point_tuple(point), material, total)]
        finish(ActionResult(True, point_tuple(point), point_tuple(normal), point_tuple(aim), (edit,), total,
                            by_material, by_group, edit.most_removed_material, tuple(fragments), None,
                            tuple(events), aimed))

    return VoxelEdit("remove", sphere, tool=settings.tool, source="punch", on_before=removed.keep,
                     on_applied=finished, recipe=recipe)


def punch(volume: Volume, bvh: TriangleBVH | None, eye: ArrayLike, aim: ArrayLike,
          settings: PunchSettings = PunchSettings()) -> ActionResult:
    """Punch the terrain in front of the player.

    The aim (a ray from ``eye`` along ``aim``) meets the collision mesh within ``settings.reach``; a sphere of
    ``settings.radius`` centred ``settings.depth`` past the hit is removed through the tool's hardness gate.
    What was removed splits at the hit into up to eight fragment objects (one per octant around it, those of at
    least ``min_fragment_volume``), each flying away from the hit at ``fragment_speed``; all are of one material:
    among the materials of the collision triangles touching the range (:func:`touching_materials`, what the
    player sees there), the one whose density fell most (then the highest fragment priority, then the lowest
    id), so a rock skin over sand gives rock; the material that fell most when no triangle touches the range.
    ``result.most_removed_material`` is still the material that fell most overall. A miss changes nothing.
    """
    return _at_once(punch_edit, volume, bvh, eye, aim, settings)


def pull_out_edit(volume: Volume, bvh: TriangleBVH | None, eye: ArrayLike, aim: ArrayLike,
                  finish: Callable[[ActionResult], object], settings: PunchSettings = PunchSettings()
                  ) -> VoxelEdit | None:
    """The edit a pull-out makes (see :func:`pull_out`), or None on a miss; applying it calls ``finish`` with
    the :class:`ActionResult` (the held piece in ``result.held``). Its ``recipe`` is ``pull_out`` with ``eye``
    and ``aim``."""
    recipe = _dig_recipe("pull_out", eye, aim)
    eye, aim, hit, sphere = _dig_range(volume, bvh, eye, aim, settings)
    check_finish(finish)
    if hit is None or sphere is None or bvh is None:  # a miss (all three together)
        return None
    point, normal, material_id = hit
    table = volume.materials
    aimed = table.name_by_id[material_id]
    touching = touching_materials(volume, bvh, sphere)
    priority = None
    if touching:  # highest priority; the lowest id among equals
        priority = max(touching, key=lambda name: (int(table[name].fragment_priority), -table.id_of(name)))
    removed = _Removed(sphere)

    def finished(edit: EditResult) -> None:
        material = priority or edit.most_removed_material
        density = removed.density(volume)
        held = None
        corner = removed.corner
        if material is not None and density is not None and corner is not None and \
                edit.volume_removed > settings.min_fragment_volume:  # (density: kept with corner)
            held = _object_from_density(density, corner, volume, material)
        total, by_material, by_group = removal_totals([edit])
        events = [ActionEvent("pull_out", point_tuple(point), material if held is not None else None, total)]
        finish(ActionResult(True, point_tuple(point), point_tuple(normal), point_tuple(aim), (edit,), total,
                            by_material, by_group, edit.most_removed_material, (), held, tuple(events), aimed))

    return VoxelEdit("remove", sphere, tool=settings.tool, source="pull_out", on_before=removed.keep,
                     on_applied=finished, recipe=recipe)


def pull_out(volume: Volume, bvh: TriangleBVH | None, eye: ArrayLike, aim: ArrayLike,
             settings: PunchSettings = PunchSettings()) -> ActionResult:
    """Pull a piece out of the terrain: like :func:`punch`, but everything removed becomes one object the player
    holds (``result.held``), of the highest fragment-priority material among the collision triangles touching
    the range (so lava next to rock gives rock); the most-removed material when no triangle touches it."""
    return _at_once(pull_out_edit, volume, bvh, eye, aim, settings)


def _at_once(edit_of: Callable[..., VoxelEdit | None], volume: Volume, bvh: TriangleBVH | None, eye: ArrayLike,
             aim: ArrayLike, settings: PunchSettings) -> ActionResult:
    """Make the action's edit with ``edit_of`` (:func:`punch_edit` or :func:`pull_out_edit`) and apply it now."""
    results: list[ActionResult] = []
    edit = edit_of(volume, bvh, eye, aim, results.append, settings)
    if edit is None:
        return ActionResult(False, None, None, point_tuple(check_direction("aim", aim)))
    edit.apply(volume)
    return results[0]
