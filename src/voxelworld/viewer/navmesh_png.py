"""A top view of a navmesh as a PNG: walkable polygons filled by level, everything else (cut-out obstacles,
drops, walls) left as background. For people who would rather look than read numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from ..errors import ParameterError, check_integer
from ..files import write_atomically
from ..navigation import NavMesh

__all__ = ["navmesh_png", "LEVEL_COLOURS"]

LEVEL_COLOURS = [(86, 164, 88), (232, 160, 48), (72, 132, 214), (196, 80, 160), (120, 200, 200), (200, 200, 80)]
BACKGROUND = (38, 38, 44)


def navmesh_png(mesh: NavMesh, path, size: int = 1024) -> Path:
    """Draw ``mesh`` from above (x to the right, z downwards), its longer side ``size`` pixels, and write it to
    ``path`` atomically. Polygons are filled with their level's colour and outlined a shade darker.

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
    margin = 8
    scale = (size - 2 * margin) / span
    width = int(np.ceil((hi[0] - lo[0]) * scale)) + 2 * margin
    height = int(np.ceil((hi[1] - lo[1]) * scale)) + 2 * margin
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for q in range(mesh.polygon_count):
        colour = LEVEL_COLOURS[int(mesh.polygon_level[q]) % len(LEVEL_COLOURS)]
        corners = [(margin + (x - lo[0]) * scale, margin + (z - lo[1]) * scale) for x, _, z in mesh.polygon(q)]
        draw.polygon(corners, fill=colour, outline=tuple(int(c * 0.7) for c in colour))
    return write_atomically(path, lambda file: image.save(file, format="PNG"))
