"""Bad arguments to the subcommands other than navmesh bake (see test_cli_navmesh.py for those): one line naming
the option, checked before the slow work starts, never a traceback."""

from __future__ import annotations

from voxelworld import cli
from voxelworld.cli import demo_world


def test_render_refuses_an_out_that_is_a_folder_before_building_the_world(tmp_path, capsys, monkeypatch):
    def no_world(*args, **kwargs):
        raise AssertionError("the world was built before --out was checked")

    monkeypatch.setattr(demo_world, "demo_terrain", no_world)
    assert cli.main(["render", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err  # (after the compile notice, where the kernels were not compiled yet)
    assert err.splitlines()[-1].startswith("voxelworld: --out = ") and "existing folder" in err
    assert "Traceback" not in err
