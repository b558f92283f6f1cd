"""The loaded-memory cache (core.snapshots.cache): after any sequence of what Hermes does to
state.db (new sessions, turns that resume, retitle or fill a session's prompt, ends, pruning,
VACUUM, a replaced file), a cached read equals a whole read; and an update parses only what
changed. Random sequences are seeded; a failure prints its seed."""

from __future__ import annotations

import random
import sqlite3

import pytest

from core.snapshots import cache, loaded
from tests.core.snapshot_fixtures import make_db, prompt, sha

MEMORIES = [("Deploys on Thursdays.",), ("Deploys on Tuesdays.", "VPN key in 1Password."), ()]
USERS = [("Alex",), ("Alex, in Lyon",)]


class Home:
    """A state.db in one of the two prompt layouts, changed the way Hermes changes it."""

    def __init__(self, path, inline: bool, rng: random.Random):
        self.path, self.inline, self.rng = path, inline, rng
        make_db(path, [], inline=inline).close()
        self.n = 0
        self.t = 1_700_000_000.0
        self.msg = 0

    def conn(self):
        return sqlite3.connect(self.path)

    def _prompt(self, con) -> dict:
        if self.rng.random() < 0.1:
            return {}  # not built yet (NULL)
        text = prompt(self.rng.choice(MEMORIES), self.rng.choice(USERS))
        if self.inline:
            return {"system_prompt": text}
        con.execute("INSERT OR IGNORE INTO system_prompts VALUES (?, ?)", (sha(text), text))
        return {"system_prompt_hash": sha(text)}

    def new_session(self, earlier: bool = False) -> None:
        with self.conn() as con:
            self.n += 1
            self.t += 60
            started = self.t - 86400 * self.rng.randrange(1, 30) if earlier else self.t
            row = {"id": f"s{self.n:04d}", "source": self.rng.choice(["cli", "telegram", "cron"]),
                   "title": f"t{self.n}", "started_at": started, "last_activity_at": started,
                   **self._prompt(con)}
            if self.rng.random() < 0.5:
                row.update(ended_at=started + 30, end_reason="user_exit")
            con.execute(f"INSERT INTO sessions ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                        list(row.values()))
            self.message(con, row["id"])

    def message(self, con, sid: str) -> None:
        self.msg += 1
        self.t += 1
        con.execute("INSERT INTO messages (id, session_id, role, content, timestamp) VALUES (?, ?, 'user', 'hi', ?)",
                    (self.msg, sid, self.t))

    def some(self, con) -> str | None:
        row = con.execute("SELECT id FROM sessions ORDER BY random() LIMIT 1").fetchone()
        return row[0] if row else None

    def turn(self) -> None:
        """A turn in an existing session: it may resume it, retitle it, or build its prompt."""
        with self.conn() as con:
            sid = self.some(con)
            if sid is None:
                return
            kind = self.rng.choice(["resume", "title", "prompt", "plain"])
            if kind == "resume":
                con.execute("UPDATE sessions SET ended_at = NULL, end_reason = NULL, last_activity_at = ? "
                            "WHERE id = ?", (self.t, sid))
            elif kind == "title":
                con.execute("UPDATE sessions SET title = ? WHERE id = ?", (f"renamed {self.t}", sid))
            elif kind == "prompt":
                cols = self._prompt(con) or {"system_prompt" if self.inline else "system_prompt_hash": None}
                con.execute(f"UPDATE sessions SET {', '.join(f'{k} = ?' for k in cols)} WHERE id = ?",
                            [*cols.values(), sid])
            con.execute("UPDATE sessions SET last_activity_at = ? WHERE id = ?", (self.t, sid))
            self.message(con, sid)

    def end(self) -> None:
        """An open session ends (no message comes with it)."""
        with self.conn() as con:
            row = con.execute("SELECT id FROM sessions WHERE ended_at IS NULL ORDER BY random() LIMIT 1").fetchone()
            if row:
                con.execute("UPDATE sessions SET ended_at = ?, end_reason = 'idle' WHERE id = ?", (self.t, row[0]))

    def prune(self) -> None:
        with self.conn() as con:
            ids = [r[0] for r in con.execute("SELECT id FROM sessions WHERE ended_at IS NOT NULL "
                                             "ORDER BY random() LIMIT 3")]
            for sid in ids:
                con.execute("DELETE FROM messages WHERE session_id = ?", (sid,))
                con.execute("DELETE FROM sessions WHERE id = ?", (sid,))

    def vacuum(self) -> None:
        con = self.conn()
        con.execute("VACUUM")
        con.close()


def columns(path) -> frozenset[str]:
    con = sqlite3.connect(path)
    try:
        return frozenset(r[1] for r in con.execute("PRAGMA table_info(sessions)"))
    finally:
        con.close()


def both(path):
    """(cached read, whole read) of the same database."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        cols = columns(path)
        return cache.read(path, con, cols), loaded.read(con, cols)
    finally:
        con.close()


def same(a: loaded.Snapshots, b: loaded.Snapshots) -> bool:
    return a.prompt_source == b.prompt_source and a.sessions == b.sessions


@pytest.mark.parametrize("inline", [False, True], ids=["0.22 table", "0.19 inline"])
@pytest.mark.parametrize("seed", range(12))
def test_a_cached_read_equals_a_whole_read_after_anything_hermes_does(tmp_path, inline, seed):
    rng = random.Random(seed)
    home = Home(tmp_path / "state.db", inline, rng)
    steps = ["new"] * 6 + ["earlier", "turn", "turn", "turn", "end", "end", "prune", "vacuum"]
    done = []
    for _ in range(40):
        step = rng.choice(steps)
        done.append(step)
        {"new": home.new_session, "earlier": lambda: home.new_session(earlier=True), "turn": home.turn,
         "end": home.end, "prune": home.prune, "vacuum": home.vacuum}[step]()
        if rng.random() < 0.6:
            got, whole = both(home.path)
            assert same(got, whole), f"seed {seed}, after {done}"
    got, whole = both(home.path)
    assert same(got, whole), f"seed {seed}, after {done}"


def counting(monkeypatch) -> list:
    parsed: list = []
    real = loaded.parse

    def parse(text):
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(loaded, "parse", parse)
    return parsed


@pytest.mark.parametrize("inline", [False, True], ids=["0.22 table", "0.19 inline"])
def test_an_update_parses_only_the_new_sessions(tmp_path, monkeypatch, inline):
    home = Home(tmp_path / "state.db", inline, random.Random(1))
    for _ in range(30):
        home.new_session()
    with home.conn() as con:  # every session ended: none needs reading again
        con.execute("UPDATE sessions SET ended_at = started_at + 30, system_prompt"
                    + ("" if inline else "_hash") + " = ?", (sha(prompt(["Old."])) if not inline else prompt(["Old."]),))
        if not inline:
            con.execute("INSERT OR IGNORE INTO system_prompts VALUES (?, ?)", (sha(prompt(["Old."])), prompt(["Old."])))
    both(home.path)  # cached
    parsed = counting(monkeypatch)
    with home.conn() as con:
        for k in range(3):
            home.n += 1
            text = prompt([f"New {k}."])
            if inline:
                con.execute("INSERT INTO sessions (id, source, started_at, ended_at, system_prompt) "
                            "VALUES (?, 'cli', ?, ?, ?)", (f"n{k}", 1e10 + k, 1e10 + k + 1, text))
            else:
                con.execute("INSERT INTO system_prompts VALUES (?, ?)", (sha(text), text))
                con.execute("INSERT INTO sessions (id, source, started_at, ended_at, system_prompt_hash) "
                            "VALUES (?, 'cli', ?, ?, ?)", (f"n{k}", 1e10 + k, 1e10 + k + 1, sha(text)))
    con = sqlite3.connect(f"file:{home.path}?mode=ro", uri=True)
    got = cache.read(home.path, con, columns(home.path))
    con.close()
    assert len(parsed) == 3 and [s.id for s in got.sessions[-3:]] == ["n0", "n1", "n2"]
    assert got.sessions[-1].loaded.entries("memory") == ("New 2.",)
    parsed.clear()
    both(home.path)
    assert len(parsed) == 4  # the whole read: its four distinct prompts; the cached read: none


@pytest.mark.parametrize("damage", ["torn", "garbage", "wrong shape", "another file at the path", "empty"])
def test_a_cache_hmc_cant_use_is_read_whole(tmp_path, damage):
    home = Home(tmp_path / "state.db", False, random.Random(3))
    for _ in range(10):
        home.new_session()
    both(home.path)
    path = cache.cache_path(home.path)
    raw = path.read_bytes()
    if damage == "torn":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "garbage":
        path.write_bytes(b"\x00" * 500)
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "wrong shape":
        import marshal

        from core.hmc_cache import frame, framed_body

        obj = marshal.loads(framed_body(raw)[0])
        obj["columns"][0] = [7] * len(obj["columns"][0])  # ids that aren't text
        body = marshal.dumps(obj, 4)
        path.write_bytes(frame(body) + body)
    else:  # a restored backup: another file (inode) at the same path, one session fewer
        with home.conn() as con:
            con.execute("DELETE FROM sessions WHERE id = 's0010'")
        backup = tmp_path / "backup.db"
        src = home.conn()
        dst = sqlite3.connect(backup)
        src.backup(dst)
        src.close(), dst.close()
        backup.replace(home.path)
    got, whole = both(home.path)
    assert same(got, whole) and whole.sessions
    got, whole = both(home.path)  # and the cache written again is good
    assert same(got, whole)


def test_a_cache_folder_that_cant_be_written_costs_only_the_cache(tmp_path, monkeypatch):
    home = Home(tmp_path / "state.db", True, random.Random(4))
    for _ in range(5):
        home.new_session()
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    got, whole = both(home.path)
    assert same(got, whole) and len(got.sessions) == 5
