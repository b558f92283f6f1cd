"""An update reads what changed, never a whole table: every statement the loaded-memory summary's
update (core.snapshots.cache) sends to a state.db with the release's own indexes is checked with
EXPLAIN QUERY PLAN, and none may scan `messages` or an index of it from end to end.

The planner chooses by the indexes, not by the data's size, so a small database shows the plan a
million messages get. (`SELECT DISTINCT session_id FROM messages WHERE id > ?` was answered by
scanning a covering index of every message: 75 ms at 1,000,000 messages for an update of 100.)"""

from __future__ import annotations

import sqlite3

import pytest

from core.demo.build import build_state_db
from core.snapshots import cache
from core.sessions.db import probe


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("plans") / "state.db"
    build_state_db(path, sessions=40, messages=1500)
    return path


def whole_scans(conn: sqlite3.Connection, statements: list[str]) -> list[str]:
    bad = []
    for sql in statements:
        if "messages" not in sql or sql.lstrip().upper().startswith(("EXPLAIN", "PRAGMA")):
            continue
        for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}"):
            detail = row[-1]
            if detail.startswith("SCAN messages") or detail.startswith("SCAN m "):
                bad.append(f"{detail}  <-  {sql}")
    return bad


def test_the_summary_update_reads_only_the_new_messages(db):
    reader = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    columns = probe(reader, db).session_columns
    cache.read(db, reader, columns)  # the whole read, kept
    reader.close()
    writer = sqlite3.connect(db)
    with writer:
        sid, ts = writer.execute("SELECT session_id, MAX(timestamp) FROM messages").fetchone()
        writer.executemany("INSERT INTO messages(session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)",
                           [(sid, f"one more {i}", ts + i) for i in range(1, 21)])
    writer.close()
    reader = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    statements: list[str] = []
    reader.set_trace_callback(statements.append)
    cache.read(db, reader, columns)
    reader.set_trace_callback(None)
    assert any("messages" in s for s in statements)  # the update did look at the new messages
    assert whole_scans(reader, statements) == []


def test_the_check_sees_a_whole_scan(db):
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    assert whole_scans(conn, ["SELECT DISTINCT session_id FROM messages WHERE id > 5"])
    assert not whole_scans(conn, ["SELECT DISTINCT session_id FROM messages NOT INDEXED WHERE id > 5"])
