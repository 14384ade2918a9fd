"""No floor reaches up: a module of voxelworld imports only modules of its own floor or lower ones, at module level
or inside a function (ARCHITECTURE.md, "Layout")."""

from __future__ import annotations

from pathlib import Path

from .imports import PACKAGE, imported_modules, module_name

# Floor of each wing (a folder of the package) and of the top-level modules the wings share.
WING_FLOORS = {"terrain": 1, "collision": 1, "meshing": 2, "navigation": 2, "motion": 2, "game": 3, "io": 4,
               "bake": 4, "viewer": 4}
SHARED_MODULES = ("__init__", "errors", "files", "wavefront", "attribute_state", "frame_first")  # floor 0
TOP_FLOOR = 5  # cli.py and any other top-level module (the faces on top)


def floor(module: str) -> int:
    """The floor of the module ``voxelworld.<part>...`` (``voxelworld`` itself: the package's __init__)."""
    parts = module.split(".")
    assert parts[0] == "voxelworld", module
    first = parts[1] if len(parts) > 1 else "__init__"
    if first in WING_FLOORS:
        return WING_FLOORS[first]
    return 0 if first in SHARED_MODULES else TOP_FLOOR


def upward_imports(path: Path) -> list[str]:
    name = module_name(path)
    imports = imported_modules(path.read_text(encoding="utf-8"), name, path.name == "__init__.py")
    return [f"{path.relative_to(PACKAGE)}:{line} ({name}, floor {floor(name)}) imports {module} (floor {floor(module)})"
            for line, module in imports if floor(module) > floor(name)]


def test_no_module_imports_a_higher_floor():
    assert [reaching for path in sorted(PACKAGE.rglob("*.py")) for reaching in upward_imports(path)] == []


def test_an_import_inside_a_function_is_found(tmp_path):
    # What game/world.py once did: World.save imported voxelworld.io inside the method.
    source = ("from ..terrain import VoxelVolume\n\nclass World:\n    def save(self, path):\n"
              "        from ..io import save_world\n        return save_world(self, path)\n")
    imports = imported_modules(source, "voxelworld.game.world", is_package=False)
    assert imports == [(1, "voxelworld.terrain"), (5, "voxelworld.io")]
    assert [floor(module) for _, module in imports] == [1, 4]


def test_the_floors_are_read_from_the_module_path():
    assert floor("voxelworld.io.state") == 4 and floor("voxelworld.game") == 3 and floor("voxelworld.errors") == 0
    assert floor("voxelworld.cli") == TOP_FLOOR and floor("voxelworld") == 0
    assert module_name(PACKAGE / "game" / "__init__.py") == "voxelworld.game"
    # A package's relative import starts from the package itself; a module's from the package holding it.
    assert imported_modules("from .world import World", "voxelworld.game", True) == [(1, "voxelworld.game.world")]
    assert imported_modules("from . import world", "voxelworld.game.play", False) == [(1, "voxelworld.game.world")]
    assert imported_modules("import voxelworld.io.state", "voxelworld.cli", False) == [(1, "voxelworld.io.state")]
