"""Screenshot scenarios: each area's module here lists `SCENARIOS = [Shot(...)]`.

`python tools/screenshots.py` renders every scenario on a fresh demo home (today and the clock
frozen, as in the snapshot tests) into screenshots/<name>.svg.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Callable

TODAY = date(2026, 11, 15)
NOW = datetime(2026, 11, 15, 12, 0, tzinfo=timezone.utc).timestamp()


def frozen_clock() -> float:
    return NOW


@dataclass(frozen=True)
class Shot:
    name: str  # screenshots/<name>.svg
    press: tuple[str, ...] = ()  # keys pressed after the first screen paints
    setup: Callable[[Path], None] | None = None  # changes the demo home before the app starts
    size: tuple[int, int] = (120, 36)
    title: str = ""  # caption in the README
    greet: bool = False  # show the start-up notifications
    settle: Callable | None = field(default=None)  # async (pilot) -> None, extra steps after the keys
    expect: tuple[str, ...] = ()  # text the screen must show: what the caption promises (drive checks it)


def steady_cursors() -> Callable[[], None]:
    """Stop cursor blinking (for repeatable screenshots); returns a function that restores it."""
    from textual.reactive import reactive
    from textual.widgets import Input, TextArea

    saved = {cls: cls.__dict__["cursor_blink"] for cls in (Input, TextArea)}
    for cls in saved:
        steady = reactive(False, init=False)
        steady.__set_name__(cls, "cursor_blink")
        setattr(cls, "cursor_blink", steady)

    def restore() -> None:
        for cls, original in saved.items():
            setattr(cls, "cursor_blink", original)

    return restore


SHOT_TOAST_SECONDS = 3600  # a toast stays for the whole shot: its time would race the steps before it


def build_app(home: Path, shot: Shot):
    """The app a scenario shows: frozen clock, no file polling (so nothing depends on timing)."""
    from core.curator import open_curator
    from tui.app import CuratorApp

    if shot.setup:
        shot.setup(home)
    app = CuratorApp(open_curator(home, today=TODAY, clock=frozen_clock), greet=shot.greet, poll=False)
    notify = app.notify

    def timeless(message, **kwargs):  # a toast is in the shot or not by the keys, not by the box's load
        notify(message, **{**kwargs, "timeout": SHOT_TOAST_SECONDS})

    app.notify = timeless
    return app


async def drive(pilot, shot: Shot) -> None:
    """Press the scenario's keys, run its extra steps, and let the screen settle."""
    await pilot.pause()
    await settled(pilot)
    for key in shot.press:
        await pilot.press(key)
        await pilot.pause()
    if shot.settle:
        await shot.settle(pilot)
    await pilot.pause()
    shown = screen_text(pilot.app)
    missing = [e for e in shot.expect if e not in shown]
    assert not missing, f"{shot.name}: its caption says {shot.title!r}, but the screen lacks {missing}"


def screen_text(app) -> str:
    """The text on the app's screen now, its lines one after another (for a shot's `expect`)."""
    import html
    import re

    svg = re.sub(r"<style>.*?</style>", "", app.export_screenshot(), flags=re.DOTALL)
    lines = re.findall(r"<text[^>]*>(.*?)</text>", svg, flags=re.DOTALL)
    return html.unescape("".join(lines)).replace("\xa0", " ")


async def workers_done(app) -> None:
    """Wait until no worker runs. A worker that a newer exclusive one replaced ends cancelled: that
    is the app working as meant (a newer search, a newer load), so it is not an error here; the
    wait goes on until every worker left has finished."""
    from textual.worker import WorkerCancelled

    for _ in range(1000):
        try:
            await app.workers.wait_for_complete()
            return
        except WorkerCancelled:
            continue


async def dialog_or_done(pilot, kind=None, timeout: float = 20.0):
    """After a key whose worker may ask first: the dialog of `kind` (any modal screen by default) once
    it is on top, or None once no worker runs any more (it didn't ask). A fixed pause missed a dialog
    that came late on a loaded box; waiting for the workers instead would wait forever on the one
    waiting for the dialog's answer."""
    import time

    from textual.screen import ModalScreen

    kind = kind or ModalScreen
    app = pilot.app
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if isinstance(app.screen, kind):
            await pilot.pause()
            return app.screen
        if all(worker.is_finished for worker in app.workers):
            await pilot.pause()
            return app.screen if isinstance(app.screen, kind) else None
        await pilot.pause(0.05)
    raise AssertionError(f"neither a {kind.__name__} nor the end of the work; on top: {app.screen!r}")


async def settled(pilot) -> None:
    """Wait for what the first screen does after it paints (memory mode's scan badges start a
    quarter second later, off the UI thread), so every shot shows them."""
    from tui.screens.memory import SCAN_DELAY

    await pilot.pause(SCAN_DELAY + 0.1)
    await workers_done(pilot.app)
    await pilot.pause()
