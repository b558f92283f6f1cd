"""Long work in the TUI: a history rebuild that runs past the threshold (10 s; HMC_PROGRESS_AFTER,
0 here) shows a progress line with a bar above the footer of the screen waiting on it (memory
mode's origins, the timeline, an entry's history, review's ages), and the line goes when the
build ends. The build is held in the middle by a real progress report, never by a timer."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import ProgressBar, Static

from tests.tui.helpers import settle, shown
from tests.tui.test_timeline import history_home
from tui.widgets.work_progress import WorkProgress


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


def hold(monkeypatch, only: str = ""):
    """build_timeline reports 64 of 200 events, then waits for `release` before the real build;
    with `only`, just the builds whose progress names that work (others run at once)."""
    import core.timeline as timeline

    real = timeline.build_timeline
    reached, release = threading.Event(), threading.Event()

    def build(curator, *args, progress=None, **kwargs):
        if progress is not None and not release.is_set() and getattr(progress, "what", "").endswith(only):
            progress(0, 200)
            progress(64, 200)
            reached.set()
            release.wait(20)
        return real(curator, *args, progress=progress, **kwargs)

    monkeypatch.setattr(timeline, "build_timeline", build)
    return reached, release


@pytest.fixture
def held(monkeypatch):
    return hold(monkeypatch)


async def until(pilot, condition, timeout: float = 20.0) -> bool:
    """Wait for `condition` by pausing only (tests.tui.helpers.until also waits for every worker,
    and here a worker is held on purpose until the test releases it)."""
    import time

    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        await pilot.pause(0.05)
    return bool(condition())


def line(screen) -> WorkProgress:
    return screen.query_one(WorkProgress)


def words(screen) -> str:
    """The line's words; "" until it has shown a job (its words are mounted then)."""
    statics = line(screen).query(Static)
    return shown(statics.first()) if statics else ""


def app_after(seconds: str, hermes_home, make_app, monkeypatch):
    """The app on a home with a history, its progress shown after `seconds` (HMC_PROGRESS_AFTER)."""
    monkeypatch.setenv("HMC_PROGRESS_AFTER", seconds)
    history_home(hermes_home)
    return make_app(hermes_home)


async def test_a_long_rebuild_shows_its_progress_then_goes(hermes_home, make_app, held, monkeypatch):
    reached, release = held
    app = app_after("0", hermes_home, make_app, monkeypatch)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("t")
        # (the line's class comes at once, its words once they are mounted: a moment later)
        assert await until(pilot, lambda: reached.is_set() and line(app.screen).has_class("-busy")
                           and words(app.screen), 20)
        progress = line(app.screen)
        assert words(app.screen) == "Rebuilding the memory history: 64 of 200 events (32%)"
        bar = progress.query_one(ProgressBar)
        assert (bar.progress, bar.total) == (64, 200)
        release.set()
        assert await until(pilot, lambda: not line(app.screen).has_class("-busy"), 20)
        assert app.screen.timeline is not None and len(app.screen.timeline.writes) == 5  # four calls, one hand edit


async def test_under_the_threshold_nothing_is_shown(hermes_home, make_app, held, monkeypatch):
    reached, release = held
    app = app_after("3600", hermes_home, make_app, monkeypatch)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("t")
        assert await until(pilot, reached.is_set, 20)
        await pilot.pause(0.6)  # more than two polls
        assert not line(app.screen).has_class("-busy") and not line(app.screen).query(ProgressBar)
        release.set()
        await settle(app, pilot)


async def test_review_shows_the_rebuild_for_entry_ages(hermes_home, make_app, monkeypatch):
    reached, release = hold(monkeypatch, only="for entry ages")  # memory mode's own build runs at once
    app = app_after("0", hermes_home, make_app, monkeypatch)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("4")
        # (memory mode's own quick build may show for a moment first: the oldest job is shown)
        assert await until(pilot, lambda: app.screen.MODE == "review" and "entry ages" in words(app.screen), 20)
        assert words(app.screen) == "Rebuilding the memory history for entry ages: 64 of 200 events (32%)"
        release.set()
        assert await until(pilot, lambda: not line(app.screen).has_class("-busy"), 20)
