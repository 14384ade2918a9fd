"""``voxelworld motion plot``: CesiumMan's right arm swung down (a chainsaw) with and without a wall in the way,
the wrist's, tool tip's and shoulder's paths, their heights over time and their clock rates drawn with
matplotlib (Agg) into a PNG: with the wall the tool stops at it, the wrist lingers while the shoulder keeps on."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import ParameterError
from ..files import write_atomically

__all__ = ["swing_runs", "motion_plot", "CHAIN", "ROOT"]

CHAIN = ("Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_")
ROOT = "Skeleton_torso_joint_1"
FORWARD, UP = (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)  # CesiumMan's skeleton frame: Z up, facing +x
ROCK = {4: ("rock", 5.0)}


def swing_runs(glb, wall_x: float = 1.1, seconds: float = 8.0, dt: float = 1 / 60) -> dict:
    """Play the swing twice (wall at ``x = wall_x`` m in the skeleton's frame, then no wall); per run the
    time, wrist and shoulder positions (m), their rates, and the contact frames."""
    from ..collision import TriangleBVH
    from ..motion.contact_motion import ContactMotion
    from ..motion.part_contacts import collision_contact_query
    from ..motion.swing import forearm_part, swing_clip
    from ..motion.gltf import load_gltf

    skeleton = load_gltf(glb).skeleton
    clip = swing_clip(skeleton, CHAIN, FORWARD, UP, from_degrees=60, to_degrees=-60, name="chainsaw swing")
    part = forearm_part(skeleton, CHAIN, 0.05, 0.75, 0.03, blade_side=(0, 1, 0))
    wall = TriangleBVH([[wall_x, -1, 0], [wall_x, 1, 0], [wall_x, -1, 2.5], [wall_x, 1, 2.5]],
                       [[0, 1, 2], [1, 3, 2]], tri_material=[4, 4])
    queries = {"wall": collision_contact_query(wall, ROCK), "free": lambda a, b, r: None}
    runs = {}
    for label, query in queries.items():
        motion = ContactMotion(skeleton, clip, list(CHAIN), ROOT, part)
        s, w = motion.shoulder, motion.wrist
        rows = []
        for k in range(int(round(seconds / dt))):
            motion.step(dt, query)
            rows.append((motion.time, *motion.world[w, :3, 3], *motion.world[s, :3, 3], motion.rates[w],
                         motion.rates[s], motion.contact is not None, *motion.part_segment[1]))
        table = np.array(rows, dtype=float)
        runs[label] = {"time": table[:, 0], "wrist": table[:, 1:4], "shoulder": table[:, 4:7],
                       "wrist_rate": table[:, 7], "shoulder_rate": table[:, 8], "contact": table[:, 9] > 0,
                       "tool_tip": table[:, 10:13]}
    return runs


def motion_plot(path, glb, wall_x: float = 1.1, seconds: float = 8.0) -> Path:
    """Write the two-panel PNG (side view of the paths; rates over time) to ``path`` atomically."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    path = Path(path)
    if path.suffix.lower() != ".png" or not path.parent.is_dir():
        raise ParameterError("out", str(path), "a .png file in an existing folder")
    runs = swing_runs(glb, wall_x=wall_x, seconds=seconds)
    figure = Figure(figsize=(15, 4.8), dpi=100)
    paths, heights, rates = figure.subplots(1, 3)
    for label, style in (("free", "--"), ("wall", "-")):
        run = runs[label]
        paths.plot(run["wrist"][:, 0], run["wrist"][:, 2], style, color="tab:red", label=f"wrist ({label})")
        paths.plot(run["tool_tip"][:, 0], run["tool_tip"][:, 2], style, color="tab:orange",
                   label=f"tool tip ({label})")
        paths.plot(run["shoulder"][:, 0], run["shoulder"][:, 2], "o" if label == "wall" else "x",
                   color="tab:blue", label=f"shoulder ({label})")
        heights.plot(run["time"], run["wrist"][:, 2], style, color="tab:red", label=f"wrist ({label})")
        heights.plot(run["time"], run["shoulder"][:, 2], style, color="tab:blue", label=f"shoulder ({label})")
        rates.plot(run["time"], run["wrist_rate"], style, color="tab:red", label=f"wrist rate ({label})")
        rates.plot(run["time"], run["shoulder_rate"], style, color="tab:blue", label=f"shoulder rate ({label})")
    touching = runs["wall"]["contact"]
    if touching.any():
        times = runs["wall"]["time"][touching]
        for axes in (heights, rates):
            axes.axvspan(times[0], times[-1], color="0.85", label="contact (wall)")
    paths.axvline(wall_x, color="0.3", linewidth=3, label="wall (rock)")
    paths.set(xlabel="forward x (m)", ylabel="up z (m)", title="Paths (side view)", aspect="equal")
    heights.set(xlabel="time (s)", ylabel="up z (m)", title="Wrist and shoulder height over time")
    rates.set(xlabel="time (s)", ylabel="rate (first action = 1)", title="Per-joint clock rates")
    for axes in (paths, heights, rates):
        axes.legend(fontsize=7)
    figure.tight_layout()
    return write_atomically(path, lambda file: figure.savefig(file, format="png"))
