"""Paths of the third-party files the tests read: tests/data/ (test-only, each folder with its licence and a
SOURCES.md) and the package's own CesiumMan."""

from __future__ import annotations

from pathlib import Path

from voxelworld.motion import CESIUM_MAN

DATA = Path(__file__).resolve().parent / "data"
NAV_TEST = DATA / "scenes" / "nav_test.obj"  # Recast's demo level (zlib)
SIMPLE_SKIN = DATA / "motion" / "SimpleSkin.gltf"  # Khronos sample (CC0)

__all__ = ["CESIUM_MAN", "DATA", "NAV_TEST", "SIMPLE_SKIN"]
