"""What reading state.db gives back, and the words it is asked in.

The value objects (`Hit`, `SearchResult`, `SessionInfo`, `Message`, `Window`, `DbSummary`), the
errors a read raises beyond the connection layer's (`NotFoundError`, `SearchCancelled`), the
visibility and size constants, and the small parsers every read shares: dates (`parse_day`),
role and source lists, message content and tool calls. No SQL here; see search.py and reads.py.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from datetime import date, datetime, time as dtime, timedelta
from typing import Iterable, Sequence

from core.sessions import snippets
from core.sessions.db import SessionsError
from core.sessions.query import QueryError, Query, Term
from core.sessions.snippets import Span

HIDDEN_SOURCES = ("kanban", "subagent", "tool")
DEMOTED_SOURCES = ("cron",)
ROLES = ("user", "assistant", "tool", "system")
DEFAULT_ROLES = ("user", "assistant", "tool")  # system prompts would match everything
MAX_LIMIT = 500
CONTENT_CAP = 20_000  # characters of one message read for the transcript
PREVIEW_CHARS = 120


class NotFoundError(SessionsError):
    """The session or message asked for isn't in state.db (or isn't visible)."""


class SearchCancelled(SessionsError):
    """The caller's ``should_stop`` asked to abandon the query."""


# ── value objects ────────────────────────────────────────────────────────────

@dataclass(frozen=True)
class Hit:
    session_id: str
    message_id: int
    role: str
    timestamp: float
    source: str
    title: str
    snippet: tuple[Span, ...]
    tool_name: str | None = None
    profile: str | None = None  # set when hits come from several profiles (search_profiles)
    # the secrets the whole message holds (its snippet may quote one cut short, where no shape
    # is left to find): what shows the snippet masks them (core.scan.mask.Masker's sources)
    secrets: tuple[str, ...] = ()

    @property
    def snippet_text(self) -> str:
        return snippets.plain(self.snippet)

    def to_json(self) -> dict:
        return {
            "session_id": self.session_id,
            "message_id": self.message_id,
            "role": self.role,
            "timestamp": iso_time(self.timestamp),
            "unix_time": self.timestamp,
            "source": self.source,
            "title": self.title,
            "snippet": self.snippet_text,
            "matches": _match_offsets(self.snippet),
            "tool_name": self.tool_name,
        } | ({"profile": self.profile} if self.profile is not None else {})


@dataclass(frozen=True)
class SearchResult:
    query: str
    hits: tuple[Hit, ...]
    offset: int
    limit: int
    has_more: bool
    route: str  # "fts" | "trigram" | "like"
    notice: str | None = None  # why a slower route was taken, for the UI
    terms: tuple[Term, ...] = ()  # for highlighting inside opened messages
    total: int | None = None  # every hit of the query (when asked for), counted up to COUNT_CAP
    total_capped: bool = False  # `total` is a lower bound: there may be more (the cap, or a count stopped early)
    total_partial: bool = False  # a plain-scan count stopped early (its step budget), not at the cap


@dataclass(frozen=True)
class SessionInfo:
    id: str
    source: str
    title: str  # the session's title, else its first user message, else "(untitled)"
    has_title: bool
    started_at: float | None
    last_active: float | None
    message_count: int | None
    ended_at: float | None = None
    end_reason: str | None = None
    model: str | None = None
    parent_session_id: str | None = None
    hidden: bool = False

    def to_json(self) -> dict:
        return {
            "session_id": self.id,
            "source": self.source,
            "title": self.title,
            "started_at": iso_time(self.started_at),
            "last_active": iso_time(self.last_active),
            "message_count": self.message_count,
            "ended_at": iso_time(self.ended_at),
            "end_reason": self.end_reason,
            "model": self.model,
            "parent_session_id": self.parent_session_id,
        }


@dataclass(frozen=True)
class Message:
    id: int
    session_id: str
    role: str
    content: str
    timestamp: float | None
    tool_name: str | None = None
    tool_calls: str | None = None
    tool_call_id: str | None = None
    compacted: bool = False
    truncated: bool = False

    @property
    def text(self) -> str:
        """Content as a person reads it (multimodal part lists flattened)."""
        return flatten_content(self.content)

    def tool_call_names(self) -> list[str]:
        """Names of the tools this (assistant) message called."""
        return [name for name, _ in parse_tool_calls(self.tool_calls)]

    def to_json(self) -> dict:
        return {
            "message_id": self.id,
            "session_id": self.session_id,
            "role": self.role,
            "timestamp": iso_time(self.timestamp),
            "unix_time": self.timestamp,
            "content": self.text,
            "truncated": self.truncated,
            "tool_name": self.tool_name,
            "tool_calls": self.tool_call_names() or None,
            "compacted": self.compacted,
        }


@dataclass(frozen=True)
class Window:
    session_id: str
    messages: tuple[Message, ...]
    anchor_id: int | None
    has_before: bool
    has_after: bool


@dataclass(frozen=True)
class DbSummary:
    path: str
    layout: str
    trigram: bool
    index_state: str  # "ok" | "stale" | "rebuilding" | "none"
    schema_version: int | None
    sessions: int
    messages: int
    size_bytes: int

    def to_json(self) -> dict:
        return dict(self.__dict__)


# ── helpers ──────────────────────────────────────────────────────────────────

def iso_time(ts: float | None) -> str | None:
    if ts is None:
        return None
    try:
        return datetime.fromtimestamp(float(ts)).astimezone().isoformat(timespec="seconds")
    except (OverflowError, OSError, ValueError):
        return None


def _count(value: object) -> int | None:
    """A stored count, or None when the row holds something that isn't one."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None


def _match_offsets(spans: Sequence[Span]) -> list[list[int]]:
    out, pos = [], 0
    for text, hit in spans:
        if hit:
            out.append([pos, pos + len(text)])
        pos += len(text)
    return out


def flatten_content(content: str | None) -> str:
    if not content:
        return ""
    stripped = content.lstrip()
    if stripped.startswith("[{") and stripped.rstrip().endswith("}]"):
        try:
            parts = json.loads(stripped)
        except (ValueError, RecursionError):  # not JSON, or nested too deeply to parse
            return content
        if isinstance(parts, list) and all(isinstance(p, dict) and "type" in p for p in parts):
            out = []
            for p in parts:
                if p.get("type") == "text" and isinstance(p.get("text"), str):
                    out.append(p["text"])
                else:
                    out.append(f"[{p.get('type')}]")
            return "\n".join(out)
    return content


def parse_tool_calls(raw: str | None) -> list[tuple[str, object]]:
    """``[(tool name, parsed arguments)]`` from a message's tool_calls JSON (never raises)."""
    if not raw:
        return []
    try:
        calls = json.loads(raw)
    except (ValueError, RecursionError):
        return []
    if isinstance(calls, dict):
        calls = [calls]
    out: list[tuple[str, object]] = []
    if not isinstance(calls, list):
        return out
    for call in calls:
        if not isinstance(call, dict):
            continue
        fn = call.get("function") if isinstance(call.get("function"), dict) else call
        name = fn.get("name") if isinstance(fn, dict) else None
        args = fn.get("arguments") if isinstance(fn, dict) else None
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except (ValueError, RecursionError):
                pass
        out.append((str(name) if name else "?", args))
    return out


def session_link(profile: str | None, session_id: str) -> str:
    return f"@session:{profile or 'default'}/{session_id}"


def highlight_terms(q: Query, route: str) -> tuple[Term, ...]:
    """The terms to mark in hits found by *route*: words for FTS, substrings for scans."""
    terms = q.positive_terms
    if route == "fts":
        return terms
    return tuple(replace(t, kind="substring", prefix=False) for t in terms)


_RELATIVE_DAY = re.compile(r"^(\d{1,5})\s*([dwmy])$")


def in_range(day: date, shown: str) -> date:
    """`day` when a timestamp can say it (QueryError otherwise: core.timefmt.out_of_range)."""
    from core.timefmt import out_of_range

    why = out_of_range(day, shown)
    if why:
        raise QueryError(why)
    return day


def parse_day(text: str | None, today: date) -> date | None:
    """``YYYY-MM-DD`` or a relative ``7d`` / ``2w`` / ``3m`` / ``1y`` (before *today*); None for blank.
    Only days a timestamp can say (core.timefmt.FIRST_DAY to LAST_DAY)."""
    if text is None or not text.strip():
        return None
    value = text.strip().lower()
    m = _RELATIVE_DAY.match(value)
    if m:
        days = int(m.group(1)) * {"d": 1, "w": 7, "m": 30, "y": 365}[m.group(2)]
        try:
            return in_range(today - timedelta(days=days), text.strip())
        except OverflowError:
            raise QueryError(f"{text.strip()!r} reaches too far back.") from None
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise QueryError(f"{text.strip()!r} is not a date (YYYY-MM-DD, or 7d / 2w / 3m / 1y).") from None
    return in_range(day, text.strip())


def _epoch(value, end_of_day: bool = False) -> float | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, date):
        day = value + timedelta(days=1) if end_of_day else value
        return datetime.combine(day, dtime.min).timestamp()
    if isinstance(value, (int, float)):
        return float(value)
    raise QueryError(f"Not a date: {value!r}.")


def _names(value, allowed: Iterable[str] | None, what: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    items = [value] if isinstance(value, str) else list(value)
    out: list[str] = []
    for item in items:
        for part in str(item).split(","):
            part = part.strip().lower()
            if part:
                out.append(part)
    if not out:
        return None
    if allowed is not None:
        bad = [x for x in out if x not in allowed]
        if bad:
            raise QueryError(f"Unknown {what} {bad[0]!r}: use {', '.join(allowed)}.")
    return tuple(dict.fromkeys(out))


def _ph(items: Sequence) -> str:
    return ",".join("?" for _ in items)
