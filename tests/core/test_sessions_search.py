"""Search over every Hermes state.db generation: visibility, filters, CJK, ranking, paging."""

from __future__ import annotations

from datetime import date

import pytest

from core.sessions.search import (
    NotFoundError, QueryError, SearchCancelled, SessionDB, session_link,
)
from core.sessions.snippets import marked
from tests.core.sessions_fixtures import MARKUP, Msg, build_db, fingerprint

LAYOUTS = ["current", "inline", "external", "none"]
INDEXED = ["current", "inline", "external"]


@pytest.fixture
def make_db(tmp_path):
    """make_db(layout, **build options) -> SessionDB; every db must be byte-identical afterwards."""
    made = []

    def factory(layout: str = "current", name: str | None = None, **kwargs) -> SessionDB:
        path = build_db(tmp_path / (name or layout) / "state.db", layout, **kwargs)
        db = SessionDB(path)
        made.append((db, path, fingerprint(path)))
        return db

    yield factory
    for db, path, before in made:
        db.close()
        assert fingerprint(path) == before, f"{path} or its folder changed"


def texts(result) -> list[str]:
    return [h.snippet_text for h in result.hits]


def contents(db: SessionDB, result) -> list[str]:
    return [db.message(h.message_id).content for h in result.hits]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_layout_finds_visible_messages(make_db, layout):
    db = make_db(layout)
    result = db.search("deploy", limit=50)
    found = contents(db, result)
    assert "How do I deploy the staging server?" in found
    assert "deploy finished: staging is green" in found  # tool output is searchable
    assert "nightly deploy report" in found  # cron is searched, just ranked lower
    assert "system prompt that mentions deploy" not in found  # system rows would match everything
    assert "subagent deploy chores" not in found and "kanban deploy card" not in found
    if layout in ("current", "none"):  # the columns that carry visibility exist
        assert "rewound deploy attempt" not in found
        assert "hidden scaffolding deploy" not in found
        assert "compacted deploy summary" in found  # archived by compaction, still searchable
        assert "secretly hidden deploy" not in found  # sessions.hidden
    assert result.route == ("like" if layout == "none" else "fts")
    assert len({h.message_id for h in result.hits}) == len(result.hits)


def test_hidden_sources_can_be_asked_for(make_db):
    db = make_db()
    found = contents(db, db.search("deploy", include_hidden=True, limit=50))
    assert {"subagent deploy chores", "kanban deploy card", "secretly hidden deploy"} <= set(found)
    only = db.search("deploy", sources="subagent")
    assert contents(db, only) == ["subagent deploy chores"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_cron_ranks_below_interactive_sessions(make_db, layout):
    db = make_db(layout)
    hits = db.search("deploy", limit=50).hits
    sources = [h.source for h in hits]
    assert "cron" in sources
    first_cron = sources.index("cron")
    assert all(s == "cron" for s in sources[first_cron:])
    # "deploy deploy deploy" would win on bm25 alone
    newest = db.search("deploy", sort="newest", limit=50).hits
    assert [h.message_id for h in newest] == sorted((h.message_id for h in hits), reverse=True)
    oldest = db.search("deploy", sort="oldest", limit=50).hits
    assert [h.message_id for h in oldest] == sorted(h.message_id for h in hits)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_paging_walks_every_hit_once(make_db, layout):
    db = make_db(layout)
    everything = [h.message_id for h in db.search("deploy", limit=50).hits]
    paged, offset = [], 0
    while True:
        page = db.search("deploy", limit=2, offset=offset)
        paged += [h.message_id for h in page.hits]
        offset += 2
        if not page.has_more:
            break
    assert paged == everything
    assert db.search("deploy", limit=2, offset=100).hits == ()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_role_source_and_date_filters(make_db, layout):
    db = make_db(layout)
    users = db.search("deploy", roles="user", limit=50)
    assert {h.role for h in users.hits} == {"user"}
    tools = db.search("deploy", roles=["tool"])
    assert [h.role for h in tools.hits] == ["tool"]
    system = db.search("deploy", roles="system")
    assert contents(db, system) == ["system prompt that mentions deploy"]
    telegram = db.search("deploy", sources="telegram")
    assert {h.source for h in telegram.hits} == {"telegram"}
    cron_or_cli = db.search("deploy", sources="cron,telegram", limit=50)
    assert {h.source for h in cron_or_cli.hits} == {"cron", "telegram"}
    # sessions start 2026-10-14 (cli), -15 (telegram), -16 (cron) at T0 = 2026-10-14 UTC
    day15 = db.search("deploy", since=date(2026, 10, 15), until=date(2026, 10, 15), limit=50)
    assert {h.source for h in day15.hits} == {"telegram"}
    later = db.search("deploy", since=date(2026, 10, 16), until=date(2026, 10, 16), limit=50)
    assert {h.source for h in later.hits} == {"cron"}
    with pytest.raises(QueryError, match="date range is empty"):
        db.search("deploy", since=date(2026, 10, 16), until=date(2026, 10, 15))
    with pytest.raises(QueryError, match="Unknown role 'robot'"):
        db.search("deploy", roles="robot")
    with pytest.raises(QueryError, match="Unknown sort"):
        db.search("deploy", sort="best")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_cjk_and_emoji_are_found(make_db, layout):
    db = make_db(layout)
    short = db.search("漓江")  # two characters: too short for trigrams, LIKE fallback
    assert short.route == "like"
    assert contents(db, short) == ["漓江 trip planning: 桂林山水甲天下"]
    assert ("漓江", True) in short.hits[0].snippet
    long = db.search("桂林山水")
    assert long.route == ("trigram" if layout in ("current", "inline") else "like")
    assert contents(db, long) == ["漓江 trip planning: 桂林山水甲天下"]
    assert "桂林山水" in [t for t, hit in long.hits[0].snippet if hit]
    rocket = db.search("🚀")
    assert contents(db, rocket) == ["launch 🚀 tomorrow, after the deploy"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_said_only_leaves_tool_calls_out_of_a_plain_scan(make_db, layout):
    """hmc why looks for what was said: a scan for words the index can't find reads the messages'
    text only, so a memory call holding them doesn't take a place in the page."""
    import json

    args = json.dumps({"action": "add", "target": "memory", "content": "用户的狗叫 旺财"}, ensure_ascii=False)
    call = Msg("assistant", "", tool_calls=json.dumps(
        [{"id": "call_1", "type": "function", "function": {"name": "memory", "arguments": args}}], ensure_ascii=False))
    said = Msg("user", "我的狗叫 旺财")
    db = make_db(layout, extra=[("s-dog", "cli", [said, call])])
    everything = db.search("旺财", roles=("user", "assistant"))
    assert everything.route == "like" and len(everything.hits) == 2  # a search finds the call too
    only = db.search("旺财", roles=("user", "assistant"), said_only=True)
    assert contents(db, only) == ["我的狗叫 旺财"]


@pytest.mark.parametrize("layout", INDEXED)
def test_phrases_prefixes_not_and_accents(make_db, layout):
    db = make_db(layout)
    assert "deployment pipelines and redeploying" not in contents(db, db.search("deploy", limit=50))
    assert "deployment pipelines and redeploying" in contents(db, db.search("deploy*", limit=50))
    phrase = contents(db, db.search('"staging server"', roles="user"))
    assert phrase == ["How do I deploy the staging server?"]
    negated = contents(db, db.search("deploy NOT staging", limit=50))
    assert not any("staging" in c for c in negated) and negated
    assert contents(db, db.search("cafe")) == ["Thanks! Le café est prêt."]
    either = contents(db, db.search("launch OR nightly", limit=50))
    assert {"nightly deploy report", "launch 🚀 tomorrow, after the deploy", "Okay: launch at noon."} <= set(either)


def test_operator_words_can_be_searched_as_phrases(make_db):
    db = make_db()
    found = contents(db, db.search('"OR NOT AND NEAR"'))
    assert found == ['OR NOT AND NEAR( are just words here * and "quotes"']


@pytest.mark.parametrize("layout", LAYOUTS)
def test_snippets_mark_terms_and_keep_markup_literal(make_db, layout):
    db = make_db(layout)
    hit = db.search('"red?" OR "not bold"').hits[0]
    text = hit.snippet_text
    assert "[bold red]" in text and "[/]" in text  # untouched: the UI prints spans, never markup
    assert "\x1b[31m" in db.message(hit.message_id).content
    staging = db.search("staging", roles="user").hits[0]
    assert marked(staging.snippet) == "How do I deploy the [staging] server?"


def test_titles_fall_back_to_the_first_user_message(make_db):
    db = make_db()
    hit = db.search("launch", sources="telegram").hits[0]
    assert hit.title.startswith("漓江 trip planning")
    titled = db.search("staging", roles="user").hits[0]
    assert titled.title == "Deploying the staging server"


def test_stale_index_falls_back_to_a_scan(make_db):
    late = [("20261019_080000_999999", "cli", [Msg("user", "late deploy written after the index went stale")])]
    fresh = make_db("current", name="fresh", late=late)
    assert "late deploy written after the index went stale" not in contents(fresh, fresh.search("deploy", limit=50))
    stale = make_db("current", name="stale", late=late, stale=True)
    result = stale.search("deploy", limit=50)
    assert result.route == "like" and "stale" in result.notice
    assert "late deploy written after the index went stale" in contents(stale, result)
    assert stale.summary()["index_state"] == "stale"


def test_no_index_says_so(make_db):
    result = make_db("none").search("deploy")
    assert result.route == "like" and "no search index" in result.notice


def test_cancelled_search_raises(make_db):
    many = [(f"20261020_000000_{i:06d}", "cli", [Msg("user", f"filler text {i}") for _ in range(20)])
            for i in range(30)]
    db = make_db("none", extra=many)
    with pytest.raises(SearchCancelled):
        db.search("deploy", should_stop=lambda: True)
    assert db.search("deploy").hits  # the connection still works afterwards


@pytest.mark.parametrize("layout", LAYOUTS)
def test_session_list_and_meta(make_db, layout):
    db = make_db(layout)
    listed = db.sessions()
    ids = [s.id for s in listed]
    assert ids[0] == "20261018_070000_abcdef"  # most recent activity first
    assert "20261016_040000_dddddd" not in ids and "20261016_050000_eeeeee" not in ids
    assert len(db.sessions(include_hidden=True)) == 7
    assert len(db.sessions(limit=2)) == 2 and db.sessions(limit=2, offset=2)[0].id == ids[2]
    info = db.session("20261015_100000_bbbbbbbb")
    assert info.source == "telegram" and info.title.startswith("漓江") and not info.has_title
    assert info.message_count == 4
    with pytest.raises(NotFoundError):
        db.session("nope")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_hit_ids_in_one_session(make_db, layout):
    db = make_db(layout)
    sid = "20261014_090000_aaaaaa"
    ids = db.hit_ids(sid, "deploy")
    assert ids == sorted(ids) and len(ids) >= 3
    assert all(db.message(i).session_id == sid for i in ids)
    rewound = [m for m in ids if db.message(m).content == "rewound deploy attempt"]
    assert (rewound == []) == (layout != "external")  # the others have messages.active
    assert db.hit_ids(sid, "漓江") == []
    assert db.hit_ids("20261015_100000_bbbbbbbb", "漓江") != []


def test_json_shapes(make_db):
    db = make_db()
    hit = db.search("staging", roles="user").hits[0]
    data = hit.to_json()
    assert set(data) >= {"session_id", "message_id", "role", "timestamp", "source", "title", "snippet"}
    assert data["snippet"] == "How do I deploy the staging server?"
    assert data["matches"] == [[20, 27]]
    assert data["timestamp"].startswith("2026-10-14T")
    assert session_link("work", hit.session_id) == "@session:work/20261014_090000_aaaaaa"
    assert session_link(None, "x") == "@session:default/x"


def test_markup_message_round_trips(make_db):
    db = make_db()
    hit = db.search('"not bold"').hits[0]
    assert db.message(hit.message_id).content == MARKUP


def test_a_damaged_index_falls_back_to_a_scan(tmp_path):
    import sqlite3

    path = build_db(tmp_path / "h" / "state.db", wal=False)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM messages_fts_data WHERE id > 1")  # the index's pages are gone
    conn.commit()
    conn.close()
    before = fingerprint(path)
    db = SessionDB(path)
    result = db.search("staging", roles="user")
    assert result.route == "like" and "can't be read" in result.notice
    assert [db.message(h.message_id).content for h in result.hits] == ["How do I deploy the staging server?"]
    db.close()
    assert fingerprint(path) == before
