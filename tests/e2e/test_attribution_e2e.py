"""Who wrote each entry, on homes the real 0.22.2 agent loop wrote: a foreground add is its call's, a
staged write approved with hmc or in Hermes is its staging session's, the background review's add
(approval off, the default) is "background review of session S" from logs/agent.log, and none of
them is a hand edit or a history gap."""

from __future__ import annotations

import json

import pytest

from tests.cli.runner import hmc
from tests.e2e.agent_loop import memory_approve_in_hermes, run_hermes, run_hermes_interactive
from tests.e2e.model_server import REVIEW, ScriptedModel, memory_add, reply

pytestmark = pytest.mark.e2e

FOREGROUND = "Deploys go out on Thursdays after the staging check"
IN_HMC = "Staging DB is pg-16 on host db2"
IN_HERMES = "The on-call phone is in the red bag"
REVIEWED = "User works mostly in Rust"


def blame(home) -> dict[str, dict]:
    out = hmc("blame", "--json", home=home, today=None)
    assert out.returncode == 0, out.stderr
    return {e["text"]: e for store in json.loads(out.stdout) for e in store["entries"]}


def log(home) -> dict:
    out = hmc("log", "--json", home=home, today=None)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_staged_writes_approved_with_hmc_and_in_hermes_are_their_staging_sessions(tmp_path, hermes_venv_path):
    home = tmp_path / "hermes"
    approval = {"memory": {"write_approval": True}}
    script = [memory_add(FOREGROUND), reply("Saved."), memory_add(IN_HMC), reply("Proposed."),
              memory_add(IN_HERMES), reply("Proposed.")]
    with ScriptedModel(script) as server:
        first = run_hermes(home, "Remember when we deploy.", server, venv=hermes_venv_path)
        assert first.ok, first.describe()
        staged_hmc = run_hermes(home, "Remember the staging DB.", server, venv=hermes_venv_path, config=approval)
        assert staged_hmc.ok, staged_hmc.describe()
        staged_hermes = run_hermes(home, "Remember the phone.", server, venv=hermes_venv_path, config=approval)
        assert staged_hermes.ok, staged_hermes.describe()

    records = {json.loads(p.read_text(encoding="utf-8"))["payload"]["content"]: p.stem
               for p in (home / "pending" / "memory").glob("*.json")}
    assert set(records) == {IN_HMC, IN_HERMES}
    approved = hmc("pending", "approve", records[IN_HMC], home=home, today=None)
    assert approved.returncode == 0, approved.stderr
    reply_text = memory_approve_in_hermes(home, records[IN_HERMES], venv=hermes_venv_path)
    assert not (home / "pending" / "memory" / f"{records[IN_HERMES]}.json").exists(), reply_text

    entries = blame(home)
    assert entries[FOREGROUND]["origin"]["session_id"] == first.session_id
    for text, run in ((IN_HMC, staged_hmc), (IN_HERMES, staged_hermes)):
        origin = entries[text]["origin"]
        assert origin is not None and origin["by"] == "agent" and origin["session_id"] == run.session_id, text
        assert origin["message_id"] is not None  # `o` opens the staging call
    writes = {w["id"]: w for w in log(home)["writes"]}
    how = {w["content"]: w for w in writes.values() if w["by"] == "agent"}
    assert how[IN_HMC]["id"].endswith(":" + records[IN_HMC])
    assert log(home)["divergences"] == []  # no false history gap
    text = hmc("log", home=home, today=None).stdout
    assert "approved with hmc" in text and "approved in Hermes" in text and "hand edit" not in text


def test_the_background_reviews_add_is_credited_to_the_review_of_its_session(tmp_path, hermes_venv_path):
    """write_approval off (the default) and nudge_interval 1: the review adds to USER.md with no tool
    row; hmc credits it from logs/agent.log, names no hand edit and reports no history gap."""
    home = tmp_path / "hermes"
    with ScriptedModel([reply("Noted.")], review=[memory_add(REVIEWED, "user"), reply("Saved.")]) as server:
        run = run_hermes_interactive(home, ["I mostly write Rust these days."], server, reviews=1,
                                     venv=hermes_venv_path, config={"memory": {"nudge_interval": 1}})
        assert run.ok, run.describe()
        assert server.finished_turns(REVIEW) == 1
    assert (home / "memories" / "USER.md").read_text(encoding="utf-8") == REVIEWED

    origin = blame(home)[REVIEWED]["origin"]
    assert origin is not None and origin["by"] == "agent" and origin["source"] == "background review"
    assert origin["session_id"] == run.session_id and origin["message_id"] is None
    assert log(home)["divergences"] == []
    text = hmc("log", home=home, today=None).stdout
    assert f"background review of session {run.session_id}" in text and "hand edit" not in text
    assert "no recorded call" not in text
