"""core.timeline.usage: a store's usage per week from the rebuilt history, against its limit, with
the writers that grew it most."""

from __future__ import annotations

from types import SimpleNamespace

from datetime import date, datetime, timedelta

from core.timeline.usage import usage_series, week_of
from tests.core.test_timeline import T0, Db, add, timeline, write_files

WEEK = 7 * 24 * 60  # minutes


def home_with_weeks(tmp_path):
    """Week 0: +a (cli) +b (telegram); week 1: nothing; week 2: replace b with a longer text (cli)."""
    root = tmp_path / "hermes"
    (root / "memories").mkdir(parents=True)
    db = Db(root / "state.db")
    db.session("s-cli", "cli")
    db.session("s-tg", "telegram")
    db.call("s-cli", add("a" * 40))
    db.call("s-tg", add("b" * 20))
    db.minute += 2 * WEEK
    db.call("s-cli", {"action": "replace", "target": "memory", "old_text": "bbb", "content": "c" * 60})
    write_files(root, ["a" * 40, "c" * 60], [])
    return root, db


def test_a_bucket_per_week_with_the_usage_carried_over_quiet_weeks(tmp_path):
    root, db = home_with_weeks(tmp_path)
    _, tl = timeline(root)
    series = usage_series(tl, "memory", 100)
    first = week_of(db.when(1))
    assert [b.start for b in series.buckets] == [first, first + timedelta(days=7), first + timedelta(days=14)]
    assert [b.chars for b in series.buckets] == [63, 63, 103]  # 40 + 3 + 20; then 40 + 3 + 60
    assert [b.writes for b in series.buckets] == [2, 0, 1]
    assert series.buckets[0].peak == 63 and series.buckets[2].peak == 103
    data = series.as_json()
    assert data["series"][2]["over"] is True and data["series"][2]["percent"] == 100
    assert data["filled_week"] == series.buckets[2].start.isoformat() and series.filled is series.buckets[2]


def test_the_sessions_that_grew_it_most_come_first(tmp_path):
    root, _ = home_with_weeks(tmp_path)
    _, tl = timeline(root)
    week0, _, week2 = usage_series(tl, "memory", 100).buckets
    assert [(g.session_id, g.source, g.chars) for g in week0.grew] == [("s-cli", "cli", 40), ("s-tg", "telegram", 23)]
    assert week0.grew[0].label() == "session s-cli (cli)"
    assert [(g.session_id, g.chars) for g in week2.grew] == [("s-cli", 40)]  # 20 chars became 60


def test_today_extends_the_series_and_no_writes_is_empty(tmp_path):
    root, db = home_with_weeks(tmp_path)
    _, tl = timeline(root)
    later = datetime.fromtimestamp(db.when(db.minute)).date() + timedelta(days=30)
    series = usage_series(tl, "memory", 100, today=later)
    assert series.buckets[-1].start == later - timedelta(days=later.weekday())
    assert series.buckets[-1].chars == 103 and series.buckets[-1].writes == 0
    assert usage_series(tl, "user", 100).buckets == ()


def test_shrinking_writes_grow_nothing_and_hand_edits_are_named():
    def w(ts, before, after, by="agent", sid="s", source="cli"):
        # a write's before/after come from its history's logs: a stand-in carries them itself
        return SimpleNamespace(id="x", timestamp=ts, seen_at=ts, by=by, source=source, target="memory", action="edit",
                               session_id=sid if by == "agent" else None, before=tuple(before), after=tuple(after))

    writes = [w(T0, [], ["a" * 50]), w(T0 + 60, ["a" * 50], ["a" * 10]),
              w(T0 + 90, ["a" * 10], [], sid="t"),  # a session that only shrank it is not listed
              w(T0 + 120, [], ["a" * 10, "b" * 30], by="unknown", source="outside")]
    (bucket,) = usage_series(None, "memory", 100, writes=writes).buckets
    assert bucket.chars == 43 and bucket.peak == 50
    assert [(g.by, g.chars) for g in bucket.grew] == [("unknown", 43), ("agent", 10)]  # net per writer, largest first
    assert bucket.grew[0].label() == "no recorded call"


def test_a_write_evidence_dates_earlier_counts_in_the_week_it_was_written():
    def w(ts, seen, before, after, by="agent", source="cli"):
        return SimpleNamespace(id="x", timestamp=ts, seen_at=seen, by=by, source=source, target="memory",
                               action="edit", session_id="s" if by == "agent" else None,
                               before=tuple(before), after=tuple(after))

    week = 7 * 86400.0  # the review wrote in week 1; the replay saw it only after week 3's call
    writes = [w(T0, T0, [], ["a" * 20]),
              w(T0 + 3 * week, T0 + 3 * week, ["a" * 20], ["a" * 20, "c" * 10]),
              w(T0 + week, T0 + 3 * week + 60, ["a" * 20, "c" * 10], ["a" * 20, "c" * 10, "b" * 30],
                source="background review")]
    buckets = usage_series(None, "memory", 100, writes=writes).buckets
    assert [b.writes for b in buckets] == [1, 1, 0, 1]
    assert [b.chars for b in buckets] == [20, 53, 53, 66]  # each size carried as a difference (a separator counts 3): it ends as now
    assert buckets[1].grew[0].source == "background review" and buckets[1].grew[0].chars == 33


def test_week_of_is_the_local_monday():
    monday = week_of(datetime(2026, 11, 19, 12).timestamp())
    assert monday == date(2026, 11, 16) and week_of(float("nan")) is None
