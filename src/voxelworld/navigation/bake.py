"""Bakes: a scene and search regions in, a :class:`NavMesh` out.

:func:`bake` runs the sampling steps of :mod:`voxelworld.navigation.sampling` over each area (a region, or the
regions that meet, baked as one: :mod:`voxelworld.navigation.areas`; rays, walkable samples, erosion, small
islands) and turns the samples into polygons tile by tile
(:mod:`voxelworld.navigation.polygons`). The navmesh keeps what it was baked from (a :class:`BakeState`), so
that :meth:`NavMesh.rebake` can redo only what a change of the scene reaches
(:mod:`voxelworld.navigation.rebake`) and still give, bit for bit, what a full bake of the changed scene gives.
Deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

import numpy as np

from ..errors import ParameterError
from .areas import BakeArea, area_of, bake_areas
from .frames import Frame
from .ledges import area_ledges
from .navmesh import NavMesh
from .polygons import WalkableGrid, WalkableLayers, tile_polygons
from .rays import RayScene
from .rebake import BakedArea, BakeState, local_scene
from .roles import check_bake_input
from .sampling import Samples, drop_small_islands, erode, sample_links, walkable_samples, whole_cells
from .scene import Scene
from .settings import NavSettings, SearchRegion

__all__ = ["bake", "BakeState", "BakedArea", "walkable_layers", "walkable_grids", "local_scene", "local_regions"]


def _own(array: np.ndarray, *others: np.ndarray) -> np.ndarray:
    """``array``, or a copy of it where it shares memory with one of ``others`` (a step that changed nothing
    returns its input): a re-bake updates each of an area's arrays on its own."""
    return array.copy() if any(np.may_share_memory(array, other) for other in others) else array


def _layers(samples: Samples, eroded: np.ndarray, settings: NavSettings) -> WalkableLayers:
    """Step 5 over the whole area, and the links polygons are joined by."""
    final = samples.with_height(_own(drop_small_islands(samples.with_height(eroded), settings), eroded))
    return WalkableLayers(final.height, sample_links(final, settings), samples.x0, samples.z0, samples.cell,
                          samples.area)


STEPS = 6  # rays, samples, whole cells, erosion, islands, polygons: what progress is counted in


def _bake_area(scene: Scene, area: BakeArea, settings: NavSettings,
               step: Callable[[], object] = lambda: None) -> BakedArea:
    """Steps 1-5 and the polygons of one whole area; ``step()`` is called after each of the STEPS."""
    rays = RayScene(scene, area, settings)
    hits = rays.cast_columns()
    step()
    samples = walkable_samples(hits, settings)
    step()
    whole = _own(whole_cells(rays, samples, settings), samples.height)
    step()
    eroded = _own(erode(samples.with_height(whole), settings), whole)
    step()
    layers = _layers(samples, eroded, settings)
    step()
    ntx, ntz = layers.tiles
    tiles = tuple(tile_polygons(layers, ti, tk, settings.max_corners, settings.max_edge_error)
                  for ti in range(ntx) for tk in range(ntz))
    step()
    return BakedArea(area, samples, whole, eroded, layers, tiles, area_ledges(samples, layers, settings))


def local_regions(scene: Scene, regions: list[SearchRegion]) -> tuple[Frame | None, Scene, list[SearchRegion]]:
    """The frame the regions are baked in, the scene in it and the regions as boxes of its axes.

    Regions that are not turned are baked as they are (frame None, the scene untouched). Turned regions must
    share one rotation; their frame turns about the first one's centre, and each region becomes its own box
    moved to where it lies in that frame (a turned region's box is upright in its own frame)."""
    if not isinstance(scene, Scene):
        raise ParameterError("scene", scene, "a voxelworld.navigation.Scene")
    for region in regions:
        if not isinstance(region, SearchRegion):
            raise ParameterError("region", region, "a voxelworld.navigation.SearchRegion")
    rotation = regions[0].rotation
    if any(region.rotation != rotation for region in regions):
        raise ParameterError("regions", [region.rotation for region in regions],
                             "regions baked together share one rotation; bake differently turned regions into "
                             "separate navmeshes")
    if not regions[0].turned:
        return None, scene, regions
    pivot = np.array(regions[0].centre)
    frame = Frame.about(rotation, pivot)
    boxes = []
    for region in regions:
        # The region's own point q is the world point R (q - c) + c, which the frame sees at q + shift.
        centre = np.array(region.centre)
        shift = frame.vectors_to_local(centre - pivot) + pivot - centre
        boxes.append(replace(region, min=tuple((np.array(region.min) + shift).tolist()),
                             max=tuple((np.array(region.max) + shift).tolist()), ray_direction=None,
                             rotation=(0.0, 0.0, 0.0, 1.0)))
    return frame, local_scene(scene, frame), boxes


def walkable_layers(scene: Scene, region: SearchRegion, settings: NavSettings) -> WalkableLayers:
    """Steps 1-5 over a region: its walkable samples, every level, with the links between them (in the
    region's own frame when it is turned: see :func:`local_regions`)."""
    _, scene, (region,) = local_regions(scene, [region])
    check_bake_input(scene, region, settings)
    return _bake_area(scene, area_of(region, settings), settings).layers


def walkable_grids(scene: Scene, region: SearchRegion, settings: NavSettings) -> list[WalkableGrid]:
    """Steps 1-5 as one grid of walkable cells per level (see sampling.walkable_samples for what a level is), in
    the region's own frame when it is turned."""
    layers = walkable_layers(scene, region, settings)
    grids = []
    for s in range(layers.height.shape[2]):
        walk = ~np.isnan(layers.height[:, :, s])
        if walk.any():
            grids.append(WalkableGrid(walk, np.where(walk, layers.height[:, :, s], 0.0), layers.x0, layers.z0,
                                      layers.cell))
    return grids


def bake(scene: Scene, regions: SearchRegion | Iterable[SearchRegion], settings: NavSettings = NavSettings(),
         progress: Callable[[int, int], object] | None = None) -> NavMesh:
    """A navmesh of the walkable area of ``scene`` inside ``regions`` (a SearchRegion or a list of them).
    Regions that meet (their boxes overlap or touch) are baked as one area, so that the walkable area and its
    polygons run on across their shared borders (:mod:`~voxelworld.navigation.areas`); others on their own.
    ``progress(done, total)``, when given, is called after each step of each area (``total`` is six steps per
    area: rays, samples, whole cells, erosion, islands, polygons). The navmesh can be re-baked where the scene
    changes with :meth:`NavMesh.rebake`.

    Turned regions (``SearchRegion.rotation``) baked together share one rotation: the scene is turned into
    their frame (:func:`local_regions`), baked there as any other, and the navmesh keeps its arrays in that
    frame with the frame itself (``NavMesh.frame``); its queries take and give world coordinates.

    Examples
    --------
    >>> from voxelworld.navigation import Scene, SearchRegion, NavSettings
    >>> floor = [[0, 0, 0], [8, 0, 0], [8, 0, 8], [0, 0, 8]]
    >>> scene = Scene().with_object("floor", floor, [[0, 2, 1], [0, 3, 2]])
    >>> mesh = bake(scene, SearchRegion((0, -1, 0), (8, 3, 8)), NavSettings(ray_density=4, agent_radius=0,
    ...                                                                          min_region_area=0))
    >>> mesh.area()
    64.0
    """
    regions = [regions] if isinstance(regions, SearchRegion) else list(regions)
    if not regions:
        raise ParameterError("regions", regions, "one SearchRegion or a non-empty list of them")
    frame, scene, regions = local_regions(scene, regions)
    for region in regions:
        check_bake_input(scene, region, settings)
    areas = bake_areas(regions, settings)  # each region passed alone; together they may be too many columns
    done = [0]

    def step() -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0], STEPS * len(areas))

    baked = [_bake_area(scene, area, settings, step) for area in areas]
    return BakeState(scene, settings, tuple(baked), None if frame is None else frame.matrix).navmesh()
