"""#21 "Refusals speak to the agent": the command line says the release's refusals for a person
(core.hermes.wording); --json keeps the release's words and adds the person's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.runner import hmc
from tests.core.pending_support import make_home as pending_home
from tests.core.pending_support import stage
from tests.core.test_timeline import Db, write_files

AGENT_WORDS = ("current_entries", "in this turn", "Retry", "old_text")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.fixture
def home(tmp_path) -> Path:
    root = tmp_path / "hermes"
    (root / "memories").mkdir(parents=True)
    write_files(root, ["Project uses pnpm", "Deploy with make ship", "budget 1000"], ["Name: Ana"])
    (root / "config.yaml").write_text("memory:\n  memory_char_limit: 100\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("version", ["0.19", "0.22"])
@pytest.mark.parametrize("args,said", [
    (("remove", "-t", "memory", "kubernetes"), "No entry contains 'kubernetes' (MEMORY.md has 3 entries: `hmc memory list`)."),
    (("remove", "-t", "memory", "e"), "'e' is in more than one entry of MEMORY.md"),
    (("add", "-t", "memory", "x" * 60), "MEMORY.md is at 55/100 chars, and this entry (60 chars) would take it 18 chars over its limit"),
    (("replace", "-t", "memory", "pnpm", "y" * 80), "would be at 118/100 chars, 18 chars over its limit"),
    (("patch", "-t", "memory", "00", "11"), "'00' occurs 2 times in that entry"),
])
def test_memory_refusals_are_said_for_a_person(home, version, args, said):
    before = (home / "memories" / "MEMORY.md").read_bytes()
    result = hmc("--hermes-version", version, "memory", *args, home=home)
    assert result.returncode == 1 and said in result.stderr, result.stderr
    assert not any(word in result.stderr for word in AGENT_WORDS)
    assert (home / "memories" / "MEMORY.md").read_bytes() == before


def test_an_add_already_there_is_said_for_a_person(home):
    result = hmc("memory", "add", "-t", "memory", "budget 1000", home=home)
    assert result.returncode == 0 and "Already in MEMORY.md: nothing was added." in result.stdout


def test_pending_says_why_for_a_person_and_json_keeps_both(tmp_path):
    root = pending_home(tmp_path)
    stage(root, "remove", old_text="kubernetes", rid="0000000c")
    listed = hmc("pending", "list", home=root)
    assert "No entry contains 'kubernetes'" in listed.stdout and "current_entries" not in listed.stdout
    shown = hmc("pending", "show", "0000000c", home=root)
    assert "No entry contains 'kubernetes'" in shown.stdout
    record = json.loads(hmc("pending", "list", "--json", home=root).stdout)["records"][0]
    assert record["reason"].startswith("No entry matched 'kubernetes'")  # the release's words, kept
    assert record["reason_plain"].startswith("No entry contains 'kubernetes'")
    out = hmc("pending", "approve", "0000000c", home=root)
    assert out.returncode == 1 and "kept 0000000c: No entry contains 'kubernetes'" in out.stdout
    failed = json.loads(hmc("pending", "approve", "0000000c", "--json", home=root).stdout)["failed"][0]
    assert failed["reason"].startswith("No entry matched") and failed["reason_plain"].startswith("No entry contains")


def test_log_says_what_a_history_gap_is_and_translates_the_replay(tmp_path):
    root = tmp_path / "hermes"
    (root / "memories").mkdir(parents=True)
    write_files(root, ["written before any session"])
    db = Db(root / "state.db")
    db.session("s", "cli")
    db.call("s", {"action": "replace", "target": "memory", "old_text": "nowhere", "content": "rewritten"})
    write_files(root, ["rewritten"])
    result = hmc("log", home=root)
    assert result.returncode == 0, result.stderr
    assert "divergence" not in result.stdout and "history gap (MEMORY.md" in result.stdout
    assert "A history gap is a point where" in result.stdout
    assert "No entry contains 'nowhere'" in result.stdout and "current_entries" not in result.stdout
    data = json.loads(hmc("log", "--json", home=root).stdout)
    replayed = [d for d in data["divergences"] if d["write_id"]]
    assert "No entry matched 'nowhere'" in replayed[0]["detail"]
    assert "No entry contains 'nowhere'" in replayed[0]["detail_plain"]
