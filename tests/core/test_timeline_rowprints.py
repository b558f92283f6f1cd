"""The history cache never trusts an old row that changed (issue 34): a memory call redacted in
state.db, or another database copied over it in place, means the history is read again; a session
Hermes pruned is forgotten by the check, and the history keeps what it read from it."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import string

import pytest

from core.timeline import cache as tl_cache
from core.timeline.rowprints import RowPrints
from tests.core.test_timeline import add, cache_body, make_home, timeline, write_files


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


def _token() -> str:
    rng = random.Random(3434)
    return "glsa_" + "".join(rng.choices(string.ascii_letters + string.digits, k=32)) + "_" + "".join(
        rng.choices("0123456789abcdef", k=8))


def _home(tmp_path, secret: str):
    home, db = make_home(tmp_path)
    db.session("old")
    db.call("old", add(f"Grafana token is {secret}"))
    db.call("old", {"action": "remove", "target": "memory", "old_text": "Grafana token"})
    db.session("s")
    for i in range(4):
        db.call("s", add(f"fact {i}"))
    write_files(home, [f"fact {i}" for i in range(4)])
    _, first = timeline(home)
    assert first.stats["cache"] == "rebuilt"
    _, again = timeline(home)
    assert again.stats["cache"] == "hit"
    return home, db


def _texts(tl) -> str:
    return json.dumps([(w.before, w.after, w.changes) for w in tl.log()], default=str)


def test_a_call_redacted_in_state_db_is_read_again_and_its_secret_is_gone(tmp_path):
    secret = _token()
    home, db = _home(tmp_path, secret)
    _, before = timeline(home)
    assert secret in _texts(before)
    con = sqlite3.connect(db.path)
    con.execute("UPDATE messages SET tool_calls = replace(tool_calls, ?, '[REDACTED]')", (secret,))
    con.commit()
    con.close()
    _, after = timeline(home)
    assert after.stats["cache"] == "rebuilt" and after.stats["replayed"] == "all"
    assert secret not in _texts(after) and "[REDACTED]" in _texts(after)
    _, next_run = timeline(home)  # the rebuilt cache is trusted again
    assert next_run.stats["cache"] == "hit" and secret not in _texts(next_run)


def test_a_pruned_session_is_forgotten_by_the_check_and_kept_in_the_history(tmp_path):
    home, db = _home(tmp_path, "a plain note")
    _, before = timeline(home)
    con = sqlite3.connect(db.path)
    con.execute("DELETE FROM messages WHERE session_id = 'old'")  # what Hermes's pruning does
    con.execute("DELETE FROM sessions WHERE id = 'old'")
    con.commit()
    con.close()
    _, after = timeline(home)
    assert after.stats["cache"] == "hit"  # not rebuilt: the pruned writes stay in the history
    assert len(after.log()) == len(before.log())
    kept = RowPrints.unpack(cache_body(tl_cache.cache_path(db.path))["rows"])
    assert len(kept.ids) == 8  # the 4 rows of the pruned session dropped, and saved: the next run sums once


def test_another_database_copied_over_state_db_in_place_is_read_again(tmp_path):
    home, db = _home(tmp_path, "a plain note")
    other_home, other = make_home(tmp_path / "other")
    other.session("old")
    other.call("old", add("Grafana token is elsewhere"))  # same ids, same sessions, other words
    other.call("old", {"action": "remove", "target": "memory", "old_text": "Grafana token"})
    other.session("s")
    for i in range(4):
        other.call("s", add(f"fact {i}"))
    with open(other.path, "rb") as src, open(db.path, "r+b") as dst:  # in place: same inode
        dst.truncate(0)
        shutil.copyfileobj(src, dst)
    _, after = timeline(home)
    assert after.stats["cache"] == "rebuilt"
    assert "elsewhere" in _texts(after)


def test_row_prints_unit(tmp_path):
    con = sqlite3.connect(tmp_path / "db")
    con.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, tool_calls TEXT, content TEXT)")
    con.executemany("INSERT INTO messages VALUES (?, ?, ?)", [(i, "x" * i if i % 2 else None, "y" * (2 * i))
                                                               for i in range(1, 50)])
    prints = RowPrints()
    prints.add(con, [3, 4, 7, 7, 999])  # 999: no such row, never printed
    assert list(prints.ids) == [3, 4, 7]
    same = RowPrints.unpack(prints.pack())
    assert same.check(con) and not same.changed
    con.execute("DELETE FROM messages WHERE id = 4")
    pruned = RowPrints.unpack(prints.pack())
    assert pruned.check(con) and pruned.changed and list(pruned.ids) == [3, 7]
    con.execute("UPDATE messages SET content = 'z' WHERE id = 7")
    assert not RowPrints.unpack(prints.pack()).check(con)
    for bad in (None, (b"x",), (b"\0" * 8, b"\0" * 16), ("a", "b")):
        with pytest.raises((TypeError, ValueError)):
            RowPrints.unpack(bad)


def test_a_sample_sees_another_database_and_every_row_sees_one_redaction(tmp_path):
    """Past SAMPLE rows, a build that doesn't show every write checks an even spread of them (a
    database copied in place differs everywhere); one that does (log, blame, history) checks all."""
    from core.timeline.rowprints import SAMPLE

    con = sqlite3.connect(tmp_path / "db")
    con.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, tool_calls TEXT, content TEXT)")
    n = 4 * SAMPLE + 7
    con.executemany("INSERT INTO messages VALUES (?, ?, ?)", [(i, "c" * (i % 97), "r" * (i % 89)) for i in range(1, n + 1)])
    prints = RowPrints()
    prints.add(con, range(1, n + 1))
    stride = -(-n // SAMPLE)
    unsampled = 2  # id 2 is at index 1: between two sampled rows
    assert 1 % stride
    con.execute("UPDATE messages SET tool_calls = 'x' WHERE id = ?", (unsampled,))
    assert RowPrints.unpack(prints.pack()).check(con, SAMPLE)  # the sample doesn't see one row
    assert not RowPrints.unpack(prints.pack()).check(con)  # every row does
    con.execute("UPDATE messages SET content = content || 'x'")  # another database: every row differs
    assert not RowPrints.unpack(prints.pack()).check(con, SAMPLE)


def test_hmc_log_reveal_never_shows_a_secret_state_db_no_longer_holds(tmp_path, capsys):
    from tui.cli.main import main

    secret = _token()
    home, db = _home(tmp_path, secret)
    assert main(["--home", str(home), "--today", "2026-10-01", "log", "--reveal"]) == 0
    assert secret in capsys.readouterr().out
    con = sqlite3.connect(db.path)
    con.execute("UPDATE messages SET tool_calls = replace(tool_calls, ?, '[REDACTED]')", (secret,))
    con.commit()
    con.close()
    assert main(["--home", str(home), "--today", "2026-10-01", "log", "--reveal"]) == 0
    out = capsys.readouterr().out
    assert secret not in out and "[REDACTED]" in out
