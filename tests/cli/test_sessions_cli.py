"""`hmc sessions`, `hmc session ID --memory`, and what `status` and `memory list` say of what the
sessions loaded (a stale open chat, pruning, each entry's loads)."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from tests.cli.runner import hmc
from tests.core.snapshot_fixtures import make_db, prompt, sha

TODAY = "2026-11-15"
NOON = datetime(2026, 11, 15, 12, tzinfo=timezone.utc).timestamp()
DAY = 86400.0
OLD, NEW = prompt(["Deploys on Fridays via staging."], ["Alex"]), \
    prompt(["Deploys on Thursdays via staging.", "Uses pytest -x."], ["Alex"])


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "hermes"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_text("Deploys on Thursdays via staging.\n§\nUses pytest -x.")
    (home / "memories" / "USER.md").write_text("Alex")
    (home / "config.yaml").write_text("sessions:\n  auto_prune: true\n  retention_days: 30\n")
    rows = [dict(id="20261020_090000_aaaaaaaa", source="telegram", started_at=NOON - 26 * DAY, title="Ops chat",
                 display_name="Ops room", last_activity_at=NOON - DAY, system_prompt_hash=sha(OLD)),
            dict(id="20261114_090000_bbbbbb", source="cli", started_at=NOON - DAY, ended_at=NOON - DAY + 600,
                 end_reason="user_exit", system_prompt_hash=sha(NEW)),
            dict(id="20261114_100000_cccccc", source="cli", started_at=NOON - DAY + 3600)]  # no prompt
    make_db(home / "state.db", rows, [(sha(OLD), OLD), (sha(NEW), NEW)],
            meta=[("last_auto_prune", str(NOON - 2 * DAY))]).close()
    return home


def test_sessions_lists_what_each_loaded_and_names_the_stale_chat(home):
    out = hmc("sessions", home=home, today=TODAY)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "telegram · Ops room" in text and "OLD SNAPSHOT" in text and "current" in text
    assert "not known (no prompt stored)" in text
    assert "send /new or /reset in that telegram chat" in text
    assert "sessions inactive before 14 Oct 2026 were pruned by Hermes (retention 30 days, last run 13 Nov 2026)" in text
    stale = hmc("sessions", "--stale", home=home, today=TODAY).stdout
    assert "20261020_090000_aaaaaaaa" in stale and "20261114_090000_bbbbbb" not in stale


def test_sessions_json_has_one_shape(home):
    for flags in ((), ("--stale",)):
        data = json.loads(hmc("sessions", "--json", *flags, home=home, today=TODAY).stdout)
        assert set(data) == {"sessions", "stale_sessions", "pruning", "prompt_source"}
    data = json.loads(hmc("sessions", "--json", home=home, today=TODAY).stdout)
    by_id = {s["session_id"]: s for s in data["sessions"]}
    assert by_id["20261114_090000_bbbbbb"]["current"] is True
    assert by_id["20261114_090000_bbbbbb"]["loaded"]["memory"] == {"entries": 2, "chars": 51, "limit": 2200}
    assert by_id["20261114_100000_cccccc"]["loaded"] is None and by_id["20261114_100000_cccccc"]["current"] is None
    (chat,) = data["stale_sessions"]
    assert chat["changes"]["memory"]["changed"] == [{"loaded": "Deploys on Fridays via staging.",
                                                    "now": "Deploys on Thursdays via staging."}]
    assert chat["changes"]["memory"]["added"] == ["Uses pytest -x."] and chat["chat"] == "Ops room"
    assert data["pruning"]["auto_prune"] is True and data["pruning"]["retention_days"] == 30


def test_session_memory_prints_the_blocks_it_loaded_and_the_diff(home):
    out = hmc("session", "aaaaaaaa", "--memory", home=home, today=TODAY)
    assert out.returncode == 0, out.stderr
    assert "MEMORY (your personal notes) [1% — 31/2,200 chars]" in out.stdout
    assert "~ memory: Deploys on Fridays via staging. → Deploys on Thursdays via staging." in out.stdout
    assert "+ memory: Uses pytest -x." in out.stdout
    data = json.loads(hmc("session", "aaaaaaaa", "--memory", "--json", home=home, today=TODAY).stdout)
    assert data["loaded"]["memory"] == prompt(["Deploys on Fridays via staging."], head="", tail="")
    assert data["known"] is True and data["diff_now"]["user"] == {"added": [], "removed": [], "changed": []}
    unknown = json.loads(hmc("session", "cccccc", "--memory", "--json", home=home, today=TODAY).stdout)
    assert unknown["known"] is False and unknown["loaded"] is None and unknown["unknown"] == "no prompt stored"
    assert hmc("session", "nope", "--memory", home=home, today=TODAY).returncode == 2


def test_status_names_the_stale_chat_and_the_pruning(home):
    out = hmc("status", home=home, today=TODAY)
    assert "Ops room" in out.stdout and "still runs on memory loaded 2026-10-20" in out.stdout
    assert "pruning    sessions inactive before" in out.stdout
    data = json.loads(hmc("status", "--json", home=home, today=TODAY).stdout)
    assert [s["session_id"] for s in data["stale_sessions"]] == ["20261020_090000_aaaaaaaa"]
    assert data["pruning"]["last_run"].startswith("2026-11-13")


def test_memory_list_json_says_which_sessions_loaded_each_entry(home):
    [data] = json.loads(hmc("memory", "list", "--target", "memory", "--json", home=home, today=TODAY).stdout)
    first, second = data["entries"]
    assert first["loaded"] == {"first_session": "20261114_090000_bbbbbb", "first_at": "2026-11-14T12:00:00+00:00",
                               "sessions": 1}
    assert second["loaded"]["sessions"] == 1
    (home / "memories" / "MEMORY.md").write_text("Written after every session.")
    [data] = json.loads(hmc("memory", "list", "--target", "memory", "--json", home=home, today=TODAY).stdout)
    assert data["entries"][0]["loaded"] == {"first_session": None, "first_at": None, "sessions": 0}
    (home / "state.db").unlink()
    [data] = json.loads(hmc("memory", "list", "--target", "memory", "--json", home=home, today=TODAY).stdout)
    assert data["entries"][0]["loaded"] is None


def test_a_damaged_state_db_is_one_line_exit_2(home):
    (home / "state.db").write_bytes(b"not sqlite at all" * 20)
    out = hmc("sessions", home=home, today=TODAY)
    assert out.returncode == 2 and "Traceback" not in out.stderr and out.stderr.count("\n") == 1


def test_search_and_log_say_what_hermes_pruned(home):
    out = hmc("search", "nothingmatchesthis", home=home, today=TODAY)
    assert out.returncode == 0 and "Sessions inactive before 14 Oct 2026 were pruned by Hermes" in out.stdout
    data = json.loads(hmc("search", "nothingmatchesthis", "--json", home=home, today=TODAY).stdout)
    assert data["pruning"]["retention_days"] == 30
    log = hmc("log", home=home, today=TODAY)
    assert "the history is partial up to then" in log.stdout
    assert json.loads(hmc("log", "--json", home=home, today=TODAY).stdout)["pruning"]["auto_prune"] is True
    (home / "config.yaml").write_text("sessions:\n  auto_prune: false\n")
    # a run recorded earlier still happened: it is said whatever the setting is now
    assert "were pruned by Hermes" in hmc("search", "nothingmatchesthis", home=home, today=TODAY).stdout
