"""The documentation runs: every docstring example in the package, and the Python examples of the README, the game guide
and the motion guide."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import voxelworld

MODULES = sorted(name for _, name, _ in pkgutil.walk_packages(voxelworld.__path__, "voxelworld."))
README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failures == 0


@pytest.mark.parametrize("path", [README, README.parent / "docs" / "game.md", README.parent / "docs" / "motion.md"],
                         ids=lambda p: p.name)
def test_guide_python_examples_run(path):
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)
    assert blocks, f"{path.name} has a Python example"
    for block in blocks:
        exec(compile(block, str(path), "exec"), {})
