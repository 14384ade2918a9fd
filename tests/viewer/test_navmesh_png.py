"""The navmesh top view (voxelworld.viewer.navmesh_png): levels in the page's colours, a legend of the levels
present and a scale bar as long as its label says, at the map's scale."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from voxelworld.errors import ParameterError
from voxelworld.navigation import WalkableGrid, navmesh_from_grids
from voxelworld.viewer.navmesh_png import BACKGROUND, INK, level_colour, navmesh_png, scale_bar_length

FLOOR_M = 20  # a 20 m x 20 m floor of 1 m cells, with a 6 m x 6 m table top 1.2 m above its middle


@pytest.fixture(scope="module")
def two_levels():
    table = np.zeros((FLOOR_M, FLOOR_M), bool)
    table[7:13, 7:13] = True
    floor = WalkableGrid(np.ones((FLOOR_M, FLOOR_M), bool), np.zeros((FLOOR_M, FLOOR_M)), 0.0, 0.0, 1.0)
    top = WalkableGrid(table, np.full((FLOOR_M, FLOOR_M), 1.2), 0.0, 0.0, 1.0)
    mesh = navmesh_from_grids([floor, top])
    assert set(mesh.polygon_level.tolist()) == {0, 1}
    return mesh


def drawn(mesh, tmp_path, size=400):
    return np.asarray(Image.open(navmesh_png(mesh, tmp_path / "nav.png", size=size)).convert("RGB")).astype(int)


def strip_start(picture) -> int:
    """The row of the line between the map and the legend strip: the one row all of one colour, not background."""
    rows = [y for y in range(len(picture)) if (picture[y] == picture[y, 0]).all() and
            tuple(picture[y, 0]) != BACKGROUND]
    assert len(rows) == 1, rows
    return rows[0]


def longest_run(flags) -> int:
    """The length of the longest run of True in ``flags``."""
    best = run = 0
    for flag in flags:
        run = run + 1 if flag else 0
        best = max(best, run)
    return best


def has(pixels, colour) -> bool:
    return bool((np.abs(pixels - colour).sum(axis=-1) == 0).any())


def test_levels_are_drawn_in_the_page_colours_and_listed_in_the_legend(two_levels, tmp_path):
    picture = drawn(two_levels, tmp_path)
    line = strip_start(picture)
    world_map, legend = picture[:line], picture[line + 1:]
    drawn_columns = np.flatnonzero((world_map != BACKGROUND).any(axis=(0, 2)))  # the map, centred over the legend
    x0, x1 = drawn_columns[0], drawn_columns[-1]
    middle, corner = world_map[line // 2, (x0 + x1) // 2], world_map[line // 8, x0 + (x1 - x0) // 8]
    assert tuple(middle) == level_colour(1) and tuple(corner) == level_colour(0)  # table top, floor
    assert has(legend, level_colour(0)) and has(legend, level_colour(1)) and has(legend, INK)
    assert not has(legend, level_colour(2))  # only the levels the mesh has


def test_a_one_level_mesh_lists_one_level(tmp_path):
    mesh = navmesh_from_grids([WalkableGrid(np.ones((8, 8), bool), np.zeros((8, 8)), 0.0, 0.0, 1.0)])
    legend = drawn(mesh, tmp_path)
    legend = legend[strip_start(legend) + 1:]
    assert has(legend, level_colour(0)) and not has(legend, level_colour(1))


def test_the_scale_bar_is_as_long_as_its_metres_at_the_map_scale(two_levels, tmp_path):
    picture = drawn(two_levels, tmp_path)
    line = strip_start(picture)
    floor = np.argwhere((picture[:line] != BACKGROUND).any(axis=-1))
    pixels_per_metre = (floor[:, 1].max() - floor[:, 1].min() + 1) / FLOOR_M
    legend = picture[line + 1:]
    ink_run = max(longest_run((row == INK).all(axis=-1)) for row in legend)  # the bar: the longest line of ink
    assert ink_run == pytest.approx(scale_bar_length(FLOOR_M) * pixels_per_metre, abs=3)


@pytest.mark.parametrize("span, bar", [(48.0, 10.0), (20.0, 5.0), (9.0, 2.0), (0.5, 0.1), (4000.0, 1000.0)])
def test_scale_bar_length_is_round_and_at_most_a_quarter_of_the_map(span, bar):
    assert scale_bar_length(span) == pytest.approx(bar)


def test_level_colours_repeat_after_the_last(two_levels):
    assert level_colour(7) == level_colour(1) and level_colour(0) != level_colour(1)


def test_bad_size_is_refused(two_levels, tmp_path):
    with pytest.raises(ParameterError) as excinfo:
        navmesh_png(two_levels, tmp_path / "x.png", size=8)
    assert excinfo.value.parameter == "size" and not list(tmp_path.iterdir())


def test_the_strip_shows_the_axes(two_levels, tmp_path):
    picture = drawn(two_levels, tmp_path)
    legend = picture[strip_start(picture) + 1:]
    ink = (np.abs(legend - INK).sum(axis=-1) == 0)
    columns = np.flatnonzero(ink.any(axis=0))
    # The axes at the strip's left: a vertical ink run (the z arrow) and a horizontal one (the x arrow) as long.
    down = max(longest_run(ink[:, c]) for c in columns[:8])
    across = max(longest_run(row[:columns[0] + 4 * down]) for row in ink)
    assert down >= 10 and across >= down - 2
