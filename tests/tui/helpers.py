"""What the Pilot tests of every mode share: waiting for the app, reading the screen and the files."""

from __future__ import annotations

from pathlib import Path

from tools.shots import dialog_or_done, workers_done  # noqa: F401  (dialog_or_done: for the tests)


async def settle(app, pilot) -> None:
    """Let the screen catch up, every worker finish, and the screen catch up with what they did."""
    await pilot.pause()
    await workers_done(app)
    await pilot.pause()


async def until(pilot, condition, timeout: float = 10.0) -> bool:
    """Wait until `condition()` holds (a refresh that follows a write may come from the file poll or a
    second worker, later on a loaded box); returns its last value."""
    import time

    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        await pilot.pause(0.05)
        await workers_done(pilot.app)
    return bool(condition())


async def until_dialog(pilot, kind, timeout: float = 10.0):
    """Wait (without waiting on the worker that shows it) until a dialog of `kind` is on top (the worker may
    first compute something in a thread: slower on a loaded box)."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if isinstance(pilot.app.screen, kind):
            return pilot.app.screen
        await pilot.pause(0.05)
    raise AssertionError(f"no {kind.__name__} appeared; on top: {pilot.app.screen!r}")


def record_toasts(app) -> None:
    """Keep the app's toasts for toasts(app) as they would be if no time passed: Textual forgets a
    toast once its time is up, and a loaded box can spend a 3 s toast's time before the test looks.
    A toast the app itself takes down (cleared, or replaced by a newer one) is gone from it too."""
    from textual.notifications import Notifications

    class Recorded(Notifications):
        def __init__(self) -> None:
            super().__init__()
            self.raised: dict = {}

        def add(self, notification):
            self.raised[notification.identity] = notification
            return super().add(notification)

        def clear(self):
            self.raised.clear()
            return super().clear()

        def __delitem__(self, notification) -> None:
            if not notification.has_expired:  # taken down by the app, not by its time
                self.raised.pop(notification.identity, None)
            super().__delitem__(notification)

    app._notifications = Recorded()


def toasts(app) -> list:
    """The toasts the app raised and has not taken down (record_toasts), their time up or not."""
    return list(app._notifications.raised.values())


def shown(widget) -> str:
    """The text a widget really paints on screen (what a person sees), line by line."""
    from textual.geometry import Region

    lines = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return "\n".join(strip.text.rstrip() for strip in lines)


def memory_text(home: Path, name: str = "MEMORY.md") -> str:
    """A memory file exactly as it is on disk."""
    return (home / "memories" / name).read_text(encoding="utf-8")
