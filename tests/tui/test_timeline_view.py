"""core.timeline.view: the words the TUI puts on the history (origin lines, an entry's texts, time
travel's dates and diff), on hand-built state.db files."""

from __future__ import annotations

from datetime import date, datetime, time as dt_time

import pytest

from core.timeline.history import Blame, Write
from core.timeline.view import (day, entry_history, matches, moment_label, origin_line, parse_moment, sources,
                                travel_diff, who)
from tests.core.test_timeline import T0, add, make_home, timeline, write_files


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


def w(wid: str, by: str = "agent", source: str = "telegram", ts: float = T0) -> Write:
    return Write(wid, ts, by, source, "memory", "add")


NOW = datetime(2026, 11, 15, 12, 0).timestamp()


def test_day_shows_the_year_only_when_it_is_not_this_one():
    assert day(datetime(2026, 10, 12, 9).timestamp(), NOW) == "12 Oct"
    assert day(datetime(2025, 10, 12, 9).timestamp(), NOW) == "12 Oct 2025"
    assert day(float("nan"), NOW) == "?"


@pytest.mark.parametrize("origin,first,revisions,line", [
    ("a", "a", 1, "added {d} · telegram"),
    ("b", "a", 3, "added {d} · telegram · last changed {d} · 3 revisions"),
    ("hmc", "a", 2, "added {d} · telegram, then hmc · last changed {d} · 2 revisions"),
    (None, "a", 2, "added {d} · telegram · changed since by no recorded call · 2 revisions"),
    (None, "x", 1, "no recorded call · by {d}"),
    (None, None, 1, "no recorded call"),
    # first seen outside, then a recorded write: the writer of the text now, as hmc blame says
    ("hmc", "x", 2, "hmc · last changed {d} · first seen {d} · 2 revisions"),
    ("a", "x", 2, "telegram · last changed {d} · first seen {d} · 2 revisions"),
])
def test_origin_lines_in_words_people_use(origin, first, revisions, line):
    writes = {"a": w("m1"), "b": w("m2"), "hmc": w("h1", "hmc", "hmc"), "x": w("x1", "unknown", "outside")}
    b = Blame("memory", 0, "text", writes.get(origin), writes.get(first), revisions)
    assert origin_line(b, NOW) == line.format(d=day(T0, NOW))


def test_who_names_the_source_hmc_or_a_hand_edit():
    assert [who(w("m1")), who(w("m1", source="agent")), who(w("h1", "hmc", "hmc")), who(w("x1", "unknown"))] == [
        "telegram", "agent", "hmc", "no recorded call"]


def test_an_entrys_history_follows_it_back_through_its_replaces(tmp_path):
    home, db = make_home(tmp_path)
    db.session("s1", "telegram")
    db.session("s2", "cli")
    db.call("s1", add("alpha"))
    db.call("s1", add("other"))
    db.call("s2", {"action": "replace", "target": "memory", "old_text": "alp", "content": "alpha two"})
    db.call("s2", {"action": "replace", "target": "memory", "old_text": "two", "content": "alpha three"})
    write_files(home, ["alpha three", "other"])
    _, tl = timeline(home)
    revs = entry_history(tl, "memory", "alpha three")
    assert [(r.write.session_id, r.before, r.after) for r in revs] == [
        ("s2", "alpha two", "alpha three"), ("s2", "alpha", "alpha two"), ("s1", None, "alpha")]
    assert [r.after for r in entry_history(tl, "memory", "other")] == ["other"]
    assert entry_history(tl, "memory", "never written") == []
    assert sources(tl) == ["telegram", "cli"]
    assert [x.id for x in tl.writes if matches(x, "memory", "cli")] == [x.id for x in tl.writes if x.session_id == "s2"]


@pytest.mark.parametrize("text,expected", [
    ("2026-10-12", datetime.combine(date(2026, 10, 12), dt_time.max)),
    ("2026-10-12 09:30", datetime(2026, 10, 12, 9, 30)),
    ("2026-10-12T09:30", datetime(2026, 10, 12, 9, 30)),
    ("7d", datetime.combine(date(2026, 11, 8), dt_time.max)),
    ("  2026-11-15  ", datetime.combine(date(2026, 11, 15), dt_time.max)),
])
def test_moments_people_type(text, expected):
    assert parse_moment(text, date(2026, 11, 15)) == expected


@pytest.mark.parametrize("text,why", [
    ("", "type a date"), ("   ", "type a date"), ("yesterday", "is not a date"), ("2026-13-01", "is not a date"),
    ("2026-11-16", "after today"), ("2026-10-12 25:00", "is not a time"), ("2026-10-12 9h", "is not a time"),
])
def test_bad_moments_say_what_is_wrong(text, why):
    with pytest.raises(ValueError, match=why):
        parse_moment(text, date(2026, 11, 15))


def test_moment_labels_and_the_diff_with_now():
    assert moment_label(datetime.combine(date(2026, 10, 12), dt_time.max)) == "12 Oct 2026, end of day"
    assert moment_label(datetime(2026, 10, 12, 9, 30)) == "12 Oct 2026 09:30"
    diff = travel_diff({"memory": ("a", "b"), "user": ()}, {"memory": ("b", "c"), "user": ()})
    assert (diff["memory"].added, diff["memory"].removed, diff["memory"].changed) == (("c",), ("a",), ())
    assert diff["user"].same


def test_the_travel_diff_pairs_an_entry_that_changed():
    then = ("Node 20 via fnm on this machine.", "Deploys go through staging first.")
    now = ("Node 22 via fnm on this machine.", "Deploys go through staging first.", "Brand new fact about Vite.")
    d = travel_diff({"memory": then}, {"memory": now})["memory"]
    assert d.changed == (("Node 20 via fnm on this machine.", "Node 22 via fnm on this machine."),)
    assert d.added == ("Brand new fact about Vite.",) and d.removed == ()
