"""The review's `old` finding: real ages from the memory history (state.db calls with known times),
the threshold, hand edits, no or a damaged state.db, stale first, and the TUI's snapshots untouched."""

from __future__ import annotations

import os
from datetime import date, datetime
from pathlib import Path

import pytest

from core.curator import open_curator
from core.review import findings as R
from core.review.ages import SEEN, WRITE, entry_ages
from tests.core.test_timeline import T0, Db, add, write_files

DAY = 86_400.0


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


def at_day(db: Db, day: int) -> None:
    """The next call happens `day` days after T0 (Db.call adds one minute)."""
    db.minute = int(day * 1440) - 1


def day_of(ts: float) -> date:
    return datetime.fromtimestamp(ts).date()


TODAY = day_of(T0 + 300 * DAY)


def home_with_history(tmp_path: Path) -> tuple[Path, Db]:
    """Three entries written by the agent: day 0 (telegram), day 250 (cli), and one added day 0 and
    rewritten day 100."""
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    (home / "config.yaml").write_text("memory:\n  memory_enabled: true\n", encoding="utf-8")
    db = Db(home / "state.db")
    db.session("tg", "telegram")
    db.session("cl", "cli")
    at_day(db, 0)
    db.call("tg", add("Staging runs behind the VPN."))
    at_day(db, 0.5)
    db.call("tg", add("Deploys go through the release branch."))
    at_day(db, 100)
    db.call("cl", {"action": "replace", "target": "memory", "old_text": "release branch",
                   "content": "Deploys go through main with a tag."})
    at_day(db, 250)
    db.call("cl", add("Prefers short answers.", "user"))
    write_files(home, ["Staging runs behind the VPN.", "Deploys go through main with a tag."],
                ["Prefers short answers."])
    for name in ("MEMORY.md", "USER.md"):  # the files were last written with the calls
        os.utime(home / "memories" / name, (T0 + 250 * DAY, T0 + 250 * DAY))
    return home, db


def curator(home: Path, today: date = TODAY, now: float = T0 + 300 * DAY):
    return open_curator(home, today=today, clock=lambda: now)


def olds(findings) -> dict[str, R.Finding]:
    return {f.where: f for f in findings if f.kind == "old"}


def test_entries_unchanged_past_the_threshold_are_old_with_who_and_when(tmp_path):
    home, _ = home_with_history(tmp_path)
    found = olds(R.run_review(curator(home)))
    assert set(found) == {"memory #1", "memory #2"}  # user #1 is 50 days old: not yet
    first = found["memory #1"]
    assert (first.severity, first.rule, first.since) == ("info", "old", day_of(T0))
    assert first.detail.startswith(f"unchanged since {day_of(T0).day} Sep 2026 (300 days)")
    assert "added by the agent in a telegram session" in first.detail
    rewritten = found["memory #2"]  # its age is the rewrite's, not the first add's
    assert rewritten.since == day_of(T0 + 100 * DAY) and "(200 days)" in rewritten.detail
    assert "rewritten by the agent in a cli session" in rewritten.detail
    assert rewritten.to_json()["since"] == day_of(T0 + 100 * DAY).isoformat()
    assert R.review_complete(R.run_review(curator(home)))  # info: never holds the review open


def test_the_threshold_is_the_callers(tmp_path):
    home, _ = home_with_history(tmp_path)
    assert set(olds(R.run_review(curator(home), old_days=30))) == {"memory #1", "memory #2", "user #1"}
    assert set(olds(R.run_review(curator(home), old_days=250))) == {"memory #1"}
    assert olds(R.run_review(curator(home), old_days=300)) == {}  # more than 300 days: not exactly 300
    assert olds(R.run_review(curator(home), old_days=None)) == {}  # no history asked for


def test_a_hand_edit_is_aged_from_when_the_history_first_shows_it(tmp_path):
    home, _ = home_with_history(tmp_path)
    write_files(home, ["Staging runs behind the VPN (hand edited).", "Deploys go through main with a tag."])
    os.utime(home / "memories" / "MEMORY.md", (T0 + 260 * DAY, T0 + 260 * DAY))
    cur = curator(home)
    ages = entry_ages(cur)
    edited = ages.get("memory", "Staging runs behind the VPN (hand edited).")
    assert ages.note is None and edited.basis == SEEN and edited.by == "unknown"
    assert day_of(edited.since) == day_of(T0 + 260 * DAY)
    assert ages.get("memory", "Deploys go through main with a tag.").basis == WRITE
    found = olds(R.run_review(cur, old_days=30))
    hand = found["memory #1"]
    assert hand.rule == "old-unexplained" and "at the latest (40+ days: when the history" in hand.detail
    assert "no recorded call wrote it" in hand.detail
    assert "agent" not in hand.detail
    assert "memory #1" not in olds(R.run_review(cur))  # 40 days is not old at 180


def test_an_entry_added_by_hand_is_as_old_as_the_first_snapshot_showing_it(tmp_path):
    home, _ = home_with_history(tmp_path)
    # a person added an entry; Hermes found the drift on day 10 and saved a snapshot of the file
    snap = home / "memories" / f"MEMORY.md.bak.{int(T0 + 10 * DAY)}"
    snap.write_text("Staging runs behind the VPN.\n§\nDeploys go through the release branch.\n§\n"
                    "Office wifi is on the 5 GHz band.\n", encoding="utf-8")
    write_files(home, ["Staging runs behind the VPN.", "Deploys go through main with a tag.",
                       "Office wifi is on the 5 GHz band."])
    found = olds(R.run_review(curator(home)))
    assert found["memory #3"].rule == "old-unexplained"
    assert found["memory #3"].since == day_of(T0 + 10 * DAY) and "(290+ days:" in found["memory #3"].detail
    assert found["memory #3"].detail.endswith("when the history first shows this text) — no recorded call "
                                              "wrote it")
    assert found["memory #2"].rule == "old"  # the agent's rewrite on day 100 still explains #2


def test_nothing_known_is_never_old(tmp_path):
    home, _ = home_with_history(tmp_path)
    cur = curator(home, today=day_of(T0 - 10 * DAY))  # a review dated before every write
    assert olds(R.run_review(cur, old_days=1)) == {}


def test_a_stale_entry_is_not_also_old(tmp_path):
    home, db = home_with_history(tmp_path)
    at_day(db, 1)
    db.call("tg", add("As of 2026-01-10 the VPN uses WireGuard."))
    write_files(home, ["Staging runs behind the VPN.", "Deploys go through main with a tag.",
                       "As of 2026-01-10 the VPN uses WireGuard."])
    found = R.run_review(curator(home))
    dated = [f for f in found if 2 in f.entries and f.targets == ("memory",)]
    assert [f.kind for f in dated] == ["stale"]
    assert "memory #1" in olds(found)


def test_no_state_db_means_no_old_findings_and_a_note(tmp_path):
    home, db = home_with_history(tmp_path)
    os.unlink(db.path)
    cur = curator(home)
    ages = entry_ages(cur)
    assert ages.by_text == {} and "no state.db" in ages.note
    assert olds(R.run_review(cur, old_days=1)) == {}


@pytest.mark.parametrize("damage", [b"SQLite format 3\x00" + b"\x00" * 200, b"not a database at all"])
def test_a_damaged_state_db_means_no_old_findings_never_an_error(tmp_path, damage):
    home, db = home_with_history(tmp_path)
    db.path.write_bytes(damage)
    cur = curator(home)
    ages = entry_ages(cur)
    assert ages.by_text == {} and "can't be read" in ages.note
    findings = R.run_review(cur, old_days=1)
    assert olds(findings) == {} and not any(f.kind == "drift" for f in findings)


def test_a_state_db_that_is_a_folder(tmp_path):
    home, db = home_with_history(tmp_path)
    os.unlink(db.path)
    db.path.mkdir()
    assert olds(R.run_review(curator(home), old_days=1)) == {}


def test_ages_leave_the_tuis_snapshots_alone(tmp_path):
    """The TUI reviews its poll's snapshots (fresh=False); the history reads the files itself, and
    must not update those snapshots, or the poll would miss the change."""
    home, _ = home_with_history(tmp_path)
    cur = curator(home)
    for store in cur.stores.values():
        store.read()
    write_files(home, ["Changed behind hmc's back."])
    R.run_review(cur, fresh=False)
    assert cur.stores["memory"].last.entries == ("Staging runs behind the VPN.", "Deploys go through main with a tag.")
    assert cur.stores["memory"].changed_on_disk()  # the poll still sees the change


def test_the_second_review_uses_the_timelines_cache(tmp_path):
    home, _ = home_with_history(tmp_path)
    R.run_review(curator(home))
    cache_dir = tmp_path / "xdg-cache" / "hmc" / "timeline"
    assert any(p.suffix == ".cache" for p in cache_dir.iterdir())
    from core.timeline import build_timeline

    assert build_timeline(curator(home), cache=True).stats["cache"] == "hit"


def test_a_batch_says_whether_it_added_or_rewrote_the_entry(tmp_path):
    home, db = home_with_history(tmp_path)
    at_day(db, 20)
    db.call("tg", {"action": "batch", "operations": [
        {"action": "add", "target": "memory", "content": "Backups run nightly at 02:00."},
        {"action": "replace", "target": "memory", "old_text": "behind the VPN", "content": "Staging runs on k3s."}]})
    write_files(home, ["Staging runs on k3s.", "Deploys go through main with a tag.", "Backups run nightly at 02:00."])
    ages = entry_ages(curator(home))
    assert ages.get("memory", "Staging runs on k3s.").action == "batch"
    found = olds(R.run_review(curator(home)))
    assert "rewritten by the agent in a telegram session" in found["memory #1"].detail
    assert "added by the agent in a telegram session" in found["memory #3"].detail
