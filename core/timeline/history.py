"""Every write to MEMORY.md / USER.md, rebuilt: who wrote each entry, when, and what it replaced.

Sources, merged by time:
- the agent's memory tool calls recorded in state.db (core.sessions.memory_calls), replayed with the
  detected release's rules (core.hermes.memory: substring matching, exact re-adds, batches), so a
  replace or remove by `old_text` resolves to the entry it really hit;
- hmc's own journal (its writes, approvals, undos, rollbacks: exact before and after texts);
- Hermes's `<file>.bak.<ts>` snapshots (the file as it was when a release found drift).

A journal record's `before`, a snapshot, an older release's echoed `entries`, and finally the files
as they are now are *observations*: where one differs from the replay, an `outside` write is put in
the history at that point and the divergence is noted, naming where it was found; then
core.timeline.attribution credits each outside write from the evidence Hermes leaves (an approval
made in Hermes, the background review's log lines, the sessions' loaded snapshots), and keeps as
history gaps only the changes nothing explains. Entries keep an identity across replaces, so `blame` can say which
write produced an entry's current text, when the entry first appeared, and how many texts it has had
(`revisions`: 1 for an entry added and never changed).

Write ids: `m<id>` an agent call (the id of the message holding its result), `h<id>` an hmc journal
record, `x<n>` an outside change (numbered per rebuild: not a stable id, and not something to roll
back).
"""

from __future__ import annotations

import operator
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from core.hermes.memory import DELIMITER, Op, decode, preview
from core.hermes.release import NEWEST, Release
from core.no_gc import no_gc
from core.store.atomic import read_regular
from core.store.journal import Record, tagged
from core.store.memory import FILE_NAMES, TARGETS, Conflict, StoreError, WriteResult
from core.sessions.memory_calls import Call
from core.timeline.attribution import Evidence, attribute
from core.timeline.writes import DamagedCache, Writes

if TYPE_CHECKING:  # pragma: no cover
    from core.curator import Curator

from core.timeline.replay import _Builder, _Replay, _events, decode_text  # noqa: F401  (tests reach them here)
from core.timeline.model import (MAX_BACKUP_BYTES, ROLLBACK_TAG, TimelineError, RollbackConflict, Write, ROW, Blame, Blames, Diff, Divergence, as_epoch)  # noqa: F401  (what callers import from here)

# -- the timeline --------------------------------------------------------------------------------------

@dataclass
class Timeline:
    """The rebuilt history of one profile's two stores (build it with `build_timeline`)."""

    writes: "Writes | list[Write]"
    current: dict[str, list[Blame]]
    divergences: list[Divergence]
    stats: dict
    curator: "Curator | None" = None
    refused: list = field(default_factory=list)  # (Call, the release's reason): the calls the tool refused, oldest first
    refused_sources: dict = field(default_factory=dict)  # their sessions' sources (cli, telegram…)

    # -- queries -----------------------------------------------------------------------------------
    def log(self, target: str | None = None, since=None, until=None, source: str | None = None) -> list[Write]:
        """Every write, oldest first (by time, then replay order); `since`/`until` take a datetime, a date (whole days) or Unix
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
        # in time order: a write credited from evidence (core.timeline.attribution) takes the time the
        # evidence gives, earlier than where the replay saw it (a stable sort: ties keep replay order)
        out.sort(key=operator.attrgetter("timestamp"))
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
        if w.by == "unknown" or w.id.startswith("x"):
            raise TimelineError(f"{w.id} is a change no recorded call made (seen in the files, not in state.db "
                                "or hmc's journal): there is no recorded write to roll back; edit the entry instead")
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
                        later.by, "by no recorded call")
                    return f"{how} since, {who} in {later.id}" if later.by != "unknown" else f"{how} since, {who}"
        return "changed since"

    def rollback(self, write_id: str, force: bool = False) -> WriteResult:
        """Undo one write's effect as a new write through the store (lock, limit, scan, journal:
        hmc's undo can undo it). `force` confirms what hmc's scan flags and allows emptying a store;
        a conflict is never forced."""
        w, ops = self.rollback_plan(write_id)
        store = self.curator.stores[w.target]
        try:
            with tagged(f"{ROLLBACK_TAG}{w.id}"):
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
        missing = set(map(operator.attrgetter("session_id"), calls)).difference(harvest.sources)  # C's loop
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
            staged: dict[str, Call] | None = None, evidence: Evidence | None = None,
            ) -> tuple[list[Write], dict[str, list[Blame]], list[Divergence]]:
    """The pure rebuild: replay, observe, reconcile with `current` (None: a store that can't be read).
    `staged`: the staging calls by their record's id (an approval in the journal is theirs);
    `evidence`: what attributes the outside writes (core.timeline.attribution)."""
    replay = _Replay(release)
    replay.builder.staged = dict(staged or {})
    replay.feed(calls, [r for r in records if r.target in TARGETS], snaps or {}, sources or {})
    blame = finish(replay.builder, current, replay.last_ts, now=now, mtimes=mtimes)
    b = replay.builder
    gaps = attribute(b.writes, b.outside, b.divergences,
                     evidence or Evidence(staged=dict(staged or {}), sources=dict(sources or {})))
    return replay.builder.writes, blame, gaps


SAVE_AFTER_MESSAGES = 5_000  # an update reading fewer new messages than this (and few new writes)
SAVE_AFTER_EVENTS = 100  # leaves the cache as it was: the next run reads those few rows again


def build_timeline(curator: "Curator", *, cache: bool = True, route: str | None = None,
                   progress: Callable[[int, int], None] | None = None, verified: bool = False) -> Timeline:
    """Rebuild one profile's history: state.db (read-only; cached), hmc's journal, the snapshots and
    the files now. Raises core.sessions.db.DatabaseError when state.db exists but can't be read.
    `progress(done, total)` hears how far a replay has got (events: calls, hmc's writes, snapshots).
    `verified`: the cached writes are checked against their digests before it returns (what reads
    them all, a log or the history screen, meets a damaged cache here, where it is rebuilt), and so
    is every state.db row they came from (else a sample: core.timeline.rowprints)."""
    with no_gc():  # a build makes hundreds of thousands of objects and no cycles: the collector
        try:        # walked them again and again (a fifth of a cold build)
            built = _build(curator, cache, route, trust_cache=True, progress=progress, every_row=verified)
            if verified and isinstance(built.writes, Writes):
                built.writes.verify()
            return built
        except (_StaleCache, DamagedCache):  # a damaged cache is never decoded: replayed from the start
            return _build(curator, cache, route, trust_cache=False, progress=progress)


def _build(curator: "Curator", cache: bool, route: str | None, trust_cache: bool,
           progress: Callable[[int, int], None] | None = None, every_row: bool = False) -> Timeline:
    import sqlite3

    from core.sessions.db import DatabaseError, ReadOnlyConnections, present, probe, translate_error
    from core.timeline import cache as calls_cache
    from core.sessions.memory_calls import MAX_REFUSED, Harvest, read_calls

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
            with no_gc():
                cached = calls_cache.load(db_path, conn, every_row=every_row) if cache and trust_cache else None
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
        refused = harvest.refused[-MAX_REFUSED:]
        refused_sources = {}
        if refused and conn is not None:
            from core.sessions.memory_calls import read_sources

            try:
                refused_sources = read_sources(conn, {call.session_id for call, _ in refused})
            except sqlite3.Error:  # a sessions table that can't be read names no source: the history goes on
                refused_sources = {}
        records = [r for r in curator.history.records() if r.target in TARGETS] if curator.history else []
        if curator.history is not None and curator.history.problem:
            stats["journal"] = curator.history.problem  # hmc's own writes can't be shown
        snaps = {t: backups(curator.home.memories, t) for t in TARGETS}
        replay, todo = None, None
        if saved_state is not None:
            try:
                with no_gc():
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
        staged = [call for _, call in harvest.staged]
        if replay is not None and todo is not None:
            stats["replayed"] = "new"
            replay.builder.staged = dict(harvest.staged)
            replay.feed(*todo, _sources(conn, harvest, [*todo[0], *staged]), checkpoint=checkpoint,
                        progress=progress)
        else:
            replay = _Replay(curator.release)
            replay.builder.staged = dict(harvest.staged)
            calls = _all_calls(harvest)
            replay.feed(calls, records, snaps, _sources(conn, harvest, [*calls, *staged]), checkpoint=checkpoint,
                        progress=progress)
        fresh = stats["replayed"] == "all"
        grew = harvest.last_id - stats["new_messages_from"]
        pruned = getattr(harvest.prints, "changed", False)  # rows gone since: saved, so the next run sums once
        if cache and conn is not None and (fresh or grew > SAVE_AFTER_MESSAGES or replay.events > SAVE_AFTER_EVENTS
                                           or pruned):
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
    b = replay.builder
    evidence = _evidence(curator, harvest, cache)
    gaps = attribute(b.writes, b.outside, b.divergences, evidence)
    if evidence.windows is not None:
        evidence.windows.save(harvest.last_id)
    return Timeline(replay.builder.writes, blame, gaps, stats, curator, refused, refused_sources)


def _evidence(curator: "Curator", harvest, cache: bool = True) -> Evidence:
    """What Hermes left of the writes state.db doesn't record (core.timeline.attribution), each
    source read when first needed; with `cache`, the windows narrowed in earlier builds
    (core.timeline.windows)."""
    from core.timeline import agent_log

    def first_loading(target, shown, before):
        from core.snapshots.loaded import first_loading as find

        try:
            return curator.sessions.read_with(lambda conn, schema: find(conn, schema.session_columns, target, shown,
                                                                        before))
        except Exception:  # noqa: BLE001 - an unreadable state.db narrows nothing
            return None

    shared: list = []  # the catalog of parsed prompts, shared by every window of this build

    def catalog():
        if not shared:
            try:  # the loaded-memory summary's: a prompt it parsed before isn't parsed again
                shared.append(curator.snapshots().catalog)
            except Exception:  # noqa: BLE001 - no usable summary: prompts are parsed here, once a build
                from core.snapshots.catalog import Catalog

                shared.append(Catalog())
        return shared[0]

    def loads(low, high):
        from core.snapshots.loaded import started_between

        try:
            return curator.sessions.read_with(
                lambda conn, schema: started_between(conn, schema.session_columns, low, high, catalog()))
        except Exception:  # noqa: BLE001 - an unreadable state.db narrows nothing
            return ()

    try:
        waiting = frozenset(name[:-5] for name in os.listdir(curator.home.pending_dir) if name.endswith(".json"))
    except OSError:
        waiting = frozenset()
    db_path = curator.home.state_db
    has_db = db_path.is_file()
    pruned = None
    if harvest.staged or has_db:
        pruned = curator.pruning().cutoff
    from core.hermes.memory import prompt_entries

    windows = None
    if has_db:
        from core.timeline import cache as calls_cache
        from core.timeline.windows import Windows, file_key, windows_path

        key = file_key(db_path, curator.release) if cache else None
        windows = Windows(windows_path(calls_cache.cache_path(db_path)) if key else None, key or [],
                          lambda fn: curator.sessions.read_with(lambda conn, schema: fn(conn)))
    return Evidence(staged=dict(harvest.staged), waiting=waiting, sources=harvest.sources,
                    shown=lambda target, text: prompt_entries(target, [text], curator.release)[0],
                    reviews=lambda: agent_log.read(curator.home.root / "logs").writes,
                    loads=loads if has_db else (lambda low, high: ()), pruned_before=pruned,
                    first_loading=first_loading, windows=windows)


__all__ = ["Blame", "Diff", "Divergence", "RollbackConflict", "Timeline", "TimelineError", "Write",
           "build_timeline", "rebuild", "backups", "DELIMITER"]
