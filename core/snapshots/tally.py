"""What the sessions of one state.db loaded, summed up: the answers hmc gives from every session
(which sessions loaded an entry, which chats run on an old snapshot) without keeping 100,000
sessions in memory.

A session is *settled* when its part in the totals won't change: it ended, and what it loaded is
known or never will be. A settled session is only counted: its snapshot's count goes up by one, and
it becomes the snapshot's first session if it started before the first one. The others are *live*
(open, or not known yet) and kept whole: they are few, and the chats on an old snapshot are among
them. core.snapshots.cache keeps a Tally between runs and brings it up to date.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from core.snapshots.blocks import Loaded
from core.snapshots.catalog import Catalog, places_of
from core.snapshots.session import RETRY, EntryLoads, SessionLoad
from core.snapshots.runs import Runs


def order_key(started: float | None, sid: str) -> tuple:
    """Which of two sessions came first: the start, then the id (no start: as if at 0)."""
    return (started or 0.0, sid)


def settled(s: SessionLoad) -> bool:
    """Whether a session's part in the totals won't change (the module docstring)."""
    return s.ended_at is not None and s.unknown not in RETRY


class Tally:
    """The totals, built one session (or one group of sessions) at a time: per snapshot slot of
    `catalog`, how many settled sessions loaded it (`counts`) and the first of them (`firsts`:
    (order key, id, start)); each settled session's slot by rowid (`runs`; -1: not known), so that
    a later change to one can be taken back out (core.snapshots.cache); the live sessions whole;
    and which live sessions the totals hold already (settled once, then resumed: `counted`)."""

    def __init__(self, catalog: Catalog | None = None, counts: list[int] | None = None,
                 firsts: list[tuple | None] | None = None) -> None:
        self.catalog = catalog if catalog is not None else Catalog()
        self.counts: list[int] = counts if counts is not None else []
        self.firsts: list[tuple | None] = firsts if firsts is not None else []
        self.runs = Runs()
        self.live: dict[int, SessionLoad] = {}
        self.counted: set[int] = set()
        self.last_rowid = 0  # the highest rowid added

    def grow(self) -> None:
        """A count for every slot the catalog holds (a parse may add slots no session counted yet)."""
        missing = len(self.catalog) - len(self.counts)
        if missing > 0:
            self.counts.extend([0] * missing)
            self.firsts.extend([None] * missing)

    def slot(self, loaded: Loaded | None) -> int:
        return self.catalog.slot(loaded)

    def count(self, i: int, sid: str, started: float | None, n: int = 1) -> None:
        """`n` more settled sessions loaded slot `i`, the first of them `sid`."""
        if i >= len(self.counts):
            self.grow()
        self.counts[i] += n
        first, key = self.firsts[i], order_key(started, sid)
        if first is None or key < first[0]:
            self.firsts[i] = (key, sid, started)

    def add(self, rowid: int, s: SessionLoad) -> None:
        if rowid > self.last_rowid:
            self.last_rowid = rowid
        if settled(s):
            i = self.slot(s.loaded)
            self.runs.add(rowid, i)
            if i >= 0:
                self.count(i, s.id, s.started_at)
        else:
            self.live[rowid] = s

    def snapshots(self, source: str) -> "Snapshots":
        self.grow()

        def order(rowid: int) -> tuple:
            s = self.live[rowid]
            return (s.started_at is not None, s.started_at or 0.0, s.id)

        live = sorted(self.live, key=order)
        return Snapshots(self.catalog, self.counts, self.firsts, [self.live[r] for r in live], source,
                         [self.live[r] for r in live if r not in self.counted])


class Snapshots:
    """The summary: for each snapshot, how many settled sessions loaded it and which came first;
    every live session (open, or not known yet) whole, oldest first. One session is read by id
    (core.snapshots.loaded.Reader.one), the recent ones by activity (Reader.recent)."""

    def __init__(self, catalog: Catalog | None = None, counts: Sequence[int] = (),
                 firsts: Sequence[tuple | None] = (), live: Sequence[SessionLoad] = (), prompt_source: str = "none",
                 uncounted: Sequence[SessionLoad] | None = None):
        self.catalog = catalog if catalog is not None else Catalog()
        self.counts, self.firsts = counts, firsts
        self.live = list(live)
        # the live sessions the totals don't hold (all of them, but one settled once and resumed since)
        self._uncounted = self.live if uncounted is None else list(uncounted)
        self.prompt_source = prompt_source

    @classmethod
    def of(cls, sessions: Iterable[SessionLoad], prompt_source: str = "none") -> "Snapshots":
        """The summary of these sessions (each given once)."""
        tally = Tally()
        for rowid, s in enumerate(sessions):
            tally.add(rowid, s)
        return tally.snapshots(prompt_source)

    @property
    def known(self) -> int:
        """How many sessions' loaded memory is known."""
        return sum(self.counts) + sum(1 for s in self._uncounted if s.loaded is not None)

    def loaders(self) -> dict[tuple, tuple[int, tuple]]:
        """{snapshot key: (sessions that loaded it, (order key, id, start) of the first)}: the
        summary as a value, the same however it was built (the tests compare cached and whole)."""
        out: dict[tuple, list] = {}

        def add(loaded: Loaded, n: int, first: tuple) -> None:
            seen = out.get(loaded.key)
            if seen is None:
                out[loaded.key] = [n, first]
            else:
                seen[0] += n
                seen[1] = min(seen[1], first)

        for i, (n, first) in enumerate(zip(self.counts, self.firsts)):
            if n:
                add(self.catalog.get(i), n, first)
        for s in self._uncounted:
            if s.loaded is not None:
                add(s.loaded, 1, (order_key(s.started_at, s.id), s.id, s.started_at))
        return {k: (n, first) for k, (n, first) in out.items()}

    def entry_loads(self, target: str, wanted: Iterable[str]) -> dict[str, EntryLoads]:
        """For each of the `wanted` entries (as shown) that some session loaded: the first session
        and how many did. Read off the encoded snapshots: none is decoded."""
        wanted = set(wanted)
        places = self.catalog.places()
        want = {places[e]: e for e in wanted if e in places}
        side = 0 if target == "memory" else 1
        found: dict[str, list] = {}

        def add(entry: str, n: int, first: tuple) -> None:
            seen = found.get(entry)
            if seen is None:
                found[entry] = [first, n]
            else:
                seen[1] += n
                if first < seen[0]:
                    seen[0] = first

        if want:
            keys = want.keys()
            for enc, n, first in zip(self.catalog.enc, self.counts, self.firsts):
                if n and enc[side] is not None:
                    for at in keys & set(places_of(enc[side])):
                        add(want[at], n, first)
        for s in self._uncounted:
            if s.loaded is not None:
                for entry in wanted.intersection(s.loaded.entries(target)):
                    add(entry, 1, (order_key(s.started_at, s.id), s.id, s.started_at))
        return {e: EntryLoads(f[1], f[2], n) for e, (f, n) in found.items()}
