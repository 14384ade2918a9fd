"""Posing the characters as it was written before it was made cheaper per frame: the reference
``voxelworld.game.poses.pose_characters`` must match field for field, bit for bit (tests/game/test_poses.py).

The functions below are the old ``_walker``, ``enemy_pose`` and ``pose_characters`` verbatim (``CharacterPose._made``
as its old loop of ``object.__setattr__``); the helpers they share with the module (the rig, the layers, the
easing) are the module's own.
"""

from __future__ import annotations

import math

from voxelworld.game.poses import (
    _NO_LAYERS,
    _POSE_FIELDS,
    BLEND_SECONDS,
    TELEPORT,
    WALK_SAMPLES,
    WALKING_SPEED,
    CharacterPose,
    _layers,
    _nlerp_rows,
    _player_layers,
    _towards,
    _yaw_of,
    character_rig,
)


def _made(*values) -> CharacterPose:
    """CharacterPose._made as it was: one object.__setattr__ per field."""
    pose = object.__new__(CharacterPose)
    for name, value in zip(_POSE_FIELDS, values):
        object.__setattr__(pose, name, value)
    return pose


def _walk_sample(phase: float) -> int:
    """The rig's walk sample nearest to ``phase`` (s)."""
    rig = character_rig()
    return min(int(phase / rig.walk.duration * (WALK_SAMPLES - 1) + 0.5), WALK_SAMPLES - 1)


def _walker(name: str, kind: str, position, yaw: float | None, previous: CharacterPose | None, dt: float,
            layers: dict | None = None) -> CharacterPose:
    """A walker's pose: walk phase advanced by the distance travelled since ``previous``, eased between idle
    and walk; ``yaw`` None faces where it went (or keeps its last yaw)."""
    rig = character_rig()
    position = (float(position[0]), float(position[1]), float(position[2]))
    phase, weight, last_yaw = 0.0, 0.0, 0.0 if yaw is None else yaw
    moved = (0.0, 0.0, 0.0)
    if previous is not None:
        phase, weight, last_yaw = previous.walk_phase, previous.walk_weight, previous.yaw
        moved = tuple(a - b for a, b in zip(position, previous.position))
    distance = math.hypot(moved[0], moved[2])
    if distance > TELEPORT:
        distance = 0.0
    airborne = layers is not None and layers["air_weight"] > 0.5
    walking = dt > 0 and distance / dt >= WALKING_SPEED and not airborne
    if yaw is None:
        yaw = _yaw_of(moved) if distance > 1e-6 else last_yaw
    duration = rig.walk.duration
    if not airborne:
        phase = (phase + distance / rig.walk_cycle * duration) % duration
    weight = _towards(weight, 1.0 if walking else 0.0, dt / BLEND_SECONDS)
    layers = layers or _NO_LAYERS
    sample = _walk_sample(phase)
    layered = (layers["action"] or layers["strike"] is not None or layers["suck_weight"] > 0
               or layers["air_weight"] > 0)  # the punch's strike a layer too since issue 32
    state = (phase, weight, layers["action"], layers["action_time"], layers["suck_weight"], layers["air_weight"],
             *layers["tool"])  # the blade and what it touches (the player's shovel, since issue 32), or None, None
    if not layered and weight in (0.0, 1.0):  # a plain walker or stander: the rig's tuples as they are
        rotations, root = rig.walk_flat[sample] if weight == 1.0 else rig.idle_flat
        return _made(name, kind, position, float(yaw), 1.0, rotations, root, *state)
    rotations, root = rig.walk_rotations[sample], rig.walk_roots[sample]
    if weight < 1.0:
        rotations = _nlerp_rows(rig.idle_rotations, rotations, weight)
        root = rig.idle_root + (root - rig.idle_root) * weight
    rotations = rotations.copy()
    if layered:
        _layers(rotations, layers)
    return _made(name, kind, position, float(yaw), 1.0, tuple(rotations.ravel().tolist()),
                               tuple(root.tolist()), *state)


def enemy_pose(enemy) -> CharacterPose:
    """A chainsaw enemy's pose: its motion's whole pose (it plays on CesiumMan's own skeleton), every joint's
    local rotation and the root's translation, placed where the enemy stands (see the module)."""
    motion = enemy.motion
    pose = motion.pose
    blade = tuple(tuple(float(v) for v in point) for point in motion.part_segment)
    contact = motion.contact.material if motion.contact is not None else None
    return _made(enemy.name, "enemy", tuple(float(v) for v in enemy.position), _yaw_of(enemy.facing),
                               float(enemy.scale), tuple(pose.rotation.ravel().tolist()),
                               tuple(pose.translation[0].tolist()), 0.0, 0.0, "", 0.0, 0.0, 0.0, blade, contact)


def pose_characters(world, previous=(), events=()) -> tuple[CharacterPose, ...]:
    """Every actor of ``world`` posed for its last frame: the player, its NPCs, its enemies (in that order),
    from ``previous`` (the last frame's poses, by name) and ``events`` (the frame's events: the player's
    ActionStarted start its layers)."""
    before = {(p.kind, p.name): p for p in previous}
    dt = world.dt
    player = world.player
    poses = [_walker("player", "player", player.position, player.yaw, before.get(("player", "player")), dt,
                     _player_layers(world, world.actions, events, before.get(("player", "player"))))]
    poses += [_walker(npc.name, "npc", npc.position, None, before.get(("npc", npc.name)), dt)
              for npc in world.agents.npcs]
    poses += [enemy_pose(enemy) for enemy in world.agents.enemies]
    return tuple(poses)
