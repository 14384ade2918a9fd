"""The achievements bar chart PNG."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from voxelworld.errors import ParameterError
from voxelworld.viewer.charts import achievements_png


def test_the_chart_is_a_non_blank_png_written_atomically(tmp_path):
    out = achievements_png(tmp_path / "achievements.png", {"soil": 6.0, "rock": 2.5, "wood": 0.4},
                           thresholds=(1.0, 5.0), colours={"rock": (0.49, 0.48, 0.47)})
    assert out == tmp_path / "achievements.png"
    picture = np.asarray(Image.open(out).convert("RGB"))
    assert picture.shape[0] > 100 and picture.shape[1] > 100
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 10  # bars, text and lines, not one flat colour
    assert (picture.sum(axis=2) < 600).mean() > 0.02  # a good share of the pixels is not white
    assert sorted(p.name for p in tmp_path.iterdir()) == ["achievements.png"]  # no temporary file left


def test_an_empty_chart_still_draws(tmp_path):
    out = achievements_png(tmp_path / "empty.png", {})
    assert Image.open(out).size[0] > 100


@pytest.mark.parametrize("args", [
    ("chart.jpg", {"soil": 1.0}, ()), ("missing/chart.png", {"soil": 1.0}, ()), ("chart.png", [1.0], ()),
    ("chart.png", {"soil": -1.0}, ()), ("chart.png", {"soil": float("nan")}, ()), ("chart.png", {"soil": 1}, (0,)),
])
def test_bad_input_raises_parameter_error_and_writes_nothing(tmp_path, args):
    name, totals, thresholds = args
    with pytest.raises(ParameterError):
        achievements_png(tmp_path / name, totals, thresholds)
    assert list(tmp_path.iterdir()) == []


def test_the_viewer_package_gives_the_chart_function_loading_it_only_when_asked():
    # In a fresh interpreter: importing the package leaves the chart module (and what it brings) unloaded; asking
    # the package for the name loads it and gives its function.
    probe = ("import sys, voxelworld.viewer as viewer\n"
             "loaded = 'voxelworld.viewer.charts' in sys.modules\n"
             "function = viewer.achievements_png\n"
             "from voxelworld.viewer.charts import achievements_png\n"
             "print(loaded, function is achievements_png, function.__module__)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "voxelworld.viewer.charts"]
    import voxelworld.viewer as viewer

    assert viewer.achievements_png is achievements_png and "achievements_png" in viewer.__all__
    with pytest.raises(AttributeError, match="no_such_chart"):
        viewer.no_such_chart  # noqa: B018 (the attribute lookup is what is tested)
