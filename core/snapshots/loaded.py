"""Every session's loaded memory, read from the prompts state.db stored (HERMES-FORMATS.md §8).

Where the prompt is, by release (measured):
- 0.20 and later: `system_prompts(hash, prompt)`, reached through `sessions.system_prompt_hash`
  (the SHA-256 of the prompt's UTF-8). The same table holds 0.22's tool pins, reached through
  `sessions.tool_names` instead: only rows a session names as its prompt are read as prompts, so a
  pin is never taken for one (and one named as a prompt parses as "not known").
- 0.19 and older: inline in `sessions.system_prompt` (NULL until the first turn is built).

A prompt shared by many sessions is read and parsed once. A NULL prompt, a hash with no row, text
that isn't UTF-8, a prompt over blocks.MAX_PROMPT_CHARS or one whose blocks don't check out is
"not known" for that session (its `loaded` is None, `unknown` says why); never an error.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Callable, Iterable, NamedTuple, Sequence

from core.sessions.db import as_epoch
from core.snapshots.blocks import MAX_PROMPT_CHARS, Loaded, parse

BATCH = 500  # prompts fetched per query (SQLite's host-parameter limit is 999 on old builds)
# Sources whose sessions run once and end (no one chats on in them).
ONE_SHOT_SOURCES = frozenset({"cron", "subagent", "tool", "kanban", "batch"})

NO_PROMPT = "no prompt stored"
MISSING_ROW = "its stored prompt is gone from state.db"
NOT_UTF8 = "its stored prompt is not UTF-8"
TOO_LONG = "its stored prompt is too long to be Hermes's"
NO_BLOCKS = "its stored prompt holds no memory blocks hmc can check"


class SessionLoad(NamedTuple):
    """One session, and the memory it loaded (None: not known, `unknown` says why). A named tuple:
    one is made per session of state.db (100,000 and more), and a tuple is the cheapest to make."""

    id: str
    source: str
    title: str
    started_at: float | None
    ended_at: float | None
    end_reason: str | None
    last_active: float | None
    parent_session_id: str | None
    chat: str  # a gateway chat's name or id ("" elsewhere)
    loaded: Loaded | None
    unknown: str | None = None

    @property
    def open(self) -> bool:
        return self.ended_at is None

    @property
    def where(self) -> str:
        """The source, and the chat when it has one: `telegram · Ops room`."""
        return f"{self.source} · {self.chat}" if self.chat else self.source


@dataclass(frozen=True)
class EntryLoads:
    """Which sessions loaded one entry (as shown in the prompt)."""

    first_session: str
    first_at: float | None
    sessions: int

    def to_json(self) -> dict:
        from core.sessions.model import iso_time

        return {"first_session": self.first_session or None, "first_at": iso_time(self.first_at),
                "sessions": self.sessions}


@dataclass
class Snapshots:
    """The sessions of one state.db, oldest first, each with what it loaded."""

    sessions: list[SessionLoad] = field(default_factory=list)
    prompt_source: str = "none"  # "table" (0.20+), "inline" (0.19 and older) or "none"

    def __post_init__(self) -> None:
        self._by_id = {s.id: s for s in self.sessions}

    def get(self, session_id: str) -> SessionLoad | None:
        return self._by_id.get(session_id)

    @property
    def known(self) -> list[SessionLoad]:
        return [s for s in self.sessions if s.loaded is not None]

    @property
    def latest_start(self) -> float | None:
        starts = [s.started_at for s in self.sessions if s.started_at is not None]
        return max(starts) if starts else None

    def entry_loads(self, target: str) -> dict[str, EntryLoads]:
        """For every entry (as shown) some session loaded: the first session and how many did."""
        groups: dict[tuple, list] = {}  # sessions that loaded the same block share one count
        for s in self.sessions:
            if s.loaded is None or s.loaded.block(target) is None:
                continue
            entries = s.loaded.entries(target)
            group = groups.get(entries)
            if group is None:
                groups[entries] = [s, 1]
            else:
                group[1] += 1
                if _earlier(s, group[0]):
                    group[0] = s
        out: dict[str, list] = {}
        for entries, (first, count) in groups.items():
            for entry in entries:
                seen = out.get(entry)
                if seen is None:
                    out[entry] = [first, count]
                else:
                    seen[1] += count
                    if _earlier(first, seen[0]):
                        seen[0] = first
        return {e: EntryLoads(f.id, f.started_at, n) for e, (f, n) in out.items()}


def _earlier(a: SessionLoad, b: SessionLoad) -> bool:
    return (a.started_at or 0.0, a.id) < (b.started_at or 0.0, b.id)


def _decode(raw: object) -> tuple[str | None, str | None]:
    """(the prompt, None) or (None, why it isn't known)."""
    if raw is None:
        return None, NO_PROMPT
    if isinstance(raw, str):
        return (raw, None) if len(raw) <= MAX_PROMPT_CHARS else (None, TOO_LONG)
    if not isinstance(raw, (bytes, memoryview)):
        return None, NO_PROMPT  # a number where the text should be
    if len(raw) > 4 * MAX_PROMPT_CHARS:
        return None, TOO_LONG
    try:
        text = bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        return None, NOT_UTF8
    return (text, None) if len(text) <= MAX_PROMPT_CHARS else (None, TOO_LONG)


class _Parser:
    """Parses each distinct prompt once, and hands out one Loaded per distinct snapshot."""

    def __init__(self) -> None:
        self.loaded: dict[tuple, Loaded] = {}
        self._last: tuple[object, tuple] | None = None  # 0.19's inline prompts: the same text, session after session

    def __call__(self, raw: object) -> tuple[Loaded | None, str | None]:
        last = self._last
        if last is not None and raw is not None and last[0] == raw:
            return last[1]
        got = self._parse(raw)
        self._last = (raw, got)
        return got

    def _parse(self, raw: object) -> tuple[Loaded | None, str | None]:
        text, why = _decode(raw)
        if text is None:
            return None, why
        got = parse(text)
        if got is None:
            return None, NO_BLOCKS
        return self.loaded.setdefault(got.key, got), None


def _columns(cols: frozenset[str]) -> str:
    def col(name: str) -> str:
        return f"s.{name}" if name in cols else "NULL"

    def first(names: list[str]) -> str:  # SQLite's COALESCE takes two or more
        return "NULL" if not names else names[0] if len(names) == 1 else f"COALESCE({', '.join(names)})"

    activity = [f"s.{c}" for c in ("last_activity_at", "ended_at", "started_at") if c in cols]
    chat = [f"NULLIF(s.{c}, '')" for c in ("display_name", "chat_id") if c in cols]
    return (f"s.id, s.source, {col('title')}, s.started_at, {col('ended_at')}, {col('end_reason')}, "
            f"{first(activity)}, {col('parent_session_id')}, {first(chat)}")


def prompt_source(conn: sqlite3.Connection, session_columns: frozenset[str]) -> str:
    """Where this database keeps its prompts: "table" (0.20+), "inline" (0.19 and older) or "none"."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "system_prompts" in tables and "system_prompt_hash" in session_columns:
        return "table"
    return "inline" if "system_prompt" in session_columns else "none"


class Reader:
    """Reads sessions and what they loaded; what it parsed (each distinct prompt, each hash) is kept
    between reads, so an update (core.snapshots.cache) parses only prompts it hasn't seen."""

    def __init__(self, conn: sqlite3.Connection, session_columns: frozenset[str],
                 loaded: Iterable[Loaded] = (), by_hash: dict[str, tuple[Loaded | None, str | None]] | None = None):
        self.conn = conn
        self.source = prompt_source(conn, session_columns)
        self._select = (f"SELECT s.rowid, {_columns(session_columns)}, "
                        + ("s.system_prompt_hash, " if self.source == "table" else "NULL, ")
                        + ("CAST(s.system_prompt AS BLOB)" if "system_prompt" in session_columns else "NULL")
                        + " FROM sessions s")
        self.parse = _Parser()
        for got in loaded:
            self.parse.loaded.setdefault(got.key, got)
        self.by_hash = by_hash if by_hash is not None else {}

    def rows(self, where: str = "", params: Sequence = (), should_stop: Callable[[], bool] | None = None,
             ordered: bool = True) -> tuple[list[int], list[SessionLoad]]:
        """(rowids, sessions) of the sessions `where` selects (a clause on `s`), oldest first."""
        conn, by_hash, parse_one = self.conn, self.by_hash, self.parse
        prompts: dict[str, object] = {}
        if self.source == "table":  # the prompts of hashes not seen yet, each read once
            hashes = [r[0] for r in conn.execute(
                f"SELECT DISTINCT system_prompt_hash FROM sessions s {where}"
                f"{' AND' if where else ' WHERE'} typeof(system_prompt_hash) = 'text'", params)]
            prompts = _prompts(conn, [h for h in hashes if h not in by_hash])
        rowids: list[int] = []
        out: list[SessionLoad] = []
        make, keep = SessionLoad._make, rowids.append
        # streamed, never fetched whole: 0.19's inline prompts are tens of KB a session
        for rowid, sid, source, title, started, ended, reason, active, parent, chat, ref, body in conn.execute(
                f"{self._select} {where}{' ORDER BY s.started_at, s.id' if ordered else ''}", params):
            if should_stop is not None and should_stop():
                break
            if isinstance(ref, str):
                got = by_hash.get(ref)
                if got is None:
                    got = by_hash[ref] = parse_one(prompts.pop(ref)) if ref in prompts else (None, MISSING_ROW)
            else:
                got = parse_one(body)
            keep(rowid)
            out.append(make((
                sid if type(sid) is str else str(sid), source if type(source) is str else str(source or ""),
                title if type(title) is str else str(title or ""),
                # Hermes's REAL seconds taken as they are (a NaN or an absurd value fails the range: as_epoch's None)
                started if type(started) is float and -1e11 <= started <= 1e11 else as_epoch(started),
                ended if type(ended) is float and -1e11 <= ended <= 1e11 else as_epoch(ended),
                reason if isinstance(reason, str) else None,
                active if type(active) is float and -1e11 <= active <= 1e11 else as_epoch(active),
                parent if isinstance(parent, str) else None, str(chat) if chat is not None else "", got[0], got[1])))
        return rowids, out


def read(conn: sqlite3.Connection, session_columns: frozenset[str],
         should_stop: Callable[[], bool] | None = None,
         started: tuple[float | None, float] | None = None) -> Snapshots:
    """Every session of the database `conn` opened (read-only), oldest first; with `started`
    (low, high), those started in (low, high] only (low None: from the first)."""
    where, params = "", ()
    if started is not None:
        low, high = started
        where, params = ("WHERE s.started_at <= ?", (high,)) if low is None else \
            ("WHERE s.started_at > ? AND s.started_at <= ?", (low, high))
    reader = Reader(conn, session_columns)
    return Snapshots(reader.rows(where, params, should_stop)[1], reader.source)


def _prompts(conn: sqlite3.Connection, hashes: Iterable[str]) -> dict[str, object]:
    """The prompt rows these hashes name (as bytes: one that isn't UTF-8 is decoded, and refused, here)."""
    wanted, out = sorted(hashes), {}
    for i in range(0, len(wanted), BATCH):
        part = wanted[i:i + BATCH]
        for key, raw in conn.execute(
                f"SELECT hash, CAST(prompt AS BLOB) FROM system_prompts WHERE hash IN ({', '.join('?' * len(part))})",
                part):
            out[key] = raw
    return out


def first_loading(conn: sqlite3.Connection, session_columns: frozenset[str], target: str, shown: str,
                  before: float) -> tuple[float | None, float] | None:
    """When `shown` (an entry as the prompt shows it) first reached `target`'s block: (the start of
    the session before that one, or None; the start of the first session, at or before `before`,
    whose stored prompt loaded it). None: no stored prompt shows it. The prompts holding the text
    are found by SQLite (0.20+: in the deduplicated table, then their sessions), and each candidate
    is parsed to check the text is an entry of that block, not just somewhere in the prompt."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "system_prompts" in tables and "system_prompt_hash" in session_columns:
        hashes = [h for (h,) in conn.execute("SELECT hash FROM system_prompts WHERE instr(prompt, ?) > 0", (shown,))]
        candidates: list = []
        for i in range(0, len(hashes), BATCH):
            part = hashes[i:i + BATCH]
            candidates += conn.execute(
                f"SELECT s.started_at, p.prompt FROM sessions s JOIN system_prompts p ON p.hash = s.system_prompt_hash "
                f"WHERE s.system_prompt_hash IN ({', '.join('?' * len(part))}) AND s.started_at <= ? "
                f"ORDER BY s.started_at LIMIT 20", (*part, before)).fetchall()
        candidates.sort(key=lambda row: as_epoch(row[0]) or 0.0)
    elif "system_prompt" in session_columns:
        candidates = conn.execute("SELECT started_at, system_prompt FROM sessions WHERE instr(system_prompt, ?) > 0 "
                                  "AND started_at <= ? ORDER BY started_at LIMIT 20", (shown, before)).fetchall()
    else:
        return None
    parse_one = _Parser()
    for started, raw in candidates[:20]:
        loaded, _ = parse_one(raw)
        at = as_epoch(started)
        if loaded is not None and at is not None and shown in loaded.entries(target):
            row = conn.execute("SELECT MAX(started_at) FROM sessions WHERE started_at < ?", (started,)).fetchone()
            return (as_epoch(row[0]) if row else None), at
    return None
