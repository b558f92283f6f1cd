"""Approve-all as a group commit: each record's outcome is `PendingQueue.approve`'s one by one, the
writes are made together — per file one lock, one replace and one journal record (core/store/group.py)
— instead of a locked, re-read, journaled and fsynced write per record, and one folder fsync for all
the claims instead of two per record.

Undo: the journal holds one write per file for an approve-all (action `approve all (N records)`,
its detail naming the records; `approve <id>` when one record changed the file), so `hmc undo` (u)
undoes the whole approve-all of the file hmc wrote last (USER.md's before MEMORY.md's when it
touched both). `approved_by` (core.pending.records) reads back which records a journal record applied.
"""

from __future__ import annotations

import os
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from core.pending import claims
from core.pending.inspection import Inspection, _classify
from core.pending.records import AUTO_MARK, REFUSED, approved_by, ApproveRefused, PendingError, PendingRecord, cannot_take, printable, why
from core.pending.results import Approval, Failure
from core.store.atomic import fsync_dir
from core.store.group import Group
from core.store.journal import tagged
from core.store.memory import TARGETS, Op, StoreError, WriteResult

if TYPE_CHECKING:  # pragma: no cover
    from core.store.memory import MemoryStore


GROUP_TOKEN = "all"  # an approve-all's claims: "all" + hex (a lone claim's token is hex only)


def group_tag(token: str, target: str) -> str:
    """The journal tag of an approve-all's write of one file (its claims' token and the target)."""
    return f"approve all {token} {target}"


def group_action(approvals: Sequence[Approval]) -> tuple[str, str]:
    """The journal's action and detail for one file's approve-all write."""
    wrote = [a for a in approvals if a.changed] or list(approvals)
    if len(wrote) == 1:
        return f"approve {wrote[0].id}" + (f" {AUTO_MARK}" if wrote[0].auto else ""), "; ".join(wrote[0].result.messages)
    auto = [a.id for a in wrote if a.auto]
    return (f"approve all ({len(wrote)} records)",
            "approved " + " ".join(a.id for a in wrote) + (f" {AUTO_MARK} " + " ".join(auto) if auto else ""))


def put_back(held: Sequence[tuple[Path, Path]], folder: Path) -> None:
    """Rename claims back to their records' names (as `claims.claimed` does on a failure), then
    make that durable with one folder fsync. Raises PendingError when one can't go back (then
    nothing may be written: recovery would take its claim for an applied record)."""
    stuck = []
    for claim, path in held:
        try:
            os.rename(claim, path)
        except OSError as exc:
            stuck.append((path, exc))
    if held:
        fsync_dir(folder)
    if stuck:
        path, exc = stuck[0]
        raise PendingError(f"can't put pending write {printable(path.stem)} back in the queue ({why(exc)}); "
                           "nothing was approved")


def approve_together(queue: Any, todo: Sequence[tuple[int, PendingRecord]],
                     shown: dict[str, Inspection] | None) -> dict[int, Approval | Failure]:
    """Approve the records of `todo` ((position, record), oldest first) of `queue` (the
    core.pending.queue.PendingQueue, which calls this: not imported here) with one group commit
    per file (core/store/group.py) instead of a locked, journaled, fsynced write each.

    Crash safety, in this order: every record is claimed under one shared token and the
    claims made durable with one folder fsync; each file's lock is taken once and every record
    applied in order to the in-memory file (`approve`'s own code, so the same outcome each);
    the refused are put back, durably, *before* anything is written; then each file is
    replaced once, journaled as one write tagged `group_tag(token, target)`; then the applied
    records' claims are deleted (one fsync). Killed anywhere, the next run's recovery finds
    each leftover claim's outcome in the journal: the group of its record's target committed
    (or in doubt and its text in the file) means applied, so the claim is deleted; anything
    else puts it back, never applied."""
    out: dict[int, Approval | Failure] = {}
    token = f"{GROUP_TOKEN}{os.urandom(4).hex()}"
    held: list[tuple[int, str, Path, Path, str]] = []  # (position, id, claim, record path, id as shown)
    for n, record in todo:
        try:
            path = queue._path_for(record.id)
        except PendingError as exc:
            out[n] = Failure(record.id, REFUSED, str(exc))
            continue
        rid = printable(path.name[:-5] if path.name.endswith(".json") else path.name)
        try:
            claim = claims.take(path, token, sync=False)
        except FileNotFoundError:
            out[n] = Failure(record.id, REFUSED, str(queue._unknown(rid)))
            continue
        except OSError as exc:
            error = cannot_take(rid, exc)
            out[n] = Failure(record.id, getattr(error, "kind", REFUSED), str(error))
            continue
        held.append((n, record.id, claim, path, rid))
    if not held:
        return out
    try:
        fsync_dir(queue.folder)
        applied: dict[str, list[tuple[int, str, Path, Path, Approval]]] = {}
        with ExitStack() as stack:
            groups: dict[str, Group] = {}

            def write(store: "MemoryStore", ops: list[Op], **kw: Any) -> WriteResult:
                group = groups.get(store.target)
                if group is None:  # a record whose file changed since it was listed
                    group = groups[store.target] = stack.enter_context(Group.held(store))
                return group.apply(ops, **kw)

            # every file's lock up front, in one order: two approve-alls never wait on each other crosswise
            wanted = {record.target for _, record in todo}
            for tgt in TARGETS:
                if tgt in wanted and tgt in queue.stores:
                    groups[tgt] = stack.enter_context(Group.held(queue.stores[tgt]))
            refused: list[tuple[Path, Path]] = []
            for n, rec_id, claim, path, rid in held:
                try:
                    approval = queue._apply_claimed(claim, path, rid, None, None, False,
                                                   shown.get(rec_id) if shown else None, write=write)
                except ApproveRefused as exc:
                    out[n] = Failure(rec_id, exc.kind, str(exc))
                    refused.append((claim, path))
                except PendingError as exc:
                    out[n] = Failure(rec_id, getattr(exc, "kind", REFUSED), str(exc))
                    refused.append((claim, path))
                else:
                    out[n] = approval
                    applied.setdefault(approval.target, []).append((n, rec_id, claim, path, approval))
            put_back(refused, queue.folder)  # durable before anything is written
            for tgt, group in groups.items():
                mine = applied.get(tgt, [])
                try:
                    with tagged(group_tag(token, tgt)):
                        group.commit(*group_action([a for *_, a in mine]))
                except StoreError as exc:  # nothing written: all of this file's records stay
                    for n, rec_id, claim, path, _ in mine:
                        out[n] = Failure(rec_id, _classify(exc), str(exc))
                    put_back([(claim, path) for _, _, claim, path, _ in mine], queue.folder)
                    applied[tgt] = []
        for mine in applied.values():
            for _, _, claim, path, _ in mine:
                claims.remove(claim, sync=False)
                queue._cache.pop(path.name, None)
        fsync_dir(queue.folder)
    except BaseException:
        settle(queue, [(claim, path) for _, _, claim, path, _ in held])
        raise
    return out


def settle(queue: Any, held: Sequence[tuple[Path, Path]]) -> None:
    """After an error mid-way: each claim still held is deleted if its write happened (the
    journal says so), else put back."""
    for claim, path in held:
        if not os.path.lexists(claim):
            continue
        try:
            if queue._outcome(claim.name) == "applied":
                claims.remove(claim)
            else:
                put_back([(claim, path)], queue.folder)
        except (OSError, PendingError):  # pragma: no cover - the next run's recovery retries
            pass
