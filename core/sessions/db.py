"""Opening Hermes's state.db strictly read-only, and probing what schema it has.

Read-only without side effects
------------------------------
``file:…?mode=ro`` alone is not enough: on a WAL database whose ``-wal``/``-shm`` files are
absent (Hermes not running, clean shutdown), SQLite's read-only connection *creates* both
sidecars and, being read-only, can't remove them at close. So:

- sidecars present (Hermes is running, or crashed): ``mode=ro`` — WAL readers see every
  committed write and never block the writer; nothing new is created;
- WAL database with no sidecars: ``mode=ro&immutable=1`` — nothing is created, no locks are
  taken. Before every query we check whether a ``-wal`` file has appeared (Hermes started);
  if so, every connection is reopened in plain ``mode=ro``, so new writes are seen. An
  immutable connection trusts the file never to change, so we also compare the file's
  identity (inode, size, mtime, and the ``-wal``'s if any) with what it was at opening: a
  writer that came and went between two queries (its sidecars gone again) changed it, and
  every connection is reopened;
- rollback-journal (DELETE mode) databases: ``mode=ro`` (readers create no files);
- ``mode=ro`` refused (read-only folder, unwritable ``-shm``): fall back to ``immutable=1``;
  but when a non-empty ``-wal`` sits there without its ``-shm`` (a read-only copy of a home taken
  while Hermes ran), ``immutable=1`` would skip the committed rows the log holds. Such a file is
  opened with the ``unix-none`` VFS in exclusive locking mode instead: SQLite then keeps the
  WAL's index in its own memory, needs no ``-shm`` and takes no lock, and every committed row is
  read. Nobody can be writing it (a writer has a ``-shm``), and the file's identity is compared
  before every query as for an immutable snapshot.

The database file itself is never opened for writing; ``PRAGMA query_only`` guards the rest.
"""

from __future__ import annotations

import math
import os
import sqlite3
import stat
import threading
import urllib.parse
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from core.store.atomic import read_regular

SQLITE_MAGIC = b"SQLite format 3\x00"
REQUIRED_MESSAGE_COLUMNS = ("id", "session_id", "role", "content", "timestamp")
REQUIRED_SESSION_COLUMNS = ("id", "source", "started_at")


class SessionsError(Exception):
    """Base class: ``str(err)`` is a one-line message meant for people."""


class DatabaseError(SessionsError):
    """state.db can't be used: ``kind`` is missing, unreadable, corrupt, locked or schema."""

    def __init__(self, message: str, kind: str = "unreadable", detail: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.detail = detail


def as_epoch(value: object) -> float | None:
    """A timestamp column's value as Unix seconds, whatever was stored; None when it isn't one.

    Hermes stores REAL seconds, but a hand-edited or foreign row may hold text: a number
    (``'1792000000.5'``), an ISO date-time (``'2026-10-20T10:00:00'``, local time when it has no
    zone), or anything else (``'garbage'``, NaN, 1e400), which is no time at all.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        out = float(value)
    elif isinstance(value, (str, bytes)):
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        text = text.strip()
        if not text or len(text) > 64:
            return None
        try:
            out = float(text)
        except ValueError:
            try:
                moment = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
                out = moment.timestamp()
            except (ValueError, OverflowError, OSError):
                return None
    else:
        return None
    if not math.isfinite(out) or abs(out) > 1e11:  # beyond year ~5000: not a time
        return None
    return out


def epoch_sql(column: str) -> str:
    """SQL for `column` as Unix seconds: numbers as stored, text through as_epoch (NULL if not a time)."""
    return f"(CASE WHEN typeof({column}) = 'text' THEN hmc_epoch({column}) ELSE {column} END)"


def present(path: str | Path) -> bool:
    """Something is at `path`, readable or not: False only when nothing is there (or a link points
    to nothing). `Path.exists()` is False for a symlink loop or a folder hmc may not enter too,
    which would report an unreadable state.db as missing."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return True
    return True


def _display(path: Path) -> str:
    home = os.path.expanduser("~")
    text = str(path)
    if home and home != "/" and text.startswith(home + os.sep):
        return "~" + text[len(home) :]
    return text


def translate_error(exc: BaseException, path: Path) -> DatabaseError:
    """Turn an sqlite3 exception into a :class:`DatabaseError` people can act on."""
    where = _display(path)
    detail = str(exc)
    low = detail.lower()
    if "locked" in low or "busy" in low:
        return DatabaseError(
            f"{where} is locked by another process (Hermes may be writing); try again in a moment.",
            "locked",
            detail,
        )
    if "not a database" in low or "malformed" in low or "corrupt" in low or "disk image" in low:
        return DatabaseError(f"{where} is damaged or not an SQLite database.", "corrupt", detail)
    if "no such table" in low or "no such column" in low:
        return DatabaseError(
            f"{where} doesn't have the session tables this version of hmc reads.", "schema", detail
        )
    if "unable to open" in low or "readonly" in low or "permission" in low:
        return DatabaseError(f"Can't open {where} for reading (check its permissions).", "unreadable", detail)
    return DatabaseError(f"Can't read {where}: {detail}.", "unreadable", detail)


@dataclass(frozen=True)
class Schema:
    """What a given state.db holds (columns were added over Hermes's versions)."""

    version: int | None
    session_columns: frozenset[str]
    message_columns: frozenset[str]
    fts: str  # "none" | "external" (oldest) | "inline" (schemas 11-22) | "current" (23+)
    fts_columns: tuple[str, ...]
    trigram: bool
    has_state_meta: bool
    session_id_index: str | None  # index on (session_id[, id]): windows by id range
    session_ts_index: str | None  # index on (session_id, timestamp): older Hermes

    @property
    def layout_label(self) -> str:
        return {
            "none": "no full-text index",
            "external": "FTS5 (oldest layout)",
            "inline": "FTS5 + trigram (schemas 11-22)" if self.trigram else "FTS5 (schemas 11-22)",
            "current": "FTS5 + trigram (current)" if self.trigram else "FTS5 (current)",
        }[self.fts]


def _fts_layout(sql: str | None) -> tuple[str, tuple[str, ...]]:
    if not sql:
        return "none", ()
    low = sql.lower()
    if "tool_name" in low:
        cols = tuple(c for c in ("content", "tool_name", "tool_calls") if c in low)
        return "current", cols
    if "content=" in low.replace(" ", "") and "content=''" not in low.replace(" ", ""):
        return "external", ("content",)
    return "inline", ("content",)


def probe(conn: sqlite3.Connection, path: Path) -> Schema:
    """Read the schema; raise DatabaseError(kind="schema") when it isn't a Hermes session db."""
    rows = conn.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
    objects = {name: (typ, sql) for typ, name, sql in rows}
    where = _display(path)
    missing = [t for t in ("sessions", "messages") if objects.get(t, ("",))[0] != "table"]
    if missing:
        if not objects:
            raise DatabaseError(f"{where} is empty: Hermes hasn't recorded any sessions in it.", "schema")
        raise DatabaseError(
            f"{where} has no {' or '.join(missing)} table: it isn't a Hermes session database "
            "(or is too old for hmc to read).",
            "schema",
        )

    def columns(table: str) -> frozenset[str]:
        return frozenset(r[1] for r in conn.execute(f"PRAGMA table_info({table})"))

    mcols, scols = columns("messages"), columns("sessions")
    lacking = [f"messages.{c}" for c in REQUIRED_MESSAGE_COLUMNS if c not in mcols]
    lacking += [f"sessions.{c}" for c in REQUIRED_SESSION_COLUMNS if c not in scols]
    if lacking:
        raise DatabaseError(
            f"{where} uses a schema hmc can't read (missing {', '.join(lacking)}).", "schema"
        )
    version = None
    if objects.get("schema_version", ("",))[0] == "table":
        try:
            row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
            version = int(row[0]) if row and row[0] is not None else None
        except (sqlite3.Error, ValueError, TypeError):
            version = None
    fts_sql = objects.get("messages_fts", ("", None))
    fts, fts_cols = _fts_layout(fts_sql[1] if fts_sql[0] == "table" else None)
    trigram = objects.get("messages_fts_trigram", ("", ""))[0] == "table" and fts != "none"

    sid_index = ts_index = None
    for row in conn.execute("PRAGMA index_list(messages)"):
        name, partial = row[1], row[4] if len(row) > 4 else 0
        if partial:
            continue
        cols = [r[2] for r in conn.execute(f"PRAGMA index_info({_ident(name)})")]
        if cols == ["session_id"] or cols[:2] == ["session_id", "id"]:
            sid_index = sid_index or name
        elif cols[:2] == ["session_id", "timestamp"]:
            ts_index = ts_index or name
    return Schema(
        version=version,
        session_columns=scols,
        message_columns=mcols,
        fts=fts,
        fts_columns=fts_cols,
        trigram=trigram,
        has_state_meta=objects.get("state_meta", ("",))[0] == "table",
        session_id_index=sid_index,
        session_ts_index=ts_index,
    )


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def file_stamp(path: str | Path, *, empty_log_counts: bool = True) -> tuple:
    """What changes when anything writes the database: inode, size and mtime of it and of its -wal.
    `empty_log_counts=False`: an empty -wal (a reader makes one and removes it again) counts as none."""
    out: list = []
    for log, name in ((False, str(path)), (True, f"{path}-wal")):
        try:
            st = os.stat(name)
        except OSError:
            out.append(None)
            continue
        out.append(None if log and not st.st_size and not empty_log_counts else
                   (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(out)


class ReadOnlyConnections:
    """One read-only connection per thread, reopened when the way to open changes."""

    def __init__(self, path: Path, timeout: float = 5.0) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[sqlite3.Connection] = []
        self._generation = 0
        self.immutable = False
        self._forced = False  # mode=ro was refused: stay immutable rather than retry every query
        self._stamp: tuple | None = None  # the files as they were when the immutable connections opened

    # -- file checks ---------------------------------------------------------
    def _sidecars(self) -> bool:
        return any(os.path.exists(f"{self.path}{s}") for s in ("-wal", "-shm"))

    def _file_stamp(self) -> tuple:
        return file_stamp(self.path)

    def _orphan_log(self) -> bool:
        """A non-empty -wal without its -shm: committed rows only the log holds."""
        try:
            return os.path.getsize(f"{self.path}-wal") > 0 and not os.path.exists(f"{self.path}-shm")
        except OSError:
            return False

    def _stale(self) -> bool:
        """True when an immutable snapshot may no longer match the file (a writer came, maybe went)."""
        if not self.immutable:
            return False
        if not self._forced and self._sidecars():
            return True  # Hermes started writing
        return self._stamp is not None and self._file_stamp() != self._stamp

    def _check_file(self) -> bool:
        """Validate the file; return True when its header says WAL journal mode."""
        where = _display(self.path)
        try:
            if not present(self.path):
                raise DatabaseError(
                    f"No session database at {where}: Hermes hasn't recorded sessions here yet.",
                    "missing",
                )
            if not stat.S_ISREG(os.stat(self.path).st_mode):  # a symlink loop raises here: can't read
                raise DatabaseError(f"{where} is not a file.", "unreadable")
            header = read_regular(self.path, 100, head=True)
        except PermissionError as exc:
            raise DatabaseError(f"Can't open {where} for reading (permission denied).", "unreadable", str(exc))
        except OSError as exc:
            raise DatabaseError(f"Can't read {where}: {exc.strerror or exc}.", "unreadable", str(exc))
        if not header:
            raise DatabaseError(f"{where} is empty: Hermes hasn't recorded any sessions in it.", "schema")
        if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
            raise DatabaseError(f"{where} is damaged or not an SQLite database.", "corrupt")
        return header[18] == 2 and header[19] == 2

    # -- connections ---------------------------------------------------------
    def _open(self, immutable: bool, *, private_log: bool = False) -> sqlite3.Connection:
        uri = f"file:{urllib.parse.quote(str(self.path.resolve()))}?mode=ro"
        if private_log:
            uri += "&vfs=unix-none"
        elif immutable:
            uri += "&immutable=1"
        conn = sqlite3.connect(uri, uri=True, timeout=self.timeout, check_same_thread=False)
        try:
            if private_log:  # before the first read: the WAL's index lives in this connection's memory
                conn.execute("PRAGMA locking_mode = EXCLUSIVE")
            conn.create_function("hmc_epoch", 1, as_epoch, deterministic=True)
            conn.execute("PRAGMA query_only = 1")
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except BaseException:
            conn.close()
            raise
        return conn

    def get(self) -> sqlite3.Connection:
        """This thread's connection (opened, or reopened after a writer appeared)."""
        if self._stale():
            self.reset()  # immutable snapshots would be stale: reopen (plain mode=ro if Hermes runs)
        conn = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "generation", -1) == self._generation:
            return conn
        if conn is not None:
            self._forget(conn)
        stamp = self._file_stamp()  # taken before opening: a change during the open is seen next time
        wal = self._check_file()
        immutable = wal and not self._sidecars()
        try:
            conn = self._open(immutable)
        except sqlite3.Error as exc:
            low = str(exc).lower()
            if immutable or not ("unable to open" in low or "readonly" in low or "read-only" in low):
                raise translate_error(exc, self.path) from None
            try:  # read-only folder or sidecars we can't use: read without locks
                conn = self._open(True, private_log=self._orphan_log())
                immutable = self._forced = True
            except sqlite3.Error:
                raise translate_error(exc, self.path) from None
        with self._lock:
            self.immutable = immutable
            self._stamp = stamp if immutable else None
            self._all.append(conn)
            self._local.conn = conn
            self._local.generation = self._generation
        return conn

    def _forget(self, conn: sqlite3.Connection) -> None:
        with self._lock:
            if conn in self._all:
                self._all.remove(conn)
        try:
            conn.close()
        except sqlite3.Error:  # pragma: no cover
            pass
        self._local.conn = None

    def reset(self) -> None:
        """Make every thread reopen its connection at its next query."""
        with self._lock:
            self._generation += 1
            self.immutable = False

    def close(self) -> None:
        with self._lock:
            conns, self._all = self._all, []
            self._generation += 1
        for conn in conns:
            try:
                conn.close()
            except sqlite3.Error:  # pragma: no cover - closing from another thread mid-query
                pass
        self._local.conn = None
