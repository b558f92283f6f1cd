"""The loaded-memory cache (core.snapshots.cache): after any sequence of what Hermes does to
state.db (new sessions, turns that resume, retitle or fill a session's prompt, ends, pruning,
VACUUM, a replaced file), a cached read equals a whole read; and an update parses only what
changed. Random sequences are seeded; a failure prints its seed."""

from __future__ import annotations

import random
import sqlite3

import pytest

from core.snapshots import cache, loaded
from core.snapshots.tally import Snapshots, Tally
from tests.core.snapshot_fixtures import make_db, prompt, sha

MEMORIES = [("Deploys on Thursdays.",), ("Deploys on Tuesdays.", "VPN key in 1Password."), ()]
USERS = [("Alex",), ("Alex, in Lyon",)]
ENTRIES = {e for group in MEMORIES + USERS for e in group}


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
            odd = self.rng.random()  # the rare shapes, on purpose
            if odd < 0.04:  # a start as ISO text (a hand-made or foreign row)
                row["started_at"] = "2023-11-14T22:13:20"
            elif odd < 0.07:  # no start at all
                row["started_at"] = None
            elif odd < 0.10:  # the same start as the session before: a tie on who came first
                row["started_at"] = self.t - 60
            elif odd < 0.12 and not self.inline and row.get("system_prompt_hash"):  # the hash as a blob
                row["system_prompt_hash"] = row["system_prompt_hash"].encode()
            con.execute(f"INSERT INTO sessions ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                        list(row.values()))
            self.message(con, row["id"])

    def message(self, con, sid: str) -> None:
        self.msg += 1
        self.t += 1
        con.execute("INSERT INTO messages (id, session_id, role, content, timestamp) VALUES (?, ?, 'user', 'hi', ?)",
                    (self.msg, sid, self.t))

    def pick(self, con, where: str = "", n: int = 1) -> list[str]:
        """Up to n sessions chosen by the seeded rng (never SQLite's unseeded random())."""
        ids = [r[0] for r in con.execute(f"SELECT id FROM sessions {where} ORDER BY id")]
        return self.rng.sample(ids, min(n, len(ids)))

    def turn(self, kind: str | None = None) -> None:
        """A turn in an existing session: it may resume it, retitle it, or build its prompt."""
        with self.conn() as con:
            sid = next(iter(self.pick(con)), None)
            if sid is None:
                return
            kind = kind or self.rng.choice(["resume", "title", "prompt", "plain"])
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
            for sid in self.pick(con, "WHERE ended_at IS NULL"):
                con.execute("UPDATE sessions SET ended_at = ?, end_reason = 'idle' WHERE id = ?", (self.t, sid))

    def prune(self) -> None:
        with self.conn() as con:
            for sid in self.pick(con, "WHERE ended_at IS NOT NULL", 3):
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
    """(cached read, whole read) of the same database; the whole read is checked against the
    summary of every session read one by one (Snapshots.of), the slow and obvious way."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        cols = columns(path)
        got, whole = cache.read(path, con, cols), loaded.read(con, cols)
        assert same(whole, Snapshots.of(loaded.sessions(con, cols), whole.prompt_source))
        return got, whole
    finally:
        con.close()


def same(a: Snapshots, b: Snapshots) -> bool:
    """The same answers: the snapshots with how many loaded each and the first, the live sessions
    whole, the entries' loads."""
    return (a.prompt_source, a.known, a.loaders(), a.live) == (b.prompt_source, b.known, b.loaders(), b.live) \
        and all(a.entry_loads(t, ENTRIES) == b.entry_loads(t, ENTRIES) for t in ("memory", "user"))


def whole_reads(monkeypatch) -> list:
    """Records each time a read starts over from the first session."""
    calls: list = []
    real = loaded.Reader.tally

    def tally(self, into, after=0, *args, **kwargs):
        if not after:
            calls.append(after)
        return real(self, into, after, *args, **kwargs)

    monkeypatch.setattr(loaded.Reader, "tally", tally)
    return calls


@pytest.mark.parametrize("inline", [False, True], ids=["0.22 table", "0.19 inline"])
@pytest.mark.parametrize("seed", range(16))
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

    def parse(text, memo=None):
        parsed.append(text)
        return real(text, memo)

    monkeypatch.setattr(loaded, "parse", parse)
    return parsed


@pytest.mark.parametrize("inline", [False, True], ids=["0.22 table", "0.19 inline"])
def test_an_update_parses_only_the_new_sessions(tmp_path, monkeypatch, inline):
    home = Home(tmp_path / "state.db", inline, random.Random(1))
    for _ in range(30):
        home.new_session()
    with home.conn() as con:  # every session ended: none needs reading again
        con.execute("UPDATE sessions SET ended_at = 1700000000.0 + rowid, system_prompt"
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
    assert len(parsed) == 3 and got.known == 33 and not got.live
    loads = got.entry_loads("memory", ["Old.", "New 0.", "New 1.", "New 2."])
    assert [(loads[f"New {k}."].first_session, loads[f"New {k}."].sessions) for k in range(3)] == \
        [("n0", 1), ("n1", 1), ("n2", 1)]
    assert loads["Old."].sessions == 30
    path = cache.cache_path(home.path)
    written = path.read_bytes()
    parsed.clear()
    con = sqlite3.connect(f"file:{home.path}?mode=ro", uri=True)
    again = cache.read(home.path, con, columns(home.path))
    assert len(parsed) == 3 and path.read_bytes() == written  # 3 sessions weren't worth a write: read again
    assert same(again, got)
    monkeypatch.setattr(cache, "WRITE_AFTER", 3)
    cache.read(home.path, con, columns(home.path))  # now they are: written
    assert path.read_bytes() != written
    parsed.clear()
    cache.read(home.path, con, columns(home.path))
    assert not parsed  # nothing new: the cached read parses nothing
    loaded.read(con, columns(home.path))
    con.close()
    assert len(parsed) == 4  # a whole read: each of the four distinct prompts once


def _bad_block(obj):  # a block whose places aren't packed
    at = next(i for i, snap in enumerate(obj["snaps"]) if snap[0] is not None)
    memory, user = obj["snaps"][at]
    obj["snaps"][at] = ((memory[0], (0, 1), *memory[2:]), user)


def _overlapping_runs(obj):
    from array import array

    obj["runs"] = [array("q", [1, 2]).tobytes(), array("q", [5, 5]).tobytes(), array("i", [0, 0]).tobytes()]


def _hash_past_the_catalog(obj):
    from array import array

    obj["hashes"][0].append("x")
    obj["hashes"][1] += array("i", [10_000]).tobytes()


def _start_without_session(obj):
    sids, starts = obj["firsts"]
    sids.append(None), starts.append(1.0), obj["counts"].append(0)
    obj["snaps"].append(obj["snaps"][0])


WRONG_SHAPES = {
    "counts that aren't numbers": lambda obj: obj.update(counts=[str(n) for n in obj["counts"]]),
    "an entry that isn't text": lambda obj: obj["pool"].append(7),
    "a block whose places aren't packed": _bad_block,
    "a block of the wrong store": lambda obj: obj["snaps"].__setitem__(0, tuple(reversed(obj["snaps"][0]))),
    "a hash naming no snapshot": _hash_past_the_catalog,
    "hashes and slots of different lengths": lambda obj: obj["hashes"][0].append("x"),
    "a reason for a hash past the hashes": lambda obj: obj["hashes"][2].update({10_000: "gone"}),
    "a reason for a hash before the first": lambda obj: obj["hashes"][2].update({-1: "gone"}),
    "a reason that isn't text": lambda obj: obj["hashes"][2].update({0: 7}),
    "a first session that isn't text": lambda obj: obj["firsts"][0].__setitem__(0, 7),
    "a start with no first session": _start_without_session,
    "a snapshot counted with no first session": lambda obj: obj["firsts"][0].__setitem__(0, None),
    "overlapping runs": _overlapping_runs,
    "a live session's snapshot past the catalog": lambda obj: obj["live"].__setitem__(9, [10_000] * len(obj["live"][9])),
    "a place past the pool": lambda obj: obj.update(pool=[]),
    "an empty block": lambda obj: obj["snaps"].__setitem__(0, ((), None)),
    "places cut mid-number": lambda obj: obj["snaps"].__setitem__(0, (("memory", b"\x00\x00\x00", 1, 2), None)),
}


@pytest.mark.parametrize("damage", ["torn", "garbage", "another file at the path", "empty", *WRONG_SHAPES])
def test_a_cache_hmc_cant_use_is_read_whole(tmp_path, monkeypatch, damage):
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
    elif damage in WRONG_SHAPES:  # a cache framed as hmc frames it, holding what hmc never writes
        import marshal

        from core.hmc_cache import frame, framed_body

        obj = marshal.loads(framed_body(raw)[0])
        WRONG_SHAPES[damage](obj)
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
    calls = whole_reads(monkeypatch)
    con = sqlite3.connect(f"file:{home.path}?mode=ro", uri=True)
    cache.read(home.path, con, columns(home.path))
    con.close()
    assert calls == [0], "the damaged cache was used"
    got, whole = both(home.path)
    assert same(got, whole) and whole.known
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
    assert same(got, whole) and got.known + len(got.live) >= 5


@pytest.mark.parametrize("inline", [False, True], ids=["0.22 table", "0.19 inline"])
def test_what_a_day_of_use_does_is_followed_without_a_whole_read(tmp_path, monkeypatch, inline):
    """New sessions, a resumed one (the first to load its snapshot), an end, a retitle: the cache
    follows each, and only a deleted settled session (pruning) sends it back to a whole read."""
    home = Home(tmp_path / "state.db", inline, random.Random(7))
    for _ in range(20):
        home.new_session()
    with home.conn() as con:
        con.execute("UPDATE sessions SET ended_at = 1700000000.0 + rowid WHERE ended_at IS NULL")
    both(home.path)
    calls = whole_reads(monkeypatch)
    with home.conn() as con:
        con.execute("UPDATE sessions SET ended_at = NULL WHERE id = 's0001'")  # resumed: the first session
        home.message(con, "s0001")
    for step in (lambda: None, home.new_session, home.end, lambda: home.turn("plain"), lambda: home.turn("title"),
                 lambda: home.turn("resume"), home.new_session):
        step()
        con = sqlite3.connect(f"file:{home.path}?mode=ro", uri=True)
        got = cache.read(home.path, con, columns(home.path))
        con.close()
        assert not calls, "an update read the whole database"
        assert same(got, both(home.path)[1])
        calls.clear()
    home.prune()
    con = sqlite3.connect(f"file:{home.path}?mode=ro", uri=True)
    cache.read(home.path, con, columns(home.path))
    con.close()
    assert calls == [0]  # pruned: read whole, once


def test_a_prompt_row_that_comes_after_its_session_is_read_when_it_comes(tmp_path):
    home = Home(tmp_path / "state.db", False, random.Random(8))
    text = prompt(["Late."])
    with home.conn() as con:
        con.execute("INSERT INTO sessions (id, source, started_at, ended_at, system_prompt_hash) "
                    "VALUES ('late', 'cli', 1e9, 1e9 + 5, ?)", (sha(text),))
    got, whole = both(home.path)
    assert same(got, whole) and got.known == 0 and got.live[0].unknown == loaded.MISSING_ROW
    with home.conn() as con:
        con.execute("INSERT INTO system_prompts VALUES (?, ?)", (sha(text), text))
    got, whole = both(home.path)
    assert same(got, whole) and got.known == 1 and got.entry_loads("memory", ["Late."])["Late."].first_session == "late"


@pytest.mark.parametrize("seed", range(6))
def test_runs_found_by_sqlite_hold_each_settled_session_with_its_snapshot(tmp_path, seed):
    """Reader._tally_by_runs finds the runs in SQL: more runs than one of its queries takes, two
    prompts per snapshot (another day's date line) side by side, ties on the first start, deleted
    rowids and live or odd rows between. Each settled session's slot is the one a row-by-row read
    gives it, neighbouring runs of one snapshot are one run, and the totals are a whole read's."""
    rng = random.Random(seed)
    tails = ["\n\nConversation started: Friday", "\n\nConversation started: Saturday"]
    texts = [prompt(m, u, tail=tail) for m in MEMORIES for u in USERS for tail in tails]
    path = tmp_path / "state.db"
    rows, t = [], 1_700_000_000.0
    for n in range(1, 1500):
        if n % 4 == 0 or rng.random() < 0.1:
            text = rng.choice(texts)  # the memory changed (most stretches are several sessions long)
        elif n == 1:
            text = texts[0]
        t += rng.choice([0.0, 60.0, 60.0, 60.0])  # ties on the start, on purpose
        row = {"id": f"s{rng.randrange(10**6):06d}-{n}", "source": "cli", "started_at": t, "ended_at": t + 5,
               "system_prompt_hash": sha(text)}
        odd = rng.random()
        if odd < 0.03:
            row["ended_at"] = None  # live
        elif odd < 0.05:
            row["system_prompt_hash"] = None  # not built yet
        elif odd < 0.06:
            row["started_at"] = int(t)  # an INTEGER start
        rows.append(row)
    make_db(path, rows, [(sha(x), x) for x in texts]).close()
    with sqlite3.connect(path) as con:
        gone = rng.sample(range(1, 1500), 120)  # deleted rowids: gaps inside runs and between them
        con.executemany("DELETE FROM sessions WHERE rowid = ?", [(r,) for r in gone])
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    cols = columns(path)
    reader = loaded.Reader(con, cols)
    tally = Tally(reader.catalog)
    reader.tally(tally)
    rowids, sessions = loaded.Reader(con, cols, reader.catalog).rows(order="s.rowid")
    expected = {r: reader.catalog.slot(s.loaded) for r, s in zip(rowids, sessions)
                if s.ended_at is not None and s.unknown is None}
    held = {r: tally.runs.get(r) for r in expected}
    assert held == expected, f"seed {seed}"
    assert len(tally.runs) == len(expected), f"seed {seed}: a live or odd row held as settled"
    stretches = sum(1 for a, b in zip([None, *sorted(expected)], sorted(expected))
                    if a is None or b != a + 1 or expected[a] != expected[b])
    assert len(tally.runs.starts) == stretches > loaded._RUNS_PER_QUERY, f"seed {seed}"
    whole = tally.snapshots(reader.source)
    assert same(whole, Snapshots.of(sessions, whole.prompt_source)), f"seed {seed}"
    con.close()
