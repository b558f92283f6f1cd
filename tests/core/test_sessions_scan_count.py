"""A short CJK term (the plain-scan route) shows its first page at the cost of the first page: the
count stops after a step budget and says it is a bound ("N+", `total_partial`), never holding the
hits back; within the budget the count is exact. The budget is lowered through its test knob."""

from __future__ import annotations

import json

import pytest

from core.sessions.search import SearchCancelled, SessionDB
from tests.cli.runner import hmc
from tests.core.sessions_fixtures import Msg, build_db

TERM = "重启"
N = 400


def _db(path):
    msgs = [Msg("user" if i % 2 else "assistant", f"第{i}次 {TERM} 服务" if i % 3 == 0 else f"plain message {i}")
            for i in range(N)]
    return build_db(path, "current", extra=[("20261020_090000_cjkcjk", "cli", msgs)])


@pytest.fixture
def db(tmp_path):
    return SessionDB(_db(tmp_path / "state.db"))


def test_within_the_budget_the_count_is_exact(db):
    result = db.search(TERM, count=True, limit=5)
    assert result.route == "like" and result.has_more
    assert result.total >= N // 3 and not result.total_capped and not result.total_partial


def test_past_the_budget_the_count_is_a_bound_and_the_page_is_the_same(db, monkeypatch):
    full = db.search(TERM, count=True, limit=5)
    monkeypatch.setenv("HMC_SCAN_COUNT_STEPS", "3000")
    bounded = db.search(TERM, count=True, limit=5)
    assert [h.message_id for h in bounded.hits] == [h.message_id for h in full.hits]
    assert bounded.total_partial and bounded.total_capped
    assert len(bounded.hits) + 1 <= bounded.total < full.total  # at least what is shown, fewer than all
    monkeypatch.setenv("HMC_SCAN_COUNT_STEPS", "0")  # no budget at all: still a page, and a bound
    none = db.search(TERM, count=True, limit=5)
    assert [h.message_id for h in none.hits] == [h.message_id for h in full.hits]
    assert none.total_partial and none.total >= len(none.hits) + 1


def test_an_indexed_route_is_never_cut_short(db, monkeypatch):
    monkeypatch.setenv("HMC_SCAN_COUNT_STEPS", "0")
    result = db.search("plain", count=True, limit=5)
    assert result.route == "fts" and not result.total_partial and result.total >= N // 2


def test_a_cancelled_count_is_a_cancel_not_a_bound(db, monkeypatch):
    stop = {"now": False}
    page = SessionDB._page

    def then_stop(self, *args, **kwargs):  # the page goes through; the count after it is cancelled
        rows = page(self, *args, **kwargs)
        stop["now"] = True
        return rows

    monkeypatch.setattr(SessionDB, "_page", then_stop)
    with pytest.raises(SearchCancelled):
        db.search(TERM, count=True, limit=5, should_stop=lambda: stop["now"])


def test_the_cli_says_when_the_count_is_a_bound(tmp_path, monkeypatch):
    home = tmp_path / "hermes"
    _db(home / "state.db")
    out = hmc("search", TERM, "--json", "--limit", "5", home=home)
    data = json.loads(out.stdout)
    assert data["count_is_bound"] is False and data["count_bound"] is None and not data["total_capped"]
    monkeypatch.setenv("HMC_SCAN_COUNT_STEPS", "2000")
    out = hmc("search", TERM, "--json", "--limit", "5", home=home)
    data = json.loads(out.stdout)
    assert len(data["hits"]) == 5 and data["count_is_bound"] is True and data["count_bound"] == "scan"
    assert data["total_capped"] is True and data["total"] >= 6
    text = hmc("search", TERM, "--limit", "5", home=home)
    assert text.returncode == 0, text.stderr
    assert f"5 of {data['total']:,}+ hits" in text.stdout and "counted only in the newest messages" in text.stdout
