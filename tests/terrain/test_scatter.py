"""Things scattered per chunk column (terrain/scatter.py): the kernel against a plain-Python reference, determinism,
the rules (checked on the generated voxels), and the settings' checks."""

import math

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.terrain import GeneratorSettings, MaterialTable, generate_block
from voxelworld.terrain import _worldgen_kernels as wk
from voxelworld.terrain._kernels import scatter as k
from voxelworld.terrain.scatter import (
    KIND_NAMES,
    THING_KINDS,
    ScatterSettings,
    Things,
    column_count,
    scatter_chunk_column,
)
from voxelworld.terrain.worldgen import CHUNK_SIZE

# A hilly world with cliffs and little sand: every kind shows up in a few columns.
GENERATOR = GeneratorSettings(size=256.0, height=96.0, seed=11, ground_level=40.0, hill_height=14.0,
                              hill_scale=96.0, sand_level=20.0, cave_density=0.0)
GENERATOR_MATERIALS = MaterialTable.default()
THICK = ScatterSettings(tree_density=400.0, pine_density=300.0, bush_density=300.0, rock_density=600.0,
                        crate_density=60.0, pine_above=2.0)


def reference_column(generator: GeneratorSettings, settings: ScatterSettings, ci: int, ck: int) -> Things:
    """The kernel's rules in plain Python (the generator's own height and noise functions, called one by one)."""
    p, keys = generator._params(), generator._keys()
    sp, kind_keys = settings.params(generator)

    def uniform(key, n):
        return float(int(wk.hash3(key, ci, n, ck)) >> 11) / 2.0 ** 53

    def surface(x, z):
        s = p.voxel_size
        h = wk.surface_height(p, keys, x, z)
        gx = (wk.surface_height(p, keys, x + s, z) - wk.surface_height(p, keys, x - s, z)) / (2 * s)
        gz = (wk.surface_height(p, keys, x, z + s) - wk.surface_height(p, keys, x, z - s)) / (2 * s)
        slope2 = gx * gx + gz * gz
        soil = wk.noise2(keys[wk.K_SOIL], x / 24.0, z / 24.0)
        opening = wk.smoothstep((wk.noise2(keys[wk.K_ENTRANCE], x / 96.0, z / 96.0) - 0.05) / 0.15)
        if slope2 > p.rock_slope ** 2:
            cls = "rock"
        elif h < p.sand_level + 2.0 * soil:
            cls = "sand"
        elif slope2 > p.grass_slope ** 2:
            cls = "soil"
        else:
            cls = "grass"
        return h, slope2, opening, cls

    rows = []
    for t, name in enumerate(KIND_NAMES):
        key = kind_keys[t]
        for n in range(int(math.floor(sp.per_column[t] + uniform(key, -1)))):
            x = ci * sp.column + uniform(key, 8 * n) * sp.column
            z = ck * sp.column + uniform(key, 8 * n + 1) * sp.column
            if not (sp.margin <= x <= sp.world - sp.margin and sp.margin <= z <= sp.world - sp.margin):
                continue
            h, slope2, opening, cls = surface(x, z)
            if slope2 > sp.slope[t] ** 2 or opening > 0.0:
                continue
            forest = min(max(0.5 + 1.5 * wk.noise2(sp.forest_key, x / sp.forest_scale, z / sp.forest_scale), 0.0),
                         1.0)
            keep = uniform(key, 8 * n + 2)
            if name in ("tree", "pine"):
                pines = min(max((h - sp.pine_level) / 8.0 + 0.5, 0.0), 1.0)
                if cls != "grass" or keep >= forest or (name == "pine") != (uniform(key, 8 * n + 5) < pines):
                    continue
            elif name == "bush":
                if cls not in ("grass", "soil") or keep >= 0.25 + 0.75 * forest:
                    continue
            elif name == "rock":
                near = [surface(x + sp.rock_reach * math.cos(0.5 * math.pi * d + 0.25 * math.pi),
                                z + sp.rock_reach * math.sin(0.5 * math.pi * d + 0.25 * math.pi))[3] for d in range(4)]
                if cls == "sand" or not (cls == "rock" or "rock" in near):
                    continue
            elif cls != "grass" or keep < forest:
                continue
            rows.append((t, x, h, z, 360.0 * uniform(key, 8 * n + 3), 0.75 + 0.5 * uniform(key, 8 * n + 4)))
    if not rows:
        return Things.empty()
    return Things(np.array([r[0] for r in rows], np.uint8), np.array([r[1:4] for r in rows]),
                  np.array([r[4] for r in rows], np.float32), np.array([r[5] for r in rows], np.float32))


@pytest.mark.parametrize("column", [(0, 0), (3, 5), (7, 2), (15, 15), (9, 12)])
def test_the_kernel_equals_the_plain_python_reference(column):
    got = scatter_chunk_column(GENERATOR, THICK, column)
    want = reference_column(GENERATOR, THICK, *column)
    assert np.array_equal(got.kind, want.kind)
    assert np.allclose(got.position, want.position, rtol=0, atol=1e-9)
    assert np.array_equal(got.yaw, want.yaw) and np.array_equal(got.scale, want.scale)


def test_a_column_is_the_same_whatever_was_made_before_and_the_seed_changes_it():
    columns = [(ci, ck) for ci in range(0, 16, 3) for ck in range(0, 16, 3)]
    forward = {c: scatter_chunk_column(GENERATOR, ScatterSettings(), c) for c in columns}
    backward = {c: scatter_chunk_column(GENERATOR, ScatterSettings(), c) for c in reversed(columns)}
    assert all(forward[c] == backward[c] for c in columns)
    assert sum(len(t) for t in forward.values()) > 20
    other = GeneratorSettings(**{**GENERATOR.__dict__, "seed": 12})
    assert any(scatter_chunk_column(other, ScatterSettings(), c) != forward[c] for c in columns)
    reseeded = ScatterSettings(seed=1)
    assert any(scatter_chunk_column(GENERATOR, reseeded, c) != forward[c] for c in columns)
    assert column_count(GENERATOR) == (16, 16)


def _surface_voxels(column):
    """The generated voxels of a chunk column: its top solid voxel's height index and material per (i, k)."""
    s = GENERATOR.voxel_size
    lo = (column[0] * CHUNK_SIZE, 0, column[1] * CHUNK_SIZE)
    block = generate_block(GENERATOR, (lo[0] - 12, 0, lo[2] - 12), (CHUNK_SIZE + 24, GENERATOR.shape[1], CHUNK_SIZE + 24))
    solid = block["density"] >= GENERATOR.iso
    top = GENERATOR.shape[1] - 1 - np.argmax(solid[:, ::-1, :], axis=1)
    material = np.take_along_axis(block["mat_a"], top[:, None, :], axis=1)[:, 0, :]
    return lambda x, z: (int(material[round(x / s) - lo[0] + 12, round(z / s) - lo[2] + 12]),
                         top[round(x / s) - lo[0] + 12, round(z / s) - lo[2] + 12] * s)


def test_the_rules_hold_on_the_generated_voxels():
    materials = {name: GENERATOR_MATERIALS.id_of(name) for name in ("grass", "soil", "sand", "rock")}
    seen = set()
    for column in [(ci, ck) for ci in range(1, 15, 2) for ck in range(1, 15, 2)]:
        things = scatter_chunk_column(GENERATOR, THICK, column)
        at = _surface_voxels(column)
        for kind, (x, y, z) in zip(things.kind.tolist(), things.position):
            name = KIND_NAMES[kind]
            seen.add(name)
            material, top = at(x, z)
            assert abs(top - y) <= 1.0, (name, x, z)  # on the ground, not floating or buried
            assert material != materials["sand"], (name, x, z)
            if name in ("tree", "pine", "crate"):
                assert material == materials["grass"], (name, x, z)
                # no trunk on a steep face: the ground rises less than tan(30°) a metre around it
                rise = [abs(at(x + dx, z + dz)[1] - top) for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1))]
                assert max(rise) <= math.tan(math.radians(THICK.tree_slope)) * 1.0 + 1.0
            if name == "rock":  # rock under it or within reach (+ a voxel or so)
                reach = THICK.rock_reach + 1.0
                near = {at(x + dx, z + dz)[0] for dx in np.arange(-reach, reach + 0.1, 0.5)
                        for dz in np.arange(-reach, reach + 0.1, 0.5)}
                assert materials["rock"] in near, (x, z)
    assert seen == set(KIND_NAMES)


def test_nothing_on_sand_or_steep_faces_even_where_every_candidate_is_drawn():
    flat_sand = GeneratorSettings(size=64.0, height=48.0, seed=3, ground_level=12.0, hill_height=1.0,
                                  sand_level=30.0, cave_density=0.0)
    assert all(len(scatter_chunk_column(flat_sand, THICK, (ci, ck))) == 0 for ci in range(4) for ck in range(4))
    cliffs = GeneratorSettings(size=64.0, height=96.0, seed=3, ground_level=40.0, hill_height=30.0,
                               hill_scale=24.0, sand_level=0.0, cave_density=0.0, cliff_strength=1.0)
    steep = ScatterSettings(tree_density=2000.0, tree_slope=1.0, pine_density=2000.0, bush_density=0.0,
                            rock_density=0.0, crate_density=0.0)
    for ci in range(4):
        for ck in range(4):
            things = scatter_chunk_column(cliffs, steep, (ci, ck))
            p, keys = cliffs._params(), cliffs._keys()
            for x, _, z in things.position:
                gx = (wk.surface_height(p, keys, x + 0.5, z) - wk.surface_height(p, keys, x - 0.5, z))
                gz = (wk.surface_height(p, keys, x, z + 0.5) - wk.surface_height(p, keys, x, z - 0.5))
                assert math.hypot(gx, gz) <= math.tan(math.radians(1.0)) + 1e-9


def test_bad_settings_and_columns_are_refused_naming_the_field():
    with pytest.raises(ParameterError, match="tree_slope"):
        ScatterSettings(tree_slope=90.0)
    with pytest.raises(ParameterError, match="rock_density"):
        ScatterSettings(rock_density=-1.0)
    with pytest.raises(ParameterError, match="seed"):
        ScatterSettings(seed=-1)
    with pytest.raises(ParameterError, match=r"column\[1\]"):
        scatter_chunk_column(GENERATOR, ScatterSettings(), (0, 16))
    with pytest.raises(ParameterError, match="generator"):
        scatter_chunk_column(None, ScatterSettings(), (0, 0))  # type: ignore[arg-type]
    assert [kind.name for kind in THING_KINDS] == ["tree", "pine", "bush", "rock", "crate"]
    assert k.KIND_COUNT == len(THING_KINDS)
