"""The background threads' priorities: the world's frame first, then the navigation's thread (a tile it has not
baked by its landing is baked in that frame), then the display jobs (late, a chunk shows its old mesh longer)."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from voxelworld.game.nav_ahead import NAVIGATION_NICENESS, navigation_thread
from voxelworld.meshing.prepared import BACKGROUND_NICENESS, background_executor


def _niceness(executor) -> int:
    return executor.submit(lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())).result()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread priorities are Linux's (nice per thread)")
def test_the_navigation_thread_runs_between_the_frame_and_the_display_jobs():
    assert 0 < NAVIGATION_NICENESS < BACKGROUND_NICENESS
    assert _niceness(navigation_thread()) == NAVIGATION_NICENESS
    assert _niceness(background_executor()) == BACKGROUND_NICENESS
