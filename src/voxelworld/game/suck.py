"""Suck (issue #6, section 2): a held button that scrapes the terrain at the aim and collects bullets.

Each frame of suck is three edits at the aim's hit (:func:`suck_edits`): a surface-only scrape, a larger range
whose materials turn into their interior, and the erasure of small floating fragments around it, applied in that
order (density, material, fragments). Once applied they report what they did as a :class:`SuckUpdate`; the
bookkeeping (:func:`suck_frame`) then drains the gauge and counts: a frame whose scrape removed density is one
update; every ``updates_per_bullet`` updates add a bullet of the material that fell most in that frame.
The gauge drains only while suck has something within its reach: aiming at nothing (or at a surface beyond the
reach) keeps the gauge and says why once per hold (:attr:`SuckFrame.refusal`, out_of_reach or nothing_aimed), as
do a gauge that runs out (exhausted) and a surface that never gives way (too_hard).
:func:`suck` does both at once; a :class:`~voxelworld.game.world.World` queues the edits for its next frame's
update stages and does the bookkeeping in its deformation stage, after the collisions.

Examples
--------
>>> from voxelworld.terrain import VoxelVolume
>>> from voxelworld.meshing import collision_mesh_volume
>>> from voxelworld.collision import TriangleBVH
>>> wall = VoxelVolume.from_sdf(lambda x, y, z: 4.0 - x, (16, 12, 12), "soil", voxel_size=0.5, chunk_size=8)
>>> mesh = collision_mesh_volume(wall)
>>> bvh = TriangleBVH(mesh.positions, mesh.indices, mesh.tri_material)
>>> state = SuckState()
>>> for _ in range(10):
...     state = suck(state, wall, bvh, (2.5, 3.0, 3.0), (1.0, 0.0, 0.0), 1 / 60, True).state
>>> state.bullets, state.updates
(('soil', 'soil'), 0)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from ..collision import TriangleBVH
from ..errors import check_finite, check_integer, check_range
from ..terrain import Box, EditResult, Sphere, Tool, Volume
from .actions import ActionEvent, ActionResult, aim_hit, removal_totals
from .checks import check_direction, check_finish, check_point, check_tool, check_world, point_tuple
from .edits import EditRecipe, VoxelEdit
from .refusals import Refusal, missed, refusal, too_hard

__all__ = ["SuckSettings", "SuckState", "SuckUpdate", "SuckFrame", "suck", "suck_edits", "suck_frame"]


@dataclass(frozen=True)
class SuckSettings:
    """Suck (a held button) and the bullets it collects. The defaults suit voxels of 1 m (a world's
    :class:`~voxelworld.game.play.ActionSettings` sizes them for the demo world's 0.5 m).

    Parameters
    ----------
    reach : float
        How far from the eye the aim may meet the terrain, m (> 0).
    radius : float
        Radius of the density range scraped each frame, m (> 0).
    step : int
        Density each exposed voxel in the range loses per frame (1..255 density units).
    material_radius : float
        Radius of the material range whose materials turn into their interior, m (>= ``radius``).
    fragment_margin : float
        The fragment judgment region is a box of half-edge ``material_radius + fragment_margin`` around the hit,
        m (>= 0).
    time_limit : float
        Seconds of sucking a full gauge allows (> 0).
    recharge_time : float
        Seconds for an empty gauge to refill while the button is up (> 0).
    updates_per_bullet : int
        Density updates (frames that removed density) per bullet (>= 1).
    max_bullets : int
        Bullets carried at most (>= 1).
    bullet_radius : float
        Radius of a bullet ball, m (> 0).
    bullets_reset_on_release : bool
        Whether releasing the button also drops the bullets (the update count always resets).
    tool : Tool
        The hardness/damage gate.
    """

    reach: float = 8.0
    radius: float = 1.5
    step: int = 48
    material_radius: float = 2.5
    fragment_margin: float = 1.0
    time_limit: float = 4.0
    recharge_time: float = 4.0
    updates_per_bullet: int = 5
    max_bullets: int = 99
    bullet_radius: float = 0.3
    bullets_reset_on_release: bool = False
    tool: Tool = Tool()

    def __post_init__(self) -> None:
        for name, unit in (("reach", "m"), ("radius", "m"), ("time_limit", "s"), ("recharge_time", "s"),
                           ("bullet_radius", "m")):
            object.__setattr__(self, name, check_finite(name, getattr(self, name), minimum=0.0,
                                                        strict_minimum=True, unit=unit))
        object.__setattr__(self, "step", check_integer("step", self.step, minimum=1, maximum=255,
                                                       unit="density units"))
        object.__setattr__(self, "material_radius", check_finite("material_radius", self.material_radius,
                                                                 minimum=self.radius, unit="m"))
        object.__setattr__(self, "fragment_margin", check_finite("fragment_margin", self.fragment_margin,
                                                                 minimum=0.0, unit="m"))
        for name in ("updates_per_bullet", "max_bullets"):
            object.__setattr__(self, name, check_integer(name, getattr(self, name), minimum=1))
        check_range("bullets_reset_on_release", self.bullets_reset_on_release, "True or False",
                    isinstance(self.bullets_reset_on_release, bool))
        check_tool(self.tool)


@dataclass(frozen=True)
class SuckState:
    """What suck carries from frame to frame."""

    holding: bool = False  # whether the button was held last frame
    gauge: float = 1.0  # share of the time limit left, 0..1
    exhausted: bool = False  # the gauge ran out during this hold: nothing more until the button is released
    held_time: float = 0.0  # seconds of the current hold
    updates: int = 0  # density updates since the last bullet (reset when suck ends)
    bullets: tuple[str, ...] = ()  # the material of each bullet carried, oldest first
    said: tuple[str, ...] = ()  # the refusal reasons this hold has reported (each once per hold)

    @property
    def bullet_count(self) -> int:
        return len(self.bullets)


@dataclass(frozen=True)
class SuckUpdate:
    """One frame of suck as its edits report it, before the bookkeeping (:func:`suck_frame`)."""

    state: SuckState  # before the frame
    holding: bool  # whether the button is held this frame
    dt: float  # s, the frame's time
    hit: ActionResult  # where the aim met the terrain (``hit`` False when suck made no edits)
    edits: tuple[EditResult, ...] = ()  # what the scrape, the interior range and the erasure did; () for none
    refusal: Refusal | None = None  # why this held frame did nothing (nothing in reach, too hard), if it did not


@dataclass(frozen=True)
class SuckFrame:
    """One frame of suck after its bookkeeping: the new state and what the frame changed."""

    state: SuckState
    result: ActionResult
    refusal: Refusal | None = None  # why suck does nothing, the first frame of this hold it is so for that reason


def suck_edits(state: SuckState, volume: Volume, bvh: TriangleBVH | None, eye: ArrayLike, aim: ArrayLike,
               dt: float, holding: bool, finish: Callable[[SuckUpdate], object],
               settings: SuckSettings = SuckSettings()) -> tuple[VoxelEdit, ...]:
    """The edits of one frame of suck (see :func:`suck`): a scrape, an interior range and a fragment erasure
    at the aim's hit, or none (button up, gauge empty, nothing within reach). ``finish`` gets the frame's
    :class:`SuckUpdate` once the last edit is applied (at once when there are none); :func:`suck_frame` makes
    the bookkeeping of it. The three edits share one ``recipe``: ``suck`` with ``eye``, ``aim``, ``state`` and
    ``dt``."""
    check_range("state", state, "a SuckState", isinstance(state, SuckState))
    check_world(volume, bvh)
    given_eye, given_aim = check_point("eye", eye), check_point("aim", aim)
    eye, aim = check_point("eye", eye), check_direction("aim", aim)
    dt = check_finite("dt", dt, minimum=0.0, unit="s")
    check_range("holding", holding, "True or False", isinstance(holding, (bool, np.bool_)))
    check_range("settings", settings, "a SuckSettings", isinstance(settings, SuckSettings))
    check_finish(finish)
    holding = bool(holding)
    nothing = ActionResult(False, None, None, point_tuple(aim))
    hit = None
    trying = holding and not state.exhausted and state.gauge > 0.0
    if trying:
        hit = aim_hit(bvh, eye, aim, settings.reach)
    if hit is None:
        refused = missed(bvh, eye, aim, "suck", settings.reach) if trying else None
        finish(SuckUpdate(state, holding, dt, nothing, refusal=refused))
        return ()
    point, normal, material_id = hit
    aimed = volume.materials.name_by_id[material_id]
    centre = point_tuple(point)
    half = settings.material_radius + settings.fragment_margin
    results: list[EditResult] = []
    recipe = EditRecipe("suck", (("eye", given_eye), ("aim", given_aim), ("state", state), ("dt", dt)))

    def finished(erased: EditResult) -> None:
        results.append(erased)
        where = ActionResult(True, centre, point_tuple(normal), point_tuple(aim), aimed_material=aimed)
        scraped, refused = results[0], None
        if scraped.volume_removed == 0.0 and scraped.voxels_damaged == 0 and scraped.voxels_blocked > 0:
            hardness = float(volume.materials[aimed].hardness)
            refused = too_hard("suck", aimed, hardness, settings.tool.break_threshold(hardness), 0)
        finish(SuckUpdate(state, True, dt, where, tuple(results), refused))

    return (VoxelEdit("scrape", Sphere(centre, settings.radius), tool=settings.tool, step=settings.step,
                      source="suck", on_applied=results.append, recipe=recipe),
            VoxelEdit("expose_interior", Sphere(centre, settings.material_radius), source="suck",
                      on_applied=results.append, recipe=recipe),
            VoxelEdit("remove_fragments", Box(point_tuple(point - half), point_tuple(point + half)), source="suck",
                      on_applied=finished, recipe=recipe))


def suck_frame(update: SuckUpdate, settings: SuckSettings = SuckSettings()) -> SuckFrame:
    """The bookkeeping of one frame of suck (``update``, what its edits did): the gauge drains while held (empty
    after ``time_limit`` s, which ends suck until the button is released) and refills over ``recharge_time`` s
    while up; a frame whose scrape removed density is one update, and every ``updates_per_bullet`` updates add
    a bullet of the material whose density fell most in that frame's scrape; releasing resets the count.
    A held frame that made no edits (nothing within reach) keeps the gauge. ``refusal`` says why suck does nothing
    (the update's refusal, or exhausted when the gauge runs out), once per hold for each reason."""
    check_range("update", update, "a SuckUpdate", isinstance(update, SuckUpdate))
    check_range("settings", settings, "a SuckSettings", isinstance(settings, SuckSettings))
    state, dt = update.state, update.dt
    if not update.holding:
        events = (ActionEvent("suck_end", amount=float(state.bullet_count)),) if state.holding else ()
        refilled = min(1.0, state.gauge + dt / settings.recharge_time)
        bullets = () if settings.bullets_reset_on_release else state.bullets
        return SuckFrame(SuckState(False, refilled, False, 0.0, 0, bullets), replace(update.hit, events=events))
    if state.exhausted or state.gauge <= 0.0:
        said, refused = _say(state.said, refusal("suck", "exhausted"))
        return SuckFrame(replace(state, holding=True, exhausted=True, updates=0, said=said), update.hit, refused)
    said, refused = _say(state.said, update.refusal)
    if not update.edits:  # nothing within reach: the gauge waits
        return SuckFrame(replace(state, holding=True, held_time=state.held_time + dt, said=said), update.hit,
                         refused)
    gauge = state.gauge - dt / settings.time_limit
    gauge = 0.0 if gauge < 1e-9 else gauge  # rounding must not leave a sliver of a frame
    frame = _suck_frame(replace(state, said=said), gauge, dt, update.hit, update.edits, settings)
    if frame.state.exhausted:
        said, refused = _say(said, refusal("suck", "exhausted"))
        frame = SuckFrame(replace(frame.state, said=said), frame.result, refused)
    return replace(frame, refusal=refused) if refused is not None else frame


def _say(said: tuple[str, ...], refused: Refusal | None) -> tuple[tuple[str, ...], Refusal | None]:
    """The reasons said this hold and the refusal to report now: ``refused`` unless its reason was said."""
    if refused is None or refused.reason in said:
        return said, None
    return said + (refused.reason,), refused


def _suck_frame(state: SuckState, gauge: float, dt: float, hit: ActionResult, edits: tuple[EditResult, ...],
                settings: SuckSettings) -> SuckFrame:
    """The state and result after a held frame of suck whose edits (scrape, interior, erasure) are applied."""
    updates, bullets = state.updates, state.bullets
    events: list[ActionEvent] = []
    if edits:
        scraped, erased = edits[0], edits[2]
        centre = hit.point
        if scraped.volume_removed > 0.0:
            updates += 1
            events.append(ActionEvent("suck", centre, scraped.most_removed_material, scraped.volume_removed))
            if updates >= settings.updates_per_bullet:
                updates = 0
                if len(bullets) < settings.max_bullets:
                    # (a scrape that removed density has a material that fell most)
                    bullets = bullets + (cast(str, scraped.most_removed_material),)
                    events.append(ActionEvent("bullet", centre, scraped.most_removed_material, float(len(bullets))))
        if erased.fragments_erased:
            events.append(ActionEvent("fragments_erased", centre, None, erased.volume_removed))
    exhausted = gauge <= 0.0
    if exhausted:
        updates = 0
        events.append(ActionEvent("suck_exhausted", amount=float(len(bullets))))
    # Density lost counts scrape and erasure; expose_interior only moves volume between materials.
    total, by_material, by_group = removal_totals((edits[0], edits[2]) if edits else ())
    most = edits[0].most_removed_material if edits else None
    result = replace(hit, edits=edits, volume_removed=total, removed_by_material=by_material,
                     removed_by_group=by_group, most_removed_material=most, events=tuple(events))
    return SuckFrame(SuckState(True, gauge, exhausted, state.held_time + dt, updates, bullets, state.said), result)


def suck(state: SuckState, volume: Volume, bvh: TriangleBVH | None, eye: ArrayLike, aim: ArrayLike, dt: float,
         holding: bool, settings: SuckSettings = SuckSettings()) -> SuckFrame:
    """One frame of suck.

    While ``holding`` and the gauge is not empty, the aim meets the collision mesh within ``settings.reach``
    and, at the hit: a sphere of ``radius`` is scraped (surface only, ``step`` density, hardness-gated: every
    voxel in it takes the tool's damage each frame, exposed or not, so hidden rock gives way once exposed); a
    sphere of ``material_radius`` turns to its interior materials; small floating fragments in a box around
    it are erased. Aiming elsewhere moves the ranges. A frame whose scrape removed density is one update;
    every ``updates_per_bullet`` updates add a bullet of the material whose density fell most that frame.
    Holding drains the gauge (empty after ``time_limit`` s), which ends suck until the button is released;
    releasing ends suck (the update count resets) and refills the gauge over ``recharge_time`` s.
    """
    updates: list[SuckUpdate] = []
    for edit in suck_edits(state, volume, bvh, eye, aim, dt, holding, updates.append, settings):
        edit.apply(volume)
    return suck_frame(updates[0], settings)
