"""Highlight spans for untrusted text: matches marked the way each search route matches."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from core.sessions.query import Term, parse_query
from core.sessions.snippets import (
    MARK_CLOSE, MARK_OPEN, excerpt, highlight, marked, match_ranges, parse_marked, plain,
)


def terms(query: str):
    return parse_query(query).positive_terms


def test_words_match_whole_tokens_case_and_accent_blind():
    spans = highlight("Le Café — we DEPLOYED, then redeploy; deploy!", terms("cafe deploy"))
    assert marked(spans) == "Le [Café] — we DEPLOYED, then redeploy; [deploy]!"


def test_prefixes_and_phrases():
    assert marked(highlight("we deployed the staging  server", terms('deploy* "staging server"'))) == \
        "we [deployed] the [staging  server]"


def test_excluded_terms_are_not_marked():
    assert marked(highlight("deploy to staging", terms("deploy NOT staging"))) == "[deploy] to staging"


def test_substring_terms_for_cjk_and_emoji():
    assert marked(highlight("漓江 trip 桂林山水甲天下 🚀!", terms("桂林山水 🚀"))) == "漓江 trip [桂林山水]甲天下 [🚀]!"
    scan = Term("deploy", kind="substring")
    assert marked(highlight("redeploying", [scan])) == "re[deploy]ing"


def test_excerpt_centres_on_the_first_match():
    text = "filler " * 100 + "the needle is here" + " more" * 100
    spans = excerpt(text, terms("needle"), width=60)
    assert spans[0][0].startswith("…") and spans[-1][0].endswith("…")
    assert ("needle", True) in spans
    assert len(plain(spans)) <= 62
    assert excerpt("short text", terms("text")) == [("short ", False), ("text", True)]


def test_fts_snippet_markers_become_spans():
    raw = f"How do I {MARK_OPEN}deploy{MARK_CLOSE} the\n  {MARK_OPEN}staging{MARK_CLOSE} server?"
    assert parse_marked(raw) == [("How do I ", False), ("deploy", True), (" the ", False), ("staging", True),
                                 (" server?", False)]
    # brackets and look-alike markers in the message itself are just text
    assert parse_marked("[b]x[/b] \ue000fake\ue001") == [("[b]x[/b] \ue000fake\ue001", False)]


@given(st.text(max_size=200), st.sampled_from(["deploy", "café*", '"a b"', "漓江", "🚀", "x OR y"]))
@example("", "deploy")
@example("CAFÉ café cafe\u0301", "café*")  # a combining accent: the text keeps its length
@example("İstanbul DEPLOY", "deploy")
def test_spans_always_rebuild_the_text(text, query):
    spans = highlight(text, terms(query))
    assert plain(spans) == text
    for start, end in match_ranges(text, terms(query)):
        assert 0 <= start < end <= len(text)
