"""The history cache while Hermes writes: a real WAL writer process appends memory calls while the
history is built again and again; afterwards the cached history equals a fresh rebuild (no write is
lost behind the cache's read position). And the cause itself, deterministically: a write committed
between any two statements of one read is either read or left after the read position."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap

import pytest

from core.sessions.db import ReadOnlyConnections, probe
from core.sessions.memory_calls import Harvest, read_calls
from core.timeline import history
from tests.core.test_timeline import T0, add, make_home, timeline, write_files


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


WRITER = textwrap.dedent("""
    import json, sqlite3, sys
    path, n, t0 = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    con = sqlite3.connect(path, timeout=30, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    print("ready", flush=True)
    sys.stdin.readline()
    for i in range(n):
        args = json.dumps({"action": "add", "target": "memory", "content": f"live fact {i}"})
        calls = json.dumps([{"id": f"w{i}", "type": "function", "function": {"name": "memory", "arguments": args}}])
        con.execute("BEGIN IMMEDIATE")
        con.execute("INSERT INTO messages(session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp) "
                    "VALUES ('live', 'assistant', '', NULL, ?, NULL, ?)", (calls, t0 + i))
        con.execute("INSERT INTO messages(session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp) "
                    "VALUES ('live', 'tool', ?, ?, NULL, 'memory', ?)", (json.dumps({"success": True}), f"w{i}", t0 + i))
        con.execute("COMMIT")
        if i % 3 == 0:  # chat between the calls, in its own transactions
            con.execute("INSERT INTO messages(session_id, role, content, tool_call_id, tool_calls, tool_name, "
                        "timestamp) VALUES ('live', 'user', 'hello memory', NULL, NULL, NULL, ?)", (t0 + i,))
    con.close()
    print("done", flush=True)
""")


@pytest.mark.parametrize("layout", ["none", "current"])
def test_the_cache_keeps_every_write_a_live_wal_writer_appends(tmp_path, monkeypatch, layout):
    monkeypatch.setattr(history, "SAVE_AFTER_MESSAGES", 0)  # every build saves its read position
    monkeypatch.setattr(history, "SAVE_AFTER_EVENTS", 0)
    home, db = make_home(tmp_path, layout)
    db.session("s")
    db.session("live", "telegram")
    db.call("s", add("before the writer"))
    n = 600
    (home / "config.yaml").write_text("memory:\n  memory_enabled: true\n  memory_char_limit: 100000\n", encoding="utf-8")
    write_files(home, ["before the writer"] + [f"live fact {i}" for i in range(n)])
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db.path), str(n), str(T0 + 3600)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "ready"
        timeline(home)  # a first, full build while no writer is writing
        writer.stdin.write("go\n")
        writer.stdin.flush()
        builds = 0
        while writer.poll() is None or builds < 3:
            _, tl = timeline(home)
            builds += 1
        assert writer.wait(timeout=120) == 0
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    _, cached = timeline(home)
    _, fresh = timeline(home, cache=False)
    assert cached.stats["cache"] == "hit"
    assert [w.by for w in fresh.log()] == ["agent"] * (n + 1) and fresh.divergences == []
    missing = sorted({w.id for w in fresh.log()} - {w.id for w in cached.log()})
    assert missing == [], f"{len(missing)} of {n + 1} writes missing from the cached history after {builds} builds"
    assert [w.to_json() for w in cached.log()] == [w.to_json() for w in fresh.log()]
    assert [b.to_json() for b in cached.blame()] == [b.to_json() for b in fresh.blame()]


def wal(path) -> None:
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    con.close()


class _Interleaved:
    """A connection that lets a writer commit one memory call before each statement it runs."""

    def __init__(self, conn, db):
        self.conn, self.db, self.written = conn, db, []

    def execute(self, sql, params=()):
        self.written.append(self.db.call("s", add(f"between statements {len(self.written)}")))
        return self.conn.execute(sql, params)

    def __getattr__(self, name):
        return getattr(self.conn, name)


@pytest.mark.parametrize("layout", ["none", "inline", "current"])
@pytest.mark.parametrize("first", [True, False])
def test_a_write_between_two_statements_is_read_or_left_for_the_next_read(tmp_path, layout, first):
    """The cause of the lost writes: rows and MAX(id) read in two snapshots. Whatever commits while
    read_calls runs, every call at or before the read position it leaves must be in the harvest."""
    home, db = make_home(tmp_path, layout)
    wal(db.path)  # as Hermes keeps it: a writer can commit while a reader's snapshot is open
    db.session("s")
    db.call("s", add("one"))
    db.chat("s", 2)
    hermes = sqlite3.connect(db.path)  # Hermes running: the -wal and -shm are there, readers see new commits
    hermes.execute("SELECT COUNT(*) FROM messages").fetchone()
    conns = ReadOnlyConnections(db.path)
    try:
        conn = conns.get()
        assert not conns.immutable
        schema = probe(conn, db.path)
        harvest = Harvest()
        if not first:
            read_calls(conn, schema, harvest)
            db.call("s", add("two"))
        proxy = _Interleaved(conn, db)
        read_calls(proxy, schema, harvest)
    finally:
        conns.close()
        hermes.close()
    read = {c.result_id for c in harvest.calls}
    covered = [ids for ids in proxy.written if ids[1] <= harvest.last_id]
    assert all(ids[1] in read for ids in covered), (harvest.last_id, sorted(read), proxy.written)
    # and the next read (from the position left) finds the rest: nothing falls between the two
    again = Harvest(last_id=harvest.last_id, open=list(harvest.open))
    conns = ReadOnlyConnections(db.path)
    try:
        read_calls(conns.get(), schema, again)
    finally:
        conns.close()
    every = sorted(read | {c.result_id for c in again.calls})
    con = sqlite3.connect(db.path)
    in_db = [r[0] for r in con.execute("SELECT id FROM messages WHERE role = 'tool' ORDER BY id")]
    con.close()
    assert every == in_db
