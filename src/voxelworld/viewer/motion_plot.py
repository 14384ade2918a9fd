"""``voxelworld motion plot``: CesiumMan's second action in one medium, against the same first action free.

Media (``--medium``):

- ``rock``, ``soil``, ``iron``: the full-body chainsaw swing (:func:`~voxelworld.motion.chainsaw_swing_clip`) into
  a wall of that material ``wall_x`` metres ahead;
- ``water``: the same swing standing in water up to the chest, the arm swung down into it (the drag graded by
  depth: the deepest part slowest);
- ``shovel``: :class:`~voxelworld.game.digger.ShovelDigger` digging soil ground (``edge`` or ``flat`` blade by
  ``--blade-roll``);
- ``oar``: the rowing stroke (:func:`~voxelworld.motion.row_clip`) with an oar held square in the right hand in
  water gliding past at 1.5 m/s (``--blade-roll`` 90 feathers it).

Each run records per frame the world places of the hips, chest, shoulder, elbow, wrist and tool tip, their clock
rates and whether the part touched; the PNG has three panels: the paths seen from the side, the rates over time
(contact shaded), and the **measured motion** over the contact frames: each joint's motion (world rotation for
the hips and chest, rotation relative to the parent for the shoulder and elbow, displacement for the wrist and the
tool's tip) as a share of the free run's over the same frames (:mod:`voxelworld.motion.measure`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ParameterError
from ..files import write_atomically

if TYPE_CHECKING:
    from ..motion import ContactMotion
    from ..motion.part_contacts import ContactQuery

__all__ = ["MEDIA", "MotionRun", "medium_runs", "motion_plot", "measured_shares", "CHAIN", "ROOT", "CHEST"]

CHAIN = ("Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_")
ROOT, CHEST = "Skeleton_torso_joint_1", "torso_joint_3"
LEGS = (("leg_joint_L_1", "leg_joint_L_2", "leg_joint_L_3"), ("leg_joint_R_1", "leg_joint_R_2", "leg_joint_R_3"))
FORWARD, UP = (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)  # CesiumMan's skeleton frame: Z up, facing +x
WALLS = {"rock": 5.0, "soil": 1.5, "iron": 10.0}
MEDIA = ("rock", "soil", "iron", "water", "shovel", "oar")
DT = 1 / 60
JOINTS = ("hips", "chest", "shoulder", "elbow", "wrist")


@dataclass(frozen=True)
class MotionRun:
    """One run of a medium's scenario: ``time`` (f,) s; ``worlds`` (f + 1, n, 4, 4) world matrices (the first
    before the first frame); ``places`` {joint label: (f, 3)} and ``tip`` (f, 3) in m; ``rates`` {label: (f,)};
    ``touching`` (f,) bool (contact, or the part in the medium); ``parents``, ``joints`` {label: index};
    ``side`` the (forward, up) axes of the side view; ``what`` the scenario in words."""

    time: np.ndarray
    worlds: np.ndarray
    places: dict[str, np.ndarray]
    tip: np.ndarray
    rates: dict[str, np.ndarray]
    touching: np.ndarray
    parents: np.ndarray
    joints: dict[str, int]
    side: tuple[int, int]
    what: str


def _record(step: Callable[[], object], motion: ContactMotion, frames: int, touching: Callable[[], bool],
            side: tuple[int, int], what: str) -> MotionRun:
    joints = dict(zip(JOINTS, (motion.root, motion.skeleton.index(CHEST), motion.shoulder, motion.elbow,
                               motion.wrist)))
    world_list, tips, rate_list, touched = [motion.world.copy()], [], [], []
    for _ in range(frames):
        step()
        world_list.append(motion.world.copy())
        tips.append(motion.part_segment[1].copy())
        rate_list.append(motion.rates.copy())
        touched.append(touching())
    worlds, rates = np.array(world_list), np.array(rate_list)
    return MotionRun(time=np.arange(1, frames + 1) * DT, worlds=worlds,
                     places={label: worlds[1:, j, :3, 3] for label, j in joints.items()}, tip=np.array(tips),
                     rates={label: rates[:, j] for label, j in joints.items()}, touching=np.array(touched),
                     parents=motion.skeleton.parents, joints=joints, side=side, what=what)


def medium_runs(medium: str, glb: str | Path, seconds: float = 8.0, wall_x: float = 1.0,
                blade_roll: float = 0.0) -> dict[str, MotionRun]:
    """The scenario of ``medium`` (one of :data:`MEDIA`) played ``seconds`` long with the medium (``"with"``)
    and without it (``"free"``): ``{label: MotionRun}``."""
    if medium not in MEDIA:
        raise ParameterError("medium", medium, f"one of {', '.join(MEDIA)}")
    frames = int(round(seconds / DT))
    if medium == "shovel":
        return {label: _shovel(material, frames, blade_roll) for label, material in (("with", "soil"),
                                                                                   ("free", None))}
    from ..collision import TriangleBVH
    from ..motion import (
        ContactMotion,
        Medium,
        SlowdownProfile,
        chainsaw_swing_clip,
        collision_contact_query,
        forearm_part,
        held_part,
        load_gltf,
        row_clip,
    )

    skeleton = load_gltf(glb).skeleton
    still = SlowdownProfile(vibration_degrees=0.0)  # measured motion shows the rates, not the shake
    roll = np.radians(blade_roll)
    if medium == "oar":
        clip = row_clip(skeleton, CHAIN, ROOT, CHEST, FORWARD, UP, legs=LEGS)
        part = held_part(skeleton, CHAIN[2], (0, 0, 0), (0.0, -1.6, -0.9), 0.04,
                         blade_side=(np.cos(roll), 0.0, np.sin(roll)))
        media = [Medium("water", 4.0, box=((-5, -5, -2), (5, 5, 0.12)), up=UP, flow=(-1.5, 0.0, 0.0))]
        what = f"rowing, the oar {'square' if blade_roll < 45 else 'feathered'} in water gliding past at 1.5 m/s"
    else:
        clip = chainsaw_swing_clip(skeleton, CHAIN, ROOT, CHEST, FORWARD, UP, legs=LEGS)
        part = forearm_part(skeleton, CHAIN, 0.05, 0.75, 0.03, blade_side=(0, 1, 0))
        media = [Medium("water", 4.0, box=((-5, -5, -2), (5, 5, 0.9)), grade=0.5, up=UP)] \
            if medium == "water" else []
        what = "the chainsaw swung down into water up to the chest" if medium == "water" else \
            f"the chainsaw swung into a {medium} wall {wall_x:g} m ahead"
    query: ContactQuery = lambda a, b, r: None  # noqa: E731
    runs = {}
    for label in ("with", "free"):
        if label == "with" and medium in WALLS:
            wall = TriangleBVH([[wall_x, -2, -1], [wall_x, 2, -1], [wall_x, -2, 3], [wall_x, 2, 3]],
                               [[0, 1, 2], [1, 3, 2]], tri_material=[1, 1])
            query = collision_contact_query(wall, {1: (medium, WALLS[medium])})
        motion = ContactMotion(skeleton, clip, list(CHAIN), ROOT, part, profile=still,
                               media=media if label == "with" else (), loop=True)
        ask: ContactQuery = query if label == "with" else (lambda a, b, r: None)
        touching = ((lambda m=motion: m.part_drag > 0.0) if medium == "oar" else  # the blade in the water
                    (lambda m=motion: bool(np.any(m._in_media[:, m.wrist]))) if medium == "water" else
                    (lambda m=motion: m.contact is not None))
        runs[label] = _record(partial(motion.step, DT, ask), motion, frames, touching, (0, 2), what)
    return runs


def _shovel(material: str | None, frames: int, blade_roll: float) -> MotionRun:
    from ..game.digger import ShovelDigger, ShovelSettings
    from ..meshing import ChunkMesher
    from ..motion import SlowdownProfile
    from ..terrain import Box, VoxelVolume

    volume = VoxelVolume((40, 24, 40), voxel_size=0.1, chunk_size=16)
    if material is not None:
        volume.add(Box((0.0, 0.0, 0.0), (4.0, 1.0, 4.0)), material)
    mesher = ChunkMesher(volume)
    settings = ShovelSettings(blade_roll=blade_roll, profile=SlowdownProfile(vibration_degrees=0.0))
    digger = ShovelDigger("digger", volume, mesher, (1.2, 1.0, 2.0), facing=(1, 0, 0), settings=settings)

    def step() -> None:
        mesher.update()
        digger.step(DT)

    what = f"digging soil, the blade {'edge-on' if blade_roll < 45 else 'flat'} ({blade_roll:g} degrees)"
    return _record(step, digger.motion, frames, lambda: digger.motion.contact is not None, (0, 1), what)


def measured_shares(run: MotionRun, free: MotionRun) -> dict[str, float]:
    """Each joint's measured motion over ``run``'s touching frames as a share of ``free``'s over the same
    frames: ``{label: share}`` (hips, chest: world rotation; shoulder, elbow: rotation relative to the parent;
    wrist, tool tip: displacement); empty if it never touched."""
    from ..motion import joint_motion, motion_ratios

    frames = run.touching
    if not frames.any():
        return {}
    ratios = motion_ratios(joint_motion(run.worlds, run.parents), joint_motion(free.worlds, free.parents), frames)
    moved = np.linalg.norm(np.diff(run.tip, axis=0, prepend=run.tip[:1]), axis=1)[frames].sum()
    free_moved = np.linalg.norm(np.diff(free.tip, axis=0, prepend=free.tip[:1]), axis=1)[frames].sum()
    j = run.joints
    return {"hips": float(ratios.rotation[j["hips"]]), "chest": float(ratios.rotation[j["chest"]]),
            "shoulder": float(ratios.local_rotation[j["shoulder"]]),
            "elbow": float(ratios.local_rotation[j["elbow"]]),
            "wrist": float(ratios.displacement[j["wrist"]]), "tool tip": float(moved / max(free_moved, 1e-12))}


def motion_plot(path: str | Path, glb: str | Path, medium: str = "rock", seconds: float = 8.0, wall_x: float = 1.0,
                blade_roll: float = 0.0) -> Path:
    """Write the three-panel PNG of ``medium`` (see the module) to ``path`` atomically."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    path = Path(path)
    if path.suffix.lower() != ".png" or not path.parent.is_dir():
        raise ParameterError("out", str(path), "a .png file in an existing folder")
    runs = medium_runs(medium, glb, seconds=seconds, wall_x=wall_x, blade_roll=blade_roll)
    figure = Figure(figsize=(16, 5.2), dpi=100)
    paths, rates, shares = figure.subplots(1, 3)
    forward, up = runs["with"].side
    colours = {"hips": "tab:green", "chest": "tab:olive", "shoulder": "tab:blue", "elbow": "tab:purple",
               "wrist": "tab:red", "tool tip": "tab:orange"}
    for label, style, width, alpha in (("free", "-", 4.0, 0.25), ("with", "-", 1.2, 1.0)):
        run = runs[label]  # the free run wide and pale underneath: the slowed run covers less of the same path
        for joint in ("hips", "shoulder", "wrist"):
            paths.plot(run.places[joint][:, forward], run.places[joint][:, up], style, color=colours[joint],
                       label=f"{joint} ({label})", linewidth=width, alpha=alpha)
        paths.plot(run.tip[:, forward], run.tip[:, up], style, color=colours["tool tip"],
                   label=f"tool tip ({label})", linewidth=width, alpha=alpha)
    if medium in WALLS:
        paths.axvline(wall_x, color="0.3", linewidth=3, label=f"wall ({medium})")
    run = runs["with"]
    for joint in JOINTS:
        rates.plot(run.time, run.rates[joint], color=colours[joint], label=joint)
    touching = run.touching
    edges = np.flatnonzero(np.diff(np.concatenate([[0], touching.astype(int), [0]])))
    for start, end in zip(edges[::2], edges[1::2]):
        rates.axvspan(run.time[start] - DT, run.time[end - 1], color="0.88", linewidth=0)
    rates.set_yscale("log")
    rates.set_ylim(1e-3, 3.0)
    measured = measured_shares(run, runs["free"])
    labels = list(measured) or list(colours)
    values = [measured.get(label, 0.0) for label in labels]
    bars = shares.bar(labels, values, color=[colours[label] for label in labels])
    for bar, value in zip(bars, values):
        shares.annotate(f"{value:.3f}", (bar.get_x() + bar.get_width() / 2, value), ha="center", va="bottom",
                        fontsize=8)
    shares.axhline(1.0, color="0.4", linestyle=":", label="first action (free run)")
    shares.axhline(0.1, color="tab:green", linestyle=":", label="a tenth")
    paths.set(xlabel="forward (m)", ylabel="up (m)", title="Paths seen from the side (pale: free)",
              aspect="equal")
    rates.set(xlabel="time (s)", ylabel="clock rate (first action = 1, log)",
              title="Per-joint rates (grey: touching)")
    shares.set(ylabel="measured motion / free run", title="Measured motion while touching"
               + ("" if measured else " (never touched)"))
    for axes in (paths, rates, shares):
        axes.legend(fontsize=7, loc="best")
    figure.suptitle(f"CesiumMan, {run.what}: second action against the first", fontsize=11)
    figure.tight_layout()
    return write_atomically(path, lambda file: figure.savefig(file, format="png"))
