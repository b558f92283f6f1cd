"""The harvested memory calls of one state.db, cached so that later runs read only new messages.

`<user cache dir>/hmc/timeline/<slug>-<hash of the db path>.cache`, private (folder 0700, files
0600): a line with a SHA-256 and a length, then the main data (that many bytes, whose digest that
is: a torn or edited file fails the check, and is never decoded), then the writes' chunks'
bytes, each named in the main data by its count, length and SHA-256 (the file must end where the
last one does; each chunk is checked against its digest when it is decoded, never before: an update
doesn't hash again the writes it doesn't touch, and a damaged chunk is never decoded). A run reads
the main data only; the chunks are read from the file it opened when a write is first read (an
update that only appends never reads them), and the file stays open until then: another run that
saves renames a new file over it, so the open one still holds the bytes its main data names.
The main data: the read position, the calls still open, the counts and the replay's state
(each store's entries as columns: core.timeline.state.cache_columns, the texts joined in one string,
the first writes and revisions only where they differ from the last write and from 1; its writes as
chunks of columns, one tuple per field, each write with its short log rather than a copy of the
store, a chunk kept encoded until a write is read, so that an update appending a few writes decodes
none and saves them as they were), in Python's
`marshal` form (plain tuples, lists, dicts, strings and bytes; a text shared by many writes of a
chunk is stored once, and loads fast; decoded with the garbage collector paused), tagged with the
Python and marshal versions that wrote it. The harvested calls are kept (in `<same name>.calls.json`,
each call the JSON array of its fields, its digest in the main file) only while the replay hasn't
consumed them all: a checkpoint of a long first build, which the next run resumes. A finished
replay's state holds what the calls did, so the calls aren't written again (encoding them was a
tenth of a cold build). The trade: when the history has to be replayed from the start (another
release, an older hmc record or snapshot appearing), state.db is read again from the start — a
cold build's cost, in a rare case — and calls whose messages were since deleted from state.db are
then no longer in the history (the files show their effect as an outside change). The files are
replaced atomically but not fsynced: a cache lost or torn in a crash fails its digest and is
rebuilt. The cache is keyed by the database's identity (path, device, inode) and
the last message id it covered, and checked, not trusted: the row with that id must still be there
with the same session and time (a database replaced, restored or rewound is read again from
scratch), every row the history came from must read as it did (core.timeline.rowprints: a row
redacted or rewritten since means a rebuild; a pruned one is forgotten), and every field must have
the shape hmc writes. Anything else (a corrupt, foreign or
truncated file) is ignored and rebuilt. A cache over MAX_CACHE_BYTES is not written (`save` says so).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any, Callable

from core.hmc_cache import FileSpan, OpenFile, frame, framed_body, hmc_cache, read_framed
from core.store.atomic import open_regular, private_dir, write_private
from core.sessions.memory_calls import MAX_CACHED_CALLS_BYTES, MAX_REFUSED, STAGED_ID, Call, Harvest, Open
from core.timeline.rowprints import SAMPLE, RowPrints, harvested_ids

VERSION = 16  # 4: patch calls and new_text arguments are harvested; 5: writes keep logs, not copies of the store;
# 6: the calls file holds each call as an array of its fields, entries name their writes by index;
# 7: the calls file only while a replay hasn't consumed them (calls_digest None: not kept); no sessions'
# sources (read from state.db for the calls a run replays: an update's few); 8: the writes' chunks after
# the main data, each with its own digest (checked when decoded); 9: a chunk holds each field's values as
# a list (the writes a run adds are kept as columns, not rows); 10: a store's texts joined in one string
# (core.timeline.state.JoinedTexts: one object to load, not one per entry), its firsts and revisions kept
# where they differ from the origins and from 1; 11: its origins and seqs as runs of consecutive values, a
# plain add's changes as None (the entry its log adds); 12: the staged calls (a record id and the call),
# and each divergence names the outside write it found (None: a count that didn't add up); 13: an hmc
# write's note is its detail, never a claim's or an approve-all's internal tag; 14: a record the background
# review staged, approved with hmc, is the review's write; 15: the refused calls (a call and the release's reason);
# 16: the rows' prints (core.timeline.rowprints): an old row that changed is never trusted
MAX_CACHE_BYTES = 256 * 1024 * 1024


def cache_root() -> Path:
    return hmc_cache() / "timeline"


def cache_path(db_path: Path, resolved: str | None = None) -> Path:
    """The cache file of a database (`resolved`: its path already resolved, not resolved again)."""
    resolved = resolved or str(Path(db_path).resolve())
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    slug = Path(resolved).parent.name.strip(".")[:40] or "home"
    return cache_root() / f"{slug}-{digest}.cache"


def _version() -> str:
    """The cache's format: hmc's, marshal's and Python's (marshal's form changes between Pythons)."""
    return f"{VERSION}/{marshal.version}/{sys.version_info[0]}.{sys.version_info[1]}"


def calls_path(path: Path) -> Path:
    """The calls file next to a cache file (read only when a full replay needs the calls)."""
    return path.with_name(path.stem + ".calls.json")


def identity(db_path: Path, resolved: str | None = None) -> dict[str, Any] | None:
    try:
        st = os.stat(db_path)
    except OSError:
        return None
    return {"path": resolved or str(Path(db_path).resolve()), "dev": st.st_dev, "ino": st.st_ino}


def _anchor(conn: sqlite3.Connection, last_id: int) -> list | None:
    """The session id and time of message `last_id` (what a cache covering it must still find)."""
    if last_id <= 0:
        return None
    row = conn.execute("SELECT session_id, timestamp FROM messages WHERE id = ?", (last_id,)).fetchone()
    return [row[0], row[1]] if row else None


def load(db_path: Path, conn: sqlite3.Connection, *, every_row: bool = False) -> tuple[Harvest, dict | None] | None:
    """The cached harvest (and the replay state saved with it, checked when it is used) when the
    cache is this database's and still matches it; else None. `every_row`: check every row the
    history came from (where every write is shown), else a sample (core.timeline.rowprints)."""
    resolved = str(Path(db_path).resolve())
    path = cache_path(db_path, resolved)
    try:
        obj = _read(path)
        if obj is None or obj.get("version") != _version() or obj.get("db") != identity(db_path, resolved):
            return None
        last_id = obj["last_id"]
        if not isinstance(last_id, int) or isinstance(last_id, bool) or last_id < 0:
            return None
        if last_id and obj.get("anchor") != _anchor(conn, last_id):
            return None
        calls, n_calls = obj["calls_digest"], obj["n_calls"]
        if not (calls is None or isinstance(calls, str)) or not isinstance(n_calls, int):
            return None
        prints = RowPrints.unpack(obj["rows"])
        if not prints.check(conn, None if every_row else SAMPLE):  # an old row changed (redacted, another database): read it all again
            return None
        harvest = Harvest(
            cached=(calls_path(path) if calls else None, calls), n_cached=n_calls,
            open=[Open.from_json(o) for o in obj["open"]],
            skipped=_counts(obj["skipped"]), ignored=_counts(obj["ignored"]), last_id=last_id,
            staged=_staged(obj["staged"]), refused=_refused(obj["refused"]), prints=prints,
        )
        replay = obj.get("replay")
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError, EOFError, sqlite3.Error):
        return None
    return harvest, replay if isinstance(replay, dict) else None


def encode(obj: dict) -> bytes:
    """The file's bytes for `obj` (its replay's writes as (count, digest, bytes) chunks, moved after
    the main data, which names each by count, digest and length)."""
    replay, tail = obj.get("replay"), []
    if isinstance(replay, dict):
        meta = []
        for count, digest, blob in replay["writes"]:
            meta.append((count, digest, len(blob)))
            tail.append(blob.read() if type(blob) is FileSpan else blob)  # a cached chunk not yet read
        obj = dict(obj, replay=dict(replay, writes=meta))
    body = marshal.dumps(obj, 4)
    return b"".join([frame(body), body, *tail])


def _read(path: Path) -> dict | None:
    """`decode` of the cache file, reading its main data only: the writes' chunks stay in the file
    (FileSpans of it, kept open: an update that only appends never reads them, two thirds of the
    file at 50,000 writes). A FIFO or an oversized file is not hmc's cache."""
    opened = OpenFile(open_regular(path))  # closed when the last chunk's span is dropped
    size = os.fstat(opened.fd).st_size
    if size > MAX_CACHE_BYTES:
        return None
    framed = read_framed(opened, size)
    if framed is None:
        return None
    return _decoded(framed[0], framed[1], size, lambda at, n: FileSpan(opened, at, n))


def decode(data: bytes) -> dict | None:
    """What `encode` wrote (the chunks' bytes back in place, as views of `data`, not checked: Writes checks each when it
    decodes it), or None for a file whose main data fails its digest, or that doesn't end where its
    chunks do (torn, edited, another format). Raises (ValueError, TypeError, EOFError…) on a main
    data that checks out but isn't hmc's form."""
    checked = framed_body(data)
    if checked is None:
        return None  # torn, corrupt or edited: not what hmc wrote
    view = memoryview(data)  # nothing copied: the chunks are views of the file's bytes
    return _decoded(*checked, len(data), lambda at, n: view[at:at + n])


def _decoded(body, end: int, total: int, chunk: Callable[[int, int], object]) -> dict | None:
    """`decode` of a main data that checked out, ending at `end` of a file of `total` bytes, its
    chunks given by `chunk(offset, size)`."""
    obj = marshal.loads(body)
    if not isinstance(obj, dict):
        return None
    replay = obj.get("replay")
    if isinstance(replay, dict):
        meta, chunks = replay["writes"], []
        if type(meta) is not list:
            raise TypeError("writes")
        for count, digest, size in meta:
            if type(size) is not int or size < 0:
                raise TypeError("chunk")
            chunks.append((count, digest, chunk(end, size)))
            end += size
        replay["writes"] = chunks
    return obj if end == total else None


def _staged(value: Any) -> list[tuple[str, Call]]:
    """The staged calls as `save` wrote them (a record id and a call's fields), checked."""
    if type(value) is not list:
        raise TypeError("staged")
    out = []
    for item in value:
        if type(item) is not tuple or len(item) != 2 or type(item[0]) is not str or not STAGED_ID.fullmatch(item[0]):
            raise TypeError("staged")
        out.append((item[0], Call.from_cache(list(item[1]))))
    return out


def _refused(value: Any) -> list[tuple[Call, str]]:
    """The refused calls as `save` wrote them (a call's fields and the release's reason), checked."""
    if type(value) is not list or len(value) > MAX_REFUSED:
        raise TypeError("refused")
    out = []
    for item in value:
        if type(item) is not tuple or len(item) != 2 or type(item[1]) is not str:
            raise TypeError("refused")
        out.append((Call.from_cache(list(item[0])), item[1]))
    return out


def _counts(value: Any) -> dict[str, int]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, int) for k, v in value.items()):
        raise TypeError("counts")
    return dict(value)


class NotKept(str):
    """Why the cache wasn't written; `bound` when it was over a size limit (hmc names that to the
    user: every run then replays the history from the start)."""

    bound = False


def _over(message: str) -> NotKept:
    reason = NotKept(message)
    reason.bound = True
    return reason


def save(db_path: Path, conn: sqlite3.Connection, harvest: Harvest, replay: dict | None = None) -> NotKept | None:
    """Write the cache (private, atomic); None when it is written, else why not (the run goes on:
    the next run replays from the start). A cache over MAX_CACHE_BYTES (which `load` refuses) or
    calls over MAX_CACHED_CALLS_BYTES are not written, and the reason says so."""
    resolved = str(Path(db_path).resolve())
    ident = identity(db_path, resolved)
    if ident is None:
        return NotKept("state.db can't be identified")
    obj = {
        "version": _version(), "db": ident, "last_id": harvest.last_id, "anchor": _anchor(conn, harvest.last_id),
        "calls_digest": None, "n_calls": harvest.total, "open": [o.to_json() for o in harvest.open],
        "skipped": harvest.skipped, "ignored": harvest.ignored, "replay": replay,
        "staged": [(pid, list(call)) for pid, call in harvest.staged],
        "refused": [(list(call), reason) for call, reason in harvest.refused[-MAX_REFUSED:]],
    }
    prints = harvest.prints if isinstance(harvest.prints, RowPrints) else RowPrints()
    try:
        prints.add(conn, harvested_ids(harvest))
    except sqlite3.Error as exc:
        return NotKept(f"the history's rows can't be printed ({exc})")
    harvest.prints = prints
    prints.changed = False
    obj["rows"] = prints.pack()
    path = cache_path(db_path, resolved)
    # the calls are kept only while the replay hasn't consumed them all (a checkpoint of a long
    # build): a finished replay continues from its own state, and one that must start over reads
    # state.db again
    keep_calls = replay is None or replay.get("n_calls") != harvest.total
    try:
        calls = b""
        if keep_calls:
            calls = json.dumps(harvest.all_calls(), ensure_ascii=True, separators=(",", ":"),
                               check_circular=False).encode("ascii")  # plain arrays: no cycle to look for
            obj["calls_digest"] = hashlib.sha256(calls).hexdigest()
        data = encode(obj)
        for size, limit in ((len(data), MAX_CACHE_BYTES), (len(calls), MAX_CACHED_CALLS_BYTES)):
            if size > limit:
                return _over(f"the history's cache would be {size / 2**20:,.0f} MiB, over hmc's {limit / 2**20:,.0f} "
                             "MiB limit: not kept, so each run replays the history from the start")
        private_dir(path.parent, up_to=hmc_cache())
        if keep_calls:  # first: the main file names its digest
            write_private(calls_path(path), calls, durable=False)
        write_private(path, data, durable=False)  # atomic, not durable: a cache lost in a crash is rebuilt
        if not keep_calls:
            try:
                os.unlink(calls_path(path))  # an earlier checkpoint's: no longer named
            except FileNotFoundError:
                pass
    except (OSError, ValueError, TypeError, KeyError, sqlite3.Error) as exc:
        return NotKept(f"the history's cache can't be written ({getattr(exc, 'strerror', None) or exc})")
    return None
