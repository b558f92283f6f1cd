"""The replay: the agent's calls, hmc's journal and Hermes's snapshots applied in time order to
each store's entries (core.timeline.state) by the release's rules, each write recorded as a row
(core.timeline.writes); `_Replay` is a builder and what it has consumed, the key for continuing it
on a later run (core.timeline.cache keeps its `dump`). core.timeline.history builds the timeline
from it."""

from __future__ import annotations

import heapq
import time
from typing import Callable, Iterable, Iterator, Sequence

from core.hermes.memory import OpError, locate, parse, patch_entry
from core.hermes.release import Release
from core.pending.records import approved_by, auto_approved_by
from core.store.journal import Record
from core.store.memory import FILE_NAMES, TARGETS
from core.sessions.memory_calls import Call
from core.timeline.model import REVIEW_SOURCE, ROLLBACK_TAG, Divergence, change_summary
from core.timeline.state import SEP, Line, State, cache_columns, columns_from_cache
from core.timeline.writes import Writes


# -- the rebuild -------------------------------------------------------------------------------------


class _Builder:
    def __init__(self, release: Release):
        self.release = release
        self.states = {t: State(t) for t in TARGETS}
        self.writes = Writes()
        self.divergences: list[Divergence] = []
        self.staged: dict[str, Call] = {}  # a pending record's id -> the call that staged it (not cached)
        self.sources: dict[str, str] = {}  # a session's id -> its source, for those calls
        self._gone: dict[int, list[tuple]] = {}  # an hmc write's id -> the entries it removed (_life)
        self.last_at: dict[str, float] = {}  # per store, the time of the last write the history knows
        # each outside write: (index, id, target, the time of the write before it on that store or None,
        # its time, its changes): what core.timeline.attribution reads, without decoding cached writes
        self.outside: list[tuple] = []
        self._open_counts: dict[str, list[int]] = {}  # per store, count divergences no outside write followed yet
        self._open_low: dict[str, float | None] = {}  # per store, the last known state before the first of them
        self._outside = 0
        # entries the release counted minus entries replayed, per target: a change means an unseen write
        self._offset = {t: 0 for t in TARGETS}

    def _record(self, row: tuple, touched: Iterable[Line]) -> int:
        """Add a write (its row, Write.row's order): the lines it touched now come from it."""
        i = self.writes.add(row)
        self.last_at[row[4]] = row[1]
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
        if state.holds(texts):
            return
        touched, changes, log = state.morph(texts)
        self._outside += 1
        detail = f"{where} shows changes no recorded write explains ({change_summary(changes)})"
        xid = f"x{self._outside}"
        # since the last write on this store; a store never written yet: since the history had begun
        # (a write on the other store), else None (before the history)
        low = self._open_low.pop(target) if target in self._open_low else \
            self.last_at.get(target, min(self.last_at.values(), default=None))
        # one row per change (x3, x3.2, …: what one observation shows may be several writers' work,
        # each credited on its own); the first carries the whole change to the store (its log)
        index: dict[str | None, int] = {}
        for k, change in enumerate(changes or [None]):
            wid = xid if k == 0 else f"{xid}.{k + 1}"
            one = (change,) if change is not None else ()
            i = self.writes.add((wid, ts, "unknown", "outside", target, "outside", None, None, None, None, None, one,
                                 "changed outside the agent and hmc: no recorded call", detail, log if k == 0 else ()))
            self.outside.append((i, wid, target, low, ts, one))
            if change is not None and change[1] is not None:
                index.setdefault(change[1], i)
        first = self.outside[-len(changes or [None])][0]
        self.last_at[target] = ts
        for k in self._open_counts.pop(target, ()):  # the unseen write those counts noticed: this one
            d = self.divergences[k]
            self.divergences[k] = Divergence(d.target, d.write_id, d.detail, xid)
        # the lines' texts now come from these writes: nobody known (Blames reads an `unknown` writer
        # as no origin) unless core.timeline.attribution credits one to its real writer
        for line in touched:
            line.origin = index.get(line.text, first)
            if line.first is None:
                line.first = line.origin
        for line in state.alive():
            if line.text in index:
                line.origin = index[line.text]
        self.divergences.append(Divergence(target, found_at, detail, xid))

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
        seq = state.add_new(content, i)
        if seq is None:  # an exact re-add: nothing changes
            changes, log = (), ()
        else:
            changes, log = None, (seq, content)  # None: the entry its log adds (Writes)
        note = self._counted(call, state, wid) if call.entry_count is not None else None
        self.writes.add((wid, ts, "agent", source or "agent", call.target, "add", call.session_id, call.message_id,
                         call.old_text, call.content, call.operations, changes, note, None, log))
        self.last_at[call.target] = ts
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
        if call.target not in self._open_counts:  # the unseen write came after the last known state
            self._open_low[call.target] = self.last_at.get(call.target)
        self._open_counts.setdefault(call.target, []).append(len(self.divergences))
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
        gone: list[tuple] = []
        approved = 0
        uncalled = []  # approved records whose staging call state.db doesn't hold
        for pid in approved_by(rec):  # each approved record is its staging call's write, approved with hmc
            call = self.staged.get(pid)
            if call is not None and call.target == rec.target:
                approved += self._approved(state, rec, pid, call, gone)
            else:
                uncalled.append(pid)
        # records the background review staged (it writes with no session database: no call) are the
        # review's writes, approved with hmc, when nothing else in this write is hmc's own
        review = bool(uncalled) and set(uncalled) <= auto_approved_by(rec)
        life = self._gone.pop(rec.undoes, None) if rec.undoes is not None else None
        revive = {text: (origin, first, revisions) for text, origin, first, revisions in life or ()}
        before = list(state.alive())
        touched, changes, log = state.morph(parse(decode_text(rec.after)), revive)
        kept = {id(line) for line in state.alive()}
        gone += [_life(line) for line in before if id(line) not in kept]
        if gone:
            self._gone[rec.id] = gone
            while len(self._gone) > KEEP_GONE:
                del self._gone[next(iter(self._gone))]
        if approved and not changes:
            return  # the staging calls explain the whole write: nothing in it is hmc's own
        # a rollback's tag says what it undid; a claim's or an approve-all's is for crash recovery only
        detail = rec.tag if rec.tag and rec.tag.startswith(ROLLBACK_TAG) else rec.detail
        if review:
            by, source, detail = "agent", REVIEW_SOURCE, "staged by the background review, approved with hmc"
        else:
            by = source = "hmc"
        i = self._record((wid, rec.ts, by, source, rec.target, rec.action or "edit", None, None, None, None, None,
                          tuple(changes), None, detail, log), touched)
        afters = {a for _, a in changes if a is not None}
        for line in state.alive():
            if line.text in afters and line.text not in revive:
                line.origin = i

    def _approved(self, state: State, rec: Record, pid: str, call: Call, gone: list) -> bool:
        """Replay what approving record `pid` wrote, as its staging call asked (the release's rules):
        a write of the agent's session, approved with hmc. A call that no longer applies is left to
        the journal's texts (hmc's own write then)."""
        touched: list[Line] = []
        alive = {id(line): line for line in state.alive()}
        try:
            if call.action == "batch":
                for k, o in enumerate(call.operations or ()):
                    action = o.get("action", "")
                    self._apply(state, action, o.get("content") or o.get("new_text") or "", o.get("old_text") or "",
                                f"Operation {k + 1} ({action or 'unknown'})", touched)
            else:
                self._apply(state, call.action, call.content or "", call.old_text or "", None, touched)
        except OpError:
            state.undo()
            return False
        dead = [_life(line) for line in alive.values() if line.dead]
        changes, log = state.commit()
        if not changes:
            return False
        gone += dead
        how = f"staged in session {call.session_id}, approved with hmc"
        self._record((f"h{rec.id}:{pid}", rec.ts, "agent", self.sources.get(call.session_id) or "agent", rec.target,
                      call.action, call.session_id, call.message_id, call.old_text, call.content, call.operations,
                      tuple(changes), None, how, log), [line for line in dict.fromkeys(touched) if not line.dead])
        return True


def _checked_life(life, n: int) -> tuple:
    """A cached _life, checked (its writes among the `n` there are)."""
    text, origin, first, revisions = life
    if type(text) is not str or type(revisions) is not int or any(
            w is not None and (type(w) is not int or not 0 <= w < n) for w in (origin, first)):
        raise ValueError("gone")
    return text, origin, first, revisions


def _checked_outside(item, n: int) -> tuple:
    """A cached outside write's window (Builder.outside), checked."""
    i, xid, target, low, ts, changes = item
    if type(i) is not int or not 0 <= i < n or type(xid) is not str or target not in TARGETS or not (low is None or type(low) in (float, int)) \
            or type(ts) not in (float, int) or type(changes) is not tuple \
            or any(type(c) is not tuple or len(c) != 2 for c in changes):
        raise ValueError("outside")
    return i, xid, target, low, float(ts), changes


KEEP_GONE = 64  # hmc writes whose removed entries are kept, so that undoing one brings them back as they were


def _life(line: Line) -> tuple:
    """What a removed entry was: (text, origin, first, revisions), to bring it back by an undo."""
    return line.text, line.origin, line.first, line.revisions


def decode_text(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


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
        builder.sources = sources
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
        builder = self.builder
        call = builder.call
        states = builder.states
        appends, base_index = builder.writes.appenders()
        (a_id, a_ts, a_by, a_source, a_target, a_action, a_session, a_message, a_old, a_content, a_ops, a_changes,
         a_note, a_detail, a_log) = appends
        source_of = sources.get
        clock = time.monotonic
        saved = clock()
        total = len(calls)
        last_ts = self.last_ts
        last_at = builder.last_at
        at = 0.0  # the time `_events` gives a call without one
        done = base = 0  # calls replayed; those of them already counted in n_calls and events
        try:
            for item in calls:
                _, rid, sid, ts, _, target, action, content, old_text, ops, entries, count = item
                if ts is None:
                    ts = at
                else:
                    at = ts
                if ts > last_ts:
                    last_ts = ts
                # the common write, a non-empty add with no count or store echoed, replayed here as
                # _Builder._add does it (a method call or two less for each of tens of thousands)
                if action == "add" and entries is None and count is None and content and (text := content.strip()):
                    seq = states[target].add_new(text, base_index + done)
                    last_at[target] = ts
                    a_id(f"m{rid}")  # the write's row, a field at a time (Write.row's order)
                    a_ts(ts)
                    a_by("agent")
                    a_source(source_of(sid, "") or "agent")
                    a_target(target)
                    a_action("add")
                    a_session(sid)
                    a_message(item[0])
                    a_old(old_text)
                    a_content(content)
                    a_ops(ops)
                    a_changes(None if seq is not None else ())  # None: the entry its log adds (Writes)
                    a_note(None)
                    a_detail(None)
                    a_log((seq, text) if seq is not None else ())
                else:
                    call(item, ts, source_of(sid, ""))
                    base_index = len(builder.writes) - done - 1
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
        states = {target: cache_columns(state.columns()) for target, state in b.states.items()}
        return {"release": self.release.name, "n_calls": self.n_calls, "record_id": self.record_id,
                "n_records": self.n_records, "baks": sorted(self.baks), "last_ts": self.last_ts,
                "writes": b.writes.chunks(), "states": states, "offset": dict(b._offset), "outside": b._outside,
                "seq": {t: state.next_seq for t, state in b.states.items()},
                "divergences": [(d.target, d.write_id, d.detail, d.outside) for d in b.divergences],
                "gone": [(rid, tuple(lives)) for rid, lives in b._gone.items()],
                "last_at": dict(b.last_at), "outside_at": list(b.outside),
                "open_counts": {t: list(ks) for t, ks in b._open_counts.items()},
                "open_low": dict(b._open_low)}

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
            texts, origins, firsts, revisions, seqs = columns_from_cache(data["states"][target], m)
            state = b.states[target]
            state.load_columns(texts, origins, firsts, revisions, seqs)
            state.next_seq = max(state.next_seq, int(data["seq"][target]))
        offset = data["offset"]
        b._offset = {t: int(offset[t]) for t in TARGETS}
        b._outside = int(data["outside"])
        b._gone = {int(rid): [_checked_life(life, m) for life in lives] for rid, lives in data["gone"]}
        b.last_at = {t: float(ts) for t, ts in data["last_at"].items() if t in TARGETS}
        b.outside = [_checked_outside(o, m) for o in data["outside_at"]]
        b._open_counts = {t: [int(k) for k in ks if 0 <= int(k) < len(b.divergences)]
                          for t, ks in data["open_counts"].items() if t in TARGETS}
        b._open_low = {t: None if v is None else float(v) for t, v in data["open_low"].items() if t in TARGETS}
        b.divergences = [Divergence(str(t), w if w is None else str(w), str(d), x if x is None else str(x))
                         for t, w, d, x in data["divergences"]]
        self.n_calls, self.record_id, self.n_records = (int(data["n_calls"]), int(data["record_id"]),
                                                        int(data["n_records"]))
        self.baks = {(str(t), int(s)) for t, s in data["baks"]}
        self.last_ts = float(data["last_ts"])
        return self
