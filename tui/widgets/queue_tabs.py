"""The two pending queues as tabs, "Memory 13 · Skills 7": the start of pending mode's status bar."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.widgets import Static

QUEUES = (("pending", "Memory", "s"), ("skills", "Skills", "m"))


def queue_tabs(memory: int | None, skills: int | None, active: str) -> tuple[Text, list[tuple[int, int, str]]]:
    """The tabs (the active one reversed) and where each is, as (start, end, mode) for clicks."""
    out = Text()
    spans = []
    counts = {"pending": memory, "skills": skills}
    for n, (mode, label, _key) in enumerate(QUEUES):
        if n:
            out.append(" · ", style="dim")
        start = out.cell_len
        count = counts[mode]
        shown = f" {label} {'…' if count is None else count} "
        out.append(shown, style="bold reverse" if mode == active else ("bold yellow" if count else ""))
        spans.append((start, out.cell_len, mode))
    key = next(k for m, _, k in QUEUES if m == active)
    out.append(f" ({key})", style="dim")
    return out, spans


def tab_at(spans: list[tuple[int, int, str]], x: int) -> str | None:
    return next((mode for start, end, mode in spans if start <= x < end), None)


class QueueBar(Static):
    """A status bar that starts with the queue tabs: `show(tabs_text_and_more, spans)`; a click on
    the other queue's tab opens it."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self.spans: list[tuple[int, int, str]] = []

    def show(self, text: Text, spans: list[tuple[int, int, str]]) -> None:
        self.spans = spans
        self.update(text)

    def on_click(self, event: events.Click) -> None:
        x = event.x - self.styles.padding.left
        mode = tab_at(self.spans, x)
        if mode is not None and mode != self.app.current_mode:
            event.stop()
            self.app.switch_mode(mode)
