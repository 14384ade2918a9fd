"""Meshing benchmarks (issues #3, #29). Run: ``.venv/bin/python benchmarks/meshing.py``.

Prints a markdown table of medians for docs/benchmarks.md; ``profile`` prints one thread's time per kernel,
``occlusion-rules`` how far cheaper occlusion rules land from today's. scikit-image's ``marching_cubes`` on the same
samples is the reference row (geometry only: no normals from a gradient, no materials, no simplification).
:func:`guard_figures` measures the rows a quick guard checks (a few seconds).
"""

from __future__ import annotations

import os

# OpenBLAS's idle threads spin for a while after any BLAS call and take the cores the mesher's threads need:
# the benchmark makes none of its own, so one is plenty (set before numpy loads).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import gc  # noqa: E402
import math
import subprocess
import sys
import time
from contextlib import contextmanager
from unittest import mock

import numba as nb
import numpy as np
import scipy.ndimage as ndi
from skimage import measure

from voxelworld.meshing import (
    ChunkMesher,
    MeshOptions,
    _kernels,
    chunk_surfaces,
    collision_mesh_volume,
    mesh_volume,
    vertex_occlusion,
)
from voxelworld.meshing.chunk_surfaces import build_chunk
from voxelworld.terrain import Box, Sphere, VoxelVolume, demo_terrain

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from terrain import print_table  # noqa: E402  (the same machine line as the terrain benchmarks)

SIZE = 128
RUNS = 9


def median_ms(call, runs: int = RUNS) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = call()
        times.append((time.perf_counter() - start) * 1000.0)
    return float(np.median(times)), result


def sphere_volume() -> VoxelVolume:
    """A ball of radius 50.3 voxels in 128³, density rising 32 per voxel inwards (uint8)."""
    volume = VoxelVolume((SIZE,) * 3)
    index = np.indices(volume.shape, dtype=np.float32)
    distance = np.sqrt(((index - 63.7) ** 2).sum(axis=0))
    volume.density[...] = np.clip(np.round(128 + 32 * (50.3 - distance)), 0, 255)
    volume.mat_a[...] = volume.materials.id_of("rock")
    return volume


def noise_volume() -> VoxelVolume:
    """Gaussian noise smoothed with sigma 3 voxels, scaled to density 128 +- 64 per standard deviation."""
    volume = VoxelVolume((SIZE,) * 3)
    field = ndi.gaussian_filter(np.random.default_rng(0).standard_normal(volume.shape).astype(np.float32), 3)
    volume.density[...] = np.clip(np.round(128 + 64 * field / field.std()), 0, 255)
    volume.mat_a[...] = volume.materials.id_of("soil")
    volume.mat_b[...] = volume.materials.id_of("rock")
    volume.mix[...] = np.clip(np.round(128 + 100 * field), 0, 255)
    return volume


@contextmanager
def _occlusion_timed(seconds: list[float]):
    """Meshing on this thread alone, the time spent in the occlusion kernel added to ``seconds[0]``."""
    kernel = _kernels.vertex_occlusion

    def timed(*args):
        start = time.perf_counter()
        kernel(*args)
        seconds[0] += time.perf_counter() - start

    with mock.patch.object(_kernels, "vertex_occlusion", timed), \
            mock.patch.object(chunk_surfaces, "map_on_cores", lambda function, items: [function(x) for x in items]):
        yield


def occlusion_share(volume: VoxelVolume, options: MeshOptions, runs: int = 3) -> float:
    """The share of ``mesh_volume``'s time spent computing the vertices' occlusion (the kernel), on one thread
    (the median of ``runs``)."""
    shares = []
    for _ in range(runs):
        seconds = [0.0]
        with _occlusion_timed(seconds):
            start = time.perf_counter()
            mesh_volume(volume, options)
            total = time.perf_counter() - start
        shares.append(seconds[0] / total)
    return float(np.median(shares))


def demo_chunk() -> tuple:
    """Chunk (1, 1, 1) of ``demo_terrain(seed=0, size=128, height=128)``, its mesher's display surfaces (the lower
    neighbours' it joins) and its 33³ samples, as the chunk rows rebuild it."""
    world = demo_terrain(seed=0, size=SIZE, height=SIZE)
    mesher = ChunkMesher(world)
    mesher.update()
    return world, (1, 1, 1), mesher._display_surfaces, world.density[32:65, 32:65, 32:65].astype(np.float32)


def guard_figures(runs: int = 3) -> dict[str, float]:
    """The meshing rows a quick guard checks, each the median of ``runs`` (a few seconds with warm kernels).

    ``noise_unsimplified_ms``, ``noise_simplified_ms``: ``mesh_volume`` of the 128³ gaussian noise field with
    ``MeshOptions(levels=0)`` and the default options; ``noise_marching_cubes_ms``: scikit-image's
    ``marching_cubes`` of the same samples in the same run; ``unsimplified_speedup``, ``simplified_speedup``: the
    reference's time over ours (above 1: faster than marching cubes); ``chunk_simplified_ms``: a 32³ chunk of the
    demo world's simplified display mesh with materials (``build_chunk``, the median of 15 x ``runs``);
    ``chunk_marching_cubes_ms``: the reference on its samples; ``occlusion_share``: the share of the unsimplified
    noise mesh's time (on one thread) spent on the vertices' occlusion.
    """
    figures: dict[str, float] = {}
    volume = noise_volume()
    unsimplified, simplified = MeshOptions(levels=0), MeshOptions()
    mesh_volume(volume, unsimplified)  # warm: the thread pools and buffers
    figures["noise_unsimplified_ms"], _ = median_ms(lambda: mesh_volume(volume, unsimplified), runs)
    figures["noise_simplified_ms"], _ = median_ms(lambda: mesh_volume(volume, simplified), runs)
    samples = volume.density.astype(np.float32)
    figures["noise_marching_cubes_ms"], _ = median_ms(lambda: measure.marching_cubes(samples, 128), runs)
    figures["unsimplified_speedup"] = figures["noise_marching_cubes_ms"] / figures["noise_unsimplified_ms"]
    figures["simplified_speedup"] = figures["noise_marching_cubes_ms"] / figures["noise_simplified_ms"]
    figures["occlusion_share"] = occlusion_share(volume, unsimplified, runs)
    volume = samples = None  # the noise field let go before the chunk's world is made
    world, chunk, surfaces, samples = demo_chunk()
    options = MeshOptions()
    figures["chunk_simplified_ms"], _ = median_ms(lambda: build_chunk(world, chunk, options, surfaces), 15 * runs)
    figures["chunk_marching_cubes_ms"], _ = median_ms(lambda: measure.marching_cubes(samples, 128), 15 * runs)
    return figures


KERNELS = ("cell_cases", "cell_vertices", "simplify", "gather_cells", "emit_quads", "cell_kinds", "vertex_occlusion",
           "unpack_cells", "pack_cells")


def kernel_profile(volume: VoxelVolume, options: MeshOptions, runs: int = 3) -> dict[str, float]:
    """Where one thread's CPU time (``time.thread_time``) goes in ``mesh_volume``: ms per kernel (numba code is
    invisible to profilers, so each kernel is timed from outside), ``total`` and ``python`` (the rest: wrappers,
    window reads, allocation), each the median of ``runs``."""
    seconds: dict[str, list[float]] = {}
    spent: dict[str, float] = {}

    def timed(name, kernel):
        def call(*args):
            start = time.thread_time()
            result = kernel(*args)
            spent[name] = spent.get(name, 0.0) + time.thread_time() - start
            return result
        return call

    patches = {name: timed(name, getattr(_kernels, name)) for name in KERNELS}
    with mock.patch.multiple(_kernels, **patches), \
            mock.patch.object(chunk_surfaces, "map_on_cores", lambda function, items: [function(x) for x in items]):
        mesh_volume(volume, options)
        for _ in range(runs):
            spent.clear()
            start = time.thread_time()
            mesh_volume(volume, options)
            total = time.thread_time() - start
            for name in KERNELS:
                seconds.setdefault(name, []).append(spent.get(name, 0.0))
            seconds.setdefault("total", []).append(total)
            seconds.setdefault("python", []).append(total - sum(spent.values()))
    return {name: 1000.0 * float(np.median(values)) for name, values in seconds.items()}


# Occlusion rules tried against today's (issue 29: within 0.05 of it at every vertex of the demo world, and at most
# 15% of meshing): the 28 points' answers without interpolating.
NEAREST_SAMPLE, CORNER_SHARE, SOLID_TRILINEAR = 0, 1, 2
OCCLUSION_RULES = {NEAREST_SAMPLE: "each point: its nearest sample solid or not",
                   CORNER_SHARE: "points in crossed cells: the share of the cell's solid corners",
                   SOLID_TRILINEAR: "points in crossed cells: the trilinear weight of the cell's solid corners"}


@nb.njit(cache=True)
def occlusion_by_rule(density, iso, positions, normals, rays, steps, rule, out):
    """Like ``_kernels.vertex_occlusion`` (positions in samples, the whole volume) with the point's answer by
    ``rule``: a point in a cell all open or all solid (by a margin of 1) counts as today."""
    nx, ny, nz = density.shape
    points = rays.shape[0] * steps.shape[0]
    for v in range(positions.shape[0]):
        n0, n1, n2 = np.float64(normals[v, 0]), np.float64(normals[v, 1]), np.float64(normals[v, 2])
        length = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
        if length == 0.0:
            out[v] = 1.0
            continue
        n0, n1, n2 = n0 / length, n1 / length, n2 / length
        tx, ty, tz, bx, by, bz = _kernels.tangent_frame(n0, n1, n2)
        solid = 0.0
        for r in range(rays.shape[0]):
            a, b, c = rays[r, 0], rays[r, 1], rays[r, 2]
            for s in range(steps.shape[0]):
                d = steps[s]
                qx = min(max(positions[v, 0] + d * (a * tx + b * bx + c * n0), 0.0), nx - 1.0)
                qy = min(max(positions[v, 1] + d * (a * ty + b * by + c * n1), 0.0), ny - 1.0)
                qz = min(max(positions[v, 2] + d * (a * tz + b * bz + c * n2), 0.0), nz - 1.0)
                if rule == NEAREST_SAMPLE:
                    solid += density[int(qx + 0.5), int(qy + 0.5), int(qz + 0.5)] >= iso
                    continue
                i, j, k = min(int(qx), nx - 2), min(int(qy), ny - 2), min(int(qz), nz - 2)
                below = above = corners = 0
                weight = 0.0
                for corner in range(8):
                    di, dj, dk = corner & 1, (corner >> 1) & 1, (corner >> 2) & 1
                    value = np.float64(density[i + di, j + dj, k + dk])
                    below += value <= iso - 1.0
                    above += value >= iso + 1.0
                    if value >= iso:
                        corners += 1
                        weight += ((qx - i) if di else 1.0 - (qx - i)) * ((qy - j) if dj else 1.0 - (qy - j)) \
                            * ((qz - k) if dk else 1.0 - (qz - k))
                if above == 8:
                    solid += 1.0
                elif below < 8:
                    solid += corners / 8.0 if rule == CORNER_SHARE else weight
        out[v] = 1.0 - solid / points


def occlusion_rules() -> list[tuple[str, str, float, float, float]]:
    """Each rule of ``OCCLUSION_RULES`` against ``vertex_occlusion`` on the vertices of the demo world's display
    mesh (``World.demo``'s level and mesh options) and the 128³ noise field's unsimplified one: (field, rule, max
    and mean absolute difference, share of vertices more than 0.05 off)."""
    from voxelworld.game.level import demo_level
    from voxelworld.game.world import WorldSettings

    rows = []
    for name, volume, options in (("demo world", demo_level(0).volume, WorldSettings().mesh_options),
                                  ("noise 128³", noise_volume(), MeshOptions(levels=0))):
        mesh = mesh_volume(volume, options)
        density = np.ascontiguousarray(volume.read_window((0, 0, 0), volume.shape, ("density",))["density"])
        today = vertex_occlusion(density, volume.iso, mesh.positions, mesh.normals, volume.origin,
                                 volume.voxel_size)
        samples = (mesh.positions.astype(np.float64) - volume.origin) / volume.voxel_size
        out = np.empty(len(today))
        for rule, label in OCCLUSION_RULES.items():
            occlusion_by_rule(density, float(volume.iso), samples, mesh.normals, _kernels.OCCLUSION_RAYS,
                              _kernels.OCCLUSION_STEPS, rule, out)
            off = np.abs(out - today)
            rows.append((name, label, float(off.max()), float(off.mean()), float(np.mean(off > 0.05))))
    return rows


def main() -> None:
    rows: list[tuple[str, float | str, str, str]] = []

    # One 32³ chunk of the demo world, as a ChunkMesher rebuilds it: vertices, materials, simplification, quads.
    world, chunk, surfaces, samples = demo_chunk()
    for options, label in ((MeshOptions(levels=0, collision_levels=0), "unsimplified"),
                           (MeshOptions(), "simplified (default)")):
        ms, mesh = median_ms(lambda: build_chunk(world, chunk, options, surfaces), runs=41)
        rows.append((f"32³ chunk of the demo world, display mesh with materials, {label}", ms,
                     f"{mesh.triangle_count} triangles", "<= 0.6"))
    ms, _ = median_ms(lambda: measure.marching_cubes(samples, 128), runs=41)
    rows.append(("scikit-image `marching_cubes`, same chunk (reference)", ms, "geometry only", "reference"))

    world = surfaces = None  # each row starts from a clean heap: leftovers only make the garbage collector work
    gc.collect()
    counts = {}
    for name, volume in (("sphere r=50.3", sphere_volume()), ("gaussian noise, sigma 3", noise_volume())):
        ms, full = median_ms(lambda: mesh_volume(volume, MeshOptions(levels=0)))
        target = "<= 15" if name.startswith("sphere") else "<= 80"
        rows.append((f"128³ {name}, unsimplified", ms, f"{full.triangle_count} triangles", target))
        share = occlusion_share(volume, MeshOptions(levels=0))
        rows.append((f"128³ {name}, unsimplified: the occlusion's share (one thread)", "-", f"{share:.0%}",
                     "<= 15%"))
        ms_s, simple = median_ms(lambda: mesh_volume(volume, MeshOptions()))
        ratio = full.triangle_count / max(simple.triangle_count, 1)
        counts[name] = ratio
        need = ">= 20x" if name.startswith("sphere") else ">= 4x"
        rows.append((f"128³ {name}, simplified (default options)", ms_s,
                     f"{simple.triangle_count} triangles, {ratio:.1f}x fewer", f"<= 150, {need}"))
        samples = volume.density.astype(np.float32)
        ms, _ = median_ms(lambda: measure.marching_cubes(samples, 128), runs=5)
        rows.append((f"scikit-image `marching_cubes`, 128³ {name} (reference)", ms, "geometry only", "reference"))

    world = demo_terrain(seed=0)
    display, collision = mesh_volume(world), collision_mesh_volume(world)
    share = collision.triangle_count / display.triangle_count
    rows.append(("collision / display triangles, default world", "-",
                 f"{collision.triangle_count} / {display.triangle_count} = {share:.0%}", "<= 50%"))

    # Edit to mesh: a radius-8 dig with its rim and fragment clean-up, then update(), at fresh spots.
    world = demo_terrain(seed=1, size=SIZE, height=SIZE)
    mesher = ChunkMesher(world)
    mesher.update()
    times, remeshed = [], []
    for x in np.linspace(14, SIZE - 14, 6):
        for z in np.linspace(14, SIZE - 14, 6):
            top = float(np.flatnonzero(world.density[int(x), :, int(z)] >= world.iso).max())
            hole = Sphere((float(x), top, float(z)), 8.0)
            start = time.perf_counter()
            world.remove(hole)
            world.expose_interior(hole.expanded(1.5))
            world.remove_fragments(Box(np.array(hole.center) - 12, np.array(hole.center) + 12))
            update = mesher.update()
            times.append((time.perf_counter() - start) * 1000.0)
            remeshed.append(len(update.remeshed))
    rows.append(("edit to mesh: `remove` r=8 + `expose_interior` + `remove_fragments` + `update()`",
                 float(np.median(times)), f"{len(times)} edits, median {np.median(remeshed):.0f} chunks remeshed",
                 "<= 5"))

    # A new process, cache warm: import, build a small world, mesh its first chunk.
    script = ("import time; t = time.perf_counter(); "
              "from voxelworld.terrain import demo_terrain; from voxelworld.meshing import mesh_volume; "
              "import numpy as np; v = demo_terrain(size=48, height=40); "
              "from voxelworld.terrain import VoxelVolume; c = VoxelVolume((33, 33, 33)); "
              "c.density[...] = v.density[:33, :33, :33]; c.mat_a[...] = v.mat_a[:33, :33, :33]; "
              "mesh_volume(c); print(time.perf_counter() - t)")
    subprocess.run([sys.executable, "-c", script], check=True, capture_output=True)  # warm the cache
    seconds = [float(subprocess.run([sys.executable, "-c", script], check=True, capture_output=True,
                                    text=True).stdout) for _ in range(7)]
    rows.append(("new process, warm cache: imports + first 32³ chunk meshed", float(np.median(seconds)) * 1000,
                 "7 processes", "<= 1000"))

    print_table(("benchmark", "median ms", "result", "target"),
                [(name, f"{ms:.3f}" if isinstance(ms, float) else ms, result, target)
                 for name, ms, result, target in rows])


if __name__ == "__main__":
    if sys.argv[1:] == ["profile"]:  # one thread's CPU time per kernel, noise 128³
        noise = noise_volume()
        for label, options in (("unsimplified", MeshOptions(levels=0)), ("simplified", MeshOptions())):
            print(label, {name: round(ms, 1) for name, ms in kernel_profile(noise, options).items()})
    elif sys.argv[1:] == ["occlusion-rules"]:
        print_table(("field", "rule", "max difference", "mean difference", "vertices > 0.05 off"),
                    [(field, rule, f"{big:.3f}", f"{mean:.4f}", f"{share:.1%}")
                     for field, rule, big, mean, share in occlusion_rules()])
    else:
        main()
