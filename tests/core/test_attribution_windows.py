"""The attribution's narrowed windows kept between builds (core.timeline.windows): a kept answer is
the one a build without it gives, and it is read again whenever the window's sessions or what they
loaded may have changed (a session deleted or added, a turn in one of them, another release, a
damaged file)."""

from __future__ import annotations

import os
import sqlite3
from datetime import date

import pytest

from core import timefmt
from core.curator import open_curator
from core.snapshots import loaded as loaded_module
from core.timeline import build_timeline
from core.timeline import cache as tl_cache
from core.timeline.windows import windows_path
from tests.core.snapshot_fixtures import prompt, sha
from tests.core.test_attribution import Clock
from tests.core.test_timeline import T0, make_home, write_files

OLD = "Deploys go out on Thursdays."
NEW = "User keeps the VPN key in 1Password."
SEEN = T0 + 30_000  # when the files showed the outside add


def when(ts: float) -> str:
    return timefmt.local_time(ts, "%d %b %H:%M").lstrip("0")


@pytest.fixture()
def home(tmp_path):
    """A call adds OLD; the files later show NEW too, with no call. Sessions s1, s2 started without
    NEW in their prompt, s3, s4 with it: the add was written between s2's start and s3's."""
    home, db = make_home(tmp_path)
    db.session("s-chat", "cli")
    db.call("s-chat", {"action": "add", "target": "memory", "content": OLD})
    conn = sqlite3.connect(db.path)
    with conn:
        conn.execute("ALTER TABLE sessions ADD COLUMN system_prompt_hash TEXT")
        conn.execute("CREATE TABLE system_prompts (hash TEXT PRIMARY KEY, prompt TEXT NOT NULL)")
        conn.execute("CREATE INDEX idx_sessions_started ON sessions(started_at DESC)")  # as every release has it
        for p in (prompt([OLD]), prompt([OLD, NEW])):
            conn.execute("INSERT INTO system_prompts VALUES (?, ?)", (sha(p), p))
        for n, p in ((1, prompt([OLD])), (2, prompt([OLD])), (3, prompt([OLD, NEW])), (4, prompt([OLD, NEW]))):
            conn.execute("INSERT INTO sessions (id, source, started_at, system_prompt_hash) VALUES (?, 'cli', ?, ?)",
                         (f"s{n}", T0 + 6000 * n, sha(p)))
    conn.close()
    write_files(home, [OLD, NEW])
    os.utime(home / "memories" / "MEMORY.md", (SEEN, SEEN))
    return home


def note(home, **kw) -> str:
    cur = open_curator(home, None, date(2026, 10, 1), clock=Clock(SEEN + 100))
    tl = build_timeline(cur, **kw)
    return next(b for b in tl.blame("memory") if b.text == NEW).first_seen.note


@pytest.fixture()
def reads(monkeypatch):
    """How many times the windows' sessions were read from state.db."""
    calls = []
    real = loaded_module.started_between

    def counted(*args, **kwargs):
        calls.append(args[2:4])
        return real(*args, **kwargs)

    monkeypatch.setattr(loaded_module, "started_between", counted)
    return calls


def windows_file(home):
    return windows_path(tl_cache.cache_path(home / "state.db"))


def test_a_kept_window_gives_what_reading_it_gives_and_reads_nothing(home, reads):
    first = note(home)
    assert first == f"written between {when(T0 + 12000)} and {when(T0 + 18000)}, by no recorded call"
    assert reads and windows_file(home).is_file()
    reads.clear()
    assert note(home) == first and not reads  # kept: no session read again
    assert note(home, cache=False) == first and reads  # without caches: read, the same answer


def execute(home, *sql):
    conn = sqlite3.connect(home / "state.db")
    with conn:
        for statement, params in sql:
            conn.execute(statement, params)
    conn.close()


@pytest.mark.parametrize("change", ["deleted", "added", "turn"])
def test_a_window_whose_sessions_changed_is_read_again(home, reads, change):
    note(home)
    if change == "deleted":  # s3 pruned: the first session that loaded NEW is now s4
        execute(home, ("DELETE FROM sessions WHERE id = 's3'", ()))
        expected = (T0 + 12000, T0 + 24000)
    elif change == "added":  # a session imported into the window, that loaded NEW before s3
        execute(home, ("INSERT INTO sessions (id, source, started_at, system_prompt_hash) VALUES ('s2b', 'cli', ?, ?)",
                       (T0 + 15000, sha(prompt([OLD, NEW])))))
        expected = (T0 + 12000, T0 + 15000)
    else:  # a turn in s2 rebuilt its prompt (a /model switch), which now holds NEW
        execute(home, ("UPDATE sessions SET system_prompt_hash = ? WHERE id = 's2'", (sha(prompt([OLD, NEW])),)),
                ("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s2', 'user', 'hi', ?)",
                 (SEEN + 50,)))
        expected = (T0 + 6000, T0 + 12000)
    reads.clear()
    got = note(home)
    assert reads, "the changed window was not read again"
    assert got == f"written between {when(expected[0])} and {when(expected[1])}, by no recorded call"
    assert got == note(home, cache=False)


def test_a_turn_outside_the_window_keeps_it(home, reads):
    note(home)
    execute(home, ("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s-chat', 'user', 'hi', ?)",
                   (SEEN + 50,)))
    reads.clear()
    note(home)
    assert not reads


@pytest.mark.parametrize("damage", ["flipped byte", "cut short", "empty", "not marshal", "a folder"])
def test_a_windows_file_hmc_cant_use_is_ignored(home, reads, damage):
    first = note(home)
    path = windows_file(home)
    data = path.read_bytes()
    if damage == "flipped byte":
        path.write_bytes(data[:-3] + bytes([data[-3] ^ 0xFF]) + data[-2:])
    elif damage == "cut short":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "not marshal":
        from core.hmc_cache import frame

        path.write_bytes(frame(b"\xff\x00junk") + b"\xff\x00junk")
    else:
        path.unlink()
        path.mkdir()
    reads.clear()
    assert note(home) == first and reads


def test_another_releases_rules_dont_use_the_kept_windows(home, reads):
    note(home)
    reads.clear()
    detected = open_curator(home, None, date(2026, 10, 1)).release
    other = "0.20" if detected.version[:2] != (0, 20) else "0.22"
    cur = open_curator(home, None, date(2026, 10, 1), clock=Clock(SEEN + 100), hermes_version=other)
    assert cur.release != detected
    build_timeline(cur)
    assert reads



@pytest.fixture()
def older(tmp_path):
    """Texts already in the prompts before the history began: s0 (long before the first call) loaded
    them, and so did the window's first session. Narrowing them searches the stored prompts."""
    home, db = make_home(tmp_path)
    db.session("s-chat", "cli")
    db.call("s-chat", {"action": "add", "target": "memory", "content": OLD})
    texts = [f"Fact number {n} from before the history." for n in range(20)]
    conn = sqlite3.connect(db.path)
    with conn:
        conn.execute("ALTER TABLE sessions ADD COLUMN system_prompt_hash TEXT")
        conn.execute("CREATE TABLE system_prompts (hash TEXT PRIMARY KEY, prompt TEXT NOT NULL)")
        conn.execute("CREATE INDEX idx_sessions_started ON sessions(started_at DESC)")
        for n, (sid, at, entries) in enumerate((("s-old", T0 - 90_000, texts[:1]), ("s0", T0 - 50_000, texts),
                                                ("s1", T0 + 6000, [OLD, *texts]), ("s2", T0 + 12000, [OLD, *texts]))):
            p = prompt(entries)
            conn.execute("INSERT OR IGNORE INTO system_prompts VALUES (?, ?)", (sha(p), p))
            conn.execute("INSERT INTO sessions (id, source, started_at, system_prompt_hash) VALUES (?, 'cli', ?, ?)",
                         (sid, at, sha(p)))
    conn.close()
    return home, texts


@pytest.fixture()
def searches(monkeypatch):
    calls = []
    real = loaded_module.first_loading

    def counted(*args, **kwargs):
        calls.append(args[3])
        return real(*args, **kwargs)

    monkeypatch.setattr(loaded_module, "first_loading", counted)
    return calls


def notes(home) -> dict:
    cur = open_curator(home, None, date(2026, 10, 1), clock=Clock(SEEN + 100))
    return {b.text: b.first_seen.note for b in build_timeline(cur).blame("memory")}


def cold_notes(home) -> dict:
    cur = open_curator(home, None, date(2026, 10, 1), clock=Clock(SEEN + 100))
    return {b.text: b.first_seen.note for b in build_timeline(cur, cache=False).blame("memory")}


def test_an_answer_that_searched_older_prompts_is_kept_and_still_counts_against_the_budget(older, searches):
    from core.timeline.attribution import MAX_LOOKBACKS

    home, texts = older
    for n in (1, 20):  # within the budget of searches, and past it
        write_files(home, [OLD, *texts[:n]])
        os.utime(home / "memories" / "MEMORY.md", (SEEN, SEEN))
        searches.clear()
        first = notes(home)
        # 20 texts: the first's answer is kept from the first round, and counts as one of the budget's
        assert len(searches) == (1 if n == 1 else MAX_LOOKBACKS - 1)
        assert first[texts[0]] == f"written before {when(T0 - 90_000)}, before the history begins, by no recorded call"
        if n > 1:  # s-old didn't load it, s0 did
            assert first[texts[1]] == f"written between {when(T0 - 90_000)} and {when(T0 - 50_000)}, by no recorded call"
        searches.clear()
        assert notes(home) == first and not searches  # kept: no prompt searched again
        assert cold_notes(home) == first  # and what a build without caches says, budget included


def test_a_session_deleted_before_the_window_searches_again(older, searches):
    home, texts = older
    write_files(home, [OLD, texts[0]])
    os.utime(home / "memories" / "MEMORY.md", (SEEN, SEEN))
    notes(home)
    execute(home, ("DELETE FROM sessions WHERE id = 's-old'", ()))  # pruned: s0 is now the first to load it
    searches.clear()
    got = notes(home)
    assert searches and got == cold_notes(home)
    assert got[texts[0]] == f"written before {when(T0 - 50_000)}, before the history begins, by no recorded call"


def test_a_window_holding_a_chat_that_goes_on_is_kept_once_read_again(home, reads):
    """A session in the window that keeps talking (a long gateway chat) makes the window be read
    again after its turns, and that answer is kept: the next build without a turn reads nothing."""
    note(home)
    execute(home, ("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s2', 'user', 'hi', ?)",
                   (SEEN + 50,)))
    reads.clear()
    first = note(home)
    assert reads and first == note(home, cache=False)
    reads.clear()
    assert note(home) == first and not reads
