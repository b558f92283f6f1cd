"""The command palette: every action of every mode, found from memory mode by its verb."""

from __future__ import annotations

import shutil

import pytest

from tests.tui.helpers import settle, shown, toasts, until_dialog
from tui.palette import MODES, NOT_LISTED, VERBS, mode_classes
from tui.screens.dialogs import ConfirmDialog
from tui.screens.palette_dialog import ranked, shown_title


def best(app, query: str):
    """The palette's best match for `query` (title, help, command), as the palette ranks it."""
    hits = ranked(app.palette_commands(), query)
    assert hits, query
    command, _ = hits[0]
    return command.title, command.help, command


ONLY_WHILE_TRAVELLING = {"memory.travel_diff", "memory.travel_back"}  # hidden otherwise (test_timeline.py)


def every_action() -> list[tuple[str, str]]:
    """(area: verb) for every listed binding of every mode."""
    out = []
    for mode, cls in mode_classes().items():
        for binding in cls.BINDINGS:
            if binding.id and binding.id not in NOT_LISTED | ONLY_WHILE_TRAVELLING and binding.description:
                out.append((mode, f"{cls.AREA}: {VERBS.get(binding.id, binding.description)}"))
    return out


def test_every_binding_has_a_verb():
    for mode, cls in mode_classes().items():
        for binding in cls.BINDINGS:
            assert binding.id, (mode, binding)
            if binding.id not in NOT_LISTED:
                verb = VERBS.get(binding.id, binding.description)  # the palette's name: its verb, else the label
                assert verb[0].isupper() and "✓" not in verb and "✗" not in verb
                assert verb.split()[0] not in ("All", "Next", "Prev", "Kept"), verb  # a verb, not a label


async def test_every_action_of_every_mode_is_found_from_memory_mode(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert app.current_mode == "memory"
        actions = every_action()
        assert {mode for mode, _ in actions} == set(MODES)
        for _, title in actions:
            verb = title.split(": ", 1)[1]
            text, _, _ = best(app, verb.lower())
            assert text == title, (verb, text)


@pytest.mark.parametrize("query,title", [
    ("approve all", "pending: Approve all"),
    ("export review", "review: Export the review as Markdown"),
    ("switch profile", "app: Switch profile to contenu"),  # the demo's contenu and ops profiles
    ("change theme", "app: Change theme"),
    ("search all profiles", "search: Search all profiles"),
    ("quit", "app: Quit hmc"),
    ("show timeline", "history: Show timeline"),
    ("timeline", "history: Show timeline"),
    ("rollback", "history: Roll back the write"),
    ("time travel", "memory: Time travel: show the stores as they were on a date"),
    ("entry history", "memory: Show the entry's history"),
])
async def test_the_verbs_people_type(demo_home, make_app, query, title):
    (demo_home / "profiles" / "work" / "memories").mkdir(parents=True)
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        text, _, _ = best(app, query)
        assert text == title


async def test_no_widget_navigation_noise(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        titles = [c.title for c in app.palette_commands()]
        assert all(t.split(": ", 1)[0] in ("go", "app", "history", *MODES) for t in titles), titles
        for noise in ("Scroll", "Page", "Cursor", "Select all", "Maximize", "Screenshot"):
            assert not any(noise.lower() in t.lower() for t in titles), noise


async def test_an_unavailable_action_is_listed_with_the_reason(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        text, help_text, hit = best(app, "repair the file")
        assert text == "memory: Repair the file"
        assert "Not now: Repair: MEMORY.md is already clean" in help_text
        assert "(not now)" in shown_title(hit).plain
        await pilot.press("ctrl+p", *"repair the file")
        await pilot.pause()
        listed = shown(app.screen.query_one("#palette-list")).splitlines()
        assert listed[0].strip() == "memory: Repair the file  (not now)  r"
        assert "Not now: Repair: MEMORY.md is already clean" in shown(app.screen.query_one("#palette-help"))
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert toasts(app)[-1].message == "Repair: MEMORY.md is already clean"


async def test_approve_all_from_memory_mode_runs_in_pending_mode(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"approve all")
        await pilot.pause(0.5)
        await pilot.press("enter")
        dialog = await until_dialog(pilot, ConfirmDialog)
        assert app.current_mode == "pending" and "Approve all" in dialog.body.plain
        await pilot.press("n")
        await settle(app, pilot)


async def test_export_review_from_memory_mode_writes_the_report(demo_home, make_app):
    from tui.screens.review import reports_dir

    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"export review")
        await pilot.pause(0.5)
        await pilot.press("enter")
        for _ in range(40):
            await settle(app, pilot)
            if list(reports_dir(app.curator).glob("review-*.md")):
                break
        assert app.current_mode == "review"
        (report,) = reports_dir(app.curator).glob("review-*.md")
        assert report.read_text().startswith("#")


async def test_help_lists_the_footer_keys_and_quit_both_ways_without_noise(demo_home, make_app):
    from tui.screens.help import HelpDialog

    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("question_mark")
        dialog = await until_dialog(pilot, HelpDialog)
        keys = shown(dialog.query_one("#help-keys"))
        assert "q, ^c, ^q" in keys  # q as well as ctrl+q (and ctrl+c)
        assert "Repair" in keys and "already clean" in keys  # greyed, with the reason
        for noise in ("Scroll", "Page Up", "Cursor", "Focus Previous", "super+c"):
            assert noise not in keys


async def test_switch_profile_with_only_the_default_profile_says_why(demo_home, make_app):
    shutil.rmtree(demo_home / "profiles")  # the demo's ops profile and its stale default folder
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        text, help_text, hit = best(app, "switch profile")
        assert text == "app: Switch profile"
        assert "Not now: ~/.hermes has only the default profile" in help_text
        assert "(not now)" in shown_title(hit).plain
        hit.callback()
        await pilot.pause()
        assert app.curator.home.profile == "default"
        assert any("only the default profile" in n.message for n in toasts(app))


async def test_show_timeline_and_rollback_from_the_palette(demo_home, make_app):
    from tui.screens.timeline import TimelineScreen

    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        _, help_text, hit = best(app, "rollback")
        assert "(key R on the timeline)" in help_text
        before = {p: p.read_bytes() for p in (demo_home / "memories").iterdir()}
        hit.callback()  # the timeline opens, and the rollback waits for its writes (never a race)
        dialog = await until_dialog(pilot, ConfirmDialog, timeout=30)
        assert "Roll back this write to" in dialog.body.plain
        await pilot.pause()
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, TimelineScreen)
        assert {p: p.read_bytes() for p in (demo_home / "memories").iterdir()} == before
