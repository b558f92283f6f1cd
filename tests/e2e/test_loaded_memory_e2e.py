"""hmc's answers about what each session loaded, on homes the real 0.22.2 agent loop wrote: `hmc memory
prompt --raw` is, byte for byte, the memory the next session sends; `hmc session ID --memory` is what
that session sent; `hmc sessions` tells the current snapshot from the older one."""

from __future__ import annotations

import json

import pytest

from core.snapshots.blocks import parse, render_loaded
from tests.cli.runner import hmc
from tests.e2e.agent_loop import run_hermes
from tests.e2e.model_server import ScriptedModel, memory_add, reply

pytestmark = pytest.mark.e2e

FIRST, SECOND = "Deploys go out on Thursdays after the staging check", "Prefers answers in French"


def sent_memory(run) -> str:
    """The memory text of the prompt a run sent the model (its first request)."""
    loaded = parse(run.main_requests()[0].system_prompt)
    assert loaded is not None, "hmc can't read the blocks of the prompt the agent sent"
    return render_loaded(loaded)


def test_what_hmc_says_each_session_loaded_is_what_it_sent(tmp_path, hermes_venv_path):
    home = tmp_path / "hermes"
    with ScriptedModel([memory_add(FIRST), reply("Saved."), memory_add(SECOND, "user"), reply("Noted.")]) as server:
        first = run_hermes(home, "Remember when we deploy.", server, venv=hermes_venv_path)
        assert first.ok, first.describe()
        before_second = hmc("memory", "prompt", "--raw", home=home, today=None)
        assert before_second.returncode == 0, before_second.stderr
        second = run_hermes(home, "I'd like answers in French.", server, venv=hermes_venv_path)
        assert second.ok, second.describe()
        server.push(reply("Bonjour."))
        third = run_hermes(home, "Salut.", server, venv=hermes_venv_path)
        assert third.ok, third.describe()

    # the block hmc prints is the one the next session sent, byte for byte (no newline added)
    assert before_second.stdout == sent_memory(second) and FIRST in before_second.stdout
    assert SECOND in sent_memory(third)

    for run in (second, third):
        out = hmc("session", run.session_id, "--memory", "--json", home=home, today=None)
        data = json.loads(out.stdout)
        assert data["known"] is True
        loaded = "\n\n".join(b for b in (data["loaded"]["memory"], data["loaded"]["user"]) if b)
        assert loaded == sent_memory(run)

    sessions = {s["session_id"]: s for s in json.loads(hmc("sessions", "--json", home=home, today=None).stdout)["sessions"]}
    assert sessions[third.session_id]["current"] is True  # it loaded the files as they are
    assert sessions[second.session_id]["current"] is False  # USER.md changed during it
    assert sessions[first.session_id]["loaded"] == {"memory": None, "user": None}  # both empty at its start
    [listed] = json.loads(hmc("memory", "list", "--target", "memory", "--json", home=home, today=None).stdout)
    assert listed["entries"][0]["loaded"]["first_session"] == second.session_id
    assert listed["entries"][0]["loaded"]["sessions"] == 2


def test_a_write_approved_in_hmc_reaches_the_next_session_as_hmc_said(tmp_path, hermes_venv_path):
    home = tmp_path / "hermes"
    with ScriptedModel([memory_add(FIRST), reply("Proposed.")]) as server:
        staged = run_hermes(home, "Remember when we deploy.", server, venv=hermes_venv_path,
                            config={"memory": {"write_approval": True}})
        assert staged.ok, staged.describe()
        approved = hmc("pending", "approve", "all", home=home, today=None)
        assert approved.returncode == 0, approved.stdout + approved.stderr
        [listed] = json.loads(hmc("memory", "list", "--target", "memory", "--json", home=home, today=None).stdout)
        assert listed["entries"][0]["loaded"] == {"first_session": None, "first_at": None, "sessions": 0}
        block = hmc("memory", "prompt", "--raw", home=home, today=None).stdout
        server.push(reply("Hi."))
        after = run_hermes(home, "Hi.", server, venv=hermes_venv_path)
        assert after.ok, after.describe()
    assert block == sent_memory(after) and FIRST in block


def test_why_finds_a_promise_the_model_did_not_keep_and_a_refused_write(tmp_path, hermes_venv_path):
    """The scripted model says "Got it, saved" without calling the memory tool (small models do),
    then tries a write the release refuses (over the limit): `hmc why` names each, from the rows
    the real agent loop wrote, and the review flags the unkept promise."""
    home = tmp_path / "hermes"
    big = "Build cache lives on the NVMe volume /mnt/fast; " + "x" * 120
    with ScriptedModel([reply("Got it, saved to memory."), memory_add(big), reply("Memory is full.")]) as server:
        claimed = run_hermes(home, "Remember that the TLS certificate of harbor-web expires on 3 March.", server,
                             venv=hermes_venv_path)
        assert claimed.ok, claimed.describe()
        refused = run_hermes(home, "Remember where the build cache lives.", server, venv=hermes_venv_path,
                             config={"memory": {"memory_char_limit": 100}})
        assert refused.ok, refused.describe()

    answer = json.loads(hmc("why", "--json", "harbor-web TLS certificate expires", home=home, today=None).stdout)
    first = answer["causes"][0]
    assert (first["cause"], first["verdict"]) == ("never-saved", "yes"), answer
    assert "Got it, saved" in first["detail"] and "made no memory call" in first["detail"]
    assert first["evidence"][0]["session_id"] == claimed.session_id

    answer = json.loads(hmc("why", "--json", "build cache NVMe volume", home=home, today=None).stdout)
    first = answer["causes"][0]
    assert (first["cause"], first["verdict"]) == ("refused", "yes"), answer
    assert "over its limit" in first["detail"]
    refusals = json.loads(hmc("log", "--refused", "--json", home=home, today=None).stdout)["refused"]
    assert [r["kind"] for r in refusals] == ["limit"] and refusals[0]["session_id"] == refused.session_id

    review = json.loads(hmc("review", "--json", home=home, today=None).stdout)
    unsaved = [f for f in review["findings"] if f["kind"] == "unsaved"]
    assert len(unsaved) == 1 and unsaved[0]["fact"].startswith("Remember that the TLS certificate")
