"""voxelworld.viewer: pictures of the world for people (floor 4).

- :func:`snapshot` / :func:`render`: offscreen PNG (or array) of display meshes with their blended material
  textures, sun shadows, sky light and fog, and an optional collision-mesh wireframe, drawn headless with
  moderngl through EGL.
- :class:`Camera`: where the picture is taken from; ``Camera.looking_at_bounds`` frames a box.
- :class:`RenderError`: no offscreen OpenGL here (run ``scripts/setup``), or drawing failed.
- :func:`achievements_png`: ``world.achievements()`` (volume removed per material group) as a bar chart PNG with
  the award thresholds; imported when first used (it brings in matplotlib).
- :func:`run_session` (``voxelworld.viewer.demo_session``): the scripted demo session played headless, written
  as ``report.md`` with PNG snapshots at its key frames (``voxelworld demo``); imported when first used, since it
  brings in the whole game.
- :func:`create_app` / :func:`serve` (``voxelworld.viewer.server``): the browser app of ``voxelworld play``: a
  local web server stepping a world at 60 Hz and streaming it to the page in ``viewer/web/`` over a websocket
  (``docs/play.md``; the messages: ``voxelworld.viewer.protocol``, ``chunk_messages``, ``frame_messages``, what a
  frame sends: ``frame_encoder``; ``docs/specs/play-protocol.md``); imported
  when first used (it brings in starlette and uvicorn).
"""

from collections.abc import Callable
from typing import Any

from .camera import Camera
from .snapshot import RenderError, render, snapshot

__all__ = ["Camera", "snapshot", "render", "RenderError", "run_session", "achievements_png", "create_app", "serve"]


def __getattr__(name: str) -> Callable[..., Any]:
    function: Callable[..., Any]
    if name == "run_session":
        from .demo_session import run_session as function
    elif name == "achievements_png":
        from .charts import achievements_png as function
    elif name == "create_app":
        from .server import create_app as function
    elif name == "serve":
        from .server import serve as function
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return function
