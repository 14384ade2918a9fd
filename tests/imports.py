"""The package's import graph read from its source (for tests/test_floors.py and tests/test_module_rules.py):
which voxelworld modules each module imports, at module level or inside functions and classes."""

from __future__ import annotations

import ast
from pathlib import Path

import voxelworld

PACKAGE = Path(voxelworld.__file__).parent


def module_name(path: Path) -> str:
    """``voxelworld.<part>...`` of the file ``path`` of the package (a package's ``__init__``: the package)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _nodes(tree: ast.AST, type_checking: bool):
    """Every node of ``tree``; without the bodies of ``if TYPE_CHECKING:`` blocks unless ``type_checking``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if not type_checking and isinstance(node, ast.If) and _is_type_checking(node.test):
            stack += node.orelse
            continue
        stack += ast.iter_child_nodes(node)


def imported_modules(source: str, name: str, is_package: bool, type_checking: bool = True) -> list[tuple[int, str]]:
    """(line, module) of every import of a voxelworld module in ``source`` (the module ``name``), anywhere in
    it: at module level, inside functions, classes and (when ``type_checking``) ``if TYPE_CHECKING`` blocks.
    ``from x import y`` counts as an import of ``x.y`` when ``y`` is a module of the package, else of ``x``."""
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node in _nodes(ast.parse(source), type_checking):
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
    return sorted((line, module) for line, module in found if module.split(".")[0] == "voxelworld")


def _submodule(module: str, name: str) -> str:
    """``module.name`` when that is a module or package of voxelworld, else ``module``."""
    path = PACKAGE.parent.joinpath(*module.split("."), name)
    return f"{module}.{name}" if path.with_suffix(".py").is_file() or path.is_dir() else module


def package_imports(type_checking: bool = True) -> dict[str, list[tuple[int, str]]]:
    """Module name -> (line, module) of each voxelworld import in it, for every module of the package."""
    return {module_name(path): imported_modules(path.read_text(encoding="utf-8"), module_name(path),
                                                path.name == "__init__.py", type_checking)
            for path in sorted(PACKAGE.rglob("*.py"))}


def knots(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of ``graph`` (module -> modules it imports) that hold a circle: of more
    than one module, or a module importing itself; each sorted, in sorted order."""
    index, low, on_stack, stack, components, counter = {}, {}, set(), [], [], [0]

    def visit(start):  # Tarjan's algorithm, iterative
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(component for component in components
                  if len(component) > 1 or component[0] in graph.get(component[0], ()))


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: for each of its :func:`knots`, one shortest circle through its first
    module, ``[a, b, ..., a]``."""
    return [_circle(graph, knot[0], set(knot)) for knot in knots(graph)]


def _circle(graph: dict[str, set[str]], start: str, members: set[str]) -> list[str]:
    """A shortest path from ``start`` back to itself within ``members`` (breadth first)."""
    previous, frontier = {}, [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph.get(node, ())):
                if child not in members:
                    continue
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start] + path[::-1][1:] + [start] if node != start else [start, start]
                if child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"no circle through {start}")
