"""Every edit with callbacks carries the recipe that made it (VoxelEdit.recipe), and the recipe makes it again."""

from __future__ import annotations

import numpy as np
import pytest

from voxelworld.errors import ParameterError
from voxelworld.game.actions import ball_object, pull_out_edit, punch_edit
from voxelworld.game.edits import EditRecipe, VoxelEdit
from voxelworld.game.enemy import ChainsawEnemy
from voxelworld.game.play import PlayerActions
from voxelworld.game.suck import SuckState, suck_edits
from voxelworld.game.throwing import Contact, impact_edit
from voxelworld.terrain import Capsule, Sphere

from .test_actions import AIM, EYE, bvh_of, wall
from .test_enemy import DT, FEET, arena
from .test_throwing import lava_pool


def ignore(result) -> None:
    pass


def described(edit: VoxelEdit) -> str:
    return repr(edit)  # every field but the callbacks and the recipe


def assert_values(recipe: EditRecipe, make: str, **expected) -> None:
    assert recipe.make == make and list(recipe.as_dict()) == list(expected)
    for name, value in expected.items():
        got = recipe.as_dict()[name]
        if isinstance(value, np.ndarray):
            assert np.array_equal(got, value)
        else:
            assert got is value or got == value


def maker_edits():
    """Edits of every maker, each with its recipe values and a call that makes it again from them."""
    volume = wall("soil")
    bvh = bvh_of(volume)
    eye, aim = np.array(EYE, dtype=float), np.array(AIM, dtype=float)
    yield (punch_edit(volume, bvh, eye, aim, ignore), "punch", {"eye": eye, "aim": aim},
           lambda r: [punch_edit(volume, bvh, r["eye"], r["aim"], ignore)])
    yield (pull_out_edit(volume, bvh, eye, aim, ignore), "pull_out", {"eye": eye, "aim": aim},
           lambda r: [pull_out_edit(volume, bvh, r["eye"], r["aim"], ignore)])
    state = SuckState(True, 0.5, updates=2, bullets=("soil",))
    for edit in suck_edits(state, volume, bvh, eye, aim, 1 / 60, True, ignore):
        yield (edit, "suck", {"eye": eye, "aim": aim, "state": state, "dt": 1 / 60},
               lambda r: list(suck_edits(r["state"], volume, bvh, r["eye"], r["aim"], r["dt"], True, ignore)))
    rock, pool = wall("rock"), lava_pool()
    for ground, thing_material, point, material in ((rock, "soil", (4.0, 3.0, 3.0), "rock"),
                                                    (rock, "lava", (4.0, 3.0, 3.0), "rock"),
                                                    (pool, "rock", (4.0, 2.0, 4.0), "lava")):
        thing = ball_object(ground, thing_material, 0.3, point)
        contact = Contact(point, (-1.0, 0.0, 0.0), material)
        yield (impact_edit(ground, thing, contact, ignore), "impact", {"thing": thing, "contact": contact},
               lambda r, ground=ground: [impact_edit(ground, r["thing"], r["contact"], ignore)])
    volume, mesher = arena("soil")
    carves: list[VoxelEdit] = []
    enemy = ChainsawEnemy("saw", volume, mesher, FEET, facing=(1, 0, 0), edits=carves.append)
    while not carves:
        mesher.update()
        enemy.step(DT)
    edit = carves[0]
    yield (edit, "carve", {"enemy": "saw", "material": "soil"},
           lambda r: [enemy.carve_edit(edit.shape, r["material"])])


def test_every_edit_the_makers_return_carries_its_recipe_which_makes_it_again():
    made = list(maker_edits())
    assert {make for _, make, _, _ in made} == {"punch", "pull_out", "suck", "impact", "carve"}
    assert {e.kind for e, *_ in made} >= {"remove", "scrape", "expose_interior", "remove_fragments", "add",
                                          "convert"}
    assert {e.source for e, *_ in made} >= {"impact:attach", "impact:explode", "impact:cool"}
    for edit, make, values, again in made:
        assert edit is not None and edit.on_applied is not None
        assert isinstance(edit.recipe, EditRecipe), edit
        assert_values(edit.recipe, make, **values)
        assert "recipe" not in repr(edit)
        remade = again(edit.recipe.as_dict())
        assert edit.kind in [e.kind for e in remade]
        assert described(edit) in [described(e) for e in remade]
        assert all(isinstance(e.recipe, EditRecipe) for e in remade)


def test_the_edits_of_one_frame_of_suck_share_one_recipe():
    volume = wall("soil")
    edits = suck_edits(SuckState(), volume, bvh_of(volume), EYE, AIM, 1 / 60, True, ignore)
    assert len(edits) == 3 and edits[0].recipe is edits[1].recipe is edits[2].recipe


def test_an_edit_without_callbacks_needs_no_recipe_and_a_recipe_is_checked():
    edit = VoxelEdit("remove", Sphere((1.0, 1.0, 1.0), 1.0))
    assert edit.recipe is None and edit.on_before is None and edit.on_applied is None
    with pytest.raises(ParameterError, match="recipe"):
        VoxelEdit("remove", Sphere((1.0, 1.0, 1.0), 1.0), recipe={"make": "punch"})
    with pytest.raises(ParameterError, match="make"):
        EditRecipe("")
    with pytest.raises(ParameterError, match="values"):
        EditRecipe("punch", {"eye": (0.0, 0.0, 0.0)})


def test_public_callbacks_for_made_again_edits():
    volume, mesher = arena("soil")
    enemy = ChainsawEnemy("saw", volume, mesher, FEET)
    edit = enemy.carve_edit(Capsule((3.0, 1.0, 2.4), (3.5, 1.0, 2.4), 0.1), "soil")
    assert edit.kind == "remove" and edit.source == "saw" and edit.tool == enemy.settings.tool
    edit.apply(volume)
    assert enemy.carved_voxels > 0
    with pytest.raises(ParameterError, match="shape"):
        enemy.carve_edit("a capsule", "soil")
    actions = PlayerActions()
    for make in ("punch", "pull_out", "suck", "impact"):
        assert callable(actions.callback_for(object(), make, EYE))
    with pytest.raises(ParameterError, match="make"):
        actions.callback_for(object(), "kick")
