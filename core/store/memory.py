"""MEMORY.md / USER.md: Hermes's exact format, operations and locking (HERMES-FORMATS.md §2).

The pure half (parse, serialize, usage, drift, plan) never touches a file; `MemoryStore` wraps it
in the same discipline Hermes uses: flock on `<file>.lock`, re-read under the lock, check, write a
temp file, fsync, `os.replace`. A failed write leaves the file byte-for-byte as it was.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ContextManager, Iterator, Protocol, Sequence

from core.store.atomic import (LockBusy, NotRegularFile, TooLarge, atomic_write, clean_orphans, flock_within,
                               open_lock, read_regular)
from core.store.atomic import reason as os_reason
from core.store.atomic import write_refused



class Journal(Protocol):
    """Where a store records each write (core.store.journal.History); kept abstract so the store
    never imports the journal, which builds on the store's parsing."""

    def writing(self, target: str, path: Path, before: str, after: str, action: str, detail: str,
                undoes: int | None = None) -> ContextManager[Any]:
        """Journal the write made inside the block: recorded only if the block succeeds."""

from core.hermes.memory import (  # noqa: F401  (re-exported: the store's vocabulary)
    BOM, DELIMITER, FILE_NAMES, PREVIEW, TARGETS, TITLES, Conflict, DriftError, EmptiesStore, Op, OpError,
    Plan, StoreError, Unwritable, apply_op, decode, locate, parse, percent, preview, serialize, usage, usage_label,
)
from core.hermes import memory as rules
from core.hermes.release import NEWEST, Release

if TYPE_CHECKING:  # pragma: no cover
    from core.hermes.prompt_usage import UsageFigures

LOCK_TIMEOUT = 10.0
MAX_FILE_BYTES = 1 << 20  # ~450× the default limit; beyond it a store is shown as an error, never written


class ScanRefused(StoreError):
    """A scan found something: the release's own scan (`hermes=True`) refuses a staged write outright;
    hmc's wider scan asks for confirmation (force)."""

    def __init__(self, message: str, findings: Sequence[object], hermes: bool = False):
        super().__init__(message)
        self.findings = list(findings)
        self.hermes = hermes


def prompt_block(target: str, entries: Sequence[str], limit: int, release: Release = NEWEST) -> str:
    return rules.prompt_block(target, entries, limit, release)


def check_drift(text: str, limit: int, release: Release = NEWEST) -> str | None:
    """Why the release would refuse to edit a file holding `text` (decoded as it reads it), or None."""
    return rules.drift(text.replace("\r\n", "\n").replace("\r", "\n"), limit, release)


def plan(entries: Sequence[str], ops: Sequence[Op], limit: int, label: str = "Memory",
         release: Release = NEWEST, **kw) -> Plan:
    return rules.plan(entries, ops, limit, label, release, **kw)


STRAY_SEPARATOR = "§"  # a line that is only the sign, left inside an entry by a doubled separator
LOOSE_SEPARATOR = re.compile(r"^[ \t]*§[ \t]*$", re.MULTILINE)


def untidy(raw: str, release: Release = NEWEST) -> tuple[str, ...]:
    """What a tidy-up would change in a file Hermes reads fine (hmc offers it as a repair)."""
    found = []
    if raw.startswith(BOM):
        found.append("a byte-order mark at the start, which Hermes skips when it reads the file"
                     if release.strips_bom else
                     "a byte-order mark at the start, which Hermes keeps in entry 1 (its scan then "
                     "blocks that entry from the prompt)")
    if "\r" in raw:
        found.append("Windows (CRLF) line endings")
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    if any(m.group(0) != "§" for m in LOOSE_SEPARATOR.finditer(text)):
        found.append("a § line with spaces around it, which Hermes does not read as a separator "
                     "(the entries around it are one entry)")
    pieces = [p.strip() for p in text.split(DELIMITER) if p.strip()]
    stray = [n for n, e in enumerate(parse(text), 1) if STRAY_SEPARATOR in e.split("\n")]
    if stray:
        which = f"entry {stray[0]}" if len(stray) == 1 else "entries " + ", ".join(map(str, stray))
        found.append(f"a lone § line in {which} (two separators in a row), which Hermes reads as part of the "
                     "entry: the agent sees what looks like an empty entry")
    if len(pieces) != len(set(pieces)):
        found.append("the same entry stored twice (Hermes reads it once)")
    return tuple(found)


def tidy_entries(raw: str) -> list[str]:
    """The entries a person meant: no BOM, LF, `§` lines with stray spaces as separators, no lone
    `§` line left inside an entry (a doubled separator), once each."""
    if raw.startswith(BOM):
        raw = raw[1:]
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    entries = ("\n".join(line for line in e.split("\n") if line != STRAY_SEPARATOR).strip()
               for e in parse(LOOSE_SEPARATOR.sub("§", text)))
    return list(dict.fromkeys(e for e in entries if e))


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
    entries: tuple[str, ...] = ()  # what the release loads (a BOM stays in entry 1)
    raw: str | None = None  # the decoded file as it is; None when unreadable or missing
    exists: bool = False
    error: str | None = None  # why the file can't be read or decoded (never written then)
    drift: str | None = None  # why the release would refuse to edit it
    bom: bool = False
    symlink: bool = False
    token: Token = MISSING
    digest: str = ""
    untidy: tuple[str, ...] = ()  # what a tidy-up would change in a file the release reads fine

    @property
    def usage(self) -> int:
        return usage(self.entries)

    @property
    def writable(self) -> bool:
        return self.error is None and self.drift is None and not self.symlink

    @property
    def text(self) -> str:
        """The file as the release reads it (universal newlines)."""
        return (self.raw or "").replace("\r\n", "\n").replace("\r", "\n")


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
    release: Release = NEWEST  # whose rules apply: reading, drift, matching, limits, scan
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

    def figures(self, snap: Snapshot | None = None) -> "UsageFigures":
        """The file's usage and the prompt label's (they differ when the release blocks an entry):
        what the gauge line, `hmc memory list` and `hmc status` report (core.hermes.prompt_usage)."""
        from core.hermes.prompt_usage import usage_figures

        snap = self.last if snap is None else snap
        return usage_figures(self.target, snap.entries, self.limit, self.release)

    def for_person(self, message: object, see: str | None = None) -> str:
        """A release's refusal (or result) about this store, said for a person (core.hermes.wording):
        its file's name and how many entries it holds now; `see` names where to list them. A message
        that isn't a release's comes back unchanged."""
        from core.hermes.wording import for_person

        snap = self.last
        return for_person(str(message), self.name, None if snap.error else len(snap.entries), see=see)

    def read(self) -> Snapshot:
        """Read the file as the release would (no lock). Never raises."""
        snap = self._read()
        self._last = snap
        return snap

    def _read(self) -> Snapshot:
        symlink = self.path.is_symlink()
        tok = self.token()
        try:
            data = read_regular(self.path, MAX_FILE_BYTES)
        except FileNotFoundError:
            if symlink:
                return Snapshot(self.target, symlink=True, token=tok, error=f"{self.name} is a broken symbolic link")
            return Snapshot(self.target, token=tok, raw="")
        except NotRegularFile as exc:
            return Snapshot(self.target, exists=True, token=tok, symlink=symlink,
                            error=f"{self.name} is a {exc.kind}, not a file; hmc neither reads nor writes it")
        except TooLarge as exc:
            return Snapshot(self.target, exists=True, token=tok, symlink=symlink,
                            error=f"{self.name} is {exc.size:,} bytes, far beyond anything Hermes writes "
                                  f"(hmc reads up to {MAX_FILE_BYTES:,}); trim it in an editor")
        except OSError as exc:
            return Snapshot(self.target, exists=True, token=tok, symlink=symlink, error=f"{self.name} can't be read: {os_reason(exc)}")
        digest = hashlib.sha256(data).hexdigest()
        try:
            raw = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return Snapshot(
                self.target, exists=True, token=tok, digest=digest, symlink=symlink,
                error=f"{self.name} is not valid UTF-8 (bad byte at offset {exc.start:,}); "
                      + ("Hermes reads it as empty and refuses to write it" if self.release.unreadable_is_empty
                         else "Hermes can't load it either"),
            )
        return self.snapshot_of(raw, token=tok, digest=digest, symlink=symlink)

    def snapshot_of(self, raw: str, *, token: Token = MISSING, digest: str = "", symlink: bool = False,
                    tidy_check: bool = True) -> Snapshot:
        """The snapshot of a file holding `raw` (decoded), read as the release reads it. Without
        `tidy_check` the (display-only) `untidy` list is left empty."""
        text = rules.newlines(raw.removeprefix(BOM) if self.release.strips_bom else raw)
        return Snapshot(
            self.target, entries=tuple(parse(text)), raw=raw, exists=True,
            drift=rules.drift(text, self.limit, self.release), bom=raw.startswith(BOM), symlink=symlink,
            token=token, digest=digest, untidy=untidy(raw, self.release) if tidy_check else (),
        )

    # -- locking -------------------------------------------------------------------------------

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold Hermes's writer lock (flock on `<file>.lock`) for a read-modify-write."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = open_lock(self.lock_path)
        except OSError as exc:
            if write_refused(exc):
                raise Unwritable(f"{self.name} can't be written here ({os_reason(exc)}: its lock file "
                                 f"{self.lock_path.name} can't be opened); nothing was written") from None
            raise StoreError(f"can't open the lock file {self.lock_path.name}: {os_reason(exc)}") from None
        try:
            try:
                flock_within(fd, self.lock_timeout)
            except LockBusy:
                raise StoreError(
                    f"{self.name} is locked by another writer (Hermes?) for over {self.lock_timeout:g} s; try again"
                ) from None
            except OSError as exc:
                raise StoreError(f"can't lock {self.name}: {os_reason(exc)}") from None
            others = [self.path.with_name(name + ".lock") for name in FILE_NAMES.values() if name != self.path.name]
            clean_orphans(self.path.parent, other_locks=others)
            yield
        finally:
            os.close(fd)  # closing releases the flock

    # -- writes --------------------------------------------------------------------------------

    def _writable_snapshot(self, *, allow_drift: bool = False) -> Snapshot:
        """Re-read under the lock and refuse anything the release would refuse."""
        self._refuse_disabled()
        return self._refuse_unwritable(self.read(), allow_drift=allow_drift)

    def _refuse_disabled(self) -> None:
        if not self.enabled:
            if self.release.boolean_store_flags:  # 0.22 refuses them too, in these words
                raise StoreError(f"Built-in {self.name} writes are disabled in memory config.")
            key = "memory_enabled" if self.target == "memory" else "user_profile_enabled"
            raise StoreError(f"{self.label} is disabled in config.yaml (memory.{key}: false); writes are refused")

    def _refuse_unwritable(self, snap: Snapshot, *, allow_drift: bool = False) -> Snapshot:
        """`snap` if the release would write over it, else the refusal it (and hmc) would give."""
        if snap.symlink:
            raise StoreError(f"{self.name} is a symbolic link; hmc won't replace it with a file (edit the file it points to)")
        if snap.error:
            raise StoreError(snap.error + "; nothing was written")
        if snap.drift and not allow_drift:
            raise DriftError(
                f"{self.name} has drifted from the form Hermes writes ({snap.drift}); Hermes {self.release.name} "
                "refuses to edit it until it is repaired (r in memory mode saves a backup first). Nothing was written."
            )
        return snap

    def _drift_allowed(self, ops: Sequence[Op], batch: bool | None = None) -> bool:
        """0.18 and later let a single add through a drifted file (and rewrite it canonically)."""
        return (not rules.is_batch(ops, batch) and len(ops) == 1 and ops[0].action == "add"
                and not self.release.add_checks_drift)

    def dry_run(self, ops: Sequence[Op], *, person: bool = True, allow_empty: bool = False,
                batch: bool | None = None, tool: bool = False) -> Plan:
        """What `apply` would do now (no lock, nothing written). Raises like apply."""
        rules.precheck(ops, batch, self.release, tool=tool, entries=lambda: self.read().entries, person=person)
        snap = self._writable_snapshot(allow_drift=self._drift_allowed(ops, batch))
        return plan(snap.entries, ops, self.limit, self.label, self.release, person=person, allow_empty=allow_empty,
                    batch=batch, file_name=self.name)

    def apply(self, ops: Sequence[Op], *, force: bool = False, action: str | None = None,
              person: bool = True, allow_empty: bool | None = None, batch: bool | None = None,
              tool: bool = False) -> WriteResult:
        """Apply operations all-or-nothing under the lock, with the release's rules; journal the change.

        `person` (hmc's own edits) may shrink an over-full store; `person=False` replays a staged
        write exactly as the release would (its scan refuses outright, no shrinking exception).
        `force` skips the confirmation hmc's wider scan asks for, and allows a batch to empty the file.
        `batch=True` is a staged `operations` call, even of one op (its wording, scan and drift
        rules); by default several ops are a batch. `tool=True` replays the model's own memory_tool
        call (0.22 refuses `replace` there); otherwise a staged write's approval.
        """
        findings = self._refuse_before_lock(ops, force=force, person=person, batch=batch, tool=tool,
                                            entries=lambda: self.read().entries)
        with self.locked():
            snap = self._writable_snapshot(allow_drift=self._drift_allowed(ops, batch))
            result, new_text, write, backup = self._plan_write(snap, ops, force=force, person=person,
                                                               allow_empty=allow_empty, batch=batch)
            if write:
                kind = action or (ops[0].action if len(ops) == 1 else "batch")
                self._replace_locked(snap, new_text, kind, "; ".join(result.messages))
        return self._result(result, findings, backup)

    def _refuse_before_lock(self, ops: Sequence[Op], *, force: bool, person: bool, batch: bool | None, tool: bool,
                            entries) -> list:
        """What the release (and hmc's wider scan, unless forced) refuses before its lock and drift
        guard; `entries` gives the file's entries now. Returns the scan's findings."""
        rules.precheck(ops, batch, self.release, tool=tool, entries=entries, person=person)
        findings = self.scan_ops(ops)
        if not person:
            refusal = self.release_refusal(ops, batch)
            if refusal:
                raise ScanRefused(refusal, findings, hermes=True)
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
        return findings

    def _plan_write(self, snap: Snapshot, ops: Sequence[Op], *, force: bool, person: bool,
                    allow_empty: bool | None, batch: bool | None) -> tuple[Plan, str, bool, Path | None]:
        """Under the lock, on the writable `snap`: the plan, the text to write, whether to write it,
        and the backup of a drifted file the write replaces (saved now). Raises like apply."""
        allow_empty = force if allow_empty is None else allow_empty
        result = plan(snap.entries, ops, self.limit, self.label, self.release, person=person,
                      allow_empty=allow_empty, batch=batch, file_name=self.name)
        new_text = serialize(result.after)
        write = result.changed or (rules.is_batch(ops, batch) and snap.raw != new_text)
        backup = None
        if write and snap.drift:  # an add the release lets through: it rewrites the file; keep the original
            backup = self._backup(snap.raw.encode("utf-8") if snap.raw is not None else b"")
        return result, new_text, write, backup

    def _result(self, result: Plan, findings: Sequence[object], backup: Path | None) -> WriteResult:
        return WriteResult(
            self.target, result.before, result.after, result.messages,
            usage_label(usage(result.after), self.limit), result.changed, tuple(findings), backup=backup,
        )

    def add(self, content: str, *, force: bool = False) -> WriteResult:
        return self.apply([Op("add", content=content)], force=force)

    def replace(self, old_text: str, content: str, *, force: bool = False, pin: str | None = None) -> WriteResult:
        return self.apply([Op("replace", content=content, old_text=old_text, matched_entry=pin)], force=force)

    def remove(self, old_text: str, *, pin: str | None = None) -> WriteResult:
        return self.apply([Op("remove", old_text=old_text, matched_entry=pin)])

    def patch(self, span: str, new: str, *, force: bool = False, pin: str | None = None) -> WriteResult:
        """Replace one span inside the entry it selects and keep the rest (the span must occur
        once in that entry). hmc offers it on every release: the result is an ordinary file."""
        return self.apply([Op("patch", content=new, old_text=span, matched_entry=pin)], force=force)

    def scan_ops(self, ops: Sequence[Op]) -> list:
        from core.scan import scanner

        found = []
        for op in ops:
            if op.action in ("add", "replace") and op.content.strip():
                found.extend(scanner.scan(op.content.strip(), self.release))
            elif op.action == "patch" and op.content.strip():  # the new text; the entry is scanned as patched
                found.extend(scanner.scan(op.content, self.release))
        return found

    def release_refusal(self, ops: Sequence[Op], batch: bool | None = None) -> str | None:
        """The release's own scan refusal for these ops, in its words (a batch names the operation)."""
        from core.hermes.scan import refusal

        many = rules.is_batch(ops, batch)
        for i, op in enumerate(ops):
            if op.action not in ("add", "replace") or not (op.content or "").strip():
                continue
            message = refusal(op.content if many else op.content.strip(), self.release)
            if message:
                return f"Operation {i + 1}: {message}" if many else message
        return None

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
            if check_drift(text, self.limit, self.release):
                raise StoreError("the text to restore is not in Hermes's form; refused")
            self._replace_locked(snap, text, action, detail, undoes)

    def repair(self, drop: Sequence[int] = ()) -> WriteResult:
        """Tidy a drifted, untidy or non-UTF-8 file into canonical form, saving `<file>.bak.<ts>` first.

        The tidy form drops a BOM, reads `§` lines with stray spaces as separators, uses LF and keeps
        each entry once. `drop` lists (0-based) indexes of over-limit entries the person chose to
        remove (they go to the journal, restorable). An over-limit entry is never cut: without a
        decision, refuse.
        """
        with self.locked():
            if self.path.is_symlink():
                raise StoreError(f"{self.name} is a symbolic link; hmc won't replace it with a file")
            try:
                data = read_regular(self.path, MAX_FILE_BYTES)
            except FileNotFoundError:
                raise StoreError(f"{self.name} does not exist; nothing to repair") from None
            except OSError as exc:
                raise StoreError(f"{self.name} can't be read: {os_reason(exc)}") from None
            text = data.decode("utf-8", errors="replace")
            entries = tidy_entries(text)
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
            backup = self._backup(data)
            before_snap = Snapshot(self.target, tuple(entries), text, True, token=self.token())
            self._replace_locked(before_snap, canonical, "repair", f"repaired; backup {backup.name}")
        return WriteResult(
            self.target, tuple(entries), tuple(kept), (f"Repaired; the original is saved as {backup.name}.",),
            usage_label(usage(kept), self.limit), True, backup=backup,
        )

    def _backup(self, data: bytes) -> Path:
        """Save the file's bytes as `<file>.bak.<unix_ts>` (Hermes's own backup name). Caller holds the lock."""
        backup = self.path.with_name(f"{self.name}.bak.{int(time.time())}")
        n = 0
        while backup.exists():
            n += 1
            backup = self.path.with_name(f"{self.name}.bak.{int(time.time())}.{n}")
        _atomic_write(backup, data)
        return backup

    def _replace_locked(self, snap: Snapshot, new_text: str, action: str, detail: str,
                        undoes: int | None = None) -> None:
        """Atomically replace the file, journaled: the journal commits the record only when the
        replace succeeded (a refused or failed write leaves no record). Caller holds the lock."""
        data = _encode(new_text)
        mode = None
        try:
            mode = os.stat(self.path).st_mode & 0o777
        except OSError:
            pass
        if self.history is None:
            _atomic_write(self.path, data, mode)
        else:
            with self.history.writing(self.target, self.path, snap.raw or "", new_text, action, detail, undoes):
                _atomic_write(self.path, data, mode)
        self.read()


def _encode(text: str) -> bytes:
    """The file's bytes for `text` (StoreError for a lone surrogate: nothing is written)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise StoreError("the text holds a lone surrogate, which no UTF-8 file can hold; nothing was written") from None


def _atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """`atomic_write` with Hermes's `.mem_*.tmp` temp name; an OS error becomes a StoreError."""
    try:
        atomic_write(path, data, mode)
    except OSError as exc:
        error = Unwritable if write_refused(exc) else StoreError
        raise error(f"writing {path.name} failed ({os_reason(exc)}); the file is unchanged") from None
