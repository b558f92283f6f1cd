"""The background review's memory writes, as `logs/agent.log` records them (HERMES-FORMATS.md §8).

The review runs every `memory.nudge_interval` turns in a fork with no session database: its memory
writes leave no tool rows in state.db, only log lines, under the parent session's tag (0.22.2,
read from its `hermes_logging` and `agent/turn_context.py`; local times):

    2026-11-12 14:02:07,311 INFO [<sid>] agent.turn_context: conversation turn: session=<sid> … origin=background_review
    2026-11-12 14:02:08,020 INFO [<sid>] agent.tool_executor: tool memory completed (0.01s, 194 chars)
    2026-11-12 14:02:08,540 INFO [<sid>] agent.turn_finalizer: Turn ended: … session=<sid> … origin=background_review
    2026-11-12 14:02:08,541 INFO [<sid>] agent.background_review: Background review complete: thread=bg-review …

A `tool memory completed` line of a session while its review turn is open is a review write at
that time. The log rotates (`agent.log.1` … `.N`, 5 MB each and 3 backups by default): every file
is read, newest last, each only as a regular file and only its last MAX_FILE_BYTES (a FIFO, a
folder, a link loop or a device is skipped, never waited on), lines decoded with errors replaced
(a binary file just matches nothing). What the log no longer holds is not known: the answer then
falls back to the other evidence.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from core.store.atomic import open_regular

LOG_NAME = "agent.log"
MAX_FILE_BYTES = 8 << 20  # per file, from its end (Hermes rotates at 5 MB by default)
MAX_ROTATED = 20  # agent.log.1 … .20 (Hermes keeps 3 by default)
MAX_LINE_CHARS = 4096  # a longer line is not one of those read here

_LINE = re.compile(r"(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d),(\d{3}) [A-Z]+(?: \[([^\]\s]{1,200})\])? ([\w.]+): (.*)")
_TURN = re.compile(r"conversation turn: session=(\S+) .* origin=(\w+)$")
_ENDED = re.compile(r"Turn ended: .*\bsession=(\S+)\b.* origin=background_review\b")
_MEMORY_DONE = re.compile(r"tool memory completed \(")
REVIEW = "background_review"


@dataclass
class ReviewLog:
    """The review's memory writes the log still holds: (Unix time, parent session id), oldest first."""

    writes: list[tuple[float, str]] = field(default_factory=list)
    files: int = 0  # log files read
    problem: str | None = None  # why a file couldn't be read (the others still were)

    def between(self, start: float | None, end: float) -> list[tuple[float, str]]:
        """The review writes in (start, end]."""
        return [w for w in self.writes if (start is None or w[0] > start) and w[0] <= end]


def _stamp(m: re.Match) -> float | None:
    try:
        return time.mktime((int(m[1]), int(m[2]), int(m[3]), int(m[4]), int(m[5]), int(m[6]), 0, 0, -1)) \
            + int(m[7]) / 1000
    except (OverflowError, ValueError):
        return None


def _tail(path: Path) -> bytes | None:
    """The file's last MAX_FILE_BYTES, from the start of a line (None: not a regular file, or gone)."""
    try:
        fd = open_regular(path)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - MAX_FILE_BYTES)
        data = os.pread(fd, min(size, MAX_FILE_BYTES), start)
    finally:
        os.close(fd)
    if start:
        cut = data.find(b"\n")
        data = data[cut + 1:] if cut >= 0 else b""
    return data


def parse(text: str, out: ReviewLog, open_reviews: dict[str, bool]) -> None:
    """Add the review writes of one file's text (`open_reviews`: the sessions whose review turn is
    open, carried from the older file to the newer)."""
    for line in text.splitlines():
        if len(line) > MAX_LINE_CHARS:
            continue
        m = _LINE.match(line)
        if m is None:
            continue
        tag, message = m[8], m[10]
        turn = _TURN.search(message) if message.startswith("conversation turn: ") else None
        if turn is not None:
            open_reviews[turn[1]] = turn[2] == REVIEW
            continue
        if tag is None:
            continue
        if message.startswith("Turn ended: ") and _ENDED.search(message) or \
                message.startswith("Background review complete"):
            open_reviews[tag] = False
        elif open_reviews.get(tag) and _MEMORY_DONE.match(message):
            when = _stamp(m)
            if when is not None:
                out.writes.append((when, tag))


def read(logs: Path) -> ReviewLog:
    """The review writes `logs/agent.log` and its rotated files hold. Never raises."""
    out = ReviewLog()
    names = [f"{LOG_NAME}.{n}" for n in range(MAX_ROTATED, 0, -1)] + [LOG_NAME]  # oldest first
    open_reviews: dict[str, bool] = {}
    for name in names:
        path = logs / name
        try:
            if not os.path.lexists(path):
                continue
        except (OSError, ValueError):
            continue
        data = _tail(path)
        if data is None:
            out.problem = f"{name} is not a regular file hmc can read"
            continue
        out.files += 1
        parse(data.decode("utf-8", "replace"), out, open_reviews)
    out.writes.sort()
    return out
