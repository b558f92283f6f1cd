"""Read-only access to Hermes's session history (state.db): search, windows, session list.

Search routes, chosen per query:

- ``fts``: the word index (any of Hermes's three FTS5 layouts), ranked by bm25;
- ``trigram``: the trigram index, for CJK / emoji terms of 3+ characters when it exists;
- ``like``: a plain scan of ``messages`` — for short CJK terms, databases without an index,
  indexes Hermes marked stale (``state_meta.fts_stale``) or is still rebuilding, and (0.22) a role
  filter naming ``tool``, whose text the index holds only in part.

When the first page is empty, the user's release searches again (core.hermes.search): 0.20 and
later on the trigram index as a substring match, 0.22 then with the terms joined by OR. hmc makes
the same retries with the same text, so a search finds what the agent's ``session_search`` finds;
they run only after an empty page, so the common path costs nothing more.

Every route applies Hermes's visibility rules, hides kanban/subagent/tool sessions unless
asked, and (sorted by relevance) ranks cron sessions below interactive ones. Results stream
from the index in order, so a page costs about what the bare FTS5 query costs.

Transcript windows are read by id range through the ``(session_id, id)`` index, so opening a
hit in a 100,000-message session reads as few rows as in a 100-message one.

`SessionDB` is here (connections, status, search); the session and window reads it inherits are
in reads.py, the value objects and shared parsers in model.py. Callers import them from here.
"""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Callable, Iterable

from core.hermes import search as hermes_search
from core.hermes.release import NEWEST, Release, for_schema
from core.sessions import snippets
from core.sessions.model import (
    DEFAULT_ROLES, DEMOTED_SOURCES, HIDDEN_SOURCES, MAX_LIMIT, ROLES, DbSummary, Hit, Message, NotFoundError,
    SearchCancelled, SearchResult, SessionInfo, Window, _epoch, _names, _ph, highlight_terms, parse_day,
    session_link,
)
from core.sessions.model import CONTENT_CAP, parse_tool_calls  # noqa: F401  (re-exported)
from core.sessions.query import QueryError, Query, Term, parse_query
from core.sessions.db import as_epoch, epoch_sql
from core.sessions.db import (
    DatabaseError,
    ReadOnlyConnections,
    Schema,
    SessionsError,
    probe,
    translate_error,
)
from core.sessions.reads import SessionReads

__all__ = [
    "DatabaseError", "Hit", "Message", "NotFoundError", "QueryError", "SearchCancelled",
    "SearchResult", "SessionDB", "SessionInfo", "SessionsError", "Window", "highlight_terms",
    "parse_day", "session_link",
]

SORTS = ("relevance", "newest", "oldest")
COUNT_CAP = 10_000  # hits counted for "20 of 45 hits"; past it, "10,000+"
# A plain-scan count (the like route: short CJK terms, no index) stops after this many SQLite VM
# steps and says "N+", so it never holds the hits back: about a first page's cost (~40 ms, some
# 20,000 messages scanned: a smaller db is counted whole). tests/bench/bench_scale.py measures it.
SCAN_COUNT_STEPS = 200_000
PROGRESS_STRIDE = 1_000  # VM steps between two calls of a progress handler
SNIPPET_TOKENS = 24
INDEX_STATE_TTL = 1.0  # seconds an fts_stale / rebuild check stays valid


def scan_count_steps() -> int:
    """SCAN_COUNT_STEPS, or HMC_SCAN_COUNT_STEPS when set to a whole number (a knob for tests)."""
    value = os.environ.get("HMC_SCAN_COUNT_STEPS", "")
    return int(value) if value.strip().isdigit() else SCAN_COUNT_STEPS


def _index_problem(exc: BaseException) -> bool:
    """True when an error comes from an FTS index (not from the database as a whole)."""
    low = str(exc).lower()
    if "locked" in low or "busy" in low or "interrupt" in low:
        return False
    return any(k in low for k in ("fts5", "no such module", "tokenizer", "messages_fts", "malformed",
                                  "corrupt", "vtable"))


@dataclass
class _Filters:
    roles: tuple[str, ...]
    sources: tuple[str, ...] | None
    since: float | None
    until: float | None
    include_hidden: bool
    asked_roles: tuple[str, ...] | None = None  # the role filter as Hermes would get it (None: every role)
    said_only: bool = False  # a plain scan reads the messages' text only, not tool names or call arguments

    @property
    def names_tool(self) -> bool:
        """The person asked for tool messages by name (Hermes then avoids its partial indexes)."""
        return self.asked_roles is not None and "tool" in self.asked_roles

    @property
    def names_background(self) -> bool:
        return bool(self.sources) and any(s in hermes_search.TRIGRAM_EXCLUDED_SOURCES for s in self.sources)


@dataclass
class _Plan:
    route: str
    notice: str | None
    table: str | None = None
    match: str | None = None


# ── the database ─────────────────────────────────────────────────────────────

class SessionDB(SessionReads):
    """Read-only view of one state.db. Cheap to build; nothing is opened until first use.

    Safe to share between threads: each thread gets its own read-only connection.
    """

    def __init__(self, path: Path | str, *, timeout: float = 5.0, release: Release | None = None) -> None:
        """*release*: whose search rules to follow (the curator's detected release); None: the
        release that writes this database's schema version."""
        self.path = Path(path)
        self._release = release
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

    def release_for(self, schema: Schema) -> Release:
        if self._release is not None:
            return self._release
        return for_schema(schema.version)[0] if schema.version is not None else NEWEST

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

    def read_with(self, fn: Callable, should_stop: Callable[[], bool] | None = None):
        """``fn(conn, schema)`` on this thread's read-only connection, every sqlite error mapped to
        DatabaseError: for readers outside this package (core.snapshots)."""
        return self._run(lambda conn: fn(conn, self._schema_for(conn)), should_stop)

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
        said_only: bool = False,
        count_cap: int | None = None,
    ) -> SearchResult:
        """One page of hits for *query* (raises QueryError, DatabaseError, SearchCancelled).

        *said_only*: a plain scan (words the index can't find) matches the messages' text only, not
        tool names or call arguments (`hmc why` looks for what was said: a hit found in a call
        would be dropped after taking a place in the page).

        With *count*, ``total`` says how many hits there are in all (counted up to *count_cap*, by
        default COUNT_CAP: ``total_capped`` says there may be more), for "20 of 45 hits";
        ``total_partial`` says a plain-scan count stopped early (SCAN_COUNT_STEPS), so ``total`` is
        what it found by then.
        """
        q = query if isinstance(query, Query) else parse_query(query)
        if sort not in SORTS:
            raise QueryError(f"Unknown sort {sort!r}: use {', '.join(SORTS)}.")
        limit = max(1, min(int(limit), MAX_LIMIT))
        offset = max(0, int(offset))
        filters = self._filters(sources, roles, since, until, include_hidden)
        if said_only:
            filters = dataclasses.replace(filters, said_only=True)

        def go(conn):
            schema = self._schema_for(conn)
            plan = self._plan(conn, schema, q, filters)
            try:
                rows = self._page(conn, schema, plan, q, filters, sort, limit + 1, offset)
            except sqlite3.DatabaseError as exc:
                # an index SQLite can't use here (missing tokenizer, damaged): scan the messages instead;
                # anything else (locked, interrupted, a damaged file) is reported as it is
                if plan.route == "like" or self._conns.immutable or not _index_problem(exc):
                    raise
                plan = _Plan("like", "The search index can't be read; searching by plain scan (slower).")
                rows = self._page(conn, schema, plan, q, filters, sort, limit + 1, offset)
            if not rows and plan.route == "fts":
                for retry in self._retries(schema, q, filters):
                    rows = self._retry_rows(lambda: self._page(conn, schema, retry, q, filters, sort, limit + 1,
                                                               offset))
                    if rows:
                        plan = retry
                        break
            terms = highlight_terms(q, plan.route)
            hits = self._hits(conn, schema, rows[:limit], terms)
            total, capped, partial = None, False, False
            if count:
                if offset == 0 and len(rows) <= limit:
                    total = len(rows)  # the page holds every hit
                else:
                    total, capped, partial = self._count(conn, schema, plan, q, filters, should_stop, count_cap)
                    total = max(total, offset + len(rows[:limit]) + (1 if len(rows) > limit else 0)) \
                        if partial else total
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
                total_partial=partial,
            )

        return self._run(go, should_stop)

    def _count(self, conn, schema: Schema, plan: _Plan, q: Query, f: _Filters,
               should_stop: Callable[[], bool] | None = None, cap: int | None = None) -> tuple[int, bool, bool]:
        """(hits, at least that many, the count stopped early): every row the query matches,
        counted up to `cap` (None: COUNT_CAP, read now); a plain scan (the like route) also stops after SCAN_COUNT_STEPS
        VM steps, so a short CJK term's count costs about what its first page costs."""
        # a scan counts newest first, as the page reads: a count stopped early covers the newest messages
        cap = COUNT_CAP if cap is None else cap
        sql, params = self._stream_sql(schema, plan, q, f, "desc" if plan.route == "like" else None, None,
                                       columns="1")
        if plan.route != "like":
            n = conn.execute(f"SELECT COUNT(*) FROM ({sql} LIMIT ?)", (*params, cap + 1)).fetchone()[0]
            return min(int(n), cap), int(n) > cap, False
        budget = [scan_count_steps() // PROGRESS_STRIDE]
        cancelled = [False]

        def step() -> int:
            if should_stop is not None and should_stop():
                cancelled[0] = True
                return 1
            budget[0] -= 1
            return 1 if budget[0] < 0 else 0

        n, stopped = 0, False
        conn.set_progress_handler(step, PROGRESS_STRIDE)
        try:
            for _ in conn.execute(f"{sql} LIMIT ?", (*params, cap + 1)):
                n += 1
        except sqlite3.OperationalError as exc:
            if cancelled[0] or "interrupt" not in str(exc).lower():
                raise
            stopped = True
        finally:
            if should_stop is not None:
                conn.set_progress_handler(lambda: 1 if should_stop() else 0, 2_000)
            else:
                conn.set_progress_handler(None, 0)
        return min(n, cap), n > cap or stopped, stopped

    def _filters(self, sources, roles, since, until, include_hidden) -> _Filters:
        since_ts, until_ts = _epoch(since), _epoch(until, end_of_day=True)
        if since_ts is not None and until_ts is not None and since_ts >= until_ts:
            raise QueryError("The date range is empty: --since must be before --until.")
        asked = _names(roles, ROLES, "role")
        return _Filters(
            roles=asked or DEFAULT_ROLES,
            sources=_names(sources, None, "source"),
            since=since_ts,
            until=until_ts,
            include_hidden=include_hidden,
            # hmc's default roles leave out only system prompts (a listed deviation): to Hermes, as
            # asking for every role, that is no role filter at all
            asked_roles=asked if asked and set(asked) != set(ROLES) else None,
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

    def _plan(self, conn, schema: Schema, q: Query, f: _Filters) -> _Plan:
        state = self._state(conn, schema)
        if state == "none":
            return _Plan("like", "This state.db has no search index: searching by plain scan (slower).")
        if state == "stale":
            return _Plan("like", "Hermes marked its search index stale: searching by plain scan (slower).")
        if state == "rebuilding":
            return _Plan("like", "Hermes is rebuilding its search index: searching by plain scan (slower).")
        release = self.release_for(schema)
        if f.names_tool and release.tool_role_scans:
            return _Plan("like", "Tool output is searched in full, by plain scan (slower): Hermes's index "
                                 f"holds only its first {hermes_search.TOOL_CONTENT_INDEXED:,} characters.")
        if q.needs_substring:
            if (schema.trigram and q.trigram_ok and not (f.names_tool and release.tool_role_skips_trigram)
                    and not (f.names_background and release.background_skips_trigram)):
                return _Plan("trigram", None, "messages_fts_trigram", q.trigram())
            return _Plan("like", None)
        return _Plan("fts", None, "messages_fts", q.fts5())

    def _retries(self, schema: Schema, q: Query, f: _Filters) -> list[_Plan]:
        """The searches the release makes after an empty first page, in its order."""
        release = self.release_for(schema)
        if not release.trigram_retry or f.names_tool:
            return []
        plans = []
        if schema.trigram and (match := hermes_search.trigram_retry(q.raw)) is not None:
            plans.append(_Plan("trigram", "No whole-word match: these hits contain the words inside "
                                          "longer ones, as Hermes's own search finds them.",
                               "messages_fts_trigram", match))
        if release.or_relaxed_retry and (match := hermes_search.or_relaxed_retry(q.raw)) is not None:
            plans.append(_Plan("fts", "No message has every word: these hits have some of them, as "
                                      "Hermes's own search finds them.", "messages_fts", match))
        return plans

    @staticmethod
    def _retry_rows(run: Callable[[], list]) -> list:
        """A retry's rows; a retry SQLite can't run (its text, a missing tokenizer) finds nothing."""
        try:
            return run()
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc).lower():
                raise
            return []

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
            cols = ["m.content"] + [f"m.{c}" for c in ("tool_name", "tool_calls")
                                    if c in schema.message_columns and not f.said_only]
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
        if rows or not offset:
            first_total = offset + len(rows)  # (with no offset, how many there are doesn't matter)
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
        return _with_secrets(conn, hits)

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


def _with_secrets(conn, hits: list[Hit]) -> list[Hit]:
    """Each hit whose snippet may hold part of a secret, with the secrets its whole message holds:
    a snippet cut inside a DSN or a key ("…https://3f9a…@o12.ingest.sen…") has no shape left to
    find, so what shows it masks what the message holds (mask first, then cut)."""
    from core.scan.mask import MASK_SCAN_LIMIT, maybe_secret, secrets_in

    wanted = [h.message_id for h in hits if maybe_secret(h.snippet_text)]
    if not wanted:
        return hits
    found: dict[int, tuple[str, ...]] = {}
    for mid, content, calls in conn.execute(
            f"SELECT id, substr(content, 1, {MASK_SCAN_LIMIT}), substr(tool_calls, 1, {MASK_SCAN_LIMIT}) "
            f"FROM messages WHERE id IN ({_ph(wanted)})", wanted):
        held = tuple(dict.fromkeys(s for text in (content, calls) if isinstance(text, str) for s in secrets_in(text)))
        if held:
            found[int(mid)] = held
    return [dataclasses.replace(h, secrets=found[h.message_id]) if h.message_id in found else h for h in hits]
