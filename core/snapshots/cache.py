"""Every session's loaded memory, summed up and cached, so that a later run reads only the sessions
that changed.

`<user cache dir>/hmc/snapshots/<slug>-<hash of the db path>.cache`, private (folder 0700, file
0600), in the frame every hmc cache has (core.hmc_cache: a SHA-256 and a length, then the body; a
torn or edited file is never decoded), the body in Python's `marshal` form: the summary
core.snapshots.tally.Tally keeps, as it keeps it (the catalog of distinct snapshots with their
entries pooled and 0.20+'s prompt hashes already parsed, core.snapshots.catalog; how many settled
sessions loaded each snapshot and the first of them; each settled session's snapshot by rowid as
runs, core.snapshots.runs; the live sessions whole). Its size grows with the distinct snapshots,
the runs and the live sessions: a few hundred KB at 100,000 sessions.

What a run reads again, and why that is enough (HERMES-FORMATS.md §8):
- **sessions added since** (a rowid above the last one cached: SQLite gives a new row the next one);
- **sessions with a message since** (`messages.id` above the last one cached): a resumed session,
  a prompt set on a later turn (0.19's NULL prompt until the first turn is built, a `/model`
  switch), an end stamp cleared by 0.22's compression repair all come with a turn. A settled
  session read again that loaded the same snapshot changes nothing; one that changed is taken out
  of its snapshot's count and counted again (a resumed one stays counted, and is also live);
- **live sessions** (open, or their prompt not known yet): an end comes without a message.
- **sessions deleted since** (pruning, `hermes sessions delete`): a live one is dropped; when a
  settled one is gone (the count doesn't add up), the whole database is read again, once.

The same for the rare change a summary can't take back: a settled session that was the first to
load its snapshot, read again with another snapshot or a later start (which session came first
would need every other one). Checked, not trusted: the format (VERSION, marshal's and Python's
versions), the database's identity (path, device, inode), the columns read, the last rowid's
session id and the last message's session and time must all match, else the cache is ignored and
the sessions read whole. A cache that can't be written is skipped (the next run reads whole again).
Titles and chats aren't summed: a session is read by id when shown (core.snapshots.loaded.Reader).
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sqlite3
import sys
from array import array
from itertools import repeat
from pathlib import Path
from typing import Callable

from core.hmc_cache import frame, framed_body, hmc_cache
from core.no_gc import no_gc
from core.snapshots.blocks import Loaded
from core.snapshots.catalog import Catalog
from core.snapshots.loaded import BATCH, Reader
from core.snapshots.session import SessionLoad
from core.snapshots.runs import Runs
from core.snapshots.tally import Snapshots, Tally, order_key, settled
from core.store.atomic import private_dir, read_regular, write_private

VERSION = 3  # 3: the hashes and the firsts as columns
WRITE_AFTER = 500  # sessions an update reads before its summary is written back (Cached.worth_writing)
MAX_CACHE_BYTES = 512 * 1024 * 1024
FIELDS = len(SessionLoad._fields)  # id … unknown; `loaded` is kept as a snapshot's index
LOADED = SessionLoad._fields.index("loaded")


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


def _last_message(conn: sqlite3.Connection) -> tuple[int, list | None]:
    """The last message's id, and its session and time (what a cache covering it must still find)."""
    try:
        row = conn.execute("SELECT id, session_id, timestamp FROM messages ORDER BY id DESC LIMIT 1").fetchone()
    except sqlite3.Error:  # no messages table: sessions are read again when open, or new
        return 0, None
    return (int(row[0]), [row[1], row[2]]) if row and isinstance(row[0], int) else (0, None)


class Cached:
    """The cached summary, as read or brought up to date."""

    def __init__(self, tally: Tally, source: str, changed: bool = True, work: int | None = None):
        self.tally, self.source = tally, source
        self.changed = changed  # False: the cache file already holds exactly this
        # what bringing the cache file up to date took (sessions read, messages passed / 10); None: read whole
        self.work = work

    def worth_writing(self) -> bool:
        """Whether to write this summary over the cache file: when it differs from it, and the file
        would make the next run read again at least WRITE_AFTER sessions or a hundredth of them
        (a small update is read again next time, in a few ms, rather than written in a few more)."""
        if not self.changed:
            return False
        return self.work is None or self.work >= max(WRITE_AFTER, len(self.tally.runs) // 100)

    def encode(self, key: dict, conn: sqlite3.Connection) -> bytes:
        t = self.tally
        t.grow()
        live_rowids = sorted(t.live)
        columns = [list(c) for c in zip(*(t.live[r] for r in live_rowids))] if live_rowids else \
            [[] for _ in range(FIELDS)]
        columns[LOADED] = list(map(t.catalog.slot, columns[LOADED]))
        last_id, anchor = _last_message(conn)
        last_rowid = max(t.last_rowid, max(live_rowids, default=0))
        row = conn.execute("SELECT id FROM sessions WHERE rowid = ?", (last_rowid,)).fetchone() if last_rowid else None
        c = t.catalog
        # the hashes and the firsts as columns: a few plain lists load faster than thousands of tuples
        slots = array("i", (v[0] for v in c.by_hash.values()))
        whys = {n: v[1] for n, v in enumerate(c.by_hash.values()) if v[1] is not None}
        firsts = [[None if f is None else f[1] for f in t.firsts], [None if f is None else f[2] for f in t.firsts]]
        body = marshal.dumps({"key": key, "source": self.source, "pool": c.pool, "snaps": c.enc,
                              "hashes": [list(c.by_hash), slots.tobytes(), whys],
                              "counts": t.counts, "firsts": firsts, "runs": [t.runs.starts.tobytes(),
                              t.runs.lengths.tobytes(), t.runs.slots.tobytes()], "live_rowids": live_rowids, "live": columns,
                              "counted": sorted(t.counted), "last_rowid": last_rowid,
                              "rowid_anchor": row[0] if row else None, "last_message": last_id,
                              "message_anchor": anchor}, 4)
        return frame(body) + body


def _decode(raw: bytes, key: dict) -> dict | None:
    checked = framed_body(raw)
    if checked is None or checked[1] != len(raw):
        return None
    obj = marshal.loads(checked[0])
    return obj if type(obj) is dict and obj.get("key") == key else None


def _packed(data: object, code: str) -> array:
    if type(data) is not bytes:
        raise TypeError(code)
    out = array(code)
    out.frombytes(data)  # a length that isn't a whole number of items raises ValueError
    return out


def _restore(obj: dict) -> Cached:
    """The cached summary, checked field by field (a shape hmc doesn't write raises)."""
    catalog = Catalog(obj["pool"], obj["snaps"])
    catalog.check()
    slots = len(catalog)
    # the prompt hashes already parsed: (hashes, their slots packed, {place: why not known})
    hashes, slot_of, whys = obj["hashes"]
    slot_of = _packed(slot_of, "i")
    if type(hashes) is not list or len(hashes) != len(slot_of) or set(map(type, hashes)) - {str} \
            or slot_of and (min(slot_of) < -1 or max(slot_of) >= slots) or type(whys) is not dict \
            or set(map(type, whys)) - {int} or set(map(type, whys.values())) - {str} or whys and min(whys) < 0:
        raise ValueError("hashes")
    why_of = [None] * len(hashes)
    for n, why in whys.items():
        why_of[n] = why  # a place past the hashes raises IndexError
    catalog.by_hash = dict(zip(hashes, zip(slot_of, why_of)))
    counts, (sids, starts) = obj["counts"], obj["firsts"]
    if type(counts) is not list or type(sids) is not list or type(starts) is not list \
            or not len(counts) == len(sids) == len(starts) == slots \
            or set(map(type, counts)) - {int} or counts and min(counts) < 0:
        raise ValueError("counts")
    if set(map(type, sids)) - _OPT_STR or set(map(type, starts)) - _OPT_FLOAT \
            or any(n for sid, n in zip(sids, counts) if sid is None) \
            or any(start is not None for sid, start in zip(sids, starts) if sid is None):
        raise ValueError("firsts")  # a snapshot counted with no first session, or a start with none
    # each first as (order key, id, start), the key made inline (tally.order_key: thousands of calls)
    firsts = [None if sid is None else ((started or 0.0, sid), sid, started) for sid, started in zip(sids, starts)]
    tally = Tally(catalog, counts, firsts)
    starts, lengths, run_slots = obj["runs"]
    tally.runs = Runs(_packed(starts, "q"), _packed(lengths, "q"), _packed(run_slots, "i"))
    tally.runs.check()  # each slot's range is checked where it is read (_recount)
    if type(obj["last_rowid"]) is not int:
        raise ValueError("last_rowid")
    tally.last_rowid = obj["last_rowid"]
    columns, live_rowids = obj["live"], obj["live_rowids"]
    if len(columns) != FIELDS or any(len(c) != len(live_rowids) for c in columns) \
            or set(map(type, live_rowids)) - {int}:
        raise ValueError("live")
    columns = list(columns)
    if set(map(type, columns[LOADED])) - {int} or any(i < -1 or i >= slots for i in set(columns[LOADED])):
        raise ValueError("loaded")
    columns[LOADED] = list(map(catalog.get, columns[LOADED]))  # -1: None
    for name, values in zip(SessionLoad._fields, columns):
        if not set(map(type, values)) <= _KINDS[name]:  # each value's type checked in C
            raise TypeError(name)
    if live_rowids:
        tally.live = dict(zip(live_rowids, map(tuple.__new__, repeat(SessionLoad), zip(*columns))))
    counted = obj["counted"]
    if type(counted) is not list or not set(counted) <= set(live_rowids):
        raise ValueError("counted")
    tally.counted = set(counted)
    source = obj["source"]
    if source not in ("table", "inline", "none"):
        raise ValueError("source")
    return Cached(tally, source, changed=False)


_OPT_FLOAT = frozenset({float, type(None)})
_OPT_STR = frozenset({str, type(None)})
_KINDS = {"id": frozenset({str}), "source": frozenset({str}), "title": frozenset({str}), "started_at": _OPT_FLOAT,
          "ended_at": _OPT_FLOAT, "end_reason": _OPT_STR, "last_active": _OPT_FLOAT, "parent_session_id": _OPT_STR,
          "chat": frozenset({str}), "loaded": frozenset({Loaded, type(None)}), "unknown": _OPT_STR}


class _Stale(Exception):
    """The summary can't take this change back: read whole."""


def _recount(tally: Tally, rowid: int, s: SessionLoad | None) -> bool:
    """A counted session read again as `s` (None: deleted). True when the totals changed; raises
    _Stale when they can't follow."""
    if s is None:
        raise _Stale  # a counted session deleted: which one came first would need the rest
    old, new, key = tally.runs.get(rowid), tally.slot(s.loaded), order_key(s.started_at, s.id)
    if not -1 <= old < len(tally.counts) or old >= 0 and tally.firsts[old] is None:
        raise _Stale  # not a slot hmc wrote
    if new == old:  # the same snapshot (a resumed session keeps its first prompt): only the start may move
        if old < 0:
            return False
        first = tally.firsts[old]
        if first[1] == s.id and first[0] != key:
            if key > first[0]:
                raise _Stale  # the first one started later: which one is first now needs the rest
        elif key >= first[0]:
            return False
        tally.firsts[old] = (key, s.id, s.started_at)
        return True
    if old >= 0:
        if tally.firsts[old][1] == s.id:
            raise _Stale
        tally.counts[old] -= 1
    tally.runs.set(rowid, new)
    if new >= 0:
        tally.count(new, s.id, s.started_at)
    return True


def _update(conn: sqlite3.Connection, columns: frozenset[str], obj: dict, cached: Cached,
            should_stop: Callable[[], bool] | None) -> Cached | None:
    """The cached summary brought up to date, or None when it doesn't match the database (or can't
    follow a change to it)."""
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
    tally = cached.tally
    reader = Reader(conn, columns, tally.catalog)
    if reader.source != cached.source:
        return None
    # read again: the live sessions, and the counted ones with a message since
    again = set(tally.live)
    if last_message:
        touched = [r[0] for r in conn.execute("SELECT DISTINCT session_id FROM messages NOT INDEXED WHERE id > ?",
                                              (last_message,))]
        for i in range(0, len(touched), BATCH):
            part = touched[i:i + BATCH]
            again.update(r[0] for r in conn.execute(
                f"SELECT rowid FROM sessions WHERE id IN ({', '.join('?' * len(part))})", part))
    again = sorted(r for r in again if r <= last_rowid)
    found: dict[int, SessionLoad] = {}
    for i in range(0, len(again), BATCH):
        part = again[i:i + BATCH]
        ids, rows = reader.rows(f"WHERE s.rowid IN ({', '.join('?' * len(part))})", part, order=None)
        found.update(zip(ids, rows))
    live, counted = tally.live, tally.counted
    tally.live, tally.counted = {}, set()
    changed = False
    try:
        for rowid in (r for r in again if r in counted or r not in live):
            s = found.get(rowid)
            changed = _recount(tally, rowid, s) or changed
            if not settled(s):
                tally.live[rowid] = s
                tally.counted.add(rowid)
    except (_Stale, KeyError, ValueError):
        return None
    for rowid in live.keys() - counted:  # the uncounted live: deleted (dropped), settled (counted) or live still
        s = found.get(rowid)
        if s is not None:
            tally.add(rowid, s)
    changed = changed or tally.live != live or tally.counted != counted
    size = len(tally.runs) + len(tally.live) - len(tally.counted)
    if not reader.tally(tally, last_rowid, should_stop):
        return None
    total = len(tally.runs) + len(tally.live) - len(tally.counted)
    (count,) = conn.execute("SELECT COUNT(*) FROM sessions").fetchone()
    if total != count:
        return None  # a counted session deleted since: read whole, once
    (newest,) = conn.execute("SELECT MAX(id) FROM messages").fetchone() if last_message else (0,)
    work = len(again) + total - size + (max(0, newest - last_message) // 10 if type(newest) is int else 0)
    return Cached(tally, cached.source, changed or total != size, work)


def read(db_path: Path, conn: sqlite3.Connection, columns: frozenset[str],
         should_stop: Callable[[], bool] | None = None) -> Snapshots:
    """The summary of every session's loaded memory (as core.snapshots.loaded.read), from the cache
    brought up to date when it matches this database, else read whole; the result is cached for
    the next run. The collector is held off: a cache of thousands of snapshots is tens of thousands
    of tuples and strings, and no cycles."""
    with no_gc():
        return _read(db_path, conn, columns, should_stop)


def _read(db_path: Path, conn: sqlite3.Connection, columns: frozenset[str],
          should_stop: Callable[[], bool] | None) -> Snapshots:
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
        tally = Tally(reader.catalog)
        reader.tally(tally, should_stop=should_stop)
        state = Cached(tally, reader.source)
    stopped = should_stop is not None and should_stop()
    if key is not None and not stopped and state.worth_writing():
        try:
            data = state.encode(key, conn)
            if len(data) <= MAX_CACHE_BYTES:
                private_dir(path.parent, up_to=hmc_cache())
                write_private(path, data, durable=False)  # atomic, not durable: a lost cache is rebuilt
        except (OSError, ValueError, sqlite3.Error):
            pass  # the next run reads whole
    return state.tally.snapshots(state.source)
