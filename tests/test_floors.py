"""No floor reaches up: a module of voxelworld imports only modules of its own floor or lower ones, at module level
or inside a function (ARCHITECTURE.md, "Layout")."""

from __future__ import annotations

import ast
from pathlib import Path

import voxelworld

PACKAGE = Path(voxelworld.__file__).parent
# Floor of each wing (a folder of the package) and of the top-level modules the wings share.
WING_FLOORS = {"terrain": 1, "collision": 1, "meshing": 2, "navigation": 2, "motion": 2, "game": 3, "io": 4,
               "bake": 4, "viewer": 4}
SHARED_MODULES = ("__init__", "errors", "files", "wavefront", "attribute_state")  # floor 0
TOP_FLOOR = 5  # cli.py and any other top-level module (the faces on top)


def floor(module: str) -> int:
    """The floor of the module ``voxelworld.<part>...`` (``voxelworld`` itself: the package's __init__)."""
    parts = module.split(".")
    assert parts[0] == "voxelworld", module
    first = parts[1] if len(parts) > 1 else "__init__"
    if first in WING_FLOORS:
        return WING_FLOORS[first]
    return 0 if first in SHARED_MODULES else TOP_FLOOR


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(source: str, name: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, module) of every import of a voxelworld module in ``source`` (the module ``name``), anywhere in
    it: at module level, inside functions, classes or ``if TYPE_CHECKING`` blocks. ``from x import y`` counts as
    an import of ``x.y`` when ``y`` is a module of the package, else of ``x``."""
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found += [(node.lineno, _submodule(target, alias.name)) for alias in node.names]
    return [(line, module) for line, module in found if module.split(".")[0] == "voxelworld"]


def _submodule(module: str, name: str) -> str:
    """``module.name`` when that is a module or package of voxelworld, else ``module``."""
    path = PACKAGE.parent.joinpath(*module.split("."), name)
    return f"{module}.{name}" if path.with_suffix(".py").is_file() or path.is_dir() else module


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
