"""`voxelworld motion plot`: the second action in each medium against the free run, as a PNG, and the measured
motion it draws."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from voxelworld import cli
from voxelworld.viewer.motion_plot import MEDIA, measured_shares, medium_runs

from .assets import CESIUM_MAN as GLB


@pytest.mark.parametrize("medium", MEDIA)
def test_plot_writes_a_png_that_is_not_blank(tmp_path, capsys, medium):
    out = tmp_path / "motion.png"
    assert cli.main(["motion", "plot", "--out", str(out), "--glb", str(GLB), "--seconds", "1.5",
                     "--medium", medium]) == 0
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
    (["--out", "motion.png", "--medium", "lava"], "--medium"),
    (["--out", "motion.png", "--blade-roll", "120"], "--blade-roll"),
])
def test_plot_refuses_bad_arguments(tmp_path, capsys, args, word):
    args = [a if not a.endswith((".png", ".txt")) else str(tmp_path / a) for a in args]
    if "--glb" not in args:
        args += ["--glb", str(GLB)]
    assert cli.main(["motion", "plot", *args]) == 2
    assert word in capsys.readouterr().err


def test_the_plotted_shares_are_the_measured_motion_of_each_medium():
    rock = medium_runs("rock", GLB, seconds=1.5)
    shares = measured_shares(rock["with"], rock["free"])
    assert shares["hips"] == pytest.approx(0.1, abs=0.03)  # the body at a tenth
    assert shares["tool tip"] < shares["hips"] and shares["elbow"] < shares["shoulder"] < shares["hips"]
    water = medium_runs("water", GLB, seconds=1.5)
    assert water["with"].touching.any() and not water["free"].touching.any()
    wet = measured_shares(water["with"], water["free"])
    assert wet["wrist"] < 0.6 and wet["elbow"] < 0.6  # the arm swung down into the water: well below the free run
    run = water["with"]
    assert run.rates["wrist"].min() < run.rates["shoulder"].min() < 1.0  # the hand goes deepest: slowest
    square, feathered = (medium_runs("oar", GLB, seconds=1.0, blade_roll=roll) for roll in (0.0, 90.0))
    assert measured_shares(square["with"], square["free"])["elbow"] < measured_shares(
        feathered["with"], feathered["free"])["elbow"]
    edge, flat = (medium_runs("shovel", GLB, seconds=1.5, blade_roll=roll)["with"] for roll in (0.0, 90.0))
    assert edge.touching.sum() > 30 and flat.rates["wrist"][flat.touching].mean() < edge.rates["wrist"][
        edge.touching].mean()
