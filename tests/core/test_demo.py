"""core.demo.build: the demo home is complete, canonical, deterministic and tells a consistent story."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from core.demo import build as demo
from core.store import memory
from core.demo.build import DEMO_TODAY, PENDING_IDS

DAY0 = datetime(DEMO_TODAY.year, DEMO_TODAY.month, DEMO_TODAY.day, tzinfo=timezone.utc).timestamp()
TEXT_FILES = ("config.yaml", "demo-projects/tideway/AGENTS.md", "memories/MEMORY.md", "memories/USER.md",
              "skills/tideway-release/SKILL.md", "skills/paylane-webhook-debug/SKILL.md",
              "skills/weekly-ops-report/SKILL.md", "skills/csv-export-v1/SKILL.md",
              *(f"pending/skills/{pid}.json" for pid in demo.PENDING_SKILL_IDS.values()),
              f"pending/memory/{demo.MALFORMED_ID}.json",
              *(f"pending/memory/{pid}.json" for pid in PENDING_IDS.values()))


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return demo.build_demo_home(tmp_path_factory.mktemp("demo") / "hermes")


@pytest.fixture(scope="module")
def db(home):
    conn = sqlite3.connect(f"file:{home / 'state.db'}?mode=ro", uri=True)
    yield conn
    conn.close()


def records(home: Path) -> dict[str, dict]:
    out = {}
    for path in sorted((home / "pending" / "memory").glob("*.json")):
        if path.stem != demo.MALFORMED_ID:
            out[path.stem] = json.loads(path.read_text(encoding="utf-8"))
    return out


def memory_calls(db) -> list[tuple[int, str, dict]]:
    """(message id, call id, arguments) of every memory tool call, in id order."""
    out = []
    for mid, calls in db.execute("SELECT id, tool_calls FROM messages WHERE role = 'assistant' "
                                 "AND tool_calls LIKE '%\"memory\"%' ORDER BY id"):
        for call in json.loads(calls):
            if call["function"]["name"] == "memory":
                out.append((mid, call["id"], json.loads(call["function"]["arguments"])))
    return out


# -------------------------------------------------------------------------------- files


def test_home_has_every_file_and_no_locks(home):
    for name in TEXT_FILES + ("state.db",):
        assert (home / name).is_file(), name
    assert not list(home.rglob("*.lock")) and not list(home.rglob("*.building*"))
    assert "write_approval: true" in (home / "config.yaml").read_text()
    assert (home / "config.yaml").read_text().count("#") >= 3  # comments the toggle must keep


def test_text_files_are_utf8_lf_without_bom(home):
    for name in TEXT_FILES:
        raw = (home / name).read_bytes()
        assert b"\r" not in raw and not raw.startswith(b"\xef\xbb\xbf"), name
        raw.decode("utf-8")


@pytest.mark.parametrize("name, limit, low, high", [("MEMORY.md", 2200, 1800, 1900), ("USER.md", 1375, 800, 860)])
def test_memory_files_canonical_and_near_target(home, name, limit, low, high):
    raw = (home / "memories" / name).read_text(encoding="utf-8")
    entries = memory.parse(raw)
    assert memory.serialize(entries) == raw and not raw.endswith("\n")
    assert memory.check_drift(raw, limit) is None
    assert low <= memory.usage(entries) <= high
    target = "memory" if name == "MEMORY.md" else "user"
    assert entries == [e.text for e in demo.demo_entries() if e.target == target]


def test_planted_entries(home):
    by_key = {e.key: e.text for e in demo.demo_entries()}
    assert (DEMO_TODAY - timedelta(days=258)).isoformat() in by_key["stale"]
    assert by_key["relative"].startswith("Yesterday") and "~/.ssh/" in by_key["ssh"]
    assert "\n" in by_key["docker"] and "[bold]" in by_key["markup"] and "[/]" in by_key["markup"]
    assert "\u200d" in by_key["emoji"] and "français" in by_key["french"]
    assert "100 req/min" in by_key["rate_100"] and "1000 req/min" in by_key["rate_1000"]
    agents = home / "demo-projects" / "tideway" / "AGENTS.md"  # where the sessions ran, not the home
    assert "never use sudo" not in agents.read_text() and not (home / "AGENTS.md").exists()
    assert "Never push straight to main" in agents.read_text()
    assert "name: tideway-release" in (home / "skills/tideway-release/SKILL.md").read_text()


def test_findings_the_demo_is_built_to_show(home):
    review = pytest.importorskip("core.review.findings")
    entries = demo.demo_entries()
    stores = {t: ([e.text for e in entries if e.target == t], demo.LIMITS[t]) for t in ("memory", "user")}
    from core.curator import open_curator

    context = review.context_texts(open_curator(home, None, DEMO_TODAY))  # the project its sessions ran in
    kinds = {f.kind for f in review.review_entries(stores, DEMO_TODAY, review.load_sources(home, context))}
    assert kinds >= {"similar", "conflicting", "stale", "relative-date", "scanner", "capacity",
                     "redundant-skill", "redundant-context", "vague"}


# -------------------------------------------------------------------------------- pending


def test_pending_records_follow_the_format(home):
    recs = records(home)
    assert set(recs) == set(PENDING_IDS.values())
    for pid, rec in recs.items():
        assert re.fullmatch(r"[0-9a-f]{8}", pid) and rec["id"] == pid
        assert rec["subsystem"] == "memory" and rec["origin"] in ("foreground", "background_review")
        assert rec["action"] == rec["payload"]["action"] and len(rec["summary"].split(": ", 1)[1]) <= 120
        assert DAY0 - 21 * 86400 < rec["created_at"] < DAY0
        raw = (home / "pending" / "memory" / f"{pid}.json").read_text(encoding="utf-8")
        assert raw.startswith("{\n  ") and "\\u" not in raw  # pretty-printed, non-ASCII kept
    assert {r["action"] for r in recs.values()} == {"add", "patch", "replace", "remove", "batch"}
    assert {r["origin"] for r in recs.values()} == {"foreground", "background_review"}
    skill = json.loads((home / "pending/skills" / f"{demo.PENDING_SKILL_ID}.json").read_text())
    assert skill["subsystem"] == "skills"


def test_skill_records_have_the_release_shape(home):
    """As the release's stage_write writes them: these keys in this order, the payload is the
    skill_manage call (action, name, the keywords that aren't None, replace_all always)."""
    folder = home / "pending" / "skills"
    assert sorted(p.stem for p in folder.iterdir()) == sorted(demo.PENDING_SKILL_IDS.values())
    actions = set()
    for key, pid in demo.PENDING_SKILL_IDS.items():
        raw = (folder / f"{pid}.json").read_text(encoding="utf-8")
        rec = json.loads(raw)
        assert list(rec) == ["id", "subsystem", "action", "summary", "origin", "created_at", "payload"], key
        assert rec["id"] == pid and rec["subsystem"] == "skills" and rec["action"] == rec["payload"]["action"]
        assert list(rec["payload"])[:2] == ["action", "name"] and rec["payload"]["replace_all"] is False
        assert None not in rec["payload"].values()
        assert DAY0 - 21 * 86400 < rec["created_at"] < DAY0
        assert raw.startswith("{\n  ") and rec["summary"] == rec["summary"].strip()
        actions.add(rec["action"])
    assert actions == {"create", "patch", "edit", "write_file", "delete"}
    recs = {k: json.loads((folder / f"{pid}.json").read_text()) for k, pid in demo.PENDING_SKILL_IDS.items()}
    assert recs["create"]["summary"].startswith("create 'paylane-webhook-replay' — Replay failed")
    assert recs["patch"]["summary"] == "patch 'tideway-release' SKILL.md (+3/-2 lines)"
    assert recs["write_file"]["summary"] == "write scripts/check-clock.sh in 'paylane-webhook-debug'"
    assert recs["delete"]["summary"] == "delete skill 'csv-export-v1'"
    assert recs["edit"]["summary"].startswith("rewrite 'weekly-ops-report' — ")
    assert "../" in recs["escape"]["payload"]["file_path"]


def test_pending_records_cover_every_case(home):
    recs = {key: records(home)[pid] for key, pid in PENDING_IDS.items()}
    mem = memory.parse((home / "memories/MEMORY.md").read_text(encoding="utf-8"))
    user = memory.parse((home / "memories/USER.md").read_text(encoding="utf-8"))
    patch = recs["patch_pinned"]["payload"]
    assert patch["action"] == "patch" and patch["matched_entry"] in mem
    assert patch["matched_entry"].count(patch["old_text"]) == 1 and patch["old_text"] != patch["matched_entry"]
    # every destructive write 0.22.2 staged carries its pin; the one 0.20 staged before the upgrade doesn't
    destructive = [(k, o) for k, r in recs.items() for o in r["payload"].get("operations") or [r["payload"]]
                   if o["action"] in ("replace", "remove", "patch")]
    assert [k for k, o in destructive if "matched_entry" not in o] == ["replace_unpinned"]
    assert recs["replace_unpinned"]["action"] == "replace" and recs["replace_unpinned"]["payload"]["target"] == "user"
    assert recs["replace_unpinned"]["summary"].startswith("replace in user profile: old: Weekdays")
    assert recs["replace_unpinned"]["created_at"] == min(r["created_at"] for r in recs.values())
    assert sum(recs["replace_unpinned"]["payload"]["old_text"] in e for e in user) == 1
    assert recs["remove_pinned"]["payload"]["matched_entry"] in mem
    assert [o["action"] for o in recs["batch"]["payload"]["operations"]] == ["patch", "add"]
    assert recs["batch"]["payload"]["operations"][0]["matched_entry"] in mem
    assert recs["batch"]["summary"].startswith("apply 2 op(s) to memory: - patch span '100 req/min per key' -> ")
    assert recs["bg_duplicate"]["origin"] == "background_review" and recs["bg_duplicate"]["payload"]["content"] in mem
    assert recs["group_a"]["payload"]["content"] == recs["group_b"]["payload"]["content"] not in mem
    stale = recs["stale_pin"]["payload"]
    assert stale["action"] == "patch" and stale["matched_entry"] == demo.C.OLD_MACHINE not in mem
    assert not any(stale["old_text"] in e for e in mem)
    assert memory.usage(mem + [recs["over_limit"]["payload"]["content"]]) > 2200
    assert memory.usage(mem + [recs["add"]["payload"]["content"]]) <= 2200
    assert "ignore all previous instructions" in recs["scanner"]["payload"]["content"]
    assert re.search(r"sk-proj-[A-Za-z0-9]{40}", recs["secret"]["payload"]["content"])


def test_malformed_record_is_truncated_json(home):
    raw = (home / "pending/memory" / f"{demo.MALFORMED_ID}.json").read_text(encoding="utf-8")
    assert raw.startswith('{\n  "id": "deadbeef"')
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)


# -------------------------------------------------------------------------------- state.db


def test_state_db_layout(db):
    assert db.execute("SELECT version FROM schema_version").fetchall() == [(31,)]  # Hermes 0.22.2
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    cols = {t: {r[1] for r in db.execute(f"PRAGMA table_info({t})")} for t in ("sessions", "messages")}
    assert {"id", "source", "user_id", "model", "model_config", "system_prompt", "parent_session_id",
            "started_at", "ended_at", "end_reason", "message_count", "tool_call_count", "input_tokens",
            "output_tokens", "title", "last_activity_at", "archived", "pinned", "hidden", "cwd",
            "git_branch", "profile_name", "display_name", "estimated_cost_usd"} <= cols["sessions"]
    assert {"id", "session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "timestamp",
            "token_count", "finish_reason", "active", "compacted", "display_kind", "reasoning"} <= cols["messages"]
    schema = dict(db.execute("SELECT name, sql FROM sqlite_master"))
    assert "tool_name" in schema["messages_fts"] and "messages_fts_src" in schema["messages_fts"]
    assert "trigram" in schema["messages_fts_trigram"] and "8192" in schema["messages_fts_src"]
    for name in ("messages_fts_insert", "messages_fts_delete", "messages_fts_update", "messages_fts_trigram_insert",
                 "messages_fts_trigram_delete", "messages_fts_trigram_update", "idx_messages_session_id",
                 "idx_sessions_started", "idx_sessions_title_unique", "messages_display_order_insert"):
        assert name in schema, name
    assert [k for (k,) in db.execute("SELECT key FROM state_meta ORDER BY rowid")] == [
        "store_instance_id", "store_created_at_utc", "message_uid_backfill", "db_file_generation",
        "last_auto_prune"]
    # everything the demo carries of 0.22.2's layout is created (the exact text: tests/conformance)
    from core.demo import layout
    names = {n for group in (layout.TABLES, layout.INDEXES, layout.VIEWS_AND_FTS, layout.TRIGGERS) for n, _ in group}
    assert names <= set(schema) and len(names) == 54


def test_rows_carry_what_0_22_2s_append_message_writes(db):
    """Every row has a unique uid, a display identity (sha256 of its key) and a display order; a
    tool-calling row has a uid per call; titles are unique (0.22.2's UNIQUE index)."""
    one = lambda sql: db.execute(sql).fetchone()[0]  # noqa: E731
    assert one("SELECT count(DISTINCT message_uid) FROM messages") == demo.DEMO_MESSAGES
    assert one("SELECT count(*) FROM messages WHERE message_uid GLOB '*[^0-9a-f]*' OR length(message_uid) != 32") == 0
    assert one("SELECT count(*) FROM messages WHERE length(display_identity) != 32 OR display_order IS NULL") == 0
    assert one("SELECT count(*) FROM messages WHERE display_order != id") == 0  # no two rows alike
    mid, role, content, ts = db.execute("SELECT id, role, content, timestamp FROM messages WHERE role = 'user' "
                                        "LIMIT 1").fetchone()
    assert db.execute("SELECT display_identity FROM messages WHERE id = ?", (mid,)).fetchone()[0] == \
        demo.display_identity(role, content, ts, None, None, None)
    for calls, uids in db.execute("SELECT tool_calls, tool_call_uids FROM messages WHERE tool_calls IS NOT NULL"):
        assert sorted(json.loads(uids)) == sorted(c["id"] for c in json.loads(calls))
    assert one("SELECT count(*) FROM (SELECT title FROM sessions WHERE title IS NOT NULL GROUP BY title "
               "HAVING count(*) > 1)") == 0
    assert one("SELECT count(*) FROM sessions WHERE title LIKE '% #_'") > 2


def test_state_db_content(db):
    assert db.execute("SELECT count(*) FROM sessions").fetchone() == (demo.DEMO_SESSIONS,)
    assert db.execute("SELECT count(*) FROM messages").fetchone() == (demo.DEMO_MESSAGES,)
    assert db.execute("SELECT sum(message_count) FROM sessions").fetchone() == (demo.DEMO_MESSAGES,)
    sources = {s for (s,) in db.execute("SELECT DISTINCT source FROM sessions")}
    assert sources == {"cli", "telegram", "discord", "cron", "kanban", "subagent", "tool"}
    lo, hi = db.execute("SELECT min(started_at), max(last_activity_at) FROM sessions").fetchone()
    assert DAY0 - 125 * 86400 < lo < DAY0 - 100 * 86400 and hi < DAY0
    for pattern in ("%à%", "%¿%", "% è %", "%ы%", "%数据库%"):  # fr, es, it, ru, zh
        assert db.execute("SELECT count(*) FROM messages WHERE content LIKE ?", (pattern,)).fetchone()[0] > 5
    for sid, source, started in db.execute("SELECT id, source, started_at FROM sessions"):
        stamp = datetime.fromtimestamp(started, tz=timezone.utc).strftime("%Y%m%d_%H%M%S")
        hexlen = 8 if source in ("telegram", "discord", "cron") else 6
        assert re.fullmatch(rf"{stamp}_[0-9a-f]{{{hexlen}}}", sid), (sid, source)
    assert db.execute("SELECT count(*) FROM sessions WHERE title IS NULL").fetchone()[0] > 5
    assert db.execute("SELECT count(*) FROM sessions WHERE title IS NOT NULL").fetchone()[0] > 150
    assert db.execute("SELECT count(*) FROM messages WHERE tool_calls IS NOT NULL").fetchone()[0] > 300
    assert db.execute("SELECT count(*) FROM messages WHERE role = 'tool' AND tool_name IS NOT NULL "
                      "AND tool_call_id IS NOT NULL").fetchone()[0] > 300


def test_hidden_rows_lineage_and_literal_text(db):
    one = lambda sql: db.execute(sql).fetchone()[0]  # noqa: E731
    assert one("SELECT count(*) FROM messages WHERE active = 0 AND compacted = 0") > 0  # rewound
    assert one("SELECT count(*) FROM messages WHERE active = 0 AND compacted = 1") > 0  # compacted
    assert one("SELECT count(*) FROM messages WHERE display_kind = 'hidden'") > 0
    assert one("SELECT count(*) FROM sessions c JOIN sessions p ON p.id = c.parent_session_id "
               "WHERE p.end_reason = 'compression' AND c.source = p.source") == 2
    assert one("SELECT count(*) FROM sessions WHERE source = 'subagent' AND parent_session_id IS NOT NULL "
               "AND json_extract(model_config, '$._delegate_from') = parent_session_id") >= 2
    assert one("SELECT count(*) FROM messages WHERE content LIKE '%[bold%[/]%'") > 0
    assert one("SELECT count(*) FROM messages WHERE content LIKE '%[link=%'") > 0
    assert one("SELECT count(*) FROM messages WHERE instr(content, char(27) || '[31m') > 0") > 0
    assert one("SELECT max(length(content)) FROM messages WHERE role = 'tool'") > 8192
    assert one("SELECT max(length(content)) FROM messages WHERE role = 'assistant'") > 2000


def test_fts_word_and_cjk_trigram_hits(db):
    hits = db.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'alembic'").fetchone()[0]
    assert hits > 10
    rows = db.execute("SELECT m.content, s.source FROM messages_fts_trigram t JOIN messages m ON m.id = t.rowid "
                      "JOIN sessions s ON s.id = m.session_id WHERE messages_fts_trigram MATCH '数据库'").fetchall()
    assert rows and all("数据库" in c and s not in ("cron", "subagent") for c, s in rows)
    assert db.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'tool_name:memory'").fetchone()[0] > 10
    assert db.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?",
                      (demo.RARE_TERM,)).fetchone() == (demo.RARE_TERM_MESSAGES,)


def test_small_session_and_rare_term(db):
    assert db.execute("SELECT count(*), max(message_count) FROM messages JOIN sessions s ON s.id = session_id "
                      "WHERE session_id = ?", (demo.SMALL_SESSION_ID,)).fetchone() == (100, 100)
    rows = db.execute("SELECT role, active, compacted, display_kind FROM messages WHERE content LIKE ?",
                      (f"%{demo.RARE_TERM}%",)).fetchall()
    assert len(rows) == demo.RARE_TERM_MESSAGES
    assert all(r[0] in ("user", "assistant") and r[1:] == (1, 0, None) for r in rows)


def landed_calls(db) -> list[tuple[int, dict, dict]]:
    """(message id, arguments, result) of every memory call, in id order, each with its tool result."""
    out = []
    for mid, cid, args in memory_calls(db):
        (content,) = db.execute("SELECT content FROM messages WHERE id > ? AND role = 'tool' AND tool_name = 'memory' "
                                "AND tool_call_id = ?", (mid, cid)).fetchone()
        out.append((mid, args, json.loads(content)))
    return out


def written_texts(args: dict, result: dict) -> list[str]:
    """The entries a landed call wrote: an add's content, the entry a patch produced."""
    if "operations" in args:
        return [o["content"] for o in args["operations"] if o["action"] == "add"] + \
            list(result.get("patched_entries_after", {}).values())
    if args["action"] == "patch":
        return [result["patched_entry_after"]]
    return [args["content"]] if args["action"] == "add" else []


def test_provenance_tool_calls_match_entries(db):
    calls = landed_calls(db)  # (every call is answered by exactly one tool message of the memory tool)
    landed = {(a["target"], t) for _, a, r in calls if r["success"] is True and not r.get("staged")
              for t in written_texts(a, r)}
    for entry in demo.demo_entries():
        assert ((entry.target, entry.text) in landed) == entry.provenance, entry.key
    hand = [e for e in demo.demo_entries() if e.how == "hand"]
    assert [e.key for e in hand] == ["ssh", "emoji"]
    assert {e.key: e.how for e in demo.demo_entries() if not e.provenance} == {
        "ssh": "hand", "emoji": "hand", "relative": "review", "vague": "approved in Hermes"}
    for entry in hand:  # the agent tried to save exactly this text; the release's scanner refused it
        (result,) = [r for _, a, r in calls if a.get("content") == entry.text]
        assert result["success"] is False and result["error"].startswith("Blocked: content ")


def test_story_replays_to_the_memory_files(home, db):
    """A plain replay of the landed calls (0.22.2's rules: patch swaps one span, remove by substring,
    exact re-add, batches), with the background review's add at its time (logs/agent.log) and the
    record approved in Hermes, gives the files minus the two entries the user added by hand; the
    results say what each call changed, as 0.22.2's do."""
    from core.timeline import agent_log

    entries = demo.demo_entries()
    stores: dict[str, list[str]] = {"memory": [], "user": []}
    kinds = set()
    (review_at, _), = agent_log.read(home / "logs").writes
    for mid, args, result in landed_calls(db):
        (ts,) = db.execute("SELECT timestamp FROM messages WHERE id = ?", (mid,)).fetchone()
        if review_at is not None and ts > review_at:  # the review wrote between two calls
            stores["memory"].append(next(e.text for e in entries if e.how == "review"))
            review_at = None
        if result.get("pending_id") == demo.C.APPROVED_IN_HERMES_ID:  # approved in the chat an hour later
            stores[args["target"]].append(args["content"])
            kinds.add("staged")
            continue
        assert set(result) <= {"success", "done", "target", "usage", "entry_count", "message", "note", "error",
                               "current_entries", "closest_entries", "staged", "pending_id", "patched_entry_before",
                               "patched_entry_after", "removed_entry", "patched_entries", "patched_entries_after",
                               "removed_entries"}
        assert args.get("action") != "replace"  # 0.22.2's model has no replace
        if result["success"] is not True or result.get("staged"):
            kinds.add("staged" if result.get("staged") else "failed")
            continue
        store = stores[args["target"]]
        for op in args.get("operations") or [args]:
            kinds.add("batch" if "operations" in args else op["action"])
            if op["action"] == "add":
                if op["content"] in store:
                    kinds.add("re-add")
                else:
                    store.append(op["content"])
                continue
            (i,) = [i for i, e in enumerate(store) if op["old_text"] in e]
            assert op["old_text"] != store[i]  # a substring, not the whole entry
            if op["action"] == "patch":
                assert store[i].count(op["old_text"]) == 1 and result["patched_entry_before"] == store[i]
                store[i] = store[i].replace(op["old_text"], op["content"])
                assert result["patched_entry_after"] == store[i]
            else:
                assert result["removed_entry"] == store[i]
                del store[i]
        assert result["entry_count"] == len(store)
        used = len("\n§\n".join(store))
        assert result["usage"].endswith(f" — {used:,}/{demo.LIMITS[args['target']]:,} chars")
    assert kinds == {"add", "patch", "remove", "batch", "re-add", "failed", "staged"}
    for target in stores:
        assert stores[target] == [e.text for e in entries if e.target == target and e.how != "hand"]
    relative = next(e.text for e in entries if e.key == "relative")
    assert not db.execute("SELECT 1 FROM messages m WHERE m.tool_calls LIKE ?", (f"%{relative[:30]}%",)).fetchall()


def test_the_background_review_write_is_in_agent_log(home, db):
    """The review added `relative` 12 days ago in a cli session's fork: logs/agent.log has it, state.db not."""
    from core.timeline import agent_log

    (when, sid), = agent_log.read(home / "logs").writes
    assert DAY0 - when == pytest.approx(12 * 86400, abs=86400)
    (source,) = db.execute("SELECT source FROM sessions WHERE id = ?", (sid,)).fetchone()
    assert source == "cli"


def test_the_staged_call_is_the_pending_batch(home, db):
    """Write approval on: a Telegram session's batch was staged, and it is the demo's pending `batch` record."""
    staged = [(mid, a, r) for mid, a, r in landed_calls(db) if r.get("staged")]
    assert len(staged) == 2
    approved = [s for s in staged if s[2]["pending_id"] == demo.C.APPROVED_IN_HERMES_ID]
    assert len(approved) == 1 and approved[0][1]["content"] == next(e.text for e in demo.demo_entries()
                                                                    if e.key == "vague")
    assert demo.C.APPROVED_IN_HERMES_ID not in records(home)  # approved in Hermes: the record is gone
    mid, args, result = next(s for s in staged if s is not approved[0])
    record = records(home)[result["pending_id"]]
    assert result["pending_id"] == PENDING_IDS["batch"]
    assert [{k: v for k, v in o.items() if k != "matched_entry"} for o in record["payload"]["operations"]] \
        == args["operations"]
    (source, ts) = db.execute("SELECT s.source, m.timestamp FROM messages m JOIN sessions s ON s.id = m.session_id "
                              "WHERE m.id = ?", (mid,)).fetchone()
    assert source == "telegram" and abs(ts - record["created_at"]) < 120


# -------------------------------------------------------------------------------- behaviour


@pytest.mark.long
def test_deterministic_and_seeded(home, tmp_path):
    again = demo.build_demo_home(tmp_path / "again")
    for name in TEXT_FILES:
        assert (home / name).read_bytes() == (again / name).read_bytes(), name
    def dump(h):  # each build's sessions ran in its own demo-projects/: said as <home>
        rows = [list(sqlite3.connect(h / "state.db").execute(f"SELECT * FROM {t} ORDER BY 1"))
                for t in ("sessions", "messages")]
        return [[tuple(v.replace(str(h.resolve()), "<home>") if isinstance(v, str) else v for v in r) for r in t]
                for t in rows]
    assert dump(home) == dump(again)
    other = demo.build_demo_home(tmp_path / "other", seed=8)
    assert (other / "memories/MEMORY.md").read_bytes() == (home / "memories/MEMORY.md").read_bytes()
    assert dump(other) != dump(home)


def test_refuses_a_non_empty_root_accepts_an_empty_one(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        demo.build_demo_home(tmp_path / "full")
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["keep.txt"]
    (tmp_path / "empty").mkdir()
    assert (demo.build_demo_home(tmp_path / "empty") / "memories/MEMORY.md").is_file()
    with pytest.raises(FileExistsError):
        demo.build_state_db(tmp_path / "empty" / "state.db", sessions=50, messages=2000)


def test_write_entries_is_canonical(tmp_path):
    demo.write_entries(tmp_path / "M.md", ["a", "multi\nline é"])
    assert (tmp_path / "M.md").read_bytes() == "a\n§\nmulti\nline é".encode()


def test_build_state_db_with_a_big_session(tmp_path):
    seen = []
    path = tmp_path / "bench.db"
    demo.build_state_db(path, sessions=50, messages=2000, big_session_messages=5000,
                        progress=lambda done, total: seen.append((done, total)))
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM sessions").fetchone() == (51,)
    assert conn.execute("SELECT count(*) FROM messages").fetchone() == (7000,)
    assert conn.execute("SELECT count(*), min(id), max(id) FROM messages WHERE session_id = ?",
                        (demo.BIG_SESSION_ID,)).fetchone()[0] == 5000
    assert conn.execute("SELECT count(*) FROM messages WHERE session_id = ?", (demo.SMALL_SESSION_ID,)).fetchone() == (100,)
    hits = conn.execute("SELECT m.session_id FROM messages_fts f JOIN messages m ON m.id = f.rowid "
                        "WHERE messages_fts MATCH ?", (demo.RARE_TERM,)).fetchall()
    assert len(hits) == demo.RARE_TERM_MESSAGES + 1 and hits.count((demo.BIG_SESSION_ID,)) == 1
    assert seen and seen[-1] == (7000, 7000)
    # the sync triggers keep both indexes current for writes made after the build
    conn.execute("INSERT INTO messages(session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)",
                 (demo.SMALL_SESSION_ID, "quokkaflux 新しい数据库", DAY0))
    assert conn.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'quokkaflux'").fetchone() == (1,)
    assert conn.execute("SELECT count(*) FROM messages_fts_trigram WHERE messages_fts_trigram MATCH "
                        "'quokkaflux'").fetchone() == (1,)
    conn.execute("DELETE FROM messages WHERE content LIKE 'quokkaflux%'")
    for table in ("messages_fts", "messages_fts_trigram"):  # external content and index agree
        conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")
    conn.close()


def test_too_small_a_database_is_refused(tmp_path):
    with pytest.raises(ValueError, match="too small"):
        demo.build_state_db(tmp_path / "x.db", sessions=5, messages=2000)
    assert not (tmp_path / "x.db").exists()
