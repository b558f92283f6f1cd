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
from bisect import bisect_left
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from core.sessions.db import as_epoch
from core.snapshots.blocks import MAX_PROMPT_CHARS, Loaded, parse
from core.snapshots.catalog import Catalog
from core.snapshots.session import MISSING_ROW, NO_BLOCKS, NO_PROMPT, NOT_UTF8, RETRY, TOO_LONG, SessionLoad

if TYPE_CHECKING:
    from core.snapshots.tally import Snapshots, Tally

BATCH = 500  # prompts fetched per query (SQLite's host-parameter limit is 999 on old builds)
_RUNS_PER_QUERY = 999 // 3  # three parameters a run
# Whether a 0.20+ session row (of table {t}) is ended, with a start and an end Hermes could have
# written (REAL, or an INTEGER, in range; text is never BETWEEN two numbers in SQLite), and names its
# prompt by a text hash: such a row is counted as part of a run of its neighbours (Reader._tally_by_runs).
# A NULL time makes the test NULL, so it is taken as false (IFNULL): never NULL, or NOT(...) would be too.
_HASHED = ("IFNULL({t}.started_at BETWEEN -1e11 AND 1e11 AND {t}.ended_at BETWEEN -1e11 AND 1e11 "
           "AND typeof({t}.system_prompt_hash) = 'text', 0)")



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
    """Parses prompts into the catalog's snapshots (one Loaded per distinct snapshot)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._blocks: dict[str, tuple | None] = {}  # each block's entries by its text (blocks.parse's memo)
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
        if len(self._blocks) > 4096:
            self._blocks.clear()  # bounded: a run over many distinct blocks doesn't hold them all
        got = parse(text, self._blocks)
        if got is None:
            return None, NO_BLOCKS
        return self.catalog.canonical(got), None


def _activity(cols: frozenset[str]) -> str:
    """When a session was last active: its last activity, else its end, else its start."""
    names = [f"s.{c}" for c in ("last_activity_at", "ended_at", "started_at") if c in cols]
    return _first(names)


def _first(names: list[str]) -> str:  # SQLite's COALESCE takes two or more
    return "NULL" if not names else names[0] if len(names) == 1 else f"COALESCE({', '.join(names)})"


def _columns(cols: frozenset[str]) -> str:
    def col(name: str) -> str:
        return f"s.{name}" if name in cols else "NULL"

    chat = [f"NULLIF(s.{c}, '')" for c in ("display_name", "chat_id") if c in cols]
    return (f"s.id, s.source, {col('title')}, s.started_at, {col('ended_at')}, {col('end_reason')}, "
            f"{_activity(cols)}, {col('parent_session_id')}, {_first(chat)}")


def prompt_source(conn: sqlite3.Connection, session_columns: frozenset[str]) -> str:
    """Where this database keeps its prompts: "table" (0.20+), "inline" (0.19 and older) or "none"."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "system_prompts" in tables and "system_prompt_hash" in session_columns:
        return "table"
    return "inline" if "system_prompt" in session_columns else "none"


def _epoch(value: object) -> float | None:
    """A stored time as seconds: Hermes's REAL taken as it is (a NaN or an absurd value fails the
    range: as_epoch's None)."""
    return value if type(value) is float and -1e11 <= value <= 1e11 else as_epoch(value)


class Reader:
    """Reads sessions and what they loaded; what it parsed (each distinct prompt, each hash) is kept
    between reads, so an update (core.snapshots.cache) parses only prompts it hasn't seen."""

    def __init__(self, conn: sqlite3.Connection, session_columns: frozenset[str], catalog: Catalog | None = None):
        self.conn = conn
        self.columns = session_columns
        self.source = prompt_source(conn, session_columns)
        self._prompt = (("s.system_prompt_hash, " if self.source == "table" else "NULL, ")
                        + ("CAST(s.system_prompt AS BLOB)" if "system_prompt" in session_columns else "NULL"))
        self._select = f"SELECT s.rowid, {_columns(session_columns)}, {self._prompt} FROM sessions s"
        self.catalog = catalog if catalog is not None else Catalog()
        self.parse = _Parser(self.catalog)

    def _loaded(self, where: str, params: Sequence) -> Callable[[object, object], tuple[Loaded | None, str | None]]:
        """What a row's prompt (a hash, or the text inline) loaded; 0.20+'s prompts of hashes not
        seen yet are fetched first, each once."""
        conn, catalog, parse_one = self.conn, self.catalog, self.parse
        by_hash = catalog.by_hash
        prompts: dict[str, object] = {}
        if self.source == "table":
            hashes = [r[0] for r in conn.execute(
                f"SELECT DISTINCT system_prompt_hash FROM sessions s {where}"
                f"{' AND' if where else ' WHERE'} typeof(system_prompt_hash) = 'text'", params)]
            prompts = _prompts(conn, [h for h in hashes if h not in by_hash])

        def loaded(ref: object, body: object) -> tuple[Loaded | None, str | None]:
            if isinstance(ref, str):
                known = by_hash.get(ref)
                if known is not None:
                    return catalog.get(known[0]), known[1]
                if ref not in prompts:
                    return None, MISSING_ROW  # not kept: the row may come later
                got, why = parse_one(prompts.pop(ref))
                by_hash[ref] = (catalog.slot(got), why)
                return got, why
            return parse_one(body)

        return loaded

    def rows(self, where: str = "", params: Sequence = (), should_stop: Callable[[], bool] | None = None,
             order: str | None = "s.started_at, s.id") -> tuple[list[int], list[SessionLoad]]:
        """(rowids, sessions) of the sessions `where` selects (a clause on `s`), in `order`."""
        loaded = self._loaded(where, params)
        rowids: list[int] = []
        out: list[SessionLoad] = []
        make, keep = SessionLoad._make, rowids.append
        # streamed, never fetched whole: 0.19's inline prompts are tens of KB a session
        for rowid, sid, source, title, started, ended, reason, active, parent, chat, ref, body in self.conn.execute(
                f"{self._select} {where}{f' ORDER BY {order}' if order else ''}", params):
            if should_stop is not None and should_stop():
                break
            got = loaded(ref, body)
            keep(rowid)
            out.append(make((
                sid if type(sid) is str else str(sid), source if type(source) is str else str(source or ""),
                title if type(title) is str else str(title or ""), _epoch(started), _epoch(ended),
                reason if isinstance(reason, str) else None, _epoch(active),
                parent if isinstance(parent, str) else None, str(chat) if chat is not None else "", got[0], got[1])))
        return rowids, out

    def starts(self, where: str = "", params: Sequence = ()) -> list[tuple[float | None, Loaded | None]]:
        """(start, what it loaded) of each session `where` selects, oldest first: nothing else of the
        row is read (the attribution's windows, core.timeline.attribution: thousands of sessions)."""
        loaded = self._loaded(where, params)
        return [(_epoch(started), loaded(ref, body)[0]) for started, ref, body in self.conn.execute(
            f"SELECT s.started_at, {self._prompt} FROM sessions s {where} ORDER BY s.started_at, s.id", params)]

    def tally(self, into: "Tally", after: int = 0, should_stop: Callable[[], bool] | None = None) -> bool:
        """Adds the sessions after rowid `after` to `into` (False: stopped first). A settled session
        is only counted, as part of a run of its neighbours (0.20+); a live one is read whole."""
        def stopped() -> bool:
            return should_stop is not None and should_stop()

        if self.source == "table" and "ended_at" in self.columns:
            # 0.20+ as Hermes writes it: counted by runs; any other row is read one by one
            others = self._tally_by_runs(into, after)
            for at in range(0, len(others), BATCH):
                part = others[at:at + BATCH]
                if stopped() or not self._tally_rows(into, f"WHERE s.rowid IN ({', '.join('?' * len(part))})",
                                                     part, stopped):
                    return False
            return not stopped()
        where, params = ("WHERE s.rowid > ?", (after,)) if after else ("", ())
        return self._tally_rows(into, where, params, stopped) and not stopped()

    def _tally_rows(self, into: "Tally", where: str, params: Sequence, stopped: Callable[[], bool]) -> bool:
        """Adds the sessions `where` selects to `into`, one row at a time (False: stopped first)."""
        loaded = self._loaded(where, params)
        ended_col = "s.ended_at" if "ended_at" in self.columns else "NULL"
        live: list[int] = []
        slot, count, held = into.slot, into.count, into.runs.add
        top = into.last_rowid
        for n, (rowid, sid, started, ended, ref, body) in enumerate(self.conn.execute(
                f"SELECT s.rowid, s.id, s.started_at, {ended_col}, {self._prompt} FROM sessions s {where}", params)):
            if not n & 1023 and stopped():
                return False
            if rowid > top:
                top = rowid
            got, why = loaded(ref, body)
            if (type(ended) is not float or not -1e11 <= ended <= 1e11) and _epoch(ended) is None or why in RETRY:
                live.append(rowid)
                continue
            i = slot(got)
            held(rowid, i)
            if i >= 0:
                count(i, sid if type(sid) is str else str(sid), _epoch(started))
        into.last_rowid = top
        self._read_live(into, live)
        return True

    def _read_live(self, into: "Tally", rowids: list[int]) -> None:
        for at in range(0, len(rowids), BATCH):
            part = rowids[at:at + BATCH]
            ids, rows = self.rows(f"WHERE s.rowid IN ({', '.join('?' * len(part))})", part, order=None)
            into.live.update(zip(ids, rows))

    def _tally_by_runs(self, into: "Tally", after: int) -> list[int]:
        """Counts the settled sessions after rowid `after` with work per run of sessions, not per
        session: SQLite finds the runs of consecutive rowids whose rows are ended 0.20+ rows of the
        types Hermes writes with one prompt hash (each distinct prompt is then parsed once), and
        each run's earliest start with the sessions started then. Returns the rowids of the other
        rows, to be read one by one."""
        conn = self.conn
        (top,) = conn.execute("SELECT MAX(rowid) FROM sessions").fetchone()
        if top is None or top <= after:
            return []
        into.last_rowid = max(into.last_rowid, top)
        # the rows of other kinds; then each row whose previous rowid is missing (or before `after`)
        # or holds another hash, with the last rowid before it when its previous one is missing:
        # between two such rows, the rows are consecutive and share one hash
        others = [r for (r,) in conn.execute(
            f"SELECT s.rowid FROM sessions s WHERE s.rowid > ? AND NOT {_HASHED.format(t='s')} ORDER BY s.rowid",
            (after,))]
        marks = conn.execute(
            "SELECT s.rowid, s.system_prompt_hash, CASE WHEN t.rowid IS NULL THEN "
            "(SELECT MAX(p.rowid) FROM sessions p WHERE p.rowid < s.rowid AND p.rowid > ?) END "
            "FROM sessions s LEFT JOIN sessions t ON t.rowid = s.rowid - 1 AND t.rowid > ? WHERE s.rowid > ? "
            "AND (t.rowid IS NULL OR t.system_prompt_hash IS NOT s.system_prompt_hash) ORDER BY s.rowid",
            (after, after, after)).fetchall()
        runs: list[tuple[int, int, str]] = []  # (first rowid, last rowid, hash): the stretches less the others
        ends = [rowid - 1 if before is None else before for rowid, _, before in marks[1:]] + [top]
        for (first, ref, _), last in zip(marks, ends):
            at = bisect_left(others, first)
            while at < len(others) and others[at] <= last:
                if others[at] > first:
                    runs.append((first, others[at] - 1, ref))
                first = others[at] + 1
                at += 1
            if first <= last:
                runs.append((first, last, ref))
        if not runs:
            return others
        by_hash = self.catalog.by_hash
        hashes = {ref for _, _, ref in runs}
        unseen = [h for h in hashes if h not in by_hash]
        prompts = _prompts(conn, unseen)
        for h in unseen:
            if h in prompts:
                got, why = self.parse(prompts.pop(h))
                by_hash[h] = (self.catalog.slot(got), why)
        slot_of: dict[str, int] = {}
        waiting: set[str] = set()
        for h in hashes:
            i, why = by_hash.get(h, (-1, MISSING_ROW))  # no row (yet): not kept
            if why in RETRY:
                waiting.add(h)  # its prompt row may still come: live, read whole
            else:
                slot_of[h] = i
        if waiting:
            self._read_live(into, [r for first, last, ref in runs if ref in waiting for r in range(first, last + 1)])
        # neighbouring runs of two prompts with one snapshot (another day's date line) are one run
        starts: list[int] = []
        lengths: list[int] = []
        run_slots: list[int] = []
        for first, last, ref in runs:
            i = slot_of.get(ref)
            if i is None:
                continue
            if starts and run_slots[-1] == i and starts[-1] + lengths[-1] == first:
                lengths[-1] += last - first + 1
            else:
                starts.append(first), lengths.append(last - first + 1), run_slots.append(i)
        into.runs.extend_runs(starts, lengths, run_slots)
        counts: dict[int, int] = {}
        for i, n in zip(run_slots, lengths):
            counts[i] = counts.get(i, 0) + n
        # each snapshot's first session: the earliest start of its runs, then the least id started then
        firsts: dict[int, tuple] = {}
        known = [k for k, i in enumerate(run_slots) if i >= 0]  # a run of prompts not known has no first
        for at in range(0, len(known), _RUNS_PER_QUERY):
            part = known[at:at + _RUNS_PER_QUERY]
            values = ", ".join("(?, ?, ?)" for _ in part)
            params = [v for k in part for v in (k, starts[k], starts[k] + lengths[k] - 1)]
            for k, started, sid in conn.execute(
                    f"WITH r(k, a, b) AS (VALUES {values}), "
                    "m(k, a, b, low) AS (SELECT k, a, b, (SELECT MIN(started_at) FROM sessions "
                    "WHERE rowid BETWEEN a AND b) FROM r) "
                    "SELECT m.k, s.started_at, s.id FROM m JOIN sessions s "
                    "ON s.rowid BETWEEN m.a AND m.b AND s.started_at = m.low", params):
                i = run_slots[k]
                key = (started, sid if type(sid) is str else str(sid))
                seen = firsts.get(i)
                if seen is None or key < seen:
                    firsts[i] = key
        for i, (started, sid) in firsts.items():
            into.count(i, sid, float(started), counts[i])  # an INTEGER start too
        return others

    def one(self, session_id: str) -> SessionLoad | None:
        """One session by id, and what it loaded."""
        found = self.rows("WHERE s.id = ?", (session_id,))[1]
        return found[0] if found else None

    def recent(self, limit: int) -> list[SessionLoad]:
        """The `limit` most recently active sessions, most recent first."""
        return self.rows("", (), order=f"COALESCE({_activity(self.columns)}, 0.0) DESC, s.started_at, s.id "
                                        f"LIMIT {int(limit)}")[1]


def read(conn: sqlite3.Connection, session_columns: frozenset[str],
         should_stop: Callable[[], bool] | None = None) -> "Snapshots":
    """The summary of every session of the database `conn` opened (read-only), read whole."""
    from core.snapshots.tally import Tally

    reader = Reader(conn, session_columns)
    tally = Tally(reader.catalog)
    reader.tally(tally, should_stop=should_stop)
    return tally.snapshots(reader.source)


def sessions(conn: sqlite3.Connection, session_columns: frozenset[str],
             started: tuple[float | None, float] | None = None) -> list[SessionLoad]:
    """The sessions themselves, oldest first; with `started` (low, high), those started in
    (low, high] only (low None: from the first)."""
    where, params = "", ()
    if started is not None:
        low, high = started
        where, params = ("WHERE s.started_at <= ?", (high,)) if low is None else \
            ("WHERE s.started_at > ? AND s.started_at <= ?", (low, high))
    return Reader(conn, session_columns).rows(where, params)[1]


def started_between(conn: sqlite3.Connection, session_columns: frozenset[str], low: float | None, high: float,
                    catalog: Catalog | None = None) -> list[tuple[float | None, Loaded | None]]:
    """(start, what it loaded) of each session started in (low, high] (low None: from the first),
    oldest first. `catalog`: prompts already parsed (a build's earlier windows, the summary's
    catalog: core.snapshots.cache), kept for the next call."""
    where, params = ("WHERE s.started_at <= ?", (high,)) if low is None else \
        ("WHERE s.started_at > ? AND s.started_at <= ?", (low, high))
    return Reader(conn, session_columns, catalog).starts(where, params)


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
    parse_one = _Parser(Catalog())
    for started, raw in candidates[:20]:
        loaded, _ = parse_one(raw)
        at = as_epoch(started)
        if loaded is not None and at is not None and shown in loaded.entries(target):
            row = conn.execute("SELECT MAX(started_at) FROM sessions WHERE started_at < ?", (started,)).fetchone()
            return (as_epoch(row[0]) if row else None), at
    return None
