"""A top view of a navmesh as a PNG: walkable polygons filled by level in the play page's level colours, everything
else (cut-out obstacles, drops, walls) left as background, with a strip below the map: the axes (x to the right, z
downwards, from the map's top-left corner in world metres), a legend of the levels and the island count, and a
scale bar. For people who would rather look than read numbers.

:data:`LEVEL_COLOURS` is the one list of level colours: the page's navmesh overlay (``web/scene.js``) writes the
same values, which ``tests/viewer/test_page_constants.py`` checks.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..errors import ParameterError, check_integer
from ..files import write_atomically
from ..navigation import NavMesh

__all__ = ["navmesh_png", "LEVEL_COLOURS", "level_colour", "scale_bar_length"]

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


def navmesh_png(mesh: NavMesh, path, size: int = 1024) -> Path:
    """Draw ``mesh`` from above (x to the right, z downwards), the map's longer side ``size`` pixels (16 to
    8192), with a strip below it for the axes, the legend (each level present, what the background means, how many
    islands) and a scale bar, and write it to ``path`` atomically. Polygons are filled with their level's colour
    (:func:`level_colour`) and outlined a shade darker.

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
    font = ImageFont.load_default(size=max(8, size // 40))
    levels = sorted({int(level) for level in mesh.polygon_level})
    islands = len(mesh.islands())
    entries = [(f"level {level}", level_colour(level)) for level in levels] + [("not walkable", BACKGROUND)] \
        + [(f"{islands} island{'s' if islands != 1 else ''}", None)]
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    line = max(int(measure.textbbox((0, 0), "level 0", font=font)[3]), 8)  # the text's height
    bar_metres = scale_bar_length(span)
    bar_label = f"{bar_metres:g} m"
    origin = f"from x {lo[0]:.1f}, z {lo[1]:.1f} m"
    axes_width = 3 * line + int(measure.textlength("x", font=font)) + int(measure.textlength(origin, font=font))
    legend_width = axes_width + sum(line + line // 2 + int(measure.textlength(text, font=font)) + line
                                    for text, _ in entries)
    bar_width = int(round(bar_metres * scale)) + line // 2 + int(measure.textlength(bar_label, font=font))
    width = max(map_width, legend_width + bar_width + 3 * margin)
    strip = 3 * line + margin  # room for the axes' arrows
    image = Image.new("RGB", (width, map_height + strip), BACKGROUND)
    draw = ImageDraw.Draw(image)
    left_edge = margin + (width - map_width) // 2  # the map centred over a wider legend
    for q in range(mesh.polygon_count):
        colour = level_colour(mesh.polygon_level[q])
        corners = [(left_edge + (x - lo[0]) * scale, margin + (z - lo[1]) * scale) for x, _, z in mesh.polygon(q)]
        draw.polygon(corners, fill=colour, outline=tuple(int(c * 0.7) for c in colour))
    top = map_height + (strip - 2 * line) // 2
    draw.line([(0, map_height), (width, map_height)], fill=tuple(c + 30 for c in BACKGROUND), width=1)
    x = margin
    # The axes: an arrow along +x (right) and one along +z (down) from one corner, and where the map's corner is.
    tip = max(2, line // 4)
    draw.line([(x, top), (x + 2 * line, top)], fill=INK, width=2)
    draw.polygon([(x + 2 * line, top), (x + 2 * line - tip, top - tip), (x + 2 * line - tip, top + tip)], fill=INK)
    draw.line([(x, top), (x, top + 2 * line)], fill=INK, width=2)
    draw.polygon([(x, top + 2 * line), (x - tip, top + 2 * line - tip), (x + tip, top + 2 * line - tip)], fill=INK)
    draw.text((x + 2 * line + tip, top), "x", fill=INK, font=font, anchor="lm")
    draw.text((x + tip + 1, top + 2 * line - tip), "z", fill=INK, font=font, anchor="lb")
    x += 2 * line + tip + int(measure.textlength("x", font=font)) + line // 2
    draw.text((x, top + line // 2), origin, fill=INK, font=font, anchor="lm")
    x += int(measure.textlength(origin, font=font)) + line
    for text, colour in entries:  # a swatch (outlined, so that the background's shows) and its words
        if colour is not None:
            draw.rectangle([x, top, x + line, top + line], fill=colour, outline=INK)
            x += line + line // 2
        draw.text((x, top + line // 2), text, fill=INK, font=font, anchor="lm")
        x += int(measure.textlength(text, font=font)) + line
    right = width - margin - int(measure.textlength(bar_label, font=font)) - line // 2
    left = right - int(round(bar_metres * scale))  # exactly bar_metres long at the map's scale
    draw.rectangle([left, top + line // 2 - 1, right, top + line // 2 + 1], fill=INK)
    for end in (left, right):
        draw.line([(end, top), (end, top + line)], fill=INK, width=2)
    draw.text((right + line // 2, top + line // 2), bar_label, fill=INK, font=font, anchor="lm")
    return write_atomically(path, lambda file: image.save(file, format="PNG"))
