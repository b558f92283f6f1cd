"""Transcript windows: by indexed id range, visibility applied, never the whole session."""

from __future__ import annotations

import pytest

from core.sessions.search import CONTENT_CAP, NotFoundError, SessionDB
from tests.core.sessions_fixtures import Msg, build_db, fingerprint, message_id

SID = "20261014_090000_aaaaaa"


@pytest.fixture(params=["current", "external", "none"])
def db(request, tmp_path):
    path = build_db(tmp_path / request.param / "state.db", request.param)
    before = fingerprint(path)
    handle = SessionDB(path)
    handle.layout = request.param
    yield handle
    handle.close()
    assert fingerprint(path) == before


def contents(messages) -> list[str]:
    return [m.content for m in messages]


def test_window_around_a_hit(db):
    anchor = message_id(db.path, "Run deploy.sh")
    w = db.window(SID, anchor, before=1, after=2)
    assert w.anchor_id == anchor
    assert contents(w.messages) == [
        "How do I deploy the staging server?",
        "Run deploy.sh with the staging flag.",
        "deploy finished: staging is green",
        "compacted deploy summary" if db.layout != "external" else "rewound deploy attempt",
    ]
    assert w.has_before and w.has_after
    assert [m.id for m in w.messages] == sorted(m.id for m in w.messages)
    assert w.messages[1].tool_call_names() == ["terminal"]
    assert w.messages[2].tool_name == "terminal"


def test_visibility_in_windows(db):
    anchor = message_id(db.path, "Run deploy.sh")
    seen = contents(db.window(SID, anchor, before=20, after=20).messages)
    if db.layout == "external":
        assert "rewound deploy attempt" in seen  # that schema can't tell
    else:
        assert "rewound deploy attempt" not in seen and "hidden scaffolding deploy" not in seen
        assert "compacted deploy summary" in seen
    assert seen[0] == "system prompt that mentions deploy" and seen[-1] == "Thanks! Le café est prêt."


def test_start_of_session_and_tail(db):
    head = db.window(SID, None, before=0, after=2)
    assert contents(head.messages)[0] == "system prompt that mentions deploy"
    assert len(head.messages) == 3 and head.has_after and not head.has_before
    tail = db.tail(SID, 2)
    assert contents(tail.messages) == ['{"success": true}', "Thanks! Le café est prêt."]
    assert tail.has_before and not tail.has_after


def test_scrolling_older_and_newer(db):
    anchor = message_id(db.path, "Run deploy.sh")
    older, more = db.older(SID, anchor, 1)
    assert contents(older) == ["How do I deploy the staging server?"] and more
    older, more = db.older(SID, anchor, 10)
    assert contents(older)[0] == "system prompt that mentions deploy" and not more
    newer, more = db.newer(SID, anchor, 100)
    assert contents(newer)[-1] == "Thanks! Le café est prêt." and not more


def test_unknown_ids_are_not_found(db):
    other = message_id(db.path, "nightly deploy report")
    with pytest.raises(NotFoundError):
        db.window(SID, other)  # a message of another session
    with pytest.raises(NotFoundError):
        db.window(SID, 999_999)
    with pytest.raises(NotFoundError):
        db.window("no-such-session", None)
    with pytest.raises(NotFoundError):
        db.message(999_999)


def test_long_messages_are_capped(tmp_path):
    big = "x" * (CONTENT_CAP + 500)
    path = build_db(tmp_path / "state.db", extra=[("20261019_000000_bigbig", "cli", [Msg("tool", big, "terminal")])])
    db = SessionDB(path)
    m = db.message(message_id(path, "xxx"))
    assert m.truncated and len(m.content) == CONTENT_CAP
    assert db.window("20261019_000000_bigbig", m.id).messages[0].truncated


def test_multimodal_content_is_flattened(tmp_path):
    parts = '[{"type": "text", "text": "look at this"}, {"type": "image_url", "image_url": {"url": "x"}}]'
    path = build_db(tmp_path / "state.db", extra=[("20261019_000000_mmmmmm", "cli", [Msg("user", parts)])])
    m = SessionDB(path).message(message_id(path, "[{"))
    assert m.text == "look at this\n[image_url]"


def _steps(db: SessionDB, fn) -> int:
    """SQLite virtual-machine steps (in units of 10) that *fn* costs: a deterministic cost measure."""
    conn = db._conns.get()
    count = [0]

    def tick():
        count[0] += 1
        return 0

    conn.set_progress_handler(tick, 10)
    try:
        fn()
    finally:
        conn.set_progress_handler(None, 0)
    return count[0]


@pytest.mark.parametrize("layout", ["current", "external"])
def test_opening_a_hit_costs_the_same_in_a_huge_session(tmp_path, layout):
    huge = [Msg("user" if i % 2 else "assistant", f"line {i} of a very long session") for i in range(5_000)]
    small = [Msg("user" if i % 2 else "assistant", f"line {i} of a short session") for i in range(50)]
    path = build_db(tmp_path / "state.db", layout, extra=[
        ("20261019_000000_huge00", "cli", huge), ("20261019_000000_small0", "cli", small)])
    db = SessionDB(path)
    db.sessions()  # warm up: schema probe
    mid_huge = message_id(path, "line 2500 of a very long")
    mid_small = message_id(path, "line 25 of a short")
    cost_huge = _steps(db, lambda: db.window("20261019_000000_huge00", mid_huge, 10, 10))
    cost_small = _steps(db, lambda: db.window("20261019_000000_small0", mid_small, 10, 10))
    assert cost_huge <= cost_small * 1.5 + 20, (cost_huge, cost_small)
    hits_huge = _steps(db, lambda: db.hit_ids("20261019_000000_huge00", '"line 2500"'))
    hits_small = _steps(db, lambda: db.hit_ids("20261019_000000_small0", '"line 25"'))
    assert hits_huge <= hits_small * 1.5 + 50, (hits_huge, hits_small)
