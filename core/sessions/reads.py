"""Reading sessions and transcripts from state.db: the session list, one session, a window of
messages around a message, older / newer pages, and the hits inside one session.

`SessionReads` is a part of `core.sessions.search.SessionDB` (its connection plumbing and the
search planner are there); windows are read by id range through the `(session_id, id)` index, so
opening a hit in a 100,000-message session reads as few rows as in a 100-message one.
"""

from __future__ import annotations

import sqlite3
from typing import Callable, Iterable

from core.sessions import snippets
from core.sessions.db import Schema, as_epoch
from core.sessions.model import (
    CONTENT_CAP, HIDDEN_SOURCES, MAX_LIMIT, PREVIEW_CHARS, Message, NotFoundError, SessionInfo,
    Window, _count, _names, _ph, flatten_content,
)
from core.sessions.query import Query, escape_like, parse_query


class SessionReads:
    """Sessions, messages and windows: the reads of SessionDB that aren't search."""

    # -- sessions ------------------------------------------------------------
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
        from core.scan.mask import clip  # never cut inside a secret: what shows it masks it later

        return clip(text, PREVIEW_CHARS - 1) if len(text) > PREVIEW_CHARS else text

    def _session_select(self, schema: Schema) -> str:
        s = schema.session_columns

        def col(name: str) -> str:
            return f"s.{name}" if name in s else "NULL"

        activity = [c for c in ("last_activity_at", "ended_at", "started_at") if c in s]
        # SQLite's COALESCE takes two arguments at least: a table with one of the columns reads it as it is
        activity_sql = (f"COALESCE({', '.join('s.' + c for c in activity)})" if len(activity) > 1 else
                        f"s.{activity[0]}" if activity else "NULL")
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

    def working_folders(self, since: float, limit: int = 20) -> list[str]:
        """The folders the agent ran in (`sessions.cwd`, 0.16+: command-line sessions) in sessions
        started since `since`, most recent first; [] when state.db doesn't record them."""
        def go(conn):
            if "cwd" not in self._schema_for(conn).session_columns:
                return []
            rows = conn.execute(
                "SELECT cwd, MAX(started_at) AS last FROM sessions WHERE cwd IS NOT NULL AND cwd != '' "
                "AND started_at >= ? GROUP BY cwd ORDER BY last DESC LIMIT ?", (since, limit)).fetchall()
            return [r[0] for r in rows if isinstance(r[0], str)]

        return self._run(go)

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
        filters = self._filters(None, roles, None, None, True)
        role_list = filters.roles

        def go(conn):
            schema = self._schema_for(conn)
            plan = self._plan(conn, schema, q, filters)
            vis = self._visible_sql(schema, "m")
            if plan.route != "like":
                bounds = self._bounds(conn, schema, session_id)
                if bounds is None:
                    return []

                def matching(p) -> list[int]:
                    t = p.table
                    sql = (
                        f"SELECT m.id FROM {t} CROSS JOIN messages m ON m.id = {t}.rowid "
                        f"WHERE {t} MATCH ? AND {t}.rowid BETWEEN ? AND ? AND m.session_id = ? "
                        f"AND m.role IN ({_ph(role_list)}) AND {vis} ORDER BY {t}.rowid LIMIT ?"
                    )
                    params = (p.match, bounds[0], bounds[1], session_id, *role_list, limit)
                    return [r[0] for r in conn.execute(sql, params)]

                try:
                    ids = matching(plan)
                except sqlite3.OperationalError:
                    pass  # fall back to the scan below
                else:
                    if ids or plan.route != "fts":
                        return ids
                    # a session found by the release's retry: its matches are the retry's
                    for retry in self._retries(schema, q, filters):
                        ids = self._retry_rows(lambda: matching(retry))
                        if ids:
                            return ids
                    return []
            cols = ["m.content"] + [f"m.{c}" for c in ("tool_name", "tool_calls") if c in schema.message_columns]
            pred, like_params = q.like(cols)
            sql = (
                f"SELECT m.id FROM messages m {self._sid_hint(schema)} WHERE m.session_id = ? AND {pred} "
                f"AND m.role IN ({_ph(role_list)}) AND {vis} ORDER BY m.id LIMIT ?"
            )
            return [r[0] for r in conn.execute(sql, (session_id, *like_params, *role_list, limit))]

        return self._run(go)
