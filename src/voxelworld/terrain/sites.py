"""Where a generated world's people live: camps, paths between two places, rock outcrops and buried treasure, by
region, as a pure function of its :class:`~voxelworld.terrain.GeneratorSettings`.

The world is cut into square regions of ``SiteSettings.region_size`` m (x-z, from the world's corner). Each region's
sites come from the generator's surface alone (its height function, sampled every ``spacing`` m: no voxel is made
or read) and from a random generator seeded by the world's seed and the region's place, so the same seed gives the
same sites, region by region, in any order:

- a **camp** (a share ``camp_share`` of the regions): the flattest grass spot at least ``edge_margin`` m inside the
  region, with 2 to ``camp_npcs`` places on a ring of ``camp_radius`` m around it (one for each of its people);
- a **path** (``path_share``): two grass spots of the region at least ``path_length`` m apart (the camp the first
  end when there is one), walked back and forth;
- an **outcrop** (``outcrop_share``, where the region has a rock face: a slope steeper than the generator's
  ``rock_slope``): a place at the foot of the face and the way into it;
- **treasure**, buried ``treasure_depth`` m under each camp's centre and each outcrop's face.

Heights are the generator's surface (within a voxel of the meshed ground); the game puts an actor on its ground when
it first wakes (:mod:`voxelworld.game.regions`).

Examples
--------
>>> from voxelworld.terrain import GeneratorSettings
>>> world = GeneratorSettings(size=512.0, seed=7)
>>> sites = world_sites(world)
>>> sites == world_sites(world), sorted({site.kind for site in sites})
(True, ['camp', 'outcrop', 'path'])
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError, check_finite, check_integer, check_range
from ._kernels.sites import surface_samples
from .worldgen import GeneratorSettings

__all__ = ["Site", "SiteSettings", "region_sites", "world_sites", "KINDS"]

KINDS = ("camp", "path", "outcrop")
_SALT = 0x5173  # keeps the sites' random numbers apart from any other use of the seed


@dataclass(frozen=True)
class SiteSettings:
    """How many sites a region holds and how they are laid out.

    Parameters
    ----------
    region_size : float
        m (>= 16): the edge of a square region.
    spacing : float
        m (0 < spacing <= region_size / 4): the surface is sampled this far apart.
    camp_share, path_share, outcrop_share : float
        0..1: the share of regions with a camp, with a path, and of those with a rock face with an outcrop.
    camp_npcs : int
        2..16: the most people at a camp (each camp has 2 to this many).
    camp_radius : float
        m (> 0): their places lie on a ring this far from the camp's centre.
    flat_slope : float
        Degrees (0..90): a camp or a path's end stands where the ground is flatter than this.
    path_length : float
        m (> 0): a path's ends lie at least this far apart.
    edge_margin : float
        m (>= 0): sites keep this far inside their region (a camp's ring included).
    treasure_depth : float
        m (>= 0.5): how deep treasure is buried.
    """

    region_size: float = 64.0  # m
    spacing: float = 4.0  # m
    camp_share: float = 0.25
    path_share: float = 0.2
    outcrop_share: float = 0.25
    camp_npcs: int = 4
    camp_radius: float = 3.0  # m
    flat_slope: float = 12.0  # degrees
    path_length: float = 24.0  # m
    edge_margin: float = 6.0  # m
    treasure_depth: float = 1.5  # m

    def __post_init__(self) -> None:
        size = check_finite("region_size", self.region_size, minimum=16.0, unit="m")
        object.__setattr__(self, "region_size", size)
        object.__setattr__(self, "spacing", check_finite("spacing", self.spacing, minimum=0.0, strict_minimum=True,
                                                         maximum=size / 4, unit="m"))
        for name in ("camp_share", "path_share", "outcrop_share"):
            object.__setattr__(self, name, check_finite(name, getattr(self, name), minimum=0.0, maximum=1.0))
        object.__setattr__(self, "camp_npcs", check_integer("camp_npcs", self.camp_npcs, minimum=2, maximum=16))
        for name in ("camp_radius", "path_length"):
            object.__setattr__(self, name, check_finite(name, getattr(self, name), minimum=0.0, strict_minimum=True,
                                                        unit="m"))
        object.__setattr__(self, "flat_slope", check_finite("flat_slope", self.flat_slope, minimum=0.0, maximum=90.0,
                                                            unit="degrees"))
        object.__setattr__(self, "edge_margin", check_finite("edge_margin", self.edge_margin, minimum=0.0,
                                                             maximum=size / 4, unit="m"))
        object.__setattr__(self, "treasure_depth", check_finite("treasure_depth", self.treasure_depth, minimum=0.5,
                                                                unit="m"))
        check_range("camp_radius", self.camp_radius, f"at most region_size / 4 = {size / 4} m",
                    self.camp_radius <= size / 4)


@dataclass(frozen=True)
class Site:
    """A place of a region where people live.

    ``kind`` is one of :data:`KINDS`; ``name`` is unique in the world (its kind and region); ``points`` (m, on the
    generator's surface): a camp's centre then its people's places, a path's two ends, an outcrop's place at the
    foot of its face; ``facing`` a horizontal unit direction (x, 0, z) into an outcrop's face (None otherwise);
    ``treasure`` where the site's treasure is buried (m), or None.
    """

    kind: str
    name: str
    region: tuple[int, int]
    points: tuple[tuple[float, float, float], ...]
    facing: tuple[float, float, float] | None = None
    treasure: tuple[float, float, float] | None = None


def _regions(world: GeneratorSettings, size: float) -> tuple[int, int]:
    across = math.ceil(world.size / size - 1e-9)
    return across, across


def region_sites(world: GeneratorSettings, region: tuple[int, int],
                 settings: SiteSettings = SiteSettings()) -> tuple[Site, ...]:
    """The sites of region ``region`` (ri, rk) of ``world``, in kind order (camp, path, outcrop)."""
    if not isinstance(world, GeneratorSettings):
        raise ParameterError("world", type(world).__name__, "a GeneratorSettings")
    if not isinstance(settings, SiteSettings):
        raise ParameterError("settings", type(settings).__name__, "a SiteSettings")
    grid = _regions(world, settings.region_size)
    check_range("region", region, f"(ri, rk) whole numbers within the world's {grid[0]} x {grid[1]} regions",
                isinstance(region, tuple) and len(region) == 2 and all(
                    isinstance(r, int) and 0 <= r < n for r, n in zip(region, grid)))
    size, spacing = settings.region_size, settings.spacing
    lo = (region[0] * size, region[1] * size)
    hi = (min(lo[0] + size, world.size), min(lo[1] + size, world.size))
    margin = settings.edge_margin + spacing / 2
    x0, z0 = lo[0] + margin, lo[1] + margin
    nx, nz = int((hi[0] - margin - x0) // spacing) + 1, int((hi[1] - margin - z0) // spacing) + 1
    if nx < 2 or nz < 2:
        return ()
    heights, gradients = np.zeros((nx, nz)), np.zeros((nx, nz, 2))
    surface_samples(world._params(), world._keys(), x0, z0, spacing, world.voxel_size, heights, gradients)
    slopes = np.hypot(gradients[..., 0], gradients[..., 1])
    rng = np.random.default_rng([world.seed, region[0], region[1], _SALT])
    draws = rng.random(4)  # one each: a camp, a path, an outcrop, the camp's people
    xs, zs = x0 + np.arange(nx) * spacing, z0 + np.arange(nz) * spacing

    def point(a: int, b: int, below: float = 0.0) -> tuple[float, float, float]:
        return float(xs[a]), float(heights[a, b] - below), float(zs[b])

    # Grass: flatter than flat_slope and above the sand (the generator's sand lies within 2 m of sand_level).
    grass = (slopes < math.tan(math.radians(settings.flat_slope))) & (heights > world.sand_level + 2.0)
    ring = int(math.ceil(settings.camp_radius / spacing))
    inner = np.zeros_like(grass)
    inner[ring:nx - ring, ring:nz - ring] = True
    sites: list[Site] = []
    name = f"{region[0]}-{region[1]}"
    camp: tuple[int, int] | None = None
    if draws[0] < settings.camp_share and (grass & inner).any():
        # The flattest inner grass spot (its first in index order on a tie).
        score = np.where(grass & inner, slopes, np.inf)
        a, b = (int(v) for v in np.unravel_index(int(np.argmin(score)), score.shape))
        camp = (a, b)
        people = 2 + int(draws[3] * (settings.camp_npcs - 1))
        turn = float(rng.random()) * 2.0 * math.pi
        centre = point(a, b)
        places = []
        for n in range(people):
            angle = turn + 2.0 * math.pi * n / people
            places.append((centre[0] + settings.camp_radius * math.cos(angle), centre[1],
                           centre[2] + settings.camp_radius * math.sin(angle)))
        sites.append(Site("camp", f"camp-{name}", region, (centre, *places),
                          treasure=point(a, b, settings.treasure_depth)))
    if draws[1] < settings.path_share and grass.any():
        spots = np.argwhere(grass)
        first = np.array(camp) if camp is not None else spots[int(rng.integers(len(spots)))]
        far = np.hypot(*((spots - first) * spacing).T) >= settings.path_length
        if far.any():
            end = spots[far][int(rng.integers(int(far.sum())))]
            sites.append(Site("path", f"path-{name}", region, (point(*first), point(*end))))
    rock = slopes > math.tan(math.radians(world.rock_slope))
    if draws[2] < settings.outcrop_share and rock.any():
        faces = np.argwhere(rock)
        a, b = (int(v) for v in faces[int(rng.integers(len(faces)))])
        down = -gradients[a, b] / slopes[a, b]  # downhill, away from the face
        foot = (float(xs[a] + 2.0 * down[0]), float(zs[b] + 2.0 * down[1]))
        inside = (float(xs[a] - 1.0 * down[0]), float(zs[b] - 1.0 * down[1]))
        feet, buried = np.zeros((1, 1)), np.zeros((1, 1))
        for where, out in ((foot, feet), (inside, buried)):
            surface_samples(world._params(), world._keys(), where[0], where[1], spacing, world.voxel_size, out,
                            np.zeros((1, 1, 2)))
        if 0.0 <= foot[0] <= world.size and 0.0 <= foot[1] <= world.size:
            sites.append(Site("outcrop", f"outcrop-{name}", region, ((foot[0], float(feet[0, 0]), foot[1]),),
                              facing=(float(-down[0]), 0.0, float(-down[1])),
                              treasure=(inside[0], float(buried[0, 0]) - settings.treasure_depth, inside[1])))
    return tuple(sites)


def world_sites(world: GeneratorSettings, settings: SiteSettings = SiteSettings()) -> list[Site]:
    """Every region's sites (:func:`region_sites`), regions in order (ri, then rk)."""
    if not isinstance(world, GeneratorSettings):
        raise ParameterError("world", type(world).__name__, "a GeneratorSettings")
    ni, nk = _regions(world, settings.region_size if isinstance(settings, SiteSettings) else 64.0)
    return [site for ri in range(ni) for rk in range(nk) for site in region_sites(world, (ri, rk), settings)]
