"""`voxelworld --help` and each subcommand's help: a description, an example and the defaults; `--version` (the version written once, in the package);
`export` without an output file says in words what is missing."""

from __future__ import annotations

import argparse
import re
import tomllib
from pathlib import Path

import pytest

import voxelworld
from voxelworld import cli

ROOT = Path(__file__).resolve().parents[1]

SUBCOMMANDS = (["demo"], ["edits"], ["render"], ["navmesh", "bake"], ["play"], ["new"], ["bake"], ["export"],
               ["motion", "plot"], ["warmup"])


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def parser_of(words: list[str]) -> argparse.ArgumentParser:
    parser = cli.build_parser()
    for word in words:
        parser = subparsers(parser)[word]
    return parser


def help_of(words: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as excinfo:
        cli.main([*words, "--help"])
    assert excinfo.value.code == 0
    return capsys.readouterr().out


def test_every_command_is_listed_with_its_help():
    names = set(subparsers(cli.build_parser()))
    assert {words[0] for words in SUBCOMMANDS} == names  # none forgotten here, none without help there


@pytest.mark.parametrize("words", SUBCOMMANDS, ids=" ".join)
def test_each_subcommand_has_a_description_and_an_example_that_runs_it(words, capsys):
    parser = parser_of(words)
    text = help_of(words, capsys)
    assert parser.description and len(parser.description) > 40
    assert parser.description.splitlines()[0] in text
    example = text.split("\nexample:\n")[1].strip()
    assert example.startswith("voxelworld " + " ".join(words))
    parsed = parser.parse_args(example.replace("\\\n", " ").split()[1 + len(words):])  # the example parses
    assert parsed is not None


@pytest.mark.parametrize("words", SUBCOMMANDS, ids=" ".join)
def test_each_option_with_a_default_shows_it(words, capsys):
    parser = parser_of(words)
    text = " ".join(help_of(words, capsys).split())  # the help wraps lines
    shown = [a for a in parser._actions if a.default not in (None, False, [], argparse.SUPPRESS)]
    for action in shown:
        assert f"(default: {action.default})" in text, action.option_strings
    if words[0] in ("demo", "render", "play"):
        assert shown  # these have defaults to show (seed, frames, out, width, height, host, port)


def test_navmesh_bake_shows_the_nav_settings_defaults(capsys):
    from voxelworld.navigation import NavSettings

    text = " ".join(help_of(["navmesh", "bake"], capsys).split())
    assert f"(NavSettings.clearance; default: {NavSettings().clearance})" in text
    assert f"(default: {NavSettings().exclusion_proxy})" in text


def test_defaults_in_help_are_those_the_parser_uses(capsys):
    args = cli.build_parser().parse_args(["demo"])
    text = " ".join(help_of(["demo"], capsys).split())
    assert f"(default: {args.frames})" in text and f"(default: {args.out})" in text


def test_version_prints_the_package_version(capsys):
    with pytest.raises(SystemExit) as excinfo:
        cli.main(["--version"])
    assert excinfo.value.code == 0
    assert capsys.readouterr().out.strip() == f"voxelworld {voxelworld.__version__}"
    assert cli.package_version() == voxelworld.__version__


def test_the_version_is_written_in_the_package_only():
    """pyproject.toml reads ``voxelworld.__version__`` (setuptools' dynamic version) instead of repeating it, and
    CHANGELOG.md's newest entry is that version."""
    version = voxelworld.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), version
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    project = tomllib.loads(text)
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "voxelworld.__version__"}
    assert version not in text
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.M)
    assert released[0] == version and released[-1] == "0.1.0", released


def test_export_without_an_output_names_what_is_missing(tmp_path, capsys):
    world = tmp_path / "world.vwd"
    world.write_bytes(b"not read: the missing output is found first")
    assert cli.main(["export", str(world)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == f"voxelworld: {cli.NO_EXPORT_OUTPUT}"
    assert "nothing to write" in err and "--gltf FILE.glb" in err and "--obj FILE.obj" in err
    assert "None" not in err and "out of range" not in err
