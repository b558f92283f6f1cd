"""A long job's progress, shared by the command line and the TUI: when it starts to be worth
showing (`after_seconds`: 10 s, or the HMC_PROGRESS_AFTER variable's number of seconds) and a
`Tracker` that the job's thread updates and a reader polls, and the `Jobs` running now (the TUI's
progress line shows them). No Textual here.

May import: the standard library only."""

from __future__ import annotations

import os
import time
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Iterator

PROGRESS_AFTER = 10.0
AFTER_ENV = "HMC_PROGRESS_AFTER"


def after_seconds() -> float:
    """How long a job runs before its progress is shown (a bad or negative value: the default, 0 floor)."""
    value = os.environ.get(AFTER_ENV, "").strip()
    try:
        seconds = float(value) if value else PROGRESS_AFTER
    except ValueError:
        return PROGRESS_AFTER
    return max(0.0, seconds) if seconds == seconds else PROGRESS_AFTER  # NaN: the default


@dataclass
class Tracker:
    """One job's progress. The job calls it as `progress(done, total)` (from any thread: the pair is
    replaced in one assignment); a reader takes `snapshot()`. `due()` says whether the job has run
    long enough to be shown; `finish()` ends it."""

    what: str
    after: float = field(default_factory=after_seconds)
    started: float = field(default_factory=time.monotonic)
    finished: bool = False
    _state: tuple[int, int] = (0, 0)

    def __call__(self, done: int, total: int) -> None:
        self._state = (max(0, done), max(0, total))

    def snapshot(self) -> tuple[int, int]:
        return self._state

    def due(self, now: float | None = None) -> bool:
        return not self.finished and (time.monotonic() if now is None else now) - self.started >= self.after

    def finish(self) -> None:
        self.finished = True

    def line(self) -> str:
        """`rebuilding the memory history: 12,345 of 50,000 events (24%)` (no total yet: `starting`)."""
        done, total = self._state
        if not total:
            return f"{self.what}: starting"
        return f"{self.what}: {done:,} of {total:,} events ({min(done, total) * 100 // total}%)"


class Jobs:
    """The long jobs running now, for a progress line to show: a worker runs `with jobs("what") as
    progress:` and passes `progress` on; a reader polls `shown()`. Starting and ending a job from
    any thread is safe (one list, changed by single appends and removals)."""

    def __init__(self) -> None:
        self._running: list[Tracker] = []

    @contextmanager
    def __call__(self, what: str) -> Iterator[Tracker]:
        tracker = Tracker(what)
        self._running.append(tracker)
        try:
            yield tracker
        finally:
            tracker.finish()
            with suppress(ValueError):
                self._running.remove(tracker)

    def shown(self, now: float | None = None) -> Tracker | None:
        """The oldest job that has run long enough to be shown, if any."""
        now = time.monotonic() if now is None else now
        return next((job for job in tuple(self._running) if job.due(now)), None)
