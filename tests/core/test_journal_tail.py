"""The journal's next id never costs a read of the whole journal: it comes from the id this History
appended last, from the parsed journal caught up, or from a scan back to the last complete record
line, however large that line is. A damaged tail (a torn line, garbage, foreign JSON) still gives
the id the full parse gives. Reads are counted by wrapping the journal's reader, never timed."""

from __future__ import annotations

import json
import os
import random

import pytest

import core.store.journal as journal
from core.store.journal import History, parse_journal

BASE_SEED = int(os.environ.get("HMC_SEED", "20261202"))


@pytest.fixture
def reads(monkeypatch):
    """Bytes read from journals (every read path: the block reader and the whole-file readers)."""
    count = {"bytes": 0}
    block, whole, fd_read = journal._read_range, journal._read_all, journal.read_fd

    def counted(fn):
        def wrapper(*args, **kwargs):
            data = fn(*args, **kwargs)
            count["bytes"] += len(data)
            return data
        return wrapper

    monkeypatch.setattr(journal, "_read_range", counted(block))
    monkeypatch.setattr(journal, "_read_all", counted(whole))
    monkeypatch.setattr(journal, "read_fd", counted(fd_read))
    return count


def _history(tmp_path) -> History:
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True, exist_ok=True)
    return History(home)


def test_the_write_after_a_record_larger_than_the_tail_reads_that_record_not_the_journal(tmp_path, reads):
    h = _history(tmp_path)
    path = tmp_path / "home" / "memories" / "MEMORY.md"
    for i in range(40):  # ~4 MB of earlier records
        h.record("memory", path, "", f"{i} " + "x" * 100_000, "add", "d")
    big = "y" * 1_000_000
    last = h.record("memory", path, "", big, "add", "a 1 MB record")
    size = h.path.stat().st_size
    assert size > 5_000_000
    fresh = History(tmp_path / "home")  # another process: nothing remembered
    reads["bytes"] = 0
    rec = fresh.record("memory", path, big, "z", "edit", "next")
    assert rec.id == last.id + 1
    assert reads["bytes"] < 1_200_000 < size / 4, reads  # the 1 MB line (and a block), not 5 MB
    reads["bytes"] = 0
    again = fresh.record("memory", path, "z", "w", "edit", "and the next")
    assert again.id == rec.id + 1 and reads["bytes"] == 0  # its own append: nothing to read
    assert [r.id for r in fresh.records()][-3:] == [last.id, rec.id, again.id]


def test_a_write_with_commit_and_abort_marks_reads_no_whole_journal(tmp_path, reads):
    h = _history(tmp_path)
    path = tmp_path / "home" / "memories" / "MEMORY.md"
    for i in range(30):
        h.record("memory", path, "", "x" * 100_000 + str(i), "add", "d")
    fresh = History(tmp_path / "home")
    reads["bytes"] = 0
    with fresh.writing("memory", path, "a", "b", "edit", "two steps") as rec:
        pass
    journal_size = fresh.path.stat().st_size
    before = reads["bytes"]
    with fresh.writing("memory", path, "b", "c", "edit", "two steps again") as rec2:
        pass
    assert rec2.id == rec.id + 1
    assert reads["bytes"] - before < 10_000 < journal_size  # the parsed journal caught up, no re-read


def test_another_process_appending_in_between_is_seen(tmp_path):
    path = tmp_path / "home" / "memories" / "MEMORY.md"
    one, two = _history(tmp_path), History(tmp_path / "home")
    a = one.record("memory", path, "", "a", "add", "d")
    b = two.record("memory", path, "a", "a2", "edit", "d")
    c = one.record("memory", path, "a2", "a3", "edit", "d")  # its remembered size is stale: read again
    assert (a.id, b.id, c.id) == (1, 2, 3)


def _write_raw(h: History, data: bytes) -> None:
    h.folder.mkdir(parents=True, exist_ok=True)
    h.path.write_bytes(data)


def _rec(rid: int, size: int = 10, state: str | None = None) -> bytes:
    obj = {"id": rid, "ts": 1.0, "target": "memory", "path": "/x", "action": "add", "detail": "d",
           "before": "", "after": "a" * size, "undoes": None, "tag": None}
    if state:
        obj["state"] = state
    return json.dumps(obj).encode() + b"\n"


@pytest.mark.parametrize("tail", [
    b'{"id": 99, "ts": 1.0, "target": "mem',  # torn: a write killed mid-line
    b"garbage\x00\xff\n{not json}\n[1, 2]\n",
    b'{"commit": 7}\n{"abort": 8}\n',
    b'{"id": 50, "ts": "no fields"}\n',  # foreign JSON with an id: not a record
    b'{"commit": 3}',  # a last line without its newline
    _rec(9)[:-1],  # a whole record whose newline didn't land: the next id is after it
])
def test_a_damaged_tail_still_gives_the_next_id_the_full_parse_gives(tmp_path, tail):
    h = _history(tmp_path)
    data = b"".join(_rec(i, 70_000 if i == 8 else 10) for i in range(1, 9)) + tail
    _write_raw(h, data)
    want = parse_journal(data).last_id + 1
    rec = h.record("memory", tmp_path / "home" / "memories" / "MEMORY.md", "", "next", "add", "d")
    assert rec.id == want
    assert h.records()[-1].id == want


def test_the_scan_back_agrees_with_the_full_parse_on_random_journals(tmp_path):
    for n in range(200):
        seed = BASE_SEED + n
        rng = random.Random(seed)
        parts, rid = [], 0
        for _ in range(rng.randint(0, 12)):
            kind = rng.random()
            if kind < 0.5:
                rid += rng.choice((1, 1, 1, 0)) or (1 if not rid else 0)  # now and then an id twice
                parts.append(_rec(rid, rng.choice((1, 100, 70_000, 140_000)), rng.choice((None, "prepared"))))
            elif kind < 0.7 and rid:
                parts.append(json.dumps({rng.choice(("commit", "abort")): rng.randint(1, rid)}).encode() + b"\n")
            elif kind < 0.85:
                parts.append(rng.choice((b"junk\n", b"\n", b"{}\n", b'{"id": true}\n', b"\xff\xfe\n")))
            else:
                parts.append(b"x" * rng.randint(1, 100_000) + b"\n")
        data = b"".join(parts)
        if rng.random() < 0.3:
            data += _rec(rid + 5)[:rng.randint(1, 40)]  # torn at the end
        path = tmp_path / f"j{n}"
        path.write_bytes(data)
        fd = os.open(path, os.O_RDONLY)
        try:
            got = journal._scan_last_id(fd, len(data))
        finally:
            os.close(fd)
        assert got == parse_journal(data).last_id, f"seed {seed}"
        parser = journal._Parser()  # the records in doubt, kept as lines come, equal the full derivation
        for start in range(0, len(data), 50_000):
            parser.feed(data[:start + 50_000][parser.offset:])
        assert [r for _, r in sorted(parser.open.items())] == list(parser.result().in_doubt), f"seed {seed}"
