"""The documentation runs: every docstring example in the package, and the README's Python example."""

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


def test_readme_python_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert blocks, "the README has a Python example"
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})
