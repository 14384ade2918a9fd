"""A large world streams around its actors (WorldSettings.view_distance, detail_distances): what was edited is
never lost by unloading, and a player sprinting across it never meets missing ground or a missing collider."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.edits import VoxelEdit
from voxelworld.game.level import surface_height
from voxelworld.game.settings import WorldSettings
from voxelworld.game.streaming import NEAR_EDIT_DISTANCE, STREAM_LAG
from voxelworld.game.world import Inputs, World
from voxelworld.meshing import ChunkMesher
from voxelworld.terrain import GeneratorSettings, Sphere, Tool, generate_world

STREAMING = WorldSettings(view_distance=48.0, detail_distances=(16.0, 32.0), stream_chunks_per_frame=16)
GROUND = GeneratorSettings(size=192.0, height=64.0, ground_level=24.0, hill_height=6.0, cliff_strength=0.0, seed=3)
DIG = Tool(gives_way_below=20.0, unbreakable_from=20.0)


@pytest.fixture(scope="module")
def terrain():
    return generate_world(GROUND)


def walk(world: World, yaw: float, frames: int, until=None) -> int:
    """Sprint along ``yaw`` (degrees) for up to ``frames`` frames (or until ``until(world)``); the frames taken."""
    for frame in range(frames):
        world.step(Inputs(move=(0.0, 1.0), look=(yaw, 0.0), sprint=True))
        if until is not None and until(world):
            return frame + 1
    return frames


def test_what_was_dug_survives_unloading_and_shows_again(terrain):
    world = World(terrain.snapshot(), settings=STREAMING)  # a copy: the fixture stays as generated
    spot = world.player.position + np.array([2.0, -1.0, 0.0])
    world.volume.remove(Sphere(tuple(spot), 2.5), tool=DIG)
    world.step(Inputs())
    dug_hash = world.voxel_hash()
    chunk = tuple(int(c) for c in world.volume.world_to_index(spot) // world.volume.chunk_size)
    assert world.mesher.active[chunk] and chunk in world.mesher.meshes
    # Walk away until the dug chunk is no longer meshed ...
    walk(world, 90.0, 1200, until=lambda w: not w.mesher.active[chunk])
    assert not world.mesher.active[chunk] and chunk not in world.mesher.meshes
    assert np.linalg.norm(world.player.position - spot) > STREAMING.view_distance
    # ... and back: the dig is there, in the voxels and in the mesh.
    walk(world, 270.0, 1200, until=lambda w: np.linalg.norm((w.player.position - spot)[[0, 2]]) < 4.0)
    for _ in range(30):
        world.step(Inputs())
    assert world.voxel_hash() == dug_hash
    assert world.mesher.active[chunk]
    assert_meshes_are_fresh(world)
    assert chunk in world.mesher.meshes


def settle(world: World) -> None:
    """Land the display work the world's mesher owes (its background job, then the rest at once)."""
    world.stream(None)
    world.mesher.update()
    assert not world.mesher.owes_display


def assert_meshes_are_fresh(world: World) -> None:
    """Once the display work owed has landed, the world's meshes are what a fresh mesher of its voxels makes at the
    same chunks and levels, bit for bit."""
    settle(world)
    fresh = ChunkMesher(world.volume, world.materials, world.settings.mesh_options)
    fresh.set_active(world.mesher.active)
    fresh.set_display_levels(world.mesher.display_levels)
    fresh.set_detail_levels(world.mesher.detail_levels)
    fresh.update()
    assert set(fresh.meshes) == set(world.mesher.meshes)
    for c, mesh in world.mesher.meshes.items():
        assert np.array_equal(mesh.positions, fresh.meshes[c].positions), c
        assert np.array_equal(mesh.indices, fresh.meshes[c].indices), c


def test_a_minute_of_sprinting_never_meets_missing_ground_or_collider(terrain):
    world = World(terrain.snapshot(), settings=STREAMING)
    travelled, last = 0.0, world.player.position.copy()
    visited = set()
    yaws = (90.0, 0.0, 270.0, 180.0)  # a square around the start, ten seconds a side
    for frame in range(3600):
        yaw = yaws[(frame // 600) % 4]
        world.step(Inputs(move=(0.0, 1.0), look=(yaw, 0.0), sprint=True))
        x, y, z = world.player.position
        below = world.collider.raycast(np.array([[x, y + 2.0, z]]), np.array([[0.0, -1.0, 0.0]]), 12.0)
        assert below.hit[0], (frame, world.player.position)  # ground in the collider under the player
        ground = surface_height(world.volume, float(x), float(z))
        assert ground is None or y >= ground - 1.0, (frame, y, ground)  # never through the terrain
        visited.add(tuple(int(c) for c in world.volume.world_to_index(world.player.position) //
                          world.volume.chunk_size))
        travelled += float(np.linalg.norm((world.player.position - last)[[0, 2]]))
        last = world.player.position.copy()
    assert travelled > 2 * STREAMING.view_distance * 2  # it left its view behind, over and again
    assert len({(c[0], c[2]) for c in visited}) >= 12  # it crossed many columns of chunks
    assert not world.mesher.active.all()  # and the world was never meshed whole


def test_npcs_walk_a_streaming_world_but_not_where_it_is_not_meshed(terrain):
    from voxelworld.errors import ParameterError

    world = World(terrain.snapshot(), settings=STREAMING)
    far = np.array([8.0, 0.0, 8.0])  # a corner of the world, beyond the view distance: no chunk meshed there
    assert np.linalg.norm((far - world.player.position)[[0, 2]]) > 2 * STREAMING.view_distance
    far[1] = surface_height(world.volume, far[0], far[2])
    with pytest.raises(ParameterError) as error:
        world.agents.add_npc("stranger", tuple(far))
    assert error.value.parameter == "position" and "meshed" in str(error.value)
    assert not world.agents.npcs
    npc = world.agents.add_npc("walker", tuple(world.player.position + [3.0, 0.0, 0.0]))  # tiles streamed here
    assert npc.state == "idle" and world.agents.navigation.tiled is not None


def _mesh_hashes(world: World) -> dict:
    return {chunk: hash((mesh.positions.tobytes(), mesh.indices.tobytes(), mesh.occlusion.tobytes()))
            for chunk, mesh in world.mesher.meshes.items()}


def test_streaming_on_the_second_core_does_not_depend_on_its_speed(terrain, monkeypatch):
    """The streaming state (chunks meshed, levels, collision meshes) moves at frames fixed by the actors' places;
    the display work lands when the background thread is done, never waited for: a slow thread gives the same
    frames, the same state and the same collider, bit for bit, and once its work has landed the same meshes."""
    from voxelworld.meshing import mesher_levels

    def sprint(world: World) -> list:
        seen, landed = [], 0
        for frame in range(150):
            world.step(Inputs(move=(0.0, 1.0), look=(90.0 if frame < 100 else 0.0, 0.0), sprint=True))
            mesher = world.mesher
            seen.append((tuple(world.player.position), mesher.collision_key(), mesher.active.tobytes(),
                         mesher.detail_levels.tobytes(), world.rebuilt_chunks, world.voxel_hash()))
            landed += len(world.changed_chunks)
        assert landed > 0  # display meshes landed as it went
        settle(world)
        return seen

    fast_world = World(terrain.snapshot(), settings=STREAMING)
    fast = sprint(fast_world)
    work = mesher_levels._prepare

    def slow(*args):
        import time
        time.sleep(0.05)
        return work(*args)

    monkeypatch.setattr(mesher_levels, "_prepare", slow)
    slow_world = World(terrain.snapshot(), settings=STREAMING)
    assert sprint(slow_world) == fast
    assert _mesh_hashes(slow_world) == _mesh_hashes(fast_world)
    assert len({(active, detail) for _, _, active, detail, _, _ in fast}) > 3  # it streamed


def test_streaming_all_at_once_makes_the_job_in_flight_first(terrain):
    """``stream(None)`` while a background job is being worked out: the job is made first, so its older target
    never lands afterwards and undoes the streaming done at once."""
    from voxelworld.game.streaming import STREAM_LAG

    world = World(terrain.snapshot(), settings=STREAMING)
    walk(world, 90.0, 200, until=lambda w: w._prepared is not None and w.frame % STREAM_LAG == 2)
    assert world._prepared is not None
    x, _, z = world.player.position + np.array([40.0, 0.0, 0.0])  # a jump: much to stream
    world.player.position = np.array([x, surface_height(world.volume, x, z), z])
    world.stream(None)
    world.mesher.update()
    settled = (world.mesher.active, world.mesher.detail_levels)
    for _ in range(2 * STREAM_LAG):  # standing there: nothing more to stream, nothing undone
        world.step(Inputs())
        assert np.array_equal(world.mesher.active, settled[0])
        assert np.array_equal(world.mesher.detail_levels, settled[1])


def test_npcs_are_given_the_ground_of_their_tiles_not_detail_of_their_own(terrain):
    """The world is shown around the player (and enemies) at their levels; an NPC keeps meshed only the ground its
    navmesh tiles read, at whatever level the player's place gives it (issue 34: 20 NPCs of a camp asked for a
    level-0 ring each, and a new choice of chunks every time one of them walked a metre)."""
    from voxelworld.game.detail import chunk_distances
    from voxelworld.meshing import detail_levels

    world = World(terrain.snapshot(), settings=STREAMING)
    x, _, z = world.player.position
    npc = world.agents.add_npc("walker", (x + 6.0, surface_height(world.volume, x + 6.0, z), z))
    for _ in range(3 * 6 + 1):
        world.step(Inputs())
    volume = world.volume
    player_only = detail_levels(volume.chunk_grid_shape, volume.chunk_size, volume.voxel_size, volume.origin,
                                [world.player.position], STREAMING.detail_distances)
    assert np.array_equal(world._stream_wanted[1], player_only)  # no finer ring around the NPC
    wanted, kept = world._stream_wanted[0]
    near_npc = chunk_distances(volume, [npc.position]) <= STREAMING.navigation_radius
    assert wanted[near_npc].all()  # its tiles' ground stays meshed
    # Walking a few metres does not choose the chunks again (it would, every quarter chunk, for the player).
    anchor = world._stream_anchor.copy()
    world._walker_points = lambda: np.array([npc.position + [2.0, 0.0, 0.0]])  # (an NPC's place is its crowd's)
    world._stream_target(16)
    assert np.array_equal(world._stream_anchor, anchor)
    world._walker_points = lambda: np.array([npc.position + [40.0, 0.0, 0.0]])  # beyond a chunk's edge: chosen again
    world._stream_target(16)
    assert not np.array_equal(world._stream_anchor, anchor)


def test_streaming_order_kept_between_steps_is_budgeted_levels_order():
    """Streaming._budgeted keeps the chunks' order between the steps of one anchor: each step moves the same chunks
    budgeted_levels moves, as the chunks move towards what is wanted, and when one leaves it (sorted again)."""
    from voxelworld.game.detail import budgeted_levels
    from voxelworld.game.streaming import Streaming
    from voxelworld.terrain import VoxelVolume

    volume = VoxelVolume((96, 32, 96), chunk_size=8)
    grid = volume.chunk_grid_shape
    rng = np.random.default_rng(5)
    streaming = Streaming.__new__(Streaming)
    streaming._stream_orders = {}
    points = np.array([[40.0, 10.0, 30.0]])
    distance = np.round(rng.uniform(0.0, 50.0, grid))  # (rounded: ties, broken by chunk index)
    wanted = rng.integers(0, 4, grid)
    cost = rng.integers(0, 9, grid)
    current = rng.integers(0, 4, grid)
    steps = 0
    while not np.array_equal(current, wanted):
        expected = budgeted_levels(current, wanted, volume, points, 40, cost, distance)
        current = streaming._budgeted("detail", current, wanted, 40, cost, distance)
        assert np.array_equal(current, expected)
        steps += 1
        if steps == 3:  # a chunk leaves what it wanted (another change of the mesher's): sorted again
            far = tuple(np.argwhere(current == wanted)[-1])
            current = current.copy()
            current[far] = (current[far] + 1) % 4
    assert steps > 5
    distance = distance + 1.0  # a new anchor: new distances
    current = rng.integers(0, 4, grid)
    assert np.array_equal(streaming._budgeted("detail", current, wanted, 40, cost, distance),
                          budgeted_levels(current, wanted, volume, points, 40, cost, distance))
    # Most chunks free (no vertices): a step moves more chunks than its budget counts.
    cost = cost * (rng.random(grid) < 0.1)
    current = rng.integers(0, 4, grid)
    while not np.array_equal(current, wanted):
        expected = budgeted_levels(current, wanted, volume, points, 40, cost, distance)
        assert np.count_nonzero(expected != current) > 40 or np.array_equal(expected, wanted)
        current = streaming._budgeted("free", current, wanted, 40, cost, distance)
        assert np.array_equal(current, expected)


def test_freed_memory_is_handed_back_on_a_thread_of_its_own_one_walk_at_a_time(monkeypatch):
    import threading

    from voxelworld.game import streaming

    walkers, gate = [], threading.Event()
    if streaming._RELEASING:  # an earlier test's walk ends first (else it is the one handed back below)
        streaming._RELEASING[-1].result(10)
    monkeypatch.setattr(streaming, "release_freed_memory", lambda: walkers.append(threading.current_thread())
                        or gate.wait(10))
    first = streaming.release_freed_memory_aside()
    assert streaming.release_freed_memory_aside() is first  # still walking: nothing more asked
    gate.set()
    first.result(10)
    assert len(walkers) == 1 and walkers[0] is not threading.main_thread()  # the frame did not walk the heap
    assert streaming.release_freed_memory_aside() is not first


def test_a_far_edit_shows_once_the_background_lands_it_a_near_one_in_its_frame(terrain):
    """On a streaming world the display work of an edit NEAR_EDIT_DISTANCE or more from the player is the background
    thread's (the frame makes what collides); a near edit's meshes come in its own frame. Either way the meshes
    end as a fresh mesher's."""
    world = World(terrain.snapshot(), settings=STREAMING)
    world.step(Inputs())
    settle(world)
    x, _, z = world.player.position
    for distance, owed in ((4.0, False), (NEAR_EDIT_DISTANCE + 8.0, True)):
        spot = np.array([x + distance, surface_height(world.volume, x + distance, z), z])
        chunk = tuple(int(c) for c in world.volume.world_to_index(spot) // world.volume.chunk_size)
        assert world.mesher.active[chunk] and chunk in world.mesher.meshes
        before = world.mesher.meshes[chunk].positions.copy()
        world.volume.remove(Sphere(tuple(spot), 2.0), tool=DIG)
        world.step(Inputs())
        assert chunk in world.rebuilt_chunks  # collides with the dig at once, near or far
        assert bool(world.mesher.owed_surfaces[chunk]) is owed
        assert (chunk in world.snapshot().changed_chunks) is not owed
        assert np.array_equal(world.mesher.meshes[chunk].positions, before) is owed
        assert_meshes_are_fresh(world)


def test_a_streaming_step_due_in_a_frame_with_edits_waits_for_the_next_frame_without(terrain, monkeypatch):
    """A step due in a frame that applied edits (which pays for their meshes) is made in the next frame that did
    not, at the latest the last of its STREAM_LAG frames; the owed step is part of the world's state."""
    world = World(terrain.snapshot(), settings=STREAMING)
    steps = []
    target = World._stream_target

    def counted(self, budget):
        steps.append(self.frame)
        return target(self, budget)

    monkeypatch.setattr(World, "_stream_target", counted)
    x, _, z = world.player.position

    def dig(n):
        spot = (x + 3.0 + 0.8 * n, surface_height(world.volume, x + 3.0 + 0.8 * n, z), z)
        world.queue_edit(VoxelEdit("remove", Sphere(spot, 0.7), tool=DIG, source="dig"))

    while world.frame % STREAM_LAG != 0:
        world.step(Inputs())
    start = world.frame
    dig(0)
    world.step(Inputs())  # the step's frame applies an edit: owed
    assert world.applied_edits and start not in steps and world.state_dict()["stream_step_owed"] is True
    world.step(Inputs())
    assert steps[-1] == start + 1 and world.state_dict()["stream_step_owed"] is False
    while world.frame % STREAM_LAG != 0:
        world.step(Inputs())
    start = world.frame
    for n in range(1, STREAM_LAG + 1):  # edits in every frame: made in the window's last frame all the same
        dig(n)
        world.step(Inputs())
    assert [f for f in steps if f >= start] == [start + STREAM_LAG - 1]
    # Taken back with the state (a file without the key: none owed).
    while world.frame % STREAM_LAG != 0:
        world.step(Inputs())
    dig(STREAM_LAG + 1)
    world.step(Inputs())
    state = world.state_dict()
    assert state["stream_step_owed"] is True
    world._stream_step_owed = False
    world.load_state_dict(state)
    assert world._stream_step_owed is True
    world.load_state_dict({k: v for k, v in state.items() if k != "stream_step_owed"})
    assert world._stream_step_owed is True  # (kept: an older state says nothing)
    with pytest.raises(ParameterError, match="stream_step_owed"):
        world.load_state_dict(state | {"stream_step_owed": 1})


def test_display_jobs_are_asked_for_in_step_frames_or_at_once_after_a_late_one(terrain, monkeypatch):
    """A display job is asked for in a streaming step's frame (a dear frame already), not in the frame the last
    one landed in, which stays cheap; but when one lands late (more than STREAM_LAG frames after it was asked for:
    the thread is behind) the next is asked for in its landing frame, so the thread is not left idle."""
    import time

    from voxelworld.meshing import mesher_levels

    def sprint(world: World, frames: int) -> tuple[list[tuple[int, bool]], dict[int, int]]:
        """The frames jobs were asked for in (and whether a step's), and the frames jobs landed in (how late)."""
        asked, steps, landed, when = [], set(), {}, {}
        prepare, apply, target = world.mesher.prepare_deferred, world.mesher.apply_changes, World._stream_target

        def counted_prepare(chunks, **options):
            job = prepare(chunks, **options)
            asked.append(world.frame)
            when[id(job)] = world.frame
            return job

        def counted_apply(job):
            landed[world.frame] = world.frame - when.pop(id(job), world.frame)
            return apply(job)

        def counted_target(self, budget):
            steps.add(self.frame)
            return target(self, budget)

        monkeypatch.setattr(world.mesher, "prepare_deferred", counted_prepare)
        monkeypatch.setattr(world.mesher, "apply_changes", counted_apply)
        monkeypatch.setattr(World, "_stream_target", counted_target)
        for _ in range(frames):  # at 60 frames a second, as a world is played (its thread works between frames)
            start = time.perf_counter()
            world.step(Inputs(move=(0.0, 1.0), look=(90.0, 0.0), sprint=True))
            time.sleep(max(1 / 60 - (time.perf_counter() - start), 0.0))
        return [(frame, frame in steps) for frame in asked], landed

    small_jobs = WorldSettings(view_distance=48.0, detail_distances=(16.0, 32.0), stream_chunks_per_frame=2)
    asked, landed = sprint(World(terrain.snapshot(), settings=small_jobs), 240)
    # Only ever in a step's frame, or as a late job landed (a busy machine's): landing frames that asked for none.
    assert len(asked) > 5 and all(step or landed.get(frame, 0) > STREAM_LAG for frame, step in asked)
    assert any(frame not in {f for f, _ in asked} for frame in landed)
    work = mesher_levels._prepare

    def late(*args):
        time.sleep(0.25)  # (a job lands some 15 frames later)
        return work(*args)

    monkeypatch.setattr(mesher_levels, "_prepare", late)
    asked, landed = sprint(World(terrain.snapshot(), settings=small_jobs), 240)
    after_late = [frame for frame, step in asked if not step]
    assert after_late and all(landed.get(frame, 0) > STREAM_LAG for frame in after_late)
    assert all(step or landed.get(frame, 0) > STREAM_LAG for frame, step in asked)


def test_display_jobs_are_sized_by_the_speed_the_thread_made_the_last_ones_at(terrain, monkeypatch):
    """A display job is the work the background thread makes in JOB_FRAMES frames at the rate it made the last
    ones: STREAM_LAG frames' budget before one is measured, smaller when the thread is slow (down to a frame's
    budget), larger when it is quick (up to twice STREAM_LAG frames'), so jobs land within STREAM_LAG frames."""
    import time

    from voxelworld.game.streaming import JOB_FRAMES
    from voxelworld.meshing import mesher_levels

    budget = 4
    settings = WorldSettings(view_distance=48.0, detail_distances=(16.0, 32.0), stream_chunks_per_frame=budget)
    world = World(terrain.snapshot(), settings=settings)
    assert world._job_budget(budget) == budget * STREAM_LAG
    asked = []
    prepare = world.mesher.prepare_deferred

    def counted_prepare(chunks, **options):
        asked.append(world._job_budget(budget))  # (the job's budget: as stream asked for it)
        return prepare(chunks, **options)

    monkeypatch.setattr(world.mesher, "prepare_deferred", counted_prepare)
    work = mesher_levels._prepare
    slow = 2.25 * JOB_FRAMES / 60  # s: a job takes 2.25 times the frames it was sized for
    monkeypatch.setattr(mesher_levels, "_prepare", lambda *args: (time.sleep(slow), work(*args))[1])
    for _ in range(600):  # at 60 frames a second, as a world is played
        start = time.perf_counter()
        world.step(Inputs(move=(0.0, 1.0), look=(90.0, 0.0), sprint=True))
        time.sleep(max(1 / 60 - (time.perf_counter() - start), 0.0))
        if len(asked) >= 6 and world._job_budget(budget) == budget:
            break
    # Every job late: the rate falls below what JOB_FRAMES frames make of a job, and jobs shrink to a frame's budget
    # (the rate is the mean with the last jobs': it halves its way down from STREAM_LAG frames', in six jobs or more).
    assert asked[0] == budget * STREAM_LAG and asked[-1] < asked[0]
    assert world._job_budget(budget) == budget and world._job_rate < budget * STREAM_LAG / slow
    # Jobs made at once: the rate rises, the jobs grow to twice STREAM_LAG frames' budget, no more.
    monkeypatch.setattr(mesher_levels, "_prepare", work)
    world._job_rate = 1e9
    assert world._job_budget(budget) == 2 * budget * STREAM_LAG
    world._job_rate = 60.0 * budget * STREAM_LAG / JOB_FRAMES  # STREAM_LAG frames' budget in JOB_FRAMES frames
    assert world._job_budget(budget) == budget * STREAM_LAG
    rate = world._job_rate
    walk(world, 270.0, 600, until=lambda w: w._job_rate != rate)
    assert world._job_rate != rate  # measured again as jobs land


def test_chunks_in_view_are_what_a_step_wants_and_need_a_view_distance(terrain):
    world = World(terrain.snapshot(), settings=STREAMING)
    wanted, kept, far = world.chunks_in_view()
    assert wanted.any() and (kept >= wanted).all() and not (far & kept).any() and far.any()
    world.step(Inputs())  # the first step chooses the chunks from the same places
    active, _, _ = world._stream_wanted
    assert np.array_equal(active[0], wanted) and np.array_equal(active[1], kept)
    whole = World(terrain.snapshot())
    with pytest.raises(ParameterError, match="settings.view_distance"):
        whole.chunks_in_view()
