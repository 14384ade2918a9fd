"""The linter (ruff, its settings in pyproject.toml) finds nothing in the package, the tests, the benchmarks and
the docs' configuration: the README's test command fails where it would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ["src", "tests", "benchmarks", "docs/conf.py"]


def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise",
                           *CHECKED], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"ruff check {' '.join(CHECKED)} (fix with ruff check --fix):\n{done.stdout}" \
        f"{done.stderr}"
