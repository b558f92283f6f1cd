"""Read-only access to Hermes's session history (state.db): search, windows, session list.

Search routes, chosen per query:

- ``fts``: the word index (any of Hermes's three FTS5 layouts), ranked by bm25;
- ``trigram``: the trigram index, for CJK / emoji terms of 3+ characters when it exists;
- ``like``: a plain scan of ``messages`` — for short CJK terms, databases without an index,
  and indexes Hermes marked stale (``state_meta.fts_stale``) or is still rebuilding.

Every route applies Hermes's visibility rules, hides kanban/subagent/tool sessions unless
asked, and (sorted by relevance) ranks cron sessions below interactive ones. Results stream
from the index in order, so a page costs about what the bare FTS5 query costs.

Transcript windows are read by id range through the ``(session_id, id)`` index, so opening a
hit in a 100,000-message session reads as few rows as in a 100-message one.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from dataclasses import dataclass, replace
from datetime import date, datetime, time as dtime, timedelta
from pathlib import Path
from typing import Callable, Iterable, Sequence

from core.sessions import snippets
from core.sessions.memory_calls import calls_of
from core.sessions.query import QueryError, Query, Term, escape_like, parse_query
from core.sessions.snippets import Span
from core.sessions.db import as_epoch, epoch_sql
from core.sessions.db import (
    DatabaseError,
    ReadOnlyConnections,
    Schema,
    SessionsError,
    probe,
    translate_error,
)

__all__ = [
    "DatabaseError", "Hit", "Message", "NotFoundError", "QueryError", "SearchCancelled",
    "SearchResult", "SessionDB", "SessionInfo", "SessionsError", "Window", "find_provenance",
    "highlight_terms", "parse_day", "session_link",
]

HIDDEN_SOURCES = ("kanban", "subagent", "tool")
DEMOTED_SOURCES = ("cron",)
ROLES = ("user", "assistant", "tool", "system")
DEFAULT_ROLES = ("user", "assistant", "tool")  # system prompts would match everything
SORTS = ("relevance", "newest", "oldest")
MAX_LIMIT = 500
COUNT_CAP = 10_000  # hits counted for "20 of 45 hits"; past it, "10,000+"
CONTENT_CAP = 20_000  # characters of one message read for the transcript
SNIPPET_TOKENS = 24
PREVIEW_CHARS = 120
INDEX_STATE_TTL = 1.0  # seconds an fts_stale / rebuild check stays valid


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
    total_capped: bool = False  # there are more than `total`


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


def parse_day(text: str | None, today: date) -> date | None:
    """``YYYY-MM-DD`` or a relative ``7d`` / ``2w`` / ``3m`` / ``1y`` (before *today*); None for blank."""
    if text is None or not text.strip():
        return None
    value = text.strip().lower()
    m = _RELATIVE_DAY.match(value)
    if m:
        days = int(m.group(1)) * {"d": 1, "w": 7, "m": 30, "y": 365}[m.group(2)]
        try:
            return today - timedelta(days=days)
        except OverflowError:
            raise QueryError(f"{text.strip()!r} reaches too far back.") from None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise QueryError(f"{text.strip()!r} is not a date (YYYY-MM-DD, or 7d / 2w / 3m / 1y).") from None


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


def _index_problem(exc: BaseException) -> bool:
    """True when an error comes from an FTS index (not from the database as a whole)."""
    low = str(exc).lower()
    if "locked" in low or "busy" in low or "interrupt" in low:
        return False
    return any(k in low for k in ("fts5", "no such module", "tokenizer", "messages_fts", "malformed",
                                  "corrupt", "vtable"))


def _ph(items: Sequence) -> str:
    return ",".join("?" for _ in items)


@dataclass
class _Filters:
    roles: tuple[str, ...]
    sources: tuple[str, ...] | None
    since: float | None
    until: float | None
    include_hidden: bool


@dataclass
class _Plan:
    route: str
    notice: str | None
    table: str | None = None
    match: str | None = None


# ── the database ─────────────────────────────────────────────────────────────

class SessionDB:
    """Read-only view of one state.db. Cheap to build; nothing is opened until first use.

    Safe to share between threads: each thread gets its own read-only connection.
    """

    def __init__(self, path: Path | str, *, timeout: float = 5.0) -> None:
        self.path = Path(path)
        self._conns = ReadOnlyConnections(self.path, timeout=timeout)
        self._schema: Schema | None = None
        self._schema_lock = threading.Lock()
        self._state_cache: tuple[str, float] | None = None

    # -- plumbing ------------------------------------------------------------
    def close(self) -> None:
        self._conns.close()

    def exists(self) -> bool:
        return self.path.is_file()

    def schema(self) -> Schema:
        return self._run(lambda conn: self._schema_for(conn))

    def _schema_for(self, conn: sqlite3.Connection) -> Schema:
        if self._schema is None:
            with self._schema_lock:
                if self._schema is None:
                    self._schema = probe(conn, self.path)
        return self._schema

    def _run(self, fn: Callable, should_stop: Callable[[], bool] | None = None):
        """Run ``fn(conn)`` on this thread's connection, mapping every sqlite error."""
        for attempt in (1, 2):
            conn = self._conns.get()
            if should_stop is not None:
                conn.set_progress_handler(lambda: 1 if should_stop() else 0, 2_000)
            try:
                return fn(conn)
            except sqlite3.OperationalError as exc:
                if should_stop is not None and "interrupt" in str(exc).lower():
                    raise SearchCancelled("search cancelled") from None
                low = str(exc).lower()
                if attempt == 1 and ("no such table" in low or "no such column" in low):
                    self._schema = None  # Hermes migrated under us: probe again
                    self._state_cache = None
                    self._conns.reset()
                    continue
                raise translate_error(exc, self.path) from None
            except sqlite3.DatabaseError as exc:
                if attempt == 1 and self._conns.immutable:
                    self._conns.reset()  # a writer checkpointed under an immutable reader
                    continue
                raise translate_error(exc, self.path) from None
            except sqlite3.Error as exc:  # pragma: no cover - InterfaceError and friends
                raise translate_error(exc, self.path) from None
            finally:
                if should_stop is not None:
                    conn.set_progress_handler(None, 0)
        raise AssertionError("unreachable")  # pragma: no cover

    # -- status --------------------------------------------------------------
    def index_state(self, conn: sqlite3.Connection, schema: Schema) -> str:
        if schema.fts == "none":
            return "none"
        if not schema.has_state_meta:
            return "ok"
        meta = dict(
            conn.execute(
                "SELECT key, value FROM state_meta WHERE key IN "
                "('fts_stale', 'fts_rebuild_high_water', 'fts_rebuild_progress')"
            ).fetchall()
        )
        stale = meta.get("fts_stale")
        if stale is not None and str(stale).strip().lower() not in ("", "0", "false", "no"):
            return "stale"
        high = meta.get("fts_rebuild_high_water")
        if high is not None:
            try:
                if int(high) > int(meta.get("fts_rebuild_progress") or 0):
                    return "rebuilding"
            except (TypeError, ValueError):
                return "rebuilding"
        return "ok"

    def summary(self) -> dict:
        """``{path, layout, trigram, index_state, schema_version, sessions, messages, size_bytes}``."""
        return self.describe().to_json()

    def describe(self) -> DbSummary:
        def go(conn):
            schema = self._schema_for(conn)
            sessions = conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
            messages = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
            return DbSummary(
                path=str(self.path),
                layout=schema.layout_label,
                trigram=schema.trigram,
                index_state=self.index_state(conn, schema),
                schema_version=schema.version,
                sessions=int(sessions),
                messages=int(messages),
                size_bytes=self.path.stat().st_size,
            )

        return self._run(go)

    # -- search --------------------------------------------------------------
    def search(
        self,
        query: str | Query,
        *,
        sources: str | Iterable[str] | None = None,
        roles: str | Iterable[str] | None = None,
        since: date | datetime | float | None = None,
        until: date | datetime | float | None = None,
        include_hidden: bool = False,
        sort: str = "relevance",
        limit: int = 20,
        offset: int = 0,
        should_stop: Callable[[], bool] | None = None,
        count: bool = False,
    ) -> SearchResult:
        """One page of hits for *query* (raises QueryError, DatabaseError, SearchCancelled).

        With *count*, ``total`` says how many hits there are in all (counted up to COUNT_CAP:
        ``total_capped`` says there are more), for "20 of 45 hits".
        """
        q = query if isinstance(query, Query) else parse_query(query)
        if sort not in SORTS:
            raise QueryError(f"Unknown sort {sort!r}: use {', '.join(SORTS)}.")
        limit = max(1, min(int(limit), MAX_LIMIT))
        offset = max(0, int(offset))
        filters = self._filters(sources, roles, since, until, include_hidden)

        def go(conn):
            schema = self._schema_for(conn)
            plan = self._plan(conn, schema, q)
            try:
                rows = self._page(conn, schema, plan, q, filters, sort, limit + 1, offset)
            except sqlite3.DatabaseError as exc:
                # an index SQLite can't use here (missing tokenizer, damaged): scan the messages instead;
                # anything else (locked, interrupted, a damaged file) is reported as it is
                if plan.route == "like" or self._conns.immutable or not _index_problem(exc):
                    raise
                plan = _Plan("like", "The search index can't be read; searching by plain scan (slower).")
                rows = self._page(conn, schema, plan, q, filters, sort, limit + 1, offset)
            terms = highlight_terms(q, plan.route)
            hits = self._hits(conn, schema, rows[:limit], terms)
            total, capped = None, False
            if count:
                if offset == 0 and len(rows) <= limit:
                    total = len(rows)  # the page holds every hit
                else:
                    total, capped = self._count(conn, schema, plan, q, filters)
            return SearchResult(
                query=q.raw,
                hits=tuple(hits),
                offset=offset,
                limit=limit,
                has_more=len(rows) > limit,
                route=plan.route,
                notice=plan.notice,
                terms=terms,
                total=total,
                total_capped=capped,
            )

        return self._run(go, should_stop)

    def _count(self, conn, schema: Schema, plan: _Plan, q: Query, f: _Filters) -> tuple[int, bool]:
        """(hits, more than that): every row the query matches, counted up to COUNT_CAP."""
        sql, params = self._stream_sql(schema, plan, q, f, None, None, columns="1")
        n = conn.execute(f"SELECT COUNT(*) FROM ({sql} LIMIT ?)", (*params, COUNT_CAP + 1)).fetchone()[0]
        return min(int(n), COUNT_CAP), int(n) > COUNT_CAP

    def _filters(self, sources, roles, since, until, include_hidden) -> _Filters:
        since_ts, until_ts = _epoch(since), _epoch(until, end_of_day=True)
        if since_ts is not None and until_ts is not None and since_ts >= until_ts:
            raise QueryError("The date range is empty: --since must be before --until.")
        return _Filters(
            roles=_names(roles, ROLES, "role") or DEFAULT_ROLES,
            sources=_names(sources, None, "source"),
            since=since_ts,
            until=until_ts,
            include_hidden=include_hidden,
        )

    def _state(self, conn, schema: Schema) -> str:
        """index_state, re-read at most every INDEX_STATE_TTL seconds (Hermes flips it rarely)."""
        now = time.monotonic()
        cached = self._state_cache
        if cached is not None and now - cached[1] < INDEX_STATE_TTL:
            return cached[0]
        state = self.index_state(conn, schema)
        self._state_cache = (state, now)
        return state

    def _plan(self, conn, schema: Schema, q: Query) -> _Plan:
        state = self._state(conn, schema)
        if state == "none":
            return _Plan("like", "This state.db has no search index: searching by plain scan (slower).")
        if state == "stale":
            return _Plan("like", "Hermes marked its search index stale: searching by plain scan (slower).")
        if state == "rebuilding":
            return _Plan("like", "Hermes is rebuilding its search index: searching by plain scan (slower).")
        if q.needs_substring:
            if schema.trigram and q.trigram_ok:
                return _Plan("trigram", None, "messages_fts_trigram", q.trigram())
            return _Plan("like", None)
        return _Plan("fts", None, "messages_fts", q.fts5())

    def _where(self, schema: Schema, f: _Filters, params: list, *, hidden: bool = True) -> list[str]:
        mcols, scols = schema.message_columns, schema.session_columns
        where: list[str] = []
        if "active" in mcols and "compacted" in mcols:
            where.append("(m.active = 1 OR m.compacted = 1)")
        elif "active" in mcols:
            where.append("m.active = 1")
        if "display_kind" in mcols:
            where.append("COALESCE(m.display_kind, '') <> 'hidden'")
        where.append(f"m.role IN ({_ph(f.roles)})")
        params.extend(f.roles)
        if f.sources:
            where.append(f"s.source IN ({_ph(f.sources)})")
            params.extend(f.sources)
        if hidden and not f.include_hidden:
            shown = [x for x in HIDDEN_SOURCES if not (f.sources and x in f.sources)]
            if shown:
                where.append(f"s.source NOT IN ({_ph(shown)})")
                params.extend(shown)
            if "hidden" in scols:
                where.append("COALESCE(s.hidden, 0) = 0")
        if f.since is not None:  # text timestamps compare as times, not as text (which sorts after numbers)
            where.append(f"{epoch_sql('m.timestamp')} >= ?")
            params.append(f.since)
        if f.until is not None:
            where.append(f"{epoch_sql('m.timestamp')} < ?")
            params.append(f.until)
        return where

    def _stream_sql(self, schema, plan: _Plan, q: Query, f: _Filters, order: str | None, extra: str | None,
                    columns: str | None = None):
        """SELECT streaming candidate rows in *order* (None: any); *extra* adds a source condition;
        *columns* replaces the hit columns (``"1"`` to count)."""
        params: list = []
        tool_name = "m.tool_name" if "tool_name" in schema.message_columns else "NULL"
        if plan.route in ("fts", "trigram"):
            t = plan.table
            snip = (
                f"snippet({t}, -1, '{snippets.MARK_OPEN}', '{snippets.MARK_CLOSE}', '…', {SNIPPET_TOKENS})"
            )
            source = f"{t} CROSS JOIN messages m ON m.id = {t}.rowid CROSS JOIN sessions s ON s.id = m.session_id"
            where = [f"{t} MATCH ?"]
            params.append(plan.match)
            order_sql = {"rank": f"{t}.rank", "desc": f"{t}.rowid DESC", "asc": f"{t}.rowid ASC", None: ""}[order]
        else:
            snip = "NULL"
            source = "messages m CROSS JOIN sessions s ON s.id = m.session_id"
            cols = ["m.content"] + [f"m.{c}" for c in ("tool_name", "tool_calls") if c in schema.message_columns]
            pred, like_params = q.like(cols)
            where = [pred]
            params.extend(like_params)
            order_sql = {"rank": "m.id DESC", "desc": "m.id DESC", "asc": "m.id ASC", None: ""}[order]
        where += self._where(schema, f, params)
        if extra:
            where.append(extra)
            params.extend(DEMOTED_SOURCES)
        title = "s.title" if "title" in schema.session_columns else "NULL"
        select = columns or f"m.id, m.session_id, m.role, m.timestamp, s.source, {tool_name}, {snip}, {title}"
        sql = f"SELECT {select} FROM {source} WHERE {' AND '.join(where)}"
        if order_sql:
            sql += f" ORDER BY {order_sql}"
        return sql, params

    def _page(self, conn, schema, plan, q, f: _Filters, sort: str, want: int, offset: int) -> list:
        if sort != "relevance":
            sql, params = self._stream_sql(schema, plan, q, f, "desc" if sort == "newest" else "asc", None)
            return conn.execute(sql + " LIMIT ? OFFSET ?", (*params, want, offset)).fetchall()
        # relevance: interactive sessions first, then cron, each streamed in rank order
        demoted = f"s.source IN ({_ph(DEMOTED_SOURCES)})"
        if f.sources is not None and not set(f.sources) & set(DEMOTED_SOURCES):
            first_only = True
        else:
            first_only = False
        sql1, p1 = self._stream_sql(schema, plan, q, f, "rank", f"s.source NOT IN ({_ph(DEMOTED_SOURCES)})")
        rows = conn.execute(sql1 + " LIMIT ? OFFSET ?", (*p1, want, offset)).fetchall()
        if len(rows) >= want or first_only:
            return rows
        if rows:
            first_total = offset + len(rows)
        else:
            first_total = conn.execute(f"SELECT COUNT(*) FROM ({sql1})", p1).fetchone()[0]
        sql2, p2 = self._stream_sql(schema, plan, q, f, "rank", demoted)
        more = conn.execute(
            sql2 + " LIMIT ? OFFSET ?", (*p2, want - len(rows), max(0, offset - first_total))
        ).fetchall()
        return rows + more

    def _hits(self, conn, schema: Schema, rows: list, terms: tuple[Term, ...]) -> list[Hit]:
        if not rows:
            return []
        titles = {r[1]: snippets.one_line(str(r[7])) for r in rows if r[7] and str(r[7]).strip()}
        for sid in dict.fromkeys(r[1] for r in rows):
            if sid not in titles:
                titles[sid] = self._preview(conn, schema, sid) or "(untitled)"
        need = [r[0] for r in rows if not r[6]]
        excerpts: dict[int, str] = {}
        if need:
            anchor = next((t.text for t in terms), "")
            for mid, text in conn.execute(
                "SELECT id, substr(content, max(1, instr(lower(content), lower(?)) - 200), 600) "
                f"FROM messages WHERE id IN ({_ph(need)})",
                (anchor, *need),
            ):
                excerpts[mid] = text or ""
        hits = []
        for mid, sid, role, ts, source, tool_name, snip, _title in rows:
            if snip:
                spans = snippets.parse_marked(snip)
            else:
                spans = snippets.excerpt(excerpts.get(mid, ""), terms, 160)
            if not spans and tool_name:
                spans = [(f"[{tool_name}]", False)]
            hits.append(
                Hit(
                    session_id=sid,
                    message_id=int(mid),
                    role=role,
                    timestamp=as_epoch(ts) or 0.0,
                    source=source or "",
                    title=titles.get(sid, "(untitled)"),
                    snippet=tuple(spans),
                    tool_name=tool_name,
                )
            )
        return hits

    def _titles(self, conn, schema: Schema, ids: list[str]) -> dict[str, str]:
        titles: dict[str, str] = {}
        if "title" in schema.session_columns and ids:
            for sid, title in conn.execute(f"SELECT id, title FROM sessions WHERE id IN ({_ph(ids)})", ids):
                if title and str(title).strip():
                    titles[sid] = snippets.one_line(str(title))
        for sid in ids:
            if sid not in titles:
                preview = self._preview(conn, schema, sid)
                titles[sid] = preview or "(untitled)"
        return titles

    def _preview(self, conn, schema: Schema, session_id: str) -> str:
        """The first user message's opening words (the title Hermes shows when there is none)."""
        vis = self._visible_sql(schema)
        row = conn.execute(
            f"SELECT substr(content, 1, 400) FROM messages {self._sid_hint(schema)} "
            f"WHERE session_id = ? AND role = 'user' AND {vis} ORDER BY {self._order_col(schema)} LIMIT 1",
            (session_id,),
        ).fetchone()
        if not row or not row[0]:
            return ""
        text = snippets.one_line(flatten_content(row[0]))
        return text[: PREVIEW_CHARS - 1] + "…" if len(text) > PREVIEW_CHARS else text

    # -- sessions ------------------------------------------------------------
    def _session_select(self, schema: Schema) -> str:
        s = schema.session_columns

        def col(name: str) -> str:
            return f"s.{name}" if name in s else "NULL"

        activity = [c for c in ("last_activity_at", "ended_at", "started_at") if c in s]
        activity_sql = f"COALESCE({', '.join('s.' + c for c in activity)})"
        return (
            f"s.id, s.source, {col('title')}, s.started_at, {activity_sql} AS last_active, "
            f"{col('message_count')}, {col('ended_at')}, {col('end_reason')}, {col('model')}, "
            f"{col('parent_session_id')}, {col('hidden')}"
        )

    def _session_info(self, conn, schema: Schema, row) -> SessionInfo:
        sid, source, title, started, last, count, ended, reason, model, parent, hidden = row
        has_title = bool(title and str(title).strip())
        shown = snippets.one_line(str(title)) if has_title else self._preview(conn, schema, sid)
        return SessionInfo(
            id=sid,
            source=source or "",
            title=shown or "(untitled)",
            has_title=has_title,
            started_at=as_epoch(started),
            last_active=as_epoch(last),
            message_count=_count(count),
            ended_at=as_epoch(ended),
            end_reason=reason,
            model=model,
            parent_session_id=parent,
            hidden=bool(hidden) or (source in HIDDEN_SOURCES),
        )

    def sessions(
        self,
        *,
        limit: int = 50,
        offset: int = 0,
        sources: str | Iterable[str] | None = None,
        include_hidden: bool = False,
        should_stop: Callable[[], bool] | None = None,
    ) -> list[SessionInfo]:
        """Recent sessions, most recently active first."""
        limit = max(1, min(int(limit), MAX_LIMIT))
        srcs = _names(sources, None, "source")

        def go(conn):
            schema = self._schema_for(conn)
            where, params = [], []
            if srcs:
                where.append(f"s.source IN ({_ph(srcs)})")
                params.extend(srcs)
            if not include_hidden:
                shown = [x for x in HIDDEN_SOURCES if not (srcs and x in srcs)]
                if shown:
                    where.append(f"s.source NOT IN ({_ph(shown)})")
                    params.extend(shown)
                if "hidden" in schema.session_columns:
                    where.append("COALESCE(s.hidden, 0) = 0")
            sql = (
                f"SELECT {self._session_select(schema)} FROM sessions s "
                f"{'WHERE ' + ' AND '.join(where) if where else ''} "
                "ORDER BY last_active DESC, s.id DESC LIMIT ? OFFSET ?"
            )
            rows = conn.execute(sql, (*params, limit, max(0, int(offset)))).fetchall()
            return [self._session_info(conn, schema, r) for r in rows]

        return self._run(go, should_stop)

    def resolve_session_id(self, text: str) -> str:
        """A session id from an id, an ``@session:<profile>/<id>`` link, or a unique part of an id."""
        wanted = text.strip()
        if wanted.startswith("@session:"):
            wanted = wanted.split("/", 1)[-1] if "/" in wanted else wanted[len("@session:"):]
        if not wanted:
            raise NotFoundError("No session id given.")

        def go(conn):
            if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (wanted,)).fetchone():
                return wanted
            pattern = f"%{escape_like(wanted)}%"
            rows = conn.execute(
                "SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY id LIMIT 6", (pattern,)
            ).fetchall()
            if len(rows) == 1:
                return rows[0][0]
            if not rows:
                raise NotFoundError(f"No session {wanted!r} in {self.path.name}.")
            some = ", ".join(r[0] for r in rows[:5])
            raise NotFoundError(f"{wanted!r} matches several sessions ({some}…): give more of the id.")

        return self._run(go)

    def sources(self) -> list[tuple[str, int]]:
        """Every session source with its number of sessions, most used first."""
        return self._run(lambda conn: [
            (str(src), int(n)) for src, n in conn.execute(
                "SELECT source, COUNT(*) FROM sessions WHERE source IS NOT NULL GROUP BY source "
                "ORDER BY COUNT(*) DESC, source"
            )
        ])

    def session(self, session_id: str) -> SessionInfo:
        def go(conn):
            schema = self._schema_for(conn)
            row = conn.execute(
                f"SELECT {self._session_select(schema)} FROM sessions s WHERE s.id = ?", (session_id,)
            ).fetchone()
            if row is None:
                raise NotFoundError(f"No session {session_id!r} in {self.path.name}.")
            return self._session_info(conn, schema, row)

        return self._run(go)

    # -- messages & windows ----------------------------------------------------
    def _visible_sql(self, schema: Schema, alias: str = "") -> str:
        a = f"{alias}." if alias else ""
        parts = ["1"]
        if "active" in schema.message_columns and "compacted" in schema.message_columns:
            parts.append(f"({a}active = 1 OR {a}compacted = 1)")
        elif "active" in schema.message_columns:
            parts.append(f"{a}active = 1")
        if "display_kind" in schema.message_columns:
            parts.append(f"COALESCE({a}display_kind, '') <> 'hidden'")
        return " AND ".join(parts)

    def _message_select(self, schema: Schema) -> str:
        m = schema.message_columns

        def col(name: str, cap: bool = False) -> str:
            if name not in m:
                return "NULL"
            return f"substr({name}, 1, {CONTENT_CAP + 1})" if cap else name

        return (
            f"id, session_id, role, {col('content', True)}, timestamp, {col('tool_name')}, "
            f"{col('tool_calls', True)}, {col('tool_call_id')}, {col('compacted')}"
        )

    @staticmethod
    def _message(row) -> Message:
        mid, sid, role, content, ts, tool_name, tool_calls, call_id, compacted = row
        content = content if isinstance(content, str) else ("" if content is None else str(content))
        truncated = len(content) > CONTENT_CAP
        if tool_calls is not None and not isinstance(tool_calls, str):
            tool_calls = str(tool_calls)
        return Message(
            id=int(mid),
            session_id=sid,
            role=role or "",
            content=content[:CONTENT_CAP] if truncated else content,
            timestamp=as_epoch(ts),
            tool_name=tool_name,
            tool_calls=tool_calls,
            tool_call_id=call_id,
            compacted=bool(compacted),
            truncated=truncated,
        )

    def _sid_hint(self, schema: Schema) -> str:
        if schema.session_id_index:
            return f'INDEXED BY "{schema.session_id_index}"'
        return ""

    @staticmethod
    def _order_col(schema: Schema) -> str:
        return "id"

    def _bounds(self, conn, schema: Schema, session_id: str) -> tuple[int, int] | None:
        """First and last message id of a session, when an index gives them cheaply."""
        if schema.session_id_index:
            hint = self._sid_hint(schema)
            lo = conn.execute(
                f"SELECT id FROM messages {hint} WHERE session_id = ? ORDER BY id LIMIT 1", (session_id,)
            ).fetchone()
            if lo is None:
                return None
            hi = conn.execute(
                f"SELECT id FROM messages {hint} WHERE session_id = ? ORDER BY id DESC LIMIT 1", (session_id,)
            ).fetchone()
            return int(lo[0]), int(hi[0])
        if schema.session_ts_index:
            idx = f'INDEXED BY "{schema.session_ts_index}"'
            lo = conn.execute(
                f"SELECT id FROM messages {idx} WHERE session_id = ? ORDER BY timestamp, id LIMIT 1",
                (session_id,),
            ).fetchone()
            if lo is None:
                return None
            hi = conn.execute(
                f"SELECT id FROM messages {idx} WHERE session_id = ? ORDER BY timestamp DESC, id DESC LIMIT 1",
                (session_id,),
            ).fetchone()
            return int(lo[0]), int(hi[0])
        return (-(2**63), 2**63 - 1)

    def _neighbours(self, conn, schema: Schema, session_id: str, pivot: int | None, direction: str, n: int):
        """Up to *n* visible messages strictly before/after *pivot* (ascending order)."""
        vis = self._visible_sql(schema)
        cols = self._message_select(schema)
        op, order = ("<", "DESC") if direction == "before" else (">", "ASC")
        if pivot is None:
            pivot = 2**63 - 1 if direction == "before" else -(2**63)
        if schema.session_id_index:
            sql = (
                f"SELECT {cols} FROM messages {self._sid_hint(schema)} "
                f"WHERE session_id = ? AND id {op} ? AND {vis} ORDER BY id {order} LIMIT ?"
            )
            params: tuple = (session_id, pivot, n)
        else:
            lo, hi = self._bounds(conn, schema, session_id) or (0, -1)
            if direction == "before":
                hi = min(hi, pivot - 1)
            else:
                lo = max(lo, pivot + 1)
            # one BETWEEN, so SQLite walks the rowid range from the pivot outwards
            sql = (
                f"SELECT {cols} FROM messages NOT INDEXED WHERE id BETWEEN ? AND ? "
                f"AND session_id = ? AND {vis} ORDER BY id {order} LIMIT ?"
            )
            params = (lo, hi, session_id, n)
        rows = [self._message(r) for r in conn.execute(sql, params)]
        return rows[::-1] if direction == "before" else rows

    def message(self, message_id: int) -> Message:
        def go(conn):
            schema = self._schema_for(conn)
            row = conn.execute(
                f"SELECT {self._message_select(schema)} FROM messages WHERE id = ?", (int(message_id),)
            ).fetchone()
            if row is None:
                raise NotFoundError(f"No message {message_id} in {self.path.name}.")
            return self._message(row)

        return self._run(go)

    def window(
        self, session_id: str, around_message_id: int | None = None, before: int = 10, after: int = 10
    ) -> Window:
        """Messages around *around_message_id* (or the session's start when None)."""
        before, after = max(0, int(before)), max(0, int(after))

        def go(conn):
            schema = self._schema_for(conn)
            if around_message_id is None:
                exists = conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone()
                if exists is None:
                    raise NotFoundError(f"No session {session_id!r} in {self.path.name}.")
                rows = self._neighbours(conn, schema, session_id, None, "after", before + after + 2)
                return Window(session_id, tuple(rows[: before + after + 1]), None, False,
                              len(rows) > before + after + 1)
            row = conn.execute(
                f"SELECT {self._message_select(schema)} FROM messages WHERE id = ?", (int(around_message_id),)
            ).fetchone()
            if row is None or row[1] != session_id:
                raise NotFoundError(f"No message {around_message_id} in session {session_id!r}.")
            anchor = self._message(row)
            older = self._neighbours(conn, schema, session_id, anchor.id, "before", before + 1)
            newer = self._neighbours(conn, schema, session_id, anchor.id, "after", after + 1)
            return Window(
                session_id,
                tuple(older[-before:] if before else []) + (anchor,) + tuple(newer[:after]),
                anchor.id,
                len(older) > before,
                len(newer) > after,
            )

        return self._run(go)

    def older(self, session_id: str, before_message_id: int, limit: int = 20) -> tuple[list[Message], bool]:
        """Up to *limit* messages before the given one (ascending) and whether more exist."""
        def go(conn):
            schema = self._schema_for(conn)
            rows = self._neighbours(conn, schema, session_id, int(before_message_id), "before", limit + 1)
            return (rows[1:], True) if len(rows) > limit else (rows, False)

        return self._run(go)

    def newer(self, session_id: str, after_message_id: int, limit: int = 20) -> tuple[list[Message], bool]:
        """Up to *limit* messages after the given one (ascending) and whether more exist."""
        def go(conn):
            schema = self._schema_for(conn)
            rows = self._neighbours(conn, schema, session_id, int(after_message_id), "after", limit + 1)
            return (rows[:limit], True) if len(rows) > limit else (rows, False)

        return self._run(go)

    def tail(self, session_id: str, limit: int = 20) -> Window:
        """The last *limit* messages of a session."""
        def go(conn):
            schema = self._schema_for(conn)
            rows = self._neighbours(conn, schema, session_id, None, "before", limit + 1)
            return Window(session_id, tuple(rows[-limit:]), None, len(rows) > limit, False)

        return self._run(go)

    def hit_ids(
        self,
        session_id: str,
        query: str | Query,
        *,
        roles: str | Iterable[str] | None = None,
        limit: int = 10_000,
    ) -> list[int]:
        """Ids of every visible message of one session matching *query*, in order."""
        q = query if isinstance(query, Query) else parse_query(query)
        role_list = _names(roles, ROLES, "role") or DEFAULT_ROLES

        def go(conn):
            schema = self._schema_for(conn)
            plan = self._plan(conn, schema, q)
            vis = self._visible_sql(schema, "m")
            if plan.route != "like":
                bounds = self._bounds(conn, schema, session_id)
                if bounds is None:
                    return []
                t = plan.table
                sql = (
                    f"SELECT m.id FROM {t} CROSS JOIN messages m ON m.id = {t}.rowid "
                    f"WHERE {t} MATCH ? AND {t}.rowid BETWEEN ? AND ? AND m.session_id = ? "
                    f"AND m.role IN ({_ph(role_list)}) AND {vis} ORDER BY {t}.rowid LIMIT ?"
                )
                params = (plan.match, bounds[0], bounds[1], session_id, *role_list, limit)
                try:
                    return [r[0] for r in conn.execute(sql, params)]
                except sqlite3.OperationalError:
                    pass  # fall back to the scan below
            cols = ["m.content"] + [f"m.{c}" for c in ("tool_name", "tool_calls") if c in schema.message_columns]
            pred, like_params = q.like(cols)
            sql = (
                f"SELECT m.id FROM messages m {self._sid_hint(schema)} WHERE m.session_id = ? AND {pred} "
                f"AND m.role IN ({_ph(role_list)}) AND {vis} ORDER BY m.id LIMIT ?"
            )
            return [r[0] for r in conn.execute(sql, (session_id, *like_params, *role_list, limit))]

        return self._run(go)


# ── provenance ───────────────────────────────────────────────────────────────

def _norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def _memory_writes(args) -> list[str]:
    """Every text a memory tool call's arguments would write."""
    found: list[str] = []
    stack: list[tuple[object, str]] = [(args, "")]  # a loop, not recursion: any depth is fine
    while stack:
        node, key = stack.pop()
        if isinstance(node, dict):
            stack.extend((v, str(k)) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((v, key) for v in reversed(node))
        elif isinstance(node, str) and key in ("content", "new_content", "new_text", "text", "entry"):
            found.append(node)
    return found


def _provenance_phrase(entry: str) -> str:
    """A phrase of up to 8 plain words from the entry, safe to MATCH inside JSON text."""
    best: list[str] = []
    for line in entry.splitlines():
        run: list[str] = []
        for word in line.split():
            if word.isascii() and word.isalnum():
                run.append(word)
                if len(run) > len(best):
                    best = list(run)
                if len(best) >= 8:
                    return " ".join(best)
            else:
                run = []
    return " ".join(best)


def _landed_texts(conn, session_id: str, message_id: int) -> set[str] | None:
    """The normalised texts the memory calls of one assistant message really wrote (a result saying it
    failed or was only staged wrote nothing); None when a call's result isn't recorded (a database
    cut mid-turn, or too old to say): can't tell."""
    try:
        calls, unanswered = calls_of(conn, session_id, int(message_id))
    except sqlite3.OperationalError:  # a schema without the result columns
        return None
    if unanswered:
        return None
    texts = set()
    for call in calls:
        texts.update(_norm(t) for t in [call.content, *(op.get("content") for op in call.operations or ())]
                     if isinstance(t, str))
    return texts


def find_provenance(db: SessionDB, entry_text: str, *, limit: int = 400) -> Hit | None:
    """The assistant message whose memory tool call wrote *entry_text*, newest first.

    Exact matches (whitespace and case ignored) win; otherwise a call whose written text
    contains the entry, or is contained in it, counts. None when nothing is found.
    """
    entry = _norm(entry_text)
    if not entry:
        return None
    phrase = _provenance_phrase(entry_text)

    def candidates(conn) -> list:
        schema = db._schema_for(conn)
        if "tool_calls" not in schema.message_columns:
            return []
        state = db.index_state(conn, schema)
        base = (
            "SELECT m.id, m.session_id, m.role, m.timestamp, s.source, m.tool_calls "
            "FROM {src} CROSS JOIN sessions s ON s.id = m.session_id "
            "WHERE m.role = 'assistant' AND m.tool_calls IS NOT NULL AND {cond} "
            "ORDER BY {order} LIMIT ?"
        )
        if phrase and state == "ok" and (schema.fts == "inline" or "tool_calls" in schema.fts_columns):
            fts = "messages_fts"
            sql = base.format(
                src=f"{fts} CROSS JOIN messages m ON m.id = {fts}.rowid",
                cond=f"{fts} MATCH ?",
                order=f"{fts}.rowid DESC",
            )
            try:
                return conn.execute(sql, ('"' + phrase.replace('"', '""') + '"', limit)).fetchall()
            except sqlite3.OperationalError:
                pass
        # Hermes stores tool_calls with json.dumps (ASCII escapes): text without a plain ASCII word
        # is on disk as \uXXXX (twice escaped if the model's arguments were escaped already)
        probe = phrase or entry_text.strip()[:40]
        once = json.dumps(probe)[1:-1]
        forms = list(dict.fromkeys([probe, once, json.dumps(once)[1:-1]]))
        sql = base.format(
            src="messages m",
            cond="m.tool_calls LIKE '%memory%' AND ("
                 + " OR ".join(["m.tool_calls LIKE ? ESCAPE '\\'"] * len(forms)) + ")",
            order="m.id DESC",
        )
        return conn.execute(sql, (*[f"%{escape_like(f)}%" for f in forms], limit)).fetchall()

    rows = db._run(candidates)
    exact = partial = None
    for mid, sid, role, ts, source, raw in rows:
        landed, checked = None, False  # the texts this message's calls really wrote, read once one matches
        for name, args in parse_tool_calls(raw):
            if "memory" not in name.lower():
                continue
            for written in _memory_writes(args):
                w = _norm(written)
                if w == entry or (len(entry) >= 20 and (entry in w or (len(w) >= 20 and w in entry))):
                    if not checked:
                        landed, checked = db._run(lambda conn: _landed_texts(conn, sid, mid)), True
                    if landed is not None and w not in landed:
                        continue  # refused, or only staged for approval: it wrote nothing
                if w == entry:
                    exact = exact or (mid, sid, role, ts, source, name, written)
                elif len(entry) >= 20 and (entry in w or (len(w) >= 20 and w in entry)):
                    partial = partial or (mid, sid, role, ts, source, name, written)
        if exact:
            break
    best = exact or partial
    if best is None:
        return None
    mid, sid, role, ts, source, name, written = best
    title = db._run(lambda conn: db._titles(conn, db._schema_for(conn), [sid])).get(sid, "(untitled)")
    terms = [Term(w, kind="word") for w in _provenance_phrase(written).split()[:4]]
    return Hit(
        session_id=sid,
        message_id=int(mid),
        role=role,
        timestamp=as_epoch(ts) or 0.0,
        source=source or "",
        title=title,
        snippet=tuple(snippets.excerpt(written, terms, 160)),
        tool_name=name,
    )
