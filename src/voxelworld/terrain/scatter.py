"""Things on the ground of a generated world: trees, pines, bushes, rocks and crates, scattered by rule per chunk
column, as godot_voxel's instancer scatters per block from a seed and the surface.

:func:`scatter_chunk_column` gives the things of one chunk column as :class:`Things` arrays; they are a pure
function of the :class:`~voxelworld.terrain.worldgen.GeneratorSettings`, the :class:`ScatterSettings` and the
column, computed from the generator's own surface (its height and strata functions, not the current voxels), so
the same seed gives the same things whichever order, and whenever, the columns are made in. The rules:

- broadleaf trees and pines on grass no steeper than ``tree_slope``, where a forest mask (noise of
  ``forest_scale`` m patches) is on; pines take over above ``pine_above`` m over the ground level;
- bushes on grass or bare soil no steeper than ``bush_slope``, thicker in the forest;
- rocks on rock, or within ``rock_reach`` m of a rock face (boulders at its foot and brow), no steeper than
  ``rock_slope``;
- crates in clearings (grass, no steeper than ``crate_slope``, where the forest mask is off);
- nothing on sand (below the sand level), on slopes steeper than a kind's limit (rock faces), where a cave
  entrance may open, or within ``edge_margin`` m of the world's edges. The generator makes no water; lava lies
  16 m or more underground.

Examples
--------
>>> from voxelworld.terrain import GeneratorSettings
>>> generator = GeneratorSettings(size=256.0, seed=7)
>>> things = scatter_chunk_column(generator, ScatterSettings(), (4, 4))
>>> things == scatter_chunk_column(generator, ScatterSettings(), (4, 4))
True
>>> [THING_KINDS[k].name for k in sorted(set(things.kind.tolist()))]
['tree', 'bush']
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError, check_finite, check_integer
from ._kernels import scatter as _k
from ._worldgen_kernels import noise_key
from .worldgen import CHUNK_SIZE, GeneratorSettings

_THING_ARRAYS = ("kind", "position", "yaw", "scale")
__all__ = ["ThingKind", "THING_KINDS", "ScatterSettings", "Things", "scatter_chunk_column", "column_count"]


@dataclass(frozen=True)
class ThingKind:
    """A kind of thing: its ``name``, the ``radius`` (m) of what stands in the way (a trunk, a rock) and its
    ``height`` (m) at scale 1; ``falls``: whether it falls over when dug under (trees) instead of vanishing."""

    name: str
    radius: float
    height: float
    falls: bool = False


# Kinds by index (the Things.kind values): the page draws one instanced mesh per kind.
THING_KINDS = (ThingKind("tree", 0.3, 8.0, True), ThingKind("pine", 0.3, 10.0, True), ThingKind("bush", 0.5, 1.2),
               ThingKind("rock", 0.9, 1.3), ThingKind("crate", 0.45, 0.9))
KIND_NAMES = tuple(kind.name for kind in THING_KINDS)
_SEED_FIELD = 1000  # the scatter's keys are the generator's noise keys of fields 1000 + ...


@dataclass(frozen=True)
class ScatterSettings:
    """How densely, and where, the things of a generated world stand; each is checked on construction.

    Parameters
    ----------
    tree_density, pine_density, bush_density, rock_density, crate_density : float
        Candidates per hectare (0..2000) of each kind; a candidate stays where its kind's rules allow (the forest
        mask keeps about half of the trees' and bushes' on grass). Defaults 120, 90, 60, 80 and 4: about 2 300-2 700
        trees and pines, 1 600-1 700 bushes, 200-500 rocks and 30 crates a km² on the default 1 km generator.
    tree_slope, bush_slope, rock_slope, crate_slope : float
        Degrees in (0, 90): the steepest surface each kind stands on (trees and pines share ``tree_slope``).
        Defaults 30, 35, 45, 12.
    rock_reach : float
        m (0..16): a rock lies within this of a rock surface. Default 3.
    pine_above : float
        m: pines replace broadleaf trees above the ground level plus this (over 8 m of mixed forest). Default 6.
    forest_scale : float
        m (> 0): the width of the forest's patches and clearings. Default 96.
    edge_margin : float
        m (>= 0): nothing within this of the world's edges. Default 1.
    seed : int
        0 <= seed < 2**63, mixed with the generator's seed: another scatter on the same terrain. Default 0.
    """

    tree_density: float = 120.0
    pine_density: float = 90.0
    bush_density: float = 60.0
    rock_density: float = 80.0
    crate_density: float = 4.0
    tree_slope: float = 30.0
    bush_slope: float = 35.0
    rock_slope: float = 45.0
    crate_slope: float = 12.0
    rock_reach: float = 3.0
    pine_above: float = 6.0
    forest_scale: float = 96.0
    edge_margin: float = 1.0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("tree_density", "pine_density", "bush_density", "rock_density", "crate_density"):
            object.__setattr__(self, name, check_finite(name, getattr(self, name), minimum=0.0, maximum=2000.0,
                                                        unit="per hectare"))
        for name in ("tree_slope", "bush_slope", "rock_slope", "crate_slope"):
            value = check_finite(name, getattr(self, name), minimum=0.0, maximum=90.0, unit="degrees")
            if not 0.0 < value < 90.0:
                raise ParameterError(name, value, "a finite number in (0, 90) (degrees)")
            object.__setattr__(self, name, value)
        object.__setattr__(self, "rock_reach", check_finite("rock_reach", self.rock_reach, minimum=0.0, maximum=16.0,
                                                            unit="m"))
        object.__setattr__(self, "pine_above", check_finite("pine_above", self.pine_above, unit="m"))
        object.__setattr__(self, "forest_scale", check_finite("forest_scale", self.forest_scale, minimum=0.0,
                                                              strict_minimum=True, unit="m"))
        object.__setattr__(self, "edge_margin", check_finite("edge_margin", self.edge_margin, minimum=0.0, unit="m"))
        object.__setattr__(self, "seed", check_integer("seed", self.seed, minimum=0, maximum=2 ** 63 - 1))

    @property
    def densities(self) -> tuple[float, ...]:
        """Candidates per hectare of each kind, in :data:`THING_KINDS` order."""
        return (self.tree_density, self.pine_density, self.bush_density, self.rock_density, self.crate_density)

    @property
    def slopes(self) -> tuple[float, ...]:
        """The steepest slope (degrees) of each kind, in :data:`THING_KINDS` order."""
        return (self.tree_slope, self.tree_slope, self.bush_slope, self.rock_slope, self.crate_slope)

    def params(self, generator: GeneratorSettings) -> tuple[_k.ScatterParams, np.ndarray]:
        """The kernel's parameters and the kinds' keys on ``generator``'s world."""
        column = CHUNK_SIZE * generator.voxel_size
        area = column * column / 10000.0  # ha
        seed = (generator.seed ^ (self.seed * 0x9E3779B97F4A7C15)) & (2 ** 63 - 1)
        keys = np.array([noise_key(seed, _SEED_FIELD + t) for t in range(_k.KIND_COUNT + 1)], dtype=np.uint64)
        params = _k.ScatterParams(
            column=column, world=generator.size, margin=self.edge_margin,
            slope=np.array([math.tan(math.radians(s)) for s in self.slopes]),
            per_column=np.array([d * area for d in self.densities]), rock_reach=self.rock_reach,
            pine_level=generator.ground_level + self.pine_above, forest_scale=self.forest_scale,
            forest_key=keys[-1])
        return params, keys[:-1].copy()


@dataclass(frozen=True, eq=False)
class Things:
    """Things of a chunk column, as arrays of one row per thing.

    Attributes
    ----------
    kind : numpy.ndarray
        (n,) uint8: index into :data:`THING_KINDS`.
    position : numpy.ndarray
        (n, 3) float64: the base of the thing on the generated ground (m).
    yaw : numpy.ndarray
        (n,) float32: degrees, 0..360, about +y.
    scale : numpy.ndarray
        (n,) float32: 0.75..1.25 of the kind's size.
    """

    kind: np.ndarray
    position: np.ndarray
    yaw: np.ndarray
    scale: np.ndarray

    def __len__(self) -> int:
        return len(self.kind)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Things) and all(
            np.array_equal(getattr(self, name), getattr(other, name))
            and getattr(self, name).dtype == getattr(other, name).dtype for name in _THING_ARRAYS)

    __hash__ = None  # type: ignore[assignment]  # arrays

    @classmethod
    def empty(cls) -> Things:
        return cls(np.zeros(0, np.uint8), np.zeros((0, 3)), np.zeros(0, np.float32), np.zeros(0, np.float32))


def column_count(generator: GeneratorSettings) -> tuple[int, int]:
    """Chunk columns of ``generator``'s world along x and z (chunks of ``CHUNK_SIZE`` voxels)."""
    across = -(-generator.shape[0] // CHUNK_SIZE)
    return across, across


def scatter_chunk_column(generator: GeneratorSettings, settings: ScatterSettings,
                         column: tuple[int, int]) -> Things:
    """The things of chunk column ``column`` = (ci, ck) of ``generator``'s world (chunks of ``CHUNK_SIZE``
    voxels: the column spans x in [ci, ci + 1) and z in [ck, ck + 1) times ``CHUNK_SIZE * voxel_size`` m).

    Parameters
    ----------
    generator : GeneratorSettings
        The world (its seed, surface and strata).
    settings : ScatterSettings
    column : (int, int)
        0 <= ci, ck < :func:`column_count`.

    Returns
    -------
    Things
        Kinds in :data:`THING_KINDS` order, each kind's things in the order they were drawn; a pure function of
        the arguments.
    """
    if not isinstance(generator, GeneratorSettings):
        raise ParameterError("generator", generator, "a GeneratorSettings")
    if not isinstance(settings, ScatterSettings):
        raise ParameterError("settings", settings, "a ScatterSettings")
    count = column_count(generator)
    if not (isinstance(column, (tuple, list)) and len(column) == 2):
        raise ParameterError("column", column, f"(ci, ck), chunk column indices below {count}")
    ci, ck = (check_integer(f"column[{n}]", c, minimum=0, maximum=count[n] - 1) for n, c in enumerate(column))
    params, keys = settings.params(generator)
    most = int(sum(math.floor(m) + 1 for m in params.per_column))
    kind = np.empty(most, np.uint8)
    position = np.empty((most, 3))
    yaw = np.empty(most, np.float32)
    scale = np.empty(most, np.float32)
    n = _k.scatter_column(generator._params(), generator._keys(), params, keys, ci, ck, kind, position, yaw, scale)
    return Things(kind[:n].copy(), position[:n].copy(), yaw[:n].copy(), scale[:n].copy())
