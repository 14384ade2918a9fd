"""Edits on VoxelVolume: kernels against plain-Python references, properties, the hardness gate, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voxelworld.errors import ParameterError
from voxelworld.terrain import FIELDS, Box, Capsule, Cylinder, Sphere, Tool, VoxelVolume

from . import reference

SOFT, MEDIUM, HARD = "soil", "rock", "iron"  # hardness 1.5, 5 and 10 in the default table


def random_volume(seed: int, shape=(10, 9, 11), chunk_size: int = 4, layered: bool = False) -> VoxelVolume:
    """A small volume with random densities, materials (soft, medium, hard), mixes and damage."""
    rng = np.random.default_rng(seed)
    volume = VoxelVolume(shape, voxel_size=0.5, origin=(-1.0, 2.0, 0.25), chunk_size=chunk_size)
    ids = [volume.materials.id_of(name) for name in ("grass", SOFT, MEDIUM, HARD, "lava")]
    if layered:  # solid below a wavy surface, so there is an inside that scrape must not hollow
        j = np.arange(shape[1])[None, :, None]
        surface = 4 + rng.integers(-1, 2, size=(shape[0], 1, shape[2]))
        volume.density[...] = np.where(j < surface, 255, np.where(j == surface, 100, 0))
    else:
        volume.density[...] = rng.choice([0, 0, 40, 127, 128, 200, 255, 255], size=shape)
    volume.mat_a[...] = rng.choice(ids, size=shape)
    volume.mat_b[...] = rng.choice([0] + ids, size=shape)
    volume.mix[...] = rng.choice([0, 0, 64, 128, 255], size=shape)
    volume.damage[...] = rng.choice([0, 0, 50, 90], size=shape)
    return volume


def snapshot(volume: VoxelVolume) -> dict[str, np.ndarray]:
    return {name: getattr(volume, name).copy() for name in FIELDS}


def changed_chunks(before: dict, volume: VoxelVolume) -> set:
    changed = np.zeros(volume.shape, dtype=bool)
    for name in FIELDS:
        changed |= before[name] != getattr(volume, name)
    return {tuple(int(c) for c in idx // volume.chunk_size) for idx in np.argwhere(changed)}


shapes_strategy = st.builds(
    lambda kind, c, r, e: (Sphere(c, r) if kind == 0 else Box(c, tuple(v + 2 * r for v in c)) if kind == 1 else
                           Capsule(c, (c[0] + e, c[1], c[2] - e), r) if kind == 2 else
                           Cylinder(c, (c[0], c[1] + e + 0.1, c[2]), r)).expanded(0.0 if kind % 2 else 0.25),
    st.integers(0, 3),
    st.tuples(*[st.floats(-1.0, 6.0, allow_nan=False)] * 3),
    st.floats(0.0, 3.0),
    st.floats(0.0, 2.0),
)
tools_strategy = st.builds(Tool, st.integers(0, 60), st.sampled_from([1.0, 3.0]), st.sampled_from([6.0, 12.0]),
                           st.integers(1, 120))


def check_result_matches_volumes(volume, before_volume, before_by_id, result):
    """The volumes an EditResult reports equal the change of solid_volume() / solid_volume_by_material()."""
    after_by_id = reference.material_amounts(volume)
    unit = volume.voxel_volume / 65025.0
    assert result.volume_added - result.volume_removed == pytest.approx(volume.solid_volume() - before_volume,
                                                                       abs=1e-9)
    names = volume.materials.name_by_id
    for material in set(before_by_id) | set(after_by_id):
        delta = (after_by_id.get(material, 0) - before_by_id.get(material, 0)) * unit
        name = names[material]
        reported = result.added_by_material.get(name, 0.0) - result.removed_by_material.get(name, 0.0)
        assert reported == pytest.approx(delta, abs=1e-9), name
    after = volume.solid_volume_by_material()
    before_named = {names[m]: v * unit for m, v in before_by_id.items()}
    for name in set(after) | set(before_named):
        reported = result.added_by_material.get(name, 0.0) - result.removed_by_material.get(name, 0.0)
        assert reported == pytest.approx(after.get(name, 0.0) - before_named.get(name, 0.0), abs=1e-9)
    groups = {}
    for name, value in result.removed_by_material.items():
        group = volume.materials[name].group if name != "none" else "none"
        groups[group] = groups.get(group, 0.0) + value
    assert groups.keys() == result.removed_by_group.keys()
    for group, value in groups.items():
        assert result.removed_by_group[group] == pytest.approx(value, abs=1e-12)
    if result.removed_by_material:
        most = max(result.removed_by_material.values())
        assert result.removed_by_material[result.most_removed_material] == most
    else:
        assert result.most_removed_material is None


EDITS = {
    "remove": lambda v, shape, tool: v.remove(shape, tool=tool),
    "scrape": lambda v, shape, tool: v.scrape(shape, step=50, tool=tool),
    "add": lambda v, shape, tool: v.add(shape, "sand"),
    "paint": lambda v, shape, tool: v.paint(shape, "ice"),
    "expose_interior": lambda v, shape, tool: v.expose_interior(shape),
    "convert": lambda v, shape, tool: v.convert(shape, MEDIUM, "obsidian"),
    "remove_fragments": lambda v, shape, tool: v.remove_fragments(Box(*shape.bounds())),
}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), shape=shapes_strategy, tool=tools_strategy, edit=st.sampled_from(sorted(EDITS)))
def test_reported_volumes_and_dirty_chunks_match_the_change(seed, shape, tool, edit):
    volume = random_volume(seed)
    before = snapshot(volume)
    before_volume, before_by_id = volume.solid_volume(), reference.material_amounts(volume)
    volume.take_dirty_chunks()
    result = EDITS[edit](volume, shape, tool)
    check_result_matches_volumes(volume, before_volume, before_by_id, result)
    touched = changed_chunks(before, volume)
    assert set(result.dirty_chunks) == touched
    assert volume.take_dirty_chunks() == touched


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), shape=shapes_strategy, tool=tools_strategy)
def test_remove_matches_reference_and_never_raises_density(seed, shape, tool):
    volume = random_volume(seed)
    before = volume.density.copy()
    expected = reference.lower(volume, shape, tool)
    result = volume.remove(shape, tool=tool)
    assert np.all(volume.density <= before)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(volume, name), expected["fields"][name], err_msg=name)
    assert (result.voxels_changed, result.voxels_blocked, result.voxels_damaged) == (
        expected["changed"], expected["blocked"], expected["damaged"])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), shape=shapes_strategy, tool=tools_strategy, step=st.integers(1, 255))
def test_scrape_matches_reference_and_only_peels_exposed_voxels(seed, shape, tool, step):
    volume = random_volume(seed, layered=seed % 2 == 0)
    before = volume.density.copy()
    expected = reference.lower(volume, shape, tool, step)
    result = volume.scrape(shape, step=step, tool=tool)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(volume, name), expected["fields"][name], err_msg=name)
    assert (result.voxels_changed, result.voxels_blocked, result.voxels_damaged) == (
        expected["changed"], expected["blocked"], expected["damaged"])
    # The property itself, independently of the reference: a lowered voxel had a below-iso neighbour.
    for i, j, k in np.argwhere(volume.density < before):
        neighbourhood = before[max(i - 1, 0):i + 2, max(j - 1, 0):j + 2, max(k - 1, 0):k + 2]
        assert (neighbourhood < volume.iso).any()
        assert volume.density[i, j, k] == max(int(before[i, j, k]) - step, 0)


def test_repeated_scrape_peels_layer_by_layer_and_never_hollows():
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 10.0, (16, 20, 16), material=SOFT)
    ball = Sphere((8.0, 10.0, 8.0), 6.0)
    deepest = []
    for _ in range(12):
        volume.scrape(ball, step=128)
        solid = volume.density >= volume.iso
        # Every column stays solid from the bottom up to its top: no pocket opened under the surface.
        for i in range(16):
            for k in range(16):
                column = solid[i, :, k]
                top = np.flatnonzero(column).max() if column.any() else -1
                assert column[:top + 1].all()
        deepest.append(int((~solid[8, :, 8]).sum()))
    assert deepest == sorted(deepest) and deepest[-1] > deepest[0]


def rock_slab_on_iron(layers: int) -> VoxelVolume:
    """The design's case: a slab of rock ``layers`` voxels deep over a floor of iron, air above, covering the
    whole x/z extent (so only its top is exposed)."""
    volume = VoxelVolume((6, layers + 4, 6))
    volume.density[:, :layers + 1] = 255
    volume.mat_a[:, 0] = volume.materials.id_of(HARD)
    volume.mat_a[:, 1:layers + 1] = volume.materials.id_of(MEDIUM)
    return volume


@pytest.mark.parametrize("tool, step", [(Tool(), 48), (Tool(damage=40, breaks_at=150), 100)])
def test_scrape_damages_hidden_rock_so_a_lower_layer_gives_way_as_soon_as_it_is_exposed(tool, step):
    """Every scrape adds the tool's damage to every voxel of middling hardness in the range, exposed or not; the
    neighbour rule only decides whether density drops. So the second layer of a rock slab has its damage when
    the first is gone, and the slab goes one set of damage frames sooner than layer by layer."""
    layers = 2
    volume = rock_slab_on_iron(layers)
    everything = Box((-1.0, -1.0, -1.0), tuple(float(n) for n in volume.shape))
    frames_to_break = -(-tool.breaks_at // tool.damage)  # hits until a voxel of middling hardness breaks
    drops_per_layer = (255 - volume.iso) // step + 1  # lowerings until a full voxel is below iso
    top, lower = (slice(None), layers, slice(None)), (slice(None), layers - 1, slice(None))
    first_drop, gone = {}, {}
    for frame in range(1, 4 * frames_to_break * drops_per_layer):
        volume.scrape(everything, step=step, tool=tool)
        if frame == 1:  # the hidden layer took the hit like the exposed one, without losing density
            assert np.all(volume.damage[lower] == tool.damage) and np.all(volume.density[lower] == 255)
        for name, layer in (("top", top), ("lower", lower)):
            if np.any(volume.density[layer] < 255):
                first_drop.setdefault(name, frame)
            if np.all(volume.density[layer] < volume.iso):
                gone.setdefault(name, frame)
        assert np.all(volume.density[:, 0] == 255)  # the iron floor holds
    assert first_drop["top"] == frames_to_break
    assert gone["top"] == frames_to_break + drops_per_layer - 1
    # The lower layer loses density the frame after the top goes below iso, not frames_to_break frames later.
    assert first_drop["lower"] == gone["top"] + 1
    assert gone["lower"] == frames_to_break + layers * drops_per_layer - 1


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), shape=shapes_strategy)
def test_add_never_lowers_density_and_gives_gainers_the_material(seed, shape):
    volume = random_volume(seed)
    before = snapshot(volume)
    sdf = reference.sample_sdf(volume, shape)
    volume.add(shape, "sand")
    sand = volume.materials.id_of("sand")
    target = np.vectorize(lambda d: reference.ramp(volume.iso, -d / volume.voxel_size))(sdf)
    np.testing.assert_array_equal(volume.density, np.maximum(before["density"], target))
    gained = volume.density > before["density"]
    assert np.all(volume.mat_a[gained] == sand) and np.all(volume.mix[gained] == 0)
    assert np.all(volume.damage[gained] == 0)
    for name in ("mat_a", "mat_b", "mix", "damage"):
        np.testing.assert_array_equal(getattr(volume, name)[~gained], before[name][~gained])


def test_remove_carves_a_ball_of_the_right_volume():
    volume = VoxelVolume.from_sdf(lambda x, y, z: -np.ones(np.broadcast(x, y, z).shape), (40, 40, 40),
                                  material=SOFT, voxel_size=0.25)
    result = volume.remove(Sphere((5.0, 5.0, 5.0), 3.0))
    assert result.volume_removed == pytest.approx(4 / 3 * math.pi * 27, rel=0.01)
    assert result.most_removed_material == SOFT
    assert volume.density[20, 20, 20] == 0 and volume.density[0, 0, 0] == 255


@pytest.mark.parametrize("material, calls_to_break", [(SOFT, 1), (MEDIUM, 4), (HARD, None)])
def test_hardness_gate(material, calls_to_break):
    """Soft gives way at once; medium takes ceil(breaks_at / damage) calls; hard never gives way."""
    tool = Tool(damage=30, gives_way_below=3.0, unbreakable_from=8.0, breaks_at=100)
    volume = VoxelVolume.from_sdf(lambda x, y, z: -np.ones(np.broadcast(x, y, z).shape), (8, 8, 8),
                                  material=material)
    ball = Sphere((4.0, 4.0, 4.0), 2.0)
    inside = (4, 4, 4)  # two voxels deep: the carve empties it completely
    for call in range(1, 7):
        result = volume.remove(ball, tool=tool)
        broken = volume.density[inside] == 0
        if calls_to_break is None:
            assert not broken and volume.damage[inside] == 0
            assert result.voxels_blocked > 0 and result.voxels_changed == 0 and result.voxels_damaged == 0
        elif call < calls_to_break:
            assert not broken and volume.damage[inside] == 30 * call
            assert result.voxels_changed == 0 and result.voxels_damaged == result.voxels_blocked > 0
        else:
            assert broken
            if call == calls_to_break:
                assert result.voxels_changed > 0 and result.volume_removed > 0


def test_voxel_hardness_is_that_of_its_dominant_material():
    volume = VoxelVolume.from_sdf(lambda x, y, z: -np.ones(np.broadcast(x, y, z).shape), (6, 6, 6),
                                  material=SOFT)
    volume.mat_b[...] = volume.materials.id_of(HARD)
    volume.mix[:3] = 127  # soil dominates
    volume.mix[3:] = 128  # iron dominates
    volume.remove(Box((-3, -3, -3), (8, 8, 8)))
    assert np.all(volume.density[:3] == 0) and np.all(volume.density[3:] == 255)


def test_expose_interior_swaps_both_material_slots():
    volume = VoxelVolume((6, 6, 6))
    table = volume.materials
    volume.density[...] = 255
    volume.mat_a[...] = table.id_of("grass")
    volume.mat_b[...] = table.id_of("bark")
    volume.mix[...] = 100
    result = volume.expose_interior(Box((0, 0, 0), (2, 5, 5)))
    inside, outside = (slice(0, 3),), (slice(3, 6),)
    assert np.all(volume.mat_a[inside] == table.id_of("soil"))
    assert np.all(volume.mat_b[inside] == table.id_of("wood"))
    assert np.all(volume.mix == 100) and np.all(volume.density == 255)
    assert np.all(volume.mat_a[outside] == table.id_of("grass"))
    assert np.all(volume.mat_b[outside] == table.id_of("bark"))
    assert result.volume_removed == result.volume_added == 0
    assert set(result.removed_by_material) == {"grass", "bark"}
    assert set(result.added_by_material) == {"soil", "wood"}


def test_paint_sets_one_material_and_keeps_density():
    volume = random_volume(3)
    before = snapshot(volume)
    ice = volume.materials.id_of("ice")
    shape = Sphere((1.0, 4.0, 2.0), 1.5)
    volume.paint(shape, "ice")
    inside = reference.sample_sdf(volume, shape) <= 0
    assert inside.any()
    assert np.all(volume.mat_a[inside] == ice) and np.all(volume.mat_b[inside] == ice)
    np.testing.assert_array_equal(volume.density, before["density"])
    np.testing.assert_array_equal(volume.mat_a[~inside], before["mat_a"][~inside])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), shape=shapes_strategy)
def test_convert_turns_one_material_into_another_inside_the_range_only(seed, shape):
    volume = random_volume(seed)
    before = snapshot(volume)
    source, target = volume.materials.id_of(MEDIUM), volume.materials.id_of("obsidian")
    inside = reference.sample_sdf(volume, shape) <= 0
    result = volume.convert(shape, MEDIUM, "obsidian")
    expected = {name: np.where(inside & (before[name] == source), target, before[name]) for name in ("mat_a", "mat_b")}
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(volume, name), expected.get(name, before[name]), err_msg=name)
    density, mix = before["density"].astype(np.int64), before["mix"].astype(np.int64)
    converted = density * (np.where(expected["mat_a"] != before["mat_a"], 255 - mix, 0)
                           + np.where(expected["mat_b"] != before["mat_b"], mix, 0))
    amount = int(converted.sum()) * volume.voxel_volume / 65025.0
    assert result.voxels_changed == int(((expected["mat_a"] != before["mat_a"]) |
                                         (expected["mat_b"] != before["mat_b"])).sum())
    assert result.removed_by_material == ({MEDIUM: pytest.approx(amount)} if amount else {})
    assert result.added_by_material == ({"obsidian": pytest.approx(amount)} if amount else {})
    assert result.volume_removed == result.volume_added == 0.0


def test_convert_dirties_the_chunks_it_changed_not_its_bounding_box():
    """Terrain's rule: the dirty set is the set of chunks whose voxels changed, as the edit reports it. A ball's
    bounding box spans chunks the ball never reaches, and a material lives only in some of them."""
    volume = VoxelVolume.from_sdf(lambda x, y, z: y - 6.0, (16, 12, 16), "soil", chunk_size=4)
    volume.mat_a[:8] = volume.materials.id_of("lava")  # lava on one side of x = 8 only
    ball = Sphere((8.0, 6.0, 8.0), 3.5)
    before = snapshot(volume)
    versions = volume.chunk_versions.copy()
    volume.take_dirty_chunks()
    result = volume.convert(ball, "lava", "obsidian")
    changed = changed_chunks(before, volume)
    lo, hi = volume.voxel_box(ball)
    box_chunks = {(a, b, c) for a in range(lo[0] // 4, hi[0] // 4 + 1) for b in range(lo[1] // 4, hi[1] // 4 + 1)
                  for c in range(lo[2] // 4, hi[2] // 4 + 1)}
    assert changed and len(changed) < len(box_chunks)  # the case tells the two rules apart
    assert set(result.dirty_chunks) == changed
    assert volume.take_dirty_chunks() == changed
    risen = {tuple(int(v) for v in c) for c in np.argwhere(volume.chunk_versions != versions)}
    assert risen == changed


def test_same_edits_give_identical_volumes():
    hashes = []
    for _ in range(2):
        volume = random_volume(11, shape=(20, 20, 20))
        volume.remove(Capsule((1, 3, 1), (7, 8, 6), 2.0), tool=Tool(damage=40))
        volume.scrape(Sphere((3, 5, 3), 3.0), step=70)
        volume.add(Cylinder((2, 3, 2), (2, 9, 2), 1.2), "sand")
        volume.remove_fragments()
        hashes.append(volume.content_hash())
    assert hashes[0] == hashes[1]


@pytest.mark.parametrize("call, parameter", [
    (lambda v: v.remove("ball"), "shape"),
    (lambda v: v.remove(Sphere((1, 1, 1), 1), tool="pick"), "tool"),
    (lambda v: v.scrape(Sphere((1, 1, 1), 1), step=0), "step"),
    (lambda v: v.scrape(Sphere((1, 1, 1), 1), step=256), "step"),
    (lambda v: v.add(Sphere((1, 1, 1), 1), "unobtainium"), "material"),
    (lambda v: v.add(Sphere((1, 1, 1), 1), "none"), "material"),
    (lambda v: v.paint(Sphere((1, 1, 1), 1), 99), "material"),
    (lambda v: v.remove_fragments(Sphere((1, 1, 1), 1)), "region"),
    (lambda v: v.convert("ball", "rock", "ice"), "shape"),
    (lambda v: v.convert(Sphere((1, 1, 1), 1), "unobtainium", "ice"), "source"),
    (lambda v: v.convert(Sphere((1, 1, 1), 1), "none", "ice"), "source"),
    (lambda v: v.convert(Sphere((1, 1, 1), 1), "rock", 200), "target"),
    (lambda v: v.convert(Sphere((1, 1, 1), 1), "rock", "none"), "target"),
    (lambda v: v.convert(Sphere((1, 1, 1), 1), "rock", "rock"), "target"),
    (lambda v: v.convert(Sphere((1, 1, 1), 1), "rock", v.materials.id_of("rock")), "target"),
])
def test_bad_input_is_refused_and_leaves_the_volume_unchanged(call, parameter):
    volume = random_volume(5)
    before = volume.content_hash()
    with pytest.raises(ParameterError) as caught:
        call(volume)
    assert caught.value.parameter == parameter
    assert volume.content_hash() == before and not volume.dirty_chunks


@pytest.mark.parametrize("kwargs, parameter", [
    ({"damage": -1}, "damage"), ({"damage": 70000}, "damage"), ({"gives_way_below": float("nan")}, "gives_way_below"),
    ({"gives_way_below": 5.0, "unbreakable_from": 4.0}, "unbreakable_from"), ({"breaks_at": 0}, "breaks_at"),
])
def test_tool_validation(kwargs, parameter):
    with pytest.raises(ParameterError) as caught:
        Tool(**kwargs)
    assert caught.value.parameter == parameter
    assert repr(next(iter(kwargs.values()))) in str(caught.value)


def test_edit_outside_the_volume_changes_nothing():
    volume = random_volume(2)
    before = volume.content_hash()
    result = volume.remove(Sphere((100.0, 100.0, 100.0), 2.0))
    assert result.voxels_changed == 0 and not result.dirty_chunks and volume.content_hash() == before


def test_absurdly_large_ranges_cover_the_whole_volume_without_overflow():
    volume = VoxelVolume((4, 4, 4))
    assert volume.add(Box((-1e17,) * 3, (1e17,) * 3), "soil").voxels_changed == 64
    assert np.all(volume.density == 255)
    assert volume.remove(Sphere((0.0, 0.0, 0.0), 1e19)).voxels_changed == 64
    assert not volume.density.any()
