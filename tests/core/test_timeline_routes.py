"""A first read picks its route by what the database holds: the index's answer when memory rows are
a few of the messages, a plain scan when they are most of them (issue 19: a database of memory
calls and little else read each row by id). Either route reads the same writes."""

from __future__ import annotations

import sqlite3

import pytest

from core.sessions import memory_calls
from core.sessions.memory_calls import Harvest, read_calls
from core.sessions.db import probe
from tests.core.test_timeline import T0, add, make_home, timeline, write_files


@pytest.fixture(autouse=True)
def small_windows(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setattr(memory_calls, "DENSE_WINDOW", 2)  # 16 messages are enough to be sampled


def wal(db) -> None:
    """The journal mode Hermes uses: the rows are then paired as SQLite reads them."""
    con = sqlite3.connect(db.path)
    assert con.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    con.close()


def _shape(tl):
    return [(w.id, w.action, w.changes, w.source) for w in tl.log()], [(b.text, b.origin.id) for b in tl.blame()]


@pytest.mark.parametrize("journal", ["delete", "wal"])
@pytest.mark.parametrize("layout", ["inline", "current"])
def test_a_database_of_memory_calls_is_scanned_and_reads_the_same(tmp_path, layout, journal):
    home, db = make_home(tmp_path, layout)
    if journal == "wal":
        wal(db)
    db.session("s", "telegram")
    for i in range(12):
        db.call("s", add(f"fact {i}"), tool_name=None if i == 5 else "memory")  # one result without its tool's name
    db.call("s", {"action": "replace", "target": "memory", "old_text": "fact 3", "content": "fact three"})
    entries = [f"fact {i}" if i != 3 else "fact three" for i in range(12)]
    write_files(home, entries)
    _, tl = timeline(home)
    assert tl.stats["route"] == "scan"
    _, by_index = timeline(home, cache=False, route="fts-columns" if layout == "current" else "fts")
    assert by_index.stats["route"] != "scan"
    assert _shape(tl) == _shape(by_index)
    assert [b.text for b in tl.blame()] == entries and tl.divergences == []


def test_a_database_of_mostly_other_messages_keeps_the_index(tmp_path):
    home, db = make_home(tmp_path)
    db.session("s")
    for i in range(4):
        db.call("s", add(f"fact {i}"))
        db.chat("s", 10)  # "memory" in their text, not in a tool's columns
    write_files(home, [f"fact {i}" for i in range(4)])
    _, tl = timeline(home)
    assert tl.stats["route"] == "fts-columns" and [w.content for w in tl.log()] == [f"fact {i}" for i in range(4)]


def test_a_small_database_keeps_the_index(tmp_path, monkeypatch):
    monkeypatch.setattr(memory_calls, "DENSE_WINDOW", 512)
    home, db = make_home(tmp_path)
    db.session("s")
    for i in range(12):
        db.call("s", add(f"fact {i}"))
    write_files(home, [f"fact {i}" for i in range(12)])
    _, tl = timeline(home)
    assert tl.stats["route"] == "fts-columns"


def test_an_index_that_cant_count_is_not_asked_again_and_the_table_is_scanned(tmp_path):
    home, db = make_home(tmp_path)
    db.session("s")
    for i in range(12):
        db.call("s", add(f"fact {i}"))
    con = sqlite3.connect(db.path)
    con.execute("DROP TRIGGER messages_fts_insert")
    con.execute("DROP TABLE messages_fts")
    con.execute("CREATE TABLE messages_fts(rowid INTEGER, content, tool_name, tool_calls)")  # not an index at all
    con.commit()
    con.close()
    conn = sqlite3.connect(f"file:{db.path}?mode=ro", uri=True)
    harvest = Harvest()
    schema = probe(conn, db.path)
    route = memory_calls.route_for(schema)
    if route == "scan":
        pytest.skip("the probe already refuses this index")
    assert read_calls(conn, schema, harvest) == "scan"
    assert [c.content for c in harvest.calls] == [f"fact {i}" for i in range(12)]
    conn.close()


def test_a_route_asked_for_is_taken_as_it_is(tmp_path):
    home, db = make_home(tmp_path)
    db.session("s")
    for i in range(12):
        db.call("s", add(f"fact {i}"))
    conn = sqlite3.connect(f"file:{db.path}?mode=ro", uri=True)
    harvest = Harvest()
    assert read_calls(conn, probe(conn, db.path), harvest, "fts-columns") == "fts-columns"
    assert len(harvest.calls) == 12
    conn.close()


class _IndexFailsMidway:
    """A connection whose index query fails after a few rows (a damaged index found mid-read)."""

    def __init__(self, conn: sqlite3.Connection, after: int):
        self.conn, self.after, self.failed = conn, after, 0

    @property
    def in_transaction(self) -> bool:
        return self.conn.in_transaction

    def rollback(self) -> None:
        self.conn.rollback()

    def execute(self, sql: str, params=()):
        cursor = self.conn.execute(sql, params)
        if "MATCH" not in sql or not sql.startswith("SELECT id, session_id"):
            return cursor  # the sampling counts, the schema, the position
        outer = self

        class Rows:
            def __iter__(self):
                for i, row in enumerate(cursor):
                    if i == outer.after:
                        outer.failed += 1
                        raise sqlite3.OperationalError("database disk image is malformed")
                    yield row

            def fetchall(self):
                return list(self)

        return Rows()


@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_an_index_failing_midway_is_read_again_by_a_scan_with_nothing_counted_twice(tmp_path, journal):
    home, db = make_home(tmp_path)
    if journal == "wal":
        wal(db)
    db.session("s")
    db.call("s", "{not json")  # skipped and counted before the index fails
    db.call("s", add("fact 0"), result={"success": False, "error": "full"})  # ignored and counted
    for i in range(1, 8):
        db.call("s", add(f"fact {i}"))
    conn = sqlite3.connect(f"file:{db.path}?mode=ro", uri=True)
    schema = probe(conn, db.path)
    plain = Harvest()
    assert read_calls(conn, schema, plain, "scan") == "scan"
    proxy = _IndexFailsMidway(conn, after=8)
    harvest = Harvest()
    assert read_calls(proxy, schema, harvest, "fts-columns") == "scan" and proxy.failed == 1
    assert harvest.calls == plain.calls and [c.content for c in harvest.calls] == [f"fact {i}" for i in range(1, 8)]
    assert harvest.skipped == plain.skipped == {"malformed arguments": 1}
    assert harvest.ignored == plain.ignored == {"failed": 1}
    assert harvest.last_id == plain.last_id and harvest.open == plain.open == []
    conn.close()


@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_a_scan_that_meets_text_it_cant_read_gives_way_to_the_index(tmp_path, journal):
    """The scan reads rows the index's answer leaves out (a result without its tool's name); one
    holding text that isn't UTF-8 fails the scan, and the build reads as it did before the choice."""
    home, db = make_home(tmp_path)
    if journal == "wal":
        wal(db)
    db.session("s")
    for i in range(12):
        db.call("s", add(f"fact {i}"))
    stray = db._insert([("s", "tool", "x", "nobody", None, None, T0)])[0]
    con = sqlite3.connect(db.path)
    con.execute("UPDATE messages SET content = CAST(x'ff7b' AS TEXT) WHERE id = ?", (stray,))
    con.commit()
    con.close()
    write_files(home, [f"fact {i}" for i in range(12)])
    _, tl = timeline(home)
    assert tl.stats["route"] == "fts-columns"
    assert [w.content for w in tl.log()] == [f"fact {i}" for i in range(12)] and tl.divergences == []
