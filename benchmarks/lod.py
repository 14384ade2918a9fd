"""Level-of-detail benchmark (issue 17 §4). Run: ``PYTHONPATH=src .venv/bin/python benchmarks/lod.py``.

1. A rolling terrain of 512 m x 64 m x 512 m at 1 m voxels (grass 0.5 m over soil 2 m over rock; 32-sample
   chunks): display triangles with every chunk at level of detail L = 0..5, and with ``detail_levels`` for a
   viewer at the centre (default bands), with the triangles per level and the meshing times.
2. The same terrain function at 0.5 m voxels on a 128 m x 128 m patch, and a rough variant (bumps of 1.7-3.1 m
   wavelength the tolerance cannot merge): triangles per m² of ground at each level.
3. The 1 km world at 0.5 m voxels seen to 500 m, extrapolated: every chunk column within 500 m of a centre viewer
   takes the triangles per column of its level (from 2.), for several sets of distance bands; the finest set
   within 400 000 triangles became ``DETAIL_DISTANCES``. The same extrapolation from the 1 m figures is checked
   against the measured 512 m world.

``--quick`` shrinks both terrains (a smoke run).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from voxelworld.meshing import DETAIL_DISTANCES, MAX_DETAIL_LEVEL, ChunkMesher, detail_levels  # noqa: E402
from voxelworld.terrain import Layer, VoxelVolume  # noqa: E402

LAYERS = (Layer("grass", 0.5), Layer("soil", 2.0), Layer("rock"))
# Waves: wavelength (m) and amplitude 0.045 x wavelength (slopes about 0.28 each), random directions and phases.
WAVELENGTHS = (256.0, 150.0, 90.0, 50.0, 28.0, 16.0, 9.0, 5.0)
BUDGET = 400_000
VIEW = 500.0  # m
CANDIDATES = [(16.0, 32.0, 64.0, 128.0, 256.0), (24.0, 48.0, 96.0, 192.0, 320.0), (32.0, 64.0, 128.0, 256.0, 384.0),
              (48.0, 96.0, 160.0, 256.0, 384.0), (64.0, 128.0, 192.0, 288.0, 400.0),
              (96.0, 160.0, 240.0, 320.0, 420.0)]


def heights(x: np.ndarray, z: np.ndarray, rough: bool = False) -> np.ndarray:
    """Ground height (m) at world (x, z): 32 m plus eight waves, about 12..52 m; ``rough`` adds bumps of 1.7-3.1 m
    wavelength (0.25 m high): ground the tolerance cannot simplify."""
    rng = np.random.default_rng(17)
    out = np.full(np.broadcast(x, z).shape, 32.0)
    for wavelength in WAVELENGTHS + ((3.1, 2.3, 1.7) if rough else ()):
        angle, phase = rng.uniform(0.0, 2 * np.pi, 2)
        k = 2 * np.pi / wavelength
        amplitude = 0.25 if wavelength < 4.0 else 0.045 * wavelength
        out += amplitude * np.sin(k * (np.cos(angle) * x + np.sin(angle) * z) + phase)
    return out


def terrain(width: float, voxel: float, height: float = 64.0, rough: bool = False) -> VoxelVolume:
    n = int(round(width / voxel))
    axis = np.arange(n) * voxel
    ground = heights(axis[:, None], axis[None, :], rough)
    return VoxelVolume.from_heightmap(ground, LAYERS, int(round(height / voxel)), voxel_size=voxel, chunk_size=32)


def timed(call):
    start = time.perf_counter()
    result = call()
    return result, time.perf_counter() - start


def uniform_levels(volume: VoxelVolume) -> list[tuple[int, int, float]]:
    """(level, triangles, seconds) with every chunk at each level: a full mesh at 0, then a relevel each."""
    mesher = ChunkMesher(volume)
    rows = []
    for level in range(MAX_DETAIL_LEVEL + 1):
        mesher.set_detail_levels(np.full(volume.chunk_grid_shape, level, np.int64))
        _, seconds = timed(mesher.update)
        rows.append((level, sum(m.triangle_count for m in mesher.meshes.values()), seconds))
    return rows


def viewer_levels(volume: VoxelVolume, viewer, bands) -> np.ndarray:
    return detail_levels(volume.chunk_grid_shape, volume.chunk_size, volume.voxel_size, volume.origin, viewer, bands)


def extrapolate(per_column: list[float], width: float, voxel: float, viewer_height: float, bands) -> int:
    """Triangles of a ``width`` m square world at ``voxel`` m seen from its centre to VIEW m: each chunk column
    within VIEW takes ``per_column[level]`` triangles, its level that of its chunk at the viewer's height."""
    chunks = int(np.ceil(width / (32 * voxel)))
    grid = (chunks, 1, chunks)
    edge = 32 * voxel
    centre = (width / 2, viewer_height, width / 2)
    levels = detail_levels(grid, 32, voxel, (0.0, viewer_height - edge / 2, 0.0), centre, bands)[:, 0, :]
    lows = np.arange(chunks) * edge
    gap = np.maximum(np.maximum(lows - width / 2, width / 2 - lows - edge), 0.0)
    seen = np.hypot(gap[:, None], gap[None, :]) <= VIEW
    return int(round(sum(per_column[level] for level in levels[seen].ravel())))


def main() -> None:
    quick = "--quick" in sys.argv
    world, patch = (128.0, 64.0) if quick else (512.0, 128.0)
    big, built = timed(lambda: terrain(world, 1.0))
    print(f"## {world:.0f} m x 64 m x {world:.0f} m at 1 m voxels ({big.shape}, {np.prod(big.chunk_grid_shape)} "
          f"chunks; built in {built:.1f} s)\n")
    rows = uniform_levels(big)
    print("| level of detail (all chunks) | triangles | triangles per m² | meshing s |\n|---|---:|---:|---:|")
    for level, triangles, seconds in rows:
        kind = "full mesh" if level == 0 else "relevel"
        print(f"| {level} | {triangles:,} | {triangles / world ** 2:.3f} | {seconds:.2f} ({kind}) |")
    centre = np.array([world / 2, float(heights(np.array(world / 2), np.array(world / 2))) + 2.0, world / 2])
    levels = viewer_levels(big, centre, DETAIL_DISTANCES)
    mesher = ChunkMesher(big)
    mesher.set_detail_levels(levels)
    _, seconds = timed(mesher.update)
    by_level = {level: 0 for level in range(MAX_DETAIL_LEVEL + 1)}
    for chunk, mesh in mesher.meshes.items():
        by_level[int(levels[chunk])] += mesh.triangle_count
    total = sum(by_level.values())
    print(f"\nViewer at the centre {centre.round(1).tolist()}, bands {DETAIL_DISTANCES} m: {total:,} triangles "
          f"({total / rows[0][1]:.1%} of level 0) in {seconds:.2f} s (fresh mesher); per level "
          f"{ {k: v for k, v in by_level.items() if v} }")
    per_column_1m = [triangles / (world / 32) ** 2 for _, triangles, _ in rows]
    guess = extrapolate(per_column_1m, world, 1.0, centre[1], DETAIL_DISTANCES)
    print(f"Extrapolation from the per-level figures for this world: {guess:,} (measured {total:,}; the view "
          f"distance {VIEW:.0f} m covers it all)\n")

    for rough in (False, True):
        patch_at_half_metre(patch, rough)


def patch_at_half_metre(patch: float, rough: bool) -> None:
    name = "rough" if rough else "rolling"
    small, _ = timed(lambda: terrain(patch, 0.5, rough=rough))
    print(f"## {name}: {patch:.0f} m x 64 m x {patch:.0f} m at 0.5 m voxels ({small.shape})\n")
    fine = uniform_levels(small)
    print("| level of detail | triangles | triangles per m² | per 16 m chunk column | meshing s |\n"
          "|---|---:|---:|---:|---:|")
    for level, triangles, seconds in fine:
        print(f"| {level} | {triangles:,} | {triangles / patch ** 2:.3f} | {triangles / (patch / 16) ** 2:,.0f} | "
              f"{seconds:.2f} |")
    per_column = [triangles / (patch / 16) ** 2 for _, triangles, _ in fine]
    print(f"\n## {name}: 1 km world at 0.5 m voxels, viewer at the centre, view distance {VIEW:.0f} m "
          "(extrapolated)\n")
    print(f"All chunks at level 0: {extrapolate(per_column, 1000.0, 0.5, 34.0, (1e9,)):,} triangles.\n")
    print("| bands (m) | triangles | within 400k |\n|---|---:|---|")
    for bands in CANDIDATES + ([DETAIL_DISTANCES] if DETAIL_DISTANCES not in CANDIDATES else []):
        count = extrapolate(per_column, 1000.0, 0.5, 34.0, bands)
        mark = " (default)" if tuple(bands) == tuple(DETAIL_DISTANCES) else ""
        print(f"| {bands}{mark} | {count:,} | {'yes' if count <= BUDGET else 'no'} |")
    print()


if __name__ == "__main__":
    main()
