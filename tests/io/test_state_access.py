"""voxelworld.io only encodes and decodes: it reads no private attribute of another wing's objects (they hand over
their state with ``state_dict()`` and take it back with ``load_state_dict()``)."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import voxelworld.io

IO = Path(voxelworld.io.__file__).parent


def private_accesses(source: str, modules: set[str]) -> list[tuple[int, str]]:
    """(line, text) of every access ``x._name`` (one leading underscore) in ``source`` where ``x`` is not
    ``self``, ``cls`` or one of ``modules`` (names the module binds to modules: its own helpers)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        if not name.startswith("_") or name.startswith("__"):
            continue
        if isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"} | modules:
            continue
        found.append((node.lineno, f"{ast.unparse(node.value)}.{name}"))
    return sorted(found)


def module_names(path: Path) -> set[str]:
    module = importlib.import_module(f"voxelworld.io.{path.stem}" if path.stem != "__init__" else "voxelworld.io")
    return {name for name, value in vars(module).items() if inspect.ismodule(value)}


def test_io_reads_no_private_attribute_of_another_object():
    paths = sorted(IO.glob("*.py"))
    assert {p.stem for p in paths} >= {"state", "codec", "queued_edits", "world_file"}
    found = [f"{path.name}:{line} {text}" for path in paths
             for line, text in private_accesses(path.read_text(encoding="utf-8"), module_names(path))]
    assert found == []


def test_the_scan_finds_what_io_once_read():
    source = ("def rows(world, nav, codec):\n    queue = list(world._queue)\n    log = list(nav._log)\n"
              "    versions = world.volume._chunk_versions\n    return codec._encode_volume(world.volume, 'v')\n")
    assert private_accesses(source, set()) == [(2, "world._queue"), (3, "nav._log"),
                                               (4, "world.volume._chunk_versions"), (5, "codec._encode_volume")]
    # Its own attributes, a module's helpers and dunders are not another object's insides.
    allowed = "def f(self, _events):\n    return self._text, world_file._write, _events.__all__, type(self).__name__\n"
    assert private_accesses(allowed, {"world_file"}) == []
