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


def build_app(home: Path, shot: Shot):
    """The app a scenario shows: frozen clock, no file polling (so nothing depends on timing)."""
    from core.curator import open_curator
    from tui.app import CuratorApp

    if shot.setup:
        shot.setup(home)
    return CuratorApp(open_curator(home, today=TODAY, clock=frozen_clock), greet=shot.greet, poll=False)


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


async def settled(pilot) -> None:
    """Wait for what the first screen does after it paints (memory mode's scan badges start a
    quarter second later, off the UI thread), so every shot shows them."""
    from tui.screens.memory import SCAN_DELAY

    await pilot.pause(SCAN_DELAY + 0.1)
    await workers_done(pilot.app)
    await pilot.pause()
