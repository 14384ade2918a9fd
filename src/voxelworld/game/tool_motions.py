"""The player's tool motions in the frame's "control" stage (:meth:`PlayerActions.act
<voxelworld.game.play.PlayerActions.act>`): the punch or pull-out's strike (:mod:`.strike`) and the shovel's dig
(:mod:`.shovel`), one at a time, each queuing its edits at its contact frames.

A punch or pull-out pressed while a strike or a dig plays is kept (one) and starts as it ends; a dig starts while
dig is held and nothing else plays or is kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..collision import TriangleBVH
from .actions import aim_hit, pull_out_edit, punch_edit
from .checks import point_tuple
from .events import ActionEnded, ActionStarted
from .refusals import missed, refusal
from .shovel import shovel_edit

if TYPE_CHECKING:
    from .play import PlayerActions
    from .world import World

__all__ = ["start_strike", "play_strike", "play_shovel"]


def start_strike(actions: PlayerActions, world: World, action: str, eye: np.ndarray, aim: np.ndarray, bvh: TriangleBVH | None
                  ) -> None:
    """Start the punch or pull-out's motion at what the aim meets (:mod:`.strike`); a miss is said now and
    the fist strikes the air."""
    settings = actions.settings.punch if action == "punch" else actions.settings.pull_out
    hit = aim_hit(bvh, eye, aim, settings.reach)
    player = actions.player
    if hit is None:
        actions._refuse(world, missed(bvh, eye, aim, action, settings.reach), "missed")
        actions.strike.start(action, eye, aim, None, "", 0.0, False, player.position, player.yaw)
        return
    material = world.materials.name_by_id[hit[2]]
    hardness = float(world.materials[material].hardness)
    actions.strike.start(action, eye, aim, hit[0], material, hardness, settings.tool.break_threshold(hardness) == 0,
                      player.position, player.yaw)


def play_strike(actions: PlayerActions, world: World) -> None:
    """A frame of the strike playing: its edit at the contact frame; a press kept meanwhile starts as it ends."""
    strike, player = actions.strike, actions.player
    action, eye, aim = strike.action, strike.eye, strike.aim
    if strike.step(world.dt, player.position, player.yaw) and eye is not None and aim is not None:
        make, settings = (punch_edit, actions.settings.punch) if action == "punch" else \
            (pull_out_edit, actions.settings.pull_out)
        edit = make(world.volume, world.collider.bvh, eye, aim, actions.callback_for(world, action, eye), settings)
        actions._queue(world, action, edit, eye, aim, settings.reach)
    if not strike.busy and not actions.shovel.busy and strike.queued:
        action, strike.queued = strike.queued, ""
        world.emit(ActionStarted, action=action)
        getattr(actions, f"_{action}")(world, player.eye, player.aim, world.volume, world.collider.bvh)
        play_strike(actions, world)


def play_shovel(actions: PlayerActions, world: World, held: bool) -> None:
    """A frame of the dig playing, its contact frames queuing their edits; while dig is held and nothing else
    plays, the next dig starts (a punch or pull-out pressed meanwhile goes first)."""
    shovel, player, contacts = actions.shovel, actions.player, actions._dig_contacts
    if contacts is None:
        return
    if not shovel.busy and held and not actions.strike.busy:  # a kept punch has started (play_strike)
        world.emit(ActionStarted, action="dig")
        shovel.start(player.position, player.yaw)
    if not shovel.busy:
        return
    contacts.refresh(shovel.shoulder(), world.collider)
    if shovel.step(world.dt, player.position, player.yaw, contacts):
        motion = shovel.motion or shovel._own()
        contact = motion.contact
        start, end = (point_tuple(point) for point in motion.part_segment)
        if contact is not None:
            world.queue_edit(shovel_edit(player.eye, start, end, contact.material, actions.settings.shovel,
                                         actions.callback_for(world, "shovel", player.eye)), player)
    if not shovel.busy:
        if shovel.contacts:
            world.emit(ActionEnded, action="dig", outcome="done")
        else:
            actions._refuse(world, refusal("dig", "no_ground"), "missed")
