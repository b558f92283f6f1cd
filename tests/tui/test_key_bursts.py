"""Keys that arrive in one burst (fast typing, or a terminal handing over several keys at once) go
where the first of them sends the keyboard: `/` then a word filters with that word, and none of
its letters acts on the list below (`n` rejecting a staged write, `d` asking to delete, `m`
promoting a search hit).

A Pilot press waits for the app between two keys, which hides the bug: these tests post every key
of the burst to the app before it handles the first, as the terminal's reader thread does."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input, OptionList

from tests.core.pending_support import pending_files, two_staged_writes
from tests.tui.helpers import memory_text, settle, until, until_dialog
from tui.screens.base import Dialog
from tui.widgets.filter_bar import FilterBar


@pytest.fixture
def home(hermes_home) -> Path:
    return two_staged_writes(hermes_home)


def burst(app, keys: str) -> None:
    """Every key of `keys` queued on the app at once, the way a terminal delivers them."""
    for ch in keys:
        app.post_message(events.Key("slash" if ch == "/" else ch, ch))


def on_disk(home: Path) -> tuple[str, list[str]]:
    return memory_text(home), pending_files(home)


async def landed(pilot, screen, box, text: str, timeout: float = 10.0) -> None:
    """Wait until `box` holds `text` or another screen (a dialog a letter opened) is on top. Not
    settle(): a dialog opened by mistake holds its worker, which settle() would wait for forever."""
    import time

    deadline = time.monotonic() + timeout
    while pilot.app.screen is screen and box.value != text and time.monotonic() < deadline:
        await pilot.pause(0.05)
    assert pilot.app.screen is screen, f"a key of the burst opened {pilot.app.screen!r}"
    assert box.has_focus and box.value == text


async def typed_into_filter(app, pilot, keys: str) -> FilterBar:
    screen = app.screen
    burst(app, keys)
    for _ in range(200):  # memory mode mounts its filter line at the first / (no settle: see landed)
        if screen.query(FilterBar):
            break
        await pilot.pause(0.05)
    bar = screen.query_one(FilterBar)
    await landed(pilot, screen, bar, keys[1:])
    await pilot.pause()
    return bar


async def test_a_burst_after_slash_filters_the_entries_and_no_letter_acts_on_them(home, make_app):
    app = make_app(home)
    before = on_disk(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        assert not app.screen.query(FilterBar)  # built when / first opens it, not before the first frame
        await typed_into_filter(app, pilot, "/deploys")  # d deletes, e edits, p shows the raw file
        assert app.screen.query_one("#entries-memory").numbers == [1]
    assert on_disk(home) == before


async def test_a_burst_after_slash_in_the_queue_rejects_nothing(home, make_app):
    app = make_app(home)
    before = on_disk(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("2")
        await settle(app, pilot)
        screen = app.screen
        await typed_into_filter(app, pilot, "/neovim")  # n rejects, e edits the highlighted write
        assert screen.query_one("#pending-list", OptionList).option_count == 1
        assert screen.current.id == "0000000b"
    assert on_disk(home) == before and len(before[1]) == 2


async def test_a_slash_inside_the_burst_is_typed_into_the_filter(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await typed_into_filter(app, pilot, "/.venv/bin")  # the second / is the filter's
        assert app.screen.query_one("#entries-memory").numbers == [0]


async def test_a_burst_after_slash_filters_the_timeline_and_the_review(hermes_home, make_app):
    from core.demo.build import build_demo_home
    from tests.tui.conftest import TODAY

    build_demo_home(hermes_home, TODAY)
    app = make_app(hermes_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        await until(pilot, lambda: app.screen.query(FilterBar) and app.screen.query_one("#tl-writes").option_count)
        await typed_into_filter(app, pilot, "/redis")  # R rolls a write back, d shows a diff
        await pilot.press("escape", "escape")
        await pilot.press("4")
        await settle(app, pilot)
        await typed_into_filter(app, pilot, "/deploy")  # d deletes, y keeps, o goes to the entry
        assert app.current_mode == "review"


async def test_a_burst_after_slash_in_the_search_results_goes_into_the_box(hermes_home, make_app):
    from core.demo.build import build_demo_home
    from tests.tui.conftest import TODAY

    build_demo_home(hermes_home, TODAY)
    app = make_app(hermes_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("3")
        await settle(app, pilot)
        box = app.screen.query_one("#search-query", Input)
        box.value = ""
        await pilot.press("escape")  # leave the box for the results list
        await settle(app, pilot)
        assert not box.has_focus
        screen = app.screen
        burst(app, "/make")  # m promotes the hit to memory, e expands a tool call
        await landed(pilot, screen, box, "make")


async def test_a_key_right_behind_enter_acts_on_the_filtered_queue_not_in_the_filter(home, make_app):
    """`/neovim`, Enter and `n` in one burst: the filter keeps "neovim" and `n` rejects the one
    write it shows (the list had the keyboard at once), never the other, never typed as a letter."""
    app = make_app(home)
    before = on_disk(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("2")
        await settle(app, pilot)
        screen = app.screen
        bar = screen.query_one(FilterBar)
        burst(app, "/neovim")
        app.post_message(events.Key("enter", "\r"))
        app.post_message(events.Key("n", "n"))
        await until(pilot, lambda: len(pending_files(home)) == 1)
        await settle(app, pilot)
        assert bar.value == "neovim" and not bar.has_focus
        assert pending_files(home) == [name for name in before[1] if "0000000a" in name]
        assert app.screen is screen
    assert memory_text(home) == before[0]


async def test_a_key_right_behind_escape_acts_on_the_whole_list(home, make_app):
    """`/deploys`, Escape and `e` in one burst: the filter is cleared and closed, and `e` opens the
    edit dialog of the entry the list highlights, not a letter in the filter."""
    app = make_app(home)
    before = on_disk(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        burst(app, "/deploys")
        app.post_message(events.Key("escape", "\x1b"))
        app.post_message(events.Key("e", "e"))
        await until_dialog(pilot, Dialog)  # not until(): the dialog holds the worker that opened it
        bar = screen.query_one(FilterBar)
        assert bar.value == "" and not bar.has_class("-open") and screen.filter_text == ""
        everything = list(range(len(app.curator.stores["memory"].last.entries)))
        assert len(everything) > 1 and screen.query_one("#entries-memory").numbers == everything
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen
    assert on_disk(home) == before


async def test_enter_in_the_filter_keeps_it_and_the_next_key_moves_in_the_filtered_list(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        burst(app, "/e")
        app.post_message(events.Key("enter", "\r"))
        app.post_message(events.Key("down", None))
        entries = screen.query_one("#entries-memory")
        await until(pilot, lambda: entries.has_focus)
        await settle(app, pilot)
        bar = screen.query_one(FilterBar)
        assert bar.value == "e" and bar.has_class("-open") and screen.filter_text == "e"
        shown = entries.numbers
        assert len(shown) > 1 and entries.highlighted == 1  # down moved in the list, not the cursor in the line
