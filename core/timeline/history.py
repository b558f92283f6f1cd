"""Every write to MEMORY.md / USER.md, rebuilt: who wrote each entry, when, and what it replaced.

Sources, merged by time:
- the agent's memory tool calls recorded in state.db (core.sessions.memory_calls), replayed with the
  detected release's rules (core.hermes.memory: substring matching, exact re-adds, batches), so a
  replace or remove by `old_text` resolves to the entry it really hit;
- hmc's own journal (its writes, approvals, undos, rollbacks: exact before and after texts);
- Hermes's `<file>.bak.<ts>` snapshots (the file as it was when a release found drift).

A journal record's `before`, a snapshot, an older release's echoed `entries`, and finally the files
as they are now are *observations*: where one differs from the replay, an `outside` write is put in
the history at that point (by `unknown`: a hand edit or an unrecorded write) and the divergence is
noted, naming where it was found. Entries keep an identity across replaces, so `blame` can say which
write produced an entry's current text, when the entry first appeared, and how many texts it has had
(`revisions`: 1 for an entry added and never changed).

Write ids: `m<id>` an agent call (the id of the message holding its result), `h<id>` an hmc journal
record, `x<n>` an outside change (numbered per rebuild: not a stable id, and not something to roll
back).
"""

from __future__ import annotations

import gc
import heapq
import operator
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence

from core.hermes.memory import DELIMITER, Op, OpError, decode, locate, parse, patch_entry, preview
from core.hermes.release import NEWEST, Release
from core.store.atomic import read_regular
from core.store.journal import Record, tagged
from core.store.memory import FILE_NAMES, TARGETS, Conflict, StoreError, WriteResult
from core.sessions.memory_calls import Call
from core.timeline.state import SEP, Line, State
from core.timeline.writes import Writes

if TYPE_CHECKING:  # pragma: no cover
    from core.curator import Curator

from core.timeline.model import (MAX_BACKUP_BYTES, TimelineError, RollbackConflict, Write, ROW, Blame, Blames, Diff, Divergence, as_epoch)  # noqa: F401  (what callers import from here)

# -- the rebuild -------------------------------------------------------------------------------------

class _Builder:
    def __init__(self, release: Release):
        self.release = release
        self.states = {t: State(t) for t in TARGETS}
        self.writes = Writes()
        self.divergences: list[Divergence] = []
        self._outside = 0
        # entries the release counted minus entries replayed, per target: a change means an unseen write
        self._offset = {t: 0 for t in TARGETS}

    def _record(self, row: tuple, touched: Iterable[Line]) -> int:
        """Add a write (its row, Write.row's order): the lines it touched now come from it."""
        i = self.writes.add(row)
        for line in touched:
            line.origin = i
            if line.first is None:
                line.first = i
        return i

    def observe(self, target: str, texts: Sequence[str], ts: float, where: str, found_at: str | None) -> None:
        """The store was seen holding `texts` at `ts`: anything the replay doesn't explain is outside."""
        state = self.states[target]
        texts = tuple(dict.fromkeys(texts))
        self._offset[target] = 0  # seen whole: any count difference so far is accounted for
        if state.texts == texts:
            return
        touched, changes, log = state.morph(texts)
        self._outside += 1
        added = sum(1 for b, _ in changes if b is None)
        removed = sum(1 for _, a in changes if a is None)
        edited = sum(1 for b, a in changes if b is not None and a is not None)
        parts = [f"{n} {what}" for n, what in ((added, "added"), (removed, "removed"), (edited, "edited")) if n]
        summary = ", ".join(parts) or "reordered"
        detail = f"{where} shows changes no recorded write explains ({summary})"
        i = self.writes.add((f"x{self._outside}", ts, "unknown", "outside", target, "outside", None, None, None,
                             None, None, tuple(changes),
                             "changed outside the agent: a hand edit or an unrecorded write", detail, log))
        for line in touched:
            line.origin = None
            if line.first is None:
                line.first = i
        afters = {a for _, a in changes if a is not None}
        for line in state.alive():  # an edited entry's text now comes from nobody known
            if line.text in afters:
                line.origin = None
        self.divergences.append(Divergence(target, found_at, detail))

    # the agent's calls
    def call(self, call: Call, ts: float, source: str) -> None:
        state = self.states[call.target]
        if call.action == "add":
            content = call.content
            if content and (content := content.strip()):
                self._add(state, call, content, ts, source)
                return
        wid = f"m{call.result_id}"
        note = None
        touched: list[Line] = []
        try:
            if call.action == "batch":
                for i, o in enumerate(call.operations or ()):
                    action = o.get("action", "")
                    self._apply(state, action, o.get("content") or "", o.get("old_text") or "",
                                f"Operation {i + 1} ({action or 'unknown'})", touched)
            else:
                self._apply(state, call.action, call.content or "", call.old_text or "", None, touched)
        except OpError as exc:
            state.undo()  # put back what a partly replayed batch changed
            touched = []
            note = (f"the release reported success, but replayed on the store as hmc rebuilt it the call "
                    f"fails: {exc}")
            self.divergences.append(Divergence(call.target, wid, note))
            changes, log = [], ()
        else:
            count_after = len(state)
            changes, log = state.commit()  # the next load drops a duplicate a replace made
            note = self._counted(call, state, wid, count_after)
        row = (wid, ts, "agent", source or "agent", call.target, call.action, call.session_id, call.message_id,
               call.old_text, call.content, call.operations, tuple(changes), note, None, log)
        self._record(row, [line for line in dict.fromkeys(touched) if not line.dead])
        if call.entries is not None:  # the release echoed the store: an observation right after the call
            self.observe(call.target, call.entries, ts, f"the result of {wid}", wid)

    def _add(self, state: State, call: Call, content: str, ts: float, source: str) -> None:
        """The common write on its own (a non-empty add): it can't fail, so no transaction to note
        and undo, and the write's row is made directly."""
        wid = f"m{call.result_id}"
        i = len(self.writes)
        line = state.add_new(content, i)
        if line is None:  # an exact re-add: nothing changes
            changes, log = (), ()
        else:
            changes, log = ((None, content),), (line.seq, content)
        note = self._counted(call, state, wid) if call.entry_count is not None else None
        self.writes.add((wid, ts, "agent", source or "agent", call.target, "add", call.session_id, call.message_id,
                         call.old_text, call.content, call.operations, changes, note, None, log))
        if call.entries is not None:
            self.observe(call.target, call.entries, ts, f"the result of {wid}", wid)

    def _counted(self, call: Call, state: State, wid: str, count_after: int | None = None) -> str | None:
        """Compare the entries the release counted after the call with the replay's: a change in
        the difference means an unseen write before it (a divergence: its note, else None)."""
        if call.entry_count is None or call.entries is not None:
            return None
        count_after = len(state) if count_after is None else count_after
        offset = call.entry_count - count_after
        if offset == self._offset[call.target]:
            return None
        self._offset[call.target] = offset
        note = (f"the release counted {call.entry_count} entries after this call, the replay "
                f"{count_after}: the store had changed outside the agent before it")
        self.divergences.append(Divergence(call.target, wid, note))
        return note

    def _locate(self, state: State, old_text: str, action: str, pos: str | None) -> Line:
        """The line an old_text selects, by the release's rules: the indexes answer a unique match;
        anything else (no match, an ambiguous one, 0.22's folded retry) goes to the release's own
        rule over the whole store, which also words its refusal."""
        old = old_text if action == "patch" else old_text.strip()
        if old.strip() and SEP not in old:
            if self.release.exact_entry_first:
                line = state.first_with(old)
                if line is not None:
                    return line
            line, unique = state.find(old)
            if line is not None and unique:
                return line
        lines = list(state.alive())
        return lines[locate([line.text for line in lines], old_text, None, self.release, action, pos)]

    def _apply(self, state: State, action: str, content: str, old_text: str, pos: str | None,
               touched: list[Line]) -> None:
        """One operation (an add, replace, remove or 0.22 patch) on the store, by the release's rules."""
        raw = content
        content = content.strip()
        if action == "add":
            if not content:
                raise OpError(f"{pos}: content is required." if pos else "Content cannot be empty.")
            if not state.has(content):
                touched.append(state.append(content))
            return
        if action == "replace":
            if not content:
                raise OpError("new_content cannot be empty.")
            line = self._locate(state, old_text, "replace", pos)
            if line.text != content:
                state.set_text(line, content)
                line.revisions += 1
                touched.append(line)
            return
        if action == "remove":
            state.kill(self._locate(state, old_text, "remove", pos))
            return
        if action == "patch":  # 0.22: one span inside the entry; the release's scan passed it
            line = self._locate(state, old_text, "patch", pos)
            state.set_text(line, patch_entry(line.text, old_text, raw, self.release, scan=False))
            line.revisions += 1
            touched.append(line)
            return
        raise OpError(f"Unknown action '{action}'.")

    # hmc's journal
    def record(self, rec: Record) -> None:
        wid = f"h{rec.id}"
        self.observe(rec.target, parse(decode_text(rec.before)), rec.ts, f"the text hmc found before its write {wid}",
                     wid)
        state = self.states[rec.target]
        touched, changes, log = state.morph(parse(decode_text(rec.after)))
        detail = rec.tag or rec.detail
        i = self._record((wid, rec.ts, "hmc", "hmc", rec.target, rec.action or "edit", None, None, None, None, None,
                          tuple(changes), None, detail, log), touched)
        afters = {a for _, a in changes if a is not None}
        for line in state.alive():
            if line.text in afters:
                line.origin = i


def decode_text(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


# -- the timeline --------------------------------------------------------------------------------------

@dataclass
class Timeline:
    """The rebuilt history of one profile's two stores (build it with `build_timeline`)."""

    writes: "Writes | list[Write]"
    current: dict[str, list[Blame]]
    divergences: list[Divergence]
    stats: dict
    curator: "Curator | None" = None

    # -- queries -----------------------------------------------------------------------------------
    def log(self, target: str | None = None, since=None, until=None, source: str | None = None) -> list[Write]:
        """Every write, oldest first; `since`/`until` take a datetime, a date (whole days) or Unix
        seconds; `source` matches `by` (agent, hmc, unknown) or the session's source (telegram…)."""
        start, end = as_epoch(since), as_epoch(until, end_of_day=True)
        out = []
        for w in self.writes:
            if target and w.target != target:
                continue
            if start is not None and w.timestamp < start:
                continue
            if end is not None and w.timestamp > end:
                continue
            if source and source not in (w.by, w.source):
                continue
            out.append(w)
        return out

    def write(self, write_id: str) -> Write:
        writes = self.writes
        i = writes.index_of(write_id) if isinstance(writes, Writes) else next(
            (n for n, w in enumerate(writes) if w.id == write_id), None)
        if i is None:
            raise TimelineError(f"no write {write_id!r} in this profile's history (see `hmc log`)")
        return writes[i]

    def blame(self, target: str | None = None) -> list[Blame]:
        """Each current entry (the files as they are now), in file order."""
        if target:
            return list(self.current.get(target, []))
        return [b for t in TARGETS for b in self.current.get(t, [])]

    def state_at(self, when, target: str | None = None) -> dict[str, tuple[str, ...]]:
        """Each store's entries as they were at `when` (a datetime, a date = its end, or Unix seconds)."""
        moment = as_epoch(when, end_of_day=True)
        out: dict[str, tuple[str, ...]] = {}
        for t in ([target] if target else TARGETS):
            if not isinstance(self.writes, Writes):
                state: tuple[str, ...] = ()
                for w in self.writes:
                    if w.target == t and w.timestamp <= moment:
                        state = w.after
                out[t] = state
                continue
            last = -1
            for i, ts, wt, _ in self.writes.scan():
                if wt == t and ts <= moment:
                    last = i
            out[t] = self.writes.entries_until(t, last + 1) if last >= 0 else ()
        return out

    def diff(self, t1, t2, target: str | None = None) -> list[Diff]:
        a, b = self.state_at(t1, target), self.state_at(t2, target)
        return [Diff(t, a[t], b[t]) for t in a]

    # -- rollback ----------------------------------------------------------------------------------
    def rollback_plan(self, write_id: str) -> tuple[Write, list[Op]]:
        """The ops that undo one write's effect on the files now; raises RollbackConflict when the
        entries it touched have changed since, TimelineError when there's nothing to undo."""
        if self.curator is None:
            raise TimelineError("this timeline was built without a home; it can't roll back")
        w = self.write(write_id)
        if w.by == "unknown":
            raise TimelineError(f"{w.id} is a change made outside the agent and hmc (a hand edit or an "
                                "unrecorded write): no recorded write to roll back; edit the entry instead")
        if not w.changes:
            raise TimelineError(f"{w.id} changed nothing (an exact re-add, or a call the replay couldn't "
                                "apply); nothing to roll back")
        store = self.curator.stores[w.target]
        snap = store.read()
        if snap.error:
            raise StoreError(snap.error + "; nothing was written")
        current = list(snap.entries)
        ops: list[Op] = []
        problems: list[str] = []
        for old, new in w.changes:
            if new is not None:
                if new not in current:
                    verb = "added" if old is None else "wrote"
                    problems.append(f"the entry it {verb} ({preview(new)!r}) is no longer in {store.name}: "
                                    f"{self._since(w, new)}")
                    continue
                if old is None or old in current:
                    ops.append(Op("remove", matched_entry=new))
                else:
                    ops.append(Op("replace", content=old, matched_entry=new))
            elif old not in current:
                ops.append(Op("add", content=old))
        if problems:
            raise RollbackConflict(
                f"can't roll back {w.id}: " + "; ".join(problems) + ". Rolling back would overwrite that later "
                "change, so nothing was written; edit the entry instead", problems)
        if not ops:
            raise TimelineError(f"{w.id}'s effect is already undone (the entries it removed are back); "
                                "nothing to roll back")
        return w, ops

    def _since(self, w: Write, text: str) -> str:
        """Which later write changed or removed `text`."""
        seen = False
        for later in self.writes:
            if later is w:
                seen = True
                continue
            if not seen or later.target != w.target:
                continue
            for old, new in later.changes:
                if old == text:
                    how = "removed" if new is None else "replaced"
                    who = {"agent": f"by the agent ({later.source})", "hmc": "by hmc"}.get(
                        later.by, "outside the agent (a hand edit or an unrecorded write)")
                    return f"{how} since, {who} in {later.id}" if later.by != "unknown" else f"{how} since, {who}"
        return "changed since"

    def rollback(self, write_id: str, force: bool = False) -> WriteResult:
        """Undo one write's effect as a new write through the store (lock, limit, scan, journal:
        hmc's undo can undo it). `force` confirms what hmc's scan flags and allows emptying a store;
        a conflict is never forced."""
        w, ops = self.rollback_plan(write_id)
        store = self.curator.stores[w.target]
        try:
            with tagged(f"rollback of {w.id}"):
                return store.apply(ops, force=force, action="rollback", batch=len(ops) > 1 or None)
        except Conflict as exc:
            raise RollbackConflict(f"can't roll back {w.id}: {store.name} changed while rolling back "
                                   f"({exc}); nothing was written", [str(exc)]) from None


# -- building ----------------------------------------------------------------------------------------

def backups(memories: Path, target: str) -> list[tuple[float, str]]:
    """(time, text) of each `<file>.bak.<unix_ts>[.n]` snapshot that reads as UTF-8, oldest first."""
    name = FILE_NAMES[target] + ".bak."
    out = []
    try:
        names = os.listdir(memories)
    except OSError:
        return []
    for entry in names:
        if not entry.startswith(name):
            continue
        stamp = entry[len(name):].split(".", 1)[0]
        if not stamp.isdigit() or len(stamp) > 11:
            continue
        try:
            text = decode(read_regular(memories / entry, MAX_BACKUP_BYTES, follow_symlinks=False))
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        out.append((float(stamp), text))
    return sorted(out)


def _events(calls: Sequence[Call], records: Sequence[Record], snaps: dict[str, list[tuple[float, str]]]
            ) -> Iterator[tuple[float, int, object]]:
    def agent() -> Iterator[tuple[float, int, object]]:
        last = 0.0
        for call in calls:
            last = call.timestamp if call.timestamp is not None else last
            yield last, 1, call

    def hmc() -> Iterator[tuple[float, int, object]]:
        for rec in records:
            yield float(rec.ts), 2, rec

    def bak() -> Iterator[tuple[float, int, object]]:
        for target, items in snaps.items():
            for ts, text in items:
                yield ts, 0, (target, ts, text)

    baks = sorted(bak(), key=lambda e: e[0])
    if not records and not baks:  # only the agent's calls (a cold build's bulk): nothing to merge
        return agent()
    return heapq.merge(agent(), hmc(), baks, key=lambda e: e[0])


CHECKPOINT_SECONDS = 5.0  # a long replay saves what it has done this often (an interrupted build resumes)
PROGRESS_EVERY = 64  # events between two progress reports


class _Replay:
    """A builder and what it has consumed: the key for continuing it on a later run."""

    def __init__(self, release: Release):
        self.builder = _Builder(release)
        self.release = release
        self.n_calls = 0
        self.record_id = 0
        self.n_records = 0
        self.baks: set[tuple[str, int]] = set()
        self.last_ts = 0.0
        self.events = 0

    def feed(self, calls: Sequence[Call], records: Sequence[Record], snaps: dict[str, list[tuple[float, str]]],
             sources: dict[str, str], *, checkpoint: Callable[[], None] | None = None,
             progress: Callable[[int, int], None] | None = None) -> None:
        """Replay these events (merged by time). What is consumed is counted as it goes, so that
        `checkpoint` (called every CHECKPOINT_SECONDS, between two events of different times: a
        later run resumes exactly there) saves a replay a later run can continue."""
        builder = self.builder
        total = len(calls) + len(records) + sum(len(items) for items in snaps.values())
        if not records and not any(snaps.values()):  # only the agent's calls (a cold build's bulk)
            self._feed_calls(calls, sources, checkpoint, progress)
            return
        events = _events(calls, records, snaps)
        clock = time.monotonic
        saved = clock()
        done = 0
        pending = next(events, None)
        while pending is not None:
            ts, kind, item = pending
            self.last_ts = max(self.last_ts, ts)
            self.events += 1
            if kind == 1:
                builder.call(item, ts, sources.get(item.session_id, ""))
                self.n_calls += 1
            elif kind == 2:
                builder.record(item)
                self.record_id = max(self.record_id, item.id)
                self.n_records += 1
            else:
                target, stamp, text = item
                builder.observe(target, parse(text), stamp, f"the snapshot {FILE_NAMES[target]}.bak.{int(stamp)}",
                                None)
                self.baks.add((target, int(stamp)))
            done += 1
            pending = next(events, None)
            if progress is not None and not done % PROGRESS_EVERY:
                progress(done, total)
            if checkpoint is not None and pending is not None and pending[0] > self.last_ts \
                    and clock() - saved >= CHECKPOINT_SECONDS:
                checkpoint()
                saved = clock()
        if progress is not None and done:
            progress(done, total)

    def _feed_calls(self, calls: Sequence[Call], sources: dict[str, str], checkpoint: Callable[[], None] | None,
                    progress: Callable[[int, int], None] | None) -> None:
        """`feed` when the events are the agent's calls alone, in their order: the same replay, the
        same checkpoints and progress, without merging (a call's time is its result's, else the
        time of the call before it, as `_events` gives it)."""
        call = self.builder.call
        source_of = sources.get
        clock = time.monotonic
        saved = clock()
        total = len(calls)
        last_ts = self.last_ts
        at = 0.0  # the time `_events` gives a call without one
        done = base = 0  # calls replayed; those of them already counted in n_calls and events
        try:
            for item in calls:
                ts = item.timestamp
                if ts is None:
                    ts = at
                else:
                    at = ts
                if ts > last_ts:
                    last_ts = ts
                call(item, ts, source_of(item.session_id, ""))
                done += 1
                if progress is not None and not done % PROGRESS_EVERY:
                    progress(done, total)
                if checkpoint is not None and done < total and clock() - saved >= CHECKPOINT_SECONDS:
                    following = calls[done].timestamp
                    if (at if following is None else following) > last_ts:
                        self.last_ts, self.events, self.n_calls = last_ts, self.events + done - base, \
                            self.n_calls + done - base
                        base = done
                        checkpoint()
                        saved = clock()
        finally:
            self.last_ts, self.events, self.n_calls = last_ts, self.events + done - base, self.n_calls + done - base
        if progress is not None and total:
            progress(total, total)

    def continue_with(self, harvest, records: Sequence[Record],
                      snaps: dict[str, list[tuple[float, str]]]) -> tuple | None:
        """The events this replay hasn't seen, when they all come after it (else None: replay again)."""
        if harvest.total < self.n_calls or sum(1 for r in records if r.id <= self.record_id) != self.n_records:
            return None
        if harvest.cached is not None and harvest.n_cached == self.n_calls:
            new_calls = list(harvest.calls)  # the cached calls are the replayed ones: no need to parse them
        else:
            new_calls = list(harvest.all_calls()[self.n_calls:])
        new_records = [r for r in records if r.id > self.record_id]
        new_snaps = {t: [(ts, text) for ts, text in items if (t, int(ts)) not in self.baks] for t, items in snaps.items()}
        times = [c.timestamp for c in new_calls if c.timestamp is not None] + [r.ts for r in new_records]
        times += [ts for items in new_snaps.values() for ts, _ in items]
        if any(ts < self.last_ts for ts in times):
            return None
        return new_calls, new_records, new_snaps

    # -- the cache form: plain tuples and the writes' encoded chunks (core.timeline.cache marshals them) --
    def dump(self) -> dict:
        b = self.builder
        states = {target: state.columns() for target, state in b.states.items()}
        return {"release": self.release.name, "n_calls": self.n_calls, "record_id": self.record_id,
                "n_records": self.n_records, "baks": sorted(self.baks), "last_ts": self.last_ts,
                "writes": b.writes.chunks(), "states": states, "offset": dict(b._offset), "outside": b._outside,
                "seq": {t: state.next_seq for t, state in b.states.items()},
                "divergences": [(d.target, d.write_id, d.detail) for d in b.divergences]}

    @classmethod
    def load(cls, data: dict, release: Release) -> "_Replay":
        """Raises (TypeError, ValueError, KeyError, IndexError) on anything not written by dump."""
        if data["release"] != release.name:
            raise ValueError("another release's replay")
        self = cls(release)
        b = self.builder
        writes = b.writes
        writes.load_chunks(data["writes"])
        m = len(writes)
        for target in TARGETS:
            cols = data["states"][target]
            if type(cols) is not tuple or len(cols) != 5 or any(type(c) is not tuple or len(c) != len(cols[0])
                                                                  for c in cols):
                raise ValueError("entries")
            texts, origins, firsts, revisions, seqs = cols
            # checked with C's loops (50,000 entries are read on each update): str.join refuses
            # anything but strings, and a sum of ints is an int (a float, None or text isn't)
            if texts and (type("".join(texts)) is not str
                          or type(sum(origins) + sum(firsts) + sum(revisions) + sum(seqs)) is not int
                          or min(min(origins), min(firsts)) < -1 or max(max(origins), max(firsts)) >= m
                          or min(revisions) < 1 or seqs[0] < 0 or not all(map(operator.lt, seqs, seqs[1:]))):
                raise ValueError("entry")
            state = b.states[target]
            state.load_columns(texts, origins, firsts, revisions, seqs)
            state.next_seq = max(state.next_seq, int(data["seq"][target]))
        offset = data["offset"]
        b._offset = {t: int(offset[t]) for t in TARGETS}
        b._outside = int(data["outside"])
        b.divergences = [Divergence(str(t), w if w is None else str(w), str(d)) for t, w, d in data["divergences"]]
        self.n_calls, self.record_id, self.n_records = (int(data["n_calls"]), int(data["record_id"]),
                                                        int(data["n_records"]))
        self.baks = {(str(t), int(s)) for t, s in data["baks"]}
        self.last_ts = float(data["last_ts"])
        return self


@contextmanager
def _no_gc() -> Iterator[None]:
    """No garbage collection while the history is read, replayed and cached: it makes hundreds of
    thousands of tuples and lines and no cycles, and the collector would walk them all again and
    again (a third of an update's time, a fifth of a cold build's)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _all_calls(harvest) -> list[Call]:
    try:
        return harvest.all_calls()
    except (ValueError, TypeError, KeyError, AttributeError):  # a cache whose calls don't parse: none from it
        harvest.cached, harvest.n_cached = None, 0
        raise _StaleCache() from None


def _sources(conn, harvest, calls: Sequence[Call]) -> dict[str, str]:
    """The sources of the sessions of `calls` (read_calls reads those of the calls it finds; the
    cache doesn't keep them: calls taken from its calls file get theirs here)."""
    from core.sessions.memory_calls import read_sources

    if conn is not None:
        missing = {c.session_id for c in calls}.difference(harvest.sources)
        if missing:
            harvest.sources.update(read_sources(conn, missing))
    return harvest.sources


class _StaleCache(Exception):
    """The cached calls don't parse: the caller reads state.db again from the start."""


def finish(builder: _Builder, current: dict[str, tuple[str, ...] | None], last: float, *,
           now: float | None = None, mtimes: dict[str, float] | None = None) -> dict[str, list[Blame]]:
    """Reconcile the replay with the files now (None: a store that can't be read); the blame of each."""
    blame: dict[str, list[Blame]] = {}
    for target in TARGETS:
        entries = current.get(target)
        if entries is None:
            blame[target] = []
            continue
        when = max(last, (mtimes or {}).get(target, 0.0))
        if now is not None:
            when = min(when, now) if when > last else when
        builder.observe(target, entries, when, f"{FILE_NAMES[target]} as it is now", None)
        blame[target] = Blames(target, builder.states[target].columns(), builder.writes)
    return blame


def rebuild(calls: Sequence[Call], records: Sequence[Record], current: dict[str, tuple[str, ...] | None],
            *, sources: dict[str, str] | None = None, snaps: dict[str, list[tuple[float, str]]] | None = None,
            release: Release = NEWEST, now: float | None = None, mtimes: dict[str, float] | None = None,
            ) -> tuple[list[Write], dict[str, list[Blame]], list[Divergence]]:
    """The pure rebuild: replay, observe, reconcile with `current` (None: a store that can't be read)."""
    replay = _Replay(release)
    replay.feed(calls, [r for r in records if r.target in TARGETS], snaps or {}, sources or {})
    blame = finish(replay.builder, current, replay.last_ts, now=now, mtimes=mtimes)
    return replay.builder.writes, blame, replay.builder.divergences


SAVE_AFTER_MESSAGES = 5_000  # an update reading fewer new messages than this (and few new writes)
SAVE_AFTER_EVENTS = 100  # leaves the cache as it was: the next run reads those few rows again


def build_timeline(curator: "Curator", *, cache: bool = True, route: str | None = None,
                   progress: Callable[[int, int], None] | None = None) -> Timeline:
    """Rebuild one profile's history: state.db (read-only; cached), hmc's journal, the snapshots and
    the files now. Raises core.sessions.db.DatabaseError when state.db exists but can't be read.
    `progress(done, total)` hears how far a replay has got (events: calls, hmc's writes, snapshots)."""
    with _no_gc():  # a build makes hundreds of thousands of objects and no cycles: the collector
        try:        # walked them again and again (a fifth of a cold build)
            return _build(curator, cache, route, trust_cache=True, progress=progress)
        except _StaleCache:
            return _build(curator, cache, route, trust_cache=False, progress=progress)


def _build(curator: "Curator", cache: bool, route: str | None, trust_cache: bool,
           progress: Callable[[int, int], None] | None = None) -> Timeline:
    import sqlite3

    from core.sessions.db import DatabaseError, ReadOnlyConnections, present, probe, translate_error
    from core.timeline import cache as calls_cache
    from core.sessions.memory_calls import Harvest, read_calls

    stats: dict = {"route": None, "cache": "off", "skipped": {}, "ignored": {}, "new_messages_from": 0,
                   "replayed": "all"}
    db_path = curator.home.state_db
    harvest = Harvest()
    saved_state = None
    conns = conn = None
    if present(db_path):  # an unreadable one (a symlink loop) is refused below, not taken for none
        conns = ReadOnlyConnections(db_path)
        try:
            conn = conns.get()
            with _no_gc():
                cached = calls_cache.load(db_path, conn) if cache and trust_cache else None
            if cached is not None:
                (harvest, saved_state), stats["cache"] = cached, "hit"
            elif cache:
                stats["cache"] = "rebuilt"
            # a cache of this database (its identity and its last row checked) is read on by id:
            # no route to choose, so the schema isn't probed again
            schema = probe(conn, db_path) if not harvest.last_id else None
            stats["new_messages_from"] = harvest.last_id
            stats["route"] = read_calls(conn, schema, harvest, route or ("ids" if schema is None else None))
        except DatabaseError:
            conns.close()
            raise
        except sqlite3.Error as exc:
            conns.close()
            raise translate_error(exc, db_path) from None
    try:
        stats["skipped"], stats["ignored"] = dict(harvest.skipped), dict(harvest.ignored)
        stats["writes_in_db"] = harvest.total
        records = [r for r in curator.history.records() if r.target in TARGETS] if curator.history else []
        if curator.history is not None and curator.history.problem:
            stats["journal"] = curator.history.problem  # hmc's own writes can't be shown
        snaps = {t: backups(curator.home.memories, t) for t in TARGETS}
        replay, todo = None, None
        if saved_state is not None:
            try:
                with _no_gc():
                    replay = _Replay.load(saved_state, curator.release)
                todo = replay.continue_with(harvest, records, snaps)
            except (TypeError, ValueError, KeyError, IndexError, AttributeError):
                replay = None
        checkpoint = None
        if cache and conn is not None:
            def checkpoint() -> None:  # what is replayed so far: a build cut short resumes from here
                if stats.get("checkpoints", 0) >= 0:
                    problem = calls_cache.save(db_path, conn, harvest, replay.dump())
                    stats["checkpoints"] = -1 if problem else stats.get("checkpoints", 0) + 1  # -1: stop trying
        if replay is not None and todo is not None:
            stats["replayed"] = "new"
            replay.feed(*todo, _sources(conn, harvest, todo[0]), checkpoint=checkpoint, progress=progress)
        else:
            replay = _Replay(curator.release)
            calls = _all_calls(harvest)
            replay.feed(calls, records, snaps, _sources(conn, harvest, calls), checkpoint=checkpoint,
                        progress=progress)
        fresh = stats["replayed"] == "all"
        grew = harvest.last_id - stats["new_messages_from"]
        if cache and conn is not None and (fresh or grew > SAVE_AFTER_MESSAGES or replay.events > SAVE_AFTER_EVENTS):
            dumped = replay.dump()
            problem = calls_cache.save(db_path, conn, harvest, dumped)
            if problem is not None and problem.bound:
                stats["cache_problem"] = str(problem)  # a cache over its size limit: named to the user
            stats["saved"] = True
            replay.builder.writes.seal(dumped["writes"])  # encoded, as saved: decoded when read
    except sqlite3.Error as exc:
        raise translate_error(exc, db_path) from None
    finally:
        if conns is not None:
            conns.close()
    current: dict[str, tuple[str, ...] | None] = {}
    mtimes: dict[str, float] = {}
    for target, store in curator.stores.items():
        snap = store.read()
        current[target] = None if snap.error else snap.entries
        try:
            mtimes[target] = os.stat(store.path).st_mtime
        except OSError:
            pass
    blame = finish(replay.builder, current, replay.last_ts, now=curator.now(), mtimes=mtimes)
    return Timeline(replay.builder.writes, blame, replay.builder.divergences, stats, curator)


__all__ = ["Blame", "Diff", "Divergence", "RollbackConflict", "Timeline", "TimelineError", "Write",
           "build_timeline", "rebuild", "backups", "DELIMITER"]
