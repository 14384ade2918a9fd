"""The chainsaw enemy stays a threat (issue 32, section 3): it turns at its wall's end and keeps cutting rock, and
the HUD reads the damage of what it cut against the player's tool."""

import math
from collections import Counter

import numpy as np
import pytest

from voxelworld.game.world import Inputs, World
from voxelworld.viewer.player_messages import hud_message

DT = 1 / 30


@pytest.fixture(scope="module")
def three_minutes():
    """The demo world (three NPCs) left alone for three minutes at 30 frames a second: the enemy at its rock wall
    (x 38.4..40.4 m, z 9.6..38.4 m), starting at z 30 and working towards +z, the wall's end 8.4 m on. Each frame:
    what its blade touches and where it stands."""
    world = World.demo(seed=0)
    enemy = world.agents.enemies[0]
    frames = []
    for _ in range(int(round(180.0 / DT))):
        world.step(Inputs(), dt=DT)
        contact = enemy.motion.contact
        frames.append((contact.material if contact is not None else None, enemy.position.copy(), enemy.wall.copy()))
    return world, enemy, frames


def test_turns_at_the_wall_end_and_still_cuts_rock_in_its_third_minute(three_minutes):
    world, enemy, frames = three_minutes
    minute = int(round(60.0 / DT))
    rock = [sum(material == "rock" for material, _, _ in frames[m * minute:(m + 1) * minute]) for m in range(3)]
    # On main it walked on past the wall's end sawing grass and air: 1800, 1052 and 0 rock frames.
    assert rock[2] >= 0.5 * rock[0] > 0, rock
    z = np.array([feet[2] for _, feet, _ in frames])
    assert z.max() < 38.4 + 3 * 0.6 + 0.1  # past the wall's end by at most its three strides without the wall
    walls = np.array([wall[2] for _, _, wall in frames])
    assert walls[0] > 0 and walls[-1] < 0  # it turned back
    assert z[-1] < 30.0  # and works the stretch it had not cut before
    grass = Counter(material for material, _, _ in frames[2 * minute:])
    assert grass["rock"] > grass["grass"] + grass[None]


def test_the_hud_reads_the_damage_of_the_enemys_cut_against_the_players_tool(three_minutes):
    """The enemy's chainsaw hits the voxels on the edge of its cut over and over (1300 damage and more on rock,
    whose 100 the player's punch breaks at): aimed at one, the HUD shows at most the punch's 100."""
    world, enemy, _ = three_minutes
    volume = world.volume
    break_at = world.actions.settings.punch.tool.break_threshold(world.materials["rock"].hardness)
    solid = volume.density >= volume.iso
    worked = np.argwhere(solid & (volume.damage > 4 * break_at))
    assert len(worked) > 0  # the enemy's cut left rock voxels far past the punch's threshold
    player = world.player
    seen = None
    for voxel in worked[np.argsort(-volume.damage[tuple(worked.T)], kind="stable")][:400]:
        target = volume.index_to_world(voxel)
        player.position = np.array([target[0] - 2.0, target[1] - 1.2, target[2]])
        offset = target - player.eye
        player.yaw = math.degrees(math.atan2(-offset[0], -offset[2])) % 360.0
        player.pitch = math.degrees(math.atan2(offset[1], math.hypot(offset[0], offset[2])))
        aim = world.aim_info()
        if aim is not None and aim.voxel is not None and volume.damage[aim.voxel] > 4 * break_at:
            seen = aim
            break
    assert seen is not None and seen.material == "rock" and seen.break_at == break_at
    assert seen.damage == break_at  # "100 / 100", not "1300 / 100" (main)
    assert seen.voxel_damage == volume.damage[seen.voxel]
    hud = hud_message(world)["aim"]
    assert hud["damage"] == break_at and hud["break_at"] == break_at


def test_its_kerf_is_deep_enough_to_read_from_10_m():
    """A minute of cutting leaves a groove in the demo's rock wall two 0.5 m samples deep and about 2 m tall (on
    main, with a 0.15 m cut, 12 samples of the wall's face alone gave way)."""
    world = World.demo(seed=0, npcs=0)
    volume = world.volume
    before = volume.density >= volume.iso
    for _ in range(int(round(60.0 / DT))):
        world.step(Inputs(), dt=DT)
    gone = volume.index_to_world(np.argwhere(before & (volume.density < volume.iso)))
    assert len(gone) >= 25
    assert gone[:, 0].max() >= 38.4 + 0.5  # the second sample into the wall (its face at x 38.4 m)
    assert np.ptp(gone[:, 1]) >= 1.5 and np.ptp(gone[:, 2]) >= 5.0  # tall, and along the stretch it worked
