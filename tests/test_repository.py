"""The repository stands on its own: no tracked file reaches outside the clone or into one machine's folders, and
every third-party file it carries has its licence, its origin and its checksum beside it."""

from __future__ import annotations

import hashlib
import re
import subprocess
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest

from voxelworld.motion import CESIUM_MAN

ROOT = Path(__file__).resolve().parents[1]

# Absolute paths under the top folders of a Linux or macOS machine (a path that starts a line or a string, not the
# tail of a URL or of a relative path), and Windows user folders.
ABSOLUTE_PATH = re.compile(r"(?<![\w.~$:/-])/(?:usr|opt|var|tmp|work|home|root|mnt|media|srv|Users|etc|proc|dev|"
                           r"sys|snap|nix|run|scratch|data)(?:/[\w.+-]*)*|\b[A-Za-z]:\\+Users\\[^\s\"'`]*")
# The team's sibling folder, named as a relative path or joined as a path component of a pathlib or os.path join.
SHARED_FOLDER = re.compile(r"\.\.[/\\]+shared\b|[\"']shared[\"']\s*[/,)]|/\s*[\"']shared[\"']")

# Absolute paths that are the same on every machine the project supports, each with the reason it may be named.
ALLOWED = {
    "/usr/bin/env": "the shebang of scripts: finds bash on PATH",
    "/dev/null": "the shell's discard device (scripts/setup)",
    "/usr/bin/chromium": "Debian's chromium, where its package installs it: the browser tests drive it",
    "/proc/cpuinfo": "Linux's CPU description: the benchmarks print the machine they ran on",
    "/proc/self/statm": "Linux's resident memory of a process: the large-world benchmark measures it",
}


def machine_specific_names(text: str) -> list[str]:
    """The absolute paths outside ``ALLOWED`` and the references to the sibling ``shared`` folder in ``text``."""
    paths = [m.group(0) for m in ABSOLUTE_PATH.finditer(text) if m.group(0).rstrip(".") not in ALLOWED]
    return paths + [m.group(0) for m in SHARED_FOLDER.finditer(text)]


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    files = [ROOT / name for name in listed.decode().split("\0") if name]
    return [path for path in files if path.is_file() and b"\0" not in path.read_bytes()[:8192]]


def test_no_tracked_file_names_the_shared_folder_or_a_folder_of_one_machine():
    files = tracked_text_files()
    assert ROOT / "README.md" in files and ROOT / "scripts" / "setup" in files  # the listing works
    found = {str(path.relative_to(ROOT)): names for path in files
             if (names := machine_specific_names(path.read_text(encoding="utf-8", errors="replace")))}
    assert found == {}


@pytest.mark.parametrize("text", [
    "LEVEL = Path(" + repr("/" + "work/shared/scenes/nav_test.obj") + ")",
    "see " + "/" + "home/alice/levels/cave.obj",
    "cache = " + repr("/" + "root/.cache/voxelworld"),
    "written to " + "/" + "tmp/demo/report.md",
    "python " + "/" + "work/main/.venv/bin/python -m pytest",
    "load_gltf(" + repr(".." + "/shared/motion-data/CesiumMan.glb") + ")",
    "Path(__file__).parents[2] / " + repr("sha" + "red") + " / 'scenes'",
    "os.path.join(up, " + repr("sha" + "red") + ", 'scenes')",
    "C:" + "\\Users\\alice\\levels",
    "`" + "/" + "Users/alice/world.vwd`",
])
def test_the_check_finds_shared_folders_and_machine_paths(text):
    assert machine_specific_names(text)


@pytest.mark.parametrize("text", [
    "#!" + "/usr/bin/env bash",
    "dpkg -s chromium >" + "/dev/null 2>&1",
    "CHROMIUM = Path(" + repr("/usr/bin/chromium") + ")",
    "with open(" + repr("/proc/cpuinfo") + ") as info:",
    "https://github.com/KhronosGroup/glTF-Sample-Assets/tree/main/Models/CesiumMan",
    "tests/data/scenes/nav_test.obj and src/voxelworld/viewer/web/index.html",
    "an edge shared by two triangles; the shared machinery; 1 m / 2 s",
])
def test_the_check_lets_relative_paths_urls_and_os_defaults_pass(text):
    assert machine_specific_names(text) == []


def asset_folders() -> list[Path]:
    return [CESIUM_MAN.parent, ROOT / "tests" / "data" / "scenes", ROOT / "tests" / "data" / "motion"]


@pytest.mark.parametrize("folder", asset_folders(), ids=lambda folder: folder.name)
def test_every_asset_has_its_licence_and_its_origin_with_a_matching_sha256(folder):
    sources = (folder / "SOURCES.md").read_text(encoding="utf-8")
    licences = [path for path in folder.iterdir() if "licen" in path.name.lower()]
    assets = [path for path in folder.iterdir() if path.name != "SOURCES.md" and path not in licences]
    assert licences and assets
    for path in assets:
        row = next((line for line in sources.splitlines() if line.startswith(f"| {path.name} |")), None)
        assert row is not None, f"{path.name} has no row in {folder}/SOURCES.md"
        assert "https://" in row, f"{path.name}: no origin URL"
        assert hashlib.sha256(path.read_bytes()).hexdigest() in row, f"{path.name}: the sha256 differs"


def test_every_asset_folder_is_tracked_only_with_files_the_package_or_the_tests_read():
    """The package ships CesiumMan (package data); the test-only files stay out of the package."""
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = package_data["voxelworld.motion"]
    relative = CESIUM_MAN.relative_to(ROOT / "src" / "voxelworld" / "motion").as_posix()
    for name in ("CesiumMan.glb", "LICENSE", "SOURCES.md"):
        assert any(fnmatch(str(Path(relative).with_name(name)), pattern) for pattern in patterns), name
    assert not list((ROOT / "src").rglob("nav_test.obj")) and not list((ROOT / "src").rglob("SimpleSkin.gltf"))


def test_cesium_man_is_credited_in_the_docs_and_on_the_page():
    licence = (CESIUM_MAN.parent / "LICENSE").read_text(encoding="utf-8")
    attribution = re.search(r'Attribution to give when redistributing: "(.+?)"', licence).group(1)
    for path in ["README.md", "docs/motion.md", "src/voxelworld/viewer/web/index.html"]:
        assert attribution in " ".join((ROOT / path).read_text(encoding="utf-8").split()), path  # lines wrap
