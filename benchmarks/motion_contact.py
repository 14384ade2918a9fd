"""Contact-motion benchmark rows (issue #5), to be folded into ``benchmarks/motion.py``.

``contact_rows()`` returns ``(name, median, result, target)`` rows: forward kinematics of a 20-joint skeleton,
and one whole ``ContactMotion.step`` with IK (CesiumMan's right arm held in a rock wall). Report only.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

GLB = Path(__file__).resolve().parents[1].parent / "shared" / "motion-data" / "CesiumMan.glb"


def _median_us(call, repeats: int = 2000) -> float:
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e6


def contact_rows() -> list[tuple[str, str, str, str]]:
    from voxelworld.collision import TriangleBVH
    from voxelworld.motion.contact import ContactMotion
    from voxelworld.motion.contacts import collision_contact_query
    from voxelworld.motion.swing import forearm_part, swing_clip
    from voxelworld.motion.gltf import load_gltf
    from voxelworld.motion.skeleton import Pose, Skeleton

    rng = np.random.default_rng(0)
    n = 20
    rotations = rng.normal(size=(n, 4))
    rest = Pose(rng.uniform(-0.2, 0.2, (n, 3)), rotations / np.linalg.norm(rotations, axis=1, keepdims=True),
                np.ones((n, 3)))
    chain20 = Skeleton([f"j{i}" for i in range(n)], [-1] + [int(rng.integers(0, i)) for i in range(1, n)], rest)
    fk = _median_us(lambda: chain20.world_transforms(rest))

    chain = ["Skeleton_arm_joint_R", "Skeleton_arm_joint_R__2_", "Skeleton_arm_joint_R__3_"]
    skeleton = load_gltf(GLB).skeleton
    clip = swing_clip(skeleton, chain, (1, 0, 0), (0, 0, 1), from_degrees=60, to_degrees=-60)
    part = forearm_part(skeleton, chain, 0.05, 0.75, 0.03, blade_side=(0, 1, 0))
    wall = TriangleBVH([[1.1, -1, 0], [1.1, 1, 0], [1.1, -1, 2.5], [1.1, 1, 2.5]], [[0, 1, 2], [1, 3, 2]],
                       tri_material=[4, 4])
    query = collision_contact_query(wall, {4: ("rock", 5.0)})
    motion = ContactMotion(skeleton, clip, chain, "Skeleton_torso_joint_1", part)
    for _ in range(30):  # into the wall: from here on every step is a contact step with IK
        motion.step(1 / 60, query)
    assert motion.contact is not None
    step = _median_us(lambda: motion.step(1 / 60, query), repeats=150)
    assert motion.contact is not None  # the hand stayed in the wall for every timed step
    return [("Skeleton.world_transforms, 20 joints (FK)", f"{fk:.1f} µs", "20 world matrices", "-"),
            ("ContactMotion.step with IK, CesiumMan (19 joints), hand in a rock wall", f"{step:.0f} µs",
             f"wrist rate {motion.rates[motion.wrist]:.3f}", "<= 200 µs")]


if __name__ == "__main__":
    for row in contact_rows():
        print(" | ".join(row))
