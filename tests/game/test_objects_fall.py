"""Loose objects falling together (:func:`voxelworld.game.objects.fall_all`) against a plain reference: each object
flown alone by :func:`voxelworld.game.throwing.fly`, as the world did before it tested every path in one query."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from voxelworld.collision import TriangleBVH
from voxelworld.errors import ParameterError
from voxelworld.game.actions import ball_object
from voxelworld.game.objects import CLEARANCE, WorldObject, fall, fall_all, out_of_ground
from voxelworld.game.throwing import Projectile, ThrowSettings, fly
from voxelworld.game.world import Inputs, World
from voxelworld.terrain import MaterialTable, VoxelVolume

MATERIALS = MaterialTable.default()
FLOOR = TriangleBVH([[-50.0, 0.0, -50.0], [50.0, 0.0, -50.0], [0.0, 0.0, 80.0]], [[0, 2, 1]],
                    tri_material=[MATERIALS.id_of("rock")])


def reference_fall(item: WorldObject, bvh, dt: float, settings: ThrowSettings) -> WorldObject | None:
    """One object one frame on, flown alone (the world's code before fall_all)."""
    if item.resting:
        return replace(item, age=item.age + dt)
    step = fly(Projectile(item.object, item.flight_time), bvh, dt, MATERIALS, settings)
    if step.contact is not None:
        still = replace(item.object, position=step.contact.point, velocity=(0.0, 0.0, 0.0))
        return replace(item, object=still, age=item.age + dt, resting=True)
    if step.projectile is None:
        return None
    return replace(item, object=step.projectile.object, age=item.age + dt, flight_time=step.projectile.flight_time)


def loose_objects(count: int, seed: int) -> list[WorldObject]:
    """Fragments above, on and below the floor, some resting, some flying fast, one about to be lost."""
    rng = np.random.default_rng(seed)
    template = VoxelVolume((4, 4, 4), voxel_size=0.25, materials=MATERIALS)
    items = []
    for n in range(count):
        position = rng.uniform([-5.0, -0.5, -5.0], [5.0, 3.0, 5.0])
        velocity = rng.uniform(-30.0, 30.0, 3) if n % 3 else rng.uniform(-2.0, 2.0, 3)
        thing = ball_object(template, "soil", 0.2, position, velocity)
        flight = 4.999 if n == 5 else float(rng.uniform(0.0, 1.0))
        items.append(WorldObject(f"fragment-{n}", "fragment", thing, age=float(rng.uniform(0, 3)),
                                 resting=n % 4 == 0, flight_time=flight))
    return items


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("bvh", [FLOOR, None], ids=["floor", "no triangles"])
def test_every_object_falls_as_it_did_alone_bit_for_bit(seed, bvh):
    items, settings = loose_objects(40, seed), ThrowSettings()
    for _ in range(30):
        expected = [reference_fall(item, bvh, 1 / 60, settings) for item in items]
        moved = fall_all(items, bvh, 1 / 60, MATERIALS, settings)
        assert moved == expected  # (positions and velocities compared as floats: bit for bit)
        items = [item for item in moved if item is not None]
    assert any(item.resting for item in items)
    if bvh is not None:  # some came to rest this time, one got lost, some fly on
        assert sum(item.resting for item in items) > sum(n % 4 == 0 for n in range(40)) and len(items) < 40
        assert not all(item.resting for item in items)


def test_one_object_falls_as_in_a_crowd_and_nothing_at_all_is_nothing():
    items = loose_objects(9, seed=4)
    crowd = fall_all(items, FLOOR, 1 / 60, MATERIALS)
    assert [fall(item, FLOOR, 1 / 60, MATERIALS) for item in items] == crowd
    assert fall_all([], FLOOR, 1 / 60, MATERIALS) == []


@pytest.mark.parametrize("name, values", [("dt", dict(dt=-1.0)), ("dt", dict(dt=float("nan"))),
                                          ("bvh", dict(bvh="floor")), ("materials", dict(materials=None)),
                                          ("settings", dict(settings={}))])
def test_bad_arguments_are_refused_by_name(name, values):
    arguments = dict(items=loose_objects(3, seed=5), bvh=FLOOR, dt=1 / 60, materials=MATERIALS,
                     settings=ThrowSettings()) | values
    with pytest.raises(ParameterError, match=name):
        fall_all(**arguments)


def test_an_object_under_the_surface_goes_up_onto_it_one_in_the_open_stays():
    overhang = TriangleBVH([[-50.0, 3.0, -50.0], [50.0, 3.0, -50.0], [0.0, 3.0, 80.0]], [[0, 1, 2]],
                           tri_material=[MATERIALS.id_of("rock")])  # faces down: the underside of a ledge at 3 m
    both = TriangleBVH.combine([FLOOR, overhang])
    items = loose_objects(3, seed=6)
    items = [replace(item, object=replace(item.object, position=p))
             for item, p in zip(items, [(1.0, -0.4, 1.0), (2.0, 1.5, 2.0), (3.0, -9.0, 3.0)])]
    lifted = out_of_ground(items, both)
    assert lifted[0].object.position == (1.0, CLEARANCE, 1.0)  # under the floor: onto it
    assert lifted[1] is items[1]  # in the open under the ledge: stays
    assert lifted[2] is items[2]  # deeper than PROBE_REACH: left (nothing within reach above)
    assert out_of_ground(items, None) == items and out_of_ground([], FLOOR) == []


def test_a_digging_players_fragments_come_to_rest_none_falls_through_the_world():
    """Punched pieces start at the centre of the density they took, which often lay under the collision surface:
    half of them fell through the world (y -100 m five seconds later) before they were lifted onto it."""
    world = World.demo(seed=0, npcs=0)
    for frame in range(240):
        look = (90.0 + 20.0 * np.sin(frame / 40.0), -45.0 + 5.0 * np.sin(frame / 45.0))
        world.step(Inputs(move=(0.0, 0.2), look=look, punch=frame % 2 == 0))
    fragments = [o for o in world.actions.objects if o.kind == "fragment"]
    assert len(fragments) >= 20
    assert all(o.object.position[1] > world.volume.origin[1] for o in fragments)
    assert sum(o.resting for o in fragments) >= len(fragments) - 4  # (those punched out in the last frames fly)
