"""Each settled session's snapshot slot by rowid, kept as runs.

Sessions come in rowid order, and a session loads the snapshot its neighbours loaded until the
memory changes: 100,000 sessions are a few thousand runs of consecutive rowids sharing one slot.
A run is (first rowid, length, slot), in three packed arrays ordered by first rowid, so the cache
(core.snapshots.cache) keeps a few KB where a rowid and a slot per session would be a megabyte.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from itertools import count, groupby
from operator import add, le, sub
from typing import Sequence


class Runs:
    """rowid → slot, as runs (the module docstring)."""

    def __init__(self, starts: array | None = None, lengths: array | None = None, slots: array | None = None):
        self.starts = starts if starts is not None else array("q")
        self.lengths = lengths if lengths is not None else array("q")
        self.slots = slots if slots is not None else array("i")
        self.size = sum(self.lengths)  # sessions held

    def __len__(self) -> int:
        return self.size

    def check(self) -> None:
        """Raises ValueError unless the runs are what Runs writes: as many of each, every length
        positive, ordered and apart (runs read from a cache file are checked before use)."""
        starts, lengths = self.starts, self.lengths
        if not len(starts) == len(lengths) == len(self.slots) or lengths and min(lengths) < 1 \
                or not all(map(le, map(add, starts, lengths), starts[1:])):
            raise ValueError("runs")

    def _run(self, rowid: int) -> int:
        """The run holding `rowid`, or -1."""
        at = bisect_right(self.starts, rowid) - 1
        return at if at >= 0 and rowid < self.starts[at] + self.lengths[at] else -1

    def get(self, rowid: int) -> int:
        """The slot of `rowid` (KeyError: not held)."""
        at = self._run(rowid)
        if at < 0:
            raise KeyError(rowid)
        return self.slots[at]

    def add(self, rowid: int, slot: int) -> None:
        """Holds `rowid` (not held yet) with `slot`."""
        starts, lengths, slots = self.starts, self.lengths, self.slots
        if starts and rowid == starts[-1] + lengths[-1] and slot == slots[-1]:
            lengths[-1] += 1  # the usual case: the next session, the same snapshot
        else:
            at = bisect_right(starts, rowid)
            if at and rowid < starts[at - 1] + lengths[at - 1]:
                raise ValueError(f"rowid {rowid} is held already")
            starts.insert(at, rowid)
            lengths.insert(at, 1)
            slots.insert(at, slot)
        self.size += 1

    def extend(self, rowids: Sequence[int], slots: Sequence[int]) -> None:
        """Holds these rowids (ascending, each new) with their slots."""
        starts, lengths, run_slots = [], [], []
        # a run is a stretch where rowid - position and the slot stay the same
        at = 0
        for (_, slot), group in groupby(zip(map(sub, rowids, count()), slots)):
            n = len(list(group))
            starts.append(rowids[at]), lengths.append(n), run_slots.append(slot)
            at += n
        self.extend_runs(starts, lengths, run_slots)

    def extend_runs(self, starts: Sequence[int], lengths: Sequence[int], slots: Sequence[int]) -> None:
        """Holds these runs (ascending, apart, each rowid new): appended as they are when they all
        come after the last rowid held (a whole read, or the sessions added since a cache was
        written), else one rowid at a time."""
        if not starts:
            return
        if self.starts and starts[0] < self.starts[-1] + self.lengths[-1]:
            for start, n, slot in zip(starts, lengths, slots):
                for rowid in range(start, start + n):
                    self.add(rowid, slot)
            return
        if self.starts and starts[0] == self.starts[-1] + self.lengths[-1] and slots[0] == self.slots[-1]:
            self.lengths[-1] += lengths[0]  # the first run goes on from the last one held
            self.size += lengths[0]
            starts, lengths, slots = starts[1:], lengths[1:], slots[1:]
        self.starts.extend(starts)
        self.lengths.extend(lengths)
        self.slots.extend(slots)
        self.size += sum(lengths)

    def set(self, rowid: int, slot: int) -> None:
        """Gives held `rowid` another slot (its run split around it)."""
        at = self._run(rowid)
        if at < 0:
            raise KeyError(rowid)
        old = self.slots[at]
        if old == slot:
            return
        start, length = self.starts[at], self.lengths[at]
        before, after = rowid - start, start + length - rowid - 1
        parts = ([(start, before, old)] if before else []) + [(rowid, 1, slot)] + \
            ([(rowid + 1, after, old)] if after else [])
        self.starts[at:at + 1] = array("q", [p[0] for p in parts])
        self.lengths[at:at + 1] = array("q", [p[1] for p in parts])
        self.slots[at:at + 1] = array("i", [p[2] for p in parts])
