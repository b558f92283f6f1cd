"""core.timeline on hand-built state.db files: the three read routes agree, hostile rows are skipped
and counted, the cache is reused only when it is this database's, and snapshots, hmc's journal and
failed replays show up as what they are. (Recorded-by-the-release tests: tests/conformance/test_timeline.py.)"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
from datetime import date, datetime, timezone
from pathlib import Path

import pytest

from core.curator import open_curator
from core.sessions.db import DatabaseError
from core.sessions.memory_calls import Call
from core.store.memory import Op
from core.timeline import build_timeline
from core.timeline import cache as tl_cache

T0 = 1_790_000_000.0


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


class Db:
    """A small state.db in one of the FTS layouts (none, inline: one column, current: columns)."""

    def __init__(self, path: Path, layout: str = "current"):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(path)
        con.executescript("""
            CREATE TABLE schema_version(version INTEGER NOT NULL);
            INSERT INTO schema_version VALUES (22);
            CREATE TABLE sessions(id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL);
            CREATE TABLE messages(id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,
                content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL);
            CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
        """)
        if layout == "inline":
            con.executescript("""
                CREATE VIRTUAL TABLE messages_fts USING fts5(content);
                CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
                  INSERT INTO messages_fts(rowid, content) VALUES (new.id, COALESCE(new.content, '') || ' ' ||
                    COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, ''));
                END;
                CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
                  DELETE FROM messages_fts WHERE rowid = old.id;
                END;""")
        elif layout == "current":
            con.executescript("""
                CREATE VIRTUAL TABLE messages_fts USING fts5(content, tool_name, tool_calls);
                CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
                  INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
                  VALUES (new.id, new.content, new.tool_name, new.tool_calls);
                END;
                CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
                  DELETE FROM messages_fts WHERE rowid = old.id;
                END;""")
        con.commit()
        con.close()
        self.minute = 0
        self.n = 0

    def _insert(self, rows: list[tuple]) -> list[int]:
        con = sqlite3.connect(self.path)
        ids = []
        with con:
            for row in rows:
                cur = con.execute("INSERT INTO messages(session_id, role, content, tool_call_id, tool_calls, tool_name, "
                                  "timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)", row)
                ids.append(cur.lastrowid)
        con.close()
        return ids

    def session(self, sid: str, source: str = "cli") -> None:
        con = sqlite3.connect(self.path)
        with con:
            con.execute("INSERT INTO sessions VALUES (?, ?, ?)", (sid, source, T0))
        con.close()

    def call(self, sid: str, args, result=None, *, name: str = "memory", flat: bool = False, call_id: str | None = "",
             tool_name: str | None = "memory", raw_calls: str | None = None) -> list[int]:
        """An assistant call and its result (success unless `result` says otherwise)."""
        self.minute += 1
        self.n += 1
        ts = T0 + 60 * self.minute
        cid = f"c{self.n}" if call_id == "" else call_id
        arguments = args if isinstance(args, str) else json.dumps(args)
        call = ({"name": name, "arguments": arguments} if flat else
                {"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}})
        if flat and cid:
            call["id"] = cid
        tool_calls = raw_calls if raw_calls is not None else json.dumps([call])
        content = result if isinstance(result, str) else json.dumps(result or {"success": True, "done": True})
        return self._insert([(sid, "assistant", "", None, tool_calls, None, ts),
                             (sid, "tool", content, cid, None, tool_name, ts)])

    def chat(self, sid: str, n: int) -> None:
        self.minute += 1
        self._insert([(sid, "user", f"hello memory {i}", None, None, None, T0 + 60 * self.minute) for i in range(n)])

    def when(self, minute: int) -> float:
        return T0 + 60 * minute


def make_home(tmp_path: Path, layout: str = "current", memory: str | None = None) -> tuple[Path, Db]:
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    (home / "config.yaml").write_text("memory:\n  memory_enabled: true\n", encoding="utf-8")
    if memory is not None:
        (home / "memories" / "MEMORY.md").write_text(memory, encoding="utf-8")
    return home, Db(home / "state.db", layout)


def write_files(home: Path, memory: list[str], user: list[str] | None = None) -> None:
    (home / "memories" / "MEMORY.md").write_text("\n§\n".join(memory), encoding="utf-8")
    if user is not None:
        (home / "memories" / "USER.md").write_text("\n§\n".join(user), encoding="utf-8")


def timeline(home: Path, **kw):
    curator = open_curator(home, None, date(2026, 10, 1))
    return curator, build_timeline(curator, **kw)


def add(content, target="memory"):
    return {"action": "add", "target": target, "content": content}


@pytest.mark.parametrize("layout", ["none", "inline", "current"])
def test_every_route_reads_the_same_writes(tmp_path, layout):
    home, db = make_home(tmp_path, layout)
    db.session("s1", "telegram")
    db.call("s1", add("alpha"))
    db.chat("s1", 5)
    db.call("s1", {"action": "replace", "target": "memory", "old_text": "alp", "content": "alpha two"})
    db.call("s1", add("about me", "user"))
    write_files(home, ["alpha two"], ["about me"])
    _, tl = timeline(home)
    assert tl.stats["route"] == {"none": "scan", "inline": "fts", "current": "fts-columns"}[layout]
    assert [(w.id, w.action, w.source) for w in tl.log()] == [("m2", "add", "telegram"), ("m9", "replace", "telegram"),
                                                              ("m11", "add", "telegram")]
    assert tl.divergences == []
    assert [(b.text, b.origin.id, b.first_seen.id, b.revisions) for b in tl.blame()] == [
        ("alpha two", "m9", "m2", 2), ("about me", "m11", "m11", 1)]


def test_hostile_rows_are_skipped_and_counted(tmp_path):
    home, db = make_home(tmp_path)
    db.session("s")
    db.call("s", add("good one"))
    db.call("s", "{not json")
    db.call("s", json.dumps({"action": "add", "content": "x" * 300_000}))
    db.call("s", add("not the memory tool"), name="memory_search")
    db.call("s", add("nor this"), name="Memory")
    db.call("s", "[1, 2]")
    db.call("s", {"action": "add", "target": "elsewhere", "content": "bad target"})
    db.call("s", {"action": "explode", "content": "bad action"})
    db.call("s", {"target": "memory", "operations": "not a list"})
    db.call("s", {"action": "add", "content": 42})
    db.call("s", add("x"), raw_calls='{broken "memory"')
    db.call("s", add("x"), raw_calls=json.dumps({"name": "memory"}))
    db.call("s", add("result is not json"), result="<html>oops</html>")
    db.call("s", add("a refusal"), result={"success": False, "error": "Memory at 2,200/2,200 chars."})
    db.call("s", add("staged"), result={"success": True, "staged": True, "pending_id": "p1"})
    db.call("s", add("deep"), result="[" * 100_000)
    db.call("s", add("x"), raw_calls=json.dumps([{"function": {"name": "memory", "arguments": "{}"}}] * 200_000))
    db.call("s", add("good two"))
    write_files(home, ["good one", "good two"])
    _, tl = timeline(home)
    assert [w.content for w in tl.log()] == ["good one", "good two"]
    assert tl.stats["skipped"] == {"malformed arguments": 6, "oversized arguments": 1, "oversized tool_calls": 1,
                                   "other tools named like memory": 2, "tool_calls that aren't JSON": 1,
                                   "tool_calls that aren't a list": 1}
    assert tl.stats["ignored"] == {"result unreadable": 2, "failed": 1, "staged for approval": 1}
    assert tl.divergences == []


def test_calls_without_ids_and_results_without_a_tool_name(tmp_path):
    home, db = make_home(tmp_path)
    db.session("s")
    db.call("s", add("flat, no id"), flat=True, call_id=None)
    db.call("s", add("no tool_name on the result"), tool_name=None)
    db.call("s", add("flat with id"), flat=True)
    write_files(home, ["flat, no id", "no tool_name on the result", "flat with id"])
    _, tl = timeline(home)
    assert [w.content for w in tl.log()] == ["flat, no id", "no tool_name on the result", "flat with id"]
    assert tl.divergences == []


def test_the_cache_reads_only_new_messages(tmp_path):
    home, db = make_home(tmp_path)
    db.session("s")
    db.call("s", add("one"))
    write_files(home, ["one"])
    _, tl = timeline(home)
    assert tl.stats["cache"] == "rebuilt" and tl.stats["new_messages_from"] == 0
    path = tl_cache.cache_path(db.path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    _, tl = timeline(home)
    assert tl.stats["cache"] == "hit" and tl.stats["new_messages_from"] == 2
    db.chat("s", 3)
    db.call("s", add("two"))
    write_files(home, ["one", "two"])
    _, tl = timeline(home)
    assert tl.stats["cache"] == "hit" and tl.stats["new_messages_from"] == 2
    assert [w.content for w in tl.log()] == ["one", "two"]
    _, cold = timeline(home, cache=False)
    assert [w.to_json() for w in cold.log()] == [w.to_json() for w in tl.log()]


def test_an_update_replays_only_what_is_new_and_agrees_with_a_full_replay(tmp_path):
    home, db = make_home(tmp_path)
    db.session("s")
    db.call("s", add("one"))
    db.call("s", {"action": "replace", "target": "memory", "old_text": "one", "content": "one, revised"})
    write_files(home, ["one, revised"])
    curator, tl = timeline(home)
    assert tl.stats["replayed"] == "all" and tl.stats["saved"]
    db.call("s", add("two"))
    write_files(home, ["one, revised", "two"])
    curator.clock = curator.history.clock = lambda: db.when(db.minute + 1)
    curator.stores["memory"].apply([Op("add", content="three by hmc")])
    (home / "memories" / "MEMORY.md").write_text("one, revised\n§\ntwo\n§\nthree by hmc\n§\nby hand", encoding="utf-8")
    _, tl = timeline(home)
    assert tl.stats["replayed"] == "new" and "saved" not in tl.stats
    _, full = timeline(home, cache=False)
    assert [w.to_json() for w in tl.log()] == [w.to_json() for w in full.log()]
    assert [b.to_json() for b in tl.blame()] == [b.to_json() for b in full.blame()]
    assert tl.divergences == full.divergences
    assert [w.by for w in tl.log()] == ["agent", "agent", "agent", "hmc", "unknown"]
    # an hmc write dated before the replay's last event can't be appended: everything is replayed
    curator.clock = curator.history.clock = lambda: T0
    curator.stores["memory"].apply([Op("add", content="dated long ago")])
    _, tl = timeline(home)
    assert tl.stats["replayed"] == "all"
    _, full = timeline(home, cache=False)
    assert [w.to_json() for w in tl.log()] == [w.to_json() for w in full.log()]


def test_updates_saved_one_after_another_agree_with_a_full_replay(tmp_path, monkeypatch):
    from core.timeline import history

    monkeypatch.setattr(history, "SAVE_AFTER_EVENTS", 0)  # every update saves its replay
    home, db = make_home(tmp_path)
    db.session("s")
    db.call("s", add("one"))
    db.call("s", add("about me", "user"))
    write_files(home, ["one"], ["about me"])
    timeline(home)
    for i in range(3):
        db.call("s", {"action": "replace", "target": "memory", "old_text": "one", "content": f"one v{i}"})
        db.call("s", add(f"user fact {i}", "user"))
        db.call("s", add(f"memory fact {i}"))
        write_files(home, [f"one v{i}"] + [f"memory fact {j}" for j in range(i + 1)],
                    ["about me"] + [f"user fact {j}" for j in range(i + 1)])
        _, tl = timeline(home)
        assert tl.stats["replayed"] == "new" and tl.stats["saved"]
        _, full = timeline(home, cache=False)
        assert [w.to_json() for w in tl.writes] == [w.to_json() for w in full.writes]
        assert [(w.before, w.after) for w in tl.writes] == [(w.before, w.after) for w in full.writes]
        assert [b.to_json() for b in tl.blame()] == [b.to_json() for b in full.blame()]
    assert tl.writes[-1].id == full.writes[-1].id and len(tl.writes) == len(full.writes) == 11
    assert tl.blame("memory")[0].revisions == 4


def test_a_call_whose_result_comes_in_a_later_run(tmp_path):
    home, db = make_home(tmp_path)
    db.session("s")
    db._insert([("s", "assistant", "", None, json.dumps([{"id": "late", "type": "function", "function": {
        "name": "memory", "arguments": json.dumps(add("late one"))}}]), None, T0 + 60)])
    _, tl = timeline(home)
    assert tl.log() == [] and len(tl_cache.load(db.path, sqlite3.connect(db.path))[0].open) == 1
    db._insert([("s", "tool", json.dumps({"success": True}), "late", None, "memory", T0 + 61)])
    write_files(home, ["late one"])
    _, tl = timeline(home)
    assert tl.stats["cache"] == "hit" and [w.content for w in tl.log()] == ["late one"]


def cache_body(path: Path) -> dict:
    return tl_cache.decode(path.read_bytes())


def cache_with_calls(db_path: Path) -> None:
    """Rewrite the cache as a checkpoint leaves it: the calls kept in the calls file, no replay."""
    from core.sessions.db import ReadOnlyConnections, probe
    from core.sessions.memory_calls import Harvest, read_calls

    conns = ReadOnlyConnections(db_path)
    try:
        conn = conns.get()
        harvest = Harvest()
        read_calls(conn, probe(conn, db_path), harvest)
        assert tl_cache.save(db_path, conn, harvest, None) is None
    finally:
        conns.close()


def write_cache(path: Path, obj: dict, digest: bool = True) -> None:
    """Write `obj` as the cache holds it; digest=False keeps the old file's digest line (an edit)."""
    data = tl_cache.encode(obj)
    if not digest:
        data = path.read_bytes().split(b"\n", 1)[0] + data[data.index(b"\n"):]
    path.write_bytes(data)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "edited", "foreign", "wrong types", "bad replay",
                                    "calls file changed", "rewound", "replaced"])
def test_a_cache_that_isnt_this_databases_is_rebuilt(tmp_path, damage):
    home, db = make_home(tmp_path)
    db.session("s")
    db.call("s", add("one"))
    db.call("s", add("two"))
    write_files(home, ["one", "two"])
    timeline(home)
    path = tl_cache.cache_path(db.path)
    data = cache_body(path)
    if damage == "garbage":
        path.write_bytes(b"\x00\xff not json")
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:40])
    elif damage == "edited":  # the digest no longer matches
        data["calls"] = []
        write_cache(path, data, digest=False)
    elif damage == "foreign":
        data["db"]["ino"] += 1
        data["calls"] = []
        write_cache(path, data)
    elif damage == "wrong types":  # calls that don't parse, and no replay to continue: read again
        cache_with_calls(db.path)
        data = cache_body(path)
        calls_file = tl_cache.calls_path(path)
        calls = json.loads(calls_file.read_bytes())
        calls[0][Call._fields.index("target")] = "elsewhere"  # each call is an array of its fields
        calls_file.write_bytes(json.dumps(calls).encode())
        data["calls_digest"] = hashlib.sha256(calls_file.read_bytes()).hexdigest()
        data["replay"] = None
        write_cache(path, data)
    elif damage == "calls file changed":  # no longer the calls the main file names: read again
        cache_with_calls(db.path)
        data = cache_body(path)
        tl_cache.calls_path(path).write_bytes(b"[]")
        data["replay"] = None
        write_cache(path, data)
    elif damage == "bad replay":  # a replay state that doesn't hold together: read and replayed again
        data["replay"]["writes"][0] = ("not", "a", b"write")
        write_cache(path, data)
    elif damage == "rewound":  # the last message the cache covered is gone; a new one has its id
        con = sqlite3.connect(db.path)
        with con:
            con.execute("DELETE FROM messages WHERE id = 4")
            con.execute("UPDATE sqlite_sequence SET seq = 3 WHERE name = 'messages'")
        con.close()
        db.call("s", add("three"))
        write_files(home, ["one", "three"])
    elif damage == "replaced":
        os.unlink(db.path)
        db = Db(db.path)
        db.session("s")
        db.call("s", add("other"))
        write_files(home, ["other"])
    _, tl = timeline(home)
    assert tl.stats["cache"] == "rebuilt"
    assert tl.stats["replayed"] == "all"
    expected = {"rewound": ["one", "three"], "replaced": ["other"]}.get(damage, ["one", "two"])
    assert [w.content for w in tl.log()] == expected
    assert tl.divergences == []


def test_a_finished_build_keeps_no_calls_file_and_a_replay_from_the_start_reads_the_db_again(tmp_path):
    """The calls are in the replay's state once it consumed them all; when the replay must start
    over (here a snapshot older than the replayed writes appears) state.db is read again."""
    home, db = make_home(tmp_path)
    db.session("s")
    for text in ("one", "two", "three"):
        db.call("s", add(text))
    write_files(home, ["one", "two", "three"])
    _, first = timeline(home)
    path = tl_cache.cache_path(db.path)
    assert first.stats["cache"] == "rebuilt" and not tl_cache.calls_path(path).exists()
    assert cache_body(path)["calls_digest"] is None and cache_body(path)["n_calls"] == 3
    _, hit = timeline(home)
    assert hit.stats["cache"] == "hit" and hit.stats["replayed"] == "new"
    (home / "memories" / f"MEMORY.md.bak.{int(db.when(1)) + 30}").write_text("one\n§\nby hand", encoding="utf-8")
    _, again = timeline(home)
    assert again.stats["cache"] == "rebuilt" and again.stats["replayed"] == "all"
    _, fresh = timeline(home, cache=False)
    assert [(w.id, w.changes) for w in again.writes] == [(w.id, w.changes) for w in fresh.writes]
    assert [w.by for w in again.writes][:2] == ["agent", "unknown"]
    assert not tl_cache.calls_path(path).exists()


def test_an_update_reads_on_by_id_without_probing_the_schema_again(tmp_path, monkeypatch):
    import core.sessions.db as sessions_db

    home, db = make_home(tmp_path)
    db.session("s")
    db.call("s", add("one"))
    write_files(home, ["one"])
    _, first = timeline(home)
    assert first.stats["route"] == "fts-columns"
    probed = []
    real = sessions_db.probe
    monkeypatch.setattr(sessions_db, "probe", lambda *a: probed.append(a) or real(*a))
    db.session("t", "discord")
    db.call("t", add("two"))
    write_files(home, ["one", "two"])
    _, tl = timeline(home)
    assert tl.stats["cache"] == "hit" and tl.stats["route"] == "ids"
    assert [(w.content, w.source) for w in tl.log()] == [("one", "cli"), ("two", "discord")]
    on_hit = len(probed)  # opening the home probes too (the release's detection)
    tl_cache.cache_path(db.path).unlink()
    _, cold = timeline(home)
    assert cold.stats["route"] == "fts-columns" and len(probed) == 2 * on_hit + 1


def test_the_cache_is_written_without_fsync(tmp_path, monkeypatch):
    """A cache lost in a crash is rebuilt (its digest catches a torn one): its writes stay atomic
    (a rename) but skip the fsyncs that make hmc's own writes durable."""
    home, db = make_home(tmp_path)
    db.session("s")
    db.call("s", add("one"))
    write_files(home, ["one"])
    timeline(home)  # the cache's folders made (durably, once)
    tl_cache.cache_path(db.path).unlink()
    synced = []
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd))
    _, tl = timeline(home)
    assert tl.stats.get("saved") and tl_cache.cache_path(db.path).exists()
    assert synced == []


def test_snapshots_and_hmc_writes_take_their_place(tmp_path):
    home, db = make_home(tmp_path)
    db.session("s")
    db.call("s", add("agent one"))  # minute 1
    # a person added an entry, then Hermes found drift at minute 3 and saved a snapshot
    (home / "memories" / f"MEMORY.md.bak.{int(db.when(3))}").write_text("agent one\n§\nby hand\n\n", encoding="utf-8")
    db.minute = 4
    db.call("s", add("agent two"))  # minute 5
    write_files(home, ["agent one", "by hand", "agent two"])
    curator, _ = timeline(home)
    curator.clock = lambda: db.when(10)
    curator.history.clock = lambda: db.when(10)
    curator.stores["memory"].apply([Op("replace", old_text="by hand", content="by hmc")])
    _, tl = timeline(home)
    assert [(w.by, w.action) for w in tl.log()] == [("agent", "add"), ("unknown", "outside"), ("agent", "add"),
                                                    ("hmc", "replace")]
    assert tl.state_at(db.when(3) + 1)["memory"] == ("agent one", "by hand")
    assert tl.state_at(db.when(2))["memory"] == ("agent one",)
    blame = {b.text: b for b in tl.blame("memory")}
    assert blame["by hmc"].origin.by == "hmc" and blame["by hmc"].first_seen.by == "unknown"
    assert blame["by hmc"].revisions == 2
    assert [d.detail for d in tl.divergences] == [
        f"the snapshot MEMORY.md.bak.{int(db.when(3))} shows changes no recorded write explains (1 added)"]
    dt = datetime.fromtimestamp(db.when(3) + 1, timezone.utc)
    assert tl.state_at(dt) == tl.state_at(db.when(3) + 1)


def test_a_replay_that_fails_says_where(tmp_path):
    home, db = make_home(tmp_path, memory="written before any session")
    db.session("s")
    ids = db.call("s", {"action": "replace", "target": "memory", "old_text": "before", "content": "rewritten"})
    write_files(home, ["rewritten"])
    _, tl = timeline(home)
    assert [(d.write_id, d.detail.split(":")[0]) for d in tl.divergences] == [
        (f"m{ids[1]}", "the release reported success, but replayed on the store as hmc rebuilt it the call fails"),
        (None, "MEMORY.md as it is now shows changes no recorded write explains (1 added)")]
    assert tl.log()[0].note.startswith("the release reported success")
    assert tl.blame("memory")[0].origin is None


def test_no_state_db_and_a_damaged_one(tmp_path):
    home, db = make_home(tmp_path)
    os.unlink(db.path)
    write_files(home, ["only by hand"])
    _, tl = timeline(home)
    assert tl.stats["route"] is None and [w.by for w in tl.log()] == ["unknown"]
    db.path.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    with pytest.raises(DatabaseError):
        timeline(home)


# -- memory mode's o: an entry's origin is the write its blame names (core.timeline.view.origin_of) --


@pytest.mark.parametrize("layout", ["none", "inline", "current"])
def test_an_entrys_origin_is_the_memory_call_that_wrote_it(tmp_path, layout):
    from core.sessions.search import SessionDB
    from core.timeline.view import NO_CALL, origin_of

    entry = "User deploys the staging server with deploy.sh on Fridays"
    hand = "An entry that nobody ever wrote down anywhere"
    home, db = make_home(tmp_path, layout)
    db.session("s-cli", "cli")
    db.chat("s-cli", 3)
    ids = db.call("s-cli", add(entry))
    db.chat("s-cli", 2)
    write_files(home, [entry, hand])
    _, tl = timeline(home)
    origin = origin_of(tl, entry)
    w = origin.write
    assert w is not None and w.by == "agent" and origin.why is None
    assert (w.session_id, w.message_id, w.source) == ("s-cli", ids[0], "cli")  # the assistant message that called
    sessions = SessionDB(db.path)
    assert "memory" in sessions.message(w.message_id).tool_call_names()
    sessions.close()
    assert origin_of(tl, entry, "memory") == origin and origin_of(tl, entry, "user").write is None  # the other store
    assert origin_of(tl, hand) == origin_of(tl, hand, "memory") and origin_of(tl, hand).why == NO_CALL
    assert origin_of(tl, "").write is None and "not an entry" in origin_of(tl, "").why


def test_an_origin_is_never_a_call_that_failed_or_was_only_staged(tmp_path):
    from core.timeline.view import NO_CALL, origin_of

    refused = "Deploy key lives in ~/.ssh/deploy_key for tideway-prod"
    staged = "Release notes go to the #releases channel every Friday"
    kept = "Invoice PDFs are rendered with WeasyPrint in tideway"
    blocked = {"success": False, "error": "Blocked: matches threat pattern 'ssh_access'"}
    home, db = make_home(tmp_path / "a")
    db.session("s-1", "cli")
    db.call("s-1", add(refused), blocked)
    staging = db.call("s-1", add(staged), {"success": True, "staged": True, "pending_id": "a1b2c3d4"})
    written = db.call("s-1", {"action": "batch", "target": "memory", "operations": [{"action": "add", "content": kept}]})
    write_files(home, [kept, refused, staged])  # the refused one typed by hand, the staged one approved in Hermes
    _, tl = timeline(home)
    assert origin_of(tl, refused).why == NO_CALL  # the scanner refused it: the agent didn't write it
    # staged for approval, its record gone and its text in the file: approved in Hermes, the staging call's
    approved = origin_of(tl, staged).write
    assert approved.message_id == staging[0] and approved.detail.endswith("approved in Hermes")
    assert origin_of(tl, kept).write.message_id == written[0]
    home, db = make_home(tmp_path / "b")
    db.session("s-1", "cli")
    db.call("s-1", add(refused), blocked)
    later = db.call("s-1", add(refused))  # written later after all: that call is the origin
    write_files(home, [refused])
    _, tl = timeline(home)
    assert origin_of(tl, refused).write.message_id == later[0]


def test_an_origin_hmc_wrote_says_so(tmp_path):
    from core.timeline.view import origin_of

    home, db = make_home(tmp_path)
    db.session("s-1", "cli")
    db.call("s-1", add("Deploys go through staging"))
    write_files(home, ["Deploys go through staging"])
    curator, _ = timeline(home)
    curator.stores["memory"].apply([Op("replace", content="Deploys go through staging, then canary",
                                       old_text="staging")], action="edit")
    _, tl = timeline(home)
    origin = origin_of(tl, "Deploys go through staging, then canary", now=T0)
    assert origin.write is None and origin.why.startswith("hmc wrote this text (edit, ")
    assert "i shows the entry's history" in origin.why


def test_the_cache_folder_follows_the_environment(tmp_path, monkeypatch):
    """platformdirs is asked once per environment (it costs more than an update's other lookups)."""
    for name in ("a", "b", "a"):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / name))
        assert tl_cache.cache_root() == tmp_path / name / "hmc" / "timeline"
