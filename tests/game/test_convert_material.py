"""The game's "convert" edit (lava cooled into obsidian) is terrain's VoxelVolume.convert: the same voxels as the
plain rule, the converted volume as reported, and only the chunks it changed marked dirty."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.game.actions import ball_object
from voxelworld.game.edits import VoxelEdit
from voxelworld.game.throwing import Contact, ImpactRules, impact
from voxelworld.terrain import FIELDS, Box, Sphere, VoxelVolume


def lava_pool(chunk_size: int) -> VoxelVolume:
    """A soil floor below y = 2 m with a lava pool in x, z from 2 to 6 m, some lava in the second slot."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 2.0, (16, 10, 16), "soil", voxel_size=0.5,
                                  chunk_size=chunk_size)
    volume.paint(Box((2.0, 0.0, 2.0), (6.0, 2.5, 6.0)), "lava")
    volume.mat_b[::3] = volume.materials.id_of("lava")
    volume.mix[::3] = 200
    return volume


def converted_by_rule(volume: VoxelVolume, shape, source: str, target: str) -> dict[str, np.ndarray]:
    """The rule written plainly over every voxel: a slot holding ``source`` whose sample lies in ``shape``
    (sdf <= 0) holds ``target`` afterwards; every other value stays."""
    table = volume.materials
    samples = volume.index_to_world(np.indices(volume.shape).transpose(1, 2, 3, 0))
    inside = shape.sdf(samples) <= 0
    fields = {name: getattr(volume, name).copy() for name in FIELDS}
    for name in ("mat_a", "mat_b"):
        fields[name][inside & (fields[name] == table.id_of(source))] = table.id_of(target)
    return fields


def test_cooling_lava_converts_the_voxels_of_the_rule_and_dirties_only_the_chunks_it_changed():
    volume = lava_pool(chunk_size=2)
    rules = ImpactRules()
    contact = Contact((4.5, 2.0, 4.5), (0.0, 1.0, 0.0), "lava")
    expected = converted_by_rule(volume, Sphere(contact.point, rules.cool_radius), "lava", "obsidian")
    before = {name: getattr(volume, name).copy() for name in FIELDS}
    versions = volume.chunk_versions.copy()
    volume.take_dirty_chunks()
    result = impact(volume, ball_object(volume, "rock", 0.3, (0, 0, 0)), contact, rules)
    assert result.rule == "cool"
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(volume, name), expected[name], err_msg=name)
    changed = np.zeros(volume.shape, dtype=bool)
    for name in FIELDS:
        changed |= before[name] != getattr(volume, name)
    chunks = {tuple(int(c) for c in index // volume.chunk_size) for index in np.argwhere(changed)}
    lo, hi = volume.voxel_box(Sphere(contact.point, rules.cool_radius))
    assert len(chunks) < int(np.prod(hi // 2 - lo // 2 + 1))  # the range's bounding box spans more chunks
    assert set(result.edit.dirty_chunks) == chunks
    assert volume.take_dirty_chunks() == chunks
    assert {tuple(int(c) for c in index) for index in np.argwhere(volume.chunk_versions != versions)} == chunks
    assert result.edit.voxels_changed == int(changed.sum())


def test_the_convert_edit_reports_the_volume_moved_from_source_to_target():
    volume = lava_pool(chunk_size=8)
    ball = Sphere((3.0, 2.0, 3.0), 1.5)
    density, mix = volume.density.astype(np.int64), volume.mix.astype(np.int64)
    expected = converted_by_rule(volume, ball, "lava", "obsidian")
    moved_a = expected["mat_a"] != volume.mat_a
    moved_b = expected["mat_b"] != volume.mat_b
    units = int((density * (255 - mix))[moved_a].sum() + (density * mix)[moved_b].sum())
    amount = units * volume.voxel_volume / 65025
    result = VoxelEdit("convert", ball, "obsidian", source_material="lava").apply(volume)
    assert amount > 0
    assert result.removed_by_material == {"lava": pytest.approx(amount)}
    assert result.added_by_material == {"obsidian": pytest.approx(amount)}
    assert result.volume_removed == result.volume_added == 0.0
