"""`voxelworld motion plot`: the swing with and without a wall, as a PNG."""

from __future__ import annotations


import numpy as np
import pytest
from PIL import Image

from voxelworld import cli

from .assets import CESIUM_MAN as GLB


def test_plot_writes_a_png_that_is_not_blank(tmp_path, capsys):
    out = tmp_path / "motion.png"
    assert cli.main(["motion", "plot", "--out", str(out), "--glb", str(GLB), "--seconds", "2"]) == 0
    pixels = np.asarray(Image.open(out).convert("RGB")).reshape(-1, 3)
    assert len({tuple(p) for p in pixels[::37]}) > 5
    assert "Wrote" in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir()] == ["motion.png"]  # no temporary left behind


@pytest.mark.parametrize("args, word", [
    (["--out", "motion.txt"], "--out"),
    (["--out", "missing-folder/motion.png"], "--out"),
    (["--out", "motion.png", "--wall-x", "-1"], "--wall-x"),
    (["--out", "motion.png", "--seconds", "0"], "--seconds"),
    (["--out", "motion.png", "--glb", "nowhere.glb"], "--glb"),
])
def test_plot_refuses_bad_arguments(tmp_path, capsys, args, word):
    args = [a if not a.endswith((".png", ".txt")) else str(tmp_path / a) for a in args]
    if "--glb" not in args:
        args += ["--glb", str(GLB)]
    assert cli.main(["motion", "plot", *args]) == 2
    assert word in capsys.readouterr().err
