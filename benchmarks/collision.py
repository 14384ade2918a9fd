"""Collision benchmarks (issue #4). Run: ``.venv/bin/python benchmarks/collision.py``.

`TriangleBVH.raycast` on a 100k-triangle mesh, single-threaded, beside trimesh's Embree ray intersector on the
same mesh and rays (a reference: Embree is a C++ ray tracer, used here through trimesh + embreex).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from voxelworld.collision import TriangleBVH  # noqa: E402

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from terrain import print_table  # noqa: E402

RAYS = 200_000


def terrain_mesh(side: int = 224, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A rolling heightfield of 2 x (side - 1)² triangles (100 352 for 224), 1 m apart."""
    rng = np.random.default_rng(seed)
    x, z = np.meshgrid(np.arange(side, dtype=np.float64), np.arange(side, dtype=np.float64), indexing="ij")
    y = 4 * np.sin(x / 17 + rng.uniform()) * np.cos(z / 23 + rng.uniform()) + rng.normal(0, 0.2, x.shape)
    positions = np.stack([x, y, z], axis=-1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(side - 1), np.arange(side - 1), indexing="ij")
    v = (i * side + j).ravel()
    indices = np.concatenate([np.stack([v, v + 1, v + side], 1), np.stack([v + 1, v + side + 1, v + side], 1)])
    return positions, indices


def rays(count: int, side: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Half straight down from above, half in random directions from points above the terrain."""
    rng = np.random.default_rng(seed)
    origins = np.column_stack([rng.uniform(0, side - 1, count), rng.uniform(8, 20, count),
                               rng.uniform(0, side - 1, count)])
    directions = np.tile([0.0, -1.0, 0.0], (count, 1))
    random = rng.normal(size=(count // 2, 3))
    random[:, 1] = -np.abs(random[:, 1]) - 0.3
    directions[count // 2:] = random / np.linalg.norm(random, axis=1, keepdims=True)
    return origins, directions


def chunk_parts(count: int = 30, side: int = 28) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` heightfield chunks of 2 x (side - 1)² triangles (1 458 for 28) side by side, 6 to a row: the
    collider near the player, a few dozen chunks."""
    parts = []
    for n in range(count):
        positions, indices = terrain_mesh(side, seed=n)
        parts.append((positions + [(n % 6) * (side - 1), 0, (n // 6) * (side - 1)], indices))
    return parts


def median_time(call, runs: int = 7) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def combine_rows() -> list[tuple[str, str, str, str]]:
    """`TriangleBVH.combine` over 30 chunk trees beside one tree built from scratch over the same triangles."""
    parts = chunk_parts()
    trees = [TriangleBVH(*part) for part in parts]
    offsets = np.cumsum([0] + [len(p[0]) for p in parts])
    positions = np.concatenate([p[0] for p in parts])
    indices = np.concatenate([p[1] + offsets[n] for n, p in enumerate(parts)])
    TriangleBVH.combine(trees)
    combine = median_time(lambda: TriangleBVH.combine(trees), 21)
    scratch = median_time(lambda: TriangleBVH(positions, indices), 5)
    one = median_time(lambda: TriangleBVH(*parts[0]), 21)
    total, each = len(indices), len(parts[0][1])
    return [(f"`TriangleBVH.combine`, {len(parts)} chunk trees of {each} triangles", f"{combine * 1000:.2f} ms",
             f"{scratch / combine:.0f}x faster than one build from scratch", "a small share of 5 ms"),
            (f"build from scratch, the same {total} triangles (reference)", f"{scratch * 1000:.1f} ms", "-", "-"),
            (f"build one chunk's tree, {each} triangles", f"{one * 1000:.2f} ms", "when a chunk changes", "-")]


def median_rate(call, count: int, runs: int = 7) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return count / float(np.median(times)), result


def embree_intersector(positions, indices):
    """trimesh's Embree ray intersector over the mesh, or None when trimesh or embreex is missing."""
    try:
        import trimesh
        from trimesh.ray.ray_pyembree import RayMeshIntersector
    except ImportError:  # pragma: no cover - the test extras install both
        return None
    return RayMeshIntersector(trimesh.Trimesh(positions, indices, process=False))


def paired_rates(bvh, embree, origins, directions, runs: int) -> tuple[float, float, float, object, object]:
    """Ours and Embree's rays/s, each run of ours followed by one of Embree's (so both see the same machine),
    and the median of the runs' ratios; with the last answers of each. Timed by the CPU time of this thread
    (both trace on it alone): a run another process pre-empts on this shared machine is not charged for the
    wait, which wall-clock pairs are, unevenly between the two."""
    ours, theirs, ratios = [], [], []
    hits = first = None
    for _ in range(runs):
        start = time.thread_time()
        hits = bvh.raycast(origins, directions)
        mine = time.thread_time() - start
        start = time.thread_time()
        first = embree.intersects_first(origins, directions)
        other = time.thread_time() - start
        ours.append(len(origins) / mine)
        theirs.append(len(origins) / other)
        ratios.append(other / mine)
    return float(np.median(ours)), float(np.median(theirs)), float(np.median(ratios)), hits, first


def guard_figures(runs: int = 7) -> dict[str, float]:
    """The quick figures for benchmarks/guard.py (a few seconds): rays/s of ``TriangleBVH.raycast`` and of
    Embree on the benchmark's mesh (200 000 rays, one thread, paired runs, CPU time) and their ratio (issue 29:
    >= 0.5),
    and the cost of combining 30 chunk trees."""
    positions, indices = terrain_mesh(224)
    origins, directions = rays(RAYS, 224)
    bvh = TriangleBVH(positions, indices)
    bvh.raycast(origins[:5000], directions[:5000])
    figures = {}
    embree = embree_intersector(positions, indices)
    if embree is not None:
        embree.intersects_first(origins[:5000], directions[:5000])
        ours, theirs, ratio, _, _ = paired_rates(bvh, embree, origins, directions, runs)
        figures.update({"raycast M rays/s": ours / 1e6, "Embree M rays/s": theirs / 1e6,
                        "raycast / Embree": ratio})
    else:  # pragma: no cover
        figures["raycast M rays/s"] = median_rate(lambda: bvh.raycast(origins, directions), len(origins), runs)[0] / 1e6
    trees = [TriangleBVH(*part) for part in chunk_parts()]
    TriangleBVH.combine(trees)
    figures["combine 30 chunk trees ms"] = median_time(lambda: TriangleBVH.combine(trees), 3 * runs) * 1000
    return figures


def main() -> None:
    side = 224
    positions, indices = terrain_mesh(side)
    origins, directions = rays(RAYS, side)
    TriangleBVH(positions, indices).refit(positions)  # compiled (or loaded) before anything is timed
    build = median_time(lambda: TriangleBVH(positions, indices), 5)
    bvh = TriangleBVH(positions, indices)
    bvh.raycast(origins[:5000], directions[:5000])
    embree = embree_intersector(positions, indices)
    if embree is not None:
        embree.intersects_first(origins[:100], directions[:100])
        ours, theirs, ratio, hits, first = paired_rates(bvh, embree, origins, directions, 7)
    else:  # pragma: no cover
        ours, hits = median_rate(lambda: bvh.raycast(origins, directions), RAYS)
    rows = [(f"`TriangleBVH.raycast`, {len(indices)} triangles, {RAYS} rays, one thread", f"{ours / 1e6:.2f} M rays/s",
             f"{hits.hit.mean():.0%} hit", ">= 0.5x Embree")]
    if embree is not None:
        agree = np.mean(first == hits.triangle)
        rows.append(("trimesh + Embree `intersects_first`, same mesh and rays (reference)",
                     f"{theirs / 1e6:.2f} M rays/s", f"same first triangle for {agree:.2%} of rays", "reference"))
        rows.append(("ratio, median of 7 paired runs (CPU time of the thread)", f"{ratio:.2f}x Embree", "-", ">= 0.5x"))
    else:  # pragma: no cover
        rows.append(("trimesh + Embree (reference)", "-", "not installed", "reference"))
    moved = positions + 0.01
    refit = median_time(lambda: bvh.refit(moved), 5)
    rows.append((f"build, {len(indices)} triangles", f"{build * 1000:.0f} ms", "binned surface area heuristic", "-"))
    rows.append(("refit after every vertex moved", f"{refit * 1000:.1f} ms", "same tree", "cheap"))
    rows += combine_rows()
    print_table(("benchmark", "median", "result", "target"), rows)


if __name__ == "__main__":
    main()
