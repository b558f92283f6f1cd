"""Times for people: local zone, relative where that reads better ("3 days ago")."""

from __future__ import annotations

import time
from datetime import datetime


def ago(ts: float, now: float) -> str:
    """'just now', '5 minutes ago', '3 hours ago', '2 days ago', '3 weeks ago', '4 months ago', '2 years ago'."""
    delta = now - ts
    future = delta < 0
    delta = abs(delta)
    for size, unit in ((31_536_000, "year"), (2_592_000, "month"), (604_800, "week"), (86_400, "day"),
                       (3_600, "hour"), (60, "minute")):
        if delta >= size:
            n = int(delta // size)
            text = f"{n} {unit}{'s' if n != 1 else ''}"
            return f"in {text}" if future else f"{text} ago"
    return "just now"


def local_time(ts: float, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """A Unix time in the user's local zone."""
    try:
        return time.strftime(fmt, time.localtime(ts))
    except (OverflowError, OSError, ValueError):
        return "?"


def local_datetime(ts: float) -> datetime:
    return datetime.fromtimestamp(ts)
