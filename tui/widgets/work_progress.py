"""The progress line of long work (a history rebuild past 10 s): hidden until a job of the `Jobs`
it is given has run long enough to be shown (core.progress), then its words and a progress bar,
polled a few times a second; hidden again when the job ends. It renders only what the jobs say.
The words and the bar are mounted the first time there is something to show (nothing extra at
start-up: a hidden line costs as much to build and style as a shown one)."""

from __future__ import annotations

from textual.containers import Horizontal
from textual.widgets import Static

from core.progress import Jobs
from tui.literal import literal

POLL_SECONDS = 0.25


class WorkProgress(Horizontal):
    DEFAULT_CSS = """
    WorkProgress { display: none; height: 1; padding: 0 1; background: $boost; }
    WorkProgress.-busy { display: block; }
    WorkProgress > Static { width: 1fr; height: 1; margin-left: 1; }
    WorkProgress > ProgressBar { width: 26; height: 1; }
    """

    def __init__(self, jobs: Jobs, **kwargs) -> None:
        super().__init__(**kwargs)
        self.jobs = jobs
        self._shown: tuple[str, int, int] | None = None
        self._bar = None
        self._words: Static | None = None

    def on_mount(self) -> None:
        self.set_interval(POLL_SECONDS, self.poll)

    def poll(self) -> None:
        job = self.jobs.shown()
        state = None if job is None else (job.line(), *job.snapshot())
        if state == self._shown:
            return  # nothing changed: nothing repaints
        self._shown = state
        self.set_class(state is not None, "-busy")
        if state is None:
            return
        line, done, total = state
        words = literal(line[:1].upper() + line[1:])
        if self._bar is None:
            from textual.widgets import ProgressBar

            self._bar = ProgressBar(total=total or None, show_eta=False, show_percentage=False)
            self._bar.progress = min(done, total)
            self._words = Static(words, markup=False)
            self.mount(self._bar, self._words)
        else:
            self._words.update(words)
            self._bar.update(total=total or None, progress=min(done, total))
