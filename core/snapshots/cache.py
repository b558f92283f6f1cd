"""Every session's loaded memory, cached so that a later run reads only the sessions that changed.

`<user cache dir>/hmc/snapshots/<slug>-<hash of the db path>.cache`, private (folder 0700, file
0600), in the frame every hmc cache has (core.hmc_cache: a SHA-256 and a length, then the body; a
torn or edited file is never decoded), the body in Python's `marshal` form: the sessions as columns
(one list per field of core.snapshots.loaded.SessionLoad, plus each one's rowid), each distinct
snapshot once (the sessions name it by index), and 0.20+'s prompt hashes already parsed.

What a run reads again, and why that is enough (HERMES-FORMATS.md §8):
- **sessions added since** (a rowid above the last one cached: SQLite gives a new row the next one);
- **sessions with a message since** (`messages.id` above the last one cached): a resumed session,
  a title or a prompt set on a later turn (0.19's NULL prompt until the first turn is built, a
  `/model` switch), an end stamp cleared by 0.22's compression repair all come with a turn;
- **sessions open when cached**, and those whose prompt wasn't known yet: an end comes without a
  message.
- **sessions deleted since** (pruning, `hermes sessions delete`): when the count doesn't add up,
  the rowids still there are read (cheap: no prompt) and the others dropped.

What it can miss: a change made with no message at all to a session that had ended (a title renamed
from another tool): the old title shows until the session's next turn, or until the cache file is
deleted. Checked, not trusted: the format (VERSION, marshal's and Python's versions), the
database's identity (path, device, inode), the columns read, the last rowid's session id and the
last message's session and time must all match, else the cache is ignored and the sessions read
whole. A cache that can't be written is skipped (the next run reads whole again).
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sqlite3
import sys
from pathlib import Path
from itertools import repeat
from typing import Callable, Iterable

from core.hmc_cache import frame, framed_body, hmc_cache
from core.snapshots.blocks import Block, Loaded
from core.snapshots.loaded import NO_PROMPT, MISSING_ROW, BATCH, Reader, SessionLoad, Snapshots
from core.store.atomic import private_dir, read_regular, write_private

VERSION = 1
MAX_CACHE_BYTES = 512 * 1024 * 1024
FIELDS = len(SessionLoad._fields)  # id … unknown; `loaded` is kept as a snapshot's index
LOADED = SessionLoad._fields.index("loaded")
RETRY = frozenset({NO_PROMPT, MISSING_ROW})  # not known yet: a later turn (or row) may tell


def cache_path(db_path: Path) -> Path:
    resolved = str(Path(db_path).resolve())
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    slug = Path(resolved).parent.name.strip(".")[:40] or "home"
    return hmc_cache() / "snapshots" / f"{slug}-{digest}.cache"


def _key(db_path: Path, columns: frozenset[str]) -> dict | None:
    try:
        st = os.stat(db_path)
    except OSError:
        return None
    return {"format": f"{VERSION}/{marshal.version}/{sys.version_info[0]}.{sys.version_info[1]}",
            "db": [str(Path(db_path).resolve()), st.st_dev, st.st_ino], "columns": sorted(columns)}


def _block(b: Block | None) -> tuple | None:
    return None if b is None else (b.target, b.entries, b.used, b.limit, b.start, b.end)


def _unblock(t) -> Block | None:
    if t is None:
        return None
    target, entries, used, limit, start, end = t
    if type(entries) is not tuple or not all(type(e) is str for e in entries):
        raise TypeError("entries")
    return Block(str(target), entries, int(used), int(limit), int(start), int(end))


def _last_message(conn: sqlite3.Connection) -> tuple[int, list | None]:
    """The last message's id, and its session and time (what a cache covering it must still find)."""
    try:
        row = conn.execute("SELECT id, session_id, timestamp FROM messages ORDER BY id DESC LIMIT 1").fetchone()
    except sqlite3.Error:  # no messages table: sessions are read again when open, or new
        return 0, None
    return (int(row[0]), [row[1], row[2]]) if row and isinstance(row[0], int) else (0, None)


class Cached:
    """The cached state: rowids and sessions in order, the snapshots they share, parsed hashes."""

    def __init__(self, rowids: list[int], sessions: list[SessionLoad], by_hash: dict, source: str,
                 changed: bool = True, snaps: Iterable[Loaded] = ()):
        self.rowids, self.sessions, self.by_hash, self.source = rowids, sessions, by_hash, source
        self.changed = changed  # False: the cache file already holds exactly this
        self.snaps = snaps  # the distinct snapshots the sessions share (as read from the cache)

    def encode(self, key: dict, conn: sqlite3.Connection) -> bytes:
        columns = [list(c) for c in zip(*self.sessions)] if self.sessions else [[] for _ in range(FIELDS)]
        # each distinct snapshot once, named by its place (mapped in C: a cache of 100,000 sessions
        # shares a few hundred snapshots)
        distinct = dict(zip(map(id, columns[LOADED]), columns[LOADED]))
        distinct.update(zip(map(id, (got for got, _ in self.by_hash.values())),
                            (got for got, _ in self.by_hash.values())))
        distinct.pop(id(None), None)
        index = {key: at for at, key in enumerate(distinct)}
        index[id(None)] = -1
        snaps = [(_block(got.memory), _block(got.user)) for got in distinct.values()]
        columns[LOADED] = list(map(index.__getitem__, map(id, columns[LOADED])))
        hashes = {h: (index[id(got)], why) for h, (got, why) in self.by_hash.items()}
        last_id, anchor = _last_message(conn)
        last_rowid = max(self.rowids, default=0)
        row = conn.execute("SELECT id FROM sessions WHERE rowid = ?", (last_rowid,)).fetchone() if last_rowid else None
        body = marshal.dumps({"key": key, "source": self.source, "rowids": self.rowids, "columns": columns,
                              "snaps": snaps, "hashes": hashes, "last_rowid": last_rowid,
                              "rowid_anchor": row[0] if row else None, "last_message": last_id,
                              "message_anchor": anchor}, 4)
        return frame(body) + body


def _decode(raw: bytes, key: dict) -> dict | None:
    checked = framed_body(raw)
    if checked is None or checked[1] != len(raw):
        return None
    obj = marshal.loads(checked[0])
    return obj if type(obj) is dict and obj.get("key") == key else None


def _restore(obj: dict) -> Cached:
    """The cached sessions, checked field by field (a shape hmc doesn't write raises)."""
    snaps = [Loaded(_unblock(m), _unblock(u)) for m, u in obj["snaps"]]
    columns, rowids = obj["columns"], obj["rowids"]
    if len(columns) != FIELDS or any(len(c) != len(rowids) for c in columns) \
            or set(map(type, rowids)) - {int}:
        raise ValueError("columns")
    columns = list(columns)
    if set(map(type, columns[LOADED])) - {int} or any(i < -1 or i >= len(snaps) for i in set(columns[LOADED])):
        raise ValueError("loaded")
    columns[LOADED] = list(map((*snaps, None).__getitem__, columns[LOADED]))  # -1: None
    for name, values in zip(SessionLoad._fields, columns):
        if not set(map(type, values)) <= _KINDS[name]:  # each value's type checked in C
            raise TypeError(name)
    by_hash = {}
    for h, (i, why) in obj["hashes"].items():
        if type(h) is not str or not (why is None or type(why) is str):
            raise TypeError("hashes")
        by_hash[h] = (snaps[i] if i >= 0 else None, why)
    source = obj["source"]
    if source not in ("table", "inline", "none"):
        raise ValueError("source")
    sessions = list(map(tuple.__new__, repeat(SessionLoad), zip(*columns))) if rowids else []
    return Cached(list(rowids), sessions, by_hash, source, snaps=snaps)


_OPT_FLOAT = frozenset({float, type(None)})
_OPT_STR = frozenset({str, type(None)})
_KINDS = {"id": frozenset({str}), "source": frozenset({str}), "title": frozenset({str}), "started_at": _OPT_FLOAT,
          "ended_at": _OPT_FLOAT, "end_reason": _OPT_STR, "last_active": _OPT_FLOAT, "parent_session_id": _OPT_STR,
          "chat": frozenset({str}), "loaded": frozenset({Loaded, type(None)}), "unknown": _OPT_STR}


def _order(s: SessionLoad) -> tuple:
    """SQLite's `ORDER BY started_at, id` (a NULL first)."""
    return (s.started_at is not None, s.started_at or 0.0, s.id)


def _update(conn: sqlite3.Connection, columns: frozenset[str], obj: dict, cached: Cached,
            should_stop: Callable[[], bool] | None) -> Cached | None:
    """The cached sessions brought up to date, or None when the cache doesn't match the database."""
    last_rowid, last_message = obj["last_rowid"], obj["last_message"]
    if type(last_rowid) is not int or type(last_message) is not int:
        return None
    if last_rowid:
        row = conn.execute("SELECT id FROM sessions WHERE rowid = ?", (last_rowid,)).fetchone()
        if row is None or row[0] != obj["rowid_anchor"]:
            return None  # replaced, restored, vacuumed (rowids renumbered) or the last session deleted
    if last_message:
        row = conn.execute("SELECT session_id, timestamp FROM messages WHERE id = ?", (last_message,)).fetchone()
        if row is None or [row[0], row[1]] != obj["message_anchor"]:
            return None
    reader = Reader(conn, columns, cached.snaps, cached.by_hash)
    if reader.source != cached.source:
        return None
    # the sessions to read again: open or not known when cached, or with a message since
    again = {r for r, s in zip(cached.rowids, cached.sessions) if s.ended_at is None or s.unknown in RETRY}
    if last_message:
        touched = [r[0] for r in conn.execute("SELECT DISTINCT session_id FROM messages WHERE id > ?",
                                              (last_message,))]
        for i in range(0, len(touched), BATCH):
            part = touched[i:i + BATCH]
            again.update(r[0] for r in conn.execute(
                f"SELECT rowid FROM sessions WHERE id IN ({', '.join('?' * len(part))})", part))
    again = {r for r in again if r <= last_rowid}
    fresh_rowids, fresh = reader.rows("WHERE s.rowid > ?", (last_rowid,), should_stop)
    found: dict[int, SessionLoad] = {}
    wanted = sorted(again)
    for i in range(0, len(wanted), BATCH):
        part = wanted[i:i + BATCH]
        ids, rows = reader.rows(f"WHERE s.rowid IN ({', '.join('?' * len(part))})", part, should_stop, ordered=False)
        found.update(zip(ids, rows))
    if should_stop is not None and should_stop():
        return None
    (count,) = conn.execute("SELECT COUNT(*) FROM sessions").fetchone()
    rowids, sessions = cached.rowids, cached.sessions
    if len(rowids) + len(fresh_rowids) != count:  # sessions deleted since: keep the rowids still there
        alive = {r for (r,) in conn.execute("SELECT rowid FROM sessions WHERE rowid <= ?", (last_rowid,))}
        kept = [(r, s) for r, s in zip(rowids, sessions) if r in alive]
        rowids, sessions = [r for r, _ in kept], [s for _, s in kept]
    changed = bool(fresh) or len(rowids) != len(cached.rowids)
    if found:
        merged = [found.get(r, s) for r, s in zip(rowids, sessions)]
        changed = changed or merged != sessions  # an open session read again, the same: nothing to save
        sessions = merged
    rowids, sessions = list(rowids), list(sessions)
    if fresh:
        if sessions and _order(fresh[0]) < _order(sessions[-1]):  # started before the last cached one
            pairs = sorted(zip(rowids + fresh_rowids, sessions + fresh), key=lambda p: _order(p[1]))
            rowids, sessions = [r for r, _ in pairs], [s for _, s in pairs]
        else:
            rowids += fresh_rowids
            sessions += fresh
    return Cached(rowids, sessions, reader.by_hash, cached.source, changed)


def read(db_path: Path, conn: sqlite3.Connection, columns: frozenset[str],
         should_stop: Callable[[], bool] | None = None) -> Snapshots:
    """Every session's loaded memory (as core.snapshots.loaded.read), from the cache brought up to
    date when it matches this database, else read whole; the result is cached for the next run."""
    key = _key(db_path, columns)
    path = cache_path(db_path)
    state = None
    if key is not None:
        try:
            obj = _decode(read_regular(path, MAX_CACHE_BYTES), key)
            if obj is not None:
                state = _update(conn, columns, obj, _restore(obj), should_stop)
        except (OSError, ValueError, TypeError, KeyError, IndexError, EOFError, RecursionError, AttributeError):
            state = None  # a cache hmc didn't write, or can't use: read whole
    if state is None:
        reader = Reader(conn, columns)
        rowids, sessions = reader.rows("", (), should_stop)
        state = Cached(rowids, sessions, reader.by_hash, reader.source)
    stopped = should_stop is not None and should_stop()
    if key is not None and not stopped and state.changed:
        try:
            data = state.encode(key, conn)
            if len(data) <= MAX_CACHE_BYTES:
                private_dir(path.parent, up_to=hmc_cache())
                write_private(path, data, durable=False)  # atomic, not durable: a lost cache is rebuilt
        except (OSError, ValueError, sqlite3.Error):
            pass  # the next run reads whole
    return Snapshots(state.sessions, state.source)
