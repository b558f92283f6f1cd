"""Issue 12, the first ten minutes: one test per navigation bug, and the friction list.

Each test drives the real keys (or the mouse) and checks what the person sees or what is on disk.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, OptionList, Static

from core.store.memory import serialize
from tests.core.pending_support import build_home, entries, stage
from tests.core.sessions_fixtures import Msg, build_db
from tests.tui.helpers import dialog_or_done, settle, shown, toasts, until, until_dialog
from tools.shots import settled, workers_done
from tui.screens.dialogs import ConfirmDialog, EditEntryDialog
from tui.widgets.entries import EntryList
from tui.widgets.findings import FindingsList
from tui.widgets.footer import KeyFooter
from tui.widgets.header import HmcHeader
from tui.widgets.results import ResultsList, plain
from tui.widgets.transcript import Transcript


async def wait(pilot, delay: float = 0.0) -> None:
    await pilot.pause(delay)
    await workers_done(pilot.app)
    await pilot.pause()
    await workers_done(pilot.app)
    await pilot.pause()


def notes(app) -> list:
    return toasts(app)


# ---------------------------------------------------------------------------------------------
# Bug 2: review's g goes to the entry


@pytest.mark.parametrize("pair", [False, True])
async def test_g_in_review_highlights_the_findings_entry(demo_home, make_app, pair):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("4")
        await wait(pilot)
        lst = app.screen.query_one(FindingsList)
        rows = [i for i in range(lst.option_count)
                if (f := lst.finding_at(i)) is not None and len(f.refs) == (2 if pair else 1) and f.refs[0][1] > 0]
        lst.highlighted = rows[-1]  # not entry #1: the cursor must move there, not stay on #1
        await pilot.pause()
        finding = lst.current
        target, index, text = finding.refs[0]  # for a pair, the first entry
        await pilot.press("o")
        await wait(pilot)
        assert app.current_mode == "memory"
        entries_list = app.screen.query_one(f"#entries-{target}", EntryList)
        assert entries_list.has_focus and entries_list.highlighted == index
        assert app.curator.stores[target].last.entries[index] == text


# ---------------------------------------------------------------------------------------------
# Bug 3: the footer at 80 columns


@pytest.mark.parametrize("mode", ["1", "2", "3", "4"])
@pytest.mark.parametrize("width", [80, 120])
async def test_footer_keeps_help_and_quit_and_never_overlaps(demo_home, make_app, mode, width):
    app = make_app(demo_home)
    async with app.run_test(size=(width, 24)) as pilot:
        await pilot.press(mode)
        await wait(pilot)
        if mode == "3":
            await pilot.press("escape")  # out of the box: q and ? work there
            await pilot.pause()
        footer = app.screen.query_one(KeyFooter)
        line = str(footer.render())
        assert len(line) <= width
        spans = footer._spans
        keys = [item.key for _, _, item in spans]
        assert "question_mark" in keys and "q" in keys
        for start, end, item in spans:  # every label is whole, where the footer put it
            assert line[start:end] == f"{item.display} {item.label}"
        for (_, end, _), (start, _, _) in zip(spans, spans[1:]):
            assert start > end  # at least one blank cell between two keys
        if "palette" in line:
            assert line.index("palette") > spans[-1][1] or spans[-1][2].label == "palette"


async def test_in_a_text_box_the_footer_shows_the_keys_that_work_there(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3")
        await wait(pilot)
        line = str(app.screen.query_one(KeyFooter).render())
        assert "f1 Help" in line and "^q Quit" in line and "q Quit" not in line.replace("^q Quit", "")


# ---------------------------------------------------------------------------------------------
# Bug 4: every way out asks when a dialog holds typed text


async def test_ctrl_q_with_a_typed_draft_asks_first(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("a", *"half a thought")
        await until_dialog(pilot, EditEntryDialog)
        await pilot.press("ctrl+q")  # from the text itself
        question = await until_dialog(pilot, ConfirmDialog)
        assert "lose your text" in question.title_text
        assert app.is_running
        await pilot.press("n")  # keep editing: the draft is still there
        editor = await until_dialog(pilot, EditEntryDialog)
        assert editor.query_one("#edit-text").text == "half a thought"
        await pilot.press("tab", "ctrl+q")  # and from the buttons
        await until_dialog(pilot, ConfirmDialog)
        await pilot.press("y")
        await pilot.pause()
        assert not app.is_running


@pytest.mark.parametrize("key", ["q", "ctrl+c"])
async def test_q_and_ctrl_c_never_drop_a_draft(demo_home, make_app, key):
    """In a dialog q and ctrl+c are not ways out (a dialog answers its own keys): the text stays."""
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("a", *"half a thought", "tab")  # off the text, onto the buttons
        editor = await until_dialog(pilot, EditEntryDialog)
        await pilot.press(key)
        await pilot.pause()
        assert app.is_running and app.screen is editor
        assert editor.query_one("#edit-text").text == "half a thought"


@pytest.mark.parametrize("key", ["q", "ctrl+c"])
async def test_q_and_ctrl_c_quit_from_a_mode_screen(demo_home, make_app, key):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press(key)
        await pilot.pause()
        assert not app.is_running


async def test_quitting_without_a_draft_does_not_ask(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("e")  # an editor with nothing typed
        await until_dialog(pilot, EditEntryDialog)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running


# ---------------------------------------------------------------------------------------------
# Bug 5: a long paste into the search box


async def test_a_paste_over_2048_chars_is_kept_and_explained(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("3")
        await wait(pilot)
        screen = app.screen
        box = screen.query_one("#search-query", Input)
        assert box.has_focus
        text = "deploy " * 400  # 2,800 characters
        box.insert_text_at_cursor(text)  # what a paste does
        await wait(pilot, 0.3)
        assert box.value == text
        status = str(screen.query_one("#search-status", Static).render())
        assert "2,800 characters" in status and "2,048" in status and "kept" in status
        assert screen.query_one(ResultsList).items == []  # no stale results under the message


# ---------------------------------------------------------------------------------------------
# Bug 6: no wrap in readers


async def test_end_then_down_stays_at_the_end_of_a_transcript(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("3")
        await wait(pilot)
        await pilot.press("escape", "enter")  # open the most recent session
        await wait(pilot)
        transcript = app.screen.query_one(Transcript)
        assert transcript.has_focus
        for _ in range(3):
            await pilot.press("end")
            await wait(pilot)
        last = transcript.highlighted
        assert last == transcript.option_count - 1
        await pilot.press("down")
        await wait(pilot)
        assert transcript.highlighted == last  # never back to the first message
        await pilot.press("home", "up")
        await pilot.pause()
        assert transcript.highlighted == 0


async def test_lists_do_not_wrap_either(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        lst = app.screen.query_one("#entries-memory", EntryList)
        await pilot.press("up")
        assert lst.highlighted == 0
        await pilot.press("end", "down")
        assert lst.highlighted == lst.option_count - 1


# ---------------------------------------------------------------------------------------------
# Bug 7: approve all counts by simulating the queue


@pytest.fixture
def filling_home(hermes_home) -> Path:
    """Three adds that each fit alone; only two fit one after the other."""
    home = build_home(hermes_home, memory=["Uses pnpm"], user=["Name: Ana"],
                      config="memory:\n  write_approval: true\n  memory_char_limit: 120\n  user_char_limit: 100\n")
    stage(home, content="Deploys with make ship on Fridays only, never on Mondays", rid="0000000a")
    stage(home, content="Runs the tests with pytest -x before every single push", rid="0000000b")
    stage(home, content="Prefers short answers with the command first, then why", rid="0000000c")
    return home


async def test_approve_all_confirm_counts_what_will_really_be_written(filling_home, make_app):
    app = make_app(filling_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("2")
        await wait(pilot)
        screen = app.screen
        assert all(ins.can_apply for ins, _ in screen.rows)  # each alone would apply
        await pilot.press("A")
        dialog = await until_dialog(pilot, ConfirmDialog)
        body = dialog.body.plain
        assert "Approve all 3" in body
        assert "1 will be written" in body or "2 will be written" in body
        promised = int(body.split(" will be written")[0].split()[-1])
        assert "can apply now but not after the ones before them" in body
        await pilot.press("y")
        await wait(pilot)
        written = len(entries(filling_home)) - 1
        assert written == promised  # the confirm said exactly what happened


# ---------------------------------------------------------------------------------------------
# Bug 8: grouped ids whole


async def test_a_grouped_pending_id_is_shown_whole(demo_home, make_app):
    from core.demo.build import PENDING_IDS

    app = make_app(demo_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("2")
        await wait(pilot)
        screen = app.screen
        lst = screen.query_one("#pending-list", OptionList)
        rows = [lst.get_option_at_index(i).prompt.plain for i in range(lst.option_count)]
        grouped = next(r for r in rows if "└" in r)
        assert PENDING_IDS["group_b"] in grouped  # all 8 characters, as the CLI takes them


# ---------------------------------------------------------------------------------------------
# Friction: greyed keys say why; one confirmation grammar


async def test_a_greyed_key_says_why(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert app.screen.check_action("repair", ()) is None
        await pilot.press("r")
        await pilot.pause()
        assert notes(app)[-1].message == "Repair: MEMORY.md is already clean"
        footer = app.screen.query_one(KeyFooter)
        repair = next(item for _, _, item in footer._spans if item.key == "r")
        assert not repair.enabled


async def test_clicking_a_greyed_footer_key_says_why_and_a_live_one_acts(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        footer = app.screen.query_one(KeyFooter)
        start = next(s for s, _, item in footer._spans if item.key == "u")
        await pilot.click(KeyFooter, offset=(start, 0))
        await pilot.pause()
        assert notes(app)[-1].message.startswith("Undo:")
        start = next(s for s, _, item in footer._spans if item.key == "a")
        await pilot.click(KeyFooter, offset=(start, 0))
        await until_dialog(pilot, EditEntryDialog)


async def test_repair_is_a_yes_no_question(hermes_home, make_app):
    memories = hermes_home / "memories"
    memories.mkdir(parents=True)
    (memories / "MEMORY.md").write_text("a\n\n§\n\nb")  # drift up to 0.20
    (memories / "USER.md").write_text("x")
    app = make_app(hermes_home, hermes_version="0.19.0")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("r")
        await until_dialog(pilot, ConfirmDialog)
        await pilot.press("escape")
        await pilot.pause()
        assert (memories / "MEMORY.md").read_text() == "a\n\n§\n\nb"
        await pilot.press("r")
        await until_dialog(pilot, ConfirmDialog)
        await pilot.press("y")
        await settle(app, pilot)
        assert (memories / "MEMORY.md").read_text() == "a\n§\nb"


# ---------------------------------------------------------------------------------------------
# Friction: search


@pytest.fixture
def search_home(hermes_home) -> Path:
    memories = hermes_home / "memories"
    memories.mkdir(parents=True)
    (memories / "MEMORY.md").write_text(serialize(["Project uses pnpm"]))
    (memories / "USER.md").write_text("Name: Ana")
    build_db(hermes_home / "state.db", extra=[("20261019_000000_c0c0c0", "cli", [
        Msg("user", "check the kiwi build"),
        Msg("tool", '{"success": true, "output": "kiwi tests passed \\u001b[32mOK\\u001b[0m", "exit_code": 0}',
            tool_name="terminal")])])
    return hermes_home


async def test_3_and_slash_in_search_put_the_focus_in_the_query_box(search_home, make_app):
    app = make_app(search_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("3")
        await wait(pilot)
        box = app.screen.query_one("#search-query", Input)
        assert box.has_focus
        await pilot.press("escape")  # to the results
        assert app.screen.query_one(ResultsList).has_focus
        await pilot.press("1", "3")
        await pilot.pause()
        assert box.has_focus  # 3 again: the box, so typing never fires result keys
        await pilot.press(*"cm")
        assert box.value == "cm" and app.current_mode == "search"
        await pilot.press("escape", "slash")  # in search mode / goes back to the box
        await pilot.pause()
        assert box.has_focus
        await pilot.press("escape", "1", "slash")  # in memory mode / filters the entries
        await pilot.pause()
        assert app.current_mode == "memory" and app.screen.query_one("#memory-filter").has_focus
        await pilot.press("escape", "3")
        await pilot.pause()
        assert box.has_focus


async def test_no_hits_names_the_filters_and_one_key_clears_them(search_home, make_app):
    app = make_app(search_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("3")
        await wait(pilot)
        screen = app.screen
        screen.query_one("#filter-role", type(screen.query_one("#filter-role"))).value = "assistant"
        since = screen.query_one("#filter-since", Input)
        since.value = "2d"
        await pilot.press(*"kiwi")
        await wait(pilot, 0.3)
        status = str(screen.query_one("#search-status", Static).render())
        assert "No hits for kiwi with role assistant, since 2d" in status and "ctrl+r clears" in status
        await pilot.press("ctrl+r")
        await wait(pilot, 0.3)
        assert since.value == "" and screen.active_filters() == []
        assert len(screen.query_one(ResultsList).items) == 2


async def test_clearing_filters_from_a_date_field_hands_the_keys_back_to_the_query(search_home, make_app):
    """ctrl+r in the since box empties it; typing after it (or / ) goes to the query, not the date."""
    app = make_app(search_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("3")
        await wait(pilot)
        screen = app.screen
        await pilot.press(*"kiwi")
        await pilot.click("#filter-since")
        await pilot.press(*"2099-01-01", "enter")
        await wait(pilot, 0.3)
        assert screen.query_one(ResultsList).items == []
        await pilot.press("ctrl+r")
        await wait(pilot, 0.3)
        box = screen.query_one("#search-query", Input)
        assert box.has_focus and screen.query_one("#filter-since", Input).value == ""
        await pilot.press(*" tests")
        assert box.value == "kiwi tests" and screen.query_one("#filter-since", Input).value == ""


async def test_a_bad_date_is_flagged_as_typed_with_no_stale_results(search_home, make_app):
    app = make_app(search_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("3")
        await wait(pilot)
        screen = app.screen
        await pilot.press(*"kiwi")
        await wait(pilot, 0.3)
        results = screen.query_one(ResultsList)
        assert results.items
        await pilot.click("#filter-since")
        await pilot.press(*"2026-13")
        await pilot.pause()  # no Enter, no leaving the box: flagged as typed
        status = screen.query_one("#search-status", Static)
        assert status.has_class("-error") and "2026-13" in str(status.render())
        assert results.items == [] and screen.query_one("#filter-since").has_class("-invalid")
        await pilot.press("backspace", "backspace", "backspace")  # "2026": still wrong
        await pilot.press(*"-10-01")
        await wait(pilot, 0.3)
        assert not status.has_class("-error") and results.items


async def test_tool_row_snippets_show_text_not_json(search_home, make_app):
    app = make_app(search_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("3")
        await wait(pilot)
        await pilot.press(*"passed")
        await wait(pilot, 0.3)
        (hit,) = app.screen.query_one(ResultsList).items
        row = plain(app.screen.query_one(ResultsList).get_option_at_index(0).prompt)
        assert hit.role == "tool"
        assert "output: kiwi tests passed OK" in row and "exit_code: 0" in row
        assert '{"' not in row and "\\u001b" not in row and "␛" not in row


# ---------------------------------------------------------------------------------------------
# Friction: 80x24


async def test_mode_tabs_keep_their_names_at_80_columns(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        header = shown(app.screen.query_one(HmcHeader))
        for name in ("1 Mem", "2 Pend", "3 Srch", "4 Rev", "5 Prof"):
            assert name in header
        # the profile is always said; the home's path gives way to the tabs and the counts
        assert " default " in header and "pending" in header and header.rstrip().endswith("review due")


async def test_startup_toast_is_small(demo_home, make_app):
    app = make_app(demo_home, greet=True)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        # the greeting comes once the first frame is out and the queues are counted: later on a busy box
        assert await until(pilot, lambda: any(n.severity == "information" for n in notes(app)))
        await pilot.pause(0.1)
        toasts = [n for n in notes(app) if n.severity == "information"]
        assert len(toasts) == 1
        assert len(toasts[0].message.splitlines()) <= 3  # the profile hmc opened, the queues, the review
        assert toasts[0].message.startswith("profile default (active) — 2 others: press 5")
        assert all(len(line) <= 50 for line in toasts[0].message.splitlines())


@pytest.mark.parametrize("keys", [("e",), ("a",), ("4", "wait", "m"), ("2", "wait", "A"), ("question_mark",),
                                  ("p",), ("h",), ("d",)])
async def test_dialogs_fit_in_24_rows_buttons_included(demo_home, make_app, keys):
    app = make_app(demo_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for key in keys:
            if key == "wait":
                await wait(pilot)
                if app.current_mode == "review":
                    lst = app.screen.query_one(FindingsList)
                    lst.highlighted = next(i for i in range(lst.option_count)
                                           if (f := lst.finding_at(i)) is not None and len(f.entries) == 2)
                    await pilot.pause()
                continue
            await pilot.press(key)
        dialog = await dialog_or_done(pilot)  # some compute in a thread first ([h] reads the journal)
        assert dialog is not None, keys
        box = dialog.query_one(".dialog")
        assert box.region.y >= 0 and box.region.bottom <= 24
        for button in dialog.query("Button"):
            assert 0 <= button.region.y and button.region.bottom <= box.region.bottom, button
            assert button.region.height >= 1


# ---------------------------------------------------------------------------------------------
# Friction: the mouse


async def test_header_mode_tabs_are_clickable(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        header = app.screen.query_one(HmcHeader)
        start = next(s for s, _, key in header._tab_spans if key == "4")
        await pilot.click(HmcHeader, offset=(start + 1, 0))
        await pilot.pause()
        assert app.current_mode == "review"


async def test_single_click_selects_and_double_click_opens(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settled(pilot)  # the first screen and what follows it (the scan reloads the list)
        await workers_done(app)  # and the origin and loaded lines (read after it: later with a cold cache)
        await pilot.pause()
        lst = app.screen.query_one("#entries-memory", EntryList)

        def line() -> int:  # the second entry's first line (a rule line separates entries), read at the click:
            return lst._index_to_line[1] + 1  # a late origin or loaded line moves it

        await pilot.click(lst, offset=(6, line()))
        assert await until(pilot, lambda: lst.highlighted == 1)
        assert not isinstance(app.screen, EditEntryDialog)
        await pilot.click(lst, offset=(6, line()), times=2)
        editor = await until_dialog(pilot, EditEntryDialog)
        assert editor.original == app.curator.stores["memory"].last.entries[1]


# ---------------------------------------------------------------------------------------------
# Friction: polish


async def test_modals_dim_what_is_behind_them(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("d")
        dialog = await until_dialog(pilot, ConfirmDialog)
        assert dialog.styles.background.a < 1  # see-through: the entries stay visible behind it


async def test_conflict_dialog_highlights_the_difference(demo_home, make_app):
    from tui.screens.dialogs import ChoiceDialog

    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        store = app.curator.stores["memory"]
        first = store.last.entries[0]
        await pilot.press("e", "end", *" mine")
        store.path.write_text(store.path.read_text().replace(first, first + " theirs", 1))
        await pilot.press("ctrl+s")
        dialog = await until_dialog(pilot, ChoiceDialog)
        styled = {dialog.body.plain[s.start:s.end].strip() for s in dialog.body.spans if "underline" in str(s.style)}
        assert {"theirs", "mine"} <= styled


async def test_add_dialog_opens_without_an_error_and_the_list_moves_to_the_new_entry(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("tab", "a")
        editor = await until_dialog(pilot, EditEntryDialog)
        count = str(editor.query_one("#edit-count").render())
        assert "✗" not in count and editor.query_one("#save").disabled
        await pilot.press(*"Prefers tea", "ctrl+s")
        await settle(app, pilot)
        lst = app.screen.query_one("#entries-user", EntryList)
        entries_now = app.curator.stores["user"].last.entries
        assert lst.has_focus and entries_now[lst.highlighted] == "Prefers tea"


async def test_one_entry_is_singular_and_restoring_says_restored(hermes_home, make_app):
    memories = hermes_home / "memories"
    memories.mkdir(parents=True)
    (memories / "MEMORY.md").write_text(serialize(["Only one", "Second"]))
    (memories / "USER.md").write_text("Name: Ana")
    app = make_app(hermes_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert "1 entry" in str(app.screen.query_one("#pane-user .pane-title").render())
        await pilot.press("d", "y")
        await settle(app, pilot)
        await pilot.press("h", "enter")
        await settle(app, pilot)
        assert notes(app)[-1].title == "Restored" and notes(app)[-1].message.startswith("Entry restored.")
        lst = app.screen.query_one("#entries-memory", EntryList)
        assert app.curator.stores["memory"].last.entries[lst.highlighted] == "Only one"


def test_snippet_text_from_json_tool_output_and_tool_calls():
    from tui.widgets.results import looks_like_json, tool_spans

    call = [('[{"id": "call_9", "type": "function", "function": {"name": "session_search", "arguments": '
             '"{\\"query\\": \\"the ', False), ("invoice", True), (' export\\"}"}}]', False)]
    assert tool_spans(call) == [("→ session_search query: the ", False), ("invoice", True), (" export", False)]
    out = [('{"success": true, "message": "Entry ', False), ("added", True), ('.", "entry_count": 1}', False)]
    assert "".join(p for p, _ in tool_spans(out)) == "success: true · message: Entry added. · entry_count: 1"
    colours = [("\x1b[32mPASSED\x1b[0m tests/", False), ("deploy", True)]
    assert tool_spans(colours) == [("PASSED tests/", False), ("deploy", True)]
    assert not looks_like_json([("[bold red]not bold[/] [link=x]y[/link]", False)])  # markup is text, kept


async def test_an_empty_home_does_not_nag_about_a_review(hermes_home, make_app):
    (hermes_home / "memories").mkdir(parents=True)
    app = make_app(hermes_home, greet=True, poll=False)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await wait(pilot, 0.3)
        assert "review due" not in app.header_state()["review"]
        assert not app.header_state()["review_due"]
        assert not any("review" in n.message.lower() for n in notes(app))
        await pilot.press("a", *"A first entry", "ctrl+s")  # one entry: the review is due (never done)
        await wait(pilot, 0.2)
        assert "A first entry" in (hermes_home / "memories" / "MEMORY.md").read_text(encoding="utf-8")
        assert app.header_state()["review_due"] and "review due" in app.header_state()["review"]
