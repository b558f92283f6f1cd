"""Who really made the writes the replay can't explain, from all the evidence Hermes leaves.

The replay (core.timeline.replay) puts an `outside` write wherever the files show a change that no
call in state.db and no hmc write explains. Most of them are Hermes's own (HERMES-FORMATS.md §8):

- **Approved in Hermes.** `/memory approve` (CLI, gateway, desktop) applies a staged record and
  deletes it. The staging call is still in state.db (its result names the record's `pending_id`,
  its arguments hold the text): a change that call would make, whose record is no longer waiting,
  is that call's, "staged in session S, approved in Hermes".
- **The background review.** It writes with no session database, so no tool row; `logs/agent.log`
  records its memory writes under the parent session (core.timeline.agent_log). A change with a
  review write inside its window is "background review of session S".
- **Anything else** is "written between A and B, by no recorded call": never called a hand edit,
  since hmc can't tell one from another tool or a write Hermes doesn't log.

A credited write takes the time the evidence gives (the review's log line; for an approval or a
change nothing explains, the first session that loaded its text, else when the files showed it) as
its `timestamp`, never later than where the replay saw it (`Write.seen_at`, which a store's state at
a moment and the usage chart go by). A change's window starts at the last write the
history knows on that store (the state the replay
holds is certain up to there) and ends where the change was seen; the sessions' loaded snapshots
narrow it (core.snapshots.loaded): a session that started without the new text puts the start
later, the first that loaded it puts the end earlier (texts compared as the prompt shows them: an
entry the scanner blocks, as its notice).

History gaps (core.timeline.model.Divergence) stay only for changes nothing explains after the
history began: an outside write Hermes's evidence explains, or one in the span Hermes pruned (its
sessions and their calls are gone), or one before the first write the history holds on that store,
is not a gap; nor is a count that didn't add up before such a write (the same unseen write).

Everything here is read again on each build (cheap: the outside writes are few, and each source is
read only when one needs it), never cached with the replay.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from core import timefmt
from core.sessions.memory_calls import Call
from core.timeline.model import REVIEW_SOURCE, Divergence, change_summary  # noqa: F401  (REVIEW_SOURCE: also from here)
from core.timeline.windows import Windows, window_key
from core.timeline.writes import Writes

# The review's log line comes after its write lands (measured on 0.22.2: the file's mtime 2 ms before
# the `tool memory completed` line), so a line up to this long after the change was seen still counts.
LOG_AFTER_WRITE = 30.0
NO_CALL = "no recorded call"
MAX_LOOKBACKS = 16  # per build: searches of the stored prompts for a text older than its window


@dataclass
class Evidence:
    """What the attribution may read; the costly parts are read when first needed."""

    staged: dict[str, Call] = field(default_factory=dict)  # pending record id -> its staging call
    waiting: frozenset[str] = frozenset()  # record ids still in the queue (not approved yet)
    sources: dict[str, str] = field(default_factory=dict)  # session id -> its source
    reviews: Callable[[], Sequence[tuple[float, str]]] = lambda: ()  # the review's writes (time, session)
    # (start, what it loaded: core.snapshots.blocks.Loaded or None) of each session started in (low, high], oldest first
    loads: Callable[[float | None, float], Sequence[tuple]] = lambda low, high: ()
    pruned_before: float | None = None  # Hermes pruned the sessions inactive before this
    shown: Callable[[str, str], str] = lambda target, text: text  # an entry as the prompt shows it (blocked: its notice)
    # (target, text as shown, before) -> (start of the session before, start of the first session that
    # loaded it), or None
    first_loading: Callable[[str, str, float], tuple | None] = lambda target, shown, before: None
    windows: Windows | None = None  # the narrowed windows kept from earlier builds
    _reviews: Sequence[tuple[float, str]] | None = None

    def review_writes(self) -> Sequence[tuple[float, str]]:
        if self._reviews is None:
            try:
                self._reviews = tuple(self.reviews())
            except Exception:  # noqa: BLE001 - a log that can't be read explains nothing
                self._reviews = ()
        return self._reviews


def _op_makes(action: str, content: str | None, old_text: str | None, before: str | None, after: str | None) -> bool:
    """Whether one memory operation would turn entry `before` into `after` (None: absent)."""
    new = (content or "").strip()
    old = old_text or ""
    if action == "add":
        return before is None and after is not None and new == after
    if action == "replace":
        return after is not None and new == after and (before is None or (bool(old.strip()) and old.strip() in before))
    if action == "remove":
        return after is None and before is not None and bool(old.strip()) and old.strip() in before
    if action == "patch":  # 0.22: one span replaced inside the entry
        return before is not None and after is not None and bool(old) and old in before and (content or "") in after
    return False


def _call_makes(call: Call, before: str | None, after: str | None) -> bool:
    if call.action == "batch":
        return any(isinstance(o, dict) and _op_makes(str(o.get("action", "")), o.get("content") or o.get("new_text"),
                                                     o.get("old_text"), before, after)
                   for o in call.operations or ())
    return _op_makes(call.action, call.content, call.old_text, before, after)


@dataclass(frozen=True)
class Finding:
    """The writer of one outside write: `kind` approved | review | unexplained."""

    kind: str
    session_id: str | None
    detail: str
    call: Call | None = None
    gap: bool = False
    at: float | None = None  # when the evidence says it was written (the log's time, the first session that loaded it)


def _when(ts: float) -> str:
    return timefmt.local_time(ts, "%d %b %H:%M").lstrip("0")


class _Attributor:
    def __init__(self, evidence: Evidence):
        self.ev = evidence
        self._loads: dict[tuple, list] = {}  # a window's sessions, read once (an observation's rows share it)
        self.lookbacks = 0

    def loads(self, low: float | None, high: float, target: str) -> list[tuple[float, float, frozenset]]:
        """The sessions started in (low, high] that loaded that store, oldest first, as runs of
        consecutive sessions that loaded the same entries of `target` (as shown): (the first one's
        start, the last one's, those entries). Thousands of sessions are a few hundred runs."""
        got = self._loads.get((low, high, target))
        if got is None:
            shown: dict[int, frozenset] = {}  # by snapshot
            got = self._loads[(low, high, target)] = []
            for start, loaded in self.ev.loads(low, high):
                if loaded is None or start is None:
                    continue
                entries = shown.get(id(loaded))
                if entries is None:
                    entries = shown[id(loaded)] = frozenset(loaded.entries(target))
                if got and got[-1][2] == entries:
                    got[-1] = (got[-1][0], start, entries)
                else:
                    got.append((start, start, entries))
        return got

    def bracket(self, target: str, changes: Sequence[tuple], low: float | None, high: float
                ) -> tuple[float | None, float]:
        """(low, high) narrowed by the sessions that started in it and what they loaded (a window
        open at the start, before the first write the history knows, is left as it is: every
        session up to then would have to be read). Kept between builds (core.timeline.windows)."""
        show = self.ev.shown
        news = {show(target, a) for _, a in changes if a is not None}
        olds = {show(target, b) for b, a in changes if b is not None and a is None}
        if low is None or not news and not olds:
            return low, high
        kept, key = self.ev.windows, None
        if kept is not None:
            key = window_key(target, low, high, news, olds)
            hit = kept.get(key)
            if hit is not None:
                narrowed, searched = hit
                if not searched:
                    return narrowed
                if self.lookbacks < MAX_LOOKBACKS:  # counted as the search it saves: a build says the same
                    self.lookbacks += 1
                    return narrowed
        narrowed, how = self._narrow(target, news, olds, low, high)
        if key is not None and how is not None:
            kept.put(key, narrowed, searched=how == "searched")
        return narrowed

    def _narrow(self, target: str, news: set, olds: set, low: float, high: float) -> tuple[tuple, str | None]:
        """((low, high) narrowed, how: "window" when the window's sessions alone gave it, "searched"
        when the stored prompts before it were searched too, None when the budget of searches cut
        it short)."""
        for k, (first, last, shown) in enumerate(self.loads(low, high, target)):
            if news <= shown and not (olds & shown):
                if k == 0 and len(news) == 1 and not olds:
                    # already loaded by the window's first session: the text is older than the history
                    # thought (a change no call counted); when did a session first load it?
                    if self.lookbacks >= MAX_LOOKBACKS:
                        return (low, min(high, first)), None
                    self.lookbacks += 1
                    found = self.ev.first_loading(target, next(iter(news)), first)
                    return (found if found is not None else (low, min(high, first))), "searched"
                return (low, min(high, first)), "window"  # sessions come oldest first: the first to load it
            low = max(low, last)
        return (low, high), "window"

    def approved(self, target: str, changes: Sequence[tuple], at: float) -> Call | None:
        """The staging call whose record is gone and that makes these changes (the latest one)."""
        best = None
        for pid, call in self.ev.staged.items():
            if call.target != target or pid in self.ev.waiting:
                continue
            if call.timestamp is not None and call.timestamp > at:
                continue
            if all(_call_makes(call, b, a) for b, a in changes):
                if best is None or (call.timestamp or 0) > (best.timestamp or 0):
                    best = call
        return best

    def find(self, target: str, changes: Sequence[tuple], low: float | None, high: float) -> Finding:
        call = self.approved(target, changes, high) if changes else None
        low, high = self.bracket(target, changes, low, high)
        if call is not None:
            return Finding("approved", call.session_id,
                           f"the agent, staged in session {call.session_id}, approved in Hermes", call,
                           at=max(high, call.timestamp or high))
        writes = [w for w in self.ev.review_writes() if (low is None or w[0] > low) and w[0] <= high + LOG_AFTER_WRITE]
        if writes:
            sessions = list(dict.fromkeys(sid for _, sid in writes))
            names = ", ".join(sessions[:3]) + (f" and {len(sessions) - 3} more" if len(sessions) > 3 else "")
            plural = "s" if len(sessions) > 1 else ""
            return Finding("review", sessions[-1] if len(sessions) == 1 else None,
                           f"background review of session{plural} {names} (logs/agent.log, {_when(writes[-1][0])})",
                           at=writes[-1][0])
        pruned = self.ev.pruned_before
        if low is None:
            return Finding("unexplained", None, f"written before {_when(high)}, before the history begins, "
                                                f"by {NO_CALL}", at=high)
        if pruned is not None and low < pruned:
            return Finding("unexplained", None, f"written between {_when(low)} and {_when(high)}, in the span whose "
                                                f"sessions Hermes pruned, by {NO_CALL}", at=high)
        return Finding("unexplained", None, f"written between {_when(low)} and {_when(high)}, by {NO_CALL}",
                       gap=True, at=high)


def attribute(writes: Writes, outside: Sequence[tuple], divergences: Sequence[Divergence],
              evidence: Evidence) -> list[Divergence]:
    """Credit each outside write (the replay's `outside`: index, id, target, the time of the write
    before it on that store, its time, its changes) to its writer (Writes.credit, no cached write decoded)
    and return the history gaps that remain (the divergences nothing explains)."""
    who = _Attributor(evidence)
    gaps: dict[str, list] = {}  # observation (x3) -> the changes of its rows nothing explains
    for i, xid, target, low, ts, changes in outside:
        found = who.find(target, changes, low, ts)
        if found.at is not None and found.at > ts:  # a log line a moment after the write: seen by then
            found = replace(found, at=ts)
        if found.gap:  # one observation's rows (x3, x3.2…): a gap if any of them is
            gaps.setdefault(xid.split(".")[0], []).extend(changes)
        if found.kind == "approved":
            call = found.call
            writes.credit(i, by="agent", source=evidence.sources.get(call.session_id) or "agent",
                          session_id=call.session_id, message_id=call.message_id, old_text=call.old_text,
                          content=call.content, detail=found.detail, note=None, timestamp=found.at)
        elif found.kind == "review":
            writes.credit(i, by="agent", source=REVIEW_SOURCE, session_id=found.session_id, detail=found.detail,
                          note=None, timestamp=found.at)
        else:  # its detail stays where the change was seen; its time, by when it was there at the latest
            writes.credit(i, note=found.detail, timestamp=found.at)
    # a divergence stays when nothing explains its outside write (a count no outside write followed,
    # too); an observation's own says what is left unexplained, not all it saw
    kept = []
    for d in divergences:
        if d.outside is not None and d.write_id is None and d.outside in gaps:
            head, _, _ = d.detail.rpartition(" (")
            d = Divergence(d.target, None, f"{head} ({change_summary(gaps[d.outside])})", d.outside)
        if d.outside is None or d.outside in gaps:
            kept.append(d)
    return kept
