"""hmc's own journal of every write it made: undo, and restoring removed entries.

One JSON line per write (target, time, action, before and after text), appended with fsync under
`platformdirs.user_state_path("hmc")/homes/<home-id>/` — never inside the Hermes home.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import platformdirs

from core.store.memory import Op, StoreError, parse

if TYPE_CHECKING:  # pragma: no cover
    from core.store.memory import MemoryStore

JOURNAL = "journal.jsonl"


def state_root() -> Path:
    return Path(platformdirs.user_state_path("hmc"))


def state_dir(home_root: Path) -> Path:
    """hmc's own folder for one Hermes home (profile folder): journal, review decisions."""
    resolved = str(Path(home_root).resolve())
    slug = Path(resolved).name.strip(".") or "home"
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return state_root() / "homes" / f"{slug}-{digest}"


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

    @property
    def removed(self) -> list[str]:
        after = set(parse(self.after))
        return [e for e in parse(self.before) if e not in after]


@dataclass(frozen=True)
class RemovedEntry:
    text: str
    target: str
    ts: float
    action: str
    record_id: int


class History:
    def __init__(self, home_root: Path, clock: Callable[[], float] = time.time):
        self.folder = state_dir(home_root)
        self.path = self.folder / JOURNAL
        self.clock = clock
        # parsed journal, keyed by the file's stat: the journal only grows, and the UI asks often
        self._lock = threading.Lock()
        self._cache: tuple[object, list[Record]] | None = None

    def _token(self) -> object:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def records(self) -> list[Record]:
        """All records, oldest first; a torn last line (crash mid-append) is skipped."""
        token = self._token()
        with self._lock:
            if self._cache is not None and self._cache[0] == token:
                return list(self._cache[1])
        parsed = self._parse() if token is not None else []
        with self._lock:
            self._cache = (token, parsed)
        return list(parsed)

    def _parse(self) -> list[Record]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except (FileNotFoundError, UnicodeDecodeError):
            return []
        except OSError:
            return []
        out = []
        for line in lines:
            try:
                data = json.loads(line)
                out.append(Record(**data))
            except (ValueError, TypeError):
                continue
        return out

    def record(self, target: str, path: Path, before: str, after: str, action: str, detail: str,
               undoes: int | None = None) -> Record:
        token = self._token()
        with self._lock:
            cached = self._cache[1] if self._cache is not None and self._cache[0] == token else None
        last_id = (cached[-1].id if cached else 0) if cached is not None else self._last_id()
        rec = Record(
            id=last_id + 1, ts=self.clock(), target=target, path=str(path),
            action=action, detail=detail, before=before, after=after, undoes=undoes,
        )
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a+", encoding="utf-8") as fh:
                fh.seek(0, os.SEEK_END)
                torn = fh.tell() > 0 and not self._ends_with_newline()
                fh.write(("\n" if torn else "") + json.dumps(asdict(rec), ensure_ascii=False) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            raise StoreError(f"can't write hmc's history journal ({exc.strerror or exc}); nothing was written") from None
        if cached is not None:
            with self._lock:
                self._cache = (self._token(), cached + [rec])
        return rec

    def _last_id(self) -> int:
        """The newest record's id, from the end of the journal (no need to parse all of it)."""
        try:
            with open(self.path, "rb") as fh:
                fh.seek(0, os.SEEK_END)
                size = fh.tell()
                fh.seek(max(0, size - 65536))
                tail = fh.read().decode("utf-8", errors="replace").splitlines()
        except OSError:
            return 0
        for line in reversed(tail):
            try:
                return int(json.loads(line)["id"])
            except (ValueError, KeyError, TypeError):
                continue
        records = self.records()  # a record longer than the tail: read it all
        return records[-1].id if records else 0

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as fh:
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) == b"\n"

    def undoable(self, target: str | None = None) -> Record | None:
        """The newest write not yet undone (undos themselves are not undone by undo)."""
        records = self.records()
        undone = {r.undoes for r in records if r.undoes is not None}
        for rec in reversed(records):
            if rec.undoes is None and rec.id not in undone and (target is None or rec.target == target):
                return rec
        return None

    def undo(self, stores: dict[str, "MemoryStore"], target: str | None = None) -> Record:
        """Restore the text before hmc's last write — only if the file still holds what hmc wrote."""
        rec = self.undoable(target)
        if rec is None:
            raise StoreError("nothing to undo")
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
