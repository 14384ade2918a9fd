"""A snapshot's objects (``PlayerActions.object_transforms``, ``objects.kept_by_object``): an object whose
VoxelObject is the last frame's (a resting fragment) keeps its transform, the same object; the snapshot is what
making every transform anew gives, frame after frame, as fragments fly, land and go."""

from __future__ import annotations

from voxelworld.game.objects import ObjectTransform, WorldObject, kept_by_object
from voxelworld.game.seats import every_actions
from voxelworld.game.world import Inputs, World


def test_a_resting_fragment_keeps_its_transform_and_the_snapshot_is_made_anew():
    world = World.demo(seed=0, npcs=0)
    kept = landed = 0
    before: tuple = ()
    for frame in range(150):
        world.step(Inputs(move=(0.0, 0.1), look=(90.0 + 15.0 * (frame % 40 < 20), -45.0), punch=frame % 2 == 0))
        objects = [o for o in world.snapshot().objects if o.kind in ("fragment", "held", "bullet", "projectile")]
        anew = [item.transform() for actions in every_actions(world)
                for item in ([actions.held] if actions.held is not None else []) + actions.objects]
        assert objects == anew
        kept += sum(1 for o in objects if any(o is b for b in before))
        landed = sum(1 for actions in every_actions(world) for item in actions.objects if item.resting)
        before = tuple(objects)
    assert kept > 100 and landed > 5


def test_an_object_of_another_name_or_kind_gets_a_transform_of_its_own():
    world = World.demo(seed=0, npcs=0)
    for frame in range(40):
        world.step(Inputs(look=(90.0, -45.0), punch=frame % 2 == 0))
    items = world.actions.objects
    assert items
    def kept_transforms(items, kept):  # as PlayerActions.object_transforms keeps them
        return kept_by_object(items, kept, lambda item: (item.name, item.kind), WorldObject.transform)

    found, kept = kept_transforms(items, {})
    again, _ = kept_transforms(items, kept)
    assert all(a is b for a, b in zip(found, again))
    renamed = [type(item)(item.name + "-x", item.kind, item.object, item.age) for item in items]
    moved, _ = kept_transforms(renamed, kept)
    assert [t.name for t in moved] == [t.name + "-x" for t in found]
    assert all(isinstance(t, ObjectTransform) and t is not f for t, f in zip(moved, found))
