"""MEMORY.md / USER.md: Hermes's exact format, operations and locking (HERMES-FORMATS.md §2).

The pure half (parse, serialize, usage, drift, plan) never touches a file; `MemoryStore` wraps it
in the same discipline Hermes uses: flock on `<file>.lock`, re-read under the lock, check, write a
temp file, fsync, `os.replace`. A failed write leaves the file byte-for-byte as it was.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Protocol, Sequence

from core.store.atomic import atomic_write
from core.home import reason as os_reason



class Journal(Protocol):
    """Where a store records each write (core.store.journal.History); kept abstract so the store
    never imports the journal, which builds on the store's parsing."""

    def record(self, target: str, path: Path, before: str, after: str, action: str, detail: str,
               undoes: int | None = None) -> Any: ...

DELIMITER = "\n§\n"
BOM = "\ufeff"
TARGETS = ("memory", "user")
FILE_NAMES = {"memory": "MEMORY.md", "user": "USER.md"}
TITLES = {"memory": "MEMORY (your personal notes)", "user": "USER PROFILE (who the user is)"}
PREVIEW = 80
LOCK_TIMEOUT = 10.0


# ---------------------------------------------------------------------------------------------
# The pure format


def parse(text: str) -> list[str]:
    """What Hermes loads: split on the full delimiter, strip, drop empties and exact duplicates."""
    if text.startswith(BOM):
        text = text[1:]
    seen: set[str] = set()
    entries: list[str] = []
    for piece in text.split(DELIMITER):
        piece = piece.strip()
        if piece and piece not in seen:
            seen.add(piece)
            entries.append(piece)
    return entries


def serialize(entries: Iterable[str]) -> str:
    """The canonical file text: entries joined by the delimiter, no trailing newline."""
    return DELIMITER.join(entries)


def usage(entries: Sequence[str]) -> int:
    """Characters the store takes in the prompt (code points of the canonical text)."""
    if not entries:
        return 0
    return sum(len(e) for e in entries) + len(DELIMITER) * (len(entries) - 1)


def percent(used: int, limit: int) -> int:
    if limit <= 0:
        return 0
    return min(100, int(used / limit * 100))


def usage_label(used: int, limit: int) -> str:
    """Hermes's label: `67% — 1,474/2,200 chars`."""
    return f"{percent(used, limit)}% — {used:,}/{limit:,} chars"


def prompt_block(target: str, entries: Sequence[str], limit: int) -> str:
    """The block Hermes injects into the system prompt for this store ('' when empty).

    Entries Hermes's scan blocks appear as its `[BLOCKED: …]` notice, as the agent will see them.
    """
    if not entries:
        return ""
    used = usage(entries)
    label = usage_label(used, limit)
    if used > limit:
        label += " ⚠ OVER BUDGET"
    from core.scan import scanner

    shown = [scanner.blocked_notice(e, FILE_NAMES[target]) or e for e in entries]
    rule = "═" * 46
    return f"{rule}\n{TITLES[target]} [{label}]\n{rule}\n{serialize(shown)}"


def check_drift(raw: str, limit: int) -> str | None:
    """Why Hermes would call this text drifted and refuse to edit it, or None when it is fine."""
    if raw.startswith(BOM):
        raw = raw[1:]
    entries = parse(universal_newlines(raw))
    for number, entry in enumerate(entries, 1):
        if len(entry) > limit:
            return f"entry {number} is {len(entry):,} chars, longer than the whole {limit:,}-char limit"
    stripped = raw.strip()
    if "\r" in stripped:
        return "the file has Windows (CRLF) line endings"
    if any(m.group(0) != "§" for m in LOOSE_SEPARATOR.finditer(stripped)):
        return "a § separator line has spaces around the §"
    if stripped == serialize(entries):
        return None
    pieces = [p.strip() for p in stripped.split(DELIMITER)]
    if len([p for p in pieces if p]) != len(set(p for p in pieces if p)):
        return "the same entry is stored twice"
    if any(not p for p in pieces):
        return "an empty entry between two § separators"
    if any(piece != piece.strip() for piece in stripped.split(DELIMITER)):
        return "blank lines or spaces around a § separator"
    return "the file is not in the exact form Hermes writes"


LOOSE_SEPARATOR = re.compile(r"^[ \t]*§[ \t]*$", re.MULTILINE)


def universal_newlines(text: str) -> str:
    """The entries a person meant: CRLF/CR as LF, and `§` lines with stray spaces as separators.

    Used to show a drifted file's entries and to repair it; Hermes itself won't edit such a file.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return LOOSE_SEPARATOR.sub("§", text)


def preview(text: str, width: int = PREVIEW) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


# ---------------------------------------------------------------------------------------------
# Operations (Hermes's matching rules and messages)


class StoreError(Exception):
    """A write was refused or failed; the message is for a person. Nothing was written."""


class OpError(StoreError):
    """An operation can't apply to the current entries."""


class Conflict(OpError):
    """The entry an edit (or a pinned pending write) was made against is no longer there."""

    def __init__(self, message: str, expected: str, current: Sequence[str]):
        super().__init__(message)
        self.expected = expected
        self.current = list(current)


class DriftError(StoreError):
    """The file on disk is not canonical; Hermes would refuse it too. Repair first."""


class ScanRefused(StoreError):
    """The security scan found something; the write needs confirmation (force)."""

    def __init__(self, message: str, findings: Sequence[object]):
        super().__init__(message)
        self.findings = list(findings)


@dataclass(frozen=True)
class Op:
    action: str  # add | replace | remove
    content: str = ""  # add: the entry; replace: the whole new entry
    old_text: str = ""  # replace/remove: locates the entry (equal first, then substring)
    matched_entry: str | None = None  # a pin: the exact entry this op was made against


def locate(entries: Sequence[str], old_text: str, pin: str | None = None) -> int:
    """Index of the entry an op targets, by Hermes's rules."""
    if pin is not None:
        pin = pin.strip()
        if pin in entries:
            return entries.index(pin)
        raise Conflict(f"the entry changed since it was read: {preview(pin)!r}", pin, entries)
    old = old_text.strip()
    if not old:
        raise OpError("old_text cannot be empty.")
    matches = [i for i, e in enumerate(entries) if e == old] or [i for i, e in enumerate(entries) if old in e]
    if not matches:
        raise OpError(f"No entry matched {preview(old)!r}.")
    distinct = {entries[i] for i in matches}
    if len(distinct) > 1:
        shown = "; ".join(repr(preview(entries[i])) for i in matches)
        raise OpError(f"Multiple entries matched {preview(old)!r}. Be more specific: {shown}")
    return matches[0]


def apply_op(entries: list[str], op: Op) -> tuple[list[str], str]:
    """One op on a copy of the entries; returns (entries after, a message). Limits not checked."""
    entries = list(entries)
    if op.action == "add":
        content = op.content.strip()
        if not content:
            raise OpError("Content cannot be empty.")
        if content in entries:
            return entries, "Entry already exists (no duplicate added)."
        entries.append(content)
        return entries, "Entry added."
    if op.action == "replace":
        content = op.content.strip()
        if not content:
            raise OpError("new_content cannot be empty. Use remove to delete an entry.")
        index = locate(entries, op.old_text or (op.matched_entry or ""), op.matched_entry)
        old = entries[index]
        entries[index] = content
        return _dedupe(entries), f"Entry replaced (was {preview(old)!r})."
    if op.action == "remove":
        index = locate(entries, op.old_text or (op.matched_entry or ""), op.matched_entry)
        old = entries.pop(index)
        return entries, f"Entry removed: {preview(old)!r}."
    raise OpError(f"unknown action {op.action!r} (expected add, replace or remove)")


def _dedupe(entries: list[str]) -> list[str]:
    seen: set[str] = set()
    return [e for e in entries if not (e in seen or seen.add(e))]


@dataclass(frozen=True)
class Plan:
    before: tuple[str, ...]
    after: tuple[str, ...]
    messages: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return self.before != self.after


def plan(entries: Sequence[str], ops: Sequence[Op], limit: int, label: str = "Memory") -> Plan:
    """Apply ops all-or-nothing to a copy; check the limit on the final state only.

    A result that grows usage must end within the limit; one that shrinks usage always applies.
    """
    if not ops:
        raise OpError("Nothing to do: no operations.")
    current = list(entries)
    messages = []
    for op in ops:
        current, message = apply_op(current, op)
        messages.append(message)
    if len(ops) > 1 and entries and not current:
        raise OpError("Refusing a batch that would empty the store; remove entries one by one instead.")
    before_used, after_used = usage(entries), usage(current)
    if after_used > limit and after_used > before_used:
        added = [op.content.strip() for op in ops if op.action in ("add", "replace")]
        size = f" ({sum(map(len, added)):,} chars)" if added else ""
        listing = "\n".join(f"  {n}. {preview(e)}" for n, e in enumerate(entries, 1))
        raise OpError(
            f"{label} at {before_used:,}/{limit:,} chars. This change{size} would bring it to "
            f"{after_used:,}/{limit:,}, over the limit. Replace or remove existing entries first.\n"
            f"Current entries:\n{listing}"
        )
    return Plan(tuple(entries), tuple(current), tuple(messages))


# ---------------------------------------------------------------------------------------------
# The store on disk


@dataclass(frozen=True)
class Token:
    """Cheap 'did it change on disk?' check: stat fields (the digest is in the snapshot)."""

    mtime_ns: int
    size: int
    inode: int


MISSING = Token(0, -1, 0)


@dataclass(frozen=True)
class Snapshot:
    target: str
    entries: tuple[str, ...] = ()
    raw: str | None = None  # decoded text (BOM stripped); None when unreadable or missing
    exists: bool = False
    error: str | None = None  # why the file can't be read or decoded
    drift: str | None = None  # why Hermes would refuse to edit it
    bom: bool = False
    symlink: bool = False
    token: Token = MISSING
    digest: str = ""

    @property
    def usage(self) -> int:
        return usage(self.entries)

    @property
    def writable(self) -> bool:
        return self.error is None and self.drift is None and not self.symlink


@dataclass(frozen=True)
class WriteResult:
    target: str
    before: tuple[str, ...]
    after: tuple[str, ...]
    messages: tuple[str, ...]
    label: str
    changed: bool
    findings: tuple[object, ...] = ()
    backup: Path | None = None

    @property
    def removed(self) -> list[str]:
        return [e for e in self.before if e not in self.after]

    @property
    def added(self) -> list[str]:
        return [e for e in self.after if e not in self.before]


def token_of(path: Path) -> Token:
    try:
        st = os.lstat(path)
    except OSError:
        return MISSING
    return Token(st.st_mtime_ns, st.st_size, st.st_ino)


@dataclass
class MemoryStore:
    target: str
    path: Path
    limit: int
    enabled: bool = True
    history: Journal | None = None
    lock_timeout: float = LOCK_TIMEOUT
    _last: Snapshot | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    @property
    def label(self) -> str:
        return "Memory" if self.target == "memory" else "User profile"

    def token(self) -> Token:
        return token_of(self.path)

    def changed_on_disk(self) -> bool:
        """True when the file differs from the last snapshot read (stat first, digest to confirm)."""
        last = self._last
        if last is None:
            return True
        if self.token() == last.token:
            return False
        return self.read().digest != last.digest

    @property
    def last(self) -> Snapshot:
        return self._last if self._last is not None else self.read()

    def read(self) -> Snapshot:
        """Read the file as Hermes would (no lock). Never raises."""
        snap = self._read()
        self._last = snap
        return snap

    def _read(self) -> Snapshot:
        symlink = self.path.is_symlink()
        tok = self.token()
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            if symlink:
                return Snapshot(self.target, symlink=True, token=tok, error=f"{self.name} is a broken symbolic link")
            return Snapshot(self.target, token=tok, raw="")
        except IsADirectoryError:
            return Snapshot(self.target, exists=True, token=tok, error=f"{self.name} is a folder, not a file")
        except OSError as exc:
            return Snapshot(self.target, exists=True, token=tok, symlink=symlink, error=f"{self.name} can't be read: {os_reason(exc)}")
        digest = hashlib.sha256(data).hexdigest()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return Snapshot(
                self.target, exists=True, token=tok, digest=digest, symlink=symlink,
                error=f"{self.name} is not valid UTF-8 (bad byte at offset {exc.start:,}); Hermes can't load it either",
            )
        bom = text.startswith(BOM)
        if bom:
            text = text[1:]
        return Snapshot(
            self.target, entries=tuple(parse(universal_newlines(text))), raw=text, exists=True, drift=check_drift(text, self.limit),
            bom=bom, symlink=symlink, token=tok, digest=digest,
        )

    # -- locking -------------------------------------------------------------------------------

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold Hermes's writer lock (flock on `<file>.lock`) for a read-modify-write."""
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(self.lock_path, flags, 0o600)
        except OSError as exc:
            raise StoreError(f"can't open the lock file {self.lock_path.name}: {os_reason(exc)}") from None
        try:
            deadline = time.monotonic() + self.lock_timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                        raise StoreError(f"can't lock {self.name}: {os_reason(exc)}") from None
                    if time.monotonic() >= deadline:
                        raise StoreError(
                            f"{self.name} is locked by another writer (Hermes?) for over {self.lock_timeout:g} s; try again"
                        ) from None
                    time.sleep(0.02)
            yield
        finally:
            os.close(fd)  # closing releases the flock

    # -- writes --------------------------------------------------------------------------------

    def _writable_snapshot(self, *, allow_drift: bool = False) -> Snapshot:
        """Re-read under the lock and refuse anything Hermes would refuse."""
        if not self.enabled:
            key = "memory_enabled" if self.target == "memory" else "user_profile_enabled"
            raise StoreError(f"{self.label} is disabled in config.yaml (memory.{key}: false); writes are refused")
        snap = self.read()
        if snap.symlink:
            raise StoreError(f"{self.name} is a symbolic link; hmc won't replace it with a file (edit the file it points to)")
        if snap.error:
            raise StoreError(snap.error + "; nothing was written")
        if snap.drift and not allow_drift:
            raise DriftError(
                f"{self.name} has drifted from the form Hermes writes ({snap.drift}); Hermes refuses to edit it "
                "until it is repaired. Nothing was written."
            )
        return snap

    def dry_run(self, ops: Sequence[Op]) -> Plan:
        """What `apply` would do now (no lock, nothing written). Raises like apply."""
        snap = self._writable_snapshot()
        return plan(snap.entries, ops, self.limit, self.label)

    def apply(self, ops: Sequence[Op], *, force: bool = False, action: str | None = None) -> WriteResult:
        """Apply Hermes operations all-or-nothing under the lock; journal the change."""
        findings = self.scan_ops(ops)
        if findings and not force:
            from core.scan import scanner

            blocking = scanner.blocking(findings)
            if blocking:
                first = blocking[0]
                raise ScanRefused(
                    f"the security scan flagged this text: {first.detail}"
                    + ("; Hermes will block the entry from the prompt" if any(f.hermes_blocks for f in blocking) else ""),
                    findings,
                )
        with self.locked():
            snap = self._writable_snapshot()
            result = plan(snap.entries, ops, self.limit, self.label)
            if result.changed:
                kind = action or (ops[0].action if len(ops) == 1 else "batch")
                self._replace_locked(snap, serialize(result.after), kind, "; ".join(result.messages))
        return WriteResult(
            self.target, result.before, result.after, result.messages,
            usage_label(usage(result.after), self.limit), result.changed, tuple(findings),
        )

    def add(self, content: str, *, force: bool = False) -> WriteResult:
        return self.apply([Op("add", content=content)], force=force)

    def replace(self, old_text: str, content: str, *, force: bool = False, pin: str | None = None) -> WriteResult:
        return self.apply([Op("replace", content=content, old_text=old_text, matched_entry=pin)], force=force)

    def remove(self, old_text: str, *, pin: str | None = None) -> WriteResult:
        return self.apply([Op("remove", old_text=old_text, matched_entry=pin)])

    def scan_ops(self, ops: Sequence[Op]) -> list:
        from core.scan import scanner

        found = []
        for op in ops:
            if op.action in ("add", "replace") and op.content.strip():
                found.extend(scanner.scan(op.content.strip()))
        return found

    def restore_text(self, expected_current: str, text: str, action: str, detail: str,
                     undoes: int | None = None) -> None:
        """Put `text` back if the file still holds exactly `expected_current` (undo)."""
        with self.locked():
            snap = self._writable_snapshot(allow_drift=True)
            if (snap.raw or "") != expected_current:
                raise Conflict(
                    f"{self.name} changed since hmc wrote it (another writer, probably Hermes); undo refused "
                    "so that change is not lost", expected_current, snap.entries,
                )
            if check_drift(text, self.limit):
                raise StoreError("the text to restore is not in Hermes's form; refused")
            self._replace_locked(snap, text, action, detail, undoes)

    def repair(self, drop: Sequence[int] = ()) -> WriteResult:
        """Rewrite a drifted or non-UTF-8 file in canonical form, saving `<file>.bak.<ts>` first.

        `drop` lists (0-based) indexes of over-limit entries the person chose to remove (they go to
        the journal, restorable). An over-limit entry is never cut: without a decision, refuse.
        """
        with self.locked():
            if self.path.is_symlink():
                raise StoreError(f"{self.name} is a symbolic link; hmc won't replace it with a file")
            try:
                data = self.path.read_bytes()
            except FileNotFoundError:
                raise StoreError(f"{self.name} does not exist; nothing to repair") from None
            except OSError as exc:
                raise StoreError(f"{self.name} can't be read: {os_reason(exc)}") from None
            text = data.decode("utf-8", errors="replace")
            if text.startswith(BOM):
                text = text[1:]
            entries = parse(universal_newlines(text))
            long = [i for i, e in enumerate(entries) if len(e) > self.limit]
            undecided = [i for i in long if i not in drop]
            if undecided:
                raise StoreError(
                    f"entry {undecided[0] + 1} is {len(entries[undecided[0]]):,} chars, longer than the whole "
                    f"{self.limit:,}-char limit; hmc won't cut it. Choose to remove it (it stays in hmc's "
                    "history) or shorten it in an editor first"
                )
            kept = [e for i, e in enumerate(entries) if i not in set(drop)]
            canonical = serialize(kept)
            if canonical.encode("utf-8") == data:
                raise StoreError(f"{self.name} is already in Hermes's form; nothing to repair")
            backup = self.path.with_name(f"{self.name}.bak.{int(time.time())}")
            n = 0
            while backup.exists():
                n += 1
                backup = self.path.with_name(f"{self.name}.bak.{int(time.time())}.{n}")
            _atomic_write(backup, data)
            before_snap = Snapshot(self.target, tuple(entries), text, True, token=self.token())
            self._replace_locked(before_snap, canonical, "repair", f"repaired drift; backup {backup.name}")
        return WriteResult(
            self.target, tuple(entries), tuple(kept), (f"Repaired; the original is saved as {backup.name}.",),
            usage_label(usage(kept), self.limit), True, backup=backup,
        )

    def _replace_locked(self, snap: Snapshot, new_text: str, action: str, detail: str,
                        undoes: int | None = None) -> None:
        """Journal, then atomically replace the file. Caller holds the lock."""
        if self.history is not None:
            self.history.record(self.target, self.path, snap.raw or "", new_text, action, detail, undoes)
        mode = None
        try:
            mode = os.stat(self.path).st_mode & 0o777
        except OSError:
            pass
        _atomic_write(self.path, new_text.encode("utf-8"), mode)
        self.read()


def _atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """`atomic_write` with Hermes's `.mem_*.tmp` temp name; an OS error becomes a StoreError."""
    try:
        atomic_write(path, data, mode)
    except OSError as exc:
        raise StoreError(f"writing {path.name} failed ({os_reason(exc)}); the file is unchanged") from None
