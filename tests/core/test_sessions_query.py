"""The search query language: what people type becomes safe FTS5 / trigram / LIKE queries."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.sessions.query import MAX_QUERY_CHARS, QueryError, parse_query


@pytest.fixture(scope="module")
def fts():
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE w USING fts5(x)")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')")
    conn.execute("CREATE TABLE m (content TEXT)")
    rows = ["deploy the staging server", "prod deploy", "deployment notes", "漓江 trip 桂林山水",
            "launch 🚀 now", "50% off_sale", "Le café", "c++ and don't"]
    for row in rows:
        for table in ("w", "t", "m"):
            conn.execute(f"INSERT INTO {table} VALUES (?)", (row,))
    yield conn
    conn.close()


def ids(conn, table: str, expr: str) -> list[int]:
    return [r[0] for r in conn.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid", (expr,))]


@pytest.mark.parametrize("raw, expected", [
    ("deploy", '"deploy"'),
    ("deploy staging", '"deploy" AND "staging"'),
    ("deploy AND staging", '"deploy" AND "staging"'),
    ("deploy OR prod", '"deploy" OR "prod"'),
    ("deploy NOT staging", '"deploy" NOT "staging"'),
    ('"staging server"', '"staging server"'),
    ("dep*", '"dep"*'),
    ('"dep loy"*', '"dep loy"*'),
    ("(deploy OR prod) server", '("deploy" OR "prod") AND "server"'),
    ("a OR b c", '"a" OR ("b" AND "c")'),
    ("a b NOT c", '"a" AND ("b" NOT "c")'),
    ("not or and", '"not" AND "or" AND "and"'),  # lower case: plain words
    ("TODO: fix", '"TODO:" AND "fix"'),
    ('say "hi"', '"say" AND "hi"'),
    ("x -- y", '"x" AND "y"'),  # punctuation-only terms dropped
    ('he said ""yes""', None),  # empty phrase: an error, checked below
])
def test_words_are_quoted_and_operators_kept(raw, expected):
    if expected is None:
        with pytest.raises(QueryError):
            parse_query(raw)
        return
    assert parse_query(raw).fts5() == expected


def test_queries_match_what_they_say(fts):
    assert ids(fts, "w", parse_query("deploy").fts5()) == [1, 2]
    assert ids(fts, "w", parse_query("deploy NOT staging").fts5()) == [2]
    assert ids(fts, "w", parse_query("deploy*").fts5()) == [1, 2, 3]
    assert ids(fts, "w", parse_query('"the staging"').fts5()) == [1]
    assert ids(fts, "w", parse_query("cafe").fts5()) == [7]  # accents folded like unicode61
    assert ids(fts, "w", parse_query("don't").fts5()) == [8]


def test_unsegmented_terms_need_a_substring_route(fts):
    cjk = parse_query("桂林山水")
    assert cjk.needs_substring and cjk.trigram_ok
    assert ids(fts, "t", cjk.trigram()) == [4]
    short = parse_query("漓江")
    assert short.needs_substring and not short.trigram_ok
    emoji = parse_query("🚀")
    assert emoji.needs_substring and not emoji.trigram_ok
    assert not parse_query("deploy staging").needs_substring
    mixed = parse_query("deploy 漓江")
    assert mixed.needs_substring


def test_like_predicate_escapes_wildcards(fts):
    q = parse_query("50% off_sale")
    sql, params = q.like(["content"])
    assert params == ["%50\\%%", "%off\\_sale%"]
    assert fts.execute(f"SELECT rowid FROM m WHERE {sql}", params).fetchall() == [(6,)]
    sql, params = parse_query("deploy NOT staging").like(["content"])
    assert [r[0] for r in fts.execute(f"SELECT rowid FROM m WHERE {sql}", params)] == [2, 3]


def test_highlight_terms_leave_out_excluded_ones():
    q = parse_query('deploy NOT staging "a phrase" pre*')
    assert [t.text for t in q.positive_terms] == ["deploy", "a phrase", "pre"]
    assert [t.text for t in q.terms] == ["deploy", "staging", "a phrase", "pre"]


BAD = {
    '"unclosed': "Unbalanced quote",
    'deploy "staging': "Unbalanced quote",
    "AND": "needs a term",
    "OR": "needs a term",
    "NOT": "NOT at column 1 needs a term before it",
    "NOT staging": "needs a term before it",
    "deploy OR": "needs a term after it",
    "deploy AND": "needs a term after it",
    "deploy NOT": "needs a term after it",
    "OR deploy": "needs a term before it",
    "deploy AND AND staging": "needs a term after it",
    "deploy OR NOT staging": "needs a term after it",
    "NEAR(deploy staging)": "NEAR",
    "NEAR(": "NEAR",
    "*": "lone *",
    "***": "lone *",
    "deploy *": "lone *",
    "()": "Empty parentheses",
    "(deploy": "Unbalanced parenthesis",
    "deploy)": "Unbalanced parenthesis",
    "((deploy)": "Unbalanced parenthesis",
    "": "Type something",
    "   \t ": "Type something",
    "!!! ??": "only punctuation",
    '""': "Empty phrase",
    "a\x00b": "NUL",
    "x" * 3_000: "too long",
}


@pytest.mark.parametrize("raw", list(BAD), ids=[repr(k[:20]) for k in BAD])
def test_bad_queries_get_clear_messages(raw):
    with pytest.raises(QueryError) as err:
        parse_query(raw)
    message = str(err.value)
    assert BAD[raw].lower() in message.lower()
    assert "sqlite" not in message.lower() and "fts5" not in message.lower()
    assert "\n" not in message


def test_length_cap_is_2048():
    parse_query("a" * MAX_QUERY_CHARS)
    with pytest.raises(QueryError, match="3,000 characters; the limit is 2,048"):
        parse_query("a" * 3_000)


def test_operator_words_inside_phrases_are_words(fts):
    q = parse_query('"OR NOT AND"')
    assert q.fts5() == '"OR NOT AND"'


alphabet = st.sampled_from(list('ab "()*-:^+{}[]~.,\'\\%_') + ["AND", "OR", "NOT", "NEAR", "漓", "江", "🚀", "é", " "])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(alphabet, max_size=14).map("".join))
@example('"')
@example("NEAR(")
@example("-")
@example("\\\"")
@example("* OR ^")
def test_any_input_is_a_query_error_or_valid_sql(fts, raw):
    try:
        q = parse_query(raw)
    except QueryError as exc:
        assert str(exc) and "sqlite" not in str(exc).lower()
        return
    fts.execute("SELECT count(*) FROM w WHERE w MATCH ?", (q.fts5(),)).fetchone()
    fts.execute("SELECT count(*) FROM t WHERE t MATCH ?", (q.trigram(),)).fetchone()
    sql, params = q.like(["content"])
    fts.execute(f"SELECT count(*) FROM m WHERE {sql}", params).fetchone()


def test_unsegmented_scripts_are_told_by_code_point_as_the_character_class_did():
    """The ranges FTS5 can't split are looked up by code point (a regex over them took ~25 ms to
    compile on every command's import): the same answer as that class for every code point."""
    import re

    from core.sessions.query import _UNSEGMENTED, has_unsegmented, is_unsegmented

    cls = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _UNSEGMENTED) + "]")
    for code in range(0x30000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        ch = chr(code)
        assert is_unsegmented(ch) == (cls.match(ch) is not None), hex(code)
    assert has_unsegmented("trip 桂林") and has_unsegmented("ກ") and not has_unsegmented("café 🚀")


def test_importing_the_query_language_compiles_no_large_pattern():
    import subprocess
    import sys

    probe = ("import re\nseen = []\nreal = re.compile\n"
             "re.compile = lambda p, f=0: (seen.append(p), real(p, f))[1]\n"
             "import core.sessions.query\n"
             "print(max((ord(c) for p in seen if isinstance(p, str) for c in p), default=0))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert int(done.stdout) < 0x0E00, "a class over the unsegmented scripts compiles on import (~25 ms)"
