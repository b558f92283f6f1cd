"""The history's cheap paths (issue 19) give what the full replay gives: an update keeps the cached
entries as columns until a write needs them as lines, blames resolve their writes when read, and a
cache in the previous format is rebuilt, never misread."""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import random

import pytest

from core.hmc_cache import FileSpan
from core.sessions.memory_calls import Harvest, harvest_rows
from core.timeline import cache as tl_cache
from core.timeline import history, state
from core.timeline.model import TimelineError
from core.timeline.writes import Writes
from tests.core.test_timeline import add, cache_body, make_home, timeline, write_cache, write_files


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


def _shape(tl):
    writes = [(w.id, w.by, w.action, w.changes, w.note, w.before, w.after) for w in tl.log()]
    blame = [(b.target, b.index, b.text, b.origin.id if b.origin else None,
              b.first_seen.id if b.first_seen else None, b.revisions) for b in tl.blame()]
    return writes, blame, [(d.target, d.write_id, d.detail) for d in tl.divergences]


def _cached_home(tmp_path, n=6):
    home, db = make_home(tmp_path)
    db.session("s")
    for i in range(n):
        db.call("s", add(f"fact {i}"))
    write_files(home, [f"fact {i}" for i in range(n)])
    _, first = timeline(home)
    assert first.stats["cache"] == "rebuilt"
    return home, db


@pytest.mark.parametrize("scans", [0, 32], ids=["set", "scan"])  # how an add looks among the cached texts
@pytest.mark.parametrize("then", ["adds", "re-add", "replace", "remove", "batch", "hand edit"])
def test_an_update_over_cached_entries_equals_a_full_replay(tmp_path, monkeypatch, then, scans):
    monkeypatch.setattr(history, "SAVE_AFTER_EVENTS", 0)  # every update saves: the next one loads it again
    monkeypatch.setattr(state, "COLD_SCANS", scans)
    home, db = _cached_home(tmp_path)
    entries = [f"fact {i}" for i in range(6)]
    if then == "adds":
        db.call("s", add("fact 6"))
        entries.append("fact 6")
    elif then == "re-add":  # exactly a cached entry: nothing changes (checked without making lines)
        db.call("s", add("  fact 2 "))
    elif then == "replace":
        db.call("s", {"action": "replace", "target": "memory", "old_text": "fact 3", "content": "fact three"})
        entries[3] = "fact three"
    elif then == "remove":
        db.call("s", {"action": "remove", "target": "memory", "old_text": "fact 0"})
        entries.pop(0)
    elif then == "batch":
        db.call("s", {"target": "memory", "operations": [{"action": "add", "content": "fact 7"},
                                                          {"action": "remove", "old_text": "fact 5"}]})
        entries = entries[:5] + ["fact 7"]
    else:  # the file changed by hand: an outside write, found by comparing with the cached columns
        entries[1] = "fact one, by hand"
    write_files(home, entries)
    _, updated = timeline(home)
    assert updated.stats["cache"] == "hit" and updated.stats["replayed"] == "new"
    _, again = timeline(home)  # the update's own save, loaded
    _, full = timeline(home, cache=False)
    assert _shape(updated) == _shape(full) == _shape(again)
    assert [b.text for b in updated.blame("memory")] == entries


def test_an_update_that_only_adds_makes_no_lines_for_the_cached_entries(tmp_path):
    home, db = _cached_home(tmp_path)
    db.call("s", add("fact 6"))
    write_files(home, [f"fact {i}" for i in range(7)])
    made = []
    real = state.Line.__init__

    def counting(self, *args, **kwargs):
        made.append(args[0])
        real(self, *args, **kwargs)

    state.Line.__init__ = counting
    try:
        _, tl = timeline(home)
    finally:
        state.Line.__init__ = real
    assert tl.stats["replayed"] == "new"
    assert made == ["fact 6"]
    blame = tl.blame("memory")
    assert [b.revisions for b in blame] == [1] * 7
    assert [b.origin.id for b in blame] == [w.id for w in tl.log()]


def test_a_blame_resolves_to_the_logs_own_writes(tmp_path):
    home, _ = _cached_home(tmp_path, n=3)
    _, tl = timeline(home)
    blame = tl.blame("memory")
    assert all(b.origin is tl.write(b.origin.id) and b.first_seen is b.origin for b in blame)
    assert blame[-1].text == "fact 2" and blame[-1] == tl.blame("memory")[-1]
    with pytest.raises(AttributeError):
        blame[0].text = "changed"


@pytest.mark.parametrize("layout", ["version 7", "version 7's layout", "version 8", "version 9", "version 10",
                                    "version 11", "version 12", "version 13", "version 14", "version 15"])
def test_a_cache_in_the_previous_format_is_rebuilt(tmp_path, layout):
    """Version 7 kept the writes' chunks inside the main data (one digest over all): its writes
    would not be found where version 8 looks for them. Version 8's chunks held each field's values
    as a tuple, version 9's as a list. Version 9 kept a store's texts as a tuple, version 10 joined.
    Version 10 kept a store's origins and seqs whole, version 11 as runs; version 11 had no staged calls
    and its divergences named no outside write; version 14 kept no refused calls; version 15 no
    prints of the rows it came from."""
    home, db = _cached_home(tmp_path)
    _, fresh = timeline(home, cache=False)
    path = tl_cache.cache_path(db.path)
    data = cache_body(path)
    if layout == "version 7":  # the new layout, the old version: refused by its version
        data["version"] = "7" + data["version"][2:]
        write_cache(path, data)
    elif layout in ("version 9", "version 10"):  # its entries as it wrote them: the texts a tuple (9), the
        data["version"] = layout[8:] + data["version"][2:]  # origins and seqs whole (9 and 10)
        for target, cols in data["replay"]["states"].items():
            whole = state.columns_from_cache(cols, 1 << 30)
            texts = tuple(whole[0]) if layout == "version 9" else cols[0]
            data["replay"]["states"][target] = (texts, whole[1], cols[2], cols[3], whole[4])
        write_cache(path, data)
    elif layout in ("version 12", "version 13"):  # this layout: a note may be a claim's tag (12), an
        data["version"] = layout[8:] + data["version"][2:]  # approval of the review's record hmc's own (13)
        write_cache(path, data)
    elif layout == "version 14":  # no refused calls
        data["version"] = "14" + data["version"][2:]
        del data["refused"], data["rows"]
        write_cache(path, data)
    elif layout == "version 15":  # no rows' prints
        data["version"] = "15" + data["version"][2:]
        del data["rows"]
        write_cache(path, data)
    elif layout == "version 11":  # no staged calls, divergences as (target, write, detail)
        data["version"] = "11" + data["version"][2:]
        del data["staged"], data["refused"], data["rows"]
        data["replay"]["divergences"] = [d[:3] for d in data["replay"]["divergences"]]
        del data["replay"]["gone"]
        write_cache(path, data)
    elif layout == "version 8":  # its chunks as version 8 wrote them, each with its digest
        data["version"] = "8" + data["version"][2:]
        chunks = []
        for count, _, blob in data["replay"]["writes"]:
            old = marshal.dumps([tuple(col) for col in marshal.loads(blob)], 4)
            chunks.append((count, hashlib.sha256(old).hexdigest(), old))
        data["replay"]["writes"] = chunks
        write_cache(path, data)
    else:  # the old layout itself: a digest line without a length, the chunks inside the data
        data["version"] = "7" + data["version"][2:]
        data["replay"]["writes"] = [(count, blob) for count, _, blob in data["replay"]["writes"]]
        body = marshal.dumps(data, 4)
        path.write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    _, tl = timeline(home)
    assert tl.stats["cache"] == "rebuilt" and tl.stats["replayed"] == "all"
    assert _shape(tl) == _shape(fresh)
    assert tl_cache.VERSION == 16 and cache_body(path)["version"].startswith("16/")


@pytest.mark.parametrize("args, content", [
    ({"action": "add", "content": "", "new_text": "from new_text"}, "from new_text"),
    ({"action": "add", "content": "", "new_text": None}, None),
    ({"action": "add", "new_text": ""}, ""),
    ({"action": "add", "content": "kept", "new_text": "ignored"}, "kept"),
    ({"action": "add", "content": 5}, "skipped"),
    ({"action": "add", "content": None, "new_text": 5}, "skipped"),
    ({"action": "add", "content": "x", "old_text": 5}, "skipped"),
])
def test_content_falls_back_to_new_text_as_before(args, content):
    tool_calls = json.dumps([{"id": "c1", "type": "function", "function": {"name": "memory",
                                                                          "arguments": json.dumps(args)}}])
    rows = [(1, "s", None, tool_calls, None, None, 5.0),
            (2, "s", "c1", None, "memory", json.dumps({"success": True}), 5.0)]
    harvest = Harvest()
    harvest_rows(rows, harvest)
    assert harvest.last_id == 2
    if content == "skipped":
        assert harvest.calls == [] and harvest.skipped == {"malformed arguments": 1}
    else:
        assert [c.content for c in harvest.calls] == [content]


def test_an_update_saves_the_cached_writes_as_they_were_and_the_new_ones_as_a_chunk(tmp_path, monkeypatch):
    monkeypatch.setattr(history, "SAVE_AFTER_EVENTS", 0)
    monkeypatch.setattr(history.Writes, "MAX_CHUNKS", 3)
    home, db = _cached_home(tmp_path)
    path = tl_cache.cache_path(db.path)
    before = cache_body(path)["replay"]["writes"]
    assert [c[0] for c in before] == [6]
    entries = [f"fact {i}" for i in range(6)]
    for i in range(6, 10):
        db.call("s", add(f"fact {i}"))
        entries.append(f"fact {i}")
        write_files(home, entries)
        _, tl = timeline(home)
        assert tl.stats["replayed"] == "new"
        chunks = cache_body(path)["replay"]["writes"]
        assert [c[0] for c in chunks] == {6: [6, 1], 7: [6, 1, 1], 8: [9], 9: [9, 1]}[i]  # 8: over MAX_CHUNKS, joined
        if i != 8:  # one more chunk per save, the older ones byte for byte
            assert chunks[:-1] == before
        before = chunks
    _, full = timeline(home, cache=False)
    _, cached = timeline(home)
    assert _shape(cached) == _shape(full) and len(cached.log()) == 10


def test_cached_writes_that_dont_read_back_are_named_not_misread(tmp_path):
    home, db = _cached_home(tmp_path)
    path = tl_cache.cache_path(db.path)
    data = cache_body(path)
    data["replay"]["writes"] = [(6, hashlib.sha256(b"not marshal").hexdigest(), b"not marshal")]
    write_cache(path, data)  # the digest matches: only a bug of hmc's could write this
    _, tl = timeline(home)
    assert tl.stats["replayed"] == "new"
    with pytest.raises(history.TimelineError, match="don't read back.*run again"):
        tl.log()


def _damage_a_chunk(path) -> None:
    """Flip a byte of the writes' chunk (after the main data, whose digest still checks out)."""
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF
    path.write_bytes(bytes(data))


def test_a_damaged_chunk_of_writes_is_named_never_decoded(tmp_path, monkeypatch):
    """The update doesn't hash the cached writes (it doesn't read them): a damaged chunk is found
    when a write is read, and named; its bytes are never unmarshalled."""
    home, db = _cached_home(tmp_path)
    path = tl_cache.cache_path(db.path)
    _damage_a_chunk(path)
    _, tl = timeline(home)
    assert tl.stats["cache"] == "hit" and tl.stats["replayed"] == "new"
    loads = []
    real = marshal.loads
    monkeypatch.setattr(marshal, "loads", lambda b, *a: loads.append(bytes(b)) or real(b, *a))
    with pytest.raises(history.TimelineError, match="damaged.*run again"):
        tl.log()
    assert loads == []


def test_an_update_neither_hashes_nor_copies_the_cached_writes(tmp_path, monkeypatch):
    """Only a decoded chunk is hashed (against its own digest); an update that appends reads the
    main data's digest alone, and holds the chunks as spans of the file, not read."""
    import types

    from core.timeline import writes as writes_module

    home, db = _cached_home(tmp_path)
    hashed = []
    monkeypatch.setattr(writes_module, "hashlib", types.SimpleNamespace(
        sha256=lambda b: hashed.append(len(b)) or hashlib.sha256(b)))
    db.call("s", add("fact 6"))
    write_files(home, [f"fact {i}" for i in range(7)])
    _, tl = timeline(home)
    assert tl.stats["cache"] == "hit" and tl.stats["replayed"] == "new" and hashed == []
    assert [type(c[2]) for c in tl.writes._chunks] == [FileSpan]
    assert [w.content for w in tl.log()][-2:] == ["fact 5", "fact 6"] and len(hashed) == 1  # decoded: checked


def _updated(tmp_path):
    """A cached home given one more add, and its timeline (an update: the cached writes unread)."""
    home, db = _cached_home(tmp_path)
    db.call("s", add("fact 6"))
    write_files(home, [f"fact {i}" for i in range(7)])
    _, tl = timeline(home)
    assert tl.stats["cache"] == "hit" and tl.stats["replayed"] == "new"
    return home, db, tl, tl_cache.cache_path(db.path)


def test_an_update_reads_the_main_data_and_not_the_cached_writes(tmp_path, monkeypatch):
    from core import hmc_cache

    home, db = _cached_home(tmp_path)
    db.call("s", add("fact 6"))
    write_files(home, [f"fact {i}" for i in range(7)])
    path = tl_cache.cache_path(db.path)
    size, read = path.stat().st_size, []
    real = hmc_cache.OpenFile.read
    monkeypatch.setattr(hmc_cache.OpenFile, "read", lambda self, at, n: read.append((at, n)) or real(self, at, n))
    _, tl = timeline(home)
    assert tl.stats["replayed"] == "new"
    (count, _, span), = tl.writes._chunks
    assert sum(n for at, n in read if at < span.offset) < size - len(span) + hmc_cache.HEAD_BYTES
    assert not any(at >= span.offset for at, _ in read)  # the chunk: not read
    assert len(tl.log()) == 7 and read[-1] == (span.offset, len(span))  # read when a write is


def test_writes_read_after_another_run_replaced_the_cache_are_the_ones_it_named(tmp_path, monkeypatch):
    """hmc replaces a cache by renaming a new file over it: a timeline holding the old one open
    still reads its own writes, not the new file's bytes at the same place."""
    home, db, tl, path = _updated(tmp_path)
    db.call("s", {"action": "remove", "target": "memory", "old_text": "fact 0"})
    write_files(home, [f"fact {i}" for i in range(1, 7)])
    inode = path.stat().st_ino
    _, cold = timeline(home, cache=False)
    monkeypatch.setattr(history, "SAVE_AFTER_EVENTS", 0)  # an update that saves: a new file renamed over the old
    assert history.build_timeline(cold.curator).stats["saved"]
    assert path.stat().st_ino != inode
    assert [w.content for w in tl.log()] == [f"fact {i}" for i in range(7)]


def test_a_cache_cut_short_under_a_timeline_is_named_when_a_write_is_read(tmp_path):
    home, db, tl, path = _updated(tmp_path)
    os.truncate(path, path.stat().st_size - 10)  # the chunk's end gone from the file the timeline holds open
    with pytest.raises(history.TimelineError, match="damaged.*run again"):
        tl.log()


def test_the_cache_file_is_closed_once_its_writes_are_read_or_the_timeline_dropped(tmp_path):
    home, db, tl, path = _updated(tmp_path)
    fd = tl.writes._chunks[0][2].opened.fd
    os.fstat(fd)  # held open while the chunk is unread
    tl.log()
    with pytest.raises(OSError):
        os.fstat(fd)  # read: the bytes are kept, the file closed
    _, again = timeline(home)
    fd = again.writes._chunks[0][2].opened.fd
    del again
    with pytest.raises(OSError):
        os.fstat(fd)


def test_a_build_that_meets_a_damaged_chunk_replays_from_the_start(tmp_path, monkeypatch):
    """A build that must read a cached write (here made to) and finds its chunk damaged doesn't
    decode it: it reads state.db again and replays from the start, and saves a sound cache."""
    home, db = _cached_home(tmp_path)
    _, fresh = timeline(home, cache=False)
    path = tl_cache.cache_path(db.path)
    _damage_a_chunk(path)
    real = history.finish

    def finish(builder, *a, **k):
        builder.writes.field(0, 0)  # reads a cached write
        return real(builder, *a, **k)

    monkeypatch.setattr(history, "finish", finish)
    _, tl = timeline(home)
    assert tl.stats["cache"] == "rebuilt" and tl.stats["replayed"] == "all"
    assert _shape(tl) == _shape(fresh)
    monkeypatch.setattr(history, "finish", real)
    _, again = timeline(home)
    assert again.stats["cache"] == "hit" and _shape(again) == _shape(fresh)


@pytest.mark.parametrize("stamp", [1.5, -1e11, 1e11, 1e11 + 1, -1e11 - 1, float("inf"), float("-inf"), float("nan"),
                                   0, 7, True, "12.5", " 2026-10-20T10:00:00Z ", "garbage", None, b"1"])
def test_a_results_time_is_read_as_as_epoch_reads_it(stamp):
    """A REAL time is taken as it is on the fast path; every other value goes through as_epoch."""
    from core.sessions.db import as_epoch

    tool_calls = json.dumps([{"id": "c1", "type": "function", "function": {
        "name": "memory", "arguments": json.dumps(add("x"))}}])
    rows = [(1, "s", None, tool_calls, None, None, 5.0),
            (2, "s", "c1", None, "memory", json.dumps({"success": True}), stamp)]
    harvest = Harvest()
    harvest_rows(rows, harvest)
    got, want = harvest.calls[0].timestamp, as_epoch(stamp)
    assert got == want or (got is want is None)


def test_a_cold_build_holds_its_writes_encoded_as_saved(tmp_path):
    """A build that saved the cache keeps the writes as the chunks it saved, not as columns (no
    tuples left for the garbage collector to walk); reading them decodes the same writes."""
    home, db = make_home(tmp_path)
    db.session("s")
    for i in range(5):
        db.call("s", add(f"fact {i}"))
    db.call("s", {"action": "replace", "target": "memory", "old_text": "fact 1", "content": "fact one"})
    write_files(home, ["fact 0", "fact one", "fact 2", "fact 3", "fact 4"])
    _, tl = timeline(home)
    assert tl.stats["saved"] and not any(tl.writes._new) and tl.writes._cols is None
    _, plain = timeline(home, cache=False)
    assert all(len(col) == 6 for col in plain.writes._new)  # nothing saved: nothing sealed
    assert _shape(tl) == _shape(plain)


def test_sealing_keeps_every_write_and_its_fields():
    rows = [(f"m{i}", float(i), "agent", "cli", "memory", "add", "s", i, None, f"t{i}", None, ((None, f"t{i}"),),
             None, None, (i, f"t{i}")) for i in range(6)]
    writes = Writes()
    for row in rows[:4]:
        writes.add(row)
    writes.seal(writes.chunks())
    assert len(writes) == 4 and not any(writes._new) and writes.field(2, 9) == "t2"  # decoded here
    for row in rows[4:]:
        writes.add(row)
    writes.seal(writes.chunks())  # decoded columns and new rows: joined
    assert [writes.field(i, k) for i in range(6) for k in range(15)] == [v for row in rows for v in row]
    assert writes.entries_until("memory", 6) == tuple(f"t{i}" for i in range(6))
    with pytest.raises(ValueError):
        writes.seal([(5,) + writes.chunks()[0][1:]])


def test_a_plain_adds_changes_are_kept_as_none_and_read_as_the_entry_its_log_adds():
    row = ["m1", 1.0, "agent", "cli", "memory", "add", "s", 1, None, "t", None, None, None, None, (0, "t")]
    writes = Writes()
    writes.add(tuple(row))
    writes.add(tuple(row[:11]) + ((), None, None, ()))  # an exact re-add: no change, kept as it is
    assert writes.field(0, 11) == ((None, "t"),) and writes[0].changes == ((None, "t"),) and writes[1].changes == ()
    writes.seal(writes.chunks())
    assert writes.field(0, 11) == ((None, "t"),) and writes[0].changes == ((None, "t"),)  # decoded from the chunk
    for log in [(), (0, None), (0, "t", 1, "u"), (0, 5)]:  # None with a log that doesn't add one text
        bad = Writes()
        bad.add(tuple(row[:14]) + (log,))
        bad.seal(bad.chunks())
        with pytest.raises(TimelineError, match="don't read back"):
            bad.field(0, 11)


JOINED = state.SEP + state.SEP.join(f"fact {i}" for i in range(6)) + state.SEP


@pytest.mark.parametrize("column, value", [(0, None), (0, 3), (1, 1.5), (1, "2"), (2, None), (3, 0), (4, 2.0),
                                           (1, 99), (4, -1), ("joined", JOINED[1:]), ("joined", JOINED[:-1]),
                                           ("joined", JOINED.replace("fact 3", "fact\x003")),
                                           ("joined", JOINED.replace("\x00fact 5", "")), ("joined", JOINED.encode()),
                                           ("joined", state.SEP), ("joined", ""), ("joined", ("fact 0",) * 5),
                                           ("firsts", {"at": (6,), "is": (0,)}), ("firsts", {"at": (2, 1), "is": (0, 0)}),
                                           ("firsts", {"at": (1,), "is": (6,)}), ("firsts", {"at": (1,), "is": ()}),
                                           ("firsts", {"at": (1,), "is": (1.0,)}), ("firsts", {"at": (1,)}),
                                           ("firsts", [(), ()]), ("firsts", {"at": (1,), "was": (0,)}), ("firsts", (0,) * 7), ("revisions", {"at": (0,), "is": (0,)}),
                                           ("revisions", {"at": (-1,), "is": (2,)}), ("revisions", {"at": [0], "is": [2]}),
                                           ("origins", {"runs": (0, 6, 0, 0)}), ("origins", {"runs": (0, 5)}),
                                           ("origins", {"runs": (-2, 6)}), ("origins", {"runs": (0.0, 6)}),
                                           ("origins", {"runs": [0, 6]}), ("origins", {"runs": ()}),
                                           ("origins", {"runs": (0, 6, 1)}), ("origins", {"run": (0, 6)}),
                                           ("origins", {"runs": (0, 3, 10**9, 3)}), ("origins", {"runs": (0, -6)}),
                                           ("seqs", {"runs": (0, 3, 2, 3)}), ("seqs", {"runs": (-1, 6)}),
                                           ("seqs", {"runs": (0, 6), "x": 1}), ("seqs", {"runs": (0, "6")})],
                         ids=lambda v: repr(v))
def test_cached_entries_that_dont_hold_together_are_replayed_again(tmp_path, column, value):
    """Entry columns of the wrong type or range (in a cache whose digest checks out) are never
    used: the replay starts over from state.db. The texts, kept joined, must be as many as the
    other columns' entries, each between two separators."""
    home, db = _cached_home(tmp_path)
    _, fresh = timeline(home, cache=False)
    path = tl_cache.cache_path(db.path)
    data = cache_body(path)
    cols = list(data["replay"]["states"]["memory"])
    assert cols[0] == JOINED  # kept joined
    if column == "joined":
        cols[0] = value
    elif column in ("firsts", "revisions", "origins", "seqs"):
        cols[{"origins": 1, "firsts": 2, "revisions": 3, "seqs": 4}[column]] = value
    else:  # the whole columns, also read
        cols = [tuple(col) for col in state.columns_from_cache(tuple(cols), 6)]
        cols[column] = (value,) + cols[column][1:]
    data["replay"]["states"]["memory"] = tuple(cols)
    write_cache(path, data)
    _, tl = timeline(home)
    assert tl.stats["replayed"] == "all"
    assert _shape(tl) == _shape(fresh)


def test_joined_texts_look_up_compare_and_grow_without_splitting():
    joined = state.JoinedTexts.of(("ab", "a", "b c"))
    assert len(joined) == 3 and joined.joined == "\x00ab\x00a\x00b c\x00"
    assert "a" in joined and "b c" in joined and "b" not in joined and "ab\x00a" not in joined and 3 not in joined
    assert joined.equals(("ab", "a", "b c")) and not joined.equals(("ab", "a\x00b c")) and not joined.equals(("ab", "a"))
    grown = joined.extended(("d",))
    assert type(grown) is state.JoinedTexts and grown.equals(("ab", "a", "b c", "d"))
    assert joined._items is None and grown._items is None  # nothing above split them
    assert joined.extended(("d\x00e",)) == ("ab", "a", "b c", "d\x00e")  # can't be joined: a tuple
    assert list(joined) == ["ab", "a", "b c"] and joined[1] == "a" and joined[-1] == "b c"
    assert state.JoinedTexts.of(()) is None and state.JoinedTexts.of(("a", "b\x00")) is None
    assert state.cache_columns((("a", "b\x00"), (0, 1), (0, 1), (1, 1), (0, 1)))[0] == ("a", "b\x00")
    assert state.cache_columns(((), (), (), (), ()))[0] == ()


def test_texts_holding_the_separator_are_cached_as_a_tuple_and_update_the_same(tmp_path):
    home, db = make_home(tmp_path)
    db.session("s")
    facts = ["fact 0", "fact\x001", "fact 2"]
    for fact in facts:
        db.call("s", add(fact))
    write_files(home, facts)
    timeline(home)
    path = tl_cache.cache_path(db.path)
    assert cache_body(path)["replay"]["states"]["memory"][0] == tuple(facts)
    db.call("s", add("fact 3"))
    write_files(home, facts + ["fact 3"])
    _, updated = timeline(home)
    _, full = timeline(home, cache=False)
    assert updated.stats["replayed"] == "new" and _shape(updated) == _shape(full)


def test_an_update_that_only_adds_never_splits_the_cached_texts(tmp_path, monkeypatch):
    home, db = _cached_home(tmp_path)
    db.call("s", add("fact 6"))
    write_files(home, [f"fact {i}" for i in range(7)])
    splits = []
    real = state.JoinedTexts._split
    monkeypatch.setattr(state.JoinedTexts, "_split", lambda self: splits.append(1) or real(self))
    _, tl = timeline(home)
    assert tl.stats["replayed"] == "new" and not tl.divergences and splits == []
    assert [b.text for b in tl.blame("memory")] == [f"fact {i}" for i in range(7)] and splits  # split when read


def test_firsts_and_revisions_are_cached_where_they_differ_and_read_back_whole():
    columns = (("a", "b", "c", "d"), (0, 5, 2, 3), (0, 1, 2, 3), (1, 3, 1, 1), (0, 1, 4, 9))
    kept = state.cache_columns(columns)
    assert kept[2] == {"at": (1,), "is": (1,)} and kept[3] == {"at": (1,), "is": (3,)}
    back = state.columns_from_cache(kept, 6)
    assert back[1:] == columns[1:] and tuple(back[0]) == columns[0]
    plain = state.cache_columns((("a", "b"), (0, 1), (0, 1), (1, 1), (0, 1)))
    assert plain[2] == plain[3] == {"at": (), "is": ()}
    assert state.columns_from_cache(plain, 2)[2] is plain[1]  # the origins themselves: nothing copied
    mostly = state.cache_columns((("a", "b", "c"), (0, 1, 2), (2, 2, 2), (2, 2, 1), (0, 1, 2)))
    assert mostly[2] == (2, 2, 2) and mostly[3] == (2, 2, 1)  # most differ: kept whole
    assert state.columns_from_cache(mostly, 3)[2:4] == ((2, 2, 2), (2, 2, 1))
    with pytest.raises(ValueError):
        state.columns_from_cache(mostly, 2)  # a first beyond the writes


def test_origins_and_seqs_are_cached_as_runs_and_read_back_whole():
    n = 40
    one = state.cache_columns((tuple(f"t{i}" for i in range(n)), tuple(range(5, 5 + n)), tuple(range(5, 5 + n)),
                               (1,) * n, tuple(range(n))))
    assert one[1] == {"runs": (5, n)} and one[4] == {"runs": (0, n)}
    assert state.columns_from_cache(one, 5 + n)[1] == tuple(range(5, 5 + n))
    with pytest.raises(ValueError):
        state.columns_from_cache(one, 4 + n)  # the last origin names a write there isn't
    # a removal and a hand edit (-1) cut the runs; a reorder makes seqs that aren't one run
    origins = (*range(0, 20), -1, *range(30, 49))
    seqs = (*range(0, 20), 25, *range(40, 59))
    two = state.cache_columns((tuple(f"t{i}" for i in range(n)), origins, origins, (1,) * n, seqs))
    assert two[1] == {"runs": (0, 20, -1, 1, 30, 19)} and two[4] == {"runs": (0, 20, 25, 1, 40, 19)}
    back = state.columns_from_cache(two, 49)
    assert back[1] == origins and back[4] == seqs and back[2] == origins
    scattered = tuple(range(0, 2 * n, 2))  # a run per value: kept whole
    whole = state.cache_columns((tuple(f"t{i}" for i in range(n)), scattered, scattered, (1,) * n, scattered))
    assert whole[1] == scattered and whole[4] == scattered
    assert state.columns_from_cache(whole, 2 * n)[4] == scattered


def test_runs_round_trip_on_random_columns():
    """Seeded: columns of random runs and scatter, every shape read back as it was."""
    for k in range(200):
        seed = 20261203 + k
        rng = random.Random(seed)
        origins, seqs, at = [], [], 0
        while len(origins) < rng.choice([0, 1, 7, 8, 9, 60]):
            length = rng.choice([1, 1, 2, 5, 30])
            start = rng.choice([-1, rng.randrange(0, 200)])
            origins += [-1] * length if start == -1 else range(start, start + length)
            at += rng.choice([0, 1, 1, 3])
            seqs += range(at, at + length)
            at += length
        n = len(origins)
        texts = tuple(f"t{i}" for i in range(n))
        kept = state.cache_columns((texts, tuple(origins), tuple(origins), (1,) * n, tuple(seqs)))
        back = state.columns_from_cache(kept, 300)
        assert back[1] == tuple(origins) and back[4] == tuple(seqs) and tuple(back[0]) == texts, f"seed {seed}"
