"""Reading every source once for one fact: the stores, the queue, the history (writes and refusals),
past sessions (one search, then the turns of the sessions it found), what open sessions loaded, the
config, pruning, and the other profiles. core.why.causes turns this into verdicts.

A source that can't be read (a damaged state.db, an unreadable pending folder) is named in
`problems` and its causes answer `unknown`, never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.store.memory import TARGETS
from core.review.facts import Fact

if TYPE_CHECKING:  # pragma: no cover
    from core.curator import Curator

MAX_HITS = 40  # search hits read whole for the fact (the most relevant)
MAX_RECENT = 30  # recent sessions checked for what they loaded
MAX_PROFILES = 20  # other profiles whose stores and sessions are read


@dataclass(frozen=True)
class Found:
    """An entry that holds the fact."""

    profile: str
    target: str
    index: int  # 0-based
    text: str
    path: str = ""

    def to_json(self) -> dict:
        return {"kind": "entry", "profile": self.profile, "target": self.target, "index": self.index,
                "number": self.index + 1, "text": self.text, "file": self.path}


@dataclass(frozen=True)
class Said:
    """A message of a past session that holds the fact."""

    profile: str
    session_id: str
    message_id: int
    role: str
    timestamp: float | None
    source: str
    title: str
    text: str

    def to_json(self) -> dict:
        from core.sessions.model import iso_time

        return {"kind": "message", "profile": self.profile, "session_id": self.session_id,
                "message_id": self.message_id, "role": self.role, "time": iso_time(self.timestamp),
                "source": self.source, "title": self.title, "text": self.text[:300]}


@dataclass
class Trace:
    fact: Fact
    profile: str
    entries: list[Found] = field(default_factory=list)
    other_entries: list[Found] = field(default_factory=list)
    stale_default: Path | None = None  # <home>/profiles/default/, which Hermes never reads
    records: list = field(default_factory=list)  # (PendingRecord, the op text that holds the fact)
    refusals: list = field(default_factory=list)  # core.timeline.refusals.Refusal
    removals: list = field(default_factory=list)  # (Write, the old text, the new text or None)
    saves: list = field(default_factory=list)  # Writes whose new text holds the fact
    messages: list[Said] = field(default_factory=list)
    other_messages: list[Said] = field(default_factory=list)
    unsaved: list = field(default_factory=list)  # core.sessions.unsaved.Unsaved holding the fact
    missing_in: list = field(default_factory=list)  # SessionLoads (open or recent) that didn't load it
    loaded_in: int = 0  # recent sessions that did load it
    setup: Any = None  # core.hermes.toolsets.MemorySetup
    pruning: Any = None  # core.snapshots.pruning.Pruning
    sessions_recorded: bool = False  # the profile has a state.db
    history: bool = False  # the history could be rebuilt
    sessions: bool = False  # state.db could be searched
    problems: list[str] = field(default_factory=list)


def trace(curator: "Curator", fact: Fact, *, other_profiles: bool = True) -> Trace:
    t = Trace(fact, curator.home.profile)
    t.entries = _entries(curator, fact)
    _pending(curator, fact, t)
    _history(curator, fact, t)
    _sessions(curator, fact, t)
    _loaded(curator, fact, t)
    platforms = ["cli", *dict.fromkeys(m.source for m in t.messages if m.source)]
    t.setup = curator.memory_setup(platforms)
    try:
        t.pruning = curator.pruning()
    except Exception as exc:  # noqa: BLE001 - pruning only narrows: unknown when unreadable
        t.problems.append(f"pruning: {exc}")
    if other_profiles:
        _profiles(curator, fact, t)
    return t


def _entries(curator: "Curator", fact: Fact, profile: str | None = None) -> list[Found]:
    out = []
    for target in TARGETS:
        store = curator.stores[target]
        snap = store.read()
        for i, text in enumerate(snap.entries):
            if fact.in_text(text):
                out.append(Found(profile or curator.home.profile, target, i, text, str(store.path)))
    return out


def _pending(curator: "Curator", fact: Fact, t: Trace) -> None:
    from core.pending.queue import PendingError

    try:
        records = curator.pending.list()
    except PendingError as exc:
        t.problems.append(f"pending: {exc}")
        return
    for record in records:
        for op in record.ops:
            text = op.content or op.old_text or ""
            if text and fact.in_text(text):
                t.records.append((record, text))
                break


def _history(curator: "Curator", fact: Fact, t: Trace) -> None:
    from core.sessions.db import DatabaseError
    from core.timeline import build_timeline
    from core.timeline.refusals import select

    try:
        tl = build_timeline(curator)
    except DatabaseError as exc:
        t.problems.append(f"history: {exc}")
        return
    t.history = True
    for refusal in select(tl.refused):
        if any(fact.in_text(text) for text in refusal.texts):
            t.refusals.append(refusal)
    for w in tl.writes:
        for old, new in w.changes:
            old_has, new_has = bool(old) and fact.in_text(old), bool(new) and fact.in_text(new)
            if old_has and not new_has:
                t.removals.append((w, old, new))
            elif new_has and not old_has:
                t.saves.append(w)


def _sessions(curator: "Curator", fact: Fact, t: Trace) -> None:
    if not curator.home.state_db.is_file():
        return
    t.sessions_recorded = True
    found = search(curator, fact, t)
    if found is None:
        return
    t.sessions = True
    t.messages = found
    if not found:
        return
    from core.sessions.unsaved import scan_turns

    anchors = [(m.session_id, m.message_id) for m in found]
    try:
        turns = curator.sessions.read_with(lambda conn, schema: scan_turns(conn, anchors, claimed_only=False))
    except Exception as exc:  # noqa: BLE001 - the turns only narrow the answer
        t.problems.append(f"sessions: {exc}")
        return
    t.unsaved = [u for u in turns if fact.in_text(u.request) or fact.in_text(u.claim_text)]


def search(curator: "Curator", fact: Fact, t: Trace, profile: str | None = None) -> list[Said] | None:
    """The messages of `curator`'s state.db that hold the fact, most relevant first (None: it can't
    be searched, named in t.problems)."""
    from core.sessions.db import DatabaseError
    from core.sessions.query import QueryError

    db = curator.sessions
    try:
        result = db.search(fact.query(), roles=("user", "assistant"), limit=MAX_HITS, sort="relevance", said_only=True)
        out = []
        for hit in result.hits:
            text = db.message(hit.message_id).text
            if fact.in_text(text):
                out.append(Said(profile or curator.home.profile, hit.session_id, hit.message_id, hit.role,
                                hit.timestamp, hit.source, hit.title, text))
        return out
    except (DatabaseError, QueryError) as exc:
        t.problems.append(f"sessions{' of ' + profile if profile else ''}: {exc}")
        return None


def _loaded(curator: "Curator", fact: Fact, t: Trace) -> None:
    """The recent sessions that didn't load an entry holding the fact (only when one does now)."""
    if not t.entries or not curator.home.state_db.is_file():
        return
    from core.hermes.memory import prompt_entries

    shown = {(f.target, prompt_entries(f.target, [f.text], curator.release)[0]) for f in t.entries}
    try:
        recent = curator.recent_sessions(MAX_RECENT)
    except Exception as exc:  # noqa: BLE001 - an unreadable state.db: the verdict is unknown
        t.problems.append(f"loaded memory: {exc}")
        return
    latest: set[str] = set()
    for session in recent:  # most recent first: the open ones, and the latest of each source/chat
        if session.loaded is None:
            continue
        where = session.where
        if not session.open and where in latest:
            continue
        latest.add(where)
        if any(text in session.loaded.entries(target) for target, text in shown):
            t.loaded_in += 1
        else:
            t.missing_in.append(session)


def _profiles(curator: "Curator", fact: Fact, t: Trace) -> None:
    from core.curator import open_curator
    from core.hermes.memory import parse
    from core.home import HomeError, list_profiles

    base = curator.home.base
    stale = base / "profiles" / "default"
    if stale.is_dir():
        t.stale_default = stale
        for name in ("MEMORY.md", "USER.md"):
            path = stale / "memories" / name
            for i, entry in enumerate(parse(_read(path))):
                if fact.in_text(entry):
                    t.other_entries.append(Found("profiles/default", "memory" if name == "MEMORY.md" else "user",
                                                 i, entry, str(path)))
    for name in list_profiles(base, curator.release)[:MAX_PROFILES + 1]:
        if name == curator.home.profile:
            continue
        try:
            other = open_curator(base, name, curator.today, curator.clock, curator.hermes_version)
        except (HomeError, ValueError) as exc:
            t.problems.append(f"profile {name}: {exc}")
            continue
        t.other_entries.extend(_entries(other, fact, name))
        if other.home.state_db.is_file() and other.home.state_db.resolve() != curator.home.state_db.resolve():
            found = search(other, fact, t, name)
            t.other_messages.extend(found or ())


def _read(path: Path) -> str:
    from core.store.atomic import read_regular

    try:
        return read_regular(path, 1 << 20).decode("utf-8", "replace")
    except OSError:
        return ""
