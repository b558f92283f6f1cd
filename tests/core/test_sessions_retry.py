"""Which release's search hmc follows: the in-between schema numbers, the retry texts a release
builds from the query typed, and the retries and routes SessionDB takes for each release
(the conformance suite asserts the same against the releases themselves)."""

from __future__ import annotations

import pytest

from core.hermes import search as hermes_search
from core.hermes.release import KNOWN, detect, for_schema, for_version
from core.sessions.search import SessionDB
from tests.core.sessions_fixtures import Msg, build_db

R19, R20, R22 = (for_version(v)[0] for v in ((0, 19, 0), (0, 20, 1), (0, 22, 2)))


# ── schema numbers ───────────────────────────────────────────────────────────

@pytest.mark.parametrize("schema, release", [(22, R19), (26, R20), (31, R22)])
def test_each_release_schema_maps_to_it_without_notice(schema, release):
    assert for_schema(schema) == (release, None)


@pytest.mark.parametrize("schema, older, newer", [(23, R19, R20), (24, R19, R20), (25, R19, R20),
                                                  (27, R20, R22), (28, R20, R22), (29, R20, R22),
                                                  (30, R20, R22)])
def test_in_between_schemas_map_to_the_nearest_older_release(schema, older, newer):
    release, notice = for_schema(schema)
    assert release == older
    assert notice == (f"state.db has schema {schema}, written by a Hermes build between {older.name} "
                      f"(schema {older.schema}) and {newer.name} (schema {newer.schema}); "
                      f"using {older.name}'s rules")


def test_a_newer_schema_uses_the_newest_release():
    release, notice = for_schema(32)
    assert release == KNOWN[-1] == R22 and "newer than any release hmc knows" in notice


def test_detection_from_an_in_between_schema_says_so(tmp_path):
    found = detect(tmp_path, schema_version=lambda: 28, environ={}, path="")
    assert found.source == "state.db" and found.release == R20 and found.found == "28"
    assert "between 0.20.1 (schema 26) and 0.22.2 (schema 31)" in found.notice


# ── the retry texts ──────────────────────────────────────────────────────────

@pytest.mark.parametrize("query, match", [
    ("cat", '"cat"'),
    ('"alpha gamma"', '"alpha" "gamma"'),  # outer quotes loosened: two ANDed tokens
    ("chat-send", '"chat-send"'),
    ("cat OR dogs", '"cat" OR "dogs"'),
    ("cats and dogs", '"cats" and "dogs"'),  # operators in any case stay bare
    ('"new york" city', '"new" "york""" "city"'),  # only the outer quotes go, as the release does
    ("deplo*", '"deplo*"'),
    ("te", None), ("cat te", None), ("中文回答", None), ("+++", None),
])
def test_trigram_retry_text(query, match):
    assert hermes_search.trigram_retry(query) == match


@pytest.mark.parametrize("query, match", [
    ("alpha zzzz", "alpha OR zzzz"),
    ('"alpha beta" zzzz', '"alpha beta" OR zzzz'),
    ("alpha AND zzzz", "alpha OR zzzz"),
    ("alpha", None), ('"alpha zzzz"', None), ("alpha OR zzzz", None), ("alpha not zzzz", None),
    ("中文 回答", None),
])
def test_or_relaxed_retry_text(query, match):
    assert hermes_search.or_relaxed_retry(query) == match


# ── SessionDB per release ────────────────────────────────────────────────────

EXTRA = [
    ("r1", "cli", [Msg("user", "please concatenate the logs"), Msg("assistant", "alpha beta gamma")]),
    ("r2", "cli", [Msg("tool", "x" * 9_200 + " needleword at the end")]),
    ("r3", "cron", [Msg("user", "nightly prefixquixosuffix job")]),
]


@pytest.fixture
def path(tmp_path):
    return build_db(tmp_path / "state.db", "current", extra=EXTRA)


def ids(db: SessionDB, query: str, **kw) -> list[int]:
    return [h.message_id for h in db.search(query, include_hidden=True, **kw).hits]


def test_substring_retry_from_0_20(path):
    old, new = SessionDB(path, release=R19), SessionDB(path, release=R20)
    try:
        assert ids(old, "cat") == []
        result = new.search("cat")
        assert [h.snippet_text[:18] for h in result.hits] == ["please concatenate"]
        assert result.route == "trigram" and "whole-word" in result.notice
        assert ids(new, "te") == []  # under three characters: no retry
        assert ids(new, "cat", roles="tool,user") == []  # a tool role filter isn't retried
        assert ids(new, "cat", roles="user") == ids(new, "cat")
        assert ids(new, "quixo") == []  # this layout's trigram index leaves cron out
        sid, mid = result.hits[0].session_id, result.hits[0].message_id
        assert new.hit_ids(sid, "cat") == [mid] and old.hit_ids(sid, "cat") == []
    finally:
        old.close()
        new.close()


def test_or_relaxed_retry_only_on_0_22(path):
    db20, db22 = SessionDB(path, release=R20), SessionDB(path, release=R22)
    try:
        assert ids(db20, "alpha zzzz") == []
        relaxed = db22.search("alpha zzzz")
        assert [h.snippet_text[:10] for h in relaxed.hits] == ["alpha beta"]
        assert relaxed.route == "fts" and "some of them" in relaxed.notice
        assert ids(db22, "alpha OR zzzz") == ids(db22, "alpha zzzz")  # found by the first search
        assert db22.search("alpha OR zzzz").notice is None
        assert ids(db22, '"alpha zzzz"') == []
    finally:
        db20.close()
        db22.close()


def test_a_tool_role_filter_scans_full_text_on_0_22(path):
    db20, db22 = SessionDB(path, release=R20), SessionDB(path, release=R22)
    try:
        assert ids(db22, "needleword") == ids(db20, "needleword") == []  # past the index's 8,192
        assert db20.search("needleword", roles="tool").hits == ()
        found = db22.search("needleword", roles="tool")
        assert found.route == "like" and "8,192" in found.notice and len(found.hits) == 1
        assert db22.search("needleword", roles="user,assistant,tool,system").hits == ()  # every role: no filter
    finally:
        db20.close()
        db22.close()


def test_without_a_release_the_schema_decides(path):
    db = SessionDB(path)  # schema 30: a build between 0.20.1 and 0.22.2, so 0.20.1's rules
    try:
        assert db.release_for(db.schema()) == R20
        assert ids(db, "cat") and not ids(db, "alpha zzzz")
    finally:
        db.close()
