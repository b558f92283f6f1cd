"""What the history cache checks of the state.db rows it was built from, so that it never trusts
an old row that changed.

The cache reads only the messages after its last id; a row before it that changed (a memory call
redacted with `UPDATE messages SET tool_calls = …`, another database copied over state.db in
place) would otherwise stay in the history as it was read: a secret scrubbed from state.db would
survive in `hmc log --reveal`. So the cache keeps, for every row a write, a staged record, a
refusal or an open call came from, its id and a print: the lengths of its `tool_calls` and
`content` as SQLite counts them (`PRINT_SQL`). Before a cached history is used, SQLite sums those
prints over the same ids in one query (the ids passed as one JSON array); equal sums and counts
mean nothing changed. Otherwise the rows are compared one by one: a row that is gone was pruned
(Hermes deletes old sessions), and the history keeps what it read from it; a row whose print
differs means the history is read again from state.db, from the start.

The cost grows with the number of memory calls, not with the database: one indexed lookup per row
(about 2 ms per 1,000 calls). So every row is checked where every write is shown (`hmc log`,
`blame`, `rollback`, the history screens: a build asked `verified`); elsewhere (the memory pane's
origin lines, the review's ages, an update of the cache) an evenly spread sample of at most
SAMPLE rows, enough to see another database copied in place, within a few milliseconds at any
size. What it can't see: an edit that keeps both lengths the same (the same number of characters
replaced by as many others).
"""

from __future__ import annotations

import json
import sqlite3
from array import array
from typing import Iterable

SAMPLE = 256  # rows checked where not every write is shown (evenly spread, the newest included)
PRINT_SQL = "coalesce(length(tool_calls), -1) * 65599 + coalesce(length(content), -1)"
_BY_IDS = "FROM messages WHERE id IN (SELECT value FROM json_each(?))"


class RowPrints:
    """The rows a cached history came from: ids and prints, oldest first."""

    def __init__(self, ids: Iterable[int] = (), prints: Iterable[int] = ()) -> None:
        self.ids = array("q", ids)
        self.prints = array("q", prints)
        self.changed = False  # rows were dropped (pruned): save again, so the next run needn't look row by row

    def pack(self) -> tuple[bytes, bytes]:
        return self.ids.tobytes(), self.prints.tobytes()

    @classmethod
    def unpack(cls, value: object) -> "RowPrints":
        """From what `pack` gave (TypeError/ValueError on anything else)."""
        if type(value) is not tuple or len(value) != 2 or not all(type(v) is bytes for v in value):
            raise TypeError("row prints")
        ids, prints = array("q"), array("q")
        ids.frombytes(value[0])
        prints.frombytes(value[1])
        if len(ids) != len(prints):
            raise ValueError("row prints")
        out = cls()
        out.ids, out.prints = ids, prints
        return out

    def check(self, conn: sqlite3.Connection, sample: int | None = None) -> bool:
        """True when every row still there reads as it did (rows that are gone are forgotten);
        False when one changed. `sample`: check at most that many rows, evenly spread."""
        n = len(self.ids)
        if not n:
            return True
        picked = range(n) if sample is None or n <= sample else \
            sorted({*range(0, n, -(-n // sample)), n - 1})
        ids = [self.ids[i] for i in picked] if isinstance(picked, list) else self.ids
        prints = [self.prints[i] for i in picked] if isinstance(picked, list) else self.prints
        wanted = _json(ids)
        count, total = conn.execute(f"SELECT count(*), total({PRINT_SQL}) {_BY_IDS}", (wanted,)).fetchone()
        if count == len(ids) and total == float(sum(prints)):
            return True
        now = dict(conn.execute(f"SELECT id, {PRINT_SQL} {_BY_IDS}", (wanted,)))
        gone = set()
        for rid, printed in zip(ids, prints):
            there = now.get(rid)
            if there is None:
                gone.add(rid)  # pruned: the history keeps what it read
            elif there != printed:
                return False
        if gone:
            keep = [k for k, rid in enumerate(self.ids) if rid not in gone]
            self.ids = array("q", (self.ids[k] for k in keep))
            self.prints = array("q", (self.prints[k] for k in keep))
            self.changed = True
        return True

    def add(self, conn: sqlite3.Connection, ids: Iterable[int]) -> None:
        """Print the rows of `ids` not printed yet (those the history read since)."""
        known = set(self.ids)
        new = sorted({i for i in ids if type(i) is int and i not in known})
        if not new:
            return
        found = dict(conn.execute(f"SELECT id, {PRINT_SQL} {_BY_IDS}", (_json(new),)))
        for rid in new:
            if rid in found:
                self.ids.append(rid)
                self.prints.append(found[rid])


def _json(ids: Iterable[int]) -> str:
    return json.dumps(list(ids), separators=(",", ":"))


def harvested_ids(harvest) -> Iterable[int]:
    """The rows a harvest's calls came from: each write's call and result, each staged and refused
    call's, each open call's."""
    for call in harvest.calls:
        yield call.message_id
        yield call.result_id
    for _, call in harvest.staged:
        yield call.message_id
        yield call.result_id
    for call, _ in harvest.refused:
        yield call.message_id
        yield call.result_id
    for pending in harvest.open:
        yield pending.message_id
