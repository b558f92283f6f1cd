"""The attribution's narrowed windows, kept between builds (core.timeline.attribution).

An outside write's window is narrowed by the sessions that started in it and what each loaded: a
window of thousands of sessions is tens of ms of SQL and prompt lookups, and it was read again on
every build, most of an update's cost. The answer depends only on those sessions, on what each one
loaded and on the release's rule for showing an entry in the prompt, so it is kept in
`<timeline cache>/<name>.windows` (next to the history cache, private, in hmc's cache frame: a torn
or edited file is never decoded) and used again only when:

- the file is this database's (path, device, inode), in this format, for the same release's rules;
- the window holds the same sessions: their count, the sum and the largest of their rowids, which
  SQLite reads from Hermes's own index on `sessions.started_at` (every release has it) without
  reading a row;
- no session in the window had a message since the file was written: a turn is what sets a
  session's prompt again (0.19's NULL prompt until it is built, a `/model` switch; HERMES-FORMATS.md
  §8, the same rule the loaded-memory summary relies on).

An answer that searched older prompts (a text older than its window: `first_loading`, a scan of
every stored prompt) depends on every session up to the window's end: it is kept under one more
check, the same print of all the sessions up to the latest such window (one pass over the index per
build that uses one). Each kept search still counts against the build's budget of searches
(attribution.MAX_LOOKBACKS), so a build with kept answers says exactly what a build without them
says; an answer cut short by that budget is not kept. A file that can't be read or written is
ignored: the windows are read again, as before.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sqlite3
import sys
from pathlib import Path
from typing import Callable, Iterable

from core.hmc_cache import frame, framed_body, hmc_cache
from core.store.atomic import private_dir, read_regular, write_private

VERSION = 2  # 2: answers that searched older prompts are kept too
MAX_BYTES = 16 * 1024 * 1024
RESAVE_AFTER_MESSAGES = 20_000  # a file this far behind is written again, so its check stays short
ALL: list = []  # the sessions with a message since are unknown: every window counts as touched


def windows_path(history_cache: Path) -> Path:
    return history_cache.with_name(history_cache.stem + ".windows")


def _digest(texts: Iterable[str]) -> str:
    h = hashlib.sha256()
    for text in sorted(texts):
        h.update(text.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()[:32]


def window_key(target: str, low: float, high: float, news: Iterable[str], olds: Iterable[str]) -> tuple:
    return (target, low, high, _digest(news), _digest(olds))


def sessions_print(conn: sqlite3.Connection, low: float | None, high: float) -> tuple:
    """(count, sum of rowids, largest rowid) of the sessions started in (low, high] (low None: every
    one up to high): what a kept window's sessions must still be (Hermes's index on started_at
    covers it)."""
    where, params = ("started_at <= ?", (high,)) if low is None else ("started_at > ? AND started_at <= ?", (low, high))
    row = conn.execute(f"SELECT count(*), total(rowid), max(rowid) FROM sessions WHERE {where}", params).fetchone()
    return (int(row[0]), float(row[1]), row[2] if isinstance(row[2], int) else -1)


def active_starts(conn: sqlite3.Connection, after_id: int) -> list:
    """The start of each session with a message after message `after_id` (read by id range: the
    planner would otherwise walk an index of every message for the DISTINCT)."""
    return [r[0] for r in conn.execute(
        "SELECT started_at FROM sessions WHERE id IN (SELECT session_id FROM messages NOT INDEXED WHERE id > ?)",
        (after_id,))]


class Windows:
    """The kept answers of one build: `get` a window's narrowed (low, high) and whether it searched
    older prompts, `put` a new one, `save` at the end. `read(fn)` runs fn(conn) on state.db (raising
    on any error). An entry: (low, high, its window's print, searched)."""

    def __init__(self, path: Path | None, key: list, read: Callable[[Callable], object]):
        self.path, self.key, self.read = path, key, read
        self.entries: dict[tuple, tuple] = {}
        self.upto: int | None = None  # the last message the kept windows were checked against (None: none kept)
        self.dirty = False
        self._prints: dict[tuple, tuple | None] = {}
        self._active: list | None = None
        self.prefix: tuple | None = None  # (up to, print of every session up to then): what searched answers need
        self._checked: set[tuple] = set()  # the entries this build checked or made
        if path is not None:
            self._load()

    def _load(self) -> None:
        try:
            checked = framed_body(read_regular(self.path, MAX_BYTES))
            if checked is None:
                return
            body = marshal.loads(checked[0])
        except (OSError, ValueError, EOFError, TypeError):
            return
        if not (isinstance(body, dict) and body.get("key") == self.key and isinstance(body.get("upto"), int)
                and isinstance(body.get("windows"), dict)):
            return
        self.upto = body["upto"]
        prefix = body.get("prefix")
        self.prefix = prefix if isinstance(prefix, tuple) and len(prefix) == 2 else None
        self.entries = {k: v for k, v in body["windows"].items()
                        if isinstance(k, tuple) and len(k) == 5 and isinstance(v, tuple) and len(v) == 4
                        and (self.prefix is not None or not v[3])}

    def _print(self, low: float | None, high: float) -> tuple | None:
        if (low, high) not in self._prints:
            try:
                self._prints[(low, high)] = self.read(lambda conn: sessions_print(conn, low, high))
            except Exception:  # noqa: BLE001 - a window that can't be checked isn't kept
                self._prints[(low, high)] = None
        return self._prints[(low, high)]

    def _touched(self, low: float, high: float) -> bool:
        """Whether a session started in (low, high] had a message since the file was written."""
        if self.upto is None:
            return False  # nothing was kept: every window was read in this build
        if self._active is None:
            try:
                self._active = [t for t in self.read(lambda conn: active_starts(conn, self.upto))
                                if isinstance(t, (int, float))]
            except Exception:  # noqa: BLE001 - unknown: no kept window is trusted
                self._active = ALL
        return self._active is ALL or any(low < t <= high for t in self._active)

    def _prefix_holds(self, high: float) -> bool:
        """Whether every session up to `high` is as when the searched answers were kept."""
        return (self.prefix is not None and high <= self.prefix[0]
                and self._print(None, self.prefix[0]) == self.prefix[1])

    def get(self, key: tuple) -> tuple[tuple, bool] | None:
        """((low, high) narrowed, whether it searched older prompts), or None: read it again."""
        kept = self.entries.get(key)
        if kept is None:
            return None
        _, low, high = key[:3]
        searched = kept[3]
        if kept[2] == self._print(low, high) and not self._touched(float("-inf") if searched else low, high) \
                and (not searched or self._prefix_holds(high)):
            self._checked.add(key)
            return (kept[0], kept[1]), searched
        del self.entries[key]
        self.dirty = True
        return None

    def put(self, key: tuple, result: tuple, searched: bool = False) -> None:
        sessions = self._print(key[1], key[2])
        if sessions is not None:
            self.entries[key] = (result[0], result[1], sessions, searched)
            self._checked.add(key)
            self.dirty = True

    def save(self, upto: int) -> None:
        """Written when something changed, or when the file is far behind the database (`upto`: the
        last message the build read; every window kept is checked against the sessions with a
        message since the file's own mark first)."""
        if self.path is None or not (self.dirty or self.upto is not None and upto - self.upto > RESAVE_AFTER_MESSAGES):
            return
        if self.upto is not None and upto != self.upto:  # what this build checked or made stands as of now
            for key in [k for k, v in self.entries.items()
                        if k not in self._checked and self._touched(float("-inf") if v[3] else k[1], k[2])]:
                del self.entries[key]
        # a searched answer is kept under a print taken now: only those this build checked or made
        self.entries = {k: v for k, v in self.entries.items() if not v[3] or k in self._checked}
        highs = [k[2] for k, v in self.entries.items() if v[3]]
        prefix = None
        if highs:
            printed = self._print(None, max(highs))
            if printed is None:
                self.entries = {k: v for k, v in self.entries.items() if not v[3]}
            else:
                prefix = (max(highs), printed)
        data = marshal.dumps({"key": self.key, "upto": upto, "windows": self.entries, "prefix": prefix})
        try:
            private_dir(self.path.parent, up_to=hmc_cache())
            write_private(self.path, frame(data) + data, durable=False)  # atomic; a lost file is rebuilt
        except OSError:
            pass


def file_key(db_path: Path, release: object) -> list | None:
    try:
        st = os.stat(db_path)
    except OSError:
        return None
    return [f"{VERSION}/{marshal.version}/{sys.version_info[0]}.{sys.version_info[1]}",
            str(Path(db_path).resolve()), st.st_dev, st.st_ino, repr(release)]
