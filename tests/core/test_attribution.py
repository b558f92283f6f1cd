"""Who really wrote each entry (core.timeline.attribution and the replay of hmc's approvals): the
staging call behind an approval made with hmc (one by one or all at once) or in Hermes, the
background review from logs/agent.log, an undo that brings an entry back as it was, and the words
for a change nothing explains. (The real agent loop: tests/e2e/test_attribution_e2e.py.)"""

from __future__ import annotations

import json
import os
import time
from datetime import date

import pytest

from core.curator import open_curator
from core.timeline import agent_log, build_timeline
from core.timeline.view import HAND_EDIT, origin_line, origin_of
from tests.core.test_timeline import T0, Db, make_home, write_files

SID = "s-proposer"


class Clock:
    def __init__(self, start: float):
        self.t = start

    def __call__(self) -> float:
        self.t += 1.0
        return self.t


def staged_call(db: Db, payload: dict, rid: str, sid: str = SID) -> None:
    """The agent's call that write approval only staged: its result names the record."""
    db.call(sid, payload, {"success": True, "staged": True, "pending_id": rid, "message": "staged"})


def stage_record(home, rid: str, payload: dict, origin: str = "foreground") -> None:
    folder = home / "pending" / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    record = {"id": rid, "subsystem": "memory", "action": payload["action"], "summary": f"{payload['action']}",
              "origin": origin, "created_at": T0 + 30, "payload": payload}
    (folder / f"{rid}.json").write_text(json.dumps(record, indent=2), encoding="utf-8")


def curator(home, clock):
    return open_curator(home, None, date(2026, 10, 1), clock=clock)


def blame_of(cur, text, target="memory"):
    return next(b for b in build_timeline(cur).blame(target) if b.text == text)


@pytest.fixture()
def approvals(tmp_path):
    """A session adds two entries, then stages a replace of each and one add (write approval on)."""
    home, db = make_home(tmp_path)
    db.session(SID, "telegram")
    db.call(SID, {"action": "add", "target": "memory", "content": "Deploys go out on Thursdays."})
    db.call(SID, {"action": "add", "target": "memory", "content": "Staging DB is pg-14 on host db2."})
    for rid, payload in (
            ("aaaa0001", {"action": "replace", "target": "memory", "old_text": "Thursdays",
                          "content": "Deploys go out on Tuesdays."}),
            ("aaaa0002", {"action": "replace", "target": "memory", "old_text": "pg-14",
                          "content": "Staging DB is pg-16 on host db2."}),
            ("aaaa0003", {"action": "add", "target": "memory", "content": "The on-call phone is in the red bag."})):
        staged_call(db, payload, rid)
        stage_record(home, rid, payload)
    write_files(home, ["Deploys go out on Thursdays.", "Staging DB is pg-14 on host db2."])
    os.utime(home / "memories" / "MEMORY.md", (T0 + 150, T0 + 150))
    return home, db


def _lineage(cur):
    tl = build_timeline(cur)
    def named(w):  # hmc's journal ids differ between the two homes (one record per approval or one for all)
        return w.id.split(":")[0][0] + (":" + w.id.split(":")[1] if ":" in w.id else "") if w.id[0] == "h" else w.id

    return {b.text: (named(b.first_seen), b.revisions, b.origin.by, b.origin.session_id, b.origin.source)
            for b in tl.blame("memory")}


def test_approve_all_keeps_each_entrys_lineage_exactly_as_approving_by_id(approvals, tmp_path):
    home, _ = approvals
    twin = tmp_path / "twin"
    import shutil

    shutil.copytree(home, twin)
    one = curator(home, Clock(T0 + 600))
    for rid in ("aaaa0001", "aaaa0002", "aaaa0003"):
        assert one.pending.approve(rid).changed
    many = curator(twin, Clock(T0 + 600))
    report = many.pending.approve_all()
    assert report.ok and len(report.done) == 3
    by_id, together = _lineage(one), _lineage(many)
    assert by_id == together
    tuesday = together["Deploys go out on Tuesdays."]
    assert tuesday[1] == 2 and tuesday[0].startswith("m")  # first seen with the agent's add, one revision
    assert tuesday[2:] == ("agent", SID, "telegram")  # the staging call's session, not hmc
    assert together["The on-call phone is in the red bag."][2:] == ("agent", SID, "telegram")


def test_an_approved_add_names_its_staging_call_and_how_it_was_approved(approvals):
    home, db = approvals
    cur = curator(home, Clock(T0 + 600))
    cur.pending.approve("aaaa0003")
    tl = build_timeline(cur)
    b = next(b for b in tl.blame("memory") if b.text.startswith("The on-call phone"))
    assert b.origin.id.startswith("h") and b.origin.id.endswith(":aaaa0003")
    assert b.origin.detail == f"staged in session {SID}, approved with hmc"
    found = origin_of(tl, b.text, "memory")
    assert found.write is b.origin and found.write.message_id is not None  # `o` opens the staging call
    assert "telegram, approved with hmc" in origin_line(b, T0 + 700)
    assert not tl.divergences


def test_an_edited_approval_is_the_agents_entry_then_hmcs_edit(approvals):
    home, _ = approvals
    cur = curator(home, Clock(T0 + 600))
    cur.pending.approve("aaaa0003", edited="The on-call phone is in the blue bag.")
    b = blame_of(cur, "The on-call phone is in the blue bag.")
    assert b.first_seen.by == "agent" and b.first_seen.session_id == SID
    assert b.origin.by == "hmc" and b.revisions == 2


def test_undo_after_a_delete_brings_the_entry_back_with_its_origin(approvals):
    home, _ = approvals
    cur = curator(home, Clock(T0 + 600))
    before = blame_of(cur, "Staging DB is pg-14 on host db2.")
    cur.stores["memory"].remove("pg-14")
    build_timeline(cur)  # the delete cached in the history first, as in the TUI
    cur.history.undo(cur.stores, "memory")
    after = blame_of(cur, "Staging DB is pg-14 on host db2.")
    assert (after.origin.id, after.first_seen.id, after.revisions) == (before.origin.id, before.first_seen.id,
                                                                       before.revisions)
    assert after.origin.by == "agent"


def test_a_record_approved_in_hermes_is_the_staging_sessions_write(approvals):
    home, _ = approvals
    (home / "pending" / "memory" / "aaaa0003.json").unlink()  # Hermes deletes a record it applied
    write_files(home, ["Deploys go out on Thursdays.", "Staging DB is pg-14 on host db2.",
                       "The on-call phone is in the red bag."])
    cur = curator(home, Clock(T0 + 600))
    tl = build_timeline(cur)
    b = next(b for b in tl.blame("memory") if b.text.startswith("The on-call phone"))
    assert (b.origin.by, b.origin.session_id, b.origin.source) == ("agent", SID, "telegram")
    assert b.origin.detail == f"the agent, staged in session {SID}, approved in Hermes"
    assert origin_of(tl, b.text, "memory").write is b.origin
    assert "approved in Hermes" in origin_line(b, T0 + 700) and HAND_EDIT not in origin_line(b, T0 + 700)
    assert not tl.divergences  # not a history gap


def test_a_record_still_waiting_explains_nothing(approvals):
    home, _ = approvals  # the record is still in the queue: the same text typed by hand is not its approval
    write_files(home, ["Deploys go out on Thursdays.", "Staging DB is pg-14 on host db2.",
                       "The on-call phone is in the red bag."])
    tl = build_timeline(curator(home, Clock(T0 + 600)))
    b = next(b for b in tl.blame("memory") if b.text.startswith("The on-call phone"))
    assert b.origin is None and b.first_seen.by == "unknown"
    assert "by no recorded call" in b.first_seen.note and "hand edit" not in b.first_seen.note
    assert len(tl.divergences) == 1  # a real gap: nothing explains it


def _log_line(ts: float, sid: str | None, logger: str, message: str) -> str:
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts)) + f",{int(ts * 1000) % 1000:03d}"
    tag = f" [{sid}]" if sid else ""
    return f"{stamp} INFO{tag} {logger}: {message}\n"


def review_lines(ts: float, sid: str, memory_writes: int = 1) -> str:
    """What 0.22.2 logs for one background review of session `sid` writing memory."""
    out = [_log_line(ts, sid, "agent.turn_context", f"conversation turn: session={sid} model=m provider=custom "
                                                    "platform=cli history=4 msg='Review the conversation above' "
                                                    "origin=background_review")]
    for k in range(memory_writes):
        out.append(_log_line(ts + 1 + k, sid, "agent.tool_executor", "tool memory completed (0.01s, 194 chars)"))
    out.append(_log_line(ts + 5, sid, "agent.turn_finalizer", f"Turn ended: reason=done model=m api_calls=2/90 "
                                                              f"budget=2/90 session={sid} origin=background_review"))
    out.append(_log_line(ts + 5, sid, "agent.background_review", "Background review complete: thread=bg-review "
                                                                 "calls=2 in=10 out=5 cache_read=0 result=memory"))
    return "".join(out)


def foreground_lines(ts: float, sid: str) -> str:
    return (_log_line(ts, sid, "agent.turn_context", f"conversation turn: session={sid} model=m provider=custom "
                                                     "platform=cli history=0 msg='hi'")
            + _log_line(ts + 1, sid, "agent.tool_executor", "tool memory completed (0.01s, 90 chars)"))


@pytest.fixture()
def reviewed(tmp_path):
    """A session writes one entry with a call; later the review adds one (no tool row)."""
    home, db = make_home(tmp_path)
    db.session("s-chat", "cli")
    db.call("s-chat", {"action": "add", "target": "memory", "content": "Deploys go out on Thursdays."})
    write_files(home, ["Deploys go out on Thursdays.", "User keeps the VPN key in 1Password."])
    os.utime(home / "memories" / "MEMORY.md", (T0 + 3000, T0 + 3000))
    (home / "logs").mkdir()
    return home, db


def test_a_review_write_in_the_log_is_the_background_review_of_its_session(reviewed):
    home, _ = reviewed
    (home / "logs" / "agent.log").write_text(foreground_lines(T0 + 100, "s-chat") + review_lines(T0 + 1000, "s-chat"),
                                             encoding="utf-8")
    tl = build_timeline(curator(home, Clock(T0 + 4000)))
    b = next(b for b in tl.blame("memory") if b.text.startswith("User keeps"))
    assert (b.origin.by, b.origin.source, b.origin.session_id) == ("agent", "background review", "s-chat")
    assert b.origin.detail.startswith("background review of session s-chat")
    assert origin_line(b, T0 + 4000).endswith("background review")
    found = origin_of(tl, b.text, "memory")
    assert found.write is None and "no call to open" in found.why
    assert not tl.divergences


def test_a_rotated_log_still_counts_and_a_foreground_turn_does_not(reviewed):
    home, _ = reviewed
    logs = home / "logs"
    (logs / "agent.log.1").write_text(review_lines(T0 + 1000, "s-chat"), encoding="utf-8")
    (logs / "agent.log").write_text(foreground_lines(T0 + 2000, "s-chat"), encoding="utf-8")
    assert agent_log.read(logs).writes == [(pytest.approx(T0 + 1001, abs=1e-3), "s-chat")]
    (logs / "agent.log.1").unlink()
    assert agent_log.read(logs).writes == []  # a memory write in a foreground turn is not the review's
    tl = build_timeline(curator(home, Clock(T0 + 4000)))
    b = next(b for b in tl.blame("memory") if b.text.startswith("User keeps"))
    assert b.origin is None and len(tl.divergences) == 1


def test_a_review_outside_the_window_explains_nothing(reviewed):
    home, _ = reviewed  # the review wrote before the last known write: not this change
    (home / "logs" / "agent.log").write_text(review_lines(T0 - 5000, "s-chat"), encoding="utf-8")
    tl = build_timeline(curator(home, Clock(T0 + 4000)))
    b = next(b for b in tl.blame("memory") if b.text.startswith("User keeps"))
    assert b.origin is None
    note = b.first_seen.note
    assert note.startswith("written between ") and note.endswith("by no recorded call")


def test_a_gap_counts_only_what_nothing_explains(approvals):
    home, _ = approvals  # one look at the files shows two adds: an approval in Hermes, and one nothing explains
    (home / "pending" / "memory" / "aaaa0003.json").unlink()
    write_files(home, ["Deploys go out on Thursdays.", "Staging DB is pg-14 on host db2.",
                       "The on-call phone is in the red bag.", "Typed in by hand."])
    tl = build_timeline(curator(home, Clock(T0 + 600)))
    assert [d.detail for d in tl.divergences] == ["MEMORY.md as it is now shows changes no recorded write explains "
                                                  "(1 added)"]
    by = {b.text: b.first_seen.by for b in tl.blame("memory")}
    assert by["The on-call phone is in the red bag."] == "agent" and by["Typed in by hand."] == "unknown"


@pytest.mark.parametrize("kind", ["binary", "fifo", "folder", "huge", "dangling link", "cut line"])
def test_a_log_hmc_cant_use_is_not_known_never_a_hang(reviewed, kind):
    home, _ = reviewed
    path = home / "logs" / "agent.log"
    if kind == "binary":
        path.write_bytes(bytes(range(256)) * 400 + b"\xff\xfe tool memory completed (\n")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "huge":  # more than hmc reads: only the end counts (the review is there)
        filler = _log_line(T0 + 10, "s-x", "agent.other", "x" * 200)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(filler * (agent_log.MAX_FILE_BYTES // len(filler) + 50))
            fh.write(review_lines(T0 + 1000, "s-chat"))
    elif kind == "dangling link":
        path.symlink_to(home / "logs" / "nowhere")
    else:
        path.write_text(review_lines(T0 + 1000, "s-chat")[:-40], encoding="utf-8")
    started = time.monotonic()
    got = agent_log.read(home / "logs")
    assert time.monotonic() - started < 10
    tl = build_timeline(curator(home, Clock(T0 + 4000)))
    b = next(b for b in tl.blame("memory") if b.text.startswith("User keeps"))
    if kind in ("huge", "cut line"):
        assert got.writes and b.origin is not None and b.origin.source == "background review"
    else:
        assert got.writes == [] and b.origin is None
    if kind in ("fifo", "folder"):
        assert got.problem and "not a regular file" in got.problem


def test_a_change_before_the_history_or_in_the_pruned_span_is_no_gap(tmp_path):
    home, db = make_home(tmp_path)
    write_files(home, ["An entry from before state.db began."])
    tl = build_timeline(curator(home, Clock(T0 + 4000)))
    b = tl.blame("memory")[0]
    assert "before the history begins" in b.first_seen.note and not tl.divergences


@pytest.mark.parametrize("inline", [False, True], ids=["0.22 table", "0.19 inline"])
def test_the_first_session_that_loaded_a_text_is_found_in_the_stored_prompts(tmp_path, inline):
    """first_loading: the prompts holding the text are found by SQLite, and each is parsed: a text
    that only appears elsewhere in a prompt (the user block, the persona) is not "loaded"."""
    from core.snapshots.loaded import first_loading
    from tests.core.snapshot_fixtures import make_db, prompt, sha

    text = "Deploys go out on Thursdays."
    elsewhere = prompt(["Other."], [text])  # in USER, not MEMORY
    before = prompt(["Other."])
    loaded = prompt(["Other.", text])
    rows, prompts = [], {}
    for n, p in enumerate([before, elsewhere, before, loaded, loaded]):
        row = {"id": f"s{n}", "source": "cli", "started_at": T0 + 100 * n}
        if inline:
            row["system_prompt"] = p
        else:
            row["system_prompt_hash"] = sha(p)
            prompts[sha(p)] = p
        rows.append(row)
    conn = make_db(tmp_path / "state.db", rows, list(prompts.items()), inline=inline)
    cols = frozenset(r[1] for r in conn.execute("PRAGMA table_info(sessions)"))
    assert first_loading(conn, cols, "memory", text, T0 + 1000) == (T0 + 200, T0 + 300)
    assert first_loading(conn, cols, "user", text, T0 + 1000) == (T0, T0 + 100)
    assert first_loading(conn, cols, "memory", text, T0 + 250) is None  # none before then
    assert first_loading(conn, cols, "memory", "never there", T0 + 1000) is None
