"""The type check (mypy, its settings in pyproject.toml) finds nothing in the package: every function annotated,
every call agreeing with what it calls. The README's test command fails where it would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_mypy(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", *arguments], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def test_mypy_finds_nothing_in_the_package():
    done = run_mypy()  # the files and settings of pyproject.toml's [tool.mypy]
    assert done.returncode == 0, f"mypy (settings in pyproject.toml):\n{done.stdout}{done.stderr}"


def test_the_settings_refuse_an_unannotated_function(tmp_path):
    # The settings the package is checked with must still ask for annotations: a looser pyproject would let the
    # package's check pass on code that says nothing of its types.
    module = tmp_path / "loose.py"
    module.write_text("def add(a, b):\n    return a + b\n\n\ndef half(a: int) -> str:\n    return a / 2\n")
    done = run_mypy("--cache-dir", str(tmp_path / "cache"), str(module))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "[no-untyped-def]" in done.stdout and "[return-value]" in done.stdout, done.stdout
