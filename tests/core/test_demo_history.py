"""The demo's history: its state.db memory calls (0.22.2's verbs: add, patch, remove, batch), rebuilt
by core.timeline with that release's rules, give the demo's MEMORY.md and USER.md except the two
entries the user added by hand."""

from __future__ import annotations

import pytest

from core.curator import open_curator
from core.demo import build as demo
from core.timeline import build_timeline

HAND = {"ssh": "memory", "emoji": "user"}  # the release's scanner refused the agent's write of each


@pytest.fixture(scope="module")
def timeline(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg")))
    home = demo.build_demo_home(tmp_path_factory.mktemp("demo") / "hermes")
    try:
        curator = open_curator(home, None, demo.DEMO_TODAY)
        assert curator.hermes.release.name == "0.22.2" and curator.hermes.notice is None  # its rules replay
        yield build_timeline(curator, cache=False)
    finally:
        mp.undo()


def files(target: str, *, hand: bool = True) -> tuple[str, ...]:
    return tuple(e.text for e in demo.demo_entries() if e.target == target and (hand or e.key not in HAND))


def test_replay_gives_the_files_but_the_two_hand_edits(timeline):
    outside = [w for w in timeline.log() if w.by == "unknown"]
    last_agent = max(w.timestamp for w in timeline.log() if w.by == "agent")
    state = timeline.state_at(last_agent)
    for target in ("memory", "user"):
        assert state[target] == files(target, hand=False)
    assert [(w.target, w.changes) for w in outside] == [
        ("memory", ((None, files("memory")[1]),)), ("user", ((None, files("user")[5]),))]
    assert timeline.state_at(outside[-1].timestamp) == {t: files(t) for t in ("memory", "user")}


def test_blame_names_an_agent_write_for_every_other_entry(timeline):
    keys = {(e.target, e.text): e.key for e in demo.demo_entries()}
    blame = timeline.blame()
    assert [keys[(b.target, b.text)] for b in blame] == [e.key for e in demo.demo_entries()]
    for b in blame:
        if keys[(b.target, b.text)] in HAND:
            assert b.origin is None and b.first_seen.by == "unknown" and b.revisions == 1
        else:
            assert b.origin is not None and b.origin.by == "agent" and b.origin.session_id, b.text
    machine = next(b for b in blame if keys[(b.target, b.text)] == "machine")
    assert machine.revisions == 2 and machine.origin.action == "patch" and machine.first_seen.action == "batch"
    sources = {b.origin.source for b in blame if b.origin}
    assert {"cli", "telegram", "discord"} <= sources


def test_failed_and_staged_calls_are_ignored(timeline):
    assert timeline.stats["ignored"] == {"failed": 3, "staged for approval": 1}
    assert timeline.stats["skipped"] == {}
    written = {o.get("content") for w in timeline.log() if w.by == "agent"
               for o in (w.operations or [{"content": w.content}])}
    assert demo.C.PENDING_BATCH_ADD not in written  # the staged batch (the pending record `batch`)
    assert not any(w.note for w in timeline.log() if w.by == "agent")


def test_divergences_are_exactly_the_two_hand_edits(timeline):
    assert [(d.target, d.write_id, d.detail) for d in timeline.divergences] == [
        ("memory", None, "MEMORY.md as it is now shows changes no recorded write explains (1 added)"),
        ("user", None, "USER.md as it is now shows changes no recorded write explains (1 added)")]


def test_the_story_has_every_kind_of_write(timeline):
    agent = [w for w in timeline.log() if w.by == "agent"]
    assert {w.action for w in agent} == {"add", "patch", "remove", "batch"}
    assert any(w.action == "add" and not w.changes for w in agent)  # an exact re-add changes nothing
    assert {w.target for w in agent} == {"memory", "user"}
    assert len({w.session_id for w in agent}) >= 10
