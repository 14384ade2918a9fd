"""Hypothesis draws the same examples on every CI run (``CI`` set, as ``.ci/run`` is run), so that CI passes or
fails on what the code does, not on the draw; elsewhere each run explores fresh examples. The numba kernels are
compiled (``voxelworld warmup``) before the first test."""

from __future__ import annotations

import io
import os

import pytest
from hypothesis import settings

from voxelworld.warmup import ensure_kernels

settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True, scope="session")
def compiled_kernels():
    """The kernels compiled into the cache before any test runs (nothing to do after ``scripts/setup``), so that
    a command a test runs does not first print the compile notice, wherever that test falls in the run."""
    ensure_kernels(stream=io.StringIO())
