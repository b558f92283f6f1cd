"""A session's snapshot against the files now: what changed since it loaded, and which chats still
run on an old snapshot.

What a new session would load now is the release's own prompt block of each store as it is on disk
(blocked entries as their notices, a disabled store as nothing): `now_entries`. A session whose
loaded entries differ from those "runs on an old snapshot" when it can still talk: it is open
(never ended), was active within STALE_DAYS, and isn't a one-shot source (cron, subagent, …).
Hermes never reloads such a session's memory (§8: a resumed session keeps its first prompt, and a
0.22 gateway chat never resets by itself); `/new` or `/reset` in that chat does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from core.hermes.memory import TARGETS
from core.snapshots.session import ONE_SHOT_SOURCES, EntryLoads, SessionLoad
from core.snapshots.tally import Snapshots

STALE_DAYS = 30  # an open session idle longer than this is left alone (a crashed CLI, an old chat)
SIMILAR = 60  # rapidfuzz ratio from which a removed and an added entry read as one entry changed
# pairs scored without rapidfuzz (indel_ratio: one big-int step per character of the added entry,
# ~0.5 µs) while removed entries × added characters stay under this: a few ms at most
LITTLE_WORK = 16_000


@dataclass(frozen=True)
class StoreDiff:
    """One store: the loaded entries against the entries now (all as shown in the prompt)."""

    target: str
    added: tuple[str, ...]  # now, not loaded
    removed: tuple[str, ...]  # loaded, gone now
    changed: tuple[tuple[str, str], ...]  # (loaded, now): one entry rewritten

    @property
    def same(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def to_json(self) -> dict:
        return {"added": list(self.added), "removed": list(self.removed),
                "changed": [{"loaded": a, "now": b} for a, b in self.changed]}

    def summary(self) -> str:
        parts = [f"{len(x)} {word}" for x, word in ((self.added, "added"), (self.changed, "changed"),
                                                    (self.removed, "removed")) if x]
        return ", ".join(parts) or "the same"


def pair_changed(removed: Sequence[str], added: Sequence[str], cutoff: float = SIMILAR) -> list[tuple[str, str]]:
    """(old, new) for each removed entry that reads as an added one rewritten (rapidfuzz ratio >=
    `cutoff`): the most similar pairs first, each entry in one pair at most. Ties go to file order
    (the earlier removed entry, then the earlier added one), so the pairing never depends on chance.
    Returned in the removed entries' order."""
    if not removed or not added:
        return []
    if len(removed) * sum(map(len, added)) <= LITTLE_WORK:
        ratio = indel_ratio  # a few pairs: cheaper than importing rapidfuzz (~15 ms) for them
    else:
        from rapidfuzz import fuzz

        ratio = fuzz.ratio
    scored = []
    for i, old in enumerate(removed):
        for j, new in enumerate(added):
            score = ratio(old, new, score_cutoff=cutoff)
            if score:
                scored.append((-score, i, j))
    scored.sort()
    used_old: set[int] = set()
    used_new: set[int] = set()
    pairs: dict[int, int] = {}
    for _, i, j in scored:
        if i not in used_old and j not in used_new:
            used_old.add(i)
            used_new.add(j)
            pairs[i] = j
    return [(removed[i], added[pairs[i]]) for i in sorted(pairs)]


def indel_ratio(a: str, b: str, score_cutoff: float = 0) -> float:
    """rapidfuzz's `fuzz.ratio`, to the last bit (tests/core/test_decision_aids.py holds them side by
    side): 100 × (1 − Indel distance / (len(a) + len(b))), 0 under `score_cutoff`. The longest common
    subsequence is counted by the bit-parallel recurrence rapidfuzz uses (Hyyrö's), one big-int step
    per character of `b`."""
    total = len(a) + len(b)
    if not total:
        return 100.0
    masks: dict[str, int] = {}
    for i, ch in enumerate(a):
        masks[ch] = masks.get(ch, 0) | (1 << i)
    full = (1 << len(a)) - 1
    row = full
    for ch in b:
        matched = row & masks.get(ch, 0)
        row = ((row + matched) | (row - matched)) & full
    common = len(a) - row.bit_count()
    similarity = 1.0 - (total - 2 * common) / total
    return similarity * 100 if similarity >= score_cutoff / 100 else 0.0


def diff(target: str, loaded: Sequence[str], now: Sequence[str]) -> StoreDiff:
    """Entries added, removed and changed between a snapshot and the files now."""
    now_set, loaded_set = set(now), set(loaded)
    added = [e for e in now if e not in loaded_set]
    removed = [e for e in loaded if e not in now_set]
    changed = pair_changed(removed, added)
    for old, new in changed:
        removed.remove(old)
        added.remove(new)
    return StoreDiff(target, tuple(added), tuple(removed), tuple(changed))


def diff_now(session: SessionLoad, now_entries: Mapping[str, Sequence[str] | None]) -> dict[str, StoreDiff] | None:
    """Each store's diff from what `session` loaded to what a new session loads now (None: not known)."""
    if session.loaded is None:
        return None
    return {t: diff(t, session.loaded.entries(t), now_entries.get(t) or ()) for t in TARGETS}


@dataclass(frozen=True)
class Stale:
    """An open session that runs on memory older than the files."""

    session: SessionLoad
    diffs: dict[str, StoreDiff]

    @property
    def advice(self) -> str:
        if self.session.source in ("cli", "oneshot", "tui", "acp"):
            return "start a new session (/new) to load the memory as it is now; a resumed session never reloads"
        return f"send /new or /reset in that {self.session.source} chat to load the memory as it is now"

    def to_json(self) -> dict:
        from core.sessions.model import iso_time

        s = self.session
        return {"session_id": s.id, "source": s.source, "chat": s.chat, "title": s.title,
                "loaded_at": iso_time(s.started_at), "last_active": iso_time(s.last_active),
                "changes": {t: d.to_json() for t, d in self.diffs.items()}, "advice": self.advice}


def stale_sessions(snapshots: Snapshots, now_entries: Mapping[str, Sequence[str] | None],
                   now: float, days: int = STALE_DAYS) -> list[Stale]:
    """Open, recently active sessions whose loaded memory differs from the files now, most
    recently active first."""
    since = now - days * 86400
    out = []
    for s in snapshots.live:
        if not s.open or s.loaded is None or s.source in ONE_SHOT_SOURCES:
            continue
        if (s.last_active or s.started_at or 0.0) < since:
            continue
        diffs = diff_now(s, now_entries)
        if diffs and not all(d.same for d in diffs.values()):
            out.append(Stale(s, diffs))
    out.sort(key=lambda x: -(x.session.last_active or x.session.started_at or 0.0))
    return out


NOT_LOADED = EntryLoads("", None, 0)  # no session with a known prompt loaded it (yet)


def entry_loads(snapshots: Snapshots, target: str, entries: Sequence[str], release) -> list[EntryLoads] | None:
    """For each entry of a store now: which sessions loaded it (NOT_LOADED: none did, e.g. written
    after the last session started), matched as the prompt shows it (a blocked entry as its
    notice). None when no session's prompt is known: nothing can be said."""
    from core.hermes.memory import prompt_entries

    if not snapshots.known:
        return None
    shown = prompt_entries(target, list(entries), release)
    loads = snapshots.entry_loads(target, shown)
    return [loads.get(entry, NOT_LOADED) for entry in shown]


def report(session: SessionLoad, diffs: Mapping[str, StoreDiff] | None) -> list[tuple[str, str]]:
    """What a session loaded, for people, as (kind, line) pairs the CLI and the TUI style alike: what
    changed in the files since it loaded them first (the answer people look for), then the blocks
    exactly as it got them. kind is "block" (a line of a block), "note", "warning", "ok",
    "heading", "added", "changed" or "removed"."""
    from core.snapshots.blocks import render

    if session.loaded is None:
        return [("warning", f"what this session loaded is not known: {session.unknown}")]
    out: list[tuple[str, str]] = []
    if diffs is None or all(d.same for d in diffs.values()):
        out.append(("ok", "a new session would load exactly this"))
    else:
        out.append(("heading", "since it loaded them, the files changed:"))
        for target, d in diffs.items():
            out.extend(("added", f"  + {target}: {entry}") for entry in d.added)
            out.extend(("changed", f"  ~ {target}: {old} → {new}") for old, new in d.changed)
            out.extend(("removed", f"  - {target}: {entry}") for entry in d.removed)
    out += [("block", ""), ("heading", "what it loaded:")]
    for target, block in (("memory", session.loaded.memory), ("user", session.loaded.user)):
        if block is None:
            name = "MEMORY.md" if target == "memory" else "USER.md"
            out.append(("note", f"({name}: nothing loaded — empty or disabled)"))
            continue
        out.extend(("block", line) for line in render(block).split("\n"))
        out.append(("block", ""))
    return out[:-1] if out[-1] == ("block", "") else out
