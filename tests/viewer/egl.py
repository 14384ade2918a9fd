"""Offscreen OpenGL for the viewer tests: skip where EGL truly cannot be had, and fail under CI instead."""

from __future__ import annotations

import importlib
import os

import pytest

from voxelworld.viewer import RenderError

snapshot_module = importlib.import_module("voxelworld.viewer.snapshot")


def require_egl() -> None:
    """Skip the calling test where EGL truly cannot be had (and fail under CI, which installs it)."""
    try:
        snapshot_module._context().release()
    except RenderError as error:
        if os.environ.get("CI"):
            pytest.fail(f"CI must be able to render offscreen (scripts/setup installs EGL): {error}")
        pytest.skip(f"no offscreen OpenGL here: {error}")
