"""The demo home is a 0.22.2 home: its state.db's sqlite_master equals what 0.22.2's own SessionDB
creates on an empty HERMES_HOME, the release opens it without changing it and its search finds
there what hmc finds; every memory call of the story gets, from the release's memory tool, the
result the demo recorded; every pending record is the one the release stages from the same call.

Only 0.22.2 can answer (and 0.20.1 for the one record it staged); other releases are n/a.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from core.demo import build as demo
from core.demo import layout
from core.sessions.search import ROLES, SessionDB
from tests.conformance.hmc_side import release_of

pytestmark = pytest.mark.area("sessions")

# word, phrase, prefix, boolean and CJK (trigram) queries that all hit the demo; on interactive
# sources, as test_sessions.py compares (hmc's extra default exclusions are deviations)
QUERIES = ["alembic", "pnpm", '"rate limit"', "deplo*", "docker OR podman", "invoice NOT export",
           "数据库", "Postgres", "zanzibarquux", "webhook signature", "nothing-matches-this"]
INTERACTIVE = ["cli", "telegram", "discord"]


def _only_022(oracle) -> None:
    if release_of(oracle).name != "0.22.2":
        pytest.skip(f"hermes {release_of(oracle).name} can't answer: the demo is in 0.22.2's layout")


def master(db_path: Path) -> list[tuple[str, str, str, str | None]]:
    """sqlite_master as (type, name, table, sql with whitespace runs made one space), sorted."""
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    finally:
        con.close()
    return sorted((t, n, tb, None if sql is None else re.sub(r"\s+", " ", sql).strip()) for t, n, tb, sql in rows)


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory) -> Path:
    return demo.build_demo_home(tmp_path_factory.mktemp("demo") / "hermes")


def test_the_demo_layout_is_the_releases(oracle, make_home, demo_home):
    _only_022(oracle)
    fresh = make_home()
    out = oracle.sessions(fresh)  # the release's SessionDB on an empty home, nothing else
    assert out["schema_version"] == layout.SCHEMA_VERSION == demo.SCHEMA_VERSION
    theirs, ours = master(fresh / "state.db"), master(demo_home / "state.db")
    assert [r[:3] for r in ours] == [r[:3] for r in theirs]
    for a, b in zip(ours, theirs):
        assert a == b, a[1]
    con = sqlite3.connect(f"file:{demo_home / 'state.db'}?mode=ro", uri=True)
    try:
        assert con.execute("SELECT version FROM schema_version").fetchall() == [(31,)]
        keys = [k for (k,) in con.execute("SELECT key FROM state_meta ORDER BY rowid")]
    finally:
        con.close()
    fresh_con = sqlite3.connect(f"file:{fresh / 'state.db'}?mode=ro", uri=True)
    try:
        # + the key the release's auto-prune writes at a start-up (maybe_auto_prune_and_vacuum): the
        # demo records a run the day before
        assert keys == [k for (k,) in fresh_con.execute("SELECT key FROM state_meta ORDER BY rowid")] \
            + ["last_auto_prune"]
    finally:
        fresh_con.close()


def test_the_release_opens_the_demo_as_is_and_finds_what_hmc_finds(oracle, make_home, demo_home):
    _only_022(oracle)
    home = make_home()
    shutil.copy2(demo_home / "state.db", home / "state.db")
    before = master(home / "state.db")
    out = oracle.sessions(home, search=[{"query": q, "source_filter": INTERACTIVE, "limit": 50}
                                        for q in QUERIES])
    assert master(home / "state.db") == before  # no migration, no repair: already its layout
    db = SessionDB(home / "state.db", release=release_of(oracle))
    try:
        total = 0
        for q, res in zip(QUERIES, out["search"]):
            assert res.get("raised") is None, (q, res)
            theirs = [h["id"] for h in res["hits"]]
            ours = [h.message_id for h in db.search(q, sources=INTERACTIVE, include_hidden=True, roles=ROLES,
                                                     limit=50).hits]
            assert ours == theirs, q
            total += len(theirs)
        assert total > 50  # the queries did find things
    finally:
        db.close()


def test_the_releases_display_columns_match_the_demos(oracle, make_home, demo_home):
    """The release, asked for a story session's transcript, returns the rows hmc's demo wrote, with the
    uids the demo minted (its read path backfills nothing: identity and order are already set)."""
    _only_022(oracle)
    home = make_home()
    shutil.copy2(demo_home / "state.db", home / "state.db")
    con = sqlite3.connect(home / "state.db")
    try:
        (sid,) = con.execute("SELECT session_id FROM messages WHERE tool_name = 'memory' LIMIT 1").fetchone()
        rows = con.execute("SELECT id, message_uid, display_identity, display_order FROM messages "
                           "WHERE session_id = ? AND active = 1 ORDER BY id", (sid,)).fetchall()
    finally:
        con.close()
    out = oracle.sessions(home, get=[{"session_id": sid}])
    got = out["get"][0]["rows"]
    assert [(r["id"], r["message_uid"]) for r in got] == [(i, uid) for i, uid, _, _ in rows]
    con = sqlite3.connect(home / "state.db")
    try:
        after = con.execute("SELECT id, message_uid, display_identity, display_order FROM messages "
                            "WHERE session_id = ? AND active = 1 ORDER BY id", (sid,)).fetchall()
    finally:
        con.close()
    assert after == rows


# ── the memory story and the staged records, against the release's own memory tool ──

def _story_calls(db_path: Path) -> list[tuple[dict, dict]]:
    """(arguments, the demo's tool result) of every memory call in state.db, in order."""
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        out = []
        for mid, calls in con.execute("SELECT id, tool_calls FROM messages WHERE role = 'assistant' AND "
                                      "tool_calls LIKE '%\"memory\"%' ORDER BY id"):
            for call in json.loads(calls):
                if call["function"]["name"] == "memory":
                    (result,) = con.execute("SELECT content FROM messages WHERE id > ? AND role = 'tool' AND "
                                            "tool_call_id = ?", (mid, call["id"])).fetchone()
                    out.append((json.loads(call["function"]["arguments"]), json.loads(result)))
        return out
    finally:
        con.close()


@pytest.mark.area("ops")
def test_the_story_is_what_the_releases_memory_tool_answers(oracle, make_home, demo_home):
    """Every memory call the demo's sessions made, replayed through 0.22.2's memory tool in order:
    each tool result the demo recorded is the release's, word for word (the one staged call is the
    pending `batch` record, below), and the release ends with the demo's files minus the two
    entries the user added by hand after its scanner refused them."""
    _only_022(oracle)
    home = make_home()
    calls = _story_calls(demo_home / "state.db")
    # what landed, and the record approved in Hermes applied in its place (an hour after it was staged)
    landed = [(args, result) for args, result in calls if not result.get("staged")
              or result.get("pending_id") == demo.C.APPROVED_IN_HERMES_ID]
    assert len(calls) - len(landed) == 1 and {a.get("action") for a, _ in landed} >= {"add", "patch", "remove"}
    # the background review's add, where it came (after the Vite session, before the next memory call)
    relative = next(e.text for e in demo.demo_entries() if e.how == "review")
    at = next(i for i, (args, _) in enumerate(landed) if "Rich markup" in json.dumps(args, ensure_ascii=False))
    landed.insert(at, ({"action": "add", "target": "memory", "content": relative}, {"staged": True}))
    out = oracle.apply_ops(home, [args for args, _ in landed])
    assert len(out["results"]) == len(landed)
    for (args, ours), theirs in zip(landed, out["results"]):
        if not ours.get("staged"):
            assert theirs["result"] == ours, args
    for target, name in (("memory", "MEMORY.md"), ("user", "USER.md")):
        kept = [e.text for e in demo.demo_entries() if e.target == target and e.how != "hand"]
        assert out["files"][name].decode("utf-8") == "\n§\n".join(kept)


def _home_as_staged(make_home, demo_home: Path, swap: dict[str, str] | None = None) -> Path:
    """A home with the demo's memory files (entries swapped back as they were when a record was
    staged), write approval on."""
    files = {}
    for name in ("MEMORY.md", "USER.md"):
        text = (demo_home / "memories" / name).read_text(encoding="utf-8")
        for now, then in (swap or {}).items():
            text = text.replace(now, then)
        files[name] = text.encode("utf-8")
    return make_home(memory=files["MEMORY.md"], user=files["USER.md"],
                     config="memory:\n  write_approval: true\n")


def _call_of(record: dict) -> dict:
    """The memory_tool call that stages this record (the payload minus the pins the tool adds)."""
    p = record["payload"]
    if p["action"] == "batch":
        return {"target": p["target"], "operations": [{k: v for k, v in o.items() if k != "matched_entry"}
                                                      for o in p["operations"]], "origin": record["origin"]}
    return {k: v for k, v in p.items() if k != "matched_entry" and v is not None} | {"origin": record["origin"]}


@pytest.mark.area("pending")
def test_the_staged_records_are_what_the_release_stages(oracle, make_home, demo_home):
    """Each 0.22.2-era record of the demo, staged again by the release from the same call on the
    memory as it was then: the same record but for its id and time (0.22.2 pins destructive
    writes). The unpinned replace is 0.20.1's (next test)."""
    _only_022(oracle)
    by_id = {r["id"]: r for _, r in demo.pending_records() if r["subsystem"] == "memory"}
    for key, pid in demo.PENDING_IDS.items():
        if key == "replace_unpinned":
            continue
        ours = by_id[pid]
        swap = {demo.C.memory_entries(demo.DEMO_TODAY)[2][1]: demo.C.OLD_MACHINE} if key == "stale_pin" else None
        home = _home_as_staged(make_home, demo_home, swap)
        out = oracle.stage(home, [_call_of(ours)])
        assert len(out["records"]) == 1, (key, out["results"])
        theirs = out["records"][0]
        assert {k: v for k, v in theirs.items() if k not in ("id", "created_at")} == \
            {k: v for k, v in ours.items() if k not in ("id", "created_at")}, key
        assert list(theirs) == list(ours) and list(theirs["payload"]) == list(ours["payload"]), key


@pytest.mark.area("pending")
def test_the_unpinned_record_is_what_0_20_1_staged(oracle, make_home, demo_home):
    if release_of(oracle).name != "0.20.1":
        pytest.skip(f"hermes {release_of(oracle).name} can't answer: the unpinned record is 0.20.1's")
    ours = next(r for _, r in demo.pending_records() if r["id"] == demo.PENDING_IDS["replace_unpinned"])
    out = oracle.stage(_home_as_staged(make_home, demo_home), [_call_of(ours)])
    (theirs,) = out["records"]
    assert {k: v for k, v in theirs.items() if k not in ("id", "created_at")} == \
        {k: v for k, v in ours.items() if k not in ("id", "created_at")}
    assert list(theirs) == list(ours) and list(theirs["payload"]) == list(ours["payload"])
