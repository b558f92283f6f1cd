"""Words for people on top of the rebuilt history (core.timeline.history): an entry's origin line,
who made a write, an entry's earlier texts. Pure: no Textual, no file access."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time as dt_time
from core import timefmt
from core.timeline.history import Blame, Timeline, Write

HAND_EDIT = "no recorded call"  # who wrote a text no evidence explains: never "a hand edit", which hmc can't tell


def day(ts: float, now: float) -> str:
    """'12 Oct' (this year), '12 Oct 2025' (another year); '?' for a time that can't be one."""
    when, today = timefmt.local_datetime(ts), timefmt.local_datetime(now)
    if when is None:
        return "?"
    text = f"{when.day} {when.strftime('%b')}"
    return text if today is not None and today.year == when.year else f"{text} {when.year}"


def who(w: Write) -> str:
    """The writer in a user's words: the session's source for the agent ("background review" for
    Hermes's review), hmc, or "no recorded call" (core.timeline.attribution)."""
    if w.by == "agent":
        return w.source if w.source and w.source != "agent" else "agent"
    return "hmc" if w.by == "hmc" else HAND_EDIT


def approval(w: Write) -> str:
    """', approved in Hermes' / ', approved with hmc' for a staged write someone approved ('' else)."""
    for how in ("approved in Hermes", "approved with hmc"):
        if w.by == "agent" and w.detail and how in w.detail:
            return f", {how}"
    return ""


def origin_line(b: Blame, now: float) -> str:
    """'added 12 Oct · telegram · 3 revisions', 'no recorded call · by 3 Nov', 'added 12 Oct · cli ·
    changed since by no recorded call', 'hmc · last changed 15 Nov · first seen 3 Nov' (a text first
    seen outside any recorded write, then written by one: the line names the writer of the text now,
    as `hmc blame` does). An unrecorded text's date is when the history first saw it (a journal
    record, a Hermes snapshot, the files now): it was written by then, maybe earlier."""
    parts: list[str] = []
    first = b.first_seen
    recorded = b.origin is not None and b.origin.by != "unknown"
    if (first is None or first.by == "unknown") and recorded:
        parts.append(f"{who(b.origin)} · last changed {day(b.origin.timestamp, now)}")
        if first is not None:
            parts.append(f"first seen {day(first.timestamp, now)}")
    elif first is None:
        parts.append(HAND_EDIT)
    elif first.by == "unknown":
        parts.append(f"{HAND_EDIT} · by {day(first.timestamp, now)}")
    else:
        parts.append(f"added {day(first.timestamp, now)}")
        if b.origin is None:
            parts.append(f"{who(first)} · changed since by {HAND_EDIT}")
        elif b.origin is first:
            parts.append(who(first) + approval(first))
        else:
            same = who(b.origin) == who(first)
            parts.append(who(first) if same else f"{who(first)}, then {who(b.origin)}")
            parts.append(f"last changed {day(b.origin.timestamp, now)}")
    if b.revisions > 1:
        parts.append(f"{b.revisions} revisions")
    return " · ".join(parts)


def loaded_words(load, now: float) -> str:
    """What the sessions loaded of one entry (core.snapshots.session.EntryLoads): 'loaded by 14
    sessions since 3 Nov', or 'not loaded yet' (every session starts with the files as they are, so an
    entry no session loaded was written after the last one started, or its store was off since)."""
    if not load.sessions:
        return "not loaded yet: written after the last session started"
    since = f" since {day(load.first_at, now)}" if load.first_at is not None else ""
    return f"loaded by {load.sessions:,} session{'s' if load.sessions != 1 else ''}{since}"


def stale_notice(stale, now: float, limit: int = 2) -> str:
    """'2 chats still run on memory from 12 Nov (telegram · Ops room, cli): /new or /reset there
    loads it as it is now' for core.snapshots.compare.Stale items ('' for none)."""
    if not stale:
        return ""
    oldest = min((x.session.started_at for x in stale if x.session.started_at is not None), default=None)
    names = [x.session.where for x in stale[:limit]] + ([f"{len(stale) - limit} more"] if len(stale) > limit else [])
    chats = f"{len(stale)} chat{'s' if len(stale) != 1 else ''} still run{'s' if len(stale) == 1 else ''}"
    since = f" from {day(oldest, now)}" if oldest is not None else ""
    return f"{chats} on memory{since} ({', '.join(names)}): /new or /reset there loads it as it is now"


def origin_lines(tl: Timeline, now: float) -> dict[str, dict[str, str]]:
    """Per target, each current entry's text -> its origin line."""
    out: dict[str, dict[str, str]] = {}
    for b in tl.blame():
        out.setdefault(b.target, {})[b.text] = origin_line(b, now)
    return out


NO_CALL = ("No memory tool call in state.db wrote this entry, and nothing Hermes logs explains it: it may have "
           "been typed by hand, written by another tool, or written before this state.db began.")


@dataclass(frozen=True)
class Origin:
    """Where an entry's text came from, as the blame says (memory mode's o): the memory tool call
    that wrote it, or why there is none to open."""

    write: Write | None  # an agent write: its session_id and message_id are the call's
    why: str | None = None


def origin_of(tl: Timeline, text: str, target: str | None = None, now: float | None = None) -> Origin:
    """The write that produced the current entry `text` (in `target`, or in either store), when a
    memory tool call made it; otherwise why not, in a person's words."""
    blame = next((b for b in tl.blame(target) if b.text == text), None)
    if blame is None:
        return Origin(None, "This text is not an entry of MEMORY.md or USER.md as they are now (changed since?), "
                            "so no write produced it.")
    w = blame.origin
    if w is not None and w.by == "agent" and w.session_id and w.message_id is not None:
        return Origin(w)
    if w is not None and w.by == "agent" and w.session_id:  # the background review: no call to open
        return Origin(None, f"Hermes's {w.detail or 'background review'} wrote this text: the review runs "
                            "without a session database, so there is no call to open (i shows the entry's history).")
    if w is not None and w.by == "hmc":
        when = day(w.timestamp, now) if now is not None else timefmt.local_time(w.timestamp)
        return Origin(None, f"hmc wrote this text ({w.action}, {when}), not a memory tool call: "
                            "i shows the entry's history.")
    return Origin(None, NO_CALL)


@dataclass(frozen=True)
class Revision:
    """One write in an entry's life: the text before it (None: the entry was added) and after."""

    write: Write
    before: str | None
    after: str | None


def entry_history(tl: Timeline, target: str, text: str) -> list[Revision]:
    """The writes that made the current entry `text`, newest first: followed back through each
    replace to the write that added it (or the first outside change that showed it)."""
    out: list[Revision] = []
    current: str | None = text
    writes = [w for w in tl.writes if w.target == target]
    for w in reversed(writes):
        if current is None:
            break
        for old, new in w.changes:
            if new == current:
                out.append(Revision(w, old, new))
                current = old
                break
    return out


def sources(tl: Timeline) -> list[str]:
    """Every writer a filter can name, in order of first appearance: agent sources, hmc, hand edit."""
    seen: dict[str, None] = {}
    for w in tl.writes:
        seen.setdefault(who(w))
    return list(seen)


def matches(w: Write, target: str | None = None, source: str | None = None) -> bool:
    return (not target or w.target == target) and (not source or who(w) == source)


def parse_moment(text: str, today: date) -> datetime:
    """What a person types for "as it was then": `2026-10-12` (the end of that day), `2026-10-12
    09:30` (or with a `T`), or `7d` / `2w` / `3m` / `1y` ago (the end of that day). Local time.
    Raises ValueError saying what's wrong (empty, not a date, a bad time, after today)."""
    from core.sessions.search import QueryError, parse_day

    value = (text or "").strip()
    if not value:
        raise ValueError("type a date: YYYY-MM-DD, YYYY-MM-DD HH:MM, or 7d / 2w / 3m / 1y ago")
    day_part, _, time_part = value.replace("T", " ", 1).partition(" ")
    try:
        day = parse_day(day_part, today)
    except QueryError as exc:
        raise ValueError(str(exc)) from None
    if day is None:
        raise ValueError("type a date")
    if day > today:
        raise ValueError(f"{day.isoformat()} is after today: the stores as they are now are memory mode itself")
    if not time_part.strip():
        return datetime.combine(day, dt_time.max)
    try:
        moment = dt_time.fromisoformat(time_part.strip())
    except ValueError:
        raise ValueError(f"{time_part.strip()!r} is not a time (HH:MM)") from None
    return datetime.combine(day, moment)


def moment_label(when: datetime) -> str:
    """'12 Oct 2026, end of day' or '12 Oct 2026 09:30'."""
    day_text = f"{when.day} {when.strftime('%b')} {when.year}"
    return f"{day_text}, end of day" if when.time() == dt_time.max else f"{day_text} {when.strftime('%H:%M')}"


def travel_diff(past: dict[str, tuple[str, ...]], now: dict[str, tuple[str, ...]]):
    """Per target, the stores then against now (core.snapshots.compare.StoreDiff): entries added
    since, gone since, and changed (an entry then and the one now that reads as it rewritten, paired
    by the similarity `hmc session --memory` uses), in file order."""
    from core.snapshots.compare import diff

    return {target: diff(target, past[target], now.get(target, ())) for target in past}
