"""What the Pilot tests of every mode share: waiting for the app, reading the screen and the files."""

from __future__ import annotations

from pathlib import Path

from tools.shots import workers_done


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


async def dialog_or_done(pilot, kind, timeout: float = 10.0):
    """After a key whose worker may ask first: the dialog of `kind` once it is on top, or None once
    no worker runs any more (it didn't ask). A fixed pause missed a dialog that came late on a
    loaded box, and settle() would then wait forever on the worker waiting for its answer."""
    import time

    app = pilot.app
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if isinstance(app.screen, kind):
            return app.screen
        if not any(worker.is_running for worker in app.workers):
            await pilot.pause()
            return app.screen if isinstance(app.screen, kind) else None
        await pilot.pause(0.05)
    raise AssertionError(f"neither a {kind.__name__} nor the end of the work; on top: {app.screen!r}")


def shown(widget) -> str:
    """The text a widget really paints on screen (what a person sees), line by line."""
    from textual.geometry import Region

    lines = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return "\n".join(strip.text.rstrip() for strip in lines)


def memory_text(home: Path, name: str = "MEMORY.md") -> str:
    """A memory file exactly as it is on disk."""
    return (home / "memories" / name).read_text(encoding="utf-8")
