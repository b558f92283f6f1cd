"""One store's entries as the history's replay holds them, indexed so a write costs what it touches.

- the entries in file order: an insertion-ordered dict `seq -> line` (an add appends, an edit keeps
  its place, a removal deletes; positions are never counted, so nothing walks the store);
- `text -> lines` for exact lookups (an add's "already there", 0.22's exact-entry-first match);
- the texts joined once for substring lookups (old_text), rebuilt only when a lookup comes after a
  change: C's `str.find` over one string instead of a Python loop over the entries.

A call is applied as a transaction: every line it touches is noted with its text before, so that a
call the replay can't apply is put back exactly (a removal only marks the line until the call ends:
an ordered dict can't put a key back in the middle), and the call's net changes and its *log* come
from the noted lines alone. The log is what the write did to this structure, `(seq, text)` pairs:
text None deletes, a known seq takes the new text in place, a new seq appends; seq -1 clears (an
observation that reorders). Replaying the logs of one target's writes in order gives the entries
after any write (core.timeline.writes.Writes), so no write keeps a copy of the whole store.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import chain, compress, count, repeat
from operator import add, le, lt, ne, sub
from typing import Iterable, Iterator, Sequence

SEP = "\x00"  # joins the texts for substring lookups; an old_text holding it takes the slow path
CLEAR = -1  # a log's "start again" marker
COLD_SCANS = 32  # adds checked against the cached texts by a scan before a set of them is made
FREEZE_AFTER = 64  # plain adds in a row (and at least as many as there are lines) make the lines columns again


class JoinedTexts:
    """Entries' texts held as one string, `SEP` before, between and after them (none holds SEP): how
    the cache keeps a store's texts. One string loads in a fraction of a millisecond where 50,000
    strings took ~10 (an update of a large history paid that on every run); it is split only
    when a text is asked for, and looking one up or comparing the whole needs no split."""

    __slots__ = ("joined", "_n", "_items")

    def __init__(self, joined: str, n: int) -> None:
        self.joined, self._n, self._items = joined, n, None

    @classmethod
    def of(cls, texts: Sequence[str]) -> "JoinedTexts | None":
        """`texts` joined, or None when they can't be (none, or one holding SEP)."""
        if not texts:
            return None
        joined = SEP.join(("", *texts, ""))  # one string made, not three
        return cls(joined, len(texts)) if joined.count(SEP) == len(texts) + 1 else None

    @classmethod
    def checked(cls, joined: object, n: int) -> "JoinedTexts":
        """The cache's form of n texts, checked (ValueError: not n texts joined)."""
        if type(joined) is not str or n < 1 or joined[:1] != SEP or joined[-1:] != SEP \
                or joined.count(SEP) != n + 1:
            raise ValueError("texts")
        return cls(joined, n)

    def _split(self) -> tuple[str, ...]:
        if self._items is None:
            self._items = tuple(self.joined[1:-1].split(SEP))
        return self._items

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        return self._split()[i]

    def __iter__(self) -> Iterator[str]:
        return iter(self._split())

    def __contains__(self, text: object) -> bool:
        if self._items is not None:
            return text in self._items
        return type(text) is str and SEP not in text and f"{SEP}{text}{SEP}" in self.joined

    def equals(self, texts: Sequence[str]) -> bool:
        """Whether `texts` are these texts, in order (joined and compared: no split)."""
        return len(texts) == self._n and SEP.join(("", *texts, "")) == self.joined

    def extended(self, more: Sequence[str]) -> "JoinedTexts | tuple[str, ...]":
        """These texts and `more` after them."""
        if not more:
            return self
        tail = SEP.join(more) + SEP
        if tail.count(SEP) != len(more):
            return tuple(self) + tuple(more)
        return JoinedTexts(self.joined + tail, self._n + len(more))


# -- a store's columns as the cache keeps them ---------------------------------------------------------

def cache_columns(columns: tuple[Sequence, ...]) -> tuple:
    """A store's columns (State.columns()) as the cache keeps them: the texts joined when they can
    be (JoinedTexts); the firsts as "the origins" and the revisions as "1" except where an entry
    differs, `{"at": indexes, "is": values}` (most entries were made by their last write and are
    at their first revision: two columns of tens of thousands of ints an update no longer loads
    and checks), kept whole when most differ; the origins and seqs as runs of consecutive values,
    `{"runs": (first, length, …)}` (entries added in order, as most are, were made by consecutive
    writes and took consecutive seqs), kept whole when the runs are many."""
    texts, origins, firsts, revisions, seqs = columns
    if type(texts) is not JoinedTexts:
        texts = JoinedTexts.of(texts) or tuple(texts)
    origins = tuple(origins)
    return (texts.joined if type(texts) is JoinedTexts else texts, _runs(origins), _except(firsts, origins),
            _except(revisions, repeat(1)), _runs(tuple(seqs)))


RUN_SHARE = 8  # a column is kept as runs when it has at most one run per this many values


def _runs(column: tuple[int, ...]) -> tuple | dict:
    """`column` as runs of consecutive values, `{"runs": (first, length, …)}`, or whole when it has
    more than one run per RUN_SHARE values (or is too short to gain)."""
    n = len(column)
    if n < RUN_SHARE:
        return column
    if column[-1] - column[0] == n - 1 and column == tuple(range(column[0], column[-1] + 1)):
        return {"runs": (column[0], n)}  # one run (checked in C before the general cut below)
    cuts = tuple(compress(count(1), map(ne, map(sub, column[1:], column), repeat(1))))  # where a run ends
    if (len(cuts) + 1) * RUN_SHARE > n:
        return column
    return {"runs": tuple(chain.from_iterable((column[a], b - a) for a, b in zip((0, *cuts), (*cuts, n))))}


def _except(column: Sequence[int], base: Iterable[int]) -> tuple | dict:
    at = tuple(compress(count(), map(ne, column, base)))  # C's loops: the few indexes that differ
    if 2 * len(at) > len(column):
        return tuple(column)
    return {"at": at, "is": tuple(column[i] for i in at)}


def columns_from_cache(kept: object, writes: int) -> tuple[Sequence, ...]:
    """The columns `cache_columns` kept, checked: texts that are strings, ints in range (origins
    and firsts name one of the `writes` or -1, revisions are at least 1, seqs increase). Raises
    ValueError or TypeError on anything it doesn't write (a cache whose digest checks out but
    doesn't hold together is replayed again, never used). Checked with C's loops: an update of a
    history of 50,000 entries reads them on every run."""
    if type(kept) is not tuple or len(kept) != 5:
        raise ValueError("entries")
    texts, origins, firsts, revisions, seqs = kept
    origins = _unrun(origins, -1, writes, increasing=False)
    seqs = _unrun(seqs, 0, None, increasing=True)
    n = len(origins)
    if len(seqs) != n:
        raise ValueError("entries")
    if type(texts) is str:
        texts = JoinedTexts.checked(texts, n)
    elif type(texts) is not tuple or len(texts) != n or type("".join(texts)) is not str:  # join refuses non-strings
        raise ValueError("entries")
    firsts = _patched(firsts, origins, -1, writes)
    revisions = _patched(revisions, (1,) * n, 1, None)
    return texts, origins, firsts, revisions, seqs


def _unrun(kept: object, low: int, high: int | None, increasing: bool) -> tuple[int, ...]:
    """A column `_runs` kept (whole, or as runs), checked: every value an int in [low, high), each
    greater than the one before if `increasing`."""
    if type(kept) is tuple:
        _within(kept, low, high)
        if increasing and not all(map(lt, kept, kept[1:])):
            raise ValueError("entry")
        return kept
    if type(kept) is not dict or kept.keys() != {"runs"}:
        raise ValueError("entries")
    runs = kept["runs"]
    if type(runs) is not tuple or not runs or len(runs) % 2 or type(sum(runs)) is not int:
        raise ValueError("entries")
    firsts, lengths = runs[0::2], runs[1::2]
    ends = tuple(map(add, firsts, lengths))  # one past each run's last value
    if min(lengths) < 1 or min(firsts) < low or (high is not None and max(ends) > high) \
            or (increasing and not all(map(le, ends, firsts[1:]))):  # a run starts after the last ends
        raise ValueError("entry")
    return tuple(chain.from_iterable(map(range, firsts, ends)))


def _within(ints: tuple, low: int, high: int | None) -> None:
    """Raise ValueError unless every value is an int in [low, high) (a sum of ints is an int: a
    float, None or text isn't)."""
    if ints and (type(sum(ints)) is not int or min(ints) < low or (high is not None and max(ints) >= high)):
        raise ValueError("entry")


def _patched(kept: object, base: tuple, low: int, high: int | None) -> tuple:
    """A column `_except` kept (whole, or `base` but at some indexes), checked."""
    if type(kept) is tuple:
        if len(kept) != len(base):
            raise ValueError("entries")
        _within(kept, low, high)
        return kept
    if type(kept) is not dict or kept.keys() != {"at", "is"}:
        raise ValueError("entries")
    at, values = kept["at"], kept["is"]
    if type(at) is not tuple or type(values) is not tuple or len(at) != len(values):
        raise ValueError("entries")
    if not at:
        return base
    _within(at, 0, len(base))
    if not all(map(lt, at, at[1:])):
        raise ValueError("entries")
    _within(values, low, high)
    out = list(base)
    for i, value in zip(at, values):
        out[i] = value
    return tuple(out)


class Line:
    """One entry through its life (same identity across replaces)."""

    __slots__ = ("text", "origin", "first", "revisions", "seq", "dead")

    def __init__(self, text: str, origin=None, seq: int = 0):
        self.text = text
        self.origin = origin
        self.first = origin
        self.revisions = 1
        self.seq = seq
        self.dead = False


def replay_log(entries: dict, log: Sequence) -> None:
    """Apply one write's log to `entries` (seq -> text, insertion-ordered)."""
    for k in range(0, len(log), 2):
        seq, text = log[k], log[k + 1]
        if seq == CLEAR:
            entries.clear()
        elif text is None:
            entries.pop(seq, None)
        else:
            entries[seq] = text


class State:
    def __init__(self, target: str):
        self.target = target
        self.lines: dict[int, Line] = {}
        self.by_text: dict[str, list[Line]] = {}
        self.next_seq = 0
        self.dead = 0
        self._blob: tuple[str, list[int], list[Line]] | None = None
        self._noted: dict[int, tuple[Line, str | None, int, bool]] = {}  # the open call's lines
        # the entries as columns (texts, origins, firsts, revisions, seqs; -1 for no write), not
        # yet made Lines: those loaded from the cache (tuples; `lines` and `by_text` then hold the
        # lines added since, all after them), or those this run's plain adds added (lists, which
        # hold every entry). Anything but a plain add makes them Lines first. A store that only
        # gets adds (a cold build of tens of thousands of them) makes no Line; an update that only
        # adds makes one per add, none for the cached entries.
        self._cold: tuple[Sequence, ...] | None = ([], [], [], [], [])
        self._cold_texts: set[str] | None = None  # the columns' texts, once enough adds have looked
        self._cold_looks = 0
        self._plain_adds = 0  # add_new calls since the lines were made or last changed otherwise

    def load_columns(self, texts: tuple, origins: tuple, firsts: tuple, revisions: tuple, seqs: tuple) -> None:
        """Hold these entries (the cache's columns, checked by the caller), made Lines only when needed."""
        self.reset([])
        self._cold = (texts, origins, firsts, revisions, seqs)
        self.next_seq = max(self.next_seq, seqs[-1] + 1 if seqs else 0)

    def _thaw(self) -> None:
        """Make the entries held as columns Lines."""
        texts, origins, firsts, revisions, seqs = self._cold
        self._cold = self._cold_texts = None
        added = list(self.lines.values())  # an update's adds after the cache's columns (this run's columns have none)
        lines = []
        for text, origin, first, revs, seq in zip(texts, origins, firsts, revisions, seqs):
            line = Line(text, seq=seq)
            line.origin = origin if origin >= 0 else None
            line.first = first if first >= 0 else None
            line.revisions = revs
            lines.append(line)
        next_seq = self.next_seq
        self.reset(lines + added)
        self.next_seq = max(self.next_seq, next_seq)

    def columns(self) -> tuple[Sequence, ...]:
        """The entries as columns: (texts, origins, firsts, revisions, seqs), -1 for no write; the
        texts a tuple or, as the cache gave them, JoinedTexts (kept joined)."""
        cold = self._cold
        if cold is not None and not self.lines:
            return tuple(col if type(col) is JoinedTexts else tuple(col) for col in cold)  # a tuple as it is: no copy
        lines = list(self.alive()) if cold is None else list(self.lines.values())
        new = (tuple(line.text for line in lines), tuple(-1 if line.origin is None else line.origin for line in lines),
               tuple(-1 if line.first is None else line.first for line in lines),
               tuple(line.revisions for line in lines), tuple(line.seq for line in lines))
        if cold is None:
            return new
        texts = cold[0].extended(new[0]) if type(cold[0]) is JoinedTexts else tuple(cold[0]) + new[0]
        return (texts, *(tuple(old) + more for old, more in zip(cold[1:], new[1:])))

    # -- reading -------------------------------------------------------------------------------
    def alive(self) -> Iterator[Line]:
        if self._cold is not None:
            self._thaw()
        if not self.dead:
            return iter(self.lines.values())
        return (line for line in self.lines.values() if not line.dead)

    @property
    def texts(self) -> tuple[str, ...]:
        if self._cold is not None:  # the lines added since can't be dead: only add_new runs cold
            return tuple(self._cold[0]) + tuple(line.text for line in self.lines.values())
        return tuple(line.text for line in self.alive())

    def holds(self, texts: tuple[str, ...]) -> bool:
        """Whether the entries are exactly `texts`, in order (texts the cache kept joined are
        compared joined, not split)."""
        cold = self._cold
        if cold is None or type(cold[0]) is not JoinedTexts:
            return self.texts == texts
        n = len(cold[0])
        return len(texts) == len(self) and cold[0].equals(texts[:n]) \
            and texts[n:] == tuple(line.text for line in self.lines.values())

    def __len__(self) -> int:
        cold = len(self._cold[0]) if self._cold is not None else 0
        return cold + len(self.lines) - self.dead

    def has(self, text: str) -> bool:
        """Whether an entry holds exactly `text`."""
        if self._cold is not None:
            self._thaw()
        return text in self.by_text

    def first_with(self, text: str) -> Line | None:
        """The first line (in file order) holding exactly `text`."""
        if self._cold is not None:
            self._thaw()
        found = self.by_text.get(text)
        if not found:
            return None
        return found[0] if len(found) == 1 else min(found, key=lambda line: line.seq)

    def find(self, needle: str) -> tuple[Line | None, bool]:
        """The first line containing `needle`, and whether every line containing it has its text
        (False: two different entries match). `needle` must not hold SEP."""
        if self._cold is not None:
            self._thaw()
        if self._blob is None:
            lines = list(self.alive())
            texts = [line.text for line in lines]
            starts, at = [], 0
            for text in texts:
                starts.append(at)
                at += len(text) + 1
            self._blob = (SEP.join(texts), starts, lines)
        blob, starts, lines = self._blob
        pos = blob.find(needle)
        if pos < 0:
            return None, False
        i = bisect_right(starts, pos) - 1
        first = lines[i]
        last = len(starts) - 1
        pos = blob.find(needle, starts[i + 1]) if i < last else -1
        while pos >= 0:
            j = bisect_right(starts, pos) - 1
            if lines[j].text != first.text:
                return first, False
            pos = blob.find(needle, starts[j + 1]) if j < last else -1
        return first, True

    # -- one call's changes --------------------------------------------------------------------
    def _note(self, line: Line, existed: bool = True) -> None:  # every change notes first: thawed here
        if self._cold is not None:
            self._thaw()
        self._plain_adds = 0
        if id(line) not in self._noted:
            self._noted[id(line)] = (line, line.text if existed else None, line.revisions, existed)

    def _index(self, line: Line) -> None:
        self.by_text.setdefault(line.text, []).append(line)

    def _unindex(self, line: Line) -> None:
        found = self.by_text[line.text]
        found.remove(line)
        if not found:
            del self.by_text[line.text]

    def append(self, text: str) -> Line:
        if self._cold is not None:
            self._thaw()
        line = Line(text, seq=self.next_seq)
        self.next_seq += 1
        self.lines[line.seq] = line
        self._index(line)
        self._note(line, existed=False)
        self._blob = None
        return line

    def add_new(self, text: str, origin: int | None = None) -> int | None:
        """An add on its own, outside a call's transaction (nothing to note: it can't fail): the new
        entry's seq (from write `origin`), or None when `text` is already an entry. While the
        entries are columns it is added to them, no Line made."""
        by_text = self.by_text
        if text in by_text:
            return None
        if self._cold is None:
            self._plain_adds += 1
            # the run of adds (each made a line) outnumbers the lines there were before it
            if self._plain_adds > FREEZE_AFTER and 2 * self._plain_adds > len(self.lines):
                self._freeze()
        columns = self._cold
        if columns is not None:
            cold = self._cold_texts
            if cold is None:  # a few adds scan the texts (C's loop); more make a set of them once
                self._cold_looks += 1
                if self._cold_looks > COLD_SCANS:
                    cold = self._cold_texts = set(columns[0])
                else:
                    cold = columns[0]
            if text in cold:
                return None
            # columns of this run's adds (lists) take more; the cache's (tuples, tens of thousands
            # of entries that an update's few adds shouldn't copy) get lines after them
            if type(columns[0]) is list and not self.lines:
                texts, origins, firsts, revisions, seqs = columns
                seq = self.next_seq
                self.next_seq = seq + 1
                mark = -1 if origin is None else origin
                texts.append(text)
                origins.append(mark)
                firsts.append(mark)
                revisions.append(1)
                seqs.append(seq)
                if self._cold_texts is not None:
                    self._cold_texts.add(text)
                self._blob = None
                return seq
        seq = self.next_seq
        line = Line(text, origin, seq)
        self.next_seq = seq + 1
        self.lines[seq] = line
        by_text[text] = [line]
        self._blob = None
        return seq

    def _freeze(self) -> None:
        """Hold the lines as columns again (a long run of plain adds after other writes: they add
        to the columns from here on). Only between calls, with no line dead; the run of adds it
        takes is at least as long as the store, so that writes alternating with such runs cost
        the adds' length, not the store's, each."""
        if self._noted or self.dead:
            return
        lines = list(self.lines.values())
        self._cold = ([line.text for line in lines], [-1 if line.origin is None else line.origin for line in lines],
                      [-1 if line.first is None else line.first for line in lines],
                      [line.revisions for line in lines], [line.seq for line in lines])
        self._cold_texts = set(self._cold[0])
        self.lines, self.by_text, self._blob, self._plain_adds = {}, {}, None, 0

    def set_text(self, line: Line, text: str) -> None:
        self._note(line)
        self._unindex(line)
        line.text = text
        self._index(line)
        self._blob = None

    def kill(self, line: Line) -> None:
        """Remove a line (marked until the call ends, then deleted)."""
        self._note(line)
        self._unindex(line)
        line.dead = True
        self.dead += 1
        self._blob = None

    def undo(self) -> None:
        """Put back everything the open call changed."""
        for line, text, revisions, existed in self._noted.values():
            if not existed:
                if not line.dead:
                    self._unindex(line)
                    line.dead = True
                    self.dead += 1
                continue
            if line.dead:
                line.dead = False
                self.dead -= 1
            else:
                self._unindex(line)
            line.text, line.revisions = text, revisions
            self._index(line)
        self._blob = None
        self._close()

    def commit(self, dedupe: bool = True) -> tuple[list[tuple], tuple]:
        """End the open call: (its net changes, by identity so a batch's chain counts once; its
        log). `dedupe` drops a later line a replace made equal to another (the next load would)."""
        noted = self._noted
        if dedupe:
            for line, *_ in list(noted.values()):
                if line.dead:
                    continue
                same = self.by_text.get(line.text, ())
                if len(same) > 1:
                    keep = min(same, key=lambda other: other.seq)
                    for other in list(same):
                        if other is not keep:
                            self.kill(other)
        changes: list[tuple] = []
        fresh: list[tuple] = []
        log: list = []
        for line, text, _, existed in sorted(noted.values(), key=lambda n: n[0].seq):
            if existed:
                if line.dead:
                    changes.append((text, None))
                    log += (line.seq, None)
                elif line.text != text:
                    changes.append((text, line.text))
                    log += (line.seq, line.text)
            elif not line.dead:
                fresh.append((None, line.text))
                log += (line.seq, line.text)
        self._close()
        return changes + fresh, tuple(log)

    def _close(self) -> None:
        if self.dead:
            for line, *_ in self._noted.values():
                if line.dead:
                    self.lines.pop(line.seq, None)
            self.dead = 0
        self._noted = {}

    # -- a whole new text (an observation, an hmc write) ------------------------------------------
    def morph(self, new_texts: Sequence[str], revive: dict[str, tuple] | None = None
              ) -> tuple[list[Line], list[tuple], tuple]:
        """Move to `new_texts` keeping the identity of unchanged entries (and of the one entry
        edited, when exactly one went and one came): (lines touched, changes, log). `revive`
        gives entries coming back (an undo of a removal) their old life: text -> (origin, first,
        revisions); such a line is added (a change) but not touched (it keeps its writer)."""
        if self._cold is not None:
            self._thaw()
        pool: dict[str, Line] = {}
        for line in self.alive():
            pool.setdefault(line.text, line)
        used: set[int] = set()
        texts = list(dict.fromkeys(new_texts))
        out: list[Line | None] = []
        for text in texts:
            line = pool.get(text)
            if line is not None and id(line) not in used:
                used.add(id(line))
                out.append(line)
            else:
                out.append(None)
        gone = [line for line in self.alive() if id(line) not in used]
        revived: list[Line] = []
        for i, line in enumerate(out):
            life = revive.get(texts[i]) if revive and line is None else None
            if life is not None:
                line = out[i] = Line(texts[i], seq=-1)
                line.origin, line.first, line.revisions = life
                revived.append(line)
        fresh = [i for i, line in enumerate(out) if line is None]
        touched: list[Line] = []
        changes: list[tuple] = []
        revised: Line | None = None
        if len(gone) == 1 and len(fresh) == 1:  # one entry edited: the same entry, revised
            revised = gone[0]
            changes.append((revised.text, texts[fresh[0]]))
            revised.text = texts[fresh[0]]
            revised.revisions += 1
            out[fresh[0]] = revised
            touched.append(revised)
            gone = []
            changes.extend((None, line.text) for line in revived)
        else:
            for line in gone:
                changes.append((line.text, None))
            changes.extend((None, line.text) for line in revived)
            for i in fresh:
                line = Line(texts[i], seq=-1)
                out[i] = line
                touched.append(line)
                changes.append((None, texts[i]))
        kept = [line for line in out if line is not None and line.seq >= 0]
        in_place = all(a.seq < b.seq for a, b in zip(kept, kept[1:])) and all(
            line.seq >= 0 for line in out[:len(kept)])  # type: ignore[union-attr]
        log: list = []
        if in_place:
            for line in gone:
                log += (line.seq, None)
            if revised is not None:
                log += (revised.seq, revised.text)
            for line in out[len(kept):]:
                line.seq = self.next_seq  # type: ignore[union-attr]
                self.next_seq += 1
                log += (line.seq, line.text)  # type: ignore[union-attr]
        else:
            log += (CLEAR, None)
            for line in out:
                line.seq = self.next_seq  # type: ignore[union-attr]
                self.next_seq += 1
                log += (line.seq, line.text)  # type: ignore[union-attr]
        self.reset(out)  # type: ignore[arg-type]
        return touched, changes, tuple(log)

    def reset(self, lines: list[Line]) -> None:
        """Hold exactly `lines`, in that order (their seqs increasing)."""
        self._cold = self._cold_texts = None
        self.lines = {line.seq: line for line in lines}
        self.by_text = {}
        for line in lines:
            self._index(line)
        self.next_seq = max(self.next_seq, max((line.seq for line in lines), default=-1) + 1)
        self.dead = 0
        self._noted = {}
        self._blob = None
        self._plain_adds = 0
