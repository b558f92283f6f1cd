"""A long build's progress on stderr: nothing for the first seconds (core.progress.after_seconds:
10, or HMC_PROGRESS_AFTER's number), then one line that updates in place on a terminal
(`hmc: rebuilding the memory history: 12,345 of 50,000 events (24%)`), or a line every few seconds
when stderr is a file or a pipe. Output (stdout) is never touched."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from core.progress import Tracker

EVERY_TTY = 0.2  # seconds between two updates of the line on a terminal
EVERY_FILE = 5.0  # between two lines in a file or a pipe


class Progress:
    def __init__(self, what: str, stream: TextIO | None = None):
        self.tracker = Tracker(what)
        self.stream = stream or sys.stderr
        self.last = float("-inf")
        self.shown = False
        try:
            self.tty = self.stream.isatty()
        except (AttributeError, ValueError, OSError):
            self.tty = False

    def __call__(self, done: int, total: int) -> None:
        self.tracker(done, total)
        now = time.monotonic()
        if not self.tracker.due(now):
            return
        final = done >= total
        if not final and now - self.last < (EVERY_TTY if self.tty else EVERY_FILE):
            return
        self.last = now
        line = "hmc: " + self.tracker.line()
        try:
            self.stream.write(("\r" + line + "\x1b[K") if self.tty else line + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            return
        self.shown = True

    def close(self) -> None:
        """End the updating line (a terminal's cursor goes to the next line)."""
        self.tracker.finish()
        if self.shown and self.tty:
            try:
                self.stream.write("\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass
