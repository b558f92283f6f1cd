"""The demo's history: its state.db memory calls (0.22.2's verbs: add, patch, remove, batch), rebuilt
by core.timeline with that release's rules, give the demo's MEMORY.md and USER.md except what state.db
doesn't record: two entries the user added by hand (history gaps), the background review's add (credited
from logs/agent.log) and a record approved in Hermes (credited to its staging call)."""

from __future__ import annotations

from datetime import datetime, timezone

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


def files(target: str, *, hand: bool = True, unrecorded: bool = True) -> tuple[str, ...]:
    return tuple(e.text for e in demo.demo_entries() if e.target == target and (hand or e.key not in HAND)
                 and (unrecorded or e.key not in UNRECORDED))


# written with no tool row: the background review's add (in logs/agent.log) and a record approved in Hermes
UNRECORDED = {"relative": "memory", "vague": "user"}


def text_of(key: str) -> str:
    return next(e.text for e in demo.demo_entries() if e.key == key)


def test_replay_gives_the_files_and_credits_what_state_db_doesnt_record(timeline):
    calls = [w for w in timeline.log() if w.by == "agent" and w.action != "outside"]
    for target in ("memory", "user"):  # what the calls alone make
        last = [w for w in calls if w.target == target][-1]
        assert last.after == files(target, hand=False, unrecorded=False)
    outside = [w for w in timeline.log() if w.action == "outside"]
    by_text = {w.changes[0][1]: w for w in outside}
    assert set(by_text) == {text_of(k) for k in (*HAND, *UNRECORDED)}
    day0 = datetime(demo.DEMO_TODAY.year, demo.DEMO_TODAY.month, demo.DEMO_TODAY.day, tzinfo=timezone.utc).timestamp()
    for key, days in (("ssh", 60), ("emoji", 45)):  # typed by hand after s08 and s11: nothing explains them
        w = by_text[text_of(key)]
        assert w.by == "unknown" and w.note.endswith("by no recorded call") and "hand edit" not in w.note
        # dated by the sessions' stored prompts: the first that loaded it started right after that session
        assert 0 < w.timestamp - (day0 - days * 86400) < 2 * 86400, (key, w.note)
    review = by_text[text_of("relative")]
    assert (review.by, review.source) == ("agent", "background review")
    assert review.detail.startswith(f"background review of session {review.session_id} (logs/agent.log")
    approved = by_text[text_of("vague")]
    assert approved.by == "agent" and approved.source == "discord" and approved.message_id is not None
    assert approved.detail == f"the agent, staged in session {approved.session_id}, approved in Hermes"
    # the store as the files show it from where the replay saw these changes (the files now)
    assert timeline.state_at(max(w.seen_at for w in outside)) == {t: files(t) for t in ("memory", "user")}
    assert all(w.timestamp <= w.seen_at for w in outside)  # evidence dates a write earlier, never later


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
    assert {"cli", "telegram", "discord", "background review"} <= sources


def test_failed_and_staged_calls_are_ignored(timeline):
    assert timeline.stats["ignored"] == {"failed": 3, "staged for approval": 2}
    assert timeline.stats["skipped"] == {}
    written = {o.get("content") for w in timeline.log() if w.by == "agent"
               for o in (w.operations or [{"content": w.content}])}
    assert demo.C.PENDING_BATCH_ADD not in written  # the staged batch (the pending record `batch`)
    # the one note: the agent's next memory call counted more entries than its calls make (the files
    # had changed outside its calls before it)
    notes = [w.note for w in timeline.log() if w.by == "agent" and w.note]
    assert len(notes) == 1 and notes[0].endswith("the store had changed outside the agent before it")


def test_the_history_gaps_are_the_two_hand_edits(timeline):
    """What the files show that nothing explains: the hand edits (and the count the agent's next memory
    call reported meanwhile). The review's add and the approval in Hermes are no gaps."""
    gaps = timeline.divergences
    assert {d.target for d in gaps} == {"memory", "user"}
    groups = {d.outside for d in gaps}
    for group in groups:
        rows = [w for w in timeline.log() if w.id.split(".")[0] == group]
        assert any(w.by == "unknown" for w in rows)
    assert [d.detail for d in gaps if d.write_id is None] == [
        "MEMORY.md as it is now shows changes no recorded write explains (1 added)",  # not the review's add
        "USER.md as it is now shows changes no recorded write explains (1 added)"]  # nor the approval in Hermes


def test_the_story_has_every_kind_of_write(timeline):
    agent = [w for w in timeline.log() if w.by == "agent" and w.action != "outside"]
    assert {w.action for w in agent} == {"add", "patch", "remove", "batch"}
    assert any(w.action == "add" and not w.changes for w in agent)  # an exact re-add changes nothing
    assert {w.target for w in agent} == {"memory", "user"}
    assert len({w.session_id for w in agent}) >= 10
