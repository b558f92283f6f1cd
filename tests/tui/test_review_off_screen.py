"""Review mode built ahead, off screen, beside a live writer (issue 35): it follows the memory files
once their changes pause, not once per change (each a review of the whole store in a thread).

No assertion here races the wall clock: the burst runs under a wait it can't outlast however loaded
the box is (CI ran the suite at 2 cores' full load, and a 0.4 s wait fired mid-burst), and the pause
that ends it is one more change under a short wait."""

from __future__ import annotations

from core.review import findings as R
from tests.tui.helpers import settle, until
from tests.tui.test_one_frame import built_ahead


async def test_off_screen_the_review_follows_a_burst_of_changes_once(make_app, demo_home, monkeypatch):
    from tui.screens import review

    runs = []
    real = R.run_review
    monkeypatch.setattr(R, "run_review", lambda *a, **k: runs.append(1) or real(*a, **k))
    app = make_app(demo_home, poll=False, prebuild=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await built_ahead(pilot)
        screen = app._screen_stacks["review"][0]
        timers = []
        set_timer = screen.set_timer
        monkeypatch.setattr(screen, "set_timer", lambda *a, **k: timers.append(set_timer(*a, **k)) or timers[-1])
        runs.clear()
        monkeypatch.setattr(review, "OFF_SCREEN_QUIET", 3600.0)
        for _ in range(5):  # a burst of writes, memory mode on screen
            app.memory_changed.publish("memory")
            await pilot.pause(0.05)
        await settle(app, pilot)
        assert runs == []  # none yet: the writes haven't paused
        assert len(timers) == 5  # each change put the review off again…
        assert [t._task is None for t in timers] == [True, True, True, True, False]  # …dropping the wait before
        monkeypatch.setattr(review, "OFF_SCREEN_QUIET", 0.2)
        app.memory_changed.publish("memory")  # the last write; then the writes pause
        assert await until(pilot, lambda: runs == [1])
        assert all(t._task is None or t._task.done() for t in timers)
        await pilot.pause(0.6)
        await settle(app, pilot)
        assert runs == [1]  # one review for the burst
        runs.clear()
        await pilot.press("4")
        await settle(app, pilot)
        assert app.screen is screen
        app.memory_changed.publish("memory")  # on screen: at once
        await pilot.pause(0.05)
        await settle(app, pilot)
        assert runs == [1, 1]  # the visit's own look, then the change
