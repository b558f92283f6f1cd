"""How each store filled up: its usage after every write, in weekly buckets against its limit, with
the writers (sessions, the background review, hmc, changes by no recorded call) that grew it most. Read-only on the rebuilt history
(core.timeline.history); `hmc log --chart` prints it and the TUI's timeline can draw it.

    series = usage_series(timeline, "memory", 2200, today=date.today())
    for week in series.buckets:  # oldest first, one per week from the first write to today
        week.start, week.chars, week.peak, week.writes, week.grew  # grew: [Growth], largest first

No Textual here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Iterable, Sequence

from core import timefmt
from core.hermes.memory import percent, usage
from core.timeline.history import Timeline, Write

TOP_GROWERS = 3


@dataclass(frozen=True)
class Growth:
    """Characters one writer added to the store in a bucket (net, only when positive)."""

    by: str  # agent | hmc | unknown (no recorded call)
    session_id: str | None  # the agent's session
    source: str  # the session's source (cli, telegram…), "hmc" or "outside"
    chars: int

    def label(self) -> str:
        if self.by == "agent":
            where = f" ({self.source})" if self.source and self.source != "agent" else ""
            return f"session {self.session_id}{where}" if self.session_id else f"the agent{where}"
        return "hmc" if self.by == "hmc" else "no recorded call"

    def as_json(self) -> dict:
        return {"by": self.by, "session_id": self.session_id, "source": self.source, "chars": self.chars}


@dataclass(frozen=True)
class Bucket:
    start: date  # the Monday the week starts on (local time)
    chars: int  # usage at the end of the week (after its last write, or carried from before)
    peak: int  # the most it held during the week
    writes: int  # writes to this store in the week
    grew: tuple[Growth, ...]  # the writers that grew it most this week, largest first

    def as_json(self, limit: int) -> dict:
        return {"week": self.start.isoformat(), "chars": self.chars, "peak": self.peak,
                "percent": percent(self.chars, limit), "over": self.chars > limit, "writes": self.writes,
                "grew": [g.as_json() for g in self.grew]}


@dataclass(frozen=True)
class UsageSeries:
    target: str
    limit: int
    buckets: tuple[Bucket, ...]

    @property
    def filled(self) -> Bucket | None:
        """The first week that ended at or above 80% of the limit (when it 'filled'), or None."""
        return next((b for b in self.buckets if b.chars * 100 >= self.limit * 80), None)

    def as_json(self) -> dict:
        filled = self.filled
        return {"target": self.target, "limit": self.limit, "bucket": "week",
                "filled_week": filled.start.isoformat() if filled else None,
                "series": [b.as_json(self.limit) for b in self.buckets]}


def week_of(ts: float) -> date | None:
    """The Monday of the local week holding this Unix time (None for a time that can't be one)."""
    when = timefmt.local_datetime(ts)
    if when is None:
        return None
    day = when.date()
    return day - timedelta(days=day.weekday())


def _grew(writes: Iterable[Write]) -> tuple[Growth, ...]:
    totals: dict[tuple[str, str | None, str], int] = {}
    for w in writes:
        delta = usage(w.after) - usage(w.before)
        key = (w.by, w.session_id if w.by == "agent" else None, w.source)
        totals[key] = totals.get(key, 0) + delta
    ranked = sorted(((n, k) for k, n in totals.items() if n > 0), key=lambda p: -p[0])
    return tuple(Growth(by, sid, source, n) for n, (by, sid, source) in ranked[:TOP_GROWERS])


def usage_series(tl: Timeline, target: str, limit: int, *, today: date | None = None,
                 writes: Sequence[Write] | None = None) -> UsageSeries:
    """`target`'s usage per week, from the week of its first write to `today`'s week (default: the
    last write's); weeks without writes carry the usage before them."""
    log = list(writes) if writes is not None else tl.log(target)
    # By when each write was written: a change the replay only saw later (an approval in Hermes, the
    # background review, a change between two sessions) counts in the week the evidence dates it.
    # Its size is carried as a difference, so the series still ends at what the store holds.
    log.sort(key=lambda w: (w.timestamp, w.seen_at))
    by_week: dict[date, list[Write]] = {}
    for w in log:
        week = week_of(w.timestamp)
        if week is not None:
            by_week.setdefault(week, []).append(w)
    if not by_week:
        return UsageSeries(target, limit, ())
    first = min(by_week)
    last = max(by_week)
    if today is not None:
        last = max(last, today - timedelta(days=today.weekday()))
    buckets, chars = [], usage(by_week[first][0].before)
    week = first
    while week <= last:
        ws = by_week.get(week, [])
        peak = chars
        for w in ws:
            chars += usage(w.after) - usage(w.before)
            peak = max(peak, chars)
        buckets.append(Bucket(week, chars, peak, len(ws), _grew(ws)))
        week += timedelta(days=7)
    return UsageSeries(target, limit, tuple(buckets))


def common_weeks(series: Sequence[UsageSeries]) -> list[date]:
    """One time axis for several stores: every week from the earliest first week of any of them to
    the latest last one, so a column means the same week in each (a store whose history starts later
    has no bucket for the weeks before it)."""
    starts = [s.buckets[0].start for s in series if s.buckets]
    ends = [s.buckets[-1].start for s in series if s.buckets]
    if not starts:
        return []
    week, last, out = min(starts), max(ends), []
    while week <= last:
        out.append(week)
        week += timedelta(days=7)
    return out
