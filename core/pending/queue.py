"""The write-approval queue: `<home>/pending/memory/<id>.json` (HERMES-FORMATS.md §4).

List the staged writes (oldest first; a broken file is a record with a reason, never a crash),
work out what approving one would do without writing anything (`inspect`), and approve or reject.

Approving replays the payload through the target `MemoryStore.apply` (lock, re-read, drift, limit
and scanner checks, atomic write, journal). The record is first *claimed* by renaming it to a
hidden name in the same folder: a rename succeeds for exactly one process, so two approvals (two
hmc windows, a CLI and the TUI) can never apply one record twice. On success the claimed file is
deleted; on any failure it is renamed back and stays pending with the reason.

Policy for destructive records without a `matched_entry` pin (staged by an older Hermes): hmc
applies them with Hermes's matching rules (equal first, then a unique substring) and says so in a
warning; when the approval comes from an inspection the person saw (`seen=`), the entry shown is
pinned, so what is written is exactly what was shown or nothing.

What a record is (core/pending/records.py) and what approving it would do (core/pending/inspection.py)
live beside the queue; the names callers use are importable from here too (`__all__`).
"""

from __future__ import annotations

import os
import re
import stat
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

from core import timefmt
from core.pending import claims
from core.pending.approve_all import GROUP_TOKEN, approve_together, approved_by, group_tag  # noqa: F401
from core.pending.claims import CLAIM_MARK, STALE_CLAIM_SECONDS  # noqa: F401  (re-exported)
from core.pending.results import Approval, Failure, Report  # noqa: F401  (re-exported)
from core.pending.inspection import (
    EntryChange, Inspection, InspectionMemo, Scanned, _classify, _is_batch, _pin_message, entry_changes, group_key,
    inline_diff, inspect_ops,
)
from core.pending.records import (
    BROKEN, CHANGED, DESTRUCTIVE, ID_RE, LIMIT, MALFORMED, MAX_RECORD_BYTES, NEVER_APPLIES, PIN_CHANGED, REFUSED,
    UNPINNED, ApproveRefused, PendingError, PendingRecord, cannot_take, describe, parse_record, printable, unpinned_reason,
)
from core.pending.records import AUTO_MARK
from core.pending.records import why as _why
from core.pending.records import (  # noqa: F401  (re-exported: the reason kinds callers compare with)
    AMBIGUOUS, DISABLED, DRIFT, EMPTIES_STORE, EMPTY, FORCIBLE, HERMES_SCAN, NO_MATCH, SCANNER, TOO_LARGE, UNREADABLE,
)
from core.store.atomic import (
    PRIVATE_FILE, NotRegularFile, TooLarge, atomic_write, read_regular,
)
from core.store.memory import (
    TARGETS, Conflict, Op, ScanRefused, Snapshot, StoreError, WriteResult, preview,
)

if TYPE_CHECKING:  # pragma: no cover
    from core.store.journal import History
    from core.store.memory import MemoryStore


# ---------------------------------------------------------------------------------------------
# The queue


class PendingQueue:
    """The staged memory writes of one Hermes home (profile folder)."""

    def __init__(self, folder: Path, stores: dict[str, "MemoryStore"], history: "History | None",
                 now: Callable[[], float]):
        self.folder = folder
        self.stores = stores  # the caller's dict: a store it replaces is seen here too
        self.history = history
        self.now = now
        self._cache: dict[str, tuple[tuple[int, int], PendingRecord]] = {}
        self._inspections = InspectionMemo()  # each record's inspection until it or its store changes

    # -- reading -------------------------------------------------------------------------------

    def _names(self) -> list[os.DirEntry]:
        from core.pending.staged import names, problem

        try:
            return names(self.folder)
        except OSError as exc:
            raise PendingError(problem(self.folder, exc)) from None

    def token(self) -> tuple:
        """Changes whenever a record is added, removed or rewritten (names, mtimes, sizes)."""
        out = []
        for entry in self._names():
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            out.append((entry.name, st.st_mtime_ns, st.st_size))
        return tuple(sorted(out))

    def count(self) -> int:
        """How many records wait (cheap: a directory listing, no parsing)."""
        return len(self._names())

    def list(self) -> list[PendingRecord]:
        """Every record, oldest first. Unreadable files come back as broken records: one record's
        failure, whatever it is, never stops the listing."""
        self.recover_claims()
        records = []
        seen = set()
        for entry in self._names():
            seen.add(entry.name)
            records.append(self._load(Path(entry.path)))
        for name in list(self._cache):
            if name not in seen:
                del self._cache[name]
        records.sort(key=_order)
        return records

    def _load(self, path: Path) -> PendingRecord:
        try:
            st = os.lstat(path)
        except OSError as exc:
            return PendingRecord(id=printable(path.stem), path=path, created_at=0.0,
                                 broken=f"can't be read ({_why(exc)})")
        stamp = (st.st_mtime_ns, st.st_size)
        hit = self._cache.get(path.name)
        if hit and hit[0] == stamp:
            return hit[1]
        record = self._read(path, stamp, st.st_mtime, st.st_size)
        self._cache[path.name] = (stamp, record)
        return record

    @staticmethod
    def _read(path: Path, stamp: tuple[int, int], mtime: float, size: int, name: str | None = None) -> PendingRecord:
        """One record file, opened only if it is a regular file (a FIFO, socket or device in its
        place never blocks) and only up to MAX_RECORD_BYTES. Never raises."""
        shown = path.with_name(name) if name else path

        def broken(why: str) -> PendingRecord:
            return PendingRecord(id=printable(shown.stem), path=shown, created_at=timefmt.valid(mtime) or 0.0,
                                 stamp=stamp, broken=why)

        if os.path.islink(path):
            return broken("a symbolic link, not a record file; hmc won't follow it")
        try:
            data = read_regular(path, MAX_RECORD_BYTES, follow_symlinks=False)
        except NotRegularFile as exc:
            return broken(f"a {exc.kind}, not a record file; hmc won't open it")
        except TooLarge as exc:
            return broken(f"too large for a pending record ({exc.size:,} bytes; hmc reads up to {MAX_RECORD_BYTES:,})")
        except OSError as exc:
            return broken(f"can't be read ({_why(exc)})")
        except Exception as exc:  # noqa: BLE001 - isolation
            return broken(f"can't be read ({type(exc).__name__})")
        return parse_record(data, shown, stamp, mtime)

    def get(self, record_id: str) -> PendingRecord:
        """The record with this id (or, for a broken file, this exact file name)."""
        self.recover_claims()
        path = self._path_for(record_id)
        try:
            os.lstat(path)
        except FileNotFoundError:
            raise self._unknown(record_id) from None
        except OSError as exc:
            raise PendingError(f"can't read pending write {printable(str(record_id))} ({_why(exc)})") from None
        return self._load(path)

    def oldest_age(self) -> float | None:
        """Seconds since the oldest record was staged (None when the queue is empty)."""
        records = self.list()
        if not records:
            return None
        return max(0.0, self.now() - records[0].created_at)

    def age(self, record: PendingRecord) -> str:
        return timefmt.ago(record.created_at, self.now())

    def _path_for(self, record_id: str) -> Path:
        """Validate the id before building any path from it. A broken file's exact name is accepted
        only when the folder listing contains it (so no path is ever built from free text)."""
        if not isinstance(record_id, str):
            raise PendingError("that is not a pending write id")
        rid = record_id.strip()
        if rid.endswith(".json") and ID_RE.fullmatch(rid[:-5]):
            rid = rid[:-5]
        if ID_RE.fullmatch(rid):
            return self.folder / f"{rid}.json"
        named = [Path(e.path) for e in self._names() if e.name == rid]
        # a name that isn't UTF-8 is listed with U+FFFD for its bad bytes: that form finds it too
        named = named or [Path(e.path) for e in self._names() if printable(e.name) == rid]
        if len(named) == 1:
            return named[0]
        raise PendingError(f"{preview(printable(rid), 60)!r} is not a pending write id "
                           "(8 lowercase hex characters, e.g. 3f2a9c1e)")

    def _unknown(self, record_id: str) -> PendingError:
        rid = printable(str(record_id).strip())
        holder = self._claim_holder(rid)
        if holder:
            return PendingError(f"pending write {rid} is being approved or rejected right now by {holder}")
        return PendingError(f"no pending write with id {rid} (already approved or rejected?)")

    # -- inspecting ----------------------------------------------------------------------------

    def inspect(self, record: PendingRecord | str, *, snapshot: Snapshot | None = None,
                edited: str | Sequence[Op] | None = None, target: str | None = None) -> Inspection:
        """What approving would do now (nothing is written). With `edited`/`target`, for that version."""
        if isinstance(record, str):
            record = self.get(record)
        ops, tgt = self._ops_for(record, edited, target) if record.usable else (record.ops, record.target)
        store = self.stores.get(tgt) if tgt else None
        if store is None:
            return inspect_ops(record, ops, tgt, None, 0, True)
        if snapshot is None or snapshot.target != tgt:
            snapshot = store.read()
        person = edited is not None or target is not None
        batch = _is_batch(record, person)
        drift_ok = getattr(store, "_drift_allowed", None)
        return self._inspections.inspect(record, ops, tgt, snapshot, store.limit, store.enabled,
                                         bool(drift_ok(ops, batch)) if callable(drift_ok) else False, store.release,
                                         person=person, batch=batch)

    def inspect_all(self, records: Sequence[PendingRecord] | None = None) -> list[Inspection]:
        """Inspect many records, reading each target file once."""
        records = self.list() if records is None else records
        snaps = {t: s.read() for t, s in self.stores.items()}
        self._inspections.pass_begins()
        try:
            return [self.inspect(r, snapshot=snaps.get(r.target or "")) for r in records]
        finally:
            self._inspections.pass_ends()

    @staticmethod
    def groups(inspections: Iterable[Inspection]) -> dict[str, list[str]]:
        """group key → ids of records staging the same change (only keys shared by 2+ records)."""
        out: dict[str, list[str]] = {}
        for ins in inspections:
            if ins.group:
                out.setdefault(ins.group, []).append(ins.id)
        return {k: v for k, v in out.items() if len(v) > 1}

    def _ops_for(self, record: PendingRecord, edited: str | Sequence[Op] | None,
                 target: str | None) -> tuple[tuple[Op, ...], str | None]:
        tgt = target or record.target
        if tgt not in TARGETS:
            raise PendingError(f"target {tgt!r} is not memory or user")
        if edited is None:
            ops = record.ops
        elif isinstance(edited, str):
            changeable = [i for i, op in enumerate(record.ops) if op.action in ("add", "replace")]
            if len(record.ops) != 1 or not changeable:
                raise PendingError("only a single add or replace can be edited as text; give the operations instead")
            ops = (replace(record.ops[0], content=edited),)
        else:
            ops = tuple(edited)
            if not ops or not all(isinstance(op, Op) for op in ops):
                raise PendingError("edited operations must be a non-empty list of Op")
        if tgt != record.target:
            # Pins and old_text name entries of the record's own target; moving a replace/remove is
            # meaningless, so a move is an add of the new text to the other store.
            if any(op.action != "add" for op in ops):
                if len(ops) == 1 and ops[0].action == "replace":
                    ops = (Op("add", content=ops[0].content),)
                else:
                    raise PendingError("only an add (or a replace, as an add of its new text) can move to the other store")
        return tuple(ops), tgt

    # -- claiming (exactly one process applies a record) ----------------------------------------

    @contextmanager
    def _claimed(self, record_id: str) -> Iterator[tuple[Path, Path, str]]:
        """Hold a record as (claimed file, record path, id): put back if the block fails (unless the
        journal says its write happened: then it's done), deleted if it succeeds. Journal records
        written meanwhile carry the claim's name, so that if this process dies between the store
        write and the deletion, recovery knows the write happened."""
        from core.store.journal import tagged

        self.recover_claims()
        path = self._path_for(record_id)
        rid = printable(path.name[:-5] if path.name.endswith(".json") else path.name)
        with claims.claimed(path, lambda: self._unknown(rid), refused=lambda exc: cannot_take(rid, exc),
                            applied=lambda name: self._outcome(name) == "applied") as claim, tagged(claim.name):
            yield claim, path, rid
        self._cache.pop(path.name, None)

    def _outcome(self, claim_name: str) -> str:
        """What became of the write a claim was making: "applied" (the journal committed it, or a
        record in doubt whose text is in the file now) or "not applied" (no write, or aborted)."""
        history = self.history
        if history is None:
            return "not applied"
        tag = claim_name
        token = claims.token_of(claim_name)
        if token.startswith(GROUP_TOKEN):  # claimed by an approve-all: its file's group write says
            target = self._claimed_target(claim_name)
            if target is None:
                return "not applied"
            tag = group_tag(token, target)
        try:
            state, rec = history.outcome(tag)
        except Exception:  # noqa: BLE001 - an unreadable journal knows nothing
            return "not applied"
        if state == "committed":
            return "applied"
        if state == "in-doubt" and rec is not None:
            store = self.stores.get(rec.target)
            if store is None or str(store.path) != rec.path:
                return "not applied"
            try:
                with store.locked():  # no writer of that file is mid-write: its text now is final
                    committed = history.resolve(rec.path, store.read().raw)
            except (StoreError, OSError):
                return "unknown"
            return "applied" if rec.id in committed else "not applied"
        return "not applied"

    def _claimed_target(self, claim_name: str) -> str | None:
        """The target of the record held under this claim (None: not a usable record, so never
        applied)."""
        claim, parsed = self.folder / claim_name, claims.parse(claim_name)
        try:
            st = os.lstat(claim)
        except OSError:
            return None
        record = self._read(claim, (st.st_mtime_ns, st.st_size), st.st_mtime, st.st_size,
                            name=parsed.original if parsed else None)
        return record.target if record.usable else None

    def _claim_holder(self, rid: str) -> str | None:
        return claims.holder(self.folder, f"{rid}.json")

    def recover_claims(self) -> list[str]:
        """Settle the records claimed by an hmc that died mid-approval or mid-rejection (its pid is
        gone, or the claim is older than any approval takes): a claim whose write the journal
        shows happened is deleted (the record was applied), any other is put back. Returns the ids
        put back. Runs before every list, get, approve and reject."""
        settled = {"applied": True, "not applied": False}  # "unknown": left for the next time

        def mine(claim: claims.Claim) -> bool:
            original = claim.original
            return original.endswith(".json") and bool(ID_RE.fullmatch(original[:-5])) and claim.pid is not None

        back = claims.recover(self.folder, lambda name: settled.get(self._outcome(name)), max_age=STALE_CLAIM_SECONDS,
                              mine=mine)
        return [claim.original[:-5] for claim in back]

    # -- approving -----------------------------------------------------------------------------

    def approve(self, record_id: str, *, edited: str | Sequence[Op] | None = None, target: str | None = None,
                force: bool = False, seen: Inspection | None = None) -> Approval:
        """Apply the record through the target store and delete it; on any failure it stays pending.

        `edited` (new text, or ops) and `target` approve an edited version. `force` writes despite a
        scanner hit. `seen` is the inspection the person looked at: unpinned replace/remove ops are
        pinned to the entries it showed, and a record rewritten since is refused.
        """
        with self._claimed(record_id) as (claim, path, rid):
            return self._apply_claimed(claim, path, rid, edited, target, force, seen)

    def _apply_claimed(self, claim: Path, path: Path, rid: str, edited, target, force: bool,
                       seen: Inspection | None, write: Callable[..., WriteResult] | None = None) -> Approval:
        """Approve the claimed record; `write(store, ops, **apply's keywords)` makes the write
        (default: `store.apply`; approve-all passes its group's)."""
        st = os.lstat(claim)
        record = self._read(claim, (st.st_mtime_ns, st.st_size), st.st_mtime, st.st_size, name=path.name)
        if record.broken:
            raise ApproveRefused(rid, BROKEN, f"{record.file}: {record.broken}")
        if record.problem:
            raise ApproveRefused(rid, record.problem_kind, record.problem)
        if seen is not None and seen.record.raw != record.raw:
            raise ApproveRefused(rid, CHANGED, "the record changed since you looked at it; look again before approving")
        try:
            ops, tgt = self._ops_for(record, edited, target)
        except PendingError as exc:
            raise ApproveRefused(rid, MALFORMED, str(exc)) from None
        warnings: list[str] = []
        store = self.stores[tgt]
        if (store.release.pins and edited is None and target is None
                and any(op.action in DESTRUCTIVE and op.matched_entry is None for op in ops)):
            raise ApproveRefused(rid, UNPINNED, unpinned_reason(store.release.name))
        if seen is not None and edited is None and target is None:
            ops = tuple(replace(op, matched_entry=m) if op.action in DESTRUCTIVE and op.matched_entry is None and m
                        else op for op, m in zip(ops, seen.matched or (None,) * len(ops)))
        elif any(op.action in DESTRUCTIVE and op.matched_entry is None for op in ops):
            warnings.append("applied without a pin: the entry was found by its text, as older Hermes did")
        edited_by_person = edited is not None or target is not None
        auto = record.auto and not edited_by_person  # the review's write, approved as it staged it
        action = f"approve {rid}" + (" (edited)" if edited_by_person else f" {AUTO_MARK}" if auto else "")
        try:
            # A staged write replays the release's rules exactly (its scan refuses outright, no
            # shrinking exception); hmc only asks more: its wider scan and a batch emptying the file
            # need `force`. An edited version is the person's own write.
            result = (write or _store_apply)(store, list(ops), force=force, action=action, person=edited_by_person,
                                             batch=_is_batch(record, edited_by_person))
        except Conflict as exc:
            message = _pin_message(exc) if seen is None or record.ops == ops else \
                "the entry you saw changed since you looked (another writer); look again before approving"
            raise ApproveRefused(rid, PIN_CHANGED, message) from None
        except ScanRefused as exc:
            raise ApproveRefused(rid, _classify(exc), str(exc), exc.findings) from None
        except StoreError as exc:
            kind = _classify(exc)
            message = str(exc).split("\n", 1)[0] if kind == LIMIT else str(exc)
            raise ApproveRefused(rid, kind, message) from None
        return Approval(rid, tgt, result, edited is not None or target is not None, tuple(warnings), auto)

    def approve_all(self, seen: Iterable[Inspection] | None = None) -> Report:
        """Approve every record, oldest first, going on past failures (they stay, with reasons).
        Never forces past a scanner hit. With `seen` (the inspections a person looked at), only
        those records are approved, each exactly as seen (see `approve`); any staged since are
        left for the person (`Report.skipped`). Each record's outcome is the one `approve` one by
        one would give; the writes are made together (core/pending/approve_all.py)."""
        shown = {i.id: i for i in seen} if seen is not None else None
        outcomes: dict[int, Approval | Failure] = {}
        todo, skipped = [], []
        for n, record in enumerate(self.list()):
            if shown is not None and record.id not in shown:
                skipped.append(record.id)
            elif not record.usable:
                outcomes[n] = Failure(record.id, BROKEN if record.broken else record.problem_kind,
                                      f"{record.file}: {record.broken}" if record.broken else str(record.problem))
            else:
                todo.append((n, record))
        outcomes.update(approve_together(self, todo, shown))
        done = tuple(o for _, o in sorted(outcomes.items()) if isinstance(o, Approval))
        failed = tuple(o for _, o in sorted(outcomes.items()) if isinstance(o, Failure))
        return Report(done, failed, tuple(skipped))

    # -- rejecting -----------------------------------------------------------------------------

    def reject(self, record_id: str) -> PendingRecord:
        """Delete the record (a copy is kept in hmc's state folder). Returns what was rejected."""
        with self._claimed(record_id) as (claim, path, _):
            st = os.lstat(claim)
            if stat.S_ISDIR(st.st_mode):
                raise PendingError(f"{printable(path.name)} is a folder, not a record; hmc won't delete a folder")
            record = self._read(claim, (st.st_mtime_ns, st.st_size), st.st_mtime, st.st_size, name=path.name)
            if stat.S_ISREG(st.st_mode):  # a link, FIFO, socket or device goes without a copy
                self._archive(claim, path.name)
        return record

    def reject_all(self, ids: Iterable[str] | None = None) -> Report:
        """Reject every record (or only those in `ids`: what a person confirmed)."""
        wanted = set(ids) if ids is not None else None
        done, failed, skipped = [], [], []
        for record in self.list():
            if wanted is not None and record.id not in wanted:
                skipped.append(record.id)
                continue
            try:
                self.reject(record.id if record.valid_id else record.file)
                done.append(record.id)
            except PendingError as exc:
                failed.append(Failure(record.id, getattr(exc, "kind", REFUSED), str(exc)))
        return Report(tuple(done), tuple(failed), tuple(skipped))

    def reject_invalid(self, ids: Iterable[str] | None = None) -> Report:
        """Reject every record that can never apply (`Inspection.never_applies`: broken, malformed,
        too large, pin changed, no match, ambiguous, empty text, blocked by Hermes's scan, unpinned),
        or only those of `ids` that still never can. Kept: hmc's scanner hits and a batch that would
        empty the file (a person decides), over the limit (memory may shrink), a disabled target, a
        drifted or unreadable file (a repair fixes it)."""
        wanted = set(ids) if ids is not None else None
        done, failed = [], []
        for ins in self.inspect_all():
            if not ins.never_applies or (wanted is not None and ins.id not in wanted):
                continue
            record = ins.record
            try:
                self.reject(record.id if record.valid_id else record.file)
                done.append(record.id)
            except PendingError as exc:
                failed.append(Failure(record.id, getattr(exc, "kind", REFUSED), str(exc)))
        return Report(tuple(done), tuple(failed))

    # -- the rejected archive (undo a reject) ---------------------------------------------------

    @property
    def archive_dir(self) -> Path:
        history = self.history
        return (history.folder if history is not None else self.folder.parent) / "rejected"

    def _archive(self, claim: Path, name: str) -> None:
        """Keep a private copy (0600, in a 0700 folder: records may hold secrets); the record's own
        mode goes in the copy's name, to be given back by `undo_reject`."""
        from core.store.journal import private_state_folder

        folder = self.archive_dir
        try:
            private_state_folder(folder)
            stamp = f"{self.now():.6f}".replace(".", "")
            mode = _mode(claim)
            dest = folder / f"{stamp}-m{mode:03o}-{name}"
            atomic_write(dest, read_regular(claim, MAX_RECORD_BYTES, follow_symlinks=False), PRIVATE_FILE,
                         prefix=f".{dest.name}.")
        except TooLarge:
            return  # too large to be a record: rejected without a copy
        except OSError as exc:
            raise PendingError(f"can't keep a copy of the rejected record ({_why(exc)}); nothing was rejected") from None

    def rejected(self) -> list[Path]:
        """Archived rejected records, newest first."""
        try:
            return sorted((p for p in self.archive_dir.iterdir() if p.suffix == ".json" and not p.name.startswith(".")),
                          key=lambda p: p.name, reverse=True)
        except OSError:
            return []

    def undo_reject(self) -> str:
        """Put the most recently rejected record back in the queue, with its own mode. Returns its id."""
        for archived in self.rejected():
            rest = archived.name.split("-", 1)[-1]
            mode = None
            found = re.fullmatch(r"m([0-7]{3})-(.*)", rest)
            if found:
                mode, rest = int(found.group(1), 8), found.group(2)
            name = rest
            if not (name.endswith(".json") and ID_RE.fullmatch(name[:-5])):
                continue
            dest = self.folder / name
            if os.path.lexists(dest):
                raise PendingError(f"pending write {name[:-5]} is already back in the queue")
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                data = read_regular(archived, MAX_RECORD_BYTES, follow_symlinks=False)
                atomic_write(dest, data, mode if mode is not None else _mode(archived), prefix=f".{name}.restore-")
            except OSError as exc:
                raise PendingError(f"can't put the rejected record back ({_why(exc)})") from None
            claims.remove(archived)
            return name[:-5]
        raise PendingError("no rejected record to bring back")


def _store_apply(store: "MemoryStore", ops: list[Op], **kw: Any) -> WriteResult:
    return store.apply(ops, **kw)


def _order(record: PendingRecord) -> tuple[float, str]:
    """Oldest first, then by file name: a total order even for records with odd times."""
    return (record.created_at, record.path.name)


def _mode(path: Path) -> int:
    """A record's permission bits, kept when it is archived and put back."""
    return os.lstat(path).st_mode & 0o777


__all__ = [
    "PendingQueue", "PendingRecord", "Inspection", "EntryChange", "Scanned", "Approval", "Failure", "Report",
    "PendingError", "ApproveRefused", "NEVER_APPLIES", "parse_record", "inspect_ops", "entry_changes", "inline_diff",
    "group_key", "describe", "approved_by",
]
