"""voxelworld.viewer: pictures of the world for people (floor 4).

- :func:`snapshot` / :func:`render`: offscreen PNG (or array) of display meshes with their blended material
  colours and an optional collision-mesh wireframe, drawn headless with moderngl through EGL.
- :class:`Camera`: where the picture is taken from; ``Camera.looking_at_bounds`` frames a box.
- :class:`RenderError`: no offscreen OpenGL here (run ``scripts/setup``), or drawing failed.
"""

from .camera import Camera
from .snapshot import RenderError, render, snapshot

__all__ = ["Camera", "snapshot", "render", "RenderError"]
