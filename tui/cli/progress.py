"""A long build's progress on stderr: nothing for the first PROGRESS_AFTER seconds (10; the
HMC_PROGRESS_AFTER variable sets another number of seconds), then one line that updates in place on
a terminal (`hmc: rebuilding the memory history: 12,345 of 50,000 events (24%)`), or a line every few
seconds when stderr is a file or a pipe. Output (stdout) is never touched."""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

PROGRESS_AFTER = 10.0
EVERY_TTY = 0.2  # seconds between two updates of the line on a terminal
EVERY_FILE = 5.0  # between two lines in a file or a pipe


def after_seconds() -> float:
    value = os.environ.get("HMC_PROGRESS_AFTER", "").strip()
    try:
        return max(0.0, float(value)) if value else PROGRESS_AFTER
    except ValueError:
        return PROGRESS_AFTER


class Progress:
    def __init__(self, what: str, stream: TextIO | None = None):
        self.what = what
        self.stream = stream or sys.stderr
        self.after = after_seconds()
        self.started = time.monotonic()
        self.last = float("-inf")
        self.shown = False
        try:
            self.tty = self.stream.isatty()
        except (AttributeError, ValueError, OSError):
            self.tty = False

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.started < self.after:
            return
        final = done >= total
        if not final and now - self.last < (EVERY_TTY if self.tty else EVERY_FILE):
            return
        self.last = now
        line = f"hmc: {self.what}: {done:,} of {total:,} events ({done * 100 // max(total, 1)}%)"
        try:
            self.stream.write(("\r" + line + "\x1b[K") if self.tty else line + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            return
        self.shown = True

    def close(self) -> None:
        """End the updating line (a terminal's cursor goes to the next line)."""
        if self.shown and self.tty:
            try:
                self.stream.write("\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass
