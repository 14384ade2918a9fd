"""Frames first (voxelworld.frame_first): background threads wait at their next step while a frame runs, go on
when it ends or waits for them itself, and never wait long; other threads never wait."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from voxelworld import frame_first
from voxelworld.frame_first import frame_running, mark_background_thread, result_of, step_aside, waiting_for_background


def stepping_aside(background: bool) -> tuple[threading.Thread, threading.Event]:
    """A thread that steps aside once (marked as background or not) and sets its event when past it."""
    past = threading.Event()

    def run() -> None:
        if background:
            mark_background_thread()
        step_aside()
        past.set()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, past


def test_a_background_thread_waits_for_the_frame_to_end():
    with frame_running():
        thread, past = stepping_aside(background=True)
        assert not past.wait(0.02)  # the frame runs: it waits
    assert past.wait(5)  # the frame ended: it goes on
    thread.join()


def test_other_threads_and_the_frames_own_never_wait(monkeypatch):
    monkeypatch.setattr(frame_first, "MAX_STEP_ASIDE", 60.0)  # (a wait would show: far longer than the join below)
    with frame_running():
        thread, past = stepping_aside(background=False)  # the frame's work spread over the cores, or its own
        thread.join(5)
        assert past.is_set()


def test_a_frame_waiting_for_background_work_lets_it_go_on():
    with ThreadPoolExecutor(1, initializer=mark_background_thread) as executor, frame_running():
        def work() -> bool:
            step_aside()
            return frame_first._clear.is_set()  # the frame let it go on (else it went on after MAX_STEP_ASIDE)

        assert result_of(executor.submit(work)) is True
        thread, past = stepping_aside(background=True)
        assert not past.wait(0.02)  # the frame runs again once its wait ended
        with waiting_for_background():
            assert past.wait(5)
        thread.join()


def test_a_frame_that_runs_long_does_not_hold_the_background_back_for_long(monkeypatch):
    monkeypatch.setattr(frame_first, "MAX_STEP_ASIDE", 0.05)
    with frame_running():
        start = time.perf_counter()
        thread, past = stepping_aside(background=True)
        assert past.wait(5)
        assert time.perf_counter() - start >= 0.04
    thread.join()


def test_frames_nest_and_an_error_ends_them():
    with pytest.raises(RuntimeError), frame_running():
        with frame_running():
            pass
        thread, past = stepping_aside(background=True)
        assert not past.wait(0.02)  # the outer frame still runs
        raise RuntimeError("a frame fails")
    assert past.wait(5)
    thread.join()
    assert not frame_first._frames


def test_a_worlds_step_is_a_frame():
    from voxelworld.game.world import Inputs, World

    world = World.demo(seed=0)
    seen = []
    world.add_handler(lambda world, inputs: seen.append(frame_first._clear.is_set()))
    world.step(Inputs())
    assert seen == [False] and frame_first._clear.is_set()  # a frame while it ran, none after
