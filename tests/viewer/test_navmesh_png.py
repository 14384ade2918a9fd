"""The navmesh top view (voxelworld.viewer.navmesh_png): levels in the page's colours, a legend of the levels
present (with their areas) and the islands, a scale bar as long as its label says at the map's scale, and a strip
laid out so that nothing in it touches anything else."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from voxelworld.errors import ParameterError
from voxelworld.navigation import WalkableGrid, navmesh_from_grids
from voxelworld.viewer.navmesh_png import (
    BACKGROUND,
    INK,
    legend_entries,
    level_colour,
    navmesh_png,
    scale_bar_length,
    strip_layout,
)

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


# --- the strip's layout: legend entries, the scale bar, no overlaps -------------------------------------------------

def square(metres: float, cells: int = 8, levels: int = 1):
    """A navmesh of ``levels`` stacked squares ``metres`` wide (2 m apart in height), not linked to each other."""
    cell = metres / cells
    grids = [WalkableGrid(np.ones((cells, cells), bool), np.full((cells, cells), 2.0 * n), 0.0, 0.0, cell)
             for n in range(levels)]
    return navmesh_from_grids(grids)


def test_the_legend_names_each_level_with_its_area_and_counts_the_islands(two_levels):
    # The fixture: a 20 m x 20 m floor (level 0) and a 6 m x 6 m table top (level 1), not joined: two islands.
    assert legend_entries(two_levels) == (("level 0: 400 m²", level_colour(0)), ("level 1: 36.0 m²", level_colour(1)),
                                          ("not walkable", BACKGROUND), ("2 islands", None))
    seven = legend_entries(square(3.0, levels=7))  # 9 m² each; the seventh level takes the first colour again
    assert [text for text, _ in seven[:7]] == [f"level {n}: 9.0 m²" for n in range(7)]
    assert seven[6][1] == level_colour(0) and seven[-1] == ("7 islands", None)
    assert legend_entries(square(0.5))[0][0] == "level 0: 0.25 m²" and legend_entries(square(0.5))[-1][0] == "1 island"


@pytest.mark.parametrize("metres, size", [(0.8, 200), (7.0, 400), (20.0, 1024), (130.0, 1024), (4000.0, 600)])
def test_the_scale_bar_is_a_round_length_drawn_at_the_map_scale(metres, size):
    layout = strip_layout(square(metres), size)
    mantissa = layout.bar_metres / 10.0 ** np.floor(np.log10(layout.bar_metres))
    assert min(abs(mantissa - m) for m in (1.0, 2.0, 5.0)) < 1e-9  # 1, 2 or 5 times a power of ten
    assert metres / 10 < layout.bar_metres <= metres / 4  # the largest round length up to a quarter of the map
    assert 0.9 * size <= layout.scale * metres < size  # the map's side takes the picture's size, less margins
    assert layout.bar_pixels == round(layout.bar_metres * layout.scale)
    (bar,) = [item for item in layout.items if item.kind == "bar"]
    assert bar.box[2] - bar.box[0] == layout.bar_pixels
    (label,) = [item for item in layout.items if item.kind == "bar label"]
    assert label.text == f"{layout.bar_metres:g} m" and label.box[0] > bar.box[2]


def touching(a, b) -> bool:
    """Whether two boxes (x0, y0, x1, y1, ends included) overlap or share an edge."""
    return not (a[2] + 1 < b[0] or b[2] + 1 < a[0] or a[3] + 1 < b[1] or b[3] + 1 < a[1])


@pytest.mark.parametrize("size", [64, 400, 1024])
@pytest.mark.parametrize("levels", [1, 2, 7])
def test_nothing_in_the_strip_touches_anything_else_and_all_of_it_fits(size, levels):
    layout = strip_layout(square(10.0, levels=levels), size)
    items = layout.items
    for i, a in enumerate(items):
        x0, y0, x1, y1 = a.box
        assert 0 <= x0 <= x1 < layout.width and layout.map_height < y0 <= y1 < layout.height, a
        for b in items[i + 1:]:
            if {a.kind, b.kind} != {"x arrow", "z arrow"}:  # the two arrows meet at the axes' corner
                assert not touching(a.box, b.box), (a, b)
    kinds = [item.kind for item in items]
    assert kinds.count("swatch") == levels + 1 and kinds.count("superscript") == levels  # m² per level
    assert [item.text for item in items if item.kind == "text"][-1] == f"{levels} island{'s' * (levels > 1)}"
    z_arrow, z_label = (next(item for item in items if item.kind == kind) for kind in ("z arrow", "z label"))
    assert z_label.box[0] > z_arrow.box[2] + 1  # the z label stands clear of its arrow


def test_the_picture_draws_what_the_layout_says(two_levels, tmp_path):
    layout = strip_layout(two_levels, 600)
    picture = np.asarray(Image.open(navmesh_png(two_levels, tmp_path / "nav.png", size=600)).convert("RGB"))
    assert picture.shape == (layout.height, layout.width, 3)
    strip = picture.astype(int).copy()
    for item in layout.items:
        x0, y0, x1, y1 = item.box
        inside = strip[y0:y1 + 1, x0:x1 + 1]
        assert (inside != BACKGROUND).any(axis=-1).any(), item  # something is drawn in every box
        if item.kind == "swatch":
            assert has(inside, item.colour)
        strip[y0:y1 + 1, x0:x1 + 1] = BACKGROUND
    strip[layout.map_height] = BACKGROUND  # the line between the map and the strip
    assert not (strip[layout.map_height:] != BACKGROUND).any(), "ink outside the layout's boxes"
    (bar,) = [item for item in layout.items if item.kind == "bar"]
    middle = (bar.box[1] + bar.box[3]) // 2
    assert longest_run((picture[middle].astype(int) == INK).all(axis=-1)) == layout.bar_pixels + 1


def test_a_turned_navmesh_says_its_corner_is_in_the_regions_frame():
    from voxelworld.navigation import NavMesh
    from voxelworld.navigation.navmesh import ARRAY_NAMES

    upright = square(10.0)
    turned = NavMesh(*(getattr(upright, name) for name in ARRAY_NAMES),
                     frame=np.hstack([[[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], np.zeros((3, 1))]))
    texts = [next(item.text for item in strip_layout(mesh).items if item.kind == "origin")
             for mesh in (upright, turned)]
    assert texts[0] == "top-left corner: x 0.0, z 0.0 m"
    assert texts[1] == "top-left corner: x 0.0, z 0.0 m in the turned region's own frame"
