"""How a chainsaw enemy reacts to the player (issue 32): it notices a player within a few metres, turns and swings
at them, its blade hurts (stamina), and the player can stop it for good.

A world calls :func:`notice` for each enemy before the enemy's frame and :func:`strike` after it (its cast,
``world.agents``, in the "events" stage) while ``WorldSettings.enemy_reacts`` is on; off, the enemies work their
walls whoever comes near (the frame benchmarks keep their workload so). Every reaction is an
:class:`~voxelworld.game.events.EnemyChanged` event with ``material`` "player":

- ``noticed`` (``amount``: the distance, m): the player came within ``notice_distance`` (x-z, feet to feet, the
  feet at most ``notice_height`` apart in y); the enemy stands, turns towards them at its ``turn_speed`` and swings
  at them (:attr:`ChainsawEnemy.threat <voxelworld.game.enemy.ChainsawEnemy.threat>`). ``forgot``: the player went
  farther than ``forget_distance``; the enemy turns back to its wall and works on.
- ``struck`` (``amount``: the stamina taken): the blade met the player's body (a capsule of the player's radius
  and height) at most once every ``strike_interval`` s; the player loses ``blade_stamina``.
- ``hit`` (``amount``: hits so far): a thrown bullet or piece met the enemy's body (a capsule of ``body_radius``
  and the enemy's height); it drops at the enemy's feet as a fragment. ``stopped`` (``amount`` 0; the reason in
  :attr:`~voxelworld.game.enemy.ChainsawEnemy.stopped`, and in the event's ``kind``: ``stopped_shot``,
  ``stopped_buried``, ``stopped_fell``): after ``hits_to_stop`` hits, or when terrain covers it at
  ``bury_height`` above its feet, or when the ground under its feet lies more than ``fall_height`` below them
  (the player cut it away: it drops onto what is left). The last two are looked at only in frames where someone
  else's edit changed the terrain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from ..errors import check_finite, check_integer
from .enemy import ChainsawEnemy
from .events import EnemyChanged
from .ground import ground_height
from .seats import every_actions, nearest_player

if TYPE_CHECKING:
    from .player import Player
    from .world import World

__all__ = ["ReactionSettings", "notice", "strike", "segment_distance"]

MAX_REACTION = 1000.0  # the largest length (m), time (s) or stamina a reaction setting takes


@dataclass(frozen=True)
class ReactionSettings:
    """How chainsaw enemies react to the player (see the module). Lengths in m, times in s, each > 0 and at most
    ``MAX_REACTION`` (``blade_stamina`` >= 0); ``forget_distance`` at least ``notice_distance``.

    >>> ReactionSettings().notice_distance, ReactionSettings().hits_to_stop
    (4.0, 3)
    """

    notice_distance: float = 4.0  # m: a player this near (x-z) is noticed
    forget_distance: float = 6.0  # m: and forgotten beyond this
    notice_height: float = 3.0  # m: their feet at most this far apart in y
    blade_stamina: float = 15.0  # stamina a blade hit takes
    strike_interval: float = 0.5  # s: the least time between two blade hits
    body_radius: float = 0.4  # m: the enemy's body, for bullets
    hits_to_stop: int = 3  # bullets that stop it
    bury_height: float = 1.2  # m above its feet: terrain there buries it
    fall_height: float = 1.0  # m: ground this far below its feet and it falls

    def __post_init__(self) -> None:
        for name in ("notice_distance", "forget_distance", "notice_height", "strike_interval", "body_radius",
                     "bury_height", "fall_height", "blade_stamina"):
            strict = name != "blade_stamina"
            object.__setattr__(self, name, check_finite(name, getattr(self, name), minimum=0.0, maximum=MAX_REACTION,
                                                        strict_minimum=strict, unit="" if not strict else "m"))
        object.__setattr__(self, "forget_distance", check_finite(
            "forget_distance", self.forget_distance, minimum=self.notice_distance, maximum=MAX_REACTION, unit="m"))
        object.__setattr__(self, "hits_to_stop", check_integer("hits_to_stop", self.hits_to_stop, minimum=1))


def segment_distance(a0: np.ndarray, a1: np.ndarray, b0: np.ndarray, b1: np.ndarray) -> float:
    """The least distance (m) between the segments a0-a1 and b0-b1 (either may be a point).

    >>> segment_distance(np.zeros(3), np.array([1.0, 0, 0]), np.array([0.5, 1, -1]), np.array([0.5, 1, 1]))
    1.0
    """
    u, v, w = a1 - a0, b1 - b0, a0 - b0
    a, b, c, d, e = float(u @ u), float(u @ v), float(v @ v), float(u @ w), float(v @ w)
    denominator = a * c - b * b
    s = 0.0 if denominator <= 1e-12 * max(a * c, 1e-300) else min(max((b * e - c * d) / denominator, 0.0), 1.0)
    t = (b * s + e) / c if c > 1e-300 else 0.0
    if t < 0.0 or t > 1.0:
        t = min(max(t, 0.0), 1.0)
        s = min(max((b * t - d) / a, 0.0), 1.0) if a > 1e-300 else 0.0
    return float(np.linalg.norm(w + u * s - v * t))


def _player_body(player: Player) -> tuple[np.ndarray, np.ndarray, float]:
    settings, feet = player.settings, player.position
    return (feet + (0.0, settings.radius, 0.0), feet + (0.0, settings.height - settings.radius, 0.0),
            settings.radius)


def _emit(world: World, enemy: ChainsawEnemy, kind: str, amount: float = 0.0, player: str = "") -> None:
    world.emit(EnemyChanged, enemy=enemy.name, kind=kind, material="player", amount=float(amount), player=player)


def notice(world: World, enemy: ChainsawEnemy, settings: ReactionSettings) -> None:
    """Before the enemy's frame: bullets that hit it, whether it is buried or has lost its ground, and whether it
    notices (or forgets) the player (see the module)."""
    if enemy.stopped is not None:
        return
    _bullets(world, enemy, settings)
    if enemy.stopped is None and any(edit.source != enemy.name and result.dirty_chunks
                                     for edit, result in world.applied_edits):
        _ground(world, enemy, settings)
    if enemy.stopped is not None:
        _emit(world, enemy, f"stopped_{enemy.stopped}")
        return
    player = nearest_player(world, enemy.position)
    offset = player.position - enemy.position
    distance = math.hypot(float(offset[0]), float(offset[2]))
    near = abs(float(offset[1])) <= settings.notice_height
    if enemy.threat is None and near and distance <= settings.notice_distance:
        _emit(world, enemy, "noticed", distance, player.name)
    elif enemy.threat is not None and (not near or distance > settings.forget_distance):
        enemy.threat = None
        _emit(world, enemy, "forgot", distance, player.name)
        return
    if enemy.threat is not None or (near and distance <= settings.notice_distance):
        enemy.threat = player.position.copy()


def _bullets(world: World, enemy: ChainsawEnemy, settings: ReactionSettings) -> None:
    """Thrown objects whose path this frame meets the enemy's body: a hit each; they drop at its feet."""
    radius = settings.body_radius
    low, high = enemy.position + (0.0, radius, 0.0), enemy.position + (0.0, enemy.settings.height - radius, 0.0)
    hits = 0
    for actions in every_actions(world):  # every player's bullets, in joining order
        hit = set()
        for item in actions.objects:
            if item.kind != "projectile":
                continue
            end = np.array(item.object.position)
            start = end - np.array(item.object.velocity) * world.dt
            size = 0.5 * item.object.volume.voxel_size * max(item.object.volume.shape)  # its volume's half-width
            if segment_distance(start, end, low, high) <= radius + size:
                hit.add(item.name)
        if not hit:
            continue
        actions.objects = [replace(item, kind="fragment", object=replace(item.object, velocity=(0.0, 0.0, 0.0)))
                           if item.name in hit else item for item in actions.objects]
        for _ in sorted(hit):
            enemy.hits_taken += 1
            hits += 1
            _emit(world, enemy, "hit", enemy.hits_taken, actions.player.name)
    if not hits:
        return
    if enemy.hits_taken >= settings.hits_to_stop:
        enemy.stop("shot")


def _ground(world: World, enemy: ChainsawEnemy, settings: ReactionSettings) -> None:
    """Buried (terrain at ``bury_height`` above its feet) or fallen (its ground cut away from under it)."""
    volume = world.volume
    index = np.floor(volume.world_to_index(enemy.position + (0.0, settings.bury_height, 0.0)) + 0.5).astype(np.int64)
    if np.all(index >= 0) and np.all(index < volume.shape):
        if volume.read_voxel(tuple(int(v) for v in index))["density"] >= volume.iso:
            enemy.stop("buried")
            return
    ground = ground_height(volume, float(enemy.position[0]), float(enemy.position[2]))
    if ground is None or float(enemy.position[1]) - ground > settings.fall_height:
        if ground is not None:
            enemy.position = np.array([enemy.position[0], ground, enemy.position[2]])
            enemy.motion.place(enemy.placement())
        enemy.stop("fell")


def strike(world: World, enemy: ChainsawEnemy, settings: ReactionSettings) -> None:
    """After the enemy's frame: its blade meeting the player's body takes ``blade_stamina``, at most once every
    ``strike_interval`` s."""
    if enemy.stopped is not None or enemy.threat is None or enemy.since_strike < settings.strike_interval:
        return
    start, end = enemy.motion.part_segment
    player = nearest_player(world, enemy.position)  # the one it faces
    low, high, radius = _player_body(player)
    if segment_distance(start, end, low, high) <= radius + enemy.settings.blade_radius:
        enemy.since_strike = 0.0
        player.add_stamina(-settings.blade_stamina, "chainsaw")
        _emit(world, enemy, "struck", settings.blade_stamina, player.name)
