"""Smoke test of the harness: the real 0.22.2 agent loop writes a home, and what it sent the model is
what it stored (HERMES-FORMATS.md §8)."""

from __future__ import annotations

import json
import re

import pytest

from tests.e2e.agent_loop import (
    memory_block, prompt_hash, run_hermes, run_hermes_interactive, session_messages, session_prompt,
    session_row, state_db,
)
from tests.e2e.model_server import REVIEW, ScriptedModel, memory_add, reply

pytestmark = pytest.mark.e2e

ENTRY = "User prefers tabs over spaces in Python files"


def test_memory_add_is_saved_and_reaches_the_next_prompt(tmp_path, hermes_venv_path):
    """A foreground add is saved; each session's prompt is stored exactly as sent; the next session's
    prompt carries the entry in its MEMORY block."""
    home = tmp_path / "hermes"
    with ScriptedModel([memory_add(ENTRY), reply("Saved.")]) as server:
        first = run_hermes(home, "Remember: I prefer tabs.", server, venv=hermes_venv_path)
        assert first.ok, first.describe()

        assert (home / "memories" / "MEMORY.md").read_text(encoding="utf-8") == ENTRY
        db = state_db(home)
        tool_rows = [m for m in session_messages(db, first.session_id) if m["role"] == "tool"]
        assert json.loads(tool_rows[0]["content"])["success"] is True
        sent = first.main_requests()[0].body["messages"][0]
        assert sent["role"] == "system"
        assert sent["content"] == session_prompt(db, first.session_id)  # byte for byte
        assert session_row(db, first.session_id)["system_prompt_hash"] == prompt_hash(sent["content"])
        assert memory_block(sent["content"]) is None  # both stores were empty at start

        server.push(reply("Hello again."))
        second = run_hermes(home, "Hi.", server, venv=hermes_venv_path)
        assert second.ok, second.describe()
        assert second.session_id != first.session_id
        prompt = second.main_requests()[0].system_prompt
        assert prompt == session_prompt(db, second.session_id)
        block = memory_block(prompt)
        assert block is not None and "MEMORY (your personal notes) [" in block
        assert ENTRY in block


def test_write_approval_stages_the_add(tmp_path, hermes_venv_path):
    """With write_approval on (and no one to ask in a one-shot run) the add is staged, and the tool
    result that state.db keeps names the pending record."""
    home = tmp_path / "hermes"
    with ScriptedModel([memory_add(ENTRY), reply("Proposed.")]) as server:
        run = run_hermes(home, "Remember: I prefer tabs.", server, venv=hermes_venv_path,
                         config={"memory": {"write_approval": True}})
        assert run.ok, run.describe()

    staged = sorted((home / "pending" / "memory").glob("*.json"))
    assert len(staged) == 1 and re.fullmatch(r"[0-9a-f]{8}\.json", staged[0].name)
    record = json.loads(staged[0].read_text(encoding="utf-8"))
    assert record["payload"]["content"] == ENTRY and record["action"] == "add"
    # 0.22.2 names a foreground tool write "assistant_tool" (older notes say "foreground")
    assert record["origin"] == "assistant_tool"
    store = home / "memories" / "MEMORY.md"
    assert not store.exists() or ENTRY not in store.read_text(encoding="utf-8")

    tool = [m for m in session_messages(state_db(home), run.session_id) if m["role"] == "tool"]
    result = json.loads(tool[0]["content"])
    assert "pending_id" in tool[0]["content"] and result["staged"] is True
    assert result["pending_id"] == record["id"] == staged[0].stem


def test_background_review_writes_leave_no_tool_rows(tmp_path, hermes_venv_path):
    """nudge_interval 1: the review runs after the first turn. In the interactive CLI (a one-shot
    run may exit before its review is done) the review's add lands in USER.md, and state.db holds
    no tool row for it."""
    home = tmp_path / "hermes"
    review_entry = "User works mostly in Rust"
    with ScriptedModel([reply("Noted.")], review=[memory_add(review_entry, "user"), reply("Saved.")]) as server:
        run = run_hermes_interactive(home, ["I mostly write Rust these days."], server, reviews=1,
                                     venv=hermes_venv_path, config={"memory": {"nudge_interval": 1}})
        assert run.ok, run.describe()
        assert server.finished_turns(REVIEW) == 1

    assert (home / "memories" / "USER.md").read_text(encoding="utf-8") == review_entry
    rows = session_messages(state_db(home), run.session_id)
    assert [m["role"] for m in rows] == ["user", "assistant"]
    assert "origin=background_review" in (home / "logs" / "agent.log").read_text(encoding="utf-8")
