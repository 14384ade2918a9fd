"""Hostile navmesh documents the checks of test_navmesh_checks.py do not name: nesting 100 000 deep, JSON
booleans where numbers belong, coordinates too far apart for the bucket grid, slivers as long as the mesh. Each
raises FormatError or reads into a navmesh whose index takes memory in proportion to its polygons."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from voxelworld.errors import FormatError
from voxelworld.navigation import NavMesh, NavQuery
from voxelworld.navigation._kernels.locate import bucket_index
from voxelworld.navigation.index import BUCKET_ENTRIES

from .test_navmesh_checks import GOOD


def document(**change) -> str:
    return json.dumps({**GOOD, **change})


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000,
                                  '{"format": "voxelworld-navmesh", "version": 1, "vertices": ' + "[" * 100_000
                                  + "]" * 100_000 + "}"])
def test_nesting_100000_deep_is_a_format_error(text):
    with pytest.raises(FormatError, match="nested too deeply"):
        NavMesh.from_json(text)


@pytest.mark.parametrize("change, field", [
    ({"polygon_vertices": [0, 1, 2, 3, 3, 2, 4, True]}, "polygon_vertices"),
    ({"portals": [[False, 1]]}, "portals"),
    ({"vertices": [[0, 0, 0], [0, 0, 1], [1, 0, 1], [1, 0, 0], [2, 0, 1], [2, True, 0]]}, "vertices"),
])
def test_a_boolean_for_a_number_is_a_format_error(change, field):
    with pytest.raises(FormatError, match=f"'{field}' holds (true|false), not a number"):
        NavMesh.from_json(document(**change))


@pytest.mark.parametrize("version", [True, 1.0, "1"])
def test_a_version_that_only_equals_one_is_refused(version):
    with pytest.raises(FormatError, match="version"):
        NavMesh.from_json(document(version=version))


def test_a_string_true_in_a_name_does_not_refuse_a_good_document():
    text = json.dumps({**GOOD, "comment": "true or false"})
    assert NavMesh.from_json(text).polygon_count == 2


CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, resource.getrlimit(resource.RLIMIT_AS)[1]))
from voxelworld.navigation import NavMesh, NavQuery
mesh = NavMesh.from_json(sys.stdin.read())
query = NavQuery(mesh)
print(len(mesh.index.buckets.bucket_polygons), query.locate([0.5, 0, 0.5]), query.locate([1.5, 0, 0.5]),
      query.find_path([0.5, 0, 0.5], [1.5, 0, 0.5]) is not None)
"""


@pytest.mark.parametrize("far, near", [(2.0**63, 0.0), (1e300, 0.0), (-1e308, 0.0), (1e308, -1e308)])
def test_coordinates_too_far_apart_for_a_grid_still_read_in_bounded_memory(far, near):
    """A corner moved 2⁶³ m away once asked for a bucket grid of 3·10⁹ buckets (24 GB; the fuzz test found it);
    corners 2·10³⁰⁸ m apart have no finite extent at all. Read in a child process with 4 GiB of address space,
    so that such a grid fails there, and with numpy's warnings (an infinite extent cast to a bucket count) as
    errors."""
    vertices = [list(v) for v in GOOD["vertices"]]
    vertices[4][0] = far  # polygon 1's far corner
    vertices[0][0] = near  # polygon 0's
    child = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", CHILD],
                           input=document(vertices=vertices), capture_output=True,
                           text=True, timeout=600, env={**os.environ, "NUMBA_BOUNDSCHECK": "1"})
    assert child.returncode == 0, child.stderr[-3000:]
    entries, first, second, joined = child.stdout.split()
    assert int(entries) <= BUCKET_ENTRIES * 2
    assert (int(first), int(second)) == (0, 1) and joined == "True"


def test_slivers_as_long_as_the_mesh_fill_a_bounded_grid_and_locate_like_a_scan():
    p, length = 400, 1000.0
    vertices, polygon_vertices = [], []
    for q in range(p):  # thin triangles along x, stacked 1 mm apart along z
        z = q * 1e-3
        vertices += [[0.0, 0.0, z], [length, 0.0, z + 1e-6], [length, 0.0, z]]
        polygon_vertices += [3 * q, 3 * q + 1, 3 * q + 2]
    mesh = NavMesh(vertices, np.arange(0, 3 * p + 1, 3), polygon_vertices, np.zeros(p, dtype=np.int64),
                   np.empty((0, 2), dtype=np.int64), np.empty((0, 2, 3)))
    assert len(mesh.index.buckets.bucket_polygons) <= BUCKET_ENTRIES * p
    query = NavQuery(mesh)
    for x, z in [(999.0, 0.1000004), (10.0, 0.2), (500.0, 0.3995000002)]:
        expected = -1  # the lowest polygon holding the point (all lie at height 0)
        for q in range(p):
            corners = mesh.polygon(q)[:, [0, 2]]
            side = []
            for i in range(3):
                (ax, az), (bx, bz) = corners[i], corners[(i + 1) % 3]
                side.append(((bx - ax) * (z - az) - (bz - az) * (x - ax)) / max(math.hypot(bx - ax, bz - az), 1e-9))
            if min(side) >= -1e-9 or max(side) <= 1e-9:
                expected = q
                break
        assert query.locate([x, 0.0, z]) == expected


@pytest.mark.parametrize("at", [-3.0, 0.0, 0.49, 0.5, 1.7, 2.99, 3.0, 7.5, 1e300, -1e300, math.inf, -math.inf,
                                math.nan, 2.0**63])
def test_bucket_index_clamps_like_the_plain_formula(at):
    origin, cell, n = 0.5, 0.5, 5

    def reference(value):
        if math.isnan(value):
            return 0
        f = math.floor((value - origin) / cell) if math.isfinite(value) else value
        return int(min(max(f, 0), n - 1))

    assert bucket_index(at, origin, cell, n) == reference(at)
