"""The chainsaw enemy: CesiumMan's full-body swing slows by the hardness of the voxels it cuts, carves them, loops
without a jump, and works along the wall for as long as a session lasts."""

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.enemy import CHEST, HIPS, Carved, ChainsawEnemy, ChainsawSettings
from voxelworld.game.world import Inputs, World
from voxelworld.meshing import ChunkMesher
from voxelworld.motion import ContactStarted
from voxelworld.terrain import Box, VoxelVolume

DT = 1 / 60
FEET = (2.4, 0.0, 2.4)  # the swing comes down in front of it, towards +x, through x 3..4 m
BLOCK = ((3.2, 0.0, 1.4), (4.2, 2.0, 3.4))  # a block before it, taller than it reaches


def arena(material, box=BLOCK, shape=(48, 24, 48)):
    volume = VoxelVolume(shape, voxel_size=0.1, chunk_size=16)
    if material is not None:
        volume.add(Box(*box), material)
    mesher = ChunkMesher(volume)
    mesher.update()
    return volume, mesher


def swing(volume, mesher, frames, feet=FEET, wall=None, **settings):
    enemy = ChainsawEnemy("saw", volume, mesher, feet, facing=(1, 0, 0), settings=ChainsawSettings(**settings),
                          wall=wall)
    log = []
    for _ in range(frames):
        mesher.update()  # the world's frame loop refreshes the meshes before the enemy moves
        events = enemy.step(DT)
        contact = enemy.motion.contact
        log.append((events, float(enemy.motion.rates[enemy.motion.wrist]), contact.material if contact else None,
                    enemy.motion.world[enemy.motion.wrist, :3, 3].copy(), enemy.motion.part_segment[1].copy()))
    return enemy, log


def test_full_body_swing_moves_the_body_which_slows_to_a_tenth_in_contact():
    enemy, log = swing(*arena(None), 90)
    hips, chest = (enemy.motion.skeleton.index(n) for n in (HIPS, CHEST))
    rest = enemy.motion.skeleton.rest.rotation
    first = enemy.motion.clip.sample(enemy.motion.skeleton, 0.75).rotation  # the bottom of the swing
    assert not np.allclose(first[hips], rest[hips]) and not np.allclose(first[chest], rest[chest])
    enemy, log = swing(*arena("rock"), 60, cut_radius=0.15)  # a narrow cut: the blade still in the rock at 1 s
    assert any(material == "rock" for _, _, material, _, _ in log)
    assert enemy.motion.contact is not None and enemy.motion.rates[hips] == pytest.approx(0.1, abs=0.01)


def test_slows_more_in_rock_than_in_soil_and_carves_both():
    results = {}
    for material in ("soil", "rock"):
        volume, mesher = arena(material)
        solid = volume.solid_volume()
        enemy, log = swing(volume, mesher, 90)
        started = [e for events, *_ in log for e in events if isinstance(e, ContactStarted)]
        assert started and started[0].material == material  # the voxel's material, read at the contact
        assert enemy.carved_voxels > 0 and volume.solid_volume() < solid - 0.01
        ends = np.array([end for *_, end in log])
        contact = np.array([m is not None for _, _, m, _, _ in log])
        both = np.flatnonzero(contact[1:] & contact[:-1])[:20]  # the first 20 frames in contact
        moves = np.linalg.norm(np.diff(ends, axis=0), axis=1)[both]
        results[material] = (enemy.slowest_wrist_rate, float(moves.mean()), log)
    assert results["rock"][0] < results["soil"][0] < 1.0  # 0.017 (edge) against 0.040 with the default profile
    # The blade's tip moves less per contact frame in rock (4.9 against 5.3 mm at 60 fps: the body and shoulder,
    # which carry most of the tip's motion, slow alike in both).
    assert results["rock"][1] < 0.96 * results["soil"][1]
    # Rock goes through the damage gate: the first carves only damage it (four hits break a voxel), soil gives
    # way at once.
    carves = {m: [e for events, *_ in results[m][2] for e in events if isinstance(e, Carved)] for m in results}
    assert carves["soil"][0].voxels_changed > 0
    assert carves["rock"][0].voxels_changed == 0 and carves["rock"][0].voxels_damaged > 0
    assert any(c.voxels_changed > 0 for c in carves["rock"])


def test_carves_along_the_blade():
    volume, mesher = arena("soil")
    before = volume.density.copy()
    enemy, log = swing(volume, mesher, 60)
    removed = np.argwhere((before >= volume.iso) & (volume.density < volume.iso))
    assert len(removed) > 0
    points = volume.index_to_world(removed)
    blades = np.array([[w, end] for *_, w, end in log])
    # Everything removed lies near the swing's plane through the right hand (the cut radius, the edit's
    # one-voxel ramp, and the blade's sideways lean).
    plane = blades[:, :, 2].mean()
    assert np.all(np.abs(points[:, 2] - plane) <= enemy.settings.cut_radius + 3 * volume.voxel_size)


def test_iron_is_never_carved():
    volume, mesher = arena("iron")
    enemy, log = swing(volume, mesher, 60)
    assert any(m == "iron" for _, _, m, _, _ in log)
    assert enemy.carved_voxels == 0 and enemy.slowest_wrist_rate <= 0.003 + 1e-9


def test_turns_back_at_the_end_of_a_short_wall():
    # A 1.6 m rock wall along z (z 1.6..3.2 m) on a 6.4 m long strip; it starts at the wall's far end.
    volume, mesher = arena("rock", box=((3.2, 0.0, 1.6), (3.6, 2.0, 3.2)), shape=(48, 24, 64))
    enemy = ChainsawEnemy("saw", volume, mesher, (2.4, 0.0, 2.8), facing=(1, 0, 0),
                          settings=ChainsawSettings(swings_per_spot=1), wall=(0, 0, 1))
    materials, walls, places = [], [], []
    for _ in range(60 * 40):
        mesher.update()
        enemy.step(DT)
        materials.append(enemy.motion.contact.material if enemy.motion.contact else None)
        walls.append(enemy.wall[2])
        places.append(enemy.position[2])
    turns = np.flatnonzero(np.diff(np.sign(walls)) != 0)
    assert len(turns) >= 2  # past the wall's far end it turned back, and back again past the near end
    assert places[turns[0]] > 3.2 and min(places) < 1.6  # each turn beyond an end of the wall
    windows = [sum(m is not None for m in materials[i:i + 600]) for i in range(0, len(materials), 600)]
    assert all(w > 0 for w in windows)  # it comes back to the wall and keeps cutting


def demo_session(seconds=60.0, dt=1 / 30):
    world = World.demo(seed=0, npcs=0)
    enemy = world.agents.enemies[0]
    materials, wrist, feet = [], [], []
    for _ in range(int(round(seconds / dt))):
        world.step(Inputs(), dt=dt)
        materials.append(enemy.motion.contact.material if enemy.motion.contact else None)
        wrist.append(enemy.motion.world[enemy.motion.wrist, :3, 3].copy())
        feet.append(enemy.position.copy())
    return world, enemy, materials, np.array(wrist), np.array(feet)


def test_keeps_cutting_the_demo_wall_for_a_whole_session():
    dt = 1 / 30
    world, enemy, materials, wrist, feet = demo_session(60.0, dt)
    contact = [m for m in materials if m is not None]
    assert sum(m == "rock" for m in contact) >= 0.5 * len(contact)  # 1577 of 1723 contact frames
    window = int(round(10.0 / dt))
    assert all(any(m is not None for m in materials[i:i + window]) for i in range(0, len(materials), window))
    # it walked along the wall (z), facing it, its feet on the terrain
    assert abs(feet[-1][2] - feet[0][2]) > 2.0 and np.allclose(feet[:, 0], feet[0, 0])
    for x, y, z in feet[::150]:
        assert y == pytest.approx(enemy.ground_height(x, z), abs=0.3)
    # the swing never jumps: no frame moves the wrist more than 2.5x the free swing's largest move
    moves = np.linalg.norm(np.diff(wrist, axis=0), axis=1)
    assert moves.max() <= 2.5 * largest_free_move_at(dt)


def largest_free_move_at(dt, seconds=3.0):
    """The free swing's largest per-frame wrist move (m): the enemy's motion played with nothing to touch, the
    enemy standing still."""
    volume, mesher = arena(None)
    motion = ChainsawEnemy("saw", volume, mesher, FEET).motion
    wrist = []
    for _ in range(int(round(seconds / dt))):
        motion.step(dt, lambda start, end, radius: None)
        wrist.append(motion.world[motion.wrist, :3, 3].copy())
    return float(np.linalg.norm(np.diff(wrist, axis=0), axis=1).max())


def test_deterministic():
    runs = []
    for _ in range(2):
        volume, mesher = arena("rock")
        enemy, log = swing(volume, mesher, 60)
        runs.append((volume.content_hash(), [events for events, *_ in log], enemy.motion.clocks.tolist(),
                     enemy.position.tolist()))
    assert runs[0] == runs[1]


def test_carve_interval_carves_less_often():
    volume, mesher = arena("soil")
    every, log = swing(volume, mesher, 60, carve_interval=0.0)
    volume, mesher = arena("soil")
    sparse, sparse_log = swing(volume, mesher, 60, carve_interval=0.1)
    count = lambda log: sum(isinstance(e, Carved) for events, *_ in log for e in events)  # noqa: E731
    assert 0 < count(sparse_log) < count(log)


def test_state_round_trip_goes_on_the_same():
    volume, mesher = arena("rock", box=((3.2, 0.0, 1.6), (3.6, 2.0, 3.2)), shape=(48, 24, 64))
    enemy, _ = swing(volume, mesher, 200, feet=(2.4, 0.0, 2.8), wall=(0, 0, 1), swings_per_spot=1)
    assert enemy.position[2] != 2.8  # it has stepped
    state, motion = enemy.state_dict(), enemy.motion.state_dict()
    copy = ChainsawEnemy("saw", volume, mesher, enemy.position, settings=enemy.settings, edits=lambda edit: None)
    enemy._edits = copy._edits  # both leave the shared terrain alone from here on
    copy.load_state_dict({k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in state.items()})
    copy.motion.load_state_dict(motion)
    for _ in range(120):
        a, b = enemy.step(DT), copy.step(DT)
        assert a == b and np.array_equal(enemy.motion.world, copy.motion.world)
        assert np.array_equal(enemy.position, copy.position) and np.array_equal(enemy.wall, copy.wall)


def test_bad_input_raises_parameter_error():
    volume, mesher = arena("soil")
    other, _ = arena("soil")
    with pytest.raises(ParameterError, match="mesher"):
        ChainsawEnemy("saw", other, mesher, FEET)
    with pytest.raises(ParameterError, match="facing"):
        ChainsawEnemy("saw", volume, mesher, FEET, facing=(0, 1, 0))
    with pytest.raises(ParameterError, match="wall"):
        ChainsawEnemy("saw", volume, mesher, FEET, facing=(1, 0, 0), wall=(2, 0, 0))
    with pytest.raises(ParameterError, match="wall"):
        ChainsawEnemy("saw", volume, mesher, FEET, wall=(0, 1, 0))
    with pytest.raises(ParameterError, match="position"):
        ChainsawEnemy("saw", volume, mesher, (1, 2))
    with pytest.raises(ParameterError, match="name"):
        ChainsawEnemy("", volume, mesher, FEET)
    for field, value in (("cut_radius", 0), ("carve_interval", -1), ("reach", float("nan")), ("tool", "saw"),
                         ("profile", None), ("swing_seconds", 0), ("height", -1.8), ("stride", 0),
                         ("walk_speed", float("inf")), ("swings_per_spot", 0), ("wall_end_swings", 1.5)):
        with pytest.raises(ParameterError, match=field):
            ChainsawSettings(**{field: value})
    enemy = ChainsawEnemy("saw", volume, mesher, FEET)
    with pytest.raises(ParameterError, match="dt"):
        enemy.step(-1)
    assert enemy.time == 0.0


def test_ground_height_is_the_four_columns_of_level_surface_height():
    from types import MethodType

    from .reference_enemy import ground_height

    volume, mesher = arena("soil", box=((1.0, 0.0, 1.0), (3.3, 0.75, 2.6)))
    volume.add(Box((2.0, 0.0, 1.5), (2.6, 1.32, 2.2)), "rock")
    enemy = ChainsawEnemy("saw", volume, mesher, FEET, facing=(1, 0, 0))
    old = MethodType(ground_height, enemy)
    rng = np.random.default_rng(7)
    points = np.concatenate([rng.uniform(-0.3, 5.0, (400, 2)), [[0.0, 0.0], [4.75, 4.75], [1.0, 1.0], [2.05, 1.55]]])
    heights = [enemy.ground_height(x, z) for x, z in points]
    assert heights == [old(x, z) for x, z in points]
    assert None in heights and len({h for h in heights if h is not None}) > 10  # off the terrain, and edges


def test_a_demo_session_plays_the_frames_the_numpy_frame_played():
    """300 walking frames of the demo world (the enemy cuts the rock wall, steps along it, carves): the enemy's
    motion on its kernels against the NumPy frame it replaced (tests/motion/reference_frame.py) and its old ground
    height, in a second world fed the same inputs: every frame's joints, rates, clocks, blade, feet, events and
    carves bit for bit, and the same terrain after."""
    from types import MethodType

    from ..motion.reference_frame import ReferenceContactMotion
    from ..motion.test_frame_kernels import blas_sums_as_fma_chains
    from .reference_enemy import ground_height

    if not blas_sums_as_fma_chains():
        pytest.skip("NumPy's BLAS here does not sum small products as FMA chains: the NumPy frame's last bits are "
                    "this BLAS's own")
    new, old = World.demo(seed=0), World.demo(seed=0)
    reference = old.agents.enemies[0]
    reference.motion.__class__ = ReferenceContactMotion
    reference.ground_height = MethodType(ground_height, reference)
    for frame in range(340):
        inputs = Inputs(move=(0.0, 1.0), look=(270.0 + 0.3 * frame, -25.0), sprint=frame % 240 > 200)
        events = new.step(inputs)
        assert events == old.step(inputs), frame
        a, b = new.agents.enemies[0], reference
        for name in ("world", "rates", "clocks", "part_segment"):
            assert np.array_equal(getattr(a.motion, name), getattr(b.motion, name)), (frame, name)
        assert np.array_equal(a.motion.pose.rotation, b.motion.pose.rotation), frame
        assert np.array_equal(a.position, b.position) and a.walked == b.walked, frame
        assert (a.carved_voxels, a.carved_volume, a.slowest_wrist_rate) == \
            (b.carved_voxels, b.carved_volume, b.slowest_wrist_rate), frame
        assert new.snapshot().characters == old.snapshot().characters, frame
    assert a.walked > 0.0 and a.carved_voxels > 100  # it cut, then stepped along the wall
    assert new.voxel_hash() == old.voxel_hash()


def test_a_far_enemy_moves_every_other_frame_and_hands_over_its_carves_three_at_a_time():
    """Far from the player (step's ``far``) an enemy moves every other call, through both calls' time, and holds its
    carves, handing them over FAR_CARVES_TOGETHER at a time: bit for bit the motion of one near stepped at twice the
    time step, and the same edits in the same order (neither applies them here, so both blades meet the same wall);
    what it still holds goes at once when it is near again, or stopped."""
    from voxelworld.game.enemy import FAR_CARVES_TOGETHER

    volume, mesher = arena("soil")
    handed, clock = {"near": [], "far": []}, [0]
    enemies = {side: ChainsawEnemy("saw", volume, mesher, FEET, facing=(1, 0, 0),
                                   edits=lambda edit, side=side: handed[side].append((clock[0], edit)))
               for side in handed}
    for clock[0] in range(180):
        mesher.update()
        enemies["far"].step(DT, far=True)
        if clock[0] % 2:
            enemies["near"].step(2 * DT)
            assert np.array_equal(enemies["far"].motion.world, enemies["near"].motion.world)
            assert enemies["far"].time == enemies["near"].time
        else:
            assert enemies["far"]._time_owed == DT
    near, far = handed["near"], handed["far"]
    assert len(near) >= 2 * FAR_CARVES_TOGETHER + 1
    held = len(near) % FAR_CARVES_TOGETHER
    assert len(far) == len(near) - held and len(enemies["far"]._held_carves) == held
    assert [(e.shape, e.recipe.values) for _, e in far] == [(e.shape, e.recipe.values) for _, e in near[:len(far)]]
    # Each group of three goes in the frame its last carve was made in.
    assert [f for f, _ in far] == [near[i - i % FAR_CARVES_TOGETHER + FAR_CARVES_TOGETHER - 1][0]
                                   for i in range(len(far))]
    # Near again: what it holds goes in its next step, before anything else.
    if held == 0:
        while len(enemies["far"]._held_carves) == 0:
            mesher.update()
            enemies["far"].step(DT, far=True)
    count, time, owed = len(far) + len(enemies["far"]._held_carves), enemies["far"].time, enemies["far"]._time_owed
    enemies["far"].step(DT, far=False)  # (the time it owes too)
    assert len(far) >= count and not enemies["far"]._held_carves
    assert enemies["far"].time == time + (DT + owed) and enemies["far"]._time_owed == 0.0
    # Stopped: it hands over what it held, then nothing more.
    while len(enemies["far"]._held_carves) == 0:
        mesher.update()
        enemies["far"].step(DT, far=True)
    count = len(far) + len(enemies["far"]._held_carves)
    enemies["far"].stop("shot")
    enemies["far"].step(DT, far=True)
    assert len(far) == count and not enemies["far"]._held_carves


def test_held_carves_are_saved_loaded_and_checked():
    volume, mesher = arena("soil")
    handed = []
    enemy = ChainsawEnemy("saw", volume, mesher, FEET, facing=(1, 0, 0), edits=handed.append)
    while not enemy._held_carves:
        mesher.update()
        enemy.step(DT, far=True)
    enemy.step(DT, far=True)  # (a call it does not move in: the time it owes)
    state, motion = enemy.state_dict(), enemy.motion.state_dict()
    assert state["held_carves"] == enemy._held_carves and state["time_owed"] == DT
    copied = []
    copy = ChainsawEnemy("saw", volume, mesher, FEET, facing=(1, 0, 0), edits=copied.append)
    copy.load_state_dict(state)
    copy.motion.load_state_dict(motion)
    start = len(handed)
    for _ in range(30):
        enemy.step(DT, far=True), copy.step(DT, far=True)
    assert handed[start:] and [e.shape for e in handed[start:]] == [e.shape for e in copied]
    old = {k: v for k, v in state.items() if k not in ("held_carves", "time_owed")}  # saved before far enemies
    copy.load_state_dict(old)
    assert copy._held_carves == [] and copy._time_owed == 0.0
    capsule, material = state["held_carves"][0]
    for bad, match in (([(capsule, material)] * 3, "held_carves"), ([(material, capsule)], r"held_carves'\]\[0\]"),
                       ([capsule], r"held_carves'\]\[0\]"), ((), "held_carves")):
        with pytest.raises(ParameterError, match=match):
            copy.load_state_dict(state | {"held_carves": bad})
    with pytest.raises(ParameterError, match="material"):
        copy.load_state_dict(state | {"held_carves": [(capsule, "unobtainium")]})
    with pytest.raises(ParameterError, match="time_owed"):
        copy.load_state_dict(state | {"time_owed": -1.0})
