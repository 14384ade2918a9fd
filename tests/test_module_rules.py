"""The house's rooms: no module of voxelworld over 600 lines (ARCHITECTURE.md, "Layout"), and no import circle
between its modules, not even through an import inside a function (data below the algorithms that use it).
``if TYPE_CHECKING:`` imports are left out: they are not run."""

from __future__ import annotations

from .imports import PACKAGE, cycles, imported_modules, knots, package_imports

MAX_LINES = 600


def long_modules(limit: int = MAX_LINES) -> list[str]:
    """``path: lines`` of each module of the package longer than ``limit`` lines."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            found.append(f"{path.relative_to(PACKAGE)}: {lines} lines")
    return found


def import_graph(type_checking: bool = False) -> dict[str, set[str]]:
    """Module -> the other voxelworld modules it imports (anywhere in it but ``if TYPE_CHECKING:`` blocks)."""
    return {name: {module for _, module in imports if module != name}
            for name, imports in package_imports(type_checking).items()}


def test_no_module_is_longer_than_600_lines():
    offenders = long_modules()
    assert offenders == [], "modules over 600 lines:\n" + "\n".join(offenders)


def test_no_import_circle_between_modules():
    graph = import_graph()
    found = [f"{' -> '.join(circle)} (modules importing each other: {', '.join(knot)})"
             for circle, knot in zip(cycles(graph), knots(graph))]
    for circle in found:
        print(circle)
    assert found == [], "import circles:\n" + "\n".join(found)


def test_a_circle_through_a_lazy_import_is_found():
    # What navigation did before issue 31: bake imports navmesh, whose rebake method imported rebake, which
    # imports bake.
    graph = {"bake": {"navmesh", "polygons"}, "polygons": {"navmesh"}, "navmesh": {"rebake"}, "rebake": {"bake"},
             "alone": set(), "self": {"self"}}
    assert cycles(graph) == [["bake", "navmesh", "rebake", "bake"], ["self", "self"]]
    assert knots(graph) == [["bake", "navmesh", "polygons", "rebake"], ["self"]]
    source = "def rebake(self):\n    from .rebake import rebake_state\n"
    assert imported_modules(source, "voxelworld.navigation.navmesh", False) == [
        (2, "voxelworld.navigation.rebake")]


def test_type_checking_imports_are_left_out():
    source = ("from typing import TYPE_CHECKING\nfrom . import base\nif TYPE_CHECKING:\n"
              "    from .volume import VoxelVolume\nelse:\n    from . import shapes\n")
    name = "voxelworld.terrain.generators"
    assert imported_modules(source, name, False, type_checking=False) == [
        (2, "voxelworld.terrain.base"), (6, "voxelworld.terrain.shapes")]
    assert (4, "voxelworld.terrain.volume") in imported_modules(source, name, False)


def test_long_modules_are_listed(tmp_path):
    assert long_modules(limit=10 ** 9) == []
    assert any(line.endswith(" lines") for line in long_modules(limit=50))
