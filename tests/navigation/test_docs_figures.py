"""The figures docs/navigation.md gives for nav_test (Recast's demo level) are what the bake gives (issue 33 §4):
the test reads them from the guide and bakes them, so that they cannot drift from the code again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from voxelworld.navigation import NavSettings, Scene, SearchRegion
from voxelworld.navigation.bake import bake

from ..assets import NAV_TEST

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "navigation.md"
RECAST = NavSettings.from_recast(cell_size=0.3, agent_height=2.0, agent_radius=0.6, agent_max_climb=0.9,
                                 agent_max_slope=45, region_min_size=8)
CORNERS = (3, 4, 5, 6, 8)
FIGURES = re.compile(
    r"On nav_test with Recast's demo parameters, baked over the level's bounds widened by 1 m \(as "
    r"`benchmarks/navigation.py` bakes it\), this gives (?P<polygons>\d+) polygons of at most 6 corners "
    r"\(Recast: 155\), (?P<area>\d[\d ]*) m² \(Recast: 4 002\) in (?P<islands>\d+) islands; `max_corners` "
    r"3, 4, 5, 6 and 8 give (?P<by_corners>\d+(?:, \d+)* and \d+) polygons")


def stated() -> dict[str, str]:
    """The figures the guide states for nav_test (its text with line breaks and indents as single spaces)."""
    match = FIGURES.search(" ".join(GUIDE.read_text(encoding="utf-8").split()))
    assert match, "docs/navigation.md no longer states nav_test's figures in the sentence this test reads"
    return match.groupdict()


def test_the_guide_states_nav_tests_figures_as_the_bake_gives_them():
    figures = stated()
    scene = Scene.from_obj(NAV_TEST)
    lo, hi = scene.bounds()
    region = SearchRegion(tuple(lo - 1.0), tuple(hi + 1.0))  # as benchmarks/navigation.py bakes it
    meshes = {corners: bake(scene, region, NavSettings(**{**RECAST.__dict__, "max_corners": corners}))
              for corners in CORNERS}
    six = meshes[6]
    assert int(figures["polygons"]) == six.polygon_count
    assert int(figures["area"].replace(" ", "")) == round(six.area())
    assert int(figures["islands"]) == len(six.islands())
    by_corners = [int(n) for n in re.split(r", | and ", figures["by_corners"])]
    assert by_corners == [meshes[corners].polygon_count for corners in CORNERS]


DEMO_ERROR = re.compile(r"with the demo's 1\.3 m edge error (?P<polygons>\d+) polygons \(Recast 155\)")


def test_the_guide_states_the_polygons_with_the_demos_edge_error_as_the_bake_gives_them():
    match = DEMO_ERROR.search(" ".join(GUIDE.read_text(encoding="utf-8").split()))
    assert match, "docs/navigation.md no longer states the polygons with the demo's 1.3 m edge error"
    scene = Scene.from_obj(NAV_TEST)
    lo, hi = scene.bounds()
    mesh = bake(scene, SearchRegion(tuple(lo - 1.0), tuple(hi + 1.0)),
                NavSettings(**{**RECAST.__dict__, "max_edge_error": 1.3}))
    assert int(match["polygons"]) == mesh.polygon_count


def test_a_figure_that_drifted_is_caught(monkeypatch, tmp_path):
    """The check reads the guide's own numbers: a guide stating the old hand-written 243 polygons fails it."""
    text = GUIDE.read_text(encoding="utf-8")
    drifted = tmp_path / "navigation.md"
    drifted.write_text(re.sub(r"gives \d+ polygons of at most 6", "gives 243 polygons of at most 6", text),
                       encoding="utf-8")
    monkeypatch.setattr(__import__(__name__, fromlist=["GUIDE"]), "GUIDE", drifted)
    with pytest.raises(AssertionError):
        test_the_guide_states_nav_tests_figures_as_the_bake_gives_them()
