"""The achievements bar chart: volume removed per material group (m³), drawn with matplotlib (Agg) into a PNG.

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> achievements_png(folder / "achievements.png", {"rock": 3.5, "soil": 12.0}, thresholds=(1.0, 5.0)).name
'achievements.png'
>>> import shutil; shutil.rmtree(folder)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..errors import ParameterError
from ..files import write_atomically

__all__ = ["achievements_png"]


def achievements_png(path: str | Path, totals: Mapping[str, float], thresholds: Sequence[float] = (),
                     colours: Mapping[str, tuple[float, float, float]] | None = None,
                     title: str = "Volume removed by material group") -> Path:
    """Draw ``totals`` (m³ removed per group, e.g. ``world.achievements()``) as a bar chart, with the award
    ``thresholds`` (m³) as dashed lines, and write it to ``path`` (a .png in an existing folder) atomically.

    ``colours`` gives a bar colour (red, green, blue in 0..1) per group; others take matplotlib's cycle.
    Groups are drawn in name order; with no totals the chart says so.
    """
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    path = Path(path)
    if path.suffix.lower() != ".png" or not path.parent.is_dir():
        raise ParameterError("path", str(path), "a .png file in an existing folder")
    if not isinstance(totals, Mapping):
        raise ParameterError("totals", totals, "a mapping of group name to m³ removed")
    values = {}
    for group, amount in totals.items():
        number = float(amount) if isinstance(amount, (int, float)) and not isinstance(amount, bool) else math.nan
        if not math.isfinite(number) or number < 0:
            raise ParameterError(f"totals[{group!r}]", amount, "a finite number >= 0 (m³)")
        values[str(group)] = number
    levels = []
    for level in thresholds:
        if isinstance(level, bool) or not isinstance(level, (int, float)) or not math.isfinite(level) or level <= 0:
            raise ParameterError("thresholds", thresholds, "finite numbers > 0 (m³)")
        levels.append(float(level))
    colours = dict(colours or {})

    groups = sorted(values)
    figure = Figure(figsize=(6.4, 4.0), dpi=100)
    axes = figure.subplots()
    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    bars = axes.bar(groups, [values[g] for g in groups],
                    color=[colours.get(g, cycle[i % len(cycle)]) for i, g in enumerate(groups)], edgecolor="0.2")
    axes.bar_label(bars, fmt="%.2f", fontsize=8)
    for level in levels:
        axes.axhline(level, color="0.4", linestyle="--", linewidth=1)
        axes.annotate(f"{level:g} m³", (1.0, level), xycoords=("axes fraction", "data"), fontsize=7,
                      ha="right", va="bottom", color="0.3")
    if not groups:
        axes.text(0.5, 0.5, "nothing removed yet", ha="center", va="center", transform=axes.transAxes)
    top = max([*values.values(), *levels, 1.0])
    axes.set(ylabel="removed (m³)", xlabel="material group", title=title, ylim=(0, top * 1.15))
    figure.tight_layout()
    return write_atomically(path, lambda file: figure.savefig(file, format="png"))
