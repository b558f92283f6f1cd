"""Decision aids in the TUI (issue 36): a conflict's written dates, the relative date's real date in
the edit, the skill passage beside a redundant entry, time travel's changed rows, and the timeline's
two usage lines on one time axis. Keys driven as a user presses them; files checked on disk."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.test_timeline import Db, add, write_files
from tests.tui.helpers import memory_text, settle, shown, until, until_dialog
from tests.tui.test_review_mode import highlight, open_review
from tui.screens.dialogs import EditEntryDialog
from tui.widgets.sidebyside import SideBySide

DAY = 24 * 60  # minutes: Db.call writes a minute after the last one, `db.minute += DAY` moves a day on


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


def home_with(home: Path) -> Db:
    (home / "memories").mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("memory:\n  memory_enabled: true\n", encoding="utf-8")
    return Db(home / "state.db")


LOW = "The Paylane API rate limit is 100 requests per minute per key."
HIGH = "The Paylane API rate limit is 1000 requests per minute per key."
RELATIVE = "Yesterday we migrated harbor-web from Webpack to Vite."


def panels(screen) -> list[tuple[str, str]]:
    """(title, body) of each panel shown beside the finding."""
    from textual.content import Content

    sides = screen.query_one(SideBySide)  # a title is kept as markup: read what it renders
    return [(Content.from_markup(box.border_title).plain, shown(box.query_one("Static"))) for box in sides.query("VerticalScroll")
            if not box.has_class("-hidden")]


# -- 1. a conflict's written dates ------------------------------------------------------------------------

async def test_a_conflicting_pair_shows_when_each_side_was_written(hermes_home, make_app):
    db = home_with(hermes_home)
    db.session("s-tg", "telegram")
    db.session("s-cli", "cli")
    db.call("s-tg", add(LOW))  # 21 Sep 2026
    db.minute += 45 * DAY
    db.call("s-cli", add(HIGH))  # 5 Nov 2026
    write_files(hermes_home, [LOW, HIGH], [])
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        assert await until(pilot, lambda: "conflicting" in {f.kind for f in lst.findings})
        await highlight(pilot, lst, "conflicting")
        detail = " ".join(shown(app.screen.query_one("#finding-detail")).split())
        assert "which one is true? memory #1 written 21 Sep 2026 (telegram); memory #2 written 5 Nov 2026 (cli)" in detail


async def test_a_conflict_without_history_says_the_dates_are_unknown(hermes_home, make_app):
    home_with(hermes_home).path.unlink()  # no state.db: no history
    write_files(hermes_home, [LOW, HIGH], [])
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        assert await until(pilot, lambda: "conflicting" in {f.kind for f in lst.findings})
        await highlight(pilot, lst, "conflicting")
        detail = " ".join(shown(app.screen.query_one("#finding-detail")).split())
        assert "when each was written is unknown" in detail and "2026" not in detail


# -- 2. the relative date's real date -----------------------------------------------------------------------

async def test_e_on_a_relative_date_opens_the_editor_with_the_real_date_and_saves_it(hermes_home, make_app):
    db = home_with(hermes_home)
    db.session("s-cli", "cli")
    db.minute += 45 * DAY
    db.call("s-cli", add(RELATIVE))  # saved 5 Nov 2026: "yesterday" was 4 Nov
    write_files(hermes_home, [RELATIVE], [])
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        assert await until(pilot, lambda: any(f.kind == "relative-date" and f.fix for f in lst.findings))
        await highlight(pilot, lst, "relative-date")
        screen = app.screen
        assert 'saved 5 Nov 2026, so "Yesterday" meant 4 Nov 2026' in " ".join(
            shown(screen.query_one("#finding-detail")).split())
        assert "2026-11-04 in place" in " ".join(shown(screen.query_one("#finding-hint")).split())
        await pilot.press("e")
        dialog = await until_dialog(pilot, EditEntryDialog)
        assert dialog.query_one("#edit-text").text == "2026-11-04 we migrated harbor-web from Webpack to Vite."
        await pilot.press("ctrl+s")  # saved through the store, as any edit
        await settle(app, pilot)
        assert memory_text(hermes_home) == "2026-11-04 we migrated harbor-web from Webpack to Vite."
        assert await until(pilot, lambda: "relative-date" not in {f.kind for f in screen.query_one("#findings").findings})


async def test_e_on_a_relative_date_with_no_known_saved_day_opens_the_entry_as_it_is(hermes_home, make_app):
    home_with(hermes_home).path.unlink()  # no state.db: the day it was saved is unknown
    write_files(hermes_home, [RELATIVE], [])
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        assert await until(pilot, lambda: "relative-date" in {f.kind for f in lst.findings})
        finding = await highlight(pilot, lst, "relative-date")
        assert finding.fix is None and '"Yesterday" meant' not in shown(app.screen.query_one("#finding-detail"))
        await pilot.press("e")
        dialog = await until_dialog(pilot, EditEntryDialog)
        assert dialog.query_one("#edit-text").text == RELATIVE
        await pilot.press("escape")
        await settle(app, pilot)
        assert memory_text(hermes_home) == RELATIVE


# -- 3. the skill's passage -------------------------------------------------------------------------------

SKILL = """---
name: deploy
description: Deploy harbor-web
---
# Deploy

  1. Run the tests first.
  2. Deploy harbor-web with kubectl apply -f k8s/harbor-web.yaml in the prod namespace.
  3. Watch the rollout [bold]until[/] it settles.

Unrelated notes.
"""


async def test_a_redundant_skill_finding_shows_the_skill_passage_literally(hermes_home, make_app):
    entry = "Deploy harbor-web with kubectl apply -f k8s/harbor-web.yaml in the prod namespace."
    home_with(hermes_home).path.unlink()
    write_files(hermes_home, [entry], [])
    (hermes_home / "skills" / "[x]deploy").mkdir(parents=True)  # a folder name that reads as markup
    (hermes_home / "skills" / "[x]deploy" / "SKILL.md").write_text(SKILL, encoding="utf-8")
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        assert await until(pilot, lambda: "redundant-skill" in {f.kind for f in lst.findings})
        await highlight(pilot, lst, "redundant-skill")
        await settle(app, pilot)
        (entry_title, _), (title, passage) = panels(app.screen)
        assert entry_title.startswith("memory #1") and title == "skills/[x]deploy/SKILL.md · lines 7–9"
        passage = " ".join(passage.split())  # as wrapped in its panel
        assert passage.startswith("1. Run the tests first. 2. Deploy harbor-web")
        assert passage.endswith("3. Watch the rollout [bold]until[/] it settles.")  # literal, never markup
        assert "Unrelated notes." not in passage and "# Deploy" not in passage  # a blank line ends it


# -- 4. time travel pairs an entry that changed --------------------------------------------------------------

async def test_time_travel_diff_shows_a_changed_entry_as_one_changed_row(hermes_home, make_app):
    from tui.screens.time_travel import MomentDialog, TravelDiffDialog

    db = home_with(hermes_home)
    db.session("s-cli", "cli")
    db.call("s-cli", add("This machine: Debian 12, Node 20 via fnm."))  # 21 Sep
    db.call("s-cli", add("Deploys go through the staging cluster first."))
    db.minute += 10 * DAY  # 1 Oct
    db.call("s-cli", {"action": "replace", "target": "memory", "old_text": "Node 20",
                      "content": "This machine: Debian 12, Node 22 via fnm."})
    db.call("s-cli", add("Prefers Vite over Webpack."))
    write_files(hermes_home, ["This machine: Debian 12, Node 22 via fnm.", "Deploys go through the staging cluster first.",
                              "Prefers Vite over Webpack."], [])
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        await pilot.press("T")
        await until_dialog(pilot, MomentDialog)
        await pilot.press(*"2026-09-25", "enter")
        assert await until(pilot, lambda: screen.travel_at is not None)
        await settle(app, pilot)
        await pilot.press("n")
        dialog = await until_dialog(pilot, TravelDiffDialog)
        body = dialog.body
        assert "MEMORY.md: 1 added since, 1 changed, 0 gone" in body.plain
        assert "~ This machine: Debian 12, Node 20→22 via fnm." in body.plain  # then struck, → now
        changes = body.plain.split("\n\n")[0]  # the legend follows
        assert "+ Prefers Vite over Webpack." in changes and "\n- " not in changes
        at = body.plain.index("Node 20→22") + len("Node ")
        styles = {str(s.style) for s in body.spans if s.start <= at < s.end}
        assert any("strike" in s for s in styles)  # "20" struck through: what was there then
        at += 3
        assert any("green" in str(s.style) for s in body.spans if s.start <= at < s.end)  # "22": now
        await pilot.press("escape")


# -- 5. the timeline's two usage lines share one time axis -------------------------------------------------

async def test_the_timeline_usage_lines_share_one_axis_labelled_once(hermes_home, make_app):
    from tui.screens.timeline import TimelineScreen

    db = home_with(hermes_home)
    db.session("s-cli", "cli")
    for week in range(12):  # MEMORY.md grows every week from 21 Sep
        db.call("s-cli", add(f"Fact number {week} about the harbor-web deploys, kept for later."))
        db.minute += 7 * DAY
    db.minute -= 5 * 7 * DAY  # USER.md only in the last 5 weeks
    for week in range(5):
        db.call("s-cli", add(f"User preference {week}: short answers.", "user"))
        db.minute += 7 * DAY
    write_files(hermes_home, [f"Fact number {w} about the harbor-web deploys, kept for later." for w in range(12)],
                [f"User preference {w}: short answers." for w in range(5)])
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        screen = await until_dialog(pilot, TimelineScreen)
        assert await until(pilot, lambda: screen.timeline is not None and bool(screen.series))
        await settle(app, pilot)
        memory_line, user_line, axis = [line[1:] for line in shown(screen.query_one("#tl-chart")).split("\n")[:3]]
        cells = [line[10:].split("  ")[0] for line in (memory_line, user_line)]  # after the name, before the tail
        assert len(cells[0]) == len(cells[1]) >= 12  # the same weeks in both lines
        assert cells[1].startswith("·" * 7) and "·" not in cells[0]  # USER.md's history starts later
        assert memory_line.index("% of") == user_line.index("% of")
        assert "week of 21 Sep" in axis and "a bar per week" in axis
