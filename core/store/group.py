"""Many writes to one store under one hold of its lock, written once (a group commit).

`MemoryStore.apply` locks, re-reads, checks, replaces the file and journals it, for each write. A
`Group` (from `MemoryStore.group()`) takes the lock once, reads the file once, and applies each
write in turn to an in-memory copy with exactly the checks and rules `apply` uses (the same code:
the release's prechecks and scans, hmc's wider scan, the drift guard, the limit, the plan), so each
write's outcome is the one `apply` would give had the writes been made one after another with
nothing else writing in between — which the lock guarantees. `commit` then replaces the file once
and journals the whole group as one write (before: the file as the group found it; after: the
file it leaves), so an undo undoes the group.

A write the group refuses changes nothing; one it accepts changes only the in-memory copy until
`commit`. Leaving the block without `commit` writes nothing. When the lock can't be taken, every
write is refused with the reason `apply` would give (after the checks `apply` makes before its
lock). The approve-all of the memory queue (core/pending/queue.py) is its caller.
"""

from __future__ import annotations

from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence

from core.store.memory import Op, Snapshot, StoreError, WriteResult, _encode

if TYPE_CHECKING:  # pragma: no cover
    from core.store.memory import MemoryStore


class Group:
    def __init__(self, store: "MemoryStore"):
        self.store = store
        self.start: Snapshot | None = None  # the file as the group found it (under the lock)
        self.snap: Snapshot | None = None  # the file as the writes so far leave it
        self.error: StoreError | None = None  # why the lock couldn't be taken
        self.wrote = 0  # writes that changed the in-memory file
        self.backups: list[Path] = []

    @classmethod
    @contextmanager
    def held(cls, store: "MemoryStore") -> Iterator["Group"]:
        group = cls(store)
        with ExitStack() as stack:
            try:
                stack.enter_context(store.locked())
            except StoreError as exc:
                group.error = exc
            group.start = group.snap = store.read()
            yield group

    def apply(self, ops: Sequence[Op], *, force: bool = False, action: str | None = None, person: bool = True,
              allow_empty: bool | None = None, batch: bool | None = None, tool: bool = False) -> WriteResult:
        """`MemoryStore.apply` on the in-memory file (nothing is written until `commit`)."""
        store, snap = self.store, self.snap
        assert snap is not None, "Group.apply outside Group.held"
        findings = store._refuse_before_lock(ops, force=force, person=person, batch=batch, tool=tool,
                                             entries=lambda: snap.entries)
        if self.error is not None:
            raise type(self.error)(str(self.error))  # an Unwritable store stays one (exit 2)
        store._refuse_disabled()
        snap = store._refuse_unwritable(snap, allow_drift=store._drift_allowed(ops, batch))
        result, new_text, write, backup = store._plan_write(snap, ops, force=force, person=person,
                                                            allow_empty=allow_empty, batch=batch)
        if write:
            _encode(new_text)  # a lone surrogate is refused here, as the file's write would refuse it
            self.snap = store.snapshot_of(new_text, symlink=snap.symlink, tidy_check=False)
            self.wrote += 1
        if backup is not None:
            self.backups.append(backup)
        return store._result(result, findings, backup)

    @property
    def text(self) -> str | None:
        """The file's text once committed (None: the group writes nothing)."""
        if self.error is not None or not self.wrote or self.snap is None or self.start is None:
            return None
        return None if self.snap.raw == self.start.raw and self.start.exists else self.snap.raw

    def commit(self, action: str, detail: str) -> bool:
        """Replace the file once with what the writes left, journaled as one write; False when
        there is nothing to write. Raises StoreError (the file as it was, nothing journaled)."""
        text = self.text
        if text is None:
            return False
        assert self.start is not None
        self.store._replace_locked(self.start, text, action, detail)
        return True
