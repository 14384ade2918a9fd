"""Recast and Detour themselves as the yardstick (issue #33 §5): npm's ``recast-navigation`` (the C++ libraries
compiled to WebAssembly, pinned in package.json, installed by scripts/setup with ``npm ci``) driven from Node by
``benchmarks/recast_yardstick.mjs``, with the same triangles, the same parameters and the same path pairs as
voxelworld's own rows.

:func:`recast_config` maps a :class:`~voxelworld.navigation.NavSettings` to Recast's config, field by field (see
its docstring for what has no counterpart); :func:`run_yardstick` runs the Node script and returns what it
measured; :func:`recast_rows` makes the benchmark's rows with the ratios ours / Recast's.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from voxelworld.navigation import NavSettings

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = Path(__file__).with_name("recast_yardstick.mjs")
PACKAGE = ROOT / "node_modules" / "recast-navigation"
# Recast's demo values for the parameters voxelworld's bake has no counterpart of (Sample_SoloMesh's defaults).
CELL_HEIGHT = 0.2  # m: Recast quantises heights in cells; voxelworld's rays keep exact heights
MERGE_REGION_SIZE = 20  # cells (a square's side): voxelworld merges no small regions into neighbours
EDGE_MAX_LENGTH = 12.0  # m: voxelworld does not split long outline edges
DETAIL_SAMPLE_DISTANCE = 6.0  # cells: voxelworld's height details come from its own ray samples
DETAIL_SAMPLE_MAX_ERROR = 1.0  # cell heights
HALF_EXTENTS = (2.0, 4.0, 2.0)  # m: the box a point is snapped in (Recast's demo); voxelworld's snap is unbounded
DETOUR_MAX_CORNERS = 6  # DT_VERTS_PER_POLYGON: Detour's polygons have at most 6 corners


class RecastUnavailable(RuntimeError):
    """Node or the recast-navigation package is missing, or the script failed: the message says which."""


def recast_config(settings: NavSettings, cell_height: float = CELL_HEIGHT) -> dict[str, float]:
    """Recast's config (recast-navigation's ``generateSoloNavMesh``, in Recast demo's units) for ``settings``.

    - ``cs`` = ``settings.cell_size`` (the rays' grid spacing, ``1 / sqrt(ray_density)``);
    - ``ch`` = ``cell_height``: voxelworld has none (its rays keep exact heights); Recast's demo uses 0.2 m;
    - ``walkableSlopeAngle`` = ``max_slope``;
    - ``walkableHeight`` = ceil(``clearance`` / ch), ``walkableClimb`` = floor(``step_limit`` / ch),
      ``walkableRadius`` = ceil(``agent_radius`` / cs): in cells, rounded as Recast's demo rounds them;
    - ``maxSimplificationError`` = ``max_edge_error`` / cs (cells);
    - ``minRegionArea`` = the side of a square of ``min_region_area`` in cells, rounded (the generator squares
      it, as Recast's demo does);
    - ``maxVertsPerPoly`` = ``max_corners``, at most Detour's 6;
    - no counterpart in voxelworld, Recast's demo values: ``mergeRegionArea`` 20 (a side, squared), ``maxEdgeLen``
      12 m / cs, ``detailSampleDist`` 6 cells, ``detailSampleMaxError`` 1 cell height.

    Examples
    --------
    >>> settings = NavSettings.from_recast(cell_size=0.3, agent_height=2.0, agent_radius=0.6,
    ...                                    agent_max_climb=0.9, agent_max_slope=45, region_min_size=8)
    >>> config = recast_config(settings)
    >>> config["walkableHeight"], config["walkableClimb"], config["walkableRadius"], config["minRegionArea"]
    (10, 4, 2, 8)
    """
    cs = settings.cell_size
    return {
        "cs": cs,
        "ch": cell_height,
        "walkableSlopeAngle": settings.max_slope,
        "walkableHeight": math.ceil(round(settings.clearance / cell_height, 6)),
        "walkableClimb": math.floor(round(settings.step_limit / cell_height, 6)),
        "walkableRadius": math.ceil(round(settings.agent_radius / cs, 6)),
        "maxEdgeLen": int(EDGE_MAX_LENGTH / cs),
        "maxSimplificationError": settings.max_edge_error / cs,
        "minRegionArea": round(math.sqrt(settings.min_region_area) / cs),
        "mergeRegionArea": MERGE_REGION_SIZE,
        "maxVertsPerPoly": min(settings.max_corners, DETOUR_MAX_CORNERS),
        "detailSampleDist": DETAIL_SAMPLE_DISTANCE,
        "detailSampleMaxError": DETAIL_SAMPLE_MAX_ERROR,
    }


def run_yardstick(positions: np.ndarray, indices: np.ndarray, config: dict[str, float],
                  pairs: Sequence[tuple[np.ndarray, np.ndarray]], bakes: int = 7, timeout: float = 600.0,
                  node: str | None = "", package: Path = PACKAGE) -> dict[str, Any]:
    """What ``recast_yardstick.mjs`` measured: Recast's bake of the triangles ``positions[indices]`` with
    ``config`` (``bakes`` timed bakes after a warm-up) and Detour's path query between each of ``pairs``
    (polygons, max_corners, vertices, area, islands, bake_seconds, bake_median, path_seconds and path_lengths:
    -1 for no path, wrapper_path_seconds, wrapper_length_difference; version of the package: see the script).
    ``node``: the node executable ("" finds it on PATH, None: there is none). Raises :class:`RecastUnavailable`
    naming what is missing or how the script failed."""
    node = shutil.which("node") if node == "" else node
    if node is None:
        raise RecastUnavailable("node is not installed (scripts/setup installs Node.js)")
    if not package.is_dir():
        raise RecastUnavailable(f"{package} is missing (scripts/setup installs it with npm ci)")
    request = {"positions": np.asarray(positions, dtype=float).ravel().tolist(),
               "indices": np.asarray(indices, dtype=np.int64).ravel().tolist(), "config": config, "bakes": bakes,
               "pairs": [[*map(float, a), *map(float, b)] for a, b in pairs], "half_extents": list(HALF_EXTENTS)}
    with tempfile.TemporaryDirectory(prefix="recast-yardstick-") as folder:
        path = os.path.join(folder, "input.json")
        with open(path, "w") as file:
            json.dump(request, file)
        try:
            done = subprocess.run([node, str(SCRIPT), path], capture_output=True, text=True, timeout=timeout,
                                  cwd=ROOT)
        except subprocess.TimeoutExpired as error:
            raise RecastUnavailable(f"{SCRIPT.name} ran past {timeout:g} s") from error
    if done.returncode != 0:
        raise RecastUnavailable(f"{SCRIPT.name} exited with {done.returncode}: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def recast_rows(ours_polygons: int, ours_bake: tuple[float, float], ours_path: np.ndarray, ours_path_cpu: float,
                ours_lengths: np.ndarray, recast: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """The rows of Recast's bake and Detour's path queries beside ours: ``ours_bake`` (s, the median by the clock
    and of CPU time), ``ours_path`` (s per pair by the clock), ``ours_path_cpu`` (mean CPU s per query over the
    pairs in one loop) and ``ours_lengths`` (m per pair) measured on the same pairs."""
    path = np.asarray(recast["path_seconds"])
    lengths = np.asarray(recast["path_lengths"])
    found = lengths >= 0
    us = path * 1e6
    both = found & (ours_lengths > 0)
    ratios = ours_lengths[both] / np.maximum(lengths[both], 1e-9) if both.any() else np.array([math.nan])
    polygons = recast["polygons"]
    path_ratio = np.median(ours_path) / np.median(path)
    wrapper = np.median(recast["wrapper_path_seconds"]) * 1e6
    cpu_ratio = ours_path_cpu / recast["path_cpu_mean"]
    return [
        (f"Recast {recast['version']} (WASM) bake, same level and parameters, median of "
         f"{len(recast['bake_seconds'])}", f"{recast['bake_median'] * 1000:.1f} ms",
         f"{recast['area']:.0f} m², {recast['islands']} islands, {polygons} polygons (at most "
         f"{recast['max_corners']} corners), {recast['bake_cpu_median'] * 1000:.1f} ms CPU; ours / Recast: "
         f"**polygons {ours_polygons / polygons:.2f}**, **bake {ours_bake[0] / recast['bake_median']:.2f}** (CPU "
         f"{ours_bake[1] / recast['bake_cpu_median']:.2f})", "polygons <= 1.2, bake <= 3"),
        (f"Detour (WASM) path query, same {len(path)} pairs: 2 snaps, `findPath`, `findStraightPath` (raw binding, "
         "buffers reused)",
         f"{np.median(us):.1f} µs", f"p90 {np.percentile(us, 90):.1f} µs, p99 {np.percentile(us, 99):.1f} µs; a "
         f"path for {int(found.sum())} of {len(path)} pairs; ours / Detour: **path {path_ratio:.2f}**, "
         f"length median {np.median(ratios):.3f}, p10 {np.percentile(ratios, 10):.3f}, max {ratios.max():.3f}; "
         f"through the library's JavaScript calls {wrapper:.1f} µs; mean CPU a query "
         f"{recast['path_cpu_mean'] * 1e6:.1f} µs (ours {ours_path_cpu * 1e6:.1f}: CPU {cpu_ratio:.2f})",
         "path <= 2"),
    ]
