"""A generated world's people: who lives where, as a pure function of its generator's settings.

:func:`populate_actors` (called by :func:`voxelworld.game.populate.populate`) gives a world made by the generator
(``voxelworld new``) its people (camps and paths of NPCs, chainsaw enemies at rock outcrops) and the treasure buried
at their sites
(:mod:`voxelworld.terrain.sites`), each put to sleep in its region (:mod:`voxelworld.game.regions`): nothing is
meshed or baked, the actors are data until the player nears. The same settings give the same population.

Examples
--------
>>> from voxelworld.game.settings import WorldSettings
>>> from voxelworld.game.world import World
>>> from voxelworld.terrain import GeneratorSettings, generate_world
>>> generator = GeneratorSettings(size=128.0, height=64.0, ground_level=24.0, hill_height=8.0, sand_level=10.0,
...                               seed=7)
>>> world = World(generate_world(generator), settings=WorldSettings(view_distance=48.0))
>>> population = populate_actors(world, generator)
>>> population == {"npc": world.agents.regions.count("npc"), "enemy": world.agents.regions.count("enemy"),
...                "treasure": world.agents.regions.count("treasure")}, world.agents.npcs
(True, [])
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError, check_range
from ..terrain import GeneratorSettings
from ..terrain.sites import SiteSettings, world_sites
from .npcs import NPCSettings
from .world import World

__all__ = ["populate_actors"]


def populate_actors(world: World, generator: GeneratorSettings, sites: SiteSettings | None = None
                    ) -> dict[str, int]:
    """Put ``generator``'s population on ``world`` (a world of its terrain), asleep in its regions: each camp's
    people walking between their places on its ring, each path's walker back and forth along it, an enemy at each
    outcrop facing its rock, and the sites' treasure. ``sites``: how sites are laid out (by default regions the
    world's :class:`~voxelworld.game.regions.RegionSettings` size). Returns how many of each kind (``npc``,
    ``enemy``, ``treasure``) were put there. Cheap: no voxel is read, nothing meshed or baked."""
    check_range("world", world, "a World", isinstance(world, World))
    if not isinstance(generator, GeneratorSettings):
        raise ParameterError("generator", type(generator).__name__, "a GeneratorSettings")
    regions = world.agents.regions
    sites = SiteSettings(region_size=regions.settings.size) if sites is None else sites
    check_range("sites.region_size", sites.region_size if isinstance(sites, SiteSettings) else sites,
                f"the world's region size, {regions.settings.size} m",
                isinstance(sites, SiteSettings) and sites.region_size == regions.settings.size)
    volume, chainsaw = world.volume, world.settings.chainsaw
    counts = {"npc": 0, "enemy": 0, "treasure": 0}
    records = []
    for site in world_sites(generator, sites):
        if site.kind == "camp":
            places = site.points[1:]
            for n, place in enumerate(places):
                records.append(regions.npc_record(f"{site.name}-{n}", NPCSettings(), place,
                                                  places[(n + 1) % len(places)], patrol=True))
        elif site.kind == "path":
            records.append(regions.npc_record(site.name, NPCSettings(), site.points[0], site.points[1],
                                              patrol=True))
        else:
            records.append(regions.enemy_record(site.name, chainsaw, site.points[0], site.facing))
        if site.treasure is not None:
            # At the centre of the voxel it falls in (a treasure is a buried voxel's centre).
            index = np.floor(volume.world_to_index(site.treasure) + 0.5)
            records.append(regions.treasure_record(f"treasure-{site.name}", volume.index_to_world(index),
                                                   sites.treasure_depth))
    taken = world.agents._names() | regions.names()
    for record in records:
        check_range("world", record["name"], "a world whose actors' names the population does not take",
                    record["kind"] == "treasure" or record["name"] not in taken)
    for record in records:
        regions.add(record)
        counts[record["kind"]] += 1
    return counts


