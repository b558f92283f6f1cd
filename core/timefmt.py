"""Times for people: local zone, relative where that reads better ("3 days ago").

Every function takes any value a file can hold (NaN, ±Infinity, 1e400, a huge or negative number, a
bool, a string, None) and never raises: what can't be a time reads "unknown time".
"""

from __future__ import annotations

import math
import time
from datetime import date, datetime

UNKNOWN = "unknown time"
# The widest range a Unix time is taken as real: year 1 to year 9999 (what datetime can hold).
MIN_TS = -62_135_596_800.0
MAX_TS = 253_402_300_799.0


def valid(ts: object) -> float | None:
    """`ts` as a float when it is a real, finite Unix time datetime can show; else None.

    bool is not a number here (True is not 1970-01-01 00:00:01), and text is never parsed.
    """
    if isinstance(ts, bool) or not isinstance(ts, (int, float)):
        return None
    try:
        value = float(ts)
    except (OverflowError, ValueError):  # an int too large for a float
        return None
    if not math.isfinite(value) or not MIN_TS <= value <= MAX_TS:
        return None
    return value


def ago(ts: object, now: object) -> str:
    """'just now', '5 minutes ago', '3 hours ago', '2 days ago', '3 weeks ago', '4 months ago', '2 years ago'."""
    t, n = valid(ts), valid(now)
    if t is None or n is None:
        return UNKNOWN
    delta = n - t
    future = delta < 0
    delta = abs(delta)
    for size, unit in ((31_536_000, "year"), (2_592_000, "month"), (604_800, "week"), (86_400, "day"),
                       (3_600, "hour"), (60, "minute")):
        if delta >= size:
            count = int(delta // size)
            text = f"{count:,} {unit}{'s' if count != 1 else ''}"
            return f"in {text}" if future else f"{text} ago"
    return "just now"


def local_time(ts: object, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """A Unix time in the user's local zone ('?' when it can't be one)."""
    value = valid(ts)
    if value is None:
        return "?"
    try:
        return time.strftime(fmt, time.localtime(value))
    except (OverflowError, OSError, ValueError):
        return "?"


def local_datetime(ts: object) -> datetime | None:
    """A Unix time as a local datetime, or None when it can't be one."""
    value = valid(ts)
    if value is None:
        return None
    try:
        return datetime.fromtimestamp(value)
    except (OverflowError, OSError, ValueError):
        return None


def short_date(ts: object) -> str:
    """'7 Jun 2026' in local time ('?' for a time that can't be one)."""
    return local_time(ts, "%-d %b %Y") if valid(ts) is not None else "?"


FIRST_DAY, LAST_DAY = date(1970, 1, 2), date(9998, 12, 30)  # days every local timestamp can say


def out_of_range(day: date, shown: str) -> str | None:
    """Why `day` can't be used (year 1 or 9999 broke the conversions), or None."""
    if FIRST_DAY <= day <= LAST_DAY:
        return None
    return f"{shown!r} is out of range: give a day from {FIRST_DAY} to {LAST_DAY}."
