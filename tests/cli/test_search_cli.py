"""`hmc search` and `hmc session` as subprocesses: output, JSON fields, exit codes, untouched db."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.core.sessions_fixtures import MARKUP, build_db, fingerprint, message_id

ROOT = Path(__file__).resolve().parents[2]
SID = "20261014_090000_aaaaaa"


def hmc(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1", TZ="UTC")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, "-m", "tui.cli", "--home", str(home), "--today", "2026-11-15", *args],
                          capture_output=True, text=True, env=env, timeout=60)


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "hermes"
    build_db(home / "state.db")
    before = fingerprint(home / "state.db")
    yield home
    assert fingerprint(home / "state.db") == before


def test_search_for_people(home):
    out = hmc(home, "search", "staging", "server")
    assert out.returncode == 0, out.stderr
    assert "Deploying the staging server" in out.stdout
    assert "How do I deploy the staging server?" in out.stdout
    assert f"{SID} #" in out.stdout and "2026-10-14" in out.stdout
    assert "2 hits (1-2)" in out.stdout and out.stderr == ""


def test_search_json_fields(home):
    out = hmc(home, "search", "deploy", "--json", "--limit", "3")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["route"] == "fts" and data["has_more"] is True and len(data["hits"]) == 3
    hit = data["hits"][0]
    assert {"session_id", "message_id", "role", "timestamp", "source", "title", "snippet"} <= set(hit)
    assert hit["link"].startswith("@session:default/")
    page2 = json.loads(hmc(home, "search", "deploy", "--json", "--limit", "3", "--offset", "3").stdout)
    assert not {h["message_id"] for h in page2["hits"]} & {h["message_id"] for h in data["hits"]}


def test_filters_and_sort(home):
    data = json.loads(hmc(home, "search", "deploy", "--role", "user", "--source", "cli,telegram", "--json",
                          "--limit", "50").stdout)
    assert {h["role"] for h in data["hits"]} == {"user"}
    assert {h["source"] for h in data["hits"]} <= {"cli", "telegram"}
    ranked = json.loads(hmc(home, "search", "deploy", "--json", "--limit", "50").stdout)["hits"]
    assert ranked[-1]["source"] == "cron"
    hidden = json.loads(hmc(home, "search", "deploy", "--all", "--json", "--limit", "50").stdout)["hits"]
    assert {"subagent", "kanban"} <= {h["source"] for h in hidden}
    dated = json.loads(hmc(home, "search", "deploy", "--since", "2026-10-15", "--until", "2026-10-15",
                           "--json").stdout)["hits"]
    assert {h["source"] for h in dated} == {"telegram"}
    recent = json.loads(hmc(home, "search", "deploy", "--since", "7d", "--json").stdout)["hits"]
    assert recent == []  # --today is 2026-11-15: everything is older than a week
    newest = json.loads(hmc(home, "search", "deploy", "--sort", "newest", "--json", "--limit", "50").stdout)["hits"]
    assert [h["message_id"] for h in newest] == sorted((h["message_id"] for h in newest), reverse=True)


def test_cjk_and_emoji(home):
    out = hmc(home, "search", "桂林山水", "--json")
    data = json.loads(out.stdout)
    assert data["route"] == "trigram" and data["hits"][0]["snippet"].startswith("漓江")
    assert json.loads(hmc(home, "search", "🚀", "--json").stdout)["hits"]


@pytest.mark.parametrize("query, needle", [
    ('"unclosed', "Unbalanced quote"),
    ("OR", "needs a term"),
    ("NOT deploy", "needs a term before it"),
    ("NEAR(a b)", "NEAR"),
    ("*", "lone *"),
    ("x" * 3000, "too long"),
])
def test_bad_queries_exit_2_with_one_line(home, query, needle):
    out = hmc(home, "search", query)
    assert out.returncode == 2
    assert needle in out.stderr and out.stderr.count("\n") == 1
    assert "Traceback" not in out.stderr and "sqlite" not in out.stderr.lower() and out.stdout == ""


def test_bad_options(home):
    assert hmc(home, "search", "deploy", "--role", "robot").returncode == 2
    out = hmc(home, "search", "deploy", "--since", "yesterday")
    assert out.returncode == 2 and "is not a date" in out.stderr
    assert hmc(home, "search", "deploy", "--limit", "0").returncode == 2
    assert hmc(home, "search", "deploy", "--sort", "best").returncode == 2


def test_markup_and_escapes_are_printed_literally(home):
    out = hmc(home, "search", '"not bold"')
    assert out.returncode == 0, out.stderr
    assert "[bold red]not bold[/]" in out.stdout and "[link=https://x.test]click[/link]" in out.stdout
    assert "\x1b" not in out.stdout and "␛[31mred?␛[0m" in out.stdout
    mid = message_id(home / "state.db", "[bold red]")
    session = hmc(home, "session", "20261015_100000_bbbbbbbb", "--around", str(mid), "--window", "0")
    assert "␛[31mred?" in session.stdout and "\x1b" not in session.stdout
    assert "[bold red]not bold[/]" in session.stdout
    data = json.loads(hmc(home, "session", "20261015_100000_bbbbbbbb", "--around", str(mid), "--json").stdout)
    assert [m for m in data["messages"] if m["message_id"] == mid][0]["content"] == MARKUP  # JSON: exact


def test_session_window_around_a_message(home):
    mid = message_id(home / "state.db", "Run deploy.sh")
    out = hmc(home, "session", SID, "--around", str(mid), "--window", "1")
    assert out.returncode == 0, out.stderr
    lines = out.stdout
    assert "Deploying the staging server" in lines and f"@session:default/{SID}" in lines
    assert f"▶ #{mid} assistant" in lines
    assert "How do I deploy the staging server?" in lines and "deploy finished: staging is green" in lines
    assert "→ terminal" in lines
    assert "Thanks!" not in lines  # outside the window
    data = json.loads(hmc(home, "session", SID, "--around", str(mid), "--window", "1", "--json").stdout)
    assert data["anchor_id"] == mid and len(data["messages"]) == 3
    assert data["session"]["session_id"] == SID and data["session"]["source"] == "cli"
    assert {"message_id", "role", "timestamp", "content"} <= set(data["messages"][0])


def test_session_from_the_start_by_link_or_part_of_the_id(home):
    full = hmc(home, "session", f"@session:default/{SID}", "--window", "1")
    assert full.returncode == 0, full.stderr
    assert "system prompt that mentions deploy" in full.stdout and "Thanks! Le café est prêt." in full.stdout
    assert "more messages in between" in full.stdout
    part = hmc(home, "session", "aaaaaa", "--json")
    assert json.loads(part.stdout)["session"]["session_id"] == SID
    several = hmc(home, "session", "2026101")
    assert several.returncode == 2 and "several sessions" in several.stderr


def test_session_errors(home):
    out = hmc(home, "session", "nope")
    assert out.returncode == 2 and "No session 'nope'" in out.stderr
    other = message_id(home / "state.db", "nightly deploy")
    out = hmc(home, "session", SID, "--around", str(other))
    assert out.returncode == 2 and "No message" in out.stderr
    assert hmc(home, "session", SID, "--window", "-1").returncode == 2


def test_unreadable_databases(tmp_path):
    empty_home = tmp_path / "nodb"
    empty_home.mkdir()
    (empty_home / "config.yaml").write_text("memory: {}\n")  # a Hermes home that has no state.db yet
    out = hmc(empty_home, "search", "deploy")
    assert out.returncode == 2 and "No session database" in out.stderr and "~" not in out.stdout
    assert not (empty_home / "state.db").exists()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "state.db").write_bytes(b"not sqlite at all" * 20)
    out = hmc(broken, "search", "deploy")
    assert out.returncode == 2 and "damaged or not an SQLite database" in out.stderr
    out = hmc(broken, "session", "x")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    missing = hmc(tmp_path / "nowhere", "search", "deploy")
    assert missing.returncode == 2 and "no Hermes home" in missing.stderr


def test_stale_index_notice(tmp_path):
    home = tmp_path / "stale"
    build_db(home / "state.db", stale=True)
    out = hmc(home, "search", "deploy")
    assert out.returncode == 0 and "stale" in out.stdout
    assert json.loads(hmc(home, "search", "deploy", "--json").stdout)["route"] == "like"


def test_unknown_source_is_bad_input_naming_the_known_ones(home):
    out = hmc(home, "search", "deploy", "--source", "cli,bogus")
    assert out.returncode == 2 and "no sessions from source 'bogus'" in out.stderr
    assert "cli" in out.stderr.split("sources:")[1] and "Traceback" not in out.stderr


def test_a_search_that_finds_little_says_what_the_index_knows(home):
    out = hmc(home, "search", "stagign")  # the index has "staging"
    assert out.returncode == 0, out.stderr
    assert "No hits." in out.stdout
    assert "the index knows staging: a near spelling" in out.stdout and "try: hmc search staging" in out.stdout
    data = json.loads(hmc(home, "search", "stagign", "--json").stdout)
    assert data["hits"] == [] and data["suggestions"][0]["text"] == "staging"
    assert data["suggestions"][0]["kind"] == "spelling" and data["suggestions"][0]["messages"] >= 1
    many = json.loads(hmc(home, "search", "staging", "--json").stdout)
    assert many["suggestions"] == [] or len(many["hits"]) < 3  # only a search that found little asks


@pytest.mark.parametrize("words_before", [0, 3, 12, 40])
def test_a_secret_a_snippet_cuts_is_masked_from_the_whole_message(tmp_path, words_before):
    """The snippet is cut around the match, maybe inside a Sentry DSN whose key then has no shape
    left to find: the whole message's secrets are masked in it (mask first, then cut), in text,
    JSON and the TUI's row."""
    import random

    from core.sessions.search import SessionDB
    from tests.core.sessions_fixtures import Msg
    from tui.widgets.results import hit_prompt, plain

    rng = random.Random(words_before)
    key = "".join(rng.choices("0123456789abcdef", k=32))
    text = ("filler " * words_before + f"Errors go to Sentry DSN https://{key}@o123.ingest.sentry.io/456 "
            + "trailing words " * 30)
    home = tmp_path / "hermes"
    build_db(home / "state.db", extra=[("20261020_000000_dsndsn", "cli", [Msg("user", text)])])
    pieces = [key[i:i + 8] for i in range(0, 25)]
    for args in (("search", "Sentry"), ("search", "Sentry", "--json"), ("search", "ingest", "--json")):
        out = hmc(home, *args)
        assert out.returncode == 0, out.stderr
        assert not [p for p in pieces if p in out.stdout], (args, out.stdout)
    hits = SessionDB(home / "state.db").search("Sentry").hits
    assert hits and hits[0].secrets == (key,)
    row = plain(hit_prompt(hits[0], 0.0), width=300)
    assert not [p for p in pieces if p in row]


def test_few_hits_offer_the_stem_never_searched_silently(tmp_path):
    """`миграция` misses `миграцию` (the index has no stemming): the output offers `миграц*` as a
    query to run, in text and in JSON, and the hits are the query's own."""
    from tests.core.test_sessions_stems import FORMS

    home = tmp_path / "hermes"
    build_db(home / "state.db", extra=[("s-forms", "cli", FORMS)])
    before = fingerprint(home / "state.db")
    out = hmc(home, "search", "миграция")
    assert out.returncode == 0, out.stderr
    assert "1 of 1 hit (1-1)" in out.stdout  # the query's own hit: the stem is not applied
    assert "try: миграц* — the stem of миграция, which also finds миграцию" in out.stdout
    assert "hmc search 'миграц*'" in out.stdout  # quoted for a shell: * would be a glob
    data = json.loads(hmc(home, "search", "миграция", "--json").stdout)
    assert [h["role"] for h in data["hits"]] == ["assistant"]  # "Миграция готова", not "…миграцию…"
    assert data["suggestions"] == [{"kind": "stem", "word": "миграция", "text": "миграц*", "messages": 2,
                                    "messages_capped": False, "example": "миграцию"}]
    for query in ('"миграция"', "миграц*", "миграция OR invoices", "数据库迁移"):  # no stem offered
        data = json.loads(hmc(home, "search", query, "--json").stdout)
        assert "suggestions" in data and all(s["kind"] != "stem" for s in data["suggestions"]), query
        assert "try: " not in hmc(home, "search", query).stdout or query == "миграц*"
    assert fingerprint(home / "state.db") == before


def test_a_suggestion_is_searched_with_the_searchs_own_filters(tmp_path):
    """The vocabulary counts every message of every day and role: a suggestion is searched as the
    person would run it (filters kept) and counted there; one that finds no more than the query did
    is not offered, and the command printed carries the filters."""
    from tests.core.test_sessions_stems import FORMS

    home = tmp_path / "hermes"
    build_db(home / "state.db", extra=[("s-forms", "cli", FORMS)])
    before = fingerprint(home / "state.db")
    # only the user's "миграцию" is missed: under --role user the stem finds 1 message, not the index's 2
    out = hmc(home, "search", "миграция", "--role", "user")
    assert out.returncode == 0, out.stderr
    assert "which also finds миграцию: in 1 message · hmc search 'миграц*' --role=user" in out.stdout
    # under --role assistant the word finds the one message the stem would: nothing to offer
    data = json.loads(hmc(home, "search", "миграция", "--role", "assistant", "--json").stdout)
    assert len(data["hits"]) == 1 and data["suggestions"] == []
    # no session on those days: the stem's 2 messages are all outside them
    data = json.loads(hmc(home, "search", "миграция", "--until", "2026-01-01", "--json").stdout)
    assert data["hits"] == [] and data["suggestions"] == []
    out = hmc(home, "search", "миграция", "--since", "2026-01-01", "--source", "cli")
    assert "hmc search 'миграц*' --source=cli --since=2026-01-01" in out.stdout
    assert fingerprint(home / "state.db") == before
