"""What a world reports after a frame: :class:`AimInfo` (what the player aims at, for the HUD) and
:class:`Snapshot` (what a renderer needs)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import check_range
from .objects import ObjectTransform
from .poses import CharacterPose


@dataclass(frozen=True)
class AimInfo:
    """What the player aims at (the HUD): the hit ``point`` and ``normal``, ``distance`` (m) from the eye, the
    collision triangle's ``material`` name and its ``hardness``; for terrain the first solid ``voxel``
    (i, j, k) along the ray near the hit and its ``damage`` against the player's tool, whoever did it (at most
    ``break_at``; 0 where the tool breaks the voxel at once or never: :func:`~voxelworld.game.aim.player_damage`),
    the voxel's own accumulated damage in ``voxel_damage``; for a prop its name in ``prop`` (voxel and
    damage None). ``reaches`` gives how far (m, from the eye) punch, pull-out and suck reach and ``in_reach``
    whether the hit lies within each; ``break_at`` is the damage at which the aimed voxel gives way to the
    player's tool (:meth:`~voxelworld.terrain.Tool.break_threshold` of the voxel's hardness: 0 at once, None
    when it never does, and for a prop)."""

    point: tuple[float, float, float]
    normal: tuple[float, float, float]
    distance: float
    material: str
    hardness: float
    voxel: tuple[int, int, int] | None
    damage: int | None
    prop: str | None
    reaches: dict[str, float] = field(default_factory=dict)  # action -> m
    in_reach: dict[str, bool] = field(default_factory=dict)  # action -> whether distance <= its reach
    break_at: int | None = None  # damage units
    voxel_damage: int | None = None  # damage units, as the voxel holds it (every tool's hits)


@dataclass(frozen=True)
class Snapshot:
    """What a renderer needs after a frame: the player's feet ``player_position`` (m) and view
    (``player_yaw``, ``player_pitch``, degrees), the camera (``camera_eye`` and unit ``camera_direction``),
    the moving ``objects``, the chunks whose display mesh changed (read them from ``world.mesher.meshes``) and
    the player's stats, ``player_stamina`` and ``player_currency`` (what the HUD shows), and every actor's pose on
    the shipped character, ``characters`` (:mod:`voxelworld.game.poses`: the player, the NPCs, the enemies)."""

    frame: int
    time: float
    player_position: tuple[float, float, float]
    player_yaw: float
    player_pitch: float
    camera_eye: tuple[float, float, float]
    camera_direction: tuple[float, float, float]
    objects: tuple[ObjectTransform, ...]
    changed_chunks: frozenset[tuple[int, int, int]]
    player_stamina: float = 0.0
    player_currency: float = 0.0
    characters: tuple[CharacterPose, ...] = ()

    def __post_init__(self) -> None:
        # The next frame's poses go on from these (a world read from a file too): check them.
        characters = self.characters
        check_range("characters", characters, "a sequence of CharacterPose", isinstance(characters, (tuple, list))
                    and all(isinstance(c, CharacterPose) for c in characters))
        object.__setattr__(self, "characters", tuple(characters))
