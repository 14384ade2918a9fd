"""Fuzzing ``NavMesh.from_json``: a valid navmesh's JSON, mutated (values, lengths, indices, NaN, huge numbers,
nesting, missing and extra fields), must either raise FormatError or give a navmesh whose queries run.

Hypothesis runs in a child process whose numba kernels check every index (NUMBA_BOUNDSCHECK): a kernel leaving
its arrays raises there, and a crash of the child (a signal) fails this test instead of ending the test run; the
document being read when it died is in the failure message. Derandomized when CI is set, like the rest of the
suite (tests/conftest.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    import copy, json, math, os, resource, sys
    # Memory a bad document makes the reader take shows as a MemoryError here, not as the machine running out.
    resource.setrlimit(resource.RLIMIT_AS, (6 * 2**30, resource.getrlimit(resource.RLIMIT_AS)[1]))
    import numpy as np
    from hypothesis import HealthCheck, given, settings, strategies as st
    from voxelworld.errors import FormatError
    from voxelworld.navigation import NavMesh, NavQuery, WalkableGrid, navmesh_from_grids

    walkable = np.ones((4, 4), dtype=bool)
    walkable[1:3, :3] = False  # a wall: paths bend
    upper = np.zeros((4, 4), dtype=bool)
    upper[:2, :2] = True  # a second level, 2 m up
    BASE = json.loads(navmesh_from_grids([WalkableGrid(walkable, np.zeros((4, 4)), 0.0, 0.0, 1.0),
                                          WalkableGrid(upper, np.full((4, 4), 2.0), 0.0, 0.0, 1.0)]).to_json())
    CURRENT = sys.argv[1]  # the document being read, for the parent to show if this process dies

    def places(node, path=()):
        yield path
        children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, child in children:
            yield from places(child, path + (key,))

    VALUES = st.one_of(
        st.sampled_from([float("nan"), float("inf"), -float("inf"), 2**63, 2**64, -2**63, 10**30, 1e308, -1e308,
                         1e-308, 0.5, -1, 0, True, None, "x", [], {}, [[]]]),
        st.integers(-3, 40), st.floats(allow_nan=True, allow_infinity=True))

    def value(data):
        return copy.deepcopy(data.draw(VALUES))  # a list drawn is the strategy's own: mutate only a copy

    def mutate(document, data):
        for _ in range(data.draw(st.integers(1, 4))):
            paths = list(places(document))
            path = paths[data.draw(st.integers(0, len(paths) - 1))]
            parent = document
            for key in path[:-1]:
                parent = parent[key]
            node = parent[path[-1]] if path else document
            kind = data.draw(st.sampled_from(["value", "value", "index", "drop", "repeat", "append", "nest",
                                              "truncate", "remove field", "extra field"]))
            if kind == "remove field" and isinstance(document, dict) and document:
                del document[data.draw(st.sampled_from(sorted(document)))]
            elif kind == "extra field" and isinstance(document, dict):
                document[data.draw(st.sampled_from(["extra", "vertices", "portals"]))] = value(data)
            elif not path:
                continue
            elif kind in ("value", "index"):
                new = value(data) if kind == "value" else data.draw(st.integers(-2, 30))
                parent[path[-1]] = new
            elif kind == "nest":
                parent[path[-1]] = [node] * data.draw(st.integers(1, 2))
            elif isinstance(node, list) and node and kind == "drop":
                del node[data.draw(st.integers(0, len(node) - 1))]
            elif isinstance(node, list) and node and kind == "repeat":
                node.insert(0, copy.deepcopy(node[data.draw(st.integers(0, len(node) - 1))]))
            elif isinstance(node, list) and kind == "append":
                node.append(copy.deepcopy(node[-1]) if node and data.draw(st.booleans()) else value(data))
            elif isinstance(node, list) and kind == "truncate":
                del node[data.draw(st.integers(0, len(node))):]
        return document

    def ask(mesh):
        query = NavQuery(mesh)
        points = [[0.5, 0.0, 0.5], [3.5, 0.0, 0.5], [0.5, 2.0, 0.5], [1e6, -1e6, 3.0]]
        for point in points:
            query.locate(point)
            query.nearest_point(point)
        query.find_path(points[0], points[1])
        query.find_path(points[2], points[1])
        query.raycast(points[0], points[1])
        mesh.area(), mesh.islands()
        if mesh.polygon_count:
            query.random_point(np.random.default_rng(0))

    READ, REFUSED = [0], [0]

    @settings(max_examples=int(sys.argv[2]), deadline=None, database=None, derandomize=bool(os.environ.get("CI")),
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def fuzz(data):
        text = json.dumps(mutate(copy.deepcopy(BASE), data))
        with open(CURRENT, "w") as file:
            file.write(text)
        try:
            mesh = NavMesh.from_json(text)
        except FormatError:
            REFUSED[0] += 1
            return
        READ[0] += 1
        ask(mesh)

    NavMesh.from_json(json.dumps(BASE))  # the base is valid and answers
    ask(NavMesh.from_json(json.dumps(BASE)))
    fuzz()
    for text in ("[" * 100000 + "]" * 100000, '{"a":' * 100000 + "1" + "}" * 100000):
        try:
            NavMesh.from_json(text)
        except FormatError:
            REFUSED[0] += 1
    print(json.dumps({"read": READ[0], "refused": REFUSED[0]}))
""")


def test_mutated_documents_raise_format_error_or_answer_queries(tmp_path):
    current = tmp_path / "current.json"
    child = subprocess.run([sys.executable, "-c", CHILD, str(current), "400"], capture_output=True, text=True,
                           timeout=600, env={**os.environ, "NUMBA_BOUNDSCHECK": "1"})
    last = current.read_text()[:2000] if current.exists() else ""
    assert child.returncode == 0, f"exit {child.returncode}\n{child.stderr[-4000:]}\nlast document: {last}"
    counts = json.loads(child.stdout.splitlines()[-1])
    assert counts["read"] > 0 and counts["refused"] > 0  # both outcomes were reached
