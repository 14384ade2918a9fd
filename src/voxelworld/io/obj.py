"""Wavefront OBJ export of a world, with its material library (.mtl) beside it.

The same parts as the glTF export (:mod:`voxelworld.io.gltf`), written with the shared
:class:`~voxelworld.wavefront.ObjWriter`:

- object ``terrain``: the display mesh (vertices with normals), its faces grouped by dominant material
  (``usemtl <name>``);
- object ``collision`` (``collision=True``): the collision mesh, grouped by triangle material;
- objects ``navmesh_level_<n>`` (``navmesh=True``): the navmesh's polygons per level (as
  :meth:`NavMesh.to_obj <voxelworld.navigation.NavMesh.to_obj>` writes them), material ``navmesh``.

The library (``path`` with the suffix ``.mtl``) has one material per voxelworld material used, its diffuse
colour the material's colour, and ``navmesh``. OBJ has no blend between two materials: a triangle shows its
dominant material. The same world gives the same bytes.

Examples
--------
>>> import tempfile, pathlib
>>> from voxelworld.game.world import World
>>> path = export_obj(World.demo(seed=0), pathlib.Path(tempfile.mkdtemp()) / "world.obj", navmesh=True)
>>> sorted(p.name for p in path.parent.iterdir())
['world.mtl', 'world.obj']
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .. import __version__
from ..errors import check_range
from ..files import write_atomically
from ..wavefront import ObjWriter, mtl_text
from .parts import NAVMESH_COLOUR, check_path, gather, material_groups

if TYPE_CHECKING:
    from ..game.world import World
    from ..meshing import CollisionMesh, DisplayMesh

__all__ = ["export_obj"]


def export_obj(world: World, path: str | os.PathLike[str], collision: bool = False, navmesh: bool = False) -> Path:
    """Write ``world`` to ``path`` as a Wavefront OBJ and its material library beside it (``path`` with the
    suffix ``.mtl``), each atomically (the library first); return the OBJ's path.

    Parameters and errors are those of :func:`voxelworld.io.gltf.export_glb`; ``path`` may moreover not end in
    ``.mtl`` (the library's name).
    """
    target = check_path(path)
    library = target.with_suffix(".mtl")
    check_range("path", path, "a file path whose name does not end in .mtl (the library is written beside it)",
                library != target and not library.is_dir())
    parts = gather(world, collision, navmesh)
    obj = ObjWriter()
    obj.line("#", f"voxelworld {__version__}: metres, Y up")
    obj.line("mtllib", library.name)
    used = set()
    meshes: list[tuple[str, DisplayMesh | CollisionMesh, np.ndarray, np.ndarray | None]] = [
        ("terrain", parts.display, parts.display_material, parts.display.normals)]
    if parts.collision is not None:
        meshes.append(("collision", parts.collision, parts.collision.tri_material, None))
    for name, mesh, triangle_material, normals in meshes:
        block = obj.vertices(mesh.positions, normals)
        obj.object(name)
        for material, triangles in material_groups(triangle_material):
            obj.material(parts.names[material])
            obj.triangles(block, mesh.indices[triangles])
            used.add(material)
    entries = [(parts.names[m], tuple(parts.colours[m].tolist())) for m in sorted(used)]
    if parts.navmesh is not None:
        parts.navmesh.write_obj(obj, "navmesh_level", "navmesh")
        entries.append(("navmesh", NAVMESH_COLOUR[:3]))
    materials, text = mtl_text(entries), obj.text()
    write_atomically(library, lambda file: file.write(materials))
    return write_atomically(target, lambda file: file.write(text))
