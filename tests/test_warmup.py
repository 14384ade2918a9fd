"""The warm-up compiles every numba kernel of every wing, keeps its marker where numba keeps the cache, and the
``voxelworld`` command says when it has to compile before it runs.

The two tests that run the warm-up's workloads do so against the suite's own numba cache (loading what is
compiled already, compiling what is not, once for the whole suite), never an empty one: nothing compiles twice.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import voxelworld
from voxelworld import cli, warmup

SRC = str(Path(voxelworld.__file__).resolve().parents[1])

# Run in a fresh process (dispatchers know only the signatures that process used): the warm-up, then every njit
# dispatcher of every _kernels module that it did not reach, either called by it or called from a kernel it called
# (a kernel loaded from the cache carries its callees' code inside: they report no signatures of their own), by
# name or as an attribute of a kernel module it imports.
COVERAGE = """
import importlib, json, pkgutil, types
import voxelworld
from numba.core.registry import CPUDispatcher
from voxelworld.warmup import compile_kernels

compile_kernels()
kernels = {}
for info in pkgutil.walk_packages(voxelworld.__path__, "voxelworld."):
    if "._kernels" in info.name or info.name.endswith("._kernels"):
        module = importlib.import_module(info.name)
        kernels.update({f"{module.__name__}.{name}": value for name, value in vars(module).items()
                        if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__})

def called_kernels(kernel):
    names, codes = set(), [kernel.py_func.__code__]
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes.extend(const for const in code.co_consts if hasattr(const, "co_names"))
    found, scope = [], kernel.py_func.__globals__
    for name in names:
        value = scope.get(name)
        if isinstance(value, CPUDispatcher):
            found.append(value)
        elif isinstance(value, types.ModuleType):  # module.kernel(...): the module's kernels the code names
            found.extend(v for attribute in names if isinstance(v := getattr(value, attribute, None), CPUDispatcher))
    return found

reached, stack = set(), [kernel for kernel in kernels.values() if kernel.signatures]
while stack:
    kernel = stack.pop()
    if id(kernel) not in reached:
        reached.add(id(kernel))
        stack.extend(called_kernels(kernel))
print(json.dumps({"kernels": len(kernels), "wings": sorted({name.split(".")[1] for name in kernels}),
                  "missed": sorted(name for name, kernel in kernels.items() if id(kernel) not in reached)}))
"""


def run_python(code: str, **env) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [SRC, os.environ.get("PYTHONPATH")])),
                       **env)
    return subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True,
                          timeout=1800)


def test_the_warm_up_reaches_every_kernel_of_every_wing():
    result = run_python(COVERAGE)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.splitlines()[-1])
    assert found["wings"] == ["collision", "game", "meshing", "motion", "navigation", "terrain"]
    assert found["kernels"] > 100  # the listing sees the kernels (146 when this was written)
    assert found["missed"] == []


def test_the_marker_follows_numba_cache_dir(tmp_path):
    result = run_python("from voxelworld.warmup import marker_path; print(marker_path())",
                        NUMBA_CACHE_DIR=str(tmp_path))
    assert result.returncode == 0, result.stderr
    marker = Path(result.stdout.strip())
    assert marker.name == "voxelworld-kernels.json" and marker.is_relative_to(tmp_path)


def test_kernels_are_ready_only_for_a_marker_written_for_this_code(tmp_path):
    marker = tmp_path / "marker.json"
    assert not warmup.kernels_ready(marker)  # missing
    marker.write_text("{not json")
    assert not warmup.kernels_ready(marker)
    key = warmup.marker_key()
    assert key["voxelworld"] == voxelworld.__version__ and len(key["kernel_sources"]) == 64
    marker.write_text(json.dumps(key))
    assert warmup.kernels_ready(marker)
    for field, other in [("kernel_sources", "0" * 64), ("numba", "0.1"), ("voxelworld", "0.0.1"), ("cpu", "other")]:
        marker.write_text(json.dumps(dict(key, **{field: other})))
        assert not warmup.kernels_ready(marker), field


def test_the_kernel_hash_covers_every_kernel_module():
    package = Path(voxelworld.__file__).resolve().parent
    sources = {path.relative_to(package).as_posix() for path in warmup.kernel_sources()}
    expected = {path.relative_to(package).as_posix() for path in package.rglob("_kernels*") if path.suffix == ".py"}
    expected |= {path.relative_to(package).as_posix() for folder in package.rglob("_kernels") if folder.is_dir()
                 for path in folder.glob("*.py")}
    assert expected <= sources and "warmup.py" in sources
    assert {"terrain/_kernels/density.py", "collision/_kernels.py", "meshing/_kernels/cells.py"} <= sources


def test_the_command_says_it_compiles_when_the_marker_is_missing_and_not_when_present(tmp_path, capsys,
                                                                                      monkeypatch):
    marker = tmp_path / "cache" / "voxelworld-kernels.json"
    monkeypatch.setattr(warmup, "marker_path", lambda: marker)
    assert cli.main(["edits"]) == 0
    captured = capsys.readouterr()
    assert "compiling the numba kernels for this machine first" in captured.err
    for index, (wing, _) in enumerate(warmup.STAGES):
        assert f"{index + 1}/{len(warmup.STAGES)} {wing}" in captured.err
    assert "Solid volume by material now" in captured.out  # then the command ran
    assert json.loads(marker.read_text()) == warmup.marker_key()

    assert cli.main(["edits"]) == 0
    captured = capsys.readouterr()
    assert "compiling" not in captured.err and "Solid volume by material now" in captured.out


@pytest.mark.parametrize("force", [False, True])
def test_warmup_command_does_nothing_when_the_marker_is_current_unless_forced(tmp_path, capsys, monkeypatch, force):
    marker = tmp_path / "voxelworld-kernels.json"
    marker.write_text(json.dumps(warmup.marker_key()))
    ran = []
    monkeypatch.setattr(cli, "warm_up", lambda marker=None: ran.append(marker))
    assert cli.main(["warmup", "--marker", str(marker)] + ["--force"] * force) == 0
    assert ran == ([marker] if force else [])
    assert ("compiled already" in capsys.readouterr().err) is not force


@pytest.mark.parametrize("beneath", [False, True])
def test_a_numba_cache_dir_naming_a_file_is_refused_by_name(tmp_path, monkeypatch, beneath):
    """numba caches beside the sources without a word when NUMBA_CACHE_DIR names a file (or a path beneath one);
    the warm-up would write its marker there and every run would compile where the user did not ask."""
    import numba

    from voxelworld.errors import ParameterError

    file = tmp_path / "cache"
    file.write_text("not a folder")
    folder = file / "numba" if beneath else file
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(folder))
    with pytest.raises(ParameterError) as error:
        warmup.marker_path()
    assert error.value.parameter == "NUMBA_CACHE_DIR" and str(folder) in str(error.value)
    assert ("it names a file" in str(error.value)) is not beneath


def test_the_warmup_command_exits_non_zero_naming_a_numba_cache_dir_that_is_a_file(tmp_path):
    file = tmp_path / "cache"
    file.write_text("not a folder")
    result = run_python("import sys; from voxelworld import cli; sys.exit(cli.main(['warmup', '--marker', "
                        f"{str(tmp_path / 'marker.json')!r}]))", NUMBA_CACHE_DIR=str(file))
    assert result.returncode == 2, result.stderr
    assert f"NUMBA_CACHE_DIR = '{file}'" in result.stderr and "it names a file" in result.stderr
    assert not (tmp_path / "marker.json").exists()


LOAD_COMPILED = """
import json
from voxelworld.navigation._kernels import crowd
before = len(crowd.avoid.overloads)
from voxelworld.warmup import load_compiled_kernels
loaded = load_compiled_kernels()
import sys
from numba.core.registry import CPUDispatcher
kernels = [k for name, m in list(sys.modules.items()) if name.startswith("voxelworld.") and "_kernels" in name
           for k in vars(m).values() if isinstance(k, CPUDispatcher) and k.__module__ == name]
print(json.dumps({"before": before, "after": len(crowd.avoid.overloads), "loaded": loaded,
                  "again": load_compiled_kernels(),
                  "hits": sum(sum(k._cache_hits.values()) for k in kernels),
                  "misses": sum(sum(k._cache_misses.values()) for k in kernels)}))
"""


def test_play_loads_every_compiled_kernel_before_its_first_frame():
    """load_compiled_kernels (voxelworld play, before its world): a kernel the frames first call mid-play (the
    crowd's, when the first NPC walks) is loaded from the cache already, with every other the cache holds; nothing
    is compiled, and a second call has nothing left to load."""
    result = run_python(LOAD_COMPILED)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.splitlines()[-1])
    assert found["before"] == 0 and found["after"] >= 1
    assert found["loaded"] > 100 and found["hits"] == found["loaded"] and found["misses"] == 0
    assert found["again"] == 0
