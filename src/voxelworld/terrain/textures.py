"""Procedural material textures: the pictures every renderer draws a material's ``texture`` with.

:func:`texture_set` turns a :class:`~voxelworld.terrain.MaterialTable` into a :class:`TextureSet`: one layer
per distinct texture name, each a tileable :data:`TEXTURE_SIZE` x :data:`TEXTURE_SIZE` picture made here from
seeded noise (no files, no downloads), with an albedo (sRGB colour and a height for bumps) and a surface map
(roughness, metalness, emission). The renderers map a layer onto the terrain triplanarly, one tile every
:data:`TEXTURE_METRES` metres of world position, and blend a vertex's two materials' layers by its ``blend``.

Known texture names (those of the default table: grass, soil, sand, rock, rock_interior, bark, wood, lava,
obsidian, ice, iron) have recipes of their own; any other name gets a generic mottled recipe. Every layer's
mean albedo is pulled onto the colour of the first material (lowest id) naming the texture, so the palette
(:meth:`MaterialTable.palette`) stays the picture's average, the colour used where no picture can be drawn.

Examples
--------
>>> from voxelworld.terrain import MaterialTable, texture_set
>>> textures = texture_set(MaterialTable.default())
>>> textures.names[:3], textures.albedo.shape
(('grass', 'soil', 'sand'), (11, 128, 128, 4))
>>> int(textures.layer_of[0]), int(textures.layer_of[MaterialTable.default().id_of("iron")])
(-1, 10)
>>> bool(textures.surface[10, ..., 1].mean() > 200)  # iron is a metal
True
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np

from ..errors import check_range
from .materials import MaterialTable

__all__ = ["TEXTURE_SIZE", "TEXTURE_METRES", "TextureSet", "texture_set", "UNTEXTURED_PREFIX", "KNOWN_TEXTURES"]

TEXTURE_SIZE = 128  # pixels per side of every layer; each layer tiles in both directions
TEXTURE_METRES = 2.0  # world metres one tile covers: the triplanar mapping samples at world position / this
UNTEXTURED_PREFIX = "colour:"  # a material with texture "" gets its own plain layer, named this + its name


@dataclass(frozen=True)
class TextureSet:
    """The texture layers of a material table, as arrays any renderer can upload.

    Attributes
    ----------
    names : tuple of str
        Layer ``i`` draws the texture ``names[i]`` (a material without a texture: ``"colour:<material>"``).
    albedo : ndarray
        (L, S, S, 4) uint8: sRGB red, green, blue, and in alpha a height (0 low .. 255 high) for bumps.
        Row ``v``, column ``u``: ``albedo[layer, v, u]``; both directions tile.
    surface : ndarray
        (L, S, S, 4) uint8: red = roughness (0 mirror .. 255 matte), green = metalness (0 .. 255 metal), blue =
        emission (0 .. 255: how strongly the albedo glows, unlit), alpha = 255.
    layer_of : ndarray
        (256,) int32: the layer each material id draws; -1 for id 0 ("none") and ids the table lacks.

    The arrays are read-only. Construction checks their shapes and types (:class:`ParameterError`).
    """

    names: tuple[str, ...]
    albedo: np.ndarray
    surface: np.ndarray
    layer_of: np.ndarray

    def __post_init__(self) -> None:
        names = self.names
        check_range("names", names, "a tuple of strings", isinstance(names, tuple)
                    and all(isinstance(name, str) for name in names))
        layers = len(names)
        for field in ("albedo", "surface"):
            array = getattr(self, field)
            check_range(field, _shape_of(array), f"a uint8 array of shape ({layers}, S, S, 4), one layer per name",
                        isinstance(array, np.ndarray) and array.dtype == np.uint8 and array.ndim == 4
                        and array.shape[0] == layers and array.shape[1] == array.shape[2] >= 1
                        and array.shape[3] == 4)
        check_range("surface", _shape_of(self.surface), f"the shape of albedo, {self.albedo.shape}",
                    self.surface.shape == self.albedo.shape)
        layer_of = self.layer_of
        check_range("layer_of", _shape_of(layer_of), f"an int32 array of 256 layer numbers from -1 to {layers - 1}",
                    isinstance(layer_of, np.ndarray) and layer_of.dtype == np.int32 and layer_of.shape == (256,)
                    and bool(np.all((layer_of >= -1) & (layer_of < layers))))
        for field in ("albedo", "surface", "layer_of"):
            array = np.array(getattr(self, field))  # a private copy: nobody can change the set from outside
            array.flags.writeable = False
            object.__setattr__(self, field, array)

    @property
    def size(self) -> int:
        """Pixels per side of every layer."""
        return int(self.albedo.shape[1])

    def mean_albedo(self) -> np.ndarray:
        """(L, 3) float64: each layer's average sRGB colour in [0, 1] (its palette colour)."""
        return self.albedo[..., :3].reshape(len(self.names), -1, 3).mean(axis=1) / 255.0


def _shape_of(array: object) -> object:
    return f"<{array.dtype} array of shape {array.shape}>" if isinstance(array, np.ndarray) else array


def texture_set(materials: MaterialTable) -> TextureSet:
    """The textures of ``materials``: one layer per distinct texture name, in the order material ids first name
    them. Same table, same bytes.

    Parameters
    ----------
    materials : MaterialTable
        Each material's ``texture`` picks its layer; its ``colour`` tints the layer when it is the first (lowest
        id) material naming that texture.

    Returns
    -------
    TextureSet

    Raises
    ------
    ParameterError
        ``materials`` is not a MaterialTable.

    Examples
    --------
    >>> from voxelworld.terrain import Material, MaterialTable
    >>> table = MaterialTable([Material(1, "moss", "plant", 1.0, "#336622", texture="moss"),
    ...                        Material(2, "stone", "rock", 5.0, "#888888", texture="rock")])
    >>> textures = texture_set(table)
    >>> textures.names, textures.layer_of[:3].tolist()
    (('moss', 'rock'), [-1, 0, 1])
    >>> textures.mean_albedo()[0].round(1).tolist()  # an unknown name: mottled, in moss's colour
    [0.2, 0.4, 0.1]
    """
    check_range("materials", materials, "a voxelworld.terrain.MaterialTable", isinstance(materials, MaterialTable))
    names: list[str] = []
    colours: list[tuple[float, float, float]] = []
    layer_of = np.full(256, -1, dtype=np.int32)
    for material in sorted(materials, key=lambda m: m.id):
        name = material.texture or UNTEXTURED_PREFIX + material.name
        if name not in names:
            names.append(name)
            colours.append(material.colour)
        layer_of[material.id] = names.index(name)
    albedo = np.zeros((len(names), TEXTURE_SIZE, TEXTURE_SIZE, 4), dtype=np.uint8)
    surface = np.zeros_like(albedo)
    for layer, (name, colour) in enumerate(zip(names, colours)):
        albedo[layer], surface[layer] = _layer(name, colour)
    return TextureSet(tuple(names), albedo, surface, layer_of)


# --- one layer ----------------------------------------------------------------------------------------------


@dataclass
class _Maps:
    """What a recipe draws, as floats: ``rgb`` (S, S, 3) sRGB around the material's colour (any mean: it is
    pulled onto the colour afterwards), ``height``, ``roughness``, ``metalness``, ``emission`` (S, S) in [0, 1]."""

    rgb: np.ndarray
    height: np.ndarray
    roughness: np.ndarray | float
    metalness: np.ndarray | float = 0.0
    emission: np.ndarray | float = 0.0


def _layer(name: str, colour: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
    recipe = _RECIPES.get(name, _generic)
    noise = _Noise(zlib.crc32(name.encode("utf-8")))
    maps = recipe(noise, np.array(colour, dtype=np.float64))
    rgb = _pull_mean(maps.rgb, np.array(colour))
    shape = (TEXTURE_SIZE, TEXTURE_SIZE)
    albedo = np.dstack([rgb, np.broadcast_to(maps.height, shape)])
    surface = np.dstack([np.broadcast_to(maps.roughness, shape), np.broadcast_to(maps.metalness, shape),
                         np.broadcast_to(maps.emission, shape), np.ones(shape)])
    return _bytes(albedo), _bytes(surface)


def _bytes(values: np.ndarray) -> np.ndarray:
    return np.round(np.clip(values, 0.0, 1.0) * 255.0).astype(np.uint8)


def _pull_mean(rgb: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """``rgb`` shifted so that its mean (after clipping to [0, 1]) is ``colour``; the pattern's contrast stays."""
    for _ in range(8):  # clipping moves the mean again; a few rounds settle it
        rgb = np.clip(rgb + (colour - rgb.reshape(-1, 3).mean(axis=0)), 0.0, 1.0)
    return rgb


class _Noise:
    """Tileable noise over the texture's pixels, seeded by a number: value noise, fBm, cells (Worley)."""

    def __init__(self, seed: int):
        self.seed = seed
        self.count = 0
        pixels = np.arange(TEXTURE_SIZE, dtype=np.float64)
        self.u, self.v = np.meshgrid(pixels, pixels)  # column (u) and row (v) of every pixel

    def _rng(self) -> np.random.Generator:
        self.count += 1  # each call draws a fresh, reproducible lattice
        return np.random.default_rng([self.seed, self.count])

    def value(self, cells_u: int, cells_v: int | None = None, u: np.ndarray | None = None,
              v: np.ndarray | None = None) -> np.ndarray:
        """Smooth value noise in [0, 1] on a lattice of ``cells_u`` x ``cells_v`` cells per tile, tileable;
        sampled at pixel coordinates ``u``, ``v`` (default: every pixel; other coordinates wrap)."""
        cells_v = cells_v or cells_u
        lattice = self._rng().random((cells_v, cells_u))
        u = self.u if u is None else u
        v = self.v if v is None else v
        x, y = u * cells_u / TEXTURE_SIZE, v * cells_v / TEXTURE_SIZE
        x0, y0 = np.floor(x), np.floor(y)
        fx, fy = _smooth(x - x0), _smooth(y - y0)
        i0, j0 = x0.astype(np.int64) % cells_u, y0.astype(np.int64) % cells_v
        i1, j1 = (i0 + 1) % cells_u, (j0 + 1) % cells_v
        top = lattice[j0, i0] * (1 - fx) + lattice[j0, i1] * fx
        bottom = lattice[j1, i0] * (1 - fx) + lattice[j1, i1] * fx
        return top * (1 - fy) + bottom * fy

    def fbm(self, cells: int, octaves: int, gain: float = 0.5, stretch: int = 1, along_v: bool = False,
            u: np.ndarray | None = None, v: np.ndarray | None = None) -> np.ndarray:
        """Fractal sum of ``octaves`` value noises from ``cells`` cells per tile, doubling; in [0, 1].
        ``stretch`` > 1 makes the cells that many times longer along u (or v: ``along_v``) than across."""
        total: np.ndarray | float = 0.0
        weight, amplitude = 0.0, 1.0
        for octave in range(octaves):
            across = cells << octave
            along = max(across // stretch, 1)
            counts = (across, along) if along_v else (along, across)
            total = total + amplitude * self.value(*counts, u, v)
            weight += amplitude
            amplitude *= gain
        return cast(np.ndarray, total) / weight  # an array: octaves >= 1 (0 divides by a weight of 0)

    def cells(self, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Worley cells, ``count`` x ``count`` jittered points per tile: the distance to the nearest point and to
        the second nearest (in cell widths), and a random value in [0, 1] per nearest point's cell."""
        rng = self._rng()
        jitter = rng.random((count, count, 2))
        value = rng.random((count, count))
        x, y = self.u * count / TEXTURE_SIZE, self.v * count / TEXTURE_SIZE
        cx, cy = np.floor(x).astype(np.int64), np.floor(y).astype(np.int64)
        first = np.full(x.shape, np.inf)
        second = np.full(x.shape, np.inf)
        nearest = np.zeros(x.shape)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                ix, iy = cx + dx, cy + dy
                wx, wy = ix % count, iy % count
                distance = np.hypot(ix + jitter[wy, wx, 0] - x, iy + jitter[wy, wx, 1] - y)
                closer = distance < first
                second = np.where(closer, first, np.minimum(second, distance))
                nearest = np.where(closer, value[wy, wx], nearest)
                first = np.where(closer, distance, first)
        return first, second, nearest

    def speckle(self, density: float) -> np.ndarray:
        """1 at about ``density`` of the pixels, chosen at random, else 0."""
        return (self._rng().random(self.u.shape) < density).astype(np.float64)


def _smooth(t: np.ndarray) -> np.ndarray:
    return t * t * (3.0 - 2.0 * t)


def _band(t: np.ndarray, width: float) -> np.ndarray:
    """1 where ``t`` is 0, falling to 0 at ``width`` (a soft line)."""
    return np.clip(1.0 - t / width, 0.0, 1.0)


def _tint(grey: np.ndarray, colour: np.ndarray, contrast: float) -> np.ndarray:
    """The colour scaled by ``1 + contrast * (grey - 0.5)``: light and dark of one hue."""
    return colour * (1.0 + contrast * (grey[..., None] - 0.5))


def _mix(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    return a * (1.0 - t[..., None]) + b * t[..., None]


# --- recipes: each draws around the material's colour; _layer pulls its mean onto that colour -------------------

def _grass(noise: _Noise, colour: np.ndarray) -> _Maps:
    # Blades: fine streaks of light and dark green (long along v), warmer tufts, and a little soil between.
    blades = noise.fbm(32, 2) * 0.5 + noise.fbm(64, 1) * 0.5
    streak = noise.value(64, 16)
    tufts = noise.fbm(4, 3)
    dry = colour * np.array([1.35, 1.15, 0.7])
    rgb = _mix(_tint(blades * 0.6 + streak * 0.4, colour, 1.3), dry, np.clip((tufts - 0.6) * 2.0, 0, 1) * 0.6)
    gaps = np.clip((0.3 - blades) * 6.0, 0, 1) * noise.speckle(0.5)
    rgb = _mix(rgb, np.array([0.3, 0.22, 0.14]) * np.ones_like(rgb), gaps * 0.8)
    return _Maps(rgb, blades * 0.7 + streak * 0.3, 0.85)


def _soil(noise: _Noise, colour: np.ndarray) -> _Maps:
    # Clods: cells of earth, darker in the cracks between them, with small pale pebbles.
    first, second, shade = noise.cells(10)
    crumbs = noise.fbm(16, 3)
    clods = 0.55 + 0.25 * shade + 0.2 * crumbs
    rgb = _tint(clods, colour, 0.9) * (1.0 - 0.45 * _band(second - first, 0.18))[..., None]
    pebble = _band(noise.cells(24)[0], 0.22) * (noise.value(24) > 0.7)
    rgb = _mix(rgb, colour * 1.6, pebble * 0.7)
    height = np.clip(clods - 0.5 * _band(second - first, 0.18) + 0.3 * pebble, 0, 1)
    return _Maps(rgb, height, 0.95)


def _sand(noise: _Noise, colour: np.ndarray) -> _Maps:
    # Fine pale grain over gentle wind ripples.
    grain = noise.speckle(0.5) * 0.5 + noise.value(64) * 0.5
    warp = noise.fbm(4, 2) * 12.0
    ripples = 0.5 + 0.5 * np.sin(2 * np.pi * (noise.v * 10 + warp) / TEXTURE_SIZE)
    rgb = _tint(0.35 * ripples + 0.65 * grain, colour, 0.35)
    dark = noise.speckle(0.03)
    rgb = _mix(rgb, colour * 0.55, dark)
    return _Maps(rgb, 0.6 * ripples + 0.4 * grain, 0.9)


def _rock(noise: _Noise, colour: np.ndarray) -> _Maps:
    # Grey stone in strata (bands along u, bent a little) broken by dark cracks along cell edges.
    body = noise.fbm(4, 5, gain=0.55)
    bend = noise.fbm(2, 3) * 24.0
    strata = 0.5 + 0.5 * np.sin(2 * np.pi * (noise.v * 4 + bend) / TEXTURE_SIZE)
    first, second, facet = noise.cells(5)
    crack = _band(second - first, 0.06) * np.clip((noise.fbm(8, 2) - 0.42) * 8.0, 0, 1)
    grey = 0.6 * body + 0.25 * strata + 0.15 * facet
    rgb = _tint(grey, colour, 0.8) * (1.0 - 0.6 * crack)[..., None]
    rgb = rgb + 0.03 * (noise.speckle(0.08) - 0.08)[..., None]
    return _Maps(rgb, np.clip(grey - 0.6 * crack, 0, 1), 0.8 - 0.1 * facet)


def _rock_interior(noise: _Noise, colour: np.ndarray) -> _Maps:
    # A fresh cut: granular, lighter, sharp-edged chips, few cracks.
    grain = noise.value(64) * 0.5 + noise.speckle(0.5) * 0.2 + noise.fbm(8, 3) * 0.3
    first, second, chip = noise.cells(12)
    grey = 0.6 * grain + 0.4 * chip
    rgb = _tint(grey, colour, 0.7) * (1.0 - 0.25 * _band(second - first, 0.08))[..., None]
    flecks = noise.speckle(0.02)
    rgb = _mix(rgb, np.minimum(colour * 1.5, 1.0) * np.ones_like(rgb), flecks)
    return _Maps(rgb, grey, 0.75)


def _bark(noise: _Noise, colour: np.ndarray) -> _Maps:
    # Deep furrows running along v (up a trunk when v is vertical), plates between them.
    ridges = noise.fbm(12, 3, stretch=8, along_v=True)
    furrow = np.clip((0.5 - ridges) * 4.0, 0, 1)
    plates = noise.cells(6)[2]
    rgb = _tint(0.6 * ridges + 0.4 * plates, colour, 0.8) * (1.0 - 0.6 * furrow)[..., None]
    return _Maps(rgb, np.clip(ridges - 0.5 * furrow, 0, 1), 0.95)


def _wood(noise: _Noise, colour: np.ndarray) -> _Maps:
    # Growth rings seen as grain: bent bands along u, with fine fibres.
    bend = noise.fbm(2, 3) * 24.0
    rings = 0.5 + 0.5 * np.sin(2 * np.pi * (noise.v * 9 + bend) / TEXTURE_SIZE)
    rings = rings ** 3
    fibres = noise.value(4, 64)
    grey = 0.65 * (1.0 - rings) + 0.35 * fibres
    return _Maps(_tint(grey, colour, 0.7), grey, 0.7)


def _lava(noise: _Noise, colour: np.ndarray) -> _Maps:
    # A dark cooling crust in plates; between the plates, glowing cracks (bright, hot, emissive).
    first, second, plate = noise.cells(6)
    wobble = noise.fbm(8, 3)
    crack = _band(second - first - 0.15 * wobble, 0.3)
    crust = colour * np.array([0.55, 0.35, 0.4]) * (0.7 + 0.6 * plate)[..., None]
    glow = np.minimum(colour * np.array([1.0, 1.9, 2.5]) + 0.05, 1.0)
    rgb = _mix(crust * np.ones((TEXTURE_SIZE, TEXTURE_SIZE, 1)), glow * np.ones_like(crust), crack)
    emission = 0.25 + 0.75 * crack
    return _Maps(rgb, 1.0 - crack, 0.6 + 0.3 * (1.0 - crack), 0.0, emission)


def _obsidian(noise: _Noise, colour: np.ndarray) -> _Maps:
    # Glossy black glass: conchoidal (shell-like) facets with faint lighter edges.
    first, second, facet = noise.cells(7)
    shells = 0.5 + 0.5 * np.sin(first * 9.0)
    grey = 0.5 * facet + 0.3 * shells + 0.2 * noise.fbm(8, 2)
    rgb = _tint(grey, colour, 0.9) + 0.12 * _band(second - first, 0.05)[..., None]
    return _Maps(rgb, grey, 0.08 + 0.08 * facet)


def _ice(noise: _Noise, colour: np.ndarray) -> _Maps:
    # Pale blue, cloudy depth, thin white fractures; smooth and glossy.
    cloud = noise.fbm(4, 4)
    first, second, _ = noise.cells(4)
    fracture = _band(second - first, 0.04) * (noise.fbm(4, 2) > 0.45)
    rgb = _tint(cloud, colour, 0.25)
    rgb = _mix(rgb, np.ones_like(rgb), fracture * 0.8)
    bubbles = noise.speckle(0.01)
    rgb = _mix(rgb, np.ones_like(rgb), bubbles * 0.5)
    return _Maps(rgb, cloud * 0.3 + 0.5, 0.12 + 0.15 * cloud)


def _iron(noise: _Noise, colour: np.ndarray) -> _Maps:
    # Brushed metal: long fine streaks along u, a few darker ore inclusions and rust-brown spots.
    brushed = noise.fbm(32, 2, stretch=16)
    blotch = noise.fbm(4, 3)
    first, _, _ = noise.cells(8)
    ore = _band(first, 0.25) * (blotch > 0.55)
    rgb = _tint(0.7 * brushed + 0.3 * blotch, colour * np.array([0.96, 1.0, 1.07]), 0.45)
    rgb = _mix(rgb, np.array([0.42, 0.28, 0.2]) * np.ones_like(rgb), ore * 0.7)
    metalness = 0.95 - 0.8 * ore
    roughness = 0.3 + 0.2 * brushed + 0.4 * ore
    return _Maps(rgb, 0.5 + 0.3 * brushed - 0.3 * ore, roughness, metalness)


def _generic(noise: _Noise, colour: np.ndarray) -> _Maps:
    # A texture without a recipe: mottled in the colour of the first material naming it.
    mottle = noise.fbm(4, 4)
    return _Maps(_tint(mottle, colour, 0.5), mottle, 0.8)


_RECIPES: dict[str, Callable[[_Noise, np.ndarray], _Maps]] = {
    "grass": _grass, "soil": _soil, "sand": _sand, "rock": _rock, "rock_interior": _rock_interior,
    "bark": _bark, "wood": _wood, "lava": _lava, "obsidian": _obsidian, "ice": _ice, "iron": _iron,
}
KNOWN_TEXTURES = tuple(_RECIPES)  # the texture names with a recipe of their own
