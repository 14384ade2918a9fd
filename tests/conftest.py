"""Hypothesis draws the same examples on every CI run (``CI`` set, as ``.ci/run`` is run), so that CI passes or
fails on what the code does, not on the draw; elsewhere each run explores fresh examples."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
