"""The character voxelworld ships as package data, with its licence beside it.

``CESIUM_MAN`` is the Khronos glTF sample "Cesium Man" (c) 2017 Cesium, CC BY 4.0 (its ``LICENSE`` and
``SOURCES.md`` with origin and sha256 sit in the same folder, ``voxelworld/motion/data/``): the figure of
``voxelworld motion plot``, later the game's enemy and NPCs.

Examples
--------
>>> from voxelworld.motion import CESIUM_MAN, load_gltf
>>> CESIUM_MAN.name, len(load_gltf(CESIUM_MAN).skeleton)
('CesiumMan.glb', 19)
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["CESIUM_MAN"]

CESIUM_MAN = Path(__file__).resolve().with_name("data") / "CesiumMan.glb"
"""Path of the packaged CesiumMan.glb (19 joints, one 2 s walk cycle; CC BY 4.0, (c) 2017 Cesium)."""
