"""A top view of a navmesh as a PNG: walkable polygons filled by level in the play page's level colours, everything
else (cut-out obstacles, drops, walls) left as background, with a strip below the map in two rows: the axes (x to
the right, z downwards) beside where the map's top-left corner is in world metres and a scale bar (a round length
in metres, drawn at the map's scale), then the legend: each level's colour and walkable area, what the
background means and how many islands there are. For people who would rather look than read numbers.

A navmesh baked in a turned search region (``NavMesh.frame`` set: a wall, a ceiling, a tilted deck) is drawn in
its own frame, the view along the region's down axis: the axes and the corner's position are its own x and z
(the arrays as stored), not the world's, and the strip says so.

:func:`strip_layout` places everything in the strip (a :class:`StripLayout` of boxes that do not touch) and
:func:`navmesh_png` paints it, so what the legend says and where it goes can be checked without reading pixels.

:data:`LEVEL_COLOURS` is the one list of level colours: the page's navmesh overlay (``web/scene.js``) writes the
same values, which ``tests/viewer/test_page_constants.py`` checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..errors import ParameterError, check_integer
from ..files import write_atomically
from ..navigation import NavMesh

__all__ = ["navmesh_png", "LEVEL_COLOURS", "level_colour", "scale_bar_length", "legend_entries", "strip_layout",
           "StripItem", "StripLayout"]

# Navmesh levels 0, 1, ... as 0xRRGGBB (sRGB), level n drawn in LEVEL_COLOURS[n % 6]; web/scene.js has the same.
LEVEL_COLOURS = (0x2AD4FF, 0xFFA020, 0xFF40C0, 0xFFF040, 0x9060FF, 0xFF5050)
BACKGROUND = (38, 38, 44)
INK = (235, 235, 240)  # the legend's and the scale bar's text and lines


def level_colour(level: int) -> tuple[int, int, int]:
    """The (r, g, b) colour of navmesh ``level`` (0, 1, ...), as the page draws it.

    >>> level_colour(0), level_colour(6) == level_colour(0)
    ((42, 212, 255), True)
    """
    value = LEVEL_COLOURS[int(level) % len(LEVEL_COLOURS)]
    return (value >> 16) & 255, (value >> 8) & 255, value & 255


def scale_bar_length(span: float) -> float:
    """A round length (1, 2 or 5 times a power of ten, m) no longer than a quarter of ``span`` (m, > 0), for the
    scale bar of a map ``span`` metres wide.

    >>> scale_bar_length(48.0), scale_bar_length(6.0), scale_bar_length(100.0)
    (10.0, 1.0, 20.0)
    """
    quarter = span / 4
    power = 10.0 ** math.floor(math.log10(quarter))
    return max(step * power for step in (1.0, 2.0, 5.0) if step * power <= quarter)


def legend_entries(mesh: NavMesh) -> tuple[tuple[str, tuple[int, int, int] | None], ...]:
    """The legend of ``mesh``'s top view, as ``(text, swatch colour or None)``: each level present with its walkable
    area (m², on the x-z plane), then the background ("not walkable"), then the number of islands (no swatch).

    >>> import numpy as np
    >>> from voxelworld.navigation import WalkableGrid, navmesh_from_grids
    >>> legend_entries(navmesh_from_grids([WalkableGrid(np.ones((4, 3), bool), np.zeros((4, 3)), 0.0, 0.0, 0.5)]))
    (('level 0: 3.0 m²', (42, 212, 255)), ('not walkable', (38, 38, 44)), ('1 island', None))
    """
    levels = sorted({int(level) for level in mesh.polygon_level})
    islands = len(mesh.islands())
    return tuple((f"level {level}: {_area_text(mesh.area(level))} m²", level_colour(level)) for level in levels) \
        + (("not walkable", BACKGROUND), (f"{islands} island{'s' if islands != 1 else ''}", None))


def _area_text(area: float) -> str:
    """An area in m² to three figures or to the whole m² (3116, 36.0, 0.25)."""
    return f"{area:.0f}" if area >= 100 else f"{area:.3g}" if area < 1 else f"{area:.1f}"


class StripItem(NamedTuple):
    """One thing drawn in the strip under the map: ``kind`` is "x arrow", "z arrow", "x label", "z label",
    "origin", "swatch", "text", "superscript" (the 2 of m², drawn small and raised: the font has no ²), "bar" or
    "bar label"; ``box`` its pixels ``(x0, y0, x1, y1)``, both ends included,
    in the whole picture (a text's box is the ink its font draws); ``text`` what it says, ``colour`` a swatch's,
    ``at`` where a text is drawn from (its left end and the middle of its row, Pillow's anchor "lm")."""

    kind: str
    box: tuple[int, int, int, int]
    text: str = ""
    colour: tuple[int, int, int] | None = None
    at: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class StripLayout:
    """Where everything of a navmesh's top view goes (:func:`strip_layout`).

    Attributes
    ----------
    width, height : int
        The picture's size in pixels.
    map_left, map_top, scale : int, int, float
        Where the map's top-left corner (the mesh's smallest x and z) is drawn, and its pixels per metre.
    map_height : int
        The row of the line between the map and the strip.
    entries : tuple of (str, colour or None)
        The legend (:func:`legend_entries`).
    bar_metres, bar_pixels : float, int
        The scale bar: a round length in metres (:func:`scale_bar_length`) and as many pixels at the map's scale.
    items : tuple of StripItem
        Everything drawn in the strip, no two boxes touching.
    """

    width: int
    height: int
    map_left: int
    map_top: int
    scale: float
    map_height: int
    entries: tuple[tuple[str, tuple[int, int, int] | None], ...]
    bar_metres: float
    bar_pixels: int
    items: tuple[StripItem, ...]


def _font(size: int, superscript: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The strip's font at a picture of ``size`` pixels, or the smaller one of its superscripts."""
    points = max(13, size // 34)  # 13 px at the least: smaller text is hard to read
    return ImageFont.load_default(size=max(6, points * 3 // 5) if superscript else points)


def strip_layout(mesh: NavMesh, size: int = 1024) -> StripLayout:
    """Lay out ``mesh``'s top view, its map's longer side ``size`` pixels (16 to 8192): the map, and below it a
    strip of two rows. The first: the axes (an arrow along +x to the right and one along +z downwards, each
    labelled) and the world position of the map's top-left corner, and at the right the scale bar with its length.
    The second: the legend (:func:`legend_entries`). The picture is widened where the strip needs more room than
    the map, the map centred over it.

    >>> import numpy as np
    >>> from voxelworld.navigation import WalkableGrid, navmesh_from_grids
    >>> mesh = navmesh_from_grids([WalkableGrid(np.ones((40, 20), bool), np.zeros((40, 20)), 0.0, 0.0, 1.0)])
    >>> layout = strip_layout(mesh, size=800)
    >>> layout.bar_metres, layout.bar_pixels == round(layout.bar_metres * layout.scale), layout.entries[0][0]
    (10.0, True, 'level 0: 800 m²')
    """
    if not isinstance(mesh, NavMesh):
        raise ParameterError("mesh", mesh, "a voxelworld.navigation.NavMesh")
    size = check_integer("size", size, minimum=16, maximum=8192, unit="pixels")
    if mesh.polygon_count == 0:
        raise ParameterError("mesh", "an empty navmesh", "a navmesh with at least one polygon")
    xz = mesh.vertices[:, [0, 2]]
    lo, hi = xz.min(axis=0), xz.max(axis=0)
    span = max(float((hi - lo).max()), 1e-9)
    margin = max(8, size // 64)
    scale = (size - 2 * margin) / span  # pixels per m
    map_width = int(np.ceil((hi[0] - lo[0]) * scale)) + 2 * margin
    map_height = int(np.ceil((hi[1] - lo[1]) * scale)) + 2 * margin
    font, small = _font(size), _font(size, superscript=True)
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    line = max(int(measure.textbbox((0, 0), "level 0, gyp", font=font, anchor="lt")[3]), 8)  # a text's height
    gap = max(3, line * 2 // 3)
    tip = max(2, line // 4)  # an arrow head's half width

    def ink(words: str, at: tuple[int, int],
            face: ImageFont.FreeTypeFont | ImageFont.ImageFont) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = measure.textbbox(at, words, font=face, anchor="lm")
        return int(x0), int(y0), int(x1) - 1, int(y1) - 1

    def text(kind: str, x: int, y: int, words: str) -> list[StripItem]:  # left-aligned at x, centred on row y
        base = words[:-1] if words.endswith("²") else words
        items = [StripItem(kind, ink(base, (x, y), font), base, at=(x, y))]
        if base != words:  # the 2 of m², small, its top at the top of the text's tallest letters
            top = items[0].box[1]
            at = (items[0].box[2] + 2, top + (line * 3 // 5) // 2)
            box = ink("2", at, small)
            at = (at[0], at[1] + top - box[1])
            items.append(StripItem("superscript", ink("2", at, small), "2", at=at))
        return items

    entries = legend_entries(mesh)
    bar_metres = scale_bar_length(span)
    bar_pixels = int(round(bar_metres * scale))
    first = map_height + gap + line // 2  # the rows' middles
    second = first + line + gap
    corner = (margin + tip, map_height + gap)  # the axes' corner: x arrow to the right, z arrow down
    arrow = second + line // 2 - corner[1]  # both arrows as long as the two rows are high
    items = [StripItem("x arrow", (corner[0], corner[1] - tip, corner[0] + arrow, corner[1] + tip)),
             StripItem("z arrow", (corner[0] - tip, corner[1], corner[0] + tip, corner[1] + arrow))]
    items += text("x label", corner[0] + arrow + gap // 2, corner[1], "x")
    items += text("z label", corner[0] + tip + gap // 2, corner[1] + arrow - line // 2, "z")
    x = max(items[2].box[2], items[3].box[2]) + 1 + gap  # the rows start right of the axes and their labels
    where = "" if mesh.frame is None else " in the turned region's own frame"  # not the world's axes: say so
    items += text("origin", x, first, f"top-left corner: x {lo[0]:.1f}, z {lo[1]:.1f} m{where}")
    row_end = items[-1].box[2]
    legend = []
    for words, colour in entries:  # a swatch (outlined, so that the background's shows) and its words
        if colour is not None:
            legend.append(StripItem("swatch", (x, second - line // 2, x + line - 1, second + line // 2 - 1), "",
                                    colour))
            x += line + gap // 2
        legend += text("text", x, second, words)
        x = legend[-1].box[2] + 1 + 2 * gap
    items += legend
    bar_label = f"{bar_metres:g} m"
    label_width = text("bar label", 0, first, bar_label)[0].box[2] + 1
    needed = max(row_end + 3 * gap + bar_pixels + gap + label_width, x - 2 * gap) + margin
    width = max(map_width, needed)
    right = width - margin - label_width  # the bar label ends at the right margin
    bar_right = right - gap
    items.append(StripItem("bar", (bar_right - bar_pixels, first - line // 2, bar_right, first + line // 2)))
    items += text("bar label", right, first, bar_label)
    height = second + line // 2 + gap + margin
    return StripLayout(width, height, margin + (width - map_width) // 2, margin, scale, map_height, entries,
                       bar_metres, bar_pixels, tuple(items))


def navmesh_png(mesh: NavMesh, path: str | Path, size: int = 1024) -> Path:
    """Draw ``mesh`` from above (x to the right, z downwards), the map's longer side ``size`` pixels (16 to
    8192), with the strip of :func:`strip_layout` below it (the axes, the map's corner in world metres, a scale
    bar, and the legend: each level's colour and area, the background, the island count), and write it to
    ``path`` atomically. Polygons are filled with their level's colour (:func:`level_colour`) and outlined a shade
    darker.

    Examples
    --------
    >>> import tempfile, os, numpy as np
    >>> from voxelworld.navigation import WalkableGrid, navmesh_from_grids
    >>> mesh = navmesh_from_grids([WalkableGrid(np.ones((4, 4), bool), np.zeros((4, 4)), 0.0, 0.0, 1.0)])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = navmesh_png(mesh, os.path.join(folder, "nav.png"), size=64)
    ...     written.stat().st_size > 0
    True
    """
    layout = strip_layout(mesh, size)
    lo = mesh.vertices[:, [0, 2]].min(axis=0)
    font, small = _font(size), _font(size, superscript=True)
    image = Image.new("RGB", (layout.width, layout.height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for q in range(mesh.polygon_count):
        colour = level_colour(mesh.polygon_level[q])
        corners = [(layout.map_left + (x - lo[0]) * layout.scale, layout.map_top + (z - lo[1]) * layout.scale)
                   for x, _, z in mesh.polygon(q)]
        draw.polygon(corners, fill=colour, outline=tuple(int(c * 0.7) for c in colour))
    draw.line([(0, layout.map_height), (layout.width, layout.map_height)], fill=tuple(c + 30 for c in BACKGROUND),
              width=1)
    for item in layout.items:
        x0, y0, x1, y1 = item.box
        if item.kind == "x arrow":  # a shaft along the box's middle row and a head at its right end
            middle, head = (y0 + y1) // 2, y1 - y0
            draw.line([(x0, middle), (x1 - head // 2, middle)], fill=INK, width=2)
            draw.polygon([(x1, middle), (x1 - head, y0), (x1 - head, y1)], fill=INK)
        elif item.kind == "z arrow":
            middle, head = (x0 + x1) // 2, x1 - x0
            draw.line([(middle, y0), (middle, y1 - head // 2)], fill=INK, width=2)
            draw.polygon([(middle, y1), (x0, y1 - head), (x1, y1 - head)], fill=INK)
        elif item.kind == "swatch":
            draw.rectangle([x0, y0, x1, y1], fill=item.colour, outline=INK)
        elif item.kind == "bar":  # a bar exactly bar_pixels long between two end ticks
            middle = (y0 + y1) // 2
            draw.rectangle([x0, middle - 1, x1, middle + 1], fill=INK)
            for end in (x0, x1):
                draw.line([(end, y0), (end, y1)], fill=INK, width=1)
        else:  # the texts, drawn where their boxes were measured
            draw.text(item.at, item.text, fill=INK, font=small if item.kind == "superscript" else font, anchor="lm")
    return write_atomically(path, lambda file: image.save(file, format="PNG"))
