"""`hmc log --chart`: a bar per week against each store's limit, with the sessions that grew it most."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from tests.cli.runner import hmc
from tests.core.test_timeline import Db, add, write_files

WEEK = 7 * 24 * 60


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.fixture
def home(tmp_path):
    root = tmp_path / "hermes"
    (root / "memories").mkdir(parents=True)
    (root / "config.yaml").write_text("memory:\n  memory_char_limit: 100\n", encoding="utf-8")
    db = Db(root / "state.db")
    db.session("s-cli", "cli")
    db.session("s-tg", "telegram")
    db.call("s-cli", add("a" * 40))
    db.call("s-tg", add("Name: Ana", "user"))
    db.minute += 3 * WEEK
    db.call("s-tg", add("b" * 50))
    write_files(root, ["a" * 40, "b" * 50], ["Name: Ana"])
    return root, db


def today_after(db) -> str:
    return datetime.fromtimestamp(db.when(db.minute)).date().isoformat()


def test_chart_text(home):
    root, db = home
    result = hmc("log", "--chart", home=root, today=today_after(db))
    assert result.returncode == 0, result.stderr
    memory, user = result.stdout.split("\n\n")
    assert memory.startswith("MEMORY.md — limit 100 chars · reached 80% the week of")
    assert "█" in memory and " 40% " in memory and " 93% " in memory
    assert "+40 session s-cli (cli)" in memory and "+53 session s-tg (telegram)" in memory
    assert "… 2 weeks without writes" in memory
    assert user.startswith("USER.md") and "never reached 80%" in user


def test_chart_json_gives_the_series(home):
    root, db = home
    data = json.loads(hmc("log", "--chart", "--json", "--target", "memory", home=root, today=today_after(db)).stdout)
    (memory,) = data["targets"]
    assert memory["target"] == "memory" and memory["limit"] == 100 and memory["file"] == "MEMORY.md"
    series = memory["series"]
    assert [w["chars"] for w in series] == [40, 40, 40, 93] and [w["writes"] for w in series] == [1, 0, 0, 1]
    assert series[-1]["grew"] == [{"by": "agent", "session_id": "s-tg", "source": "telegram", "chars": 53}]
    assert memory["filled_week"] == series[-1]["week"]


def test_since_trims_the_weeks_and_source_is_refused(home):
    root, db = home
    day = today_after(db)
    data = json.loads(hmc("log", "--chart", "--json", "-t", "memory", "--since", day, home=root, today=day).stdout)
    assert [w["chars"] for w in data["targets"][0]["series"]] == [93]
    bad = hmc("log", "--chart", "--source", "cli", home=root, today=day)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_an_over_full_week_is_marked(home):
    root, db = home
    (root / "config.yaml").write_text("memory:\n  memory_char_limit: 80\n", encoding="utf-8")
    result = hmc("log", "--chart", "-t", "memory", home=root, today=today_after(db))
    assert "▲" in result.stdout and "100%" in result.stdout


def test_no_history_says_so(tmp_path):
    root = tmp_path / "hermes"
    (root / "memories").mkdir(parents=True)
    result = hmc("log", "--chart", home=root)
    assert result.returncode == 0 and result.stdout.count("no writes recorded") == 2
