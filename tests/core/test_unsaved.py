"""core.sessions.unsaved: a claimed save with no write behind it in its turn (no call, refused,
only staged) is found; a kept promise is not; the since-bisection and the turn reads stay bounded; and
the review's `unsaved` finding is cleared by the files, the queue and a provider."""

from __future__ import annotations

import json
import random
import sqlite3
from datetime import date

import pytest

from core.sessions.unsaved import first_id_since, scan, scan_turns

T0 = 1_790_000_000.0


def db(tmp_path, rows):
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at REAL);
        CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT,
            tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL);""")
    for sid in sorted({r[0] for r in rows}):
        conn.execute("INSERT INTO sessions VALUES (?, 'telegram', ?)", (sid, T0))
    conn.executemany("INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, "
                     "timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    conn.commit()
    return conn


def user(sid, text, at):
    return (sid, "user", text, None, None, None, at)


def reply(sid, text, at):
    return (sid, "assistant", text, None, None, None, at)


def call(sid, result, at, cid="c1", anonymous=False):
    fn = {"name": "memory", "arguments": json.dumps({"action": "add", "content": "x"})}
    tc = json.dumps([{"function": fn}] if anonymous else [{"id": cid, "type": "function", "function": fn}])
    return [(sid, "assistant", "", None, tc, None, at),
            (sid, "tool", json.dumps(result), None if anonymous else cid, None, "memory", at + 1)]


def test_each_outcome(tmp_path):
    rows = [user("a", "Remember that I use tabs.", T0), reply("a", "Got it, saved.", T0 + 1),
            user("b", "Remember the port is 5433.", T0 + 2),
            *call("b", {"success": False, "error": "Memory at 2,200/2,200 chars."}, T0 + 3),
            reply("b", "Noted.", T0 + 5),
            user("c", "Keep in mind we deploy Fridays.", T0 + 6),
            *call("c", {"success": True, "staged": True, "pending_id": "abcd1234"}, T0 + 7, "c9"),
            reply("c", "I'll remember that.", T0 + 9),
            user("d", "Remember my name is Ana.", T0 + 10), *call("d", {"success": True}, T0 + 11, anonymous=True),
            reply("d", "Saved to memory.", T0 + 13),
            user("e", "what's the weather", T0 + 14), reply("e", "Sunny.", T0 + 15)]
    conn = db(tmp_path, rows)
    got = {u.session_id: u for u in scan(conn, since=0)}
    assert set(got) == {"a", "b", "c"}
    assert got["a"].outcome == "no-call" and got["a"].claim == "Got it, saved" and got["a"].asked
    assert got["b"].outcome == "refused" and got["b"].detail.startswith("Memory at 2,200")
    assert got["c"].outcome == "staged" and got["c"].detail == "abcd1234"
    assert got["a"].source == "telegram" and got["a"].request == "Remember that I use tabs."


def test_asked_without_a_claim_only_when_asked_for(tmp_path):
    conn = db(tmp_path, [user("a", "Please remember that I use tabs.", T0), reply("a", "Sure, tabs.", T0 + 1)])
    assert scan(conn, since=0) == []
    (u,) = scan(conn, since=0, claimed_only=False)
    assert u.claim == "" and u.asked and u.outcome == "no-call" and u.claim_id == 1


def test_scan_turns_reads_only_the_turns_of_the_anchors(tmp_path):
    rows = [user("a", "Remember that I use tabs.", T0), reply("a", "Got it, saved.", T0 + 1)]
    rows += [reply("a", f"filler {i}", T0 + 2 + i) for i in range(50)]
    rows += [user("a", "Remember I like tea.", T0 + 100), reply("a", "Noted.", T0 + 101)]
    conn = db(tmp_path, rows)
    (u,) = scan_turns(conn, [("a", 2)])
    assert u.claim_id == 2
    (u,) = scan_turns(conn, [("a", 54)])
    assert u.request == "Remember I like tea."
    assert len(scan_turns(conn, [("a", 2), ("a", 1), ("a", 40)])) == 1  # one turn, read once


@pytest.mark.parametrize("seed", range(8))
def test_first_id_since_bisects_with_odd_timestamps(tmp_path, seed):
    rng = random.Random(seed)
    rows, at = [], T0
    for i in range(300):
        at += rng.random() * 100
        ts = rng.choice([at, at, at, "garbage", None]) if rng.random() < 0.1 else at
        rows.append(("s", "user", f"m{i}", None, None, None, ts))
    conn = db(tmp_path, rows)
    numeric = [(i + 1, r[6]) for i, r in enumerate(rows) if isinstance(r[6], float)]
    cut = numeric[rng.randrange(len(numeric))][1]
    got = first_id_since(conn, cut)
    expected = min(i for i, ts in numeric if ts >= cut)
    assert got <= expected, f"seed {seed}"
    assert all(not isinstance(rows[i - 1][6], float) or rows[i - 1][6] < cut for i in range(got, expected)), seed
    assert first_id_since(conn, at + 1e6) == len(rows) + 1


def test_first_id_since_on_no_messages(tmp_path):
    assert first_id_since(db(tmp_path, []), T0) == 0


def test_max_rows_keeps_the_newest_replies(tmp_path):
    """max_rows counts the replies read (the assistant's messages), the newest kept; each kept
    claim's turn is read whole, its request included."""
    rows = []
    for i in range(30):
        rows += [user(f"s{i}", "Remember this one.", T0 + 3 * i), reply(f"s{i}", "Saved to memory.", T0 + 3 * i + 1)]
    conn = db(tmp_path, rows)
    got = scan(conn, since=0, max_rows=10)
    assert [u.session_id for u in got] == [f"s{i}" for i in range(20, 30)]
    assert all(u.request == "Remember this one." for u in got)
    asked = scan(conn, since=0, max_rows=10, claimed_only=False)  # the users' messages count too
    assert [u.session_id for u in asked] == [f"s{i}" for i in range(25, 30)]


def test_a_claim_after_the_cut_keeps_its_request_from_before_it(tmp_path):
    """The turn of a claim is read whole, even when its request came before `since`."""
    conn = db(tmp_path, [user("a", "Remember that I use tabs.", T0), reply("a", "Got it, saved.", T0 + 100)])
    (u,) = scan(conn, since=T0 + 50)
    assert u.request == "Remember that I use tabs." and u.asked


def test_the_review_finding_and_what_clears_it(tmp_path):
    from core.curator import open_curator
    from core.review.findings import run_review
    from tests.core.pending_support import stage

    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_text("unrelated", encoding="utf-8")
    (home / "config.yaml").write_text("memory:\n  memory_enabled: true\n", encoding="utf-8")
    now = T0 + 86_400
    db(home, [user("a", "Remember that the staging port is 5433.", now - 3600),
              reply("a", "Perfetto, me lo ricorderò!", now - 3590)]).close()
    today = date.fromtimestamp(now)

    def unsaved():
        curator = open_curator(home, None, today, clock=lambda: now)
        return [f for f in run_review(curator) if f.kind == "unsaved"]

    (f,) = unsaved()
    assert f.severity == "warning" and f.fact == "Remember that the staging port is 5433."
    assert f.detail.startswith('The agent answered "Perfetto, me lo ricorderò!" (telegram, ')
    assert "made no memory call" in f.detail and 'The user had said "Remember that' in f.detail
    assert f.where == "session a"
    assert f.to_json()["fact"] == f.fact
    stage(home, content="The staging port is 5433", rid="0badc0de")  # waiting in the queue
    assert unsaved() == []
    (home / "pending" / "memory" / "0badc0de.json").unlink()
    assert len(unsaved()) == 1
    (home / "memories" / "MEMORY.md").write_text("unrelated\n§\nStaging DB port: 5433", encoding="utf-8")
    assert unsaved() == []  # saved since (by hand, or the background review)
    (home / "memories" / "MEMORY.md").write_text("unrelated", encoding="utf-8")
    (home / "config.yaml").write_text("memory:\n  provider: mem0\n", encoding="utf-8")
    assert unsaved() == []  # a provider's own tools may have saved it


@pytest.mark.parametrize("change", ["new reply", "redacted", "replaced"])
def test_the_review_scans_state_db_again_only_when_it_changed(tmp_path, monkeypatch, change):
    """The scan is kept between reviews in one process (the TUI's) while state.db is as it was; a
    new message, a redaction in place (no new id) or another database copied over it is read again."""
    import shutil

    from core.curator import open_curator
    from core.review import unsaved as review_unsaved
    from core.review.findings import run_review
    from core.sessions import unsaved as sessions_unsaved

    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    (home / "config.yaml").write_text("memory:\n  memory_enabled: true\n", encoding="utf-8")
    now = T0 + 86_400
    db(home, [user("a", "Remember that the staging port is 5433.", now - 3600),
              reply("a", "Got it, I'll remember that.", now - 3590)]).close()
    scans = []
    real = sessions_unsaved.scan
    monkeypatch.setattr(sessions_unsaved, "scan", lambda *a, **k: scans.append(1) or real(*a, **k))

    def claims():
        curator = open_curator(home, None, date.fromtimestamp(now), clock=lambda: now)
        return sorted(f.detail.split('"')[1] for f in run_review(curator) if f.kind == "unsaved")

    assert claims() == ["Got it, I'll remember that."] and len(scans) == 1
    assert claims() == ["Got it, I'll remember that."] and len(scans) == 1  # unchanged: kept
    if change == "new reply":
        conn = sqlite3.connect(home / "state.db")
        conn.executemany("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)",
                         [("a", "user", "And remember I deploy on Fridays.", now - 60),
                          ("a", "assistant", "Noted, saved.", now - 50)])
        conn.commit()
        conn.close()
        expected = ["Got it, I'll remember that.", "Noted, saved."]
    elif change == "redacted":
        conn = sqlite3.connect(home / "state.db")
        conn.execute("UPDATE messages SET content = 'Sure.' WHERE role = 'assistant'")
        conn.commit()
        conn.close()
        expected = []
    else:
        other = tmp_path / "other"
        other.mkdir()
        db(other, [user("b", "Remember my cat is Tom.", now - 3600), reply("b", "C'est noté !", now - 3590)]).close()
        shutil.copyfile(other / "state.db", home / "state.db")
        expected = ["C'est noté !"]
    assert claims() == expected and len(scans) == 2
    assert review_unsaved._SCANNED  # kept again for the next review
