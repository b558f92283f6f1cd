"""state.db is opened read-only without side effects, and every bad database gets a clear message."""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
from pathlib import Path

import pytest

from core.sessions.search import DatabaseError, SessionDB
from tests.core.sessions_fixtures import Msg, build_db, fingerprint


def test_missing_db_says_so(tmp_path):
    tmp_path = tmp_path / "home"
    tmp_path.mkdir()
    db = SessionDB(tmp_path / "state.db")
    assert not db.exists()
    with pytest.raises(DatabaseError) as err:
        db.search("deploy")
    assert err.value.kind == "missing" and "No session database" in str(err.value)
    assert not (tmp_path / "state.db").exists()  # nothing was created
    assert os.listdir(tmp_path) == []


def test_folder_instead_of_a_file(tmp_path):
    (tmp_path / "state.db").mkdir()
    with pytest.raises(DatabaseError, match="is not a file"):
        SessionDB(tmp_path / "state.db").sessions()


@pytest.mark.parametrize("content, kind", [
    (b"", "schema"),
    (b"this is not a database at all, just some text\n" * 10, "corrupt"),
    (b"SQLite format 3\x00" + b"\xff" * 4000, "corrupt"),
    (b"SQLite form", "corrupt"),
])
def test_damaged_files(tmp_path, content, kind):
    path = tmp_path / "state.db"
    path.write_bytes(content)
    with pytest.raises(DatabaseError) as err:
        SessionDB(path).search("deploy")
    assert err.value.kind == kind
    assert "Traceback" not in str(err.value)
    assert path.read_bytes() == content


def test_truncated_database_is_reported_as_damaged(tmp_path):
    good = build_db(tmp_path / "good" / "state.db", wal=False)
    data = good.read_bytes()
    bad = tmp_path / "state.db"
    bad.write_bytes(data[: len(data) // 3])
    with pytest.raises(DatabaseError) as err:
        db = SessionDB(bad)
        db.search("deploy", limit=50)
        db.sessions(limit=50)
        db.search("漓江")
    assert err.value.kind in ("corrupt", "schema")
    assert bad.read_bytes() == data[: len(data) // 3]


def test_old_or_foreign_schemas(tmp_path):
    foreign = tmp_path / "foreign.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()
    with pytest.raises(DatabaseError, match="no sessions or messages table") as err:
        SessionDB(foreign).search("x")
    assert err.value.kind == "schema"

    ancient = tmp_path / "ancient.db"
    conn = sqlite3.connect(ancient)
    conn.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at REAL)")
    conn.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, body TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(DatabaseError, match=r"missing messages\.role, messages\.content, messages\.timestamp"):
        SessionDB(ancient).sessions()

    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    with pytest.raises(DatabaseError, match="empty"):
        SessionDB(empty).sessions()


def test_wal_db_without_sidecars_stays_untouched_and_sees_a_writer_that_starts_later(tmp_path):
    path = build_db(tmp_path / "h" / "state.db", wal=True)
    before = fingerprint(path)
    db = SessionDB(path)
    assert len(db.search("deploy", limit=50).hits) == 8
    db.sessions()
    db.window("20261014_090000_aaaaaa", None)
    assert fingerprint(path) == before  # no -wal / -shm appeared, same bytes
    assert db._conns.immutable

    writer = sqlite3.connect(path)  # Hermes starts and writes
    writer.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES "
                   "('20261014_090000_aaaaaa', 'user', 'fresh deploy from a live writer', 1792100000)")
    writer.execute("INSERT INTO messages_fts(rowid, content, tool_name, tool_calls) "
                   "SELECT id, content, tool_name, tool_calls FROM messages WHERE id = last_insert_rowid()")
    writer.commit()
    found = [db.message(h.message_id).content for h in db.search("deploy", limit=50).hits]
    assert "fresh deploy from a live writer" in found
    assert not db._conns.immutable
    db.close()
    writer.close()


def test_reader_never_blocks_or_sees_an_open_wal_transaction(tmp_path):
    path = build_db(tmp_path / "h" / "state.db", wal=True)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES "
                   "('20261014_090000_aaaaaa', 'user', 'uncommitted deploy', 1792100000)")
    writer.execute("INSERT INTO messages_fts(rowid, content) VALUES (last_insert_rowid(), 'uncommitted deploy')")
    digest = fingerprint(path)[0]
    db = SessionDB(path, timeout=0.5)
    # a reader that waited on the writer would fail with "database is locked" after the 0.5 s busy timeout
    found = [db.message(h.message_id).content for h in db.search("deploy", limit=50).hits]
    assert "uncommitted deploy" not in found and len(found) == 8
    writer.execute("ROLLBACK")
    writer.close()
    db.close()
    assert fingerprint(path)[0] == digest


def test_a_locked_rollback_journal_db_is_reported_not_raised(tmp_path):
    path = build_db(tmp_path / "h" / "state.db", wal=False)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    writer.execute("INSERT INTO sessions (id, source, started_at) VALUES ('x', 'cli', 1)")
    try:
        db = SessionDB(path, timeout=0.2)
        with pytest.raises(DatabaseError) as err:
            db.search("deploy")
        assert err.value.kind == "locked" and "try again" in str(err.value)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert len(db.search("deploy", limit=50).hits) == 8  # fine once the lock is gone


def test_paths_with_uri_characters(tmp_path):
    path = build_db(tmp_path / "we?ird #dir %20" / "state.db")
    before = fingerprint(path)
    assert SessionDB(path).search("deploy").hits
    assert fingerprint(path) == before


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root ignores folder permissions")
def test_read_only_folder(tmp_path):  # pragma: no cover - CI runs as root
    path = build_db(tmp_path / "ro" / "state.db", wal=True)
    os.chmod(path.parent, 0o555)
    try:
        assert SessionDB(path).search("deploy").hits
        assert sorted(os.listdir(path.parent)) == ["state.db"]
    finally:
        os.chmod(path.parent, 0o755)


def test_each_thread_gets_its_own_connection(tmp_path):
    path = build_db(tmp_path / "h" / "state.db", extra=[
        (f"20261020_000000_{i:06d}", "cli", [Msg("user", f"deploy number {i}")]) for i in range(40)])
    db = SessionDB(path)
    expected = [h.message_id for h in db.search("deploy", limit=100).hits]
    results, errors = [], []

    def work():
        try:
            for _ in range(5):
                results.append([h.message_id for h in db.search("deploy", limit=100).hits])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and all(r == expected for r in results) and len(results) == 20
    assert len(db._conns._all) == 5
    db.close()
    assert db._conns._all == []


def test_core_modules_do_not_import_textual():
    import subprocess

    code = ("import sys, core.sessions.search, core.sessions.query, core.sessions.snippets, core.sessions.db; "
            "print('textual' in sys.modules or 'rich' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_falls_back_to_immutable_when_read_only_open_is_refused(tmp_path, monkeypatch):
    """A read-only folder (or an -shm we can't write) makes mode=ro fail: read without locks instead."""
    from core.sessions.db import ReadOnlyConnections

    path = build_db(tmp_path / "h" / "state.db", wal=True)
    (tmp_path / "h" / "state.db-shm").write_bytes(b"")  # a sidecar exists, so mode=ro is tried first
    real_open = ReadOnlyConnections._open
    tried = []

    def refusing(self, immutable, **kw):
        tried.append(immutable)
        if not immutable:
            raise sqlite3.OperationalError("unable to open database file")
        return real_open(self, immutable, **kw)

    monkeypatch.setattr(ReadOnlyConnections, "_open", refusing)
    db = SessionDB(path)
    assert db.search("deploy").hits
    assert db.sessions()
    assert tried == [False, True] and db._conns.immutable  # no reopening on every query


def test_file_stamp_sees_writes_and_can_ignore_the_empty_log_a_reader_leaves(tmp_path):
    from core.sessions.db import file_stamp

    db = tmp_path / "state.db"
    db.write_bytes(b"x" * 100)
    before, quiet = file_stamp(db), file_stamp(db, empty_log_counts=False)
    wal = tmp_path / "state.db-wal"
    wal.write_bytes(b"")  # what a reader opening a WAL database makes (and removes again)
    assert file_stamp(db) != before and file_stamp(db, empty_log_counts=False) == quiet
    wal.write_bytes(b"frame")  # a writer's frames
    assert file_stamp(db, empty_log_counts=False) != quiet
    wal.unlink()
    db.write_bytes(b"y" * 101)
    assert file_stamp(db) != before and file_stamp(db, empty_log_counts=False) != quiet


def _home_copied_mid_write(folder: Path) -> Path:
    """state.db and its -wal as a copy taken while Hermes ran: 5 committed rows only the log holds,
    and no -shm (a backup tool, `cp` of the two files, a read-only snapshot)."""
    src = build_db(folder / "src" / "state.db", wal=True)
    writer = sqlite3.connect(src)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    for i in range(5):
        writer.execute("INSERT INTO messages (session_id, role, content, timestamp) "
                       "SELECT id, 'user', ?, 1792000000 FROM sessions LIMIT 1", (f"orphanlog row {i}",))
    writer.commit()
    total = writer.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    copy = folder / "copy"
    copy.mkdir()
    for suffix in ("", "-wal"):
        (copy / f"state.db{suffix}").write_bytes(Path(f"{src}{suffix}").read_bytes())
    writer.close()
    return copy / "state.db", total


def test_a_log_without_its_shm_in_a_read_only_place_is_read_whole(tmp_path, monkeypatch):
    """mode=ro can't make the -shm there, and immutable=1 skips the log: every committed row
    still counts (5,000 of 5,001 messages was the symptom), and nothing is created or changed."""
    from core.sessions.db import ReadOnlyConnections

    path, total = _home_copied_mid_write(tmp_path)
    real_open = ReadOnlyConnections._open

    def read_only_place(self, immutable, **kw):
        if not immutable:
            raise sqlite3.OperationalError("unable to open database file")
        return real_open(self, immutable, **kw)

    monkeypatch.setattr(ReadOnlyConnections, "_open", read_only_place)
    before = {p.name: p.read_bytes() for p in path.parent.iterdir()}
    db = SessionDB(path)
    assert db.describe().messages == total
    assert db._conns.immutable  # read as a snapshot whose identity is checked before each query
    db.close()
    assert {p.name: p.read_bytes() for p in path.parent.iterdir()} == before

