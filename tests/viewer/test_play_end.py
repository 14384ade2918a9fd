"""``voxelworld play`` ends its play (the design's end step) when it stops and when its last page leaves: the
summary event joins the world's log and the world is saved when the server has a save path."""

from __future__ import annotations

from voxelworld.game.events import PlayEnded
from voxelworld.game.world import World
from voxelworld.io import load_world
from voxelworld.viewer.server import ServerThread, play_ended_line

from .test_server import Page, wait_until


def test_stopping_the_server_ends_the_play_and_saves_the_world(tmp_path):
    target = tmp_path / "ended.vwd"
    with ServerThread(World.demo(seed=0), save_path=target) as server:
        wait_until(lambda: server.play.frames >= 5, what="five frames")
    summary, saved = server.play.ended
    assert summary.reason == "stopped" and saved == str(target)
    loaded = load_world(target)
    assert loaded.frame == summary.frames >= 5
    assert isinstance(loaded.events[-1], PlayEnded) and loaded.events[-1].reason == "stopped"
    line = play_ended_line(server.play)
    assert f"after {summary.frames} frames" in line and f"saved the world to {target}" in line


def test_the_last_page_leaving_ends_the_play_and_saves_while_the_server_goes_on(tmp_path):
    target = tmp_path / "left.vwd"
    with ServerThread(World.demo(seed=0), save_path=target) as server:
        first, second = Page(server), Page(server)
        first.json("hello"), second.json("hello")
        first.close()
        wait_until(lambda: len(server.play.clients) == 1, what="the first page to leave")
        assert server.play.ended is None  # a page is still there: the play goes on
        second.close()
        wait_until(lambda: server.play.ended is not None, what="the play to end")
        summary, saved = server.play.ended
        assert summary.reason == "left" and saved == str(target) and target.exists()
        frames = server.play.frames
        wait_until(lambda: server.play.frames > frames + 2, what="the world to step on")


def test_without_a_save_path_the_play_ends_unsaved():
    with ServerThread(World.demo(seed=0)) as server:
        wait_until(lambda: server.play.frames >= 2, what="two frames")
    summary, saved = server.play.ended
    assert saved is None and summary.reason == "stopped"
    assert "saving is off" in play_ended_line(server.play)
