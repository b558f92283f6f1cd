"""The memory history rebuilt from sessions a real release recorded (its SessionDB, its memory_tool
writing the files): the replay must land on the files, name the right session for every entry, and
show each moment's files; rollbacks stay canonical and refuse to overwrite later changes."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from core.curator import open_curator
from core.hermes.memory import parse, serialize
from core.timeline import RollbackConflict, TimelineError, build_timeline
from tests.conformance.hmc_side import release_of
from tests.conformance.timeline_support import T0, Script, record

pytestmark = pytest.mark.area("sessions")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


def timeline_of(home: Path, profile: str | None = None, **kw):
    curator = open_curator(home, profile, date(2026, 10, 1))
    return curator, build_timeline(curator, **kw)


def files_of(rec_step: dict) -> dict:
    return {t: tuple(parse(text or "")) for t, text in rec_step["files"].items()}


def check_every_moment(rec, tl, upto: int | None = None):
    """state_at(just after each step) == the files the release left then."""
    for i, step in enumerate(rec.steps[:upto]):
        if "ts" not in rec.script.steps[i]:
            continue
        assert tl.state_at(rec.time_of(i) + 1) == files_of(step), f"step {i}: {rec.script.steps[i]}"


def check_now(home: Path, tl):
    disk = {t: tuple(parse((home / "memories" / n).read_text("utf-8")) if (home / "memories" / n).exists() else ())
            for t, n in (("memory", "MEMORY.md"), ("user", "USER.md"))}
    assert tl.state_at(T0 + 10**7) == disk
    assert {t: tuple(b.text for b in tl.blame(t)) for t in disk} == disk


def story() -> Script:
    s = Script().session("s-cli", "cli").session("s-tg", "telegram")
    s.call("s-cli", action="add", target="memory", content="Project Atlas deploys on Fridays")
    s.call("s-cli", action="add", target="memory", content="The staging db is pg-stage-2")
    s.call("s-tg", action="add", target="user", content="Prefers short answers")
    s.call("s-tg", action="replace", target="memory", old_text="Fridays", content="Project Atlas deploys on Thursdays")
    s.call("s-cli", action="add", target="memory", content="The staging db is pg-stage-2")  # exact re-add
    s.call("s-cli", action="remove", target="memory", old_text="nothing like this")  # fails
    s.call("s-cli", action="add", target="memory", content="Temporary note")
    s.call("s-tg", action="remove", target="memory", old_text="Temporary")
    return s


def test_replay_matches_the_files_at_every_moment(oracle, tmp_path):
    rec = record(oracle, tmp_path / "home", story())
    assert rec.steps[5 + 1]["result"]["success"] is True  # the exact re-add (steps: 2 sessions first)
    assert rec.steps[6 + 1]["result"]["success"] is False
    curator, tl = timeline_of(rec.home)
    check_every_moment(rec, tl)
    check_now(rec.home, tl)
    assert tl.divergences == []
    assert tl.stats["ignored"] == {"failed": 1}
    blame = {b.text: b for b in tl.blame("memory")}
    atlas = blame["Project Atlas deploys on Thursdays"]
    assert atlas.origin.session_id == "s-tg" and atlas.origin.source == "telegram" and atlas.origin.by == "agent"
    assert atlas.first_seen.session_id == "s-cli" and atlas.revisions == 2
    stage = blame["The staging db is pg-stage-2"]
    assert stage.origin.session_id == "s-cli" and stage.revisions == 1
    assert stage.origin.message_id == rec.steps[3]["ids"][0]  # the first add, not the re-add
    user = tl.blame("user")
    assert [(b.text, b.origin.session_id) for b in user] == [("Prefers short answers", "s-tg")]
    log = tl.log()
    edit = "patch" if release_of(oracle).patch else "replace"  # the story's edit, in the release's verb
    assert [w.action for w in log] == ["add", "add", "add", edit, "add", "add", "remove"]
    assert [w.timestamp for w in log] == sorted(w.timestamp for w in log)
    assert tl.log(target="user")[0].content == "Prefers short answers"
    assert [w.action for w in tl.log(source="telegram")] == ["add", edit, "remove"]
    assert [w.action for w in tl.log(since=T0 + 60 * 4, until=T0 + 60 * 4)] == [edit]
    diff = tl.diff(T0, T0 + 10**6, "memory")[0]
    assert diff.added == ["Project Atlas deploys on Thursdays", "The staging db is pg-stage-2"]


def test_substring_matching_follows_the_release(oracle, tmp_path):
    s = Script().session("a")
    s.call("a", action="add", target="memory", content="foo")
    s.call("a", action="add", target="memory", content="foo bar")
    s.call("a", action="remove", target="memory", old_text="foo")  # ambiguous: refused by the release
    s.call("a", action="replace", target="memory", old_text="o b", content="baz qux")
    s.call("a", action="replace", target="memory", old_text="fo", content="first")
    rec = record(oracle, tmp_path / "home", s)
    equal_first = release_of(oracle).exact_entry_first  # 0.22: the entry equal to "foo" goes
    assert rec.steps[3]["result"]["success"] is equal_first
    _, tl = timeline_of(rec.home)
    check_every_moment(rec, tl)
    check_now(rec.home, tl)
    assert [b.text for b in tl.blame("memory")] == (["baz qux"] if equal_first else ["first", "baz qux"])
    assert tl.divergences == []


def test_batches_and_a_long_chain_of_replaces(oracle, tmp_path):
    oracle.require("batch")
    s = Script().session("a").session("b", "discord")
    s.call("a", action="add", target="memory", content="v0 of the entry")
    for i in range(1, 15):
        s.call("a" if i % 2 else "b", action="replace", target="memory", old_text=f"v{i - 1} ", content=f"v{i} of the entry")
    s.call("b", target="memory", operations=[
        {"action": "add", "content": "batch one"}, {"action": "add", "content": "batch two"},
        {"action": "replace", "old_text": "batch one", "content": "batch one, revised"},
        {"action": "add", "content": "v14 of the entry"},  # an exact re-add inside a batch
    ])
    s.call("a", target="memory", operations=[{"action": "remove", "old_text": "two"},
                                             {"action": "replace", "old_text": "v14", "content": "v15 of the entry"}])
    s.call("a", target="memory", operations=[{"action": "remove", "old_text": "nothing matches"}])  # fails whole
    rec = record(oracle, tmp_path / "home", s)
    _, tl = timeline_of(rec.home)
    check_every_moment(rec, tl)
    check_now(rec.home, tl)
    assert tl.divergences == []
    entry = {b.text: b for b in tl.blame("memory")}["v15 of the entry"]
    assert entry.revisions == 16 and entry.first_seen.session_id == "a" and entry.origin.action == "batch"
    batch = [w for w in tl.log() if w.action == "batch"][0]
    assert set(batch.changes) == {(None, "batch one, revised"), (None, "batch two")}


def test_staged_calls_are_not_writes(oracle, tmp_path):
    oracle.require("write_approval")
    s = Script().session("a")
    s.call("a", action="add", target="memory", content="staged, never applied")
    rec = record(oracle, tmp_path / "home", s, config="memory:\n  write_approval: true\n")
    assert rec.steps[1]["result"].get("staged") is True
    _, tl = timeline_of(rec.home)
    assert tl.log() == [] and tl.stats["ignored"] == {"staged for approval": 1}
    check_now(rec.home, tl)


def test_hand_edits_in_between_are_outside_changes(oracle, tmp_path):
    s = Script().session("a")
    s.call("a", action="add", target="memory", content="from the agent")
    s.hand("memory", "from the agent\n§\nwritten by hand")
    s.call("a", action="add", target="memory", content="agent again")
    s.hand("user", "a person wrote this")
    rec = record(oracle, tmp_path / "home", s)
    _, tl = timeline_of(rec.home)
    check_now(rec.home, tl)
    blame = {b.text: b for b in tl.blame("memory")}
    assert blame["written by hand"].origin is None and blame["written by hand"].first_seen.by == "unknown"
    assert blame["from the agent"].origin.by == "agent" and blame["agent again"].origin.by == "agent"
    assert tl.blame("user")[0].origin is None
    assert {d.target for d in tl.divergences} == {"memory", "user"}
    outside = [w for w in tl.log() if w.by == "unknown"]
    assert outside and all("by no recorded call" in w.note for w in outside)
    # before the hand edit the history is exact
    check_every_moment(rec, tl, upto=2)


def test_two_profiles_have_their_own_history(oracle, tmp_path):
    base = tmp_path / "home"
    s1 = Script().session("main")
    s1.call("main", action="add", target="memory", content="default profile fact")
    record(oracle, base, s1)
    s2 = Script().session("work")
    s2.call("work", action="add", target="memory", content="work profile fact")
    s2.call("work", action="add", target="user", content="work user fact")
    record(oracle, base / "profiles" / "work", s2)
    _, tl = timeline_of(base)
    _, tw = timeline_of(base, "work")
    assert [b.text for b in tl.blame()] == ["default profile fact"]
    assert [(b.text, b.origin.session_id) for b in tw.blame()] == [("work profile fact", "work"),
                                                                   ("work user fact", "work")]


def canonical(home: Path) -> None:
    for name in ("MEMORY.md", "USER.md"):
        p = home / "memories" / name
        if p.exists():
            text = p.read_text("utf-8")
            assert serialize(parse(text)) == text


def test_rollbacks_of_add_replace_remove_and_batch(oracle, tmp_path):
    s = Script().session("a")
    s.call("a", action="add", target="memory", content="keep me")
    s.call("a", action="add", target="memory", content="added by mistake")
    s.call("a", action="add", target="memory", content="original wording")
    s.call("a", action="replace", target="memory", old_text="original", content="new wording")
    s.call("a", action="remove", target="memory", old_text="keep")
    if oracle.has("batch"):
        s.call("a", target="user", operations=[{"action": "add", "content": "u1"}, {"action": "add", "content": "u2"}])
    rec = record(oracle, tmp_path / "home", s)
    ids = {i: f"m{step['ids'][1]}" for i, step in enumerate(rec.steps) if step.get("ids")}
    curator, tl = timeline_of(rec.home)
    tl.rollback(ids[2])  # the add
    assert "added by mistake" not in curator.stores["memory"].read().entries
    canonical(rec.home)
    _, tl = timeline_of(rec.home)
    tl.rollback(ids[4])  # the replace
    assert "original wording" in curator.stores["memory"].read().entries
    _, tl = timeline_of(rec.home)
    tl.rollback(ids[5])  # the remove
    assert set(curator.stores["memory"].read().entries) == {"keep me", "original wording"}
    canonical(rec.home)
    if oracle.has("batch"):
        _, tl = timeline_of(rec.home)
        with pytest.raises(Exception, match="remove every entry"):
            tl.rollback(ids[6])  # emptying a store needs force
        tl.rollback(ids[6], force=True)
        assert curator.stores["user"].read().entries == ()
        canonical(rec.home)
    # every rollback is hmc's write: in the log, and undoable
    _, tl = timeline_of(rec.home)
    hmc = [w for w in tl.log() if w.by == "hmc"]
    assert hmc and all(w.action == "rollback" for w in hmc)
    assert hmc[0].detail == f"rollback of {ids[2]}"
    assert tl.divergences == []
    curator.history.undo(curator.stores)
    check_now(rec.home, build_timeline(open_curator(rec.home, None, date(2026, 10, 1))))


def test_a_rollback_whose_entry_changed_since_is_a_conflict(oracle, tmp_path):
    s = Script().session("a")
    s.call("a", action="add", target="memory", content="first text")
    s.call("a", action="replace", target="memory", old_text="first", content="second text")
    s.call("a", action="add", target="memory", content="to be hand edited")
    s.hand("memory", "second text\n§\nhand edited now")
    rec = record(oracle, tmp_path / "home", s)
    before = (rec.home / "memories" / "MEMORY.md").read_bytes()
    curator, tl = timeline_of(rec.home)
    add_id, replace_id, add2 = (f"m{rec.steps[i]['ids'][1]}" for i in (1, 2, 3))
    with pytest.raises(RollbackConflict, match="replaced since, by the agent"):
        tl.rollback(add_id)
    with pytest.raises(RollbackConflict, match="by no recorded call"):
        tl.rollback(add2)
    assert (rec.home / "memories" / "MEMORY.md").read_bytes() == before
    with pytest.raises(TimelineError, match="no recorded call made"):
        tl.rollback([w for w in tl.log() if w.by == "unknown"][0].id)
    with pytest.raises(TimelineError, match="no write"):
        tl.rollback("m999999")
    tl.rollback(replace_id)
    assert curator.stores["memory"].read().entries == ("first text", "hand edited now")


def test_the_snapshot_a_release_saves_on_drift_is_read(oracle, tmp_path):
    oracle.require("drift")
    # drift up to 0.20: a blank line around §; from 0.22 only an entry longer than the whole limit
    by_hand = ("added by hand, with a blank line" if release_of(oracle).round_trip_drift
               else "added by hand, far too long: " + "x" * 2200)
    s = Script().session("a")
    s.call("a", action="add", target="memory", content="from the agent")
    s.hand("memory", f"from the agent\n§\n\n{by_hand}\n")
    s.call("a", action="remove", target="memory", old_text="from the agent")  # refused: drift, .bak saved
    rec = record(oracle, tmp_path / "home", s)
    assert rec.steps[3]["result"]["success"] is False
    baks = sorted((rec.home / "memories").glob("MEMORY.md.bak.*"))
    assert len(baks) == 1 and baks[0].name.split(".bak.")[1].isdigit()
    _, tl = timeline_of(rec.home)
    stamp = int(baks[0].name.split(".bak.")[1])
    outside = [w for w in tl.log() if w.by == "unknown"]
    assert outside[0].timestamp == stamp and outside[0].detail.startswith(f"the snapshot {baks[0].name}")
    assert outside[0].changes == ((None, by_hand),)
    check_now(rec.home, tl)
    assert tl.state_at(stamp)["memory"] == ("from the agent", by_hand)


def test_o_opens_the_call_the_release_recorded(oracle, tmp_path):
    """Memory mode's o (core.timeline.view.origin_of) names the assistant message whose memory call
    the release recorded for each entry: an add, a replace, a batch, text in CJK only and in emoji
    only (no ASCII word to find them by: the release stores the call with json.dumps, as \\uXXXX)."""
    from core.timeline.view import NO_CALL, origin_of

    s = Script().session("s1", "cli")
    s.call("s1", action="add", target="memory", content="User prefers concise answers in British English")
    s.call("s1", action="add", target="user", content="Name is Ada")
    s.call("s1", action="replace", target="user", old_text="Ada", content="Name is Ada Lovelace, prefers tea")
    s.call("s1", action="add", target="user", content="User writes 中文 and English, prefers tea")
    s.call("s1", action="add", target="memory", content="用户喜欢简洁的回答")
    s.call("s1", action="add", target="memory", content="🚀🚀 🎉")
    batch = [{"action": "add", "content": "Deploys go out on Fridays"}]
    if oracle.has("batch"):
        s.call("s1", target="memory", operations=batch)
    rec = record(oracle, tmp_path / "home", s)
    _, tl = timeline_of(rec.home)
    check_now(rec.home, tl)
    expected = {"User prefers concise answers in British English": 1, "Name is Ada Lovelace, prefers tea": 3,
                "User writes 中文 and English, prefers tea": 4, "用户喜欢简洁的回答": 5, "🚀🚀 🎉": 6}
    if oracle.has("batch"):
        expected["Deploys go out on Fridays"] = 7
    for text, step in expected.items():
        w = origin_of(tl, text).write
        assert w is not None and w.session_id == "s1" and w.message_id == rec.steps[step]["ids"][0], text
    assert origin_of(tl, "never written anywhere at all, not once").write is None
    assert origin_of(tl, "Name is Ada").why != NO_CALL  # replaced since: not an entry now
