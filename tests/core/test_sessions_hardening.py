"""state.db hardening: stale immutable reads, odd stored values, hit totals, every profile at once."""

from __future__ import annotations

import os
import sqlite3
from datetime import date, datetime

import pytest

from core.sessions.db import as_epoch
from core.sessions.profiles import search_profiles
from core.sessions.search import COUNT_CAP, SessionDB
from tests.core.sessions_fixtures import build_db


def _insert(path, n: int, text: str = "freshly written note", at: float = 1_792_100_000.0) -> None:
    """A Hermes-like writer that comes and goes: WAL mode, n rows, a clean close (sidecars removed)."""
    conn = sqlite3.connect(path)
    sid = conn.execute("SELECT id FROM sessions ORDER BY id LIMIT 1").fetchone()[0]
    conn.executemany("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)",
                     [(sid, f"{text} {i}", at + i) for i in range(n)])
    conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')")  # as Hermes's triggers would
    conn.commit()
    conn.close()


# -- a writer between two queries of an immutable reader ------------------------------------------


def test_a_writer_that_comes_and_goes_between_queries_is_seen(tmp_path):
    path = build_db(tmp_path / "h" / "state.db", wal=True)
    db = SessionDB(path)
    before = db.summary()["messages"]
    assert db._conns.immutable  # WAL without sidecars: read immutably, creating nothing
    _insert(path, 100)
    assert sorted(os.listdir(path.parent)) == ["state.db"]  # the writer left no trace but the file
    assert db.summary()["messages"] == before + 100
    assert db._conns.immutable  # still side-effect free
    assert sorted(os.listdir(path.parent)) == ["state.db"]
    assert len(db.search("freshly", limit=500).hits) == 100


def test_an_unchanged_file_keeps_its_connection(tmp_path):
    path = build_db(tmp_path / "h" / "state.db", wal=True)
    db = SessionDB(path)
    db.summary()
    conn = db._conns.get()
    db.search("deploy")
    assert db._conns.get() is conn  # no reopening when nothing changed


def test_a_replaced_file_is_seen(tmp_path):
    path = build_db(tmp_path / "h" / "state.db", wal=True)
    db = SessionDB(path)
    assert not db.search("zebracorn").hits
    other = build_db(tmp_path / "o" / "state.db", wal=True)
    _insert(other, 1, "zebracorn")
    os.replace(other, path)  # a new inode (a restore, a sync tool)
    assert db.search("zebracorn").hits


# -- text and other odd timestamps ------------------------------------------------------------------


@pytest.mark.parametrize("value, expected", [
    (1_792_000_000, 1_792_000_000.0),
    (1_792_000_000.5, 1_792_000_000.5),
    ("1792000000.5", 1_792_000_000.5),
    ("2026-10-20T10:00:00+00:00", datetime.fromisoformat("2026-10-20T10:00:00+00:00").timestamp()),
    ("2026-10-20T10:00:00Z", datetime.fromisoformat("2026-10-20T10:00:00+00:00").timestamp()),
    (b"1792000000", 1_792_000_000.0),
    ("garbage", None), ("", None), (None, None), (True, None), (float("nan"), None), (float("inf"), None),
    ("1e400", None), ("9" * 100, None), ([1], None),
])
def test_as_epoch(value, expected):
    assert as_epoch(value) == expected


@pytest.fixture
def odd_times(tmp_path):
    path = build_db(tmp_path / "h" / "state.db", wal=False)
    ids = sorted(h.message_id for h in SessionDB(path).search("deploy", limit=100).hits)
    assert len(ids) >= 3
    conn = sqlite3.connect(path)
    conn.execute("UPDATE messages SET timestamp = '2026-10-20T10:00:00' WHERE id = ?", (ids[0],))
    conn.execute("UPDATE messages SET timestamp = 'garbage' WHERE id = ?", (ids[1],))
    conn.execute("UPDATE messages SET timestamp = '1700000000' WHERE id = ?", (ids[2],))  # 2023: old
    conn.execute("UPDATE sessions SET started_at = '2026-10-14 08:00:00', message_count = 'many'")
    conn.commit()
    conn.close()
    return path, ids


def test_text_timestamps_filter_as_times(odd_times):
    path, ids = odd_times
    db = SessionDB(path)
    every = {h.message_id for h in db.search("deploy", limit=100).hits}
    assert set(ids[:3]) <= every  # listed without a filter, whatever their timestamp holds
    recent = {h.message_id for h in db.search("deploy", since=date(2026, 1, 1), limit=100).hits}
    assert ids[0] in recent  # an ISO text time compares as a time
    assert ids[1] not in recent  # not a time: not "since" anything
    assert ids[2] not in recent  # a numeric text of 2023
    old = {h.message_id for h in db.search("deploy", until=date(2024, 1, 1), limit=100).hits}
    assert old == {ids[2]}
    hit = next(h for h in db.search("deploy", limit=100).hits if h.message_id == ids[0])
    assert hit.timestamp == datetime.fromisoformat("2026-10-20T10:00:00").timestamp()


def test_text_session_times_and_counts_read_safely(odd_times):
    path, _ = odd_times
    db = SessionDB(path)
    info = db.sessions()[0]
    assert info.started_at == datetime.fromisoformat("2026-10-14 08:00:00").timestamp()
    assert info.message_count is None  # 'many' is not a count
    assert db.session(info.id).to_json()["started_at"].startswith("2026-10-14")


def test_deeply_nested_json_content_reads_as_text(tmp_path):
    deep = "[{" + "[" * 5_000 + "]" * 5_000 + "}]"  # deeper than Python's recursion limit
    path = build_db(tmp_path / "h" / "state.db", wal=False)
    conn = sqlite3.connect(path)
    mid = conn.execute("SELECT MIN(id) FROM messages").fetchone()[0]
    conn.execute("UPDATE messages SET content = ?, tool_calls = ? WHERE id = ?", (deep, "[" * 50_000, mid))
    conn.commit()
    conn.close()
    m = SessionDB(path).message(mid)
    assert m.text == deep and m.tool_call_names() == []


# -- totals ---------------------------------------------------------------------------------------


def test_total_counts_every_hit_not_just_the_page(tmp_path):
    path = build_db(tmp_path / "h" / "state.db", wal=False)
    db = SessionDB(path)
    every = db.search("deploy", limit=500).hits
    assert len(every) > 2
    page = db.search("deploy", limit=2, count=True)
    assert len(page.hits) == 2 and page.total == len(every) and not page.total_capped
    assert db.search("deploy", limit=2).total is None  # only when asked
    later = db.search("deploy", limit=2, offset=1, sort="newest", count=True)
    assert later.total == len(every)
    assert db.search("zebracorn", count=True).total == 0


def test_total_is_capped(tmp_path, monkeypatch):
    import core.sessions.search as S

    monkeypatch.setattr(S, "COUNT_CAP", 3)
    path = build_db(tmp_path / "h" / "state.db", wal=False)
    page = SessionDB(path).search("deploy", limit=1, count=True)
    assert page.total == 3 and page.total_capped
    assert COUNT_CAP >= 1000


# -- every profile --------------------------------------------------------------------------------


def test_search_profiles_marks_each_hit_and_skips_what_it_cant_read(tmp_path):
    a = build_db(tmp_path / "a" / "state.db", wal=False)
    b = build_db(tmp_path / "b" / "state.db", wal=False)
    _insert(b, 3, "only in work")
    bad = tmp_path / "c" / "state.db"
    bad.parent.mkdir()
    bad.write_bytes(b"not a database" * 20)
    dbs = {"default": a, "work": b, "empty": tmp_path / "none" / "state.db", "broken": bad}
    res = search_profiles(dbs, "deploy", limit=4)
    assert [h.profile for h in res.hits] == ["default", "work", "default", "work"]  # best of each in turn
    assert res.searched == ("default", "work") and res.missing == ("empty",)
    assert res.problems[0][0] == "broken" and "damaged" in res.problems[0][1]
    n = len(SessionDB(a).search("deploy", limit=500).hits)
    assert res.total == 2 * n and res.has_more
    assert res.hits[0].to_json()["profile"] == "default"
    only = search_profiles(dbs, "only in work", limit=10)
    assert {h.profile for h in only.hits} == {"work"} and only.total == 3


def test_search_profiles_pages_and_time_order(tmp_path):
    a = build_db(tmp_path / "a" / "state.db", wal=False)
    b = build_db(tmp_path / "b" / "state.db", wal=False)
    _insert(b, 5, "deploy later", at=1_800_000_000.0)
    dbs = {"default": a, "work": b}
    whole = search_profiles(dbs, "deploy", sort="newest", limit=500).hits
    for name, db in dbs.items():  # each profile's hits keep their database's order
        own = [h.message_id for h in SessionDB(db).search("deploy", sort="newest", limit=500).hits]
        assert [h.message_id for h in whole if h.profile == name] == own
    assert whole[0].profile == "work" and whole[0].timestamp == max(h.timestamp for h in whole)
    pages = [h for off in range(0, len(whole), 3)
             for h in search_profiles(dbs, "deploy", sort="newest", limit=3, offset=off).hits]
    assert [(h.profile, h.message_id) for h in pages] == [(h.profile, h.message_id) for h in whole]
