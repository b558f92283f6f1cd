"""History in the TUI (core.timeline): memory mode's origin lines, the timeline screen (filters, rollback
with the files checked on disk, a conflict, undo of the rollback), on homes with a hand-built state.db."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.test_timeline import T0, Db, add, write_files
from tests.tui.helpers import memory_text, settle, shown, toasts, until, until_dialog
from tui.screens.dialogs import ChoiceDialog, ConfirmDialog, EditEntryDialog


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


def history_home(home: Path) -> Db:
    """Three agent writes (telegram, then cli), an entry added by hand; USER.md from the agent."""
    (home / "memories").mkdir(parents=True)
    (home / "config.yaml").write_text("memory:\n  memory_enabled: true\n", encoding="utf-8")
    db = Db(home / "state.db")
    db.session("s-tg", "telegram")
    db.session("s-cli", "cli")
    db.call("s-tg", add("Deploys go through the staging cluster first."))
    db.call("s-tg", add("Prefers short answers.", "user"))
    db.call("s-cli", add("The [bold]API[/] key lives in the vault."))
    db.call("s-cli", {"action": "replace", "target": "memory", "old_text": "staging cluster",
                      "content": "Deploys go through the staging cluster, then canary."})
    write_files(home, ["Deploys go through the staging cluster, then canary.", "The [bold]API[/] key lives in the vault.",
                       "Typed by hand."], ["Prefers short answers."])
    return db


async def open_timeline(app, pilot):
    from tui.screens.timeline import TimelineScreen

    await settle(app, pilot)
    await pilot.press("t")
    screen = await until_dialog(pilot, TimelineScreen)
    assert await until(pilot, lambda: screen.timeline is not None)
    await settle(app, pilot)
    return screen


# -- memory mode's origin lines -------------------------------------------------------------------

async def test_each_entry_says_when_and_where_it_came_from(hermes_home, make_app):
    history_home(hermes_home)
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert await until(pilot, lambda: screen._origins)
        await settle(app, pilot)
        text = shown(screen.query_one("#entries-memory"))
        day = __import__("core.timeline.view", fromlist=["day"]).day(T0 + 60, app.curator.now())
        assert f"added {day} · telegram, then cli" in text and "2 revisions" in text
        assert f"added {day} · cli" in text
        assert "no recorded call" in text and "hand edit" not in text
        assert "The [bold]API[/] key" in text  # literal, never markup
        assert f"added {day} · telegram" in shown(screen.query_one("#entries-user"))


async def test_no_state_db_no_origin_lines_and_no_error(hermes_home, make_app):
    (hermes_home / "memories").mkdir(parents=True)
    write_files(hermes_home, ["Only an entry."])
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.pause(0.3)
        await settle(app, pilot)
        text = shown(app.screen.query_one("#entries-memory"))
        assert "Only an entry." in text and "added" not in text and "no recorded call" not in text
        assert app.screen.timeline is None


async def test_an_unreadable_state_db_shows_no_origin_lines(hermes_home, make_app):
    (hermes_home / "memories").mkdir(parents=True)
    write_files(hermes_home, ["Only an entry."])
    (hermes_home / "state.db").write_bytes(b"not a database at all" * 100)
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.pause(0.3)
        await settle(app, pilot)
        assert "no recorded call" not in shown(app.screen.query_one("#entries-memory"))
        assert app.screen.timeline is None


async def test_origin_lines_follow_a_write(hermes_home, make_app):
    history_home(hermes_home)
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert await until(pilot, lambda: screen._origins)
        await pilot.press("a", *"A new note", "ctrl+s")
        assert await until(pilot, lambda: screen._origins.get("memory", {}).get("A new note", "").startswith("added"))
        assert "· hmc" in screen._origins["memory"]["A new note"]


# -- the timeline screen ----------------------------------------------------------------------------

async def test_timeline_lists_every_write_newest_first_and_filters(hermes_home, make_app):
    history_home(hermes_home)
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_timeline(app, pilot)
        ids = [w.id for w in screen.shown]
        assert [w.action for w in screen.shown][0] == "outside"  # the hand edit, seen in the file now
        assert ids[1:] == ["m8", "m6", "m4", "m2"]
        detail = shown(screen.query_one("#tl-diff"))
        assert "by no recorded call" in detail and "Typed by hand." in detail
        await pilot.press("down")
        detail = shown(screen.query_one("#tl-diff"))
        assert "replace" in detail and "then canary." in detail and "the agent (cli)" in detail
        # file filter
        screen.query_one("#tl-target").value = "user"
        await settle(app, pilot)
        assert [w.id for w in screen.shown] == ["m4"]
        screen.query_one("#tl-target").clear()
        # writer filter
        screen.query_one("#tl-source").value = "telegram"
        await settle(app, pilot)
        assert [w.id for w in screen.shown] == ["m4", "m2"]
        screen.query_one("#tl-source").clear()
        await settle(app, pilot)
        every = [w.id for w in screen.shown]
        # dates: a bad one is flagged at once and left out (the list stays); a good one filters
        screen.query_one("#tl-since").focus()
        await pilot.press(*"2026-13")
        await settle(app, pilot)
        assert [w.id for w in screen.shown] == every and screen.query_one("#tl-since").has_class("-invalid")
        assert "since" in shown(screen.query_one("#tl-status")) and "left out" in shown(screen.query_one("#tl-status"))
        # the filter line narrows the writes by their text
        screen.query_one("#tl-since").value = ""
        screen.query_one("#tl-writes").focus()
        await pilot.press("slash", *"canary")
        await settle(app, pilot)
        assert [w.id for w in screen.shown] == ["m8"]
        await pilot.press("escape")
        await settle(app, pilot)
        screen.query_one("#tl-since").value = "2099-01-01"
        await settle(app, pilot)
        assert screen.shown == [] and "match these filters" in shown(screen.query_one("#tl-status"))
        screen.query_one("#tl-since").value = ""
        await settle(app, pilot)
        assert len(screen.shown) == 5
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen.MODE == "memory"


async def test_rollback_asks_writes_and_u_undoes_it(hermes_home, make_app):
    history_home(hermes_home)
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_timeline(app, pilot)
        screen.query_one("#tl-writes").highlighted = [w.id for w in screen.shown].index("m6")  # the add of "The [bold]…"
        await settle(app, pilot)
        await pilot.press("R")
        dialog = await until_dialog(pilot, ConfirmDialog)
        body = shown(dialog.query_one("#question-body")) if dialog.query("#question-body") else str(dialog.body)
        assert "The [bold]API[/] key lives in the vault." in body
        await pilot.press("escape")  # no: nothing changes
        await settle(app, pilot)
        assert "The [bold]API[/] key" in memory_text(hermes_home)
        await pilot.press("R")
        await until_dialog(pilot, ConfirmDialog)
        await pilot.press("y")
        assert await until(pilot, lambda: "The [bold]API[/] key" not in memory_text(hermes_home))
        assert memory_text(hermes_home) == "Deploys go through the staging cluster, then canary.\n§\nTyped by hand."
        await settle(app, pilot)
        assert await until(pilot, lambda: screen.shown and screen.shown[0].action == "rollback")
        await pilot.press("u")
        await until_dialog(pilot, ConfirmDialog)
        await pilot.press("y")
        assert await until(pilot, lambda: "The [bold]API[/] key" in memory_text(hermes_home))
        assert memory_text(hermes_home).count("§") == 2


async def test_rolling_back_a_replace_puts_the_old_text_back(hermes_home, make_app):
    history_home(hermes_home)
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_timeline(app, pilot)
        screen.query_one("#tl-writes").highlighted = [w.id for w in screen.shown].index("m8")
        await settle(app, pilot)
        await pilot.press("R")
        await until_dialog(pilot, ConfirmDialog)
        await pilot.press("y")
        assert await until(pilot, lambda: "then canary" not in memory_text(hermes_home))
        assert memory_text(hermes_home).startswith("Deploys go through the staging cluster first.\n§\n")


async def test_a_conflict_explains_and_offers_the_edit_dialog(hermes_home, make_app):
    history_home(hermes_home)
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_timeline(app, pilot)
        screen.query_one("#tl-writes").highlighted = [w.id for w in screen.shown].index("m2")  # replaced since
        await settle(app, pilot)
        before = memory_text(hermes_home)
        await pilot.press("R")
        dialog = await until_dialog(pilot, ChoiceDialog)
        assert "replaced since, by the agent (cli) in m8" in str(dialog.body)
        await pilot.press("enter")  # Edit the entry
        editor = await until_dialog(pilot, EditEntryDialog)
        assert editor.original == "Deploys go through the staging cluster, then canary."
        assert memory_text(hermes_home) == before  # nothing guessed, nothing written
        await pilot.press("end", *" Always.", "ctrl+s")
        assert await until(pilot, lambda: "then canary. Always." in memory_text(hermes_home))


async def test_a_hand_edit_cant_be_rolled_back_and_says_why(hermes_home, make_app):
    history_home(hermes_home)
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_timeline(app, pilot)
        assert screen.shown[0].by == "unknown"
        before = memory_text(hermes_home)
        await pilot.press("R")
        await settle(app, pilot)
        assert "can't be rolled back" in screen.why_not("rollback")
        assert not isinstance(app.screen, ConfirmDialog)
        assert memory_text(hermes_home) == before


async def test_timeline_without_a_state_db_lists_hmc_writes_only(hermes_home, make_app):
    (hermes_home / "memories").mkdir(parents=True)
    write_files(hermes_home, ["One."])
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("a", *"Two.", "ctrl+s")
        assert await until(pilot, lambda: "Two." in memory_text(hermes_home))
        screen = await open_timeline(app, pilot)
        assert [w.by for w in screen.shown][0] == "hmc"


# -- an entry's history (memory mode's i) --------------------------------------------------------------

async def test_an_entrys_history_lists_its_texts_and_enter_opens_the_session(hermes_home, make_app):
    from tui.screens.entry_history import EntryHistoryScreen

    db = history_home(hermes_home)
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("i")  # the first entry: added on telegram, then replaced from the cli
        screen = await until_dialog(pilot, EntryHistoryScreen)
        assert await until(pilot, lambda: screen.loaded)
        assert [(r.write.id, r.before, r.after) for r in screen.revisions] == [
            ("m8", "Deploys go through the staging cluster first.", "Deploys go through the staging cluster, then canary."),
            ("m2", None, "Deploys go through the staging cluster first.")]
        detail = shown(screen.query_one("#eh-diff"))
        assert "the agent (cli)" in detail and "session s-cli" in detail and "then canary." in detail
        await pilot.press("down")
        assert "the agent (telegram)" in shown(screen.query_one("#eh-diff"))
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen.MODE == "memory" and db.path.exists()


async def test_enter_opens_the_session_at_the_call_and_esc_comes_back(demo_home, make_app):
    from tui.screens.entry_history import EntryHistoryScreen

    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("tab", "i")  # USER.md's first entry, written by the agent
        screen = await until_dialog(pilot, EntryHistoryScreen)
        assert await until(pilot, lambda: screen.loaded)
        write = screen.revisions[0].write
        assert write.by == "agent" and write.session_id
        await pilot.press("enter")
        assert await until(pilot, lambda: app.current_mode == "search")
        search = app.screen
        assert await until(pilot, lambda: getattr(search, "session_info", None) is not None)
        assert search.session_info.id == write.session_id and search.view == "transcript"
        assert search.transcript.current_id == write.message_id  # centred on the call
        assert not search.query_one("#search-status").display  # no results' status above a transcript
        assert "Esc back to the entry's history" in shown(search.query_one("#transcript-title"))
        await pilot.press("escape")  # back where Enter was pressed: the entry's history
        assert await until(pilot, lambda: isinstance(app.screen, EntryHistoryScreen))
        assert app.current_mode == "memory" and app.screen.entry == screen.entry
        await pilot.press("escape")
        assert await until(pilot, lambda: app.screen.MODE == "memory")


async def test_a_hand_typed_entry_has_no_session_to_open(hermes_home, make_app):
    from tui.screens.entry_history import EntryHistoryScreen

    history_home(hermes_home)
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("down", "down", "i")  # "Typed by hand."
        screen = await until_dialog(pilot, EntryHistoryScreen)
        assert await until(pilot, lambda: screen.loaded)
        assert [r.write.by for r in screen.revisions] == ["unknown"]
        assert "no recorded call" in screen.why_not("open_session")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, EntryHistoryScreen)  # stays, says why
        assert any("no recorded call" in n.message for n in toasts(app))
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen.MODE == "memory"


# -- time travel (memory mode's T) -------------------------------------------------------------------------

async def test_time_travel_shows_the_stores_then_read_only_with_a_diff_and_esc_returns(hermes_home, make_app):
    from tui.screens.time_travel import MomentDialog, TravelDiffDialog

    history_home(hermes_home)
    before = memory_text(hermes_home)
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(app, pilot)
        screen = app.screen
        await pilot.press("T")
        dialog = await until_dialog(pilot, MomentDialog)
        await pilot.press(*"2026-13-01")
        await pilot.pause()
        assert dialog.query_one("#go").disabled and dialog.query_one("#travel-when").has_class("-invalid")
        await pilot.press("enter")
        assert isinstance(app.screen, MomentDialog)  # a bad date can't be chosen
        dialog.query_one("#travel-when").value = ""
        await pilot.press(*"2026-10-01")
        await pilot.pause()
        assert "MEMORY.md had 2 entries · USER.md had 1 entry" in shown(dialog.query_one("#travel-status"))
        await pilot.press("enter")
        assert await until(pilot, lambda: screen.travel_at is not None)
        await settle(app, pilot)
        assert "TIME TRAVEL" in shown(screen.query_one("#travel-banner")) and "1 Oct 2026" in shown(
            screen.query_one("#travel-banner"))
        text = " ".join(shown(screen.query_one("#entries-memory")).split())  # wherever the pane wraps
        assert "then canary." in text and "Typed by hand." not in text
        assert "added" not in text  # no origin lines: they describe the entries now
        # read-only: every write is greyed with the reason, Enter and keys write nothing
        assert "read-only" in screen.why_not("add") and "read-only" in screen.why_not("delete")
        await pilot.press("a")
        await pilot.press("enter")
        await pilot.press("d")
        await settle(app, pilot)
        assert app.screen is screen and memory_text(hermes_home) == before
        assert any("read-only" in n.message for n in toasts(app))
        # one key: the diff with now
        await pilot.press("n")
        diff = await until_dialog(pilot, TravelDiffDialog)
        body = str(diff.body)
        assert "+ Typed by hand." in body and "USER.md: no change since then" in body
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("escape")  # back to now
        await settle(app, pilot)
        assert screen.travel_at is None and not screen.query("#travel-banner")
        assert "Typed by hand." in shown(screen.query_one("#entries-memory"))
        assert screen.why_not("add") is None


async def test_time_travel_before_the_history_began_shows_empty_stores(hermes_home, make_app):
    from tui.screens.time_travel import MomentDialog

    history_home(hermes_home)
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("T")
        await until_dialog(pilot, MomentDialog)
        await pilot.press(*"2020-01-01", "enter")
        assert await until(pilot, lambda: app.screen.travel_at is not None)
        assert app.screen.travel_past == {"memory": (), "user": ()}
        assert app.screen.selected() is None


async def test_hostile_session_sources_and_entries_stay_literal(hermes_home, make_app):
    (hermes_home / "memories").mkdir(parents=True)
    db = Db(hermes_home / "state.db")
    source = "[bold red]tg[/]\x1b[31m"
    db.session("s", source)
    db.call("s", add("[link=https://x.example]click[/link] \x1b]52;c;aGk=\x07"))
    write_files(hermes_home, ["[link=https://x.example]click[/link] \x1b]52;c;aGk=\x07"])
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        assert await until(pilot, lambda: app.screen._origins)
        await settle(app, pilot)
        text = shown(app.screen.query_one("#entries-memory"))
        assert "[bold red]tg[/]␛[31m" in text and "[link=https://x.example]click[/link]" in text
        screen = await open_timeline(app, pilot)
        assert "[bold red]tg[/]␛[ + [link=" in shown(screen.query_one("#tl-writes"))  # the writer column is 17 wide
        detail = " ".join(shown(screen.query_one("#tl-diff")).split())
        assert "[link=https://x.example]click[/link] ␛]52;c;aGk=␇" in detail and "([bold red]tg[/]␛[31m)" in detail
        screen.query_one("#tl-source").value = source
        await settle(app, pilot)
        assert "[bold red]tg[/]" in " ".join(shown(screen.query_one("#tl-source #label")).split())
        assert len(screen.shown) == 1


async def test_switching_profile_drops_the_other_profiles_origins_and_time_travel(hermes_home, make_app):
    from tui.screens.time_travel import MomentDialog

    history_home(hermes_home)
    work = hermes_home / "profiles" / "work"
    (work / "memories").mkdir(parents=True)
    (work / "memories" / "MEMORY.md").write_text("Deploys go through the staging cluster, then canary.", encoding="utf-8")
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert await until(pilot, lambda: screen._origins)
        await pilot.press("T")
        await until_dialog(pilot, MomentDialog)
        await pilot.press(*"2026-10-01", "enter")
        assert await until(pilot, lambda: screen.travel_at is not None)
        app.switch_profile("work")
        await settle(app, pilot)
        assert screen.travel_at is None and not screen.query("#travel-banner")
        assert screen._origins == {} and screen.timeline is None  # work has no state.db: no origin lines
        assert "added" not in shown(screen.query_one("#entries-memory"))


async def test_edit_again_after_a_conflict_is_hmcs_write_in_the_origin_line_and_blame(hermes_home, make_app):
    """Edit an entry, Hermes changes it meanwhile, "Edit again" in the conflict dialog, save: the entry
    is hmc's write both in memory mode's origin line and in `hmc blame` (issue 20)."""
    from core.timeline import build_timeline

    history_home(hermes_home)
    app = make_app(poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert await until(pilot, lambda: screen._origins)
        await pilot.press("e", "end", *" Always.")
        path = hermes_home / "memories" / "MEMORY.md"
        path.write_text(memory_text(hermes_home).replace("then canary.", "then canary (Hermes)."), encoding="utf-8")
        await pilot.press("ctrl+s")
        await until_dialog(pilot, ChoiceDialog)
        await pilot.press("4")  # Edit again, against theirs
        editor = await until_dialog(pilot, EditEntryDialog)
        assert editor.original == "Deploys go through the staging cluster, then canary (Hermes)."
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        mine = "Deploys go through the staging cluster, then canary. Always."
        assert memory_text(hermes_home).startswith(mine + "\n§\n")
        assert await until(pilot, lambda: mine in screen._origins.get("memory", {}))
        await settle(app, pilot)
        line = screen._origins["memory"][mine]
        blame = next(b for b in build_timeline(app.curator).blame("memory") if b.text == mine)
        assert blame.origin is not None and blame.origin.by == "hmc"
        assert line.startswith("hmc · last changed") and "hand edit" not in line, line
        assert await until(pilot, lambda: "hmc · last changed" in shown(screen.query_one("#entries-memory")))


def test_same_history_tells_an_unchanged_rebuild_from_a_changed_one(demo_home):
    """The timeline repaints a rebuild only when its writes differ from the ones shown."""
    from core.curator import open_curator
    from core.timeline import build_timeline
    from tests.tui.conftest import TODAY, frozen_clock
    from tui.screens.timeline import same_history

    curator = open_curator(demo_home, today=TODAY, clock=frozen_clock)
    first, again = build_timeline(curator), build_timeline(curator)
    assert len(first.writes) > 10 and same_history(first, again)
    curator.stores["memory"].add("A note written after the timeline was shown")
    changed = build_timeline(curator)
    assert not same_history(first, changed) and len(changed.writes) == len(first.writes) + 1
