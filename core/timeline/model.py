"""What the rebuilt history is made of: a write (who, when, what it changed), an entry's blame, a
diff between two moments, a divergence the replay found, and the errors a rollback raises. Values
only; history.py rebuilds them, view.py and the interfaces read them.
"""

from __future__ import annotations

from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, field
from datetime import date, datetime, time as dt_time
from typing import Sequence

from core.store.memory import StoreError


MAX_BACKUP_BYTES = 1 << 20


class TimelineError(StoreError):
    """A history request that can't be met (unknown write id, nothing to roll back…)."""


class RollbackConflict(StoreError):
    """The entries a write touched have changed since: rolling it back would overwrite that change."""

    def __init__(self, message: str, problems: Sequence[str]):
        super().__init__(message)
        self.problems = list(problems)


Change = tuple  # (text before or None, text after or None): one entry's net change in one write


@dataclass(slots=True, eq=False)
class Write:
    id: str
    timestamp: float
    by: str  # agent | hmc | unknown
    source: str  # the session's source (cli, telegram…) for the agent; "hmc"; "outside"
    target: str
    action: str  # add | replace | remove | batch | hmc's action (edit, approve, undo, rollback…) | outside
    session_id: str | None = None
    message_id: int | None = None
    old_text: str | None = None
    content: str | None = None
    operations: tuple[dict, ...] | None = None
    changes: tuple[Change, ...] = ()
    note: str | None = None  # what the replay found wrong here (a divergence)
    detail: str | None = None  # hmc's journal detail / tag
    log: tuple = ()  # what it did to the replay's store (core.timeline.state): `before`/`after` come from it
    history: object = field(default=None, repr=False)  # the writes.Writes it belongs to (None: on its own)
    seen: float | None = field(default=None, repr=False)  # where the replay put it, when evidence moved `timestamp`

    @property
    def seen_at(self) -> float:
        """The write's place in the replay's time (what a store's state at a moment is built from);
        `timestamp` is when it was written, which evidence may put earlier (core.timeline.attribution)."""
        return self.timestamp if self.seen is None else self.seen

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def before(self) -> tuple[str, ...]:
        """The store's entries just before this write (replayed from the history's logs)."""
        return self.history.entries(self, after=False) if self.history is not None else ()

    @property
    def after(self) -> tuple[str, ...]:
        """The store's entries just after this write."""
        return self.history.entries(self, after=True) if self.history is not None else ()

    def row(self) -> tuple:
        """The cache's form: every field but `history` and `seen`, in order."""
        return (self.id, self.timestamp, self.by, self.source, self.target, self.action, self.session_id,
                self.message_id, self.old_text, self.content, self.operations, self.changes, self.note,
                self.detail, self.log)

    def to_json(self) -> dict:
        return {
            "id": self.id, "timestamp": self.timestamp, "session_id": self.session_id,
            "message_id": self.message_id, "source": self.source, "by": self.by, "target": self.target,
            "action": self.action, "old_text": self.old_text, "content": self.content,
            "operations": list(self.operations) if self.operations is not None else None,
            "changes": [{"before": b, "after": a} for b, a in self.changes], "note": self.note,
        }

    def origin_json(self) -> dict:
        return {"id": self.id, "session_id": self.session_id, "message_id": self.message_id,
                "timestamp": self.timestamp, "source": self.source, "by": self.by}


ROW = len(Write.__dataclass_fields__) - 2  # a cached row: every field but `history` and `seen`


class Blame:
    """One current entry: the write that produced its text (`origin`; None: a hand edit or an
    unknown writer), the write where it first appeared (`first_seen`, an outside one included) and
    how many texts it has had (`revisions`: 1 for an entry added and never changed). `origin` and
    `first_seen` may be given as indexes into the history's writes (`writes`): the Write is made
    when it is first read, so a blame nobody looks at costs no objects. Immutable."""

    __slots__ = ("target", "index", "text", "revisions", "_origin", "_first", "_writes")

    def __init__(self, target: str, index: int, text: str, origin: "Write | int | None",
                 first_seen: "Write | int | None", revisions: int, writes: "Sequence[Write] | None" = None):
        put = object.__setattr__
        put(self, "target", target)
        put(self, "index", index)
        put(self, "text", text)
        put(self, "revisions", revisions)
        put(self, "_origin", origin)
        put(self, "_first", first_seen)
        put(self, "_writes", writes)

    def __setattr__(self, name, value):
        raise AttributeError(f"Blame is immutable (can't set {name})")

    def _resolve(self, slot: str) -> "Write | None":
        value = getattr(self, slot)
        if type(value) is int:
            value = self._writes[value]
            object.__setattr__(self, slot, value)
        return value

    @property
    def origin(self) -> Write | None:
        """The write that produced this text; None: a hand edit or an unknown writer."""
        return self._resolve("_origin")

    @property
    def first_seen(self) -> Write | None:
        """The write where the entry first appeared (an outside one included)."""
        return self._resolve("_first")

    def _key(self) -> tuple:
        return (self.target, self.index, self.text, self.origin, self.first_seen, self.revisions)

    def __eq__(self, other) -> bool:
        return self._key() == other._key() if isinstance(other, Blame) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Blame(target={self.target!r}, index={self.index!r}, text={self.text!r}, origin={self.origin!r}, "
                f"first_seen={self.first_seen!r}, revisions={self.revisions!r})")

    def to_json(self) -> dict:
        return {"index": self.index, "number": self.index + 1, "text": self.text,
                "origin": self.origin.origin_json() if self.origin else None,
                "first_seen": self.first_seen.origin_json() if self.first_seen else None,
                "revisions": self.revisions}


class Blames(SequenceABC):
    """One store's blame, entry by entry, each Blame made when it is asked for (an update that
    nobody asks for a blame builds none). `entries` are the replay's final entries as columns
    (texts, origins, firsts, revisions, ...: write indexes, -1 for none), `writes` the history
    (`field(i, k)`, indexing)."""

    def __init__(self, target: str, entries: tuple, writes) -> None:
        self._target, self._writes = target, writes
        self._texts, self._origins, self._firsts, self._revisions = entries[:4]

    def __len__(self) -> int:
        return len(self._texts)

    def _make(self, i: int) -> Blame:
        origin, first = self._origins[i], self._firsts[i]
        if origin < 0 or self._writes.field(origin, 2) == "unknown":
            origin = None  # an outside write made this text: nobody known
        return Blame(self._target, i, self._texts[i], origin, first if first >= 0 else None, self._revisions[i],
                     self._writes)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self._make(i)

    def __iter__(self):
        for i in range(len(self)):
            yield self._make(i)


@dataclass(frozen=True)
class Diff:
    target: str
    before: tuple[str, ...]
    after: tuple[str, ...]

    @property
    def added(self) -> list[str]:
        old = set(self.before)
        return [e for e in self.after if e not in old]

    @property
    def removed(self) -> list[str]:
        new = set(self.after)
        return [e for e in self.before if e not in new]


ROLLBACK_TAG = "rollback of "  # hmc's journal tag on a rollback's write: "rollback of <write id>"
REVIEW_SOURCE = "background review"  # the source of a write Hermes's background review made


@dataclass(frozen=True)
class Divergence:
    target: str
    write_id: str | None  # the write where it was found (None: the files now)
    detail: str
    outside: str | None = None  # the outside write (x…) it put in the history; None: a count that didn't add up


def as_epoch(when: float | int | datetime | date | None, end_of_day: bool = False) -> float | None:
    """A moment as Unix seconds: a naive datetime or a date is local time (a date: its start, or
    its end with `end_of_day`)."""
    if when is None:
        return None
    if isinstance(when, datetime):
        return when.timestamp()
    if isinstance(when, date):
        moment = datetime.combine(when, dt_time.max if end_of_day else dt_time.min)
        return moment.timestamp()
    return float(when)


def change_summary(changes: Sequence[tuple]) -> str:
    """`2 added, 1 edited`: what a set of (before, after) changes did ("reordered" when none)."""
    added = sum(1 for b, _ in changes if b is None)
    removed = sum(1 for _, a in changes if a is None)
    edited = sum(1 for b, a in changes if b is not None and a is not None)
    parts = [f"{n} {what}" for n, what in ((added, "added"), (removed, "removed"), (edited, "edited")) if n]
    return ", ".join(parts) or "reordered"
