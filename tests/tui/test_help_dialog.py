"""`?` (and F1 in a dialog): the keys first, the screen's explanation after them, a caption that is
never cut down to 80x24, and the guide page (docs/…) that explains the screen it was opened on."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from textual.screen import Screen
from textual.widgets import Markdown

import tui.screens
from tests.tui.helpers import settle, shown, until, until_dialog
from tui.guide import PAGES, about, class_page, guide_page
from tui.screens.help import HelpDialog

# keys that reach a screen from memory mode, the screen, and the page its help names
WHERE = [
    ((), "MemoryScreen", "docs/memory.md"),
    (("2",), "PendingScreen", "docs/pending.md"),
    (("2", "s"), "SkillsPendingScreen", "docs/pending.md"),
    (("3", "escape"), "SearchScreen", "docs/search.md"),  # Esc leaves the query box for the results
    (("4",), "ReviewScreen", "docs/review.md"),
    (("5",), "ProfilesScreen", "docs/profiles.md"),
    (("t",), "TimelineScreen", "docs/history.md"),
    (("i",), "EntryHistoryScreen", "docs/history.md"),
]


async def open_help(app, pilot, keys, screen_name: str, key: str = "question_mark") -> HelpDialog:
    await settle(app, pilot)
    for k in keys:  # (no settle: an edit dialog's worker waits for the dialog's answer)
        await pilot.press(k)
        await pilot.pause()
    assert await until(pilot, lambda: type(app.screen).__name__ == screen_name), app.screen
    await pilot.pause()
    await pilot.press(key)
    return await until_dialog(pilot, HelpDialog)


def assert_keys_first(dialog: HelpDialog) -> None:
    body = dialog.query_one("#help-body")
    children = list(body.children)
    assert [c.id for c in children[:2]] == [None, "help-keys"] and "help-keys-title" in children[0].classes
    assert "Keys" in shown(children[0])
    keys = dialog.query_one("#help-keys")
    assert body.scroll_y == 0 and keys.region.y < body.region.bottom - 1  # seen without scrolling
    explanation = dialog.query(Markdown)
    if explanation:  # the screen's own text follows its keys
        assert explanation.first().region.y > keys.region.y


@pytest.mark.parametrize("keys,screen_name,page", WHERE, ids=[w[1] for w in WHERE])
async def test_help_opens_on_the_keys_and_names_the_guide_page(keys, screen_name, page, demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        dialog = await open_help(app, pilot, keys, screen_name)
        await pilot.pause()
        assert dialog.page == page
        assert shown(dialog.query_one("#help-guide")).strip() == f"Guide: {page}"
        assert_keys_first(dialog)


async def test_a_dialog_opened_from_a_mode_names_that_modes_page(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        # review's e: the generic edit dialog, over review mode
        dialog = await open_help(app, pilot, ("4", "e"), "EditEntryDialog", key="f1")
        await pilot.pause()
        assert shown(dialog.query_one("#help-guide")).strip() == "Guide: docs/review.md"


async def test_the_palettes_help_names_the_keys_page(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        dialog = await open_help(app, pilot, ("ctrl+p",), "PaletteDialog", key="f1")
        await pilot.pause()
        assert shown(dialog.query_one("#help-guide")).strip() == "Guide: docs/settings-and-keys.md"


@pytest.mark.parametrize("keys,screen_name,page", [((), "MemoryScreen", "memory"), (("2",), "PendingScreen", "pending"),
                                                    (("e",), "EditEntryDialog", "memory")])
async def test_at_80x24_nothing_of_the_help_is_cut(keys, screen_name, page, demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_help(app, pilot, keys, screen_name, key="f1" if keys == ("e",) else "question_mark")
        await pilot.pause()
        assert_keys_first(dialog)
        for widget, text in ((dialog.query_one(".help-keys-title"), "Keys · greyed: can't apply now · last column: "
                                                                    "the id config.toml's [keys] remaps"),
                             (dialog.query_one("#help-caption"), "Esc closes · j/k, g/G scroll · ctrl+p: any "
                                                                 "action of any mode by name"),
                             (dialog.query_one("#help-guide"), f"Guide: docs/{page}.md")):
            painted = " ".join(line.strip() for line in shown(widget).splitlines() if line.strip())
            assert painted == text  # wrapped if need be, never cut
            assert widget.region.right <= dialog.query_one(".help-dialog").content_region.right
        if screen_name == "MemoryScreen":  # long names and ids wrap: what a key does keeps room to be read
            assert "Switch between MEMORY.md" in shown(dialog.query_one("#help-keys"))


def test_every_screen_and_dialog_has_a_page_or_takes_the_one_below():
    """A new screen or dialog must be given its page in tui/guide.py (or be one of the generic
    dialogs, which take the page of the screen they were opened from)."""
    generic = {"ModeScreen", "Dialog", "QuestionDialog", "ChoiceDialog", "ConfirmDialog", "EntryEditor",
               "EditEntryDialog", "TextDialog", "PickDialog", "HelpDialog"}
    screens = set()
    for info in pkgutil.iter_modules(tui.screens.__path__):
        module = importlib.import_module(f"tui.screens.{info.name}")
        screens |= {cls for _, cls in inspect.getmembers(module, inspect.isclass)
                    if issubclass(cls, Screen) and cls.__module__ == module.__name__}
    missing = sorted(cls.__name__ for cls in screens
                     if cls.__name__ not in generic and class_page(cls) is None)
    assert not missing
    pages = {"docs/memory.md", "docs/pending.md", "docs/search.md", "docs/review.md", "docs/history.md",
             "docs/why.md", "docs/profiles.md", "docs/doctor.md", "docs/settings-and-keys.md", "docs/cli.md",
             "docs/releases.md", "docs/performance.md", "docs/architecture.md"}
    assert set(PAGES.values()) <= pages


def test_a_topic_names_its_page_before_the_class_and_the_screen_below():
    class Below:
        pass

    class TextDialog:
        pass

    stack = [Below(), about("why", TextDialog())]
    assert guide_page(stack[1], stack) == "docs/why.md"
    assert guide_page(TextDialog(), [Below()]) is None  # nothing below has a page either
    with pytest.raises(AssertionError):
        about("no such topic", TextDialog())
