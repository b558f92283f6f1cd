"""Suggestions for a search that found little: near spellings and prefixes from the index's own
vocabulary, read without writing state.db."""

from __future__ import annotations

from pathlib import Path

from core.sessions.suggest import Suggestion, query_words, suggested_query, suggestions_for
from tests.core.sessions_fixtures import Msg, build_db, fingerprint


def db(tmp_path: Path, layout: str = "current") -> Path:
    extra = [("s-extra", "cli", [Msg("user", "Postgres signatures are checked before the webhook runs."),
                                 Msg("assistant", "The postgres pool and the signatures both look fine.")])]
    return build_db(tmp_path / "state.db", layout, extra=extra)


def test_a_misspelt_word_gets_the_indexs_spelling(tmp_path):
    path = db(tmp_path)
    found = suggestions_for(path, "postgrse pool")
    assert found[0] == Suggestion("spelling", "postgrse", "postgres", found[0].messages)
    assert found[0].messages >= 2
    assert suggested_query("postgrse pool", found[0]) == "postgres pool"


def test_a_word_known_only_as_a_prefix_is_offered_with_a_star(tmp_path):
    path = db(tmp_path)
    found = suggestions_for(path, "signature")
    prefix = [s for s in found if s.kind == "prefix"]
    assert prefix and prefix[0].text == "signature*" and prefix[0].example == "signatures"
    assert suggested_query("Signature check", prefix[0]) == "signature* check"


def test_nothing_is_written_and_odd_queries_suggest_nothing(tmp_path):
    path = db(tmp_path)
    before = fingerprint(path)
    assert suggestions_for(path, "zzqqxx") == []  # nothing near it
    assert suggestions_for(path, '"a phrase" pre* ab') == []  # phrases, prefixes, short words
    suggestions_for(path, 'unbalanced "quote OR')  # a query hmc can't parse: never raises
    assert query_words("webhook NOT postgres") == ["webhook"]  # an excluded word is not offered
    assert fingerprint(path) == before and not (tmp_path / "state.db-shm").exists()


def test_no_word_index_no_suggestions(tmp_path):
    path = db(tmp_path, layout="none")
    assert suggestions_for(path, "postgrse") == []
    assert suggestions_for(tmp_path / "missing.db", "postgrse") == []


def test_as_searched_counts_each_suggestion_under_the_filters_and_drops_what_adds_nothing(tmp_path, monkeypatch):
    from core.sessions import suggest
    from core.sessions.search import SessionDB
    from core.sessions.suggest import as_searched

    path = db(tmp_path)
    sessions = SessionDB(path)
    try:
        hints = suggestions_for(path, "postgrse pool")
        assert hints and hints[0].text == "postgres"
        kept = as_searched(sessions, "postgrse pool", hints, 0)
        assert kept[0].text == "postgres" and kept[0].messages == 1  # "postgres pool": 1 message, not the index's 2+
        user_only = {"roles": "user", "sort": "oldest", "limit": 5}  # (its sort and paging are not the hints')
        assert as_searched(sessions, "postgrse pool", hints, 0, user_only) == []  # the user's has no "pool"
        assert as_searched(sessions, "postgrse pool", hints, 1) == []  # no more than the query found
        odd = Suggestion("prefix", "pool", 'pool"', 3)  # a term the query syntax refuses: dropped, never raised
        assert as_searched(sessions, "postgres pool", [odd], 0) == []
        monkeypatch.setattr(suggest, "COUNT_CAP", 1)  # a count that stops: said as "at least"
        capped = as_searched(sessions, "postgres", [Suggestion("prefix", "postgres", "postgres*", 9)], 0)
        assert capped and capped[0].more and capped[0].in_messages().endswith("+ messages")
        assert capped[0].to_json()["messages_capped"] is True
    finally:
        sessions.close()
