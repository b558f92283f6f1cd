"""`hmc log`, `hmc blame`, `hmc memory list --at`, `hmc rollback`: output, JSON shapes, exit codes,
files on disk, literal and masked text."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from tests.cli.runner import hmc
from tests.core.test_timeline import T0, Db, add, write_files

SECRET = "sk-" + "a1B2c3D4" * 5


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.fixture
def home(tmp_path) -> tuple[Path, Db, dict]:
    root = tmp_path / "hermes"
    (root / "memories").mkdir(parents=True)
    (root / "config.yaml").write_text("memory:\n  memory_enabled: true\n", encoding="utf-8")
    db = Db(root / "state.db")
    db.session("s-cli", "cli")
    db.session("s-tg", "telegram")
    ids = {
        "add": db.call("s-cli", add("Deploys on Fridays"))[1],  # minute 1
        "user": db.call("s-tg", add("Name: Ana", "user"))[1],  # minute 2
        "replace": db.call("s-tg", {"action": "replace", "target": "memory", "old_text": "Fri",
                                    "content": "Deploys on Thursdays"})[1],  # minute 3
        "temp": db.call("s-cli", add("Temporary note"))[1],  # minute 4
        "remove": db.call("s-cli", {"action": "remove", "target": "memory", "old_text": "Temporary"})[1],  # 5
    }
    write_files(root, ["Deploys on Thursdays"], ["Name: Ana"])
    return root, db, {k: f"m{v}" for k, v in ids.items()}


def memory(root: Path) -> str:
    return (root / "memories" / "MEMORY.md").read_text(encoding="utf-8")


def local(minute: int) -> str:
    return datetime.fromtimestamp(T0 + 60 * minute + 40).strftime("%Y-%m-%dT%H:%M")  # T0 is at :20 s


def test_log_json_oldest_first_with_the_contract_fields(home):
    root, _, ids = home
    out = hmc("log", "--json", home=root)
    assert out.returncode == 0, out.stderr
    writes = json.loads(out.stdout)["writes"]
    assert [w["id"] for w in writes] == [ids[k] for k in ("add", "user", "replace", "temp", "remove")]
    assert {"id", "timestamp", "session_id", "message_id", "source", "target", "action", "old_text", "content",
            "operations"} <= set(writes[0])
    assert writes[2] == {**writes[2], "session_id": "s-tg", "source": "telegram", "by": "agent", "action": "replace",
                         "old_text": "Fri", "content": "Deploys on Thursdays", "operations": None,
                         "timestamp": T0 + 180}
    only_user = json.loads(hmc("log", "--json", "--target", "user", home=root).stdout)["writes"]
    assert [w["id"] for w in only_user] == [ids["user"]]
    by_source = json.loads(hmc("log", "--json", "--source", "telegram", home=root).stdout)["writes"]
    assert [w["id"] for w in by_source] == [ids["user"], ids["replace"]]
    day = datetime.fromtimestamp(T0).date()
    later = json.loads(hmc("log", "--json", "--since", str(day.replace(year=day.year + 1)), home=root).stdout)
    assert later["writes"] == []


def test_log_text(home):
    root, _, ids = home
    out = hmc("log", home=root)
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert lines[0].startswith(ids["add"]) and "agent · cli · session s-cli" in lines[0]
    assert "    + Deploys on Fridays" in lines
    assert "    - Deploys on Fridays" in lines and "    + Deploys on Thursdays" in lines
    assert "    - Temporary note" in lines


def test_bad_dates_exit_2(home):
    root, _, _ = home
    for args in (["log", "--since", "yesterday-ish"], ["memory", "list", "--at", "12/10/2026"]):
        out = hmc(*args, home=root)
        assert out.returncode == 2 and out.stderr.count("\n") == 1 and "not a date" in out.stderr


def test_blame_json_names_the_session_of_every_entry(home):
    root, _, ids = home
    (root / "memories" / "MEMORY.md").write_text("Deploys on Thursdays\n§\nAdded by hand", encoding="utf-8")
    out = hmc("blame", "--json", "--target", "memory", home=root)
    assert out.returncode == 0, out.stderr
    [data] = json.loads(out.stdout)  # --target narrows the list of stores, never changes its shape
    assert data["target"] == "memory"
    first, hand = data["entries"]
    assert first["index"] == 0 and first["number"] == 1 and first["text"] == "Deploys on Thursdays" and first["revisions"] == 2
    assert first["origin"] == {"id": ids["replace"], "session_id": "s-tg", "message_id": int(ids["replace"][1:]) - 1,
                               "timestamp": T0 + 180, "source": "telegram", "by": "agent"}
    assert first["first_seen"]["session_id"] == "s-cli"
    assert hand["origin"] is None and hand["first_seen"]["by"] == "unknown" and hand["revisions"] == 1
    both = json.loads(hmc("blame", "--json", home=root).stdout)
    assert [d["target"] for d in both] == ["memory", "user"]
    text = hmc("blame", home=root).stdout
    assert "by no recorded call" in text and "hand edit" not in text
    assert "agent · telegram · session s-tg" in text and "2 revisions" in text


def test_memory_list_at_shows_the_store_then(home):
    root, _, _ = home
    out = hmc("memory", "list", "--target", "memory", "--at", local(4), "--json", home=root)
    assert out.returncode == 0, out.stderr
    [data] = json.loads(out.stdout)
    assert [e["text"] for e in data["entries"]] == ["Deploys on Thursdays", "Temporary note"]
    assert [e["number"] for e in data["entries"]] == [1, 2]
    assert data["at"] == local(4)
    out = hmc("memory", "list", "--at", local(2), home=root)
    assert "1. Deploys on Fridays" in out.stdout and "1. Name: Ana" in out.stdout
    assert "MEMORY.md as it was at" in out.stdout
    out = hmc("memory", "list", "--at", "2000-01-01", "--json", home=root)
    assert [d["entries"] for d in json.loads(out.stdout)] == [[], []]


def test_rollback_writes_and_conflicts_refuse(home):
    root, db, ids = home
    out = hmc("rollback", ids["remove"], home=root)
    assert out.returncode == 0, out.stderr
    assert memory(root) == "Deploys on Thursdays\n§\nTemporary note"
    assert "rolled back" in out.stdout and "+ Temporary note" in out.stdout
    out = hmc("rollback", ids["add"], home=root)  # its text was replaced since
    assert out.returncode == 1 and "replaced since, by the agent (telegram)" in out.stderr
    assert memory(root) == "Deploys on Thursdays\n§\nTemporary note"
    out = hmc("rollback", ids["replace"], home=root)
    assert out.returncode == 0 and memory(root) == "Deploys on Fridays\n§\nTemporary note"
    out = hmc("rollback", "m999999", home=root)
    assert out.returncode == 1 and "no write 'm999999'" in out.stderr
    log = json.loads(hmc("log", "--json", home=root).stdout)["writes"]
    assert [w["action"] for w in log if w["by"] == "hmc"] == ["rollback", "rollback"]
    assert [w["action"] for w in log if w["by"] == "unknown"] == []


def test_rollback_of_an_outside_change_is_refused(home):
    root, _, _ = home
    (root / "memories" / "MEMORY.md").write_text("Deploys on Thursdays\n§\nby hand", encoding="utf-8")
    log = json.loads(hmc("log", "--json", home=root).stdout)["writes"]
    outside = [w["id"] for w in log if w["by"] == "unknown"]
    out = hmc("rollback", outside[0], home=root)
    assert out.returncode == 1 and "no recorded call made" in out.stderr


def test_secrets_are_masked_and_controls_literal(home):
    root, db, _ = home
    db.call("s-cli", add(f"API key {SECRET} for \x1b[31mstaging\x1b[0m"))
    write_files(root, ["Deploys on Thursdays", f"API key {SECRET} for \x1b[31mstaging\x1b[0m"], ["Name: Ana"])
    for args in (["log"], ["log", "--json"], ["blame"], ["blame", "--json"], ["memory", "list", "--at", local(30)]):
        out = hmc(*args, home=root)
        assert out.returncode == 0, (args, out.stderr)
        assert SECRET not in out.stdout and "\x1b" not in out.stdout, args
    out = hmc("log", "--reveal", home=root)
    assert SECRET in out.stdout and "␛[31m" in out.stdout


def test_hostile_rows_are_counted_not_fatal(home):
    root, db, _ = home
    db.call("s-cli", "{broken json")
    db.call("s-cli", add("x"), name="memory_search")
    out = hmc("log", home=root)
    assert out.returncode == 0
    assert "skipped 2 unreadable memory rows in state.db (1 malformed arguments, 1 other tools named like memory)" \
        in out.stdout
    data = json.loads(hmc("log", "--json", home=root).stdout)
    assert data["skipped"] == {"malformed arguments": 1, "other tools named like memory": 1}


def test_a_damaged_state_db_exits_2(home):
    root, db, _ = home
    db.path.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    for args in (["log"], ["blame"], ["rollback", "m1"], ["memory", "list", "--at", "2026-10-01"]):
        out = hmc(*args, home=root)
        assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, args


def test_multi_line_entries_line_up_under_their_first_line(tmp_path):
    root = tmp_path / "hermes"
    (root / "memories").mkdir(parents=True)
    (root / "config.yaml").write_text("memory:\n  memory_enabled: true\n", encoding="utf-8")
    db = Db(root / "state.db")
    db.session("s-cli", "cli")
    db.call("s-cli", add("Docker here:\n- no sudo\n- compose v2"))
    write_files(root, ["Docker here:\n- no sudo\n- compose v2"], [])
    log = hmc("log", home=root).stdout.splitlines()
    at = log.index("    + Docker here:")
    assert log[at + 1:at + 3] == ["      - no sudo", "      - compose v2"]
    blame = hmc("blame", "--target", "memory", home=root).stdout.splitlines()
    at = blame.index("  1. Docker here:")
    assert blame[at + 1:at + 3] == ["     - no sudo", "     - compose v2"]


@pytest.mark.parametrize("how", [["pending", "approve", "0000abcd"], ["pending", "approve", "all"]])
def test_an_approval_s_note_is_what_it_did_never_the_claim_s_internal_name(home, how):
    """The pending queue tags its journal records with its claim's file name (for crash recovery)
    and an approve-all's group token: `hmc log` says what the write did instead."""
    from tests.core.pending_support import stage

    root, _, _ = home
    stage(root, content="Staging runs on port 8443", rid="0000abcd")
    out = hmc(*how, home=root)
    assert out.returncode == 0, out.stderr
    log = hmc("log", home=root).stdout.splitlines()
    at = next(i for i, line in enumerate(log) if line.startswith("h1 "))
    assert "approve" in log[at] and log[at + 1].strip() in ("Entry added.", "approved 0000abcd"), log
    assert not any(".claim-" in line or "approve all all" in line for line in log), log


@pytest.mark.parametrize("where", ["a flipped byte", "cut short"])
def test_a_damaged_history_cache_is_rebuilt_not_an_error(home, where):
    """The cached writes sit after the cache's main data, each chunk with its digest, read when a
    write is: a damaged chunk used to end `hmc log` with "unexpected error: DamagedCache … delete …".
    README promises a rebuild: the log comes out whole, as without a cache."""
    from core.timeline import cache as tl_cache

    root, db, _ = home
    first = hmc("log", "--json", home=root)
    assert first.returncode == 0, first.stderr
    path = tl_cache.cache_path(root / "state.db")
    raw = bytearray(path.read_bytes())
    if where == "a flipped byte":
        raw[-10] ^= 0xFF  # inside the last chunk of writes
    else:
        raw = raw[:-10]
    path.write_bytes(bytes(raw))
    again = hmc("log", "--json", home=root)
    assert again.returncode == 0 and "unexpected error" not in again.stderr, again.stderr
    assert json.loads(again.stdout)["writes"] == json.loads(first.stdout)["writes"]
    assert hmc("log", "--json", home=root).returncode == 0  # and the cache written again is good


@pytest.mark.parametrize("how", [["pending", "approve", "0000beef"], ["pending", "approve", "all"]])
def test_a_record_the_background_review_staged_approved_with_hmc_is_the_review_s_write(home, how):
    """The review writes with no session database, so no staging call names its record: the
    approval's journal line carries Hermes's [auto] mark, and the history credits the review
    ("staged by the background review, approved with hmc"), not hmc."""
    from tests.core.pending_support import stage

    root, _, _ = home
    stage(root, content="Prefers tabs over spaces", rid="0000beef", origin="background_review")
    out = hmc(*how, home=root)
    assert out.returncode == 0, out.stderr
    writes = json.loads(hmc("log", "--json", home=root).stdout)["writes"]
    approved = [w for w in writes if w["id"].startswith("h")]
    assert [(w["by"], w["source"]) for w in approved] == [("agent", "background review")]
    log = hmc("log", home=root).stdout
    assert "staged by the background review, approved with hmc" in log


def test_an_approve_all_mixing_the_review_s_and_other_records_stays_hmc_s(home):
    from tests.core.pending_support import stage

    root, _, _ = home
    stage(root, content="Prefers tabs over spaces", rid="0000beef", origin="background_review")
    stage(root, content="Uses fish shell", rid="0000cafe")
    assert hmc("pending", "approve", "all", home=root).returncode == 0
    writes = json.loads(hmc("log", "--json", home=root).stdout)["writes"]
    assert [w["by"] for w in writes if w["id"].startswith("h")] == ["hmc"]  # which text is whose: not known
