"""Navmesh tiles baked ahead: a streaming :class:`~voxelworld.game.navigation.WorldNavigation` bakes the next tiles
it will want on a thread of its own (:func:`start_tile_ahead`), each from the scene the frame that takes it will
have, so that frame only checks and joins it (:func:`tile_taken`).

Which tiles are baked, and in which frame, does not depend on the thread: a frame that bakes a tile takes the one
baked ahead only when it is done and was baked from the very scene the frame has (the same chunks' collision meshes,
array for array, the same area types, props and things on the ground; :func:`tile_taken`), and bakes it itself
otherwise, as before. Either way the tile is the same, bit for bit; only the frame's cost depends on the thread.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass

import numpy as np

from ..frame_first import step_aside
from ..meshing import CollisionMesh
from ..meshing.mesher_collision import PreparedCollision
from ..meshing.prepared import background_executor
from ..navigation import NavSettings, Scene, SceneObject
from ..navigation.areas import BakeArea
from ..navigation.tiles import BakedTile, bake_tiles
from .nav_areas import TerrainAreaTypes
from .nav_chunks import same_mesh, terrain_objects
from .nav_stored import StoredReader

__all__ = ["TileAhead", "bake_tile_ahead", "navigation_thread", "start_tile_ahead", "tile_taken", "NAVIGATION_NICENESS"]

# How much lower than the world's thread the navigation's thread runs (Linux nice steps): above the display jobs'
# (BACKGROUND_NICENESS, 10), which always have work on a streaming world: a tile its thread has not baked by its
# landing is baked in that frame (with the collision meshes it reads: 50-400 ms on a busy machine), a display job
# late only shows a chunk's old mesh longer.
NAVIGATION_NICENESS = 5

Chunk = tuple[int, int, int]


@dataclass(frozen=True)
class TileAhead:
    """A tile being baked ahead: its chunks (those its bake reads, sorted), the collision meshes of those not made
    yet (being made on the same thread, first: for this tile, or for a tile asked for before it that reads them
    too), the things on their ground and the bake to come:
    (each chunk's collision mesh, each chunk's scene object, the tile, whether it was read from the world file)."""

    tile: tuple[int, int]
    chunks: tuple[Chunk, ...]
    collision: Mapping[Chunk, PreparedCollision]
    things: tuple[SceneObject, ...]
    future: Future[tuple[dict[Chunk, CollisionMesh | None], dict[Chunk, SceneObject | None], BakedTile, bool]]

    def done(self) -> bool:
        return self.future.done()


def navigation_thread() -> Executor:
    """The navigation's own thread, at a priority between the world's frame and the display jobs
    (:data:`NAVIGATION_NICENESS`; :func:`~voxelworld.meshing.prepared.background_executor`)."""
    return background_executor("navigation", NAVIGATION_NICENESS)


def start_tile_ahead(tile: tuple[int, int], chunks: Sequence[Chunk], held: Mapping[Chunk, CollisionMesh | None],
                     objects: Mapping[Chunk, SceneObject], collision: Mapping[Chunk, PreparedCollision],
                     areas: TerrainAreaTypes | None, props: tuple[SceneObject, ...], things: list[SceneObject],
                     area: BakeArea, settings: NavSettings, stored: StoredReader | None = None) -> TileAhead:
    """Start baking ``tile`` on the navigation's thread (see the module); ``held``: every chunk's collision mesh
    known now (those the navigation holds, and of ``chunks`` those baked in the file or made by the mesher), the
    others of ``chunks`` from the preparation ``collision`` maps them to (started before this bake, on the same
    thread); ``objects``: the scene objects held of ``chunks``; ``areas``:
    a copy of the navigation's typing (:meth:`TerrainAreaTypes.copy`), which the bake types with; ``stored``: the
    reader of the world file's bake, whose tile is taken instead of baking where it was baked from this scene
    (:mod:`.nav_stored`), or None."""
    chunks, collision = tuple(chunks), dict(collision)  # (neither changes after)
    future = navigation_thread().submit(
        bake_tile_ahead, tile, chunks, dict(held), dict(objects), collision, areas, props, tuple(things), area,
        settings, stored)
    return TileAhead(tile, chunks, collision, tuple(things), future)


def bake_tile_ahead(tile: tuple[int, int], chunks: tuple[Chunk, ...], held: dict[Chunk, CollisionMesh | None],
                    objects: dict[Chunk, SceneObject], collision: Mapping[Chunk, PreparedCollision],
                    areas: TerrainAreaTypes | None, props: tuple[SceneObject, ...], things: tuple[SceneObject, ...],
                    area: BakeArea, settings: NavSettings, stored: StoredReader | None = None
                    ) -> tuple[dict[Chunk, CollisionMesh | None], dict[Chunk, SceneObject | None], BakedTile, bool]:
    """The work of :func:`start_tile_ahead` (on the navigation's thread): the scene a frame baking ``tile`` makes
    (WorldNavigation._change: the chunks' objects, the props, the things) and the tile baked from it, or read
    (``stored``), and whether it was read."""
    step_aside()
    meshes = held
    made = {id(p): dict(zip(p.chunks, p.future.result()))  # (each preparation once; all started before this)
            for p in {id(p): p for p in collision.values()}.values()}
    for chunk, prepared in collision.items():
        mesh = made[id(prepared)][chunk]
        meshes[chunk] = mesh if mesh.triangle_count else None
    typed, _ = terrain_objects(areas, meshes, [c for c in chunks if c not in objects])
    mine = {c: objects[c] if c in objects else typed.get(c) for c in chunks}
    scene = [obj for obj in mine.values() if obj is not None] + list(props) + list(things)
    read = None if stored is None else stored(tile, scene)
    if read is not None:
        return {c: meshes.get(c) for c in chunks}, mine, read, True
    ti, tk = tile
    baked = bake_tiles(Scene(scene), area, settings, (ti, tk, ti + 1, tk + 1))[tile]
    return {c: meshes.get(c) for c in chunks}, mine, baked, False


def tile_taken(ahead: TileAhead, meshes: Mapping[Chunk, CollisionMesh | None],
               objects: Mapping[Chunk, SceneObject], things: list[SceneObject]) -> BakedTile | None:
    """The tile ``ahead`` baked, when it is done and was baked from the scene of the frame that takes it
    (``meshes``, ``objects``: the navigation's after making those of the tile's chunks; ``things``: the things
    on their ground); None otherwise (the frame bakes it)."""
    if not ahead.done() or ahead.future.exception() is not None:
        return None
    made, typed, baked, _ = ahead.future.result()
    if len(things) != len(ahead.things) or any(a is not b for a, b in zip(things, ahead.things)):
        return None
    for chunk in ahead.chunks:
        if not (same_mesh(meshes.get(chunk), made[chunk]) and _same_object(objects.get(chunk), typed[chunk])):
            return None
    return baked


def _same_object(a: SceneObject | None, b: SceneObject | None) -> bool:
    """Whether two terrain objects made from meshes found the same are the same: their types, triangle for triangle."""
    if a is None or b is None or a is b:
        return a is b
    return a.name == b.name and a.role == b.role and a.area_types == b.area_types and np.array_equal(
        a.triangle_area_type, b.triangle_area_type)
