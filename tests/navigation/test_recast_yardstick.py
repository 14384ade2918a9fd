"""The navigation benchmark's yardstick (issue #33 §5): Recast and Detour themselves (npm's recast-navigation,
WebAssembly, pinned in package.json) run by node from ``benchmarks/recast_yardstick.mjs``, driven by
``benchmarks/recast_yardstick.py``: the mapping of NavSettings to Recast's config, a bake and a path on a small
scene, and the clear refusal where node or the package is missing. Where node or the package is missing the
Node test is skipped on a developer's machine and fails under CI (scripts/setup installs both)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from voxelworld.navigation import NavSettings

ROOT = Path(__file__).resolve().parents[2]


def load_yardstick() -> ModuleType:
    spec = importlib.util.spec_from_file_location("benchmarks_recast_yardstick",
                                                  ROOT / "benchmarks" / "recast_yardstick.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


yardstick = load_yardstick()
NAV_TEST_SETTINGS = NavSettings.from_recast(cell_size=0.3, agent_height=2.0, agent_radius=0.6, agent_max_climb=0.9,
                                            agent_max_slope=45, region_min_size=8)


def require_node() -> None:
    """Skip (fail under CI) where node or recast-navigation is missing."""
    why = None
    if shutil.which("node") is None:
        why = "node is not installed"
    elif not yardstick.PACKAGE.is_dir():
        why = f"{yardstick.PACKAGE} is missing"
    if why is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI must run Recast's yardstick (scripts/setup installs node and recast-navigation): {why}")
    pytest.skip(f"no Recast yardstick here: {why}")


def box(lo: tuple[float, float, float], hi: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """A closed box, its triangles facing out (counter-clockwise seen from outside)."""
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    faces = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
                      [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    return corners, faces


def floor_with_block() -> tuple[np.ndarray, np.ndarray]:
    """A 12 m x 12 m floor at y = 0 (x, z in [-6, 6]) with a 2 m block standing in its middle, and a 6 m x 6 m
    floor apart from it, 3 m away (x in [9, 15], z in [-3, 3])."""
    floors = np.array([[-6.0, 0.0, -6.0], [6.0, 0.0, -6.0], [6.0, 0.0, 6.0], [-6.0, 0.0, 6.0],
                       [9.0, 0.0, -3.0], [15.0, 0.0, -3.0], [15.0, 0.0, 3.0], [9.0, 0.0, 3.0]])
    floor_faces = np.array([[0, 2, 1], [0, 3, 2], [4, 6, 5], [4, 7, 6]])  # facing up, as Recast reads them
    corners, faces = box((-1.0, 0.0, -1.0), (1.0, 2.0, 1.0))
    return np.vstack([floors, corners]), np.vstack([floor_faces, faces + len(floors)])


def test_recast_config_maps_the_nav_test_settings_to_recast_demo_units() -> None:
    config = yardstick.recast_config(NAV_TEST_SETTINGS)
    assert config == {"cs": pytest.approx(0.3), "ch": 0.2, "walkableSlopeAngle": 45.0, "walkableHeight": 10,
                      "walkableClimb": 4, "walkableRadius": 2, "maxEdgeLen": 40,
                      "maxSimplificationError": pytest.approx(1.0), "minRegionArea": 8, "mergeRegionArea": 20,
                      "maxVertsPerPoly": 6, "detailSampleDist": 6.0, "detailSampleMaxError": 1.0}


def test_recast_config_rounds_as_recast_demo_and_keeps_detour_corner_limit() -> None:
    settings = NavSettings(ray_density=25.0, clearance=1.1, step_limit=0.7, agent_radius=0.5, max_corners=8,
                           max_edge_error=0.3, min_region_area=1.0)
    config = yardstick.recast_config(settings, cell_height=0.1)
    assert (config["cs"], config["ch"]) == (pytest.approx(0.2), 0.1)
    assert config["walkableHeight"] == 11  # ceil(1.1 / 0.1)
    # 2.1 / 0.3 is 7.000000000000001 in floats: 7 cells, not 8
    assert yardstick.recast_config(replace(settings, clearance=2.1), cell_height=0.3)["walkableHeight"] == 7
    assert config["walkableClimb"] == 7  # 0.7 / 0.1 is 6.999999999999999: 7 cells, not 6
    assert config["walkableRadius"] == 3  # ceil(0.5 / 0.2)
    assert config["maxSimplificationError"] == pytest.approx(1.5)
    assert config["minRegionArea"] == 5  # a 1 m² square is 5 cells a side
    assert config["maxVertsPerPoly"] == 6  # Detour's polygons have at most 6 corners


def test_run_yardstick_names_what_is_missing(tmp_path: Path) -> None:
    positions, indices = floor_with_block()
    with pytest.raises(yardstick.RecastUnavailable, match="node is not installed"):
        yardstick.run_yardstick(positions, indices, yardstick.recast_config(NAV_TEST_SETTINGS), [], node=None)
    missing = tmp_path / "recast-navigation"
    with pytest.raises(yardstick.RecastUnavailable, match="recast-navigation is missing"):
        yardstick.run_yardstick(positions, indices, yardstick.recast_config(NAV_TEST_SETTINGS), [],
                                node="node", package=missing)


def test_recast_bakes_a_small_scene_and_detour_finds_the_path_around_its_block() -> None:
    require_node()
    positions, indices = floor_with_block()
    pairs = [(np.array([-4.0, 0.0, 0.0]), np.array([4.0, 0.0, 0.0])),  # around the block
             (np.array([-4.0, 0.0, -4.0]), np.array([-4.0, 0.0, 4.0])),  # a straight line beside it
             (np.array([-4.0, 0.0, 0.0]), np.array([40.0, 0.0, 0.0])),  # the end far off the navmesh
             (np.array([-4.0, 0.0, 0.0]), np.array([12.0, 0.0, 0.0]))]  # the end on the other floor
    result = yardstick.run_yardstick(positions, indices, yardstick.recast_config(NAV_TEST_SETTINGS), pairs,
                                     bakes=2, timeout=120.0)
    assert len(result["bake_seconds"]) == 2 and result["bake_median"] > 0
    # The floor's 40 x 40 cells (0.3 m) lose their outer ring (Recast counts the grid's edge as a drop) and the
    # agent's radius (2 cells) inside it: 34 cells a side; the block stands on the 8 x 8 cells its sides touch
    # (x, z in [-1.2, 1.2]), widened by 2 cells each side: 12. Its top (about 0.6 m a side once eroded) is under
    # the minimum region area and dropped. The other floor keeps 14 x 14 of its 20 x 20 cells.
    cells = 34**2 - 12**2 + 14**2
    assert result["islands"] == 2
    assert 0.95 * cells * 0.09 <= result["area"] <= 1.05 * cells * 0.09
    assert 4 <= result["polygons"] <= 40 and result["max_corners"] <= 6
    around, beside, off, apart = result["path_lengths"]
    assert 8.0 < around < 8.0 * 1.2  # bent around the block's eroded corners
    assert beside == pytest.approx(8.0, abs=0.05)
    assert off == -1  # nothing within the snap's box (2, 4, 2 m) of the far end
    assert apart == -1  # Detour's corridor ends short of the other island: no path
    assert len(result["path_seconds"]) == len(result["wrapper_path_seconds"]) == 4
    assert min(result["path_seconds"]) > 0 and min(result["wrapper_path_seconds"]) > 0
    assert result["wrapper_length_difference"] < 1e-4  # the library's calls give the same paths
    pinned = json.loads((ROOT / "package.json").read_text())["devDependencies"]["recast-navigation"]
    assert result["version"] == pinned  # what npm ci installed from the lock file
