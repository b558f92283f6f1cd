"""The memory calls the tool refused: kept with the release's reason on every read route, through the
history's cache, bounded, said for a person, and listed by `hmc log` / `hmc log --refused`.
(The reasons themselves are the releases' own texts: tests/conformance/test_wording.py stages each
kind with the release and reads them back from its tool results.)"""

from __future__ import annotations

import json

import pytest

from core.sessions import memory_calls
from core.timeline.refusals import select
from tests.core.test_review import fake_key
from tests.core.test_timeline import add, make_home, timeline, write_files

FULL = ("Memory at 2,150/2,200 chars. Adding this entry (120 chars) would exceed the limit. Replace or remove "
        "existing entries first.")
CAP = ("Memory consolidation failed 4 times this turn. Stop retrying memory calls — leave memory unchanged for now "
       "and continue with your reply to the user. The fact can be saved in a later turn.")
NO_MATCH = "No entry matched 'Node 20'."


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.fixture
def run_cli(capsys, monkeypatch):
    """`hmc ARGS` in-process: (exit code, stdout, stderr)."""
    from tui.cli.main import main

    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")

    def run(*args: str):
        capsys.readouterr()
        code = main(["--today", "2026-10-01", *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def refusing_home(tmp_path, layout="current"):
    home, db = make_home(tmp_path, layout)
    db.session("s1", "telegram")
    db.session("s2", "cli")
    db.call("s1", add("we deploy on fridays"))
    db.call("s1", add("the staging db is pg-14 on port 5433"), result={"success": False, "error": FULL})
    db.call("s2", {"action": "replace", "target": "user", "old_text": "Node 20", "content": "Node 22"},
            result={"success": False, "error": NO_MATCH})
    db.call("s2", add("still full"), result={"success": False, "done": True, "error": CAP})
    db.call("s2", {"target": "memory", "operations": [{"action": "add", "content": "batched fact"}]},
            result={"success": False, "error": 42})  # a reason that isn't text
    write_files(home, ["we deploy on fridays"])
    return home, db


@pytest.mark.parametrize("layout", ["none", "inline", "current"])
def test_each_refused_call_is_kept_with_its_reason_on_every_route(tmp_path, layout):
    home, _ = refusing_home(tmp_path, layout)
    _, tl = timeline(home)
    assert [w.content for w in tl.log()] == ["we deploy on fridays"]
    got = select(tl.refused)
    assert [(r.call.session_id, r.call.action, r.kind) for r in got] == [
        ("s1", "add", "limit"), ("s2", "replace", "no-match"), ("s2", "add", "consolidation-cap"),
        ("s2", "batch", "other")]
    assert got[0].reason == FULL and "73 chars over its limit" in got[0].said  # 2,150 + 3 + 120 - 2,200
    assert "consolidation cap" in got[2].said
    assert got[3].said == "the tool gave no reason"
    assert got[3].texts == ("batched fact",)
    assert tl.stats["ignored"]["failed"] == 4


def test_refusals_survive_the_cache_and_new_ones_are_added(tmp_path):
    home, db = refusing_home(tmp_path)
    _, first = timeline(home)
    db.call("s1", {"action": "remove", "target": "memory", "old_text": "x"},
            result={"success": False, "error": "Multiple entries matched 'x'. Be more specific."})
    _, again = timeline(home)
    assert again.stats["cache"] == "hit"
    assert [c for c, _ in again.refused[:4]] == [c for c, _ in first.refused]
    assert [r.kind for r in select(again.refused)][-1] == "ambiguous"


def test_a_damaged_refusal_in_the_cache_rebuilds_it(tmp_path):
    from core.timeline import cache as tl_cache

    home, _ = refusing_home(tmp_path)
    curator, tl = timeline(home)
    path = tl_cache.cache_path(curator.home.state_db)
    obj = tl_cache.decode(path.read_bytes())
    obj["refused"] = [("not a call", "why")]
    path.write_bytes(tl_cache.encode(obj))
    _, again = timeline(home)
    assert again.stats["cache"] == "rebuilt"
    assert len(again.refused) == 4


def test_the_kept_refusals_are_bounded_to_the_newest(tmp_path, monkeypatch):
    monkeypatch.setattr(memory_calls, "MAX_REFUSED", 3)
    home, db = make_home(tmp_path)
    db.session("s")
    for n in range(10):
        db.call("s", add(f"fact {n}"), result={"success": False, "error": FULL})
    write_files(home, ["x"])
    _, tl = timeline(home)
    assert len(tl.refused) <= 2 * 3  # trimmed as they come, to the newest 3 at least every 3
    assert [c.content for c, _ in tl.refused][-3:] == ["fact 7", "fact 8", "fact 9"]


def test_select_filters_by_target_days_and_session(tmp_path):
    home, db = refusing_home(tmp_path)
    _, tl = timeline(home)
    assert [r.call.action for r in select(tl.refused, target="user")] == ["replace"]
    assert [r.call.session_id for r in select(tl.refused, session="s1")] == ["s1"]
    late = db.when(3)  # the third call's minute: the first two are before it
    assert len(select(tl.refused, since=late)) == 3
    assert len(select(tl.refused, until=db.when(1) - 3600 * 24 * 2)) == 0


def test_hmc_log_lists_refusals_in_text_and_json(tmp_path, run_cli):
    home, _ = refusing_home(tmp_path)
    code, out, _ = run_cli("--home", str(home), "log", "--refused")
    assert code == 0
    assert "memory add      refused · agent · telegram · session s1" in out
    assert "why: MEMORY.md is at 2,150/2,200 chars" in out
    assert "+ the staging db is pg-14 on port 5433" in out
    assert "- Node 20" in out and "+ Node 22" in out
    assert "add + batched fact" in out
    code, out, _ = run_cli("--home", str(home), "log")
    assert "4 memory calls the tool refused (nothing written): `hmc log --refused`" in out
    code, out, _ = run_cli("--home", str(home), "log", "--refused", "--json", "--source", "telegram")
    data = json.loads(out)
    assert [r["session_id"] for r in data["refused"]] == ["s1"]
    assert data["refused"][0]["kind"] == "limit" and data["refused"][0]["source"] == "telegram"
    code, out, _ = run_cli("--home", str(home), "log", "--json", "--source", "hmc")
    assert json.loads(out)["refused"] == []


def test_a_secret_in_a_refused_call_is_masked(tmp_path, run_cli):
    home, db = make_home(tmp_path)
    db.session("s")
    secret = fake_key()
    db.call("s", add(f"the key is {secret}"), result={"success": False, "error": f"Blocked: content matches "
                                                                                  f"threat pattern 'x'. {secret}"})
    write_files(home, ["x"])
    code, out, _ = run_cli("--home", str(home), "log", "--refused")
    assert secret not in out and "the key is sk-…" in out
    code, out, _ = run_cli("--home", str(home), "log", "--refused", "--json")
    assert secret not in out


def test_no_refusals_says_so(tmp_path, run_cli):
    home, db = make_home(tmp_path)
    db.session("s")
    db.call("s", add("fine"))
    write_files(home, ["fine"])
    code, out, _ = run_cli("--home", str(home), "log", "--refused")
    assert code == 0 and "no refused memory calls recorded" in out
    code, out, _ = run_cli("--home", str(home), "log")
    assert "refused" not in out


def test_a_sessions_transcript_says_which_memory_calls_were_refused(tmp_path, run_cli):
    home, _ = refusing_home(tmp_path)
    code, out, _ = run_cli("--home", str(home), "session", "s1")
    assert code == 0
    assert out.count("✗ the memory tool refused it:") == 1
    assert "✗ the memory tool refused it: MEMORY.md is at 2,150/2,200 chars" in out
    code, out, _ = run_cli("--home", str(home), "session", "s2")
    assert out.count("✗ the memory tool refused it:") == 3  # no match, the cap, and a reason that isn't text
    assert "it gave no reason" in out
