"""`voxelworld render` frames the world: its surface, not the world's box of air, fills the picture."""

from __future__ import annotations

import numpy as np
import pytest

import voxelworld.viewer as viewer
from voxelworld import cli
from voxelworld.meshing import MeshOptions, mesh_volume
from voxelworld.terrain import demo_terrain
from voxelworld.viewer import Camera


def ndc(camera: Camera, points, aspect: float) -> np.ndarray:
    homogeneous = np.c_[np.asarray(points, dtype=np.float64), np.ones(len(points))]
    clip = homogeneous @ (camera.projection_matrix(aspect) @ camera.view_matrix()).T
    return clip[:, :2] / clip[:, 3:]


@pytest.mark.parametrize("width, height, gain", [(960, 540, 1.8), (400, 600, 1.15)])
def test_render_fits_the_world_s_surface_to_the_picture(tmp_path, monkeypatch, capsys, width, height, gain):
    drawn = {}

    def keep(meshes, path, **kwargs):  # what the command would draw, without drawing it
        drawn.update(kwargs, meshes=meshes)
        return path

    monkeypatch.setattr(viewer, "snapshot", keep)
    assert cli.main(["render", "--out", str(tmp_path / "shot.png"), "--width", str(width),
                     "--height", str(height)]) == 0
    camera, display, aspect = drawn["camera"], drawn["meshes"], width / height
    seen = display.positions[display.normals @ np.subtract(camera.eye, camera.target) > 0]
    projected = ndc(camera, seen, aspect)
    assert np.all(np.abs(projected) <= 1.0)  # all of it in the picture
    assert np.abs(projected).max() == pytest.approx(1 / 1.08, abs=0.01)  # touching the margin on one axis
    assert projected.max(axis=0) == pytest.approx(-projected.min(axis=0), abs=0.01)  # centred
    volume = demo_terrain(0)
    box = Camera.looking_at_bounds(volume.origin, volume.origin + volume.voxel_size * np.array(volume.shape),
                                   aspect=aspect)
    area = [float(np.prod(np.ptp(ndc(c, seen, aspect), axis=0))) for c in (box, camera)]
    assert area[1] > gain * area[0]  # the box's framing left much of the picture to the air (the most when wide)


def test_render_with_an_eye_keeps_framing_the_box(tmp_path, monkeypatch):
    drawn = {}
    monkeypatch.setattr(viewer, "snapshot", lambda meshes, path, **kwargs: drawn.update(kwargs) or path)
    assert cli.main(["render", "--out", str(tmp_path / "s.png"), "--eye", "-60", "20", "48"]) == 0
    assert drawn["camera"].eye == (-60.0, 20.0, 48.0)
    assert mesh_volume(demo_terrain(0), MeshOptions()).triangle_count > 0
