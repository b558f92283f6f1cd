"""The rebuilt history's writes, oldest first, held as rows rather than objects (history.py
appends them as it replays; the cache keeps them as encoded chunks of columns)."""

from __future__ import annotations

import hashlib
import marshal
from itertools import compress, repeat
from operator import is_, itemgetter
from typing import Iterator

from core.hmc_cache import FileSpan
from core.store.memory import TARGETS
from core.timeline.model import ROW, TimelineError, Write
from core.timeline.state import replay_log

CHANGES, LOG = 11, 14  # the changes' and the log's fields in Write.row's order


class Writes:
    """The history's writes, oldest first, held as columns (one per field, Write.row's order):
    those loaded from the cache as tuples (columns load faster than rows), those this run added as
    lists (saved as they are: a chunk holds each field's values as a list). A Write object is made only when one is asked for (a log, a blame's origin, a
    rollback), so an update that appends a few writes, or a blame that needs a few origins, doesn't
    build thousands of objects; entries and lines name their writes by index. The cached columns
    stay in the cache's encoded chunks until a write is read (an update that only appends never
    decodes them, and saves them as they were, the new writes as one more chunk); each chunk
    carries the SHA-256 of its bytes, checked when (and only when) it is decoded, so that an update
    neither re-reads nor re-hashes the writes it doesn't touch. Iterating,
    indexing and len() work like a list's. A write's entries before and after it are replayed from
    the writes' logs when asked for (`entries`), so the history holds each change once, not a copy
    of the store per write."""

    MAX_CHUNKS = 16  # more and a save joins them into one

    # A write whose changes are one added entry, the text its log adds (a plain add: most writes),
    # holds None as its changes, made into ((None, text),) when read: tens of thousands of tuples
    # less to make, encode and free in a cold build.

    def __init__(self) -> None:
        self._cols: list[tuple] | None = [()] * ROW  # the cached writes, one tuple per field; None: not decoded
        self._chunks: list[tuple] = []  # the cached writes as the cache holds them: (count, digest, bytes, a view or a FileSpan)
        self._n = 0  # how many writes came from the cache
        self._new: list[list] = [[] for _ in range(ROW)]  # the writes added since, a list per field
        self._made: dict[int, Write] = {}
        self._position: dict[int, int] = {}  # id(Write) -> its index
        self._memo: tuple[str, int, dict] | None = None  # (target, next index, entries): sequential asks
        self._credit: dict[int, dict[int, object]] = {}  # index -> {field: value}: attribution (never cached)

    def load_chunks(self, chunks: list) -> None:
        """Take the cache's writes: (count, SHA-256 hex of the bytes, marshalled columns) chunks,
        checked and decoded when first read."""
        if type(chunks) is not list or any(type(c) is not tuple or len(c) != 3 or type(c[0]) is not int or c[0] < 0
                                           or type(c[1]) is not str or type(c[2]) not in (bytes, memoryview, FileSpan)
                                           for c in chunks):
            raise ValueError("writes")
        self._chunks, self._n, self._cols = chunks, sum(c[0] for c in chunks), None

    def verify(self) -> None:
        """Every cached chunk's bytes checked against its digest now, none decoded: a damaged
        cache (a flipped byte, an in-place overwrite while this run held the file) raises
        DamagedCache here, while the history can still be rebuilt, not later when a write is read."""
        for k, (count, digest, blob) in enumerate(self._chunks):
            if type(blob) is FileSpan:
                blob = blob.read()
                self._chunks[k] = (count, digest, blob)
            if hashlib.sha256(blob).hexdigest() != digest:
                raise DamagedCache("the history's cache is damaged (its writes don't match their digest)")

    def _columns(self) -> list[tuple]:
        """The cached writes' columns, decoded (once) and checked: as many columns as fields, all
        as long as the chunk says, targets, authors and logs. A chunk whose bytes aren't those its
        digest names (a damaged cache) is never decoded: DamagedCache; one that doesn't hold
        together is hmc's bug, named as such."""
        if self._cols is None:
            cols: list[tuple] | None = None
            for k, (count, digest, blob) in enumerate(self._chunks):
                if type(blob) is FileSpan:  # still in the cache file: read now, and kept (a save writes it again)
                    blob = blob.read()
                    self._chunks[k] = (count, digest, blob)
                if hashlib.sha256(blob).hexdigest() != digest:
                    from core.timeline.cache import cache_root

                    raise DamagedCache(f"the history's cache is damaged (its writes don't match their digest); "
                                       f"delete {cache_root()} and run again")
                try:
                    part = marshal.loads(blob)
                    _check_columns(part, count)
                    part = [tuple(col) for col in part]
                except (ValueError, TypeError, EOFError) as exc:
                    from core.timeline.cache import cache_root

                    raise TimelineError(f"the history's cache holds writes that don't read back ({exc}); "
                                        f"delete {cache_root()} and run again") from None
                cols = part if cols is None else [a + b for a, b in zip(cols, part)]
            self._cols = cols if cols is not None else [()] * ROW
        return self._cols

    def chunks(self) -> list[tuple[int, str, bytes]]:
        """The cache's form of every write: the cached chunks as they were, the new writes as one
        more (all joined in one when there would be more than MAX_CHUNKS)."""
        chunks = list(self._chunks)
        if self._new[0]:
            chunks.append(_chunk(len(self._new[0]), self._new))
        if len(chunks) > self.MAX_CHUNKS:
            chunks = [_chunk(len(self), self.columns())]
        return chunks

    def seal(self, chunks: list[tuple[int, str, bytes]]) -> None:
        """Hold every write as `chunks` (what `chunks()` just gave, as the cache saved them) and
        drop the rows: the writes stay encoded until one is read, so a build leaves no tens of
        thousands of tuples for the garbage collector to walk (its first pass after a cold build
        of 50,000 adds took longer than encoding them)."""
        if sum(chunk[0] for chunk in chunks) != len(self):
            raise ValueError("chunks")
        if self._cols is not None and self._new[0] and self._n:
            self._cols = [col + tuple(new) for col, new in zip(self._cols, self._new)]
        elif self._new[0]:
            self._cols = None
        self._chunks, self._n, self._new = list(chunks), len(self), [[] for _ in range(ROW)]

    def __len__(self) -> int:
        return self._n + len(self._new[0])

    def credit(self, i: int, **values) -> None:
        """Name write `i`'s real writer from evidence found after the replay (core.timeline.attribution):
        `by`, `source`, `session_id`, `message_id`, `detail`. Read back by `field` and the Write;
        the cache keeps what the replay found, and the evidence is read again on each build."""
        names = Write.__dataclass_fields__
        fields = {list(names).index(name): value for name, value in values.items()}
        self._credit.setdefault(i, {}).update(fields)
        self._made.pop(i, None)

    def field(self, i: int, k: int):
        """Field `k` (Write.row's order) of write `i`, without making the Write (as credited)."""
        credit = self._credit.get(i)
        if credit is not None and k in credit:
            return credit[k]
        n = self._n
        cols = self._columns() if i < n else self._new
        j = i if i < n else i - n
        value = cols[k][j]
        return _added(cols[LOG][j]) if k == CHANGES and value is None else value

    def _get(self, i: int) -> Write:
        w = self._made.get(i)
        if w is None:
            n = self._n
            row = [c[i] for c in self._columns()] if i < n else [c[i - n] for c in self._new]
            if row[CHANGES] is None:
                row[CHANGES] = _added(row[LOG])
            seen = None
            for k, value in self._credit.get(i, {}).items():
                if k == 1 and value != row[1]:
                    seen = row[1]
                row[k] = value
            w = Write(*row, history=self, seen=seen)
            self._made[i] = w
            self._position[id(w)] = i
        return w

    def __getitem__(self, i: int) -> Write:
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self._get(i)

    def __iter__(self) -> Iterator[Write]:
        for i in range(len(self)):
            yield self._get(i)

    def __bool__(self) -> bool:
        return len(self) > 0

    def add(self, row: tuple) -> int:
        """Append a write given as its row (Write.row's order); its index."""
        for col, value in zip(self._new, row):
            col.append(value)
        return self._n + len(self._new[0]) - 1

    def appenders(self) -> tuple[tuple, int]:
        """(each field's append, in Write.row's order; the index the next write gets): for a loop
        adding tens of thousands, which appends a value to each (kept as columns, the new writes
        are saved without being turned from rows into columns, and their values are referred to
        once, which marshal encodes cheaper). Valid until the writes are sealed."""
        return tuple(col.append for col in self._new), len(self)

    def append(self, w: Write) -> None:
        i = self.add(w.row())
        w.history = self
        self._made[i] = w
        self._position[id(w)] = i

    def position(self, w: Write) -> int:
        return self._position[id(w)]

    def columns(self) -> list[tuple]:
        """Every write as columns, one tuple per field (cached columns, new writes added)."""
        cols = self._columns()
        if not self._new[0]:
            return list(cols)
        return [col + tuple(new) for col, new in zip(cols, self._new)]

    def scan(self) -> Iterator[tuple[int, float, str, str]]:
        """(index, timestamp, target, id) of each write, without building Write objects."""
        i = 0
        cols = self._columns()  # the replay's times (in order), not the ones evidence credits
        for ts, target, wid in zip(cols[1], cols[4], cols[0]):
            yield i, ts, target, wid
            i += 1
        for ts, target, wid in zip(self._new[1], self._new[4], self._new[0]):
            yield i, ts, target, wid
            i += 1

    def _log(self, i: int) -> tuple[str, tuple]:
        if i < self._n:
            cols = self._columns()
            return cols[4][i], cols[LOG][i]
        j = i - self._n
        return self._new[4][j], self._new[LOG][j]

    def entries_until(self, target: str, end: int) -> tuple[str, ...]:
        """`target`'s entries after the writes before index `end` (its logs replayed in order)."""
        memo = self._memo
        if memo is not None and memo[0] == target and memo[1] <= end:
            _, start, state = memo
        else:
            start, state = 0, {}
        for i in range(start, end):
            t, log = self._log(i)
            if t == target:
                replay_log(state, log)
        self._memo = (target, end, state)
        return tuple(state.values())

    def entries(self, w: Write, after: bool = True) -> tuple[str, ...]:
        i = self.position(w)
        return self.entries_until(w.target, i + 1 if after else i)

    def index_of(self, write_id: str) -> int | None:
        for i, _, _, wid in self.scan():
            if wid == write_id:
                return i
        return None


class DamagedCache(TimelineError):
    """A cached chunk of writes whose bytes aren't those its digest names: never decoded (a build
    that meets one replays from the start; a history read later names it)."""


def _chunk(count: int, cols: list) -> tuple[int, str, bytes]:
    """A chunk of writes: each field's values as a list (what the writes added in a run hold)."""
    blob = marshal.dumps([col if type(col) is list else list(col) for col in cols], 4)
    return count, hashlib.sha256(blob).hexdigest(), blob


def _added(log: tuple) -> tuple:
    """The changes of a write that holds None as its changes: the entry its log adds."""
    return ((None, log[1]),)


def _check_columns(cols, n: int) -> None:
    """Raise ValueError unless `cols` are n writes' columns as Writes.chunks wrote them (checked
    with C's loops): a write whose changes are None has a log that adds one text."""
    if type(cols) is not list or len(cols) != ROW or any(type(c) is not list or len(c) != n for c in cols):
        raise ValueError("writes")
    logs = cols[LOG]
    if not set(cols[4]) <= set(TARGETS) or not set(cols[2]) <= {"agent", "hmc", "unknown"} \
            or not set(map(type, logs)) <= {tuple} or any(k % 2 for k in set(map(len, logs))) \
            or not set(map(type, cols[CHANGES])) <= {tuple, type(None)}:
        raise ValueError("write")
    added = tuple(compress(logs, map(is_, cols[CHANGES], repeat(None))))
    if added and (set(map(len, added)) != {2} or set(map(type, map(itemgetter(1), added))) != {str}):
        raise ValueError("write")
