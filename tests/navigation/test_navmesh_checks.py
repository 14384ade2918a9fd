"""A navmesh's arrays are checked before any kernel reads them: crafted JSON documents and constructor calls with
one bad index, count or coordinate raise FormatError / ParameterError naming the field, the value and the legal
range, where they used to end the interpreter. The documents are read in a child process, so that a check that
goes missing shows as a crash there (a failed test here), not as the end of the test run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.navigation import NavMesh, NavQuery

# Two unit squares side by side (x 0..1 and 1..2), joined through the edge x = 1.
GOOD = {"format": "voxelworld-navmesh", "version": 1,
        "vertices": [[0, 0, 0], [0, 0, 1], [1, 0, 1], [1, 0, 0], [2, 0, 1], [2, 0, 0]],
        "polygon_start": [0, 4, 8], "polygon_vertices": [0, 1, 2, 3, 3, 2, 4, 5], "polygon_level": [0, 0],
        "portals": [[0, 1]], "portal_segments": [[[1, 0, 0], [1, 0, 1]]]}

# (what is changed, the words the message must hold: the field with the entry, the value, the legal range)
BROKEN = {
    "polygon_start past the corners": ({"polygon_start": [0, 4, 99]}, ["polygon_start[2]", "99", "= 8"]),
    "polygon_start not from 0": ({"polygon_start": [1, 4, 8]}, ["polygon_start[0]", "1", "0"]),
    "polygon_start going back": ({"polygon_start": [0, 6, 5, 8]}, ["polygon_start[2]", "5", ">= polygon_start[1] + 3"]),
    "a polygon of two corners": ({"polygon_start": [0, 2, 8]}, ["polygon_start[1]", "2", ">= polygon_start[0] + 3"]),
    "no polygon_start": ({"polygon_start": []}, ["len(polygon_start)", "0"]),
    "a corner past the vertices": ({"polygon_vertices": [0, 1, 2, 3, 3, 2, 4, 6]},
                                   ["polygon_vertices[7]", "6", "[0, 5]"]),
    "a negative corner": ({"polygon_vertices": [0, 1, 2, 3, -1, 2, 4, 5]}, ["polygon_vertices[4]", "-1", "[0, 5]"]),
    "a portal to a polygon that does not exist": ({"portals": [[0, 7]]}, ["portals[0, 1]", "7", "[0, 1]"]),
    "a negative portal": ({"portals": [[-3, 1]]}, ["portals[0, 0]", "-3", "[0, 1]"]),
    "a portal from a polygon to itself": ({"portals": [[1, 1]]}, ["portals[0]", "[1, 1]", "two different"]),
    "a portal without its segment": ({"portal_segments": []}, ["len(portal_segments)", "0", "len(portals) = 1"]),
    "levels for too few polygons": ({"polygon_level": [0]}, ["len(polygon_level)", "1", "2"]),
    "a negative level": ({"polygon_level": [0, -1]}, ["polygon_level[1]", "-1", ">= 0"]),
    "a vertex not finite": ({"vertices": [[0, 0, 0], [0, 0, 1], [1, float("nan"), 1], [1, 0, 0], [2, 0, 1],
                                          [2, 0, 0]]}, ["vertices[2, 1]", "nan", "finite"]),
    "a segment end infinite": ({"portal_segments": [[[1, 0, 0], [1, float("inf"), 1]]]},
                               ["portal_segments[0, 1, 1]", "inf", "finite"]),
    "a fractional index": ({"polygon_vertices": [0, 1, 2, 3, 3, 2.5, 4, 5]}, ["polygon_vertices.dtype", "float64",
                                                                               "whole numbers"]),
    "an index too large for 64 bits": ({"portals": [[0, 2 ** 70]]}, ["portals", "not numbers"]),
    "vertices of two coordinates": ({"vertices": [[0, 0], [0, 1], [1, 1], [1, 0], [2, 1], [2, 0]]},
                                    ["vertices.shape", "(6, 2)", "(any, 3)"]),
    "ragged portals": ({"portals": [[0, 1], [1]]}, ["portals", "not an array of numbers"]),
    "a string for a vertex": ({"vertices": "abc"}, ["vertices", "not numbers"]),
}

CHILD = textwrap.dedent("""
    import json, sys
    from voxelworld.errors import FormatError
    from voxelworld.navigation import NavMesh, NavQuery
    for name, text in json.loads(sys.stdin.read()):
        try:
            mesh = NavMesh.from_json(text)
            NavQuery(mesh).find_path([0.5, 0, 0.5], [1.5, 0, 0.5])
            outcome = "read"
        except FormatError as error:
            outcome = "FormatError: " + str(error)
        except Exception as error:
            outcome = type(error).__name__ + ": " + str(error)
        print(json.dumps([name, outcome]), flush=True)
""")


def document(change: dict) -> str:
    return json.dumps({**GOOD, **change})


@pytest.fixture(scope="module")
def outcomes() -> dict:
    """Each broken document read by NavMesh.from_json in a child process: what came of it (missing: the child
    died before it got there)."""
    documents = [["good", document({})]] + [[name, document(change)] for name, (change, _) in BROKEN.items()]
    child = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(documents), capture_output=True,
                           text=True, timeout=600)
    return dict(json.loads(line) for line in child.stdout.splitlines())


def test_the_good_document_is_read_and_answers(outcomes):
    assert outcomes.get("good") == "read"
    mesh = NavMesh.from_json(document({}))
    assert NavQuery(mesh).find_path([0.5, 0, 0.5], [1.5, 0, 0.5]).length == pytest.approx(1.0)


@pytest.mark.parametrize("name", BROKEN)
def test_a_broken_document_raises_format_error_naming_field_value_and_range(outcomes, name):
    assert name in outcomes, f"the child process died reading {name!r}"
    outcome = outcomes[name]
    assert outcome.startswith("FormatError: navmesh JSON: "), outcome
    for words in BROKEN[name][1]:
        assert words in outcome, (words, outcome)


def arrays(change: dict) -> list:
    """The constructor's arguments for GOOD with ``change``, as numpy arrays of the document's types."""
    fields = {**GOOD, **change}
    return [np.asarray(fields[name]) for name in ("vertices", "polygon_start", "polygon_vertices", "polygon_level",
                                                  "portals", "portal_segments")]


@pytest.mark.parametrize("name", [n for n in BROKEN if "64 bits" not in n and "ragged" not in n
                                  and "string" not in n])
def test_the_constructor_raises_parameter_error_naming_the_entry(name):
    change, words = BROKEN[name]
    with pytest.raises(ParameterError) as raised:
        NavMesh(*arrays(change))
    parameter = words[0]
    assert raised.value.parameter == parameter and words[1] in repr(raised.value.value) + str(raised.value.value)


def test_a_query_is_not_changed_by_a_refused_rebuild():
    """Bad arrays leave a navmesh as it was (checked before anything is taken)."""
    mesh = NavMesh(*arrays({}))
    with pytest.raises(ParameterError):
        mesh._set_arrays(*arrays({"portals": [[0, 9]]}))
    assert mesh.portals.tolist() == [[0, 1]] and mesh.index.portals.tolist() == [[0, 1]]
    assert NavQuery(mesh).find_path([0.5, 0, 0.5], [1.5, 0, 0.5]) is not None


def test_polygons_whose_sides_overlap_get_rings_with_room_for_every_piece():
    """A degenerate polygon (corners A, B, A, B: its sides overlap) finds the portal on each of its four sides:
    more boundary pieces than a well-formed polygon can have. The rings grow to hold them: checked in a child
    process whose kernels check every index (NUMBA_BOUNDSCHECK), where writing past their end raises."""
    degenerate = {"vertices": [[0, 0, 0], [4, 0, 0], [4, 0, -2], [0, 0, -2]],
                  "polygon_start": [0, 4, 8], "polygon_vertices": [0, 1, 0, 1, 0, 3, 2, 1], "polygon_level": [0, 0],
                  "portals": [[0, 1]], "portal_segments": [[[1, 0, 0], [3, 0, 0]]]}
    script = ("import sys; from voxelworld.navigation import NavMesh, NavQuery\n"
              "mesh = NavMesh.from_json(sys.stdin.read())\n"
              "rings = mesh.index.rings\n"
              "print(int(rings.ring_start[1]), len(rings.ring_xz))\n"
              "print(NavQuery(mesh).find_path([2, 0, -1], [1, 0, -0.5]) is not None)\n")
    child = subprocess.run([sys.executable, "-c", script], input=document(degenerate), capture_output=True,
                           text=True, timeout=900, env={**os.environ, "NUMBA_BOUNDSCHECK": "1"})
    assert child.returncode == 0, child.stderr[-2000:]
    pieces, total = map(int, child.stdout.split()[:2])
    assert pieces == 12 and total > len(degenerate["polygon_vertices"]) + 4  # 3 pieces on each of 4 sides
