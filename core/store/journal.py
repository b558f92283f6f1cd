"""hmc's own journal of every write it made: undo, and restoring removed entries.

One JSON line per write (target, time, action, before and after text), appended with fsync under
`platformdirs.user_state_path("hmc")/homes/<name>-<home id>/` (core.store.home_id: the id is the
home's, kept in a marker inside it, so the journal follows the home, not its path) — never inside
the Hermes home. The journal
holds full texts (secrets included), so the state tree is private: every folder 0700, every file
0600, whatever the umask.

The journal is true: it holds only writes that happened.
- A write goes in two steps (`History.writing`): before the store file is replaced, a *prepared*
  record is appended (so no write is ever made that the journal couldn't hold); after the replace,
  a `{"commit": id}` line; if the replace fails, an `{"abort": id}` line. Only committed records
  are records. A write killed between the two steps leaves a prepared record *in doubt*; the next
  write of that file (under its lock) resolves it by the file's text: the record's `after` text
  there means the write happened (committed); anything else drops it (aborted) — either it didn't
  happen, or another writer has changed the file since, and then undo couldn't restore it anyway.
  Commit and abort lines aren't fsynced: one lost in a crash just leaves the record in doubt.
- Ids are allocated and lines appended under one per-home lock (flock on `journal.lock`), so two
  processes writing MEMORY.md and USER.md at once can't share an id or tear each other's lines.
- Lines are pure-ASCII JSON (`ensure_ascii`): any string, a lone surrogate included, round-trips,
  and a line is encoded before the file is opened, so a failed encode leaves no trace.

Lines written before the two steps existed (no `state`) are committed records.

Folder-tree writes (a skill approval: several files created, changed or deleted under one folder)
are `TreeRecord` lines (`"type": "tree"`), in the same id sequence and the same prepared → commit /
abort protocol: each path's state before (a file's bytes, base64, and mode; a folder; a link's
target; absence) and after (type and SHA-256 only). The memory readers (`records`, `undoable`,
`undo`, `removed_entries`, `outcome`) never see them; `tree_records` and `tree_undoable` do. The
bytes kept in one tree record are capped (MAX_TREE_BYTES): beyond that the record keeps only the
hashes (`kept` False) and can't be undone. Who writes the tree settles its records in doubt (only
it knows how to read that tree): `commit` / `abort`.
"""

from __future__ import annotations

import base64
import contextvars
import hashlib
import json
import os
import stat
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

import platformdirs

from core.store.atomic import (PRIVATE_FILE, TooLarge, flock_within, fsync_dir, open_lock, open_regular, private_dir,
                               read_fd, read_regular)
from core.store.memory import MAX_FILE_BYTES, Op, StoreError, parse

if TYPE_CHECKING:  # pragma: no cover
    from core.store.memory import MemoryStore

JOURNAL = "journal.jsonl"
LOCK = "journal.lock"
LOCK_TIMEOUT = 10.0
PREPARED = "prepared"
TREE = "tree"  # the "type" of a folder-tree record line
MAX_TREE_BYTES = 4 << 20  # file bytes one tree record keeps for undo; beyond, it keeps hashes only
MAX_JOURNAL_BYTES = 1 << 30  # new journal bytes one read takes in; beyond, the journal can't be read
TAIL_BLOCK = 65_536  # the next id is read back from the journal's end in blocks of this size
TAIL_SCAN = 4 << 20  # new bytes (another process's writes) parsed forward; beyond, read back from the end

# A tag the next journal records carry (the pending queue sets its claim's name, so that after a
# crash it can tell from the journal whether the write it was making happened).
_TAG: contextvars.ContextVar[str | None] = contextvars.ContextVar("hmc_journal_tag", default=None)


def state_root() -> Path:
    return Path(platformdirs.user_state_path("hmc"))


def state_dir(home_root: Path) -> Path:
    """hmc's own folder for one Hermes home (profile folder): journal, review decisions. It belongs
    to the home's identity, not its path (core.store.home_id)."""
    from core.store.home_id import state_folder

    return state_folder(state_root(), Path(home_root))


def claim_state_dir(home_root: Path) -> Path:
    """`state_dir`, made the home's own before hmc writes there (core.store.home_id.claim)."""
    from core.store.home_id import claim

    return claim(state_root(), Path(home_root))


def private_state_folder(folder: str | Path) -> Path:
    """Create `folder` 0700 — and, when it lies in hmc's state tree, every folder from the state
    root down to it. Every writer of a file under the state tree calls this first. Raises OSError."""
    folder = Path(folder)
    root = state_root()
    return private_dir(folder, up_to=root if root == folder or root in folder.parents else None)


@contextmanager
def tagged(tag: str) -> Iterator[None]:
    """Journal records written inside this block carry `tag`."""
    token = _TAG.set(tag)
    try:
        yield
    finally:
        _TAG.reset(token)


@dataclass(frozen=True)
class Record:
    id: int
    ts: float
    target: str
    path: str
    action: str
    detail: str
    before: str
    after: str
    undoes: int | None = None
    tag: str | None = None

    @property
    def removed(self) -> list[str]:
        after = set(parse(self.after))
        return [e for e in parse(self.before) if e not in after]


_FIELDS = {f.name for f in fields(Record)}


@dataclass(frozen=True)
class RemovedEntry:
    text: str
    target: str
    ts: float
    action: str
    record_id: int


@dataclass(frozen=True)
class PathState:
    """One path's state in a tree record: "absent", "file" (sha256, mode, and — in a before-state
    that keeps them — its bytes, base64 in `b64`), "dir" (mode), "link" (target) or "other" (a FIFO,
    a socket…). The bytes are decoded only when asked for (`data`): parsing the journal stays cheap."""

    type: str
    mode: int | None = None
    sha256: str | None = None
    b64: str | None = None
    target: str | None = None

    @classmethod
    def file(cls, data: bytes, mode: int | None = None, keep: bool = True) -> "PathState":
        return cls("file", mode, hashlib.sha256(data).hexdigest(),
                   base64.b64encode(data).decode("ascii") if keep else None)

    @property
    def data(self) -> bytes | None:
        """The file's bytes, checked against its hash (ValueError when they don't match)."""
        if self.b64 is None:
            return None
        data = base64.b64decode(self.b64.encode("ascii"), validate=True)
        if hashlib.sha256(data).hexdigest() != self.sha256:
            raise ValueError("the bytes in hmc's journal don't match their hash")
        return data

    def same(self, other: "PathState") -> bool:
        """The same content: type, and a file's hash or a link's target (modes aside)."""
        if self.type != other.type or self.type == "other":
            return False
        if self.type == "file":
            return self.sha256 is not None and self.sha256 == other.sha256
        if self.type == "link":
            return self.target == other.target
        return True

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for key in ("mode", "sha256", "b64", "target"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out

    @classmethod
    def from_json(cls, obj: Any) -> "PathState":
        if not isinstance(obj, dict) or obj.get("type") not in ("absent", "file", "dir", "link", "other"):
            raise ValueError("not a path state")
        mode, sha, b64, target = obj.get("mode"), obj.get("sha256"), obj.get("b64"), obj.get("target")
        if mode is not None and (not isinstance(mode, int) or isinstance(mode, bool)):
            raise ValueError("bad mode")
        if any(v is not None and not isinstance(v, str) for v in (sha, b64, target)):
            raise ValueError("bad field")
        if b64 is not None and (sha is None or not b64.isascii()):
            raise ValueError("bytes without a hash")
        return cls(obj["type"], mode, sha, b64, target)


@dataclass(frozen=True)
class PathChange:
    path: str  # relative to the record's root, posix
    before: PathState
    after: PathState


@dataclass(frozen=True)
class TreeRecord:
    """A write of several paths under one folder (`root`), e.g. a skill approval under skills/.
    `scope` is the folder (relative to root) the write was for; `kept` False: the before-bytes were
    over MAX_TREE_BYTES and aren't in the journal (the write can't be undone)."""

    id: int
    ts: float
    subsystem: str
    root: str
    scope: str
    action: str
    detail: str
    changes: tuple[PathChange, ...]
    kept: bool = True
    undoes: int | None = None
    tag: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"type": TREE, "id": self.id, "ts": self.ts, "subsystem": self.subsystem, "root": self.root,
                "scope": self.scope, "action": self.action, "detail": self.detail, "kept": self.kept,
                "undoes": self.undoes, "tag": self.tag,
                "changes": [{"path": c.path, "before": c.before.to_json(), "after": c.after.to_json()}
                            for c in self.changes]}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "TreeRecord":
        rid, ts, undoes = obj.get("id"), obj.get("ts"), obj.get("undoes")
        if not isinstance(rid, int) or isinstance(rid, bool) or not isinstance(ts, (int, float)) \
                or undoes is not None and (not isinstance(undoes, int) or isinstance(undoes, bool)):
            raise ValueError("bad id")
        texts = [obj.get(k) for k in ("subsystem", "root", "scope", "action", "detail")]
        tag = obj.get("tag")
        if not all(isinstance(t, str) for t in texts) or tag is not None and not isinstance(tag, str) \
                or not isinstance(obj.get("changes"), list) or not isinstance(obj.get("kept", True), bool):
            raise ValueError("bad field")
        changes = []
        for c in obj["changes"]:
            if not isinstance(c, dict) or not isinstance(c.get("path"), str):
                raise ValueError("bad change")
            changes.append(PathChange(c["path"], PathState.from_json(c.get("before")),
                                      PathState.from_json(c.get("after"))))
        return cls(rid, float(ts), *texts, tuple(changes), obj.get("kept", True), undoes, tag)


@dataclass(frozen=True)
class Journal:
    """The parsed journal: committed records, and prepared ones still in doubt (oldest first);
    tree records (skill approvals) apart from the memory records."""

    records: tuple[Record, ...] = ()
    in_doubt: tuple[Record, ...] = ()
    aborted: frozenset[int] = frozenset()
    last_id: int = 0
    trees: tuple[TreeRecord, ...] = ()
    trees_in_doubt: tuple[TreeRecord, ...] = ()


def _line(data: dict[str, Any]) -> bytes:
    """One journal line: ASCII JSON that reads back as exactly `data` (or StoreError, nothing written)."""
    try:
        text = json.dumps(data, ensure_ascii=True, allow_nan=False, separators=(", ", ": "))
        ok = json.loads(text) == data
    except (ValueError, TypeError, RecursionError) as exc:
        raise StoreError(f"can't put this write in hmc's history journal ({exc}); nothing was written") from None
    if not ok:
        raise StoreError("can't put this write in hmc's history journal (it doesn't read back); nothing was written")
    return text.encode("ascii") + b"\n"


class _Parser:
    """Reads journal lines as they come (the journal only grows: each read parses only what is new)."""

    def __init__(self) -> None:
        self.prepared: dict[int, Record] = {}
        self.committed: dict[int, Record] = {}
        self.tree_prepared: dict[int, TreeRecord] = {}
        self.tree_committed: dict[int, TreeRecord] = {}
        self.commits: set[int] = set()
        self.aborts: set[int] = set()
        self.open: dict[int, Record] = {}  # prepared memory records with no commit or abort yet
        self.last = 0
        self.offset = 0  # bytes consumed: up to the end of the last complete line
        self._result: Journal | None = Journal()

    def feed(self, data: bytes) -> None:
        """Parse the complete lines of `data` (which starts at `offset`); a torn end waits."""
        end = data.rfind(b"\n")
        if end < 0:
            return
        for raw in data[:end].split(b"\n"):
            self._line(raw)
        self.offset += end + 1
        self._result = None

    def _line(self, raw: bytes) -> None:
        if not raw.strip():
            return
        try:
            obj = json.loads(raw.decode("utf-8", errors="replace"))
        except (ValueError, RecursionError):
            return
        if not isinstance(obj, dict):
            return
        if "commit" in obj or "abort" in obj:
            ref = obj.get("commit", obj.get("abort"))
            if isinstance(ref, int) and not isinstance(ref, bool):
                (self.commits if "commit" in obj else self.aborts).add(ref)
                self.open.pop(ref, None)
                self.last = max(self.last, ref)
            return
        state = obj.pop("state", None)
        rec: Record | TreeRecord
        if obj.get("type") == TREE:
            try:
                rec = TreeRecord.from_json(obj)
            except (ValueError, TypeError):
                return
            prepared, committed = self.tree_prepared, self.tree_committed
        else:
            try:
                rec = Record(**{k: v for k, v in obj.items() if k in _FIELDS})
            except TypeError:
                return
            if not isinstance(rec.id, int) or isinstance(rec.id, bool):
                return
            prepared, committed = self.prepared, self.committed
        self.last = max(self.last, rec.id)
        if state == PREPARED:
            prepared[rec.id] = rec
            if prepared is self.prepared and rec.id not in self.commits and rec.id not in self.aborts:
                self.open[rec.id] = rec  # (kept as lines come: a write asks for these every time)
        elif state is None:
            committed[rec.id] = rec

    def _settled(self, prepared: dict, committed: dict) -> tuple[tuple, tuple]:
        """(committed records, records in doubt), oldest first."""
        done = dict(committed)
        done.update((rid, rec) for rid, rec in prepared.items() if rid in self.commits)
        doubt = tuple(r for rid, r in sorted(prepared.items()) if rid not in self.commits and rid not in self.aborts)
        return tuple(r for _, r in sorted(done.items())), doubt

    def result(self) -> Journal:
        if self._result is None:
            records, doubt = self._settled(self.prepared, self.committed)
            trees, tree_doubt = self._settled(self.tree_prepared, self.tree_committed)
            self._result = Journal(records, doubt, frozenset(self.aborts), self.last, trees, tree_doubt)
        return self._result

    @property
    def any_record(self) -> bool:
        return bool(self.committed or self.prepared or self.tree_committed or self.tree_prepared)


def parse_journal(data: bytes) -> Journal:
    """Every complete line that parses; a torn or foreign line is skipped."""
    parser = _Parser()
    parser.feed(data if data.endswith(b"\n") else data + b"\n")
    return parser.result()


class History:
    def __init__(self, home_root: Path, clock: Callable[[], float] = time.time, folder: Path | None = None):
        """`folder`: keep the journal there (a scratch home's), not in the home's state folder."""
        self.home_root = None if folder is not None else Path(home_root)
        self._at(folder if folder is not None else state_dir(home_root))
        self.clock = clock
        self.lock_timeout = LOCK_TIMEOUT
        # the parsed journal so far, by file identity: the UI asks often, the journal only grows
        self._lock = threading.Lock()
        self._parser: _Parser | None = None
        self._inode: tuple[int, int] | None = None
        self.problem: str | None = None  # why the journal couldn't be read, at the last read
        self._tail: tuple[tuple[int, int], int, int] | None = None  # (file, size, last id) after our last append

    def _at(self, folder: Path) -> None:
        self.folder = folder
        self.path = self.folder / JOURNAL
        self.lock_path = self.folder / LOCK

    def _claim(self) -> None:
        """Before a write: the home's own folder (core.store.home_id), read anew if it changed."""
        if self.home_root is None:
            return
        folder = claim_state_dir(self.home_root)
        if folder != self.folder:
            with self._lock:
                self._at(folder)
                self._parser, self._inode, self._tail = None, None, None

    # -- reading -------------------------------------------------------------------------------

    def journal(self) -> Journal:
        """The journal as it is now (only the lines added since the last call are parsed). One that
        can't be read (a FIFO or folder in its place, unreadable, over MAX_JOURNAL_BYTES) reads as
        empty, and `problem` says why."""
        parser = self._read()
        return parser.result() if parser is not None else Journal()

    def _read(self) -> "_Parser | None":
        """The parser caught up with the journal (None: it can't be read; `problem` says why)."""
        with self._lock:
            try:
                fd = open_regular(self.path)
                try:
                    st = os.fstat(fd)
                    parser = self._parser
                    if parser is None or self._inode != (st.st_dev, st.st_ino) or st.st_size < parser.offset:
                        parser, self._inode = _Parser(), (st.st_dev, st.st_ino)  # new or rewritten file
                    if st.st_size > parser.offset:
                        if st.st_size - parser.offset > MAX_JOURNAL_BYTES:
                            raise TooLarge(self.path, st.st_size, MAX_JOURNAL_BYTES)
                        os.lseek(fd, parser.offset, os.SEEK_SET)
                        parser.feed(read_fd(fd, st.st_size - parser.offset, self.path, head=True))
                    self._parser = parser
                finally:
                    os.close(fd)
            except OSError as exc:
                self._parser, self._inode = None, None
                self.problem = None if isinstance(exc, FileNotFoundError) else (
                    f"hmc's history journal can't be read ({_why(exc)})")
                return None
            self.problem = None
            return self._parser

    def records(self) -> list[Record]:
        """All committed records, oldest first; a torn last line (crash mid-append) is skipped."""
        return list(self.journal().records)

    def in_doubt(self) -> list[Record]:
        """Prepared records with no commit or abort (a writer killed mid-write), oldest first. Every
        write asks (to settle them first): kept as the lines are parsed, never re-derived from all."""
        parser = self._read()
        if parser is None:
            return []
        with self._lock:
            return [rec for _, rec in sorted(parser.open.items())]

    # -- writing -------------------------------------------------------------------------------

    @contextmanager
    def _locked(self) -> Iterator[int]:
        """The per-home journal lock; yields a descriptor of the journal opened for appending."""
        self._claim()
        try:
            private_state_folder(self.folder)
            lock = open_lock(self.lock_path)
        except OSError as exc:
            raise StoreError(f"can't open hmc's history journal ({_why(exc)}); nothing was written") from None
        try:
            try:
                flock_within(lock, self.lock_timeout, poll=0.01)
            except OSError as exc:
                raise StoreError(f"hmc's history journal is busy ({_why(exc)}); nothing was written") from None
            _private(lock)
            created = not os.path.lexists(self.path)
            try:
                fd = open_regular(self.path, follow_symlinks=False, write=True, create=True)
            except OSError as exc:
                raise StoreError(f"can't open hmc's history journal ({_why(exc)}); nothing was written") from None
            try:
                _private(fd)
                if created:
                    fsync_dir(self.folder)
                yield fd
            finally:
                os.close(fd)
        finally:
            os.close(lock)  # closing releases the flock

    def _append(self, fd: int, line: bytes, sync: bool = True) -> None:
        """Append one line (after a newline if the last line is torn), fsynced unless `sync` is
        False. Raises OSError."""
        size = os.fstat(fd).st_size
        if size:
            os.lseek(fd, size - 1, os.SEEK_SET)
            if os.read(fd, 1) != b"\n":
                line = b"\n" + line
        view = memoryview(line)
        while view:
            view = view[os.write(fd, view):]
        if sync:
            os.fsync(fd)

    def _append_locked(self, fd: int, line: bytes, start: int, sync: bool = True) -> None:
        try:
            self._append(fd, line, sync)
        except OSError as exc:
            try:  # leave no half line behind
                os.ftruncate(fd, start)
                os.fsync(fd)
            except OSError:
                pass
            raise StoreError(f"can't write hmc's history journal ({_why(exc)}); nothing was written") from None

    def _last_id(self, fd: int) -> int:
        """The highest id in the journal (ids only grow, so the newest record line holds it). Never
        a read of the whole journal: the id this History appended last when the file hasn't grown
        since; else the parsed journal caught up with what was added since it was read; else a scan
        back from the end to the last complete record line (the size of that line, however large)."""
        st = os.fstat(fd)
        key = (st.st_dev, st.st_ino)
        tail = self._tail
        if tail is not None and tail[:2] == (key, st.st_size):
            return tail[2]
        with self._lock:
            parser = self._parser
            if parser is not None and self._inode == key and parser.offset <= st.st_size \
                    and st.st_size - parser.offset <= TAIL_SCAN:
                parser.feed(_read_range(fd, parser.offset, st.st_size - parser.offset))
                last = parser.last
            else:
                last = _scan_last_id(fd, st.st_size)
        self._tail = (key, st.st_size, last)
        return last

    def _appended(self, fd: int, before: tuple[int, int, int] | None, last: int) -> None:
        """Remember the id after an append that started from the remembered size (`before`)."""
        st = os.fstat(fd)
        if before is not None and before[:2] == (self._tail or (None, None))[:2]:
            self._tail = ((st.st_dev, st.st_ino), st.st_size, max(before[2], last))
        else:
            self._tail = None

    def _write_record(self, target: str, path: Path, before: str, after: str, action: str, detail: str,
                      undoes: int | None, state: str | None) -> Record:
        with self._locked() as fd:
            rec = Record(id=self._last_id(fd) + 1, ts=float(self.clock()), target=target, path=str(path),
                         action=action, detail=detail, before=before, after=after, undoes=undoes, tag=_TAG.get())
            data = asdict(rec)
            if state is not None:
                data["state"] = state
            line = _line(data)
            known = self._tail
            self._append_locked(fd, line, os.fstat(fd).st_size)
            self._appended(fd, known, rec.id)
        return rec

    def _mark(self, kind: str, rid: int) -> bool:
        """Append a commit or abort line for record `rid`; False when it couldn't be written.
        Not fsynced: one lost in a crash leaves the record in doubt, and `resolve` settles it from
        the file exactly as the line would have."""
        try:
            with self._locked() as fd:
                size = os.fstat(fd).st_size
                known = self._tail if self._tail is not None and self._tail[1] == size else None
                self._append_locked(fd, _line({kind: rid}), size, sync=False)
                self._appended(fd, known, rid)
            return True
        except StoreError:
            return False

    def record(self, target: str, path: Path, before: str, after: str, action: str, detail: str,
               undoes: int | None = None) -> Record:
        """Journal a write already made (one committed line). Raises StoreError, nothing written."""
        return self._write_record(target, path, before, after, action, detail, undoes, None)

    @contextmanager
    def writing(self, target: str, path: Path, before: str, after: str, action: str, detail: str,
                undoes: int | None = None) -> Iterator[Record]:
        """Journal the write the block makes: prepared before, committed if the block succeeds,
        aborted if it raises. Call it holding the store's lock, with `before` read under it.

        Raises StoreError before the block runs when the journal can't take the record (so no write
        is made that the journal can't hold). A commit that can't be written after a successful
        block leaves the record in doubt, and the next write of the file resolves it.
        """
        self.resolve(path, before)
        rec = self._write_record(target, path, before, after, action, detail, undoes, PREPARED)
        try:
            yield rec
        except BaseException:
            self._mark("abort", rec.id)
            raise
        self._mark("commit", rec.id)

    def resolve(self, path: str | Path, current: str | None) -> list[int]:
        """Settle the in-doubt records of one file from its text now (call it under the file's
        lock): a record whose `after` is the text there happened (committed); the others didn't
        (aborted). `current` None (the file can't be read) settles nothing. Returns ids committed."""
        if current is None:
            return []
        committed = []
        for rec in self.in_doubt():
            if rec.path != str(path):
                continue
            if rec.after == current:
                if self._mark("commit", rec.id):
                    committed.append(rec.id)
            else:
                self._mark("abort", rec.id)
        return committed

    def outcome(self, tag: str) -> tuple[str, Record | None]:
        """What the journal knows of the writes tagged `tag`: ("committed", rec), ("in-doubt", rec)
        or ("none", None) (no write happened, or it was aborted)."""
        journal = self.journal()
        for rec in reversed(journal.records):
            if rec.tag == tag:
                return "committed", rec
        for rec in reversed(journal.in_doubt):
            if rec.tag == tag:
                return "in-doubt", rec
        return "none", None

    # -- folder-tree records (skill approvals) ------------------------------------------------

    def tree_records(self, subsystem: str | None = None) -> list[TreeRecord]:
        """Committed tree records (of `subsystem`), oldest first."""
        return [r for r in self.journal().trees if subsystem is None or r.subsystem == subsystem]

    def tree_in_doubt(self, subsystem: str | None = None) -> list[TreeRecord]:
        """Prepared tree records with no commit or abort (a writer killed mid-write)."""
        return [r for r in self.journal().trees_in_doubt if subsystem is None or r.subsystem == subsystem]

    def prepare_tree(self, subsystem: str, root: str | Path, scope: str, action: str, detail: str,
                     changes: "list[PathChange] | tuple[PathChange, ...]", *, kept: bool = True,
                     undoes: int | None = None) -> TreeRecord:
        """Append a prepared tree record (fsynced) before the tree is written; the writer then calls
        `commit(id)` or `abort(id)`. Raises StoreError, nothing written, when the journal can't take it."""
        with self._locked() as fd:
            rec = TreeRecord(self._last_id(fd) + 1, float(self.clock()), subsystem, str(root), scope, action,
                             detail, tuple(changes), kept, undoes, _TAG.get())
            data = rec.to_json()
            data["state"] = PREPARED
            known = self._tail
            self._append_locked(fd, _line(data), os.fstat(fd).st_size)
            self._appended(fd, known, rec.id)
        return rec

    def commit(self, rid: int) -> bool:
        """Mark a prepared record as done; False when the line couldn't be written (it stays in doubt)."""
        return self._mark("commit", rid)

    def abort(self, rid: int) -> bool:
        """Mark a prepared record as not done; False when the line couldn't be written."""
        return self._mark("abort", rid)

    def tree_undoable(self, subsystem: str) -> TreeRecord | None:
        """The newest tree write of `subsystem` not yet undone (undos themselves are not undone)."""
        records = self.tree_records(subsystem)
        undone = {r.undoes for r in records if r.undoes is not None}
        for rec in reversed(records):
            if rec.undoes is None and rec.id not in undone:
                return rec
        return None

    # -- using it ------------------------------------------------------------------------------

    def undoable(self, target: str | None = None) -> Record | None:
        """The newest write not yet undone (undos themselves are not undone by undo). A write left
        in doubt (hmc killed between the file's replace and the journal's commit) whose text is in
        its file now did happen, so it counts; undo's own write then settles it as committed."""
        records = sorted([*self.records(), *self._landed()], key=lambda r: r.id)
        undone = {r.undoes for r in records if r.undoes is not None}
        for rec in reversed(records):
            if rec.undoes is None and rec.id not in undone and (target is None or rec.target == target):
                return rec
        return None

    def _landed(self) -> list[Record]:
        """The records in doubt whose `after` is their file's text now (read without the lock: the
        write that settles them takes it and checks again)."""
        out = []
        for rec in self.in_doubt():
            try:
                now = read_regular(rec.path, MAX_FILE_BYTES).decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if now == rec.after:
                out.append(rec)
        return out

    def undo(self, stores: dict[str, "MemoryStore"], target: str | None = None) -> Record:
        """Restore the text before hmc's last write — only if the file still holds what hmc wrote."""
        rec = self.undoable(target)
        if rec is None:
            raise StoreError(f"{self.problem}: nothing can be undone" if self.problem else "nothing to undo")
        stores[rec.target].restore_text(rec.after, rec.before, "undo", f"undo #{rec.id} ({rec.action})", undoes=rec.id)
        return rec

    def removed_entries(self, current: dict[str, list[str]] | None = None) -> list[RemovedEntry]:
        """Entries hmc removed or overwrote, newest first, minus those back in the store now."""
        seen: set[tuple[str, str]] = set()
        out = []
        for rec in reversed(self.records()):
            for text in rec.removed:
                key = (rec.target, text)
                if key in seen or (current and text in current.get(rec.target, [])):
                    continue
                seen.add(key)
                out.append(RemovedEntry(text, rec.target, rec.ts, rec.action, rec.id))
        return out

    def restore(self, stores: dict[str, "MemoryStore"], entry: RemovedEntry, *, force: bool = False):
        """Add a removed entry back (limit and scanner apply as for any add)."""
        return stores[entry.target].apply([Op("add", content=entry.text)], force=force, action="restore")


def _private(fd: int) -> None:
    """Make an open file of hmc's state 0600 (one created under another umask, or by an older hmc)."""
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) != PRIVATE_FILE:
            os.fchmod(fd, PRIVATE_FILE)
    except OSError:
        pass


def _read_range(fd: int, offset: int, size: int) -> bytes:
    """`size` bytes of the file from `offset` (fewer at its end)."""
    chunks = []
    while size > 0:
        chunk = os.pread(fd, min(size, 1 << 20), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _scan_last_id(fd: int, size: int) -> int:
    """The highest id from the journal's end back to its last record line (damaged lines are
    passed over; the last line counts as the full parse counts it, newline or not); the whole file
    only when it holds no record line at all."""
    parser = _Parser()
    pos = size
    rest = b""  # the end of a line whose start is further back
    while pos > 0:
        start = max(0, pos - TAIL_BLOCK)
        data = _read_range(fd, start, pos - start) + rest
        pos = start
        if pos > 0:
            cut = data.find(b"\n")
            if cut < 0:
                rest = data  # one long line so far: read further back
                continue
            rest, data = data[:cut], data[cut + 1:]
        for raw in reversed(data.split(b"\n")):  # a torn last line counts when it parses (a whole
            # record whose newline didn't land: the next append puts that newline first)
            parser._line(raw)
            if parser.any_record:
                return parser.last
    return parser.last


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)
